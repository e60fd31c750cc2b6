//! The fast path for the rows a binary CSV is made of: a `0`/`1` label and
//! plain decimal scores (an exponent allowed: [`decimal_prefix`]), one
//! delimiter byte between them, nothing else.
//!
//! Such rows are read straight from the chunk in one pass (no line
//! splitting, field spans or trimming first). A row of any other shape stops
//! the pass, and the general path ([`super::table`]) reads it: the fast path
//! only ever takes rows the general path reads to the same label and the same
//! scores (bit for bit), so which path read a row never shows.

use super::fields::decimal_prefix;

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
