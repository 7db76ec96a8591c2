"""Every built-in metric gives in Python what the CLI gives, on the shared
data-driven cases (tests/cases/*.json at the repository root).

The cases are grouped by metric and options; each group is one suite run
by the `refscore` binary (`refscore run`) and one `evaluate_dataframe`
call, and every row's scores must be equal (the CLI leaves passed
details out of results.jsonl, so they are compared without them).
"""

from __future__ import annotations

import json
import subprocess
from collections import defaultdict
from pathlib import Path

import pandas as pd
import pytest

import refscore
from conftest import ROOT

CASES = sorted((ROOT / "tests" / "cases").glob("*.json"))


def _groups():
    groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for f in CASES:
        for case in json.loads(f.read_text()):
            key = (case["metric"], json.dumps(case.get("options", {}), sort_keys=True))
            groups[key].append(case)
    return sorted(groups.items())


# The label metrics have no shared case file: a few rows each.
EXTRA = [
    ("exact_match", {"normalize": ["nfkc", "casefold", "trim"]},
     [("ACME ", "acme"), ("Ａcme", "acme"), ("acme", "acne"), ("", "x"), (None, "x")]),
    ("matches_regex", {"pattern": "[A-Z]{3}-[0-9]+", "full_match": True},
     [("INV-12", None), ("inv-12", None), ("xx INV-12", None), ("  ", None)]),
    ("precision_recall_fscore", {"mode": "set", "average": "micro", "normalize": ["trim", "casefold"]},
     [(["a", "B"], ["b", "c"]), ([], ["a"]), (["x"], ["x"]), ("not a list", ["a"])]),
    ("precision_recall_fscore", {"average": "binary", "positive_label": "Yes"},
     [(["Yes", "No", "Yes"], ["Yes", "Yes", "No"]), (["No"], ["No"])]),
]


def _extra_groups():
    out = []
    for metric, options, pairs in EXTRA:
        cases = []
        for i, (o, r) in enumerate(pairs):
            case = {"name": f"{metric} {i}", "metric": metric, "options": options}
            if o is not None:
                case["output"] = o
            if r is not None:
                case["reference"] = r
            cases.append(case)
        out.append(((metric, json.dumps(options, sort_keys=True)), cases))
    return out


GROUPS = _groups() + _extra_groups()


def test_the_cases_cover_every_code_metric_they_name():
    assert len(GROUPS) > 50
    named = {m for (m, _), _ in GROUPS}
    assert {"json_match", "json_distance", "json_diff", "json_similarity", "json_structural", "format"} <= named


def _row(case: dict) -> dict:
    row = {}
    for key in ("output", "reference"):
        if key in case:
            row[key] = case[key]
    row.update(case.get("inputs", {}))
    return row


def _without_passed(score: dict) -> dict:
    s = dict(score)
    if "details" in s:
        kept = [d for d in s["details"] if not d.get("passed")]
        if kept:
            s["details"] = kept
        else:
            del s["details"]
    return s


def _absolute_files(options: dict) -> dict:
    """Options naming files relative to the cases folder (where the Rust
    case runner resolves them), made absolute: the suite written here
    lives elsewhere."""
    base = ROOT / "tests" / "cases"
    out = {}
    for key, value in options.items():
        if isinstance(value, str) and "/" in value and (base / value).is_file():
            value = str((base / value).resolve())
        out[key] = value
    return out


@pytest.mark.parametrize("group", GROUPS, ids=[f"{m}:{o}"[:80] for (m, o), _ in GROUPS])
def test_python_equals_cli(group, cli, tmp_path: Path):
    (metric, options_text), cases = group
    options = _absolute_files(json.loads(options_text))
    rows = [_row(c) for c in cases]
    with open(tmp_path / "data.jsonl", "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    suite = {"dataset": "data.jsonl", "evaluators": [{"name": metric, "metric": metric, "options": options}]}
    (tmp_path / "suite.yaml").write_text(json.dumps(suite))
    run = subprocess.run(
        [str(cli), "run", str(tmp_path / "suite.yaml"), "-o", str(tmp_path / "out"), "--quiet"],
        capture_output=True,
        text=True,
    )
    try:
        ev = refscore.metric(metric, **options)
    except ValueError as e:
        # A bad configuration: the CLI refuses it too (exit 2).
        assert run.returncode == 2, (str(e), run.stderr)
        return
    assert run.returncode in (0, 1), run.stderr
    cli_rows = [json.loads(line) for line in (tmp_path / "out" / "results.jsonl").read_text().split("\n") if line]
    assert len(cli_rows) == len(rows)
    columns = sorted({k for r in rows for k in r})
    df = pd.DataFrame({c: pd.Series([r.get(c) for r in rows], dtype=object) for c in columns})
    out = refscore.evaluate_dataframe(df, [ev])
    score_columns = [c for c in out.columns if c.endswith("_score")]
    for i, (case, cli_row) in enumerate(zip(cases, cli_rows)):
        py_scores = [_without_passed(out[c].iloc[i]) for c in score_columns if out[c].iloc[i] is not None]
        cli_scores = [_without_passed(s) for s in cli_row["scores"]]
        assert py_scores == cli_scores, case["name"]
        py_exec = out[f"{metric}_execution_details"].iloc[i]
        cli_exec = cli_row["execution"][metric]
        assert py_exec["status"] == cli_exec["status"], case["name"]
        cli_error = cli_exec.get("error")
        if cli_error and cli_error.startswith("input `"):
            # The row lacks the key in the file, the frame has the column
            # holding None: both fail on that input, worded each its way.
            name = cli_error.split("`")[1]
            assert f"`{name}`" in (py_exec["error"] or ""), case["name"]
        else:
            assert py_exec["error"] == cli_error, case["name"]
        expect = case.get("expect", {})
        if "score" in expect and py_scores and "name" not in expect:
            want, got = expect["score"], py_scores[0]["score"]
            if want is None:
                assert got is None, case["name"]
            else:
                assert got == pytest.approx(want, abs=expect.get("tolerance", 1e-9)), case["name"]
