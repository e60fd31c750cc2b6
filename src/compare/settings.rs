//! The significance tests' settings and what the page asks of a worker:
//! data only, below the tests ([`super`]), their page ([`super::page`]) and
//! its HTML ([`super::html`]), and read by the session's links.

use crate::core::stats::Correction;

/// A paired test, as links and the CLI name it.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Test {
    /// Paired Student's t-test (the default: what ranx and most papers use).
    #[default]
    T,
    Wilcoxon,
    Sign,
    Randomization,
    Bootstrap,
    /// McNemar's exact test of per-unit hits (0/1 values only).
    #[serde(rename = "mcnemar")]
    McNemar,
    /// Randomized Tukey HSD over the baseline and every compared model
    /// (a test of the group: [`super::tukey_group`]).
    Tukey,
}

crate::named!(Test {
    T = "t",
    Wilcoxon = "wilcoxon",
    Sign = "sign",
    Randomization = "randomization",
    Bootstrap = "bootstrap",
    McNemar = "mcnemar",
    Tukey = "tukey",
});

/// The test settings of the page and the Compare view's pair (`test=`,
/// `correction=`, `alpha=`, `seed=`, `ci=`, `vs=`, `on=` in links).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Settings {
    /// The test behind the table's marks.
    pub test: Test,
    pub correction: Correction,
    /// The level below which an adjusted p-value is marked.
    pub alpha: f64,
    pub seed: u64,
    /// Show each mean's bootstrap 95% interval in the table.
    pub ci: bool,
    /// The Compare view's model (against the baseline) and metric.
    pub vs: Option<String>,
    pub on: Option<String>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            test: Test::T,
            correction: Correction::Holm,
            alpha: 0.05,
            seed: 42,
            ci: false,
            vs: None,
            on: None,
        }
    }
}

/// Resamples of each mean's bootstrap interval.
pub const CI_RESAMPLES: usize = 1_000;
/// Up to this many units a mean's interval is the bootstrap's; beyond, the
/// t interval (the two agree there within the bootstrap's own noise, and
/// 1,000 resamples of 100,000 units for every column took minutes).
pub const CI_BOOTSTRAP_UNITS: usize = 20_000;

/// One model's per-unit values.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Units {
    pub name: String,
    pub ids: Vec<String>,
    /// One column per metric of the request, one value per id.
    pub values: Vec<Vec<f64>>,
}

/// What the page asks of a worker.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Request {
    /// `query`, `row` or `user`.
    pub unit: String,
    /// The metric ids tested: the report's columns whose shown value is the
    /// mean of their per-unit values.
    pub metrics: Vec<String>,
    pub models: Vec<Units>,
    /// The index of the baseline in `models`.
    pub baseline: usize,
    pub settings: Settings,
    /// The Compare view's model (against the baseline) and metric, as
    /// indices into `models` and `metrics`.
    pub focus: Option<(usize, usize)>,
}
