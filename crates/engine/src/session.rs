//! The one door: a [`Session`] holds what every analysis of a run shares (the rules in
//! force, the catalog, the templates) and does the work the front ends (CLI, server,
//! benchmark) would otherwise each repeat: assembling the topology from its sources,
//! reading every input while collecting every error, analyzing, inspecting, rendering.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use advisor_ingest::IngestError;
use advisor_ingest::perfmon::counters::names as counter_names;
use advisor_model::{Analysis, Comparison, Recommendation};
use advisor_normalize::Capture;
use advisor_report::{Format, RenderOptions, Renderer, ReportError};
use advisor_rules::eval::CatalogCaps;
use advisor_rules::{Diagnostic, LoadError, Registry};
use advisor_topology::{Catalog, CatalogError, Merged, Topology, TopologyError};

use crate::BundleLimits;
use crate::analyze::{self, Settings, Timings};
use crate::bundle::BundleSummary;
use crate::compare::{CompareSide, SideData};
use crate::inspect::{Inspection, inspect_capture};
use crate::recommend::RecommendOptions;
use crate::sources::{self, TopologySources};

/// p95 IOPS above which a capture target counts as carrying IO (for the warning about busy
/// targets the topology does not describe): one IO a second.
pub const BUSY_IOPS: f64 = 1.0;

/// Points a chart series is reduced to, at most.
pub const CHART_POINTS: usize = 300;

/// A capture to read: a file, or bytes already in memory with the name to show.
#[derive(Debug, Clone)]
pub enum Input {
    Path(PathBuf),
    Bytes {
        name: String,
        bytes: Vec<u8>,
    },
    /// A capture already read ([`Session::read`]): analysed again without reading it again
    /// (the benchmark times the rules so).
    Read(Box<Capture>),
}

impl Input {
    /// The name errors and reports show.
    pub fn name(&self) -> String {
        match self {
            Input::Path(p) => p.display().to_string(),
            Input::Bytes { name, .. } => name.clone(),
            Input::Read(c) => c.file.clone(),
        }
    }

    /// Its size in bytes (0 for a file that cannot be read: the read reports why).
    pub fn len(&self) -> u64 {
        match self {
            Input::Path(p) => std::fs::metadata(p).map_or(0, |m| m.len()),
            Input::Bytes { bytes, .. } => bytes.len() as u64,
            // Read already: its bytes were counted when it was.
            Input::Read(_) => 0,
        }
    }

    /// Whether it holds no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl From<&Path> for Input {
    fn from(p: &Path) -> Self {
        Input::Path(p.to_path_buf())
    }
}

impl From<PathBuf> for Input {
    fn from(p: PathBuf) -> Self {
        Input::Path(p)
    }
}

/// What reads a capture held in memory: its name (for messages) and its bytes.
pub type BytesReader = dyn Fn(&str, &[u8]) -> Result<Capture, IngestError> + Send + Sync;

/// Why a session could not be built, or an analysis could not run. Each renders as the
/// user sees it (file, line, column, help); none repeats its cause as a separate source.
#[derive(Debug)]
pub enum EngineError {
    /// `--templates`: a template did not parse or the folder cannot be read.
    Templates(ReportError),
    /// `--catalog`: the built-in catalog or a user's file is wrong.
    Catalog(CatalogError),
    /// A rule did not load or check (`--rules`).
    Rules(LoadError),
    /// A `--set` or `--only` value is wrong.
    Setting(Box<Diagnostic>),
    /// The topology (file, `--vm`, the upload form) is wrong.
    Topology(TopologyError),
    /// The upload form's topology fields do not go together.
    Form(String),
    /// Captures could not be read: every one that failed, in input order.
    Unreadable(Vec<IngestError>),
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Templates(e) => write!(f, "{e}"),
            Self::Catalog(e) => write!(f, "{e}"),
            Self::Rules(e) => write!(f, "{e}"),
            Self::Setting(d) => write!(f, "{d}"),
            Self::Topology(e) => write!(f, "{e}"),
            Self::Form(m) => f.write_str(m),
            Self::Unreadable(errors) => {
                for (i, e) in errors.iter().enumerate() {
                    if i > 0 {
                        writeln!(f)?;
                    }
                    write!(f, "{e}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for EngineError {
    /// The wrapped error's own cause (an IO error under a template folder), never the
    /// wrapped error itself, whose text this one already is.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Templates(e) => std::error::Error::source(e),
            Self::Catalog(e) => std::error::Error::source(e),
            _ => None,
        }
    }
}

impl From<TopologyError> for EngineError {
    fn from(e: TopologyError) -> Self {
        Self::Topology(e)
    }
}

/// What a job works from: its inputs (captures, collector bundles) and the sources of the
/// VM's topology. The bundles' documents join the sources when they are opened.
#[derive(Debug, Clone, Default)]
pub struct Request {
    pub inputs: Vec<Input>,
    pub topology: TopologySources,
}

impl Request {
    /// These inputs, with no topology of their own beyond their bundles' documents.
    pub fn new(inputs: impl IntoIterator<Item = impl Into<Input>>) -> Self {
        Self {
            inputs: inputs.into_iter().map(Into::into).collect(),
            topology: TopologySources::default(),
        }
    }

    /// The request with these topology sources.
    #[must_use]
    pub fn topology(mut self, topology: TopologySources) -> Self {
        self.topology = topology;
        self
    }
}

/// What a job tells as it goes: the CLI's progress bar, the benchmark's clock. Every
/// method does nothing unless implemented; `&mut ()` hears nothing.
pub trait Progress {
    /// The captures to read, once bundles are opened: how many, and their bytes.
    fn start(&mut self, inputs: usize, bytes: u64) {
        let _ = (inputs, bytes);
    }

    /// About to read this input.
    fn reading(&mut self, name: &str, bytes: u64) {
        let _ = (name, bytes);
    }

    /// It was read, or why not.
    fn read(&mut self, name: &str, bytes: u64, result: Result<&Capture, &IngestError>) {
        let _ = (name, bytes, result);
    }

    /// An analysis is done; how long its parts took.
    fn analysed(&mut self, timings: &Timings) {
        let _ = timings;
    }
}

impl Progress for () {}

/// What [`Session::inspect`] found in one input: the bundle it is, if one, and each
/// capture's inspection or why it could not be read, in order.
#[derive(Debug)]
pub struct Inspected {
    pub bundles: Vec<BundleSummary>,
    pub captures: Vec<Result<Inspection, IngestError>>,
}

/// Builds a [`Session`]: every option is checked by [`SessionBuilder::build`], before any
/// capture is read.
#[derive(Default)]
pub struct SessionBuilder {
    rule_dirs: Vec<PathBuf>,
    sets: Vec<String>,
    only: Vec<String>,
    catalogs: Vec<PathBuf>,
    templates: Option<PathBuf>,
    busy_iops: Option<f64>,
    chart_points: Option<usize>,
    reader: Option<Box<BytesReader>>,
    bundle_limits: Option<BundleLimits>,
    counters: Vec<PathBuf>,
}

impl fmt::Debug for SessionBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SessionBuilder")
            .field("rule_dirs", &self.rule_dirs)
            .field("sets", &self.sets)
            .field("only", &self.only)
            .field("catalogs", &self.catalogs)
            .field("templates", &self.templates)
            .finish_non_exhaustive()
    }
}

impl SessionBuilder {
    /// `--rules DIR`: folders of rules added to the shipped ones (a rule with a shipped
    /// rule's id replaces it).
    pub fn rules<P: Into<PathBuf>>(mut self, dirs: impl IntoIterator<Item = P>) -> Self {
        self.rule_dirs.extend(dirs.into_iter().map(Into::into));
        self
    }

    /// `--set RULE-ID.PARAM=VALUE`, as typed.
    pub fn set<S: Into<String>>(mut self, sets: impl IntoIterator<Item = S>) -> Self {
        self.sets.extend(sets.into_iter().map(Into::into));
        self
    }

    /// Only these rule ids are evaluated (all when none is given).
    pub fn only<S: Into<String>>(mut self, ids: impl IntoIterator<Item = S>) -> Self {
        self.only.extend(ids.into_iter().map(Into::into));
        self
    }

    /// `--catalog FILE`: CSV files (VM sizes or disk SKUs) that extend or correct the
    /// built-in catalog, in order.
    pub fn catalog<P: Into<PathBuf>>(mut self, files: impl IntoIterator<Item = P>) -> Self {
        self.catalogs.extend(files.into_iter().map(Into::into));
        self
    }

    /// `--counters FILE`: PerfMon counter-name tables of other display languages (TOML, in
    /// the shape of the shipped ones in `counters/`), used before the shipped tables for
    /// every capture the session reads (and only by it).
    pub fn counters<P: Into<PathBuf>>(mut self, files: impl IntoIterator<Item = P>) -> Self {
        self.counters.extend(files.into_iter().map(Into::into));
        self
    }

    /// `--templates DIR`: templates that replace the built-in ones file by file.
    pub fn templates(mut self, dir: Option<impl Into<PathBuf>>) -> Self {
        self.templates = dir.map(Into::into);
        self
    }

    /// p95 IOPS above which a target counts as busy; [`BUSY_IOPS`] by default.
    pub fn busy_iops(mut self, iops: f64) -> Self {
        self.busy_iops = Some(iops);
        self
    }

    /// Points per chart series; [`CHART_POINTS`] by default.
    pub fn chart_points(mut self, n: usize) -> Self {
        self.chart_points = Some(n);
        self
    }

    /// What a bundle (a folder, tar.gz or zip among the inputs) may unpack to;
    /// [`BundleLimits::default`] unless told.
    pub fn bundle_limits(mut self, limits: BundleLimits) -> Self {
        self.bundle_limits = Some(limits);
        self
    }

    /// What reads captures held in memory ([`Input::Bytes`]), instead of the readers'
    /// own: for embedders that check or convert uploads first, and for tests that need a
    /// reader that fails or panics.
    pub fn bytes_reader(
        mut self,
        reader: impl Fn(&str, &[u8]) -> Result<Capture, IngestError> + Send + Sync + 'static,
    ) -> Self {
        self.reader = Some(Box::new(reader));
        self
    }

    /// Loads the templates, the catalog and the rules, in that order, and checks every
    /// `--set` and `--only`: the first error stops it.
    pub fn build(self) -> Result<Session, EngineError> {
        let renderer =
            Renderer::with_overrides(self.templates.as_deref()).map_err(EngineError::Templates)?;
        let mut catalog = Catalog::builtin().map_err(EngineError::Catalog)?;
        for file in &self.catalogs {
            catalog.merge_file(file).map_err(EngineError::Catalog)?;
        }
        let (mut registry, shipped) = Registry::shipped();
        shipped.map_err(EngineError::Rules)?;
        for d in &self.rule_dirs {
            registry.load_dir(d).map_err(EngineError::Rules)?;
        }
        for s in &self.sets {
            registry.set(s).map_err(EngineError::Setting)?;
        }
        for id in &self.only {
            if registry.get(id).is_none() {
                return Err(EngineError::Setting(Box::new(registry.unknown_rule(id))));
            }
        }
        let mut tables = Vec::with_capacity(self.counters.len());
        for file in &self.counters {
            tables.push(counter_names::load(file).map_err(|e| EngineError::Unreadable(vec![e]))?);
        }
        // Later files first: a language given twice is read with the last table.
        tables.reverse();
        let counter_tables = counter_names::with_shipped(tables);
        let caps = Arc::new(crate::catalog_caps::catalog_caps(&catalog));
        Ok(Session {
            registry,
            catalog,
            caps,
            renderer,
            only: self.only,
            busy_iops: self.busy_iops.unwrap_or(BUSY_IOPS),
            chart_points: self.chart_points.unwrap_or(CHART_POINTS),
            reader: self.reader,
            bundle_limits: self.bundle_limits.unwrap_or_default(),
            counter_tables,
        })
    }
}

/// The rules in force, the catalog and the templates of a run, and everything done with
/// them. Built once (per command, per server) and shared: its methods take `&self`.
///
/// ```
/// use advisor_engine::{Request, Session, TopologySources};
///
/// let capture = concat!(
///     env!("CARGO_MANIFEST_DIR"),
///     "/../../fixtures/captures/perfmon-csv/azure-vm_physicaldisk-logicaldisk-cpu-memory_eastern-240_1s_crlf.csv"
/// );
/// let session = Session::builder().build().expect("the shipped rules load");
/// let vm = TopologySources { vm: Some("Standard_DS13_v2".into()), ..TopologySources::default() };
/// let request = Request::new([std::path::PathBuf::from(capture)]).topology(vm);
/// let analysis = session.analyze(request, &mut ()).expect("reads");
/// assert_eq!(analysis.inputs.len(), 1);
/// assert_eq!(analysis.vm.as_deref(), Some("Standard_DS13_v2"));
/// // Without disks in the topology, the rules about disks say what they need.
/// assert!(analysis.not_evaluated.iter().any(|n| n.reason.contains("--topology")));
/// ```
pub struct Session {
    registry: Registry,
    catalog: Catalog,
    /// The catalog's caps as the rules read them (`disk_caps_near`, `vm_sizes_near`).
    caps: Arc<CatalogCaps>,
    renderer: Renderer,
    only: Vec<String>,
    busy_iops: f64,
    chart_points: usize,
    reader: Option<Box<BytesReader>>,
    bundle_limits: BundleLimits,
    /// The PerfMon counter-name tables this session reads with: `--counters` first, then
    /// the shipped ones. The session's own, so sessions with different tables can read at
    /// once in one process.
    counter_tables: Vec<Arc<counter_names::Language>>,
}

impl fmt::Debug for Session {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session")
            .field("rules", &self.registry.len())
            .field("only", &self.only)
            .field("busy_iops", &self.busy_iops)
            .field("chart_points", &self.chart_points)
            .finish_non_exhaustive()
    }
}

impl Session {
    pub fn builder() -> SessionBuilder {
        SessionBuilder::default()
    }

    /// The rules in force (shipped, `--rules`, with `--set` applied).
    pub fn rules(&self) -> &Registry {
        &self.registry
    }

    /// The catalog (built-in, with `--catalog` files merged).
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// The templates (built-in, with `--templates` overrides).
    pub fn renderer(&self) -> &Renderer {
        &self.renderer
    }

    /// What bundles may unpack to in this session.
    pub fn bundle_limits(&self) -> &BundleLimits {
        &self.bundle_limits
    }

    /// `advisor analyze`: the request read ([`Session::prepare`]), the rules evaluated, and
    /// the bundles' other files listed among the inputs.
    pub fn analyze(
        &self,
        request: Request,
        progress: &mut impl Progress,
    ) -> Result<Analysis, EngineError> {
        let read = self.prepare(request, progress)?;
        let mut analysis = self.analyze_read(&read, progress);
        analysis.inputs.extend(read.listed);
        Ok(analysis)
    }

    /// `advisor compare BEFORE... --with AFTER...`: each side read and analysed as
    /// [`Session::analyze`] does, with its own topology, then compared target by target,
    /// budget by budget and finding by finding, with the verdict worded by the report. When
    /// both sides have unreadable inputs, every error of both is reported.
    pub fn compare(
        &self,
        before: CompareSide,
        after: CompareSide,
        progress: &mut impl Progress,
    ) -> Result<Comparison, EngineError> {
        let b = self.compare_side(before, progress);
        let a = self.compare_side(after, progress);
        let (b, a) = match (b, a) {
            (Ok(b), Ok(a)) => (b, a),
            (Err(EngineError::Unreadable(mut x)), Err(EngineError::Unreadable(y))) => {
                x.extend(y);
                return Err(EngineError::Unreadable(x));
            }
            (Err(e), _) | (_, Err(e)) => return Err(e),
        };
        let mut comparison = crate::compare::compare(&b, &a, self.chart_points);
        advisor_report::word_comparison(&mut comparison);
        Ok(comparison)
    }

    /// `advisor recommend`: the request read ([`Session::prepare`]), then the VM size and
    /// disk SKUs that carry its demand.
    pub fn recommend(
        &self,
        request: Request,
        options: &RecommendOptions,
        progress: &mut impl Progress,
    ) -> Result<Recommendation, EngineError> {
        let read = self.prepare(request, progress)?;
        Ok(crate::recommend::recommend(
            &read.captures,
            read.topology.as_ref(),
            &self.catalog,
            options,
        ))
    }

    /// `advisor inspect`: what was recognised in one input; a bundle is opened and each of
    /// its captures inspected (an unreadable one does not hide the others).
    pub fn inspect(&self, input: Input) -> Result<Inspected, EngineError> {
        let expanded = crate::bundle::expand(vec![input], &self.bundle_limits)?;
        let bundle = expanded.bundles.first().cloned();
        let captures = expanded
            .inputs
            .into_iter()
            .map(|input| {
                let mut inspection = inspect_capture(&self.read(input)?);
                inspection.bundle.clone_from(&bundle);
                Ok(inspection)
            })
            .collect();
        Ok(Inspected { bundles: expanded.bundles, captures })
    }

    /// `advisor topology`: the sources' documents merged as the contract's TOML, each fact
    /// with its source.
    pub fn topology(&self, sources: &TopologySources) -> Result<Merged, EngineError> {
        sources::merged(sources, &self.catalog)
    }

    /// Reads one capture (not a bundle) as every job does, with this session's counter
    /// tables and reader: for front ends that show or keep captures themselves, and
    /// for the benchmark, which analyses one capture many times ([`Input::Read`]).
    pub fn read(&self, input: Input) -> Result<Capture, IngestError> {
        match input {
            Input::Path(p) => advisor_normalize::read_path_with(&p, &self.counter_tables),
            Input::Bytes { name, bytes } => match &self.reader {
                Some(reader) => reader(&name, &bytes),
                None => advisor_normalize::read_bytes_with(&name, &bytes, &self.counter_tables),
            },
            Input::Read(capture) => Ok(*capture),
        }
    }

    /// The report of an analysis in `format`, with this session's templates.
    pub fn render(&self, analysis: &Analysis, format: Format) -> Result<String, ReportError> {
        let options = RenderOptions { rules_in_force: Some(self.registry.len()) };
        self.renderer.render(analysis, format, &options)
    }

    /// The report of a comparison in `format`, with this session's templates.
    pub fn render_comparison(
        &self,
        comparison: &Comparison,
        format: Format,
    ) -> Result<String, ReportError> {
        self.renderer.render_comparison(comparison, format)
    }

    /// A recommendation in `format`, with this session's templates.
    pub fn render_recommendation(
        &self,
        recommendation: &Recommendation,
        format: Format,
    ) -> Result<String, ReportError> {
        self.renderer.render_recommendation(recommendation, format)
    }

    /// The verdict line of an analysis ("2 critical findings in 33 rules evaluated"): its
    /// verdict's headline, as the reports open with it.
    pub fn verdict(&self, analysis: &Analysis) -> String {
        if analysis.verdict.headline.is_empty() {
            advisor_report::verdict(analysis, Some(self.registry.len()))
        } else {
            analysis.verdict.headline.clone()
        }
    }

    /// The pipeline every job shares, written once: the collector bundles among the inputs
    /// opened (their captures become inputs, their documents topology sources), the
    /// topology assembled from its sources, and every capture read, with every error.
    pub(crate) fn prepare(
        &self,
        request: Request,
        progress: &mut impl Progress,
    ) -> Result<ReadRequest, EngineError> {
        let Request { inputs, topology: mut sources } = request;
        let expanded = crate::bundle::expand(inputs, &self.bundle_limits)?;
        let limits = advisor_model::work::limits();
        advisor_model::work::within("captures", expanded.inputs.len(), limits.captures);
        if expanded.inputs.is_empty() {
            return Err(no_capture(&expanded.bundles));
        }
        sources.texts.extend(expanded.documents.iter().cloned());
        let topology = sources::assemble(&sources, &self.catalog)?;
        let listed = expanded.listed();
        let captures = self.read_all(expanded.inputs, progress)?;
        Ok(ReadRequest { captures, topology, listed })
    }

    /// Reads every input in order, telling `progress` before and after each; an input's
    /// bytes are dropped as soon as it is read. When any cannot be read, the error lists
    /// every one that failed, not just the first.
    fn read_all(
        &self,
        inputs: Vec<Input>,
        progress: &mut impl Progress,
    ) -> Result<Vec<Capture>, EngineError> {
        // Each file's size is asked of the file system once.
        let sizes: Vec<u64> = inputs.iter().map(Input::len).collect();
        progress.start(inputs.len(), sizes.iter().sum());
        let mut captures = Vec::with_capacity(inputs.len());
        let mut errors = Vec::new();
        for (input, bytes) in inputs.into_iter().zip(sizes) {
            let name = input.name();
            progress.reading(&name, bytes);
            // The capture as read (its text, its frame) takes about its size again: charged
            // to the memory budget of the work this is part of, if any.
            advisor_model::work::charge(bytes);
            let result = self.read(input);
            progress.read(&name, bytes, result.as_ref());
            match result {
                Ok(c) => captures.push(c),
                Err(e) => errors.push(e),
            }
        }
        if !errors.is_empty() {
            return Err(EngineError::Unreadable(errors));
        }
        // One snapshot per file of one source (SQL Server's file statistics): the rates
        // between them.
        advisor_normalize::join_snapshots(captures).map_err(|e| EngineError::Unreadable(vec![e]))
    }

    /// Ties the captures read to the topology, evaluates the rules, and gathers what a
    /// report shows; `progress` hears how long its parts took.
    pub(crate) fn analyze_read(
        &self,
        read: &ReadRequest,
        progress: &mut impl Progress,
    ) -> Analysis {
        let ReadRequest { captures, topology, .. } = read;
        let topology = topology.as_ref();
        let settings = Settings {
            registry: &self.registry,
            only: &self.only,
            busy_iops: self.busy_iops,
            chart_points: self.chart_points,
            catalog: &self.caps,
        };
        // The proposal is worked out beside the charts, once the rules have
        // said whether any finding is about a cap.
        let (mut analysis, timings, proposal) =
            analyze::run(captures, topology, &settings, |f, stats| {
                self.cap_recommendation(f, stats, captures, topology)
            });
        if let Some(line) = proposal {
            for f in analysis.findings.iter_mut().filter(|f| f.episode_window.is_some()) {
                f.recommendation = Some(line.clone());
            }
        }
        advisor_report::word_verdict(&mut analysis, Some(self.registry.len()));
        progress.analysed(&timings);
        analysis
    }

    /// One side of a comparison, read and analysed as [`Session::analyze`] does.
    fn compare_side(
        &self,
        side: CompareSide,
        progress: &mut impl Progress,
    ) -> Result<SideData, EngineError> {
        let CompareSide { inputs, topology, labels } = side;
        let files = inputs.iter().map(Input::name).collect();
        let read = self.prepare(Request { inputs, topology }, progress)?;
        let mut analysis = self.analyze_read(&read, progress);
        analysis.inputs.extend(read.listed);
        Ok(SideData { captures: read.captures, topology: read.topology, analysis, labels, files })
    }

    /// Each cap finding names, beside its fix, what `advisor recommend` proposes (its defaults: the
    /// 95th percentile of demand with 1.2 headroom), when the topology gives a VM size and
    /// the proposal changes the VM size or a disk (its SKU, count or host caching).
    fn cap_recommendation(
        &self,
        findings: &[advisor_model::Finding],
        stats: &[Vec<advisor_normalize::TargetStats>],
        captures: &[Capture],
        topology: Option<&Topology>,
    ) -> Option<String> {
        // Cap findings are those timed against a cap (episodes).
        if !findings.iter().any(|f| f.episode_window.is_some()) {
            return None;
        }
        let topology = topology?;
        let r = crate::recommend::recommend_known(
            captures,
            stats,
            Some(topology),
            &self.catalog,
            &RecommendOptions::default(),
        );
        if r.current.vm.is_none() || r.vm.chosen.is_none() {
            return None;
        }
        let disks =
            |c: &advisor_model::Configuration| -> Vec<(String, Option<String>, u32, String)> {
                c.disks
                    .iter()
                    .map(|d| (d.name.clone(), d.sku.clone(), d.count, d.cache.clone()))
                    .collect()
            };
        if r.current.vm == r.proposed.vm && disks(&r.current) == disks(&r.proposed) {
            return None;
        }
        Some(format!(
            "{} (advisor recommend: p{:.0} of demand x {}, {} confidence)",
            advisor_report::recommendation_headline(&r),
            r.basis.percentile,
            r.basis.headroom,
            r.confidence.level,
        ))
    }
}

/// What a request's inputs gave: the captures read, the topology of its sources, and the
/// bundles' other files as the report lists them.
pub(crate) struct ReadRequest {
    pub(crate) captures: Vec<Capture>,
    pub(crate) topology: Option<Topology>,
    pub(crate) listed: Vec<advisor_model::InputSummary>,
}

/// What is said of every request without a capture to read: bundles that hold none, or no
/// input at all. One sentence, whichever job and front end it came through.
pub const NO_CAPTURE: &str = "no capture in it (none of its files is in a format advisor \
                              reads; `advisor inspect` says what each file is)";

fn no_capture(bundles: &[BundleSummary]) -> EngineError {
    if bundles.is_empty() {
        return EngineError::Unreadable(vec![IngestError::invalid(
            "the request",
            None,
            NO_CAPTURE,
        )]);
    }
    EngineError::Unreadable(
        bundles.iter().map(|b| IngestError::invalid(&b.name, None, NO_CAPTURE)).collect(),
    )
}
