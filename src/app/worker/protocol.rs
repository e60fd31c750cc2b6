//! The messages between the page and its loading workers: the page asks one
//! [`Job`], a worker answers [`Reply`]s, each encoded with postcard after its
//! job's [`Id`]; big buffers and files travel beside the encoded message
//! ([`Side`]). Also the page's book of running jobs ([`Book`]): which a newer
//! job of the same [`Lane`] supersedes, which the loader's Cancel stops,
//! whose replies are still wanted. Plain Rust (no web types), so natively tested.
//!
//! On the wire a message is a JS array: the encoded `(id, body)` as a
//! `Uint8Array`, then the sides (a `File`, or a `Uint8Array` whose buffer is
//! transferred, not copied). Side `i` is the array's element `i + 1`.

use serde::{de::DeserializeOwned, Deserialize, Serialize};

use crate::parse::split::Part;
use crate::parse::{Format, LoadOptions};

/// A job's number, unique on its page (0: no job, the worker's `Ready`).
pub type Id = u32;

/// A value sent beside the encoded message: its place among the message's sides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Side(pub u32);

/// Where a parse reads its bytes: a dropped file (sent beside), or a URL
/// downloaded in the worker (shown as `name`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Input {
    File(Side),
    Url { url: String, name: String },
}

/// What the user can force about a file ([`LoadOptions`]' fields a page sets).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Options {
    pub format: Option<Format>,
    pub positive: Option<String>,
    pub one_vs_rest: Option<u32>,
}

impl From<&LoadOptions> for Options {
    fn from(o: &LoadOptions) -> Self {
        Options {
            format: o.format,
            positive: o.positive_label.clone(),
            one_vs_rest: o.one_vs_rest,
        }
    }
}

impl From<Options> for LoadOptions {
    fn from(o: Options) -> Self {
        LoadOptions {
            format: o.format,
            positive_label: o.positive,
            one_vs_rest: o.one_vs_rest,
            ..LoadOptions::default()
        }
    }
}

/// A [`Part`] as its id (`whole`, `head`, `tail`).
mod part {
    use super::Part;
    use serde::{Deserialize, Deserializer, Serializer};
    pub fn serialize<S: Serializer>(p: &Part, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(p.id())
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Part, D::Error> {
        let id = <&str>::deserialize(d)?;
        Part::from_id(id).ok_or_else(|| serde::de::Error::custom("no such part"))
    }
}

/// One model's curve for the Diagnostics panel: its columns beside the
/// message (little-endian `f64` thresholds, `u64` counts), its colour index
/// and its threshold's place on the score axis.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Curve {
    pub name: String,
    pub color: u32,
    pub thresholds: Side,
    pub tps: Side,
    pub fps: Side,
    pub at: f64,
}

/// What the page asks of a worker. The worker's handler of each is named in
/// its doc (`inside.rs`); the page's caller in `job.rs`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Job {
    /// Run the hot code once before any job (a spare's warm-up). No reply.
    Warm,
    /// Parse a file or URL (`parse`) → [`Reply::Parsed`].
    Parse {
        input: Input,
        options: Options,
        #[serde(with = "part")]
        part: Part,
    },
    /// The bundled example generated and parsed, the files in `only` (all
    /// when `None`) → [`Reply::Files`].
    Example {
        only: Option<Vec<String>>,
        one_vs_rest: Option<u32>,
    },
    /// The significance tests of a request written by
    /// [`crate::compare::page::ask`] (or `ask_auc` when `auc`), beside →
    /// [`Reply::Compared`].
    Compare { request: Side, auc: bool },
    /// The relation files of a session (beside) evaluated by trec_eval
    /// `version` → [`Reply::Files`].
    Relations {
        session: Side,
        version: crate::core::ranking_metrics::TrecEvalVersion,
    },
    /// The Diagnostics panel of `models` → [`Reply::Text`]: `options` as
    /// the link's `diag` holds them (`diagnose::Options::to_text`), the
    /// score scale and threshold rule beside them.
    Diagnose {
        models: Vec<Curve>,
        options: String,
        logits: bool,
        rule: crate::core::binary::ThresholdRule,
        range: (f64, f64),
    },
    /// The multi-class report of the matrices read again, and the bundled
    /// example's files named in `example`, the models named and coloured as
    /// the page does → [`Reply::Text`].
    ClassReport {
        files: Vec<Input>,
        example: Vec<String>,
        zero_division: String,
        models: Vec<(String, u32)>,
    },
    /// The panel of values computed elsewhere (`files`: a block of
    /// `transfer::encode_many`, beside), its Compare view under `tests`
    /// against `baseline` → [`Reply::Values`].
    Values {
        files: Side,
        measure: String,
        filter: String,
        tests: crate::compare::page::Settings,
        baseline: Option<String>,
        alone: bool,
    },
    /// A metric table in an export format → [`Reply::Text`].
    Export {
        table: crate::report::Table,
        format: crate::report::Export,
    },
    /// trec_eval's `-q` output of a session (beside), with the table's
    /// `columns` → [`Reply::Text`].
    TrecEval {
        session: Side,
        columns: Vec<crate::core::registry::MetricId>,
    },
    /// A saved report: the session (beside) and the app's files fetched
    /// again (stylesheet, JavaScript, wasm) → [`Reply::Text`].
    Report {
        title: String,
        urls: [String; 3],
        session: Side,
    },
    /// The leaderboard's tests of one metric: a [`BoardTests`] encoded
    /// beside (`request`), its runs × queries matrix beside (`values`,
    /// little-endian `f64`, run-major) → [`Reply::Board`] (a [`Ranked`]).
    /// The request and answer travel encoded beside, so the dashboard,
    /// which shares this enum, carries no code for them.
    Leaderboard { request: Side, values: Side },
    /// [`Job::Warm`] for the spare kept for the views' jobs (no flag set:
    /// the loads' spares are the ones counted). No reply.
    WarmViews,
}

/// What the leaderboard's tests of one metric need besides its matrix.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BoardTests {
    pub runs: u32,
    pub queries: u32,
    pub settings: crate::core::leaderboard::Settings,
    pub baseline: Option<u32>,
}

/// One run tested against a reference run ([`crate::core::leaderboard::Comparison`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Versus {
    pub run: u32,
    pub mean_diff: f64,
    pub p: f64,
    pub adjusted: f64,
    pub significant: bool,
}

/// A leaderboard column's tests ([`crate::core::leaderboard::Column`] but
/// the means, which the page has).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ranked {
    pub best: u32,
    /// Per run: in the best run's tie group.
    pub members: Vec<bool>,
    /// Each other run against the best.
    pub against_best: Vec<Versus>,
    /// Per run: (rank, low, high) of its 95% rank interval.
    pub ranks: Vec<(u32, u32, u32)>,
    pub versus: Option<Vec<Versus>>,
}

impl From<&crate::core::leaderboard::Column> for Ranked {
    fn from(c: &crate::core::leaderboard::Column) -> Ranked {
        let versus = |v: &[crate::core::leaderboard::Comparison]| {
            v.iter()
                .map(|c| Versus {
                    run: c.run as u32,
                    mean_diff: c.mean_diff,
                    p: c.p,
                    adjusted: c.adjusted,
                    significant: c.significant,
                })
                .collect()
        };
        Ranked {
            best: c.best as u32,
            members: c.ties.members.clone(),
            against_best: versus(&c.ties.comparisons),
            ranks: (c.ranks.iter())
                .map(|r| (r.rank as u32, r.low as u32, r.high as u32))
                .collect(),
            versus: c.versus.as_deref().map(versus),
        }
    }
}

/// A job's progress: `done` of `total` steps (bytes for a parse; `total` 0
/// when unknown) and, for a parse, the rows read so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress {
    pub done: u64,
    pub total: u64,
    pub rows: u64,
}

/// A worker's stage times of a parse (ms; `began_at`, `posted_at` since the
/// epoch, for the benchmark's timeline).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Times {
    pub parse_ms: f64,
    pub curves_ms: f64,
    pub encode_ms: f64,
    pub read_ms: f64,
    pub began_at: f64,
    pub posted_at: f64,
}

/// A parse's answer. Beside it (`parse::transfer`): the outcome's block
/// ([`Parsed::DATA`]), its curves' block ([`Parsed::CURVES`]), then its big
/// columns ([`Parsed::COLUMNS`] on).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Parsed {
    pub times: Times,
    /// `PartEnd::split` and `PartEnd::lines` of the part read.
    pub split: bool,
    pub lines: u64,
    /// `data` is a per-query values file's models, one by one.
    pub per_query: bool,
}

impl Parsed {
    pub const DATA: Side = Side(0);
    pub const CURVES: Side = Side(1);
    pub const COLUMNS: u32 = 2;
}

/// What a worker answers: any number of `Progress`, then one of the others.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Reply {
    /// The worker's wasm runs (id 0): it can take a job.
    Ready,
    Progress(Progress),
    /// The job could not be done, and why.
    Failed(String),
    Parsed(Parsed),
    /// A block of `transfer::encode_many` (beside: side 0).
    Files,
    /// The significance tests' cells and the Compare view's panel
    /// ([`crate::compare::page::Answer`]).
    Compared {
        cells: Vec<f64>,
        html: String,
    },
    /// A text, or a panel's HTML.
    Text(String),
    /// The values panel's parts ([`crate::values::panel`]).
    Values([String; 3]),
    /// A leaderboard column's tests: a [`Ranked`] encoded beside (side 0).
    Board,
}

/// A leaderboard request or answer as the bytes that travel beside a message.
pub fn encode_board<T: Serialize>(body: &T) -> Vec<u8> {
    postcard::to_allocvec(body).unwrap_or_default()
}

/// What [`encode_board`] wrote (any bytes are safe to read).
pub fn decode_board<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    postcard::from_bytes(bytes).map_err(|_| "a damaged leaderboard message".into())
}

/// `body` as job `id`'s message.
pub fn encode<T: Serialize>(id: Id, body: &T) -> Vec<u8> {
    // only a serializer's own failure (none for these types) leaves it empty,
    // which the other side reads as damaged
    postcard::to_allocvec(&(id, body)).unwrap_or_default()
}

/// The id and body of a message [`encode`] wrote (any bytes are safe to read).
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<(Id, T), String> {
    postcard::from_bytes(bytes).map_err(|_| "a damaged message from the worker".into())
}

/// Which view a job answers. In an exclusive lane a newer job supersedes
/// the older (its worker is stopped, its replies ignored); loads and
/// exports run side by side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lane {
    /// Files and URLs parsed (the loader's Cancel stops them all).
    Load,
    Compare,
    Diagnostics,
    /// One-vs-rest and the multi-class report.
    Classes,
    Values,
    Relations,
    /// Exports and saved reports, each a file of its own.
    Export,
    /// The leaderboard's tests of one metric.
    Board,
}

impl Lane {
    /// Whether a newer job of this lane supersedes the older.
    pub fn exclusive(self) -> bool {
        !matches!(self, Lane::Load | Lane::Export)
    }

    /// Whether the job gets a worker of its own (not a spare): the
    /// relation files, which may run for long next to a drop.
    pub fn fresh(self) -> bool {
        matches!(self, Lane::Relations | Lane::Board)
    }

    /// Whether spares start next to the job: the tests and relation files,
    /// which may run for long.
    pub fn long(self) -> bool {
        matches!(self, Lane::Compare | Lane::Relations | Lane::Board)
    }

    /// What the page's line of a running job of this lane says (with its
    /// progress and a Cancel); `None` for the loads and the tests, whose
    /// views have lines of their own.
    pub fn title(self) -> Option<&'static str> {
        match self {
            Lane::Load | Lane::Compare => None,
            Lane::Diagnostics => Some("Diagnostics"),
            Lane::Classes => Some("Class report"),
            Lane::Values => Some("Values"),
            Lane::Relations => Some("Relation files"),
            Lane::Export => Some("Export"),
            Lane::Board => Some("Leaderboard"),
        }
    }

    /// Whether the worker that answered the job is kept, warm, for the
    /// lane's next job (a view asked again as its settings change), until
    /// a newer job supersedes a running one or the lane is cancelled.
    pub fn keeps(self) -> bool {
        matches!(self, Lane::Compare | Lane::Diagnostics | Lane::Values)
    }
}

/// The page's running jobs.
#[derive(Debug, Default)]
pub struct Book {
    last: Id,
    running: Vec<(Id, Lane)>,
}

impl Book {
    /// A new job in `lane`: its id, and the jobs it supersedes (no longer
    /// running: stop them).
    pub fn start(&mut self, lane: Lane) -> (Id, Vec<Id>) {
        self.last += 1;
        let old = if lane.exclusive() {
            self.take(|l| l == lane)
        } else {
            Vec::new()
        };
        self.running.push((self.last, lane));
        (self.last, old)
    }

    /// The loader's Cancel: every load (no longer running: stop them);
    /// the views' jobs go on.
    pub fn cancel_loads(&mut self) -> Vec<Id> {
        self.take(|l| l == Lane::Load)
    }

    /// Stops the job of an exclusive `lane`, if one runs.
    pub fn cancel(&mut self, lane: Lane) -> Vec<Id> {
        self.take(|l| l == lane)
    }

    /// Stops job `id` (its line's Cancel), if it runs; the others go on.
    pub fn cancel_job(&mut self, id: Id) -> Vec<Id> {
        let ids = self.running.iter().map(|j| j.0).filter(|&j| j == id);
        let ids: Vec<Id> = ids.collect();
        self.end(id);
        ids
    }

    fn take(&mut self, which: impl Fn(Lane) -> bool) -> Vec<Id> {
        let taken = self.running.iter().filter(|j| which(j.1)).map(|j| j.0);
        let taken: Vec<Id> = taken.collect();
        self.running.retain(|j| !which(j.1));
        taken
    }

    /// Whether `id`'s replies are wanted: it runs, not superseded or cancelled.
    pub fn wants(&self, id: Id) -> bool {
        self.running.iter().any(|j| j.0 == id)
    }

    /// Job `id` has ended (answered, failed, or was dropped by its caller).
    pub fn end(&mut self, id: Id) {
        self.running.retain(|j| j.0 != id);
    }

    /// Whether a job runs next to which spares do not start ([`Lane::long`]).
    pub fn busy(&self) -> bool {
        self.running.iter().any(|j| !j.1.long())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round<T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug>(id: Id, body: T) {
        let bytes = encode(id, &body);
        assert_eq!(decode::<T>(&bytes), Ok((id, body)));
    }

    #[test]
    fn every_job_and_reply_reads_back_with_its_id() {
        let table = crate::report::Table {
            columns: vec!["ndcg@10".into()],
            rows: vec![("a".into(), vec![Some(0.5), None])],
            conventions: vec!["gain=exponential".into()],
            marks: vec![vec![1, -1]],
            marks_note: "t-test".into(),
            kind: None,
            baseline: Some("a".into()),
            groups: Vec::new(),
        };
        let jobs = vec![
            Job::Warm,
            Job::Parse {
                input: Input::File(Side(0)),
                options: Options {
                    format: Some(Format::BinaryCsv),
                    positive: Some("yes".into()),
                    one_vs_rest: None,
                },
                part: Part::Tail,
            },
            Job::Parse {
                input: Input::Url {
                    url: "https://x/run".into(),
                    name: "run".into(),
                },
                options: Options::default(),
                part: Part::Whole,
            },
            Job::Example {
                only: Some(vec!["a.csv".into()]),
                one_vs_rest: Some(3),
            },
            Job::Compare {
                request: Side(0),
                auc: true,
            },
            Job::Relations {
                session: Side(0),
                version: crate::core::ranking_metrics::TrecEvalVersion::V9,
            },
            Job::Diagnose {
                models: vec![Curve {
                    name: "m".into(),
                    color: 2,
                    thresholds: Side(0),
                    tps: Side(1),
                    fps: Side(2),
                    at: 0.25,
                }],
                options: "bins:10".into(),
                logits: false,
                rule: crate::core::binary::ThresholdRule::Above,
                range: (0.0, 1.0),
            },
            Job::ClassReport {
                files: vec![
                    Input::File(Side(0)),
                    Input::Url {
                        url: "u".into(),
                        name: "n".into(),
                    },
                ],
                example: vec!["iris.csv".into()],
                zero_division: "warn".into(),
                models: vec![("a".into(), 1)],
            },
            Job::Values {
                files: Side(0),
                measure: "map".into(),
                filter: "".into(),
                tests: crate::compare::page::Settings {
                    test: crate::compare::Test::Wilcoxon,
                    vs: Some("b".into()),
                    ..Default::default()
                },
                baseline: Some("x".into()),
                alone: true,
            },
            Job::Export {
                table,
                format: crate::report::Export::Latex,
            },
            Job::TrecEval {
                session: Side(0),
                columns: vec![
                    crate::core::registry::MetricId::new("ndcg", Some(10)),
                    crate::core::registry::MetricId::new("map", None),
                ],
            },
            Job::Report {
                title: "r".into(),
                urls: ["a.css".into(), "b.js".into(), "c.wasm".into()],
                session: Side(0),
            },
            Job::Leaderboard {
                request: Side(0),
                values: Side(1),
            },
            Job::WarmViews,
        ];
        for (i, job) in jobs.into_iter().enumerate() {
            round(i as Id + 1, job);
        }
        let replies = vec![
            Reply::Ready,
            Reply::Progress(Progress {
                done: 5,
                total: 9,
                rows: u64::MAX,
            }),
            Reply::Failed("why".into()),
            Reply::Parsed(Parsed {
                times: Times {
                    parse_ms: 1.5,
                    ..Times::default()
                },
                split: true,
                lines: 7,
                per_query: false,
            }),
            Reply::Files,
            Reply::Compared {
                cells: vec![0.5, f64::INFINITY],
                html: "<p>".into(),
            },
            Reply::Values(["a".into(), "b".into(), "c".into()]),
            Reply::Text("text".into()),
            Reply::Board,
        ];
        for (i, reply) in replies.into_iter().enumerate() {
            round(u32::MAX - i as Id, reply);
        }
    }

    #[test]
    fn leaderboard_requests_and_answers_read_back() {
        let tests = BoardTests {
            runs: 200,
            queries: 10_000,
            settings: crate::core::leaderboard::Settings {
                test: crate::core::leaderboard::Test::Wilcoxon,
                correction: crate::core::stats::Correction::BenjaminiHochberg,
                alpha: 0.01,
                resamples: 1000,
                seed: u64::MAX,
            },
            baseline: Some(3),
        };
        assert_eq!(decode_board(&encode_board(&tests)), Ok(tests));
        let ranked = Ranked {
            best: 1,
            members: vec![true, true, false],
            against_best: vec![Versus {
                run: 0,
                mean_diff: -0.25,
                p: 0.5,
                adjusted: 1.0,
                significant: false,
            }],
            ranks: vec![(2, 1, 3), (1, 1, 2), (3, 3, 3)],
            versus: Some(vec![]),
        };
        let bytes = encode_board(&ranked);
        assert_eq!(decode_board(&bytes), Ok(ranked));
        for n in 0..bytes.len() {
            assert!(decode_board::<Ranked>(&bytes[..n]).is_err(), "cut at {n}");
        }
    }

    #[test]
    fn damaged_messages_are_errors_not_panics() {
        let good = encode(7, &Reply::Text("hello".into()));
        for n in 0..good.len() {
            assert!(decode::<Reply>(&good[..n]).is_err(), "cut at {n}");
        }
        assert!(decode::<Job>(&[1, 200, 200, 200, 200, 200]).is_err());
        assert!(decode::<Reply>(&[0, 99]).is_err(), "no such variant");
        // a part id that is not one
        let mut bytes = encode(
            1,
            &Job::Parse {
                input: Input::File(Side(0)),
                options: Options::default(),
                part: Part::Head,
            },
        );
        let at = bytes.windows(4).position(|w| w == b"head");
        let at = at.unwrap_or_else(|| panic!("the part's id is in the message"));
        bytes[at..at + 4].copy_from_slice(b"hexd");
        assert!(decode::<Job>(&bytes).is_err());
    }

    #[test]
    fn options_carry_what_the_page_sets() {
        let page = LoadOptions {
            format: Some(Format::MulticlassMatrix),
            positive_label: Some("pos".into()),
            one_vs_rest: Some(2),
            ..LoadOptions::default()
        };
        assert_eq!(LoadOptions::from(Options::from(&page)), page);
    }

    #[test]
    fn a_newer_job_of_a_view_supersedes_the_older() {
        let mut book = Book::default();
        let (a, old) = book.start(Lane::Compare);
        assert!(old.is_empty());
        let (d, _) = book.start(Lane::Diagnostics);
        let (b, old) = book.start(Lane::Compare);
        assert_eq!(old, vec![a], "the older test is stopped");
        assert!(!book.wants(a), "its late reply is not shown");
        assert!(
            book.wants(b) && book.wants(d),
            "the newer and other views' jobs go on"
        );
        book.end(b);
        assert!(!book.wants(b));
        let (c, old) = book.start(Lane::Compare);
        assert!(old.is_empty(), "an ended job is not stopped again");
        assert!(a < b && b < c, "ids are never reused");
    }

    #[test]
    fn loads_and_exports_run_side_by_side_and_cancel_stops_only_loads() {
        let mut book = Book::default();
        let (head, _) = book.start(Lane::Load);
        let (tail, old) = book.start(Lane::Load);
        assert!(
            old.is_empty(),
            "two parts of a file, or two files of a drop"
        );
        let (e1, _) = book.start(Lane::Export);
        let (e2, old) = book.start(Lane::Export);
        assert!(old.is_empty());
        let (v, _) = book.start(Lane::Values);
        let mut stopped = book.cancel_loads();
        stopped.sort();
        assert_eq!(stopped, vec![head, tail]);
        assert!(!book.wants(head) && !book.wants(tail));
        assert!(book.wants(e1) && book.wants(e2) && book.wants(v));
        assert!(book.cancel_loads().is_empty());
    }

    #[test]
    fn spares_wait_for_jobs_on_spares_only() {
        let mut book = Book::default();
        assert!(!book.busy());
        let (t, _) = book.start(Lane::Compare);
        let (r, _) = book.start(Lane::Relations);
        assert!(
            !book.busy(),
            "the tests and relations have workers of their own"
        );
        let (l, _) = book.start(Lane::Load);
        assert!(book.busy());
        book.end(l);
        assert!(!book.busy());
        assert_eq!(book.cancel(Lane::Compare), vec![t]);
        assert!(book.wants(r));
    }

    #[test]
    fn a_jobs_cancel_stops_that_job_only_and_every_view_job_has_a_line() {
        let mut book = Book::default();
        let (load, _) = book.start(Lane::Load);
        let (d, _) = book.start(Lane::Diagnostics);
        let (e1, _) = book.start(Lane::Export);
        let (e2, _) = book.start(Lane::Export);
        assert_eq!(book.cancel_job(e1), vec![e1]);
        assert!(!book.wants(e1));
        assert!(book.wants(load) && book.wants(d) && book.wants(e2));
        assert!(
            book.cancel_job(e1).is_empty(),
            "an ended job is not stopped again"
        );
        assert_eq!(book.cancel_job(d), vec![d]);
        assert!(book.wants(e2));
        for lane in [
            Lane::Diagnostics,
            Lane::Classes,
            Lane::Values,
            Lane::Relations,
            Lane::Export,
        ] {
            assert!(lane.title().is_some(), "{lane:?}");
        }
        // the loader and the tests show their own progress and Cancel
        assert_eq!((Lane::Load.title(), Lane::Compare.title()), (None, None));
    }

    #[test]
    fn the_views_asked_again_keep_their_worker_and_loads_do_not() {
        for lane in [Lane::Compare, Lane::Diagnostics, Lane::Values] {
            assert!(
                lane.keeps() && lane.exclusive() && !lane.fresh(),
                "{lane:?}"
            );
        }
        for lane in [Lane::Load, Lane::Export, Lane::Relations, Lane::Classes] {
            assert!(!lane.keeps(), "{lane:?}");
        }
        // the tests take a spare (warm) but let spares start next to them
        assert!(!Lane::Compare.fresh() && Lane::Compare.long());
    }
}
