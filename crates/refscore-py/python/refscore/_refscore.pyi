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
    def evaluate_input(self, input: Mapping[str, Any]) -> list[dict[str, Any]]: ...

class Mapping:
    """A compiled input mapping (input → column name or JSONPath)."""

    def __init__(self, sources: Mapping[str, str]) -> None: ...
    @property
    def sources(self) -> dict[str, str]: ...
    def resolve(self, row: Mapping[str, Any], inputs: Sequence[tuple[str, bool]]) -> dict[str, Any]: ...

_Pairs = Sequence[tuple[MetricEvaluator, Optional[Mapping]]]

def registry() -> list[dict[str, Any]]: ...
def score_json(score: Mapping[str, Any]) -> dict[str, Any]: ...
def evaluate_columns(
    evaluators: _Pairs,
    columns: Mapping[str, Sequence[Any]],
    n_rows: int,
    threads: Optional[int] = None,
    score_format: str = "dict",
) -> tuple[dict[str, list[Any]], dict[str, list[dict[str, Any]]]]: ...
def evaluate_arrow(
    evaluators: _Pairs,
    batches: Sequence[Any],
    threads: Optional[int] = None,
    score_format: str = "dict",
) -> tuple[dict[str, list[Any]], dict[str, list[dict[str, Any]]]]: ...
def score_arrow(evaluators: _Pairs, batch: Any, threads: Optional[int] = None, keep_columns: bool = True) -> Any: ...
