//! Rankscope: evaluation of ranking, recommendation and classification models.
//!
//! Data flows one way: file -> [`parse`] -> [`core`] -> view ([`plot`], the
//! CLI in `src/bin`, and the wasm app in [`app`]).

pub mod compare;
pub mod core;
pub mod diagnose;
pub mod example;
pub mod markup;
pub mod math;
pub mod parse;
pub mod plot;
pub mod report;
pub mod robustness;
pub mod session;
pub mod text;
pub mod trec_eval;
pub mod trec_format;
pub mod values;

/// The page↔worker messages (`app::worker`'s protocol), compiled natively
/// too so that its tests run with the others.
#[path = "app/worker/protocol.rs"]
pub mod protocol;

#[cfg(target_arch = "wasm32")]
pub mod app;
