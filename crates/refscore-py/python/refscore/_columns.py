"""Which columns of a frame or a batch the evaluators read.

Only those columns are converted (to JSON values, or imported as Arrow
into Rust): a column no evaluator reads never fails a row or a batch,
whatever its type.
"""

from __future__ import annotations

import re
from typing import Any, Optional, Sequence

#: Deepest Arrow type nesting read (a list of lists ... counts one level
#: per list, struct or map), the limit pyarrow's own import has; deeper
#: types are refused with ``ValueError`` before Arrow's recursive code
#: runs on them.
MAX_ARROW_DEPTH = 64

# Characters of a JSONPath that may select a key not named in it: wildcards,
# descendants, filters, escapes.
_ANY_KEY = ("*", "..", "?", "\\")


def _first_key(path: str) -> Optional[str]:
    """The key a JSONPath's first step reads (``output`` for
    ``output.answer``, ``$.output[0]`` or ``$['output']``), or ``None``
    when the first step is not one key."""
    s = path[1:] if path.startswith("$") else path
    s = s[1:] if s.startswith(".") else s
    if s[:2] in ("['", '["'):
        end = s.find(s[1] + "]", 2)
        return s[2:end] if end > 1 else None
    m = re.match(r"[^.\[\]'\"]+", s)
    return m.group(0) if m else None


def path_reads(columns: Sequence[Any], source: str) -> list[str]:
    """The names in ``columns`` a string source reads: the column it names
    exactly, else the column its JSONPath's first step names (every column
    when the path has a wildcard, a descendant step, a filter or an escape,
    or its first step is not one key). Names that are not strings are never
    read: no source can name them."""
    names = [c for c in columns if isinstance(c, str)]
    if source in names:
        return [source]
    first = None if any(t in source for t in _ANY_KEY) else _first_key(source)
    if first is None:
        return names
    return [c for c in names if c == first]


def read_columns(columns: Sequence[Any], evaluators: Sequence[Any]) -> list[str]:
    """The names in ``columns`` (in order, once each) that ``evaluators``
    read: unmapped inputs read their own name (and an
    unmapped ``reference`` also ``expected``), a mapped one what
    :func:`path_reads` says. Callable sources read nothing here: they see
    the whole row. An evaluator without an input schema is given the
    row's keys: it reads every column."""
    names = list(dict.fromkeys(c for c in columns if isinstance(c, str)))
    needed: set[str] = set()
    for ev in evaluators:
        if getattr(ev, "_no_schema", lambda: False)():
            needed.update(names)
        for input_name, _ in ev._fields():
            source = ev._mapping.get(input_name)
            if source is None:
                needed.add(input_name)
                if input_name == "reference":
                    needed.add("expected")
            elif isinstance(source, str):
                needed.update(path_reads(names, source))
    return [c for c in names if c in needed]


def missing_inputs(columns: Sequence[Any], evaluators: Sequence[Any]) -> list[tuple[Any, str, Optional[str]]]:
    """The required inputs no row of a frame with ``columns`` can hold:
    ``(evaluator, input, source)`` for each input read from no column of
    the frame (``source`` ``None``: unmapped, it reads its own name, and
    ``reference`` also ``expected``; else the string it is mapped to, which
    names no column and whose path starts at none). Inputs mapped to a
    callable, or to a path that may read any column (a wildcard), are not
    known before they run."""
    names = [c for c in columns if isinstance(c, str)]
    out: list[tuple[Any, str, Optional[str]]] = []
    for ev in evaluators:
        for input_name, required in ev._fields():
            if not required:
                continue
            source = ev._mapping.get(input_name)
            if source is None:
                if input_name in names or (input_name == "reference" and "expected" in names):
                    continue
            elif not isinstance(source, str) or path_reads(names, source):
                continue
            out.append((ev, input_name, source))
    return out


def shown_columns(columns: Sequence[Any]) -> str:
    """The first column names, for a message (as the Rust library lists
    a row's columns: at most 12, then ``…``)."""
    names = [str(c) for c in columns]
    return ", ".join(names[:12] + (["…"] if len(names) > 12 else []))


def arrow_depth(t: Any) -> int:
    """The nesting depth of a pyarrow type (a flat type is 0), counted
    without recursion."""
    deepest = 0
    stack = [(t, 0)]
    while stack:
        t, d = stack.pop()
        deepest = max(deepest, d)
        if deepest > MAX_ARROW_DEPTH:
            return deepest
        n = getattr(t, "num_fields", 0)
        for i in range(n):
            stack.append((t.field(i).type, d + 1))
        value_type = getattr(t, "value_type", None)  # dictionary values
        if n == 0 and value_type is not None:
            stack.append((value_type, d))
    return deepest


def check_arrow_depth(schema: Any, columns: Sequence[str]) -> None:
    """Raises ``ValueError`` naming the first of ``columns`` whose type is
    nested deeper than :data:`MAX_ARROW_DEPTH`."""
    for c in columns:
        if arrow_depth(schema.field(c).type) > MAX_ARROW_DEPTH:
            raise ValueError(f"column `{c}`: type nested deeper than {MAX_ARROW_DEPTH} levels")


def column_indices(names: Sequence[str], wanted: Sequence[str]) -> list[int]:
    """The positions of ``wanted`` in ``names`` (each once)."""
    return [names.index(c) for c in wanted]


def check_unique(columns: Sequence[str], read: Sequence[str]) -> None:
    """Raises ``ValueError`` naming a column of ``read`` that ``columns``
    holds more than once: which one an evaluator reads would be a guess."""
    for c in read:
        k = list(columns).count(c)
        if k > 1:
            raise ValueError(f"column `{c}` appears {k} times; an evaluator reads it, so its name must be unique")


def check_result_names(inputs: Sequence[str], results: Sequence[str]) -> None:
    """Raises ``ValueError`` when result column names repeat, or repeat an
    input column's name: a result never overwrites a column or another
    result."""
    seen: set[str] = set()
    taken = set(inputs)
    for r in results:
        if r in seen:
            raise ValueError(f"two results would be named `{r}`: rename an evaluator")
        if r in taken:
            raise ValueError(f"result column `{r}` would replace the input column of that name: rename the evaluator or the column")
        seen.add(r)
