"""Ray local mode through map_batches. ci.sh installs Ray and sets
REFSCORE_REQUIRE_RAY=1, so that a missing Ray fails there; elsewhere the
test is skipped without it."""

import os
import sys

import pytest

if os.environ.get("REFSCORE_REQUIRE_RAY"):
    import ray
else:
    ray = pytest.importorskip("ray")

import refscore
import refscore.ray


def test_arguments_are_checked_when_called():
    suite = refscore.Suite([refscore.metrics.json_distance()])
    with pytest.raises(ValueError, match="threads"):
        refscore.ray.score(object(), suite, threads=-1)
    with pytest.raises(TypeError, match="batch_format"):
        refscore.ray.score(object(), suite, batch_format="pandas")


def test_score_a_ray_dataset():
    import pyarrow as pa

    ray.init(num_cpus=2, include_dashboard=False, runtime_env={"env_vars": {"PYTHONPATH": os.pathsep.join(sys.path)}})
    try:
        table = pa.table({"output": [f'{{"n": {i % 3}}}' for i in range(100)], "expected": ['{"n": 1}'] * 100})
        ds = ray.data.from_arrow(table)
        suite = refscore.Suite([refscore.metrics.json_distance()])
        out = refscore.ray.score(ds, suite, batch_size=25).to_arrow_refs()
        scored = pa.concat_tables(ray.get(out))
        assert scored.num_rows == 100
        assert sorted(scored.column("json_distance").to_pylist()) == sorted(0.0 if i % 3 == 1 else 1.0 for i in range(100))
    finally:
        ray.shutdown()
