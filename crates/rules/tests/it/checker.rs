//! The checker's output as the evaluator sees it, the built-ins' examples, and the shipped
//! ruleset.

#![allow(clippy::panic, clippy::expect_used, clippy::unwrap_used)] // tests fail by panicking

use advisor_model::Metric;
use advisor_rules::builtins::{AGGREGATES, FUNCTIONS};
use advisor_rules::types::{DiskField, VmField};
use advisor_rules::*;

/// A complete disk-scope rule around a `let` and a `when`.
fn rule(scope: &str, lets: &str, when: &str) -> String {
    format!(
        "rule t\ntitle \"t\"\nseverity info\nscope {scope}\n{lets}\nwhen {when}\n\
         evidence \"e\"\nfix \"f\"\ndoc what \"\"\"w\"\"\"\ndoc why \"\"\"y\"\"\"\ndoc fix \"\"\"f\"\"\"\n"
    )
}

fn compiled(scope: &str, lets: &str, when: &str) -> CheckedRule {
    let src = rule(scope, lets, when);
    compile("t.rule", &src)
        .unwrap_or_else(|d| panic!("{}", d.iter().map(|d| d.to_string()).collect::<String>()))
}

fn errors(scope: &str, lets: &str, when: &str) -> Vec<&'static str> {
    match compile("t.rule", &rule(scope, lets, when)) {
        Ok(_) => Vec::new(),
        Err(d) => d.iter().map(|d| d.code).collect(),
    }
}

#[test]
fn every_builtin_example_parses_and_checks() {
    let examples = FUNCTIONS.iter().map(|f| f.example).chain(AGGREGATES.iter().map(|a| a.example));
    for ex in examples {
        parse_expr(ex).unwrap_or_else(|e| panic!("{ex}: {e}"));
        let src = rule("disk", &format!("let x = {ex}"), "true");
        if let Err(d) = compile("t.rule", &src) {
            panic!("{ex}:\n{}", d.iter().map(|d| d.to_string()).collect::<String>());
        }
    }
}

#[test]
fn every_function_is_documented() {
    for f in FUNCTIONS {
        assert!(!f.doc.is_empty() && !f.example.is_empty(), "{}", f.name);
        assert!(
            f.example.contains(&format!("{}(", f.name)),
            "{}'s example does not use it",
            f.name
        );
    }
    for a in AGGREGATES {
        assert!(a.example.starts_with(&format!("{}(", a.name)) && a.example.contains(" over "));
    }
}

#[test]
fn references_are_resolved_for_the_evaluator() {
    let r = compiled(
        "vm",
        "param cap_ratio = 95% \"c\"\nlet cached = sum(mbps) over disks where cache != none or role == temp\nlet peak = p95(cached)",
        "peak >= vm.cached_mbps * cap_ratio",
    );
    assert_eq!(r.params[0].value, Constant::Number(0.95));
    assert_eq!(r.lets[0].expr.ty, Ty::series(Dim::Throughput));
    assert_eq!(r.lets[1].expr.ty, Ty::scalar(Dim::Throughput));
    let TypedExprKind::Aggregate { over, body, filter, .. } = &r.lets[0].expr.kind else {
        panic!("not an aggregate: {:?}", r.lets[0].expr.kind)
    };
    assert_eq!(*over, Collection::Disks);
    assert_eq!(
        body.kind,
        TypedExprKind::Ref(Ref::Metric { of: Owner::Over(0), metric: Metric::Mbps })
    );
    let Some(TypedExprKind::Binary(_, lhs, _)) = filter.as_ref().map(|f| &f.kind) else { panic!() };
    let TypedExprKind::Binary(_, cache, none) = &lhs.kind else { panic!() };
    assert_eq!(
        cache.kind,
        TypedExprKind::Ref(Ref::Field { of: Owner::Over(0), field: Field::Disk(DiskField::Cache) })
    );
    assert_eq!(none.kind, TypedExprKind::Cache(types::CacheMode::None));
    let TypedExprKind::Binary(_, peak, rhs) = &r.when.kind else { panic!() };
    assert_eq!(peak.kind, TypedExprKind::Ref(Ref::Let(1)));
    let TypedExprKind::Binary(_, cap, ratio) = &rhs.kind else { panic!() };
    assert_eq!(
        cap.kind,
        TypedExprKind::Ref(Ref::Field { of: Owner::Vm, field: Field::Vm(VmField::CachedMbps) })
    );
    assert_eq!(ratio.kind, TypedExprKind::Ref(Ref::Param(0)));
}

#[test]
fn literals_are_stored_in_base_units() {
    let r =
        compiled("disk", "let a = 8 KiB\nlet b = 2 ms\nlet c = 200 MB/s\nlet d = 1 min", "true");
    let vals: Vec<_> = r.lets.iter().map(|l| l.expr.kind.clone()).collect();
    assert_eq!(
        vals,
        vec![
            TypedExprKind::Number(8192.0),
            TypedExprKind::Number(0.002),
            TypedExprKind::Number(200.0 * 1e6),
            TypedExprKind::Number(60.0)
        ]
    );
}

#[test]
fn dimension_algebra_in_rules() {
    let r = compiled(
        "disk",
        "let qd = iops * latency_ms\nlet io_size = mbps / iops\nlet rate = 1 / latency_ms\nlet tp = io_kib * iops",
        "true",
    );
    let dims: Vec<_> = r.lets.iter().map(|l| l.expr.ty).collect();
    assert_eq!(
        dims,
        vec![
            Ty::series(Dim::Count),
            Ty::series(Dim::Size),
            Ty::series(Dim::Rate),
            Ty::series(Dim::Throughput)
        ]
    );
    assert_eq!(errors("disk", "", "p95(iops) > 200 MB/s"), ["E0201"]);
    assert_eq!(errors("disk", "let x = mbps + latency_ms", "true"), ["E0201"]);
    assert_eq!(errors("disk", "", "p95(mbps) > 0"), Vec::<&str>::new(), "0 fits any dimension");
}

#[test]
fn scopes_and_elements() {
    let r = compiled("pool", "let n = count(disk) over pool.members where role == log", "n > 0");
    let TypedExprKind::Aggregate { over, body, .. } = &r.lets[0].expr.kind else { panic!() };
    assert_eq!(*over, Collection::PoolMembers { of: Owner::Scope });
    assert_eq!(body.kind, TypedExprKind::Ref(Ref::Element(Owner::Over(0))));
    assert_eq!(r.lets[0].expr.ty, Ty::scalar(Dim::Count));
    // bare fields of the scope element, and of the `over` element in a nested aggregate
    compiled("disk", "", "cache != none and any(p95(iops) >= disk.iops_cap) over disks");
    compiled("vm", "", "exists(vm.temp_disk) and p95(vm.temp_disk.iops) > 100 iops");
    compiled(
        "bench",
        "",
        "bench.os_cache and bench.file_size < vm.memory and avg(queue_depth) > bench.queue_depth",
    );
    compiled("vm", "", "sustained(host.cpu_pct > 95%, 5 min)");
    assert_eq!(errors("vm", "", "p95(iops) > 5 iops"), ["E0114"]);
    assert_eq!(errors("vm", "", "disk.cache == none"), ["E0113"]);
    assert_eq!(errors("disk", "", "pool.name == \"x\""), ["E0113"]);
    assert_eq!(errors("vm", "", "vm.cahced_mbps > 1 MB/s"), ["E0112"]);
}

#[test]
fn series_and_scalars() {
    assert_eq!(errors("disk", "", "iops > 5 iops"), ["E0203"]);
    assert_eq!(errors("disk", "", "share(p95(iops) > 5 iops) > 5%"), ["E0202"]);
    assert_eq!(errors("disk", "", "p95(disk.iops_cap) > 5 iops"), ["E0202"]);
    compiled("disk", "let s = share(iops > 5 iops)", "s > 50% and duration(iops > 5 iops) > 1 min");
}

#[test]
fn the_shipped_ruleset_checks() {
    let (reg, res) = Registry::shipped();
    if let Err(e) = res {
        panic!("{e}");
    }
    for r in reg.rules() {
        assert!(!explain(r).is_empty());
        // Canonical text of every shipped rule parses back to the same tree.
        let text = print(&r.ast);
        let back = parse(&text).unwrap_or_else(|e| panic!("{}: {e:?}", r.id));
        assert_eq!(back.without_spans(), r.ast.without_spans(), "{}", r.id);
    }
}

#[test]
fn the_fixtures_that_must_check_do() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ok");
    let files = registry::dir_files(&dir).expect("read tests/ok");
    assert!(files.len() >= 2);
    let mut reg = Registry::new();
    reg.add_files(files, &Origin::Dir(dir)).unwrap_or_else(|e| panic!("{e}"));
    let r = reg.get("vm-cached-throughput-cap").expect("loaded");
    // The file line names where the checkout is: keep the snapshot free of it.
    let root = format!("{}/", env!("CARGO_MANIFEST_DIR"));
    insta::assert_snapshot!("explain", explain(r).replace(&root, "<crate>/"));
}

#[test]
fn if_needs_a_scalar_bool_and_two_values_of_one_type() {
    let r = compiled("disk", "let judged = if(cache == none, iops, write_iops)", "true");
    assert_eq!(r.lets[0].expr.ty, Ty::series(Dim::Rate));
    let r = compiled("disk", "let t = if(disk.is_standard, \"a\", \"b\")", "true");
    assert_eq!(r.lets[0].expr.ty, Ty::scalar(Dim::Text));
    // A plain number beside a count unifies, as for `+`.
    let r = compiled("pool", "let n = if(exists(pool.disks), pool.disks, 1)", "true");
    assert_eq!(r.lets[0].expr.ty, Ty::scalar(Dim::Count));
    // The condition: a scalar bool, not a number or a bool series.
    assert_eq!(errors("disk", "let x = if(iops, 1, 2)", "true"), ["E0202"]);
    assert_eq!(errors("disk", "let x = if(iops > 0 iops, 1, 2)", "true"), ["E0202"]);
    // The two values: one dimension, and both series or both scalars.
    assert_eq!(errors("disk", "let x = if(true, iops, mbps)", "true"), ["E0202"]);
    assert_eq!(errors("disk", "let x = if(true, iops, disk.iops_cap)", "true"), ["E0202"]);
    assert_eq!(errors("disk", "let x = if(true, \"a\", 1)", "true"), ["E0202"]);
    // Three arguments.
    assert!(!errors("disk", "let x = if(true, 1)", "true").is_empty());
}
