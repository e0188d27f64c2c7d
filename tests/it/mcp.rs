//! `advisor mcp` as an MCP client drives it: the real binary, JSON-RPC on its stdin and
//! stdout (protocol 2025-11-25): initialize, tools/list, tools/call of every tool, each
//! answer checked against the schemas `advisor schema` prints and against what the command
//! line answers for the same inputs; paths outside `--allow` (plainly, through `..` and
//! through a link), a broken capture, bad arguments and the size limit as tool errors,
//! with the server answering on after each.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

const SCENARIO: &str = "fixtures/scenarios/ds13v2-temp-disk-throttles-cached-p30";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

fn advisor(args: &[&str]) -> std::process::Output {
    let out = Command::new(env!("CARGO_BIN_EXE_advisor"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("run advisor");
    assert!(out.status.success(), "advisor {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out
}

fn cli_json(args: &[&str]) -> Value {
    serde_json::from_slice(&advisor(args).stdout).expect("JSON")
}

/// `advisor schema NAME` as a validator.
fn validator(name: &str) -> (Value, jsonschema::Validator) {
    let schema = cli_json(&["schema", name]);
    let v = jsonschema::validator_for(&schema).expect("a valid JSON Schema");
    (schema, v)
}

fn assert_valid(name: &str, doc: &Value) {
    let (_, v) = validator(name);
    let errors: Vec<String> =
        v.iter_errors(doc).map(|e| format!("{e} at {}", e.instance_path())).collect();
    assert!(errors.is_empty(), "{name}: {errors:#?}");
}

/// A running `advisor mcp` and the client's side of its pipes.
struct Client {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Client {
    fn start(args: &[&str]) -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_advisor"))
            .arg("mcp")
            .args(args)
            .current_dir(root())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start advisor mcp");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Client { child, stdin, stdout, next_id: 1 }
    }

    fn send(&mut self, message: &Value) {
        let mut line = serde_json::to_string(message).unwrap();
        line.push('\n');
        self.stdin.write_all(line.as_bytes()).unwrap();
        self.stdin.flush().unwrap();
    }

    /// Sends a request and reads messages until its answer (each a line of JSON).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut line = String::new();
            let n = self.stdout.read_line(&mut line).unwrap();
            assert!(n > 0, "advisor mcp closed stdout before answering {method}");
            let msg: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout carries JSON-RPC only: {e}: {line}"));
            assert_eq!(msg["jsonrpc"], "2.0", "{msg}");
            if msg["id"] == json!(id) {
                return msg;
            }
        }
    }

    fn initialize(args: &[&str]) -> Client {
        let mut c = Client::start(args);
        let init = c.request(
            "initialize",
            json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "advisor-tests", "version": "1.0"}
            }),
        );
        let result = &init["result"];
        assert_eq!(result["protocolVersion"], "2025-11-25", "{init}");
        assert!(result["capabilities"]["tools"].is_object(), "{init}");
        assert_eq!(result["serverInfo"]["name"], "advisor", "{init}");
        assert_eq!(result["serverInfo"]["version"], env!("CARGO_PKG_VERSION"), "{init}");
        assert!(result["instructions"].as_str().is_some_and(|i| i.contains("analyze")), "{init}");
        c.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        c
    }

    /// `tools/call`: the result, and whether it is a tool error.
    fn call(&mut self, tool: &str, arguments: Value) -> (Value, bool) {
        let answer = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        let result = answer["result"].clone();
        assert!(result.is_object(), "tools/call {tool} answered no result: {answer}");
        let is_error = result["isError"].as_bool().unwrap_or(false);
        (result, is_error)
    }

    /// A tool error's message (its one text block).
    fn error(&mut self, tool: &str, arguments: Value) -> String {
        let (result, is_error) = self.call(tool, arguments);
        assert!(is_error, "{tool} should fail: {result}");
        assert!(result.get("structuredContent").is_none(), "{result}");
        text(&result)
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn text(result: &Value) -> String {
    let content = result["content"].as_array().expect("content");
    assert_eq!(content.len(), 1, "{result}");
    assert_eq!(content[0]["type"], "text", "{result}");
    content[0]["text"].as_str().unwrap().to_owned()
}

fn abs(rel: &str) -> String {
    root().join(rel).to_str().unwrap().to_owned()
}

#[test]
fn tools_list_declares_every_tool_with_its_schemas() {
    let mut c = Client::initialize(&["--allow", "fixtures"]);
    let list = c.request("tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().expect("tools");
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["analyze", "compare", "recommend", "explain_rule", "catalog_vm"]);
    for (t, schema) in tools.iter().zip(["report", "compare", "recommend", "rule", "catalog-vm"]) {
        let input = &t["inputSchema"];
        assert_eq!(input["type"], "object", "{t}");
        assert_eq!(input["additionalProperties"], false, "{t}");
        jsonschema::validator_for(input).expect("the input schema compiles");
        assert_eq!(t["outputSchema"], cli_json(&["schema", schema]), "{}", t["name"]);
        assert_eq!(t["annotations"]["readOnlyHint"], true, "{t}");
        assert!(t["description"].as_str().is_some_and(|d| d.len() > 40), "{t}");
    }
    let analyze = &tools[0]["inputSchema"];
    assert_eq!(analyze["required"], json!(["paths"]));
    for arg in ["paths", "topology", "vm", "set"] {
        assert!(analyze["properties"][arg].is_object(), "analyze takes {arg}: {analyze}");
    }
}

#[test]
fn analyze_answers_the_command_lines_report() {
    let mut c = Client::initialize(&["--allow", "fixtures"]);
    let capture = format!("{SCENARIO}/capture.csv");
    let topology = format!("{SCENARIO}/topology.toml");
    let (result, is_error) = c.call("analyze", json!({"paths": [capture], "topology": [topology]}));
    assert!(!is_error, "{result}");
    let report = &result["structuredContent"];
    assert_valid("report", report);
    assert_eq!(report["findings"][0]["rule"], "vm-cached-throughput-cap");

    // What the server read is the resolved path: the command line given it answers the
    // same document and the same Markdown, byte for byte.
    let (capture, topology) = (abs(&capture), abs(&topology));
    let cli = cli_json(&["analyze", &capture, "--topology", &topology, "--format", "json"]);
    assert_eq!(report, &cli);
    let md = advisor(&["analyze", &capture, "--topology", &topology]);
    assert_eq!(text(&result), String::from_utf8(md.stdout).unwrap());

    // Rule parameters for one call, as --set gives them; the next call has its own.
    let (result, is_error) = c.call(
        "analyze",
        json!({"paths": [capture], "topology": [topology],
               "set": ["vm-cached-throughput-cap.cap_ratio=50%"]}),
    );
    assert!(!is_error, "{result}");
    let cli = cli_json(&[
        "analyze",
        &capture,
        "--topology",
        &topology,
        "--set",
        "vm-cached-throughput-cap.cap_ratio=50%",
        "--format",
        "json",
    ]);
    assert_eq!(result["structuredContent"], cli);
    let e =
        c.error("analyze", json!({"paths": [capture], "set": ["vm-cached-throughput-cap.nope=1"]}));
    assert!(e.contains("nope"), "{e}");

    // A VM size alone, and a bundle (a zip of the Windows collector).
    let (result, is_error) =
        c.call("analyze", json!({"paths": ["fixtures/bundles/windows-ds13v2.zip"]}));
    assert!(!is_error, "{result}");
    assert_valid("report", &result["structuredContent"]);
    let (result, is_error) =
        c.call("analyze", json!({"paths": [capture], "vm": "Standard_DS13_v2"}));
    assert!(!is_error, "{result}");
    assert_eq!(result["structuredContent"]["vm"], "Standard_DS13_v2");
}

#[test]
fn inputs_are_read_only_inside_the_allowed_directories() {
    let dir = std::env::temp_dir().join(format!("advisor-mcp-allow-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("allowed")).unwrap();
    std::fs::copy(root().join(SCENARIO).join("capture.csv"), dir.join("allowed/capture.csv"))
        .unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(root().join("Cargo.toml"), dir.join("allowed/link.csv")).unwrap();
    let allowed = dir.join("allowed");
    let mut c = Client::initialize(&["--allow", allowed.to_str().unwrap()]);

    // Inside: read.
    let inside = allowed.join("capture.csv");
    let (result, is_error) =
        c.call("analyze", json!({"paths": [inside], "vm": "Standard_DS13_v2"}));
    assert!(!is_error, "{result}");

    // Outside: refused, naming the path as given; nothing is read.
    let e = c.error("analyze", json!({"paths": ["Cargo.toml"]}));
    assert!(
        e.starts_with("paths: Cargo.toml: outside the directories advisor mcp may read"),
        "{e}"
    );
    assert!(e.contains(allowed.canonicalize().unwrap().to_str().unwrap()), "{e}");
    // Out through `..`.
    let ups = "../".repeat(allowed.components().count() - 1);
    let target = root().join("Cargo.toml");
    let dotted = format!(
        "{}/{ups}{}",
        allowed.display(),
        target.display().to_string().trim_start_matches('/')
    );
    assert_eq!(Path::new(&dotted).canonicalize().unwrap(), target);
    let e = c.error("analyze", json!({"paths": [dotted]}));
    assert!(e.contains("outside the directories"), "{e}");
    // Out through a link inside the allowed directory.
    #[cfg(unix)]
    {
        let link = allowed.join("link.csv");
        let e = c.error("analyze", json!({"paths": [link]}));
        assert!(e.contains("outside the directories") && e.contains("resolves to"), "{e}");
    }
    // A topology outside is refused as well, before anything is read.
    let e = c.error("analyze", json!({"paths": [inside], "topology": ["Cargo.toml"]}));
    assert!(e.starts_with("topology: Cargo.toml: outside"), "{e}");
    // A missing file inside says so; one outside says only that it is outside.
    let e = c.error("analyze", json!({"paths": [allowed.join("none.csv")]}));
    assert!(e.contains("none.csv") && !e.contains("outside"), "{e}");
    let e = c.error("analyze", json!({"paths": ["/nonexistent/none.csv"]}));
    assert!(e.contains("outside the directories"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_broken_capture_is_a_tool_error_with_its_file_and_line() {
    let mut c = Client::initialize(&["--allow", "fixtures"]);
    let broken = "fixtures/invalid/fio-truncated-mid-document.json";
    let e = c.error("analyze", json!({"paths": [broken], "vm": "Standard_DS13_v2"}));
    // The command line's message, with the resolved path.
    assert!(e.starts_with(&format!("{}:75:22: the JSON stops before its end", abs(broken))), "{e}");
    // Every unreadable input is named, not just the first.
    let e = c.error(
        "analyze",
        json!({"paths": [broken, "fixtures/invalid/empty.csv"], "vm": "Standard_DS13_v2"}),
    );
    assert_eq!(e.lines().count(), 2, "{e}");
    assert!(e.lines().nth(1).unwrap().ends_with("empty.csv: the file is empty"), "{e}");
    // Arguments outside the input schema: tool errors the model reads.
    let e = c.error("analyze", json!({"path": [broken]}));
    assert!(e.contains("unknown field `path`"), "{e}");
    let e = c.error("analyze", json!({"paths": []}));
    assert!(e.contains("at least one"), "{e}");
    // An unknown tool is a protocol error.
    let answer = c.request("tools/call", json!({"name": "format_disk", "arguments": {}}));
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    // And the server still answers.
    let (result, is_error) = c.call(
        "analyze",
        json!({"paths": [format!("{SCENARIO}/capture.csv")], "topology": [format!("{SCENARIO}/topology.toml")]}),
    );
    assert!(!is_error, "{result}");
    assert_eq!(result["structuredContent"]["findings"][0]["rule"], "vm-cached-throughput-cap");
}

#[test]
fn compare_recommend_explain_rule_and_catalog_vm() {
    let mut c = Client::initialize(&["--allow", "fixtures"]);
    let before = (format!("{SCENARIO}/capture.csv"), format!("{SCENARIO}/topology.toml"));
    let after_dir = "fixtures/compare/ds13v2-cache-off-temp-moved/after";
    let after = (format!("{after_dir}/capture.csv"), format!("{after_dir}/topology.toml"));
    let (result, is_error) = c.call(
        "compare",
        json!({"before": [before.0], "after": [after.0], "topology": [before.1],
               "after_topology": [after.1]}),
    );
    assert!(!is_error, "{result}");
    let comparison = &result["structuredContent"];
    assert_valid("compare", comparison);
    let cli = cli_json(&[
        "compare",
        &abs(&before.0),
        "--topology",
        &abs(&before.1),
        "--with",
        &abs(&after.0),
        "--with-topology",
        &abs(&after.1),
        "--format",
        "json",
    ]);
    assert_eq!(comparison, &cli);
    assert!(text(&result).contains(cli["verdict"]["sentence"].as_str().unwrap()));

    let (result, is_error) =
        c.call("recommend", json!({"paths": [before.0], "topology": [before.1]}));
    assert!(!is_error, "{result}");
    assert_valid("recommend", &result["structuredContent"]);
    let cli = cli_json(&[
        "recommend",
        &abs(&before.0),
        "--topology",
        &abs(&before.1),
        "--format",
        "json",
    ]);
    assert_eq!(result["structuredContent"], cli);
    let e = c.error("recommend", json!({"paths": [before.0], "percentile": 0}));
    assert!(e.contains("a percentile is a number above 0"), "{e}");

    let (result, is_error) = c.call("explain_rule", json!({"id": "vm-cached-throughput-cap"}));
    assert!(!is_error, "{result}");
    assert_valid("rule", &result["structuredContent"]);
    let cli = cli_json(&["rules", "explain", "vm-cached-throughput-cap", "--json"]);
    assert_eq!(result["structuredContent"], cli);
    assert_eq!(text(&result), cli["explain"].as_str().unwrap());
    let e = c.error("explain_rule", json!({"id": "vm-cached-throughput-capp"}));
    assert!(e.contains("vm-cached-throughput-cap"), "did you mean: {e}");

    let (result, is_error) = c.call("catalog_vm", json!({"size": "ds13_v2"}));
    assert!(!is_error, "{result}");
    assert_valid("catalog-vm", &result["structuredContent"]);
    assert_eq!(result["structuredContent"], cli_json(&["catalog", "vm", "ds13_v2", "--json"]));
    let e = c.error("catalog_vm", json!({"size": "Standard_DS13_v9"}));
    assert!(e.contains("Standard_DS13_v9"), "{e}");
}

#[test]
fn one_calls_inputs_are_held_to_the_size_limit() {
    let mut c = Client::initialize(&["--allow", "fixtures", "--max-input", "1000"]);
    let e = c.error("analyze", json!({"paths": [format!("{SCENARIO}/capture.csv")]}));
    assert!(e.contains("more than the 1000 bytes") && e.contains("--max-input"), "{e}");
    // Small inputs still go through.
    let e = c.error("analyze", json!({"paths": ["fixtures/invalid/empty.csv"]}));
    assert!(e.ends_with("the file is empty"), "{e}");
}

#[test]
fn a_bad_option_stops_the_server_before_it_reads_a_message() {
    let out = Command::new(env!("CARGO_BIN_EXE_advisor"))
        .args(["mcp", "--allow", "no-such-directory"])
        .current_dir(root())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--allow no-such-directory"), "{err}");
    let out = Command::new(env!("CARGO_BIN_EXE_advisor"))
        .args(["mcp", "--set", "vm-cached-throughput-cap.nope=1"])
        .current_dir(root())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
}
