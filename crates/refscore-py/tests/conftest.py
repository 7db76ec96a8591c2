"""Shared fixtures: the repository, the CLI binary, the scripted LLM server."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

ROOT = Path(__file__).resolve().parents[3]


def _binary(name: str, env: str) -> Path:
    """A workspace binary: ``$env`` if set, else ``target/debug/<name>``,
    built with cargo when missing."""
    if os.environ.get(env):
        return Path(os.environ[env])
    path = ROOT / "target" / "debug" / name
    if not path.exists():
        package = {"refscore": "refscore-cli"}.get(name, name)
        subprocess.run(["cargo", "build", "-q", "-p", package], cwd=ROOT, check=True)
    assert path.exists(), f"{path} was not built"
    return path


@pytest.fixture(scope="session")
def cli() -> Path:
    """The ``refscore`` command-line binary."""
    return _binary("refscore", "REFSCORE_BIN")


def _scripted(extra: list[str]) -> Iterator[str]:
    """A scripted OpenAI-compatible server on 127.0.0.1 (ephemeral port,
    bounded lifetime) started with `extra` arguments; yields its base URL."""
    binary = _binary("refscore-scripted-llm", "REFSCORE_SCRIPTED_LLM_BIN")
    proc = subprocess.Popen(
        [str(binary), "--port", "0", "--max-seconds", "120", "--quiet", *extra],
        stdout=subprocess.PIPE,
        stderr=sys.stderr,
        text=True,
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:"), url
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.fixture()
def scripted_llm() -> Iterator[str]:
    """The scripted server with its automatic replies; yields its base URL."""
    yield from _scripted([])


@pytest.fixture()
def slow_llm(tmp_path: Path) -> Iterator[str]:
    """The scripted server answering every verdict with the label `good`
    after 400 ms; yields its base URL."""
    script = tmp_path / "slow.json"
    script.write_text(
        '{"rules": [{"when": "any", "reply": {"delay": {"ms": 400, "then":'
        ' {"tool_call": {"arguments": {"label": "good", "explanation": "slow"}}}}}}]}'
    )
    yield from _scripted(["--script", str(script)])


@pytest.fixture()
def stalling_llm(tmp_path: Path) -> Iterator[str]:
    """The scripted server answering prompts that hold `slow` after 20 s,
    the others at once (label `good`); yields its base URL."""
    script = tmp_path / "stalling.json"
    reply = '{"tool_call": {"arguments": {"label": "good", "explanation": "x"}}}'
    script.write_text(
        '{"rules": [{"when": {"prompt_contains": "slow"}, "reply": {"delay": {"ms": 20000, "then": '
        + reply
        + "}}}, {\"when\": \"any\", \"reply\": "
        + reply
        + "}]}"
    )
    yield from _scripted(["--script", str(script)])
