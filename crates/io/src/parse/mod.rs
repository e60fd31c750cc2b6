//! Parsers that turn files into the core's types.
//!
//! A [`Parser`] is fed a file in chunks of any size ([`Parser::feed`]) and keeps
//! only compact columns (interned ids, numbers), never the text. The format is
//! detected from the first content line (or forced). [`Workspace::add`] merges
//! a finished file into the loaded data sets, or leaves them untouched when the
//! file has problems.

pub mod error;
mod fast;
pub mod fields;
pub mod gzip;
mod json;
pub mod lines;
pub mod split;
mod table;
pub mod transfer;
mod workspace;

pub use error::{LoadError, Problem};
pub use table::Format;
pub use workspace::{values_report, LoadSummary, Workspace, NO_QRELS};

use fields::Delimiter;
use lines::LineSplitter;
use rankscope_core::evaluate::{BinaryData, MulticlassData, RatingsData};
use rankscope_core::ids::{Interner, Names};
use rankscope_core::ranking::Qrels;

/// What the user can force about a file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LoadOptions {
    pub format: Option<Format>,
    /// Binary labels: the value that counts as positive (default 1/true/yes/pos).
    pub positive_label: Option<String>,
    /// Read a multi-class probability matrix as binary data for one class
    /// against the rest (label: target == class; score: that class's column),
    /// for one-vs-rest ROC and PR curves.
    pub one_vs_rest: Option<u32>,
    /// How a rating column of held-out interactions becomes relevance
    /// (`None`: [`RatingRelevance::default`]).
    pub relevant_rating: Option<RatingRelevance>,
    /// The file must be judgments (the CLI's `--qrels`, Python's `qrels=`):
    /// TREC or JSON qrels, a ranking CSV with relevance and no scores, or
    /// held-out interactions; anything else is refused.
    pub judgments: bool,
    /// Who reads the messages: their advice names what that reader does.
    pub audience: Audience,
}

/// How the rating column of held-out interactions
/// (`user_id,item_id,rating`) becomes relevance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RatingRelevance {
    /// A rating of at least this is relevant (grade 1), lower ones judged
    /// non-relevant (grade 0). The default: 4 (of 5 stars, the usual
    /// line between liked and not in MovieLens studies).
    AtLeast(f64),
    /// The rating, a whole number, is the grade (nDCG's gain; relevant from 1).
    Graded,
    /// Every row is relevant (grade 1), its rating not read.
    Every,
}

impl Default for RatingRelevance {
    fn default() -> Self {
        RatingRelevance::AtLeast(4.0)
    }
}

impl RatingRelevance {
    /// A number (the threshold), `graded` or `all`.
    pub fn parse(v: &str) -> Option<RatingRelevance> {
        match v.trim() {
            "graded" => Some(RatingRelevance::Graded),
            "all" => Some(RatingRelevance::Every),
            t => t
                .parse::<f64>()
                .ok()
                .filter(|t| t.is_finite())
                .map(RatingRelevance::AtLeast),
        }
    }

    /// What it makes of a rating column named `column`.
    pub fn describe(self, column: &str) -> String {
        match self {
            RatingRelevance::AtLeast(t) => format!("an item relevant when its '{column}' is at least {t} (grade 1), judged non-relevant below it (grade 0)"),
            RatingRelevance::Graded => format!("'{column}' read as the relevance grade (nDCG's gain; relevant from 1)"),
            RatingRelevance::Every => format!("each row a relevant item of its user (grade 1), '{column}' not read"),
        }
    }
}

/// Who reads a load's messages, so that their advice names its own
/// actions: the page's (drop a file), the command line's (its FILE
/// arguments and flags), the Python package's (its arguments).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Audience {
    #[default]
    Page,
    CommandLine,
    Python,
}

impl Audience {
    /// What to do about a file with no rows.
    pub fn empty_hint(self) -> &'static str {
        match self {
            Audience::Page => "Drop a TREC run, qrels, or a CSV file with a header and at least one row.",
            Audience::CommandLine => "Give a TREC run (its qrels with --qrels), or a CSV file with a header and at least one row; rankscope eval --help lists every format (--input-format).",
            Audience::Python => "Pass a TREC run, qrels, or a CSV file with a header and at least one row.",
        }
    }

    /// What to do about a damaged or truncated gzip file.
    pub fn gzip_hint(self) -> &'static str {
        match self {
            Audience::Page => "Compress the file again, or drop the uncompressed file.",
            Audience::CommandLine => "Compress the file again (gzip -t FILE checks it), or give the uncompressed file in its place.",
            Audience::Python => "Compress the file again, or pass the uncompressed file.",
        }
    }

    /// What to do about a file that changed while it was read.
    pub fn changed_hint(self) -> &'static str {
        match self {
            Audience::Page => "Drop it again.",
            Audience::CommandLine => "Run the command again once the file is written.",
            Audience::Python => "Read it again once the file is written.",
        }
    }

    /// The hint of a run's line of four fields (qrels where a run was expected).
    pub fn qrels_as_run_hint(self) -> &'static str {
        match self {
            Audience::Page => "This line looks like qrels (qid iter docid rel); was a qrels file dropped where a run was expected?",
            Audience::CommandLine => "This line looks like qrels (qid iter docid rel); qrels are given with --qrels, or read as such with --input-format trec_qrels.",
            Audience::Python => "This line looks like qrels (qid iter docid rel); pass qrels as qrels.",
        }
    }

    /// The hint of a qrels line of six fields (a run where qrels were expected).
    pub fn run_as_qrels_hint(self) -> &'static str {
        match self {
            Audience::Page => "This line looks like a run (qid Q0 docid rank score tag); was a run dropped where qrels were expected?",
            Audience::CommandLine => "This line looks like a run (qid Q0 docid rank score tag); was a run given with --qrels (runs are FILE arguments)?",
            Audience::Python => "This line looks like a run (qid Q0 docid rank score tag); was a run passed as qrels?",
        }
    }
}

/// A file parsed into columns with its own interners, ready to merge.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub enum Parsed {
    /// Per row: query (interned: few), document name (not interned: documents
    /// are joined per query when a run is prepared) and score.
    Run {
        name: String,
        tag: String,
        queries: Interner,
        #[serde(with = "rankscope_core::raw")]
        q: Vec<u32>,
        docs: Names,
        #[serde(with = "rankscope_core::raw")]
        score: Vec<f64>,
    },
    /// Judgments, already grouped per (local) query and joined-ready (built in
    /// the parser, so in the loading worker, not on the page).
    Qrels {
        queries: Interner,
        judgments: Qrels,
        /// Lines read, and repeated (query, document) judgments dropped.
        rows: usize,
        duplicates: usize,
    },
    /// Long CSV: judgments and one run per score column (`None`: not retrieved).
    RankingTable {
        queries: Interner,
        #[serde(with = "rankscope_core::raw")]
        q: Vec<u32>,
        docs: Names,
        grade: Vec<Option<i32>>,
        models: Vec<(String, Vec<Option<f64>>)>,
    },
    Binary(BinaryData),
    Multiclass(MulticlassData),
    Ratings(RatingsData),
    /// trec_eval output computed elsewhere, shown as it is.
    Measures(Precomputed),
    /// A file with what its reader noticed and did (a pandas index column
    /// skipped), for the load notice. Last, so that the encodings of the
    /// variants above (sessions) are unchanged.
    Noted {
        notes: Vec<String>,
        parsed: Box<Parsed>,
    },
    /// A top-k file's multi-class data whose classes are named by text ids
    /// (class `c` is `names.name(c)`): merged by name with other files.
    Classes {
        names: Interner,
        parsed: Box<Parsed>,
    },
    /// Preferences, judgment groups or z-scores, for trec_eval's measures of
    /// them (last, so the encodings above are unchanged).
    Relations(Relations),
    /// A per-query values file: one set of values per model, each shown as
    /// trec_eval output is. Never encoded: a session keeps each model as
    /// [`Parsed::Measures`], and the loading worker hands it to the page as
    /// those ([`transfer::encode_per_query`]), so the page's decoder has no
    /// code of its own for it.
    #[serde(skip)]
    PerQuery(Vec<Precomputed>),
}

/// How `rankscope trec_eval` evaluates a relation file: its option
/// (`-R prefs`, `-Z`) and its measures.
pub fn relations_command(format: Format) -> (&'static str, &'static str) {
    match format {
        Format::TrecPrefs => ("-R prefs", "all_prefs"),
        Format::TrecQrelsPrefs => ("-R qrels_prefs", "all_prefs"),
        Format::TrecQrelsJg => ("-R qrels_jg", "qrels_jg"),
        _ => ("-Z", "all_trec"),
    }
}

/// A file in one of trec_eval's other relation formats (preferences,
/// qrels read as preferences, judgment groups, z-scores): its lines as
/// checked (fields joined by one space), which `rankscope trec_eval`
/// evaluates against the runs (`crate::trec_relations`).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Relations {
    /// The file it came from.
    pub name: String,
    /// Its format's id ([`Format::id`]; the enum's serde code would cost the
    /// page's wasm more than the string's).
    pub format_id: String,
    pub queries: usize,
    pub rows: usize,
    pub text: Vec<u8>,
}

impl Relations {
    /// Its format: one of the relation formats (checked on decoding).
    pub fn format(&self) -> Format {
        Format::from_id(&self.format_id)
            .filter(|f| f.is_relation())
            .unwrap_or(Format::TrecPrefs)
    }
}

impl Parsed {
    /// Its model names with their hidden characters shown
    /// ([`rankscope_core::text::visible`]): names come from headers, file names and
    /// tags, and two that differ only by a zero-width or right-to-left
    /// character must not look alike.
    pub fn show_hidden_in_names(&mut self) {
        let show = |name: &mut String| {
            if let std::borrow::Cow::Owned(shown) = rankscope_core::text::visible(name) {
                *name = shown;
            }
        };
        match self {
            Parsed::Run { name, .. } => show(name),
            Parsed::Qrels { .. } => {}
            Parsed::RankingTable { models, .. } => models.iter_mut().for_each(|m| show(&mut m.0)),
            Parsed::Binary(b) => b.models.iter_mut().for_each(|m| show(&mut m.0)),
            Parsed::Multiclass(m) => m.models.iter_mut().for_each(|p| show(&mut p.name)),
            Parsed::Ratings(r) => r.models.iter_mut().for_each(|m| show(&mut m.0)),
            Parsed::Measures(p) => show(&mut p.name),
            Parsed::PerQuery(list) => list.iter_mut().for_each(|p| show(&mut p.name)),
            Parsed::Relations(r) => show(&mut r.name),
            Parsed::Noted { parsed, .. } | Parsed::Classes { parsed, .. } => {
                parsed.show_hidden_in_names()
            }
        }
    }

    /// The file's data, without its notes.
    pub fn data(&self) -> &Parsed {
        match self {
            Parsed::Noted { parsed, .. } => parsed.data(),
            other => other,
        }
    }

    /// [`Parsed::data`], to change.
    pub fn data_mut(&mut self) -> &mut Parsed {
        match self {
            Parsed::Noted { parsed, .. } => parsed.data_mut(),
            other => other,
        }
    }

    /// `self` with `notes` (unchanged without any).
    pub fn noted(self, notes: Vec<String>) -> Parsed {
        if notes.is_empty() {
            self
        } else {
            Parsed::Noted {
                notes,
                parsed: Box::new(self),
            }
        }
    }

    /// The file's data and its reader's notes.
    pub fn into_parts(self) -> (Parsed, Vec<String>) {
        match self {
            Parsed::Noted { mut notes, parsed } => {
                let (data, more) = parsed.into_parts();
                notes.extend(more);
                (data, notes)
            }
            other => (other, Vec::new()),
        }
    }

    /// Values this file adds to a workspace ([`Workspace::values`]): one per
    /// score of a row (one per line of a run or qrels), [`QUERY_VALUES`] per
    /// query of each run.
    pub fn values(&self) -> u64 {
        match self {
            Parsed::Run { q, queries, .. } => q.len() as u64 + QUERY_VALUES * queries.len() as u64,
            Parsed::Qrels { rows, .. } => *rows as u64,
            Parsed::RankingTable {
                q, queries, models, ..
            } => wide(q.len(), models.len()) + QUERY_VALUES * wide(queries.len(), models.len()),
            Parsed::Binary(b) => wide(b.labels.len(), b.models.len()),
            Parsed::Multiclass(m) => wide(m.targets.len(), m.models.len()),
            Parsed::Ratings(r) => wide(r.rating.len(), r.models.len()),
            Parsed::Measures(p) => p.value.len() as u64,
            Parsed::PerQuery(list) => list.iter().map(|p| p.value.len() as u64).sum(),
            Parsed::Relations(r) => r.rows as u64,
            Parsed::Noted { parsed, .. } | Parsed::Classes { parsed, .. } => parsed.values(),
        }
    }
}

/// Measure values computed by another tool (trec_eval `-q` output): per
/// measure and query (`all` included as written), never recomputed.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Precomputed {
    /// The `runid` line's value, else the file name.
    pub name: String,
    pub measures: Interner,
    pub queries: Interner,
    #[serde(with = "rankscope_core::raw")]
    pub m: Vec<u32>,
    #[serde(with = "rankscope_core::raw")]
    pub q: Vec<u32>,
    #[serde(with = "rankscope_core::raw")]
    pub value: Vec<f64>,
}

impl Precomputed {
    /// The value of `measure` for query `qid` (`"all"` for the summary line).
    pub fn get(&self, measure: &str, qid: &str) -> Option<f64> {
        let (m, q) = (self.measures.get(measure)?, self.queries.get(qid)?);
        (0..self.m.len())
            .rev()
            .find(|&i| self.m[i] == m && self.q[i] == q)
            .map(|i| self.value[i])
    }

    /// Measure names in file order.
    pub fn measure_names(&self) -> Vec<&str> {
        (0..self.measures.len() as u32)
            .map(|i| self.measures.name(i))
            .collect()
    }
}

/// The rows of a per-query values file (`query_id,model,metric,value`),
/// interned: row `i` is query `q[i]`, model `model[i]` (the empty name for a
/// file without a model column), measure `m[i]`, value `value[i]`.
pub struct PerQueryColumns<'a> {
    pub queries: &'a Interner,
    pub q: &'a [u32],
    pub models: &'a Interner,
    pub model: &'a [u32],
    pub measures: &'a Interner,
    pub m: &'a [u32],
    pub value: &'a [f64],
}

impl PerQueryColumns<'_> {
    /// One [`Precomputed`] per model (the unnamed one named `unnamed`), or
    /// the first repeated (model, measure, query) as (first row, repeated
    /// row): each value is one query's, and a repeat is refused, not chosen.
    pub fn split(&self, unnamed: &str) -> Result<Vec<Precomputed>, (usize, usize)> {
        let key = |i: usize| (self.model[i], self.m[i], self.q[i]);
        let order = rankscope_core::order(self.q.len(), &|x, y| key(x).cmp(&key(y)));
        if let Some(w) = order.windows(2).find(|w| key(w[0]) == key(w[1])) {
            return Err((w[0].min(w[1]), w[0].max(w[1])));
        }
        let mut rows: Vec<Vec<usize>> = vec![Vec::new(); self.models.len()];
        for (i, &b) in self.model.iter().enumerate() {
            rows[b as usize].push(i);
        }
        Ok(rows
            .iter()
            .enumerate()
            .map(|(b, rows)| {
                let name = self.models.name(b as u32);
                Precomputed {
                    name: if name.is_empty() { unnamed } else { name }.to_string(),
                    measures: self.measures.clone(),
                    queries: self.queries.clone(),
                    m: rows.iter().map(|&i| self.m[i]).collect(),
                    q: rows.iter().map(|&i| self.q[i]).collect(),
                    value: rows.iter().map(|&i| self.value[i]).collect(),
                }
            })
            .collect())
    }
}

/// A file read as judgments ([`LoadOptions::judgments`]): qrels, or a
/// table's judgments (a ranking CSV's score columns, or top-k lists beside
/// their targets, left unread and said so); anything else is refused.
fn judgments_only(file: &str, parsed: Parsed) -> Result<Parsed, LoadError> {
    let (data, mut notes) = parsed.into_parts();
    let found = match data {
        Parsed::Qrels { .. } => return Ok(data.noted(notes)),
        Parsed::RankingTable {
            queries,
            q,
            docs,
            grade,
            models,
        } if grade.iter().any(Option::is_some) => {
            if !models.is_empty() {
                let names: Vec<&str> = models.iter().map(|m| m.0.as_str()).collect();
                notes.push(format!(
                    "Read as judgments only: its scores ({}) are not read; give the file as a run to evaluate them.",
                    names.join(", ")
                ));
            }
            // only the judged rows: a model's unjudged rows are no judgments
            let keep: Vec<usize> = (0..q.len()).filter(|&i| grade[i].is_some()).collect();
            let mut kept = Names::default();
            for &i in &keep {
                kept.push(docs.get(i));
            }
            let table = Parsed::RankingTable {
                queries,
                q: keep.iter().map(|&i| q[i]).collect(),
                docs: kept,
                grade: keep.iter().map(|&i| grade[i]).collect(),
                models: Vec::new(),
            };
            return Ok(table.noted(notes));
        }
        Parsed::RankingTable { .. } => "a run (a table with no relevance column)",
        Parsed::Run { .. } => "a run",
        Parsed::Binary(_) => "a binary classification CSV",
        Parsed::Multiclass(_) | Parsed::Classes { .. } => "multi-class data",
        Parsed::Ratings(_) => "a ratings CSV with predictions",
        Parsed::Measures(_) | Parsed::PerQuery(_) => "values computed elsewhere",
        Parsed::Relations(_) => "a trec_eval relation file",
        Parsed::Noted { .. } => "notes",
    };
    Err(LoadError::single(
        file,
        0,
        0,
        "judgments: TREC qrels (qid iter docid rel), ranx JSON qrels, a CSV of query_id,item_id,relevance, or held-out interactions (user_id,item_id[,rating])",
        found,
        Some("Give it as a file of its own, not as the qrels.".into()),
    ))
}

/// Incremental parser of one file.
pub struct Parser {
    file: String,
    options: LoadOptions,
    splitter: LineSplitter,
    state: table::State,
    errors: LoadError,
    bytes: u64,
    rows: u64,
    /// Set when the file starts with the gzip magic bytes.
    inflater: Option<gzip::Inflater>,
    /// Text bytes a gzip file has inflated to so far, and the most allowed.
    inflated: u64,
    max_inflated: Option<u64>,
    fields: fields::Splitter,
    /// The first byte, held until the second shows whether the file is gzip.
    head: Vec<u8>,
    decided: bool,
    gzip_failed: bool,
    line_too_long: bool,
    /// Whether the first content byte was seen (a `{` starts a JSON file).
    sniffed: bool,
    json: Option<Box<json::JsonReader>>,
    /// The file's size, when known ([`Parser::expect_size`]).
    expected: Option<u64>,
    /// Bytes of the lines handed to the format so far (with their line breaks).
    line_bytes: u64,
    /// The most values one file may hold ([`file_limit`]); past it the file is refused.
    max_values: Option<u64>,
    /// Set when the file is refused whole (more values than `max_values`,
    /// more inflated text than `max_inflated`, UTF-16 text): the rest is skipped.
    refused: bool,
    /// `max_values` in rows of the detected format (each row's values are fixed by its header).
    max_rows: u64,
    /// The bytes this parser reads when its file is split in two ([`split`]):
    /// its columns are sized for them, its size estimate is the file's.
    share: Option<u64>,
    /// The shape of plain rows read by the fast path ([`fast`]), once the
    /// first content line (a header, or a TREC line) has shown the format
    /// allows it.
    plain: Option<fast::Shape>,
}

/// The start of a file's note that its lists are users' (the key column of
/// a ranking table is a user column: `user_id`, …): the workspace then
/// keeps [`rankscope_core::ranking::RankingData::by_user`], and the page says
/// users and items where it would say queries and documents. A file of any
/// shape keyed by users says so with [`by_user_note`].
pub const BY_USER: &str = "Lists per user (its key column";

/// The note of a file whose lists are keyed by the user column `column`.
pub fn by_user_note(column: &str) -> String {
    format!("{BY_USER} '{column}'): users and items")
}

/// The most values one file may hold in 32-bit wasm: one per score of a row
/// (per line of a run or qrels) and [`QUERY_VALUES`] per query of a run.
///
/// A tab's wasm memory is at most 4 GiB and one allocation at most 2 GiB; the
/// page keeps each value (8 bytes), sorts it with a 16-byte key and builds its
/// curve from it. A 10M-line run of 100,000 queries takes the page's memory to
/// 0.5 GB and 40M lines to 1.5 GB, so 40M values in one file and 60M in all
/// ([`WORKSPACE_VALUES`]) stay inside it. Natively (the CLI) nothing is limited.
pub const FILE_VALUES: u64 = 40_000_000;
/// The most values loaded at once in 32-bit wasm (see [`FILE_VALUES`]).
pub const WORKSPACE_VALUES: u64 = 60_000_000;
/// What one query of a run counts in those limits: the page keeps its result
/// for every metric shown (40-100 of them, 8 bytes each), as much as about 16
/// ranked lines cost (5M one-document queries took the page to 1.5 GB).
pub const QUERY_VALUES: u64 = 16;

/// The per-file limit where it applies: in wasm (the page and its workers).
pub fn file_limit() -> Option<u64> {
    cfg!(target_arch = "wasm32").then_some(FILE_VALUES)
}

/// The most bytes of text a gzip file may inflate to in wasm (the page and
/// its workers): more than the largest file the page evaluates (40M TREC lines
/// of 60 bytes are 2.4 GB), far less than a "gzip bomb" (10 MB of zeros
/// inflate to 10 GB). The parser inflates in bounded pieces, so memory never
/// holds more than a few MB of text at once; the limit bounds the time.
/// Natively (the CLI) the caller sets its own ([`Parser::limit_inflated`]).
pub const INFLATED_BYTES: u64 = 4 << 30;

/// The inflated-text limit where it applies by default: in wasm.
pub fn inflated_limit() -> Option<u64> {
    cfg!(target_arch = "wasm32").then_some(INFLATED_BYTES)
}

const INFLATED_HINT: &str = "If the file is genuine, decompress it and load the text, or evaluate it with the command-line tool (rankscope eval --max-inflated SIZE FILE).";

/// A byte count for people: `4 GiB`, `512 MiB`, `12.5 KiB`.
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let mut v = n as f64;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} bytes")
    } else if v.fract() == 0.0 {
        format!("{v} {}", UNITS[unit])
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}

/// A count with thousands separators (`40,000,000`).
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Values of `rows` rows with `models` score columns (at least one per row).
pub(crate) fn wide(rows: usize, models: usize) -> u64 {
    rows as u64 * models.max(1) as u64
}

/// `x` rounded to three significant digits (an estimate shown as `190,000,000`).
fn three_digits(x: f64) -> u64 {
    if x < 1000.0 {
        return x.round().max(0.0) as u64;
    }
    let unit = 10f64.powi(x.log10().floor() as i32 - 2);
    ((x / unit).round() * unit) as u64
}

/// The advice that goes with a file or workspace past the wasm limits.
const TOO_LARGE_HINT: &str = "Evaluate it with the command-line tool (rankscope eval FILE), which has no such limit, or split it into smaller files.";

/// Rows read before the columns are sized for the whole file.
const SIZING_ROWS: u64 = 20_000;

/// The longest line accepted (a TREC or CSV line is far shorter).
pub const MAX_LINE: usize = 16 << 20;

impl Parser {
    pub fn new(file: &str, options: LoadOptions) -> Parser {
        Parser {
            file: file.to_string(),
            options,
            splitter: LineSplitter::new(false),
            state: table::State::Start,
            errors: LoadError::new(file),
            bytes: 0,
            rows: 0,
            inflater: None,
            inflated: 0,
            max_inflated: inflated_limit(),
            fields: fields::Splitter::default(),
            head: Vec::new(),
            decided: false,
            gzip_failed: false,
            line_too_long: false,
            sniffed: false,
            json: None,
            expected: None,
            line_bytes: 0,
            max_values: file_limit(),
            refused: false,
            max_rows: u64::MAX,
            share: None,
            plain: None,
        }
    }

    /// The bytes this parser reads of the file, if it is split ([`split`]).
    pub(crate) fn expect_share(&mut self, bytes: u64) {
        self.share = Some(bytes);
    }

    /// Sets the most values this file may hold (`None`: no limit).
    pub fn limit_values(&mut self, max: Option<u64>) {
        self.max_values = max;
    }

    /// Sets the most bytes of text a gzip file may inflate to (`None`: no limit).
    pub fn limit_inflated(&mut self, max: Option<u64>) {
        self.max_inflated = max;
    }

    /// Parses what `reader` gives, front to back in 1 MiB steps (a file,
    /// standard input, a pipe: read once, never split).
    pub fn read_all(mut self, mut reader: impl std::io::Read) -> Result<Parsed, LoadError> {
        let mut buf = vec![0u8; 1 << 20];
        loop {
            match reader.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    self.feed(&buf[..n]);
                    if self.stopped() {
                        break;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    return Err(LoadError::single(
                        self.file_name(),
                        0,
                        0,
                        "a readable stream",
                        format!("it could not be read ({e})"),
                        None,
                    ))
                }
            }
        }
        self.finish()
    }

    /// Whether the rest of the file can be skipped: it is refused already
    /// (too large, a line without end, a broken gzip stream).
    pub fn stopped(&self) -> bool {
        self.refused || self.line_too_long || self.gzip_failed
    }

    /// Refuses the file as too large at line `line`, having found `found`.
    fn refuse_size(&mut self, line: u64, found: String) {
        self.refused = true;
        let max = self.max_values.unwrap_or_default();
        self.errors.push(Problem {
            line,
            column: 0,
            expected: format!(
                "at most {} values in one file (one per score of a row, {QUERY_VALUES} per query of a run), the most a browser tab's 32-bit memory evaluates safely",
                grouped(max)
            ),
            found,
            hint: Some(TOO_LARGE_HINT.into()),
        });
    }

    /// The file's size in bytes: once the first rows show the average line
    /// length, a plain-text run or qrels file gets its columns allocated for
    /// the whole file at once (no doubling, so about half the peak memory of
    /// growing them). A gzip file's size says nothing of its text: ignored.
    pub fn expect_size(&mut self, bytes: u64) {
        self.expected = Some(bytes);
    }

    /// The file name the parser reports problems under.
    pub fn file_name(&self) -> &str {
        &self.file
    }

    pub fn bytes_read(&self) -> u64 {
        self.bytes
    }

    pub fn rows_parsed(&self) -> u64 {
        self.json.as_ref().map_or(self.rows, |j| j.rows())
    }

    pub fn problems_so_far(&self) -> u64 {
        self.errors.count()
    }

    /// Feeds the next chunk of the file (plain text, or gzip: detected from the first bytes).
    pub fn feed(&mut self, chunk: &[u8]) {
        self.bytes += chunk.len() as u64;
        if self.decided {
            self.route(chunk);
            return;
        }
        // the first two bytes decide between text and gzip
        self.head.extend_from_slice(chunk);
        if self.head.len() < 2 {
            return;
        }
        self.decided = true;
        let head = std::mem::take(&mut self.head);
        if gzip::is_gzip(&head) {
            self.inflater = Some(gzip::Inflater::new());
        }
        self.route(&head);
    }

    fn route(&mut self, chunk: &[u8]) {
        if self.gzip_failed || self.refused {
            return;
        }
        let Some(mut inflater) = self.inflater.take() else {
            self.feed_text(chunk);
            return;
        };
        // inflated in bounded pieces, each parsed before the next is made
        let pushed = inflater.push(chunk, &mut |text| self.inflated_text(text));
        self.inflater = Some(inflater);
        if let Err(msg) = pushed {
            self.fail_gzip(msg);
        }
    }

    /// Parses a piece of inflated text, or refuses the file once the text
    /// passes the limit; false when the rest need not be inflated.
    fn inflated_text(&mut self, text: &[u8]) -> bool {
        self.inflated += text.len() as u64;
        if let Some(max) = self.max_inflated.filter(|&max| self.inflated > max) {
            self.refused = true;
            self.errors.push(Problem {
                line: self.splitter.line_no() + 1,
                column: 0,
                expected: format!(
                    "a gzip file that inflates to at most {} bytes of text ({})",
                    grouped(max),
                    human_bytes(max)
                ),
                found: format!(
                    "more: {} compressed bytes had inflated to {} bytes by this line (a \"gzip bomb\"?)",
                    grouped(self.bytes),
                    grouped(self.inflated)
                ),
                hint: Some(INFLATED_HINT.into()),
            });
            return false;
        }
        self.feed_text(text);
        !self.stopped()
    }

    fn fail_gzip(&mut self, msg: String) {
        self.gzip_failed = true;
        self.errors.push(Problem {
            line: 0,
            column: 0,
            expected: "a complete gzip file".into(),
            found: msg,
            hint: Some(self.options.audience.gzip_hint().into()),
        });
    }

    fn feed_text(&mut self, chunk: &[u8]) {
        if !self.sniffed {
            self.sniff(chunk);
        }
        if self.refused {
            return;
        }
        if let Some(json) = &mut self.json {
            json.feed(chunk);
            let rows = json.rows();
            if self.max_values.is_some_and(|max| rows > max) {
                self.refuse_size(
                    0,
                    format!("more than that ({} entries so far)", grouped(rows)),
                );
            }
            return;
        }
        if self.line_too_long {
            return;
        }
        let mut splitter = std::mem::take(&mut self.splitter);
        let mut rest = chunk;
        while !rest.is_empty() {
            // runs of blank lines are passed over at once (a file, or a
            // "gzip bomb", of nothing but line breaks costs no parse per line)
            if splitter.between_lines() && matches!(rest[0], b'\n' | b'\r' | b' ' | b'\t') {
                let (skipped, lines) = fields::blank_lines(rest);
                if skipped > 0 {
                    splitter.count_lines(lines);
                    self.line_bytes += skipped as u64;
                    rest = &rest[skipped..];
                    continue;
                }
            }
            match self.plain {
                Some(plain) if splitter.between_lines() => {
                    let taken = self.plain_rows(plain, rest, &mut splitter);
                    rest = &rest[taken..];
                    if taken > 0 {
                        continue;
                    }
                }
                Some(_) => {}
                // the format is known and has no fast path: all lines go the general way
                None if !matches!(self.state, table::State::Start) => {
                    splitter.feed(rest, &mut |n, line| self.line(n, line));
                    break;
                }
                // until the header has decided, one line at a time
                None => {}
            }
            // one line (or the unfinished rest) the general way
            let end = rest
                .iter()
                .position(|&b| b == b'\n')
                .map_or(rest.len(), |p| p + 1);
            splitter.feed(&rest[..end], &mut |n, line| self.line(n, line));
            rest = &rest[end..];
        }
        self.splitter = splitter;
        // a file without line breaks must not grow the carried line without bound
        if self.splitter.pending() > MAX_LINE {
            self.line_too_long = true;
            self.errors.push(Problem {
                line: self.splitter.line_no() + 1,
                column: 0,
                expected: format!("lines shorter than {} MiB", MAX_LINE >> 20),
                found: "a longer line (no line break)".into(),
                hint: Some(
                    "Is this a binary file, or a text file with unusual line endings?".into(),
                ),
            });
        }
    }

    /// A file whose first content byte is `{` is JSON (unless another format is forced).
    fn sniff(&mut self, chunk: &[u8]) {
        const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];
        if let Some(found) = utf16(chunk) {
            self.sniffed = true;
            self.refused = true;
            self.errors.push(Problem {
                line: 1,
                column: 0,
                expected: "UTF-8 text".into(),
                found,
                hint: Some("UTF-16: save the file as UTF-8 (in Excel: \"CSV UTF-8\"; or iconv -f UTF-16 -t UTF-8 FILE).".into()),
            });
            return;
        }
        let Some(&first) = chunk
            .iter()
            .find(|b| !b.is_ascii_whitespace() && !BOM.contains(b))
        else {
            return;
        };
        self.sniffed = true;
        // qrels named as such (the CLI's --qrels) may be ranx JSON qrels
        let judgments = self.options.judgments && self.options.format.is_none();
        if first == b'{' && (self.options.format == Some(Format::TrecQrels) || judgments) {
            self.options.format = Some(Format::JsonQrels);
        }
        let forced_other = self
            .options
            .format
            .is_some_and(|f| !matches!(f, Format::JsonRun | Format::JsonQrels));
        let forced_json = matches!(
            self.options.format,
            Some(Format::JsonRun | Format::JsonQrels)
        );
        if (first == b'{' && !forced_other) || forced_json {
            self.json = Some(Box::new(json::JsonReader::new(self.splitter.line_no() + 1)));
        }
    }

    /// Ends the file: the parsed columns, or every problem found (for a
    /// file that must be judgments, [`LoadOptions::judgments`], its
    /// judgments or why it holds none).
    pub fn finish(self) -> Result<Parsed, LoadError> {
        let (file, judgments) = (self.file.clone(), self.options.judgments);
        let parsed = self.finish_any()?;
        if judgments {
            judgments_only(&file, parsed)
        } else {
            Ok(parsed)
        }
    }

    fn finish_any(mut self) -> Result<Parsed, LoadError> {
        if self.refused {
            return Err(self.errors);
        }
        if !self.head.is_empty() {
            let head = std::mem::take(&mut self.head);
            self.feed_text(&head);
        }
        if let Some(mut inflater) = self.inflater.take() {
            // a line past the limit stopped the inflating: the stream is not
            // at its end, and that is no fault of the gzip file
            if !self.gzip_failed && !self.refused && !self.line_too_long {
                let finished = inflater.finish(&mut |text| self.inflated_text(text));
                if let Err(msg) = finished {
                    self.fail_gzip(msg);
                }
            }
            // still a gzip file for what follows (no size estimate from its bytes)
            self.inflater = Some(inflater);
            if self.refused {
                return Err(self.errors);
            }
        }
        if let Some(json) = self.json.take() {
            return match json.finish(&self.file, self.options.format) {
                Ok(Some(parsed)) => Ok(parsed),
                Ok(None) => Err(LoadError::single(
                    &self.file,
                    0,
                    0,
                    "at least one query with one document",
                    "an empty JSON object",
                    None,
                )),
                Err(p) => {
                    self.errors.push(p);
                    Err(self.errors)
                }
            };
        }
        let mut splitter = std::mem::take(&mut self.splitter);
        if !self.line_too_long {
            splitter.finish(&mut |n, line| self.line(n, line));
        }
        let last_line = splitter.line_no();
        if self.over_limit() {
            let values = self.state.values(self.rows);
            self.refuse_size(
                last_line,
                format!("more: by the end it holds {}", grouped(values)),
            );
            return Err(self.errors);
        }
        let name = self.file.clone();
        let header_only = self.state.consumes_header();
        let state = std::mem::replace(&mut self.state, table::State::Start);
        let result = state.finish(&name, &self.options, last_line, &mut self.errors);
        if !self.errors.is_empty() {
            return Err(self.errors);
        }
        result.ok_or_else(|| {
            if header_only {
                return LoadError::single(
                    &name,
                    0,
                    0,
                    "rows of data below the header",
                    "only the header",
                    None,
                );
            }
            LoadError::single(
                &name,
                0,
                0,
                "rows of data",
                "an empty file (or only comments and blank lines)",
                Some(self.options.audience.empty_hint().into()),
            )
        })
    }

    fn line(&mut self, n: u64, line: &[u8]) {
        if self.refused {
            return;
        }
        self.line_bytes += line.len() as u64 + 1;
        let content = fields::trim(line);
        if content.is_empty() || content[0] == b'#' {
            return;
        }
        if let table::State::Start = self.state {
            match table::State::detect(&self.file, content, &self.options) {
                Ok(state) => {
                    let header = state.consumes_header();
                    // the rows the limit allows, fixed by the format and its header
                    self.max_rows = self
                        .max_values
                        .map_or(u64::MAX, |max| max / state.values_per_row());
                    self.state = state;
                    self.plain = self.state.fast_shape(&self.options);
                    if header {
                        return;
                    }
                }
                Err(p) => {
                    self.errors.push(Problem { line: n, ..p });
                    self.state = table::State::Failed;
                    return;
                }
            }
        }
        let delim = self.state.delimiter();
        let fields = self
            .fields
            .split(line, delim.unwrap_or(Delimiter::Whitespace));
        if let Err(p) = self.state.row(n, &fields, &self.options) {
            self.errors.push(p);
        } else {
            self.rows += 1;
            self.counted(n);
        }
    }

    /// The checks after a row is counted (line `n`): the rows alone, on
    /// every row; with the queries, every 1024 rows and at the end; the
    /// columns' size after the first [`SIZING_ROWS`].
    fn counted(&mut self, n: u64) {
        if self.rows > self.max_rows || (self.rows % 1024 == 0 && self.over_limit()) {
            let values = self.state.values(self.rows);
            self.refuse_size(
                n,
                format!("more: by this line it holds {}", grouped(values)),
            );
        } else if self.rows == SIZING_ROWS {
            self.size_columns(n);
        }
    }

    /// Reads plain rows from the start of `bytes` by the fast path, as many
    /// as come before the next check of [`Parser::counted`], and counts them
    /// as the general path would. Returns the bytes read.
    fn plain_rows(
        &mut self,
        plain: fast::Shape,
        bytes: &[u8],
        splitter: &mut LineSplitter,
    ) -> usize {
        if self.refused || self.rows >= self.max_rows {
            return 0;
        }
        let next_check = match (self.rows / 1024 + 1) * 1024 {
            c if self.rows < SIZING_ROWS => c.min(SIZING_ROWS),
            c => c,
        };
        let budget = next_check.min(self.max_rows) - self.rows;
        let taken = self.state.fast_rows(plain, bytes, budget);
        if taken.rows > 0 {
            splitter.count_lines(taken.rows);
            self.line_bytes += (taken.used as u64) - taken.returns;
            self.rows += taken.rows;
            self.counted(splitter.line_no());
        }
        taken.used
    }

    /// Whether the rows and queries read so far hold more values than allowed.
    fn over_limit(&self) -> bool {
        self.max_values
            .is_some_and(|max| self.state.values(self.rows) > max)
    }

    /// After the first [`SIZING_ROWS`] rows of a plain-text file of known size,
    /// sizes its columns for the rows still to come, estimated from the lines so
    /// far, or refuses the file when it would hold more than twice `max` values
    /// (within twice, it is read up to the limit itself).
    fn size_columns(&mut self, n: u64) {
        if self.inflater.is_some() {
            return;
        }
        let Some(total) = self.expected else {
            return;
        };
        // rows still to come, estimated from the lines so far (+2 %)
        let rest = total.saturating_sub(self.line_bytes) as f64;
        let more = rest / self.line_bytes as f64 * self.rows as f64 * 1.02;
        // queries are assumed to come at the same pace as in the first rows
        let estimate = self.state.values(self.rows) as f64 * (1.0 + more / self.rows as f64);
        if self
            .max_values
            .is_some_and(|max| estimate > 2.0 * max as f64)
        {
            let found = format!(
                "about {} (estimated from the file's size, {:.2} GB, and its first {} rows)",
                grouped(three_digits(estimate)),
                total as f64 / 1e9,
                grouped(self.rows)
            );
            self.refuse_size(n, found);
            return;
        }
        // a part of a split file sizes its columns for its own bytes
        let more = match self.share {
            Some(share) if self.splittable(total) => {
                share.saturating_sub(self.line_bytes) as f64 / self.line_bytes as f64
                    * self.rows as f64
                    * 1.02
            }
            _ => more,
        };
        self.state.reserve(more.min(u32::MAX as f64) as usize);
    }
}

/// Whether text starts as UTF-16 does: with its byte-order mark, or with
/// ASCII characters each followed (little-endian) or preceded (big-endian)
/// by a zero byte. Says what was found.
fn utf16(text: &[u8]) -> Option<String> {
    if text.starts_with(&[0xFF, 0xFE]) || text.starts_with(&[0xFE, 0xFF]) {
        return Some(format!(
            "UTF-16 text (it starts with the byte-order mark {:02X} {:02X})",
            text[0], text[1]
        ));
    }
    let probe = &text[..text.len().min(64) & !1];
    if probe.len() < 8 {
        return None;
    }
    let pairs = probe.chunks_exact(2);
    let ascii_then_zero = pairs.clone().filter(|p| p[0] != 0 && p[1] == 0).count();
    let zero_then_ascii = pairs.filter(|p| p[0] == 0 && p[1] != 0).count();
    let n = probe.len() / 2;
    (ascii_then_zero == n || zero_then_ascii == n)
        .then(|| "UTF-16 text (a zero byte beside every character)".into())
}

/// Parses a whole in-memory file (the CLI and tests; the page feeds chunks).
pub fn parse_bytes(file: &str, bytes: &[u8], options: &LoadOptions) -> Result<Parsed, LoadError> {
    let mut p = Parser::new(file, options.clone());
    p.expect_size(bytes.len() as u64);
    for chunk in bytes.chunks(1 << 20) {
        p.feed(chunk);
    }
    p.finish()
}

/// The file name without folders and without the `.gz` and format extensions.
pub fn model_name_from_file(file: &str) -> String {
    let base = file.rsplit(['/', '\\']).next().unwrap_or(file);
    let base = base.strip_suffix(".gz").unwrap_or(base);
    match base.rsplit_once('.') {
        Some((stem, _)) if !stem.is_empty() => stem.to_string(),
        _ => base.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use crate::parse::{grouped, parse_bytes, LoadOptions, Parsed, Parser, Workspace, MAX_LINE};

    /// A file read as judgments (the CLI's --qrels) may be in any judgment
    /// format: TREC qrels (named anything), ranx JSON qrels, a CSV of
    /// relevance, held-out interactions (comma or tab separated), or a
    /// ranking CSV or top-k lists with targets, of which only the
    /// judgments are kept (said); a run is refused, saying what it is.
    #[test]
    fn judgments_are_read_from_every_judgment_format() {
        let options = LoadOptions {
            judgments: true,
            ..Default::default()
        };
        let judged = |name: &str, text: &str| -> (usize, Vec<String>) {
            let (parsed, notes) = parse_bytes(name, text.as_bytes(), &options)
                .unwrap_or_else(|e| panic!("{name}: {e}"))
                .into_parts();
            let rows = match parsed {
                Parsed::Qrels { rows, .. } => rows,
                Parsed::RankingTable {
                    q, models, grade, ..
                } => {
                    assert!(models.is_empty(), "{name}");
                    assert!(grade.iter().all(Option::is_some), "{name}");
                    q.len()
                }
                other => panic!("{name}: {other:?}"),
            };
            (rows, notes)
        };
        assert_eq!(judged("heldout.txt", "q1 0 d1 1\nq1 0 d2 0\n").0, 2);
        assert_eq!(judged("h.txt", "{\"q1\": {\"d1\": 1}}").0, 1);
        assert_eq!(judged("h.csv", "query_id,doc_id,relevance\nq1,d1,1\n").0, 1);
        assert_eq!(
            judged("heldout.csv", "user_id,item_id\nu1,i1\nu2,i2\n").0,
            2
        );
        assert_eq!(judged("heldout.tsv", "user_id\titem_id\nu1\ti1\n").0, 1);
        let (rows, notes) = judged(
            "ranking.csv",
            "query_id,item_id,bm25,relevance\nq1,a,0.5,1\nq1,b,0.4,\nq1,c,,0\n",
        );
        assert_eq!(rows, 2);
        assert!(notes
            .iter()
            .any(|n| n.starts_with("Read as judgments only: its scores (bm25)")));
        let (rows, _) = judged("lists.csv", "user_id,target,pred_1,pred_2\nu1,b,a,b\n");
        assert_eq!(rows, 1);
        // four whitespace fields stay TREC qrels with their own errors
        let e = parse_bytes("h.txt", b"q1 0 d1 x\n", &options).unwrap_err();
        assert_eq!(
            e.to_string(),
            "h.txt:1:4: expected an integer relevance grade, found 'x'"
        );
        for (name, text, what) in [
            (
                "run.csv",
                "user_id,item_id,score\nu1,a,0.5\n",
                "a run (a table with no relevance column)",
            ),
            ("recs.csv", "user_id,rec_1\nu1,a\n", "a run"),
            (
                "b.csv",
                "label,score\n1,0.5\n",
                "a binary classification CSV",
            ),
        ] {
            let e = parse_bytes(name, text.as_bytes(), &options)
                .unwrap_err()
                .to_string();
            assert!(
                e.starts_with(&format!("{name}: expected judgments: TREC qrels")),
                "{e}"
            );
            assert!(
                e.contains(&format!("found {what}. Give it as a file of its own")),
                "{e}"
            );
        }
    }

    fn limited(
        file: &str,
        text: &[u8],
        max: u64,
        size: Option<u64>,
    ) -> (Result<super::Parsed, String>, bool) {
        let mut p = Parser::new(file, LoadOptions::default());
        p.limit_values(Some(max));
        p.expect_size(size.unwrap_or(text.len() as u64));
        for chunk in text.chunks(7) {
            p.feed(chunk);
        }
        let stopped = p.stopped();
        (p.finish().map_err(|e| e.to_string()), stopped)
    }

    const ADVICE: &str = "Evaluate it with the command-line tool (rankscope eval FILE), which has no such limit, or split it into smaller files.";

    /// A run of `n` lines over `queries` queries (query `i % queries`).
    fn run_over(n: usize, queries: usize) -> String {
        (0..n)
            .map(|i| format!("q{} Q0 d{i} {i} 0.5 t\n", i % queries))
            .collect()
    }

    fn refused(file: &str, line: u64, max: u64, found: &str) -> String {
        format!("{file}:{line}: expected at most {} values in one file (one per score of a row, 16 per query of a run), the most a browser tab's 32-bit memory evaluates safely, found {found}. {ADVICE}", grouped(max))
    }

    #[test]
    fn a_file_past_the_value_limit_is_refused_at_the_line_that_crosses_it() {
        // one query: 16 values, then one per line
        let (ok, stopped) = limited("fits.run", run_over(24, 1).as_bytes(), 40, None);
        assert!(ok.is_ok() && !stopped);
        let (err, _) = limited("one.run", run_over(25, 1).as_bytes(), 40, None);
        assert_eq!(
            err.unwrap_err(),
            refused("one.run", 25, 40, "more: by the end it holds 41")
        );
        // the lines alone cross it on line 41: refused there, the rest not read
        let (err, stopped) = limited("long.run", run_over(60, 1).as_bytes(), 40, None);
        assert!(stopped);
        assert_eq!(
            err.unwrap_err(),
            refused("long.run", 41, 40, "more: by this line it holds 57")
        );
        // queries are counted every 1024 rows: 1024 + 16 x 1024 fits, 2048 + 16 x 2048 does not
        let (err, stopped) = limited("many.run", run_over(3000, 3000).as_bytes(), 20_000, None);
        assert!(stopped);
        assert_eq!(
            err.unwrap_err(),
            refused(
                "many.run",
                2048,
                20_000,
                "more: by this line it holds 34,816"
            )
        );
        // each score column counts: 3 models x 2 rows = 6 > 5, on line 3 (after the header)
        let (err, _) = limited(
            "wide.csv",
            b"label,a,b,c\n1,0.1,0.2,0.3\n0,0.4,0.5,0.6\n",
            5,
            None,
        );
        assert_eq!(
            err.unwrap_err(),
            refused("wide.csv", 3, 5, "more: by this line it holds 6")
        );
        // a JSON run counts its (query, document) entries
        let (err, _) = limited(
            "big.json",
            br#"{"q1": {"d1": 0.5, "d2": 0.4, "d3": 0.1}}"#,
            2,
            None,
        );
        assert_eq!(
            err.unwrap_err(),
            refused("big.json", 0, 2, "more than that (3 entries so far)")
                .replace("big.json:0:", "big.json:")
        );
    }

    #[test]
    fn a_file_far_past_the_limit_is_refused_from_its_size_after_its_first_rows() {
        let text = run_over(20_000, 3);
        let size = text.len() as u64 * 5;
        // (20,000 rows + 3 queries x 16) x 5.08: about 102,000 values, more than twice 40,000
        let (err, stopped) = limited("huge.run", text.as_bytes(), 40_000, Some(size));
        assert!(stopped);
        let found = format!(
            "about 102,000 (estimated from the file's size, {:.2} GB, and its first 20,000 rows)",
            size as f64 / 1e9
        );
        assert_eq!(
            err.unwrap_err(),
            refused("huge.run", 20_000, 40_000, &found)
        );
        // within twice the limit it is read on (the estimate may be high)
        let (ok, stopped) = limited("near.run", text.as_bytes(), 60_000, Some(size));
        assert!(ok.is_ok() && !stopped);
    }

    #[test]
    fn grouping_digits() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
        assert_eq!(grouped(40_000_000), "40,000,000");
        assert_eq!(grouped(u64::MAX), "18,446,744,073,709,551,615");
        assert_eq!(super::three_digits(101_600.0), 102_000);
        assert_eq!(super::three_digits(190_123_456.0), 190_000_000);
        assert_eq!(super::three_digits(999.4), 999);
    }

    #[test]
    fn a_workspace_past_its_value_limit_refuses_the_file_and_keeps_what_it_had() {
        let mut ws = Workspace {
            max_values: Some(58),
            ..Workspace::default()
        };
        let options = LoadOptions::default();
        // 8 lines over 3 queries: 8 + 3 x 16
        let run = parse_bytes("a.run", run_over(8, 3).as_bytes(), &options).unwrap();
        ws.add("a.run", run).unwrap();
        assert_eq!(ws.values(), 56);
        let qrels = parse_bytes("b.qrels", b"q0 0 d0 1\nq1 0 d1 1\nq2 0 d2 0\n", &options).unwrap();
        let err = ws.add("b.qrels", qrels).unwrap_err().to_string();
        assert_eq!(err, "b.qrels: expected at most 58 values loaded at once (one per score of a row, 16 per query of a run), the most a browser tab's 32-bit memory evaluates safely, found 56 already loaded and 3 in this file. Remove models or clear the page first, or evaluate the files with the command-line tool (rankscope eval), which has no such limit.");
        assert_eq!((ws.values(), ws.files.len()), (56, 1));
        // natively nothing is limited
        assert_eq!(Workspace::default().max_values, None);
        assert_eq!(super::file_limit(), None);
    }

    #[test]
    fn a_file_without_line_breaks_is_refused_with_bounded_memory() {
        let mut p = Parser::new("blob.bin", LoadOptions::default());
        let chunk = vec![b'x'; 1 << 20];
        for _ in 0..(MAX_LINE >> 20) + 4 {
            p.feed(&chunk);
        }
        let err = p.finish().unwrap_err().to_string();
        assert_eq!(err, "blob.bin:1: expected lines shorter than 16 MiB, found a longer line (no line break). Is this a binary file, or a text file with unusual line endings?");
    }
}
