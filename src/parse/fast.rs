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
use crate::core::ids::{Interner, Names};

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
pub fn rows(
    plain: Plain,
    bytes: &[u8],
    budget: u64,
    labels: &mut Vec<bool>,
    scores: &mut [Vec<f64>],
) -> Taken {
    let mut taken = Taken::default();
    let mut i = 0;
    while taken.rows < budget {
        let row_len = labels.len();
        match row(plain, &bytes[i..], labels, scores) {
            Some((len, cr)) => {
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
    let mut taken = Taken::default();
    let mut i = 0;
    let mut last_tag = None;
    while taken.rows < budget {
        let b = &bytes[i..];
        let Some((spans, len, cr)) = trec_line::<N>(b) else {
            break;
        };
        // printable ASCII (checked by `trec_line`): always UTF-8, each
        // field on char boundaries; one check for the line
        let Ok(line) = std::str::from_utf8(&b[..spans[N - 1].1]) else {
            break;
        };
        let field = |k: usize| line.get(spans[k].0..spans[k].1);
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
        last_tag = Some((i + spans[N - 1].0, i + spans[N - 1].1));
        i += len;
        taken.rows += 1;
        taken.returns += cr as u64;
    }
    if let (Some(tag), Some((a, b))) = (columns.tag, last_tag) {
        tag.clear();
        tag.extend_from_slice(&bytes[a..b]);
    }
    taken.used = i;
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
