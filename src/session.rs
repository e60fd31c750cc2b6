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
    pub tests: crate::compare::settings::Settings,
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
            ("theme", percent_encode(&self.theme)),
            ("curve", name(&self.curve)),
            ("p", self.p.to_string()),
            ("per_query", flag(self.per_query)),
            ("files", list(&self.files)),
        ];
        // the conventions, as the table names them (stable names and
        // numbers need no escaping: `>=` reads back as the value of its key)
        entries.extend(TABLE.iter().map(|c| (c.key, (c.get)(&self.conv))));
        // the preset the conventions came from: its name (the values are above)
        entries.push((conventions::PRESET, percent_encode(&self.conv.preset)));
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
            // a name only: the link carries every convention's value itself
            conventions::PRESET => {
                let name = percent_decode(raw);
                if !name.is_empty() && crate::core::presets::get(&name).is_none() {
                    return Err(false);
                }
                self.conv.preset = name;
            }
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

/// What a saved report's one inline module runs after the app's glue (see
/// [`report_script`]): the page's `Worker` made to start the loading worker
/// the report carries, then the glue's start (`START`) on the wasm of the
/// report's `rankscope-wasm` block (gzip, inflated by the browser's
/// `DecompressionStream`).
///
/// The worker: a `blob:` URL of the worker's glue (wasm-bindgen's
/// `no-modules` output, block `rankscope-worker-js`) and its boot: its first
/// message is its wasm (block `rankscope-worker-wasm`, gzip, inflated and
/// compiled once, on the first worker, and posted to each as a
/// `WebAssembly.Module`), which it starts; the worker's `main` then answers
/// `ready` and takes its messages.
/// Every worker the page starts is that one (a report starts no other), so
/// the page's wasm is the one served. A worker that cannot start (a frame
/// that refuses workers, wasm that does not compile) fails with an `error`
/// event, as one whose script did not load, and the page says so per job.
const REPORT_START: &str = r#"
const rankscopeBlock = (id) => document.getElementById(id).textContent;
const rankscopeBytes = (id) => Uint8Array.from(atob(rankscopeBlock(id)), (c) => c.charCodeAt(0));
const rankscopeInflate = (id) => new Response(new Blob([rankscopeBytes(id)]).stream().pipeThrough(new DecompressionStream("gzip"))).arrayBuffer();
const rankscopeBoot = `
self.onmessage = (e) => {
  if (typeof e.data === "string") throw new Error(e.data);
  wasm_bindgen({ module_or_path: e.data }).catch((e) => setTimeout(() => { throw e; }));
};
`;
let rankscopeWorker;
globalThis.Worker = class extends Worker {
  constructor(url, options) {
    rankscopeWorker ??= {
      url: URL.createObjectURL(new Blob([rankscopeBytes("rankscope-worker-js"), rankscopeBoot], { type: "text/javascript" })),
      wasm: rankscopeInflate("rankscope-worker-wasm").then((b) => WebAssembly.compile(b)),
    };
    super(rankscopeWorker.url, options);
    rankscopeWorker.wasm.then((m) => this.postMessage(m), (e) => this.postMessage(String(e)));
  }
};
await START({ module_or_path: await rankscopeInflate("rankscope-wasm") });
"#;

/// A saved report's one inline module: the app's JavaScript glue `js`
/// itself (its default export, the start, bound to a name: an inline
/// module's exports reach no one) followed by [`REPORT_START`]. Nothing is
/// imported, so the report's policy allows this script by its hash and no
/// URL scheme ([`report_csp`]). Refused: glue without a default export, and
/// glue that would end the `<script>` element early (`</script`, `<!--`).
pub fn report_script(js: &str) -> Result<String, String> {
    let lower = js.to_ascii_lowercase();
    if lower.contains("</script") || lower.contains("<!--") {
        return Err(
            "the app's script holds text that would end the report's <script> element".into(),
        );
    }
    // `export default __wbg_init;` (wasm-bindgen), or `export { x as default }`
    let (glue, start) = if js.matches("export default ").count() == 1 {
        (
            js.replacen("export default ", "const rankscopeStart = ", 1),
            "rankscopeStart",
        )
    } else {
        let at = js
            .find(" as default")
            .filter(|_| js.matches(" as default").count() == 1)
            .ok_or("the app's script has no default export (its start) to run")?;
        let name_start = js[..at]
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
            .map_or(0, |i| i + 1);
        let name = &js[name_start..at];
        if name.is_empty() {
            return Err("the app's script has no default export (its start) to run".into());
        }
        (js.to_string(), name)
    };
    Ok(format!("{glue}\n{}", REPORT_START.replace("START", start)))
}

/// The policy of a saved report: it runs only its own inline module, named
/// by its SHA-256 (`script_sha256`, base64; no `'unsafe-inline'` and no
/// `data:` or `blob:`: an injected script, inline or from a URL, would not
/// run) and compiles its wasm (`'wasm-unsafe-eval'`), starts workers only
/// from `blob:` URLs (`worker-src blob:`: the loading worker the module makes
/// from the report's blocks; a worker runs under this policy too), and
/// makes no request at all (the app, its worker, its styles and its data
/// are all in the file). Styles stay inline (the app sets style attributes).
pub fn report_csp(script_sha256: &str) -> String {
    format!(
        "default-src 'none'; script-src 'sha256-{script_sha256}' 'wasm-unsafe-eval'; worker-src blob:; style-src 'unsafe-inline'; img-src data: blob:; object-src 'none'; base-uri 'none'; form-action 'none'"
    )
}

/// A saved report: one HTML file holding the page's stylesheet, the app's
/// wasm and the loading worker's glue and wasm (`worker`: its JavaScript and
/// wasm) as base64 blocks (each wasm gzipped: `rankscope.report` of the
/// reference run is 1.4 MB with the worker, 3.3 MB ungzipped), a session (view + data), and its one inline
/// module ([`report_script`]: the app's JavaScript glue `js`, its start and
/// the worker's), allowed by its hash; it opens from disk with no network.
/// The page finds the session by [`REPORT_DATA_ID`]. Written in a loading
/// worker (which fetches the app's files), and by the Python package.
pub fn report_html(
    title: &str,
    css: &str,
    js: &str,
    wasm: &[u8],
    worker: (&str, &[u8]),
    session: &[u8],
) -> Result<String, String> {
    let b64 = base64;
    let escape = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;")
    };
    // a stylesheet cannot end the <style> element early
    let css = css.replace("</", "<\\/");
    let script = report_script(js)?;
    Ok(format!(
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
<script type="application/octet-stream" id="rankscope-wasm">{wasm}</script>
<script type="application/octet-stream" id="rankscope-worker-js">{worker_js}</script>
<script type="application/octet-stream" id="rankscope-worker-wasm">{worker_wasm}</script>
<script type="module">{script}</script>
</body>
</html>
"#,
        csp = report_csp(&b64(&sha256(script.as_bytes()))),
        title = escape(title),
        data = b64(session),
        wasm = b64(&gzip(wasm)?),
        worker_js = b64(worker.0.as_bytes()),
        worker_wasm = b64(&gzip(worker.1)?),
    ))
}

/// `bytes` gzipped (a report's wasm: about 40% of its size).
fn gzip(bytes: &[u8]) -> Result<Vec<u8>, String> {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(bytes).map_err(|e| e.to_string())?;
    encoder.finish().map_err(|e| e.to_string())
}

/// SHA-256 (FIPS 180-4) of `bytes`: the hash a report's policy names its
/// script by. Written here (the sha2 crate is its reference in the tests);
/// only the loading worker and the Python package compute it.
pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
    ];
    let mut h: [u32; 8] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
        0x5be0cd19,
    ];
    // the message, a 1 bit, zeros, and its length in bits: whole 64-byte blocks
    let mut data = bytes.to_vec();
    data.push(0x80);
    while data.len() % 64 != 56 {
        data.push(0);
    }
    data.extend_from_slice(&((bytes.len() as u64).wrapping_mul(8)).to_be_bytes());
    for block in data.chunks_exact(64) {
        let mut w = [0u32; 64];
        for (i, word) in block.chunks_exact(4).enumerate() {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16]
                .wrapping_add(s0)
                .wrapping_add(w[i - 7])
                .wrapping_add(s1);
        }
        let mut v = h;
        for i in 0..64 {
            let [a, b, c, d, e, f, g, hh] = v;
            let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
            let ch = (e & f) ^ (!e & g);
            let t1 = hh
                .wrapping_add(s1)
                .wrapping_add(ch)
                .wrapping_add(K[i])
                .wrapping_add(w[i]);
            let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
            let maj = (a & b) ^ (a & c) ^ (b & c);
            let t2 = s0.wrapping_add(maj);
            v = [t1.wrapping_add(t2), a, b, c, d.wrapping_add(t1), e, f, g];
        }
        for (x, y) in h.iter_mut().zip(v) {
            *x = x.wrapping_add(y);
        }
    }
    let mut out = [0u8; 32];
    for (chunk, x) in out.chunks_exact_mut(4).zip(h) {
        chunk.copy_from_slice(&x.to_be_bytes());
    }
    out
}

/// Reads a saved report's session text (base64, whitespace ignored).
pub fn report_session(text: &str) -> Result<Vec<u8>, String> {
    let compact: Vec<u8> = text.bytes().filter(|c| !c.is_ascii_whitespace()).collect();
    from_base64(&compact).ok_or_else(|| "the report's data is damaged (not base64)".to_string())
}

/// A saved report's session (the text of its data block) read back as
/// [`decode_session`] reads a session file, but only with its checksum
/// (version 2): every report carries the app that wrote it, and this app
/// writes the checksum, so a report of this app holding a version-1 session
/// was changed after it was saved (a crafted report would skip the check).
pub fn open_report(text: &str) -> Result<(Workspace, ViewState, Vec<String>), String> {
    let bytes = report_session(text)?;
    if bytes.starts_with(SESSION_MAGIC_V1) {
        return Err("the report's data has no checksum, which the app that saved it always writes: it was changed after it was saved".into());
    }
    decode_session(&bytes)
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

    /// A ranking table keyed by a user column makes the lists users' (the
    /// page then says users and items), said among the file's details, not
    /// as a warning, and kept through a session; one keyed by queries does not.
    #[test]
    fn lists_keyed_by_user_are_users() {
        let mut ws = Workspace::default();
        let s = ws
            .load_bytes(
                "recs.csv",
                // (a relevant item no list holds: judgments beyond the lists)
                b"user_id,item_id,score,relevance\nu1,a,0.9,1\nu1,b,0.5,0\nu2,a,0.4,1\nu2,c,,1\n",
                &Default::default(),
            )
            .unwrap();
        assert!(ws.ranking.as_ref().unwrap().by_user);
        assert!(
            s.details
                .iter()
                .any(|d| d.contains("'user_id'): users and items")),
            "{:?}",
            s.details
        );
        assert!(s.warnings.is_empty(), "{:?}", s.warnings);
        let (back, _, _) = decode_session(&encode_session(&ws, &Default::default())).unwrap();
        assert!(back.ranking.as_ref().unwrap().by_user, "a session keeps it");
        let mut ir = Workspace::default();
        ir.load_bytes(
            "run.csv",
            b"query_id,doc_id,score,relevance\nq1,a,0.9,1\n",
            &Default::default(),
        )
        .unwrap();
        assert!(!ir.ranking.as_ref().unwrap().by_user);
    }

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
                "identical_ids",
                names::<crate::core::ranking::IdenticalIds>(),
                conv.identical_ids.name(),
            ),
            (
                "no_relevant",
                names::<crate::core::ranking::NoRelevant>(),
                conv.no_relevant.name(),
            ),
            (
                "qrels_scope",
                names::<crate::core::ranking::Judgments>(),
                conv.qrels_scope.name(),
            ),
            (
                "grades",
                names::<crate::core::ranking::Grades>(),
                conv.grades.name(),
            ),
            (
                "ideal_depth",
                names::<crate::core::ranking_metrics::IdealDepth>(),
                conv.ideal_depth.name(),
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
            (
                "unjudged",
                names::<crate::core::judgments::Unjudged>(),
                conv.unjudged.name(),
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
        v.tests = crate::compare::settings::Settings {
            test: crate::compare::settings::Test::Randomization,
            correction: crate::core::stats::Correction::BenjaminiHochberg,
            alpha: 0.01,
            seed: 7,
            ci: true,
            vs: Some("bm25 & co".into()),
            on: Some("ndcg@10".into()),
        };
        let fragment = v.to_fragment();
        assert!(fragment.contains("diff=0&"), "{fragment}");
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

    /// The end of wasm-bindgen's glue for `--target web`, as Trunk serves it.
    const GLUE: &str = "let wasm;\nfunction initSync(module) { return wasm; }\nasync function __wbg_init(module_or_path) {\n    if (Object.getPrototypeOf(module_or_path) === Object.prototype) { ({ module_or_path } = module_or_path); }\n    if (typeof module_or_path === 'undefined') { module_or_path = new URL('app_bg.wasm', import.meta.url); }\n    globalThis.started = module_or_path;\n}\n\nexport { initSync };\nexport default __wbg_init;\n";

    /// The `script-src` sources of a policy, in order.
    fn script_src(csp: &str) -> Vec<&str> {
        let directive = csp
            .split(';')
            .map(str::trim)
            .find(|d| d.starts_with("script-src "))
            .unwrap();
        directive.split(' ').skip(1).collect()
    }

    #[test]
    fn sha256_is_the_standard_one() {
        use sha2::Digest;
        // FIPS 180-2's example
        assert_eq!(
            base64(&sha256(b"abc")),
            "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0="
        );
        let text: Vec<u8> = (0..1000u32).map(|i| (i * 7 + i / 13) as u8).collect();
        // every padding case (55, 56, 63, 64 bytes ...) and several blocks
        for len in (0..200).chain([999, 1000]) {
            let want: [u8; 32] = sha2::Sha256::digest(&text[..len]).into();
            assert_eq!(sha256(&text[..len]), want, "{len} bytes");
        }
    }

    /// The end of wasm-bindgen's `no-modules` glue, as Trunk builds the
    /// worker's: it defines `wasm_bindgen`, whose start runs the worker's `main`.
    const WORKER_GLUE: &str = "let wasm_bindgen = (function(exports) {\n    async function __wbg_init(module_or_path) {\n        if (Object.getPrototypeOf(module_or_path) === Object.prototype) { ({ module_or_path } = module_or_path); }\n        self.started = module_or_path;\n        self.postMessage({ type: 'ready' });\n    }\n    return Object.assign(__wbg_init, { initSync: () => {} }, exports);\n})({});\n";

    /// A saved report's policy runs its one inline module by its hash and
    /// nothing else: `script-src` is exactly that hash and
    /// `'wasm-unsafe-eval'` (no `data:`, `blob:` or `'unsafe-inline'`, so
    /// an injected `<script src="data:…">` does not run), and workers start
    /// only from `blob:` URLs; the module is the app's glue, its start and
    /// the worker it carries, importing nothing.
    #[test]
    fn a_report_holds_the_app_and_the_session_and_allows_no_request() {
        use base64::Engine;
        use sha2::Digest;
        let session = encode_session(&Workspace::default(), &ViewState::default());
        // the smallest wasm module: magic and version
        let worker_wasm = b"\0asm\x01\0\0\0";
        let html = report_html(
            "a <b> report",
            "p{color:red}</style>",
            GLUE,
            b"\0asm",
            (WORKER_GLUE, worker_wasm),
            &session,
        )
        .unwrap();
        assert!(html.contains("<title>a &lt;b&gt; report</title>"));
        assert_eq!(
            html.matches("</style>").count(),
            1,
            "the stylesheet cannot close its element"
        );
        // the inline module: the text between its tags exactly, hashed as
        // the browser hashes it (the sha2 crate)
        let tag = "<script type=\"module\">";
        assert_eq!(html.matches(tag).count(), 1);
        let start = html.find(tag).unwrap() + tag.len();
        let end = start + html[start..].find("</script>").unwrap();
        let module = &html[start..end];
        let hash = base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(module));
        let csp_tag = "<meta http-equiv=\"Content-Security-Policy\" content=\"";
        let csp_start = html.find(csp_tag).unwrap() + csp_tag.len();
        let csp = &html[csp_start..csp_start + html[csp_start..].find('"').unwrap()];
        assert_eq!(csp, report_csp(&hash));
        assert_eq!(
            script_src(csp),
            [format!("'sha256-{hash}'").as_str(), "'wasm-unsafe-eval'"]
        );
        assert_eq!(
            csp,
            format!("default-src 'none'; script-src 'sha256-{hash}' 'wasm-unsafe-eval'; worker-src blob:; style-src 'unsafe-inline'; img-src data: blob:; object-src 'none'; base-uri 'none'; form-action 'none'")
        );
        // README's statement of it, read from README
        let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
            .unwrap()
            .replace("\n  ", " ");
        let said = readme
            .split("`script-src` is exactly the SHA-256 of its one inline module")
            .nth(1)
            .and_then(|rest| rest.split(')').next())
            .expect("README states the report's script-src");
        assert!(said.contains("and `'wasm-unsafe-eval'`"), "{said}");
        for refused in ["'unsafe-inline'", "data:", "blob:"] {
            assert!(said.contains(&format!("`{refused}`")), "{said}");
            assert!(!script_src(csp).contains(&refused), "{refused}");
        }
        assert!(
            readme.contains("`worker-src blob:`"),
            "README states the report's worker-src"
        );
        // the glue, its default export bound to a name, then its start on the wasm block
        assert!(module.starts_with("let wasm;\n"), "{module}");
        assert!(module.contains("const rankscopeStart = __wbg_init;"));
        assert!(!module.contains("import(") && !module.contains("export default"));
        assert!(module.contains(
            "await rankscopeStart({ module_or_path: await rankscopeInflate(\"rankscope-wasm\") });"
        ));
        // every other script element is a data block
        let scripts = html.matches("<script").count();
        let blocks = html
            .matches("<script type=\"application/octet-stream\"")
            .count();
        assert_eq!((scripts, blocks), (5, 4));
        let block = |id: &str| {
            let start = html.find(&format!("id=\"{id}\">")).unwrap() + id.len() + 6;
            let end = start + html[start..].find('<').unwrap();
            report_session(&html[start..end]).unwrap()
        };
        let gunzip = |bytes: Vec<u8>| {
            let mut out = Vec::new();
            std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&bytes[..]), &mut out)
                .unwrap();
            out
        };
        assert_eq!(block(REPORT_DATA_ID), session);
        assert_eq!(gunzip(block("rankscope-wasm")), b"\0asm");
        assert_eq!(block("rankscope-worker-js"), WORKER_GLUE.as_bytes());
        assert_eq!(gunzip(block("rankscope-worker-wasm")), worker_wasm);
        assert!(report_session("not base64!").is_err());
        // the module runs: node, with the report's blocks, starts the glue on
        // the wasm's bytes; a worker the page starts is the report's (a blob:
        // URL of the worker's glue and boot, whatever URL the page names), and
        // its first message, its compiled wasm, starts the worker's glue
        if std::path::Path::new("/usr/bin/node").exists() {
            let dir = std::env::temp_dir().join(format!("rankscope-report-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            let file = dir.join("module.mjs");
            let blocks = [
                "rankscope-wasm",
                "rankscope-worker-js",
                "rankscope-worker-wasm",
            ]
            .map(|id| (id, base64(&block(id))));
            let blocks = blocks
                .iter()
                .map(|(id, text)| format!("'{id}': '{text}'"))
                .collect::<Vec<_>>()
                .join(", ");
            std::fs::write(
                &file,
                format!(
                    r#"const blocks = {{ {blocks} }};
globalThis.document = {{ getElementById: (id) => ({{ textContent: blocks[id] ?? '' }}) }};
const blobs = new Map();
URL.createObjectURL = (blob) => {{ const url = `blob:report/${{blobs.size}}`; blobs.set(url, blob); return url; }};
globalThis.Worker = class {{
  constructor(url) {{ this.url = url; this.sent = []; }}
  postMessage(m) {{ this.sent.push(m); }}
}};
{module}
const page = [...new Uint8Array(globalThis.started)];
const a = new Worker('./rankscope-worker_loader.js');
const b = new Worker('./rankscope-worker_loader.js');
await new Promise((r) => setTimeout(r, 50));
// the worker's script, run in a scope of its own
const text = await blobs.get(a.url).text();
const scope = {{ posted: [] }};
scope.postMessage = (m) => scope.posted.push(m);
new Function('self', text)(scope);
scope.onmessage({{ data: a.sent[0] }});
await new Promise((r) => setTimeout(r, 10));
console.log(JSON.stringify({{
  page,
  url: a.url, same: a.url === b.url, blobs: blobs.size,
  sent: [a.sent.length, a.sent[0] instanceof WebAssembly.Module, b.sent[0] === a.sent[0]],
  glue: text.startsWith({glue:?}),
  started: scope.started instanceof WebAssembly.Module, posted: scope.posted,
}}));
"#,
                    glue = WORKER_GLUE,
                ),
            )
            .unwrap();
            let out = std::process::Command::new("/usr/bin/node")
                .arg(&file)
                .output()
                .unwrap();
            std::fs::remove_dir_all(&dir).unwrap();
            assert_eq!(
                String::from_utf8_lossy(&out.stdout),
                "{\"page\":[0,97,115,109],\"url\":\"blob:report/0\",\"same\":true,\"blobs\":1,\"sent\":[1,true,true],\"glue\":true,\"started\":true,\"posted\":[{\"type\":\"ready\"}]}\n",
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }

    /// Glue whose default export is written in an export list, or minified,
    /// starts the same way; glue that would end the `<script>` element, or
    /// has no default export, is refused with a reason.
    #[test]
    fn a_report_s_script_starts_any_default_export_and_refuses_what_would_break_out() {
        let listed = GLUE.replace(
            "export { initSync };\nexport default __wbg_init;",
            "export { initSync, __wbg_init as default };",
        );
        let module = report_script(&listed).unwrap();
        assert!(
            module.contains("await __wbg_init({ module_or_path:"),
            "{module}"
        );
        let minified = "async function $a(m){globalThis.s=m}export{x as initSync,$a as default};";
        assert!(report_script(minified)
            .unwrap()
            .contains("await $a({ module_or_path:"));
        for bad in [
            format!("{GLUE}// </SCRIPT><script>alert(1)</script>"),
            format!("{GLUE}/* <!-- */"),
        ] {
            assert!(report_script(&bad)
                .unwrap_err()
                .contains("<script> element"));
        }
        assert!(report_script("export { initSync };")
            .unwrap_err()
            .contains("no default export"));
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
            ("unjudged", all::<crate::core::judgments::Unjudged>()),
            ("identical_ids", all::<ranking::IdenticalIds>()),
            ("no_relevant", all::<ranking::NoRelevant>()),
            ("qrels_scope", all::<ranking::Judgments>()),
            ("grades", all::<ranking::Grades>()),
            ("ideal_depth", all::<rm::IdealDepth>()),
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

    /// A link names the preset in force beside the values it set; an
    /// unknown preset is refused as a value that does not fit.
    #[test]
    fn a_link_carries_the_preset_and_its_values() {
        let mut v = ViewState::default();
        crate::core::presets::apply(&mut v.conv, "spark-mllib").unwrap();
        let text = v.to_fragment();
        assert!(
            text.contains("preset=spark-mllib") && text.contains("grades=binary"),
            "{text}"
        );
        let (back, skipped) = ViewState::from_fragment(&text);
        assert!(skipped.is_empty(), "{skipped:?}");
        assert_eq!(back.conv, v.conv);
        let (bad, skipped) = ViewState::from_fragment("preset=nope&gain=exponential");
        assert_eq!(bad.conv.preset, "");
        assert_eq!(skipped.len(), 1);
        assert!(!ViewState::default().to_fragment().contains("preset"));
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

    /// A version-1 session (no checksum) opens only after the value checks a
    /// file gets, saying it carries no checksum: crafted values are refused
    /// with the reason. In a saved report (which carries the app that wrote
    /// it, and this app writes checksums) a version-1 session is refused.
    #[test]
    fn version_1_sessions_are_validated_and_refused_in_reports() {
        use crate::parse::transfer::{encode_many, Outcome};
        use crate::parse::Parsed;
        let (ws, v2) = example_session();
        let v1 = |change: &dyn Fn(&mut Parsed)| {
            let files: Vec<(String, Outcome)> = (ws.to_files().into_iter())
                .map(|(n, mut p)| {
                    change(&mut p);
                    (n, Ok(p))
                })
                .collect();
            let mut v1 = SESSION_MAGIC_V1.to_vec();
            v1.extend_from_slice(b"tab=binary\n");
            v1.extend_from_slice(&encode_many(&files));
            v1
        };
        let good = v1(&|_| {});
        let (_, _, notes) = decode_session(&good).unwrap();
        assert_eq!(notes, [NO_CHECKSUM_NOTE]);
        let nan = v1(&|p| {
            if let Parsed::Binary(b) = p {
                b.models[0].1[2] = f64::NAN;
            }
        });
        let why = decode_session(&nan).unwrap_err();
        assert!(
            why.starts_with("the session's data is damaged: ")
                && why.contains("score 3 is not a number (NaN), which no file can hold"),
            "{why}"
        );
        let broken = v1(&|p| {
            if let Parsed::Qrels { judgments, .. } = p {
                judgments.hashes[0] ^= 1;
            }
        });
        assert!(decode_session(&broken)
            .unwrap_err()
            .contains("judgments are damaged"));
        // in a report: the checksum is required
        assert!(open_report(&base64(&v2)).is_ok());
        assert!(open_report(&base64(&good))
            .unwrap_err()
            .contains("has no checksum"));
        assert!(open_report("not base64!")
            .unwrap_err()
            .contains("not base64"));
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
