"""Scoring a Spark DataFrame with :class:`refscore.Suite`, partition by
partition through ``mapInArrow``.

Example (Spark's Python workers must import refscore: they run
``PYSPARK_PYTHON``, by default the ``python3`` on the ``PATH``, so a
local session in a venv sets it to the interpreter running it)::

    import os, sys
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession
    import refscore, refscore.spark

    spark = SparkSession.builder.master("local[2]").getOrCreate()
    df = spark.read.parquet("pairs.parquet")          # columns output, expected
    suite = refscore.Suite([refscore.metrics.json_distance()])
    scored = refscore.spark.score(df, suite)
    scored.groupBy().avg("json_distance").show()

Each partition's Arrow batches are scored in Rust on the executor; the
suite is pickled to the executors and built there again. ``threads``
(default 1: Spark already runs one task per core) sets the Rust threads
per task.
"""

from __future__ import annotations

from typing import Any

from ._suite import Suite


def output_schema(df: Any, suite: Suite, *, keep_columns: bool = True) -> Any:
    """The Spark schema of :func:`score`'s result."""
    from pyspark.sql.types import DoubleType, StringType, StructField, StructType

    fields = list(df.schema.fields) if keep_columns else []
    for name, t in suite.result_columns():
        fields.append(StructField(name, DoubleType() if t == "double" else StringType(), True))
    return StructType(fields)


def score(df: Any, suite: Suite, *, keep_columns: bool = True, threads: int = 1) -> Any:
    """``df`` with the suite's result columns (see :class:`refscore.Suite`),
    computed lazily by ``df.mapInArrow``."""
    schema = output_schema(df, suite, keep_columns=keep_columns)

    def score_partition(batches: Any) -> Any:
        for batch in batches:
            yield suite.score_batch(batch, keep_columns=keep_columns, threads=threads)

    return df.mapInArrow(score_partition, schema)
