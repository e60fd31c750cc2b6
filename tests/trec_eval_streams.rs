//! `rankscope trec_eval` on both cores and on runs read as a stream: the
//! same bytes as the one-thread path (`trec_eval::in_memory`, which reads
//! both files whole and evaluates the queries one after another) on
//! generated runs with ties, many queries, queries the run lacks and the
//! run's queries the judgments lack; a run file large enough to be read as
//! two parts; the same run through standard input; the run shuffled (its
//! queries' lines apart, read whole); and a run larger than the memory the
//! process may use, piped from a generator.

use rankscope::trec_eval::{in_memory, Version};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Judgments and a grouped run: `queries` judged queries (ids of mixed
/// lengths, so `strcmp` order differs from the file's), levels -1 to 3, a
/// few queries judged only negative, with `missing` about 5 % of them
/// without results (10.0 then needs `-c`), and a run query in 10 without
/// judgments; scores from 8 values (ties).
fn generate(queries: usize, seed: u64, missing: bool) -> (String, String) {
    let mut rng = Rng(seed);
    // the first query in `strcmp` order has a relevant document (were its
    // judgments all negative, trec_eval could not evaluate the run)
    let mut qrels = String::from("0 0 d1 1\n0 0 d2 0\n");
    let mut run = String::from("0 Q0 d1 1 0.5 tag\n0 Q0 d5 2 0.5 tag\n");
    for q in 0..queries {
        let qid = format!("{}{}", ["q", "", "Q-"][q % 3], (q * 7919) % 100_003);
        let judged = 5 + rng.below(40);
        let negative_only = rng.below(50) == 0;
        for d in 0..judged {
            let level = if negative_only {
                -1
            } else {
                rng.below(5) as i64 - 1
            };
            qrels.push_str(&format!("{qid} 0 d{} {level}\n", d * 3));
        }
        if rng.below(20) == 0 && missing {
            continue;
        }
        let retrieved = 1 + rng.below(60);
        let mut used = std::collections::HashSet::new();
        for rank in 0..retrieved {
            let mut doc = rng.below(200);
            while !used.insert(doc) {
                doc = (doc + 1) % 200;
            }
            let score = rng.below(8) as f64 / 4.0;
            run.push_str(&format!("{qid} Q0 d{doc} {rank} {score} tag\n"));
        }
        if rng.below(10) == 0 {
            run.push_str(&format!("u{qid} Q0 d1 0 1.5 tag\n"));
        }
    }
    (qrels, run)
}

/// The run's lines in a shuffled order (each query's lines apart).
fn shuffled(run: &str, seed: u64) -> String {
    let mut rng = Rng(seed);
    let mut lines: Vec<&str> = run.lines().collect();
    for i in (1..lines.len()).rev() {
        lines.swap(i, rng.below(i as u64 + 1) as usize);
    }
    lines.iter().map(|l| format!("{l}\n")).collect()
}

struct Output {
    stdout: Vec<u8>,
    stderr: String,
    code: i32,
}

/// `rankscope trec_eval ARGS` in `dir`, `stdin` written to it.
fn cli(dir: &Path, args: &[String], stdin: &[u8], version: Option<&str>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_rankscope"));
    match version {
        Some(v) => command.env("RANKSCOPE_TREC_EVAL_VERSION", v),
        None => command.env_remove("RANKSCOPE_TREC_EVAL_VERSION"),
    };
    let mut child = command
        .arg("trec_eval")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("rankscope runs");
    let mut input = child.stdin.take().expect("piped");
    let stdin = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&stdin);
    });
    let out = child.wait_with_output().expect("ends");
    writer.join().expect("written");
    Output {
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    }
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("rankscope-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// The flag sets every path is checked with.
const FLAGS: &[&[&str]] = &[
    &["-m", "official"],
    &["-q", "-m", "all_trec"],
    &["-c", "-q", "-m", "all_trec"],
    &["-J", "-q", "-m", "official"],
    &["-M", "7", "-q", "-m", "official"],
    &["-c", "-J", "-M", "5", "-m", "all_trec"],
    &[
        "-q",
        "-n",
        "-l",
        "2",
        "-m",
        "ndcg_cut.5,10",
        "-m",
        "relstring.10",
    ],
];

#[test]
fn both_cores_and_streams_print_the_one_thread_path_s_bytes() {
    let dir = temp_dir("streams");
    for missing in [false, true] {
        check_every_path(&dir, generate(2500, 7, missing), missing);
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Every flag set (those with `-c` only when the run lacks judged
/// queries), in 10.0 and 9.0.x, the run grouped and shuffled, as a file
/// and through standard input, against the one-thread path.
fn check_every_path(dir: &Path, (qrels, run): (String, String), missing: bool) {
    let scrambled = shuffled(&run, 11);
    std::fs::write(dir.join("q.qrels"), &qrels).expect("written");
    std::fs::write(dir.join("grouped.run"), &run).expect("written");
    std::fs::write(dir.join("shuffled.run"), &scrambled).expect("written");
    // large enough to be read as two parts, and there is a place to cut it
    assert!(run.len() > 1 << 20, "{} bytes", run.len());
    let mut file = std::fs::File::open(dir.join("grouped.run")).expect("opens");
    assert!(rankscope::trec_eval::stream::split_point(&mut file, run.len() as u64 / 2).is_some());
    for (version, env) in [(Version::V10, None), (Version::V9, Some("9.0.8"))] {
        // 9.0.x differs in a few measures and in queries without results
        let flags = if version == Version::V9 {
            &FLAGS[1..3]
        } else {
            FLAGS
        };
        for flags in flags
            .iter()
            .filter(|f| !missing || version == Version::V9 || f.contains(&"-c"))
        {
            let with = |run_name: &str| -> Vec<String> {
                flags
                    .iter()
                    .map(|f| f.to_string())
                    .chain(["q.qrels".into(), run_name.into()])
                    .collect()
            };
            for (name, text) in [("grouped.run", &run), ("shuffled.run", &scrambled)] {
                let expected = in_memory(
                    version,
                    &with(name),
                    &[("q.qrels", qrels.as_bytes()), (name, text.as_bytes())],
                )
                .expect("evaluates");
                assert!(expected.len() > 100, "{flags:?}");
                let file = cli(dir, &with(name), b"", env);
                assert_eq!(file.code, 0, "{flags:?} {name}: {}", file.stderr);
                assert!(
                    file.stdout == expected,
                    "{version:?} {flags:?} {name}: the file's output differs"
                );
                let piped = cli(dir, &with("-"), text.as_bytes(), env);
                assert_eq!(piped.code, 0, "{flags:?} - {name}: {}", piped.stderr);
                assert!(
                    piped.stdout == expected,
                    "{version:?} {flags:?} {name} through -: the output differs"
                );
            }
        }
    }
}

#[test]
fn errors_in_a_part_are_numbered_and_ordered_as_the_one_thread_path_s() {
    let dir = temp_dir("stream-errors");
    let (qrels, run) = generate(2500, 3, false);
    std::fs::write(dir.join("q.qrels"), &qrels).expect("written");
    let lines: Vec<&str> = run.lines().collect();
    let damaged = |at: usize, with: &str| -> String {
        let mut out = String::new();
        for (i, l) in lines.iter().enumerate() {
            out.push_str(if i == at { with } else { l });
            out.push('\n');
        }
        out
    };
    let n = lines.len();
    let cases = [
        // a malformed line in the head, in the tail, in both
        damaged(10, "1 Q0 d 1"),
        damaged(n - 10, "1 Q0 d 1"),
        damaged(n * 3 / 4, "1 Q0"),
        // a NUL byte in the head: the rest is not read (judged queries then lack results)
        damaged(n / 4, "1 Q0 d1 1 0.5 x\0"),
        // a duplicate document, evaluated in either part
        damaged(n - 5, lines[n - 6]),
        damaged(20, lines[19]),
    ];
    let cases: Vec<String> = cases
        .iter()
        .cloned()
        .chain([{
            let mut both = damaged(n - 3, "x");
            both.insert_str(0, "a b\n");
            both
        }])
        .collect();
    for (i, text) in cases.iter().enumerate() {
        std::fs::write(dir.join("bad.run"), text).expect("written");
        for flags in [&["-m", "official"][..], &["-q", "-m", "all_trec"]] {
            let args: Vec<String> = flags
                .iter()
                .map(|f| f.to_string())
                .chain(["q.qrels".into(), "bad.run".into()])
                .collect();
            let expected = in_memory(
                Version::V10,
                &args,
                &[("q.qrels", qrels.as_bytes()), ("bad.run", text.as_bytes())],
            );
            let got = cli(&dir, &args, b"", None);
            match expected {
                Ok(stdout) => {
                    assert_eq!(got.code, 0, "case {i}: {}", got.stderr);
                    assert!(got.stdout == stdout, "case {i}: the output differs");
                }
                Err(message) => {
                    assert_ne!(got.code, 0, "case {i}");
                    assert_eq!(got.stderr, message, "case {i}");
                }
            }
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A grouped run of `blocks` blocks of about 1 MiB, written to `out`: its
/// first block has the judged queries (`judged`), every later one 8,000
/// queries no judgment names (read, then skipped, as trec_eval does).
fn write_large_run(out: &mut dyn Write, judged: &str, blocks: usize) -> std::io::Result<()> {
    out.write_all(judged.as_bytes())?;
    // one block's lines, the block's number written into each qid
    let mut template = Vec::new();
    let mut digits = Vec::new();
    for q in 0..8000 {
        for (doc, rank, score) in [(7, 1, "0.5"), (9, 2, "0.25"), (3, 3, "0.25")] {
            digits.push(template.len() + 1);
            template.extend_from_slice(
                format!("z00000000_{q:04} Q0 d{doc} {rank} {score} tag\n").as_bytes(),
            );
        }
    }
    for block in 1..blocks {
        let number = format!("{block:08}");
        for &at in &digits {
            template[at..at + 8].copy_from_slice(number.as_bytes());
        }
        out.write_all(&template)?;
    }
    Ok(())
}

#[cfg(unix)]
#[test]
fn a_run_larger_than_the_memory_allowed_is_streamed_from_standard_input() {
    let dir = temp_dir("stream-large");
    let (qrels, judged) = generate(300, 5, false);
    std::fs::write(dir.join("q.qrels"), &qrels).expect("written");
    // address space for the program, its threads and the judgments: far
    // less than the run
    let limit_mib = 192;
    let blocks = 400;
    let flags = ["-c", "-q", "-m", "all_trec"];
    {
        let expected = in_memory(
            Version::V10,
            &flags
                .iter()
                .map(|f| f.to_string())
                .chain(["q.qrels".into(), "j.run".into()])
                .collect::<Vec<_>>(),
            &[("q.qrels", qrels.as_bytes()), ("j.run", judged.as_bytes())],
        )
        .expect("evaluates");
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(format!(
                "ulimit -v {} && exec \"$0\" trec_eval \"$@\"",
                limit_mib * 1024
            ))
            .arg(env!("CARGO_BIN_EXE_rankscope"))
            .args(flags)
            .args(["q.qrels", "-"])
            .env_remove("RANKSCOPE_TREC_EVAL_VERSION")
            .current_dir(&dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("sh runs");
        let mut input = child.stdin.take().expect("piped");
        let judged_lines = judged.clone();
        let writer = std::thread::spawn(move || {
            let mut counted = Counted(&mut input, 0);
            let _ = write_large_run(&mut counted, &judged_lines, blocks);
            counted.1
        });
        let out = child.wait_with_output().expect("ends");
        let written = writer.join().expect("written");
        assert!(
            written > (limit_mib as u64 + 64) << 20,
            "the run ({written} bytes) is larger than the limit"
        );
        assert!(
            out.status.success(),
            "{flags:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stdout == expected, "{flags:?}: the output differs");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A writer that counts what it wrote.
struct Counted<'a>(&'a mut dyn Write, u64);

impl Write for Counted<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.0.write(buf)?;
        self.1 += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

#[test]
fn an_ungrouped_run_past_what_standard_input_keeps_is_refused_with_the_sort_command() {
    let dir = temp_dir("stream-ungrouped");
    let (qrels, judged) = generate(50, 9, false);
    std::fs::write(dir.join("q.qrels"), &qrels).expect("written");
    let first = judged.lines().next().expect("a line").to_string();
    let mut run = Vec::new();
    write_large_run(&mut run, &judged, 90).expect("written");
    // the first query again, after 70 MiB of others
    run.extend_from_slice(first.replace(" d", " dx").as_bytes());
    run.push(b'\n');
    let args: Vec<String> = ["-m", "official", "q.qrels", "-"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let out = cli(&dir, &args, &run, None);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("not grouped by query")
            && out
                .stderr
                .contains("LC_ALL=C sort -s -b -k1,1 RUN | rankscope trec_eval QRELS -"),
        "{}",
        out.stderr
    );
    assert!(out.stdout.is_empty());
    std::fs::remove_dir_all(&dir).ok();
}
