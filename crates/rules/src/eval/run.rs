//! How the rules run over their subjects: which subjects a rule's scope has, the pairs of
//! rule and subject grouped by the capture targets they read and evaluated group by group,
//! and each rule's outcome put together from its subjects'.

use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError};

use advisor_model::{Finding, Metric, NotEvaluated, TargetKind};

use super::cache::{self, Axes, Folded, SeriesCache, Shared};
use super::streams::Streams;
use super::value::{self, Element, Missing, Value};
use super::{
    Evaluation, Facts, NO_BENCH, NO_DISKS, NO_FILES, NO_PLATFORM, NO_POOLS, NO_TARGETS,
    SeriesSource, TargetId, is_storage,
};
use crate::check::CheckedRule;
use crate::types::Scope;

/// Findings and rules not evaluated.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    /// Most severe first, then by rule id and subject.
    pub findings: Vec<Finding>,
    /// By rule id and subject.
    pub not_evaluated: Vec<NotEvaluated>,
}

/// Evaluates every rule against `facts` and `series`, output sorted deterministically.
///
/// Subject by subject, not rule by rule: the pairs of a rule and a subject are grouped by
/// the capture targets the subject reads (a target, a disk or benchmark matched to it, and
/// the other targets matched to that disk are one group: a PhysicalDisk, its LogicalDisk
/// twin and their disk), and each group is evaluated on its own with its own series
/// cache, dropped when the group is done. So the series of one or two targets are held at
/// a time, not those of every target for as long as some rule still reads them. Within a
/// group a metric's series are dropped once no later rule of the group reads it, and the
/// pairs are ordered to hold few metrics at once ([`holding_order`]). The `vm` rules read
/// every disk: their aggregates over the disks or targets are folded from the values each
/// element's own group works out from the series it loads for its own rules
/// ([`Streams`]), and the `vm` rules run once every group has brought those values (the
/// first thing each group does), each on its own, heaviest first. The
/// time axes are taken once for all groups. The groups are shared among the machine's
/// cores; the outcome is the same whatever order they finish in.
pub fn evaluate<'r>(
    rules: impl IntoIterator<Item = &'r CheckedRule>,
    facts: &Facts,
    series: &dyn SeriesSource,
) -> Outcome {
    let rules: Vec<&CheckedRule> = rules.into_iter().collect();
    let subs: Vec<Result<Vec<Option<Element>>, &'static str>> =
        rules.iter().map(|r| subjects(r.scope, facts)).collect();
    // Subjects whose targets overlap are one group: a disk matched to a PhysicalDisk and a
    // LogicalDisk target, and each of those targets, read the same series. The `vm`
    // rules' subjects are gathered apart (group 0 below).
    let keys: Vec<Vec<Option<Option<Vec<TargetId>>>>> = subs
        .iter()
        .map(|s| s.iter().flatten().map(|sub| sub.map(|e| subject_targets(facts, e))).collect())
        .collect();
    let shared_keys: Vec<cache::SharedKeys> = rules.iter().map(|r| cache::shared_keys(r)).collect();
    // The `vm` rules' aggregates over every disk or target, each element's value worked
    // out in the group that loads its series ([`Streams`]).
    let (streams, items) = Streams::plan(&rules, &shared_keys, facts, series);
    let item_keys: Vec<Option<Vec<TargetId>>> =
        items.iter().map(|it| subject_targets(facts, it.elem)).collect();
    let mut joined = Joined::default();
    for key in keys.iter().flatten().flatten().flatten().chain(item_keys.iter().flatten()) {
        for w in key.windows(2) {
            joined.union(w[0], w[1]);
        }
    }
    let mut groups: Vec<Group> = vec![Group::default()];
    let mut by_root: HashMap<TargetId, usize> = HashMap::new();
    let mut group_of = |key: Option<&Vec<TargetId>>, groups: &mut Vec<Group>| match key {
        Some(key) => *by_root.entry(joined.root(key[0])).or_insert_with(|| {
            groups.push(Group::default());
            groups.len() - 1
        }),
        None => {
            groups.push(Group::default());
            groups.len() - 1
        }
    };
    for (r, s) in keys.iter().enumerate() {
        for (j, key) in s.iter().enumerate() {
            let g = match key {
                None => 0,
                Some(key) => group_of(key.as_ref(), &mut groups),
            };
            groups[g].pairs.push((r, j));
        }
    }
    for (i, key) in item_keys.iter().enumerate() {
        let g = group_of(key.as_ref(), &mut groups);
        groups[g].items.push(i);
    }
    let metrics: Vec<Vec<Metric>> = rules.iter().map(|r| cache::rule_metrics(r)).collect();
    for g in &mut groups {
        g.pairs = holding_order(std::mem::take(&mut g.pairs), &metrics);
    }
    // The `vm` rules' subjects run last, once every value they fold is in: each pair a
    // group of its own, so the cores share them; the heaviest first, so the last to start
    // is a light one and neither core waits long for the other at the end.
    let mut vm = groups.remove(0);
    vm.pairs.sort_by_key(|&(r, _)| std::cmp::Reverse(cache::series_steps(rules[r])));
    // The others in about the order of the elements they fold, so few values wait for
    // an earlier one.
    groups.sort_by_key(|g| g.items.iter().map(|&i| items[i].at()).min().unwrap_or(usize::MAX));
    let axes = Arc::new(Axes::default());
    // How many groups have brought every value they fold (a group that panics counts too,
    // so nothing waits for it): once all have, every fold is done.
    let brought = (Mutex::new(0usize), Condvar::new());
    let run_group = |group: &Group, folded: Folded| {
        let mut in_group: Vec<usize> = group.pairs.iter().map(|&(r, _)| r).collect();
        in_group.sort_unstable();
        in_group.dedup();
        let shared =
            Shared::of_group(in_group.iter().map(|&r| (rules[r].id.as_str(), &shared_keys[r])));
        let mut cache = SeriesCache::with_axes(&axes, shared);
        cache.folded = folded;
        {
            let _brought = Brought(&brought);
            for &i in &group.items {
                streams.evaluate(&items[i], facts, series, &cache);
            }
        }
        if !group.items.is_empty() {
            cache.forget(|m| group.pairs.iter().any(|&(r, _)| metrics[r].contains(&m)));
        }
        group
            .pairs
            .iter()
            .enumerate()
            .map(|(k, &(r, j))| {
                let sub = subs[r].as_ref().ok().and_then(|v| v.get(j).copied()).flatten();
                let o = evaluate_subject(rules[r], sub, facts, series, &cache);
                // What the rest of the group reads is kept; the rest is dropped now.
                let later = &group.pairs[k + 1..];
                cache.forget(|m| later.iter().any(|&(r, _)| metrics[r].contains(&m)));
                cache.shared.forget(later.iter().map(|&(r, _)| rules[r].id.as_str()));
                ((r, j), o)
            })
            .collect::<Vec<_>>()
    };
    // The groups, then the `vm` pairs, taken in that order by the cores: a core that finds
    // no group left starts on the `vm` pairs once every group has brought its values
    // (each group brings them first thing), while the last groups run their own rules.
    let folded: OnceLock<HashMap<usize, Folded>> = OnceLock::new();
    let done = advisor_model::par::map_indexed(groups.len() + vm.pairs.len(), 8, |k| {
        let Some(pair) = k.checked_sub(groups.len()).and_then(|k| vm.pairs.get(k)) else {
            return run_group(&groups[k], Folded::new());
        };
        let (count, all_in) = &brought;
        let mut n = count.lock().unwrap_or_else(PoisonError::into_inner);
        while *n < groups.len() {
            n = all_in.wait(n).unwrap_or_else(PoisonError::into_inner);
        }
        drop(n);
        let folded = folded.get_or_init(|| streams.finish(&rules));
        let one = Group { pairs: vec![*pair], items: Vec::new() };
        run_group(&one, folded.get(&pair.0).cloned().unwrap_or_default())
    });
    let mut per_rule: Vec<Vec<Option<Subject>>> = subs
        .iter()
        .map(|s| s.as_ref().map_or(0, Vec::len))
        .map(|n| (0..n).map(|_| None).collect())
        .collect();
    for ((r, j), o) in done.into_iter().flatten() {
        per_rule[r][j] = Some(o);
    }
    let mut out = Outcome::default();
    for ((rule, s), results) in rules.iter().zip(&subs).zip(per_rule) {
        let results = s.as_ref().map_err(|e| *e).map(|_| results.into_iter().flatten().collect());
        let o = rule_outcome(rule, results);
        out.findings.extend(o.findings);
        out.not_evaluated.extend(o.not_evaluated);
    }
    sort(&mut out);
    // The `explains ... where` conditions below read what they need again.
    let cache = &SeriesCache::default();
    let by_id: HashMap<&str, &CheckedRule> = rules.iter().map(|r| (r.id.as_str(), *r)).collect();
    let explains = |id: &str| by_id.get(id).map_or(&[][..], |r| r.explains.as_slice());
    let disks = DisksByName::new(facts);
    // A finding about the VM explains findings about any subject; one about a disk or a
    // target, those about the same subject or the same disk.
    let reach = |f: &Finding| {
        let everywhere = by_id.get(f.rule.as_str()).is_some_and(|r| r.scope == Scope::Vm);
        let mut keys = vec![Near::Subject(f.subject.clone())];
        keys.extend(disks.named(&f.subject).map(Near::Disk));
        crate::stories::Reach { everywhere, keys }
    };
    // The element each `explains ... where` rule's findings are about, by subject name.
    let mut elements: HashMap<Scope, HashMap<String, Element>> = HashMap::new();
    for rule in rules.iter().filter(|r| r.explains_where.is_some() && r.scope != Scope::Vm) {
        elements.entry(rule.scope).or_insert_with(|| {
            let mut named = HashMap::new();
            for e in subjects(rule.scope, facts).ok().into_iter().flatten().flatten() {
                let name = Evaluation::new(rule, (facts, series), None, cache).elem_name(e);
                named.entry(name).or_insert(e);
            }
            named
        });
    }
    // `explains ... where COND`: in a `vm` rule, for the disk the effect is about (an
    // effect about no disk always fits); else for the cause's own subject.
    let fits = |cause: &Finding, effect: &Finding| {
        let Some(rule) = by_id.get(cause.rule.as_str()) else { return false };
        let effect_disk = disks.named(&effect.subject);
        // A cause about a disk or target explains findings about the same disk only (a
        // disk's finding and its capture target's are about the same disk).
        if rule.scope != Scope::Vm
            && cause.subject != effect.subject
            && (effect_disk.is_none() || effect_disk != disks.named(&cause.subject))
        {
            return false;
        }
        let Some(cond) = &rule.explains_where else { return true };
        let element = if rule.scope == Scope::Vm {
            // Findings about the VM itself or a platform budget: no disk to ask about.
            let Some(d) = effect_disk else { return true };
            Some(d)
        } else {
            elements.get(&rule.scope).and_then(|named| named.get(&cause.subject)).copied()
        };
        let Some(element) = element else { return false };
        let mut env = Evaluation::new(rule, (facts, series), Some(element), cache);
        matches!(env.eval(cond), Ok(Value::Bool(true)))
    };
    crate::stories::link(&mut out.findings, explains, reach, fits);
    out
}

/// What a finding is about, as the stories relate findings: its subject's name, or the
/// topology disk it names.
#[derive(Debug, PartialEq, Eq, Hash)]
enum Near {
    Subject(String),
    Disk(Element),
}

/// The topology disk each name stands for: a database file on it, a disk's own name, or the
/// name of a capture target matched to it (the first disk that has the name, as a search in
/// disk order finds it). Made once, so that each finding's disk is looked up, not searched.
struct DisksByName<'f> {
    by_name: HashMap<&'f str, Element>,
}

impl<'f> DisksByName<'f> {
    fn new(facts: &'f Facts) -> Self {
        let names: HashMap<TargetId, Vec<&str>> =
            facts.targets.iter().fold(HashMap::new(), |mut m, t| {
                m.entry(t.id).or_default().push(t.name.as_str());
                m
            });
        let mut by_name = HashMap::new();
        for f in &facts.files {
            if let Some(d) = f.disk {
                by_name.entry(f.name.as_str()).or_insert(Element::Disk(d));
            }
        }
        for (i, d) in facts.disks.iter().enumerate() {
            by_name.entry(d.limits.name.as_str()).or_insert(Element::Disk(i));
            for name in d.targets.iter().filter_map(|t| names.get(t)).flatten() {
                by_name.entry(*name).or_insert(Element::Disk(i));
            }
        }
        DisksByName { by_name }
    }

    /// The topology disk a finding's subject names: the disk itself, a capture target
    /// matched to it, or a database file on it.
    fn named(&self, subject: &str) -> Option<Element> {
        self.by_name.get(subject).copied()
    }
}

/// Counts a group as having brought its values when dropped (after its items, or as a
/// panic unwinds it), and wakes whoever waits for all of them.
struct Brought<'a>(&'a (Mutex<usize>, Condvar));

impl Drop for Brought<'_> {
    fn drop(&mut self) {
        let (count, all_in) = self.0;
        *count.lock().unwrap_or_else(PoisonError::into_inner) += 1;
        all_in.notify_all();
    }
}

/// One group's pairs of rule and subject, and the bodies of the `vm` rules' aggregates it
/// evaluates for its elements first (indices into the evaluation's [`Item`]s).
#[derive(Default)]
struct Group {
    pairs: Vec<(usize, usize)>,
    items: Vec<usize>,
}

/// Targets joined into sets (union-find): those that some subject reads together.
#[derive(Default)]
struct Joined {
    parent: HashMap<TargetId, TargetId>,
}

impl Joined {
    fn root(&self, mut t: TargetId) -> TargetId {
        while let Some(&p) = self.parent.get(&t) {
            if p == t {
                break;
            }
            t = p;
        }
        t
    }

    fn union(&mut self, a: TargetId, b: TargetId) {
        let (ra, rb) = (self.root(a), self.root(b));
        if ra != rb {
            self.parent.insert(rb, ra);
        }
    }
}

/// A group's pairs of rule and subject in the order that holds the fewest metrics' series
/// at once: each next pair is the one that, with what earlier pairs loaded and later ones
/// still read, holds the fewest metrics while it runs, then after it, then the first in
/// rule order. The series themselves are what a group holds (a day of samples of every
/// disk, for each metric a `vm` rule reads), so the order bounds a group's memory.
fn holding_order(mut pairs: Vec<(usize, usize)>, metrics: &[Vec<Metric>]) -> Vec<(usize, usize)> {
    let mut out = Vec::with_capacity(pairs.len());
    let mut live: Vec<Metric> = Vec::new();
    while !pairs.is_empty() {
        let cost = |i: usize| {
            let (r, _) = pairs[i];
            let mut during = live.clone();
            during.extend(metrics[r].iter().filter(|m| !live.contains(m)));
            let after = during
                .iter()
                .filter(|m| {
                    pairs.iter().enumerate().any(|(k, &(q, _))| k != i && metrics[q].contains(m))
                })
                .count();
            (during.len(), after, i)
        };
        let Some(best) = (0..pairs.len()).min_by_key(|i| cost(*i)) else { break };
        let (r, j) = pairs.remove(best);
        for m in &metrics[r] {
            if !live.contains(m) {
                live.push(*m);
            }
        }
        live.retain(|m| pairs.iter().any(|&(q, _)| metrics[q].contains(m)));
        out.push((r, j));
    }
    out
}

pub(super) fn sort(o: &mut Outcome) {
    o.findings.sort_by(|a, b| {
        b.severity
            .cmp(&a.severity)
            .then_with(|| a.rule.cmp(&b.rule))
            .then_with(|| a.subject.cmp(&b.subject))
    });
    o.not_evaluated.sort_by(|a, b| a.rule.cmp(&b.rule).then_with(|| a.subject.cmp(&b.subject)));
}

/// The subjects a rule's scope is evaluated for, or why there are none.
fn subjects(scope: Scope, facts: &Facts) -> Result<Vec<Option<Element>>, &'static str> {
    let v: Vec<Option<Element>> = match scope {
        Scope::Vm => return Ok(vec![None]),
        Scope::Disk => facts
            .disks
            .iter()
            .enumerate()
            .filter(|(_, d)| !d.temp)
            .map(|(i, _)| Some(Element::Disk(i)))
            .collect(),
        Scope::Pool => (0..facts.pools.len()).map(|i| Some(Element::Pool(i))).collect(),
        Scope::Bench => (0..facts.benches.len()).map(|i| Some(Element::Bench(i))).collect(),
        Scope::File => (0..facts.files.len()).map(|i| Some(Element::File(i))).collect(),
        Scope::Target | Scope::Platform => facts
            .targets
            .iter()
            .enumerate()
            .filter(|(_, t)| (scope == Scope::Platform) == (t.kind == TargetKind::Platform))
            .filter(|(_, t)| t.kind == TargetKind::Platform || is_storage(t.kind))
            .map(|(i, _)| Some(Element::Target(i)))
            .collect(),
    };
    if !v.is_empty() {
        return Ok(v);
    }
    Err(match scope {
        Scope::Disk => NO_DISKS,
        Scope::Pool => NO_POOLS,
        Scope::Bench => NO_BENCH,
        Scope::Platform => NO_PLATFORM,
        Scope::File => NO_FILES,
        _ => NO_TARGETS,
    })
}

/// Evaluates one rule for every subject of its scope.
pub fn evaluate_rule(rule: &CheckedRule, facts: &Facts, series: &dyn SeriesSource) -> Outcome {
    evaluate_rule_with(rule, facts, series, &SeriesCache::default())
}

fn evaluate_rule_with(
    rule: &CheckedRule,
    facts: &Facts,
    series: &dyn SeriesSource,
    cache: &SeriesCache,
) -> Outcome {
    let results = subjects(rule.scope, facts).map(|subs| {
        subs.iter().map(|sub| evaluate_subject(rule, *sub, facts, series, cache)).collect()
    });
    rule_outcome(rule, results)
}

/// What one rule gave for one subject.
enum Subject {
    Fired(Box<Finding>),
    Quiet,
    /// The subject's name and why the rule could not be evaluated for it.
    Skipped(String, String),
}

fn evaluate_subject(
    rule: &CheckedRule,
    sub: Option<Element>,
    facts: &Facts,
    series: &dyn SeriesSource,
    cache: &SeriesCache,
) -> Subject {
    let mut env = Evaluation::new(rule, (facts, series), sub, cache);
    let name = env.subject_name();
    match env.eval(&rule.when) {
        Ok(Value::Bool(true)) => Subject::Fired(Box::new(env.finding(name))),
        Ok(Value::Bool(false)) => Subject::Quiet,
        Ok(v) => Subject::Skipped(name, format!("the condition gave {}, not a bool", v.describe())),
        Err(Missing(reason)) => Subject::Skipped(name, reason),
    }
}

/// A rule's outcome from what each of its subjects gave, in the order of its subjects
/// (or why it has none).
fn rule_outcome(rule: &CheckedRule, results: Result<Vec<Subject>, &'static str>) -> Outcome {
    let mut out = Outcome::default();
    let results = match results {
        Ok(r) => r,
        Err(reason) => {
            out.not_evaluated.push(NotEvaluated {
                rule: rule.id.clone(),
                subject: None,
                reason: reason.to_owned(),
            });
            return out;
        }
    };
    let n = results.len();
    let mut skipped: Vec<(String, String)> = Vec::new();
    for r in results {
        match r {
            Subject::Fired(f) => out.findings.push(*f),
            Subject::Quiet => {}
            Subject::Skipped(name, reason) => skipped.push((name, reason)),
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
    let whole = groups.len() == 1 && groups[0].1.len() == n && (n > 1 || rule.scope == Scope::Vm);
    for (reason, mut names) in groups {
        // Sorted, numbers by value (disk2 before disk10): the inputs' order (which file
        // came first) must not change the report.
        names.sort_by_cached_key(|n| value::natural_key(n));
        let subject = (!whole).then(|| names.join(", "));
        out.not_evaluated.push(NotEvaluated { rule: rule.id.clone(), subject, reason });
    }
    sort(&mut out);
    out
}

/// The capture targets a subject reads its series from, sorted; `None` when it names
/// none (a disk no capture matches: a group of its own).
fn subject_targets(facts: &Facts, e: Element) -> Option<Vec<TargetId>> {
    let mut t = match e {
        Element::Disk(i) => facts.disks.get(i)?.targets.clone(),
        Element::Pool(i) => facts.pools.get(i)?.targets.clone(),
        Element::Bench(i) => vec![facts.benches.get(i)?.target],
        Element::Target(i) => vec![facts.targets.get(i)?.id],
        // The file's own series and those of the disk it sits on (`file.disk.*`).
        Element::File(i) => {
            let f = facts.files.get(i)?;
            let mut t = vec![f.target];
            if let Some(d) = f.disk.and_then(|d| facts.disks.get(d)) {
                t.extend(d.targets.iter().copied());
            }
            t
        }
    };
    t.sort_unstable();
    t.dedup();
    (!t.is_empty()).then_some(t)
}
