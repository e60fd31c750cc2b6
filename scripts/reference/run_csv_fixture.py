"""Writes tests/reference/extra/ranking.run.csv: the reference TREC run as a
run DataFrame saved by pandas (`to_csv` with its row index; no relevance
column), an independent writer of the run CSV format."""
import pathlib

import pandas as pd

ref = pathlib.Path(__file__).resolve().parents[2] / "tests" / "reference"
run = pd.read_csv(ref / "ranking.run", sep=r"\s+", header=None, comment="#",
                  names=["query_id", "q0", "doc_id", "rank", "score", "tag"],
                  dtype={"query_id": str, "doc_id": str})
run[["query_id", "doc_id", "score"]].to_csv(ref / "extra" / "ranking.run.csv")
