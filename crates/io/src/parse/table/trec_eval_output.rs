//! trec_eval's own output (`-q`): `measure qid|all value` lines computed elsewhere.
//!
//! Every line trec_eval 10.0 and 9.0.x write is read: numbers (`map`, the
//! counts `num_q`, `num_ret`, ... as they are), a measure's parameters in
//! its name as `-m` gave them (`P_10`, `utility_2,-1,0,0`,
//! `ndcg_1=3,2=9,4=4.5`), `-Z`'s `Z` before each standardised measure, the
//! `runid` line (the model's name), the text measures trec_eval prints in
//! single quotes (`relstring`: kept aside, never read as a number) and a
//! value C's printf writes as `nan` or `-nan` (0/0: undefined, left out).

use super::*;

/// trec_eval output lines `measure qid value` (values shown as they are).
#[derive(Default)]
pub struct MeasuresState {
    pub(super) measures: Interner,
    pub(super) queries: Interner,
    pub(super) m: Vec<u32>,
    pub(super) q: Vec<u32>,
    pub(super) value: Vec<f64>,
    /// The `runid` line's value and its line.
    pub(super) runid: Option<(String, u64)>,
    /// The text measures' names (`relstring`) and their lines, kept aside.
    text: Vec<(String, u64)>,
    /// The values printed as `nan` (undefined), left out, per measure.
    undefined: Vec<(String, u64)>,
}

/// One more line of `name` in a short tally.
fn tally(list: &mut Vec<(String, u64)>, name: &str) {
    match list.iter_mut().find(|(n, _)| n == name) {
        Some((_, c)) => *c += 1,
        None => list.push((name.to_string(), 1)),
    }
}

/// `relstring (3 lines), relstring_20 (1 line)`.
fn listed(list: &[(String, u64)]) -> String {
    let parts: Vec<String> = list
        .iter()
        .map(|(name, n)| format!("{name} ({})", count(*n as usize, "line")))
        .collect();
    parts.join(", ")
}

/// A value trec_eval prints as text: in single quotes (`relstring`'s
/// `'0110-.>'`, `''` for a query without documents).
fn is_text(v: &[u8]) -> bool {
    v.len() >= 2 && v[0] == b'\'' && v[v.len() - 1] == b'\''
}

/// A value C's printf writes for NaN: `nan`, `-nan` (glibc), `nan(ind)`,
/// `-nan(ind)` (Windows), in any case.
fn is_nan(v: &[u8]) -> bool {
    let v = v.strip_prefix(b"-").or(v.strip_prefix(b"+")).unwrap_or(v);
    v.len() >= 3
        && v[..3].eq_ignore_ascii_case(b"nan")
        && (v.len() == 3 || (v[3] == b'(' && v[v.len() - 1] == b')'))
}

impl Lines for MeasuresState {
    #[inline]
    fn row(&mut self, n: u64, f: &Row, _: &LoadOptions) -> Result<(), Problem> {
        if f.len() != 3 {
            return Err(problem(
                n,
                f.len().min(3) + 1,
                "3 whitespace-separated fields: measure query value (trec_eval's output)",
                count(f.len(), "field"),
                None,
            ));
        }
        if !is_measure_name(&f[0]) && !is_trec_eval_name(&f[0]) {
            return Err(problem(
                n,
                1,
                "a trec_eval measure name (e.g. map, P_10, ndcg_cut_10)",
                shown(&f[0]),
                None,
            ));
        }
        let q = fields::id(&f[1])
            .ok_or_else(|| problem(n, 2, "a query id or 'all'", shown(&f[1]), None))?;
        let name = std::str::from_utf8(&f[0]).unwrap_or_default();
        if name == "runid" {
            let runid = String::from_utf8_lossy(&f[2]).into_owned();
            return match &self.runid {
                Some((first, line)) if *first != runid => Err(problem(
                    n,
                    3,
                    format!(
                        "one run's output per file (its runid, '{}', is on line {line})",
                        super::super::error::capped(first.clone())
                    ),
                    format!("another runid, {}", shown(&f[2])),
                    Some("Write each run's trec_eval output to a file of its own.".into()),
                )),
                _ => {
                    self.runid = Some((runid, n));
                    Ok(())
                }
            };
        }
        let v = &f[2];
        if is_text(v) {
            tally(&mut self.text, name);
            return Ok(());
        }
        if is_nan(v) {
            tally(&mut self.undefined, name);
            return Ok(());
        }
        let v = fields::number(v)
            .ok_or_else(|| problem(n, 3, "a measure value (a number)", shown(v), None))?;
        self.m.push(self.measures.intern(name));
        self.q.push(self.queries.intern(q));
        self.value.push(v);
        Ok(())
    }

    fn finish(self, file: &str, _errors: &mut LoadError) -> Option<Parsed> {
        let mut notes = Vec::new();
        if !self.text.is_empty() {
            notes.push(format!(
                "{}: text in quotes, not values (trec_eval's relevance string of each query's first documents); read and set aside.",
                listed(&self.text)
            ));
        }
        if !self.undefined.is_empty() {
            notes.push(format!(
                "{}: printed as nan (trec_eval divided zero by zero), read as undefined: those queries have no value there.",
                listed(&self.undefined)
            ));
        }
        (!self.q.is_empty()).then(|| {
            Parsed::Measures(crate::parse::Precomputed {
                name: self
                    .runid
                    .map_or_else(|| model_name_from_file(file), |(r, _)| r),
                measures: self.measures,
                queries: self.queries,
                m: self.m,
                q: self.q,
                value: self.value,
            })
            .noted(notes)
        })
    }
}

/// Whether a first line is trec_eval's output: three fields, the first a
/// name trec_eval prints (`runid all name`, `num_q all 50`, `map q1 0.25`,
/// `relstring q1 '0110'`, `Zmap q1 -0.5`), and not a table's header naming
/// its columns (`recall label score`). The value is not looked at: a
/// damaged value gets this format's error, not a CSV header's.
pub(super) fn looks_like(l: &FirstLine) -> bool {
    let ws = l.ws;
    ws.len() == 3 && is_trec_eval_name(&ws[0]) && !(1..3).any(|i| names_a_column(&ws[i]))
}

/// A name trec_eval prints: one of its measures (`map`, `num_q`, `infAP`),
/// its `runid` or `relstring` line, or a measure with its cutoff or
/// parameters after `_` as `-m` gave them (`P_10`, `ndcg_cut_10`,
/// `iprec_at_recall_0.10`, `Rprec_mult_0.20`, `utility_2,-1,0,0`,
/// `11pt_avg_.25,.5,.75`, `ndcg_1=3,2=9,4=4.5`), with `Z` before it under
/// `-Z`. Not any word: `q1 d1 1` (a run or qrels of three fields) is none,
/// and neither is a CSV field (`P_10,`).
pub(super) fn is_trec_eval_name(f: &[u8]) -> bool {
    let Ok(name) = std::str::from_utf8(f) else {
        return false;
    };
    let known = |n: &str| {
        matches!(n, "runid" | "relstring")
            || rankscope_trec_eval::measures::MEASURES
                .iter()
                .any(|m| m.name == n)
    };
    // `-m name.params` prints `name_params`: numbers, comma-separated, or
    // `key=value` pairs (ndcg's `level=gain`, rbp's `p=0.7`)
    let parameters = |p: &str| {
        let number = |x: &str| fields::number(x.as_bytes()).is_some();
        let key = |x: &str| {
            number(x)
                || (!x.is_empty() && x.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_'))
        };
        !p.is_empty()
            && p.split(',').all(|piece| match piece.split_once('=') {
                Some((k, v)) => key(k) && number(v),
                None => number(piece),
            })
    };
    let plain = |name: &str| {
        known(name)
            || name
                .match_indices('_')
                .any(|(i, _)| known(&name[..i]) && parameters(&name[i + 1..]))
    };
    plain(name)
        || name
            .strip_prefix('Z')
            .is_some_and(|rest| rest != "runid" && !rest.starts_with("relstring") && plain(rest))
}

#[cfg(test)]
mod tests {
    use super::is_trec_eval_name;

    #[test]
    fn trec_eval_names_are_its_measures_not_any_word() {
        for name in [
            "map",
            "runid",
            "num_q",
            "relstring",
            "P_10",
            "ndcg_cut_10",
            "iprec_at_recall_0.10",
            "Rprec_mult_0.20",
            "success_1",
            "set_F",
            "11pt_avg",
            "gm_bpref",
            "infAP",
            "unj_5",
            // -m's parameters as given, -Z's prefix
            "relstring_20",
            "utility_2,-1,0,0",
            "11pt_avg_.25,.5,.75",
            "ndcg_1=3,2=9,4=4.5",
            "rbp_resid_p=0.7",
            "Zmap",
            "ZP_10",
            "Znum_ret",
        ] {
            assert!(is_trec_eval_name(name.as_bytes()), "{name}");
        }
        for word in [
            "q1", "d1", "query_1", "P_x", "map_", "bm25", "301", "P_10,", "map,", "P_10,5,",
            "Zrunid", "Z", "Zq1", "ndcg_=3",
        ] {
            assert!(!is_trec_eval_name(word.as_bytes()), "{word}");
        }
    }
}
