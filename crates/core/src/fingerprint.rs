//! A metric's definition under its conventions as a short stable hash, so
//! that two numbers can be compared by definition before by value.
//!
//! How it is made: the text `rankscope-definition-1 KIND METRIC key=value …`
//! names the data kind, the metric id with its cutoff (`ndcg@10`) and every
//! convention that can change that metric's value ([`relevant_keys`]: the
//! metric's registry row, the conventions that change every ranking metric,
//! and those that matter only under another's value), each as links write
//! it, in the conventions table's order; its 64-bit FNV-1a hash, the first
//! 12 hexadecimal digits, is the fingerprint. A convention the metric does
//! not read, the preset's name, the data and the model are not in it: the
//! same definition has the same fingerprint in the page, the CLI, Python and
//! Spark (all call this function), and a preset that defines a metric alike
//! gives it the same one. Exports write the preset's name beside it.

use super::conventions::{Conventions, Key, TABLE};
use super::ranking::{Grades, NoRelevant};
use super::registry::{self, Kind, MetricId};

/// The version of the text hashed: raised if its form ever changes.
const FORM: &str = "rankscope-definition-1";

/// The conventions that can change `metric`'s value under `conv`, in the
/// table's order: its row's (`registry::dependencies`), without
/// `ap_denominator` for AP without a cutoff (|R| either way), and with the
/// relevance level when binary grades or skipped queries make it count (and
/// the judgments read, which decide the queries skipped).
pub fn relevant_keys(kind: Kind, metric: &MetricId, conv: &Conventions) -> Vec<Key> {
    let Some(info) = registry::info(&metric.base, kind) else {
        return Vec::new();
    };
    let mut keys: Vec<Key> = registry::dependencies(info).collect();
    if metric.k.is_none() {
        keys.retain(|&k| k != Key::ApDenominator);
    }
    let graded = keys.contains(&Key::Grades);
    let skipping = kind == Kind::Ranking && conv.no_relevant == NoRelevant::Skip;
    if skipping || (graded && conv.grades == Grades::Binary) {
        keys.push(Key::RelevanceLevel);
    }
    // which queries are skipped reads the judgments in force
    if skipping {
        keys.push(Key::QrelsScope);
    }
    let mut ordered: Vec<Key> = Key::ALL
        .iter()
        .copied()
        .filter(|k| keys.contains(k))
        .collect();
    ordered.dedup();
    ordered
}

/// The text the fingerprint hashes (see the module's doc).
pub fn definition(kind: Kind, metric: &MetricId, conv: &Conventions) -> String {
    let mut text = format!("{FORM} {} {metric}", kind_name(kind));
    for key in relevant_keys(kind, metric, conv) {
        let row = &TABLE[Key::ALL.iter().position(|&k| k == key).unwrap_or(0)];
        text.push_str(&format!(" {}={}", row.key, (row.get)(conv)));
    }
    text
}

/// The fingerprint of `metric`'s definition under `conv`: 12 hexadecimal
/// digits (see the module's doc for how it is made).
///
/// # Examples
///
/// ```
/// use rankscope_core::conventions::{set, Conventions};
/// use rankscope_core::fingerprint::fingerprint;
/// use rankscope_core::registry::{Kind, MetricId};
///
/// let ndcg = MetricId::parse("ndcg@10", Kind::Ranking).unwrap();
/// let trec = Conventions::default();
/// let mut exp = trec.clone();
/// set(&mut exp, "gain", "exponential").unwrap();
/// let mut level = trec.clone();
/// set(&mut level, "relevance_level", "2").unwrap();
/// assert_ne!(fingerprint(Kind::Ranking, &ndcg, &trec), fingerprint(Kind::Ranking, &ndcg, &exp));
/// // nDCG's gains do not read the relevance level
/// assert_eq!(fingerprint(Kind::Ranking, &ndcg, &trec), fingerprint(Kind::Ranking, &ndcg, &level));
/// assert_eq!(fingerprint(Kind::Ranking, &ndcg, &trec).len(), 12);
/// ```
pub fn fingerprint(kind: Kind, metric: &MetricId, conv: &Conventions) -> String {
    let hash = fnv1a(definition(kind, metric, conv).as_bytes());
    format!("{hash:016x}")[..12].to_string()
}

/// [`fingerprint`] of a metric written as text (`ndcg@10`); `None` when it
/// is not a metric of `kind`.
pub fn of_text(kind: Kind, metric: &str, conv: &Conventions) -> Option<String> {
    MetricId::parse(metric, kind)
        .ok()
        .map(|m| fingerprint(kind, &m, conv))
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Ranking => "ranking",
        Kind::Binary => "binary",
        Kind::Multiclass => "multiclass",
        Kind::Ratings => "ratings",
    }
}

/// 64-bit FNV-1a: stable across platforms, builds and versions (no
/// dependency, the same bits natively and in wasm).
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conventions::set;
    use crate::Named;

    #[test]
    fn the_hash_is_fnv1a_and_the_text_is_stable() {
        // FNV-1a's published test vectors
        assert_eq!(fnv1a(b""), 0xcbf29ce484222325);
        assert_eq!(fnv1a(b"a"), 0xaf63dc4c8601ec8c);
        let ndcg = MetricId::parse("ndcg@10", Kind::Ranking).unwrap();
        let conv = Conventions::default();
        assert_eq!(
            definition(Kind::Ranking, &ndcg, &conv),
            "rankscope-definition-1 ranking ndcg@10 ties=trec gain=linear discount=log2 query_set=qrels unjudged=keep identical_ids=keep no_relevant=zero qrels_scope=qrels grades=graded ideal_depth=k"
        );
        // pinned (the same text hashed by Python: scripts/reference/presets_reference.py); a change of form or hash fails here (raise FORM)
        assert_eq!(fingerprint(Kind::Ranking, &ndcg, &conv), "b76055425f23");
    }

    /// Every value of every convention, as `set` takes it.
    fn values(key: &str) -> Vec<String> {
        let row = TABLE.iter().find(|c| c.key == key).unwrap();
        if !row.values.is_empty() {
            return row.values.iter().map(|(v, _)| v.to_string()).collect();
        }
        match key {
            "relevance_level" => vec!["1".into(), "2".into(), "3".into()],
            "threshold" => vec!["0.5".into(), "0.3".into(), "0.7".into()],
            _ => Vec::new(),
        }
    }

    /// A fingerprint changes when a convention that changes the metric
    /// changes, and not otherwise: for every metric of every kind, from the
    /// defaults and from each preset, every other value of every convention.
    #[test]
    fn the_fingerprint_follows_exactly_the_conventions_that_change_the_metric() {
        let mut starts = vec![Conventions::default()];
        starts.extend(crate::presets::PRESETS.iter().map(|p| p.conventions()));
        let mut checked = 0;
        for m in registry::METRICS {
            let ks: &[Option<usize>] = match m.cutoff {
                registry::Cutoff::None => &[None],
                registry::Cutoff::Required => &[Some(5)],
                registry::Cutoff::Optional => &[None, Some(5)],
            };
            for &k in ks {
                let id = MetricId::new(m.base, k);
                for start in &starts {
                    let before = fingerprint(m.kind, &id, start);
                    let keys = relevant_keys(m.kind, &id, start);
                    for row in TABLE {
                        for v in values(row.key) {
                            let mut c = start.clone();
                            set(&mut c, row.key, &v).unwrap();
                            let value_changed = (row.get)(&c) != (row.get)(start);
                            let after = fingerprint(m.kind, &id, &c);
                            let key = Key::named(row.key).unwrap();
                            let counts = keys.contains(&key)
                                || relevant_keys(m.kind, &id, &c).contains(&key);
                            assert_eq!(
                                before != after,
                                value_changed && counts,
                                "{} {id} from {:?}: {}={v}",
                                m.kind.label(),
                                start.preset,
                                row.key
                            );
                            checked += 1;
                        }
                    }
                    // the preset's name is not part of the definition
                    let mut renamed = start.clone();
                    renamed.preset = "another".into();
                    assert_eq!(fingerprint(m.kind, &id, &renamed), before);
                }
            }
        }
        assert!(checked > 10_000, "{checked}");
        let _ = crate::ranking::TieRule::ALL;
    }
}
