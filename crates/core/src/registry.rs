//! The metric catalogue: one row per metric, iterated by the CLI, the tables,
//! the explanations and the tests, so a metric is never listed by hand twice.

use super::binary::{BinaryCurve, Confusion, ZeroDivision};
use super::conventions::Key;
use super::multiclass::{self, MulticlassPredictions, ScoreScale};
use super::ranking::QueryView;
use super::ranking_metrics::agreement;
use super::ranking_metrics::{
    ndcg_of, Ctx, CurveMetric, Gain, IdealDepth, Prefix, TrecEvalVersion,
};
use super::ratings::{self, RatingsData};
use super::sum;

pub use super::base::Kind;

/// One catalogue row: what the metric is (id, kind, cutoff rule, title,
/// formula as text and as TeX, conventions in words and by key, reference,
/// direction, range, how it averages) and how it is computed (its hook into
/// the kernels, [`Compute`]; for the ranking metrics of one scan,
/// [`MetricInfo::scan`]). `evaluate`, the explanations, the tables, the
/// CLI, the lessons and the docs read it; nothing else names a metric.
#[derive(Clone, Copy, Debug)]
pub struct MetricInfo {
    /// Canonical id without the cutoff (`ndcg`, `map`, `roc_auc`).
    pub base: &'static str,
    pub kind: Kind,
    /// Whether the id takes `@k`; `Optional` ids exist with and without.
    pub cutoff: Cutoff,
    pub title: &'static str,
    pub formula: &'static str,
    /// The conventions the value depends on, in plain words.
    pub conventions: &'static str,
    pub reference: &'static str,
    pub higher_is_better: bool,
    /// Values lie in [0, 1].
    pub unit_interval: bool,
    /// Averaged over queries / rows (false: a count, or a pooled ratio).
    pub is_mean: bool,
    /// The formula as TeX (the subset `rankscope::math` typesets; empty: the
    /// plain-text formula serves).
    pub tex: &'static str,
    /// The link keys of the conventions that can change its value
    /// (`conventions::TABLE`; a test evaluates every non-default value and
    /// fails on a change of a metric that does not list it).
    pub depends: &'static [Key],
    /// One of trec_eval's less common measures (listed apart, computed when asked).
    pub trec_extra: bool,
    /// Its values are counts (printed without decimals).
    pub count: bool,
    pub compute: Compute,
    /// A ranking metric's value at cutoff `k` from one scan's prefix sums
    /// ([`QueryView::scan_cutoffs`]: every cutoff of every such metric in
    /// one pass), the same value as its [`Compute::Query`] kernel's.
    pub scan: Option<ScanFn>,
    pub average: Average,
    /// How it explains one value with its own terms ([`super::explain`]).
    pub explain: Explain,
    /// A cutoff its table always shows, whatever the cutoffs chosen (top-1
    /// accuracy, scikit-learn's accuracy_score, leads a multi-class table).
    pub always_at: Option<usize>,
    /// Its metric@p curve ([`super::curves`]), for a ranking metric that has
    /// one: the curves' list, names and labels are these rows'.
    pub curve: Option<CurveMetric>,
}

/// A metric's explanation with its own terms, beyond the mean of its
/// per-unit values (which every mean has).
#[derive(Clone, Copy, Debug)]
pub enum Explain {
    None,
    /// One query's ranked list and its terms.
    Query(QueryTerms),
    /// The curve's own terms.
    Curve(CurveTerms),
    /// The confusion matrix's cells: a ratio of them.
    Threshold(Cells),
    /// Weighted or macro F1 over the classes.
    F1Average {
        weighted: bool,
    },
    /// Log loss or the Brier score per class ([`Compute::Loss`]).
    Loss,
    /// The rows grouped by their target's rank: each rank's value per row
    /// (in words too), the mean over rows at cutoff k, the cutoff when none is given.
    TargetRanks {
        per_row: fn(u32) -> f64,
        per_row_text: &'static str,
        value: fn(&[Option<u32>], Option<u32>) -> f64,
        default_k: Option<u32>,
    },
    /// −ln p(target) per true class (then exp for perplexity).
    CrossEntropy {
        perplexity: bool,
    },
    /// |p − r| or (p − r)² per user, over n (then √ for RMSE).
    RatingErrors {
        squared: bool,
        root: bool,
    },
}

/// What one query's explanation shows (named, not pointed to, so that a
/// build that explains nothing links no explanation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueryTerms {
    /// gain · discount per rank, DCG, the ideal list and IDCG; the gain in
    /// force, or always 2^rel − 1; normalised or not.
    Gains { exponential: bool, normalised: bool },
    /// P@i at each relevant rank, over the denominator in force.
    Ap,
    /// The first relevant rank.
    Rr,
    /// Whether a relevant document is in the top k.
    Hit,
    /// Relevant documents in the top k, over k.
    Precision,
    /// Relevant documents in the top k, over |R|.
    Recall,
}

/// A curve's explanation: the positive–negative pairs ordered (ROC AUC) or
/// the recall steps (average precision).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CurveTerms {
    PairsOrdered,
    RecallSteps,
}

/// A threshold metric's ratio of the confusion matrix's cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cells {
    Accuracy,
    Precision,
    Recall,
    F1,
    Mcc,
}

/// A ranking kernel's cutoff and conventions.
#[derive(Clone, Copy, Debug)]
pub struct At {
    pub k: Option<usize>,
    pub ctx: Ctx,
    pub trec_eval: TrecEvalVersion,
}

/// A ranking value from one scan's prefix at a cutoff: (prefix, query, k, conventions).
pub type ScanFn = fn(&Prefix, &QueryView, Option<usize>, &Ctx) -> f64;

/// Per-group values of (group column, ratings, predictions): (group, value) pairs.
pub type PerGroupFn = fn(&[u32], &[f64], &[f64]) -> Vec<(u32, f64)>;

/// A metric's hook into its kernel.
#[derive(Clone, Copy, Debug)]
pub enum Compute {
    /// A ranking value per query.
    Query(fn(&QueryView, &At) -> f64),
    /// Several ranking columns per query (their names, the query's values).
    Columns(&'static [&'static str], fn(&QueryView, &At) -> Vec<f64>),
    /// Score–grade agreement from the run's own scores: FCP pooled over
    /// the queries, or Spearman's ρ averaged over those where it is defined.
    Agreement { pooled: bool },
    /// A binary value of the whole curve (threshold-free).
    Curve(fn(&BinaryCurve) -> Option<f64>),
    /// Log loss or the Brier score of the scores as probabilities.
    Loss { brier: bool },
    /// A binary value of the scores read as probabilities (`true`: they are
    /// logits, each through the sigmoid first).
    Calibrated(fn(&BinaryCurve, bool) -> Option<f64>),
    /// A binary value at the threshold; `true`: `zero_division` applies to it.
    Threshold(fn(&Confusion) -> Option<f64>, bool),
    /// A multi-class value of the targets' ranks (`Err`: a warning, no value).
    Classes(fn(&ClassView) -> Result<Option<f64>, String>),
    /// A rating value of (data, ratings, predictions).
    Ratings(fn(&RatingsData, &[f64], &[f64]) -> Option<f64>),
    /// A rating value per user (user column, ratings, predictions), averaged.
    PerUser(PerGroupFn),
}

/// How a ranking metric's per-query values make its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Average {
    Mean,
    /// Summed (the counts).
    Sum,
    /// Geometric mean, each value at least [`super::evaluate::MIN_GEO_MEAN`].
    Geometric,
    /// The mean, or with `f1_aggregation = from_means` the F1 of the mean P and R.
    F1,
}

/// One multi-class model as its metrics read it.
pub struct ClassView<'a> {
    pub targets: &'a [u32],
    pub model: &'a MulticlassPredictions,
    /// Each row's target rank under the tie rule (`None`: not in a top-k list).
    pub ranks: &'a [Option<u32>],
    /// Each row's argmax class.
    pub predicted: &'a [u32],
    pub scale: ScoreScale,
    pub k: Option<u32>,
}

impl ClassView<'_> {
    /// Cross-entropy of a probability or logit matrix (`None` for top-k lists).
    fn cross_entropy(&self) -> Option<f64> {
        (!self.model.is_list()).then(|| multiclass::cross_entropy(&self.model.rows, self.scale))
    }
}

/// Acc@k, which a top-k list answers only for k up to its length.
fn top_k_accuracy(v: &ClassView) -> Result<Option<f64>, String> {
    let (m, k) = (v.model, v.k.unwrap_or(1));
    if m.is_list() && k as usize > m.list_len {
        return Err(format!(
            "{}: acc@{k} needs a top-{k} list; the file has top-{} lists.",
            m.name, m.list_len
        ));
    }
    Ok(Some(multiclass::accuracy_at(v.ranks, k)))
}

/// AP@k from a prefix: its precision sum over the query's denominator.
fn ap_of_prefix(f: &Prefix, q: &QueryView, k: Option<usize>, ctx: &Ctx) -> f64 {
    match q.ap_denominator(k, ctx) {
        0 => 0.0,
        d => f.ap_sum / d as f64,
    }
}

/// The reciprocal rank of a prefix's first relevant document (0: none).
fn rr_of_prefix(first_relevant: usize) -> f64 {
    match first_relevant {
        0 => 0.0,
        r => 1.0 / r as f64,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cutoff {
    None,
    Required,
    Optional,
}

/// Lift at the top share q of the rows: one row per share, its text shared.
const fn lift(
    base: &'static str,
    title: &'static str,
    tex: &'static str,
    f: fn(&BinaryCurve) -> Option<f64>,
) -> MetricInfo {
    m(
        base,
        Binary,
        NoK,
        title,
        "(positives in the top q of the rows by score / positives) / q",
        "the rows of a tie group at the cut counted pro rata",
        "cumulative gains and lift (Berry & Linoff)",
        true,
        false,
        false,
    )
    .typeset(tex)
    .compute(Compute::Curve(f))
}

#[allow(clippy::too_many_arguments)]
const fn m(
    base: &'static str,
    kind: Kind,
    cutoff: Cutoff,
    title: &'static str,
    formula: &'static str,
    conventions: &'static str,
    reference: &'static str,
    higher_is_better: bool,
    unit_interval: bool,
    is_mean: bool,
) -> MetricInfo {
    MetricInfo {
        base,
        kind,
        cutoff,
        title,
        formula,
        conventions,
        reference,
        higher_is_better,
        unit_interval,
        is_mean,
        tex: "",
        depends: &[],
        trec_extra: false,
        count: false,
        compute: Compute::Curve(|_| None),
        scan: None,
        average: Average::Mean,
        explain: Explain::None,
        always_at: None,
        curve: None,
    }
}

/// The rows' other parts, written after `m(...)`.
impl MetricInfo {
    const fn curve(mut self, curve: CurveMetric) -> Self {
        self.curve = Some(curve);
        self
    }
    const fn typeset(mut self, tex: &'static str) -> Self {
        self.tex = tex;
        self
    }
    const fn depends(mut self, keys: &'static [Key]) -> Self {
        self.depends = keys;
        self
    }
    const fn trec_extra(mut self) -> Self {
        self.trec_extra = true;
        self
    }
    const fn count(mut self) -> Self {
        self.count = true;
        self
    }
    const fn compute(mut self, compute: Compute) -> Self {
        self.compute = compute;
        self
    }
    const fn query(self, f: fn(&QueryView, &At) -> f64) -> Self {
        self.compute(Compute::Query(f))
    }
    const fn scan(mut self, f: ScanFn) -> Self {
        self.scan = Some(f);
        self
    }
    const fn average(mut self, average: Average) -> Self {
        self.average = average;
        self
    }
    const fn explain(mut self, explain: Explain) -> Self {
        self.explain = explain;
        self
    }
    const fn always_at(mut self, k: usize) -> Self {
        self.always_at = Some(k);
        self
    }
}

/// The ids other modules name (a lesson's formula, the playground's rows,
/// trec_eval's output, the diagnostics' numbers), each written once: the
/// rows below use them, so a renamed id is renamed everywhere or fails to
/// compile. Every other id appears only in its row.
pub mod id {
    pub const NDCG: &str = "ndcg";
    pub const NDCG_BURGES: &str = "ndcg_burges";
    pub const DCG: &str = "dcg";
    pub const IDCG: &str = "idcg";
    pub const MAP: &str = "map";
    pub const PRECISION: &str = "precision";
    pub const RECALL: &str = "recall";
    pub const HIT_RATE: &str = "hit_rate";
    pub const MRR: &str = "mrr";
    pub const ARHR: &str = "arhr";
    pub const NUM_Q: &str = "num_q";
    pub const NUM_REL: &str = "num_rel";
    pub const JUDGED: &str = "judged";
    pub const ROC_AUC: &str = "roc_auc";
    pub const AVERAGE_PRECISION: &str = "average_precision";
    pub const LOG_LOSS: &str = "log_loss";
    pub const BRIER: &str = "brier";
    pub const MCC: &str = "mcc";
    pub const F1_WEIGHTED: &str = "f1_weighted";
    pub const F1_MACRO: &str = "f1_macro";
    pub const F1: &str = "f1";
    pub const ECE: &str = "ece";
    pub const KS: &str = "ks";
    pub const ACC: &str = "acc";
    pub const MAE: &str = "mae";
    pub const MSE: &str = "mse";
}

use Cutoff::{None as NoK, Optional as OptK, Required as K};
use Kind::*;

pub static METRICS: &[MetricInfo] = &[
    // ranking
    m(id::NDCG, Ranking, OptK, "nDCG", "nDCG@k = DCG@k / IDCG@k,  DCG@k = Σ_{i≤k} gain(rel_i) / log2(i+1)", "gain (rel or 2^rel−1), discount, tie order; IDCG from all judged documents of the query, cut at k; 0 when the query has no relevant document", "Järvelin & Kekäläinen 2002; trec_eval ndcg_cut", true, true, true)
        .typeset(r"\text{nDCG@}k = \frac{\text{DCG@}k}{\text{IDCG@}k}, \quad \text{DCG@}k = \sum_{i=1}^{k} \frac{gain(rel_i)}{\log_2(i+1)}")
        .depends(&[Key::Ties, Key::Gain, Key::Discount, Key::QuerySet, Key::IdealDepth])
        .query(|q, a| q.ndcg_at(a.k, a.ctx.gain, &a.ctx))
        .scan(|f, q, k, ctx| match ctx.ideal_depth {
            IdealDepth::K => ndcg_of(f.dcg, f.idcg),
            IdealDepth::ListLength => ndcg_of(f.dcg, q.idcg_at(k, ctx.gain, ctx)),
        })
        .curve(CurveMetric::Ndcg)
        .explain(Explain::Query(QueryTerms::Gains { exponential: false, normalised: true })),
    m(id::NDCG_BURGES, Ranking, K, "nDCG (2^rel−1)", "nDCG@k with gain(rel) = 2^rel − 1", "tie order; always the exponential gain", "Burges et al. 2005; ranx ndcg_burges", true, true, true)
        .typeset(r"\text{nDCG@}k = \frac{\text{DCG@}k}{\text{IDCG@}k}, \quad \text{DCG@}k = \sum_{i=1}^{k} \frac{2^{rel_i} - 1}{\log_2(i+1)}")
        .depends(&[Key::Ties, Key::Discount, Key::QuerySet, Key::IdealDepth])
        .query(|q, a| q.ndcg_at(a.k, Gain::Exponential, &a.ctx))
        .scan(|f, q, k, ctx| match ctx.ideal_depth {
            IdealDepth::K => ndcg_of(f.dcg_exp, f.idcg_exp),
            IdealDepth::ListLength => ndcg_of(f.dcg_exp, q.idcg_at(k, Gain::Exponential, ctx)),
        })
        .explain(Explain::Query(QueryTerms::Gains { exponential: true, normalised: true })),
    m(id::DCG, Ranking, K, "DCG", "DCG@k = Σ_{i≤k} gain(rel_i) · discount(i)", "gain, discount, tie order", "Järvelin & Kekäläinen 2002", true, false, true)
        .typeset(r"\text{DCG@}k = \sum_{i=1}^{k} gain(rel_i) \cdot discount(i)")
        .depends(&[Key::Ties, Key::Gain, Key::Discount, Key::QuerySet])
        .query(|q, a| q.dcg(a.k, a.ctx.gain, a.ctx.discount))
        .scan(|f, _, _, _| f.dcg)
        .explain(Explain::Query(QueryTerms::Gains { exponential: false, normalised: false })),
    m(id::IDCG, Ranking, K, "IDCG", "IDCG@k = DCG@k of the judged documents sorted by grade", "gain, discount", "Järvelin & Kekäläinen 2002", true, false, true)
        .typeset(r"\text{IDCG@}k = \sum_{i=1}^{k} gain(rel^{*}_i) \cdot discount(i), \quad rel^{*} = \text{grades sorted descending}")
        .depends(&[Key::Gain, Key::Discount, Key::QuerySet, Key::IdealDepth])
        .query(|q, a| q.idcg_at(a.k, a.ctx.gain, &a.ctx))
        .scan(|f, q, k, ctx| match ctx.ideal_depth {
            IdealDepth::K => f.idcg,
            IdealDepth::ListLength => q.idcg_at(k, ctx.gain, ctx),
        }),
    m(id::MAP, Ranking, OptK, "MAP", "AP@k = (1/D) Σ_{i≤k, rel_i} P@i;  MAP = mean over queries", "D = |R| (trec_eval) or min(|R|, k); relevance level; tie order", "trec_eval map / map_cut", true, true, true)
        .typeset(r"\text{AP@}k = \frac{1}{D} \sum_{i \le k,\, rel_i} P@i, \quad \text{MAP} = \frac{1}{|Q|} \sum_{q} \text{AP}(q)")
        .depends(&[Key::Ties, Key::RelevanceLevel, Key::ApDenominator, Key::QuerySet])
        .query(|q, a| q.average_precision(a.k, &a.ctx))
        .scan(ap_of_prefix)
        .curve(CurveMetric::Map)
        .explain(Explain::Query(QueryTerms::Ap)),
    m("gm_map", Ranking, NoK, "GM-MAP", "exp(mean(ln max(AP, 0.00001)))", "relevance level; tie order", "trec_eval gm_map", true, true, false)
        .typeset(r"\text{GM-MAP} = \exp\left( \frac{1}{|Q|} \sum_{q} \ln \max(\text{AP}(q), 10^{-5}) \right)")
        .depends(&[Key::Ties, Key::RelevanceLevel, Key::ApDenominator, Key::QuerySet])
        .query(|q, a| q.average_precision(a.k, &a.ctx))
        .scan(ap_of_prefix)
        .average(Average::Geometric),
    m(id::PRECISION, Ranking, K, "P@k", "P@k = |relevant in top k| / k", "denominator k (trec_eval) or min(k, list length); relevance level", "trec_eval P", true, true, true)
        .typeset(r"P@k = \frac{|\text{relevant in top } k|}{k}")
        .depends(&[Key::Ties, Key::RelevanceLevel, Key::PrecisionDenominator, Key::QuerySet])
        .query(|q, a| q.precision(a.k, &a.ctx))
        .scan(|f, q, k, ctx| q.precision_of(f.hits as f64, k, ctx))
        .curve(CurveMetric::Precision)
        .explain(Explain::Query(QueryTerms::Precision)),
    m(id::RECALL, Ranking, K, "R@k", "R@k = |relevant in top k| / |R|", "relevance level; 0 when |R| = 0", "trec_eval recall", true, true, true)
        .typeset(r"R@k = \frac{|\text{relevant in top } k|}{|R|}")
        .depends(&[Key::Ties, Key::RelevanceLevel, Key::QuerySet])
        .query(|q, a| q.recall(a.k, a.ctx.relevance_level))
        .scan(|f, q, _, ctx| q.recall_of(f.hits as f64, ctx.relevance_level))
        .curve(CurveMetric::Recall)
        .explain(Explain::Query(QueryTerms::Recall)),
    m(id::F1, Ranking, K, "F1@k", "F1@k = 2·P@k·R@k / (P@k + R@k)", "per-query mean (ranx) or from the mean P and R (LibCity)", "van Rijsbergen 1979 (F-measure); ranx f1", true, true, true)
        .typeset(r"F_1@k = \frac{2 \cdot P@k \cdot R@k}{P@k + R@k}")
        .depends(&[Key::Ties, Key::RelevanceLevel, Key::PrecisionDenominator, Key::F1Aggregation, Key::QuerySet])
        .query(|q, a| q.f1(a.k, &a.ctx))
        .scan(|f, q, k, ctx| q.f1_of(f.hits as f64, k, ctx))
        .average(Average::F1),
    m(id::HIT_RATE, Ranking, K, "Hit@k", "Hit@k = 1 if a relevant document is in the top k", "relevance level", "trec_eval success", true, true, true)
        .typeset(r"\text{Hit@}k = \mathbb{1}[\text{a relevant document is in the top } k]")
        .depends(&[Key::Ties, Key::RelevanceLevel, Key::QuerySet])
        .query(|q, a| q.hit(a.k, a.ctx.relevance_level))
        .scan(|f, _, _, _| (f.first_relevant > 0) as u8 as f64)
        .curve(CurveMetric::HitRate)
        .explain(Explain::Query(QueryTerms::Hit)),
    m(id::JUDGED, Ranking, OptK, "Judged@k", "Judged@k = |judged documents in the top k| / min(k, list length)", "any grade counts as judged, 0 included; no cutoff: the whole list; tie order", "ir_measures Judged (OpenNIR); Sakai & Kando 2008 on unjudged documents", true, true, true)
        .typeset(r"\text{Judged@}k = \frac{|\text{judged in top } k|}{\min(k, |\text{list}|)}")
        .depends(&[Key::Ties, Key::QuerySet])
        .query(|q, a| q.judged(a.k)),
    m(id::MRR, Ranking, OptK, "MRR", "RR = 1 / rank of the first relevant document (0 if none, or if below k)", "no cutoff by default (trec_eval recip_rank)", "Voorhees 1999", true, true, true)
        .typeset(r"\text{MRR} = \frac{1}{|Q|} \sum_{q} \frac{1}{rank_q}, \quad rank_q = \text{rank of the first relevant document}")
        .depends(&[Key::Ties, Key::RelevanceLevel, Key::QuerySet])
        .query(|q, a| q.reciprocal_rank(a.k, a.ctx.relevance_level))
        .scan(|f, _, _, _| rr_of_prefix(f.first_relevant))
        .explain(Explain::Query(QueryTerms::Rr)),
    m(id::ARHR, Ranking, K, "ARHR@k", "ARHR@k = Σ_{i≤k, rel_i} 1/i", "every relevant document in the top k counts", "Deshpande & Karypis 2004", true, false, true)
        .typeset(r"\text{ARHR@}k = \sum_{i \le k,\, rel_i} \frac{1}{i}")
        .depends(&[Key::Ties, Key::RelevanceLevel, Key::QuerySet])
        .query(|q, a| q.arhr(a.k, a.ctx.relevance_level))
        .scan(|f, _, _, _| f.arhr),
    m("r_precision", Ranking, NoK, "R-precision", "|relevant in top |R|| / |R|", "relevance level", "trec_eval Rprec", true, true, true)
        .typeset(r"\text{R-prec} = \frac{|\text{relevant in top } |R||}{|R|}")
        .depends(&[Key::Ties, Key::RelevanceLevel, Key::QuerySet])
        .query(|q, a| q.r_precision(a.ctx.relevance_level)),
    m("bpref", Ranking, NoK, "bpref", "(1/|R|) Σ_{retrieved relevant r} (1 − min(N_above(r), |R|) / min(|N|, |R|))", "unjudged documents are skipped; trec order", "Buckley & Voorhees 2004; trec_eval bpref", true, true, true)
        .typeset(r"\text{bpref} = \frac{1}{|R|} \sum_{r} \left( 1 - \frac{\min(|n \text{ ranked above } r|, |R|)}{\min(|N|, |R|)} \right)")
        .depends(&[Key::Ties, Key::RelevanceLevel, Key::QuerySet])
        .query(|q, a| q.bpref(a.ctx.relevance_level)),
    m("iprec_at_recall", Ranking, NoK, "Interpolated precision", "iprec(r) = max{P@i : recall@i ≥ r}, r = 0.0, 0.1, …, 1.0", "recall point r reached after lround(r·|R|) relevant documents (trec_eval 10.0; 9.0.x and pytrec_eval: (long)(r·|R| + 0.9), the convention trec_eval)", "trec_eval iprec_at_recall", true, true, true)
        .typeset(r"iprec(r) = \max_{i:\, R@i \ge r} P@i, \quad r \in \{0, 0.1, \ldots, 1\}")
        .depends(&[Key::Ties, Key::RelevanceLevel, Key::QuerySet, Key::TrecEval])
        .compute(Compute::Columns(&IPREC_NAMES, |q, a| q.interpolated_precision(a.ctx.relevance_level, a.trec_eval).to_vec())),
    m(id::NUM_Q, Ranking, NoK, "Queries", "number of evaluated queries", "which queries count", "trec_eval num_q", true, false, false)
        .typeset(r"|Q|")
        .depends(&[Key::QuerySet])
        .count()
        .query(|_, _| 1.0)
        .average(Average::Sum),
    m("num_ret", Ranking, NoK, "Retrieved", "Σ retrieved documents", "", "trec_eval num_ret", true, false, false)
        .typeset(r"\sum_{q} |\text{retrieved}_q|")
        .depends(&[Key::QuerySet])
        .count()
        .query(|q, _| q.len() as f64)
        .average(Average::Sum),
    m(id::NUM_REL, Ranking, NoK, "Relevant", "Σ |R|", "relevance level", "trec_eval num_rel", true, false, false)
        .typeset(r"\sum_{q} |R_q|")
        .depends(&[Key::RelevanceLevel, Key::QuerySet])
        .count()
        .query(|q, a| q.num_relevant(a.ctx.relevance_level) as f64)
        .average(Average::Sum),
    m("num_rel_ret", Ranking, NoK, "Relevant retrieved", "Σ relevant documents retrieved", "relevance level", "trec_eval num_rel_ret", true, false, false)
        .typeset(r"\sum_{q} |R_q \cap \text{retrieved}_q|")
        .depends(&[Key::RelevanceLevel, Key::QuerySet])
        .count()
        .query(|q, a| q.num_relevant_retrieved(a.ctx.relevance_level) as f64)
        .average(Average::Sum),
    m("fcp", Ranking, NoK, "FCP", "Σ concordant / Σ (concordant + discordant) pairs of retrieved documents (score vs grade)", "a tie in score or grade counts as neither; unjudged = grade 0", "Koren 2008", true, true, false)
        .typeset(r"\text{FCP} = \frac{\sum n_c}{\sum (n_c + n_d)}")
        .depends(&[Key::QuerySet])
        .compute(Compute::Agreement { pooled: true }),
    m("spearman", Ranking, NoK, "Spearman ρ", "Pearson correlation of the average ranks of score and grade, per query, averaged", "queries with a constant side are skipped", "Spearman 1904; scipy spearmanr", true, false, true)
        .typeset(r"\rho = \frac{\sum_i (r_i - \bar{r})(s_i - \bar{s})}{\sqrt{\sum_i (r_i - \bar{r})^2} \sqrt{\sum_i (s_i - \bar{s})^2}}")
        .depends(&[Key::QuerySet])
        .compute(Compute::Agreement { pooled: false }),
    // ranking: trec_eval's other measures (core/trec_measures.rs)
    m("set_p", Ranking, NoK, "set P", "set_P = |relevant retrieved| / |retrieved|", "the retrieved list as a set; relevance level; 0 with nothing retrieved", "trec_eval set_P", true, true, true)
        .typeset(r"\text{set\_P} = \frac{|R \cap \text{retrieved}|}{|\text{retrieved}|}")
        .depends(&[Key::RelevanceLevel, Key::QuerySet])
        .trec_extra()
        .query(|q, a| q.set_precision(a.ctx.relevance_level)),
    m("set_recall", Ranking, NoK, "set recall", "set_recall = |relevant retrieved| / |R|", "the retrieved list as a set; relevance level; 0 when |R| = 0", "trec_eval set_recall", true, true, true)
        .typeset(r"\text{set\_recall} = \frac{|R \cap \text{retrieved}|}{|R|}")
        .depends(&[Key::RelevanceLevel, Key::QuerySet])
        .trec_extra()
        .query(|q, a| q.set_recall(a.ctx.relevance_level)),
    m("set_f", Ranking, NoK, "set F1", "set_F = 2·set_P·set_recall / (set_P + set_recall)", "β = 1 (trec_eval's default); 0 with no relevant document retrieved", "van Rijsbergen 1979; trec_eval set_F", true, true, true)
        .typeset(r"\text{set\_F} = \frac{2 \cdot \text{set\_P} \cdot \text{set\_recall}}{\text{set\_P} + \text{set\_recall}}")
        .depends(&[Key::RelevanceLevel, Key::QuerySet])
        .trec_extra()
        .query(|q, a| q.set_f(a.ctx.relevance_level)),
    m("set_relative_p", Ranking, NoK, "set relative P", "|relevant retrieved| / min(|retrieved|, |R|)", "relevance level; 0 when either is 0", "trec_eval set_relative_P", true, true, true)
        .typeset(r"\text{set\_relative\_P} = \frac{|R \cap \text{retrieved}|}{\min(|\text{retrieved}|, |R|)}")
        .depends(&[Key::RelevanceLevel, Key::QuerySet])
        .trec_extra()
        .query(|q, a| q.set_relative_precision(a.ctx.relevance_level)),
    m("set_map", Ranking, NoK, "set MAP", "set_P · set_recall = |relevant retrieved|² / (|retrieved|·|R|)", "relevance level; 0 when either is 0", "trec_eval set_map", true, true, true)
        .typeset(r"\text{set\_map} = \frac{|R \cap \text{retrieved}|^2}{|\text{retrieved}| \cdot |R|}")
        .depends(&[Key::RelevanceLevel, Key::QuerySet])
        .trec_extra()
        .query(|q, a| q.set_map(a.ctx.relevance_level)),
    m("relative_p", Ranking, K, "relative P@k", "relative_P@k = |relevant in top k| / min(k, |R|)", "relevance level; 0 when |R| = 0", "trec_eval relative_P", true, true, true)
        .typeset(r"\text{relative\_P@}k = \frac{|\text{relevant in top } k|}{\min(k, |R|)}")
        .depends(&[Key::Ties, Key::RelevanceLevel, Key::QuerySet])
        .trec_extra()
        .query(|q, a| q.relative_precision(a.k.unwrap_or(1), a.ctx.relevance_level)),
    m("rprec_mult", Ranking, NoK, "R-prec × m", "P@c, c = (long)(m·|R| + 0.9), m = 0.2, 0.4, …, 2.0", "documents past the list count as non-relevant; 0 when c = 0", "trec_eval Rprec_mult", true, true, true)
        .typeset(r"\text{Rprec\_mult}(m) = P@c, \quad c = \text{trunc}(m \cdot |R| + 0.9), \quad m \in \{0.2, 0.4, \ldots, 2\}")
        .depends(&[Key::Ties, Key::RelevanceLevel, Key::QuerySet])
        .trec_extra()
        .compute(Compute::Columns(&RPREC_MULT_NAMES, |q, a| q.rprec_mult(a.ctx.relevance_level).to_vec())),
    m("11pt_avg", Ranking, NoK, "11-point average", "(1/11) Σ_{r = 0, 0.1, …, 1} iprec(r)", "iprec_at_recall's recall points (the convention trec_eval); trec order", "trec_eval 11pt_avg; Salton & McGill 1983", true, true, true)
        .typeset(r"\text{11pt\_avg} = \frac{1}{11} \sum_{r \in \{0, 0.1, \ldots, 1\}} iprec(r)")
        .depends(&[Key::Ties, Key::RelevanceLevel, Key::QuerySet, Key::TrecEval])
        .trec_extra()
        .query(|q, a| q.eleven_point_average(a.ctx.relevance_level, a.trec_eval)),
    m("infap", Ranking, NoK, "infAP", "(1/|R|) Σ_{relevant ranks j} E[P@j],  E[P@j] = 1/j + ((j−1)/j)·(d/(j−1))·((r + ε)/(r + n + 2ε))", "d, r, n: pooled, relevant and judged non-relevant documents above j (pooled = in the qrels, a negative grade being pooled but unjudged); documents absent from the qrels skipped; ε = 0.00001; trec order", "Yilmaz & Aslam 2006; trec_eval infAP", true, true, true)
        .typeset(r"\text{infAP} = \frac{1}{|R|} \sum_{j:\, rel_j} \left( \frac{1}{j} + \frac{j-1}{j} \cdot \frac{d_j}{j-1} \cdot \frac{r_j + \epsilon}{r_j + n_j + 2\epsilon} \right)")
        .depends(&[Key::Ties, Key::RelevanceLevel, Key::QuerySet])
        .trec_extra()
        .query(|q, a| q.inferred_ap(a.ctx.relevance_level)),
    m("gm_bpref", Ranking, NoK, "GM-bpref", "exp(mean(ln max(bpref, 0.00001)))", "relevance level; trec order", "trec_eval gm_bpref", true, true, false)
        .typeset(r"\text{GM-bpref} = \exp\left( \frac{1}{|Q|} \sum_{q} \ln \max(\text{bpref}(q), 10^{-5}) \right)")
        .depends(&[Key::Ties, Key::RelevanceLevel, Key::QuerySet])
        .trec_extra()
        .query(|q, a| q.bpref(a.ctx.relevance_level))
        .average(Average::Geometric),
    m("bin_g", Ranking, NoK, "binG", "(1/|R|) Σ_{relevant ranks i} 1 / log2(2 + i − rel_i),  rel_i = relevant documents in the top i", "relevance level; trec order", "Kishida 2005; trec_eval binG", true, true, true)
        .typeset(r"\text{binG} = \frac{1}{|R|} \sum_{i:\, rel_i} \frac{1}{\log_2(2 + i - r_i)}")
        .depends(&[Key::Ties, Key::RelevanceLevel, Key::QuerySet])
        .trec_extra()
        .query(|q, a| q.bin_g(a.ctx.relevance_level)),
    m("g", Ranking, NoK, "G", "Σ_i gain_i / log2(2 + cost_i − cg_i) / Σ ideal gains,  cost_i = Σ_{j≤i} max(ideal gain_j, 1), cg_i = Σ_{j≤i} gain_j", "gain = grade (trec_eval's default gains); trec order", "Sakai 2004; trec_eval G", true, true, true)
        .typeset(r"G = \frac{1}{\sum_j g^{*}_j} \sum_{i} \frac{g_i}{\log_2(2 + c_i - cg_i)}, \quad c_i = \sum_{j \le i} \max(g^{*}_j, 1)")
        .depends(&[Key::Ties, Key::QuerySet])
        .trec_extra()
        .query(|q, _| q.g()),
    m("ndcg_rel", Ranking, NoK, "nDCG_rel", "(1/|R|) Σ_{relevant d} nDCG@rank(d), nDCG of the whole list for a relevant document not retrieved", "gain = grade; log2 discount; trec order", "trec_eval ndcg_rel", true, true, true)
        .typeset(r"\text{nDCG\_rel} = \frac{1}{|R|} \sum_{d \in R} \text{nDCG@}rank(d)")
        .depends(&[Key::Ties, Key::QuerySet])
        .trec_extra()
        .query(|q, _| q.ndcg_rel()),
    m("rndcg", Ranking, NoK, "Rndcg", "mean of nDCG@i at each rank i where the ideal ranking's gain changes (and at the end of a list longer than the ideal one)", "gain = grade; log2 discount; 0 when |R| = 0; trec order", "trec_eval Rndcg", true, true, true)
        .typeset(r"\text{Rndcg} = \frac{1}{|C|} \sum_{i \in C} \text{nDCG@}i, \quad C = \text{ranks where the ideal gain changes}")
        .depends(&[Key::Ties, Key::RelevanceLevel, Key::QuerySet])
        .trec_extra()
        .query(|q, a| q.rndcg(a.ctx.relevance_level)),
    m("rbp", Ranking, NoK, "RBP", "RBP = (1 − p) Σ_{i≥1} gain_i · p^{i−1},  p = 0.9", "gain = grade, divided by the query's highest judged grade when that is above 1; unjudged documents gain 0", "Moffat & Zobel 2008; trec_eval rbp", true, true, true)
        .typeset(r"\text{RBP} = (1 - p) \sum_{i \ge 1} gain_i \, p^{i-1}, \quad p = 0.9")
        .depends(&[Key::Ties, Key::QuerySet])
        .trec_extra()
        .query(|q, _| q.rbp()),
    m("rbp_resid", Ranking, NoK, "RBP residual", "p^n + (1 − p) Σ_{unjudged i} p^{i−1},  p = 0.9", "the most unjudged and unretrieved documents could add to RBP; 0 when every retrieved document is judged (trec_eval's rule)", "Moffat & Zobel 2008; trec_eval rbp_resid", false, true, true)
        .typeset(r"\text{RBP}_{resid} = p^{n} + (1 - p) \sum_{i:\, \text{unjudged}} p^{i-1}")
        .depends(&[Key::Ties, Key::QuerySet])
        .trec_extra()
        .query(|q, _| q.rbp_residual()),
    m("unj", Ranking, K, "Unjudged@k", "unj@k = |documents in top k absent from the qrels or judged negative| / k", "denominator k even for shorter lists", "trec_eval unj", false, true, true)
        .typeset(r"\text{unj@}k = \frac{|\text{unjudged in top } k|}{k}")
        .depends(&[Key::Ties, Key::QuerySet])
        .trec_extra()
        .query(|q, a| q.unjudged_at(a.k.unwrap_or(1))),
    m("utility", Ranking, NoK, "Utility", "|relevant retrieved| − |non-relevant retrieved|", "trec_eval's default coefficients (1, −1, 0, 0); relevance level", "Hull & Robertson 2000 (TREC filtering); trec_eval utility", true, false, true)
        .typeset(r"U = |R \cap \text{retrieved}| - |\text{retrieved non-relevant}|")
        .depends(&[Key::RelevanceLevel, Key::QuerySet])
        .trec_extra()
        .query(|q, a| q.utility(a.ctx.relevance_level)),
    m("yaap", Ranking, NoK, "yaAP", "ln((1 + S) / (1 + |R| − S)),  S = Σ_{relevant ranks i} P@i", "relevance level; trec order", "Robertson 2008; trec_eval yaap", true, false, true)
        .typeset(r"\text{yaAP} = \ln \frac{1 + S}{1 + |R| - S}, \quad S = \sum_{i:\, rel_i} P@i")
        .depends(&[Key::Ties, Key::RelevanceLevel, Key::QuerySet])
        .trec_extra()
        .query(|q, a| q.yaap(a.ctx.relevance_level)),
    m("num_nonrel_judged_ret", Ranking, NoK, "Judged non-relevant retrieved", "Σ retrieved documents judged with 0 ≤ grade < level", "relevance level", "trec_eval num_nonrel_judged_ret", false, false, false)
        .typeset(r"\sum_{q} |\text{retrieved}_q \cap N_q|")
        .depends(&[Key::RelevanceLevel, Key::QuerySet])
        .trec_extra()
        .count()
        .query(|q, a| q.num_nonrelevant_judged_retrieved(a.ctx.relevance_level) as f64)
        .average(Average::Sum),
    // binary
    m(id::ROC_AUC, Binary, NoK, "ROC AUC", "AUC = P(s⁺ > s⁻) + ½ P(s⁺ = s⁻)", "equal scores are one threshold (a tied pair counts ½); undefined with one class", "sklearn roc_auc_score", true, true, false)
        .typeset(r"\text{AUC} = P(s^{+} > s^{-}) + \frac{1}{2} P(s^{+} = s^{-})")
        .compute(Compute::Curve(BinaryCurve::roc_auc))
        .explain(Explain::Curve(CurveTerms::PairsOrdered)),
    m(id::AVERAGE_PRECISION, Binary, NoK, "Average precision", "AP = Σ_n (R_n − R_{n−1}) P_n over distinct thresholds", "step sum, no interpolation", "sklearn average_precision_score", true, true, false)
        .typeset(r"\text{AP} = \sum_{n} (R_n - R_{n-1}) \, P_n")
        .compute(Compute::Curve(BinaryCurve::average_precision))
        .explain(Explain::Curve(CurveTerms::RecallSteps)),
    m("pr_auc_trapezoid", Binary, NoK, "PR-AUC (trapezoid)", "∫ precision d(recall), trapezoid rule", "linear interpolation of precision is optimistic", "sklearn auc(recall, precision)", true, true, false)
        .typeset(r"\text{PR-AUC} = \sum_{n} (R_n - R_{n-1}) \frac{P_n + P_{n-1}}{2}")
        .compute(Compute::Curve(BinaryCurve::pr_auc_trapezoid)),
    m("pr_auc_interpolated", Binary, NoK, "PR-AUC (interpolated)", "Σ_n (R_n − R_{n−1}) max_{m: R_m ≥ R_n} P_m", "precision envelope (VOC style)", "Everingham et al. 2010", true, true, false)
        .typeset(r"\text{PR-AUC} = \sum_{n} (R_n - R_{n-1}) \max_{m:\, R_m \ge R_n} P_m")
        .compute(Compute::Curve(BinaryCurve::interpolated_average_precision)),
    m(id::LOG_LOSS, Binary, NoK, "Log loss", "−(1/N) Σ [y ln p + (1−y) ln(1−p)]", "p clipped to [ε, 1−ε], ε = 2.22e−16; scores must be probabilities unless marked as logits", "sklearn log_loss", false, false, true)
        .typeset(r"\text{LogLoss} = -\frac{1}{N} \sum_{i=1}^{N} \left[ y_i \ln \hat{p}_i + (1 - y_i) \ln(1 - \hat{p}_i) \right]")
        .depends(&[Key::BinaryScoresAreLogits])
        .compute(Compute::Loss { brier: false })
        .explain(Explain::Loss),
    m(id::BRIER, Binary, NoK, "Brier score", "(1/N) Σ (p − y)²", "scores must be probabilities", "Brier 1950", false, true, true)
        .typeset(r"\text{Brier} = \frac{1}{N} \sum_{i=1}^{N} (\hat{p}_i - y_i)^2")
        .depends(&[Key::BinaryScoresAreLogits])
        .compute(Compute::Loss { brier: true })
        .explain(Explain::Loss),
    m("accuracy", Binary, NoK, "Accuracy", "(TP + TN) / N", "threshold and rule (≥ or >)", "sklearn accuracy_score", true, true, false)
        .typeset(r"\text{Accuracy} = \frac{TP + TN}{TP + TN + FP + FN}")
        .depends(&[Key::Threshold, Key::ThresholdRule])
        .compute(Compute::Threshold(Confusion::accuracy, false))
        .explain(Explain::Threshold(Cells::Accuracy)),
    m(id::PRECISION, Binary, NoK, "Precision", "TP / (TP + FP)", "threshold; with no predicted positive, zero_division: 0 with a warning (default, scikit-learn's 'warn'), undefined or 1", "sklearn precision_score", true, true, false)
        .typeset(r"\text{Precision} = \frac{TP}{TP + FP}")
        .depends(&[Key::Threshold, Key::ThresholdRule, Key::ZeroDivision])
        .compute(Compute::Threshold(Confusion::precision, true))
        .explain(Explain::Threshold(Cells::Precision)),
    m(id::RECALL, Binary, NoK, "Recall", "TP / (TP + FN)", "threshold; with no positive row, zero_division", "sklearn recall_score", true, true, false)
        .typeset(r"\text{Recall} = \frac{TP}{TP + FN}")
        .depends(&[Key::Threshold, Key::ThresholdRule, Key::ZeroDivision])
        .compute(Compute::Threshold(Confusion::recall, true))
        .explain(Explain::Threshold(Cells::Recall)),
    m(id::F1, Binary, NoK, "F1", "2·P·R / (P + R) = 2TP / (2TP + FP + FN)", "threshold; with no row positive or predicted positive, zero_division", "sklearn f1_score", true, true, false)
        .typeset(r"F_1 = \frac{2 \cdot \text{Precision} \cdot \text{Recall}}{\text{Precision} + \text{Recall}}")
        .depends(&[Key::Threshold, Key::ThresholdRule, Key::ZeroDivision])
        .compute(Compute::Threshold(Confusion::f1, true))
        .explain(Explain::Threshold(Cells::F1)),
    m(id::MCC, Binary, NoK, "MCC", "(TP·TN − FP·FN) / √((TP+FP)(TP+FN)(TN+FP)(TN+FN))", "0 when a factor is 0", "Matthews 1975", true, false, false)
        .typeset(r"\text{MCC} = \frac{TP \cdot TN - FP \cdot FN}{\sqrt{(TP + FP)(TP + FN)(TN + FP)(TN + FN)}}")
        .depends(&[Key::Threshold, Key::ThresholdRule])
        .compute(Compute::Threshold(|c| Some(c.mcc()), false))
        .explain(Explain::Threshold(Cells::Mcc)),
    m(id::F1_WEIGHTED, Binary, NoK, "F1 (weighted)", "Σ_c support_c · F1_c / N over both classes", "threshold; a class without support weighs 0", "sklearn average='weighted'", true, true, false)
        .typeset(r"F_1^{weighted} = \sum_{c} \frac{n_c}{N} F_{1,c}")
        .depends(&[Key::Threshold, Key::ThresholdRule])
        .compute(Compute::Threshold(Confusion::f1_weighted, false))
        .explain(Explain::F1Average { weighted: true }),
    m(id::F1_MACRO, Binary, NoK, "F1 (macro)", "mean of F1 over the classes present (as a label or a prediction)", "threshold; all-negative rows predicted negative give 1", "sklearn average='macro'", true, true, false)
        .typeset(r"F_1^{macro} = \frac{1}{C} \sum_{c} F_{1,c}")
        .depends(&[Key::Threshold, Key::ThresholdRule])
        .compute(Compute::Threshold(Confusion::f1_macro, false))
        .explain(Explain::F1Average { weighted: false }),
    m("balanced_accuracy", Binary, NoK, "Balanced accuracy", "(TP/(TP+FN) + TN/(TN+FP)) / 2", "threshold and rule; a class absent from the labels is left out of the mean (scikit-learn)", "Brodersen et al. 2010; sklearn balanced_accuracy_score", true, true, false)
        .typeset(r"\text{Balanced accuracy} = \frac{1}{2} \left( \frac{TP}{TP + FN} + \frac{TN}{TN + FP} \right)")
        .depends(&[Key::Threshold, Key::ThresholdRule])
        .compute(Compute::Threshold(Confusion::balanced_accuracy, false)),
    m(id::ECE, Binary, NoK, "Expected calibration error", "Σ_b (n_b / N) |fraction positive_b − mean p_b|", "10 bins of equal width on [0, 1] (as sklearn calibration_curve's uniform strategy), empty bins skipped; scores must be probabilities unless marked as logits", "Naeini et al. 2015", false, true, false)
        .typeset(r"\text{ECE} = \sum_{b} \frac{n_b}{N} \left| \bar{y}_b - \bar{p}_b \right|")
        .depends(&[Key::BinaryScoresAreLogits])
        .compute(Compute::Calibrated(|c, logits| {
            let p = |s| if logits { super::binary::sigmoid(s) } else { s };
            let cal = super::diagnostics::calibration(c, 10, super::diagnostics::BinStrategy::Uniform, p);
            cal.map(|cal| cal.ece)
        })),
    m(id::KS, Binary, NoK, "KS statistic", "max over thresholds |TPR − FPR|", "the two-sample Kolmogorov–Smirnov statistic of the positives' and negatives' scores; undefined with one class", "scipy ks_2samp", true, true, false)
        .typeset(r"\text{KS} = \max_{t} \left| \text{TPR}(t) - \text{FPR}(t) \right|")
        .compute(Compute::Curve(|c| super::diagnostics::ks(c).map(|k| k.0))),
    // at the top 1, 5, 10 and 20% of the rows, as `rankscope diagnose` prints it
    lift("lift_1", "Lift at the top 1%", r"\text{Lift}_{1\%} = \frac{\text{Gains}(0.01)}{0.01}", |c| super::diagnostics::lift_at(c, 0.01)),
    lift("lift_5", "Lift at the top 5%", r"\text{Lift}_{5\%} = \frac{\text{Gains}(0.05)}{0.05}", |c| super::diagnostics::lift_at(c, 0.05)),
    lift("lift_10", "Lift at the top 10%", r"\text{Lift}_{10\%} = \frac{\text{Gains}(0.1)}{0.1}", |c| super::diagnostics::lift_at(c, 0.1)),
    lift("lift_20", "Lift at the top 20%", r"\text{Lift}_{20\%} = \frac{\text{Gains}(0.2)}{0.2}", |c| super::diagnostics::lift_at(c, 0.2)),
    m("tp", Binary, NoK, "TP", "positives predicted positive", "threshold", "", true, false, false)
        .typeset(r"TP = |\{i : y_i = 1, \hat{y}_i = 1\}|")
        .depends(&[Key::Threshold, Key::ThresholdRule])
        .count()
        .compute(Compute::Threshold(|c| Some(c.tp as f64), false)),
    m("fp", Binary, NoK, "FP", "negatives predicted positive", "threshold", "", false, false, false)
        .typeset(r"FP = |\{i : y_i = 0, \hat{y}_i = 1\}|")
        .depends(&[Key::Threshold, Key::ThresholdRule])
        .count()
        .compute(Compute::Threshold(|c| Some(c.fp as f64), false)),
    m("tn", Binary, NoK, "TN", "negatives predicted negative", "threshold", "", true, false, false)
        .typeset(r"TN = |\{i : y_i = 0, \hat{y}_i = 0\}|")
        .depends(&[Key::Threshold, Key::ThresholdRule])
        .count()
        .compute(Compute::Threshold(|c| Some(c.tn as f64), false)),
    m("fn", Binary, NoK, "FN", "positives predicted negative", "threshold", "", false, false, false)
        .typeset(r"FN = |\{i : y_i = 1, \hat{y}_i = 0\}|")
        .depends(&[Key::Threshold, Key::ThresholdRule])
        .count()
        .compute(Compute::Threshold(|c| Some(c.fn_ as f64), false)),
    // multi-class
    m(id::ACC, Multiclass, K, "Acc@k", "Acc@k = (1/N) Σ 1[rank(target) ≤ k]", "rank of the target under the class tie rule", "sklearn top_k_accuracy_score", true, true, true)
        .typeset(r"\text{Acc@}k = \frac{1}{N} \sum_{i=1}^{N} \mathbb{1}[rank_i \le k]")
        .depends(&[Key::ClassTies])
        .compute(Compute::Classes(top_k_accuracy))
        .explain(Explain::TargetRanks { per_row: |_| 1.0, per_row_text: "1 if the rank ≤ k", value: |r, k| multiclass::accuracy_at(r, k.unwrap_or(1)), default_k: Some(1) })
        .always_at(1),
    m(id::MRR, Multiclass, OptK, "MRR", "(1/N) Σ 1/rank(target)", "full ranking; @k: 0 beyond k", "Voorhees 1999", true, true, true)
        .typeset(r"\text{MRR} = \frac{1}{N} \sum_{i=1}^{N} \frac{1}{rank_i}")
        .depends(&[Key::ClassTies])
        .compute(Compute::Classes(|v| Ok(Some(multiclass::mrr(v.ranks, v.k)))))
        .explain(Explain::TargetRanks { per_row: |r| 1.0 / r as f64, per_row_text: "1 / rank", value: multiclass::mrr, default_k: None }),
    m(id::NDCG, Multiclass, K, "nDCG@k", "(1/N) Σ 1/log2(rank + 1) if rank ≤ k", "one relevant class, IDCG = 1", "Järvelin & Kekäläinen 2002 (one relevant item)", true, true, true)
        .typeset(r"\text{nDCG@}k = \frac{1}{N} \sum_{i=1}^{N} \frac{\mathbb{1}[rank_i \le k]}{\log_2(rank_i + 1)}")
        .depends(&[Key::ClassTies])
        .compute(Compute::Classes(|v| Ok(Some(multiclass::ndcg_at(v.ranks, v.k.unwrap_or(u32::MAX))))))
        .explain(Explain::TargetRanks { per_row: |r| 1.0 / ((r as f64) + 1.0).log2(), per_row_text: "1 / log₂(rank + 1)", value: |r, k| multiclass::ndcg_at(r, k.unwrap_or(u32::MAX)), default_k: None }),
    m(id::F1_WEIGHTED, Multiclass, NoK, "F1 (weighted)", "Σ_c support_c · F1_c / N of the argmax prediction", "argmax: lowest index among ties", "sklearn average='weighted'", true, true, false)
        .typeset(r"F_1^{weighted} = \sum_{c} \frac{n_c}{N} F_{1,c}")
        .compute(Compute::Classes(|v| Ok(Some(multiclass::f1_average(v.targets, v.predicted, true)))))
        .explain(Explain::F1Average { weighted: true }),
    m(id::F1_MACRO, Multiclass, NoK, "F1 (macro)", "mean F1 over classes of the argmax prediction", "", "sklearn average='macro'", true, true, false)
        .typeset(r"F_1^{macro} = \frac{1}{C} \sum_{c} F_{1,c}")
        .compute(Compute::Classes(|v| Ok(Some(multiclass::f1_average(v.targets, v.predicted, false)))))
        .explain(Explain::F1Average { weighted: false }),
    m("cross_entropy", Multiclass, NoK, "Cross-entropy", "−(1/N) Σ ln p(target)", "p clipped at ε; logits: log-softmax first; rows not renormalised", "sklearn log_loss (multi-class)", false, false, true)
        .typeset(r"\mathcal{L} = -\frac{1}{N} \sum_{i=1}^{N} \ln p_i(y_i)")
        .depends(&[Key::ClassScale])
        .compute(Compute::Classes(|v| Ok(v.cross_entropy())))
        .explain(Explain::CrossEntropy { perplexity: false }),
    m("perplexity", Multiclass, NoK, "Perplexity", "exp(cross-entropy)", "", "Jelinek et al. 1977 (perplexity)", false, false, false)
        .typeset(r"\text{PPL} = e^{\mathcal{L}}")
        .depends(&[Key::ClassScale])
        .compute(Compute::Classes(|v| Ok(v.cross_entropy().map(f64::exp))))
        .explain(Explain::CrossEntropy { perplexity: true }),
    // ratings
    m(id::MAE, Ratings, NoK, "MAE", "Σ|P − R| / n", "", "Herlocker et al. 2004", false, false, true)
        .typeset(r"\text{MAE} = \frac{1}{n} \sum_{u,i} |p_{ui} - r_{ui}|")
        .compute(Compute::Ratings(|_, r, p| Some(ratings::mae(r, p))))
        .explain(Explain::RatingErrors { squared: false, root: false }),
    m(id::MSE, Ratings, NoK, "MSE", "Σ(P − R)² / n", "", "Herlocker et al. 2004", false, false, true)
        .typeset(r"\text{MSE} = \frac{1}{n} \sum_{u,i} (p_{ui} - r_{ui})^2")
        .compute(Compute::Ratings(|_, r, p| Some(ratings::mse(r, p))))
        .explain(Explain::RatingErrors { squared: true, root: false }),
    m("rmse", Ratings, NoK, "RMSE", "√(Σ(P − R)² / n)", "", "Herlocker et al. 2004; sklearn mean_squared_error", false, false, false)
        .typeset(r"\text{RMSE} = \sqrt{\frac{1}{n} \sum_{u,i} (p_{ui} - r_{ui})^2}")
        .compute(Compute::Ratings(|_, r, p| Some(ratings::rmse(r, p))))
        .explain(Explain::RatingErrors { squared: true, root: true }),
    m("rmse_per_user", Ratings, NoK, "RMSE per user", "mean over users of each user's RMSE", "", "Herlocker et al. 2004 (per-user averaging)", false, false, true)
        .typeset(r"\frac{1}{|U|} \sum_{u} \text{RMSE}(u)")
        .compute(Compute::PerUser(ratings::rmse_per_group)),
    m("rmse_per_item", Ratings, NoK, "RMSE per item", "mean over items of each item's RMSE", "", "Herlocker et al. 2004 (per-item averaging)", false, false, false)
        .typeset(r"\frac{1}{|I|} \sum_{i} \text{RMSE}(i)")
        .compute(Compute::Ratings(|d, r, p| sum::mean(ratings::rmse_per_group(&d.item, r, p).into_iter().map(|x| x.1)))),
    m("spearman", Ratings, NoK, "Spearman ρ", "Pearson correlation of average ranks of R and P", "f64, never the Σd² shortcut", "Spearman 1904; scipy spearmanr", true, false, false)
        .typeset(r"\rho = \frac{\sum_i (r_i - \bar{r})(s_i - \bar{s})}{\sqrt{\sum_i (r_i - \bar{r})^2} \sqrt{\sum_i (s_i - \bar{s})^2}}")
        .compute(Compute::Ratings(|_, r, p| agreement::spearman(r, p))),
    m("spearman_per_user", Ratings, NoK, "Spearman ρ per user", "mean over users with a defined ρ", "users with < 2 rows or a constant side are skipped", "Spearman 1904; scipy spearmanr, per user", true, false, true)
        .typeset(r"\frac{1}{|U'|} \sum_{u \in U'} \rho_u")
        .compute(Compute::Ratings(|d, r, p| sum::mean(ratings::spearman_per_group(&d.user, r, p).into_iter().map(|x| x.1)))),
    m("fcp", Ratings, NoK, "FCP", "Σ_u n_c(u) / Σ_u (n_c(u) + n_d(u))", "Koren: a tie in rating or prediction counts as neither", "Koren 2008", true, true, false)
        .typeset(r"\text{FCP} = \frac{\sum n_c}{\sum (n_c + n_d)}")
        .compute(Compute::Ratings(|d, r, p| ratings::fcp(&d.user, r, p).0)),
];

impl MetricInfo {
    /// The formula as TeX (the subset `rankscope::math` typesets), for the
    /// explanations and the lessons; [`MetricInfo::formula`] is its plain-text form.
    pub fn tex(&self) -> &'static str {
        if self.tex.is_empty() {
            self.formula
        } else {
            self.tex
        }
    }

    /// A threshold metric's value on a confusion matrix, `zero_division`
    /// applied where it applies; `None` for the metrics of other hooks.
    pub fn at_threshold(&self, c: &Confusion, zero_division: ZeroDivision) -> Option<Option<f64>> {
        match self.compute {
            Compute::Threshold(f, true) => Some(zero_division.apply(f(c))),
            Compute::Threshold(f, false) => Some(f(c)),
            _ => None,
        }
    }

    /// The names of its columns when it has several ([`Compute::Columns`]).
    pub fn columns(&self) -> Option<&'static [&'static str]> {
        match self.compute {
            Compute::Columns(names, _) => Some(names),
            _ => None,
        }
    }
}

/// One of trec_eval 10.0's measures the core computes alike: its `-m` name,
/// the core metric, its default cutoffs when it takes some (they become
/// `name_k` lines), whether `-m all_trec` includes it, and its place in
/// trec_eval's measure table (`te_trec_measures`), which orders its output.
#[derive(Debug, PartialEq)]
pub struct TrecMeasure {
    pub name: &'static str,
    pub base: &'static str,
    pub cuts: Option<&'static [usize]>,
    pub all_trec: bool,
    pub order: u8,
}

const fn tm(
    name: &'static str,
    base: &'static str,
    cuts: Option<&'static [usize]>,
    all_trec: bool,
    order: u8,
) -> TrecMeasure {
    TrecMeasure {
        name,
        base,
        cuts,
        all_trec,
        order,
    }
}

/// trec_eval's default cutoffs of P, recall, ndcg_cut, map_cut, relative_P.
pub const TREC_CUTS: &[usize] = &[5, 10, 15, 20, 30, 100, 200, 500, 1000];

/// trec_eval's measures the core computes, in its table's order (its
/// `runid`, `num_q` and `relstring` are output, not metrics; its preference
/// and judgment-group measures need their own relation formats: both are
/// `rankscope trec_eval`'s).
pub static TREC_MEASURES: &[TrecMeasure] = &[
    tm("num_ret", "num_ret", None, true, 2),
    tm("num_rel", "num_rel", None, true, 3),
    tm("num_rel_ret", "num_rel_ret", None, true, 4),
    tm("map", "map", None, true, 5),
    tm("gm_map", "gm_map", None, true, 6),
    tm("Rprec", "r_precision", None, true, 7),
    tm("bpref", "bpref", None, true, 8),
    tm("recip_rank", "mrr", None, true, 9),
    tm("iprec_at_recall", "iprec_at_recall", None, true, 10),
    tm("P", "precision", Some(TREC_CUTS), true, 11),
    tm("recall", "recall", Some(TREC_CUTS), true, 13),
    tm("infAP", "infap", None, true, 14),
    tm("gm_bpref", "gm_bpref", None, true, 15),
    tm("Rprec_mult", "rprec_mult", None, true, 16),
    tm("utility", "utility", None, true, 17),
    tm("11pt_avg", "11pt_avg", None, true, 18),
    tm("binG", "bin_g", None, true, 19),
    tm("G", "g", None, true, 20),
    tm("dcg", "dcg", None, false, 21),
    tm("ideal_dcg", "idcg", None, false, 22),
    tm("ndcg", "ndcg", None, true, 23),
    tm("ndcg_rel", "ndcg_rel", None, true, 24),
    tm("Rndcg", "rndcg", None, true, 25),
    tm("ndcg_cut", "ndcg", Some(TREC_CUTS), true, 26),
    tm("map_cut", "map", Some(TREC_CUTS), true, 27),
    tm("relative_P", "relative_p", Some(TREC_CUTS), true, 28),
    tm("success", id::HIT_RATE, Some(&[1, 5, 10]), true, 29),
    tm("set_P", "set_p", None, true, 30),
    tm("set_relative_P", "set_relative_p", None, true, 31),
    tm("set_recall", "set_recall", None, true, 32),
    tm("set_map", "set_map", None, true, 33),
    tm("set_F", "set_f", None, true, 34),
    tm(
        "num_nonrel_judged_ret",
        "num_nonrel_judged_ret",
        None,
        true,
        35,
    ),
    tm("yaap", "yaap", None, false, 53),
    tm("rbp", "rbp", None, true, 54),
    tm("rbp_resid", "rbp_resid", None, true, 55),
    tm("unj", "unj", Some(&[5, 10, 20]), true, 56),
];

impl MetricInfo {
    /// The name trec_eval 10.0 gives this measure (`-m NAME`; with a cutoff,
    /// `ndcg` and `map` are its `ndcg_cut` and `map_cut`), for the ranking
    /// metrics it computes alike; `None` for the others.
    pub fn trec_name(&self) -> Option<&'static str> {
        if self.kind != Ranking {
            return None;
        }
        TREC_MEASURES
            .iter()
            .find(|t| t.base == self.base)
            .map(|t| t.name)
    }

    /// One of trec_eval's measures beyond the common ones: the page lists
    /// them apart, and no table shows them unless asked.
    pub fn is_trec_extra(&self) -> bool {
        self.trec_extra
    }
}

/// A metric id with its cutoff, e.g. `ndcg@10`.
#[derive(
    Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct MetricId {
    pub base: String,
    pub k: Option<usize>,
}

impl MetricId {
    pub fn new(base: &str, k: Option<usize>) -> Self {
        MetricId {
            base: base.to_string(),
            k,
        }
    }

    /// Parses `base` or `base@k` and checks it against the catalogue for `kind`.
    pub fn parse(text: &str, kind: Kind) -> Result<MetricId, String> {
        let text = text.trim();
        let (base, k) = match text.split_once('@') {
            Some((b, k)) => {
                let k: usize = k.parse().map_err(|_| {
                    format!("metric '{text}': the cutoff after '@' must be a positive whole number")
                })?;
                if k == 0 {
                    return Err(format!("metric '{text}': the cutoff must be at least 1"));
                }
                (b, Some(k))
            }
            None => (text, None),
        };
        let info = info(base, kind).ok_or_else(|| {
            let known: Vec<&str> = METRICS
                .iter()
                .filter(|m| m.kind == kind)
                .map(|m| m.base)
                .collect();
            format!(
                "unknown {} metric '{base}'; known: {}",
                kind.label(),
                known.join(", ")
            )
        })?;
        match (info.cutoff, k) {
            (Cutoff::Required, None) => {
                Err(format!("metric '{base}' needs a cutoff, e.g. {base}@10"))
            }
            (Cutoff::None, Some(_)) => Err(format!("metric '{base}' takes no cutoff")),
            _ => Ok(MetricId {
                base: base.to_string(),
                k,
            }),
        }
    }
}

impl std::fmt::Display for MetricId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.k {
            Some(k) => write!(f, "{}@{}", self.base, k),
            None => f.write_str(&self.base),
        }
    }
}

/// Whether a column (`tp`, `num_ret`, `ndcg@10`) holds a count: a
/// counting metric's, or one of trec_eval's preference counts.
pub fn is_count(column: &str) -> bool {
    let base = column.split('@').next().unwrap_or_default();
    METRICS.iter().any(|m| m.count && m.base == base) || base.starts_with("prefs_num_prefs_")
}

/// A column's metric without its cutoff or recall level (`ndcg@10` and
/// `iprec_at_recall_0.10` are `ndcg` and `iprec_at_recall`).
pub fn base_of(column: &str) -> &str {
    let base = column.split('@').next().unwrap_or(column);
    if base.starts_with("iprec_at_recall") {
        "iprec_at_recall"
    } else if base.starts_with("rprec_mult_") {
        "rprec_mult"
    } else {
        base
    }
}

/// Whether a larger value of column `column` (`ndcg@10`, `iprec_at_recall_0.10`)
/// is better: its metric's direction, higher for a column of no metric.
pub fn higher_is_better(column: &str, kind: Kind) -> bool {
    info(base_of(column), kind).is_none_or(|i| i.higher_is_better)
}

/// The catalogue row of `base` for `kind`.
pub fn info(base: &str, kind: Kind) -> Option<&'static MetricInfo> {
    METRICS.iter().find(|m| m.base == base && m.kind == kind)
}

/// The columns of `rprec_mult`, one per multiple of |R|
/// ([`super::trec_measures::RPREC_MULTS`]; trec_eval's `Rprec_mult_0.20`, ...).
pub const RPREC_MULT_NAMES: [&str; 10] = [
    "rprec_mult_0.20",
    "rprec_mult_0.40",
    "rprec_mult_0.60",
    "rprec_mult_0.80",
    "rprec_mult_1.00",
    "rprec_mult_1.20",
    "rprec_mult_1.40",
    "rprec_mult_1.60",
    "rprec_mult_1.80",
    "rprec_mult_2.00",
];

/// The 11 recall levels of `iprec_at_recall`, as trec_eval names them.
pub const IPREC_NAMES: [&str; 11] = [
    "iprec_at_recall_0.00",
    "iprec_at_recall_0.10",
    "iprec_at_recall_0.20",
    "iprec_at_recall_0.30",
    "iprec_at_recall_0.40",
    "iprec_at_recall_0.50",
    "iprec_at_recall_0.60",
    "iprec_at_recall_0.70",
    "iprec_at_recall_0.80",
    "iprec_at_recall_0.90",
    "iprec_at_recall_1.00",
];

/// The binary metric DeLong's test compares (the page's ROC AUC card and
/// `rankscope compare`'s binary models).
pub const DELONG: &str = id::ROC_AUC;

/// The ranking metric the reciprocal-rank table shows from the runs
/// themselves (no cutoff).
pub const RECIPROCAL_RANK: &str = id::MRR;

pub const DEFAULT_CUTOFFS: &[usize] = &[1, 3, 5, 10, 20, 100, 1000];

/// The most cutoffs a view shows at once: each adds a column per @k metric
/// (10,000 cutoffs took 9.4 s to render), and no table is read past a few dozen.
pub const MAX_CUTOFFS: usize = 32;

/// `ks` sorted, without repeats, and cut to [`MAX_CUTOFFS`]; a message when
/// some were left out.
pub fn capped_cutoffs(ks: Vec<usize>) -> (Vec<usize>, Option<String>) {
    let mut ks = crate::ascending(&ks);
    ks.dedup();
    if ks.len() <= MAX_CUTOFFS {
        return (ks, None);
    }
    let left_out = ks.len() - MAX_CUTOFFS;
    ks.truncate(MAX_CUTOFFS);
    let note = format!(
        "At most {MAX_CUTOFFS} cutoffs are shown at once: kept k = {}..{}, left out {left_out} larger ones.",
        ks[0],
        ks[MAX_CUTOFFS - 1]
    );
    (ks, Some(note))
}

/// Whether metric `base` of `kind` can change with the convention named by
/// its link key `key` (`gain`, `ties`, `threshold`, ...: the keys of
/// `conventions::TABLE`): the page marks such a column when
/// that convention is not the default. Checked against evaluations of every
/// non-default value (`session`'s tests): a metric a convention changes is
/// always listed.
pub fn depends_on(kind: Kind, base: &str, key: &str) -> bool {
    // the models' own thresholds change what the shared one does
    let key = if key == super::conventions::OWN_THRESHOLDS {
        "threshold"
    } else {
        key
    };
    info(base, kind).is_some_and(|m| dependencies(m).any(|k| k.name() == key))
}

/// The conventions that change every ranking metric, beyond its row's
/// `depends`: which documents of a list stay, which queries count.
const EVERY_RANKING: &[Key] = &[Key::IdenticalIds, Key::NoRelevant];

/// The ranking metrics that read only the ranked list's own grades (not
/// |R| nor the ideal list): the judgments read (`qrels_scope`) leave them alone.
const LIST_ONLY: &[&str] = &[
    id::DCG,
    id::PRECISION,
    id::HIT_RATE,
    id::JUDGED,
    id::MRR,
    id::ARHR,
    id::NUM_Q,
    "num_ret",
    "num_rel_ret",
    "fcp",
    "spearman",
    "set_p",
    "unj",
    "utility",
    "num_nonrel_judged_ret",
    "rbp_resid",
];

/// The ranking metrics that read grades beyond relevant or not (gains,
/// agreement with scores): binary grades (`grades`) change them.
const GRADED: &[&str] = &[
    id::NDCG,
    id::NDCG_BURGES,
    id::DCG,
    id::IDCG,
    "fcp",
    "spearman",
    "g",
    "ndcg_rel",
    "rndcg",
    "rbp",
];

/// Every convention that can change `m`'s value: its row's `depends`, and
/// for a ranking metric the conventions of [`EVERY_RANKING`], `qrels_scope`
/// (unless it reads the list alone), `grades` (if it reads grades) and
/// `unjudged` (condensed lists reorder every metric that reads the list).
pub fn dependencies(m: &MetricInfo) -> impl Iterator<Item = Key> + '_ {
    let ranking = m.kind == Kind::Ranking;
    let wide = EVERY_RANKING.iter().filter(move |_| ranking);
    let judged = (ranking && !LIST_ONLY.contains(&m.base)).then_some(Key::QrelsScope);
    let graded = (ranking && GRADED.contains(&m.base)).then_some(Key::Grades);
    let listed = (ranking && !CONDENSED_SAME.contains(&m.base)).then_some(Key::Unjudged);
    m.depends
        .iter()
        .chain(wide)
        .copied()
        .chain(judged)
        .chain(graded)
        .chain(listed)
}

/// The ranking metrics that read only the judgments, not the ranked list:
/// the same with condensed lists (`unjudged`).
const CONDENSED_SAME: &[&str] = &[id::IDCG, id::NUM_REL, id::NUM_Q];

/// The ranking metrics that tell a document absent from the qrels from one
/// judged not relevant (Judged@k, bpref, infAP, unj, rbp_resid, the judged
/// non-relevant count): every other metric has the same value when each
/// unjudged document is judged grade 0 (`judgments::complete`), which the
/// bounds use (`judgments`' tests check it for every metric).
pub const TELLS_UNJUDGED: &[&str] = &[
    id::JUDGED,
    "bpref",
    "gm_bpref",
    "infap",
    "unj",
    "rbp_resid",
    "num_nonrel_judged_ret",
];

/// The default metric list of a kind at the given cutoffs: every metric but
/// trec_eval's less common measures ([`MetricInfo::is_trec_extra`]), which are
/// computed when asked for by name.
pub fn default_metrics(kind: Kind, ks: &[usize]) -> Vec<MetricId> {
    metrics_at(kind, ks, false)
}

/// The metric table's columns of `kind`: each metric whose base `shown`
/// holds, in the registry's order, at every cutoff of `ks` (one with an
/// optional cutoff also without, one that always shows a cutoff, top-1
/// accuracy, at that one too). The page's table and `rankscope compare`'s
/// default metrics read it.
pub fn table_columns(kind: Kind, shown: &[(Kind, &str)], ks: &[usize]) -> Vec<MetricId> {
    let mut out = Vec::new();
    for info in METRICS
        .iter()
        .filter(|m| m.kind == kind && shown.contains(&(kind, m.base)))
    {
        match info.cutoff {
            Cutoff::None => out.push(MetricId::new(info.base, None)),
            Cutoff::Optional => {
                out.push(MetricId::new(info.base, None));
                out.extend(ks.iter().map(|&k| MetricId::new(info.base, Some(k))));
            }
            Cutoff::Required => {
                if let Some(k) = info.always_at.filter(|k| !ks.contains(k)) {
                    out.push(MetricId::new(info.base, Some(k)));
                }
                out.extend(ks.iter().map(|&k| MetricId::new(info.base, Some(k))))
            }
        }
    }
    out
}

/// Every metric of a kind at the given cutoffs.
pub fn all_metrics(kind: Kind, ks: &[usize]) -> Vec<MetricId> {
    metrics_at(kind, ks, true)
}

fn metrics_at(kind: Kind, ks: &[usize], extras: bool) -> Vec<MetricId> {
    let mut out = Vec::new();
    for info in METRICS
        .iter()
        .filter(|m| m.kind == kind && (extras || !m.is_trec_extra()))
    {
        match info.cutoff {
            Cutoff::None => out.push(MetricId::new(info.base, None)),
            Cutoff::Optional => {
                out.push(MetricId::new(info.base, None));
                out.extend(ks.iter().map(|&k| MetricId::new(info.base, Some(k))));
            }
            Cutoff::Required => out.extend(ks.iter().map(|&k| MetricId::new(info.base, Some(k)))),
        }
    }
    out
}

impl Confusion {
    /// The threshold metric `base` with `zero_division` applied, or `None`
    /// for a `base` that is not one (the outer option): its registry row's hook.
    pub fn metric(&self, base: &str, zero_division: ZeroDivision) -> Option<Option<f64>> {
        info(base, Kind::Binary)?.at_threshold(self, zero_division)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every row's hooks fit its kind: a ranking row computes per query
    /// (or several columns, or agreement), a binary one from the curve, a
    /// loss or the threshold, ...; a one-scan form only beside a per-query
    /// kernel; every convention it names is in the conventions table; and
    /// every explanation fits its kind too.
    #[test]
    fn every_row_has_hooks_of_its_kind() {
        let keys = crate::conventions::all_keys();
        for m in METRICS {
            let fits = matches!(
                (m.kind, m.compute),
                (
                    Kind::Ranking,
                    Compute::Query(_) | Compute::Columns(..) | Compute::Agreement { .. }
                ) | (
                    Kind::Binary,
                    Compute::Curve(_)
                        | Compute::Calibrated(_)
                        | Compute::Loss { .. }
                        | Compute::Threshold(..)
                ) | (Kind::Multiclass, Compute::Classes(_))
                    | (Kind::Ratings, Compute::Ratings(_) | Compute::PerUser(_))
            );
            assert!(fits, "{:?} {}: {:?}", m.kind, m.base, m.compute);
            assert!(
                m.scan.is_none() || matches!(m.compute, Compute::Query(_)),
                "{}",
                m.base
            );
            assert!(
                m.average == Average::Mean || m.kind == Kind::Ranking,
                "{}",
                m.base
            );
            for key in m.depends {
                assert!(
                    keys.contains(&key.name()),
                    "{} depends on {key:?}, not a convention",
                    m.base
                );
            }
            let explains = match (m.kind, m.explain) {
                (_, Explain::None) => true,
                (Kind::Ranking, Explain::Query(_)) => true,
                (
                    Kind::Binary,
                    Explain::Curve(_) | Explain::Threshold(_) | Explain::F1Average { .. },
                ) => true,
                (Kind::Binary, Explain::Loss) => matches!(m.compute, Compute::Loss { .. }),
                (
                    Kind::Multiclass,
                    Explain::TargetRanks { .. }
                    | Explain::CrossEntropy { .. }
                    | Explain::F1Average { .. },
                ) => true,
                (Kind::Ratings, Explain::RatingErrors { .. }) => true,
                _ => false,
            };
            assert!(explains, "{:?} {}: {:?}", m.kind, m.base, m.explain);
            // one row per (kind, id)
            assert_eq!(
                METRICS
                    .iter()
                    .filter(|o| o.kind == m.kind && o.base == m.base)
                    .count(),
                1,
                "{}",
                m.base
            );
        }
        assert_eq!(info(DELONG, Kind::Binary).map(|m| m.title), Some("ROC AUC"));
        assert!(info(RECIPROCAL_RANK, Kind::Ranking).is_some());
    }

    #[test]
    fn ids_parse_and_print() {
        let id = MetricId::parse("ndcg@10", Kind::Ranking).unwrap();
        assert_eq!(id.to_string(), "ndcg@10");
        assert!(MetricId::parse("precision", Kind::Ranking)
            .unwrap_err()
            .contains("needs a cutoff"));
        assert!(MetricId::parse("bpref@5", Kind::Ranking)
            .unwrap_err()
            .contains("no cutoff"));
        assert!(MetricId::parse("ndcg@x", Kind::Ranking).is_err());
        assert!(MetricId::parse("nope", Kind::Binary)
            .unwrap_err()
            .contains("roc_auc"));
        assert_eq!(
            MetricId::parse("acc@5", Kind::Multiclass).unwrap().k,
            Some(5)
        );
    }

    #[test]
    fn every_kind_has_a_default_list() {
        for kind in [Kind::Ranking, Kind::Binary, Kind::Multiclass, Kind::Ratings] {
            let list = all_metrics(kind, &[1, 10]);
            assert!(!list.is_empty());
            for id in list {
                assert_eq!(MetricId::parse(&id.to_string(), kind).unwrap(), id);
            }
        }
    }
}
