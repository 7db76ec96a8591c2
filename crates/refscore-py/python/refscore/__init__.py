"""refscore: score LLM outputs against golden references at Rust speed.

* :class:`Score`: one result (the same fields and JSON as the Rust library).
* :mod:`refscore.metrics`: every built-in metric as an evaluator evaluated
  in Rust; :class:`ClassificationEvaluator` for LLM judges.
* :func:`create_evaluator`: a Python function (sync or async) as an evaluator.
* :func:`bind_evaluator` / :meth:`Evaluator.bind`: input mapping by key,
  JSONPath or callable.
* :func:`evaluate_dataframe` / :func:`async_evaluate_dataframe`: pandas and
  polars DataFrames.
* :class:`Suite`: Arrow record batches in, Arrow out; :mod:`refscore.spark`
  and :mod:`refscore.ray` run it on a cluster.

The guide is ``docs/python.md`` in the repository.
"""

from . import metrics
from ._dataframe import async_evaluate_dataframe, evaluate_dataframe, scores_from_column
from ._evaluator import (
    ClassificationEvaluator,
    Evaluator,
    FunctionEvaluator,
    MetricEvaluator,
    bind_evaluator,
    create_evaluator,
    metric,
)
from ._refscore import __version__
from ._score import Score
from ._suite import Suite

__all__ = [
    "ClassificationEvaluator",
    "Evaluator",
    "FunctionEvaluator",
    "MetricEvaluator",
    "Score",
    "Suite",
    "__version__",
    "async_evaluate_dataframe",
    "bind_evaluator",
    "create_evaluator",
    "evaluate_dataframe",
    "metric",
    "metrics",
    "scores_from_column",
]
