//! Parsers that turn files into the core's types.
//!
//! A [`Parser`] is fed a file in chunks of any size ([`Parser::feed`]) and keeps
//! only compact columns (interned ids, numbers), never the text. The format is
//! detected from the first content line (or forced). [`Workspace::add`] merges
//! a finished file into the loaded data sets, or leaves them untouched when the
//! file has problems.

pub mod error;
pub mod fields;
pub mod gzip;
mod json;
pub mod lines;
mod table;
pub mod transfer;
mod workspace;

pub use error::{LoadError, Problem};
pub use table::Format;
pub use workspace::{LoadSummary, Workspace};

use crate::core::evaluate::{BinaryData, MulticlassData, RatingsData};
use crate::core::ids::{Interner, Names};
use crate::core::ranking::Qrels;
use fields::Delimiter;
use lines::LineSplitter;

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
        #[serde(with = "crate::core::raw")]
        q: Vec<u32>,
        docs: Names,
        #[serde(with = "crate::core::raw")]
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
        #[serde(with = "crate::core::raw")]
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
}

/// Measure values computed by another tool (trec_eval `-q` output): per
/// measure and query (`all` included as written), never recomputed.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Precomputed {
    /// The `runid` line's value, else the file name.
    pub name: String,
    pub measures: Interner,
    pub queries: Interner,
    #[serde(with = "crate::core::raw")]
    pub m: Vec<u32>,
    #[serde(with = "crate::core::raw")]
    pub q: Vec<u32>,
    #[serde(with = "crate::core::raw")]
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
}

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
            fields: fields::Splitter::default(),
            head: Vec::new(),
            decided: false,
            gzip_failed: false,
            line_too_long: false,
            sniffed: false,
            json: None,
            expected: None,
            line_bytes: 0,
        }
    }

    /// The file's size in bytes: once the first rows show the average line
    /// length, a plain-text run or qrels file gets its columns allocated for
    /// the whole file at once (no doubling, so about half the peak memory of
    /// growing them). A gzip file's size says nothing of its text: ignored.
    pub fn expect_size(&mut self, bytes: u64) {
        self.expected = Some(bytes);
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
        if self.gzip_failed {
            return;
        }
        match &mut self.inflater {
            Some(inflater) => match inflater.push(chunk) {
                Ok(text) => self.feed_text(&text),
                Err(msg) => self.fail_gzip(msg),
            },
            None => self.feed_text(chunk),
        }
    }

    fn fail_gzip(&mut self, msg: String) {
        self.gzip_failed = true;
        self.errors.push(Problem {
            line: 0,
            column: 0,
            expected: "a complete gzip file".into(),
            found: msg,
            hint: Some("Compress the file again, or drop the uncompressed file.".into()),
        });
    }

    fn feed_text(&mut self, chunk: &[u8]) {
        if !self.sniffed {
            self.sniff(chunk);
        }
        if let Some(json) = &mut self.json {
            json.feed(chunk);
            return;
        }
        if self.line_too_long {
            return;
        }
        let mut splitter = std::mem::take(&mut self.splitter);
        splitter.feed(chunk, &mut |n, line| self.line(n, line));
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
        let Some(&first) = chunk
            .iter()
            .find(|b| !b.is_ascii_whitespace() && !BOM.contains(b))
        else {
            return;
        };
        self.sniffed = true;
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

    /// Ends the file: the parsed columns, or every problem found.
    pub fn finish(mut self) -> Result<Parsed, LoadError> {
        if !self.head.is_empty() {
            let head = std::mem::take(&mut self.head);
            self.feed_text(&head);
        }
        if let Some(inflater) = self.inflater.take() {
            if !self.gzip_failed {
                match inflater.finish() {
                    Ok(rest) => self.feed_text(&rest),
                    Err(msg) => self.fail_gzip(msg),
                }
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
                Some(
                    "Drop a TREC run, qrels, or a CSV file with a header and at least one row."
                        .into(),
                ),
            )
        })
    }

    fn line(&mut self, n: u64, line: &[u8]) {
        self.line_bytes += line.len() as u64 + 1;
        let content = fields::trim(line);
        if content.is_empty() || content[0] == b'#' {
            return;
        }
        if let table::State::Start = self.state {
            match table::State::detect(&self.file, content, &self.options) {
                Ok(state) => {
                    let header = state.consumes_header();
                    self.state = state;
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
            if self.rows == SIZING_ROWS && self.inflater.is_none() {
                if let Some(total) = self.expected {
                    // rows still to come, estimated from the lines so far (+2 %)
                    let rest = total.saturating_sub(self.line_bytes) as f64;
                    let more = rest / self.line_bytes as f64 * self.rows as f64 * 1.02;
                    self.state.reserve(more.min(u32::MAX as f64) as usize);
                }
            }
        }
    }
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
    use crate::parse::{LoadOptions, Parser, MAX_LINE};

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
