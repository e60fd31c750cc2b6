#!/usr/bin/env bash
# Two `rankscope` binaries taking turns (A B A B ...) on the 10M-line run:
# `trec_eval -m official` from the files, the same with the run through
# standard input (`cat RUN | ... -`), and `eval --qrels`. Each process is
# timed whole by GNU time (wall, user + system, peak resident memory); the
# table gives min and median per binary and the median of the per-pair
# ratios A/B (A's figure over the B run right after it). The load average
# is printed before and after: on a shared machine, quote it beside the
# figures.
#
#   bash scripts/bench/trec_eval_cores.sh NEW_BIN OLD_BIN DIR/bench.qrels DIR/bm25.run [RUNS]
#
# Both outputs are compared byte for byte first.
set -euo pipefail
a=$1 b=$2 qrels=$3 run=$4 runs=${5:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$a" trec_eval -m official "$qrels" "$run" >"$tmp/a.out"
"$b" trec_eval -m official "$qrels" "$run" >"$tmp/b.out"
cmp "$tmp/a.out" "$tmp/b.out" && echo "trec_eval -m official: byte-identical"

commands=(
  "trec_eval -m official|files"
  "trec_eval -m official|stdin"
  "eval --qrels|files"
)
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
for i in $(seq "$runs"); do
  for c in "${!commands[@]}"; do
    IFS='|' read -r args how <<<"${commands[$c]}"
    for side in a b; do
      bin=${!side}
      if [ "$how" = stdin ]; then
        /usr/bin/time -f "%e %U %S %M" -o "$tmp/t" sh -c "cat '$run' | '$bin' $args '$qrels' - >/dev/null"
      elif [ "$args" = "eval --qrels" ]; then
        /usr/bin/time -f "%e %U %S %M" -o "$tmp/t" "$bin" eval --qrels "$qrels" "$run" >/dev/null 2>&1
      else
        # shellcheck disable=SC2086
        /usr/bin/time -f "%e %U %S %M" -o "$tmp/t" "$bin" $args "$qrels" "$run" >/dev/null
      fi
      echo "$c $side $i $(tail -1 "$tmp/t")" >>"$tmp/times"
    done
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

echo
echo "| command | A wall min / median | B wall min / median | A/B wall (median of pairs) | A cpu / B cpu (medians) | A peak / B peak (MiB) |"
echo "|---|---|---|---|---|---|"
for c in "${!commands[@]}"; do
  IFS='|' read -r args how <<<"${commands[$c]}"
  awk -v c="$c" -v name="$args ($how)" '
    function median(v, n,   i, j, t) {
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
      return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    }
    $1 == c && $2 == "a" { na++; aw[na] = $4; ac[na] = $5 + $6; am[na] = $7 / 1024; pa[$3] = $4 }
    $1 == c && $2 == "b" { nb++; bw[nb] = $4; bc[nb] = $5 + $6; bm[nb] = $7 / 1024; pb[$3] = $4 }
    END {
      for (k in pa) { np++; r[np] = pa[k] / pb[k] }
      amed = median(aw, na); amin = aw[1]   # median() sorts in place
      bmed = median(bw, nb); bmin = bw[1]
      printf "| `%s` | %.2f / %.2f s | %.2f / %.2f s | %.2f | %.2f / %.2f s | %.0f / %.0f |\n",
        name, amin, amed, bmin, bmed, median(r, np), median(ac, na), median(bc, nb), median(am, na), median(bm, nb)
    }' "$tmp/times"
done
