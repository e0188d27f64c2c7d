//! Every rule proven on its fixtures, ruff-style: `fixtures/rules/<id>/fires/` must yield a
//! finding with that id and `quiet/` (a near miss) none; the seed scenarios of
//! `fixtures/scenarios/` fire what their `expect.toml` says. What a user sees of the
//! findings is snapshotted in `tests/it/snapshots/rules/`. The fixtures are written by
//! `fixtures/rules/make_fixtures.py`.
//!
//! These tests call the library (`advisor_engine::analyze`), not the binary: faster, and
//! the binary's own tests cover the command line.

// Test helpers outside `#[test]` functions fail loudly on a broken fixture, by design.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use advisor_engine::{Input, Request, Session, TopologySources};
use advisor_model::Analysis;

use common::{assert_no_orphans, repo};

/// The rule ids the contract (`../shared/docs/contract.md`) says the ruleset must carry.
const CONTRACT_IDS: &[&str] = &[
    "vm-cached-throughput-cap",
    "vm-cached-iops-cap",
    "vm-uncached-throughput-cap",
    "vm-uncached-iops-cap",
    "vm-provisioned-exceeds-vm-cap",
    "temp-disk-with-cached-disks",
    "disk-iops-throttled",
    "disk-throughput-throttled",
    "log-disk-host-cache",
    "write-heavy-disk-cached",
    "read-heavy-disk-uncached",
    "readwrite-cache-data-disk",
    "striped-qd-below-8",
    "sync-io-latency-bound",
    "queue-too-deep",
    "throttle-latency-tail",
    "standard-disk-iops-cap",
    "pool-columns-mismatch",
    "stripe-size-mismatch",
    "bench-os-cache-enabled",
    "bench-file-fits-in-cache",
    "bench-too-short",
    "bench-hit-vm-cap",
    "cpu-saturated",
    // Second wave (contract.md, "Added for the second wave").
    "write-accelerator-log-disk",
    "vm-uncached-burst-active",
    "os-disk-workload",
    "pagefile-on-os-disk",
    "inferred-disk-cap",
    "inferred-vm-cap",
    "topology-cap-mismatch",
    "platform-vm-cached-throttled",
    "platform-vm-uncached-throttled",
    "platform-disk-throttled",
    "platform-burst-credits-exhausted",
    "platform-confirms-guest-latency",
    // Third wave (contract.md, "Added for the third wave").
    "disk-at-burst-cap",
    "device-stall",
    "slow-device",
    "local-disk-saturated",
    "bench-no-warmup",
    // SQL Server's file statistics (rules/README.md, "sql/").
    "sql-file-latency",
    "sql-files-on-os-disk",
    "sql-log-shares-data-disk",
    "sql-tempdb-not-on-temp-disk",
];

/// Cases that fail because a RULE or the EVALUATOR is wrong, not the fixture: (rule id or
/// scenario name, case, why). `case` is `fires`, `quiet`, or `fire:RULE` / `quiet:RULE`
/// for one expectation of a scenario. A listed case that starts to pass fails the suite, so
/// this list stays true; remove the entry when the gap is fixed.
const KNOWN_GAPS: &[(&str, &str, &str)] = &[];

fn known_gap(name: &str, case: &str) -> Option<&'static str> {
    KNOWN_GAPS.iter().find(|(n, c, _)| *n == name && *c == case).map(|(_, _, why)| *why)
}

/// Checks one expectation, honouring KNOWN_GAPS: a known gap must still fail (and is
/// reported on stderr); anything else must hold.
fn expect(name: &str, case: &str, holds: bool, detail: impl FnOnce() -> String) -> bool {
    match known_gap(name, case) {
        Some(why) => {
            assert!(
                !holds,
                "{name} {case} is listed in KNOWN_GAPS ({why}) but now passes: remove it"
            );
            eprintln!("known gap: {name} {case}: {why}");
            false
        }
        None => {
            assert!(holds, "{name} {case}: {}", detail());
            true
        }
    }
}

/// A shipped rule file: id, scope and text.
struct RuleFile {
    id: String,
    scope: String,
    text: String,
}

fn rule_files() -> Vec<RuleFile> {
    let dir = repo().join("rules");
    let mut out = Vec::new();
    for rel in common::files_below(&dir) {
        if rel.extension().is_none_or(|e| e != "rule") {
            continue;
        }
        let text = std::fs::read_to_string(dir.join(&rel)).expect("read rule");
        let field = |key: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(key).filter(|r| r.starts_with(' ')))
                .map(|r| r.trim().to_owned())
                .unwrap_or_else(|| panic!("{}: no `{key}` line", rel.display()))
        };
        out.push(RuleFile { id: field("rule"), scope: field("scope"), text: text.clone() });
    }
    out.sort_by(|a, b| a.id.cmp(&b.id));
    out
}

/// The captures of a fixture folder (every file but the topology and the expectations) and
/// its topology, when it has one.
/// The shipped rules, catalog and templates.
fn shipped() -> Session {
    Session::builder().build().expect("the shipped rules load")
}

fn load_case(dir: &Path) -> (Vec<Input>, TopologySources) {
    let mut inputs = Vec::new();
    let mut topology = TopologySources::default();
    for rel in common::files_below(dir) {
        let path = dir.join(&rel);
        match rel.to_string_lossy().as_ref() {
            "topology.toml" => {
                topology.files = vec![path];
            }
            "expect.toml" => {}
            _ => inputs.push(Input::Path(path)),
        }
    }
    assert!(!inputs.is_empty(), "{}: no capture", dir.display());
    (inputs, topology)
}

fn run(dir: &Path) -> Analysis {
    let (inputs, topology) = load_case(dir);
    shipped()
        .analyze(Request::new(inputs).topology(topology), &mut ())
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
}

fn fired(a: &Analysis, rule: &str) -> bool {
    a.findings.iter().any(|f| f.rule == rule)
}

/// What a user sees of findings (of one rule, or all): one block per finding, sorted.
fn transcript(a: &Analysis, rule: Option<&str>) -> String {
    let mut blocks: Vec<String> = a
        .findings
        .iter()
        .filter(|f| rule.is_none_or(|r| f.rule == r))
        .map(|f| {
            format!(
                "rule:     {}\nseverity: {}\nsubject:  {}\ntitle:    {}\nevidence: {}\nfix:      {}\n",
                f.rule, f.severity, f.subject, f.title, f.evidence, f.fix
            )
        })
        .collect();
    blocks.sort();
    if blocks.is_empty() { "(no findings)\n".to_owned() } else { blocks.join("\n") }
}

/// A short account of an analysis for failure messages: findings and not-evaluated rules.
fn summary(a: &Analysis) -> String {
    let mut s = String::from("findings:\n");
    for f in &a.findings {
        s.push_str(&format!("  {} [{}] {}\n", f.rule, f.subject, f.evidence));
    }
    s.push_str("not evaluated:\n");
    for n in &a.not_evaluated {
        s.push_str(&format!(
            "  {} [{}] {}\n",
            n.rule,
            n.subject.as_deref().unwrap_or("-"),
            n.reason
        ));
    }
    s.push_str("warnings:\n");
    for w in &a.warnings {
        s.push_str(&format!("  {w}\n"));
    }
    s
}

fn snapshot_settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(repo().join("tests/it/snapshots/rules"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings
}

fn rule_dir(id: &str) -> PathBuf {
    repo().join("fixtures/rules").join(id)
}

/// The cases of a rule's fixture folder: `fires` and `quiet`, and any extra `fires-NAME` /
/// `quiet-NAME` a defect needs beyond one near miss, sorted.
fn rule_cases(id: &str) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(rule_dir(id))
        .map(|rd| {
            rd.flatten()
                .filter(|e| e.path().is_dir())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| {
                    ["fires", "quiet"].iter().any(|c| {
                        n == c
                            || n.strip_prefix(c).is_some_and(|r| r.starts_with('-') && r.len() > 1)
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// The snapshot of a firing case: `<id>` for `fires`, `<id>__NAME` for `fires-NAME`.
fn case_snapshot(id: &str, case: &str) -> Option<String> {
    match case {
        "fires" => Some(id.to_owned()),
        c => c.strip_prefix("fires-").map(|x| format!("{id}__{x}")),
    }
}

/// analyze(fires*) reports `id`, analyze(quiet*) does not; the findings of `id` in each
/// firing case are snapshotted (`<id>.snap`, `<id>__NAME.snap`).
fn check_rule(id: &str) {
    let dir = rule_dir(id);
    for case in rule_cases(id) {
        let a = run(&dir.join(&case));
        match case_snapshot(id, &case) {
            Some(snap) => {
                let ok = expect(id, &case, fired(&a, id), || {
                    format!("expected a finding for {id} on {case}/\n{}", summary(&a))
                });
                if ok {
                    snapshot_settings()
                        .bind(|| insta::assert_snapshot!(snap, transcript(&a, Some(id))));
                }
            }
            None => {
                expect(id, &case, !fired(&a, id), || {
                    format!("expected no finding for {id} on {case}/\n{}", summary(&a))
                });
            }
        }
    }
}

macro_rules! rule_tests {
    ($($name:ident => $id:literal,)*) => {
        $(
            #[test]
            fn $name() {
                check_rule($id);
            }
        )*
        /// The ids the per-rule tests above cover.
        const TESTED_RULES: &[&str] = &[$($id),*];
    };
}

rule_tests! {
    bench_file_fits_in_cache => "bench-file-fits-in-cache",
    bench_fsync_latency_hidden => "bench-fsync-latency-hidden",
    bench_hit_vm_cap => "bench-hit-vm-cap",
    bench_no_warmup => "bench-no-warmup",
    bench_os_cache_enabled => "bench-os-cache-enabled",
    bench_single_thread_qd1 => "bench-single-thread-qd1",
    bench_too_short => "bench-too-short",
    log_disk_host_cache => "log-disk-host-cache",
    read_heavy_disk_uncached => "read-heavy-disk-uncached",
    readwrite_cache_data_disk => "readwrite-cache-data-disk",
    write_heavy_disk_cached => "write-heavy-disk-cached",
    write_accelerator_log_disk => "write-accelerator-log-disk",
    disk_at_burst_cap => "disk-at-burst-cap",
    disk_burst_credits_exhausted => "disk-burst-credits-exhausted",
    disk_iops_throttled => "disk-iops-throttled",
    disk_throughput_throttled => "disk-throughput-throttled",
    large_io_throughput_bound => "large-io-throughput-bound",
    small_io_iops_bound => "small-io-iops-bound",
    standard_disk_iops_cap => "standard-disk-iops-cap",
    cpu_saturated => "cpu-saturated",
    device_stall => "device-stall",
    slow_device => "slow-device",
    local_disk_saturated => "local-disk-saturated",
    latency_above_norm => "latency-above-norm",
    queue_too_deep => "queue-too-deep",
    sync_io_latency_bound => "sync-io-latency-bound",
    throttle_latency_tail => "throttle-latency-tail",
    pool_columns_mismatch => "pool-columns-mismatch",
    standard_pool_iops_cap => "standard-pool-iops-cap",
    stripe_size_mismatch => "stripe-size-mismatch",
    striped_qd_below_8 => "striped-qd-below-8",
    temp_disk_pressure => "temp-disk-pressure",
    temp_disk_with_cached_disks => "temp-disk-with-cached-disks",
    vm_cached_iops_cap => "vm-cached-iops-cap",
    vm_cached_provisioned_exceeds_cap => "vm-cached-provisioned-exceeds-cap",
    vm_cached_throughput_cap => "vm-cached-throughput-cap",
    vm_provisioned_exceeds_vm_cap => "vm-provisioned-exceeds-vm-cap",
    vm_uncached_iops_cap => "vm-uncached-iops-cap",
    vm_uncached_throughput_cap => "vm-uncached-throughput-cap",
    vm_uncached_burst_active => "vm-uncached-burst-active",
    os_disk_workload => "os-disk-workload",
    pagefile_on_os_disk => "pagefile-on-os-disk",
    inferred_disk_cap => "inferred-disk-cap",
    inferred_vm_cap => "inferred-vm-cap",
    topology_cap_mismatch => "topology-cap-mismatch",
    platform_vm_cached_throttled => "platform-vm-cached-throttled",
    platform_vm_uncached_throttled => "platform-vm-uncached-throttled",
    platform_disk_throttled => "platform-disk-throttled",
    platform_burst_credits_exhausted => "platform-burst-credits-exhausted",
    platform_confirms_guest_latency => "platform-confirms-guest-latency",
    sql_file_latency => "sql-file-latency",
    sql_files_on_os_disk => "sql-files-on-os-disk",
    sql_log_shares_data_disk => "sql-log-shares-data-disk",
    sql_tempdb_not_on_temp_disk => "sql-tempdb-not-on-temp-disk",
}

#[test]
fn every_contract_id_is_shipped_and_every_rule_has_fixtures_and_a_test() {
    let files = rule_files();
    let ids: BTreeSet<&str> = files.iter().map(|r| r.id.as_str()).collect();
    let (registry, loaded) = advisor_engine::rules::Registry::shipped();
    loaded.expect("the shipped ruleset loads");
    for id in CONTRACT_IDS {
        assert!(ids.contains(id), "contract id {id} has no file in rules/");
        assert!(registry.get(id).is_some(), "contract id {id} is not in the shipped registry");
    }
    for id in &ids {
        assert!(registry.get(id).is_some(), "rules/ holds {id} but the binary does not ship it");
        for case in ["fires", "quiet"] {
            let dir = rule_dir(id).join(case);
            assert!(dir.is_dir(), "{id} has no fixture folder {}", dir.display());
        }
    }
    let tested: BTreeSet<&str> = TESTED_RULES.iter().copied().collect();
    assert_eq!(tested, ids, "the rule_tests! list and rules/ disagree");
    // No fixture folder for a rule that no longer exists.
    for e in std::fs::read_dir(repo().join("fixtures/rules")).expect("fixtures/rules").flatten() {
        if e.path().is_dir() {
            let name = e.file_name().to_string_lossy().into_owned();
            assert!(ids.contains(name.as_str()), "fixtures/rules/{name} has no rule");
        }
    }
    // Every snapshot belongs to a rule or a scenario.
    let mut produced: Vec<String> = ids
        .iter()
        .flat_map(|id| rule_cases(id).into_iter().filter_map(|c| case_snapshot(id, &c)))
        .collect();
    produced.extend(scenarios().into_iter().map(|s| format!("scenario__{}", s.name)));
    assert_no_orphans(&repo().join("tests/it/snapshots/rules"), &produced);
}

/// A seed scenario and what it expects.
struct Scenario {
    name: String,
    dir: PathBuf,
    fire: Vec<String>,
    quiet: Vec<String>,
}

/// `expect.toml`: `fire = ["id", ...]` and `quiet = ["id", ...]`, one line each.
fn parse_expect(text: &str) -> (Vec<String>, Vec<String>) {
    let list = |key: &str| -> Vec<String> {
        text.lines()
            .find_map(|l| {
                let (k, v) = l.split_once('=')?;
                (k.trim() == key).then(|| v.trim().to_owned())
            })
            .map(|v| {
                v.trim_matches(['[', ']'])
                    .split(',')
                    .map(|s| s.trim().trim_matches('"').to_owned())
                    .filter(|s| !s.is_empty())
                    .collect()
            })
            .unwrap_or_default()
    };
    (list("fire"), list("quiet"))
}

fn scenarios() -> Vec<Scenario> {
    let root = repo().join("fixtures/scenarios");
    let mut out = Vec::new();
    for e in std::fs::read_dir(&root).expect("fixtures/scenarios").flatten() {
        let dir = e.path();
        if !dir.is_dir() {
            continue;
        }
        let text = std::fs::read_to_string(dir.join("expect.toml")).expect("expect.toml");
        let (fire, quiet) = parse_expect(&text);
        let name = e.file_name().to_string_lossy().into_owned();
        out.push(Scenario { name, dir, fire, quiet });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

#[test]
fn scenarios_fire_what_they_expect() {
    let ids: BTreeSet<String> = rule_files().into_iter().map(|r| r.id).collect();
    let all = scenarios();
    assert!(all.len() >= 8, "the eight seed scenarios of domain.md");
    for s in &all {
        assert!(!s.fire.is_empty(), "{}: expect.toml lists nothing to fire", s.name);
        for id in s.fire.iter().chain(&s.quiet) {
            assert!(ids.contains(id), "{}: expect.toml names unknown rule {id}", s.name);
        }
        let a = run(&s.dir);
        for id in &s.fire {
            expect(&s.name, &format!("fire:{id}"), fired(&a, id), || {
                format!("expected {id} to fire\n{}", summary(&a))
            });
        }
        for id in &s.quiet {
            expect(&s.name, &format!("quiet:{id}"), !fired(&a, id), || {
                format!("expected {id} not to fire\n{}", summary(&a))
            });
        }
        let name = format!("scenario__{}", s.name);
        snapshot_settings().bind(|| insta::assert_snapshot!(name, transcript(&a, None)));
    }
}

/// Rules of scope `vm` that compare with the VM's figures (`vm.`): without a topology they
/// cannot run, and must say so rather than vanish.
#[test]
fn without_a_topology_vm_rules_are_listed_as_not_evaluated_with_the_way_to_fix_it() {
    let vm_rules: Vec<String> = rule_files()
        .into_iter()
        .filter(|r| r.scope == "vm" && r.text.contains("vm."))
        // Reads its cap from the data; the VM's family only narrows the sizes it lists.
        .filter(|r| r.id != "inferred-vm-cap")
        .map(|r| r.id)
        .collect();
    assert!(vm_rules.len() >= 8, "{vm_rules:?}");
    let dir = repo().join("fixtures/scenarios/ds13v2-temp-disk-throttles-cached-p30");
    let (inputs, _) = load_case(&dir);
    let a = shipped().analyze(Request::new(inputs), &mut ()).expect("analyze");
    for id in &vm_rules {
        let entry = a.not_evaluated.iter().find(|n| &n.rule == id);
        let entry =
            entry.unwrap_or_else(|| panic!("{id} is not listed as not evaluated\n{}", summary(&a)));
        assert!(
            entry.reason.contains("--vm") || entry.reason.contains("--topology"),
            "{id}: the reason does not say to pass --vm or --topology: {}",
            entry.reason
        );
        assert!(!fired(&a, id), "{id} fired without a topology");
    }
}

/// A short capture is judged at a lower confidence, never dropped: the P10's burst ceiling
/// held for 20 s is named, less sure than over the full minute; 4 busy samples cannot tell a
/// ceiling from a peak, and the rule says so for the busy disk (the idle C: stays quiet).
#[test]
fn a_short_capture_names_the_ceiling_at_a_lower_confidence() {
    let id = "inferred-disk-cap";
    let confidence = |a: &Analysis| {
        let f = a.findings.iter().find(|f| f.rule == id && f.subject == "2 E:");
        let f = f.unwrap_or_else(|| panic!("no {id} for 2 E:\n{}", summary(a)));
        assert!(
            f.evidence.contains("P1-P20 (Premium SSD) burst cap of 3,500 IOPS"),
            "{}",
            f.evidence
        );
        *f.metrics.get("confidence").unwrap_or_else(|| panic!("no confidence: {:?}", f.metrics))
    };
    let short = run(&rule_dir(id).join("fires-short-capture"));
    let full = run(&rule_dir(id).join("fires"));
    let (short_c, full_c) = (confidence(&short), confidence(&full));
    assert!(short_c < full_c, "20 s at {short_c}% is not less sure than 60 s at {full_c}%");
    let f = short.findings.iter().find(|f| f.rule == id).expect("finding");
    assert!(f.evidence.contains("a short capture"), "{}", f.evidence);
    assert!(full.not_evaluated.iter().all(|n| n.rule != id), "{}", summary(&full));

    let few = run(&rule_dir(id).join("quiet-too-few-samples"));
    assert!(!fired(&few, id), "{}", summary(&few));
    let ne: Vec<_> = few.not_evaluated.iter().filter(|n| n.rule == id).collect();
    assert_eq!(ne.len(), 1, "{}", summary(&few));
    assert!(ne[0].reason.contains("busy samples"), "{}", ne[0].reason);
}

/// Disks that cannot be cached are skipped by the cache advice, not reported as missing an
/// input: a Premium SSD v2 whose SKU is given used to be "not evaluated" (no disk size).
#[test]
fn cache_advice_is_quiet_not_unevaluated_for_disks_that_cannot_cache() {
    for case in ["quiet-premium-v2", "quiet-b-series"] {
        let a = run(&rule_dir("read-heavy-disk-uncached").join(case));
        let id = "read-heavy-disk-uncached";
        assert!(!fired(&a, id), "{case}\n{}", summary(&a));
        let skipped: Vec<_> = a.not_evaluated.iter().filter(|n| n.rule == id).collect();
        assert!(skipped.is_empty(), "{case}: {id} not evaluated: {skipped:?}");
    }
}

/// Write Accelerator: an M-series log disk whose topology does not say is not evaluated,
/// with the key to add; other disks and VMs stay quiet without it.
#[test]
fn write_accelerator_unknown_is_not_evaluated_with_the_key_to_set() {
    let dir = rule_dir("write-accelerator-log-disk").join("fires");
    let (inputs, _) = load_case(&dir);
    let text = std::fs::read_to_string(dir.join("topology.toml")).expect("topology");
    let text = text.replace("write_accelerator = false\n", "");
    let topology =
        TopologySources { texts: vec![("t.toml".to_owned(), text)], ..TopologySources::default() };
    let a = shipped()
        .analyze(Request::new(inputs).topology(topology.clone()), &mut ())
        .expect("analyze");
    let id = "write-accelerator-log-disk";
    assert!(!fired(&a, id), "{}", summary(&a));
    let ne: Vec<_> = a.not_evaluated.iter().filter(|n| n.rule == id).collect();
    assert_eq!(ne.len(), 1, "{}", summary(&a));
    assert_eq!(ne[0].subject.as_deref(), Some("L:"), "{ne:?}");
    assert!(ne[0].reason.contains("write_accelerator = true or false"), "{}", ne[0].reason);
}
