//! The fast paths for the rows large files are made of:
//! - a binary CSV: a `0`/`1` label and plain decimal scores (an exponent
//!   allowed: [`decimal_prefix`]), one delimiter byte between them, nothing
//!   else;
//! - a TREC run, `qid Q0 docid rank score tag`, and TREC qrels,
//!   `qid iter docid grade`: printable ASCII fields (no `#` first) between
//!   runs of spaces and tabs, a plain decimal score or a plain integer grade.
//!
//! Such rows are read straight from the chunk in one pass (no line
//! splitting, field spans or trimming first). A row of any other shape stops
//! the pass, and the general path ([`super::table`]) reads it: the fast path
//! only ever takes rows the general path reads to the same values (bit for
//! bit), so which path read a row never shows.

use super::fields::decimal_prefix;
use rankscope_core::ids::{Interner, Names};
use rankscope_core::POW10;

/// Which fast path a file's rows take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Binary(Plain),
    Run,
    Qrels,
}

/// The shape of a plain row: which field is the label, how many fields, the delimiter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plain {
    pub truth: usize,
    pub fields: usize,
    pub delim: u8,
}

/// What one pass took from the front of the bytes.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Taken {
    /// Bytes of the rows read, with their line breaks.
    pub used: usize,
    pub rows: u64,
    /// Carriage returns among them (the general path counts a line without its `\r`).
    pub returns: u64,
}

/// Reads up to `budget` plain rows from the start of `bytes` into `labels`
/// and `scores` (one column per non-label field, in column order). Stops at
/// the first row that is not plain or not complete (no line break yet),
/// which is left unread.
///
/// A row of the [`Layout`] taken from an earlier row is read at fixed
/// offsets. Of consecutive rows read field by field, the first, the second
/// and every 16th set the layout anew: a file of fixed-width rows with a
/// few others in between keeps its layout, one whose width changes gets
/// the new one at its second row, and one with rows of every width pays
/// for a layout only now and then.
pub fn rows(
    plain: Plain,
    bytes: &[u8],
    budget: u64,
    labels: &mut Vec<bool>,
    scores: &mut [Vec<f64>],
) -> Taken {
    let mut taken = Taken::default();
    let mut i = 0;
    let mut layout: Option<Layout> = None;
    // rows read field by field since the last one read by the layout
    let mut misses = 0u64;
    while taken.rows < budget {
        if let Some(l) = &layout {
            if let Some(b) = bytes.get(i..i + l.span).filter(|b| l.matches(b)) {
                l.read(b, labels, scores);
                i += l.len;
                taken.rows += 1;
                taken.returns += l.cr as u64;
                misses = 0;
                continue;
            }
        }
        let row_len = labels.len();
        match row(plain, &bytes[i..], labels, scores) {
            Some((len, cr)) => {
                misses += 1;
                if misses <= 2 || misses % 16 == 0 {
                    layout = Layout::of(plain, &bytes[i..i + len]);
                }
                i += len;
                taken.rows += 1;
                taken.returns += cr as u64;
            }
            None => {
                // a row read in part is taken back
                labels.truncate(row_len);
                for column in scores.iter_mut() {
                    column.truncate(row_len);
                }
                break;
            }
        }
    }
    taken.used = i;
    taken
}

/// One plain row at the start of `b`: its length with the line break, and
/// whether that break is `\r\n`.
#[inline]
fn row(
    plain: Plain,
    b: &[u8],
    labels: &mut Vec<bool>,
    scores: &mut [Vec<f64>],
) -> Option<(usize, bool)> {
    let mut i = 0;
    let mut column = 0;
    for field in 0..plain.fields {
        if field > 0 {
            if *b.get(i)? != plain.delim {
                return None;
            }
            i += 1;
        }
        if field == plain.truth {
            let label = match *b.get(i)? {
                b'0' => false,
                b'1' => true,
                _ => return None,
            };
            labels.push(label);
            i += 1;
        } else {
            let (v, len) = decimal_prefix(&b[i..])?;
            scores[column].push(v);
            column += 1;
            i += len;
        }
    }
    match *b.get(i)? {
        b'\n' => Some((i + 1, false)),
        b'\r' if b.get(i + 1) == Some(&b'\n') => Some((i + 2, true)),
        _ => None,
    }
}

/// Rows up to this many bytes (with the line break) have a [`Layout`].
const LAYOUT_WORDS: usize = 4;
/// Score fields a [`Layout`] holds at most.
const LAYOUT_SCORES: usize = 4;

/// The bytes of one plain row, to read the rows of the same width and
/// shape at fixed offsets: scores printed with a fixed number of decimals
/// (`0,0.356688`, `%.6f`) make every row of a file alike. Taken from a row
/// the field-by-field path read. A row *matches* when it has a digit at each
/// place that row had one, the same byte at each other place, and a `0` or
/// `1` for the label: then the field-by-field path would find the same
/// fields at the same places and read each score from the same digits and
/// the same power of ten, so the values are the same, bit for bit. A score
/// with an exponent, or more than 8 digits before or after its dot, has
/// no layout.
#[derive(Clone, Copy, Debug, Default)]
struct Layout {
    /// Row length with its line break.
    len: usize,
    /// Bytes read from the row's start: its words, and a word from each
    /// number's start.
    span: usize,
    /// Whether the line break is `\r\n`.
    cr: bool,
    words: usize,
    /// Per 8-byte word of the row (little-endian): the bits its fixed bytes
    /// must have (all of a delimiter, sign, dot or line break; all but the
    /// lowest of the label), those bits' values, and the digit bytes.
    fixed: [u64; LAYOUT_WORDS],
    value: [u64; LAYOUT_WORDS],
    digits: [u64; LAYOUT_WORDS],
    label: usize,
    scores: usize,
    numbers: [Number; LAYOUT_SCORES],
}

/// Where a score's digits are: a sign, the digits before the dot and after.
#[derive(Clone, Copy, Debug, Default)]
struct Number {
    neg: bool,
    int: (usize, u32),
    frac: (usize, u32),
}

impl Layout {
    /// The layout of `row` (one plain row with its line break), if it has one.
    fn of(plain: Plain, row: &[u8]) -> Option<Layout> {
        if row.len() > 8 * LAYOUT_WORDS || plain.fields > LAYOUT_SCORES + 1 {
            return None;
        }
        let mut l = Layout {
            len: row.len(),
            words: row.len().div_ceil(8),
            ..Layout::default()
        };
        let mut mark = |at: usize, fixed: u8, value: u8, digit: bool| {
            let (w, shift) = (at / 8, 8 * (at % 8));
            l.fixed[w] |= (fixed as u64) << shift;
            l.value[w] |= (value as u64) << shift;
            l.digits[w] |= (if digit { 0xFF } else { 0 }) << shift;
        };
        let digits_at = |mut at: usize| {
            let start = at;
            while row.get(at).is_some_and(u8::is_ascii_digit) {
                at += 1;
            }
            (start, (at - start) as u32)
        };
        let mut i = 0;
        for field in 0..plain.fields {
            if field > 0 {
                mark(i, 0xFF, plain.delim, false);
                i += 1;
            }
            if field == plain.truth {
                l.label = i;
                mark(i, 0xFE, b'0', false);
                i += 1;
                continue;
            }
            let neg = row[i] == b'-';
            if neg {
                mark(i, 0xFF, b'-', false);
                i += 1;
            }
            let int = digits_at(i);
            i += int.1 as usize;
            let frac = match row.get(i) {
                Some(b'.') => {
                    mark(i, 0xFF, b'.', false);
                    digits_at(i + 1)
                }
                _ => (i, 0),
            };
            i = frac.0 + frac.1 as usize;
            if int.1 > 8 || frac.1 > 8 || matches!(row.get(i), Some(b'e' | b'E')) {
                return None;
            }
            for at in (int.0..int.0 + int.1 as usize).chain(frac.0..i) {
                mark(at, 0, 0, true);
            }
            l.span = l.span.max(int.0 + 8).max(frac.0 + 8);
            l.numbers[l.scores] = Number { neg, int, frac };
            l.scores += 1;
        }
        l.cr = row[i] == b'\r';
        for (at, &byte) in row.iter().enumerate().skip(i) {
            mark(at, 0xFF, byte, false);
        }
        l.span = l.span.max(8 * l.words);
        Some(l)
    }

    /// Whether `b` (at least `span` bytes) starts with a row of this layout.
    #[inline]
    fn matches(&self, b: &[u8]) -> bool {
        let mut wrong = 0;
        for w in 0..self.words {
            let word = word_at(b, 8 * w);
            wrong |= ((word & self.fixed[w]) ^ self.value[w]) | (not_digits(word) & self.digits[w]);
        }
        wrong == 0
    }

    /// Reads the row at the start of `b`, which [`Layout::matches`].
    #[inline]
    fn read(&self, b: &[u8], labels: &mut Vec<bool>, scores: &mut [Vec<f64>]) {
        labels.push(b[self.label] == b'1');
        for (n, column) in self.numbers[..self.scores].iter().zip(scores) {
            let part = |(at, digits): (usize, u32)| match digits {
                0 => 0,
                _ => digits_value(word_at(b, at), digits),
            };
            // the mantissa and the power of ten of `decimal_prefix`
            let m = part(n.int) * POW10_U64[n.frac.1 as usize] + part(n.frac);
            let v = m as f64 / POW10[n.frac.1 as usize];
            column.push(if n.neg && v != 0.0 { -v } else { v });
        }
    }
}

/// 10^n, for the digits a word holds.
const POW10_U64: [u64; 9] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
];

/// The 8 bytes at `at` as a little-endian word (the first byte lowest).
#[inline]
fn word_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap_or_default())
}

/// Per byte of `word`: zero iff it is an ASCII digit. (Its high nibble and
/// that of the byte plus 6 are both 3 iff it is `0`..=`9`; a carry out of a
/// byte of 0xFA or more, itself not a digit, can only make a later byte
/// look like a non-digit, never like a digit.)
#[inline]
fn not_digits(word: u64) -> u64 {
    const HIGH: u64 = 0xF0F0_F0F0_F0F0_F0F0;
    let nibbles = (word & HIGH) | ((word.wrapping_add(0x0606_0606_0606_0606) & HIGH) >> 4);
    nibbles ^ 0x3333_3333_3333_3333
}

/// The value of the first `n` (1..=8) bytes of `word`, all ASCII digits,
/// the first digit the most significant.
#[inline]
fn digits_value(word: u64, n: u32) -> u64 {
    // digits to 0..=9 (a borrow out of a later byte reaches only later
    // bytes), then moved to the top: the bytes shifted in are leading zeros
    let d = word.wrapping_sub(0x3030_3030_3030_3030) << (8 * (8 - n));
    // pairs of digits, then fours, then all eight
    let d = d * 10 + (d >> 8);
    let pairs = 0x0000_00FF_0000_00FF;
    ((d & pairs).wrapping_mul(100 + (1_000_000 << 32))
        + ((d >> 16) & pairs).wrapping_mul(1 + (10_000 << 32)))
        >> 32
}

/// The columns a TREC run or qrels file fills: per row its query (interned),
/// its document name and its value (score or grade).
pub struct TrecColumns<'a, V> {
    pub queries: &'a mut Interner,
    pub q: &'a mut Vec<u32>,
    pub docs: &'a mut Names,
    pub values: &'a mut Vec<V>,
    /// A run's tag: the last row's (trec_eval keeps that one).
    pub tag: Option<&'a mut Vec<u8>>,
}

impl<'a, V> TrecColumns<'a, V> {
    /// The columns, without a tag.
    pub fn new(
        queries: &'a mut Interner,
        q: &'a mut Vec<u32>,
        docs: &'a mut Names,
        values: &'a mut Vec<V>,
    ) -> Self {
        TrecColumns {
            queries,
            q,
            docs,
            values,
            tag: None,
        }
    }
}

/// Reads up to `budget` plain TREC lines of `N` fields (6: a run, 4: qrels)
/// from the start of `bytes`, each value read from field `N - 2` (a run's
/// score) or `N - 1` (a qrels grade) by `value`. Stops at the first line
/// that is not plain or not complete, which is left unread.
pub fn trec_rows<const N: usize, V>(
    bytes: &[u8],
    budget: u64,
    columns: TrecColumns<'_, V>,
    value_field: usize,
    value: impl Fn(&[u8]) -> Option<V>,
) -> Taken {
    // the lines' shapes first (printable ASCII fields, checked by
    // `trec_line`), then one UTF-8 check for all of them (always passes:
    // one call for the lot instead of one per line), then their fields
    let mut lines: Vec<(Spans<N>, usize, usize, bool)> =
        Vec::with_capacity(budget.min(1024) as usize);
    let mut end = 0;
    while (lines.len() as u64) < budget {
        let Some((spans, len, cr)) = trec_line::<N>(&bytes[end..]) else {
            break;
        };
        lines.push((spans, end, len, cr));
        end += len;
    }
    let mut taken = Taken::default();
    let Ok(text) = std::str::from_utf8(&bytes[..end]) else {
        return taken;
    };
    let mut last_tag = None;
    for (spans, at, len, cr) in lines {
        let field = |k: usize| text.get(at + spans[k].0..at + spans[k].1);
        let (Some(q), Some(d), Some(v)) = (
            field(0),
            field(2),
            field(value_field).and_then(|f| value(f.as_bytes())),
        ) else {
            break;
        };
        columns.q.push(columns.queries.intern(q));
        columns.docs.push(d);
        columns.values.push(v);
        last_tag = Some((at + spans[N - 1].0, at + spans[N - 1].1));
        taken.rows += 1;
        taken.returns += cr as u64;
        taken.used = at + len;
    }
    if let (Some(tag), Some((a, b))) = (columns.tag, last_tag) {
        tag.clear();
        tag.extend_from_slice(&bytes[a..b]);
    }
    taken
}

/// Where each of `N` fields starts and ends.
type Spans<const N: usize> = [(usize, usize); N];

/// The `N` fields of a plain TREC line at the start of `b` (spans), its
/// length with the line break, and whether that break is `\r\n`: fields of
/// printable ASCII, the first not starting with `#`, separated by runs of
/// spaces and tabs, nothing before the first or after the last.
#[inline]
fn trec_line<const N: usize>(b: &[u8]) -> Option<(Spans<N>, usize, bool)> {
    let mut spans = [(0, 0); N];
    let mut i = 0;
    if b.first() == Some(&b'#') {
        return None;
    }
    for (k, span) in spans.iter_mut().enumerate() {
        if k > 0 {
            let start = i;
            while matches!(b.get(i), Some(b' ' | b'\t')) {
                i += 1;
            }
            if i == start {
                return None;
            }
        }
        let start = i;
        while b.get(i).is_some_and(|&c| c > b' ' && c < 0x7f) {
            i += 1;
        }
        if i == start {
            return None;
        }
        *span = (start, i);
    }
    match *b.get(i)? {
        b'\n' => Some((spans, i + 1, false)),
        b'\r' if b.get(i + 1) == Some(&b'\n') => Some((spans, i + 2, true)),
        _ => None,
    }
}

/// A qrels grade the general path reads alike: `-?d{1,9}` (within `i32`).
#[inline]
pub fn plain_grade(f: &[u8]) -> Option<i32> {
    let (neg, digits) = match f.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, f),
    };
    if digits.is_empty() || digits.len() > 9 {
        return None;
    }
    let mut g = 0i32;
    for &c in digits {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        g = g * 10 + d as i32;
    }
    Some(if neg { -g } else { g })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::fields::plain_decimal;

    fn read(plain: Plain, text: &str, budget: u64) -> (Taken, Vec<bool>, Vec<Vec<f64>>) {
        let mut labels = vec![];
        let mut scores = vec![vec![]; plain.fields - 1];
        let taken = rows(plain, text.as_bytes(), budget, &mut labels, &mut scores);
        (taken, labels, scores)
    }

    const ONE: Plain = Plain {
        truth: 0,
        fields: 2,
        delim: b',',
    };

    #[test]
    fn plain_rows_are_read_until_one_is_not() {
        let text = "1,0.5\n0,-2\r\n1,.25\n0,0.1e3\n0,1e23\n1,0.5\n";
        let (t, labels, scores) = read(ONE, text, 10);
        assert_eq!((t.used, t.rows, t.returns), (26, 4, 1));
        assert_eq!(labels, [true, false, true, false]);
        assert_eq!(scores, [vec![0.5, -2.0, 0.25, 100.0]]);
    }

    #[test]
    fn a_row_without_its_line_break_is_left() {
        let (t, labels, _) = read(ONE, "1,0.5\n0,0.25", 10);
        assert_eq!((t.used, t.rows), (6, 1));
        assert_eq!(labels, [true]);
        let (t, ..) = read(ONE, "1,0.5\r", 10);
        assert_eq!(t.rows, 0);
    }

    #[test]
    fn the_budget_is_kept() {
        let (t, labels, _) = read(ONE, "1,1\n0,0\n1,1\n", 2);
        assert_eq!((t.used, t.rows), (8, 2));
        assert_eq!(labels.len(), 2);
    }

    #[test]
    fn anything_else_is_left_to_the_general_path() {
        for text in [
            "2,0.5\n",
            "1, 0.5\n",
            "1,0.5,\n",
            "1,\n",
            "1,-\n",
            "\"1\",0.5\n",
            "1,0.5;\n",
            "1,1.2.3\n",
            "1,1234567890123456\n",
            "1,0.5e\n",
            "1,1e-23\n",
            "true,0.5\n",
            "#1,0.5\n",
            "\n",
            "1;0.5\n",
        ] {
            let (t, labels, scores) = read(ONE, text, 10);
            assert_eq!(t, Taken::default(), "{text:?}");
            assert!(labels.is_empty() && scores[0].is_empty(), "{text:?}");
        }
    }

    #[test]
    fn the_label_may_be_anywhere_among_several_scores() {
        let plain = Plain {
            truth: 1,
            fields: 3,
            delim: b'\t',
        };
        let (t, labels, scores) = read(plain, "0.5\t1\t3\n0.25\t0\t-1\n7\t0\tx\n", 10);
        assert_eq!(t.rows, 2);
        assert_eq!(labels, [true, false]);
        assert_eq!(scores, [vec![0.5, 0.25], vec![3.0, -1.0]]);
    }

    /// Rows of one width with others in between (widths, signs, dots, line
    /// breaks, labels, exponents, long digit runs, bytes that are not
    /// digits where digits were): read as row after row by the field path.
    #[test]
    fn rows_of_one_layout_are_read_as_field_by_field() {
        let mut next = rankscope_core::xorshift(0x1234_5678_9abc_def1);
        for case in 0..400 {
            let plain = [
                ONE,
                Plain {
                    truth: 1,
                    fields: 3,
                    delim: b'\t',
                },
            ][case % 2];
            let decimals = (next() % 9) as usize;
            let mut text = String::new();
            for _ in 0..(next() % 200) {
                let mut fields: Vec<String> = vec![];
                for f in 0..plain.fields {
                    if f == plain.truth {
                        fields.push(match next() % 100 {
                            0 => "2".into(),
                            k => (k % 2).to_string(),
                        });
                        continue;
                    }
                    let v = (next() % 100_000_000) as f64 / 1e6;
                    fields.push(match next() % 40 {
                        0 => format!("{v:e}"),
                        1 => format!("-{v:.3}"),
                        2 => format!("{v}"),
                        3 => format!("{:.0}.", v * 1e3),
                        4 => format!(".{}", next() % 1000),
                        5 => format!("{v:.12}"),
                        6 if next() % 4 == 0 => "1.2:4".into(),
                        _ => format!("{:.*}", decimals, v % 10.0),
                    });
                }
                text += &fields.join(&(plain.delim as char).to_string());
                text += ["\n", "\n", "\n", "\r\n"][(next() % 4) as usize];
            }
            for budget in [3, 1000] {
                let (taken, labels, scores) = read(plain, &text, budget);
                // the field path alone, row by row
                let (mut at, mut rows, mut returns) = (0, 0, 0);
                let mut want = (vec![], vec![vec![]; plain.fields - 1]);
                while rows < budget {
                    match row(plain, &text.as_bytes()[at..], &mut want.0, &mut want.1) {
                        Some((len, cr)) => {
                            (at, rows, returns) = (at + len, rows + 1, returns + cr as u64)
                        }
                        None => break,
                    }
                }
                want.0.truncate(rows as usize);
                want.1.iter_mut().for_each(|c| c.truncate(rows as usize));
                assert_eq!(
                    (taken.used, taken.rows, taken.returns),
                    (at, rows, returns),
                    "{text}"
                );
                assert_eq!(labels, want.0);
                let bits = |c: &[Vec<f64>]| {
                    c.iter()
                        .map(|c| c.iter().map(|v| v.to_bits()).collect())
                        .collect::<Vec<Vec<_>>>()
                };
                assert_eq!(bits(&scores), bits(&want.1), "{text}");
            }
        }
    }

    fn trec<const N: usize>(
        text: &str,
        budget: u64,
    ) -> (Taken, Vec<String>, Vec<String>, Vec<f64>, Vec<u8>) {
        let (mut queries, mut q, mut docs, mut values, mut tag) = (
            Interner::default(),
            vec![],
            Names::default(),
            vec![],
            b"old".to_vec(),
        );
        let mut columns = TrecColumns::new(&mut queries, &mut q, &mut docs, &mut values);
        columns.tag = (N == 6).then_some(&mut tag);
        let taken = trec_rows::<N, f64>(
            text.as_bytes(),
            budget,
            columns,
            if N == 6 { 4 } else { 3 },
            |f| {
                if N == 6 {
                    plain_decimal(f)
                } else {
                    plain_grade(f).map(f64::from)
                }
            },
        );
        let q = q.iter().map(|&i| queries.name(i).to_string()).collect();
        let d = (0..docs.len()).map(|i| docs.get(i).to_string()).collect();
        (taken, q, d, values, tag)
    }

    #[test]
    fn plain_trec_lines_are_read_until_one_is_not() {
        let text =
            "q1 Q0 d1 1 0.5 a\nq1\tQ0\td2\t2\t-1e-3\tb\r\nq2  Q0 d3 1 7 c\n# c\nq3 Q0 d4 1 1 d\n";
        let (t, q, d, v, tag) = trec::<6>(text, 10);
        assert_eq!((t.used, t.rows, t.returns), (53, 3, 1));
        assert_eq!(
            (q, d),
            (
                vec!["q1".into(), "q1".into(), "q2".into()],
                vec!["d1".into(), "d2".into(), "d3".into()]
            )
        );
        assert_eq!(v, [0.5, -0.001, 7.0]);
        assert_eq!(tag, b"c");
        // the budget is kept, and the tag is the last taken line's
        let (t, .., tag) = trec::<6>(text, 1);
        assert_eq!((t.rows, tag), (1, b"a".to_vec()));
        // a query seen before the previous line's keeps its id
        let text =
            "q1 Q0 d1 1 1 a\nq1 Q0 d2 2 1 a\nq2 Q0 d3 1 1 a\nq1 Q0 d4 3 1 a\nq10 Q0 d5 1 1 a\n";
        let (_, q, ..) = trec::<6>(text, 10);
        assert_eq!(q, ["q1", "q1", "q2", "q1", "q10"]);
        let (t, _, d, v, _) = trec::<4>("q1 0 d1 2\nq1 0 d2 -1\nq1 0 d3 2.0\n", 10);
        assert_eq!((t.rows, d.len(), v), (2, 2, vec![2.0, -1.0]));
    }

    #[test]
    fn any_other_trec_line_is_left_to_the_general_path() {
        for text in [
            " q1 Q0 d1 1 0.5 t\n",
            "q1 Q0 d1 1 0.5 t \n",
            "q1 Q0 d1 1 0.5\n",
            "q1 Q0 d1 1 0.5 t x\n",
            "q1 Q0 d\u{e9} 1 0.5 t\n",
            "q1 Q0 d1\x0b 1 0.5 t\n",
            "q1 Q0 d1 1 0.5x t\n",
            "q1 Q0 d1 1 1234567890123456 t\n",
            "q1 Q0 d1 1 0.5 t\r\r\n",
            "q1 Q0 d1 1 0.5 t",
            "#q1 Q0 d1 1 0.5 t\n",
            "\n",
        ] {
            let (t, q, ..) = trec::<6>(text, 10);
            assert_eq!((t, q.len()), (Taken::default(), 0), "{text:?}");
        }
        for grade in ["+1", "2.0", "1234567890", "--1", "-", "1e0"] {
            let (t, ..) = trec::<4>(&format!("q1 0 d1 {grade}\n"), 10);
            assert_eq!(t.rows, 0, "{grade}");
        }
        assert_eq!(plain_grade(b"-123456789"), Some(-123_456_789));
    }
}
