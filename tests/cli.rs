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

/// `rankscope` with `args` (a command first), which must succeed: its output.
fn stdout_of<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Vec<u8> {
    let out = Command::new(env!("CARGO_BIN_EXE_rankscope"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// `rankscope` with `args` (a command first), which must succeed: its JSON output.
fn json_of(args: &[&std::ffi::OsStr]) -> serde_json::Value {
    serde_json::from_slice(&stdout_of(args)).unwrap()
}

/// `rankscope eval --format json` with `args`: its models' metrics.
fn metrics_of(args: &[&std::ffi::OsStr]) -> Vec<serde_json::Value> {
    let args: Vec<&std::ffi::OsStr> = ["eval".as_ref(), "--format".as_ref(), "json".as_ref()]
        .into_iter()
        .chain(args.iter().copied())
        .collect();
    let v = json_of(&args);
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

fn reference(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/reference")
        .join(name)
}

fn scratch(what: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("rankscope-cli-{what}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `rankscope eval` run by bash (`script` is the shell command line): its
/// exit code, stdout and stderr.
fn shell(script: &str) -> (Option<i32>, String, String) {
    let out = Command::new("bash")
        .arg("-c")
        .arg(script)
        .env("RANKSCOPE", env!("CARGO_BIN_EXE_rankscope"))
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Standard input (`-`) and pipes (process substitution) are read as the
/// file itself is, not as empty files.
#[test]
fn eval_reads_standard_input_and_pipes() {
    let (run, qrels) = (reference("ranking.run"), reference("ranking.qrels"));
    let from_file = metrics_of(&[run.as_os_str(), "--qrels".as_ref(), qrels.as_os_str()]);
    let q = qrels.to_string_lossy();
    let r = run.to_string_lossy();
    for script in [
        format!("\"$RANKSCOPE\" eval --format json - --qrels '{q}' < '{r}'"),
        format!("cat '{r}' | \"$RANKSCOPE\" eval --format json --qrels '{q}' -"),
        format!("\"$RANKSCOPE\" eval --format json <(cat '{r}') --qrels <(cat '{q}')"),
        format!("\"$RANKSCOPE\" eval --format json <(gzip -c '{r}') --qrels '{q}'"),
    ] {
        let (code, out, err) = shell(&script);
        assert_eq!(code, Some(0), "{script}: {err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let got: Vec<_> = v["models"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["metrics"].clone())
            .collect();
        assert_eq!(got, from_file, "{script}");
    }
    // standard input once only
    let (code, _, err) = shell(&format!("\"$RANKSCOPE\" eval - - < '{r}'"));
    assert_eq!(code, Some(2));
    assert!(err.contains("only once"), "{err}");
}

/// A TREC run whose tag holds a comma or semicolon is a TREC run, not a CSV.
#[test]
fn a_trec_run_with_commas_in_its_tag_is_a_trec_run() {
    let dir = scratch("tags");
    let text = std::fs::read_to_string(reference("ranking.run")).unwrap();
    let plain = metrics_of(&[
        reference("ranking.run").as_os_str(),
        "--qrels".as_ref(),
        reference("ranking.qrels").as_os_str(),
    ]);
    for tag in ["bm25,k1=0.9", "run;v2", "a,b;c"] {
        let tagged = dir.join("tagged.txt");
        std::fs::write(&tagged, text.replace(" bench\n", &format!(" {tag}\n"))).unwrap();
        let got = metrics_of(&[
            tagged.as_os_str(),
            "--qrels".as_ref(),
            reference("ranking.qrels").as_os_str(),
        ]);
        assert_eq!(got, plain, "{tag}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Names, ids and headers from files never reach a terminal as control
/// characters: the table, warnings and errors show them escaped.
#[test]
fn control_characters_from_files_are_escaped_for_terminals() {
    let dir = scratch("escapes");
    // a header that would set the terminal's title and clear the screen
    let evil = dir.join("evil.csv");
    std::fs::write(
        &evil,
        "label,\x1b]0;pwned\x07\x1b[2J,x\u{202e}y\r\n1,0.9,0.1\n0,0.2,0.8\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_rankscope"))
        .args(["eval"])
        .arg(&evil)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("\\x1b]0;pwned\\x07\\x1b[2J"), "{stdout}");
    assert!(stdout.contains("x\\u{202e}y"), "{stdout}");
    for c in ['\x1b', '\x07', '\r', '\u{202e}'] {
        assert!(!stdout.contains(c), "{c:?} in {stdout}");
    }
    // the unknown-header error echoes the header escaped
    let bad = dir.join("bad.csv");
    std::fs::write(&bad, "a\x1b[2Jb,c\n1,2\n").unwrap();
    let err = refused(&bad);
    assert!(err.contains("a\\x1b[2Jb"), "{err}");
    assert!(!err.contains('\x1b'), "{err}");
    // a query id with a carriage return in trec_eval's -q lines, on a terminal
    let run = dir.join("cr.run");
    std::fs::write(&run, "q1\rFAKE Q0 d1 1 0.9 t\n").unwrap();
    let qrels = dir.join("cr.qrels");
    std::fs::write(&qrels, "q1\rFAKE 0 d1 1\n").unwrap();
    let args = format!(
        "\"$RANKSCOPE\" eval --format trec_eval -q -m P.1 '{}' --qrels '{}'",
        run.display(),
        qrels.display()
    );
    // piped: trec_eval's bytes exactly
    let (code, piped, _) = shell(&args);
    assert_eq!(code, Some(0));
    assert!(piped.contains("q1\rFAKE"), "{piped:?}");
    // on a terminal (a pseudo-terminal from util-linux's script): escaped
    if std::path::Path::new("/usr/bin/script").exists() {
        let (code, shown, _) = shell(&format!("script -qec {} /dev/null", shell_quote(&args)));
        assert_eq!(code, Some(0));
        assert!(shown.contains("q1\\x0dFAKE"), "{shown:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `rankscope trec_eval` on a terminal shows the query ids and run tags of
/// its files escaped, as every other command does (an OSC title change, a
/// screen clear and a right-to-left override in them act on nothing), and
/// writes trec_eval's bytes exactly when piped.
#[test]
fn trec_eval_escapes_ids_and_run_tags_on_a_terminal() {
    let dir = scratch("trec-eval-tty");
    let run = dir.join("evil.run");
    let tag = "t\x1b]0;pwned\x07";
    let qid = "q\x1b[2J\u{202e}1";
    std::fs::write(&run, format!("{qid} Q0 d1 1 0.9 {tag}\n")).unwrap();
    let qrels = dir.join("evil.qrels");
    std::fs::write(&qrels, format!("{qid} 0 d1 1\n")).unwrap();
    let args = format!(
        "\"$RANKSCOPE\" trec_eval -q -m runid -m P.1 '{}' '{}'",
        qrels.display(),
        run.display()
    );
    let (code, piped, _) = shell(&args);
    assert_eq!(code, Some(0));
    assert!(
        piped.contains(&format!("P_1                   \t{qid}\t1.0000\n")),
        "{piped:?}"
    );
    assert!(
        piped.contains(&format!("runid                 \tall\t{tag}\n")),
        "{piped:?}"
    );
    // on a terminal (a pseudo-terminal from util-linux's script)
    assert!(
        std::path::Path::new("/usr/bin/script").exists(),
        "util-linux's script"
    );
    let (code, shown, _) = shell(&format!("script -qec {} /dev/null", shell_quote(&args)));
    assert_eq!(code, Some(0));
    assert!(shown.contains("\tq\\x1b[2J\\u{202e}1\t1.0000"), "{shown:?}");
    assert!(shown.contains("\tall\tt\\x1b]0;pwned\\x07"), "{shown:?}");
    for c in ['\x1b', '\x07', '\u{202e}'] {
        assert!(!shown.contains(c), "{c:?} in {shown:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Why `doc` is not a LaTeX table that `\input` can read, if it is not: its
/// first byte starts a comment or the tabular; outside comments every
/// command is one the exports write, every special character escaped or in
/// math, math closed on its line, braces balanced, only ASCII (pdflatex's
/// text fonts have no `−` or `ρ`).
fn latex_problem(doc: &str) -> Option<String> {
    const COMMANDS: &[&str] = &[
        "begin",
        "end",
        "hline",
        "textbf",
        "par",
        "footnotesize",
        "textbackslash",
        "textasciitilde",
        "textasciicircum",
        "textless",
        "textgreater",
        "dagger",
        "pm",
        "blacktriangle",
        "blacktriangledown",
        "rho",
        "tau",
        "alpha",
        "beta",
        "cdot",
        "times",
        "le",
        "ge",
    ];
    if !(doc.starts_with('%') || doc.starts_with("\\begin{tabular}")) {
        return Some(format!("starts with {:?}", doc.lines().next()));
    }
    let mut depth = 0i64;
    for (n, line) in doc.lines().enumerate() {
        let mut math = false;
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '%' => break,
                '\\' => match chars.peek().copied() {
                    Some(a) if a.is_ascii_alphabetic() => {
                        let mut name = String::new();
                        while let Some(&a) = chars.peek().filter(|a| a.is_ascii_alphabetic()) {
                            name.push(a);
                            chars.next();
                        }
                        if !COMMANDS.contains(&name.as_str()) {
                            return Some(format!("line {}: \\{name}", n + 1));
                        }
                    }
                    Some('&' | '%' | '$' | '#' | '_' | '{' | '}' | '\\') => {
                        chars.next();
                    }
                    other => return Some(format!("line {}: \\ then {other:?}", n + 1)),
                },
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth < 0 {
                        return Some(format!("line {}: a }} closes nothing", n + 1));
                    }
                }
                '$' => math = !math,
                '#' | '_' | '^' | '~' if !math => {
                    return Some(format!("line {}: {c} outside math", n + 1))
                }
                c if !c.is_ascii() => return Some(format!("line {}: {c:?}", n + 1)),
                _ => {}
            }
        }
        if math {
            return Some(format!("line {}: math left open", n + 1));
        }
    }
    (depth != 0).then(|| format!("{depth} braces left open"))
}

/// Why `doc` is not a Markdown table with its note, if it is not: an HTML
/// comment on the first line (no `--` inside it), then the table (a header,
/// its delimiter row, rows of as many cells; no HTML), then the note.
fn markdown_problem(doc: &str) -> Option<String> {
    let mut lines = doc.lines();
    let first = lines.next().unwrap_or_default();
    let inner = first.strip_prefix("<!--")?.strip_suffix("-->");
    match inner {
        Some(inner) if !inner.contains("--") && !inner.starts_with('>') => {}
        _ => return Some(format!("first line {first:?}")),
    }
    let cells = |l: &str| {
        let mut n = 0;
        let mut escaped = false;
        for c in l.chars() {
            n += usize::from(c == '|' && !escaped);
            escaped = c == '\\' && !escaped;
        }
        n
    };
    let table: Vec<&str> = lines.by_ref().take_while(|l| l.starts_with('|')).collect();
    if table.len() < 3 {
        return Some(format!("{} table lines", table.len()));
    }
    let delimiter = table[1].trim_matches('|').split('|');
    if !delimiter.into_iter().all(|c| c == "---" || c == "---:") {
        return Some(format!("delimiter row {:?}", table[1]));
    }
    if let Some(l) = table
        .iter()
        .find(|l| cells(l) != cells(table[0]) || l.contains('<'))
    {
        return Some(format!("row {l:?}"));
    }
    let rest: Vec<&str> = lines.collect();
    match rest[..] {
        [note] if note.starts_with('*') && note.ends_with('*') && !note.contains('<') => None,
        _ => Some(format!("after the table: {rest:?}")),
    }
}

/// `rankscope eval --format latex > t.tex` and `--format markdown` are valid
/// in their language from their first byte: the conventions in force head
/// them as a LaTeX comment and an HTML comment (a name that would end the
/// comment broken), the note follows the table; the LaTeX table compiles in
/// a minimal document where pdflatex is installed.
#[test]
fn latex_and_markdown_are_valid_from_their_first_byte() {
    let dir = scratch("paper-tables");
    let binary = dir.join("names.csv");
    std::fs::write(
        &binary,
        "label,a--><b>x,m_1%#{}\n1,0.9,0.2\n0,0.3,0.7\n1,0.6,0.4\n0,0.1,0.5\n",
    )
    .unwrap();
    let (run, qrels) = (reference("ranking.run"), reference("ranking.qrels"));
    let (run, qrels, binary) = (
        run.to_str().unwrap(),
        qrels.to_str().unwrap(),
        binary.to_str().unwrap(),
    );
    let cases: [&[&str]; 5] = [
        &[
            "eval",
            run,
            "--qrels",
            qrels,
            "--gain",
            "exponential",
            "-m",
            "all",
        ],
        &["eval", run, "--qrels", qrels, "--group", "all=*"],
        &["eval", binary, "--threshold", "a--><b>x=0.3", "-m", "all"],
        &["eval", &reference_str("multiclass_probs.csv"), "-m", "all"],
        &["eval", &reference_str("ratings.csv"), "-m", "all"],
    ];
    let pdflatex = std::path::Path::new("/usr/bin/pdflatex").exists();
    for (i, args) in cases.iter().enumerate() {
        for format in ["latex", "markdown"] {
            let mut args = args.to_vec();
            args.extend(["--format", format]);
            let out = String::from_utf8(stdout_of(&args)).unwrap();
            let problem = match format {
                "latex" => latex_problem(&out),
                _ => markdown_problem(&out),
            };
            assert_eq!(problem, None, "{args:?}:\n{out}");
            if format == "latex" && pdflatex {
                std::fs::write(dir.join(format!("t{i}.tex")), &out).unwrap();
                std::fs::write(
                    dir.join("doc.tex"),
                    format!("\\documentclass{{article}}\n\\usepackage{{amssymb}}\n\\begin{{document}}\n\\input{{t{i}.tex}}\n\\end{{document}}\n"),
                )
                .unwrap();
                let compiled = Command::new("pdflatex")
                    .args(["-interaction=nonstopmode", "-halt-on-error", "doc.tex"])
                    .current_dir(&dir)
                    .output()
                    .unwrap();
                assert!(
                    compiled.status.success(),
                    "{args:?}:\n{}",
                    String::from_utf8_lossy(&compiled.stdout)
                );
            }
        }
    }
    // the first line names the kind and every convention in force
    let head = String::from_utf8(stdout_of(&[
        "eval",
        binary,
        "--threshold",
        "a--><b>x=0.3",
        "--format",
        "markdown",
    ]))
    .unwrap();
    assert!(
        head.starts_with("<!-- binary classification · threshold=0.5 ")
            && head
                .lines()
                .next()
                .unwrap()
                .contains("thresholds=a- -><b>x=0.3 -->"),
        "{head}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

fn reference_str(name: &str) -> String {
    reference(name).to_string_lossy().into_owned()
}

/// README's claim, read from README: "The CLI writes names and ids from
/// files with control and bidirectional characters escaped on a terminal
/// (its table and messages always; OUTPUTS keep their bytes when piped)".
/// Each output it names keeps a screen clear in a query id when piped and
/// shows it escaped on a terminal; the table escapes it piped too.
#[test]
fn readme_s_terminal_claim_holds_for_every_output_it_names() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .unwrap()
        .replace('\n', " ");
    let claim = "The CLI writes names and ids from files with control and bidirectional characters escaped on a terminal (its table and messages always; ";
    let at = readme.find(claim).expect("README states the claim") + claim.len();
    let listed = &readme[at..at + readme[at..].find("keep their bytes when piped)").unwrap()];
    let named: Vec<&str> = listed.split('`').skip(1).step_by(2).collect();
    assert!(named.len() >= 3, "{listed}");
    let dir = scratch("readme-terminal");
    let qid = "q\x1b[2J1";
    let (run, qrels) = (dir.join("r.run"), dir.join("q.qrels"));
    // the run's tag (its model name) sets the terminal's title
    std::fs::write(&run, format!("{qid} Q0 d1 1 0.9 t\x1b]0;x\x07\n")).unwrap();
    std::fs::write(&qrels, format!("{qid} 0 d1 1\n")).unwrap();
    let (run, qrels) = (run.display(), qrels.display());
    assert!(
        std::path::Path::new("/usr/bin/script").exists(),
        "util-linux's script"
    );
    for output in named {
        let args = match output {
            "rankscope trec_eval" => format!("\"$RANKSCOPE\" trec_eval -q '{qrels}' '{run}'"),
            "--format trec_eval" => {
                format!("\"$RANKSCOPE\" eval --format trec_eval -q '{run}' --qrels '{qrels}'")
            }
            "--format csv" => format!(
                "\"$RANKSCOPE\" eval --format csv --per-query -m precision@1 '{run}' --qrels '{qrels}'"
            ),
            other => panic!("README names {other}: add it here"),
        };
        let (code, piped, _) = shell(&args);
        assert_eq!(code, Some(0), "{output}");
        assert!(piped.contains(qid), "{output}: {piped:?}");
        let (code, shown, _) = shell(&format!("script -qec {} /dev/null", shell_quote(&args)));
        assert_eq!(code, Some(0), "{output}");
        assert!(
            shown.contains("q\\x1b[2J1") && !shown.contains('\x1b'),
            "{output}: {shown:?}"
        );
    }
    // the table, piped or not
    let (code, table, _) = shell(&format!(
        "\"$RANKSCOPE\" eval -m precision@1 '{run}' --qrels '{qrels}' 2>&1"
    ));
    assert_eq!(code, Some(0));
    assert!(
        table.contains("t\\x1b]0;x\\x07") && !table.contains('\x1b'),
        "{table:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// A gzip bomb: inflated in bounded pieces (the CLI stays within 600 MB of
/// address space where the whole 1 GB of text was once held) and refused at
/// the stated limit, naming the file and the flag that raises it.
#[test]
fn a_gzip_bomb_is_refused_in_bounded_memory() {
    use std::io::Write;
    let dir = scratch("bomb");
    // one gzip member of 16 MiB of newlines, repeated: 1 GiB of text in ~1 MB
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(&vec![b'\n'; 16 << 20]).unwrap();
    let member = e.finish().unwrap();
    let bomb = dir.join("bomb.csv.gz");
    std::fs::write(&bomb, member.repeat(64)).unwrap();
    let (code, _, err) = shell(&format!(
        "ulimit -v 600000; \"$RANKSCOPE\" eval --max-inflated 64M '{}'",
        bomb.display()
    ));
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("bomb.csv.gz:"), "{err}");
    assert!(
        err.contains("at most 67,108,864 bytes of text (64 MiB)"),
        "{err}"
    );
    assert!(err.contains("--max-inflated"), "{err}");
    // the limit is the CLI's to set; a bad size is refused
    let (code, _, err) = shell(&format!(
        "\"$RANKSCOPE\" eval --max-inflated lots '{}'",
        bomb.display()
    ));
    assert_eq!(code, Some(2));
    assert!(err.contains("expected a size"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// UTF-16 files are named as such, and echoed input is capped.
#[test]
fn utf16_files_and_huge_headers_get_short_clear_errors() {
    let dir = scratch("utf16");
    let text = "label,score\n1,0.9\n0,0.1\n";
    let mut le = vec![0xFF, 0xFE];
    le.extend(text.encode_utf16().flat_map(|u| u.to_le_bytes()));
    let no_bom: Vec<u8> = text.encode_utf16().flat_map(|u| u.to_le_bytes()).collect();
    for (name, bytes) in [("le.csv", le), ("nobom.csv", no_bom)] {
        let f = dir.join(name);
        std::fs::write(&f, bytes).unwrap();
        let err = refused(&f);
        assert!(err.contains("UTF-16: save the file as UTF-8"), "{err}");
    }
    let huge = dir.join("huge.csv");
    std::fs::write(&huge, format!("{}\n1\n", "h".repeat(12 << 20))).unwrap();
    let err = refused(&huge);
    assert!(err.len() < 4000, "{} bytes", err.len());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `rankscope eval --help` prints the help (it was an unknown option).
#[test]
fn eval_help_prints_the_help() {
    for args in [["eval", "--help"], ["eval", "-h"]] {
        let out = Command::new(env!("CARGO_BIN_EXE_rankscope"))
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success());
        assert!(String::from_utf8_lossy(&out.stdout).contains("USAGE:"));
    }
}

/// `--qrels` given ranx JSON qrels reads them as JSON (it forced TREC
/// qrels), with the values of the TREC qrels.
#[test]
fn json_qrels_work_with_the_qrels_flag() {
    let json = metrics_of(&[
        reference("ranking.run").as_os_str(),
        "--qrels".as_ref(),
        reference("extra/ranking.qrels.json").as_os_str(),
    ]);
    let trec = metrics_of(&[
        reference("ranking.run").as_os_str(),
        "--qrels".as_ref(),
        reference("ranking.qrels").as_os_str(),
    ]);
    assert_eq!(json, trec);
}

/// `target,p_0,p_1` is a 2-class probability matrix by its header, not two
/// binary models; `label,score_0,score_1` stays two models.
#[test]
fn a_two_column_probability_header_is_a_matrix() {
    let dir = scratch("twoclass");
    let run = |name: &str, text: &str| -> serde_json::Value {
        let f = dir.join(name);
        std::fs::write(&f, text).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_rankscope"))
            .args(["eval", "--format", "json"])
            .arg(&f)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let rows = "1,0.2,0.8\n0,0.7,0.3\n1,0.4,0.6\n0,0.9,0.1\n";
    let m = run("m.csv", &format!("target,p_0,p_1\n{rows}"));
    assert_eq!(m["kind"], "multiclass");
    assert_eq!(m["models"].as_array().unwrap().len(), 1);
    let b = run("b.csv", &format!("label,score_0,score_1\n{rows}"));
    assert_eq!(b["kind"], "binary");
    assert_eq!(b["models"].as_array().unwrap().len(), 2);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Warnings name the CLI's flags, not only the page's controls; a decimal
/// comma is named as such.
#[test]
fn warnings_and_hints_name_what_to_do_on_the_command_line() {
    let dir = scratch("hints");
    let scores = dir.join("scores.csv");
    std::fs::write(&scores, "label,m\n1,2.5\n0,-1.5\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_rankscope"))
        .arg("eval")
        .arg(&scores)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--logits"), "{err}");
    let comma = dir.join("comma.csv");
    std::fs::write(&comma, "label;score\n1;0,5\n0;0,25\n").unwrap();
    let err = refused(&comma);
    assert!(err.contains("comma.csv:2:2:"), "{err}");
    assert!(err.contains("'0,5' looks like a decimal comma"), "{err}");
    let run = dir.join("alone.run");
    std::fs::write(&run, "q1 Q0 d1 1 0.5 t\n").unwrap();
    let qrels = dir.join("other.qrels");
    std::fs::write(&qrels, "{\"q1\": {\"d1\": 1}}").unwrap();
    let m = metrics_of(&[run.as_os_str(), "--qrels".as_ref(), qrels.as_os_str()]);
    assert_eq!(m[0]["ndcg@10"], serde_json::json!(1.0));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Top-k list files with numeric ids that have gaps (recommenders' sparse
/// item ids) or text ids give the values of the same lists numbered 0..N-1
/// (they once failed with "class ... is out of range"); files of text ids
/// are joined by name, whatever order their ids first appear in, and a
/// file of numbers joins them by the numbers' text.
#[test]
fn top_k_lists_with_sparse_or_text_ids_load_and_join_by_name() {
    let dir = scratch("topk");
    let text = std::fs::read_to_string(reference("multiclass_topk.csv")).unwrap();
    let (header, rows) = text.split_once('\n').unwrap();
    // every id through `f` (the target's, column 0, too)
    let rewrite = |f: &dyn Fn(usize, &str) -> String, reversed: bool| -> String {
        let body: String = rows
            .lines()
            .map(|l| {
                let mut ids: Vec<String> = l.split(',').enumerate().map(|(i, x)| f(i, x)).collect();
                if reversed {
                    ids[1..].reverse();
                }
                ids.join(",") + "\n"
            })
            .collect();
        format!("{header}\n{body}")
    };
    let write = |name: &str, text: String| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let reference_values = metrics(&reference("multiclass_topk.csv"));
    let sparse = write(
        "sparse.csv",
        rewrite(
            &|_, f| (f.parse::<u64>().unwrap() * 7919 + 13).to_string(),
            false,
        ),
    );
    assert_eq!(metrics(&sparse), reference_values);
    let named = write("named.csv", rewrite(&|_, f| format!("item-{f}"), false));
    assert_eq!(metrics(&named), reference_values);
    // the same text ids met in another order, in a second file
    let numbers_reversed = write("reversed.csv", rewrite(&|_, f| f.to_string(), true));
    let named_reversed = write(
        "named_reversed.csv",
        rewrite(&|_, f| format!("item-{f}"), true),
    );
    let both = metrics_of(&[named.as_os_str(), named_reversed.as_os_str()]);
    assert_eq!(both[0], reference_values[0]);
    assert_eq!(both[1], metrics(&numbers_reversed)[0]);
    // numbers and text: "28" is the class named 28 (class 0 predicted as text)
    let mixed = write(
        "mixed.csv",
        rewrite(
            &|i, f| {
                if i > 0 && f == "0" {
                    "zero".into()
                } else {
                    f.into()
                }
            },
            false,
        ),
    );
    let joined = metrics_of(&[
        reference("multiclass_topk.csv").as_os_str(),
        mixed.as_os_str(),
    ]);
    assert_eq!(joined[0], reference_values[0]);
    assert_eq!(joined[1], metrics(&mixed)[0]);
    // other targets, or a probability matrix beside text ids, are refused
    for (other, says) in [
        (&named, "expected the same targets"),
        (
            &reference("multiclass_probs.csv"),
            "the probability matrix of model",
        ),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_rankscope"))
            .arg("eval")
            .arg(if says.contains("targets") {
                &sparse
            } else {
                &named
            })
            .arg(other)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A ratio with a zero denominator follows `--zero-division` (0 by default
/// as scikit-learn's 'warn', with a warning; `nan` leaves it undefined);
/// average precision without a positive row is 0 and macro F1 averages over
/// the classes present, as scikit-learn 1.9 computes them (values in the
/// comments).
#[test]
fn zero_division_and_one_class_rows_follow_scikit_learn() {
    let dir = scratch("zero-division");
    // nothing predicted positive at 0.5
    let some = dir.join("some.csv");
    std::fs::write(&some, "label,m\n1,0.2\n0,0.1\n1,0.3\n1,0.4\n0,0.45\n").unwrap();
    let m = &metrics(&some)[0];
    // precision_score(y, y_pred) = 0.0 (UndefinedMetricWarning)
    assert_eq!(m["precision"], serde_json::json!(0.0));
    assert_eq!(m["recall"], serde_json::json!(0.0));
    assert_eq!(m["f1"], serde_json::json!(0.0));
    // f1_score(y, y_pred, average='macro') = 0.2857142857142857, 'weighted' 0.22857142857142856
    assert_eq!(m["f1_macro"], serde_json::json!(0.2857142857142857));
    assert_eq!(m["f1_weighted"], serde_json::json!(0.22857142857142856));
    for (rule, precision) in [
        ("0", serde_json::json!(0.0)),
        ("1", serde_json::json!(1.0)),
        ("nan", serde_json::Value::Null),
    ] {
        let m = &metrics_of(&[some.as_os_str(), "--zero-division".as_ref(), rule.as_ref()])[0];
        // precision_score(y, y_pred, zero_division=0 / 1 / np.nan)
        assert_eq!(m["precision"], precision, "{rule}");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_rankscope"))
        .args(["eval", "--zero-division", "nan"])
        .arg(&some)
        .output()
        .unwrap();
    let (table, err) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        err.contains("warning: m: precision is ill-defined at this threshold (no row is predicted positive), shown as — (zero_division = nan)"),
        "{err}"
    );
    assert!(err.contains("--zero-division 0|1"), "{err}");
    assert!(table.contains("zero_division=nan"), "{table}");
    // counts print as integers, metrics with their decimals
    let cells: Vec<&str> = table
        .lines()
        .find(|l| l.starts_with("m "))
        .unwrap()
        .split_whitespace()
        .collect();
    assert_eq!(cells[cells.len() - 4..], ["0", "0", "2", "3"], "{table}");
    assert_eq!(cells[1], "0.5000", "roc_auc: {table}");
    assert_eq!(cells[8], "—", "precision: {table}");
    assert!(!Command::new(env!("CARGO_BIN_EXE_rankscope"))
        .args(["eval", "--zero-division", "2"])
        .arg(&some)
        .status()
        .unwrap()
        .success());
    // all negative, all predicted negative
    let none = dir.join("none.csv");
    std::fs::write(&none, "label,m\n0,0.1\n0,0.2\n0,0.3\n").unwrap();
    let m = &metrics(&none)[0];
    // average_precision_score([0,0,0], s) = 0.0; f1_score(average='macro') = 1.0
    assert_eq!(m["average_precision"], serde_json::json!(0.0));
    assert_eq!(m["f1_macro"], serde_json::json!(1.0));
    assert_eq!(m["f1_weighted"], serde_json::json!(1.0));
    assert_eq!(m["roc_auc"], serde_json::Value::Null);
    assert_eq!(m["f1"], serde_json::json!(0.0));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `rankscope eval`'s JSON metrics and its stderr for the binary CSV `csv`.
fn eval_binary(dir: &std::path::Path, csv: &str) -> (serde_json::Value, String) {
    let file = dir.join("case.csv");
    std::fs::write(&file, csv).unwrap();
    let run = |format: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_rankscope"))
            .args([
                "eval",
                "--format",
                format,
                "--metrics",
                "precision,recall,f1",
            ])
            .arg(&file)
            .output()
            .unwrap();
        assert!(out.status.success());
        out
    };
    let doc: serde_json::Value = serde_json::from_slice(&run("json").stdout).unwrap();
    let err = String::from_utf8(run("table").stderr).unwrap();
    // the JSON carries the warning lines the terminal prints
    let warnings = doc["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), err.lines().count(), "{err}");
    for w in warnings {
        assert!(err.contains(w.as_str().unwrap()), "{w} not in {err}");
    }
    (doc["models"][0]["metrics"].clone(), err)
}

/// scikit-learn's own cases for its default `zero_division="warn"` agree
/// under Rankscope's defaults: the value scikit-learn 1.9.1 returns, and a
/// warning exactly where scikit-learn raises its UndefinedMetricWarning
/// (each case's scikit-learn call and result in its comment).
#[test]
fn zero_division_defaults_agree_with_scikit_learns_warn() {
    use serde_json::json;
    let dir = scratch("zero-division-warn");
    let warned = "ill-defined at this threshold";
    // y_true = [0, 0], y_pred = [0, 0] (scores under 0.5):
    // precision_score = 0.0 (warns: no predicted samples), recall_score =
    // 0.0 (warns: no true samples), f1_score = 0.0 (warns)
    let (m, err) = eval_binary(&dir, "label,m\n0,0.1\n0,0.2\n");
    assert_eq!(
        (&m["precision"], &m["recall"], &m["f1"]),
        (&json!(0.0), &json!(0.0), &json!(0.0))
    );
    assert!(
        err.contains("warning: m: precision, recall and f1 are ill-defined at this threshold (no row is positive or predicted positive), set to 0 (zero_division = 0, scikit-learn's default 'warn')"),
        "{err}"
    );
    // y_true = [0, 1], y_pred = [0, 0]: precision_score = 0.0 (warns),
    // recall_score = 0.0 and f1_score = 0.0 (no warning: 0 of 1, 0 of 1)
    let (m, err) = eval_binary(&dir, "label,m\n0,0.1\n1,0.2\n");
    assert_eq!(
        (&m["precision"], &m["recall"], &m["f1"]),
        (&json!(0.0), &json!(0.0), &json!(0.0))
    );
    assert!(
        err.contains(
            "m: precision is ill-defined at this threshold (no row is predicted positive)"
        ),
        "{err}"
    );
    // no positives: y_true = [0, 0], y_pred = [0, 1]: recall_score = 0.0
    // (warns: no true samples), precision_score = 0.0 and f1_score = 0.0
    // (no warning: F1's denominator 2TP + FP + FN is 1)
    let (m, err) = eval_binary(&dir, "label,m\n0,0.1\n0,0.9\n");
    assert_eq!(
        (&m["precision"], &m["recall"], &m["f1"]),
        (&json!(0.0), &json!(0.0), &json!(0.0))
    );
    assert!(
        err.contains("m: recall is ill-defined at this threshold (no row is positive)"),
        "{err}"
    );
    // a ratio everywhere: no warning
    let (m, err) = eval_binary(&dir, "label,m\n0,0.1\n1,0.9\n1,0.2\n");
    assert_eq!((&m["precision"], &m["recall"]), (&json!(1.0), &json!(0.5)));
    assert!(!err.contains(warned), "{err}");
    // multi-class, class 2 never predicted: y_true = [0, 1, 2, 2], y_pred =
    // [0, 1, 1, 1]: precision_score(average='macro') = 0.4444444444444444
    // (warns), recall 0.6666666666666666, f1 0.5; average='weighted':
    // 0.3333333333333333, 0.5, 0.375
    let file = dir.join("classes.csv");
    std::fs::write(
        &file,
        "target,p_0,p_1,p_2\n0,0.8,0.15,0.05\n1,0.1,0.8,0.1\n2,0.15,0.8,0.05\n2,0.2,0.7,0.1\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_rankscope"))
        .args(["diagnose", "--format", "json"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success());
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let report = &doc["models"][0]["report"];
    let near = |got: &serde_json::Value, want: [f64; 3]| {
        for (g, w) in got.as_array().unwrap().iter().zip(want) {
            assert!((g.as_f64().unwrap() - w).abs() < 1e-15, "{got} vs {want:?}");
        }
    };
    near(
        &report["macro_avg"],
        [0.4444444444444444, 0.6666666666666666, 0.5],
    );
    near(&report["weighted_avg"], [0.3333333333333333, 0.5, 0.375]);
    assert_eq!(
        doc["warnings"],
        json!(["classes: precision is ill-defined for class 2 (never predicted), set to 0 (zero_division = 0, scikit-learn's default 'warn'); --zero-division 0|nan|1 chooses."])
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Judged@k equals ir_measures 0.4.3's `Judged@k` on the reference run (no
/// tie straddles these cutoffs), and a run whose document ids never match
/// the qrels' says so instead of showing a silent table of zeros.
#[test]
fn judged_at_k_matches_ir_measures_and_unmatched_ids_are_named() {
    let m = &metrics_of(&[
        reference("ranking.run").as_os_str(),
        "--qrels".as_ref(),
        reference("ranking.qrels").as_os_str(),
        "--metrics".as_ref(),
        "judged@1,judged@5,judged@10,judged@100".as_ref(),
    ])[0];
    // ir_measures.calc_aggregate([Judged@1, Judged@5, Judged@10, Judged@100], qrels, run)
    for (id, want) in [
        ("judged@1", 0.8),
        ("judged@5", 0.555),
        ("judged@10", 0.5149801587301588),
        ("judged@100", 0.508185286935287),
    ] {
        let got = m[id].as_f64().unwrap();
        assert!((got - want).abs() < 1e-12, "{id}: {got} vs {want}");
    }
    let dir = scratch("judged");
    let (run, other, judged, qrels) = (
        dir.join("a.run"),
        dir.join("b.run"),
        dir.join("c.run"),
        dir.join("q.qrels"),
    );
    std::fs::write(&judged, "q1 Q0 d1 1 3 c\nq2 Q0 d2 1 1 c\n").unwrap();
    std::fs::write(&run, "q1 Q0 x1 1 3 a\nq1 Q0 x2 2 2 a\nq2 Q0 x3 1 1 a\n").unwrap();
    std::fs::write(
        &other,
        "q1 Q0 d1 1 3 b\nq1 Q0 d9 2 2 b\nq2 Q0 d8 1 1 b\nq2 Q0 d7 2 1 b\n",
    )
    .unwrap();
    std::fs::write(&qrels, "q1 0 d1 1\nq2 0 d2 0\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_rankscope"))
        .arg("eval")
        .args([&run, &other, &judged])
        .arg("--qrels")
        .arg(&qrels)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("a: none of its retrieved documents is judged in the qrels, so every value is 0. Do its document ids match the qrels' (the run has e.g. 'x1', the qrels 'd1')?"),
        "{err}"
    );
    assert!(!err.contains("b: none"), "{err}");
    assert!(
        err.contains("b: 25.0% of its retrieved documents are judged, against 100.0% for the best-judged model"),
        "{err}"
    );
    assert!(!err.contains("c: "), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The row index pandas' `to_csv()` writes (a first column with no name, or
/// "Unnamed: 0" once read and written again) is skipped and said, never read
/// as a nameless model. The texts are pandas 3.1's output.
#[test]
fn a_pandas_index_column_is_skipped_and_said() {
    let dir = scratch("pandas");
    for (name, text, columns) in [
        (
            "once.csv",
            ",label,score\n0,1,0.9\n1,0,0.8\n2,1,0.3\n3,0,0.1\n",
            "Column 1 has",
        ),
        (
            "twice.csv",
            ",Unnamed: 0,label,score\n0,0,1,0.9\n1,1,0,0.8\n2,2,1,0.3\n3,3,0,0.1\n",
            "Columns 1–2 have",
        ),
        (
            "filtered.csv",
            ",label,score\n0,1,0.9\n2,1,0.3\n3,0,0.1\n1,0,0.8\n",
            "Column 1 has",
        ),
    ] {
        let f = dir.join(name);
        std::fs::write(&f, text).unwrap();
        let models = metrics(&f);
        assert_eq!(models.len(), 1, "{name}: one model, not the index");
        // roc_auc_score([1, 0, 1, 0], [0.9, 0.8, 0.3, 0.1]) = 0.75
        assert_eq!(models[0]["roc_auc"], serde_json::json!(0.75), "{name}");
        let out = Command::new(env!("CARGO_BIN_EXE_rankscope"))
            .arg("eval")
            .arg(&f)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!(
                "{columns} no name: read as the row index pandas' to_csv() writes, and skipped"
            )),
            "{name}: {err}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A document twice for one query, in a run, qrels or ranking CSV, is
/// refused as trec_eval refuses it ("duplicate docs"), naming the document,
/// the query and both rows; one rule for every ranking file.
#[test]
fn duplicate_documents_are_refused_as_trec_eval_refuses_them() {
    let dir = scratch("duplicates");
    let write = |name: &str, text: &str| {
        let f = dir.join(name);
        std::fs::write(&f, text).unwrap();
        f
    };
    let run = write(
        "r.run",
        "q1 Q0 d1 1 3 r\nq1 Q0 d2 2 2 r\nq2 Q0 d1 1 1 r\nq1 Q0 d1 3 1 r\n",
    );
    let qrels = write("q.qrels", "q1 0 d1 1\nq2 0 d1 0\n");
    let dup_qrels = write("d.qrels", "q1 0 d1 1\nq1 0 d2 0\nq1 0 d1 0\n");
    let table = write(
        "t.csv",
        "query_id,item_id,relevance,score\nq1,a,1,0.5\nq1,b,0,0.4\nq1,a,0,0.3\n",
    );
    let cases: [(&[&std::path::Path], &str); 3] = [
        (&[&run, &qrels], "r.run: expected each document at most once per query (trec_eval refuses a run that repeats one: 'duplicate docs'), found document 'd1' twice for query 'q1', in rows 1 and 4 of the run."),
        (&[&dup_qrels, &run], "found document 'd1' twice for query 'q1', in rows 1 and 3 of the qrels."),
        (&[&table], "found document 'a' twice for query 'q1', in rows 1 and 3 of the table."),
    ];
    for (files, message) in cases {
        let out = Command::new(env!("CARGO_BIN_EXE_rankscope"))
            .arg("eval")
            .args(files)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(message), "{err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `rankscope compare` pairs the models' per-query values by query id and
/// reports the core's paired tests on them (the tests themselves are checked
/// against scipy in tests/stats.rs), Holm-corrected across the models.
#[test]
fn compare_pairs_per_query_values_and_corrects_across_models() {
    let extra = |f: &str| reference(&format!("extra/{f}"));
    let json = json_of;
    let (bm25, dense, qrels) = (
        extra("bm25.run"),
        extra("dense.run"),
        extra("example.qrels"),
    );
    let per_query = json(&[
        "eval".as_ref(),
        bm25.as_os_str(),
        dense.as_os_str(),
        "--qrels".as_ref(),
        qrels.as_os_str(),
        "--metrics".as_ref(),
        "ndcg@10".as_ref(),
        "--per-query".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    let values = |m: usize| -> std::collections::BTreeMap<String, f64> {
        per_query["models"][m]["per_query"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(q, v)| (q.clone(), v["ndcg@10"].as_f64().unwrap()))
            .collect()
    };
    let (a, b) = (values(0), values(1));
    let ids: Vec<&String> = a.keys().filter(|q| b.contains_key(*q)).collect();
    let a: Vec<f64> = ids.iter().map(|q| a[*q]).collect();
    let b: Vec<f64> = ids.iter().map(|q| b[*q]).collect();
    let paired = rankscope::core::stats::Paired::new(&a, &b);
    let t = rankscope::core::stats::paired_t(&paired).unwrap();
    let w = rankscope::core::stats::wilcoxon(&a, &b).unwrap();
    let out = json(&[
        "compare".as_ref(),
        bm25.as_os_str(),
        dense.as_os_str(),
        "--qrels".as_ref(),
        qrels.as_os_str(),
        "--metrics".as_ref(),
        "ndcg@10".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    let c = &out["comparisons"][0];
    assert_eq!(
        (c["model"].as_str(), c["baseline"].as_str()),
        (Some("dense"), Some("bm25"))
    );
    assert_eq!(c["paired"]["n"], serde_json::json!(ids.len()));
    assert_eq!(c["t_test"]["p"].as_f64().unwrap(), t.p);
    assert_eq!(c["wilcoxon"]["p"].as_f64().unwrap(), w.p);
    assert_eq!(c["randomization"]["seed"], serde_json::json!(42));
    // one comparison: nothing to correct
    assert_eq!(c["adjusted"][0].as_f64().unwrap(), t.p);
    // with a third model, Holm doubles the smaller p-value at most
    let dir = scratch("compare");
    let third = dir.join("third.run");
    let text = std::fs::read_to_string(&bm25)
        .unwrap()
        .replace(" bm25\n", " third\n");
    std::fs::write(&third, text).unwrap();
    let out = json(&[
        "compare".as_ref(),
        bm25.as_os_str(),
        dense.as_os_str(),
        third.as_os_str(),
        "--qrels".as_ref(),
        qrels.as_os_str(),
        "--metrics".as_ref(),
        "ndcg@10".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
        "--baseline".as_ref(),
        "dense".as_ref(),
    ]);
    let cs = out["comparisons"].as_array().unwrap();
    assert_eq!(cs.len(), 2);
    for c in cs {
        assert_eq!(c["adjusted"][0].as_f64().unwrap(), (2.0 * t.p).min(1.0));
    }
    // a baseline that is not loaded, and a pooled metric, are refused by name
    let refused = Command::new(env!("CARGO_BIN_EXE_rankscope"))
        .args(["compare", "--metrics", "ndcg@10", "--baseline", "nope"])
        .args([&bm25, &dense])
        .arg("--qrels")
        .arg(&qrels)
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr)
        .contains("no model named 'nope' (the models: bm25, dense)"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--format markdown|latex` prints the metric table as papers do: ▲ / ▼
/// where `--test`'s adjusted p is below `--alpha`, and a footnote naming them.
#[test]
fn compare_prints_paper_tables_with_marks_of_the_chosen_test() {
    let extra = |f: &str| reference(&format!("extra/{f}"));
    let run = |format: &str, test: &str, alpha: &str, baseline: &str| {
        let (bm25, dense, qrels) = (
            extra("bm25.run"),
            extra("dense.run"),
            extra("example.qrels"),
        );
        let args: [&std::ffi::OsStr; 15] = [
            "compare".as_ref(),
            "--metrics".as_ref(),
            "ndcg@10,map".as_ref(),
            "--format".as_ref(),
            format.as_ref(),
            "--test".as_ref(),
            test.as_ref(),
            "--alpha".as_ref(),
            alpha.as_ref(),
            "--baseline".as_ref(),
            baseline.as_ref(),
            bm25.as_os_str(),
            dense.as_os_str(),
            "--qrels".as_ref(),
            qrels.as_os_str(),
        ];
        String::from_utf8(stdout_of(&args)).unwrap()
    };
    // dense is far above bm25 (t-test p ≈ 3e-8 on ndcg@10, 5e-11 on map);
    // the best value of each column is bold, each value's relative difference
    // from the baseline after it
    let md = run("markdown", "t", "0.05", "bm25");
    assert!(
        md.contains("| dense | **0.5226** ▲ (+49.5%) | **0.4471** ▲ (+52.1%) |"),
        "{md}"
    );
    assert!(md.contains("| bm25 | 0.3495 | 0.2939 |"), "{md}");
    assert!(
        md.contains("higher / lower than bm25 by a two-sided paired t-test"),
        "{md}"
    );
    assert!(md.contains("Holm-adjusted p &lt; 0.05"), "{md}");
    // against dense, bm25 is the one marked, lower; an α below every p marks nothing
    let tex = run("latex", "sign", "0.05", "dense");
    assert!(
        tex.contains("bm25 & 0.3495$^{\\blacktriangledown}$ (-33.1\\%) & 0.2939$^{\\blacktriangledown}$ (-34.3\\%) \\\\"),
        "{tex}"
    );
    assert!(tex.contains("sign test"), "{tex}");
    let none = run("markdown", "sign", "1e-12", "bm25");
    assert_eq!(none.matches('▲').count(), 1, "only the footnote's: {none}");
    assert!(
        none.contains("| dense | **0.5226** (+49.5%) | **0.4471** (+52.1%) |"),
        "{none}"
    );
    // a test or level that does not exist is refused by name
    let refused = Command::new(env!("CARGO_BIN_EXE_rankscope"))
        .args(["compare", "--metrics", "ndcg@10", "--test", "z", "--qrels"])
        .arg(extra("example.qrels"))
        .arg(extra("bm25.run"))
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr)
        .contains("t, wilcoxon, sign, randomization, bootstrap"));
}

/// Binary models are compared by ROC AUC with DeLong's test (checked against
/// the pairwise definition in tests/stats.rs); other binary metrics are
/// refused with what to ask instead.
#[test]
fn compare_tests_binary_models_by_auc_with_delong() {
    let dir = scratch("compare-auc");
    let f = dir.join("scores.csv");
    let mut text = String::from("label,a,b\n");
    let mut next = 7u64;
    let (mut labels, mut a, mut b) = (vec![], vec![], vec![]);
    for i in 0..200 {
        next ^= next << 13;
        next ^= next >> 7;
        next ^= next << 17;
        let y = i % 3 == 0;
        let noise = (next % 1000) as f64 / 1000.0;
        let (sa, sb) = (
            ((y as u8) as f64 * 0.3 + noise * 0.7 * 1000.0).round() / 1000.0,
            ((y as u8) as f64 * 0.5 + noise * 0.5 * 1000.0).round() / 1000.0,
        );
        text.push_str(&format!("{},{sa},{sb}\n", y as u8));
        labels.push(y);
        a.push(sa);
        b.push(sb);
    }
    std::fs::write(&f, text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_rankscope"))
        .args(["compare", "--metrics", "roc_auc", "--format", "json"])
        .arg(&f)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let want = rankscope::core::stats::delong(&labels, &a, &b).unwrap();
    let c = &v["comparisons"][0];
    assert_eq!(
        (c["model"].as_str(), c["baseline"].as_str()),
        (Some("b"), Some("a"))
    );
    assert_eq!(c["delong"]["p"].as_f64().unwrap(), want.p);
    assert_eq!(c["delong"]["auc_b"].as_f64().unwrap(), want.auc_b);
    // another metric: its bootstrap interval per model, no DeLong test
    let other = Command::new(env!("CARGO_BIN_EXE_rankscope"))
        .args([
            "compare",
            "--metrics",
            "accuracy",
            "--bootstrap",
            "100",
            "--format",
            "json",
        ])
        .arg(&f)
        .output()
        .unwrap();
    assert!(other.status.success());
    let v: serde_json::Value = serde_json::from_slice(&other.stdout).unwrap();
    assert_eq!(v["comparisons"].as_array().map(Vec::len), Some(0));
    for m in v["intervals"].as_array().unwrap() {
        let i = &m["intervals"][0];
        assert_eq!(
            (i["metric"].as_str(), i["defined"].as_u64()),
            (Some("accuracy"), Some(100))
        );
        let (lo, value, hi) = (
            i["low"].as_f64().unwrap(),
            i["value"].as_f64().unwrap(),
            i["high"].as_f64().unwrap(),
        );
        assert!(lo <= value && value <= hi);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// McNemar's exact test on per-query hits (Hit@k is 0 or 1 per query): the
/// discordant queries counted from pytrec_eval's per-query success_1, the
/// exact two-sided binomial p summed here (scipy's binomtest(7, 24) gives
/// 0.06391465663909912); a metric whose values are not hits has none.
#[test]
fn mcnemar_tests_hits_on_the_discordant_queries() {
    let extra = |f: &str| reference(&format!("extra/{f}"));
    let reference: serde_json::Value =
        serde_json::from_slice(&std::fs::read(extra("trec_eval.json")).unwrap()).unwrap();
    let case = &reference["cases"]["example"];
    let (a, b) = (&case["bm25.run level=1"], &case["dense.run level=1"]);
    let hit = |side: &serde_json::Value, q: &str| side[q]["success_1"].as_f64().unwrap_or(0.0);
    let queries: Vec<&String> = a.as_object().unwrap().keys().collect();
    let wins = queries.iter().filter(|q| hit(b, q) > hit(a, q)).count() as u64;
    let losses = queries.iter().filter(|q| hit(b, q) < hit(a, q)).count() as u64;
    assert_eq!((wins, losses), (17, 7));
    let n = wins + losses;
    let choose = |n: u64, k: u64| (0..k).fold(1.0, |c, i| c * (n - i) as f64 / (i + 1) as f64);
    let tail: f64 = (0..=wins.min(losses)).map(|i| choose(n, i)).sum::<f64>() / 2f64.powi(n as i32);
    let exact = (2.0 * tail).min(1.0);
    assert!((exact - 0.06391465663909912).abs() < 1e-15);
    let out = json_of(&[
        "compare".as_ref(),
        extra("bm25.run").as_os_str(),
        extra("dense.run").as_os_str(),
        "--qrels".as_ref(),
        extra("example.qrels").as_os_str(),
        "--metrics".as_ref(),
        "hit_rate@1,ndcg@10".as_ref(),
        "--test".as_ref(),
        "mcnemar".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    assert_eq!(out["test"], "mcnemar");
    let c = &out["comparisons"];
    assert_eq!(c[0]["metric"], "hit_rate@1");
    assert!(
        (c[0]["mcnemar"].as_f64().unwrap() - exact).abs() < 1e-12,
        "{}",
        c[0]
    );
    assert_eq!(c[1]["metric"], "ndcg@10");
    assert!(c[1]["mcnemar"].is_null(), "nDCG is not a hit: {}", c[1]);
}

/// trec_eval's other relation files evaluated by `rankscope eval`: detected
/// (preferences, z-scores) or chosen (`--input-format trec_qrels_prefs`,
/// `trec_qrels_jg`), each against the run with `--format trec_eval` prints
/// what `rankscope trec_eval` prints for the same files, byte for byte, and
/// the table has their `all` values.
#[test]
fn relation_files_are_evaluated_as_rankscope_trec_eval_does() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/trec_eval");
    let run = |args: &[&str]| -> (bool, String, String) {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_rankscope"))
            .args(args)
            .current_dir(&dir)
            .output()
            .expect("runs");
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    for (eval, trec_eval) in [
        (
            &["eval", "prefs.results.test", "prefs.test"][..],
            &[
                "trec_eval",
                "-q",
                "-R",
                "prefs",
                "-m",
                "all_prefs",
                "prefs.test",
                "prefs.results.test",
            ][..],
        ),
        (
            &[
                "eval",
                "results.test",
                "--qrels",
                "qrels.test",
                "--input-format",
                "trec_qrels_prefs",
            ],
            &[
                "trec_eval",
                "-q",
                "-R",
                "qrels_prefs",
                "-m",
                "all_prefs",
                "qrels.test",
                "results.test",
            ],
        ),
        (
            &[
                "eval",
                "results.test",
                "--qrels",
                "qrels.123",
                "--input-format",
                "trec_qrels_jg",
            ],
            &[
                "trec_eval",
                "-q",
                "-R",
                "qrels_jg",
                "-m",
                "qrels_jg",
                "qrels.123",
                "results.test",
            ],
        ),
        (
            &[
                "eval",
                "results.test",
                "--qrels",
                "qrels.test",
                "zscores_file",
            ],
            &[
                "trec_eval",
                "-q",
                "-Z",
                "zscores_file",
                "-m",
                "all_trec",
                "qrels.test",
                "results.test",
            ],
        ),
        // the format given names the FILE arguments (the run stays a run),
        // never the --qrels files, which z-scores stand beside
        (
            &[
                "eval",
                "results.test",
                "--qrels",
                "qrels.test",
                "zscores_file",
                "--input-format",
                "trec_zscores",
            ],
            &[
                "trec_eval",
                "-q",
                "-Z",
                "zscores_file",
                "-m",
                "all_trec",
                "qrels.test",
                "results.test",
            ],
        ),
        // judgment groups given as a FILE argument are read as the format says
        (
            &[
                "eval",
                "results.test",
                "qrels.123",
                "--input-format",
                "trec_qrels_jg",
            ],
            &[
                "trec_eval",
                "-q",
                "-R",
                "qrels_jg",
                "-m",
                "qrels_jg",
                "qrels.123",
                "results.test",
            ],
        ),
    ] {
        let (ok, want, err) = run(trec_eval);
        assert!(ok, "{err}");
        let mut args = eval.to_vec();
        args.extend(["--format", "trec_eval"]);
        let (ok, got, err) = run(&args);
        assert!(ok, "{eval:?}: {err}");
        assert!(
            got == want,
            "{eval:?}: {} lines, trec_eval {}",
            got.lines().count(),
            want.lines().count()
        );
        assert!(!err.contains("No relevance judgments"), "{err}");
        let (ok, table, _) = run(eval);
        assert!(ok);
        let all = want
            .lines()
            .find(|l| l.contains("\tall\t") && !l.starts_with("runid") && !l.starts_with("num_q"))
            .unwrap();
        let value = all.rsplit('\t').next().unwrap();
        assert!(table.contains(value), "{eval:?}: {value} in\n{table}");
    }
    // without a run there is nothing to evaluate them against
    let (ok, _, err) = run(&["eval", "prefs.test"]);
    assert!(!ok && err.contains("give the run files too"), "{err}");
}

/// Every convention flag takes the names links, sessions and the panel write
/// (each value's `Named` name), and the command line's older short names
/// keep working.
#[test]
fn convention_flags_take_the_stable_names_and_the_old_ones() {
    use rankscope::core::binary::{ThresholdRule, ZeroDivision};
    use rankscope::core::multiclass::ClassTieRule;
    use rankscope::core::ranking::{QuerySet, TieRule};
    use rankscope::core::ranking_metrics::{
        ApDenominator, Discount, F1Aggregation, Gain, PrecisionDenominator, TrecEvalVersion,
    };
    use rankscope::core::Named;
    fn names<T: Named>() -> Vec<&'static str> {
        T::ALL.iter().map(|t| t.name()).collect()
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reference");
    let mut cases: Vec<(&str, &str)> = Vec::new();
    for (flag, values) in [
        ("--ties", names::<TieRule>()),
        ("--gain", names::<Gain>()),
        ("--discount", names::<Discount>()),
        ("--ap-denominator", names::<ApDenominator>()),
        ("--precision-denominator", names::<PrecisionDenominator>()),
        ("--f1", names::<F1Aggregation>()),
        ("--queries", names::<QuerySet>()),
        ("--trec-eval-version", names::<TrecEvalVersion>()),
        ("--threshold-rule", names::<ThresholdRule>()),
        ("--zero-division", names::<ZeroDivision>()),
        ("--class-ties", names::<ClassTieRule>()),
    ] {
        cases.extend(values.into_iter().map(|v| (flag, v)));
    }
    cases.extend([
        ("--gain", "rel"),
        ("--gain", "exp"),
        ("--discount", "jarvelin"),
        ("--ap-denominator", "min"),
        ("--precision-denominator", "min"),
        ("--trec-eval-version", "9"),
        ("--class-ties", "lower"),
        ("--class-ties", "higher"),
    ]);
    for (flag, value) in cases {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_rankscope"))
            .args([
                "eval",
                "ranking.run",
                "--qrels",
                "ranking.qrels",
                "--metrics",
                "ndcg@10",
            ])
            .args([flag, value])
            .current_dir(&dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{flag} {value}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rankscope"))
        .args(["eval", "ranking.run", "--discount", "bogus"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "rankscope: --discount bogus: expected one of log2, jarvelin_b2"
    );
}

/// Per-query values are the interchange file (`--per-query --format csv`, the
/// Python package's and its Spark job's output): read back, they give the
/// table's values to the last bit (means as the core aggregates them) and
/// the same paired tests as the runs themselves; trec_eval `-q` output files
/// are read the same way (their `all` lines are the values).
#[test]
fn per_query_files_give_the_tables_values_and_the_same_tests() {
    let dir = scratch("per-query");
    let (run, qrels) = (reference("ranking.run"), reference("ranking.qrels"));
    let reversed = dir.join("reversed.run");
    let text = std::fs::read_to_string(&run).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut out = String::new();
    for (line, other) in lines.iter().zip(lines.iter().rev()) {
        let f: Vec<&str> = line.split_whitespace().collect();
        let score = other.split_whitespace().nth(4).unwrap();
        out.push_str(&format!("{} Q0 {} {} {score} reversed\n", f[0], f[2], f[3]));
    }
    std::fs::write(&reversed, out).unwrap();
    let runs = [
        run.as_os_str(),
        reversed.as_os_str(),
        "--qrels".as_ref(),
        qrels.as_os_str(),
    ];
    let metrics = "ndcg@10,map,gm_map,mrr,num_ret,precision@5,fcp";
    let with = |first: &[&std::ffi::OsStr], rest: &[&str]| -> Vec<std::ffi::OsString> {
        first
            .iter()
            .map(|s| s.to_os_string())
            .chain(rest.iter().map(|s| s.into()))
            .collect()
    };
    let csv = stdout_of(
        &with(&["eval".as_ref()], &[])
            .into_iter()
            .chain(with(
                &runs,
                &["--metrics", metrics, "--per-query", "--format", "csv"],
            ))
            .collect::<Vec<_>>(),
    );
    let file = dir.join("values.csv");
    std::fs::write(&file, &csv).unwrap();
    let text = String::from_utf8(csv).unwrap();
    assert!(text.starts_with("query_id,model,metric,value\nq000000,bench,ndcg@10,0\n"));
    assert!(text.contains("\nq000001,reversed,map,"));
    // every value is read back to the same bits; fcp (pairs) has no mean from them
    let want = metrics_of(
        &with(&runs, &["--metrics", metrics])
            .iter()
            .map(|s| s.as_os_str())
            .collect::<Vec<_>>(),
    );
    let got = metrics_of(&[file.as_os_str(), "--metrics".as_ref(), metrics.as_ref()]);
    assert_eq!(want.len(), 2);
    for (w, g) in want.iter().zip(&got) {
        for m in metrics.split(',') {
            if m == "fcp" {
                assert!(g[m].is_null());
            } else {
                assert_eq!(g[m], w[m], "{m}");
            }
        }
    }
    // the same tests, p-values and intervals as from the runs
    let tests = |args: &[std::ffi::OsString]| {
        let mut v = json_of(&args.iter().map(|s| s.as_os_str()).collect::<Vec<_>>());
        v["comparisons"].take()
    };
    let compare = [
        "--metrics",
        "ndcg@10,map",
        "--test",
        "randomization",
        "--format",
        "json",
    ];
    let from_runs = tests(
        &with(&["compare".as_ref()], &[])
            .into_iter()
            .chain(with(&runs, &compare))
            .collect::<Vec<_>>(),
    );
    let from_file = tests(&with(&["compare".as_ref(), file.as_os_str()], &compare));
    assert_eq!(from_runs, from_file);
    assert_eq!(from_file.as_array().unwrap().len(), 2);
    // trec_eval -q output: its `all` lines are the values, its per-query lines the units
    let te = |run: &std::path::Path, name: &str| {
        let out = stdout_of(&[
            "trec_eval".as_ref(),
            "-q".as_ref(),
            qrels.as_os_str(),
            run.as_os_str(),
        ]);
        let path = dir.join(name);
        std::fs::write(&path, out).unwrap();
        path
    };
    let (a, b) = (te(&run, "a.te"), te(&reversed, "b.te"));
    let got = metrics_of(&[
        a.as_os_str(),
        b.as_os_str(),
        "--metrics".as_ref(),
        "map,gm_map".as_ref(),
    ]);
    for (w, g) in want.iter().zip(&got) {
        let close = |x: &serde_json::Value, y: &serde_json::Value| {
            (x.as_f64().unwrap() - y.as_f64().unwrap()).abs() < 5e-5 // trec_eval prints 4 decimals
        };
        assert!(close(&g["map"], &w["map"]) && close(&g["gm_map"], &w["gm_map"]));
    }
    let from_te = tests(&with(
        &["compare".as_ref(), a.as_os_str(), b.as_os_str()],
        &["--metrics", "map", "--format", "json"],
    ));
    assert_eq!(from_te[0]["paired"]["n"], 20);
    // a measure the files do not hold is named with the ones they do
    let out = Command::new(env!("CARGO_BIN_EXE_rankscope"))
        .args([
            "eval".as_ref(),
            file.as_os_str(),
            "--metrics".as_ref(),
            "recall@5".as_ref(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("--metrics recall@5: no such measure in these files (they hold: ndcg@10, map, gm_map, mrr, num_ret, precision@5, fcp)"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The metric added through the registry's checklist (one kernel, one row):
/// `rankscope eval` gives scikit-learn 1.9.1's `balanced_accuracy_score` of
/// the reference labels against `score >= t`, as every table does.
#[test]
fn balanced_accuracy_is_scikit_learns_on_the_reference_file() {
    for (t, want) in [("0.5", 0.7308478038815118), ("0.3", 0.7270173646578141)] {
        let m = metrics_of(&[
            reference("binary.csv").as_os_str(),
            "--threshold".as_ref(),
            t.as_ref(),
        ]);
        let got = m[0]["balanced_accuracy"].as_f64().unwrap();
        assert!((got - want).abs() <= 1e-15, "t = {t}: {got} vs {want}");
    }
}

/// The format added through the checklist (one file, one table row): an
/// MS MARCO run (`qid<TAB>docid<TAB>rank`) written from a TREC run in
/// trec_eval's order gives every metric of that run to the last bit, but
/// the two that read the scores themselves.
#[test]
fn an_msmarco_run_is_its_trec_run() {
    let dir = scratch("msmarco");
    let text = std::fs::read_to_string(reference("ranking.run")).unwrap();
    // trec_eval's order: score descending, then document id descending
    let mut lines: Vec<(String, f64, String)> = text
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f[0].to_string(), f[4].parse().unwrap(), f[2].to_string())
        })
        .collect();
    lines.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)).then(b.2.cmp(&a.2)));
    let (mut tsv, mut rank, mut query) = (String::new(), 0, String::new());
    for (q, _, d) in &lines {
        rank = if *q == query { rank + 1 } else { 1 };
        query = q.clone();
        tsv.push_str(&format!("{q}\t{d}\t{rank}\n"));
    }
    // query ids that are not numbers: the file's name says what it is
    let ranked = dir.join("ranking.msmarco.tsv");
    std::fs::write(&ranked, tsv).unwrap();
    let qrels = reference("ranking.qrels");
    let run = |file: &std::path::Path| {
        let all = ["--metrics".as_ref(), "all".as_ref()];
        let args = [file.as_os_str(), "--qrels".as_ref(), qrels.as_os_str()];
        metrics_of(&[&args[..], &all[..]].concat())
    };
    let (mut from_ranks, mut from_scores) = (run(&ranked), run(&reference("ranking.run")));
    // FCP and Spearman correlate scores with grades: the run's tied scores
    // are distinct ranks in the MS MARCO file, so only these two may differ
    for m in [&mut from_ranks[0], &mut from_scores[0]] {
        let m = m.as_object_mut().unwrap();
        assert!(m.remove("fcp").is_some() && m.remove("spearman").is_some());
    }
    assert_eq!(from_ranks, from_scores);
    assert!(from_ranks[0]["ndcg@10"].as_f64().is_some());
    // the made-up scores are said: the load notice names the rule
    let out = Command::new(env!("CARGO_BIN_EXE_rankscope"))
        .arg("eval")
        .arg(&ranked)
        .arg("--qrels")
        .arg(&qrels)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("each document's score is −rank"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A threshold per model: `--threshold NAME=T` gives that model its own
/// (repeat the flag for more), the others keep the shared one. Reference:
/// scikit-learn 1.9.1's accuracy, precision, recall, F1, MCC and balanced
/// accuracy of `seeds.csv`'s labels against `score >= t` of each column.
#[test]
fn each_model_may_have_its_own_threshold() {
    let file = reference("extra/seeds.csv");
    let args = [
        file.as_os_str(),
        "--threshold".as_ref(),
        "model_a_seed1=0.73".as_ref(),
        "--threshold=model_b=0.98".as_ref(),
        "--metrics".as_ref(),
        "accuracy,precision,recall,f1,mcc,balanced_accuracy".as_ref(),
    ];
    let json = json_of(
        &[
            &["eval".as_ref(), "--format".as_ref(), "json".as_ref()],
            &args[..],
        ]
        .concat(),
    );
    let want: [(&str, [f64; 6]); 3] = [
        (
            "model_a_seed1",
            [
                0.7933333333333333,
                0.702020202020202,
                0.6813725490196079,
                0.6915422885572139,
                0.5363409398460404,
                0.7661913250148544,
            ],
        ),
        (
            "model_b",
            [
                0.6566666666666666,
                0.4375,
                0.03431372549019608,
                0.06363636363636363,
                0.034068009303888334,
                0.5057932263814617,
            ],
        ),
        // no threshold of its own: the shared 0.5
        (
            "model_a_seed2",
            [
                0.5866666666666667,
                0.44634146341463415,
                0.8970588235294118,
                0.5960912052117264,
                0.32976634758902534,
                0.6619132501485443,
            ],
        ),
    ];
    let models = json["models"].as_array().unwrap();
    for (name, values) in want {
        let m = models.iter().find(|m| m["name"] == name).unwrap();
        for (metric, want) in [
            "accuracy",
            "precision",
            "recall",
            "f1",
            "mcc",
            "balanced_accuracy",
        ]
        .iter()
        .zip(values)
        {
            let got = m["metrics"][metric].as_f64().unwrap();
            assert!(
                (got - want).abs() <= 1e-15,
                "{name} {metric}: {got} vs {want}"
            );
        }
    }
    // the conventions say which model has which
    assert_eq!(
        json["conventions"]["thresholds"],
        serde_json::json!([["model_a_seed1", 0.73], ["model_b", 0.98]])
    );
    // a model that is not there is named, not silently ignored
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rankscope"))
        .args([
            "eval".as_ref(),
            file.as_os_str(),
            "--threshold".as_ref(),
            "model_c=0.9".as_ref(),
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains(
        "warning: threshold 0.9 of model 'model_c': no binary model has that name (the models: model_a_seed1, "
    ));
    // a value that is not a number names what was expected
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rankscope"))
        .args([
            "eval".as_ref(),
            file.as_os_str(),
            "--threshold".as_ref(),
            "model_b=high".as_ref(),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("--threshold model_b=high: expected a number"));
}

/// The command line's messages name its own flags and actions, never the
/// page's ("drop the file"): an empty file, a truncated `.gz`, qrels read
/// as a run, a run given as qrels.
#[test]
fn cli_messages_name_its_flags_not_the_pages_actions() {
    let dir = scratch("advice");
    let write = |name: &str, bytes: &[u8]| {
        let f = dir.join(name);
        std::fs::write(&f, bytes).unwrap();
        f
    };
    let refused_with = |args: &[&std::ffi::OsStr]| -> String {
        let out = Command::new(env!("CARGO_BIN_EXE_rankscope"))
            .arg("eval")
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut gz, b"label,score\n1,0.9\n0,0.1\n").unwrap();
    let gz = gz.finish().unwrap();
    let empty = write("empty.csv", b"# nothing\n\n");
    let truncated = write("cut.csv.gz", &gz[..gz.len() / 2]);
    let qrels = write("judged.txt", b"q1 0 d1 1\n");
    let run = write("r.txt", b"q1 Q0 d1 1 0.5 r\n");
    let cases: [(Vec<&std::ffi::OsStr>, &str); 4] = [
        (
            vec![empty.as_os_str()],
            "Give a TREC run (its qrels with --qrels), or a CSV file with a header and at least one row; rankscope eval --help lists every format (--input-format).",
        ),
        (
            vec![truncated.as_os_str()],
            "Compress the file again (gzip -t FILE checks it), or give the uncompressed file in its place.",
        ),
        (
            vec!["--input-format".as_ref(), "trec_run".as_ref(), qrels.as_os_str()],
            "qrels are given with --qrels, or read as such with --input-format trec_qrels.",
        ),
        (
            vec![run.as_os_str(), "--qrels".as_ref(), run.as_os_str()],
            "was a run given with --qrels (runs are FILE arguments)?",
        ),
    ];
    for (args, advice) in cases {
        let err = refused_with(&args);
        assert!(err.trim_end().ends_with(advice), "{args:?}: {err}");
        assert!(!err.to_lowercase().contains("drop"), "{args:?}: {err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The metrics of a `rankscope compare --format json` run, in order: each
/// comparison's (binary: ROC AUC for DeLong's comparisons, then each
/// interval's).
fn compared(args: &[&str]) -> Vec<String> {
    let mut all = vec!["compare", "--format", "json"];
    all.extend(args);
    let doc = json_of(&all.iter().map(|a| a.as_ref()).collect::<Vec<_>>());
    let mut out: Vec<String> = Vec::new();
    for key in ["comparisons", "intervals"] {
        let items = doc[key].as_array().into_iter().flatten();
        // binary intervals: per model, its metrics' intervals
        let items = items.flat_map(|c| match c["intervals"].as_array() {
            Some(inner) => inner.iter().collect(),
            None => vec![c],
        });
        for c in items {
            let m = match c["metric"].as_str() {
                Some(m) => m.to_string(),
                None if c["delong"].is_object() => "roc_auc".to_string(),
                None => panic!("{c}"),
            };
            if !out.contains(&m) {
                out.push(m);
            }
        }
    }
    out
}

/// `rankscope compare` takes eval's metric flags (`--metrics`, and `-m`
/// with an id or a trec_eval measure), and without them tests a default
/// set per kind, which `--help` names: ranking, the page table's default
/// columns (ndcg, map, precision, recall, hit_rate, mrr, r_precision and
/// bpref at its cutoffs 5, 10 and 20, or at `-k`); binary, ROC AUC and
/// average precision; multi-class Acc@1 and MRR; ratings MAE and MSE.
#[test]
fn compare_takes_evals_metric_flags_and_a_default_set_per_kind() {
    let (run, other, qrels) = (
        reference("extra/bm25.run"),
        reference("extra/dense.run"),
        reference("extra/example.qrels"),
    );
    let (run, other, qrels) = (
        run.to_str().unwrap(),
        other.to_str().unwrap(),
        qrels.to_str().unwrap(),
    );
    let ranking = [run, other, "--qrels", qrels];
    let with = |extra: &[&str]| {
        let mut args = ranking.to_vec();
        args.extend(extra);
        compared(&args)
    };
    let table: Vec<String> = [
        "ndcg",
        "ndcg@5",
        "ndcg@10",
        "ndcg@20",
        "map",
        "map@5",
        "map@10",
        "map@20",
        "precision@5",
        "precision@10",
        "precision@20",
        "recall@5",
        "recall@10",
        "recall@20",
        "hit_rate@5",
        "hit_rate@10",
        "hit_rate@20",
        "mrr",
        "mrr@5",
        "mrr@10",
        "mrr@20",
        "r_precision",
        "bpref",
    ]
    .map(String::from)
    .to_vec();
    assert_eq!(with(&[]), table);
    assert_eq!(
        with(&["-k", "3"]),
        [
            "ndcg",
            "ndcg@3",
            "map",
            "map@3",
            "precision@3",
            "recall@3",
            "hit_rate@3",
            "mrr",
            "mrr@3",
            "r_precision",
            "bpref"
        ]
    );
    // -m as eval users type it, an id or trec_eval's measure, gives --metrics' comparison
    let json = |extra: &[&str]| {
        let mut args = vec!["compare", "--format", "json"];
        args.extend(ranking);
        args.extend(extra);
        json_of(&args.iter().map(|a| a.as_ref()).collect::<Vec<_>>())
    };
    let named = json(&["--metrics", "ndcg@10,mrr"]);
    assert_eq!(json(&["-m", "ndcg@10", "-m", "mrr"]), named);
    assert_eq!(json(&["-m", "ndcg@10,mrr"]), named);
    assert_eq!(json(&["-m", "ndcg_cut.10", "-m", "recip_rank"]), named);
    assert_eq!(with(&["-m", "P.5,10"]), ["precision@5", "precision@10"]);
    let out = Command::new(env!("CARGO_BIN_EXE_rankscope"))
        .args(["compare", run, other, "--qrels", qrels, "-m", "ndcg@x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("-m ndcg@x: ") && err.contains("nor is it a trec_eval measure"),
        "{err}"
    );
    // eval takes -m alike (no longer left aside outside --format trec_eval)
    let m = &metrics_of(&[
        run.as_ref(),
        "--qrels".as_ref(),
        qrels.as_ref(),
        "-m".as_ref(),
        "ndcg@10".as_ref(),
    ])[0];
    assert_eq!(
        m.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["ndcg@10"]
    );
    // binary: DeLong's test of ROC AUC and average precision's interval
    let binary = reference("extra/seeds.csv");
    assert_eq!(
        compared(&[binary.to_str().unwrap()]),
        ["roc_auc", "average_precision"]
    );
    // multi-class, row by row: Acc@1 (McNemar) and MRR
    let (probs, topk) = (
        reference("multiclass_probs.csv"),
        reference("multiclass_topk.csv"),
    );
    assert_eq!(
        compared(&[probs.to_str().unwrap(), topk.to_str().unwrap()]),
        ["acc@1", "mrr"]
    );
    // ratings: each rating's absolute and squared error
    let dir = scratch("compare-defaults");
    let ratings = dir.join("ratings.csv");
    std::fs::write(
        &ratings,
        "user_id,item_id,rating,svd,knn\nu1,i1,4,3.5,4.2\nu1,i2,2,2.5,1.0\nu2,i1,5,4.1,4.4\nu2,i3,3,3.3,2.1\n",
    )
    .unwrap();
    assert_eq!(compared(&[ratings.to_str().unwrap()]), ["mae", "mse"]);
    std::fs::remove_dir_all(&dir).unwrap();
    // --help says so
    let help = String::from_utf8(stdout_of(&["compare", "--help"])).unwrap();
    assert!(
        help.contains("Without --metrics (or -m), per kind: ranking, the page table's default columns at -k (default 5,10,20): ndcg,ndcg@5,")
            && help.contains("binary roc_auc,average_precision; multi-class acc@1,mrr; ratings mae,mse."),
        "{help}"
    );
}

/// Values computed elsewhere (trec_eval's `-q` output of two runs) compared
/// without --metrics: every measure with per-query values is tested; the
/// ones trec_eval prints only for `all` (gm_map, num_q) have nothing to pair
/// and are left out instead of failing the command.
#[test]
fn compare_of_trec_eval_output_without_metrics_tests_the_per_query_measures() {
    let dir = scratch("compare-teq");
    let qrels = reference("extra/example.qrels");
    let mut files = Vec::new();
    for run in ["bm25", "dense"] {
        let path = dir.join(format!("{run}.teq"));
        let run = reference(&format!("extra/{run}.run"));
        let out = stdout_of(&[
            "trec_eval".as_ref(),
            "-q".as_ref(),
            qrels.as_os_str(),
            run.as_os_str(),
        ]);
        std::fs::write(&path, out).unwrap();
        files.push(path);
    }
    let doc = json_of(&[
        "compare".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
        files[0].as_os_str(),
        files[1].as_os_str(),
    ]);
    let metrics: std::collections::BTreeSet<&str> = (doc["comparisons"].as_array().unwrap().iter())
        .map(|c| c["metric"].as_str().unwrap())
        .collect();
    assert!(
        metrics.contains("map") && metrics.contains("P_10") && metrics.contains("recip_rank"),
        "{metrics:?}"
    );
    assert!(
        !metrics.contains("gm_map") && !metrics.contains("num_q"),
        "{metrics:?}"
    );
    assert_eq!(
        doc["mean_intervals"].as_array().unwrap().len(),
        2 * metrics.len()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--preset` sets a tool's conventions (the header names it, a flag beside
/// it changes one value), the JSON carries each column's fingerprint, and
/// `explain-number` names the tool behind a printed number, or the nearest.
#[test]
fn presets_fingerprints_and_explain_number() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reference/presets");
    let (run, qrels) = (dir.join("presets.run"), dir.join("presets.qrels"));
    let cli = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_rankscope"))
            .args(args)
            .arg(&run)
            .arg(&qrels)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let (code, table, _) = cli(&["eval", "--metrics", "ndcg@10", "--preset", "spark-mllib"]);
    assert_eq!(code, Some(0));
    assert!(
        table.starts_with("# ranking · preset=spark-mllib ties=file "),
        "{table}"
    );
    assert!(
        table.contains("query_set=union") && table.contains("grades=binary"),
        "{table}"
    );
    let (_, plain, _) = cli(&["eval", "--metrics", "ndcg@10"]);
    assert!(
        !plain.contains("preset") && !plain.contains("grades="),
        "{plain}"
    );
    let json = |args: &[&str]| -> serde_json::Value {
        let mut all = vec![
            "eval",
            "--metrics",
            "ndcg@10,precision@10",
            "--format",
            "json",
        ];
        all.extend_from_slice(args);
        serde_json::from_str(&cli(&all).1).unwrap()
    };
    let spark = json(&["--preset", "spark-mllib"]);
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("presets.json")).unwrap()).unwrap();
    let want = doc["peers"]["spark-mllib"]["metrics"]["ndcgAt(10)"]["mean"]
        .as_f64()
        .unwrap();
    assert!((spark["models"][0]["metrics"]["ndcg@10"].as_f64().unwrap() - want).abs() < 1e-12);
    assert_eq!(spark["conventions"]["preset"], "spark-mllib");
    let graded = json(&["--preset", "spark-mllib", "--grades", "graded"]);
    let trec = json(&[]);
    let fp = |d: &serde_json::Value, m: &str| d["fingerprints"][m].as_str().unwrap().to_string();
    // binary grades change nDCG's definition, not precision's
    assert_ne!(fp(&spark, "ndcg@10"), fp(&graded, "ndcg@10"));
    assert_eq!(fp(&spark, "precision@10"), fp(&graded, "precision@10"));
    assert_ne!(fp(&trec, "ndcg@10"), fp(&spark, "ndcg@10"));
    assert_eq!(fp(&trec, "ndcg@10").len(), 12);
    let (code, _, err) = cli(&["eval", "--preset", "nope"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("--preset nope: not a preset (the presets: trec_eval-10.0"),
        "{err}"
    );

    let printed = format!("{want:.4}");
    let (code, found, _) = cli(&["explain-number", "--metric", "ndcg@10", "--value", &printed]);
    assert_eq!(code, Some(0));
    let first = found.lines().nth(1).unwrap_or_default();
    assert!(
        first.contains("preset spark-mllib") && !first.contains("changed"),
        "{found}"
    );
    let (_, none, _) = cli(&["explain-number", "--metric", "ndcg@10", "--value", "0.9876"]);
    assert!(none.starts_with("No setting of the "), "{none}");
    assert!(none.contains("The nearest:"), "{none}");
}
