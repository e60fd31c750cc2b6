//! Criterion benchmarks of the core per stage, on generated data of the shapes
//! in shared/data/README.md: 10M binary rows; 100,000 queries x 100 docs;
//! 100,000 x 1000 probabilities; 10M ratings.
//!
//! `cargo bench --bench core` (full sizes, a few minutes);
//! `RANKSCOPE_BENCH_SCALE=0.1 cargo bench --bench core` for a quick look.

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use criterion::{criterion_group, BatchSize, Criterion};
    use rankscope::core::binary::BinaryCurve;
    use rankscope::core::binary::ThresholdRule;
    use rankscope::core::curves::{mean_curve, CurveMetric};
    use rankscope::core::evaluate::{self, Conventions, Dataset};
    use rankscope::core::ranking::{self, QuerySet, TieRule};
    use rankscope::core::registry::{self, Kind, MetricId};
    use rankscope::example::{self, Spec};
    use rankscope::parse::{parse_bytes, LoadOptions, Workspace};
    use std::hint::black_box;
    use std::time::Duration;

    fn scale() -> f64 {
        std::env::var("RANKSCOPE_BENCH_SCALE")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(1.0)
    }

    fn spec() -> Spec {
        let s = scale();
        let l = Spec::LARGE;
        Spec {
            queries: ((l.queries as f64 * s) as usize).max(10),
            binary_rows: ((l.binary_rows as f64 * s) as usize).max(100),
            multiclass_rows: ((l.multiclass_rows as f64 * s) as usize).max(10),
            users: ((l.users as f64 * s) as usize).max(10),
            ..l
        }
    }

    fn group<'a>(
        c: &'a mut Criterion,
        name: &str,
    ) -> criterion::BenchmarkGroup<'a, criterion::measurement::WallTime> {
        let mut g = c.benchmark_group(name);
        g.sample_size(10)
            .measurement_time(Duration::from_secs(20))
            .warm_up_time(Duration::from_secs(1));
        g
    }

    fn binary(c: &mut Criterion) {
        let spec = spec();
        let mut text = Vec::new();
        example::write_binary(&spec, &["model"], &mut text).unwrap();
        let mut g = group(c, "binary");
        g.throughput(criterion::Throughput::Bytes(text.len() as u64));
        g.bench_function("parse", |b| {
            b.iter(|| parse_bytes("b.csv", black_box(&text), &LoadOptions::default()).unwrap())
        });
        let mut ws = Workspace::default();
        ws.load_bytes("b.csv", &text, &LoadOptions::default())
            .unwrap();
        let data = ws.binary.clone().unwrap();
        let metrics = registry::default_metrics(Kind::Binary, &[]);
        let conv = Conventions::default();
        g.bench_function("curve (one model)", |b| {
            b.iter(|| BinaryCurve::new(black_box(&data.labels), black_box(&data.models[0].1)))
        });
        g.bench_function("prepare (sort, curve, log loss, Brier)", |b| {
            b.iter(|| evaluate::prepare_binary(black_box(&data), false))
        });
        g.bench_function("full metric set (prepare + every metric)", |b| {
            b.iter(|| evaluate::evaluate(&Dataset::Binary(&data), &conv, &metrics))
        });
        let prepared = evaluate::prepare_binary(&data, false);
        let mut t = 0.0;
        g.bench_function("threshold update (every threshold metric)", |b| {
            b.iter(|| {
                t = (t + 0.013) % 1.0;
                let c = Conventions {
                    threshold: t,
                    threshold_rule: ThresholdRule::AtLeast,
                    ..Conventions::default()
                };
                evaluate::evaluate_binary_prepared(black_box(&prepared), &c, &metrics)
            })
        });
        g.finish();
    }

    fn ranking(c: &mut Criterion) {
        let spec = spec();
        let (mut qrels, mut run, mut other) = (Vec::new(), Vec::new(), Vec::new());
        example::write_ranking(&spec, &mut qrels, &mut [("a", &mut run), ("b", &mut other)])
            .unwrap();
        drop(other);
        let mut g = group(c, "ranking");
        g.throughput(criterion::Throughput::Bytes(run.len() as u64));
        g.bench_function("parse run", |b| {
            b.iter(|| parse_bytes("a.run", black_box(&run), &LoadOptions::default()).unwrap())
        });
        let mut ws = Workspace::default();
        ws.load_bytes("q.qrels", &qrels, &LoadOptions::default())
            .unwrap();
        ws.load_bytes("a.run", &run, &LoadOptions::default())
            .unwrap();
        let data = ws.ranking.clone().unwrap();
        let conv = Conventions::default();
        g.bench_function("prepare (sort every query, join grades)", |b| {
            b.iter(|| ranking::prepare(black_box(&data), 0, TieRule::Trec, QuerySet::Qrels))
        });
        let prepared = vec![ranking::prepare(&data, 0, TieRule::Trec, QuerySet::Qrels)];
        let six: Vec<MetricId> = [
            "map",
            "ndcg@10",
            "precision@10",
            "recall@100",
            "mrr",
            "bpref",
        ]
        .iter()
        .map(|s| MetricId::parse(s, Kind::Ranking).unwrap())
        .collect();
        g.bench_function("six trec_eval measures (prepared)", |b| {
            b.iter(|| evaluate::evaluate_prepared(&data, black_box(&prepared), &conv, &six))
        });
        let all = registry::default_metrics(Kind::Ranking, registry::DEFAULT_CUTOFFS);
        g.bench_function("full metric set at 7 cutoffs (prepare + all)", |b| {
            b.iter(|| evaluate::evaluate(&Dataset::Ranking(&data), &conv, &all))
        });
        g.bench_function("nDCG@p curve, p = 1..100", |b| {
            b.iter(|| mean_curve(black_box(&prepared[0]), &conv, CurveMetric::Ndcg, 100))
        });
        g.bench_function(
            "convention change (tie rule: re-prepare + six measures)",
            |b| {
                b.iter_batched(
                    || Conventions {
                        ties: TieRule::File,
                        ..Conventions::default()
                    },
                    |c| {
                        let p = vec![ranking::prepare(&data, 0, c.ties, c.query_set)];
                        evaluate::evaluate_prepared(&data, &p, &c, &six)
                    },
                    BatchSize::SmallInput,
                )
            },
        );
        g.finish();
    }

    fn multiclass(c: &mut Criterion) {
        let spec = spec();
        let mut text = Vec::new();
        example::write_multiclass(&spec, 2.0, &mut text).unwrap();
        let mut g = group(c, "multiclass");
        g.throughput(criterion::Throughput::Bytes(text.len() as u64));
        g.bench_function("parse + reduce rows", |b| {
            b.iter(|| parse_bytes("m.csv", black_box(&text), &LoadOptions::default()).unwrap())
        });
        let mut ws = Workspace::default();
        ws.load_bytes("m.csv", &text, &LoadOptions::default())
            .unwrap();
        let data = ws.multiclass.clone().unwrap();
        let metrics = registry::default_metrics(Kind::Multiclass, &[1, 5, 10]);
        g.bench_function("full metric set", |b| {
            b.iter(|| {
                evaluate::evaluate(
                    &Dataset::Multiclass(&data),
                    &Conventions::default(),
                    &metrics,
                )
            })
        });
        g.finish();
    }

    fn ratings(c: &mut Criterion) {
        let spec = spec();
        let mut text = Vec::new();
        example::write_ratings(&spec, &["svd"], &mut text).unwrap();
        let mut g = group(c, "ratings");
        g.throughput(criterion::Throughput::Bytes(text.len() as u64));
        g.bench_function("parse", |b| {
            b.iter(|| parse_bytes("r.csv", black_box(&text), &LoadOptions::default()).unwrap())
        });
        let mut ws = Workspace::default();
        ws.load_bytes("r.csv", &text, &LoadOptions::default())
            .unwrap();
        let data = ws.ratings.clone().unwrap();
        let metrics = registry::default_metrics(Kind::Ratings, &[]);
        g.bench_function("full metric set", |b| {
            b.iter(|| {
                evaluate::evaluate(&Dataset::Ratings(&data), &Conventions::default(), &metrics)
            })
        });
        g.finish();
    }

    /// #31's goals: the page's tests of every column (t) for 100,000 queries
    /// and 5 models; a 10,000-flip randomization test of one metric over
    /// 100,000 queries; DeLong on 10M rows.
    fn significance(c: &mut Criterion) {
        use rankscope::compare::page::{answer, Request, Settings, Units};
        use rankscope::compare::Test;
        use rankscope::core::stats;
        let n = ((100_000.0 * scale()) as usize).max(100);
        let mut rng = stats::SplitMix64::new(7);
        let mut uniform = move || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        let ids: Vec<String> = (0..n).map(|i| format!("q{i}")).collect();
        let base: Vec<Vec<f64>> = (0..20)
            .map(|_| (0..n).map(|_| uniform()).collect())
            .collect();
        let models: Vec<Units> = (0..5)
            .map(|m| Units {
                name: format!("m{m}"),
                ids: ids.clone(),
                values: base
                    .iter()
                    .map(|col| {
                        col.iter()
                            .map(|v| (v + 0.02 * m as f64 * uniform()).min(1.0))
                            .collect()
                    })
                    .collect(),
            })
            .collect();
        let request = |test: Test, focus: Option<(usize, usize)>| Request {
            unit: "query".into(),
            metrics: (0..20).map(|j| format!("metric{j}")).collect(),
            models: models.clone(),
            baseline: 0,
            settings: Settings {
                test,
                ..Default::default()
            },
            focus,
        };
        let mut g = group(c, "significance");
        let t = request(Test::T, None);
        g.bench_function("t-test, 20 columns x 4 models, 100k queries", |b| {
            b.iter(|| answer(black_box(&t), &mut |_, _| {}))
        });
        let w = request(Test::Wilcoxon, None);
        g.bench_function("Wilcoxon, 20 columns x 4 models, 100k queries", |b| {
            b.iter(|| answer(black_box(&w), &mut |_, _| {}))
        });
        let (a, b1) = (&models[0].values[0], &models[1].values[0]);
        g.bench_function("randomization, 10,000 flips, 100k queries", |b| {
            b.iter(|| stats::randomization(black_box(a), black_box(b1), 10_000, 42))
        });
        let rows = ((10_000_000.0 * scale()) as usize).max(1000);
        let labels: Vec<bool> = (0..rows).map(|i| i % 7 < 2).collect();
        let sa: Vec<f64> = (0..rows)
            .map(|i| ((i * 7919) % 10_007) as f64 / 10_007.0 + if labels[i] { 0.2 } else { 0.0 })
            .collect();
        let sb: Vec<f64> = (0..rows)
            .map(|i| ((i * 104_729) % 10_009) as f64 / 10_009.0 + if labels[i] { 0.3 } else { 0.0 })
            .collect();
        g.bench_function("DeLong, 10M rows", |b| {
            b.iter(|| stats::delong(black_box(&labels), black_box(&sa), black_box(&sb)))
        });
        g.finish();
    }

    criterion_group!(benches, binary, ranking, multiclass, ratings, significance);
}

// criterion and the generated data are native-only; on wasm this target is empty
#[cfg(not(target_arch = "wasm32"))]
fn main() {
    native::benches();
    criterion::Criterion::default()
        .configure_from_args()
        .final_summary();
}

#[cfg(target_arch = "wasm32")]
fn main() {}
