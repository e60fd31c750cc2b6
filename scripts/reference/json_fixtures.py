"""Writes tests/reference/extra/ranking.{run,qrels}.json: the reference TREC run and
qrels in ranx's JSON layout, serialised by Python's json module (an independent writer)."""
import json, pathlib
ref = pathlib.Path(__file__).resolve().parents[2] / "tests" / "reference"
run, qrels = {}, {}
for line in (ref / "ranking.run").read_text().splitlines():
    if line.strip() and not line.startswith("#"):
        q, _, d, _, s, _ = line.split()
        run.setdefault(q, {})[d] = float(s)
for line in (ref / "ranking.qrels").read_text().splitlines():
    if line.strip():
        q, _, d, g = line.split()
        qrels.setdefault(q, {})[d] = int(g)
(ref / "extra" / "ranking.run.json").write_text(json.dumps(run, indent=1, ensure_ascii=True))
(ref / "extra" / "ranking.qrels.json").write_text(json.dumps(qrels))
