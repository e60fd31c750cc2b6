//! `rankscope._rankscope`: the Rankscope core for Python.
//!
//! The Python layer (`python/rankscope/`) turns what users hold (file
//! paths, pandas DataFrames, pyarrow Tables, ranx-style dicts, numpy
//! arrays) into whole columns: strings as Arrow's large-string buffers
//! (int64 offsets and UTF-8 bytes), numbers as little-endian bytes. This
//! module reads those buffers (one bulk copy each, never a Python object
//! per row), builds the same parsed files the CLI's parsers build, and
//! merges them through the same [`Workspace`], so every value equals the
//! CLI's to the last bit. The GIL is released while the core runs.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

use rankscope::core::evaluate::{
    evaluate_on_threads, BinaryData, Conventions, Dataset, MulticlassData, RatingsData, Report,
};
use rankscope::core::ids::{Interner, Names};
use rankscope::core::multiclass::{MulticlassPredictions, RowSummary};
use rankscope::core::ranking::{first_duplicate, Qrels};
use rankscope::core::registry::{self, Kind, MetricId};
use rankscope::core::Named;
use rankscope::parse::{Format, LoadOptions, Parsed, Parser, RatingRelevance, Workspace};

fn error(message: impl Into<String>) -> PyErr {
    PyValueError::new_err(message.into())
}

/// A string column as Arrow lays it out: `offsets` (n + 1 little-endian
/// int64, absolute into `data`) and the UTF-8 bytes they index.
struct Strings<'a> {
    what: String,
    offsets: &'a [u8],
    data: &'a str,
}

impl<'a> Strings<'a> {
    fn new(what: String, offsets: &'a [u8], data: &'a [u8]) -> PyResult<Self> {
        if offsets.len() % 8 != 0 || offsets.is_empty() {
            return Err(error(format!(
                "{what}: damaged offsets ({} bytes)",
                offsets.len()
            )));
        }
        let data = std::str::from_utf8(data)
            .map_err(|e| error(format!("{what}: not UTF-8 text ({e})")))?;
        Ok(Strings {
            what,
            offsets,
            data,
        })
    }

    fn len(&self) -> usize {
        self.offsets.len() / 8 - 1
    }

    fn offset(&self, i: usize) -> i64 {
        let b = &self.offsets[i * 8..i * 8 + 8];
        i64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
    }

    /// Row `i`'s text; an empty id is refused, as every file format refuses it.
    fn get(&self, i: usize) -> PyResult<&'a str> {
        let (a, b) = (self.offset(i), self.offset(i + 1));
        let text = usize::try_from(a)
            .ok()
            .zip(usize::try_from(b).ok())
            .and_then(|(a, b)| self.data.get(a..b))
            .ok_or_else(|| error(format!("{}: damaged offsets at row {i}", self.what)))?;
        if text.is_empty() {
            return Err(error(format!(
                "{}, row {i}: expected an id, found an empty string",
                self.what
            )));
        }
        Ok(text)
    }
}

/// A string column from Python: (offsets, data) as [`Strings`] reads them.
type Column<'py> = (Bound<'py, PyBytes>, Bound<'py, PyBytes>);

fn bytes<'a>(c: &'a Column<'_>) -> (&'a [u8], &'a [u8]) {
    (c.0.as_bytes(), c.1.as_bytes())
}

/// Little-endian `f64`s, every one a number (NaN is refused, as the parsers refuse it).
fn floats(what: &str, bytes: &[u8], rows: usize) -> PyResult<Vec<f64>> {
    if bytes.len() != rows * 8 {
        return Err(error(format!(
            "{what}: {} values for {rows} rows",
            bytes.len() / 8
        )));
    }
    let values: Vec<f64> = bytes
        .chunks_exact(8)
        .map(|b| f64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
        .collect();
    if let Some(i) = values.iter().position(|v| v.is_nan()) {
        return Err(error(format!(
            "{what}, row {i}: expected a number, found NaN (a missing value?)"
        )));
    }
    Ok(values)
}

fn ints(what: &str, bytes: &[u8], rows: usize) -> PyResult<Vec<i64>> {
    if bytes.len() != rows * 8 {
        return Err(error(format!(
            "{what}: {} values for {rows} rows",
            bytes.len() / 8
        )));
    }
    Ok(bytes
        .chunks_exact(8)
        .map(|b| i64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
        .collect())
}

/// Interns a string column (query, user or item ids).
fn interned(col: &Strings) -> PyResult<(Interner, Vec<u32>)> {
    let mut names = Interner::new();
    let ids = (0..col.len())
        .map(|i| col.get(i).map(|s| names.intern(s)))
        .collect::<PyResult<Vec<u32>>>()?;
    Ok((names, ids))
}

fn names(col: &Strings) -> PyResult<Names> {
    let mut out = Names::default();
    out.try_reserve(col.len(), col.data.len());
    for i in 0..col.len() {
        out.push(col.get(i)?);
    }
    Ok(out)
}

/// The query and document id columns of a run or qrels (`what`), of one length.
fn query_docs<'a>(
    what: &str,
    (q_offsets, q_data): (&'a [u8], &'a [u8]),
    (d_offsets, d_data): (&'a [u8], &'a [u8]),
) -> PyResult<(Strings<'a>, Strings<'a>)> {
    let q = Strings::new(format!("{what}, query ids"), q_offsets, q_data)?;
    let d = Strings::new(format!("{what}, document ids"), d_offsets, d_data)?;
    if q.len() != d.len() {
        return Err(error(format!(
            "{what}: {} query ids for {} document ids",
            q.len(),
            d.len()
        )));
    }
    Ok((q, d))
}

/// A document twice in one query is refused, as trec_eval and the parsers refuse it.
fn duplicates_refused(
    what: &str,
    verb: &str,
    q: &Strings,
    qi: &[u32],
    docs: &Names,
    num_queries: usize,
) -> PyResult<()> {
    match first_duplicate(qi, docs, num_queries) {
        Some((_, earlier, later)) => Err(error(format!(
            "{what}, row {later}: document '{}' of query '{}' is {verb} a second time (first at row {earlier})",
            docs.get(later as usize),
            q.get(later as usize)?
        ))),
        None => Ok(()),
    }
}

/// A workspace of loaded data, as the CLI and the page hold it.
#[pyclass(module = "rankscope._rankscope")]
struct Data {
    ws: Workspace,
    warnings: Vec<String>,
}

impl Data {
    /// Columns built here are checked by the parsers' rules first.
    fn add(&mut self, file: &str, parsed: Parsed) -> PyResult<()> {
        rankscope::parse::transfer::validate(&parsed).map_err(|e| error(format!("{file}: {e}")))?;
        self.merge(file, parsed)
    }

    /// Merges a parsed file as the CLI does.
    fn merge(&mut self, file: &str, parsed: Parsed) -> PyResult<()> {
        let summary = self
            .ws
            .add(file, parsed)
            .map_err(|e| error(e.to_string()))?;
        self.warnings
            .extend(summary.warnings.into_iter().map(|w| format!("{file}: {w}")));
        Ok(())
    }

    /// The report of the data: evaluated under `conventions`, or, for values
    /// computed elsewhere (per-query values files, trec_eval `-q` output),
    /// read from them as the CLI reads them (`false` second).
    fn report(
        &self,
        py: Python<'_>,
        metrics: Option<Vec<String>>,
        cutoffs: Option<Vec<usize>>,
        conventions: Vec<(String, String)>,
    ) -> PyResult<(Report, bool)> {
        if self.ws.datasets().is_empty() && !self.ws.precomputed.is_empty() {
            let report = self
                .ws
                .precomputed_report(metrics.as_deref())
                .map_err(error)?;
            return Ok((report, false));
        }
        let data = self.dataset()?;
        let conv = self::conventions(conventions)?;
        let cutoffs = cutoffs.unwrap_or_else(|| registry::DEFAULT_CUTOFFS.to_vec());
        let ids = metric_ids(data.kind(), metrics, &cutoffs)?;
        Ok((py.detach(|| evaluate_on_threads(&data, &conv, &ids)), true))
    }

    fn dataset(&self) -> PyResult<Dataset<'_>> {
        match self.ws.datasets().as_slice() {
            [d] => Ok(*d),
            [] => Err(error(
                "nothing to evaluate: a run needs its qrels, and qrels need a run",
            )),
            _ => Err(error(
                "the data holds different kinds; evaluate one kind at a time",
            )),
        }
    }
}

fn conventions(items: Vec<(String, String)>) -> PyResult<Conventions> {
    let mut conv = Conventions::default();
    // a preset first (`preset="ranx"`), the other keywords change its values
    for (_, name) in items.iter().filter(|(k, _)| k == "preset") {
        rankscope::core::presets::apply(&mut conv, name)
            .map_err(|e| error(format!("preset={name}: {e}")))?;
    }
    for (key, value) in items.into_iter().filter(|(k, _)| k != "preset") {
        rankscope::core::conventions::set(&mut conv, &key, &value)
            .map_err(|e| error(format!("{key}={value}: {e}")))?;
    }
    Ok(conv)
}

fn metric_ids(
    kind: Kind,
    metrics: Option<Vec<String>>,
    cutoffs: &[usize],
) -> PyResult<Vec<MetricId>> {
    match metrics {
        Some(ids) if ids.len() == 1 && ids[0] == "all" => Ok(registry::all_metrics(kind, cutoffs)),
        Some(ids) => ids
            .iter()
            .map(|s| MetricId::parse(s, kind))
            .collect::<Result<Vec<_>, _>>()
            .map_err(error),
        None => Ok(registry::default_metrics(kind, cutoffs)),
    }
}

fn f64_bytes<'py>(py: Python<'py>, values: &[f64]) -> Bound<'py, PyBytes> {
    let mut out = Vec::with_capacity(values.len() * 8);
    for v in values {
        out.extend_from_slice(&v.to_le_bytes());
    }
    PyBytes::new(py, &out)
}

#[pymethods]
impl Data {
    #[new]
    fn new() -> Self {
        Data {
            ws: Workspace::default(),
            warnings: Vec::new(),
        }
    }

    /// Reads a file as the CLI reads it (`format`: an `--input-format` id;
    /// `qrels`: the file is judgments, in any format that holds them, as
    /// the CLI's `--qrels`; `relevant_rating`: a number, `graded` or `all`,
    /// as the CLI's `--relevant-rating`).
    #[pyo3(signature = (path, qrels=false, format=None, positive_label=None, relevant_rating=None))]
    fn add_path(
        &mut self,
        py: Python<'_>,
        path: &str,
        qrels: bool,
        format: Option<&str>,
        positive_label: Option<String>,
        relevant_rating: Option<&str>,
    ) -> PyResult<()> {
        let format = match format {
            Some(f) => Some(Format::from_id(f).ok_or_else(|| {
                let ids: Vec<&str> = Format::ALL.iter().map(|f| f.id()).collect();
                error(format!("format {f}: expected one of {}", ids.join(", ")))
            })?),
            None => None,
        };
        let relevant_rating = relevant_rating
            .map(|v| {
                RatingRelevance::parse(v).ok_or_else(|| {
                    error(format!(
                        "relevant_rating {v}: expected a number (a rating of at least it is relevant), graded or all"
                    ))
                })
            })
            .transpose()?;
        let options = LoadOptions {
            format,
            positive_label,
            relevant_rating,
            judgments: qrels && format.is_none(),
            audience: rankscope::parse::Audience::Python,
            ..LoadOptions::default()
        };
        let parsed = py.detach(|| {
            let file = std::fs::File::open(path)?;
            Ok::<_, std::io::Error>(Parser::new(path, options).read_all(file))
        });
        let parsed = parsed
            .map_err(|e| error(format!("{path}: cannot read the file ({e})")))?
            .map_err(|e| error(e.to_string()))?;
        self.merge(path, parsed)
    }

    /// A run from columns: query ids, document ids (Arrow large-string
    /// buffers) and scores (little-endian f64), in the order given (a run
    /// file's order: ties are broken by trec_eval's rules, not by it).
    fn add_run(
        &mut self,
        py: Python<'_>,
        name: String,
        queries: Column<'_>,
        docs: Column<'_>,
        scores: &[u8],
    ) -> PyResult<()> {
        let ((q_offsets, q_data), (d_offsets, d_data)) = (bytes(&queries), bytes(&docs));
        let parsed = py.detach(|| -> PyResult<Parsed> {
            let (q, d) = query_docs(
                &format!("run '{name}'"),
                (q_offsets, q_data),
                (d_offsets, d_data),
            )?;
            let score = floats(&format!("run '{name}', scores"), scores, q.len())?;
            let (queries, qi) = interned(&q)?;
            let docs = names(&d)?;
            duplicates_refused(
                &format!("run '{name}'"),
                "ranked",
                &q,
                &qi,
                &docs,
                queries.len(),
            )?;
            Ok(Parsed::Run {
                name: name.clone(),
                tag: String::new(),
                queries,
                q: qi,
                docs,
                score,
            })
        })?;
        let file = name.clone();
        self.add(&file, parsed)
    }

    /// Judgments from columns (as [`Data::add_run`]; grades as little-endian
    /// int64). A document judged twice for one query is refused, as in a file.
    fn add_qrels(
        &mut self,
        py: Python<'_>,
        name: String,
        queries: Column<'_>,
        docs: Column<'_>,
        grades: &[u8],
    ) -> PyResult<()> {
        let ((q_offsets, q_data), (d_offsets, d_data)) = (bytes(&queries), bytes(&docs));
        let parsed = py.detach(|| -> PyResult<Parsed> {
            let (q, d) = query_docs(&name, (q_offsets, q_data), (d_offsets, d_data))?;
            let wide = ints(&format!("{name}, relevance"), grades, q.len())?;
            let grades = wide
                .iter()
                .enumerate()
                .map(|(i, &g)| {
                    i32::try_from(g).map_err(|_| {
                        error(format!(
                            "{name}, relevance, row {i}: expected a whole number that fits 32 bits, found {g}"
                        ))
                    })
                })
                .collect::<PyResult<Vec<i32>>>()?;
            let (queries, qi) = interned(&q)?;
            let docs = names(&d)?;
            duplicates_refused(&name, "judged", &q, &qi, &docs, queries.len())?;
            let (judgments, duplicates) =
                Qrels::from_columns(&qi, &docs, &grades, queries.len());
            Ok(Parsed::Qrels {
                queries,
                judgments,
                rows: qi.len(),
                duplicates,
            })
        })?;
        self.add(&name.clone(), parsed)
    }

    /// Binary labels (one byte each, 0 or 1) and one score column per model.
    fn add_binary(
        &mut self,
        py: Python<'_>,
        name: String,
        labels: &[u8],
        models: Vec<(String, Vec<u8>)>,
    ) -> PyResult<()> {
        let parsed = py.detach(|| -> PyResult<Parsed> {
            let labels = labels
                .iter()
                .enumerate()
                .map(|(i, &b)| match b {
                    0 => Ok(false),
                    1 => Ok(true),
                    _ => Err(error(format!(
                        "labels, row {i}: expected 0 or 1, found {b}"
                    ))),
                })
                .collect::<PyResult<Vec<bool>>>()?;
            let models = models
                .into_iter()
                .map(|(m, s)| {
                    let scores = floats(&format!("scores '{m}'"), &s, labels.len())?;
                    Ok((m, scores))
                })
                .collect::<PyResult<Vec<_>>>()?;
            Ok(Parsed::Binary(BinaryData {
                labels,
                models,
                ..Default::default()
            }))
        })?;
        self.add(&name, parsed)
    }

    /// A multi-class probability (or logit) matrix per model, row-major
    /// little-endian f64 with `classes` columns, and the target class per row.
    fn add_multiclass(
        &mut self,
        py: Python<'_>,
        name: String,
        targets: &[u8],
        classes: usize,
        models: Vec<(String, Vec<u8>)>,
    ) -> PyResult<()> {
        let parsed = py.detach(|| -> PyResult<Parsed> {
            let rows = targets.len() / 8;
            let targets = ints("targets", targets, rows)?
                .into_iter()
                .enumerate()
                .map(|(i, t)| {
                    u32::try_from(t)
                        .ok()
                        .filter(|&t| (t as usize) < classes)
                        .ok_or_else(|| {
                            error(format!(
                                "targets, row {i}: expected a class from 0 to {}, found {t}",
                                classes.saturating_sub(1)
                            ))
                        })
                })
                .collect::<PyResult<Vec<u32>>>()?;
            let mut data = MulticlassData {
                num_classes: classes,
                targets,
                ..Default::default()
            };
            for (m, bytes) in models {
                let values = floats(&format!("probabilities '{m}'"), &bytes, rows * classes)?;
                let mut off_one = 0;
                let rows: Vec<RowSummary> = values
                    .chunks_exact(classes.max(1))
                    .zip(&data.targets)
                    .map(|(row, &t)| {
                        let s = RowSummary::from_row(row, t as usize);
                        if (s.row_sum - 1.0).abs() > 1e-3 {
                            off_one += 1;
                        }
                        s
                    })
                    .collect();
                data.rows_off_one.push(off_one);
                data.models.push(MulticlassPredictions {
                    name: m,
                    rows,
                    ..Default::default()
                });
            }
            Ok(Parsed::Multiclass(data))
        })?;
        self.add(&name, parsed)
    }

    /// Ratings: user and item ids (Arrow large-string buffers), the true
    /// ratings and one prediction column per model (little-endian f64).
    fn add_ratings(
        &mut self,
        py: Python<'_>,
        name: String,
        users: Column<'_>,
        items: Column<'_>,
        ratings: &[u8],
        models: Vec<(String, Vec<u8>)>,
    ) -> PyResult<()> {
        let ((u_offsets, u_data), (i_offsets, i_data)) = (bytes(&users), bytes(&items));
        let parsed = py.detach(|| -> PyResult<Parsed> {
            let u = Strings::new("user ids".into(), u_offsets, u_data)?;
            let it = Strings::new("item ids".into(), i_offsets, i_data)?;
            let rating = floats("ratings", ratings, u.len())?;
            let (users, user) = interned(&u)?;
            let (items, item) = interned(&it)?;
            if item.len() != user.len() {
                return Err(error(format!(
                    "{} user ids for {} item ids",
                    user.len(),
                    item.len()
                )));
            }
            let models = models
                .into_iter()
                .map(|(m, s)| {
                    Ok((
                        m.clone(),
                        floats(&format!("predictions '{m}'"), &s, user.len())?,
                    ))
                })
                .collect::<PyResult<Vec<_>>>()?;
            Ok(Parsed::Ratings(RatingsData {
                users,
                items,
                user,
                item,
                rating,
                models,
            }))
        })?;
        self.add(&name, parsed)
    }

    /// Per-query values computed elsewhere (a Spark job's, another tool's):
    /// query ids, model names and metric ids (Arrow large-string buffers)
    /// and values (little-endian f64; NaN: undefined for that query, left
    /// out), as a per-query values file holds them.
    fn add_per_query(
        &mut self,
        py: Python<'_>,
        name: String,
        queries: Column<'_>,
        models: Column<'_>,
        metrics: Column<'_>,
        values: &[u8],
    ) -> PyResult<()> {
        let columns = [bytes(&queries), bytes(&models), bytes(&metrics)];
        let parsed = py.detach(|| -> PyResult<Parsed> {
            let [q, m, k] = [("query ids", columns[0]), ("models", columns[1]), ("metrics", columns[2])]
                .map(|(what, (o, d))| Strings::new(format!("{name}, {what}"), o, d));
            let (q, m, k) = (q?, m?, k?);
            let rows = q.len();
            if m.len() != rows || k.len() != rows || values.len() != rows * 8 {
                return Err(error(format!("{name}: columns of different lengths")));
            }
            let (mut queries, mut model_ids, mut measures) =
                (Interner::new(), Interner::new(), Interner::new());
            let (mut qi, mut mi, mut ki, mut vs) = (vec![], vec![], vec![], vec![]);
            let mut row_of = Vec::new(); // the caller's row of each value kept
            for (i, b) in values.chunks_exact(8).enumerate() {
                let v = f64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
                if v.is_nan() {
                    continue; // undefined for this query (FCP of one grade)
                }
                qi.push(queries.intern(q.get(i)?));
                mi.push(model_ids.intern(m.get(i)?));
                ki.push(measures.intern(k.get(i)?));
                vs.push(v);
                row_of.push(i);
            }
            let columns = rankscope::parse::PerQueryColumns {
                queries: &queries,
                q: &qi,
                models: &model_ids,
                model: &mi,
                measures: &measures,
                m: &ki,
                value: &vs,
            };
            let split = columns.split(&name).map_err(|(first, again)| {
                error(format!(
                    "{name}, row {}: query '{}', model '{}' and metric '{}' again (first at row {})",
                    row_of[again],
                    queries.name(qi[again]),
                    model_ids.name(mi[again]),
                    measures.name(ki[again]),
                    row_of[first]
                ))
            })?;
            Ok(Parsed::PerQuery(split))
        })?;
        self.add(&name, parsed)
    }

    /// The self-contained HTML report the page saves ("Save report"): the
    /// built app's stylesheet, module and wasm (`css`, `js`, `wasm`) and its
    /// loading worker's glue and wasm (`worker_js`, `worker_wasm`) with
    /// this data as its session, opened on `metrics` (ids: their columns
    /// and cutoffs) under `conventions`. It opens offline and asks for nothing.
    #[pyo3(signature = (title, css, js, wasm, worker_js, worker_wasm, metrics=None, conventions=vec![]))]
    #[allow(clippy::too_many_arguments)]
    fn report_html(
        &self,
        title: &str,
        css: &str,
        js: &str,
        wasm: &[u8],
        worker_js: &str,
        worker_wasm: &[u8],
        metrics: Option<Vec<String>>,
        conventions: Vec<(String, String)>,
    ) -> PyResult<String> {
        use rankscope::session::{encode_session, report_html, ViewState};
        let mut view = ViewState {
            conv: self::conventions(conventions)?,
            ..Default::default()
        };
        if let Some(ids) = metrics {
            let kind = self.dataset().map_or(Kind::Ranking, |d| d.kind());
            view.tab = Some(kind);
            let ids = metric_ids(kind, Some(ids), &[])?;
            view.metrics.clear();
            view.k.clear();
            for id in &ids {
                let column = format!("{}.{}", kind.name(), id.base);
                if !view.metrics.contains(&column) {
                    view.metrics.push(column);
                }
                if let Some(k) = id.k.filter(|k| !view.k.contains(k)) {
                    view.k.push(k);
                }
            }
            view.k.sort_unstable();
            if view.k.is_empty() {
                view.k = ViewState::default().k;
            }
        }
        let session = encode_session(&self.ws, &view);
        report_html(title, css, js, wasm, (worker_js, worker_wasm), &session).map_err(error)
    }

    /// The data's kind (`ranking`, `binary`, `multiclass`, `ratings`).
    fn kind(&self) -> PyResult<&'static str> {
        Ok(Kind::name(self.dataset()?.kind()))
    }

    fn model_names(&self) -> PyResult<Vec<String>> {
        Ok(self.dataset()?.model_names())
    }

    /// Every metric of `metrics` (ids; `None`: the kind's defaults; `["all"]`:
    /// every one) under `conventions` (`(key, value)` pairs): a dict with
    /// `kind`, `columns`, `conventions`, `models` (`{model: {metric: value
    /// or None}}`), `warnings` and, with `per_query`, `per_query`: per model
    /// its unit ids and each metric's per-unit values as little-endian f64.
    #[pyo3(signature = (metrics=None, cutoffs=None, conventions=vec![], per_query=false))]
    fn evaluate<'py>(
        &self,
        py: Python<'py>,
        metrics: Option<Vec<String>>,
        cutoffs: Option<Vec<usize>>,
        conventions: Vec<(String, String)>,
        per_query: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let (report, computed) = self.report(py, metrics, cutoffs, conventions)?;
        let out = PyDict::new(py);
        out.set_item("kind", Kind::name(report.kind))?;
        out.set_item("columns", &report.columns)?;
        // values computed elsewhere: their conventions are not known here
        out.set_item(
            "conventions",
            computed.then(|| report.conventions.describe(report.kind)),
        )?;
        let models = PyDict::new(py);
        for m in &report.models {
            let values = PyDict::new(py);
            for c in &report.columns {
                values.set_item(c, m.metrics.get(c).copied().flatten())?;
            }
            models.set_item(&m.name, values)?;
        }
        out.set_item("models", models)?;
        let mut warnings = self.warnings.clone();
        warnings.extend(report.warnings.iter().cloned());
        if report.kind == Kind::Binary {
            let names = report.models.iter().map(|m| m.name.as_str());
            warnings.extend(report.conventions.unknown_thresholds(names));
        }
        out.set_item("warnings", warnings)?;
        if per_query {
            let list = PyList::empty(py);
            for m in &report.models {
                let per = PyDict::new(py);
                per.set_item("model", &m.name)?;
                per.set_item("units", &m.unit_ids)?;
                let values = PyDict::new(py);
                for c in &report.columns {
                    if let Some(col) = m.per_unit.get(c) {
                        if col.len() == m.unit_ids.len() {
                            values.set_item(c, f64_bytes(py, col))?;
                        }
                    }
                }
                per.set_item("values", values)?;
                list.append(per)?;
            }
            out.set_item("per_query", list)?;
        }
        Ok(out)
    }

    /// `rankscope compare --format json`'s document, as JSON text: every
    /// model against the baseline on each metric (binary data: ROC AUC by
    /// DeLong's test).
    #[pyo3(signature = (metrics, cutoffs=None, conventions=vec![], baseline=None, test="t", correction="holm", alpha=0.05, seed=42, permutations=10_000, bootstrap=1_000))]
    #[allow(clippy::too_many_arguments)]
    fn compare(
        &self,
        py: Python<'_>,
        metrics: Option<Vec<String>>,
        cutoffs: Option<Vec<usize>>,
        conventions: Vec<(String, String)>,
        baseline: Option<String>,
        test: &str,
        correction: &str,
        alpha: f64,
        seed: u64,
        permutations: u64,
        bootstrap: u64,
    ) -> PyResult<String> {
        use rankscope::compare::{Options, Test};
        use rankscope::core::stats::Correction;
        if !(alpha > 0.0 && alpha < 1.0) {
            return Err(error(format!(
                "alpha={alpha}: expected a level between 0 and 1"
            )));
        }
        if permutations == 0 || bootstrap == 0 {
            return Err(error(
                "permutations and bootstrap: expected a positive whole number",
            ));
        }
        let options = Options {
            baseline,
            resamples: permutations,
            bootstraps: bootstrap,
            seed,
            correction: Correction::named(correction).ok_or_else(|| {
                error(format!(
                    "correction={correction}: expected one of holm, bonferroni, bh, none"
                ))
            })?,
            test: Test::named(test).ok_or_else(|| {
                error(format!(
                    "test={test}: expected one of {}",
                    <Test as rankscope::core::Named>::names()
                ))
            })?,
            alpha,
        };
        // none named: `rankscope compare`'s defaults for the kind
        let metrics = metrics.unwrap_or_else(|| {
            let kind = self.dataset().map(|d| d.kind());
            (kind.iter())
                .flat_map(|&k| rankscope::compare::default_metrics(k, cutoffs.as_deref()))
                .map(|m| m.to_string())
                .collect()
        });
        if let Ok(Dataset::Binary(d)) = self.dataset() {
            // binary models: ROC AUC by DeLong's test on the same rows, every
            // other metric with its bootstrap interval (as the CLI)
            let conv = self::conventions(conventions)?;
            let ids = metric_ids(Kind::Binary, Some(metrics), &[])?;
            let others: Vec<_> = ids
                .iter()
                .filter(|m| m.base != registry::DELONG)
                .cloned()
                .collect();
            let auc = ids.len() > others.len();
            let (comparisons, intervals) = py
                .detach(|| {
                    let comparisons = if auc {
                        rankscope::compare::compare_auc(d, &options)?
                    } else {
                        Vec::new()
                    };
                    let intervals = if others.is_empty() {
                        Vec::new()
                    } else {
                        rankscope::compare::binary::bootstrap_intervals(
                            d,
                            &conv,
                            &others,
                            options.bootstraps as usize,
                            options.seed,
                        )
                    };
                    Ok::<_, String>((comparisons, intervals))
                })
                .map_err(error)?;
            let doc = serde_json::json!({ "kind": Kind::Binary, "comparisons": comparisons, "intervals": intervals });
            return serde_json::to_string(&doc).map_err(|e| error(e.to_string()));
        }
        // values computed elsewhere with none named: every metric they hold
        let named_none = metrics.is_empty();
        let named = (!named_none).then_some(metrics);
        let (mut report, computed) = self.report(py, named, cutoffs, conventions)?;
        let doc = py.detach(|| -> Result<serde_json::Value, String> {
            // multi-class and ratings models are paired row by row
            if let Ok(data) = self.dataset() {
                let conventions = report.conventions.clone();
                rankscope::compare::rows::per_row(&mut report, &data, &conventions)?;
            }
            // values computed elsewhere, none named: each that has per-unit values
            let columns = if !computed && named_none {
                rankscope::compare::paired_columns(&report)
            } else {
                report.columns.clone()
            };
            let comparisons = rankscope::compare::compare(&report, &columns, &options)?;
            let intervals = rankscope::compare::mean_intervals(&report, &columns, &options);
            // values computed elsewhere: their conventions are not known here
            let conventions = computed.then_some(&report.conventions);
            Ok(serde_json::json!({ "kind": report.kind, "conventions": conventions, "test": options.test, "alpha": options.alpha, "correction": options.correction, "comparisons": comparisons, "mean_intervals": intervals, "warnings": report.warnings }))
        });
        let doc = doc.map_err(error)?;
        serde_json::to_string(&doc).map_err(|e| error(e.to_string()))
    }

    /// `rankscope judgments COMMAND --format json`'s document, as JSON
    /// text, over this data's runs and the judgment `sets` (name, data
    /// holding the set's qrels): `agree` (the first two sets), `rankings`,
    /// `bounds`, `pool`, `merge` (the second set into the first; the merged
    /// qrels under `qrels`).
    #[pyo3(signature = (command, sets, relevance_level=1, a=None, b=None, metric=None, persistence=0.9, resamples=1000, seed=42, alpha=0.05, conventions=vec![], judgments=None, metrics=None, cutoffs=None, grade=None, baseline=None, share=0.5, per_query=false, depth=10, prefer_new=false))]
    #[allow(clippy::too_many_arguments)]
    fn judgments(
        &self,
        py: Python<'_>,
        command: &str,
        sets: Vec<(String, PyRef<'_, Data>)>,
        relevance_level: i32,
        a: Option<String>,
        b: Option<String>,
        metric: Option<String>,
        persistence: f64,
        resamples: usize,
        seed: u64,
        alpha: f64,
        conventions: Vec<(String, String)>,
        judgments: Option<String>,
        metrics: Option<Vec<String>>,
        cutoffs: Option<Vec<usize>>,
        grade: Option<i32>,
        baseline: Option<String>,
        share: f64,
        per_query: bool,
        depth: usize,
        prefer_new: bool,
    ) -> PyResult<String> {
        use rankscope::judgments as j;
        let conv = self::conventions(conventions)?;
        let mut set_files = Vec::new();
        for (name, data) in &sets {
            set_files.push((name.clone(), name.clone(), set_parsed(data, name)?));
        }
        // the runs (this data holds no judgments of its own)
        let run_files = self.ws.to_files();
        let doc = py.detach(move || -> Result<serde_json::Value, String> {
            let mut s = j::Sets::build(set_files, run_files)?;
            let set = |s: &j::Sets, name: &Option<String>, default: usize| match name {
                Some(n) => s.index(n),
                None if default < s.sets.len() => Ok(default),
                None => {
                    Err("give the judgment sets this needs (qrels={name: qrels, ...})".to_string())
                }
            };
            let run = |s: &j::Sets, name: &str| {
                (s.data.runs.iter().position(|r| r.name == name))
                    .ok_or_else(|| format!("no run is named '{name}'"))
            };
            let json =
                |v: Result<serde_json::Value, serde_json::Error>| v.map_err(|e| e.to_string());
            let mut doc = match command {
                "agree" => {
                    let (x, y) = (set(&s, &a, 0)?, set(&s, &b, 1)?);
                    json(serde_json::to_value(j::agreement(
                        &s,
                        x,
                        y,
                        relevance_level,
                    )))?
                }
                "rankings" => {
                    let x = set(&s, &a, 0)?;
                    let y = set(&s, &b, if x == 1 { 0 } else { 1 })?;
                    if !(persistence > 0.0 && persistence < 1.0 && alpha > 0.0 && alpha < 1.0) {
                        return Err(
                            "persistence and alpha: expected numbers between 0 and 1".into()
                        );
                    }
                    let options = rankscope::core::judgments::SurvivalOptions {
                        persistence,
                        resamples,
                        seed,
                        alpha,
                    };
                    let metric = metric.unwrap_or_else(|| format!("{}@10", registry::id::NDCG));
                    json(serde_json::to_value(j::rankings(
                        &mut s, x, y, &metric, &conv, &options,
                    )?))?
                }
                "bounds" => {
                    let x = set(&s, &judgments, 0)?;
                    let cutoffs = cutoffs.unwrap_or_else(|| registry::DEFAULT_CUTOFFS.to_vec());
                    if cutoffs.contains(&0) {
                        return Err("cutoffs: expected positive whole numbers".into());
                    }
                    let ids = match metrics {
                        Some(ids) if ids.len() == 1 && ids[0] == "all" => {
                            registry::all_metrics(Kind::Ranking, &cutoffs)
                        }
                        Some(ids) => ids
                            .iter()
                            .map(|m| MetricId::parse(m, Kind::Ranking))
                            .collect::<Result<_, _>>()?,
                        None => registry::default_metrics(Kind::Ranking, &cutoffs),
                    };
                    let base = baseline.as_deref().map_or(Ok(0), |n| run(&s, n))?;
                    if s.data.runs.is_empty() {
                        return Err("bounds needs runs".into());
                    }
                    let grade = grade.unwrap_or(conv.relevance_level);
                    json(serde_json::to_value(j::bounds(
                        &mut s,
                        x,
                        &ids,
                        &conv,
                        grade,
                        &cutoffs,
                        Some(base),
                        share,
                        per_query,
                    )))?
                }
                "pool" => {
                    if depth == 0 {
                        return Err("depth: expected a positive whole number".into());
                    }
                    let x = match (&judgments, s.sets.is_empty()) {
                        (Some(n), _) => Some(s.index(n)?),
                        (None, true) => None,
                        (None, false) => Some(0),
                    };
                    let base = baseline.as_deref().map(|n| run(&s, n)).transpose()?;
                    let doc = j::pool(&mut s, x, depth, base);
                    let mut v = json(serde_json::to_value(&doc))?;
                    v["pool_file"] = serde_json::Value::String(doc.to_pool_file());
                    v
                }
                "merge" => {
                    let (x, y) = (set(&s, &a, 0)?, set(&s, &b, 1)?);
                    let doc = j::merge(&s, x, y, prefer_new);
                    let mut v = json(serde_json::to_value(&doc))?;
                    v["qrels"] = serde_json::Value::String(doc.qrels);
                    v
                }
                c => {
                    return Err(format!(
                        "{c}: expected agree, rankings, bounds, pool or merge"
                    ))
                }
            };
            doc["load_warnings"] = serde_json::json!(s.warnings);
            Ok(doc)
        });
        serde_json::to_string(&doc.map_err(error)?).map_err(|e| error(e.to_string()))
    }
}

/// A set's judgments as a parsed file (its query ids its own).
fn set_parsed(data: &Data, name: &str) -> PyResult<Parsed> {
    match (&data.ws.ranking, data.ws.has_qrels) {
        (Some(d), true) => Ok(Parsed::Qrels {
            queries: d.queries.clone(),
            judgments: d.qrels.clone(),
            rows: d.qrels.num_judgments(),
            duplicates: 0,
        }),
        _ => Err(error(format!(
            "judgment set '{name}': expected judgments (qrels)"
        ))),
    }
}

/// Every metric id of a kind with its name and formula (the registry's).
#[pyfunction]
fn metrics(kind: &str) -> PyResult<Vec<(String, String, String)>> {
    let kind = Kind::named(kind).ok_or_else(|| {
        error(format!(
            "kind {kind}: expected ranking, binary, multiclass or ratings"
        ))
    })?;
    Ok(registry::all_metrics(kind, registry::DEFAULT_CUTOFFS)
        .iter()
        .filter_map(|id| {
            registry::info(&id.base, kind).map(|info| {
                (
                    id.to_string(),
                    info.title.to_string(),
                    info.formula.to_string(),
                )
            })
        })
        .collect())
}

/// The convention keys with their values' stable names.
#[pyfunction]
fn conventions_help() -> Vec<&'static str> {
    rankscope::core::conventions::all_keys()
}

/// A catalog's leaderboard (`rankscope leaderboard`): its rows as JSON.
#[pyfunction]
#[pyo3(signature = (manifest, metrics, baseline, test, correction, alpha, resamples, seed))]
#[allow(clippy::too_many_arguments)]
fn leaderboard(
    manifest: &str,
    metrics: Vec<String>,
    baseline: Option<String>,
    test: &str,
    correction: &str,
    alpha: f64,
    resamples: usize,
    seed: u64,
) -> PyResult<String> {
    use rankscope::core::leaderboard::{Settings, Test};
    use rankscope::core::stats::Correction;
    let settings = Settings {
        test: Test::named(test)
            .ok_or_else(|| error(format!("test={test}: expected one of {}", Test::names())))?,
        correction: Correction::named(correction).ok_or_else(|| {
            error(format!(
                "correction={correction}: expected one of {}",
                Correction::names()
            ))
        })?,
        alpha: Some(alpha)
            .filter(|a| *a > 0.0 && *a < 1.0)
            .ok_or_else(|| error(format!("alpha={alpha}: expected a number between 0 and 1")))?,
        resamples,
        seed,
    };
    let (m, values) = rankscope::leaderboard::load(manifest).map_err(error)?;
    let board =
        rankscope::leaderboard::board(&m, &values, &metrics, &settings, baseline.as_deref())
            .map_err(error)?;
    serde_json::to_string(&board.rows()).map_err(|e| error(e.to_string()))
}

/// The fingerprint of a metric's definition under the conventions
/// (`rankscope::core::fingerprint`): the CLI's and the page's for the same one.
#[pyfunction]
fn fingerprint(
    kind: &str,
    metric: &str,
    conventions_given: Vec<(String, String)>,
) -> PyResult<String> {
    let kind = match kind {
        "ranking" => Kind::Ranking,
        "binary" => Kind::Binary,
        "multiclass" => Kind::Multiclass,
        "ratings" => Kind::Ratings,
        _ => {
            return Err(error(format!(
                "kind {kind}: expected ranking, binary, multiclass or ratings"
            )))
        }
    };
    let conv = conventions(conventions_given)?;
    let id = registry::MetricId::parse(metric, kind).map_err(error)?;
    Ok(rankscope::core::fingerprint::fingerprint(kind, &id, &conv))
}

/// The presets: (name, tool, version, what it changes).
#[pyfunction]
fn presets() -> Vec<(&'static str, &'static str, &'static str, String)> {
    rankscope::core::presets::PRESETS
        .iter()
        .map(|p| (p.name, p.about().peer, p.about().version, p.changes()))
        .collect()
}

#[pymodule]
fn _rankscope(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Data>()?;
    m.add_function(wrap_pyfunction!(metrics, m)?)?;
    m.add_function(wrap_pyfunction!(conventions_help, m)?)?;
    m.add_function(wrap_pyfunction!(leaderboard, m)?)?;
    m.add_function(wrap_pyfunction!(fingerprint, m)?)?;
    m.add_function(wrap_pyfunction!(presets, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
