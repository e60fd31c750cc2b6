//! Several judgment sets over the same runs, and what `rankscope judgments`
//! and the Python package report of them: agreement, the runs' orderings
//! under two sets, bounds from unjudged documents, the pool to judge next,
//! merges. Each report is a typed document (its JSON: every number) with a
//! plain-text rendering; the numbers come from `core::judgments`.

use std::collections::BTreeMap;

use crate::core::evaluate::{evaluate_prepared, prepare_runs, Conventions, Report};
use crate::core::judgments::{self as core_j, Agreement, QueryAgreement, Statistic};
use crate::core::ranking::{Qrels, RankingData};
use crate::core::registry::{self, Average, Compute, Kind, MetricId};
use crate::parse::{Parsed, Workspace};

/// Runs with every judgment set loaded beside them, each set named; the
/// sets share the runs' query ids.
#[derive(Debug, Default)]
pub struct Sets {
    /// The runs (`qrels` empty between calls of [`Sets::under`]).
    pub data: RankingData,
    pub sets: Vec<(String, Qrels)>,
    /// What loading said (file: warning).
    pub warnings: Vec<String>,
}

/// `NAME=FILE` as a named set; a bare file is named by its file name.
pub fn set_name(arg: &str, exists: impl Fn(&str) -> bool) -> (String, String) {
    match arg.split_once('=') {
        Some((name, file)) if !name.is_empty() && !file.is_empty() && !exists(arg) => {
            (name.to_string(), file.to_string())
        }
        _ => {
            let name = std::path::Path::new(arg)
                .file_name()
                .map_or(arg.to_string(), |n| n.to_string_lossy().into_owned());
            (name, arg.to_string())
        }
    }
}

impl Sets {
    /// The sets (name, file, parsed judgments) and the runs (file, parsed),
    /// merged as the CLI merges files: the runs' queries and the sets'
    /// share one list of ids.
    pub fn build(
        sets: Vec<(String, String, Parsed)>,
        runs: Vec<(String, Parsed)>,
    ) -> Result<Sets, String> {
        let mut ws = Workspace::default();
        let mut out = Sets::default();
        for (name, file, parsed) in sets {
            if out.sets.iter().any(|s| s.0 == name) {
                return Err(format!(
                    "two judgment sets are named '{name}': name them NAME=FILE"
                ));
            }
            let summary = ws.add(&file, parsed).map_err(|e| e.to_string())?;
            let qrels = match (&ws.ranking, summary.format.as_str()) {
                (Some(d), "qrels") => d.qrels.clone(),
                _ => {
                    return Err(format!(
                        "{file}: expected judgments (qrels) for the set '{name}'"
                    ))
                }
            };
            out.warnings.extend(
                summary
                    .warnings
                    .into_iter()
                    .filter(|w| !w.starts_with("These judgments replace"))
                    .map(|w| format!("{file}: {w}")),
            );
            out.sets.push((name, qrels));
        }
        for (file, parsed) in runs {
            let summary = ws.add(&file, parsed).map_err(|e| e.to_string())?;
            if summary.format != "run" {
                return Err(format!("{file}: expected a run (TREC or ranx JSON)"));
            }
            out.warnings.extend(
                summary
                    .warnings
                    .into_iter()
                    .filter(|w| !w.ends_with(crate::parse::NO_QRELS))
                    .map(|w| format!("{file}: {w}")),
            );
        }
        out.data = ws.ranking.take().unwrap_or_default();
        out.data.qrels = Qrels::default();
        Ok(out)
    }

    /// The index of the set named `name`.
    pub fn index(&self, name: &str) -> Result<usize, String> {
        self.sets.iter().position(|s| s.0 == name).ok_or_else(|| {
            let names: Vec<&str> = self.sets.iter().map(|s| s.0.as_str()).collect();
            format!(
                "no judgment set is named '{name}' (the sets: {})",
                names.join(", ")
            )
        })
    }

    /// `f` of the runs judged by set `i`.
    pub fn under<T>(&mut self, i: usize, f: impl FnOnce(&RankingData) -> T) -> T {
        std::mem::swap(&mut self.data.qrels, &mut self.sets[i].1);
        let out = f(&self.data);
        std::mem::swap(&mut self.data.qrels, &mut self.sets[i].1);
        out
    }

    fn name(&self, i: usize) -> &str {
        &self.sets[i].0
    }
}

fn number(v: Option<f64>) -> String {
    v.map_or("—".into(), |v| format!("{v:.4}"))
}

// ---------------------------------------------------------------------------
// agreement

/// One query's agreement, by its id.
#[derive(Clone, Debug, serde::Serialize)]
pub struct QueryRow {
    pub query: String,
    #[serde(flatten)]
    pub agreement: QueryAgreement,
}

/// `rankscope judgments agree`: set `a` against set `b`.
#[derive(Clone, Debug, serde::Serialize)]
pub struct AgreementDoc {
    pub a: String,
    pub b: String,
    #[serde(flatten)]
    pub agreement: Agreement,
    pub per_query: Vec<QueryRow>,
}

/// How sets `a` and `b` agree on the documents both judge.
pub fn agreement(s: &Sets, a: usize, b: usize, relevance_level: i32) -> AgreementDoc {
    let mut g = core_j::agree(
        &s.sets[a].1,
        &s.sets[b].1,
        s.data.queries.len(),
        relevance_level,
    );
    let mut per_query: Vec<QueryRow> = std::mem::take(&mut g.per_query)
        .into_iter()
        .map(|q| QueryRow {
            query: s.data.queries.name(q.query).to_string(),
            agreement: q,
        })
        .collect();
    per_query.sort_by(|x, y| x.query.as_bytes().cmp(y.query.as_bytes()));
    AgreementDoc {
        a: s.name(a).to_string(),
        b: s.name(b).to_string(),
        agreement: g,
        per_query,
    }
}

impl AgreementDoc {
    pub fn to_text(&self, per_query: bool) -> String {
        let g = &self.agreement;
        let pct = |v: Option<f64>| v.map_or("—".into(), |v| format!("{:.1}%", v * 100.0));
        let mut t = format!(
            "judgments {} against {} (relevant: grade ≥ {})\n\
             documents both judge: {}; only {}: {} ({} of its judgments); only {}: {} ({})\n\
             same grade: {}\n\
             Cohen's kappa (binary labels): {}\n\
             weighted kappa, linear: {}  quadratic: {}\n\
             Krippendorff's alpha, ordinal: {}  interval: {}\n",
            self.a,
            self.b,
            g.relevance_level,
            g.both,
            self.a,
            g.only_a,
            pct(g.a_unjudged_by_b),
            self.b,
            g.only_b,
            pct(g.b_unjudged_by_a),
            pct(g.same_grade),
            number(g.kappa),
            number(g.kappa_linear),
            number(g.kappa_quadratic),
            number(g.alpha_ordinal),
            number(g.alpha_interval),
        );
        if !g.grades.is_empty() {
            t.push_str(&format!("grades ({} rows, {} columns):\n", self.a, self.b));
            let w = g
                .confusion
                .iter()
                .flatten()
                .map(|c| c.to_string().len())
                .chain(g.grades.iter().map(|x| x.to_string().len()))
                .max()
                .unwrap_or(1)
                .max(3);
            t.push_str(&format!("{:>w$}", ""));
            for x in &g.grades {
                t.push_str(&format!(" {x:>w$}"));
            }
            t.push('\n');
            for (x, row) in g.grades.iter().zip(&g.confusion) {
                t.push_str(&format!("{x:>w$}"));
                for c in row {
                    t.push_str(&format!(" {c:>w$}"));
                }
                t.push('\n');
            }
        }
        if per_query {
            t.push_str("query\tboth\tonly_a\tonly_b\tsame_grade\tsame_label\tkappa\n");
            for q in &self.per_query {
                let a = &q.agreement;
                t.push_str(&format!(
                    "{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
                    q.query,
                    a.both,
                    a.only_a,
                    a.only_b,
                    a.same_grade,
                    a.same_label,
                    number(a.kappa)
                ));
            }
        }
        t
    }
}

// ---------------------------------------------------------------------------
// the runs' orderings under two sets

/// One run's mean and place under each set.
#[derive(Clone, Debug, serde::Serialize)]
pub struct RunRow {
    pub name: String,
    pub mean_a: f64,
    pub mean_b: f64,
    /// 1 = best.
    pub rank_a: usize,
    pub rank_b: usize,
}

/// A pair of runs ordered one way under A and the other under B.
#[derive(Clone, Debug, serde::Serialize)]
pub struct FlipRow {
    pub ahead_a: String,
    pub ahead_b: String,
    pub diff_a: f64,
    pub diff_b: f64,
    pub p_a: Option<f64>,
    pub p_b: Option<f64>,
    pub significant_a: bool,
    pub significant_b: bool,
}

/// `rankscope judgments rankings`.
#[derive(Clone, Debug, serde::Serialize)]
pub struct RankingsDoc {
    pub metric: String,
    pub a: String,
    pub b: String,
    /// Queries in the union of those either set evaluates.
    pub queries: usize,
    pub runs: Vec<RunRow>,
    pub kendall_tau_b: Statistic,
    /// τ_AP of B's ordering with A's the reference.
    pub tau_ap: Statistic,
    pub spearman: Statistic,
    pub rbo: Statistic,
    pub rbo_variant: &'static str,
    pub persistence: f64,
    pub resamples: usize,
    pub seed: u64,
    pub interval: &'static str,
    pub test: &'static str,
    pub alpha: f64,
    pub flips: Vec<FlipRow>,
}

/// The metric as one per-query column averaged by its mean, or why not.
fn mean_metric(metric: &str) -> Result<MetricId, String> {
    let id = MetricId::parse(metric, Kind::Ranking)?;
    match registry::info(&id.base, Kind::Ranking) {
        Some(info) if matches!(info.compute, Compute::Query(_)) && info.average == Average::Mean => Ok(id),
        _ => Err(format!(
            "{metric}: the runs are ordered by a metric that is a mean of one value per query (ndcg@10, map, p@10, ...)"
        )),
    }
}

/// Every run's per-query values of `id` under `data`'s judgments: (query id, value).
fn per_query(data: &RankingData, conv: &Conventions, id: &MetricId) -> Vec<Vec<(String, f64)>> {
    let report: Report = evaluate_prepared(
        data,
        &prepare_runs(data, conv),
        conv,
        std::slice::from_ref(id),
    );
    let key = id.to_string();
    report
        .models
        .iter()
        .map(|m| {
            let col = m.per_unit.get(&key).cloned().unwrap_or_default();
            m.unit_ids.iter().cloned().zip(col).collect()
        })
        .collect()
}

/// The runs ordered by `metric` under sets `a` and `b`.
pub fn rankings(
    s: &mut Sets,
    a: usize,
    b: usize,
    metric: &str,
    conv: &Conventions,
    options: &core_j::SurvivalOptions,
) -> Result<RankingsDoc, String> {
    let id = mean_metric(metric)?;
    if s.data.runs.len() < 2 {
        return Err("the orderings need two runs or more".into());
    }
    let va = s.under(a, |d| per_query(d, conv, &id));
    let vb = s.under(b, |d| per_query(d, conv, &id));
    let mut union: BTreeMap<&str, usize> = BTreeMap::new();
    for (q, _) in va.iter().chain(&vb).flatten() {
        union.insert(q.as_str(), 0);
    }
    for (i, slot) in union.values_mut().enumerate() {
        *slot = i;
    }
    let dense = |v: &[Vec<(String, f64)>]| -> Vec<Vec<f64>> {
        v.iter()
            .map(|run| {
                let mut row = vec![f64::NAN; union.len()];
                for (q, x) in run {
                    row[union[q.as_str()]] = *x;
                }
                row
            })
            .collect()
    };
    let (ma, mb) = (dense(&va), dense(&vb));
    let sv = core_j::survival(&ma, &mb, options);
    let names: Vec<&str> = s.data.runs.iter().map(|r| r.name.as_str()).collect();
    let place = |order: &[usize]| {
        let mut p = vec![0; order.len()];
        for (rank, &r) in order.iter().enumerate() {
            p[r] = rank + 1;
        }
        p
    };
    let (pa, pb) = (place(&sv.order_a), place(&sv.order_b));
    let runs = sv
        .order_a
        .iter()
        .map(|&r| RunRow {
            name: names[r].to_string(),
            mean_a: sv.means_a[r],
            mean_b: sv.means_b[r],
            rank_a: pa[r],
            rank_b: pb[r],
        })
        .collect();
    let flips = sv
        .flips
        .iter()
        .map(|f| FlipRow {
            ahead_a: names[f.ahead_a].to_string(),
            ahead_b: names[f.ahead_b].to_string(),
            diff_a: f.diff_a,
            diff_b: f.diff_b,
            p_a: f.p_a,
            p_b: f.p_b,
            significant_a: f.significant_a,
            significant_b: f.significant_b,
        })
        .collect();
    Ok(RankingsDoc {
        metric: id.to_string(),
        a: s.name(a).to_string(),
        b: s.name(b).to_string(),
        queries: union.len(),
        runs,
        kendall_tau_b: sv.kendall_tau_b,
        tau_ap: sv.tau_ap,
        spearman: sv.spearman,
        rbo: sv.rbo,
        rbo_variant: "RBO_EXT (extrapolated; Webber, Moffat & Zobel 2010, eq. 32)",
        persistence: options.persistence,
        resamples: options.resamples,
        seed: options.seed,
        interval: "paired bootstrap over queries, percentile 95%",
        test: "paired t-test, two-sided, uncorrected",
        alpha: options.alpha,
        flips,
    })
}

impl RankingsDoc {
    pub fn to_text(&self) -> String {
        let stat = |name: &str, st: &Statistic| {
            let interval = match (st.low, st.high) {
                (Some(l), Some(h)) => format!("  [{l:.4}, {h:.4}]"),
                _ => String::new(),
            };
            format!("{name:<22} {}{interval}\n", number(st.value))
        };
        let mut t = format!(
            "{} of {} runs under {} (A) and {} (B), {} queries\n",
            self.metric,
            self.runs.len(),
            self.a,
            self.b,
            self.queries
        );
        t.push_str("rank_a\trank_b\tmean_a\tmean_b\trun\n");
        for r in &self.runs {
            t.push_str(&format!(
                "{}\t{}\t{:.4}\t{:.4}\t{}\n",
                r.rank_a, r.rank_b, r.mean_a, r.mean_b, r.name
            ));
        }
        t.push_str(&format!(
            "correlations of the orderings ({}; {} resamples, seed {}):\n",
            self.interval, self.resamples, self.seed
        ));
        t.push_str(&stat("Kendall's tau_b", &self.kendall_tau_b));
        t.push_str(&stat("tau_AP (A reference)", &self.tau_ap));
        t.push_str(&stat("Spearman's rho", &self.spearman));
        t.push_str(&stat(&format!("RBO_EXT p={}", self.persistence), &self.rbo));
        t.push_str(&format!(
            "{} pairs flip ({}, significant at p < {}):\n",
            self.flips.len(),
            self.test,
            self.alpha
        ));
        for f in &self.flips {
            let mark = |sig: bool| if sig { " *" } else { "" };
            t.push_str(&format!(
                "  {} > {} under A ({:+.4}, p {}{}), < under B ({:+.4}, p {}{})\n",
                f.ahead_a,
                f.ahead_b,
                f.diff_a,
                number(f.p_a),
                mark(f.significant_a),
                f.diff_b,
                number(f.p_b),
                mark(f.significant_b)
            ));
        }
        t
    }
}

// ---------------------------------------------------------------------------
// bounds from unjudged documents

/// A metric's value with the values its unjudged documents allow.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Bound {
    /// The value under the conventions in force (the table's).
    pub value: Option<f64>,
    /// Every unjudged retrieved document judged not relevant (grade 0),
    /// and judged relevant at the chosen grade.
    pub unjudged_nonrelevant: Option<f64>,
    pub unjudged_relevant: Option<f64>,
    /// The smaller and the larger of those two.
    pub low: Option<f64>,
    pub high: Option<f64>,
}

/// One run's bounds and judged shares.
#[derive(Clone, Debug, serde::Serialize)]
pub struct RunBounds {
    pub name: String,
    /// Metric column → its bound.
    pub metrics: BTreeMap<String, Bound>,
    /// Judged@k at each cutoff, the mean over the queries.
    pub judged: BTreeMap<String, f64>,
    /// Query → Judged@k at each cutoff (in `cutoffs`' order), when asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judged_per_query: Option<BTreeMap<String, Vec<f64>>>,
}

/// `rankscope judgments bounds`.
#[derive(Clone, Debug, serde::Serialize)]
pub struct BoundsDoc {
    pub judgments: String,
    pub grade: i32,
    pub columns: Vec<String>,
    pub cutoffs: Vec<usize>,
    pub runs: Vec<RunBounds>,
    pub baseline: Option<String>,
    /// A run's bound width above this share of its difference from the
    /// baseline is warned about.
    pub share: f64,
    pub warnings: Vec<String>,
}

/// The values of `metrics` per run under set `set` with their bounds:
/// unjudged documents as not relevant and as relevant at `grade`; Judged@k
/// at `cutoffs`; a warning where a run's bound width exceeds `share` of its
/// difference from `baseline` (a run's index).
#[allow(clippy::too_many_arguments)]
pub fn bounds(
    s: &mut Sets,
    set: usize,
    metrics: &[MetricId],
    conv: &Conventions,
    grade: i32,
    cutoffs: &[usize],
    baseline: Option<usize>,
    share: f64,
    per_query: bool,
) -> BoundsDoc {
    let judged_ids: Vec<MetricId> = cutoffs
        .iter()
        .map(|&k| MetricId::new(registry::id::JUDGED, Some(k)))
        .collect();
    let (value, low, high, judged) = s.under(set, |d| {
        let prepared = prepare_runs(d, conv);
        // unjudged documents judged 0 change only the metrics that tell them
        // apart (registry::TELLS_UNJUDGED; condensed lists: every metric)
        let keep = conv.unjudged == core_j::Unjudged::Keep;
        let low_metrics: Vec<MetricId> = metrics
            .iter()
            .filter(|m| !keep || registry::TELLS_UNJUDGED.contains(&m.base.as_str()))
            .cloned()
            .collect();
        // the table's values and the two completions' (natively on threads)
        let evaluated = crate::core::par_map(&[None, Some(0), Some(grade)], |g| match g {
            None => evaluate_prepared(d, &prepared, conv, metrics),
            Some(g) => {
                let completed: Vec<_> = prepared.iter().map(|p| core_j::complete(p, *g)).collect();
                let ids = if *g == 0 { &low_metrics[..] } else { metrics };
                evaluate_prepared(d, &completed, conv, ids)
            }
        });
        let [value, low, high]: [Report; 3] = match evaluated.try_into() {
            Ok(three) => three,
            Err(_) => unreachable!("par_map gives one result per item"),
        };
        let judged = evaluate_prepared(
            d,
            &prepared,
            &Conventions {
                unjudged: Default::default(),
                ..conv.clone()
            },
            &judged_ids,
        );
        (value, low, high, judged)
    });
    let mut runs = Vec::new();
    for (i, m) in value.models.iter().enumerate() {
        let mut out = BTreeMap::new();
        for c in &value.columns {
            let get = |r: &Report| {
                r.models
                    .get(i)
                    .and_then(|m| m.metrics.get(c).copied().flatten())
            };
            let v = m.metrics.get(c).copied().flatten();
            let l = if low.columns.contains(c) {
                get(&low)
            } else {
                v
            };
            let h = get(&high);
            let (lo, hi) = match (l, h) {
                (Some(l), Some(h)) => (Some(l.min(h)), Some(l.max(h))),
                _ => (None, None),
            };
            out.insert(
                c.clone(),
                Bound {
                    value: v,
                    unjudged_nonrelevant: l,
                    unjudged_relevant: h,
                    low: lo,
                    high: hi,
                },
            );
        }
        let jm = &judged.models[i];
        let judged_means = judged
            .columns
            .iter()
            .filter_map(|c| Some((c.clone(), jm.metrics.get(c).copied().flatten()?)))
            .collect();
        let judged_per_query = per_query.then(|| {
            jm.unit_ids
                .iter()
                .enumerate()
                .map(|(q, id)| {
                    let row = judged
                        .columns
                        .iter()
                        .map(|c| {
                            jm.per_unit
                                .get(c)
                                .and_then(|v| v.get(q).copied())
                                .unwrap_or(f64::NAN)
                        })
                        .collect();
                    (id.clone(), row)
                })
                .collect()
        });
        runs.push(RunBounds {
            name: m.name.clone(),
            metrics: out,
            judged: judged_means,
            judged_per_query,
        });
    }
    let mut warnings = Vec::new();
    if let Some(b) = baseline.filter(|&b| b < runs.len()) {
        for (i, r) in runs.iter().enumerate().filter(|(i, _)| *i != b) {
            for c in &value.columns {
                let (Some(x), Some(base)) = (&r.metrics.get(c), &runs[b].metrics.get(c)) else {
                    continue;
                };
                let (Some(v), Some(bv), Some(lo), Some(hi)) = (x.value, base.value, x.low, x.high)
                else {
                    continue;
                };
                let (width, diff) = (hi - lo, (v - bv).abs());
                if width > share * diff && width > 0.0 {
                    warnings.push(format!(
                        "{}: {c} is {v:.4} in [{lo:.4}, {hi:.4}]: its bounds' width {width:.4} exceeds {:.0}% of its difference {diff:.4} from {}, so its unjudged documents could change the comparison",
                        runs[i].name,
                        share * 100.0,
                        runs[b].name
                    ));
                }
            }
        }
    }
    BoundsDoc {
        judgments: s.name(set).to_string(),
        grade,
        columns: value.columns.clone(),
        cutoffs: cutoffs.to_vec(),
        runs,
        baseline: baseline
            .and_then(|b| s.data.runs.get(b))
            .map(|r| r.name.clone()),
        share,
        warnings,
    }
}

impl BoundsDoc {
    pub fn to_text(&self) -> String {
        let mut t = format!(
            "values under {} with [unjudged not relevant, unjudged relevant at grade {}]\n",
            self.judgments, self.grade
        );
        for r in &self.runs {
            t.push_str(&format!("{}\n", r.name));
            let judged: Vec<String> = self
                .cutoffs
                .iter()
                .map(|k| {
                    let key = format!("judged@{k}");
                    format!("{key} {}", number(r.judged.get(&key).copied()))
                })
                .collect();
            if !judged.is_empty() {
                t.push_str(&format!("  {}\n", judged.join("  ")));
            }
            for c in &self.columns {
                let Some(b) = r.metrics.get(c) else { continue };
                let range = if b.low == b.high {
                    String::new()
                } else {
                    format!(" [{}, {}]", number(b.low), number(b.high))
                };
                t.push_str(&format!("  {c:<24} {}{range}\n", number(b.value)));
            }
        }
        t
    }
}

// ---------------------------------------------------------------------------
// the pool to judge next

/// One document to judge.
#[derive(Clone, Debug, serde::Serialize)]
pub struct PoolRow {
    pub query: String,
    pub doc: String,
    pub priority: f64,
    pub runs: usize,
    pub best_rank: usize,
}

/// `rankscope judgments pool`.
#[derive(Clone, Debug, serde::Serialize)]
pub struct PoolDoc {
    pub judgments: Option<String>,
    pub depth: usize,
    pub baseline: Option<String>,
    pub rule: &'static str,
    pub documents: Vec<PoolRow>,
}

/// The rule [`core_j::pool`] ranks documents by, in a sentence.
pub const POOL_RULE: &str = "priority = Σ over the compared pairs of runs (each against the baseline, or every pair) of |w_r − w_s|, w_r = 1/log2(rank + 1)/queries_r where run r ranks the document within the depth, else 0: the most judging it can narrow the bounds of the pairs' DCG@depth differences; judged greedily in that order";

/// The depth-`depth` pool of the runs, unjudged by set `set` (none: every
/// document is unjudged), in the order to judge them.
pub fn pool(s: &mut Sets, set: Option<usize>, depth: usize, baseline: Option<usize>) -> PoolDoc {
    let entries = match set {
        Some(i) => s.under(i, |d| core_j::pool(d, depth, baseline)),
        None => core_j::pool(&s.data, depth, baseline),
    };
    PoolDoc {
        judgments: set.map(|i| s.name(i).to_string()),
        depth,
        baseline: baseline
            .and_then(|b| s.data.runs.get(b))
            .map(|r| r.name.clone()),
        rule: POOL_RULE,
        documents: entries
            .into_iter()
            .map(|e| PoolRow {
                query: s.data.queries.name(e.query).to_string(),
                doc: e.doc,
                priority: e.priority,
                runs: e.runs,
                best_rank: e.best_rank,
            })
            .collect(),
    }
}

impl PoolDoc {
    /// The pool as a TREC run file (`QID Q0 DOCNO RANK PRIORITY rankscope-pool`):
    /// lines in the order to judge (priority descending), the rank within its query.
    pub fn to_pool_file(&self) -> String {
        let mut rank: BTreeMap<&str, usize> = BTreeMap::new();
        let mut t = String::new();
        for d in &self.documents {
            let r = rank.entry(d.query.as_str()).or_insert(0);
            *r += 1;
            t.push_str(&format!(
                "{} Q0 {} {} {:.9} rankscope-pool\n",
                d.query, d.doc, r, d.priority
            ));
        }
        t
    }
}

// ---------------------------------------------------------------------------
// merging new judgments

/// A conflict, by ids.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ConflictRow {
    pub query: String,
    pub doc: String,
    pub kept: i32,
    pub other: i32,
}

/// `rankscope judgments merge`: set `new` into set `base`.
#[derive(Clone, Debug, serde::Serialize)]
pub struct MergeDoc {
    pub base: String,
    pub new: String,
    /// Whose grade a conflict keeps.
    pub kept: String,
    pub judgments: usize,
    /// Judgments of `new` on documents `base` does not judge.
    pub added: usize,
    pub conflicts: Vec<ConflictRow>,
    /// The merged judgments as a TREC qrels file.
    #[serde(skip)]
    pub qrels: String,
}

/// Set `new` merged into set `base`: every judgment of each, one per
/// document; a conflict keeps `base`'s grade (`new`'s with `prefer_new`)
/// and is listed.
pub fn merge(s: &Sets, base: usize, new: usize, prefer_new: bool) -> MergeDoc {
    let (all, conflicts) = core_j::merge(
        &s.sets[base].1,
        &s.sets[new].1,
        s.data.queries.len(),
        prefer_new,
    );
    let q = |id: u32| s.data.queries.name(id);
    let mut lines: Vec<(&str, &str, i32)> = all
        .iter()
        .map(|(id, d, g)| (q(*id), d.as_str(), *g))
        .collect();
    lines.sort_by(|x, y| (x.0.as_bytes(), x.1.as_bytes()).cmp(&(y.0.as_bytes(), y.1.as_bytes())));
    let qrels: String = lines
        .iter()
        .map(|(q, d, g)| format!("{q} 0 {d} {g}\n"))
        .collect();
    let mut conflicts: Vec<ConflictRow> = conflicts
        .into_iter()
        .map(|c| ConflictRow {
            query: q(c.query).to_string(),
            doc: c.doc,
            kept: c.kept,
            other: c.other,
        })
        .collect();
    conflicts.sort_by(|x, y| {
        (x.query.as_bytes(), x.doc.as_bytes()).cmp(&(y.query.as_bytes(), y.doc.as_bytes()))
    });
    MergeDoc {
        base: s.name(base).to_string(),
        new: s.name(new).to_string(),
        kept: s.name(if prefer_new { new } else { base }).to_string(),
        judgments: all.len(),
        added: all.len() - s.sets[base].1.num_judgments(),
        conflicts,
        qrels,
    }
}

impl MergeDoc {
    pub fn to_text(&self) -> String {
        let mut t = format!(
            "{} merged into {}: {} judgments, {} added, {} conflicts (the grade of {} kept)\n",
            self.new,
            self.base,
            self.judgments,
            self.added,
            self.conflicts.len(),
            self.kept
        );
        for c in &self.conflicts {
            t.push_str(&format!(
                "  {} {}: kept {}, set aside {}\n",
                c.query, c.doc, c.kept, c.other
            ));
        }
        t
    }
}
