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
``to_json`` gives it, and passed through as it was. A column read that
holds a VARIANT inside it (a struct's field, an array's element) is
refused with ``ValueError``: select that part with ``to_json`` first. Column names holding
a dot, which Spark's ``mapInArrow`` cannot resolve, are renamed by
position on the way in and named again on the way out.
"""

from __future__ import annotations

from typing import Any, Optional

from ._columns import check_result_names, check_unique, read_columns
from ._suite import Suite

#: Prefix of the frame's columns, renamed by position, while scoring.
_COLUMN = "__refscore_column__"
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
    result column, and with ``keep_columns`` any name held twice, which
    mapInArrow cannot return), not in the executors."""
    threads = suite.task_threads(threads)
    names = list(df.columns)
    read = read_columns(names, suite.evaluators)
    check_unique(names, read)
    if keep_columns:
        check_result_names(names, [n for n, _ in suite.result_columns()])
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(
                f"the frame holds columns of one name twice ({', '.join(twice)}): Spark's mapInArrow cannot"
                " return them; rename them, or pass keep_columns=False"
            )
    schema = output_schema(df, suite, keep_columns=keep_columns)
    # The frame reaches mapInArrow with its columns renamed by position:
    # Spark's own mapInArrow cannot resolve a name holding a dot (nor one
    # held twice, which keep_columns=False allows), and the batches get
    # their names back before scoring.
    # Each VARIANT column read gets a JSON-text twin, scored in its place.
    from pyspark.sql import functions as F

    safe = [f"{_COLUMN}{i}" for i in range(len(names))]
    twins = {
        names[i]: f"{_JSON_OF}{i}"
        for i, f in enumerate(df.schema.fields)
        if names[i] in read and _is_variant(f.dataType)
    }
    for i, f in enumerate(df.schema.fields):
        if names[i] in read and names[i] not in twins and _holds_variant(f.dataType):
            raise ValueError(
                f"column `{names[i]}` holds a VARIANT inside it, which Spark hands over as its binary"
                f" encoding: select that part as JSON text first (`to_json`)"
            )
    prepared = df.toDF(*safe)
    if twins:
        prepared = prepared.select(
            "*", *[F.to_json(F.col(safe[names.index(n)])).alias(t) for n, t in twins.items()]
        )

    def score_partition(batches: Any) -> Any:
        import pyarrow as pa

        for batch in batches:
            columns = dict(zip(batch.schema.names, batch.columns))
            own = [columns[s] for s in safe]
            scored = pa.RecordBatch.from_arrays(
                [columns[twins[n]] if n in twins else c for n, c in zip(names, own)], names=names
            )
            out = suite.score_batch(scored, keep_columns=False, threads=threads)
            if not keep_columns:
                yield out
                continue
            fields = [batch.schema.field(s).with_name(n) for s, n in zip(safe, names)]
            yield pa.RecordBatch.from_arrays(own + out.columns, schema=pa.schema(fields + list(out.schema)))

    return prepared.mapInArrow(score_partition, schema)


def _is_variant(t: Any) -> bool:
    """Whether a Spark type is ``VARIANT`` (Spark 4; none before)."""
    from pyspark.sql import types

    variant = getattr(types, "VariantType", None)
    return variant is not None and isinstance(t, variant)


def _holds_variant(t: Any) -> bool:
    """Whether a Spark type is or holds ``VARIANT`` (Spark 4; none before),
    at any depth (a struct's field, an array's or a map's element)."""
    from pyspark.sql import types

    variant = getattr(types, "VariantType", None)
    if variant is None:
        return False
    stack = [t]
    while stack:
        t = stack.pop()
        if isinstance(t, variant):
            return True
        if isinstance(t, types.StructType):
            stack.extend(f.dataType for f in t.fields)
        elif isinstance(t, types.ArrayType):
            stack.append(t.elementType)
        elif isinstance(t, types.MapType):
            stack.extend([t.keyType, t.valueType])
    return False
