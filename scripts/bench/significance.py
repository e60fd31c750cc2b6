"""Times #31's significance tests against the peers on the same per-query
values, in one run:

    cargo build --release
    tools/venv/bin/python scripts/bench/significance.py /tmp/rs-sig [runs]

Writes DIR/values.csv (`query_id,model,metric,value`: 100,000 queries, 5
models, 20 metrics, seeded; the shape of `cargo bench -- significance`) and
DIR/pair.csv (models m0 and m1 on metric0), then
times, median of `runs` (3):
- ranx 0.3.21's Fisher randomization test (`fisher_randomization_test`, what
  `ranx.compare(stat_test="fisher")` runs per metric and pair; numba, compiled
  on a small slice first) and its paired t-test, 10,000 permutations, one
  metric, model m1 against m0;
- scipy: `permutation_test` (paired sign flips, 10,000 resamples, vectorized)
  on the same pair, and `ttest_rel`, `wilcoxon`, `binomtest` (sign test) for
  20 metrics x 4 models against m0 (what the page's table tests);
- `rankscope compare` on pair.csv, end to end (it runs every test; the
  core's own figures are `cargo bench --bench core -- significance`).
Prints `what seconds` lines.
"""
import pathlib
import statistics
import subprocess
import sys
import time

import functools

import numpy as np
from scipy import stats

print = functools.partial(print, flush=True)  # noqa: A001 (lines appear as measured)
root = pathlib.Path(sys.argv[1])
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
root.mkdir(parents=True, exist_ok=True)
cli = pathlib.Path(__file__).resolve().parents[2] / "target" / "release" / "rankscope"

n, models, metrics = 100_000, 5, 20
rng = np.random.default_rng(7)
base = rng.random((metrics, n))
values = np.stack(
    [np.minimum(base + 0.02 * m * rng.random((metrics, n)), 1.0) for m in range(models)]
)  # [model, metric, query]
path, pair = root / "values.csv", root / "pair.csv"


def write(to, ms, js):
    with open(to, "w") as f:
        f.write("query_id,model,metric,value\n")
        for m in ms:
            for j in js:
                f.writelines(f"q{i},m{m},metric{j},{v!r}\n" for i, v in enumerate(values[m, j].tolist()))


if not path.exists():
    write(path, range(models), range(metrics))
    write(pair, [0, 1], [0])


def median_time(fn):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


a, b = values[0, 0], values[1, 0]

try:
    from ranx.statistical_tests import fisher_randomization_test, paired_student_t_test

    fisher_randomization_test(a[:100], b[:100], 100, 0.05, 42)  # numba compiles here
    print("ranx fisher 10000 perms, 1 metric", median_time(lambda: fisher_randomization_test(a, b, 10_000, 0.05, 42)))
    print(
        "ranx t-test, 20 metrics x 4 models",
        median_time(lambda: [paired_student_t_test(values[0, j], values[m, j], 0.05) for m in range(1, models) for j in range(metrics)]),
    )
except ImportError:
    print("ranx not installed")


def scipy_permutation():
    d = b - a
    stats.permutation_test(
        (d,),
        lambda x, axis: np.mean(x, axis=axis),
        permutation_type="samples",
        n_resamples=10_000,
        vectorized=True,
        batch=50,
        random_state=42,
    )


t0 = time.perf_counter()
scipy_permutation()  # once: about 200 s on 2 cores
print("scipy permutation_test 10000, 1 metric (one run)", time.perf_counter() - t0)
for name, test in [
    ("ttest_rel", lambda x, y: stats.ttest_rel(y, x)),
    ("wilcoxon", lambda x, y: stats.wilcoxon(y, x)),
    ("binomtest (sign)", lambda x, y: stats.binomtest(int((y > x).sum()), int((y != x).sum()))),
]:
    print(
        f"scipy {name}, 20 metrics x 4 models",
        median_time(lambda: [test(values[0, j], values[m, j]) for m in range(1, models) for j in range(metrics)]),
    )

if cli.exists():
    def rankscope(file, *args):
        subprocess.run([str(cli), "compare", str(file), *args, "--format", "json"], check=True, stdout=subprocess.DEVNULL)

    print("rankscope compare, every test of one pair (t, Wilcoxon, sign, randomization 10000,"
          " bootstrap 1000, Tukey 10000; end to end)",
          median_time(lambda: rankscope(pair, "--metrics", "metric0", "--test", "randomization", "--permutations", "10000")))
else:
    print(f"no {cli}: cargo build --release")
