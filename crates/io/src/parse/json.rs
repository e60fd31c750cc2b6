//! ranx / trec-style JSON runs and qrels, `{"q1": {"d1": 0.9, "d2": 0.4}, ...}`,
//! read incrementally: a byte-level state machine fed chunk by chunk (files of
//! hundreds of MB are often one single line), building the same compact columns
//! as the TREC readers. Only this two-level shape is accepted; anything else is
//! an error at its line and column.

use super::error::{shown, Problem};
use super::fields;
use super::{model_name_from_file, Format, Parsed};
use rankscope_core::ids::{Interner, Names};

#[derive(Clone, Copy, Debug, PartialEq)]
enum St {
    Start,
    TopFirst,
    TopKey,
    TopColon,
    TopNext,
    InnerOpen,
    InnerFirst,
    InnerKey,
    InnerColon,
    Value,
    AfterValue,
    End,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Esc {
    None,
    Backslash,
    /// `\u` and the hex digits read so far.
    Hex(u8, u32),
}

#[derive(Default)]
pub struct JsonReader {
    st: Option<St>,
    line: u64,
    col: u64,
    /// Inside a string (its bytes so far) or a number.
    in_string: bool,
    in_number: bool,
    esc: Option<Esc>,
    high_surrogate: Option<u32>,
    token: Vec<u8>,
    token_at: (u64, u64),
    queries: Interner,
    cur_q: u32,
    /// The current document's name, until its value arrives.
    cur_d: String,
    q: Vec<u32>,
    docs: Names,
    value: Vec<f64>,
    /// The first value with a fraction or exponent (a run, not qrels), with its position.
    first_fraction: Option<(u64, u64, String)>,
    /// The first value too large for a relevance grade (|v| >= 10^9), with its position.
    first_huge: Option<(u64, u64, String)>,
    pub error: Option<Problem>,
}

fn problem(at: (u64, u64), expected: &str, found: String) -> Problem {
    Problem {
        line: at.0,
        column: at.1,
        expected: expected.into(),
        found,
        hint: Some(
            "A JSON run or qrels is one object of queries, each an object of document: score (ranx's format)."
                .into(),
        ),
    }
}

fn describe(b: u8) -> String {
    match b {
        b'"' => "a string".into(),
        b'{' => "`{`".into(),
        b'[' => "an array `[`".into(),
        b'0'..=b'9' | b'-' => "a number".into(),
        _ if b.is_ascii_graphic() => format!("`{}`", b as char),
        _ => format!("byte 0x{b:02x}"),
    }
}

impl JsonReader {
    pub fn new(line: u64) -> Self {
        JsonReader {
            st: Some(St::Start),
            line: line.max(1),
            ..Default::default()
        }
    }

    pub fn rows(&self) -> u64 {
        self.value.len() as u64
    }

    pub fn feed(&mut self, chunk: &[u8]) {
        for &b in chunk {
            if self.error.is_some() {
                return;
            }
            self.col += 1;
            self.byte(b);
            if b == b'\n' {
                self.line += 1;
                self.col = 0;
            }
        }
    }

    fn fail(&mut self, expected: &str, b: u8) {
        let at = (self.line, self.col);
        self.error = Some(problem(at, expected, describe(b)));
    }

    fn byte(&mut self, b: u8) {
        if self.in_string {
            return self.string_byte(b);
        }
        if self.in_number {
            if matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E') {
                self.token.push(b);
                return;
            }
            self.in_number = false;
            self.end_number();
            if self.error.is_some() {
                return;
            }
        }
        if matches!(b, b' ' | b'\t' | b'\r' | b'\n') || (self.st == Some(St::Start) && b >= 0x80) {
            // whitespace, and a byte-order mark before the object
            return;
        }
        let st = self.st.unwrap_or(St::Start);
        let next = match (st, b) {
            (St::Start, b'{') => St::TopFirst,
            (St::Start, _) => return self.fail("a JSON object starting with `{`", b),
            (St::TopFirst | St::TopKey, b'"') | (St::InnerFirst | St::InnerKey, b'"') => {
                self.in_string = true;
                self.esc = Some(Esc::None);
                self.token.clear();
                self.token_at = (self.line, self.col);
                return;
            }
            (St::TopFirst, b'}') => St::End,
            (St::TopFirst | St::TopKey, _) => return self.fail("a query id in double quotes", b),
            (St::TopColon | St::InnerColon, b':') => {
                if st == St::TopColon {
                    St::InnerOpen
                } else {
                    St::Value
                }
            }
            (St::TopColon | St::InnerColon, _) => return self.fail("`:`", b),
            (St::InnerOpen, b'{') => St::InnerFirst,
            (St::InnerOpen, _) => {
                return self.fail("an object of document scores `{\"doc\": score, ...}`", b)
            }
            (St::InnerFirst, b'}') | (St::AfterValue, b'}') => St::TopNext,
            (St::InnerFirst | St::InnerKey, _) => {
                return self.fail("a document id in double quotes", b)
            }
            (St::Value, b'0'..=b'9' | b'-') => {
                self.in_number = true;
                self.token.clear();
                self.token.push(b);
                self.token_at = (self.line, self.col);
                return;
            }
            (St::Value, _) => return self.fail("a number (the document's score or grade)", b),
            (St::AfterValue, b',') => St::InnerKey,
            (St::AfterValue, _) => return self.fail("`,` or `}` after a score", b),
            (St::TopNext, b',') => St::TopKey,
            (St::TopNext, b'}') => St::End,
            (St::TopNext, _) => return self.fail("`,` or `}` after a query", b),
            (St::End, _) => return self.fail("nothing after the closing `}`", b),
        };
        self.st = Some(next);
    }

    fn string_byte(&mut self, b: u8) {
        match self.esc.unwrap_or(Esc::None) {
            Esc::None => match b {
                b'"' => {
                    self.in_string = false;
                    self.end_string();
                }
                b'\\' => self.esc = Some(Esc::Backslash),
                b'\n' => self.fail("the closing `\"` of the id on the same line", b),
                _ => self.token.push(b),
            },
            Esc::Backslash => {
                let c = match b {
                    b'"' => b'"',
                    b'\\' => b'\\',
                    b'/' => b'/',
                    b'b' => 8,
                    b'f' => 12,
                    b'n' => b'\n',
                    b'r' => b'\r',
                    b't' => b'\t',
                    b'u' => {
                        self.esc = Some(Esc::Hex(0, 0));
                        return;
                    }
                    _ => {
                        return self.fail(
                            "a JSON escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)",
                            b,
                        )
                    }
                };
                self.token.push(c);
                self.esc = Some(Esc::None);
            }
            Esc::Hex(n, acc) => {
                let Some(v) = (b as char).to_digit(16) else {
                    return self.fail("four hex digits after \\u", b);
                };
                let acc = acc * 16 + v;
                if n < 3 {
                    self.esc = Some(Esc::Hex(n + 1, acc));
                    return;
                }
                self.esc = Some(Esc::None);
                let code = match (self.high_surrogate.take(), acc) {
                    (None, 0xD800..=0xDBFF) => {
                        self.high_surrogate = Some(acc);
                        return;
                    }
                    (Some(h), 0xDC00..=0xDFFF) => 0x10000 + ((h - 0xD800) << 10) + (acc - 0xDC00),
                    (None, c) if !(0xDC00..=0xDFFF).contains(&c) => c,
                    _ => return self.fail("a valid UTF-16 surrogate pair", b),
                };
                let ch = char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER);
                let mut buf = [0u8; 4];
                self.token
                    .extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
            }
        }
    }

    fn end_string(&mut self) {
        let Ok(name) = std::str::from_utf8(&self.token) else {
            self.error = Some(problem(
                self.token_at,
                "an id in UTF-8",
                format!("bytes that are not UTF-8: {}", shown(&self.token)),
            ));
            return;
        };
        match self.st {
            Some(St::TopFirst | St::TopKey) => {
                self.cur_q = self.queries.intern(name);
                self.st = Some(St::TopColon);
            }
            _ => {
                self.cur_d.clear();
                self.cur_d.push_str(name);
                self.st = Some(St::InnerColon);
            }
        }
    }

    fn end_number(&mut self) {
        let Some(v) = fields::number(&self.token).filter(|v| v.is_finite()) else {
            self.error = Some(problem(
                self.token_at,
                "a finite number",
                shown(&self.token),
            ));
            return;
        };
        if self.first_fraction.is_none()
            && self.token.iter().any(|c| matches!(c, b'.' | b'e' | b'E'))
        {
            let text = shown(&self.token);
            self.first_fraction = Some((self.token_at.0, self.token_at.1, text));
        }
        if self.first_huge.is_none() && v.abs() >= 1e9 {
            let text = shown(&self.token);
            self.first_huge = Some((self.token_at.0, self.token_at.1, text));
        }
        self.q.push(self.cur_q);
        self.docs.push(&self.cur_d);
        self.value.push(v);
        self.st = Some(St::AfterValue);
    }

    /// The run or qrels read, or the first problem. A qrels is chosen by
    /// `format`, else by a file name containing "qrel", else when every value
    /// is an integer and the name does not say "run".
    pub fn finish(mut self, file: &str, format: Option<Format>) -> Result<Option<Parsed>, Problem> {
        if self.in_number {
            self.in_number = false;
            self.end_number();
        }
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        if self.st != Some(St::End) {
            return Err(problem(
                (self.line, self.col),
                "the rest of the JSON object",
                "the end of the file (is it cut short?)".into(),
            ));
        }
        if self.value.is_empty() {
            return Ok(None);
        }
        let lower = file.to_ascii_lowercase();
        let qrels = match format {
            Some(Format::JsonQrels) => true,
            Some(Format::JsonRun) => false,
            _ if lower.contains("qrel") => true,
            _ if lower.contains("run") => false,
            _ => self.first_fraction.is_none(),
        };
        if !qrels {
            return Ok(Some(Parsed::Run {
                name: model_name_from_file(file),
                tag: String::new(),
                queries: self.queries,
                q: self.q,
                docs: self.docs,
                score: self.value,
            }));
        }
        // a value qrels cannot hold, refused where it stands
        let refuse = |(line, column, found): (u64, u64, String), expected: &str, hint: &str| {
            Err(Problem {
                line,
                column,
                expected: expected.into(),
                found,
                hint: (!hint.is_empty()).then(|| hint.into()),
            })
        };
        if let Some(at) = self.first_fraction {
            return refuse(
                at,
                "an integer relevance grade (this file is read as qrels)",
                "If this is a run, put \"run\" in its file name or choose the format JSON run.",
            );
        }
        if let Some(at) = self.first_huge {
            return refuse(at, "a relevance grade below 10^9 in magnitude", "");
        }
        // every value is an integer below 10^9 in magnitude: exact as an i32
        let grade: Vec<i32> = self.value.iter().map(|&v| v as i32).collect();
        super::table::qrels_parsed(self.queries, &self.q, &self.docs, &grade).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str, chunk: usize, file: &str) -> Result<Option<Parsed>, Problem> {
        let mut r = JsonReader::new(1);
        for c in text.as_bytes().chunks(chunk) {
            r.feed(c);
        }
        r.finish(file, None)
    }

    #[test]
    fn reads_runs_and_qrels_in_any_chunking() {
        let run = "\u{feff}{\"q1\": {\"d1\": 0.9, \"d\\\"2\": 1e-1},\n \"q\\u00e9\": {}, \"q3\": {\"d\\ud83d\\ude00\": -2}}\n";
        for chunk in [1, 2, 3, 7, 1000] {
            let Ok(Some(Parsed::Run {
                queries,
                docs,
                q,
                score,
                ..
            })) = read(run, chunk, "x.json")
            else {
                panic!("not a run");
            };
            assert_eq!(score, vec![0.9, 0.1, -2.0]);
            assert_eq!(docs.get(1), "d\"2");
            assert_eq!(docs.get(2), "d😀");

            assert_eq!(queries.name(q[2]), "q3");
            assert_eq!(queries.len(), 3);
        }
        let Ok(Some(Parsed::Qrels { judgments, .. })) =
            read("{\"q1\":{\"a\":2,\"b\":0}}", 4, "x.json")
        else {
            panic!("not qrels");
        };
        assert_eq!((judgments.grade(0, "a"), judgments.grade(0, "b")), (2, 0));

        assert!(matches!(
            read("{\"q1\":{\"a\":2}}", 4, "bm25.run.json"),
            Ok(Some(Parsed::Run { .. }))
        ));
    }

    #[test]
    fn errors_say_where_and_what() {
        let e = read("{\"q1\": {\"d1\": 0.5,}}", 3, "r.json").unwrap_err();
        assert_eq!((e.line, e.column), (1, 19));
        assert_eq!(e.expected, "a document id in double quotes");
        assert_eq!(e.found, "`}`");
        let e = read("{\"q1\": [1, 2]}", 5, "r.json").unwrap_err();
        assert_eq!(e.found, "an array `[`");
        let e = read("{\"q1\": {\"d1\": 0.5}", 5, "r.json").unwrap_err();
        assert_eq!(e.expected, "the rest of the JSON object");
        let e = read("{\"q1\": {\"d1\": 0.5}}\n{}", 5, "r.json").unwrap_err();
        assert_eq!((e.line, e.column), (2, 1));
        let e = read("{\"q1\": {\"d1\": 0.5}}", 5, "my.qrels.json").unwrap_err();
        assert_eq!(e.found, "'0.5'");
        let e = read("{\"q1\": {\"d1\": 1-2}}", 5, "r.json").unwrap_err();
        assert_eq!(e.expected, "a finite number");
        assert!(read("{}", 1, "r.json").unwrap().is_none());
        // a grade past an i32's exact range is refused where it stands
        let e = read(
            "{\"q1\": {\"d1\": 1,\n \"d2\": -1000000000}}",
            4,
            "x.qrels.json",
        )
        .unwrap_err();
        assert_eq!(
            (e.line, e.column, e.found.as_str()),
            (2, 8, "'-1000000000'")
        );
        assert!(read("{\"q1\": {\"d1\": 999999999}}", 4, "x.qrels.json").is_ok());
    }
}
