"""The native entry points on unusual threads and processes: a Python thread
with a small stack, a child made by ``fork()``. Each case runs in a fresh
interpreter, so a crash or a hang fails the test instead of the session."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def _run(code: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_deep_values_on_a_thread_with_a_small_stack() -> None:
    # 384 KiB of stack: less than deep nesting needs, more than Python's minimum.
    proc = _run(
        """
        import threading, refscore
        threading.stack_size(384 * 1024)
        text = "[" * 500 + "]" * 500
        deep = "[" * 1000 + "]" * 1000
        out = []
        def run():
            out.append(refscore.metrics.json_distance().evaluate({"output": text, "expected": text})[0].score)
            out.append(refscore.metrics.json_structural().evaluate({"output": deep, "expected": deep})[0].score)
            out.append(refscore.metrics.json_distance().bind({"output": "a.b"}).evaluate(
                {"a": {"b": text}, "expected": text})[0].score)
        t = threading.Thread(target=run)
        t.start()
        t.join()
        print(out)
        """
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "[0.0, 1.0, 0.0]", proc.stdout


def test_forked_children_evaluate_after_the_parent_did() -> None:
    # The parent's default worker pool exists in the child without its threads.
    proc = _run(
        """
        import multiprocessing as mp, pandas as pd, refscore
        df = pd.DataFrame({"output": ['{"a": 1}'] * 100, "expected": ['{"a": 2}'] * 100})
        ev = refscore.metrics.json_distance()
        refscore.evaluate_dataframe(df, [ev])
        def child(threads):
            return refscore.evaluate_dataframe(df, [ev], threads=threads)["json_distance_score"][0]["score"]
        with mp.get_context("fork").Pool(2) as p:
            print(p.map(child, [None, 2]))
        """,
        timeout=90,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "[1.0, 1.0]", proc.stdout
