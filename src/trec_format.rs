//! trec_eval-compatible output: the same measure names, order and layout
//! (`%-22s\t%s\t%6.4f`), its default ("official") measure set, `-q` per-query
//! lines, `-m` measure selection and `-c` averaging.
//!
//! Like trec_eval, queries are those in both run and qrels; with `-c` the means
//! are divided by the number of qrels queries instead (missing queries score 0).

use crate::core::evaluate::Conventions;
use crate::core::ranking::{self, PreparedRun, QuerySet, RankingData};
use crate::core::ranking_metrics::{Discount, Gain};

const DEFAULT_CUTOFFS: &[usize] = &[5, 10, 15, 20, 30, 100, 200, 500, 1000];

/// A trec_eval measure with its parameters, in trec_eval's table order.
#[derive(Clone, Debug, PartialEq)]
pub enum Measure {
    Runid,
    NumQ,
    NumRet,
    NumRel,
    NumRelRet,
    Map,
    GmMap,
    Rprec,
    Bpref,
    RecipRank,
    IprecAtRecall,
    P(Vec<usize>),
    Recall(Vec<usize>),
    Ndcg,
    NdcgCut(Vec<usize>),
    MapCut(Vec<usize>),
    Success(Vec<usize>),
}

impl Measure {
    fn order(&self) -> usize {
        use Measure::*;
        match self {
            Runid => 0,
            NumQ => 1,
            NumRet => 2,
            NumRel => 3,
            NumRelRet => 4,
            Map => 5,
            GmMap => 6,
            Rprec => 7,
            Bpref => 8,
            RecipRank => 9,
            IprecAtRecall => 10,
            P(_) => 11,
            Recall(_) => 13,
            Ndcg => 23,
            NdcgCut(_) => 26,
            MapCut(_) => 27,
            Success(_) => 29,
        }
    }
}

/// trec_eval's "official" set (its default).
pub fn official() -> Vec<Measure> {
    use Measure::*;
    vec![
        Runid,
        NumQ,
        NumRet,
        NumRel,
        NumRelRet,
        Map,
        GmMap,
        Rprec,
        Bpref,
        RecipRank,
        IprecAtRecall,
        P(DEFAULT_CUTOFFS.to_vec()),
    ]
}

/// Parses `-m` arguments: `official`, `all_trec` (the supported part), or
/// `name[.c1,c2,...]`. Unknown or unsupported measures are an error.
pub fn parse_measures(args: &[String]) -> Result<Vec<Measure>, String> {
    use Measure::*;
    if args.is_empty() {
        return Ok(official());
    }
    let mut out: Vec<Measure> = Vec::new();
    for a in args {
        let (name, params) = match a.split_once('.') {
            Some((n, p)) => (n, Some(p)),
            None => (a.as_str(), None),
        };
        let cutoffs = |default: &[usize]| -> Result<Vec<usize>, String> {
            match params {
                None => Ok(default.to_vec()),
                Some(p) => {
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
                    Ok(v)
                }
            }
        };
        let m = match name {
            "official" => {
                out.extend(official());
                continue;
            }
            "all_trec" => {
                out.extend(official());
                out.extend([Recall(DEFAULT_CUTOFFS.to_vec()), Ndcg, NdcgCut(DEFAULT_CUTOFFS.to_vec()), MapCut(DEFAULT_CUTOFFS.to_vec()), Success(vec![1, 5, 10])]);
                continue;
            }
            "runid" => Runid,
            "num_q" => NumQ,
            "num_ret" => NumRet,
            "num_rel" => NumRel,
            "num_rel_ret" => NumRelRet,
            "map" => Map,
            "gm_map" => GmMap,
            "Rprec" => Rprec,
            "bpref" => Bpref,
            "recip_rank" => RecipRank,
            "iprec_at_recall" => IprecAtRecall,
            "P" => P(cutoffs(DEFAULT_CUTOFFS)?),
            "recall" => Recall(cutoffs(DEFAULT_CUTOFFS)?),
            "ndcg" => Ndcg,
            "ndcg_cut" => NdcgCut(cutoffs(DEFAULT_CUTOFFS)?),
            "map_cut" => MapCut(cutoffs(DEFAULT_CUTOFFS)?),
            "success" => Success(cutoffs(&[1, 5, 10])?),
            other => return Err(format!("-m {other}: not a trec_eval measure Rankscope computes (supported: official, all_trec, runid, num_q, num_ret, num_rel, num_rel_ret, map, gm_map, Rprec, bpref, recip_rank, iprec_at_recall, P, recall, ndcg, ndcg_cut, map_cut, success)")),
        };
        // a later -m of the same measure replaces its parameters, as in trec_eval
        if let Some(slot) = out
            .iter_mut()
            .find(|x| std::mem::discriminant(*x) == std::mem::discriminant(&m))
        {
            *slot = m;
        } else {
            out.push(m);
        }
    }
    out.sort_by_key(Measure::order);
    out.dedup();
    Ok(out)
}

/// One query's (name, value) lines for the selected measures; integer measures flagged.
fn query_values(
    q: &ranking::QueryView,
    measures: &[Measure],
    level: i32,
    version: crate::core::ranking_metrics::TrecEvalVersion,
) -> Vec<(String, f64, bool)> {
    use Measure::*;
    let ctx = crate::core::ranking_metrics::Ctx {
        relevance_level: level,
        ..Default::default()
    };
    let mut out = Vec::new();
    for m in measures {
        match m {
            Runid | NumQ => {}
            NumRet => out.push(("num_ret".into(), q.len() as f64, true)),
            NumRel => out.push(("num_rel".into(), q.num_relevant(level) as f64, true)),
            NumRelRet => out.push((
                "num_rel_ret".into(),
                q.num_relevant_retrieved(level) as f64,
                true,
            )),
            Map => out.push(("map".into(), q.average_precision(None, &ctx), false)),
            GmMap => out.push(("gm_map".into(), q.average_precision(None, &ctx), false)),
            Rprec => out.push(("Rprec".into(), q.r_precision(level), false)),
            Bpref => out.push(("bpref".into(), q.bpref(level), false)),
            RecipRank => out.push(("recip_rank".into(), q.reciprocal_rank(None, level), false)),
            IprecAtRecall => {
                for (i, v) in q
                    .interpolated_precision(level, version)
                    .into_iter()
                    .enumerate()
                {
                    out.push((format!("iprec_at_recall_{:.2}", i as f64 / 10.0), v, false));
                }
            }
            P(ks) => out.extend(
                ks.iter()
                    .map(|&k| (format!("P_{k}"), q.precision(Some(k), &ctx), false)),
            ),
            Recall(ks) => out.extend(
                ks.iter()
                    .map(|&k| (format!("recall_{k}"), q.recall(Some(k), level), false)),
            ),
            Ndcg => out.push((
                "ndcg".into(),
                q.ndcg(None, Gain::Linear, Discount::Log2),
                false,
            )),
            NdcgCut(ks) => out.extend(ks.iter().map(|&k| {
                (
                    format!("ndcg_cut_{k}"),
                    q.ndcg(Some(k), Gain::Linear, Discount::Log2),
                    false,
                )
            })),
            MapCut(ks) => out.extend(ks.iter().map(|&k| {
                (
                    format!("map_cut_{k}"),
                    q.average_precision(Some(k), &ctx),
                    false,
                )
            })),
            Success(ks) => out.extend(
                ks.iter()
                    .map(|&k| (format!("success_{k}"), q.hit(Some(k), level), false)),
            ),
        }
    }
    out
}

fn line(out: &mut String, name: &str, qid: &str, value: f64, integer: bool) {
    if integer {
        out.push_str(&format!("{name:<22}\t{qid}\t{}\n", value as i64));
    } else {
        out.push_str(&format!("{name:<22}\t{qid}\t{value:6.4}\n"));
    }
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
    let level = conv.relevance_level;
    let mut out = String::new();
    let mut sums: Vec<(String, f64, bool)> = Vec::new();
    let mut log_sum = 0.0;
    for i in 0..run.num_queries() {
        let qid = data.queries.name(run.selection.evaluated[i]);
        let values = query_values(&run.query(i), measures, level, conv.trec_eval);
        for (j, (name, v, integer)) in values.iter().enumerate() {
            if per_query && name != "gm_map" {
                line(&mut out, name, qid, *v, *integer);
            }
            if name == "gm_map" {
                log_sum += v.max(1e-5).ln();
            }
            if sums.len() <= j {
                sums.push((name.clone(), 0.0, *integer));
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
            Measure::Runid => out.push_str(&format!("{:<22}\tall\t{}\n", "runid", tag)),
            Measure::NumQ => line(&mut out, "num_q", "all", n as f64, true),
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
            measures,
            level,
            conv.trec_eval,
        )
        .into_iter()
        .map(|(n, _, i)| (n, 0.0, i))
        .collect();
    }
    for (name, total, integer) in sums {
        let value = if integer {
            total
        } else if name == "gm_map" {
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
        line(&mut out, &name, "all", value, integer);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measure_arguments() {
        let m = parse_measures(&["ndcg_cut.10,5".into(), "P.5".into()]).unwrap();
        assert_eq!(m, vec![Measure::P(vec![5]), Measure::NdcgCut(vec![5, 10])]);
        assert!(parse_measures(&["infAP".into()]).is_err());
        assert!(parse_measures(&["P.0".into()]).is_err());
        assert_eq!(parse_measures(&[]).unwrap(), official());
    }
}
