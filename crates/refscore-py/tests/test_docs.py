"""The Python code blocks of docs/python.md and the examples of the
``refscore.metrics`` docstring run as written.

The blocks run in order in one namespace (a later block uses what an
earlier one made), with a top-level ``await`` allowed. Only the Spark and
Ray blocks are left out: they read a parquet file the guide only names
(``test_spark.py`` and ``test_ray.py`` run the same calls)."""

from __future__ import annotations

import ast
import asyncio
import re
from pathlib import Path

import pyarrow as pa

import refscore

DOC = Path(__file__).resolve().parents[3] / "docs" / "python.md"
NEEDS_A_CLUSTER = ("SparkSession", "ray.data")


def _blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)


def test_every_python_block_of_the_guide_runs():
    blocks = [b for b in _blocks() if not any(k in b for k in NEEDS_A_CLUSTER)]
    assert len(blocks) >= 6
    # What the guide's blocks use without making it: a judge that runs in
    # Python, an Arrow batch and table.
    slow_judge = refscore.create_evaluator(name="slow_judge")(lambda output: 1.0)
    batch = pa.record_batch({"output": ['{"a": 1}'], "expected": ['{"a": 2}']})
    ns: dict = {"slow_judge": slow_judge, "batch": batch, "table": pa.Table.from_batches([batch])}
    for i, block in enumerate(blocks):
        code = compile(block, f"docs/python.md block {i}", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
        result = eval(code, ns)  # noqa: S307 - the repository's own guide
        if asyncio.iscoroutine(result):
            asyncio.run(result)


def test_the_metrics_module_examples_run():
    doc = refscore.metrics.__doc__ or ""
    examples = [line.strip().split("   #")[0] for line in doc.splitlines() if line.strip().startswith("refscore.metrics.")]
    assert any("json_match" in e for e in examples)
    for e in examples:
        eval(e, {"refscore": refscore})  # noqa: S307
