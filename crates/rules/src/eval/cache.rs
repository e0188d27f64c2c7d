//! The series the rules read for one group of subjects (see [`super::evaluate`]),
//! converted once and shared by the group's rules, with the percentiles taken of them;
//! dropped with the group.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, Weak};

use advisor_model::{Metric, Unit};

use super::TargetId;
use super::value::{Element, TimeSeries, Times, Vals, Value, WeakVals};
use crate::ast::Span;
use crate::builtins::Builtin;
use crate::check::{CheckedRule, Constant, Ref, TypedExpr, TypedExprKind, TypedPart};

/// The series rules have read, in stored units and finite, by target and metric: shared by
/// the rules of one group (`None`: the series source has no such series).
pub(super) type StoredSeries = Option<(Times, Vals<f64>)>;

/// A series' values (weakly held) and the percentiles taken of them: `(P's bits, value)`.
type Ranked = (WeakVals<f64>, Vec<(u64, Option<f64>)>);

#[derive(Default)]
pub(super) struct SeriesCache {
    pub(super) series: Mutex<HashMap<(TargetId, Metric), StoredSeries>>,
    /// Percentiles taken of a series, by the address of its values: a series several
    /// rules read (a disk's IOPS, whose p95 fourteen rules take) is ranked once per
    /// percentile. Each entry holds a weak reference to the values, so their address is
    /// not reused while it is a key, and an entry whose series is gone is never matched.
    ranks: Mutex<HashMap<usize, Ranked>>,
    /// The time axes, shared by every group of one evaluation.
    axes: Arc<Axes>,
    /// The aggregates two or more of the group's rules write alike, worked out once.
    pub(super) shared: Shared,
    /// The bands `plateau` gave ([`Self::plateau`]).
    plateaus: Mutex<Vec<Plateau>>,
    /// The `vm` rules' aggregates folded from the groups that loaded their elements
    /// ([`super::streams`]), by rule id and span, each with whether a tool's own
    /// percentile went into it.
    pub(super) folded: Folded,
}

/// Values folded for rules ahead of them: by rule id and the aggregate's span, each with
/// whether a tool's own percentile went into it.
pub(super) type Folded = BTreeMap<(String, Span), (Value, bool)>;

/// A band `plateau` gave: of which series (held weakly: the entry is dropped with it), on
/// which busy flags (on the series' own time axis) and with how few busy samples allowed.
struct Plateau {
    of: WeakVals<f64>,
    times: Weak<Vec<Option<i64>>>,
    interval: Option<u64>,
    busy: Vals<bool>,
    min: usize,
    band: TimeSeries<f64>,
}

/// The values of the aggregates that more than one rule of a group writes alike
/// (`sum(iops) over disks where disk.role != temp` in five `vm` rules): worked out by the
/// first rule that reaches one and given to the others, each held until the last rule of
/// the group that writes it is done.
#[derive(Default)]
pub(super) struct Shared {
    /// By rule id, the span of each of the rule's aggregates another rule also writes,
    /// and its key ([`shared_keys`]).
    keys: HashMap<String, BTreeMap<Span, Arc<str>>>,
    /// The values worked out, by subject and key.
    values: Mutex<HashMap<SharedKey, SharedValue>>,
}

/// A shared aggregate's subject (`None` for the VM) and key.
type SharedKey = (Option<Element>, Arc<str>);

/// A shared aggregate's value, and whether a tool's own percentile went into it.
type SharedValue = (Value, bool);

impl Shared {
    /// For the rules of one group (with [`shared_keys`] of each): the keys two or more of
    /// them have.
    pub(super) fn of_group<'k>(rules: impl IntoIterator<Item = (&'k str, &'k SharedKeys)>) -> Self {
        let rules: Vec<(&str, &SharedKeys)> = rules.into_iter().collect();
        let mut count: HashMap<&str, usize> = HashMap::new();
        for (_, keys) in &rules {
            let mut seen: Vec<&str> = keys.values().map(|k| &**k).collect();
            seen.sort_unstable();
            seen.dedup();
            for k in seen {
                *count.entry(k).or_default() += 1;
            }
        }
        let keys = rules
            .iter()
            .map(|(id, keys)| {
                let kept: BTreeMap<Span, Arc<str>> = keys
                    .iter()
                    .filter(|(_, k)| count.get(&***k).is_some_and(|n| *n > 1))
                    .map(|(span, k)| (*span, Arc::clone(k)))
                    .collect();
                ((*id).to_owned(), kept)
            })
            .filter(|(_, kept)| !kept.is_empty())
            .collect();
        Shared { keys, values: Mutex::default() }
    }

    /// The key of rule `id`'s aggregate at `span`, when another rule of the group writes
    /// it too.
    pub(super) fn key(&self, id: &str, span: Span) -> Option<Arc<str>> {
        self.keys.get(id)?.get(&span).cloned()
    }

    pub(super) fn get(&self, subject: Option<Element>, key: &Arc<str>) -> Option<SharedValue> {
        self.values.lock().ok()?.get(&(subject, Arc::clone(key))).cloned()
    }

    pub(super) fn put(&self, subject: Option<Element>, key: Arc<str>, v: Value, used: bool) {
        if let Ok(mut values) = self.values.lock() {
            values.insert((subject, key), (v, used));
        }
    }

    /// Drops the values of keys that no rule `later` names has.
    pub(super) fn forget<'r>(&self, later: impl Iterator<Item = &'r str> + Clone) {
        if let Ok(mut values) = self.values.lock()
            && !values.is_empty()
        {
            values.retain(|(_, k), _| {
                later
                    .clone()
                    .any(|id| self.keys.get(id).is_some_and(|m| m.values().any(|x| x == k)))
            });
        }
    }
}

/// A rule's aggregates by span, each with its key: its shape with the parameters as their
/// values and the lets as their expressions, so two rules that write the same aggregate
/// (whatever they name their lets and parameters) have the same key.
pub(super) type SharedKeys = BTreeMap<Span, Arc<str>>;

/// [`SharedKeys`] of `rule`. The evaluator uses a key only for an aggregate outside any
/// `over` (an inner one reads the outer's element).
pub(super) fn shared_keys(rule: &CheckedRule) -> SharedKeys {
    let mut out = SharedKeys::new();
    each_expr(rule, &mut |e| {
        if matches!(e.kind, TypedExprKind::Aggregate { .. }) {
            let mut key = String::new();
            shape(e, &mut key, Some(rule));
            out.insert(e.span, Arc::from(key));
        }
    });
    out
}

/// The time axes of one evaluation's targets, shared by all its groups: taken once per
/// target (16 bytes a sample), not once per group that reads the target (each `vm` group
/// reads every disk). One axis per capture, as a rule, so they cost little to keep.
#[derive(Default)]
pub(super) struct Axes {
    /// The distinct time axes seen per capture: a new series whose time stamps equal one
    /// of them shares it, so operations between its targets' series pair by position.
    known: Mutex<HashMap<usize, Vec<KnownAxis>>>,
    /// Each target's time axis ([`super::SeriesSource::axis`]), taken once.
    targets: Mutex<HashMap<TargetId, Option<Times>>>,
    /// Where an axis breaks runs at an interval ([`super::value::gap_positions`]): the
    /// axis (held weakly), the interval's bits, the positions.
    gaps: Mutex<Vec<GapPositions>>,
}

/// An axis seen, with its stamps as plain numbers when none is missing (what a target's
/// time column is compared with: two buffers, not a stamp and an option at a time).
type KnownAxis = (Times, Option<Arc<Vec<i64>>>);

/// An axis (held weakly), an interval's bits, and where the axis breaks runs at it.
type GapPositions = (Weak<Vec<Option<i64>>>, u64, Option<Arc<Vec<usize>>>);

impl SeriesCache {
    /// A cache for one group, with the evaluation's shared time axes and the aggregates
    /// its rules share.
    pub(super) fn with_axes(axes: &Arc<Axes>, shared: Shared) -> Self {
        SeriesCache { axes: Arc::clone(axes), shared, ..SeriesCache::default() }
    }

    /// Drops the series whose metric `keep` refuses: those the group's later rules do not
    /// read (a reload would give the same values; this only bounds what a group holds),
    /// and the bands of series gone.
    pub(super) fn forget(&self, keep: impl Fn(Metric) -> bool) {
        if let Ok(mut series) = self.series.lock() {
            series.retain(|(_, m), _| keep(*m));
        }
        if let Ok(mut bands) = self.plateaus.lock() {
            // A band that is its whole series holds the series itself: held by more
            // than that band alone.
            bands.retain(|b| {
                let own = std::ptr::eq(b.band.vals.as_ptr(), b.of.as_ptr());
                b.of.strong_count() > usize::from(own)
            });
        }
    }

    /// `plateau(x, busy, min)`'s band from `make`, taken once per group for a series and
    /// busy flags alike: a rule that asks for the band of the series another rule of the
    /// group banded, on busy flags equal to its (`topology-cap-mismatch` on an uncached
    /// disk and `inferred-disk-cap` on its target), gets that band, and so the
    /// percentiles taken of it. Only busy flags on `x`'s own time axis are compared; an
    /// error is not kept (its text names the rule's own expressions).
    pub(super) fn plateau<E>(
        &self,
        x: &TimeSeries<f64>,
        busy: &TimeSeries<bool>,
        min: usize,
        make: impl FnOnce() -> Result<TimeSeries<f64>, E>,
    ) -> Result<TimeSeries<f64>, E> {
        if !Arc::ptr_eq(&x.times, &busy.times) {
            return make();
        }
        let interval = x.interval.map(f64::to_bits);
        let alike = |b: &Plateau| {
            b.min == min
                && b.interval == interval
                && b.of.upgrade().is_some_and(|v| v.ptr_eq(&x.vals))
                && b.times.upgrade().is_some_and(|t| Arc::ptr_eq(&t, &x.times))
                && b.busy == busy.vals
        };
        if let Ok(bands) = self.plateaus.lock()
            && let Some(b) = bands.iter().find(|b| alike(b))
        {
            return Ok(b.band.clone());
        }
        let band = make()?;
        if let Ok(mut bands) = self.plateaus.lock() {
            bands.push(Plateau {
                of: x.vals.downgrade(),
                times: Arc::downgrade(&x.times),
                interval,
                busy: busy.vals.clone(),
                min,
                band: band.clone(),
            });
        }
        Ok(band)
    }

    /// The nearest-rank `p`th percentile of the finite values of `vals`
    /// ([`super::value::percentile`]), taken once per series and percentile. When it is
    /// not known yet, the percentiles `also` gives (those the rule takes of the same
    /// series, say) are taken with it in one selection, each in the part above the last.
    pub(super) fn percentile(
        &self,
        vals: &Vals<f64>,
        p: f64,
        also: impl FnOnce() -> Vec<f64>,
    ) -> Option<f64> {
        let at = vals.as_ptr() as usize;
        // An entry at this address is this series' only while the series it was made for
        // lives (and then it is this one).
        let same = |weak: &WeakVals<f64>| weak.upgrade().is_some_and(|v| v.ptr_eq(vals));
        if let Ok(ranks) = self.ranks.lock()
            && let Some((weak, taken)) = ranks.get(&at)
            && same(weak)
            && let Some((_, x)) = taken.iter().find(|(q, _)| *q == p.to_bits())
        {
            return *x;
        }
        let mut ps = also();
        ps.retain(|q| q.to_bits() != p.to_bits());
        ps.insert(0, p);
        let found = super::value::percentiles(vals, &ps);
        if let Ok(mut ranks) = self.ranks.lock() {
            let entry = ranks.entry(at).or_insert_with(|| (vals.downgrade(), Vec::new()));
            if !same(&entry.0) {
                *entry = (vals.downgrade(), Vec::new());
            }
            for (q, x) in ps.iter().zip(&found) {
                if !entry.1.iter().any(|(k, _)| *k == q.to_bits()) {
                    entry.1.push((q.to_bits(), *x));
                }
            }
        }
        found.first().copied().flatten()
    }

    /// Records percentiles of `vals` taken already ([`super::KnownRanks`], in the frame's
    /// `unit`; `vals` is in stored units), so [`Self::percentile`] finds them. Only when
    /// they are of as many values as `vals` holds and the extremes convert to finite
    /// values (then every value does, and a rank converted is the converted series' rank:
    /// the conversion keeps the order).
    pub(super) fn seed_ranks(&self, vals: &Vals<f64>, unit: Unit, known: &super::KnownRanks) {
        let stored = |x: f64| super::to_stored(unit, x);
        if known.count != vals.len()
            || !stored(known.min).is_finite()
            || !stored(known.max).is_finite()
        {
            return;
        }
        let taken: Vec<(u64, Option<f64>)> =
            known.ranks.iter().map(|(p, x)| (p.to_bits(), Some(stored(*x)))).collect();
        #[cfg(debug_assertions)]
        for (p, x) in &taken {
            let want = super::value::percentile(vals, f64::from_bits(*p));
            assert_eq!(
                want.map(f64::to_bits),
                x.map(f64::to_bits),
                "a known rank is not the series' own: p{} {x:?} against {want:?}",
                f64::from_bits(*p)
            );
        }
        if let Ok(mut ranks) = self.ranks.lock() {
            ranks.insert(vals.as_ptr() as usize, (vals.downgrade(), taken));
        }
    }

    /// Where `times` breaks runs at `interval` ([`super::value::gap_positions`]), worked
    /// out once per axis and interval for every group: `longest`, `runs` and `sustained`
    /// read it for each condition on the axis.
    pub(super) fn gap_positions(&self, times: &Times, interval: f64) -> Option<Arc<Vec<usize>>> {
        let bits = interval.to_bits();
        let same = |(axis, b, _): &GapPositions| {
            *b == bits && axis.upgrade().is_some_and(|a| Arc::ptr_eq(&a, times))
        };
        if let Ok(known) = self.axes.gaps.lock()
            && let Some((_, _, at)) = known.iter().find(|e| same(e))
        {
            return at.clone();
        }
        let at = super::value::gap_positions(times, interval).map(Arc::new);
        if let Ok(mut known) = self.axes.gaps.lock() {
            known.retain(|(axis, _, _)| axis.strong_count() > 0);
            known.push((Arc::downgrade(times), bits, at.clone()));
        }
        at
    }

    /// `t`'s time axis, from `take` the first time it is asked for, as [`Self::axis`]
    /// shares it; `None` when the target has none.
    pub(super) fn target_axis(
        &self,
        t: TargetId,
        is: impl Fn(&[i64]) -> bool,
        take: impl FnOnce() -> Option<Vec<Option<i64>>>,
    ) -> Option<Times> {
        if let Ok(axes) = self.axes.targets.lock()
            && let Some(a) = axes.get(&t)
        {
            return a.clone();
        }
        // An axis of the capture seen already that the target's is (the first, as
        // [`Self::axis`] finds it) is shared without taking the target's.
        let seen: Vec<KnownAxis> = self
            .axes
            .known
            .lock()
            .map(|k| k.get(&t.capture).cloned().unwrap_or_default())
            .unwrap_or_default();
        let a = match seen.into_iter().find(|(_, plain)| plain.as_ref().is_some_and(|p| is(p))) {
            Some((a, _)) => Some(a),
            None => take().map(|times| self.axis(t.capture, times)),
        };
        if let Ok(mut axes) = self.axes.targets.lock() {
            axes.insert(t, a.clone());
        }
        a
    }

    pub(super) fn axis(&self, capture: usize, times: Vec<Option<i64>>) -> Times {
        let Ok(mut axes) = self.axes.known.lock() else { return Arc::new(times) };
        let known = axes.entry(capture).or_default();
        if let Some((a, _)) = known.iter().find(|(a, _)| **a == times) {
            return a.clone();
        }
        let plain: Option<Vec<i64>> = times.iter().copied().collect();
        let a = Arc::new(times);
        known.push((a.clone(), plain.map(Arc::new)));
        a
    }
}

/// How many of `rule`'s expressions are series (each a pass over the samples when it is
/// worked out): how much work the rule is, to start the heavier `vm` rules first.
pub(super) fn series_steps(rule: &CheckedRule) -> usize {
    let mut n = 0;
    each_expr(rule, &mut |e| n += usize::from(e.ty.series));
    n
}

/// Calls `f` with every expression of `rule`, inner ones included: its lets, conditions,
/// texts and episodes.
fn each_expr(rule: &CheckedRule, f: &mut impl FnMut(&TypedExpr)) {
    each_root(rule, &mut |e| walk(e, f));
}

/// Calls `f` with each root expression of `rule` (a let's, a condition, a value in a text,
/// an `episodes` part): evaluated outside any `over`.
pub(super) fn each_root<'r>(rule: &'r CheckedRule, f: &mut impl FnMut(&'r TypedExpr)) {
    let parts = |parts: &'r [TypedPart], f: &mut dyn FnMut(&'r TypedExpr)| {
        for p in parts {
            if let TypedPart::Value { expr, .. } = p {
                f(expr);
            }
        }
    };
    f(&rule.when);
    for l in &rule.lets {
        f(&l.expr);
    }
    parts(&rule.evidence, f);
    parts(&rule.fix, f);
    for c in &rule.cases {
        f(&c.when);
        parts(&c.evidence, f);
        parts(&c.fix, f);
    }
    if let Some(e) = &rule.episodes {
        for x in [Some(&e.series), Some(&e.cap), Some(&e.ratio), e.latency.as_ref()]
            .into_iter()
            .flatten()
        {
            f(x);
        }
    }
}

pub(super) fn walk(e: &TypedExpr, f: &mut dyn FnMut(&TypedExpr)) {
    walk_while(e, &mut |x| {
        f(x);
        true
    });
}

/// Calls `f` with `e` and, when it returns true, with each of `e`'s inner expressions in
/// the same way (`false`: not into this one's).
pub(super) fn walk_while<'r>(e: &'r TypedExpr, f: &mut dyn FnMut(&'r TypedExpr) -> bool) {
    if !f(e) {
        return;
    }
    match &e.kind {
        TypedExprKind::Unary(_, x) => walk_while(x, f),
        TypedExprKind::Binary(_, a, b) => {
            walk_while(a, f);
            walk_while(b, f);
        }
        TypedExprKind::Call(_, args) => args.iter().for_each(|a| walk_while(a, f)),
        TypedExprKind::Aggregate { body, filter, .. } => {
            walk_while(body, f);
            if let Some(x) = filter {
                walk_while(x, f);
            }
        }
        TypedExprKind::Number(_)
        | TypedExprKind::Bool(_)
        | TypedExprKind::Text(_)
        | TypedExprKind::Cache(_)
        | TypedExprKind::Role(_)
        | TypedExprKind::Ref(_) => {}
    }
}

/// [`CheckedRule::repeated`]: the calls of `rule` whose shape (the function and its
/// arguments, names as resolved) occurs more than once, each span with its class.
pub(crate) fn repeated_calls(rule: &CheckedRule) -> BTreeMap<Span, usize> {
    let mut calls: Vec<(Span, String)> = Vec::new();
    each_expr(rule, &mut |e| {
        if matches!(e.kind, TypedExprKind::Call(..)) {
            let mut key = String::new();
            shape(e, &mut key, None);
            calls.push((e.span, key));
        }
    });
    let mut classes: HashMap<&str, (usize, usize)> = HashMap::new();
    for (_, key) in &calls {
        let next = classes.len();
        classes.entry(key).or_insert((next, 0)).1 += 1;
    }
    calls
        .iter()
        .filter_map(|(span, key)| {
            classes.get(key.as_str()).filter(|(_, n)| *n > 1).map(|(class, _)| (*span, *class))
        })
        .collect()
}

/// An expression's structure as text: two expressions of one rule with the same shape
/// have the same value for the same subject and elements (names are resolved: a let is
/// its index, a metric its owner's depth). With `inline`, the rule `e` is in, the shape
/// holds for any rule: a parameter is its value and a let its expression.
fn shape(e: &TypedExpr, out: &mut String, inline: Option<&CheckedRule>) {
    use std::fmt::Write as _;
    let _ = match &e.kind {
        TypedExprKind::Number(n) => write!(out, "n{}", n.to_bits()),
        TypedExprKind::Bool(b) => write!(out, "b{b}"),
        TypedExprKind::Text(t) => write!(out, "t{t:?}"),
        TypedExprKind::Cache(c) => write!(out, "c{c:?}"),
        TypedExprKind::Role(r) => write!(out, "r{r:?}"),
        TypedExprKind::Ref(Ref::Param(i)) if let Some(rule) = inline => {
            match rule.params.get(*i).map(|p| p.value) {
                Some(Constant::Number(n)) => write!(out, "n{}", n.to_bits()),
                Some(Constant::Bool(b)) => write!(out, "b{b}"),
                None => write!(out, "{:?}", Ref::Param(*i)),
            }
        }
        TypedExprKind::Ref(Ref::Let(i)) if let Some(rule) = inline => match rule.lets.get(*i) {
            Some(l) => {
                out.push('(');
                shape(&l.expr, out, inline);
                write!(out, ")")
            }
            None => write!(out, "{:?}", Ref::Let(*i)),
        },
        TypedExprKind::Ref(r) => write!(out, "{r:?}"),
        TypedExprKind::Unary(op, x) => {
            let _ = write!(out, "{op:?}(");
            shape(x, out, inline);
            write!(out, ")")
        }
        TypedExprKind::Binary(op, a, b) => {
            let _ = write!(out, "{op:?}(");
            shape(a, out, inline);
            out.push(',');
            shape(b, out, inline);
            write!(out, ")")
        }
        TypedExprKind::Call(b, args) => {
            let _ = write!(out, "{b:?}(");
            for a in args {
                shape(a, out, inline);
                out.push(',');
            }
            write!(out, ")")
        }
        TypedExprKind::Aggregate { agg, over, body, filter } => {
            let _ = write!(out, "{agg:?} {over:?}(");
            shape(body, out, inline);
            out.push(';');
            if let Some(f) = filter {
                shape(f, out, inline);
            }
            write!(out, ")")
        }
    };
}

/// The metrics `rule` reads, of any element: what its group must hold while it runs.
pub(super) fn rule_metrics(rule: &CheckedRule) -> Vec<Metric> {
    let mut out: Vec<Metric> = Vec::new();
    each_expr(rule, &mut |e| {
        if let TypedExprKind::Ref(Ref::Metric { metric, .. }) = &e.kind
            && !out.contains(metric)
        {
            out.push(*metric);
        }
    });
    out
}

/// The P of a percentile call with a constant one (`p95(x)`, `pct(x, 99.9)`).
fn constant_percentile(b: Builtin, args: &[TypedExpr]) -> Option<f64> {
    match (b, args.get(1).map(|a| &a.kind)) {
        (Builtin::Pct, Some(TypedExprKind::Number(p))) => Some(*p),
        _ => b.percentile(),
    }
}

/// By metric, the percentiles with a constant P that `rules` take of a metric itself
/// (`p95(iops)`, `pct(latency_ms, 99.9)`, whoever's metric it is): what a source's
/// [`super::SeriesSource::known_ranks`] is worth having taken.
pub fn metric_percentiles<'r>(
    rules: impl IntoIterator<Item = &'r CheckedRule>,
) -> Vec<(Metric, Vec<f64>)> {
    let mut out: Vec<(Metric, Vec<f64>)> = Vec::new();
    for rule in rules {
        each_expr(rule, &mut |e| {
            if let TypedExprKind::Call(b, args) = &e.kind
                && let Some(arg) = args.first()
                && let TypedExprKind::Ref(Ref::Metric { metric, .. }) = &arg.kind
                && let Some(p) = constant_percentile(*b, args)
            {
                let i = match out.iter().position(|(m, _)| m == metric) {
                    Some(i) => i,
                    None => {
                        out.push((*metric, Vec::new()));
                        out.len() - 1
                    }
                };
                if !out[i].1.iter().any(|q| q.to_bits() == p.to_bits()) {
                    out[i].1.push(p);
                }
            }
        });
    }
    out
}

/// The percentiles `rule` takes of `of` with a constant P (`p95(iops)`, `pct(latency_ms,
/// 99.9)`): the ones worth taking together when one of them is asked for.
pub(super) fn rule_percentiles(rule: &CheckedRule, of: &Ref) -> Vec<f64> {
    let mut out: Vec<f64> = Vec::new();
    each_expr(rule, &mut |e| {
        if let TypedExprKind::Call(b, args) = &e.kind
            && let Some(arg) = args.first()
            && arg.kind == TypedExprKind::Ref(*of)
            && let Some(p) = constant_percentile(*b, args)
            && !out.iter().any(|q| q.to_bits() == p.to_bits())
        {
            out.push(p);
        }
    });
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::float_cmp)]
    use super::*;

    // A band is worked out once for one series on equal busy flags (the same flags or a
    // copy of them), again on other flags, another minimum or another series, and an
    // error is never kept; a band of a series gone is dropped at `forget`.
    #[test]
    fn a_band_is_worked_out_once_per_series_and_busy_flags() {
        let cache = SeriesCache::default();
        let times: Times = Arc::new((0..6).map(|i| Some(i * 1000)).collect());
        let series = |v: Vec<f64>| TimeSeries {
            times: Arc::clone(&times),
            vals: Vals::new(v),
            interval: Some(1.0),
        };
        let flags = |b: Vec<bool>| TimeSeries {
            times: Arc::clone(&times),
            vals: Vals::new(b),
            interval: Some(1.0),
        };
        let x = series(vec![1.0, 5.0, 6.0, 6.0, 2.0, 6.0]);
        let busy = flags(vec![false, true, true, true, false, true]);
        let made = std::cell::Cell::new(0);
        let make = |band: Vec<f64>| {
            made.set(made.get() + 1);
            Ok::<_, ()>(series(band))
        };
        let first = cache.plateau(&x, &busy, 3, || make(vec![5.0, 6.0, 6.0, 6.0]));
        let again = cache.plateau(&x, &flags(busy.vals.to_vec()), 3, || make(vec![0.0]));
        assert_eq!(made.get(), 1);
        assert!(first.unwrap().vals.ptr_eq(&again.unwrap().vals));
        let other = flags(vec![true; 6]);
        assert_eq!(cache.plateau(&x, &other, 3, || make(vec![1.0])).unwrap().vals[0], 1.0);
        assert_eq!(cache.plateau(&x, &busy, 4, || make(vec![2.0])).unwrap().vals[0], 2.0);
        let y = series(x.vals.to_vec());
        assert_eq!(cache.plateau(&y, &busy, 3, || make(vec![3.0])).unwrap().vals[0], 3.0);
        assert_eq!(made.get(), 4);
        assert!(cache.plateau(&x, &other, 5, || Err(())).is_err());
        assert_eq!(cache.plateau(&x, &other, 5, || make(vec![4.0])).unwrap().vals[0], 4.0);
        drop(y);
        cache.forget(|_| true);
        let bands = || cache.plateaus.lock().map(|b| b.len()).unwrap_or(0);
        assert_eq!(bands(), 4);
        // A band that is its whole series holds the series itself: kept while the series
        // is held elsewhere, dropped with it all the same.
        let z = series(vec![6.0; 6]);
        let whole = cache.plateau(&z, &other, 3, || Ok::<_, ()>(z.clone())).unwrap();
        assert!(whole.vals.ptr_eq(&z.vals));
        drop(whole);
        cache.forget(|_| true);
        assert_eq!(bands(), 5);
        drop(z);
        cache.forget(|_| true);
        assert_eq!(bands(), 4);
    }

    // A percentile from the cache is the one `percentile` takes, whether taken alone,
    // with others, or known already; another series is not confused with a dropped one.
    #[test]
    fn percentiles_are_taken_once_and_are_the_selections() {
        let cache = SeriesCache::default();
        let vals: Vec<f64> = (0..1000).map(|i| f64::from((i * 7919) % 1000)).collect();
        let a = Vals::new(vals.clone());
        let want = |p: f64| super::super::value::percentile(&vals, p);
        assert_eq!(cache.percentile(&a, 95.0, || vec![50.0, 99.9, 95.0]), want(95.0));
        // Known: `also` is not asked again.
        for p in [50.0, 99.9, 95.0] {
            assert_eq!(cache.percentile(&a, p, || unreachable!("known")), want(p));
        }
        assert_eq!(cache.percentile(&a, 10.0, Vec::new), want(10.0));
        // With a value that is not a number, as a division by zero leaves.
        let mut odd = vals.clone();
        odd[3] = f64::NAN;
        let b = Vals::new(odd.clone());
        assert_eq!(
            cache.percentile(&b, 50.0, Vec::new),
            super::super::value::percentile(&odd, 50.0)
        );
        drop(a);
        let c = Vals::new(vec![5.0; 10]);
        assert_eq!(cache.percentile(&c, 95.0, Vec::new), Some(5.0));
    }

    // The same call written twice is one class, whatever the spacing; the same text in
    // an `over` (another owner) or with another argument is not.
    #[test]
    fn repeated_calls_are_classed_by_shape() {
        let src = "rule t\ntitle \"t\"\nseverity warning\nscope target\n\
                   param floor = 5 iops \"f\"\n\
                   let a = p50(plateau(iops, iops >= floor, 3)) + p99(plateau(iops,iops>=floor,3))\n\
                   let b = p50(plateau(iops, iops >= 6 iops, 3))\n\
                   when a > b and p99(plateau(iops, iops >= floor, 3)) > 0 iops\n\
                   evidence \"{p50(iops):.0}\"\nfix \"f\"\n\
                   doc what \"\"\"w\"\"\"\ndoc why \"\"\"y\"\"\"\ndoc fix \"\"\"f\"\"\"\n";
        let rule = match crate::compile("t.rule", src) {
            Ok(r) => r,
            Err(d) => panic!("{}", d.iter().map(ToString::to_string).collect::<String>()),
        };
        let text = |span: &Span| rule.source[span.start..span.end].to_owned();
        let mut classes: BTreeMap<usize, Vec<String>> = BTreeMap::new();
        for (span, class) in &rule.repeated {
            classes.entry(*class).or_default().push(text(span));
        }
        let mut got: Vec<Vec<String>> = classes.into_values().collect();
        got.iter_mut().for_each(|c| c.sort());
        got.sort();
        let class = |texts: &[&str]| texts.iter().map(|t| (*t).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            got,
            vec![
                class(&[
                    "p99(plateau(iops, iops >= floor, 3))",
                    "p99(plateau(iops,iops>=floor,3))"
                ]),
                class(&[
                    "plateau(iops, iops >= floor, 3)",
                    "plateau(iops, iops >= floor, 3)",
                    "plateau(iops,iops>=floor,3)"
                ]),
            ]
        );
    }

    #[test]
    fn a_rules_percentiles_of_one_series_are_found_together() {
        let src = "rule t\ntitle \"t\"\nseverity warning\nscope target\n\
                   let a = p50(latency_ms)\nlet b = pct(latency_ms, 99.9)\nlet c = p99(iops)\n\
                   let top = keep(iops, iops > 1 iops)\nlet d = p50(top) + p99(top)\nlet e = p95(latency_ms)\n\
                   when a > b and c > d and e > a\nevidence \"{p99(latency_ms):.0}\"\nfix \"f\"\n\
                   doc what \"\"\"w\"\"\"\ndoc why \"\"\"y\"\"\"\ndoc fix \"\"\"f\"\"\"\n";
        let rule = match crate::compile("t.rule", src) {
            Ok(r) => r,
            Err(d) => panic!("{}", d.iter().map(ToString::to_string).collect::<String>()),
        };
        let latency = Ref::Metric { of: crate::check::Owner::Scope, metric: Metric::LatencyMs };
        assert_eq!(rule_percentiles(&rule, &latency), vec![50.0, 99.9, 95.0, 99.0]);
        let iops = Ref::Metric { of: crate::check::Owner::Scope, metric: Metric::Iops };
        assert_eq!(rule_percentiles(&rule, &iops), vec![99.0]);
        assert_eq!(rule_percentiles(&rule, &Ref::Let(3)), vec![50.0, 99.0]);
    }
}
