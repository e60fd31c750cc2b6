//! Judgment sets at scale: 100 runs × 5,000 queries × two sets (the goal of
//! issue 53: agreement and ranking correlations within 2 s, bounds of every
//! column within 1 s). Seeded data built in memory; each stage timed once
//! after a warm-up, single-threaded (as in the page's worker).
//!
//! `cargo bench --bench judgments` (`RANKSCOPE_BENCH_DEPTH=N`: documents
//! per query and run, default 20; `RANKSCOPE_BENCH_RUNS`, `…_QUERIES`).

use std::sync::Arc;
use std::time::Instant;

use rankscope::core::evaluate::{evaluate_prepared, prepare_runs, Conventions};
use rankscope::core::ids::Names;
use rankscope::core::judgments::{self, SurvivalOptions};
use rankscope::core::ranking::{Qrels, RankingData, Run};
use rankscope::core::registry::{self, Kind, MetricId};

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The process's CPU time so far (user + system, Linux's /proc; 0 elsewhere):
/// on a shared machine the wall time also counts the other processes' turns.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // the fields after the command's closing parenthesis; utime and stime are 14th and 15th
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}

fn time<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let (start, cpu) = (Instant::now(), cpu_seconds());
    let out = f();
    println!(
        "{what:<58} {:>8.3} s wall {:>8.2} s cpu",
        start.elapsed().as_secs_f64(),
        cpu_seconds() - cpu
    );
    out
}

fn main() {
    let (runs, queries, depth) = (
        env("RANKSCOPE_BENCH_RUNS", 100),
        env("RANKSCOPE_BENCH_QUERIES", 5000),
        env("RANKSCOPE_BENCH_DEPTH", 20),
    );
    // documents per query: twice the depth; each set judges 60% of them
    let pool = 2 * depth;
    let mut next = rankscope::core::xorshift(53);
    let mut data = RankingData::default();
    for q in 0..queries {
        data.queries.intern(&format!("q{q:05}"));
    }
    let relevance: Vec<i32> = (0..queries * pool)
        .map(|_| match next() % 100 {
            0..=59 => 0,
            60..=84 => 1,
            85..=94 => 2,
            _ => 3,
        })
        .collect();
    let doc = |d: usize| format!("d{d:04}");
    let make_set = |next: &mut dyn FnMut() -> u64, change: u64| {
        let (mut qs, mut names, mut grades) = (Vec::new(), Names::default(), Vec::new());
        for q in 0..queries {
            for d in 0..pool {
                if next() % 10 < 6 {
                    let mut g = relevance[q * pool + d];
                    if next() % 100 < change {
                        g = (g + 1 + (next() % 3) as i32) % 4;
                    }
                    qs.push(q as u32);
                    names.push(&doc(d));
                    grades.push(g);
                }
            }
        }
        Qrels::from_columns(&qs, &names, &grades, queries).0
    };
    let a = make_set(&mut next, 0);
    let b = make_set(&mut next, 20);
    for r in 0..runs {
        let (mut qs, mut names, mut scores) = (Vec::new(), Names::default(), Vec::new());
        let quality = 0.2 + r as f64 / runs as f64;
        for q in 0..queries {
            let start = (next() % pool as u64) as usize;
            for i in 0..depth {
                let d = (start + i) % pool;
                qs.push(q as u32);
                names.push(&doc(d));
                let noise = (next() % 1000) as f64 / 1000.0;
                scores.push(quality * relevance[q * pool + d] as f64 + noise);
            }
        }
        data.runs.push(Run::from_rows(
            format!("run{r:03}"),
            Arc::new(names),
            Arc::new(scores),
            &qs,
            |_| true,
            queries,
        ));
    }
    println!(
        "{runs} runs x {queries} queries x {depth} documents; sets of {} and {} judgments",
        a.num_judgments(),
        b.num_judgments()
    );
    let conv = Conventions::default();
    let nq = data.queries.len();
    // warm-up: one agreement
    judgments::agree(&a, &b, nq, 1);
    time(
        "agreement (kappa, weighted kappa, alpha, per query)",
        || judgments::agree(&a, &b, nq, 1),
    );
    let id = MetricId::new(registry::id::NDCG, Some(10));
    let per_query = |data: &mut RankingData, set: &Qrels| {
        data.qrels = set.clone();
        let p = prepare_runs(data, &conv);
        let report = evaluate_prepared(data, &p, &conv, std::slice::from_ref(&id));
        let key = id.to_string();
        report
            .models
            .iter()
            .map(|m| m.per_unit[&key].clone())
            .collect::<Vec<Vec<f64>>>()
    };
    let (va, vb) = time(
        "per-query nDCG@10 under each set (prepare + kernel)",
        || (per_query(&mut data, &a), per_query(&mut data, &b)),
    );
    for resamples in [0, 1000] {
        let options = SurvivalOptions {
            resamples,
            ..Default::default()
        };
        time(
            &format!("orderings: tau_b, tau_AP, rho, RBO, flips, {resamples} resamples"),
            || judgments::survival(&va, &vb, &options),
        );
    }
    data.qrels = a.clone();
    let metrics = registry::default_metrics(Kind::Ranking, registry::DEFAULT_CUTOFFS);
    let prepared = prepare_runs(&data, &conv);
    let columns = time("the table: every default column (one evaluation)", || {
        evaluate_prepared(&data, &prepared, &conv, &metrics)
            .columns
            .len()
    });
    let telling: Vec<MetricId> = metrics
        .iter()
        .filter(|m| registry::TELLS_UNJUDGED.contains(&m.base.as_str()))
        .cloned()
        .collect();
    time(
        &format!("bounds of all {columns} columns, one thread (as the worker)"),
        || {
            for (grade, ids) in [(0, &telling), (1, &metrics)] {
                let completed: Vec<_> = prepared
                    .iter()
                    .map(|p| judgments::complete(p, grade))
                    .collect();
                evaluate_prepared(&data, &completed, &conv, ids);
            }
        },
    );
    let ndcg10 = [id.clone()];
    time("bounds of nDCG@10 alone", || {
        for grade in [0, 1] {
            let completed: Vec<_> = prepared
                .iter()
                .map(|p| judgments::complete(p, grade))
                .collect();
            evaluate_prepared(&data, &completed, &conv, &ndcg10);
        }
    });
    let mut sets = rankscope::judgments::Sets {
        data,
        sets: vec![("a".into(), a.clone()), ("b".into(), b.clone())],
        warnings: Vec::new(),
    };
    sets.data.qrels = Qrels::default();
    time(
        "bounds as the CLI and Python compute them (threads)",
        || {
            rankscope::judgments::bounds(
                &mut sets,
                0,
                &metrics,
                &conv,
                1,
                &[10],
                Some(0),
                0.5,
                false,
            )
        },
    );
    sets.data.qrels = a.clone();
    let data = &sets.data;
    time("pool at depth 10, every pair of runs", || {
        judgments::pool(data, 10, None).len()
    });
}
