"""Scoring a Ray Dataset with :class:`refscore.Suite` through
``map_batches`` on Arrow batches.

Example::

    import ray, refscore, refscore.ray

    ds = ray.data.read_parquet("pairs.parquet")       # columns output, expected
    suite = refscore.Suite([refscore.metrics.json_distance()])
    scored = refscore.ray.score(ds, suite)
    print(scored.mean("json_distance"))

Each batch is scored in Rust in a Ray task; ``threads`` (default 1: Ray
gives each task one CPU) sets the Rust threads per task. Other keyword
arguments go to ``map_batches`` (``batch_size``, ``concurrency``, ...).
"""

from __future__ import annotations

from typing import Any

from ._suite import Suite


def score(ds: Any, suite: Suite, *, keep_columns: bool = True, threads: int = 1, **map_batches_args: Any) -> Any:
    """``ds`` with the suite's result columns (see :class:`refscore.Suite`)."""

    def score_table(table: Any) -> Any:
        return suite.score_table(table, keep_columns=keep_columns, threads=threads)

    return ds.map_batches(score_table, batch_format="pyarrow", **map_batches_args)
