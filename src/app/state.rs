//! The page's state: signals for what is loaded and the conventions in force,
//! memos for everything derived (prepared runs, curves, reports).

use std::sync::Arc;

use leptos::prelude::*;

use crate::core::curves::CurveMetric;
use crate::core::evaluate::{self, BinaryPrepared, Conventions, Report};
use crate::core::ranking::{self, PreparedRun};
use crate::core::registry::{self, Kind, MetricId};
use crate::parse::Workspace;
use crate::session::ViewState;

use super::util;
pub use crate::compare::page::Tested;

/// Metric columns from their `kind.base` names (unknown names are skipped).
pub fn bases_of(metrics: &[String]) -> Vec<(Kind, &'static str)> {
    metrics
        .iter()
        .filter_map(|m| {
            let (kind, base) = m.split_once('.')?;
            registry::METRICS
                .iter()
                .find(|info| info.base == base && kind_name(info.kind) == kind)
                .map(|info| (info.kind, info.base))
        })
        .collect()
}

pub fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Ranking => "ranking",
        Kind::Binary => "binary",
        Kind::Multiclass => "multiclass",
        Kind::Ratings => "ratings",
    }
}

/// Shared, cheaply cloned value; equal only to itself (memos never deep-compare).
#[derive(Debug)]
pub struct Shared<T>(pub Arc<T>);

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared(self.0.clone())
    }
}

impl<T> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl<T> std::ops::Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Info,
    Warning,
    Error,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    pub id: u64,
    pub level: Level,
    pub title: String,
    pub lines: Vec<String>,
    /// Shown before the latest drop: folded to its title line.
    pub read: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    pub file: String,
    pub bytes: u64,
    pub total: u64,
    pub rows: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Theme {
    System,
    Light,
    Dark,
}

/// What an explanation is asked for: a metric of a model, over all queries or one.
#[derive(Clone, Debug, PartialEq)]
pub struct Target {
    pub kind: Kind,
    pub model: String,
    pub metric: String,
    pub query: Option<String>,
}

/// Every signal of the page, passed by context (Copy: it is a bundle of handles).
#[derive(Clone, Copy)]
pub struct AppState {
    pub ws: RwSignal<Workspace>,
    pub conv: RwSignal<Conventions>,
    pub messages: RwSignal<Vec<Message>>,
    pub progress: RwSignal<Option<Progress>>,
    pub cancel: RwSignal<bool>,
    pub tab: RwSignal<Option<Kind>>,
    pub example_loaded: RwSignal<bool>,
    pub theme: RwSignal<Theme>,
    /// Hidden models, as "kind/name".
    pub hidden: RwSignal<Vec<String>>,
    pub baseline: RwSignal<Option<String>>,
    /// Differences from the baseline shown.
    pub diff: RwSignal<bool>,
    /// Metric columns shown, per kind, as catalogue base ids.
    pub bases: RwSignal<Vec<(Kind, &'static str)>>,
    pub cutoffs: RwSignal<Vec<usize>>,
    /// The elbow chart: metric, last cutoff (0: the longest list), faint per-query lines.
    pub curve: RwSignal<CurveMetric>,
    pub max_p: RwSignal<usize>,
    pub per_query: RwSignal<bool>,
    /// The open explanation, if any.
    pub explain: RwSignal<Option<Target>>,
    /// Files loaded from URLs of the page address (a link reloads them).
    pub url_files: RwSignal<Vec<String>>,
    pub next_message: StoredValue<u64>,
    /// The significance tests' settings, the Compare view's model and metric.
    pub tests: RwSignal<crate::compare::page::Settings>,
    /// The Diagnostics panel's options (`crate::diagnose::Options::to_text`)
    /// and the panel, as the worker wrote it (`binary_view::Diagnostics`).
    pub diagnose: RwSignal<String>,
    pub diagnostics: RwSignal<String>,
    /// The worker's last answer for the shown report, and its progress
    /// (`bytes`: steps done of `total`).
    pub tested: RwSignal<Option<Shared<Tested>>>,
    pub testing: RwSignal<Option<Progress>>,
    // derived
    /// The runs prepared in trec_eval's order: the same under every tie rule.
    pub base: Memo<Shared<Vec<PreparedRun>>>,
    /// The runs under the chosen tie rule.
    pub prepared: Memo<Shared<Vec<PreparedRun>>>,
    pub binary: Memo<Shared<Vec<BinaryPrepared>>>,
}

impl AppState {
    pub fn new() -> AppState {
        let ws = RwSignal::new(Workspace::default());
        let conv = RwSignal::new(Conventions::default());
        // prepared once per data and query set in trec_eval's order; a tie-rule
        // change only re-sorts tie groups (ranking::retie)
        let query_set = Memo::new(move |_| conv.with(|c| c.query_set));
        let ties = Memo::new(move |_| conv.with(|c| c.ties));
        // the conventions that drop documents or queries after the sort
        let refine = Memo::new(move |_| conv.with(|c| c.refine()));
        let base = Memo::new(move |_| {
            let set = query_set.get();
            ws.with(|w| match (&w.ranking, w.has_qrels) {
                (Some(d), true) => {
                    util::mark("rankscope:preparing:ranking");
                    let runs = (0..d.runs.len())
                        .map(|i| ranking::prepare(d, i, ranking::TieRule::Trec, set))
                        .collect();
                    util::mark("rankscope:prepared:ranking");
                    Shared(Arc::new(runs))
                }
                _ => Shared(Arc::new(Vec::new())),
            })
        });
        let prepared = Memo::new(move |_| {
            let rule = ties.get();
            let refine = refine.get();
            let base = base.get();
            if rule == ranking::TieRule::Trec && refine.is_identity() {
                return base;
            }
            ws.with_untracked(|w| {
                let Some(d) = &w.ranking else {
                    return Shared(Arc::new(Vec::new()));
                };
                Shared(Arc::new(
                    base.0
                        .iter()
                        .zip(&d.runs)
                        .map(|(p, run)| {
                            let p = ranking::retie(p, run, rule);
                            ranking::refine(&p, d, run, refine)
                        })
                        .collect(),
                ))
            })
        });

        // the sort per model depends on the data alone; a change of the score
        // scale recomputes only log loss and Brier
        let curves = Memo::new(move |_| {
            ws.with(|w| {
                util::mark("rankscope:sorting:binary");
                let curves = w
                    .binary
                    .as_ref()
                    .map(evaluate::binary_curves)
                    .unwrap_or_default();
                util::mark("rankscope:sorted:binary");
                Shared(Arc::new(curves))
            })
        });
        let logits = Memo::new(move |_| conv.with(|c| c.binary_scores_are_logits));
        let binary = Memo::new(move |_| {
            let logits = logits.get();
            curves.with(|curves| {
                ws.with_untracked(|w| {
                    util::mark("rankscope:summing:binary");
                    let prepared = w
                        .binary
                        .as_ref()
                        .map(|d| evaluate::prepare_binary_with(d, logits, &curves.0))
                        .unwrap_or_default();
                    util::mark("rankscope:summed:binary");
                    Shared(Arc::new(prepared))
                })
            })
        });
        AppState {
            ws,
            conv,
            messages: RwSignal::new(Vec::new()),
            progress: RwSignal::new(None),
            cancel: RwSignal::new(false),
            tab: RwSignal::new(None),
            example_loaded: RwSignal::new(false),
            theme: RwSignal::new(Theme::System),
            hidden: RwSignal::new(Vec::new()),
            baseline: RwSignal::new(None),
            diff: RwSignal::new(true),
            bases: RwSignal::new(bases_of(&ViewState::default().metrics)),
            cutoffs: RwSignal::new(ViewState::default().k),
            curve: RwSignal::new(CurveMetric::Ndcg),
            max_p: RwSignal::new(0),
            per_query: RwSignal::new(false),
            url_files: RwSignal::new(Vec::new()),
            explain: RwSignal::new(None),
            next_message: StoredValue::new(0),
            tests: RwSignal::new(Default::default()),
            diagnose: RwSignal::new(String::new()),
            diagnostics: RwSignal::new(String::new()),
            tested: RwSignal::new(None),
            testing: RwSignal::new(None),
            base,
            prepared,
            binary,
        }
    }

    pub fn say(&self, level: Level, title: impl Into<String>, lines: Vec<String>) {
        let id = self.next_message.get_value();
        self.next_message.set_value(id + 1);
        self.messages.update(|m| {
            m.push(Message {
                id,
                level,
                title: title.into(),
                lines,
                read: false,
            });
            if m.len() > 8 {
                m.remove(0);
            }
        });
    }

    /// A new drop begins: the notices shown so far fold to their title line.
    pub fn fold_messages(&self) {
        self.messages
            .update(|ms| ms.iter_mut().for_each(|m| m.read = true));
    }

    /// The metric ids shown for `kind`: every selected base at every cutoff.
    pub fn columns(&self, kind: Kind) -> Vec<MetricId> {
        registry::table_columns(kind, &self.bases.get(), &self.cutoffs.get())
    }

    /// The report of `kind` for the visible models under the conventions in force.
    pub fn report(&self, kind: Kind) -> Option<Report> {
        let conv = self.conv.get();
        let metrics = self.columns(kind);
        let hidden = self.hidden.get();
        let visible = |name: &str| !hidden.contains(&crate::session::hidden_key(kind, name));
        let mut report = match kind {
            Kind::Ranking => {
                let prepared = self.prepared.get();
                if prepared.is_empty() {
                    return None;
                }
                // the visible runs by reference: never copy the prepared columns
                let runs = prepared.iter().filter(|p| visible(&p.name));
                self.ws.with(|w| {
                    w.ranking
                        .as_ref()
                        .map(|d| evaluate::evaluate_prepared(d, runs, &conv, &metrics))
                })?
            }
            Kind::Binary => {
                let prepared = self.binary.get();
                if prepared.is_empty() {
                    return None;
                }
                let models = prepared.iter().filter(|p| visible(&p.name));
                evaluate::evaluate_binary_prepared(models, &conv, &metrics)
            }
            _ => self.ws.with(|w| {
                w.dataset(kind)
                    .map(|d| evaluate::evaluate(&d, &conv, &metrics))
            })?,
        };
        report.models.retain(|m| visible(&m.name));
        Some(report)
    }

    /// The view as it stands (for the address, a session, a report).
    #[inline(never)]
    pub fn view(&self) -> ViewState {
        let mut bases = self.bases.get();
        bases.dedup();
        ViewState {
            tab: self.tab.get(),
            metrics: bases
                .iter()
                .map(|(k, b)| format!("{}.{b}", kind_name(*k)))
                .collect(),
            k: self.cutoffs.get(),
            hidden: self.hidden.get(),
            baseline: self.baseline.get(),
            diff: self.diff.get(),
            theme: match self.theme.get() {
                Theme::System => "system",
                Theme::Light => "light",
                Theme::Dark => "dark",
            }
            .into(),
            curve: self.curve.get(),
            p: self.max_p.get(),
            per_query: self.per_query.get(),
            files: {
                let from_urls = self.url_files.get();
                if self.example_loaded.get() {
                    Vec::new()
                } else {
                    self.ws.with(|w| {
                        w.files
                            .iter()
                            .filter(|f| !from_urls.contains(f))
                            .cloned()
                            .collect()
                    })
                }
            },
            conv: self.conv.get(),
            tests: self.tests.get(),
            diagnose: self.diagnose.get(),
        }
    }

    /// Puts a view in force (the data is not touched).
    #[inline(never)]
    pub fn apply(&self, v: &ViewState) {
        self.tab.set(v.tab);
        self.bases.set(bases_of(&v.metrics));
        self.cutoffs.set(
            crate::core::registry::capped_cutoffs(
                v.k.iter()
                    .copied()
                    .filter(|&k| (1..=10_000).contains(&k))
                    .collect(),
            )
            .0,
        );
        self.hidden.set(v.hidden.clone());
        self.baseline.set(v.baseline.clone());
        self.diff.set(v.diff);
        self.theme.set(match v.theme.as_str() {
            "light" => Theme::Light,
            "dark" => Theme::Dark,
            _ => Theme::System,
        });
        self.curve.set(v.curve);
        self.max_p.set(v.p.min(1000));
        self.per_query.set(v.per_query);
        self.conv.set(v.conv.clone());
        self.tests.set(v.tests.clone());
        self.diagnose.set(v.diagnose.clone());
    }

    pub fn is_hidden(&self, kind: Kind, name: &str) -> bool {
        self.hidden
            .with(|h| h.contains(&crate::session::hidden_key(kind, name)))
    }

    /// Index of a model among all models of its kind (its colour).
    pub fn color_index(&self, kind: Kind, name: &str) -> usize {
        self.ws.with(|w| {
            w.dataset(kind)
                .map(|d| d.model_names().iter().position(|n| n == name).unwrap_or(0))
                .unwrap_or(0)
        })
    }
}

impl Default for AppState {
    fn default() -> Self {
        Self::new()
    }
}
