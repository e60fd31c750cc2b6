"""Rankscope's metric core (Rust) for Python.

The same values as the ``rankscope`` command line and the dashboard, to the
last bit: inputs become the core's columns in bulk (strings as Arrow
buffers, numbers as numpy arrays; no Python loop per row for DataFrames,
Tables and arrays) and are evaluated with the GIL released.

    >>> import rankscope
    >>> rankscope.evaluate("bm25.run", "qrels.txt", metrics=["ndcg@10", "map"])
    {'bm25': {'ndcg@10': 0.48..., 'map': 0.41...}}

Metric ids, convention names and values are the registry's: the CLI's
``rankscope metrics`` lists them, and ``rankscope.metrics(kind)`` too.
"""

from __future__ import annotations

import json
import os
import warnings as _warnings
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from . import _rankscope
from ._rankscope import __version__

__all__ = [
    "evaluate",
    "report",
    "show",
    "binary",
    "multiclass",
    "ratings",
    "compare",
    "means",
    "metrics",
    "CONVENTIONS",
    "__version__",
    "leaderboard",
    "judgments_agree",
    "judgments_rankings",
    "judgments_bounds",
    "judgments_pool",
    "judgments_merge",
    "fingerprint",
    "presets",
]

#: The convention keys (as in links, sessions and the CLI's flags, which
#: are also accepted: ``queries``, ``f1``, ``logits``, ``trec_eval_version``).
CONVENTIONS: Tuple[str, ...] = tuple(_rankscope.conventions_help())

# Column names, as the CLI's long CSV reader takes them (crates/io/src/parse/table/mod.rs).
QUERY_COLUMNS = ("query_id", "qid", "q_id", "query", "topic", "topic_id", "user_id", "user", "uid", "session_id")
DOC_COLUMNS = ("doc_id", "docid", "docno", "doc", "document", "document_id", "item_id", "item", "iid", "product_id")
SCORE_COLUMNS = ("score", "scores", "prediction", "pred", "y_score")
GRADE_COLUMNS = ("relevance", "rel", "grade", "judgment", "judgement", "qrel", "relevant", "gain", "label")
MODEL_COLUMNS = ("model", "run", "system", "run_id", "tag")

PathLike = Union[str, "os.PathLike[str]"]


def metrics(kind: str = "ranking") -> List[Tuple[str, str, str]]:
    """Every metric id of ``kind`` (ranking, binary, multiclass, ratings) as
    ``(id, name, formula)``, from the registry."""
    return _rankscope.metrics(kind)


# ----------------------------------------------------------------------------
# columns


def _is_path(x: Any) -> bool:
    return isinstance(x, (str, os.PathLike))


def _arrow(values: Any, what: str) -> pa.Array:
    """Any column (pandas Series, numpy array, pyarrow (Chunked)Array, list)
    as one pyarrow Array."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if not isinstance(values, pa.Array):
        try:
            values = pa.array(values, from_pandas=True)
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError) as e:
            raise ValueError(f"{what}: cannot be read as a column ({e})") from None
    if isinstance(values, pa.ChunkedArray):  # a pandas column backed by Arrow
        values = values.combine_chunks()
    if pa.types.is_dictionary(values.type):
        values = values.dictionary_decode()
    return values


def _first_null(arr: pa.Array) -> int:
    return int(np.flatnonzero(arr.is_null().to_numpy(zero_copy_only=False))[0])


def _strings(values: Any, what: str) -> Tuple[bytes, bytes]:
    """A column of ids as Arrow large-string buffers: (int64 offsets, UTF-8 bytes).
    Numbers are written as text (a query id 7 is "7"), as in a file."""
    arr = _arrow(values, what)
    if arr.null_count:
        raise ValueError(f"{what}, row {_first_null(arr)}: expected an id, found a missing value")
    if pa.types.is_floating(arr.type):
        whole = pc.all(pc.equal(arr, pc.floor(arr))).as_py()
        if whole is False:
            raise ValueError(f"{what}: ids are fractional numbers; give them as text or whole numbers")
        arr = arr.cast(pa.int64())
    if not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
        try:
            arr = arr.cast(pa.string())
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
            raise ValueError(f"{what}: expected ids (text or whole numbers), found {arr.type} ({e})") from None
    arr = arr.cast(pa.large_string())
    _, offsets, data = arr.buffers()
    n = len(arr)
    offs = np.frombuffer(offsets, dtype="<i8", count=n + 1, offset=arr.offset * 8)
    return offs.tobytes(), (data.to_pybytes() if data is not None else b"")


def _floats(values: Any, what: str, rows: Optional[int] = None) -> bytes:
    """A column of numbers as little-endian float64 bytes (missing values are refused)."""
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        arr = _arrow(values, what)
        if arr.null_count:
            raise ValueError(f"{what}, row {_first_null(arr)}: expected a number, found a missing value")
        values = arr.to_numpy(zero_copy_only=False)
    try:
        a = np.asarray(values)
        if a.dtype == object or a.dtype.kind in "USb":
            raise TypeError(a.dtype)
        a = np.ascontiguousarray(a, dtype="<f8")
    except (TypeError, ValueError):
        raise ValueError(f"{what}: expected numbers") from None
    if a.ndim != 1:
        raise ValueError(f"{what}: expected one column, found shape {a.shape}")
    if rows is not None and len(a) != rows:
        raise ValueError(f"{what}: {len(a)} values for {rows} rows")
    bad = np.flatnonzero(np.isnan(a))
    if len(bad):
        raise ValueError(f"{what}, row {int(bad[0])}: expected a number, found a missing value (NaN)")
    return a.tobytes()


def _grades(values: Any, what: str) -> bytes:
    """Relevance grades as little-endian int64 (whole numbers only)."""
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        arr = _arrow(values, what)
        if arr.null_count:
            raise ValueError(f"{what}, row {_first_null(arr)}: expected a grade, found a missing value")
        values = arr.to_numpy(zero_copy_only=False)
    a = np.asarray(values)
    if a.dtype == bool:
        a = a.astype("<i8")
    if a.dtype.kind == "f":
        bad = np.flatnonzero(~np.isfinite(a) | (a != np.floor(a)))
        if len(bad):
            raise ValueError(f"{what}, row {int(bad[0])}: expected a whole-number grade, found {a[bad[0]]}")
    elif a.dtype.kind not in "iu":
        raise ValueError(f"{what}: expected whole-number grades, found {a.dtype}")
    return np.ascontiguousarray(a, dtype="<i8").tobytes()


def _column_names(frame: Any) -> List[str]:
    if isinstance(frame, pa.Table):
        return list(frame.column_names)
    return [str(c) for c in frame.columns]


def _column(frame: Any, name: str) -> Any:
    return frame.column(name) if isinstance(frame, pa.Table) else frame[name]


def _pick(frame: Any, names: Sequence[str], role: str, what: str, given: Optional[str] = None) -> str:
    return _choose(_column_names(frame), names, role, what, given)


def _choose(cols: List[str], names: Sequence[str], role: str, what: str, given: Optional[str] = None) -> str:
    """The column of ``role``: ``given``, else the first of ``names`` (any case)."""
    if given is not None:
        if given not in cols:
            raise ValueError(f"{what}: no column {given!r} (the columns: {', '.join(cols)})")
        return given
    lower = {c.lower(): c for c in cols}
    for n in names:
        if n in lower:
            return lower[n]
    raise ValueError(
        f"{what}: no {role} column (expected one of {', '.join(names)}; the columns: {', '.join(cols)})"
    )


def _is_frame(x: Any) -> bool:
    if isinstance(x, pa.Table):
        return True
    return type(x).__name__ == "DataFrame" and hasattr(x, "columns")


def _is_ranx_dict(x: Any) -> bool:
    """``{query: {doc: number}}`` (ranx's, pytrec_eval's and ir_measures' form)."""
    if not isinstance(x, Mapping):
        return False
    for docs in x.values():
        if not isinstance(docs, Mapping):
            return False
        for v in docs.values():
            return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
    return True  # empty: a run with no rows


def _flatten(d: Mapping[Any, Mapping[Any, Any]]) -> Tuple[List[str], List[str], List[Any]]:
    qs: List[str] = []
    ds: List[str] = []
    vs: List[Any] = []
    for q, docs in d.items():
        qs.extend([str(q)] * len(docs))
        ds.extend(map(str, docs.keys()))
        vs.extend(docs.values())
    return qs, ds, vs


# ----------------------------------------------------------------------------
# loading


def _add_qrels(data: Any, qrels: Any, columns: Mapping[str, str], relevant_rating: Any = None) -> None:
    if qrels is None:
        return
    if _is_path(qrels):
        # any judgment format: TREC or JSON qrels, a CSV of relevance, held-out interactions
        rule = None if relevant_rating is None else str(relevant_rating)
        data.add_path(os.fspath(qrels), qrels=True, relevant_rating=rule)
        return
    if hasattr(qrels, "to_dict") and not _is_frame(qrels) and not isinstance(qrels, Mapping):
        qrels = qrels.to_dict()  # a ranx Qrels
    if isinstance(qrels, Mapping):
        if not _is_ranx_dict(qrels):
            raise ValueError("qrels: expected {query: {document: grade}}")
        qs, ds, gs = _flatten(qrels)
        q, d = _strings(qs, "qrels, query ids"), _strings(ds, "qrels, document ids")
        data.add_qrels("qrels", q, d, _grades(np.asarray(gs), "qrels, relevance"))
        return
    if _is_frame(qrels):
        qc = _pick(qrels, QUERY_COLUMNS, "query id", "qrels", columns.get("query"))
        dc = _pick(qrels, DOC_COLUMNS, "document id", "qrels", columns.get("doc"))
        gc = _pick(qrels, GRADE_COLUMNS, "relevance", "qrels", columns.get("relevance"))
        data.add_qrels(
            "qrels",
            _strings(_column(qrels, qc), f"qrels, column {qc}"),
            _strings(_column(qrels, dc), f"qrels, column {dc}"),
            _grades(_column(qrels, gc), f"qrels, column {gc}"),
        )
        return
    raise ValueError(
        f"qrels: expected a path, a DataFrame, a pyarrow Table or {{query: {{document: grade}}}}, found {type(qrels).__name__}"
    )


def _add_run(data: Any, name: str, run: Any, columns: Mapping[str, str]) -> None:
    if _is_path(run):
        data.add_path(os.fspath(run))
        return
    if hasattr(run, "to_dict") and not _is_frame(run) and not isinstance(run, Mapping):
        run = run.to_dict()  # a ranx Run
    if isinstance(run, Mapping):
        qs, ds, ss = _flatten(run)
        data.add_run(
            name,
            _strings(qs, f"run {name!r}, query ids"),
            _strings(ds, f"run {name!r}, document ids"),
            _floats(np.asarray(ss, dtype=float), f"run {name!r}, scores"),
        )
        return
    if _is_frame(run):
        qc = _pick(run, QUERY_COLUMNS, "query id", f"run {name!r}", columns.get("query"))
        dc = _pick(run, DOC_COLUMNS, "document id", f"run {name!r}", columns.get("doc"))
        sc = _pick(run, SCORE_COLUMNS, "score", f"run {name!r}", columns.get("score"))
        data.add_run(
            name,
            _strings(_column(run, qc), f"run {name!r}, column {qc}"),
            _strings(_column(run, dc), f"run {name!r}, column {dc}"),
            _floats(_column(run, sc), f"run {name!r}, column {sc}"),
        )
        return
    raise ValueError(
        f"run {name!r}: expected a path, a DataFrame, a pyarrow Table or {{query: {{document: score}}}}, found {type(run).__name__}"
    )


def _is_per_query(frame: Any) -> bool:
    """A per-query values table: query, metric and value columns (and a model one)."""
    if not _is_frame(frame):
        return False
    cols = {c.lower() for c in _column_names(frame)}
    return "metric" in cols and "value" in cols and bool(cols & set(QUERY_COLUMNS))


def _add_per_query(data: Any, frame: Any) -> None:
    qc = _pick(frame, QUERY_COLUMNS, "query id", "per-query values", None)
    mc = _pick(frame, ("metric", "measure"), "metric", "per-query values", None)
    vc = _pick(frame, ("value",), "value", "per-query values", None)
    model = next((c for c in _column_names(frame) if c.lower() in MODEL_COLUMNS), None)
    n = len(frame)
    models = _column(frame, model) if model is not None else np.full(n, "model", dtype=object)
    values = np.ascontiguousarray(np.asarray(_column(frame, vc), dtype=float), dtype="<f8")
    data.add_per_query(
        "per-query values",
        _strings(_column(frame, qc), f"per-query values, column {qc}"),
        _strings(models, "per-query values, models"),
        _strings(_column(frame, mc), f"per-query values, column {mc}"),
        values.tobytes(),
    )


def _models(runs: Any) -> List[Tuple[str, Any]]:
    """One run or several as (name, run) pairs: a mapping of names to runs,
    a list of runs (paths keep their file names), or one run."""
    if isinstance(runs, Mapping) and not _is_ranx_dict(runs):
        return [(str(k), v) for k, v in runs.items()]
    if isinstance(runs, (list, tuple)):
        out = []
        for i, r in enumerate(runs):
            if isinstance(r, tuple) and len(r) == 2 and isinstance(r[0], str):
                out.append(r)
            else:
                out.append((_default_name(r, f"run{i + 1}"), r))
        return out
    if _is_frame(runs) and not isinstance(runs, pa.Table):
        model = next((c for c in runs.columns if str(c).lower() in MODEL_COLUMNS), None)
        if model is not None:
            return [(str(k), g) for k, g in runs.groupby(model, sort=False)]
    return [(_default_name(runs, "run"), runs)]


def _default_name(run: Any, fallback: str) -> str:
    name = getattr(run, "name", None)
    if isinstance(name, str) and name and not _is_frame(run):
        return name
    return fallback


def _conventions(conventions: Mapping[str, Any]) -> List[Tuple[str, str]]:
    out = []
    for k, v in conventions.items():
        if isinstance(v, Mapping):
            # {model: threshold}: each model's own (threshold={"a": 0.7})
            out.extend((k, f"{name}={t}") for name, t in v.items())
            continue
        if isinstance(v, bool):
            v = "true" if v else "false"
        out.append((k, str(v)))
    return out


def _metric_list(metrics: Union[None, str, Iterable[str]]) -> Optional[List[str]]:
    if metrics is None:
        return None
    if isinstance(metrics, str):
        return [m.strip() for m in metrics.split(",") if m.strip()]
    return [str(m) for m in metrics]


def _warn(result: Mapping[str, Any], stacklevel: int) -> None:
    for w in result.get("warnings", []):
        _warnings.warn(w, stacklevel=stacklevel)


def _per_query_frame(result: Mapping[str, Any]):
    """The per-unit values as a long DataFrame: query_id, model, metric, value
    (the interchange format the CLI writes with ``--per-query --format csv``)."""
    import pandas as pd

    frames = []
    for m in result["per_query"]:
        units = np.asarray(m["units"], dtype=object)
        for metric, values in m["values"].items():
            frames.append(
                pd.DataFrame(
                    {
                        "query_id": units,
                        "model": m["model"],
                        "metric": metric,
                        "value": np.frombuffer(values, dtype="<f8"),
                    }
                )
            )
    if not frames:
        return pd.DataFrame({"query_id": [], "model": [], "metric": [], "value": []})
    return pd.concat(frames, ignore_index=True)


def _result(data: Any, metrics: Any, cutoffs: Any, per_query: bool, conventions: Mapping[str, Any]):
    res = data.evaluate(
        _metric_list(metrics),
        None if cutoffs is None else [int(k) for k in cutoffs],
        _conventions(conventions),
        per_query,
    )
    _warn(res, 4)  # the caller of evaluate, binary, ...
    if per_query:
        return _per_query_frame(res)
    return res["models"]


# ----------------------------------------------------------------------------
# the API


def _data(run: Any, qrels: Any, columns: Optional[Mapping[str, str]], relevant_rating: Any = None) -> Any:
    """The core's workspace of what was given, as ``evaluate`` reads it."""
    columns = dict(columns or {})
    data = _rankscope.Data()
    if qrels is None and _is_per_query(run):
        # values computed elsewhere (evaluate(per_query=True), a Spark job)
        _add_per_query(data, run)
        return data
    _add_qrels(data, qrels, columns, relevant_rating)
    for name, r in _models(run):
        _add_run(data, name, r, columns)
    return data


def evaluate(
    run: Any,
    qrels: Any = None,
    metrics: Union[None, str, Iterable[str]] = None,
    per_query: bool = False,
    cutoffs: Optional[Iterable[int]] = None,
    columns: Optional[Mapping[str, str]] = None,
    **conventions: Any,
):
    """Evaluates one run or several against ``qrels``.

    ``run``: a path (any format the CLI reads: TREC run, ranx JSON, long CSV,
    binary CSV, ...), a pandas DataFrame or pyarrow Table with query, document
    and score columns (a ``model`` column splits it into models), a ranx-style
    ``{query: {doc: score}}`` dict or ranx ``Run``; or several: a list, or a
    dict of names to runs. ``qrels``: a path (TREC or JSON qrels, a CSV of
    query_id,item_id,relevance, or held-out interactions
    ``user_id,item_id[,rating]``), a DataFrame or Table with query, document
    and relevance columns, or ``{query: {doc: grade}}``; ``None`` when
    ``run`` holds its own truth (a CSV with labels). ``columns`` names
    columns the defaults miss: ``{"query": ..., "doc": ..., "score": ...,
    "relevance": ...}``. ``relevant_rating``: how held-out interactions'
    ratings count, as the CLI's ``--relevant-rating`` (a number: a rating
    of at least it is relevant, default 4; ``"graded"``; ``"all"``).

    ``metrics``: ids such as ``["ndcg@10", "map", "mrr"]`` (default: the
    kind's default set; ``"all"``: every one). ``conventions``: keyword
    arguments named as in links and the CLI (``ties="trec"``, ``gain=
    "exponential"``, ``query_set="intersection"``, ``relevance_level=2``...;
    ``threshold={"model_b": 0.9}`` gives models thresholds of their own).

    Per-query values computed elsewhere (a path to a per-query values file
    or trec_eval ``-q`` output, or a DataFrame with ``query_id, model,
    metric, value`` columns, as ``per_query=True`` and
    ``rankscope.spark.evaluate`` give) are read as the CLI reads them:
    their means as the core aggregates them (trec_eval's ``all`` lines
    where a file has them).

    Returns ``{model: {metric: value}}`` (``None`` for an undefined value);
    with ``per_query=True`` a pandas DataFrame with columns ``query_id,
    model, metric, value`` instead. Several judgment sets,
    ``qrels={"human": ..., "llm": ...}`` (each as ``qrels`` above): a dict
    of set names to those results, one evaluation under each set.
    """
    relevant_rating = conventions.pop("relevant_rating", None)
    if _is_set_dict(qrels):
        # several judgment sets: the same evaluation under each
        return {
            name: evaluate(run, q, metrics, per_query, cutoffs, columns, relevant_rating=relevant_rating, **conventions)
            for name, q in qrels.items()
        }
    return _result(_data(run, qrels, columns, relevant_rating), metrics, cutoffs, per_query, conventions)


def _score_models(scores: Any, what: str) -> List[Tuple[str, Any]]:
    if isinstance(scores, Mapping):
        return [(str(k), v) for k, v in scores.items()]
    if _is_frame(scores):
        return [(c, _column(scores, c)) for c in _column_names(scores)]
    return [("model", scores)]


def _labels(y_true: Any, positive_label: Any) -> bytes:
    a = np.asarray(y_true.to_numpy(zero_copy_only=False) if isinstance(y_true, (pa.Array, pa.ChunkedArray)) else y_true)
    if positive_label is not None:
        return np.ascontiguousarray(a == positive_label, dtype=np.uint8).tobytes()
    if a.dtype == bool:
        return np.ascontiguousarray(a, dtype=np.uint8).tobytes()
    if a.dtype.kind in "iuf":
        bad = np.flatnonzero((a != 0) & (a != 1))
        if len(bad) == 0:
            return np.ascontiguousarray(a, dtype=np.uint8).tobytes()
        raise ValueError(
            f"labels, row {int(bad[0])}: expected 0 or 1, found {a[bad[0]]} (give positive_label= for other labels)"
        )
    raise ValueError(f"labels: expected 0/1 or True/False, found {a.dtype} (give positive_label=)")


def binary(y_true: Any, scores: Any, metrics=None, positive_label: Any = None, **conventions: Any):
    """A binary classifier's metrics (scikit-learn's conventions): ``y_true``
    0/1 or booleans (or any labels with ``positive_label``), ``scores`` one
    array, a dict of names to arrays, or a DataFrame (one model per column).
    Returns ``{model: {metric: value}}``."""
    labels = _labels(y_true, positive_label)
    n = len(labels)
    models = [(name, _floats(s, f"scores {name!r}", n)) for name, s in _score_models(scores, "scores")]
    data = _rankscope.Data()
    data.add_binary("binary", labels, models)
    return _result(data, metrics, None, False, conventions)


def multiclass(y_true: Any, probabilities: Any, metrics=None, cutoffs=None, **conventions: Any):
    """A multi-class classifier's metrics: ``y_true`` class indices 0..C-1,
    ``probabilities`` an (n, C) array (or logits with ``class_scale=
    "logits"``), or a dict of names to such arrays."""
    data = _rankscope.Data()
    _add_multiclass(data, y_true, probabilities)
    return _result(data, metrics, cutoffs, False, conventions)


def _add_multiclass(data: Any, y_true: Any, probabilities: Any) -> None:
    targets = np.asarray(y_true)
    if targets.dtype.kind not in "iu":
        raise ValueError(f"y_true: expected class indices (whole numbers), found {targets.dtype}")
    targets = np.ascontiguousarray(targets, dtype="<i8")
    models = probabilities.items() if isinstance(probabilities, Mapping) else [("model", probabilities)]
    prepared = []
    classes = None
    for name, p in models:
        m = np.asarray(p, dtype=float)
        if m.ndim != 2 or m.shape[0] != len(targets):
            raise ValueError(f"probabilities {name!r}: expected shape ({len(targets)}, classes), found {m.shape}")
        if classes is not None and m.shape[1] != classes:
            raise ValueError(f"probabilities {name!r}: {m.shape[1]} classes, the others {classes}")
        classes = m.shape[1]
        prepared.append((str(name), np.ascontiguousarray(m, dtype="<f8").tobytes()))
    data.add_multiclass("multiclass", targets.tobytes(), classes or 0, prepared)


def ratings(users: Any, items: Any, y_true: Any, predictions: Any, metrics=None, **conventions: Any):
    """Rating prediction: MAE, RMSE, Spearman, FCP... ``predictions``: one
    array, a dict of names to arrays, or a DataFrame (one model per column)."""
    u = _strings(users, "user ids")
    i = _strings(items, "item ids")
    truth = _floats(y_true, "ratings")
    n = len(truth) // 8
    models = [(name, _floats(p, f"predictions {name!r}", n)) for name, p in _score_models(predictions, "predictions")]
    data = _rankscope.Data()
    data.add_ratings("ratings", u, i, truth, models)
    return _result(data, metrics, None, False, conventions)


def compare(
    run: Any,
    qrels: Any = None,
    metrics: Union[None, str, Iterable[str]] = None,
    baseline: Optional[str] = None,
    test: str = "t",
    correction: str = "holm",
    alpha: float = 0.05,
    seed: int = 42,
    permutations: int = 10_000,
    bootstrap: int = 1_000,
    cutoffs: Optional[Iterable[int]] = None,
    columns: Optional[Mapping[str, str]] = None,
    **conventions: Any,
) -> Dict[str, Any]:
    """Paired significance tests of every model against ``baseline`` (default:
    the first) on per-query values: ``rankscope compare --format json``'s
    document (t-test with the 95% CI of the difference and d_z, Wilcoxon,
    sign, randomization and paired bootstrap tests, adjusted p-values). For
    binary data, pass ``run=(y_true, {name: scores})``: ``roc_auc`` by DeLong's
    test, every other metric with its percentile-bootstrap 95% interval
    (``bootstrap`` resamples of the rows, ``seed``); for multi-class data ``run=(y_true, {name: (n, C)
    probabilities})``, tested row by row (McNemar's exact test on Acc@k's
    hits). Multi-class and ratings files (paths) are tested row by row too
    (MAE and MSE on each rating's error). ``metrics=None`` tests what
    ``rankscope compare`` tests without ``--metrics``: ranking, the page
    table's default columns (at ``cutoffs``, else 5, 10 and 20); binary,
    ``roc_auc`` and ``average_precision``; multi-class ``acc@1`` and ``mrr``;
    ratings ``mae`` and ``mse``."""
    columns = dict(columns or {})
    data = _rankscope.Data()
    multi = isinstance(run, tuple) and len(run) == 2 and qrels is None and isinstance(run[1], Mapping)
    if multi and all(np.ndim(p) == 2 for p in run[1].values()):
        _add_multiclass(data, run[0], run[1])
    elif isinstance(run, tuple) and len(run) == 2 and qrels is None and not isinstance(run[0], str):
        y_true, scores = run
        labels = _labels(y_true, conventions.pop("positive_label", None))
        n = len(labels)
        data.add_binary("binary", labels, [(k, _floats(s, f"scores {k!r}", n)) for k, s in _score_models(scores, "scores")])
    elif qrels is None and _is_per_query(run):
        _add_per_query(data, run)  # per-query values computed elsewhere
    else:
        _add_qrels(data, qrels, columns)
        for name, r in _models(run):
            _add_run(data, name, r, columns)
    doc = data.compare(
        _metric_list(metrics),
        None if cutoffs is None else [int(k) for k in cutoffs],
        _conventions(conventions),
        baseline,
        test,
        correction,
        float(alpha),
        int(seed),
        int(permutations),
        int(bootstrap),
    )
    result = json.loads(doc)
    _warn(result, 3)
    return result


def means(per_query: Any) -> Dict[str, Dict[str, float]]:
    """The table's values from per-query values (a DataFrame with columns
    ``query_id, model, metric, value``, as ``evaluate(per_query=True)`` and
    ``rankscope.spark.evaluate`` give): each metric aggregated as the core
    aggregates it (means compensated, counts summed, gm_map geometric), the
    queries taken in the core's order (byte-wise by id), so the values equal
    the CLI's to the last bit. ``None`` for the metrics whose value is not
    an aggregate of per-query values (``fcp`` and ``spearman``, Koren's
    ratios over every pair)."""
    data = _rankscope.Data()
    _add_per_query(data, per_query)
    return _result(data, None, None, False, {})


# ----------------------------------------------------------------------------
# the dashboard: a saved report, in a file or inline in Jupyter


def _app_files(dist: Optional[PathLike]) -> Tuple[str, str, bytes, str, bytes]:
    """The built app's stylesheet, module and wasm, found as the page finds
    them (its index.html's stylesheet, modulepreload and preloaded wasm),
    and its loading worker's glue and wasm (``rankscope-worker.js``,
    ``rankscope-worker_bg.wasm``, as the page's worker loads them): from
    ``dist``, else $RANKSCOPE_DIST, else the copy ``scripts/build.sh`` puts in
    the package (``rankscope/_dist``)."""
    import re

    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_dist")
    root = os.fspath(dist) if dist is not None else os.environ.get("RANKSCOPE_DIST", here)
    index = os.path.join(root, "index.html")
    if not os.path.exists(index):
        raise FileNotFoundError(
            f"{index}: the built app is needed for a report (run `bash scripts/build.sh`, "
            "which copies it into the package, or pass dist= the built dist/ folder)"
        )
    html = open(index, encoding="utf-8").read()

    def href(pattern: str) -> str:
        m = re.search(pattern, html)
        if not m:
            raise ValueError(f"{index}: not a built Rankscope page (no {pattern!r})")
        return os.path.join(root, m.group(1).lstrip("/").split("/")[-1])

    css = href(r'<link rel="stylesheet" href="([^"]+)"')
    js = href(r'<link rel="modulepreload" href="([^"]+)"')
    wasm = href(r'<link rel="preload" href="([^"]+\.wasm)"')
    worker_js, worker_wasm = (os.path.join(root, name) for name in ("rankscope-worker.js", "rankscope-worker_bg.wasm"))
    for path in (worker_js, worker_wasm):
        if not os.path.exists(path):
            raise FileNotFoundError(
                f"{path}: the built app's loading worker is needed for a report (run `bash scripts/build.sh`, "
                "which copies it into the package, or pass dist= the built dist/ folder)"
            )
    with open(css, encoding="utf-8") as a, open(js, encoding="utf-8") as b, open(wasm, "rb") as c:
        with open(worker_js, encoding="utf-8") as d, open(worker_wasm, "rb") as e:
            return a.read(), b.read(), c.read(), d.read(), e.read()


def report(
    run: Any,
    qrels: Any = None,
    path: Optional[PathLike] = None,
    metrics: Union[None, str, Iterable[str]] = None,
    title: str = "Rankscope report",
    dist: Optional[PathLike] = None,
    columns: Optional[Mapping[str, str]] = None,
    **conventions: Any,
) -> str:
    """The self-contained HTML report the page's "Save report" writes: the
    dashboard with this data (read as ``evaluate`` reads it) and view
    (``metrics``, ``conventions``), opening offline with no request. Written
    to ``path`` when given; returned either way."""
    data = _data(run, qrels, columns)
    css, js, wasm, worker_js, worker_wasm = _app_files(dist)
    html = data.report_html(title, css, js, wasm, worker_js, worker_wasm, _metric_list(metrics), _conventions(conventions))
    if path is not None:
        with open(path, "w", encoding="utf-8") as f:
            f.write(html)
    return html


class Dashboard:
    """The dashboard inline in a notebook: the report in an iframe
    (``srcdoc``: no server, no file, no network). ``html`` is the report."""

    def __init__(self, html: str, height: int = 900):
        self.html = html
        self.height = height

    def _repr_html_(self) -> str:
        import html as _html

        return (
            f'<iframe srcdoc="{_html.escape(self.html, quote=True)}" '
            f'style="width:100%;height:{int(self.height)}px;border:0" '
            'sandbox="allow-scripts allow-downloads allow-popups allow-modals" '
            'title="Rankscope"></iframe>'
        )


def show(run: Any, qrels: Any = None, metrics=None, height: int = 900, dist=None, columns=None, **conventions: Any) -> Dashboard:
    """The dashboard with this data inline in Jupyter (the value of the cell
    shows it): ``report``'s HTML in an iframe."""
    return Dashboard(report(run, qrels, metrics=metrics, dist=dist, columns=columns, **conventions), height)


def leaderboard(
    manifest: PathLike,
    metrics=None,
    baseline: Optional[str] = None,
    test: str = "t",
    correction: str = "holm",
    alpha: float = 0.05,
    resamples: int = 1000,
    seed: int = 42,
):
    """A catalog's leaderboard (``rankscope leaderboard``) as a pandas
    DataFrame: one row per run and metric, runs by the first metric's mean,
    with columns ``run, name, metric, mean, rank, rank_low, rank_high,
    tie_group, best, p_vs_best, adjusted_vs_best, vs_baseline,
    p_vs_baseline, adjusted_vs_baseline, queries``. ``manifest``: the
    catalog's folder or its ``rankscope-catalog.json``; ``metrics``: some of
    the catalog's (default: every one); ``test``: ``t``, ``wilcoxon`` or
    ``sign``; ``correction``: ``holm``, ``bh``, ``bonferroni`` or ``none``;
    ``resamples`` and ``seed``: the rank intervals' paired bootstrap. The
    tie group: the runs not significantly worse than the best at ``alpha``;
    ``vs_baseline``: 1 / -1 significantly above / below ``baseline``, 0
    neither (missing for the baseline itself or without one)."""
    import pandas as pd

    rows = json.loads(
        _rankscope.leaderboard(
            os.fspath(manifest),
            _metric_list(metrics) or [],
            baseline,
            test,
            correction,
            float(alpha),
            int(resamples),
            int(seed),
        )
    )
    columns = [
        "run", "name", "metric", "mean", "rank", "rank_low", "rank_high", "tie_group", "best",
        "p_vs_best", "adjusted_vs_best", "vs_baseline", "p_vs_baseline", "adjusted_vs_baseline", "queries",
    ]
    frame = pd.DataFrame(rows, columns=columns)
    for c in ["p_vs_best", "adjusted_vs_best", "p_vs_baseline", "adjusted_vs_baseline"]:
        frame[c] = frame[c].astype("float64")
    frame["vs_baseline"] = frame["vs_baseline"].astype("Int8")
    return frame
# ----------------------------------------------------------------------------
# judgment sets (rankscope judgments)


def _is_set_dict(qrels: Any) -> bool:
    """``{name: qrels}``: several judgment sets (not one ``{query: {doc: grade}}``)."""
    return isinstance(qrels, Mapping) and len(qrels) > 0 and not _is_ranx_dict(qrels)


def _sets(qrels: Any) -> List[Tuple[str, Any]]:
    if qrels is None:
        return []
    if _is_set_dict(qrels):
        return [(str(k), v) for k, v in qrels.items()]
    if isinstance(qrels, (list, tuple)):
        return [(os.path.basename(os.fspath(q)) if _is_path(q) else f"set{i + 1}", q) for i, q in enumerate(qrels)]
    return [(os.path.basename(os.fspath(qrels)) if _is_path(qrels) else "qrels", qrels)]


def _judgments(command: str, runs: Any, qrels: Any, **options: Any) -> Dict[str, Any]:
    data = _rankscope.Data()
    if runs is not None:
        for name, r in _models(runs):
            _add_run(data, name, r, {})
    sets = []
    for name, q in _sets(qrels):
        d = _rankscope.Data()
        _add_qrels(d, q, {})
        sets.append((name, d))
    conventions = options.pop("conventions", None) or {}
    doc = json.loads(data.judgments(command, sets, conventions=_conventions(conventions), **options))
    for w in doc.pop("load_warnings", []) + doc.get("warnings", []):
        _warnings.warn(w, stacklevel=3)
    return doc


def judgments_agree(a: Any, b: Any, relevance_level: int = 1) -> Dict[str, Any]:
    """How two judgment sets agree on the documents both judge, as ``rankscope
    judgments agree --format json``: Cohen's kappa on the labels binarised at
    ``relevance_level``, weighted kappa (linear, quadratic) and Krippendorff's
    alpha (ordinal, interval) on grades, the grade confusion matrix, each
    query's agreement, the share of each set's judgments the other does not
    make. ``a``, ``b``: qrels as ``evaluate`` takes them; ``{name: qrels}``
    names a set."""
    sets = _sets(a) + _sets(b)
    if len(sets) != 2:
        raise ValueError("judgments_agree: expected two judgment sets")
    if sets[0][0] == sets[1][0]:
        sets = [("a", sets[0][1]), ("b", sets[1][1])]
    return _judgments("agree", None, dict(sets), relevance_level=int(relevance_level))


def judgments_rankings(
    runs: Any,
    qrels: Mapping[str, Any],
    a: Optional[str] = None,
    b: Optional[str] = None,
    metric: Optional[str] = None,
    persistence: float = 0.9,
    resamples: int = 1000,
    seed: int = 42,
    alpha: float = 0.05,
    **conventions: Any,
) -> Dict[str, Any]:
    """The runs ordered by ``metric``'s mean (default nDCG@10) under judgment
    sets ``a`` and ``b`` of ``qrels={name: qrels}`` (default the first two),
    as ``rankscope judgments rankings --format json``: Kendall's tau_b, tau_AP
    (``a`` the reference), Spearman's rho and RBO_EXT at ``persistence``, each
    with a paired bootstrap 95% interval over queries (``resamples``,
    ``seed``), and the pairs of runs whose order flips with each side's paired
    t-test p (read at ``alpha``)."""
    return _judgments(
        "rankings", runs, qrels, a=a, b=b, metric=metric, persistence=float(persistence),
        resamples=int(resamples), seed=int(seed), alpha=float(alpha), conventions=conventions,
    )


def judgments_bounds(
    runs: Any,
    qrels: Any,
    judgments: Optional[str] = None,
    metrics: Union[None, str, Iterable[str]] = None,
    cutoffs: Optional[Iterable[int]] = None,
    grade: Optional[int] = None,
    baseline: Optional[str] = None,
    share: float = 0.5,
    per_query: bool = False,
    **conventions: Any,
) -> Dict[str, Any]:
    """Every metric of each run with its bounds under the set ``judgments``
    (default the first): unjudged retrieved documents taken as not relevant,
    and as relevant at ``grade`` (default the relevance level); Judged@k at
    each cutoff (per query with ``per_query``); a warning where a run's bound
    width exceeds ``share`` of its difference from ``baseline`` (default the
    first run). As ``rankscope judgments bounds --format json``."""
    return _judgments(
        "bounds", runs, qrels, judgments=judgments, metrics=_metric_list(metrics),
        cutoffs=None if cutoffs is None else [int(k) for k in cutoffs], grade=grade, baseline=baseline,
        share=float(share), per_query=bool(per_query), conventions=conventions,
    )


def judgments_pool(
    runs: Any,
    qrels: Any = None,
    judgments: Optional[str] = None,
    depth: int = 10,
    baseline: Optional[str] = None,
    out: Optional[PathLike] = None,
) -> Dict[str, Any]:
    """The depth-``depth`` pool of the runs that the set ``judgments``
    (default the first; none: every document) does not judge, in the order
    to judge it (``rule`` states the greedy rule), as ``rankscope judgments
    pool --format json``; ``pool_file`` is the pool as a TREC run file
    (``QID Q0 DOCNO RANK PRIORITY rankscope-pool``), written to ``out`` if given."""
    doc = _judgments("pool", runs, qrels, judgments=judgments, depth=int(depth), baseline=baseline)
    if out is not None:
        with open(out, "w") as f:
            f.write(doc["pool_file"])
    return doc


def judgments_merge(base: Any, new: Any, out: Optional[PathLike] = None, prefer: str = "base") -> Dict[str, Any]:
    """``new`` judgments merged into ``base``: every judgment of each, one per
    document; where they differ ``prefer``'s grade is kept and the pair listed
    under ``conflicts`` (nothing is replaced silently). ``qrels`` holds the
    merged TREC qrels, written to ``out`` if given."""
    if prefer not in ("base", "new"):
        raise ValueError(f"prefer={prefer!r}: expected 'base' or 'new'")
    sets = _sets(base) + _sets(new)
    if len(sets) != 2 or sets[0][0] == sets[1][0]:
        sets = [("base", sets[0][1]), ("new", sets[1][1])]
    doc = _judgments("merge", None, dict(sets), prefer_new=prefer == "new")
    if out is not None:
        with open(out, "w") as f:
            f.write(doc["qrels"])
    return doc
def fingerprint(metric: str, kind: str = "ranking", **conventions: Any) -> str:
    """The fingerprint of ``metric``'s definition (``ndcg@10``) under the
    conventions (keywords as ``evaluate`` takes them, ``preset=`` too): 12
    hexadecimal digits, the same as the CLI's JSON (``fingerprints``), the
    page's and a Spark job's for the same definition; it changes exactly when
    a convention that changes the metric does (README, *Presets*)."""
    return _rankscope.fingerprint(kind, metric, _conventions(conventions))


def presets() -> List[Tuple[str, str, str, str]]:
    """The presets ``preset=`` takes: ``(name, tool, version checked, what it
    changes)``; ``rankscope presets`` prints how each was checked."""
    return list(_rankscope.presets())
