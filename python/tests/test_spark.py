"""rankscope.spark on Spark in local mode (local[2]) against the CLI.

The README's Spark recipe is `spark_recipe` below, run here as written.
"""

import io
import os
import subprocess
import sys
import tempfile

import numpy as np
import pandas as pd
import pytest

from test_core import CLI, QRELS, REF, RUN

pyspark = pytest.importorskip("pyspark")


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    # the executors' Python is this one (with rankscope installed), not the PATH's
    os.environ["PYSPARK_PYTHON"] = sys.executable
    s = (
        SparkSession.builder.master("local[2]")
        .appName("rankscope-test")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.memory", "2g")
        .getOrCreate()
    )
    s.sparkContext.setLogLevel("ERROR")
    yield s
    s.stop()


def spark_recipe(spark, run_path, qrels_path, metrics):
    # --- the README's recipe ---
    from rankscope.spark import evaluate

    run = spark.read.csv(run_path, sep=" ", schema="query_id string, q0 string, doc_id string, rank int, score double, model string")
    qrels = spark.read.csv(qrels_path, sep=" ", schema="query_id string, iteration string, doc_id string, relevance int")
    per_query, means = evaluate(run, qrels, metrics=metrics)
    per_query.write.mode("overwrite").csv(run_path + ".per-query", header=True)
    # ---
    return per_query, means


def cli_per_query(*args):
    out = subprocess.run([CLI, "eval", *args, "--per-query", "--format", "csv"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return pd.read_csv(io.StringIO(out.stdout), dtype={"query_id": str, "model": str})


def cli_means(*args):
    import json

    out = subprocess.run([CLI, "eval", *args, "--format", "json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return {m["name"]: m["metrics"] for m in json.loads(out.stdout)["models"]}


def check(per_query, means, want_pq, want_means):
    got = per_query.toPandas().sort_values(["model", "metric", "query_id"], kind="stable").reset_index(drop=True)
    want = want_pq.sort_values(["model", "metric", "query_id"], kind="stable").reset_index(drop=True)
    assert len(got) == len(want) > 0
    for c in ["query_id", "model", "metric"]:
        assert (got[c].to_numpy() == want[c].to_numpy()).all(), c
    assert np.array_equal(got.value.to_numpy(), want.value.to_numpy(), equal_nan=True)
    assert means.keys() == want_means.keys()
    for model, values in means.items():
        for metric, v in values.items():
            if metric in ("fcp", "spearman"):
                assert v is None
            else:
                assert v == want_means[model][metric], (model, metric, v, want_means[model][metric])


METRICS = ["ndcg@10", "ndcg", "map", "gm_map", "mrr", "precision@5", "recall@100", "bpref", "num_ret", "num_rel_ret", "r_precision", "infap"]


def test_reference_data_per_query_and_means_equal_the_cli(spark):
    with tempfile.TemporaryDirectory() as tmp:
        # the reference run with a second model (scores reversed) in one file
        lines = open(RUN).read().splitlines()
        scores = [l.split()[4] for l in lines][::-1]
        two = os.path.join(tmp, "two.run")
        other = os.path.join(tmp, "other.run")
        with open(two, "w") as f, open(other, "w") as g:
            for l, s in zip(lines, scores):
                q, _, d, r, _, _ = l.split()
                f.write(l + "\n")
                f.write(f"{q} Q0 {d} {r} {s} other\n")
                g.write(f"{q} Q0 {d} {r} {s} other\n")
        per_query, means = spark_recipe(spark, two, QRELS, METRICS + ["fcp"])
        m = ",".join(METRICS + ["fcp"])
        check(per_query, means, cli_per_query(RUN, other, "--qrels", QRELS, "--metrics", m),
              cli_means(RUN, other, "--qrels", QRELS, "--metrics", m))
        # the per-query file Spark wrote reads back as the same values
        written = pd.concat(pd.read_csv(os.path.join(two + ".per-query", f), dtype={"query_id": str})
                            for f in os.listdir(two + ".per-query") if f.endswith(".csv"))
        assert len(written) == per_query.count()


def test_conventions_reach_the_executors(spark):
    from rankscope.spark import evaluate

    run = spark.read.csv(RUN, sep=" ", schema="query_id string, q0 string, doc_id string, rank int, score double, model string")
    qrels = spark.read.csv(QRELS, sep=" ", schema="query_id string, iteration string, doc_id string, relevance int")
    m = "ndcg@10,map,precision@10"
    for conv, fl in [({"query_set": "intersection"}, ["--queries", "intersection"]), ({"ties": "average", "gain": "exponential"}, ["--ties", "average", "--gain", "exponential"])]:
        per_query, means = evaluate(run, qrels, metrics=m, **conv)
        check(per_query, means, cli_per_query(RUN, "--qrels", QRELS, "--metrics", m, *fl), cli_means(RUN, "--qrels", QRELS, "--metrics", m, *fl))
    with pytest.raises(ValueError, match="ties=file"):
        evaluate(run, qrels, ties="file")


def test_a_generated_run_of_a_million_lines(spark):
    rng = np.random.default_rng(5)
    queries, per = 1000, 1000
    with tempfile.TemporaryDirectory() as tmp:
        run_path, qrels_path = os.path.join(tmp, "big.run"), os.path.join(tmp, "big.qrels")
        q = np.repeat([f"q{i}" for i in range(queries)], per)
        d = np.tile([f"d{i}" for i in range(per)], queries)
        scores = np.round(rng.random(queries * per), 3)  # ties
        frame = pd.DataFrame({"q": q, "q0": "Q0", "d": d, "rank": np.tile(np.arange(1, per + 1), queries), "s": scores, "tag": "big"})
        frame.to_csv(run_path, sep=" ", header=False, index=False)
        judged = rng.random(queries * per) < 0.03
        qr = pd.DataFrame({"q": q[judged], "it": 0, "d": d[judged], "rel": rng.integers(0, 4, judged.sum())})
        qr = qr[qr.q != "q7"]  # a query with no judgments: never evaluated
        qr.to_csv(qrels_path, sep=" ", header=False, index=False)
        with open(qrels_path, "a") as f:
            f.write("q_missing 0 d1 2\n")  # judged, not retrieved: 0 (query_set=qrels)
        assert sum(1 for _ in open(run_path)) == 1_000_000
        per_query, means = spark_recipe(spark, run_path, qrels_path, METRICS)
        m = ",".join(METRICS)
        check(per_query, means, cli_per_query(run_path, "--qrels", qrels_path, "--metrics", m),
              cli_means(run_path, "--qrels", qrels_path, "--metrics", m))


def test_per_user_recommender_metrics_are_the_same_call(spark):
    from rankscope.spark import evaluate

    run = spark.read.csv(RUN, sep=" ", schema="user_id string, q0 string, item_id string, rank int, score double, model string")
    qrels = spark.read.csv(QRELS, sep=" ", schema="user_id string, iteration string, item_id string, relevance int")
    m = "ndcg@10,recall@20,hit_rate@5"
    per_user, means = evaluate(run, qrels, metrics=m)
    check(per_user, means, cli_per_query(RUN, "--qrels", QRELS, "--metrics", m), cli_means(RUN, "--qrels", QRELS, "--metrics", m))
