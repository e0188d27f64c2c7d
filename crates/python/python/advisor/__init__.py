"""advisor: why an Azure VM's storage is slow, with the numbers that prove it.

The engine of the ``advisor`` command line, in process::

    import advisor
    r = advisor.analyze(["capture.csv"], topology=["topology.toml"])
    r["verdict"]["headline"], [f["rule"] for f in r["findings"]]

``analyze``, ``analyze_files``, ``compare`` and ``recommend`` return the command line's JSON
documents (``advisor analyze --format json`` and so on) as Python objects; ``render`` turns
one into the Markdown or HTML report; ``schema`` gives each document's JSON Schema. A
``Session`` loads the rules, settings and catalog once and is safe to share between
threads: the engine works with the GIL released. See docs/python.md.
"""

import json
import os
from collections.abc import Iterable, Mapping
from typing import Any, Dict, List, Optional, Tuple

from . import _native
from ._errors import CaptureError, Error, InternalError, UsageError

__version__: str = _native.__version__

__all__ = [
    "CaptureError",
    "Error",
    "InternalError",
    "Report",
    "SCHEMAS",
    "Session",
    "UsageError",
    "__version__",
    "analyze",
    "analyze_files",
    "compare",
    "recommend",
    "render",
    "schema",
]

#: The names ``schema`` knows.
SCHEMAS: Tuple[str, ...] = tuple(_native.SCHEMA_NAMES)


class Report(dict):
    """One of advisor's JSON documents (a report, comparison or recommendation) as a dict:
    exactly what the command line writes with ``--format json``. It also keeps the engine's
    own document, so that ``render`` draws the HTML page's charts, whose series the JSON
    does not carry; once the dict is changed, ``render`` renders the dict as it is (without
    charts). A copy or a pickle is a plain dict.
    """

    __slots__ = ("_document",)

    def __init__(self, data: Dict[str, Any], document: Any = None) -> None:
        super().__init__(data)
        self._document = document

    def __reduce__(self) -> Any:
        return (dict, (dict(self),))


def _kind(value: Any) -> str:
    return type(value).__name__


def _is_path(value: Any) -> bool:
    return isinstance(value, (str, os.PathLike))


def _path(name: str, value: Any) -> str:
    path = os.fspath(value) if isinstance(value, os.PathLike) else value
    if not isinstance(path, str):
        raise UsageError(f"{name}: a path (str or os.PathLike), not {_kind(value)}")
    return path


def _paths(name: str, value: Any, *, required: bool = False) -> List[str]:
    """None, a path, or an iterable of paths."""
    if value is None:
        items: List[Any] = []
    elif _is_path(value):
        items = [value]
    elif isinstance(value, Iterable) and not isinstance(value, (bytes, bytearray, Mapping)):
        items = list(value)
    else:
        raise UsageError(f"{name}: a path or a list of paths, not {_kind(value)}")
    paths = [_path(name, v) for v in items]
    if required and not paths:
        raise UsageError(f"{name}: give at least one capture or collector bundle")
    return paths


def _bytes(name: str, value: Any) -> bytes:
    if isinstance(value, (bytes, bytearray)):
        return value
    if isinstance(value, memoryview):
        return value.tobytes()
    if isinstance(value, str):
        return value.encode("utf-8")
    raise UsageError(f"{name}: the content as bytes (or str), not {_kind(value)}")


def _named(name: str, value: Any, *, required: bool = False) -> List[Tuple[str, bytes]]:
    """Files held in memory: {name: bytes} or an iterable of (name, bytes) pairs."""
    if value is None:
        pairs: List[Any] = []
    elif isinstance(value, Mapping):
        pairs = list(value.items())
    elif isinstance(value, Iterable) and not isinstance(value, (str, bytes, bytearray)):
        pairs = list(value)
    else:
        raise UsageError(f"{name}: {{name: bytes}} or a list of (name, bytes), not {_kind(value)}")
    out = []
    for pair in pairs:
        if not (isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[0], str)):
            raise UsageError(f"{name}: each file is a (name, bytes) pair, not {pair!r:.60}")
        out.append((pair[0], _bytes(f"{name}[{pair[0]!r}]", pair[1])))
    if required and not out:
        raise UsageError(f"{name}: give at least one capture or collector bundle")
    return out


def _topology(name: str, value: Any) -> Tuple[List[str], List[Tuple[str, bytes]]]:
    """Topology documents: paths, or {name: bytes} held in memory."""
    if isinstance(value, Mapping):
        return [], _named(name, value)
    return _paths(name, value), []


def _text(name: str, value: Any) -> Optional[str]:
    if value is None or isinstance(value, str):
        return value
    raise UsageError(f"{name}: a str, not {_kind(value)}")


def _texts(name: str, value: Any) -> List[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, Iterable) and not isinstance(value, (bytes, bytearray, Mapping)):
        items = list(value)
        for v in items:
            if not isinstance(v, str):
                raise UsageError(f"{name}: each is a str, not {_kind(v)}")
        return items
    raise UsageError(f"{name}: a str or a list of str, not {_kind(value)}")


def _setting(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return str(value)
    raise UsageError(f"set: a value is a str, a number or a bool, not {_kind(value)}")


def _sets(value: Any) -> List[str]:
    """``["ID.PARAM=VALUE", ...]``, or ``{"ID.PARAM": value}``."""
    if isinstance(value, Mapping):
        return [f"{_text('set', k)}={_setting(v)}" for k, v in value.items()]
    return _texts("set", value)


def _number(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise UsageError(f"{name}: a number, not {_kind(value)}")
    return float(value)


def _report(document: Any) -> Report:
    return Report(json.loads(document.json()), document)


class Session:
    """The rules in force, the settings and the catalog, loaded once for many calls.

    ``rules``: folders of rules added to the shipped ones (``--rules``); ``set``: rule
    parameters, ``["ID.PARAM=VALUE", ...]`` or ``{"ID.PARAM": value}`` (``--set``);
    ``catalog``: CSV files that extend or correct the built-in catalog (``--catalog``);
    ``counters``: PerfMon counter-name tables of other display languages (``--counters``).
    A session is never changed by a call: share it between threads freely.
    """

    def __init__(
        self,
        *,
        rules: Any = None,
        set: Any = None,
        catalog: Any = None,
        counters: Any = None,
    ) -> None:
        self._native = _native.Session(
            _paths("rules", rules),
            _sets(set),
            _paths("catalog", catalog),
            _paths("counters", counters),
        )

    @classmethod
    def _default(cls) -> "Session":
        session = cls.__new__(cls)
        session._native = _native.default_session()
        return session

    def analyze(self, paths: Any, *, topology: Any = None, vm: Optional[str] = None) -> Report:
        """``advisor analyze PATHS --topology ... --vm ... --format json``."""
        files, docs = _topology("topology", topology)
        return _report(
            self._native.analyze(_paths("paths", paths, required=True), files, docs, _text("vm", vm))
        )

    def analyze_files(
        self, files: Any, *, topology: Any = None, vm: Optional[str] = None
    ) -> Report:
        """``analyze`` of files held in memory: ``{name: bytes}`` (bundles included)."""
        topo_files, docs = _topology("topology", topology)
        return _report(
            self._native.analyze_files(
                _named("files", files, required=True), topo_files, docs, _text("vm", vm)
            )
        )

    def compare(
        self,
        before: Any,
        after: Any,
        *,
        topology: Any = None,
        vm: Optional[str] = None,
        after_topology: Any = None,
        after_vm: Optional[str] = None,
        labels: Any = None,
    ) -> Report:
        """``advisor compare BEFORE... --with AFTER... --format json``: the after side has
        the before side's topology unless it is given its own (``after_topology``,
        ``after_vm``)."""
        files, docs = _topology("topology", topology)
        after_files, after_docs = _topology("after_topology", after_topology)
        return _report(
            self._native.compare(
                _paths("before", before, required=True),
                _paths("after", after, required=True),
                files,
                docs,
                _text("vm", vm),
                after_files,
                after_docs,
                _text("after_vm", after_vm),
                _texts("labels", labels),
            )
        )

    def recommend(
        self,
        paths: Any,
        *,
        topology: Any = None,
        vm: Optional[str] = None,
        percentile: float = 95.0,
        headroom: float = 1.2,
        interval: Optional[float] = None,
        family: Any = None,
        any_size: bool = False,
        prices: Any = None,
        region: Optional[str] = None,
    ) -> Report:
        """``advisor recommend PATHS ... --format json``."""
        files, docs = _topology("topology", topology)
        if not isinstance(any_size, bool):
            raise UsageError(f"any_size: a bool, not {_kind(any_size)}")
        return _report(
            self._native.recommend(
                _paths("paths", paths, required=True),
                files,
                docs,
                _text("vm", vm),
                _number("percentile", percentile),
                _number("headroom", headroom),
                None if interval is None else _number("interval", interval),
                _texts("family", family),
                any_size,
                None if prices is None else _path("prices", prices),
                _text("region", region),
            )
        )

    def render(self, report: Mapping, format: str = "md") -> str:
        """The report (or comparison, or recommendation) as ``md`` or ``html`` (or ``json``,
        as the command line writes it). A report as ``analyze`` returned it renders with its
        charts; any other dict of the same shape renders without them."""
        if not isinstance(report, Mapping):
            raise UsageError(f"report: a dict as analyze returned it, not {_kind(report)}")
        fmt = _text("format", format)
        document = getattr(report, "_document", None)
        if document is not None and dict(report) == json.loads(document.json()):
            return document.render(fmt)
        try:
            text = json.dumps(report, allow_nan=False)
        except (TypeError, ValueError) as e:
            raise UsageError(f"report: not a JSON document: {e}") from None
        return self._native.render_json(text, fmt)


def _session(rules: Any, set: Any, catalog: Any, counters: Any) -> Session:
    if rules is None and set is None and catalog is None and counters is None:
        return Session._default()
    return Session(rules=rules, set=set, catalog=catalog, counters=counters)


def analyze(
    paths: Any,
    *,
    topology: Any = None,
    vm: Optional[str] = None,
    rules: Any = None,
    set: Any = None,
    catalog: Any = None,
    counters: Any = None,
) -> Report:
    """The JSON report of ``advisor analyze PATHS --format json`` as a dict.

    ``paths``: capture files or collector bundles (a folder, .tar.gz, .zip); ``topology``:
    the topology file or the VM's own documents (paths, or ``{name: bytes}``); ``vm``: the
    VM size; ``rules``, ``set``, ``catalog``, ``counters``: as ``Session`` takes them.
    """
    return _session(rules, set, catalog, counters).analyze(paths, topology=topology, vm=vm)


def analyze_files(
    files: Any,
    *,
    topology: Any = None,
    vm: Optional[str] = None,
    rules: Any = None,
    set: Any = None,
    catalog: Any = None,
    counters: Any = None,
) -> Report:
    """``analyze`` of attachments held in memory: ``{name: bytes}``, collector bundles
    (.tar.gz, .zip) included; each name is how reports and errors call the file."""
    return _session(rules, set, catalog, counters).analyze_files(files, topology=topology, vm=vm)


def compare(
    before: Any,
    after: Any,
    *,
    topology: Any = None,
    vm: Optional[str] = None,
    after_topology: Any = None,
    after_vm: Optional[str] = None,
    labels: Any = None,
    rules: Any = None,
    set: Any = None,
    catalog: Any = None,
    counters: Any = None,
) -> Report:
    """The comparison of ``advisor compare BEFORE... --with AFTER... --format json``."""
    return _session(rules, set, catalog, counters).compare(
        before,
        after,
        topology=topology,
        vm=vm,
        after_topology=after_topology,
        after_vm=after_vm,
        labels=labels,
    )


def recommend(
    paths: Any,
    *,
    topology: Any = None,
    vm: Optional[str] = None,
    percentile: float = 95.0,
    headroom: float = 1.2,
    interval: Optional[float] = None,
    family: Any = None,
    any_size: bool = False,
    prices: Any = None,
    region: Optional[str] = None,
    catalog: Any = None,
    counters: Any = None,
) -> Report:
    """The recommendation of ``advisor recommend PATHS ... --format json``."""
    return _session(None, None, catalog, counters).recommend(
        paths,
        topology=topology,
        vm=vm,
        percentile=percentile,
        headroom=headroom,
        interval=interval,
        family=family,
        any_size=any_size,
        prices=prices,
        region=region,
    )


def render(report: Mapping, format: str = "md") -> str:
    """A report, comparison or recommendation as Markdown (``md``) or ``html``: the
    command line's ``--format md|html`` of the same analysis."""
    return Session._default().render(report, format)


def schema(name: str = "report") -> Dict[str, Any]:
    """The JSON Schema of one of advisor's documents: ``report``, ``compare``,
    ``recommend``, ``batch``, ``rule`` or ``catalog-vm`` (``advisor schema NAME``)."""
    return json.loads(_native.schema(_text("name", name) or ""))
