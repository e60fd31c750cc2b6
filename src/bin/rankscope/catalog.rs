//! `rankscope catalog build DIR` and `rankscope catalog add DIR RUN`: a
//! folder of runs evaluated once into a catalog (the manifest and one
//! values file per run, `rankscope::catalog`). Every file is written beside
//! its place under a temporary name and renamed at the end, so a refused
//! run leaves the catalog as it was.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use rankscope::catalog::{self, Judgments, Manifest, RunEntry, RunValues};
use rankscope::core::conventions::{self, Conventions};
use rankscope::core::evaluate::{evaluate, Dataset, Report};
use rankscope::core::registry::{Kind, MetricId};
use rankscope::parse::{Audience, LoadError, LoadOptions, Parsed, Parser, Workspace};
use rankscope::text::terminal_safe;

/// The convention flags (`eval`'s), as (link key, flag, value): the
/// command line's `ConventionFlags`, named by the caller.
pub type ConventionValues = Vec<(&'static str, String, String)>;

#[derive(clap::Subcommand)]
pub enum CatalogCmd<C: clap::Args> {
    /// Evaluates every run of a folder into a catalog: the manifest and one values file per run.
    #[command(
        long_about = "Evaluates every run under DIR/runs/ (TREC runs, run CSVs, trec_eval -q output, \
                      Rankscope's per-query CSV) against the judgments (--qrels, default the one file \
                      DIR/qrels*) and writes DIR/rankscope-catalog.json and DIR/values/ID.rsv (each \
                      run's per-query values of --metrics). Runs are evaluated two (as many as cores) \
                      at once. A run whose queries, ranks or documents are wrong is refused \
                      (file:line:column) and nothing is written. Rebuilding keeps the names, authors, \
                      dates, tags, descriptions and metadata the manifest already has."
    )]
    Build(Build<C>),
    /// Adds one run to a catalog without recomputing the others.
    Add(Add),
}

#[derive(clap::Args)]
pub struct Build<C: clap::Args> {
    /// The catalog's folder.
    #[arg(value_name = "DIR")]
    pub dir: String,
    /// Metric ids (default ndcg@10,map,mrr,precision@10,recall@100).
    #[arg(long, short = 'm', value_name = "ID,...")]
    pub metrics: Option<String>,
    /// The judgments (a file inside DIR; default: the one file named qrels* in DIR).
    #[arg(long, value_name = "QRELS")]
    pub qrels: Option<String>,
    /// The catalog's name (default: the folder's).
    #[arg(long)]
    pub name: Option<String>,
    #[command(flatten)]
    pub conventions: C,
}

#[derive(clap::Args)]
pub struct Add {
    /// The catalog's folder (or its manifest).
    #[arg(value_name = "DIR")]
    pub dir: String,
    /// The run (copied into DIR/runs/ when it is outside DIR).
    #[arg(value_name = "RUN")]
    pub run: String,
    /// Its id (default: from the file's name).
    #[arg(long)]
    pub id: Option<String>,
    #[arg(long)]
    pub name: Option<String>,
    #[arg(long)]
    pub author: Option<String>,
    /// ISO 8601 (2026-03-01, 2026-03-01T14:05Z).
    #[arg(long)]
    pub date: Option<String>,
    /// Comma-separated.
    #[arg(long)]
    pub tags: Option<String>,
    #[arg(long)]
    pub description: Option<String>,
    /// The judgment set it is scored against (default: the catalog's first).
    #[arg(long, value_name = "ID")]
    pub judgments: Option<String>,
}

/// The metrics of a catalog built without --metrics.
pub const DEFAULT_METRICS: &str = "ndcg@10,map,mrr,precision@10,recall@100";

fn fail(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("rankscope: {}", terminal_safe(&msg.to_string()));
    ExitCode::from(2)
}

pub fn run<C: clap::Args>(cmd: CatalogCmd<C>, flags: impl Fn(C) -> ConventionValues) -> ExitCode {
    let done = match cmd {
        CatalogCmd::Build(b) => build(b, flags),
        CatalogCmd::Add(a) => add(a),
    };
    match done {
        Ok(message) => {
            eprintln!("{}", terminal_safe(&message));
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}

/// Lowercase hex of SHA-256.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `path` relative to `dir`, with `/` between parts; `None` outside `dir`.
fn relative(dir: &Path, path: &Path) -> Option<String> {
    let (dir, path) = (dir.canonicalize().ok()?, path.canonicalize().ok()?);
    let rel = path.strip_prefix(&dir).ok()?;
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    Some(parts.join("/"))
}

/// A run id from a file name: its stem, other characters as `_`.
fn id_from(path: &str, taken: &[String]) -> String {
    let stem = Path::new(path)
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = stem
        .strip_suffix(".gz")
        .unwrap_or(&stem)
        .rsplit_once('.')
        .map_or(stem.as_str(), |(s, _)| s)
        .to_string();
    let mut id: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if !catalog::is_id(&id) {
        id = format!("run{id}");
    }
    let mut out = id.clone();
    let mut n = 2;
    while taken.contains(&out) {
        out = format!("{id}-{n}");
        n += 1;
    }
    out
}

fn metric_ids(list: &str) -> Result<(Vec<MetricId>, Vec<String>), String> {
    let ids: Vec<MetricId> = list
        .split(',')
        .map(|s| MetricId::parse(s, Kind::Ranking))
        .collect::<Result<_, _>>()
        .map_err(|e| format!("--metrics {list}: {e}"))?;
    let names = ids.iter().map(|m| m.to_string()).collect();
    Ok((ids, names))
}

/// The judgments, parsed once; each run is evaluated against a copy.
struct Judged {
    ws: Workspace,
    /// The judged queries.
    queries: std::collections::HashSet<String>,
}

fn load_judgments(path: &Path, shown: &str) -> Result<(Judged, Vec<u8>), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{shown}: cannot read the file ({e})"))?;
    let options = LoadOptions {
        judgments: true,
        audience: Audience::CommandLine,
        ..LoadOptions::default()
    };
    let parsed = Parser::new(shown, options)
        .read_all(&bytes[..])
        .map_err(|e| e.to_string())?;
    let mut ws = Workspace::default();
    ws.add(shown, parsed).map_err(|e| e.to_string())?;
    let queries = match &ws.ranking {
        Some(r) if ws.has_qrels => (0..r.queries.len() as u32)
            .filter(|&q| {
                let o = &r.qrels.offsets;
                (q as usize + 1) < o.len() && o[q as usize + 1] > o[q as usize]
            })
            .map(|q| r.queries.name(q).to_string())
            .collect(),
        _ => return Err(format!("{shown}: expected judgments (qrels), found none")),
    };
    Ok((Judged { ws, queries }, bytes))
}

/// What a run's file gave: its values, how it was read and its hash.
struct Evaluated {
    values: RunValues,
    format: &'static str,
    sha256: String,
}

/// Checks a TREC run's lines beyond what evaluation needs: each rank a
/// whole number, once per query, and ranks in the order of the scores;
/// every query judged. The first problem, with line and column.
fn check_trec_run(shown: &str, bytes: &[u8], judged: &Judged) -> Result<(), LoadError> {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Ok(()); // not UTF-8: the parser said what it read
    };
    let mut queries: std::collections::HashMap<&str, u32> = Default::default();
    let mut names: Vec<&str> = Vec::new();
    // (query, rank, score, line, rank's column)
    let mut rows: Vec<(u32, u64, f64, u64, u64)> = Vec::new();
    let mut last: Option<(&str, u32)> = None;
    for (i, line) in text.lines().enumerate() {
        let n = i as u64 + 1;
        let mut fields = line.split_ascii_whitespace();
        let (Some(q), Some(_), Some(_), Some(rank_text), Some(score_text), Some(_)) = (
            fields.next(),
            fields.next(),
            fields.next(),
            fields.next(),
            fields.next(),
            fields.next(),
        ) else {
            if line.trim().is_empty() || line.trim_start().starts_with('#') {
                continue;
            }
            return Ok(()); // not a TREC run line: the parser said what it read
        };
        let rank_column = (rank_text.as_ptr() as usize - line.as_ptr() as usize) as u64 + 1;
        // a query's lines are usually together: look it up once per block
        let id = match last {
            Some((name, id)) if name == q => id,
            _ => {
                if !judged.queries.contains(q) {
                    return Err(LoadError::single(
                        shown,
                        n,
                        1,
                        "a query of the catalog's judgments",
                        format!("query '{q}', which they do not judge"),
                        Some("a run of another collection, or judgments of other queries?".into()),
                    ));
                }
                let next = names.len() as u32;
                let id = *queries.entry(q).or_insert_with(|| {
                    names.push(q);
                    next
                });
                last = Some((q, id));
                id
            }
        };
        let Ok(rank) = rank_text.parse::<u64>() else {
            return Err(LoadError::single(
                shown,
                n,
                rank_column,
                "a rank (a whole number)",
                rankscope::parse::error::shown(rank_text.as_bytes()),
                None,
            ));
        };
        let score: f64 = score_text.parse().unwrap_or(f64::NAN);
        rows.push((id, rank, score, n, rank_column));
    }
    rows.sort_unstable_by_key(|a| (a.0, a.1, a.3));
    for w in rows.windows(2) {
        let (a, b) = (&w[0], &w[1]);
        if a.0 != b.0 {
            continue;
        }
        if a.1 == b.1 {
            return Err(LoadError::single(
                shown,
                b.3,
                b.4,
                format!(
                    "each rank once per query (rank {} is on line {} too)",
                    a.1, a.3
                ),
                format!("rank {} again for query '{}'", b.1, names[b.0 as usize]),
                None,
            ));
        }
        if b.2 > a.2 {
            return Err(LoadError::single(
                shown,
                b.3,
                b.4,
                format!(
                    "ranks in the order of the scores (rank {} on line {} has score {})",
                    a.1, a.3, a.2
                ),
                format!("rank {} with the higher score {}", b.1, b.2),
                Some("the ranks and the scores disagree: which one orders the run?".into()),
            ));
        }
    }
    Ok(())
}

/// A per-query CSV's conventions column (`key=value; …`, Rankscope's
/// non-default ones), applied to the defaults; the defaults without one.
fn csv_conventions(shown: &str, bytes: &[u8]) -> Result<Conventions, String> {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(1 << 16)]);
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let mut conv = Conventions::default();
    let Some(header) = lines.next() else {
        return Ok(conv);
    };
    let Some(at) = header.split(',').position(|h| h.trim() == "conventions") else {
        return Ok(conv);
    };
    let Some(row) = lines.next() else {
        return Ok(conv);
    };
    // the cell is the last column, quoted when it holds a `;`
    let cell = row.split(',').skip(at).collect::<Vec<_>>().join(",");
    let cell = cell.trim().trim_matches('"');
    for pair in cell.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        conventions::set(&mut conv, k, v)
            .map_err(|e| format!("{shown}:2: its conventions column: {k}={v}: {e}"))?;
    }
    Ok(conv)
}

/// The conventions that differ, as `key: catalog's → file's`.
fn differences(catalog: &Conventions, file: &Conventions) -> String {
    conventions::describe(catalog, Kind::Ranking)
        .into_iter()
        .zip(conventions::describe(file, Kind::Ranking))
        .filter(|(a, b)| a.1 != b.1)
        .map(|(a, b)| format!("{} {} (the catalog: {})", a.0, b.1, a.1))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The file's name in a trec_eval -q file for metric `m` (`ndcg@10`: `ndcg_cut_10`).
fn trec_column(m: &MetricId) -> Option<String> {
    match rankscope::trec_format::Measure::of(m)? {
        rankscope::trec_format::Measure::Core(t, cuts) => Some(match cuts.first() {
            Some(k) => format!("{}_{k}", t.name),
            None => t.name.to_string(),
        }),
        _ => None,
    }
}

/// Reads and evaluates one run (`path`, shown as `shown`) against `judged`.
#[allow(clippy::too_many_arguments)]
fn evaluate_run(
    path: &Path,
    shown: &str,
    id: &str,
    judgments_id: &str,
    judged: &Judged,
    conv: &Conventions,
    metrics: &[MetricId],
    names: &[String],
) -> Result<Evaluated, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{shown}: cannot read the file ({e})"))?;
    let sha256 = sha256_hex(&bytes);
    let options = LoadOptions {
        audience: Audience::CommandLine,
        ..LoadOptions::default()
    };
    let parsed = Parser::new(shown, options)
        .read_all(&bytes[..])
        .map_err(|e| e.to_string())?;
    let (precomputed, is_run) = match &parsed {
        Parsed::Measures(_) => (true, false),
        Parsed::Noted { parsed, .. } => (
            matches!(**parsed, Parsed::Measures(_)),
            matches!(**parsed, Parsed::Run { .. }),
        ),
        Parsed::Run { .. } => (false, true),
        _ => (false, false),
    };
    if is_run && !bytes.starts_with(&[0x1f, 0x8b]) {
        check_trec_run(shown, &bytes, judged).map_err(|e| e.to_string())?;
    }
    let mut ws = judged.ws.clone();
    ws.add(shown, parsed).map_err(|e| e.to_string())?;
    let (report, format, columns): (Report, &'static str, Vec<Option<String>>) = if precomputed
        || (ws.datasets().is_empty() && !ws.precomputed.is_empty())
    {
        let csv = bytes.iter().take(4096).any(|&b| b == b',');
        let file_conv = if csv {
            csv_conventions(shown, &bytes)?
        } else {
            // trec_eval -q output: trec_eval's conventions, Rankscope's defaults
            Conventions::default()
        };
        let diff = differences(conv, &file_conv);
        if !diff.is_empty() {
            return Err(format!(
                "{shown}: its values were computed under other conventions than the catalog's: {diff}; \
                 compute them again under the catalog's, or build a catalog with these conventions"
            ));
        }
        let report = ws
            .precomputed_report(None)
            .map_err(|e| format!("{shown}: {e}"))?;
        let columns = metrics
            .iter()
            .zip(names)
            .map(|(m, name)| {
                if report.columns.contains(name) {
                    Some(name.clone())
                } else {
                    trec_column(m).filter(|c| report.columns.contains(c))
                }
            })
            .collect();
        (
            report,
            if csv { "per_query_csv" } else { "trec_eval_q" },
            columns,
        )
    } else {
        let data = match ws.datasets().as_slice() {
            [d @ Dataset::Ranking(r)] if r.runs.len() == 1 => *d,
            [Dataset::Ranking(r)] => {
                return Err(format!(
                    "{shown}: one run per file (this one holds {}: {})",
                    r.runs.len(),
                    r.runs.iter().map(|r| r.name.as_str()).collect::<Vec<_>>().join(", ")
                ))
            }
            _ => return Err(format!("{shown}: expected a ranking run (a TREC run, a run CSV) or per-query values (trec_eval -q, a per-query CSV)")),
        };
        let report = evaluate(&data, conv, metrics);
        let columns = names.iter().map(|n| Some(n.clone())).collect();
        (report, "run", columns)
    };
    let [model] = report.models.as_slice() else {
        return Err(format!(
            "{shown}: one run per file (this one holds {})",
            report.models.len()
        ));
    };
    if let Some((i, _)) = columns.iter().enumerate().find(|(_, c)| c.is_none()) {
        return Err(format!(
            "{shown}: no values of {} (it holds: {})",
            names[i],
            report.columns.join(", ")
        ));
    }
    if let Some(q) = model.unit_ids.iter().find(|q| !judged.queries.contains(*q)) {
        return Err(format!(
            "{shown}: scored against other judgments: query '{q}' is not in the catalog's judgments ({judgments_id})"
        ));
    }
    let n = model.unit_ids.len();
    let mut values = Vec::with_capacity(n * names.len());
    for c in columns.iter().flatten() {
        match model.per_unit.get(c).filter(|v| v.len() == n) {
            Some(v) => values.extend(v.iter().map(|x| if x.is_finite() { *x } else { f64::NAN })),
            None => values.extend(std::iter::repeat_n(f64::NAN, n)),
        }
    }
    Ok(Evaluated {
        values: RunValues {
            run: id.to_string(),
            judgments: judgments_id.to_string(),
            metrics: names.to_vec(),
            queries: model.unit_ids.clone(),
            conventions: conv.clone(),
            values,
        },
        format,
        sha256,
    })
}

/// Files written under temporary names, renamed into place together.
#[derive(Default)]
struct Staged(Vec<(PathBuf, PathBuf)>);

impl Staged {
    fn write(&mut self, path: PathBuf, bytes: &[u8]) -> Result<(), String> {
        let tmp = path.with_file_name(format!(
            ".{}.tmp",
            path.file_name()
                .map(|s| s.to_string_lossy())
                .unwrap_or_default()
        ));
        std::fs::write(&tmp, bytes)
            .map_err(|e| format!("{}: cannot write ({e})", tmp.display()))?;
        self.0.push((tmp, path));
        Ok(())
    }
    fn commit(mut self) -> Result<(), String> {
        for (tmp, path) in std::mem::take(&mut self.0) {
            std::fs::rename(&tmp, &path)
                .map_err(|e| format!("{}: cannot write ({e})", path.display()))?;
        }
        Ok(())
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        for (tmp, _) in &self.0 {
            let _ = std::fs::remove_file(tmp);
        }
    }
}

/// Every file under `dir`, sorted, hidden ones left out.
fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        let hidden = p
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'));
        if hidden {
            continue;
        }
        if p.is_dir() {
            files_under(&p, out);
        } else if p.is_file() {
            out.push(p);
        }
    }
}

fn build<C: clap::Args>(
    b: Build<C>,
    flags: impl Fn(C) -> ConventionValues,
) -> Result<String, String> {
    let dir = PathBuf::from(&b.dir);
    if !dir.is_dir() {
        return Err(format!("{}: not a folder", b.dir));
    }
    let mut conv = Conventions::default();
    for (key, flag, value) in flags(b.conventions) {
        conventions::set(&mut conv, key, &value).map_err(|e| format!("{flag} {value}: {e}"))?;
    }
    let (metrics, names) = metric_ids(b.metrics.as_deref().unwrap_or(DEFAULT_METRICS))?;
    let qrels = match b.qrels {
        Some(q) => PathBuf::from(q),
        None => {
            let mut found: Vec<PathBuf> = std::fs::read_dir(&dir)
                .map_err(|e| format!("{}: {e}", b.dir))?
                .flatten()
                .map(|e| e.path())
                .filter(|p| {
                    p.is_file()
                        && p.file_name()
                            .is_some_and(|n| n.to_string_lossy().starts_with("qrels"))
                })
                .collect();
            found.sort();
            match found.len() {
                1 => found.remove(0),
                0 => return Err(format!("{}: no judgments: give them with --qrels (a file inside the folder), or name the file qrels*", b.dir)),
                _ => return Err(format!("{}: several qrels* files; choose one with --qrels", b.dir)),
            }
        }
    };
    let qrels_rel = relative(&dir, &qrels).ok_or_else(|| {
        format!(
            "{}: the judgments must be inside the catalog's folder {} (copy them there)",
            qrels.display(),
            b.dir
        )
    })?;
    let (judged, qrels_bytes) = load_judgments(&qrels, &qrels_rel)?;
    let set_id = id_from(&qrels_rel, &[]);
    let runs_dir = dir.join("runs");
    let mut files = Vec::new();
    files_under(&runs_dir, &mut files);
    if files.is_empty() {
        return Err(format!(
            "{}: no runs: put them under {}",
            b.dir,
            runs_dir.display()
        ));
    }
    // what an earlier manifest said about each run, by file
    let manifest_path = dir.join(catalog::MANIFEST);
    let old: Option<Manifest> = std::fs::read_to_string(&manifest_path)
        .ok()
        .map(|t| catalog::parse_manifest(catalog::MANIFEST, &t))
        .transpose()
        .map_err(|e| e.to_string())?;
    let mut ids: Vec<String> = Vec::new();
    let mut entries: Vec<(PathBuf, String, String)> = Vec::new(); // (path, rel, id)
    for f in &files {
        let rel = relative(&dir, f).unwrap_or_else(|| f.display().to_string());
        let id = old
            .as_ref()
            .and_then(|m| m.runs.iter().find(|r| r.file == rel))
            .map(|r| r.id.clone())
            .filter(|id| !ids.contains(id))
            .unwrap_or_else(|| id_from(&rel, &ids));
        ids.push(id.clone());
        entries.push((f.clone(), rel, id));
    }
    let done: Vec<Result<Evaluated, String>> =
        rankscope::core::par_map(&entries, |(path, rel, id)| {
            evaluate_run(path, rel, id, &set_id, &judged, &conv, &metrics, &names)
        });
    let mut manifest = Manifest::new(
        &b.name.unwrap_or_else(|| {
            dir.canonicalize()
                .ok()
                .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
                .unwrap_or_else(|| "catalog".into())
        }),
        conv,
        names,
    );
    if let Some(old) = &old {
        manifest.description = old.description.clone();
    }
    manifest.judgments.push(Judgments {
        id: set_id.clone(),
        file: qrels_rel,
        sha256: sha256_hex(&qrels_bytes),
    });
    let mut errors = Vec::new();
    let mut ok = Vec::new();
    for (entry, e) in entries.iter().zip(done) {
        match e {
            Ok(e) => ok.push((entry, e)),
            Err(why) => errors.push(why),
        }
    }
    if !errors.is_empty() {
        return Err(format!(
            "{}\nnothing written: {} of {} runs refused",
            errors.join("\n"),
            errors.len(),
            entries.len()
        ));
    }
    std::fs::create_dir_all(dir.join("values")).map_err(|e| format!("{}: {e}", b.dir))?;
    let mut staged = Staged::default();
    for ((_, rel, id), e) in ok {
        let values_rel = format!("values/{id}.rsv");
        staged.write(dir.join(&values_rel), &catalog::write_values(&e.values))?;
        let kept = old
            .as_ref()
            .and_then(|m| m.run(id))
            .filter(|r| &r.file == rel);
        let mut entry = RunEntry {
            id: id.clone(),
            name: id.clone(),
            file: rel.clone(),
            format: e.format.into(),
            values: values_rel,
            sha256: e.sha256,
            date: None,
            author: String::new(),
            description: String::new(),
            tags: Vec::new(),
            judgments: set_id.clone(),
            metadata: Default::default(),
        };
        if let Some(k) = kept {
            entry.name = k.name.clone();
            entry.date = k.date.clone();
            entry.author = k.author.clone();
            entry.description = k.description.clone();
            entry.tags = k.tags.clone();
            entry.metadata = k.metadata.clone();
        }
        manifest.runs.push(entry);
    }
    staged.write(manifest_path.clone(), manifest.to_json().as_bytes())?;
    staged.commit()?;
    Ok(format!(
        "{}: {} runs × {} metrics",
        manifest_path.display(),
        manifest.runs.len(),
        manifest.metrics.len()
    ))
}

fn add(a: Add) -> Result<String, String> {
    let given = PathBuf::from(&a.dir);
    let (dir, manifest_path) = if given.is_dir() {
        (given.clone(), given.join(catalog::MANIFEST))
    } else {
        (
            given
                .parent()
                .map_or_else(|| PathBuf::from("."), Path::to_path_buf),
            given.clone(),
        )
    };
    let shown_manifest = manifest_path.display().to_string();
    let text = std::fs::read_to_string(&manifest_path)
        .map_err(|e| format!("{shown_manifest}: cannot read the manifest ({e}); build the catalog first (rankscope catalog build)"))?;
    let mut manifest =
        catalog::parse_manifest(&shown_manifest, &text).map_err(|e| e.to_string())?;
    let set = match &a.judgments {
        Some(id) => manifest
            .judgments
            .iter()
            .find(|j| &j.id == id)
            .ok_or_else(|| {
                format!(
                    "--judgments {id}: the catalog's judgment sets are {}",
                    manifest
                        .judgments
                        .iter()
                        .map(|j| j.id.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })?,
        None => manifest
            .judgments
            .first()
            .ok_or_else(|| format!("{shown_manifest}: no judgment set"))?,
    }
    .clone();
    let qrels_path = dir.join(&set.file);
    let (judged, qrels_bytes) = load_judgments(&qrels_path, &set.file)?;
    if sha256_hex(&qrels_bytes) != set.sha256 {
        return Err(format!(
            "{}: the judgments changed since the catalog was built (SHA-256 {} in the manifest): the other runs were scored against the old ones; rebuild the catalog (rankscope catalog build)",
            set.file, set.sha256
        ));
    }
    if let Some(d) = &a.date {
        if !catalog::is_iso_date(d) {
            return Err(format!(
                "--date {d}: expected an ISO 8601 date (2026-03-01, 2026-03-01T14:05, 2026-03-01T14:05:09Z)"
            ));
        }
    }
    let run_path = PathBuf::from(&a.run);
    if !run_path.is_file() {
        return Err(format!("{}: no such file", a.run));
    }
    let taken: Vec<String> = manifest.runs.iter().map(|r| r.id.clone()).collect();
    let id = match a.id {
        Some(id) if !catalog::is_id(&id) => {
            return Err(format!(
                "--id {id}: expected letters, digits, '.', '_' or '-'"
            ))
        }
        Some(id) if taken.contains(&id) => {
            return Err(format!("--id {id}: the catalog has a run with this id"))
        }
        Some(id) => id,
        None => id_from(&a.run, &taken),
    };
    let mut staged = Staged::default();
    // inside the folder: as it is; outside: copied into runs/
    let (rel, source) = match relative(&dir, &run_path) {
        Some(rel) => (rel, run_path.clone()),
        None => {
            let name = run_path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| id.clone());
            let rel = format!("runs/{name}");
            if dir.join(&rel).exists() {
                return Err(format!(
                    "{rel}: the catalog has a file of this name; rename the run"
                ));
            }
            (rel, run_path.clone())
        }
    };
    if manifest.runs.iter().any(|r| r.file == rel) {
        return Err(format!("{rel}: this file is in the catalog already"));
    }
    let e = evaluate_run(
        &source,
        &rel,
        &id,
        &set.id,
        &judged,
        &manifest.conventions,
        &manifest
            .metrics
            .iter()
            .map(|m| MetricId::parse(m, Kind::Ranking))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("{shown_manifest}: {e}"))?,
        &manifest.metrics,
    )?;
    if source != dir.join(&rel) {
        std::fs::create_dir_all(dir.join("runs")).map_err(|e| format!("{}: {e}", a.dir))?;
        let bytes = std::fs::read(&source).map_err(|e| format!("{}: {e}", a.run))?;
        staged.write(dir.join(&rel), &bytes)?;
    }
    std::fs::create_dir_all(dir.join("values")).map_err(|e| format!("{}: {e}", a.dir))?;
    let values_rel = format!("values/{id}.rsv");
    staged.write(dir.join(&values_rel), &catalog::write_values(&e.values))?;
    manifest.runs.push(RunEntry {
        id: id.clone(),
        name: a.name.unwrap_or_else(|| id.clone()),
        file: rel,
        format: e.format.into(),
        values: values_rel,
        sha256: e.sha256,
        date: a.date,
        author: a.author.unwrap_or_default(),
        description: a.description.unwrap_or_default(),
        tags: a
            .tags
            .map(|t| {
                t.split(',')
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty())
                    .collect()
            })
            .unwrap_or_default(),
        judgments: set.id.clone(),
        metadata: Default::default(),
    });
    staged.write(manifest_path.clone(), manifest.to_json().as_bytes())?;
    staged.commit()?;
    Ok(format!(
        "{shown_manifest}: run {id} added ({} runs)",
        manifest.runs.len()
    ))
}
