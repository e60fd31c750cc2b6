//! From a loaded data set and the conventions in force to a [`Report`]: every
//! requested metric per model, aggregated and per unit (query, row, user).

use std::collections::BTreeMap;
use std::sync::Arc;

use super::binary::{self, BinaryCurve, ZeroDivision};
use super::multiclass::MulticlassPredictions;
use super::ranking::{self, PreparedRun, QuerySet, RankingData, TieRule};
use super::ranking_metrics::{agreement, Ctx, F1Aggregation};
use super::registry::{self, At, Average, ClassView, Compute, Kind, MetricId};
use super::sum;
pub use super::trec_measures::MIN_GEO_MEAN;

pub use super::conventions::Conventions;

impl Conventions {
    pub fn ranking_ctx(&self) -> Ctx {
        Ctx {
            // binary grades are relevance at the level already (ranking::refine)
            relevance_level: match self.grades {
                ranking::Grades::Graded => self.relevance_level,
                ranking::Grades::Binary => 1,
            },
            gain: self.gain,
            discount: self.discount,
            ap_denominator: self.ap_denominator,
            precision_denominator: self.precision_denominator,
            ideal_depth: self.ideal_depth,
        }
    }

    /// Model `name`'s threshold: its own, else the shared one.
    pub fn threshold_for(&self, name: &str) -> f64 {
        self.thresholds
            .iter()
            .find(|(n, _)| n == name)
            .map_or(self.threshold, |t| t.1)
    }

    /// Sets model `model`'s own threshold (a new one, or replaces its
    /// earlier), or with `None` the shared one.
    pub fn set_threshold(&mut self, model: Option<&str>, t: f64) {
        match model {
            None => self.threshold = t,
            Some(name) => match self.thresholds.iter_mut().find(|(n, _)| n == name) {
                Some(own) => own.1 = t,
                None => self.thresholds.push((name.to_string(), t)),
            },
        }
    }

    /// Model `old`'s own threshold, if it has one, goes with its new name.
    pub fn rename_model(&mut self, old: &str, new: &str) {
        for own in self.thresholds.iter_mut().filter(|o| o.0 == old) {
            own.0 = new.to_string();
        }
    }

    /// A removed model's own threshold goes with it (a link then names only
    /// the models it has).
    pub fn forget_model(&mut self, name: &str) {
        self.thresholds.retain(|o| o.0 != name);
    }

    /// What is said of models given a threshold of their own that are not
    /// among `names` (a misspelt name would otherwise change nothing, silently).
    pub fn unknown_thresholds<'a>(&self, names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
        let names: Vec<&str> = names.into_iter().collect();
        (self.thresholds.iter())
            .filter(|(n, _)| !names.contains(&n.as_str()))
            .map(|(n, t)| {
                format!(
                    "threshold {t} of model '{n}': no binary model has that name (the models: {})",
                    names.join(", ")
                )
            })
            .collect()
    }

    /// The conventions that apply to `kind` with their values in force
    /// ([`super::conventions::describe`]).
    pub fn describe(&self, kind: Kind) -> Vec<(&'static str, String)> {
        super::conventions::describe(self, kind)
    }
}

/// Binary labels and one score column per model.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct BinaryData {
    #[serde(with = "crate::raw")]
    pub labels: Vec<bool>,
    #[serde(with = "crate::raw::named")]
    pub models: Vec<(String, Vec<f64>)>,
    /// Models' curves built already (by the loading workers, which sort
    /// while the page waits): never saved, used only while they are one per
    /// model ([`BinaryData::curve`]).
    #[serde(skip)]
    pub curves: CurveCache,
}

/// Curves built ahead, one per model (`None`: build it when asked).
#[derive(Clone, Default)]
pub struct CurveCache(Vec<Option<Arc<BinaryCurve>>>);

impl std::fmt::Debug for CurveCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let built = self.0.iter().filter(|c| c.is_some()).count();
        write!(f, "CurveCache({built} built)")
    }
}

impl BinaryData {
    /// Model `i`'s curve: the one built ahead, else built now. In the
    /// browser the loading workers build a dropped file's curves
    /// ([`BinaryCurve::new`], with its counting path); the page builds one
    /// only for data that came another way (the small example, a saved
    /// session) and does it by the sort alone, which keeps the counting
    /// path's code out of its size-bound wasm. Both give the same curve.
    pub fn curve(&self, i: usize) -> Arc<BinaryCurve> {
        let build = if cfg!(target_arch = "wasm32") {
            BinaryCurve::sorted
        } else {
            BinaryCurve::new
        };
        match self.curves.0.get(i) {
            Some(Some(c)) if self.curves.0.len() == self.models.len() => Arc::clone(c),
            _ => Arc::new(build(&self.labels, &self.models[i].1)),
        }
    }

    /// Keeps `curves`, one per model in order, each built from that model's
    /// scores ([`BinaryCurve::new`]), once each is checked to be a curve of these labels.
    pub fn set_curves(&mut self, curves: Vec<BinaryCurve>) -> Result<(), String> {
        if curves.len() != self.models.len() {
            return Err(format!(
                "{} curves for {} models",
                curves.len(),
                self.models.len()
            ));
        }
        for c in &curves {
            c.check(&self.labels)?;
        }
        self.curves = CurveCache(curves.into_iter().map(|c| Some(Arc::new(c))).collect());
        Ok(())
    }

    /// Adds a model, with its curve when it is built already.
    pub fn push_model(&mut self, name: String, scores: Vec<f64>, curve: Option<Arc<BinaryCurve>>) {
        self.curves.0.resize(self.models.len(), None);
        self.models.push((name, scores));
        self.curves.0.push(curve);
    }

    /// Model `i`'s curve if it is built already.
    pub fn built_curve(&self, i: usize) -> Option<Arc<BinaryCurve>> {
        (self.curves.0.len() == self.models.len())
            .then(|| self.curves.0.get(i).cloned().flatten())
            .flatten()
    }

    /// Rows labelled positive (read off a built curve, else counted).
    pub fn positives(&self) -> usize {
        match self.built_curve(0) {
            Some(c) => c.positives as usize,
            None => binary::count_true(&self.labels),
        }
    }

    /// Rows whose model-`i` score is outside [0, 1] (read off its built
    /// curve, whose thresholds are sorted, else counted).
    pub fn outside_unit(&self, i: usize) -> usize {
        match self.built_curve(i) {
            Some(c) => c.rows_outside(0.0, 1.0) as usize,
            None => self.models[i]
                .1
                .iter()
                .filter(|s| !(0.0..=1.0).contains(*s))
                .count(),
        }
    }

    /// Keeps the models `keep` accepts (by name), with their curves.
    pub fn retain_models(&mut self, keep: impl Fn(&str) -> bool) {
        let built: Vec<_> = (0..self.models.len())
            .map(|i| self.built_curve(i))
            .collect();
        let (models, curves): (Vec<_>, Vec<_>) = std::mem::take(&mut self.models)
            .into_iter()
            .zip(built)
            .filter(|((name, _), _)| keep(name))
            .unzip();
        self.models = models;
        self.curves = CurveCache(curves);
    }
}

/// Multi-class targets and one reduced prediction set per model.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct MulticlassData {
    pub num_classes: usize,
    #[serde(with = "crate::raw")]
    pub targets: Vec<u32>,
    pub models: Vec<MulticlassPredictions>,
    /// Rows whose probabilities do not sum to 1 within 1e-3, per model.
    pub rows_off_one: Vec<usize>,
    /// The classes' ids when a top-k file named them by text (class `c` is
    /// `names.name(c)`); `None`: classes are their numbers. Carried outside
    /// the encoding (`Parsed::Classes`), so sessions without it read alike.
    #[serde(skip)]
    pub class_names: Option<crate::ids::Interner>,
}

impl MulticlassData {
    /// How class `c` is shown: its id from the file.
    pub fn class_name(&self, c: u32) -> String {
        match &self.class_names {
            Some(names) if (c as usize) < names.len() => names.name(c).to_string(),
            _ => c.to_string(),
        }
    }
}

pub use super::ratings::RatingsData;

/// A loaded data set of any kind (borrowed: evaluation never copies columns).
#[derive(Clone, Copy, Debug)]
pub enum Dataset<'a> {
    Ranking(&'a RankingData),
    Binary(&'a BinaryData),
    Multiclass(&'a MulticlassData),
    Ratings(&'a RatingsData),
}

impl Dataset<'_> {
    pub fn kind(&self) -> Kind {
        match self {
            Dataset::Ranking(_) => Kind::Ranking,
            Dataset::Binary(_) => Kind::Binary,
            Dataset::Multiclass(_) => Kind::Multiclass,
            Dataset::Ratings(_) => Kind::Ratings,
        }
    }

    pub fn model_names(&self) -> Vec<String> {
        match self {
            Dataset::Ranking(d) => d.runs.iter().map(|r| r.name.clone()).collect(),
            Dataset::Binary(d) => d.models.iter().map(|m| m.0.clone()).collect(),
            Dataset::Multiclass(d) => d.models.iter().map(|m| m.name.clone()).collect(),
            Dataset::Ratings(d) => d.models.iter().map(|m| m.0.clone()).collect(),
        }
    }
}

/// One model's values.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct ModelReport {
    pub name: String,
    /// Metric id -> value; `None` when undefined (e.g. AUC with one class).
    pub metrics: BTreeMap<String, Option<f64>>,
    /// Unit ids (query ids, ...) in output order.
    #[serde(skip)]
    pub unit_ids: Vec<String>,
    /// Metric id -> one value per unit.
    #[serde(skip)]
    pub per_unit: BTreeMap<String, Vec<f64>>,
    /// The threshold metrics whose denominator is 0 (precision with nothing
    /// predicted positive, ...): their value is `zero_division`'s, not a
    /// ratio; each with why (the table marks their cells, a warning says it).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub zero_division: Vec<(&'static str, &'static str)>,
}

/// Everything computed for a data set under one set of conventions.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Report {
    pub kind: Kind,
    /// Metric ids in the order they were asked for (`iprec_at_recall` expanded).
    pub columns: Vec<String>,
    pub conventions: Conventions,
    pub models: Vec<ModelReport>,
    pub warnings: Vec<String>,
}

impl Report {
    /// Why `metric` of `model` is `zero_division`'s value (its denominator
    /// is 0), or `None` when it is a ratio.
    pub fn zero_division(&self, model: &str, metric: &str) -> Option<&'static str> {
        let m = self.models.iter().find(|m| m.name == model)?;
        m.zero_division
            .iter()
            .find(|(id, _)| *id == metric)
            .map(|(_, why)| *why)
    }
}

/// Evaluates `metrics` (all ids of the data set's kind) for every model.
pub fn evaluate(data: &Dataset, conv: &Conventions, metrics: &[MetricId]) -> Report {
    if let Dataset::Ranking(d) = data {
        return evaluate_prepared(d, &prepare_runs(d, conv), conv, metrics);
    }
    let mut warnings = Vec::new();
    let models = match data {
        Dataset::Ranking(_) => Vec::new(),
        Dataset::Binary(d) => {
            return evaluate_binary_prepared(
                &prepare_binary(d, conv.binary_scores_are_logits),
                conv,
                metrics,
            )
        }
        Dataset::Multiclass(d) => d
            .models
            .iter()
            .map(|m| evaluate_multiclass(d, m, conv, metrics, &mut warnings))
            .collect(),
        Dataset::Ratings(d) => d
            .models
            .iter()
            .map(|(name, p)| evaluate_ratings(d, name, p, metrics))
            .collect(),
    };
    Report {
        kind: data.kind(),
        columns: column_names(metrics),
        conventions: conv.clone(),
        models,
        warnings,
    }
}

/// [`evaluate`], a ranking data set's metrics shared out between two
/// threads (each metric family, all its cutoffs, on one of them) over runs
/// prepared once: the same values; on a 10M-line run with every metric the
/// two threads take 0.33 and 0.42 s, one took 0.6 s. The core itself is
/// single-threaded (the page runs it in wasm, which has no threads); the
/// CLI and the Python package call this.
pub fn evaluate_on_threads(data: &Dataset, conv: &Conventions, metrics: &[MetricId]) -> Report {
    let Dataset::Ranking(d) = data else {
        return evaluate(data, conv, metrics);
    };
    let prepared = prepare_runs(d, conv);
    let mut bases: Vec<&str> = Vec::new();
    for m in metrics {
        if !bases.contains(&m.base.as_str()) {
            bases.push(&m.base);
        }
    }
    let (mine, theirs): (Vec<MetricId>, Vec<MetricId>) = metrics
        .iter()
        .cloned()
        .partition(|m| bases.iter().position(|&b| b == m.base).unwrap_or(0) % 2 == 0);
    let (mut report, other) = std::thread::scope(|s| {
        let other = s.spawn(|| evaluate_prepared(d, &prepared, conv, &theirs));
        let report = evaluate_prepared(d, &prepared, conv, &mine);
        match other.join() {
            Ok(other) => (report, other),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    });
    for (model, more) in report.models.iter_mut().zip(other.models) {
        model.metrics.extend(more.metrics);
        model.per_unit.extend(more.per_unit);
    }
    report.columns = column_names(metrics);
    report
}

/// Every run of `d` prepared under `conv.ties` and `conv.query_set`, then
/// refined by the conventions that drop documents or queries or limit the
/// judgments ([`Conventions::refine`]).
pub fn prepare_runs(d: &RankingData, conv: &Conventions) -> Vec<PreparedRun> {
    (0..d.runs.len())
        .map(|i| {
            let p = ranking::prepare(d, i, conv.ties, conv.query_set);
            refine_run(p, d, i, conv)
        })
        .collect()
}

/// A run prepared under the tie rule and query set, refined by `conv`'s
/// other conventions (the page prepares and re-ties, then calls this).
pub fn refine_run(p: PreparedRun, d: &RankingData, run: usize, conv: &Conventions) -> PreparedRun {
    let r = conv.refine();
    if r.is_identity() {
        return p;
    }
    ranking::refine(&p, d, &d.runs[run], r)
}

impl Conventions {
    /// The conventions [`ranking::refine`] applies after the sort.
    pub fn refine(&self) -> ranking::Refine {
        ranking::Refine {
            identical_ids: self.identical_ids,
            no_relevant: self.no_relevant,
            judgments: self.qrels_scope,
            grades: self.grades,
            relevance_level: self.relevance_level,
        }
    }
}

/// Evaluates ranking runs already prepared under `conv.ties` and `conv.query_set`
/// (the page keeps them across convention changes that do not reorder lists).
pub fn evaluate_prepared<'a>(
    d: &RankingData,
    prepared: impl IntoIterator<Item = &'a PreparedRun>,
    conv: &Conventions,
    metrics: &[MetricId],
) -> Report {
    let mut warnings = Vec::new();
    let mut shares = Vec::new();
    let models = prepared
        .into_iter()
        .map(|given| {
            ranking_warnings(d, given, conv, &mut warnings);
            // a document the run retrieves, to show beside one of the qrels'
            let run = d.runs.iter().find(|r| r.name == given.name);
            let doc = run.zip(given.rows.first());
            shares.push((
                given.name.as_str(),
                judged_share(given),
                doc.map(|(r, &row)| r.doc(row)),
            ));
            // condensed lists: the unjudged documents leave before scoring
            match run {
                Some(run) if conv.unjudged == super::judgments::Unjudged::Condensed => {
                    evaluate_ranking(d, &super::judgments::condense(given, run), conv, metrics)
                }
                _ => evaluate_ranking(d, given, conv, metrics),
            }
        })
        .collect();
    judged_warnings(d, &shares, &mut warnings);
    Report {
        kind: Kind::Ranking,
        columns: column_names(metrics),
        conventions: conv.clone(),
        models,
        warnings,
    }
}

fn ranking_warnings(
    d: &RankingData,
    p: &PreparedRun,
    conv: &Conventions,
    warnings: &mut Vec<String>,
) {
    let sel = &p.selection;
    let name = |ids: &[u32]| -> String {
        let shown: Vec<&str> = ids.iter().take(5).map(|&q| d.queries.name(q)).collect();
        let more = if ids.len() > 5 {
            format!(" and {} more", ids.len() - 5)
        } else {
            String::new()
        };
        format!("{}{}", shown.join(", "), more)
    };
    if !sel.missing_from_run.is_empty() {
        let what = match conv.query_set {
            QuerySet::Qrels => "each scores 0 and counts in the mean",
            QuerySet::Intersection => "they are left out (trec_eval's default)",
            QuerySet::Union => "each scores 0 and counts in the mean",
        };
        warnings.push(format!(
            "{}: {} qrels queries have no results in the run ({}); {what}.",
            p.name,
            sel.missing_from_run.len(),
            name(&sel.missing_from_run)
        ));
    }
    if !sel.missing_from_qrels.is_empty() {
        let what = match conv.query_set {
            QuerySet::Union => "each scores 0 and counts in the mean",
            _ => "they are left out",
        };
        warnings.push(format!(
            "{}: {} run queries are not in the qrels ({}); {what}.",
            p.name,
            sel.missing_from_qrels.len(),
            name(&sel.missing_from_qrels)
        ));
    }
    if !sel.no_relevant_skipped.is_empty() {
        warnings.push(format!(
            "{}: {} queries have no relevant document ({}); they are left out (no_relevant=skip).",
            p.name,
            sel.no_relevant_skipped.len(),
            name(&sel.no_relevant_skipped)
        ));
    }
    let tied = p.mixed_ties.len();

    if tied > 0 {
        let rule = match conv.ties {
            TieRule::Trec => "trec_eval's: document id descending",
            TieRule::File => "file order",
            TieRule::Average => "the average over tie orders",
            TieRule::IdAscending => "document id ascending",
        };
        warnings.push(format!(
            "{}: in {tied} queries equal scores tie documents of different grades, so their values depend on the tie rule (now {rule}).",
            p.name
        ));
    }
    if p.duplicates_dropped > 0 {
        warnings.push(format!(
            "{}: {} duplicated (query, document) rows; the first one of each in the file is kept.",
            p.name, p.duplicates_dropped
        ));
    }
}

/// The share of the documents a prepared run retrieves for its evaluated
/// queries that the qrels judge; `None` when it retrieves none.
pub fn judged_share(p: &PreparedRun) -> Option<f64> {
    let judged = p
        .grades
        .iter()
        .filter(|&&g| g != ranking::NOT_JUDGED)
        .count();
    (!p.grades.is_empty()).then(|| judged as f64 / p.grades.len() as f64)
}

/// A model none of whose retrieved documents is judged (document ids that do
/// not match the qrels': every value is 0), or far fewer than another's
/// (unjudged documents count as not relevant, so its values are biased low).
fn judged_warnings(
    d: &RankingData,
    shares: &[(&str, Option<f64>, Option<&str>)],
    warnings: &mut Vec<String>,
) {
    let best = shares.iter().filter_map(|s| s.1).fold(0.0, f64::max);
    let qrels_doc = (!d.qrels.names.is_empty()).then(|| d.qrels.names.get(0));
    for &(name, share, run_doc) in shares {
        let Some(share) = share else { continue };
        if share == 0.0 {
            let sample = match (run_doc, qrels_doc) {
                (Some(r), Some(q)) => format!(
                    " (the run has e.g. '{}', the qrels '{}')",
                    crate::text::capped(r.to_string()),
                    crate::text::capped(q.to_string())
                ),
                _ => String::new(),
            };
            warnings.push(format!(
                "{name}: none of its retrieved documents is judged in the qrels, so every value is 0. Do its document ids match the qrels'{sample}?"
            ));
        } else if share < best / 2.0 {
            warnings.push(format!(
                "{name}: {:.1}% of its retrieved documents are judged, against {:.1}% for the best-judged model: unjudged documents count as not relevant, so its values are biased low (judged@k shows it per query).",
                share * 100.0,
                best * 100.0
            ));
        }
    }
}

/// Queries where some tie group (equal scores) holds documents of different
/// grades: the only queries whose values change with the tie rule (found once
/// when the run is prepared).
pub fn queries_with_mixed_ties(p: &PreparedRun) -> &[usize] {
    &p.mixed_ties
}

/// Display names of the requested metrics, in order.
pub fn column_names(metrics: &[MetricId]) -> Vec<String> {
    let mut out = Vec::new();
    for id in metrics {
        match registry::info(&id.base, Kind::Ranking).and_then(|m| m.columns()) {
            Some(names) => out.extend(names.iter().map(|s| s.to_string())),
            None => out.push(id.to_string()),
        }
    }
    out
}

pub use registry::{IPREC_NAMES, RPREC_MULT_NAMES};

/// Per-query values of one ranking metric id (`None` when it is not a per-query mean).
pub fn ranking_per_query(p: &PreparedRun, conv: &Conventions, id: &MetricId) -> Option<Vec<f64>> {
    let f = query_metric(conv, id)?;
    Some((0..p.num_queries()).map(|i| f(&p.query(i))).collect())
}

/// One query's value of one single-column ranking metric id (`None` for
/// the metrics of several columns or pooled over queries).
pub fn ranking_query_value(
    q: &ranking::QueryView,
    conv: &Conventions,
    id: &MetricId,
) -> Option<f64> {
    query_metric(conv, id).map(|f| f(q))
}

impl Conventions {
    /// A ranking kernel's conventions at cutoff `k`.
    pub fn at(&self, k: Option<usize>) -> At {
        At {
            k,
            ctx: self.ranking_ctx(),
            trec_eval: self.trec_eval,
        }
    }
}

/// The kernel of a single-column ranking metric id, its conventions bound
/// (the registry's [`Compute::Query`]).
fn query_metric(conv: &Conventions, id: &MetricId) -> Option<impl Fn(&ranking::QueryView) -> f64> {
    let Compute::Query(f) = registry::info(&id.base, Kind::Ranking)?.compute else {
        return None;
    };
    let at = conv.at(id.k);
    Some(move |q: &ranking::QueryView| f(q, &at))
}

fn evaluate_ranking(
    d: &RankingData,
    p: &PreparedRun,
    conv: &Conventions,
    metrics: &[MetricId],
) -> ModelReport {
    let mut out = ModelReport {
        name: p.name.clone(),
        unit_ids: p
            .selection
            .evaluated
            .iter()
            .map(|&q| d.queries.name(q).to_string())
            .collect(),
        ..Default::default()
    };
    let n = p.num_queries();
    let mut scanned = cutoff_columns(p, &conv.ranking_ctx(), metrics);
    for (slot, id) in metrics.iter().enumerate() {
        let Some(info) = registry::info(&id.base, Kind::Ranking) else {
            continue;
        };
        let key = id.to_string();
        match info.compute {
            Compute::Columns(names, f) => {
                let at = conv.at(id.k);
                let mut cols: Vec<Vec<f64>> = names.iter().map(|_| Vec::with_capacity(n)).collect();
                for i in 0..n {
                    for (col, v) in cols.iter_mut().zip(f(&p.query(i), &at)) {
                        col.push(v);
                    }
                }
                for (name, col) in names.iter().zip(cols) {
                    out.metrics.insert(
                        name.to_string(),
                        sum::mean(col.iter().copied()).or(Some(0.0)),
                    );
                    out.per_unit.insert(name.to_string(), col);
                }
            }
            Compute::Agreement { pooled } => {
                let Some(run) = d.runs.iter().find(|r| r.name == p.name) else {
                    continue;
                };
                let (value, col) = ranking_agreement(p, run, pooled);
                out.metrics.insert(key.clone(), value);
                out.per_unit.insert(key, col);
            }
            Compute::Query(_) => {
                let Some(col) = scanned[slot]
                    .take()
                    .or_else(|| ranking_per_query(p, conv, id))
                else {
                    continue;
                };
                let value = if info.average == Average::F1
                    && conv.f1_aggregation == F1Aggregation::FromMeans
                {
                    // F1 of the mean P@k and R@k (their kernels, as their columns)
                    let ctx = conv.ranking_ctx();
                    let queries = || (0..n).map(|i| p.query(i));
                    let pm = sum::mean(queries().map(|q| q.precision(id.k, &ctx))).unwrap_or(0.0);
                    let rm = sum::mean(queries().map(|q| q.recall(id.k, ctx.relevance_level)))
                        .unwrap_or(0.0);
                    if pm + rm > 0.0 {
                        2.0 * pm * rm / (pm + rm)
                    } else {
                        0.0
                    }
                } else {
                    average(info.average, &col)
                };
                out.metrics.insert(key.clone(), Some(value));
                out.per_unit.insert(key, col);
            }
            _ => {}
        }
    }
    out
}

/// A ranking metric's value over the queries from its per-query values
/// (`base`: the metric id without its cutoff), as trec_eval accumulates
/// them: the counts (`num_ret`, ...) summed, `gm_map` and `gm_bpref` as
/// geometric means (each value at least [`MIN_GEO_MEAN`]), every other one
/// the mean (0 over no query); sums compensated ([`sum`]). The per-query
/// values of other tools (a Spark job's, say) become the table's value here.
pub fn aggregate(base: &str, col: &[f64]) -> f64 {
    let how = registry::info(base, Kind::Ranking).map_or(Average::Mean, |m| m.average);
    average(how, col)
}

fn average(how: Average, col: &[f64]) -> f64 {
    match how {
        Average::Sum => sum::sum(col.iter().copied()),
        Average::Geometric if !col.is_empty() => {
            (sum::sum(col.iter().map(|&v| v.max(MIN_GEO_MEAN).ln())) / col.len() as f64).exp()
        }
        _ => sum::mean(col.iter().copied()).unwrap_or(0.0),
    }
}

/// Per-query columns of every cutoff-family id in `metrics` from one scan of
/// each query at all requested cutoffs ([`ranking::QueryView::scan_cutoffs`]),
/// instead of one scan per (family, cutoff). `None` for the ids it does not
/// serve, and for every id when tie groups are averaged (the kernels' exact
/// expectations are needed then).
fn cutoff_columns(p: &PreparedRun, ctx: &Ctx, metrics: &[MetricId]) -> Vec<Option<Vec<f64>>> {
    let families: Vec<Option<registry::ScanFn>> = metrics
        .iter()
        .map(|id| registry::info(&id.base, Kind::Ranking).and_then(|m| m.scan))
        .collect();
    if p.tie_rule == TieRule::Average || families.iter().all(Option::is_none) {
        return vec![None; metrics.len()];
    }
    // the cutoffs ascending, no cutoff (usize::MAX) last: sorted as plain
    // usize (the page's one usize sort), then back to cutoffs
    let key = |k: &Option<usize>| k.unwrap_or(usize::MAX);
    let keys: Vec<usize> = metrics
        .iter()
        .zip(&families)
        .filter(|(_, f)| f.is_some())
        .map(|(id, _)| key(&id.k))
        .collect();
    let mut keys = crate::ascending(&keys);
    keys.dedup();
    let ks: Vec<Option<usize>> = keys
        .into_iter()
        .map(|k| (k != usize::MAX).then_some(k))
        .collect();
    let plan: Vec<Option<(registry::ScanFn, usize, Option<usize>)>> = metrics
        .iter()
        .zip(&families)
        .map(|(id, f)| {
            let at = ks.binary_search_by_key(&key(&id.k), key).ok()?;
            Some(((*f)?, at, id.k))
        })
        .collect();
    let n = p.num_queries();
    let mut cols: Vec<Option<Vec<f64>>> = plan
        .iter()
        .map(|s| s.map(|_| Vec::with_capacity(n)))
        .collect();
    let mut prefixes = Vec::with_capacity(ks.len());
    for i in 0..n {
        let q = p.query(i);
        q.scan_cutoffs(&ks, ctx, &mut prefixes);
        for (step, col) in plan.iter().zip(cols.iter_mut()) {
            let (Some((family, at, k)), Some(col)) = (step, col) else {
                continue;
            };
            col.push(family(&prefixes[*at], &q, *k, ctx));
        }
    }
    cols
}

/// FCP (pooled over queries) or Spearman (mean over defined queries) of score vs grade.
/// Per-query column: the query's own value, NaN where undefined.
fn ranking_agreement(p: &PreparedRun, run: &ranking::Run, fcp: bool) -> (Option<f64>, Vec<f64>) {
    let mut col = Vec::with_capacity(p.num_queries());
    let (mut nc, mut nd) = (0u64, 0u64);
    let (mut grades, mut counts, mut scratch) = (Vec::new(), Vec::new(), Default::default());
    let mut scores: Vec<f64> = Vec::new();
    for i in 0..p.num_queries() {
        let r = p.row_range(i);
        scores.clear();
        scores.extend(
            p.rows[r.clone()]
                .iter()
                .map(|&row| run.scores[row as usize]),
        );
        let scores = &scores[..];
        grades.clear();
        grades.extend(p.grades[r].iter().map(|&g| g.max(0)));
        // lists are sorted by score, descending: small grades need no sort
        let small = grades.iter().all(|&g| g <= agreement::SMALL_GRADES);
        if fcp {
            let (c, d) = if small {
                agreement::concordance_sorted(scores, &grades, &mut counts)
            } else {
                agreement::concordance(scores, &grades)
            };
            nc += c;
            nd += d;
            col.push(if c + d > 0 {
                c as f64 / (c + d) as f64
            } else {
                f64::NAN
            });
        } else {
            let rho = if small {
                agreement::spearman_sorted(scores, &grades, &mut scratch)
            } else {
                let g: Vec<f64> = grades.iter().map(|&g| g as f64).collect();
                agreement::spearman(scores, &g)
            };
            col.push(rho.unwrap_or(f64::NAN));
        }
    }
    let value = if fcp {
        (nc + nd > 0).then(|| nc as f64 / (nc + nd) as f64)
    } else {
        sum::mean(col.iter().copied().filter(|v| !v.is_nan()))
    };
    (value, col)
}

/// One binary model after its single sort: the curve and the threshold-free
/// summaries. Threshold moves then cost O(log n) ([`evaluate_binary_prepared`]).
#[derive(Clone, Debug)]
pub struct BinaryPrepared {
    pub name: String,
    /// Built from the raw scores, so the same whatever their scale: the
    /// sigmoid is increasing, and the curve is shared across a scale change.
    pub curve: Arc<BinaryCurve>,
    /// Log loss and Brier score, or the 0-based row of the first score outside [0, 1].
    pub log_loss: Result<f64, (usize, f64)>,
    pub brier: Result<f64, (usize, f64)>,
}

/// Sorts and summarises every binary model (the expensive step, once per data/scale change).
pub fn prepare_binary(d: &BinaryData, logits: bool) -> Vec<BinaryPrepared> {
    prepare_binary_with(d, logits, &binary_curves(d))
}

/// Every model's curve: the one sort per model, which depends on the data alone.
pub fn binary_curves(d: &BinaryData) -> Vec<Arc<BinaryCurve>> {
    (0..d.models.len()).map(|i| d.curve(i)).collect()
}

/// The models summarised on their `curves` (from [`binary_curves`] on the same data):
/// what a change of the score scale recomputes, in time linear in the distinct scores.
pub fn prepare_binary_with(
    d: &BinaryData,
    logits: bool,
    curves: &[Arc<BinaryCurve>],
) -> Vec<BinaryPrepared> {
    d.models
        .iter()
        .zip(curves)
        .map(|((name, scores), curve)| {
            let probability = |z: f64| if logits { binary::sigmoid(z) } else { z };
            // a score outside [0, 1]: the first row with one, for the message
            let outside = || {
                let i = scores
                    .iter()
                    .position(|&z| !(0.0..=1.0).contains(&probability(z)))
                    .unwrap_or(0);
                (i, scores.get(i).map_or(f64::NAN, |&z| probability(z)))
            };
            BinaryPrepared {
                name: name.clone(),
                curve: Arc::clone(curve),
                log_loss: curve
                    .probability_loss(false, probability)
                    .ok_or_else(outside),
                brier: curve
                    .probability_loss(true, probability)
                    .ok_or_else(outside),
            }
        })
        .collect()
}

/// The binary report from prepared models: O(models · (metrics + log n)).
pub fn evaluate_binary_prepared<'a>(
    prepared: impl IntoIterator<Item = &'a BinaryPrepared>,
    conv: &Conventions,
    metrics: &[MetricId],
) -> Report {
    let mut warnings = Vec::new();
    let models = prepared
        .into_iter()
        .map(|p| evaluate_binary(p, conv, metrics, &mut warnings))
        .collect();
    Report {
        kind: Kind::Binary,
        columns: column_names(metrics),
        conventions: conv.clone(),
        models,
        warnings,
    }
}

fn evaluate_binary(
    p: &BinaryPrepared,
    conv: &Conventions,
    metrics: &[MetricId],
    warnings: &mut Vec<String>,
) -> ModelReport {
    let name = &p.name;
    let curve = &p.curve;
    let conf = curve.confusion_at(conv.threshold_for(name), conv.threshold_rule);
    let mut out = ModelReport {
        name: name.to_string(),
        ..Default::default()
    };
    if curve.positives == 0 || curve.negatives == 0 {
        warnings.push(if curve.positives == 0 {
            format!("{name}: no row is positive, so ROC AUC is undefined and average precision is 0 (scikit-learn's rule).")
        } else {
            format!("{name}: only one class is present, so ROC AUC is undefined.")
        });
    }
    let mut undefined = Vec::new();
    for id in metrics {
        let Some(info) = registry::info(&id.base, Kind::Binary) else {
            continue;
        };
        let value = match info.compute {
            Compute::Curve(f) => f(curve),
            Compute::Calibrated(f) => f(curve, conv.binary_scores_are_logits),
            Compute::Loss { brier } => {
                let r = if brier { p.brier } else { p.log_loss };
                match r {
                    Ok(v) => Some(v),
                    Err((row, score)) => {
                        let msg = format!("{name}: {} needs probabilities in [0, 1], but row {} has score {score}; mark the scores as logits (CLI: --logits).", id.base, row + 1);
                        if !warnings.contains(&msg) {
                            warnings.push(msg);
                        }
                        None
                    }
                }
            }
            Compute::Threshold(f, applies) => {
                if applies && f(&conf).is_none() && conf.total() > 0 {
                    undefined.push(info.base);
                }
                info.at_threshold(&conf, conv.zero_division).flatten()
            }
            _ => continue,
        };
        out.metrics.insert(id.to_string(), value);
    }
    if !undefined.is_empty() {
        let why = zero_denominator(&conf);
        warnings.push(zero_division_warning(
            name,
            &undefined,
            why,
            conv.zero_division,
        ));
        out.zero_division = undefined.iter().map(|&m| (m, why)).collect();
    }
    out
}

/// Why a threshold metric's denominator is 0 on `conf`.
fn zero_denominator(conf: &binary::Confusion) -> &'static str {
    match (conf.tp + conf.fp == 0, conf.tp + conf.fn_ == 0) {
        (true, true) => "no row is positive or predicted positive",
        (true, false) => "no row is predicted positive",
        _ => "no row is positive",
    }
}

/// That `metrics` of model `name` are ill-defined at this threshold (`why`),
/// what `rule` made of them, and the other choices: scikit-learn's warning
/// under its default `zero_division='warn'`, which is this one's default.
fn zero_division_warning(name: &str, metrics: &[&str], why: &str, rule: ZeroDivision) -> String {
    let (now, others, flags) = match rule {
        ZeroDivision::Zero => (
            "set to 0 (zero_division = 0, scikit-learn's default 'warn')",
            "nan (undefined) or 1",
            "nan|1",
        ),
        ZeroDivision::One => (
            "set to 1 (zero_division = 1)",
            "0 or nan (undefined)",
            "0|nan",
        ),
        ZeroDivision::Undefined => ("shown as — (zero_division = nan)", "0 or 1", "0|1"),
    };
    format!(
        "{name}: {} ill-defined at this threshold ({why}), {now}; choose {others} in \
         Conventions ▸ Zero division (CLI: --zero-division {flags}).",
        text_list(metrics),
    )
}

/// "a", "a and b", "a, b and c" with "is"/"are".
fn text_list(items: &[&str]) -> String {
    match items {
        [one] => format!("{one} is"),
        [rest @ .., last] => format!("{} and {last} are", rest.join(", ")),
        [] => String::new(),
    }
}

fn evaluate_multiclass(
    d: &MulticlassData,
    m: &MulticlassPredictions,
    conv: &Conventions,
    metrics: &[MetricId],
    warnings: &mut Vec<String>,
) -> ModelReport {
    let ranks = m.ranks(conv.class_ties);
    let predicted = m.predicted();
    let mut out = ModelReport {
        name: m.name.clone(),
        ..Default::default()
    };
    let view = ClassView {
        targets: &d.targets,
        model: m,
        ranks: &ranks,
        predicted: &predicted,
        scale: conv.class_scale,
        k: None,
    };
    for id in metrics {
        let Some(Compute::Classes(f)) =
            registry::info(&id.base, Kind::Multiclass).map(|m| m.compute)
        else {
            continue;
        };
        let k = id.k.map(|k| k as u32);
        let value = f(&ClassView { k, ..view }).unwrap_or_else(|warning| {
            warnings.push(warning);
            None
        });
        out.metrics.insert(id.to_string(), value);
    }
    out
}

fn evaluate_ratings(d: &RatingsData, name: &str, p: &[f64], metrics: &[MetricId]) -> ModelReport {
    let r = &d.rating;
    let mut out = ModelReport {
        name: name.to_string(),
        ..Default::default()
    };
    for id in metrics {
        let value = match registry::info(&id.base, Kind::Ratings).map(|m| m.compute) {
            Some(Compute::Ratings(f)) => f(d, r, p),
            Some(Compute::PerUser(f)) => {
                let per = f(&d.user, r, p);
                out.unit_ids = per
                    .iter()
                    .map(|&(u, _)| d.users.name(u).to_string())
                    .collect();
                let col: Vec<f64> = per.iter().map(|x| x.1).collect();
                let v = sum::mean(col.iter().copied());
                out.per_unit.insert(id.to_string(), col);
                v
            }
            _ => continue,
        };
        out.metrics.insert(id.to_string(), value);
    }
    out
}
