"""create_evaluator: sync and async functions, return conversion."""

import asyncio

import pytest

import refscore
from refscore import Score, create_evaluator


@create_evaluator(name="exact_match")
def exact_match(output: str, expected: str) -> bool:
    return output == expected


@create_evaluator(name="slow_len", direction="minimize")
async def slow_len(output: str, limit: int = 10) -> float:
    await asyncio.sleep(0)
    return float(len(output) - limit)


def test_schema_from_signature():
    schema = exact_match.describe()["input_schema"]
    assert schema["required"] == ["output", "expected"]
    assert schema["properties"]["output"] == {"title": "Output", "type": "string"}
    s2 = slow_len.describe()["input_schema"]
    assert s2["required"] == ["output"] and s2["properties"]["limit"]["default"] == 10


def test_sync_function_and_still_callable():
    [s] = exact_match.evaluate({"output": "Yes", "expected": "Yes", "other": 1})
    assert (s.name, s.score, s.label, s.kind) == ("exact_match", 1.0, "True", "code")
    assert exact_match("a", "b") is False
    [s] = asyncio.run(exact_match.async_evaluate({"output": "Yes", "expected": "No"}))
    assert s.score == 0.0 and s.label == "False"


def test_async_function():
    [s] = asyncio.run(slow_len.async_evaluate({"output": "abc"}))
    assert s.score == -7.0 and s.direction == "minimize"
    with pytest.raises(RuntimeError, match="async"):
        slow_len.evaluate({"output": "abc"})


@pytest.mark.parametrize(
    "value, expected",
    [
        (0.25, {"score": 0.25}),
        (3, {"score": 3.0}),
        ("good", {"label": "good"}),
        ("this is a long explanation", {"explanation": "this is a long explanation"}),
        ({"score": 0.5, "label": "partial", "explanation": "half"}, {"score": 0.5, "label": "partial", "explanation": "half"}),
        ((0.9, "good", "mostly right but not quite"), {"score": 0.9, "label": "good", "explanation": "mostly right but not quite"}),
        (Score(name="other", score=0.1, kind="human"), {"score": 0.1}),
    ],
)
def test_return_conversion(value, expected):
    @create_evaluator(name="conv", kind="llm")
    def f(x):
        return value

    [s] = f.evaluate({"x": 1})
    assert s.name == "conv" and s.kind == "llm"
    for k, v in expected.items():
        assert getattr(s, k) == v


def test_bad_returns_raise():
    @create_evaluator(name="bad")
    def f(x):
        return object()

    with pytest.raises(ValueError, match="returned object"):
        f.evaluate({"x": 1})

    @create_evaluator(name="nan")
    def g(x):
        return float("nan")

    with pytest.raises(ValueError, match="finite"):
        g.evaluate({"x": 1})


def test_numpy_scalars_returned_are_bools_and_numbers():
    import numpy as np

    from refscore import create_evaluator

    @create_evaluator(name="same")
    def same(output: str, expected: str):
        return np.bool_(output == expected)

    @create_evaluator(name="length")
    def length(output: str):
        return np.int64(len(output))

    @create_evaluator(name="half")
    def half(output: str):
        return {"score": np.float32(0.5), "label": "half"}

    [s] = same.evaluate({"output": "a", "expected": "a"})
    assert (s.score, s.label) == (1.0, "True")
    assert length.evaluate({"output": "abc"})[0].score == 3.0
    assert half.evaluate({"output": "abc"})[0].score == 0.5


def test_pandas_and_numpy_missing_values_are_missing_for_python_evaluators():
    import numpy as np
    import pandas as pd

    from refscore import create_evaluator

    @create_evaluator(name="seen")
    def seen(output) -> str:
        return type(output).__name__

    for v in (pd.NA, pd.NaT, np.float32("nan"), np.float64("nan"), np.datetime64("NaT")):
        with pytest.raises(ValueError, match="required input `output` is missing"):
            seen.evaluate({"output": v})
    assert seen.evaluate({"output": np.float32(1.0)})[0].label == "float32"


@create_evaluator(name="picklable")
def picklable(output: str, expected: str = "x") -> float:
    """Scores 1 when output is expected."""
    return 1.0 if output == expected else 0.0


class _Subclassed(refscore.Evaluator):
    def __init__(self) -> None:
        super().__init__(name="sub", input_schema={"type": "object", "properties": {"output": {}}, "required": ["output"]})

    def _evaluate(self, inputs):
        return [Score(name="sub", score=float(inputs["output"] == "x"))]


def test_evaluators_pickle_with_plain_pickle():
    # The decorator rebinds the function's name to the evaluator: pickle
    # (multiprocessing, ProcessPoolExecutor) could not find the function.
    import pickle

    for ev in [picklable, refscore.bind_evaluator(picklable, {"output": "doc.text"}), _Subclassed().bind({"output": "doc.text"})]:
        back = pickle.loads(pickle.dumps(ev))
        assert (back.name, back.input_mapping) == (ev.name, ev.input_mapping)
        assert back.evaluate({"output": "x", "doc": {"text": "x"}})[0].score == 1.0
    assert pickle.loads(pickle.dumps(picklable)).__doc__ == picklable.__doc__
    # The decorated object stays the plain function when called.
    assert picklable("x") == 1.0 and picklable("y") == 0.0


def test_evaluators_reach_a_spawned_process():
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        scores = list(pool.map(_score_x, [picklable, refscore.bind_evaluator(picklable, {"output": "doc.text"})]))
    assert scores == [1.0, 1.0]


def _score_x(ev):
    return ev.evaluate({"output": "x", "doc": {"text": "x"}})[0].score


def test_two_scores_of_one_name_fail_the_row():
    pd = __import__("pytest").importorskip("pandas")

    @create_evaluator(name="acc")
    def acc(output: str) -> list:
        return [Score(name="x", score=1.0), Score(name="acc", score=0.0)]

    with pytest.raises(ValueError, match="returned two scores named `acc`"):
        acc.evaluate({"output": "a"})
    out = refscore.evaluate_dataframe(pd.DataFrame({"output": ["a"]}), [acc])
    assert out["acc_score"][0] is None
    assert "two scores named" in out["acc_execution_details"][0]["error"]


def test_async_concurrency_must_be_a_whole_number():
    pd = __import__("pytest").importorskip("pandas")
    # None is the default: 3 Python evaluations, each judge its own max_concurrency.
    for bad in [float("nan"), 1.5, "3", True, 0]:
        with pytest.raises(ValueError, match="concurrency must be a whole number"):
            asyncio.run(refscore.async_evaluate_dataframe(pd.DataFrame({"output": ["a"]}), [exact_match], concurrency=bad))
