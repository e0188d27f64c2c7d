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

use advisor_model::Finding;

/// A cause is never less severe than its effects: a note that the VM *may* be at a cap
/// does not explain a warning.
///
/// Links `findings` (most severe first) by their rules' `explains`; `fits(cause, effect)`
/// says whether the two are about related subjects (and the rule's `where` holds).
pub fn link<'r>(
    findings: &mut [Finding],
    explains: impl Fn(&str) -> &'r [String],
    fits: impl Fn(&Finding, &Finding) -> bool,
) {
    let n = findings.len();
    let explains_it = |a: &Finding, b: &Finding| {
        a.id != b.id
            && a.severity >= b.severity
            && explains(&a.rule).contains(&b.rule)
            && fits(a, b)
    };
    // Whether some other fired finding could explain each one.
    let explained: Vec<bool> =
        (0..n).map(|j| (0..n).any(|i| explains_it(&findings[i], &findings[j]))).collect();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| (explained[i], i));
    let mut cause_of: Vec<Option<usize>> = vec![None; n];
    let mut is_cause = vec![false; n];
    for &i in &order {
        if cause_of[i].is_some() {
            continue;
        }
        for j in 0..n {
            if j != i
                && cause_of[j].is_none()
                && !is_cause[j]
                && explains_it(&findings[i], &findings[j])
            {
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

    #[test]
    fn a_vm_cause_explains_every_subject_and_a_loner_stays_alone() {
        let mut v = vec![
            f("cap", Severity::Critical, "vm"),
            f("latency", Severity::Warning, "E:"),
            f("queue", Severity::Warning, "E:"),
            f("temp", Severity::Warning, "vm"),
        ];
        link(&mut v, rules, same_subject);
        assert_eq!(v[0].causes, ["latency@E:", "temp@vm"]);
        assert_eq!(v[1].explained_by, ["cap@vm"]);
        assert_eq!(v[3].explained_by, ["cap@vm"]);
        // No rule explains `queue`: it stays on its own.
        assert!(v[2].causes.is_empty() && v[2].explained_by.is_empty());
    }

    #[test]
    fn a_cause_less_severe_than_a_finding_does_not_explain_it() {
        let mut v = vec![f("latency", Severity::Warning, "E:"), f("cap", Severity::Info, "vm")];
        link(&mut v, rules, same_subject);
        assert!(v.iter().all(|f| f.causes.is_empty() && f.explained_by.is_empty()));
    }

    #[test]
    fn a_disk_cause_explains_only_its_own_disk() {
        let mut v = vec![
            f("disk-cap", Severity::Critical, "F:"),
            f("latency", Severity::Warning, "E:"),
            f("latency", Severity::Warning, "F:"),
        ];
        link(&mut v, rules, same_subject);
        assert_eq!(v[0].causes, ["latency@F:"]);
        assert!(v[1].explained_by.is_empty());
    }

    #[test]
    fn stories_are_one_level_and_a_cycle_has_one_root() {
        // `cap` explains `temp` and `temp` explains `cap`: the first (most severe) heads.
        let mut v = vec![f("cap", Severity::Critical, "vm"), f("temp", Severity::Warning, "vm")];
        link(&mut v, rules, same_subject);
        assert_eq!(v[0].causes, ["temp@vm"]);
        assert!(v[0].explained_by.is_empty());
        assert!(v[1].causes.is_empty());
    }
}
