"""rankscope.leaderboard against the CLI's `rankscope leaderboard --format csv`
(every number to the last bit) on a catalog the CLI builds, and its errors.

RANKSCOPE_CLI names the binary (default target/debug/rankscope).
"""

import io
import os
import shutil
import subprocess

import pandas as pd
import pytest

import rankscope

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CLI = os.environ.get("RANKSCOPE_CLI", os.path.join(ROOT, "target", "debug", "rankscope"))


def cli(*args):
    out = subprocess.run([CLI, *args], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    d = tmp_path_factory.mktemp("catalog")
    gen = d / "gen"
    cli("generate", "--kind", "ranking", "--out", str(gen))
    (d / "runs").mkdir()
    shutil.copy(gen / "bench.qrels", d / "qrels.txt")
    for r in ["bm25.run", "dense.run"]:
        shutil.copy(gen / r, d / "runs" / r)
    cli("catalog", "build", str(d), "--metrics", "ndcg@10,map,mrr")
    return d


@pytest.mark.parametrize(
    "kwargs,flags",
    [
        ({}, []),
        ({"baseline": "bm25", "metrics": ["map", "mrr"]}, ["--baseline", "bm25", "--metrics", "map,mrr"]),
        ({"test": "wilcoxon", "correction": "bh", "alpha": 0.01, "resamples": 200, "seed": 7},
         ["--test", "wilcoxon", "--correction", "bh", "--alpha", "0.01", "--resamples", "200", "--seed", "7"]),
    ],
)
def test_leaderboard_equals_the_cli(catalog, kwargs, flags):
    got = rankscope.leaderboard(catalog, **kwargs)
    want = pd.read_csv(io.StringIO(cli("leaderboard", str(catalog), "--format", "csv", *flags)))
    assert list(got.columns) == list(want.columns)
    assert len(got) == len(want) > 0
    for c in want.columns:
        g, w = got[c].tolist(), want[c].tolist()
        for a, b in zip(g, w):
            assert (pd.isna(a) and pd.isna(b)) or a == b, (c, a, b)
    # the best run is in its tie group and ranked 1
    best = got[got["best"]]
    assert best["tie_group"].all() and (best["rank"] == 1).all()


def test_leaderboard_errors(catalog, tmp_path):
    with pytest.raises(ValueError, match="--baseline zz: no such run"):
        rankscope.leaderboard(catalog, baseline="zz")
    with pytest.raises(ValueError, match="test=z: expected one of t, wilcoxon, sign"):
        rankscope.leaderboard(catalog, test="z")
    with pytest.raises(ValueError, match="cannot read the manifest"):
        rankscope.leaderboard(tmp_path)
