//! Invariants that must hold on any input (proptest).
#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use rankscope::core::binary::BinaryCurve;
use rankscope::core::evaluate::{evaluate, Conventions, Dataset};
use rankscope::core::multiclass::{self, ClassTieRule, RowSummary};
use rankscope::core::ranking::TieRule;
use rankscope::core::registry::{self, Kind, MetricId};
use rankscope::parse::{LoadOptions, Workspace};

/// Random ranking data as TREC text: queries with tied scores and graded judgments.
fn ranking_text() -> impl Strategy<Value = (String, String)> {
    let query = (
        proptest::collection::vec((0u8..6, -1i8..4, any::<bool>()), 0..14),
        0u8..3,
    );
    proptest::collection::vec(query, 1..6).prop_map(|queries| {
        let (mut run, mut qrels) = (String::new(), String::new());
        for (q, (docs, extra_relevant)) in queries.iter().enumerate() {
            for (d, (score, grade, judged)) in docs.iter().enumerate() {
                run.push_str(&format!(
                    "q{q} Q0 d{d} {} {} t\n",
                    d + 1,
                    *score as f64 / 4.0
                ));
                if *judged || *grade > 0 {
                    qrels.push_str(&format!("q{q} 0 d{d} {grade}\n"));
                }
            }
            for e in 0..*extra_relevant {
                qrels.push_str(&format!("q{q} 0 unretrieved{e} 1\n"));
            }
            qrels.push_str(&format!("q{q} 0 judged_nonrel 0\n"));
        }
        // a run query absent from the qrels: never empty, and always left out
        run.push_str("zz Q0 dz 1 0 t\n");
        (run, qrels)
    })
}

fn load(run: &str, qrels: &str) -> Workspace {
    let mut ws = Workspace::default();
    ws.load_bytes("p.qrels", qrels.as_bytes(), &LoadOptions::default())
        .unwrap();
    ws.load_bytes("p.run", run.as_bytes(), &LoadOptions::default())
        .unwrap();
    ws
}

fn all_ranking_metrics() -> Vec<MetricId> {
    registry::all_metrics(Kind::Ranking, &[1, 2, 3, 5, 10, 20])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn bounded_ranking_metrics_stay_in_the_unit_interval((run, qrels) in ranking_text(), ties in 0usize..3) {
        let ws = load(&run, &qrels);
        let ties = [TieRule::Trec, TieRule::File, TieRule::Average][ties];
        let conv = Conventions { ties, ..Default::default() };
        let report = evaluate(&Dataset::Ranking(ws.ranking.as_ref().unwrap()), &conv, &all_ranking_metrics());
        for m in &report.models {
            for (id, v) in &m.metrics {
                let base = registry::base_of(id);
                let info = registry::info(base, Kind::Ranking).unwrap();
                if let Some(v) = v {
                    prop_assert!(v.is_finite(), "{id} = {v}");
                    if info.unit_interval {
                        prop_assert!((-1e-12..=1.0 + 1e-12).contains(v), "{id} = {v}");
                    }
                }
            }
        }
    }

    #[test]
    fn per_query_values_average_to_the_reported_mean((run, qrels) in ranking_text()) {
        let ws = load(&run, &qrels);
        let report = evaluate(&Dataset::Ranking(ws.ranking.as_ref().unwrap()), &Conventions::default(), &all_ranking_metrics());
        for m in &report.models {
            for (id, col) in &m.per_unit {
                let base = registry::base_of(id);
                if !registry::info(base, Kind::Ranking).unwrap().is_mean { continue; }
                // undefined per-query values (NaN: Spearman of a constant list) are left out of the mean
                let defined: Vec<f64> = col.iter().copied().filter(|v| v.is_finite()).collect();
                match m.metrics[id] {
                    Some(v) => prop_assert!((defined.iter().sum::<f64>() / defined.len() as f64 - v).abs() < 1e-12, "{id}: {v}"),
                    None => prop_assert!(defined.is_empty(), "{id} undefined but has values"),
                }
            }
        }
    }

    #[test]
    fn hit_rate_grows_with_k_and_ideal_order_has_ndcg_one((run, qrels) in ranking_text()) {
        let ws = load(&run, &qrels);
        let d = ws.ranking.as_ref().unwrap();
        let report = evaluate(&Dataset::Ranking(d), &Conventions::default(), &all_ranking_metrics());
        for m in &report.models {
            let ks = [1, 2, 3, 5, 10, 20];
            for w in ks.windows(2) {
                let (a, b) = (format!("hit_rate@{}", w[0]), format!("hit_rate@{}", w[1]));
                prop_assert!(m.metrics[&a].unwrap() <= m.metrics[&b].unwrap() + 1e-12, "{} > {}", a, b);
                let (a, b) = (format!("recall@{}", w[0]), format!("recall@{}", w[1]));
                prop_assert!(m.metrics[&a].unwrap() <= m.metrics[&b].unwrap() + 1e-12, "{} > {}", a, b);
            }
            prop_assert!(m.metrics["mrr@1"].unwrap() <= m.metrics["mrr"].unwrap() + 1e-12);
        }
        // rewrite the run in the ideal order of its own judgments: every judged query with
        // all its relevant documents retrieved gets nDCG = 1
        let mut ideal = String::new();
        for q in 0..d.queries.len() as u32 {
                        let mut sorted: Vec<(&str, i32)> = d.qrels.judgments(q).collect();
            sorted.sort_by_key(|j| std::cmp::Reverse(j.1));
            for (rank, (doc, _)) in sorted.iter().enumerate() {
                ideal.push_str(&format!("{} Q0 {} {} {} t\n", d.queries.name(q), doc, rank + 1, 1000 - rank));
            }
        }
        let ws2 = load(&ideal, &qrels);
        let r2 = evaluate(&Dataset::Ranking(ws2.ranking.as_ref().unwrap()), &Conventions::default(), &[MetricId::parse("ndcg", Kind::Ranking).unwrap()]);
        let col = &r2.models[0].per_unit["ndcg"];
        for (i, v) in col.iter().enumerate() {
                        let r2data = ws2.ranking.as_ref().unwrap();
            let has_relevant = (0..r2data.queries.len() as u32)
                .filter(|&q| r2data.qrels.has_query(q))
                .nth(i)
                .is_some_and(|q| r2data.qrels.judgments(q).any(|(_, g)| g > 0));

            prop_assert!(!has_relevant || (v - 1.0).abs() < 1e-12, "query {i}: nDCG {v}");
        }
    }

    #[test]
    fn row_order_in_the_file_does_not_matter_under_the_trec_rule((run, qrels) in ranking_text(), seed in any::<u64>()) {
        let mut lines: Vec<&str> = run.lines().collect();
        // deterministic shuffle
        let mut s = seed | 1;
        for i in (1..lines.len()).rev() {
            s ^= s << 13; s ^= s >> 7; s ^= s << 17;
            lines.swap(i, (s % (i as u64 + 1)) as usize);
        }
        let shuffled = lines.join("\n");
        let a = load(&run, &qrels);
        let b = load(&shuffled, &qrels);
        let ids = all_ranking_metrics();
        for ties in [TieRule::Trec, TieRule::Average] {
            let conv = Conventions { ties, ..Default::default() };
            let ra = evaluate(&Dataset::Ranking(a.ranking.as_ref().unwrap()), &conv, &ids);
            let rb = evaluate(&Dataset::Ranking(b.ranking.as_ref().unwrap()), &conv, &ids);
            for (id, v) in &ra.models[0].metrics {
                let w = rb.models[0].metrics[id];
                prop_assert!(match (v, w) { (Some(x), Some(y)) => (x - y).abs() < 1e-12, (None, None) => true, _ => false }, "{id}: {v:?} vs {w:?}");
            }
        }
    }

    #[test]
    fn auc_of_negated_scores_is_one_minus_auc(rows in proptest::collection::vec((any::<bool>(), 0u8..20), 2..200)) {
        let labels: Vec<bool> = rows.iter().map(|r| r.0).collect();
        let scores: Vec<f64> = rows.iter().map(|r| r.1 as f64 / 10.0).collect();
        let neg: Vec<f64> = scores.iter().map(|s| -s).collect();
        let a = BinaryCurve::new(&labels, &scores);
        let b = BinaryCurve::new(&labels, &neg);
        match (a.roc_auc(), b.roc_auc()) {
            (Some(x), Some(y)) => prop_assert!((x + y - 1.0).abs() < 1e-12),
            (None, None) => prop_assert!(labels.iter().all(|&l| l) || labels.iter().all(|&l| !l)),
            other => prop_assert!(false, "{other:?}"),
        }
        if let Some(ap) = a.average_precision() {
            prop_assert!((0.0..=1.0).contains(&ap));
        }
        // threshold metrics agree with a direct count
        let t = 0.95;
        let c = a.confusion_at(t, rankscope::core::binary::ThresholdRule::AtLeast);
        let tp = labels.iter().zip(&scores).filter(|(l, s)| **l && **s >= t).count() as u64;
        let fp = labels.iter().zip(&scores).filter(|(l, s)| !**l && **s >= t).count() as u64;
        prop_assert_eq!((c.tp, c.fp), (tp, fp));
    }

    #[test]
    fn accuracy_at_one_is_at_most_mrr(rows in proptest::collection::vec((0usize..6, proptest::collection::vec(0u8..5, 6)), 1..60), rule in 0usize..4) {
        let rule = [ClassTieRule::LowerIndexFirst, ClassTieRule::HigherIndexFirst, ClassTieRule::Optimistic, ClassTieRule::Pessimistic][rule];
        let summaries: Vec<RowSummary> = rows.iter().map(|(t, v)| RowSummary::from_row(&v.iter().map(|&x| x as f64).collect::<Vec<_>>(), *t)).collect();
        let ranks: Vec<Option<u32>> = summaries.iter().map(|s| Some(s.rank(rule))).collect();
        let acc1 = multiclass::accuracy_at(&ranks, 1);
        let mrr = multiclass::mrr(&ranks, None);
        prop_assert!(acc1 <= mrr + 1e-12 && mrr <= 1.0 + 1e-12);
        let mut prev = 0.0;
        for k in 1..=6 {
            let a = multiclass::accuracy_at(&ranks, k);
            prop_assert!(a + 1e-12 >= prev);
            prev = a;
        }
        prop_assert!((prev - 1.0).abs() < 1e-12, "every target is within the 6 classes");
    }

    /// The one-scan-per-query path gives exactly the per-(family, cutoff) kernels' values.
    #[test]
    fn scanned_cutoff_columns_equal_the_kernels(
        (run, qrels) in ranking_text(),
        ties in 0usize..2,
        switches in (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>(), 1i32..3),
    ) {
        use rankscope::core::evaluate::{evaluate_prepared, ranking_per_query};
        use rankscope::core::ranking::{prepare, QuerySet};
        use rankscope::core::ranking_metrics::*;
        let ws = load(&run, &qrels);
        let data = ws.ranking.as_ref().unwrap();
        let (exp, jk, min_rk, min_kl, level) = switches;
        let conv = Conventions {
            ties: [TieRule::Trec, TieRule::File][ties],
            gain: if exp { Gain::Exponential } else { Gain::Linear },
            discount: if jk { Discount::JarvelinB2 } else { Discount::Log2 },
            ap_denominator: if min_rk { ApDenominator::MinRelevantK } else { ApDenominator::Relevant },
            precision_denominator: if min_kl { PrecisionDenominator::MinKLength } else { PrecisionDenominator::K },
            relevance_level: level,
            ..Default::default()
        };
        let p = prepare(data, 0, conv.ties, QuerySet::Qrels);
        let metrics = registry::all_metrics(Kind::Ranking, &[1, 2, 3, 5, 10, 20]);
        let report = evaluate_prepared(data, [&p], &conv, &metrics);
        let mut checked = 0;
        for id in &metrics {
            if id.base == "idcg" || id.base == "gm_map" { continue; }
            if let Some(expected) = ranking_per_query(&p, &conv, id) {
                let got = &report.models[0].per_unit[&id.to_string()];
                prop_assert_eq!(got, &expected, "{}", id);
                checked += 1;
            }
        }
        prop_assert!(checked > 50);
    }

    /// Concordance and Spearman on score-sorted lists with small grades (no sort)
    /// equal the general versions.
    #[test]
    fn sorted_agreement_equals_the_general_versions(
        mut rows in proptest::collection::vec((0u8..8, 0i32..5), 0..40),
    ) {
        use rankscope::core::ranking_metrics::agreement;
        rows.sort_by_key(|r| std::cmp::Reverse(r.0));
        let scores: Vec<f64> = rows.iter().map(|r| r.0 as f64 / 2.0).collect();
        let grades: Vec<i32> = rows.iter().map(|r| r.1).collect();
        prop_assert_eq!(
            agreement::concordance_sorted(&scores, &grades, &mut Vec::new()),
            agreement::concordance(&scores, &grades)
        );
        let g: Vec<f64> = grades.iter().map(|&g| g as f64).collect();
        prop_assert_eq!(
            agreement::spearman_sorted(&scores, &grades, &mut Default::default()),
            agreement::spearman(&scores, &g)
        );
    }

    /// Changing the tie rule by re-sorting tie groups gives exactly a fresh prepare.
    #[test]
    fn retie_equals_preparing_again((run, qrels) in ranking_text(), from in 0usize..3, to in 0usize..3) {
        use rankscope::core::ranking::{prepare, retie, QuerySet};
        let ws = load(&run, &qrels);
        let data = ws.ranking.as_ref().unwrap();
        let rules = [TieRule::Trec, TieRule::File, TieRule::Average];
        let base = prepare(data, 0, rules[from], QuerySet::Qrels);
        let fast = retie(&base, &data.runs[0], rules[to]);
        let fresh = prepare(data, 0, rules[to], QuerySet::Qrels);
        prop_assert_eq!(fast.tie_rule, fresh.tie_rule);
        prop_assert_eq!(&fast.rows, &fresh.rows);
        prop_assert_eq!(&fast.grades, &fresh.grades);
        prop_assert_eq!(&fast.offsets, &fresh.offsets);
        prop_assert_eq!(&fast.tied_with_prev, &fresh.tied_with_prev);
        prop_assert_eq!(&fast.judged_desc, &fresh.judged_desc);
    }
}

/// A binary CSV's lines: rows (some malformed), comments, blank lines, CRLF.
fn binary_lines() -> impl Strategy<Value = String> {
    let line = prop_oneof![
        8 => (any::<bool>(), 0u16..1000, 0u16..1000).prop_map(|(l, a, b)| format!("{},{},{}\n", l as u8, a as f64 / 999.0, b as f64 / 7.0)),
        // fixed decimals: runs of rows of one width (read by their layout)
        8 => (any::<bool>(), 0u16..1000, 0u16..100, any::<bool>()).prop_map(|(l, a, b, neg)| format!("{},{}{:.3},{:.1}\n", l as u8, if neg { "-" } else { "" }, a as f64 / 999.0, b as f64 / 7.0)),
        1 => Just("\n".to_string()),
        1 => Just("# note\r\n".to_string()),
        1 => Just("maybe,0.5,0.5\n".to_string()),
        1 => (0u8..9).prop_map(|x| format!("1,{x},\n")),
        1 => (any::<bool>(), 0u8..9).prop_map(|(l, x)| format!("{},0.{x},1e-{x}\r\n", l as u8)),
        2 => (any::<bool>(), -1e6f64..1e6, 0u8..4).prop_map(|(l, v, form)| match form {
            0 => format!("{},{v},-{v}\n", l as u8),
            1 => format!("{},.{},{}.\r\n", l as u8, v.abs() as u64, v as i64),
            2 => format!("{},{v:.3}, {v}\n", l as u8),
            _ => format!("{},{v:e},{v}\n", l as u8),
        }),
    ];
    (proptest::collection::vec(line, 0..120), 0u8..3).prop_map(|(lines, head)| {
        let header = [
            "label,gbdt,logreg\n",
            "\u{feff}# two models\nlabel,gbdt,logreg\n",
            "\nlabel,gbdt,logreg\r\n",
        ][head as usize];
        format!("{header}{}", lines.concat())
    })
}

/// The parse of `text` as file `name` fed in slices of `chunk` bytes, with
/// the value limit `limit` (and, when `sized`, the file's size known ahead).
fn parse_in_slices(
    name: &str,
    text: &[u8],
    chunk: usize,
    limit: Option<u64>,
    sized: bool,
) -> Result<rankscope::parse::Parsed, rankscope::parse::LoadError> {
    let mut p = rankscope::parse::Parser::new(name, LoadOptions::default());
    p.limit_values(limit);
    if sized {
        p.expect_size(text.len() as u64);
    }
    for c in text.chunks(chunk) {
        p.feed(c);
    }
    p.finish()
}

/// Multi-class matrix rows over 3 classes, with bad targets and scores, ties,
/// blank lines and comments.
fn matrix_lines() -> impl Strategy<Value = String> {
    let line = prop_oneof![
        8 => (0u8..3, 0u8..5, 0u8..5, 0u8..5).prop_map(|(t, a, b, c)| format!("{t},0.{a},0.{b},{c}e-1\n")),
        1 => Just("\r\n".to_string()),
        1 => Just("# note\n".to_string()),
        1 => Just("7,0.1,0.2,0.7\n".to_string()),
        1 => (0u8..3).prop_map(|t| format!("{t},0.5,,0.5\n")),
        1 => (0u8..3, -1e3f64..1e3).prop_map(|(t, v)| format!("{t},{v},{v:e},-{v}\r\n")),
    ];
    proptest::collection::vec(line, 0..120)
        .prop_map(|lines| format!("target,p_0,p_1,p_2\n{}", lines.concat()))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Two workers parse a large binary CSV or multi-class matrix as a head
    /// and a tail: joined, they give the whole file's columns or its problems
    /// at the same lines.
    #[test]
    fn a_file_parsed_as_two_parts_is_the_file(text in prop_oneof![binary_lines(), matrix_lines()], chunk in 1u64..64, limit in proptest::option::of(1u64..400)) {
        use rankscope::parse::split::{join, parse_bytes_part, Part};
        use rankscope::parse::{parse_bytes, Parser};
        let bytes = text.as_bytes();
        let part = |which: Part| {
            let mut parser = Parser::new("f.csv", LoadOptions::default());
            parser.limit_values(limit);
            parse_bytes_part(parser, bytes, which, chunk)
        };
        let (head, tail) = (part(Part::Head), part(Part::Tail));
        // the parts decide alike, unless the head is refused before the split
        prop_assert!(head.split == tail.split || !head.split && head.outcome.is_err());
        let joined = join("f.csv", head, tail);
        let whole = parse_in_slices("f.csv", bytes, chunk as usize, limit, true);
        prop_assert_eq!(format!("{joined:?}"), format!("{whole:?}"));
        if limit.is_none() {
            let plain = parse_bytes("f.csv", bytes, &LoadOptions::default());
            prop_assert_eq!(format!("{joined:?}"), format!("{plain:?}"));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Plain rows (`1,0.25,3`) are read by a fast path, every other line by
    /// the general one: a space after each delimiter sends every row the
    /// general way (it trims fields) and must change nothing.
    #[test]
    fn the_fast_path_reads_rows_as_the_general_path_does(text in binary_lines(), chunk in 1usize..64, limit in proptest::option::of(1u64..400)) {
        let parse = |text: &str| parse_in_slices("f.csv", text.as_bytes(), chunk, limit, false);
        let general = text.replace(',', ", ");
        prop_assert_eq!(format!("{:?}", parse(&text)), format!("{:?}", parse(&general)));
    }
}

/// A binary CSV of two models whose scores are printed with a fixed number
/// of decimals (rows of one width, read by their layout), now and then a
/// row of another width, sign or line break.
fn fixed_width_rows() -> impl Strategy<Value = String> {
    let row = (any::<bool>(), 0u32..1_000_000, 0u32..1_000_000, 0u8..40);
    (
        0usize..10,
        0usize..10,
        proptest::collection::vec(row, 1..300),
    )
        .prop_map(|(da, db, rows)| {
            let mut text = String::from("label,a,b\n");
            for (label, a, b, odd) in rows {
                let (a, b) = (a as f64 / 1e6, b as f64 / 1e4);
                let (da, sign, end) = match odd {
                    0 => (da + 1, "", "\n"),
                    1 => (da, "-", "\n"),
                    2 => (da, "", "\r\n"),
                    _ => (da, "", "\n"),
                };
                text += &format!("{},{sign}{a:.da$},{b:.db$}{end}", label as u8);
            }
            text
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Rows read by their layout give what the general path gives.
    #[test]
    fn fixed_width_rows_read_by_their_layout_are_read_alike(text in fixed_width_rows(), chunk in 1usize..4096) {
        let parse = |text: &str| parse_in_slices("f.csv", text.as_bytes(), chunk, None, false);
        let general = text.replace(',', ", ");
        let fast = parse(&text);
        prop_assert!(fast.is_ok());
        prop_assert_eq!(format!("{:?}", fast), format!("{:?}", parse(&general)));
    }
}

/// TREC run or qrels lines (which, the first content line decides), each
/// as (content, line break): plain lines with one or more spaces or tabs
/// between fields, lines the fast path leaves to the general one, and now
/// and then a line in error (which hides the columns: mostly none).
fn trec_lines() -> impl Strategy<Value = Vec<(String, &'static str)>> {
    let sep = prop_oneof![Just(" "), Just("\t"), Just("  "), Just(" \t")];
    let score = prop_oneof![
        20 => (0u32..100_000).prop_map(|v| format!("{}", v as f64 / 1000.0)),
        5 => (-1e4f64..1e4).prop_map(|v| format!("{v}")),
        5 => (-1e4f64..1e4).prop_map(|v| format!("{v:e}")),
        1 => Just("1234567890123456".to_string()),
        1 => Just("-0".to_string()),
        1 => Just("1e30".to_string()),
        1 => Just("nan".to_string()),
    ];
    let grade = prop_oneof![
        20 => (-1i32..4).prop_map(|g| g.to_string()),
        1 => Just("2.0".to_string()),
        1 => Just("+1".to_string()),
        1 => Just("-0".to_string()),
        1 => Just("99999999999".to_string()),
    ];
    let run = (0u8..5, 0u16..40, sep.clone(), score, 0u8..3)
        .prop_map(|(q, d, s, v, t)| format!("q{q}{s}Q0 d{d}{s}1{s}{v}{s}tag{t}"));
    let qrels =
        (0u8..5, 0u16..40, sep, grade).prop_map(|(q, d, s, g)| format!("q{q}{s}0{s}d{d}{s}{g}"));
    let odd = |rows: &'static [&'static str]| {
        proptest::sample::select(
            [&["# note", "", "\u{feff}"][..], rows]
                .concat()
                .into_iter()
                .map(String::from)
                .collect::<Vec<_>>(),
        )
    };
    let run_odd = odd(&[
        " q1 Q0 d1 1 0.5 t",
        "q1 Q0 d\u{e9} 1 0.5 t\u{e9}",
        "q1 Q0 d1 1 0.5 t extra",
        "q1\x0bQ0 d1 1 0.5 t",
        "q1 Q0 d1 1 0.5 t\x7f",
        "q2 0 d1 1",
    ]);
    let qrels_odd = odd(&[
        " q1 0 d1 1",
        "q\u{e9} 0 d1 2",
        "q1 0 d1\x0b 1",
        "q1 Q0 d1 1 0.5 t",
    ]);
    let ending = prop_oneof![Just("\n"), Just("\r\n")];
    prop_oneof![
        proptest::collection::vec(
            (prop_oneof![12 => run, 1 => run_odd], ending.clone()),
            0..40
        ),
        proptest::collection::vec((prop_oneof![12 => qrels, 1 => qrels_odd], ending), 0..40),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Plain TREC lines are read by a fast path, every other line by the
    /// general one: a space before each line break sends every line the
    /// general way and must change nothing (columns, problems, the tag).
    #[test]
    fn the_trec_fast_path_reads_lines_as_the_general_path_does(lines in trec_lines(), chunk in 1usize..64, limit in proptest::option::of(1u64..100)) {
        let parse = |text: &str| parse_in_slices("f.run", text.as_bytes(), chunk, limit, false);
        let fast: String = lines.iter().map(|(l, e)| format!("{l}{e}")).collect();
        let general: String = lines.iter().map(|(l, e)| format!("{l} {e}")).collect();
        prop_assert_eq!(format!("{:?}", parse(&fast)), format!("{:?}", parse(&general)));
    }
}

proptest! {
    /// The curves of two sets of rows, merged, are the curve of both sets:
    /// the same thresholds and counts, so the same AUC and AP to the bit.
    #[test]
    fn merged_curves_are_the_curve_of_all_rows(
        a in proptest::collection::vec((any::<bool>(), -3i8..12), 0..120),
        b in proptest::collection::vec((any::<bool>(), -3i8..12), 0..120),
    ) {
        let split = |rows: &[(bool, i8)]| -> (Vec<bool>, Vec<f64>) {
            rows.iter().map(|&(l, s)| (l, if s == -3 { -0.0 } else { s as f64 / 8.0 })).unzip()
        };
        let (la, sa) = split(&a);
        let (lb, sb) = split(&b);
        let (ca, cb) = (BinaryCurve::new(&la, &sa), BinaryCurve::new(&lb, &sb));
        prop_assert!(ca.check(&la).is_ok());
        prop_assert!(cb.check(&lb).is_ok());
        let merged = ca.merge(&cb);
        let (l, s): (Vec<bool>, Vec<f64>) = (
            la.iter().chain(&lb).copied().collect(),
            sa.iter().chain(&sb).copied().collect(),
        );
        let whole = BinaryCurve::new(&l, &s);
        prop_assert!(merged.check(&l).is_ok());
        prop_assert_eq!(&merged.thresholds.iter().map(|t| t.to_bits()).collect::<Vec<_>>(), &whole.thresholds.iter().map(|t| t.to_bits()).collect::<Vec<_>>());
        prop_assert_eq!(&merged.tps, &whole.tps);
        prop_assert_eq!(&merged.fps, &whole.fps);
        prop_assert_eq!(merged.roc_auc().map(f64::to_bits), whole.roc_auc().map(f64::to_bits));
        prop_assert_eq!(merged.average_precision().map(f64::to_bits), whole.average_precision().map(f64::to_bits));
        // a curve is checked against its own labels: other labels are refused
        if la.iter().any(|&x| x) && la.iter().any(|&x| !x) {
            let flipped: Vec<bool> = la.iter().map(|x| !x).collect();
            if flipped.iter().filter(|&&x| x).count() != la.iter().filter(|&&x| x).count() {
                prop_assert!(ca.check(&flipped).is_err());
            }
        }
    }
}

proptest! {
    /// Log loss and Brier from the curve (each distinct score once, weighted
    /// by its counts) equal the row-by-row means, and refuse exactly when a
    /// row's probability is outside [0, 1].
    #[test]
    fn losses_from_the_curve_equal_the_row_means(
        rows in proptest::collection::vec((any::<bool>(), -4i16..1100), 1..150),
        logits in any::<bool>(),
    ) {
        use rankscope::core::binary::{brier, log_loss, sigmoid};
        let labels: Vec<bool> = rows.iter().map(|r| r.0).collect();
        let scores: Vec<f64> = rows.iter().map(|r| if logits { (r.1 as f64 - 500.0) / 40.0 } else { r.1 as f64 / 1000.0 }).collect();
        let probs: Vec<f64> = scores.iter().map(|&z| if logits { sigmoid(z) } else { z }).collect();
        let curve = BinaryCurve::new(&labels, &scores);
        let probability = |z: f64| if logits { sigmoid(z) } else { z };
        for (brier_score, rowwise) in [(false, log_loss(&labels, &probs)), (true, brier(&labels, &probs))] {
            let grouped = curve.probability_loss(brier_score, probability);
            match (grouped, rowwise) {
                (Some(g), Ok(r)) => prop_assert!((g - r).abs() <= 1e-13 * r.abs().max(1.0), "{} vs {}", g, r),
                (None, Err(_)) => {}
                (g, r) => prop_assert!(false, "{:?} vs {:?}", g, r),
            }
        }
    }
}

/// Files in a scratch directory for one proptest case.
fn scratch_files(run: &str, qrels: &str) -> (std::path::PathBuf, String, String) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "rankscope-prop-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let (r, q) = (dir.join("p.run"), dir.join("p.qrels"));
    std::fs::write(&r, run).unwrap();
    std::fs::write(&q, qrels).unwrap();
    (
        dir.clone(),
        r.to_string_lossy().into_owned(),
        q.to_string_lossy().into_owned(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(120))]

    /// Two implementations written apart — the core's kernels and the port of
    /// trec_eval 10.0's C (`rankscope trec_eval`) — give every query the same
    /// values (within 1e-12) on tie-heavy graded data, in both trec_eval
    /// versions of the recall points.
    #[test]
    fn the_trec_eval_port_and_the_core_agree_per_query((run, qrels) in ranking_text(), v9 in any::<bool>()) {
        use rankscope::core::ranking_metrics::TrecEvalVersion;
        use rankscope::trec_eval::{query_values, Version};
        // trec_eval 10.0 stops at a judged query without results: keep the judged queries the run has
        let run_queries: std::collections::HashSet<&str> = run.lines().filter_map(|l| l.split(' ').next()).collect();
        let qrels: String = qrels.lines().filter(|l| run_queries.contains(l.split(' ').next().unwrap())).map(|l| format!("{l}\n")).collect();
        prop_assume!(!qrels.is_empty());
        let ws = load(&run, &qrels);
        let conv = Conventions { trec_eval: if v9 { TrecEvalVersion::V9 } else { TrecEvalVersion::V10 }, ..Default::default() };
        let metrics = registry::all_metrics(Kind::Ranking, &[1, 3, 5, 10]);
        let report = evaluate(&Dataset::Ranking(ws.ranking.as_ref().unwrap()), &conv, &metrics);
        let model = &report.models[0];
        let (dir, run_path, qrels_path) = scratch_files(&run, &qrels);
        let args: Vec<String> = ["-q", "-m", "official", "-m", "ndcg", "-m", "ndcg_cut.1,3,5,10", "-m", "map_cut.1,3,5,10",
            "-m", "recall.1,3,5,10", "-m", "P.1,3,5,10", "-m", "success.1,3,5,10", "-m", "all_trec", "-m", "yaap",
            "-m", "relative_P.1,3,5,10", "-m", if v9 { "P.1" } else { "unj.1,3,5,10" }, &qrels_path, &run_path]
            .iter().map(|a| a.to_string()).collect();
        let port = query_values(if v9 { Version::V9 } else { Version::V10 }, &args).unwrap();
        std::fs::remove_dir_all(dir).unwrap();
        let core_id = |name: &str| -> Option<String> {
            let (base, k) = name.rsplit_once('_').map_or((name, None), |(b, k)| (b, k.parse::<usize>().ok()));
            Some(match (base, k, name) {
                (_, _, "map" | "bpref" | "ndcg" | "num_rel" | "num_rel_ret" | "num_ret") => name.to_string(),
                (_, _, "recip_rank") => "mrr".into(),
                (_, _, "Rprec") => "r_precision".into(),
                (_, _, n) if n.starts_with("iprec_at_recall_") => n.to_string(),
                ("P", Some(k), _) => format!("precision@{k}"),
                ("recall", Some(k), _) => format!("recall@{k}"),
                ("ndcg_cut", Some(k), _) => format!("ndcg@{k}"),
                ("map_cut", Some(k), _) => format!("map@{k}"),
                ("success", Some(k), _) => format!("hit_rate@{k}"),
                ("relative_P", Some(k), _) => format!("relative_p@{k}"),
                ("unj", Some(k), _) => format!("unj@{k}"),
                (_, _, n) if n.starts_with("Rprec_mult_") => n.to_lowercase(),
                (_, _, "set_P") => "set_p".into(),
                (_, _, "set_F") => "set_f".into(),
                (_, _, "set_relative_P") => "set_relative_p".into(),
                (_, _, "infAP") => "infap".into(),
                (_, _, "binG") => "bin_g".into(),
                (_, _, "G") => "g".into(),
                (_, _, "Rndcg") => "rndcg".into(),
                (_, _, "gm_bpref") => "gm_bpref".into(),
                (_, _, n @ ("set_recall" | "set_map" | "11pt_avg" | "ndcg_rel" | "rbp" | "rbp_resid" | "utility"
                    | "yaap" | "num_nonrel_judged_ret")) => n.to_string(),
                _ => return None,
            })
        };
        let mut compared = 0;
        for v in &port {
            let Some(id) = core_id(&v.measure) else { continue };
            let column = model.per_unit.get(&id).unwrap_or_else(|| panic!("core column {id}"));
            let unit = model.unit_ids.iter().position(|u| *u == v.qid).unwrap_or_else(|| panic!("query {}", v.qid));
            // the geometric means' per-query values are logarithms in trec_eval
            let core = if id == "gm_bpref" { column[unit].max(1e-5).ln() } else { column[unit] };
            prop_assert!((core - v.value).abs() <= 1e-12 || (core.is_nan() && v.value.is_nan()), "{} ({id}) of query {}: trec_eval port {}, core {}", v.measure, v.qid, v.value, core);
            compared += 1;
        }
        prop_assert!(compared > 0);
        prop_assert_eq!(model.unit_ids.len(), port.iter().map(|v| &v.qid).collect::<std::collections::HashSet<_>>().len());
    }
}

/// A field value of every kind trec_eval reads: small and huge integers,
/// special and odd floats, text.
fn odd_number() -> impl Strategy<Value = String> {
    prop_oneof![
        (-2i64..5).prop_map(|v| v.to_string()),
        (-2i64..5).prop_map(|v| v.to_string()),
        Just("nan".to_string()),
        Just("-inf".to_string()),
        Just("1e308".to_string()),
        Just("0x1p9".to_string()),
        Just("9223372036854775807".to_string()),
        Just("99999999".to_string()),
        Just("2.5".to_string()),
        Just("x".to_string()),
    ]
}

/// Judgments (qrels, qrels_jg, or prefs with `prefs`) and a run covering
/// their queries, mostly well formed, with a damaged line now and then.
fn trec_files(prefs: bool) -> impl Strategy<Value = (String, String)> {
    let judgment = (0u8..4, 0u8..3, 0u8..3, 0u8..12, odd_number(), 0u8..40);
    let result = (0u8..4, 0u8..14, odd_number(), 0u8..40);
    (
        proptest::collection::vec(judgment, 1..40),
        proptest::collection::vec(result, 1..40),
    )
        .prop_map(move |(js, rs)| {
            let damage = |roll: u8, line: String| match roll {
                0 => line
                    .split_whitespace()
                    .skip(1)
                    .collect::<Vec<_>>()
                    .join(" "),
                1 => format!("# {line}"),
                2 => String::new(),
                3 => line.replace(' ', "\t") + " extra",
                _ => line,
            };
            let mut qrels = String::new();
            for (q, g, s, d, rel, roll) in js {
                let line = if prefs {
                    format!("q{q} g{g} s{s} d{d} {rel}")
                } else {
                    format!("q{q} g{g} d{d} {rel}")
                };
                qrels.push_str(&damage(roll, line));
                qrels.push('\n');
            }
            let mut run = String::new();
            for q in 0..4 {
                run.push_str(&format!("q{q} Q0 d0 1 0.5 r\n"));
            }
            for (q, d, score, roll) in rs {
                run.push_str(&damage(roll, format!("q{q} Q0 d{d} 1 {score} r")));
                run.push('\n');
            }
            (qrels, run)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// `rankscope trec_eval` ends with an output or a message on any input and
    /// command line: no panic, whatever the files hold.
    #[test]
    fn the_trec_eval_port_never_panics(
        (files, format) in (0usize..4).prop_flat_map(|f| (trec_files(f == 2), Just(f))),
        options in proptest::collection::vec(0usize..16, 0..5),
    ) {
        let (qrels, run) = files;
        let (dir, run_path, qrels_path) = scratch_files(&run, &qrels);
        const OPTIONS: [&[&str]; 16] = [
            &["-q"], &["-c"], &["-J"], &["-n"], &["-M", "3"], &["-M", "-5"], &["-l", "-9223372036854775808"],
            &["-l", "9223372036854775807"], &["-N", "9223372036854775807"], &["-m", "all_trec"], &["-m", "all_prefs"],
            &["-m", "qrels_jg"], &["-m", "ndcg.1=1e300,2=-4"], &["-m", "Rprec_mult.1e300"],
            &["-m", "iprec_at_recall.1e300,-1"], &["-m", "relstring.1e19"],
        ];
        let mut args: Vec<String> = vec!["-R".into(), ["qrels", "qrels_jg", "prefs", "qrels_prefs"][format].into()];
        for o in options {
            args.extend(OPTIONS[o].iter().map(|a| a.to_string()));
        }
        args.extend([qrels_path, run_path]);
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = rankscope::trec_eval::run(&args, &mut std::io::empty(), &mut out, &mut err);
        std::fs::remove_dir_all(dir).unwrap();
        prop_assert!(code == 0 || !err.is_empty(), "exit {code} without a message");
    }
}
