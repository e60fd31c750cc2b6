"""Judgment sets in Python (rankscope.judgments_*, evaluate with a dict of
sets) against the CLI's JSON (`rankscope judgments ... --format json`), to
the last bit; the CLI's numbers are tested against their references in
tests/judgments.rs."""

import json
import os
import subprocess

import pandas as pd
import pytest

import rankscope

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
REF = os.path.join(ROOT, "tests", "reference")
J = os.path.join(REF, "extra", "judgments")
CLI = os.environ.get("RANKSCOPE_CLI", os.path.join(ROOT, "target", "debug", "rankscope"))
A = os.path.join(J, "gen_a.qrels")
B = os.path.join(J, "gen_b.qrels")
RUNS = [os.path.join(J, f"gen{i}.run") for i in range(1, 9)]


def cli(*args):
    out = subprocess.run([CLI, *args, "--format", "json"], check=True, capture_output=True, text=True, cwd=ROOT)
    return json.loads(out.stdout)


def test_agreement_is_the_clis():
    got = rankscope.judgments_agree({"A": A}, {"B": B}, relevance_level=2)
    want = cli("judgments", "agree", f"A={A}", f"B={B}", "-l", "2")
    assert got == want
    assert got["kappa"] is not None and got["a_unjudged_by_b"] == pytest.approx(0.1, abs=1e-15)


def test_agreement_takes_data_frames_too():
    frame = pd.read_csv(A, sep=" ", names=["query_id", "iter", "doc_id", "relevance"])
    got = rankscope.judgments_agree(frame, B)
    want = cli("judgments", "agree", f"a={A}", f"b={B}")
    for key in ("both", "only_a", "only_b", "kappa", "kappa_linear", "alpha_ordinal", "confusion"):
        assert got[key] == want[key], key


def test_rankings_are_the_clis():
    got = rankscope.judgments_rankings(RUNS, {"human": A, "llm": B}, resamples=100, seed=3, persistence=0.8)
    want = cli("judgments", "rankings", "--qrels", f"human={A}", "--qrels", f"llm={B}", "--resamples", "100", "--seed", "3", "--persistence", "0.8", *RUNS)
    assert got == want
    assert got["rbo_variant"].startswith("RBO_EXT")


def test_bounds_are_the_clis_and_warn():
    with pytest.warns(UserWarning, match="bounds' width"):
        got = rankscope.judgments_bounds(RUNS[:3], {"llm": B}, metrics=["ndcg@10", "map"], cutoffs=[5, 10], grade=2)
    want = cli("judgments", "bounds", "--qrels", f"llm={B}", "--metrics", "ndcg@10,map", "-k", "5,10", "--grade", "2", *RUNS[:3])
    assert got == want


def test_the_pool_and_its_file_are_the_clis(tmp_path):
    out = tmp_path / "pool.txt"
    got = rankscope.judgments_pool(RUNS, {"human": A}, depth=5, out=out)
    want = cli("judgments", "pool", "--qrels", f"human={A}", "--depth", "5", *RUNS)
    assert got["documents"] == want["documents"]
    text = subprocess.run([CLI, "judgments", "pool", "--qrels", f"human={A}", "--depth", "5", *RUNS], check=True, capture_output=True, text=True).stdout
    assert out.read_text() == text


def test_a_merge_lists_conflicts(tmp_path):
    out = tmp_path / "merged.qrels"
    got = rankscope.judgments_merge(A, B, out=out, prefer="new")
    assert len(got["conflicts"]) == 400 and got["added"] == 200
    assert out.read_text() == got["qrels"]
    assert rankscope.judgments_agree(str(out), B)["same_grade"] == 1.0


def test_evaluate_under_each_set():
    got = rankscope.evaluate(RUNS[:2], {"human": A, "llm": B}, metrics=["ndcg@10", "map"])
    assert set(got) == {"human", "llm"}
    assert got["human"] == rankscope.evaluate(RUNS[:2], A, metrics=["ndcg@10", "map"])
    assert got["llm"] == rankscope.evaluate(RUNS[:2], B, metrics=["ndcg@10", "map"])
    # one {query: {doc: grade}} dict is one set, not several
    with pytest.warns(UserWarning, match="not in the qrels"):
        one = rankscope.evaluate(RUNS[0], {"g01": {"d001": 1}}, metrics=["map"])
    assert list(one) == ["gen1"]


def test_condensed_lists_are_a_convention():
    kept = rankscope.evaluate(RUNS[0], B, metrics=["map"])
    condensed = rankscope.evaluate(RUNS[0], B, metrics=["map"], unjudged="condensed")
    want = cli("eval", "--qrels", B, RUNS[0], "--metrics", "map", "--unjudged", "condensed")
    assert condensed["gen1"]["map"] == want["models"][0]["metrics"]["map"] != kept["gen1"]["map"]
