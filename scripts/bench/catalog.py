"""Generated data for the catalog's benchmarks (BENCHMARKS.md, "A team's catalog").

    python3 scripts/bench/catalog.py runs DIR [--runs 20] [--queries 10000] [--docs 100] [--seed 1]
        DIR/qrels.txt and DIR/runs/run_NNN.run: TREC runs of queries x docs lines each
        (1M lines with the defaults), the judgments of every query (one document in
        ten relevant, graded 1-3), run r a little better than run r - 1.
    python3 scripts/bench/catalog.py values DIR [--runs 200] [--queries 10000] [--metrics 10] [--seed 1]
        a catalog without run files: DIR/rankscope-catalog.json and DIR/values/run_NNN.rsv,
        written here from the values file's documented layout (crates/io/src/catalog.rs),
        for `rankscope leaderboard` at the issue's scale.

Needs numpy.
"""
import argparse
import json
import pathlib
import struct
import zlib

import numpy as np

# the core's default conventions, as `rankscope eval --format json` states them
CONVENTIONS = {
    "ties": "trec",
    "relevance_level": 1,
    "gain": "linear",
    "discount": "log2",
    "ap_denominator": "relevant",
    "precision_denominator": "k",
    "f1_aggregation": "per_query",
    "query_set": "qrels",
    "threshold": 0.5,
    "threshold_rule": ">=",
    "zero_division": "0",
    "binary_scores_are_logits": False,
    "class_ties": "lower_index_first",
    "class_scale": "probabilities",
    "trec_eval": "10.0",
}


def runs(args):
    out = pathlib.Path(args.dir)
    (out / "runs").mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    q, d = args.queries, args.docs
    pool = 10 * d  # documents per query
    grades = np.where(rng.random((q, pool)) < 0.1, rng.integers(1, 4, (q, pool)), 0)
    with open(out / "qrels.txt", "w") as f:
        lines = []
        for i in range(q):
            for j in np.nonzero(grades[i])[0][:50]:
                lines.append(f"q{i:05d} 0 d{j:06d} {grades[i, j]}\n")
            lines.append(f"q{i:05d} 0 d{pool - 1:06d} 0\n")
        f.write("".join(lines))
    for r in range(args.runs):
        # a relevant document's score leans up by the run's skill
        skill = 0.2 + 0.02 * r
        scores = rng.random((q, pool)) + skill * (grades > 0)
        top = np.argsort(-scores, axis=1, kind="stable")[:, :d]
        lines = []
        for i in range(q):
            s = scores[i, top[i]]
            lines.extend(
                f"q{i:05d} Q0 d{doc:06d} {k + 1} {sc:.6f} run_{r:03d}\n"
                for k, (doc, sc) in enumerate(zip(top[i], s))
            )
        (out / "runs" / f"run_{r:03d}.run").write_text("".join(lines))
    print(f"{out}: {args.runs} runs x {q * d} lines")


def values(args):
    out = pathlib.Path(args.dir)
    (out / "values").mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    q, m = args.queries, args.metrics
    metrics = [f"ndcg@{k}" for k in range(1, m + 1)]
    queries = [f"q{i:05d}" for i in range(q)]
    difficulty = rng.beta(2, 3, q)
    manifest = {
        "rankscope_catalog": 1,
        "name": f"{args.runs} generated runs",
        "description": "",
        "conventions": CONVENTIONS,
        "metrics": metrics,
        "judgments": [{"id": "qrels", "file": "qrels.txt", "sha256": "0" * 64}],
        "runs": [],
    }
    for r in range(args.runs):
        rid = f"run_{r:03d}"
        vals = np.clip(difficulty[None, :] + rng.normal(0.0005 * r, 0.1, (m, q)), 0, 1)
        payload = vals.astype("<f8").tobytes()  # metric-major
        header = json.dumps(
            {
                "run": rid,
                "judgments": "qrels",
                "metrics": metrics,
                "queries": queries,
                "conventions": CONVENTIONS,
                "crc32": zlib.crc32(payload),
            },
            separators=(",", ":"),
        ).encode()
        head = b"RSVALUES" + struct.pack("<II", 1, len(header)) + header
        head += b"\0" * (-len(head) % 8)
        (out / "values" / f"{rid}.rsv").write_bytes(head + payload)
        manifest["runs"].append(
            {
                "id": rid,
                "name": rid,
                "file": f"runs/{rid}.run",
                "values": f"values/{rid}.rsv",
                "sha256": "0" * 64,
                "date": f"2026-{1 + r % 12:02d}-{1 + r % 28:02d}",
                "author": ["ana", "ben", "chen"][r % 3],
                "tags": ["bm25" if r % 2 else "dense"],
                "judgments": "qrels",
            }
        )
    (out / "rankscope-catalog.json").write_text(json.dumps(manifest, indent=2) + "\n")
    print(f"{out}: {args.runs} runs x {q} queries x {m} metrics")


p = argparse.ArgumentParser()
p.add_argument("what", choices=["runs", "values"])
p.add_argument("dir")
p.add_argument("--runs", type=int)
p.add_argument("--queries", type=int, default=10000)
p.add_argument("--docs", type=int, default=100)
p.add_argument("--metrics", type=int, default=10)
p.add_argument("--seed", type=int, default=1)
a = p.parse_args()
if a.runs is None:
    a.runs = 20 if a.what == "runs" else 200
(runs if a.what == "runs" else values)(a)
