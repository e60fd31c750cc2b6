//! The bodies of the fuzz targets (`fuzz/`), shared with the regression test
//! that replays every input the fuzzers ever found (`tests/fuzz_regressions.rs`):
//! any bytes through the loader, the workspace and every metric must never panic.

use crate::core::evaluate::{evaluate, Conventions};
use crate::core::ranking::TieRule;
use crate::core::registry;
use crate::parse::{transfer, LoadOptions, Parser, Workspace};

const NAMES: [&str; 8] = [
    "a.run",
    "a.qrels",
    "a.csv",
    "a.json",
    "a.eval",
    "a.txt",
    "a.csv.gz",
    "qrels.json",
];

fn evaluate_all(ws: &Workspace) {
    for d in ws.datasets() {
        let ids = registry::default_metrics(d.kind(), &[1, 3, 10]);
        let _ = evaluate(&d, &Conventions::default(), &ids);
        let averaged = Conventions {
            ties: TieRule::Average,
            ..Conventions::default()
        };
        let _ = evaluate(&d, &averaged, &ids);
    }
}

/// The first byte picks a file name (format hints) and a chunk size; the rest is the file.
pub fn parse_any(data: &[u8]) {
    let Some((&head, body)) = data.split_first() else {
        return;
    };
    let name = NAMES[(head & 7) as usize];
    let chunk = 1 + (head >> 3) as usize * 7;
    let mut ws = Workspace::default();
    // judgments first, so that a run goes all the way through the ranking metrics
    let _ = ws.load_bytes(
        "base.qrels",
        b"q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n",
        &LoadOptions::default(),
    );
    let mut p = Parser::new(name, LoadOptions::default());
    // one input in five also meets the wasm size limits, scaled down to its length
    if body.len() % 5 == 0 {
        let max = 1 + body.len() as u64 / 64;
        p.limit_values(Some(max));
        ws.max_values = Some(ws.values() + max / 2);
    }
    for c in body.chunks(chunk) {
        p.feed(c);
    }
    if let Ok(parsed) = p.finish() {
        let _ = ws.add(name, parsed);
    }
    evaluate_all(&ws);
}

/// Bytes read as a transferred (or saved) data block.
pub fn decode_transfer(data: &[u8]) {
    if let Ok(Ok(parsed)) = transfer::decode(data) {
        let mut ws = Workspace::default();
        let _ = ws.load_bytes(
            "base.qrels",
            b"q1 0 d1 1\nq2 0 d2 1\n",
            &LoadOptions::default(),
        );
        if ws.add("x", parsed).is_ok() {
            evaluate_all(&ws);
        }
    }
}
