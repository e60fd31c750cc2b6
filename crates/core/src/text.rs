//! Text from input files made safe to show: characters that act instead of
//! showing themselves (controls, bidirectional overrides, zero-width
//! characters) written as visible escapes, and the escaping of each export
//! format (CSV formula injection, Markdown, LaTeX, XML).

use std::borrow::Cow;

/// The most characters of a problem's text (and of a file name) kept: input
/// echoed in a message (a header, a value, a URL) is cut there, so a 12 MB
/// header line gives a message of a few hundred bytes, not 12 MB.
pub const MAX_ECHO: usize = 300;

/// `text` cut to [`MAX_ECHO`] characters, saying how much was left out.
pub fn capped(text: String) -> String {
    capped_to(text, MAX_ECHO)
}

/// `text` cut to `max` characters, saying how much was left out.
pub fn capped_to(text: String, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text,
        Some((end, _)) => {
            let rest = text[end..].chars().count();
            format!("{}… ({})", &text[..end], count(rest, "more character"))
        }
    }
}

/// "1 field", "3 fields".
pub fn count(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// Controls that act on a terminal or break a line: C0 (but line feed and
/// tab), DEL and C1.
fn is_control(c: char) -> bool {
    c.is_control() && c != '\n' && c != '\t'
}

/// Bidirectional controls: they reorder what follows (`abc\u{202e}fdp.exe`
/// shows as `abcexe.pdf`).
fn is_bidi(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// Characters with no width: two names differing only by them look identical.
fn is_zero_width(c: char) -> bool {
    matches!(
        c,
        '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FEFF}' | '\u{180E}' | '\u{00AD}'
    )
}

/// `text` with the characters `hide` picks written as `\x1b` (below U+0100)
/// or `\u{202e}`.
fn escape_where(text: &str, hide: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !text.chars().any(&hide) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if !hide(c) {
            out.push(c);
        } else if (c as u32) < 0x100 {
            out.push_str(&format!("\\x{:02x}", c as u32));
        } else {
            out.push_str(&format!("\\u{{{:04x}}}", c as u32));
        }
    }
    Cow::Owned(out)
}

/// A name (a model, a file) as it must be shown: every control, line break,
/// bidirectional control and zero-width character written as an escape, so
/// what is shown is what the name holds.
pub fn visible(name: &str) -> Cow<'_, str> {
    escape_where(name, |c| c.is_control() || is_bidi(c) || is_zero_width(c))
}

/// Text for a terminal: controls (ESC, BEL, CR, ...) and bidirectional
/// controls escaped, line feeds and tabs kept.
pub fn terminal_safe(text: &str) -> Cow<'_, str> {
    escape_where(text, |c| is_control(c) || is_bidi(c))
}

/// A writer that passes text on as [`terminal_safe`] writes it (for output
/// that leaves in blocks, as `rankscope trec_eval`'s): controls and
/// bidirectional controls escaped, each byte that is not UTF-8 as `\xNN`; a
/// character split between two writes is held until its end arrives (and
/// escaped byte by byte if it never does).
pub struct TerminalSafe<W: std::io::Write> {
    inner: W,
    held: Vec<u8>,
}

impl<W: std::io::Write> TerminalSafe<W> {
    pub fn new(inner: W) -> Self {
        TerminalSafe {
            inner,
            held: Vec::new(),
        }
    }

    /// The held bytes as text to show; with `end`, an unfinished character too.
    fn take(&mut self, end: bool) -> String {
        let mut out = String::new();
        let mut rest = &self.held[..];
        loop {
            match std::str::from_utf8(rest) {
                Ok(s) => {
                    out.push_str(&terminal_safe(s));
                    rest = &[];
                    break;
                }
                Err(e) => {
                    let (valid, after) = rest.split_at(e.valid_up_to());
                    out.push_str(&terminal_safe(
                        std::str::from_utf8(valid).unwrap_or_default(),
                    ));
                    let bad = match e.error_len() {
                        Some(n) => n,
                        None if end => after.len(),
                        None => {
                            rest = after;
                            break;
                        }
                    };
                    for b in &after[..bad] {
                        out.push_str(&format!("\\x{b:02x}"));
                    }
                    rest = &after[bad..];
                }
            }
        }
        let kept = rest.len();
        self.held.drain(..self.held.len() - kept);
        out
    }
}

impl<W: std::io::Write> std::io::Write for TerminalSafe<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.held.extend_from_slice(buf);
        let text = self.take(false);
        self.inner.write_all(text.as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl<W: std::io::Write> Drop for TerminalSafe<W> {
    fn drop(&mut self) {
        let text = self.take(true);
        let _ = self.inner.write_all(text.as_bytes());
        let _ = self.inner.flush();
    }
}

/// A CSV text cell: one starting with `=`, `+`, `-`, `@`, tab or CR gets a
/// leading `'`, so a spreadsheet shows it instead of running it as a
/// formula (OWASP's advice on CSV injection). Numbers are not text cells.
/// Text already starting with `'`s before such a character gets one more,
/// so [`csv_uncell`] gives back every text as it was.
pub fn csv_cell(text: &str) -> Cow<'_, str> {
    if runs_as_formula(text.trim_start_matches('\'')) {
        Cow::Owned(format!("'{text}"))
    } else {
        Cow::Borrowed(text)
    }
}

/// Whether a spreadsheet would run a cell of this text as a formula.
fn runs_as_formula(text: &str) -> bool {
    matches!(
        text.chars().next(),
        Some('=' | '+' | '-' | '@' | '\t' | '\r')
    )
}

/// A CSV text cell as it was before [`csv_cell`]: one `'` fewer before a
/// character a spreadsheet would run (the interchange file's ids read back).
pub fn csv_uncell(cell: &str) -> &str {
    match cell.strip_prefix('\'') {
        Some(rest) if runs_as_formula(rest.trim_start_matches('\'')) => rest,
        _ => cell,
    }
}

/// One CSV field as RFC 4180 writes it: quoted (with inner quotes doubled)
/// when it holds a comma, a quote or a line break, else as it is; pushed to `out`.
pub fn push_csv_field(out: &mut String, field: &str) {
    if field.contains([',', '"', '\n', '\r']) {
        out.push('"');
        out.push_str(&field.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(field);
    }
}

/// Markdown text: the ASCII punctuation Markdown could read as markup in a
/// table cell (links, images, emphasis, code, strikethrough, cells; `:` so no
/// `http://` becomes a link) escaped with a backslash, `<`, `>` and `&` as
/// entities (no raw HTML), hidden characters visible.
pub fn markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in visible(text).chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\\' | '`' | '*' | '_' | '{' | '}' | '[' | ']' | '(' | ')' | '#' | '!' | '|' | '~'
            | ':' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// HTML text (an element's content or a quoted attribute value): `&`, `<`,
/// `>`, `"` and `'` as entities, hidden characters visible.
///
/// Used only by the root crate's view layer (markup, values, compare/html,
/// diagnose/html, app); no lower crate calls it, which is fine: it writes
/// no markup itself (tests/layers.rs).
pub fn html(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in visible(text).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The `value` attribute of the element of id `id` (plain text: the
/// controls' ids are the page's own) in `doc` (HTML a worker wrote), as
/// written (escaped); `None` without such an element or attribute. The page compares it with what someone is typing into that
/// control (`app/util.rs`).
///
/// Used only by the app (`app/util.rs`); no lower crate calls it, which is
/// fine: it reads markup, writes none.
pub fn input_value<'a>(doc: &'a str, id: &str) -> Option<&'a str> {
    let at = doc.find(&format!(r#" id="{id}""#))?;
    let start = doc[..at].rfind('<')?;
    let tag = &doc[start..at + doc[at..].find('>')?];
    let from = tag.find(r#" value=""#)? + 8;
    Some(&tag[from..from + tag[from..].find('"')?])
}

/// LaTeX text: its special characters escaped, brackets braced (a row that
/// starts with `[20cm]` would otherwise be read as the row spacing of the
/// `\\` before it), hidden characters visible.
pub fn latex(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in visible(text).chars() {
        match c {
            '\\' => out.push_str("\\textbackslash{}"),
            '&' | '%' | '$' | '#' | '_' | '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            '~' => out.push_str("\\textasciitilde{}"),
            '^' => out.push_str("\\textasciicircum{}"),
            '[' => out.push_str("{[}"),
            ']' => out.push_str("{]}"),
            '<' => out.push_str("\\textless{}"),
            '>' => out.push_str("\\textgreater{}"),
            // the symbols of the metrics' titles and notes, which pdflatex's
            // text fonts lack (`nDCG (2^rel−1)`, `Spearman ρ`, `—` undefined)
            '−' => out.push_str("$-$"),
            '±' => out.push_str("$\\pm$"),
            '·' => out.push_str("$\\cdot$"),
            '×' => out.push_str("$\\times$"),
            '≤' => out.push_str("$\\le$"),
            '≥' => out.push_str("$\\ge$"),
            '—' => out.push_str("---"),
            '–' => out.push_str("--"),
            'α' => out.push_str("$\\alpha$"),
            'β' => out.push_str("$\\beta$"),
            'ρ' => out.push_str("$\\rho$"),
            'τ' => out.push_str("$\\tau$"),
            c => out.push(c),
        }
    }
    out
}

/// An XML document with every character XML 1.0 forbids (C0 controls but
/// tab, line feed and carriage return; U+FFFE, U+FFFF) replaced by U+FFFD,
/// so an SVG that shows a name holding one stays well-formed.
pub fn xml_chars(doc: String) -> String {
    let bad = |c: char| {
        ((c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r'))
            || matches!(c, '\u{FFFE}' | '\u{FFFF}')
    };
    if !doc.contains(bad) {
        return doc;
    }
    doc.chars()
        .map(|c| if bad(c) { '\u{FFFD}' } else { c })
        .collect()
}

/// A number as Rust's `str::parse::<f64>` reads it: the same grammar
/// (optional sign; digits with at most one point; an optional exponent;
/// `inf`, `infinity`, `nan` in any case) and the same correctly rounded value.
/// In the page the digits go to the browser's `parseFloat` (correctly
/// rounded too), once the grammar is checked here: Rust's own parser was
/// 3.6 KB of the page's wasm. `tests/wasm.rs` checks the two agree.
pub fn parse_f64(s: &str) -> Option<f64> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        s.parse().ok()
    }
    #[cfg(target_arch = "wasm32")]
    {
        let (negative, rest) = match s.as_bytes().first() {
            Some(b'-') => (true, &s[1..]),
            Some(b'+') => (false, &s[1..]),
            _ => (false, s),
        };
        let special = match rest.to_ascii_lowercase().as_str() {
            "inf" | "infinity" => Some(f64::INFINITY),
            "nan" => Some(f64::NAN),
            _ => None,
        };
        if let Some(v) = special {
            return Some(if negative { -v } else { v });
        }
        let r = rest.as_bytes();
        let digits = |mut i: usize| {
            while r.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            i
        };
        let whole = digits(0);
        let mut i = whole;
        let mut fraction = 0;
        if r.get(i) == Some(&b'.') {
            i = digits(i + 1);
            fraction = i - whole - 1;
        }
        if whole + fraction == 0 {
            return None;
        }
        if r.get(i).is_some_and(|&c| c | 0x20 == b'e') {
            i += 1;
            if matches!(r.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            let start = i;
            i = digits(i);
            if i == start {
                return None;
            }
        }
        (i == r.len()).then(|| js_sys::parse_float(s))
    }
}

/// Whether `name` matches `pattern`, where `*` stands for any text and `|`
/// separates alternatives (`gbdt_fold*|my-best`).
pub fn glob(pattern: &str, name: &str) -> bool {
    if pattern.contains('|') {
        return pattern.split('|').any(|p| glob(p, name));
    }
    let parts: Vec<&str> = pattern.split('*').collect();
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if parts.len() == 1 {
        return name == pattern;
    }
    if !name.starts_with(first) || name.len() < first.len() + last.len() || !name.ends_with(last) {
        return false;
    }
    let mut rest = &name[first.len()..name.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_stars_stand_for_any_text() {
        assert!(glob("gbdt_fold*|best", "best") && glob("gbdt_fold*|best", "gbdt_fold2"));
        assert!(!glob("gbdt_fold*|best", "bestx") && !glob("a|b", "a|b"));
        assert!(glob("gbdt_fold*", "gbdt_fold1"));
        assert!(glob("*fold*", "gbdt_fold1"));
        assert!(glob("a*b*c", "a-b-c"));
        assert!(glob("exact", "exact"));
        assert!(!glob("exact", "exact2"));
        assert!(!glob("a*b", "ab-c"));
        assert!(!glob("ab*ba", "aba"));
        assert!(glob("*", ""));
    }

    #[test]
    fn the_value_of_a_control_by_its_id() {
        let doc = r#"<p data-id="x"><input id="diag-bins" type="number" value="10"><input id="x" value="a&amp;b"/><select id="s"></select></p>"#;
        assert_eq!(input_value(doc, "diag-bins"), Some("10"));
        assert_eq!(input_value(doc, "x"), Some("a&amp;b"));
        assert_eq!(input_value(doc, "s"), None);
        assert_eq!(input_value(doc, "gone"), None);
    }

    #[test]
    fn hidden_characters_are_shown() {
        assert_eq!(visible("bm25"), "bm25");
        assert_eq!(visible("a\u{200b}b"), "a\\u{200b}b");
        assert_eq!(visible("x\u{202e}y\n"), "x\\u{202e}y\\x0a");
        assert_eq!(visible("\u{1b}[2J\u{9b}"), "\\x1b[2J\\x9b");
        assert_ne!(visible("bm25"), visible("bm\u{200d}25"));
        assert_eq!(
            terminal_safe("a\tb\nc\rd\u{7}\u{2066}"),
            "a\tb\nc\\x0dd\\x07\\u{2066}"
        );
    }

    /// Output written in blocks is escaped as the whole text would be, a
    /// character split between two writes included; bytes that are not
    /// UTF-8 show as `\xNN`.
    #[test]
    fn a_terminal_writer_escapes_across_writes() {
        use std::io::Write;
        let text = "run\u{1b}]0;title\u{7}\tq1\u{202e}é\n".as_bytes();
        for cut in 0..=text.len() {
            let mut out = Vec::new();
            {
                let mut w = TerminalSafe::new(&mut out);
                w.write_all(&text[..cut]).unwrap();
                w.write_all(&text[cut..]).unwrap();
            }
            assert_eq!(
                String::from_utf8(out).unwrap(),
                "run\\x1b]0;title\\x07\tq1\\u{202e}é\n",
                "cut at {cut}"
            );
        }
        let mut out = Vec::new();
        {
            let mut w = TerminalSafe::new(&mut out);
            w.write_all(b"a\xff\x9b[2Jb\xc3").unwrap();
        }
        assert_eq!(String::from_utf8(out).unwrap(), "a\\xff\\x9b[2Jb\\xc3");
    }

    #[test]
    fn csv_cells_that_spreadsheets_would_run_get_a_quote() {
        for f in ["=1+1", "+cmd", "-2+3", "@SUM(A1)", "\tx", "\rx"] {
            assert_eq!(csv_cell(f), format!("'{f}"));
        }
        assert_eq!(csv_cell("bm25"), "bm25");
        assert_eq!(csv_cell(""), "");
        assert_eq!(csv_cell("'=x"), "''=x");
        assert_eq!(csv_cell("'bm25"), "'bm25");
        // the original text back, whatever it held
        for t in [
            "=1", "''=1", "'", "''", "'a", "a'", "-0.5", "", "@", "'\t", "x=1",
        ] {
            assert_eq!(csv_uncell(&csv_cell(t)), t, "{t:?}");
        }
    }

    #[test]
    fn markdown_and_latex_carry_no_markup_from_names() {
        let md = markdown("<img src=x onerror=alert(1)> [a](javascript:x) *b* |");
        assert!(!md.contains('<') && !md.contains("]("), "{md}");
        assert!(md.contains("&lt;img") && md.contains("\\[a\\]\\(javascript\\:x\\)"));
        assert_eq!(latex("[20cm] a_b"), "{[}20cm{]} a\\_b");
        assert_eq!(latex("\u{7}x"), "\\textbackslash{}x07x");
        assert_eq!(latex("a\\b"), "a\\textbackslash{}b");
        // symbols pdflatex's text fonts lack, as math or dashes
        assert_eq!(
            latex("2^rel−1 ρ ± —"),
            "2\\textasciicircum{}rel$-$1 $\\rho$ $\\pm$ ---"
        );
    }

    #[test]
    fn xml_forbidden_characters_are_replaced() {
        assert_eq!(
            xml_chars("<t>a\u{1}b\u{7}</t>\n".into()),
            "<t>a\u{fffd}b\u{fffd}</t>\n"
        );
        assert_eq!(xml_chars("ok\t\n".into()), "ok\t\n");
    }
}
