"""The result of one evaluation: :class:`Score`."""

from __future__ import annotations

import decimal
import json
import math
import numbers
from dataclasses import dataclass, field
from typing import Any, Literal, Mapping, Optional, Sequence

from . import _refscore

Kind = Literal["code", "llm", "human"]
Direction = Literal["maximize", "minimize", "neutral"]

KINDS = ("code", "llm", "human")
DIRECTIONS = ("maximize", "minimize", "neutral")


def normalize_kind(kind: str) -> str:
    """The kind for a name; ``heuristic`` (an older name) is ``code``."""
    if kind == "heuristic":
        return "code"
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    return kind


def _real(value: Any) -> float:
    """A score's value as a finite float: a real number (Python's,
    numpy's, a ``Fraction``, a ``Decimal``), never a bool."""
    is_bool = isinstance(value, bool) or type(value).__name__ in ("bool_", "bool")
    if is_bool or not isinstance(value, (numbers.Real, decimal.Decimal)):
        raise TypeError(f"score must be a number or None, got {type(value).__name__}")
    f = float(value)
    if not math.isfinite(f):
        raise ValueError(f"score must be finite, got {value}")
    return f


def check_direction(direction: str) -> str:
    """The direction, checked."""
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {', '.join(DIRECTIONS)}, got {direction!r}")
    return direction


@dataclass(frozen=True, kw_only=True, init=False)
class Score:
    """One evaluation result, immutable.

    The same fields and JSON form as the Rust library's ``Score``:
    ``to_dict()`` gives exactly what ``refscore`` writes in
    ``results.jsonl`` (``score`` always present, ``None`` when the input
    could not be scored; ``label``, ``explanation``, ``metadata`` and
    ``details`` only when set).

    ``score`` is a finite real number or ``None``: a Python or numpy
    integer or float (``np.int64(2)``, ``np.float32(0.5)``), a
    ``Fraction`` or a ``Decimal``, stored as a float; a bool (numpy's
    too) is refused. ``label`` and ``explanation`` are strings (or
    ``None``). ``metadata`` (``None`` is ``{}``) and ``details`` are made
    JSON values once, here: numpy scalars and arrays become numbers and
    lists, dates and ``Decimal`` values the text a DataFrame cell of them
    reads as; a NaN or infinite float, or a value with no JSON form,
    raises ``ValueError`` or ``TypeError`` naming where it is
    (``metadata at $.x: NaN has no JSON form``). So ``to_dict()`` and
    ``to_json()`` hold the same values.

    ``source`` is phoenix-evals' older name of ``kind``: ``Score(source=
    "llm")`` is ``Score(kind="llm")`` (giving both, different, is a
    ``ValueError``), and ``score.source`` reads ``kind``.

    >>> Score(name="exact", score=1.0, label="match").to_dict()
    {'name': 'exact', 'score': 1.0, 'label': 'match', 'direction': 'maximize', 'kind': 'code'}
    """

    name: str
    score: Optional[float] = None
    label: Optional[str] = None
    explanation: Optional[str] = None
    metadata: Mapping[str, Any] = field(default_factory=dict)
    kind: Kind = "code"
    direction: Direction = "maximize"
    details: Sequence[Mapping[str, Any]] = ()

    def __init__(
        self,
        *,
        name: str,
        score: Optional[float] = None,
        label: Optional[str] = None,
        explanation: Optional[str] = None,
        metadata: Optional[Mapping[str, Any]] = None,
        kind: Optional[Kind] = None,
        direction: Direction = "maximize",
        details: Sequence[Mapping[str, Any]] = (),
        source: Optional[Kind] = None,
    ) -> None:
        if source is not None:
            if kind is not None and normalize_kind(kind) != normalize_kind(source):
                raise ValueError(f"give one of kind and source (its older name), got kind={kind!r} and source={source!r}")
            kind = source
        set_ = object.__setattr__
        set_(self, "name", name)
        set_(self, "score", score)
        set_(self, "label", label)
        set_(self, "explanation", explanation)
        set_(self, "metadata", {} if metadata is None else metadata)
        set_(self, "kind", "code" if kind is None else kind)
        set_(self, "direction", direction)
        set_(self, "details", details)
        self.__post_init__()

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ValueError("a score needs a non-empty name")
        if self.score is not None:
            object.__setattr__(self, "score", _real(self.score))
        for what in ("label", "explanation"):
            value = getattr(self, what)
            if value is not None and not isinstance(value, str):
                raise TypeError(f"{what} must be a string or None, got {type(value).__name__}")
        object.__setattr__(self, "kind", normalize_kind(self.kind))
        check_direction(self.direction)
        if not isinstance(self.metadata, Mapping):
            raise TypeError(f"metadata must be a dict, got {type(self.metadata).__name__}")
        object.__setattr__(self, "metadata", _refscore.json_value(dict(self.metadata), "metadata") if self.metadata else {})
        if isinstance(self.details, (str, bytes, Mapping)):
            raise TypeError(f"details must be a list of dicts, got {type(self.details).__name__}")
        given = list(self.details)
        for i, d in enumerate(given):
            if not isinstance(d, Mapping):
                raise TypeError(f"details at $[{i}]: a detail is a dict, got {type(d).__name__}")
        details = _refscore.json_value([dict(d) for d in given], "details") if given else []
        object.__setattr__(self, "details", tuple(details))

    @property
    def source(self) -> str:
        """``kind``, by phoenix-evals' older name."""
        return self.kind

    def to_dict(self) -> dict[str, Any]:
        """The score as a dict, keyed and valued as its JSON form."""
        out: dict[str, Any] = {"name": self.name, "score": self.score}
        if self.label is not None:
            out["label"] = self.label
        if self.explanation is not None:
            out["explanation"] = self.explanation
        out["direction"] = self.direction
        out["kind"] = self.kind
        if self.metadata:
            out["metadata"] = dict(self.metadata)
        if self.details:
            out["details"] = [dict(d) for d in self.details]
        return out

    def to_json(self) -> str:
        """The score as one line of JSON (the form of ``results.jsonl``):
        :meth:`to_dict` written as JSON text."""
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":"), allow_nan=False)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Score":
        """A score from its dict form (what :meth:`to_dict` gives)."""
        return cls(
            name=d["name"],
            score=d.get("score"),
            label=d.get("label"),
            explanation=d.get("explanation"),
            metadata=d.get("metadata") or {},
            kind=d.get("kind", "code"),
            direction=d.get("direction", "maximize"),
            details=d.get("details") or (),
        )

