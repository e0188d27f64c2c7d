//! The series the rules of one evaluation read, converted once and shared; each metric's
//! series dropped when no rule still to be evaluated reads it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use advisor_model::Metric;

use super::TargetId;
use super::value::Times;
use crate::check::{CheckedRule, Ref, TypedExpr, TypedExprKind, TypedPart};

/// The series rules have read, in stored units and finite, by target and metric: shared by
/// every rule of one [`super::evaluate`] (`None`: the series source has no such series).
pub(super) type StoredSeries = Option<(Times, Arc<Vec<f64>>)>;

#[derive(Default)]
pub(super) struct SeriesCache {
    pub(super) series: Mutex<HashMap<(TargetId, Metric), StoredSeries>>,
    /// Per metric, the rules still to be evaluated that read it: when none is left, its
    /// series are dropped, so the cache never holds every series of a large capture at
    /// once. A metric not counted here is kept (a rule read outside [`super::evaluate`]).
    users: Mutex<HashMap<Metric, usize>>,
    /// The distinct time axes seen per capture: a new series whose time stamps equal one
    /// of them shares it, so operations between its targets' series pair by position.
    axes: Mutex<HashMap<usize, Vec<Times>>>,
}

impl SeriesCache {
    /// A cache for `rules`: each metric counted once per rule that reads it, and once
    /// more, never to be released, when an `explains ... where` condition reads it (those
    /// are evaluated after every rule).
    pub(super) fn for_rules(rules: &[&CheckedRule]) -> Self {
        let mut users: HashMap<Metric, usize> = HashMap::new();
        for r in rules {
            for m in rule_metrics(r) {
                *users.entry(m).or_default() += 1;
            }
            if let Some(cond) = &r.explains_where {
                let mut ms = Vec::new();
                expr_metrics(cond, &mut ms);
                for m in ms {
                    *users.entry(m).or_default() += 1;
                }
            }
        }
        Self { users: Mutex::new(users), ..Self::default() }
    }

    /// `rule` is done: the series of the metrics no rule still to come reads are dropped.
    pub(super) fn release(&self, rule: &CheckedRule) {
        let mut done: Vec<Metric> = Vec::new();
        if let Ok(mut users) = self.users.lock() {
            for m in rule_metrics(rule) {
                if let Some(n) = users.get_mut(&m) {
                    *n = n.saturating_sub(1);
                    if *n == 0 {
                        done.push(m);
                    }
                }
            }
        }
        if !done.is_empty()
            && let Ok(mut series) = self.series.lock()
        {
            series.retain(|(_, m), _| !done.contains(m));
        }
    }

    pub(super) fn axis(&self, capture: usize, times: Vec<Option<i64>>) -> Times {
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

/// The metrics a rule reads, each once: every series it can ask the cache for.
fn rule_metrics(rule: &CheckedRule) -> Vec<Metric> {
    let mut out = Vec::new();
    let parts = |parts: &[TypedPart], out: &mut Vec<Metric>| {
        for p in parts {
            if let TypedPart::Value { expr, .. } = p {
                expr_metrics(expr, out);
            }
        }
    };
    expr_metrics(&rule.when, &mut out);
    for l in &rule.lets {
        expr_metrics(&l.expr, &mut out);
    }
    parts(&rule.evidence, &mut out);
    parts(&rule.fix, &mut out);
    for c in &rule.cases {
        expr_metrics(&c.when, &mut out);
        parts(&c.evidence, &mut out);
        parts(&c.fix, &mut out);
    }
    if let Some(e) = &rule.episodes {
        for x in [Some(&e.series), Some(&e.cap), Some(&e.ratio), e.latency.as_ref()]
            .into_iter()
            .flatten()
        {
            expr_metrics(x, &mut out);
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Adds the metrics `e` reads to `out`.
fn expr_metrics(e: &TypedExpr, out: &mut Vec<Metric>) {
    match &e.kind {
        TypedExprKind::Ref(Ref::Metric { metric, .. }) => out.push(*metric),
        TypedExprKind::Unary(_, x) => expr_metrics(x, out),
        TypedExprKind::Binary(_, a, b) => {
            expr_metrics(a, out);
            expr_metrics(b, out);
        }
        TypedExprKind::Call(_, args) => args.iter().for_each(|a| expr_metrics(a, out)),
        TypedExprKind::Aggregate { body, filter, .. } => {
            expr_metrics(body, out);
            if let Some(f) = filter {
                expr_metrics(f, out);
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
