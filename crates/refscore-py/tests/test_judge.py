"""ClassificationEvaluator on the Rust HTTP client, against the scripted
OpenAI-compatible server."""

import asyncio

import pandas as pd
import pytest

import refscore


def test_classification_over_a_frame(scripted_llm):
    judge = refscore.ClassificationEvaluator(
        name="verdict",
        prompt_template="Question: {question}\nAnswer: {answer}\nLABEL={hint}",
        choices={"good": 1.0, "bad": (0.0, "the answer is wrong")},
        judge={"model": "judge-model", "base_url": scripted_llm, "api_key_env": ""},
    )
    assert judge.kind == "llm"
    assert judge.describe()["input_schema"]["required"] == ["question", "answer", "hint"]
    df = pd.DataFrame(
        {"question": ["2+2?", "capital of France?", "x"], "answer": ["4", "Lyon", "y"], "hint": ["good", "bad", "maybe"]}
    )
    out = refscore.evaluate_dataframe(df, [judge])
    scores = out["verdict_score"].tolist()
    assert (scores[0]["label"], scores[0]["score"], scores[0]["kind"]) == ("good", 1.0, "llm")
    assert (scores[1]["label"], scores[1]["score"]) == ("bad", 0.0)
    # A label outside the choices is a failed row, never a guessed score.
    assert scores[2] is None
    assert out["verdict_execution_details"][2]["status"] == "failed"
    [s] = judge.evaluate({"question": "q", "answer": "a", "hint": "good"})
    assert s.label == "good"


def test_exit_on_error_stops_a_judged_column_at_its_first_failed_row(scripted_llm):
    # phoenix-evals' exit_on_error: no request after the first failed
    # judgement (a label outside the choices), sync and async alike (one
    # thread: rows begun in order; with more, the rows already running finish).
    judge = refscore.ClassificationEvaluator(
        name="verdict",
        prompt_template="LABEL={hint}",
        choices=["good", "bad"],
        judge={"model": "m", "base_url": scripted_llm, "api_key_env": "", "max_concurrency": 1},
    )
    df = pd.DataFrame({"hint": ["good", "maybe"] + ["good"] * 10})
    want = ["completed", "failed"] + ["did not run"] * 10
    before = judge.judge_usage()[0]["requests"] if judge.judge_usage() else 0
    out = refscore.evaluate_dataframe(df, [judge], exit_on_error=True, threads=1)
    assert [d["status"] for d in out["verdict_execution_details"]] == want
    assert judge.judge_usage()[0]["requests"] - before == 2
    out = asyncio.run(refscore.async_evaluate_dataframe(df, [judge], exit_on_error=True, concurrency=1))
    assert [d["status"] for d in out["verdict_execution_details"]] == want
    out = refscore.evaluate_dataframe(df, [judge])
    assert [d["status"] for d in out["verdict_execution_details"]].count("completed") == 11


def test_bad_judge_settings_are_refused():
    with pytest.raises(ValueError):
        refscore.ClassificationEvaluator(name="v", prompt_template="{x}", choices=["a"], judge={"no_model": 1})


def test_built_in_judges_take_judge_settings(scripted_llm):
    ev = refscore.metrics.hallucination(judge={"model": "m", "base_url": scripted_llm, "api_key_env": ""})
    assert ev.kind == "llm"
    [s] = ev.evaluate({"input": "q", "context": "c", "output": "a"})
    assert s.name == "hallucination" and s.kind == "llm" and s.label
    with pytest.raises(ValueError):
        refscore.metrics.hallucination().evaluate({"input": "q", "context": "c", "output": "a"})


def test_judge_usage_counts_every_judgement(scripted_llm):
    judge = refscore.ClassificationEvaluator(
        name="verdict",
        prompt_template="Answer: {answer}\nLABEL={hint}",
        choices=["good", "bad"],
        judge={
            "model": "judge-model",
            "base_url": scripted_llm,
            "api_key_env": "",
            "prices": {"prompt": 1.0, "completion": 2.0},
        },
    )
    assert judge.judge_usage() == []
    df = pd.DataFrame({"answer": ["a", "b", "c", "d"], "hint": ["good", "bad", "maybe", "good"]})
    refscore.evaluate_dataframe(df, [judge])
    [u] = judge.judge_usage()
    assert (u["evaluator"], u["model"], u["evaluations"]) == ("verdict", "judge-model", 4)
    assert u["requests"] >= 4 and u["prompt_tokens"] > 0 and u["completion_tokens"] > 0
    assert u["cost"] == pytest.approx((u["prompt_tokens"] * 1.0 + u["completion_tokens"] * 2.0) / 1e6)
    assert u["latency_p50_ms"] is not None and u["adapted"] == []
    # Without prices, `cost` is there and None.
    free = _slow_judge(scripted_llm, 2)
    free.evaluate({"answer": "LABEL=good"})
    [u] = free.judge_usage()
    assert "cost" in u and u["cost"] is None
    # One more call adds to the same counters.
    judge.evaluate({"answer": "e", "hint": "good"})
    assert judge.judge_usage()[0]["evaluations"] == 5
    # A code metric asks no judge.
    assert refscore.metrics.json_distance().judge_usage() == []


def _slow_judge(url, concurrency):
    return refscore.ClassificationEvaluator(
        name="verdict",
        prompt_template="{answer}",
        choices=["good", "bad"],
        judge={"model": "m", "base_url": url, "api_key_env": "", "max_concurrency": concurrency},
    )


def test_a_judged_frame_keeps_max_concurrency_requests_in_flight(slow_llm):
    import time

    df = pd.DataFrame({"answer": [f"a{i}" for i in range(32)]})
    judge = _slow_judge(slow_llm, 16)
    t0 = time.monotonic()
    out = refscore.evaluate_dataframe(df, [judge])
    took = time.monotonic() - t0
    assert [s["label"] for s in out["verdict_score"]] == ["good"] * 32
    # 32 replies of 0.4 s, 16 at a time: about 0.8 s (one at a time: 12.8 s;
    # in chunks of 16 rows per thread, as before: 6.4 s on two cores).
    assert took < 4.0, took
    # An explicit `threads` still bounds it.
    t0 = time.monotonic()
    refscore.evaluate_dataframe(df.head(8), [judge], threads=2)
    assert time.monotonic() - t0 >= 1.5


def _interrupt_after(seconds):
    import os
    import signal
    import threading

    timer = threading.Timer(seconds, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    return timer


def _ctrl_c_stops(call):
    """Ctrl-C 0.6 s into ``call()`` raises KeyboardInterrupt within 6 s."""
    import time

    t0 = time.monotonic()
    timer = _interrupt_after(0.6)
    with pytest.raises(KeyboardInterrupt):
        call()
    timer.join()
    assert time.monotonic() - t0 < 6.0


def test_ctrl_c_stops_a_judged_frame_without_waiting_for_every_row(slow_llm):
    import pyarrow as pa

    # 40 replies of 0.4 s one at a time: 16 s. Ctrl-C after 0.6 s skips the
    # rows not started and gives up the request in flight.
    df = pd.DataFrame({"answer": [f"a{i}" for i in range(40)]})
    judge = _slow_judge(slow_llm, 1)
    _ctrl_c_stops(lambda: refscore.evaluate_dataframe(df, [judge], threads=1))
    # The same for an Arrow batch.
    _ctrl_c_stops(lambda: refscore.Suite([judge]).score_batch(pa.RecordBatch.from_pandas(df), threads=1))
    # The judge is ready for the next call.
    assert judge.evaluate({"answer": "again"})[0].label == "good"


def test_ctrl_c_under_asyncio_run_stops_the_built_in_rows(slow_llm):
    import asyncio

    # The built-in rows run on a worker thread that no signal reaches:
    # the cancelled task stops them, so asyncio.run does not wait for all
    # 40 replies of 0.4 s (16 s) at its shutdown.
    df = pd.DataFrame({"answer": [f"a{i}" for i in range(40)]})
    judge = _slow_judge(slow_llm, 1)
    _ctrl_c_stops(lambda: asyncio.run(refscore.async_evaluate_dataframe(df, [judge], threads=1)))
    assert judge.evaluate({"answer": "again"})[0].label == "good"


def test_a_cancelled_async_evaluate_gives_up_its_request(stalling_llm):
    import asyncio
    import time

    # The reply takes 20 s; the timeout cancels the task at 0.5 s, and the
    # loop's shutdown must not wait for the thread's request to end.
    judge = _slow_judge(stalling_llm, 1)
    t0 = time.monotonic()
    with pytest.raises((asyncio.TimeoutError, TimeoutError)):
        asyncio.run(asyncio.wait_for(judge.async_evaluate({"answer": "slow 1"}), 0.5))
    assert time.monotonic() - t0 < 8.0
    assert judge.evaluate({"answer": "fast"})[0].label == "good"


def test_calls_made_while_a_cancelled_one_winds_down_are_answered(stalling_llm):
    import asyncio

    # The cancelled call's request is given up within the grace (2 s); a
    # call made meanwhile, on the same loop or another thread, waited for
    # nothing and failed at once as `cancelled`.
    judge = _slow_judge(stalling_llm, 2)

    async def main():
        with pytest.raises((asyncio.TimeoutError, TimeoutError)):
            await asyncio.wait_for(judge.async_evaluate({"answer": "slow 1"}), 0.5)
        # The stop is heard within 100 ms; the request is given up 2 s later.
        await asyncio.sleep(0.4)
        awaited = await judge.async_evaluate({"answer": "fast 1"})
        threaded = await asyncio.to_thread(judge.evaluate, {"answer": "fast 2"})
        return awaited, threaded

    awaited, threaded = asyncio.run(main())
    assert awaited[0].label == threaded[0].label == "good"


def test_a_stop_handle_ends_a_native_call_from_another_thread(slow_llm):
    import threading
    import time

    from refscore import _refscore

    judge = _slow_judge(slow_llm, 1)
    stop = _refscore.Stop()
    assert not stop.stopped
    threading.Timer(0.5, stop.stop).start()
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match="stopped"):
        _refscore.evaluate_columns(
            [(judge._native, None)], {"answer": [f"a{i}" for i in range(40)]}, 40, 1, "dict", stop
        )
    assert stop.stopped and time.monotonic() - t0 < 6.0


def test_after_ctrl_c_the_judge_does_not_wait_for_the_requests_given_up(stalling_llm):
    import time

    # Two requests of 20 s in flight are given up on Ctrl-C; the next call
    # must not queue behind them for the judge's two slots.
    judge = _slow_judge(stalling_llm, 2)
    timer = _interrupt_after(0.5)
    with pytest.raises(KeyboardInterrupt):
        refscore.evaluate_dataframe(pd.DataFrame({"answer": [f"slow {i}" for i in range(6)]}), [judge])
    timer.join()
    t0 = time.monotonic()
    out = refscore.evaluate_dataframe(pd.DataFrame({"answer": ["fast 1", "fast 2", "fast 3"]}), [judge])
    assert [s["label"] for s in out["verdict_score"]] == ["good"] * 3
    assert time.monotonic() - t0 < 8.0


def _judge_in_child(url):
    judge = _JUDGE_IN_PARENT
    return judge.evaluate({"answer": "from the child"})[0].label


_JUDGE_IN_PARENT = None


def test_a_judge_used_before_a_fork_works_in_the_child(slow_llm):
    import multiprocessing as mp

    global _JUDGE_IN_PARENT
    _JUDGE_IN_PARENT = _slow_judge(slow_llm, 4)
    assert _JUDGE_IN_PARENT.evaluate({"answer": "parent"})[0].label == "good"
    with mp.get_context("fork").Pool(2) as pool:
        labels = pool.map_async(_judge_in_child, [slow_llm] * 4).get(timeout=60)
    assert labels == ["good"] * 4
    # The parent's threads and connections still work.
    assert _JUDGE_IN_PARENT.evaluate({"answer": "parent again"})[0].label == "good"


def test_nan_judge_settings_and_numpy_nan_options_are_refused():
    import numpy as np

    with pytest.raises(ValueError, match="judge setting `timeout`: nan"):
        refscore.ClassificationEvaluator(
            name="v", prompt_template="{x}", choices=["a", "b"], judge={"model": "m", "timeout": float("nan")}
        )
    with pytest.raises(ValueError, match="option `beta`: nan"):
        refscore.metrics.precision_recall_fscore(beta=np.float32("nan"))


def test_a_key_sent_over_plain_http_to_another_machine_is_warned_of(monkeypatch):
    # As `refscore run` warns before a run starts (docs/judges.md); the
    # key itself is never in the warning.
    monkeypatch.setenv("REFSCORE_TEST_KEY", "sk-never-shown-1234")
    far = {"model": "m", "base_url": "http://10.255.255.1:4000/v1", "api_key_env": "REFSCORE_TEST_KEY"}
    with pytest.warns(UserWarning, match=r"sends its API key unencrypted: its base_url is plain http:// to 10\.255\.255\.1:4000") as seen:
        refscore.ClassificationEvaluator(name="v", prompt_template="{x}", choices=["a", "b"], judge=far)
    assert all("sk-never-shown" not in str(w.message) for w in seen)
    with pytest.warns(UserWarning, match="unencrypted"):
        refscore.metrics.hallucination(judge=far)
    # Over https, to this machine, or with no key: nothing to warn of.
    import warnings

    for judge in [
        {**far, "base_url": "https://10.255.255.1:4000/v1"},
        {**far, "base_url": "http://127.0.0.1:4000/v1"},
        {**far, "api_key_env": ""},
    ]:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            refscore.ClassificationEvaluator(name="v", prompt_template="{x}", choices=["a", "b"], judge=judge)


def test_a_header_value_of_the_wrong_type_is_named_but_never_shown():
    # The library's message for a value of the wrong type quoted it
    # (``invalid type: integer `12345```): a header's value may be a key.
    base = {"model": "m", "base_url": "http://127.0.0.1:9/v1"}
    for value, kind in ((12345, "a number"), (["sk-SECRET-1"], "a list"), ({"k": "sk-SECRET-2"}, "a dict"), (None, "None")):
        for build in (
            lambda judge: refscore.metrics.toxicity(judge=judge),
            lambda judge: refscore.ClassificationEvaluator(name="c", prompt_template="{x}", choices=["a"], judge=judge),
        ):
            with pytest.raises(ValueError, match=f"header `api-key` must be a string, got {kind}") as e:
                build({**base, "headers": {"api-key": value}})
            assert "12345" not in str(e.value) and "SECRET" not in str(e.value), str(e.value)
    with pytest.raises(ValueError, match="judge `headers` must be a dict") as e:
        refscore.metrics.toxicity(judge={**base, "headers": "Bearer sk-SECRET-3"})
    assert "SECRET" not in str(e.value)
    # Text values are taken as before.
    assert refscore.metrics.toxicity(judge={**base, "headers": {"api-key": "sk-ok"}}).kind == "llm"


def _closed_port():
    """A port of 127.0.0.1 nothing listens on (bound, then closed)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_unreachable_judge_raises_connection_error_naming_the_address_never_its_secrets():
    import asyncio

    port = _closed_port()
    judge = refscore.ClassificationEvaluator(
        name="verdict",
        prompt_template="{answer}",
        choices=["good", "bad"],
        judge={
            "model": "m",
            "base_url": f"http://me:pw-SECRET-1@127.0.0.1:{port}/v1?api-key=SECRET-2&api-version=1",
            "api_key_env": "",
            "retries": 0,
        },
    )
    address = f"http://127.0.0.1:{port}/v1/chat/completions after 1 attempt(s)"
    for call in (
        lambda: judge.evaluate({"answer": "a"}),
        lambda: asyncio.run(judge.async_evaluate({"answer": "a"})),
    ):
        # A network failure is not a bad value.
        with pytest.raises(ConnectionError) as e:
            call()
        text = str(e.value)
        assert not isinstance(e.value, ValueError)
        assert text.startswith(f"judge `default`: no answer from {address}: "), text
        assert "check the judge's base_url" in text and "reachable" in text, text
        assert "SECRET" not in text and "me:" not in text, text
    # Over a frame the row fails with the same message.
    out = refscore.evaluate_dataframe(pd.DataFrame({"answer": ["a"]}), [judge])
    [details] = out["verdict_execution_details"].tolist()
    assert details["status"] == "failed" and address in details["error"], details
    # Other failed judgements stay ValueError: a judge that is not defined.
    with pytest.raises(ValueError, match="judge `default` is not defined") as e:
        refscore.metrics.hallucination().evaluate({"input": "q", "context": "c", "output": "a"})
    # ... and says how to give one in Python, not in a suite there is none of.
    assert 'judge={"model": ...}' in str(e.value) and "suite" not in str(e.value), e.value


def test_inline_judge_settings_are_named_judge_in_errors_not_judges_default():
    # The judge given inline was never named: its errors say `judge`.
    for build in (
        lambda judge: refscore.ClassificationEvaluator(name="c", prompt_template="{x}", choices=["a", "b"], judge=judge),
        lambda judge: refscore.metrics.toxicity(judge=judge),
    ):
        with pytest.raises(ValueError, match=r"^judge: model must not be empty$"):
            build({"model": " "})
        with pytest.raises(ValueError, match=r"^judge: timeout must be in \(0, 3600\] seconds$"):
            build({"model": "m", "timeout": 0})
        # An api_key_env naming an unset variable fails when the evaluator is made.
        with pytest.raises(ValueError, match=r"^judge: api_key_env names the environment variable `REFSCORE_TEST_SURELY_UNSET_VAR`"):
            build({"model": "m", "api_key_env": "REFSCORE_TEST_SURELY_UNSET_VAR"})


def test_choices_given_as_a_dict_keep_their_order(scripted_llm):
    judge = refscore.ClassificationEvaluator(
        name="grade",
        prompt_template="Answer: {answer}\nLABEL={hint}",
        choices={"zeta": (1.0, "best"), "alpha": 0.0, "mid": {"score": 0.5, "description": "so-so"}},
        judge={"model": "judge-model", "base_url": scripted_llm, "api_key_env": ""},
    )
    # The judge is shown the labels in the dict's order, not sorted.
    labels = [c["label"] for c in judge.describe()["options"]["choices"]]
    assert labels == ["zeta", "alpha", "mid"]
    scores = [judge.evaluate({"answer": "a", "hint": h})[0] for h in ("zeta", "alpha", "mid")]
    assert [(s.label, s.score) for s in scores] == [("zeta", 1.0), ("alpha", 0.0), ("mid", 0.5)]
    with pytest.raises(ValueError, match="the dict's key is its label"):
        refscore.ClassificationEvaluator(
            name="g", prompt_template="{x}", choices={"a": {"label": "b", "score": 1}, "c": 0}, judge={"model": "m"}
        )
