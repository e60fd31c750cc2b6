//! `rankscope diagnose`: a classifier's diagnostics per model, as one JSON
//! document or as text. Binary models: calibration (reliability bins, ECE,
//! MCE, Murphy's decomposition), KS, gains and lift at the top 1/5/10/20%,
//! operating points (each with its threshold under the chosen rule and its
//! confusion matrix), and with `curves` the DET and gains curves. Multi-class
//! models: scikit-learn's `classification_report`, the confusion matrix and,
//! for probability matrices, one-vs-rest and one-vs-one ROC AUC.

use crate::core::binary::{sigmoid, BinaryCurve, Confusion, ThresholdRule, ZeroDivision};
use crate::core::diagnostics::{self, BinStrategy, Calibration, OperatingPoint, Target};
pub mod html;

use std::sync::Arc;

use crate::core::evaluate::{BinaryData, MulticlassData};
use crate::core::multiclass::{self, ClassReport};
use crate::core::registry::id;
use crate::core::Named;

/// What `diagnose` is asked for; the defaults are the page's.
#[derive(Clone, Debug)]
pub struct Options {
    pub bins: usize,
    pub strategy: BinStrategy,
    /// Targets of the operating points: recall, precision, TPR, β.
    pub recall: f64,
    pub precision: f64,
    pub tpr: f64,
    pub beta: f64,
    /// Costs of a false positive and a false negative, and the prevalence the
    /// cost is taken at (`None`: the data's own).
    pub cost_fp: f64,
    pub cost_fn: f64,
    pub prevalence: Option<f64>,
    /// The DET and gains curves too.
    pub curves: bool,
    pub logits: bool,
    pub rule: ThresholdRule,
    pub zero_division: ZeroDivision,
    /// Groups of models shown as one (folds, seeds): (name, pattern with `*`).
    pub groups: Vec<(String, String)>,
    /// The models are one class of a multi-class matrix against the rest
    /// (the page's one-vs-rest view): the panel leads with their ROC and PR
    /// curves and has no controls or threshold of its own. Not in links.
    pub one_vs_rest: Option<u32>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            bins: 10,
            strategy: BinStrategy::Uniform,
            recall: 0.9,
            precision: 0.9,
            tpr: 0.95,
            beta: 2.0,
            cost_fp: 1.0,
            cost_fn: 1.0,
            prevalence: None,
            curves: false,
            logits: false,
            rule: ThresholdRule::AtLeast,
            zero_division: ZeroDivision::Zero,
            groups: Vec::new(),
            one_vs_rest: None,
        }
    }
}

impl Options {
    /// The options that are not the defaults as `key:value` pairs joined by
    /// `;` (a group as `group:NAME=PATTERN`): the page's link and session
    /// key `diag`. The defaults give an empty text.
    pub fn to_text(&self) -> String {
        let d = Options::default();
        let mut parts = Vec::new();
        let mut put = |key: &str, v: String, default: String| {
            if v != default {
                parts.push(format!("{key}:{v}"));
            }
        };
        put("bins", self.bins.to_string(), d.bins.to_string());
        put(
            "strategy",
            self.strategy.name().into(),
            d.strategy.name().into(),
        );
        put("recall", self.recall.to_string(), d.recall.to_string());
        put(
            "precision",
            self.precision.to_string(),
            d.precision.to_string(),
        );
        put("tpr", self.tpr.to_string(), d.tpr.to_string());
        put("beta", self.beta.to_string(), d.beta.to_string());
        put("cost_fp", self.cost_fp.to_string(), d.cost_fp.to_string());
        put("cost_fn", self.cost_fn.to_string(), d.cost_fn.to_string());
        let prevalence = |p: Option<f64>| p.map_or(String::new(), |p| p.to_string());
        put("prevalence", prevalence(self.prevalence), String::new());
        for (name, pattern) in &self.groups {
            parts.push(format!("group:{name}={pattern}"));
        }
        parts.join(";")
    }

    /// The options of [`Options::to_text`]'s text; a pair that is not a
    /// known key with a valid value is skipped (a link from elsewhere).
    pub fn from_text(text: &str) -> Options {
        let mut o = Options::default();
        let mut groups = Vec::new();
        for part in text.split(';') {
            match part.split_once(':') {
                Some(("group", g)) => groups.push(g),
                Some((key, value)) => {
                    o.set(key, value);
                }
                None => {}
            }
        }
        o.set("group", &groups.join(","));
        o
    }

    /// Sets one option from its text; `false` (nothing changed) when the
    /// key is unknown or the value invalid. `group` takes every group as
    /// `NAME=PATTERN` pairs separated by commas (empty: none), replacing
    /// the groups there were.
    pub fn set(&mut self, key: &str, value: &str) -> bool {
        let value = value.trim();
        let unit = || crate::text::parse_f64(value).filter(|x| (0.0..=1.0).contains(x));
        let cost = || crate::text::parse_f64(value).filter(|x| x.is_finite() && *x >= 0.0);
        let ok = |x: Option<f64>, slot: &mut f64| x.map(|x| *slot = x).is_some();
        match key {
            "bins" => crate::text::parse_f64(value)
                .filter(|b| b.fract() == 0.0 && (1.0..=1000.0).contains(b))
                .map(|b| self.bins = b as usize)
                .is_some(),
            "strategy" => BinStrategy::named(value)
                .map(|s| self.strategy = s)
                .is_some(),
            "recall" => ok(unit(), &mut self.recall),
            "precision" => ok(unit(), &mut self.precision),
            "tpr" => ok(unit(), &mut self.tpr),
            "beta" => ok(cost(), &mut self.beta),
            "cost_fp" => ok(cost(), &mut self.cost_fp),
            "cost_fn" => ok(cost(), &mut self.cost_fn),
            "prevalence" if value.is_empty() => {
                self.prevalence = None;
                true
            }
            "prevalence" => unit().map(|p| self.prevalence = Some(p)).is_some(),
            "one_vs_rest" => value.parse().map(|c| self.one_vs_rest = Some(c)).is_ok(),
            "group" => parse_groups(value).map(|g| self.groups = g).is_some(),
            _ => false,
        }
    }
}

/// Groups as `NAME=PATTERN` pairs separated by commas (`None`: one is not).
fn parse_groups(value: &str) -> Option<Vec<(String, String)>> {
    let mut groups = Vec::new();
    for g in value.split(',').filter(|g| !g.trim().is_empty()) {
        let (n, p) = g.split_once('=')?;
        let (n, p) = (n.trim(), p.trim());
        if n.is_empty() || p.is_empty() || n.contains(';') || p.contains(';') {
            return None;
        }
        groups.push((n.to_string(), p.to_string()));
    }
    Some(groups)
}

/// The groups of an options text ([`Options::to_text`]), as the text's
/// `group:` pairs give them (the page's table reads them without the rest
/// of the options).
pub fn groups_of(text: &str) -> Vec<(String, String)> {
    let groups: Vec<&str> = (text.split(';'))
        .filter_map(|part| part.strip_prefix("group:"))
        .collect();
    parse_groups(&groups.join(",")).unwrap_or_default()
}

/// The fractions of the rows at which gains and lift are read.
pub const TOP_PERCENT: [u32; 4] = [1, 5, 10, 20];

/// One operating point as reported: its name, the target, the threshold
/// under the chosen rule and the confusion matrix there (all `None` when no
/// threshold reaches the target).
#[derive(Clone, Debug, serde::Serialize)]
pub struct Point {
    pub name: &'static str,
    /// What the point is chosen for, in words.
    pub target: String,
    pub threshold: Option<f64>,
    pub value: Option<f64>,
    pub confusion: Option<Confusion>,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct BinaryModel {
    pub name: String,
    pub rows: u64,
    pub positives: u64,
    /// `None` when the scores are not probabilities (mark logits).
    pub calibration: Option<Calibration>,
    pub brier: Option<f64>,
    /// (statistic, threshold where it is largest).
    pub ks: Option<(f64, f64)>,
    /// (percent of the rows from the top, share of the positives, lift).
    pub top: Vec<(u32, f64, f64)>,
    pub operating_points: Vec<Point>,
    /// (false-positive rate, false-negative rate, threshold) per threshold.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub det: Option<Vec<(f64, f64, f64)>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gains: Option<Vec<(f64, f64)>>,
}

/// The operating points `options` asks for, named as the CLI and the page
/// name them.
pub fn targets(o: &Options) -> Vec<(&'static str, String, Target)> {
    let prevalence = o
        .prevalence
        .map_or(String::new(), |p| format!(" at prevalence {p}"));
    vec![
        (
            "precision_at_recall",
            format!("highest precision with recall ≥ {}", o.recall),
            Target::PrecisionAtRecall(o.recall),
        ),
        (
            "recall_at_precision",
            format!("highest recall with precision ≥ {}", o.precision),
            Target::RecallAtPrecision(o.precision),
        ),
        (
            "fpr_at_tpr",
            format!("lowest FPR with TPR ≥ {}", o.tpr),
            Target::FprAtTpr(o.tpr),
        ),
        (
            "youden",
            "largest Youden's J = TPR − FPR".into(),
            Target::Youden,
        ),
        ("max_f1", "largest F1".into(), Target::MaxF(1.0)),
        (
            "max_fbeta",
            format!("largest F-beta, beta = {}", o.beta),
            Target::MaxF(o.beta),
        ),
        (
            "min_cost",
            format!(
                "least expected cost per row, FP costs {}, FN costs {}{prevalence}",
                o.cost_fp, o.cost_fn
            ),
            Target::MinCost {
                fp: o.cost_fp,
                fn_: o.cost_fn,
                prevalence: o.prevalence,
            },
        ),
    ]
}

pub fn binary_model(name: &str, curve: &BinaryCurve, o: &Options) -> BinaryModel {
    let logits = o.logits;
    let probability = move |s: f64| if logits { sigmoid(s) } else { s };
    let calibration = diagnostics::calibration(curve, o.bins, o.strategy, probability);
    let above = o.rule == ThresholdRule::Above;
    // every operating point in one pass over the curve
    let targets = targets(o);
    let found =
        diagnostics::operating_points(curve, &targets.iter().map(|t| t.2).collect::<Vec<_>>());
    let point =
        |((name, target, _), p): ((&'static str, String, Target), Option<OperatingPoint>)| Point {
            name,
            target,
            threshold: p.map(|p| p.threshold_for(curve, above)),
            value: p.map(|p| p.value),
            confusion: p.map(|p| p.confusion),
        };
    BinaryModel {
        name: name.to_string(),
        rows: curve.positives + curve.negatives,
        positives: curve.positives,
        brier: calibration
            .as_ref()
            .and_then(|_| curve.probability_loss(true, probability)),
        calibration,
        ks: diagnostics::ks(curve),
        top: TOP_PERCENT
            .iter()
            .filter_map(|&q| {
                let f = q as f64 / 100.0;
                Some((
                    q,
                    diagnostics::gains_at(curve, f)?,
                    diagnostics::lift_at(curve, f)?,
                ))
            })
            .collect(),
        operating_points: targets.into_iter().zip(found).map(point).collect(),
        det: o.curves.then(|| diagnostics::det_points(curve)).flatten(),
        gains: o.curves.then(|| diagnostics::gains_points(curve)),
    }
}

/// Each model of `d` with its curve (built once, or taken from the data).
pub fn curves(d: &BinaryData) -> Vec<(String, Arc<BinaryCurve>)> {
    let names = d.models.iter().map(|m| m.0.clone());
    names.zip(crate::core::evaluate::binary_curves(d)).collect()
}

pub fn binary(curves: &[(String, Arc<BinaryCurve>)], o: &Options) -> Vec<BinaryModel> {
    curves
        .iter()
        .map(|(name, curve)| binary_model(name, curve, o))
        .collect()
}

pub use crate::text::glob;

/// One number of a group's members, read from a member's curve or diagnostics.
type GroupNumber = fn(&BinaryCurve, &BinaryModel) -> Option<f64>;

/// A group of models (folds or seeds of one model) shown as one.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Group {
    pub name: String,
    pub members: Vec<String>,
    /// The members' ROC curves averaged vertically with a ±1 sd band.
    pub averaged_roc: Option<diagnostics::AveragedRoc>,
    /// Their precision–recall curves likewise.
    pub averaged_pr: Option<diagnostics::AveragedPr>,
    /// Per number: (name, mean, standard deviation over the members (ddof
    /// 0), each member's value).
    pub mean_sd: Vec<(&'static str, f64, f64, Vec<f64>)>,
}

/// The groups `o.groups` names, over `curves` and their `models` (from
/// [`binary`]); a pattern no model matches is an error naming the models.
pub fn groups(
    curves: &[(String, Arc<BinaryCurve>)],
    models: &[BinaryModel],
    o: &Options,
) -> Result<Vec<Group>, String> {
    o.groups
        .iter()
        .map(|(name, pattern)| {
            let members: Vec<usize> = (0..curves.len())
                .filter(|&i| glob(pattern, &curves[i].0))
                .collect();
            if members.is_empty() {
                let names: Vec<&str> = curves.iter().map(|m| m.0.as_str()).collect();
                return Err(format!(
                    "group {name}: no model matches '{pattern}' (the models: {})",
                    names.join(", ")
                ));
            }
            let refs: Vec<&BinaryCurve> = members.iter().map(|&i| curves[i].1.as_ref()).collect();
            let numbers: [(&'static str, GroupNumber); 5] = [
                (id::ROC_AUC, |c, _| c.roc_auc()),
                (id::AVERAGE_PRECISION, |c, _| c.average_precision()),
                (id::BRIER, |_, m| m.brier),
                (id::ECE, |_, m| m.calibration.as_ref().map(|c| c.ece)),
                (id::KS, |_, m| m.ks.map(|k| k.0)),
            ];
            let mean_sd = numbers
                .iter()
                .filter_map(|(label, f)| {
                    let values: Option<Vec<f64>> = members
                        .iter()
                        .zip(&refs)
                        .map(|(&i, c)| f(c, &models[i]))
                        .collect();
                    let values = values?;
                    let (m, sd) = diagnostics::mean_sd(&values)?;
                    Some((*label, m, sd, values))
                })
                .collect();
            Ok(Group {
                name: name.clone(),
                members: members.iter().map(|&i| curves[i].0.clone()).collect(),
                averaged_roc: diagnostics::averaged_roc(&refs, 100),
                averaged_pr: diagnostics::averaged_pr(&refs, 100),
                mean_sd,
            })
        })
        .collect()
}

/// A group of models in a metric table: per column, the mean and standard
/// deviation (ddof 0) of the members' values (`None` where a member's value
/// is undefined), and each member's value.
#[derive(Clone, Debug, serde::Serialize)]
pub struct MetricGroup {
    pub name: String,
    pub members: Vec<String>,
    pub metrics: Vec<GroupColumn>,
}

/// One column of a [`MetricGroup`]: its id, the mean and sd, and the
/// members' values in `members` order.
pub type GroupColumn = (String, Option<(f64, f64)>, Vec<Option<f64>>);

/// `groups` (name, pattern) over the models of `report`; a pattern no model
/// matches is an error naming the models.
pub fn metric_groups(
    report: &crate::core::evaluate::Report,
    groups: &[(String, String)],
) -> Result<Vec<MetricGroup>, String> {
    groups
        .iter()
        .map(|(name, pattern)| {
            let members: Vec<_> = report
                .models
                .iter()
                .filter(|m| glob(pattern, &m.name))
                .collect();
            if members.is_empty() {
                let names: Vec<&str> = report.models.iter().map(|m| m.name.as_str()).collect();
                return Err(format!(
                    "group {name}: no model matches '{pattern}' (the models: {})",
                    names.join(", ")
                ));
            }
            let metrics = report
                .columns
                .iter()
                .map(|c| {
                    let values: Vec<Option<f64>> = members
                        .iter()
                        .map(|m| m.metrics.get(c).copied().flatten())
                        .collect();
                    let all: Option<Vec<f64>> = values.iter().copied().collect();
                    (
                        c.clone(),
                        all.and_then(|v| diagnostics::mean_sd(&v)),
                        values,
                    )
                })
                .collect();
            Ok(MetricGroup {
                name: name.clone(),
                members: members.iter().map(|m| m.name.clone()).collect(),
                metrics,
            })
        })
        .collect()
}

/// Metric groups as text: one line per column, mean ± sd.
pub fn metric_groups_text(groups: &[MetricGroup]) -> String {
    let mut s = String::new();
    for g in groups {
        s.push_str(&format!(
            "group {} (mean ± sd over {} models: {})\n",
            g.name,
            g.members.len(),
            g.members.join(", ")
        ));
        for (column, stats, _) in &g.metrics {
            let shown = stats.map_or("—".into(), |(m, sd)| format!("{m:.4} ± {sd:.4}"));
            s.push_str(&format!("  {column:<24} {shown}\n"));
        }
    }
    s
}

/// The groups as text.
pub fn groups_text(groups: &[Group]) -> String {
    let mut s = String::new();
    for g in groups {
        s.push_str(&format!(
            "group {} ({} models: {})\n",
            g.name,
            g.members.len(),
            g.members.join(", ")
        ));
        for (label, m, sd, _) in &g.mean_sd {
            s.push_str(&format!("  {label:<18} {m:.4} ± {sd:.4}\n"));
        }
        if let Some(roc) = &g.averaged_roc {
            s.push_str(&format!(
                "  averaged ROC (vertical, 100 FPR points, ±1 sd): AUC of the mean curve {:.4}\n",
                roc.auc_of_mean
            ));
        }
        if let Some(pr) = &g.averaged_pr {
            s.push_str(&format!(
                "  averaged PR (vertical, 100 recall points, ±1 sd): AP {:.4} ± {:.4}\n",
                pr.ap_mean, pr.ap_sd
            ));
        }
    }
    s
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct MulticlassModel {
    pub name: String,
    /// Class ids as the file names them, in the report's order.
    pub class_names: Vec<String>,
    pub report: ClassReport,
    /// Rows: true class, columns: predicted class, over the report's classes.
    pub confusion_matrix: Vec<Vec<u64>>,
    /// One-vs-rest and one-vs-one ROC AUC, macro and weighted, for a
    /// probability matrix (`None` for top-k lists).
    pub roc_auc: Option<[Option<f64>; 4]>,
    /// Each class present against the rest, for a probability matrix: its
    /// column as the scores of (target == class), with the binary numbers.
    pub per_class: Vec<ClassAgainstRest>,
}

/// One class of a probability matrix against the rest.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ClassAgainstRest {
    pub class: String,
    pub positives: u64,
    pub roc_auc: Option<f64>,
    pub average_precision: Option<f64>,
    pub ece: Option<f64>,
    pub mce: Option<f64>,
    pub brier: Option<f64>,
    pub ks: Option<f64>,
}

/// `scores(model)`: each class's score column of a probability matrix, when
/// the caller can read them (the CLI reads the file again per class).
pub fn multiclass(
    d: &MulticlassData,
    o: &Options,
    scores: impl Fn(usize) -> Option<Vec<Vec<f64>>>,
) -> Vec<MulticlassModel> {
    d.models
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let predicted = m.predicted();
            let report = multiclass::classification_report(&d.targets, &predicted, o.zero_division);
            let classes: Vec<u32> = report.classes.iter().map(|c| c.class).collect();
            let columns = scores(i);
            let roc_auc = columns.as_ref().map(|columns| {
                let auc = |ovo, weighted| {
                    multiclass::multiclass_roc_auc(&d.targets, columns, ovo, weighted)
                };
                [
                    auc(false, false),
                    auc(false, true),
                    auc(true, false),
                    auc(true, true),
                ]
            });
            let per_class = columns.map_or(Vec::new(), |columns| {
                multiclass::present_classes(&d.targets)
                    .into_iter()
                    .filter_map(|c| {
                        let labels: Vec<bool> = d.targets.iter().map(|&t| t == c).collect();
                        let curve = BinaryCurve::new(&labels, columns.get(c as usize)?);
                        let m = binary_model("", &curve, o);
                        let cal = m.calibration.as_ref();
                        Some(ClassAgainstRest {
                            class: d.class_name(c),
                            positives: curve.positives,
                            roc_auc: curve.roc_auc(),
                            average_precision: curve.average_precision(),
                            ece: cal.map(|c| c.ece),
                            mce: cal.map(|c| c.mce),
                            brier: m.brier,
                            ks: m.ks.map(|k| k.0),
                        })
                    })
                    .collect()
            });
            MulticlassModel {
                name: m.name.clone(),
                class_names: classes.iter().map(|&c| d.class_name(c)).collect(),
                confusion_matrix: multiclass::confusion_matrix(&d.targets, &predicted, &classes),
                report,
                roc_auc,
                per_class,
            }
        })
        .collect()
}

/// What `zero_division` decided in each model's report, as scikit-learn
/// warns of it: the classes never predicted (precision 0/0) and those
/// predicted but never a target (recall 0/0), with the value they got.
pub fn zero_division_warnings(models: &[MulticlassModel], rule: ZeroDivision) -> Vec<String> {
    let value = match rule {
        ZeroDivision::Zero => "set to 0 (zero_division = 0, scikit-learn's default 'warn')",
        ZeroDivision::One => "set to 1 (zero_division = 1)",
        ZeroDivision::Undefined => "left undefined and out of the averages (zero_division = nan)",
    };
    let mut out = Vec::new();
    for m in models {
        let cm = &m.confusion_matrix;
        let classes = |ill: &dyn Fn(usize) -> bool| -> Vec<&str> {
            (0..cm.len())
                .filter(|&c| ill(c))
                .map(|c| m.class_names[c].as_str())
                .collect()
        };
        let never_predicted = classes(&|c| cm.iter().all(|row| row[c] == 0));
        let never_true = classes(&|c| cm[c].iter().all(|&n| n == 0));
        for (metric, list, why) in [
            (id::PRECISION, never_predicted, "never predicted"),
            (id::RECALL, never_true, "no row of the class"),
        ] {
            if !list.is_empty() {
                out.push(format!(
                    "{}: {metric} is ill-defined for class{} {} ({why}), {value}; --zero-division 0|nan|1 chooses.",
                    m.name,
                    if list.len() == 1 { "" } else { "es" },
                    list.join(", ")
                ));
            }
        }
    }
    out
}

/// The most values (rows × classes) a report's class columns may hold in
/// the page's worker (32-bit memory; the CLI reads a class at a time).
pub const REPORT_VALUES: usize = 40_000_000;

/// Model `i`'s class columns, each read from its file again by
/// `reparse(c)` (the file parsed with `one_vs_rest: Some(c)`, class `c`'s
/// column as a binary file's scores): `None` for a top-k list, when the
/// files do not map one to one onto the models, or when a parse fails.
pub fn class_columns(
    d: &MulticlassData,
    i: usize,
    files: usize,
    reparse: impl Fn(u32) -> Option<Vec<f64>>,
) -> Option<Vec<Vec<f64>>> {
    (files == d.models.len() && !d.models.get(i)?.is_list()).then_some(())?;
    (0..d.num_classes as u32).map(reparse).collect()
}

/// The scores of a file read as one class against the rest.
pub fn class_scores(name: &str, parsed: crate::parse::Parsed) -> Option<Vec<f64>> {
    let mut ovr = crate::parse::Workspace::default();
    ovr.add(name, parsed).ok()?;
    Some(ovr.binary?.models.into_iter().next()?.1)
}

/// The multi-class report of files held in memory (the page's loading
/// worker, given the dropped matrices again): merged as the page merges
/// them, then each probability matrix read once more per class for that
/// class's column (the parse keeps only each row's summary), as
/// `rankscope diagnose` reads a file.
pub fn multiclass_of_files(
    files: &[(String, Vec<u8>)],
    o: &Options,
) -> Result<Vec<MulticlassModel>, String> {
    use crate::parse::{parse_bytes, LoadOptions, Parsed, Workspace};
    let mut ws = Workspace::default();
    // the multi-class files (the page's example holds other kinds too)
    let mut kept = Vec::new();
    for (name, bytes) in files {
        let parsed =
            parse_bytes(name, bytes, &LoadOptions::default()).map_err(|e| e.to_string())?;
        if matches!(
            parsed.data(),
            Parsed::Multiclass(_) | Parsed::Classes { .. }
        ) {
            ws.add(name, parsed).map_err(|e| e.to_string())?;
            kept.push((name, bytes));
        }
    }
    let files = kept;
    let d = ws
        .multiclass
        .as_ref()
        .ok_or("these files hold no multi-class predictions")?;
    let values = d
        .targets
        .len()
        .saturating_mul(d.num_classes)
        .saturating_mul(d.models.len());
    if values > REPORT_VALUES {
        return Err(format!(
            "{} rows × {} classes × {} models are more scores than the page holds at once ({REPORT_VALUES}); rankscope diagnose reads them a class at a time",
            d.targets.len(),
            d.num_classes,
            d.models.len()
        ));
    }
    let columns = |i: usize| {
        let (name, bytes) = files.get(i)?;
        class_columns(d, i, files.len(), |c| {
            let options = LoadOptions {
                one_vs_rest: Some(c),
                ..Default::default()
            };
            class_scores(name, parse_bytes(name, bytes, &options).ok()?)
        })
    };
    Ok(multiclass(d, o, columns))
}

fn number(v: Option<f64>) -> String {
    v.map_or("—".into(), |v| format!("{v:.4}"))
}

/// The binary diagnostics as text.
pub fn binary_text(models: &[BinaryModel], o: &Options) -> String {
    let mut s = String::new();
    for m in models {
        s.push_str(&format!(
            "{} ({} rows, {} positive)\n",
            m.name, m.rows, m.positives
        ));
        match &m.calibration {
            Some(c) => {
                s.push_str(&format!(
                    "  calibration, {} {} bins (empty bins dropped): ECE {:.4}  MCE {:.4}\n",
                    o.bins,
                    o.strategy.name(),
                    c.ece,
                    c.mce
                ));
                s.push_str(&format!(
                    "  Brier {} of the probabilities; of the binned probabilities (each its bin's mean p) {:.4} = reliability {:.4} − resolution {:.4} + uncertainty {:.4}\n",
                    number(m.brier),
                    c.brier_binned,
                    c.reliability,
                    c.resolution,
                    c.uncertainty
                ));
                s.push_str("    bin                  rows  positives  mean p  fraction positive\n");
                for b in &c.bins {
                    s.push_str(&format!(
                        "    ({:.4}, {:.4}]  {:>8} {:>10}  {:.4}  {:.4}\n",
                        b.lo, b.hi, b.rows, b.positives, b.mean_predicted, b.fraction_positive
                    ));
                }
            }
            None => s.push_str("  calibration: the scores are not probabilities in [0, 1] (--logits if they are logits)\n"),
        }
        if let Some((ks, t)) = m.ks {
            s.push_str(&format!("  KS {ks:.4} at threshold {t}\n"));
        }
        for (q, g, l) in &m.top {
            s.push_str(&format!(
                "  top {q:>2}%: {:.4} of the positives, lift {l:.4}\n",
                g
            ));
        }
        s.push_str(&format!(
            "  operating points (positive iff score {} threshold)\n",
            o.rule.name()
        ));
        for p in &m.operating_points {
            let at = match (p.threshold, p.confusion) {
                (Some(t), Some(c)) => {
                    format!(
                        "threshold {t}  TP {} FP {} FN {} TN {}",
                        c.tp, c.fp, c.fn_, c.tn
                    )
                }
                _ => "no threshold reaches it".into(),
            };
            s.push_str(&format!(
                "    {:<20} {:<7} {at}  ({})\n",
                p.name,
                number(p.value),
                p.target
            ));
        }
    }
    s
}

/// The multi-class diagnostics as text.
pub fn multiclass_text(models: &[MulticlassModel]) -> String {
    let mut s = String::new();
    for m in models {
        let r = &m.report;
        s.push_str(&format!(
            "{} ({} rows)\n  class        precision  recall  f1      support\n",
            m.name, r.rows
        ));
        for (line, name) in r.classes.iter().zip(&m.class_names) {
            s.push_str(&format!(
                "  {:<12} {:<10} {:<7} {:<7} {}\n",
                name,
                number(line.precision),
                number(line.recall),
                number(line.f1),
                line.support
            ));
        }
        s.push_str(&format!("  accuracy {:.4}\n", r.accuracy));
        for (label, avg) in [("macro avg", r.macro_avg), ("weighted avg", r.weighted_avg)] {
            s.push_str(&format!(
                "  {label:<12} {:<10} {:<7} {:<7}\n",
                number(avg[0]),
                number(avg[1]),
                number(avg[2])
            ));
        }
        if let Some(auc) = m.roc_auc {
            s.push_str(&format!(
                "  ROC AUC one-vs-rest macro {} weighted {}; one-vs-one macro {} weighted {}\n",
                number(auc[0]),
                number(auc[1]),
                number(auc[2]),
                number(auc[3])
            ));
        }
        if !m.per_class.is_empty() {
            s.push_str("  each class against the rest (its column as the scores)\n  class        positives  ROC AUC  AP       ECE      MCE      Brier    KS\n");
            for c in &m.per_class {
                s.push_str(&format!(
                    "  {:<12} {:<10} {:<8} {:<8} {:<8} {:<8} {:<8} {}\n",
                    c.class,
                    c.positives,
                    number(c.roc_auc),
                    number(c.average_precision),
                    number(c.ece),
                    number(c.mce),
                    number(c.brier),
                    number(c.ks)
                ));
            }
        }
        s.push_str("  confusion matrix (rows: true class, columns: predicted)\n");
        for (row, name) in m.confusion_matrix.iter().zip(&m.class_names) {
            let cells: Vec<String> = row.iter().map(|c| c.to_string()).collect();
            s.push_str(&format!("  {:<12} {}\n", name, cells.join(" ")));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::{groups_of, Options};

    #[test]
    fn groups_are_read_from_the_options_text_alone() {
        let text = "bins:15;group:a=fold*,b=seed?*;strategy:quantile;group:c=x";
        let want = [("a", "fold*"), ("b", "seed?*"), ("c", "x")]
            .map(|(n, p)| (n.to_string(), p.to_string()));
        assert_eq!(groups_of(text), want);
        assert_eq!(Options::from_text(text).groups, want);
        // one bad pair: none, as the panel reads it
        assert_eq!(groups_of("group:a=fold*,b"), vec![]);
        assert_eq!(groups_of("bins:3"), vec![]);
    }

    #[test]
    fn options_travel_as_text() {
        let mut o = Options::default();
        assert_eq!(o.to_text(), "");
        assert!(
            o.set("bins", "15") && o.set("strategy", "quantile") && o.set("prevalence", "0.02")
        );
        assert!(o.set("group", "a=model_a*, b=model_b_seed*"));
        assert!(
            !o.set("bins", "0")
                && !o.set("recall", "2")
                && !o.set("group", "a")
                && !o.set("what", "1")
        );
        let text = o.to_text();
        assert_eq!(
            text,
            "bins:15;strategy:quantile;prevalence:0.02;group:a=model_a*;group:b=model_b_seed*"
        );
        let back = Options::from_text(&text);
        assert_eq!(back.to_text(), text);
        assert_eq!(back.groups.len(), 2);
        // damaged or foreign pairs are skipped
        assert_eq!(
            Options::from_text("bins:x;nonsense;beta:-1;tpr:0.5").to_text(),
            "tpr:0.5"
        );
    }
}
