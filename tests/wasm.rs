//! The core compiled to wasm gives the same numbers as natively: the reference
//! files are parsed and evaluated inside headless Chromium and compared with
//! the oracle (run by `cargo test --target wasm32-unknown-unknown --test wasm`).
#![cfg(target_arch = "wasm32")]

use rankscope::core::evaluate::{evaluate, Conventions};
use rankscope::core::registry::MetricId;
use rankscope::parse::{LoadOptions, Workspace};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn oracle() -> serde_json::Value {
    serde_json::from_slice(include_bytes!("reference/oracle.json")).unwrap()
}

fn metric(ws: &Workspace, id: &str) -> f64 {
    let d = ws.datasets().remove(0);
    let r = evaluate(
        &d,
        &Conventions::default(),
        &[MetricId::parse(id, d.kind()).unwrap()],
    );
    r.models[0].metrics[id].unwrap()
}

#[wasm_bindgen_test]
fn ranking_in_wasm_matches_trec_eval() {
    let mut ws = Workspace::default();
    ws.load_bytes(
        "ranking.qrels",
        include_bytes!("reference/ranking.qrels"),
        &LoadOptions::default(),
    )
    .unwrap();
    ws.load_bytes(
        "ranking.run",
        include_bytes!("reference/ranking.run"),
        &LoadOptions::default(),
    )
    .unwrap();
    let o = oracle();
    for k in [1, 3, 5, 10, 20] {
        let want = o["ranking"][format!("ndcg@{k} gain=rel")]["pytrec_eval ndcg_cut"]
            .as_f64()
            .unwrap();
        assert!((metric(&ws, &format!("ndcg@{k}")) - want).abs() < 1e-12);
        let want = o["ranking"][format!("map@{k}")]["pytrec_eval map_cut (/|R|)"]
            .as_f64()
            .unwrap();
        assert!((metric(&ws, &format!("map@{k}")) - want).abs() < 1e-12);
    }
}

#[wasm_bindgen_test]
fn binary_and_multiclass_in_wasm_match_scikit_learn() {
    let o = oracle();
    let mut ws = Workspace::default();
    ws.load_bytes(
        "binary.csv",
        include_bytes!("reference/binary.csv"),
        &LoadOptions::default(),
    )
    .unwrap();
    assert!(
        (metric(&ws, "roc_auc")
            - o["binary"]["roc_auc"]["sklearn.roc_auc_score"]
                .as_f64()
                .unwrap())
        .abs()
            < 1e-12
    );
    assert!(
        (metric(&ws, "log_loss")
            - o["binary"]["log_loss"]["sklearn.log_loss (clip to float64 eps=2.2e-16)"]
                .as_f64()
                .unwrap())
        .abs()
            < 1e-12
    );
    let mut ws = Workspace::default();
    ws.load_bytes(
        "multiclass_probs.csv",
        include_bytes!("reference/multiclass_probs.csv"),
        &LoadOptions::default(),
    )
    .unwrap();
    assert!(
        (metric(&ws, "cross_entropy")
            - o["multiclass"]["cross_entropy"]
                ["sklearn.log_loss (no renormalisation in 1.9, clip eps)"]
                .as_f64()
                .unwrap())
        .abs()
            < 1e-12
    );
}

#[wasm_bindgen_test]
fn a_malformed_file_is_an_error_not_a_panic() {
    let mut ws = Workspace::default();
    let err = ws
        .load_bytes(
            "bad.run",
            b"q Q0 d 1 notanumber t\n",
            &LoadOptions::default(),
        )
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "bad.run:1:5: expected a score (a number), found 'notanumber'"
    );
}

/// The loading worker's stream reader gives exactly the bytes asked for,
/// whether the reads follow each other (one stream) or jump (a new one), with
/// a byte reader and without; a file parsed through it equals the file parsed
/// in memory.
#[wasm_bindgen_test]
async fn the_stream_reader_gives_the_file_s_bytes() {
    use rankscope::app::worker::BlobSource;
    use rankscope::parse::split::{self, Part, Source};
    use rankscope::parse::{parse_bytes, Parser};

    let bytes: Vec<u8> = (0..3_000_017u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let blob = |b: &[u8]| {
        let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(b));
        web_sys::Blob::new_with_u8_array_sequence(&parts).unwrap()
    };
    let file = blob(&bytes);
    // sequential runs of odd sizes across the stream's chunks, then jumps back and forth
    let mut ranges = vec![
        (0u64, 5u64),
        (5, 70_001),
        (70_001, 1_500_000),
        (1_500_000, 3_000_017),
    ];
    ranges.extend([
        (2_999_000, 3_000_017),
        (10, 20),
        (20, 1_048_600),
        (1_048_600, 1_048_601),
    ]);
    for byob in [true, false] {
        let mut source = if byob {
            BlobSource::new(&file, "f")
        } else {
            BlobSource::chunk_by_chunk(&file, "f")
        };
        let mut buf = Vec::new();
        for &(s, e) in &ranges {
            source.read(s, e, &mut buf).await.unwrap();
            assert!(
                buf == bytes[s as usize..e as usize],
                "byob {byob}: {s}..{e}"
            );
        }
        // Chromium's file streams are byte streams: the first source reads
        // through a byte reader, the second chunk by chunk
        assert_eq!(source.uses_byte_reader(), byob);
    }

    let run = include_bytes!("reference/ranking.run");
    let file = blob(run);
    for chunk in [7u64, 4096, 1 << 23] {
        let end = split::parse_part(
            Parser::new("ranking.run", Default::default()),
            run.len() as u64,
            Part::Whole,
            chunk,
            &mut BlobSource::new(&file, "ranking.run"),
            &mut |_, _| {},
        )
        .await;
        let want = parse_bytes("ranking.run", run, &Default::default());
        assert_eq!(format!("{:?}", end.outcome), format!("{want:?}"));
    }
}

/// The page reads numbers typed or linked (a threshold, α, a seed) through
/// the browser's `parseFloat` after checking Rust's grammar: the same values
/// as Rust's own parser, and the same refusals.
#[wasm_bindgen_test]
fn numbers_read_in_the_page_are_rust_s() {
    use rankscope::text::parse_f64;
    let mut cases: Vec<String> = [
        "0",
        "-0",
        "+1",
        "0.5",
        ".5",
        "5.",
        "1e3",
        "1E-3",
        "2.5e+10",
        "0.1",
        "0.30000000000000004",
        "1e400",
        "-1e-400",
        "4.9e-324",
        "2.2250738585072011e-308",
        "9007199254740993",
        "123456789012345678901234567890",
        "inf",
        "-Infinity",
        "NaN",
        "",
        ".",
        "e5",
        "1e",
        "1e+",
        "--1",
        "1.2.3",
        " 1",
        "1 ",
        "0x10",
        "1_000",
        "١",
        "1,5",
        "+",
        "-",
        "infinit",
        "+nan",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..2000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let digits = (x % 10_000_000_000_000_000_000) as u128 * 7;
        let point = (x >> 40) as usize % 22;
        let mut s = digits.to_string();
        if point < s.len() {
            s.insert(point, '.');
        }
        let exp = ((x >> 20) % 700) as i64 - 350;
        cases.push(s.clone());
        cases.push(format!("{s}e{exp}"));
    }
    for s in &cases {
        let ours = parse_f64(s);
        let rust = s.parse::<f64>().ok();
        assert_eq!(
            ours.map(f64::to_bits),
            rust.map(f64::to_bits),
            "{s:?}: {ours:?} vs {rust:?}"
        );
    }
}
