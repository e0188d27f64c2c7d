//! Name normalization is idempotent and case-insensitive; matching uses it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use advisor_model::TargetKind;
use advisor_topology::{
    CaptureTarget, Catalog, Subject, Topology, match_targets, matches, name_keys, normalize_name,
};
use proptest::prelude::*;

/// Names shaped like the ones tools write, plus arbitrary text.
fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        "[A-Za-z]:",
        "[0-9]{1,2} [A-Za-z]:( [A-Za-z]:)?",
        "[A-Za-z]:\\\\[A-Za-z0-9_. ]{0,12}",
        "(/dev/)?(sd[a-z]{1,2}|nvme[0-9]n[0-9]|dm-[0-9]|md[0-9]{1,3})",
        "/mnt/[a-z]{1,6}(/[a-z.]{1,6})?/?",
        "(\\\\\\\\.\\\\PhysicalDrive|#|Disk ?|disk)[0-9]{1,2}",
        "[0-9]{1,3}",
        "_Total|HarddiskVolume[0-9]",
        "\\PC{0,16}",
    ]
}

proptest! {
    #[test]
    fn normalize_is_idempotent(s in name()) {
        let once = normalize_name(&s);
        prop_assert_eq!(normalize_name(&once), once.clone());
        // Every alias is a fixed point too.
        for k in name_keys(&s) {
            prop_assert_eq!(normalize_name(&k), k.clone());
        }
    }

    #[test]
    fn normalize_ignores_case(s in name()) {
        prop_assert_eq!(normalize_name(&s.to_ascii_uppercase()), normalize_name(&s.to_ascii_lowercase()));
    }

    #[test]
    fn a_name_matches_itself_in_any_case(s in name()) {
        prop_assume!(!normalize_name(&s).is_empty());
        prop_assert!(matches(&s, &s.to_ascii_uppercase(), None));
        prop_assert!(matches(&normalize_name(&s), &s, None));
    }

    #[test]
    fn matching_is_symmetric_for_plain_names(a in name(), b in name()) {
        prop_assert_eq!(matches(&a, &b, Some(TargetKind::Volume)), matches(&b, &a, Some(TargetKind::Volume)));
    }
}

#[test]
fn captures_map_to_the_topology_with_both_warnings() {
    let catalog = Catalog::builtin().unwrap();
    let src = "[vm]\nsize = \"Standard_DS13_v2\"\ntemp_disk = \"D:\"\n\
               [[disk]]\nname = \"E:\"\nsku = \"P30\"\ncache = \"ReadOnly\"\n\
               [[disk]]\nname = \"G:\"\nsku = \"P30\"\n\
               [[disk]]\nname = \"disk2\"\nsku = \"P30\"\n[[disk]]\nname = \"disk3\"\nsku = \"P30\"\n\
               [[pool]]\nname = \"F:\"\ndisks = [\"disk2\", \"disk3\"]\n";
    let t = Topology::parse("t.toml", src, &catalog).unwrap();
    let targets = [
        CaptureTarget { name: "1 E:", kind: TargetKind::Disk, busy: true },
        CaptureTarget { name: "E:", kind: TargetKind::Volume, busy: true },
        CaptureTarget { name: "D:", kind: TargetKind::Volume, busy: true },
        CaptureTarget { name: "2", kind: TargetKind::Disk, busy: true },
        CaptureTarget { name: "F:", kind: TargetKind::Volume, busy: true },
        CaptureTarget { name: "_Total", kind: TargetKind::Aggregate, busy: true },
        CaptureTarget { name: "0 C:", kind: TargetKind::Disk, busy: true },
        CaptureTarget { name: "C:", kind: TargetKind::Volume, busy: true },
        CaptureTarget { name: "HarddiskVolume1", kind: TargetKind::Volume, busy: false },
    ];
    let m = match_targets(&t, &targets);
    let pairs: Vec<(usize, Subject)> = m.matches.iter().map(|p| (p.target, p.subject)).collect();
    assert_eq!(
        pairs,
        [
            (0, Subject::Disk(0)),
            (1, Subject::Disk(0)),
            (2, Subject::TempDisk),
            (3, Subject::Disk(2)),
            (4, Subject::Pool(0)),
        ]
    );
    assert_eq!(m.subject_of(4).map(|p| p.name.as_str()), Some("F:"));
    let warnings: Vec<String> = m.warnings.iter().map(|w| format!("[{}] {w}", w.code)).collect();
    insta::assert_snapshot!(warnings.join("\n"), @r#"
    [topology-disk-not-in-capture] G:: "G:" is described in the topology but no capture mentions it (fix: check its name against the capture's (PerfMon `1 E:` or `E:`, iostat `sdc`), or capture that disk too)
    [capture-target-not-in-topology] 0 C:: "0 C:" carries IO but the topology does not describe it: its caps are unknown (fix: add [[disk]] name = "0 C:" with its sku and cache to the topology)
    "#);
}

#[test]
fn linux_and_benchmark_names() {
    let catalog = Catalog::builtin().unwrap();
    let src = "[[disk]]\nname = \"/dev/sdc\"\nsku = \"P30\"\n[[disk]]\nname = \"/mnt/data\"\nsku = \"P20\"\n";
    let t = Topology::parse("t.toml", src, &catalog).unwrap();
    let targets = [
        CaptureTarget { name: "sdc", kind: TargetKind::Device, busy: true },
        CaptureTarget { name: "/mnt/data/x.dat", kind: TargetKind::Benchmark, busy: true },
        CaptureTarget { name: "sdc1", kind: TargetKind::Volume, busy: false },
    ];
    let m = match_targets(&t, &targets);
    assert_eq!(m.targets_of(Subject::Disk(0)).collect::<Vec<_>>(), [0]);
    assert_eq!(m.targets_of(Subject::Disk(1)).collect::<Vec<_>>(), [1]);
    assert!(m.warnings.is_empty(), "{:?}", m.warnings);
}
