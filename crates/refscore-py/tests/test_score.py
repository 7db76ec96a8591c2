"""Score: fields, validation, and the same JSON form as the Rust Score."""

import math

import pytest

import refscore
from refscore import Score, _refscore


def test_defaults_and_to_dict_match_the_rust_json():
    s = Score(name="m", score=1, label="match")
    assert s.score == 1.0 and s.kind == "code" and s.direction == "maximize"
    d = s.to_dict()
    assert d == {"name": "m", "score": 1.0, "label": "match", "direction": "maximize", "kind": "code"}
    # Read by the Rust library and written back: the same dict.
    assert _refscore.score_json(d) == d


def test_every_field_round_trips_through_rust():
    s = Score(
        name="judge",
        score=None,
        label="invalid",
        explanation="not JSON",
        metadata={"line": 3, "nested": {"a": [1, 2]}},
        kind="llm",
        direction="minimize",
        details=[{"check": "json_path.$.a", "passed": False, "outcome": "value_mismatch", "score": 0.0}],
    )
    d = s.to_dict()
    assert d["score"] is None and "details" in d and d["metadata"]["nested"] == {"a": [1, 2]}
    assert _refscore.score_json(d) == d
    assert Score.from_dict(d) == s


def test_scores_from_rust_metrics_equal_their_dicts():
    [s] = refscore.metrics.json_distance().evaluate({"output": '{"a": 1}', "reference": '{"a": 2}'})
    assert isinstance(s, Score)
    assert s.score == 1.0 and s.label == "mismatch" and s.direction == "minimize"
    assert _refscore.score_json(s.to_dict()) == s.to_dict()
    assert Score.from_dict(s.to_dict()) == s


def test_immutable_and_validated():
    s = Score(name="m", score=0.5)
    with pytest.raises(Exception):
        s.score = 1.0  # type: ignore[misc]
    with pytest.raises(ValueError):
        Score(name="m", score=math.nan)
    with pytest.raises(ValueError):
        Score(name="m", score=math.inf)
    with pytest.raises(ValueError):
        Score(name="m", kind="robot")
    with pytest.raises(ValueError):
        Score(name="m", direction="up")
    with pytest.raises(TypeError):
        Score(name="m", score="high")  # type: ignore[arg-type]
    assert Score(name="m", kind="heuristic").kind == "code"
    with pytest.raises(ValueError):
        _refscore.score_json({"name": "m"})


def test_every_registry_metric_has_a_typed_function():
    from pathlib import Path

    stub = (Path(refscore.__file__).parent / "metrics.pyi").read_text()
    for spec in refscore.metrics.available():
        assert f"def {spec['name']}(" in stub, spec["name"]
        assert callable(getattr(refscore.metrics, spec["name"]))
        assert spec["description"] in getattr(refscore.metrics, spec["name"]).__doc__


def test_metadata_is_one_json_form_for_pandas_polars_to_dict_and_to_json():
    import json

    import numpy as np
    import pandas as pd
    import polars as pl

    @refscore.create_evaluator(name="m")
    def m(output):
        return {"score": 1.0, "metadata": {"x": np.array([1, 2]), "n": np.int64(3), "f": np.float32(0.5), "t": (1, "a")}}

    [s] = m.evaluate({"output": "a"})
    plain = {"x": [1, 2], "n": 3, "f": 0.5, "t": [1, "a"]}
    assert s.metadata == plain and type(s.metadata["n"]) is int
    assert json.dumps(s.to_dict())  # plain values: json needs no help
    assert json.loads(s.to_json())["metadata"] == plain
    frame = {"output": ["a"]}
    from_pandas = refscore.evaluate_dataframe(pd.DataFrame(frame), [m])["m_score"][0]
    from_polars = json.loads(refscore.evaluate_dataframe(pl.DataFrame(frame), [m])["m_score"][0])
    assert from_pandas == from_polars == s.to_dict()
    assert type(from_pandas["metadata"]["x"]) is list
    # Score itself: numpy values become plain ones.
    direct = Score(name="s", score=1.0, metadata={"n": np.int64(5), "a": np.arange(2)}, details=[{"check": "c", "v": np.float64(1.5)}])
    assert json.dumps(direct.to_dict()) and direct.metadata == {"n": 5, "a": [0, 1]}
    assert direct.details == ({"check": "c", "v": 1.5},)


@pytest.mark.parametrize(
    "metadata,error,message",
    [
        ({"x": float("nan")}, ValueError, r"metadata at \$\.x: NaN has no JSON form"),
        ({"x": {"y": [1, float("inf")]}}, ValueError, r"metadata at \$\.x\.y\[1\]: inf has no JSON form"),
        ({"x": {1, 2}}, TypeError, r"metadata at \$\.x: a value of type set has no JSON form"),
        ({1: "a"}, TypeError, r"metadata: dict keys must be strings"),
        (["x"], TypeError, r"metadata must be a dict, got list"),
    ],
)
def test_metadata_with_no_json_form_is_refused_alike_everywhere(metadata, error, message):
    import numpy as np
    import pandas as pd
    import polars as pl

    with pytest.raises(error, match=message):
        Score(name="s", score=1.0, metadata=metadata)

    @refscore.create_evaluator(name="m")
    def m(output):
        return {"score": 1.0, "metadata": metadata}

    with pytest.raises(error, match=message):
        m.evaluate({"output": "a"})
    # Every output format fails the row with the same error.
    frame = {"output": ["a"]}
    for df in (pd.DataFrame(frame), pl.DataFrame(frame)):
        for fmt in ("dict", "json"):
            out = refscore.evaluate_dataframe(df, [m], score_format=fmt)
            [details] = list(out["m_execution_details"])
            assert details["status"] == "failed" and details["error"].startswith(error.__name__), (type(df), fmt)
            assert list(out["m_score"]) == [None]
    with pytest.raises(ValueError, match="NaN has no JSON form"):
        Score(name="s", metadata={"x": np.float32("nan")})


def test_label_and_explanation_must_be_strings():
    for field in ("label", "explanation"):
        for bad in (5, ["a"], b"a"):
            with pytest.raises(TypeError, match=f"{field} must be a string or None, got {type(bad).__name__}"):
                Score(name="s", score=None, **{field: bad})

    @refscore.create_evaluator(name="m")
    def m(output):
        return {"score": 1.0, "label": 5}

    with pytest.raises(TypeError, match="label must be a string"):
        m.evaluate({"output": "a"})
    assert Score(name="s", label="ok", explanation="why").to_dict()["label"] == "ok"


def test_an_option_that_holds_itself_is_refused_not_walked_forever():
    rules: dict = {}
    rules["rules"] = rules
    with pytest.raises((TypeError, ValueError)):
        refscore.metrics.json_match(rules=rules)
    loop: list = []
    loop.append(loop)
    with pytest.raises((TypeError, ValueError)):
        refscore.metrics.json_match(rules={"rules": loop})


def test_numpy_longdouble_reads_as_a_number():
    np = pytest.importorskip("numpy")
    [s] = refscore.metrics.exact_match().evaluate({"output": np.longdouble(0.5), "expected": "0.5"})
    assert s.score == 1.0
    assert Score(name="x", score=1.0, metadata={"p": np.longdouble(1)}).metadata == {"p": 1.0}


def test_integers_beyond_64_bits_read_as_doubles_and_past_them_are_refused_with_their_path():
    em = refscore.metrics.exact_match()
    # As the command line reads the same JSON text: the nearest double.
    assert em.evaluate({"output": 2**64, "expected": 2**64})[0].score == 1.0
    with pytest.raises(ValueError, match=r"at \$\.output\.items\[1\]: an integer too large for a double"):
        em.evaluate({"output": {"items": [1, 10**400]}, "expected": "x"})
    with pytest.raises(ValueError, match="an integer too large for a double"):
        Score(name="x", score=1.0, metadata={"n": 10**400})


def test_a_function_may_return_a_decimal_or_a_fraction():
    import decimal
    import fractions

    @refscore.create_evaluator(name="cost")
    def cost(output: str):
        return decimal.Decimal("0.5") if output == "d" else fractions.Fraction(1, 4)

    assert cost.evaluate({"output": "d"})[0].score == 0.5
    assert cost.evaluate({"output": "f"})[0].score == 0.25


def test_scores_read_back_from_a_csv_keep_failed_rows_as_none():
    pd = pytest.importorskip("pandas")
    import io

    df = pd.DataFrame({"output": ['{"a":1}', None], "expected": ['{"a":1}'] * 2})
    out = refscore.evaluate_dataframe(df, [refscore.metrics.json_distance()], score_format="json", hide_tqdm_bar=True)
    back = pd.read_csv(io.StringIO(out.to_csv(index=False)))
    scores = refscore.scores_from_column(back["json_distance_score"])
    assert scores[0] is not None and scores[0].score == 0.0
    assert scores[1] is None
    assert refscore.scores_from_column([None, float("nan"), pd.NA]) == [None, None, None]
