"""Times the peer implementations on the large generated files, for ratios
against Rankscope's benchmarks in the same run.

    cargo run --release --bin rankscope -- generate --preset large --kind binary --out /tmp/rs-large
    python3 scripts/bench/peers.py /tmp/rs-large

Needs scikit-learn, numpy and pytrec-eval-terrier (pip); ranx is timed when installed
(warm: its kernels are compiled on a small slice first). Prints one line per
timing: `peer <what> <seconds>` (median of the runs given by the second
argument, 3 by default): metrics only, after loading, and end to end with numpy's
reader (the browser benchmark's figures are end to end).
"""
import statistics
import sys
import time
import pathlib

import numpy as np

root = pathlib.Path(sys.argv[1])
repeat = int(sys.argv[2]) if len(sys.argv) > 2 else 3


def median_time(fn):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


if (root / "binary.csv").exists():
    from sklearn import metrics as skm

    data = np.loadtxt(root / "binary.csv", delimiter=",", skiprows=1, usecols=(0, 1))
    y, s = data[:, 0].astype(int), data[:, 1]

    def sklearn_binary_set():
        skm.roc_auc_score(y, s)
        skm.average_precision_score(y, s)
        skm.log_loss(y, s)
        skm.brier_score_loss(y, s)
        p = (s >= 0.5).astype(int)
        skm.accuracy_score(y, p)
        skm.precision_score(y, p, zero_division=0)
        skm.recall_score(y, p)
        skm.f1_score(y, p)
        skm.matthews_corrcoef(y, p)
        skm.f1_score(y, p, average="weighted")
        skm.f1_score(y, p, average="macro")

    print(f"peer sklearn_binary_set {median_time(sklearn_binary_set):.3f}", flush=True)

    def numpy_binary_set(y, s):
        """The same set in plain numpy: one sort, cumulative counts at each
        distinct score (ties as one threshold, as scikit-learn)."""
        order = np.argsort(-s, kind="stable")
        ys, ss = y[order], s[order]
        last = np.r_[np.nonzero(np.diff(ss))[0], ys.size - 1]
        tps = np.cumsum(ys)[last]
        fps = last + 1 - tps
        pos, neg = tps[-1], fps[-1]
        tpr, fpr = np.r_[0, tps] / pos, np.r_[0, fps] / neg
        out = {"roc_auc": float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2))}
        recall = tps / pos
        out["average_precision"] = float(np.sum(np.diff(np.r_[0, recall]) * tps / (tps + fps)))
        p = np.clip(s, np.finfo(float).eps, 1 - np.finfo(float).eps)
        out["log_loss"] = float(-np.mean(np.where(y == 1, np.log(p), np.log(1 - p))))
        out["brier"] = float(np.mean((s - y) ** 2))
        pred = s >= 0.5
        tp = int(np.sum(pred & (y == 1)))
        fp = int(np.sum(pred)) - tp
        fn = int(np.sum(y == 1)) - tp
        tn = y.size - tp - fp - fn
        out["accuracy"] = (tp + tn) / y.size
        out["precision"] = tp / (tp + fp) if tp + fp else 0.0
        out["recall"] = tp / (tp + fn)
        f1 = lambda t, f, n: 2 * t / (2 * t + f + n) if t else 0.0
        out["f1"] = f1(tp, fp, fn)
        den = ((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)) ** 0.5
        out["mcc"] = (tp * tn - fp * fn) / den if den else 0.0
        f1_neg = f1(tn, fn, fp)
        out["f1_weighted"] = (f1_neg * (tn + fp) + out["f1"] * (tp + fn)) / y.size
        out["f1_macro"] = (f1_neg + out["f1"]) / 2
        return out

    # the numpy set must compute scikit-learn's numbers before it is timed
    got = numpy_binary_set(y, s)
    pred = (s >= 0.5).astype(int)
    want = {
        "roc_auc": skm.roc_auc_score(y, s),
        "average_precision": skm.average_precision_score(y, s),
        "log_loss": skm.log_loss(y, s),
        "brier": skm.brier_score_loss(y, s),
        "accuracy": skm.accuracy_score(y, pred),
        "precision": skm.precision_score(y, pred, zero_division=0),
        "recall": skm.recall_score(y, pred),
        "f1": skm.f1_score(y, pred),
        "mcc": skm.matthews_corrcoef(y, pred),
        "f1_weighted": skm.f1_score(y, pred, average="weighted"),
        "f1_macro": skm.f1_score(y, pred, average="macro"),
    }
    for k, v in want.items():
        assert abs(got[k] - v) <= 1e-9 * max(1.0, abs(v)), (k, got[k], v)
    print(f"peer numpy_binary_set {median_time(lambda: numpy_binary_set(y, s)):.3f}", flush=True)

# end to end on the spec's one-model file, as the browser benchmark loads it
if (root / "binary1.csv").exists():
    from sklearn import metrics as skm

    def sklearn_read_and_evaluate():
        global y, s
        data = np.loadtxt(root / "binary1.csv", delimiter=",", skiprows=1)
        y, s = data[:, 0].astype(int), data[:, 1]
        sklearn_binary_set()

    print(f"peer sklearn_read_and_evaluate {median_time(sklearn_read_and_evaluate):.3f}", flush=True)

    def numpy_read_and_evaluate():
        data = np.loadtxt(root / "binary1.csv", delimiter=",", skiprows=1)
        numpy_binary_set(data[:, 0].astype(int), data[:, 1])

    print(f"peer numpy_read_and_evaluate {median_time(numpy_read_and_evaluate):.3f}", flush=True)

    def numpy_read():
        np.loadtxt(root / "binary1.csv", delimiter=",", skiprows=1)

    print(f"peer numpy_read {median_time(numpy_read):.3f}", flush=True)

if (root / "bench.qrels").exists():
    import pytrec_eval

    def read(path, qrels):
        d = {}
        with open(path) as f:
            for line in f:
                p = line.split()
                if qrels:
                    d.setdefault(p[0], {})[p[2]] = int(p[3])
                else:
                    d.setdefault(p[0], {})[p[2]] = float(p[4])
        return d

    qrels = read(root / "bench.qrels", True)
    run = read(root / "dense.run", False)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10", "P.10", "recall.100", "recip_rank", "bpref"})
    print(f"peer pytrec_eval_six_measures {median_time(lambda: evaluator.evaluate(run)):.3f}", flush=True)

    def end_to_end():
        q = read(root / "bench.qrels", True)
        r = read(root / "dense.run", False)
        e = pytrec_eval.RelevanceEvaluator(q, {"map", "ndcg_cut.10", "P.10", "recall.100", "recip_rank", "bpref"})
        e.evaluate(r)

    print(f"peer pytrec_eval_read_and_evaluate {median_time(end_to_end):.3f}", flush=True)

    try:
        import ranx
    except ImportError:
        ranx = None
    if ranx is not None:
        measures = ["map", "ndcg@10", "precision@10", "recall@100", "mrr", "bpref"]
        # compile ranx's numba kernels on a small slice first: the timing is warm
        few = sorted(qrels)[:50]
        ranx.evaluate(ranx.Qrels({q: qrels[q] for q in few}), ranx.Run({q: run[q] for q in few if q in run}), measures, make_comparable=True)

        def ranx_six_measures():
            ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), measures, make_comparable=True)

        print(f"peer ranx_six_measures {median_time(ranx_six_measures):.3f}", flush=True)
