//! One story per cause: a rule's `explains RULE-ID ...` says that its finding
//! explains those rules' findings. After evaluation each finding explained by another gets
//! `explained_by`, and the one explaining it lists it in `causes`, by finding id.
//!
//! A finding about the VM explains the named rules' findings on any subject (the VM's
//! budgets are shared by every disk); a finding about a disk, pool or target explains only
//! those about the same subject. Stories are one level deep: a finding is a cause or an
//! effect, never both. Findings no other finding explains are considered first, most
//! severe first (the order they come in), so the root of a chain heads the story; a
//! finding with no known cause stays on its own.

use std::collections::HashMap;
use std::hash::Hash;

use advisor_model::Finding;

/// Which findings a finding may explain, as [`link`] looks candidates up: every subject (a
/// finding about the VM), or those sharing one of its keys (its subject, its disk).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reach<K> {
    /// As a cause, it may explain findings about any subject.
    pub everywhere: bool,
    /// As a cause, the keys an effect must share with it (unless `everywhere`); as an
    /// effect, the keys it is found by.
    pub keys: Vec<K>,
}

/// A cause is never less severe than its effects: a note that the VM *may* be at a cap
/// does not explain a warning.
///
/// Links `findings` (most severe first) by their rules' `explains`; `fits(cause, effect)`
/// says whether the two are about related subjects (and the rule's `where` holds). It is
/// asked only of pairs `reach` allows (a cause that reaches `everywhere`, or an effect
/// sharing one of its keys), and must refuse every other pair: so the work grows with the
/// pairs of related findings, not with the square of all findings (a capture of thousands
/// of targets has thousands of findings).
pub fn link<'r, K: Hash + Eq>(
    findings: &mut [Finding],
    explains: impl Fn(&str) -> &'r [String],
    reach: impl Fn(&Finding) -> Reach<K>,
    fits: impl Fn(&Finding, &Finding) -> bool,
) {
    let n = findings.len();
    let reaches: Vec<Reach<K>> = findings.iter().map(&reach).collect();
    let mut by_rule: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut by_key: HashMap<&K, Vec<usize>> = HashMap::new();
    for (j, f) in findings.iter().enumerate() {
        by_rule.entry(f.rule.as_str()).or_default().push(j);
        for k in &reaches[j].keys {
            let at = by_key.entry(k).or_default();
            if at.last() != Some(&j) {
                at.push(j);
            }
        }
    }
    let explains_it = |a: &Finding, b: &Finding| {
        a.id != b.id
            && a.severity >= b.severity
            && explains(&a.rule).contains(&b.rule)
            && fits(a, b)
    };
    // What each finding could explain, in finding order.
    let mut seen = vec![usize::MAX; n];
    let mut could: Vec<Vec<usize>> = Vec::with_capacity(n);
    for (i, cause) in findings.iter().enumerate() {
        let effects = explains(&cause.rule);
        let mut mine = Vec::new();
        let mut consider = |j: usize| {
            if j != i && seen[j] != i {
                seen[j] = i;
                if explains_it(cause, &findings[j]) {
                    mine.push(j);
                }
            }
        };
        if reaches[i].everywhere {
            for rule in effects {
                by_rule.get(rule.as_str()).into_iter().flatten().for_each(|&j| consider(j));
            }
        } else if !effects.is_empty() {
            for k in &reaches[i].keys {
                by_key.get(k).into_iter().flatten().for_each(|&j| consider(j));
            }
        }
        mine.sort_unstable();
        could.push(mine);
    }
    // Whether some other fired finding could explain each one.
    let mut explained = vec![false; n];
    for &j in could.iter().flatten() {
        explained[j] = true;
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| (explained[i], i));
    let mut cause_of: Vec<Option<usize>> = vec![None; n];
    let mut is_cause = vec![false; n];
    for &i in &order {
        if cause_of[i].is_some() {
            continue;
        }
        for &j in &could[i] {
            if cause_of[j].is_none() && !is_cause[j] {
                cause_of[j] = Some(i);
                is_cause[i] = true;
            }
        }
    }
    for j in 0..n {
        if let Some(i) = cause_of[j] {
            let (cause, effect) = (findings[i].id.clone(), findings[j].id.clone());
            findings[i].causes.push(effect);
            findings[j].explained_by.push(cause);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use advisor_model::Severity;

    use super::*;

    fn f(rule: &str, severity: Severity, subject: &str) -> Finding {
        Finding {
            id: format!("{rule}@{subject}"),
            rule: rule.into(),
            severity,
            subject: subject.into(),
            title: String::new(),
            evidence: String::new(),
            fix: String::new(),
            metrics: BTreeMap::new(),
            refs: Vec::new(),
            episodes: Vec::new(),
            episode_window: None,
            causes: Vec::new(),
            explained_by: Vec::new(),
            recommendation: None,
        }
    }

    fn rules(id: &str) -> &'static [String] {
        static CAP: std::sync::LazyLock<Vec<String>> =
            std::sync::LazyLock::new(|| vec!["temp".into(), "latency".into(), "cpu".into()]);
        static TEMP: std::sync::LazyLock<Vec<String>> =
            std::sync::LazyLock::new(|| vec!["cap".into()]);
        static DISK: std::sync::LazyLock<Vec<String>> =
            std::sync::LazyLock::new(|| vec!["latency".into()]);
        match id {
            "cap" => &CAP,
            "temp" => &TEMP,
            "disk-cap" => &DISK,
            _ => &[],
        }
    }

    fn same_subject(a: &Finding, b: &Finding) -> bool {
        a.subject == "vm" || a.subject == b.subject
    }

    /// A finding about the VM reaches every subject; others, their own.
    fn reach(f: &Finding) -> Reach<String> {
        Reach { everywhere: f.subject == "vm", keys: vec![f.subject.clone()] }
    }

    #[test]
    fn a_vm_cause_explains_every_subject_and_a_loner_stays_alone() {
        let mut v = vec![
            f("cap", Severity::Critical, "vm"),
            f("latency", Severity::Warning, "E:"),
            f("queue", Severity::Warning, "E:"),
            f("temp", Severity::Warning, "vm"),
        ];
        link(&mut v, rules, reach, same_subject);
        assert_eq!(v[0].causes, ["latency@E:", "temp@vm"]);
        assert_eq!(v[1].explained_by, ["cap@vm"]);
        assert_eq!(v[3].explained_by, ["cap@vm"]);
        // No rule explains `queue`: it stays on its own.
        assert!(v[2].causes.is_empty() && v[2].explained_by.is_empty());
    }

    #[test]
    fn a_cause_less_severe_than_a_finding_does_not_explain_it() {
        let mut v = vec![f("latency", Severity::Warning, "E:"), f("cap", Severity::Info, "vm")];
        link(&mut v, rules, reach, same_subject);
        assert!(v.iter().all(|f| f.causes.is_empty() && f.explained_by.is_empty()));
    }

    #[test]
    fn a_disk_cause_explains_only_its_own_disk() {
        let mut v = vec![
            f("disk-cap", Severity::Critical, "F:"),
            f("latency", Severity::Warning, "E:"),
            f("latency", Severity::Warning, "F:"),
        ];
        link(&mut v, rules, reach, same_subject);
        assert_eq!(v[0].causes, ["latency@F:"]);
        assert!(v[1].explained_by.is_empty());
    }

    #[test]
    fn stories_are_one_level_and_a_cycle_has_one_root() {
        // `cap` explains `temp` and `temp` explains `cap`: the first (most severe) heads.
        let mut v = vec![f("cap", Severity::Critical, "vm"), f("temp", Severity::Warning, "vm")];
        link(&mut v, rules, reach, same_subject);
        assert_eq!(v[0].causes, ["temp@vm"]);
        assert!(v[0].explained_by.is_empty());
        assert!(v[1].causes.is_empty());
    }
}
