//! Replays every input the fuzzers found (tests/fuzz-regressions/<target>/):
//! each once crashed Rankscope and must now pass without a panic.

use std::path::Path;

fn replay(target: &str, body: fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz-regressions")
        .join(target);
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        body(&std::fs::read(&path).unwrap());
        n += 1;
    }
    assert!(n > 0, "no regression inputs in {}", dir.display());
}

#[test]
fn parse_any_findings_stay_fixed() {
    replay("parse_any", rankscope::robustness::parse_any);
}

#[test]
fn decode_transfer_findings_stay_fixed() {
    replay("decode_transfer", rankscope::robustness::decode_transfer);
}

#[test]
fn import_session_findings_stay_fixed() {
    replay("import_session", rankscope::robustness::import_session);
}
