"""evaluate_dataframe and async_evaluate_dataframe on pandas and polars."""

import asyncio
import json
import sys
import threading
import time
import warnings

import numpy as np
import pandas as pd
import polars as pl
import pytest

import refscore
from refscore import Score, create_evaluator, evaluate_dataframe, async_evaluate_dataframe

ROWS = {
    "output": ['{"a": 1, "b": 2}', '{"a": 1}', "not json at all", None],
    "expected": ['{"a": 1, "b": 2}', '{"a": 2}', '{"a": 1}', '{"a": 1}'],
}


@create_evaluator(name="length")
def length(output: str) -> float:
    if output.startswith("not"):
        raise RuntimeError("boom")
    return float(len(output))


def test_pandas_columns_as_seed_004_lays_them_out():
    df = pd.DataFrame(ROWS, index=[10, 11, 12, 13])
    out = evaluate_dataframe(df, [refscore.metrics.json_distance(decode="json"), length])
    assert list(df.columns) == ["output", "expected"]  # the input is not changed
    assert list(out.index) == [10, 11, 12, 13]
    scores = out["json_distance_score"].tolist()
    assert scores[0]["score"] == 0.0 and scores[0]["label"] == "match"
    assert scores[1]["score"] == 1.0 and scores[1]["direction"] == "minimize"
    assert scores[2]["score"] is None and scores[2]["label"] == "invalid"
    assert scores[3] is None  # missing output: failed, never a score
    details = out["json_distance_execution_details"].tolist()
    assert [d["status"] for d in details] == ["completed", "completed", "completed", "failed"]
    assert "output" in details[3]["error"]
    assert all(d["duration_ms"] >= 0 for d in details)
    # The Python evaluator: a raising row and a missing input fail alone.
    ls = out["length_score"].tolist()
    assert ls[0]["score"] == 16.0 and ls[2] is None and ls[3] is None
    ld = out["length_execution_details"].tolist()
    assert [d["status"] for d in ld] == ["completed", "completed", "failed", "failed"]
    assert "RuntimeError: boom" in ld[2]["error"]
    # Equal to single-row evaluation.
    [single] = refscore.metrics.json_distance(decode="json").evaluate({"output": ROWS["output"][1], "expected": ROWS["expected"][1]})
    assert Score.from_dict(scores[1]) == single


def test_polars_frames_go_through_arrow_and_get_json_scores():
    df = pl.DataFrame(ROWS)
    out = evaluate_dataframe(df, [refscore.metrics.json_distance(decode="json"), length])
    assert isinstance(out, pl.DataFrame) and out.height == 4
    scores = [json.loads(s) if s else None for s in out["json_distance_score"].to_list()]
    assert [s and s["score"] for s in scores] == [0.0, 1.0, None, None]
    assert out["json_distance_execution_details"].struct.field("status").to_list() == ["completed"] * 3 + ["failed"]
    assert out["length_execution_details"].struct.field("status").to_list()[2] == "failed"
    pandas_out = evaluate_dataframe(df.to_pandas(), [refscore.metrics.json_distance(decode="json")], score_format="json")
    assert pandas_out["json_distance_score"].tolist() == out["json_distance_score"].to_list()


def test_nested_values_and_bound_mappings():
    df = pd.DataFrame(
        {
            "response": [{"invoice": {"total": 12.0, "lines": [1, 2]}}, {"invoice": {"total": 3}}],
            "gold": [{"total": 12.5, "lines": [1, 2]}, {"total": 3}],
        }
    )
    ev = refscore.metrics.json_distance(name="invoice").bind({"output": "response.invoice", "reference": "gold"})
    out = evaluate_dataframe(df, [ev])
    assert [s["score"] for s in out["invoice_score"]] == [1.0, 0.0]
    assert out["invoice_score"][0]["name"] == "invoice"
    pl_out = evaluate_dataframe(pl.from_pandas(df), [ev], score_format="dict")
    assert [s["score"] for s in pl_out["invoice_score"].to_list()] == [1.0, 0.0]


def test_callable_mapping_failures_fail_only_their_row():
    df = pd.DataFrame({"doc": [{"o": {"a": 1}, "r": {"a": 1}}, {"r": {"a": 1}}]})
    ev = refscore.metrics.json_distance().bind({"output": lambda row: row["doc"]["o"], "reference": "doc.r"})
    out = evaluate_dataframe(df, [ev])
    assert out["json_distance_score"][0]["score"] == 0.0
    assert out["json_distance_score"][1] is None
    assert "KeyError" in out["json_distance_execution_details"][1]["error"]


def test_extra_scores_get_their_own_columns():
    df = pd.DataFrame({"output": [["Yes", "No"]], "reference": [["Yes", "Yes"]]})
    out = evaluate_dataframe(df, [refscore.metrics.precision_recall_fscore(average="binary", positive_label="Yes")])
    score_columns = [c for c in out.columns if c.endswith("_score")]
    assert score_columns[0] == "precision_recall_fscore_score" and len(score_columns) > 1


def test_duplicate_names_and_non_frames_are_refused():
    with pytest.raises(ValueError, match="unique"):
        evaluate_dataframe(pd.DataFrame(ROWS), [length, length])
    with pytest.raises(TypeError):
        evaluate_dataframe(ROWS, [length])
    # A Series or a polars LazyFrame is no DataFrame: a TypeError naming it,
    # not an AttributeError from deep inside.
    with pytest.raises(TypeError, match=r"got pandas\..*Series"):
        evaluate_dataframe(pd.DataFrame(ROWS)["output"], [length])
    pl = pytest.importorskip("polars")
    with pytest.raises(TypeError, match=r"LazyFrame \(call \.collect\(\) first\)"):
        evaluate_dataframe(pl.DataFrame(ROWS).lazy(), [length])
    with pytest.raises(TypeError, match="Series"):
        evaluate_dataframe(pl.DataFrame(ROWS)["output"], [length])

    # A subclass of a DataFrame is one.
    class Mine(pd.DataFrame):
        pass

    scores = evaluate_dataframe(Mine(ROWS), [length])["length_score"].tolist()
    assert [s and s["score"] for s in scores] == [16.0, 8.0, None, None]


def test_columns_labelled_by_numbers_are_listed_and_explained():
    df = pd.DataFrame({0: ["a", "b"], 1: ["a", "c"]})
    em = refscore.metrics.exact_match().bind({"output": "0", "reference": "1"})
    with pytest.warns(UserWarning) as caught:
        evaluate_dataframe(df, [em])
    text = str(caught[0].message)
    assert "(the frame's columns: 0, 1; labels that are not strings (0, 1)" in text, text
    assert "df.columns = df.columns.map(str)" in text, text
    # Renamed as it says, the same mapping reads them.
    df.columns = df.columns.map(str)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = evaluate_dataframe(df, [em])
    assert [s["score"] for s in out["exact_match_score"]] == [1.0, 0.0]


def test_sync_python_evaluators_reach_the_concurrency_asked_for():
    # 40 synchronous evaluations must be in flight at once for any to pass
    # the barrier: more than the loop's default pool ever holds
    # (min(32, cores + 4) threads), so the frame runs them on its own.
    n = 40
    barrier = threading.Barrier(n, timeout=20)

    @create_evaluator(name="together")
    def together(output: str) -> float:
        barrier.wait()
        return 1.0

    df = pd.DataFrame({"output": ["x"] * n})

    async def frame_then_outside():
        out = await async_evaluate_dataframe(df, [together], concurrency=n)
        # The pool is the frame's alone: in the same task, after it, an
        # evaluation awaited runs on the loop's default pool again.
        return out, refscore._evaluator.evaluation_threads.get()

    out, after = asyncio.run(frame_then_outside())
    details = out["together_execution_details"].tolist()
    assert [d["status"] for d in details] == ["completed"] * n, details[0]
    assert after is None


def test_a_sync_evaluator_running_a_loop_of_its_own_does_not_wait_for_the_frames_threads():
    # Its inner evaluation must not queue behind the one thread it holds.
    import subprocess
    import textwrap

    code = textwrap.dedent(
        """
        import asyncio
        import pandas as pd
        import refscore
        from refscore import create_evaluator, async_evaluate_dataframe

        inner = refscore.metrics.exact_match()

        @create_evaluator(name="nested")
        def nested(output: str, expected: str) -> float:
            return asyncio.run(inner.async_evaluate({"output": output, "expected": expected}))[0].score

        df = pd.DataFrame({"output": ["a", "b"], "expected": ["a", "a"]})
        out = asyncio.run(async_evaluate_dataframe(df, [nested], concurrency=1))
        print([s["score"] for s in out["nested_score"]])
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[1.0, 0.0]", done.stdout


def test_async_concurrency_is_bounded():
    in_flight = 0
    peak = 0
    lock = threading.Lock()

    @create_evaluator(name="slow")
    async def slow(output: str) -> float:
        nonlocal in_flight, peak
        with lock:
            in_flight += 1
            peak = max(peak, in_flight)
        await asyncio.sleep(0.01)
        with lock:
            in_flight -= 1
        if output == "bad":
            raise ValueError("bad row")
        return 1.0

    df = pd.DataFrame({"output": ["x"] * 20 + ["bad"], "expected": ["x"] * 21})
    out = asyncio.run(
        async_evaluate_dataframe(df, [slow, refscore.metrics.exact_match()], concurrency=4)
    )
    assert 1 < peak <= 4
    statuses = [d["status"] for d in out["slow_execution_details"]]
    assert statuses.count("completed") == 20 and statuses[-1] == "failed"
    assert out["exact_match_score"][0]["score"] == 1.0 and out["exact_match_score"][20]["score"] == 0.0
    with pytest.raises(ValueError):
        asyncio.run(async_evaluate_dataframe(df, [slow], concurrency=0))


def test_pandas_string_columns_and_object_columns_agree():
    # String columns reach Rust as Arrow, object columns as Python values.
    df = pd.DataFrame(ROWS).astype("string")
    ev = refscore.metrics.json_distance(decode="json")
    by_arrow = evaluate_dataframe(df, [ev])
    by_objects = evaluate_dataframe(df.astype(object).where(df.notna(), None), [ev])
    assert by_arrow["json_distance_score"].tolist() == by_objects["json_distance_score"].tolist()
    statuses = [d["status"] for d in by_arrow["json_distance_execution_details"]]
    assert statuses == ["completed"] * 3 + ["failed"]


def test_columns_not_read_never_fail_rows_and_unreadable_read_cells_fail_alone():
    import datetime

    ev = refscore.metrics.exact_match().bind({"output": "resp.text"})
    df = pd.DataFrame(
        {
            "resp": [{"text": "x"}, {"text": "y"}],
            "expected": ["x", "x"],
            "created_at": pd.to_datetime(["2024-01-01", "2024-01-02"]),
        }
    )
    r = evaluate_dataframe(df, [ev])
    assert [d["status"] for d in r["exact_match_execution_details"]] == ["completed", "completed"]
    assert [s["score"] for s in r["exact_match_score"]] == [1.0, 0.0]
    utc = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)
    pdf = pl.DataFrame({"resp": [{"text": "x"}], "expected": ["x"], "created_at": [utc]})
    assert json.loads(evaluate_dataframe(pdf, [ev])["exact_match_score"][0])["score"] == 1.0
    # Columns read whose types have no Arrow form Rust reads: the row fails
    # or reads them as text, the call never raises.
    plain = [refscore.metrics.exact_match()]
    cases = {
        "datetime": pl.DataFrame({"output": [utc], "expected": ["2024-01-01T00:00:00Z"]}),
        "int128": pl.DataFrame({"output": pl.Series([2**100], dtype=pl.Int128), "expected": ["x"]}),
        "object": pl.DataFrame({"output": pl.Series([{1, 2}], dtype=pl.Object), "expected": ["x"]}),
    }
    for name, frame in cases.items():
        details = evaluate_dataframe(frame, plain)["exact_match_execution_details"].to_list()
        assert len(details) == 1, name
        if name == "object":
            assert details[0]["status"] == "failed" and "set" in details[0]["error"], details
        elif name == "datetime":
            assert details[0]["status"] == "completed", details


def test_duplicate_read_columns_and_colliding_result_names_are_refused():
    import pyarrow as pa

    dup = pd.DataFrame([['{"a": 1}', '{"a": 1}', '{"a": 2}']], columns=["output", "expected", "output"])
    with pytest.raises(ValueError, match="column `output` appears 2 times"):
        evaluate_dataframe(dup, [refscore.metrics.json_distance()])
    # A duplicate column nobody reads is fine.
    notes = pd.DataFrame([['{"a": 1}', '{"a": 1}', "n1", "n2"]], columns=["output", "expected", "note", "note"])
    assert evaluate_dataframe(notes, [refscore.metrics.json_distance()])["json_distance_score"][0]["score"] == 0.0
    with pytest.raises(ValueError, match="result column `exact_match_score`"):
        evaluate_dataframe(
            pd.DataFrame({"output": ["a"], "expected": ["a"], "exact_match_score": ["MINE"]}),
            [refscore.metrics.exact_match()],
        )
    clash = create_evaluator(name="precision_recall_fscore.precision")(lambda output: 0.5)
    with pytest.raises(ValueError, match="precision_recall_fscore.precision_score"):
        evaluate_dataframe(
            pd.DataFrame({"output": [["a"]], "expected": [["a"]]}),
            [refscore.metrics.precision_recall_fscore(), clash],
        )
    # Arrow: a duplicate read column, a result named like an input column,
    # results named alike.
    suite = refscore.Suite([refscore.metrics.json_distance()])
    batch = pa.RecordBatch.from_arrays(
        [pa.array(['{"a": 1}']), pa.array(['{"a": 1}']), pa.array(['{"a": 2}'])], names=["output", "expected", "output"]
    )
    with pytest.raises(ValueError, match="column `output` appears 2 times"):
        suite.score_batch(batch)
    taken = pa.record_batch({"output": ["1"], "expected": ["1"], "json_distance_label": ["mine"]})
    with pytest.raises(ValueError, match="json_distance_label"):
        suite.score_batch(taken)
    assert suite.score_batch(taken, keep_columns=False).column("json_distance").to_pylist() == [0.0]
    with pytest.raises(ValueError, match="two results would be named `a_label`"):
        refscore.Suite([refscore.metrics.exact_match(name="a"), refscore.metrics.exact_match(name="a_label")])


def test_bad_arguments_raise_the_documented_errors():
    import pickle

    df = pd.DataFrame({"output": ["a"], "expected": ["a"]})
    with pytest.raises(TypeError, match="not an evaluator"):
        evaluate_dataframe(df, [lambda row: 1.0])
    with pytest.raises(TypeError, match="a suite holds built-in metrics"):
        refscore.Suite([lambda row: 1.0])
    for bad in (-1, 1025):
        with pytest.raises(ValueError, match="threads must be between 0"):
            evaluate_dataframe(df, [refscore.metrics.exact_match()], threads=bad)
    for bad in (2.0, "2", True):
        with pytest.raises(TypeError, match="threads must be an int"):
            evaluate_dataframe(df, [refscore.metrics.exact_match()], threads=bad)
    # A numpy integer is a whole number.
    out = evaluate_dataframe(df, [refscore.metrics.exact_match()], threads=np.int64(2))
    assert out["exact_match_score"][0]["score"] == 1.0
    with pytest.raises(ValueError, match=r"choice 'a': a tuple is \(score, description\), got 1 item"):
        refscore.ClassificationEvaluator(name="c", prompt_template="{q}", choices={"a": (1.0,)}, judge={"model": "m"})
    with pytest.raises(ValueError, match="option `variant`: nan"):
        refscore.metrics.json_distance(variant=float("nan"))
    c = refscore.ClassificationEvaluator(
        name="c", prompt_template="{q}", choices=["a", "b"], judge={"model": "m"}
    ).bind({"q": "question"})
    back = pickle.loads(pickle.dumps(c))
    assert type(back) is refscore.ClassificationEvaluator
    assert back.options == c.options and back.input_mapping == {"q": "question"}
    assert repr(back) == "ClassificationEvaluator(metric='classify', name='c')"


class StrictDistance(refscore.MetricEvaluator):
    """A user's subclass of a built-in metric, with its own constructor
    and attributes."""

    def __init__(self, cutoff):
        super().__init__("json_distance", name="strict")
        self.cutoff = cutoff

    def passed(self, row):
        return self.evaluate(row)[0].score <= self.cutoff


class Verdict(refscore.ClassificationEvaluator):
    """A user's subclass of the classification evaluator."""

    def __init__(self, note):
        super().__init__(name="v", prompt_template="{q}", choices=["a", "b"], judge={"model": "m"})
        self.note = note


def test_subclasses_of_built_in_evaluators_keep_their_class():
    import copy
    import pickle

    ev = StrictDistance(0.5)
    row = {"out": '{"a": 1}', "expected": '{"a": 1}'}
    for made in (
        refscore.bind_evaluator(ev, {"output": "out"}),
        copy.copy(ev),
        copy.deepcopy(ev),
        pickle.loads(pickle.dumps(ev)),
        pickle.loads(pickle.dumps(refscore.bind_evaluator(ev, {"output": "out"}))),
    ):
        assert type(made) is StrictDistance and made.cutoff == 0.5 and made.name == "strict"
        assert repr(made) == "StrictDistance(metric='json_distance', name='strict')"
    bound = pickle.loads(pickle.dumps(refscore.bind_evaluator(ev, {"output": "out"})))
    assert bound.input_mapping == {"output": "out"} and bound.passed(row)
    # bind_evaluator leaves the evaluator itself as it was; bind binds it in place.
    assert ev.input_mapping == {}
    assert ev.bind({"output": "out"}) is ev and ev.input_mapping == {"output": "out"}
    # A subclass with slots keeps them through bind and copy.

    class Slotted(refscore.MetricEvaluator):
        __slots__ = ("level",)

    s = Slotted("json_distance")
    s.level = 3
    for made in (refscore.bind_evaluator(s, {"output": "out"}), copy.copy(s)):
        assert type(made) is Slotted and made.level == 3
    v = pickle.loads(pickle.dumps(Verdict("kept").bind({"q": "question"})))
    assert type(v) is Verdict and v.note == "kept" and v.input_mapping == {"q": "question"}
    assert v.options["choices"] == ["a", "b"]


def test_an_infinite_value_is_not_reported_missing():
    r = evaluate_dataframe(pd.DataFrame({"output": [float("inf")], "expected": [1.0]}), [refscore.metrics.exact_match()])
    error = r["exact_match_execution_details"][0]["error"]
    assert "inf has no JSON form" in error and "missing" not in error


def test_a_text_over_the_size_limit_fails_its_row_only():
    big = "x" * (8 * 2**20 + 1)
    df = pd.DataFrame({"output": ["hello there", big], "reference": ["hello there", "x"]})
    out = evaluate_dataframe(df, [refscore.metrics.exact_match()])
    details = out["exact_match_execution_details"].tolist()
    assert [d["status"] for d in details] == ["completed", "failed"]
    assert "input `output` is a text of 8388609 bytes, over the limit of 8388608" in details[1]["error"]
    assert out["exact_match_score"].tolist()[1] is None


def test_other_threads_run_while_results_are_built():
    # Building 20,000 rows of result dicts needs the GIL; it is let go
    # every 10 ms, so a thread ticking beside the call is never held up
    # for a large part of it (it used to wait for all of it). Let go every
    # 256 rows instead (a few ms), the GIL was taken back before the
    # waiting thread asked for it: held off 0.25 s of a 0.6 s call in an
    # optimised build.
    n = 20_000
    df = pd.DataFrame({"output": ['{"a": 1, "b": [1, 2, 3], "c": "x"}'] * n, "reference": ['{"a": 2, "b": [3], "c": "y"}'] * n})
    ticks = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    ticker = threading.Thread(target=tick)
    ticker.start()
    time.sleep(0.05)
    start = time.perf_counter()
    out = evaluate_dataframe(df, [refscore.metrics.json_match(details="all")], threads=1)
    end = time.perf_counter()
    stop.set()
    ticker.join()
    assert len(out) == n
    inside = [t for t in ticks if start <= t <= end]
    gaps = [b - a for a, b in zip([start, *inside], [*inside, end])]
    assert max(gaps) < 0.2 * (end - start), f"a {max(gaps):.3f} s wait in a {end - start:.3f} s call"


@pytest.mark.parametrize("kind", ["pandas", "polars"])
def test_an_evaluator_that_scored_no_row_still_has_its_score_column(kind):
    rows = {"output": ['{"total": 12.0}'], "expected": [None]}
    frames = {"all failed": pd.DataFrame(rows), "empty": pd.DataFrame({"output": [], "expected": []})}
    for what, df in frames.items():
        if kind == "polars":
            df = pl.from_pandas(df)
        out = evaluate_dataframe(df, [refscore.metrics.json_distance(), length])
        columns = list(out.columns)
        for name in ("json_distance", "length"):
            assert f"{name}_score" in columns, (what, columns)
            assert f"{name}_execution_details" in columns, (what, columns)
        values = out["json_distance_score"].to_list() if kind == "polars" else out["json_distance_score"].tolist()
        assert values == [None] * len(df), (what, values)


def test_a_value_with_no_json_form_is_named_by_its_path():
    rows = [{"items": [{"price": 1.0}, {"price": 2.0}, {"price": float("inf")}]}, {"items": [{"tags": {1, 2}}]}]
    r = evaluate_dataframe(pd.DataFrame({"output": rows, "expected": rows}), [refscore.metrics.exact_match()])
    errors = [d["error"] for d in r["exact_match_execution_details"]]
    assert "at $.items[2].price: inf has no JSON form" in errors[0], errors
    assert "at $.items[0].tags: a value of type set has no JSON form" in errors[1], errors
    with pytest.raises(TypeError, match=r"at \$\.output\.a\['b c'\]\[1\]: a value of type set") as e:
        refscore.metrics.exact_match().evaluate({"output": {"a": {"b c": [0, {3}]}}, "expected": 1})
    assert isinstance(e.value.__cause__, TypeError) and "at $" not in str(e.value.__cause__)
    # An integer past every double is a ValueError with its path too (it
    # was a bare OverflowError).
    with pytest.raises(ValueError, match=r"at \$\.output\.n\[0\]: an integer too large"):
        refscore.metrics.exact_match().evaluate({"output": {"n": [10**400]}, "expected": 1})


def test_metadata_with_no_json_form_fails_its_row_alone():

    import polars as pl

    @refscore.create_evaluator(name="m")
    def m(output):
        if output == "set":
            return {"score": 1.0, "metadata": {"bad": {1, 2}}}
        if output == "inf":
            return {"score": 1.0, "metadata": {"x": float("inf")}}
        return {"score": 1.0, "metadata": {"n": np.int64(3), "f": np.float32(0.5)}}

    frame = pl.DataFrame({"output": ["numpy", "set", "inf", "numpy"]})
    out = refscore.evaluate_dataframe(frame, [m]).to_dicts()
    first = json.loads(out[0]["m_score"])
    assert first["metadata"] == {"n": 3, "f": 0.5}
    for row, kind in ((1, "TypeError"), (2, "ValueError")):
        assert out[row]["m_score"] is None
        assert out[row]["m_execution_details"]["status"] == "failed"
        assert out[row]["m_execution_details"]["error"].startswith(kind), out[row]
    assert json.loads(out[3]["m_score"])["score"] == 1.0


def test_evaluators_may_be_any_iterable():
    df = pd.DataFrame({"output": ['{"a": 1}'], "expected": ['{"a": 1}']})
    out = refscore.evaluate_dataframe(df, (e for e in [refscore.metrics.json_distance()]))
    assert out["json_distance_score"][0]["score"] == 0.0


def test_bytes_are_read_as_their_text_in_pandas_polars_and_arrow():
    pl = pytest.importorskip("polars")
    m = refscore.metrics.exact_match()
    rows = {"output": [b"hello", b"\xff\xfe"], "expected": ["hello", "hello"]}
    for df in (pd.DataFrame(rows), pl.DataFrame(rows)):
        out = evaluate_dataframe(df, [m], score_format="dict")
        details = list(out["exact_match_execution_details"])
        assert out["exact_match_score"][0]["score"] == 1.0, type(df)
        # Bytes that are not UTF-8 fail their row, saying so (polars read
        # them as missing, pandas as a value with no JSON form).
        assert details[1]["status"] == "failed"
        assert "bytes that are not UTF-8 text (invalid at byte 0)" in details[1]["error"], details[1]
    assert m.evaluate({"output": b"hello", "expected": "hello"})[0].score == 1.0


def test_float32_values_are_the_decimals_written_not_the_widened_doubles():
    m = refscore.metrics.json_distance()
    rows = {"output": np.array([0.1, 2.88], dtype=np.float32), "expected": [0.1, 2.88]}
    nullable = pd.DataFrame({"output": pd.array([0.1, 2.88], dtype="Float32"), "expected": [0.1, 2.88]})
    # pandas columns (numpy values; nullable Float32), a polars one (through
    # Arrow) and one read through its Python values (another evaluator's
    # callable mapping sends every column that way).
    constant = {"output": lambda row: "x", "reference": lambda row: "x"}
    other = refscore.metrics.exact_match(name="other").bind(constant)
    for df, evs in (
        (pd.DataFrame(rows), [m]),
        (nullable, [m]),
        (pl.DataFrame(rows), [m]),
        (pl.DataFrame(rows), [m, other]),
        (pd.DataFrame(rows), [m, other]),
    ):
        out = evaluate_dataframe(df, evs, score_format="dict")
        assert [s["score"] for s in out["json_distance_score"]] == [0.0, 0.0], (type(df), df.dtypes)
    # numpy scalars and arrays inside a value: big-endian, 0-d.
    value = {
        "a": np.float32(0.1),
        "b": np.array([[2.88], [-0.3]], dtype=">f4"),
        "c": np.array(0.1, dtype=np.float32),
    }
    got = m.evaluate({"output": value, "expected": {"a": 0.1, "b": [[2.88], [-0.3]], "c": 0.1}})[0]
    assert got.score == 0.0, got.explanation
    with pytest.raises(Exception, match="no JSON form"):
        m.evaluate({"output": np.float32("inf"), "expected": 1.0})


_TZ2 = __import__("datetime").timezone(__import__("datetime").timedelta(hours=2))


def _text_cases():
    """Values with no JSON form of their own, and the text the Arrow path
    (a polars column of them) reads them as."""
    import datetime as dt
    from decimal import Decimal

    return [
        (dt.datetime(2024, 1, 1, 12), "2024-01-01T12:00:00"),
        (dt.datetime(2024, 1, 1, 12, 0, 0, 250000), "2024-01-01T12:00:00.250"),
        (dt.datetime(2024, 1, 1, 12, 0, 0, 100), "2024-01-01T12:00:00.000100"),
        (dt.datetime(2024, 1, 1, 12, tzinfo=_TZ2), "2024-01-01T10:00:00Z"),
        (dt.date(2024, 1, 1), "2024-01-01"),
        (dt.time(12, 30, 1, 500), "12:30:01.000500"),
        (dt.timedelta(seconds=90), "PT90S"),
        (Decimal("123.45"), "123.45"),
        (Decimal("0.10"), "0.10"),
        (Decimal("1E+3"), "1000"),
        (Decimal("-0.001"), "-0.001"),
    ]


def _exact(df, **kw):
    out = evaluate_dataframe(df, [refscore.metrics.exact_match()], score_format="dict", **kw)
    details = list(out["exact_match_execution_details"])
    return [(s or {}).get("score") for s in out["exact_match_score"]], [d["error"] for d in details]


@pytest.mark.parametrize("value,text", _text_cases(), ids=lambda v: type(v).__name__)
def test_dates_times_and_decimals_read_as_the_same_text_in_pandas_and_polars(value, text):
    # A polars column reaches Rust as Arrow and is read as text; a pandas
    # cell (a Python object) gives the same text, as does evaluate().
    frames = {
        "pandas": pd.DataFrame({"output": pd.Series([value], dtype=object), "expected": [text]}),
        "polars": pl.DataFrame({"output": [value], "expected": [text]}),
    }
    for kind, df in frames.items():
        assert _exact(df) == ([1.0], [None]), (kind, value)
    assert refscore.metrics.exact_match().evaluate({"output": value, "expected": text})[0].score == 1.0


def test_pandas_datetime_date_and_decimal_columns_read_as_polars_reads_them():
    import datetime as dt
    from decimal import Decimal

    stamps = [dt.datetime(2024, 1, 1, 12), dt.datetime(2024, 1, 1, 12, 0, 0, 250000)]
    texts = ["2024-01-01T12:00:00", "2024-01-01T12:00:00.250"]
    columns = {
        "datetime": (pd.Series(stamps), texts),
        "datetime64[ns]": (pd.Series(stamps, dtype="datetime64[ns]"), texts),
        "nanoseconds": (pd.Series([pd.Timestamp("2024-01-01 12:00:00.000000001")] * 2), ["2024-01-01T12:00:00.000000001"] * 2),
        "utc": (pd.Series(stamps).dt.tz_localize("UTC"), [t + "Z" for t in texts]),
        "+02:00": (pd.Series([s.replace(tzinfo=_TZ2) for s in stamps]), ["2024-01-01T10:00:00Z", "2024-01-01T10:00:00.250Z"]),
        "timestamp[us][pyarrow]": (pd.Series(stamps, dtype="timestamp[us][pyarrow]"), texts),
        "date32[pyarrow]": (pd.Series([s.date() for s in stamps], dtype="date32[pyarrow]"), ["2024-01-01"] * 2),
        "date": (pd.Series([s.date() for s in stamps]), ["2024-01-01"] * 2),
        # (of one scale: a polars or Arrow column gives all its values the
        # largest scale, while a Python Decimal keeps its own digits)
        "decimal": (pd.Series([Decimal("1.50"), Decimal("-2.25")]), ["1.50", "-2.25"]),
        "timedelta64[ns]": (pd.Series([pd.Timedelta(seconds=90), pd.Timedelta(1, "ns")]), ["PT90S", "PT0.000000001S"]),
    }
    for what, (column, expected) in columns.items():
        df = pd.DataFrame({"output": column, "expected": expected})
        assert _exact(df) == ([1.0, 1.0], [None, None]), (what, column.dtype)
        # The same values in polars (through Arrow) read alike.
        assert _exact(pl.from_pandas(df)) == ([1.0, 1.0], [None, None]), (what, column.dtype)
    # The report's case: a datetime column against its text.
    frame = pd.DataFrame({"output": [dt.datetime(2024, 1, 1, 12)], "expected": ["2024-01-01T12:00:00"]})
    assert _exact(frame) == ([1.0], [None])
    # numpy values inside a cell: datetime64 in nanoseconds (whose tolist()
    # is a bare integer), arrays of them, NaT as missing.
    value = {"at": np.datetime64("2024-01-01T12:00:00.000000001"), "days": np.array(["2024-01-01", "NaT"], dtype="datetime64[D]")}
    got = refscore.metrics.json_distance().evaluate(
        {"output": value, "expected": {"at": "2024-01-01T12:00:00.000000001", "days": ["2024-01-01", None]}}
    )[0]
    assert got.score == 0.0, got.explanation


def test_ctrl_c_and_other_threads_are_heard_while_object_columns_are_converted():
    # Converting 60,000 rows of dict cells took some seconds (7 s, a
    # debug build) with the GIL held: Ctrl-C was heard only once every row
    # was converted, and another thread waited all that time. Signals are
    # now checked, and the GIL let go, every 10 ms.
    import os
    import signal

    cell = {"id": 1, "items": [{"sku": "a", "qty": 2, "price": 1.5, "tags": ["x", "y"]}] * 4, "meta": {"k": "v"}}
    n = 60_000
    df = pd.DataFrame({"output": [cell] * n, "expected": [cell] * n})
    ticks = []
    done = threading.Event()

    def tick():
        while not done.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    ticker = threading.Thread(target=tick)
    ticker.start()
    sent = []

    def interrupt():
        sent.append(time.perf_counter())
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Timer(0.3, interrupt)
    start = time.perf_counter()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            evaluate_dataframe(df, [refscore.metrics.exact_match()], threads=1)
        end = time.perf_counter()
    finally:
        timer.cancel()
        done.set()
        ticker.join()
    assert sent, "the call ended before Ctrl-C"
    # Timed from when Ctrl-C was due: the timer thread, too, needs the GIL
    # to send it.
    assert end - start < 0.3 + 3.0, f"KeyboardInterrupt {end - start - 0.3:.1f} s after Ctrl-C was due"
    inside = [t for t in ticks if start <= t <= end]
    gaps = [b - a for a, b in zip([start, *inside], [*inside, end])]
    assert max(gaps) < 1.0, f"another thread waited {max(gaps):.2f} s"


def test_an_async_evaluator_in_the_sync_call_is_refused_before_any_row():
    calls = []

    @create_evaluator(name="judge_later")
    async def judge_later(output: str) -> float:
        calls.append(output)
        return 1.0

    @create_evaluator(name="counted")
    def counted(output: str) -> float:
        calls.append(output)
        return 1.0

    df = pd.DataFrame({"output": ["a", "b"]})
    for frame in (df, pl.from_pandas(df)):
        for evs in ([judge_later], [counted, refscore.metrics.exact_match(), refscore.bind_evaluator(judge_later, {"output": "output"})]):
            with pytest.raises(TypeError, match="evaluator `judge_later` is async: .*async_evaluate_dataframe"):
                evaluate_dataframe(frame, evs)
    assert calls == []
    # The awaitable call takes it.
    out = asyncio.run(async_evaluate_dataframe(df, [judge_later]))
    assert [s["score"] for s in out["judge_later_score"]] == [1.0, 1.0]


def test_an_input_not_found_lists_every_column_of_the_frame_not_only_those_read():
    # Only the columns read are converted; the error still lists the
    # frame's columns, as the CLI lists a row's (pandas object and string
    # columns, and polars through Arrow, alike).
    for df in (
        pd.DataFrame({"output": ["{}"], "gold": ["{}"], "id": [7]}),
        pd.DataFrame({"output": ["{}"], "gold": ["{}"], "id": [7]}).astype({"output": "string", "gold": "string"}),
        pl.DataFrame({"output": ["{}"], "gold": ["{}"], "id": [7]}),
    ):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the input missing from every row: warned about below
            out = evaluate_dataframe(df, [refscore.metrics.json_match()], score_format="dict")
        [details] = out["json_match_execution_details"].to_list()
        assert details["status"] == "failed"
        assert details["error"].endswith("no column `reference` or `expected` and no mapping for it (columns: gold, id, output)"), details


@pytest.mark.parametrize("kind", ["pandas", "polars"])
def test_a_required_input_no_column_holds_is_warned_about_once_and_still_fails_each_row(kind):
    data = {"output": ["{}", '{"a": 1}'], "gold": ["{}", "{}"]}
    df = pd.DataFrame(data) if kind == "pandas" else pl.DataFrame(data)
    with pytest.warns(UserWarning) as caught:
        out = evaluate_dataframe(df, [refscore.metrics.json_match()], score_format="dict")
    [w] = [w for w in caught if "json_match" in str(w.message)]
    assert str(w.message) == (
        "evaluator `json_match`: the frame has no column `reference` (nor `expected`) for its required input"
        " `reference`, so every row will fail (the frame's columns: output, gold); map the input to a column:"
        " `evaluator.bind({'reference': '<column>'})`"
    )
    assert w.filename == __file__  # it points at the call
    # As in phoenix-evals (and as docs/python.md says), the frame completes,
    # every row failing on the input alone.
    assert [d["status"] for d in out["json_match_execution_details"].to_list()] == ["failed", "failed"]
    assert out["json_match_score"].to_list() == [None, None]
    # Bound to the column, nothing is said and the rows score.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = evaluate_dataframe(df, [refscore.metrics.json_match().bind({"reference": "gold"})], score_format="dict")
    assert [s["score"] for s in out["json_match_score"].to_list()] == [1.0, 0.0]


def test_missing_inputs_are_warned_about_for_mappings_and_python_evaluators_too():
    df = pd.DataFrame({"answer": ["x"], "doc": [{"a": "x"}]})
    evs = [
        refscore.metrics.exact_match().bind({"output": "answer", "reference": "gold.text"}),
        length,
    ]
    async def run():
        return await async_evaluate_dataframe(df, evs)

    with pytest.warns(UserWarning) as caught:
        asyncio.run(run())
    messages = sorted(str(w.message) for w in caught)
    assert len(messages) == 2, messages
    assert messages[0].startswith("evaluator `exact_match`: its required input `reference` is mapped to `gold.text`,"
                                  " which reads no column of the frame, so every row will fail (the frame's columns: answer, doc)")
    assert messages[1].startswith("evaluator `length`: the frame has no column `output` for its required input `output`")
    assert all(w.filename == __file__ for w in caught)
    # Run by asyncio.run itself, the warnings still point at this file.
    with pytest.warns(UserWarning) as caught:
        asyncio.run(async_evaluate_dataframe(df, evs))
    assert len(caught) == 2 and all(w.filename == __file__ for w in caught), [w.filename for w in caught]
    # What cannot be known before a row runs is not warned about: a
    # callable, a path whose first step is a column, a wildcard; nor an
    # optional input, nor a frame without rows.
    quiet = [
        refscore.metrics.exact_match().bind({"output": "answer", "reference": lambda row: row["doc"]["a"]}),
        refscore.metrics.exact_match(name="path").bind({"output": "answer", "reference": "doc.b"}),
        refscore.metrics.exact_match(name="any").bind({"output": "answer", "reference": "$.*.zz"}),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = evaluate_dataframe(df, quiet)
        evaluate_dataframe(df.head(0), [refscore.metrics.json_match(), length])
    assert out["exact_match_score"][0]["score"] == 1.0
    assert out["path_execution_details"][0]["status"] == "failed"


def test_rows_that_never_ran_are_marked_without_garbage_collections():
    # After Ctrl-C on a large frame, a dict per row that never ran: built
    # with the collector on, each collection walked every result already
    # built (seconds on a million rows).
    import gc

    from refscore._dataframe import _Results

    results = _Results(200_000, "dict")
    collections = []

    def count(phase, info):
        if phase == "start":
            collections.append(info["generation"])

    gc.callbacks.append(count)
    try:
        assert gc.isenabled()
        results.did_not_run(["a", "b"])
    finally:
        gc.callbacks.remove(count)
    # At most the one an allocation before the pause may set off (a
    # collection every 700 new objects, hundreds here, with it on).
    assert len(collections) <= 1, len(collections)
    assert gc.isenabled()
    assert results.executions["a"][-1] == {"status": "did not run", "duration_ms": 0.0, "error": None}
