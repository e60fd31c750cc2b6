"""Times the peer implementations on the large generated files, for ratios
against Rankscope's benchmarks in the same run.

    cargo run --release --bin rankscope -- generate --preset large --kind binary --out /tmp/rs-large
    python3 scripts/bench/peers.py /tmp/rs-large

Needs scikit-learn, numpy and pytrec-eval-terrier (pip). Prints one line per
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

# end to end on the spec's one-model file, as the browser benchmark loads it
if (root / "binary1.csv").exists():
    from sklearn import metrics as skm

    def sklearn_read_and_evaluate():
        global y, s
        data = np.loadtxt(root / "binary1.csv", delimiter=",", skiprows=1)
        y, s = data[:, 0].astype(int), data[:, 1]
        sklearn_binary_set()

    print(f"peer sklearn_read_and_evaluate {median_time(sklearn_read_and_evaluate):.3f}", flush=True)

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
