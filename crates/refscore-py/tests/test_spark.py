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
