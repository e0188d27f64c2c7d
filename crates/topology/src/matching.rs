//! Which capture target is which topology disk, pool or temp disk.

use std::collections::{HashMap, HashSet};

use advisor_model::TargetKind;
use serde::Serialize;

use crate::names::{name_keys, normalize_name};
use crate::topology::{Topology, TopologyWarning};

/// A capture target as the matcher needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CaptureTarget<'a> {
    pub name: &'a str,
    pub kind: TargetKind,
    /// Whether the target carried real IO (the caller's judgement, e.g. p50 IOPS above a
    /// few): only busy targets missing from the topology are worth a warning.
    pub busy: bool,
}

/// What a topology name is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "kind", content = "index", rename_all = "snake_case")]
pub enum Subject {
    /// Index into [`Topology::disks`].
    Disk(usize),
    /// Index into [`Topology::pools`].
    Pool(usize),
    /// The local temp disk.
    TempDisk,
}

/// One capture target tied to a topology subject.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TargetMatch {
    /// Index into the targets given to [`match_targets`].
    pub target: usize,
    pub subject: Subject,
    /// The subject's name as the topology spells it.
    pub name: String,
}

/// The result of matching: pairs, and the two kinds of warnings (a described disk no
/// capture mentions; a busy target the topology does not describe).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Matching {
    pub matches: Vec<TargetMatch>,
    pub warnings: Vec<TopologyWarning>,
}

impl Matching {
    /// The subject a target was matched to, if any (the first one).
    pub fn subject_of(&self, target: usize) -> Option<&TargetMatch> {
        self.matches.iter().find(|m| m.target == target)
    }

    /// Targets matched to a subject.
    pub fn targets_of(&self, subject: Subject) -> impl Iterator<Item = usize> + '_ {
        self.matches.iter().filter(move |m| m.subject == subject).map(|m| m.target)
    }

    /// [`Matching::targets_of`] for every subject at once, in one pass over the matches.
    pub fn targets_by_subject(&self) -> HashMap<Subject, Vec<usize>> {
        let mut by: HashMap<Subject, Vec<usize>> = HashMap::new();
        for m in &self.matches {
            by.entry(m.subject).or_default().push(m.target);
        }
        by
    }
}

/// Ties capture targets to the topology. A target may match several subjects (PerfMon's
/// `6 F:` is both a pool's volume and, by number, a disk); all pairs are returned, for
/// each target in the order of the subjects (the temp disk, the disks, the pools).
///
/// Two names match when they share a key ([`crate::matches`]): the subjects' keys are indexed
/// once, so a topology of thousands of disks against a capture of thousands of targets
/// costs their sum, not their product.
pub fn match_targets(topology: &Topology, targets: &[CaptureTarget<'_>]) -> Matching {
    let mut subjects: Vec<(Subject, &str)> = Vec::new();
    if let Some(t) = topology.vm.as_ref().and_then(|v| v.temp_disk.as_deref()) {
        subjects.push((Subject::TempDisk, t));
    }
    for (i, d) in topology.disks.iter().enumerate() {
        let s = if d.role == crate::Role::Temp { Subject::TempDisk } else { Subject::Disk(i) };
        subjects.push((s, d.name.as_str()));
    }
    for (i, p) in topology.pools.iter().enumerate() {
        subjects.push((Subject::Pool(i), p.name.as_str()));
    }
    // Subjects (positions in `subjects`) by key; keys that are paths (`/mnt/data`) are
    // also where a benchmark's file may lie under.
    let mut by_key: HashMap<String, Vec<usize>> = HashMap::new();
    for (si, (_, name)) in subjects.iter().enumerate() {
        for k in name_keys(name) {
            if !k.is_empty() {
                let at = by_key.entry(k).or_default();
                if at.last() != Some(&si) {
                    at.push(si);
                }
            }
        }
    }

    let mut out = Matching::default();
    let mut found: Vec<usize> = Vec::new();
    for (ti, t) in targets.iter().enumerate() {
        if matches!(t.kind, TargetKind::Aggregate | TargetKind::Host) {
            continue;
        }
        found.clear();
        let file_like = matches!(t.kind, TargetKind::Benchmark);
        for k in name_keys(t.name) {
            found.extend(by_key.get(&k).into_iter().flatten());
            if file_like {
                // `/mnt/data/x.dat` lies under `/mnt/data` and `/mnt`.
                for (at, _) in k.match_indices('/').filter(|&(at, _)| at > 1) {
                    let under = &k[..at];
                    if under.starts_with('/') {
                        found.extend(by_key.get(under).into_iter().flatten());
                    }
                }
            }
        }
        found.sort_unstable();
        found.dedup();
        for &si in &found {
            let (s, name) = subjects[si];
            out.matches.push(TargetMatch { target: ti, subject: s, name: name.to_owned() });
        }
    }

    let describable = |k: TargetKind| !matches!(k, TargetKind::Aggregate | TargetKind::Host);
    if targets.iter().any(|t| describable(t.kind)) {
        let pooled: HashSet<usize> =
            topology.pools.iter().flat_map(|p| p.members.iter().flatten().copied()).collect();
        let seen: HashSet<(Subject, &str)> =
            out.matches.iter().map(|m| (m.subject, m.name.as_str())).collect();
        for (s, name) in &subjects {
            // A pool member is often seen only through its pool's volume.
            let in_pool = matches!(s, Subject::Disk(i) if pooled.contains(i));
            if !in_pool && !seen.contains(&(*s, *name)) {
                out.warnings.push(TopologyWarning {
                    code: "topology-disk-not-in-capture",
                    subject: (*name).to_owned(),
                    message: format!("\"{name}\" is described in the topology but no capture mentions it"),
                    fix: "check its name against the capture's (PerfMon `1 E:` or `E:`, iostat `sdc`), or capture that disk too".to_owned(),
                });
            }
        }
    }

    let mut matched = vec![false; targets.len()];
    for m in &out.matches {
        matched[m.target] = true;
    }
    let mut reported: HashSet<String> = HashSet::new();
    for (ti, t) in targets.iter().enumerate() {
        if !t.busy || !describable(t.kind) || matched[ti] {
            continue;
        }
        if !reported.insert(normalize_name(t.name)) {
            continue;
        }
        out.warnings.push(TopologyWarning {
            code: "capture-target-not-in-topology",
            subject: t.name.to_owned(),
            message: format!(
                "\"{}\" carries IO but the topology does not describe it: its caps are unknown",
                t.name
            ),
            fix: format!(
                "add [[disk]] name = \"{}\" with its sku and cache to the topology",
                t.name
            ),
        });
    }
    out
}
