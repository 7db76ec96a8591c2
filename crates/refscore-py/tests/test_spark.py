"""A real pyspark local-mode run through mapInArrow."""

import os
import sys

import pytest
from pyspark.sql import SparkSession

import refscore
import refscore.spark


@pytest.fixture(scope="module")
def spark():
    # The Python workers must import refscore: the interpreter running the tests.
    os.environ["PYSPARK_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master("local[2]")
        .appName("refscore-test")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    yield session
    session.stop()


def test_score_a_spark_dataframe(spark):
    rows = [(i, f'{{"total": {i % 7}}}', '{"total": 3}' if i % 2 else None) for i in range(200)]
    df = spark.createDataFrame(rows, "id long, output string, expected string").repartition(4)
    suite = refscore.Suite([refscore.metrics.json_distance()])
    scored = refscore.spark.score(df, suite)
    assert scored.columns == ["id", "output", "expected", "json_distance", "json_distance_label",
                              "json_distance_explanation", "json_distance_error"]
    got = {r["id"]: r for r in scored.collect()}
    assert len(got) == 200
    for i in range(200):
        r = got[i]
        if i % 2:
            assert r["json_distance"] == (0.0 if i % 7 == 3 else 1.0) and r["json_distance_error"] is None
        else:
            assert r["json_distance"] is None and "reference" in r["json_distance_error"]


def test_variant_columns_are_scored_as_their_json(spark):
    from pyspark.sql import functions as F

    if not hasattr(F, "parse_json"):
        pytest.skip("VARIANT needs Spark 4")
    rows = [(0, '{"a": 1, "b": [1, 2]}', '{"a": 1, "b": [1, 2]}'), (1, '{"a": 2}', '{"a": 1}')]
    base = spark.createDataFrame(rows, "id long, output string, expected string")
    df = base.select("id", F.parse_json("output").alias("output"), "expected")
    scored = refscore.spark.score(df, refscore.Suite([refscore.metrics.json_distance()]))
    assert scored.columns == ["id", "output", "expected", "json_distance", "json_distance_label",
                              "json_distance_explanation", "json_distance_error"]
    got = {r["id"]: r for r in scored.collect()}
    # Read as its binary encoding, the VARIANT differed from every text.
    assert got[0]["json_distance"] == 0.0 and got[0]["json_distance_error"] is None, got[0]
    assert got[1]["json_distance"] == 1.0, got[1]
    assert scored.schema["output"].dataType == df.schema["output"].dataType
    # Both sides VARIANT, and the frame's own columns left out.
    both = base.select("id", F.parse_json("output").alias("output"), F.parse_json("expected").alias("expected"))
    only = refscore.spark.score(both, refscore.Suite([refscore.metrics.json_distance()]), keep_columns=False)
    assert only.columns[0] == "json_distance"
    assert sorted(r["json_distance"] for r in only.collect()) == [0.0, 1.0]
    # A VARIANT inside a column read would reach Rust as bytes: refused.
    nested = base.select("id", F.struct(F.parse_json("output").alias("v")).alias("output"), "expected")
    with pytest.raises(ValueError, match="column `output` holds a VARIANT inside it"):
        refscore.spark.score(nested, refscore.Suite([refscore.metrics.json_distance()]))


def test_column_names_spark_cannot_resolve_in_map_in_arrow_are_scored(spark):
    # Spark's own mapInArrow refuses an input column whose name holds a
    # dot (`a`.`b` cannot be resolved), and one whose name is held twice.
    df = spark.createDataFrame(
        [(1, '{"a": 1}', '{"a": 1}', "x", "y"), (2, '{"a": 2}', '{"a": 1}', "x", "y")],
        "id long, `model.output` string, expected string, note string, note2 string",
    )
    suite = refscore.Suite([refscore.metrics.json_distance().bind({"output": "model.output"})])
    scored = refscore.spark.score(df, suite)
    assert scored.columns[:3] == ["id", "model.output", "expected"]
    rows = sorted(scored.collect(), key=lambda r: r["id"])
    assert [r["json_distance"] for r in rows] == [0.0, 1.0]
    assert rows[0][1] == '{"a": 1}'
    # A name held twice: read in, but mapInArrow cannot return it.
    twice = df.toDF("id", "model.output", "expected", "note", "note")
    only = refscore.spark.score(twice, suite, keep_columns=False)
    assert sorted(r["json_distance"] for r in only.collect()) == [0.0, 1.0]
    with pytest.raises(ValueError, match=r"holds columns of one name twice \(note\)"):
        refscore.spark.score(twice, suite)


def test_what_can_be_checked_is_checked_before_any_row_runs(spark):
    from pyspark.sql import functions as F

    df = spark.createDataFrame([("a", "a")], "output string, expected string")
    suite = refscore.Suite([refscore.metrics.json_distance()])
    with pytest.raises(ValueError, match="result column `json_distance` would replace"):
        refscore.spark.score(df.withColumn("json_distance", F.lit(1.0)), suite)
    with pytest.raises(ValueError, match="threads"):
        refscore.spark.score(df, suite, threads=-1)


def test_the_guides_spark_block_runs_as_pasted(tmp_path):
    """docs/python.md's Spark block, run as a user pastes it: in a venv
    not activated (`PYSPARK_PYTHON` unset and the venv's interpreter not
    the `python3` on the PATH), its workers must still import refscore."""
    import re
    import subprocess
    from pathlib import Path

    import pyarrow as pa
    import pyarrow.parquet as pq

    guide = (Path(__file__).resolve().parents[3] / "docs" / "python.md").read_text()
    [block] = [b for b in re.findall(r"```python\n(.*?)```", guide, flags=re.S) if "SparkSession" in b]
    pq.write_table(
        pa.table({"output": ['{"a": 1}', '{"a": 2}'], "expected": ['{"a": 1}', '{"a": 1}']}), tmp_path / "pairs.parquet"
    )
    venv_bin = os.path.abspath(os.path.dirname(sys.executable))
    env = {k: v for k, v in os.environ.items() if k not in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON", "VIRTUAL_ENV")}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if os.path.abspath(p) != venv_bin)
    env["SPARK_LOCAL_IP"] = "127.0.0.1"
    r = subprocess.run([sys.executable, "-c", block], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "avg(json_distance)" in r.stdout and "0.5" in r.stdout, r.stdout
