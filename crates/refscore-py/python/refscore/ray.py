"""Scoring a Ray Dataset with :class:`refscore.Suite` through
``map_batches`` on Arrow batches.

Example::

    import ray, refscore, refscore.ray

    ds = ray.data.read_parquet("pairs.parquet")       # columns output, expected
    suite = refscore.Suite([refscore.metrics.json_distance()])
    scored = refscore.ray.score(ds, suite)
    print(scored.mean("json_distance"))

Each batch is scored in Rust in a Ray task; ``threads`` (default: the
suite's own, else 1, since Ray gives each task one CPU) sets the Rust
threads per task. Other keyword arguments go to ``map_batches``
(``batch_size``, ``concurrency``, ...; ``batch_format`` is ``pyarrow``).
"""

from __future__ import annotations

from typing import Any, Optional

from ._suite import Suite


def score(ds: Any, suite: Suite, *, keep_columns: bool = True, threads: Optional[int] = None, **map_batches_args: Any) -> Any:
    """``ds`` with the suite's result columns (see :class:`refscore.Suite`).
    ``threads`` is checked here (``ValueError``), not in the tasks."""
    if "batch_format" in map_batches_args:
        raise TypeError("refscore.ray.score reads Arrow batches: batch_format is `pyarrow` and cannot be given")
    threads = suite.task_threads(threads)

    def score_table(table: Any) -> Any:
        return suite.score_table(table, keep_columns=keep_columns, threads=threads)

    return ds.map_batches(score_table, batch_format="pyarrow", **map_batches_args)
