//! The code's shape, held: a metric id is written in the registry and
//! nowhere else in the code: the app, the CLI, the Python module
//! (ARCHITECTURE.md, "Add a metric"). Tests may name ids (they are the
//! references); `crates/trec-eval/` is trec_eval 10.0's own measure table,
//! keyed by trec_eval's names, byte for byte.

use rankscope::core::registry::METRICS;
use std::path::{Path, PathBuf};

/// Literals that spell a metric id without naming the metric: (file,
/// literal, how many times, what they are). A count that no longer matches
/// fails too, so the list stays true.
#[rustfmt::skip]
const NOT_METRICS: &[(&str, &str, usize, &str)] = &[
    ("src/app/learn.rs", "precision", 2, "the lesson's page (learn/#precision)"),
    ("src/app/classify.rs", "tp", 1, "a confusion cell's data key"),
    ("src/app/classify.rs", "fn", 1, "a confusion cell's data key"),
    ("src/app/classify.rs", "fp", 1, "a confusion cell's data key"),
    ("src/app/classify.rs", "tn", 1, "a confusion cell's data key"),
    ("crates/core/src/binary.rs", "fn", 1, "the confusion matrix's JSON field"),
    ("src/plot/mod.rs", "recall", 1, "a precision-recall chart's axis title"),
    ("src/plot/mod.rs", "precision", 1, "a precision-recall chart's axis title"),
    ("crates/core/src/conventions.rs", "f1", 1, "the CLI's earlier flag --f1, an alias"),
    ("src/diagnose/mod.rs", "recall", 2, "an operating point's option key (recall ≥ x)"),
    ("src/diagnose/mod.rs", "precision", 2, "an operating point's option key"),
    ("src/diagnose/html.rs", "recall", 1, "an operating point's option input"),
    ("src/diagnose/html.rs", "precision", 1, "an operating point's option input"),
    ("python/src/lib.rs", "judged", 1, "the word in a duplicate-judgment message"),
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a file without its test module and comments.
fn code_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let end = text.find("#[cfg(test)]\nmod tests").unwrap_or(text.len());
    text[..end]
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.split("//").next().unwrap_or_default()))
}

/// The quoted strings of a line that are a metric id, with or without `@k`.
fn quoted_ids<'a>(line: &'a str, ids: &[&str]) -> Vec<&'a str> {
    line.split('"')
        .skip(1)
        .step_by(2)
        .filter(|s| {
            let base = s.split_once('@').map_or(*s, |(b, k)| {
                if !k.is_empty() && k.bytes().all(|c| c.is_ascii_digit()) {
                    b
                } else {
                    ""
                }
            });
            ids.contains(&base)
        })
        .collect()
}

#[test]
fn no_metric_id_is_written_outside_the_registry() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut ids: Vec<&str> = METRICS.iter().map(|m| m.base).collect();
    ids.sort_unstable();
    ids.dedup();
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    rust_files(&root.join("crates"), &mut files);
    rust_files(&root.join("python/src"), &mut files);
    let mut found = Vec::new();
    let mut seen = vec![0; NOT_METRICS.len()];
    for path in files {
        let rel = path
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if rel == "crates/core/src/registry.rs" || rel.starts_with("crates/trec-eval/") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (no, line) in code_lines(&text) {
            for id in quoted_ids(line, &ids) {
                match NOT_METRICS
                    .iter()
                    .position(|&(f, l, _, _)| f == rel && l == id)
                {
                    Some(i) => seen[i] += 1,
                    None => found.push(format!("{rel}:{no}: \"{id}\"")),
                }
            }
        }
    }
    for (&(file, literal, times, what), n) in NOT_METRICS.iter().zip(seen) {
        if n != times {
            found.push(format!(
                "{file}: \"{literal}\" ({what}) {n} times, listed {times}"
            ));
        }
    }
    assert!(
        found.is_empty(),
        "metric ids written outside the registry (use registry::id, or a registry hook):\n{}",
        found.join("\n")
    );
}
