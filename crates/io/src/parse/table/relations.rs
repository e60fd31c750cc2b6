//! trec_eval's other relation formats: preferences (`-R prefs`), qrels
//! read as preferences (`-R qrels_prefs`), judgment groups (`-R qrels_jg`)
//! and z-scores (`-Z`).

use super::trec_eval_output::is_trec_eval_name;
use super::*;

/// A file of trec_eval's other relation formats (preferences, judgment
/// groups, z-scores): each line checked, then kept as text for
/// `rankscope trec_eval` (`crate::trec_relations`), which evaluates them.
pub struct RelationsState {
    pub(super) format: Format,
    pub(super) text: Vec<u8>,
    pub(super) queries: Interner,
    pub(super) rows: usize,
}

impl RelationsState {
    pub(super) fn new(format: Format) -> Self {
        RelationsState {
            format,
            text: Vec::new(),
            queries: Interner::default(),
            rows: 0,
        }
    }

    fn check(&mut self, n: u64, f: &Row) -> Result<(), Problem> {
        let (fields, expected) = match self.format {
            Format::TrecPrefs => (5, "5 whitespace-separated fields: qid jg subgroup docno rel_level (trec_eval's prefs)"),
            Format::TrecZscores => (4, "4 whitespace-separated fields: qid measure mean stddev (trec_eval's z-scores)"),
            _ => (4, "4 whitespace-separated fields: qid jg docno relevance"),
        };
        if f.len() != fields {
            return Err(problem(
                n,
                f.len().min(fields) + 1,
                expected,
                count(f.len(), "field"),
                None,
            ));
        }
        let q = fields::id(&f[0]).ok_or_else(|| problem(n, 1, "a query id", shown(&f[0]), None))?;
        match self.format {
            Format::TrecPrefs => {
                fields::number(&f[4]).ok_or_else(|| {
                    problem(n, 5, "a relevance level (a number)", shown(&f[4]), None)
                })?;
            }
            Format::TrecZscores => {
                if !is_measure_name(&f[1]) && !is_trec_eval_name(&f[1]) {
                    return Err(problem(
                        n,
                        2,
                        "a trec_eval measure name (e.g. map, P_10)",
                        shown(&f[1]),
                        None,
                    ));
                }
                for c in [2, 3] {
                    fields::number(&f[c]).ok_or_else(|| {
                        problem(
                            n,
                            c + 1,
                            if c == 2 {
                                "a mean (a number)"
                            } else {
                                "a standard deviation (a number)"
                            },
                            shown(&f[c]),
                            None,
                        )
                    })?;
                }
            }
            _ => {
                fields::integer(&f[3]).ok_or_else(|| {
                    problem(n, 4, "an integer relevance grade", shown(&f[3]), None)
                })?;
            }
        }
        self.queries.intern(q);
        self.rows += 1;
        for i in 0..f.len() {
            if i > 0 {
                self.text.push(b' ');
            }
            self.text.extend_from_slice(&f[i]);
        }
        self.text.push(b'\n');
        Ok(())
    }
}

impl Lines for RelationsState {
    #[inline]
    fn row(&mut self, n: u64, f: &Row, _: &LoadOptions) -> Result<(), Problem> {
        self.check(n, f)
    }

    fn finish(self, file: &str, _errors: &mut LoadError) -> Option<Parsed> {
        (self.rows > 0).then(|| {
            Parsed::Relations(crate::parse::Relations {
                name: file.to_string(),
                format_id: self.format.id().to_string(),
                queries: self.queries.len(),
                rows: self.rows,
                text: self.text,
            })
        })
    }
}

/// Whether a first line is trec_eval's preferences': five whitespace
/// fields, a number last (its group ids may hold commas, `F:Ret,C:Not`, but
/// fewer than a CSV's fields), in a file not named as a run.
pub(super) fn looks_like_prefs(l: &FirstLine) -> bool {
    let ws = l.ws;
    let commas = l.line.iter().filter(|&&b| b == b',').count();
    ws.len() == 5
        && !l.line.contains(&b';')
        && commas + 1 < ws.len()
        && !super::trec_run::named_run(l.name)
        && fields::number(&ws[4]).is_some()
}

/// Whether a first line is trec_eval's z-scores': a measure name second,
/// two numbers after it (the last not a whole number).
pub(super) fn looks_like_zscores(l: &FirstLine) -> bool {
    let ws = l.ws;
    !l.csv_like
        && ws.len() == 4
        && is_measure_name(&ws[1])
        && &ws[1] != b"Q0"
        && fields::number(&ws[2]).is_some()
        && fields::number(&ws[3]).is_some()
        && fields::integer(&ws[3]).is_none()
}

/// Whether a first line no other format reads is almost a z-score line: a
/// trec_eval measure name second (`301 map 0.2 wide`, `301 P_10 0.3`), or
/// any line of a file named as z-scores; its damage is then reported as
/// a z-score line's (file:line:column), not as a CSV header's.
pub(super) fn almost_zscores(l: &FirstLine) -> bool {
    let ws = l.ws;
    let measure_second = !l.csv_like
        && (2..=6).contains(&ws.len())
        && is_trec_eval_name(&ws[1])
        && !is_trec_eval_name(&ws[0]);
    measure_second || (l.name.contains("zscore") && ws.len() > 1)
}

#[cfg(test)]
mod tests {
    use crate::parse::{parse_bytes, Format, LoadOptions, Parsed};

    /// A z-score line with a whole standard deviation, or a file named as
    /// z-scores, is read as z-scores; its damage is a z-score line's error.
    #[test]
    fn a_file_almost_of_z_scores_is_read_as_one() {
        let o = LoadOptions::default();
        for (name, text) in [
            ("z.txt", "301 P_10 0.3 1\n301 map 0.2 0.1\n"),
            ("run1.zscores", "301 custom 0.3 1\n"),
        ] {
            match parse_bytes(name, text.as_bytes(), &o).unwrap() {
                Parsed::Relations(r) => assert_eq!(r.format(), Format::TrecZscores),
                other => panic!("{name}: {other:?}"),
            }
        }
        let err = parse_bytes("z.txt", b"301 ndcg_cut_10 x 0.1\n", &o).unwrap_err();
        assert_eq!(
            err.to_string(),
            "z.txt:1:3: expected a mean (a number), found 'x'"
        );
        // a relation format chosen names the files that are not runs: a run stays a run
        let forced = LoadOptions {
            format: Some(Format::TrecZscores),
            ..Default::default()
        };
        let run = parse_bytes("r.txt", b"301 Q0 d1 1 0.5 r\n", &forced).unwrap();
        assert!(matches!(run.data(), Parsed::Run { .. }), "{run:?}");
        // a CSV whose second column is named like a measure stays a CSV
        let csv = parse_bytes("t.csv", b"label map\n1 0.5\n0 0.25\n", &o).unwrap();
        assert!(matches!(csv.data(), Parsed::Binary(_)), "{csv:?}");
        // and one whose first column is named like a measure too
        let csv =
            parse_bytes("t.txt", b"recall label score\n0.5 1 0.5\n0.25 0 0.25\n", &o).unwrap();
        assert!(matches!(csv.data(), Parsed::Binary(_)), "{csv:?}");
    }
}
