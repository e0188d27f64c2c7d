"""What the suite shares: the repository's fixtures, and the command line built from the same
sources, whose JSON and reports the package must give exactly.

The binary is ``ADVISOR_BIN``, else ``$CARGO_TARGET_DIR/debug/advisor``, else
``target/debug/advisor`` (``cargo build`` makes it). Paths are given relative to the
repository's root, where both the package and the command line run, so that each names
the files alike.
"""

import datetime
import json
import os
import subprocess
from pathlib import Path
from typing import List, Tuple

import pytest

REPO = Path(__file__).resolve().parents[3]
SCENARIO = "fixtures/scenarios/ds13v2-temp-disk-throttles-cached-p30"


def _binary() -> Path:
    candidates = []
    if os.environ.get("ADVISOR_BIN"):
        candidates.append(Path(os.environ["ADVISOR_BIN"]))
    if os.environ.get("CARGO_TARGET_DIR"):
        candidates.append(Path(os.environ["CARGO_TARGET_DIR"]) / "debug" / "advisor")
    candidates.append(REPO / "target" / "debug" / "advisor")
    for c in candidates:
        if c.is_file():
            return c
    raise RuntimeError(
        "no advisor binary to compare with: run `cargo build` or set ADVISOR_BIN "
        f"(looked at {', '.join(map(str, candidates))})"
    )


@pytest.fixture(autouse=True)
def _at_the_repository_root(monkeypatch):
    monkeypatch.chdir(REPO)


def cli(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    """The command line, run at the repository's root."""
    done = subprocess.run(
        [str(_binary()), *args], cwd=REPO, capture_output=True, text=True, encoding="utf-8"
    )
    if check and done.returncode != 0:
        raise AssertionError(f"advisor {' '.join(args)}: {done.stderr}")
    return done


def cli_json(*args: str):
    return json.loads(cli(*args).stdout)


def scenarios() -> List[Tuple[str, List[str], str]]:
    """Every scenario fixture: (name, capture files, topology), relative to the root."""
    out = []
    for d in sorted((REPO / "fixtures" / "scenarios").iterdir()):
        if not d.is_dir():
            continue
        rel = d.relative_to(REPO).as_posix()
        captures = sorted(
            f"{rel}/{f.name}"
            for f in d.iterdir()
            if f.is_file() and f.name not in ("expect.toml", "topology.toml")
        )
        out.append((d.name, captures, f"{rel}/topology.toml"))
    assert len(out) >= 12, out
    return out


@pytest.fixture(scope="session")
def long_capture(tmp_path_factory) -> Path:
    """The DS13_v2 scenario's PerfMon capture repeated, each repetition 90 s later, to a
    file of about 25 MB: an analysis that takes long enough to watch other threads run."""
    lines = (REPO / SCENARIO / "capture.csv").read_text(encoding="utf-8").splitlines()
    header, rows = lines[0], [r for r in lines[1:] if r.strip()]
    fmt = "%m/%d/%Y %H:%M:%S.%f"
    out = [header]
    for rep in range(400):
        shift = datetime.timedelta(seconds=91 * rep)
        for r in rows:
            stamp, rest = r.split(",", 1)
            t = datetime.datetime.strptime(stamp.strip('"'), fmt) + shift
            out.append(f'"{t.strftime(fmt)[:-3]}",{rest}')
    path = tmp_path_factory.mktemp("long") / "long.csv"
    path.write_text("\r\n".join(out) + "\r\n", encoding="utf-8")
    return path
