"""Evaluators: the base class, built-in metrics run in Rust, Python functions
turned into evaluators, and input mapping."""

from __future__ import annotations

import asyncio
import contextvars
import copy
import functools
import decimal
import inspect
import math
import numbers
import sys
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import Any, Awaitable, Callable, Mapping, Optional, Sequence, Union

from . import _refscore
from ._columns import _first_key, path_reads, read_columns
from ._score import Score, check_direction, normalize_kind

#: One source of an evaluator input: a key, a JSONPath, or a callable.
Source = Union[str, Callable[..., Any]]
#: Evaluator input name → source.
InputMapping = Mapping[str, Source]

_CALLABLE_KEY = "__refscore_input__"


def _callable_label(name: str) -> str:
    """How an error names the value an input's mapping function returned
    (kept under an internal key the user never wrote)."""
    return f"input `{name}` (the value its function returned)"


class EvaluationThreads:
    """A pool of threads for the synchronous evaluations one call awaits
    on one event loop (a frame's ``concurrency``: the loop's default pool
    has min(32, cores + 4) threads, six on two cores, whatever the frame
    asked for)."""

    def __init__(self, threads: int) -> None:
        self.loop = asyncio.get_running_loop()
        self.pool: Executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="refscore-eval")
        self.open = True

    def close(self) -> None:
        """Takes no more work; a thread still running a user's function is
        not waited for."""
        self.open = False
        self.pool.shutdown(wait=False, cancel_futures=True)


# The pool a synchronous evaluation awaited from a coroutine runs on: the
# loop's default executor (``asyncio.to_thread``) unless a caller set its
# own here, for its loop.
evaluation_threads: contextvars.ContextVar[Optional[EvaluationThreads]] = contextvars.ContextVar(
    "refscore_evaluation_threads", default=None
)


async def in_thread(func: Callable[..., Any], *args: Any) -> Any:
    """``func(*args)`` on a worker thread, with this context's variables,
    as ``asyncio.to_thread`` runs it; on :data:`evaluation_threads` when
    set for this loop and still open. The function itself runs without
    it: an evaluation that runs a loop of its own (``asyncio.run`` inside
    a synchronous evaluator) or a frame of its own does not queue behind
    the threads it holds."""
    threads = evaluation_threads.get()
    if threads is None or not threads.open or threads.loop is not asyncio.get_running_loop():
        return await asyncio.to_thread(func, *args)
    context = contextvars.copy_context()
    context.run(evaluation_threads.set, None)
    call = functools.partial(context.run, func, *args)
    return await threads.loop.run_in_executor(threads.pool, call)


class Evaluator:
    """Anything that turns one row (a dict) into a list of :class:`Score`.

    Subclasses implement :meth:`_evaluate` (and may implement
    :meth:`_async_evaluate`). An evaluator reads named inputs; an
    ``input_mapping`` says where each comes from in the row:

    * a string: the key of that name when the row has it, else a JSONPath
      (``"output.answer"``, ``"input.documents[-1]"``, ``"$.a.b"``; the
      first match is used);
    * a callable: with one parameter it receives the whole row, with
      several they are filled from the row's keys of the same names.

    Inputs without a mapping read the key of their own name. A required
    input that is missing, ``None``, NaN (``pd.NA``, ``pd.NaT``, numpy's NaN
    and NaT too) or a blank string makes the evaluation fail with
    ``ValueError``; an optional one that is missing is left out of the
    inputs (a function's parameter then takes its default).

    ``input_schema`` is a JSON Schema dict (``properties``, ``required``)
    or a pydantic model class (its ``model_json_schema()``; inputs are
    then validated by the model, as phoenix-evals does). Without one, as
    in phoenix-evals, the mapping's keys are the required inputs, and the
    row's other keys are passed too (but not the keys a mapping reads);
    with no mapping either, :meth:`_evaluate` receives the whole row.

    :meth:`_evaluate` returns a :class:`Score` or a list of them.
    """

    def __init__(
        self,
        *,
        name: str,
        kind: str = "code",
        direction: str = "maximize",
        input_schema: Any = None,
        input_mapping: Optional[InputMapping] = None,
    ) -> None:
        self.name = check_name(name)
        self.kind = normalize_kind(kind)
        self.direction = check_direction(direction)
        if input_schema is None:
            # A phoenix-style subclass may declare it on the class.
            input_schema = getattr(type(self), "input_schema", None)
        self._model, self.input_schema, self._schemaless = _schema(input_schema)
        self._mapping: dict[str, Source] = {}
        self._compiled: Optional[_refscore.Mapping] = None
        if input_mapping:
            self._set_mapping(input_mapping)

    # -- mapping -----------------------------------------------------------
    def _set_mapping(self, mapping: InputMapping) -> None:
        checked = self._checked_mapping(mapping)
        strings = {k: v for k, v in checked.items() if isinstance(v, str)}
        # Compiling checks every path now, not on every row.
        self._compiled = _refscore.Mapping(strings) if strings else None
        self._mapping = checked

    def _checked_mapping(self, mapping: InputMapping) -> dict[str, Source]:
        """``mapping`` checked: input names (str) to sources (a string or
        a callable), naming only inputs the evaluator takes."""
        if not isinstance(mapping, Mapping):
            raise TypeError(f"an input mapping is a dict of input name to source, got {type(mapping).__name__}")
        checked: dict[str, Source] = {}
        for field, source in mapping.items():
            if not isinstance(field, str):
                raise TypeError(f"mapping keys must be input names (str), got {field!r}")
            if not (isinstance(source, str) or callable(source)):
                raise TypeError(
                    f"input `{field}`: a source is a key, a JSONPath string or a callable, got {type(source).__name__}"
                )
            checked[field] = source
        self._check_inputs(checked)
        return checked

    def _check_inputs(self, mapping: Mapping[str, Any]) -> None:
        """Refuses a mapping that names an input the evaluator does not
        take (a typo would otherwise be ignored, and the input it meant
        read from its default key). An evaluator without a schema takes
        the inputs its mapping names."""
        if self._no_schema():
            return
        names = [n for n, _ in self._fields()]
        unknown = [k for k in mapping if k not in names]
        if unknown:
            listed = ", ".join(f"`{k}`" for k in unknown)
            takes = f"its inputs: {', '.join(names)}" if names else "it takes no inputs"
            raise ValueError(f"evaluator `{self.name}` has no input {listed}; {takes}")

    def __getstate__(self) -> dict[str, Any]:
        # The compiled paths are Rust objects: pickled as the mapping's
        # text and compiled again when loaded.
        state = self.__dict__.copy()
        state["_compiled"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._set_mapping(self._mapping)

    def __copy__(self) -> "Evaluator":
        # A shallow copy of the same class (a subclass stays one), sharing
        # what the evaluator was built with: bind() then sets a mapping of
        # its own on the copy.
        cls = type(self)
        new = cls.__new__(cls)
        new.__dict__.update(self.__dict__)
        # A subclass's slots too, where it declares any.
        for klass in cls.__mro__:
            slots = getattr(klass, "__slots__", ())
            for slot in [slots] if isinstance(slots, str) else slots:
                if slot not in ("__dict__", "__weakref__") and hasattr(self, slot):
                    setattr(new, slot, getattr(self, slot))
        return new

    @property
    def input_mapping(self) -> dict[str, Source]:
        """The bound input mapping (input name → source)."""
        return dict(self._mapping)

    def bind(self, input_mapping: InputMapping) -> "Evaluator":
        """Binds ``input_mapping`` to this evaluator, as phoenix-evals'
        ``bind`` does (in place), and returns the evaluator, so that
        ``ev = ev.bind(...)`` reads as well. :func:`bind_evaluator`
        returns a bound copy instead, leaving the evaluator unchanged.

        Paths are checked here: a malformed JSONPath raises ``ValueError``
        now, and the evaluator keeps the mapping it had.
        """
        self._set_mapping(input_mapping)
        return self

    def unbind(self) -> None:
        """Removes the bound input mapping (phoenix-evals' ``unbind``):
        inputs read the keys of their own names again."""
        self._set_mapping({})

    def _bound_copy(self, input_mapping: InputMapping) -> "Evaluator":
        """A copy of this evaluator with ``input_mapping`` bound to it; the
        evaluator itself is not changed."""
        bound = copy.copy(self)
        bound._set_mapping(input_mapping)
        return bound

    def _no_schema(self) -> bool:
        """Whether the evaluator was made without an input schema (and
        was given none since: a subclass may set ``input_schema`` after
        ``__init__``)."""
        return (
            getattr(self, "_schemaless", False)
            and isinstance(self.input_schema, Mapping)
            and "properties" not in self.input_schema
        )

    def _fields(self, mapping: Optional[Mapping[str, Any]] = None) -> list[tuple[str, bool]]:
        """The inputs (name, required): the schema's, or without a schema
        the keys of the mapping (``mapping``, else the bound one), all
        required."""
        if self._no_schema():
            return [(n, True) for n in (self._mapping if mapping is None else mapping)]
        schema = self.input_schema
        required = set(schema.get("required", []))
        names = list(schema.get("properties", {}))
        return [(n, n in required) for n in names]

    def _remap(self, row: Mapping[str, Any], mapping: Optional[InputMapping] = None) -> dict[str, Any]:
        """The evaluator's inputs read from ``row``."""
        if not isinstance(row, Mapping):
            raise TypeError(f"an evaluation input is a dict, got {type(row).__name__}")
        if mapping is not None:
            mapping = self._checked_mapping(mapping)
        active = self._mapping if mapping is None else mapping
        compiled = self._compiled if mapping is None else None
        fields = self._fields(active)
        out: dict[str, Any] = {}
        paths: list[tuple[str, bool]] = []
        path_sources: dict[str, str] = {}
        for name, required in fields:
            source = active.get(name)
            if source is None:
                if name in row:
                    out[name] = row[name]
                elif name == "reference" and "expected" in row:
                    out[name] = row["expected"]
            elif callable(source):
                out[name] = call_source(source, row)
            elif source in row:
                out[name] = row[source]
            else:
                paths.append((name, required))
                path_sources[name] = source
        if paths:
            m = compiled if compiled is not None else _refscore.Mapping(path_sources)
            # Only the keys the paths read are converted: an unrelated value
            # with no JSON form (a datetime, a Decimal) never fails the row.
            keys = list(row.keys())
            read: set[str] = set()
            for source in path_sources.values():
                read.update(path_reads(keys, source))
            try:
                # A key not found lists every key of the row, not only those read.
                every = [k for k in keys if isinstance(k, str)]
                found = m.resolve({k: row[k] for k in keys if k in read}, paths, every)
            except KeyError as e:
                raise ValueError(e.args[0] if e.args else str(e)) from None
            out.update(found)
        for name, required in fields:
            value = out.get(name)
            if required:
                if name not in out or is_missing(value):
                    raise ValueError(f"required input `{name}` is missing")
                if isinstance(value, str) and not value.strip():
                    raise ValueError(f"required input `{name}` is empty")
            elif name in out and is_missing(value):
                # A missing optional value (a NaN in a float column, a None)
                # is left out: a parameter takes its default.
                del out[name]
        if self._no_schema():
            # As phoenix-evals: the row's other keys pass through, but not
            # the keys a string mapping reads.
            read = {s if s in row else _first_key(s) for s in active.values() if isinstance(s, str)}
            for k, v in row.items():
                if k not in out and k not in read:
                    out[k] = v
        model = getattr(self, "_model", None)
        if model is not None:
            try:
                out = model.model_validate(out).model_dump()
            except ValueError as e:  # pydantic's ValidationError is one
                raise ValueError(f"evaluator `{self.name}`: input validation failed: {e}") from None
        return out

    # -- evaluation --------------------------------------------------------
    def evaluate(self, eval_input: Mapping[str, Any], input_mapping: Optional[InputMapping] = None) -> list[Score]:
        """Maps ``eval_input`` to the evaluator's inputs and evaluates it."""
        return as_score_list(self._evaluate(self._remap(eval_input, input_mapping)), self)

    async def async_evaluate(
        self, eval_input: Mapping[str, Any], input_mapping: Optional[InputMapping] = None
    ) -> list[Score]:
        """As :meth:`evaluate`, awaitable."""
        return as_score_list(await self._async_evaluate(self._remap(eval_input, input_mapping)), self)

    def __call__(self, eval_input: Mapping[str, Any]) -> list[Score]:
        return self.evaluate(eval_input)

    def _evaluate(self, inputs: dict[str, Any]) -> list[Score]:
        raise NotImplementedError

    async def _async_evaluate(self, inputs: dict[str, Any]) -> list[Score]:
        return await in_thread(self._evaluate, inputs)

    def describe(self) -> dict[str, Any]:
        """Name, kind, direction, input schema (JSON Schema) and mapping."""
        mapping = {k: (v if isinstance(v, str) else f"<callable {getattr(v, '__name__', 'source')}>") for k, v in self._mapping.items()}
        schema = copy.deepcopy(self.input_schema)
        if self._no_schema() and self._mapping:
            # The inputs the mapping names, all required.
            schema = {"type": "object", "properties": {k: {} for k in self._mapping}, "required": list(self._mapping)}
        return {
            "name": self.name,
            "kind": self.kind,
            "direction": self.direction,
            "input_schema": schema,
            "input_mapping": mapping,
        }

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


def check_name(name: Any) -> str:
    """An evaluator's name, checked: a non-empty string."""
    if not isinstance(name, str):
        hint = " (write @create_evaluator(name=...))" if callable(name) else ""
        raise TypeError(f"an evaluator's name is a string, got {type(name).__name__}{hint}")
    if not name:
        raise ValueError("an evaluator needs a name")
    return name


def _schema(schema: Any) -> tuple[Any, dict[str, Any], bool]:
    """``(pydantic model or None, JSON Schema, schemaless)`` of an
    ``input_schema``: ``None``, a JSON Schema dict or a pydantic model
    class (pydantic is not imported here: it is optional)."""
    if schema is None:
        return None, {"type": "object"}, True
    if isinstance(schema, Mapping):
        return None, dict(schema), False
    if isinstance(schema, type) and callable(getattr(schema, "model_json_schema", None)):
        return schema, schema.model_json_schema(), False
    raise TypeError(
        f"input_schema is a JSON Schema dict or a pydantic model class (a BaseModel subclass), got {type(schema).__name__}"
    )


def as_score_list(result: Any, ev: Evaluator) -> list[Score]:
    """What :meth:`Evaluator._evaluate` returned as a list of scores: a
    bare :class:`Score` becomes a list of one; anything but scores is a
    ``TypeError``, two scores of one name a ``ValueError``."""
    if isinstance(result, Score):
        return [result]
    if not isinstance(result, (list, tuple)) or not all(isinstance(s, Score) for s in result):
        got = type(result).__name__ if not isinstance(result, (list, tuple)) else f"a {type(result).__name__} holding other values"
        raise TypeError(f"evaluator `{ev.name}`: _evaluate must return a Score or a list of Scores, got {got}")
    names = [s.name for s in result]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ValueError(f"evaluator `{ev.name}` returned two scores named `{twice[0]}`")
    return list(result)


def is_missing(value: Any) -> bool:
    """Whether a cell marks a missing value: ``None``, a float NaN (numpy's
    too), pandas' ``NA`` and ``NaT``, numpy's ``NaT``."""
    if value is None:
        return True
    if isinstance(value, float):
        return math.isnan(value)
    t = type(value)
    if t.__name__ in ("NAType", "NaTType"):
        return True
    if t.__module__ == "numpy" and getattr(value, "ndim", None) == 0 and getattr(value.dtype, "kind", "") in "fcmM":
        return bool(value != value)  # NaN and NaT differ from themselves
    return False


def plain_scalar(value: Any) -> Any:
    """A numpy scalar as the Python bool, int or float it holds (other
    values unchanged)."""
    t = type(value)
    if t.__module__ == "numpy" and getattr(value, "ndim", None) == 0 and hasattr(value, "item"):
        return value.item()
    return value


def call_source(source: Callable[..., Any], row: Mapping[str, Any]) -> Any:
    """Calls a callable source: one parameter gets the whole row, several
    are filled from the row's keys of the same names."""
    try:
        params = [
            p
            for p in inspect.signature(source).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
        ]
    except (TypeError, ValueError):
        return source(row)
    if len(params) <= 1:
        return source(row) if params else source()
    return source(**{p.name: row[p.name] for p in params if p.name in row})


_JSON_TYPES = {"json": {}, "text": {"type": "string"}, "labels": {"type": "array"}, "pattern": {"type": "string"}}


class MetricEvaluator(Evaluator):
    """A built-in metric from the Rust registry, evaluated in Rust.

    Made by the functions of :mod:`refscore.metrics`
    (``refscore.metrics.json_distance()``) or by :func:`refscore.metric`.
    Over a DataFrame or an Arrow batch, all rows are evaluated in Rust
    threads with the interpreter released.
    """

    def __init__(
        self,
        metric: str,
        options: Optional[Mapping[str, Any]] = None,
        *,
        name: Optional[str] = None,
        judge: Optional[Mapping[str, Any]] = None,
        input_mapping: Optional[InputMapping] = None,
    ) -> None:
        _check_numbers(options or {}, "option")
        _check_numbers(judge or {}, "judge setting")
        native = _refscore.MetricEvaluator(metric, dict(options or {}), name, dict(judge) if judge else None)
        self._native = native
        properties: dict[str, Any] = {}
        required: list[str] = []
        for spec in native.inputs:
            prop = dict(_JSON_TYPES.get(spec["type"], {}))
            prop["description"] = spec["description"]
            properties[spec["name"]] = prop
            if spec["required"]:
                required.append(spec["name"])
        super().__init__(
            name=native.name,
            kind=native.kind,
            direction=native.direction,
            input_schema={"type": "object", "properties": properties, "required": required},
            input_mapping=input_mapping,
        )

    @property
    def metric(self) -> str:
        """The registry metric it runs."""
        return self._native.metric

    @property
    def options(self) -> dict[str, Any]:
        """The options it was built with."""
        return self._native.options

    def judge_usage(self) -> list[dict[str, Any]]:
        """What its LLM judge cost since this evaluator was built or
        unpickled, over every call and thread of this process.

        One dict per judge, as in a run's ``summary.json``: ``judge``,
        ``model``, ``evaluator``, ``evaluations``, ``requests``,
        ``retries``, ``failures``, ``cache_hits``, ``prompt_tokens``,
        ``completion_tokens``, ``latency_p50_ms``, ``latency_p95_ms``,
        ``cost`` (``None`` without prices) and ``adapted`` (settings the
        server refused and the judge stopped sending). Empty for a metric
        that asks no judge, or before its first judgement.
        """
        return self._native.judge_usage()

    def _native_mapping(self, callable_keys: Optional[Mapping[str, str]] = None) -> Optional[_refscore.Mapping]:
        """The compiled mapping, with callable sources read from the keys
        ``callable_keys`` names."""
        strings: dict[str, str] = {k: v for k, v in self._mapping.items() if isinstance(v, str)}
        if callable_keys:
            strings.update(callable_keys)
        if not strings:
            return None
        if not callable_keys and self._compiled is not None:
            return self._compiled
        return _refscore.Mapping(strings)

    def evaluate(self, eval_input: Mapping[str, Any], input_mapping: Optional[InputMapping] = None) -> list[Score]:
        """Evaluates one row in Rust; mapping as a suite run does (an
        unmapped ``reference`` also reads an ``expected`` key).

        A failed evaluation raises ``ValueError``; ``ConnectionError`` when
        its judge's server could not be reached or did not answer in time
        (after the judge's retries), the message naming the address asked."""
        return self._evaluate_row(eval_input, input_mapping, None)

    def _evaluate_row(
        self, eval_input: Mapping[str, Any], input_mapping: Optional[InputMapping], stop: Optional[_refscore.Stop]
    ) -> list[Score]:
        """:meth:`evaluate`, ended early (raising) once ``stop`` is stopped."""
        ev = self if input_mapping is None else self._bound_copy(input_mapping)
        row = dict(eval_input)
        keys: dict[str, str] = {}
        for name, source in ev._mapping.items():
            if callable(source):
                key = f"{_CALLABLE_KEY}{name}"
                row[key] = call_source(source, eval_input)
                keys[name] = key
        mapping = ev._native_mapping(keys)
        fields = [(spec["name"], spec["required"]) for spec in self._native.inputs]
        if mapping is None:
            mapping = _refscore.Mapping({})
        # Only the keys the inputs read are converted, as over a frame: an
        # unrelated value with no JSON form never fails the row.
        read = set(read_columns(list(row), [ev])) | set(keys.values())
        row = {k: v for k, v in row.items() if k in read}
        # A function's value with no JSON form is named by its input, not
        # by the internal key it is kept under.
        labels = {key: _callable_label(name) for name, key in keys.items()}
        try:
            # An input not found lists every key given, not only those read.
            inputs = mapping.resolve(row, fields, [k for k in eval_input if isinstance(k, str)], labels)
        except KeyError as e:
            raise ValueError(e.args[0] if e.args else str(e)) from None
        return [Score.from_dict(d) for d in self._native.evaluate_input(inputs, stop)]

    async def async_evaluate(
        self, eval_input: Mapping[str, Any], input_mapping: Optional[InputMapping] = None
    ) -> list[Score]:
        """As :meth:`evaluate`, on a worker thread. Cancelling the task
        (``asyncio.wait_for``'s timeout, Ctrl-C under ``asyncio.run``)
        stops a judged evaluation's thread too: its request is given up
        instead of holding the loop's shutdown until it ends."""
        stop = _refscore.Stop()
        try:
            return await in_thread(self._evaluate_row, eval_input, input_mapping, stop)
        except BaseException:
            stop.stop()
            raise

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d["metric"] = self.metric
        d["options"] = self.options
        return d

    def __reduce__(self) -> Any:
        """Pickles as the metric, its options, judge and mapping, and the
        attributes a subclass added: it comes back as its own class, with
        the Rust metric built again."""
        args = (self.metric, self.options, self.name, self._native.judge)
        return (_rebuild_metric, (type(self), args, _pickled_mapping(self)), _added_state(self))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(metric={self.metric!r}, name={self.name!r})"


def _check_numbers(options: Any, what: str) -> None:
    """Raises ``ValueError`` naming the first NaN or infinite float in
    ``options`` (walked without recursion): JSON has no such numbers, and a
    NaN would otherwise read as an option left unset."""
    stack: list[tuple[str, Any]] = [(k, v) for k, v in dict(options).items()]
    # Each container is walked once: one that holds itself (or is shared)
    # ends the walk instead of repeating it; the conversion that follows
    # refuses a container that holds itself, naming where.
    seen: set[int] = {id(options)}
    while stack:
        key, v = stack.pop()
        # numpy floats included (np.float32 is no Python float).
        if isinstance(v, numbers.Real) and not isinstance(v, numbers.Integral) and not math.isfinite(float(v)):
            raise ValueError(f"{what} `{key}`: {v} is not a number JSON can hold")
        if isinstance(v, (Mapping, list, tuple)):
            if id(v) in seen:
                continue
            seen.add(id(v))
        if isinstance(v, Mapping):
            stack.extend((f"{key}.{k}", x) for k, x in v.items())
        elif isinstance(v, (list, tuple)):
            stack.extend((f"{key}[{i}]", x) for i, x in enumerate(v))


def check_threads(threads: Any) -> Optional[int]:
    """``threads`` checked: ``None`` or 0 (one per core), else 1 to 1024."""
    if threads is None:
        return None
    # Any whole number: a numpy integer too (but not a bool).
    if isinstance(threads, bool) or not isinstance(threads, numbers.Integral):
        raise TypeError(f"threads must be an int or None, got {type(threads).__name__}")
    threads = int(threads)
    if not 0 <= threads <= 1024:
        raise ValueError(f"threads must be between 0 (one per core) and 1024, got {threads}")
    return threads


#: The attributes the constructors of :class:`MetricEvaluator` and
#: :class:`ClassificationEvaluator` set; a subclass's others are pickled.
_BUILT = frozenset(
    {"_native", "name", "kind", "direction", "input_schema", "_model", "_schemaless", "_mapping", "_compiled", "_args"}
)


def _pickled_mapping(ev: Evaluator) -> Any:
    """An evaluator's mapping to pickle: callables by value (cloudpickle
    takes lambdas), else a plain dict."""
    return ev._mapping if any(callable(v) for v in ev._mapping.values()) else dict(ev._mapping)


def _added_state(ev: Evaluator) -> Optional[dict[str, Any]]:
    """The attributes a subclass added to a built-in evaluator, if any."""
    extra = {k: v for k, v in ev.__dict__.items() if k not in _BUILT}
    return extra or None


def _rebuild_metric(cls: type, args: tuple[Any, ...], mapping: Any) -> MetricEvaluator:
    """A :class:`MetricEvaluator` (or subclass ``cls``, whose own
    ``__init__`` is not called: its attributes come back as pickled)."""
    metric, options, name, judge = args
    ev = cls.__new__(cls)
    MetricEvaluator.__init__(ev, metric, options, name=name, judge=judge, input_mapping=mapping or None)
    return ev


def metric(
    metric_name: str, /, *, name: Optional[str] = None, evaluator_name: Optional[str] = None, **options: Any
) -> MetricEvaluator:
    """The built-in metric ``metric_name`` with ``options`` (as in a suite
    file), named ``name`` (default: the metric's name), as the functions
    of :mod:`refscore.metrics` make it: ``judge`` given as a dict holds
    the judge's settings (LLM metrics), a string stays the option naming
    a judge. ``evaluator_name`` is an older spelling of ``name``."""
    if evaluator_name is not None:
        if name is not None and name != evaluator_name:
            raise ValueError("give one of name and evaluator_name (its older spelling)")
        name = evaluator_name
    judge = options.get("judge")
    if isinstance(judge, Mapping):
        del options["judge"]
        return MetricEvaluator(metric_name, options, name=name, judge=judge)
    return MetricEvaluator(metric_name, options, name=name)


class ClassificationEvaluator(MetricEvaluator):
    """An LLM judge that picks one label among ``choices`` (the ``classify``
    metric), asked through the Rust HTTP client.

    ``choices`` is a sequence of labels (a list, a tuple), a dict label →
    score, or label → ``(score, description)``; the judge is shown them in
    that order. A string (or bytes) is a ``TypeError``, not a list of its
    letters, and so is a ``set``: its order, which the judge would see,
    changes from run to run (pass ``sorted(labels)``). ``judge`` holds the judge's settings
    (``model``, ``base_url``, ``api_key_env``, ``max_concurrency``, ...);
    the API key is read from the environment variable ``api_key_env``
    names (default ``OPENAI_API_KEY``) and never appears in results. The
    prompt template's ``{placeholders}`` are the evaluator's inputs.
    """

    def __init__(
        self,
        *,
        name: str,
        prompt_template: str,
        choices: Union[Sequence[str], Mapping[str, Any]],
        judge: Mapping[str, Any],
        include_explanation: bool = True,
        direction: str = "maximize",
        system: Optional[str] = None,
        mode: str = "auto",
        input_mapping: Optional[InputMapping] = None,
    ) -> None:
        if isinstance(choices, (str, bytes, bytearray)):
            raise TypeError(f"choices is a list of labels or a dict of label to score, got {type(choices).__name__} {choices!r}")
        if isinstance(choices, (set, frozenset)):
            raise TypeError(
                "choices is a list of labels or a dict of label to score, got a set: its order, which the judge is"
                " shown, changes between runs; pass sorted(...) or a list"
            )
        if not isinstance(choices, Mapping):
            choices = list(choices)
        if isinstance(choices, Mapping):
            # Sent as a list, which keeps the dict's order (a map would be
            # read in label order).
            converted: Any = []
            for label, value in choices.items():
                if isinstance(value, tuple):
                    if len(value) != 2:
                        raise ValueError(
                            f"choice {label!r}: a tuple is (score, description), got {len(value)} item(s)"
                        )
                    score, description = value
                    converted.append({"label": label, "score": score, "description": description})
                elif isinstance(value, Mapping):
                    if "label" in value:
                        raise ValueError(f"choice {label!r}: the dict's key is its label; give score and description only")
                    converted.append({"label": label, **value})
                else:
                    converted.append({"label": label, "score": value})
        else:
            converted = choices
        options: dict[str, Any] = {
            "template": prompt_template,
            "choices": converted,
            "explanation": include_explanation,
            "direction": direction,
            "mode": mode,
        }
        if system is not None:
            options["system"] = system
        super().__init__("classify", options, name=name, judge=judge, input_mapping=input_mapping)
        self._args: dict[str, Any] = {
            "name": name,
            "prompt_template": prompt_template,
            "choices": choices,
            "judge": dict(judge),
            "include_explanation": include_explanation,
            "direction": direction,
            "system": system,
            "mode": mode,
        }

    def __reduce__(self) -> Any:
        """Pickles as its constructor's arguments, mapping and the
        attributes a subclass added: it comes back as its own class."""
        return (_rebuild_classification, (type(self), self._args, _pickled_mapping(self)), _added_state(self))


def _rebuild_classification(cls: type, args: dict[str, Any], mapping: Any) -> ClassificationEvaluator:
    """A :class:`ClassificationEvaluator` (or subclass ``cls``, as
    :func:`_rebuild_metric` builds one)."""
    ev = cls.__new__(cls)
    ClassificationEvaluator.__init__(ev, **args, input_mapping=mapping or None)
    return ev


class FunctionEvaluator(Evaluator):
    """A Python function as an evaluator (see :func:`create_evaluator`)."""

    def __init__(
        self,
        func: Callable[..., Any],
        *,
        name: str,
        kind: str = "code",
        direction: str = "maximize",
        input_mapping: Optional[InputMapping] = None,
    ) -> None:
        self.func = func
        self.is_async = inspect.iscoroutinefunction(func)
        super().__init__(
            name=name,
            kind=kind,
            direction=direction,
            input_schema=signature_schema(func),
            input_mapping=input_mapping,
        )
        self.__doc__ = func.__doc__
        self.__wrapped__ = func

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Calls the function itself; a bound evaluator (see :meth:`bind`)
        evaluates its one argument, the row, instead."""
        if self._mapping and len(args) == 1 and not kwargs and isinstance(args[0], Mapping):
            return self.evaluate(args[0])
        return self.func(*args, **kwargs)

    def _evaluate(self, inputs: dict[str, Any]) -> list[Score]:
        if self.is_async:
            raise RuntimeError(f"evaluator `{self.name}` is async: use async_evaluate")
        return to_scores(self.func(**inputs), self)

    async def _async_evaluate(self, inputs: dict[str, Any]) -> list[Score]:
        if self.is_async:
            return to_scores(await self.func(**inputs), self)
        return await in_thread(self._evaluate, inputs)

    def __reduce__(self) -> Any:
        """Pickles as the function, the evaluator's settings and its
        mapping. The decorator rebinds the function's name to the
        evaluator, so ``pickle`` could not find the function by name
        (``it's not the same object as module.name``); it is then named
        as the evaluator's attribute (``module.name.func``), which pickle
        (multiprocessing, ``ProcessPoolExecutor``) finds and cloudpickle
        (Spark, Ray) accepts."""
        func = self.func
        qualname = getattr(func, "__qualname__", "")
        holder = _find(getattr(func, "__module__", None), qualname)
        if holder is not func and isinstance(holder, FunctionEvaluator) and holder.func is func:
            func.__qualname__ = f"{qualname}.func"
        return (_function_evaluator, (func, self.name, self.kind, self.direction, dict(self._mapping)))


def _find(module: Optional[str], qualname: str) -> Any:
    """The object ``module.qualname`` names, if any."""
    obj: Any = sys.modules.get(module or "")
    for part in qualname.split("."):
        if obj is None or part.startswith("<"):
            return None
        obj = getattr(obj, part, None)
    return obj


def _function_evaluator(
    func: Callable[..., Any], name: str, kind: str, direction: str, mapping: dict[str, Source]
) -> FunctionEvaluator:
    """A :class:`FunctionEvaluator` from its pickled parts."""
    return FunctionEvaluator(func, name=name, kind=kind, direction=direction, input_mapping=mapping or None)


_ANNOTATION_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean", list: "array", dict: "object"}


def signature_schema(func: Callable[..., Any]) -> dict[str, Any]:
    """A JSON Schema of a function's parameters: a parameter without a
    default is required; ``str``/``int``/``float``/``bool``/``list``/
    ``dict`` annotations give the type."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    try:
        hints = inspect.get_annotations(func, eval_str=True)
    except Exception:  # annotations that cannot be evaluated: types unknown
        hints = {}
    for p in inspect.signature(func).parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        prop: dict[str, Any] = {"title": p.name.replace("_", " ").title()}
        t = _ANNOTATION_TYPES.get(hints.get(p.name))  # type: ignore[arg-type]
        if t:
            prop["type"] = t
        if p.default is p.empty:
            required.append(p.name)
        else:
            prop["default"] = p.default if isinstance(p.default, (str, int, float, bool, type(None))) else repr(p.default)
        properties[p.name] = prop
    return {"type": "object", "properties": properties, "required": required}


def to_scores(result: Any, ev: Evaluator) -> list[Score]:
    """A function's return value as scores named after the evaluator.

    A :class:`Score` (or a list of them) keeps its own values, its name,
    kind and direction becoming the evaluator's; a bool (numpy's too) gives score 1/0
    and label ``"True"``/``"False"``; a number (numpy's too) gives the score; a string
    of at most two spaces gives the label, a longer one the explanation;
    a dict gives ``score``, ``label``, ``explanation`` and ``metadata``; a
    tuple combines the above.
    """
    base = {"name": ev.name, "kind": ev.kind, "direction": ev.direction}
    if isinstance(result, Score):
        d = result.to_dict()
        d.update(base)
        return [Score.from_dict(d)]
    if isinstance(result, list) and result and all(isinstance(r, Score) for r in result):
        out = []
        for i, r in enumerate(result):
            d = r.to_dict()
            d.update({"kind": ev.kind, "direction": ev.direction})
            if i == 0:
                d["name"] = ev.name
            out.append(Score.from_dict(d))
        names = [s.name for s in out]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(
                f"evaluator `{ev.name}` returned two scores named `{twice[0]}` (its first score takes the evaluator's name)"
            )
        return out
    fields: dict[str, Any] = {}
    parts = result if isinstance(result, tuple) else (result,)
    for part in parts:
        part = plain_scalar(part)
        if isinstance(part, bool):
            fields["score"] = float(part)
            fields["label"] = str(part)
        elif isinstance(part, (numbers.Real, decimal.Decimal)):
            # int, float, and Decimal or Fraction as `Score(score=...)` takes them.
            fields["score"] = float(part)
        elif isinstance(part, str):
            if part.count(" ") <= 2:
                fields["label"] = part
            else:
                fields["explanation"] = part
        elif isinstance(part, Mapping) and not isinstance(result, tuple):
            unknown = set(part) - {"score", "label", "explanation", "metadata"}
            if unknown:
                raise ValueError(f"a returned dict may hold score, label, explanation, metadata; got {sorted(unknown)}")
            fields.update(part)
            if "score" in fields:
                fields["score"] = plain_scalar(fields["score"])
        else:
            raise ValueError(
                f"evaluator `{ev.name}` returned {type(part).__name__}: return a Score, a number, a bool, a string, a dict or a tuple of these"
            )
    return [Score(**base, **fields)]


def create_evaluator(
    name: str,
    *,
    kind: str = "code",
    direction: str = "maximize",
    source: Optional[str] = None,
) -> Callable[[Callable[..., Any]], FunctionEvaluator]:
    """A decorator turning a function (sync or ``async``) into an evaluator.

    The input schema comes from the signature: each parameter is an
    input, required unless it has a default. The decorated object is an
    :class:`Evaluator` and stays callable as the plain function.

    >>> @create_evaluator(name="exact")
    ... def exact(output: str, expected: str) -> bool:
    ...     return output == expected
    >>> exact.evaluate({"output": "a", "expected": "a"})[0].score
    1.0
    """
    check_name(name)
    if source is not None:
        kind = source
    normalize_kind(kind)
    check_direction(direction)

    def wrap(func: Callable[..., Any]) -> FunctionEvaluator:
        return FunctionEvaluator(func, name=name, kind=kind, direction=direction)

    return wrap


def bind_evaluator(evaluator: Evaluator, input_mapping: InputMapping) -> Evaluator:
    """A copy of ``evaluator`` with ``input_mapping`` bound, as
    phoenix-evals' ``bind_evaluator`` returns; ``evaluator`` itself is not
    changed (:meth:`Evaluator.bind` binds in place)."""
    return evaluator._bound_copy(input_mapping)


AsyncScores = Awaitable[list[Score]]
