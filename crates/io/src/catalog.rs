//! A team's catalog of runs: the manifest (JSON) and each run's precomputed
//! per-query values file, their types, readers and writers.
//!
//! # The folder
//!
//! ```text
//! catalog/
//!   rankscope-catalog.json      the manifest
//!   qrels.txt                   a judgment set (one or more)
//!   runs/bm25.run               a run: TREC run, run CSV, trec_eval -q output, per-query CSV
//!   values/bm25.rsv             its precomputed per-query values (one file per run)
//! ```
//!
//! Paths in the manifest are relative to the manifest's folder, with `/`
//! between parts, so the folder can be served as it is from any static host.
//!
//! # The manifest (`rankscope_catalog: 1`)
//!
//! ```json
//! {
//!   "rankscope_catalog": 1,
//!   "name": "Team runs on TREC DL 2020",
//!   "description": "",
//!   "conventions": { "ties": "trec", "relevance_level": 1, … },
//!   "metrics": ["ndcg@10", "map", "precision@10"],
//!   "judgments": [{ "id": "qrels", "file": "qrels.txt", "sha256": "…" }],
//!   "runs": [{
//!     "id": "bm25", "name": "BM25", "file": "runs/bm25.run", "format": "trec_run",
//!     "values": "values/bm25.rsv", "sha256": "…", "date": "2026-03-01",
//!     "author": "ana", "description": "", "tags": ["baseline"],
//!     "judgments": "qrels", "metadata": { "method": { "retrieval": { "name": "BM25" } } }
//!   }]
//! }
//! ```
//!
//! - `rankscope_catalog`: the schema version, 1. A reader refuses a version it
//!   does not know (and says where the number is).
//! - `conventions`: every convention the values were computed under, as
//!   `rankscope eval --format json` states them (the core's `Conventions`).
//! - `metrics`: the metric ids of every values file, in this order.
//! - `judgments`: the judgment sets, each an `id`, its `file` and the file's
//!   SHA-256 (lowercase hex) when the catalog was built.
//! - `runs`: one entry per run. `id` is unique (letters, digits, `.`, `_`,
//!   `-`); `name` is what a table shows; `file` the run as given and `sha256`
//!   its SHA-256; `format` the input format it was read as (a format id of
//!   `rankscope eval --input-format`); `values` its per-query values file;
//!   `date` ISO 8601 (`2026-03-01`, `2026-03-01T14:05`, `2026-03-01T14:05:09Z`,
//!   optional; dates of one catalog should share one form, as they sort as
//!   text); `author`, `description`, `tags` free; `judgments` the id of the
//!   set it was scored against; `metadata` a free JSON object. The model for
//!   `metadata` is ir_metadata (Breuer et al., SIGIR 2022): its top-level
//!   sections as keys, `platform` (hardware, operating system, software),
//!   `implementation` (source repository, commit, executable), `data` (test
//!   collection, training data), `method` (`automatic`, `indexing`,
//!   `retrieval`: name, method, base, reranks, …) and `research_goal`.
//!
//! Unknown fields are refused (a misspelt key would otherwise be silently
//! dropped), except inside `metadata`.
//!
//! # A values file (`.rsv`)
//!
//! One per run, so adding a run never rewrites another run's file:
//!
//! | bytes | what |
//! |---|---|
//! | 8 | the magic `RSVALUES` |
//! | 4 | the format version, 1 (u32 little-endian) |
//! | 4 | the header's length H in bytes (u32 little-endian) |
//! | H | the header: JSON, UTF-8 ([`ValuesHeader`]) |
//! | 0–7 | zero bytes up to a multiple of 8 from the file's start |
//! | 8·Q·M | the values: f64 little-endian, metric-major |
//!
//! The values are metric-major: metric `m`'s value on query `q` is the
//! `m · Q + q`-th number, so one metric's column of one run is contiguous
//! (the leaderboard's runs × queries matrix of a metric is one copy per
//! run). NaN stands for a value the metric leaves undefined on that query.
//! The header holds the run's id, the judgment set's id, the metric ids,
//! the query ids, the conventions and the CRC-32 (IEEE, as zlib's `crc32`) of
//! the values' bytes, checked on every read.

use rankscope_core::conventions::Conventions;
use serde::{Deserialize, Serialize};

use crate::parse::error::LoadError;

/// The schema version this reader knows and its writers write.
pub const VERSION: u32 = 1;

/// The manifest's usual file name in a catalog folder.
pub const MANIFEST: &str = "rankscope-catalog.json";

/// A catalog's manifest.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub rankscope_catalog: u32,
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub conventions: Conventions,
    pub metrics: Vec<String>,
    pub judgments: Vec<Judgments>,
    pub runs: Vec<RunEntry>,
}

/// A judgment set (qrels) of the catalog.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Judgments {
    pub id: String,
    pub file: String,
    pub sha256: String,
}

/// One run of the catalog.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunEntry {
    pub id: String,
    pub name: String,
    /// The run's file, relative to the manifest's folder.
    pub file: String,
    /// The input format the file was read as (`trec_run`, `trec_eval_q`, …).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub format: String,
    /// Its precomputed per-query values file, relative to the manifest's folder.
    pub values: String,
    /// SHA-256 of the run's file, lowercase hex.
    pub sha256: String,
    /// ISO 8601 date or date and time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    #[serde(default)]
    pub author: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub tags: Vec<String>,
    /// The id of the judgment set it was scored against.
    pub judgments: String,
    #[serde(default)]
    pub metadata: serde_json::Map<String, serde_json::Value>,
}

impl Manifest {
    /// An empty catalog under `conventions` and `metrics`.
    pub fn new(name: &str, conventions: Conventions, metrics: Vec<String>) -> Manifest {
        Manifest {
            rankscope_catalog: VERSION,
            name: name.into(),
            description: String::new(),
            conventions,
            metrics,
            judgments: Vec::new(),
            runs: Vec::new(),
        }
    }

    /// The run with id `id`.
    pub fn run(&self, id: &str) -> Option<&RunEntry> {
        self.runs.iter().find(|r| r.id == id)
    }

    /// The manifest as pretty JSON, ending with a newline.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }
}

/// 1-based line and column of byte `at` in `text` (columns count characters).
fn position(text: &str, at: usize) -> (u64, u64) {
    let at = at.min(text.len());
    let before = &text.as_bytes()[..at];
    let line = before.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
    let start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let column = text[start..at].chars().count() as u64 + 1;
    (line, column)
}

/// Where the JSON string `"value"` first appears after the key `"key"`
/// (the position of its opening quote), or of the key alone, or (0, 0).
fn locate(text: &str, key: &str, value: Option<&str>) -> (u64, u64) {
    let key_pat = format!("\"{key}\"");
    let mut from = 0;
    while let Some(i) = text[from..].find(&key_pat) {
        let k = from + i;
        let after = k + key_pat.len();
        let rest = text[after..].trim_start();
        let rest = rest.strip_prefix(':').map(str::trim_start);
        match (rest, value) {
            (Some(r), None) => return position(text, text.len() - r.len()),
            (Some(r), Some(v)) => {
                let quoted = serde_json::to_string(v).unwrap_or_default();
                if r.starts_with(&quoted) {
                    return position(text, text.len() - r.len());
                }
            }
            _ => {}
        }
        from = after;
    }
    (0, 0)
}

/// Whether `date` is an ISO 8601 calendar date, optionally with a time
/// (`T`, hours and minutes, optional seconds and fraction) and a zone
/// (`Z` or `±hh:mm`).
pub fn is_iso_date(date: &str) -> bool {
    let b = date.as_bytes();
    let digits = |s: &[u8]| !s.is_empty() && s.iter().all(u8::is_ascii_digit);
    let num = |s: &[u8]| -> u32 { s.iter().fold(0, |n, d| n * 10 + (d - b'0') as u32) };
    if b.len() < 10 || !digits(&b[0..4]) || b[4] != b'-' || !digits(&b[5..7]) || b[7] != b'-' {
        return false;
    }
    if !digits(&b[8..10]) {
        return false;
    }
    let (month, day) = (num(&b[5..7]), num(&b[8..10]));
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return false;
    }
    let mut rest = &b[10..];
    if rest.is_empty() {
        return true;
    }
    if rest[0] != b'T' || rest.len() < 6 {
        return false;
    }
    let hm = &rest[1..6];
    if !digits(&hm[0..2]) || hm[2] != b':' || !digits(&hm[3..5]) {
        return false;
    }
    if num(&hm[0..2]) > 23 || num(&hm[3..5]) > 59 {
        return false;
    }
    rest = &rest[6..];
    if rest.len() >= 3 && rest[0] == b':' {
        if !digits(&rest[1..3]) || num(&rest[1..3]) > 60 {
            return false;
        }
        rest = &rest[3..];
        if rest.first() == Some(&b'.') {
            let n = rest[1..].iter().take_while(|c| c.is_ascii_digit()).count();
            if n == 0 {
                return false;
            }
            rest = &rest[1 + n..];
        }
    }
    match rest {
        [] | [b'Z'] => true,
        [s, h1, h2, b':', m1, m2] if *s == b'+' || *s == b'-' => digits(&[*h1, *h2, *m1, *m2]),
        _ => false,
    }
}

/// Whether `id` may name a run or a judgment set (letters, digits, `.`,
/// `_`, `-`; not empty; not starting with `.`): it becomes a file name.
pub fn is_id(id: &str) -> bool {
    !id.is_empty()
        && !id.starts_with('.')
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// A manifest from its text. Errors say `file:line:column`: serde's
/// position for broken JSON or a wrong field, the version's position for a
/// version this reader does not know, the offending value's for a
/// duplicate id, an unknown judgment set, a bad id or a bad date.
pub fn parse_manifest(file: &str, text: &str) -> Result<Manifest, LoadError> {
    // the version first, so a future manifest is refused for its version
    // and not for a field this reader does not know
    #[derive(Deserialize)]
    struct Probe {
        rankscope_catalog: Option<serde_json::Value>,
    }
    let fail = |(line, column): (u64, u64), expected: &str, found: String| {
        LoadError::single(file, line, column, expected, found, None)
    };
    let json_error = |e: serde_json::Error, expected: &str| {
        LoadError::single(
            file,
            e.line() as u64,
            e.column() as u64,
            expected,
            e.to_string(),
            None,
        )
    };
    let probe: Probe = serde_json::from_str(text)
        .map_err(|e| json_error(e, "a Rankscope catalog manifest (a JSON object)"))?;
    match probe.rankscope_catalog {
        None => {
            return Err(fail(
                (1, 1),
                "a Rankscope catalog manifest (a \"rankscope_catalog\": 1 field)",
                "no \"rankscope_catalog\" field".into(),
            ))
        }
        Some(v) if v.as_u64() != Some(VERSION as u64) => {
            return Err(LoadError::single(
                file,
                locate(text, "rankscope_catalog", None).0,
                locate(text, "rankscope_catalog", None).1,
                format!("catalog schema version {VERSION}"),
                format!("version {v}"),
                Some("this manifest was written by another version of Rankscope".into()),
            ))
        }
        Some(_) => {}
    }
    let m: Manifest =
        serde_json::from_str(text).map_err(|e| json_error(e, "a catalog manifest (version 1)"))?;
    let mut err = LoadError::new(file);
    let mut problem = |key: &str, value: &str, expected: String, found: String| {
        let (line, column) = locate(text, key, Some(value));
        err.push(crate::parse::error::Problem {
            line,
            column,
            expected,
            found,
            hint: None,
        });
    };
    let mut sets = std::collections::HashSet::new();
    for j in &m.judgments {
        if !is_id(&j.id) {
            problem(
                "id",
                &j.id,
                "a judgment set id (letters, digits, '.', '_', '-')".into(),
                format!("'{}'", j.id),
            );
        }
        if !sets.insert(j.id.as_str()) {
            problem(
                "id",
                &j.id,
                "judgment set ids used once".into(),
                format!("'{}' twice", j.id),
            );
        }
    }
    let mut ids = std::collections::HashSet::new();
    for r in &m.runs {
        if !is_id(&r.id) {
            problem(
                "id",
                &r.id,
                "a run id (letters, digits, '.', '_', '-')".into(),
                format!("'{}'", r.id),
            );
        }
        if !ids.insert(r.id.as_str()) {
            problem(
                "id",
                &r.id,
                "run ids used once".into(),
                format!("'{}' twice", r.id),
            );
        }
        if !sets.contains(r.judgments.as_str()) {
            problem(
                "judgments",
                &r.judgments,
                "the id of one of the manifest's judgment sets".into(),
                format!("'{}' (run '{}')", r.judgments, r.id),
            );
        }
        if let Some(d) = &r.date {
            if !is_iso_date(d) {
                problem(
                    "date",
                    d,
                    "an ISO 8601 date (2026-03-01, 2026-03-01T14:05, 2026-03-01T14:05:09Z)".into(),
                    format!("'{d}' (run '{}')", r.id),
                );
            }
        }
    }
    if m.metrics.is_empty() {
        problem("metrics", "", "at least one metric".into(), "none".into());
    }
    if err.is_empty() {
        Ok(m)
    } else {
        Err(err)
    }
}

/// A values file's magic bytes.
pub const VALUES_MAGIC: &[u8; 8] = b"RSVALUES";
/// The values file's format version.
pub const VALUES_VERSION: u32 = 1;

/// A values file's header.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ValuesHeader {
    /// The run's id in the manifest.
    pub run: String,
    /// The judgment set's id it was scored against.
    pub judgments: String,
    pub metrics: Vec<String>,
    pub queries: Vec<String>,
    pub conventions: Conventions,
    /// CRC-32 (IEEE) of the values' bytes.
    pub crc32: u32,
}

/// One run's per-query values: `values[m * queries.len() + q]`.
#[derive(Clone, Debug, PartialEq)]
pub struct RunValues {
    pub run: String,
    pub judgments: String,
    pub metrics: Vec<String>,
    pub queries: Vec<String>,
    pub conventions: Conventions,
    /// Metric-major, NaN where undefined.
    pub values: Vec<f64>,
}

impl RunValues {
    /// Metric `m`'s column (one value per query).
    pub fn column(&self, m: usize) -> &[f64] {
        let q = self.queries.len();
        &self.values[m * q..(m + 1) * q]
    }

    /// The column of the metric with id `metric`.
    pub fn metric(&self, metric: &str) -> Option<&[f64]> {
        let m = self.metrics.iter().position(|x| x == metric)?;
        Some(self.column(m))
    }
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut c = flate2::Crc::new();
    c.update(bytes);
    c.sum()
}

/// The values file's bytes.
///
/// # Panics
///
/// If `values` is not `metrics × queries` long.
pub fn write_values(v: &RunValues) -> Vec<u8> {
    assert_eq!(v.values.len(), v.metrics.len() * v.queries.len());
    let mut payload = Vec::with_capacity(v.values.len() * 8);
    for x in &v.values {
        payload.extend_from_slice(&x.to_le_bytes());
    }
    let header = ValuesHeader {
        run: v.run.clone(),
        judgments: v.judgments.clone(),
        metrics: v.metrics.clone(),
        queries: v.queries.clone(),
        conventions: v.conventions.clone(),
        crc32: crc32(&payload),
    };
    let header = serde_json::to_vec(&header).unwrap_or_default();
    let mut out = Vec::with_capacity(16 + header.len() + 8 + payload.len());
    out.extend_from_slice(VALUES_MAGIC);
    out.extend_from_slice(&VALUES_VERSION.to_le_bytes());
    out.extend_from_slice(&(header.len() as u32).to_le_bytes());
    out.extend_from_slice(&header);
    while out.len() % 8 != 0 {
        out.push(0);
    }
    out.extend_from_slice(&payload);
    out
}

/// A values file from its bytes; every error names `file` (line 0: a
/// binary file has no lines, the message says which part is wrong).
pub fn read_values(file: &str, bytes: &[u8]) -> Result<RunValues, LoadError> {
    let fail = |expected: &str, found: String| LoadError::single(file, 0, 0, expected, found, None);
    if bytes.len() < 16 || &bytes[..8] != VALUES_MAGIC {
        return Err(fail(
            "a Rankscope values file (starting with RSVALUES)",
            crate::parse::error::shown(&bytes[..bytes.len().min(8)]),
        ));
    }
    let u32_at =
        |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
    let version = u32_at(8);
    if version != VALUES_VERSION {
        return Err(fail(
            &format!("values file version {VALUES_VERSION}"),
            format!("version {version}"),
        ));
    }
    let h = u32_at(12) as usize;
    let Some(header_bytes) = bytes.get(16..16 + h) else {
        return Err(fail(
            &format!("a header of {h} bytes"),
            format!("a file of {} bytes", bytes.len()),
        ));
    };
    let header: ValuesHeader = serde_json::from_slice(header_bytes)
        .map_err(|e| fail("the values file's header (JSON)", e.to_string()))?;
    let mut seen = std::collections::HashSet::with_capacity(header.queries.len());
    if let Some(q) = header.queries.iter().find(|q| !seen.insert(q.as_str())) {
        return Err(fail(
            "each query once in the header",
            format!("query '{}' twice", rankscope_core::text::capped(q.clone())),
        ));
    }
    let start = (16 + h).div_ceil(8) * 8;
    let want = header.metrics.len() * header.queries.len();
    let payload = bytes.get(start..).unwrap_or(&[]);
    if start > bytes.len() || payload.len() != want * 8 {
        return Err(fail(
            &format!(
                "{want} values ({} metrics × {} queries, {} bytes)",
                header.metrics.len(),
                header.queries.len(),
                want * 8
            ),
            format!("{} bytes of values", payload.len()),
        ));
    }
    let sum = crc32(payload);
    if sum != header.crc32 {
        return Err(LoadError::single(
            file,
            0,
            0,
            format!("values whose CRC-32 is {:08x}", header.crc32),
            format!("{sum:08x}"),
            Some("the file is damaged: rebuild it with rankscope catalog build".into()),
        ));
    }
    let values = payload
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
        .collect();
    Ok(RunValues {
        run: header.run,
        judgments: header.judgments,
        metrics: header.metrics,
        queries: header.queries,
        conventions: header.conventions,
        values,
    })
}

/// Whether `values` (read from `entry.values`) belongs to `entry` of
/// `manifest`: the same run, judgment set and conventions, and every
/// metric of the manifest; the message says which differs.
pub fn check_values(
    manifest: &Manifest,
    entry: &RunEntry,
    values: &RunValues,
) -> Result<(), String> {
    let file = &entry.values;
    if values.run != entry.id {
        return Err(format!(
            "{file}: the values of run '{}', not of '{}'",
            values.run, entry.id
        ));
    }
    if values.judgments != entry.judgments {
        return Err(format!(
            "{file}: run '{}' was scored against other judgments ('{}', the manifest says '{}'); rebuild it with rankscope catalog build",
            entry.id, values.judgments, entry.judgments
        ));
    }
    if values.conventions != manifest.conventions {
        let ours = rankscope_core::conventions::describe(
            &manifest.conventions,
            rankscope_core::registry::Kind::Ranking,
        );
        let theirs = rankscope_core::conventions::describe(
            &values.conventions,
            rankscope_core::registry::Kind::Ranking,
        );
        let diff: Vec<String> = ours
            .iter()
            .zip(&theirs)
            .filter(|(a, b)| a.1 != b.1)
            .map(|(a, b)| format!("{} {} (the catalog: {})", a.0, b.1, a.1))
            .collect();
        return Err(format!(
            "{file}: run '{}' was computed under other conventions than the catalog's: {}",
            entry.id,
            if diff.is_empty() {
                "thresholds".to_string()
            } else {
                diff.join(", ")
            }
        ));
    }
    if let Some(m) = manifest
        .metrics
        .iter()
        .find(|m| !values.metrics.contains(m))
    {
        return Err(format!(
            "{file}: run '{}' has no values of {m} (it holds: {})",
            entry.id,
            values.metrics.join(", ")
        ));
    }
    Ok(())
}

/// One metric's runs × queries matrix over the queries every run has a
/// value for (run-major: run `r`'s values are `values[r * queries.len()..]`),
/// queries in the first run's order.
#[derive(Clone, Debug, PartialEq)]
pub struct MetricMatrix {
    pub metric: String,
    pub queries: Vec<String>,
    pub values: Vec<f64>,
    /// Queries some run has but that are left out (missing or NaN in another run).
    pub dropped: usize,
}

/// The matrix of `metric` over `runs` (in their order); `None` when a run
/// lacks the metric.
pub fn metric_matrix(runs: &[&RunValues], metric: &str) -> Option<MetricMatrix> {
    let columns: Vec<&[f64]> = runs
        .iter()
        .map(|r| r.metric(metric))
        .collect::<Option<_>>()?;
    let Some(first) = runs.first() else {
        return Some(MetricMatrix {
            metric: metric.into(),
            queries: Vec::new(),
            values: Vec::new(),
            dropped: 0,
        });
    };
    // each run's query positions by id (the same order in every run built
    // by one catalog: then no lookup is needed)
    let same = runs.iter().all(|r| r.queries == first.queries);
    let maps: Vec<std::collections::HashMap<&str, usize>> = if same {
        Vec::new()
    } else {
        runs.iter()
            .map(|r| {
                r.queries
                    .iter()
                    .enumerate()
                    .map(|(i, q)| (q.as_str(), i))
                    .collect()
            })
            .collect()
    };
    let all = if same {
        first.queries.len()
    } else {
        let mut all = std::collections::HashSet::new();
        for r in runs {
            all.extend(r.queries.iter().map(String::as_str));
        }
        all.len()
    };
    let mut kept: Vec<(usize, Vec<usize>)> = Vec::new();
    for (i, q) in first.queries.iter().enumerate() {
        let at: Option<Vec<usize>> = if same {
            Some(vec![i; runs.len()])
        } else {
            maps.iter().map(|m| m.get(q.as_str()).copied()).collect()
        };
        if let Some(at) = at {
            if at.iter().zip(&columns).all(|(&j, c)| !c[j].is_nan()) {
                kept.push((i, at));
            }
        }
    }
    let n = kept.len();
    let mut values = vec![0.0; runs.len() * n];
    for (r, c) in columns.iter().enumerate() {
        for (k, (_, at)) in kept.iter().enumerate() {
            values[r * n + k] = c[at[r]];
        }
    }
    Some(MetricMatrix {
        metric: metric.into(),
        queries: kept
            .iter()
            .map(|(i, _)| first.queries[*i].clone())
            .collect(),
        values,
        dropped: all - n,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Manifest {
        let mut m = Manifest::new(
            "team",
            Conventions::default(),
            vec!["ndcg@10".into(), "ap".into()],
        );
        m.judgments.push(Judgments {
            id: "qrels".into(),
            file: "qrels.txt".into(),
            sha256: "ab".repeat(32),
        });
        let mut meta = serde_json::Map::new();
        meta.insert(
            "method".into(),
            serde_json::json!({"retrieval": {"name": "BM25"}}),
        );
        m.runs.push(RunEntry {
            id: "bm25".into(),
            name: "BM25".into(),
            file: "runs/bm25.run".into(),
            format: "trec_run".into(),
            values: "values/bm25.rsv".into(),
            sha256: "cd".repeat(32),
            date: Some("2026-03-01".into()),
            author: "ana".into(),
            description: "".into(),
            tags: vec!["baseline".into()],
            judgments: "qrels".into(),
            metadata: meta,
        });
        m
    }

    #[test]
    fn a_manifest_reads_back_what_was_written() {
        let m = sample();
        assert_eq!(parse_manifest("m.json", &m.to_json()).unwrap(), m);
        assert!(m.to_json().contains("\"rankscope_catalog\": 1"));
    }

    #[test]
    fn damaged_manifests_say_file_line_column() {
        let text = sample().to_json();
        // a comma removed after the name: serde's position
        let broken = text.replacen("\"team\",", "\"team\"", 1);
        let e = parse_manifest("m.json", &broken).unwrap_err().to_string();
        assert!(e.starts_with("m.json:4:3: "), "{e}");
        // an unknown version: where its number is
        let future = text.replacen("\"rankscope_catalog\": 1", "\"rankscope_catalog\": 2", 1);
        let e = parse_manifest("m.json", &future).unwrap_err().to_string();
        assert!(
            e.starts_with("m.json:2:24: expected catalog schema version 1, found version 2"),
            "{e}"
        );
        // a misspelt field
        let typo = text.replacen("\"author\"", "\"autor\"", 1);
        let e = parse_manifest("m.json", &typo).unwrap_err().to_string();
        assert!(e.contains("unknown field `autor`"), "{e}");
        // not a manifest at all
        let e = parse_manifest("m.json", "{\"runs\": []}")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("m.json:1:1: "), "{e}");
    }

    #[test]
    fn wrong_references_ids_and_dates_are_placed() {
        let mut m = sample();
        m.runs[0].judgments = "other".into();
        m.runs[0].date = Some("01/03/2026".into());
        let mut twin = m.runs[0].clone();
        twin.date = None;
        m.runs.push(twin);
        let text = m.to_json();
        let e = parse_manifest("m.json", &text).unwrap_err();
        assert_eq!(e.problems.len(), 4, "{e}");
        let s = e.to_string();
        assert!(s.contains("expected the id of one of the manifest's judgment sets, found 'other' (run 'bm25')"), "{s}");
        assert!(
            s.contains("expected run ids used once, found 'bm25' twice"),
            "{s}"
        );
        assert!(s.contains("found '01/03/2026'"), "{s}");
        // the date's line is where it is written
        let line = text.lines().position(|l| l.contains("01/03/2026")).unwrap() as u64 + 1;
        assert!(
            e.problems.iter().any(|p| p.line == line && p.column > 1),
            "{s}"
        );
    }

    #[test]
    fn iso_dates() {
        for ok in [
            "2026-03-01",
            "2026-03-01T14:05",
            "2026-03-01T14:05:09",
            "2026-03-01T14:05:09Z",
            "2026-03-01T14:05:09.123+02:00",
        ] {
            assert!(is_iso_date(ok), "{ok}");
        }
        for bad in [
            "2026-3-01",
            "2026-13-01",
            "2026-03-01 14:05",
            "20260301",
            "2026-03-01T25:00",
            "",
        ] {
            assert!(!is_iso_date(bad), "{bad}");
        }
    }

    fn values() -> RunValues {
        RunValues {
            run: "bm25".into(),
            judgments: "qrels".into(),
            metrics: vec!["ndcg@10".into(), "ap".into()],
            queries: vec!["q1".into(), "q2".into(), "q3".into()],
            conventions: Conventions::default(),
            values: vec![0.5, 0.25, f64::NAN, 0.1, 0.2, 0.3],
        }
    }

    #[test]
    fn a_values_file_reads_back_bit_for_bit() {
        let v = values();
        let bytes = write_values(&v);
        assert_eq!(&bytes[..8], b"RSVALUES");
        let h = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
        let start = (16 + h).div_ceil(8) * 8;
        assert_eq!(bytes.len(), start + 6 * 8);
        // metric-major: ap on q1 is the fourth number
        assert_eq!(&bytes[start + 24..start + 32], &0.1f64.to_le_bytes());
        let back = read_values("v.rsv", &bytes).unwrap();
        assert_eq!(back.column(1), &[0.1, 0.2, 0.3]);
        assert!(back.column(0)[2].is_nan());
        assert_eq!(back.metric("ndcg@10").unwrap()[..2], [0.5, 0.25]);
        assert_eq!((back.run.as_str(), back.queries.len()), ("bm25", 3));
        // against zlib's crc32 of the payload (Python: zlib.crc32(struct.pack('<6d', ...)))
        let header: ValuesHeader = serde_json::from_slice(&bytes[16..16 + h]).unwrap();
        assert_eq!(header.crc32, crc32(&bytes[start..]));
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926); // the CRC-32 check value
    }

    #[test]
    fn damaged_values_files_are_refused() {
        let bytes = write_values(&values());
        let mut flipped = bytes.clone();
        let last = flipped.len() - 1;
        flipped[last] ^= 1;
        let e = read_values("v.rsv", &flipped).unwrap_err().to_string();
        assert!(
            e.starts_with("v.rsv: expected values whose CRC-32 is"),
            "{e}"
        );
        let e = read_values("v.rsv", &bytes[..bytes.len() - 8])
            .unwrap_err()
            .to_string();
        assert!(e.contains("expected 6 values"), "{e}");
        let e = read_values("v.rsv", b"not a values file")
            .unwrap_err()
            .to_string();
        assert!(e.contains("RSVALUES"), "{e}");
        let mut v2 = bytes.clone();
        v2[8] = 2;
        let e = read_values("v.rsv", &v2).unwrap_err().to_string();
        assert!(e.contains("found version 2"), "{e}");
    }

    #[test]
    fn a_values_file_naming_a_query_twice_is_refused() {
        let mut v = values();
        v.queries[2] = "q1".into();
        let e = read_values("v.rsv", &write_values(&v))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("expected each query once in the header, found query 'q1' twice"),
            "{e}"
        );
    }

    #[test]
    fn values_of_other_judgments_or_conventions_are_refused() {
        let m = sample();
        let mut v = values();
        assert_eq!(check_values(&m, &m.runs[0], &v), Ok(()));
        v.judgments = "other".into();
        let e = check_values(&m, &m.runs[0], &v).unwrap_err();
        assert!(e.contains("scored against other judgments ('other'"), "{e}");
        v = values();
        v.conventions.gain = rankscope_core::ranking_metrics::Gain::Exponential;
        let e = check_values(&m, &m.runs[0], &v).unwrap_err();
        assert!(
            e.contains(
                "other conventions than the catalog's: gain exponential (the catalog: linear)"
            ),
            "{e}"
        );
        v = values();
        v.metrics[1] = "p@5".into();
        let e = check_values(&m, &m.runs[0], &v).unwrap_err();
        assert!(e.contains("no values of ap"), "{e}");
    }

    #[test]
    fn a_metric_matrix_keeps_the_queries_every_run_has() {
        let a = values();
        let mut b = values();
        b.run = "b".into();
        b.queries = vec!["q3".into(), "q1".into(), "q4".into()];
        b.values = vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let m = metric_matrix(&[&a, &b], "ap").unwrap();
        assert_eq!(m.queries, ["q1", "q3"]);
        assert_eq!(m.values, [0.1, 0.3, 5.0, 4.0]);
        assert_eq!(m.dropped, 2); // q2 (only a), q4 (only b)
        let m = metric_matrix(&[&a, &b], "ndcg@10").unwrap();
        assert_eq!(m.queries, ["q1"]); // q3 is NaN in a
        assert!(metric_matrix(&[&a], "p@5").is_none());
    }
}
