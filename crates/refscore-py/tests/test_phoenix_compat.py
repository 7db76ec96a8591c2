"""What a phoenix-evals user meets: evaluators without a schema, pydantic
schemas, choices, score names shared by evaluators, `concurrency` over
judges, numpy scores, `metric(name=)`, missing optional inputs, early
errors and the frame kept on Ctrl-C."""

import asyncio
import pickle
import threading
import time
import warnings

import numpy as np
import pandas as pd
import pytest

import refscore
from refscore import Score, create_evaluator, evaluate_dataframe


class _Echo(refscore.Evaluator):
    """Returns the input it was given, as metadata."""

    def _evaluate(self, eval_input):
        return [Score(name=self.name, score=float(len(eval_input)), metadata={"input": dict(eval_input)})]


# -- 1. no input_schema -------------------------------------------------------


def test_an_evaluator_without_a_schema_receives_the_row():
    ev = _Echo(name="echo")
    [s] = ev.evaluate({"output": "abc", "n": 1})
    assert s.metadata["input"] == {"output": "abc", "n": 1}
    assert ev.describe()["input_schema"] == {"type": "object"}


class _Late(_Echo):
    """Sets its schema after ``__init__``, as older subclasses did."""

    def __init__(self):
        super().__init__(name="late")
        self.input_schema = {"type": "object", "properties": {"output": {}}, "required": ["output"]}


def test_a_schema_set_after_init_is_the_schema():
    assert _Late().evaluate({"output": "a", "x": 1})[0].metadata["input"] == {"output": "a"}
    with pytest.raises(ValueError, match="has no input `answer`"):
        _Late().bind({"answer": "output"})


def test_an_evaluator_without_a_schema_takes_its_fields_from_the_mapping():
    # As phoenix: the mapping's keys are the required fields; the row's
    # other keys pass through, but not the keys a mapping reads.
    bound = _Echo(name="echo").bind({"answer": "output", "q": "doc.question"})
    [s] = bound.evaluate({"output": "abc", "doc": {"question": "why"}, "n": 1})
    assert s.metadata["input"] == {"answer": "abc", "q": "why", "n": 1}
    with pytest.raises(ValueError, match="input `answer` from `output`: no such column"):
        bound.evaluate({"doc": {"question": "why"}})
    with pytest.raises(ValueError, match="required input `answer` is missing"):
        bound.evaluate({"output": None, "doc": {"question": "why"}})
    schema = bound.describe()["input_schema"]
    assert schema["required"] == ["answer", "q"]
    # Per call too, and over a frame.
    [s] = _Echo(name="echo").evaluate({"x": "a"}, input_mapping={"output": "x"})
    assert s.metadata["input"] == {"output": "a"}
    out = evaluate_dataframe(pd.DataFrame({"output": ["a", "bb"], "k": [1, 2]}), [refscore.bind_evaluator(bound, {"answer": "output"})])
    assert [d["metadata"]["input"] for d in out["echo_score"]] == [{"answer": "a", "k": 1}, {"answer": "bb", "k": 2}]
    back = pickle.loads(pickle.dumps(bound))
    assert back.evaluate({"output": "abc", "doc": {"question": "why"}})[0].metadata["input"] == {"answer": "abc", "q": "why"}


# -- 2. a pydantic input_schema -------------------------------------------------


def test_a_pydantic_model_is_an_input_schema():
    pydantic = pytest.importorskip("pydantic")

    class In(pydantic.BaseModel):
        output: str
        n: int = 3

    ev = _Echo(name="p", input_schema=In)
    schema = ev.describe()["input_schema"]
    assert schema["required"] == ["output"] and set(schema["properties"]) == {"output", "n"}
    # Validated as phoenix does: defaults filled in, values coerced.
    assert ev.evaluate({"output": "abc", "other": 1})[0].metadata["input"] == {"output": "abc", "n": 3}
    assert ev.evaluate({"output": "abc", "n": "7"})[0].metadata["input"] == {"output": "abc", "n": 7}
    with pytest.raises(ValueError, match="required input `output` is missing"):
        ev.evaluate({"n": 1})
    with pytest.raises(ValueError, match="input validation failed"):
        ev.evaluate({"output": "abc", "n": "many"})
    assert ev.bind({"output": "pred"}).evaluate({"pred": "x"})[0].metadata["input"] == {"output": "x", "n": 3}
    with pytest.raises(TypeError, match="JSON Schema dict or a pydantic model class"):
        _Echo(name="bad", input_schema=5)
    with pytest.raises(TypeError, match="JSON Schema dict or a pydantic model class"):
        _Echo(name="bad", input_schema=In(output="x"))


# -- 3. choices -----------------------------------------------------------------


@pytest.mark.parametrize("choices", ["yes,no", b"yes,no", {"yes", "no"}, frozenset({"yes", "no"})])
def test_choices_as_a_string_or_a_set_are_refused(choices):
    with pytest.raises(TypeError, match="choices"):
        refscore.ClassificationEvaluator(name="c", prompt_template="{x}", choices=choices, judge={"model": "m"})


def test_choices_as_a_tuple_or_dict_keys_are_taken_in_order():
    for choices in (("yes", "no"), {"yes": 1, "no": 0}.keys()):
        ev = refscore.ClassificationEvaluator(name="c", prompt_template="{x}", choices=choices, judge={"model": "m"})
        assert ev.options["choices"] == ["yes", "no"]
        assert pickle.loads(pickle.dumps(ev)).options["choices"] == ["yes", "no"]


# -- 4. score names shared by evaluators -------------------------------------------


def _clashing():
    calls = [0]

    @create_evaluator(name="a")
    def a(output: str):
        calls[0] += 1
        return [Score(name="a", score=1.0), Score(name="b", score=0.5), Score(name="extra", score=0.25)]

    @create_evaluator(name="b")
    def b(output: str):
        calls[0] += 1
        return 0.1

    return a, b, calls


def test_a_score_named_like_another_evaluator_keeps_its_rows():
    a, b, calls = _clashing()
    df = pd.DataFrame({"output": ["x"] * 5, "extra_score": ["mine"] * 5})
    with pytest.warns(UserWarning, match=r"evaluator `a` returned a score named `b`, whose column `b_score` holds evaluator `b`'s scores: its column is `a.b_score`"):
        out = evaluate_dataframe(df, [a, b])
    assert calls[0] == 10
    assert [s["score"] for s in out["b_score"]] == [0.1] * 5
    assert [s["score"] for s in out["a.b_score"]] == [0.5] * 5
    # A score named like an input column's result is renamed too; the
    # input column stays.
    assert list(out["extra_score"]) == ["mine"] * 5
    assert [s["score"] for s in out["a.extra_score"]] == [0.25] * 5
    # The same rule whatever order the rows finish in.
    with pytest.warns(UserWarning, match="`a.b_score`"):
        out2 = asyncio.run(refscore.async_evaluate_dataframe(df, [b, a], concurrency=4))
    assert [s["score"] for s in out2["a.b_score"]] == [0.5] * 5 and [s["score"] for s in out2["b_score"]] == [0.1] * 5


def test_two_evaluators_returning_one_extra_name_keep_both():
    @create_evaluator(name="p")
    def p(output: str):
        return [Score(name="p", score=1.0), Score(name="shared", score=0.2)]

    @create_evaluator(name="q")
    def q(output: str):
        return [Score(name="q", score=1.0), Score(name="shared", score=0.3)]

    with pytest.warns(UserWarning, match="`q.shared_score`"):
        out = evaluate_dataframe(pd.DataFrame({"output": ["x"]}), [p, q])
    assert out["shared_score"][0]["score"] == 0.2 and out["q.shared_score"][0]["score"] == 0.3


def test_clashes_known_before_any_row_runs_raise_before_any_row_runs():
    calls = [0]

    @create_evaluator(name="prf.precision")
    def clash(output):
        calls[0] += 1
        return 0.5

    with pytest.raises(ValueError, match="prf.precision_score"):
        evaluate_dataframe(
            pd.DataFrame({"output": [["a"]], "expected": [["a"]]}),
            [refscore.metrics.precision_recall_fscore(name="prf"), clash],
        )
    assert calls[0] == 0


# -- 5. concurrency caps the judges -----------------------------------------------


def _judge(url, max_concurrency=8):
    return refscore.ClassificationEvaluator(
        name="verdict",
        prompt_template="{answer}",
        choices=["good", "bad"],
        judge={"model": "m", "base_url": url, "api_key_env": "", "max_concurrency": max_concurrency},
    )


def test_async_concurrency_caps_the_judges_requests_in_flight(slow_llm):
    df = pd.DataFrame({"answer": [f"a{i}" for i in range(6)]})
    judge = _judge(slow_llm)
    t0 = time.monotonic()
    out = asyncio.run(refscore.async_evaluate_dataframe(df, [judge], concurrency=1))
    took = time.monotonic() - t0
    assert [s["label"] for s in out["verdict_score"]] == ["good"] * 6
    # Six replies of 0.4 s one at a time: 2.4 s (eight in flight: 0.4 s).
    assert took >= 2.2, took
    # Without `concurrency`, the judge's own max_concurrency.
    t0 = time.monotonic()
    asyncio.run(refscore.async_evaluate_dataframe(df, [judge]))
    assert time.monotonic() - t0 < 2.0


def test_async_concurrency_is_shared_by_judges_and_python_evaluators(slow_llm):
    in_flight = 0
    peak = 0
    lock = threading.Lock()

    @create_evaluator(name="py")
    async def py(answer: str) -> float:
        nonlocal in_flight, peak
        with lock:
            in_flight += 1
            peak = max(peak, in_flight)
        await asyncio.sleep(0.05)
        with lock:
            in_flight -= 1
        return 1.0

    df = pd.DataFrame({"answer": [f"a{i}" for i in range(4)]})
    t0 = time.monotonic()
    out = asyncio.run(refscore.async_evaluate_dataframe(df, [_judge(slow_llm), py], concurrency=2))
    # The judge's four replies of 0.4 s two at a time (0.8 s), then the
    # Python evaluations, two at a time.
    assert time.monotonic() - t0 >= 0.75
    assert peak <= 2
    assert [s["score"] for s in out["py_score"]] == [1.0] * 4


# -- 6. Score ---------------------------------------------------------------------


def test_score_takes_numpy_numbers():
    assert Score(name="n", score=np.int64(2)).score == 2.0
    assert Score(name="n", score=np.float32(0.5)).score == 0.5
    assert type(Score(name="n", score=np.float64(0.5)).score) is float
    for bad in (True, np.bool_(True), "1", 1 + 0j):
        with pytest.raises(TypeError, match="score must be a number"):
            Score(name="n", score=bad)
    with pytest.raises(ValueError, match="finite"):
        Score(name="n", score=np.float32("nan"))


def test_score_metadata_none_and_source():
    assert Score(name="n", metadata=None).metadata == {}
    s = Score(name="n", source="llm")
    assert s.kind == "llm" and s.source == "llm"
    assert Score(name="n", kind="human").source == "human"
    assert Score(name="n", source="heuristic").kind == "code"
    with pytest.raises(ValueError, match="kind"):
        Score(name="n", kind="llm", source="human")
    assert Score.from_dict(s.to_dict()) == s
    assert "source" not in s.to_dict()


# -- 7. name= -----------------------------------------------------------------------


def test_metric_takes_name():
    ev = refscore.metric("exact_match", name="em2")
    assert ev.name == "em2" and ev.metric == "exact_match"
    ev = refscore.metric("exact_match", name="em3", normalize=["trim"])
    assert ev.evaluate({"output": " a", "expected": "a"})[0].name == "em3"
    judge = refscore.metric("hallucination", name="h", judge={"model": "m"})
    assert judge.name == "h" and judge.kind == "llm"
    assert refscore.metrics.exact_match(name="em4").name == "em4"


# -- 8. a missing optional input takes its default ---------------------------------------


def test_a_missing_optional_input_takes_the_default():
    @create_evaluator(name="opt")
    def opt(output: str, budget: float = 5.0) -> float:
        return budget

    df = pd.DataFrame({"output": ["a", "b", "c"], "budget": [np.nan, 2.0, None]})
    out = evaluate_dataframe(df, [opt])
    assert [s["score"] for s in out["opt_score"]] == [5.0, 2.0, 5.0]
    assert opt.evaluate({"output": "a", "budget": pd.NA})[0].score == 5.0
    assert opt.evaluate({"output": "a", "budget": None})[0].score == 5.0
    # A required input that is missing still fails.
    with pytest.raises(ValueError, match="required input `output` is missing"):
        opt.evaluate({"output": np.nan})


# -- 9. errors ------------------------------------------------------------------------


def test_a_bad_per_call_mapping_gives_binds_message():
    @create_evaluator(name="em")
    def em(output: str) -> bool:
        return True

    with pytest.raises(TypeError, match="input `output`: a source is a key, a JSONPath string or a callable, got int"):
        em.evaluate({"o": "a"}, input_mapping={"output": 5})
    with pytest.raises(TypeError, match="input `output`: a source is a key"):
        asyncio.run(em.async_evaluate({"o": "a"}, input_mapping={"output": 5}))


def test_a_bad_name_is_refused_at_creation():
    for bad in (5, None, ""):
        with pytest.raises((TypeError, ValueError), match="name"):
            create_evaluator(name=bad)
    with pytest.raises(TypeError, match="name"):
        _Echo(name=5)
    with pytest.raises(ValueError, match="kind"):
        create_evaluator(name="x", kind="robot")


def test_a_bare_score_from_evaluate_is_a_list():
    class Bare(refscore.Evaluator):
        def _evaluate(self, eval_input):
            return Score(name=self.name, score=1.0)

    class Wrong(refscore.Evaluator):
        def _evaluate(self, eval_input):
            return 1.0

    assert Bare(name="bare").evaluate({"x": 1}) == [Score(name="bare", score=1.0)]
    assert asyncio.run(Bare(name="bare").async_evaluate({"x": 1})) == [Score(name="bare", score=1.0)]
    out = evaluate_dataframe(pd.DataFrame({"x": [1]}), [Bare(name="bare")])
    assert out["bare_score"][0]["score"] == 1.0
    with pytest.raises(TypeError, match="a Score or a list of Scores"):
        Wrong(name="wrong").evaluate({"x": 1})
    out = evaluate_dataframe(pd.DataFrame({"x": [1]}), [Wrong(name="wrong")])
    assert "a Score or a list of Scores" in out["wrong_execution_details"][0]["error"]


# -- 10. Ctrl-C keeps the rows that finished --------------------------------------------


def _interrupt_after(seconds):
    import os
    import signal

    timer = threading.Timer(seconds, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    return timer


def test_ctrl_c_keeps_the_finished_python_rows():
    @create_evaluator(name="slow")
    def slow(output: str) -> float:
        time.sleep(0.05)
        return 1.0

    df = pd.DataFrame({"output": [f"r{i}" for i in range(200)]})
    timer = _interrupt_after(0.5)
    with pytest.raises(KeyboardInterrupt) as e:
        evaluate_dataframe(df, [slow])
    timer.join()
    partial = e.value.partial_result
    statuses = [d["status"] for d in partial["slow_execution_details"]]
    done = statuses.count("completed")
    assert 0 < done < 200
    assert statuses == ["completed"] * done + ["did not run"] * (200 - done)
    assert [s["score"] for s in partial["slow_score"][:done]] == [1.0] * done
    assert all(s is None for s in partial["slow_score"][done:])


def test_ctrl_c_keeps_the_finished_judged_rows(slow_llm):
    df = pd.DataFrame({"answer": [f"a{i}" for i in range(40)]})
    judge = _judge(slow_llm, 1)
    timer = _interrupt_after(1.0)
    with pytest.raises(KeyboardInterrupt) as e:
        evaluate_dataframe(df, [judge], threads=1)
    timer.join()
    partial = e.value.partial_result
    statuses = [d["status"] for d in partial["verdict_execution_details"]]
    done = statuses.count("completed")
    assert 0 < done < 40, statuses
    assert statuses[-1] == "did not run"
    assert [s["label"] for s in partial["verdict_score"] if s is not None] == ["good"] * done


# -- 10. phoenix-evals' executor settings ---------------------------------------


def _flaky(fails_per_row):
    """An evaluator whose every row raises ``fails_per_row`` times, then
    scores 1; its calls are counted per row."""
    calls = {}

    @create_evaluator(name="flaky")
    def flaky(output: str) -> float:
        calls[output] = calls.get(output, 0) + 1
        if calls[output] <= fails_per_row:
            raise ConnectionError(f"attempt {calls[output]} of {output}")
        return 1.0

    return flaky, calls


def test_phoenix_documented_call_with_its_executor_settings_runs():
    # phoenix-evals' own example: evaluate_dataframe(dataframe=df, evaluators=..., hide_tqdm_bar=True).
    @create_evaluator(name="word_count")
    def word_count(text: str) -> int:
        return len(text.split())

    df = pd.DataFrame({"text": ["Hello world", "A b c"]})
    out = evaluate_dataframe(
        dataframe=df, evaluators=[word_count], hide_tqdm_bar=True, exit_on_error=False, max_retries=3
    )
    assert [s["score"] for s in out["word_count_score"]] == [2, 3]
    out = evaluate_dataframe(df, [word_count], tqdm_bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt}")
    assert [d["status"] for d in out["word_count_execution_details"]] == ["completed"] * 2


def test_max_retries_calls_a_raising_python_evaluator_again():
    flaky, calls = _flaky(2)
    df = pd.DataFrame({"output": ["a", "b"]})
    out = evaluate_dataframe(df, [flaky], max_retries=2)
    assert calls == {"a": 3, "b": 3}
    assert [d["status"] for d in out["flaky_execution_details"]] == ["completed with retries"] * 2
    assert [d["error"] for d in out["flaky_execution_details"]] == [None, None]
    assert [s["score"] for s in out["flaky_score"]] == [1.0, 1.0]

    # One retry short: the last attempt's error, no score; no retry by default.
    flaky, calls = _flaky(2)
    out = evaluate_dataframe(df, [flaky], max_retries=1)
    assert calls == {"a": 2, "b": 2}
    assert [d["status"] for d in out["flaky_execution_details"]] == ["failed"] * 2
    assert out["flaky_execution_details"][0]["error"] == "ConnectionError: attempt 2 of a"
    assert list(out["flaky_score"]) == [None, None]
    flaky, calls = _flaky(1)
    evaluate_dataframe(df, [flaky])
    assert calls == {"a": 1, "b": 1}


def test_async_max_retries_calls_a_raising_python_evaluator_again():
    flaky, calls = _flaky(1)
    df = pd.DataFrame({"output": ["a", "b", "c"]})
    out = asyncio.run(refscore.async_evaluate_dataframe(df, [flaky], max_retries=1, concurrency=2))
    assert calls == {"a": 2, "b": 2, "c": 2}
    assert [d["status"] for d in out["flaky_execution_details"]] == ["completed with retries"] * 3


def _fails_at(bad):
    @create_evaluator(name="fails_at")
    def fails_at(output: str) -> float:
        if output == bad:
            raise ValueError(f"bad row {output}")
        return 1.0

    return fails_at


def test_exit_on_error_starts_nothing_after_the_first_failure():
    ran = []

    @create_evaluator(name="after")
    def after(output: str) -> float:
        ran.append(output)
        return 1.0

    df = pd.DataFrame({"output": [f"r{i}" for i in range(6)]})
    out = evaluate_dataframe(df, [_fails_at("r2"), after], exit_on_error=True)
    statuses = [d["status"] for d in out["fails_at_execution_details"]]
    assert statuses == ["completed", "completed", "failed", "did not run", "did not run", "did not run"]
    assert [d["status"] for d in out["after_execution_details"]] == ["did not run"] * 6
    assert ran == []
    assert out["fails_at_score"][3] is None
    # The default (and False) keeps going: one bad row fails alone.
    for setting in ({}, {"exit_on_error": False}):
        out = evaluate_dataframe(df, [_fails_at("r2"), after], **setting)
        assert [d["status"] for d in out["fails_at_execution_details"]].count("failed") == 1
        assert [d["status"] for d in out["after_execution_details"]] == ["completed"] * 6


def test_exit_on_error_after_a_failed_builtin_row_runs_no_python_evaluator():
    df = pd.DataFrame({"output": ['{"a": 1}', '{"a": 2}'], "expected": ['{"a": 1}', None]})
    after = _fails_at("never")
    out = evaluate_dataframe(df, [refscore.metrics.json_distance(), after], exit_on_error=True)
    assert [d["status"] for d in out["json_distance_execution_details"]] == ["completed", "failed"]
    assert [d["status"] for d in out["fails_at_execution_details"]] == ["did not run"] * 2


def test_exit_on_error_stops_a_builtin_column_at_its_first_failed_row():
    # One thread: the rows are begun in order, so every row after the
    # failed one is not begun.
    expected = ['{"a": 1}'] * 40
    expected[3] = None
    df = pd.DataFrame({"output": ['{"a": 1}'] * 40, "expected": expected})
    out = evaluate_dataframe(df, [refscore.metrics.json_distance()], exit_on_error=True, threads=1)
    statuses = [d["status"] for d in out["json_distance_execution_details"]]
    assert statuses == ["completed"] * 3 + ["failed"] + ["did not run"] * 36
    assert out["json_distance_score"][10] is None
    out = evaluate_dataframe(df, [refscore.metrics.json_distance()], threads=1)
    assert [d["status"] for d in out["json_distance_execution_details"]].count("completed") == 39


def test_async_exit_on_error_starts_nothing_after_the_first_failure():
    df = pd.DataFrame({"output": [f"r{i}" for i in range(8)]})
    out = asyncio.run(
        refscore.async_evaluate_dataframe(df, [_fails_at("r0")], exit_on_error=True, concurrency=1)
    )
    statuses = [d["status"] for d in out["fails_at_execution_details"]]
    assert statuses == ["failed"] + ["did not run"] * 7


def test_executor_settings_are_checked():
    df = pd.DataFrame({"output": ["a"]})
    ev = _fails_at("x")
    with pytest.raises(ValueError, match="max_retries"):
        evaluate_dataframe(df, [ev], max_retries=-1)
    with pytest.raises(ValueError, match="max_retries"):
        evaluate_dataframe(df, [ev], max_retries=True)
    with pytest.raises(TypeError, match="exit_on_error"):
        evaluate_dataframe(df, [ev], exit_on_error="yes")
    with pytest.raises(TypeError, match="tqdm_bar_format"):
        evaluate_dataframe(df, [ev], tqdm_bar_format=3)


class _FakeBar:
    """Stands in for tqdm's bar: what it was made with and advanced by."""

    made = []

    def __init__(self, total, bar_format):
        self.total, self.bar_format, self.n, self.closed = total, bar_format, 0, False
        _FakeBar.made.append(self)

    def update(self, n=1):
        self.n += n

    def close(self):
        self.closed = True


@pytest.fixture()
def fake_tqdm(monkeypatch):
    import sys
    import types

    auto = types.ModuleType("tqdm.auto")
    auto.tqdm = _FakeBar
    package = types.ModuleType("tqdm")
    package.auto = auto
    monkeypatch.setitem(sys.modules, "tqdm", package)
    monkeypatch.setitem(sys.modules, "tqdm.auto", auto)
    _FakeBar.made = []
    return _FakeBar


def test_a_progress_bar_counts_every_evaluation_unless_hidden(fake_tqdm):
    df = pd.DataFrame({"output": ['{"a": 1}'] * 5, "expected": ['{"a": 1}'] * 5})
    evaluators = [refscore.metrics.json_distance(), _fails_at("none")]
    evaluate_dataframe(df, evaluators)
    [bar] = fake_tqdm.made
    assert (bar.total, bar.n, bar.closed) == (10, 10, True)
    assert bar.bar_format.startswith("Evaluating Dataframe |{bar}|")
    asyncio.run(refscore.async_evaluate_dataframe(df, evaluators, tqdm_bar_format="{n_fmt}"))
    bar = fake_tqdm.made[-1]
    assert (bar.total, bar.n, bar.bar_format, bar.closed) == (10, 10, "{n_fmt}", True)
    evaluate_dataframe(df, evaluators, hide_tqdm_bar=True)
    assert len(fake_tqdm.made) == 2


# -- 11. bind in place ----------------------------------------------------------


def test_bind_binds_in_place_as_phoenix_does_and_bind_evaluator_copies():
    ev = _Echo(name="echo")
    # phoenix-evals' idiom: bind as a statement, then use the evaluator.
    ev.bind({"answer": "output"})
    assert ev.input_mapping == {"answer": "output"}
    out = evaluate_dataframe(pd.DataFrame({"output": ["abc"]}), [ev])
    assert out["echo_score"][0]["metadata"]["input"] == {"answer": "abc"}
    # Chaining reads as well; a failed bind keeps the mapping it had.
    assert ev.bind({"answer": "output"}) is ev
    with pytest.raises(ValueError):
        ev.bind({"answer": "$.a["})
    assert ev.input_mapping == {"answer": "output"}
    copy_ = refscore.bind_evaluator(ev, {"answer": "other"})
    assert copy_ is not ev and copy_.input_mapping == {"answer": "other"}
    assert ev.input_mapping == {"answer": "output"}
    # A per-call mapping changes nothing either.
    ev.evaluate({"x": "y"}, input_mapping={"answer": "x"})
    assert ev.input_mapping == {"answer": "output"}
    ev.unbind()
    assert ev.input_mapping == {}

