"""Type stubs of the native module ``refscore._refscore``."""

from typing import Any, Mapping, Optional, Sequence

__version__: str

class MetricEvaluator:
    """A built-in metric built from the Rust registry."""

    def __init__(
        self,
        metric: str,
        options: Optional[Mapping[str, Any]] = None,
        name: Optional[str] = None,
        judge: Optional[Mapping[str, Any]] = None,
    ) -> None: ...
    @property
    def name(self) -> str: ...
    @property
    def metric(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def direction(self) -> str: ...
    @property
    def options(self) -> dict[str, Any]: ...
    @property
    def judge(self) -> Optional[dict[str, Any]]: ...
    @property
    def inputs(self) -> list[dict[str, Any]]: ...
    def judge_usage(self) -> list[dict[str, Any]]: ...
    def evaluate_input(self, input: Mapping[str, Any], stop: Optional[Stop] = None) -> list[dict[str, Any]]: ...

class Mapping:
    """A compiled input mapping (input → column name or JSONPath)."""

    def __init__(self, sources: Mapping[str, str]) -> None: ...
    @property
    def sources(self) -> dict[str, str]: ...
    def resolve(
        self,
        row: Mapping[str, Any],
        inputs: Sequence[tuple[str, bool]],
        all_keys: Optional[Sequence[str]] = None,
        labels: Optional[Mapping[str, str]] = None,
    ) -> dict[str, Any]: ...

class Stop:
    """Stops a native call made on another thread (see ``stop`` below)."""

    def __init__(self) -> None: ...
    def stop(self) -> None: ...
    @property
    def stopped(self) -> bool: ...

_Pairs = Sequence[tuple[MetricEvaluator, Optional[Mapping]]]

def registry() -> list[dict[str, Any]]: ...
def score_json(score: Mapping[str, Any]) -> dict[str, Any]: ...
def json_value(value: Any, what: str) -> Any: ...
def evaluate_columns(
    evaluators: _Pairs,
    columns: Mapping[str, Sequence[Any]],
    n_rows: int,
    threads: Optional[int] = None,
    score_format: str = "dict",
    stop: Optional[Stop] = None,
    all_columns: Optional[Sequence[str]] = None,
    labels: Optional[Mapping[str, str]] = None,
    exit_on_error: bool = False,
) -> tuple[dict[str, list[Any]], dict[str, list[dict[str, Any]]]]: ...
def evaluate_arrow(
    evaluators: _Pairs,
    batches: Sequence[Any],
    threads: Optional[int] = None,
    score_format: str = "dict",
    stop: Optional[Stop] = None,
    all_columns: Optional[Sequence[str]] = None,
    exit_on_error: bool = False,
) -> tuple[dict[str, list[Any]], dict[str, list[dict[str, Any]]]]: ...
def score_arrow(
    evaluators: _Pairs,
    batch: Any,
    threads: Optional[int] = None,
    keep_columns: bool = True,
    all_columns: Optional[Sequence[str]] = None,
) -> Any: ...
