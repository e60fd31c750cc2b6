//! Field splitting and value parsing shared by every text format.

use rankscope_core::POW10;

/// How fields are separated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delimiter {
    Byte(u8),
    /// Runs of spaces and tabs (TREC files, whitespace tables).
    Whitespace,
}

impl Delimiter {
    pub fn name(self) -> &'static str {
        match self {
            Delimiter::Byte(b',') => "comma",
            Delimiter::Byte(b'\t') => "tab",
            Delimiter::Byte(b';') => "semicolon",
            Delimiter::Byte(_) => "delimiter",
            Delimiter::Whitespace => "whitespace",
        }
    }

    /// Picks the delimiter that splits a header line into the most fields.
    pub fn detect(header: &[u8]) -> Delimiter {
        let mut best = (Delimiter::Whitespace, 0usize);
        for d in [b',', b'\t', b';'] {
            let mut n = 0;
            let mut quoted = false;
            for &b in header {
                if b == b'"' {
                    quoted = !quoted;
                } else if b == d && !quoted {
                    n += 1;
                }
            }
            if n > best.1 {
                best = (Delimiter::Byte(d), n);
            }
        }
        best.0
    }
}

/// Where a field's bytes are: in the line, or (a quoted field with `""`
/// escapes) in the splitter's scratch buffer.
#[derive(Clone, Copy, Debug)]
struct Span {
    start: u32,
    end: u32,
    in_scratch: bool,
}

/// Reusable field splitter: no allocation per line once warmed up.
#[derive(Debug, Default)]
pub struct Splitter {
    spans: Vec<Span>,
    scratch: Vec<u8>,
}

/// The fields of one line (1-based columns are the index + 1).
pub struct Row<'a> {
    line: &'a [u8],
    spans: &'a [Span],
    scratch: &'a [u8],
}

impl Row<'_> {
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }
}

impl std::ops::Index<usize> for Row<'_> {
    type Output = [u8];
    fn index(&self, i: usize) -> &[u8] {
        let s = self.spans[i];
        let src = if s.in_scratch {
            self.scratch
        } else {
            self.line
        };
        &src[s.start as usize..s.end as usize]
    }
}

impl Splitter {
    /// Splits one line. Quoted fields may contain the delimiter; `""` inside
    /// quotes is one quote. Unquoted fields are trimmed of spaces.
    pub fn split<'a>(&'a mut self, line: &'a [u8], delim: Delimiter) -> Row<'a> {
        self.spans.clear();
        self.scratch.clear();
        let borrowed = |a: usize, b: usize| Span {
            start: a as u32,
            end: b as u32,
            in_scratch: false,
        };
        match delim {
            Delimiter::Whitespace => {
                let mut i = 0;
                let n = line.len();
                while i < n {
                    while i < n && (line[i] == b' ' || line[i] == b'\t') {
                        i += 1;
                    }
                    let start = i;
                    while i < n && line[i] != b' ' && line[i] != b'\t' {
                        i += 1;
                    }
                    if i > start {
                        self.spans.push(borrowed(start, i));
                    }
                }
            }
            Delimiter::Byte(d) => {
                let n = line.len();
                let mut i = 0;
                loop {
                    if i < n && line[i] == b'"' {
                        let scratch_start = self.scratch.len();
                        let mut j = i + 1;
                        let mut escaped = false;
                        while j < n {
                            if line[j] == b'"' {
                                if j + 1 < n && line[j + 1] == b'"' {
                                    self.scratch.push(b'"');
                                    escaped = true;
                                    j += 2;
                                    continue;
                                }
                                break;
                            }
                            self.scratch.push(line[j]);
                            j += 1;
                        }
                        let end_quote = j.min(n);
                        let mut k = (end_quote + 1).min(n);
                        while k < n && line[k] != d {
                            k += 1;
                        }
                        if escaped || k > end_quote + 1 {
                            self.spans.push(Span {
                                start: scratch_start as u32,
                                end: self.scratch.len() as u32,
                                in_scratch: true,
                            });
                        } else {
                            self.scratch.truncate(scratch_start);
                            self.spans.push(borrowed(i + 1, end_quote));
                        }
                        if k >= n {
                            break;
                        }
                        i = k + 1;
                    } else {
                        let start = i;
                        while i < n && line[i] != d {
                            i += 1;
                        }
                        let (a, b) = trimmed(line, start, i);
                        self.spans.push(borrowed(a, b));
                        if i >= n {
                            break;
                        }
                        i += 1;
                    }
                }
            }
        }
        Row {
            line,
            spans: &self.spans,
            scratch: &self.scratch,
        }
    }
}

fn trimmed(line: &[u8], mut a: usize, mut b: usize) -> (usize, usize) {
    while a < b && line[a].is_ascii_whitespace() {
        a += 1;
    }
    while b > a && line[b - 1].is_ascii_whitespace() {
        b -= 1;
    }
    (a, b)
}

pub fn trim(f: &[u8]) -> &[u8] {
    let start = f
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(f.len());
    let end = f
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(start, |e| e + 1);
    &f[start..end]
}

/// Parses a finite-or-infinite f64 (NaN is refused). `-0` becomes `0`: they
/// are equal scores (trec_eval compares with `>`), so they must tie.
pub fn number(f: &[u8]) -> Option<f64> {
    if let Some(v) = plain_decimal(f) {
        return Some(v);
    }
    let s = std::str::from_utf8(f).ok()?;
    let v: f64 = s.parse().ok()?;
    (!v.is_nan()).then_some(if v == 0.0 { 0.0 } else { v })
}

/// The fast path for the numbers prediction files are made of, `-?d*.d*`
/// with at most 15 digits and an optional exponent `[eE][+-]?d+`: the
/// mantissa m < 2^53 and 10^p (|p| <= 22, p the exponent less the digits
/// after the dot) are exact doubles, so the one product m * 10^p or quotient
/// m / 10^-p is correctly rounded, i.e. exactly the value `str::parse` gives
/// (Clinger's fast path). Anything else returns `None`.
#[inline]
pub(crate) fn plain_decimal(f: &[u8]) -> Option<f64> {
    decimal_prefix(f).and_then(|(v, len)| (len == f.len()).then_some(v))
}

/// [`plain_decimal`] on the longest prefix of `f` of that shape: its value and
/// length, or `None` if the prefix has no digit or more than 15 (a 16th digit
/// leaves the fast path before the mantissa could overflow), or an exponent
/// beyond the exact powers of ten. An `e` without digits after it is not
/// part of the prefix. What follows the prefix is the caller's to check (a
/// delimiter, a line break).
#[inline]
pub(crate) fn decimal_prefix(f: &[u8]) -> Option<(f64, usize)> {
    let neg = f.first() == Some(&b'-');
    let mut i = neg as usize;
    let (mut m, mut count, mut frac) = (0u64, 0u32, 0i32);
    let mut digits = |i: &mut usize, after_dot: bool| -> Option<()> {
        while let Some(&c) = f.get(*i) {
            let d = c.wrapping_sub(b'0');
            if d > 9 {
                break;
            }
            if count == 15 {
                return None;
            }
            m = m * 10 + d as u64;
            count += 1;
            frac += after_dot as i32;
            *i += 1;
        }
        Some(())
    };
    digits(&mut i, false)?;
    if f.get(i) == Some(&b'.') {
        i += 1;
        digits(&mut i, true)?;
    }
    if count == 0 {
        return None;
    }
    let mut p = -frac;
    if let Some((e, len)) = exponent(&f[i..]) {
        p += e;
        i += len;
    }
    // m < 10^15 < 2^53 and |p| <= 22: one correctly rounded operation
    let v = match p {
        0..=22 => m as f64 * POW10[p as usize],
        -22..=-1 => m as f64 / POW10[(-p) as usize],
        _ => return None,
    };
    // -0 reads as 0, as in `number`
    Some((if neg && v != 0.0 { -v } else { v }, i))
}

/// An exponent `[eE][+-]?d+` at the start of `f` (at most 4 digits): its
/// value and length.
#[inline]
fn exponent(f: &[u8]) -> Option<(i32, usize)> {
    if !matches!(f.first(), Some(b'e' | b'E')) {
        return None;
    }
    let neg = f.get(1) == Some(&b'-');
    let start = 1 + matches!(f.get(1), Some(b'-' | b'+')) as usize;
    let mut e = 0i32;
    let mut i = start;
    while let Some(d) = f.get(i).map(|c| c.wrapping_sub(b'0')).filter(|&d| d <= 9) {
        e = (e * 10 + d as i32).min(10_000);
        i += 1;
    }
    (i > start).then_some((if neg { -e } else { e }, i))
}

/// Parses an integer grade (also `2.0`, which some tools write).
pub fn integer(f: &[u8]) -> Option<i32> {
    let s = std::str::from_utf8(f).ok()?;
    if let Ok(v) = s.parse::<i32>() {
        return Some(v);
    }
    let v: f64 = s.parse().ok()?;
    (v.fract() == 0.0 && v.abs() < 1e9).then_some(v as i32)
}

/// The blank lines `bytes` starts with: the bytes up to and including the
/// last line break before the first byte that is not a space, tab, CR or LF
/// (the next content line keeps its indentation), and the line breaks in them.
pub fn blank_lines(bytes: &[u8]) -> (usize, u64) {
    const NEWLINES: u64 = u64::from_ne_bytes([b'\n'; 8]);
    // eight line breaks at a time, then byte by byte
    let mut end = 0;
    while end + 8 <= bytes.len() {
        let word = u64::from_ne_bytes(bytes[end..end + 8].try_into().unwrap_or([0; 8]));
        if word != NEWLINES {
            break;
        }
        end += 8;
    }
    let (mut skipped, mut lines) = (end, end as u64);
    for (i, &b) in bytes.iter().enumerate().skip(end) {
        match b {
            b'\n' => {
                lines += 1;
                skipped = i + 1;
            }
            b' ' | b'\t' | b'\r' => {}
            _ => break,
        }
    }
    (skipped, lines)
}

/// Reads an id: valid UTF-8, non-empty.
pub fn id(f: &[u8]) -> Option<&str> {
    std::str::from_utf8(f).ok().filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(line: &str, d: Delimiter) -> Vec<String> {
        let mut s = Splitter::default();
        let row = s.split(line.as_bytes(), d);
        (0..row.len())
            .map(|i| String::from_utf8_lossy(&row[i]).into_owned())
            .collect()
    }

    #[test]
    fn blank_lines_are_counted_up_to_the_next_content_line() {
        assert_eq!(blank_lines(b"\n\n\n"), (3, 3));
        assert_eq!(blank_lines(b"\r\n \n\t  x,y\n"), (4, 2));
        assert_eq!(blank_lines(b"  x\n"), (0, 0));
        assert_eq!(blank_lines(b""), (0, 0));
        let many = [b"\n".repeat(21), b"  \r\nq".to_vec()].concat();
        assert_eq!(blank_lines(&many), (25, 22));
        assert_eq!(blank_lines(&b"\n".repeat(16)), (16, 16));
    }

    #[test]
    fn unquoted_fields_are_trimmed_and_quoted_ones_kept() {
        assert_eq!(fields(" a , b ", Delimiter::Byte(b',')), ["a", "b"]);
        assert_eq!(fields("\"x\" ,y", Delimiter::Byte(b',')), ["x", "y"]);
    }

    #[test]
    fn splitting_handles_quotes_and_whitespace() {
        assert_eq!(
            fields("a,\"b,c\",d", Delimiter::Byte(b',')),
            ["a", "b,c", "d"]
        );
        assert_eq!(
            fields("a,\"say \"\"hi\"\"\",", Delimiter::Byte(b',')),
            ["a", "say \"hi\"", ""]
        );
        assert_eq!(
            fields(" q1  Q0\td1 1 0.5 run", Delimiter::Whitespace),
            ["q1", "Q0", "d1", "1", "0.5", "run"]
        );
        assert_eq!(fields("", Delimiter::Byte(b',')), [""]);
        assert_eq!(fields(" a , b ", Delimiter::Byte(b',')), ["a", "b"]);
        assert_eq!(fields("\"x\" ,y", Delimiter::Byte(b',')), ["x", "y"]);
    }

    #[test]
    fn delimiter_detection() {
        assert_eq!(Delimiter::detect(b"a,b,c"), Delimiter::Byte(b','));
        assert_eq!(Delimiter::detect(b"a\tb"), Delimiter::Byte(b'\t'));
        assert_eq!(Delimiter::detect(b"a;b;c"), Delimiter::Byte(b';'));
        assert_eq!(Delimiter::detect(b"a b c"), Delimiter::Whitespace);
    }

    /// The fast path is bit-identical to `str::parse` on every shape it takes.
    #[test]
    fn plain_decimals_are_parsed_exactly_as_std_does() {
        let mut next = rankscope_core::xorshift(0x9e37_79b9_7f4a_7c15);
        for _ in 0..200_000 {
            let len = 1 + (next() % 17) as usize;
            let mut s = String::new();
            if next() % 3 == 0 {
                s.push('-');
            }
            let dot = (next() % (len as u64 + 2)) as usize;
            for i in 0..len {
                if i == dot {
                    s.push('.');
                }
                s.push((b'0' + (next() % 10) as u8) as char);
            }
            if next() % 3 == 0 {
                s.push(if next() % 2 == 0 { 'e' } else { 'E' });
                s.push_str(["", "-", "+"][(next() % 3) as usize]);
                s.push_str(&(next() % 40).to_string());
            }
            let want: f64 = s.parse().unwrap();
            let want = if want == 0.0 { 0.0 } else { want };
            assert_eq!(
                number(s.as_bytes()).map(f64::to_bits),
                Some(want.to_bits()),
                "{s}"
            );
        }
        // more digits than a u64 holds go to std (a fuzzer found the overflow)
        for s in [
            "-",
            ".",
            "-.",
            "1.2.3",
            "--1",
            "+1.5",
            "1e5",
            "1e",
            "1e+",
            "1.e-5",
            "1.5E+3",
            "-0e0",
            "1e-22",
            "1e23",
            "7e-30",
            "1e99999999999",
            "1e5.5",
            "0x10",
            "2222222222000430648853801428.5",
            "-123456789012345678901234567890",
            "0.000000000000000000000000000001",
        ] {
            let std = s.parse::<f64>().ok().filter(|v| !v.is_nan());
            assert_eq!(number(s.as_bytes()), std, "{s}");
        }
        // the fast path takes exponents (`numpy.savetxt`'s `%.5e`), and
        // leaves an `e` without digits to the caller
        assert_eq!(decimal_prefix(b"1.86717e-02"), Some((0.0186717, 11)));
        assert_eq!(decimal_prefix(b"-5E3,"), Some((-5000.0, 4)));
        assert_eq!(decimal_prefix(b"2.5e,"), Some((2.5, 3)));
        assert_eq!(decimal_prefix(b"1e23"), None);
    }

    #[test]
    fn numbers() {
        assert_eq!(number(b"0.5"), Some(0.5));
        assert_eq!(number(b"1e-3"), Some(0.001));
        assert_eq!(number(b"NaN"), None);
        assert_eq!(number(b"-0.000").unwrap().to_bits(), 0.0f64.to_bits());
        assert_eq!(number(b"inf"), Some(f64::INFINITY));
        assert_eq!(number(b""), None);
        assert_eq!(integer(b"2"), Some(2));
        assert_eq!(integer(b"2.0"), Some(2));
        assert_eq!(integer(b"2.5"), None);
    }
}
