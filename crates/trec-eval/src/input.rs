//! trec_eval's input files, read as trec_eval 10.0 reads them
//! (`get_qrels.c`, `get_qrels_jg.c`, `get_trec_results.c`, `get_zscores.c`):
//! white-space separated fields, the same line grammar, the same
//! "Malformed line N" (N counts the lines read so far, comments excluded),
//! '#' comment lines, and the same orderings (queries by `strcmp` of their
//! ids, judgments by docno).
//!
//! Where trec_eval's C reads past its buffer (a NUL byte inside a file, an
//! empty file on stdin, a comment as the last line of a qrels file) this
//! reader stops at the NUL, treats empty stdin as an empty file and ends at
//! the comment.

use super::cfmt::{atof, atol, is_space, strcmp};
use super::prefs::{Pref, PrefsQuery};
use std::collections::HashMap;

/// One query's judgments, sorted by docno (duplicates kept; trec_eval
/// reports them when the query is evaluated).
pub struct QrelsQuery<'a> {
    pub qid: &'a [u8],
    pub docs: Vec<(&'a [u8], i64)>,
}

/// One query's judgment groups (`-R qrels_jg`), each sorted by docno.
pub struct JgQuery<'a> {
    pub qid: &'a [u8],
    pub groups: Vec<Vec<(&'a [u8], i64)>>,
}

/// Relevance information in one of the formats.
pub enum RelInfo<'a> {
    Qrels(Vec<QrelsQuery<'a>>),
    Jg(Vec<JgQuery<'a>>),
    Prefs(Vec<PrefsQuery<'a>>),
}

impl RelInfo<'_> {
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn len(&self) -> usize {
        match self {
            RelInfo::Qrels(q) => q.len(),
            RelInfo::Jg(q) => q.len(),
            RelInfo::Prefs(q) => q.len(),
        }
    }
    pub fn qid(&self, i: usize) -> &[u8] {
        match self {
            RelInfo::Qrels(q) => q[i].qid,
            RelInfo::Jg(q) => q[i].qid,
            RelInfo::Prefs(q) => q[i].qid,
        }
    }
}

/// A document and its score.
pub type Scored<'a> = (&'a [u8], f64);

/// A z-score line: measure, mean, standard deviation.
pub type Zscore<'a> = (&'a [u8], f64, f64);

/// The fields of a results line that trec_eval keeps: qid, docno, sim, run id.
pub type ResultsFields<'a> = (&'a [u8], &'a [u8], &'a [u8], &'a [u8]);

/// One query's retrieved documents with their scores, in file order.
pub struct ResultsQuery<'a> {
    pub qid: &'a [u8],
    pub docs: Vec<(&'a [u8], f64)>,
}

/// A results file: its queries (sorted by qid) and the run id of its last line.
pub struct Results<'a> {
    pub queries: Vec<ResultsQuery<'a>>,
    pub run_id: &'a [u8],
}

impl<'a> Results<'a> {
    /// The ranked documents of query `qid`, if the run has it.
    pub fn docs_of(&self, qid: &[u8]) -> Option<&Vec<(&'a [u8], f64)>> {
        (self.queries.binary_search_by(|r| r.qid.cmp(qid)).ok()).map(|i| &self.queries[i].docs)
    }
}

/// The bytes trec_eval sees: up to the first NUL, ending with a newline.
pub fn prepare(mut bytes: Vec<u8>) -> Vec<u8> {
    if let Some(nul) = bytes.iter().position(|&c| c == 0) {
        bytes.truncate(nul);
    }
    if bytes.last() != Some(&b'\n') {
        bytes.push(b'\n');
    }
    bytes
}

/// A cursor over one line at a time, with C's field-scanning steps.
struct Cursor<'a> {
    b: &'a [u8],
    p: usize,
}

impl<'a> Cursor<'a> {
    fn at(&self) -> u8 {
        self.b.get(self.p).copied().unwrap_or(b'\n')
    }
    /// `while (*ptr != '\n' && isspace(*ptr)) ptr++`
    fn skip_blanks(&mut self) {
        while self.at() != b'\n' && is_space(self.at()) {
            self.p += 1;
        }
    }
    /// `start = ptr; while (!isspace(*ptr)) ptr++` — the field, cursor on its end.
    fn word(&mut self) -> &'a [u8] {
        let start = self.p;
        while !is_space(self.at()) {
            self.p += 1;
        }
        &self.b[start..self.p]
    }
    /// A field followed by white space on the same line (C's `skip blanks;
    /// word; if at newline fail; step over the separator`).
    fn field(&mut self) -> Option<&'a [u8]> {
        self.skip_blanks();
        let w = self.word();
        if self.at() == b'\n' {
            return None;
        }
        self.p += 1;
        Some(w)
    }
    /// The last field of a line: present, and nothing after it but blanks.
    fn last_field(&mut self) -> Option<&'a [u8]> {
        self.skip_blanks();
        if self.at() == b'\n' {
            return None;
        }
        let w = self.word();
        if self.at() != b'\n' {
            self.p += 1;
            self.skip_blanks();
            if self.at() != b'\n' {
                return None;
            }
        }
        self.p += 1;
        Some(w)
    }
    fn skip_line(&mut self) {
        while self.at() != b'\n' {
            self.p += 1;
        }
    }
}

/// `parse_qrels_line`: four fields (the second one ignored or, for
/// qrels_jg, the group), and nothing after them but white space.
fn qrels_line<'a>(c: &mut Cursor<'a>) -> Option<[&'a [u8]; 4]> {
    Some([c.field()?, c.field()?, c.field()?, c.last_field()?])
}

/// The lines of a qrels-like file, as `get_qrels.c` walks them: a line
/// starting with '#' is skipped and the line after it is read as data.
/// `f` gets each line's fields; Err(line) is "Malformed line {line}".
fn qrels_walk<'a>(buf: &'a [u8], mut f: impl FnMut([&'a [u8]; 4])) -> Result<usize, usize> {
    let mut c = Cursor { b: buf, p: 0 };
    let mut count = 0;
    while c.p < buf.len() {
        if buf[c.p] == b'#' {
            c.skip_line();
            c.p += 1;
            if c.p >= buf.len() {
                break;
            }
        }
        match qrels_line(&mut c) {
            Some(fields) => f(fields),
            None => return Err(count + 1),
        }
        count += 1;
    }
    Ok(count)
}

fn qrels_lines(buf: &[u8]) -> Result<Vec<[&[u8]; 4]>, usize> {
    let mut lines = Vec::new();
    qrels_walk(buf, |fields| lines.push(fields))?;
    Ok(lines)
}

/// `-R qrels`. Err(line) is "Malformed line {line}".
pub fn qrels(buf: &[u8]) -> Result<Vec<QrelsQuery<'_>>, usize> {
    // grouped as the lines are read (no list of every line)
    let mut groups = Grouper::default();
    qrels_walk(buf, |l| groups.push(l[0], (l[2], atol(l[3]))))?;
    Ok(groups
        .finish()
        .into_iter()
        .map(|(qid, mut docs)| {
            docs.sort_by(|a, b| a.0.cmp(b.0));
            QrelsQuery { qid, docs }
        })
        .collect())
}

/// `-R qrels` read as two halves at once (on two threads), the same as
/// [`qrels`]: the halves' groups merged (the first half's lines first),
/// then each query's judgments sorted.
#[cfg(not(target_arch = "wasm32"))]
pub fn qrels_in_two(buf: &[u8]) -> Result<Vec<QrelsQuery<'_>>, usize> {
    // a line start whose line before is not a comment: `qrels_walk` reads
    // the line after a comment as data, so it must not start a half
    let mut cut = buf.len() / 2;
    let cut = loop {
        let Some(nl) = buf[cut..].iter().position(|&c| c == b'\n') else {
            return qrels(buf);
        };
        let start = buf[..cut + nl]
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |i| i + 1);
        cut += nl + 1;
        if buf.get(start) != Some(&b'#') && cut < buf.len() {
            break cut;
        }
    };
    type Group<'a> = (&'a [u8], Vec<(&'a [u8], i64)>);
    type Groups<'a> = Vec<Group<'a>>;
    fn half(part: &[u8]) -> Result<(usize, Groups<'_>), usize> {
        let mut groups = Grouper::default();
        let count = qrels_walk(part, |l| groups.push(l[0], (l[2], atol(l[3]))))?;
        Ok((count, groups.finish()))
    }
    let (first, second) = std::thread::scope(|s| {
        let second = s.spawn(|| half(&buf[cut..]));
        let first = half(&buf[..cut]);
        (
            first,
            second
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e)),
        )
    });
    let (lines, first) = first?;
    let (_, second) = second.map_err(|line| lines + line)?;
    // both sorted by qid: merged, the first half's lines of a query first
    let mut merged: Groups = Vec::with_capacity(first.len() + second.len());
    let mut second = second.into_iter().peekable();
    for (qid, mut docs) in first {
        while let Some(other) = second.next_if(|o| o.0 < qid) {
            merged.push(other);
        }
        if let Some((_, more)) = second.next_if(|o| o.0 == qid) {
            docs.extend(more);
        }
        merged.push((qid, docs));
    }
    merged.extend(second);
    let sort = |groups: &mut [Group]| {
        for (_, docs) in groups {
            docs.sort_by(|a, b| a.0.cmp(b.0));
        }
    };
    let middle = merged.len() / 2;
    let (a, b) = merged.split_at_mut(middle);
    std::thread::scope(|s| {
        s.spawn(|| sort(b));
        sort(a);
    });
    Ok(merged
        .into_iter()
        .map(|(qid, docs)| QrelsQuery { qid, docs })
        .collect())
}

/// Lines grouped by their first field in file order, the groups sorted by
/// it (`strcmp`): with a stable sort inside each group, the order of
/// trec_eval's sort of all lines by (qid, ...) with glibc's stable qsort.
fn group<'a, T>(items: impl Iterator<Item = (&'a [u8], T)>) -> Vec<(&'a [u8], Vec<T>)> {
    let mut groups = Grouper::default();
    for (key, item) in items {
        groups.push(key, item);
    }
    groups.finish()
}

/// `group` one item at a time.
struct Grouper<'a, T> {
    index: HashMap<&'a [u8], usize>,
    groups: Vec<(&'a [u8], Vec<T>)>,
    last: Option<(&'a [u8], usize)>,
}

impl<T> Default for Grouper<'_, T> {
    fn default() -> Self {
        Grouper {
            index: HashMap::new(),
            groups: Vec::new(),
            last: None,
        }
    }
}

impl<'a, T> Grouper<'a, T> {
    fn push(&mut self, key: &'a [u8], item: T) {
        let slot = match self.last {
            Some((k, slot)) if k == key => slot,
            _ => {
                let groups = &mut self.groups;
                *self.index.entry(key).or_insert_with(|| {
                    groups.push((key, Vec::new()));
                    groups.len() - 1
                })
            }
        };
        self.last = Some((key, slot));
        self.groups[slot].1.push(item);
    }

    fn finish(mut self) -> Vec<(&'a [u8], Vec<T>)> {
        self.groups.sort_unstable_by(|a, b| a.0.cmp(b.0));
        self.groups
    }
}

/// Why a qrels_jg file was refused.
pub enum JgError<'a> {
    Malformed(usize),
    Duplicate(&'a [u8]),
}

/// `-R qrels_jg`: the second field names the judgment group.
pub fn qrels_jg(buf: &[u8]) -> Result<Vec<JgQuery<'_>>, JgError<'_>> {
    let mut lines = qrels_lines(buf).map_err(JgError::Malformed)?;
    lines.sort_by(|a, b| (a[0], a[1], a[2]).cmp(&(b[0], b[1], b[2])));
    for w in lines.windows(2) {
        if w[0][0] == w[1][0] && w[0][1] == w[1][1] && w[0][2] == w[1][2] {
            return Err(JgError::Duplicate(w[1][2]));
        }
    }
    let mut out: Vec<JgQuery> = Vec::new();
    let mut group: &[u8] = b"";
    for l in lines {
        if out.last().is_none_or(|q| q.qid != l[0]) {
            out.push(JgQuery {
                qid: l[0],
                groups: vec![Vec::new()],
            });
        } else if group != l[1] {
            out.last_mut().expect("pushed").groups.push(Vec::new());
        }
        group = l[1];
        let q = out.last_mut().expect("pushed");
        q.groups
            .last_mut()
            .expect("pushed")
            .push((l[2], atol(l[3])));
    }
    Ok(out)
}

/// `parse_prefs_line`: qid jg jsg docno rel_level.
fn prefs_line<'a>(c: &mut Cursor<'a>) -> Option<[&'a [u8]; 5]> {
    Some([
        c.field()?,
        c.field()?,
        c.field()?,
        c.field()?,
        c.last_field()?,
    ])
}

/// `-R prefs` (qid jg jsg docno rel_level) or, with `qrels` set, `-R
/// qrels_prefs` (a qrels file read as one sub-group "0" per group, the
/// group being the second field). Err(line) is "Malformed line {line}".
pub fn prefs(buf: &[u8], qrels: bool) -> Result<Vec<PrefsQuery<'_>>, usize> {
    let mut c = Cursor { b: buf, p: 0 };
    let mut lines: Vec<[&[u8]; 5]> = Vec::new();
    while c.p < buf.len() {
        if buf[c.p] == b'#' {
            c.skip_line();
            c.p += 1;
            if c.p >= buf.len() {
                break;
            }
        }
        let fields = if qrels {
            qrels_line(&mut c).map(|f| [f[0], f[1], b"0", f[2], f[3]])
        } else {
            prefs_line(&mut c)
        };
        match fields {
            Some(f) => lines.push(f),
            None => return Err(lines.len() + 1),
        }
    }
    Ok(group(
        lines
            .into_iter()
            .map(|l| (l[0], Pref::new(l[1], l[2], l[3], atof(l[4])))),
    )
    .into_iter()
    .map(|(qid, mut lines)| {
        lines.sort_by(|a, b| a.docno.cmp(b.docno));
        PrefsQuery { qid, lines }
    })
    .collect())
}

/// `parse_results_line`: qid iter docno rank sim run_id [anything].
fn results_line<'a>(c: &mut Cursor<'a>) -> Option<ResultsFields<'a>> {
    let qid = c.field()?;
    c.field()?; // iter
    let docno = c.field()?;
    c.field()?; // rank
    let sim = c.field()?;
    c.skip_blanks();
    if c.at() == b'\n' {
        return None;
    }
    let run_id = c.word();
    c.skip_line();
    c.p += 1;
    Some((qid, docno, sim, run_id))
}

/// A results file (`-T trec_results`): blank lines and lines whose first
/// non-blank byte is '#' are skipped. Err(line) is "Malformed line {line}".
pub fn results(buf: &[u8]) -> Result<Results<'_>, usize> {
    let mut groups = Grouper::default();
    let mut run_id: &[u8] = b"";
    results_walk(buf, |(qid, docno, sim, rid)| {
        run_id = rid;
        groups.push(qid, (docno, atof(sim)));
    })
    .map_err(|count| count + 1)?;
    let queries = groups
        .finish()
        .into_iter()
        .map(|(qid, docs)| ResultsQuery { qid, docs })
        .collect();
    Ok(Results { queries, run_id })
}

/// The lines of a results buffer as `get_trec_results.c` reads them (the
/// buffer ends with a newline, as [`prepare`] leaves it, or is cut after
/// one): `f` gets each data line's qid, docno, sim and run id. Ok(the
/// number of data lines), or Err(the number of data lines before a
/// malformed one).
pub fn results_walk<'a>(
    buf: &'a [u8],
    mut f: impl FnMut(ResultsFields<'a>),
) -> Result<usize, usize> {
    let mut c = Cursor { b: buf, p: 0 };
    let mut count = 0;
    while c.p < buf.len() {
        while c.p < buf.len() && buf[c.p] != b'\n' && is_space(buf[c.p]) {
            c.p += 1;
        }
        match buf.get(c.p) {
            None => break,
            Some(b'\n') => {
                c.p += 1;
                continue;
            }
            Some(b'#') => {
                c.skip_line();
                continue;
            }
            _ => {}
        }
        let Some(fields) = results_line(&mut c) else {
            return Err(count);
        };
        count += 1;
        f(fields);
    }
    Ok(count)
}

/// A z-score file (`-Z`): qid measure mean stddev per line, sorted by qid
/// then measure for the binary searches of `convert_zscores.c`.
pub struct Zscores<'a> {
    pub queries: Vec<(&'a [u8], Vec<Zscore<'a>>)>,
}

pub fn zscores(buf: &[u8]) -> Result<Zscores<'_>, usize> {
    let mut c = Cursor { b: buf, p: 0 };
    let mut lines = Vec::new();
    while c.p < buf.len() {
        match qrels_line(&mut c) {
            Some(f) => lines.push(f),
            None => return Err(lines.len() + 1),
        }
    }
    lines.sort_by(|a, b| (a[0], a[1]).cmp(&(b[0], b[1])));
    let mut queries: Vec<(&[u8], Vec<Zscore>)> = Vec::new();
    for l in lines {
        if queries.last().is_none_or(|q| q.0 != l[0]) {
            queries.push((l[0], Vec::new()));
        }
        queries
            .last_mut()
            .expect("pushed")
            .1
            .push((l[1], atof(l[2]), atof(l[3])));
    }
    Ok(Zscores { queries })
}

/// `find_qid`/`find_meas` of convert_zscores.c: a binary search whose upper
/// bound starts one past the end (reading past it is treated as a miss).
pub fn bsearch<'a, T>(items: &'a [T], key: &[u8], name: impl Fn(&T) -> &[u8]) -> Option<&'a T> {
    let (mut start, mut end) = (0i64, items.len() as i64);
    while start <= end {
        let current = (start + end) / 2;
        let item = items.get(current as usize)?;
        match strcmp(key, name(item)) {
            c if c < 0 => end = current - 1,
            c if c > 0 => start = current + 1,
            _ => return Some(item),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qrels_are_grouped_and_sorted_by_strcmp() {
        let buf = prepare(b"2 0 b 1\n10 0 z 0\n2 0 a 3\n".to_vec());
        let q = qrels(&buf).expect("parses");
        let ids: Vec<&[u8]> = q.iter().map(|q| q.qid).collect();
        assert_eq!(ids, vec![&b"10"[..], b"2"]);
        assert_eq!(q[1].docs, vec![(&b"a"[..], 3), (&b"b"[..], 1)]);
    }

    #[test]
    fn malformed_lines_are_numbered_among_the_lines_read() {
        let buf = prepare(b"# note\n1 0 a 1\n1 0 b\n".to_vec());
        assert_eq!(qrels(&buf).err(), Some(2));
        let buf = prepare(b"1 0 a 1 extra\n".to_vec());
        assert_eq!(qrels(&buf).err(), Some(1));
        let buf = prepare(b"1 0 a 1\n\n".to_vec());
        assert_eq!(qrels(&buf).err(), Some(2));
        let buf = prepare(b"1 Q0 d 1 0.5\n".to_vec());
        assert_eq!(results(&buf).err(), Some(1));
    }

    #[test]
    fn results_skip_blank_and_comment_lines_and_keep_the_last_run_id() {
        let buf = prepare(b"\n  # c\n1 Q0 a 1 0.5 r1\r\n\t\n1 Q0 b 2 0.25 r2 more\n".to_vec());
        let r = results(&buf).expect("parses");
        assert_eq!(r.run_id, b"r2");
        assert_eq!(r.queries[0].docs, vec![(&b"a"[..], 0.5), (&b"b"[..], 0.25)]);
    }

    #[test]
    fn qrels_read_in_two_halves_equal_qrels_read_whole() {
        let mut text = String::new();
        for i in 0..400 {
            text.push_str(&format!("{} 0 d{} {}\n", i % 37, (i * 13) % 101, i % 3));
            if i % 50 == 7 {
                text.push_str("# a comment\n");
            }
        }
        let buf = prepare(text.into_bytes());
        let whole = qrels(&buf).expect("parses");
        let halves = qrels_in_two(&buf).expect("parses");
        assert_eq!(whole.len(), halves.len());
        for (w, h) in whole.iter().zip(&halves) {
            assert_eq!((w.qid, &w.docs), (h.qid, &h.docs));
        }
        // a malformed line in the second half is numbered among all lines
        let mut bad = buf.clone();
        bad.extend_from_slice(b"1 0 d\n");
        assert_eq!(qrels_in_two(&bad).err(), qrels(&bad).err());
        assert_eq!(qrels(&bad).err(), Some(401));
    }

    #[test]
    fn crlf_qrels_read_like_lf() {
        let buf = prepare(b"1 0 a 1\r\n1 0 b 0\r\n".to_vec());
        let q = qrels(&buf).expect("parses");
        assert_eq!(q[0].docs.len(), 2);
    }
}
