"""Per-query (per-user) evaluation on Spark with Rankscope's core.

The run and the judgments are brought together by query: both become one
DataFrame partitioned by query id, so every query's rows (all models' and
its judgments) land in one partition, and each partition is evaluated by one
call of the core (``mapInPandas``), not one Python call per query. Per-query
values depend on nothing outside their query, so they equal the CLI's to
the last bit; the means are taken from them on the driver as the core takes
them (``rankscope.means``), so they equal the CLI's too.

The recipe on a cluster: build the wheel once (``maturin build --release``
in ``python/``), ship it to the executors (``spark.submit.pyFiles`` does not
take wheels: install it in the executors' Python environment, e.g. a conda or
venv archive passed with ``--archives``, or ``pip install`` in the image), then::

    from rankscope.spark import evaluate
    per_query, means = evaluate(run_df, qrels_df, metrics=["ndcg@10", "map"])

Per-user recommender metrics are the same call with ``user_id`` as the query.
"""

from __future__ import annotations

import warnings as _warnings
from typing import Any, Dict, Iterable, Iterator, List, Optional, Tuple

from . import DOC_COLUMNS, GRADE_COLUMNS, MODEL_COLUMNS, QUERY_COLUMNS, SCORE_COLUMNS, _choose as _pick, _conventions, _metric_list

SCHEMA = "query_id string, model string, metric string, value double"


def evaluate(
    run_df: Any,
    qrels_df: Any,
    metrics: Any = None,
    cutoffs: Optional[Iterable[int]] = None,
    partitions: Optional[int] = None,
    columns: Optional[Dict[str, str]] = None,
    means: bool = True,
    **conventions: Any,
) -> Tuple[Any, Optional[Dict[str, Dict[str, Optional[float]]]]]:
    """Evaluates a Spark run DataFrame against a Spark qrels DataFrame.

    Columns are found by the names ``rankscope.evaluate`` takes (query_id /
    qid / user_id..., doc_id / docno / item_id..., score, relevance; a
    ``model`` column holds several models); ``columns`` names others:
    ``{"query": ..., "doc": ..., "score": ..., "relevance": ..., "model": ...}``.
    ``partitions``: how many partitions the queries are spread over (default:
    the run's). ``conventions`` as in ``rankscope.evaluate``; ``ties="file"``
    is refused (Spark keeps no row order within a query).

    Returns ``(per_query, means)``: a Spark DataFrame with columns
    ``query_id, model, metric, value`` (the interchange format the page and
    the CLI read) and, unless ``means=False``, ``{model: {metric: value}}``
    from the per-query values collected to the driver (one row per query,
    model and metric).
    """
    from pyspark.sql import functions as F

    conv = _conventions(conventions)
    if any(k == "ties" and v == "file" for k, v in conv):
        raise ValueError("ties=file: Spark keeps no order of the rows within a query; use ties='trec' (default) or 'average'")
    columns = dict(columns or {})
    rc, qc = run_df.columns, qrels_df.columns
    r_query = _pick(rc, QUERY_COLUMNS, "query id", "run", columns.get("query"))
    r_doc = _pick(rc, DOC_COLUMNS, "document id", "run", columns.get("doc"))
    r_score = _pick(rc, SCORE_COLUMNS, "score", "run", columns.get("score"))
    r_model = columns.get("model") or next((c for c in rc if c.lower() in MODEL_COLUMNS), None)
    j_query = _pick(qc, QUERY_COLUMNS, "query id", "qrels", columns.get("query"))
    j_doc = _pick(qc, DOC_COLUMNS, "document id", "qrels", columns.get("doc"))
    j_grade = _pick(qc, GRADE_COLUMNS, "relevance", "qrels", columns.get("relevance"))

    model = F.col(r_model).cast("string") if r_model else F.lit("run")
    run = run_df.select(
        F.col(r_query).cast("string").alias("query_id"),
        F.col(r_doc).cast("string").alias("doc_id"),
        F.col(r_score).cast("double").alias("score"),
        F.lit(None).cast("long").alias("relevance"),
        model.alias("model"),
    )
    qrels = qrels_df.select(
        F.col(j_query).cast("string").alias("query_id"),
        F.col(j_doc).cast("string").alias("doc_id"),
        F.lit(None).cast("double").alias("score"),
        F.col(j_grade).cast("long").alias("relevance"),
        F.lit(None).cast("string").alias("model"),
    )
    models = sorted(r[0] for r in run.select("model").distinct().collect())
    if not models:
        raise ValueError("run: no rows")
    n = partitions or max(run_df.rdd.getNumPartitions(), 1)
    both = run.unionByName(qrels).repartition(n, "query_id")
    metric_ids = _metric_list(metrics)
    ks = None if cutoffs is None else [int(k) for k in cutoffs]

    def per_partition(batches: Iterator[Any]) -> Iterator[Any]:
        import pandas as pd

        import rankscope

        parts = list(batches)
        if not parts:
            return
        rows = pd.concat(parts, ignore_index=True)
        judged = rows[rows["model"].isna()]
        if judged.empty:
            return  # queries without judgments are never evaluated
        ranked = rows[rows["model"].notna()]
        by_model = dict(iter(ranked.groupby("model", sort=False)))
        runs = {m: by_model.get(m, ranked.iloc[:0])[["query_id", "doc_id", "score"]] for m in models}
        with _warnings.catch_warnings():
            _warnings.simplefilter("ignore")  # the driver's evaluation says them once
            values = rankscope.evaluate(
                runs,
                judged[["query_id", "doc_id", "relevance"]].astype({"relevance": "int64"}),
                metrics=metric_ids,
                cutoffs=ks,
                per_query=True,
                **dict(conv),
            )
        # object columns: pyspark's pandas-to-Arrow conversion does not take
        # pandas 3's Arrow-backed string columns (chunked arrays)
        yield values.astype({"query_id": object, "model": object, "metric": object})

    per_query = both.mapInPandas(per_partition, SCHEMA)
    if not means:
        return per_query, None
    from . import means as _means

    return per_query, _means(per_query.toPandas())
