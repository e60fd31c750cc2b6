//! What a link, a saved session and a saved report carry besides the app: the
//! view state (as a readable URL fragment) and the loaded data (as the checked
//! transfer form of [`crate::parse::transfer`]). Pure Rust, tested natively;
//! the page (`app/share.rs`) only reads and writes the browser's side of it.
//!
//! Fragment: `#tab=binary&threshold=0.3&k=1,5,10&hidden=binary/model_b`.
//! Only settings that differ from the defaults are written; keys are the field
//! names below and the conventions' names (CONVENTIONS.md), values are the
//! ones shown in the conventions panel; list items are separated by commas
//! (a comma inside an item is percent-encoded). The fragment is never sent to
//! a server.

use crate::core::conventions::{self, TABLE};
use crate::core::curves::CurveMetric;
use crate::core::evaluate::Conventions;
use crate::core::registry::Kind;
use crate::core::Named;
use crate::parse::transfer::{self, Outcome};
use crate::parse::Workspace;

/// Everything that makes a view, apart from the data.
#[derive(Clone, Debug, PartialEq)]
pub struct ViewState {
    /// The open tab.
    pub tab: Option<Kind>,
    /// The metric columns, as `kind.base` (e.g. `ranking.ndcg`).
    pub metrics: Vec<String>,
    /// The cutoffs of the metric columns.
    pub k: Vec<usize>,
    /// Hidden models, as `kind/name` ([`hidden_key`], e.g. `ranking/bm25`).
    pub hidden: Vec<String>,
    /// The baseline model of the difference columns.
    pub baseline: Option<String>,
    /// The table shows (and its Markdown and LaTeX exports write) each
    /// value's difference from the baseline.
    pub diff: bool,
    /// Columns left out of the table and its exports, as `kind.metric`
    /// (`ranking.ndcg@20`).
    pub off: Vec<String>,
    /// `system`, `light` or `dark`.
    pub theme: String,
    /// The elbow chart's metric and its last cutoff (0: the longest list).
    pub curve: CurveMetric,
    pub p: usize,
    pub per_query: bool,
    /// Files the view was made from that are not in the link (dropped locally):
    /// the recipient must drop them.
    pub files: Vec<String>,
    /// Written as top-level keys of the fragment, by their CONVENTIONS.md names.
    pub conv: Conventions,
    /// The significance tests and the Compare view's pair (`test`,
    /// `correction`, `alpha`, `seed`, `ci`, `vs`, `on`).
    pub tests: crate::compare::page::Settings,
    /// The Diagnostics panel's options (`diag`: `crate::diagnose::Options`'
    /// text, only what differs from the defaults).
    pub diagnose: String,
}

impl Default for ViewState {
    fn default() -> Self {
        ViewState {
            tab: None,
            metrics: DEFAULT_METRICS.iter().map(|s| s.to_string()).collect(),
            k: vec![5, 10, 20],
            hidden: Vec::new(),
            baseline: None,
            diff: true,
            off: Vec::new(),
            theme: "system".into(),
            curve: CurveMetric::Ndcg,
            p: 0,
            per_query: false,
            files: Vec::new(),
            conv: Conventions::default(),
            tests: Default::default(),
            diagnose: String::new(),
        }
    }
}

/// The metric columns shown before anyone picks others.
pub const DEFAULT_METRICS: &[&str] = &[
    "ranking.ndcg",
    "ranking.map",
    "ranking.precision",
    "ranking.recall",
    "ranking.mrr",
    "ranking.hit_rate",
    "ranking.r_precision",
    "ranking.bpref",
    "binary.roc_auc",
    "binary.average_precision",
    "binary.log_loss",
    "binary.brier",
    "binary.accuracy",
    "binary.precision",
    "binary.recall",
    "binary.f1",
    "binary.mcc",
    "multiclass.acc",
    "multiclass.mrr",
    "multiclass.ndcg",
    "multiclass.f1_weighted",
    "multiclass.f1_macro",
    "multiclass.cross_entropy",
    "multiclass.perplexity",
    "ratings.mae",
    "ratings.rmse",
    "ratings.rmse_per_user",
    "ratings.rmse_per_item",
    "ratings.spearman",
    "ratings.spearman_per_user",
    "ratings.fcp",
];

/// Percent-encodes everything but unreserved characters (RFC 3986) and the
/// few that read well in a fragment (`/`, `:`, `@`); `,` is always encoded so
/// list items may contain it.
/// The key of a hidden model in links and sessions: the kind's stable name
/// ([`crate::core::Named`]), a slash, the model's name.
pub fn hidden_key(kind: Kind, name: &str) -> String {
    format!("{}/{name}", kind.name())
}

/// A hidden model's key as earlier links and sessions spelled it (the
/// kind's Rust name, `Ranking/bm25`), in today's form; others as they are.
fn stable_hidden_key(key: String) -> String {
    let old = [
        ("Ranking/", Kind::Ranking),
        ("Binary/", Kind::Binary),
        ("Multiclass/", Kind::Multiclass),
        ("Ratings/", Kind::Ratings),
    ];
    for (prefix, kind) in old {
        if let Some(name) = key.strip_prefix(prefix) {
            return hidden_key(kind, name);
        }
    }
    key
}

pub fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for &b in s.as_bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/:@".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Decodes `%XX` escapes (and `+` as a space, as forms write it); invalid
/// escapes are kept as written, invalid UTF-8 replaced.
pub fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push((h * 16 + l) as u8);
                    i += 3;
                    continue;
                }
                _ => out.push(b'%'),
            },
            b'+' => out.push(b' '),
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// An enum value's name, as the fragment writes it.
fn name<T: Named>(value: &T) -> String {
    value.name().to_string()
}

fn list<T: ToString>(items: &[T]) -> String {
    items
        .iter()
        .map(|i| percent_encode(&i.to_string()))
        .collect::<Vec<_>>()
        .join(",")
}

fn flag(b: bool) -> String {
    if b { "1" } else { "0" }.into()
}

impl ViewState {
    /// Model `old` of `kind` is now called `new`: what the view keys by a
    /// model's name follows it (hidden, the baseline, the Compare view's
    /// model, its own threshold, the groups it is in: a pattern naming it
    /// names the new name, a pattern it matched and the new name does not
    /// gets the new name as an alternative, `pattern|new`).
    pub fn rename_model(&mut self, kind: Kind, old: &str, new: &str) {
        let key = hidden_key(kind, old);
        for h in self.hidden.iter_mut().filter(|h| **h == key) {
            *h = hidden_key(kind, new);
        }
        for name in [&mut self.baseline, &mut self.tests.vs] {
            if name.as_deref() == Some(old) {
                *name = Some(new.to_string());
            }
        }
        self.conv.rename_model(old, new);
        let mut text = String::new();
        for (i, part) in self.diagnose.split(';').enumerate() {
            if i > 0 {
                text.push(';');
            }
            let Some(groups) = part.strip_prefix("group:") else {
                text.push_str(part);
                continue;
            };
            text.push_str("group:");
            for (j, group) in groups.split(',').enumerate() {
                if j > 0 {
                    text.push(',');
                }
                let (name, pattern) = group.split_once('=').unwrap_or((group, ""));
                let named = pattern.split('|').any(|p| p.trim() == old);
                let pattern = if named {
                    (pattern.split('|'))
                        .map(|p| if p.trim() == old { new } else { p })
                        .collect::<Vec<_>>()
                        .join("|")
                } else if crate::text::glob(pattern.trim(), old)
                    && !crate::text::glob(pattern.trim(), new)
                {
                    format!("{pattern}|{new}")
                } else {
                    pattern.to_string()
                };
                text.push_str(name);
                text.push('=');
                text.push_str(&pattern);
            }
        }
        self.diagnose = text;
    }

    /// Every setting as (fragment key, encoded value), in a fixed order.
    /// Written by hand, not through serde's maps: a few KB of wasm instead of
    /// tens; `every_convention_has_a_fragment_key` keeps it complete.
    fn entries(&self) -> Vec<(&'static str, String)> {
        let mut entries = vec![
            ("tab", self.tab.map(|k| name(&k)).unwrap_or_default()),
            ("metrics", list(&self.metrics)),
            ("k", list(&self.k)),
            ("hidden", list(&self.hidden)),
            (
                "baseline",
                percent_encode(self.baseline.as_deref().unwrap_or("")),
            ),
            ("diff", flag(self.diff)),
            ("off", list(&self.off)),
            ("theme", percent_encode(&self.theme)),
            ("curve", name(&self.curve)),
            ("p", self.p.to_string()),
            ("per_query", flag(self.per_query)),
            ("files", list(&self.files)),
        ];
        // the conventions, as the table names them (stable names and
        // numbers need no escaping: `>=` reads back as the value of its key)
        entries.extend(TABLE.iter().map(|c| (c.key, (c.get)(&self.conv))));
        // the models' own thresholds: `name:t` (a name may hold `:`)
        let own: Vec<String> = (self.conv.thresholds.iter())
            .map(|(n, t)| format!("{n}:{t}"))
            .collect();
        entries.extend([
            (conventions::OWN_THRESHOLDS, list(&own)),
            ("test", name(&self.tests.test)),
            ("correction", name(&self.tests.correction)),
            ("alpha", self.tests.alpha.to_string()),
            ("seed", self.tests.seed.to_string()),
            ("ci", flag(self.tests.ci)),
            ("vs", percent_encode(self.tests.vs.as_deref().unwrap_or(""))),
            ("on", percent_encode(self.tests.on.as_deref().unwrap_or(""))),
            ("diag", percent_encode(&self.diagnose)),
        ]);
        entries
    }

    /// Sets one setting from its fragment text; `Err(true)`: not a key,
    /// `Err(false)`: not a valid value (nothing changed either way).
    fn set(&mut self, key: &str, raw: &str) -> Result<(), bool> {
        fn enumerated<T: Named>(raw: &str) -> Result<T, bool> {
            T::named(&percent_decode(raw)).ok_or(false)
        }
        fn number<T: std::str::FromStr>(raw: &str) -> Result<T, bool> {
            percent_decode(raw).trim().parse().map_err(|_| false)
        }
        fn real(raw: &str) -> Result<f64, bool> {
            crate::text::parse_f64(percent_decode(raw).trim()).ok_or(false)
        }
        fn boolean(raw: &str) -> Result<bool, bool> {
            match percent_decode(raw).as_str() {
                "1" | "true" | "yes" | "on" | "" => Ok(true),
                "0" | "false" | "no" | "off" => Ok(false),
                _ => Err(false),
            }
        }
        let items = || -> Vec<String> {
            raw.split(',')
                .filter(|s| !s.is_empty())
                .map(percent_decode)
                .collect()
        };
        let optional = || Some(percent_decode(raw)).filter(|s| !s.is_empty());
        match key {
            "tab" => {
                self.tab = optional()
                    .map(|t| Kind::named(&t).ok_or(false))
                    .transpose()?
            }
            "metrics" => self.metrics = items(),
            "k" => {
                self.k = items()
                    .iter()
                    .map(|k| k.trim().parse().map_err(|_| false))
                    .collect::<Result<_, _>>()?
            }
            "hidden" => self.hidden = items().into_iter().map(stable_hidden_key).collect(),
            "baseline" => self.baseline = optional(),
            "diff" => self.diff = boolean(raw)?,
            "off" => self.off = items(),
            "theme" => {
                let theme = percent_decode(raw);
                if !["system", "light", "dark"].contains(&theme.as_str()) {
                    return Err(false);
                }
                self.theme = theme;
            }
            "curve" => self.curve = enumerated(raw)?,
            "p" => self.p = number(raw)?,
            "per_query" => self.per_query = boolean(raw)?,
            "files" => self.files = items(),
            "test" => self.tests.test = enumerated(raw)?,
            "correction" => self.tests.correction = enumerated(raw)?,
            "alpha" => {
                let a: f64 = real(raw)?;
                if !(a > 0.0 && a < 1.0) {
                    return Err(false);
                }
                self.tests.alpha = a;
            }
            "seed" => {
                // read as f64 (the page has that reader already): a whole number below 2^53
                let seed: f64 = real(raw)?;
                if !((0.0..9007199254740992.0).contains(&seed) && seed.fract() == 0.0) {
                    return Err(false);
                }
                self.tests.seed = seed as u64;
            }
            "ci" => self.tests.ci = boolean(raw)?,
            "vs" => self.tests.vs = optional(),
            "on" => self.tests.on = optional(),
            "diag" => self.diagnose = optional().unwrap_or_default(),
            conventions::OWN_THRESHOLDS => {
                // a name given twice: its last threshold, as the CLI's flags
                let mut own = Conventions::default();
                for item in items() {
                    let (name, t) = item.rsplit_once(':').ok_or(false)?;
                    let t = crate::text::parse_f64(t.trim()).filter(|t| t.is_finite());
                    own.set_threshold(Some(name), t.ok_or(false)?);
                }
                self.conv.thresholds = own.thresholds;
            }
            // any whole number, as trec_eval's -l takes (the CLI asks for >= 1)
            "relevance_level" => self.conv.relevance_level = number(raw)?,
            _ if TABLE.iter().any(|c| c.key == key) => {
                conventions::set(&mut self.conv, key, &percent_decode(raw)).map_err(|_| false)?
            }
            _ => return Err(true),
        }
        Ok(())
    }

    /// The fragment (without `#`) holding every setting that differs from the
    /// defaults; empty when all are defaults.
    pub fn to_fragment(&self) -> String {
        let default = ViewState::default().entries();
        self.entries()
            .into_iter()
            .zip(default)
            .filter(|((_, now), (_, was))| now != was)
            .map(|((key, value), _)| format!("{key}={value}"))
            .collect::<Vec<_>>()
            .join("&")
    }

    /// Reads a fragment (with or without `#`). Every recognised setting is
    /// applied over the defaults; unknown keys and values that do not fit are
    /// skipped and reported, one line each.
    pub fn from_fragment(fragment: &str) -> (ViewState, Vec<String>) {
        let mut view = ViewState::default();
        let mut skipped = Vec::new();
        for pair in fragment
            .trim_start_matches('#')
            .split('&')
            .filter(|p| !p.is_empty())
        {
            let (raw_key, raw_value) = pair.split_once('=').unwrap_or((pair, ""));
            let key = percent_decode(raw_key);
            let mut trial = view.clone();
            let key = crate::parse::error::capped(key);
            match trial.set(&key, raw_value) {
                Ok(()) => view = trial,
                Err(true) => skipped.push(format!("'{key}' is not a view setting")),
                Err(false) => skipped.push(format!(
                    "'{}' is not a valid value of '{key}'",
                    crate::parse::error::capped(percent_decode(raw_value))
                )),
            }
            if key == "k" {
                let (ks, note) = crate::core::registry::capped_cutoffs(std::mem::take(&mut view.k));
                view.k = ks;
                skipped.extend(note);
            }
        }
        (view, skipped)
    }
}

/// The conventions of `kind` in force that differ from the defaults, as
/// the fragment writes them (`gain=exponential`): what the page says above a
/// table whose values they change.
pub fn non_default_conventions(conv: &Conventions, kind: Kind) -> Vec<String> {
    let mut keys = crate::core::conventions::keys(kind);
    if kind == Kind::Binary {
        keys.push(crate::core::conventions::OWN_THRESHOLDS);
    }
    let view = ViewState {
        conv: conv.clone(),
        ..ViewState::default()
    };
    view.to_fragment()
        .split('&')
        .filter(|pair| keys.contains(&pair.split('=').next().unwrap_or_default()))
        .map(str::to_string)
        .collect()
}

/// The first line of a session file.
pub const SESSION_MAGIC: &[u8] = b"RANKSCOPE-SESSION 2\n";
/// The first line of the sessions written before they carried a checksum
/// (still read: their data is validated, but damage cannot be told).
pub const SESSION_MAGIC_V1: &[u8] = b"RANKSCOPE-SESSION 1\n";

/// The CRC-32 of `bytes` (IEEE 802.3, as zlib, gzip and PNG compute it:
/// reflected polynomial 0xEDB88320, initial and final XOR 0xFFFFFFFF). It
/// detects every error of up to 3 bits and every burst of up to 32 in a
/// session. Byte by byte through one 1 KB table built on first use (the
/// crc32fast crate's 16 KB of tables would cost the page 15 KB gzipped; it
/// is this function's reference in the tests).
pub fn crc32(bytes: &[u8]) -> u32 {
    static TABLE: std::sync::OnceLock<[u32; 256]> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut t = [0u32; 256];
        for (i, slot) in t.iter_mut().enumerate() {
            let mut c = i as u32;
            for _ in 0..8 {
                c = if c & 1 == 1 {
                    0xEDB8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
            *slot = c;
        }
        t
    });
    !bytes.iter().fold(!0u32, |crc, &b| {
        table[((crc ^ b as u32) & 0xFF) as usize] ^ (crc >> 8)
    })
}

/// A session file: the magic line; `crc32 HEX LENGTH`, the CRC-32 and the
/// byte length of everything after that line; the view as a fragment line;
/// then the data (every loaded data set as parsed files,
/// [`transfer::encode_many`]).
pub fn encode_session(ws: &Workspace, view: &ViewState) -> Vec<u8> {
    let files: Vec<(String, Outcome)> = ws
        .to_files()
        .into_iter()
        .map(|(name, parsed)| (name, Ok(parsed)))
        .collect();
    let mut payload = view.to_fragment().into_bytes();
    payload.push(b'\n');
    payload.extend_from_slice(&transfer::encode_many(&files));
    let mut out = SESSION_MAGIC.to_vec();
    out.extend_from_slice(format!("crc32 {:08x} {}\n", crc32(&payload), payload.len()).as_bytes());
    out.extend_from_slice(&payload);
    out
}

/// Whether these bytes start like a session file (of any version).
pub fn is_session(bytes: &[u8]) -> bool {
    bytes.starts_with(SESSION_MAGIC) || bytes.starts_with(SESSION_MAGIC_V1)
}

/// The note a session without a checksum (version 1) is restored with.
pub const NO_CHECKSUM_NOTE: &str = "Saved by an earlier Rankscope without a checksum: its values were checked, but damage that leaves them valid cannot be seen. Export it again to add one.";

/// A session read back: the workspace rebuilt through [`Workspace::add`] (so
/// every check of a dropped file applies) from data that passed
/// [`transfer::validate`] (the rules of parsing: no NaN, sound id tables),
/// the view, and notes (view settings skipped; a session without checksum).
/// A version-2 session must match its checksum and length. Any damage gives
/// an error and no workspace.
pub fn decode_session(bytes: &[u8]) -> Result<(Workspace, ViewState, Vec<String>), String> {
    let mut notes = Vec::new();
    let payload = if let Some(rest) = bytes.strip_prefix(SESSION_MAGIC) {
        let end = rest
            .iter()
            .position(|&b| b == b'\n')
            .filter(|&e| e <= 64)
            .ok_or("the session's checksum line is missing")?;
        let line = std::str::from_utf8(&rest[..end]).unwrap_or_default();
        let (crc, len) = match line.split(' ').collect::<Vec<_>>()[..] {
            ["crc32", crc, len] => (u32::from_str_radix(crc, 16).ok(), len.parse::<usize>().ok()),
            _ => (None, None),
        };
        let (Some(crc), Some(len)) = (crc, len) else {
            return Err("the session's checksum line is damaged".into());
        };
        let payload = &rest[end + 1..];
        if payload.len() != len {
            return Err(format!(
                "the session is damaged: it holds {} bytes of data where it was saved with {len} (cut short, or added to)",
                payload.len()
            ));
        }
        if crc32(payload) != crc {
            return Err(
                "the session is damaged: its data does not match its checksum (a changed byte)"
                    .into(),
            );
        }
        payload
    } else if let Some(rest) = bytes.strip_prefix(SESSION_MAGIC_V1) {
        notes.push(NO_CHECKSUM_NOTE.to_string());
        rest
    } else {
        return Err(
            "not a Rankscope session (its first line is not 'RANKSCOPE-SESSION 2' or 1)".into(),
        );
    };
    let end = payload
        .iter()
        .position(|&b| b == b'\n')
        .ok_or("the session's view line is not terminated")?;
    let fragment = std::str::from_utf8(&payload[..end])
        .map_err(|_| "the session's view line is not UTF-8".to_string())?;
    let (view, skipped) = ViewState::from_fragment(fragment);
    let files = transfer::decode_many_validated(&payload[end + 1..])
        .map_err(|e| format!("the session's data is damaged: {e}"))?;
    let mut ws = Workspace::default();
    for (name, parsed) in files {
        ws.add(&name, parsed).map_err(|e| e.to_string())?;
    }
    notes.extend(skipped);
    Ok((ws, view, notes))
}

/// The data URLs of a page address's query string (`?run=URL&qrels=URL&data=URL`),
/// in order, judgments first. Every parameter but these is ignored.
pub fn data_urls(search: &str) -> Vec<String> {
    let mut qrels = Vec::new();
    let mut rest = Vec::new();
    for pair in search.trim_start_matches('?').split('&') {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let value = percent_decode(value);
        if value.is_empty() {
            continue;
        }
        match key {
            "qrels" => qrels.push(value),
            "run" | "data" | "file" => rest.push(value),
            _ => {}
        }
    }
    qrels.extend(rest);
    qrels
}

/// Only http(s) URLs are fetched (an absolute URL, as resolved against the
/// page's address): `file:`, `data:`, `javascript:`, `blob:` ... are refused.
pub fn check_url_scheme(absolute: &str) -> Result<(), String> {
    let scheme = absolute
        .split_once(':')
        .map(|(s, _)| s.to_ascii_lowercase())
        .unwrap_or_default();
    match scheme.as_str() {
        "http" | "https" => Ok(()),
        _ => Err(format!(
            "only http and https URLs can be loaded, not '{scheme}:' (download the file and drop it instead)"
        )),
    }
}

/// The file name a URL's data is shown under: its last path segment.
pub fn file_name_of_url(url: &str) -> String {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let name = percent_decode(path.trim_end_matches('/').rsplit('/').next().unwrap_or(""));
    if name.is_empty() || name.contains(':') {
        "download".into()
    } else {
        name
    }
}

/// The id of the element of a saved report that holds its session (base64).
pub const REPORT_DATA_ID: &str = "rankscope-data";

/// [`REPORT_SCRIPT_SHA256`] as a literal (for `concat!`).
macro_rules! report_script_sha256 {
    () => {
        "VWV9iHP862eSid7LWdp2LY+Y0dAYS5MRYYoFOAGG52Q="
    };
}

/// The policy of a saved report: it runs only its own inline module, named
/// by its SHA-256 ([`REPORT_SCRIPT_SHA256`]; no `'unsafe-inline'`: an
/// injected script would not run), the app's glue it imports from a `data:`
/// URL and its wasm, and makes no request at all (the app, its styles and its
/// data are all in the file). Styles stay inline (the app sets style
/// attributes).
pub const REPORT_CSP: &str = concat!(
    "default-src 'none'; script-src 'sha256-",
    report_script_sha256!(),
    "' data: 'wasm-unsafe-eval'; style-src 'unsafe-inline'; img-src data: blob:; object-src 'none'; base-uri 'none'; form-action 'none'"
);

/// The one inline module of a saved report: it imports the app's JavaScript
/// glue (a `data:` URL made from the report's `rankscope-js` block) and
/// starts it on the wasm of its `rankscope-wasm` block. The same text in
/// every report, so its hash is a constant of the build.
pub const REPORT_SCRIPT: &str = r#"
const block = (id) => document.getElementById(id).textContent;
const { default: init } = await import("data:text/javascript;base64," + block("rankscope-js"));
await init({ module_or_path: Uint8Array.from(atob(block("rankscope-wasm")), (c) => c.charCodeAt(0)) });
"#;

/// The SHA-256 of [`REPORT_SCRIPT`], base64, as [`REPORT_CSP`] names it
/// (a test computes it).
pub const REPORT_SCRIPT_SHA256: &str = report_script_sha256!();

/// A saved report: one HTML file holding the page's stylesheet, the app's
/// JavaScript glue `js` and wasm as base64 blocks started by the inline
/// module [`REPORT_SCRIPT`], and a session (view + data); it opens from disk
/// with no network. The page finds the session by [`REPORT_DATA_ID`].
pub fn report_html(title: &str, css: &str, js: &str, wasm: &[u8], session: &[u8]) -> String {
    let b64 = base64;
    let escape = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
    };
    // a stylesheet cannot end the <style> element early
    let css = css.replace("</", "<\\/");
    format!(
        r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>{css}</style>
</head>
<body>
<noscript>This Rankscope report runs in your browser with WebAssembly: please enable JavaScript.</noscript>
<script type="application/octet-stream" id="{REPORT_DATA_ID}">{data}</script>
<script type="application/octet-stream" id="rankscope-js">{js}</script>
<script type="application/octet-stream" id="rankscope-wasm">{wasm}</script>
<script type="module">{REPORT_SCRIPT}</script>
</body>
</html>
"#,
        csp = REPORT_CSP,
        title = escape(title),
        data = b64(session),
        wasm = b64(wasm),
        js = b64(js.as_bytes()),
    )
}

/// Reads a saved report's session text (base64, whitespace ignored).
pub fn report_session(text: &str) -> Result<Vec<u8>, String> {
    let compact: Vec<u8> = text.bytes().filter(|c| !c.is_ascii_whitespace()).collect();
    from_base64(&compact).ok_or_else(|| "the report's data is damaged (not base64)".to_string())
}

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// `bytes` in standard base64 with padding (RFC 4648). Written here: the
/// base64 crate's generic engine was 2.7 KB of the page's wasm.
pub fn base64(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | (b as u32) << (16 - 8 * i));
        for i in 0..4 {
            out.push(if i <= chunk.len() {
                BASE64[(n >> (18 - 6 * i) & 63) as usize] as char
            } else {
                '='
            });
        }
    }
    out
}

/// Standard base64 with padding back to bytes; `None` unless every group of
/// four is valid (padding only at the end, its unused bits zero).
pub fn from_base64(text: &[u8]) -> Option<Vec<u8>> {
    if text.len() % 4 != 0 {
        return None;
    }
    let value = |c: u8| BASE64.iter().position(|&x| x == c).map(|v| v as u32);
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let groups = text.len() / 4;
    for (g, quad) in text.chunks(4).enumerate() {
        let pad = quad.iter().rev().take_while(|&&c| c == b'=').count();
        if pad > 2 || (pad > 0 && g + 1 != groups) {
            return None;
        }
        let mut n = 0u32;
        for (i, &c) in quad[..4 - pad].iter().enumerate() {
            n |= value(c)? << (18 - 6 * i);
        }
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        if bytes[3 - pad..].iter().any(|&b| b != 0) {
            return None;
        }
        out.extend_from_slice(&bytes[..3 - pad]);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/CONVENTIONS.md names every convention key of every kind, with
    /// each enum value's stable name and the default of each.
    #[test]
    fn the_conventions_page_names_every_key_and_value() {
        use crate::core::binary::{ThresholdRule, ZeroDivision};
        use crate::core::multiclass::{ClassTieRule, ScoreScale};
        use crate::core::ranking::{QuerySet, TieRule};
        use crate::core::ranking_metrics::{
            ApDenominator, Discount, F1Aggregation, Gain, PrecisionDenominator, TrecEvalVersion,
        };
        fn names<T: Named>() -> Vec<&'static str> {
            T::ALL.iter().map(|t| t.name()).collect()
        }
        let page = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/CONVENTIONS.md"),
        )
        .unwrap();
        let row = |key: &str| -> &str {
            page.lines()
                .find(|l| l.starts_with(&format!("| `{key}` |")))
                .unwrap_or_else(|| panic!("no row for {key}"))
        };
        for kind in [Kind::Ranking, Kind::Binary, Kind::Multiclass] {
            for key in crate::core::conventions::keys(kind) {
                row(key);
            }
        }
        let conv = Conventions::default();
        for (key, values, default) in [
            ("ties", names::<TieRule>(), conv.ties.name()),
            ("gain", names::<Gain>(), conv.gain.name()),
            ("discount", names::<Discount>(), conv.discount.name()),
            (
                "ap_denominator",
                names::<ApDenominator>(),
                conv.ap_denominator.name(),
            ),
            (
                "precision_denominator",
                names::<PrecisionDenominator>(),
                conv.precision_denominator.name(),
            ),
            (
                "f1_aggregation",
                names::<F1Aggregation>(),
                conv.f1_aggregation.name(),
            ),
            ("query_set", names::<QuerySet>(), conv.query_set.name()),
            (
                "trec_eval",
                names::<TrecEvalVersion>(),
                conv.trec_eval.name(),
            ),
            (
                "threshold_rule",
                names::<ThresholdRule>(),
                conv.threshold_rule.name(),
            ),
            (
                "zero_division",
                names::<ZeroDivision>(),
                conv.zero_division.name(),
            ),
            (
                "class_ties",
                names::<ClassTieRule>(),
                conv.class_ties.name(),
            ),
            (
                "class_scale",
                names::<ScoreScale>(),
                conv.class_scale.name(),
            ),
        ] {
            let cells: Vec<&str> = row(key).split(" | ").collect();
            for v in values {
                assert!(
                    cells[2].contains(&format!("`{v}`")),
                    "{key}: value {v} not named"
                );
            }
            assert_eq!(cells[3], format!("`{default}`"), "{key}: default");
        }
        assert_eq!(row("relevance_level").split(" | ").nth(3), Some("`1`"));
        assert_eq!(row("threshold").split(" | ").nth(3), Some("`0.5`"));
    }

    /// Links and sessions saved before the kinds' stable names hid models as
    /// `Binary/model_b`: they hide the same models now (`binary/model_b`).
    #[test]
    fn hidden_models_of_earlier_links_stay_hidden() {
        let (view, skipped) =
            ViewState::from_fragment("#hidden=Binary/model_b,Ranking/bm25,ratings/x,Other/y");
        assert!(skipped.is_empty());
        assert_eq!(
            view.hidden,
            ["binary/model_b", "ranking/bm25", "ratings/x", "Other/y"]
        );
        assert_eq!(hidden_key(Kind::Multiclass, "m"), "multiclass/m");
        let (again, _) = ViewState::from_fragment(&view.to_fragment());
        assert_eq!(again.hidden, view.hidden);
    }
    use crate::core::ranking::TieRule;

    /// Each model's own threshold travels in `thresholds` (names with `,`,
    /// `:`, `=`, `&` kept); a bad item skips the key and keeps what was set.
    #[test]
    fn models_own_thresholds_round_trip() {
        let mut v = ViewState::default();
        v.conv.thresholds = vec![("a,b:c=d & e".into(), 0.73), ("model_b".into(), -1.5e-3)];
        let fragment = v.to_fragment();
        assert_eq!(
            fragment,
            "thresholds=a%2Cb:c%3Dd%20%26%20e:0.73,model_b:-0.0015"
        );
        let (back, skipped) = ViewState::from_fragment(&fragment);
        assert_eq!((back, skipped), (v.clone(), vec![]));
        assert_eq!(v.conv.threshold_for("model_b"), -0.0015);
        assert_eq!(v.conv.threshold_for("other"), 0.5);
        // the columns the shared threshold changes are marked for them too
        use crate::core::registry::depends_on;
        assert!(depends_on(Kind::Binary, "precision", "thresholds"));
        assert!(!depends_on(Kind::Binary, "roc_auc", "thresholds"));
        assert_eq!(
            non_default_conventions(&v.conv, Kind::Binary),
            [fragment.as_str()]
        );
        let (bad, skipped) = ViewState::from_fragment("threshold=0.3&thresholds=a:0.7,b:high,c");
        assert_eq!((bad.conv.threshold, bad.conv.thresholds.len()), (0.3, 0));
        assert_eq!(
            skipped,
            ["'a:0.7,b:high,c' is not a valid value of 'thresholds'"]
        );
    }

    #[test]
    fn default_view_has_an_empty_fragment() {
        assert_eq!(ViewState::default().to_fragment(), "");
        assert_eq!(ViewState::from_fragment(""), (ViewState::default(), vec![]));
    }

    #[test]
    fn fragment_round_trips_every_kind_of_setting() {
        let mut v = ViewState {
            tab: Some(Kind::Binary),
            k: vec![1, 3, 100],
            hidden: vec!["ranking/a,b & c".into(), "binary/<img src=x>".into()],
            baseline: Some("model #1".into()),
            diff: false,
            off: vec!["ranking.ndcg@20".into(), "binary.f1".into()],
            theme: "dark".into(),
            curve: CurveMetric::Recall,
            p: 25,
            per_query: true,
            files: vec!["my run.txt".into()],
            ..ViewState::default()
        };
        v.metrics.retain(|m| !m.ends_with(".bpref"));
        v.conv.threshold = 0.375;
        v.conv.ties = TieRule::Average;
        v.conv.relevance_level = -2;
        v.tests = crate::compare::page::Settings {
            test: crate::compare::Test::Randomization,
            correction: crate::core::stats::Correction::BenjaminiHochberg,
            alpha: 0.01,
            seed: 7,
            ci: true,
            vs: Some("bm25 & co".into()),
            on: Some("ndcg@10".into()),
        };
        let fragment = v.to_fragment();
        assert!(
            fragment.contains("diff=0&off=ranking.ndcg@20,binary.f1&"),
            "{fragment}"
        );
        assert!(
            fragment.contains("test=randomization&correction=bh&alpha=0.01&seed=7&ci=1&vs=bm25%20%26%20co&on=ndcg@10"),
            "{fragment}"
        );
        assert!(
            !fragment.contains(' ') && !fragment.contains('#'),
            "{fragment}"
        );
        assert!(fragment.contains("threshold=0.375"), "{fragment}");
        assert!(fragment.contains("tab=binary"), "{fragment}");
        let (back, skipped) = ViewState::from_fragment(&format!("#{fragment}"));
        assert_eq!(skipped, Vec::<String>::new());
        assert_eq!(back, v);
    }

    #[test]
    fn bad_settings_are_skipped_and_named_the_rest_applies() {
        let (v, skipped) = ViewState::from_fragment(
            "ties=sideways&k=5,x&colour=red&threshold=0.25&tab=ratings&alpha=1.5&test=z",
        );
        assert_eq!(v.conv.ties, TieRule::Trec);
        assert_eq!(v.k, vec![5, 10, 20]);
        assert_eq!(v.conv.threshold, 0.25);
        assert_eq!(v.tab, Some(Kind::Ratings));
        assert_eq!(
            skipped,
            vec![
                "'sideways' is not a valid value of 'ties'",
                "'5,x' is not a valid value of 'k'",
                "'colour' is not a view setting",
                "'1.5' is not a valid value of 'alpha'",
                "'z' is not a valid value of 'test'",
            ]
        );
    }

    #[test]
    fn a_seed_is_a_whole_number_below_two_to_the_53() {
        assert_eq!(
            ViewState::from_fragment("seed=9007199254740991")
                .0
                .tests
                .seed,
            (1 << 53) - 1
        );
        for bad in ["-1", "1.5", "9007199254740992", "x", "NaN"] {
            let (v, skipped) = ViewState::from_fragment(&format!("seed={bad}"));
            assert_eq!(v.tests.seed, 42);
            assert_eq!(
                skipped,
                vec![format!("'{bad}' is not a valid value of 'seed'")]
            );
        }
    }

    #[test]
    fn every_convention_has_a_fragment_key() {
        let serde_json::Value::Object(conv) = serde_json::to_value(Conventions::default()).unwrap()
        else {
            panic!()
        };
        let keys: Vec<&str> = ViewState::default().entries().iter().map(|e| e.0).collect();
        for key in conv.keys() {
            assert!(
                keys.contains(&key.as_str()),
                "convention '{key}' missing from the fragment"
            );
            let mut v = ViewState::default();
            assert_eq!(v.set(key, "x\u{1}"), Err(false), "{key} accepts anything");
        }
        let mut unique = keys.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), keys.len());
    }

    #[test]
    fn percent_coding_round_trips_any_text() {
        for s in ["", "a b", "100%", "%zz", "é,ü;&=#?", "%", "ab%4"] {
            assert_eq!(percent_decode(&percent_encode(s)), s);
        }
        assert_eq!(percent_decode("%zz%4"), "%zz%4");
        assert_eq!(percent_decode("a+b%2Cc"), "a b,c");
    }

    #[test]
    fn data_urls_put_judgments_first_and_refuse_other_schemes() {
        assert_eq!(
            data_urls("?run=runs/a.run&x=1&qrels=https%3A%2F%2Fh%2Fq.qrels&run=b.run&run="),
            vec!["https://h/q.qrels", "runs/a.run", "b.run"]
        );
        assert!(check_url_scheme("https://h/x").is_ok());
        assert!(check_url_scheme("HTTP://h/x").is_ok());
        for bad in [
            "file:///etc/passwd",
            "javascript:alert(1)",
            "data:text/plain,1",
            "blob:x",
        ] {
            assert!(check_url_scheme(bad).is_err(), "{bad}");
        }
        assert_eq!(
            file_name_of_url("https://h/runs/bm25.run?x=1#y"),
            "bm25.run"
        );
        assert_eq!(file_name_of_url("https://h/a%20b.qrels"), "a b.qrels");
        assert_eq!(file_name_of_url("https://h/"), "h");
    }

    /// Renaming the baseline keeps it the baseline (the table's marks and
    /// differences are against it) and a session saved after opens with it;
    /// its hidden state, the Compare view's pick, its threshold and its
    /// groups follow the name too.
    #[test]
    fn a_rename_keeps_what_the_view_keys_by_the_model() {
        let mut ws = Workspace::default();
        for (name, bytes) in crate::example::example_files() {
            ws.load_bytes(&name, &bytes, &Default::default()).unwrap();
        }
        let mut view = ViewState {
            baseline: Some("bm25".into()),
            hidden: vec![
                hidden_key(Kind::Ranking, "bm25"),
                hidden_key(Kind::Binary, "bm25"),
            ],
            diagnose: "bins:5;group:lexical=bm25,all=*;group:family=bm*".into(),
            ..ViewState::default()
        };
        view.tests.vs = Some("bm25".into());
        view.conv.thresholds = vec![("bm25".into(), 0.3), ("other".into(), 0.6)];
        assert!(ws.rename(Kind::Ranking, "bm25", "lexical-bm25"));
        view.rename_model(Kind::Ranking, "bm25", "lexical-bm25");
        assert_eq!(view.baseline.as_deref(), Some("lexical-bm25"));
        assert_eq!(view.tests.vs.as_deref(), Some("lexical-bm25"));
        assert_eq!(view.hidden, ["ranking/lexical-bm25", "binary/bm25"]);
        assert_eq!(
            view.conv.thresholds,
            [
                ("lexical-bm25".to_string(), 0.3),
                ("other".to_string(), 0.6)
            ]
        );
        assert_eq!(
            view.diagnose,
            "bins:5;group:lexical=lexical-bm25,all=*;group:family=bm*|lexical-bm25"
        );
        let groups = crate::diagnose::groups_of(&view.diagnose);
        assert!(groups
            .iter()
            .all(|(_, p)| crate::text::glob(p, "lexical-bm25")));
        // a session saved after the rename opens with the renamed baseline
        let (back, opened, skipped) = decode_session(&encode_session(&ws, &view)).unwrap();
        assert!(skipped.is_empty(), "{skipped:?}");
        assert_eq!(opened.baseline.as_deref(), Some("lexical-bm25"));
        let names = back.dataset(Kind::Ranking).unwrap().model_names();
        assert!(names.iter().any(|n| n == "lexical-bm25"), "{names:?}");
        // and so does a link
        let link = ViewState::from_fragment(&view.to_fragment()).0;
        assert_eq!(link.baseline.as_deref(), Some("lexical-bm25"));
        assert_eq!(link.diagnose, view.diagnose);
    }

    #[test]
    fn a_session_rebuilds_an_equal_workspace() {
        let mut ws = Workspace::default();
        for (name, bytes) in crate::example::example_files() {
            ws.load_bytes(&name, &bytes, &Default::default()).unwrap();
        }
        assert!(ws.rename(Kind::Ranking, "bm25", "bm25, renamed"));
        let view = ViewState {
            tab: Some(Kind::Ratings),
            ..ViewState::default()
        };
        let bytes = encode_session(&ws, &view);
        assert!(is_session(&bytes));
        let (back, view_back, skipped) = decode_session(&bytes).unwrap();
        assert!(skipped.is_empty());
        assert_eq!(view_back, view);
        let conv = Conventions::default();
        for kind in [Kind::Ranking, Kind::Binary, Kind::Multiclass, Kind::Ratings] {
            let (a, b) = (ws.dataset(kind).unwrap(), back.dataset(kind).unwrap());
            assert_eq!(a.model_names(), b.model_names());
            let metrics: Vec<_> = crate::core::registry::METRICS
                .iter()
                .filter(|m| m.kind == kind)
                .map(|m| crate::core::registry::MetricId::new(m.base, Some(10)))
                .collect();
            let (ra, rb) = (
                crate::core::evaluate::evaluate(&a, &conv, &metrics),
                crate::core::evaluate::evaluate(&b, &conv, &metrics),
            );
            assert_eq!(
                format!("{:?}", ra.models),
                format!("{:?}", rb.models),
                "{kind:?}"
            );
        }
        // every tie rule sees the same order inside each query
        let mut c = conv.clone();
        c.ties = TieRule::File;
        let metrics = [crate::core::registry::MetricId::new("ndcg", Some(3))];
        let (a, b) = (
            ws.dataset(Kind::Ranking).unwrap(),
            back.dataset(Kind::Ranking).unwrap(),
        );
        assert_eq!(
            format!(
                "{:?}",
                crate::core::evaluate::evaluate(&a, &c, &metrics).models
            ),
            format!(
                "{:?}",
                crate::core::evaluate::evaluate(&b, &c, &metrics).models
            )
        );
    }

    /// SHA-256, base64, as a CSP hash source writes it (the sha2 crate).
    fn sha256_base64(text: &str) -> String {
        use base64::Engine;
        use sha2::Digest;
        base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(text.as_bytes()))
    }

    #[test]
    fn a_report_holds_the_app_and_the_session_and_allows_no_request() {
        let session = encode_session(&Workspace::default(), &ViewState::default());
        // SHA-256 of "abc", as FIPS 180-2 gives it
        assert_eq!(
            sha256_base64("abc"),
            "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0="
        );
        assert_eq!(
            sha256_base64(REPORT_SCRIPT),
            REPORT_SCRIPT_SHA256,
            "the inline module's hash"
        );
        let html = report_html(
            "a <b> report",
            "p{color:red}</style>",
            "export default 1;",
            b"\0asm",
            &session,
        );
        assert!(html.contains("<title>a &lt;b&gt; report</title>"));
        assert_eq!(
            html.matches("</style>").count(),
            1,
            "the stylesheet cannot close its element"
        );
        assert!(html.contains(REPORT_CSP) && REPORT_CSP.starts_with("default-src 'none'"));
        assert!(
            !REPORT_CSP.contains("connect-src"),
            "no request of any kind"
        );
        // the inline module runs by its hash, nothing inline by default
        let script_src = REPORT_CSP
            .split(';')
            .find(|d| d.trim().starts_with("script-src"))
            .unwrap();
        assert!(!script_src.contains("unsafe-inline"), "{script_src}");
        assert!(script_src.contains(&format!("'sha256-{REPORT_SCRIPT_SHA256}'")));
        // the hash is the inline module's, as the browser computes it: the
        // text between its tags exactly
        let start =
            html.find("<script type=\"module\">").unwrap() + "<script type=\"module\">".len();
        let end = start + html[start..].find("</script>").unwrap();
        assert_eq!(&html[start..end], REPORT_SCRIPT);
        let block = |id: &str| {
            let start = html.find(&format!("id=\"{id}\">")).unwrap() + id.len() + 6;
            let end = start + html[start..].find('<').unwrap();
            report_session(&html[start..end]).unwrap()
        };
        assert_eq!(block(REPORT_DATA_ID), session);
        assert_eq!(block("rankscope-js"), b"export default 1;");
        assert!(report_session("not base64!").is_err());
    }

    /// A link asking for 10,000 cutoffs gets the first 32 and says so; a
    /// long bad value is echoed capped.
    #[test]
    fn cutoffs_of_a_link_are_capped() {
        let many: Vec<String> = (1..=10_000).map(|k| k.to_string()).collect();
        let (view, notes) = ViewState::from_fragment(&format!("#k={}", many.join(",")));
        assert_eq!(view.k, (1..=32).collect::<Vec<usize>>());
        assert_eq!(notes.len(), 1);
        assert!(notes[0].contains("At most 32 cutoffs"), "{notes:?}");
        let (_, notes) = ViewState::from_fragment(&format!("k=x{}", "9".repeat(100_000)));
        assert!(notes[0].len() < 1000, "{}", notes[0].len());
        let (view, notes) = ViewState::from_fragment("k=10,5,10");
        assert_eq!((view.k, notes.len()), (vec![5, 10], 0));
    }

    #[test]
    fn non_default_conventions_are_listed_per_kind() {
        let mut c = Conventions::default();
        assert!(non_default_conventions(&c, Kind::Ranking).is_empty());
        c.gain = crate::core::ranking_metrics::Gain::Exponential;
        c.threshold = 0.3;
        assert_eq!(
            non_default_conventions(&c, Kind::Ranking),
            ["gain=exponential"]
        );
        assert_eq!(non_default_conventions(&c, Kind::Binary), ["threshold=0.3"]);
        assert!(non_default_conventions(&c, Kind::Ratings).is_empty());
    }

    /// `registry::depends_on` lists every metric a convention changes: each
    /// non-default value of each convention, evaluated on the example and the
    /// reference files, changes only metrics it lists (so the page's header
    /// marks never miss a changed column).
    #[test]
    fn conventions_change_only_the_metrics_they_are_said_to() {
        use crate::core::evaluate::evaluate;
        use crate::core::registry::{all_metrics, depends_on};
        let mut ws = Workspace::default();
        for (name, bytes) in crate::example::example_files() {
            ws.load_bytes(&name, &bytes, &Default::default()).unwrap();
        }
        let mut reference = Workspace::default();
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/reference/");
        for f in [
            "ranking.qrels",
            "ranking.run",
            "binary.csv",
            "multiclass_probs.csv",
            "ratings.csv",
        ] {
            let bytes = std::fs::read(format!("{dir}{f}")).unwrap();
            reference
                .load_bytes(f, &bytes, &Default::default())
                .unwrap();
        }
        // no row predicted positive at 0.5: precision's zero division
        let mut nothing_predicted = Workspace::default();
        let text = b"label,m\n1,0.1\n0,0.2\n1,0.3\n";
        nothing_predicted
            .load_bytes("z.csv", text, &Default::default())
            .unwrap();
        fn all<T: Named>() -> Vec<&'static str> {
            T::ALL.iter().map(|v| v.name()).collect()
        }
        use crate::core::{binary, multiclass, ranking, ranking_metrics as rm};
        let (mut checked, mut tried) = (0, Vec::new());
        for (key, alternatives) in [
            ("ties", all::<ranking::TieRule>()),
            ("relevance_level", vec!["2", "3"]),
            ("gain", all::<rm::Gain>()),
            ("discount", all::<rm::Discount>()),
            ("ap_denominator", all::<rm::ApDenominator>()),
            ("precision_denominator", all::<rm::PrecisionDenominator>()),
            ("f1_aggregation", all::<rm::F1Aggregation>()),
            ("query_set", all::<ranking::QuerySet>()),
            ("trec_eval", all::<rm::TrecEvalVersion>()),
            ("threshold", vec!["0.3", "0.7", "0"]),
            ("threshold_rule", all::<binary::ThresholdRule>()),
            ("zero_division", all::<binary::ZeroDivision>()),
            ("binary_scores_are_logits", vec!["1"]),
            ("class_ties", all::<multiclass::ClassTieRule>()),
            ("class_scale", all::<multiclass::ScoreScale>()),
        ] {
            tried.push(key);
            for value in alternatives {
                let (view, skipped) = ViewState::from_fragment(&format!("{key}={value}"));
                assert!(skipped.is_empty(), "{key}={value}: {skipped:?}");
                for w in [&ws, &reference, &nothing_predicted] {
                    for data in w.datasets() {
                        let kind = data.kind();
                        let ids = all_metrics(kind, &[1, 3, 5, 10, 20]);
                        let before = evaluate(&data, &Conventions::default(), &ids);
                        let after = evaluate(&data, &view.conv, &ids);
                        for (b, a) in before.models.iter().zip(&after.models) {
                            for key_of in &before.columns {
                                let base = crate::core::registry::base_of(key_of);
                                let (x, y) = (b.metrics[key_of], a.metrics[key_of]);
                                let same = match (x, y) {
                                    (Some(x), Some(y)) => (x - y).abs() <= 1e-12 * x.abs().max(1.0),
                                    (x, y) => x.is_none() && y.is_none(),
                                };
                                assert!(
                                    same || depends_on(kind, base, key),
                                    "{key}={value} changes {kind:?} {key_of} ({x:?} -> {y:?}) but is not said to"
                                );
                                checked += 1;
                            }
                        }
                    }
                }
            }
        }
        assert!(checked > 1000);
        // every convention of every kind was changed above
        let all: Vec<&str> = [Kind::Ranking, Kind::Binary, Kind::Multiclass, Kind::Ratings]
            .iter()
            .flat_map(|&k| crate::core::conventions::keys(k))
            .collect();
        assert_eq!(all, tried);
    }

    /// The hand-written base64 is the base64 crate's standard engine, both
    /// ways, on every length and on damaged text.
    #[test]
    fn base64_is_the_standard_one() {
        use base64::Engine;
        let engine = base64::engine::general_purpose::STANDARD;
        let mut next = crate::core::xorshift(7);
        for len in 0..300 {
            let bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            let text = base64(&bytes);
            assert_eq!(text, engine.encode(&bytes));
            assert_eq!(from_base64(text.as_bytes()), Some(bytes));
        }
        for bad in [
            "A", "AB=", "A===", "AB=A", "AB==AAAA", "AB*=", "AR==", "AAB=",
        ] {
            assert_eq!(from_base64(bad.as_bytes()), None, "{bad}");
            assert!(engine.decode(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn crc32_is_the_standard_one() {
        assert_eq!(
            crc32(b"123456789"),
            0xCBF4_3926,
            "the check value of CRC-32/ISO-HDLC"
        );
        assert_eq!(crc32(b""), 0);
        let (_, session) = example_session();
        for len in [1, 7, 100, session.len()] {
            assert_eq!(crc32(&session[..len]), crc32fast::hash(&session[..len]));
        }
    }

    #[test]
    fn damaged_sessions_are_refused_with_a_reason() {
        let ws = Workspace::default();
        let good = encode_session(&ws, &ViewState::default());
        assert!(decode_session(b"hello")
            .unwrap_err()
            .contains("not a Rankscope session"));
        assert!(decode_session(SESSION_MAGIC_V1)
            .unwrap_err()
            .contains("not terminated"));
        assert!(decode_session(SESSION_MAGIC)
            .unwrap_err()
            .contains("checksum line is missing"));
        let mut bad = good.clone();
        bad.push(7);
        bad.extend_from_slice(&[0xff; 9]);
        assert!(decode_session(&bad)
            .unwrap_err()
            .contains("cut short, or added to"));
        for cut in 0..good.len() {
            assert!(decode_session(&good[..cut]).is_err());
        }
    }

    /// The example's workspace as a session (every kind of data).
    fn example_session() -> (Workspace, Vec<u8>) {
        let mut ws = Workspace::default();
        for (name, bytes) in crate::example::example_files() {
            ws.load_bytes(&name, &bytes, &Default::default()).unwrap();
        }
        let view = ViewState {
            tab: Some(Kind::Binary),
            ..ViewState::default()
        };
        let bytes = encode_session(&ws, &view);
        (ws, bytes)
    }

    /// A session as this build writes it with `payload` in place of its own:
    /// a valid checksum over whatever the payload holds.
    fn sealed(payload: &[u8]) -> Vec<u8> {
        let mut out = SESSION_MAGIC.to_vec();
        out.extend_from_slice(
            format!("crc32 {:08x} {}\n", crc32(payload), payload.len()).as_bytes(),
        );
        out.extend_from_slice(payload);
        out
    }

    /// 3,000 single bit flips anywhere in a session (seeded): every one is
    /// refused (CRC-32 detects every single-bit error), none changes a value.
    #[test]
    fn bit_flipped_sessions_are_all_refused() {
        let (_, good) = example_session();
        assert!(decode_session(&good).is_ok());
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..3000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let bit = (state % (good.len() as u64 * 8)) as usize;
            let mut bad = good.clone();
            bad[bit / 8] ^= 1 << (bit % 8);
            assert!(
                decode_session(&bad).is_err(),
                "bit {bit} flipped was accepted"
            );
        }
    }

    /// Data a file could not hold is refused even under a valid checksum (a
    /// crafted or hand-edited session): NaN scores, damaged id tables and
    /// judgments.
    #[test]
    fn sessions_are_validated_as_files_are() {
        use crate::parse::transfer::{encode_many, Outcome};
        use crate::parse::Parsed;
        let (ws, _) = example_session();
        let files = ws.to_files();
        let craft = |change: &dyn Fn(&mut Parsed) -> bool| -> Option<String> {
            let mut changed = false;
            let files: Vec<(String, Outcome)> = files
                .iter()
                .cloned()
                .map(|(n, mut p)| {
                    changed |= change(&mut p);
                    (n, Ok(p))
                })
                .collect();
            assert!(changed, "the change applies to the example");
            let mut payload = b"\n".to_vec();
            payload.extend_from_slice(&encode_many(&files));
            decode_session(&sealed(&payload)).err()
        };
        // unchanged: accepted
        let mut payload = b"\n".to_vec();
        payload.extend_from_slice(&encode_many(
            &files
                .iter()
                .cloned()
                .map(|(n, p)| (n, Ok(p)))
                .collect::<Vec<_>>(),
        ));
        assert!(decode_session(&sealed(&payload)).is_ok());
        let nan_binary = craft(&|p| match p {
            Parsed::Binary(b) => {
                b.models
                    .iter_mut()
                    .for_each(|m| m.1.iter_mut().for_each(|v| *v = f64::NAN));
                true
            }
            _ => false,
        });
        assert!(nan_binary.unwrap().contains("not a number (NaN)"));
        let nan_run = craft(&|p| match p {
            Parsed::Run { score, .. } => {
                score[0] = f64::NAN;
                true
            }
            _ => false,
        });
        assert!(nan_run.unwrap().contains("NaN"));
        let nan_rating = craft(&|p| match p {
            Parsed::Ratings(r) => {
                r.rating[3] = f64::NAN;
                true
            }
            _ => false,
        });
        assert!(nan_rating.unwrap().contains("rating 4"));
        let broken_hash = craft(&|p| match p {
            Parsed::Qrels { judgments, .. } => {
                judgments.hashes[0] ^= 1;
                true
            }
            _ => false,
        });
        assert!(broken_hash.unwrap().contains("judgments are damaged"));
        let unsorted = craft(&|p| match p {
            Parsed::Qrels { judgments, .. } => {
                let r = judgments.offsets[0] as usize..judgments.offsets[1] as usize;
                judgments.grades[r.clone()].reverse();
                judgments.hashes[r].reverse();
                true
            }
            _ => false,
        });
        assert!(unsorted.unwrap().contains("judgments are damaged"));
    }

    /// Classes named by text ids (a top-k file's) travel in a session with
    /// their names, and a file loaded after it joins them by name.
    #[test]
    fn text_class_ids_survive_a_session() {
        let mut ws = Workspace::default();
        let o = Default::default();
        let file = "target,pred_1,pred_2\ncat,dog,cat\nemu,emu,dog\ncat,cat,emu\n";
        ws.load_bytes("a.csv", file.as_bytes(), &o).unwrap();
        let (back, ..) = decode_session(&encode_session(&ws, &ViewState::default())).unwrap();
        let d = back.multiclass.as_ref().unwrap();
        let names: Vec<String> = d.targets.iter().map(|&t| d.class_name(t)).collect();
        assert_eq!(names, ["cat", "emu", "cat"]);
        let mut back = back;
        let other = "target,top_1\ncat,emu\nemu,emu\ncat,dog\n";
        back.load_bytes("b.csv", other.as_bytes(), &o).unwrap();
        let d = back.multiclass.as_ref().unwrap();
        let first: Vec<String> = d.models[1]
            .list_first
            .iter()
            .map(|&c| d.class_name(c))
            .collect();
        assert_eq!(first, ["emu", "emu", "dog"]);
        assert_eq!(d.num_classes, 3);
    }

    /// Sessions written before the checksum (version 1, as the previous
    /// build wrote them) still open, saying they carry none.
    #[test]
    fn version_1_sessions_still_open() {
        use crate::parse::transfer::{encode_many, Outcome};
        let (ws, v2) = example_session();
        let files: Vec<(String, Outcome)> =
            ws.to_files().into_iter().map(|(n, p)| (n, Ok(p))).collect();
        let mut v1 = SESSION_MAGIC_V1.to_vec();
        v1.extend_from_slice(b"tab=binary\n");
        v1.extend_from_slice(&encode_many(&files));
        let (back, view, notes) = decode_session(&v1).unwrap();
        assert_eq!(view.tab, Some(Kind::Binary));
        assert_eq!(notes, [NO_CHECKSUM_NOTE]);
        let (again, _, notes2) = decode_session(&v2).unwrap();
        assert!(notes2.is_empty());
        assert_eq!(
            format!("{:?}", back.to_files()),
            format!("{:?}", again.to_files())
        );
    }
}
