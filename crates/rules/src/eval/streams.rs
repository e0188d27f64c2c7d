//! The `vm` rules' aggregates over every disk or target (`sum(iops) over disks where
//! disk.role != temp`), folded from the groups that load each element's series.
//!
//! The groups of [`super::evaluate`] load the series of their disk or target for their own
//! rules; a `vm` rule's aggregate reads the same series of every disk again (a disk's total
//! IOPS, MB/s and latency, worked out from its reads and writes once more). So the body of
//! such an aggregate is evaluated for each element in the element's own group, from that
//! group's cache, and the values are folded in the collection's order by a [`Folder`], as
//! [`Evaluation::aggregate`] folds them, whichever group finishes first: the same values
//! in the same order, so the same result to the bit. The `vm` rules run once every group
//! has brought its values (beside the groups' own rules still running) and read the
//! folded values.
//!
//! Folded this way: an aggregate outside any `over`, over disks or targets, whose body
//! reads a metric of its element and otherwise only its element, the VM's fields,
//! parameters and constants (no `let`, no inner aggregate), and whose `where` reads facts
//! alone: `where` is evaluated here, before the groups, so an element it leaves out costs
//! nothing. Any other aggregate is evaluated by its rule as before, and so is one whose
//! folded value is missing (its reason quotes the rule's own text).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use super::cache::{self, Folded, SeriesCache, SharedKeys};
use super::functions::Folder;
use super::value::{Element, OrMissing, Value};
use super::{Evaluation, Facts, SeriesSource};
use crate::ast::Span;
use crate::check::{CheckedRule, Collection, Owner, Ref, TypedExpr, TypedExprKind};
use crate::types::Scope;

/// The folds of one evaluation, and the bodies the groups evaluate for them.
pub(super) struct Streams<'r> {
    streams: Vec<Stream<'r>>,
    /// Each rule (its index in the evaluation) and aggregate span a fold stands for: an
    /// aggregate two rules write alike is folded once.
    by_rule: Vec<(usize, Span, usize)>,
}

/// One aggregate folded: the rule its body is evaluated for, and the fold so far.
struct Stream<'r> {
    rule: &'r CheckedRule,
    body: &'r TypedExpr,
    state: Mutex<State>,
}

struct State {
    /// The next position of the collection to fold.
    next: usize,
    /// How many positions the collection has.
    len: usize,
    /// The values of positions after `next` that came first (`None`: left out by
    /// `where`).
    waiting: BTreeMap<usize, Option<OrMissing<Value>>>,
    /// `None` while a group folds a value in (outside the lock), and once finished.
    folder: Option<Folder>,
    /// Whether a tool's own percentile went into a value folded.
    used: bool,
}

/// A body a group evaluates: for which fold, at which position, of which element.
pub(super) struct Item {
    stream: usize,
    at: usize,
    pub(super) elem: Element,
}

impl Item {
    /// The position in its collection: groups are started in about this order, so few
    /// values wait for an earlier one.
    pub(super) fn at(&self) -> usize {
        self.at
    }
}

impl<'r> Streams<'r> {
    /// The folds of the `vm` rules among `rules` (with [`cache::shared_keys`] of each),
    /// and the bodies to evaluate for them. `where` is evaluated here.
    pub(super) fn plan(
        rules: &[&'r CheckedRule],
        keys: &[SharedKeys],
        facts: &Facts,
        series: &dyn SeriesSource,
    ) -> (Self, Vec<Item>) {
        let mut out = Streams { streams: Vec::new(), by_rule: Vec::new() };
        let mut items = Vec::new();
        let mut by_key: HashMap<Arc<str>, usize> = HashMap::new();
        let scratch = SeriesCache::default();
        for (r, rule) in rules.iter().enumerate().filter(|(_, r)| r.scope == Scope::Vm) {
            let mut found: Vec<&'r TypedExpr> = Vec::new();
            cache::each_root(rule, &mut |e| outermost(e, &mut found));
            for e in found {
                let TypedExprKind::Aggregate { agg, over, body, filter } = &e.kind else {
                    continue;
                };
                if !matches!(over, Collection::Disks | Collection::Targets)
                    || !foldable(body, true)
                    || filter.as_deref().is_some_and(|f| !foldable(f, false))
                {
                    continue;
                }
                let Some(key) = keys.get(r).and_then(|k| k.get(&e.span)) else { continue };
                if let Some(&s) = by_key.get(key) {
                    out.by_rule.push((r, e.span, s));
                    continue;
                }
                let mut env = Evaluation::new(rule, (facts, series), None, &scratch);
                // No elements: the rule says why, as before.
                let Ok(elems) = env.elements(*over) else { continue };
                let s = out.streams.len();
                let mut state = State {
                    next: 0,
                    len: elems.len(),
                    waiting: BTreeMap::new(),
                    folder: Some(Folder::new(*agg, *over, filter.is_some())),
                    used: false,
                };
                for (at, elem) in elems.into_iter().enumerate() {
                    let (keep, used) = match filter.as_deref() {
                        None => (Ok(Value::Bool(true)), false),
                        Some(f) => env.noting_source(|env| env.at_element(elem, |env| env.eval(f))),
                    };
                    state.used |= used;
                    match keep {
                        Ok(Value::Bool(true)) => items.push(Item { stream: s, at, elem }),
                        Ok(_) => {
                            state.waiting.insert(at, None);
                        }
                        Err(m) => {
                            state.waiting.insert(at, Some(Err(m)));
                        }
                    }
                }
                state.advance();
                out.streams.push(Stream { rule, body, state: Mutex::new(state) });
                by_key.insert(Arc::clone(key), s);
                out.by_rule.push((r, e.span, s));
            }
        }
        (out, items)
    }

    /// Evaluates `item`'s body for its element with `cache` (its group's) and folds the
    /// value in, with those of the positions before it that are in.
    pub(super) fn evaluate(
        &self,
        item: &Item,
        facts: &Facts,
        series: &dyn SeriesSource,
        cache: &SeriesCache,
    ) {
        let Some(s) = self.streams.get(item.stream) else { return };
        let mut env = Evaluation::new(s.rule, (facts, series), None, cache);
        let (v, used) = env.noting_source(|env| env.at_element(item.elem, |env| env.eval(s.body)));
        let Ok(mut state) = s.state.lock() else { return };
        state.used |= used;
        state.waiting.insert(item.at, Some(v));
        // Folded outside the lock (at 4 GB a step adds 8 MB): another group that brings a
        // value meanwhile leaves it waiting, and the fold takes it up after.
        loop {
            // The folder is out: the group folding now folds this value too.
            if state.folder.is_none() {
                return;
            }
            let at = state.next;
            let Some(v) = state.waiting.remove(&at) else { return };
            let Some(mut folder) = state.folder.take() else { return };
            state.next += 1;
            drop(state);
            folder.push(v);
            state = match s.state.lock() {
                Ok(g) => g,
                Err(_) => return,
            };
            state.folder = Some(folder);
        }
    }

    /// The folded values, by rule id and span, for the `vm` rules to read: those folded
    /// to the end and not missing.
    pub(super) fn finish(&self, rules: &[&CheckedRule]) -> HashMap<usize, Folded> {
        let values: Vec<Option<(Value, bool)>> = self
            .streams
            .iter()
            .map(|s| {
                let mut state = s.state.lock().ok()?;
                if state.next != state.len {
                    return None;
                }
                let used = state.used;
                state.folder.take()?.finish().ok().map(|v| (v, used))
            })
            .collect();
        let mut out: HashMap<usize, Folded> = HashMap::new();
        for &(r, span, s) in &self.by_rule {
            if let (Some(Some(v)), Some(rule)) = (values.get(s), rules.get(r)) {
                out.entry(r).or_default().insert((rule.id.clone(), span), v.clone());
            }
        }
        out
    }
}

impl State {
    /// Folds the values in from `next` on, as far as they are in.
    fn advance(&mut self) {
        while let Some(v) = self.waiting.remove(&self.next) {
            if let Some(f) = &mut self.folder {
                f.push(v);
            }
            self.next += 1;
        }
    }
}

/// The aggregates of `e` outside any other aggregate (`e` itself, if it is one).
fn outermost<'r>(e: &'r TypedExpr, out: &mut Vec<&'r TypedExpr>) {
    cache::walk_while(e, &mut |x| {
        let inner = matches!(x.kind, TypedExprKind::Aggregate { .. });
        if inner {
            out.push(x);
        }
        !inner
    });
}

/// Whether `e` reads only its aggregate's element, the VM's fields, parameters and
/// constants, with no `let` and no inner aggregate; a body (`metric`) must read a metric
/// of the element (else there is nothing to load and folding it elsewhere saves nothing),
/// a `where` no metric at all (it is evaluated before any series is loaded).
fn foldable(e: &TypedExpr, metric: bool) -> bool {
    let mut ok = true;
    let mut reads_metric = false;
    let mut check = |x: &TypedExpr| match &x.kind {
        TypedExprKind::Aggregate { .. } | TypedExprKind::Ref(Ref::Let(_)) => ok = false,
        TypedExprKind::Ref(Ref::Metric { of: Owner::Over(0), .. }) => reads_metric = true,
        TypedExprKind::Ref(Ref::Metric { .. }) => ok = false,
        TypedExprKind::Ref(Ref::Field { of, .. } | Ref::Element(of)) => {
            ok &= matches!(of, Owner::Over(0) | Owner::Vm);
        }
        _ => {}
    };
    cache::walk(e, &mut check);
    ok && reads_metric == metric
}
