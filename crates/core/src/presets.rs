//! Named presets: each evaluation tool's conventions, as data. A preset is a
//! set of convention values ([`super::conventions::TABLE`]'s link keys and
//! stable names), the tool's version it was checked against, how it was
//! checked (the tool run on generated data by
//! `scripts/reference/presets_reference.py`, or read from its source at a
//! version, cited), and where one of the tool's metrics needs more, that
//! metric's own values (`recommenders`' `map` is cut at k; `ndcg_at_k`
//! averages over other users than `precision_at_k`).

use super::conventions::{self, Conventions};
use super::registry::{id, MetricId};

/// How a preset was checked against its tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Checked {
    /// The tool itself, run on generated tie-heavy, graded, empty-judgment
    /// and short-list data (`tests/reference/presets/presets.json`): its
    /// values per query reproduced to 1e-9 (`tests/presets.rs`).
    Run,
    /// The tool's source at its version (file and lines): not installable here.
    Source(&'static str),
    /// Another checked preset or Rankscope's own tested port stands for it.
    Via(&'static str),
}

/// One of a tool's metrics: its name there, Rankscope's metric (`base`,
/// cutoff) and the convention values it needs beyond its preset's.
#[derive(Clone, Copy, Debug)]
pub struct PeerMetric {
    pub peer: &'static str,
    pub base: &'static str,
    pub k: Option<usize>,
    pub settings: &'static [(&'static str, &'static str)],
}

/// A named set of conventions: one tool at one version. What the page
/// needs (names and values); the words about it are [`About`]'s, in their
/// own table ([`ABOUT`]), so the page's wasm carries none of them.
#[derive(Clone, Copy, Debug)]
pub struct Preset {
    /// Its name (`--preset NAME`, `preset=`, links, the header).
    pub name: &'static str,
    /// Convention values away from Rankscope's defaults (link keys, stable names).
    pub settings: &'static [(&'static str, &'static str)],
    /// The tool's metric names, where they differ or need more values.
    pub metrics: &'static [PeerMetric],
}

/// A preset's tool, version, how it was checked and what it changes.
#[derive(Clone, Copy, Debug)]
pub struct About {
    pub name: &'static str,
    /// The tool, as its users name it.
    pub peer: &'static str,
    /// The tool's version the preset was checked against.
    pub version: &'static str,
    pub checked: Checked,
    /// What it changes, in words, and what it cannot reproduce.
    pub note: &'static str,
}

const fn pm(
    peer: &'static str,
    base: &'static str,
    k: Option<usize>,
    settings: &'static [(&'static str, &'static str)],
) -> PeerMetric {
    PeerMetric {
        peer,
        base,
        k,
        settings,
    }
}

const K10: Option<usize> = Some(10);
const INTERSECTION: (&str, &str) = ("query_set", "intersection");

/// Every preset, in the README's order.
pub static PRESETS: &[Preset] = &[
    Preset {
        name: "trec_eval-10.0",
        settings: &[INTERSECTION],
        metrics: &[],
    },
    Preset {
        name: "trec_eval-10.0-c",
        settings: &[],
        metrics: &[],
    },
    Preset {
        name: "trec_eval-9.0.x",
        settings: &[INTERSECTION, ("trec_eval", "9.0.x")],
        metrics: &[],
    },
    Preset {
        name: "pytrec_eval",
        settings: &[INTERSECTION, ("trec_eval", "9.0.x")],
        metrics: &[
            pm("ndcg_cut_10", id::NDCG, K10, &[]),
            pm("map_cut_10", id::MAP, K10, &[]),
            pm("P_10", id::PRECISION, K10, &[]),
            pm("recall_10", id::RECALL, K10, &[]),
            pm("recip_rank", id::MRR, None, &[]),
            pm("success_10", id::HIT_RATE, K10, &[]),
        ],
    },
    Preset {
        name: "ir_measures",
        settings: &[("trec_eval", "9.0.x")],
        metrics: &[
            pm("nDCG@10", id::NDCG, K10, &[]),
            pm("AP@10", id::MAP, K10, &[]),
            pm("AP", id::MAP, None, &[]),
            pm("RR", id::MRR, None, &[]),
            pm("Judged@10", id::JUDGED, K10, &[("ties", "file")]),
        ],
    },
    Preset {
        name: "ir_measures-msmarco",
        settings: &[("ties", "id_ascending")],
        metrics: &[pm("RR@10", id::MRR, K10, &[])],
    },
    Preset {
        name: "ranx",
        settings: &[("ties", "file")],
        metrics: &[],
    },
    Preset {
        name: "scikit-learn",
        settings: &[
            INTERSECTION,
            ("ties", "average"),
            ("qrels_scope", "retrieved"),
        ],
        metrics: &[],
    },
    Preset {
        name: "torchmetrics",
        settings: &[
            INTERSECTION,
            ("ties", "average"),
            ("qrels_scope", "retrieved"),
        ],
        metrics: &[],
    },
    Preset {
        name: "beir",
        settings: &[
            INTERSECTION,
            ("trec_eval", "9.0.x"),
            ("identical_ids", "drop"),
        ],
        metrics: &[],
    },
    Preset {
        name: "spark-mllib",
        settings: &[
            ("ties", "file"),
            ("query_set", "union"),
            ("grades", "binary"),
            ("ap_denominator", "min_relevant_k"),
        ],
        metrics: &[
            pm("ndcgAt(10)", id::NDCG, K10, &[]),
            pm("precisionAt(10)", id::PRECISION, K10, &[]),
            pm("recallAt(10)", id::RECALL, K10, &[]),
            pm("meanAveragePrecision", id::MAP, None, &[]),
            pm("meanAveragePrecisionAt(10)", id::MAP, K10, &[]),
        ],
    },
    Preset {
        name: "spark-ml",
        settings: &[
            ("ties", "file"),
            ("query_set", "union"),
            ("grades", "binary"),
            ("ap_denominator", "min_relevant_k"),
        ],
        metrics: &[
            pm("ndcgAtK", id::NDCG, K10, &[]),
            pm("precisionAtK", id::PRECISION, K10, &[]),
            pm("recallAtK", id::RECALL, K10, &[]),
            pm("meanAveragePrecision", id::MAP, None, &[]),
            pm("meanAveragePrecisionAtK", id::MAP, K10, &[]),
        ],
    },
    Preset {
        name: "recommenders",
        settings: &[
            ("ties", "file"),
            INTERSECTION,
            ("no_relevant", "skip"),
            ("grades", "binary"),
        ],
        metrics: &[
            pm("precision_at_k(k=10)", id::PRECISION, K10, &[]),
            pm("recall_at_k(k=10)", id::RECALL, K10, &[]),
            pm("ndcg_at_k(k=10)", id::NDCG, K10, &[("query_set", "qrels")]),
            pm(
                "map_at_k(k=10)",
                id::MAP,
                K10,
                &[("ap_denominator", "min_relevant_k")],
            ),
            pm("map(k=10)", id::MAP, K10, &[]),
        ],
    },
    Preset {
        name: "recommenders-spark",
        settings: &[
            ("ties", "file"),
            INTERSECTION,
            ("no_relevant", "skip"),
            ("grades", "binary"),
            ("ap_denominator", "min_relevant_k"),
        ],
        metrics: &[],
    },
    Preset {
        name: "mlflow",
        settings: &[
            ("ties", "file"),
            ("query_set", "union"),
            ("grades", "binary"),
            ("precision_denominator", "min_k_length"),
            ("ideal_depth", "list_length"),
        ],
        metrics: &[
            pm("precision_at_k(10)", id::PRECISION, K10, &[]),
            pm("recall_at_k(10)", id::RECALL, K10, &[]),
            pm("ndcg_at_k(10)", id::NDCG, K10, &[]),
        ],
    },
    Preset {
        name: "evidently",
        settings: &[
            ("ties", "file"),
            INTERSECTION,
            ("qrels_scope", "retrieved"),
            ("precision_denominator", "min_k_length"),
            ("no_relevant", "skip"),
        ],
        metrics: &[pm(
            "NDCGKMetric",
            id::NDCG,
            None,
            &[("no_relevant", "zero")],
        )],
    },
];

/// Each preset's tool, version, check and note, in [`PRESETS`]'s order.
pub static ABOUT: &[About] = &[
    About {
        name: "trec_eval-10.0",
        peer: "trec_eval",
        version: "10.0",
        checked: Checked::Via("the trec_eval 10.0 port, byte for byte (tests/trec_eval.rs)"),
        note: "without -c: only queries both judged and retrieved count (trec_eval 10.0 stops on a judged query without results; 9.0.x leaves it out)",
    },
    About {
        name: "trec_eval-10.0-c",
        peer: "trec_eval -c",
        version: "10.0",
        checked: Checked::Via("the trec_eval 10.0 port, byte for byte (tests/trec_eval.rs)"),
        note: "Rankscope's defaults: every qrels query counts, a missing one scores 0",
    },
    About {
        name: "trec_eval-9.0.x",
        peer: "trec_eval",
        version: "9.0.8",
        checked: Checked::Via("pytrec_eval, built on trec_eval 9.0.8"),
        note: "as 10.0, recall points of iprec_at_recall truncated after + 0.9",
    },
    About {
        name: "pytrec_eval",
        peer: "pytrec_eval (pytrec-eval-terrier)",
        version: "0.5.11",
        checked: Checked::Run,
        note: "trec_eval 9.0.x: only queries both judged and retrieved count",
    },
    About {
        name: "ir_measures",
        peer: "ir_measures, pytrec_eval provider",
        version: "0.4.3",
        checked: Checked::Run,
        note: "every qrels query counts (a missing run scores 0); the judged provider's Judged@k keeps the run's order of ties",
    },
    About {
        name: "ir_measures-msmarco",
        peer: "ir_measures, msmarco provider (MS MARCO's msmarco_eval.py)",
        version: "0.4.3",
        checked: Checked::Run,
        note: "ties by document id ascending, (−score, doc id)",
    },
    About {
        name: "ranx",
        peer: "ranx",
        version: "0.3.21",
        checked: Checked::Run,
        note: "ties in the run's order (a dict's insertion order); lists over 15 documents are sorted by numba's quicksort, whose order inside a tie group no rule reproduces (those queries are not checked)",
    },
    About {
        name: "scikit-learn",
        peer: "scikit-learn ndcg_score, one query's list at a time",
        version: "1.9.1",
        checked: Checked::Run,
        note: "ties averaged; the ideal list is the retrieved one reordered (y_true holds the list's grades only)",
    },
    About {
        name: "torchmetrics",
        peer: "torchmetrics retrieval (RetrievalNormalizedDCG, …)",
        version: "1.9.0",
        checked: Checked::Source(
            "torchmetrics 1.9.0 src/torchmetrics/functional/retrieval/ndcg.py lines 22-113 (scikit-learn's tie-averaged DCG, the ideal from the given target); retrieval/base.py lines 148-183 (per-index groups, empty_target_action='neg': 0)",
        ),
        note: "nDCG as scikit-learn's, in float32 (values agree to about 1e-7); empty_target_action='skip' is no_relevant=skip; precision, recall, AP and RR sort with torch's unstable topk/argsort (no tie rule reproduces them); the functional API flattens a batch into one query (not a preset)",
    },
    About {
        name: "beir",
        peer: "BEIR EvaluateRetrieval.evaluate (and MTEB retrieval, which calls it)",
        version: "2.2.0",
        checked: Checked::Run,
        note: "pytrec_eval with ignore_identical_ids=True: a document whose id is its query's is dropped from the run; BEIR prints means rounded to 5 decimals",
    },
    About {
        name: "spark-mllib",
        peer: "Spark MLlib RankingMetrics",
        version: "4.3.0",
        checked: Checked::Run,
        note: "a row per query with the list as given and the relevant set: relevance binary, AP@k over min(|R|, k), a row with an empty ground truth (or list) scores 0 and is averaged in",
    },
    About {
        name: "spark-ml",
        peer: "Spark ML RankingEvaluator",
        version: "4.3.0",
        checked: Checked::Run,
        note: "RankingMetrics on prediction and label columns: the same definitions",
    },
    About {
        name: "recommenders",
        peer: "microsoft/recommenders python_evaluation",
        version: "1.2.1",
        checked: Checked::Run,
        note: "rating_true holds the relevant rows: users of both frames count, ndcg_at_k's users are rating_true's (one without a list scores 0); map is AP cut at k over |R|, map_at_k over min(|R|, k); score_type='binary'",
    },
    About {
        name: "recommenders-spark",
        peer: "microsoft/recommenders SparkRankingEvaluation",
        version: "1.2.1",
        checked: Checked::Source(
            "recommenders 1.2.1 recommenders/evaluation/spark_evaluation.py lines 288-302 (the lists inner-joined with the relevant items per user, then Spark's RankingMetrics) and 304-357 (precisionAt, recallAt, ndcgAt, meanAveragePrecision, meanAveragePrecisionAt)",
        ),
        note: "Spark's definitions over the users in both frames; ties follow Spark's row_number() over a window ordered by prediction, which keeps no stable order (file order is the nearest)",
    },
    About {
        name: "mlflow",
        peer: "MLflow retriever metrics (precision_at_k, recall_at_k, ndcg_at_k)",
        version: "3.17.2 (mlflow-skinny)",
        checked: Checked::Run,
        note: "mlflow/metrics/metric_definitions.py: precision over the list's first min(k, n), recall over the ground truth, ndcg_score with k = the list's length up to k (the ideal cut there); a question with neither ground truth nor retrieved documents scores 1 in ndcg_at_k and recall_at_k (not expressible: no such query is in a run or qrels with a judgment)",
    },
    About {
        name: "evidently",
        peer: "Evidently recsys metrics (legacy PrecisionTopKMetric, NDCGKMetric, …)",
        version: "0.7.23",
        checked: Checked::Source(
            "evidently 0.7.23 evidently/legacy/metrics/recsys/precision_recall_k.py lines 53-110 (precision tp / min(list size, k), recall over the list's relevant rows, users without one left out unless no_feedback_users) and ndcg_k.py lines 44-59 (DCG over the ranks given, the ideal from the list's targets)",
        ),
        note: "the data is the recommended lists with a target per row: the judgments are the list's own; NDCGKMetric averages over every user",
    },
];

/// The preset named `name`.
pub fn get(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.name == name)
}

/// Every preset's name, comma-separated (for "expected one of" messages).
pub fn names() -> String {
    let names: Vec<&str> = PRESETS.iter().map(|p| p.name).collect();
    names.join(", ")
}

impl Preset {
    /// Its tool, version, check and note.
    pub fn about(&self) -> &'static About {
        ABOUT
            .iter()
            .find(|a| a.name == self.name)
            .unwrap_or(&ABOUT[0])
    }

    /// Its conventions: Rankscope's defaults with the preset's values, named.
    pub fn conventions(&self) -> Conventions {
        let mut c = Conventions::default();
        for (key, value) in self.settings {
            // the table's own names: a wrong one fails `every_preset_sets_known_values`
            let _ = conventions::set(&mut c, key, value);
        }
        c.preset = self.name.to_string();
        c
    }

    /// The conventions of one of its metrics: the preset's, with the
    /// metric's own values when it has some.
    pub fn conventions_for(&self, metric: &MetricId) -> Conventions {
        let mut c = self.conventions();
        if let Some(m) = self
            .metrics
            .iter()
            .find(|m| m.base == metric.base && m.k == metric.k)
        {
            for (key, value) in m.settings {
                let _ = conventions::set(&mut c, key, value);
            }
        }
        c
    }

    /// One of the tool's metrics by its name there.
    pub fn metric(&self, peer: &str) -> Option<&'static PeerMetric> {
        self.metrics.iter().find(|m| m.peer == peer)
    }

    /// What it changes, as `key=value` items.
    pub fn changes(&self) -> String {
        let items: Vec<String> = self
            .settings
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        if items.is_empty() {
            "nothing (the defaults)".into()
        } else {
            items.join(" ")
        }
    }
}

/// Sets the ranking conventions to preset `name`'s (a convention the preset
/// does not name goes back to its default; the other kinds' stay).
pub fn apply(conv: &mut Conventions, name: &str) -> Result<(), String> {
    let p = get(name).ok_or_else(|| format!("not a preset (the presets: {})", names()))?;
    let fresh = p.conventions();
    let kept = conv.clone();
    *conv = fresh;
    // the other kinds' conventions are not the preset's business
    conv.threshold = kept.threshold;
    conv.thresholds = kept.thresholds;
    conv.threshold_rule = kept.threshold_rule;
    conv.zero_division = kept.zero_division;
    conv.binary_scores_are_logits = kept.binary_scores_are_logits;
    conv.class_ties = kept.class_ties;
    conv.class_scale = kept.class_scale;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::{info, Kind};
    use crate::Named;

    #[test]
    fn every_preset_sets_known_values_and_names_known_metrics() {
        for p in PRESETS {
            let mut c = Conventions::default();
            for (key, value) in p.settings {
                conventions::set(&mut c, key, value)
                    .unwrap_or_else(|e| panic!("{}: {key}={value}: {e}", p.name));
            }
            for m in p.metrics {
                assert!(
                    info(m.base, Kind::Ranking).is_some(),
                    "{}: {}",
                    p.name,
                    m.base
                );
                for (key, value) in m.settings {
                    conventions::set(&mut c, key, value)
                        .unwrap_or_else(|e| panic!("{}: {key}={value}: {e}", p.name));
                }
            }
            assert_eq!(get(p.name).map(|q| q.name), Some(p.name));
            assert_eq!(p.about().name, p.name);
            assert_eq!(PRESETS.iter().filter(|q| q.name == p.name).count(), 1);
        }
    }

    #[test]
    fn the_words_about_the_presets_are_in_their_order() {
        let names: Vec<&str> = PRESETS.iter().map(|p| p.name).collect();
        let about: Vec<&str> = ABOUT.iter().map(|a| a.name).collect();
        assert_eq!(names, about);
    }

    #[test]
    fn a_preset_resets_ranking_conventions_and_keeps_the_others() {
        let mut c = Conventions::default();
        conventions::set(&mut c, "gain", "exponential").unwrap();
        conventions::set(&mut c, "threshold", "0.3").unwrap();
        apply(&mut c, "spark-mllib").unwrap();
        assert_eq!(c.gain, Conventions::default().gain);
        assert_eq!(c.threshold, 0.3);
        assert_eq!(c.preset, "spark-mllib");
        assert_eq!(
            conventions::describe(&c, Kind::Ranking)[0],
            ("preset", "spark-mllib".into())
        );
        assert!(apply(&mut c, "nope")
            .unwrap_err()
            .starts_with("not a preset"));
        let rec = get("recommenders").unwrap();
        let ndcg = MetricId::parse("ndcg@10", Kind::Ranking).unwrap();
        assert_eq!(rec.conventions_for(&ndcg).query_set.name(), "qrels");
        assert_eq!(rec.conventions().query_set.name(), "intersection");
    }
}
