//! `advisor analyze`: read captures, tie them to the topology, run the rules, and gather
//! what a report shows.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use advisor_model::{
    Analysis, CapLine, ChartSeries, Direction, Finding, InputSummary, Metric, MetricSummary,
    NotEvaluated, PercentileCurve, REPORT_SCHEMA, TargetKind, TargetSummary, ToolInfo,
};
use advisor_normalize::{Capture, IngestError, Stats};
use advisor_rules::eval::{
    BenchInfo, Context, DiskInfo, PoolInfo, Series, TargetId, TargetInfo, VmInfo,
};
use advisor_rules::{Diagnostic, LoadError, Registry};
use advisor_topology::{
    BurstModel, Cache, CaptureTarget, DiskLimits, FigureOrigin, Matching, Role, Subject, Topology,
    match_targets,
};

/// p95 IOPS above which a capture target counts as carrying IO (for the warning about busy
/// targets the topology does not describe): one IO a second.
pub const BUSY_IOPS: f64 = 1.0;

/// Points a chart series is reduced to, at most.
pub const CHART_POINTS: usize = 300;

/// A capture to analyze: a file, or bytes already in memory with the name to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    Path(PathBuf),
    Bytes { name: String, bytes: Vec<u8> },
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

/// How to analyze.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// `--rules DIR`: folders of rules added to (or replacing) the shipped ones.
    pub rule_dirs: Vec<PathBuf>,
    /// `--set RULE-ID.PARAM=VALUE`, as typed.
    pub sets: Vec<String>,
    /// Only these rule ids (all when empty).
    pub only: Vec<String>,
    /// p95 IOPS above which a target counts as busy; [`BUSY_IOPS`] when `None`.
    pub busy_iops: Option<f64>,
    /// Points per chart series; [`CHART_POINTS`] when `None`.
    pub chart_points: Option<usize>,
}

/// Why an analysis could not run.
#[derive(Debug)]
pub enum EngineError {
    /// A capture could not be read.
    Ingest(IngestError),
    /// A rule did not load or check (`--rules`).
    Rules(LoadError),
    /// A `--set` or `--only` value is wrong.
    Setting(Box<Diagnostic>),
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Ingest(e) => write!(f, "{e}"),
            Self::Rules(e) => write!(f, "{e}"),
            Self::Setting(d) => write!(f, "{d}"),
        }
    }
}

impl std::error::Error for EngineError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Ingest(e) => Some(e),
            Self::Rules(e) => Some(e),
            Self::Setting(_) => None,
        }
    }
}

impl From<IngestError> for EngineError {
    fn from(e: IngestError) -> Self {
        Self::Ingest(e)
    }
}

/// The rules in force: the shipped ones, `--rules` folders, `--set` values.
pub fn load_rules(options: &Options) -> Result<Registry, EngineError> {
    let (mut reg, res) = Registry::shipped();
    res.map_err(EngineError::Rules)?;
    for d in &options.rule_dirs {
        reg.load_dir(d).map_err(EngineError::Rules)?;
    }
    for s in &options.sets {
        reg.set(s).map_err(EngineError::Setting)?;
    }
    for id in &options.only {
        if reg.get(id).is_none() {
            return Err(EngineError::Setting(Box::new(reg.unknown_rule(id))));
        }
    }
    Ok(reg)
}

/// Reads the captures, matches them to the topology, evaluates every rule and returns
/// what a report shows.
///
/// ```
/// use advisor_engine::{Input, Options, analyze};
///
/// let capture = concat!(
///     env!("CARGO_MANIFEST_DIR"),
///     "/../../fixtures/captures/perfmon-csv/azure-vm_physicaldisk-logicaldisk-cpu-memory_eastern-240_1s_crlf.csv"
/// );
/// let inputs = [Input::Path(capture.into())];
/// let analysis = analyze(&inputs, None, &Options::default()).expect("reads");
/// assert_eq!(analysis.inputs.len(), 1);
/// // Without a topology, the rules that compare with the VM's limits say what they need.
/// assert!(analysis.not_evaluated.iter().any(|n| n.reason.contains("--vm")));
/// ```
pub fn analyze(
    inputs: &[Input],
    topology: Option<&Topology>,
    options: &Options,
) -> Result<Analysis, EngineError> {
    let registry = load_rules(options)?;
    let mut captures = Vec::with_capacity(inputs.len());
    for i in inputs {
        captures.push(match i {
            Input::Path(p) => advisor_normalize::read_path(p)?,
            Input::Bytes { name, bytes } => advisor_normalize::read_bytes(name, bytes)?,
        });
    }
    Ok(analyze_captures(&captures, topology, &registry, options))
}

/// [`analyze`] over captures already read, with a registry already loaded.
pub fn analyze_captures(
    captures: &[Capture],
    topology: Option<&Topology>,
    registry: &Registry,
    options: &Options,
) -> Analysis {
    analyze_captures_timed(captures, topology, registry, options).0
}

/// Seconds spent in each part of [`analyze_captures`]: what the benchmark reports.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Timings {
    /// Tying targets to the topology (with the busy test: each target's p95 IOPS).
    pub context_s: f64,
    /// Evaluating the rules.
    pub rules_s: f64,
    /// Per-target percentiles of every metric.
    pub summaries_s: f64,
    /// Chart series and percentile curves.
    pub charts_s: f64,
}

/// [`analyze_captures`], timing its parts.
pub fn analyze_captures_timed(
    captures: &[Capture],
    topology: Option<&Topology>,
    registry: &Registry,
    options: &Options,
) -> (Analysis, Timings) {
    let mut timings = Timings::default();
    let t = Instant::now();
    let busy_iops = options.busy_iops.unwrap_or(BUSY_IOPS);
    let ctx = EngineContext::new(captures, topology, busy_iops);
    timings.context_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let rules: Vec<_> = registry
        .rules()
        .filter(|r| options.only.is_empty() || options.only.contains(&r.id))
        .collect();
    let outcome = advisor_rules::evaluate(rules, &ctx);
    timings.rules_s = t.elapsed().as_secs_f64();

    let mut warnings: Vec<String> = Vec::new();
    if let Some(t) = topology {
        warnings.extend(t.warnings.iter().map(ToString::to_string));
        warnings.extend(ctx.matching.warnings.iter().map(ToString::to_string));
    }
    let t = Instant::now();
    let charts = charts(&ctx, options.chart_points.unwrap_or(CHART_POINTS));
    let curves = curves(captures);
    timings.charts_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let targets = target_summaries(&ctx);
    timings.summaries_s = t.elapsed().as_secs_f64();
    let analysis = Analysis {
        schema: REPORT_SCHEMA.to_owned(),
        tool: ToolInfo {
            name: "advisor".to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
        },
        inputs: captures.iter().map(input_summary).collect(),
        findings: outcome.findings,
        not_evaluated: outcome.not_evaluated,
        targets,
        vm: ctx.vm.as_ref().map(|v| v.limits.size.clone()),
        warnings,
        charts,
        curves,
    };
    (analysis, timings)
}

fn fmt_time(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|t| t.naive_utc().format("%Y-%m-%dT%H:%M:%S").to_string())
        .unwrap_or_else(|| format!("{ms} ms"))
}

fn input_summary(c: &Capture) -> InputSummary {
    let range = c.time_range();
    InputSummary {
        file: c.file.clone(),
        format: c.format().id().to_owned(),
        version: c.meta.version.clone(),
        host: (!c.meta.hosts.is_empty()).then(|| c.meta.hosts.join(", ")),
        start: range.map(|r| fmt_time(r.0)),
        end: range.map(|r| fmt_time(r.1)),
        samples: c.samples() as u64,
        targets: c.targets().iter().map(|t| t.name.clone()).collect(),
        ignored: c.meta.ignored.clone(),
        warnings: c.meta.warnings.iter().map(ToString::to_string).collect(),
    }
}

fn kind_name(k: TargetKind) -> &'static str {
    match k {
        TargetKind::Disk => "disk",
        TargetKind::Volume => "volume",
        TargetKind::Device => "device",
        TargetKind::Benchmark => "benchmark",
        TargetKind::Aggregate => "aggregate",
        TargetKind::Host => "host",
    }
}

/// The rules' view of the captures and topology.
struct EngineContext<'a> {
    captures: &'a [Capture],
    has_topology: bool,
    vm: Option<VmInfo>,
    disks: Vec<DiskInfo>,
    pools: Vec<PoolInfo>,
    benches: Vec<BenchInfo>,
    targets: Vec<TargetInfo>,
    host: Option<TargetId>,
    matching: Matching,
    /// Per entry of `targets`: the topology name it was matched to.
    matched: Vec<Option<String>>,
    /// Per entry of `targets`: the disk it stands for (index into `disks`).
    disk_of: Vec<Option<usize>>,
}

/// The order in which a disk's targets are preferred: the physical disk first.
fn kind_rank(k: TargetKind) -> u8 {
    match k {
        TargetKind::Disk => 0,
        TargetKind::Device => 1,
        TargetKind::Volume => 2,
        TargetKind::Benchmark => 3,
        _ => 4,
    }
}

fn temp_limits(name: &str, cache: Cache) -> DiskLimits {
    DiskLimits {
        name: name.to_owned(),
        role: Role::Temp,
        cache,
        cache_setting: cache,
        cache_assumed: true,
        can_cache: Some(false),
        write_accelerator: None,
        sku: None,
        kind: None,
        size_gib: None,
        iops: None,
        mbps: None,
        origin: FigureOrigin::Unknown,
        burst: BurstModel::None,
        burst_iops: None,
        burst_mbps: None,
        pool: None,
        source: Vec::new(),
    }
}

impl<'a> EngineContext<'a> {
    fn new(captures: &'a [Capture], topology: Option<&Topology>, busy_iops: f64) -> Self {
        let mut targets = Vec::new();
        let mut busy = Vec::new();
        for (ci, c) in captures.iter().enumerate() {
            for (ti, t) in c.targets().iter().enumerate() {
                let id = TargetId { capture: ci, target: ti as u32 };
                targets.push(TargetInfo {
                    id,
                    name: t.name.clone(),
                    kind: t.kind,
                    file: c.file.clone(),
                });
                let p95 =
                    advisor_rules::eval::percentile_of(&c.values(ti as u32, Metric::Iops), 95.0);
                busy.push(p95.is_some_and(|x| x > busy_iops));
            }
        }
        let host = targets
            .iter()
            .filter(|t| t.kind == TargetKind::Host)
            .find(|t| {
                captures
                    .get(t.id.capture)
                    .is_some_and(|c| !c.values(t.id.target, Metric::CpuPct).is_empty())
            })
            .map(|t| t.id);
        let benches = captures
            .iter()
            .enumerate()
            .flat_map(|(ci, c)| {
                c.meta.bench.iter().map(move |b| BenchInfo {
                    target: TargetId { capture: ci, target: b.target },
                    name: c
                        .targets()
                        .get(b.target as usize)
                        .map(|t| t.name.clone())
                        .unwrap_or_default(),
                    settings: b.clone(),
                })
            })
            .collect();

        let mut ctx = EngineContext {
            captures,
            has_topology: topology.is_some(),
            vm: None,
            disks: Vec::new(),
            pools: Vec::new(),
            benches,
            host,
            matching: Matching::default(),
            matched: vec![None; targets.len()],
            disk_of: vec![None; targets.len()],
            targets,
        };
        if let Some(t) = topology {
            ctx.tie(t, &busy);
        }
        ctx
    }

    /// Matches capture targets to the topology and builds disks, pools and the VM.
    fn tie(&mut self, t: &Topology, busy: &[bool]) {
        // Benchmark targets match too (a DiskSpd file under `F:\`), ranked after the time
        // series of the same disk.
        let storage: Vec<usize> = (0..self.targets.len())
            .filter(|&i| {
                matches!(
                    self.targets[i].kind,
                    TargetKind::Disk
                        | TargetKind::Volume
                        | TargetKind::Device
                        | TargetKind::Benchmark
                )
            })
            .collect();
        let cts: Vec<CaptureTarget<'_>> = storage
            .iter()
            .map(|&i| CaptureTarget {
                name: &self.targets[i].name,
                kind: self.targets[i].kind,
                busy: busy.get(i).copied().unwrap_or(false),
            })
            .collect();
        let mut matching = match_targets(t, &cts);
        for m in &mut matching.matches {
            m.target = storage.get(m.target).copied().unwrap_or(m.target);
        }
        for m in &matching.matches {
            if let Some(slot) = self.matched.get_mut(m.target) {
                slot.get_or_insert_with(|| m.name.clone());
            }
        }
        let limits = t.limits();
        let ranked = |mut v: Vec<usize>, targets: &[TargetInfo]| -> Vec<TargetId> {
            v.sort_by_key(|&i| (kind_rank(targets[i].kind), i));
            v.dedup();
            v.into_iter().map(|i| targets[i].id).collect()
        };
        for d in &limits.disks {
            let ti = t.disks.iter().position(|x| x.name == d.name);
            let idx: Vec<usize> = match ti {
                Some(ti) => matching.targets_of(Subject::Disk(ti)).collect(),
                None => Vec::new(),
            };
            let tier = ti
                .and_then(|ti| t.disks[ti].row.as_ref().map(|r| r.tier.clone()))
                .or_else(|| d.kind.map(|k| k.label().to_owned()));
            self.disks.push(DiskInfo {
                limits: d.clone(),
                tier,
                temp: false,
                targets: ranked(idx, &self.targets),
            });
        }
        for name in &limits.temp_disks {
            let idx: Vec<usize> = matching
                .matches
                .iter()
                .filter(|m| m.subject == Subject::TempDisk && m.name == *name)
                .map(|m| m.target)
                .collect();
            let cache = t.disk(name).map_or(Cache::None, |d| d.cache);
            self.disks.push(DiskInfo {
                limits: temp_limits(name, cache),
                tier: None,
                temp: true,
                targets: ranked(idx, &self.targets),
            });
        }
        for (di, d) in self.disks.iter().enumerate() {
            for id in &d.targets {
                if let Some(i) = self.targets.iter().position(|t| t.id == *id) {
                    self.disk_of[i].get_or_insert(di);
                }
            }
        }
        for (pi, p) in limits.pools.iter().enumerate() {
            let members = p
                .members
                .iter()
                .filter_map(|m| {
                    let key = advisor_topology::normalize_name(m);
                    self.disks
                        .iter()
                        .position(|d| advisor_topology::normalize_name(&d.limits.name) == key)
                })
                .collect();
            let idx: Vec<usize> = matching.targets_of(Subject::Pool(pi)).collect();
            self.pools.push(PoolInfo {
                limits: p.clone(),
                members,
                targets: ranked(idx, &self.targets),
            });
        }
        self.vm = limits.vm.as_ref().map(|v| VmInfo {
            limits: v.clone(),
            memory_gib: t.vm.as_ref().and_then(|x| x.size.memory_gib),
            provisioned_iops: limits.uncached.provisioned_iops,
            provisioned_mbps: limits.uncached.provisioned_mbps,
        });
        self.matching = matching;
    }

    fn capture(&self, id: TargetId) -> Option<&Capture> {
        self.captures.get(id.capture)
    }
}

impl Context for EngineContext<'_> {
    fn has_topology(&self) -> bool {
        self.has_topology
    }
    fn vm(&self) -> Option<&VmInfo> {
        self.vm.as_ref()
    }
    fn disks(&self) -> &[DiskInfo] {
        &self.disks
    }
    fn pools(&self) -> &[PoolInfo] {
        &self.pools
    }
    fn benches(&self) -> &[BenchInfo] {
        &self.benches
    }
    fn targets(&self) -> &[TargetInfo] {
        &self.targets
    }
    fn host(&self) -> Option<TargetId> {
        self.host
    }
    /// Not cached here: the evaluator keeps the series the rules read (in its own units)
    /// for as long as the rules run, and a second copy for the whole analysis would cost
    /// memory on a day of samples.
    fn series(&self, target: TargetId, metric: Metric) -> Option<Arc<Series>> {
        self.capture(target)
            .map(|c| c.series(target.target, metric))
            .filter(|s| !s.is_empty())
            .map(Arc::new)
    }
    fn series_columns(
        &self,
        target: TargetId,
        metric: Metric,
    ) -> Option<(Vec<Option<i64>>, Vec<f64>)> {
        let (times, vals) = self.capture(target)?.series_columns(target.target, metric);
        (!vals.is_empty()).then_some((times, vals))
    }
    fn source_percentile(&self, target: TargetId, direction: Direction, pct: f64) -> Option<f64> {
        let c = self.capture(target)?;
        let mut exact = None;
        let mut above: Option<(f64, f64)> = None;
        for p in &c.meta.percentiles {
            if p.target != target.target || p.direction != direction {
                continue;
            }
            if (p.percentile - pct).abs() < 1e-6 {
                exact = Some(p.latency_ms);
            } else if p.percentile > pct && above.is_none_or(|(q, _)| p.percentile < q) {
                above = Some((p.percentile, p.latency_ms));
            }
        }
        // The next percentile up bounds the asked one from above, when close.
        exact.or_else(|| above.filter(|(q, _)| *q - pct <= 0.5).map(|(_, v)| v))
    }
    fn interval_s(&self, target: TargetId) -> Option<f64> {
        self.capture(target)?.meta.interval_s
    }
}

fn metric_summary(s: &Stats) -> MetricSummary {
    MetricSummary {
        p50: s.p50,
        p90: s.p90,
        p99: s.p99,
        max: s.max,
        avg: s.avg,
        count: s.count as u64,
    }
}

fn target_summaries(ctx: &EngineContext<'_>) -> Vec<TargetSummary> {
    let mut out = Vec::new();
    for (ci, c) in ctx.captures.iter().enumerate() {
        for s in c.summary() {
            let i =
                ctx.targets.iter().position(|t| t.id == TargetId { capture: ci, target: s.target });
            let Some(t) = c.targets().get(s.target as usize) else { continue };
            out.push(TargetSummary {
                name: t.name.clone(),
                kind: kind_name(t.kind).to_owned(),
                host: t.host.clone(),
                file: c.file.clone(),
                matched: i.and_then(|i| ctx.matched.get(i).cloned().flatten()),
                metrics: s
                    .metrics
                    .iter()
                    .map(|(m, st)| (m.name().to_owned(), metric_summary(st)))
                    .collect(),
            });
        }
    }
    out
}

/// Keeps at most `n` points: the series cut into `n` buckets of time, each keeping its
/// maximum, so peaks stay visible.
pub fn reduce_points(points: &[(i64, f64)], n: usize) -> Vec<(i64, f64)> {
    if points.len() <= n || n == 0 {
        return points.to_vec();
    }
    let per = points.len().div_ceil(n);
    points
        .chunks(per)
        .filter_map(|c| c.iter().copied().max_by(|a, b| a.1.total_cmp(&b.1)))
        .collect()
}

const MIB: f64 = 1024.0 * 1024.0;

fn charts(ctx: &EngineContext<'_>, n: usize) -> Vec<ChartSeries> {
    let mut out = Vec::new();
    for (i, t) in ctx.targets.iter().enumerate() {
        let storage = matches!(
            t.kind,
            TargetKind::Disk | TargetKind::Volume | TargetKind::Device | TargetKind::Aggregate
        );
        if !storage {
            continue;
        }
        let disk = ctx.disk_of.get(i).copied().flatten().and_then(|d| ctx.disks.get(d));
        for metric in [Metric::Iops, Metric::Mbps, Metric::LatencyMs] {
            let Some(s) = ctx.series(t.id, metric) else { continue };
            let pts: Vec<(i64, f64)> = s.iter().filter_map(|(t, v)| t.map(|t| (t, *v))).collect();
            if pts.len() < 2 {
                continue;
            }
            let mut caps = Vec::new();
            if let Some(d) = disk.filter(|d| !d.temp) {
                let name = &d.limits.name;
                match metric {
                    Metric::Iops => {
                        if let Some(c) = d.limits.iops {
                            caps.push(CapLine {
                                label: format!("{name} cap {c:.0} IOPS"),
                                value: c,
                            });
                        }
                        if let Some(c) = d.limits.burst_iops {
                            caps.push(CapLine {
                                label: format!("{name} burst {c:.0} IOPS"),
                                value: c,
                            });
                        }
                    }
                    Metric::Mbps => {
                        if let Some(c) = d.limits.mbps {
                            caps.push(CapLine {
                                label: format!(
                                    "{name} cap {c:.0} MB/s ({:.1} MiB/s)",
                                    c * 1e6 / MIB
                                ),
                                value: c * 1e6 / MIB,
                            });
                        }
                    }
                    _ => {}
                }
            }
            if t.kind == TargetKind::Aggregate
                && let Some(vm) = &ctx.vm
            {
                let l = &vm.limits;
                let size = &l.size;
                match metric {
                    Metric::Iops => {
                        for (what, c) in [("uncached", l.uncached_iops), ("cached", l.cached_iops)]
                        {
                            if let Some(c) = c {
                                caps.push(CapLine {
                                    label: format!("{size} {what} {c:.0} IOPS"),
                                    value: c,
                                });
                            }
                        }
                    }
                    Metric::Mbps => {
                        for (what, c) in [("uncached", l.uncached_mbps), ("cached", l.cached_mbps)]
                        {
                            if let Some(c) = c {
                                caps.push(CapLine {
                                    label: format!(
                                        "{size} {what} {c:.0} MB/s ({:.1} MiB/s)",
                                        c * 1e6 / MIB
                                    ),
                                    value: c * 1e6 / MIB,
                                });
                            }
                        }
                    }
                    _ => {}
                }
            }
            out.push(ChartSeries {
                target: t.name.clone(),
                file: t.file.clone(),
                metric: metric.name().to_owned(),
                points: reduce_points(&pts, n),
                caps,
            });
        }
    }
    out.extend(budget_charts(ctx, n));
    out
}

/// The VM's two budgets as charts: the time-aligned sum over the disks that draw on each
/// (host-cached disks plus the temp disk; every remote disk), against the VM's caps. This
/// is where VM-level throttling shows, which no single disk's chart can show.
fn budget_charts(ctx: &EngineContext<'_>, n: usize) -> Vec<ChartSeries> {
    let Some(vm) = &ctx.vm else { return Vec::new() };
    let l = &vm.limits;
    // (label, whether it is the cached budget, caps)
    let budgets = [
        ("host-cached disks + temp disk", true, l.cached_iops, l.cached_mbps),
        ("all remote disks", false, l.uncached_iops, l.uncached_mbps),
    ];
    let mut out = Vec::new();
    for (label, cached_budget, cap_iops, cap_mbps) in budgets {
        let member = |d: &DiskInfo| {
            if cached_budget { d.temp || d.limits.cache != Cache::None } else { !d.temp }
        };
        let members: Vec<&DiskInfo> = ctx.disks.iter().filter(|d| member(d)).collect();
        if members.is_empty() {
            continue;
        }
        for (metric, cap) in [(Metric::Iops, cap_iops), (Metric::Mbps, cap_mbps)] {
            // One time series per member disk (its first target that has one); the sum
            // keeps only the times every member has.
            let mut sum: Option<Vec<(i64, f64)>> = None;
            let mut file = String::new();
            let mut counted = 0usize;
            for d in &members {
                let Some((id, s)) = d.targets.iter().find_map(|id| {
                    ctx.series(*id, metric)
                        .filter(|s| s.iter().filter(|p| p.0.is_some()).count() > 1)
                        .map(|s| (*id, s))
                }) else {
                    continue;
                };
                if file.is_empty()
                    && let Some(t) = ctx.targets.iter().find(|t| t.id == id)
                {
                    file = t.file.clone();
                }
                counted += 1;
                let timed = s.iter().filter_map(|(t, v)| t.map(|t| (t, *v)));
                sum = Some(match sum {
                    None => timed.map(|(t, v)| (t, 0.0 + v)).collect(),
                    Some(acc) => add_on_common_times(&acc, timed),
                });
            }
            let pts = sum.unwrap_or_default();
            if pts.len() < 2 {
                continue;
            }
            let kind = if cached_budget { "cached" } else { "uncached" };
            let caps = cap
                .map(|c| match metric {
                    Metric::Mbps => CapLine {
                        label: format!(
                            "{} {kind} {c:.0} MB/s ({:.1} MiB/s)",
                            l.size,
                            c * 1e6 / MIB
                        ),
                        value: c * 1e6 / MIB,
                    },
                    _ => CapLine { label: format!("{} {kind} {c:.0} IOPS", l.size), value: c },
                })
                .into_iter()
                .collect();
            out.push(ChartSeries {
                target: format!(
                    "VM {kind}: {label} ({counted} of {} disks captured)",
                    members.len()
                ),
                file,
                metric: metric.name().to_owned(),
                points: reduce_points(&pts, n),
                caps,
            });
        }
    }
    out
}

/// `acc` plus a series, on the times both have: a merge of two time-ordered series, linear
/// (a day of samples per disk). A time repeated within a series (a clock set back) pairs
/// with the same time's repeats in the other, in order.
fn add_on_common_times(
    acc: &[(i64, f64)],
    other: impl Iterator<Item = (i64, f64)>,
) -> Vec<(i64, f64)> {
    let mut out = Vec::with_capacity(acc.len());
    let mut a = acc.iter().peekable();
    for (t, v) in other {
        while a.next_if(|(at, _)| *at < t).is_some() {}
        if let Some((_, av)) = a.next_if(|(at, _)| *at == t) {
            out.push((t, av + v));
        }
    }
    out
}

fn direction_name(d: Direction) -> &'static str {
    match d {
        Direction::Read => "read",
        Direction::Write => "write",
        Direction::Total => "total",
        Direction::Sync => "sync",
    }
}

fn curves(captures: &[Capture]) -> Vec<PercentileCurve> {
    let mut out: Vec<PercentileCurve> = Vec::new();
    for c in captures {
        let mut keys: Vec<(u32, Direction)> =
            c.meta.percentiles.iter().map(|p| (p.target, p.direction)).collect();
        keys.sort();
        keys.dedup();
        for (t, d) in keys {
            let mut points: Vec<(f64, f64)> = c
                .meta
                .percentiles
                .iter()
                .filter(|p| p.target == t && p.direction == d)
                .filter(|p| p.percentile.is_finite() && p.latency_ms.is_finite())
                .map(|p| (p.percentile, p.latency_ms))
                .collect();
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            if points.is_empty() {
                continue;
            }
            out.push(PercentileCurve {
                target: c.targets().get(t as usize).map(|x| x.name.clone()).unwrap_or_default(),
                file: c.file.clone(),
                direction: direction_name(d).to_owned(),
                points,
            });
        }
    }
    out
}

/// Findings of one rule, for tests and callers that want one.
pub fn findings_of<'a>(a: &'a Analysis, rule: &'a str) -> impl Iterator<Item = &'a Finding> {
    a.findings.iter().filter(move |f| f.rule == rule)
}

/// Rules not evaluated, of one rule.
pub fn not_evaluated_of<'a>(
    a: &'a Analysis,
    rule: &'a str,
) -> impl Iterator<Item = &'a NotEvaluated> {
    a.not_evaluated.iter().filter(move |f| f.rule == rule)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_sums_keep_only_the_times_every_member_has() {
        let a = [(1, 1.0), (2, 2.0), (3, 3.0), (5, 5.0)];
        let b = [(0, 9.0), (2, 20.0), (3, 30.0), (4, 40.0), (5, 50.0), (6, 60.0)];
        let got = add_on_common_times(&a, b.iter().copied());
        assert_eq!(got, vec![(2, 22.0), (3, 33.0), (5, 55.0)]);
        // A time repeated on both sides pairs in order; an extra repeat has no partner.
        let a = [(1, 1.0), (1, 2.0), (2, 3.0)];
        let b = [(1, 10.0), (1, 20.0), (1, 30.0), (2, 40.0)];
        let got = add_on_common_times(&a, b.iter().copied());
        assert_eq!(got, vec![(1, 11.0), (1, 22.0), (2, 43.0)]);
        assert!(add_on_common_times(&[], b.iter().copied()).is_empty());
    }
}
