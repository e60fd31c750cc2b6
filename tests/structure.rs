//! The code's shape, held: a metric id is written in the registry and
//! nowhere else in the code: the app, the CLI, the Python module
//! (ARCHITECTURE.md, "Add a metric"). Tests may name ids (they are the
//! references); `crates/trec-eval/` is trec_eval 10.0's own measure table,
//! keyed by trec_eval's names, byte for byte. Every Rust file opens with a
//! module doc line, and ARCHITECTURE.md names only paths that exist.

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

/// Every Rust file opens with a `//!` line saying what it is (a generated
/// file too: its generator writes the line).
#[test]
fn every_rust_file_opens_with_a_module_doc_line() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in [
        "crates",
        "src",
        "tests",
        "benches",
        "python/src",
        "fuzz/fuzz_targets",
    ] {
        rust_files(&root.join(dir), &mut files);
    }
    let missing: Vec<String> = files
        .iter()
        .filter(|p| !p.components().any(|c| c.as_os_str() == "target"))
        .filter(|p| {
            let text = std::fs::read_to_string(p).unwrap();
            !text.lines().next().is_some_and(|l| l.starts_with("//!"))
        })
        .map(|p| p.strip_prefix(&root).unwrap().display().to_string())
        .collect();
    assert!(files.len() > 100, "{} Rust files found", files.len());
    assert!(
        missing.is_empty(),
        "files without a `//!` first line:\n{}",
        missing.join("\n")
    );
}

/// The paths a Markdown text names in backticks that do not exist: a token
/// is a path when it holds a `/` or ends in a file extension, and is looked
/// up from the repository's root or, under a `###` heading that names a
/// folder (`` ### `crates/core/src/` ``), from that folder. Patterns (`*`,
/// `<name>`) and code blocks are left out.
fn missing_paths(text: &str, root: &Path) -> Vec<String> {
    const EXTENSIONS: &[&str] = &[
        ".rs", ".md", ".toml", ".sh", ".mjs", ".py", ".html", ".ipynb", ".in", ".json",
    ];
    let (mut base, mut in_code, mut missing) = (String::new(), false, Vec::new());
    for (no, line) in text.lines().enumerate() {
        if line.starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        let tokens: Vec<&str> = line.split('`').skip(1).step_by(2).collect();
        if line.starts_with("## ") {
            base.clear();
        } else if line.starts_with("### ") {
            base = tokens
                .iter()
                .find(|t| t.ends_with('/'))
                .map_or(String::new(), |t| t.to_string());
        }
        for token in tokens {
            let is_path = token.contains('/') || EXTENSIONS.iter().any(|e| token.ends_with(e));
            if !is_path || token.contains(['*', '<', '{', ' ', '…', '(']) || token.contains("://")
            {
                continue;
            }
            let path = token.trim_end_matches('/');
            if !root.join(path).exists() && !root.join(&base).join(path).exists() {
                missing.push(format!("line {}: `{token}`", no + 1));
            }
        }
    }
    missing
}

/// ARCHITECTURE.md names only paths that exist, and stays a short reference.
#[test]
fn architecture_names_only_paths_that_exist() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let missing = missing_paths(&text, &root);
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names paths that do not exist:\n{}",
        missing.join("\n")
    );
    assert!(
        text.len() < 15_000,
        "ARCHITECTURE.md is {} bytes; it is a reference of at most 15 KB",
        text.len()
    );
    // the check sees a path that is not there, under a heading's folder too
    let probe = "`src/nowhere.rs`\n### `crates/core/src/`\n- `sum.rs`, `gone.rs`\n";
    assert_eq!(
        missing_paths(probe, &root),
        ["line 1: `src/nowhere.rs`", "line 3: `gone.rs`"]
    );
}
