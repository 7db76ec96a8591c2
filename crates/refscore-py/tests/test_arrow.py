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
