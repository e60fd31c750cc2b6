//! Splitting a byte stream that arrives in chunks into complete lines.
//!
//! Only the unfinished tail of a chunk is kept between calls, so a file of any
//! size is parsed with memory proportional to the chunk, not the file. LF and
//! CRLF endings are accepted; a UTF-8 BOM at the very start is skipped.

#[derive(Debug, Default)]
pub struct LineSplitter {
    carry: Vec<u8>,
    line_no: u64,
    started: bool,
    /// Inside a quoted CSV field (a newline there does not end the record).
    quote_aware: bool,
    in_quotes: bool,
}

impl LineSplitter {
    pub fn new(quote_aware: bool) -> Self {
        LineSplitter {
            quote_aware,
            ..Default::default()
        }
    }

    /// Bytes of an unfinished line held between chunks.
    pub fn pending(&self) -> usize {
        self.carry.len()
    }

    /// Lines completed so far (the number of the last line handed out).
    pub fn line_no(&self) -> u64 {
        self.line_no
    }

    /// Whether the next byte fed starts a line (nothing is carried, the BOM is decided).
    pub fn between_lines(&self) -> bool {
        self.started && self.carry.is_empty() && !self.in_quotes
    }

    /// Counts `n` complete lines read elsewhere (from [`LineSplitter::between_lines`]).
    pub fn count_lines(&mut self, n: u64) {
        self.line_no += n;
    }

    /// Calls `f(line_number, line_without_ending)` for every complete line in `chunk`.
    pub fn feed(&mut self, mut chunk: &[u8], f: &mut impl FnMut(u64, &[u8])) {
        if chunk.is_empty() {
            return;
        }
        if !self.started {
            if self.carry.len() + chunk.len() < 3 {
                // too short to tell about a BOM yet
                self.carry.extend_from_slice(chunk);
                return;
            }
            self.started = true;
            if !self.carry.is_empty() {
                let mut joined = std::mem::take(&mut self.carry);
                joined.extend_from_slice(chunk);
                let body = joined
                    .strip_prefix(b"\xEF\xBB\xBF")
                    .unwrap_or(&joined)
                    .to_vec();
                self.feed(&body, f);
                return;
            }
            chunk = chunk.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(chunk);
        }
        let mut start = 0;
        if self.quote_aware {
            for i in 0..chunk.len() {
                let b = chunk[i];
                if b == b'"' {
                    self.in_quotes = !self.in_quotes;
                } else if b == b'\n' && !self.in_quotes {
                    self.emit(&chunk[start..i], f);
                    start = i + 1;
                }
            }
        } else {
            while let Some(off) = chunk[start..].iter().position(|&b| b == b'\n') {
                self.emit(&chunk[start..start + off], f);
                start += off + 1;
            }
        }
        self.carry.extend_from_slice(&chunk[start..]);
    }

    fn emit(&mut self, piece: &[u8], f: &mut impl FnMut(u64, &[u8])) {
        self.line_no += 1;
        if self.carry.is_empty() {
            f(self.line_no, strip_cr(piece));
        } else {
            self.carry.extend_from_slice(piece);
            let line = std::mem::take(&mut self.carry);
            f(self.line_no, strip_cr(&line));
        }
    }

    /// Hands out the last line if the file did not end with a newline.
    pub fn finish(&mut self, f: &mut impl FnMut(u64, &[u8])) {
        if !self.started {
            self.started = true;
            let body = std::mem::take(&mut self.carry);
            let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&body).to_vec();
            self.carry = body;
        }
        if !self.carry.is_empty() {
            self.line_no += 1;
            let line = std::mem::take(&mut self.carry);
            f(self.line_no, strip_cr(&line));
        }
    }
}

fn strip_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(chunks: &[&[u8]], quotes: bool) -> Vec<(u64, String)> {
        let mut s = LineSplitter::new(quotes);
        let mut out = vec![];
        let mut f = |n: u64, l: &[u8]| out.push((n, String::from_utf8_lossy(l).into_owned()));
        for c in chunks {
            s.feed(c, &mut f);
        }
        s.finish(&mut f);
        out
    }

    #[test]
    fn lines_survive_any_chunking() {
        let text = b"\xEF\xBB\xBFa,b\r\n1,2\n3,4";
        let whole = split(&[text], false);
        assert_eq!(
            whole,
            vec![(1, "a,b".into()), (2, "1,2".into()), (3, "3,4".into())]
        );
        for cut in 0..text.len() {
            assert_eq!(
                split(&[&text[..cut], &text[cut..]], false),
                whole,
                "cut at {cut}"
            );
        }
        for a in 0..text.len() {
            for b in a..text.len() {
                assert_eq!(split(&[&text[..a], &text[a..b], &text[b..]], false), whole);
            }
        }
    }

    #[test]
    fn quoted_newlines_stay_in_the_record() {
        let out = split(&[b"a,\"x\ny\"\n1,2\n"], true);
        assert_eq!(out, vec![(1, "a,\"x\ny\"".into()), (2, "1,2".into())]);
    }

    #[test]
    fn empty_and_tiny_inputs() {
        assert!(split(&[b""], false).is_empty());
        assert_eq!(split(&[b"a"], false), vec![(1, "a".into())]);
        assert_eq!(split(&[b"\xEF\xBB\xBF"], false), vec![]);
    }
}
