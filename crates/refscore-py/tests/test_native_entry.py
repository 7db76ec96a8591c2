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
