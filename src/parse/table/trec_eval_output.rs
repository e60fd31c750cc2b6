//! trec_eval's own output (`-q`): `measure qid|all value` lines computed elsewhere.

use super::*;

/// trec_eval output lines `measure qid value` (values shown as they are).
#[derive(Default)]
pub struct MeasuresState {
    pub(super) measures: Interner,
    pub(super) queries: Interner,
    pub(super) m: Vec<u32>,
    pub(super) q: Vec<u32>,
    pub(super) value: Vec<f64>,
    pub(super) runid: Option<String>,
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
        if !is_measure_name(&f[0]) {
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
        if &f[0] == b"runid" {
            self.runid = Some(String::from_utf8_lossy(&f[2]).into_owned());
            return Ok(());
        }
        let v = fields::number(&f[2])
            .ok_or_else(|| problem(n, 3, "a measure value (a number)", shown(&f[2]), None))?;
        let name = std::str::from_utf8(&f[0]).unwrap_or_default();
        self.m.push(self.measures.intern(name));
        self.q.push(self.queries.intern(q));
        self.value.push(v);
        Ok(())
    }

    fn finish(self, file: &str, _errors: &mut LoadError) -> Option<Parsed> {
        (!self.q.is_empty()).then(|| {
            Parsed::Measures(crate::parse::Precomputed {
                name: self.runid.unwrap_or_else(|| model_name_from_file(file)),
                measures: self.measures,
                queries: self.queries,
                m: self.m,
                q: self.q,
                value: self.value,
            })
        })
    }
}

/// Whether a first line is trec_eval's output: `runid all name`,
/// `num_q all 50`, `map q1 0.25`.
pub(super) fn looks_like(l: &FirstLine) -> bool {
    let ws = l.ws;
    !l.csv_like
        && ws.len() == 3
        && is_measure_name(&ws[0])
        && (&ws[0] == b"runid" || fields::number(&ws[2]).is_some())
}
