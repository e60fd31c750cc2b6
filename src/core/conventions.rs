//! Setting a convention by its name and a value's name, for the callers
//! that take conventions as text: the CLI's flags and the Python package's
//! keyword arguments. Keys are the link keys of [`TABLE`],
//! with the CLI's spellings as aliases (`queries` for `query_set`, `f1` for
//! `f1_aggregation`, `logits` for `binary_scores_are_logits`, ...); values
//! are the stable names of [`Named`] with the short forms the CLI has always
//! taken (`exp`, `jarvelin`, `min`, `10`, `lower`, ...).

use super::evaluate::Conventions;
use super::multiclass::{ClassTieRule, ScoreScale};
use super::ranking_metrics::{
    ApDenominator, Discount, Gain, PrecisionDenominator, TrecEvalVersion,
};
use super::registry::Kind;
use super::Named;

/// One convention: its link key (stable: links, session files, the CLI's
/// `--set` keys and the Python package's keyword arguments), the kind of
/// data whose values it changes, and the other spellings the CLI has always
/// taken (flag names, with dashes or underscores).
pub struct Convention {
    pub key: &'static str,
    pub kind: Kind,
    pub aliases: &'static [&'static str],
}

/// Every convention, in the order links write them: the one list the
/// CLI's and Python's setters ([`set`]), the links and sessions
/// (`session`) and the page's notes of changed conventions read.
pub const TABLE: &[Convention] = &[
    c("ties", Kind::Ranking, &[]),
    c("relevance_level", Kind::Ranking, &["l"]),
    c("gain", Kind::Ranking, &[]),
    c("discount", Kind::Ranking, &[]),
    c("ap_denominator", Kind::Ranking, &[]),
    c("precision_denominator", Kind::Ranking, &[]),
    c("f1_aggregation", Kind::Ranking, &["f1"]),
    c("query_set", Kind::Ranking, &["queries"]),
    c("trec_eval", Kind::Ranking, &["trec_eval_version"]),
    c("threshold", Kind::Binary, &[]),
    c("threshold_rule", Kind::Binary, &[]),
    c("zero_division", Kind::Binary, &[]),
    c("binary_scores_are_logits", Kind::Binary, &["logits"]),
    c("class_ties", Kind::Multiclass, &[]),
    c("class_scale", Kind::Multiclass, &["class_logits", "scale"]),
];

const fn c(key: &'static str, kind: Kind, aliases: &'static [&'static str]) -> Convention {
    Convention { key, kind, aliases }
}

/// The link keys of the conventions whose values change `kind`'s values.
pub fn keys(kind: Kind) -> Vec<&'static str> {
    TABLE
        .iter()
        .filter(|c| c.kind == kind)
        .map(|c| c.key)
        .collect()
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
    let Some(key) = key_of(key) else {
        return Err(format!(
            "not a convention (the conventions: {})",
            all_keys().join(", ")
        ));
    };
    let v = value.trim();
    match key {
        "ties" => conv.ties = named(v, &[])?,
        "relevance_level" => {
            conv.relevance_level = v
                .parse()
                .ok()
                .filter(|&l: &i32| l >= 1)
                .ok_or("expected a whole number >= 1")?
        }
        "gain" => conv.gain = named(v, &[("rel", Gain::Linear), ("exp", Gain::Exponential)])?,
        "discount" => conv.discount = named(v, &[("jarvelin", Discount::JarvelinB2)])?,
        "ap_denominator" => {
            conv.ap_denominator = named(v, &[("min", ApDenominator::MinRelevantK)])?
        }
        "precision_denominator" => {
            conv.precision_denominator = named(v, &[("min", PrecisionDenominator::MinKLength)])?
        }
        "f1_aggregation" => conv.f1_aggregation = named(v, &[])?,
        "query_set" => conv.query_set = named(v, &[])?,
        "trec_eval" => {
            conv.trec_eval = named(
                v,
                &[
                    ("10", TrecEvalVersion::V10),
                    ("9", TrecEvalVersion::V9),
                    ("9.0", TrecEvalVersion::V9),
                ],
            )?
        }
        "threshold" => {
            conv.threshold = v
                .parse()
                .ok()
                .filter(|t: &f64| t.is_finite())
                .ok_or("expected a number")?
        }
        "threshold_rule" => conv.threshold_rule = named(v, &[])?,
        "zero_division" => conv.zero_division = named(v, &[])?,
        "binary_scores_are_logits" => conv.binary_scores_are_logits = boolean(v)?,
        "class_ties" => {
            conv.class_ties = named(
                v,
                &[
                    ("lower", ClassTieRule::LowerIndexFirst),
                    ("higher", ClassTieRule::HigherIndexFirst),
                ],
            )?
        }
        _ => {
            // class_scale: its names, or a flag's true / false (logits or not)
            conv.class_scale = named(v, &[]).or_else(|e| match boolean(v) {
                Ok(true) => Ok(ScoreScale::Logits),
                Ok(false) => Ok(ScoreScale::Probabilities),
                Err(_) => Err(e),
            })?
        }
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
