//! One large binary CSV or multi-class matrix parsed as two parts at once
//! (two workers, two cores): the head, from the start to the first line
//! break at or after the middle, and the tail, from there to the end with
//! the header line fed first. Each row of these formats stands alone and the
//! parser's lines never span a line break (quoted fields included), so the
//! two parts joined in order are the file: the same columns (a matrix: the
//! same row summaries), the same problems at the same lines.
//!
//! Both parts decide alike whether to split, from what both read: the bytes
//! up to the header, the file's size and the middle. A file splits when
//! - it is plain text (not gzip, not JSON) and its header, ending before the
//!   middle, makes it a binary CSV or a matrix read whole (not one class
//!   against the rest);
//! - its size alone proves it within the per-file value limit (a row of `m`
//!   scores takes at least `2m + 2` bytes), so neither part can be refused
//!   for a size the whole file would not be refused for;
//! - a line break follows the middle within [`MAX_LINE`] bytes.
//!
//! Otherwise the head parses the whole file and the tail nothing.

use super::{transfer, Audience, LoadError, Parsed, Parser, MAX_LINE};
use rankscope_core::evaluate::{BinaryData, MulticlassData};
use rankscope_core::raw::{self, Column, Joined, Side};

/// Files smaller than this are parsed whole: a second worker would cost more
/// than it saves.
pub const SPLIT_MIN: u64 = 16 << 20;

/// Which part of a file one parse reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    Whole,
    Head,
    Tail,
}

impl Part {
    pub fn id(self) -> &'static str {
        match self {
            Part::Whole => "whole",
            Part::Head => "head",
            Part::Tail => "tail",
        }
    }

    pub fn from_id(id: &str) -> Option<Part> {
        [Part::Whole, Part::Head, Part::Tail]
            .into_iter()
            .find(|p| p.id() == id)
    }
}

/// How a part's parse ended.
pub struct PartEnd {
    pub outcome: Result<Parsed, LoadError>,
    /// Head: it stopped at the split line (else it read the whole file).
    /// Tail: it read the rest of the file (else it read only up to the header).
    pub split: bool,
    /// Head: lines up to the split. Tail: lines up to and with the header.
    pub lines: u64,
}

/// Where a part reads its bytes: `read(start, end, buf)` fills `buf` with
/// bytes `start..end` of the file. The reads of one part mostly follow each
/// other (`end` of one is `start` of the next), so a source may stream.
pub trait Source {
    fn read(
        &mut self,
        start: u64,
        end: u64,
        buf: &mut Vec<u8>,
    ) -> impl std::future::Future<Output = Result<(), LoadError>>;
}

/// A file already in memory.
pub struct Bytes<'a>(pub &'a [u8]);

impl Source for Bytes<'_> {
    async fn read(&mut self, start: u64, end: u64, buf: &mut Vec<u8>) -> Result<(), LoadError> {
        buf.clear();
        buf.extend_from_slice(&self.0[start as usize..end as usize]);
        Ok(())
    }
}

/// [`parse_part`] of a file in memory (its reads are never pending).
pub fn parse_bytes_part(parser: Parser, bytes: &[u8], part: Part, chunk: u64) -> PartEnd {
    parse_part_now(parser, bytes.len() as u64, part, chunk, &mut Bytes(bytes))
}

/// [`parse_part`] from a source whose reads are never pending (they block,
/// or the bytes are at hand), run to its end on this thread.
pub fn parse_part_now(
    parser: Parser,
    total: u64,
    part: Part,
    chunk: u64,
    source: &mut impl Source,
) -> PartEnd {
    let mut progress = |_, _| {};
    let future = parse_part(parser, total, part, chunk, source, &mut progress);
    let mut future = std::pin::pin!(future);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(end) = std::future::Future::poll(future.as_mut(), &mut cx) {
            return end;
        }
    }
}

/// Parses one part of a file of `total` bytes with `parser` (new, with its
/// file name, options and limits), reading `chunk` bytes at a time and
/// calling `progress(bytes, rows)` of this part after each.
pub async fn parse_part(
    parser: Parser,
    total: u64,
    part: Part,
    chunk: u64,
    source: &mut impl Source,
    progress: &mut dyn FnMut(u64, u64),
) -> PartEnd {
    let mut reader = Reader {
        chunk: chunk.max(1),
        source,
        progress,
        buf: Vec::new(),
    };
    let end = match part {
        Part::Whole => whole(parser, total, &mut reader).await,
        Part::Head => head(parser, total, &mut reader).await,
        Part::Tail => tail(parser, total, &mut reader).await,
    };
    end.unwrap_or_else(|e| PartEnd {
        outcome: Err(e),
        split: false,
        lines: 0,
    })
}

/// The reading side of a part: slices of `chunk` bytes from its source.
struct Reader<'r, S: Source> {
    chunk: u64,
    source: &'r mut S,
    progress: &'r mut dyn FnMut(u64, u64),
    buf: Vec<u8>,
}

impl<S: Source> Reader<'_, S> {
    /// Reads bytes `start..end` into the buffer.
    async fn read(&mut self, start: u64, end: u64) -> Result<&[u8], LoadError> {
        self.source.read(start, end, &mut self.buf).await?;
        Ok(&self.buf)
    }

    /// Feeds bytes `start..end`, stopping early when the parser refuses the file.
    async fn feed(&mut self, parser: &mut Parser, start: u64, end: u64) -> Result<(), LoadError> {
        let mut offset = start;
        while offset < end && !parser.stopped() {
            let stop = (offset + self.chunk).min(end);
            parser.feed(self.read(offset, stop).await?);
            offset = stop;
            (self.progress)(parser.bytes_read(), parser.rows_parsed());
        }
        Ok(())
    }

    /// Just past the first line break at or after `mid`, if one comes
    /// within [`MAX_LINE`] bytes.
    async fn line_end_after(&mut self, mid: u64, total: u64) -> Result<Option<u64>, LoadError> {
        let limit = total.min(mid + MAX_LINE as u64);
        let mut offset = mid;
        while offset < limit {
            let end = (offset + self.chunk).min(limit);
            if let Some(i) = self
                .read(offset, end)
                .await?
                .iter()
                .position(|&b| b == b'\n')
            {
                return Ok(Some(offset + i as u64 + 1));
            }
            offset = end;
        }
        Ok(None)
    }
}

/// The end of a part that read the whole file (or stopped where it was refused).
fn unsplit(parser: Parser) -> PartEnd {
    PartEnd {
        outcome: parser.finish(),
        split: false,
        lines: 0,
    }
}

async fn whole(
    mut parser: Parser,
    total: u64,
    r: &mut Reader<'_, impl Source>,
) -> Result<PartEnd, LoadError> {
    parser.expect_size(total);
    r.feed(&mut parser, 0, total).await?;
    Ok(unsplit(parser))
}

async fn head(
    mut parser: Parser,
    total: u64,
    r: &mut Reader<'_, impl Source>,
) -> Result<PartEnd, LoadError> {
    let mid = total / 2;
    parser.expect_size(total);
    parser.expect_share(mid);
    r.feed(&mut parser, 0, mid).await?;
    // a refused file (too large, a line without end) is not read further
    if parser.stopped() {
        return Ok(unsplit(parser));
    }
    let cut = match parser.splittable(total) {
        true => r.line_end_after(mid, total).await?,
        false => None,
    };
    let Some(cut) = cut else {
        r.feed(&mut parser, mid, total).await?;
        return Ok(unsplit(parser));
    };
    r.feed(&mut parser, mid, cut).await?;
    // refused before the split line (a line without end): one parser
    // stops there too, so the tail's rows do not count
    if parser.stopped() {
        return Ok(unsplit(parser));
    }
    let lines = parser.splitter.line_no();
    parser.state.keep_empty();
    Ok(PartEnd {
        outcome: parser.finish(),
        split: true,
        lines,
    })
}

async fn tail(
    mut parser: Parser,
    total: u64,
    r: &mut Reader<'_, impl Source>,
) -> Result<PartEnd, LoadError> {
    let mid = total / 2;
    let declined = |file: &str, lines| PartEnd {
        outcome: Err(LoadError::new(file)),
        split: false,
        lines,
    };
    // the header, fed line by line: nothing after it reaches this parser
    let mut offset = 0;
    let mut pending: Vec<u8> = Vec::new();
    while !parser.header_read() && offset < mid {
        let end = (offset + r.chunk).min(mid);
        pending.extend_from_slice(r.read(offset, end).await?);
        offset = end;
        while let Some(i) = pending.iter().position(|&b| b == b'\n') {
            parser.feed(&pending[..=i]);
            pending.drain(..=i);
            if parser.header_read() {
                break;
            }
        }
    }
    let header_end = offset - pending.len() as u64;
    if !parser.header_read() || !parser.splittable(total) {
        return Ok(declined(&parser.file, 0));
    }
    let lines = parser.splitter.line_no();
    let Some(cut) = r.line_end_after(mid, total).await? else {
        return Ok(declined(&parser.file, lines));
    };
    parser.expect_size(total);
    parser.expect_share(header_end + (total - cut));
    parser.state.keep_empty();
    r.feed(&mut parser, cut, total).await?;
    Ok(PartEnd {
        outcome: parser.finish(),
        split: true,
        lines,
    })
}

impl Parser {
    /// Whether the first content line (the header, or the first row of a
    /// headerless format) has been read, or the file is gzip or JSON.
    fn header_read(&self) -> bool {
        self.inflater.is_some()
            || self.json.is_some()
            || self.stopped()
            || !matches!(self.state, super::table::State::Start)
    }

    /// Whether this file may be parsed as two parts (see the module docs),
    /// decided from its header and its size alone.
    pub(super) fn splittable(&self, total: u64) -> bool {
        if self.inflater.is_some() || self.json.is_some() {
            return false;
        }
        let Some((values, bytes)) = self.state.split_shape(&self.options) else {
            return false;
        };
        let (values, bytes, total) = (values as u128, bytes as u128, total as u128);
        self.max_values
            .is_none_or(|max| total * values / bytes <= max as u128)
    }
}

/// The file from its two parts: the head's outcome when it did not split,
/// else both parts' columns in order, or both parts' problems with the
/// tail's lines counted from the start of the file.
pub fn join(file: &str, head: PartEnd, tail: PartEnd) -> Result<Parsed, LoadError> {
    join_for(Audience::Page, file, head, tail)
}

/// [`join`], its messages' advice for `audience`.
pub fn join_for(
    audience: Audience,
    file: &str,
    head: PartEnd,
    tail: PartEnd,
) -> Result<Parsed, LoadError> {
    if !head.split {
        return head.outcome;
    }
    // both parts read the header, so carry the same notes: the head's are kept
    let (head, notes) = head.without_notes();
    let (tail, _) = tail.without_notes();
    join_parts(audience, file, head, tail).map(|p| p.noted(notes))
}

impl PartEnd {
    fn without_notes(self) -> (PartEnd, Vec<String>) {
        let (outcome, notes) = match self.outcome {
            Ok(parsed) => {
                let (data, notes) = parsed.into_parts();
                (Ok(data), notes)
            }
            Err(e) => (Err(e), Vec::new()),
        };
        (PartEnd { outcome, ..self }, notes)
    }
}

fn join_parts(
    audience: Audience,
    file: &str,
    head: PartEnd,
    tail: PartEnd,
) -> Result<Parsed, LoadError> {
    if !tail.split {
        return Err(LoadError::single(
            file,
            0,
            0,
            "the same file throughout its load",
            "a file that changed while it was read",
            Some(audience.changed_hint().into()),
        ));
    }
    let shift = head.lines.saturating_sub(tail.lines);
    match (head.outcome, tail.outcome) {
        (Ok(Parsed::Binary(a)), Ok(Parsed::Binary(b))) => {
            let joined = concat(a, b);
            if joined.labels.is_empty() {
                return Err(only_the_header(file));
            }
            Ok(Parsed::Binary(joined))
        }
        (Ok(Parsed::Multiclass(a)), Ok(Parsed::Multiclass(b))) => {
            let joined = concat_rows(a, b);
            if joined.targets.is_empty() {
                return Err(only_the_header(file));
            }
            Ok(Parsed::Multiclass(joined))
        }
        (Ok(_), Ok(_)) => Err(LoadError::single(
            file,
            0,
            0,
            "the same format in both halves",
            "another format",
            None,
        )),
        (a, b) => {
            let mut errors = LoadError::new(file);
            if let Err(a) = a {
                for p in a.problems {
                    errors.push(p);
                }
                errors.more += a.more;
            }
            if let Err(b) = b {
                for mut p in b.problems {
                    if p.line > 0 {
                        p.line += shift;
                    }
                    errors.push(p);
                }
                errors.more += b.more;
            }
            Err(errors)
        }
    }
}

fn only_the_header(file: &str) -> LoadError {
    LoadError::single(
        file,
        0,
        0,
        "rows of data below the header",
        "only the header",
        None,
    )
}

/// Whether [`join_around`] can join `first` (decoded) to the other part of
/// the file: both split, and `first` is binary rows with every model's curve built.
pub fn can_join_around(first: &PartEnd, second_split: bool) -> bool {
    match first.outcome.as_ref().map(Parsed::data) {
        Ok(Parsed::Binary(b)) => {
            first.split && second_split && (0..b.models.len()).all(|i| b.built_curve(i).is_some())
        }
        _ => false,
    }
}

/// [`join`] for a part decoded already (`first`, which [`can_join_around`])
/// and the other part still in its transfer form (its block `bytes`, its
/// `curves` block, its columns in `side`, whether it split and its `lines`):
/// the second part is read with the first's rows around its own
/// ([`Joined`]: each joined column written once, at its full length, where
/// [`join`] would copy both parts' columns once more), and each model's two
/// curves are merged and checked against the joined labels. `Err`: the
/// transfer was damaged.
pub fn join_around(
    file: &str,
    first: PartEnd,
    first_is_head: bool,
    (split, lines): (bool, u64),
    bytes: &[u8],
    curves: &[u8],
    side: Box<dyn Side>,
) -> Result<Result<Parsed, LoadError>, String> {
    let (first, notes) = first.without_notes();
    let Ok(Parsed::Binary(b)) = first.outcome else {
        return Err("a part that cannot be joined around".into());
    };
    let built: Vec<_> = (0..b.models.len())
        .filter_map(|i| b.built_curve(i))
        .collect();
    let names: Vec<String> = b.models.iter().map(|m| m.0.clone()).collect();
    // the rows in the order they were written: the labels, then each model's scores
    let mut held = vec![Column::U8(b.labels.into_iter().map(u8::from).collect())];
    held.extend(b.models.into_iter().map(|m| Column::F64(m.1)));
    let joined = Joined {
        inner: side,
        held,
        held_first: first_is_head,
    };
    let (outcome, side) = raw::with_side(Box::new(joined), || transfer::decode(bytes));
    let (second, _) = PartEnd {
        outcome: outcome?,
        split,
        lines,
    }
    .without_notes();
    let mut full = match second.outcome {
        Ok(Parsed::Binary(full)) => full,
        // problems in the second part (the first had none), or another format
        _ => {
            let first = PartEnd {
                outcome: Ok(Parsed::Binary(BinaryData::default())),
                split: true,
                lines: first.lines,
            };
            let (head, tail) = if first_is_head {
                (first, second)
            } else {
                (second, first)
            };
            return Ok(join_parts(Audience::Page, file, head, tail).map(|p| p.noted(notes)));
        }
    };
    if full.models.len() != names.len() || full.models.iter().zip(&names).any(|(m, n)| &m.0 != n) {
        return Err("the two parts of the file have different columns".into());
    }
    let theirs = transfer::decode_curves_with(curves, side)?;
    if theirs.len() != built.len() {
        return Err(format!(
            "{} curves for {} models",
            theirs.len(),
            built.len()
        ));
    }
    full.set_curves(built.iter().zip(&theirs).map(|(a, b)| a.merge(b)).collect())?;
    if full.labels.is_empty() {
        return Ok(Err(only_the_header(file)));
    }
    Ok(Ok(Parsed::Binary(full).noted(notes)))
}

/// The rows of `a` then those of `b` (the same header, so the same models),
/// with their curves merged when both parts built them.
fn concat(a: BinaryData, b: BinaryData) -> BinaryData {
    let curves: Vec<_> = (0..a.models.len())
        .map(|i| match (a.built_curve(i), b.built_curve(i)) {
            (Some(x), Some(y)) => Some(std::sync::Arc::new(x.merge(&y))),
            _ => None,
        })
        .collect();
    // each column allocated once at its full length (growing the head's
    // column would copy it once more)
    let mut out = BinaryData {
        labels: [a.labels.as_slice(), b.labels.as_slice()].concat(),
        ..Default::default()
    };
    for (((name, scores), (_, more)), curve) in a.models.into_iter().zip(b.models).zip(curves) {
        let scores = [scores.as_slice(), more.as_slice()].concat();
        out.push_model(name, scores, curve);
    }
    out
}

/// The rows of matrix `a` then those of `b` (the same header: the same
/// classes, one model).
fn concat_rows(mut a: MulticlassData, b: MulticlassData) -> MulticlassData {
    a.targets.extend_from_slice(&b.targets);
    for (m, more) in a.models.iter_mut().zip(b.models) {
        m.rows.extend_from_slice(&more.rows);
    }
    for (n, more) in a.rows_off_one.iter_mut().zip(b.rows_off_one) {
        *n += more;
    }
    a.num_classes = a.num_classes.max(b.num_classes);
    a
}

#[cfg(test)]
mod tests {
    /// A file that changed between its two parts' reads is refused, with
    /// the advice of whoever reads the message: the page's or the command line's.
    #[test]
    fn a_file_changed_while_read_is_refused_with_its_readers_advice() {
        let part = |split| PartEnd {
            outcome: crate::parse::parse_bytes(
                "f.csv",
                b"label,score\n1,0.5\n",
                &LoadOptions::default(),
            ),
            split,
            lines: 2,
        };
        for (audience, advice) in [
            (Audience::Page, "Drop it again."),
            (
                Audience::CommandLine,
                "Run the command again once the file is written.",
            ),
        ] {
            let err = join_for(audience, "f.csv", part(true), part(false)).unwrap_err();
            assert_eq!(
                err.to_string(),
                format!("f.csv: expected the same file throughout its load, found a file that changed while it was read. {advice}")
            );
        }
    }

    use super::*;
    use crate::parse::{parse_bytes, LoadOptions};
    use rankscope_core::binary::BinaryCurve;

    fn part(text: &[u8], part: Part, chunk: u64, max: Option<u64>) -> PartEnd {
        let mut parser = Parser::new("f.csv", LoadOptions::default());
        parser.limit_values(max);
        parse_bytes_part(parser, text, part, chunk)
    }

    /// The parse of `text` as two parts, joined.
    fn split(text: &[u8], chunk: u64) -> (Result<Parsed, LoadError>, bool) {
        split_limited(text, chunk, None)
    }

    fn split_limited(
        text: &[u8],
        chunk: u64,
        max: Option<u64>,
    ) -> (Result<Parsed, LoadError>, bool) {
        let head = part(text, Part::Head, chunk, max);
        let tail = part(text, Part::Tail, chunk, max);
        let was_split = head.split;
        assert_eq!(head.split, tail.split, "both parts decide alike");
        let plain = join("f.csv", head, tail);
        let joined = join(
            "f.csv",
            with_curves(part(text, Part::Head, chunk, max)),
            with_curves(part(text, Part::Tail, chunk, max)),
        );
        // the page's way: whichever part answers first is decoded, the other
        // read around its rows; the same result, curves included
        for (head_first, room) in [(true, false), (false, false), (true, true), (false, true)] {
            let (first, second) = (Part::Head, Part::Tail);
            let (first, second) = if head_first {
                (first, second)
            } else {
                (second, first)
            };
            let mut first = with_curves(part(text, first, chunk, max));
            let second = with_curves(part(text, second, chunk, max));
            // the first part's scores with room for the second's rows (joined
            // in place) or none (joined into a new column)
            if let Ok(Parsed::Binary(b)) = &mut first.outcome {
                for (_, scores) in &mut b.models {
                    scores.shrink_to_fit();
                    if room {
                        scores.reserve_exact(text.len());
                    }
                }
            }
            if !can_join_around(&first, second.split) {
                continue;
            }
            let (bytes, side) =
                transfer::encode_with(&second.outcome, Box::new(transfer::VecSide::default()));
            let curves: Vec<BinaryCurve> = match &second.outcome {
                Ok(Parsed::Binary(b)) => {
                    (0..b.models.len()).map(|i| (*b.curve(i)).clone()).collect()
                }
                _ => vec![],
            };
            let (block, side) = transfer::encode_curves_with(&curves, side);
            let around = join_around(
                "f.csv",
                first,
                head_first,
                (second.split, second.lines),
                &bytes,
                &block,
                side,
            )
            .unwrap();
            assert!(
                same(&around, &joined),
                "head first: {head_first}, room: {room}"
            );
            if let (Ok(Parsed::Binary(a)), Ok(Parsed::Binary(b))) = (&around, &joined) {
                for i in 0..b.models.len() {
                    let (x, y) = (a.built_curve(i).unwrap(), b.built_curve(i).unwrap());
                    assert_eq!(
                        (&x.thresholds, &x.tps, &x.fps, x.positives, x.negatives),
                        (&y.thresholds, &y.tps, &y.fps, y.positives, y.negatives)
                    );
                }
            }
        }
        (plain, was_split)
    }

    /// A part with its curves built, as its worker sends it.
    fn with_curves(mut end: PartEnd) -> PartEnd {
        if let Ok(Parsed::Binary(b)) = &mut end.outcome {
            let curves = b
                .models
                .iter()
                .map(|m| BinaryCurve::new(&b.labels, &m.1))
                .collect();
            b.set_curves(curves).unwrap();
        }
        end
    }

    fn same(a: &Result<Parsed, LoadError>, b: &Result<Parsed, LoadError>) -> bool {
        format!("{a:?}") == format!("{b:?}")
    }

    #[test]
    fn a_binary_csv_split_in_two_is_the_whole_file() {
        let mut text = String::from("# scores of two models\nlabel,gbdt,logreg\n");
        for i in 0..5000 {
            text.push_str(&format!(
                "{},{:.4},{:.3}\n",
                (i * 7) % 3 % 2,
                (i % 97) as f64 / 97.0,
                (i % 13) as f64 / 13.0
            ));
            if i % 777 == 0 {
                text.push_str("\n# a comment\n");
            }
        }
        let whole = parse_bytes("f.csv", text.as_bytes(), &LoadOptions::default());
        assert!(whole.is_ok());
        for chunk in [1, 7, 4096, 1 << 20] {
            let (joined, was_split) = split(text.as_bytes(), chunk);
            assert!(was_split);
            assert!(same(&joined, &whole), "chunk {chunk}");
        }
    }

    /// A multi-class matrix of `rows` rows over 5 classes, with ties, rows
    /// off one and a comment, and a bad target and a bad score at `bad`.
    fn matrix(rows: usize, bad: &[usize]) -> String {
        let mut text = String::from("target,p_0,p_1,p_2,p_3,p_4\n");
        for i in 0..rows {
            let v: Vec<String> = (0..5)
                .map(|c| format!("{:.2}", ((i * 7 + c * 3) % 11) as f64 / 22.0))
                .collect();
            match bad.iter().position(|&b| b == i) {
                Some(0) => text.push_str(&format!("9,{}\n", v.join(","))),
                Some(_) => text.push_str(&format!("1,{},x\n", v[..4].join(","))),
                None => text.push_str(&format!("{},{}\n", i % 5, v.join(","))),
            }
            if i % 333 == 0 {
                text.push_str("# a comment\n");
            }
        }
        text
    }

    #[test]
    fn a_multiclass_matrix_split_in_two_is_the_whole_file() {
        let text = matrix(3000, &[]);
        let whole = parse_bytes("f.csv", text.as_bytes(), &LoadOptions::default());
        assert!(
            matches!(&whole, Ok(Parsed::Multiclass(m)) if m.targets.len() == 3000 && m.rows_off_one[0] > 0)
        );
        for chunk in [1, 13, 4096, 1 << 20] {
            let (joined, was_split) = split(text.as_bytes(), chunk);
            assert!(was_split);
            assert!(same(&joined, &whole), "chunk {chunk}");
        }
        // problems on either side of the middle, at the whole file's lines
        let text = matrix(3000, &[10, 2500]);
        let whole = parse_bytes("f.csv", text.as_bytes(), &LoadOptions::default());
        let (joined, was_split) = split(text.as_bytes(), 4096);
        assert!(was_split);
        let (whole, joined) = (whole.unwrap_err(), joined.unwrap_err());
        assert_eq!(whole.to_string(), joined.to_string());
        assert_eq!(joined.problems.len(), 2);
        // rows only in the head
        let text = format!("{}{}", matrix(50, &[]), "#\n".repeat(2000));
        let whole = parse_bytes("f.csv", text.as_bytes(), &LoadOptions::default());
        let (joined, was_split) = split(text.as_bytes(), 64);
        assert!(was_split);
        assert!(same(&joined, &whole));
    }

    #[test]
    fn a_matrix_read_one_class_against_the_rest_is_read_whole() {
        let text = matrix(1000, &[]);
        let options = LoadOptions {
            one_vs_rest: Some(2),
            ..LoadOptions::default()
        };
        let run = |part: Part| {
            parse_bytes_part(
                Parser::new("f.csv", options.clone()),
                text.as_bytes(),
                part,
                256,
            )
        };
        let (head, tail) = (run(Part::Head), run(Part::Tail));
        assert!(!head.split && !tail.split);
        let joined = join("f.csv", head, tail);
        assert!(matches!(&joined, Ok(Parsed::Binary(b)) if b.labels.len() == 1000));
        assert!(same(
            &joined,
            &parse_bytes("f.csv", text.as_bytes(), &options)
        ));
    }

    #[test]
    fn problems_in_both_parts_keep_their_lines() {
        let mut text = String::from("label,score\r\n");
        for i in 0..2000 {
            match i {
                10 => text.push_str("maybe,0.5\r\n"),
                1500 => text.push_str("1,high\r\n"),
                _ => text.push_str(&format!("{},0.{}\r\n", i % 2, i % 10)),
            }
        }
        let whole = parse_bytes("f.csv", text.as_bytes(), &LoadOptions::default());
        let (joined, was_split) = split(text.as_bytes(), 100);
        assert!(was_split);
        let (whole, joined) = (whole.unwrap_err(), joined.unwrap_err());
        assert_eq!(whole.to_string(), joined.to_string());
        assert_eq!(joined.problems.len(), 2);
        assert_eq!(joined.problems[1].line, 1502);
    }

    #[test]
    fn rows_only_on_one_side_and_a_bom() {
        // every row after the middle: the head holds only the header and comments
        let mut text = String::from("\u{feff}label,score\n");
        text.push_str(&"#\n".repeat(400));
        for i in 0..100 {
            text.push_str(&format!("{},0.{}\n", i % 2, i % 10));
        }
        let whole = parse_bytes("f.csv", text.as_bytes(), &LoadOptions::default());
        let (joined, was_split) = split(text.as_bytes(), 64);
        assert!(was_split);
        assert!(same(&joined, &whole));
        // every row before the middle
        let mut text = String::from("label,score\n");
        for i in 0..100 {
            text.push_str(&format!("{},0.{}\n", i % 2, i % 10));
        }
        text.push_str(&"\n".repeat(2000));
        let whole = parse_bytes("f.csv", text.as_bytes(), &LoadOptions::default());
        let (joined, _) = split(text.as_bytes(), 64);
        assert!(same(&joined, &whole));
        // only the header
        let text = format!("label,score\n{}", "#\n".repeat(100));
        let whole = parse_bytes("f.csv", text.as_bytes(), &LoadOptions::default());
        let (joined, was_split) = split(text.as_bytes(), 64);
        assert!(was_split);
        assert_eq!(
            whole.unwrap_err().to_string(),
            joined.unwrap_err().to_string()
        );
    }

    #[test]
    fn other_formats_and_gzip_are_read_whole() {
        let run: String = (0..500)
            .map(|i| format!("q{} Q0 d{i} {i} 0.5 t\n", i % 7))
            .collect();
        let (joined, was_split) = split(run.as_bytes(), 100);
        assert!(!was_split);
        assert!(same(
            &joined,
            &parse_bytes("f.csv", run.as_bytes(), &LoadOptions::default())
        ));
        let mut csv = String::from("label,score\n");
        for i in 0..500 {
            csv.push_str(&format!("{},0.{}\n", i % 2, i % 10));
        }
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut gz, csv.as_bytes()).unwrap();
        let gz = gz.finish().unwrap();
        let (joined, was_split) = split(&gz, 100);
        assert!(!was_split);
        assert!(same(
            &joined,
            &parse_bytes("f.csv", csv.as_bytes(), &LoadOptions::default())
        ));
        // a header past the middle: no split
        let late = format!("{}label,score\n1,0.5\n", "#\n".repeat(100));
        let (joined, was_split) = split(late.as_bytes(), 8);
        assert!(!was_split);
        assert!(joined.is_ok());
    }

    #[test]
    fn a_file_splits_only_when_its_size_proves_it_within_the_limit() {
        let mut text = String::from("label,score\n");
        for i in 0..1000 {
            text.push_str(&format!("{},0.{}\n", i % 2, i % 10));
        }
        let limited = |max: u64| {
            let mut p = Parser::new("f.csv", LoadOptions::default());
            p.limit_values(Some(max));
            p.expect_size(text.len() as u64);
            p.feed(text.as_bytes());
            p.finish()
        };
        // 6 bytes a row at least 4: at most len/4 values
        let proven = text.len() as u64 / 4;
        let (joined, was_split) = split_limited(text.as_bytes(), 256, Some(proven));
        assert!(was_split);
        assert!(same(&joined, &limited(proven)));
        // under the bound the whole file is read by one parser, with its refusal
        let (joined, was_split) = split_limited(text.as_bytes(), 256, Some(999));
        assert!(!was_split);
        assert!(joined.is_err());
        assert_eq!(
            joined.unwrap_err().to_string(),
            limited(999).unwrap_err().to_string()
        );
    }
}
