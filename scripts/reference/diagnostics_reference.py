"""Reference values for Rankscope's classifier diagnostics (crates/core/src/diagnostics.rs,
core::multiclass's report and AUCs): writes tests/reference/extra/diagnostics.json.
Run with scikit-learn >= 1.9, scipy and numpy:

    python3 scripts/reference/diagnostics_reference.py

Binary cases: each case's labels and scores are stored with the values that
scikit-learn (calibration_curve, brier_score_loss, det_curve, roc_curve,
precision_recall_curve), scipy (ks_2samp) and plain numpy (gains, lift, the
Brier decomposition, operating points) give on them; `brier_binned` is
scikit-learn's brier_score_loss of the probabilities each replaced by its
bin's mean, which reliability − resolution + uncertainty equals (the Brier
score of the probabilities themselves is `brier`). Multi-class: the
reference matrix's classification_report, confusion matrix and multi-class ROC
AUCs. Ties are shared pro rata in gains and lift (each tied row gets the
group's mean label), which is the expectation over the orders of tied rows.
"""
import json
import pathlib

import numpy as np
from scipy import stats
from sklearn.calibration import calibration_curve
from sklearn.metrics import (brier_score_loss, classification_report, confusion_matrix,
                             det_curve, precision_recall_curve, roc_auc_score, roc_curve)

ref = pathlib.Path(__file__).resolve().parents[2] / "tests" / "reference"
rng = np.random.default_rng(20261126)


def calibration(y, p, bins, strategy):
    prob_true, prob_pred = calibration_curve(y, p, n_bins=bins, strategy=strategy)
    # the same bins again, for counts, ECE, MCE and Murphy's decomposition
    if strategy == "quantile":
        edges = np.percentile(p, np.linspace(0, 1, bins + 1) * 100)
    else:
        edges = np.linspace(0.0, 1.0, bins + 1)
    ids = np.searchsorted(edges[1:-1], p)
    counts = np.bincount(ids, minlength=bins)
    keep = counts > 0
    n_b = counts[keep].astype(float)
    gap = np.abs(prob_true - prob_pred)
    base = y.mean()
    binned = (np.bincount(ids, weights=p, minlength=bins) / np.maximum(counts, 1))[ids]
    return {
        "bins": bins,
        "strategy": strategy,
        "prob_true": prob_true.tolist(),
        "prob_pred": prob_pred.tolist(),
        "counts": counts[keep].tolist(),
        "ece": float((n_b * gap).sum() / len(y)),
        "mce": float(gap.max()),
        "reliability": float((n_b * (prob_pred - prob_true) ** 2).sum() / len(y)),
        "resolution": float((n_b * (prob_true - base) ** 2).sum() / len(y)),
        "uncertainty": float(base * (1 - base)),
        "brier_binned": float(brier_score_loss(y, binned)),
    }


def expected_gains(y, p, fraction):
    order = np.argsort(-p, kind="stable")
    ys, ps = y[order].astype(float), p[order]
    # each tie group's rows get the group's mean label
    _, start, count = np.unique(-ps, return_index=True, return_counts=True)
    for s, c in zip(start, count):
        ys[s:s + c] = ys[s:s + c].mean()
    cum = np.concatenate([[0.0], np.cumsum(ys)])
    k = fraction * len(y)
    return float(np.interp(k, np.arange(len(y) + 1), cum) / y.sum())


def operating_points(y, p):
    fpr, tpr, thr = roc_curve(y, p, drop_intermediate=False)
    prec, rec, _ = precision_recall_curve(y, p)
    # the last point (recall 0, precision 1) is no threshold's
    prec, rec = prec[:-1], rec[:-1]
    tp = np.round(tpr * y.sum())
    fp = np.round(fpr * (len(y) - y.sum()))
    fn = y.sum() - tp
    out = {}
    for r in (0.5, 0.9):
        out[f"precision_at_recall_{r}"] = float(prec[rec >= r].max())
    for q in (0.5, 0.8):
        ok = prec >= q
        out[f"recall_at_precision_{q}"] = float(rec[ok].max()) if ok.any() else None
    out["fpr_at_tpr_0.95"] = float(fpr[tpr >= 0.95].min())
    j = tpr - fpr
    out["youden"] = [float(j.max()), float(thr[np.argmax(j)])]
    for beta in (1.0, 2.0):
        b2 = beta * beta
        with np.errstate(invalid="ignore", divide="ignore"):
            f = (1 + b2) * tp / ((1 + b2) * tp + b2 * fn + fp)
        f = np.nan_to_num(f, nan=-1.0)
        out[f"max_f_{beta}"] = [float(f.max()), float(thr[np.argmax(f)])]
    cost = (1.0 * fp + 5.0 * fn) / len(y)
    out["min_cost_1_5"] = [float(cost.min()), float(thr[np.argmin(cost)])]
    pi = 0.1
    cost = 5.0 * pi * fn / y.sum() + 1.0 * (1 - pi) * fpr
    out["min_cost_1_5_prevalence_0.1"] = [float(cost.min()), float(thr[np.argmin(cost)])]
    return out


def binary_case(name, y, p):
    y = np.asarray(y, dtype=int)
    p = np.asarray(p, dtype=float)
    det_fpr, det_fnr, det_thr = det_curve(y, p)
    ks = stats.ks_2samp(p[y == 1], p[y == 0])
    return {
        "name": name,
        "labels": y.tolist(),
        "scores": p.tolist(),
        "brier": float(brier_score_loss(y, p)),
        "calibration": [calibration(y, p, b, s) for b in (5, 10, 15) for s in ("uniform", "quantile")],
        "ks": float(ks.statistic),
        "gains": {str(q): expected_gains(y, p, q / 100) for q in (1, 5, 10, 20, 50)},
        "det": {"fpr": det_fpr.tolist(), "fnr": det_fnr.tolist(), "thresholds": [None if np.isinf(t) else t for t in det_thr.tolist()]},
        "operating_points": operating_points(y, p),
    }


cases = []
rows = np.loadtxt(ref / "binary.csv", delimiter=",", skiprows=1)
cases.append(binary_case("reference binary.csv", rows[:, 0], rows[:, 1]))
# held-out style: a miscalibrated model with heavy ties (scores to 2 decimals)
n = 3000
y = rng.random(n) < 0.3
z = rng.normal(0, 1, n) + 1.3 * y
cases.append(binary_case("ties, 2 decimals", y, np.round(1 / (1 + np.exp(-1.7 * z + 0.4)), 2)))
# distinct scores, rare positives
n = 2000
y = rng.random(n) < 0.04
cases.append(binary_case("rare positives", y, rng.beta(2 + 3 * y, 5, n)))
# a small case with scores at bin edges and at 0 and 1
y = np.array([0, 1, 0, 1, 1, 0, 1, 0, 0, 1, 1, 0])
p = np.array([0.0, 0.1, 0.2, 0.3, 0.30000000000000004, 0.5, 0.5, 0.6, 0.7, 0.9, 1.0, 1.0])
cases.append(binary_case("bin edges", y, p))

data = np.loadtxt(ref / "multiclass_probs.csv", delimiter=",", skiprows=1)
target, probs = data[:, 0].astype(int), data[:, 1:]
predicted = probs.argmax(axis=1)
present = np.unique(target)
labels = np.unique(np.concatenate([target, predicted]))
report = {}
for zd, key in ((0, "zero"), (np.nan, "undefined")):
    r = classification_report(target, predicted, output_dict=True, zero_division=zd)
    report[key] = {k: ({m: (None if isinstance(v, float) and np.isnan(v) else v) for m, v in r[k].items()}
                       if isinstance(r[k], dict) else r[k]) for k in r}
# roc_auc_score's multi-class modes need a column per class present; the
# reference matrix has columns no row targets, so the present ones are kept
# and renormalised (scikit-learn requires rows summing to 1)
sub = probs[:, present]
sub = sub / sub.sum(axis=1, keepdims=True)
multiclass = {
    "present": present.tolist(),
    "labels": labels.tolist(),
    "confusion_matrix": confusion_matrix(target, predicted, labels=labels).tolist(),
    "report": report,
    "roc_auc": {
        f"{mc}_{avg}": float(roc_auc_score(target, sub, multi_class=mc, average=avg, labels=present))
        for mc in ("ovr", "ovo") for avg in ("macro", "weighted")
    },
}
# the matrix's own columns, as Rankscope reads them (no renormalisation):
# each class's binary AUC, averaged by hand as scikit-learn averages them
ovr = [roc_auc_score(target == c, probs[:, c]) for c in present]
support = [(target == c).sum() for c in present]
pairs, shares = [], []
for i, a in enumerate(present):
    for b in present[i + 1:]:
        rows = (target == a) | (target == b)
        pairs.append((roc_auc_score(target[rows] == a, probs[rows, a])
                      + roc_auc_score(target[rows] == b, probs[rows, b])) / 2)
        shares.append(rows.mean())
multiclass["roc_auc_columns"] = [float(np.mean(ovr)), float(np.average(ovr, weights=support)),
                                 float(np.mean(pairs)), float(np.average(pairs, weights=shares))]
# five folds of one model (different rows each, scores to 3 decimals), averaged
# as scikit-learn's "ROC with cross validation" example averages them
from sklearn.metrics import auc
folds, tprs, aucs = [], [], []
mean_fpr = np.linspace(0, 1, 100)
for k in range(5):
    n = 400 + 37 * k
    y = rng.random(n) < 0.35
    p = np.round(1 / (1 + np.exp(-(rng.normal(0, 1, n) + (1.0 + 0.15 * k) * y))), 3)
    fpr, tpr, _ = roc_curve(y, p)
    interp_tpr = np.interp(mean_fpr, fpr, tpr)
    interp_tpr[0] = 0.0
    tprs.append(interp_tpr)
    aucs.append(auc(fpr, tpr))
    folds.append({"labels": y.astype(int).tolist(), "scores": p.tolist()})
mean_tpr = np.mean(tprs, axis=0)
mean_tpr[-1] = 1.0
std_tpr = np.std(tprs, axis=0)
averaged = {
    "folds": folds,
    "mean_tpr": mean_tpr.tolist(),
    "lower": np.maximum(mean_tpr - std_tpr, 0).tolist(),
    "upper": np.minimum(mean_tpr + std_tpr, 1).tolist(),
    "auc_of_mean": float(auc(mean_fpr, mean_tpr)),
    "auc_mean": float(np.mean(aucs)),
    "auc_sd": float(np.std(aucs)),
}
# the same folds' precision-recall curves averaged the same way (the common
# recipe: precision read at evenly spaced recalls on the curve reversed to
# increasing recall; scikit-learn's examples average only ROC curves)
from sklearn.metrics import average_precision_score as _aps
mean_recall = np.linspace(0, 1, 100)
precs, aps = [], []
for f in folds:
    y, p = np.array(f["labels"]), np.array(f["scores"])
    precision, recall, _ = precision_recall_curve(y, p)
    precs.append(np.interp(mean_recall, recall[::-1], precision[::-1]))
    aps.append(_aps(y, p))
mean_precision = np.mean(precs, axis=0)
std_precision = np.std(precs, axis=0)
averaged_pr = {
    "mean_precision": mean_precision.tolist(),
    "lower": np.maximum(mean_precision - std_precision, 0).tolist(),
    "upper": np.minimum(mean_precision + std_precision, 1).tolist(),
    "ap_mean": float(np.mean(aps)),
    "ap_sd": float(np.std(aps)),
}
# five seeds of one model as columns of one CSV (the same rows), for
# `rankscope diagnose --group`
from sklearn.metrics import average_precision_score
n = 600
y = rng.random(n) < 0.3
seeds = {f"model_a_seed{k}": np.round(1 / (1 + np.exp(-(rng.normal(0, 1, n) + 1.4 * y))), 4)
         for k in range(1, 6)}
seeds["model_b"] = np.round(rng.random(n), 4)
lines = ["label," + ",".join(seeds)]
lines += [",".join([str(int(y[i]))] + [f"{seeds[c][i]:.4f}" for c in seeds]) for i in range(n)]
(ref / "extra" / "seeds.csv").write_text("\n".join(lines) + "\n")
members = [seeds[f"model_a_seed{k}"] for k in range(1, 6)]
tprs = []
for p in members:
    fpr, tpr, _ = roc_curve(y, p)
    t = np.interp(mean_fpr, fpr, tpr)
    t[0] = 0.0
    tprs.append(t)
mean_tpr = np.mean(tprs, axis=0)
mean_tpr[-1] = 1.0
grouped = {
    "mean_tpr": mean_tpr.tolist(),
    "roc_auc": [float(np.mean([roc_auc_score(y, p) for p in members])), float(np.std([roc_auc_score(y, p) for p in members]))],
    "average_precision": [float(np.mean([average_precision_score(y, p) for p in members])),
                          float(np.std([average_precision_score(y, p) for p in members]))],
    "brier": [float(np.mean([brier_score_loss(y, p) for p in members])), float(np.std([brier_score_loss(y, p) for p in members]))],
}
# each class present against the rest, its own column as the scores
from sklearn.metrics import average_precision_score as _ap
per_class = []
for c in present:
    y = (target == c).astype(int)
    p = probs[:, c]
    cal = calibration(y, p, 10, "uniform")
    per_class.append({
        "class": str(c), "positives": int(y.sum()),
        "roc_auc": float(roc_auc_score(y, p)), "average_precision": float(_ap(y, p)),
        "ece": cal["ece"], "mce": cal["mce"], "brier": float(brier_score_loss(y, p)),
        "ks": float(stats.ks_2samp(p[y == 1], p[y == 0]).statistic),
    })
multiclass["per_class"] = per_class
out = {"binary": cases, "multiclass": multiclass, "averaged_roc": averaged, "averaged_pr": averaged_pr,
       "grouped_seeds": grouped}
(ref / "extra" / "diagnostics.json").write_text(json.dumps(out, allow_nan=False))
print("wrote", len(cases), "binary cases")
