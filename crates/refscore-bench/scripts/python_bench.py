"""Throughput of the refscore Python package (run by python-bench.sh).

Reads a pairs file (`gen-pairs` JSONL: id, output, reference), puts output
and reference into a pandas DataFrame as JSON text, and times:

1. refscore `evaluate_dataframe(df, [refscore.metrics.json_distance()])`
   (pandas, and polars);
2. Phoenix's JSON Distance code evaluator (the documented algorithm:
   parse both sides, count differing fields, array elements and scalars)
   as a phoenix-evals `create_evaluator` function through phoenix-evals'
   own `evaluate_dataframe`; phoenix-evals ships no JSON distance metric
   of its own, this is the code evaluator its docs give for it;
3. the CLI, `refscore compare --metric json_distance --pairs FILE`;
4. `refscore.spark.score` in Spark local mode (`local[2]`).

Prints one `key=value` line per measurement.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import time


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def phoenix_json_distance():
    """Phoenix's JSON Distance code evaluator, written from its documented
    behaviour, as a phoenix-evals evaluator."""
    from phoenix.evals import create_evaluator

    def count(a, b):
        if isinstance(a, dict) and isinstance(b, dict):
            return sum(count(a.get(k), b.get(k)) for k in a.keys() | b.keys())
        if isinstance(a, list) and isinstance(b, list):
            return abs(len(a) - len(b)) + sum(count(x, y) for x, y in zip(a, b))
        return 0 if a == b else 1

    @create_evaluator(name="json_distance", direction="minimize")
    def json_distance(output: str, reference: str) -> dict:
        try:
            out = json.loads(output) if isinstance(output, str) else output
            ref = json.loads(reference) if isinstance(reference, str) else reference
        except (TypeError, ValueError) as e:
            return {"label": "invalid", "explanation": f"not JSON: {e}"}
        d = count(out, ref)
        return {"score": float(d), "label": "match" if d == 0 else "mismatch"}

    return json_distance


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--pairs", required=True)
    p.add_argument("--cli", required=True)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--phoenix-rows", type=int, default=0, help="rows for phoenix (0: all)")
    p.add_argument("--no-phoenix", action="store_true")
    p.add_argument("--no-spark", action="store_true")
    args = p.parse_args()

    import pandas as pd
    import polars as pl

    import refscore

    ids, outputs, references = [], [], []
    with open(args.pairs) as f:
        for line in f:
            row = json.loads(line)
            ids.append(row["id"])
            o, r = row["output"], row["reference"]
            outputs.append(o if isinstance(o, str) else json.dumps(o, ensure_ascii=False))
            references.append(r if isinstance(r, str) else json.dumps(r, ensure_ascii=False))
    n = len(ids)
    df = pd.DataFrame({"id": ids, "output": outputs, "reference": references})
    print(f"rows={n}")

    ev = refscore.metrics.json_distance()
    best = min(timed(lambda: refscore.evaluate_dataframe(df, [ev]))[0] for _ in range(args.repeat))
    out = refscore.evaluate_dataframe(df, [ev])
    failed = sum(d["status"] != "completed" for d in out["json_distance_execution_details"])
    print(f"refscore_pandas_seconds={best:.3f} refscore_pandas_rows_per_s={n / best:.0f} failed={failed}")
    ref_scores = [s["score"] if s else None for s in out["json_distance_score"]]

    pdf = pl.from_pandas(df)
    best_pl = min(timed(lambda: refscore.evaluate_dataframe(pdf, [ev]))[0] for _ in range(args.repeat))
    print(f"refscore_polars_seconds={best_pl:.3f} refscore_polars_rows_per_s={n / best_pl:.0f}")

    cli_best = min(
        timed(
            lambda: subprocess.run(
                [args.cli, "compare", "--metric", "json_distance", "--pairs", args.pairs],
                stdout=subprocess.DEVNULL,
                check=True,
            )
        )[0]
        for _ in range(args.repeat)
    )
    print(f"cli_seconds={cli_best:.3f} cli_rows_per_s={n / cli_best:.0f} pandas_share_of_cli={cli_best / best:.2f}")

    if not args.no_phoenix:
        from phoenix.evals import evaluate_dataframe as phoenix_evaluate

        m = args.phoenix_rows or n
        sub = df.iloc[:m]
        pev = phoenix_json_distance()
        secs, pout = timed(lambda: phoenix_evaluate(dataframe=sub, evaluators=[pev], hide_tqdm_bar=True))
        agree = sum(
            1
            for a, b in zip(pout["json_distance_score"], ref_scores[:m])
            if a is not None and b is not None and a.get("score") == b
        )
        print(
            f"phoenix_rows={m} phoenix_seconds={secs:.3f} phoenix_rows_per_s={m / secs:.0f} "
            f"ratio={(n / best) / (m / secs):.1f} same_score_rows={agree}"
        )

    if not args.no_spark:
        from pyspark.sql import SparkSession

        import refscore.spark

        spark = (
            SparkSession.builder.master("local[2]")
            .config("spark.ui.enabled", "false")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.driver.memory", "4g")
            .config("spark.sql.execution.arrow.pyspark.enabled", "true")
            .getOrCreate()
        )
        sdf = spark.createDataFrame(df).repartition(2).cache()
        sdf.count()
        suite = refscore.Suite([ev])

        def spark_run():
            return refscore.spark.score(sdf, suite).agg({"json_distance": "sum"}).collect()

        spark_run()  # warm the Python workers
        s_best = min(timed(spark_run)[0] for _ in range(args.repeat))
        print(f"spark_local2_seconds={s_best:.3f} spark_local2_rows_per_s={n / s_best:.0f}")
        spark.stop()


if __name__ == "__main__":
    main()
