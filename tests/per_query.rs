//! The per-query table's tests (core::per_query): they load files (parse)
//! and write the table's CSV (report), layers above the core.

mod tests {
    use rankscope::core::evaluate::{evaluate, Conventions, Dataset};
    use rankscope::core::per_query::*;
    use rankscope::core::ranking::{self, PreparedRun, QuerySet, TieRule};
    use rankscope::core::registry::{MetricId, RECIPROCAL_RANK};
    use rankscope::parse::{LoadOptions, Workspace};

    /// Run a has queries q1, q10, q2, run b q1, q2, q3; the qrels judge d1
    /// relevant everywhere. d1's ranks: run a q1 1, q10 3, q2 none; run b
    /// q1 2, q2 1, q3 12.
    fn workspace() -> Workspace {
        let run_a = "q1 Q0 d1 1 9 a\nq1 Q0 d5 2 8 a\n\
                     q10 Q0 d5 1 9 a\nq10 Q0 d6 2 8 a\nq10 Q0 d1 3 7 a\n\
                     q2 Q0 d7 1 9 a\nq2 Q0 d8 2 8 a\n";
        let mut run_b = String::from("q1 Q0 d5 1 9 b\nq1 Q0 d1 2 8 b\nq2 Q0 d1 1 9 b\n");
        for r in 1..=12 {
            let doc = if r == 12 { 1 } else { r + 1 };
            run_b += &format!("q3 Q0 d{doc} {r} {} b\n", 100 - r);
        }
        let qrels = "q1 0 d1 1\nq10 0 d1 1\nq2 0 d1 1\nq3 0 d1 1\n";
        let mut ws = Workspace::default();
        let o = LoadOptions::default();
        ws.load_bytes("qrels.txt", qrels.as_bytes(), &o).unwrap();
        ws.load_bytes("a.run", run_a.as_bytes(), &o).unwrap();
        ws.load_bytes("b.run", run_b.as_bytes(), &o).unwrap();
        ws
    }

    fn table(ws: &Workspace) -> (RrIndex, RrValues, Vec<PreparedRun>) {
        let d = ws.ranking.as_ref().unwrap();
        let runs: Vec<PreparedRun> = (0..d.runs.len())
            .map(|i| ranking::prepare(d, i, TieRule::Trec, QuerySet::Intersection))
            .collect();
        let shown: Vec<(usize, &PreparedRun)> = runs.iter().enumerate().collect();
        let ix = RrIndex::new(&d.queries, &shown);
        let v = RrValues::from_runs(&ix, &runs, 1);
        (ix, v, runs)
    }

    #[test]
    fn rows_are_every_runs_queries_once_in_name_order_with_hand_ranks() {
        let ws = workspace();
        let (ix, v, _) = table(&ws);
        assert_eq!(ix.names, ["a", "b"]);
        assert_eq!(ix.qids, ["q1", "q10", "q2", "q3"]);
        let want: [([Option<usize>; 2], [f64; 2]); 4] = [
            ([Some(1), Some(2)], [1.0, 0.5]),
            ([Some(3), None], [1.0 / 3.0, 0.0]),
            ([None, Some(1)], [0.0, 1.0]),
            ([None, Some(12)], [0.0, 1.0 / 12.0]),
        ];
        for (row, (ranks, rr)) in want.iter().enumerate() {
            assert_eq!(v.row(row).0, ranks, "row {row}");
            assert_eq!(v.row(row).1, rr, "row {row}");
        }
        // unfiltered, the histograms count every row; the mean is over every row
        let h = v.rank_histograms(&v.order(&ix, "", 0, false));
        assert_eq!(h[0].0, [1, 0, 1, 0, 0, 0, 0, 2]);
        assert_eq!(h[1].0, [1, 1, 0, 0, 0, 0, 1, 1]);
        assert!((h[1].1 - (0.5 + 1.0 + 1.0 / 12.0) / 4.0).abs() < 1e-15);
        // filtered, only the shown rows: q1 and q10
        let h = v.rank_histograms(&v.order(&ix, "q1*", 0, false));
        assert_eq!(h[0].0, [1, 0, 1, 0, 0, 0, 0, 0]);
        assert_eq!(h[1].0, [0, 1, 0, 0, 0, 0, 0, 1]);
        assert!((h[1].1 - 0.5 / 2.0).abs() < 1e-15);
    }

    #[test]
    fn order_filters_and_sorts_without_losing_rows() {
        let ws = workspace();
        let (ix, v, _) = table(&ws);
        assert_eq!(v.order(&ix, "", 0, true), [3, 2, 1, 0]);
        // a query id is matched whole (q1 is not q10), `*` for any text
        assert_eq!(v.order(&ix, "q1", 0, false), [0]);
        assert_eq!(v.order(&ix, "q1*", 0, false), [0, 1]);
        assert_eq!(v.order(&ix, "q3|q10", 0, false), [1, 3]);
        assert!(v.order(&ix, "q", 0, false).is_empty());
        // run b's first relevant rank: 1 (q2), 2 (q1), 12 (q3), none (q10) last
        assert_eq!(v.order(&ix, "", 3, false), [2, 0, 3, 1]);
        // run a's value, descending; equal values keep name order
        assert_eq!(v.order(&ix, "", 2, true), [0, 1, 2, 3]);
        let shown = v.order(&ix, "q1*", 0, false);
        let csv = rankscope::report::rr_table_csv(&ix, &v, &shown, "RR", &[]);
        assert_eq!(
            csv,
            "query,a: RR,b: RR\nq1,1.0,0.5\nq10,0.3333333333333333,0.0\n"
        );
        // the conventions that are not the defaults in a last column, as the table's CSV
        let conventions = ["relevance_level=2".to_string(), "ties=average".to_string()];
        let csv = rankscope::report::rr_table_csv(&ix, &v, &shown, "RR", &conventions);
        assert_eq!(
            csv,
            "query,a: RR,b: RR,conventions\nq1,1.0,0.5,relevance_level=2; ties=average\nq10,0.3333333333333333,0.0,relevance_level=2; ties=average\n"
        );
    }

    #[test]
    fn another_metric_comes_from_the_report_and_is_nan_where_a_run_has_none() {
        let ws = workspace();
        let (ix, mut v, runs) = table(&ws);
        let d = ws.ranking.as_ref().unwrap();
        let id = MetricId::new(RECIPROCAL_RANK, Some(10));
        let conv = Conventions {
            query_set: QuerySet::Intersection,
            ..Conventions::default()
        };
        let report = evaluate(&Dataset::Ranking(d), &conv, std::slice::from_ref(&id));
        v.use_report(&ix, &report, &id.to_string());
        let rr: Vec<f64> = (0..4).flat_map(|r| v.row(r).1.to_vec()).collect();
        // run a has no q3, run b no q10; b's q3 rank 12 is past the cutoff
        let want = [1.0, 0.5, 1.0 / 3.0, f64::NAN, 0.0, 1.0, f64::NAN, 0.0];
        for (got, want) in rr.iter().zip(want) {
            assert!(got.to_bits() == want.to_bits() || got == &want, "{rr:?}");
        }
        assert_eq!(runs.len(), 2);
    }

    #[test]
    fn the_difference_is_the_first_other_run_minus_the_baseline() {
        let names: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
        assert_eq!(difference(&names, None), Some((0, 1)));
        assert_eq!(difference(&names, Some("c")), Some((0, 2)));
        assert_eq!(difference(&names, Some("a")), Some((1, 0)));
        assert_eq!(difference(&names, Some("gone")), Some((0, 1)));
        assert_eq!(difference(&names[..1], None), None);
    }
}
