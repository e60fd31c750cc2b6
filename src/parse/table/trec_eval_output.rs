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
        && is_trec_eval_name(&ws[0])
        && (&ws[0] == b"runid" || fields::number(&ws[2]).is_some())
}

/// A name trec_eval prints: one of its measures (`map`, `num_q`, `infAP`),
/// its `runid` or `relstring` line, or a measure with its cutoff or
/// parameter after `_` (`P_10`, `ndcg_cut_10`, `iprec_at_recall_0.10`,
/// `Rprec_mult_0.20`). Not any word: `q1 d1 1` (a run or qrels of three
/// fields) is none.
fn is_trec_eval_name(f: &[u8]) -> bool {
    let Ok(name) = std::str::from_utf8(f) else {
        return false;
    };
    let known = |n: &str| {
        matches!(n, "runid" | "relstring")
            || crate::trec_eval::measures::MEASURES
                .iter()
                .any(|m| m.name == n)
    };
    known(name)
        || name
            .rsplit_once('_')
            .is_some_and(|(base, p)| fields::number(p.as_bytes()).is_some() && known(base))
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
        ] {
            assert!(is_trec_eval_name(name.as_bytes()), "{name}");
        }
        for word in ["q1", "d1", "query_1", "P_x", "map_", "bm25", "301"] {
            assert!(!is_trec_eval_name(word.as_bytes()), "{word}");
        }
    }
}
