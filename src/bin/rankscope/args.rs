//! The command line, on clap's derive: one struct per command, the flags
//! every command that reads files shares ([`Input`]), and the convention
//! flags generated from the conventions table ([`ConventionFlags`]). Values
//! with a fixed set of names are checked here, after clap, so that every
//! message reads `FLAG VALUE: expected ...` as it always has.

use clap::{Arg, ArgAction, ArgMatches, Command, FromArgMatches, Parser, Subcommand, ValueEnum};

use rankscope::core::conventions::{self, Convention, TABLE};
use rankscope::core::evaluate::Conventions;
use rankscope::core::registry::{self, Kind};
use rankscope::core::stats::Correction;
use rankscope::core::Named;
use rankscope::parse::{Format, LoadOptions, RatingRelevance};
use rankscope::report::Export;

/// What every help page opens with, and how each is laid out (`USAGE:`).
const TEMPLATE: &str = "{about-with-newline}\nUSAGE:\n    {usage}\n\n{all-args}{after-help}";

/// What `rankscope compare --help` says before its default metrics.
const COMPARE_ABOUT: &str =
    "Paired tests of every model against the baseline (default: the first) on per-query \
     (per-row, per-user) values: t-test with the 95% CI of the difference and d_z, Wilcoxon \
     signed-rank (scipy's rules), sign test, randomization test (every sign flip up to 20 \
     units, else B = 10000 flips, seed 42), paired bootstrap test, randomized Tukey HSD \
     over all the models (B shuffles, family-wise); p-values corrected across the models \
     (Holm by default); multi-class and ratings models row by row (McNemar on Acc@k's \
     hits); binary models: roc_auc by DeLong's test with each AUC's 95% CI, other metrics \
     with their bootstrap 95% intervals (rows resampled); --format json for every number, \
     markdown or latex for the metric table with ▲ / ▼ where --test's adjusted p < --alpha. \
     The metrics: --metrics or -m, as eval takes them.";

#[derive(Parser)]
#[command(
    name = "rankscope",
    version,
    args_override_self = true,
    about = "rankscope — ranking, recommendation and classification metrics (the Rankscope core)",
    help_template = TEMPLATE,
    after_help = "Also: `rankscope trec_eval [trec_eval's options] QRELS RESULTS` is trec_eval 10.0 itself \
                  (its options, measures, output, messages and exit codes, byte for byte; \
                  `alias trec_eval='rankscope trec_eval'`, -h for its help).\n\
                  Exit code 0 on success, 2 on bad input (errors as file:line:column: expected ..., found ...)."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Cmd,
}

#[derive(Subcommand)]
#[command(help_template = TEMPLATE)]
pub enum Cmd {
    /// Every metric of the files' kind, per model (the page's table).
    #[command(
        help_template = TEMPLATE,
        args_override_self = true,
        long_about = "Every metric of the files' kind, per model. The input kind is detected from the \
                      files (TREC run/qrels, ranx JSON run/qrels, long ranking CSV, binary CSV, multi-class \
                      matrix or top-k CSV, ratings CSV, optionally .gz). Several run files = several \
                      models; a CSV with several score columns = one model per column."
    )]
    Eval(Eval),
    /// Paired tests of every model against the baseline.
    #[command(
        help_template = TEMPLATE,
        args_override_self = true,
        long_about = format!("{COMPARE_ABOUT} {}", rankscope::compare::default_metrics_help())
    )]
    Compare(Compare),
    /// A classifier's diagnostics per model.
    #[command(
        help_template = TEMPLATE,
        args_override_self = true,
        long_about = "A classifier's diagnostics per model. Binary: calibration in N bins (uniform widths or \
                      quantile: equal counts; empty bins dropped, as scikit-learn's calibration_curve) with \
                      ECE, MCE and the Brier score's reliability − resolution + uncertainty; KS; gains and \
                      lift at the top 1/5/10/20%; operating points: precision at recall >= R, recall at \
                      precision >= P, FPR at TPR >= T, Youden's J, max F1, max F-beta, least expected cost, \
                      each with its threshold under --threshold-rule; --group gbdt=gbdt_fold*: the matching \
                      models as one (ROC averaged vertically with a ±1 sd band, as scikit-learn's \
                      cross-validation example; AUC, AP, Brier, ECE, KS as mean ± sd, ddof 0). Multi-class: \
                      classification_report, confusion matrix, one-vs-rest and one-vs-one ROC AUC \
                      (probability matrices)."
    )]
    Diagnose(Diagnose),
    /// Writes the bundled example (or a large one) as files.
    #[command(help_template = TEMPLATE, args_override_self = true)]
    Generate(Generate),
    /// Lists every metric id with its formula.
    #[command(help_template = TEMPLATE)]
    Metrics,
    /// A team's catalog of runs: build it from a folder, add a run.
    #[command(subcommand)]
    Catalog(crate::catalog::CatalogCmd<ConventionFlags>),
    /// A catalog's leaderboard: runs × metrics, tie groups, rank intervals, marks against a baseline.
    #[command(help_template = TEMPLATE)]
    Leaderboard(crate::leaderboard::Leaderboard),
}

#[derive(clap::Args)]
pub struct Eval {
    #[command(flatten)]
    pub input: Input,
    #[command(flatten)]
    pub groups: Groups,
}

#[derive(clap::Args)]
pub struct Compare {
    #[command(flatten)]
    pub input: Input,
    /// The model the others are tested against (default: the first).
    #[arg(long, value_name = "NAME")]
    pub baseline: Option<String>,
    /// The test whose adjusted p marks the table (▲ / ▼).
    #[arg(long, value_name = "TEST", help = format!("The test whose adjusted p marks the table (▲ / ▼): {} (default t)", <rankscope::compare::Test as Named>::names()))]
    pub test: Option<String>,
    /// The level the adjusted p is compared with.
    #[arg(
        long,
        value_name = "A",
        help = "The level the adjusted p is compared with (default 0.05)"
    )]
    pub alpha: Option<String>,
    /// The seed of the randomization, bootstrap and Tukey draws.
    #[arg(
        long,
        value_name = "N",
        help = "The seed of the randomization, bootstrap and Tukey draws (default 42)"
    )]
    pub seed: Option<String>,
    /// Draws of the randomization test and Tukey HSD (default 10000).
    #[arg(long, visible_alias = "permutations", value_name = "B")]
    pub resamples: Option<String>,
    /// Resamples of the paired bootstrap test (default 1000).
    #[arg(long, value_name = "B")]
    pub bootstrap: Option<String>,
    /// Correction of the p-values across the models: holm (default), bonferroni, bh, none.
    #[arg(long, value_name = "METHOD")]
    pub correction: Option<String>,
}

#[derive(clap::Args)]
pub struct Diagnose {
    #[command(flatten)]
    pub input: Input,
    /// Calibration bins, 1 to 1000 (default 10).
    #[arg(long, value_name = "N")]
    pub bins: Option<String>,
    /// Calibration bins of equal widths (uniform, the default) or equal counts (quantile).
    #[arg(long, value_name = "STRATEGY")]
    pub strategy: Option<String>,
    /// Precision at recall >= R (default 0.9).
    #[arg(long, value_name = "R")]
    pub recall: Option<String>,
    /// Recall at precision >= P (default 0.9).
    #[arg(long, value_name = "P")]
    pub precision: Option<String>,
    /// FPR at TPR >= T (default 0.95).
    #[arg(long, value_name = "T")]
    pub tpr: Option<String>,
    /// The β of max F-beta (default 2).
    #[arg(long, value_name = "B")]
    pub beta: Option<String>,
    /// The cost of a false positive (default 1).
    #[arg(long = "cost-fp", value_name = "C")]
    pub cost_fp: Option<String>,
    /// The cost of a false negative (default 1).
    #[arg(long = "cost-fn", value_name = "C")]
    pub cost_fn: Option<String>,
    /// The prevalence the expected cost is taken at (default: the data's).
    #[arg(long, value_name = "PI")]
    pub prevalence: Option<String>,
    /// The DET and gains curves in the JSON.
    #[arg(long)]
    pub curves: bool,
    #[command(flatten)]
    pub groups: Groups,
}

#[derive(clap::Args)]
pub struct Groups {
    /// The models whose names match PATTERN (* for any text), e.g. folds or seeds of one model, as
    /// one more block: each metric's mean ± sd over them (ddof 0; every member's value in the JSON).
    #[arg(long = "group", value_name = "NAME=PATTERN")]
    pub groups: Vec<String>,
}

#[derive(clap::Args)]
pub struct Generate {
    /// example (the bundled data set) or large.
    #[arg(long, default_value = "example")]
    pub preset: String,
    /// ranking, binary, multiclass, ratings, all, or parsed (the example's files parsed, as the
    /// page loads them: example.bin).
    #[arg(long, default_value = "all")]
    pub kind: String,
    /// The folder to write to.
    #[arg(long, value_name = "DIR", required = true)]
    pub out: String,
}

/// The flags of every command that reads files.
#[derive(clap::Args)]
pub struct Input {
    /// Files to read; - is standard input (a pipe such as <(zcat run.gz) works too: read once, front to back).
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<String>,
    /// Qrels (relevance judgments) for the runs.
    #[arg(long, value_name = "QRELS")]
    pub qrels: Vec<String>,
    /// Cutoffs for @k metrics (default 1,3,5,10,20,100,1000).
    #[arg(long, short = 'k', value_name = "1,5,10")]
    pub cutoffs: Option<String>,
    /// Metric ids, e.g. ndcg@10,map,mrr,infap (eval's default: every metric of the kind but
    /// trec_eval's less common measures; `all`: every one; `rankscope metrics` lists them;
    /// compare's default: see above).
    #[arg(long, value_name = "ID,...")]
    pub metrics: Option<String>,
    #[arg(long, value_name = "FORMAT", help = format!("Output: {}", OutputFormat::help()))]
    pub format: Option<String>,
    #[arg(long = "input-format", value_name = "FMT", help = format!("Force one of: {} for the FILE arguments; trec_eval's relation formats (trec_prefs, trec_qrels_prefs, trec_qrels_jg, trec_zscores) name those of them that are not runs (runs are still read as runs). The --qrels files are TREC or ranx JSON qrels, or with trec_prefs, trec_qrels_prefs or trec_qrels_jg (trec_eval's -R) that format; z-scores go beside the qrels (trec_eval's -Z)", format_ids()))]
    pub input_format: Option<String>,
    /// The most text a .gz file may inflate to (default 16G; e.g. 500M, 64G, none).
    #[arg(long = "max-inflated", value_name = "SIZE")]
    pub max_inflated: Option<String>,
    /// The label value that is positive (binary CSV).
    #[arg(long = "positive-label", value_name = "VALUE")]
    pub positive_label: Option<String>,
    /// Held-out interactions with a rating (user_id,item_id,rating): a rating
    /// of at least this number is relevant (default 4), or `graded` (the
    /// rating is the grade), or `all` (every row relevant).
    #[arg(long = "relevant-rating", value_name = "NUMBER|graded|all")]
    pub relevant_rating: Option<String>,
    /// Per-query (per-user) values too (trec_eval's -q).
    #[arg(long = "per-query", short = 'q')]
    pub per_query: bool,
    /// Metrics as --metrics takes them (ndcg@10,map), or trec_eval's measures (ndcg_cut.5,10, P.10,
    /// recip_rank: the core metrics that print them); with --format trec_eval, the measures printed
    /// (official, all_trec, ndcg_cut.5,10, P.10, success.1,5,10). Repeatable.
    #[arg(short = 'm', value_name = "MEASURE")]
    pub trec_measures: Vec<String>,
    /// Average over every qrels query, missing = 0 (trec_eval's -c).
    #[arg(short = 'c')]
    pub complete: bool,
    #[command(flatten)]
    pub conventions: ConventionFlags,
}

/// The convention flags, one per row of the conventions table: `--KEY
/// VALUE` (the link key with dashes), the CLI's older spellings as
/// aliases, one-letter aliases as short flags, and the switches (`--logits`).
/// Holds what was given, as (link key, flag, value).
pub struct ConventionFlags(pub Vec<(&'static str, String, String)>);

/// A convention's flag: its link key with dashes.
fn flag_of(c: &Convention) -> String {
    c.key.replace('_', "-")
}

/// A convention's help: what it decides, its values, the default.
fn help_of(c: &Convention) -> String {
    let default = (c.get)(&Conventions::default());
    if c.values.is_empty() {
        let value = if c.label.ends_with('≥') {
            " VALUE"
        } else {
            ""
        };
        return format!("{}{value} (default {default})", c.label);
    }
    let values: Vec<String> = c
        .values
        .iter()
        .map(|(name, text)| {
            let mark = if *name == default { " [default]" } else { "" };
            format!("{name}: {text}{mark}")
        })
        .collect();
    format!("{}. {}", c.label, values.join(" | "))
}

impl clap::Args for ConventionFlags {
    fn augment_args(mut cmd: Command) -> Command {
        for c in TABLE {
            let heading = match c.kind {
                Kind::Ranking => "Ranking conventions (defaults: trec_eval's with -c)",
                Kind::Binary => "Binary conventions (defaults: scikit-learn's)",
                _ => "Multi-class conventions",
            };
            let switch = c.switch.map(|(flag, _)| flag.replace('-', "_"));
            let mut arg = Arg::new(c.key)
                .long(flag_of(c))
                .value_name("VALUE")
                // every value kept, in order: the last wins, and each
                // `--threshold NAME=T` adds a model's own
                .action(ArgAction::Append)
                .allow_negative_numbers(true)
                .help(help_of(c))
                .help_heading(heading);
            for alias in c.aliases.iter().filter(|a| Some(a.to_string()) != switch) {
                arg = match alias.chars().collect::<Vec<_>>()[..] {
                    [short] => arg.short(short),
                    _ => arg.visible_alias(alias.replace('_', "-")),
                };
            }
            cmd = cmd.arg(arg);
            if let Some((flag, value)) = c.switch {
                cmd = cmd.arg(
                    Arg::new(flag)
                        .long(flag)
                        .action(ArgAction::SetTrue)
                        .help(format!("--{} {value}", flag_of(c)))
                        .help_heading(heading),
                );
            }
        }
        cmd
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

impl FromArgMatches for ConventionFlags {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let mut given = Vec::new();
        for c in TABLE {
            for v in m.get_many::<String>(c.key).into_iter().flatten() {
                given.push((c.key, format!("--{}", flag_of(c)), v.clone()));
            }
            if let Some((flag, value)) = c.switch {
                if m.get_flag(flag) {
                    given.push((c.key, format!("--{flag}"), value.to_string()));
                }
            }
        }
        Ok(ConventionFlags(given))
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

/// What `--format` prints: the table for people, or one of the table's
/// exports ([`Export`]), or trec_eval's lines. Read after clap (as every
/// value with a fixed set of names) so that its message reads `--format
/// VALUE: expected ...`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// default
    #[default]
    Table,
    Json,
    /// trec_eval's lines
    #[value(name = "trec_eval")]
    TrecEval,
    /// with --per-query: query_id,model,metric,value lines
    Csv,
    Markdown,
    Latex,
}

impl OutputFormat {
    /// The export of the metric table it writes, if it is one.
    pub fn export(self) -> Option<Export> {
        match self {
            OutputFormat::Csv => Some(Export::Csv),
            OutputFormat::Json => Some(Export::Json),
            OutputFormat::Markdown => Some(Export::Markdown),
            OutputFormat::Latex => Some(Export::Latex),
            OutputFormat::Table | OutputFormat::TrecEval => None,
        }
    }

    /// Each name, with its words in parentheses: `table (default), json, …`.
    fn help() -> String {
        let values: Vec<String> = Self::value_variants()
            .iter()
            .filter_map(|v| v.to_possible_value())
            .map(|v| match v.get_help() {
                Some(help) => format!("{} ({help})", v.get_name()),
                None => v.get_name().to_string(),
            })
            .collect();
        values.join(", ")
    }

    /// Every name, comma-separated.
    fn names() -> String {
        let names: Vec<String> = Self::value_variants()
            .iter()
            .filter_map(|v| v.to_possible_value())
            .map(|v| v.get_name().to_string())
            .collect();
        names.join(", ")
    }
}

/// The input formats' ids, from the one list of them.
pub fn format_ids() -> String {
    Format::ALL.map(|f| f.id()).join(", ")
}

/// What a command runs on: its files, conventions and output, checked.
#[derive(Debug)]
pub struct Args {
    pub files: Vec<String>,
    pub qrels: Vec<String>,
    pub cutoffs: Vec<usize>,
    pub metrics: Option<Vec<String>>,
    pub format: OutputFormat,
    pub per_query: bool,
    pub conv: Conventions,
    pub options: LoadOptions,
    pub trec_measures: Vec<String>,
    pub complete: bool,
    pub queries_set_explicitly: bool,
    /// Whether `-k` was given (`compare`'s default ranking metrics take the
    /// table's cutoffs otherwise).
    pub cutoffs_given: bool,
    pub max_inflated: Option<u64>,
    /// `rankscope compare`: paired tests against a baseline instead of the table.
    pub compare: Option<rankscope::compare::Options>,
    /// `rankscope diagnose`'s options.
    pub diagnose: Option<rankscope::diagnose::Options>,
    /// Models shown as one (folds, seeds): `--group NAME=PATTERN`.
    pub groups: Vec<(String, String)>,
}

/// The CLI's default limit on the text a gzip file inflates to.
const DEFAULT_MAX_INFLATED: u64 = 16 << 30;

/// `16G`, `500M`, `64k`, `1234` (bytes), `none`.
fn parse_size(v: &str) -> Option<Option<u64>> {
    if v.eq_ignore_ascii_case("none") {
        return Some(None);
    }
    let v = v.trim();
    let (digits, unit) = v.split_at(v.find(|c: char| !c.is_ascii_digit()).unwrap_or(v.len()));
    let n: u64 = digits.parse().ok()?;
    let shift = match unit.to_ascii_uppercase().trim_end_matches(['B', 'I']) {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        _ => return None,
    };
    n.checked_mul(1 << shift).filter(|&n| n > 0).map(Some)
}

/// `flag`'s value read by `read`, or the message `FLAG VALUE: expected`.
fn checked<T>(
    flag: &str,
    value: &Option<String>,
    read: impl Fn(&str) -> Option<T>,
    expected: &str,
) -> Result<Option<T>, String> {
    value
        .as_deref()
        .map(|v| read(v).ok_or_else(|| format!("{flag} {v}: expected {expected}")))
        .transpose()
}

fn number_in(v: &str, ok: impl Fn(f64) -> bool) -> Option<f64> {
    v.parse().ok().filter(|&x| ok(x))
}

impl Input {
    /// The files, formats, cutoffs and conventions of any command.
    fn args(self) -> Result<Args, String> {
        let mut a = Args {
            files: self.files,
            qrels: self.qrels,
            cutoffs: registry::DEFAULT_CUTOFFS.to_vec(),
            metrics: self
                .metrics
                .map(|m| m.split(',').map(|s| s.trim().to_string()).collect()),
            format: OutputFormat::default(),
            per_query: self.per_query,
            conv: Conventions::default(),
            options: LoadOptions {
                audience: rankscope::parse::Audience::CommandLine,
                ..LoadOptions::default()
            },
            trec_measures: self.trec_measures,
            complete: self.complete,
            queries_set_explicitly: false,
            cutoffs_given: self.cutoffs.is_some(),
            max_inflated: Some(DEFAULT_MAX_INFLATED),
            compare: None,
            diagnose: None,
            groups: Vec::new(),
        };
        if let Some(v) = self.cutoffs {
            a.cutoffs = v
                .split(',')
                .map(|k| k.trim().parse::<usize>().ok().filter(|&k| k > 0))
                .collect::<Option<_>>()
                .ok_or_else(|| format!("--cutoffs {v}: cutoffs are positive whole numbers"))?;
        }
        if let Some(format) = checked(
            "--format",
            &self.format,
            |v| OutputFormat::from_str(v, false).ok(),
            &format!("one of {}", OutputFormat::names()),
        )? {
            a.format = format;
        }
        a.options.format = checked(
            "--input-format",
            &self.input_format,
            Format::from_id,
            &format!("one of {}", format_ids()),
        )?;
        if let Some(size) = checked(
            "--max-inflated",
            &self.max_inflated,
            parse_size,
            "a size in bytes (e.g. 500M, 16G, 1T) or none",
        )? {
            a.max_inflated = size;
        }
        a.options.positive_label = self.positive_label;
        a.options.relevant_rating = checked(
            "--relevant-rating",
            &self.relevant_rating,
            RatingRelevance::parse,
            "a number (a rating of at least it is relevant), graded or all",
        )?;
        for (key, flag, value) in self.conventions.0 {
            a.queries_set_explicitly |= key == "query_set";
            conventions::set(&mut a.conv, key, &value)
                .map_err(|e| format!("{flag} {value}: {e}"))?;
        }
        Ok(a)
    }
}

fn groups(g: Groups) -> Result<Vec<(String, String)>, String> {
    g.groups
        .into_iter()
        .map(|v| {
            v.split_once('=')
                .filter(|(n, p)| !n.is_empty() && !p.is_empty())
                .map(|(n, p)| (n.to_string(), p.to_string()))
                .ok_or_else(|| format!("--group {v}: expected NAME=PATTERN, e.g. gbdt=gbdt_fold*"))
        })
        .collect()
}

impl Eval {
    pub fn args(self) -> Result<Args, String> {
        let mut a = self.input.args()?;
        a.groups = groups(self.groups)?;
        Ok(a)
    }
}

impl Compare {
    pub fn args(self) -> Result<Args, String> {
        let mut a = self.input.args()?;
        let mut o = rankscope::compare::Options {
            baseline: self.baseline,
            ..Default::default()
        };
        let names = <rankscope::compare::Test as Named>::names();
        if let Some(t) = checked(
            "--test",
            &self.test,
            rankscope::compare::Test::named,
            &format!("one of {names}"),
        )? {
            o.test = t;
        }
        let level = |v: &str| number_in(v, |x| x > 0.0 && x < 1.0);
        if let Some(x) = checked(
            "--alpha",
            &self.alpha,
            level,
            "a level between 0 and 1 (e.g. 0.05)",
        )? {
            o.alpha = x;
        }
        if let Some(s) = checked("--seed", &self.seed, |v| v.parse().ok(), "a whole number")? {
            o.seed = s;
        }
        let positive = |v: &str| v.parse().ok().filter(|&n: &u64| n > 0);
        if let Some(n) = checked(
            "--resamples",
            &self.resamples,
            positive,
            "a positive whole number",
        )? {
            o.resamples = n;
        }
        if let Some(n) = checked(
            "--bootstrap",
            &self.bootstrap,
            positive,
            "a positive whole number",
        )? {
            o.bootstraps = n;
        }
        if let Some(c) = checked(
            "--correction",
            &self.correction,
            Correction::named,
            "one of holm, bonferroni, bh, none",
        )? {
            o.correction = c;
        }
        a.compare = Some(o);
        Ok(a)
    }
}

impl Diagnose {
    pub fn args(self) -> Result<Args, String> {
        let mut a = self.input.args()?;
        a.groups = groups(self.groups)?;
        let mut o = rankscope::diagnose::Options::default();
        let bins = |v: &str| v.parse().ok().filter(|n: &usize| (1..=1000).contains(n));
        if let Some(n) = checked("--bins", &self.bins, bins, "a whole number from 1 to 1000")? {
            o.bins = n;
        }
        let strategies: Vec<&str> = rankscope::core::diagnostics::BinStrategy::ALL
            .iter()
            .map(|s| s.name())
            .collect();
        if let Some(s) = checked(
            "--strategy",
            &self.strategy,
            rankscope::core::diagnostics::BinStrategy::named,
            &format!("one of {}", strategies.join(", ")),
        )? {
            o.strategy = s;
        }
        let unit = |v: &str| number_in(v, |x| (0.0..=1.0).contains(&x));
        let cost = |v: &str| number_in(v, |x| x.is_finite() && x >= 0.0);
        for (flag, value, slot) in [
            ("--recall", &self.recall, &mut o.recall),
            ("--precision", &self.precision, &mut o.precision),
            ("--tpr", &self.tpr, &mut o.tpr),
        ] {
            if let Some(x) = checked(flag, value, unit, "a number from 0 to 1")? {
                *slot = x;
            }
        }
        o.prevalence = checked(
            "--prevalence",
            &self.prevalence,
            unit,
            "a number from 0 to 1",
        )?;
        for (flag, value, slot) in [
            ("--beta", &self.beta, &mut o.beta),
            ("--cost-fp", &self.cost_fp, &mut o.cost_fp),
            ("--cost-fn", &self.cost_fn, &mut o.cost_fn),
        ] {
            if let Some(x) = checked(flag, value, cost, "a number >= 0")? {
                *slot = x;
            }
        }
        o.curves = self.curves;
        a.diagnose = Some(o);
        Ok(a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }

    fn eval(args: &[&str]) -> Result<Args, String> {
        let argv = ["rankscope", "eval", "run.txt"].iter().chain(args);
        match Cli::try_parse_from(argv)
            .map_err(|e| e.to_string())?
            .command
        {
            Cmd::Eval(e) => e.args(),
            _ => unreachable!(),
        }
    }

    /// `--format` takes each output format by its name, says every name
    /// when given another, and each table export is one of them.
    #[test]
    fn every_output_format_is_read_by_its_name() {
        let names: Vec<String> = OutputFormat::value_variants()
            .iter()
            .map(|f| f.to_possible_value().unwrap().get_name().to_string())
            .collect();
        for (&f, name) in OutputFormat::value_variants().iter().zip(&names) {
            assert_eq!(eval(&["--format", name]).unwrap().format, f);
        }
        assert_eq!(eval(&[]).unwrap().format, OutputFormat::Table);
        assert_eq!(
            eval(&["--format", "xml"]).unwrap_err(),
            format!("--format xml: expected one of {}", names.join(", "))
        );
        for name in ["table", "json", "trec_eval", "csv", "markdown", "latex"] {
            assert!(names.iter().any(|n| n == name), "{name}");
        }
        for &e in Export::ALL {
            let writes = OutputFormat::value_variants()
                .iter()
                .filter(|f| f.export() == Some(e));
            assert_eq!(writes.count(), 1, "{e:?}");
        }
    }

    /// Each row of the conventions table is a flag taking each of its
    /// values, under its key and every other spelling (one letter: a short
    /// flag), and its switch sets what the table says.
    #[test]
    fn every_convention_is_a_flag_under_every_spelling() {
        for c in TABLE {
            let values: Vec<&str> = match c.values {
                [] => vec!["2"],
                v => v.iter().map(|v| v.0).collect(),
            };
            let switch = c.switch.map(|s| s.0.replace('-', "_"));
            let spellings = std::iter::once(c.key)
                .chain(c.aliases.iter().copied())
                .filter(|s| Some(s.to_string()) != switch);
            for spelling in spellings {
                let flag = match spelling.len() {
                    1 => format!("-{spelling}"),
                    _ => format!("--{}", spelling.replace('_', "-")),
                };
                for v in &values {
                    let a = eval(&[&flag, v]).unwrap_or_else(|e| panic!("{flag} {v}: {e}"));
                    let mut expected = Conventions::default();
                    conventions::set(&mut expected, c.key, v).unwrap();
                    assert_eq!(a.conv, expected, "{flag} {v}");
                    assert_eq!((c.get)(&a.conv), *v, "{flag} {v}");
                }
            }
            if let Some((flag, value)) = c.switch {
                let a = eval(&[&format!("--{flag}")]).unwrap();
                assert_eq!((c.get)(&a.conv), value, "--{flag}");
            }
        }
    }

    /// Values are checked after clap, with the message the CLI always gave.
    #[test]
    fn a_bad_value_names_its_flag_and_what_was_expected() {
        assert_eq!(
            eval(&["--gain", "cubic"]).unwrap_err(),
            "--gain cubic: expected one of linear, exponential"
        );
        assert_eq!(
            eval(&["-k", "5,0"]).unwrap_err(),
            "--cutoffs 5,0: cutoffs are positive whole numbers"
        );
        assert_eq!(
            eval(&["--max-inflated", "lots"]).unwrap_err(),
            "--max-inflated lots: expected a size in bytes (e.g. 500M, 16G, 1T) or none"
        );
        assert!(eval(&["--group", "x"])
            .unwrap_err()
            .starts_with("--group x: expected NAME=PATTERN"));
        // the last of a repeated flag counts, as it always has; negative numbers are values
        let a = eval(&["--gain", "exp", "--gain", "linear", "--threshold", "-0.5"]).unwrap();
        assert_eq!((a.conv.gain.name(), a.conv.threshold), ("linear", -0.5));
        assert_eq!(parse_size("16G"), Some(Some(16 << 30)));
        assert_eq!(parse_size("none"), Some(None));
        assert_eq!(parse_size("0"), None);
    }
}
