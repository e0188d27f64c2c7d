"""Errors as exceptions: where an input is wrong (file, line, column, JSON path) and the
command line's message; bad arguments; a bug as InternalError, never a crash."""

import pytest

import advisor
from advisor import _native
from conftest import SCENARIO, cli


def cli_error(*args: str) -> str:
    """The command line's message for the same call (stderr less its `error: ` prefixes)."""
    done = cli(*args, check=False)
    assert done.returncode == 2, done
    return "\n".join(line[len("error: "):] if line.startswith("error: ") else line for line in done.stderr.splitlines())


def test_the_hierarchy():
    assert issubclass(advisor.CaptureError, ValueError)
    assert issubclass(advisor.UsageError, ValueError)
    assert issubclass(advisor.InternalError, RuntimeError)
    for e in (advisor.CaptureError, advisor.UsageError, advisor.InternalError):
        assert issubclass(e, advisor.Error)


def test_a_broken_capture_says_where_with_the_command_lines_message():
    broken = "fixtures/invalid/fio-truncated-mid-document.json"
    with pytest.raises(advisor.CaptureError) as e:
        advisor.analyze([broken], vm="Standard_DS13_v2")
    err = e.value
    assert (err.file, err.line, err.column, err.json_path) == (broken, 75, 22, None)
    assert str(err) == err.message == cli_error("analyze", broken, "--vm", "Standard_DS13_v2")
    # One error per input that failed: here the one.
    assert [(x.file, x.line, x.column, str(x)) for x in err.errors] == [(broken, 75, 22, str(err))]


def test_a_json_path_is_given_where_a_document_is_wrong():
    broken = "fixtures/invalid/fio-zero-runtime.json"
    with pytest.raises(advisor.CaptureError) as e:
        advisor.analyze(broken)
    assert (e.value.file, e.value.json_path, e.value.line) == (broken, "$.jobs", None)
    assert str(e.value) == cli_error("analyze", broken)


def test_every_unreadable_input_is_named():
    first, second = "fixtures/invalid/fio-truncated-mid-document.json", "fixtures/invalid/empty.csv"
    with pytest.raises(advisor.CaptureError) as e:
        advisor.analyze([first, f"{SCENARIO}/capture.csv", second])
    err = e.value
    assert [x.file for x in err.errors] == [first, second]
    assert (err.file, err.line) == (first, 75)
    assert err.errors[1].line is None and str(err.errors[1]) == f"{second}: the file is empty"
    assert str(err) == cli_error("analyze", first, f"{SCENARIO}/capture.csv", second)
    # Not a capture at all: the refusal says what it looks like and what is read.
    with pytest.raises(advisor.CaptureError, match="binary data") as e:
        advisor.analyze("fixtures/invalid/binary-garbage.bin")
    assert e.value.file == "fixtures/invalid/binary-garbage.bin"


def test_a_missing_file_is_a_capture_error():
    with pytest.raises(advisor.CaptureError) as e:
        advisor.analyze("fixtures/none.csv")
    assert e.value.file == "fixtures/none.csv"
    assert str(e.value) == cli_error("analyze", "fixtures/none.csv")


def test_a_broken_topology_file_says_where(tmp_path):
    bad = tmp_path / "topology.toml"
    bad.write_text('[vm]\nsize = "Standard_DS13_v2"\n\n[[disk]]\nname = "E:"\ncache = "Sometimes"\n')
    with pytest.raises(advisor.CaptureError) as e:
        advisor.analyze(f"{SCENARIO}/capture.csv", topology=bad)
    assert e.value.file == str(bad)
    assert e.value.line == 6
    assert str(e.value) == cli_error("analyze", f"{SCENARIO}/capture.csv", "--topology", str(bad))


def test_bad_settings_are_usage_errors_with_the_command_lines_message():
    capture = f"{SCENARIO}/capture.csv"
    with pytest.raises(advisor.UsageError) as e:
        advisor.analyze(capture, set=["vm-cached-throughput-cap.nope=1"])
    assert str(e.value) == cli_error("analyze", capture, "--set", "vm-cached-throughput-cap.nope=1")
    with pytest.raises(advisor.UsageError):
        advisor.Session(rules=["fixtures/none"])
    with pytest.raises(advisor.UsageError, match="a percentile is a number above 0"):
        advisor.recommend(capture, percentile=0)
    with pytest.raises(advisor.UsageError, match="no such series"):
        advisor.recommend(capture, family=["Nonesuch"])
    with pytest.raises(advisor.UsageError, match="labels"):
        advisor.compare(capture, capture, labels=["a", "b", "c"])


def test_bad_arguments_are_usage_errors():
    capture = f"{SCENARIO}/capture.csv"
    with pytest.raises(advisor.UsageError, match="paths: give at least one"):
        advisor.analyze([])
    with pytest.raises(advisor.UsageError, match="paths"):
        advisor.analyze(42)
    with pytest.raises(advisor.UsageError, match="vm"):
        advisor.analyze(capture, vm=13)
    with pytest.raises(advisor.UsageError, match="set"):
        advisor.analyze(capture, set={"vm-cached-throughput-cap.cap_ratio": [1]})
    with pytest.raises(advisor.UsageError, match="format"):
        advisor.render(advisor.analyze(capture), "pdf")
    with pytest.raises(advisor.UsageError, match="percentile"):
        advisor.recommend(capture, percentile="95")
    with pytest.raises(advisor.UsageError, match="schema"):
        advisor.schema("reports")
    with pytest.raises(advisor.UsageError, match="report"):
        advisor.render({"schema": "something/v1"})
    with pytest.raises(advisor.UsageError, match="report"):
        advisor.render("## a report")
    with pytest.raises(advisor.UsageError, match="advisor.report/v1"):
        advisor.render({"schema": "advisor.report/v1", "findings": "none"})


def test_a_panic_is_an_internal_error_and_the_process_goes_on():
    with pytest.raises(advisor.InternalError) as e:
        _native._panic_for_tests()
    assert "raised on purpose" in str(e.value)
    assert "please report it" in str(e.value)
    # Still answering afterwards.
    assert advisor.analyze(f"{SCENARIO}/capture.csv", vm="Standard_DS13_v2")["vm"] == "Standard_DS13_v2"


def test_exceptions_can_be_made_by_callers_too():
    e = advisor.CaptureError("x.csv:1:2: bad", file="x.csv", line=1, column=2)
    assert (e.file, e.line, e.column, e.json_path, e.errors) == ("x.csv", 1, 2, None, [e])
    assert issubclass(type(e), ValueError) and isinstance(e, advisor.Error)
