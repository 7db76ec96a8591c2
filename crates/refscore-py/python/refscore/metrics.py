"""Every built-in metric of the Rust registry, as a function returning a
:class:`~refscore.MetricEvaluator`.

Each function takes the metric's options as keyword arguments (the same
keys and values as in a suite file) and an optional ``name``::

    refscore.metrics.json_distance()
    refscore.metrics.json_match(rules={"rules": [{"path": "$.total", "compare": {"type": "numeric", "abs_tol": 0.01}}]})
    refscore.metrics.exact_match(name="exact")
    refscore.metrics.hallucination(judge={"model": "gpt-4o-mini"})   # LLM metrics: the judge's settings

:func:`available` lists them with their descriptions and options.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Optional

from . import _refscore
from ._evaluator import MetricEvaluator

_REGISTRY: list[dict[str, Any]] = _refscore.registry()


def available() -> list[dict[str, Any]]:
    """The registry: one dict per metric (name, description, inputs,
    options, kind, direction, threshold, extra_scores, example)."""
    return [dict(m) for m in _REGISTRY]


def _doc(spec: dict[str, Any]) -> str:
    lines = [f"{spec['description']}.", "", f"Direction: {spec['direction']}; kind: {spec['kind']}."]
    if spec["inputs"]:
        lines += ["", "Inputs:"]
        for i in spec["inputs"]:
            req = "required" if i["required"] else "optional"
            lines.append(f"    {i['name']} ({i['type']}, {req}): {i['description']}")
    if spec["options"]:
        lines += ["", "Options (keyword arguments):"]
        for o in spec["options"]:
            default = f", default {o['default']}" if o.get("default") is not None else ""
            lines.append(f"    {o['name']}{default}: {o['description']}")
    lines += ["", "Suite example:", "", *("    " + l for l in spec["example"].splitlines())]
    return "\n".join(lines)


def _factory(spec: dict[str, Any]) -> Callable[..., MetricEvaluator]:
    metric = spec["name"]

    def make(*, name: Optional[str] = None, **options: Any) -> MetricEvaluator:
        judge = options.get("judge")
        if isinstance(judge, Mapping):
            # The judge's settings (LLM metrics); a string stays the option
            # naming the judge.
            del options["judge"]
            return MetricEvaluator(metric, options, name=name, judge=judge)
        return MetricEvaluator(metric, options, name=name)

    make.__name__ = metric
    make.__qualname__ = metric
    make.__doc__ = _doc(spec)
    return make


for _spec in _REGISTRY:
    globals()[_spec["name"]] = _factory(_spec)

__all__ = ["available", *(s["name"] for s in _REGISTRY)]
