//! The layers, held where the crates cannot hold them (ARCHITECTURE.md):
//! no import from a lower layer to a higher one (core imports nothing of the
//! project; trec-eval only core; io only core and trec-eval; in the root
//! crate only `src/app` and `src/bin` name the app), no cycle between the
//! modules of a crate (one module per file; a module's own submodules are
//! its contents, not its imports; test modules left out), and no HTML
//! written as strings below the views (crates/core, crates/io,
//! crates/trec-eval, the CLI, and the root crate's modules outside the
//! view layer named in `VIEWS`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The crates of the workspace, lowest first: (name, source directory,
/// root file, the project crates it may name).
const CRATES: &[(&str, &str, &str, &[&str])] = &[
    ("rankscope-core", "crates/core/src", "lib.rs", &[]),
    (
        "rankscope-trec-eval",
        "crates/trec-eval/src",
        "lib.rs",
        &["rankscope_core"],
    ),
    (
        "rankscope-io",
        "crates/io/src",
        "lib.rs",
        &["rankscope_core", "rankscope_trec_eval"],
    ),
    (
        "rankscope",
        "src",
        "lib.rs",
        &["rankscope_core", "rankscope_trec_eval", "rankscope_io"],
    ),
    (
        "rankscope (CLI)",
        "src/bin/rankscope",
        "main.rs",
        &[
            "rankscope",
            "rankscope_core",
            "rankscope_trec_eval",
            "rankscope_io",
        ],
    ),
    ("rankscope-python", "python/src", "lib.rs", &["rankscope"]),
];

/// Every project crate's name as code writes it.
const PROJECT: &[&str] = &[
    "rankscope",
    "rankscope_core",
    "rankscope_trec_eval",
    "rankscope_io",
    "rankscope_python",
];

/// The root crate's re-exports of the lower crates (`src/lib.rs`): a
/// `crate::` path through them leaves the crate.
const REEXPORTED: &[&str] = &[
    "core",
    "text",
    "named",
    "trec_eval",
    "parse",
    "example",
    "trec_format",
    "trec_relations",
];

/// HTML tags that, opened or closed in a string literal below the views,
/// mean HTML is being built there.
const TAGS: &[&str] = &[
    "a",
    "abbr",
    "b",
    "body",
    "br",
    "button",
    "canvas",
    "caption",
    "circle",
    "code",
    "dd",
    "details",
    "div",
    "dl",
    "dt",
    "em",
    "figcaption",
    "figure",
    "footer",
    "form",
    "g",
    "h1",
    "h2",
    "h3",
    "h4",
    "head",
    "header",
    "hr",
    "html",
    "i",
    "img",
    "input",
    "label",
    "li",
    "line",
    "math",
    "meta",
    "mfrac",
    "mi",
    "mn",
    "mo",
    "mrow",
    "msub",
    "msup",
    "nav",
    "ol",
    "option",
    "output",
    "p",
    "path",
    "polyline",
    "pre",
    "rect",
    "script",
    "section",
    "select",
    "small",
    "span",
    "strong",
    "style",
    "sub",
    "summary",
    "sup",
    "svg",
    "table",
    "tbody",
    "td",
    "text",
    "th",
    "thead",
    "title",
    "tr",
    "ul",
];

/// The view layer of the root crate: the files (or folders, ending in `/`)
/// that write HTML, and why. Every other file of the lower crates, the root
/// crate and the CLI writes none (MARKUP_ALLOWED aside). The wasm entry
/// points (src/bin/rankscope-*.rs) are the app's and are not read.
#[rustfmt::skip]
const VIEWS: &[(&str, &str)] = &[
    ("src/markup.rs", "the shared HTML pieces and escaping of the views"),
    ("src/compare/html.rs", "the Compare view's panel and controls"),
    ("src/diagnose/html.rs", "the Diagnose view's panels"),
    ("src/values.rs", "the metric and per-query tables"),
    ("src/math.rs", "the formulas as MathML"),
    ("src/plot/", "the charts as SVG"),
    ("src/app/", "the browser app"),
    ("src/session.rs", "the saved report's HTML document (report_html, report_script)"),
];

/// Markup allowed below the views: (file, tag as written, how many times,
/// why). A count that no longer matches fails too, so the list stays true.
#[rustfmt::skip]
const MARKUP_ALLOWED: &[(&str, &str, usize, &str)] = &[
    ("src/compare/page.rs", "section", 2, "the worker's answer wraps compare/html.rs's panel in its card"),
    ("src/compare/page.rs", "h2", 2, "the card's heading"),
];

/// A file's code with comments and the contents of string and character
/// literals blanked (lines kept), and its string literals with their line.
fn lex(src: &str) -> (String, Vec<(usize, String)>) {
    let b = src.as_bytes();
    let mut code = String::with_capacity(src.len());
    let mut strings = Vec::new();
    let mut line = 1;
    let mut i = 0;
    let blank = |s: &str, code: &mut String| {
        code.extend(s.chars().map(|c| if c == '\n' { '\n' } else { ' ' }))
    };
    while i < b.len() {
        let rest = &src[i..];
        let ident_before = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        if rest.starts_with("//") {
            let end = rest.find('\n').unwrap_or(rest.len());
            blank(&rest[..end], &mut code);
            i += end;
        } else if rest.starts_with("/*") {
            let (mut depth, mut j) = (1, 2);
            while depth > 0 && j < rest.len() {
                if rest[j..].starts_with("/*") {
                    depth += 1;
                    j += 2;
                } else if rest[j..].starts_with("*/") {
                    depth -= 1;
                    j += 2;
                } else {
                    j += rest[j..].chars().next().unwrap().len_utf8();
                }
            }
            line += rest[..j].matches('\n').count();
            blank(&rest[..j], &mut code);
            i += j;
        } else if !ident_before
            && (rest.starts_with("r\"")
                || rest.starts_with("r#")
                || rest.starts_with("br\"")
                || rest.starts_with("br#"))
        {
            let start = rest.find('r').unwrap() + 1;
            let hashes = rest[start..].bytes().take_while(|&c| c == b'#').count();
            if rest.as_bytes().get(start + hashes) != Some(&b'"') {
                code.push(b[i] as char);
                i += 1;
                continue;
            }
            let close = format!("\"{}", "#".repeat(hashes));
            let body_start = start + hashes + 1;
            let body_end = body_start + rest[body_start..].find(&close).unwrap();
            strings.push((line, rest[body_start..body_end].to_string()));
            let j = body_end + close.len();
            line += rest[..j].matches('\n').count();
            code.push_str("\"\"");
            code.extend(rest[..j].chars().filter(|&c| c == '\n'));
            i += j;
        } else if b[i] == b'"' || (!ident_before && rest.starts_with("b\"")) {
            let open = rest.find('"').unwrap() + 1;
            let mut j = open;
            while rest.as_bytes()[j] != b'"' {
                j += if rest.as_bytes()[j] == b'\\' { 2 } else { 1 };
            }
            strings.push((line, rest[open..j].to_string()));
            line += rest[..j + 1].matches('\n').count();
            code.push_str("\"\"");
            code.extend(rest[..j + 1].chars().filter(|&c| c == '\n'));
            i += j + 1;
        } else if b[i] == b'\'' {
            // a character literal ('x', '\n', '\u{1F600}', '"'), or a lifetime
            let mut chars = rest[1..].char_indices();
            let len = match chars.next() {
                Some((_, '\\')) => rest.get(3..).and_then(|r| r.find('\'')).map(|e| e + 4),
                Some((_, c)) if rest[1 + c.len_utf8()..].starts_with('\'') => {
                    Some(c.len_utf8() + 2)
                }
                _ => None,
            };
            match len {
                Some(n) => {
                    code.push_str("' '");
                    i += n;
                }
                None => {
                    code.push('\'');
                    i += 1;
                }
            }
        } else {
            let c = rest.chars().next().unwrap();
            if c == '\n' {
                line += 1;
            }
            code.push(c);
            i += c.len_utf8();
        }
    }
    (code, strings)
}

/// `code` without its `#[cfg(test)]` items (test modules, test-only
/// imports and functions), lines kept.
fn without_tests(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let item = &rest[at..];
        // the item ends at its first `;` before any `{`, or its block's end
        let semi = item.find(';').unwrap_or(item.len());
        let open = item.find('{').unwrap_or(item.len());
        let end = if semi < open {
            semi + 1
        } else {
            let mut depth = 0;
            let mut end = item.len();
            for (j, c) in item.char_indices().skip(open) {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            end = j + 1;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            end
        };
        out.extend(item[..end].chars().filter(|&c| c == '\n'));
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The paths after `::` from `at` (just after a first segment): every
/// segment list a brace group expands to.
fn paths_from(code: &str, at: usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) -> usize {
    let b = code.as_bytes();
    let skip_ws = |mut j: usize| {
        while j < b.len() && (b[j] as char).is_whitespace() {
            j += 1;
        }
        j
    };
    let mut j = skip_ws(at);
    let mut path = prefix;
    loop {
        if !code[j..].starts_with("::") {
            out.push(path);
            return j;
        }
        j = skip_ws(j + 2);
        if b.get(j) == Some(&b'{') {
            j += 1;
            loop {
                j = skip_ws(j);
                if b.get(j) == Some(&b'}') {
                    return j + 1;
                }
                let start = j;
                while j < b.len() && is_ident(b[j] as char) {
                    j += 1;
                }
                let mut inner = path.clone();
                if j > start && &code[start..j] != "self" {
                    inner.push(code[start..j].to_string());
                }
                j = paths_from(code, j, inner, out);
                // skip `as name` and anything up to `,` or `}`
                while j < b.len() && b[j] != b',' && b[j] != b'}' {
                    j += 1;
                }
                if b.get(j) == Some(&b',') {
                    j += 1;
                }
            }
        }
        let start = j;
        while j < b.len() && is_ident(b[j] as char) {
            j += 1;
        }
        if j == start {
            out.push(path);
            return j;
        }
        path.push(code[start..j].to_string());
        j = skip_ws(j);
    }
}

/// Every path a file's code names from `crate`, `super`, `self`, a crate
/// of the project or (in a `use`) a child module, as written.
fn named_paths(code: &str, children: &BTreeSet<String>) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let b = code.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if !is_ident(b[i] as char) || (i > 0 && (is_ident(b[i - 1] as char) || b[i - 1] == b'$')) {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && is_ident(b[i] as char) {
            i += 1;
        }
        let word = &code[start..i];
        let after_use = code[..start].trim_end().ends_with("use")
            || code[..start].trim_end().ends_with("use ::");
        let first = matches!(word, "crate" | "super" | "self")
            || PROJECT.contains(&word)
            || (after_use && children.contains(word));
        if first && code[i..].trim_start().starts_with("::") {
            let mut first = vec![word.to_string()];
            if after_use && children.contains(word) {
                first.insert(0, "self".into());
            }
            i = paths_from(code, i, first, &mut out);
        }
    }
    out
}

/// A source file: its path, its code (comments and literals blanked) and
/// its string literals with their line.
type Source = (PathBuf, String, Vec<(usize, String)>);

struct Crate {
    /// module path ("" the root, "parse::table") -> its file
    modules: BTreeMap<String, Source>,
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// A module file's `#[path = "file"] mod name;` declarations: (name, file
/// relative to the declaring file's directory).
fn path_modules(src: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut lines = src.lines().map(str::trim);
    while let Some(line) = lines.next() {
        let Some(attr) = line.strip_prefix("#[path") else {
            continue;
        };
        let file = attr.split('"').nth(1).unwrap_or_default().to_string();
        // the item, after any other attributes
        let item = lines.by_ref().find(|l| !l.starts_with("#[")).unwrap_or("");
        let name = item
            .trim_start_matches("pub ")
            .trim_start_matches("pub(crate) ")
            .strip_prefix("mod ")
            .map(|n| n.trim_end_matches(';').trim().to_string());
        if let Some(name) = name {
            out.push((name, file));
        }
    }
    out
}

fn read_crate(root: &Path, dir: &str, root_file: &str) -> Crate {
    let dir = root.join(dir);
    let mut files = Vec::new();
    rust_files(&dir, &mut files);
    let mut modules = BTreeMap::new();
    for path in files {
        let rel = path
            .strip_prefix(&dir)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        // the root crate's binaries are crates of their own
        if dir.ends_with("src") && rel.starts_with("bin/") {
            continue;
        }
        let rel = rel.trim_end_matches(".rs");
        let module = if rel == root_file.trim_end_matches(".rs") {
            String::new()
        } else {
            rel.trim_end_matches("/mod").replace('/', "::")
        };
        let (code, literals) = lex(&std::fs::read_to_string(&path).unwrap());
        modules.insert(module, (path, code, literals));
    }
    // a `#[path]` module is named where it is declared, not by its folder
    let declared: Vec<(String, PathBuf)> = (modules.iter())
        .flat_map(|(module, (path, _, _))| {
            let src = std::fs::read_to_string(path).unwrap();
            let parent = path.parent().unwrap().to_path_buf();
            path_modules(&src).into_iter().map(move |(name, file)| {
                let at = if module.is_empty() {
                    name
                } else {
                    format!("{module}::{name}")
                };
                (at, parent.join(file))
            })
        })
        .collect();
    for (at, file) in declared {
        let file = std::fs::canonicalize(&file).unwrap();
        let old = (modules.iter())
            .find(|(_, (p, _, _))| std::fs::canonicalize(p).unwrap() == file)
            .map(|(m, _)| m.clone())
            .unwrap_or_else(|| panic!("{}: no such module file", file.display()));
        let source = modules.remove(&old).unwrap();
        modules.insert(at, source);
    }
    Crate { modules }
}

fn segments(module: &str) -> Vec<String> {
    module
        .split("::")
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect()
}

/// The module of this crate `path` (named in `module`) leads to, if any.
fn resolve(krate: &Crate, module: &str, path: &[String]) -> Option<String> {
    let mut abs = segments(module);
    let mut rest = path;
    match path.first().map(String::as_str) {
        Some("crate") => {
            abs.clear();
            rest = &path[1..];
            if rest
                .first()
                .is_some_and(|s| REEXPORTED.contains(&s.as_str()))
                && !krate.modules.contains_key(&rest[0])
            {
                return None;
            }
        }
        Some("self") => rest = &path[1..],
        Some("super") => {
            while rest.first().is_some_and(|s| s == "super") {
                abs.pop();
                rest = &rest[1..];
            }
        }
        _ => return None,
    }
    abs.extend(rest.iter().cloned());
    (0..=abs.len())
        .rev()
        .map(|k| abs[..k].join("::"))
        .find(|m| krate.modules.contains_key(m))
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Each module's imports within its crate (its own submodules left out).
fn graph(krate: &Crate, tests: bool) -> BTreeMap<String, BTreeSet<String>> {
    let mut g = BTreeMap::new();
    for (module, (_, code, _)) in &krate.modules {
        let code = if tests {
            code.clone()
        } else {
            without_tests(code)
        };
        let children: BTreeSet<String> = (krate.modules.keys())
            .filter_map(|m| {
                let prefix = if module.is_empty() {
                    String::new()
                } else {
                    format!("{module}::")
                };
                m.strip_prefix(&prefix)
                    .filter(|c| !c.is_empty() && !c.contains("::"))
                    .map(String::from)
            })
            .collect();
        let mut edges = BTreeSet::new();
        for path in named_paths(&code, &children) {
            if let Some(to) = resolve(krate, module, &path) {
                let own =
                    module.is_empty() || to == *module || to.starts_with(&format!("{module}::"));
                if to != *module && !own {
                    edges.insert(to);
                }
            }
        }
        g.insert(module.clone(), edges);
    }
    g
}

/// The strongly connected components of more than one module (Tarjan).
fn cycles(g: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct T<'a> {
        g: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(t: &mut T<'a>, v: &'a str) {
        let n = t.index.len();
        t.index.insert(v, n);
        t.low.insert(v, n);
        t.stack.push(v);
        t.on.insert(v);
        for w in &t.g[v] {
            let w = w.as_str();
            if !t.index.contains_key(w) {
                visit(t, w);
                let l = t.low[v].min(t.low[w]);
                t.low.insert(v, l);
            } else if t.on.contains(w) {
                let l = t.low[v].min(t.index[w]);
                t.low.insert(v, l);
            }
        }
        if t.low[v] == t.index[v] {
            let mut comp = Vec::new();
            loop {
                let w = t.stack.pop().unwrap();
                t.on.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                t.out.push(comp);
            }
        }
    }
    let mut t = T {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in g.keys() {
        if !t.index.contains_key(v.as_str()) {
            visit(&mut t, v);
        }
    }
    t.out
}

fn rel(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap()
        .to_string_lossy()
        .replace('\\', "/")
}

#[test]
fn no_import_goes_up_a_layer() {
    let mut found = Vec::new();
    for &(name, dir, root_file, allowed) in CRATES {
        let krate = read_crate(&root(), dir, root_file);
        for (module, (path, code, _)) in &krate.modules {
            let file = rel(path);
            // by module, not folder: `#[path]` puts app/worker/protocol.rs at `protocol`
            let in_app = name == "rankscope" && (module == "app" || module.starts_with("app::"));
            let view = in_app || file.starts_with("src/bin/");
            for p in named_paths(code, &BTreeSet::new()) {
                let first = p[0].as_str();
                if PROJECT.contains(&first) && !allowed.contains(&first) {
                    found.push(format!("{file} ({name}): {}", p.join("::")));
                }
                // only the app and the binaries may name the app
                let app = (first == "crate" || first == "rankscope")
                    && p.get(1).is_some_and(|s| s == "app");
                let app = app
                    || resolve(&krate, module, &p)
                        .is_some_and(|m| m == "app" || m.starts_with("app::"));
                if app && !view {
                    found.push(format!("{file} ({name}): {} (the app)", p.join("::")));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "imports from a lower layer to a higher one:\n{}",
        found.join("\n")
    );
}

#[test]
fn no_cycle_between_the_modules_of_a_crate() {
    let mut found = Vec::new();
    for &(name, dir, root_file, _) in CRATES {
        let krate = read_crate(&root(), dir, root_file);
        let g = graph(&krate, false);
        for comp in cycles(&g) {
            let arrows: Vec<String> = (comp.iter())
                .map(|m| {
                    let to: Vec<&str> = g[m]
                        .iter()
                        .filter(|t| comp.contains(t))
                        .map(String::as_str)
                        .collect();
                    format!("  {m} -> {}", to.join(", "))
                })
                .collect();
            found.push(format!(
                "{name}: {}\n{}",
                comp.join(", "),
                arrows.join("\n")
            ));
        }
    }
    assert!(
        found.is_empty(),
        "module cycles (outside tests):\n{}",
        found.join("\n")
    );
}

#[test]
fn no_html_is_written_below_the_views() {
    let mut found = Vec::new();
    let mut seen = vec![0; MARKUP_ALLOWED.len()];
    let mut named = vec![false; VIEWS.len()];
    // the lower crates, the root crate and the CLI (not the Python binding)
    for &(_, dir, root_file, _) in &CRATES[..5] {
        let krate = read_crate(&root(), dir, root_file);
        for (path, code, literals) in krate.modules.values() {
            let file = rel(path);
            let view =
                |&(v, _): &(&str, &str)| file == v || (v.ends_with('/') && file.starts_with(v));
            if let Some(i) = VIEWS.iter().position(view) {
                named[i] = true;
                continue;
            }
            // the literals of the code outside test modules
            let kept: BTreeSet<usize> = {
                let code = without_tests(code);
                let lines: Vec<&str> = code.lines().collect();
                (1..=lines.len())
                    .filter(|&l| lines[l - 1].contains("\"\""))
                    .collect()
            };
            for (line, text) in literals.iter().filter(|(l, _)| kept.contains(l)) {
                for (at, _) in text.match_indices('<') {
                    let tag: String = text[at + 1..]
                        .trim_start_matches('/')
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric())
                        .collect();
                    let next = text[at + 1..].trim_start_matches('/')[tag.len()..]
                        .chars()
                        .next();
                    let closes = matches!(next, Some(' ' | '>' | '/' | '\\') | None);
                    if !TAGS.contains(&tag.to_ascii_lowercase().as_str()) || !closes {
                        continue;
                    }
                    match MARKUP_ALLOWED
                        .iter()
                        .position(|&(f, t, _, _)| f == file && t == tag)
                    {
                        Some(i) => seen[i] += 1,
                        None => found.push(format!("{file}:{line}: <{tag}> in \"{text}\"")),
                    }
                }
            }
        }
    }
    for (&(file, why), named) in VIEWS.iter().zip(named) {
        if !named {
            found.push(format!("{file} ({why}): listed as a view, no such file"));
        }
    }
    for (&(file, tag, times, why), n) in MARKUP_ALLOWED.iter().zip(seen) {
        if n != times {
            found.push(format!("{file}: <{tag}> ({why}) {n} times, listed {times}"));
        }
    }
    assert!(
        found.is_empty(),
        "HTML built as strings below the views (build it in the view layer):\n{}",
        found.join("\n")
    );
}

/// The checks above see what they are meant to: a cycle, an upward path
/// and a tag, in made-up code.
#[test]
fn the_checks_see_cycles_paths_and_tags() {
    let (code, literals) = lex(
        "use super::{a::{self, X}, b};\nlet s = \"<div class=x>\"; // crate::c\nlet c = '\"';\n",
    );
    let paths = named_paths(&code, &BTreeSet::new());
    assert_eq!(
        paths,
        [
            vec!["super", "a"],
            vec!["super", "a", "X"],
            vec!["super", "b"]
        ]
    );
    assert_eq!(literals, [(2, "<div class=x>".to_string())]);
    assert_eq!(
        without_tests("a\n#[cfg(test)]\nmod tests {\n{}\n}\nb"),
        "a\n\n\n\n\nb"
    );
    let g: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec!["a"]),
    ]
    .into_iter()
    .map(|(m, to)| (m.to_string(), to.into_iter().map(String::from).collect()))
    .collect();
    assert_eq!(cycles(&g), [vec!["a", "b", "c"]]);
    assert_eq!(
        path_modules("// x\n#[path = \"app/worker/protocol.rs\"]\npub mod protocol;\nmod other;\n"),
        [("protocol".to_string(), "app/worker/protocol.rs".to_string())]
    );
}

/// `src/app/worker/protocol.rs` is compiled as `crate::protocol`
/// (`#[path]` in src/lib.rs): the checks read it there.
#[test]
fn a_path_module_is_read_where_it_is_declared() {
    let krate = read_crate(&root(), "src", "lib.rs");
    let (path, _, _) = &krate.modules["protocol"];
    assert_eq!(rel(path), "src/app/worker/protocol.rs");
    assert!(!krate.modules.contains_key("app::worker::protocol"));
    let g = graph(&krate, false);
    assert!(
        g["app::worker"].contains("protocol"),
        "{:?}",
        g["app::worker"]
    );
}
