//! The metric core: pure Rust, no web dependency. Built natively for tests,
//! benchmarks and the CLI, and to wasm for the page.

pub mod binary;
pub mod curves;
pub mod evaluate;
pub mod explain;
pub mod ids;
pub mod multiclass;
pub mod ranking;
pub mod ranking_metrics;
pub mod ratings;
pub mod raw;
pub mod registry;
pub mod sum;

/// Exact powers of ten, 10^0 to 10^22 (every one is a double): the divisors
/// of a decimal read as `m / 10^k` (the parser's fast path, the binary
/// curve's counting path).
pub(crate) const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// Sorts grades from the highest down (one instance for every such sort).
pub fn sort_descending(grades: &mut [i32]) {
    grades.sort_unstable_by(|a, b| b.cmp(a));
}

/// A seeded xorshift64 generator, for unit tests' made-up data (the same
/// sequence for the same seed on every machine).
#[cfg(test)]
pub(crate) fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}
