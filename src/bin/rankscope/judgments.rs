//! `rankscope judgments …` (agree, rankings, bounds, pool, merge) and
//! `eval --judgments NAME|all` over judgment sets given as `--qrels NAME=FILE`.

use std::io::Write;
use std::process::ExitCode;

use clap::Subcommand;

use rankscope::core::evaluate::{evaluate_on_threads, Conventions, Dataset, Report};
use rankscope::core::judgments::SurvivalOptions;
use rankscope::core::registry::{self, Kind, MetricId};
use rankscope::judgments::{self as j, Sets};
use rankscope::parse::LoadOptions;
use rankscope::text::terminal_safe;

use crate::args::{Args, ConventionFlags, OutputFormat};
use crate::{fail, load, named_metrics, parse_files, print_report, warn};

/// `rankscope judgments`: its own command line (parsed apart from the
/// others' so that the CLI's argument module does not depend on this one).
#[derive(clap::Parser)]
#[command(
    name = "rankscope judgments",
    args_override_self = true,
    about = "Judgment sets side by side: agreement, the runs' orderings under each, bounds from unjudged documents, the pool to judge next, merges"
)]
pub struct Judgments {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// Agreement of two judgment sets on the documents both judge: Cohen's kappa on the labels
    /// binarised at the relevance level, weighted kappa (linear, quadratic) and Krippendorff's
    /// alpha (ordinal, interval) on grades, the grade confusion matrix, per-query agreement, and
    /// the share of each set's judgments the other does not make.
    Agree(Agree),
    /// The runs ordered by a metric's mean under two judgment sets: Kendall's tau_b, tau_AP,
    /// Spearman's rho and RBO_EXT between the orderings, each with a paired bootstrap 95%
    /// interval over queries, and the pairs of runs whose order flips with each side's paired t-test.
    Rankings(Rankings),
    /// Every metric of each run with its bounds: unjudged documents taken as not relevant, and as
    /// relevant at a grade; Judged@k at each cutoff; a warning where a run's bound width exceeds a
    /// share of its difference from the baseline.
    Bounds(Bounds),
    /// The depth-k pool of the runs that the judgments do not cover, in the order to judge it
    /// (a greedy rule: the documents whose judgment narrows the bounds of the runs' differences
    /// the most first), as a TREC run file or JSON.
    Pool(Pool),
    /// New judgments merged into a set: every judgment of each, conflicts listed (never replaced silently).
    Merge(Merge),
}

#[derive(clap::Args)]
pub struct Common {
    /// text (default) or json (every number).
    #[arg(long, value_name = "FORMAT", default_value = "text")]
    pub format: String,
}

#[derive(clap::Args)]
pub struct Agree {
    /// Judgment set A (FILE or NAME=FILE).
    #[arg(value_name = "A")]
    pub a: String,
    /// Judgment set B (FILE or NAME=FILE).
    #[arg(value_name = "B")]
    pub b: String,
    /// Relevant if grade >= this (the binary labels of kappa; default 1).
    #[arg(
        long = "relevance-level",
        short = 'l',
        value_name = "L",
        default_value = "1"
    )]
    pub level: i32,
    /// Each query's agreement too (text; JSON always has it).
    #[arg(long = "per-query", short = 'q')]
    pub per_query: bool,
    #[command(flatten)]
    pub common: Common,
}

#[derive(clap::Args)]
pub struct SetFiles {
    /// Run files.
    #[arg(value_name = "RUN")]
    pub runs: Vec<String>,
    /// A judgment set: NAME=FILE (or FILE, named by its file name); repeat for more.
    #[arg(long, value_name = "NAME=FILE")]
    pub qrels: Vec<String>,
}

#[derive(clap::Args)]
pub struct Rankings {
    #[command(flatten)]
    pub sets: SetFiles,
    /// The set whose ordering is the reference (A; default the first --qrels).
    #[arg(long, value_name = "NAME")]
    pub a: Option<String>,
    /// The other set (B; default the second --qrels).
    #[arg(long, value_name = "NAME")]
    pub b: Option<String>,
    /// The metric the runs are ordered by, a mean over queries (default nDCG@10).
    #[arg(long, value_name = "ID")]
    pub metric: Option<String>,
    /// RBO's persistence p, in (0, 1).
    #[arg(long, default_value = "0.9")]
    pub persistence: f64,
    /// Bootstrap resamples of the queries (0: no intervals).
    #[arg(long, default_value = "1000")]
    pub resamples: usize,
    #[arg(long, default_value = "42")]
    pub seed: u64,
    /// The level a flipped pair's paired t-test p is read at.
    #[arg(long, default_value = "0.05")]
    pub alpha: f64,
    #[command(flatten)]
    pub conventions: ConventionFlags,
    #[command(flatten)]
    pub common: Common,
}

#[derive(clap::Args)]
pub struct Bounds {
    #[command(flatten)]
    pub sets: SetFiles,
    /// The set the values are computed under (default the first --qrels).
    #[arg(long, value_name = "NAME")]
    pub judgments: Option<String>,
    /// Metric ids (default: eval's).
    #[arg(long, value_name = "ID,...")]
    pub metrics: Option<String>,
    /// Cutoffs of the @k metrics and of Judged@k (default 1,3,5,10,20,100,1000).
    #[arg(long, short = 'k', value_name = "1,5,10")]
    pub cutoffs: Option<String>,
    /// The grade unjudged documents get for the upper bound (default: the relevance level).
    #[arg(long, value_name = "G")]
    pub grade: Option<i32>,
    /// The run the others are compared with (default the first).
    #[arg(long, value_name = "NAME")]
    pub baseline: Option<String>,
    /// Warn where a run's bound width exceeds this share of its difference from the baseline.
    #[arg(long, default_value = "0.5")]
    pub share: f64,
    /// Judged@k per query too (JSON).
    #[arg(long = "per-query", short = 'q')]
    pub per_query: bool,
    #[command(flatten)]
    pub conventions: ConventionFlags,
    #[command(flatten)]
    pub common: Common,
}

#[derive(clap::Args)]
pub struct Pool {
    #[command(flatten)]
    pub sets: SetFiles,
    /// The set whose judgments the pool leaves out (default the first --qrels; none: every document).
    #[arg(long, value_name = "NAME")]
    pub judgments: Option<String>,
    /// Each run's top documents per query that enter the pool.
    #[arg(long, default_value = "10")]
    pub depth: usize,
    /// Rank by the pairs (baseline, run) only (default: every pair of runs).
    #[arg(long, value_name = "NAME")]
    pub baseline: Option<String>,
    /// Write the pool file here (text: else to standard output).
    #[arg(long, value_name = "FILE")]
    pub out: Option<String>,
    #[command(flatten)]
    pub common: Common,
}

#[derive(clap::Args)]
pub struct Merge {
    /// The set merged into (FILE or NAME=FILE).
    #[arg(value_name = "BASE")]
    pub base: String,
    /// The new judgments (FILE or NAME=FILE).
    #[arg(value_name = "NEW")]
    pub new: String,
    /// Whose grade a conflict keeps: base (default) or new.
    #[arg(long, default_value = "base")]
    pub prefer: String,
    /// The merged qrels file to write.
    #[arg(long, value_name = "FILE", required = true)]
    pub out: String,
    #[command(flatten)]
    pub common: Common,
}

fn json_format(c: &Common) -> Result<bool, String> {
    match c.format.as_str() {
        "text" | "table" => Ok(false),
        "json" => Ok(true),
        f => Err(format!("--format {f}: expected one of text, json")),
    }
}

/// Reads the judgment sets (named) and the runs.
fn read(sets: &[String], runs: &[String]) -> Result<Sets, String> {
    let named: Vec<(String, String)> = sets
        .iter()
        .map(|s| j::set_name(s, |p| std::path::Path::new(p).exists()))
        .collect();
    let base = LoadOptions {
        audience: rankscope::parse::Audience::CommandLine,
        ..LoadOptions::default()
    };
    let qrels = LoadOptions {
        judgments: true,
        ..base.clone()
    };
    let mut files: Vec<(&String, LoadOptions)> =
        named.iter().map(|(_, f)| (f, qrels.clone())).collect();
    files.extend(runs.iter().map(|r| (r, base.clone())));
    let mut parsed = parse_files(&files, Some(16 << 30)).into_iter();
    let mut take = |path: &str| -> Result<_, String> {
        match parsed.next() {
            Some(Ok(Ok(p))) => Ok(p),
            Some(Ok(Err(e))) => Err(e.to_string()),
            Some(Err(e)) => Err(format!("{path}: cannot read the file ({e})")),
            None => Err(format!("{path}: not read")),
        }
    };
    let mut set_parsed = Vec::new();
    for (name, file) in &named {
        set_parsed.push((name.clone(), file.clone(), take(file)?));
    }
    let mut run_parsed = Vec::new();
    for r in runs {
        run_parsed.push((r.clone(), take(r)?));
    }
    Sets::build(set_parsed, run_parsed)
}

fn conventions(flags: ConventionFlags) -> Result<Conventions, String> {
    let mut conv = Conventions::default();
    for (key, flag, value) in flags.0 {
        rankscope::core::conventions::set(&mut conv, key, &value)
            .map_err(|e| format!("{flag} {value}: {e}"))?;
    }
    Ok(conv)
}

fn run_index(s: &Sets, name: &str) -> Result<usize, String> {
    s.data
        .runs
        .iter()
        .position(|r| r.name == name)
        .ok_or_else(|| format!("no run is named '{name}'"))
}

fn print(json: bool, doc: &impl serde::Serialize, text: impl FnOnce() -> String) {
    let out = if json {
        serde_json::to_string_pretty(doc).unwrap_or_default() + "\n"
    } else {
        terminal_safe(&text()).into_owned()
    };
    let _ = std::io::stdout().lock().write_all(out.as_bytes());
}

/// `rankscope judgments ARGS`.
pub fn main(argv: &[String]) -> ExitCode {
    use clap::Parser as _;
    let argv = std::iter::once("rankscope judgments".to_string()).chain(argv.iter().cloned());
    let cmd = match Judgments::try_parse_from(argv) {
        Ok(cmd) => cmd,
        Err(e) => {
            // help to standard output (exit 0), mistakes to standard error (exit 2)
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    match run_command(cmd.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(e),
    }
}

fn run_command(cmd: Command) -> Result<(), String> {
    match cmd {
        Command::Agree(a) => {
            let json = json_format(&a.common)?;
            let s = read(&[a.a, a.b], &[])?;
            warn(&s.warnings);
            let doc = j::agreement(&s, 0, 1, a.level);
            print(json, &doc, || doc.to_text(a.per_query));
        }
        Command::Rankings(r) => {
            let json = json_format(&r.common)?;
            if !(r.persistence > 0.0 && r.persistence < 1.0) {
                return Err(format!(
                    "--persistence {}: expected a number between 0 and 1",
                    r.persistence
                ));
            }
            if !(r.alpha > 0.0 && r.alpha < 1.0) {
                return Err(format!(
                    "--alpha {}: expected a level between 0 and 1",
                    r.alpha
                ));
            }
            let conv = conventions(r.conventions)?;
            let mut s = read(&r.sets.qrels, &r.sets.runs)?;
            warn(&s.warnings);
            if s.sets.len() < 2 {
                return Err(
                    "rankings compares two judgment sets: give --qrels A=FILE --qrels B=FILE"
                        .into(),
                );
            }
            let a = r.a.as_deref().map_or(Ok(0), |n| s.index(n))?;
            let b =
                r.b.as_deref()
                    .map_or(Ok(if a == 1 { 0 } else { 1 }), |n| s.index(n))?;
            let options = SurvivalOptions {
                persistence: r.persistence,
                resamples: r.resamples,
                seed: r.seed,
                alpha: r.alpha,
            };
            let metric = r
                .metric
                .unwrap_or_else(|| format!("{}@10", registry::id::NDCG));
            let doc = j::rankings(&mut s, a, b, &metric, &conv, &options)?;
            print(json, &doc, || doc.to_text());
        }
        Command::Bounds(b) => {
            let json = json_format(&b.common)?;
            let conv = conventions(b.conventions)?;
            let cutoffs: Vec<usize> = match &b.cutoffs {
                Some(v) => v
                    .split(',')
                    .map(|k| k.trim().parse::<usize>().ok().filter(|&k| k > 0))
                    .collect::<Option<_>>()
                    .ok_or_else(|| format!("--cutoffs {v}: cutoffs are positive whole numbers"))?,
                None => registry::DEFAULT_CUTOFFS.to_vec(),
            };
            let metrics: Vec<MetricId> = match &b.metrics {
                Some(ids) if ids == "all" => registry::all_metrics(Kind::Ranking, &cutoffs),
                Some(ids) => ids
                    .split(',')
                    .map(|m| MetricId::parse(m, Kind::Ranking))
                    .collect::<Result<_, _>>()?,
                None => registry::default_metrics(Kind::Ranking, &cutoffs),
            };
            if b.share.is_nan() || b.share < 0.0 {
                return Err(format!("--share {}: expected a number >= 0", b.share));
            }
            let mut s = read(&b.sets.qrels, &b.sets.runs)?;
            warn(&s.warnings);
            if s.sets.is_empty() || s.data.runs.is_empty() {
                return Err("bounds needs runs and their judgments (--qrels)".into());
            }
            let set = b.judgments.as_deref().map_or(Ok(0), |n| s.index(n))?;
            let baseline = b.baseline.as_deref().map_or(Ok(0), |n| run_index(&s, n))?;
            let grade = b.grade.unwrap_or(conv.relevance_level);
            let doc = j::bounds(
                &mut s,
                set,
                &metrics,
                &conv,
                grade,
                &cutoffs,
                Some(baseline),
                b.share,
                b.per_query,
            );
            print(json, &doc, || doc.to_text());
            if !json {
                warn(&doc.warnings);
            }
        }
        Command::Pool(p) => {
            let json = json_format(&p.common)?;
            if p.depth == 0 {
                return Err("--depth 0: expected a positive whole number".into());
            }
            let mut s = read(&p.sets.qrels, &p.sets.runs)?;
            warn(&s.warnings);
            if s.data.runs.is_empty() {
                return Err("pool reads runs: give the run files".into());
            }
            let set = match (&p.judgments, s.sets.is_empty()) {
                (Some(n), _) => Some(s.index(n)?),
                (None, true) => None,
                (None, false) => Some(0),
            };
            let baseline = p
                .baseline
                .as_deref()
                .map(|n| run_index(&s, n))
                .transpose()?;
            let doc = j::pool(&mut s, set, p.depth, baseline);
            let file = doc.to_pool_file();
            if let Some(out) = &p.out {
                std::fs::write(out, &file).map_err(|e| format!("{out}: {e}"))?;
            }
            if json {
                print(true, &doc, String::new);
            } else if p.out.is_none() {
                // its bytes when piped, ids escaped on a terminal
                crate::emit(&mut std::io::stdout().lock(), &file);
            } else {
                eprintln!(
                    "{} documents to judge written to {}",
                    doc.documents.len(),
                    terminal_safe(p.out.as_deref().unwrap_or_default())
                );
            }
        }
        Command::Merge(m) => {
            let json = json_format(&m.common)?;
            let prefer_new = match m.prefer.as_str() {
                "base" => false,
                "new" => true,
                v => return Err(format!("--prefer {v}: expected base or new")),
            };
            let s = read(&[m.base, m.new], &[])?;
            warn(&s.warnings);
            let doc = j::merge(&s, 0, 1, prefer_new);
            std::fs::write(&m.out, &doc.qrels).map_err(|e| format!("{}: {e}", m.out))?;
            print(json, &doc, || doc.to_text());
        }
    }
    Ok(())
}

/// Whether `--qrels` names judgment sets (`NAME=FILE`) or `--judgments` is given.
fn has_sets(a: &Args) -> bool {
    a.judgments.is_some()
        || a.qrels.iter().any(|q| {
            q.split_once('=')
                .is_some_and(|(n, f)| !n.is_empty() && !f.is_empty())
                && !std::path::Path::new(q).exists()
        })
}

/// `eval` and `compare` with judgment sets: under the set `--judgments`
/// names (default the first: the command then runs as with that file as
/// `--qrels`, and `None` is returned), or with `eval --judgments all` under
/// each, its models named `RUN [SET]` in one table.
pub fn eval_under_sets(a: &mut Args) -> Option<ExitCode> {
    if !has_sets(a) {
        return None;
    }
    let named: Vec<(String, String)> = a
        .qrels
        .iter()
        .map(|s| j::set_name(s, |p| std::path::Path::new(p).exists()))
        .collect();
    let chosen = a
        .judgments
        .clone()
        .unwrap_or_else(|| named.first().map(|n| n.0.clone()).unwrap_or_default());
    if chosen != "all" {
        let Some((_, file)) = named.iter().find(|n| n.0 == chosen) else {
            let names: Vec<&str> = named.iter().map(|n| n.0.as_str()).collect();
            return Some(fail(format!(
                "--judgments {chosen}: no judgment set is named so (the sets: {})",
                names.join(", ")
            )));
        };
        a.qrels = vec![file.clone()];
        return None;
    }
    if a.compare.is_some() {
        return Some(fail("compare tests runs under one judgment set at a time: --judgments NAME (eval --judgments all shows every set; rankscope judgments rankings compares the orderings)"));
    }
    if a.format == OutputFormat::TrecEval {
        return Some(fail(
            "--format trec_eval evaluates under one judgment set: --judgments NAME",
        ));
    }
    let metrics = match named_metrics(a, Kind::Ranking).and_then(|m| match m {
        Some(ids) if ids.len() == 1 && ids[0] == "all" => {
            Ok(registry::all_metrics(Kind::Ranking, &a.cutoffs))
        }
        Some(ids) => ids
            .iter()
            .map(|s| MetricId::parse(s, Kind::Ranking))
            .collect(),
        None => Ok(registry::default_metrics(Kind::Ranking, &a.cutoffs)),
    }) {
        Ok(m) => m,
        Err(e) => return Some(fail(e)),
    };
    if a.complete && !a.queries_set_explicitly {
        a.conv.query_set = rankscope::core::ranking::QuerySet::Qrels;
    }
    let mut merged: Option<Report> = None;
    let mut warnings = Vec::new();
    for (name, file) in &named {
        let given = std::mem::replace(&mut a.qrels, vec![file.clone()]);
        let loaded = load(a);
        a.qrels = given;
        let (ws, w) = match loaded {
            Ok(loaded) => loaded,
            Err(code) => return Some(code),
        };
        warnings.extend(w);
        let Some(Dataset::Ranking(d)) = ws.dataset(Kind::Ranking) else {
            return Some(fail("judgment sets judge ranking runs: give the run files"));
        };
        let mut report = evaluate_on_threads(&Dataset::Ranking(d), &a.conv, &metrics);
        warnings.extend(report.warnings.drain(..).map(|w| format!("[{name}] {w}")));
        for m in &mut report.models {
            m.name = format!("{} [{name}]", m.name);
        }
        match &mut merged {
            Some(all) => all.models.append(&mut report.models),
            None => merged = Some(report),
        }
    }
    let report = merged?;
    let conventions = serde_json::to_value(&report.conventions).unwrap_or_default();
    Some(
        print_report(a, &report, false, &conventions, &warnings)
            .map_or_else(fail, |()| ExitCode::SUCCESS),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_is_well_formed() {
        <Judgments as clap::CommandFactory>::command().debug_assert();
    }

    #[test]
    fn a_set_is_named_by_its_name_or_its_file() {
        let none = |_: &str| false;
        assert_eq!(
            j::set_name("llm=a/b.qrels", none),
            ("llm".into(), "a/b.qrels".into())
        );
        assert_eq!(
            j::set_name("a/b.qrels", none),
            ("b.qrels".into(), "a/b.qrels".into())
        );
        // a file whose name holds '=' is that file
        assert_eq!(j::set_name("x=y", |_| true), ("x=y".into(), "x=y".into()));
    }
}
