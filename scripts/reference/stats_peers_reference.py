"""Reference values for Rankscope's statistics (crates/core/src/stats.rs,
src/compare/) from the peers other tools use, beside scipy's in
stats_reference.py: writes tests/reference/extra/stats_peers.json. Run with
numpy, scipy, statsmodels 0.15 and ranx 0.3.21:

    python3 scripts/reference/stats_peers_reference.py

- multipletests: statsmodels' Holm, Bonferroni and Benjamini-Hochberg
  ('fdr_bh') adjustments of p-value lists (ties, 1s, tiny values);
- mcnemar: statsmodels' exact McNemar test (the binomial on the discordant
  pairs, the one Rankscope offers) of paired hits;
- randomization_exact: Fisher's randomization test by enumerating every one
  of the 2^n sign flips (n <= 20, as Rankscope claims to do exactly), the
  share of flips whose |sum of differences| reaches the observed one; on a
  grid of quarters the sums are exact integers (x4), so equal sums are
  equal;
- ranx: ranx's fisher_randomization_test (its own permutations, seed 42,
  p = hits / B; its code run as Python, see below) on continuous values,
  with B, to be matched within its Monte Carlo error;
- delong_ties: DeLong's variance, covariance, z, p and each AUC's 95%
  interval from the O(m n) definition (placement values counting a tie 1/2)
  on heavily tied scores;
- mean_intervals: a mean's 95% interval as the page's table and `rankscope
  compare` give it: the percentile bootstrap up to 20,000 units, its resamples
  drawn by the same SplitMix64 stream (seed 42, Lemire's multiply-shift for
  the index) written here again from its definition, numpy's linear
  percentiles; Student's t beyond (scipy.stats.t.interval).
"""
import itertools
import json
import pathlib

import numpy as np
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests
import ranx.statistical_tests  # noqa: F401 (loads the module below)
import sys
ranx_fisher = sys.modules["ranx.statistical_tests.fisher_randomization_test"]

# ranx's own code, run by Python rather than numba: compiled, its
# permutations draw from numba's per-thread generators, which its seed does
# not reach, so each run gave other values; as Python they draw from
# numpy's generator, which its seed sets, and the file is written the same
# every time
ranx_fisher.permute = ranx_fisher.permute.py_func
fisher_randomization_test = ranx_fisher.fisher_randomization_test.py_func

rng = np.random.default_rng(20261127)
out = {}

# --- multipletests ---------------------------------------------------------
p_lists = [
    [0.01, 0.04, 0.03, 0.2],
    [0.001, 0.001, 0.02, 0.02, 0.5, 1.0],
    [1e-12, 0.049, 0.051, 0.3, 0.3, 0.3, 0.9],
    [0.8],
    list(rng.random(15) ** 3),
]
out["multipletests"] = [
    {
        "p": [float(x) for x in p],
        **{method: [float(x) for x in multipletests(p, method=sm)[1]]
           for method, sm in (("holm", "holm"), ("bonferroni", "bonferroni"), ("bh", "fdr_bh"))},
    }
    for p in p_lists
]

# --- McNemar (exact) ---------------------------------------------------------
mcnemar_cases = []
for n, base, better in [(40, 0.6, 0.15), (200, 0.7, 0.05), (25, 0.5, 0.0), (1000, 0.8, 0.01)]:
    a = (rng.random(n) < base).astype(float)
    b = a.copy()
    flip = rng.random(n) < 0.3
    b[flip] = (rng.random(flip.sum()) < base + better).astype(float)
    table = [[int(((a == 1) & (b == 1)).sum()), int(((a == 1) & (b == 0)).sum())],
             [int(((a == 0) & (b == 1)).sum()), int(((a == 0) & (b == 0)).sum())]]
    mcnemar_cases.append({"a": a.tolist(), "b": b.tolist(), "table": table,
                          "exact_p": float(mcnemar(table, exact=True).pvalue)})
# a clear difference, built from its table: 2 rows only a gets right, 15 only b
a = np.array([1.0] * 30 + [1.0] * 2 + [0.0] * 15 + [0.0] * 20)
b = np.array([1.0] * 30 + [0.0] * 2 + [1.0] * 15 + [0.0] * 20)
mcnemar_cases.append({"a": a.tolist(), "b": b.tolist(), "table": [[30, 2], [15, 20]],
                      "exact_p": float(mcnemar([[30, 2], [15, 20]], exact=True).pvalue)})
out["mcnemar"] = mcnemar_cases


# --- the randomization test, every sign flip --------------------------------
def exact_randomization(d, scale=None):
    """The share of the 2^n sign vectors s with |s . d| >= |sum d|: in
    integers when the differences are multiples of 1 / scale, so equal sums
    are equal. Continuous differences: no two subset sums are equal, but a
    sum and its mirror image, or the observed one summed in another order,
    differ in their last bits: sums within 1e-12 of the observed one
    (relative) count as reaching it, and no sum lies between 1e-12 and
    1e-6 of it, so that tolerance decides nothing else."""
    n = len(d)
    if scale is not None:
        d = np.rint(np.asarray(d) * scale).astype(np.int64)
    signs = np.array(list(itertools.product([1, -1], repeat=n)), dtype=np.int64 if scale else float)
    sums = np.abs(signs @ d)
    observed = sums[0]  # every sign +1
    if scale is not None:
        return float((sums >= observed).sum() / 2 ** n)
    gap = np.abs(sums - observed) / observed
    assert not ((gap > 1e-12) & (gap < 1e-6)).any()
    return float((sums >= observed * (1 - 1e-12)).sum() / 2 ** n)


exact_cases = []
for name, n, grid in [("continuous n=8", 8, False), ("continuous n=14", 14, False),
                      ("quarters n=16 (zeros and ties)", 16, True), ("continuous n=20", 20, False),
                      ("quarters n=20 (zeros and ties)", 20, True)]:
    if grid:
        a = np.round(rng.random(n) * 4) / 4
        b = np.clip(a + np.round(rng.normal(0.1, 0.35, n) * 4) / 4, 0, 1)
        p = exact_randomization(b - a, scale=4)
    else:
        a = rng.random(n)
        b = a + rng.normal(0.05, 0.2, n)
        p = exact_randomization(b - a)
    exact_cases.append({"name": name, "a": a.tolist(), "b": b.tolist(), "p": p})
out["randomization_exact"] = exact_cases

# --- ranx's Fisher randomization test ---------------------------------------
ranx_cases = []
for name, n, effect, perms in [("n=30", 30, 0.08, 20000), ("n=60", 60, 0.03, 20000),
                               ("n=15", 15, 0.1, 20000), ("n=200", 200, 0.01, 20000)]:
    a = rng.random(n)
    b = np.clip(a + rng.normal(effect, 0.2, n), 0, 1)
    p, _ = fisher_randomization_test(a, b, n_permutations=perms, max_p=0.05, random_seed=42)
    ranx_cases.append({"name": name, "a": a.tolist(), "b": b.tolist(), "p": float(p), "permutations": perms})
out["ranx"] = ranx_cases


# --- DeLong on tied data, O(m n) ---------------------------------------------
def delong_pairwise(labels, a, b):
    labels = np.asarray(labels, bool)

    def placements(s):
        x, y = s[labels], s[~labels]
        psi = (x[:, None] > y[None, :]) + 0.5 * (x[:, None] == y[None, :])
        return psi.mean(axis=1), psi.mean(axis=0)

    (a10, a01), (b10, b01) = placements(np.asarray(a)), placements(np.asarray(b))
    m, n = len(a10), len(a01)
    S = np.cov(np.vstack([a10, b10])) / m + np.cov(np.vstack([a01, b01])) / n
    auc_a, auc_b = a10.mean(), b10.mean()
    z = (auc_b - auc_a) / np.sqrt(S[0, 0] + S[1, 1] - 2 * S[0, 1])
    zq = stats.norm.ppf(0.975)
    ci = lambda auc, v: [float(max(auc - zq * np.sqrt(v), 0)), float(min(auc + zq * np.sqrt(v), 1))]
    return {"auc_a": float(auc_a), "auc_b": float(auc_b), "var_a": float(S[0, 0]), "var_b": float(S[1, 1]),
            "cov": float(S[0, 1]), "z": float(z), "p": float(2 * stats.norm.sf(abs(z))),
            "ci_a": ci(auc_a, S[0, 0]), "ci_b": ci(auc_b, S[1, 1])}


delong_cases = []
for name, rows, levels in [("five score levels n=400", 400, 5), ("two score levels n=150", 150, 2),
                           ("ten levels, rare positives n=1200", 1200, 10)]:
    labels = rng.random(rows) < (0.08 if rows > 1000 else 0.35)
    base = labels * 1.0 + rng.normal(0, 1, rows)
    a = np.digitize(base + rng.normal(0, 0.9, rows), np.linspace(-2, 3, levels - 1)).astype(float)
    b = np.digitize(base + rng.normal(0, 0.6, rows), np.linspace(-2, 3, levels - 1)).astype(float)
    delong_cases.append({"name": name, "labels": [bool(x) for x in labels], "a": a.tolist(), "b": b.tolist(),
                         "delong": delong_pairwise(labels, a, b)})
out["delong_ties"] = delong_cases


# --- the intervals of the means ----------------------------------------------
MASK = (1 << 64) - 1


class SplitMix64:
    def __init__(self, seed):
        self.state = seed

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def below(self, n):
        return ((self.next() >> 32) * n) >> 32


def bootstrap_interval(x, resamples, seed):
    g = SplitMix64(seed)
    n = len(x)
    means = []
    for _ in range(resamples):
        total = 0.0
        for _ in range(n):
            total += x[g.below(n)]  # summed in draw order, as Rust sums
        means.append(total / n)
    lo, hi = np.percentile(means, [2.5, 97.5])
    return [float(lo), float(hi)]


runs = {}
q = 60
grades = rng.random(q)
runs["bm25"] = np.round(np.clip(grades * 0.7 + rng.normal(0, 0.15, q), 0, 1), 4)
runs["dense"] = np.round(np.clip(grades * 0.8 + rng.normal(0.1, 0.15, q), 0, 1), 4)
runs["dense"][[3, 17]] = np.nan  # undefined for two queries: left out of its mean
intervals = []
for model, values in runs.items():
    x = [float(v) for v in values if np.isfinite(v)]
    intervals.append({"model": model, "values": [None if np.isnan(v) else float(v) for v in values],
                      "mean": float(np.mean(x)), "units": len(x),
                      "bootstrap": bootstrap_interval(x, 1000, 42),
                      "t": [float(v) for v in stats.t.interval(0.95, len(x) - 1, loc=np.mean(x),
                                                               scale=stats.sem(x))]})
# beyond 20,000 units: Student's t (values from a formula the test writes again)
big = [((i * 7919) % 1000) / 1000.0 + ((i * 104729) % 17) / 170.0 for i in range(20_001)]
out["mean_intervals"] = {
    "queries": q, "resamples": 1000, "seed": 42, "models": intervals,
    "large": {"n": len(big), "mean": float(np.mean(big)),
              "t": [float(v) for v in stats.t.interval(0.95, len(big) - 1, loc=np.mean(big), scale=stats.sem(big))]},
}

import ranx
import scipy
import statsmodels
out["versions"] = {"numpy": np.__version__, "scipy": scipy.__version__, "statsmodels": statsmodels.__version__,
                   "ranx": getattr(ranx, "__version__", "0.3.21")}
path = pathlib.Path(__file__).resolve().parents[2] / "tests/reference/extra/stats_peers.json"
path.write_text(json.dumps(out, indent=1, allow_nan=False) + "\n")
print(f"wrote {path}")
