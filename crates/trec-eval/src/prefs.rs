//! Preference judgments (`-R prefs`, `-R qrels_prefs`) and trec_eval's
//! `form_prefs_counts.c`: each judgment group (JG) of a query either as
//! equivalence classes of documents by relevance level (one sub-group) or
//! as a preference array closed under transitivity (several sub-groups),
//! with the preferences each retrieval ranking fulfils, and the counts of
//! every document pair over the groups.
//!
//! Documents get internal ids: the retrieved judged documents 0..R in rank
//! order (ties by docno ascending here, unlike the qrels path), then the
//! unretrieved judged ones in docno order.

use super::cfmt::{msort, strcmp};

/// The most documents with preferences in one query.
const MAX_JUDGED: usize = 20_000;

/// One preference line.
#[derive(Clone, Debug)]
pub struct Pref<'a> {
    pub jg: &'a [u8],
    pub jsg: &'a [u8],
    pub docno: &'a [u8],
    pub rel_level: f64,
    /// internal id, assigned per query
    rank: i64,
}

impl<'a> Pref<'a> {
    pub fn new(jg: &'a [u8], jsg: &'a [u8], docno: &'a [u8], rel_level: f64) -> Self {
        Pref {
            jg,
            jsg,
            docno,
            rel_level,
            rank: 0,
        }
    }
}

/// One query's preference lines, sorted by docno.
pub struct PrefsQuery<'a> {
    pub qid: &'a [u8],
    pub lines: Vec<Pref<'a>>,
}

/// An equivalence class: documents of one relevance level in one JG.
#[derive(Clone, Copy, Debug)]
struct Ec {
    rel_level: f64,
    /// its internal ids: `pool[start..start + len]`
    start: usize,
    len: usize,
}

/// trec_eval's JG with its counts.
#[derive(Clone, Debug, Default)]
pub struct Jg {
    /// equivalence classes by descending level (empty for sub-groups)
    ecs: Vec<Ec>,
    /// preference array (num_judged²), for JGs with sub-groups
    pa: Vec<u8>,
    rel_array: Vec<f64>,
    pub fulfilled_ret: i64,
    pub possible_ret: i64,
    pub fulfilled_imp: i64,
    pub possible_imp: i64,
    pub possible_notoccur: i64,
    pub num_nonrel: i64,
    pub num_nonrel_ret: i64,
    pub num_rel: i64,
    pub num_rel_ret: i64,
}

/// trec_eval's RESULTS_PREFS.
pub struct ResultsPrefs {
    pub jgs: Vec<Jg>,
    pub num_judged: usize,
    pub num_judged_ret: usize,
    /// counts[i * num_judged + j]: JGs preferring i to j (unsigned short)
    counts: Vec<u16>,
    /// every EC's internal ids, JG after JG
    pool: Vec<i64>,
}

impl ResultsPrefs {
    pub fn count(&self, i: usize, j: usize) -> u16 {
        self.counts[i * self.num_judged + j]
    }
}

/// Why forming failed: a message and measure failure, or trec_eval's abort().
pub enum PrefsError {
    Fail(String),
    Abort(String),
}

/// `form_prefs_and_ranks`: internal ids for every preference line, the
/// lines sorted by JG, sub-group, level (descending) and id.
fn ranks<'a>(
    lines: &[Pref<'a>],
    docs: &[(&[u8], f64)],
    max_docs: i64,
) -> Result<(Vec<Pref<'a>>, usize, usize), PrefsError> {
    let mut results: Vec<(&[u8], f64, i64)> = docs.iter().map(|d| (d.0, d.1, 0)).collect();
    let by_sim = |a: &(&[u8], f64, i64), b: &(&[u8], f64, i64)| {
        if a.1 > b.1 {
            -1
        } else if a.1 < b.1 {
            1
        } else {
            strcmp(a.0, b.0)
        }
    };
    // trec_eval's lines arrive sorted by docno; scores that are NaN make
    // by_sim inconsistent, where glibc's merge sort still fixes the order
    results.sort_by(|a, b| a.0.cmp(b.0));
    msort(&mut results, &by_sim);
    results.truncate((results.len() as i64).min(max_docs).max(0) as usize);
    for (i, r) in results.iter_mut().enumerate() {
        r.2 = i as i64 + 1;
    }
    results.sort_by(|a, b| a.0.cmp(b.0));
    if let Some(w) = results.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(PrefsError::Fail(format!(
            "trec_eval.form_prefs_counts: duplicate docs {}",
            String::from_utf8_lossy(w[1].0)
        )));
    }
    let mut prefs = lines.to_vec();
    prefs.sort_by(|a, b| a.docno.cmp(b.docno));
    // retrieved documents without a preference line get rank -1
    let mut p = 0;
    let mut i = 0;
    while i < results.len() && p < prefs.len() {
        while p < prefs.len() && prefs[p].docno < results[i].0 {
            p += 1;
        }
        if p < prefs.len() && prefs[p].docno == results[i].0 {
            while p < prefs.len() && prefs[p].docno == results[i].0 {
                p += 1;
            }
        } else {
            results[i].2 = -1;
        }
        i += 1;
    }
    results.truncate(i);
    results.sort_by_key(|r| r.2);
    let mut judged: Vec<(&[u8], f64, i64)> = results.into_iter().filter(|r| r.2 > -1).collect();
    for (k, r) in judged.iter_mut().enumerate() {
        r.2 = k as i64;
    }
    let num_judged_ret = judged.len();
    judged.sort_by(|a, b| a.0.cmp(b.0));
    let mut next = num_judged_ret as i64;
    let mut p = 0;
    let assign = |prefs: &mut Vec<Pref>, p: &mut usize, rank: i64| {
        let docno = prefs[*p].docno;
        while *p < prefs.len() && prefs[*p].docno == docno {
            prefs[*p].rank = rank;
            *p += 1;
        }
    };
    for doc in &judged {
        while p < prefs.len() && prefs[p].docno < doc.0 {
            assign(&mut prefs, &mut p, next);
            next += 1;
        }
        if p < prefs.len() {
            assign(&mut prefs, &mut p, doc.2);
        }
    }
    while p < prefs.len() {
        assign(&mut prefs, &mut p, next);
        next += 1;
    }
    msort(
        &mut prefs,
        &|a: &Pref, b: &Pref| match (strcmp(a.jg, b.jg), strcmp(a.jsg, b.jsg)) {
            (0, 0) => {
                if a.rel_level > b.rel_level {
                    -1
                } else if a.rel_level < b.rel_level {
                    1
                } else {
                    (a.rank - b.rank) as i32
                }
            }
            (0, c) | (c, _) => c,
        },
    );
    Ok((prefs, next as usize, num_judged_ret))
}

/// `form_prefs_counts`.
pub fn form(
    lines: &[Pref],
    docs: &[(&[u8], f64)],
    max_docs: i64,
) -> Result<ResultsPrefs, PrefsError> {
    let (prefs, num_judged, num_judged_ret) = ranks(lines, docs, max_docs)?;
    // trec_eval keeps a num_judged² array of counts per query (and one of
    // flags per judgment group with sub-groups): past this many documents
    // that is gigabytes, which trec_eval would fail to allocate
    if num_judged > MAX_JUDGED {
        return Err(PrefsError::Fail(format!(
            "trec_eval.form_prefs_counts: {num_judged} documents have preferences in one query; at most {MAX_JUDGED} fit in memory\n"
        )));
    }
    let mut rp = ResultsPrefs {
        jgs: Vec::new(),
        num_judged,
        num_judged_ret,
        counts: vec![0; num_judged * num_judged],
        pool: Vec::with_capacity(prefs.len()),
    };
    let mut start = 0;
    while start < prefs.len() {
        let mut end = start;
        let mut sub_groups = 0;
        let mut jsg: &[u8] = b"";
        while end < prefs.len() && prefs[end].jg == prefs[start].jg {
            if prefs[end].jsg != jsg {
                sub_groups += 1;
                jsg = prefs[end].jsg;
            }
            end += 1;
        }
        let jg = if sub_groups > 1 {
            form_jg_pa(&prefs[start..end], &mut rp)?
        } else {
            form_jg_ec(&prefs[start..end], &mut rp)?
        };
        rp.jgs.push(jg);
        start = end;
    }
    Ok(rp)
}

fn form_jg_ec(prefs: &[Pref], rp: &mut ResultsPrefs) -> Result<Jg, PrefsError> {
    let mut jg = Jg::default();
    for p in prefs {
        match jg.ecs.last_mut() {
            Some(ec) if ec.rel_level == p.rel_level => ec.len += 1,
            _ => jg.ecs.push(Ec {
                rel_level: p.rel_level,
                start: rp.pool.len(),
                len: 1,
            }),
        }
        rp.pool.push(p.rank);
    }
    let nj = rp.num_judged;
    let ret = rp.num_judged_ret as i64;
    let ecs = jg.ecs.clone();
    for (e1, ec1) in ecs.iter().enumerate() {
        let ids1 = &rp.pool[ec1.start..ec1.start + ec1.len];
        let retrieved = ids1.iter().position(|&r| r >= ret).unwrap_or(ids1.len()) as i64;
        if ec1.rel_level > 0.0 {
            jg.num_rel_ret += retrieved;
            jg.num_rel += ec1.len as i64;
        } else {
            jg.num_nonrel_ret += retrieved;
            jg.num_nonrel += ec1.len as i64;
        }
        for ec2 in &ecs[e1 + 1..] {
            for k1 in 0..ec1.len {
                for k2 in 0..ec2.len {
                    let (a, b) = (rp.pool[ec1.start + k1], rp.pool[ec2.start + k2]);
                    let c = &mut rp.counts[a as usize * nj + b as usize];
                    *c = c.wrapping_add(1);
                    if a == b {
                        return Err(PrefsError::Fail(format!(
                            "trec_eval.form_prefs_counts: Internal docid {a} occurs with different rel_level in same jsg\n"
                        )));
                    }
                    if a < b {
                        if b < ret {
                            jg.fulfilled_ret += 1;
                        } else if a < ret {
                            jg.fulfilled_imp += 1;
                        } else {
                            jg.possible_notoccur += 1;
                        }
                    } else if a < ret {
                        jg.possible_ret += 1;
                    } else if b < ret {
                        jg.possible_imp += 1;
                    } else {
                        jg.possible_notoccur += 1;
                    }
                }
            }
        }
    }
    jg.possible_ret += jg.fulfilled_ret;
    jg.possible_imp += jg.fulfilled_imp;
    Ok(jg)
}

fn form_jg_pa(prefs: &[Pref], rp: &mut ResultsPrefs) -> Result<Jg, PrefsError> {
    let nj = rp.num_judged;
    let mut jg = Jg {
        pa: vec![0; nj * nj],
        rel_array: vec![-1.0; nj],
        ..Jg::default()
    };
    for (i, p) in prefs.iter().enumerate() {
        let r = p.rank as usize;
        let old = jg.rel_array[r];
        if (old > 0.0 && p.rel_level == 0.0) || (old == 0.0 && p.rel_level > 0.0) {
            return Err(PrefsError::Fail(format!(
                "trec_eval.form_prefs_counts: doc '{}' has both 0 and non-0 rel_level assigned\n",
                String::from_utf8_lossy(p.docno)
            )));
        }
        jg.rel_array[r] = p.rel_level;
        let mut j = i + 1;
        while j < prefs.len() && p.jsg == prefs[j].jsg && p.rel_level == prefs[j].rel_level {
            j += 1;
        }
        while j < prefs.len() && p.jsg == prefs[j].jsg {
            jg.pa[r * nj + prefs[j].rank as usize] = 1;
            j += 1;
        }
    }
    // add_transitives: the reflexive-transitive closure, then no diagonal
    for i in 0..nj {
        jg.pa[i * nj + i] = 1;
    }
    for k in 0..nj {
        for i in 0..nj {
            if jg.pa[i * nj + k] != 0 {
                for j in 0..nj {
                    if jg.pa[k * nj + j] != 0 {
                        jg.pa[i * nj + j] = 1;
                    }
                }
            }
        }
    }
    for i in 0..nj {
        jg.pa[i * nj + i] = 0;
    }
    for i in 0..nj {
        for j in 0..nj {
            if i != j && jg.pa[i * nj + j] != 0 && jg.pa[j * nj + i] != 0 {
                return Err(PrefsError::Abort(format!(
                    "trec_eval.form_prefs_counts: Pref inconsistency found\n      internal rank {i} and internal rank {j} are conflicted\n"
                )));
            }
        }
    }
    let ret = rp.num_judged_ret;
    for i in 0..nj {
        let rel = jg.rel_array[i];
        let retrieved = i < ret;
        if rel > 0.0 {
            jg.num_rel += 1;
            jg.num_rel_ret += i64::from(retrieved);
        } else if rel == 0.0 {
            jg.num_nonrel += 1;
            jg.num_nonrel_ret += i64::from(retrieved);
        }
    }
    for i in 0..nj {
        for j in 0..nj {
            if i == j || jg.pa[i * nj + j] == 0 {
                continue;
            }
            let c = &mut rp.counts[i * nj + j];
            *c = c.wrapping_add(1);
            match (i < ret, j < ret) {
                (true, true) if j < i => jg.possible_ret += 1,
                (true, true) => jg.fulfilled_ret += 1,
                (true, false) => jg.fulfilled_imp += 1,
                (false, true) => jg.possible_imp += 1,
                (false, false) => jg.possible_notoccur += 1,
            }
        }
    }
    jg.possible_ret += jg.fulfilled_ret;
    jg.possible_imp += jg.fulfilled_imp;
    Ok(jg)
}

/// Which preferences a measure counts.
#[derive(Clone, Copy)]
pub enum Scope {
    /// fulfilled and possible over all pairs (implied and not occurring too)
    All,
    /// both documents retrieved
    Ret,
    /// at least one retrieved
    Imp,
}

fn ful_poss(jg: &Jg, scope: Scope) -> (i64, i64) {
    match scope {
        Scope::All => (
            jg.fulfilled_ret + jg.fulfilled_imp,
            jg.possible_ret + jg.possible_imp + jg.possible_notoccur,
        ),
        Scope::Ret => (jg.fulfilled_ret, jg.possible_ret),
        Scope::Imp => (
            jg.fulfilled_ret + jg.fulfilled_imp,
            jg.possible_ret + jg.possible_imp,
        ),
    }
}

/// prefs_num_prefs_poss
pub fn num_possible(rp: &ResultsPrefs) -> f64 {
    rp.jgs
        .iter()
        .map(|j| ful_poss(j, Scope::All).1)
        .sum::<i64>() as f64
}

/// prefs_num_prefs_ful (All) and prefs_num_prefs_ful_ret (Ret)
pub fn num_fulfilled(rp: &ResultsPrefs, scope: Scope) -> f64 {
    rp.jgs.iter().map(|j| ful_poss(j, scope).0).sum::<i64>() as f64
}

/// prefs_simp*: fulfilled / possible over all JGs together.
pub fn simple(rp: &ResultsPrefs, scope: Scope) -> Option<f64> {
    let (ful, poss) = rp
        .jgs
        .iter()
        .map(|j| ful_poss(j, scope))
        .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    (poss != 0).then(|| ful as f64 / poss as f64)
}

/// prefs_avgjg*: fulfilled / possible per JG, averaged over JGs.
pub fn avg_jg(rp: &ResultsPrefs, scope: Scope) -> Option<f64> {
    let mut sum = 0.0;
    for jg in &rp.jgs {
        let (ful, poss) = ful_poss(jg, scope);
        if poss != 0 {
            sum += ful as f64 / poss as f64;
        }
    }
    (sum > 0.0).then(|| sum / rp.jgs.len() as f64)
}

/// prefs_pair*: the preference ratio of each document pair, averaged.
pub fn pair(rp: &ResultsPrefs, scope: Scope) -> Option<f64> {
    let (nj, ret) = (rp.num_judged, rp.num_judged_ret);
    let mut sum = 0.0;
    let mut pairs = 0i64;
    let mut visit = |i: usize, j: usize, add: bool| {
        let (a, b) = (rp.count(i, j), rp.count(j, i));
        if a != 0 || b != 0 {
            pairs += 1;
            if add {
                sum += f64::from(a) / f64::from(u32::from(a) + u32::from(b));
            }
        }
    };
    for i in 0..ret {
        for j in i + 1..ret {
            visit(i, j, true);
        }
    }
    if !matches!(scope, Scope::Ret) {
        for i in 0..ret {
            for j in ret..nj {
                visit(i, j, true);
            }
        }
    }
    if matches!(scope, Scope::All) {
        for i in ret..nj {
            for j in i + 1..nj {
                visit(i, j, false);
            }
        }
    }
    (pairs != 0).then(|| sum / pairs as f64)
}

/// prefs_avgjg_Rnonrel (`retrieved` false) and prefs_avgjg_Rnonrel_ret.
pub fn avg_jg_rnonrel(rp: &ResultsPrefs, retrieved: bool) -> Option<f64> {
    let mut sum = 0.0;
    for jg in &rp.jgs {
        let (r, n) = if retrieved {
            (jg.num_rel_ret, jg.num_nonrel_ret)
        } else {
            (jg.num_rel, jg.num_nonrel)
        };
        let (ful, poss) = if r >= n {
            let (ful, poss) = ful_poss(jg, if retrieved { Scope::Ret } else { Scope::All });
            (ful + jg.num_rel_ret * (r - n), poss + jg.num_rel * (r - n))
        } else {
            recalculate(jg, rp, retrieved)
        };
        sum += ful as f64 / poss as f64;
    }
    (sum > 0.0).then(|| sum / rp.jgs.len() as f64)
}

/// m_prefs_avgjg_Rnonrel*.c's `recalculate`: preferences counted with only
/// the R highest nonrelevant documents kept.
fn recalculate(jg: &Jg, rp: &ResultsPrefs, retrieved: bool) -> (i64, i64) {
    let ret = rp.num_judged_ret as i64;
    let (mut ful, mut poss) = (0i64, 0i64);
    if !jg.ecs.is_empty() {
        let ecs = &jg.ecs[..];
        let ids = |ec: &Ec| &rp.pool[ec.start..(ec.start + ec.len).min(rp.pool.len())];
        // the last class stands for the nonrelevant, cut to R documents
        let last = ecs[ecs.len() - 1];
        let keep = if retrieved {
            jg.num_rel_ret
        } else {
            jg.num_rel
        }
        .max(0) as usize;
        let nonrel = &rp.pool[last.start..(last.start + keep).min(rp.pool.len())];
        let take = |list: &[i64]| -> Vec<i64> {
            if retrieved {
                list.iter().take_while(|&&r| r < ret).copied().collect()
            } else {
                list.to_vec()
            }
        };
        let mut tally = |a: i64, b: i64| {
            if a < b && (retrieved || a < ret) {
                ful += 1;
            } else {
                poss += 1;
            }
        };
        for (e1, ec1) in ecs.iter().enumerate() {
            let first = take(ids(ec1));
            for ec2 in ecs.iter().take(ecs.len() - 1).skip(e1 + 1) {
                let second = take(ids(ec2));
                for &a in &first {
                    for &b in &second {
                        tally(a, b);
                    }
                }
            }
        }
        let nonrel = take(nonrel);
        for ec1 in ecs {
            for &a in &take(ids(ec1)) {
                for &b in &nonrel {
                    tally(a, b);
                }
            }
        }
        poss += ful;
    } else if !jg.pa.is_empty() {
        let nj = rp.num_judged;
        let limit = if retrieved { rp.num_judged_ret } else { nj };
        let mut seen = 0;
        let mut first_discarded = limit;
        for i in 0..limit {
            if jg.rel_array[i] == 0.0 {
                seen += 1;
                if seen == jg.num_rel + 1 {
                    first_discarded = i;
                    break;
                }
            }
        }
        let dropped = |i: usize| i >= first_discarded && jg.rel_array[i] == 0.0;
        let ret = rp.num_judged_ret;
        let rows = if retrieved { ret } else { nj };
        for i in 0..rows {
            if dropped(i) {
                continue;
            }
            for j in 0..rows {
                if j == i || dropped(j) || jg.pa[i * nj + j] == 0 {
                    continue;
                }
                if i < ret && j > i {
                    ful += 1;
                } else {
                    poss += 1;
                }
            }
        }
        poss += ful;
    }
    (ful, poss)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pref<'a>(jg: &'a str, jsg: &'a str, doc: &'a str, rel: f64) -> Pref<'a> {
        Pref::new(jg.as_bytes(), jsg.as_bytes(), doc.as_bytes(), rel)
    }

    #[test]
    fn one_group_of_levels_counts_fulfilled_and_possible_preferences() {
        // a > b > c judged; the run ranks b, a and never retrieves c
        let lines = vec![
            pref("j", "0", "a", 2.0),
            pref("j", "0", "b", 1.0),
            pref("j", "0", "c", 0.0),
        ];
        let docs = [(&b"b"[..], 2.0), (&b"a"[..], 1.0), (&b"x"[..], 0.5)];
        let rp = form(&lines, &docs, i64::MAX).ok().expect("forms");
        assert_eq!((rp.num_judged, rp.num_judged_ret), (3, 2));
        let jg = &rp.jgs[0];
        // a>b (both retrieved, violated), a>c and b>c (implied, fulfilled)
        assert_eq!((jg.fulfilled_ret, jg.possible_ret), (0, 1));
        assert_eq!((jg.fulfilled_imp, jg.possible_imp), (2, 2));
        assert_eq!(simple(&rp, Scope::All), Some(2.0 / 3.0));
        assert_eq!(simple(&rp, Scope::Ret), Some(0.0));
    }

    #[test]
    fn sub_groups_are_closed_under_transitivity_and_conflicts_abort() {
        let lines = vec![
            pref("j", "s1", "a", 2.0),
            pref("j", "s1", "b", 1.0),
            pref("j", "s2", "b", 2.0),
            pref("j", "s2", "c", 1.0),
        ];
        let docs = [(&b"c"[..], 3.0), (&b"b"[..], 2.0), (&b"a"[..], 1.0)];
        let rp = form(&lines, &docs, i64::MAX).ok().expect("forms");
        // a>b, b>c and the implied a>c: all three violated by the ranking c, b, a
        assert_eq!((rp.jgs[0].fulfilled_ret, rp.jgs[0].possible_ret), (0, 3));
        let cyclic = vec![
            pref("j", "s1", "a", 2.0),
            pref("j", "s1", "b", 1.0),
            pref("j", "s2", "b", 2.0),
            pref("j", "s2", "a", 1.0),
        ];
        assert!(matches!(
            form(&cyclic, &docs, i64::MAX),
            Err(PrefsError::Abort(_))
        ));
    }
}
