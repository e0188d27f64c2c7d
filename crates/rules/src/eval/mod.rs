//! The evaluator: runs checked rules against a [`Context`] and produces findings and the
//! rules it could not evaluate, with what to provide.
//!
//! Semantics (docs/rule-language.md, "How rules are evaluated"):
//! - series with series align by timestamp (an inner join); series with scalar broadcast;
//!   a series result drops points that are not finite (a division by zero at one sample);
//! - `and` / `or` short-circuit and follow three-valued logic: `false and missing` is
//!   false, `true or missing` is true; any other missing input makes the rule *not
//!   evaluated* for that subject, with a reason naming what to provide;
//! - collection aggregates skip elements whose value is missing (a disk no capture
//!   mentions) and are missing only when every element is; an empty collection gives
//!   `sum` = `count` = 0, `any` = false, `all` = true, and `avg`/`min`/`max` missing;
//! - a value interpolated in evidence or fix that is missing prints `n/a`: the finding
//!   stands on its condition.

mod context;
mod format;
mod value;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use advisor_model::{Direction, Finding, Metric, NotEvaluated, TargetKind, Unit};

pub use context::{
    BenchInfo, Context, DiskInfo, PoolInfo, Series, StaticContext, TargetId, TargetInfo, VmInfo,
};

use crate::ast::{BinaryOp, UnaryOp};
use crate::builtins::{Builtin, CollectionAgg};
use crate::check::{CheckedRule, Collection, Ref, Subject, TExpr, TKind, TPart, Value};
use crate::types::{
    BenchField, CacheMode, DiskField, Field, PoolField, Role, Scope, Severity, TargetField, VmField,
};
use value::{Elem, Missing, R, S, Times, V, missing};

const MIB: f64 = 1024.0 * 1024.0;
const GIB: f64 = 1024.0 * MIB;
/// Azure's MB/s: 10^6 bytes/s.
const AZURE_MB: f64 = 1e6;

/// The reason when no VM size is known.
pub const NEEDS_VM: &str = "needs the VM size: pass --vm or --topology";
/// The reason when the topology describes no disks.
pub const NO_DISKS: &str = "no topology disks: describe disks in --topology";
/// The reason for pool rules without pools.
pub const NO_POOLS: &str =
    "no striped pools in the topology: describe them as [[pool]] in --topology";
/// The reason for bench rules without benchmark input.
pub const NO_BENCH: &str = "no benchmark in the inputs: add a fio JSON or DiskSpd result";
/// The reason for target rules without disk, volume or device targets.
pub const NO_TARGETS: &str = "no disk, volume or device targets in the captures";

/// Findings and rules not evaluated.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    /// Most severe first, then by rule id and subject.
    pub findings: Vec<Finding>,
    /// By rule id and subject.
    pub not_evaluated: Vec<NotEvaluated>,
}

/// Evaluates every rule against `ctx`, rules in parallel, output sorted deterministically.
pub fn evaluate<'r>(
    rules: impl IntoIterator<Item = &'r CheckedRule>,
    ctx: &dyn Context,
) -> Outcome {
    let rules: Vec<&CheckedRule> = rules.into_iter().collect();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, 8);
    let chunk = rules.len().div_ceil(threads).max(1);
    let cache = &SeriesCache::default();
    let parts: Vec<Outcome> = std::thread::scope(|s| {
        let handles: Vec<_> = rules
            .chunks(chunk)
            .map(|c| {
                s.spawn(move || {
                    let mut o = Outcome::default();
                    for r in c {
                        let one = evaluate_rule_with(r, ctx, cache);
                        o.findings.extend(one.findings);
                        o.not_evaluated.extend(one.not_evaluated);
                    }
                    o
                })
            })
            .collect();
        handles.into_iter().filter_map(|h| h.join().ok()).collect()
    });
    let mut out = Outcome::default();
    for p in parts {
        out.findings.extend(p.findings);
        out.not_evaluated.extend(p.not_evaluated);
    }
    sort(&mut out);
    out
}

fn sort(o: &mut Outcome) {
    o.findings.sort_by(|a, b| {
        b.severity
            .cmp(&a.severity)
            .then_with(|| a.rule.cmp(&b.rule))
            .then_with(|| a.subject.cmp(&b.subject))
    });
    o.not_evaluated.sort_by(|a, b| a.rule.cmp(&b.rule).then_with(|| a.subject.cmp(&b.subject)));
}

/// The subjects a rule's scope is evaluated for, or why there are none.
fn subjects(scope: Scope, ctx: &dyn Context) -> Result<Vec<Option<Elem>>, &'static str> {
    let v: Vec<Option<Elem>> = match scope {
        Scope::Vm => return Ok(vec![None]),
        Scope::Disk => ctx
            .disks()
            .iter()
            .enumerate()
            .filter(|(_, d)| !d.temp)
            .map(|(i, _)| Some(Elem::Disk(i)))
            .collect(),
        Scope::Pool => (0..ctx.pools().len()).map(|i| Some(Elem::Pool(i))).collect(),
        Scope::Bench => (0..ctx.benches().len()).map(|i| Some(Elem::Bench(i))).collect(),
        Scope::Target => ctx
            .targets()
            .iter()
            .enumerate()
            .filter(|(_, t)| is_storage(t.kind))
            .map(|(i, _)| Some(Elem::Target(i)))
            .collect(),
    };
    if !v.is_empty() {
        return Ok(v);
    }
    Err(match scope {
        Scope::Disk => NO_DISKS,
        Scope::Pool => NO_POOLS,
        Scope::Bench => NO_BENCH,
        _ => NO_TARGETS,
    })
}

/// Targets of the `target` scope and the `targets` collection: disks, volumes, devices
/// and benchmark targets (whose latency tails come from the tool's own percentiles).
fn is_storage(k: TargetKind) -> bool {
    matches!(k, TargetKind::Disk | TargetKind::Volume | TargetKind::Device | TargetKind::Benchmark)
}

fn severity(s: Severity) -> advisor_model::Severity {
    match s {
        Severity::Critical => advisor_model::Severity::Critical,
        Severity::Warning => advisor_model::Severity::Warning,
        Severity::Info => advisor_model::Severity::Info,
    }
}

/// The series rules have read, in stored units and finite, by target and metric: shared by
/// every rule of one [`evaluate`] (`None`: the context has no such series).
type StoredSeries = Option<(Times, Arc<Vec<f64>>)>;

#[derive(Default)]
struct SeriesCache {
    series: Mutex<HashMap<(TargetId, Metric), StoredSeries>>,
    /// The distinct time axes seen per capture: a new series whose time stamps equal one
    /// of them shares it, so operations between its targets' series pair by position.
    axes: Mutex<HashMap<usize, Vec<Times>>>,
}

impl SeriesCache {
    fn axis(&self, capture: usize, times: Vec<Option<i64>>) -> Times {
        let Ok(mut axes) = self.axes.lock() else { return Arc::new(times) };
        let known = axes.entry(capture).or_default();
        if let Some(a) = known.iter().find(|a| ***a == times) {
            return a.clone();
        }
        let a = Arc::new(times);
        known.push(a.clone());
        a
    }
}

/// Evaluates one rule for every subject of its scope.
pub fn evaluate_rule(rule: &CheckedRule, ctx: &dyn Context) -> Outcome {
    evaluate_rule_with(rule, ctx, &SeriesCache::default())
}

fn evaluate_rule_with(rule: &CheckedRule, ctx: &dyn Context, cache: &SeriesCache) -> Outcome {
    let mut out = Outcome::default();
    let subs = match subjects(rule.scope, ctx) {
        Ok(s) => s,
        Err(reason) => {
            out.not_evaluated.push(NotEvaluated {
                rule: rule.id.clone(),
                subject: None,
                reason: reason.to_owned(),
            });
            return out;
        }
    };
    let mut skipped: Vec<(String, String)> = Vec::new();
    for sub in &subs {
        let mut env = Env::new(rule, ctx, *sub, cache);
        let name = env.subject_name();
        match env.eval(&rule.when) {
            Ok(V::Bool(true)) => out.findings.push(env.finding(name)),
            Ok(V::Bool(false)) => {}
            Ok(v) => {
                skipped.push((name, format!("the condition gave {}, not a bool", v.describe())))
            }
            Err(Missing(reason)) => skipped.push((name, reason)),
        }
    }
    // One line per distinct reason: for the whole rule when every subject shares it, else
    // naming the subjects it applies to.
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for (name, reason) in skipped {
        match groups.iter_mut().find(|(r, _)| *r == reason) {
            Some((_, names)) => names.push(name),
            None => groups.push((reason, vec![name])),
        }
    }
    let whole = groups.len() == 1
        && groups[0].1.len() == subs.len()
        && (subs.len() > 1 || rule.scope == Scope::Vm);
    for (reason, names) in groups {
        let subject = (!whole).then(|| names.join(", "));
        out.not_evaluated.push(NotEvaluated { rule: rule.id.clone(), subject, reason });
    }
    sort(&mut out);
    out
}

/// One rule evaluated for one subject.
struct Env<'a> {
    rule: &'a CheckedRule,
    ctx: &'a dyn Context,
    cache: &'a SeriesCache,
    scope: Option<Elem>,
    overs: Vec<Elem>,
    lets: Vec<Option<R<V>>>,
    /// Whether each let used a tool's own percentile.
    let_source: Vec<bool>,
    /// Set when a source percentile was used since the last reset.
    used_source: bool,
}

impl<'a> Env<'a> {
    fn new(
        rule: &'a CheckedRule,
        ctx: &'a dyn Context,
        scope: Option<Elem>,
        cache: &'a SeriesCache,
    ) -> Self {
        Env {
            rule,
            ctx,
            cache,
            scope,
            overs: Vec::new(),
            lets: vec![None; rule.lets.len()],
            let_source: vec![false; rule.lets.len()],
            used_source: false,
        }
    }

    fn subject_name(&self) -> String {
        match self.scope {
            None => "vm".to_owned(),
            Some(e) => self.elem_name(e),
        }
    }

    fn elem_name(&self, e: Elem) -> String {
        let c = self.ctx;
        match e {
            Elem::Disk(i) => c.disks().get(i).map(|d| d.limits.name.clone()),
            Elem::Pool(i) => c.pools().get(i).map(|p| p.limits.name.clone()),
            Elem::Bench(i) => c.benches().get(i).map(|b| b.name.clone()),
            Elem::Target(i) => c.targets().get(i).map(|t| t.name.clone()),
        }
        .unwrap_or_default()
    }

    /// How a reason names an element: "this disk" for the rule's own subject (the report
    /// shows which), else by name.
    fn label(&self, e: Elem) -> String {
        let temp = matches!(e, Elem::Disk(i) if self.ctx.disks().get(i).is_some_and(|d| d.temp));
        if Some(e) == self.scope {
            return match e {
                Elem::Disk(_) => "this disk",
                Elem::Pool(_) => "this pool",
                Elem::Bench(_) => "this benchmark target",
                Elem::Target(_) => "this target",
            }
            .to_owned();
        }
        let name = self.elem_name(e);
        match e {
            Elem::Disk(_) if temp => format!("the temp disk \"{name}\""),
            Elem::Disk(_) => format!("disk \"{name}\""),
            Elem::Pool(_) => format!("pool \"{name}\""),
            Elem::Bench(_) => format!("benchmark target \"{name}\""),
            Elem::Target(_) => format!("target \"{name}\""),
        }
    }

    fn src(&self, e: &TExpr) -> String {
        self.rule.source.get(e.span.start..e.span.end).unwrap_or("").trim().to_owned()
    }

    fn finding(&mut self, subject: String) -> Finding {
        let mut metrics = BTreeMap::new();
        // The first `case` whose condition holds (a missing one does not) replaces the
        // rule's severity and texts.
        let rule = self.rule;
        let chosen = rule.cases.iter().find(|c| matches!(self.eval(&c.when), Ok(V::Bool(true))));
        let (sev, title, evidence_parts, fix_parts) = match chosen {
            Some(c) => (c.severity, c.title.as_ref().unwrap_or(&rule.title), &c.evidence, &c.fix),
            None => (rule.severity, &rule.title, &rule.evidence, &rule.fix),
        };
        let evidence = self.template(evidence_parts, &mut metrics);
        let fix = self.template(fix_parts, &mut metrics);
        for i in 0..self.rule.lets.len() {
            let name = self.rule.lets[i].name.clone();
            let expr = self.rule.lets[i].expr.clone();
            if let Ok(V::Num(x)) = self.let_value(i) {
                let v = match format::name_unit(&name, expr.ty.dim) {
                    Some(factor) => x / factor,
                    None => format::display(&expr, self.rule, x, None).0,
                };
                if v.is_finite() {
                    metrics.insert(name.clone(), v);
                }
            }
            if self.let_source[i] {
                metrics.insert(format!("{name}.from_source"), 1.0);
            }
        }
        Finding {
            rule: self.rule.id.clone(),
            severity: severity(sev),
            subject,
            title: title.clone(),
            evidence,
            fix,
            metrics,
            refs: self.rule.refs.clone(),
        }
    }

    fn template(&mut self, parts: &[TPart], metrics: &mut BTreeMap<String, f64>) -> String {
        let mut out = String::new();
        for (i, p) in parts.iter().enumerate() {
            match p {
                TPart::Text(t) => out.push_str(t),
                TPart::Value { expr, decimals, label } => {
                    let next = match parts.get(i + 1) {
                        Some(TPart::Text(t)) => Some(t.as_str()),
                        _ => None,
                    };
                    self.used_source = false;
                    let v = self.eval(expr);
                    match v {
                        Ok(V::Num(x)) => {
                            let (shown, _) = format::display(expr, self.rule, x, next);
                            out.push_str(&format::number(shown, *decimals));
                            // A let is reported once, in the unit its name ends in or its
                            // display unit (below).
                            let is_let = self.rule.lets.iter().any(|l| l.name == *label);
                            if shown.is_finite() && !is_let {
                                metrics.entry(label.clone()).or_insert(shown);
                            }
                            if self.used_source {
                                metrics.insert(format!("{label}.from_source"), 1.0);
                            }
                        }
                        Ok(V::Bool(b)) => out.push_str(if b { "true" } else { "false" }),
                        Ok(V::Text(t)) => out.push_str(&t),
                        Ok(V::Cache(c)) => out.push_str(format::cache_name(c)),
                        Ok(V::Role(r)) => out.push_str(r.as_str()),
                        Ok(V::Elem(e)) => out.push_str(&self.elem_name(e)),
                        Ok(V::Nums(_) | V::Bools(_)) | Err(_) => out.push_str("n/a"),
                    }
                }
            }
        }
        out
    }

    fn let_value(&mut self, i: usize) -> R<V> {
        if let Some(Some(v)) = self.lets.get(i) {
            if self.let_source.get(i).copied().unwrap_or(false) {
                self.used_source = true;
            }
            return v.clone();
        }
        let Some(l) = self.rule.lets.get(i) else {
            return missing("internal: a let out of range");
        };
        let expr = l.expr.clone();
        let outer = std::mem::replace(&mut self.used_source, false);
        // A let is evaluated in the rule's scope, outside any `over`.
        let overs = std::mem::take(&mut self.overs);
        let v = self.eval(&expr);
        self.overs = overs;
        let used = self.used_source;
        self.used_source = outer || used;
        if let Some(slot) = self.let_source.get_mut(i) {
            *slot = used;
        }
        if let Some(slot) = self.lets.get_mut(i) {
            *slot = Some(v.clone());
        }
        v
    }

    fn eval(&mut self, e: &TExpr) -> R<V> {
        match &e.kind {
            TKind::Number(n) => Ok(V::Num(*n)),
            TKind::Bool(b) => Ok(V::Bool(*b)),
            TKind::Text(t) => Ok(V::Text(t.clone())),
            TKind::Cache(c) => Ok(V::Cache(*c)),
            TKind::Role(r) => Ok(V::Role(*r)),
            TKind::Ref(r) => self.reference(*r),
            TKind::Unary(op, x) => {
                let v = self.eval(x)?;
                match (op, v) {
                    (UnaryOp::Neg, V::Num(n)) => Ok(V::Num(-n)),
                    (UnaryOp::Neg, V::Nums(s)) => Ok(V::Nums(s.map(|x| -x))),
                    (UnaryOp::Not, V::Bool(b)) => Ok(V::Bool(!b)),
                    (UnaryOp::Not, V::Bools(s)) => Ok(V::Bools(s.map(|x| !x))),
                    (_, v) => missing(format!("`{}` gave {}", self.src(x), v.describe())),
                }
            }
            TKind::Binary(op, l, r) => self.binary(*op, l, r, e),
            TKind::Call(b, args) => self.call(*b, args, e),
            TKind::Aggregate { agg, over, body, filter } => {
                self.aggregate(*agg, *over, body, filter.as_deref())
            }
        }
    }

    // ---- references -------------------------------------------------------------------

    fn subject(&self, s: Subject) -> R<Elem> {
        match s {
            Subject::Scope => match self.scope {
                Some(e) => Ok(e),
                None => missing("internal: no element in a vm rule"),
            },
            Subject::Over(d) => match self.overs.get(d as usize) {
                Some(e) => Ok(*e),
                None => missing("internal: no element at this depth"),
            },
            Subject::TempDisk => self.temp_disk(),
            Subject::Vm | Subject::Host => missing("internal: not an element"),
        }
    }

    fn temp_disk(&self) -> R<Elem> {
        if !self.ctx.has_topology() {
            return missing("needs the temp disk's name: set [vm] temp_disk in --topology");
        }
        match self.ctx.disks().iter().position(|d| d.temp) {
            Some(i) => Ok(Elem::Disk(i)),
            None => missing("no temp disk in the topology: set [vm] temp_disk in --topology"),
        }
    }

    fn reference(&mut self, r: Ref) -> R<V> {
        match r {
            Ref::Param(i) => match self.rule.params.get(i).map(|p| p.value) {
                Some(Value::Number(n)) => Ok(V::Num(n)),
                Some(Value::Bool(b)) => Ok(V::Bool(b)),
                None => missing("internal: a parameter out of range"),
            },
            Ref::Let(i) => self.let_value(i),
            Ref::Element(s) => Ok(V::Elem(self.subject(s)?)),
            Ref::Field { of: Subject::Vm, field: Field::Vm(f) } => self.vm_field(f),
            Ref::Field { of, field } => {
                let e = self.subject(of)?;
                self.field(e, field)
            }
            Ref::Metric { of: Subject::Host, metric } => {
                let Some(t) = self.ctx.host() else {
                    let (what, how) = metric_help(metric);
                    return missing(format!("needs {what} ({how})"));
                };
                self.target_series(t, metric, "the host")
            }
            Ref::Metric { of, metric } => {
                let e = self.subject(of)?;
                self.metric(e, metric, matches!(of, Subject::Over(_)))
            }
        }
    }

    fn vm_field(&mut self, f: VmField) -> R<V> {
        if f == VmField::TempDisk {
            return Ok(V::Elem(self.temp_disk()?));
        }
        let Some(vm) = self.ctx.vm() else {
            return missing(NEEDS_VM);
        };
        let l = &vm.limits;
        let num = |x: Option<f64>, factor: f64, what: &str, key: &str| -> R<V> {
            match x {
                Some(x) if x.is_finite() => Ok(V::Num(x * factor)),
                _ => missing(format!(
                    "{} has no published {what}: set {key} in the topology's [vm] section",
                    l.size
                )),
            }
        };
        match f {
            VmField::Size => Ok(V::Text(l.size.clone())),
            // The series' leading capitals: `Mms` -> `M`, `DSv2` -> `DS`.
            VmField::Family => {
                let fam: String = l.series.chars().take_while(char::is_ascii_uppercase).collect();
                if fam.is_empty() {
                    missing(format!("the family of {} is unknown", l.size))
                } else {
                    Ok(V::Text(fam))
                }
            }
            VmField::CachedIops => num(l.cached_iops, 1.0, "cached IOPS limit", "cached_iops"),
            VmField::CachedMbps => {
                num(l.cached_mbps, AZURE_MB, "cached throughput limit", "cached_mbps")
            }
            VmField::UncachedIops => {
                num(l.uncached_iops, 1.0, "uncached IOPS limit", "uncached_iops")
            }
            VmField::UncachedMbps => {
                num(l.uncached_mbps, AZURE_MB, "uncached throughput limit", "uncached_mbps")
            }
            VmField::UncachedBurstIops => {
                num(l.uncached_burst_iops, 1.0, "uncached burst IOPS limit", "uncached_burst_iops")
            }
            VmField::UncachedBurstMbps => num(
                l.uncached_burst_mbps,
                AZURE_MB,
                "uncached burst throughput limit",
                "uncached_burst_mbps",
            ),
            VmField::CacheSize => num(l.cache_gib, GIB, "host cache size", "cache_gib"),
            VmField::TempSize => num(l.temp_gib, GIB, "temp disk size", "temp_gib"),
            VmField::MaxDataDisks => {
                num(l.max_data_disks.map(f64::from), 1.0, "data disk count", "max_data_disks")
            }
            VmField::Vcpu => num(l.vcpu.map(f64::from), 1.0, "vCPU count", "vcpu"),
            VmField::Memory => num(vm.memory_gib, GIB, "memory size", "memory_gib"),
            VmField::ProvisionedIops | VmField::ProvisionedMbps => {
                let (x, factor) = if f == VmField::ProvisionedIops {
                    (vm.provisioned_iops, 1.0)
                } else {
                    (vm.provisioned_mbps, AZURE_MB)
                };
                match x {
                    Some(x) => Ok(V::Num(x * factor)),
                    None if self.ctx.disks().iter().all(|d| d.temp) => missing(NO_DISKS),
                    None => missing(
                        "no disk's caps are known: give each disk's sku (or iops and mbps) in --topology",
                    ),
                }
            }
            VmField::TempDisk => Ok(V::Elem(self.temp_disk()?)),
        }
    }

    fn field(&self, e: Elem, f: Field) -> R<V> {
        let c = self.ctx;
        match (e, f) {
            (Elem::Disk(i), Field::Disk(f)) => {
                let Some(d) = c.disks().get(i) else { return missing("internal: disk") };
                let l = &d.limits;
                let what = self.label(e);
                let need = |x: Option<f64>, factor: f64, desc: &str, how: &str| -> R<V> {
                    match x {
                        Some(x) if x.is_finite() => Ok(V::Num(x * factor)),
                        _ => {
                            missing(format!("the {desc} of {what} is unknown: {how} in --topology"))
                        }
                    }
                };
                const CAPS: &str = "give its sku (or iops and mbps)";
                match f {
                    DiskField::Name => Ok(V::Text(l.name.clone())),
                    DiskField::Sku => match &l.sku {
                        Some(s) => Ok(V::Text(s.clone())),
                        None => missing(format!(
                            "the SKU of {what} is unknown: give its sku in --topology"
                        )),
                    },
                    DiskField::Tier => match &d.tier {
                        Some(s) => Ok(V::Text(s.clone())),
                        None => missing(format!(
                            "the tier of {what} is unknown: give its sku in --topology"
                        )),
                    },
                    DiskField::Cache => Ok(V::Cache(cache_mode(l.cache))),
                    DiskField::CacheSetting => Ok(V::Cache(cache_mode(l.cache_setting))),
                    DiskField::CanCache => match l.can_cache {
                        Some(b) => Ok(V::Bool(b)),
                        None if l.kind.is_none() => missing(format!(
                            "whether {what} can use host caching is unknown: give its sku in --topology"
                        )),
                        None => missing(format!(
                            "whether {what} can use host caching depends on the VM size: {NEEDS_VM}"
                        )),
                    },
                    DiskField::WriteAccelerator => match l.write_accelerator {
                        Some(b) => Ok(V::Bool(b)),
                        None => missing(format!(
                            "whether Write Accelerator is on for {what} is unknown: set write_accelerator = true or false in its [[disk]] in --topology"
                        )),
                    },
                    DiskField::Role => Ok(V::Role(role(l.role))),
                    DiskField::Size => need(l.size_gib, GIB, "size", "give its sku"),
                    DiskField::IopsCap => need(l.iops, 1.0, "IOPS cap", CAPS),
                    DiskField::MbpsCap => need(l.mbps, AZURE_MB, "throughput cap", CAPS),
                    DiskField::BurstIops => need(
                        l.burst_iops,
                        1.0,
                        "burst IOPS cap",
                        "give a SKU that bursts (and bursting = true for on-demand)",
                    ),
                    DiskField::BurstMbps => need(
                        l.burst_mbps,
                        AZURE_MB,
                        "burst throughput cap",
                        "give a SKU that bursts (and bursting = true for on-demand)",
                    ),
                    DiskField::IsStandard => match l.kind {
                        Some(_) => Ok(V::Bool(l.is_standard())),
                        None => missing(format!(
                            "the disk type of {what} is unknown: give its sku in --topology"
                        )),
                    },
                    DiskField::InPool => Ok(V::Bool(l.pool.is_some())),
                }
            }
            (Elem::Pool(i), Field::Pool(f)) => {
                let Some(p) = c.pools().get(i) else { return missing("internal: pool") };
                let l = &p.limits;
                let what = self.label(e);
                let caps = |x: Option<f64>, factor: f64| -> R<V> {
                    match x {
                        Some(x) if l.unknown_members.is_empty() => Ok(V::Num(x * factor)),
                        _ => missing(format!(
                            "the caps of {what}'s members {} are unknown: describe each member disk with its sku in --topology",
                            l.unknown_members.join(", ")
                        )),
                    }
                };
                match f {
                    PoolField::Name => Ok(V::Text(l.name.clone())),
                    PoolField::Disks => Ok(V::Num(l.members.len() as f64)),
                    PoolField::Columns => match l.columns {
                        Some(n) => Ok(V::Num(f64::from(n))),
                        None => missing(format!(
                            "the column count of {what} is unknown: set columns in its [[pool]]"
                        )),
                    },
                    PoolField::Interleave => match l.interleave_kib {
                        Some(n) => Ok(V::Num(f64::from(n) * 1024.0)),
                        None => missing(format!(
                            "the interleave of {what} is unknown: set interleave_kib in its [[pool]]"
                        )),
                    },
                    PoolField::IopsCap => caps(l.sum_iops, 1.0),
                    PoolField::MbpsCap => caps(l.sum_mbps, AZURE_MB),
                }
            }
            (Elem::Bench(i), Field::Bench(BenchField::HostCache)) => {
                let Some(b) = c.benches().get(i) else { return missing("internal: bench") };
                // The topology disk whose capture targets include the run's target (a
                // DiskSpd file under `E:\`, fio's filename `/dev/sdc`).
                // A striped volume (`F:` over its members) goes through its members' caches:
                // the first cached member's, else None.
                let pool_cache = || {
                    let p = c.pools().iter().find(|p| p.targets.contains(&b.target))?;
                    let caches = p.members.iter().filter_map(|m| c.disks().get(*m));
                    Some(
                        caches
                            .map(|d| d.limits.cache)
                            .find(|x| x.is_cached())
                            .unwrap_or(advisor_topology::Cache::None),
                    )
                };
                let disk_cache = c
                    .disks()
                    .iter()
                    .find(|d| d.targets.contains(&b.target))
                    .map(|d| d.limits.cache);
                match disk_cache.or_else(pool_cache) {
                    Some(cache) => Ok(V::Cache(cache_mode(cache))),
                    None => missing(format!(
                        "the disk {} ran on is not in the topology: name its disk or pool in --topology as the benchmark does (DiskSpd E:\\..., fio filename /dev/sdc)",
                        self.label(e)
                    )),
                }
            }
            (Elem::Bench(i), Field::Bench(f)) => {
                let Some(b) = c.benches().get(i) else { return missing("internal: bench") };
                bench_field(b, f, &self.label(e))
            }
            (Elem::Target(i), Field::Target(f @ (TargetField::Disks | TargetField::MbpsCap))) => {
                let Some(t) = c.targets().get(i) else { return missing("internal: target") };
                self.target_topology(t.id, f, &self.label(e))
            }
            (Elem::Target(i), Field::Target(f)) => {
                let Some(t) = c.targets().get(i) else { return missing("internal: target") };
                Ok(V::Text(match f {
                    TargetField::Name => t.name.clone(),
                    TargetField::Disks | TargetField::MbpsCap => String::new(),
                    TargetField::Kind => match t.kind {
                        TargetKind::Disk => "disk",
                        TargetKind::Volume => "volume",
                        TargetKind::Device => "device",
                        TargetKind::Benchmark => "benchmark",
                        TargetKind::Aggregate => "aggregate",
                        TargetKind::Host => "host",
                    }
                    .to_owned(),
                }))
            }
            _ => missing("internal: a field of another kind of element"),
        }
    }

    /// `target.disks` and `target.mbps_cap`: the topology disks a capture target stands
    /// for (a pool's members when it is the pool's volume, else the one disk it matches).
    fn target_topology(&self, id: TargetId, f: TargetField, what: &str) -> R<V> {
        let c = self.ctx;
        let (n, mbps) = if let Some(p) = c.pools().iter().find(|p| p.targets.contains(&id)) {
            let sum = p.limits.sum_mbps.filter(|_| p.limits.unknown_members.is_empty());
            (p.members.len(), sum)
        } else if let Some(d) = c.disks().iter().find(|d| !d.temp && d.targets.contains(&id)) {
            (1, d.limits.mbps)
        } else {
            return missing(format!(
                "{what} matches no topology disk or pool: name it in --topology as the capture does"
            ));
        };
        match f {
            TargetField::Disks => Ok(V::Num(n as f64)),
            _ => match mbps {
                Some(m) => Ok(V::Num(m * AZURE_MB)),
                None => missing(format!(
                    "the MB/s cap behind {what} is unknown: give the disks' sku in --topology"
                )),
            },
        }
    }

    /// The capture targets behind an element, preferred first.
    fn elem_targets(&self, e: Elem) -> R<Vec<TargetId>> {
        let c = self.ctx;
        match e {
            Elem::Disk(i) => {
                let Some(d) = c.disks().get(i) else { return missing("internal: disk") };
                if d.targets.is_empty() {
                    let what = self.label(e);
                    let why = match &d.limits.pool {
                        Some(p) => format!(
                            "no capture target matches {what} (a member of pool \"{p}\"): capture the disk itself, not only the volume"
                        ),
                        None => format!(
                            "no capture target matches {what}: name it in --topology as the capture does (PerfMon `1 E:` or `E:`, iostat `sdc`)"
                        ),
                    };
                    return missing(why);
                }
                Ok(d.targets.clone())
            }
            Elem::Pool(i) => Ok(c.pools().get(i).map(|p| p.targets.clone()).unwrap_or_default()),
            Elem::Bench(i) => Ok(c.benches().get(i).map(|b| vec![b.target]).unwrap_or_default()),
            Elem::Target(i) => Ok(c.targets().get(i).map(|t| vec![t.id]).unwrap_or_default()),
        }
    }

    /// A metric of an element. `split`: inside a collection, a pool member disk that no
    /// capture names stands for its share of the pool's volume (the stripe spreads IO
    /// evenly), so `sum(iops) over disks` counts a pool seen only through its volume.
    fn metric(&mut self, e: Elem, m: Metric, split: bool) -> R<V> {
        let name = self.label(e);
        if let Elem::Pool(i) = e
            && self.ctx.pools().get(i).is_some_and(|p| p.targets.is_empty())
        {
            return self.pool_from_members(i, m);
        }
        if split
            && let Elem::Disk(d) = e
            && let Some(share) = self.member_share(d, m)
        {
            return share;
        }
        let targets = self.elem_targets(e)?;
        let mut first_err = None;
        for t in targets {
            match self.target_series(t, m, &name) {
                Ok(v) => return Ok(v),
                Err(e) => {
                    first_err.get_or_insert(e);
                }
            }
        }
        Err(first_err.unwrap_or_else(|| {
            let (what, how) = metric_help(m);
            Missing(format!("needs {what} for {name} ({how})"))
        }))
    }

    /// A pool member without targets of its own, as its share of the pool volume's series.
    fn member_share(&mut self, d: usize, m: Metric) -> Option<R<V>> {
        let disk = self.ctx.disks().get(d)?;
        if !disk.targets.is_empty() {
            return None;
        }
        let (pi, pool) =
            self.ctx.pools().iter().enumerate().find(|(_, p)| p.members.contains(&d))?;
        if pool.targets.is_empty() || pool.members.is_empty() {
            return None;
        }
        let n = pool.members.len() as f64;
        Some(self.metric(Elem::Pool(pi), m, false).map(|v| match v {
            V::Nums(s) if is_additive(m) => V::Nums(s.map(|x| x / n)),
            v => v,
        }))
    }

    /// A pool without a volume target: additive metrics summed over its members.
    fn pool_from_members(&mut self, i: usize, m: Metric) -> R<V> {
        let Some(p) = self.ctx.pools().get(i) else { return missing("internal: pool") };
        let (name, members) = (p.limits.name.clone(), p.members.clone());
        if !is_additive(m) || members.is_empty() {
            return missing(format!(
                "no capture target matches the volume of pool \"{name}\": name the pool in --topology as the capture names its volume"
            ));
        }
        let mut acc: Option<S<f64>> = None;
        for d in members {
            let V::Nums(s) = self.metric(Elem::Disk(d), m, false)? else {
                return missing("internal: a metric that is not a series");
            };
            acc = Some(match acc {
                None => s,
                Some(a) => a.join(&s, |x, y| x + y),
            });
        }
        match acc {
            Some(s) if !s.is_empty() => Ok(V::Nums(s)),
            _ => missing(format!("pool \"{name}\"'s members share no sample times")),
        }
    }

    fn target_series(&mut self, t: TargetId, m: Metric, name: &str) -> R<V> {
        let Some((times, vals)) = self.stored_series(t, m) else {
            let (what, how) = metric_help(m);
            return missing(format!("needs {what} for {name} ({how})"));
        };
        if vals.is_empty() {
            return missing(format!("no samples of {} for {name}", m.name()));
        }
        Ok(V::Nums(S { times, vals, interval: self.ctx.interval_s(t) }))
    }

    /// A target's series in stored units, finite points only: converted once per
    /// [`evaluate`], then shared.
    fn stored_series(&self, t: TargetId, m: Metric) -> StoredSeries {
        if let Ok(cache) = self.cache.series.lock()
            && let Some(s) = cache.get(&(t, m))
        {
            return s.clone();
        }
        let stored = self.ctx.series_columns(t, m).map(|(mut times, mut vals)| {
            if vals.iter().any(|v| !v.is_finite()) {
                let keep: Vec<bool> = vals.iter().map(|v| v.is_finite()).collect();
                let mut k = keep.iter();
                times.retain(|_| k.next().copied().unwrap_or(false));
                vals.retain(|v| v.is_finite());
            }
            to_stored_all(m.unit(), &mut vals);
            (self.cache.axis(t.capture, times), Arc::new(vals))
        });
        if let Ok(mut cache) = self.cache.series.lock() {
            cache.insert((t, m), stored.clone());
        }
        stored
    }

    // ---- operators ----------------------------------------------------------------------

    fn binary(&mut self, op: BinaryOp, l: &TExpr, r: &TExpr, whole: &TExpr) -> R<V> {
        match op {
            BinaryOp::And | BinaryOp::Or => return self.logic(op, l, r, whole.ty.series),
            _ => {}
        }
        let a = self.eval(l)?;
        let b = self.eval(r)?;
        match op {
            BinaryOp::Add => num_op(a, b, |x, y| x + y),
            BinaryOp::Sub => num_op(a, b, |x, y| x - y),
            BinaryOp::Mul => num_op(a, b, |x, y| x * y),
            BinaryOp::Div => {
                if let V::Num(y) = b
                    && y == 0.0
                {
                    return missing(format!(
                        "division by zero: `{}` is 0 in `{}`",
                        self.src(r),
                        self.src(whole)
                    ));
                }
                num_op(a, b, |x, y| x / y)
            }
            BinaryOp::Lt => cmp_op(a, b, |x, y| x < y),
            BinaryOp::Le => cmp_op(a, b, |x, y| x <= y),
            BinaryOp::Gt => cmp_op(a, b, |x, y| x > y),
            BinaryOp::Ge => cmp_op(a, b, |x, y| x >= y),
            BinaryOp::Eq | BinaryOp::Ne => {
                let ne = op == BinaryOp::Ne;
                match (a, b) {
                    (a @ (V::Num(_) | V::Nums(_)), b @ (V::Num(_) | V::Nums(_))) => {
                        cmp_op(a, b, move |x, y| approx_eq(x, y) != ne)
                    }
                    (V::Bools(s), V::Bool(y)) | (V::Bool(y), V::Bools(s)) => {
                        Ok(V::Bools(s.map(|x| (x == y) != ne)))
                    }
                    (V::Bools(s), V::Bools(t)) => Ok(V::Bools(s.join(&t, |x, y| (x == y) != ne))),
                    (a, b) => {
                        let eq = match (&a, &b) {
                            (V::Bool(x), V::Bool(y)) => x == y,
                            (V::Text(x), V::Text(y)) => x.eq_ignore_ascii_case(y),
                            (V::Cache(x), V::Cache(y)) => x == y,
                            (V::Role(x), V::Role(y)) => x == y,
                            _ => {
                                return missing(format!(
                                    "cannot compare {} with {}",
                                    a.describe(),
                                    b.describe()
                                ));
                            }
                        };
                        Ok(V::Bool(eq != ne))
                    }
                }
            }
            BinaryOp::And | BinaryOp::Or => missing("internal: logic"),
        }
    }

    /// `and` / `or`: short-circuit, three-valued (a missing side decides nothing). A
    /// deciding scalar beside a bool series is that value at the series' times, so
    /// `share`, `duration` and `sustained` still see how long the capture is; when the
    /// other side is missing it stays a scalar (`false and missing` is false).
    fn logic(&mut self, op: BinaryOp, l: &TExpr, r: &TExpr, series: bool) -> R<V> {
        let is_and = op == BinaryOp::And;
        let a = self.eval(l);
        if let Ok(V::Bool(x)) = a
            && x != is_and
        {
            if !series {
                return Ok(V::Bool(x));
            }
            return Ok(match self.eval(r) {
                Ok(V::Bools(s)) => V::Bools(s.map(move |_| x)),
                _ => V::Bool(x),
            });
        }
        let b = self.eval(r);
        match (a, b) {
            (Ok(V::Bool(_)), Ok(V::Bool(y))) => Ok(V::Bool(y)),
            (Ok(V::Bools(s)), Ok(V::Bool(y))) if y != is_and => Ok(V::Bools(s.map(move |_| y))),
            (_, Ok(V::Bool(y))) if y != is_and => Ok(V::Bool(y)),
            (Err(e), _) => Err(e),
            (_, Err(e)) => Err(e),
            (Ok(x), Ok(y)) => {
                let f = move |p: bool, q: bool| if is_and { p && q } else { p || q };
                bool_op(x, y, f)
            }
        }
    }

    // ---- functions ----------------------------------------------------------------------

    fn call(&mut self, b: Builtin, args: &[TExpr], whole: &TExpr) -> R<V> {
        if b == Builtin::Exists {
            let Some(a) = args.first() else { return Ok(V::Bool(false)) };
            return Ok(V::Bool(match self.eval(a) {
                Ok(V::Nums(s)) => !s.is_empty(),
                Ok(V::Bools(s)) => !s.is_empty(),
                Ok(_) => true,
                Err(_) => false,
            }));
        }
        if b == Builtin::Coalesce {
            let (Some(a), Some(fallback)) = (args.first(), args.get(1)) else {
                return missing("internal: coalesce() takes two arguments");
            };
            return match self.eval(a) {
                Ok(v) => Ok(v),
                Err(_) => self.eval(fallback),
            };
        }
        if b == Builtin::If {
            // Lazy: only the chosen value is evaluated, so the other may be missing.
            let (Some(c), Some(x), Some(y)) = (args.first(), args.get(1), args.get(2)) else {
                return missing("internal: if() without three arguments");
            };
            return match self.eval(c)? {
                V::Bool(true) => self.eval(x),
                V::Bool(false) => self.eval(y),
                v => missing(format!("if() of {}", v.describe())),
            };
        }
        if b.is_time_aggregate() {
            return self.time_aggregate(b, args, whole);
        }
        let mut vals = Vec::with_capacity(args.len());
        for a in args {
            vals.push(self.eval(a)?);
        }
        let mut it = vals.into_iter();
        let a = it.next();
        let c = it.next();
        let d = it.next();
        match (b, a, c, d) {
            (Builtin::Sustained, Some(cond), Some(V::Num(dur)), _) => match cond {
                // A constant (`x and false`, `x or true` with `x` missing): never held, or
                // held for an unknown time.
                V::Bool(false) => Ok(V::Bool(false)),
                V::Bool(true) => missing(self.constant_true(args)),
                V::Bools(s) if s.is_empty() => {
                    missing(format!("no common samples in `{}`", self.src(&args[0])))
                }
                V::Bools(s) => {
                    let Some(iv) = s.interval_s() else {
                        return missing(self.no_interval(args));
                    };
                    Ok(V::Bool(value::longest_run_s(&s, iv) + 1e-9 >= dur))
                }
                v => missing(format!("sustained() of {}", v.describe())),
            },
            (Builtin::Share, Some(cond), _, _) => match cond {
                V::Bool(x) => Ok(V::Num(if x { 1.0 } else { 0.0 })),
                V::Bools(s) if s.is_empty() => {
                    missing(format!("no common samples in `{}`", self.src(&args[0])))
                }
                V::Bools(s) => {
                    let n = s.vals.iter().filter(|x| **x).count();
                    Ok(V::Num(n as f64 / s.len() as f64))
                }
                v => missing(format!("share() of {}", v.describe())),
            },
            (Builtin::Duration, Some(cond), _, _) => match cond {
                V::Bool(false) => Ok(V::Num(0.0)),
                V::Bool(true) => missing(self.constant_true(args)),
                V::Bools(s) if s.is_empty() => {
                    missing(format!("no common samples in `{}`", self.src(&args[0])))
                }
                V::Bools(s) => {
                    let Some(iv) = s.interval_s() else {
                        return missing(self.no_interval(args));
                    };
                    let n = s.vals.iter().filter(|x| **x).count();
                    Ok(V::Num(n as f64 * iv))
                }
                _ => missing(self.no_interval(args)),
            },
            (Builtin::Min2, Some(x), Some(y), _) => num_op(x, y, f64::min),
            (Builtin::Max2, Some(x), Some(y), _) => num_op(x, y, f64::max),
            (Builtin::Abs, Some(x), _, _) => match x {
                V::Num(n) => Ok(V::Num(n.abs())),
                V::Nums(s) => Ok(V::Nums(s.map(f64::abs))),
                v => missing(format!("abs() of {}", v.describe())),
            },
            (Builtin::Ratio, Some(x), Some(y), _) => {
                if let V::Num(den) = y
                    && den == 0.0
                {
                    return missing(format!(
                        "division by zero: `{}` is 0 in `{}`",
                        self.src(&args[1]),
                        self.src(whole)
                    ));
                }
                num_op(x, y, |p, q| p / q)
            }
            (Builtin::Between, Some(x), Some(lo), Some(hi)) => {
                let ge = cmp_op(x.clone(), lo, |p, q| p >= q)?;
                let le = cmp_op(x, hi, |p, q| p <= q)?;
                bool_op(ge, le, |p, q| p && q)
            }
            _ => missing(format!("internal: {} with these arguments", b.spec().name)),
        }
    }

    fn constant_true(&self, args: &[TExpr]) -> String {
        let what = args.first().map(|a| self.src(a)).unwrap_or_default();
        format!("`{what}` is true with no samples to time it by: capture the series it combines")
    }

    fn no_interval(&self, args: &[TExpr]) -> String {
        let what = args.first().map(|a| self.src(a)).unwrap_or_default();
        format!(
            "`{what}` needs samples over time with a known interval (a benchmark summary has one row)"
        )
    }

    fn time_aggregate(&mut self, b: Builtin, args: &[TExpr], whole: &TExpr) -> R<V> {
        let Some(arg) = args.first() else { return missing("internal: no argument") };
        let p = match b {
            Builtin::Pct => match args.get(1).map(|a| self.eval(a)) {
                Some(Ok(V::Num(p))) => Some(p),
                Some(Err(e)) => return Err(e),
                _ => return missing("internal: pct without P"),
            },
            _ => b.percentile(),
        };
        let v = self.eval(arg)?;
        let s = match v {
            V::Num(x) => return Ok(V::Num(x)),
            V::Nums(s) => s,
            v => return missing(format!("{}() of {}", b.spec().name, v.describe())),
        };
        // A latency metric's percentile: the tool's own when the target has it.
        let latency_dir = match &arg.kind {
            TKind::Ref(Ref::Metric { of, metric }) => {
                latency_direction(*metric).map(|d| (*of, *metric, d))
            }
            _ => None,
        };
        // `max` of a latency is the tool's 100th percentile where it has one.
        let src_p = p.or((b == Builtin::Max).then_some(100.0));
        if let (Some(p), Some((of, _, dirs))) = (src_p, latency_dir)
            && let Some(x) = self.source_pct(of, dirs, p)?
        {
            self.used_source = true;
            return Ok(V::Num(x / 1000.0));
        }
        let values: &[f64] = &s.vals;
        if values.is_empty() {
            return missing(format!("no common samples in `{}`", self.src(arg)));
        }
        if let (Some(p), Some((_, metric, _))) = (src_p, latency_dir)
            && s.len() == 1
            && s.times.first().is_some_and(Option::is_none)
            && p > 50.0
        {
            return missing(format!(
                "`{}` needs the benchmark's own latency percentiles for {} (DiskSpd -L, fio's clat percentiles): a summary has one average",
                self.src(whole),
                metric.name()
            ));
        }
        let x = match b {
            Builtin::Avg => values.iter().sum::<f64>() / values.len() as f64,
            Builtin::Min => values.iter().copied().fold(f64::INFINITY, f64::min),
            Builtin::Max => values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            _ => match p.and_then(|p| value::percentile(values, p)) {
                Some(x) => x,
                None => return missing(format!("no samples in `{}`", self.src(arg))),
            },
        };
        if x.is_finite() {
            Ok(V::Num(x))
        } else {
            missing(format!("`{}` is not a number", self.src(whole)))
        }
    }

    /// The source percentile of a latency metric of `of`, in ms; `Ok(None)` when the
    /// target has none (use the series).
    fn source_pct(&self, of: Subject, dirs: &[Direction], p: f64) -> R<Option<f64>> {
        let targets = match of {
            Subject::Host | Subject::Vm => return Ok(None),
            s => match self.subject(s).and_then(|e| self.elem_targets(e)) {
                Ok(t) => t,
                Err(_) => return Ok(None),
            },
        };
        for t in targets {
            for d in dirs {
                if let Some(x) = self.ctx.source_percentile(t, *d, p)
                    && x.is_finite()
                {
                    return Ok(Some(x));
                }
            }
        }
        Ok(None)
    }

    // ---- collections --------------------------------------------------------------------

    fn aggregate(
        &mut self,
        agg: CollectionAgg,
        over: Collection,
        body: &TExpr,
        filter: Option<&TExpr>,
    ) -> R<V> {
        let ctx = self.ctx;
        let elems: Vec<Elem> = match over {
            Collection::Disks => {
                if !ctx.has_topology() || ctx.disks().is_empty() {
                    return missing(NO_DISKS);
                }
                (0..ctx.disks().len()).map(Elem::Disk).collect()
            }
            Collection::Pools => (0..ctx.pools().len()).map(Elem::Pool).collect(),
            Collection::Benches => (0..ctx.benches().len()).map(Elem::Bench).collect(),
            Collection::Targets => {
                let v: Vec<Elem> = ctx
                    .targets()
                    .iter()
                    .enumerate()
                    .filter(|(_, t)| is_storage(t.kind))
                    .map(|(i, _)| Elem::Target(i))
                    .collect();
                if v.is_empty() {
                    return missing(NO_TARGETS);
                }
                v
            }
            Collection::PoolMembers { of } => match self.subject(of)? {
                Elem::Pool(i) => ctx.pools().get(i).map(|p| p.members.clone()).unwrap_or_default(),
                _ => return missing("internal: pool.members of another element"),
            }
            .into_iter()
            .map(Elem::Disk)
            .collect(),
        };
        let mut vals: Vec<V> = Vec::new();
        let mut first_missing: Option<Missing> = None;
        let mut passed = 0usize;
        for e in elems {
            self.overs.push(e);
            let keep = match filter.map(|f| self.eval(f)) {
                None | Some(Ok(V::Bool(true))) => Ok(true),
                Some(Ok(_)) => Ok(false),
                Some(Err(m)) => Err(m),
            };
            let r = match keep {
                Ok(true) => {
                    passed += 1;
                    Some(self.eval(body))
                }
                Ok(false) => None,
                Err(m) => Some(Err(m)),
            };
            self.overs.pop();
            match r {
                None => {}
                Some(Ok(v)) => vals.push(v),
                Some(Err(m)) => {
                    first_missing.get_or_insert(m);
                }
            }
        }
        if vals.is_empty() {
            if let Some(m) = first_missing {
                return Err(m);
            }
            let _ = passed;
            return match agg {
                CollectionAgg::Sum | CollectionAgg::Count => Ok(V::Num(0.0)),
                CollectionAgg::Any => Ok(V::Bool(false)),
                CollectionAgg::All => Ok(V::Bool(true)),
                CollectionAgg::Avg | CollectionAgg::Min | CollectionAgg::Max => missing(format!(
                    "no {} to take the {} of{}",
                    collection_name(over),
                    agg.name(),
                    if filter.is_some() { " (none passes `where`)" } else { "" }
                )),
            };
        }
        let n = vals.len() as f64;
        match agg {
            CollectionAgg::Count => {
                let mut acc = V::Num(0.0);
                for v in vals {
                    let one = match v {
                        V::Elem(_) => V::Num(1.0),
                        V::Bool(b) => V::Num(if b { 1.0 } else { 0.0 }),
                        V::Bools(s) => V::Nums(s.map(|b| if b { 1.0 } else { 0.0 })),
                        v => return missing(format!("count() of {}", v.describe())),
                    };
                    acc = num_op(acc, one, |x, y| x + y)?;
                }
                Ok(acc)
            }
            CollectionAgg::Any | CollectionAgg::All => {
                let is_all = agg == CollectionAgg::All;
                let mut it = vals.into_iter();
                let mut acc = it.next().unwrap_or(V::Bool(is_all));
                for v in it {
                    acc = bool_op(acc, v, move |p, q| if is_all { p && q } else { p || q })?;
                }
                Ok(acc)
            }
            CollectionAgg::Sum | CollectionAgg::Avg | CollectionAgg::Min | CollectionAgg::Max => {
                let f: fn(f64, f64) -> f64 = match agg {
                    CollectionAgg::Min => f64::min,
                    CollectionAgg::Max => f64::max,
                    _ => |x, y| x + y,
                };
                let mut it = vals.into_iter();
                let mut acc = it.next().unwrap_or(V::Num(0.0));
                for v in it {
                    acc = num_op(acc, v, f)?;
                }
                if let V::Nums(s) = &acc
                    && s.is_empty()
                {
                    return missing(format!(
                        "the {} share no sample times: capture them together",
                        collection_name(over)
                    ));
                }
                if agg == CollectionAgg::Avg {
                    acc = num_op(acc, V::Num(n), |x, y| x / y)?;
                }
                Ok(acc)
            }
        }
    }
}

/// Metrics that add up across disks (and split evenly over a stripe's members).
fn is_additive(m: Metric) -> bool {
    use Metric::*;
    matches!(
        m,
        Iops | ReadIops
            | WriteIops
            | Mbps
            | ReadMbps
            | WriteMbps
            | QueueDepth
            | ReadQueueDepth
            | WriteQueueDepth
    )
}

fn collection_name(c: Collection) -> &'static str {
    match c {
        Collection::Disks => "disks",
        Collection::Pools => "pools",
        Collection::Targets => "targets",
        Collection::Benches => "benchmark targets",
        Collection::PoolMembers { .. } => "pool members",
    }
}

fn approx_eq(x: f64, y: f64) -> bool {
    (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0)
}

fn num_op(a: V, b: V, f: impl Fn(f64, f64) -> f64) -> R<V> {
    match (a, b) {
        (V::Num(x), V::Num(y)) => {
            let z = f(x, y);
            if z.is_finite() { Ok(V::Num(z)) } else { missing("a computation gave no number") }
        }
        (V::Nums(s), V::Num(y)) => Ok(V::Nums(s.map(|x| f(x, y)).finite())),
        (V::Num(x), V::Nums(s)) => Ok(V::Nums(s.map(|y| f(x, y)).finite())),
        (V::Nums(s), V::Nums(t)) => Ok(V::Nums(s.join(&t, f).finite())),
        (a, b) => missing(format!("arithmetic on {} and {}", a.describe(), b.describe())),
    }
}

fn cmp_op(a: V, b: V, f: impl Fn(f64, f64) -> bool) -> R<V> {
    match (a, b) {
        (V::Num(x), V::Num(y)) => Ok(V::Bool(f(x, y))),
        (V::Nums(s), V::Num(y)) => Ok(V::Bools(s.map(|x| f(x, y)))),
        (V::Num(x), V::Nums(s)) => Ok(V::Bools(s.map(|y| f(x, y)))),
        (V::Nums(s), V::Nums(t)) => Ok(V::Bools(s.join(&t, f))),
        (a, b) => missing(format!("comparison of {} and {}", a.describe(), b.describe())),
    }
}

fn bool_op(a: V, b: V, f: impl Fn(bool, bool) -> bool) -> R<V> {
    match (a, b) {
        (V::Bool(x), V::Bool(y)) => Ok(V::Bool(f(x, y))),
        (V::Bools(s), V::Bool(y)) => Ok(V::Bools(s.map(|x| f(x, y)))),
        (V::Bool(x), V::Bools(s)) => Ok(V::Bools(s.map(|y| f(x, y)))),
        (V::Bools(s), V::Bools(t)) => Ok(V::Bools(s.join(&t, f))),
        (a, b) => missing(format!("logic on {} and {}", a.describe(), b.describe())),
    }
}

fn role(r: advisor_topology::Role) -> Role {
    match r {
        advisor_topology::Role::Os => Role::Os,
        advisor_topology::Role::Data => Role::Data,
        advisor_topology::Role::Log => Role::Log,
        advisor_topology::Role::Tempdb => Role::Tempdb,
        advisor_topology::Role::Temp => Role::Temp,
        advisor_topology::Role::Other => Role::Other,
    }
}

fn cache_mode(c: advisor_topology::Cache) -> CacheMode {
    match c {
        advisor_topology::Cache::None => CacheMode::None,
        advisor_topology::Cache::ReadOnly => CacheMode::ReadOnly,
        advisor_topology::Cache::ReadWrite => CacheMode::ReadWrite,
    }
}

fn bench_field(b: &BenchInfo, f: BenchField, label: &str) -> R<V> {
    let s = &b.settings;
    let need = |x: Option<f64>, what: &str| -> R<V> {
        match x {
            Some(x) if x.is_finite() => Ok(V::Num(x)),
            _ => missing(format!("the benchmark output for {label} does not state its {what}")),
        }
    };
    let flag = |x: Option<bool>, what: &str| -> R<V> {
        match x {
            Some(x) => Ok(V::Bool(x)),
            None => missing(format!("the benchmark output for {label} does not state {what}")),
        }
    };
    match f {
        BenchField::Tool => Ok(V::Text(s.tool.clone())),
        BenchField::Engine => match &s.engine {
            Some(e) => Ok(V::Text(e.clone())),
            None => {
                missing(format!("the benchmark output for {label} does not state its IO engine"))
            }
        },
        BenchField::BlockSize => need(s.block_size_kib.map(|k| k * 1024.0), "block size"),
        BenchField::QueueDepth => need(s.queue_depth_per_thread.map(f64::from), "queue depth"),
        BenchField::Threads => need(s.threads.map(f64::from), "thread count"),
        BenchField::Outstanding => need(
            match (s.queue_depth_per_thread, s.threads) {
                (Some(q), Some(t)) => Some(f64::from(q) * f64::from(t)),
                _ => None,
            },
            "queue depth and thread count",
        ),
        BenchField::WriteRatio => need(s.write_pct.map(|p| p / 100.0), "write share"),
        BenchField::Random => flag(s.random, "whether IO was random"),
        BenchField::OsCache => {
            flag(s.os_cache_disabled.map(|d| !d), "whether the OS cache was bypassed")
        }
        BenchField::WriteThrough => flag(s.write_through, "whether writes went through"),
        // No `fsync=N` in the output means no explicit syncs.
        BenchField::SyncEvery => Ok(V::Num(s.sync_every.map_or(0.0, f64::from))),
        BenchField::FileSize => need(s.file_size_bytes.map(|b| b as f64), "file size"),
        BenchField::Duration => need(s.duration_s, "duration"),
        // fio's ramp_time defaults to 0: a fio run that states none had no warm-up.
        BenchField::Warmup => {
            need(s.warmup_s.or(s.tool.eq_ignore_ascii_case("fio").then_some(0.0)), "warm-up")
        }
        // Answered by the caller, which knows the topology's disks.
        BenchField::HostCache => missing("internal: bench.host_cache"),
    }
}

/// Nearest-rank percentile of the finite values (as `advisor_normalize::Stats`).
pub fn percentile_of(values: &[f64], p: f64) -> Option<f64> {
    value::percentile(values, p)
}

/// A frame value in the language's stored unit, rounded as a literal is: units below the
/// stored one divide (a capture's 35 % is 35 / 100, exactly the literal `35%`; 35 * 0.01
/// is 0.35000000000000003, above it), the others multiply by [`unit_factor`].
pub fn to_stored(u: Unit, v: f64) -> f64 {
    match u {
        Unit::Milliseconds => v / 1e3,
        Unit::Percent => v / 100.0,
        u => v * unit_factor(u),
    }
}

/// [`to_stored`] over a whole series, the unit looked at once.
fn to_stored_all(u: Unit, values: &mut [f64]) {
    match u {
        Unit::Milliseconds => values.iter_mut().for_each(|v| *v /= 1e3),
        Unit::Percent => values.iter_mut().for_each(|v| *v /= 100.0),
        u => {
            let f = unit_factor(u);
            values.iter_mut().for_each(|v| *v *= f);
        }
    }
}

/// From a metric's frame unit to the language's stored unit (a factor; [`to_stored`]
/// converts a value the way literals are converted).
pub fn unit_factor(u: Unit) -> f64 {
    match u {
        Unit::PerSecond | Unit::PagesPerSecond | Unit::Ios => 1.0,
        Unit::MibPerSecond | Unit::Mib => MIB,
        Unit::Milliseconds => 1e-3,
        Unit::Kib => 1024.0,
        Unit::Percent => 0.01,
    }
}

/// The directions whose source percentiles stand for a latency metric, in order of
/// preference (a job that only read has only read percentiles).
fn latency_direction(m: Metric) -> Option<&'static [Direction]> {
    match m {
        Metric::LatencyMs => Some(&[Direction::Total, Direction::Read, Direction::Write]),
        Metric::ReadLatencyMs => Some(&[Direction::Read]),
        Metric::WriteLatencyMs => Some(&[Direction::Write]),
        Metric::SyncLatencyMs => Some(&[Direction::Sync]),
        _ => None,
    }
}

/// What to capture to get a metric: `("a latency counter", "PerfMon ...; iostat ...")`.
pub fn metric_help(m: Metric) -> (&'static str, &'static str) {
    use Metric::*;
    match m {
        Iops | ReadIops | WriteIops => (
            "an IOPS counter",
            "PerfMon Disk Transfers/sec, Disk Reads/sec, Disk Writes/sec; iostat r/s w/s",
        ),
        Mbps | ReadMbps | WriteMbps => (
            "a throughput counter",
            "PerfMon Disk Bytes/sec, Disk Read Bytes/sec, Disk Write Bytes/sec; iostat rkB/s wkB/s",
        ),
        LatencyMs | ReadLatencyMs | WriteLatencyMs => (
            "a latency counter",
            "PerfMon Avg. Disk sec/Transfer, Avg. Disk sec/Read, Avg. Disk sec/Write; iostat -x r_await w_await",
        ),
        SyncLatencyMs => ("fio's sync latency", "a fio job with fsync=N or fdatasync=N"),
        ReadIoKib | WriteIoKib | IoKib => {
            ("an IO size counter", "PerfMon Avg. Disk Bytes/Transfer; iostat -x rareq-sz wareq-sz")
        }
        ReadQueueDepth | WriteQueueDepth | QueueDepth => {
            ("a queue depth counter", "PerfMon Avg. Disk Queue Length; iostat -x aqu-sz")
        }
        BusyPct => ("a busy-time counter", "PerfMon % Idle Time; iostat -x %util"),
        ReadPct => (
            "read and write IOPS counters",
            "PerfMon Disk Reads/sec and Disk Writes/sec; iostat r/s w/s",
        ),
        CpuPct => ("a CPU counter", "PerfMon \\Processor(_Total)\\% Processor Time; iostat -c"),
        AvailableMemoryMib => ("a memory counter", "PerfMon \\Memory\\Available MBytes"),
        PagesPerSec => ("a paging counter", "PerfMon \\Memory\\Pages/sec"),
        PagefileUsagePct => {
            ("paging counters", "PerfMon \\Paging File(*)\\% Usage and \\Memory\\Pages/sec")
        }
    }
}

#[cfg(test)]
mod tests;
