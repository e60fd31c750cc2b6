//! Format detection and row parsing for every text format.

use super::error::{count, shown, LoadError, Problem};
use super::fast;
use super::fields::{self, Delimiter, Row, Splitter};
use super::{model_name_from_file, LoadOptions, Parsed};
use crate::core::evaluate::{BinaryData, MulticlassData, RatingsData};
use crate::core::ids::{Interner, Names};
use crate::core::multiclass::{MulticlassPredictions, RowSummary};

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
}

impl Format {
    pub const ALL: [Format; 15] = [
        Format::TrecRun,
        Format::TrecQrels,
        Format::RankingCsv,
        Format::BinaryCsv,
        Format::MulticlassMatrix,
        Format::MulticlassTopK,
        Format::RatingsCsv,
        Format::JsonRun,
        Format::JsonQrels,
        Format::TrecEvalOutput,
        Format::TrecPrefs,
        Format::TrecQrelsPrefs,
        Format::TrecQrelsJg,
        Format::TrecZscores,
        Format::PerQueryCsv,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Format::TrecRun => "TREC run",
            Format::TrecQrels => "TREC qrels",
            Format::RankingCsv => "ranking CSV (query, item, score, relevance)",
            Format::BinaryCsv => "binary classification CSV (label, scores)",
            Format::MulticlassMatrix => "multi-class probability/logit matrix",
            Format::MulticlassTopK => "multi-class top-k list",
            Format::RatingsCsv => "ratings CSV (user, item, rating, predictions)",
            Format::JsonRun => "JSON run (ranx: query -> document -> score)",
            Format::JsonQrels => "JSON qrels (ranx: query -> document -> grade)",
            Format::TrecEvalOutput => "trec_eval output (measure, query, value)",
            Format::TrecPrefs => "trec_eval preferences (qid jg subgroup docno rel_level)",
            Format::TrecQrelsPrefs => "qrels read as trec_eval preferences",
            Format::TrecQrelsJg => "qrels with judgment groups (qid jg docno rel)",
            Format::TrecZscores => "trec_eval z-scores (qid measure mean stddev)",
            Format::PerQueryCsv => "per-query values (query_id, model, metric, value)",
        }
    }

    pub fn id(self) -> &'static str {
        match self {
            Format::TrecRun => "trec_run",
            Format::TrecQrels => "trec_qrels",
            Format::RankingCsv => "ranking_csv",
            Format::BinaryCsv => "binary_csv",
            Format::MulticlassMatrix => "multiclass_matrix",
            Format::MulticlassTopK => "multiclass_topk",
            Format::RatingsCsv => "ratings_csv",
            Format::JsonRun => "json_run",
            Format::JsonQrels => "json_qrels",
            Format::TrecEvalOutput => "trec_eval_output",
            Format::TrecPrefs => "trec_prefs",
            Format::TrecQrelsPrefs => "trec_qrels_prefs",
            Format::TrecQrelsJg => "trec_qrels_jg",
            Format::TrecZscores => "trec_zscores",
            Format::PerQueryCsv => "per_query_csv",
        }
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

/// More score columns than this in one file is almost surely a wrong format.
pub const MAX_MODELS: usize = 1000;

fn is_one_of(name: &str, names: &[&str]) -> bool {
    names.contains(&name)
}

/// A class column name like `p_3`, `prob_3`, `class_3`, `3`: its class number.
fn class_suffix(name: &str) -> Option<u32> {
    let digits = name.trim_start_matches(|c: char| !c.is_ascii_digit());
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let prefix = &name[..name.len() - digits.len()];
    let ok = prefix.is_empty()
        || [
            "p_", "p", "prob_", "prob", "proba_", "class_", "c", "c_", "logit_", "score_", "s_",
            "y_",
        ]
        .contains(&prefix);
    if ok {
        digits.parse().ok()
    } else {
        None
    }
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

/// Two score columns that name themselves probabilities of classes 0 and 1
/// (`p_0,p_1`, `proba_0,proba_1`, `prob0,prob1`: what `predict_proba` gives):
/// a 2-class probability matrix, not two binary models (`score_0,score_1`
/// or `m0,m1` stay two models).
fn two_class_probabilities(others: &[usize], lower: &[String]) -> bool {
    let probability = |name: &str, class: char| {
        [
            "p_",
            "p",
            "prob_",
            "prob",
            "proba_",
            "proba",
            "probability_",
        ]
        .iter()
        .any(|prefix| {
            name.strip_prefix(prefix)
                .is_some_and(|d| d.len() == 1 && d.starts_with(class))
        })
    };
    let mut names: Vec<&str> = others.iter().map(|&c| lower[c].as_str()).collect();
    names.sort_unstable();
    matches!(names[..], [a, b] if probability(a, '0') && probability(b, '1'))
}

/// A top-k column name like `pred_1`, `top_1`, `rank_1`, `pred1`: its position.
fn list_position(name: &str) -> Option<u32> {
    for prefix in [
        "pred_",
        "pred",
        "top_",
        "top",
        "rank_",
        "rank",
        "prediction_",
        "rec_",
        "item_",
    ] {
        if let Some(rest) = name.strip_prefix(prefix) {
            if !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()) {
                return rest.parse().ok();
            }
        }
    }
    None
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
            State::Table(t) if t.format == Format::BinaryCsv => {
                let _ = t.labels.try_reserve(more);
                for v in &mut t.dense_values {
                    let _ = v.try_reserve(more);
                }
            }
            State::Table(t) if t.format == Format::MulticlassMatrix && t.ovr.is_none() => {
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
            State::Table(t)
                if matches!(
                    t.format,
                    Format::BinaryCsv | Format::RatingsCsv | Format::RankingCsv
                ) =>
            {
                t.models.len().max(1) as u64
            }
            _ => 1,
        }
    }

    /// Values of the first `rows` rows: [`State::values_per_row`] each, and
    /// [`super::QUERY_VALUES`] per query of each run (its per-query results).
    pub fn values(&self, rows: u64) -> u64 {
        let runs_queries = match self {
            State::Run(r) => r.queries.len() as u64,
            State::Table(t) if t.format == Format::RankingCsv => {
                (t.ids_a.len() * t.models.len().max(1)) as u64
            }
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

/// A file of trec_eval's other relation formats (preferences, judgment
/// groups, z-scores): each line checked, then kept as text for
/// `rankscope trec_eval` (`crate::trec_eval::relations`), which evaluates them.
pub struct RelationsState {
    format: Format,
    text: Vec<u8>,
    queries: Interner,
    rows: usize,
}

impl RelationsState {
    fn new(format: Format) -> Self {
        RelationsState {
            format,
            text: Vec::new(),
            queries: Interner::default(),
            rows: 0,
        }
    }

    fn row(&mut self, n: u64, f: &Row) -> Result<(), Problem> {
        let (fields, expected) = match self.format {
            Format::TrecPrefs => (5, "5 whitespace-separated fields: qid jg subgroup docno rel_level (trec_eval's prefs)"),
            Format::TrecZscores => (4, "4 whitespace-separated fields: qid measure mean stddev (trec_eval's z-scores)"),
            _ => (4, "4 whitespace-separated fields: qid jg docno relevance"),
        };
        if f.len() != fields {
            return Err(problem(
                n,
                f.len().min(fields) + 1,
                expected,
                count(f.len(), "field"),
                None,
            ));
        }
        let q = fields::id(&f[0]).ok_or_else(|| problem(n, 1, "a query id", shown(&f[0]), None))?;
        match self.format {
            Format::TrecPrefs => {
                fields::number(&f[4]).ok_or_else(|| {
                    problem(n, 5, "a relevance level (a number)", shown(&f[4]), None)
                })?;
            }
            Format::TrecZscores => {
                if !is_measure_name(&f[1]) {
                    return Err(problem(
                        n,
                        2,
                        "a trec_eval measure name (e.g. map, P_10)",
                        shown(&f[1]),
                        None,
                    ));
                }
                for c in [2, 3] {
                    fields::number(&f[c]).ok_or_else(|| {
                        problem(
                            n,
                            c + 1,
                            if c == 2 {
                                "a mean (a number)"
                            } else {
                                "a standard deviation (a number)"
                            },
                            shown(&f[c]),
                            None,
                        )
                    })?;
                }
            }
            _ => {
                fields::integer(&f[3]).ok_or_else(|| {
                    problem(n, 4, "an integer relevance grade", shown(&f[3]), None)
                })?;
            }
        }
        self.queries.intern(q);
        self.rows += 1;
        for i in 0..f.len() {
            if i > 0 {
                self.text.push(b' ');
            }
            self.text.extend_from_slice(&f[i]);
        }
        self.text.push(b'\n');
        Ok(())
    }
}

#[derive(Default)]
pub struct RunState {
    queries: Interner,
    q: Vec<u32>,
    docs: Names,
    score: Vec<f64>,
    /// The last line's run tag (trec_eval keeps that one).
    tag: Vec<u8>,
}

/// trec_eval output lines `measure qid value` (values shown as they are).
#[derive(Default)]
pub struct MeasuresState {
    measures: Interner,
    queries: Interner,
    m: Vec<u32>,
    q: Vec<u32>,
    value: Vec<f64>,
    runid: Option<String>,
}

/// A trec_eval measure name: `map`, `P_10`, `ndcg_cut_5`,
/// `iprec_at_recall_0.10`, `11pt_avg`, ... (a letter somewhere: never a number).
fn is_measure_name(f: &[u8]) -> bool {
    f.first().is_some_and(u8::is_ascii_alphanumeric)
        && f.iter().any(u8::is_ascii_alphabetic)
        && f.iter()
            .all(|&c| c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c == b'-')
}

#[derive(Default)]
pub struct QrelsState {
    queries: Interner,
    q: Vec<u32>,
    docs: Names,
    grade: Vec<i32>,
}

pub struct TableState {
    format: Format,
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
        let named_run = [".run", ".trec", ".res", ".results"]
            .iter()
            .any(|e| lower.ends_with(e));
        let named_qrels = lower.contains("qrel");
        let csv_like = line.contains(&b',') || line.contains(&b';');
        let rank_and_score =
            |ws: &Row| fields::integer(&ws[3]).is_some() && fields::number(&ws[4]).is_some();
        // six whitespace fields with a rank and a score where they belong, and
        // no comma or semicolon before the tag, are a TREC run line whatever
        // its tag holds (`run,v2` is a tag, not a CSV)
        let trec_with_any_tag = ws.len() == 6
            && rank_and_score(&ws)
            && (0..5).all(|i| !ws[i].contains(&b',') && !ws[i].contains(&b';'));
        // a run line: 6+ fields with "Q0" second, or rank and score where they belong
        let looks_run = trec_with_any_tag
            || (!csv_like
                && ws.len() >= 6
                && (&ws[1] == b"Q0" || named_run || rank_and_score(&ws)));
        let looks_qrels = !csv_like
            && ws.len() == 4
            && (named_qrels
                || (fields::integer(&ws[3]).is_some() && fields::integer(&ws[1]).is_some()));
        // trec_eval output: `runid all name`, `num_q all 50`, `map q1 0.25`
        let looks_eval = !csv_like
            && ws.len() == 3
            && is_measure_name(&ws[0])
            && (&ws[0] == b"runid" || fields::number(&ws[2]).is_some());
        // trec_eval's preferences: five whitespace fields, a number last (its
        // group ids may hold commas, `F:Ret,C:Not`, but fewer than a CSV's fields)
        let commas = line.iter().filter(|&&b| b == b',').count();
        let looks_prefs = ws.len() == 5
            && !line.contains(&b';')
            && commas + 1 < ws.len()
            && !named_run
            && fields::number(&ws[4]).is_some();
        // trec_eval's z-scores: a measure name second, two numbers after it
        let looks_zscores = !csv_like
            && ws.len() == 4
            && is_measure_name(&ws[1])
            && &ws[1] != b"Q0"
            && fields::number(&ws[2]).is_some()
            && fields::number(&ws[3]).is_some()
            && fields::integer(&ws[3]).is_none();
        // the relation formats that are qrels in form, chosen by name
        let named_relation = if lower.contains("qrels_jg") {
            Some(Format::TrecQrelsJg)
        } else if lower.contains("qrels_prefs") {
            Some(Format::TrecQrelsPrefs)
        } else {
            None
        };
        let forced = options.format.or(named_relation.filter(|_| looks_qrels));
        match forced {
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
        if header
            .iter()
            .all(|h| fields::number(h.as_bytes()).is_some())
        {
            return Err(problem(
                0,
                1,
                "a header line naming the columns (e.g. label,score or query_id,item_id,score,relevance)",
                format!("data: {}", shown(line)),
                Some(format!("Add a header line to {file}, or if it is a TREC file check that it has 6 fields (run) or 4 fields (qrels).")),
            ));
        }
        TableState::from_header(header, delim, forced).map(|t| State::Table(Box::new(t)))
    }

    /// For the formats a file's halves can be parsed apart and joined (each
    /// row stands alone: a binary CSV, a multi-class matrix read whole, not
    /// one class against the rest), the values a row adds
    /// ([`State::values_per_row`]) and the fewest bytes a row takes (a
    /// character and a delimiter per column the row must have); else `None`.
    pub fn split_shape(&self, options: &LoadOptions) -> Option<(u64, u64)> {
        let State::Table(t) = self else { return None };
        let columns = t.models.len() as u64 + 1;
        match t.format {
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
            State::Run(_) => return Some(fast::Shape::Run),
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
        (t.format == Format::BinaryCsv
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
            State::Measures(r) => {
                if f.len() != 3 {
                    return Err(problem(
                        n,
                        f.len().min(3) + 1,
                        "3 whitespace-separated fields: measure query value (trec_eval's output)",
                        count(f.len(), "field"),
                        None,
                    ));
                }
                if !is_measure_name(&f[0]) {
                    return Err(problem(
                        n,
                        1,
                        "a trec_eval measure name (e.g. map, P_10, ndcg_cut_10)",
                        shown(&f[0]),
                        None,
                    ));
                }
                let q = fields::id(&f[1])
                    .ok_or_else(|| problem(n, 2, "a query id or 'all'", shown(&f[1]), None))?;
                if &f[0] == b"runid" {
                    r.runid = Some(String::from_utf8_lossy(&f[2]).into_owned());
                    return Ok(());
                }
                let v = fields::number(&f[2]).ok_or_else(|| {
                    problem(n, 3, "a measure value (a number)", shown(&f[2]), None)
                })?;
                let name = std::str::from_utf8(&f[0]).unwrap_or_default();
                r.m.push(r.measures.intern(name));
                r.q.push(r.queries.intern(q));
                r.value.push(v);
                Ok(())
            }
            State::Run(r) => {
                if f.len() < 6 {
                    let hint = if f.len() == 4 {
                        Some("This line looks like qrels (qid iter docid rel); was a qrels file dropped where a run was expected?".to_string())
                    } else {
                        None
                    };
                    return Err(problem(
                        n,
                        f.len() + 1,
                        "6 whitespace-separated fields: qid Q0 docid rank score tag",
                        count(f.len(), "field"),
                        hint,
                    ));
                }
                let (q, d) = trec_ids(n, f)?;
                let s = fields::number(&f[4])
                    .ok_or_else(|| problem(n, 5, "a score (a number)", shown(&f[4]), None))?;
                r.q.push(r.queries.intern(q));
                r.docs.push(d);
                r.score.push(s);
                r.tag.clear();
                r.tag.extend_from_slice(&f[5]);
                Ok(())
            }
            State::Qrels(r) => {
                if f.len() != 4 {
                    let hint = if f.len() >= 6 {
                        Some("This line looks like a run (qid Q0 docid rank score tag); was a run dropped where qrels were expected?".to_string())
                    } else {
                        None
                    };
                    let prefs_like = f.len() == 5 && fields::number(&f[4]).is_some();
                    let hint = hint.or_else(|| prefs_like.then(|| "Five fields are trec_eval's preferences (qid jg subgroup docno rel_level): read it as such (--input-format trec_prefs, or as a file of its own rather than --qrels).".to_string()));
                    return Err(problem(
                        n,
                        f.len().min(4) + 1,
                        "4 whitespace-separated fields: qid iter docid relevance",
                        count(f.len(), "field"),
                        hint,
                    ));
                }
                let (q, d) = trec_ids(n, f)?;
                let g = fields::integer(&f[3]).ok_or_else(|| {
                    problem(n, 4, "an integer relevance grade", shown(&f[3]), None)
                })?;
                r.q.push(r.queries.intern(q));
                r.docs.push(d);
                r.grade.push(g);
                Ok(())
            }
            State::Relations(r) => r.row(n, f),
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
            State::Run(r) => {
                if let Err(p) = no_duplicate(&r.queries, &r.q, &r.docs, "run") {
                    errors.push(p);
                    return None;
                }
                let tag = String::from_utf8_lossy(&r.tag).into_owned();
                (!r.q.is_empty()).then(|| Parsed::Run {
                    // the run's tag names it, as trec_eval's runid; a run
                    // without one is named after its file
                    name: if tag.is_empty() {
                        model_name_from_file(file)
                    } else {
                        tag.clone()
                    },
                    tag,
                    queries: r.queries,
                    q: r.q,
                    docs: r.docs,
                    score: r.score,
                })
            }
            State::Measures(r) => (!r.q.is_empty()).then(|| {
                Parsed::Measures(crate::parse::Precomputed {
                    name: r.runid.unwrap_or_else(|| model_name_from_file(file)),
                    measures: r.measures,
                    queries: r.queries,
                    m: r.m,
                    q: r.q,
                    value: r.value,
                })
            }),
            State::Qrels(r) => {
                if r.q.is_empty() {
                    return None;
                }
                qrels_parsed(r.queries, &r.q, &r.docs, &r.grade)
                    .map_err(|p| errors.push(p))
                    .ok()
            }
            State::Relations(r) => (r.rows > 0).then(|| {
                Parsed::Relations(crate::parse::Relations {
                    name: file.to_string(),
                    format_id: r.format.id().to_string(),
                    queries: r.queries.len(),
                    rows: r.rows,
                    text: r.text,
                })
            }),
            State::Table(t) => t.finish(file, errors),
        }
    }
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
        crate::core::ranking::Qrels::from_columns(q, docs, grade, queries.len());
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
    let Some((query, a, b)) = crate::core::ranking::first_duplicate(q, docs, queries.len()) else {
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

impl TableState {
    fn from_header(
        header: Vec<String>,
        delim: Delimiter,
        forced: Option<super::Format>,
    ) -> Result<TableState, Problem> {
        let lower: Vec<String> = header.iter().map(|h| h.to_ascii_lowercase()).collect();
        let find = |names: &[&str]| lower.iter().position(|h| is_one_of(h, names));
        let query = find(QUERY);
        let user = find(USER);
        let item = find(ITEM);
        let relevance = find(RELEVANCE);
        let rating = find(RATING);
        let label = find(LABEL);
        // pandas' to_csv() writes the row index first, under no name ("", or
        // "Unnamed: 0" once the file has been read and written again)
        // (a file read and written again holds one such column per round)
        let index_columns = header
            .iter()
            .take_while(|h| h.trim().is_empty() || h.starts_with("Unnamed: "))
            .count()
            .min(header.len() - 1);
        let rest = |used: &[usize]| {
            (index_columns..header.len())
                .filter(|i| !used.contains(i))
                .collect::<Vec<_>>()
        };
        let mut t = TableState {
            format: Format::BinaryCsv,
            index_columns,
            delim,
            header: header.clone(),
            key_a: 0,
            key_b: 0,
            truth: 0,
            models: vec![],
            slots: vec![],
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
            model_values: vec![],
            dense_values: vec![],
            mc: MulticlassPredictions::default(),
            row_buffer: vec![],
            rows_off_one: 0,
            class_of_slot: Default::default(),
            ovr: None,
            keep_empty: false,
            ovr_labels: Vec::new(),
            ovr_scores: Vec::new(),
        };
        let want = |f: super::Format| forced.is_none() || forced == Some(f);
        let header_text = header.join(", ");
        let metric = find(&["metric", "measure"]);
        let value = find(&["value"]);
        if let (Some(q), Some(m), Some(v), true) =
            (query.or(user), metric, value, want(Format::PerQueryCsv))
        {
            t.format = Format::PerQueryCsv;
            (t.key_a, t.truth) = (q, m);
            // without a model column, the file is one model named after it
            t.key_b = find(&["model", "run", "system", "run_id", "tag"]).unwrap_or(usize::MAX);
            t.models = vec![v];
        } else if let (Some(u), Some(i), Some(r), true) =
            (user.or(query), item, rating, want(Format::RatingsCsv))
        {
            t.format = Format::RatingsCsv;
            (t.key_a, t.key_b, t.truth) = (u, i, r);
            t.models = rest(&[u, i, r]);
        } else if let (Some(q), Some(i), Some(r), true) =
            (query.or(user), item, relevance, want(Format::RankingCsv))
        {
            t.format = Format::RankingCsv;
            (t.key_a, t.key_b, t.truth) = (q, i, r);
            t.models = rest(&[q, i, r]);
        } else if let Some(l) = label.or(rating).or(relevance) {
            t.truth = l;
            let others = rest(&[l]);
            let positions: Vec<Option<u32>> =
                others.iter().map(|&c| list_position(&lower[c])).collect();
            let classes: Vec<Option<u32>> =
                others.iter().map(|&c| class_suffix(&lower[c])).collect();
            if (forced == Some(Format::MulticlassTopK) || forced.is_none())
                && !others.is_empty()
                && positions.iter().all(Option::is_some)
            {
                t.format = Format::MulticlassTopK;
                let mut cols: Vec<(u32, usize)> = positions
                    .iter()
                    .zip(&others)
                    .map(|(p, &c)| (p.unwrap_or(0), c))
                    .collect();
                cols.sort();
                t.models = cols.iter().map(|c| c.1).collect();
                t.slots = cols.iter().map(|c| c.0).collect();
            } else if (forced == Some(Format::MulticlassMatrix)
                || (forced.is_none()
                    && (others.len() >= 3 || two_class_probabilities(&others, &lower))))
                && classes.iter().all(Option::is_some)
            {
                t.format = Format::MulticlassMatrix;
                t.models = others.clone();
                t.slots = classes.iter().map(|c| c.unwrap_or(0)).collect();
                let mut seen = std::collections::HashSet::new();
                for (slot_index, &s) in t.slots.iter().enumerate() {
                    if !seen.insert(s) {
                        return Err(problem(
                            0,
                            others[slot_index] + 1,
                            "one column per class",
                            format!("class {s} twice in the header ({header_text})"),
                            None,
                        ));
                    }
                    t.class_of_slot.insert(s, slot_index);
                }
            } else if want(Format::BinaryCsv) && !others.is_empty() {
                t.format = Format::BinaryCsv;
                t.models = others;
            } else {
                return Err(problem(
                    0,
                    0,
                    "a label column followed by one score column per model",
                    format!("only '{}'", header[l]),
                    None,
                ));
            }
        } else {
            return Err(problem(
                0,
                0,
                "a header with known column names: label,score (binary); target,p_0,p_1,… (multi-class); target,pred_1,… (top-k); query_id,item_id,score,relevance (ranking); user_id,item_id,rating,prediction (ratings)",
                format!("'{header_text}'"),
                Some(if delim == Delimiter::Whitespace && header.len() == 1 { "The header has one column: is the file separated by something other than comma, tab, semicolon or spaces?".into() } else { "Rename the ground-truth column (e.g. to label, target, relevance or rating).".into() }),
            ));
        }
        let many = matches!(
            t.format,
            Format::BinaryCsv | Format::RankingCsv | Format::RatingsCsv
        ) && t.models.len() > MAX_MODELS;
        if many {
            return Err(problem(
                0,
                MAX_MODELS + 2,
                format!("at most {MAX_MODELS} score columns (one per model)"),
                format!("{} score columns", t.models.len()),
                Some("Split the models over several files.".into()),
            ));
        }
        if t.models.is_empty() && t.format != Format::RankingCsv {
            return Err(problem(
                0,
                0,
                "at least one score or prediction column",
                format!("'{header_text}'"),
                None,
            ));
        }
        match t.format {
            Format::RankingCsv => t.model_values = vec![Vec::new(); t.models.len()],
            Format::BinaryCsv | Format::RatingsCsv => {
                t.dense_values = vec![Vec::new(); t.models.len()]
            }
            _ => {}
        }
        t.row_buffer = vec![0.0; t.models.len()];
        Ok(t)
    }

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
        let col = |c: usize| -> &[u8] { &f[c] };
        let id = |c: usize, what: &str| {
            fields::id(col(c)).ok_or_else(|| {
                problem(
                    n,
                    c + 1,
                    format!("{what} in column '{}'", self.header[c]),
                    shown(col(c)),
                    None,
                )
            })
        };
        match self.format {
            Format::PerQueryCsv => {
                let q = id(self.key_a, "an id")?;
                let model = match self.key_b {
                    usize::MAX => "",
                    c => id(c, "a model name")?,
                };
                let metric = id(self.truth, "a metric id")?;
                let c = self.models[0];
                let v = col(c);
                if v.is_empty() {
                    return Ok(()); // undefined for this query (FCP of one grade)
                }
                let v = fields::number(v).filter(|v| !v.is_nan()).ok_or_else(|| {
                    problem(
                        n,
                        c + 1,
                        "a value (a number, or nothing for an undefined one)",
                        shown(v),
                        decimal_comma(v),
                    )
                })?;
                self.a.push(self.ids_a.intern(q));
                self.b.push(self.ids_b.intern(model));
                self.metric.push(self.measures.intern(metric));
                self.truth_values.push(v);
                return Ok(());
            }
            Format::RankingCsv | Format::RatingsCsv => {
                let a = fields::id(col(self.key_a)).ok_or_else(|| {
                    problem(
                        n,
                        self.key_a + 1,
                        format!("an id in column '{}'", self.header[self.key_a]),
                        shown(col(self.key_a)),
                        None,
                    )
                })?;
                let b = fields::id(col(self.key_b)).ok_or_else(|| {
                    problem(
                        n,
                        self.key_b + 1,
                        format!("an id in column '{}'", self.header[self.key_b]),
                        shown(col(self.key_b)),
                        None,
                    )
                })?;
                if self.format == Format::RankingCsv {
                    let g = col(self.truth);
                    let grade = if g.is_empty() {
                        None
                    } else {
                        Some(fields::integer(g).ok_or_else(|| {
                            problem(
                                n,
                                self.truth + 1,
                                "an integer relevance grade (or nothing)",
                                shown(g),
                                None,
                            )
                        })?)
                    };
                    for (m, &c) in self.models.iter().enumerate() {
                        let s = col(c);
                        let v = if s.is_empty() {
                            None
                        } else {
                            Some(fields::number(s).ok_or_else(|| problem(n, c + 1, "a score (a number), or nothing for an item that was not retrieved", shown(s), decimal_comma(s)))?)
                        };
                        self.row_buffer[m] = v.unwrap_or(f64::NAN);
                    }
                    self.grades.push(grade);
                } else {
                    let r = fields::number(col(self.truth)).ok_or_else(|| {
                        problem(
                            n,
                            self.truth + 1,
                            "a rating (a number)",
                            shown(col(self.truth)),
                            decimal_comma(col(self.truth)),
                        )
                    })?;
                    for (m, &c) in self.models.iter().enumerate() {
                        self.row_buffer[m] = fields::number(col(c)).ok_or_else(|| {
                            problem(
                                n,
                                c + 1,
                                "a predicted rating (a number)",
                                shown(col(c)),
                                decimal_comma(col(c)),
                            )
                        })?;
                    }
                    self.truth_values.push(r);
                }
                self.a.push(self.ids_a.intern(a));
                if self.format == Format::RankingCsv {
                    self.names_b.push(b);
                    for (m, v) in self.row_buffer.iter().enumerate() {
                        self.model_values[m].push((!v.is_nan()).then_some(*v));
                    }
                } else {
                    self.b.push(self.ids_b.intern(b));
                    for (m, &v) in self.row_buffer.iter().enumerate() {
                        self.dense_values[m].push(v);
                    }
                }
            }
            Format::BinaryCsv => {
                let raw = col(self.truth);
                let label = binary_label(raw, options.positive_label.as_deref()).ok_or_else(|| {
                    problem(
                        n,
                        self.truth + 1,
                        "a binary label: 1/0, true/false, yes/no or pos/neg",
                        shown(raw),
                        Some("If the positive class has another name, choose it as the positive label.".into()),
                    )
                })?;
                for (m, &c) in self.models.iter().enumerate() {
                    self.row_buffer[m] = fields::number(col(c)).ok_or_else(|| {
                        problem(
                            n,
                            c + 1,
                            format!("a score for model '{}' (a number)", self.header[c]),
                            shown(col(c)),
                            decimal_comma(col(c)),
                        )
                    })?;
                }
                self.labels.push(label);
                for (m, &v) in self.row_buffer.iter().enumerate() {
                    self.dense_values[m].push(v);
                }
            }
            Format::MulticlassMatrix => {
                let raw = col(self.truth);
                let target = fields::integer(raw).filter(|&t| t >= 0).map(|t| t as u32);
                let slot = target
                    .and_then(|t| self.class_of_slot.get(&t).copied())
                    .ok_or_else(|| {
                        problem(
                            n,
                            self.truth + 1,
                            format!(
                                "a class number that has a column (0..{})",
                                self.slots.iter().max().copied().unwrap_or(0)
                            ),
                            shown(raw),
                            None,
                        )
                    })?;
                for (m, &c) in self.models.iter().enumerate() {
                    self.row_buffer[m] = fields::number(col(c)).ok_or_else(|| {
                        problem(
                            n,
                            c + 1,
                            "a probability or logit (a number)",
                            shown(col(c)),
                            decimal_comma(col(c)),
                        )
                    })?;
                }
                if let Some(class) = options.one_vs_rest {
                    let slot_of_class = match self.ovr {
                        Some((_, s)) => s,
                        None => {
                            let s = self.class_of_slot.get(&class).copied().ok_or_else(|| {
                                problem(
                                    n,
                                    0,
                                    "a column for the class asked for (one-vs-rest)",
                                    format!("no column for class {class}"),
                                    None,
                                )
                            })?;
                            self.ovr = Some((class, s));
                            s
                        }
                    };
                    self.ovr_labels.push(target == Some(class));
                    self.ovr_scores.push(self.row_buffer[slot_of_class]);
                    return Ok(());
                }
                let summary = RowSummary::from_row(&self.row_buffer, slot);
                if (summary.row_sum - 1.0).abs() > 1e-3 {
                    self.rows_off_one += 1;
                }
                self.targets.push(target.unwrap_or(0));
                let mut s = summary;
                s.argmax = self.slots[s.argmax as usize];
                s.target = target.unwrap_or(0);
                self.mc.rows.push(s);
            }
            Format::MulticlassTopK => {
                let target = class_id(n, self.truth, col(self.truth), "a target class")?;
                let t = self.ids_a.intern(target);
                let mut position = 0u32;
                let mut first = u32::MAX;
                for (i, &c) in self.models.iter().enumerate() {
                    let v = col(c);
                    if v.is_empty() {
                        continue;
                    }
                    let class = class_id(n, c, v, "a class or item id")?;
                    let id = self.ids_a.intern(class);
                    if i == 0 {
                        first = id;
                    }
                    if id == t && position == 0 {
                        position = i as u32 + 1;
                    }
                }
                self.targets.push(t);
                self.mc.list_positions.push(position);
                self.mc.list_first.push(first);
            }
            Format::TrecRun
            | Format::TrecQrels
            | Format::JsonRun
            | Format::JsonQrels
            | Format::TrecEvalOutput
            | Format::TrecPrefs
            | Format::TrecQrelsPrefs
            | Format::TrecQrelsJg
            | Format::TrecZscores => {}
        }
        Ok(())
    }

    fn finish(self, file: &str, errors: &mut LoadError) -> Option<Parsed> {
        let notes = match self.index_columns {
            0 => Vec::new(),
            1 => vec![format!("Column 1 has no name: {INDEX_NOTE}")],
            n => vec![format!("Columns 1–{n} have no name: {INDEX_NOTE}")],
        };
        Some(self.columns(file, errors)?.noted(notes))
    }

    fn columns(mut self, file: &str, errors: &mut LoadError) -> Option<Parsed> {
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
            if t.models.len() == 1 && generic.contains(&h.to_ascii_lowercase().as_str()) {
                stem.clone()
            } else {
                h.clone()
            }
        };
        let names: Vec<String> = self.models.iter().map(|&c| model_name(&self, c)).collect();
        match self.format {
            Format::PerQueryCsv => {
                if self.a.is_empty() {
                    return None;
                }
                let values = crate::parse::PerQueryColumns {
                    queries: &self.ids_a,
                    q: &self.a,
                    models: &self.ids_b,
                    model: &self.b,
                    measures: &self.measures,
                    m: &self.metric,
                    value: &self.truth_values,
                };
                let models = match values.split(&stem) {
                    Ok(models) => models,
                    Err((first, again)) => {
                        errors.push(problem(
                            again as u64 + 2,
                            self.key_a + 1,
                            "one value per query, model and metric",
                            format!(
                                "query '{}' and metric '{}' again (first on line {})",
                                self.ids_a.name(self.a[again]),
                                self.measures.name(self.metric[again]),
                                first + 2
                            ),
                            None,
                        ));
                        return None;
                    }
                };
                Some(Parsed::PerQuery(models))
            }
            Format::RankingCsv => {
                if self.a.is_empty() {
                    return None;
                }
                if let Err(p) = no_duplicate(&self.ids_a, &self.a, &self.names_b, "table") {
                    errors.push(p);
                    return None;
                }
                let models = names.into_iter().zip(self.model_values).collect();
                Some(Parsed::RankingTable {
                    queries: self.ids_a,
                    q: self.a,
                    docs: self.names_b,
                    grade: self.grades,
                    models,
                })
            }
            Format::RatingsCsv => {
                if self.a.is_empty() {
                    return None;
                }
                let models = names.into_iter().zip(self.dense_values).collect();
                Some(Parsed::Ratings(RatingsData {
                    users: self.ids_a,
                    items: self.ids_b,
                    user: self.a,
                    item: self.b,
                    rating: self.truth_values,
                    models,
                }))
            }
            Format::BinaryCsv => {
                if self.labels.is_empty() && !self.keep_empty {
                    return None;
                }
                let models = names.into_iter().zip(self.dense_values).collect();
                Some(Parsed::Binary(BinaryData {
                    labels: self.labels,
                    models,
                    ..Default::default()
                }))
            }
            Format::MulticlassMatrix => {
                if let Some((class, _)) = self.ovr {
                    return Some(Parsed::Binary(BinaryData {
                        labels: self.ovr_labels,
                        models: vec![(format!("{stem} · class {class} vs rest"), self.ovr_scores)],
                        ..Default::default()
                    }));
                }
                if self.targets.is_empty() && !self.keep_empty {
                    return None;
                }
                self.mc.name = stem;
                let num_classes = self.slots.iter().max().map_or(0, |&m| m as usize + 1);
                Some(Parsed::Multiclass(MulticlassData {
                    num_classes,
                    targets: self.targets,
                    models: vec![self.mc],
                    rows_off_one: vec![self.rows_off_one],
                    class_names: None,
                }))
            }
            Format::MulticlassTopK => {
                if self.targets.is_empty() {
                    return None;
                }
                self.mc.name = stem;
                self.mc.list_len = self.models.len();
                // class ids are interned strings here: when every one is a
                // number they map to their numbers (gaps allowed), else each
                // is a class of its own, numbered as first seen, its name kept
                let Some(numeric) = (0..self.ids_a.len() as u32)
                    .map(|i| class_number(self.ids_a.name(i)))
                    .collect::<Option<Vec<u32>>>()
                else {
                    let names = self.ids_a;
                    return Some(Parsed::Classes {
                        parsed: Box::new(Parsed::Multiclass(MulticlassData {
                            num_classes: names.len(),
                            targets: self.targets,
                            models: vec![self.mc],
                            rows_off_one: vec![0],
                            class_names: None,
                        })),
                        names,
                    });
                };
                let map = |c: u32| {
                    if c == u32::MAX {
                        u32::MAX
                    } else {
                        numeric[c as usize]
                    }
                };
                let targets = self.targets.iter().map(|&t| map(t)).collect();
                self.mc.list_first = self.mc.list_first.iter().map(|&c| map(c)).collect();
                // classes are numbered up to the largest id (metrics count the
                // classes present, so a gap adds none)
                let num_classes = numeric.iter().max().map_or(0, |&m| m as usize + 1);
                Some(Parsed::Multiclass(MulticlassData {
                    num_classes,
                    targets,
                    models: vec![self.mc],
                    rows_off_one: vec![0],
                    class_names: None,
                }))
            }
            Format::TrecRun
            | Format::TrecQrels
            | Format::JsonRun
            | Format::JsonQrels
            | Format::TrecEvalOutput
            | Format::TrecPrefs
            | Format::TrecQrelsPrefs
            | Format::TrecQrelsJg
            | Format::TrecZscores => None,
        }
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
