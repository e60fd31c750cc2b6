"""One-vs-rest ROC AUC and average precision on the reference multi-class matrix,
from scikit-learn: tests/reference/extra/ovr.json (read by tests/oracle.rs)."""
import json, pathlib
import numpy as np
from sklearn.metrics import roc_auc_score, average_precision_score

ref = pathlib.Path(__file__).resolve().parents[2] / "tests" / "reference"
data = np.loadtxt(ref / "multiclass_probs.csv", delimiter=",", skiprows=1)
target, probs = data[:, 0].astype(int), data[:, 1:]
out = {}
for c in sorted(set(target.tolist()))[:6]:
    y = (target == c).astype(int)
    out[str(c)] = {
        "sklearn.roc_auc_score": roc_auc_score(y, probs[:, c]),
        "sklearn.average_precision_score": average_precision_score(y, probs[:, c]),
        "positives": int(y.sum()),
    }
(ref / "extra" / "ovr.json").write_text(json.dumps(out, indent=1))
