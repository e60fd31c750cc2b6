"""Reference values for Rankscope's paired tests (crates/core/src/stats.rs), computed
with scipy: writes tests/reference/extra/stats.json. Run with scipy >= 1.17:

    python3 scripts/reference/stats_reference.py   (scipy and scikit-learn)

Each case is a pair of per-unit value lists (a = baseline, b = model); the
differences are b - a, so ttest_rel and wilcoxon are called as (b, a).
"""
import json
import pathlib

import numpy as np
import scipy
from scipy import stats

rng = np.random.default_rng(20261126)


def case(name, a, b):
    a = [float(x) for x in a]
    b = [float(x) for x in b]
    d = np.array(b) - np.array(a)
    t = stats.ttest_rel(b, a)
    ci = t.confidence_interval(0.95)
    w = stats.wilcoxon(b, a)
    wins, losses = int((d > 0).sum()), int((d < 0).sum())
    return {
        "name": name,
        "a": a,
        "b": b,
        "ttest_rel": {"t": float(t.statistic), "p": float(t.pvalue), "ci": [float(ci.low), float(ci.high)]},
        "wilcoxon": {"statistic": float(w.statistic), "p": float(w.pvalue)},
        "binomtest": float(stats.binomtest(wins, wins + losses, 0.5).pvalue),
    }


cases = []
# no ties, no zeros, n <= 50: scipy's exact distribution
a = rng.random(12)
cases.append(case("exact n=12", a, a + rng.normal(0.08, 0.1, 12)))
a = rng.random(45)
cases.append(case("exact n=45", a, a + rng.normal(0.02, 0.1, 45)))
# per-query nDCG-like values with ties and zeros: n <= 13 every sign flip, else normal
grid = np.round(rng.random(10) * 4) / 4
cases.append(case("ties n=10", grid, np.clip(grid + np.round(rng.normal(0.1, 0.3, 10) * 4) / 4, 0, 1)))
grid = np.round(rng.random(40) * 4) / 4
cases.append(case("ties n=40", grid, np.clip(grid + np.round(rng.normal(0.05, 0.3, 40) * 4) / 4, 0, 1)))
# n > 50: the normal approximation even without ties
a = rng.random(80)
cases.append(case("normal n=80", a, a + rng.normal(0.01, 0.1, 80)))
# a large effect: tiny p-values
a = rng.random(30)
cases.append(case("strong n=30", a, a + rng.normal(0.3, 0.05, 30)))



def delong_pairwise(labels, a, b):
    """DeLong et al. (1988) from the definition: placement values by comparing
    every positive with every negative (O(m n)), an implementation
    independent of Rankscope's midrank one."""
    labels = np.asarray(labels, bool)
    def placements(s):
        x, y = s[labels], s[~labels]
        psi = (x[:, None] > y[None, :]) + 0.5 * (x[:, None] == y[None, :])
        return psi.mean(axis=1), psi.mean(axis=0)  # V10 per positive, V01 per negative
    (a10, a01), (b10, b01) = placements(np.asarray(a)), placements(np.asarray(b))
    m, n = len(a10), len(a01)
    s10 = np.cov(np.vstack([a10, b10]))
    s01 = np.cov(np.vstack([a01, b01]))
    S = s10 / m + s01 / n
    auc_a, auc_b = a10.mean(), b10.mean()
    z = (auc_b - auc_a) / np.sqrt(S[0, 0] + S[1, 1] - 2 * S[0, 1])
    p = 2 * stats.norm.sf(abs(z))
    return {"auc_a": float(auc_a), "auc_b": float(auc_b), "z": float(z), "p": float(p),
            "var_a": float(S[0, 0]), "var_b": float(S[1, 1]), "cov": float(S[0, 1])}


delong_cases = []
for name, rows, digits in [("continuous n=300", 300, None), ("tied scores n=500", 500, 1)]:
    labels = rng.random(rows) < 0.3
    base = labels * 0.8 + rng.normal(0, 1, rows)
    a = base + rng.normal(0, 0.8, rows)
    b = base + rng.normal(0, 0.5, rows)
    if digits is not None:
        a, b = np.round(a, digits), np.round(b, digits)
    from sklearn.metrics import roc_auc_score
    ref = delong_pairwise(labels, a, b)
    ref["sklearn_auc_a"] = float(roc_auc_score(labels, a))
    ref["sklearn_auc_b"] = float(roc_auc_score(labels, b))
    delong_cases.append({"name": name, "labels": [bool(x) for x in labels], "a": [float(x) for x in a], "b": [float(x) for x in b], "delong": ref})

out = {"scipy": scipy.__version__, "numpy": np.__version__, "cases": cases, "delong": delong_cases}
path = pathlib.Path(__file__).resolve().parents[2] / "tests/reference/extra/stats.json"
path.write_text(json.dumps(out, indent=1) + "\n")
print(f"wrote {path}")
