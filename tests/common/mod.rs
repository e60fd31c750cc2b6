//! Helpers shared by the integration tests.
#![allow(dead_code)]

use rankscope::core::evaluate::{evaluate, Conventions, Dataset, Report};
use rankscope::core::registry::MetricId;
use rankscope::parse::{LoadOptions, Workspace};
use std::path::PathBuf;

pub fn reference_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/reference")
}

pub fn reference(name: &str) -> Vec<u8> {
    std::fs::read(reference_dir().join(name)).unwrap_or_else(|e| panic!("reading {name}: {e}"))
}

pub fn oracle() -> serde_json::Value {
    serde_json::from_slice(&reference("oracle.json")).expect("oracle.json parses")
}

pub fn workspace(files: &[&str]) -> Workspace {
    let mut ws = Workspace::default();
    for f in files {
        ws.load_bytes(f, &reference(f), &LoadOptions::default())
            .unwrap_or_else(|e| panic!("{e}"));
    }
    ws
}

pub fn workspace_from_text(files: &[(&str, &str)]) -> Workspace {
    let mut ws = Workspace::default();
    for (name, text) in files {
        ws.load_bytes(name, text.as_bytes(), &LoadOptions::default())
            .unwrap_or_else(|e| panic!("{e}"));
    }
    ws
}

pub fn only_dataset(ws: &Workspace) -> Dataset<'_> {
    let mut d = ws.datasets();
    assert_eq!(d.len(), 1, "expected exactly one data set");
    d.remove(0)
}

pub fn value(data: &Dataset, conv: &Conventions, id: &str) -> f64 {
    let kind = data.kind();
    let report: Report = evaluate(data, conv, &[MetricId::parse(id, kind).unwrap()]);
    let key = if id == "iprec_at_recall" {
        "iprec_at_recall_0.00".to_string()
    } else {
        id.to_string()
    };
    report.models[0].metrics[&key].unwrap_or_else(|| panic!("{id} undefined"))
}

#[track_caller]
pub fn close(actual: f64, expected: f64, what: &str) {
    assert!(
        (actual - expected).abs() <= 1e-9,
        "{what}: got {actual:.17}, oracle says {expected:.17}"
    );
}

pub fn num(v: &serde_json::Value, path: &[&str]) -> f64 {
    let mut cur = v;
    for p in path {
        cur = cur
            .get(*p)
            .unwrap_or_else(|| panic!("oracle has no {path:?}"));
    }
    cur.as_f64()
        .unwrap_or_else(|| panic!("{path:?} is not a number"))
}

pub fn wvalue(ws: &Workspace, conv: &Conventions, id: &str) -> f64 {
    value(&only_dataset(ws), conv, id)
}
