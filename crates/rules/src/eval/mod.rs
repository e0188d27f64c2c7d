//! The evaluator: runs checked rules against [`Facts`] and a [`SeriesSource`] and produces
//! findings and the rules it could not evaluate, with what to provide.
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

mod cache;
pub mod episodes;
mod facts;
mod fields;
mod format;
mod functions;
mod inferred;
mod operators;
mod run;
mod streams;
mod value;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use advisor_model::{Direction, Episode, EpisodeWindow, Finding, Metric, Scale, TargetKind, Unit};

pub use facts::{
    AxisOrPoints, BenchInfo, CatalogCaps, DiskInfo, Facts, FileInfo, KnownRanks, MemorySeries,
    PoolInfo, Series, SeriesSource, SizeCaps, SkuCaps, SourceValues, TargetId, TargetInfo, VmInfo,
};

use crate::ast::{BinaryOp, UnaryOp};
use crate::builtins::{Builtin, CollectionAgg};
use crate::check::{
    CheckedRule, Collection, Constant, Owner, Ref, TypedExpr, TypedExprKind, TypedPart,
};
use crate::types::{
    BenchField, CacheMode, DiskField, Field, FileField, PoolField, Role, Severity, TargetField,
    VmField,
};
pub use cache::metric_percentiles;
pub(crate) use cache::repeated_calls;
use cache::{SeriesCache, StoredSeries};
pub use run::{Outcome, evaluate, evaluate_rule};
use value::{Element, Missing, OrMissing, TimeSeries, Vals, Value, missing};

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

/// The reason for file rules without SQL Server's file statistics.
pub const NO_FILES: &str = "no SQL Server file statistics in the inputs: add the results of sys.dm_io_virtual_file_stats joined with sys.master_files (advisor's query: docs/formats.md, \"SQL Server file statistics: the query\")";

/// The reason for platform rules without Azure Monitor metrics.
pub const NO_PLATFORM: &str = "no Azure Monitor metrics in the inputs: add the JSON of `az monitor metrics list --resource VM_ID --interval PT1M --metrics \"VM Cached IOPS Consumed Percentage\" ... --output json`";

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

/// One rule evaluated for one subject.
struct Evaluation<'a> {
    rule: &'a CheckedRule,
    facts: &'a Facts,
    series: &'a dyn SeriesSource,
    cache: &'a SeriesCache,
    scope: Option<Element>,
    overs: Vec<Element>,
    lets: Vec<Option<OrMissing<Value>>>,
    /// Whether each let used a tool's own percentile.
    let_source: Vec<bool>,
    /// Set when a source percentile was used since the last reset.
    used_source: bool,
    /// The values of the rule's repeated calls ([`CheckedRule::repeated`]) worked out so
    /// far, and whether each used a source percentile: one frame for the subject and one
    /// for each element of the `over`s being evaluated, dropped with it.
    repeats: Vec<HashMap<usize, (OrMissing<Value>, bool)>>,
}

impl<'a> Evaluation<'a> {
    fn new(
        rule: &'a CheckedRule,
        (facts, series): (&'a Facts, &'a dyn SeriesSource),
        scope: Option<Element>,
        cache: &'a SeriesCache,
    ) -> Self {
        Evaluation {
            rule,
            facts,
            series,
            cache,
            scope,
            overs: Vec::new(),
            lets: vec![None; rule.lets.len()],
            let_source: vec![false; rule.lets.len()],
            used_source: false,
            repeats: vec![HashMap::new()],
        }
    }

    fn subject_name(&self) -> String {
        match self.scope {
            None => "vm".to_owned(),
            Some(e) => self.elem_name(e),
        }
    }

    fn elem_name(&self, e: Element) -> String {
        let c = self.facts;
        match e {
            Element::Disk(i) => c.disks.get(i).map(|d| d.limits.name.clone()),
            Element::Pool(i) => c.pools.get(i).map(|p| p.limits.name.clone()),
            Element::Bench(i) => c.benches.get(i).map(|b| b.name.clone()),
            Element::Target(i) => c.targets.get(i).map(|t| t.name.clone()),
            Element::File(i) => c.files.get(i).map(|f| f.name.clone()),
        }
        .unwrap_or_default()
    }

    /// How a reason names an element: "this disk" for the rule's own subject (the report
    /// shows which), else by name.
    fn label(&self, e: Element) -> String {
        let temp = matches!(e, Element::Disk(i) if self.facts.disks.get(i).is_some_and(|d| d.temp));
        if Some(e) == self.scope {
            return match e {
                Element::Disk(_) => "this disk",
                Element::Pool(_) => "this pool",
                Element::Bench(_) => "this benchmark target",
                Element::Target(_) => "this target",
                Element::File(_) => "this file",
            }
            .to_owned();
        }
        let name = self.elem_name(e);
        match e {
            Element::Disk(_) if temp => format!("the temp disk \"{name}\""),
            Element::Disk(_) => format!("disk \"{name}\""),
            Element::Pool(_) => format!("pool \"{name}\""),
            Element::Bench(_) => format!("benchmark target \"{name}\""),
            Element::Target(_) => format!("target \"{name}\""),
            Element::File(_) => format!("file \"{name}\""),
        }
    }

    fn src(&self, e: &TypedExpr) -> String {
        self.rule.source.get(e.span.start..e.span.end).unwrap_or("").trim().to_owned()
    }

    fn finding(&mut self, subject: String) -> Finding {
        let mut metrics = BTreeMap::new();
        // The first `case` whose condition holds (a missing one does not) replaces the
        // rule's severity and texts.
        let rule = self.rule;
        let chosen =
            rule.cases.iter().find(|c| matches!(self.eval(&c.when), Ok(Value::Bool(true))));
        let (sev, title, evidence_parts, fix_parts) = match chosen {
            Some(c) => (c.severity, c.title.as_ref().unwrap_or(&rule.title), &c.evidence, &c.fix),
            None => (rule.severity, &rule.title, &rule.evidence, &rule.fix),
        };
        let evidence = self.template(evidence_parts, &mut metrics);
        let fix = self.template(fix_parts, &mut metrics);
        for i in 0..self.rule.lets.len() {
            let name = &rule.lets[i].name;
            let expr = &rule.lets[i].expr;
            if let Ok(Value::Num(x)) = self.let_value(i) {
                let v = match format::name_unit(name, expr.ty.dim) {
                    Some(factor) => x / factor,
                    None => format::display(expr, self.rule, x, None).0,
                };
                if v.is_finite() {
                    metrics.insert(name.clone(), v);
                }
            }
            if self.let_source[i] {
                metrics.insert(format!("{name}.from_source"), 1.0);
            }
        }
        let (episodes, episode_window) = self.episodes().unwrap_or_default();
        Finding {
            id: format!("{}@{subject}", self.rule.id),
            rule: self.rule.id.clone(),
            severity: severity(sev),
            subject,
            title: title.clone(),
            evidence,
            fix,
            metrics,
            refs: self.rule.refs.clone(),
            episodes,
            episode_window,
            causes: Vec::new(),
            explained_by: Vec::new(),
            recommendation: None,
        }
    }

    /// The rule's `episodes`, computed on the subject's own series against the cap the
    /// rule judged by; `None` without `episodes`, without time stamps (a benchmark's
    /// summary row) or when a part is missing.
    fn episodes(&mut self) -> Option<(Vec<Episode>, Option<EpisodeWindow>)> {
        let rule = self.rule;
        let ep = rule.episodes.as_ref()?;
        let Ok(Value::Nums(s)) = self.eval(&ep.series) else { return None };
        let Ok(Value::Num(cap)) = self.eval(&ep.cap) else { return None };
        let Ok(Value::Num(ratio)) = self.eval(&ep.ratio) else { return None };
        let param = |i: usize| match rule.params.get(i).map(|p| p.value) {
            Some(Constant::Number(n)) => Some(n),
            _ => None,
        };
        let (gap_s, sustained_s) = (param(ep.gap)?, param(ep.sustained)?);
        let points: Vec<(i64, f64)> =
            s.times.iter().zip(s.vals.iter()).filter_map(|(t, v)| Some(((*t)?, *v))).collect();
        let interval = s.interval_s()?;
        let latency: Option<Vec<(i64, f64)>> = match ep.latency.as_ref().map(|l| self.eval(l)) {
            Some(Ok(Value::Nums(l))) => Some(
                l.times.iter().zip(l.vals.iter()).filter_map(|(t, v)| Some(((*t)?, *v))).collect(),
            ),
            _ => None,
        };
        let (first, last) = (points.first()?.0, points.last()?.0);
        let th = episodes::Thresholds { cap, ratio, gap_s, sustained_s };
        let (found, outside) = episodes::find(&points, interval, th, latency.as_deref());
        let (shown_cap, unit) = format::display(&ep.cap, rule, cap, None);
        // What was compared with the cap: a let's own expression rather than its name,
        // without the comment lines its span may run into, on one line.
        let series = match &ep.series.kind {
            TypedExprKind::Ref(Ref::Let(i)) => {
                rule.lets.get(*i).map_or_else(|| self.src(&ep.series), |l| self.src(&l.expr))
            }
            _ => self.src(&ep.series),
        };
        let series = series
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .collect::<Vec<_>>()
            .join(" ");
        let step = (interval * 1000.0).round() as i64;
        let window = EpisodeWindow {
            series,
            cap: episodes::round(shown_cap, 3),
            unit: unit.to_owned(),
            threshold_pct: episodes::round(ratio * 100.0, 1),
            gap_s,
            sustained_s,
            start: episodes::iso(first),
            end: episodes::iso(last + step),
            at_cap_s: found.iter().map(|f| (f.end_ms - f.start_ms) as f64 / 1000.0).sum(),
            latency_outside_ms: outside.map(|o| episodes::round(o * 1000.0, 3)),
        };
        Some((found.iter().map(episodes::to_model).collect(), Some(window)))
    }

    fn template(&mut self, parts: &[TypedPart], metrics: &mut BTreeMap<String, f64>) -> String {
        let mut out = String::new();
        for (i, p) in parts.iter().enumerate() {
            match p {
                TypedPart::Text(t) => out.push_str(t),
                TypedPart::Value { expr, decimals, label } => {
                    let next = match parts.get(i + 1) {
                        Some(TypedPart::Text(t)) => Some(t.as_str()),
                        _ => None,
                    };
                    self.used_source = false;
                    let v = self.eval(expr);
                    match v {
                        Ok(Value::Num(x)) => {
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
                        Ok(Value::Bool(b)) => out.push_str(if b { "true" } else { "false" }),
                        Ok(Value::Text(t)) => out.push_str(&t),
                        Ok(Value::Cache(c)) => out.push_str(format::cache_name(c)),
                        Ok(Value::Role(r)) => out.push_str(r.as_str()),
                        Ok(Value::Element(e)) => out.push_str(&self.elem_name(e)),
                        Ok(Value::Nums(_) | Value::Bools(_)) | Err(_) => out.push_str("n/a"),
                    }
                }
            }
        }
        out
    }

    fn let_value(&mut self, i: usize) -> OrMissing<Value> {
        if let Some(Some(v)) = self.lets.get(i) {
            if self.let_source.get(i).copied().unwrap_or(false) {
                self.used_source = true;
            }
            return v.clone();
        }
        // Borrowed from the rule, not from `self`: evaluated in place, not copied.
        let rule: &'a CheckedRule = self.rule;
        let Some(l) = rule.lets.get(i) else {
            return missing("internal: a let out of range");
        };
        let expr = &l.expr;
        // A let is evaluated in the rule's scope, outside any `over`.
        let overs = std::mem::take(&mut self.overs);
        let inner = self.repeats.split_off(1);
        let (v, used) = self.noting_source(|env| env.eval(expr));
        self.overs = overs;
        self.repeats.extend(inner);
        if let Some(slot) = self.let_source.get_mut(i) {
            *slot = used;
        }
        if let Some(slot) = self.lets.get_mut(i) {
            *slot = Some(v.clone());
        }
        v
    }

    fn eval(&mut self, e: &TypedExpr) -> OrMissing<Value> {
        match &e.kind {
            TypedExprKind::Number(n) => Ok(Value::Num(*n)),
            TypedExprKind::Bool(b) => Ok(Value::Bool(*b)),
            TypedExprKind::Text(t) => Ok(Value::Text(t.clone())),
            TypedExprKind::Cache(c) => Ok(Value::Cache(*c)),
            TypedExprKind::Role(r) => Ok(Value::Role(*r)),
            TypedExprKind::Ref(r) => self.reference(*r),
            TypedExprKind::Unary(op, x) => {
                let v = self.eval(x)?;
                match (op, v) {
                    (UnaryOp::Neg, Value::Num(n)) => Ok(Value::Num(-n)),
                    (UnaryOp::Neg, Value::Nums(s)) => Ok(Value::Nums(s.map(|x| -x))),
                    (UnaryOp::Not, Value::Bool(b)) => Ok(Value::Bool(!b)),
                    (UnaryOp::Not, Value::Bools(s)) => Ok(Value::Bools(s.map(|x| !x))),
                    (_, v) => missing(format!("`{}` gave {}", self.src(x), v.describe())),
                }
            }
            TypedExprKind::Binary(op, l, r) => self.binary(*op, l, r, e),
            TypedExprKind::Call(b, args) => match self.rule.repeated.get(&e.span) {
                Some(class) => self.repeated(*class, |env| env.call(*b, args, e)),
                None => self.call(*b, args, e),
            },
            TypedExprKind::Aggregate { agg, over, body, filter } => {
                if self.overs.is_empty()
                    && !self.cache.folded.is_empty()
                    && let Some((v, used)) = self.cache.folded.get(&(self.rule.id.clone(), e.span))
                {
                    self.used_source |= *used;
                    return Ok(v.clone());
                }
                let work = |env: &mut Self| env.aggregate(*agg, *over, body, filter.as_deref());
                match self.cache.shared.key(&self.rule.id, e.span) {
                    Some(key) if self.overs.is_empty() => self.shared(key, work),
                    _ => work(self),
                }
            }
        }
    }

    /// An aggregate another rule of the group writes alike: its value as the first rule
    /// to reach it worked it out. A missing value is not shared: its reason quotes the
    /// rule's own text.
    fn shared(
        &mut self,
        key: Arc<str>,
        work: impl FnOnce(&mut Self) -> OrMissing<Value>,
    ) -> OrMissing<Value> {
        if let Some((v, used)) = self.cache.shared.get(self.scope, &key) {
            self.used_source |= used;
            return Ok(v);
        }
        let (v, used) = self.noting_source(work);
        if let Ok(v) = &v {
            self.cache.shared.put(self.scope, key, v.clone(), used);
        }
        v
    }

    /// `work`'s value, and whether a tool's own percentile went into it (what a value kept
    /// for later must carry); the flag of the expression around it is kept too.
    fn noting_source(
        &mut self,
        work: impl FnOnce(&mut Self) -> OrMissing<Value>,
    ) -> (OrMissing<Value>, bool) {
        let outer = std::mem::replace(&mut self.used_source, false);
        let v = work(self);
        let used = self.used_source;
        self.used_source = outer || used;
        (v, used)
    }

    /// A repeated call's value: worked out by `work` the first time in this frame.
    fn repeated(
        &mut self,
        class: usize,
        work: impl FnOnce(&mut Self) -> OrMissing<Value>,
    ) -> OrMissing<Value> {
        if let Some((v, used)) = self.repeats.last().and_then(|f| f.get(&class)) {
            self.used_source |= *used;
            return v.clone();
        }
        let (v, used) = self.noting_source(work);
        if let Some(frame) = self.repeats.last_mut() {
            frame.insert(class, (v.clone(), used));
        }
        v
    }

    // ---- references -------------------------------------------------------------------

    fn subject(&self, s: Owner) -> OrMissing<Element> {
        match s {
            Owner::Scope => match self.scope {
                Some(e) => Ok(e),
                None => missing("internal: no element in a vm rule"),
            },
            Owner::Over(d) => match self.overs.get(d as usize) {
                Some(e) => Ok(*e),
                None => missing("internal: no element at this depth"),
            },
            Owner::TempDisk => self.temp_disk(),
            Owner::FileDisk => self.file_disk(),
            Owner::Vm | Owner::Host => missing("internal: not an element"),
        }
    }

    fn temp_disk(&self) -> OrMissing<Element> {
        if !self.facts.topology {
            return missing("needs the temp disk's name: set [vm] temp_disk in --topology");
        }
        match self.facts.disks.iter().position(|d| d.temp) {
            Some(i) => Ok(Element::Disk(i)),
            None => missing("no temp disk in the topology: set [vm] temp_disk in --topology"),
        }
    }

    /// The disk the scope's database file sits on.
    fn file_disk(&self) -> OrMissing<Element> {
        let Some(Element::File(i)) = self.scope else {
            return missing("internal: file.disk outside a file rule");
        };
        let Some(f) = self.facts.files.get(i) else { return missing("internal: file") };
        if let Some(d) = f.disk {
            return Ok(Element::Disk(d));
        }
        if !self.facts.topology || self.facts.disks.is_empty() {
            return missing(format!("needs the disk {} is on: {NO_DISKS}", f.name));
        }
        match (&f.drive, f.pool) {
            (_, Some(p)) => missing(format!(
                "{} is on the striped volume \"{}\", not one disk",
                f.name,
                self.facts.pools.get(p).map_or("", |p| p.limits.name.as_str())
            )),
            (Some(d), None) => missing(format!(
                "{} is on {d}, which no topology disk is named as: name the disk \"{d}\" in --topology (or its PerfMon instance `N {d}`)",
                f.name
            )),
            (None, None) => missing(format!(
                "the path of {} names no drive or mount: advisor's query gives physical_name",
                f.name
            )),
        }
    }

    fn reference(&mut self, r: Ref) -> OrMissing<Value> {
        match r {
            Ref::Param(i) => match self.rule.params.get(i).map(|p| p.value) {
                Some(Constant::Number(n)) => Ok(Value::Num(n)),
                Some(Constant::Bool(b)) => Ok(Value::Bool(b)),
                None => missing("internal: a parameter out of range"),
            },
            Ref::Let(i) => self.let_value(i),
            Ref::Element(s) => Ok(Value::Element(self.subject(s)?)),
            Ref::Field { of: Owner::Vm, field: Field::Vm(f) } => self.vm_field(f),
            Ref::Field { of, field } => {
                let e = self.subject(of)?;
                self.field(e, field)
            }
            Ref::Metric { of: Owner::Host, metric } => {
                let Some(t) = self.facts.host else {
                    let (what, how) = metric_help(metric);
                    return missing(format!("needs {what} ({how})"));
                };
                self.target_series(t, metric, "the host")
            }
            Ref::Metric { of, metric } => {
                let e = self.subject(of)?;
                self.metric(e, metric, matches!(of, Owner::Over(_)))
            }
        }
    }

    /// The capture targets behind an element, preferred first.
    fn elem_targets(&self, e: Element) -> OrMissing<Vec<TargetId>> {
        let c = self.facts;
        match e {
            Element::Disk(i) => {
                let Some(d) = c.disks.get(i) else { return missing("internal: disk") };
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
            Element::Pool(i) => Ok(c.pools.get(i).map(|p| p.targets.clone()).unwrap_or_default()),
            Element::Bench(i) => Ok(c.benches.get(i).map(|b| vec![b.target]).unwrap_or_default()),
            Element::Target(i) => Ok(c.targets.get(i).map(|t| vec![t.id]).unwrap_or_default()),
            Element::File(i) => Ok(c.files.get(i).map(|f| vec![f.target]).unwrap_or_default()),
        }
    }

    /// A metric of an element. `split`: inside a collection, a pool member disk that no
    /// capture names stands for its share of the pool's volume (the stripe spreads IO
    /// evenly), so `sum(iops) over disks` counts a pool seen only through its volume.
    fn metric(&mut self, e: Element, m: Metric, split: bool) -> OrMissing<Value> {
        let name = self.label(e);
        if let Element::Pool(i) = e
            && self.facts.pools.get(i).is_some_and(|p| p.targets.is_empty())
        {
            return self.pool_from_members(i, m);
        }
        if split
            && let Element::Disk(d) = e
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
    fn member_share(&mut self, d: usize, m: Metric) -> Option<OrMissing<Value>> {
        let disk = self.facts.disks.get(d)?;
        if !disk.targets.is_empty() {
            return None;
        }
        let (pi, pool) = self.facts.pool_of(d)?;
        if pool.targets.is_empty() || pool.members.is_empty() {
            return None;
        }
        let n = pool.members.len() as f64;
        Some(self.metric(Element::Pool(pi), m, false).map(|v| match v {
            Value::Nums(s) if is_additive(m) => Value::Nums(s.map(|x| x / n)),
            v => v,
        }))
    }

    /// A pool without a volume target: additive metrics summed over its members.
    fn pool_from_members(&mut self, i: usize, m: Metric) -> OrMissing<Value> {
        let Some(p) = self.facts.pools.get(i) else { return missing("internal: pool") };
        let (name, members) = (p.limits.name.clone(), p.members.clone());
        if !is_additive(m) || members.is_empty() {
            return missing(format!(
                "no capture target matches the volume of pool \"{name}\": name the pool in --topology as the capture names its volume"
            ));
        }
        let mut acc: Option<TimeSeries<f64>> = None;
        for d in members {
            let Value::Nums(s) = self.metric(Element::Disk(d), m, false)? else {
                return missing("internal: a metric that is not a series");
            };
            acc = Some(match acc {
                None => s,
                Some(a) => a.join(&s, |x, y| x + y),
            });
        }
        match acc {
            Some(s) if !s.is_empty() => Ok(Value::Nums(s)),
            _ => missing(format!("pool \"{name}\"'s members share no sample times")),
        }
    }

    fn target_series(&mut self, t: TargetId, m: Metric, name: &str) -> OrMissing<Value> {
        let Some((times, vals)) = self.stored_series(t, m) else {
            let (what, how) = metric_help(m);
            return missing(format!("needs {what} for {name} ({how})"));
        };
        if vals.is_empty() {
            return missing(format!("no samples of {} for {name}", m.name()));
        }
        Ok(Value::Nums(TimeSeries { times, vals, interval: self.series.interval_s(t) }))
    }

    /// A target's series in stored units, finite points only: converted once per
    /// [`evaluate`], then shared.
    fn stored_series(&self, t: TargetId, m: Metric) -> StoredSeries {
        if let Ok(cache) = self.cache.series.lock()
            && let Some(s) = cache.get(&(t, m))
        {
            return s.clone();
        }
        let stored = self.load_series(t, m);
        if let Some((_, vals)) = &stored
            && let Some(known) = self.series.known_ranks(t, m)
        {
            self.cache.seed_ranks(vals, m.unit(), &known);
        }
        if let Ok(mut cache) = self.cache.series.lock() {
            cache.insert((t, m), stored.clone());
        }
        stored
    }

    /// A target's series from the source, converted to stored units, finite points only.
    fn load_series(&self, t: TargetId, m: Metric) -> StoredSeries {
        let scale = stored_scale(m.unit());
        // A stated metric that needs no conversion: the source's own buffer, not a copy.
        if matches!(scale, Scale::Keep)
            && let Some(vals) = self.series.axis_values_in_place(t, m)
            && let Some(times) =
                self.cache.target_axis(t, |a| self.series.axis_is(t, a), || self.series.axis(t))
            && times.len() == (*vals).as_ref().len()
        {
            #[cfg(debug_assertions)]
            assert!(
                matches!(
                    self.series.axis_or_points_scaled(t, m, scale),
                    Some(Ok(copy)) if copy.iter().map(|x| x.to_bits()).eq((*vals).as_ref().iter().map(|x| x.to_bits()))
                ),
                "values read in place are not the series' own: {t:?} {}",
                m.name()
            );
            return Some((times, Vals::source(vals)));
        }
        // Values on the axis come converted to stored units (in the copy that takes a
        // stated column out of the frame); points are converted below.
        let points = match self.series.axis_or_points_scaled(t, m, scale)? {
            // On the target's axis (the usual case): its time stamps are taken once.
            Ok(vals) => {
                if let Some(times) =
                    self.cache.target_axis(t, |a| self.series.axis_is(t, a), || self.series.axis(t))
                    && times.len() == vals.len()
                {
                    return Some((times, Vals::new(vals)));
                }
                self.series.series_columns(t, m)
            }
            Err(points) => Some(points).filter(|(_, vals)| !vals.is_empty()),
        };
        points.map(|(mut times, mut vals)| {
            if !advisor_model::all_finite(&vals) {
                let keep: Vec<bool> = vals.iter().map(|v| v.is_finite()).collect();
                let mut k = keep.iter();
                times.retain(|_| k.next().copied().unwrap_or(false));
                vals.retain(|v| v.is_finite());
            }
            stored_scale(m.unit()).apply_all(&mut vals);
            (self.cache.axis(t.capture, times), Vals::new(vals))
        })
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

/// Nearest-rank percentile of the finite values (as `advisor_normalize::Stats`).
pub fn percentile_of(values: &[f64], p: f64) -> Option<f64> {
    value::percentile(values, p)
}

/// A frame value in the language's stored unit, rounded as a literal is: units below the
/// stored one divide (a capture's 35 % is 35 / 100, exactly the literal `35%`; 35 * 0.01
/// is 0.35000000000000003, above it), the others multiply by [`unit_factor`].
pub fn to_stored(u: Unit, v: f64) -> f64 {
    stored_scale(u).apply(v)
}

/// [`to_stored`] as one [`Scale`], the one definition of the conversion: for a value, and
/// for a whole series as a source copies it ([`SeriesSource::axis_or_points_scaled`]).
fn stored_scale(u: Unit) -> Scale {
    match u {
        Unit::Milliseconds => Scale::Div(1e3),
        Unit::Percent => Scale::Div(100.0),
        // A factor of 1 (x * 1.0 is x, bit for bit): IOPS and queue depths are stored as read.
        Unit::PerSecond | Unit::PagesPerSecond | Unit::Ios => Scale::Keep,
        u => Scale::Mul(unit_factor(u)),
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
        IopsConsumedPct
        | MbpsConsumedPct
        | BurstIoCreditsUsedPct
        | BurstBpsCreditsUsedPct
        | TargetIops
        | TargetMbps
        | MaxBurstIops
        | MaxBurstMbps => (
            "Azure Monitor metrics",
            "az monitor metrics list --resource VM_ID --interval PT1M --metrics \"VM Cached IOPS Consumed Percentage\" ... --output json",
        ),
        GuestLatencyMs | GuestLatencyPeakMs => (
            "a guest capture overlapping the Azure Monitor metrics in time",
            "PerfMon or iostat with latency counters, captured during the metrics' window",
        ),
    }
}

#[cfg(test)]
mod tests;
