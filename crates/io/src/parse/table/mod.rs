//! Format detection and row parsing for every text format.

use super::error::{count, shown, LoadError, Problem};
use super::fast;
use super::fields::{self, Delimiter, Row, Splitter};
use super::{model_name_from_file, LoadOptions, Parsed};
use rankscope_core::evaluate::{BinaryData, MulticlassData, RatingsData};
use rankscope_core::ids::{Interner, Names};
use rankscope_core::multiclass::{MulticlassPredictions, RowSummary};

mod binary_csv;
mod interactions;
mod msmarco_run;
mod multiclass_matrix;
mod multiclass_topk;
mod per_query_csv;
mod ranking_csv;
mod ratings_csv;
mod relations;
mod run_csv;
mod topk_lists;
mod trec_eval_output;
mod trec_qrels;
mod trec_run;

use relations::RelationsState;
use trec_eval_output::MeasuresState;
use trec_qrels::QrelsState;
use trec_run::RunState;

/// A file's first line as the line formats' detection reads it: its
/// whitespace fields, its bytes, the file's name (lower case, without
/// `.gz`), and whether the line holds a comma or semicolon (a CSV's).
pub(super) struct FirstLine<'a> {
    ws: &'a Row<'a>,
    line: &'a [u8],
    name: &'a str,
    csv_like: bool,
}

/// One input format's reading of its lines: each line's fields checked and
/// kept, then the parsed file (`None`: nothing read, or a problem pushed to
/// `errors`). A line format is one file of this folder implementing it; the
/// delimited tables (CSV and TSV formats) share one state, [`TableState`],
/// and each is one file of this folder defining its [`TableFormat`] (its
/// header's detection, its rows, its columns) and one row of
/// [`TABLE_FORMATS`].
pub trait Lines {
    fn row(&mut self, n: u64, f: &Row, options: &LoadOptions) -> Result<(), Problem>;
    fn finish(self, file: &str, errors: &mut LoadError) -> Option<Parsed>;
}

/// The input formats Rankscope reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    TrecRun,
    TrecQrels,
    RankingCsv,
    BinaryCsv,
    MulticlassMatrix,
    MulticlassTopK,
    RatingsCsv,
    /// ranx JSON run `{"q": {"doc": score}}`.
    JsonRun,
    /// ranx JSON qrels `{"q": {"doc": grade}}`.
    JsonQrels,
    /// trec_eval output (`-q`): `measure qid|all value` lines computed elsewhere.
    TrecEvalOutput,
    /// trec_eval's preferences (`-R prefs`): `qid jg subgroup docno rel_level`.
    TrecPrefs,
    /// qrels read as preferences (`-R qrels_prefs`): chosen, never detected.
    TrecQrelsPrefs,
    /// qrels with judgment groups (`-R qrels_jg`): `qid jg docno rel`.
    TrecQrelsJg,
    /// trec_eval's z-scores (`-Z`): `qid measure mean stddev`.
    TrecZscores,
    /// Per-query values computed elsewhere: `query_id,model,metric,value`
    /// (what `rankscope eval --per-query --format csv`, the Python package
    /// and its Spark job write); the model column is optional.
    PerQueryCsv,
    /// MS MARCO run: `qid docid rank`, no score.
    MsMarcoRun,
    /// A run as a table: `query_id,doc_id,score...`, no judgments.
    RunCsv,
    /// Top-k lists per user: `user_id,rec_1,...,rec_k` or `user_id,items`
    /// (the items in one cell), with an optional target (the relevant item).
    TopKLists,
    /// Held-out interactions: `user_id,item_id[,rating|weight|timestamp]`,
    /// read as judgments.
    Interactions,
}

/// Every input format with its id (the CLI's `--input-format`, sessions)
/// and its label (load notices, help): the one list the CLI's help and
/// errors, the sessions and the page read. Each format's reading is a file
/// of this folder.
const FORMATS: &[(Format, &str, &str)] = &[
    (Format::TrecRun, "trec_run", "TREC run"),
    (Format::TrecQrels, "trec_qrels", "TREC qrels"),
    (
        Format::RankingCsv,
        "ranking_csv",
        "ranking CSV (query, item, score, relevance)",
    ),
    (
        Format::BinaryCsv,
        "binary_csv",
        "binary classification CSV (label, scores)",
    ),
    (
        Format::MulticlassMatrix,
        "multiclass_matrix",
        "multi-class probability/logit matrix",
    ),
    (
        Format::MulticlassTopK,
        "multiclass_topk",
        "multi-class top-k list",
    ),
    (
        Format::RatingsCsv,
        "ratings_csv",
        "ratings CSV (user, item, rating, predictions)",
    ),
    (
        Format::JsonRun,
        "json_run",
        "JSON run (ranx: query -> document -> score)",
    ),
    (
        Format::JsonQrels,
        "json_qrels",
        "JSON qrels (ranx: query -> document -> grade)",
    ),
    (
        Format::TrecEvalOutput,
        "trec_eval_output",
        "trec_eval output (measure, query, value)",
    ),
    (
        Format::TrecPrefs,
        "trec_prefs",
        "trec_eval preferences (qid jg subgroup docno rel_level)",
    ),
    (
        Format::TrecQrelsPrefs,
        "trec_qrels_prefs",
        "qrels read as trec_eval preferences",
    ),
    (
        Format::TrecQrelsJg,
        "trec_qrels_jg",
        "qrels with judgment groups (qid jg docno rel)",
    ),
    (
        Format::TrecZscores,
        "trec_zscores",
        "trec_eval z-scores (qid measure mean stddev)",
    ),
    (
        Format::PerQueryCsv,
        "per_query_csv",
        "per-query values (query_id, model, metric, value)",
    ),
    (
        Format::MsMarcoRun,
        "msmarco_run",
        "MS MARCO run (qid, docid, rank)",
    ),
    (
        Format::RunCsv,
        "run_csv",
        "run CSV (query, item, scores; no judgments)",
    ),
    (
        Format::TopKLists,
        "topk_lists",
        "top-k lists per user (user, item 1, item 2, …)",
    ),
    (
        Format::Interactions,
        "interactions",
        "held-out interactions (user, item[, rating]): judgments",
    ),
];

impl Format {
    pub const ALL: [Format; FORMATS.len()] = {
        let mut all = [Format::TrecRun; FORMATS.len()];
        let mut i = 0;
        while i < FORMATS.len() {
            all[i] = FORMATS[i].0;
            i += 1;
        }
        all
    };

    fn row(self) -> &'static (Format, &'static str, &'static str) {
        // every variant has its row (the table test checks it)
        FORMATS.iter().find(|r| r.0 == self).unwrap_or(&FORMATS[0])
    }

    pub fn label(self) -> &'static str {
        self.row().2
    }

    pub fn id(self) -> &'static str {
        self.row().1
    }

    /// One of trec_eval's other relation formats (kept for `rankscope trec_eval`).
    pub fn is_relation(self) -> bool {
        matches!(
            self,
            Format::TrecPrefs | Format::TrecQrelsPrefs | Format::TrecQrelsJg | Format::TrecZscores
        )
    }

    pub fn from_id(id: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.id() == id)
    }
}

const QUERY: &[&str] = &[
    "query_id",
    "qid",
    "query",
    "topic",
    "topic_id",
    "session_id",
    "session",
    "queryid",
];
const USER: &[&str] = &["user_id", "user", "uid", "userid", "customer_id"];
const ITEM: &[&str] = &[
    "item_id",
    "item",
    "doc_id",
    "docid",
    "docno",
    "doc",
    "document",
    "document_id",
    "iid",
    "itemid",
    "product_id",
    "movie_id",
    "movieid",
    "track_id",
];
const RELEVANCE: &[&str] = &[
    "relevance",
    "rel",
    "grade",
    "judgment",
    "judgement",
    "qrel",
    "relevant",
    "gain",
];
const LABEL: &[&str] = &[
    "label",
    "y_true",
    "y",
    "target",
    "class",
    "truth",
    "ground_truth",
    "is_positive",
    "true_label",
    "actual",
    "gold",
];
const RATING: &[&str] = &[
    "rating",
    "true_rating",
    "actual_rating",
    "r_ui",
    "rui",
    "y_true",
    "actual",
    "stars",
];

/// A run's rank column: it orders each list ascending (rank 1 first), as
/// the rank of a TREC or MS MARCO run does; never a model's score.
const RANK: &[&str] = &["rank", "position", "pos"];
/// A column holding a whole top-k list in one cell (`sku-1 sku-2`,
/// `a|b|c`, `"a,b,c"`, a Python list as pandas writes it).
const LIST_CELL: &[&str] = &[
    "items",
    "item_ids",
    "item_list",
    "recommendations",
    "recommended",
    "recommended_items",
    "recs",
    "rec_items",
    "ranked_items",
    "predictions",
    "predicted_items",
    "top_k",
    "topk",
];
/// The columns a file of held-out interactions may have beside its user
/// and item: its rating (see [`RATING`]), an interaction's weight or count,
/// and when it happened.
const INTERACTION: &[&str] = &[
    "weight",
    "count",
    "clicks",
    "plays",
    "timestamp",
    "ts",
    "time",
    "date",
    "datetime",
    "event_time",
];
/// Whether a field is a column name a table format reads (any case).
fn names_a_column(f: &[u8]) -> bool {
    let name = String::from_utf8_lossy(f).to_ascii_lowercase();
    [QUERY, USER, ITEM, RELEVANCE, LABEL, RATING]
        .iter()
        .any(|names| is_one_of(&name, names))
}

/// More score columns than this in one file is almost surely a wrong format.
pub const MAX_MODELS: usize = 1000;

fn is_one_of(name: &str, names: &[&str]) -> bool {
    names.contains(&name)
}

/// A top-k file's class (or item) id at line `n`, column `column` (0-based):
/// any text (numbers keep their value as the class number, gaps allowed).
fn class_id<'a>(n: u64, column: usize, v: &'a [u8], what: &str) -> Result<&'a str, Problem> {
    fields::id(v).ok_or_else(|| problem(n, column + 1, what, shown(v), None))
}

/// A top-k id read as a class number (numbers up to `u32::MAX - 2`).
fn class_number(id: &str) -> Option<u32> {
    id.parse::<u32>().ok().filter(|&c| c < u32::MAX - 1)
}

/// The hint for a number written with a decimal comma (`0,5` in a file
/// delimited by `;` or tabs, as spreadsheets in many locales save it).
fn decimal_comma(field: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(field).ok()?;
    (text.matches(',').count() == 1 && fields::number(text.replace(',', ".").as_bytes()).is_some())
        .then(|| format!("'{text}' looks like a decimal comma: save the file with a decimal point ({}), e.g. pandas to_csv(decimal='.') or a spreadsheet's English (US) CSV.", text.replace(',', ".")))
}

fn header_names(fields: &Row) -> Vec<String> {
    (0..fields.len())
        .map(|i| String::from_utf8_lossy(&fields[i]).trim().to_string())
        .collect()
}

/// Room for `more` rows like the ones read so far (`rows` of them), so that a
/// large file's columns are allocated once instead of doubling.
fn reserve_like(q: &mut Vec<u32>, docs: &mut Names, more: usize) {
    let per_row = docs.text_len() / q.len().max(1) + 1;
    let _ = q.try_reserve(more);
    docs.try_reserve(more, more.saturating_mul(per_row));
}

impl State {
    /// Reserves room for `more` rows (a run's, qrels' or binary CSV's
    /// columns; other formats grow as they go). Never fails: without the memory, the
    /// columns simply grow as they go.
    pub fn reserve(&mut self, more: usize) {
        match self {
            State::Run(r) => {
                reserve_like(&mut r.q, &mut r.docs, more);
                let _ = r.score.try_reserve(more);
            }
            State::Qrels(r) => {
                reserve_like(&mut r.q, &mut r.docs, more);
                let _ = r.grade.try_reserve(more);
            }
            State::Table(t) if t.spec.format == Format::BinaryCsv => {
                let _ = t.labels.try_reserve(more);
                for v in &mut t.dense_values {
                    let _ = v.try_reserve(more);
                }
            }
            State::Table(t) if t.spec.format == Format::MulticlassMatrix && t.ovr.is_none() => {
                let _ = t.targets.try_reserve(more);
                let _ = t.mc.rows.try_reserve(more);
            }
            _ => {}
        }
    }

    /// Values a row adds to what the page holds: one per score column of a
    /// binary, ratings or ranking CSV, one per line of every other format (a
    /// multi-class row is reduced to the target's rank statistics).
    pub fn values_per_row(&self) -> u64 {
        match self {
            State::Table(t) if t.spec.scores != Scores::Reduced => t.models.len().max(1) as u64,
            _ => 1,
        }
    }

    /// Values of the first `rows` rows: [`State::values_per_row`] each, and
    /// [`super::QUERY_VALUES`] per query of each run (its per-query results).
    pub fn values(&self, rows: u64) -> u64 {
        let runs_queries = match self {
            State::Run(r) => r.queries.len() as u64,
            State::Table(t) if t.spec.scores == Scores::Ranked => {
                (t.ids_a.len() * t.models.len().max(1)) as u64
            }
            State::Table(t) if t.spec.scores == Scores::Lists => t.ids_a.len() as u64,
            _ => 0,
        };
        rows * self.values_per_row() + super::QUERY_VALUES * runs_queries
    }
}

pub enum State {
    Start,
    Failed,
    Run(RunState),
    Qrels(QrelsState),
    Measures(MeasuresState),
    Relations(RelationsState),
    Table(Box<TableState>),
}

/// A trec_eval measure name: `map`, `P_10`, `ndcg_cut_5`,
/// `iprec_at_recall_0.10`, `11pt_avg`, ... (a letter somewhere: never a number).
fn is_measure_name(f: &[u8]) -> bool {
    f.first().is_some_and(u8::is_ascii_alphanumeric)
        && f.iter().any(u8::is_ascii_alphabetic)
        && f.iter()
            .all(|&c| c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c == b'-')
}

pub struct TableState {
    spec: &'static TableFormat,
    /// Leading columns without a name: pandas' row index, skipped.
    index_columns: usize,
    delim: Delimiter,
    header: Vec<String>,
    /// Column roles.
    key_a: usize,
    key_b: usize,
    truth: usize,
    models: Vec<usize>,
    /// Multi-class: class number per model column (matrix) or list position (top-k).
    slots: Vec<u32>,
    /// A run's rank column (`rank`, `position`, `pos`), and whether it
    /// orders the lists (the only ranked column) or is checked against the
    /// scores that do.
    rank: Option<usize>,
    rank_orders: bool,
    // outputs
    ids_a: Interner,
    ids_b: Interner,
    /// Item names per row (ranking CSV: joined per query, never interned).
    names_b: Names,
    a: Vec<u32>,
    b: Vec<u32>,
    grades: Vec<Option<i32>>,
    labels: Vec<bool>,
    targets: Vec<u32>,
    truth_values: Vec<f64>,
    /// Per-query values: each row's metric (the values are `truth_values`,
    /// the queries `a`, the models `b`).
    measures: Interner,
    metric: Vec<u32>,
    /// Ranking CSV scores per model (`None`: not retrieved).
    model_values: Vec<Vec<Option<f64>>>,
    /// Binary and ratings predictions per model, 8 bytes a value (NaN stays NaN).
    dense_values: Vec<Vec<f64>>,
    mc: MulticlassPredictions,
    row_buffer: Vec<f64>,
    rows_off_one: usize,
    class_of_slot: std::collections::HashMap<u32, usize>,
    /// One-vs-rest reading of a matrix: (class, its column slot), labels, scores.
    ovr: Option<(u32, usize)>,
    /// Finish a binary CSV without rows as empty columns ([`State::keep_empty`]).
    keep_empty: bool,
    ovr_labels: Vec<bool>,
    ovr_scores: Vec<f64>,
    /// The rank column's values when the scores order the lists (checked
    /// against them at the end).
    ranks: Vec<Option<f64>>,
    /// Top-k lists: each item's score (−its position), and the line each
    /// user's list was on.
    list_score: Vec<f64>,
    list_line: Vec<u64>,
    /// Held-out interactions: how their ratings became grades.
    relevance_rule: super::RatingRelevance,
}

fn problem(
    line: u64,
    column: usize,
    expected: impl Into<String>,
    found: impl Into<String>,
    hint: Option<String>,
) -> Problem {
    Problem {
        line,
        column: column as u64,
        expected: expected.into(),
        found: found.into(),
        hint,
    }
}

impl State {
    /// Decides the format from the first content line (or the forced format).
    pub fn detect(file: &str, line: &[u8], options: &LoadOptions) -> Result<State, Problem> {
        let mut ws_splitter = Splitter::default();
        let ws = ws_splitter.split(line, Delimiter::Whitespace);
        let lower = file.to_ascii_lowercase();
        let lower = lower.strip_suffix(".gz").unwrap_or(&lower);
        let first = FirstLine {
            ws: &ws,
            line,
            name: lower,
            csv_like: line.contains(&b',') || line.contains(&b';'),
        };
        // each line format's own test of the first line (its file)
        let looks_run = trec_run::looks_like(&first);
        let looks_qrels = trec_qrels::looks_like(&first);
        let looks_ranked = msmarco_run::looks_like(&first);
        let looks_eval = trec_eval_output::looks_like(&first);
        let looks_prefs = relations::looks_like_prefs(&first);
        let looks_zscores = relations::looks_like_zscores(&first);
        // the relation formats that are qrels in form, chosen by name
        let named_relation = if lower.contains("qrels_jg") {
            Some(Format::TrecQrelsJg)
        } else if lower.contains("qrels_prefs") {
            Some(Format::TrecQrelsPrefs)
        } else {
            None
        };
        let forced = options.format.or(named_relation.filter(|_| looks_qrels));
        // judgments (the CLI's --qrels): four or more whitespace fields are
        // TREC qrels (their own errors), anything else a table's header
        if options.judgments
            && forced.is_none()
            && (looks_qrels || (!first.csv_like && ws.len() >= 4))
        {
            return Ok(State::Qrels(QrelsState::default()));
        }
        match forced {
            // a relation format names the files that are not runs: trec_eval
            // reads the relations beside the runs (six fields are never a
            // relation's line)
            Some(f) if f.is_relation() && looks_run => return Ok(State::Run(RunState::default())),
            Some(
                f @ (Format::TrecPrefs
                | Format::TrecQrelsPrefs
                | Format::TrecQrelsJg
                | Format::TrecZscores),
            ) => return Ok(State::Relations(RelationsState::new(f))),
            None if looks_prefs => {
                return Ok(State::Relations(RelationsState::new(Format::TrecPrefs)))
            }
            None if looks_zscores => {
                return Ok(State::Relations(RelationsState::new(Format::TrecZscores)))
            }
            Some(Format::TrecRun) => return Ok(State::Run(RunState::default())),
            Some(Format::MsMarcoRun) => return Ok(State::Run(RunState::ranked())),
            None if looks_ranked => return Ok(State::Run(RunState::ranked())),
            Some(Format::TrecQrels) => return Ok(State::Qrels(QrelsState::default())),
            Some(Format::TrecEvalOutput) => return Ok(State::Measures(Default::default())),
            None if looks_eval => return Ok(State::Measures(Default::default())),
            None if looks_run => return Ok(State::Run(RunState::default())),
            None if looks_qrels => return Ok(State::Qrels(QrelsState::default())),
            _ => {}
        }
        let delim = Delimiter::detect(line);
        let mut fs_splitter = Splitter::default();
        let fs = fs_splitter.split(line, delim);
        let header = header_names(&fs);
        // a line almost of a line format (a z-score line with a damaged
        // value) gets that format's error, not a CSV header's
        let almost = || {
            (forced.is_none() && relations::almost_zscores(&first))
                .then(|| State::Relations(RelationsState::new(Format::TrecZscores)))
        };
        if header
            .iter()
            .all(|h| fields::number(h.as_bytes()).is_some())
        {
            if let Some(state) = almost() {
                return Ok(state);
            }
            return Err(problem(
                0,
                1,
                "a header line naming the columns (e.g. label,score or query_id,item_id,score,relevance)",
                format!("data: {}", shown(line)),
                Some(format!("Add a header line to {file}, or if it is a TREC file check that it has 6 fields (run) or 4 fields (qrels).")),
            ));
        }
        match TableState::from_header(header, line, delim, forced) {
            Ok(t) => Ok(State::Table(Box::new(t))),
            Err(p) => almost().ok_or(p),
        }
    }

    /// For the formats a file's halves can be parsed apart and joined (each
    /// row stands alone: a binary CSV, a multi-class matrix read whole, not
    /// one class against the rest), the values a row adds
    /// ([`State::values_per_row`]) and the fewest bytes a row takes (a
    /// character and a delimiter per column the row must have); else `None`.
    pub fn split_shape(&self, options: &LoadOptions) -> Option<(u64, u64)> {
        let State::Table(t) = self else { return None };
        let columns = t.models.len() as u64 + 1;
        match t.spec.format {
            Format::BinaryCsv => Some((t.models.len().max(1) as u64, 2 * columns)),
            Format::MulticlassMatrix if options.one_vs_rest.is_none() => Some((1, 2 * columns)),
            _ => None,
        }
    }

    /// The fast path ([`super::fast`]) this file's rows may take: a TREC run
    /// or qrels file always; a binary CSV when its columns allow it: the
    /// label and score columns are all there is, the delimiter is one byte,
    /// and labels are read as 0/1 (no positive label chosen).
    pub fn fast_shape(&self, options: &LoadOptions) -> Option<fast::Shape> {
        let t = match self {
            State::Run(r) if !r.ranked => return Some(fast::Shape::Run),
            State::Qrels(_) => return Some(fast::Shape::Qrels),
            State::Table(t) => t,
            _ => return None,
        };
        let Delimiter::Byte(delim) = t.delim else {
            return None;
        };
        let scores_are_the_rest = t.models.len() + 1 == t.header.len()
            && (0..t.header.len())
                .filter(|&c| c != t.truth)
                .eq(t.models.iter().copied());
        (t.spec.format == Format::BinaryCsv
            && options.positive_label.is_none()
            && scores_are_the_rest
            && !matches!(delim, b'0'..=b'9' | b'.' | b'-' | b'\r' | b'\n'))
        .then_some(fast::Shape::Binary(fast::Plain {
            truth: t.truth,
            fields: t.header.len(),
            delim,
        }))
    }

    /// Reads rows of the shape [`State::fast_shape`] gave by the fast path.
    pub fn fast_rows(&mut self, shape: fast::Shape, bytes: &[u8], budget: u64) -> fast::Taken {
        match (self, shape) {
            (State::Table(t), fast::Shape::Binary(plain)) => {
                fast::rows(plain, bytes, budget, &mut t.labels, &mut t.dense_values)
            }
            (State::Run(r), fast::Shape::Run) => {
                let mut columns =
                    fast::TrecColumns::new(&mut r.queries, &mut r.q, &mut r.docs, &mut r.score);
                columns.tag = Some(&mut r.tag);
                fast::trec_rows::<6, _>(bytes, budget, columns, 4, fields::plain_decimal)
            }
            (State::Qrels(r), fast::Shape::Qrels) => {
                let columns =
                    fast::TrecColumns::new(&mut r.queries, &mut r.q, &mut r.docs, &mut r.grade);
                fast::trec_rows::<4, _>(bytes, budget, columns, 3, fast::plain_grade)
            }
            _ => fast::Taken::default(),
        }
    }

    /// A binary CSV or multi-class matrix without rows finishes as empty
    /// columns instead of nothing: one part of a split file may hold no rows
    /// while the other does.
    pub fn keep_empty(&mut self) {
        if let State::Table(t) = self {
            t.keep_empty = true;
        }
    }

    pub fn consumes_header(&self) -> bool {
        matches!(self, State::Table(_))
    }

    pub fn delimiter(&self) -> Option<Delimiter> {
        match self {
            State::Table(t) => Some(t.delim),
            _ => None,
        }
    }

    pub fn row(&mut self, n: u64, f: &Row, options: &LoadOptions) -> Result<(), Problem> {
        match self {
            State::Start | State::Failed => Ok(()),
            State::Measures(r) => r.row(n, f, options),
            State::Run(r) => r.row(n, f, options),
            State::Qrels(r) => r.row(n, f, options),
            State::Relations(r) => r.row(n, f, options),
            State::Table(t) => t.row(n, f, options),
        }
    }

    pub fn finish(
        self,
        file: &str,
        options: &LoadOptions,
        _last_line: u64,
        errors: &mut LoadError,
    ) -> Option<Parsed> {
        let _ = options;
        match self {
            State::Start | State::Failed => None,
            State::Run(r) => r.finish(file, errors),
            State::Measures(r) => r.finish(file, errors),
            State::Qrels(r) => r.finish(file, errors),
            State::Relations(r) => r.finish(file, errors),
            State::Table(t) => t.finish(file, errors),
        }
    }
}

/// What to do about a header whose only candidates for scores are its
/// first columns without a name (read as pandas' row index).
fn unnamed_hint(index_columns: usize) -> Option<String> {
    let which = match index_columns {
        0 => return None,
        1 => "Column 1 has no name, so it is read as the row index pandas' to_csv() writes"
            .to_string(),
        n => format!(
            "Columns 1–{n} have no name, so they are read as the row index pandas' to_csv() writes"
        ),
    };
    let it = if index_columns == 1 {
        "it holds"
    } else {
        "one holds"
    };
    Some(format!(
        "{which}: if {it} a model's scores, name it in the header."
    ))
}

/// The load notice of a table whose first columns have no name.
const INDEX_NOTE: &str = "read as the row index pandas' to_csv() writes, and skipped (to_csv(index=False) leaves it out).";

/// Judgments grouped and sorted per query (see [`Qrels::build`]); a
/// document judged twice for a query is refused ([`no_duplicate`]).
pub fn qrels_parsed(
    queries: Interner,
    q: &[u32],
    docs: &Names,
    grade: &[i32],
) -> Result<Parsed, Problem> {
    no_duplicate(&queries, q, docs, "qrels")?;
    let (judgments, duplicates) =
        rankscope_core::ranking::Qrels::from_columns(q, docs, grade, queries.len());
    Ok(Parsed::Qrels {
        queries,
        judgments,
        rows: q.len(),
        duplicates,
    })
}

/// trec_eval's rule for a document listed twice for one query, in a run or
/// in qrels: the file is refused ("duplicate docs"), rather than one of the
/// two lines chosen silently (tools that read files into dictionaries keep
/// the last, others the first).
fn no_duplicate(queries: &Interner, q: &[u32], docs: &Names, what: &str) -> Result<(), Problem> {
    let Some((query, a, b)) = rankscope_core::ranking::first_duplicate(q, docs, queries.len())
    else {
        return Ok(());
    };
    Err(problem(
        0,
        0,
        format!("each document at most once per query (trec_eval refuses a {what} that repeats one: 'duplicate docs')"),
        format!(
            "document '{}' twice for query '{}', in rows {} and {} of the {what}",
            super::error::capped(docs.get(b as usize).to_string()),
            super::error::capped(queries.name(query).to_string()),
            a + 1,
            b + 1
        ),
        Some(if what == "qrels" {
            "Remove one of the two lines; or, if the second column names judgment groups (trec_eval's qrels_jg), name the file *.qrels_jg (command line: --input-format trec_qrels_jg).".into()
        } else {
            "Remove one of the two lines.".into()
        }),
    ))
}

/// A delimited table's header as the table formats' detection reads it:
/// its names, in lower case, the leading columns without a name, and the
/// format the user chose (if any).
pub(super) struct Header<'a> {
    names: &'a [String],
    /// The header line as it is in the file (echoed in messages).
    line: &'a [u8],
    lower: Vec<String>,
    /// pandas' to_csv() writes the row index first, under no name ("", or
    /// "Unnamed: 0" once the file has been read and written again; one such
    /// column per round)
    index_columns: usize,
    forced: Option<Format>,
}

impl Header<'_> {
    /// The first column with one of `names`.
    fn find(&self, names: &[&str]) -> Option<usize> {
        self.lower.iter().position(|h| is_one_of(h, names))
    }

    fn query(&self) -> Option<usize> {
        self.find(QUERY)
    }

    fn user(&self) -> Option<usize> {
        self.find(USER)
    }

    fn item(&self) -> Option<usize> {
        self.find(ITEM)
    }

    /// The ground truth of a row-per-example table: a label, else a rating or a grade.
    fn truth(&self) -> Option<usize> {
        self.find(LABEL)
            .or(self.find(RATING))
            .or(self.find(RELEVANCE))
    }

    /// The named columns not in `used`.
    fn rest(&self, used: &[usize]) -> Vec<usize> {
        (self.index_columns..self.names.len())
            .filter(|i| !used.contains(i))
            .collect()
    }

    /// The header line as the file has it: a message echoes the input's
    /// bytes, never the names joined anew (the CLI escapes what a terminal
    /// would obey).
    fn text(&self) -> String {
        String::from_utf8_lossy(self.line).into_owned()
    }
}

/// The roles a table format gives the header's columns.
#[derive(Default)]
pub(super) struct Roles {
    key_a: usize,
    key_b: usize,
    truth: usize,
    models: Vec<usize>,
    /// Multi-class: class number per model column (matrix) or list position (top-k).
    slots: Vec<u32>,
    class_of_slot: std::collections::HashMap<u32, usize>,
    /// A run's rank column, and whether it orders the lists ([`Roles::ranked`]).
    rank: Option<usize>,
    rank_orders: bool,
}

impl Roles {
    /// A run's roles with its rank column (`rank`, `position`, `pos`) set
    /// apart: alone, it orders the lists ascending (its values negated, as
    /// an MS MARCO run's); beside score columns, the scores order them
    /// (trec_eval's rule) and the ranks are checked against them.
    fn ranked(mut self, h: &Header) -> Roles {
        let found = self
            .models
            .iter()
            .position(|&c| is_one_of(&h.lower[c], RANK));
        if let Some(p) = found {
            self.rank = Some(self.models[p]);
            self.rank_orders = self.models.len() == 1;
            if !self.rank_orders {
                self.models.remove(p);
            }
        }
        self
    }
}

/// A delimited-table format (CSV, TSV, semicolons, spaces), as its file
/// defines it: how its header is recognised, how a line is read, what the
/// file becomes.
pub(super) struct TableFormat {
    format: Format,
    /// A header it reads, for the message of a header no format reads.
    header: &'static str,
    scores: Scores,
    /// The header's columns' roles (`None`: not this format; `Err`: this
    /// format, but a header it cannot read).
    detect: fn(&Header) -> Option<Result<Roles, Problem>>,
    row: fn(&mut TableState, u64, &Row, &LoadOptions) -> Result<(), Problem>,
    /// The parsed file from the table, the models' names and the file's stem.
    columns: fn(TableState, Vec<String>, String, &mut LoadError) -> Option<Parsed>,
}

/// What a table keeps per model and row.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Scores {
    /// A score per row and model (binary, ratings): `dense_values`.
    Dense,
    /// A score or nothing (not retrieved) per row and model, the rows
    /// grouped into queries, each with its results per model (runs): `model_values`.
    Ranked,
    /// Rows reduced as they are read (multi-class, per-query values).
    Reduced,
    /// One ranked list per line, one item per list column (top-k lists).
    Lists,
}

/// The delimited-table formats in the order their headers are tried (a
/// format chosen by the user is tried alone).
const TABLE_FORMATS: &[&TableFormat] = &[
    &per_query_csv::FORMAT,
    &interactions::FORMAT,
    &ratings_csv::FORMAT,
    &ranking_csv::FORMAT,
    &run_csv::FORMAT,
    &topk_lists::FORMAT,
    &multiclass_topk::FORMAT,
    &multiclass_matrix::FORMAT,
    &binary_csv::FORMAT,
];

/// What to do about a header no table format reads.
fn header_hint(header: &[String], delim: Delimiter) -> String {
    let whitespace = delim == Delimiter::Whitespace;
    if whitespace && header.len() == 1 {
        "The header has one column: is the file separated by something other than comma, tab, semicolon or spaces?".into()
    } else if whitespace && header.len() == 3 && fields::integer(header[2].as_bytes()).is_some() {
        // `q1 d1 1`: a line of data, not a header
        format!("This line has three fields and no header: an MS MARCO run (qid docid rank) is read from a .tsv file or one named msmarco, or with --input-format {}; qrels need trec_eval's four fields (qid 0 docid grade).", Format::MsMarcoRun.id())
    } else {
        "Rename the ground-truth column (e.g. to label, target, relevance or rating).".into()
    }
}

/// The headers the table formats read, the last tried first.
fn known_headers() -> String {
    let headers: Vec<&str> = TABLE_FORMATS.iter().rev().map(|t| t.header).collect();
    headers.join("; ")
}

impl TableState {
    fn from_header(
        header: Vec<String>,
        line: &[u8],
        delim: Delimiter,
        forced: Option<super::Format>,
    ) -> Result<TableState, Problem> {
        let index_columns = header
            .iter()
            .take_while(|h| h.trim().is_empty() || h.starts_with("Unnamed: "))
            .count()
            .min(header.len() - 1);
        let h = Header {
            names: &header,
            line,
            lower: header.iter().map(|h| h.to_ascii_lowercase()).collect(),
            index_columns,
            forced,
        };
        let found = TABLE_FORMATS
            .iter()
            .filter(|t| forced.is_none_or(|g| g == t.format))
            .find_map(|&t| Some((t, (t.detect)(&h)?)));
        let (spec, roles) = match found {
            Some((spec, roles)) => (spec, roles?),
            None if h.user().is_some() => {
                return Err(problem(
                    0,
                    0,
                    "a user's file in one of two shapes: top-k lists (user_id,rec_1,…,rec_k, or user_id,items with the items in one cell) or held-out interactions (user_id,item_id[,rating|timestamp])",
                    format!("'{}'", h.text()),
                    Some("Name the columns so (a run with scores is user_id,item_id,score).".into()),
                ))
            }
            None => {
                return Err(match h.truth() {
                    Some(l) => problem(
                        0,
                        0,
                        "a label column followed by one score column per model",
                        format!("only '{}'", header[l]),
                        unnamed_hint(index_columns),
                    ),
                    None => problem(
                        0,
                        0,
                        format!("a header with known column names: {}", known_headers()),
                        format!("'{}'", h.text()),
                        Some(header_hint(&header, delim)),
                    ),
                })
            }
        };
        let (format, scores) = (spec.format, spec.scores);
        let many =
            matches!(scores, Scores::Dense | Scores::Ranked) && roles.models.len() > MAX_MODELS;
        if many {
            return Err(problem(
                0,
                MAX_MODELS + 2,
                format!("at most {MAX_MODELS} score columns (one per model)"),
                format!("{} score columns", roles.models.len()),
                Some("Split the models over several files.".into()),
            ));
        }
        // (a ranking CSV without scores is judgments alone, as interactions are)
        if roles.models.is_empty() && !matches!(format, Format::RankingCsv | Format::Interactions) {
            return Err(problem(
                0,
                0,
                "at least one score or prediction column",
                format!("'{}'", h.text()),
                unnamed_hint(index_columns),
            ));
        }
        let n = roles.models.len();
        Ok(TableState {
            spec,
            index_columns,
            delim,
            key_a: roles.key_a,
            key_b: roles.key_b,
            truth: roles.truth,
            model_values: if scores == Scores::Ranked {
                vec![Vec::new(); n]
            } else {
                Vec::new()
            },
            dense_values: if scores == Scores::Dense {
                vec![Vec::new(); n]
            } else {
                Vec::new()
            },
            row_buffer: vec![0.0; n],
            models: roles.models,
            slots: roles.slots,
            class_of_slot: roles.class_of_slot,
            rank: roles.rank,
            rank_orders: roles.rank_orders,
            ranks: Vec::new(),
            list_score: Vec::new(),
            list_line: Vec::new(),
            relevance_rule: Default::default(),
            header,
            ids_a: Interner::new(),
            ids_b: Interner::new(),
            measures: Interner::new(),
            metric: vec![],
            names_b: Names::default(),
            a: vec![],
            b: vec![],
            grades: vec![],
            labels: vec![],
            targets: vec![],
            truth_values: vec![],
            mc: MulticlassPredictions::default(),
            rows_off_one: 0,
            ovr: None,
            keep_empty: false,
            ovr_labels: Vec::new(),
            ovr_scores: Vec::new(),
        })
    }

    /// A ranking or ratings line's two keys (query and item, user and item).
    fn keys<'f>(&self, n: u64, f: &'f Row) -> Result<(&'f str, &'f str), Problem> {
        let key = |c: usize| {
            fields::id(&f[c]).ok_or_else(|| {
                problem(
                    n,
                    c + 1,
                    format!("an id in column '{}'", self.header[c]),
                    shown(&f[c]),
                    None,
                )
            })
        };
        Ok((key(self.key_a)?, key(self.key_b)?))
    }

    fn columns(self, file: &str, errors: &mut LoadError) -> Option<Parsed> {
        let stem = model_name_from_file(file);
        let model_name = |t: &TableState, c: usize| -> String {
            let h = &t.header[c];
            let generic = [
                "score",
                "y_score",
                "prob",
                "probability",
                "prediction",
                "pred",
                "y_pred",
                "sim",
                "estimate",
                "est",
            ];
            let generic = generic.contains(&h.to_ascii_lowercase().as_str());
            if t.models.len() == 1 && (generic || t.rank_orders) {
                stem.clone()
            } else {
                h.clone()
            }
        };
        let names: Vec<String> = self.models.iter().map(|&c| model_name(&self, c)).collect();
        (self.spec.columns)(self, names, stem, errors)
    }
}

impl Lines for TableState {
    #[inline]
    fn row(&mut self, n: u64, f: &Row, options: &LoadOptions) -> Result<(), Problem> {
        if f.len() != self.header.len() {
            let hint = if f.len() == 1 && self.header.len() > 1 {
                Some(format!("The header is separated by {}, but this line is not: is the delimiter the same on every line?", self.delim.name()))
            } else {
                None
            };
            return Err(problem(
                n,
                f.len().min(self.header.len()) + 1,
                format!("{} as in the header", count(self.header.len(), "field")),
                count(f.len(), "field"),
                hint,
            ));
        }
        // a column without a name is pandas' row index only if it holds
        // whole numbers (0..n−1, or a filtered or sorted frame's labels);
        // anything else may be a model's scores under no name
        for c in 0..self.index_columns {
            if fields::integer(&f[c]).is_none() {
                return Err(problem(
                    n,
                    c + 1,
                    format!("a row index (a whole number) in column {}, which has no name", c + 1),
                    shown(&f[c]),
                    Some("A column without a name is read as the row index pandas' to_csv() writes; if it holds a model's scores, name it in the header.".into()),
                ));
            }
        }
        (self.spec.row)(self, n, f, options)
    }

    fn finish(self, file: &str, errors: &mut LoadError) -> Option<Parsed> {
        let mut notes = match self.index_columns {
            0 => Vec::new(),
            1 => vec![format!("Column 1 has no name: {INDEX_NOTE}")],
            n => vec![format!("Columns 1–{n} have no name: {INDEX_NOTE}")],
        };
        // a ranking keyed by users (user_id, not query_id)
        let key = &self.header[self.key_a];
        if matches!(self.spec.format, Format::RankingCsv | Format::RunCsv)
            && is_one_of(&key.to_ascii_lowercase(), USER)
        {
            notes.push(super::by_user_note(key));
        }
        Some(self.columns(file, errors)?.noted(notes))
    }
}

/// The query id (field 1) and document id (field 3) of a TREC run or qrels line.
fn trec_ids<'a>(n: u64, f: &'a Row) -> Result<(&'a str, &'a str), Problem> {
    let q = fields::id(&f[0]).ok_or_else(|| problem(n, 1, "a query id", shown(&f[0]), None))?;
    let d = fields::id(&f[2]).ok_or_else(|| problem(n, 3, "a document id", shown(&f[2]), None))?;
    Ok((q, d))
}

/// Score columns of formats where every row has a value (checked while parsing).
/// 1/0, true/false, yes/no, pos/neg (case-insensitive), or the chosen positive label.
fn binary_label(raw: &[u8], positive: Option<&str>) -> Option<bool> {
    if positive.is_none() {
        // the common spellings without an allocation
        match raw {
            b"1" => return Some(true),
            b"0" => return Some(false),
            _ => {}
        }
    }
    let s = std::str::from_utf8(raw).ok()?.trim();
    if let Some(p) = positive {
        return (!s.is_empty()).then(|| s == p);
    }
    match s.to_ascii_lowercase().as_str() {
        "1" | "1.0" | "true" | "yes" | "pos" | "positive" | "t" | "y" => Some(true),
        "0" | "0.0" | "false" | "no" | "neg" | "negative" | "f" | "n" | "-1" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_bytes;

    /// Six whitespace fields with a rank and a score are a TREC run line,
    /// four with whole numbers second and last a qrels line, whatever their
    /// ids hold (a comma, a semicolon); real CSVs, with spaces after their
    /// delimiters or none, stay CSVs.
    #[test]
    fn a_trec_line_is_one_whatever_its_ids_hold() {
        let o = LoadOptions::default();
        for run in [
            "q1 Q0 d,1 1 0.5 r\nq1 Q0 d,2 2 0.4 r\n",
            "q;1 Q0 d1 1 0.5 r\nq;1 Q0 d2 2 0.4 r\n",
            "q,1 Q0 d;1 1 0.5 run,v2\n",
        ] {
            match parse_bytes("x.txt", run.as_bytes(), &o).unwrap().data() {
                Parsed::Run { docs, queries, .. } => {
                    assert!(queries.name(0).starts_with('q'));
                    assert!(docs.get(0).starts_with('d'), "{run}");
                }
                other => panic!("{run}: {other:?}"),
            }
        }
        for qrels in ["q;1 0 d,1 1\nq;1 0 d,2 0\n", "q1 0 a,b;c 2\n"] {
            let parsed = parse_bytes("x.txt", qrels.as_bytes(), &o).unwrap();
            assert!(matches!(parsed.data(), Parsed::Qrels { .. }), "{qrels}");
        }
        for csv in [
            "query_id, doc_id, score, relevance\nq1, d1, 0.5, 1\n",
            "label, score\n1, 0.5\n0, 0.25\n",
            "qid,Q0,docno,rank,score,tag\nq1,Q0,d1,1,0.5,r\n",
        ] {
            let parsed = parse_bytes("x.csv", csv.as_bytes(), &o);
            assert!(
                !matches!(
                    parsed.as_ref().map(|p| p.data()),
                    Ok(Parsed::Run { .. } | Parsed::Qrels { .. })
                ),
                "{csv}: {parsed:?}"
            );
        }
        // a CSV line of a run without a header stays a CSV's (its numbers hold commas)
        let err = parse_bytes("x.csv", b"q1, Q0, d1, 1, 0.5, r\n", &o).unwrap_err();
        assert!(
            err.to_string().contains("a header with known column names"),
            "{err}"
        );
    }

    /// The formats' table has every variant once, with distinct ids that read back.
    #[test]
    fn every_format_has_one_row() {
        for (i, f) in Format::ALL.iter().enumerate() {
            assert_eq!(FORMATS.iter().filter(|r| r.0 == *f).count(), 1, "{f:?}");
            assert_eq!(Format::from_id(f.id()), Some(*f));
            assert!(Format::ALL[..i].iter().all(|g| g.id() != f.id()));
        }
        // a variant missing from the table fails to compile here first
        for f in Format::ALL {
            match f {
                Format::TrecRun
                | Format::TrecQrels
                | Format::RankingCsv
                | Format::RunCsv
                | Format::BinaryCsv
                | Format::MulticlassMatrix
                | Format::MulticlassTopK
                | Format::RatingsCsv
                | Format::JsonRun
                | Format::JsonQrels
                | Format::TrecEvalOutput
                | Format::TrecPrefs
                | Format::TrecQrelsPrefs
                | Format::TrecQrelsJg
                | Format::TrecZscores
                | Format::PerQueryCsv
                | Format::MsMarcoRun
                | Format::TopKLists
                | Format::Interactions => {}
            }
        }
    }
}
