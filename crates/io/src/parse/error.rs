//! Load errors that say file, line, column, what was expected and what was found.

use std::fmt;

/// One problem in an input file. Lines and columns are 1-based; column 0 means
/// the whole line (or the whole file when the line is 0).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Problem {
    pub line: u64,
    pub column: u64,
    pub expected: String,
    pub found: String,
    pub hint: Option<String>,
}

/// Everything wrong with one file: the first [`MAX_PROBLEMS`] problems and a count of the rest.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LoadError {
    pub file: String,
    pub problems: Vec<Problem>,
    pub more: u64,
}

pub const MAX_PROBLEMS: usize = 20;

use rankscope_core::text::capped_to;
pub use rankscope_core::text::{capped, count, MAX_ECHO};

impl LoadError {
    pub fn new(file: &str) -> Self {
        LoadError {
            file: capped(file.to_string()),
            problems: Vec::new(),
            more: 0,
        }
    }

    pub fn single(
        file: &str,
        line: u64,
        column: u64,
        expected: impl Into<String>,
        found: impl Into<String>,
        hint: Option<String>,
    ) -> Self {
        let mut e = LoadError::new(file);
        e.push(Problem {
            line,
            column,
            expected: expected.into(),
            found: found.into(),
            hint,
        });
        e
    }

    pub fn push(&mut self, p: Problem) {
        if self.problems.len() < MAX_PROBLEMS {
            self.problems.push(Problem {
                // what was expected is the parser's own words (with at most
                // a header name or two): room for the list of known headers
                expected: capped_to(p.expected, 2 * MAX_ECHO),
                found: capped(p.found),
                hint: p.hint.map(capped),
                ..p
            });
        } else {
            self.more += 1;
        }
    }

    pub fn is_empty(&self) -> bool {
        self.problems.is_empty()
    }

    pub fn count(&self) -> u64 {
        self.problems.len() as u64 + self.more
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "expected {}, found {}", self.expected, self.found)?;
        if let Some(h) = &self.hint {
            write!(f, ". {h}")?;
        }
        Ok(())
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.problems.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            match (p.line, p.column) {
                (0, _) => write!(f, "{}: {p}", self.file)?,
                (l, 0) => write!(f, "{}:{l}: {p}", self.file)?,
                (l, c) => write!(f, "{}:{l}:{c}: {p}", self.file)?,
            }
        }
        if self.more > 0 {
            write!(f, "\n{}: … and {} more problems", self.file, self.more)?;
        }
        Ok(())
    }
}

impl std::error::Error for LoadError {}

/// Shortens a found value for display, and makes control characters visible.
pub fn shown(text: &[u8]) -> String {
    if std::str::from_utf8(text).is_err() {
        let hex: Vec<String> = text.iter().take(8).map(|b| format!("{b:02x}")).collect();
        return format!("bytes that are not UTF-8 ({})", hex.join(" "));
    }
    let s = String::from_utf8_lossy(text);
    let mut out: String = s
        .chars()
        .take(40)
        .map(|c| if c.is_control() { '·' } else { c })
        .collect();
    if s.chars().count() > 40 {
        out.push('…');
    }
    if out.is_empty() {
        "an empty field".into()
    } else {
        format!("'{out}'")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn echoed_text_is_capped() {
        let header = "h".repeat(12 << 20);
        let e = LoadError::single(
            &"f".repeat(5000),
            1,
            0,
            "a header",
            format!("'{header}'"),
            Some(header.clone()),
        );
        let text = e.to_string();
        assert!(text.len() < 2000, "{}", text.len());
        assert!(text.contains(&format!(
            "… ({} more characters)",
            (12 << 20) + 2 - MAX_ECHO
        )));
        // short text is kept whole, multi-byte characters are cut on their boundary
        assert_eq!(capped("é".repeat(MAX_ECHO)), "é".repeat(MAX_ECHO));
        assert_eq!(
            capped("é".repeat(MAX_ECHO + 1)),
            format!("{}… (1 more character)", "é".repeat(MAX_ECHO))
        );
    }
}
