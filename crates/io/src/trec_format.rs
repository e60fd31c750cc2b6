//! trec_eval-compatible output: the same measure names, order and layout
//! (`%-22s\t%s\t%6.4f`), its default ("official") measure set, `-q` per-query
//! lines, `-m` measure selection and `-c` averaging.
//!
//! Like trec_eval, queries are those in both run and qrels; with `-c` the means
//! are divided by the number of qrels queries instead (missing queries score 0).

use rankscope_core::evaluate::Conventions;
use rankscope_core::ranking::{self, PreparedRun, QuerySet, RankingData};
use rankscope_core::registry::{
    self, id, Average, Compute, Kind, MetricId, TrecMeasure, TREC_MEASURES,
};

/// trec_eval's run-name line (output, not a measure).
const RUNID: &str = "runid";

/// The measures of one of trec_eval's `-m` nicknames (`official`, `set`),
/// from its own table (`te_trec_measure_nicknames`).
fn nickname(name: &str) -> Vec<Measure> {
    (rankscope_trec_eval::measures::NICKNAMES.iter())
        .find(|n| n.0 == name)
        .map_or(&[][..], |n| n.1)
        .iter()
        .filter_map(|n| Measure::named(n))
        .collect()
}

/// A trec_eval measure with its cutoffs (empty for a measure without), in
/// trec_eval's table order.
#[derive(Clone, Debug, PartialEq)]
pub enum Measure {
    Runid,
    NumQ,
    Core(&'static TrecMeasure, Vec<usize>),
}

impl Measure {
    fn order(&self) -> u8 {
        match self {
            Measure::Runid => 0,
            Measure::NumQ => 1,
            Measure::Core(t, _) => t.order,
        }
    }

    /// trec_eval's measure `name` at its default cutoffs.
    pub fn named(name: &str) -> Option<Measure> {
        match name {
            RUNID => Some(Measure::Runid),
            id::NUM_Q => Some(Measure::NumQ),
            _ => TREC_MEASURES
                .iter()
                .find(|t| t.name == name)
                .map(|t| Measure::Core(t, t.cuts.unwrap_or_default().to_vec())),
        }
    }

    /// The measure that prints a core metric (`ndcg@10` is `ndcg_cut` at 10).
    pub fn of(id: &MetricId) -> Option<Measure> {
        let t = TREC_MEASURES
            .iter()
            .find(|t| t.base == id.base && t.cuts.is_some() == id.k.is_some())?;
        Some(Measure::Core(t, id.k.into_iter().collect()))
    }
}

/// trec_eval's "official" set (its default).
pub fn official() -> Vec<Measure> {
    nickname("official")
}

/// Adds `m` to `out`, or, if `out` has the measure, gives it `m`'s cutoffs
/// (trec_eval's rule for a measure named twice); then orders `out` as trec_eval does.
pub fn add(out: &mut Vec<Measure>, m: Measure) {
    let same = |x: &Measure| match (x, &m) {
        (Measure::Core(a, _), Measure::Core(b, _)) => a.name == b.name,
        _ => std::mem::discriminant(x) == std::mem::discriminant(&m),
    };
    match out.iter_mut().find(|x| same(x)) {
        Some(slot) => *slot = m,
        // in table order, without a sort of its own (each costs the page's wasm KBs)
        None => {
            let at = out.partition_point(|x| x.order() <= m.order());
            out.insert(at, m);
        }
    }
}

/// trec_eval's official measures and the measures of `columns` (a table's
/// metric ids) it has, each at the union of their cutoffs.
pub fn official_and(columns: &[MetricId]) -> Vec<Measure> {
    let mut out = official();
    for m in columns.iter().filter_map(Measure::of) {
        let Measure::Core(t, cuts) = m else { continue };
        match out
            .iter_mut()
            .find(|x| matches!(x, Measure::Core(u, _) if u.name == t.name))
        {
            Some(Measure::Core(_, have)) => {
                have.extend(cuts);
                *have = rankscope_core::ascending(have);
                have.dedup();
            }
            _ => add(&mut out, Measure::Core(t, cuts)),
        }
    }
    out
}

/// Parses `-m` arguments: `official`, `all_trec` (all but `relstring`),
/// `set`, or `name[.c1,c2,...]`. Unknown or unsupported measures are an error.
pub fn parse_measures(args: &[String]) -> Result<Vec<Measure>, String> {
    if args.is_empty() {
        return Ok(official());
    }
    let mut out: Vec<Measure> = Vec::new();
    for a in args {
        let (name, params) = match a.split_once('.') {
            Some((n, p)) => (n, Some(p)),
            None => (a.as_str(), None),
        };
        let nickname: Vec<Measure> = match name {
            "official" => official(),
            "all_trec" => [Measure::Runid, Measure::NumQ]
                .into_iter()
                .chain(
                    TREC_MEASURES
                        .iter()
                        .filter(|t| t.all_trec)
                        .map(|t| Measure::Core(t, t.cuts.unwrap_or_default().to_vec())),
                )
                .collect(),
            "set" => nickname("set"),
            _ => Vec::new(),
        };
        if !nickname.is_empty() {
            for m in nickname {
                add(&mut out, m);
            }
            continue;
        }
        let m = match Measure::named(name) {
            Some(Measure::Core(t, cuts)) => match (t.cuts, params) {
                (Some(_), Some(p)) => {
                    let mut v: Vec<usize> = p
                        .split(',')
                        .map(|x| {
                            x.trim().parse::<usize>().map_err(|_| {
                                format!("-m {a}: cutoffs must be positive whole numbers")
                            })
                        })
                        .collect::<Result<_, _>>()?;
                    if v.contains(&0) {
                        return Err(format!("-m {a}: cutoffs must be positive"));
                    }
                    v.sort_unstable();
                    v.dedup();
                    Measure::Core(t, v)
                }
                (None, Some(_)) => {
                    return Err(format!(
                        "-m {a}: Rankscope computes {name} with trec_eval's default parameters only (rankscope trec_eval takes any)"
                    ))
                }
                _ => Measure::Core(t, cuts),
            },
            Some(m) => m,
            None => {
                let known: Vec<&str> = TREC_MEASURES.iter().map(|t| t.name).collect();
                return Err(format!(
                    "-m {name}: not a trec_eval measure Rankscope evaluates (known: official, all_trec, set, runid, num_q, {}; rankscope trec_eval has them all)",
                    known.join(", ")
                ));
            }
        };
        add(&mut out, m);
    }
    Ok(out)
}

/// How a measure's line is written and averaged.
#[derive(Clone, Copy, PartialEq)]
enum Form {
    Mean,
    /// A count: summed, printed without decimals.
    Count,
    /// A geometric mean (trec_eval prints no per-query line).
    Geometric,
    /// trec_eval -c's `num_rel`: every judgment with a grade above 0.
    NumRel,
}

fn form(t: &TrecMeasure) -> Form {
    if t.base == id::NUM_REL {
        Form::NumRel
    } else if registry::is_count(t.base) {
        Form::Count
    } else if registry::info(t.base, Kind::Ranking).is_some_and(|m| m.average == Average::Geometric)
    {
        Form::Geometric
    } else {
        Form::Mean
    }
}

/// A selected measure readied once per run: its cutoffs, how its lines are
/// written and averaged, and its registry hook (looked up here, not per query).
struct Planned<'a> {
    t: &'static TrecMeasure,
    cuts: &'a [usize],
    form: Form,
    compute: Option<Compute>,
}

fn plan(measures: &[Measure]) -> Vec<Planned<'_>> {
    (measures.iter())
        .filter_map(|m| match m {
            Measure::Core(t, cuts) => Some(Planned {
                t,
                cuts,
                form: form(t),
                compute: registry::info(t.base, Kind::Ranking).map(|m| m.compute),
            }),
            _ => None,
        })
        .collect()
}

/// One query's (name, value, form) lines for the planned measures.
fn query_values(
    q: &ranking::QueryView,
    planned: &[Planned],
    conv: &Conventions,
) -> Vec<(String, f64, Form)> {
    let mut out = Vec::new();
    for &Planned {
        t,
        cuts,
        form,
        compute,
    } in planned
    {
        let value = |k: Option<usize>| match compute {
            Some(Compute::Query(f)) => f(q, &conv.at(k)),
            _ => 0.0,
        };
        match compute {
            // several lines (iprec_at_recall_0.00, ...), named as trec_eval does
            Some(Compute::Columns(names, f)) => out.extend(
                names
                    .iter()
                    .zip(f(q, &conv.at(None)))
                    .map(|(n, v)| (n.replacen(t.base, t.name, 1), v, form)),
            ),
            _ if t.cuts.is_some() => out.extend(
                cuts.iter()
                    .map(|&k| (format!("{}_{k}", t.name), value(Some(k)), form)),
            ),
            _ => out.push((t.name.to_string(), value(None), form)),
        }
    }
    out
}

fn line(out: &mut String, name: &str, qid: &str, value: f64, form: Form) {
    if matches!(form, Form::Count | Form::NumRel) {
        out.push_str(&format!("{name:<22}\t{qid}\t{}\n", value as i64));
    } else {
        out.push_str(&format!("{name:<22}\t{qid}\t{value:6.4}\n"));
    }
}

/// The conventions trec_eval output was written under that trec_eval's own
/// defaults would not give, as one comment line (`# `: Rankscope's readers
/// skip it, as they skip every line starting with `#`), each with the
/// trec_eval option that gives it where there is one; empty when there are
/// none. `flags`: also those a trec_eval command line states itself
/// (`complete`: `-c`; the relevance level: `-l`), which a file written
/// elsewhere (the page's export) must carry; `rankscope eval --format
/// trec_eval` takes them as trec_eval's own flags and prints only the rest.
pub fn conventions_comment(conv: &Conventions, complete: bool, flags: bool) -> String {
    use rankscope_core::Named;
    let mut items = Vec::new();
    if flags && complete {
        items.push("query_set=qrels (trec_eval -c)".to_string());
    }
    if flags && conv.relevance_level != 1 {
        let l = conv.relevance_level;
        items.push(format!("relevance_level={l} (trec_eval -l{l})"));
    }
    if conv.trec_eval != rankscope_core::ranking_metrics::TrecEvalVersion::V10 {
        items.push(format!("trec_eval={}", conv.trec_eval.name()));
    }
    if conv.ties != ranking::TieRule::Trec {
        items.push(format!(
            "ties={} (trec_eval has only its own order)",
            conv.ties.name()
        ));
    }
    if items.is_empty() {
        return String::new();
    }
    format!(
        "# conventions that differ from trec_eval's defaults: {}\n",
        items.join(", ")
    )
}

/// trec_eval's output for one run.
pub fn format_run(
    data: &RankingData,
    run_index: usize,
    conv: &Conventions,
    measures: &[Measure],
    per_query: bool,
    complete: bool,
) -> String {
    // trec_eval orders ties by docno descending and evaluates queries in run ∩ qrels
    let run: PreparedRun = ranking::prepare(data, run_index, conv.ties, QuerySet::Intersection);
    // trec_eval's conventions, but for the ones it has a switch for
    let conv = &Conventions {
        ties: conv.ties,
        relevance_level: conv.relevance_level,
        trec_eval: conv.trec_eval,
        ..Conventions::default()
    };
    let planned = plan(measures);
    let mut out = String::new();
    let mut sums: Vec<(String, f64, Form)> = Vec::new();
    let mut log_sums: Vec<f64> = Vec::new();
    for i in 0..run.num_queries() {
        let qid = data.queries.name(run.selection.evaluated[i]);
        let values = query_values(&run.query(i), &planned, conv);
        for (j, (name, v, form)) in values.iter().enumerate() {
            if per_query && *form != Form::Geometric {
                line(&mut out, name, qid, *v, *form);
            }
            if sums.len() <= j {
                sums.push((name.clone(), 0.0, *form));
                log_sums.push(0.0);
            }
            if *form == Form::Geometric {
                log_sums[j] += v.max(1e-5).ln();
            }
            sums[j].1 += v;
        }
    }
    let n = run.num_queries();
    let qrels_queries = data
        .queries
        .ids_sorted_by_name()
        .into_iter()
        .filter(|&q| data.qrels.has_query(q))
        .count();
    let denom = if complete { qrels_queries } else { n };
    let tag = &data.runs[run_index].tag;
    for m in measures {
        match m {
            Measure::Runid => out.push_str(&format!("{RUNID:<22}\tall\t{tag}\n")),
            Measure::NumQ => line(&mut out, id::NUM_Q, "all", n as f64, Form::Count),
            _ => {}
        }
    }
    if sums.is_empty() {
        // no evaluated query: trec_eval prints zeros
        sums = query_values(
            &ranking::QueryView {
                grades: &[],
                tied_with_prev: &[],
                judged_desc: &[],
                average_ties: false,
            },
            &planned,
            conv,
        )
        .into_iter()
        .map(|(n, _, i)| (n, 0.0, i))
        .collect();
    }
    log_sums.resize(sums.len(), 0.0);
    for ((name, total, form), log_sum) in sums.into_iter().zip(log_sums) {
        let value = if complete && form == Form::NumRel {
            // trec_eval -c counts every judgment with a grade above 0,
            // whatever the relevance level (m_num_rel.c)
            data.qrels.grades.iter().filter(|&&g| g > 0).count() as f64
        } else if form != Form::Mean && form != Form::Geometric {
            total
        } else if form == Form::Geometric {
            if denom > 0 {
                ((log_sum + (denom - n) as f64 * 1e-5f64.ln()) / denom as f64).exp()
            } else {
                0.0
            }
        } else if denom > 0 {
            total / denom as f64
        } else {
            0.0
        };
        line(&mut out, &name, "all", value, form);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// trec_eval output written under conventions trec_eval's defaults would
    /// not give names them in a comment line, which the reader of trec_eval
    /// output skips: the file still reads as the same values.
    #[test]
    fn conventions_travel_as_a_comment_the_reader_skips() {
        use rankscope_core::ranking::TieRule;
        use rankscope_core::ranking_metrics::TrecEvalVersion;
        let defaults = Conventions::default();
        assert_eq!(conventions_comment(&defaults, false, true), "");
        let conv = Conventions {
            relevance_level: 2,
            ties: TieRule::Average,
            trec_eval: TrecEvalVersion::V9,
            ..Conventions::default()
        };
        assert_eq!(
            conventions_comment(&conv, true, true),
            "# conventions that differ from trec_eval's defaults: query_set=qrels (trec_eval -c), relevance_level=2 (trec_eval -l2), trec_eval=9.0.x, ties=average (trec_eval has only its own order)\n"
        );
        // a command line with -c and -l states those itself
        assert_eq!(
            conventions_comment(&conv, true, false),
            "# conventions that differ from trec_eval's defaults: trec_eval=9.0.x, ties=average (trec_eval has only its own order)\n"
        );
        let mut ws = crate::parse::Workspace::default();
        let o = Default::default();
        ws.load_bytes("q.qrels", b"q1 0 d1 2\nq1 0 d2 1\nq2 0 d1 2\n", &o)
            .unwrap();
        ws.load_bytes("r.run", b"q1 Q0 d2 1 2 r\nq1 Q0 d1 2 1 r\n", &o)
            .unwrap();
        let d = ws.ranking.as_ref().unwrap();
        let lines = format_run(d, 0, &conv, &official(), true, true);
        let file = conventions_comment(&conv, true, true) + &lines;
        let mut back = crate::parse::Workspace::default();
        back.load_bytes("r.trec_eval.txt", file.as_bytes(), &o)
            .unwrap();
        let mut plain = crate::parse::Workspace::default();
        plain
            .load_bytes("r.trec_eval.txt", lines.as_bytes(), &o)
            .unwrap();
        assert_eq!(
            format!("{:?}", back.precomputed_report(None).unwrap().models),
            format!("{:?}", plain.precomputed_report(None).unwrap().models)
        );
        assert!(!back.precomputed.is_empty());
    }

    #[test]
    fn measure_arguments() {
        let m = parse_measures(&["ndcg_cut.10,5".into(), "P.5".into()]).unwrap();
        let named = |n: &str| match Measure::named(n) {
            Some(Measure::Core(t, _)) => t,
            _ => unreachable!(),
        };
        assert_eq!(
            m,
            vec![
                Measure::Core(named("P"), vec![5]),
                Measure::Core(named("ndcg_cut"), vec![5, 10])
            ]
        );
        assert!(parse_measures(&["infAP".into()]).is_ok());
        assert!(parse_measures(&["relstring".into()]).is_err());
        assert!(parse_measures(&["infAP.3".into()]).is_err());
        assert!(parse_measures(&["P.0".into()]).is_err());
        assert_eq!(parse_measures(&[]).unwrap(), official());
        // named twice: the later cutoffs win, and the order is trec_eval's
        let m = parse_measures(&["P.5".into(), "map".into(), "P.7".into()]).unwrap();
        assert_eq!(
            m,
            vec![
                Measure::Core(named("map"), vec![]),
                Measure::Core(named("P"), vec![7])
            ]
        );
        // a table's columns join the official set, cutoffs merged
        let ids: Vec<MetricId> = ["precision@3", "precision@10", "infap", "ndcg@10", "f1@5"]
            .iter()
            .map(|s| MetricId::parse(s, registry::Kind::Ranking).unwrap())
            .collect();
        let m = official_and(&ids);
        assert!(m.contains(&Measure::Core(
            named("P"),
            vec![3, 5, 10, 15, 20, 30, 100, 200, 500, 1000]
        )));
        assert!(m.contains(&Measure::Core(named("infAP"), vec![])));
        assert!(m.contains(&Measure::Core(named("ndcg_cut"), vec![10])));
        assert_eq!(m.len(), official().len() + 2);
    }
}
