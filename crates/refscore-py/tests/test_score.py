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
