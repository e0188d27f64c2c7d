//! `advisor._native`: the engine for Python, under the package `advisor` (python/advisor),
//! which checks the arguments, turns the documents into dicts and defines the exceptions.
//!
//! Every call goes through one [`advisor_engine::Session`], as the command line's does, and
//! runs with the GIL released, so Python threads analyse at once. Nothing crosses the
//! boundary as a panic: errors become `advisor.CaptureError` (an input that cannot be
//! used, with its file, line, column or JSON path), `advisor.UsageError` (an argument the
//! command line would refuse) and `advisor.InternalError` (a bug, a panic caught).

use std::any::Any;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use advisor_engine::catalog::TopologyError;
use advisor_engine::recommend::{PriceError, PriceList, RecommendOptions};
use advisor_engine::{CompareSide, EngineError, IngestError, Input, Request, TopologySources};
use advisor_model::{Analysis, Comparison, Location, Recommendation};
use advisor_report::Format;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::{PyDict, PyList};

/// Why a call failed, before it becomes a Python exception (with the GIL held again).
enum Failure {
    /// Inputs that could not be read, every one of them.
    Capture(Vec<IngestError>),
    /// A topology document that cannot be used.
    Topology(TopologyError),
    /// A prices file that cannot be used.
    Prices(PriceError),
    /// A document in memory that is not text (a topology document must be UTF-8).
    NotText { file: String },
    /// An argument the command line would refuse.
    Usage(String),
    /// A panic caught, or an answer that could not be written.
    Internal(String),
}

impl From<EngineError> for Failure {
    fn from(e: EngineError) -> Self {
        match e {
            EngineError::Unreadable(errors) => Failure::Capture(errors),
            // `--vm` (`vm=` here) names a size the catalog does not know: an argument.
            EngineError::Topology(t) if t.file == "--vm" => Failure::Usage(t.to_string()),
            EngineError::Topology(t) => Failure::Topology(t),
            other => Failure::Usage(other.to_string()),
        }
    }
}

/// The exception class `name` of `advisor._errors`.
fn class<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("advisor._errors")?.getattr(name)
}

/// Where in an input a `CaptureError` points, as its keyword arguments.
fn place<'py>(
    py: Python<'py>,
    file: &str,
    location: Option<&Location>,
) -> PyResult<Bound<'py, PyDict>> {
    let kwargs = PyDict::new(py);
    kwargs.set_item("file", file)?;
    match location {
        Some(Location::Line { line, column }) => {
            kwargs.set_item("line", line)?;
            kwargs.set_item("column", column)?;
        }
        Some(Location::JsonPath { path }) => kwargs.set_item("json_path", path)?,
        Some(Location::XmlPath { path }) => kwargs.set_item("xml_path", path)?,
        Some(Location::Column { name }) => kwargs.set_item("csv_column", name)?,
        None => {}
    }
    Ok(kwargs)
}

fn to_exception(py: Python<'_>, failure: Failure) -> PyErr {
    let made = (|| match failure {
        Failure::Capture(errors) => {
            let cls = class(py, "CaptureError")?;
            let each: Vec<Bound<'_, PyAny>> = errors
                .iter()
                .map(|e| {
                    cls.call((e.to_string(),), Some(&place(py, &e.file, e.location.as_ref())?))
                })
                .collect::<PyResult<_>>()?;
            // The first input's place, the message of them all (as the command line
            // prints them, one a line), and each on its own in `errors`.
            let kwargs = match errors.first() {
                Some(e) => place(py, &e.file, e.location.as_ref())?,
                None => PyDict::new(py),
            };
            kwargs.set_item("errors", PyList::new(py, &each)?)?;
            cls.call((EngineError::Unreadable(errors).to_string(),), Some(&kwargs))
        }
        Failure::Topology(t) => {
            let kwargs = place(py, &t.file, None)?;
            if let Some(s) = &t.snippet {
                kwargs.set_item("line", s.line)?;
                kwargs.set_item("column", s.column)?;
            }
            class(py, "CaptureError")?.call((t.to_string(),), Some(&kwargs))
        }
        Failure::Prices(e) => {
            let at = (!e.path.is_empty()).then(|| Location::json(e.path.clone()));
            let kwargs = place(py, &e.file, at.as_ref())?;
            class(py, "CaptureError")?.call((e.to_string(),), Some(&kwargs))
        }
        Failure::NotText { file } => {
            let message = format!("{file}: a topology document is text (UTF-8): this is not");
            class(py, "CaptureError")?.call((message,), Some(&place(py, &file, None)?))
        }
        Failure::Usage(message) => class(py, "UsageError")?.call1((message,)),
        Failure::Internal(message) => class(py, "InternalError")?.call1((message,)),
    })();
    match made {
        Ok(exception) => PyErr::from_value(exception),
        Err(e) => e,
    }
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_owned());
    format!("advisor stopped on a bug ({what}); please report it with the inputs that caused it")
}

/// Runs `work` with the GIL released; a panic in it becomes an `InternalError`.
fn guarded<T: Send>(
    py: Python<'_>,
    work: impl FnOnce() -> Result<T, Failure> + Send,
) -> PyResult<T> {
    let outcome = py.detach(move || {
        std::panic::catch_unwind(AssertUnwindSafe(work))
            .unwrap_or_else(|payload| Err(Failure::Internal(panic_message(payload.as_ref()))))
    });
    outcome.map_err(|f| to_exception(py, f))
}

/// Topology documents held in memory, as text: a document that is not UTF-8 is refused
/// naming it (as a file that is not is).
fn texts(docs: Vec<(String, PyBackedBytes)>) -> Result<Vec<(String, String)>, Failure> {
    docs.into_iter()
        .map(|(name, bytes)| match std::str::from_utf8(&bytes) {
            Ok(t) => Ok((name, t.to_owned())),
            Err(_) => Err(Failure::NotText { file: name }),
        })
        .collect()
}

fn sources(
    files: Vec<PathBuf>,
    docs: Vec<(String, PyBackedBytes)>,
    vm: Option<String>,
) -> Result<TopologySources, Failure> {
    Ok(TopologySources { files, texts: texts(docs)?, vm, ..TopologySources::default() })
}

fn format_of(format: &str) -> Result<Format, Failure> {
    match format.to_ascii_lowercase().as_str() {
        "md" | "markdown" => Ok(Format::Markdown),
        "html" | "htm" => Ok(Format::Html),
        "json" => Ok(Format::Json),
        _ => Err(Failure::Usage(format!("format: `{format}` is not md, html or json"))),
    }
}

/// One of advisor's documents, as the engine made it (with what only the pages show: the
/// charts' series), and the session that made it (its templates and rules).
enum Doc {
    Report(Box<Analysis>),
    Comparison(Box<Comparison>),
    Recommendation(Box<Recommendation>),
}

impl Doc {
    fn json(&self) -> Result<String, Failure> {
        match self {
            Doc::Report(a) => serde_json::to_string(a),
            Doc::Comparison(c) => serde_json::to_string(c),
            Doc::Recommendation(r) => serde_json::to_string(r),
        }
        .map_err(|e| Failure::Internal(format!("writing the document as JSON: {e}")))
    }

    fn render(&self, session: &advisor_engine::Session, format: Format) -> Result<String, Failure> {
        match self {
            Doc::Report(a) => session.render(a, format),
            Doc::Comparison(c) => session.render_comparison(c, format),
            Doc::Recommendation(r) => session.render_recommendation(r, format),
        }
        .map_err(|e| Failure::Internal(format!("rendering: {e}")))
    }

    /// A document from its JSON (a dict a caller holds), by its `schema`.
    fn from_json(text: &str) -> Result<Doc, Failure> {
        let value: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| Failure::Usage(format!("report: not JSON: {e}")))?;
        let schema = value.get("schema").and_then(serde_json::Value::as_str).unwrap_or("");
        let bad = |e: serde_json::Error| {
            Failure::Usage(format!("report: not a valid {schema} document: {e}"))
        };
        Ok(match schema {
            advisor_model::REPORT_SCHEMA => {
                Doc::Report(Box::new(serde_json::from_str(text).map_err(bad)?))
            }
            advisor_model::COMPARE_SCHEMA => {
                Doc::Comparison(Box::new(serde_json::from_str(text).map_err(bad)?))
            }
            advisor_model::RECOMMEND_SCHEMA => {
                Doc::Recommendation(Box::new(serde_json::from_str(text).map_err(bad)?))
            }
            _ => {
                return Err(Failure::Usage(format!(
                    "report: a document of advisor's has `schema` {}, {} or {}; this one has {}",
                    advisor_model::REPORT_SCHEMA,
                    advisor_model::COMPARE_SCHEMA,
                    advisor_model::RECOMMEND_SCHEMA,
                    if schema.is_empty() { "none".to_owned() } else { format!("`{schema}`") }
                )));
            }
        })
    }
}

/// A document as analyze, compare or recommend returned it (the package wraps it in an
/// `advisor.Report`, a dict).
#[pyclass(frozen, module = "advisor._native")]
struct Document {
    doc: Doc,
    session: Arc<advisor_engine::Session>,
}

#[pymethods]
impl Document {
    /// The document as JSON text (compact).
    fn json(&self, py: Python<'_>) -> PyResult<String> {
        guarded(py, || self.doc.json())
    }

    /// The document rendered: `md`, `html` (with the charts) or `json` (as the command line
    /// writes it).
    fn render(&self, py: Python<'_>, format: &str) -> PyResult<String> {
        guarded(py, || self.doc.render(&self.session, format_of(format)?))
    }
}

/// A session: the rules in force, the catalog and the templates, loaded once.
#[pyclass(frozen, module = "advisor._native")]
struct Session {
    session: Arc<advisor_engine::Session>,
}

impl Session {
    fn document(&self, doc: Doc) -> Document {
        Document { doc, session: self.session.clone() }
    }
}

#[pymethods]
impl Session {
    #[new]
    fn new(
        py: Python<'_>,
        rules: Vec<PathBuf>,
        sets: Vec<String>,
        catalog: Vec<PathBuf>,
        counters: Vec<PathBuf>,
    ) -> PyResult<Self> {
        let session = guarded(py, || {
            advisor_engine::Session::builder()
                .catalog(&catalog)
                .rules(&rules)
                .set(&sets)
                .counters(&counters)
                .build()
                .map_err(Failure::from)
        })?;
        Ok(Session { session: Arc::new(session) })
    }

    /// `advisor analyze PATHS --topology ... --vm ... --format json`.
    fn analyze(
        &self,
        py: Python<'_>,
        paths: Vec<PathBuf>,
        topology: Vec<PathBuf>,
        topology_docs: Vec<(String, PyBackedBytes)>,
        vm: Option<String>,
    ) -> PyResult<Document> {
        let session = &self.session;
        let analysis = guarded(py, || {
            let sources = sources(topology, topology_docs, vm)?;
            let inputs = paths.into_iter().map(Input::Path).collect();
            session.analyze(Request { inputs, topology: sources }, &mut ()).map_err(Failure::from)
        })?;
        Ok(self.document(Doc::Report(Box::new(analysis))))
    }

    /// The same of files held in memory, each (name, bytes); bundles included.
    fn analyze_files(
        &self,
        py: Python<'_>,
        files: Vec<(String, PyBackedBytes)>,
        topology: Vec<PathBuf>,
        topology_docs: Vec<(String, PyBackedBytes)>,
        vm: Option<String>,
    ) -> PyResult<Document> {
        let session = &self.session;
        let analysis = guarded(py, || {
            let sources = sources(topology, topology_docs, vm)?;
            let inputs = files
                .into_iter()
                .map(|(name, bytes)| Input::Bytes { name, bytes: bytes.to_vec() })
                .collect();
            session.analyze(Request { inputs, topology: sources }, &mut ()).map_err(Failure::from)
        })?;
        Ok(self.document(Doc::Report(Box::new(analysis))))
    }

    /// `advisor compare BEFORE... --with AFTER... --format json`.
    #[allow(clippy::too_many_arguments)]
    fn compare(
        &self,
        py: Python<'_>,
        before: Vec<PathBuf>,
        after: Vec<PathBuf>,
        topology: Vec<PathBuf>,
        topology_docs: Vec<(String, PyBackedBytes)>,
        vm: Option<String>,
        after_topology: Vec<PathBuf>,
        after_topology_docs: Vec<(String, PyBackedBytes)>,
        after_vm: Option<String>,
        labels: Vec<String>,
    ) -> PyResult<Document> {
        let session = &self.session;
        let comparison = guarded(py, || {
            let n = before.len() + after.len();
            if labels.len() > n {
                return Err(Failure::Usage(format!(
                    "labels: {} labels for {n} inputs: give at most one label per input",
                    labels.len()
                )));
            }
            // As the command line: the after side has the before side's topology unless it
            // is given its own (documents or a size).
            let own = !after_topology.is_empty() || !after_topology_docs.is_empty();
            let shared = !own && after_vm.is_none();
            let tb = sources(topology, topology_docs, vm)?;
            let ta = if own {
                sources(after_topology, after_topology_docs, after_vm)?
            } else {
                TopologySources { vm: if shared { tb.vm.clone() } else { after_vm }, ..tb.clone() }
            };
            let split = before.len().min(labels.len());
            let side = |paths: Vec<PathBuf>, topology, labels: &[String]| CompareSide {
                inputs: paths.into_iter().map(Input::Path).collect(),
                topology,
                labels: labels.to_vec(),
            };
            session
                .compare(
                    side(before, tb, &labels[..split]),
                    side(after, ta, &labels[split..]),
                    &mut (),
                )
                .map_err(Failure::from)
        })?;
        Ok(self.document(Doc::Comparison(Box::new(comparison))))
    }

    /// `advisor recommend PATHS ... --format json`.
    #[allow(clippy::too_many_arguments)]
    fn recommend(
        &self,
        py: Python<'_>,
        paths: Vec<PathBuf>,
        topology: Vec<PathBuf>,
        topology_docs: Vec<(String, PyBackedBytes)>,
        vm: Option<String>,
        percentile: f64,
        headroom: f64,
        interval: Option<f64>,
        family: Vec<String>,
        any_size: bool,
        prices: Option<PathBuf>,
        region: Option<String>,
    ) -> PyResult<Document> {
        let session = &self.session;
        let rec = guarded(py, || {
            let prices = match prices {
                Some(p) => {
                    let name = p.display().to_string();
                    let text = std::fs::read_to_string(&p).map_err(|e| {
                        Failure::Capture(vec![IngestError::new(
                            &name,
                            None,
                            advisor_engine::ErrorKind::Io(e),
                        )])
                    })?;
                    let list = PriceList::parse(&name, &text, region.as_deref())
                        .map_err(Failure::Prices)?;
                    Some(list)
                }
                None => None,
            };
            let options = RecommendOptions {
                percentile,
                headroom,
                interval_s: interval,
                families: family,
                any_vcpu_memory: any_size,
                prices,
            };
            options.check(session.catalog()).map_err(Failure::Usage)?;
            let sources = sources(topology, topology_docs, vm)?;
            let inputs = paths.into_iter().map(Input::Path).collect();
            session
                .recommend(Request { inputs, topology: sources }, &options, &mut ())
                .map_err(Failure::from)
        })?;
        Ok(self.document(Doc::Recommendation(Box::new(rec))))
    }

    /// Renders a document given as JSON text (a dict, not the one analyze returned): its
    /// `schema` says which; the pages have no charts, whose series only the engine's own
    /// document holds.
    fn render_json(&self, py: Python<'_>, text: &str, format: &str) -> PyResult<String> {
        let session = &self.session;
        guarded(py, || {
            let format = format_of(format)?;
            Doc::from_json(text)?.render(session, format)
        })
    }
}

/// The JSON Schema (text) of the document called `name`.
#[pyfunction]
fn schema(name: &str) -> PyResult<String> {
    Python::attach(|py| match advisor_engine::schema(name) {
        Some(s) => Ok(s.to_string()),
        None => Err(to_exception(
            py,
            Failure::Usage(format!(
                "schema: `{name}` is none of advisor's documents ({})",
                advisor_engine::SCHEMA_NAMES.join(", ")
            )),
        )),
    })
}

/// Panics inside the same guard every call goes through, so that the test suite can see a
/// bug come out as `advisor.InternalError`, not a crash.
#[pyfunction]
#[allow(clippy::panic)]
fn _panic_for_tests(py: Python<'_>) -> PyResult<()> {
    guarded(py, || -> Result<(), Failure> {
        // This function exists to panic, so that the tests see the guard at work.
        panic!("raised on purpose by advisor._native._panic_for_tests") // allow-panic
    })
}

/// The session of calls that give no rules, settings, catalog or counter tables: the
/// shipped ones, loaded once per process (a session is never changed once built).
static DEFAULT: OnceLock<Arc<advisor_engine::Session>> = OnceLock::new();

/// The default session (the shipped rules, catalog and templates), shared by every call
/// that gives no options.
#[pyfunction]
fn default_session(py: Python<'_>) -> PyResult<Session> {
    if let Some(s) = DEFAULT.get() {
        return Ok(Session { session: s.clone() });
    }
    let made = Session::new(py, Vec::new(), Vec::new(), Vec::new(), Vec::new())?;
    // Two threads may each build one; the first stored is kept for every later call.
    Ok(Session { session: DEFAULT.get_or_init(|| made.session).clone() })
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("SCHEMA_NAMES", advisor_engine::SCHEMA_NAMES.to_vec())?;
    m.add_class::<Session>()?;
    m.add_class::<Document>()?;
    m.add_function(wrap_pyfunction!(schema, m)?)?;
    m.add_function(wrap_pyfunction!(default_session, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_tests, m)?)?;
    Ok(())
}
