//! Rankscope: evaluation of ranking, recommendation and classification models.
//!
//! Data flows one way: file -> [`parse`] -> [`core`] -> view ([`plot`], the
//! CLI in `src/bin`, and the wasm app in [`app`]).

// The layers below, under the paths they had in this crate.
pub use rankscope_core as core;
pub use rankscope_core::{named, text};
pub use rankscope_io::{catalog, example, parse, trec_format, trec_relations};
pub use rankscope_trec_eval as trec_eval;

pub mod board;
pub mod compare;
pub mod diagnose;
pub mod judgments;
pub mod leaderboard;
pub mod markup;
pub mod math;
pub mod plot;
pub mod report;
pub mod robustness;
pub mod session;
pub mod values;

/// The page↔worker messages (`app::worker`'s protocol), compiled natively
/// too so that its tests run with the others.
#[path = "app/worker/protocol.rs"]
pub mod protocol;

#[cfg(target_arch = "wasm32")]
pub mod app;
