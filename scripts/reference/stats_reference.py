"""Reference values for Rankscope's paired tests (src/core/stats.rs), computed
with scipy: writes tests/reference/extra/stats.json. Run with scipy >= 1.17:

    python3 scripts/reference/stats_reference.py

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

out = {"scipy": scipy.__version__, "numpy": np.__version__, "cases": cases}
path = pathlib.Path(__file__).resolve().parents[2] / "tests/reference/extra/stats.json"
path.write_text(json.dumps(out, indent=1) + "\n")
print(f"wrote {path}")
