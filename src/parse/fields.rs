//! Field splitting and value parsing shared by every text format.

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

/// Splits one line into fields (1-based columns are the index + 1). Quoted
/// fields may contain the delimiter; `""` inside quotes is one quote.
/// Returns byte ranges into `line`, or owned unescaped text when a field had escapes.
pub fn split<'a>(line: &'a [u8], delim: Delimiter, out: &mut Vec<std::borrow::Cow<'a, [u8]>>) {
    use std::borrow::Cow;
    out.clear();
    match delim {
        Delimiter::Whitespace => {
            out.extend(
                line.split(|b| *b == b' ' || *b == b'\t')
                    .filter(|f| !f.is_empty())
                    .map(Cow::Borrowed),
            );
        }
        Delimiter::Byte(d) => {
            let mut i = 0;
            let n = line.len();
            loop {
                if i < n && line[i] == b'"' {
                    // quoted field
                    let mut value: Vec<u8> = Vec::new();
                    let mut j = i + 1;
                    let mut escaped = false;
                    while j < n {
                        if line[j] == b'"' {
                            if j + 1 < n && line[j + 1] == b'"' {
                                value.push(b'"');
                                escaped = true;
                                j += 2;
                                continue;
                            }
                            break;
                        }
                        value.push(line[j]);
                        j += 1;
                    }
                    let end_quote = j.min(n);
                    // skip to the delimiter after the closing quote
                    let mut k = (end_quote + 1).min(n);
                    while k < n && line[k] != d {
                        k += 1;
                    }
                    if escaped || k > end_quote + 1 {
                        out.push(Cow::Owned(value));
                    } else {
                        out.push(Cow::Borrowed(&line[i + 1..end_quote]));
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
                    out.push(Cow::Borrowed(trim(&line[start..i])));
                    if i >= n {
                        break;
                    }
                    i += 1;
                }
            }
        }
    }
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
    let s = std::str::from_utf8(f).ok()?;
    let v: f64 = s.parse().ok()?;
    (!v.is_nan()).then_some(if v == 0.0 { 0.0 } else { v })
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

/// Reads an id: valid UTF-8, non-empty.
pub fn id(f: &[u8]) -> Option<&str> {
    std::str::from_utf8(f).ok().filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(line: &str, d: Delimiter) -> Vec<String> {
        let mut out = vec![];
        split(line.as_bytes(), d, &mut out);
        out.iter()
            .map(|f| String::from_utf8_lossy(f).into_owned())
            .collect()
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
    }

    #[test]
    fn delimiter_detection() {
        assert_eq!(Delimiter::detect(b"a,b,c"), Delimiter::Byte(b','));
        assert_eq!(Delimiter::detect(b"a\tb"), Delimiter::Byte(b'\t'));
        assert_eq!(Delimiter::detect(b"a;b;c"), Delimiter::Byte(b';'));
        assert_eq!(Delimiter::detect(b"a b c"), Delimiter::Whitespace);
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
