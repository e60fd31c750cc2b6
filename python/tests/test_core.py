"""The Python package against the CLI (to the last bit), ranx, and bad input.

Run by scripts/test.sh (pytest in the package's venv) after the CLI is built:
RANKSCOPE_CLI names the binary (default target/debug/rankscope).
"""

import json
import math
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import rankscope

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
REF = os.path.join(ROOT, "tests", "reference")
CLI = os.environ.get("RANKSCOPE_CLI", os.path.join(ROOT, "target", "debug", "rankscope"))
RUN = os.path.join(REF, "ranking.run")
QRELS = os.path.join(REF, "ranking.qrels")

# every non-default value of every ranking convention (the CLI's flag, the Python keyword)
RANKING_VARIANTS = [
    {},
    {"ties": "file"},
    {"ties": "average"},
    {"gain": "exponential"},
    {"discount": "jarvelin_b2"},
    {"ap_denominator": "min_relevant_k"},
    {"precision_denominator": "min_k_length"},
    {"f1_aggregation": "from_means"},
    {"query_set": "intersection"},
    {"relevance_level": 2},
    {"trec_eval": "9.0.x"},
]


def cli(*args):
    out = subprocess.run([CLI, *args], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout


def cli_json(*args):
    doc = json.loads(cli(*args, "--format", "json"))
    return {m["name"]: m["metrics"] for m in doc["models"]}


def flags(conv):
    out = []
    for k, v in conv.items():
        out += ["--" + k.replace("_", "-").replace("query-set", "queries").replace("f1-aggregation", "f1").replace("trec-eval", "trec-eval-version"), str(v)]
    return out


def same_bits(a, b):
    """Equal dicts of {model: {metric: value}}, values equal to the last bit (None = None)."""
    assert a.keys() == b.keys()
    for model in a:
        assert a[model].keys() == b[model].keys(), model
        for metric, x in a[model].items():
            y = b[model][metric]
            if x is None or y is None:
                assert x is None and y is None, (model, metric, x, y)
            else:
                assert x == y or (math.isnan(x) and math.isnan(y)), (model, metric, x, y)


def run_frame():
    return pd.read_csv(RUN, sep=r"\s+", header=None, names=["query_id", "q0", "doc_id", "rank", "score", "tag"],
                       dtype={"query_id": str, "doc_id": str})


def qrels_frame():
    return pd.read_csv(QRELS, sep=r"\s+", header=None, names=["query_id", "iter", "doc_id", "relevance"],
                       dtype={"query_id": str, "doc_id": str})


@pytest.mark.parametrize("conv", RANKING_VARIANTS, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()) or "defaults")
def test_ranking_paths_frames_tables_and_dicts_equal_the_cli(conv):
    want = cli_json("eval", RUN, "--qrels", QRELS, "--metrics", "all", *flags(conv))
    got = rankscope.evaluate(RUN, QRELS, metrics="all", **conv)
    same_bits(got, want)

    run, qrels = run_frame(), qrels_frame()
    same_bits(rankscope.evaluate({"bench": run.drop(columns="tag")}, qrels, metrics="all", **conv), want)
    # the tag column names the model, as a run file's tag does
    same_bits(rankscope.evaluate(run, qrels, metrics="all", **conv), want)
    same_bits(rankscope.evaluate({"bench": pa.Table.from_pandas(run)}, pa.Table.from_pandas(qrels), metrics="all", **conv), want)
    as_dict = {}
    for q, d, s in zip(run.query_id, run.doc_id, run.score):
        as_dict.setdefault(q, {})[d] = s
    qrels_dict = {}
    for q, d, g in zip(qrels.query_id, qrels.doc_id, qrels.relevance):
        qrels_dict.setdefault(q, {})[d] = int(g)
    same_bits(rankscope.evaluate({"bench": as_dict}, qrels_dict, metrics="all", **conv), want)


def test_every_reference_file_equals_the_cli():
    for name in ["ranking.csv", "binary.csv", "multiclass_probs.csv", "multiclass_topk.csv", "ratings.csv"]:
        path = os.path.join(REF, name)
        same_bits(rankscope.evaluate(path, metrics="all"), cli_json("eval", path, "--metrics", "all"))


def test_binary_arrays_equal_the_cli_under_every_convention():
    path = os.path.join(REF, "binary.csv")
    frame = pd.read_csv(path)
    for conv, fl in [({}, []), ({"threshold": 0.3}, ["--threshold", "0.3"]), ({"threshold_rule": ">"}, ["--threshold-rule", ">"]),
                     ({"zero_division": "nan"}, ["--zero-division", "nan"]), ({"zero_division": "1"}, ["--zero-division", "1"]), ({"logits": True}, ["--logits"])]:
        want = cli_json("eval", path, "--metrics", "all", *fl)
        (model,) = want
        got = rankscope.binary(frame["label"].to_numpy(), {model: frame["score"].to_numpy()}, metrics="all", **conv)
        same_bits(got, want)
        # a pyarrow column and booleans give the same
        got = rankscope.binary(pa.array(frame["label"] == 1), {model: pa.array(frame["score"])}, metrics="all", **conv)
        same_bits(got, want)


def test_each_model_may_have_its_own_threshold_as_the_cli():
    path = os.path.join(REF, "extra", "seeds.csv")
    frame = pd.read_csv(path)
    scores = {c: frame[c].to_numpy() for c in frame.columns if c != "label"}
    want = cli_json("eval", path, "--metrics", "all", "--threshold", "model_a_seed1=0.73", "--threshold", "model_b=0.98")
    got = rankscope.binary(frame["label"].to_numpy(), scores, metrics="all", threshold={"model_a_seed1": 0.73, "model_b": 0.98})
    same_bits(got, want)
    assert got["model_b"]["recall"] != rankscope.binary(frame["label"].to_numpy(), scores, metrics="recall")["model_b"]["recall"]
    # a name no model has is warned of, not ignored in silence
    with pytest.warns(UserWarning, match="threshold 0.9 of model 'model_c': no binary model has that name"):
        rankscope.binary(frame["label"].to_numpy(), scores, metrics="recall", threshold={"model_c": 0.9})


def test_multiclass_and_ratings_arrays_equal_the_cli():
    path = os.path.join(REF, "multiclass_probs.csv")
    frame = pd.read_csv(path)
    want = cli_json("eval", path, "--metrics", "all")
    (model,) = want
    probs = frame.drop(columns="target").to_numpy()
    same_bits(rankscope.multiclass(frame["target"].to_numpy(), {model: probs}, metrics="all"), want)
    want = cli_json("eval", path, "--metrics", "all", "--class-ties", "pessimistic")
    same_bits(rankscope.multiclass(frame["target"].to_numpy(), {model: probs}, metrics="all", class_ties="pessimistic"), want)

    path = os.path.join(REF, "ratings.csv")
    frame = pd.read_csv(path, dtype={"user_id": str, "item_id": str})
    want = cli_json("eval", path, "--metrics", "all")
    (model,) = want
    got = rankscope.ratings(frame.user_id, frame.item_id, frame.rating, {model: frame.prediction}, metrics="all")
    same_bits(got, want)


def test_per_query_values_equal_the_cli_and_their_means_the_table():
    text = cli("eval", RUN, "--qrels", QRELS, "--metrics", "all", "--per-query", "--format", "csv")
    want = pd.read_csv(pd.io.common.StringIO(text), dtype={"query_id": str})
    got = rankscope.evaluate(RUN, QRELS, metrics="all", per_query=True)
    assert list(got.columns) == ["query_id", "model", "metric", "value"]
    assert len(got) == len(want) > 0
    assert (got.query_id.to_numpy() == want.query_id.to_numpy()).all()
    assert (got.metric.to_numpy() == want.metric.to_numpy()).all()
    # undefined per-query values (FCP of a query with one judged grade) are NaN, empty in the CSV
    assert np.array_equal(got.value.to_numpy(), want.value.to_numpy(), equal_nan=True)
    # the table's values again from the per-query values (shuffled: the order is the core's)
    table = rankscope.evaluate(RUN, QRELS, metrics="all")
    means = rankscope.means(got.sample(frac=1.0, random_state=7))
    assert means["bench"].keys() == table["bench"].keys()
    for metric, value in means["bench"].items():
        if metric in ("fcp", "spearman"):
            assert value is None  # ratios over every pair, not means of per-query values
        else:
            assert value == table["bench"][metric], metric


def test_compare_equals_the_cli():
    other = run_frame()
    other["score"] = other["score"][::-1].to_numpy()
    other_path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "rankscope-py-other.run")
    with open(other_path, "w") as f:
        for r in other.itertuples():
            f.write(f"{r.query_id} Q0 {r.doc_id} {r.rank} {float(r.score)!r} other\n")
    for test, correction in [("t", "holm"), ("randomization", "bh"), ("wilcoxon", "none")]:
        want = json.loads(cli("compare", RUN, other_path, "--qrels", QRELS, "--metrics", "ndcg@10,map,mrr",
                              "--test", test, "--correction", correction, "--format", "json"))
        got = rankscope.compare([RUN, other_path], QRELS, metrics=["ndcg@10", "map", "mrr"], test=test, correction=correction)
        assert got["comparisons"] == want["comparisons"]
        # each mean's 95% interval, the page table's, as the CLI prints it
        assert got["mean_intervals"] == want["mean_intervals"]
        assert [(i["model"], i["metric"]) for i in got["mean_intervals"]] == [
            (m, metric) for metric in ("ndcg@10", "map", "mrr") for m in ("bench", "other")]
        frames = rankscope.compare({"bench": run_frame(), "other": other}, qrels_frame(), metrics="ndcg@10,map,mrr",
                                   test=test, correction=correction)
        assert frames["comparisons"] == want["comparisons"]
    # no metrics named: the CLI's default set (the table's default columns)
    want = json.loads(cli("compare", RUN, other_path, "--qrels", QRELS, "--format", "json"))
    got = rankscope.compare([RUN, other_path], QRELS)
    assert got["comparisons"] == want["comparisons"] and got["mean_intervals"] == want["mean_intervals"]
    assert {c["metric"] for c in got["comparisons"]} >= {"ndcg@10", "map", "mrr", "bpref", "precision@5"}
    # the bootstrap's interval, with its resamples and seed (tests/stats.rs checks its numbers)
    i = got["mean_intervals"][0]
    assert i["method"] == "bootstrap" and i["resamples"] == 1000 and i["seed"] == 42
    assert i["low"] < i["mean"] < i["high"]


def test_binary_compare_is_delong_as_the_cli():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 400)
    a = y * 0.8 + rng.normal(0, 0.5, 400)
    b = y * 0.5 + rng.normal(0, 0.5, 400)
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "rankscope-py-binary.csv")
    pd.DataFrame({"label": y, "a": a, "b": b}).to_csv(path, index=False, float_format="%.17g")
    want = json.loads(cli("compare", path, "--metrics", "roc_auc", "--format", "json"))
    got = rankscope.compare((y, {"a": a, "b": b}), metrics="roc_auc")
    assert got["comparisons"] == want["comparisons"]
    # the other metrics with their bootstrap intervals, the CLI's to the last bit
    want = json.loads(cli("compare", path, "--metrics", "roc_auc,average_precision,f1,accuracy", "--bootstrap", "200",
                          "--format", "json"))
    got = rankscope.compare((y, {"a": a, "b": b}), metrics="roc_auc,average_precision,f1,accuracy", bootstrap=200)
    assert got["comparisons"] == want["comparisons"] and got["intervals"] == want["intervals"]
    for m in got["intervals"]:
        assert [i["metric"] for i in m["intervals"]] == ["average_precision", "f1", "accuracy"]
        for i in m["intervals"]:
            assert i["low"] <= i["value"] <= i["high"] and i["defined"] == 200


def test_tukey_hsd_agrees_with_a_numpy_randomized_tukey_within_its_error():
    extra = os.path.join(REF, "extra")
    runs = {"bm25": os.path.join(extra, "bm25.run"), "dense": os.path.join(extra, "dense.run")}
    qrels = os.path.join(extra, "example.qrels")
    # a third model: bm25 with every other query's list reversed
    third = pd.read_csv(runs["bm25"], sep=r"\s+", header=None, names=["query_id", "q0", "doc_id", "rank", "score", "tag"],
                        dtype={"query_id": str, "doc_id": str})
    flip = third["query_id"].isin(sorted(third["query_id"].unique())[::2])
    third.loc[flip, "score"] = -third.loc[flip, "score"]
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "rankscope-py-third.run")
    with open(path, "w") as f:
        for r in third.itertuples():
            f.write(f"{r.query_id} Q0 {r.doc_id} {r.rank} {float(r.score)!r} third\n")
    files = [runs["bm25"], runs["dense"], path]
    got = rankscope.compare(files, qrels, metrics=["ndcg@10"], test="tukey", permutations=20_000, seed=5)
    assert got["comparisons"] == json.loads(cli("compare", *files, "--qrels", qrels, "--metrics", "ndcg@10", "--test", "tukey",
                                                "--permutations", "20000", "--seed", "5", "--format", "json"))["comparisons"]
    per_query = rankscope.evaluate(files, qrels, metrics=["ndcg@10"], per_query=True)
    table = per_query.pivot(index="query_id", columns="model", values="value")
    names = [c["baseline"] for c in got["comparisons"][:1]] + [c["model"] for c in got["comparisons"]]
    x = table[names].to_numpy()
    # Carterette's randomized Tukey HSD, written here with numpy's generator
    rng = np.random.default_rng(2024)
    b = 20_000
    ranges = np.empty(b)
    rows = np.arange(x.shape[0])[:, None]
    for t in range(b):
        shuffled = x[rows, rng.permuted(np.tile(np.arange(x.shape[1]), (x.shape[0], 1)), axis=1)]
        means = shuffled.mean(axis=0)
        ranges[t] = means.max() - means.min()
    means = x.mean(axis=0)
    for k, c in enumerate(got["comparisons"], start=1):
        observed = abs(means[k] - means[0])
        want = (1 + (ranges >= observed - 1e-12).sum()) / (1 + b)
        tukey = c["tukey"]
        se = math.sqrt(tukey["standard_error"] ** 2 + want * (1 - want) / b)
        assert abs(tukey["p"] - want) <= 4 * max(se, 1 / b), (c["model"], tukey["p"], want)
        # family-wise as it is: the adjusted p is the p
        assert c["adjusted"][6] == tukey["p"]


def test_multiclass_and_ratings_are_tested_row_by_row_as_scipy_does():
    from scipy import stats

    tmp = os.environ.get("TMPDIR", "/tmp")
    rng = np.random.default_rng(11)
    n, classes = 500, 6
    y = rng.integers(0, classes, n)
    probs = {}
    for name, skill in [("a", 1.0), ("b", 1.4)]:
        z = rng.normal(0, 1, (n, classes))
        z[np.arange(n), y] += skill
        p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
        probs[name] = p
    paths = []
    for name, p in probs.items():
        os.makedirs(os.path.join(tmp, "rankscope-py-mc"), exist_ok=True)
        path = os.path.join(tmp, "rankscope-py-mc", f"{name}.csv")
        frame = pd.DataFrame(p, columns=[f"p_{c}" for c in range(classes)])
        frame.insert(0, "target", y)
        frame.to_csv(path, index=False, float_format="%.17g")
        paths.append(path)
    # the rank of each row's target (ties: lower class index first, as the default)
    def ranks(p):
        t = p[np.arange(n), y][:, None]
        above = (p > t) | ((p == t) & (np.arange(classes)[None, :] < y[:, None]))
        return above.sum(axis=1) + 1

    ra, rb = ranks(probs["a"]), ranks(probs["b"])
    want = json.loads(cli("compare", *paths, "--metrics", "acc@1,acc@3,mrr", "--format", "json"))
    got = rankscope.compare((y, probs), metrics=["acc@1", "acc@3", "mrr"])
    by = {c["metric"]: c for c in got["comparisons"]}
    assert [c["metric"] for c in want["comparisons"]] == ["acc@1", "acc@3", "mrr"]
    for k in (1, 3):
        c = by[f"acc@{k}"]
        ha, hb = (ra <= k).astype(float), (rb <= k).astype(float)
        # McNemar's exact test: the binomial on the discordant rows (statsmodels' exact mcnemar)
        b_only, a_only = int(((hb == 1) & (ha == 0)).sum()), int(((hb == 0) & (ha == 1)).sum())
        p = stats.binomtest(min(a_only, b_only), a_only + b_only, 0.5).pvalue
        assert c["paired"]["n"] == n and (c["paired"]["wins"], c["paired"]["losses"]) == (b_only, a_only)
        assert math.isclose(c["mcnemar"], p, rel_tol=1e-9), (k, c["mcnemar"], p)
        assert math.isclose(c["t_test"]["p"], stats.ttest_rel(hb, ha).pvalue, rel_tol=1e-9)
        assert math.isclose(c["paired"]["mean_b"], hb.mean(), rel_tol=1e-12)
    c = by["mrr"]
    assert math.isclose(c["t_test"]["p"], stats.ttest_rel(1 / rb, 1 / ra).pvalue, rel_tol=1e-9)
    assert math.isclose(c["wilcoxon"]["p"], stats.wilcoxon(1 / rb, 1 / ra).pvalue, rel_tol=1e-9)
    # the same document from arrays as from the files
    assert got["comparisons"] == want["comparisons"]

    # ratings: each rating's absolute and squared error, paired row by row
    rating = rng.integers(1, 6, n).astype(float)
    svd = np.clip(rating + rng.normal(0, 0.8, n), 1, 5)
    knn = np.clip(rating + rng.normal(0.1, 0.9, n), 1, 5)
    path = os.path.join(tmp, "rankscope-py-ratings.csv")
    pd.DataFrame({"user_id": [f"u{i % 41}" for i in range(n)], "item_id": [f"i{i}" for i in range(n)],
                  "rating": rating, "svd": svd, "knn": knn}).to_csv(path, index=False, float_format="%.17g")
    got = rankscope.compare(path, metrics=["mae", "mse"])
    assert got["comparisons"] == json.loads(cli("compare", path, "--metrics", "mae,mse", "--format", "json"))["comparisons"]
    by = {c["metric"]: c for c in got["comparisons"]}
    for metric, err in [("mae", np.abs), ("mse", np.square)]:
        a, b = err(rating - svd), err(rating - knn)
        c = by[metric]
        assert c["paired"]["n"] == n
        assert math.isclose(c["t_test"]["p"], stats.ttest_rel(b, a).pvalue, rel_tol=1e-9)
        assert math.isclose(c["wilcoxon"]["p"], stats.wilcoxon(b, a).pvalue, rel_tol=1e-9)
    with pytest.raises(ValueError, match="pair users"):
        rankscope.compare(path, metrics=["mae", "rmse_per_user"])


def test_ranx_style_dicts_equal_ranx_values_in_the_oracle():
    oracle = json.load(open(os.path.join(REF, "oracle.json")))["ranking"]
    run = {}
    for line in open(RUN):
        q, _, d, _, s, _ = line.split()
        run.setdefault(q, {})[d] = float(s)
    qrels = {}
    for line in open(QRELS):
        q, _, d, g = line.split()
        qrels.setdefault(q, {})[d] = int(g)
    # ranx breaks ties by the order of the run (a dict's order): ties="file"
    ids = {"ndcg@{k} gain=rel": ("ndcg@{k}", "ranx ndcg", {}), "ndcg@{k} gain=2^rel-1": ("ndcg@{k}", "ranx ndcg_burges", {"gain": "exponential"}),
           "map@{k}": ("map@{k}", "ranx map@k (/|R|)", {}), "precision@{k}": ("precision@{k}", "ranx precision@k (/k)", {}),
           "recall@{k}": ("recall@{k}", "ranx recall@k", {}), "hit_rate@{k}": ("hit_rate@{k}", "ranx hit_rate@k", {}),
           "mrr@{k}": ("mrr@{k}", "ranx mrr@k", {})}
    checked = 0
    for k in [1, 3, 5, 10, 20]:
        for key, (metric, impl, conv) in ids.items():
            want = oracle[key.format(k=k)][impl]
            got = rankscope.evaluate(run, qrels, metrics=[metric.format(k=k)], ties="file", **conv)["run"][metric.format(k=k)]
            assert abs(got - want) <= 1e-9, (key, k, got, want)
            checked += 1
    for key, metric in [("map (no cutoff)", "map"), ("ndcg (no cutoff)", "ndcg"), ("mrr (no cutoff)", "mrr")]:
        want = oracle[key]["ranx " + metric]
        got = rankscope.evaluate(run, qrels, metrics=[metric], ties="file")["run"][metric]
        assert abs(got - want) <= 1e-9, (key, got, want)
        checked += 1
    assert checked == 38


def test_ranx_itself_on_generated_runs():
    ranx = pytest.importorskip("ranx")
    rng = np.random.default_rng(11)
    run, qrels = {}, {}
    for q in range(60):
        docs = [f"d{i}" for i in rng.choice(400, 40, replace=False)]
        # distinct scores: ranx orders ties by numpy's unstable quicksort (no
        # rule to follow); its tie order is checked on the oracle's values above
        run[f"q{q}"] = {d: float(rng.random()) for d in docs}
        judged = rng.choice(docs + [f"x{i}" for i in range(5)], 12, replace=False)
        qrels[f"q{q}"] = {str(d): int(rng.integers(0, 4)) for d in judged}
    metrics = ["ndcg@10", "map@100", "precision@5", "recall@20", "mrr", "hit_rate@3", "ndcg_burges@10"]
    want = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), metrics)
    got = rankscope.evaluate(run, qrels, metrics=metrics, ties="file")["run"]
    for m in metrics:
        if m == "ndcg_burges@10":
            g = rankscope.evaluate(run, qrels, metrics=["ndcg@10"], ties="file", gain="exponential")["run"]["ndcg@10"]
        else:
            g = got[m]
        assert abs(g - want[m]) <= 1e-9, (m, g, want[m])


def test_bad_input_gets_a_clear_error_and_nothing_else_changes():
    run, qrels = run_frame(), qrels_frame()
    bad = run.copy()
    bad.loc[7, "score"] = float("nan")
    with pytest.raises(ValueError, match=r"run 'bench', column score, row 7: expected a number, found a missing value"):
        rankscope.evaluate({"bench": bad}, qrels)
    dup = pd.concat([run, run.iloc[[3]]], ignore_index=True)
    with pytest.raises(ValueError, match=r"row 152: document 'd\d+' of query 'q000000' is ranked a second time \(first at row 3\)"):
        rankscope.evaluate({"bench": dup}, qrels)
    with pytest.raises(ValueError, match=r"no score column \(expected one of score, .*; the columns: query_id, doc_id\)"):
        rankscope.evaluate({"bench": run[["query_id", "doc_id"]]}, qrels)
    empty = run.copy()
    empty.loc[2, "doc_id"] = ""
    with pytest.raises(ValueError, match=r"row 2: expected an id, found an empty string"):
        rankscope.evaluate({"bench": empty}, qrels)
    missing = run.copy()
    missing.loc[4, "query_id"] = None
    with pytest.raises(ValueError, match=r"row 4: expected an id, found a missing value"):
        rankscope.evaluate({"bench": missing}, qrels)
    with pytest.raises(ValueError, match=r"gain=cubic: expected one of linear, exponential"):
        rankscope.evaluate(RUN, QRELS, gain="cubic")
    with pytest.raises(ValueError, match=r"colour=red: not a convention"):
        rankscope.evaluate(RUN, QRELS, colour="red")
    with pytest.raises(ValueError, match=r"unknown metric|not a metric|ndcg@x"):
        rankscope.evaluate(RUN, QRELS, metrics=["ndcg@x"])
    with pytest.raises(ValueError, match=r"labels, row 1: expected 0 or 1, found 2"):
        rankscope.binary([0, 2, 1], [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match=r"scores 'model': 2 values for 3 rows"):
        rankscope.binary([0, 1, 1], [0.1, 0.2])
    with pytest.raises(ValueError, match=r"cannot read the file"):
        rankscope.evaluate(os.path.join(REF, "no-such-file.run"), QRELS)
    qdup = pd.concat([qrels, qrels.iloc[[0]]], ignore_index=True)
    with pytest.raises(ValueError, match=r"is judged a second time"):
        rankscope.evaluate(RUN, qdup)


def test_the_gil_is_released_while_the_core_runs():
    import threading
    import time

    n = 2_000_000
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, n)
    s = rng.random(n)
    ticks = []
    done = threading.Event()

    def count():
        while not done.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    t = threading.Thread(target=count)
    t.start()
    start = time.perf_counter()
    rankscope.binary(y, s, metrics=["roc_auc", "average_precision"])
    end = time.perf_counter()
    done.set()
    t.join()
    inside = [x for x in ticks if start < x < end]
    # another Python thread kept running while the core sorted 2M scores
    assert len(inside) >= 3, (len(inside), end - start)


def test_metrics_and_conventions_are_the_registrys():
    ids = [m[0] for m in rankscope.metrics("ranking")]
    assert "ndcg@10" in ids and "map" in ids
    listed = cli("metrics")
    for i in ["ndcg", "map", "mrr"]:
        assert i in listed
    assert "ties" in rankscope.CONVENTIONS and "query_set" in rankscope.CONVENTIONS
    assert sys.version_info >= (3, 9)


def test_per_query_values_from_files_and_frames_give_the_means_and_tests():
    other = os.path.join(os.environ.get("TMPDIR", "/tmp"), "rankscope-py-reversed.run")
    lines = open(RUN).read().splitlines()
    with open(other, "w") as f:
        for line, back in zip(lines, reversed(lines)):
            q, _, d, r, _, _ = line.split()
            f.write(f"{q} Q0 {d} {r} {back.split()[4]} reversed\n")
    m = "ndcg@10,map,gm_map,mrr,num_ret,recall@100,fcp"
    want = cli_json("eval", RUN, other, "--qrels", QRELS, "--metrics", m)
    for w in want.values():
        w["fcp"] = None  # a ratio over pairs: no mean from per-query values
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "rankscope-py-values.csv")
    with open(path, "w") as f:
        f.write(cli("eval", RUN, other, "--qrels", QRELS, "--metrics", m, "--per-query", "--format", "csv"))
    same_bits(rankscope.evaluate(path, metrics=m), want)
    frame = rankscope.evaluate([RUN, other], QRELS, metrics=m, per_query=True)
    same_bits(rankscope.evaluate(frame), want)
    same_bits(rankscope.evaluate(pa.Table.from_pandas(frame)), want)
    # the paired tests from per-query values are the runs' tests
    tests = json.loads(cli("compare", RUN, other, "--qrels", QRELS, "--metrics", "ndcg@10,map", "--format", "json"))
    assert rankscope.compare(frame, metrics="ndcg@10,map")["comparisons"] == tests["comparisons"]
    assert rankscope.compare(path, metrics="ndcg@10,map")["comparisons"] == tests["comparisons"]
    # a value twice is refused, naming it
    with pytest.raises(ValueError, match=r"row 280: query 'q000000', model 'bench' and metric 'ndcg@10' again \(first at row 0\)"):
        rankscope.evaluate(pd.concat([frame, frame.iloc[[0]]], ignore_index=True))
    with pytest.raises(ValueError, match=r"recall@5: no such measure in these files \(they hold: ndcg@10, map"):
        rankscope.evaluate(frame, metrics=["recall@5"])


def test_trec_eval_q_output_is_read_as_the_cli_reads_it():
    """trec_eval's own -q -m all_trec output, upstream's out.test.aq and
    out.test.aqc unchanged (relstring's quoted text among the numbers):
    the package reads it as the CLI does, for the table and the tests."""
    te = os.path.join(ROOT, "tests", "trec_eval")
    aq, aqc = os.path.join(te, "out.test.aq"), os.path.join(te, "out.test.aqc")
    m = "map,P_10,num_rel_ret,ndcg_cut_10,num_q"
    want = cli_json("eval", aq, aqc, "--metrics", m)
    assert want["STANDARD"]["map"] == 0.1785 and want["STANDARD (2)"]["map"] == 0.1016
    with pytest.warns(UserWarning, match=r"relstring \(3 lines\): text in quotes, not values"):
        got = rankscope.evaluate([aq, aqc], metrics=m)
    same_bits(got, want)
    tests = json.loads(cli("compare", aq, aqc, "--metrics", "map,P_10", "--format", "json"))
    assert rankscope.compare([aq, aqc], metrics="map,P_10")["comparisons"] == tests["comparisons"]


def test_the_example_notebook_runs():
    """Every code cell of python/examples/rankscope.ipynb, in order."""
    nb = json.load(open(os.path.join(ROOT, "python", "examples", "rankscope.ipynb")))
    code = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    assert len(code) == 5
    os.environ["RANKSCOPE_ROOT"] = ROOT
    scope = {}
    for cell in code[:-1]:
        exec(compile(cell, "rankscope.ipynb", "exec"), scope)
    assert scope["per_query"].shape == (80, 4)
    # the built app (scripts/build.sh copies it into the package; the test command builds first)
    board = eval(compile(code[-1], "rankscope.ipynb", "eval"), scope)
    assert board._repr_html_().startswith('<iframe srcdoc="&lt;!DOCTYPE html&gt;')


RECSYS = os.path.join(REF, "extra", "recsys")
RECSYS_METRICS = ["mrr", "hit_rate@5", "recall@5", "ndcg@5", "hit_rate@10", "recall@10", "ndcg@10"]


def test_recommender_files_give_numpys_values():
    """Top-k lists (wide, one cell, long with a rank column) against held-out
    interactions given as qrels or beside them, next-item targets, and
    relevance only on the lists' rows: numpy's values
    (scripts/reference/recsys_reference.py), as the CLI's."""
    with open(os.path.join(RECSYS, "recsys.json")) as f:
        reference = json.load(f)
    heldout = os.path.join(RECSYS, "heldout.csv")

    def close(got, case):
        ((model, values),) = got.items()
        for m in RECSYS_METRICS:
            assert abs(values[m] - reference[case][m]) <= 1e-12, (model, m, values[m], reference[case][m])

    for name in ["recs_wide.csv", "recs_items.csv", "recs_long.csv"]:
        lists = os.path.join(RECSYS, name)
        with pytest.warns(UserWarning, match="Read as held-out interactions"):
            got = rankscope.evaluate(lists, heldout, metrics=RECSYS_METRICS)
        close(got, "heldout")
        same_bits(got, cli_json("eval", lists, "--qrels", heldout, "--metrics", ",".join(RECSYS_METRICS)))
        # the interactions beside the lists, as a file of their own
        close(rankscope.evaluate([heldout, lists], metrics=RECSYS_METRICS), "heldout")
    with pytest.warns(UserWarning, match="Ordered by 'rank', ascending"):
        rankscope.evaluate(os.path.join(RECSYS, "recs_long.csv"), heldout, metrics="mrr")
    close(rankscope.evaluate(os.path.join(RECSYS, "next_item.csv"), metrics=RECSYS_METRICS), "next_item")
    with pytest.warns(UserWarning, match="Every relevant judgment is a row of the lists themselves"):
        got = rankscope.evaluate(os.path.join(RECSYS, "recs_judged.csv"), metrics=RECSYS_METRICS)
    close(got, "judged_in_lists")


def test_held_out_ratings_count_by_relevant_rating(tmp_path):
    """A rating column of held-out interactions: relevant from 4 by default,
    or from the threshold, graded, or every row (relevant_rating=, the CLI's
    --relevant-rating)."""
    run = tmp_path / "run.csv"
    run.write_text("user_id,item_id,rank\nu1,a,1\nu1,b,2\nu1,c,3\nu2,d,1\nu2,e,2\n")
    rated = tmp_path / "rated.csv"
    rated.write_text("user_id,item_id,rating\nu1,c,5\nu2,d,4\nu2,e,2\n")
    # u1's c at 3, u2's d at 1 (relevant from 4): MRR (1/3 + 1) / 2
    assert rankscope.evaluate(str(run), str(rated), metrics="mrr")["run"]["mrr"] == pytest.approx(2 / 3, abs=1e-15)
    assert rankscope.evaluate(str(run), str(rated), metrics="mrr", relevant_rating=5)["run"]["mrr"] == pytest.approx(1 / 6, abs=1e-15)
    assert rankscope.evaluate(str(run), str(rated), metrics="mrr", relevant_rating="all")["run"]["mrr"] == pytest.approx(2 / 3, abs=1e-15)
    for rule, flag in [(5, "5"), ("graded", "graded")]:
        want = cli_json("eval", str(run), "--qrels", str(rated), "--metrics", "mrr,ndcg@3", "--relevant-rating", flag)
        same_bits(rankscope.evaluate(str(run), str(rated), metrics=["mrr", "ndcg@3"], relevant_rating=rule), want)
    with pytest.raises(ValueError, match="relevant_rating most: expected a number"):
        rankscope.evaluate(str(run), str(rated), metrics="mrr", relevant_rating="most")


def test_a_preset_gives_its_tools_values_and_the_clis_fingerprint():
    here = os.path.join(ROOT, "tests", "reference", "presets")
    run, qrels = os.path.join(here, "presets.run"), os.path.join(here, "presets.qrels")
    with open(os.path.join(here, "presets.json")) as f:
        expected = json.load(f)
    spark = expected["peers"]["spark-mllib"]["metrics"]["ndcgAt(10)"]["mean"]
    got = rankscope.evaluate(str(run), str(qrels), metrics=["ndcg@10"], preset="spark-mllib")
    assert abs(next(iter(got.values()))["ndcg@10"] - spark) <= 1e-12
    # a keyword beside the preset changes one of its values
    trec = rankscope.evaluate(str(run), str(qrels), metrics=["ndcg@10"], preset="spark-mllib", grades="graded")
    assert next(iter(trec.values()))["ndcg@10"] != next(iter(got.values()))["ndcg@10"]
    cli = json.loads(
        subprocess.run(
            [CLI, "eval", str(run), str(qrels), "--metrics", "ndcg@10", "--preset", "spark-mllib", "--format", "json"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    )
    assert rankscope.fingerprint("ndcg@10", preset="spark-mllib") == cli["fingerprints"]["ndcg@10"]
    assert rankscope.fingerprint("ndcg@10") != cli["fingerprints"]["ndcg@10"]
    assert "spark-mllib" in [p[0] for p in rankscope.presets()]
