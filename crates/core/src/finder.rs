//! "Where does this number come from?": the conventions that reproduce a
//! value another tool printed for the same files. Every preset is tried
//! first, then every combination of the conventions that change the metric
//! ([`super::fingerprint::relevant_keys`]); the settings whose value rounds
//! to the printed one are ranked by how few changes from a preset they need.

use std::collections::HashMap;

use super::conventions::{self, Conventions, Key, TABLE};
use super::evaluate::{evaluate_prepared, refine_run};
use super::presets::{Preset, PRESETS};
use super::ranking::{self, PreparedRun, QuerySet, RankingData, TieRule};
use super::registry::{Kind, MetricId};

/// One setting tried: its nearest preset, the changes from it, its value.
#[derive(Clone, Debug)]
pub struct Candidate {
    /// The preset it starts from (`None`: Rankscope's defaults).
    pub preset: Option<&'static str>,
    /// `(key, value, what the value means)` away from that preset.
    pub changes: Vec<(&'static str, String, &'static str)>,
    pub conventions: Conventions,
    pub value: f64,
    pub fingerprint: String,
}

/// What the search found.
#[derive(Clone, Debug, Default)]
pub struct Found {
    /// The settings that reproduce the value to its printed precision,
    /// fewest changes from a preset first.
    pub matches: Vec<Candidate>,
    /// When none does: the settings whose values come nearest.
    pub nearest: Vec<Candidate>,
    /// How many settings were evaluated.
    pub tried: usize,
}

/// The digits after the decimal point of a printed number (`0.4312`: 4).
pub fn printed_decimals(text: &str) -> usize {
    let t = text.trim();
    let mantissa = t.split(['e', 'E']).next().unwrap_or(t);
    mantissa.split_once('.').map_or(0, |(_, d)| d.len())
}

/// Whether `value` prints as `target` with `decimals` digits (half a unit
/// of the last printed digit either way, and a little for the printing's
/// own rounding).
pub fn reproduces(value: f64, target: f64, decimals: usize) -> bool {
    let half = 0.5 * 10f64.powi(-(decimals.min(15) as i32));
    (value - target).abs() <= half * (1.0 + 1e-9) + 1e-12
}

/// The values a convention is tried with: its named values, or for the
/// relevance level 1, 2, 3.
fn values_of(key: Key) -> Vec<String> {
    let row = &TABLE[Key::ALL.iter().position(|&k| k == key).unwrap_or(0)];
    if row.values.is_empty() {
        return match key {
            Key::RelevanceLevel => vec!["1".into(), "2".into(), "3".into()],
            _ => Vec::new(),
        };
    }
    row.values.iter().map(|(v, _)| v.to_string()).collect()
}

/// What a value of a convention means (the table's words).
fn meaning(key: &str, value: &str) -> &'static str {
    TABLE
        .iter()
        .find(|c| c.key == key)
        .and_then(|c| c.values.iter().find(|(v, _)| *v == value))
        .map_or("", |(_, m)| m)
}

/// The keys where `conv` differs from `base`, among `keys`, with meanings.
fn changes_from(
    base: &Conventions,
    conv: &Conventions,
    keys: &[Key],
) -> Vec<(&'static str, String, &'static str)> {
    keys.iter()
        .filter_map(|&k| {
            let row = &TABLE[Key::ALL.iter().position(|&x| x == k)?];
            let v = (row.get)(conv);
            (v != (row.get)(base)).then(|| (row.key, v.clone(), meaning(row.key, &v)))
        })
        .collect()
}

/// Prepared runs kept by what decides them (tie rule, query set, refinements).
#[derive(Default)]
struct Prepared {
    base: HashMap<(TieRule, QuerySet), PreparedRun>,
    refined: HashMap<(TieRule, QuerySet, ranking::Refine), PreparedRun>,
}

impl Prepared {
    fn get(&mut self, d: &RankingData, run: usize, conv: &Conventions) -> &PreparedRun {
        let key = (conv.ties, conv.query_set, conv.refine());
        if !self.refined.contains_key(&key) {
            let base = self
                .base
                .entry((conv.ties, conv.query_set))
                .or_insert_with(|| ranking::prepare(d, run, conv.ties, conv.query_set))
                .clone();
            self.refined.insert(key, refine_run(base, d, run, conv));
        }
        &self.refined[&key]
    }
}

/// Searches the settings under which `metric` of run `run` of `d` prints
/// as `target` with `decimals` digits: every preset (with the metric's own
/// values), then every combination of the conventions that change the
/// metric. At most `limit` matches (and nearest settings) are returned.
pub fn find(
    d: &RankingData,
    run: usize,
    metric: &MetricId,
    target: f64,
    decimals: usize,
    limit: usize,
) -> Found {
    let mut prepared = Prepared::default();
    let mut value_of = |conv: &Conventions| -> f64 {
        let p = prepared.get(d, run, conv);
        let report = evaluate_prepared(d, std::iter::once(p), conv, std::slice::from_ref(metric));
        report.models[0].metrics[&metric.to_string()].unwrap_or(f64::NAN)
    };
    // the starting points: Rankscope's defaults and every preset
    let mut starts: Vec<(Option<&'static Preset>, Conventions)> =
        vec![(None, Conventions::default())];
    starts.extend(PRESETS.iter().map(|p| (Some(p), p.conventions_for(metric))));
    let keys = super::fingerprint::relevant_keys(Kind::Ranking, metric, &Conventions::default());
    let mut keys: Vec<Key> = keys;
    // the relevance level counts under binary grades or skipped queries
    if !keys.contains(&Key::RelevanceLevel) {
        keys.push(Key::RelevanceLevel);
    }
    keys.retain(|&k| !values_of(k).is_empty());
    // every combination of the keys' values, each evaluated once
    let mut seen: HashMap<String, f64> = HashMap::new();
    let mut tried = Vec::new();
    let mut combo = vec![0usize; keys.len()];
    let lists: Vec<Vec<String>> = keys.iter().map(|&k| values_of(k)).collect();
    let mut all: Vec<Conventions> = starts.iter().map(|(_, c)| c.clone()).collect();
    loop {
        let mut c = Conventions::default();
        for (i, &k) in keys.iter().enumerate() {
            let _ = conventions::set(&mut c, k.name(), &lists[i][combo[i]]);
        }
        all.push(c);
        // the next combination (an odometer over the value lists)
        let mut i = 0;
        while i < combo.len() {
            combo[i] += 1;
            if combo[i] < lists[i].len() {
                break;
            }
            combo[i] = 0;
            i += 1;
        }
        if i == combo.len() {
            break;
        }
    }
    for conv in all {
        let f = super::fingerprint::fingerprint(Kind::Ranking, metric, &conv);
        let v = match seen.get(&f) {
            Some(&v) => v,
            None => {
                let v = value_of(&conv);
                seen.insert(f.clone(), v);
                v
            }
        };
        tried.push((conv, v, f));
    }
    // each setting's nearest starting point: fewest changes among the keys
    let all_keys: Vec<Key> = Key::ALL
        .iter()
        .copied()
        .filter(|k| {
            let kind = TABLE[Key::ALL.iter().position(|x| x == k).unwrap_or(0)].kind;
            kind == Kind::Ranking
        })
        .collect();
    let place = |conv: &Conventions, v: f64, f: &str| -> Candidate {
        let relevant = super::fingerprint::relevant_keys(Kind::Ranking, metric, conv);
        let relevant: Vec<Key> = all_keys
            .iter()
            .copied()
            .filter(|k| relevant.contains(k))
            .collect();
        let (start, changes) = starts
            .iter()
            .map(|(p, base)| (p.map(|p| p.name), changes_from(base, conv, &relevant)))
            .min_by_key(|(_, ch)| ch.len())
            .unwrap_or((None, Vec::new()));
        let mut conventions = conv.clone();
        conventions.preset = start.unwrap_or_default().to_string();
        Candidate {
            preset: start,
            changes,
            conventions,
            value: v,
            fingerprint: f.to_string(),
        }
    };
    let mut matches: Vec<Candidate> = Vec::new();
    let mut defs: Vec<String> = Vec::new();
    for (conv, v, f) in &tried {
        if reproduces(*v, target, decimals) && !defs.contains(f) {
            defs.push(f.clone());
            matches.push(place(conv, *v, f));
        }
    }
    // fewest changes first; then presets before the defaults, the table's order
    let rank = |c: &Candidate| {
        let preset_at = c
            .preset
            .and_then(|n| PRESETS.iter().position(|p| p.name == n))
            .unwrap_or(PRESETS.len());
        (c.changes.len(), preset_at)
    };
    matches.sort_by_key(rank);
    matches.truncate(limit);
    let mut nearest = Vec::new();
    if matches.is_empty() {
        let mut by_distance: Vec<&(Conventions, f64, String)> =
            tried.iter().filter(|t| t.1.is_finite()).collect();
        by_distance.sort_by(|a, b| (a.1 - target).abs().total_cmp(&(b.1 - target).abs()));
        let mut defs: Vec<&str> = Vec::new();
        for (conv, v, f) in by_distance {
            if defs.contains(&f.as_str()) {
                continue;
            }
            defs.push(f);
            nearest.push(place(conv, *v, f));
            if nearest.len() == limit {
                break;
            }
        }
    }
    Found {
        matches,
        nearest,
        tried: seen.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printed_precision() {
        assert_eq!(printed_decimals("0.4312"), 4);
        assert_eq!(printed_decimals("1"), 0);
        assert_eq!(printed_decimals(" 0.40 "), 2);
        assert_eq!(printed_decimals("4.312e-1"), 3);
        assert!(reproduces(0.43124, 0.4312, 4));
        assert!(reproduces(0.43115, 0.4312, 4));
        assert!(!reproduces(0.43126, 0.4312, 4));
        assert!(reproduces(0.4, 0.40, 2));
    }
}
