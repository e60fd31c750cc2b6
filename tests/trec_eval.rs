//! `rankscope trec_eval` against trec_eval 10.0, byte for byte: the 15
//! command lines of trec_eval's `make quicktest` on its own test files, and
//! 182 recorded cases (generated runs and judgments, damaged files, bad
//! command lines) with the standard output, standard error and exit status
//! of the compiled C program — 41 of them recorded with trec_eval 9.0.8 and
//! run with RANKSCOPE_TREC_EVAL_VERSION=9.0.8. See tests/trec_eval/README.md.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/trec_eval")
}

struct Output {
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    code: i32,
}

fn run(cwd: &Path, args: &[String], stdin: Option<&str>, version: Option<&str>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_rankscope"));
    match version {
        Some(v) => command.env("RANKSCOPE_TREC_EVAL_VERSION", v),
        None => command.env_remove("RANKSCOPE_TREC_EVAL_VERSION"),
    };
    let mut child = command
        .arg("trec_eval")
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("rankscope runs");
    let mut input = child.stdin.take().expect("piped");
    input
        .write_all(stdin.unwrap_or("").as_bytes())
        .expect("stdin written");
    drop(input);
    let out = child.wait_with_output().expect("rankscope ends");
    Output {
        stdout: out.stdout,
        stderr: out.stderr,
        code: out.status.code().unwrap_or(-1),
    }
}

/// `rankscope eval --format trec_eval ARGS` in `cwd`: its standard output
/// (it must succeed).
fn eval_trec_format(cwd: &Path, args: &[String]) -> Vec<u8> {
    let out = Command::new(env!("CARGO_BIN_EXE_rankscope"))
        .args(["eval", "--format", "trec_eval"])
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The first differing line of two outputs, for the failure message.
fn first_difference(expected: &[u8], got: &[u8]) -> String {
    let (e, g) = (
        String::from_utf8_lossy(expected),
        String::from_utf8_lossy(got),
    );
    for (n, (a, b)) in e.lines().zip(g.lines()).enumerate() {
        if a != b {
            return format!("line {}: expected {a:?}, got {b:?}", n + 1);
        }
    }
    format!(
        "lengths differ: expected {} lines, got {}",
        e.lines().count(),
        g.lines().count()
    )
}

/// The output without its `rbp` lines: trec_eval 10.0 computes rbp from
/// uninitialised memory (m_rbp.c normalises gains by a min and a max it
/// never sets), so the recorded cases leave them out. rbp is checked by
/// quicktest (where trec_eval's memory happened to hold benign values) and
/// by its unit tests.
fn without_rbp(stdout: &[u8]) -> Vec<u8> {
    stdout
        .split_inclusive(|&c| c == b'\n')
        .filter(|line| {
            let name = line
                .split(|&c| c == b' ' || c == b'\t')
                .next()
                .unwrap_or_default();
            !(name == b"rbp" || (name.starts_with(b"rbp_") && name.get(4) != Some(&b'r')))
        })
        .flatten()
        .copied()
        .collect()
}

#[test]
fn trec_eval_quicktest_is_byte_identical() {
    let quicktest = std::fs::read_to_string(dir().join("quicktest.txt")).expect("quicktest.txt");
    let lines: Vec<&str> = quicktest.lines().collect();
    assert_eq!(
        lines.len(),
        15,
        "trec_eval's quicktest has 15 command lines"
    );
    let mut failures = Vec::new();
    for line in &lines {
        let (command, expected) = line.split_once("| diff - ").expect("a quicktest line");
        let args: Vec<String> = command
            .split_whitespace()
            .skip(1) // ./trec_eval
            .map(|a| a.strip_prefix("test/").unwrap_or(a).to_string())
            .collect();
        let expected = std::fs::read(dir().join(expected.trim().trim_start_matches("test/")))
            .expect("expected output");
        let out = run(&dir(), &args, None, None);
        if out.stdout != expected || out.code != 0 || !out.stderr.is_empty() {
            failures.push(format!(
                "{command}: {}",
                first_difference(&expected, &out.stdout)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of 15 quicktest lines differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn recorded_cases_match_the_c_program() {
    let text = std::fs::read_to_string(dir().join("cases.json")).expect("cases.json");
    let cases: serde_json::Value = serde_json::from_str(&text).expect("json");
    let cases = cases.as_array().expect("a list");
    assert!(cases.len() >= 182);
    let scratch = std::env::temp_dir().join(format!("rankscope-trec-eval-{}", std::process::id()));
    let mut failures = Vec::new();
    for case in cases {
        let name = case["name"].as_str().expect("name");
        let cwd = scratch.join(name);
        std::fs::create_dir_all(&cwd).expect("scratch dir");
        for (file, content) in case["files"].as_object().expect("files") {
            std::fs::write(cwd.join(file), content.as_str().expect("text")).expect("input written");
        }
        let args: Vec<String> = case["args"]
            .as_array()
            .expect("args")
            .iter()
            .map(|a| a.as_str().expect("arg").to_string())
            .collect();
        let mut out = run(
            &cwd,
            &args,
            case["stdin"].as_str(),
            case["version"].as_str(),
        );
        if case["rbp_left_out"].as_bool() == Some(true) {
            out.stdout = without_rbp(&out.stdout);
        }
        // the C program's bytes were stored as latin-1 code points
        let bytes = |key: &str| -> Vec<u8> {
            case[key]
                .as_str()
                .expect("text")
                .chars()
                .map(|c| c as u8)
                .collect()
        };
        let (stdout, stderr) = (bytes("stdout"), bytes("stderr"));
        let code = case["code"].as_i64().expect("code") as i32;
        if out.stdout != stdout {
            failures.push(format!(
                "{name} stdout: {}",
                first_difference(&stdout, &out.stdout)
            ));
        }
        if out.stderr != stderr {
            failures.push(format!(
                "{name} stderr: expected {:?}, got {:?}",
                String::from_utf8_lossy(&stderr),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        if out.code != code {
            failures.push(format!(
                "{name} exit status: expected {code}, got {}",
                out.code
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(
        failures.is_empty(),
        "{} differences:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// pytrec_eval (which bundles trec_eval 9.0.x) per query, within 1e-9, on
/// every measure it exposes: the reference TREC files, a tie-heavy
/// generated run, and trec_eval's own test run
/// (scripts/pytrec_eval_reference.py wrote tests/trec_eval/pytrec_eval.json).
#[test]
fn pytrec_eval_agrees_per_query_in_9_0_x_mode() {
    use rankscope::trec_eval::{query_values, Version};
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let text = std::fs::read_to_string(dir().join("pytrec_eval.json")).expect("pytrec_eval.json");
    let sets: serde_json::Value = serde_json::from_str(&text).expect("json");
    let mut compared = 0;
    for set in sets.as_array().expect("a list") {
        let path = |key: &str| {
            tests
                .join(set[key].as_str().expect("path"))
                .to_string_lossy()
                .into_owned()
        };
        let args: Vec<String> = ["-q", "-m", "all_trec", &path("qrels"), &path("run")]
            .iter()
            .map(|a| a.to_string())
            .collect();
        let ours = query_values(Version::V9, &args).expect("evaluates");
        let reference = set["values"].as_object().expect("per query");
        for (qid, measures) in reference {
            for (measure, expected) in measures.as_object().expect("measures") {
                let expected = expected.as_f64().expect("number");
                let got = ours
                    .iter()
                    .find(|v| &v.qid == qid && &v.measure == measure)
                    .unwrap_or_else(|| panic!("{measure} for query {qid} of {}", path("run")));
                assert!(
                    (got.value - expected).abs() <= 1e-9,
                    "{measure} of query {qid} ({}): pytrec_eval {expected}, rankscope {}",
                    path("run"),
                    got.value
                );
                compared += 1;
            }
        }
        // every query pytrec_eval evaluates, and no other
        let mut ours_qids: Vec<&str> = ours.iter().map(|v| v.qid.as_str()).collect();
        ours_qids.dedup();
        assert_eq!(ours_qids.len(), reference.len());
    }
    assert!(compared > 4_000, "{compared} values compared");
}

/// `rankscope eval --format trec_eval` (the core's measures, as the page's
/// trec_eval export writes them) prints trec_eval 10.0's official output for
/// trec_eval's test run, and its iprec_at_recall lines follow the
/// `--trec-eval-version` convention: 10.0's rounding by default, 9.0.x's
/// truncation on request, as `rankscope trec_eval` in each version.
#[test]
fn the_core_s_trec_eval_output_follows_the_version_convention() {
    let d = dir();
    let eval = |extra: &[&str]| -> Vec<u8> {
        let mut args: Vec<String> = extra.iter().map(|a| a.to_string()).collect();
        args.extend(["--qrels".into(), "qrels.test".into(), "results.test".into()]);
        eval_trec_format(&d, &args)
    };
    let expected = std::fs::read(d.join("out.test")).expect("out.test");
    assert_eq!(
        String::from_utf8_lossy(&eval(&[])),
        String::from_utf8_lossy(&expected)
    );
    let iprec = |bytes: &[u8]| -> Vec<String> {
        String::from_utf8_lossy(bytes)
            .lines()
            .filter(|l| l.starts_with("iprec_at_recall"))
            .map(String::from)
            .collect()
    };
    let args: Vec<String> = ["-q", "-m", "iprec_at_recall", "qrels.test", "results.test"]
        .map(String::from)
        .to_vec();
    let v10 = iprec(&run(&d, &args, None, None).stdout);
    let v9 = iprec(&run(&d, &args, None, Some("9.0.x")).stdout);
    assert_ne!(v10, v9, "the test run tells the versions apart");
    assert_eq!(iprec(&eval(&["-q"])), v10);
    assert_eq!(iprec(&eval(&["-q", "--trec-eval-version", "9.0.x"])), v9);
}

/// `rankscope eval --format trec_eval -m all_trec` (the core's measures, the
/// registry's trec_eval names) prints what `rankscope trec_eval` prints, but
/// for `relstring` (text, not a metric), on trec_eval's own test files: the
/// binary and the graded judgments (with -1 = pooled, unjudged), per query and
/// `all`, at relevance levels 1 and 2, with `-c`, and for measures outside
/// all_trec; and the registry's table order is trec_eval's.
#[test]
fn the_core_s_trec_eval_output_equals_the_port_s_for_every_measure() {
    let d = dir();
    for t in rankscope::core::registry::TREC_MEASURES {
        let at = rankscope::trec_eval::measures::MEASURES
            .iter()
            .position(|m| m.name == t.name);
        assert_eq!(
            at,
            Some(t.order as usize),
            "{} in trec_eval's table",
            t.name
        );
    }
    let measures = [
        "-m",
        "all_trec",
        "-m",
        "yaap",
        "-m",
        "dcg",
        "-m",
        "ideal_dcg",
        "-m",
        "set",
    ];
    let mut compared = 0;
    for (qrels, results) in [
        ("qrels.test", "results.test"),
        ("qrels.rel_level", "results.test"),
        ("qrels-302.test", "results-302.test"),
    ] {
        for flags in [
            &[][..],
            &["-q"],
            &["-q", "-l2"],
            &["-c", "-l2"],
            &["-q", "-l3"],
        ] {
            let mut args: Vec<String> = flags
                .iter()
                .chain(&measures)
                .map(|a| a.to_string())
                .collect();
            args.extend([qrels.to_string(), results.to_string()]);
            let port = run(&d, &args, None, None);
            assert_eq!(port.code, 0, "{}", String::from_utf8_lossy(&port.stderr));
            let want: String = String::from_utf8_lossy(&port.stdout)
                .lines()
                .filter(|l| !l.starts_with("relstring"))
                .map(|l| format!("{l}\n"))
                .collect();
            let mut eval: Vec<String> = Vec::new();
            for f in flags {
                match f.strip_prefix("-l") {
                    Some(l) if !l.is_empty() => eval.extend(["--relevance-level".into(), l.into()]),
                    _ => eval.push(f.to_string()),
                }
            }
            eval.extend(measures.iter().map(|a| a.to_string()));
            eval.extend(["--qrels".into(), qrels.into(), results.into()]);
            let out = eval_trec_format(&d, &eval);
            let got = String::from_utf8_lossy(&out);
            assert!(
                got == want,
                "{qrels} {results} {flags:?}: {}",
                first_difference(want.as_bytes(), got.as_bytes())
            );
            compared += want.lines().count();
        }
    }
    assert!(compared > 2_000, "{compared} lines compared");
}

/// Relation files travel in sessions (their evaluations, derived, do not),
/// and what their evaluations depend on changes with the runs and the files,
/// not with the evaluations themselves (the page re-evaluates on a change).
#[test]
fn relation_files_travel_in_sessions_and_key_their_evaluations() {
    use rankscope::parse::{LoadOptions, Workspace};
    let d = dir();
    let read = |name: &str| std::fs::read(d.join(name)).unwrap();
    let mut ws = Workspace::default();
    ws.load_bytes(
        "results.test",
        &read("results.test"),
        &LoadOptions::default(),
    )
    .unwrap();
    assert_eq!(ws.relations_key(), 0, "no relation file");
    let summary = ws
        .load_bytes("prefs.test", &read("prefs.test"), &LoadOptions::default())
        .unwrap();
    assert!(
        summary.details[0].contains("-R prefs -m all_prefs"),
        "{summary:?}"
    );
    let key = ws.relations_key();
    assert_ne!(key, 0);
    ws.derived.push(Default::default());
    assert_eq!(ws.relations_key(), key, "its own results change nothing");
    let bytes = rankscope::session::encode_session(&ws, &Default::default());
    let (back, _, _) = rankscope::session::decode_session(&bytes).unwrap();
    assert_eq!(back.relations.len(), 1);
    assert_eq!(back.relations[0].text, ws.relations[0].text);
    assert!(back.derived.is_empty());
    assert_eq!(back.relations_key(), key);
    let mut renamed = ws.clone();
    assert!(renamed.rename(
        rankscope::core::registry::Kind::Ranking,
        "STANDARD",
        "other"
    ));
    assert_ne!(renamed.relations_key(), key);
    ws.load_bytes(
        "zscores_file",
        &read("zscores_file"),
        &LoadOptions::default(),
    )
    .unwrap();
    assert_ne!(ws.relations_key(), key);
}

/// The values of trec_eval `-q` output as printed: (measure, query) → the
/// last value printed for it, numbers only (`runid`, quoted text and nan
/// left out), read with nothing but `str` splitting and `f64::parse`.
fn printed_values(text: &str) -> Printed {
    let mut values = std::collections::BTreeMap::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() != 3 {
            continue;
        }
        let (m, q, v) = (f[0].trim(), f[1], f[2].trim());
        if m == "runid" || v.starts_with('\'') || v.ends_with("nan") {
            continue;
        }
        values.insert((m.to_string(), q.to_string()), v.parse::<f64>().unwrap());
    }
    values
}

/// `rankscope` with `args` in `cwd`, which must succeed: its output and its warnings.
fn rankscope_ok(cwd: &Path, args: &[&str]) -> (Vec<u8>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_rankscope"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{args:?}: {stderr}");
    (out.stdout, stderr)
}

type Printed = std::collections::BTreeMap<(String, String), f64>;

/// The means of `measure`'s per-query values (not `all`) as printed, over
/// the queries both files have (a paired test's units), and their count.
fn paired_means(a: &Printed, b: &Printed, measure: &str) -> (usize, f64, f64) {
    let pairs: Vec<(f64, f64)> = a
        .iter()
        .filter(|((m, q), _)| m == measure && q != "all")
        .filter_map(|(k, &x)| Some((x, *b.get(k)?)))
        .collect();
    let n = pairs.len();
    let mean = |f: fn(&(f64, f64)) -> f64| pairs.iter().map(f).sum::<f64>() / n as f64;
    (n, mean(|p| p.0), mean(|p| p.1))
}

/// `rankscope compare A B --metrics M --format json` in `cwd` against the
/// files' own per-query values: each pair has the files' queries and means.
fn compare_reads(cwd: &Path, a: &str, b: &str, measures: &[&str]) {
    let text = |f: &str| std::fs::read_to_string(cwd.join(f)).unwrap();
    let (va, vb) = (printed_values(&text(a)), printed_values(&text(b)));
    let metrics = measures.join(",");
    let (out, _) = rankscope_ok(
        cwd,
        &["compare", a, b, "--metrics", &metrics, "--format", "json"],
    );
    let json: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let comparisons = json["comparisons"].as_array().unwrap();
    assert_eq!(comparisons.len(), measures.len(), "{a} {b}");
    for (c, m) in comparisons.iter().zip(measures) {
        assert_eq!(c["metric"], *m);
        let (n, mean_a, mean_b) = paired_means(&va, &vb, m);
        assert!(n >= 2, "{a} {b} {m}: {n} queries in common");
        let p = &c["paired"];
        assert_eq!(p["n"].as_u64(), Some(n as u64), "{a} {b} {m}");
        assert!(
            (p["mean_a"].as_f64().unwrap() - mean_a).abs() < 1e-12,
            "{a} {m}: {p}"
        );
        assert!(
            (p["mean_b"].as_f64().unwrap() - mean_b).abs() < 1e-12,
            "{b} {m}: {p}"
        );
    }
}

/// trec_eval's own `-q -m all_trec` output (upstream's `out.test.aq` and
/// `out.test.aqc`, unchanged) is read by `rankscope eval` and `rankscope
/// compare`: every number as printed (the counts too), the runid naming the
/// model, relstring's quoted text set aside with a note. So is every other
/// output of trec_eval's test suite: `-Z`'s `Z`-prefixed names, `-m`'s
/// parameters in a measure's name (`utility_2,-1,0,0`, `ndcg_1=3,2=9,4=4.5`),
/// `relstring_20`, preferences and judgment groups.
#[test]
fn trec_eval_q_output_is_read_by_eval_and_compare() {
    let d = dir();
    for file in ["out.test.aq", "out.test.aqc"] {
        let printed = printed_values(&std::fs::read_to_string(d.join(file)).unwrap());
        let (out, _) = rankscope_ok(&d, &["eval", file, "--format", "json"]);
        let json: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert!(
            json["warnings"][0]
                .as_str()
                .unwrap()
                .contains("relstring (3 lines): text in quotes, not values"),
            "{}",
            json["warnings"]
        );
        let model = &json["models"][0];
        assert_eq!(model["name"], "STANDARD", "the runid names the model");
        let metrics = model["metrics"].as_object().unwrap();
        let all: Vec<_> = printed.iter().filter(|((_, q), _)| q == "all").collect();
        assert!(all.len() > 90, "{file}: {}", all.len());
        for ((m, _), v) in all {
            assert_eq!(metrics[m].as_f64(), Some(*v), "{file}: {m}");
        }
        assert_eq!(metrics["num_q"].as_f64(), Some(3.0));
    }
    compare_reads(
        &d,
        "out.test.aq",
        "out.test.aqc",
        &["map", "P_10", "num_rel_ret", "ndcg_cut_10"],
    );
    let outputs: Vec<String> = std::fs::read_dir(&d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|f| f.starts_with("out."))
        .collect();
    assert_eq!(outputs.len(), 12, "{outputs:?}");
    for file in &outputs {
        let printed = printed_values(&std::fs::read_to_string(d.join(file)).unwrap());
        let (out, _) = rankscope_ok(&d, &["eval", file, "--format", "json"]);
        let json: serde_json::Value = serde_json::from_slice(&out).unwrap();
        let metrics = json["models"][0]["metrics"].as_object().unwrap().clone();
        for ((m, q), v) in &printed {
            if q == "all" {
                assert_eq!(metrics[m].as_f64(), Some(*v), "{file}: {m}");
            }
        }
    }
}

/// The port's `-q` output round-trips into `rankscope compare` in both
/// versions it writes: 10.0's and 9.0.x's (`RANKSCOPE_TREC_EVAL_VERSION`),
/// with and without `-c`, over all_trec's measures.
#[test]
fn the_ports_q_output_round_trips_into_compare_in_10_0_and_9_0_x() {
    let d = dir();
    let scratch = std::env::temp_dir().join(format!("rankscope-teq-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    for version in [None, Some("9.0.8")] {
        let args = |extra: &[&str], results: &str| -> Vec<String> {
            let mut a: Vec<String> = ["-q", "-m", "all_trec", "-m", "relstring.5"]
                .iter()
                .chain(extra)
                .map(|s| s.to_string())
                .collect();
            a.extend(["qrels.test".into(), results.into()]);
            a
        };
        let tag = version.unwrap_or("10.0");
        for (name, extra, results) in [
            ("full", &[][..], "results.test"),
            ("trunc", &["-c"][..], "results.trunc"),
        ] {
            let out = run(&d, &args(extra, results), None, version);
            assert_eq!(out.code, 0, "{}", String::from_utf8_lossy(&out.stderr));
            let text = String::from_utf8(out.stdout).unwrap();
            assert!(text.contains("relstring_5"), "{tag}");
            std::fs::write(scratch.join(format!("{name}-{tag}.teq")), text).unwrap();
        }
        compare_reads(
            &scratch,
            &format!("full-{tag}.teq"),
            &format!("trunc-{tag}.teq"),
            &[
                "map",
                "ndcg",
                "P_5",
                "num_ret",
                "iprec_at_recall_0.10",
                "11pt_avg",
            ],
        );
    }
    std::fs::remove_dir_all(&scratch).unwrap();
}

/// Every output the compiled trec_eval 10.0 and 9.0.8 wrote in the
/// recorded cases (`cases.json`: all_trec, -c, -J, -M, -l, parameters,
/// preferences, judgment groups; `-nan` values among them) is detected as
/// trec_eval output and read: each number as printed, each nan undefined.
#[test]
fn every_recorded_trec_eval_output_reads_back() {
    use rankscope::parse::{parse_bytes, LoadOptions, Parsed};
    let text = std::fs::read_to_string(dir().join("cases.json")).expect("cases.json");
    let cases: serde_json::Value = serde_json::from_str(&text).expect("json");
    let (mut read, mut nan) = (0, 0);
    for case in cases.as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let stdout = case["stdout"].as_str().unwrap();
        let printed = printed_values(stdout);
        if case["code"] != 0
            || printed.is_empty()
            || stdout.lines().any(|l| l.split('\t').count() != 3)
        {
            continue;
        }
        let parsed = parse_bytes(
            &format!("{name}.teq"),
            stdout.as_bytes(),
            &LoadOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        let (data, notes) = parsed.into_parts();
        let Parsed::Measures(p) = data else {
            panic!("{name}: not read as trec_eval output")
        };
        for ((m, q), v) in &printed {
            assert_eq!(p.get(m, q), Some(*v), "{name}: {m} {q}");
        }
        for line in stdout.lines().filter(|l| l.ends_with("nan")) {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(p.get(f[0].trim(), f[1]), None, "{name}: {line}");
            assert!(
                notes.iter().any(|n| n.contains("printed as nan")),
                "{name}: {notes:?}"
            );
            nan += 1;
        }
        read += 1;
    }
    assert!(read >= 119, "{read} outputs read");
    assert!(nan >= 10, "{nan} nan values");
}
