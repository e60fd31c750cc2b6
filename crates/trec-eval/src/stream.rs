//! A results file read a block at a time, one query's lines at a time (a
//! run grouped by query, as TREC runs are written, is never held whole),
//! with the same line grammar, numbering and NUL handling as
//! [`input::results`](super::input::results); and where a file can be cut
//! in two at a query boundary, for two readers at once.

use super::cfmt::atof;
use super::input::results_walk;
use std::io::{Read, Seek, SeekFrom};

/// The size of one read.
pub const BLOCK: usize = 4 << 20;

/// How far a stream got.
#[derive(Debug, Default)]
pub struct End {
    /// data lines read
    pub lines: usize,
    /// the run id of the last data line
    pub run_id: Option<Vec<u8>>,
    /// bytes read (none: trec_eval cannot read the file)
    pub bytes: u64,
    /// a NUL byte ended the input (trec_eval reads up to the first one)
    pub nul: bool,
}

/// Why a stream stopped early.
#[derive(Debug)]
pub enum Stop {
    /// the data lines read before a malformed one
    Malformed(usize),
    /// the source could not be read
    Read,
}

/// What is called with each group: its qid, and its documents and scores.
type OnGroup<'g> = dyn FnMut(&[u8], &[(&[u8], f64)]) + 'g;

/// Reads `src` to its end (or its first NUL byte) and calls `group(qid,
/// docs)` for each run of consecutive data lines with one qid, its
/// documents and scores in file order. A query whose lines are not
/// together comes as two groups (the caller tells). Returns how far it
/// got, and why it stopped if it did before the end.
pub fn groups(
    src: &mut dyn Read,
    mut group: impl FnMut(&[u8], &[(&[u8], f64)]),
) -> (End, Option<Stop>) {
    let mut end = End::default();
    let mut buf = vec![0u8; BLOCK];
    // buf[..filled] holds bytes read; complete lines up to `parsed` are
    // read; the current group's lines start at `keep` (kept on a refill)
    let (mut filled, mut parsed, mut keep) = (0usize, 0usize, 0usize);
    let mut current: Option<(usize, usize)> = None;
    let mut docs: Vec<(usize, usize, f64)> = Vec::new();
    let mut eof = false;
    let emit =
        |buf: &[u8], current: (usize, usize), docs: &[(usize, usize, f64)], group: &mut OnGroup| {
            let scored: Vec<(&[u8], f64)> = docs
                .iter()
                .map(|&(at, len, sim)| (&buf[at..at + len], sim))
                .collect();
            group(&buf[current.0..current.0 + current.1], &scored);
        };
    loop {
        let complete = if eof {
            filled
        } else {
            buf[parsed..filled]
                .iter()
                .rposition(|&c| c == b'\n')
                .map_or(parsed, |i| parsed + i + 1)
        };
        if complete > parsed {
            let base = buf.as_ptr() as usize;
            let mut last_rid = None;
            let walked = results_walk(&buf[parsed..complete], |(qid, docno, sim, rid)| {
                let at = |s: &[u8]| (s.as_ptr() as usize - base, s.len());
                let same = current.is_some_and(|(a, n)| &buf[a..a + n] == qid);
                if !same {
                    if let Some(c) = current {
                        emit(&buf, c, &docs, &mut group);
                        docs.clear();
                    }
                    current = Some(at(qid));
                    keep = at(qid).0;
                }
                let (d, n) = at(docno);
                docs.push((d, n, atof(sim)));
                last_rid = Some(rid);
            });
            if let Some(rid) = last_rid {
                end.run_id = Some(rid.to_vec());
            }
            match walked {
                Ok(n) => end.lines += n,
                Err(n) => {
                    end.lines += n;
                    let before = end.lines;
                    return (end, Some(Stop::Malformed(before)));
                }
            }
            parsed = complete;
        }
        if eof {
            if let Some(c) = current {
                emit(&buf, c, &docs, &mut group);
            }
            return (end, None);
        }
        // move what is still needed to the front, then read more
        let from = if current.is_some() { keep } else { parsed };
        if from > 0 {
            buf.copy_within(from..filled, 0);
            filled -= from;
            parsed -= from;
            keep -= from.min(keep);
            if let Some((a, _)) = &mut current {
                *a -= from;
            }
            docs.iter_mut().for_each(|d| d.0 -= from);
        }
        if filled == buf.len() {
            buf.resize(buf.len() * 2, 0);
        }
        let n = loop {
            match src.read(&mut buf[filled..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return (end, Some(Stop::Read)),
            }
        };
        end.bytes += n as u64;
        match buf[filled..filled + n].iter().position(|&c| c == 0) {
            Some(nul) => {
                filled += nul;
                end.nul = true;
                eof = true;
            }
            None => {
                filled += n;
                eof = n == 0;
            }
        }
        // the last line ends with a newline, as `input::prepare` adds
        if eof && filled > parsed && buf[filled - 1] != b'\n' {
            if filled == buf.len() {
                buf.push(b'\n');
            } else {
                buf[filled] = b'\n';
            }
            filled += 1;
        }
    }
}

/// Where a results file can be cut in two at a query boundary at or after
/// byte `at`: the start of the first data line past it whose qid differs
/// from the data line before it. None when none is found within a few
/// blocks, or a line there is malformed (one reader then reports it).
pub fn split_point<F: Read + Seek>(file: &mut F, at: u64) -> Option<u64> {
    file.seek(SeekFrom::Start(at)).ok()?;
    let mut window = Vec::new();
    file.take(4 * BLOCK as u64).read_to_end(&mut window).ok()?;
    // the first line that starts after `at` (a line may start at `at` itself
    // only when the byte before it is a newline; skipping it is harmless)
    let first = window.iter().position(|&c| c == b'\n')? + 1;
    let mut qid: Option<&[u8]> = None;
    let mut start = first;
    while let Some(len) = window[start..].iter().position(|&c| c == b'\n') {
        let line = &window[start..start + len + 1];
        if line.contains(&0) {
            return None;
        }
        let mut this = None;
        results_walk(line, |fields| this = Some(fields.0)).ok()?;
        if let Some(this) = this {
            match qid {
                Some(q) if q != this => return Some(at + start as u64),
                _ => qid = Some(this),
            }
        }
        start += len + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input;

    type Owned = Vec<(Vec<u8>, Vec<(Vec<u8>, f64)>)>;

    /// The groups of a buffer read through `groups`, `step` bytes per read.
    fn streamed(bytes: &[u8], step: usize) -> (Owned, End, Option<Stop>) {
        struct Slow<'a>(&'a [u8], usize);
        impl Read for Slow<'_> {
            fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
                let n = self.1.min(out.len()).min(self.0.len());
                out[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let mut got = Vec::new();
        let (end, stop) = groups(&mut Slow(bytes, step), |qid, docs| {
            got.push((
                qid.to_vec(),
                docs.iter().map(|d| (d.0.to_vec(), d.1)).collect(),
            ))
        });
        (got, end, stop)
    }

    #[test]
    fn groups_match_the_whole_file_reader() {
        let text = b"# c\n1 Q0 a 1 0.5 r\n 1 Q0 b 2 0.25 r\n\n10 Q0 c 1 1 s x\n2 Q0 d 1 2 t";
        let prepared = input::prepare(text.to_vec());
        let whole = input::results(&prepared).expect("parses");
        for step in [1, 3, 7, 1000] {
            let (got, end, stop) = streamed(text, step);
            assert!(stop.is_none());
            assert_eq!(end.lines, 4);
            assert_eq!(end.run_id.as_deref(), Some(whole.run_id));
            let mut got = got;
            got.sort_by(|a, b| a.0.cmp(&b.0));
            assert_eq!(got.len(), whole.queries.len());
            for (g, w) in got.iter().zip(&whole.queries) {
                assert_eq!(g.0, w.qid);
                let docs: Vec<(&[u8], f64)> = g.1.iter().map(|d| (&d.0[..], d.1)).collect();
                assert_eq!(docs, w.docs);
            }
        }
    }

    #[test]
    fn a_malformed_line_is_numbered_as_the_whole_file_reader_numbers_it() {
        let text = b"1 Q0 a 1 0.5 r\n\n# c\n1 Q0 b 2 0.25\n";
        assert_eq!(
            input::results(&input::prepare(text.to_vec())).err(),
            Some(2)
        );
        for step in [1, 5, 1000] {
            let (_, _, stop) = streamed(text, step);
            assert!(matches!(stop, Some(Stop::Malformed(1))));
        }
    }

    #[test]
    fn a_nul_byte_ends_the_stream() {
        let (got, end, _) = streamed(b"1 Q0 a 1 0.5 r\n2 Q0 b 1 0.5 r\x002 Q0 c 1 1 r\n", 4);
        assert!(end.nul);
        assert_eq!(got.len(), 2);
        assert_eq!(got[1].1.len(), 1);
    }

    #[test]
    fn the_split_falls_on_a_change_of_query() {
        let text = b"1 Q0 a 1 0.5 r\n1 Q0 b 2 0.4 r\n1 Q0 c 3 0.3 r\n2 Q0 a 1 0.5 r\n";
        let mut file = std::io::Cursor::new(text.to_vec());
        assert_eq!(split_point(&mut file, 3), Some(45));
        assert_eq!(split_point(&mut file, 50), None);
    }
}
