//! The catalogue of malformed inputs: each file must give exactly this error
//! (file:line:column: expected ..., found ...), never a panic, and leave the
//! workspace as it was.

use rankscope::parse::{LoadOptions, Workspace};

/// (file name, contents, forced format id or "", exact error text)
const CASES: &[(&str, &[u8], &str, &str)] = include!("malformed/cases.in");

#[test]
fn every_malformed_file_gives_its_exact_error_and_changes_nothing() {
    let mut failures = Vec::new();
    for (name, bytes, format, expected) in CASES {
        let mut ws = Workspace::default();
        ws.load_bytes(
            "keep.csv",
            b"label,score\n1,0.9\n0,0.1\n",
            &LoadOptions::default(),
        )
        .unwrap();
        let before = format!("{:?}", ws.binary);
        let options = LoadOptions {
            format: rankscope::parse::Format::from_id(format),
            ..Default::default()
        };
        match ws.load_bytes(name, bytes, &options) {
            Ok(s) => failures.push(format!("{name}: loaded ({s:?}), expected an error")),
            Err(e) => {
                if e.to_string() != *expected {
                    failures.push(format!(
                        "{name}:\n  got:      {:?}\n  expected: {expected:?}",
                        e.to_string()
                    ));
                }
            }
        }
        if format!("{:?}", ws.binary) != before || ws.files.len() != 1 {
            failures.push(format!("{name}: the workspace changed"));
        }
    }
    assert!(CASES.len() >= 30, "the catalogue has {} cases", CASES.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
