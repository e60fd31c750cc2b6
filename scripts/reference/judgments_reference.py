"""Reference values for judgment sets (crates/core/src/judgments.rs, `rankscope judgments`):
writes the data under tests/reference/extra/judgments/ and the values to
tests/reference/extra/judgments.json, which tests/judgments.rs asserts.

    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install numpy scipy scikit-learn krippendorff
    cargo build --locked --bin rankscope
    /tmp/venv/bin/python scripts/reference/judgments_reference.py

Independent references:
- Cohen's kappa and weighted kappa: scikit-learn's cohen_kappa_score (weighted
  kappa with labels = every whole number from the lowest grade to the highest,
  so the weights are the grades' differences); the confusion matrix:
  sklearn.metrics.confusion_matrix.
- Krippendorff's alpha (ordinal, interval): the `krippendorff` package.
- Kendall's tau_b and Spearman's rho: scipy.stats; the flipped pairs' tests:
  scipy.stats.ttest_rel.
- tau_AP (Yilmaz, Aslam & Robertson 2008, eq. 3) and RBO_EXT (Webber, Moffat &
  Zobel 2010, eq. 32): small implementations of the published definitions below
  (set-based, not Rankscope's incremental ones).
- The runs' per-query values under each set: trec_eval 10.0 (`rankscope
  trec_eval`, byte-identical to it) with -q -c; the bootstrap draws the same
  queries as Rankscope (SplitMix64 with Lemire's multiply-shift, reimplemented
  here), the interval numpy's percentile.
- Bounds: trec_eval on the qrels with each run's unjudged retrieved documents
  added as not relevant (grade 0) and as relevant (grade 1); condensed lists:
  trec_eval -J.
- The pool: the greedy rule of judgments::pool computed here from the runs' top
  documents (trec_eval's order: score descending, document id descending).

Two data sets: the reference files (tests/reference/ranking.qrels and .run) with
a second set derived from the first (every 5th judgment's label flipped, every
7th left out), three runs; and generated data (numpy, seed 53): 40 queries, set A
judging 50 documents each, set B changing exactly 20% of A's judgments to
another grade, leaving out exactly 10% and judging 5 new documents per query;
eight runs of 30 documents from 80 per query.
"""
import json
import os
import pathlib
import subprocess
import sys

import krippendorff
import numpy as np
import scipy
import sklearn
from scipy import stats
from sklearn.metrics import cohen_kappa_score, confusion_matrix

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "tests/reference/extra/judgments"
RANKSCOPE = os.environ.get("RANKSCOPE", str(ROOT / "target/debug/rankscope"))
OUT.mkdir(parents=True, exist_ok=True)


def read_qrels(path):
    out = {}
    for line in open(path):
        q, _, d, g = line.split()
        out[(q, d)] = int(g)
    return out


def write_qrels(path, qrels):
    with open(path, "w") as f:
        for (q, d), g in sorted(qrels.items()):
            f.write(f"{q} 0 {d} {g}\n")


def read_run(path):
    out = {}
    for line in open(path):
        q, _, d, _, s, tag = line.split()
        out.setdefault(q, []).append((d, float(s)))
    return tag, out


def trec_order(docs):
    # score descending, then document id descending (trec_eval)
    return sorted(docs, key=lambda x: (-x[1], tuple(-b for b in x[0].encode())))


# ---------------------------------------------------------------- data
def reference_data():
    src = ROOT / "tests/reference"
    a = read_qrels(src / "ranking.qrels")
    lines = [l.split() for l in open(src / "ranking.qrels")]
    b = {}
    for i, (q, _, d, g) in enumerate(lines, start=1):
        g = int(g)
        if i % 5 == 0:
            g = 0 if g > 0 else 1
        if i % 7 != 0:
            b[(q, d)] = g
    write_qrels(OUT / "ref_b.qrels", b)
    runs = []
    base = [l.split() for l in open(src / "ranking.run")]
    for name, f in [("ref1", lambda i, s: s), ("ref2", lambda i, s: s * 0.5 if i % 3 == 0 else s), ("ref3", lambda i, s: 1 - s)]:
        path = OUT / f"{name}.run"
        with open(path, "w") as out:
            for i, (q, _, d, r, s, _) in enumerate(base, start=1):
                out.write(f"{q} Q0 {d} {r} {f(i, float(s)):.4f} {name}\n")
        runs.append(str(path))
    return str(src / "ranking.qrels"), str(OUT / "ref_b.qrels"), runs


def generated_data():
    rng = np.random.default_rng(53)
    queries = [f"g{i:02d}" for i in range(1, 41)]
    a, b = {}, {}
    latent = {}
    changed = removed = added = 0
    for q in queries:
        docs = [f"d{i:03d}" for i in range(80)]
        for d in docs:
            latent[(q, d)] = int(rng.choice(4, p=[0.55, 0.25, 0.12, 0.08]))
        judged = list(rng.choice(80, size=50, replace=False))
        for i in judged:
            a[(q, docs[i])] = latent[(q, docs[i])]
        unjudged = [i for i in range(80) if i not in judged]
        for i in rng.choice(unjudged, size=5, replace=False):
            b[(q, docs[i])] = latent[(q, docs[i])]
    keys = sorted(a)
    order = rng.permutation(len(keys))
    n_change, n_remove = round(0.2 * len(keys)), round(0.1 * len(keys))
    change = {keys[i] for i in order[:n_change]}
    remove = {keys[i] for i in order[n_change:n_change + n_remove]}
    for k in keys:
        if k in remove:
            removed += 1
            continue
        g = a[k]
        if k in change:
            g = (g + int(rng.integers(1, 4))) % 4
            changed += 1
        b[k] = g
    added = len(b) - (len(keys) - removed)
    write_qrels(OUT / "gen_a.qrels", a)
    write_qrels(OUT / "gen_b.qrels", b)
    runs = []
    for r in range(1, 9):
        quality = 0.3 + 0.15 * r
        path = OUT / f"gen{r}.run"
        with open(path, "w") as f:
            for q in queries:
                picked = rng.choice(80, size=30, replace=False)
                scored = []
                for i in picked:
                    d = f"d{i:03d}"
                    s = quality * latent[(q, d)] + rng.normal(0, 1)
                    scored.append((d, round(float(s), 4)))
                for rank, (d, s) in enumerate(trec_order(scored), start=1):
                    f.write(f"{q} Q0 {d} {rank} {s:.4f} gen{r}\n")
        runs.append(str(path))
    known = {"changed": changed, "removed": removed, "added": added, "judged_a": len(keys)}
    return str(OUT / "gen_a.qrels"), str(OUT / "gen_b.qrels"), runs, known


# ---------------------------------------------------------------- agreement
def agreement(pa, pb, level=1):
    a, b = read_qrels(pa), read_qrels(pb)
    shared = sorted(set(a) & set(b))
    ga = np.array([a[k] for k in shared])
    gb = np.array([b[k] for k in shared])
    lo, hi = int(min(ga.min(), gb.min())), int(max(ga.max(), gb.max()))
    labels = list(range(lo, hi + 1))
    grades = sorted(set(ga.tolist()) | set(gb.tolist()))
    per_query = {}
    for q in sorted({k[0] for k in set(a) | set(b)}):
        ks = [k for k in shared if k[0] == q]
        x = np.array([a[k] >= level for k in ks], dtype=int)
        y = np.array([b[k] >= level for k in ks], dtype=int)
        defined = len(ks) > 0 and not (len(set(x)) == 1 and len(set(y)) == 1 and x[0] == y[0])
        kappa = float(cohen_kappa_score(x, y)) if defined else None
        if kappa is not None and np.isnan(kappa):
            kappa = None
        per_query[q] = {"both": len(ks), "kappa": kappa}
    return {
        "a": pa,
        "b": pb,
        "both": len(shared),
        "only_a": len(set(a) - set(b)),
        "only_b": len(set(b) - set(a)),
        "same_grade": float(np.mean(ga == gb)),
        "kappa": float(cohen_kappa_score(ga >= level, gb >= level)),
        "kappa_linear": float(cohen_kappa_score(ga, gb, labels=labels, weights="linear")),
        "kappa_quadratic": float(cohen_kappa_score(ga, gb, labels=labels, weights="quadratic")),
        "alpha_ordinal": float(krippendorff.alpha(reliability_data=[ga, gb], level_of_measurement="ordinal")),
        "alpha_interval": float(krippendorff.alpha(reliability_data=[ga, gb], level_of_measurement="interval")),
        "grades": grades,
        "confusion": confusion_matrix(ga, gb, labels=grades).tolist(),
        "per_query": per_query,
    }


# ---------------------------------------------------------------- orderings
def tau_ap(reference, other):
    """Yilmaz, Aslam & Robertson (2008), eq. 3, from the definition: C(i) = the
    items above rank i in `other` that `reference` also ranks above it."""
    n = len(other)
    pos = {item: r for r, item in enumerate(reference)}
    total = 0.0
    for i in range(1, n):
        above = other[:i]
        total += sum(1 for x in above if pos[x] < pos[other[i]]) / i
    return 2.0 / (n - 1) * total - 1.0


def rbo_ext(s, t, p):
    """Webber, Moffat & Zobel (2010), eq. 32, with the overlaps as set intersections."""
    k = len(s)
    total = 0.0
    for d in range(1, k + 1):
        x_d = len(set(s[:d]) & set(t[:d]))
        total += x_d / d * p ** d
    x_k = len(set(s) & set(t))
    return x_k / k * p ** k + (1 - p) / p * total


class SplitMix64:
    def __init__(self, seed):
        self.state = seed
        self.mask = (1 << 64) - 1

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & self.mask
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & self.mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & self.mask
        return z ^ (z >> 31)

    def below(self, n):
        return ((self.next() >> 32) * n) >> 32


def per_query_values(qrels, run, measure="ndcg_cut.10"):
    """The run's per-query nDCG@10 at full precision (`rankscope eval -q`), each
    checked against trec_eval's 4-decimal value (-q -c; a judged query the run
    misses scores 0)."""
    out = subprocess.run([RANKSCOPE, "trec_eval", "-q", "-c", "-m", measure, qrels, run], check=True, capture_output=True, text=True).stdout
    trec = {}
    for line in out.splitlines():
        m, q, v = line.split()
        if q != "all":
            trec[q] = float(v)
    for q in {k[0] for k in read_qrels(qrels)}:
        trec.setdefault(q, 0.0)
    doc = json.loads(subprocess.run([RANKSCOPE, "eval", "--qrels", qrels, run, "--metrics", "ndcg@10", "-q", "--format", "json"], check=True, capture_output=True, text=True).stdout)
    values = {q: v["ndcg@10"] for q, v in doc["models"][0]["per_query"].items()}
    assert set(values) == set(trec), (run, set(values) ^ set(trec))
    assert all(abs(values[q] - trec[q]) <= 5e-5 for q in values), run
    return values


def order_of(means):
    # descending, ties in the order of the runs (a stable sort)
    return sorted(range(len(means)), key=lambda i: -means[i])


def rankings(pa, pb, runs, p=0.9, resamples=200, seed=42, alpha=0.05):
    va = [per_query_values(pa, r) for r in runs]
    vb = [per_query_values(pb, r) for r in runs]
    union = sorted(set().union(*[set(v) for v in va + vb]), key=lambda s: s.encode())
    A = np.array([[v.get(q, np.nan) for q in union] for v in va])
    B = np.array([[v.get(q, np.nan) for q in union] for v in vb])

    def means(M, counts=None):
        c = np.ones(M.shape[1]) if counts is None else counts
        out = []
        for row in M:
            ok = ~np.isnan(row) & (c > 0)
            out.append(float((row[ok] * c[ok]).sum() / c[ok].sum()) if ok.any() else 0.0)
        return out

    def four(ma, mb):
        oa, ob = order_of(ma), order_of(mb)
        tb = stats.kendalltau(ma, mb).statistic
        rho = stats.spearmanr(ma, mb).statistic
        return [None if np.isnan(tb) else float(tb), tau_ap(oa, ob), None if np.isnan(rho) else float(rho), rbo_ext(oa, ob, p)]

    ma, mb = means(A), means(B)
    point = four(ma, mb)
    rng = SplitMix64(seed)
    n = len(union)
    draws = [[], [], [], []]
    for _ in range(resamples):
        counts = np.zeros(n)
        for _ in range(n):
            counts[rng.below(n)] += 1
        for slot, v in enumerate(four(means(A, counts), means(B, counts))):
            if v is not None:
                draws[slot].append(v)
    stat = {}
    for slot, name in enumerate(["kendall_tau_b", "tau_ap", "spearman", "rbo"]):
        lo, hi = np.percentile(draws[slot], [2.5, 97.5])
        stat[name] = {"value": point[slot], "low": float(lo), "high": float(hi)}
    flips = []
    for i in range(len(runs)):
        for j in range(i + 1, len(runs)):
            da, db = ma[i] - ma[j], mb[i] - mb[j]
            if da * db >= 0:
                continue
            hi_, lo_ = (i, j) if da > 0 else (j, i)

            def p_of(M):
                ok = ~np.isnan(M[hi_]) & ~np.isnan(M[lo_])
                r = stats.ttest_rel(M[hi_][ok], M[lo_][ok])
                return None if np.isnan(r.pvalue) else float(r.pvalue)

            flips.append({"ahead_a": hi_, "ahead_b": lo_, "p_a": p_of(A), "p_b": p_of(B)})
    return {"a": pa, "b": pb, "runs": runs, "metric": "ndcg@10", "persistence": p, "resamples": resamples, "seed": seed,
            "means_a": ma, "means_b": mb, "order_a": order_of(ma), "order_b": order_of(mb), **stat, "flips": flips}


# ---------------------------------------------------------------- bounds
MEASURES = {"ndcg@10": "ndcg_cut_10", "map": "map", "precision@5": "P_5", "recall@10": "recall_10",
            "bpref": "bpref", "mrr": "recip_rank", "r_precision": "Rprec", "ndcg": "ndcg"}


def trec_all(qrels, run, extra=()):
    out = subprocess.run([RANKSCOPE, "trec_eval", "-c", *extra, "-m", "all_trec", qrels, run], check=True, capture_output=True, text=True).stdout
    return {m: float(v) for m, q, v in (l.split() for l in out.splitlines()) if q == "all" and m in MEASURES.values()}


def bounds(qrels, runs, grade=1):
    base = read_qrels(qrels)
    judged_queries = {k[0] for k in base}
    out = {}
    for r in runs:
        _, ranked = read_run(r)
        unjudged = [(q, d) for q, docs in ranked.items() if q in judged_queries for d, _ in docs if (q, d) not in base]
        values = {}
        for name, g in [("unjudged_nonrelevant", 0), ("unjudged_relevant", grade)]:
            qr = dict(base)
            qr.update({k: g for k in unjudged})
            path = OUT / f"bounds_{pathlib.Path(r).stem}_{name}.qrels"
            write_qrels(path, qr)
            values[name] = trec_all(str(path), r)
            path.unlink()
        values["condensed"] = trec_all(qrels, r, ["-J"])
        values["today"] = trec_all(qrels, r)
        out[r] = {k: {m: v[t] for m, t in MEASURES.items()} for k, v in values.items()}
    return out


# ---------------------------------------------------------------- pool
def pool(qrels, runs, depth=10, baseline=None):
    judged = read_qrels(qrels) if qrels else {}
    tops, n_of = [], []
    for r in runs:
        _, ranked = read_run(r)
        n_of.append(len(ranked))
        tops.append({q: [d for d, _ in trec_order(docs)[:depth]] for q, docs in ranked.items()})
    hits = {}
    for ri, top in enumerate(tops):
        for q, docs in top.items():
            for rank, d in enumerate(docs, start=1):
                if (q, d) not in judged:
                    hits.setdefault((q, d), {})[ri] = 1 / np.log2(rank + 1) / n_of[ri]
    rows = []
    R = len(runs)
    for (q, d), w in hits.items():
        ws = [w.get(r, 0.0) for r in range(R)]
        if baseline is None:
            pr = sum(abs(ws[i] - ws[k]) for i in range(R) for k in range(i + 1, R))
        else:
            pr = sum(abs(ws[r] - ws[baseline]) for r in range(R) if r != baseline)
        rows.append((q, d, pr))
    rows.sort(key=lambda x: (x[0].encode(), x[1].encode()))
    rows.sort(key=lambda x: -x[2])  # stable: ties by query id, then document id
    return [{"query": q, "doc": d, "priority": p} for q, d, p in rows]


def rel(p):
    return os.path.relpath(p, ROOT)


def relpaths(x):
    if isinstance(x, dict):
        return {(rel(k) if isinstance(k, str) and k.startswith("/") else k): relpaths(v) for k, v in x.items()}
    if isinstance(x, list):
        return [relpaths(v) for v in x]
    if isinstance(x, str) and x.startswith(str(ROOT)):
        return rel(x)
    return x


ref_a, ref_b, ref_runs = reference_data()
gen_a, gen_b, gen_runs, known = generated_data()
doc = {
    "versions": {"python": sys.version.split()[0], "numpy": np.__version__, "scipy": scipy.__version__,
                 "scikit-learn": sklearn.__version__, "krippendorff": getattr(krippendorff, "__version__", "?")},
    "known": known,
    "agreement": [agreement(ref_a, ref_b), agreement(gen_a, gen_b), agreement(gen_a, gen_b, level=2)],
    "rankings": [rankings(ref_a, ref_b, ref_runs), rankings(gen_a, gen_b, gen_runs), rankings(gen_b, gen_a, gen_runs, p=0.8, seed=7)],
    "bounds": [{"qrels": ref_a, "grade": 1, "runs": bounds(ref_a, ref_runs)},
               {"qrels": gen_b, "grade": 1, "runs": bounds(gen_b, gen_runs)}],
    "pool": [{"qrels": gen_a, "runs": gen_runs, "depth": 10, "baseline": None, "documents": pool(gen_a, gen_runs)},
             {"qrels": ref_a, "runs": ref_runs, "depth": 5, "baseline": 0, "documents": pool(ref_a, ref_runs, 5, 0)}],
}
(ROOT / "tests/reference/extra/judgments.json").write_text(json.dumps(relpaths(doc), indent=1) + "\n")
print("wrote tests/reference/extra/judgments.json", known)
