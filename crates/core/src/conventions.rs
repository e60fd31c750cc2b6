//! Setting a convention by its name and a value's name, for the callers
//! that take conventions as text: the CLI's flags and the Python package's
//! keyword arguments. Keys are the link keys of [`TABLE`],
//! with the CLI's spellings as aliases (`queries` for `query_set`, `f1` for
//! `f1_aggregation`, `logits` for `binary_scores_are_logits`, ...); values
//! are the stable names of [`Named`] with the short forms the CLI has always
//! taken (`exp`, `jarvelin`, `min`, `10`, `lower`, ...).

use super::base::Kind;
use super::binary::{ThresholdRule, ZeroDivision};
use super::judgments::Unjudged;
use super::multiclass::{ClassTieRule, ScoreScale};
use super::ranking::{Grades, IdenticalIds, Judgments, NoRelevant, QuerySet, TieRule};
use super::ranking_metrics::{
    ApDenominator, Discount, F1Aggregation, Gain, IdealDepth, PrecisionDenominator, TrecEvalVersion,
};
use super::Named;

/// Every convention that changes a value, with the defaults of CONVENTIONS.md.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Conventions {
    pub ties: TieRule,
    pub relevance_level: i32,
    pub gain: Gain,
    pub discount: Discount,
    pub ap_denominator: ApDenominator,
    pub precision_denominator: PrecisionDenominator,
    pub f1_aggregation: F1Aggregation,
    pub query_set: QuerySet,
    pub threshold: f64,
    /// Models with a threshold of their own (`(name, threshold)`): the
    /// page's "a threshold per model", the CLI's `--threshold NAME=T`; the
    /// others use `threshold` ([`Conventions::threshold_for`]). Scores of
    /// two models need not share a scale, so one threshold cannot serve both.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub thresholds: Vec<(String, f64)>,
    pub threshold_rule: ThresholdRule,
    pub zero_division: ZeroDivision,
    pub binary_scores_are_logits: bool,
    pub class_ties: ClassTieRule,
    pub class_scale: ScoreScale,
    /// trec_eval's rule for recall points (iprec_at_recall): 10.0 by default
    #[serde(default)]
    pub trec_eval: TrecEvalVersion,
    /// Documents absent from the judgments: kept as not relevant, or
    /// removed before scoring (condensed lists, trec_eval `-J`).
    #[serde(default)]
    pub unjudged: Unjudged,
    /// A retrieved document whose id is its query's: kept, or dropped (BEIR).
    #[serde(default, skip_serializing_if = "is_default")]
    pub identical_ids: IdenticalIds,
    /// A query without a relevant document: scores 0, or is left out.
    #[serde(default, skip_serializing_if = "is_default")]
    pub no_relevant: NoRelevant,
    /// The judgments the metrics read: every judged document, or the retrieved ones.
    #[serde(default, skip_serializing_if = "is_default")]
    pub qrels_scope: Judgments,
    /// The grades as they are, or binary (relevant at the level: 1, else 0).
    #[serde(default, skip_serializing_if = "is_default")]
    pub grades: Grades,
    /// nDCG's ideal list: the top k, or the top min(k, list length).
    #[serde(default, skip_serializing_if = "is_default")]
    pub ideal_depth: IdealDepth,
    /// The preset these conventions were set from (`presets::PRESETS`; empty:
    /// none). Not a convention: it changes no value, it names where the
    /// values came from (the table's header, the exports).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub preset: String,
}

fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

impl Default for Conventions {
    fn default() -> Self {
        Conventions {
            ties: TieRule::Trec,
            relevance_level: 1,
            gain: Gain::Linear,
            discount: Discount::Log2,
            ap_denominator: ApDenominator::Relevant,
            precision_denominator: PrecisionDenominator::K,
            f1_aggregation: F1Aggregation::PerQuery,
            query_set: QuerySet::Qrels,
            threshold: 0.5,
            thresholds: Vec::new(),
            threshold_rule: ThresholdRule::AtLeast,
            zero_division: ZeroDivision::Zero,
            binary_scores_are_logits: false,
            class_ties: ClassTieRule::LowerIndexFirst,
            class_scale: ScoreScale::Probabilities,
            trec_eval: TrecEvalVersion::V10,
            unjudged: Unjudged::Keep,
            identical_ids: IdenticalIds::Keep,
            no_relevant: NoRelevant::Zero,
            qrels_scope: Judgments::Qrels,
            grades: Grades::Graded,
            ideal_depth: IdealDepth::K,
            preset: String::new(),
        }
    }
}

/// One convention: its link key (stable: links, session files, the CLI's
/// flags and the Python package's keyword arguments), the kind of data
/// whose values it changes, what it decides (the panel's label, the CLI
/// help's first words), its values by stable name with a few words each
/// (none for a number), the value in force, the other spellings the CLI
/// has always taken (flag names, with dashes or underscores; one letter:
/// a short flag), and the CLI switch that sets it without a value.
pub struct Convention {
    pub key: &'static str,
    pub kind: Kind,
    pub label: &'static str,
    pub values: &'static [(&'static str, &'static str)],
    /// The value in force as links write it: a stable name, or a number.
    pub get: fn(&Conventions) -> String,
    pub aliases: &'static [&'static str],
    /// `(flag, value)`: `--flag` alone sets the value (`--logits`).
    pub switch: Option<(&'static str, &'static str)>,
}

/// [`TABLE`] and its typed keys ([`Key`]) from one list of rows: each row
/// is `Variant: Convention { key: "link_key", … }`, and `Key::Variant` is
/// that row's key.
macro_rules! table {
    ($(#[$doc:meta])* $($variant:ident: Convention { key: $key:literal, $($field:ident: $value:expr),* $(,)? }),* $(,)?) => {
        $(#[$doc])*
        pub static TABLE: &[Convention] = &[$(Convention { key: $key, $($field: $value),* }),*];

        /// A convention's link key, typed: one value per row of [`TABLE`], in
        /// its order (what a metric's `depends` names, so a misspelled key does
        /// not compile).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Key {
            $($variant),*
        }

        impl Key {
            /// Every key, in [`TABLE`]'s order.
            pub const ALL: &'static [Key] = &[$(Key::$variant),*];

            /// The link key (`TABLE[i].key`).
            pub const fn name(self) -> &'static str {
                match self {
                    $(Key::$variant => $key),*
                }
            }

            /// The key of a link key (not an alias: see [`key_of`]).
            pub fn named(name: &str) -> Option<Key> {
                match name {
                    $($key => Some(Key::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

table! {
    /// Every convention, in the order links write them: the one list the
    /// CLI's flags and help, the Python package's keyword arguments ([`set`]),
    /// the links and sessions (`session`), the page's panel and its notes of
    /// changed conventions read.

    Ties: Convention {
        key: "ties",
        kind: Kind::Ranking,
        label: "Ties in score",
        values: &[
            ("trec", "trec_eval: doc id descending"),
            ("file", "file order"),
            ("average", "average over tie orders"),
            ("id_ascending", "doc id ascending (MS MARCO eval)"),
        ],
        get: |c| c.ties.name().into(),
        aliases: &[],
        switch: None,
    },
    RelevanceLevel: Convention {
        key: "relevance_level",
        kind: Kind::Ranking,
        label: "Relevant if grade ≥",
        values: &[],
        get: |c| c.relevance_level.to_string(),
        aliases: &["l"],
        switch: None,
    },
    Gain: Convention {
        key: "gain",
        kind: Kind::Ranking,
        label: "nDCG gain",
        values: &[
            ("linear", "rel (trec_eval)"),
            ("exponential", "2^rel − 1 (Burges)"),
        ],
        get: |c| c.gain.name().into(),
        aliases: &[],
        switch: None,
    },
    Discount: Convention {
        key: "discount",
        kind: Kind::Ranking,
        label: "nDCG discount",
        values: &[
            ("log2", "1 / log2(i+1)"),
            ("jarvelin_b2", "1 / max(1, log2 i) (Järvelin b=2)"),
        ],
        get: |c| c.discount.name().into(),
        aliases: &[],
        switch: None,
    },
    ApDenominator: Convention {
        key: "ap_denominator",
        kind: Kind::Ranking,
        label: "AP@k denominator",
        values: &[
            ("relevant", "|R| (trec_eval)"),
            ("min_relevant_k", "min(|R|, k)"),
        ],
        get: |c| c.ap_denominator.name().into(),
        aliases: &[],
        switch: None,
    },
    PrecisionDenominator: Convention {
        key: "precision_denominator",
        kind: Kind::Ranking,
        label: "P@k denominator",
        values: &[
            ("k", "k (trec_eval)"),
            ("min_k_length", "min(k, list length)"),
        ],
        get: |c| c.precision_denominator.name().into(),
        aliases: &[],
        switch: None,
    },
    F1Aggregation: Convention {
        key: "f1_aggregation",
        kind: Kind::Ranking,
        label: "F1@k",
        values: &[
            ("per_query", "mean of per-query F1"),
            ("from_means", "from mean P and R"),
        ],
        get: |c| c.f1_aggregation.name().into(),
        aliases: &["f1"],
        switch: None,
    },
    QuerySet: Convention {
        key: "query_set",
        kind: Kind::Ranking,
        label: "Queries that count",
        values: &[
            ("qrels", "every qrels query, missing = 0 (trec_eval -c)"),
            (
                "intersection",
                "run ∩ qrels (trec_eval without -c; pytrec_eval, ir_measures)",
            ),
            ("union", "run ∪ qrels, missing = 0 (Spark)"),
        ],
        get: |c| c.query_set.name().into(),
        aliases: &["queries"],
        switch: None,
    },
    TrecEval: Convention {
        key: "trec_eval",
        kind: Kind::Ranking,
        label: "trec_eval version",
        values: &[
            ("10.0", "10.0 (recall points rounded)"),
            ("9.0.x", "9.0.x, pytrec_eval (+ 0.9, truncated)"),
        ],
        get: |c| c.trec_eval.name().into(),
        aliases: &["trec_eval_version"],
        switch: None,
    },
    Threshold: Convention {
        key: "threshold",
        kind: Kind::Binary,
        label: "Threshold, or MODEL=T for one model's own (repeat for more)",
        values: &[],
        get: |c| c.threshold.to_string(),
        aliases: &[],
        switch: None,
    },
    ThresholdRule: Convention {
        key: "threshold_rule",
        kind: Kind::Binary,
        label: "Threshold rule",
        values: &[
            (">=", "positive iff score ≥ t"),
            (">", "positive iff score > t"),
        ],
        get: |c| c.threshold_rule.name().into(),
        aliases: &[],
        switch: None,
    },
    ZeroDivision: Convention {
        key: "zero_division",
        kind: Kind::Binary,
        label: "Zero division",
        values: &[
            ("0", "0, with a warning (scikit-learn's default, 'warn')"),
            ("nan", "undefined (—)"),
            ("1", "1"),
        ],
        get: |c| c.zero_division.name().into(),
        aliases: &[],
        switch: None,
    },
    BinaryScoresAreLogits: Convention {
        key: "binary_scores_are_logits",
        kind: Kind::Binary,
        label: "Scores are",
        values: &[("0", "probabilities"), ("1", "logits (apply the sigmoid)")],
        get: |c| if c.binary_scores_are_logits { "1" } else { "0" }.into(),
        aliases: &["logits"],
        switch: Some(("logits", "1")),
    },
    ClassTies: Convention {
        key: "class_ties",
        kind: Kind::Multiclass,
        label: "Tied classes",
        values: &[
            ("lower_index_first", "lower index first (argmax)"),
            ("higher_index_first", "higher index first (sklearn top_k)"),
            ("optimistic", "optimistic bound"),
            ("pessimistic", "pessimistic bound"),
        ],
        get: |c| c.class_ties.name().into(),
        aliases: &[],
        switch: None,
    },
    ClassScale: Convention {
        key: "class_scale",
        kind: Kind::Multiclass,
        label: "Matrix holds",
        values: &[
            ("probabilities", "probabilities"),
            ("logits", "logits (log-softmax first)"),
        ],
        get: |c| c.class_scale.name().into(),
        aliases: &["class_logits", "scale"],
        switch: Some(("class-logits", "logits")),
    },
    Unjudged: Convention {
        key: "unjudged",
        kind: Kind::Ranking,
        label: "Unjudged documents",
        values: &[
            ("keep", "kept, not relevant (trec_eval)"),
            ("condensed", "removed before scoring (trec_eval -J)"),
        ],
        get: |c| c.unjudged.name().into(),
        aliases: &[],
        switch: None,
    },
    IdenticalIds: Convention {
        key: "identical_ids",
        kind: Kind::Ranking,
        label: "A document whose id is the query's",
        values: &[
            ("keep", "kept (trec_eval)"),
            ("drop", "dropped from the run (BEIR, MTEB)"),
        ],
        get: |c| c.identical_ids.name().into(),
        aliases: &["ignore_identical_ids"],
        switch: None,
    },
    NoRelevant: Convention {
        key: "no_relevant",
        kind: Kind::Ranking,
        label: "A query without a relevant document",
        values: &[
            ("zero", "scores 0 and counts (trec_eval)"),
            ("skip", "is left out (torchmetrics skip, recommenders)"),
        ],
        get: |c| c.no_relevant.name().into(),
        aliases: &["empty_target"],
        switch: None,
    },
    QrelsScope: Convention {
        key: "qrels_scope",
        kind: Kind::Ranking,
        label: "Judgments read",
        values: &[
            ("qrels", "every judged document (trec_eval)"),
            (
                "retrieved",
                "the retrieved documents' only (sklearn ndcg_score, torchmetrics, MLflow)",
            ),
        ],
        get: |c| c.qrels_scope.name().into(),
        aliases: &[],
        switch: None,
    },
    Grades: Convention {
        key: "grades",
        kind: Kind::Ranking,
        label: "Grades",
        values: &[
            ("graded", "as judged (trec_eval)"),
            (
                "binary",
                "relevant = 1, else 0 (Spark, recommenders, MLflow)",
            ),
        ],
        get: |c| c.grades.name().into(),
        aliases: &["binary_relevance"],
        switch: None,
    },
    IdealDepth: Convention {
        key: "ideal_depth",
        kind: Kind::Ranking,
        label: "nDCG@k's ideal list",
        values: &[
            ("k", "its top k (trec_eval)"),
            ("list_length", "its top min(k, list length) (MLflow)"),
        ],
        get: |c| c.ideal_depth.name().into(),
        aliases: &[],
        switch: None,
    },
}

/// The conventions a header names only away from their default (added for
/// other tools' definitions, after the header's form was fixed): a header
/// under the defaults reads as it always did.
pub const NAMED_WHEN_SET: &[Key] = &[
    Key::IdenticalIds,
    Key::NoRelevant,
    Key::QrelsScope,
    Key::Grades,
    Key::IdealDepth,
];

/// The link key of the models' own thresholds ([`Conventions::thresholds`],
/// beside `threshold`'s row: a list of names and numbers, not one value).
pub const OWN_THRESHOLDS: &str = "thresholds";

/// The key naming the preset in force in a header, a link and a session
/// ([`Conventions::preset`]; not a row of [`TABLE`]: it changes no value).
pub const PRESET: &str = "preset";

/// The conventions of `kind`, in [`TABLE`]'s order.
pub fn of(kind: Kind) -> impl Iterator<Item = &'static Convention> {
    TABLE.iter().filter(move |c| c.kind == kind)
}

/// The conventions of `kind` with their values in force, as links write
/// them (`gain`, `linear`): what the page's explanations, the CLI's table
/// header and the Python package's reports state.
pub fn describe(conv: &Conventions, kind: Kind) -> Vec<(&'static str, String)> {
    let defaults = Conventions::default();
    let mut out: Vec<_> = of(kind)
        .filter(|c| {
            let quiet = NAMED_WHEN_SET.iter().any(|k| k.name() == c.key);
            !quiet || (c.get)(conv) != (c.get)(&defaults)
        })
        .map(|c| (c.key, (c.get)(conv)))
        .collect();
    // the presets are ranking conventions
    if kind == Kind::Ranking && !conv.preset.is_empty() {
        out.insert(0, (PRESET, conv.preset.clone()));
    }
    if kind == Kind::Binary && !conv.thresholds.is_empty() {
        out.push((OWN_THRESHOLDS, own_thresholds(conv)));
    }
    out
}

/// The models' own thresholds as `name=t` items (`, ` between them).
pub fn own_thresholds(conv: &Conventions) -> String {
    let items: Vec<String> = conv
        .thresholds
        .iter()
        .map(|(n, t)| format!("{n}={t}"))
        .collect();
    items.join(", ")
}

/// The link keys of the conventions whose values change `kind`'s values.
pub fn keys(kind: Kind) -> Vec<&'static str> {
    of(kind).map(|c| c.key).collect()
}

/// Every link key, in [`TABLE`]'s order.
pub fn all_keys() -> Vec<&'static str> {
    TABLE.iter().map(|c| c.key).collect()
}

/// The link key a name stands for: itself, or one of its aliases (dashes
/// or underscores, without the leading `--`).
pub fn key_of(name: &str) -> Option<&'static str> {
    let name = name.trim_start_matches('-').replace('-', "_");
    TABLE
        .iter()
        .find(|c| c.key == name || c.aliases.contains(&name.as_str()))
        .map(|c| c.key)
}

/// A [`Named`] value from its name or one of `aliases`.
fn named<T: Named + Copy>(v: &str, aliases: &[(&str, T)]) -> Result<T, String> {
    T::named(v)
        .or_else(|| aliases.iter().find(|(a, _)| *a == v).map(|(_, t)| *t))
        .ok_or_else(|| {
            let names: Vec<&str> = T::ALL.iter().map(|t| t.name()).collect();
            format!("expected one of {}", names.join(", "))
        })
}

fn boolean(v: &str) -> Result<bool, String> {
    match v {
        "1" | "true" | "True" | "yes" | "on" => Ok(true),
        "0" | "false" | "False" | "no" | "off" => Ok(false),
        _ => Err("expected true or false".into()),
    }
}

/// Sets the convention `key` (a link key or an alias, see [`key_of`]) to
/// `value`; the error says what was expected (the caller names the key).
pub fn set(conv: &mut Conventions, key: &str, value: &str) -> Result<(), String> {
    let Some(key) = key_of(key).and_then(Key::named) else {
        return Err(format!(
            "not a convention (the conventions: {})",
            all_keys().join(", ")
        ));
    };
    let v = value.trim();
    match key {
        Key::Ties => conv.ties = named(v, &[])?,
        Key::RelevanceLevel => {
            conv.relevance_level = v
                .parse()
                .ok()
                .filter(|&l: &i32| l >= 1)
                .ok_or("expected a whole number >= 1")?
        }
        Key::Gain => conv.gain = named(v, &[("rel", Gain::Linear), ("exp", Gain::Exponential)])?,
        Key::Discount => conv.discount = named(v, &[("jarvelin", Discount::JarvelinB2)])?,
        Key::ApDenominator => {
            conv.ap_denominator = named(v, &[("min", ApDenominator::MinRelevantK)])?
        }
        Key::PrecisionDenominator => {
            conv.precision_denominator = named(v, &[("min", PrecisionDenominator::MinKLength)])?
        }
        Key::F1Aggregation => conv.f1_aggregation = named(v, &[])?,
        Key::QuerySet => conv.query_set = named(v, &[])?,
        Key::TrecEval => {
            conv.trec_eval = named(
                v,
                &[
                    ("10", TrecEvalVersion::V10),
                    ("9", TrecEvalVersion::V9),
                    ("9.0", TrecEvalVersion::V9),
                ],
            )?
        }
        Key::Threshold => {
            // `NAME=T`: model NAME's own threshold (a name may hold `=`)
            let (name, v) = v
                .rsplit_once('=')
                .map_or((None, v), |(n, t)| (Some(n.trim()), t));
            let t = crate::text::parse_f64(v.trim())
                .filter(|t: &f64| t.is_finite())
                .ok_or("expected a number")?;
            conv.set_threshold(name, t)
        }
        Key::ThresholdRule => conv.threshold_rule = named(v, &[])?,
        Key::ZeroDivision => conv.zero_division = named(v, &[])?,
        Key::BinaryScoresAreLogits => conv.binary_scores_are_logits = boolean(v)?,
        Key::ClassTies => {
            conv.class_ties = named(
                v,
                &[
                    ("lower", ClassTieRule::LowerIndexFirst),
                    ("higher", ClassTieRule::HigherIndexFirst),
                ],
            )?
        }
        Key::IdenticalIds => {
            conv.identical_ids = named(
                v,
                &[("true", IdenticalIds::Drop), ("false", IdenticalIds::Keep)],
            )?
        }
        Key::NoRelevant => conv.no_relevant = named(v, &[])?,
        Key::QrelsScope => conv.qrels_scope = named(v, &[])?,
        Key::Grades => conv.grades = named(v, &[])?,
        Key::IdealDepth => conv.ideal_depth = named(v, &[])?,
        Key::ClassScale => {
            // its names, or a flag's true / false (logits or not)
            conv.class_scale = named(v, &[]).or_else(|e| match boolean(v) {
                Ok(true) => Ok(ScoreScale::Logits),
                Ok(false) => Ok(ScoreScale::Probabilities),
                Err(_) => Err(e),
            })?
        }
        Key::Unjudged => conv.unjudged = named(v, &[("condense", Unjudged::Condensed)])?,
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_takes_every_stable_name_and_the_old_spellings() {
        let mut c = Conventions::default();
        for key in all_keys() {
            assert_eq!(key_of(key), Some(key));
        }
        set(&mut c, "threshold", "m=odel=0.7").unwrap();
        set(&mut c, "threshold", " m=odel = 0.8 ").unwrap();
        set(&mut c, "threshold", "0.25").unwrap();
        assert_eq!(
            (
                c.threshold_for("m=odel"),
                c.threshold_for("x"),
                c.thresholds.len()
            ),
            (0.8, 0.25, 1)
        );
        assert!(set(&mut c, "threshold", "m=inf").is_err() && c.thresholds.len() == 1);
        c.thresholds.clear();
        set(&mut c, "--gain", "exp").unwrap();
        assert_eq!(c.gain, Gain::Exponential);
        set(&mut c, "gain", "linear").unwrap();
        assert_eq!(c.gain, Gain::Linear);
        set(&mut c, "queries", "intersection").unwrap();
        assert_eq!(c.query_set.name(), "intersection");
        set(&mut c, "trec-eval-version", "9").unwrap();
        assert_eq!(c.trec_eval, TrecEvalVersion::V9);
        set(&mut c, "logits", "true").unwrap();
        assert!(c.binary_scores_are_logits);
        set(&mut c, "class_logits", "true").unwrap();
        assert_eq!(c.class_scale, ScoreScale::Logits);
        set(&mut c, "class_scale", "probabilities").unwrap();
        assert_eq!(c.class_scale, ScoreScale::Probabilities);
        set(&mut c, "relevance_level", "2").unwrap();
        assert_eq!(c.relevance_level, 2);
    }

    #[test]
    fn the_typed_keys_are_the_tables_rows() {
        let names: Vec<&str> = Key::ALL.iter().map(|k| k.name()).collect();
        assert_eq!(names, all_keys());
        for c in TABLE {
            assert_eq!(Key::named(c.key).map(Key::name), Some(c.key));
        }
        assert_eq!(Key::named("queries"), None, "an alias is not a key");
    }

    #[test]
    fn bad_names_and_values_say_what_was_expected() {
        let mut c = Conventions::default();
        assert_eq!(
            set(&mut c, "gain", "cubic").unwrap_err(),
            "expected one of linear, exponential"
        );
        assert!(set(&mut c, "colour", "red")
            .unwrap_err()
            .starts_with("not a convention (the conventions: ties, "));
        assert_eq!(
            set(&mut c, "relevance_level", "0").unwrap_err(),
            "expected a whole number >= 1"
        );
        assert_eq!(
            set(&mut c, "threshold", "inf").unwrap_err(),
            "expected a number"
        );
        assert_eq!(c, Conventions::default());
    }
}
