//! `rankscope trec_eval`: trec_eval 10.0 (NIST, github.com/usnistgov/trec_eval)
//! as a drop-in — the same command line, the same output and messages byte
//! for byte, the same exit codes — checked against trec_eval's own test
//! suite (`tests/trec_eval/`).
//!
//! The flow is trec_eval.c's: read the relevance file and the results,
//! mark the measures (`-m`, default `official`), then for each judged
//! query in `strcmp` order join its ranking with its judgments
//! ([`rels`]), compute every marked measure ([`measures`]), optionally
//! convert to z-scores, print (`-q`) and accumulate; finally average and
//! print the summary.
//!
//! Not reproduced: `-D` debug traces (the level is accepted and `-D n.qid`
//! still restricts the evaluation to that query), and trec_eval's reads of
//! uninitialised or freed memory (see `rels`, `measures::rbp`, `prefs`).

mod args;
pub mod cfmt;
pub mod input;
pub mod measures;
#[cfg(not(target_arch = "wasm32"))]
mod native;
pub mod prefs;
pub mod rels;
pub mod stream;
mod text;

use cfmt::{atof, atol, c_long, fixed, msort};
use input::{RelInfo, Results};
use measures::{Calc, Ctx, Init, Params, Shape, MEASURES, NICKNAMES};
use std::io::{Read, Write};

/// Which trec_eval to be: the core's convention of the same name. 10.0
/// (the default), or 9.0.x (9.0.8, the version pytrec_eval bundles):
/// recall points become document cutoffs by `(long)(x + 0.9)`
/// (iprec_at_recall, 11pt_avg), judged queries without results are skipped
/// rather than fatal (and `-c` counts them without evaluating a stand-in
/// ranking), and rbp, rbp_resid and unj do not exist yet.
pub use rankscope_core::ranking_metrics::TrecEvalVersion as Version;

/// Reads `10.0` (or `10`) and `9.0.x` (`9`, `9.0`, `9.0.8`, ...), as
/// `RANKSCOPE_TREC_EVAL_VERSION` may name them.
pub fn parse_version(s: &str) -> Option<Version> {
    match s {
        "10" | "10.0" => Some(Version::V10),
        _ if s == "9" || s.starts_with("9.0") => Some(Version::V9),
        _ => None,
    }
}

/// `VERSIONID` as each release's Makefile compiles it in.
fn version_id(version: Version) -> &'static str {
    match version {
        Version::V10 => "10.0-rc3",
        Version::V9 => "9.0.7",
    }
}

/// Measures a version does not have.
fn lacks(version: Version, measure: &str) -> bool {
    version == Version::V9 && matches!(measure, "rbp" | "rbp_resid" | "unj")
}

/// A failure: what goes to stderr and the exit code.
#[derive(Clone)]
struct Exit(String, i32);

/// The exit status of trec_eval's abort() (SIGABRT): its buffered standard
/// output is lost.
const ABORTED: i32 = 134;

/// The evaluation settings (trec_eval's EPI).
struct Epi {
    version: Version,
    query_flag: bool,
    summary_flag: bool,
    debug_query: Option<Vec<u8>>,
    average_complete: bool,
    judged_only: bool,
    num_docs_in_coll: i64,
    relevance_level: i64,
    max_docs: i64,
    rel_format: String,
    results_format: String,
    zscore_file: Option<String>,
    /// `-m name.params`, in command-line order
    meas_args: Vec<(String, String)>,
}

/// Runs trec_eval 10.0 with `args` (without the program name). Returns the exit code.
pub fn run(args: &[String], stdin: &mut dyn Read, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    run_as(Version::V10, args, stdin, out, err)
}

/// Runs the given trec_eval version.
pub fn run_as(
    version: Version,
    args: &[String],
    stdin: &mut dyn Read,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let mut buffer = Vec::new();
    // standard output leaves in whole blocks of C's stdio buffer while the
    // queries are evaluated (a -q run of millions of lines is not held), so
    // an abort() loses what C's would: the last, partial block
    let result = {
        let mut drain = |buffer: &mut Vec<u8>| {
            if buffer.len() >= 1 << 20 {
                let whole = buffer.len() / STDIO_BLOCK * STDIO_BLOCK;
                let _ = out.write_all(&buffer[..whole]);
                buffer.drain(..whole);
            }
        };
        main(
            version,
            cfg!(not(target_arch = "wasm32")),
            args,
            &read_file,
            stdin,
            &mut buffer,
            None,
            &mut drain,
        )
    };
    let code = match result {
        Ok(()) => 0,
        Err(Exit(message, code)) => {
            let _ = err.write_all(message.as_bytes());
            code
        }
    };
    if code == ABORTED {
        buffer.truncate(buffer.len() / STDIO_BLOCK * STDIO_BLOCK);
    }
    let _ = out.write_all(&buffer);
    let _ = out.flush();
    code
}

/// glibc's stdio buffer for a file or pipe (st_blksize).
const STDIO_BLOCK: usize = 4096;

/// One query's value of one measure at full precision, as trec_eval holds it
/// before printing (after `-Z`).
#[derive(Clone, Debug, PartialEq)]
pub struct QueryValue {
    pub qid: String,
    pub measure: String,
    pub value: f64,
}

/// The per-query values a trec_eval command line computes (what `-q`
/// prints, unrounded), or what it writes to standard error.
pub fn query_values(version: Version, args: &[String]) -> Result<Vec<QueryValue>, String> {
    let mut values = Vec::new();
    let mut out = Vec::new();
    main(
        version,
        false,
        args,
        &read_file,
        &mut std::io::empty(),
        &mut out,
        Some(&mut values),
        &mut |_| {},
    )
    .map_err(|Exit(message, _)| message)?;
    Ok(values)
}

/// What a trec_eval command line prints to standard output, its files read
/// from `files` (name, bytes) instead of the disk (the page's worker has
/// none), or what it writes to standard error.
pub fn in_memory(
    version: Version,
    args: &[String],
    files: &[(&str, &[u8])],
) -> Result<Vec<u8>, String> {
    let read = |path: &str| -> Option<Vec<u8>> {
        let (_, bytes) = files.iter().find(|(name, _)| *name == path)?;
        (!bytes.is_empty()).then(|| input::prepare(bytes.to_vec()))
    };
    let mut out = Vec::new();
    main(
        version,
        false,
        args,
        &read,
        &mut std::io::empty(),
        &mut out,
        None,
        &mut |_| {},
    )
    .map_err(|Exit(message, _)| message)?;
    Ok(out)
}

#[allow(clippy::too_many_arguments)]
fn main(
    version: Version,
    native: bool,
    args: &[String],
    read_file: &dyn Fn(&str) -> Option<Vec<u8>>,
    stdin: &mut dyn Read,
    out: &mut Vec<u8>,
    values: Option<&mut Vec<QueryValue>>,
    drain: &mut dyn FnMut(&mut Vec<u8>),
) -> Result<(), Exit> {
    let mut epi = Epi {
        version,
        query_flag: false,
        summary_flag: true,
        debug_query: None,
        average_complete: false,
        judged_only: false,
        num_docs_in_coll: 0,
        relevance_level: 1,
        max_docs: i64::MAX,
        rel_format: "qrels".into(),
        results_format: "trec_results".into(),
        zscore_file: None,
        meas_args: Vec::new(),
    };
    let mut marked = vec![false; MEASURES.len()];
    let mut any_marked = false;
    let mut help = false;
    let (opts, operands) = args::parse(args);
    for opt in opts {
        let (c, arg) = match opt {
            args::Opt::Error(message) => return Err(Exit(message + text::USAGE, 1)),
            args::Opt::Flag(c, arg) => (c, arg.unwrap_or_default()),
        };
        match c {
            'h' => help = true,
            'v' => {
                return Err(Exit(
                    format!("trec_eval version {}\n", version_id(version)),
                    0,
                ))
            }
            'q' => epi.query_flag = true,
            'm' => {
                mark_measure(&mut epi, &mut marked, &arg)?;
                any_marked = true;
            }
            'c' => epi.average_complete = true,
            'l' => epi.relevance_level = atol(arg.as_bytes()),
            'n' => epi.summary_flag = false,
            'D' => {
                if let Some((_, query)) = arg.split_once('.') {
                    epi.debug_query = Some(query.as_bytes().to_vec());
                }
            }
            'J' => epi.judged_only = true,
            'N' => epi.num_docs_in_coll = atol(arg.as_bytes()),
            'M' => epi.max_docs = atol(arg.as_bytes()),
            'R' => epi.rel_format = arg,
            'T' => epi.results_format = arg,
            'Z' => epi.zscore_file = Some(arg),
            _ => {}
        }
    }
    if help {
        print_help(&epi, &marked, out);
        return Ok(());
    }
    let [rel_file, results_file] = operands.as_slice() else {
        return Err(Exit(text::USAGE.into(), 1));
    };

    // the page's worker has no threads nor files
    #[cfg(target_arch = "wasm32")]
    let _ = native;
    #[cfg(not(target_arch = "wasm32"))]
    if native {
        let sink = Sink { out, values, drain };
        return native::run(
            &mut epi,
            &mut marked,
            any_marked,
            rel_file,
            results_file,
            stdin,
            sink,
        );
    }
    let rel_bytes = std::sync::OnceLock::new();
    let rel_info = read_rel_info(&epi, rel_file, read_file, &rel_bytes, false)?;
    if epi.results_format != "trec_results" {
        return Err(Exit(
            format!(
                "trec_eval: Illegal retrieval results format '{}'\n",
                epi.results_format
            ),
            2,
        ));
    }
    let quit = |m: String| Exit(format!("{m}trec_eval: Quit in file '{results_file}'\n"), 2);
    let results_bytes = if results_file.starts_with('-') {
        let mut bytes = Vec::new();
        let _ = stdin.read_to_end(&mut bytes);
        (!bytes.is_empty()).then(|| input::prepare(bytes))
    } else {
        read_file(results_file)
    }
    .ok_or_else(|| {
        quit(format!(
            "trec_eval.get_results: Cannot read results file '{results_file}'\n"
        ))
    })?;
    let results = input::results(&results_bytes)
        .map_err(|line| quit(format!("trec_eval.get_results: Malformed line {line}\n")))?;

    let z_bytes;
    let zscores = match &epi.zscore_file {
        Some(path) => {
            let cannot = || {
                Exit(
                    format!("trec_eval.get_zscores: Cannot read zscores file '{path}'\n"),
                    255,
                )
            };
            z_bytes = read_file(path).ok_or_else(cannot)?;
            Some(input::zscores(&z_bytes).map_err(|line| {
                Exit(
                    format!("trec_eval.get_zscores: Malformed line {line}\n"),
                    255,
                )
            })?)
        }
        None => None,
    };

    if !any_marked {
        mark_measure(&mut epi, &mut marked, "official")?;
    }
    let active = init_measures(&epi, &marked)?;
    let sink = Sink { out, values, drain };
    evaluate(&epi, &active, &rel_info, &results, zscores.as_ref(), sink)
}

/// The relevance file, read and parsed as `-R` says (its bytes kept in `bytes`).
/// `bytes_in_two`: a qrels file is parsed as two halves at once.
fn read_rel_info<'b>(
    epi: &Epi,
    rel_file: &str,
    read_file: impl Fn(&str) -> Option<Vec<u8>>,
    bytes: &'b std::sync::OnceLock<Vec<u8>>,
    bytes_in_two: bool,
) -> Result<RelInfo<'b>, Exit> {
    Ok(match epi.rel_format.as_str() {
        "qrels" | "qrels_jg" => {
            let jg = epi.rel_format == "qrels_jg";
            let who = if jg {
                "trec_eval.get_qrels_jg"
            } else {
                "trec_eval.get_qrels"
            };
            let quit = |m: String| Exit(format!("{m}trec_eval: Quit in file '{rel_file}'\n"), 2);
            let rel_bytes = read_file(rel_file)
                .ok_or_else(|| quit(format!("{who}: Cannot read qrels file '{rel_file}'\n")))?;
            let rel_bytes = bytes.get_or_init(|| rel_bytes);
            if jg {
                RelInfo::Jg(input::qrels_jg(rel_bytes).map_err(|e| match e {
                    input::JgError::Malformed(line) => {
                        quit(format!("{who}: Malformed line {line}\n"))
                    }
                    input::JgError::Duplicate(doc) => quit(format!(
                        "trec_eval.get_qrels: duplicate docs {}\n",
                        String::from_utf8_lossy(doc)
                    )),
                })?)
            } else {
                #[cfg(not(target_arch = "wasm32"))]
                let qrels = if bytes_in_two {
                    input::qrels_in_two
                } else {
                    input::qrels
                };
                #[cfg(target_arch = "wasm32")]
                let qrels = {
                    let _ = bytes_in_two;
                    input::qrels
                };
                RelInfo::Qrels(
                    qrels(rel_bytes)
                        .map_err(|line| quit(format!("{who}: Malformed line {line}\n")))?,
                )
            }
        }
        "prefs" | "qrels_prefs" => {
            let qrels = epi.rel_format == "qrels_prefs";
            let quit = |m: String| Exit(format!("{m}trec_eval: Quit in file '{rel_file}'\n"), 2);
            let rel_bytes = read_file(rel_file).ok_or_else(|| {
                quit(format!(
                    "trec_eval.get_prefs: Cannot read prefs file '{rel_file}'\n"
                ))
            })?;
            let who = if qrels {
                "trec_eval.get_qrels_prefs"
            } else {
                "trec_eval.get_prefs"
            };
            let rel_bytes = bytes.get_or_init(|| rel_bytes);
            RelInfo::Prefs(
                input::prefs(rel_bytes, qrels)
                    .map_err(|line| quit(format!("{who}: Malformed line {line}\n")))?,
            )
        }
        other => {
            return Err(Exit(
                format!("trec_eval: Illegal rel_format '{other}'\n"),
                2,
            ))
        }
    })
}

/// A file's bytes as trec_eval reads them, or None when it cannot be read
/// or is empty.
fn read_file(path: &str) -> Option<Vec<u8>> {
    let bytes = std::fs::read(path).ok()?;
    (!bytes.is_empty()).then(|| input::prepare(bytes))
}

/// `mark_measure`: `name[.params]`, a nickname or a measure.
fn mark_measure(epi: &mut Epi, marked: &mut [bool], arg: &str) -> Result<(), Exit> {
    let name = match arg.split_once('.') {
        Some((name, params)) => {
            if params.is_empty() {
                return Err(Exit(
                    format!("trec_eval: improper measure in parameter '{name}'\ntrec_eval: illegal measure '{name}'\n"),
                    1,
                ));
            }
            epi.meas_args.push((name.to_string(), params.to_string()));
            name
        }
        None => arg,
    };
    let illegal = || Exit(format!("trec_eval: illegal measure '{name}'\n"), 1);
    let version = epi.version;
    let mut mark = |single: &str| match MEASURES
        .iter()
        .position(|m| m.name == single && !lacks(version, single))
    {
        Some(i) => {
            marked[i] = true;
            Ok(())
        }
        None => Err(illegal()),
    };
    match NICKNAMES.iter().find(|n| n.0 == name) {
        Some((_, names)) => names
            .iter()
            .filter(|n| !lacks(version, n))
            .try_for_each(|n| mark(n)),
        None => mark(name),
    }
}

fn print_help(epi: &Epi, marked: &[bool], out: &mut Vec<u8>) {
    let rule = "\n-----------------------\n";
    let mut s = format!("{}{rule}", text::HELP);
    for format in [&epi.results_format, &epi.rel_format] {
        if let Some((_, explanation)) = text::FORMATS.iter().find(|f| f.0 == format.as_str()) {
            s.push_str(explanation);
            s.push_str(rule);
        }
    }
    s.push_str("Individual measure documentation for requested measures\n");
    let mut any = false;
    for (m, _) in MEASURES.iter().zip(marked).filter(|p| *p.1) {
        any = true;
        s.push_str(&format!("{}\n{}", m.name, text::explanation(m.name)));
    }
    if !any {
        s.push_str("-- No measures indicated.\n   Request measure documentation using <-m measure> on command line\n");
    }
    out.extend_from_slice(s.as_bytes());
}

/// A marked measure after initialisation: its parameters and value slots.
struct Active {
    m: &'static measures::Measure,
    params: Params,
    /// index of its first value in the value array, and how many values
    at: usize,
    len: usize,
}

/// The `init_meas` procedures: parameters from the first matching `-m
/// name.params`, value names, slots in table order.
fn init_measures(epi: &Epi, marked: &[bool]) -> Result<(Vec<Active>, Vec<String>), Exit> {
    let mut active = Vec::new();
    let mut names: Vec<String> = Vec::new();
    for (m, _) in MEASURES.iter().zip(marked).filter(|p| *p.1) {
        let given = epi
            .meas_args
            .iter()
            .find(|a| a.0 == m.name)
            .map(|a| a.1.as_str());
        let cannot = |message: String| {
            Exit(
                format!(
                    "{message}trec_eval: Cannot initialize measure '{}'\n",
                    m.name
                ),
                2,
            )
        };
        let at = names.len();
        let params = match m.init {
            Init::Empty => Params::None,
            Init::Single => {
                names.push(m.name.into());
                Params::None
            }
            Init::CutLong(default) => {
                let cuts = match given {
                    Some(s) => long_cutoffs(s).map_err(cannot)?,
                    None => default.to_vec(),
                };
                names.extend(cuts.iter().map(|c| format!("{}_{c}", m.name)));
                Params::Cuts(cuts)
            }
            Init::CutDouble(default) => {
                let cuts = match given {
                    Some(s) => double_cutoffs(s).map_err(cannot)?,
                    None => default.to_vec(),
                };
                // snprintf into strlen(name) + 10 bytes
                let room = m.name.len() + 9;
                names.extend(cuts.iter().map(|c| {
                    let mut name = format!("{}_{}", m.name, fixed(*c, 3, 2));
                    name.truncate(room);
                    name
                }));
                Params::Floats(cuts)
            }
            Init::ParamDouble(default) => {
                names.push(param_name(m.name, given));
                Params::Floats(match given {
                    Some(s) => s.split(',').map(|v| atof(v.as_bytes())).collect(),
                    None => default.to_vec(),
                })
            }
            Init::ParamPair => {
                let pairs = match given {
                    Some(s) => param_pairs(s).map_err(cannot)?,
                    None => Vec::new(),
                };
                names.push(param_name(m.name, given));
                Params::Pairs(pairs)
            }
        };
        active.push(Active {
            m,
            params,
            at,
            len: names.len() - at,
        });
    }
    Ok((active, names))
}

fn param_name(name: &str, given: Option<&str>) -> String {
    match given {
        Some(p) => format!("{name}_{p}"),
        None => name.to_string(),
    }
}

/// `get_long_cutoffs`: sorted by C's `(int)(a - b)`, positive, distinct.
fn long_cutoffs(s: &str) -> Result<Vec<i64>, String> {
    let mut cuts: Vec<i64> = s.split(',').map(|c| atol(c.as_bytes())).collect();
    msort(&mut cuts, &|a: &i64, b: &i64| a.wrapping_sub(*b) as i32);
    if cuts[0] <= 0 {
        return Err("trec_eval: Negative cutoff detected\n".into());
    }
    if cuts.windows(2).any(|w| w[0] == w[1]) {
        return Err("trec_eval: duplicate cutoffs detected\n".into());
    }
    Ok(cuts)
}

/// `get_double_cutoffs`: sorted, distinct.
fn double_cutoffs(s: &str) -> Result<Vec<f64>, String> {
    let mut cuts: Vec<f64> = s.split(',').map(|c| atof(c.as_bytes())).collect();
    msort(&mut cuts, &|a: &f64, b: &f64| {
        if a < b {
            -1
        } else if a > b {
            1
        } else {
            0
        }
    });
    if cuts.windows(2).any(|w| w[0] == w[1]) {
        return Err("trec_eval: duplicate cutoffs detected\n".into());
    }
    Ok(cuts)
}

/// `get_param_pairs`: `name=value` items separated by commas.
fn param_pairs(s: &str) -> Result<Vec<(String, f64)>, String> {
    let mut last = b',';
    for &c in s.as_bytes() {
        if c == b',' {
            if last == b',' {
                break;
            }
            last = b',';
        } else if c == b'=' {
            if last == b'=' {
                last = b',';
                break;
            }
            last = b'=';
        }
    }
    if last != b'=' {
        return Err(format!("trec_eval: malformed pair parameters in '{s}'\n"));
    }
    Ok(s.split(',')
        .map(|item| {
            let (name, value) = item.split_once('=').unwrap_or(("", item));
            (name.to_string(), atof(value.as_bytes()))
        })
        .collect())
}

/// Where the evaluation's results go: trec_eval's lines (drained in
/// blocks as queries finish) and, when asked, the unrounded values.
struct Sink<'a> {
    out: &'a mut Vec<u8>,
    values: Option<&'a mut Vec<QueryValue>>,
    drain: &'a mut dyn FnMut(&mut Vec<u8>),
}

/// One query's values (after `-Z`) and its relstring: what the summary
/// and `-q` read of it.
struct QueryOut {
    q: Vec<f64>,
    relstring: Vec<u8>,
}

/// One query's outcome, computed on any thread.
type Outcome = Result<QueryOut, Exit>;

/// Everything a query's evaluation reads: the settings, the measures, the
/// judgments, and what `te_form_res_rels` carries into each query.
struct Eval<'a> {
    epi: &'a Epi,
    active: &'a [Active],
    names: &'a [String],
    rel_info: &'a RelInfo<'a>,
    zscores: Option<&'a input::Zscores<'a>>,
    ctx: Ctx,
    join: rels::Join,
    /// the carry before each judged query
    carries: Vec<rels::Carry>,
}

impl<'a> Eval<'a> {
    /// `formed(qi)`: whether the query at `qi` is joined with its results
    /// when it is reached (the carry passes through those only).
    fn new(
        epi: &'a Epi,
        (active, names): &'a (Vec<Active>, Vec<String>),
        rel_info: &'a RelInfo<'a>,
        zscores: Option<&'a input::Zscores<'a>>,
        formed: impl Fn(usize) -> bool,
    ) -> Self {
        let forms = active
            .iter()
            .any(|a| matches!(a.m.calc, Calc::Rels(_) | Calc::Relstring));
        let mut carry = rels::Carry::default();
        let carries = match rel_info {
            RelInfo::Qrels(queries) if forms => queries
                .iter()
                .enumerate()
                .map(|(qi, query)| {
                    let before = carry;
                    if formed(qi) {
                        carry = rels::carry_after(&query.docs, carry);
                    }
                    before
                })
                .collect(),
            _ => vec![carry; rel_info.len()],
        };
        Eval {
            epi,
            active,
            names,
            rel_info,
            zscores,
            ctx: Ctx {
                relevance_level: epi.relevance_level,
                num_docs_in_coll: epi.num_docs_in_coll,
                truncated_recall_cutoffs: epi.version == Version::V9,
            },
            join: rels::Join {
                relevance_level: epi.relevance_level,
                max_docs: epi.max_docs,
                judged_only: epi.judged_only,
            },
            carries,
        }
    }

    /// Whether the query at `qi` is evaluated at all (`-D n.qid`).
    fn wanted(&self, qi: usize) -> bool {
        self.epi
            .debug_query
            .as_deref()
            .is_none_or(|d| d == self.rel_info.qid(qi))
    }

    /// The judged query at `qi` against its retrieved documents (`bogus`:
    /// the stand-in ranking of a query without results under `-c`).
    fn query(&self, qi: usize, docs: &[(&[u8], f64)], bogus: bool) -> Outcome {
        let (active, names, rel_info) = (self.active, self.names, self.rel_info);
        let mut carry = self.carries[qi];
        let mut q = vec![0.0f64; names.len()];
        // the ranking is sorted only for measures that read it (not num_q, not prefs)
        let ranking = std::cell::OnceCell::new();
        let ranked = || ranking.get_or_init(|| rels::rank(docs));
        let mut rr: Option<rels::ResRels> = None;
        let mut jg: Option<Vec<rels::ResRels>> = None;
        let mut pr: Option<prefs::ResultsPrefs> = None;
        let mut relstring = Vec::new();
        for a in active {
            let cannot = |message: String| {
                Exit(
                    format!(
                        "{message}trec_eval: Can't calculate measure '{}'\n",
                        a.m.name
                    ),
                    4,
                )
            };
            let values = &mut q[a.at..a.at + a.len];
            match a.m.calc {
                Calc::Runid => {}
                Calc::NumQ => values[0] = 1.0,
                Calc::Rels(_) | Calc::Relstring => {
                    if rr.is_none() {
                        let RelInfo::Qrels(queries) = rel_info else {
                            return Err(cannot(
                                "trec_eval.form_res_qrels: rel_info format not qrels or results format not trec_results\n"
                                    .into(),
                            ));
                        };
                        rr = Some(
                            rels::form(self.join, &queries[qi].docs, ranked(), &mut carry)
                                .map_err(cannot)?,
                        );
                    }
                    let rr = rr.as_ref().expect("formed above");
                    match a.m.calc {
                        Calc::Rels(f) => f(&self.ctx, rr, &a.params, values).map_err(cannot)?,
                        _ => relstring = measures::relstring(rr, &a.params),
                    }
                }
                Calc::Jg(f) => {
                    if jg.is_none() {
                        let RelInfo::Jg(queries) = rel_info else {
                            return Err(cannot(
                                "trec_eval: rel_info format not qrels_jg or results format not trec_results\n".into(),
                            ));
                        };
                        jg = Some(
                            rels::form_jg(self.join, &queries[qi].groups, ranked())
                                .map_err(cannot)?,
                        );
                    }
                    f(
                        &self.ctx,
                        jg.as_deref().expect("formed above"),
                        &a.params,
                        values,
                    );
                }
                Calc::Prefs(f) => {
                    if pr.is_none() {
                        let RelInfo::Prefs(queries) = rel_info else {
                            return Err(cannot(
                                "trec_eval.form_prefs_info: prefs_info format not (prefs or qrels_prefs) or results format not trec_results\n"
                                    .into(),
                            ));
                        };
                        let formed = prefs::form(&queries[qi].lines, docs, self.epi.max_docs);
                        pr = Some(formed.map_err(|e| match e {
                            prefs::PrefsError::Fail(message) => cannot(message),
                            prefs::PrefsError::Abort(message) => Exit(message, ABORTED),
                        })?);
                    }
                    if let Some(v) = f(pr.as_ref().expect("formed above")) {
                        values[0] = v;
                    }
                }
            }
        }
        if bogus {
            for (value, name) in q.iter_mut().zip(names) {
                if name == "num_ret"
                    || name == "utility"
                    || name.starts_with("unj")
                    || name == "rbp_resid"
                {
                    *value = 0.0;
                }
            }
            // only a relstring without parameters is cleared (trec_eval matches the name)
            if names.iter().any(|n| n == "relstring") {
                relstring.clear();
            }
        }
        if let Some(zs) = self.zscores {
            to_zscores(zs, rel_info.qid(qi), names, &mut q);
        }
        Ok(QueryOut { q, relstring })
    }

    /// The per-query loop and the summary of trec_eval.c's main, in the
    /// judged queries' order: `take(qi)` is the outcome of the query at
    /// `qi` against its results (None when the run has none), computed
    /// here or already on other threads.
    fn report(
        &self,
        mut take: impl FnMut(usize) -> Option<Outcome>,
        run_id: &[u8],
        sink: Sink,
    ) -> Result<(), Exit> {
        let Sink {
            out,
            mut values,
            drain,
        } = sink;
        let (epi, active, names, rel_info) = (self.epi, self.active, self.names, self.rel_info);
        let z = if self.zscores.is_some() { "Z" } else { "" };
        let mut accum = vec![0.0f64; names.len()];
        let mut num_queries = 0i64;
        let bogus_docs: Vec<(&[u8], f64)> = vec![(b"ceci_nest_pas_un_docno", 1.0)];
        for qi in 0..rel_info.len() {
            if !self.wanted(qi) {
                continue;
            }
            let qid = rel_info.qid(qi);
            let QueryOut { q, relstring } = match take(qi) {
                Some(outcome) => outcome?,
                None if epi.version == Version::V9 => continue,
                None if epi.average_complete => self.query(qi, &bogus_docs, true)?,
                None => {
                    return Err(Exit(
                        format!(
                            "trec_eval: result qid '{}' not found in qrels\n",
                            String::from_utf8_lossy(qid)
                        ),
                        4,
                    ))
                }
            };
            if let Some(sink) = values.as_deref_mut() {
                for a in active
                    .iter()
                    .filter(|a| !matches!(a.m.shape, Shape::Runid | Shape::Relstring))
                {
                    for k in a.at..a.at + a.len {
                        let qid = String::from_utf8_lossy(qid).into_owned();
                        sink.push(QueryValue {
                            qid,
                            measure: names[k].clone(),
                            value: q[k],
                        });
                    }
                }
            }
            for a in active {
                for k in a.at..a.at + a.len {
                    if a.m.shape != Shape::Relstring {
                        accum[k] += q[k];
                    }
                }
                if !epi.query_flag {
                    continue;
                }
                for k in a.at..a.at + a.len {
                    match a.m.shape {
                        Shape::Runid | Shape::NumQ | Shape::Geometric => {}
                        Shape::Count | Shape::NumRel if z.is_empty() => {
                            line(out, "", &names[k], qid, c_long(q[k]).to_string().as_bytes())
                        }
                        Shape::Relstring => {
                            let mut quoted = b"'".to_vec();
                            quoted.extend_from_slice(&relstring);
                            quoted.push(b'\'');
                            line(out, "", &names[k], qid, &quoted);
                        }
                        _ => line(out, z, &names[k], qid, fixed(q[k], 6, 4).as_bytes()),
                    }
                }
            }
            num_queries += 1;
            drain(out);
        }
        if num_queries == 0 {
            return Err(Exit(
                "trec_eval: No queries with both results and relevance info\n".into(),
                7,
            ));
        }
        let denominator = if epi.average_complete {
            rel_info.len() as i64
        } else {
            num_queries
        };
        for a in active {
            let values = &mut accum[a.at..a.at + a.len];
            match a.m.shape {
                Shape::NumQ => values[0] = denominator as f64,
                Shape::NumRel if epi.average_complete => match all_relevant(rel_info) {
                    Some(n) => values[0] = n as f64,
                    None => {
                        return Err(Exit(
                            "trec_eval: m_num_rel: rel_info format not qrels or qrels_jg\ntrec_eval: Can't print measure 'num_rel'\n".into(),
                            8,
                        ))
                    }
                },
                Shape::Mean if denominator != 0 => {
                    values.iter_mut().for_each(|v| *v /= denominator as f64)
                }
                Shape::Geometric if denominator > 0 => {
                    let mut sum = values[0];
                    if epi.average_complete {
                        sum += (denominator - num_queries) as f64 * 0.00001f64.ln();
                    }
                    values[0] = (sum / denominator as f64).exp();
                }
                _ => {}
            }
            if !epi.summary_flag {
                continue;
            }
            for k in a.at..a.at + a.len {
                match a.m.shape {
                    Shape::Relstring => {}
                    Shape::NumQ | Shape::Count | Shape::NumRel if z.is_empty() => line(
                        out,
                        "",
                        &names[k],
                        b"all",
                        c_long(accum[k]).to_string().as_bytes(),
                    ),
                    _ => line(out, z, &names[k], b"all", fixed(accum[k], 6, 4).as_bytes()),
                }
            }
            if a.m.shape == Shape::Runid {
                line(out, "", "runid", b"all", run_id);
            }
        }
        Ok(())
    }
}

/// The run's queries evaluated in order, one at a time (no thread).
fn evaluate(
    epi: &Epi,
    measures: &(Vec<Active>, Vec<String>),
    rel_info: &RelInfo,
    results: &Results,
    zscores: Option<&input::Zscores>,
    sink: Sink,
) -> Result<(), Exit> {
    let found = |qi: usize| results.docs_of(rel_info.qid(qi));
    let eval = Eval::new(epi, measures, rel_info, zscores, |qi| {
        formed(epi, rel_info, qi, found(qi).is_some())
    });
    eval.report(
        |qi| found(qi).map(|docs| eval.query(qi, docs, false)),
        results.run_id,
        sink,
    )
}

/// The run's queries evaluated on every core, then reported in order.
#[cfg(not(target_arch = "wasm32"))]
fn evaluate_on_threads(
    epi: &Epi,
    measures: &(Vec<Active>, Vec<String>),
    rel_info: &RelInfo,
    results: &Results,
    zscores: Option<&input::Zscores>,
    sink: Sink,
) -> Result<(), Exit> {
    let found = |qi: usize| results.docs_of(rel_info.qid(qi));
    let eval = Eval::new(epi, measures, rel_info, zscores, |qi| {
        formed(epi, rel_info, qi, found(qi).is_some())
    });
    let n = rel_info.len();
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    // blocks of queries taken in turn: a thread's slow queries do not hold the other
    const BLOCK: usize = 256;
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut slots: Vec<Option<Outcome>> = (0..n).map(|_| None).collect();
    let blocks: Vec<Vec<(usize, Option<Outcome>)>> = std::thread::scope(|s| {
        let work = || {
            let mut done = Vec::new();
            loop {
                let from = next.fetch_add(BLOCK, std::sync::atomic::Ordering::Relaxed);
                if from >= n {
                    break done;
                }
                for qi in from..(from + BLOCK).min(n) {
                    if eval.wanted(qi) {
                        done.push((qi, found(qi).map(|docs| eval.query(qi, docs, false))));
                    }
                }
            }
        };
        let others: Vec<_> = (1..threads.min(n.div_ceil(BLOCK)).max(1))
            .map(|_| s.spawn(work))
            .collect();
        let mut all = vec![work()];
        all.extend(
            others
                .into_iter()
                .map(|t| t.join().unwrap_or_else(|e| std::panic::resume_unwind(e))),
        );
        all
    });
    for (qi, outcome) in blocks.into_iter().flatten() {
        slots[qi] = outcome;
    }
    eval.report(|qi| slots[qi].take(), results.run_id, sink)
}

/// Whether the judged query at `qi` is joined with a ranking when reached
/// (`found`: the run has results for it): every query `-D` keeps, but
/// 9.0.x skips those without results.
fn formed(epi: &Epi, rel_info: &RelInfo, qi: usize, found: bool) -> bool {
    epi.debug_query
        .as_deref()
        .is_none_or(|d| d == rel_info.qid(qi))
        && (found || epi.version == Version::V10)
}

/// `%s%-22s\t%s\t%s\n`, padding by bytes as C does.
fn line(out: &mut Vec<u8>, prefix: &str, name: &str, qid: &[u8], value: &[u8]) {
    out.extend_from_slice(prefix.as_bytes());
    out.extend_from_slice(name.as_bytes());
    out.extend(std::iter::repeat_n(
        b' ',
        22usize.saturating_sub(name.len()),
    ));
    out.push(b'\t');
    out.extend_from_slice(qid);
    out.push(b'\t');
    out.extend_from_slice(value);
    out.push(b'\n');
}

/// m_num_rel.c's count under -c: judgments with a value above 0 in every query.
fn all_relevant(rel_info: &RelInfo) -> Option<i64> {
    let positive = |d: &&(&[u8], i64)| d.1 > 0;
    match rel_info {
        RelInfo::Qrels(qs) => Some(qs.iter().flat_map(|q| &q.docs).filter(positive).count() as i64),
        RelInfo::Jg(qs) => Some(
            qs.iter()
                .flat_map(|q| q.groups.iter().flatten())
                .filter(positive)
                .count() as i64,
        ),
        RelInfo::Prefs(_) => None,
    }
}

const MISSING_ZSCORE: f64 = -1000000.0;

/// `te_convert_to_zscore`: (value − mean) / sd per query and measure name.
fn to_zscores(zs: &input::Zscores, qid: &[u8], names: &[String], q: &mut [f64]) {
    let Some(query) = input::bsearch(&zs.queries, qid, |e| e.0) else {
        q.iter_mut().for_each(|v| *v = MISSING_ZSCORE);
        return;
    };
    for (value, name) in q.iter_mut().zip(names) {
        *value = match input::bsearch(&query.1, name.as_bytes(), |e| e.0) {
            None => MISSING_ZSCORE,
            Some(&(_, mean, sd)) if sd != 0.0 => (*value - mean) / sd,
            Some(&(_, mean, _)) if *value == mean => 0.0,
            Some(_) => MISSING_ZSCORE,
        };
    }
}
