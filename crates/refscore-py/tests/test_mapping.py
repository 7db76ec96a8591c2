"""Input mapping and binding, as phoenix-evals documents them."""

import pytest

import refscore
from refscore import Score, bind_evaluator, create_evaluator

EVAL_INPUT = {
    "input": {"query": "How do I reset?", "documents": ["Manual", "Guide"]},
    "output": {"answer": " Go to settings > reset. "},
    "expected": "correct answer",
}


@create_evaluator(name="echo")
def echo(query: str, context: list, response: str) -> Score:
    return Score(name="x", score=1.0, metadata={"query": query, "context": context, "response": response})


def test_path_mapping_with_bind_evaluator():
    bound = bind_evaluator(echo, {"query": "input.query", "context": "input.documents", "response": "output.answer"})
    [s] = bound(EVAL_INPUT)
    assert s.name == "echo"
    assert s.metadata == {"query": "How do I reset?", "context": ["Manual", "Guide"], "response": " Go to settings > reset. "}
    # Binding does not change the original.
    assert echo.input_mapping == {}


def test_array_indexing_and_dollar_paths():
    bound = bind_evaluator(echo, {"query": "input.documents[0]", "context": "input.documents", "response": "$.input.documents[-1]"})
    [s] = bound.evaluate(EVAL_INPUT)
    assert s.metadata["query"] == "Manual" and s.metadata["response"] == "Guide"


def test_callables_one_parameter_gets_the_row_several_by_name():
    def extract_context(eval_input):
        return " ".join(eval_input.get("input", {}).get("documents", [])[:3])

    bound = bind_evaluator(echo, 
        {
            "query": lambda x: x["input"]["query"].lower(),
            "context": extract_context,
            "response": lambda output, expected: output["answer"].strip() + "|" + expected,
        }
    )
    [s] = bound.evaluate(EVAL_INPUT)
    assert s.metadata == {"query": "how do i reset?", "context": "Manual Guide", "response": "Go to settings > reset.|correct answer"}


def test_a_key_with_dots_wins_over_the_path():
    bound = bind_evaluator(echo, {"query": "a.b", "context": "c", "response": "c"})
    [s] = bound.evaluate({"a.b": "direct", "a": {"b": "nested"}, "c": "x"})
    assert s.metadata["query"] == "direct"
    [s] = bound.evaluate({"a": {"b": "nested"}, "c": "x"})
    assert s.metadata["query"] == "nested"


def test_missing_or_empty_required_inputs_raise_value_error():
    with pytest.raises(ValueError, match="query"):
        echo.evaluate({"context": [], "response": "r"})
    with pytest.raises(ValueError, match="empty"):
        echo.evaluate({"query": "  ", "context": [], "response": "r"})
    with pytest.raises(ValueError, match="missing"):
        echo.evaluate({"query": None, "context": [], "response": "r"})
    with pytest.raises(ValueError):
        bind_evaluator(echo, {"query": "input.nothing"}).evaluate({"input": {}, "context": [], "response": "r"})


def test_bind_checks_paths_and_sources_at_once():
    with pytest.raises(ValueError):
        bind_evaluator(echo, {"query": "$.a["})
    with pytest.raises(TypeError):
        bind_evaluator(echo, {"query": 3})  # type: ignore[dict-item]


def test_a_mapping_naming_an_input_the_evaluator_lacks_is_refused():
    # A typo would be ignored, and the input it meant read from its own key.
    with pytest.raises(ValueError, match=r"evaluator `echo` has no input `qeury`; its inputs: query, context, response"):
        bind_evaluator(echo, {"qeury": "input.query"})
    with pytest.raises(ValueError, match="has no input `outptu`"):
        refscore.metrics.json_distance().bind({"outptu": "a"})
    with pytest.raises(ValueError, match="has no input `answer`"):
        echo.evaluate({"query": "q", "context": [], "response": "r"}, input_mapping={"answer": "query"})
    # An evaluator that takes no inputs has none to map.
    @create_evaluator(name="const")
    def const() -> float:
        return 1.0

    with pytest.raises(ValueError, match="evaluator `const` has no input `output`; it takes no inputs"):
        const.bind({"output": "answer"})
    assert const.evaluate({"anything": 1})[0].score == 1.0
    # The inputs it has are accepted.
    assert refscore.metrics.json_distance().bind({"output": "a", "reference": "b"}).input_mapping == {
        "output": "a",
        "reference": "b",
    }


def test_describe_shows_schema_and_mapping():
    d = bind_evaluator(echo, {"query": "input.query", "context": lambda r: r}).describe()
    assert d["name"] == "echo" and d["kind"] == "code" and d["direction"] == "maximize"
    assert d["input_schema"]["required"] == ["query", "context", "response"]
    assert d["input_schema"]["properties"]["query"]["type"] == "string"
    assert d["input_mapping"]["query"] == "input.query"
    assert d["input_mapping"]["context"].startswith("<callable")


def test_rust_metrics_map_keys_paths_and_callables():
    ev = refscore.metrics.json_distance().bind(
        {"output": "response.body", "reference": lambda row: row["gold"][0]}
    )
    [s] = ev.evaluate({"response": {"body": {"a": 1, "b": 2}}, "gold": [{"a": 1, "b": 3}]})
    assert s.score == 1.0
    # Unmapped `reference` also reads `expected`, as a suite run does.
    [s] = refscore.metrics.json_distance().evaluate({"output": {"a": 1}, "expected": {"a": 1}})
    assert s.score == 0.0 and s.label == "match"
    with pytest.raises(ValueError, match="reference"):
        refscore.metrics.json_distance().evaluate({"output": {"a": 1}})
    d = ev.describe()
    assert d["metric"] == "json_distance" and d["input_schema"]["required"] == ["output", "reference"]


def test_a_path_converts_only_the_keys_it_reads():
    # A set, a custom object or a key that is not a string elsewhere in
    # the row has no JSON form; a path that does not read it never fails
    # on it.
    bound = bind_evaluator(echo, {"query": "input.query", "context": "input.documents", "response": "$.out"})
    row = {
        "input": {"query": "q", "documents": ["d"]},
        "out": "r",
        "tags": {1, 2},
        "handle": object(),
        3: "a key that is a number",
    }
    assert bound.evaluate(row)[0].score == 1.0
    # A path that reads every key still fails on the one without a JSON form.
    anything = bind_evaluator(echo, {"query": "input.query", "context": "$.*", "response": "$.out"})
    with pytest.raises(TypeError, match="set has no JSON form"):
        anything.evaluate(row)


def test_frames_with_column_names_that_are_not_strings():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"doc": [{"o": "x", "r": "x"}], 5: [1]})
    native = refscore.metrics.exact_match().bind({"output": "doc.o", "reference": "doc.r"})
    out = refscore.evaluate_dataframe(df, [native])
    assert out["exact_match_score"][0]["score"] == 1.0
    assert out[5][0] == 1


def test_a_path_reads_the_column_its_first_step_names_only():
    # `ts` is a substring of nothing here, but `o` is of `outputs.answer`:
    # only `outputs` is read, whatever else the row holds.
    import datetime

    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"outputs": [{"answer": "Paris"}], "expected": ["Paris"], "ts": [pd.Timestamp("2024-05-01")], "o": [pd.Timestamp("2024-05-02")]})
    native = refscore.metrics.exact_match().bind({"output": "outputs.answer"})
    out = refscore.evaluate_dataframe(df, [native])
    assert out["exact_match_execution_details"][0]["status"] == "completed", out["exact_match_execution_details"][0]
    assert out["exact_match_score"][0]["score"] == 1.0
    # One row, through evaluate(), as the frame does.
    row = {"outputs": {"answer": "Paris"}, "expected": "Paris", "when": datetime.datetime.now(), 5: "x"}
    assert refscore.metrics.exact_match().bind({"output": "$['outputs'].answer"}).evaluate(row)[0].score == 1.0
    assert refscore.metrics.json_distance().evaluate({"output": "{}", "expected": "{}", "when": datetime.datetime.now()})[0].score == 0.0
    # A Python evaluator's path likewise.
    bound = bind_evaluator(echo, {"query": "input.query", "context": "input.documents", "response": "input.query"})
    assert bound.evaluate({"input": {"query": "q", "documents": []}, "in": datetime.datetime.now()})[0].score == 1.0


def test_an_int_column_and_a_str_column_of_the_same_digits_are_two_columns():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"output": ["a"], "expected": ["a"], 5: ["x"], "5": ["y"]})
    out = refscore.evaluate_dataframe(df, [refscore.metrics.exact_match().bind({"reference": "5", "output": "5"})])
    assert out["exact_match_score"][0]["score"] == 1.0


def test_an_input_not_found_lists_every_key_of_the_row_not_only_those_read():
    # Only the keys read are converted; the error lists the row's keys, as
    # the CLI lists a row's columns.
    with pytest.raises(ValueError, match=r"no column `reference` or `expected` and no mapping for it \(columns: gold, output\)$"):
        refscore.metrics.json_match().evaluate({"output": "{}", "gold": "{}"})
    with pytest.raises(ValueError, match=r"input `reference` from `answer`: no such column \(columns: gold, output\)$"):
        refscore.metrics.json_match().bind({"reference": "answer"}).evaluate({"output": "{}", "gold": "{}"})
    # A Python evaluator's mapping likewise.
    with pytest.raises(ValueError, match=r"input `query` from `question`: no such column \(columns: context, q, response\)$"):
        bind_evaluator(echo, {"query": "question"}).evaluate({"q": "x", "context": [], "response": "r"})


def test_a_function_value_without_json_form_is_named_by_its_input():
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    ev = refscore.metrics.exact_match().bind({"output": lambda row: {"o": {row["o"]}}})
    with pytest.raises(TypeError) as e:
        ev.evaluate({"o": "a", "expected": "a"})
    message = str(e.value)
    assert message.startswith("input `output` (the value its function returned): at $.o"), message
    assert "__refscore" not in message
    for frame in (pd.DataFrame({"o": ["a"], "expected": ["a"]}), pl.DataFrame({"o": ["a"], "expected": ["a"]})):
        r = refscore.evaluate_dataframe(frame, [ev], hide_tqdm_bar=True)
        error = r["exact_match_execution_details"][0]["error"]
        assert error.startswith("row 0: input `output` (the value its function returned): TypeError"), error
        assert "__refscore" not in error
