"""Arrow record batches in, Arrow out: refscore.Suite."""

import pickle

import pyarrow as pa
import polars as pl
import pytest

import refscore
from refscore import Suite

BATCH = pa.record_batch(
    {
        "id": [1, 2, 3],
        "output": ['{"a": 1}', '{"a": 2}', None],
        "expected": ['{"a": 1}', '{"a": 1}', '{"a": 1}'],
    }
)


def suite():
    return Suite([refscore.metrics.json_distance(), refscore.metrics.json_similarity(name="sim")])


def test_score_batch_columns_and_values():
    out = suite().score_batch(BATCH)
    assert out.schema == suite().output_schema(BATCH.schema)
    assert out.column_names == [
        "id", "output", "expected",
        "json_distance", "json_distance_label", "json_distance_explanation", "json_distance_error",
        "sim", "sim_label", "sim_explanation", "sim_error",
    ]
    assert out.column("json_distance").to_pylist() == [0.0, 1.0, None]
    assert out.column("json_distance_label").to_pylist()[:2] == ["match", "mismatch"]
    errors = out.column("json_distance_error").to_pylist()
    assert errors[:2] == [None, None] and "output" in errors[2]
    assert out.column("sim").to_pylist()[0] == 1.0


def test_input_columns_are_passed_through_without_a_copy():
    out = suite().score_batch(BATCH)
    assert out.column("output").buffers()[2].address == BATCH.column("output").buffers()[2].address
    assert suite().score_batch(BATCH, keep_columns=False).column_names[0] == "json_distance"


def test_nested_and_typed_columns_read_as_json():
    batch = pa.record_batch(
        {
            "output": pa.array([{"total": 12.0, "tags": ["a", "b"]}, {"total": 3.0, "tags": []}]),
            "reference": pa.array([{"total": 12.5, "tags": ["a", "b"]}, {"total": 3.0, "tags": []}]),
        }
    )
    out = Suite([refscore.metrics.json_distance()]).score_batch(batch)
    assert out.column("json_distance").to_pylist() == [1.0, 0.0]
    dict_col = pa.record_batch({"output": pa.array(["x", "y"]).dictionary_encode(), "reference": ["x", "z"]})
    out = Suite([refscore.metrics.exact_match()]).score_batch(dict_col)
    assert out.column("exact_match").to_pylist() == [1.0, 0.0]


def test_tables_polars_and_mappings():
    table = pa.Table.from_batches([BATCH, BATCH])
    ev = refscore.metrics.json_distance(name="d").bind({"output": "output", "reference": "expected"})
    out = Suite([ev]).score_table(table)
    assert out.num_rows == 6 and out.column("d").to_pylist() == [0.0, 1.0, None] * 2
    out = Suite([ev]).score_table(pl.from_arrow(table))
    assert out.column("d").to_pylist()[:2] == [0.0, 1.0]


def test_suites_pickle_and_refuse_what_cannot_ship():
    s = pickle.loads(pickle.dumps(suite()))
    assert s.names == ["json_distance", "sim"]
    assert s.score_batch(BATCH).column("json_distance").to_pylist() == [0.0, 1.0, None]
    with pytest.raises(ValueError, match="callables"):
        Suite([refscore.metrics.json_distance().bind({"output": lambda r: r})])
    with pytest.raises(ValueError, match="unique"):
        Suite([refscore.metrics.json_distance(), refscore.metrics.json_distance()])
    with pytest.raises(TypeError):
        Suite([refscore.create_evaluator(name="f")(lambda x: 1.0)])


def test_columns_not_read_never_reach_rust():
    # Types Rust cannot read, or that crash Arrow's recursive import, in
    # columns the suite never reads: passed through untouched.
    import datetime

    deep_type, deep_value = pa.int64(), 1
    for _ in range(1000):
        deep_type, deep_value = pa.list_(deep_type), [deep_value]
    extra = {
        "ts_utc": pa.array([datetime.datetime(2024, 1, 1)], pa.timestamp("us", tz="UTC")),
        "ts_ny": pa.array([datetime.datetime(2024, 1, 1)], pa.timestamp("us", tz="America/New_York")),
        "tags": pa.array([[("k", 1)]], pa.map_(pa.string(), pa.int64())),
        "uuid": pa.array([b"0123456789abcdef"], pa.binary(16)),
        "deep": pa.array([deep_value], deep_type),
    }
    s = Suite([refscore.metrics.json_distance()])
    for name, array in extra.items():
        batch = pa.record_batch({"output": ['{"a": 1}'], "expected": ['{"a": 2}'], name: array})
        out = s.score_batch(batch)
        assert out.column("json_distance").to_pylist() == [1.0], name
        assert out.column(name) is not None and out.column_names[:3] == ["output", "expected", name]
        assert s.score_batch(batch, keep_columns=False).column_names[0] == "json_distance"


def test_columns_read_with_types_rust_cannot_cast_are_text_or_fail_by_row():
    import datetime

    s = Suite([refscore.metrics.exact_match()])
    cases = {
        "ts": (pa.array([datetime.datetime(2024, 1, 1)], pa.timestamp("s", tz="America/New_York")), "2024-01-01T00:00:00Z"),
        "map": (pa.array([[("k", 1)]], pa.map_(pa.string(), pa.int64())), None),
        "fixed": (pa.array([b"0123456789abcdef"], pa.binary(16)), None),
    }
    for name, (array, text) in cases.items():
        out = s.score_batch(pa.record_batch({"output": array, "expected": [text or "x"]}))
        if text is not None:
            assert out.column("exact_match").to_pylist() == [1.0], name
        else:  # read as Arrow displays it: a row that scores, not a batch that raises
            assert out.column("exact_match").to_pylist() == [0.0], name


def test_map_columns_are_read_as_objects():
    # As Spark's from_json(..., "map<string,long>") gives them: an object
    # per cell, keys as text (Spark's to_json writes number keys so too).
    s = Suite([refscore.metrics.json_distance()])
    maps = pa.array([[("a", 1), ("b", 2)], None, [("a", 1)], []], pa.map_(pa.string(), pa.int64()))
    batch = pa.record_batch({"output": maps, "expected": ['{"a": 1, "b": 2}', '{"a": 1}', '{"a": 2}', "{}"]})
    out = s.score_batch(batch)
    assert out.column("json_distance").to_pylist() == [0.0, None, 1.0, 0.0]
    assert "output" in out.column("json_distance_error").to_pylist()[1]
    numbered = pa.array([[(1, "x"), (2, "y")]], pa.map_(pa.int64(), pa.string()))
    out = s.score_batch(pa.record_batch({"output": numbered, "expected": ['{"1": "x", "2": "y"}']}))
    assert out.column("json_distance").to_pylist() == [0.0]
    # A sliced batch reads its own rows; a value with no JSON form is
    # named by its row and key.
    floats = pa.array([[("k", 1.0)], [("k", float("inf")), ("j", 2.0)]], pa.map_(pa.string(), pa.float64()))
    batch = pa.record_batch({"output": floats, "expected": ['{"k": 1}', '{"k": 1}']})
    out = s.score_batch(batch)
    assert out.column("json_distance").to_pylist()[0] == 0.0
    assert out.column("json_distance_error").to_pylist()[1] == "row 1: column `output`, at $.k: inf has no JSON form"
    out = s.score_batch(batch.slice(1, 1))
    assert out.column("json_distance_error").to_pylist() == ["row 0: column `output`, at $.k: inf has no JSON form"]


def test_read_columns_nested_too_deep_raise_a_clear_value_error():
    ty, v = pa.int64(), 1
    for _ in range(1000):
        ty, v = pa.list_(ty), [v]
    batch = pa.record_batch({"output": pa.array([v], ty), "expected": ['{"a": 1}']})
    with pytest.raises(ValueError, match="column `output`: type nested deeper than 64 levels"):
        Suite([refscore.metrics.json_distance()]).score_batch(batch)


def test_a_jsonpath_reads_only_the_columns_it_names():
    import datetime

    ev = refscore.metrics.exact_match().bind({"output": "resp.text"})
    batch = pa.record_batch(
        {
            "resp": pa.array([{"text": "x"}]),
            "expected": ["x"],
            "created": pa.array([[("k", 1)]], pa.map_(pa.string(), pa.int64())),
            "when": pa.array([datetime.datetime(2024, 1, 1)], pa.timestamp("us", tz="Europe/Paris")),
        }
    )
    assert Suite([ev]).score_batch(batch).column("exact_match").to_pylist() == [1.0]


def test_an_infinite_float_fails_its_row_through_arrow_as_through_pandas():
    import polars as pl

    jm = refscore.metrics.json_match()
    df = pl.DataFrame(
        {
            "output": [{"price": float("inf"), "q": 1.0}, {"price": 2.0, "q": 1.0}, {"price": float("nan"), "q": 1.0}],
            "expected": ['{"price": null, "q": 1}', '{"price": 2, "q": 1}', '{"price": null, "q": 1}'],
        }
    )
    out = refscore.evaluate_dataframe(df, [jm], score_format="dict").to_dicts()
    # Read as null, the infinite price matched the reference's null before.
    assert out[0]["json_match_score"] is None
    error = out[0]["json_match_execution_details"]["error"]
    assert error == "row 0: column `output`, at $.price: inf has no JSON form"
    assert out[1]["json_match_score"]["score"] == 1.0
    # NaN is missing, as in a pandas column.
    assert out[2]["json_match_score"]["score"] == 1.0
    lists = pl.DataFrame({"output": [[1.0, float("-inf")], [1.0]], "expected": ["[1, 2]", "[1]"]})
    out = refscore.evaluate_dataframe(lists, [jm], score_format="dict").to_dicts()
    assert out[0]["json_match_execution_details"]["error"].endswith("at $[1]: -inf has no JSON form")
    assert out[1]["json_match_execution_details"]["status"] == "completed"
    top = pl.DataFrame({"output": [float("inf")], "expected": ["1"]})
    out = refscore.evaluate_dataframe(top, [jm], score_format="dict").to_dicts()
    assert out[0]["json_match_execution_details"]["error"] == "row 0: column `output`, at $: inf has no JSON form"
    # Rows are named by their position from 0 on every path, as in pandas.
    pd = pytest.importorskip("pandas")
    for frame in [pl.DataFrame({"output": [[1.0], [float("inf")]], "expected": ["[1]", "[1]"]}), pd.DataFrame({"output": [[1.0], [float("inf")]], "expected": ["[1]", "[1]"]})]:
        out = refscore.evaluate_dataframe(frame, [jm], score_format="dict")
        details = out["json_match_execution_details"]
        error = (details.to_list() if hasattr(details, "to_list") else list(details))[1]["error"]
        assert error.startswith("row 1: column `output`"), error


def test_an_input_not_found_lists_every_column_of_the_batch_not_only_those_read():
    batch = pa.record_batch({"output": ['{"a": 1}'], "gold": ['{"a": 1}'], "id": [1]})
    [error] = Suite([refscore.metrics.json_match()]).score_batch(batch).column("json_match_error").to_pylist()
    assert error.endswith("no column `reference` or `expected` and no mapping for it (columns: gold, id, output)"), error
    # No column read at all: the batch's columns, not an internal one.
    batch = pa.record_batch({"answer": ["x"], "id": [1]})
    [error] = Suite([refscore.metrics.exact_match()]).score_batch(batch).column("exact_match_error").to_pylist()
    assert error.endswith("(columns: answer, id)"), error


def test_union_columns_read_the_value_each_row_holds():
    # Each row of a union holds one child's value, at the row (sparse) or
    # at its offset (dense); integer members were read as missing.
    types = pa.array([0, 1, 0, 2], type=pa.int8())
    sparse = pa.UnionArray.from_sparse(
        types,
        [pa.array([1, 0, 3, 0]), pa.array(["x", "b", "y", "z"]), pa.array([0.0, 0.0, 0.0, float("inf")])],
    )
    dense = pa.UnionArray.from_dense(
        types,
        pa.array([0, 0, 1, 0], type=pa.int32()),
        [pa.array([1, 3]), pa.array(["b"]), pa.array([float("inf")])],
    )
    assert sparse.to_pylist() == dense.to_pylist() == [1, "b", 3, float("inf")]
    for u in (sparse, dense):
        out = Suite([refscore.metrics.exact_match()]).score_table(
            pa.table({"output": u, "expected": ["1", "b", "4", "1"]}), keep_columns=False
        )
        assert out.column("exact_match").to_pylist() == [1.0, 1.0, 0.0, None]
        errors = out.column("exact_match_error").to_pylist()
        assert errors[:3] == [None, None, None]
        assert errors[3] == "row 3: column `output`, at $: inf has no JSON form", errors[3]
