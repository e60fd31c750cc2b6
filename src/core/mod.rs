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
