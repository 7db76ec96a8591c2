"""ClassificationEvaluator on the Rust HTTP client, against the scripted
OpenAI-compatible server."""

import pandas as pd
import pytest

import refscore


def test_classification_over_a_frame(scripted_llm):
    judge = refscore.ClassificationEvaluator(
        name="verdict",
        prompt_template="Question: {question}\nAnswer: {answer}\nLABEL={hint}",
        choices={"good": 1.0, "bad": (0.0, "the answer is wrong")},
        judge={"model": "judge-model", "base_url": scripted_llm, "api_key_env": "REFSCORE_TEST_NO_KEY"},
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


def test_bad_judge_settings_are_refused():
    with pytest.raises(ValueError):
        refscore.ClassificationEvaluator(name="v", prompt_template="{x}", choices=["a"], judge={"no_model": 1})


def test_built_in_judges_take_judge_settings(scripted_llm):
    ev = refscore.metrics.hallucination(judge={"model": "m", "base_url": scripted_llm, "api_key_env": "REFSCORE_TEST_NO_KEY"})
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
            "api_key_env": "REFSCORE_TEST_NO_KEY",
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
    # One more call adds to the same counters.
    judge.evaluate({"answer": "e", "hint": "good"})
    assert judge.judge_usage()[0]["evaluations"] == 5
    # A code metric asks no judge.
    assert refscore.metrics.json_distance().judge_usage() == []
