//! A query's ranking joined with its judgments (`form_res_rels.c`,
//! `form_res_rels_jg.c`): documents ranked by score, ties broken by docno
//! in reverse `strcmp` order, cut at `-M`, each given its judgment
//! (-1 not in the pool, -2 in the pool but unjudged, else the qrels value),
//! and the counts every measure reads.

use super::cfmt::{msort, strcmp};

pub const NONPOOL: i64 = -1;
pub const UNJUDGED: i64 = -2;

/// trec_eval's RES_RELS.
#[derive(Clone, Debug, Default)]
pub struct ResRels {
    pub num_rel_ret: i64,
    pub num_ret: i64,
    pub num_nonpool: i64,
    pub num_unjudged_in_pool: i64,
    pub num_rel: i64,
    /// one past the highest judged level with documents
    pub num_rel_levels: i64,
    /// documents judged at each level 0..=max level, retrieved or not
    pub rel_levels: Vec<i64>,
    /// the judgment of each retrieved document, in rank order
    pub rel_list: Vec<i64>,
}

impl ResRels {
    /// `rel_levels[i]`, 0 beyond the levels seen.
    pub fn level(&self, i: i64) -> i64 {
        usize::try_from(i)
            .ok()
            .and_then(|i| self.rel_levels.get(i))
            .copied()
            .unwrap_or(0)
    }
}

/// The evaluation settings that shape the join.
#[derive(Clone, Copy)]
pub struct Join {
    pub relevance_level: i64,
    pub max_docs: i64,
    pub judged_only: bool,
}

/// The largest relevance value accepted: trec_eval allocates a counter per
/// level up to the highest one, so a value like 10^12 would exhaust memory.
const MAX_LEVEL: i64 = 1 << 24;

/// The retrieved documents in rank order: score descending, ties by docno
/// descending (`comp_sim_docno`), after trec_eval's sort by docno. Scores
/// that are NaN make the comparator inconsistent; the merge sort still
/// gives glibc's order.
pub fn rank<'a>(docs: &[(&'a [u8], f64)]) -> Vec<(&'a [u8], f64)> {
    let mut ranked = docs.to_vec();
    if ranked.iter().any(|d| d.1.is_nan()) {
        msort(&mut ranked, &|a: &(&[u8], f64), b: &(&[u8], f64)| {
            strcmp(a.0, b.0)
        });
        msort(&mut ranked, &comp_sim_docno);
    } else {
        ranked.sort_by(|a, b| match comp_sim_docno(a, b) {
            c if c < 0 => std::cmp::Ordering::Less,
            0 => std::cmp::Ordering::Equal,
            _ => std::cmp::Ordering::Greater,
        });
    }
    ranked
}

fn comp_sim_docno(a: &(&[u8], f64), b: &(&[u8], f64)) -> i32 {
    if a.1 > b.1 {
        -1
    } else if a.1 < b.1 {
        1
    } else {
        strcmp(b.0, a.0)
    }
}

/// The top `-M` documents of a ranking, or the message of trec_eval's
/// duplicate check (`docs` = the ranked documents).
/// The top `-M` documents of a ranking sorted by docno, each with its rank
/// (0-based), or the message of trec_eval's duplicate check.
fn top<'a>(ranked: &[(&'a [u8], f64)], join: Join) -> Result<Vec<(&'a [u8], usize)>, String> {
    let n = (ranked.len() as i64).min(join.max_docs).max(0) as usize;
    // sorted by (docno, rank), the docno's first 8 bytes compared first
    let mut keyed: Vec<(u64, &[u8], usize)> = ranked[..n]
        .iter()
        .enumerate()
        .map(|(r, d)| (prefix(d.0), d.0, r))
        .collect();
    keyed.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(b.1)).then(a.2.cmp(&b.2)));
    let by_docno: Vec<(&[u8], usize)> = keyed.into_iter().map(|k| (k.1, k.2)).collect();
    if let Some(w) = by_docno.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(format!(
            "trec_eval.form_res_qrels: duplicate docs {}",
            String::from_utf8_lossy(w[0].0)
        ));
    }
    Ok(by_docno)
}

/// A docno's first 8 bytes as a big-endian number (zeros past its end):
/// one docno before another has a prefix no larger.
fn prefix(docno: &[u8]) -> u64 {
    let mut bytes = [0u8; 8];
    let n = docno.len().min(8);
    bytes[..n].copy_from_slice(&docno[..n]);
    u64::from_be_bytes(bytes)
}

/// The judgment of every top document in rank order, by one merge of the
/// two docno-sorted lists (as form_res_rels.c walks them): the qrels
/// value, UNJUDGED for a negative one, NONPOOL when absent.
fn judge(qrels: &[(&[u8], i64)], by_docno: &[(&[u8], usize)]) -> Vec<i64> {
    let mut judged = vec![NONPOOL; by_docno.len()];
    let mut q = 0;
    for &(docno, rank) in by_docno {
        while q < qrels.len() && qrels[q].0 < docno {
            q += 1;
        }
        if q < qrels.len() && qrels[q].0 == docno {
            judged[rank] = if qrels[q].1 < 0 { UNJUDGED } else { qrels[q].1 };
            q += 1;
        }
    }
    judged
}

/// Counts of judged documents per level, and the level count.
fn levels(qrels: &[(&[u8], i64)], max_rel: i64) -> Result<Vec<i64>, String> {
    if max_rel > MAX_LEVEL {
        return Err(format!(
            "trec_eval.form_res_rels: relevance value {max_rel} is too large (at most {MAX_LEVEL})"
        ));
    }
    let mut levels = vec![0i64; (max_rel + 1).max(0) as usize];
    for q in qrels {
        if q.1 >= 0 {
            levels[q.1 as usize] += 1;
        }
    }
    Ok(levels)
}

fn finish(
    join: Join,
    top: &[(&[u8], usize)],
    qrels: &[(&[u8], i64)],
    levels: Vec<i64>,
    previous_levels: i64,
) -> ResRels {
    let mut rr = ResRels {
        rel_levels: levels,
        num_rel_levels: previous_levels,
        ..ResRels::default()
    };
    let judged = judge(qrels, top);
    if join.judged_only {
        rr.rel_list = judged.into_iter().filter(|&r| r >= 0).collect();
        rr.num_rel_ret = rr
            .rel_list
            .iter()
            .filter(|&&r| r >= join.relevance_level)
            .count() as i64;
    } else {
        for &r in &judged {
            if r == NONPOOL {
                rr.num_nonpool += 1;
            } else if r == UNJUDGED {
                rr.num_unjudged_in_pool += 1;
            } else if r >= join.relevance_level {
                rr.num_rel_ret += 1;
            }
        }
        rr.rel_list = judged;
    }
    rr.num_ret = rr.rel_list.len() as i64;
    for (i, &n) in rr.rel_levels.iter().enumerate() {
        if n != 0 {
            rr.num_rel_levels = i as i64 + 1;
            if i as i64 >= join.relevance_level {
                rr.num_rel += n;
            }
        }
    }
    rr
}

/// What `te_form_res_rels` keeps from one query to the next.
#[derive(Clone, Copy, Default)]
pub struct Carry {
    /// the level count of the query evaluated before: kept when a query
    /// has no judged level
    pub num_rel_levels: i64,
    /// whether the level counters were ever allocated: when the first
    /// query joined has only negative judgments, trec_eval's allocation of
    /// zero counters returns NULL and the measure fails without a message
    pub allocated: bool,
}

/// `te_form_res_rels`.
pub fn form(
    join: Join,
    qrels: &[(&[u8], i64)],
    ranked: &[(&[u8], f64)],
    carry: &mut Carry,
) -> Result<ResRels, String> {
    let top = top(ranked, join)?;
    if let Some(w) = qrels.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(format!(
            "trec_eval.form_res_rels: duplicate docs {}\n",
            String::from_utf8_lossy(w[1].0)
        ));
    }
    let max_rel = qrels.iter().map(|q| q.1).max().unwrap_or(0);
    if max_rel < 0 && !carry.allocated {
        return Err(String::new());
    }
    let levels = levels(qrels, max_rel)?;
    let rr = finish(join, &top, qrels, levels, carry.num_rel_levels);
    let after = carry_after(qrels, *carry);
    debug_assert_eq!(after.num_rel_levels, rr.num_rel_levels);
    *carry = Carry {
        allocated: true,
        ..after
    };
    Ok(rr)
}

/// The carry `form` leaves after joining a query with these judgments
/// (when it succeeds): it reads the judgments only, so the carry into
/// every query is known before any ranking is read.
pub fn carry_after(qrels: &[(&[u8], i64)], carry: Carry) -> Carry {
    let max_rel = qrels.iter().map(|q| q.1).max().unwrap_or(0);
    Carry {
        // the highest level with a judgment is max_rel itself (past
        // MAX_LEVEL `form` fails and the evaluation stops)
        num_rel_levels: if max_rel >= 0 {
            max_rel.saturating_add(1)
        } else {
            carry.num_rel_levels
        },
        allocated: carry.allocated || max_rel >= 0,
    }
}

/// `te_form_res_rels_jg`: one ResRels per judgment group, their level
/// arrays all as long as the highest level of any group.
pub fn form_jg(
    join: Join,
    groups: &[Vec<(&[u8], i64)>],
    ranked: &[(&[u8], f64)],
) -> Result<Vec<ResRels>, String> {
    let top = top(ranked, join)?;
    let max_rel = groups
        .iter()
        .flatten()
        .map(|q| q.1)
        .max()
        .unwrap_or(0)
        .max(0);
    let mut out = Vec::with_capacity(groups.len());
    for g in groups {
        let levels = levels(g, max_rel)?;
        out.push(finish(join, &top, g, levels, 0));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const JOIN: Join = Join {
        relevance_level: 1,
        max_docs: i64::MAX,
        judged_only: false,
    };

    #[test]
    fn ties_are_broken_by_docno_descending() {
        let docs = [(&b"a"[..], 1.0), (&b"c"[..], 1.0), (&b"b"[..], 2.0)];
        let ranked: Vec<&[u8]> = rank(&docs).iter().map(|d| d.0).collect();
        assert_eq!(ranked, vec![&b"b"[..], b"c", b"a"]);
    }

    #[test]
    fn judgments_and_counts_follow_trec_eval() {
        let qrels = [
            (&b"a"[..], 2),
            (&b"b"[..], 0),
            (&b"c"[..], -1),
            (&b"z"[..], 1),
        ];
        let ranked = rank(&[
            (&b"a"[..], 3.0),
            (&b"b"[..], 2.0),
            (&b"c"[..], 1.0),
            (&b"d"[..], 0.0),
        ]);
        let rr = form(JOIN, &qrels, &ranked, &mut Carry::default()).expect("no duplicates");
        assert_eq!(rr.rel_list, vec![2, 0, UNJUDGED, NONPOOL]);
        assert_eq!((rr.num_rel, rr.num_rel_ret, rr.num_ret), (2, 1, 4));
        assert_eq!(
            (rr.num_nonpool, rr.num_unjudged_in_pool, rr.num_rel_levels),
            (1, 1, 3)
        );
        assert_eq!(rr.rel_levels, vec![1, 1, 1]);
        let judged = Join {
            judged_only: true,
            ..JOIN
        };
        assert_eq!(
            form(judged, &qrels, &ranked, &mut Carry::default())
                .expect("ok")
                .rel_list,
            vec![2, 0]
        );
        let cut = Join {
            max_docs: 1,
            ..JOIN
        };
        assert_eq!(
            form(cut, &qrels, &ranked, &mut Carry::default())
                .expect("ok")
                .num_ret,
            1
        );
    }

    #[test]
    fn duplicates_are_reported_with_trec_eval_s_words() {
        let ranked = rank(&[(&b"a"[..], 1.0), (&b"a"[..], 0.5)]);
        let err =
            form(JOIN, &[(&b"a"[..], 1)], &ranked, &mut Carry::default()).expect_err("duplicate");
        assert_eq!(err, "trec_eval.form_res_qrels: duplicate docs a");
    }
}
