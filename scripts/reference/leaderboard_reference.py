"""Reference values for the leaderboard (crates/core/src/leaderboard.rs): tie
groups with scipy's paired tests and statsmodels' corrections, rank intervals
from a numpy implementation of the same paired bootstrap with the same
generator. Writes tests/reference/extra/leaderboard.json. Run with scipy >=
1.17 and statsmodels >= 0.14:

    python3 scripts/reference/leaderboard_reference.py

Definitions (as the module's doc states them):
- best: the run with the highest mean (the first of equal ones);
- each other run is tested against the best (differences run - best,
  two-sided): ttest_rel, wilcoxon (scipy's defaults), binomtest of the wins;
  the p-values corrected with multipletests (holm, fdr_bh); a run is in the
  tie group unless its corrected p < alpha and its mean is below the best's;
- rank = 1 + the number of runs with a higher mean, "higher" meaning
  a - b > 1e-11 * (|a| + |b|);
- bootstrap: resample b draws n query positions with SplitMix64's
  below(n) = ((next() >> 32) * n) >> 32, one generator seeded with `seed`
  for every resample in turn; each run's resampled sum is its values
  weighted by the counts; the interval is np.percentile(ranks, 2.5,
  method="lower") and np.percentile(ranks, 97.5, method="higher").
"""
import json
import pathlib

import numpy as np
import scipy
import statsmodels
from scipy import stats
from statsmodels.stats.multitest import multipletests

MASK = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15
TOLERANCE = 1e-11


class SplitMix64:
    def __init__(self, seed):
        self.state = seed & MASK

    def next(self):
        self.state = (self.state + GAMMA) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def below(self, n):
        return ((self.next() >> 32) * n) >> 32


def higher(a, b):
    return a - b > TOLERANCE * (abs(a) + abs(b))


def ranks_of(means):
    return [1 + sum(higher(s, v) for s in means) for v in means]


def best_of(means):
    best = 0
    for r, v in enumerate(means):
        if higher(v, means[best]):
            best = r
    return best


def p_value(test, base, row):
    d = row - base
    if test == "t":
        if np.all(d == d[0]):
            return 1.0 if d[0] == 0 else 0.0
        return float(stats.ttest_rel(row, base).pvalue)
    if test == "wilcoxon":
        if np.all(d == 0):
            return 1.0
        return float(stats.wilcoxon(row, base).pvalue)
    wins, losses = int((d > 0).sum()), int((d < 0).sum())
    if wins + losses == 0:
        return 1.0
    return float(stats.binomtest(wins, wins + losses, 0.5).pvalue)


def tie_group(values, test, method, alpha):
    means = [float(np.mean(r)) for r in values]
    best = best_of(means)
    others = [r for r in range(len(values)) if r != best]
    p = [p_value(test, values[best], values[r]) for r in others]
    adjusted = multipletests(p, alpha=alpha, method=method)[1]
    members = [True] * len(values)
    for r, a in zip(others, adjusted):
        members[r] = not (a < alpha and means[r] < means[best])
    return {
        "best": best,
        "runs": others,
        "p": p,
        "adjusted": [float(a) for a in adjusted],
        "members": members,
    }


def rank_intervals(values, resamples, seed):
    runs, n = values.shape
    rng = SplitMix64(seed)
    all_ranks = np.zeros((resamples, runs), dtype=np.int64)
    for b in range(resamples):
        draws = [rng.below(n) for _ in range(n)]
        counts = np.bincount(draws, minlength=n).astype(np.float64)
        sums = values @ counts
        all_ranks[b] = ranks_of(list(sums))
    observed = ranks_of([float(np.mean(r)) for r in values])
    low = np.percentile(all_ranks, 2.5, axis=0, method="lower")
    high = np.percentile(all_ranks, 97.5, axis=0, method="higher")
    return [[int(o), int(lo), int(hi)] for o, lo, hi in zip(observed, low, high)]


rng = np.random.default_rng(20261128)
cases = []


def case(name, values, alpha=0.05, resamples=1000, seed=42):
    values = np.asarray(values, dtype=np.float64)
    groups = {}
    for test in ["t", "wilcoxon", "sign"]:
        for method, key in [("holm", "holm"), ("fdr_bh", "bh")]:
            groups[f"{test}/{key}"] = tie_group(values, test, method, alpha)
    cases.append(
        {
            "name": name,
            "values": values.tolist(),
            "alpha": alpha,
            "resamples": resamples,
            "seed": seed,
            "groups": groups,
            "ranks": rank_intervals(values, resamples, seed),
        }
    )


# continuous values (nDCG-like), runs a little apart: several ties with the best
base = rng.beta(2, 3, 50)
case(
    "8 runs x 50 queries, close",
    [np.clip(base + rng.normal(0.012 * r, 0.08, 50), 0, 1) for r in range(8)],
)
# discrete values (P@10-like, tenths): ties between queries and runs
case(
    "10 runs x 60 queries, tenths",
    [np.round(np.clip(rng.binomial(10, 0.25 + 0.015 * r, 60) / 10, 0, 1), 1) for r in range(10)],
    resamples=500,
    seed=7,
)
# more queries (wilcoxon's normal approximation), a clear leader
base = rng.beta(2, 5, 120)
case(
    "6 runs x 120 queries, a leader",
    [np.clip(base + rng.normal(0.0 if r < 5 else 0.08, 0.05, 120) + 0.004 * r, 0, 1) for r in range(6)],
    alpha=0.01,
    seed=2026,
)
# two identical runs: equal means share the better rank
same = rng.random(30)
case("4 runs x 30 queries, two equal", [same, same, same * 0.7, np.clip(same + 0.05, 0, 1)], resamples=300, seed=1)

out = pathlib.Path(__file__).resolve().parents[2] / "tests/reference/extra/leaderboard.json"
out.write_text(
    json.dumps(
        {
            "generator": "scripts/reference/leaderboard_reference.py",
            "scipy": scipy.__version__,
            "statsmodels": statsmodels.__version__,
            "numpy": np.__version__,
            "cases": cases,
        },
        indent=1,
    )
    + "\n"
)
print(f"wrote {out}: {len(cases)} cases")
