"""Scoring Arrow record batches: :class:`Suite`, the unit Spark and Ray ship
to their workers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Iterator, Optional, Sequence

from . import _refscore
from ._columns import check_arrow_depth, check_result_names, check_unique, column_indices, read_columns
from ._evaluator import MetricEvaluator, check_threads

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

#: The columns added per evaluator, after the input columns.
SUFFIXES = ("", "_label", "_explanation", "_error")


class Suite:
    """Built-in metrics (each with its bound input mapping) scored together
    over Arrow data, in Rust.

    A suite pickles as its metrics' names and options, so Spark and Ray
    can ship it to their workers, where it is built again.

    The result of :meth:`score_batch` holds the input columns (the same
    Arrow buffers, not copies; left out with ``keep_columns=False``), then
    four columns per evaluator: ``<name>`` (float64: the main score,
    null when there is none), ``<name>_label``, ``<name>_explanation``
    and ``<name>_error`` (text; the error is set when the evaluation
    failed for that row).

    >>> import pyarrow as pa, refscore
    >>> suite = refscore.Suite([refscore.metrics.json_distance()])
    >>> batch = pa.record_batch({"output": ['{"a": 1}'], "expected": ['{"a": 2}']})
    >>> suite.score_batch(batch).column("json_distance").to_pylist()
    [1.0]
    """

    def __init__(self, evaluators: Sequence[MetricEvaluator], *, threads: Optional[int] = None) -> None:
        evaluators = list(evaluators)
        if not evaluators:
            raise ValueError("a suite needs at least one evaluator")
        for e in evaluators:
            if not isinstance(e, MetricEvaluator):
                raise TypeError(f"a suite holds built-in metrics (refscore.metrics.*), got {e!r}")
            if any(callable(v) for v in e._mapping.values()):
                raise ValueError(
                    f"evaluator `{e.name}`: a suite over Arrow data maps inputs by column name or JSONPath, not callables"
                )
        names = [e.name for e in evaluators]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"evaluator names must be unique: {dupes}")
        self.evaluators = evaluators
        check_result_names([], [n for n, _ in self.result_columns()])
        self.threads = check_threads(threads)
        self._pairs = [(e._native, e._native_mapping()) for e in evaluators]

    def __reduce__(self) -> Any:
        return (Suite, (self.evaluators,), {"threads": self.threads})

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.threads = state.get("threads")

    @property
    def names(self) -> list[str]:
        """The evaluators' names, in order."""
        return [e.name for e in self.evaluators]

    def result_columns(self) -> list[tuple[str, str]]:
        """The added columns: (name, ``"double"`` or ``"string"``)."""
        out = []
        for name in self.names:
            for suffix in SUFFIXES:
                out.append((name + suffix, "double" if suffix == "" else "string"))
        return out

    def output_schema(self, input_schema: "pa.Schema", *, keep_columns: bool = True) -> "pa.Schema":
        """The schema of :meth:`score_batch`'s result for ``input_schema``."""
        import pyarrow as pa

        fields = list(input_schema) if keep_columns else []
        for name, t in self.result_columns():
            fields.append(pa.field(name, pa.float64() if t == "double" else pa.string()))
        return pa.schema(fields)

    def score_batch(self, batch: Any, *, keep_columns: bool = True, threads: Optional[int] = None) -> "pa.RecordBatch":
        """Scores one Arrow record batch (pyarrow, or anything with
        ``__arrow_c_array__``) and returns a pyarrow ``RecordBatch``.

        Only the columns the evaluators read reach Rust; the others are
        passed through untouched, whatever their type. ``ValueError``: a
        column read whose type is nested deeper than 64 levels, a column
        read whose name the batch holds twice, or (with ``keep_columns``)
        an input column named like a result column."""
        import pyarrow as pa

        threads = check_threads(threads)
        if not isinstance(batch, pa.RecordBatch):
            batch = pa.record_batch(batch)
        names = batch.schema.names
        read = read_columns(names, self.evaluators)
        check_unique(names, read)
        if keep_columns:
            check_result_names(names, [n for n, _ in self.result_columns()])
        check_arrow_depth(batch.schema, read)
        idx = column_indices(names, read)
        sub = pa.RecordBatch.from_arrays([batch.column(i) for i in idx], schema=pa.schema([batch.schema.field(i) for i in idx]))
        if sub.num_columns == 0:
            # No column read: the rows still count (each fails on its missing inputs).
            sub = pa.RecordBatch.from_arrays([pa.nulls(batch.num_rows)], names=["__refscore_rows__"])
        # Only the columns read reach Rust; an input not found lists them all.
        out = _refscore.score_arrow(self._pairs, sub, self.threads if threads is None else threads, False, list(names))
        if not keep_columns:
            return out
        schema = pa.schema(list(batch.schema) + list(out.schema), metadata=batch.schema.metadata)
        return pa.RecordBatch.from_arrays(batch.columns + out.columns, schema=schema)

    def task_threads(self, threads: Any) -> int:
        """The Rust threads of one Spark or Ray task: ``threads`` (checked:
        ``ValueError``), else the suite's own, else 1 (the cluster already
        runs one task per core)."""
        threads = check_threads(threads)
        if threads is None:
            return self.threads if self.threads is not None else 1
        return threads

    def score_batches(
        self, batches: Iterable[Any], *, keep_columns: bool = True, threads: Optional[int] = None
    ) -> Iterator["pa.RecordBatch"]:
        """Scores a stream of record batches, one result batch each (the
        shape of Spark's ``mapInArrow``)."""
        for batch in batches:
            yield self.score_batch(batch, keep_columns=keep_columns, threads=threads)

    def score_table(self, table: Any, *, keep_columns: bool = True, threads: Optional[int] = None) -> "pa.Table":
        """Scores a pyarrow ``Table`` (or anything ``pyarrow.table()``
        reads: a polars DataFrame, an Arrow stream) and returns a pyarrow
        ``Table``, whatever it was given (``polars.from_arrow`` makes it a
        polars DataFrame again)."""
        import pyarrow as pa

        if not isinstance(table, pa.Table):
            table = pa.table(table)
        schema = self.output_schema(table.schema, keep_columns=keep_columns)
        batches = [self.score_batch(b, keep_columns=keep_columns, threads=threads) for b in table.to_batches()]
        return pa.Table.from_batches(batches, schema=schema)

    def __repr__(self) -> str:
        return f"Suite({self.names!r})"
