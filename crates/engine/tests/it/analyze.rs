//! `analyze` on the project's own captures and topologies: real findings, by id and number.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::float_cmp)]

use std::path::PathBuf;

use advisor_engine::{
    EngineError, Input, Request, Session, TopologySources, findings_of, not_evaluated_of,
};
use advisor_model::Analysis;
use advisor_report::chart_data;
use advisor_rules::{Registry, Scope};

fn repo(p: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../")).join(p)
}

const PERFMON: &str = "fixtures/captures/perfmon-csv/azure-vm_physicaldisk-logicaldisk-cpu-memory_eastern-240_1s_crlf.csv";

fn topology(p: &str) -> TopologySources {
    TopologySources { files: vec![repo(p)], ..TopologySources::default() }
}

fn run(captures: &[&str], topo: Option<&str>) -> Analysis {
    let inputs: Vec<Input> = captures.iter().map(|c| Input::Path(repo(c))).collect();
    let t = topo.map(topology).unwrap_or_default();
    Session::builder().build().unwrap().analyze(Request::new(inputs).topology(t), &mut ()).unwrap()
}

#[test]
fn ds13_v2_field_case_on_the_perfmon_capture() {
    let a = run(&[PERFMON], Some("fixtures/topologies/ds13_v2_temp_and_cached_p30.toml"));
    assert_eq!(a.schema, "advisor.report/v1");
    assert_eq!(a.tool.name, "advisor");
    assert_eq!(a.vm.as_deref(), Some("Standard_DS13_v2"));

    // E: (P30, 5,000 IOPS) at its cap with latency far above 2 ms.
    let f = findings_of(&a, "disk-iops-throttled").next().expect("disk-iops-throttled");
    assert_eq!(f.subject, "E:");
    assert!((f.metrics["iops_p95"] - 5131.6).abs() < 0.1, "{:?}", f.metrics);
    assert_eq!(f.metrics["disk.iops_cap"], 5000.0);
    assert!(f.metrics["latency_p95"] > 5.0);
    assert!(
        f.evidence.starts_with("E: ran 5132 IOPS (p95), 103% of its 5000 IOPS cap"),
        "{}",
        f.evidence
    );

    // The temp disk D: and the cached disks share DS13_v2's 256 MB/s cached limit.
    let f = findings_of(&a, "vm-cached-throughput-cap").next().expect("vm-cached-throughput-cap");
    assert_eq!(f.subject, "vm");
    assert_eq!(f.metrics["vm.cached_mbps"], 256.0);
    assert!((f.metrics["cached_mbps_p95"] - 247.13).abs() < 0.01, "{:?}", f.metrics);
    assert!(findings_of(&a, "temp-disk-with-cached-disks").next().is_some());
    // Critical first.
    assert_eq!(a.findings[0].severity, advisor_model::Severity::Critical);

    // No benchmark and no pool: said once per rule.
    let ne: Vec<_> = not_evaluated_of(&a, "bench-too-short").collect();
    assert_eq!(ne.len(), 1);
    assert!(ne[0].reason.starts_with("no benchmark in the inputs"));
    assert!(
        not_evaluated_of(&a, "striped-qd-below-8")
            .next()
            .unwrap()
            .reason
            .contains("no striped pools")
    );

    // The checklist ties targets to the topology; charts carry the caps.
    let e = a.targets.iter().find(|t| t.name == "2 E:").unwrap();
    assert_eq!(e.matched.as_deref(), Some("E:"));
    assert!(e.metrics["iops"].p99 > 5000.0);
    let charts = chart_data(&a);
    let c = charts.iter().find(|c| c.target == "2 E:" && c.metric == "mbps").unwrap();
    assert!(c.points.len() <= 300 && c.points.len() >= 2);
    assert!((c.caps[0].value - 190.73).abs() < 0.01, "{:?}", c.caps);
    assert!(c.caps[0].label.contains("MiB/s"));
    let total =
        charts.iter().find(|c| c.target == "PhysicalDisk(_Total)" && c.metric == "iops").unwrap();
    assert!(total.caps.iter().any(|l| l.label.contains("Standard_DS13_v2")));
    // F: is busy but not in the topology.
    assert!(a.warnings.iter().any(|w| w.contains("3 F:")), "{:?}", a.warnings);
}

/// Rules that need neither VM size nor disks (host counters and capture targets only;
/// inferred-vm-cap reads its cap from the data).
const NEED_NO_TOPOLOGY: &[&str] = &["cpu-saturated", "inferred-vm-cap"];

#[test]
fn without_a_topology_vm_disk_and_pool_rules_say_to_pass_one() {
    let a = run(&[PERFMON], None);
    assert_eq!(a.vm, None);
    let (reg, res) = Registry::shipped();
    res.unwrap();
    let mut checked = 0;
    for r in reg.rules().filter(|r| matches!(r.scope, Scope::Vm | Scope::Disk | Scope::Pool)) {
        if NEED_NO_TOPOLOGY.contains(&r.id.as_str()) {
            assert!(not_evaluated_of(&a, &r.id).next().is_none(), "{} should evaluate", r.id);
            continue;
        }
        let ne: Vec<_> = not_evaluated_of(&a, &r.id).collect();
        assert_eq!(ne.len(), 1, "{}: {ne:?}", r.id);
        assert!(
            ne[0].reason.contains("--vm") || ne[0].reason.contains("--topology"),
            "{}: {}",
            r.id,
            ne[0].reason
        );
        assert!(findings_of(&a, &r.id).next().is_none());
        checked += 1;
    }
    assert!(checked >= 20, "{checked}");
    // Target rules still run on the capture alone.
    assert!(not_evaluated_of(&a, "throttle-latency-tail").next().is_none());
}

#[test]
fn benchmarks_fio_and_diskspd() {
    let a = run(
        &[
            "fixtures/captures/fio-json/fio341_4k_randwrite_qd1_psync_fsync1.jsonplus.json",
            "fixtures/captures/diskspd-xml/diskspd_win_64k_randread_o4_t2_noL.xml",
        ],
        Some("fixtures/topologies/ds1_p30.toml"),
    );
    let f = findings_of(&a, "bench-fsync-latency-hidden").next().expect("fsync");
    assert_eq!(f.subject, "/mnt/scratch/fio_rw.dat");
    assert_eq!(f.metrics["bench.sync_every"], 1.0);
    assert!((f.metrics["sync_latency"] - 0.3252).abs() < 1e-3, "{:?}", f.metrics);
    let f = findings_of(&a, "bench-single-thread-qd1").next().expect("qd1");
    assert_eq!(f.metrics["bench.queue_depth"], 1.0);
    // DiskSpd without -Sh: buffered; fio with direct=0 too.
    let subjects: Vec<&str> =
        findings_of(&a, "bench-os-cache-enabled").map(|f| f.subject.as_str()).collect();
    assert_eq!(subjects, ["/mnt/scratch/fio_rw.dat", "E:\\scratch\\dsw_target4.dat"]);
    let f = findings_of(&a, "bench-too-short").find(|f| f.subject.starts_with("E:")).unwrap();
    assert_eq!(
        f.evidence,
        "The run measured for 5.0 s: under the 30 s floor, too short for a steady state, for the tail of the latency to show or for caches and burst credits to play out"
    );
    assert!(!a.curves.is_empty());
    assert!(a.curves.iter().all(|c| c.points.windows(2).all(|w| w[0].0 <= w[1].0)));
    assert_eq!(a.inputs.len(), 2);
    assert_eq!(a.inputs[0].format, "fio-json");
}

#[test]
fn set_values_inputs_in_memory_and_errors() {
    let bytes = std::fs::read(repo(PERFMON)).unwrap();
    let inputs = vec![Input::Bytes { name: "capture.csv".into(), bytes }];
    let t = topology("fixtures/topologies/ds13_v2_temp_and_cached_p30.toml");
    let strict = Session::builder().set(["disk-iops-throttled.latency_factor=25"]).build().unwrap();
    let a = strict.analyze(Request::new(inputs).topology(t.clone()), &mut ()).unwrap();
    assert_eq!(a.inputs[0].file, "capture.csv");
    assert!(findings_of(&a, "disk-iops-throttled").next().is_none());
    assert!(findings_of(&a, "vm-cached-throughput-cap").next().is_some());

    let bad = Session::builder().set(["disk-iops-throttled.nope=1"]).build();
    assert!(matches!(bad, Err(EngineError::Setting(_))));
    let bad = Session::builder().only(["no-such-rule"]).build();
    assert!(matches!(bad, Err(EngineError::Setting(_))));
    let bad = Session::builder().catalog([repo("fixtures/nope.csv")]).build();
    assert!(matches!(bad, Err(EngineError::Catalog(_))));
    // Every unreadable input is reported, not only the first.
    let session = Session::builder().build().unwrap();
    let missing = vec![
        Input::Path(repo("fixtures/captures/nope.csv")),
        Input::Path(repo(PERFMON)),
        Input::Bytes { name: "empty.csv".into(), bytes: Vec::new() },
    ];
    let e = session.analyze(Request::new(missing), &mut ()).unwrap_err();
    let EngineError::Unreadable(errors) = &e else { panic!("{e}") };
    assert_eq!(errors.len(), 2, "{e}");
    assert!(e.to_string().contains("nope.csv") && e.to_string().contains("empty.csv"), "{e}");
    // A bad topology is the topology's error, located, and found before any capture is
    // read (the capture here would not read).
    let with_vm = |vm: &str| {
        let request = Request::new([Input::Bytes { name: "empty.csv".into(), bytes: Vec::new() }]);
        let vm = TopologySources { vm: Some(vm.into()), ..Default::default() };
        session.analyze(request.topology(vm), &mut ())
    };
    assert!(matches!(with_vm(" "), Err(EngineError::Topology(_))));
    // A size the catalog lacks is not: the topology keeps it, its caps unknown.
    let bytes = std::fs::read(repo(PERFMON)).unwrap();
    let request = Request::new([Input::Bytes { name: "capture.csv".into(), bytes }]).topology(
        TopologySources { vm: Some("Standard_NC24ads_A100_v4".into()), ..Default::default() },
    );
    let a = session.analyze(request, &mut ()).unwrap();
    assert_eq!(a.vm.as_deref(), Some("Standard_NC24ads_A100_v4"));
    assert!(
        a.not_evaluated.iter().any(|n| n.reason.contains("Standard_NC24ads_A100_v4")),
        "{:?}",
        a.not_evaluated
    );
}

#[test]
fn striped_pool_seen_through_its_volume() {
    let a = run(&[PERFMON], Some("fixtures/topologies/striped_pool_4disk.toml"));
    // The pool rules are evaluated (or say what they miss) for pool F:, never "no pools".
    for id in ["pool-columns-mismatch", "stripe-size-mismatch", "striped-qd-below-8"] {
        assert!(
            not_evaluated_of(&a, id).all(|n| !n.reason.contains("no striped pools")),
            "{id}: {:?}",
            not_evaluated_of(&a, id).collect::<Vec<_>>()
        );
    }
}

#[test]
fn reduce_points_keeps_each_buckets_peak() {
    let pts: Vec<(i64, f64)> = (0..1000).map(|i| (i, if i == 517 { 99.0 } else { 1.0 })).collect();
    let r = advisor_engine::reduce_points(&pts, 300);
    assert!(r.len() <= 300);
    assert!(r.contains(&(517, 99.0)));
}

#[test]
fn vm_budget_charts_sum_the_disks_against_the_vm_caps() {
    let dir = "fixtures/scenarios/ds13v2-temp-disk-throttles-cached-p30";
    let a = run(&[&format!("{dir}/capture.csv")], Some(&format!("{dir}/topology.toml")));
    let charts = chart_data(&a);
    let cached = charts
        .iter()
        .find(|c| c.target.starts_with("VM cached") && c.metric == "mbps")
        .expect("a VM cached throughput chart");
    // DS13_v2: 256 MB/s cached = 244.1 MiB/s, drawn in the chart's MiB/s.
    assert_eq!(cached.caps.len(), 1);
    assert!((cached.caps[0].value - 256e6 / 1048576.0).abs() < 1e-9, "{:?}", cached.caps);
    // The temp disk and the cached P30 together sit at the cap.
    let peak = cached.points.iter().map(|p| p.1).fold(0.0, f64::max);
    assert!(peak > 0.95 * cached.caps[0].value, "peak {peak}");
    assert!(charts.iter().any(|c| c.target.starts_with("VM uncached") && c.metric == "iops"));
    // The series stay plain data in the analysis; the report makes the labels.
    assert!(cached.caps[0].label.starts_with("Standard_DS13_v2 cached 256 MB/s"));
}
