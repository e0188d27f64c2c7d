"""The package's documents are the command line's, value for value: every scenario fixture's
report, a comparison, a recommendation, the schemas, and the rendered reports."""

import json
import re

import pytest

import advisor
from conftest import SCENARIO, cli, cli_json, scenarios


@pytest.mark.parametrize("name,captures,topology", scenarios(), ids=[s[0] for s in scenarios()])
def test_every_scenario_is_the_command_lines_json_report(name, captures, topology):
    report = advisor.analyze(captures, topology=[topology])
    expected = cli_json("analyze", *captures, "--topology", topology, "--format", "json")
    assert isinstance(report, dict)
    assert report == expected
    # Key order too: the document reads as the command line writes it.
    assert json.dumps(report) == json.dumps(expected)


def test_the_field_case_names_its_cause_first():
    r = advisor.analyze([f"{SCENARIO}/capture.csv"], topology=[f"{SCENARIO}/topology.toml"])
    assert r["schema"] == "advisor.report/v1"
    assert r["findings"][0]["rule"] == "vm-cached-throughput-cap"
    assert r["verdict"]["cause"] == "vm-cached-throughput-cap@vm"
    assert r["vm"] == "Standard_DS13_v2"


def test_a_vm_size_alone_and_no_topology_at_all():
    capture = f"{SCENARIO}/capture.csv"
    assert advisor.analyze(capture, vm="Standard_DS13_v2") == cli_json(
        "analyze", capture, "--vm", "Standard_DS13_v2", "--format", "json"
    )
    bare = advisor.analyze([capture])
    assert bare == cli_json("analyze", capture, "--format", "json")
    assert any("--topology" in n["reason"] for n in bare["not_evaluated"])


def test_session_options_are_the_command_lines():
    capture, topology = f"{SCENARIO}/capture.csv", f"{SCENARIO}/topology.toml"
    setting = "vm-cached-throughput-cap.cap_ratio=50%"
    expected = cli_json("analyze", capture, "--topology", topology, "--set", setting, "--format", "json")
    assert advisor.analyze([capture], topology=[topology], set=[setting]) == expected
    assert advisor.analyze([capture], topology=[topology], set={"vm-cached-throughput-cap.cap_ratio": "50%"}) == expected
    session = advisor.Session(set=setting)
    assert session.analyze([capture], topology=topology) == expected


def test_paths_may_be_pathlib_paths(tmp_path):
    from pathlib import Path

    capture, topology = Path(SCENARIO) / "capture.csv", Path(SCENARIO) / "topology.toml"
    assert advisor.analyze([capture], topology=topology) == advisor.analyze(
        [str(capture)], topology=[str(topology)]
    )


def test_compare_is_the_command_lines():
    after = "fixtures/compare/ds13v2-cache-off-temp-moved/after"
    got = advisor.compare(
        [f"{SCENARIO}/capture.csv"],
        [f"{after}/capture.csv"],
        topology=[f"{SCENARIO}/topology.toml"],
        after_topology=[f"{after}/topology.toml"],
    )
    assert got == cli_json(
        "compare",
        f"{SCENARIO}/capture.csv",
        "--topology",
        f"{SCENARIO}/topology.toml",
        "--with",
        f"{after}/capture.csv",
        "--with-topology",
        f"{after}/topology.toml",
        "--format",
        "json",
    )
    assert got["schema"] == "advisor.compare/v1"
    # A size for the after side alone keeps the shared topology's disks.
    got = advisor.compare(
        [f"{SCENARIO}/capture.csv"],
        [f"{SCENARIO}/capture.csv"],
        topology=[f"{SCENARIO}/topology.toml"],
        after_vm="Standard_DS14_v2",
        labels=["before", "after"],
    )
    assert got == cli_json(
        "compare",
        f"{SCENARIO}/capture.csv",
        "--topology",
        f"{SCENARIO}/topology.toml",
        "--with",
        f"{SCENARIO}/capture.csv",
        "--with-vm",
        "Standard_DS14_v2",
        "--label",
        "before",
        "--label",
        "after",
        "--format",
        "json",
    )


def test_recommend_is_the_command_lines():
    capture, topology = f"{SCENARIO}/capture.csv", f"{SCENARIO}/topology.toml"
    assert advisor.recommend([capture], topology=[topology]) == cli_json(
        "recommend", capture, "--topology", topology, "--format", "json"
    )
    assert advisor.recommend(
        [capture], topology=[topology], percentile=99, headroom=1.5, interval=10, family=["Edsv5"], any_size=True
    ) == cli_json(
        "recommend", capture, "--topology", topology, "--percentile", "99", "--headroom", "1.5",
        "--interval", "10", "--family", "Edsv5", "--any-size", "--format", "json",
    )


@pytest.mark.parametrize("name", advisor.SCHEMAS)
def test_schemas_are_the_command_lines(name):
    assert advisor.schema(name) == cli_json("schema", name)


def test_the_report_validates_against_its_schema_as_its_shape_says():
    # The JSON Schema's required top-level fields are all there, with their types.
    schema = advisor.schema("report")
    report = advisor.analyze([f"{SCENARIO}/capture.csv"], topology=[f"{SCENARIO}/topology.toml"])
    for key in schema["required"]:
        assert key in report, key
    assert set(report) <= set(schema["properties"])
    assert schema["properties"]["schema"]["const"] == report["schema"]


def test_version_is_the_command_lines():
    out = cli("--version").stdout.split()
    assert out == ["advisor", advisor.__version__]
    assert re.fullmatch(r"\d+\.\d+\.\d+", advisor.__version__)


def test_rendered_reports_are_the_command_lines():
    capture, topology = f"{SCENARIO}/capture.csv", f"{SCENARIO}/topology.toml"
    report = advisor.analyze([capture], topology=[topology])
    md = cli("analyze", capture, "--topology", topology).stdout
    html = cli("analyze", capture, "--topology", topology, "--format", "html").stdout
    assert advisor.render(report) == md
    assert advisor.render(report, "md") == md
    assert advisor.render(report, format="html") == html
    assert "<svg" in html
    assert advisor.render(report, "json") == cli("analyze", capture, "--topology", topology, "--format", "json").stdout
    # A dict that is not the one analyze returned (saved and loaded, say) renders as well;
    # the Markdown is the same, the page has no charts (their series are not in the JSON).
    plain = json.loads(json.dumps(report))
    assert type(plain) is dict
    assert advisor.render(plain, "md") == md
    page = advisor.render(plain, "html")
    assert report["verdict"]["headline"].split(":")[0] in page
    # The episodes' timeline strips are drawn from the findings (2 here); the charts of the
    # series are not there.
    assert page.count("<svg") == 2 < html.count("<svg")
    # Once changed, the report renders as it now is.
    report["vm"] = "Standard_DS14_v2"
    assert "Standard_DS14_v2" in advisor.render(report, "md")


def test_comparisons_and_recommendations_render_as_the_command_line_renders_them():
    capture, topology = f"{SCENARIO}/capture.csv", f"{SCENARIO}/topology.toml"
    rec = advisor.recommend([capture], topology=[topology])
    assert advisor.render(rec) == cli("recommend", capture, "--topology", topology).stdout
    cmp = advisor.compare([capture], [capture], topology=[topology], after_vm="Standard_DS14_v2")
    assert advisor.render(cmp) == cli(
        "compare", capture, "--topology", topology, "--with", capture, "--with-vm", "Standard_DS14_v2"
    ).stdout


def test_a_report_copies_and_pickles_as_a_plain_dict():
    import copy
    import pickle

    report = advisor.analyze([f"{SCENARIO}/capture.csv"], vm="Standard_DS13_v2")
    assert isinstance(report, advisor.Report)
    assert pickle.loads(pickle.dumps(report)) == report
    assert copy.deepcopy(report) == report
    assert json.loads(json.dumps(report)) == report
