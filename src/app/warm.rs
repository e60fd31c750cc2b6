//! The page's hot code run on the bundled example, over and over, seconds
//! after the page opens. A browser runs wasm through its baseline compiler
//! first, and optimises a function only once it has run a while, for its
//! later calls. The evaluation of every metric, called once per drop, ran a
//! 10M-line file's drop in baseline code from start to end, at about half
//! the speed of its optimised code. The loading workers warm up the same way
//! (`worker::warm_up`).

use leptos::prelude::*;
use std::hint::black_box;

use super::state::AppState;
use crate::core::binary::BinaryCurve;
use crate::core::curves::{elbow, mean_curve, CurveMetric};
use crate::core::ranking::TieRule;
use crate::core::registry::Kind;
use crate::parse::Workspace;
use crate::plot::display_points;

/// Rounds of the example's ranking (4,800 ranked documents) and binary
/// (1,600 scores) data: enough for the browser to optimise every function a
/// drop runs (measured: each showed optimised in its profile), about 0.1 s.
const ROUNDS: usize = 24;

/// Runs what a drop runs (a split file's curves merged and checked, the runs
/// prepared, every shown metric, the curves, the reciprocal-rank table's
/// values, a tie-rule change) on the `example`, through a scratch state of its
/// own that is dropped after: the page's state is untouched.
pub fn warm_up(example: Workspace) {
    let owner = Owner::new();
    owner.with(|| {
        let state = AppState::new();
        for round in 0..ROUNDS {
            let mut ws = example.clone();
            // each model's curve merged from its halves' (as a large file's)
            if let Some(b) = &mut ws.binary {
                let (labels, half) = (&b.labels, b.labels.len() / 2);
                let curves = b
                    .models
                    .iter()
                    .map(|(_, s)| {
                        let head = BinaryCurve::sorted(&labels[..half], &s[..half]);
                        head.merge(&BinaryCurve::sorted(&labels[half..], &s[half..]))
                    })
                    .collect();
                black_box(b.set_curves(curves).is_ok());
            }
            state.ws.set(ws);
            state
                .conv
                .update(|c| c.ties = [TieRule::Trec, TieRule::File, TieRule::Average][round % 3]);
            black_box(state.report(Kind::Ranking));
            black_box(state.report(Kind::Binary));
            let conv = state.conv.get_untracked();
            for r in state.prepared.get_untracked().iter() {
                black_box(mean_curve(r, &conv, CurveMetric::Ndcg, 100));
                black_box(elbow(r, &conv, CurveMetric::Ndcg, 100));
                for i in 0..r.num_queries() {
                    let q = r.query(i);
                    black_box((q.first_relevant_rank(1), q.reciprocal_rank(None, 1)));
                }
            }
            for p in state.binary.get_untracked().iter() {
                black_box(display_points(&p.curve.roc_points()));
                black_box(display_points(&p.curve.pr_points()));
            }
        }
    });
    drop(owner);
    // for the browser benchmark and the tests: a person drops a file seconds after the page opens
    let _ = js_sys::Reflect::set(
        &js_sys::global(),
        &"rankscopePageWarmedUp".into(),
        &true.into(),
    );
}
