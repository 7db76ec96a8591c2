"""Ctrl-C and cancellation during ``async_evaluate_dataframe`` keep the rows
finished, as ``evaluate_dataframe`` does (``partial_result``).

Ctrl-C is sent by a child process to itself, from inside an evaluator
once some rows have finished (no timer to race), under ``asyncio.run``
as a script runs it; the child prints what its ``partial_result`` held."""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import subprocess
import sys
import threading

import pandas as pd
import pytest

import refscore
from refscore import async_evaluate_dataframe, create_evaluator

CHILD = r"""
import asyncio, json, os, signal, sys, time

import pandas as pd
import refscore
from refscore import async_evaluate_dataframe, create_evaluator

mode, n, after, pause, url = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
finished = 0


@create_evaluator(name="slow")
async def slow(output: str) -> float:
    global finished
    try:
        await asyncio.sleep(pause)
    except asyncio.CancelledError:
        if mode == "twice":
            # A second Ctrl-C while the call winds down, from an evaluation
            # that then ignores being cancelled for a minute.
            os.kill(os.getpid(), signal.SIGINT)
            await asyncio.sleep(60)
        raise
    finished += 1
    if finished == after:
        os.kill(os.getpid(), signal.SIGINT)
    return 1.0


df = pd.DataFrame({"output": [f"r{i}" for i in range(n)], "expected": [f"r{i}" for i in range(n)]})
df["answer"] = df["output"]
evaluators = [slow, refscore.metrics.exact_match()]
if url != "-":
    evaluators.append(refscore.ClassificationEvaluator(
        name="verdict",
        prompt_template="{answer}",
        choices=["good", "bad"],
        # "slots": more threads than the judge keeps requests in flight, so
        # that rows wait for a slot when Ctrl-C comes.
        judge={"model": "m", "base_url": url, "api_key_env": "", "max_concurrency": 2 if mode == "slots" else 1},
    ))
call = lambda: async_evaluate_dataframe(df, evaluators, threads=8 if mode == "slots" else 1)


async def awaited():
    # As a notebook cell's `await` runs: the interrupt reaches the code
    # awaiting the call, in the same task.
    try:
        await call()
    except KeyboardInterrupt as e:
        return e
    return None


class NoSignals(asyncio.SelectorEventLoop):
    # A loop without signal handlers, as on Windows.
    def add_signal_handler(self, *args):
        raise NotImplementedError


t0 = time.monotonic()
try:
    if mode == "await":
        raised = asyncio.run(awaited())
    elif mode == "no signals":
        with asyncio.Runner(loop_factory=NoSignals) as runner:
            runner.run(call())
    else:
        asyncio.run(call())
except BaseException as e:
    raised = e
out = {
    "raised": type(raised).__name__,
    "seconds": time.monotonic() - t0,
    # asyncio.run takes its own handler back only when it finds it in place.
    "handler_put_back": signal.getsignal(signal.SIGINT) is signal.default_int_handler,
}
partial = getattr(raised, "partial_result", None)
if mode == "no signals":
    # asyncio.run's own interrupt, raised as it caught the cancellation.
    out["context"] = type(raised.__context__).__name__
    partial = getattr(raised.__context__, "partial_result", None)
if partial is not None:
    out["rows"] = len(partial)
    for name in ("slow", "exact_match", "verdict"):
        if f"{name}_execution_details" in partial:
            out[name] = {
                "statuses": [d["status"] for d in partial[f"{name}_execution_details"]],
                "scored": [s is not None for s in partial[f"{name}_score"]],
            }
if url != "-":
    out["judge_failures"] = sum(u["failures"] for u in evaluators[-1].judge_usage())
print(json.dumps(out))
"""


def _child(mode: str, n: int, after: int, pause: float = 0.02, url: str = "-") -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, mode, str(n), str(after), str(pause), url],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _kept(column: dict, n: int) -> int:
    """The rows finished (each with its score); the others did not run
    (without one). Returns how many finished."""
    statuses, scored = column["statuses"], column["scored"]
    assert len(statuses) == len(scored) == n
    assert set(statuses) <= {"completed", "did not run"}, statuses
    assert scored == [s == "completed" for s in statuses]
    return statuses.count("completed")


@pytest.mark.parametrize("mode", ["run", "await"])
def test_ctrl_c_under_asyncio_run_keeps_the_finished_rows(mode):
    got = _child(mode, n=200, after=20)
    assert got["raised"] == "KeyboardInterrupt"
    assert got.get("rows") == 200, got
    done = _kept(got["slow"], 200)
    # The evaluation that sent Ctrl-C finished; those in flight were
    # cancelled, those not started never ran.
    assert 20 <= done < 200
    # The built-in metric's column (a few ms of Rust) was done long before.
    assert _kept(got["exact_match"], 200) == 200
    assert got["handler_put_back"]


def test_ctrl_c_on_a_loop_without_signal_handlers_keeps_the_rows_on_the_cancellation():
    # As on Windows: asyncio.run's handler cancels the task, the call
    # attaches the frame to the CancelledError it raises, and asyncio.run
    # raises its KeyboardInterrupt with that as its __context__.
    got = _child("no signals", n=200, after=20)
    assert got["raised"] == "KeyboardInterrupt" and got["context"] == "CancelledError"
    assert got.get("rows") == 200, got
    assert 20 <= _kept(got["slow"], 200) < 200
    assert _kept(got["exact_match"], 200) == 200
    assert got["handler_put_back"]


def test_a_second_ctrl_c_while_winding_down_still_keeps_the_finished_rows():
    # The evaluations cancelled by the first Ctrl-C each send another and
    # then ignore being cancelled for a minute: the second Ctrl-C ends
    # the wait for them.
    got = _child("twice", n=200, after=20)
    assert got["raised"] == "KeyboardInterrupt"
    assert got["seconds"] < 30, got["seconds"]
    assert got.get("rows") == 200, got
    assert 20 <= _kept(got["slow"], 200) < 200
    assert _kept(got["exact_match"], 200) == 200
    assert got["handler_put_back"]


@pytest.mark.parametrize("mode", ["run", "twice", "slots"])
def test_ctrl_c_keeps_the_judged_rows_finished_in_rust(slow_llm, mode):
    # A judge answering in 0.4 s on one thread: about two of its forty rows
    # are done when Ctrl-C comes (after 1 s of Python rows); its call is
    # stopped and hands them back, its request in flight answered within
    # the grace. A second Ctrl-C (at once) does not give up on them.
    got = _child(mode, n=40, after=20, pause=0.15, url=slow_llm)
    assert got["raised"] == "KeyboardInterrupt"
    assert got.get("rows") == 40, got
    assert 20 <= _kept(got["slow"], 40) < 40
    assert 0 < _kept(got["verdict"], 40) < 40, got["verdict"]["statuses"]
    # Rows waiting for a judge slot sent nothing: they did not run, and
    # are no judge failure.
    assert got["judge_failures"] == 0, got
    assert got["handler_put_back"]


def _frame(n: int) -> pd.DataFrame:
    return pd.DataFrame({"output": [f"r{i}" for i in range(n)], "expected": [f"r{i}" for i in range(n)]})


def test_the_call_hears_ctrl_c_itself_and_puts_the_handler_before_back():
    seen = []

    @create_evaluator(name="peek")
    async def peek(output: str) -> float:
        seen.append(signal.getsignal(signal.SIGINT))
        return 1.0

    async def main():
        before = signal.getsignal(signal.SIGINT)
        out = await async_evaluate_dataframe(_frame(5), [peek, refscore.metrics.exact_match()])
        return before, signal.getsignal(signal.SIGINT), out

    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    before, after, out = asyncio.run(main())
    assert before is not signal.default_int_handler  # asyncio.run's own
    assert after is before
    assert len(seen) == 5 and all(h is not before for h in seen)
    # asyncio.run found its handler in place, so took it back.
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert [s["score"] for s in out["peek_score"]] == [1.0] * 5

    # A program's own handler, and its wakeup fd, are put back exactly too
    # (asyncio's remove_signal_handler would leave Python's default and no fd).
    def mine(signum, frame):
        pass

    ours, theirs = socket.socketpair()
    ours.setblocking(False)
    previous = signal.signal(signal.SIGINT, mine)
    old_fd = signal.set_wakeup_fd(ours.fileno())
    try:
        seen.clear()
        before, after, _ = asyncio.run(main())
        assert before is mine and after is mine
        assert seen and all(h is not mine for h in seen)
        assert signal.set_wakeup_fd(-1) == ours.fileno()
    finally:
        signal.set_wakeup_fd(old_fd)
        signal.signal(signal.SIGINT, previous)
        ours.close()
        theirs.close()


@pytest.mark.parametrize("where", ["main thread", "other thread"])
def test_a_cancelled_call_carries_the_finished_rows_on_its_cancelled_error(where):
    got: dict = {}

    async def main():
        finished = 0
        enough = asyncio.Event()

        @create_evaluator(name="slow")
        async def slow(output: str) -> float:
            nonlocal finished
            await asyncio.sleep(0.01)
            finished += 1
            if finished == 10:
                enough.set()
            return 1.0

        evaluators = [slow, refscore.metrics.exact_match()]
        # Uncancelled, it runs to its end.
        full = await async_evaluate_dataframe(_frame(5), evaluators)
        got["full"] = [s["score"] for s in full["slow_score"]]
        finished = 0
        task = asyncio.create_task(async_evaluate_dataframe(_frame(200), evaluators))
        await enough.wait()
        task.cancel()
        try:
            await task
        except asyncio.CancelledError as e:
            got["error"] = e

    def run():
        got["handler"] = signal.getsignal(signal.SIGINT)
        asyncio.run(main())

    if where == "main thread":
        run()
    else:
        thread = threading.Thread(target=run)
        thread.start()
        thread.join(timeout=60)
        assert not thread.is_alive()
    assert got["full"] == [1.0] * 5
    partial = getattr(got["error"], "partial_result", None)
    assert partial is not None and len(partial) == 200
    columns = {
        name: {
            "statuses": [d["status"] for d in partial[f"{name}_execution_details"]],
            "scored": [s is not None for s in partial[f"{name}_score"]],
        }
        for name in ("slow", "exact_match")
    }
    assert 10 <= _kept(columns["slow"], 200) < 200
    assert _kept(columns["exact_match"], 200) == 200
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
