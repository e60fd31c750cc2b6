//! A seeded generator of realistic evaluation data in every input format: the
//! page's bundled example (small) and the benchmarks' large files. The same
//! seed always gives the same bytes.

use std::io::{self, Write};

/// xorshift64*: small, fast, deterministic; enough for synthetic data.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
    /// Standard normal (Box-Muller).
    pub fn normal(&mut self) -> f64 {
        let u = self.unit().max(1e-300);
        let v = self.unit();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

/// Sizes of a generated data set.
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    pub seed: u64,
    pub queries: usize,
    pub docs_per_query: usize,
    pub binary_rows: usize,
    pub classes: usize,
    pub multiclass_rows: usize,
    pub users: usize,
    pub ratings_per_user: usize,
    /// Every how many non-relevant pool documents one is judged (0) in the qrels.
    pub judge_nonrelevant_every: usize,
    /// Decimals of a binary score.
    pub score_decimals: usize,
}

impl Spec {
    /// The page's bundled example.
    pub const EXAMPLE: Spec = Spec {
        seed: 20261122,
        queries: 60,
        docs_per_query: 40,
        binary_rows: 800,
        classes: 20,
        multiclass_rows: 400,
        users: 60,
        ratings_per_user: 12,
        judge_nonrelevant_every: 3,
        score_decimals: 4,
    };
    /// The shapes of shared/data/README.md's large files.
    pub const LARGE: Spec = Spec {
        seed: 7,
        queries: 100_000,
        docs_per_query: 100,
        binary_rows: 10_000_000,
        classes: 1000,
        multiclass_rows: 100_000,
        users: 500_000,
        ratings_per_user: 20,
        // about 43 judgments per query: the 4.3M qrels lines
        judge_nonrelevant_every: 25,
        // `0,0.123456`: 11 bytes a row, the 110 MB for 10M rows
        score_decimals: 6,
    };
}

/// Ranking: a qrels file and runs of two systems of different quality.
/// Scores have 3 decimals, so ties occur as in real runs.
pub fn write_ranking(
    spec: &Spec,
    qrels: &mut impl Write,
    runs: &mut [(&str, &mut dyn Write)],
) -> io::Result<()> {
    let mut rng = Rng::new(spec.seed);
    let n = spec.docs_per_query;
    let mut grades = vec![0i32; n * 2];
    for q in 0..spec.queries {
        let qid = format!("q{q:05}");
        // a pool of 2n documents, a few relevant, graded 1..3
        for (d, g) in grades.iter_mut().enumerate() {
            let r = rng.unit();
            *g = if r < 0.04 {
                3
            } else if r < 0.10 {
                2
            } else if r < 0.20 {
                1
            } else {
                0
            };
            if q % 13 == 0 {
                *g = 0; // some queries have nothing relevant
            }
            // judge the relevant ones and a sample of the rest
            if *g > 0 || d % spec.judge_nonrelevant_every == 0 {
                writeln!(qrels, "{qid} 0 d{:06} {g}", q * 2 * n + d)?;
            }
        }
        for (m, (tag, out)) in runs.iter_mut().enumerate() {
            let quality = 0.9 - 0.35 * m as f64;
            let mut scored: Vec<(f64, usize)> = (0..2 * n)
                .map(|d| {
                    (
                        ((grades[d] as f64 * quality + 1.3 * rng.normal()) * 100.0).round()
                            / 1000.0,
                        d,
                    )
                })
                .collect();
            scored.sort_by(|a, b| b.0.total_cmp(&a.0));
            for (rank, (score, d)) in scored.into_iter().take(n).enumerate() {
                writeln!(
                    out,
                    "{qid} Q0 d{:06} {} {score:.3} {tag}",
                    q * 2 * n + d,
                    rank + 1
                )?;
            }
        }
    }
    Ok(())
}

/// Binary classification: `label,<model>...` with calibrated-ish probabilities.
pub fn write_binary(spec: &Spec, models: &[&str], out: &mut impl Write) -> io::Result<()> {
    let mut rng = Rng::new(spec.seed ^ 0xB1);
    writeln!(out, "label,{}", models.join(","))?;
    let mut line = String::new();
    for _ in 0..spec.binary_rows {
        let y = rng.unit() < 0.12;
        line.clear();
        line.push(if y { '1' } else { '0' });
        for m in 0..models.len() {
            let signal = if y { 1.7 - 0.5 * m as f64 } else { 0.0 };
            let z = signal + rng.normal() - 1.9;
            let p = 1.0 / (1.0 + (-z).exp());
            line.push_str(&format!(",{p:.*}", spec.score_decimals));
        }
        writeln!(out, "{line}")?;
    }
    Ok(())
}

/// Multi-class: `target,p_0..p_{C-1}` rows of probabilities (6 significant digits).
pub fn write_multiclass(spec: &Spec, skill: f64, out: &mut impl Write) -> io::Result<()> {
    // targets come from their own stream, so every model sees the same rows
    let mut targets = Rng::new(spec.seed ^ 0x3C);
    let mut rng = Rng::new(spec.seed ^ skill.to_bits());
    let c = spec.classes;
    let header: Vec<String> = (0..c).map(|j| format!("p_{j}")).collect();
    writeln!(out, "target,{}", header.join(","))?;
    let mut logits = vec![0.0; c];
    let mut line = String::new();
    for _ in 0..spec.multiclass_rows {
        // a skewed class distribution, like next-location data
        let target = ((targets.unit().powi(2)) * c as f64) as usize % c;
        for (j, l) in logits.iter_mut().enumerate() {
            *l = rng.normal() + if j == target { skill } else { 0.0 };
        }
        let max = logits.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let total: f64 = logits.iter().map(|l| (l - max).exp()).sum();
        line.clear();
        line.push_str(&target.to_string());
        for l in &logits {
            line.push_str(&format!(",{:.5e}", (l - max).exp() / total));
        }
        writeln!(out, "{line}")?;
    }
    Ok(())
}

/// Ratings: `user_id,item_id,rating,<model>...`, ratings 1..5.
pub fn write_ratings(spec: &Spec, models: &[&str], out: &mut impl Write) -> io::Result<()> {
    let mut rng = Rng::new(spec.seed ^ 0x4A);
    writeln!(out, "user_id,item_id,rating,{}", models.join(","))?;
    let items = (spec.users * spec.ratings_per_user / 4).max(10) as u64;
    for u in 0..spec.users {
        let bias = rng.normal() * 0.5;
        let count = 1 + rng.below(2 * spec.ratings_per_user as u64) as usize;
        for _ in 0..count {
            let item = rng.below(items);
            let truth = (3.4 + bias + rng.normal() * 0.9).round().clamp(1.0, 5.0);
            let mut line = format!("u{u},i{item},{truth}");
            for m in 0..models.len() {
                let noise = 0.6 + 0.3 * m as f64;
                let p = (truth * 0.7 + 1.0 + bias * 0.5 + rng.normal() * noise).clamp(1.0, 5.0);
                line.push_str(&format!(",{p:.2}"));
            }
            writeln!(out, "{line}")?;
        }
    }
    Ok(())
}

/// The bundled example as (file name, contents) pairs, in loading order.
pub fn example_files() -> Vec<(String, Vec<u8>)> {
    let spec = Spec::EXAMPLE;
    let mut qrels = Vec::new();
    let (mut bm25, mut dense) = (Vec::new(), Vec::new());
    // writing into memory cannot fail
    let _ = write_ranking(
        &spec,
        &mut qrels,
        &mut [("dense", &mut dense), ("bm25", &mut bm25)],
    );
    let mut binary = Vec::new();
    let _ = write_binary(&spec, &["gbdt", "logreg"], &mut binary);
    let (mut mc_a, mut mc_b) = (Vec::new(), Vec::new());
    let _ = write_multiclass(&spec, 2.6, &mut mc_a);
    let _ = write_multiclass(&spec, 1.8, &mut mc_b);
    let mut ratings = Vec::new();
    let _ = write_ratings(&spec, &["svd", "knn"], &mut ratings);
    vec![
        ("example.qrels".into(), qrels),
        ("dense.run".into(), dense),
        ("bm25.run".into(), bm25),
        ("ctr.csv".into(), binary),
        ("transformer.csv".into(), mc_a),
        ("markov.csv".into(), mc_b),
        ("ratings.csv".into(), ratings),
    ]
}

/// The bundled example parsed, in the form a loading worker hands the page
/// ([`crate::parse::transfer::encode_many`]). The build writes it next to the
/// app as `example.bin`, so the page shows the example without waiting for a
/// worker to start, generate and parse it.
pub fn example_parsed() -> Vec<u8> {
    let options = crate::parse::LoadOptions::default();
    let files: Vec<_> = example_files()
        .into_iter()
        .map(|(name, bytes)| {
            let outcome = crate::parse::parse_bytes(&name, &bytes, &options);
            (name, outcome)
        })
        .collect();
    crate::parse::transfer::encode_many(&files)
}

/// The small files a loading worker parses once before its first job (the
/// browser then runs its parser optimised, `app::worker`): a binary CSV of
/// 131,072 rows with 6-decimal scores, and a TREC qrels and run of 32,768
/// lines each (512 queries of 64 documents).
pub fn warm_up_files() -> Vec<(&'static str, Vec<u8>)> {
    let rows = 1 << 17;
    let mut binary = Vec::with_capacity(16 * rows + 16);
    binary.extend_from_slice(b"label,score\n");
    let mut x = 0x2545_f491u32;
    for _ in 0..rows {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        binary.extend_from_slice(if x % 3 == 0 { b"1,0." } else { b"0,0." });
        let mut digits = x % 1_000_000;
        let mut six = [b'0'; 6];
        for d in six.iter_mut().rev() {
            *d = b'0' + (digits % 10) as u8;
            digits /= 10;
        }
        binary.extend_from_slice(&six);
        binary.push(b'\n');
    }
    let (mut qrels, mut run) = (String::new(), String::new());
    for i in 0..1usize << 15 {
        let (q, d, rank) = (i >> 6, (i * 7919) % 1000, i & 63);
        qrels.push_str(&format!("q{q} 0 d{d} {}\n", i % 3));
        run.push_str(&format!(
            "q{q} Q0 d{d} {rank} {}.{} warm\n",
            99 - rank,
            i % 10
        ));
    }
    vec![
        ("warm-up.csv", binary),
        ("warm-up.qrels", qrels.into_bytes()),
        ("warm-up.run", run.into_bytes()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{LoadOptions, Workspace};

    #[test]
    fn the_workers_warm_up_files_load_whole() {
        let mut ws = Workspace::default();
        for (name, bytes) in warm_up_files() {
            let summary = ws
                .load_bytes(name, &bytes, &LoadOptions::default())
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(
                summary.warnings.is_empty(),
                "{name}: {:?}",
                summary.warnings
            );
            let lines = bytes.iter().filter(|&&b| b == b'\n').count();
            let header = usize::from(name.ends_with(".csv"));
            assert_eq!(summary.rows, lines - header, "{name}");
        }
        assert_eq!(ws.binary.as_ref().unwrap().labels.len(), 1 << 17);
        let d = ws.ranking.as_ref().unwrap();
        assert_eq!((d.queries.len(), d.runs[0].len()), (512, 1 << 15));
    }

    #[test]
    fn example_is_deterministic_and_loads_into_every_kind() {
        let a = example_files();
        assert_eq!(a, example_files());
        let mut ws = Workspace::default();
        for (name, bytes) in &a {
            ws.load_bytes(name, bytes, &LoadOptions::default())
                .unwrap_or_else(|e| panic!("{e}"));
        }
        assert_eq!(ws.datasets().len(), 4);
        assert_eq!(ws.ranking.as_ref().unwrap().runs.len(), 2);
        let total: usize = a.iter().map(|f| f.1.len()).sum();
        assert!(total < 1_000_000, "the example stays small: {total} bytes");
    }

    #[test]
    fn the_parsed_example_reads_back_into_the_same_workspace() {
        let bytes = example_parsed();
        assert_eq!(bytes, example_parsed(), "deterministic");
        let files = crate::parse::transfer::decode_many(&bytes).unwrap();
        let names: Vec<String> = example_files().into_iter().map(|f| f.0).collect();
        assert_eq!(files.iter().map(|f| f.0.clone()).collect::<Vec<_>>(), names);
        let (mut parsed, mut direct) = (Workspace::default(), Workspace::default());
        for (name, outcome) in files {
            parsed.add(&name, outcome.unwrap()).unwrap();
        }
        for (name, bytes) in example_files() {
            direct
                .load_bytes(&name, &bytes, &LoadOptions::default())
                .unwrap();
        }
        // every metric of every data set, as the dashboard's tables show them
        let report = |ws: &Workspace| -> Vec<String> {
            use rankscope_core::evaluate::{evaluate, Conventions};
            ws.datasets()
                .iter()
                .map(|d| {
                    let metrics = rankscope_core::registry::all_metrics(d.kind(), &[1, 5, 10]);
                    format!(
                        "{:?}",
                        evaluate(d, &Conventions::default(), &metrics).models
                    )
                })
                .collect()
        };
        assert_eq!(report(&parsed).len(), 4);
        assert_eq!(report(&parsed), report(&direct));
    }
}
