//! `rankscope`: the metric core on the command line.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use rankscope::core::evaluate::{evaluate_on_threads, Dataset, Report};
use rankscope::core::ranking::QuerySet;
use rankscope::core::registry::{self, Kind, MetricId};
use rankscope::parse::split::{self, Part};
use rankscope::parse::{LoadError, LoadOptions, Parsed, Parser, Workspace};
use rankscope::report::Table;
use rankscope::text::terminal_safe;

mod args;
mod catalog;
mod judgments;
mod leaderboard;
mod presets;

use args::{Args, Cli, Cmd, OutputFormat};
use clap::Parser as _;

fn fail(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("rankscope: {}", terminal_safe(&msg.to_string()));
    ExitCode::from(2)
}

/// trec_eval 10.0's command line on the same binary: `rankscope trec_eval ARGS`,
/// or this program installed (linked) under the name `trec_eval`.
fn trec_eval(args: &[String]) -> ExitCode {
    use rankscope::trec_eval::Version;
    let version = match std::env::var("RANKSCOPE_TREC_EVAL_VERSION") {
        Err(_) => Version::V10,
        Ok(v) => match rankscope::trec_eval::parse_version(&v) {
            Some(version) => version,
            None => {
                return fail(format!(
                    "RANKSCOPE_TREC_EVAL_VERSION is '{v}'; it can be 10.0 (the default) or 9.0.x"
                ))
            }
        },
    };
    // trec_eval's bytes exactly when piped; on a terminal, ids and run tags
    // from the files never act on it (escaped as every command's output is)
    let shown = |w: Box<dyn Write>, terminal: bool| -> Box<dyn Write> {
        if terminal {
            Box::new(rankscope::text::TerminalSafe::new(w))
        } else {
            w
        }
    };
    let (out, err) = (std::io::stdout(), std::io::stderr());
    let (out_terminal, err_terminal) = (out.is_terminal(), err.is_terminal());
    let code = rankscope::trec_eval::run_as(
        version,
        args,
        &mut std::io::stdin().lock(),
        &mut shown(Box::new(out.lock()), out_terminal),
        &mut shown(Box::new(err.lock()), err_terminal),
    );
    ExitCode::from(code as u8)
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let invoked_as = std::env::args().next().unwrap_or_default();
    if std::path::Path::new(&invoked_as)
        .file_stem()
        .is_some_and(|s| s == "trec_eval")
    {
        return trec_eval(&argv);
    }
    if argv.first().is_some_and(|a| a == "trec_eval") {
        return trec_eval(&argv[1..]);
    }
    if argv.first().is_some_and(|a| a == "judgments") {
        return judgments::main(&argv[1..]);
    }
    if argv.is_empty() {
        let _ = <Cli as clap::CommandFactory>::command().print_help();
        return ExitCode::SUCCESS;
    }
    let cli = match Cli::try_parse_from(std::iter::once("rankscope".to_string()).chain(argv)) {
        Ok(cli) => cli,
        Err(e) => {
            // help and --version to standard output (exit 0), mistakes to standard error (exit 2)
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    match cli.command {
        Cmd::Eval(e) => e.args().map_or_else(fail, run_eval),
        Cmd::Compare(c) => c.args().map_or_else(fail, run_eval),
        Cmd::Diagnose(d) => d.args().map_or_else(fail, run_diagnose),
        Cmd::Generate(g) => generate(g),
        Cmd::Catalog(c) => catalog::run(c, |f| f.0),
        Cmd::Leaderboard(l) => leaderboard::run(l),
        Cmd::Presets => presets::list(),
        Cmd::ExplainNumber(x) => x
            .args()
            .map_or_else(fail, |(a, asked)| presets::explain_number(a, asked)),
        Cmd::Metrics => {
            let mut list = String::new();
            for m in registry::METRICS {
                let id = match m.cutoff {
                    registry::Cutoff::None => m.base.to_string(),
                    registry::Cutoff::Required => format!("{}@k", m.base),
                    registry::Cutoff::Optional => format!("{}[@k]", m.base),
                };
                list.push_str(&format!(
                    "{:<12} {:<24} {:<32} {}\n",
                    format!("{:?}", m.kind).to_lowercase(),
                    id,
                    m.trec_name()
                        .map_or(String::new(), |t| format!("trec_eval {t}")),
                    m.formula
                ));
            }
            // a closed pipe (`| head`) ends the listing quietly
            let _ = std::io::Write::write_all(&mut std::io::stdout(), list.as_bytes());
            ExitCode::SUCCESS
        }
    }
}

/// A file read in slices where the parser asks (`split::Source`), each read
/// blocking until its bytes are in.
struct FileSource<'a> {
    path: &'a str,
    file: std::fs::File,
    /// The offset of the file's cursor.
    at: u64,
}

impl<'a> FileSource<'a> {
    fn open(path: &'a str) -> std::io::Result<Self> {
        Ok(FileSource {
            path,
            file: std::fs::File::open(path)?,
            at: 0,
        })
    }
}

impl split::Source for FileSource<'_> {
    async fn read(&mut self, start: u64, end: u64, buf: &mut Vec<u8>) -> Result<(), LoadError> {
        use std::io::{Read, Seek};
        let read = |s: &mut Self, buf: &mut Vec<u8>| -> std::io::Result<()> {
            if s.at != start {
                s.file.seek(std::io::SeekFrom::Start(start))?;
            }
            buf.resize((end - start) as usize, 0);
            s.file.read_exact(buf)?;
            s.at = end;
            Ok(())
        };
        read(self, buf).map_err(|e| {
            self.at = u64::MAX;
            LoadError::single(
                self.path,
                0,
                0,
                "a readable file",
                format!("it could not be read ({e})"),
                None,
            )
        })
    }
}

/// Reads and parses `files`, as many at once as the machine has cores, and
/// a large one as two parts at once (`parse::split`: the same result as one
/// parser's). Per file, its parse, or why it could not be read.
fn parse_files(
    files: &[(&String, LoadOptions)],
    max_inflated: Option<u64>,
) -> Vec<std::io::Result<Result<Parsed, LoadError>>> {
    let parser = |path: &str, options: &LoadOptions| {
        let mut parser = Parser::new(path, options.clone());
        parser.limit_inflated(max_inflated);
        parser
    };
    // each part reads its file in 1 MiB slices (the file is never held whole)
    let one = |path: &str, options: &LoadOptions| -> std::io::Result<Result<Parsed, LoadError>> {
        if path == "-" {
            return Ok(parser(STDIN, options).read_all(std::io::stdin().lock()));
        }
        let meta = std::fs::metadata(path)?;
        if !meta.is_file() {
            // a pipe (`<(zcat run.gz)`), a FIFO, a character device: read once, in order
            return Ok(parser(path, options).read_all(std::fs::File::open(path)?));
        }
        let total = meta.len();
        let part = |which| -> std::io::Result<split::PartEnd> {
            let mut source = FileSource::open(path)?;
            let parser = parser(path, options);
            Ok(split::parse_part_now(
                parser,
                total,
                which,
                1 << 20,
                &mut source,
            ))
        };
        if total < split::SPLIT_MIN {
            return Ok(part(Part::Whole)?.outcome);
        }
        let (head, tail) = std::thread::scope(|s| {
            let tail = s.spawn(|| part(Part::Tail));
            (part(Part::Head), tail.join())
        });
        Ok(match (head?, tail) {
            (head, Ok(Ok(tail))) => split::join_for(options.audience, path, head, tail),
            _ => part(Part::Whole)?.outcome,
        })
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let done = std::sync::Mutex::new(Vec::from_iter(files.iter().map(|_| None)));
    std::thread::scope(|s| {
        for _ in 0..cores.min(files.len()) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some((path, options)) = files.get(i) else {
                    break;
                };
                let parsed = one(path, options);
                if let Ok(mut done) = done.lock() {
                    done[i] = Some(parsed);
                }
            });
        }
    });
    let done = done.into_inner().unwrap_or_default();
    done.into_iter()
        .map(|d| d.unwrap_or_else(|| Err(std::io::Error::other("its parse stopped"))))
        .collect()
}

/// The name standard input (`-`) is shown under.
const STDIN: &str = "stdin";

/// Reads and merges every file of `a` (qrels first), with the warnings of
/// each; the exit code of the failure otherwise.
fn load(a: &Args) -> Result<(Workspace, Vec<String>), ExitCode> {
    if a.files.iter().chain(&a.qrels).filter(|f| *f == "-").count() > 1 {
        return Err(fail(
            "standard input (-) can be read only once: give it as one file",
        ));
    }
    let mut ws = Workspace::default();
    let mut warnings = Vec::new();
    let files: Vec<(&String, LoadOptions)> = a
        .qrels
        .iter()
        .chain(&a.files)
        .map(|path| {
            let mut options = a.options.clone();
            // --input-format names the FILE arguments (a relation format the
            // ones that are not runs: the parser reads a run as a run); the
            // --qrels files are judgments: qrels, or the judgments trec_eval's
            // -R reads in their place (z-scores go beside the qrels, -Z)
            if a.qrels.contains(path) {
                // judgments in any format the loader reads (TREC or JSON
                // qrels, a ranking CSV's relevance, held-out interactions),
                // or the judgments trec_eval's -R reads in their place
                let relation = a.options.format.filter(|f| {
                    matches!(
                        f,
                        rankscope::parse::Format::TrecPrefs
                            | rankscope::parse::Format::TrecQrelsPrefs
                            | rankscope::parse::Format::TrecQrelsJg
                    )
                });
                options.format = relation;
                options.judgments = relation.is_none();
            }
            (path, options)
        })
        .collect();
    // merged in the order given, as one file after another would be
    for ((path, _), parsed) in files.iter().zip(parse_files(&files, a.max_inflated)) {
        let path: &str = if *path == "-" { STDIN } else { path };
        let added = match parsed {
            Ok(Ok(parsed)) => ws.add(path, parsed),
            Ok(Err(e)) => Err(e),
            Err(e) => return Err(fail(format!("{path}: cannot read the file ({e})"))),
        };
        match added {
            Ok(summary) => {
                warnings.extend(summary.warnings.into_iter().map(|w| format!("{path}: {w}")))
            }
            Err(e) => {
                eprintln!("{}", terminal_safe(&e.to_string()));
                return Err(ExitCode::from(2));
            }
        }
    }
    // a run given before its judgments has them now (as the page's drop says)
    if ws.has_qrels {
        warnings.retain(|w| !w.ends_with(rankscope::parse::NO_QRELS));
    }
    Ok((ws, warnings))
}

/// The one data set of a workspace, or why there is not exactly one.
fn one_dataset(ws: &Workspace) -> Result<Dataset<'_>, String> {
    match ws.datasets().as_slice() {
        [d] => Ok(*d),
        [] if !ws.precomputed.is_empty() => Err(
            "these files are trec_eval output (values computed elsewhere): the app shows them as they are; the CLI evaluates runs with their qrels".into(),
        ),
        [] => Err("nothing to evaluate: a run needs its qrels (--qrels), and qrels need a run".into()),
        _ => Err("the files hold different kinds of data; evaluate one kind at a time".into()),
    }
}

fn run_eval(mut a: Args) -> ExitCode {
    if let Some(code) = judgments::eval_under_sets(&mut a) {
        return code;
    }
    let (ws, mut warnings) = match load(&a) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    if !ws.relations.is_empty() {
        return eval_relations(&a, &ws, &warnings);
    }
    // values computed elsewhere (trec_eval -q output, per-query values files)
    let precomputed = ws.datasets().is_empty() && !ws.precomputed.is_empty();
    let data = match one_dataset(&ws) {
        Ok(d) => Some(d),
        Err(_) if precomputed => None,
        Err(e) => return fail(e),
    };
    if a.format == OutputFormat::TrecEval {
        return print_trec_eval(&a, data);
    }
    if a.complete && !a.queries_set_explicitly {
        a.conv.query_set = QuerySet::Qrels;
    }
    let kind = data.map_or(Kind::Ranking, |d| d.kind());
    a.metrics = match named_metrics(&a, kind) {
        Ok(m) => m,
        Err(e) => return fail(e),
    };
    let metrics: Vec<MetricId> = match &a.metrics {
        _ if precomputed => Vec::new(),
        Some(ids) if ids.len() == 1 && ids[0] == "all" => registry::all_metrics(kind, &a.cutoffs),
        Some(ids) => match ids
            .iter()
            .map(|s| MetricId::parse(s, kind))
            .collect::<Result<Vec<_>, _>>()
        {
            Ok(m) => m,
            Err(e) => return fail(e),
        },
        None if a.compare.is_some() => {
            rankscope::compare::default_metrics(kind, a.cutoffs_given.then_some(&a.cutoffs[..]))
        }
        None => registry::default_metrics(kind, &a.cutoffs),
    };
    let report = match data {
        Some(data) => evaluate_on_threads(&data, &a.conv, &metrics),
        None => match ws.precomputed_report(a.metrics.as_deref()) {
            Ok(r) => r,
            Err(e) => return fail(format!("--metrics {e}")),
        },
    };
    warnings.extend(report.warnings.iter().cloned());
    if kind == Kind::Binary {
        let names = report.models.iter().map(|m| m.name.as_str());
        warnings.extend(a.conv.unknown_thresholds(names));
    }
    // values computed elsewhere follow the conventions they were computed with, unknown here
    let conventions = if precomputed {
        serde_json::Value::Null
    } else {
        serde_json::to_value(&report.conventions).unwrap_or_default()
    };
    let printed = match (&a.compare, data) {
        (Some(options), Some(Dataset::Binary(d))) => {
            print_binary_comparison(&a, options, d, &metrics, &warnings)
        }
        (Some(options), _) => print_comparison(&a, options, report, data, &conventions, &warnings),
        (None, _) => print_report(&a, &report, precomputed, &conventions, &warnings),
    };
    printed.map_or_else(fail, |()| ExitCode::SUCCESS)
}

/// The metric ids `--metrics` and, outside `--format trec_eval`, `-m`
/// name, `None` when neither is given. An `-m` value is metric ids as
/// `--metrics` takes them (`ndcg@10,map`), or trec_eval's measures as the
/// core metrics that print them (`ndcg_cut.5,10` is ndcg@5 and ndcg@10,
/// `recip_rank` is mrr).
fn named_metrics(a: &Args, kind: Kind) -> Result<Option<Vec<String>>, String> {
    use rankscope::trec_format::{parse_measures, Measure};
    if a.trec_measures.is_empty() {
        return Ok(a.metrics.clone());
    }
    let mut out = a.metrics.clone().unwrap_or_default();
    for v in &a.trec_measures {
        let ids: Vec<String> = v.split(',').map(|s| s.trim().to_string()).collect();
        let parsed: Result<Vec<_>, _> = (ids.iter())
            .filter(|s| *s != "all")
            .map(|s| MetricId::parse(s, kind))
            .collect();
        let why = match parsed {
            Ok(_) => {
                out.extend(ids);
                continue;
            }
            Err(why) => why,
        };
        let measures = parse_measures(std::slice::from_ref(v)).map_err(|_| {
            format!("-m {v}: {why}, nor is it a trec_eval measure Rankscope evaluates (rankscope metrics lists both)")
        })?;
        for m in measures {
            match m {
                Measure::Core(t, cuts) if cuts.is_empty() => out.push(t.base.to_string()),
                Measure::Core(t, cuts) => {
                    out.extend(cuts.iter().map(|k| format!("{}@{k}", t.base)))
                }
                Measure::NumQ => out.push(registry::id::NUM_Q.to_string()),
                Measure::Runid => {}
            }
        }
    }
    Ok(Some(out))
}

/// `--format trec_eval`: trec_eval's lines of each run.
fn print_trec_eval(a: &Args, data: Option<Dataset>) -> ExitCode {
    let Some(Dataset::Ranking(d)) = data else {
        return fail("--format trec_eval needs TREC run and qrels input");
    };
    let measures = match rankscope::trec_format::parse_measures(&a.trec_measures) {
        Ok(m) => m,
        Err(e) => return fail(e),
    };
    let out = std::io::stdout();
    let mut out = out.lock();
    // a convention no trec_eval option gives (a tie rule, 9.0.x) is named
    // in a comment line; -c and -l are trec_eval's own flags here
    let comment = rankscope::trec_format::conventions_comment(&a.conv, a.complete, false);
    emit(&mut out, &comment);
    for i in 0..d.runs.len() {
        let lines =
            rankscope::trec_format::format_run(d, i, &a.conv, &measures, a.per_query, a.complete);
        emit(&mut out, &lines);
    }
    ExitCode::SUCCESS
}

/// `rankscope compare` of binary models: ROC AUC by DeLong's test on the
/// same rows; every other metric with its bootstrap interval (rows resampled).
fn print_binary_comparison(
    a: &Args,
    options: &rankscope::compare::Options,
    d: &rankscope::core::evaluate::BinaryData,
    metrics: &[MetricId],
    warnings: &[String],
) -> Result<(), String> {
    let comparisons = if metrics.iter().any(|m| m.base == registry::DELONG) {
        rankscope::compare::compare_auc(d, options)?
    } else {
        Vec::new()
    };
    let others: Vec<MetricId> = metrics
        .iter()
        .filter(|m| m.base != registry::DELONG)
        .cloned()
        .collect();
    let intervals = if others.is_empty() {
        Vec::new()
    } else {
        rankscope::compare::binary::bootstrap_intervals(
            d,
            &a.conv,
            &others,
            options.bootstraps as usize,
            options.seed,
        )
    };
    let out = std::io::stdout();
    let mut out = out.lock();
    if a.format == OutputFormat::Json {
        let doc = serde_json::json!({ "kind": Kind::Binary, "comparisons": comparisons, "intervals": intervals, "warnings": warnings });
        let _ = writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&doc).unwrap_or_default()
        );
    } else {
        let mut text = rankscope::compare::auc_text(&comparisons, options);
        text.push_str(&rankscope::compare::binary::intervals_text(&intervals));
        let _ = write!(out, "{}", terminal_safe(&text));
    }
    Ok(())
}

/// `rankscope compare` of ranking models by query, and of multi-class and
/// ratings models row by row.
fn print_comparison(
    a: &Args,
    options: &rankscope::compare::Options,
    mut report: Report,
    data: Option<Dataset>,
    conventions: &serde_json::Value,
    warnings: &[String],
) -> Result<(), String> {
    let kind = report.kind;
    let unit = match data.as_ref() {
        Some(d) => rankscope::compare::rows::per_row(&mut report, d, &a.conv)?,
        None => kind.unit(),
    };
    // values computed elsewhere, none named: each that has per-query values
    let columns = if data.is_none() && a.metrics.is_none() {
        rankscope::compare::paired_columns(&report)
    } else {
        report.columns.clone()
    };
    let comparisons = rankscope::compare::compare(&report, &columns, options)?;
    let intervals = rankscope::compare::mean_intervals(&report, &columns, options);
    let out = std::io::stdout();
    let mut out = out.lock();
    if matches!(a.format, OutputFormat::Markdown | OutputFormat::Latex) {
        let table = rankscope::compare::marked_table(&report, &comparisons, options);
        let _ = write!(out, "{}", terminal_safe(&table_text(&table, a.format)));
    } else if a.format == OutputFormat::Json {
        let doc = serde_json::json!({ "kind": kind, "conventions": conventions, "test": options.test, "alpha": options.alpha, "correction": options.correction, "comparisons": comparisons, "mean_intervals": intervals, "warnings": warnings });
        let _ = writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&doc).unwrap_or_default()
        );
    } else {
        let mut text = rankscope::compare::to_text(&comparisons, options, unit);
        text.push_str(&rankscope::compare::mean_intervals_text(
            &intervals, options,
        ));
        let _ = write!(out, "{}", terminal_safe(&text));
        warn(warnings);
    }
    Ok(())
}

/// Warnings to standard error, one per line.
fn warn(warnings: &[String]) {
    for w in warnings {
        eprintln!("warning: {}", terminal_safe(w));
    }
}

/// `rankscope eval`'s report: CSV, JSON, or a table for people (text,
/// Markdown, LaTeX), with the groups of `--group`.
fn print_report(
    a: &Args,
    report: &Report,
    precomputed: bool,
    conventions: &serde_json::Value,
    warnings: &[String],
) -> Result<(), String> {
    let kind = report.kind;
    let groups = rankscope::diagnose::metric_groups(report, &a.groups)?;
    // the exports' tables carry the groups' rows (mean, sd)
    let mut table = Table::from_report(report, None);
    table.group(&a.groups);
    let out = std::io::stdout();
    let mut out = out.lock();
    if a.format == OutputFormat::Csv {
        // for programs: the per-query values (the interchange file) or the means
        let mut csv = if a.per_query {
            rankscope::report::per_query_csv(report)
        } else {
            table.to_csv()
        };
        if !csv.ends_with('\n') {
            csv.push('\n');
        }
        emit(&mut out, &csv);
        warn(warnings);
        return Ok(());
    }
    if a.format == OutputFormat::Json {
        let models: Vec<serde_json::Value> = report
            .models
            .iter()
            .map(|m| model_json(report, m, a.per_query))
            .collect();
        let mut doc = serde_json::json!({ "kind": kind, "conventions": conventions, "models": models, "warnings": warnings });
        doc["fingerprints"] = presets::fingerprints(report);
        if !groups.is_empty() {
            doc["groups"] = serde_json::to_value(&groups).unwrap_or_default();
        }
        let _ = writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&doc).unwrap_or_default()
        );
        return Ok(());
    }
    let conv: Vec<String> = a
        .conv
        .describe(kind)
        .into_iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    let head = format!(
        "{} · {}",
        kind.label(),
        if precomputed {
            "values computed elsewhere: each file's all line, else its per-query values aggregated as the core does (conventions as they were computed)".into()
        } else if conv.is_empty() {
            "no switchable conventions".into()
        } else {
            conv.join(" ")
        }
    );
    // the conventions in force head the table, in the table's own language:
    // Markdown and LaTeX are valid from their first byte (`\input{t.tex}`)
    let _ = writeln!(
        out,
        "{}",
        terminal_safe(&rankscope::report::comment_line(&head, a.format.export()))
    );
    // the table is for people: names from the files never act on a terminal
    let _ = write!(out, "{}", terminal_safe(&table_text(&table, a.format)));
    // the terminal's table lists its groups under it (Markdown and LaTeX
    // have them as rows)
    if !matches!(a.format, OutputFormat::Markdown | OutputFormat::Latex) {
        let groups = rankscope::diagnose::metric_groups_text(&groups);
        let _ = write!(out, "{}", terminal_safe(&groups));
    }
    warn(warnings);
    Ok(())
}

/// One model of the JSON report: its metrics (null where undefined) and,
/// with `per_query`, each unit's values.
fn model_json(
    report: &Report,
    m: &rankscope::core::evaluate::ModelReport,
    per_query: bool,
) -> serde_json::Value {
    let number = |v: Option<f64>| {
        v.filter(|v| v.is_finite())
            .map_or(serde_json::Value::Null, |v| serde_json::json!(v))
    };
    let metrics: serde_json::Map<String, serde_json::Value> = report
        .columns
        .iter()
        .map(|c| {
            (
                c.clone(),
                m.metrics
                    .get(c)
                    .copied()
                    .flatten()
                    .map_or(serde_json::Value::Null, |v| serde_json::json!(v)),
            )
        })
        .collect();
    let mut obj = serde_json::json!({ "name": m.name, "metrics": metrics });
    if per_query && !m.unit_ids.is_empty() {
        let mut per = serde_json::Map::new();
        for (i, qid) in m.unit_ids.iter().enumerate() {
            let vals: serde_json::Map<String, serde_json::Value> = m
                .per_unit
                .iter()
                .filter_map(|(id, col)| col.get(i).map(|&v| (id.clone(), number(Some(v)))))
                .collect();
            per.insert(qid.clone(), serde_json::Value::Object(vals));
        }
        obj["per_query"] = serde_json::Value::Object(per);
    }
    obj
}

/// A table as text in the chosen `--format` (markdown, latex, else plain).
fn table_text(t: &Table, format: OutputFormat) -> String {
    match format {
        OutputFormat::Markdown => t.to_markdown(4),
        OutputFormat::Latex => t.to_latex(4),
        _ => t.to_text(4),
    }
}

/// Output for scripts: the bytes as they are when piped (trec_eval's exactly),
/// made safe to show when standard output is a terminal.
fn emit(out: &mut std::io::StdoutLock, text: &str) {
    let terminal = out.is_terminal();
    let _ = out.write_all(
        if terminal {
            terminal_safe(text)
        } else {
            text.into()
        }
        .as_bytes(),
    );
}

/// Preference, judgment-group and z-score files evaluated against every run
/// by `rankscope trec_eval` (`-R prefs -m all_prefs`, `-R qrels_jg -m
/// qrels_jg`, `-Z -m all_trec`): its lines with `--format trec_eval`, else a
/// table (or JSON) of its `all` values per (run, file) pair.
fn eval_relations(a: &Args, ws: &Workspace, warnings: &[String]) -> ExitCode {
    use rankscope::trec_relations as relations;
    let results = relations::evaluate(&ws.to_files(), a.conv.trec_eval);
    if results.is_empty() {
        return fail("preferences, judgment groups and z-scores are evaluated against runs: give the run files too");
    }
    let mut evaluated = Vec::new();
    for (name, result) in results {
        match result {
            Ok(e) => evaluated.push(e),
            Err(e) => return fail(format!("{name}: {e}")),
        }
    }
    let text = match a.format {
        OutputFormat::TrecEval => evaluated
            .iter()
            .map(|e| String::from_utf8_lossy(&e.stdout).into_owned())
            .collect::<String>(),
        OutputFormat::Json => {
            let models: Vec<serde_json::Value> = evaluated
                .iter()
                .map(|e| {
                    let p = &e.values;
                    let all: serde_json::Map<String, serde_json::Value> = p
                        .measure_names()
                        .into_iter()
                        .filter_map(|m| Some((m.to_string(), serde_json::json!(p.get(m, "all")?))))
                        .collect();
                    let mut model = serde_json::json!({ "name": p.name, "metrics": all });
                    if a.per_query {
                        let mut per = serde_json::Map::new();
                        for i in 0..p.m.len() {
                            let qid = p.queries.name(p.q[i]);
                            if qid != "all" {
                                let entry = per
                                    .entry(qid.to_string())
                                    .or_insert_with(|| serde_json::json!({}));
                                entry[p.measures.name(p.m[i])] = serde_json::json!(p.value[i]);
                            }
                        }
                        model["per_query"] = serde_json::Value::Object(per);
                    }
                    model
                })
                .collect();
            serde_json::to_string_pretty(&serde_json::json!({ "models": models }))
                .unwrap_or_default()
                + "\n"
        }
        format => {
            let mut columns: Vec<String> = Vec::new();
            for e in &evaluated {
                for m in e.values.measure_names() {
                    if !columns.iter().any(|c| c == m) {
                        columns.push(m.to_string());
                    }
                }
            }
            let t = Table {
                rows: evaluated
                    .iter()
                    .map(|e| {
                        (
                            e.values.name.clone(),
                            columns.iter().map(|c| e.values.get(c, "all")).collect(),
                        )
                    })
                    .collect(),
                columns,
                conventions: Vec::new(),
                marks: Vec::new(),
                marks_note: String::new(),
                kind: None,
                baseline: None,
                groups: Vec::new(),
            };
            table_text(&t, format)
        }
    };
    emit(&mut std::io::stdout().lock(), &text);
    // a run's judgments are the relation files here
    for w in warnings
        .iter()
        .filter(|w| !w.ends_with(rankscope::parse::NO_QRELS))
    {
        eprintln!("warning: {}", terminal_safe(w));
    }
    ExitCode::SUCCESS
}

fn generate(args::Generate { preset, kind, out }: args::Generate) -> ExitCode {
    use rankscope::example::{self, Spec};
    let dir = out;
    if kind == "parsed" && preset != "example" {
        return fail(
            "generate: --kind parsed is the bundled example's files parsed (--preset example)",
        );
    }
    let spec = match preset.as_str() {
        "example" => Spec::EXAMPLE,
        "large" => Spec::LARGE,
        p => return fail(format!("generate: unknown preset '{p}' (example, large)")),
    };
    let dir = std::path::PathBuf::from(dir);
    if let Err(e) = std::fs::create_dir_all(&dir) {
        return fail(format!("{}: {e}", dir.display()));
    }
    let create = |name: &str| std::fs::File::create(dir.join(name)).map(std::io::BufWriter::new);
    let result = (|| -> std::io::Result<()> {
        if kind == "all" || kind == "ranking" {
            let (mut q, mut a, mut b) = (
                create("bench.qrels")?,
                create("dense.run")?,
                create("bm25.run")?,
            );
            example::write_ranking(&spec, &mut q, &mut [("dense", &mut a), ("bm25", &mut b)])?;
        }
        if kind == "all" || kind == "binary" {
            example::write_binary(&spec, &["gbdt", "logreg"], &mut create("binary.csv")?)?;
        }
        if kind == "all" || kind == "multiclass" {
            example::write_multiclass(&spec, 2.6, &mut create("multiclass.csv")?)?;
        }
        if kind == "all" || kind == "ratings" {
            example::write_ratings(&spec, &["svd", "knn"], &mut create("ratings.csv")?)?;
        }
        if kind == "parsed" {
            let mut file = create("example.bin")?;
            file.write_all(&example::example_parsed())?;
            file.flush()?;
        }
        Ok(())
    })();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(format!("generate: {e}")),
    }
}

/// `rankscope diagnose`: [`rankscope::diagnose`] on the loaded classifier.
fn run_diagnose(a: Args) -> ExitCode {
    use rankscope::diagnose;
    let (ws, warnings) = match load(&a) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let mut o = a.diagnose.clone().unwrap_or_default();
    o.groups = a.groups.clone();
    o.logits = a.conv.binary_scores_are_logits;
    o.rule = a.conv.threshold_rule;
    o.zero_division = a.conv.zero_division;
    let mut groups_json = None;
    let mut warnings = warnings;
    let (models, text) =
        match one_dataset(&ws) {
            Ok(Dataset::Binary(d)) => {
                let curves = diagnose::curves(d);
                let models = diagnose::binary(&curves, &o);
                let groups = match diagnose::groups(&curves, &models, &o) {
                    Ok(g) => g,
                    Err(e) => return fail(e),
                };
                let text = diagnose::binary_text(&models, &o) + &diagnose::groups_text(&groups);
                groups_json = serde_json::to_value(groups).ok();
                (serde_json::to_value(models), text)
            }
            Ok(Dataset::Multiclass(_)) if !o.groups.is_empty() => {
                return fail("--group averages binary models (folds or seeds of one classifier)")
            }
            Ok(Dataset::Multiclass(d)) => {
                // a probability matrix's columns, read again one class at a time
                // (the parse keeps only each row's summary)
                let columns = |i: usize| {
                    let path = a.files.get(i).filter(|p| *p != "-")?;
                    diagnose::class_columns(d, i, a.files.len(), |c| {
                        let options = LoadOptions {
                            one_vs_rest: Some(c),
                            ..a.options.clone()
                        };
                        let parsed = parse_files(&[(path, options)], a.max_inflated).pop()?;
                        diagnose::class_scores(path, parsed.ok()?.ok()?)
                    })
                };
                let models = diagnose::multiclass(d, &o, columns);
                warnings.extend(diagnose::zero_division_warnings(&models, o.zero_division));
                let text = diagnose::multiclass_text(&models);
                (serde_json::to_value(models), text)
            }
            Ok(_) => return fail(
                "diagnose reads classifiers: a binary CSV or a multi-class matrix or top-k file",
            ),
            Err(e) => return fail(e),
        };
    let out = std::io::stdout();
    let mut out = out.lock();
    if a.format == OutputFormat::Json {
        let mut doc =
            serde_json::json!({ "models": models.unwrap_or_default(), "warnings": warnings });
        if let Some(groups) = groups_json {
            doc["groups"] = groups;
        }
        let _ = writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&doc).unwrap_or_default()
        );
    } else {
        let _ = write!(out, "{}", terminal_safe(&text));
        for w in &warnings {
            eprintln!("warning: {}", terminal_safe(w));
        }
    }
    ExitCode::SUCCESS
}
