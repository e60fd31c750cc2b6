//! The page's significance tests, run in a loading worker: the page sends
//! every shown model's per-unit values ([`Request`], built from its
//! [`Report`]), the worker answers with the marks and intervals of the
//! metric table and the Compare view's panel ([`answer`]). The page's own
//! wasm holds none of the tests.

use super::{adjust_group, adjust_present, Comparison, Options, Test};
use crate::core::evaluate::Report;
use crate::core::stats::{self, Correction, Paired};
use crate::core::Named;

pub use super::settings::{Request, Settings, Units, CI_BOOTSTRAP_UNITS, CI_RESAMPLES};

/// Random sign flips of the randomization test in the page, resamples of
/// its bootstrap test (the CLI's defaults).
pub const RESAMPLES: u64 = 10_000;
pub const BOOTSTRAPS: u64 = 1_000;
/// A mean's 95% interval as the metric table shows it (`value [lo, hi]`,
/// the Compare card's "95% intervals"): over `values`' defined units, the
/// percentile bootstrap ([`stats::bootstrap_ci`], `resamples`, `seed`) up
/// to [`CI_BOOTSTRAP_UNITS`] units, Student's t beyond; with whether it is
/// the bootstrap's. `rankscope compare` and Python's `compare` print the
/// same (`mean_intervals`).
pub fn mean_interval(values: &[f64], resamples: usize, seed: u64) -> Option<(f64, f64, bool)> {
    let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    let bootstrap = finite.len() <= CI_BOOTSTRAP_UNITS;
    let (lo, hi) = if bootstrap {
        stats::bootstrap_ci(&finite, resamples, seed)
    } else {
        stats::t_interval(&finite)
    }?;
    Some((lo, hi, bootstrap))
}

/// The Compare view runs the resampling tests for every model of the group
/// (so their p-values can be adjusted across it) while units × draws stay
/// within this; beyond, for its own model only.
pub const GROUP_DRAWS: u64 = 200_000_000;

/// Whether `column` of `values` has the mean `shown` (within 1e-9, the
/// undefined units left out): a paired test of the per-unit values tests
/// the number the table shows, which is not so for sums (`num_ret`), a
/// geometric mean (`gm_map`) or an F1 of means.
fn is_mean(values: &[f64], shown: Option<f64>) -> bool {
    let Some(shown) = shown else { return false };
    match crate::core::sum::mean(values.iter().copied().filter(|v| v.is_finite())) {
        Some(m) => (m - shown).abs() <= 1e-9 * shown.abs().max(1.0),
        None => false,
    }
}

/// A request as the page sends it: `bytes` ([`Request::decode`] reads
/// them) and the names it holds, in its order.
pub struct Asked {
    pub bytes: Vec<u8>,
    pub models: Vec<String>,
    pub metrics: Vec<String>,
    pub baseline: usize,
}

/// Bytes of a request: lengths and numbers little-endian, text as UTF-8
/// after its length (written by hand: the page's wasm holds only this).
struct Out(Vec<u8>);

impl Out {
    fn u32(&mut self, v: usize) {
        self.0.extend_from_slice(&(v as u32).to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn text(&mut self, s: &str) {
        self.u32(s.len());
        self.0.extend_from_slice(s.as_bytes());
    }
    fn option(&mut self, s: &Option<String>) {
        self.0.push(s.is_some() as u8);
        self.text(s.as_deref().unwrap_or(""));
    }
    fn settings(&mut self, settings: &Settings) {
        self.0.push(settings.test as u8);
        self.0.push(settings.correction as u8);
        self.u64(settings.alpha.to_bits());
        self.u64(settings.seed);
        self.0.push(settings.ci as u8);
        self.option(&settings.vs);
        self.option(&settings.on);
    }
}

/// Reads what [`Out`] wrote; `None` at the first byte that does not fit.
struct In<'a>(&'a [u8]);

impl In<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, tail) = self.0.split_at(n);
        self.0 = tail;
        Some(head)
    }
    fn u8(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }
    fn u32(&mut self) -> Option<usize> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?) as usize)
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn text(&mut self) -> Option<String> {
        let n = self.u32()?;
        String::from_utf8(self.take(n)?.to_vec()).ok()
    }
    fn option(&mut self) -> Option<Option<String>> {
        let some = self.u8()? == 1;
        let s = self.text()?;
        Some(some.then_some(s))
    }
    fn settings(&mut self) -> Option<Settings> {
        let test = *Test::ALL.get(self.u8()? as usize)?;
        let correction = *<Correction as crate::core::Named>::ALL.get(self.u8()? as usize)?;
        Some(Settings {
            test,
            correction,
            alpha: f64::from_bits(self.u64()?),
            seed: self.u64()?,
            ci: self.u8()? == 1,
            vs: self.option()?,
            on: self.option()?,
        })
    }
    /// A count of items of at least `size` bytes each that the rest can hold.
    fn count(&mut self, size: usize) -> Option<usize> {
        let n = self.u32()?;
        (n.saturating_mul(size) <= self.0.len()).then_some(n)
    }
}

/// The request for `report`'s models against `baseline` (a model name; the
/// first model when absent or unknown), with the Compare view on the
/// settings' model `vs` and metric `on` where they name one (else the first
/// other model and the first metric). `None` with fewer than two models or
/// no column of means.
pub fn ask(report: &Report, baseline: Option<&str>, settings: &Settings) -> Option<Asked> {
    if report.models.len() < 2 {
        return None;
    }
    let metrics: Vec<String> = report
        .columns
        .iter()
        .filter(|c| {
            report.models.iter().all(|m| {
                m.per_unit.get(*c).is_some_and(|v| {
                    v.len() == m.unit_ids.len() && is_mean(v, m.metrics.get(*c).copied().flatten())
                })
            })
        })
        .cloned()
        .collect();
    if metrics.is_empty() {
        return None;
    }
    let models: Vec<String> = report.models.iter().map(|m| m.name.clone()).collect();
    let index = |name: Option<&str>| models.iter().position(|m| Some(m.as_str()) == name);
    let base = index(baseline).unwrap_or(0);
    let model = index(settings.vs.as_deref())
        .filter(|&i| i != base)
        .unwrap_or(if base == 0 { 1 } else { 0 });
    let metric = metrics
        .iter()
        .position(|m| Some(m.as_str()) == settings.on.as_deref())
        .unwrap_or(0);
    let mut out = Out(Vec::new());
    out.text(report.kind.unit());
    out.u32(metrics.len());
    for m in &metrics {
        out.text(m);
    }
    out.u32(models.len());
    for m in &report.models {
        out.text(&m.name);
        out.u32(m.unit_ids.len());
        for id in &m.unit_ids {
            out.text(id);
        }
        for c in &metrics {
            for v in &m.per_unit[c] {
                out.u64(v.to_bits());
            }
        }
    }
    out.u32(base);
    out.settings(settings);
    out.u32(model);
    out.u32(metric);
    Some(Asked {
        bytes: out.0,
        models,
        metrics,
        baseline: base,
    })
}

/// The most rows whose binary models the page compares by DeLong's test:
/// the request copies every score (a 10M-row file of three models would be
/// 250 MB at once in the page's memory); beyond, `rankscope compare`.
pub const AUC_ROWS: usize = 2_000_000;

/// The request for binary models' ROC AUCs against `baseline` (a model
/// name; the first model when absent or unknown) on the same rows
/// ([`AucRequest`]); `None` with fewer than two models or more than
/// [`AUC_ROWS`] rows.
pub fn ask_auc(
    labels: &[bool],
    models: &[(&str, &[f64])],
    baseline: Option<&str>,
    settings: &Settings,
) -> Option<Asked> {
    if models.len() < 2
        || labels.len() > AUC_ROWS
        || models.iter().any(|m| m.1.len() != labels.len())
    {
        return None;
    }
    let base = models
        .iter()
        .position(|m| Some(m.0) == baseline)
        .unwrap_or(0);
    let mut out = Out(Vec::with_capacity(
        labels.len() * (1 + 8 * models.len()) + 64,
    ));
    out.u32(labels.len());
    out.0.extend(labels.iter().map(|&l| l as u8));
    out.u32(models.len());
    for (name, scores) in models {
        out.text(name);
        // little-endian, as every target of the page is
        out.0.extend_from_slice(bytemuck::cast_slice(scores));
    }
    out.u32(base);
    out.settings(settings);
    Some(Asked {
        bytes: out.0,
        models: models.iter().map(|m| m.0.to_string()).collect(),
        metrics: vec![crate::core::registry::DELONG.into()],
        baseline: base,
    })
}

/// A request of [`ask_auc`], as the worker reads it.
#[derive(Debug)]
pub struct AucRequest {
    pub data: crate::core::evaluate::BinaryData,
    pub baseline: usize,
    pub settings: Settings,
}

impl AucRequest {
    /// The request in `bytes` ([`ask_auc`]'s), `None` when they do not hold
    /// one (any bytes are safe to read).
    pub fn decode(bytes: &[u8]) -> Option<AucRequest> {
        let mut r = In(bytes);
        let rows = r.count(1)?;
        let labels = r.take(rows)?.iter().map(|&b| b == 1).collect();
        let mut models = Vec::new();
        for _ in 0..r.count(4)? {
            let name = r.text()?;
            let scores = r
                .take(rows.checked_mul(8)?)?
                .chunks_exact(8)
                .map(|b| f64::from_le_bytes(b.try_into().unwrap_or_default()))
                .collect();
            models.push((name, scores));
        }
        let baseline = r.u32()?;
        let settings = r.settings()?;
        (r.0.is_empty() && baseline < models.len()).then_some(AucRequest {
            data: crate::core::evaluate::BinaryData {
                labels,
                models,
                curves: Default::default(),
            },
            baseline,
            settings,
        })
    }

    /// [`answer_auc`] of this request.
    pub fn answer(&self) -> Answer {
        answer_auc(&self.data, self.baseline, &self.settings)
    }
}

impl Request {
    /// [`ask`]'s request, as the worker reads it.
    pub fn from_report(
        report: &Report,
        baseline: Option<&str>,
        settings: &Settings,
    ) -> Option<Request> {
        Request::decode(&ask(report, baseline, settings)?.bytes)
    }

    /// The request in `bytes` ([`ask`]'s), `None` when they do not hold one
    /// (any bytes are safe to read).
    pub fn decode(bytes: &[u8]) -> Option<Request> {
        let mut r = In(bytes);
        let unit = r.text()?;
        let metrics = (0..r.count(4)?)
            .map(|_| r.text())
            .collect::<Option<Vec<_>>>()?;
        let mut models = Vec::new();
        for _ in 0..r.count(8)? {
            let name = r.text()?;
            let ids = (0..r.count(4)?)
                .map(|_| r.text())
                .collect::<Option<Vec<_>>>()?;
            let mut values = Vec::new();
            for _ in &metrics {
                let bytes = r.take(ids.len().checked_mul(8)?)?;
                values.push(
                    bytes
                        .chunks_exact(8)
                        .map(|b| f64::from_le_bytes(b.try_into().unwrap_or_default()))
                        .collect(),
                );
            }
            models.push(Units { name, ids, values });
        }
        let baseline = r.u32()?;
        let settings = r.settings()?;
        let focus = Some((r.u32()?, r.u32()?));
        (r.0.is_empty()).then_some(Request {
            unit,
            metrics,
            models,
            baseline,
            settings,
            focus,
        })
    }

    /// For each model, the baseline's index of each of its units
    /// ([`super::alignment`]), built once per request.
    pub fn alignment(&self) -> Vec<Vec<Option<u32>>> {
        let base = &self.models[self.baseline].ids;
        super::alignment(base, self.models.iter().map(|m| &m.ids[..]))
    }

    /// The baseline's and `model`'s values of metric `j` on the units both
    /// have with a defined value, and those units' ids.
    pub fn paired(&self, model: usize, j: usize) -> (Vec<f64>, Vec<f64>, Vec<&str>) {
        self.paired_at(&self.alignment()[model], model, j)
    }

    /// [`Request::paired`] with `model`'s row of [`Request::alignment`].
    pub fn paired_at(
        &self,
        align: &[Option<u32>],
        model: usize,
        j: usize,
    ) -> (Vec<f64>, Vec<f64>, Vec<&str>) {
        let m = &self.models[model];
        super::pair(
            &self.models[self.baseline].values[j],
            align,
            &m.ids,
            &m.values[j],
        )
    }

    /// Whether every index and column fits (a request decoded from bytes
    /// is answered only then).
    pub fn is_sound(&self) -> bool {
        self.models.len() >= 2
            && self.baseline < self.models.len()
            && self.models.iter().all(|m| {
                m.values.len() == self.metrics.len()
                    && m.values.iter().all(|v| v.len() == m.ids.len())
            })
            && self.settings.alpha.is_finite()
    }

    fn options(&self) -> Options {
        Options {
            baseline: None,
            resamples: RESAMPLES,
            bootstraps: BOOTSTRAPS,
            seed: self.settings.seed,
            correction: self.settings.correction,
            test: self.settings.test,
            alpha: self.settings.alpha,
        }
    }
}

/// The page's comparison of binary models (the worker's `delong` job): each
/// model's ROC AUC against the baseline's (`models[baseline]`) on the same
/// rows by DeLong's test ([`super::compare_auc`], adjusted under the
/// settings' correction), in [`Answer::cells`]' layout for the one metric
/// `roc_auc`: the AUC difference, p, adjusted p and the model's DeLong 95%
/// interval (the baseline's too, without a p); and the Compare card of the
/// focused model (`settings.vs`, else the first other one). Empty for
/// fewer than two models or rows of one class.
pub fn answer_auc(
    data: &crate::core::evaluate::BinaryData,
    baseline: usize,
    settings: &Settings,
) -> Answer {
    let models = &data.models;
    let Some(base) = models.get(baseline).filter(|_| models.len() > 1) else {
        return Answer::default();
    };
    let options = Options {
        baseline: Some(base.0.clone()),
        correction: settings.correction,
        ..Options::default()
    };
    let Ok(comparisons) = super::compare_auc(data, &options) else {
        return Answer::default();
    };
    let mut cells = vec![f64::NAN; models.len() * CELL];
    for (i, (name, _)) in models.iter().enumerate() {
        let at = i * CELL;
        if i == baseline {
            if let Some(c) = comparisons.first() {
                (cells[at + 3], cells[at + 4]) = c.delong.ci_a;
            }
        } else if let Some(c) = comparisons.iter().find(|c| &c.model == name) {
            let d = &c.delong;
            cells[at..at + CELL].copy_from_slice(&[
                d.auc_b - d.auc_a,
                d.p,
                c.adjusted,
                d.ci_b.0,
                d.ci_b.1,
            ]);
        }
    }
    let focus = comparisons
        .iter()
        .position(|c| Some(&c.model) == settings.vs.as_ref())
        .unwrap_or(0);
    let names: Vec<&str> = models.iter().map(|m| m.0.as_str()).collect();
    Answer {
        cells,
        html: super::html::auc_panel(&comparisons, focus, &names, settings),
    }
}

/// Values per cell of [`Answer::cells`].
pub const CELL: usize = 5;

/// The worker's answer for one report, as the page keeps it: per model
/// and metric a cell of [`CELL`] numbers (the table's marks read it).
#[derive(Debug, PartialEq)]
pub struct Tested {
    pub kind: crate::core::registry::Kind,
    pub baseline: String,
    pub models: Vec<String>,
    pub metrics: Vec<String>,
    pub cells: Vec<f64>,
    pub html: String,
}

impl Tested {
    /// Marks `t`'s cells ▲ / ▼ by these tests under `settings` (each
    /// adjusted p below α, the sign of its mean difference), with the note
    /// naming the test, correction, α and baseline: what every export carries.
    pub fn mark(&self, t: &mut crate::report::Table, settings: &Settings) {
        t.marks = (t.rows.iter())
            .map(|(name, _)| {
                (t.columns.iter())
                    .map(|c| {
                        self.cell(name, c)
                            .map_or(0, |x| super::mark(x[2], x[0], settings.alpha))
                    })
                    .collect()
            })
            .collect();
        let test = if self.kind == crate::core::registry::Kind::Binary {
            super::DELONG
        } else {
            settings.test.title()
        };
        t.marks_note = super::marks_note(
            test,
            settings.correction,
            settings.alpha,
            &self.baseline,
            self.kind.unit(),
        );
    }

    /// Model `model`'s cell of `metric`: mean difference, p, adjusted p,
    /// interval low and high.
    pub fn cell(&self, model: &str, metric: &str) -> Option<&[f64]> {
        let i = self.models.iter().position(|m| m == model)?;
        let j = self.metrics.iter().position(|m| m == metric)?;
        let cell = CELL;
        let at = (i * self.metrics.len() + j) * cell;
        self.cells.get(at..at + cell)
    }
}

/// The worker's answer.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Answer {
    /// For model `i` and metric `j` (the request's order), at
    /// `(i * metrics + j) * CELL`: the paired mean difference against the
    /// baseline, the test's p, its adjusted p (NaN for the baseline or when
    /// undefined), and the mean's bootstrap 95% interval (NaN unless asked).
    pub cells: Vec<f64>,
    /// The Compare view (see [`super::html::panel`]); empty without a focus.
    pub html: String,
}

/// Runs the request: the chosen test for every model and metric, adjusted
/// per metric across the models; each mean's interval when asked; every
/// test for the focus metric. `progress(done, total)` is called after each
/// step.
/// The randomized Tukey HSD test of the baseline and `others` on metric
/// `j`, on the units every one of them has ([`super::common_units`]).
fn tukey(
    req: &Request,
    align: &[Vec<Option<u32>>],
    others: &[usize],
    j: usize,
    options: &Options,
) -> Option<stats::TukeyHsd> {
    let base = &req.models[req.baseline].values[j];
    let rest: Vec<(&[Option<u32>], &[f64])> = others
        .iter()
        .map(|&i| (&align[i][..], &req.models[i].values[j][..]))
        .collect();
    let columns = super::common_units(base, &rest);
    let refs: Vec<&[f64]> = columns.iter().map(Vec::as_slice).collect();
    stats::tukey_hsd(&refs, options.resamples, options.seed)
}

pub fn answer(req: &Request, progress: &mut dyn FnMut(usize, usize)) -> Answer {
    if !req.is_sound() {
        return Answer::default();
    }
    let (n_models, n_metrics) = (req.models.len(), req.metrics.len());
    let s = &req.settings;
    let mut cells = vec![f64::NAN; n_models * n_metrics * CELL];
    let focus_steps = req.focus.map_or(0, |_| n_models - 1);
    let total =
        n_metrics * (n_models - 1) + if s.ci { n_metrics * n_models } else { 0 } + focus_steps;
    let mut done = 0;
    let options = req.options();
    let align = req.alignment();
    let others: Vec<usize> = (0..n_models).filter(|&i| i != req.baseline).collect();
    for j in 0..n_metrics {
        let mut raw = vec![None; n_models];
        // Tukey HSD tests the group at once, family-wise: no correction after
        let family = (s.test == Test::Tukey).then(|| tukey(req, &align, &others, j, &options));
        for (i, p) in raw.iter_mut().enumerate() {
            if i == req.baseline {
                continue;
            }
            let (a, b, _) = req.paired_at(&align[i], i, j);
            let paired = Paired::new(&a, &b);
            cells[(i * n_metrics + j) * CELL] = paired.mean_diff;
            *p = match &family {
                Some(f) => others
                    .iter()
                    .position(|&k| k == i)
                    .and_then(|k| f.as_ref().map(|f| f.pair(0, k + 1).p)),
                None => s.test.p_value(&a, &b, &paired, &options),
            };
            done += 1;
            progress(done, total);
        }
        let correction = if family.is_some() {
            Correction::None
        } else {
            s.correction
        };
        for (i, (p, adj)) in raw.iter().zip(adjust_present(&raw, correction)).enumerate() {
            let at = (i * n_metrics + j) * CELL;
            cells[at + 1] = p.unwrap_or(f64::NAN);
            cells[at + 2] = adj.unwrap_or(f64::NAN);
        }
        if s.ci {
            for (i, m) in req.models.iter().enumerate() {
                if let Some((lo, hi, _)) = mean_interval(&m.values[j], CI_RESAMPLES, s.seed) {
                    let at = (i * n_metrics + j) * CELL;
                    cells[at + 3] = lo;
                    cells[at + 4] = hi;
                }
                done += 1;
                progress(done, total);
            }
        }
    }
    let html = match req.focus {
        Some((model, j)) if model < n_models && model != req.baseline && j < n_metrics => {
            let pairs: Vec<_> = others
                .iter()
                .map(|&i| req.paired_at(&align[i], i, j))
                .collect();
            let draws: u64 = pairs
                .iter()
                .map(|p| p.0.len() as u64 * (RESAMPLES + BOOTSTRAPS))
                .sum();
            let whole = draws <= GROUP_DRAWS;
            let focus = others.iter().position(|&i| i == model).unwrap_or(0);
            let base = &req.models[req.baseline].name;
            let mut group = Vec::new();
            for (&i, (a, b, _)) in others.iter().zip(&pairs) {
                let (metric, name) = (&req.metrics[j], &req.models[i].name);
                group.push(if whole || i == model {
                    Comparison::new(metric, name, base, a, b, &options)
                } else {
                    Comparison::quick(metric, name, base, a, b)
                });
                done += 1;
                progress(done, total);
            }
            if whole || s.test == Test::Tukey {
                if let Some(f) = tukey(req, &align, &others, j, &options) {
                    for (k, c) in group.iter_mut().enumerate() {
                        c.tukey = Some(f.pair(0, k + 1));
                    }
                }
            }
            adjust_group(&mut group, s.correction);
            if !whole {
                // adjusted across the group only where every model has the
                // test: the table's test has it (from the cells)
                for (t, test) in [(3, Test::Randomization), (4, Test::Bootstrap)] {
                    group[focus].adjusted[t] = (s.test == test)
                        .then(|| cells[(model * n_metrics + j) * CELL + 2])
                        .filter(|p| p.is_finite());
                }
            }
            let (a, b, ids) = &pairs[focus];
            r#"<section class="card compare" id="compare"><h2>Compare</h2>"#.to_string()
                + &super::html::controls(req, (model, j))
                + &super::html::panel(&super::html::Focus {
                    comparison: &group[focus],
                    group: group.len(),
                    a,
                    b,
                    ids,
                    unit: &req.unit,
                    settings: s,
                    resampled_group: whole,
                })
                + "</section>"
        }
        _ => String::new(),
    };
    Answer { cells, html }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(models: Vec<Units>, settings: Settings) -> Request {
        Request {
            unit: "query".into(),
            metrics: vec!["m".into()],
            models,
            baseline: 0,
            settings,
            focus: Some((1, 0)),
        }
    }

    fn units(name: &str, ids: &[&str], v: &[f64]) -> Units {
        Units {
            name: name.into(),
            ids: ids.iter().map(|s| s.to_string()).collect(),
            values: vec![v.to_vec()],
        }
    }

    fn spread(n: usize, step: usize, shift: f64) -> Vec<f64> {
        (0..n)
            .map(|i| (i % 11) as f64 / 11.0 + ((i * step) % 5) as f64 * 0.01 - shift)
            .collect()
    }

    #[test]
    fn beyond_the_draw_budget_only_the_compared_model_is_resampled() {
        // 3 models against the baseline on 10,000 units: 3 × 10,000 × 11,000 draws > GROUP_DRAWS
        let n = 10_000;
        let ids: Vec<String> = (0..n).map(|i| format!("q{i}")).collect();
        let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
        let models = vec![
            units("a", &ids, &spread(n, 0, 0.0)),
            units("b", &ids, &spread(n, 7, 0.018)),
            units("c", &ids, &spread(n, 3, 0.03)),
            units("d", &ids, &spread(n, 2, 0.02)),
        ];
        let mut req = request(models, Settings::default());
        req.focus = Some((1, 0));
        let ans = answer(&req, &mut |_, _| {});
        // the table's test (t) is adjusted across the models, the panel agrees
        let (p, adjusted) = (ans.cells[CELL + 1], ans.cells[CELL + 2]);
        assert!(ans.html.contains(&format!(
            r#"data-test="t" data-p="{p}" data-p-adjusted="{adjusted}""#
        )));
        // the resampling tests ran for b alone: raw p-values, no adjusted ones
        for test in ["randomization", "bootstrap"] {
            let row = ans
                .html
                .split(&format!(r#"data-test="{test}""#))
                .nth(1)
                .unwrap();
            assert!(row.starts_with(r#" data-p="0."#), "{test}: {}", &row[..80]);
            let adjusted = row.split(r#"data-p-adjusted=""#).nth(1).unwrap();
            assert!(adjusted.starts_with('"'), "{test}: {}", &row[..80]);
        }
        assert!(ans
            .html
            .contains("for every model only as the table's test"));
    }

    #[test]
    fn beyond_twenty_thousand_units_a_mean_has_its_t_interval() {
        let n = CI_BOOTSTRAP_UNITS + 1;
        let ids: Vec<String> = (0..n).map(|i| format!("q{i}")).collect();
        let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
        let (a, b) = (spread(n, 0, 0.0), spread(n, 7, 0.018));
        let settings = Settings {
            ci: true,
            ..Default::default()
        };
        let mut req = request(vec![units("a", &ids, &a), units("b", &ids, &b)], settings);
        req.focus = None;
        let ans = answer(&req, &mut |_, _| {});
        for (i, x) in [a, b].iter().enumerate() {
            let (lo, hi) = stats::t_interval(x).unwrap();
            assert_eq!((ans.cells[i * CELL + 3], ans.cells[i * CELL + 4]), (lo, hi));
        }
    }

    #[test]
    fn binary_models_are_compared_by_delong_on_their_rows() {
        let labels = [true, false, true, true, false, false, true, false];
        let a = [0.9, 0.3, 0.4, 0.8, 0.5, 0.1, 0.7, 0.6];
        let b = [0.6, 0.2, 0.9, 0.3, 0.1, 0.7, 0.8, 0.4];
        let c = [0.1, 0.9, 0.2, 0.95, 0.8, 0.7, 0.4, 0.6];
        let models: [(&str, &[f64]); 3] = [("a", &a), ("b", &b), ("c", &c)];
        let settings = Settings {
            vs: Some("c".into()),
            ..Default::default()
        };
        let asked = ask_auc(&labels, &models, Some("b"), &settings).unwrap();
        assert_eq!(
            (asked.baseline, &asked.metrics[..]),
            (1, &["roc_auc".to_string()][..])
        );
        let req = AucRequest::decode(&asked.bytes).unwrap();
        assert_eq!(req.data.labels, labels);
        assert_eq!(req.data.models[2], ("c".to_string(), c.to_vec()));
        // any cut of the bytes is refused, not misread
        for cut in [1, 9, asked.bytes.len() - 1] {
            assert!(AucRequest::decode(&asked.bytes[..cut]).is_none());
        }
        let answer = req.answer();
        let owned: Vec<(String, Vec<f64>)> = models
            .iter()
            .map(|(n, s)| (n.to_string(), s.to_vec()))
            .collect();
        let data = crate::core::evaluate::BinaryData {
            labels: labels.to_vec(),
            models: owned,
            curves: Default::default(),
        };
        let options = Options {
            baseline: Some("b".into()),
            ..Options::default()
        };
        let cli = super::super::compare_auc(&data, &options).unwrap();
        for (i, name) in ["a", "b", "c"].iter().enumerate() {
            let cell = &answer.cells[i * CELL..(i + 1) * CELL];
            match cli.iter().find(|x| x.model == *name) {
                Some(x) => {
                    let want = [
                        x.delong.auc_b - x.delong.auc_a,
                        x.delong.p,
                        x.adjusted,
                        x.delong.ci_b.0,
                        x.delong.ci_b.1,
                    ];
                    assert!(want.iter().all(|v| v.is_finite()), "{want:?}");
                    assert_eq!(cell, want);
                }
                // the baseline: its interval, no p
                None => {
                    assert!(cell[1].is_nan() && cell[2].is_nan());
                    assert_eq!((cell[3], cell[4]), cli[0].delong.ci_a);
                }
            }
        }
        // the card explains c against b
        assert!(
            answer
                .html
                .contains(r#"data-model="c" data-baseline="b" data-metric="roc_auc""#),
            "{}",
            answer.html
        );
        assert!(ask_auc(&labels, &models[..1], None, &settings).is_none());
    }

    #[test]
    fn enum_bytes_are_their_place_in_all() {
        for (i, &t) in Test::ALL.iter().enumerate() {
            assert_eq!(t as usize, i);
        }
        for (i, &c) in Correction::ALL.iter().enumerate() {
            assert_eq!(c as usize, i);
        }
    }

    #[test]
    fn unsound_requests_get_an_empty_answer() {
        let mut req = request(
            vec![units("a", &["q1"], &[0.1]), units("b", &["q1"], &[0.2])],
            Settings::default(),
        );
        req.models[1].values[0].push(0.3);
        assert_eq!(answer(&req, &mut |_, _| {}), Answer::default());
        req.models[1].values[0].pop();
        req.baseline = 2;
        assert_eq!(answer(&req, &mut |_, _| {}), Answer::default());
        req.baseline = 0;
        assert_eq!(answer(&req, &mut |_, _| {}).cells.len(), 2 * CELL);
    }

    #[test]
    fn units_pair_by_id_and_skip_undefined_values() {
        let req = request(
            vec![
                units("a", &["q1", "q2", "q3", "q4"], &[0.1, 0.2, f64::NAN, 0.4]),
                units("b", &["q4", "q3", "q2", "q9"], &[0.5, 0.6, 0.7, 0.8]),
            ],
            Settings::default(),
        );
        let (a, b, ids) = req.paired(1, 0);
        assert_eq!(
            (a, b, ids),
            (vec![0.4, 0.2], vec![0.5, 0.7], vec!["q4", "q2"])
        );
    }

    #[test]
    fn cells_hold_the_chosen_test_and_its_adjustment_across_models() {
        let ids: Vec<String> = (0..30).map(|i| format!("q{i}")).collect();
        let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
        let base: Vec<f64> = (0..30).map(|i| (i % 7) as f64 / 7.0).collect();
        let better: Vec<f64> = base
            .iter()
            .enumerate()
            .map(|(i, v)| v + 0.05 + (i % 3) as f64 * 0.01)
            .collect();
        let noise: Vec<f64> = base
            .iter()
            .enumerate()
            .map(|(i, v)| v + if i % 2 == 0 { 0.01 } else { -0.012 })
            .collect();
        for test in Test::ALL.iter().copied() {
            let settings = Settings {
                test,
                ci: true,
                ..Default::default()
            };
            let mut req = request(
                vec![
                    units("a", &ids, &base),
                    units("b", &ids, &better),
                    units("c", &ids, &noise),
                ],
                settings,
            );
            req.focus = Some((2, 0));
            let mut steps = Vec::new();
            let ans = answer(&req, &mut |d, t| steps.push((d, t)));
            assert_eq!(steps.last(), Some(&(2 + 3 + 2, 7)));
            let p_b = ans.cells[CELL + 1];
            let p_c = ans.cells[2 * CELL + 1];
            let group = compare_group(&req);
            let raw = [group[0].p(test), group[1].p(test)];
            if test == Test::McNemar {
                // values that are not hits (0/1): McNemar has no p
                assert!(raw == [None, None] && p_b.is_nan() && p_c.is_nan());
                continue;
            }
            assert_eq!(p_b, raw[0].unwrap(), "{test:?}");
            assert_eq!(p_c, raw[1].unwrap(), "{test:?}");
            // Tukey HSD's p-values are family-wise as they are
            let correction = if test == Test::Tukey {
                Correction::None
            } else {
                Correction::Holm
            };
            let adjusted = stats::adjust(&[p_b, p_c], correction);
            assert_eq!(ans.cells[CELL + 2], adjusted[0]);
            assert_eq!(ans.cells[2 * CELL + 2], adjusted[1]);
            assert!(
                ans.cells[1].is_nan() && ans.cells[2].is_nan(),
                "the baseline has no p"
            );
            assert!((ans.cells[CELL] - 0.06).abs() < 1e-12);
            // every mean has its interval, around the mean
            for i in 0..3 {
                let (lo, hi) = (ans.cells[i * CELL + 3], ans.cells[i * CELL + 4]);
                let mean = req.models[i].values[0].iter().sum::<f64>() / 30.0;
                assert!(lo < mean && mean < hi, "{lo} {mean} {hi}");
            }
            assert!(ans.html.contains("c against a"), "{}", &ans.html[..200]);
        }
    }

    fn compare_group(req: &Request) -> Vec<Comparison> {
        let mut group: Vec<Comparison> = (1..req.models.len())
            .map(|i| {
                let (a, b, _) = req.paired(i, 0);
                Comparison::new("m", &req.models[i].name, "a", &a, &b, &req.options())
            })
            .collect();
        // every model has every unit here
        let columns: Vec<Vec<f64>> = req.models.iter().map(|m| m.values[0].clone()).collect();
        crate::compare::tukey_group(&mut group, &columns, &req.options());
        group
    }

    #[test]
    fn only_columns_of_means_are_tested() {
        use crate::core::evaluate::{ModelReport, Report};
        use crate::core::registry::Kind;
        let model = |name: &str, v: Vec<f64>, sum: bool| {
            let mut m = ModelReport {
                name: name.into(),
                unit_ids: vec!["q1".into(), "q2".into()],
                ..Default::default()
            };
            let mean = (v[0] + v[1]) / 2.0;
            m.metrics.insert("map".into(), Some(mean));
            m.metrics
                .insert("num_ret".into(), Some(if sum { v[0] + v[1] } else { mean }));
            m.per_unit.insert("map".into(), v.clone());
            m.per_unit.insert("num_ret".into(), v);
            m
        };
        let report = Report {
            kind: Kind::Ranking,
            columns: vec!["map".into(), "num_ret".into()],
            models: vec![
                model("a", vec![0.2, 0.4], true),
                model("b", vec![0.3, 0.9], true),
            ],
            conventions: Default::default(),
            warnings: vec![],
        };
        let req = Request::from_report(&report, Some("b"), &Settings::default()).unwrap();
        assert_eq!(req.metrics, vec!["map"]);
        assert_eq!((req.baseline, req.focus), (1, Some((0, 0))));
        assert_eq!(req.unit, "query");
        assert_eq!(req.models[1].values, vec![vec![0.3, 0.9]]);
        // every cut of the bytes is refused, not read past
        let settings = Settings {
            vs: Some("a".into()),
            ..Default::default()
        };
        let asked = ask(&report, None, &settings).unwrap();
        assert_eq!(
            (asked.models, asked.metrics, asked.baseline),
            (
                vec!["a".to_string(), "b".into()],
                vec!["map".to_string()],
                0
            )
        );
        let whole = Request::decode(&asked.bytes).unwrap();
        assert_eq!(whole.settings, settings);
        for cut in 0..asked.bytes.len() {
            assert_eq!(Request::decode(&asked.bytes[..cut]), None);
        }
    }
}
