"""Evaluating pandas and polars DataFrames."""

from __future__ import annotations

import asyncio
import numbers
import contextlib
import gc
import json
import os
import re
import sys
import time
import warnings
from typing import Any, Iterator, Optional, Sequence

from . import _refscore
from ._columns import (
    MAX_ARROW_DEPTH,
    arrow_depth,
    check_result_names,
    check_unique,
    missing_inputs,
    read_columns,
    shown_columns,
)
from ._evaluator import (
    _CALLABLE_KEY,
    _callable_label,
    Evaluator,
    FunctionEvaluator,
    MetricEvaluator,
    call_source,
    check_threads,
    EvaluationThreads,
    evaluation_threads,
    is_missing,
)
from ._interrupt import _CtrlC, _done_first, _wind_down
from ._score import Score

_COMPLETED = "completed"
_COMPLETED_WITH_RETRIES = "completed with retries"
_FAILED = "failed"
_DID_NOT_RUN = "did not run"

#: phoenix-evals' progress bar format, with its title.
_BAR_FORMAT = (
    "Evaluating Dataframe |{bar}| {n_fmt}/{total_fmt} ({percentage:3.1f}%) | ⏳ {elapsed}<{remaining} | {rate_fmt}{postfix}"
)


class _Options:
    """phoenix-evals' executor settings, checked: ``exit_on_error``
    (default ``False`` here: a failing row never stops the frame) and
    ``max_retries`` (default 0: Python evaluators are not called again)."""

    def __init__(self, exit_on_error: Any, max_retries: Any) -> None:
        if exit_on_error is not None and not isinstance(exit_on_error, bool):
            raise TypeError(f"exit_on_error is True, False or None, got {exit_on_error!r}")
        if max_retries is not None and (
            isinstance(max_retries, bool) or not isinstance(max_retries, numbers.Integral) or max_retries < 0
        ):
            raise ValueError(f"max_retries must be a whole number ≥ 0 (or None), got {max_retries!r}")
        self.exit_on_error = bool(exit_on_error)
        self.max_retries = int(max_retries or 0)


class _Progress:
    """A tqdm progress bar over every (row, evaluator) evaluation, as
    phoenix-evals shows: when tqdm is installed and the bar is not hidden.
    Built-in metrics advance it by a whole column when their column is
    done; Python evaluators row by row."""

    def __init__(self, total: int, bar_format: Any, hide: Any) -> None:
        if bar_format is not None and not isinstance(bar_format, str):
            raise TypeError(f"tqdm_bar_format is a string or None, got {bar_format!r}")
        if hide is not None and not isinstance(hide, bool):
            raise TypeError(f"hide_tqdm_bar is True, False or None, got {hide!r}")
        self.bar: Any = None
        if hide or total == 0:
            return
        try:
            from tqdm.auto import tqdm
        except ImportError:
            return
        self.bar = tqdm(total=total, bar_format=bar_format or _BAR_FORMAT)

    def update(self, n: int = 1) -> None:
        if self.bar is not None and n:
            self.bar.update(n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Pauses the cyclic garbage collector while result columns are built:
    hundreds of thousands of new dicts would otherwise trigger collections
    that each walk every object alive (they hold no cycles)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _frame_kind(df: Any) -> str:
    """``"pandas"`` or ``"polars"`` for a DataFrame of either; a
    ``TypeError`` for anything else (a Series or a LazyFrame too)."""
    t = type(df)
    for cls in t.__mro__:  # a subclass of a DataFrame is one
        library = cls.__module__.split(".")[0]
        if library in ("pandas", "polars") and cls.__name__ == "DataFrame":
            return library
    lazy = t.__module__.startswith("polars") and t.__name__ == "LazyFrame"
    hint = " (call .collect() first)" if lazy else ""
    raise TypeError(f"evaluate_dataframe takes a pandas or polars DataFrame, got {t.__module__}.{t.__name__}{hint}")


def _records(df: Any, kind: str) -> list[dict[str, Any]]:
    if kind == "pandas":
        return df.to_dict("records")
    return df.to_dicts()


def _column(df: Any, kind: str, name: str) -> list[Any]:
    column = df[name]
    # A float32 column's values go as numpy float32 (a missing value as
    # NaN, which is missing too), read as the decimals written (0.1):
    # ``tolist`` would widen them (0.10000000149011612).
    if kind == "pandas":
        dtype = column.dtype
        if getattr(dtype, "kind", None) == "f" and getattr(dtype, "itemsize", None) == 4:
            return list(column.to_numpy(dtype="float32", na_value=float("nan")))
        return column.tolist()
    if str(column.dtype) == "Float32":
        return list(column.to_numpy())
    return column.to_list()


class _Results:
    """Result columns being gathered: per evaluator, its score names →
    values, and its execution details, one entry per row (``None`` for a
    row not yet run)."""

    def __init__(self, n: int, score_format: str) -> None:
        self.n = n
        self.json = score_format == "json"
        #: evaluator name → score name → one value per row.
        self.scores: dict[str, dict[str, list[Any]]] = {}
        self.executions: dict[str, list[Any]] = {}
        #: Evaluations failed so far (``exit_on_error`` stops at the first).
        self.failures = 0

    def add_native(self, scores: dict[str, list[Any]], executions: dict[str, list[Any]]) -> None:
        for name, values in scores.items():
            owner = _owner(name, executions)
            column = self.scores.setdefault(owner, {}).setdefault(name, [None] * self.n)
            for i, v in enumerate(values):
                if v is not None:
                    column[i] = v
        for details in executions.values():
            self.failures += sum(1 for d in details if d is not None and d.get("status") == _FAILED)
        for name, details in executions.items():
            column = self.executions.get(name)
            if column is None:
                self.executions[name] = list(details)
                continue
            for i, d in enumerate(details):
                if d is not None:
                    column[i] = d

    def put(
        self,
        i: int,
        ev: Evaluator,
        scores: Optional[list[Score]],
        seconds: float,
        error: Optional[str],
        retried: int = 0,
    ) -> None:
        converted: list[tuple[str, Any]] = []
        if not error:
            try:
                converted = [(s.name, s.to_json() if self.json else s.to_dict()) for s in scores or []]
            except (TypeError, ValueError) as e:
                # A score whose metadata has no JSON form fails its row alone.
                error, converted = f"{type(e).__name__}: {e}", []
        # Made at an evaluator's first row only: `setdefault` would build
        # (and drop) a list of n cells on every row, O(n²) over a frame.
        column = self.executions.get(ev.name)
        if column is None:
            column = self.executions[ev.name] = [None] * self.n
        self.failures += 1 if error else 0
        column[i] = {
            "status": _FAILED if error else _COMPLETED_WITH_RETRIES if retried else _COMPLETED,
            "duration_ms": seconds * 1000.0,
            "error": error,
        }
        own = self.scores.setdefault(ev.name, {})
        for name, value in converted:
            values = own.get(name)
            if values is None:
                values = own[name] = [None] * self.n
            values[i] = value

    def fail(self, i: int, name: str, error: str) -> None:
        """Marks row ``i`` of evaluator ``name`` failed and drops its scores."""
        self.failures += 1
        self.executions[name][i] = {"status": _FAILED, "duration_ms": 0.0, "error": error}
        for values in self.scores.get(name, {}).values():
            values[i] = None

    def merge(self, other: _Results) -> None:
        """Takes in the columns of ``other``, a built-in metrics' call
        gathered on its own (see ``async_evaluate_dataframe``), whose
        evaluators have none here."""
        for owner, columns in other.scores.items():
            self.scores.setdefault(owner, {}).update(columns)
        self.executions.update(other.executions)
        self.failures += other.failures

    def did_not_run(self, names: Sequence[str]) -> None:
        """Marks the rows of evaluators ``names`` that never ran (Ctrl-C,
        or ``exit_on_error`` after a failure, came first) ``did not run``.
        Up to a dict per row: built with the collector paused, as the
        result columns are (a Ctrl-C on a million rows waited seconds on
        the collections these dicts set off)."""
        with _gc_paused():
            for name in names:
                column = self.executions.setdefault(name, [None] * self.n)
                for i, d in enumerate(column):
                    if d is None or (d.get("status") == _FAILED and _never_asked(d.get("error"))):
                        column[i] = {"status": _DID_NOT_RUN, "duration_ms": 0.0, "error": None}


# The error of an evaluation the stop came before: a row not begun
# (``cancelled``), or one whose judge had not sent its request yet (a
# request given up in flight says ``cancelled with its request
# unanswered``, and stays failed).
_NEVER_ASKED = re.compile(r"(?:^|judge `[^`]*`: )cancelled\Z")


def _never_asked(error: Optional[str]) -> bool:
    """Whether ``error`` says the evaluation was stopped before it asked
    anything (see ``_NEVER_ASKED``)."""
    return error is not None and _NEVER_ASKED.search(error) is not None


def _owner(score_name: str, evaluators: Any) -> str:
    """The built-in evaluator a score name comes from: the one of that
    name, else the longest ``<evaluator>.`` prefix."""
    if score_name in evaluators:
        return score_name
    prefixes = [e for e in evaluators if score_name.startswith(e + ".")]
    return max(prefixes, key=len) if prefixes else score_name


def _first_row(values: list[Any]) -> int:
    return next((i for i, v in enumerate(values) if v is not None), len(values))


def _score_columns(
    inputs: Sequence[str], results: _Results, order: Sequence[Evaluator]
) -> list[tuple[str, list[Any]]]:
    """The score columns: ``(score name, values)``, each evaluator's in
    turn, with the rule for names two evaluators give (see
    ``docs/python.md``): each evaluator's own name, and every built-in
    metric's score, is that evaluator's; any other name is the first
    evaluator's (in the order given) to return it, and a later one's is
    renamed ``<evaluator>.<score>`` (``.2``, ``.3``, ... appended while
    that is taken too), with a warning. So is a name whose column an input
    column holds. Nothing already evaluated is lost."""
    names = {ev.name for ev in order}
    fixed: dict[str, str] = {ev.name: ev.name for ev in order}
    for ev in order:
        if isinstance(ev, MetricEvaluator):
            for score_name in results.scores.get(ev.name, {}):
                fixed[score_name] = ev.name
    blocked = {c[: -len("_score")] for c in inputs if c.endswith("_score")}
    used: dict[str, str] = {}
    out: list[tuple[str, list[Any]]] = []
    for ev in order:
        own = results.scores.get(ev.name, {})
        for score_name in sorted(own, key=lambda k: _first_row(own[k])):
            values = own[score_name]
            if fixed.get(score_name, ev.name) == ev.name and score_name not in used and score_name not in blocked:
                used[score_name] = ev.name
                out.append((score_name, values))
                continue
            if score_name in blocked:
                why = "is an input column"
            else:
                other = fixed.get(score_name) or used[score_name]
                why = f"holds evaluator `{other}`'s scores" if other in names else "holds another evaluator's scores"
            new, k = f"{ev.name}.{score_name}", 1
            while new in used or new in fixed or new in blocked:
                k += 1
                new = f"{ev.name}.{score_name}.{k}"
            used[new] = ev.name
            warnings.warn(
                f"evaluator `{ev.name}` returned a score named `{score_name}`, whose column `{score_name}_score` {why}:"
                f" its column is `{new}_score`",
                UserWarning,
                stacklevel=_stacklevel(),
            )
            out.append((new, _renamed(values, new, results.json)))
    return out


def _renamed(values: list[Any], name: str, as_json: bool) -> list[Any]:
    """Score values (dicts or JSON text) with their ``name`` set to ``name``."""
    out: list[Any] = []
    for v in values:
        if v is None:
            out.append(None)
        elif as_json:
            d = json.loads(v)
            d["name"] = name
            out.append(Score.from_dict(d).to_json())
        else:
            out.append({**v, "name": name})
    return out


def _run_native(
    df: Any,
    kind: str,
    evaluators: Sequence[MetricEvaluator],
    records: Optional[list[dict[str, Any]]],
    results: _Results,
    threads: Optional[int],
    stop: Optional[_refscore.Stop] = None,
    exit_on_error: bool = False,
) -> None:
    """Runs the built-in evaluators over the frame in Rust; ``stop``, when
    stopped from another thread, ends the call early (it then raises
    ``RuntimeError``). With ``exit_on_error`` a failed evaluation starts
    no other row (those fail as ``cancelled``: ``did not run``)."""
    if not evaluators:
        return
    n = results.n
    columns: dict[str, list[Any]] = {}
    pairs: list[tuple[Any, Any]] = []
    callable_errors: list[tuple[str, int, str]] = []
    labels: dict[str, str] = {}
    for j, ev in enumerate(evaluators):
        keys: dict[str, str] = {}
        for name, source in ev._mapping.items():
            if callable(source):
                key = f"{_CALLABLE_KEY}{j}_{name}"
                values: list[Any] = []
                for i, rec in enumerate(records or []):
                    if stop is not None and stop.stopped:
                        # Python code, which `stop` reaches only here.
                        raise RuntimeError("the evaluation was stopped")
                    try:
                        values.append(call_source(source, rec))
                    except Exception as e:  # a failing row never stops the frame
                        values.append(None)
                        callable_errors.append((ev.name, i, f"input `{name}`: {type(e).__name__}: {e}"))
                columns[key] = values
                keys[name] = key
                labels[key] = _callable_label(name)
        pairs.append((ev._native, ev._native_mapping(keys)))
    needed = read_columns(list(df.columns), evaluators)
    # Only the columns read are converted; an input not found lists them all.
    every = [c for c in df.columns if isinstance(c, str)]
    fmt = "json" if results.json else "dict"
    batches = _arrow_batches(df, kind, needed) if not columns and needed else []
    with _gc_paused():
        try:
            if batches:
                # polars columns reach Rust as Arrow buffers, without Python objects.
                scores, executions = _refscore.evaluate_arrow(
                    pairs, batches, threads, fmt, stop, every, exit_on_error=exit_on_error
                )
            else:
                for c in needed:
                    columns[c] = _column(df, kind, c)
                scores, executions = _refscore.evaluate_columns(
                    pairs, columns, n, threads, fmt, stop, every, labels, exit_on_error=exit_on_error
                )
        except BaseException as e:
            # Stopped (Ctrl-C): the rows finished before it come with it.
            partial = getattr(e, "refscore_partial", None)
            if partial is not None:
                results.add_native(*partial)
            raise
    results.add_native(scores, executions)
    for name, i, error in callable_errors:
        results.fail(i, name, error)


def _arrow_batches(df: Any, kind: str, needed: list[str]) -> list[Any]:
    """The needed columns as Arrow record batches, when they can reach Rust
    that way without converting cells: every polars frame, and pandas
    frames whose needed columns are all string columns (pyarrow-backed in
    pandas 3: no copy, and no UTF-8 encoding of Python strings).

    A polars column with no Arrow form Rust reads (``Object``, 128-bit
    integers) or nested deeper than Arrow's import takes sends the
    columns through their Python values instead, where a cell with no JSON
    form fails its row alone."""
    if kind == "polars":
        if any(str(df.schema[c]).startswith(("Object", "Int128", "UInt128")) for c in needed):
            return []
        try:
            table = df.select(needed).to_arrow()
        except Exception:  # no Arrow form: the Python values say which row fails
            return []
        if any(arrow_depth(f.type) > MAX_ARROW_DEPTH for f in table.schema):
            return []
        return table.to_batches()
    try:
        import pyarrow as pa
        from pandas.api.types import is_string_dtype
    except ImportError:
        return []
    if not all(df[c].dtype != object and is_string_dtype(df[c].dtype) for c in needed):
        return []
    table = pa.Table.from_pandas(df[needed], preserve_index=False)
    return table.to_batches()


def _split(evaluators: Sequence[Evaluator]) -> tuple[list[MetricEvaluator], list[Evaluator]]:
    if isinstance(evaluators, Evaluator):
        evaluators = [evaluators]
    # Any iterable, a generator included: it is read more than once below.
    evaluators = list(evaluators)
    for e in evaluators:
        if not isinstance(e, Evaluator):
            raise TypeError(f"not an evaluator: {e!r}")
    names = [e.name for e in evaluators]
    dupes = {n for n in names if names.count(n) > 1}
    if dupes:
        raise ValueError(f"evaluator names must be unique (their execution columns would collide): {sorted(dupes)}")
    native = [e for e in evaluators if isinstance(e, MetricEvaluator)]
    python = [e for e in evaluators if not isinstance(e, MetricEvaluator)]
    return native, python


def _check_frame(df: Any, native: Sequence[MetricEvaluator], python: Sequence[Evaluator]) -> None:
    """Before any evaluation: the columns read are unique, and the result
    columns known now (execution details, main scores) take no input
    column's name. A required input no column of the frame holds is
    warned about (every row will fail on it, as in phoenix-evals)."""
    columns = list(df.columns)
    check_unique(columns, read_columns(columns, [*native, *python]))
    if len(df):
        _warn_missing_inputs(columns, [*native, *python])
    columns = [c for c in columns if isinstance(c, str)]
    results = [f"{ev.name}_execution_details" for ev in [*native, *python]]
    results += [f"{ev.name}_score" for ev in [*native, *python]]
    extras = {m["name"]: m["extra_scores"] for m in _refscore.registry()}
    results += [f"{ev.name}.{x}_score" for ev in native for x in extras.get(ev.metric, [])]
    check_result_names(columns, results)


# Frames of refscore's own package and of asyncio: a warning is shown
# at the first frame outside them, the user's call (also when the
# coroutine runs under ``asyncio.run``, whose frames lie between).
_OWN_FRAMES = (os.path.dirname(os.path.abspath(__file__)) + os.sep, os.path.dirname(asyncio.__file__) + os.sep)


def _stacklevel() -> int:
    """The ``stacklevel`` for ``warnings.warn`` called by this function's
    caller that points at the first frame outside refscore and asyncio."""
    frame = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(_OWN_FRAMES):
        frame = frame.f_back
        level += 1
    return level if frame is not None else 1


def _warn_missing_inputs(columns: list[Any], evaluators: Sequence[Evaluator]) -> None:
    """One ``UserWarning`` per required input that no column of the frame
    holds, before any row runs: the rows still run and each fails on it
    (the frame completes, as phoenix-evals' does), but a frame of ``None``
    scores no longer comes back unexplained."""
    listed = shown_columns([c if isinstance(c, str) else repr(c) for c in columns])
    # A mapping names a column by a string: a label that is not one (a
    # frame built from lists has 0, 1, ...) is read by a callable only.
    unnamed = [repr(c) for c in columns if not isinstance(c, str)]
    if unnamed:
        listed += (
            f"; labels that are not strings ({shown_columns(unnamed)}) are read only by a callable"
            " mapping: rename them with `df.columns = df.columns.map(str)`"
        )
    for ev, name, source in missing_inputs(columns, evaluators):
        if source is None:
            also = " (nor `expected`)" if name == "reference" else ""
            what = f"the frame has no column `{name}`{also} for its required input `{name}`"
        else:
            what = f"its required input `{name}` is mapped to `{source}`, which reads no column of the frame"
        warnings.warn(
            f"evaluator `{ev.name}`: {what}, so every row will fail (the frame's columns: {listed});"
            f" map the input to a column: `evaluator.bind({{{name!r}: '<column>'}})`",
            UserWarning,
            stacklevel=_stacklevel(),
        )


def _output(df: Any, kind: str, results: _Results, order: Sequence[Evaluator]) -> Any:
    names: list[tuple[str, list[Any], str]] = []
    for ev in order:
        details = results.executions.get(ev.name, [None] * results.n)
        names.append((f"{ev.name}_execution_details", details, "exec"))
    inputs = [c for c in df.columns if isinstance(c, str)]
    for score_name, values in _score_columns(inputs, results, order):
        names.append((f"{score_name}_score", values, "score"))
    # An evaluator that gave no score on any row (every row failed, or no
    # rows) still has its score column, all None: code reading
    # `out["<name>_score"]` never meets a KeyError.
    for ev in order:
        if not results.scores.get(ev.name):
            names.append((f"{ev.name}_score", [None] * results.n, "score"))
    # Checked before any row ran; checked again, as a last guard.
    check_result_names([str(c) for c in df.columns], [n for n, _, _ in names])
    if kind == "pandas":
        import pandas as pd

        out = df.copy()
        for column, values, _ in names:
            out[column] = pd.Series(values, index=out.index, dtype=object)
        return out
    import polars as pl

    series = []
    for column, values, what in names:
        if what == "exec":
            dtype = pl.Struct({"status": pl.Utf8, "duration_ms": pl.Float64, "error": pl.Utf8})
            series.append(pl.Series(column, values, dtype=dtype))
        elif results.json:
            series.append(pl.Series(column, values, dtype=pl.Utf8))
        else:
            series.append(pl.Series(column, values, dtype=pl.Object))
    return df.with_columns(series)


def _score_format(kind: str, score_format: Optional[str]) -> str:
    fmt = score_format or ("dict" if kind == "pandas" else "json")
    if fmt not in ("dict", "json"):
        raise ValueError(f"score_format is 'dict' or 'json', got {fmt!r}")
    return fmt


def _run_python_row(
    ev: Evaluator, row: dict[str, Any], retries: int
) -> tuple[Optional[list[Score]], float, Optional[str], int]:
    """Evaluates one row, called again up to ``retries`` times while it
    raises: the scores (``None`` when every attempt failed), the seconds
    taken by all attempts, the last attempt's error and the attempts
    retried."""
    t0 = time.perf_counter()
    error = None
    for attempt in range(retries + 1):
        try:
            scores = ev.evaluate(row)
            return scores, time.perf_counter() - t0, None, attempt
        except Exception as e:  # a failing row never stops the frame
            error = f"{type(e).__name__}: {e}"
    return None, time.perf_counter() - t0, error, retries


def evaluate_dataframe(
    dataframe: Any,
    evaluators: Sequence[Evaluator],
    *,
    threads: Optional[int] = None,
    score_format: Optional[str] = None,
    exit_on_error: Optional[bool] = None,
    max_retries: Optional[int] = None,
    tqdm_bar_format: Optional[str] = None,
    hide_tqdm_bar: Optional[bool] = False,
) -> Any:
    """Runs every evaluator over every row of a pandas or polars DataFrame.

    Returns a copy of the frame with, per evaluator,
    ``{evaluator}_execution_details`` (``status`` ``completed``/``failed``,
    ``duration_ms``, ``error``) and, per score name, ``{score}_score``:
    the score as a dict (``Score.to_dict()``; the default for pandas) or
    as JSON text (``score_format="json"``; the default for polars), or
    ``None`` where the evaluation failed. A failing row never stops the
    frame.

    Built-in metrics run over the whole column in Rust threads (``threads``,
    default one per core) with the interpreter released; Python
    evaluators run row by row. An ``async`` evaluator raises
    ``TypeError`` before any row is evaluated: use
    :func:`async_evaluate_dataframe`.

    phoenix-evals' executor settings: ``exit_on_error=True`` starts no
    evaluation once one has failed (those not run get the status ``did
    not run``; built-in metrics' rows already running finish);
    ``max_retries=N`` calls a raising Python evaluator up to N more times
    (status ``completed with retries`` when a later call succeeds). A
    progress bar over every evaluation is shown when ``tqdm`` is
    installed, unless ``hide_tqdm_bar=True``; ``tqdm_bar_format`` sets
    its format.

    On Ctrl-C the ``KeyboardInterrupt`` raised carries the frame of the
    rows finished so far as its ``partial_result`` attribute: the rows
    that never ran have the status ``did not run`` and no score.
    """
    kind = _frame_kind(dataframe)
    threads = check_threads(threads)
    opts = _Options(exit_on_error, max_retries)
    native, python = _split(evaluators)
    for ev in python:
        if isinstance(ev, FunctionEvaluator) and ev.is_async:
            raise TypeError(f"evaluator `{ev.name}` is async: evaluate the frame with async_evaluate_dataframe")
    _check_frame(dataframe, native, python)
    n = len(dataframe)
    results = _Results(n, _score_format(kind, score_format))
    order = list(native) + list(python)
    bar = _Progress(n * len(order), tqdm_bar_format, hide_tqdm_bar)
    try:
        needs_records = bool(python) or any(callable(s) for e in native for s in e._mapping.values())
        records = _records(dataframe, kind) if needs_records else None
        _run_native(dataframe, kind, native, records, results, threads, exit_on_error=opts.exit_on_error)
        bar.update(n * len(native))
        for ev in python:
            for i, row in enumerate(records or []):
                if opts.exit_on_error and results.failures:
                    break
                scores, seconds, error, retried = _run_python_row(ev, row, opts.max_retries)
                results.put(i, ev, scores, seconds, error, retried)
                bar.update()
        if opts.exit_on_error and results.failures:
            results.did_not_run([ev.name for ev in order])
    except KeyboardInterrupt as e:
        _keep_partial(e, dataframe, kind, results, order)
        raise
    finally:
        bar.close()
    with _gc_paused():
        return _output(dataframe, kind, results, order)


def _keep_partial(e: BaseException, df: Any, kind: str, results: _Results, order: Sequence[Evaluator]) -> None:
    """Sets ``e.partial_result``: the frame of the rows finished, the
    others marked ``did not run`` (best effort: the interrupt is raised
    whatever happens here)."""
    try:
        results.did_not_run([ev.name for ev in order])
        with _gc_paused():
            e.partial_result = _output(df, kind, results, order)  # type: ignore[attr-defined]
    except Exception:  # pragma: no cover - the interrupt matters more
        pass


def _asks_judge(ev: MetricEvaluator) -> bool:
    """Whether a built-in metric may ask an LLM judge."""
    return ev.kind == "llm" or ev._native.judge is not None


async def async_evaluate_dataframe(
    dataframe: Any,
    evaluators: Sequence[Evaluator],
    *,
    concurrency: Optional[int] = None,
    threads: Optional[int] = None,
    score_format: Optional[str] = None,
    exit_on_error: Optional[bool] = None,
    max_retries: Optional[int] = None,
    tqdm_bar_format: Optional[str] = None,
    hide_tqdm_bar: Optional[bool] = False,
) -> Any:
    """As :func:`evaluate_dataframe`, awaitable: Python evaluators run with
    at most ``concurrency`` evaluations in flight (``async`` functions are
    awaited, sync ones run on worker threads); built-in metrics run in Rust
    threads meanwhile.

    ``concurrency`` given caps the built-in judges too: their rows (each
    asks one request at a time) run on at most ``concurrency`` threads,
    and while they run they hold the whole budget, so that Python
    evaluations and judge requests together never exceed it (a judge's
    own ``max_concurrency`` still applies when lower). Left ``None``,
    Python evaluators get 3 and each judge its ``max_concurrency``.

    ``exit_on_error``, ``max_retries``, ``tqdm_bar_format`` and
    ``hide_tqdm_bar`` are as in :func:`evaluate_dataframe`; here a Python
    evaluation that fails under ``exit_on_error=True`` also stops the
    built-in metrics' rows not yet started, and a built-in row that fails
    (a judge that failed) stops the rest, Python evaluations included.

    On Ctrl-C the ``KeyboardInterrupt`` raised carries the frame of the
    rows finished so far as its ``partial_result`` attribute, as in
    :func:`evaluate_dataframe`, under ``asyncio.run`` and with ``await``
    in a notebook alike: where it can (awaited on the main thread, on a
    loop that takes signal handlers: not on Windows), the call hears
    Ctrl-C itself while it runs, and puts the handler in place before
    back when it returns. It then cancels the Python evaluations in
    flight, stops the built-in rows (those not started are skipped, a
    judge's request in flight is given up after about 2 s) and waits for
    the rows they finished. Another Ctrl-C meanwhile stops the wait for
    Python evaluations that ignore being cancelled, not for the built-in
    rows (at most those 2 s).

    Cancelled (``task.cancel()``, ``asyncio.wait_for``'s timeout, or
    Ctrl-C where the call cannot hear it: asyncio.run cancels the task),
    the call winds down the same way and the ``CancelledError`` it raises
    carries ``partial_result`` (best effort): asyncio.run's own
    ``KeyboardInterrupt`` then has it as its ``__context__``. There a
    second Ctrl-C is asyncio.run's: a ``KeyboardInterrupt`` at once,
    without the rows.
    """
    if concurrency is not None and (
        isinstance(concurrency, bool) or not isinstance(concurrency, numbers.Integral) or concurrency < 1
    ):
        raise ValueError(f"concurrency must be a whole number ≥ 1 (or None), got {concurrency!r}")
    kind = _frame_kind(dataframe)
    threads = check_threads(threads)
    opts = _Options(exit_on_error, max_retries)
    native, python = _split(evaluators)
    _check_frame(dataframe, native, python)
    n = len(dataframe)
    fmt = _score_format(kind, score_format)
    results = _Results(n, fmt)
    order = list(native) + list(python)
    bar = _Progress(n * len(order), tqdm_bar_format, hide_tqdm_bar)
    needs_records = bool(python) or any(callable(s) for e in native for s in e._mapping.values())
    records = _records(dataframe, kind) if needs_records else None
    slots = 3 if concurrency is None else int(concurrency)
    judged = [e for e in native if _asks_judge(e)] if concurrency is not None else []
    code = [e for e in native if e not in judged]
    gate = asyncio.Semaphore(slots)
    # The built-in rows run on worker threads, which no signal reaches:
    # on Ctrl-C, or when this task is cancelled, `stop` ends them, so that
    # their finished rows come back soon and the loop's shutdown does not
    # wait for every row.
    stop = _refscore.Stop()

    async def native_column(evs: list[MetricEvaluator], cap: Optional[int]) -> None:
        # Its own results, taken in on the loop's thread once the call has
        # returned: a call still stopping when the frame gives up on it
        # (the task cancelled again while it winds down) never writes into
        # the partial frame being built.
        own = _Results(n, fmt)
        try:
            await asyncio.to_thread(_run_native, dataframe, kind, evs, records, own, cap, stop, opts.exit_on_error)
        except Exception:
            results.merge(own)  # stopped: the rows finished before it
            raise
        results.merge(own)
        bar.update(n * len(evs))
        if halted():
            # A failed row here stops the other column's rows not yet started.
            stop.stop()

    async def judges() -> None:
        # Every slot, taken at once (before any Python evaluation starts:
        # this task runs first): judge requests and Python evaluations
        # never exceed `concurrency` together.
        for _ in range(slots):
            await gate.acquire()
        try:
            await native_column(judged, slots if not threads else min(threads, slots))
        finally:
            for _ in range(slots):
                gate.release()

    native_tasks = []
    if judged:
        native_tasks.append(asyncio.create_task(judges()))
    native_tasks.append(asyncio.create_task(native_column(code, threads)))
    # Awaited through `asyncio.wait`, never directly: cancelling this task
    # must not cancel them (their thread would run on, its rows lost).
    natives = asyncio.gather(*native_tasks, return_exceptions=True)

    def halted() -> bool:
        return opts.exit_on_error and results.failures > 0

    async def one(i: int, ev: Evaluator, row: dict[str, Any]) -> None:
        async with gate:
            if halted():
                return
            t0 = time.perf_counter()
            scores: Optional[list[Score]] = None
            error, retried = None, 0
            for attempt in range(opts.max_retries + 1):
                try:
                    scores = await ev.async_evaluate(row)
                    error, retried = None, attempt
                    break
                except Exception as e:  # a failing row never stops the frame
                    error, retried = f"{type(e).__name__}: {e}", attempt
            results.put(i, ev, scores, time.perf_counter() - t0, error, retried)
            bar.update()
            if halted():
                # The built-in rows not yet started are not started.
                stop.stop()

    # Synchronous Python evaluations run on a pool of `slots` threads of
    # their own (the loop's default pool would cap them at its size, six
    # on two cores, whatever `concurrency` says); the rows' tasks take the
    # pool from their context, copied as they are made.
    pool = EvaluationThreads(slots) if python else None
    token = evaluation_threads.set(pool)
    try:
        rows = asyncio.gather(*(one(i, ev, row) for ev in python for i, row in enumerate(records or [])))
    finally:
        evaluation_threads.reset(token)
    ctrl_c = _CtrlC(asyncio.get_running_loop())
    try:
        ctrl_c.install()
        try:
            ctrl_c_heard = ctrl_c.next()
            if not await _done_first(rows, ctrl_c_heard) or not await _done_first(natives, ctrl_c_heard):
                raise KeyboardInterrupt  # Ctrl-C, heard by the loop
            rows.result()
            for task in native_tasks:
                try:
                    task.result()
                except RuntimeError:
                    # Stopped by a failure under exit_on_error: the rows it
                    # finished are kept (`_run_native`), the others did not run.
                    if not halted():
                        raise
        except BaseException as e:
            stop.stop()
            rows.cancel()
            rows.add_done_callback(lambda f: f.cancelled() or f.exception())
            if isinstance(e, (KeyboardInterrupt, asyncio.CancelledError)):
                await _wind_down(rows, natives, ctrl_c)
                _keep_partial(e, dataframe, kind, results, order)
            raise
    finally:
        ctrl_c.remove()
        bar.close()
        if pool is not None:
            pool.close()
    if halted():
        results.did_not_run([ev.name for ev in order])
    return _output(dataframe, kind, results, order)


def scores_from_column(values: Sequence[Any]) -> list[Optional[Score]]:
    """The :class:`Score` objects of a ``{score}_score`` column (dicts or
    JSON text; a missing cell, ``None``, NaN or ``pd.NA`` as a CSV or
    Parquet round trip leaves a failed row's, is ``None``)."""
    out: list[Optional[Score]] = []
    for v in values:
        if is_missing(v):
            out.append(None)
        elif isinstance(v, str):
            out.append(Score.from_dict(json.loads(v)))
        else:
            out.append(Score.from_dict(v))
    return out
