"""Type stubs of the advisor package (the engine of the `advisor` command line)."""

import os
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

__version__: str
SCHEMAS: Tuple[str, ...]

StrPath = Union[str, os.PathLike[str]]
#: One path, or several.
Paths = Union[StrPath, Iterable[StrPath]]
Content = Union[bytes, bytearray, memoryview, str]
#: Files held in memory: {name: content}, or (name, content) pairs.
Files = Union[Mapping[str, Content], Iterable[Tuple[str, Content]]]
#: Topology documents: paths, or held in memory.
Topology = Union[Paths, Mapping[str, Content]]
#: Rule parameters: "ID.PARAM=VALUE" strings, or {"ID.PARAM": value}.
Settings = Union[str, Iterable[str], Mapping[str, Union[str, int, float, bool]]]
#: A JSON document as Python objects.
Document = Dict[str, Any]

class Error(Exception):
    message: str
    def __init__(self, message: str) -> None: ...

class CaptureError(Error, ValueError):
    file: Optional[str]
    line: Optional[int]
    column: Optional[int]
    json_path: Optional[str]
    xml_path: Optional[str]
    csv_column: Optional[str]
    errors: List["CaptureError"]
    def __init__(
        self,
        message: str,
        *,
        file: Optional[str] = ...,
        line: Optional[int] = ...,
        column: Optional[int] = ...,
        json_path: Optional[str] = ...,
        xml_path: Optional[str] = ...,
        csv_column: Optional[str] = ...,
        errors: Sequence["CaptureError"] = ...,
    ) -> None: ...

class UsageError(Error, ValueError): ...
class InternalError(Error, RuntimeError): ...

class Report(Dict[str, Any]):
    def __init__(self, data: Dict[str, Any], document: Any = ...) -> None: ...

class Session:
    def __init__(
        self,
        *,
        rules: Optional[Paths] = ...,
        set: Optional[Settings] = ...,
        catalog: Optional[Paths] = ...,
        counters: Optional[Paths] = ...,
    ) -> None: ...
    def analyze(
        self, paths: Paths, *, topology: Optional[Topology] = ..., vm: Optional[str] = ...
    ) -> Report: ...
    def analyze_files(
        self, files: Files, *, topology: Optional[Topology] = ..., vm: Optional[str] = ...
    ) -> Report: ...
    def compare(
        self,
        before: Paths,
        after: Paths,
        *,
        topology: Optional[Topology] = ...,
        vm: Optional[str] = ...,
        after_topology: Optional[Topology] = ...,
        after_vm: Optional[str] = ...,
        labels: Optional[Union[str, Iterable[str]]] = ...,
    ) -> Report: ...
    def recommend(
        self,
        paths: Paths,
        *,
        topology: Optional[Topology] = ...,
        vm: Optional[str] = ...,
        percentile: float = ...,
        headroom: float = ...,
        interval: Optional[float] = ...,
        family: Optional[Union[str, Iterable[str]]] = ...,
        any_size: bool = ...,
        prices: Optional[StrPath] = ...,
        region: Optional[str] = ...,
    ) -> Report: ...
    def render(self, report: Mapping[str, Any], format: str = ...) -> str: ...

def analyze(
    paths: Paths,
    *,
    topology: Optional[Topology] = ...,
    vm: Optional[str] = ...,
    rules: Optional[Paths] = ...,
    set: Optional[Settings] = ...,
    catalog: Optional[Paths] = ...,
    counters: Optional[Paths] = ...,
) -> Report: ...
def analyze_files(
    files: Files,
    *,
    topology: Optional[Topology] = ...,
    vm: Optional[str] = ...,
    rules: Optional[Paths] = ...,
    set: Optional[Settings] = ...,
    catalog: Optional[Paths] = ...,
    counters: Optional[Paths] = ...,
) -> Report: ...
def compare(
    before: Paths,
    after: Paths,
    *,
    topology: Optional[Topology] = ...,
    vm: Optional[str] = ...,
    after_topology: Optional[Topology] = ...,
    after_vm: Optional[str] = ...,
    labels: Optional[Union[str, Iterable[str]]] = ...,
    rules: Optional[Paths] = ...,
    set: Optional[Settings] = ...,
    catalog: Optional[Paths] = ...,
    counters: Optional[Paths] = ...,
) -> Report: ...
def recommend(
    paths: Paths,
    *,
    topology: Optional[Topology] = ...,
    vm: Optional[str] = ...,
    percentile: float = ...,
    headroom: float = ...,
    interval: Optional[float] = ...,
    family: Optional[Union[str, Iterable[str]]] = ...,
    any_size: bool = ...,
    prices: Optional[StrPath] = ...,
    region: Optional[str] = ...,
    catalog: Optional[Paths] = ...,
    counters: Optional[Paths] = ...,
) -> Report: ...
def render(report: Mapping[str, Any], format: str = ...) -> str: ...
def schema(name: str = ...) -> Document: ...
