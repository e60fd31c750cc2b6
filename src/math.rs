//! Formulas as typeset math: a small TeX subset translated to MathML Core,
//! which browsers lay out natively (no font download, no script, no CDN).
//!
//! The subset is what the metric formulas need: `\frac{a}{b}`, `\sqrt{x}`,
//! sub- and superscripts (`x_i`, `x^{2}`), big operators with limits
//! (`\sum_{i=1}^{k}`, `\max_{m}`), `\text{…}`, `\hat{p}`, `\bar{k}`,
//! `\mathbb{1}`, `\mathcal{L}`, `\left( … \right)`, Greek letters and the usual relations.
//! One deliberate difference from TeX: a run of letters is one identifier
//! (`DCG`, `rel`, `TP` read as names, upright), a single letter is a variable
//! (italic), so formulas stay short to write.

/// `tex` as a `<math>` element (display style when `block`), or what is wrong
/// with it. The output is escaped: text from the formula never becomes markup.
pub fn to_mathml(tex: &str, block: bool) -> Result<String, String> {
    let mut p = Parser {
        chars: tex.chars().collect(),
        at: 0,
    };
    let body = p.expr(None)?;
    if p.at < p.chars.len() {
        return Err(format!(
            "unexpected '{}' at {} in {tex:?}",
            p.chars[p.at], p.at
        ));
    }
    Ok(format!(
        "<math{}><mrow>{body}</mrow></math>",
        if block { " display=\"block\"" } else { "" }
    ))
}

struct Parser {
    chars: Vec<char>,
    at: usize,
}

/// One parsed item before scripts are attached.
struct Atom {
    xml: String,
    /// Limits go under and over it (∑, max) rather than to the side.
    big: bool,
}

/// A letter of an identifier: Latin or Greek (not Σ, the sum), as the
/// formulas write them (no Unicode table in the page's wasm).
fn is_letter(c: char) -> bool {
    c.is_ascii_alphabetic() || (matches!(c, 'Α'..='ω') && c != 'Σ')
}

fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

fn mo(s: &str) -> String {
    format!("<mo>{}</mo>", esc(s))
}

fn mi(s: &str) -> String {
    format!("<mi>{}</mi>", esc(s))
}

/// Symbols written as commands: (name, character, is an operator).
const SYMBOLS: &[(&str, &str, bool)] = &[
    ("alpha", "α", false),
    ("beta", "β", false),
    ("gamma", "γ", false),
    ("delta", "δ", false),
    ("epsilon", "ε", false),
    ("varepsilon", "ε", false),
    ("mu", "μ", false),
    ("rho", "ρ", false),
    ("sigma", "σ", false),
    ("tau", "τ", false),
    ("Delta", "Δ", false),
    ("infty", "∞", false),
    ("ell", "ℓ", false),
    ("cdot", "·", true),
    ("times", "×", true),
    ("le", "≤", true),
    ("leq", "≤", true),
    ("ge", "≥", true),
    ("geq", "≥", true),
    ("ne", "≠", true),
    ("neq", "≠", true),
    ("approx", "≈", true),
    ("in", "∈", true),
    ("notin", "∉", true),
    ("cap", "∩", true),
    ("cup", "∪", true),
    ("to", "→", true),
    ("mid", "|", true),
    ("pm", "±", true),
    ("ldots", "…", true),
    ("dots", "…", true),
    ("lvert", "|", true),
    ("rvert", "|", true),
    ("{", "{", true),
    ("}", "}", true),
    ("%", "%", true),
    ("#", "#", true),
];

/// Big operators: their limits go under and over.
const BIG: &[(&str, &str)] = &[
    ("sum", "∑"),
    ("prod", "∏"),
    ("int", "∫"),
    ("max", "max"),
    ("min", "min"),
    ("argmax", "argmax"),
];

/// Named functions, upright, no limits.
const FUNCTIONS: &[&str] = &["log", "ln", "exp", "sgn"];

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.at += 1;
        }
    }

    /// Items up to `close` (a `}` or the end of `\right`'s group) or the end.
    fn expr(&mut self, close: Option<char>) -> Result<String, String> {
        let mut out = String::new();
        loop {
            self.skip_space();
            match self.peek() {
                None => {
                    return match close {
                        None => Ok(out),
                        Some('\u{0}') => Err("\\left without \\right".into()),
                        Some(c) => Err(format!("missing '{c}'")),
                    }
                }
                Some(c) if Some(c) == close => {
                    self.at += 1;
                    return Ok(out);
                }
                Some('}') => return Err(format!("unbalanced '}}' at {}", self.at)),
                Some(_) => {
                    if close.is_none() && self.at_command("right") {
                        return Err("\\right without \\left".into());
                    }
                    if close == Some('\u{0}') && self.at_command("right") {
                        return Ok(out);
                    }
                    let item = self.item()?;
                    out.push_str(&item);
                }
            }
        }
    }

    fn at_command(&self, name: &str) -> bool {
        self.peek() == Some('\\')
            && self.chars[self.at + 1..].starts_with(&name.chars().collect::<Vec<_>>())
            && !self
                .chars
                .get(self.at + 1 + name.len())
                .is_some_and(|c| c.is_ascii_alphabetic())
    }

    /// An atom with its sub- and superscripts.
    fn item(&mut self) -> Result<String, String> {
        let atom = self.atom()?;
        let (mut sub, mut sup) = (None, None);
        loop {
            self.skip_space();
            match self.peek() {
                Some('_') if sub.is_none() => {
                    self.at += 1;
                    sub = Some(self.argument()?);
                }
                Some('^') if sup.is_none() => {
                    self.at += 1;
                    sup = Some(self.argument()?);
                }
                Some(c @ ('_' | '^')) => return Err(format!("double '{c}' at {}", self.at)),
                _ => break,
            }
        }
        let (under, over) = if atom.big {
            ("munder", "mover")
        } else {
            ("msub", "msup")
        };
        Ok(match (sub, sup) {
            (None, None) => atom.xml,
            (Some(b), None) => format!("<{under}>{}<mrow>{b}</mrow></{under}>", atom.xml),
            (None, Some(p)) => format!("<{over}>{}<mrow>{p}</mrow></{over}>", atom.xml),
            (Some(b), Some(p)) => {
                let tag = if atom.big { "munderover" } else { "msubsup" };
                format!(
                    "<{tag}>{}<mrow>{b}</mrow><mrow>{p}</mrow></{tag}>",
                    atom.xml
                )
            }
        })
    }

    /// A braced group or a single atom, as the argument of a command or script.
    fn argument(&mut self) -> Result<String, String> {
        self.skip_space();
        match self.peek() {
            Some('{') => {
                self.at += 1;
                self.expr(Some('}'))
            }
            None => Err("a script or command lacks its argument".into()),
            Some(_) => {
                // a single character (x^2 is x², not x^{23} for x^23)
                let c = self.chars[self.at];
                if c.is_ascii_alphanumeric() {
                    self.at += 1;
                    Ok(if c.is_ascii_digit() {
                        format!("<mn>{c}</mn>")
                    } else {
                        mi(&c.to_string())
                    })
                } else {
                    Ok(self.atom()?.xml)
                }
            }
        }
    }

    /// Raw text up to the matching `}` (for `\text{…}`).
    fn raw_group(&mut self) -> Result<String, String> {
        self.skip_space();
        if self.peek() != Some('{') {
            return Err(format!("expected '{{' at {}", self.at));
        }
        self.at += 1;
        let start = self.at;
        let mut depth = 0;
        while let Some(c) = self.peek() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    let s: String = self.chars[start..self.at].iter().collect();
                    self.at += 1;
                    return Ok(s);
                }
                '}' => depth -= 1,
                _ => {}
            }
            self.at += 1;
        }
        Err("missing '}'".into())
    }

    fn atom(&mut self) -> Result<Atom, String> {
        let plain = |xml: String| Ok(Atom { xml, big: false });
        let c = self.peek().ok_or("unexpected end")?;
        if c == '{' {
            self.at += 1;
            let inner = self.expr(Some('}'))?;
            return plain(format!("<mrow>{inner}</mrow>"));
        }
        if c.is_ascii_digit()
            || (c == '.'
                && self
                    .chars
                    .get(self.at + 1)
                    .is_some_and(|d| d.is_ascii_digit()))
        {
            let start = self.at;
            while self.peek().is_some_and(|d| d.is_ascii_digit() || d == '.') {
                self.at += 1;
            }
            let n: String = self.chars[start..self.at].iter().collect();
            return plain(format!("<mn>{n}</mn>"));
        }
        if is_letter(c) {
            let start = self.at;
            while self.peek().is_some_and(is_letter) {
                self.at += 1;
            }
            let word: String = self.chars[start..self.at].iter().collect();
            return plain(if word.chars().count() == 1 {
                mi(&word)
            } else {
                format!("<mi mathvariant=\"normal\">{}</mi>", esc(&word))
            });
        }
        if c == '\\' {
            self.at += 1;
            return self.command();
        }
        self.at += 1;
        match c {
            'Σ' => Ok(Atom {
                xml: mo("∑"),
                big: true,
            }),
            '-' => plain(mo("−")),
            '\'' => plain(mo("′")),
            c => plain(mo(&c.to_string())),
        }
    }

    fn command(&mut self) -> Result<Atom, String> {
        let start = self.at;
        let first = self.peek().ok_or("a lone '\\' at the end")?;
        if first.is_ascii_alphabetic() {
            while self.peek().is_some_and(|c| c.is_ascii_alphabetic()) {
                self.at += 1;
            }
        } else {
            self.at += 1;
        }
        let name: String = self.chars[start..self.at].iter().collect();
        let plain = |xml: String| Ok(Atom { xml, big: false });
        match name.as_str() {
            "frac" => {
                let (a, b) = (self.argument()?, self.argument()?);
                plain(format!("<mfrac><mrow>{a}</mrow><mrow>{b}</mrow></mfrac>"))
            }
            "sqrt" => plain(format!("<msqrt>{}</msqrt>", self.argument()?)),
            "text" | "mathrm" | "operatorname" => {
                let t = self.raw_group()?;
                plain(if name == "text" {
                    format!("<mtext>{}</mtext>", esc(&t))
                } else {
                    format!("<mi mathvariant=\"normal\">{}</mi>", esc(&t))
                })
            }
            "mathbb" | "mathcal" => {
                let t = self.raw_group()?;
                let mapped: String = t
                    .chars()
                    .map(|c| match c {
                        '1' => '𝟙',
                        'E' => '𝔼',
                        'P' => 'ℙ',
                        'R' => 'ℝ',
                        'L' => 'ℒ',
                        c => c,
                    })
                    .collect();
                plain(mi(&mapped))
            }
            "hat" | "bar" | "tilde" => {
                let accent = match name.as_str() {
                    "hat" => "^",
                    "bar" => "¯",
                    _ => "~",
                };
                let a = self.argument()?;
                plain(format!(
                    "<mover accent=\"true\"><mrow>{a}</mrow><mo>{accent}</mo></mover>"
                ))
            }
            "left" => {
                let open = self.delimiter()?;
                let inner = self.expr(Some('\u{0}'))?;
                if !self.at_command("right") {
                    return Err("\\left without \\right".into());
                }
                self.at += "\\right".len();
                let close = self.delimiter()?;
                plain(format!(
                    "<mrow><mo stretchy=\"true\">{}</mo>{inner}<mo stretchy=\"true\">{}</mo></mrow>",
                    esc(&open),
                    esc(&close)
                ))
            }
            "quad" => plain("<mspace width=\"1em\"></mspace>".into()),
            "," => plain("<mspace width=\"0.17em\"></mspace>".into()),
            ";" => plain("<mspace width=\"0.28em\"></mspace>".into()),
            _ => {
                if let Some((_, sym)) = BIG.iter().find(|(n, _)| *n == name) {
                    return Ok(Atom {
                        xml: mo(sym),
                        big: true,
                    });
                }
                if FUNCTIONS.contains(&name.as_str()) {
                    return plain(format!("<mi mathvariant=\"normal\">{name}</mi>"));
                }
                if let Some((_, sym, op)) = SYMBOLS.iter().find(|(n, ..)| *n == name) {
                    return plain(if *op { mo(sym) } else { mi(sym) });
                }
                Err(format!("unknown command \\{name}"))
            }
        }
    }

    /// The delimiter after `\left` / `\right` (`.` for none).
    fn delimiter(&mut self) -> Result<String, String> {
        self.skip_space();
        let c = self
            .peek()
            .ok_or("a delimiter is missing after \\left or \\right")?;
        self.at += 1;
        Ok(match c {
            '.' => String::new(),
            '\\' => {
                let start = self.at;
                while self.peek().is_some_and(|c| c.is_ascii_alphabetic()) {
                    self.at += 1;
                }
                if start == self.at {
                    self.at += 1;
                }
                let name: String = self.chars[start..self.at].iter().collect();
                SYMBOLS
                    .iter()
                    .find(|(n, ..)| *n == name)
                    .map(|(_, s, _)| s.to_string())
                    .ok_or(format!("unknown delimiter \\{name}"))?
            }
            c => c.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_formula_typesets() {
        for m in crate::core::registry::METRICS {
            assert_ne!(
                m.tex(),
                m.formula,
                "{:?} {} has no TeX formula",
                m.kind,
                m.base
            );
            to_mathml(m.tex(), true).unwrap_or_else(|e| panic!("{:?} {}: {e}", m.kind, m.base));
        }
    }

    fn m(t: &str) -> String {
        to_mathml(t, false).unwrap()
    }

    #[test]
    fn fractions_scripts_and_big_operators() {
        assert_eq!(
            m(r"\frac{a}{b}"),
            "<math><mrow><mfrac><mrow><mi>a</mi></mrow><mrow><mi>b</mi></mrow></mfrac></mrow></math>"
        );
        assert_eq!(
            m("x_i^2"),
            "<math><mrow><msubsup><mi>x</mi><mrow><mi>i</mi></mrow><mrow><mn>2</mn></mrow></msubsup></mrow></math>"
        );
        let sum = m(r"\sum_{i=1}^{k} rel_i");
        assert!(sum.starts_with("<math><mrow><munderover><mo>∑</mo><mrow><mi>i</mi><mo>=</mo><mn>1</mn></mrow><mrow><mi>k</mi></mrow></munderover>"), "{sum}");
        assert!(
            sum.contains("<msub><mi mathvariant=\"normal\">rel</mi><mrow><mi>i</mi></mrow></msub>")
        );
        assert!(m(r"\max_{m} P_m").contains("<munder><mo>max</mo>"));
        assert!(m(r"\log_2(i+1)").starts_with("<math><mrow><msub><mi mathvariant=\"normal\">log</mi><mrow><mn>2</mn></mrow></msub><mo>(</mo>"));
    }

    #[test]
    fn words_numbers_text_and_symbols() {
        assert_eq!(
            m("DCG@k = 6.151"),
            "<math><mrow><mi mathvariant=\"normal\">DCG</mi><mo>@</mo><mi>k</mi><mo>=</mo><mn>6.151</mn></mrow></math>"
        );
        assert!(
            m(r"\text{if } a \le b").contains("<mtext>if </mtext><mi>a</mi><mo>≤</mo><mi>b</mi>")
        );
        assert!(m(r"\mathbb{1}[x]").contains("<mi>𝟙</mi>"));
        assert!(m(r"\left( \frac{1}{2} \right)").contains("<mo stretchy=\"true\">(</mo>"));
        assert!(m("a - b").contains("<mo>−</mo>"));
        assert!(to_mathml("x", true)
            .unwrap()
            .starts_with("<math display=\"block\">"));
    }

    #[test]
    fn text_is_escaped() {
        let out = m(r"\text{<script>&} a < b");
        assert!(out.contains("<mtext>&lt;script&gt;&amp;</mtext>"), "{out}");
        assert!(out.contains("<mo>&lt;</mo>"));
        assert!(!out.contains("<script"));
    }

    #[test]
    fn errors_are_reported_never_panics() {
        for bad in [
            r"\frac{a}",
            "{a",
            "a}",
            r"\nope",
            "x^",
            r"\left( a",
            r"\right)",
            "x_1_2",
            "\\",
        ] {
            assert!(to_mathml(bad, false).is_err(), "{bad}");
        }
        // any input: an answer, never a panic
        let alphabet: Vec<char> = r"\{}_^ab1.(frac)sqrt left right text ".chars().collect();
        let mut s = 0x9e37_79b9_u64;
        for _ in 0..5000 {
            let len = (s % 24) as usize;
            let t: String = (0..len)
                .map(|_| {
                    s ^= s << 13;
                    s ^= s >> 7;
                    s ^= s << 17;
                    alphabet[(s % alphabet.len() as u64) as usize]
                })
                .collect();
            let _ = to_mathml(&t, false);
        }
    }
}
