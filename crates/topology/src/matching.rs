//! Which capture target is which topology disk, pool or temp disk.

use advisor_model::TargetKind;
use serde::Serialize;

use crate::names::{matches, normalize_name};
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
}

/// Ties capture targets to the topology. A target may match several subjects (PerfMon's
/// `6 F:` is both a pool's volume and, by number, a disk); all pairs are returned.
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

    let mut out = Matching::default();
    for (ti, t) in targets.iter().enumerate() {
        for (s, name) in &subjects {
            if matches(name, t.name, Some(t.kind)) {
                out.matches.push(TargetMatch { target: ti, subject: *s, name: (*name).to_owned() });
            }
        }
    }

    let describable = |k: TargetKind| !matches!(k, TargetKind::Aggregate | TargetKind::Host);
    if targets.iter().any(|t| describable(t.kind)) {
        for (s, name) in &subjects {
            // A pool member is often seen only through its pool's volume.
            let in_pool = matches!(s, Subject::Disk(i) if topology.pools.iter().any(|p| p.members.contains(&Some(*i))));
            if !in_pool && !out.matches.iter().any(|m| m.subject == *s && m.name == *name) {
                out.warnings.push(TopologyWarning {
                    code: "topology-disk-not-in-capture",
                    subject: (*name).to_owned(),
                    message: format!("\"{name}\" is described in the topology but no capture mentions it"),
                    fix: "check its name against the capture's (PerfMon `1 E:` or `E:`, iostat `sdc`), or capture that disk too".to_owned(),
                });
            }
        }
    }

    let mut reported: Vec<String> = Vec::new();
    for (ti, t) in targets.iter().enumerate() {
        if !t.busy || !describable(t.kind) || out.matches.iter().any(|m| m.target == ti) {
            continue;
        }
        let key = normalize_name(t.name);
        if reported.contains(&key) {
            continue;
        }
        reported.push(key);
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
