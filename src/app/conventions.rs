//! The conventions panel: every switch of CONVENTIONS.md that applies to the kind.

use leptos::prelude::*;

use super::state::AppState;
use crate::core::binary::{ThresholdRule, ZeroDivision};
use crate::core::evaluate::Conventions;
use crate::core::multiclass::{ClassTieRule, ScoreScale};
use crate::core::ranking::{QuerySet, TieRule};
use crate::core::ranking_metrics::{
    ApDenominator, Discount, F1Aggregation, Gain, PrecisionDenominator, TrecEvalVersion,
};
use crate::core::registry::Kind;
use crate::core::Named;

type Setter = fn(&mut Conventions, &str);
type Getter = fn(&Conventions) -> &'static str;

struct Choice {
    id: &'static str,
    label: &'static str,
    options: &'static [(&'static str, &'static str)],
    get: Getter,
    set: Setter,
}

const RANKING: &[Choice] = &[
    Choice {
        id: "ties",
        label: "Ties in score",
        options: &[
            ("trec", "trec_eval: doc id descending"),
            ("file", "file order"),
            ("average", "average over tie orders"),
        ],
        get: |c| match c.ties {
            TieRule::Trec => "trec",
            TieRule::File => "file",
            TieRule::Average => "average",
        },
        set: |c, v| {
            c.ties = match v {
                "file" => TieRule::File,
                "average" => TieRule::Average,
                _ => TieRule::Trec,
            }
        },
    },
    Choice {
        id: "gain",
        label: "nDCG gain",
        options: &[
            ("linear", "rel (trec_eval)"),
            ("exponential", "2^rel − 1 (Burges)"),
        ],
        get: |c| match c.gain {
            Gain::Linear => "linear",
            Gain::Exponential => "exponential",
        },
        set: |c, v| {
            c.gain = if v == "exponential" {
                Gain::Exponential
            } else {
                Gain::Linear
            }
        },
    },
    Choice {
        id: "discount",
        label: "nDCG discount",
        options: &[
            ("log2", "1 / log2(i+1)"),
            ("jarvelin_b2", "1 / max(1, log2 i) (Järvelin b=2)"),
        ],
        get: |c| match c.discount {
            Discount::Log2 => "log2",
            Discount::JarvelinB2 => "jarvelin_b2",
        },
        set: |c, v| {
            c.discount = if v == "jarvelin_b2" {
                Discount::JarvelinB2
            } else {
                Discount::Log2
            }
        },
    },
    Choice {
        id: "ap_denominator",
        label: "AP@k denominator",
        options: &[
            ("relevant", "|R| (trec_eval)"),
            ("min_relevant_k", "min(|R|, k)"),
        ],
        get: |c| match c.ap_denominator {
            ApDenominator::Relevant => "relevant",
            ApDenominator::MinRelevantK => "min_relevant_k",
        },
        set: |c, v| {
            c.ap_denominator = if v == "min_relevant_k" {
                ApDenominator::MinRelevantK
            } else {
                ApDenominator::Relevant
            }
        },
    },
    Choice {
        id: "precision_denominator",
        label: "P@k denominator",
        options: &[
            ("k", "k (trec_eval)"),
            ("min_k_length", "min(k, list length)"),
        ],
        get: |c| match c.precision_denominator {
            PrecisionDenominator::K => "k",
            PrecisionDenominator::MinKLength => "min_k_length",
        },
        set: |c, v| {
            c.precision_denominator = if v == "min_k_length" {
                PrecisionDenominator::MinKLength
            } else {
                PrecisionDenominator::K
            }
        },
    },
    Choice {
        id: "trec_eval",
        label: "trec_eval version",
        options: &[
            ("10.0", "10.0 (recall points rounded)"),
            ("9.0.x", "9.0.x, pytrec_eval (+ 0.9, truncated)"),
        ],
        get: |c| c.trec_eval.name(),
        set: |c, v| c.trec_eval = TrecEvalVersion::named(v).unwrap_or_default(),
    },
    Choice {
        id: "f1_aggregation",
        label: "F1@k",
        options: &[
            ("per_query", "mean of per-query F1"),
            ("from_means", "from mean P and R"),
        ],
        get: |c| match c.f1_aggregation {
            F1Aggregation::PerQuery => "per_query",
            F1Aggregation::FromMeans => "from_means",
        },
        set: |c, v| {
            c.f1_aggregation = if v == "from_means" {
                F1Aggregation::FromMeans
            } else {
                F1Aggregation::PerQuery
            }
        },
    },
    Choice {
        id: "query_set",
        label: "Queries that count",
        options: &[
            ("qrels", "every qrels query, missing = 0 (trec_eval -c)"),
            (
                "intersection",
                "run ∩ qrels (trec_eval without -c; pytrec_eval, ir_measures)",
            ),
        ],
        get: |c| match c.query_set {
            QuerySet::Qrels => "qrels",
            QuerySet::Intersection => "intersection",
        },
        set: |c, v| {
            c.query_set = if v == "intersection" {
                QuerySet::Intersection
            } else {
                QuerySet::Qrels
            }
        },
    },
];

const BINARY: &[Choice] = &[
    Choice {
        id: "threshold_rule",
        label: "Threshold rule",
        options: &[
            (">=", "positive iff score ≥ t"),
            (">", "positive iff score > t"),
        ],
        get: |c| match c.threshold_rule {
            ThresholdRule::AtLeast => ">=",
            ThresholdRule::Above => ">",
        },
        set: |c, v| {
            c.threshold_rule = if v == ">" {
                ThresholdRule::Above
            } else {
                ThresholdRule::AtLeast
            }
        },
    },
    Choice {
        id: "zero_division",
        label: "Zero division",
        options: &[
            ("nan", "undefined (—)"),
            ("0", "0 (scikit-learn's default, 'warn')"),
            ("1", "1"),
        ],
        get: |c| c.zero_division.name(),
        set: |c, v| c.zero_division = ZeroDivision::named(v).unwrap_or_default(),
    },
    Choice {
        id: "binary_scale",
        label: "Scores are",
        options: &[
            ("probabilities", "probabilities"),
            ("logits", "logits (apply the sigmoid)"),
        ],
        get: |c| {
            if c.binary_scores_are_logits {
                "logits"
            } else {
                "probabilities"
            }
        },
        set: |c, v| c.binary_scores_are_logits = v == "logits",
    },
];

const MULTICLASS: &[Choice] = &[
    Choice {
        id: "class_ties",
        label: "Tied classes",
        options: &[
            ("lower_index_first", "lower index first (argmax)"),
            ("higher_index_first", "higher index first (sklearn top_k)"),
            ("optimistic", "optimistic bound"),
            ("pessimistic", "pessimistic bound"),
        ],
        get: |c| match c.class_ties {
            ClassTieRule::LowerIndexFirst => "lower_index_first",
            ClassTieRule::HigherIndexFirst => "higher_index_first",
            ClassTieRule::Optimistic => "optimistic",
            ClassTieRule::Pessimistic => "pessimistic",
        },
        set: |c, v| {
            c.class_ties = match v {
                "higher_index_first" => ClassTieRule::HigherIndexFirst,
                "optimistic" => ClassTieRule::Optimistic,
                "pessimistic" => ClassTieRule::Pessimistic,
                _ => ClassTieRule::LowerIndexFirst,
            }
        },
    },
    Choice {
        id: "class_scale",
        label: "Matrix holds",
        options: &[
            ("probabilities", "probabilities"),
            ("logits", "logits (log-softmax first)"),
        ],
        get: |c| match c.class_scale {
            ScoreScale::Probabilities => "probabilities",
            ScoreScale::Logits => "logits",
        },
        set: |c, v| {
            c.class_scale = if v == "logits" {
                ScoreScale::Logits
            } else {
                ScoreScale::Probabilities
            }
        },
    },
];

#[component]
pub fn ConventionsPanel(kind: Kind) -> impl IntoView {
    let state = expect_context::<AppState>();
    let choices: &'static [Choice] = match kind {
        Kind::Ranking => RANKING,
        Kind::Binary => BINARY,
        Kind::Multiclass => MULTICLASS,
        Kind::Ratings => &[],
    };
    let defaults = match kind {
        Kind::Ranking => {
            "Defaults follow trec_eval with -c (TREC input): every qrels query counts."
        }
        Kind::Binary => "Defaults follow scikit-learn, except that a ratio with a zero denominator is shown as undefined (—) rather than 0.",
        Kind::Multiclass => "Defaults: stable descending sort, probabilities.",
        Kind::Ratings => "MAE, RMSE and FCP have no switch; Spearman uses average ranks (scipy).",
    };
    let level = (kind == Kind::Ranking).then(|| view! {
        <label>"Relevant if grade ≥ "
            <input type="number" min="1" max="100" id="conv-relevance_level" prop:value=move || state.conv.with(|c| c.relevance_level.to_string())
                on:change=move |ev| { if let Ok(v) = event_target_value(&ev).parse::<i32>() { state.conv.update(|c| c.relevance_level = v.max(1)) } }/>
        </label>
    });
    let tied = move || {
        if kind != Kind::Ranking {
            return None;
        }
        let prepared = state.prepared.get();
        let n: usize = prepared
            .iter()
            .map(|r| r.mixed_ties.len())
            .max()
            .unwrap_or(0);
        (n > 0).then(|| format!("In {n} queries equal scores tie documents of different grades: their values depend on the tie rule."))
    };
    view! {
        <section class="card conventions">
            <h2>"Conventions"</h2>
            <p class="muted small">{defaults}</p>
            {choices.iter().map(|ch| {
                let get = ch.get;
                let set = ch.set;
                view! {
                    <label>{ch.label}
                        <select id=format!("conv-{}", ch.id) on:change=move |ev| { let v = event_target_value(&ev); state.conv.update(|c| set(c, &v)); }>
                            {ch.options.iter().map(|(value, text)| view! { <option value=*value selected=move || state.conv.with(|c| get(c) == *value)>{*text}</option> }).collect_view()}
                        </select>
                    </label>
                }
            }).collect_view()}
            {level}
            {move || tied().map(|t| view! { <p class="warn small">"⚠ "{t}</p> })}
        </section>
    }
}
