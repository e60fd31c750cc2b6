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
        let ids = registry::all_metrics(d.kind(), &[1, 3, 10]);
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

/// Bytes imported as a session file. A fuzzer cannot forge a checksum, so an
/// input whose first byte is odd is sealed first (the rest as a version-2
/// payload with its CRC-32: what a crafted session looks like), an even one
/// is read as it is (a damaged file). A session that is accepted must hold a
/// workspace that evaluates without a panic and survives a save and restore
/// unchanged (nothing a session says can change once it is loaded).
pub fn import_session(data: &[u8]) {
    use crate::session::{decode_session, encode_session, SESSION_MAGIC};
    let Some((&head, body)) = data.split_first() else {
        return;
    };
    let sealed;
    let bytes = if head & 1 == 1 {
        let mut s = SESSION_MAGIC.to_vec();
        s.extend_from_slice(
            format!("crc32 {:08x} {}\n", crate::session::crc32(body), body.len()).as_bytes(),
        );
        s.extend_from_slice(body);
        sealed = s;
        &sealed[..]
    } else {
        body
    };
    if let Ok((ws, view, _)) = decode_session(bytes) {
        evaluate_all(&ws);
        let again = encode_session(&ws, &view);
        let (back, view_back, _) = decode_session(&again).expect("a saved session reopens");
        assert_eq!(view_back.to_fragment(), view.to_fragment());
        assert_eq!(
            format!("{:?}", back.to_files()),
            format!("{:?}", ws.to_files())
        );
    }
}
