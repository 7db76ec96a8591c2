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
(default: the suite's own, else 1, since Spark already runs one task per
core) sets the Rust threads per task.

A ``VARIANT`` column the suite reads (Spark 4's ``parse_json``) reaches
Arrow as its binary encoding; it is scored as the JSON text Spark's
``to_json`` gives it, and passed through as it was.
"""

from __future__ import annotations

from typing import Any, Optional

from ._columns import check_result_names, check_unique, read_columns
from ._evaluator import check_threads
from ._suite import Suite

#: Prefix of the columns holding a VARIANT column's JSON text while scoring.
_JSON_OF = "__refscore_json__"


def output_schema(df: Any, suite: Suite, *, keep_columns: bool = True) -> Any:
    """The Spark schema of :func:`score`'s result."""
    from pyspark.sql.types import DoubleType, StringType, StructField, StructType

    fields = list(df.schema.fields) if keep_columns else []
    for name, t in suite.result_columns():
        fields.append(StructField(name, DoubleType() if t == "double" else StringType(), True))
    return StructType(fields)


def score(df: Any, suite: Suite, *, keep_columns: bool = True, threads: Optional[int] = None) -> Any:
    """``df`` with the suite's result columns (see :class:`refscore.Suite`),
    computed lazily by ``df.mapInArrow``. What can be checked before any
    row runs is checked here, with ``ValueError`` (``threads``, a column
    read whose name the frame holds twice, an input column named like a
    result column), not in the executors."""
    threads = check_threads(threads)
    if threads is None:
        threads = suite.threads if suite.threads is not None else 1
    names = list(df.columns)
    read = read_columns(names, suite.evaluators)
    check_unique(names, read)
    if keep_columns:
        check_result_names(names, [n for n, _ in suite.result_columns()])
    schema = output_schema(df, suite, keep_columns=keep_columns)
    variants = [f.name for f in df.schema.fields if f.name in read and _is_variant(f.dataType)]
    if not variants:

        def score_partition(batches: Any) -> Any:
            for batch in batches:
                yield suite.score_batch(batch, keep_columns=keep_columns, threads=threads)

        return df.mapInArrow(score_partition, schema)

    from pyspark.sql import functions as F

    # Each VARIANT column read gets a JSON-text twin, scored under its
    # name; the twins are dropped and the frame's own columns kept.
    twins = {name: f"{_JSON_OF}{name}" for name in variants}
    with_twins = df.select("*", *[F.to_json(F.col(f"`{n}`")).alias(t) for n, t in twins.items()])

    def score_twins(batches: Any) -> Any:
        import pyarrow as pa

        for batch in batches:
            own = [n for n in batch.schema.names if not n.startswith(_JSON_OF)]
            scored = pa.RecordBatch.from_arrays(
                [batch.column(twins.get(n, n)) for n in own],
                names=own,
            )
            out = suite.score_batch(scored, keep_columns=False, threads=threads)
            kept = [batch.column(n) for n in own] if keep_columns else []
            fields = [batch.schema.field(n) for n in own] if keep_columns else []
            yield pa.RecordBatch.from_arrays(kept + out.columns, schema=pa.schema(fields + list(out.schema)))

    return with_twins.mapInArrow(score_twins, schema)


def _is_variant(t: Any) -> bool:
    """Whether a Spark type is ``VARIANT`` (Spark 4; none before)."""
    from pyspark.sql import types

    variant = getattr(types, "VariantType", None)
    return variant is not None and isinstance(t, variant)
