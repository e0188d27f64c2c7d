"""Attachments held in memory (what a bot downloading a ticket has): the same report as the
files on disk, bundles included, topology documents in memory too."""

import pytest

import advisor
from conftest import REPO, SCENARIO, cli_json, scenarios


def read(rel: str) -> bytes:
    return (REPO / rel).read_bytes()


@pytest.mark.parametrize("name,captures,topology", scenarios(), ids=[s[0] for s in scenarios()])
def test_bytes_give_the_report_the_files_give(name, captures, topology):
    # Named as the paths are, the attachments make the same document, byte for byte.
    from_files = advisor.analyze(captures, topology=[topology])
    from_memory = advisor.analyze_files({c: read(c) for c in captures}, topology={topology: read(topology)})
    assert from_memory == from_files


@pytest.mark.parametrize(
    "bundle", ["fixtures/bundles/windows-ds13v2.zip", "fixtures/bundles/linux-off-azure.tar.gz"]
)
def test_a_collector_bundle_in_memory_is_opened_as_on_disk(bundle):
    from_memory = advisor.analyze_files({bundle: read(bundle)})
    assert from_memory == advisor.analyze([bundle])
    formats = {i["format"] for i in from_memory["inputs"]}
    assert "collector-manifest" in formats, formats
    # The bundle's own documents gave the topology.
    assert from_memory.get("vm") or any(i["format"] == "topology" for i in from_memory["inputs"])


def test_attachments_keep_the_names_they_are_given():
    data = read(f"{SCENARIO}/capture.csv")
    r = advisor.analyze_files([("perf (2).csv", data)], vm="Standard_DS13_v2")
    assert [i["file"] for i in r["inputs"]] == ["perf (2).csv"]
    # bytearray and memoryview are taken as bytes are.
    assert advisor.analyze_files({"perf (2).csv": bytearray(data)}, vm="Standard_DS13_v2") == r
    assert advisor.analyze_files({"perf (2).csv": memoryview(data)}, vm="Standard_DS13_v2") == r


def test_a_session_reads_attachments_too():
    session = advisor.Session()
    files = {f"{SCENARIO}/capture.csv": read(f"{SCENARIO}/capture.csv")}
    topology = {"topology.toml": read(f"{SCENARIO}/topology.toml")}
    r = session.analyze_files(files, topology=topology)
    assert r["findings"][0]["rule"] == "vm-cached-throughput-cap"


def test_a_topology_document_in_memory_must_be_text():
    with pytest.raises(advisor.CaptureError) as e:
        advisor.analyze_files(
            {"c.csv": read(f"{SCENARIO}/capture.csv")}, topology={"imds.json": b"\xff\xfe{\x00"}
        )
    assert e.value.file == "imds.json"
    assert "imds.json" in str(e.value)


def test_a_broken_attachment_names_itself_and_where():
    with pytest.raises(advisor.CaptureError) as e:
        advisor.analyze_files({"job.json": read("fixtures/invalid/fio-truncated-mid-document.json")})
    assert (e.value.file, e.value.line, e.value.column) == ("job.json", 75, 22)
    assert str(e.value).startswith("job.json:75:22: the JSON stops before its end")


def test_files_in_memory_must_be_named_bytes():
    with pytest.raises(advisor.UsageError, match="files"):
        advisor.analyze_files(b"not a mapping")
    with pytest.raises(advisor.UsageError, match="bytes"):
        advisor.analyze_files({"a.csv": 12})
    with pytest.raises(advisor.UsageError, match="at least one"):
        advisor.analyze_files({})
    with pytest.raises(advisor.UsageError, match="pair"):
        advisor.analyze_files([b"a.csv"])


def test_a_path_to_a_folder_bundle():
    # The folder a collector writes, read in place, as the command line reads it.
    folder = "fixtures/bundles/windows-ds13v2"
    r = advisor.analyze([folder])
    assert r == cli_json("analyze", folder, "--format", "json")
    assert r["vm"] == "Standard_DS13_v2"
