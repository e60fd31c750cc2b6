"""Writes tests/reference/presets/: a generated TREC run and qrels built to
make evaluation tools disagree, and presets.json, the per-query values the
tools themselves print on them (each peer run here, never re-implemented).
`tests/presets.rs` asserts that each Rankscope preset reproduces its peer's
values per query to 1e-9.

The data (seed 54): 40 run queries and 38 judged ones;
- scores on a coarse grid (0.0, 0.2, ..., 1.0): most lists hold tie groups
  mixing grades, written in an order that is neither document id order nor
  its reverse;
- graded judgments 0..3, judged documents both retrieved and not;
- queries q33..q36 judge documents with grade 0 only (no relevant document);
- q37..q40 are retrieved and not judged; q41, q42 judged and not retrieved;
- list lengths 2..16: many shorter than k = 10;
- in q03, q07, q11, ... a retrieved document's id is its query's id (BEIR's
  corpora where a query is also a document), judged relevant.
Duplicate (query, document) rows are not in the data: Rankscope refuses such
a run, as trec_eval does (docs/CONVENTIONS.md), so no preset can take them.

Run with the venv holding the peers (pytrec_eval-terrier, ir-measures, ranx,
scikit-learn, pyspark, recommenders and beir with --no-deps, mlflow-skinny):
    /work/notes/venv-presets/bin/python scripts/reference/presets_reference.py
"""
import importlib.metadata as md
import json
import math
import os
import pathlib
import sys

import numpy as np

OUT = pathlib.Path(__file__).resolve().parents[2] / "tests" / "reference" / "presets"
SEED = 54
K = 10


def generate():
    rng = np.random.default_rng(SEED)
    run, qrels = {}, {}
    for qn in range(1, 43):
        q = f"q{qn:02d}"
        docs = [f"d{d:03d}" for d in rng.choice(300, size=30, replace=False)]
        n = int(rng.integers(2, 17))
        listed = docs[:n]
        if qn % 4 == 3 and qn <= 36:
            listed[int(rng.integers(0, n))] = q
        scores = rng.integers(0, 6, size=n) / 5.0
        if qn <= 40:
            # score descending, ties in a shuffled order (the file's)
            order = sorted(range(n), key=lambda i: (-scores[i], rng.random()))
            run[q] = [(listed[i], float(scores[i])) for i in order]
        if qn <= 36 or qn > 40:
            judged = {}
            for d in listed:
                if rng.random() < 0.7:
                    judged[d] = int(rng.choice([0, 0, 1, 2, 3]))
            for d in docs[n : n + int(rng.integers(0, 5))]:
                judged[d] = int(rng.choice([0, 1, 2, 3]))
            if q in listed:
                judged[q] = 2
            if 33 <= qn <= 36:
                judged = {d: 0 for d in judged} or {docs[0]: 0}
            if not any(judged.values()) and not 33 <= qn <= 36:
                judged[docs[-1]] = 1
            qrels[q] = judged
    return run, qrels


def write(run, qrels):
    OUT.mkdir(parents=True, exist_ok=True)
    with open(OUT / "presets.run", "w") as f:
        for q, docs in run.items():
            for rank, (d, s) in enumerate(docs, 1):
                f.write(f"{q} Q0 {d} {rank} {s:.1f} gen\n")
    with open(OUT / "presets.qrels", "w") as f:
        for q, judged in qrels.items():
            for d, g in judged.items():
                f.write(f"{q} 0 {d} {g}\n")


def version(dist):
    return md.version(dist)


def pytrec_eval_values(run, qrels, measures, relevance_level=1):
    import pytrec_eval

    ev = pytrec_eval.RelevanceEvaluator(
        qrels, set(measures), relevance_level=relevance_level
    )
    return ev.evaluate({q: dict(docs) for q, docs in run.items()})


def peer_pytrec_eval(run, qrels):
    names = {
        "ndcg_cut_10": "ndcg@10",
        "ndcg_cut_5": "ndcg@5",
        "ndcg": "ndcg",
        "map": "map",
        "map_cut_10": "map@10",
        "P_5": "precision@5",
        "P_10": "precision@10",
        "recall_10": "recall@10",
        "recip_rank": "mrr",
        "Rprec": "r_precision",
        "bpref": "bpref",
        "success_10": "hit_rate@10",
    }
    out = pytrec_eval_values(run, qrels, {"ndcg_cut", "ndcg", "map", "map_cut", "P", "recall", "recip_rank", "Rprec", "bpref", "success"})
    return {
        "version": version("pytrec_eval-terrier"),
        "metrics": {
            peer: {"id": ours, "per_query": {q: v[peer] for q, v in out.items()}}
            for peer, ours in names.items()
        },
    }


def peer_ir_measures(run, qrels):
    import ir_measures
    from ir_measures import AP, P, RR, R, nDCG, Judged

    qrels_l = [ir_measures.Qrel(q, d, g) for q, j in qrels.items() for d, g in j.items()]
    run_l = [ir_measures.ScoredDoc(q, d, s) for q, docs in run.items() for d, s in docs]
    out = {}
    # the preset of each provider: `ir_measures` (pytrec_eval, judged), `ir_measures-msmarco`
    for provider, measures in [
        ("pytrec_eval", {nDCG @ 10: "ndcg@10", AP @ 10: "map@10", AP: "map", P @ 10: "precision@10", R @ 10: "recall@10", RR: "mrr"}),
        ("msmarco", {RR @ 10: "mrr@10"}),
        ("judged", {Judged @ 10: "judged@10"}),
    ]:
        prov = getattr(ir_measures, provider)
        per = {}
        for m in prov.iter_calc(list(measures), qrels_l, run_l):
            per.setdefault(str(m.measure), {})[m.query_id] = float(m.value)
        for m, ours in measures.items():
            out[str(m)] = {"id": ours, "provider": provider, "per_query": per.get(str(m), {})}
    return {"version": version("ir-measures"), "metrics": out}


def peer_ranx(run, qrels):
    from ranx import Qrels, Run, evaluate

    qr = Qrels({q: dict(j) for q, j in qrels.items()})
    rn = Run({q: dict(docs) for q, docs in run.items()})
    names = {
        "ndcg@10": "ndcg@10",
        "ndcg_burges@10": "ndcg_burges@10",
        "map@10": "map@10",
        "map": "map",
        "precision@10": "precision@10",
        "recall@10": "recall@10",
        "mrr": "mrr",
        "hit_rate@10": "hit_rate@10",
        "f1@10": "f1@10",
    }
    out = {}
    for peer, ours in names.items():
        vals = evaluate(qr, rn, peer, return_mean=False, make_comparable=True)
        qids = list(qr.keys())
        out[peer] = {"id": ours, "per_query": {q: float(v) for q, v in zip(qids, vals)}}
    return {"version": version("ranx"), "metrics": out}


def peer_sklearn(run, qrels):
    from sklearn.metrics import ndcg_score

    out = {}
    for k, ours in [(10, "ndcg@10"), (5, "ndcg@5"), (None, "ndcg")]:
        per = {}
        for q, docs in run.items():
            if q not in qrels or len(docs) < 2:
                continue  # ndcg_score refuses a list of one document
            y_true = [[max(qrels[q].get(d, 0), 0) for d, _ in docs]]
            y_score = [[s for _, s in docs]]
            per[q] = float(ndcg_score(y_true, y_score, k=k))
        out[f"ndcg_score(k={k})"] = {"id": ours, "per_query": per}
    return {"version": version("scikit-learn"), "metrics": out}


def spark_session():
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    return (
        SparkSession.builder.master("local[1]")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "1")
        .getOrCreate()
    )


def spark_rows(run, qrels):
    """A row per query of the run or the qrels: the list in score order (ties
    in the file's order) and the relevant set, as a user joins them."""
    queries = sorted(set(run) | set(qrels))
    rows = []
    for q in queries:
        pred = [d for d, _ in run.get(q, [])]
        labels = [d for d, g in qrels.get(q, {}).items() if g >= 1]
        rows.append((q, pred, labels))
    return rows


def peer_spark_mllib(spark, run, qrels):
    from pyspark.mllib.evaluation import RankingMetrics

    sc = spark.sparkContext
    rows = spark_rows(run, qrels)
    metrics = {
        "ndcgAt(10)": ("ndcg@10", lambda m: m.ndcgAt(10)),
        "precisionAt(10)": ("precision@10", lambda m: m.precisionAt(10)),
        "recallAt(10)": ("recall@10", lambda m: m.recallAt(10)),
        "meanAveragePrecision": ("map", lambda m: m.meanAveragePrecision),
        "meanAveragePrecisionAt(10)": ("map@10", lambda m: m.meanAveragePrecisionAt(10)),
    }
    out = {name: {"id": ours, "per_query": {}} for name, (ours, _) in metrics.items()}
    # RankingMetrics infers its schema from the rows: an empty list alone has
    # no type. Each query is evaluated beside an anchor row, and the anchor's
    # own value taken off: value = 2 * mean(anchor, row) - value(anchor).
    anchor = (["a"], ["a", "b"])
    alone = RankingMetrics(sc.parallelize([anchor], 1))
    for q, pred, labels in rows:
        m = RankingMetrics(sc.parallelize([anchor, (pred, labels)], 1))
        for name, (_, f) in metrics.items():
            out[name]["per_query"][q] = 2.0 * float(f(m)) - float(f(alone))
    whole = RankingMetrics(sc.parallelize([(p, l) for _, p, l in rows], 1))
    for name, (_, f) in metrics.items():
        out[name]["mean"] = float(f(whole))
    return {"version": version("pyspark"), "metrics": out}


def peer_spark_ml(spark, run, qrels):
    from pyspark.ml.evaluation import RankingEvaluator

    ids = {}

    def num(d):
        return float(ids.setdefault(d, len(ids)))

    rows = [(q, [num(d) for d in p], [num(d) for d in l]) for q, p, l in spark_rows(run, qrels)]
    schema = "query string, prediction array<double>, label array<double>"
    metrics = {
        "ndcgAtK": ("ndcg@10", "ndcgAtK"),
        "precisionAtK": ("precision@10", "precisionAtK"),
        "recallAtK": ("recall@10", "recallAtK"),
        "meanAveragePrecision": ("map", "meanAveragePrecision"),
        "meanAveragePrecisionAtK": ("map@10", "meanAveragePrecisionAtK"),
    }
    out = {}
    for name, (ours, metric) in metrics.items():
        ev = RankingEvaluator(metricName=metric, k=10)
        per = {}
        for q, p, l in rows:
            per[q] = float(ev.evaluate(spark.createDataFrame([(q, p, l)], schema)))
        mean = float(ev.evaluate(spark.createDataFrame(rows, schema)))
        out[name] = {"id": ours, "per_query": per, "mean": mean}
    return {"version": version("pyspark"), "metrics": out}


def peer_recommenders(run, qrels):
    import pandas as pd
    from recommenders.evaluation import python_evaluation as pe

    true = pd.DataFrame(
        [(q, d, float(g)) for q, j in qrels.items() for d, g in j.items() if g >= 1],
        columns=["userID", "itemID", "rating"],
    )
    pred = pd.DataFrame(
        [(q, d, s) for q, docs in run.items() for d, s in docs],
        columns=["userID", "itemID", "prediction"],
    )
    metrics = {
        "precision_at_k": "precision@10",
        "recall_at_k": "recall@10",
        "ndcg_at_k": "ndcg@10",
        "map_at_k": "map@10",
        "map": "map@10",  # cut at k, over |R| (recommenders issue 1990)
    }
    out = {}
    for name, ours in metrics.items():
        f = getattr(pe, name)
        per = {}
        users = sorted(set(true.userID) | set(pred.userID))
        for u in users:
            t, p = true[true.userID == u], pred[pred.userID == u]
            if name != "ndcg_at_k" and (t.empty or p.empty):
                continue  # not a common user: not in the mean
            if t.empty:
                continue  # ndcg averages over rating_true's users
            per[u] = float(f(t, p, k=K))
        mean = float(f(true, pred, k=K))
        out[f"{name}(k={K})"] = {"id": ours, "per_query": per, "mean": mean}
    return {"version": version("recommenders"), "metrics": out}


def peer_mlflow(run, qrels):
    """MLflow's retriever metrics, its evaluation functions called on a row
    per query of the run or the qrels (the list as given, the relevant ids)."""
    import pandas as pd
    from mlflow.metrics import metric_definitions as md

    queries = sorted(set(run) | set(qrels))
    preds = pd.Series([[d for d, _ in run.get(q, [])] for q in queries])
    targets = pd.Series([[d for d, g in qrels.get(q, {}).items() if g >= 1] for q in queries])
    out = {}
    for name, fn, ours in [
        ("precision_at_k(10)", md._precision_at_k_eval_fn(K), "precision@10"),
        ("recall_at_k(10)", md._recall_at_k_eval_fn(K), "recall@10"),
        ("ndcg_at_k(10)", md._ndcg_at_k_eval_fn(K), "ndcg@10"),
    ]:
        value = fn(preds, targets)
        out[name] = {
            "id": ours,
            "per_query": {q: float(v) for q, v in zip(queries, value.scores)},
            "mean": float(value.aggregate_results["mean"]),
        }
    return {"version": version("mlflow-skinny"), "metrics": out}


def fnv1a_12(text):
    """The fingerprint's hash (crates/core/src/fingerprint.rs), computed here
    independently: 64-bit FNV-1a, the first 12 hexadecimal digits."""
    h = 0xCBF29CE484222325
    for b in text.encode():
        h = ((h ^ b) * 0x100000001B3) % 2**64
    return f"{h:016x}"[:12]


def peer_beir(run, qrels):
    import logging

    from beir.retrieval.evaluation import EvaluateRetrieval

    logging.disable(logging.INFO)
    results = {q: dict(docs) for q, docs in run.items()}
    ndcg, _map, recall, precision = EvaluateRetrieval.evaluate(
        {q: dict(j) for q, j in qrels.items()}, results, [1, 5, 10], ignore_identical_ids=True
    )
    means = {}
    for table, ours in [(ndcg, "ndcg"), (_map, "map"), (recall, "recall"), (precision, "precision")]:
        for key, v in table.items():
            k = key.split("@")[1]
            means[f"{key}"] = {"id": f"{ours}@{k}", "mean": v, "rounded": 5}
    return {"version": version("beir"), "metrics": means}


def main():
    run, qrels = generate()
    write(run, qrels)
    peers = {
        "pytrec_eval": peer_pytrec_eval(run, qrels),
        "ir_measures": peer_ir_measures(run, qrels),
        "ranx": peer_ranx(run, qrels),
        "scikit-learn": peer_sklearn(run, qrels),
        "recommenders": peer_recommenders(run, qrels),
        "beir": peer_beir(run, qrels),
        "mlflow": peer_mlflow(run, qrels),
    }
    spark = spark_session()
    try:
        peers["spark-mllib"] = peer_spark_mllib(spark, run, qrels)
        peers["spark-ml"] = peer_spark_ml(spark, run, qrels)
    finally:
        spark.stop()
    for p in peers.values():
        for m in p["metrics"].values():
            if "per_query" in m and "mean" not in m:
                vals = list(m["per_query"].values())
                m["mean"] = math.fsum(vals) / len(vals) if vals else 0.0
    definition = (
        "rankscope-definition-1 ranking ndcg@10 ties=trec gain=linear discount=log2 query_set=qrels"
        " unjudged=keep identical_ids=keep no_relevant=zero qrels_scope=qrels grades=graded ideal_depth=k"
    )
    doc = {
        "seed": SEED,
        "k": K,
        "files": ["presets.run", "presets.qrels"],
        "peers": peers,
        "fingerprint": {"definition": definition, "fnv1a_12": fnv1a_12(definition)},
    }
    with open(OUT / "presets.json", "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
