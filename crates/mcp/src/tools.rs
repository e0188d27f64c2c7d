//! The tools: their arguments (whose JSON Schema is each tool's input schema), their
//! output schemas (`advisor schema NAME`), and the work each call does.

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;

use advisor_engine::recommend::{PriceList, RecommendOptions};
use advisor_engine::{
    CompareSide, Input, Request, RuleDocument, Session, TopologySources, VmDocument,
};
use advisor_report::Format;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    InitializeResult, JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities,
    Tool, ToolAnnotations,
};
use rmcp::service::{MaybeSendFuture, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::{Inner, Server};

/// `analyze`: as `advisor analyze PATHS... [--topology F]... [--vm SIZE] [--set ...]`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct AnalyzeArgs {
    /// Capture files ({formats}; the format is read from the content) or collector bundles
    /// (a folder, a .tar.gz or a .zip), analysed together into one report. Paths are absolute or relative to the
    /// server's working directory, and must be inside a directory the server allows.
    #[schemars(length(min = 1))]
    paths: Vec<String>,
    /// The VM's topology: the topology file (TOML or JSON), or the VM's own documents
    /// (IMDS JSON, az vm show, az disk list, lsblk -J, ls -lR /dev/disk/azure, Get-Disk
    /// JSON), detected by content and merged. Without it (and without `vm`), the rules
    /// that need the VM's limits are listed as not evaluated, with what they need.
    #[serde(default)]
    topology: Vec<String>,
    /// The VM size, e.g. `Standard_DS13_v2`: alone, a topology with unknown disks; with
    /// `topology`, it replaces the size the documents give.
    #[serde(default)]
    vm: Option<String>,
    /// Rule parameters for this call, each `RULE-ID.PARAM=VALUE`, e.g.
    /// `vm-cached-throughput-cap.cap_ratio=90%` (see `explain_rule` for a rule's
    /// parameters).
    #[serde(default)]
    set: Vec<String>,
}

/// `compare`: as `advisor compare BEFORE... --with AFTER... [--topology F] [--vm SIZE]
/// [--with-topology F] [--with-vm SIZE] [--label L]... [--set ...]`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct CompareArgs {
    /// The captures (or bundles) before the change, as `analyze` takes `paths`.
    #[schemars(length(min = 1))]
    before: Vec<String>,
    /// The captures after the change.
    #[schemars(length(min = 1))]
    after: Vec<String>,
    /// The before side's topology documents; also the after side's unless
    /// `after_topology` or `after_vm` is given.
    #[serde(default)]
    topology: Vec<String>,
    /// The before side's VM size; also the after side's unless `after_topology` or
    /// `after_vm` is given.
    #[serde(default)]
    vm: Option<String>,
    /// The after side's own topology documents (a resized VM, a disk moved or re-cached).
    #[serde(default)]
    after_topology: Vec<String>,
    /// The after side's own VM size (with the shared `topology`'s disks when no
    /// `after_topology` is given).
    #[serde(default)]
    after_vm: Option<String>,
    /// A label per input, in order (the before inputs, then the after ones), for the
    /// benchmark table; inputs without one are labelled by their file name.
    #[serde(default)]
    labels: Vec<String>,
    /// Rule parameters for this call, each `RULE-ID.PARAM=VALUE`.
    #[serde(default)]
    set: Vec<String>,
}

/// `recommend`: as `advisor recommend PATHS... [--topology F]... [--vm SIZE] ...`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RecommendArgs {
    /// Capture files or collector bundles, as `analyze` takes `paths`.
    #[schemars(length(min = 1))]
    paths: Vec<String>,
    /// The VM's topology documents, as `analyze` takes them.
    #[serde(default)]
    topology: Vec<String>,
    /// The VM size today (replaces the topology's).
    #[serde(default)]
    vm: Option<String>,
    /// The percentile of the samples (or per-interval peaks) taken as demand, above 0 and
    /// at most 100. Default 95.
    #[serde(default)]
    percentile: Option<f64>,
    /// The factor demand is multiplied by before it is compared with caps, 1 to 10.
    /// Default 1.2.
    #[serde(default)]
    headroom: Option<f64>,
    /// Seconds: with samples finer than this, each interval's peak is one value of the
    /// percentile (60 for per-minute peaks of a 1 s capture).
    #[serde(default)]
    interval: Option<f64>,
    /// VM series to consider after the current one (`Edsv5`, `Ev5`, ...).
    #[serde(default)]
    family: Vec<String>,
    /// Accept sizes with fewer vCPUs or less memory than today's.
    #[serde(default)]
    any_size: bool,
    /// Prices: a file of the Azure Retail Prices API's JSON (pages concatenated), for the
    /// monthly cost of today's and the proposed configuration.
    #[serde(default)]
    prices: Option<String>,
    /// The region (armRegionName) to price in, when the prices file has several.
    #[serde(default)]
    region: Option<String>,
}

/// `explain_rule`: as `advisor rules explain ID --json`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ExplainRuleArgs {
    /// The rule id, as findings name it (`rule`), e.g. `vm-cached-throughput-cap`.
    id: String,
}

/// `catalog_vm`: as `advisor catalog vm SIZE --json`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct CatalogVmArgs {
    /// A VM size, case-insensitive, `Standard_` optional: `Standard_DS13_v2`, `ds13_v2`.
    size: String,
}

/// The tools in the order `tools/list` gives them: name, title, description, the input
/// schema's type, the name of the output's schema (`advisor schema NAME`).
struct Spec {
    name: &'static str,
    title: &'static str,
    description: &'static str,
    input: fn() -> Value,
    output: &'static str,
}

fn input_schema<T: JsonSchema>() -> Value {
    let mut schema = serde_json::to_value(schemars::schema_for!(T)).unwrap_or_default();
    if let Some(obj) = schema.as_object_mut() {
        // The Rust type's name means nothing to a client.
        obj.remove("title");
    }
    // The formats are named from the reader registry.
    advisor_engine::fill_formats_in(&mut schema);
    schema
}

const SPECS: &[Spec] = &[
    Spec {
        name: "analyze",
        title: "Analyze storage captures",
        description: "Why an Azure VM's storage is slow: reads the captures ({formats}) and \
            collector bundles, ties them to the VM's topology and Azure's published limits, and judges them with advisor's \
            ruleset. Answers the JSON report (verdict, findings with evidence, fix and episodes, \
            causes and effects, rules not evaluated and why, statistics per target) as \
            structured content, and the Markdown report as text.",
        input: input_schema::<AnalyzeArgs>,
        output: "report",
    },
    Spec {
        name: "compare",
        title: "Compare runs before and after a change",
        description: "Two runs side by side (before and after a resize, a cache change, a \
            disk moved): per target and budget, findings resolved and new, and a verdict \
            saying whether the change helped and by how much. Answers the comparison \
            (advisor.compare/v1) as structured content and in Markdown as text.",
        input: input_schema::<CompareArgs>,
        output: "compare",
    },
    Spec {
        name: "recommend",
        title: "Recommend a VM size and disks",
        description: "The VM size and disk SKUs that carry the demand the captures show, each \
            with the figure that decides it, and the confidence. Answers the recommendation \
            (advisor.recommend/v1) as structured content and in Markdown as text.",
        input: input_schema::<RecommendArgs>,
        output: "recommend",
    },
    Spec {
        name: "explain_rule",
        title: "Explain a rule",
        description: "A rule of the ruleset in force (a finding's `rule`): what it checks, why \
            it matters, the fix, when it fires, its parameters and references.",
        input: input_schema::<ExplainRuleArgs>,
        output: "rule",
    },
    Spec {
        name: "catalog_vm",
        title: "An Azure VM size's storage limits",
        description: "A VM size's storage limits from advisor's catalog of Azure's published \
            figures: cached and temp, uncached (and burst), per controller, temp and local \
            NVMe disks, with the source of each row.",
        input: input_schema::<CatalogVmArgs>,
        output: "catalog-vm",
    },
];

fn object(v: Value) -> JsonObject {
    match v {
        Value::Object(m) => m,
        _ => JsonObject::new(),
    }
}

fn tool(spec: &Spec) -> Tool {
    let output = advisor_engine::schema(spec.output).map(object).unwrap_or_default();
    Tool::new(
        spec.name,
        advisor_engine::fill_formats(spec.description),
        Arc::new(object((spec.input)())),
    )
    .with_title(spec.title)
    .with_raw_output_schema(Arc::new(output))
    .with_annotations(
        ToolAnnotations::new()
            .read_only(true)
            .destructive(false)
            .idempotent(true)
            .open_world(false),
    )
}

/// A call's answer: the document, and the text for the model.
struct Done {
    structured: Value,
    text: String,
}

impl Done {
    fn of<T: serde::Serialize>(doc: &T, text: String) -> Result<Self, String> {
        let structured =
            serde_json::to_value(doc).map_err(|e| format!("writing the answer as JSON: {e}"))?;
        Ok(Done { structured, text })
    }
}

fn parse<T: DeserializeOwned>(tool: &str, args: Option<JsonObject>) -> Result<T, String> {
    serde_json::from_value(Value::Object(args.unwrap_or_default()))
        .map_err(|e| format!("{tool}: the arguments do not fit the tool's input schema: {e}"))
}

/// Paths a call names, each checked against the allowed directories, with their size.
struct Checked {
    paths: Vec<PathBuf>,
    bytes: u64,
}

impl Inner {
    fn check(&self, what: &str, given: &[String]) -> Result<Checked, String> {
        let mut out = Checked { paths: Vec::with_capacity(given.len()), bytes: 0 };
        for g in given {
            let p = self.allowed.check(g).map_err(|e| format!("{what}: {e}"))?;
            // A folder (a bundle) is bounded by the bundle limits as it is read.
            out.bytes += std::fs::metadata(&p).ok().filter(|m| m.is_file()).map_or(0, |m| m.len());
            out.paths.push(p);
        }
        Ok(out)
    }

    /// The checked paths of a call, within [`crate::Limits::max_input`] together.
    fn within_limit(&self, sets: &[&Checked]) -> Result<(), String> {
        let total: u64 = sets.iter().map(|c| c.bytes).sum();
        let max = self.limits.max_input;
        if total > max {
            return Err(format!(
                "the files of this call hold {total} bytes, more than the {max} bytes the server \
                 takes in one call (the operator sets it with --max-input)"
            ));
        }
        Ok(())
    }

    /// The session a call uses: the server's, or one with the call's `set` values added.
    fn session_for(&self, sets: &[String]) -> Result<Option<Session>, String> {
        if sets.is_empty() {
            return Ok(None);
        }
        self.options.build(sets).map(Some).map_err(|e| e.to_string())
    }
}

fn analyze(inner: &Inner, args: AnalyzeArgs) -> Result<Done, String> {
    if args.paths.is_empty() {
        return Err("paths: give at least one capture or bundle".into());
    }
    let paths = inner.check("paths", &args.paths)?;
    let topology = inner.check("topology", &args.topology)?;
    inner.within_limit(&[&paths, &topology])?;
    let own = inner.session_for(&args.set)?;
    let session = own.as_ref().unwrap_or(&inner.session);
    let sources =
        TopologySources { files: topology.paths, vm: args.vm, ..TopologySources::default() };
    let inputs = paths.paths.into_iter().map(Input::Path).collect();
    let analysis = session
        .analyze(Request { inputs, topology: sources }, &mut ())
        .map_err(|e| e.to_string())?;
    let text = session
        .render(&analysis, Format::Markdown)
        .map_err(|e| format!("rendering the report: {e}"))?;
    Done::of(&analysis, text)
}

fn compare(inner: &Inner, args: CompareArgs) -> Result<Done, String> {
    if args.before.is_empty() || args.after.is_empty() {
        return Err("before, after: give at least one capture on each side".into());
    }
    let n = args.before.len() + args.after.len();
    if args.labels.len() > n {
        return Err(format!(
            "labels: {} labels for {n} inputs: give at most one label per input",
            args.labels.len()
        ));
    }
    let before = inner.check("before", &args.before)?;
    let after = inner.check("after", &args.after)?;
    let topology = inner.check("topology", &args.topology)?;
    let after_topology = inner.check("after_topology", &args.after_topology)?;
    inner.within_limit(&[&before, &after, &topology, &after_topology])?;
    let own = inner.session_for(&args.set)?;
    let session = own.as_ref().unwrap_or(&inner.session);
    // As the command line: the after side has the shared topology unless it has its own.
    let shared = args.after_topology.is_empty() && args.after_vm.is_none();
    let tb = TopologySources {
        files: topology.paths.clone(),
        vm: args.vm.clone(),
        ..TopologySources::default()
    };
    let ta = TopologySources {
        files: if args.after_topology.is_empty() { topology.paths } else { after_topology.paths },
        vm: if shared { args.vm } else { args.after_vm },
        ..TopologySources::default()
    };
    let split = args.before.len().min(args.labels.len());
    let side = |paths: Vec<PathBuf>, topology, labels: &[String]| CompareSide {
        inputs: paths.into_iter().map(Input::Path).collect(),
        topology,
        labels: labels.to_vec(),
    };
    let comparison = session
        .compare(
            side(before.paths, tb, &args.labels[..split]),
            side(after.paths, ta, &args.labels[split..]),
            &mut (),
        )
        .map_err(|e| e.to_string())?;
    let text = session
        .render_comparison(&comparison, Format::Markdown)
        .map_err(|e| format!("rendering the comparison: {e}"))?;
    Done::of(&comparison, text)
}

fn recommend(inner: &Inner, args: RecommendArgs) -> Result<Done, String> {
    if args.paths.is_empty() {
        return Err("paths: give at least one capture or bundle".into());
    }
    let paths = inner.check("paths", &args.paths)?;
    let topology = inner.check("topology", &args.topology)?;
    let prices_file = inner.check("prices", args.prices.as_slice())?;
    inner.within_limit(&[&paths, &topology, &prices_file])?;
    let session = &inner.session;
    let prices = match prices_file.paths.first() {
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
            let name = p.display().to_string();
            Some(
                PriceList::parse(&name, &text, args.region.as_deref())
                    .map_err(|e| e.to_string())?,
            )
        }
        None => None,
    };
    let defaults = RecommendOptions::default();
    let options = RecommendOptions {
        percentile: args.percentile.unwrap_or(defaults.percentile),
        headroom: args.headroom.unwrap_or(defaults.headroom),
        interval_s: args.interval,
        families: args.family,
        any_vcpu_memory: args.any_size,
        prices,
    };
    options.check(session.catalog())?;
    let sources =
        TopologySources { files: topology.paths, vm: args.vm, ..TopologySources::default() };
    let inputs = paths.paths.into_iter().map(Input::Path).collect();
    let rec = session
        .recommend(Request { inputs, topology: sources }, &options, &mut ())
        .map_err(|e| e.to_string())?;
    let text = session
        .render_recommendation(&rec, Format::Markdown)
        .map_err(|e| format!("rendering the recommendation: {e}"))?;
    Done::of(&rec, text)
}

fn explain_rule(inner: &Inner, args: ExplainRuleArgs) -> Result<Done, String> {
    let registry = inner.session.rules();
    let rule = registry.get(&args.id).ok_or_else(|| registry.unknown_rule(&args.id).to_string())?;
    let doc = RuleDocument::of(rule, registry);
    let text = doc.explain.clone();
    Done::of(&doc, text)
}

fn catalog_vm(inner: &Inner, args: CatalogVmArgs) -> Result<Done, String> {
    let vm = inner.session.catalog().vm(&args.size).map_err(|u| format!("{u}; {}", u.help()))?;
    let doc = VmDocument::of(vm);
    let text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?;
    Done::of(&doc, text)
}

impl Server {
    /// Runs `work` on the blocking pool inside an analysis slot, within the call's time.
    async fn heavy<A: Send + 'static>(
        &self,
        args: A,
        work: fn(&Inner, A) -> Result<Done, String>,
    ) -> Result<Done, String> {
        let inner = self.inner.clone();
        let limits = inner.limits.clone();
        let deadline = tokio::time::Instant::now() + limits.timeout;
        let wait = limits.queue_wait.min(limits.timeout);
        let slot = match tokio::time::timeout(wait, inner.slots.clone().acquire_owned()).await {
            Ok(Ok(slot)) => slot,
            Ok(Err(_)) => return Err("the server is stopping".into()),
            Err(_) => {
                return Err(format!(
                    "busy: {} analyses are running, the most the server runs at once \
                     (--workers); try again in a few seconds",
                    limits.workers
                ));
            }
        };
        let task = tokio::task::spawn_blocking(move || {
            // Held until the work ends, also when the call has given up waiting for it.
            let _slot = slot;
            work(&inner, args)
        });
        match tokio::time::timeout_at(deadline, task).await {
            Ok(Ok(done)) => done,
            Ok(Err(_)) => {
                tracing::error!("an analysis panicked");
                Err("internal error: the analysis stopped on a bug in advisor (the server goes \
                     on; please report the inputs that caused it)"
                    .into())
            }
            Err(_) => Err(format!(
                "the call took longer than the {} s the server gives one (--timeout)",
                limits.timeout.as_secs_f64()
            )),
        }
    }

    async fn call(&self, name: &str, args: Option<JsonObject>) -> Option<Result<Done, String>> {
        let inner = &self.inner;
        Some(match name {
            "analyze" => match parse::<AnalyzeArgs>(name, args) {
                Ok(a) => self.heavy(a, analyze).await,
                Err(e) => Err(e),
            },
            "compare" => match parse::<CompareArgs>(name, args) {
                Ok(a) => self.heavy(a, compare).await,
                Err(e) => Err(e),
            },
            "recommend" => match parse::<RecommendArgs>(name, args) {
                Ok(a) => self.heavy(a, recommend).await,
                Err(e) => Err(e),
            },
            "explain_rule" => parse(name, args).and_then(|a| explain_rule(inner, a)),
            "catalog_vm" => parse(name, args).and_then(|a| catalog_vm(inner, a)),
            _ => return None,
        })
    }

    fn instructions(&self) -> String {
        let roots: Vec<String> =
            self.inner.allowed.roots().iter().map(|r| r.display().to_string()).collect();
        format!(
            "advisor tells why an Azure VM's storage is slow, from the captures attached to a \
             ticket ({}) and {}. Call analyze with the capture paths and the VM's topology (a topology \
             file or the VM's own documents, or just vm: its size); each finding names its \
             rule, which explain_rule explains, and catalog_vm gives a size's limits. Files \
             are read only under: {}.",
            advisor_engine::capture_formats_sentence(),
            advisor_engine::BUNDLES,
            roots.join(", ")
        )
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> InitializeResult {
        let mut server = Implementation::new("advisor", env!("CARGO_PKG_VERSION"));
        server.title = Some("advisor: Azure VM storage triage".into());
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(server)
            .with_instructions(self.instructions())
    }

    fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListToolsResult, ErrorData>> + MaybeSendFuture + '_ {
        std::future::ready(Ok(ListToolsResult::with_all_items(SPECS.iter().map(tool).collect())))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        SPECS.iter().find(|s| s.name == name).map(tool)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        let Some(answer) = self.call(&name, request.arguments).await else {
            return Err(ErrorData::invalid_params(format!("unknown tool: {name}"), None));
        };
        let result = match answer {
            Ok(done) => {
                let mut r = CallToolResult::structured(done.structured);
                r.content = vec![ContentBlock::text(done.text)];
                r
            }
            Err(message) => CallToolResult::error(vec![ContentBlock::text(message)]),
        };
        Ok(result.into())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]

    use super::*;

    #[test]
    fn every_tool_has_an_object_input_schema_and_its_document_as_output_schema() {
        for spec in SPECS {
            let t = tool(spec);
            assert_eq!(t.input_schema.get("type"), Some(&Value::from("object")), "{}", spec.name);
            assert_eq!(
                t.input_schema.get("additionalProperties"),
                Some(&Value::Bool(false)),
                "{}",
                spec.name
            );
            let out = t.output_schema.unwrap_or_else(|| panic!("{}", spec.name));
            assert_eq!(
                Value::Object((*out).clone()),
                advisor_engine::schema(spec.output).unwrap(),
                "{}",
                spec.name
            );
        }
        let names: Vec<&str> = SPECS.iter().map(|s| s.name).collect();
        assert_eq!(names, ["analyze", "compare", "recommend", "explain_rule", "catalog_vm"]);
    }

    /// The analyze tool's description, its `paths` and the server's instructions name every
    /// capture format of the reader registry (rendered from it).
    #[test]
    fn the_tools_name_every_registered_format() {
        let analyze = tool(&SPECS[0]);
        let paths = analyze.input_schema["properties"]["paths"]["description"].as_str().unwrap();
        let instructions = server(1, 10, 1000).instructions();
        for text in [analyze.description.as_deref().unwrap(), paths, &instructions] {
            let missing: Vec<&str> = advisor_engine::missing_formats(text)
                .into_iter()
                .filter(|p| *p != advisor_engine::BUNDLES)
                .collect();
            assert_eq!(missing, Vec::<&str>::new(), "{text}");
            assert!(!text.contains(advisor_engine::FORMATS_MARKER), "{text}");
        }
        assert!(advisor_engine::missing_formats(&instructions).is_empty(), "{instructions}");
    }

    fn server(workers: usize, queue_wait_ms: u64, timeout_ms: u64) -> Server {
        let here = std::env::temp_dir();
        let allowed = crate::Allowed::new(std::slice::from_ref(&here), &here).unwrap();
        let limits = crate::Limits {
            max_input: 1 << 20,
            workers,
            queue_wait: std::time::Duration::from_millis(queue_wait_ms),
            timeout: std::time::Duration::from_millis(timeout_ms),
        };
        Server::new(crate::SessionOptions::default(), allowed, limits).unwrap()
    }

    /// Work that takes `ms` milliseconds.
    fn sleeps(_: &Inner, ms: u64) -> Result<Done, String> {
        std::thread::sleep(std::time::Duration::from_millis(ms));
        Ok(Done { structured: Value::Null, text: format!("slept {ms} ms") })
    }

    #[allow(clippy::unnecessary_wraps)]
    fn panics(_: &Inner, (): ()) -> Result<Done, String> {
        panic!("on purpose")
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_call_that_finds_every_slot_busy_is_told_so() {
        let s = server(1, 0, 60_000);
        let first = tokio::spawn({
            let s = s.clone();
            async move { s.heavy(1500, sleeps).await }
        });
        while s.inner.slots.available_permits() > 0 {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        let e = s.heavy(0, sleeps).await.err().unwrap();
        assert!(e.starts_with("busy: 1 analyses are running") && e.contains("--workers"), "{e}");
        assert_eq!(first.await.unwrap().ok().unwrap().text, "slept 1500 ms");
        // The slot is free again.
        assert_eq!(s.heavy(0, sleeps).await.ok().unwrap().text, "slept 0 ms");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_call_past_its_time_is_told_so_and_a_panic_is_an_error() {
        let s = server(1, 1000, 200);
        let e = s.heavy(3000, sleeps).await.err().unwrap();
        assert!(e.contains("longer than the 0.2 s") && e.contains("--timeout"), "{e}");
        // The work still holds its slot until it ends.
        assert_eq!(s.inner.slots.available_permits(), 0);
        let s = server(1, 1000, 60_000);
        let e = s.heavy((), panics).await.err().unwrap();
        assert!(e.starts_with("internal error"), "{e}");
        assert_eq!(s.heavy(0, sleeps).await.ok().unwrap().text, "slept 0 ms");
    }

    #[test]
    fn arguments_outside_the_schema_are_refused_with_the_reason() {
        let args = |v: Value| Some(object(v));
        let e =
            parse::<AnalyzeArgs>("analyze", args(serde_json::json!({"path": ["a"]}))).unwrap_err();
        assert!(e.contains("unknown field `path`"), "{e}");
        let e = parse::<AnalyzeArgs>("analyze", args(serde_json::json!({"paths": "a.csv"})))
            .unwrap_err();
        assert!(e.starts_with("analyze: the arguments do not fit"), "{e}");
        let a =
            parse::<AnalyzeArgs>("analyze", args(serde_json::json!({"paths": ["a.csv"]}))).unwrap();
        assert_eq!(a.paths, ["a.csv"]);
        assert!(a.topology.is_empty() && a.vm.is_none() && a.set.is_empty());
    }
}
