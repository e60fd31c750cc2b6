"""Per-query trec_eval values (through pytrec_eval) for the measures the oracle
does not cover, written to tests/reference/extra/trec_eval.json.

Regenerate with: pip install pytrec-eval-terrier && python3 scripts/reference/trec_eval_reference.py
"""
import json
import pathlib

import pytrec_eval

root = pathlib.Path(__file__).resolve().parents[2] / "tests" / "reference"
MEASURES = {"map", "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", "recall", "ndcg", "ndcg_cut", "map_cut", "success", "num_ret", "num_rel", "num_rel_ret"}
CUTS = "5,10,15,20,30,100,200,500,1000"


def read_qrels(path):
    q = {}
    for line in open(path):
        if not line.strip() or line.startswith("#"):
            continue
        qid, _, doc, rel = line.split()
        q.setdefault(qid, {})[doc] = int(rel)
    return q


def read_run(path):
    r = {}
    for line in open(path):
        if not line.strip() or line.startswith("#"):
            continue
        qid, _, doc, _, score, _ = line.split()[:6]
        r.setdefault(qid, {})[doc] = float(score)
    return r


cases = {
    "ranking": (root / "ranking.qrels", [root / "ranking.run"]),
    "example": (root / "extra" / "example.qrels", [root / "extra" / "dense.run", root / "extra" / "bm25.run"]),
}
out = {"pytrec_eval": pytrec_eval.__version__ if hasattr(pytrec_eval, "__version__") else "pytrec-eval-terrier", "cases": {}}
for name, (qrels_path, runs) in cases.items():
    qrels = read_qrels(qrels_path)
    case = {}
    for level in (1, 2):
        ev = pytrec_eval.RelevanceEvaluator(qrels, {m if m in ("map", "Rprec", "bpref", "recip_rank", "ndcg", "num_ret", "num_rel", "num_rel_ret", "iprec_at_recall") else f"{m}.{CUTS}" if m != "success" else "success.1,5,10" for m in MEASURES}, relevance_level=level)
        for run_path in runs:
            case.setdefault(f"{run_path.name} level={level}", ev.evaluate(read_run(run_path)))
    out["cases"][name] = case
(root / "extra" / "trec_eval.json").write_text(json.dumps(out, indent=1, sort_keys=True))
print("wrote", root / "extra" / "trec_eval.json")
