"""rankscope.evaluate against ranx and pytrec_eval from the same pandas
DataFrames, in one run (the Python package's benchmark, BENCHMARKS.md).

    rankscope generate --preset large --kind ranking --out /tmp/large
    tools/venv/bin/python scripts/bench/python_frames.py /tmp/large [repeats]

Each timing starts from the DataFrames read once (pandas' reader, outside the
timings) and includes each library's own conversion of them (rankscope:
Arrow buffers; ranx: Run.from_df / Qrels.from_df; pytrec_eval: the dicts of
dicts it takes, built the usual way), then the same five measures: nDCG@10,
AP, RR, P@10, R@100 per query and their means. ranx's kernels are compiled
on a small slice first (warm). Prints `python <what> <seconds>` (median).
"""

import statistics
import sys
import time
import pathlib

import pandas as pd

root = pathlib.Path(sys.argv[1])
repeat = int(sys.argv[2]) if len(sys.argv) > 2 else 3


def median_time(fn):
    times = []
    out = None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


run = pd.read_csv(root / "bm25.run", sep=" ", header=None, names=["q_id", "q0", "doc_id", "rank", "score", "tag"],
                  dtype={"q_id": str, "doc_id": str}, usecols=["q_id", "doc_id", "score"])
qrels = pd.read_csv(root / "bench.qrels", sep=" ", header=None, names=["q_id", "it", "doc_id", "rel"],
                    dtype={"q_id": str, "doc_id": str}, usecols=["q_id", "doc_id", "rel"])
# ids as Python strings (object columns): what ranx requires, and pandas' classic form
for frame in (run, qrels):
    for c in ("q_id", "doc_id"):
        frame[c] = frame[c].astype(object)
print(f"python rows run={len(run)} qrels={len(qrels)}", flush=True)

import rankscope  # noqa: E402

METRICS = ["ndcg@10", "map", "mrr", "precision@10", "recall@100"]


def with_rankscope():
    return rankscope.evaluate({"bm25": run}, qrels, metrics=METRICS, columns={"query": "q_id", "relevance": "rel"})["bm25"]


t, ours = median_time(with_rankscope)
print(f"python rankscope_from_frames {t:.3f}", flush=True)

try:
    import ranx

    small_q = run.q_id.unique()[:50]
    warm_run = run[run.q_id.isin(small_q)]
    warm_qrels = qrels[qrels.q_id.isin(small_q)]
    ranx.evaluate(ranx.Qrels.from_df(warm_qrels, q_id_col="q_id", doc_id_col="doc_id", score_col="rel"),
                  ranx.Run.from_df(warm_run, q_id_col="q_id", doc_id_col="doc_id", score_col="score"),
                  ["ndcg@10", "map", "mrr", "precision@10", "recall@100"])

    def with_ranx():
        q = ranx.Qrels.from_df(qrels, q_id_col="q_id", doc_id_col="doc_id", score_col="rel")
        r = ranx.Run.from_df(run, q_id_col="q_id", doc_id_col="doc_id", score_col="score")
        return ranx.evaluate(q, r, ["ndcg@10", "map", "mrr", "precision@10", "recall@100"])

    t, theirs = median_time(with_ranx)
    print(f"python ranx_from_frames {t:.3f}", flush=True)
except ImportError:
    pass

try:
    import pytrec_eval

    def with_pytrec_eval():
        qd = {}
        for q, g in qrels.groupby("q_id", sort=False):
            qd[q] = dict(zip(g.doc_id, g.rel.astype(int)))
        rd = {}
        for q, g in run.groupby("q_id", sort=False):
            rd[q] = dict(zip(g.doc_id, g.score.astype(float)))
        ev = pytrec_eval.RelevanceEvaluator(qd, {"ndcg_cut.10", "map", "recip_rank", "P.10", "recall.100"})
        per = ev.evaluate(rd)
        n = len(per)
        return {k: sum(v[k] for v in per.values()) / n for k in ["ndcg_cut_10", "map", "recip_rank", "P_10", "recall_100"]}

    t, trec = median_time(with_pytrec_eval)
    print(f"python pytrec_eval_from_frames {t:.3f}", flush=True)
except ImportError:
    pass

print("python values rankscope " + " ".join(f"{k}={v:.6f}" for k, v in ours.items()), flush=True)
