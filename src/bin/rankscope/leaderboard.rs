//! `rankscope leaderboard MANIFEST`: a catalog's runs × metrics with each
//! column's tie group, rank intervals and marks against a baseline
//! (`rankscope::leaderboard`), as text, JSON, CSV, Markdown or LaTeX.

use std::io::Write;
use std::process::ExitCode;

use rankscope::core::leaderboard::{Settings, Test};
use rankscope::core::stats::Correction;
use rankscope::core::Named;
use rankscope::report::Export;
use rankscope::text::terminal_safe;

#[derive(clap::Args)]
pub struct Leaderboard {
    /// The catalog's manifest (or its folder).
    #[arg(value_name = "MANIFEST")]
    pub manifest: String,
    /// Metric ids of the catalog (default: every one).
    #[arg(long, short = 'm', value_name = "ID,...")]
    pub metrics: Option<String>,
    /// The run the others are marked against (▲ / ▼), by id or name.
    #[arg(long, value_name = "RUN")]
    pub baseline: Option<String>,
    /// The paired test: t (default), wilcoxon, sign.
    #[arg(long, value_name = "TEST")]
    pub test: Option<String>,
    /// The correction across the comparisons: holm (default, family-wise), bh (false discovery rate), bonferroni, none.
    #[arg(long, value_name = "METHOD")]
    pub correction: Option<String>,
    /// The level (default 0.05).
    #[arg(long, value_name = "A")]
    pub alpha: Option<String>,
    /// Bootstrap resamples of the rank intervals (default 1000).
    #[arg(long, value_name = "B")]
    pub resamples: Option<String>,
    /// The bootstrap's seed (default 42).
    #[arg(long, value_name = "N")]
    pub seed: Option<String>,
    /// text (default), json, csv, markdown, latex.
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<String>,
}

fn fail(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("rankscope: {}", terminal_safe(&msg.to_string()));
    ExitCode::from(2)
}

fn value<T>(
    flag: &str,
    v: &Option<String>,
    read: impl Fn(&str) -> Option<T>,
    expected: &str,
) -> Result<Option<T>, String> {
    v.as_deref()
        .map(|x| read(x).ok_or_else(|| format!("{flag} {x}: expected {expected}")))
        .transpose()
}

/// The settings from the flags.
pub fn settings(l: &Leaderboard) -> Result<Settings, String> {
    let mut s = Settings::default();
    if let Some(t) = value(
        "--test",
        &l.test,
        Test::named,
        &format!("one of {}", Test::names()),
    )? {
        s.test = t;
    }
    if let Some(c) = value(
        "--correction",
        &l.correction,
        Correction::named,
        &format!("one of {}", Correction::names()),
    )? {
        s.correction = c;
    }
    if let Some(a) = value(
        "--alpha",
        &l.alpha,
        |v| v.parse::<f64>().ok().filter(|a| *a > 0.0 && *a < 1.0),
        "a number between 0 and 1",
    )? {
        s.alpha = a;
    }
    if let Some(b) = value(
        "--resamples",
        &l.resamples,
        |v| v.parse::<usize>().ok().filter(|&b| b <= 1_000_000),
        "a whole number up to 1000000",
    )? {
        s.resamples = b;
    }
    if let Some(n) = value(
        "--seed",
        &l.seed,
        |v| v.parse::<u64>().ok(),
        "a whole number",
    )? {
        s.seed = n;
    }
    Ok(s)
}

pub fn run(l: Leaderboard) -> ExitCode {
    let format = match l.format.as_deref().unwrap_or("text") {
        "text" | "table" => None,
        "json" => Some(Export::Json),
        "csv" => Some(Export::Csv),
        "markdown" | "md" => Some(Export::Markdown),
        "latex" | "tex" => Some(Export::Latex),
        f => {
            return fail(format!(
                "--format {f}: expected one of text, json, csv, markdown, latex"
            ))
        }
    };
    let settings = match settings(&l) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let (manifest, values) = match rankscope::leaderboard::load(&l.manifest) {
        Ok(x) => x,
        Err(e) => return fail(e),
    };
    let metrics: Vec<String> = l
        .metrics
        .as_deref()
        .map(|m| {
            m.split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect()
        })
        .unwrap_or_default();
    let board = match rankscope::leaderboard::board(
        &manifest,
        &values,
        &metrics,
        &settings,
        l.baseline.as_deref(),
    ) {
        Ok(b) => b,
        Err(e) => return fail(e),
    };
    let out = match format {
        None => board.to_text(),
        Some(f) => board.export(f),
    };
    // names from the manifest never act on a terminal
    let _ = std::io::stdout().write_all(terminal_safe(&out).as_bytes());
    ExitCode::SUCCESS
}
