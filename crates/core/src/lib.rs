//! The metric core: pure Rust, no web dependency. Built natively for tests,
//! benchmarks and the CLI, and to wasm for the page.

pub mod base;
pub mod binary;
pub mod conventions;
pub mod curves;
pub mod diagnostics;
pub mod evaluate;
pub mod explain;
pub mod finder;
pub mod fingerprint;
pub mod ids;
pub mod judgments;
pub mod leaderboard;
pub mod lessons;
pub mod multiclass;
pub mod per_query;
pub mod presets;
pub mod ranking;
pub mod ranking_metrics;
pub mod ratings;
pub mod raw;
pub mod registry;
pub mod stats;
pub mod sum;
pub mod text;
pub mod trec_measures;

/// Exact powers of ten, 10^0 to 10^22 (every one is a double): the divisors
/// of a decimal read as `m / 10^k` (the parser's fast path, the binary
/// curve's counting path).
pub const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// An enum's values by name: the names a link, a session, the CLI and the
/// JSON output write (each equal to the value's serde name, which a test
/// checks), without serde's machinery in the page.
pub trait Named: Sized + Copy + 'static {
    /// Every value, in declaration order.
    const ALL: &'static [Self];
    fn name(self) -> &'static str;
    fn named(name: &str) -> Option<Self>;
    /// Every value's name, comma-separated (for "expected one of" messages).
    fn names() -> String {
        Self::ALL
            .iter()
            .map(|v| v.name())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Implements [`Named`] from one list of `Variant = "name"` pairs.
#[macro_export]
macro_rules! named {
    ($t:ty { $($v:ident = $n:literal),+ $(,)? }) => {
        impl $crate::Named for $t {
            const ALL: &'static [Self] = &[$(Self::$v),+];
            fn name(self) -> &'static str {
                match self { $(Self::$v => $n),+ }
            }
            fn named(name: &str) -> Option<Self> {
                match name { $($n => Some(Self::$v),)+ _ => None }
            }
        }
    };
}

/// The positions `0..n` in the order `cmp` gives them, equal ones in
/// position order (a stable sort). A sort is compiled once per element type
/// and comparator (2-3 KB of wasm each): the sorts off the hot paths share
/// this one instance through a comparator of positions.
pub fn order(n: usize, cmp: &dyn Fn(usize, usize) -> std::cmp::Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| cmp(a, b));
    order
}

/// `f` of each item, in the items' order: natively on as many threads as
/// the machine has, each taking the next item (so at most that many run at
/// once), in wasm one after another. Results do not depend on the threads:
/// each item's `f` runs alone on it.
pub fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        let threads = std::thread::available_parallelism()
            .map_or(1, |t| t.get())
            .min(items.len());
        if threads > 1 {
            let next = std::sync::atomic::AtomicUsize::new(0);
            let (f, next) = (&f, &next);
            let mut done: Vec<(usize, R)> = std::thread::scope(|s| {
                let workers: Vec<_> = (0..threads)
                    .map(|_| {
                        s.spawn(move || {
                            let mut mine = Vec::new();
                            loop {
                                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                                let Some(item) = items.get(i) else { break };
                                mine.push((i, f(item)));
                            }
                            mine
                        })
                    })
                    .collect();
                workers
                    .into_iter()
                    // a panic in a thread is a bug: pass it on
                    .flat_map(|w| w.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                    .collect()
            });
            done.sort_unstable_by_key(|d| d.0);
            return done.into_iter().map(|d| d.1).collect();
        }
    }
    items.iter().map(f).collect()
}

/// `values` in ascending order (through [`order`]: no sort instance of its own).
pub fn ascending(values: &[usize]) -> Vec<usize> {
    order(values.len(), &|a, b| values[a].cmp(&values[b]))
        .into_iter()
        .map(|i| values[i])
        .collect()
}

/// Sorts grades from the highest down (one instance for every such sort).
pub fn sort_descending(grades: &mut [i32]) {
    grades.sort_unstable_by(|a, b| b.cmp(a));
}

/// A seeded xorshift64 generator, for unit tests' made-up data (the same
/// sequence for the same seed on every machine).
#[doc(hidden)]
pub fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}

#[cfg(test)]
mod named_tests {
    use super::Named;

    fn agrees<
        T: Named + serde::Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
    >() {
        for &v in T::ALL {
            // the name is serde's (JSON output, sessions), and reads back
            assert_eq!(
                serde_json::to_value(v).unwrap(),
                serde_json::json!(v.name())
            );
            assert_eq!(T::named(v.name()), Some(v));
            let back: T = serde_json::from_value(serde_json::json!(v.name())).unwrap();
            assert_eq!(back, v);
        }
        assert_eq!(T::named("no such value"), None);
    }

    #[test]
    fn every_name_is_the_serde_name() {
        use super::*;
        agrees::<ranking::TieRule>();
        agrees::<ranking::QuerySet>();
        agrees::<ranking_metrics::Gain>();
        agrees::<ranking_metrics::Discount>();
        agrees::<ranking_metrics::ApDenominator>();
        agrees::<ranking_metrics::PrecisionDenominator>();
        agrees::<ranking_metrics::F1Aggregation>();
        agrees::<ranking_metrics::TrecEvalVersion>();
        agrees::<multiclass::ClassTieRule>();
        agrees::<multiclass::ScoreScale>();
        agrees::<binary::ThresholdRule>();
        agrees::<binary::ZeroDivision>();
        agrees::<curves::CurveMetric>();
        agrees::<registry::Kind>();
    }
}
