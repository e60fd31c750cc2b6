//! The command-line tool: `generate --kind parsed` (the file the build puts
//! next to the app, `dist/example.bin`, is the example the page would
//! parse), and `eval` of a large file parsed as two parts at once.

use std::process::Command;

#[test]
fn generate_parsed_writes_the_example_as_the_page_reads_it() {
    let dir = std::env::temp_dir().join(format!("rankscope-cli-{}", std::process::id()));
    let bin = env!("CARGO_BIN_EXE_rankscope");
    let status = Command::new(bin)
        .args([
            "generate", "--preset", "example", "--kind", "parsed", "--out",
        ])
        .arg(&dir)
        .status()
        .unwrap();
    assert!(status.success());
    let written = std::fs::read(dir.join("example.bin")).unwrap();
    assert_eq!(written, rankscope::example::example_parsed());
    assert_eq!(
        rankscope::parse::transfer::decode_many(&written)
            .unwrap()
            .len(),
        rankscope::example::example_files().len()
    );
    // only the bundled example has a parsed form
    let out = Command::new(bin)
        .args(["generate", "--preset", "large", "--kind", "parsed", "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--preset example"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `rankscope eval` of `file`, which must refuse it (exit code 2): what it says.
fn refused(file: &std::path::Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_rankscope"))
        .arg("eval")
        .arg(file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `rankscope eval --format json` of `file`: its models' metrics.
fn metrics(file: &std::path::Path) -> Vec<serde_json::Value> {
    metrics_of(&[file.as_os_str()])
}

/// `rankscope eval --format json` with `args`: its models' metrics.
fn metrics_of(args: &[&std::ffi::OsStr]) -> Vec<serde_json::Value> {
    let out = Command::new(env!("CARGO_BIN_EXE_rankscope"))
        .args(["eval", "--format", "json"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["metrics"].clone())
        .collect()
}

/// A large binary CSV or multi-class matrix is parsed as two parts at once
/// (two threads): the reference file's rows repeated give the reference
/// file's values, and a bad row in each part is reported at its line.
#[test]
fn eval_parses_a_large_file_in_two_parts_with_the_same_values_and_lines() {
    let dir = std::env::temp_dir().join(format!("rankscope-cli-split-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, copies) in [("binary.csv", 8000), ("multiclass_probs.csv", 150)] {
        let small = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/reference")
            .join(name);
        let text = std::fs::read_to_string(&small).unwrap();
        let (header, rows) = text.split_once('\n').unwrap();
        let big = dir.join(name);
        std::fs::write(&big, format!("{header}\n{}", rows.repeat(copies))).unwrap();
        assert!(std::fs::metadata(&big).unwrap().len() >= rankscope::parse::split::SPLIT_MIN);
        let (want, got) = (metrics(&small), metrics(&big));
        assert_eq!(want.len(), got.len());
        for (w, g) in want.iter().zip(&got) {
            let (w, g) = (w.as_object().unwrap(), g.as_object().unwrap());
            assert_eq!(w.len(), g.len(), "{name}");
            for (id, w) in w {
                let (mut w, g) = (w.as_f64(), g[id].as_f64());
                // the confusion counts grow with the copies
                if ["tp", "fp", "tn", "fn"].contains(&id.as_str()) {
                    w = w.map(|w| w * copies as f64);
                }
                let close = match (w, g) {
                    (Some(w), Some(g)) => (w - g).abs() <= 1e-12 * w.abs().max(1.0),
                    _ => w.is_none() && g.is_none(),
                };
                assert!(close, "{name} {id}: {w:?} vs {g:?}");
            }
        }
        // a bad row at the end (the tail's part), at its line in the whole file
        let lines = 1 + rows.lines().count() * copies;
        let bad = dir.join(format!("bad-{name}"));
        std::fs::write(&bad, format!("{header}\n{}x,0.5\n", rows.repeat(copies))).unwrap();
        let err = refused(&bad);
        assert!(err.contains(&format!("bad-{name}:{}:", lines + 1)), "{err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A path that is not a readable file: exit code 2 and a message naming it.
#[test]
fn eval_of_a_path_that_cannot_be_read_names_it() {
    let missing =
        std::env::temp_dir().join(format!("rankscope-cli-missing-{}", std::process::id()));
    for (path, says) in [
        (std::env::temp_dir(), "could not be read"),
        (missing, "cannot read the file"),
    ] {
        let err = refused(&path);
        assert!(
            err.contains(&*path.to_string_lossy()) && err.contains(says),
            "{err}"
        );
    }
}

/// The CLI shares a ranking evaluation out between two threads: every value
/// is the core's own, from one thread, to the last bit.
#[test]
fn eval_of_runs_gives_the_cores_values_exactly() {
    use rankscope::core::{evaluate, registry};
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reference");
    let (run, qrels) = (dir.join("ranking.run"), dir.join("ranking.qrels"));
    let got = metrics_of(&[
        run.as_os_str(),
        "--qrels".as_ref(),
        qrels.as_os_str(),
        "-k".as_ref(),
        "1,5,10".as_ref(),
    ]);
    let mut ws = rankscope::parse::Workspace::default();
    for file in [&qrels, &run] {
        let bytes = std::fs::read(file).unwrap();
        ws.load_bytes(&file.to_string_lossy(), &bytes, &Default::default())
            .unwrap();
    }
    let data = ws.datasets();
    let metrics = registry::default_metrics(registry::Kind::Ranking, &[1, 5, 10]);
    let want = evaluate::evaluate(&data[0], &evaluate::Conventions::default(), &metrics);
    assert_eq!(got.len(), want.models.len());
    for (g, w) in got.iter().zip(&want.models) {
        let g = g.as_object().unwrap();
        assert_eq!(g.len(), want.columns.len());
        assert!(want.columns.len() > 50, "every ranking metric at 3 cutoffs");
        for id in &want.columns {
            let w = w.metrics.get(id).copied().flatten();
            assert_eq!(g[id].as_f64(), w, "{id}");
        }
    }
}
