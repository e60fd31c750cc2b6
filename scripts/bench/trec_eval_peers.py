#!/usr/bin/env python3
"""Time pytrec_eval computing every measure it has on a qrels and a run, and
`rankscope trec_eval -m all_trec` (and, if given, the C trec_eval) on the same
files. Usage: python3 scripts/bench/trec_eval_peers.py QRELS RUN [C_TREC_EVAL]

pytrec_eval's time is split into reading the files into its dicts (its
documented input) and evaluating; both are reported, with their sum.
"""
import subprocess, sys, time
import pytrec_eval

qrels_path, run_path = sys.argv[1], sys.argv[2]
t0 = time.perf_counter()
qrels, run = {}, {}
with open(qrels_path) as f:
    for line in f:
        q, _, d, rel = line.split()
        qrels.setdefault(q, {})[d] = int(rel)
with open(run_path) as f:
    for line in f:
        q, _, d, _, score, _ = line.split()
        run.setdefault(q, {})[d] = float(score)
t1 = time.perf_counter()
evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(pytrec_eval.supported_measures))
values = evaluator.evaluate(run)
t2 = time.perf_counter()
print(f"pytrec_eval: read {t1 - t0:.2f} s, evaluate {t2 - t1:.2f} s, total {t2 - t0:.2f} s "
      f"({len(values)} queries, {len(next(iter(values.values())))} values each)")


def timed(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t


rs = timed(['target/release/rankscope', 'trec_eval', '-m', 'all_trec', qrels_path, run_path])
print(f"rankscope trec_eval -m all_trec: {rs:.2f} s; pytrec_eval total / rankscope = {(t2 - t0) / rs:.1f}x, "
      f"evaluate only / rankscope = {(t2 - t1) / rs:.1f}x")
if len(sys.argv) > 3:
    c = timed([sys.argv[3], '-m', 'all_trec', qrels_path, run_path])
    print(f"C trec_eval -m all_trec: {c:.2f} s; C / rankscope = {c / rs:.1f}x")
