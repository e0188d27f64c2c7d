//! Topology files: the seed scenarios resolve to the right limits; errors are shown as a
//! user sees them; validation warnings.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use advisor_topology::{BudgetKind, Cache, Catalog, Measure, Role, Topology};

fn catalog() -> Catalog {
    Catalog::builtin().unwrap()
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/topologies")
}

fn load(rel: &str) -> Topology {
    let path = fixtures().join(rel);
    let text = std::fs::read_to_string(&path).unwrap();
    match Topology::parse(rel, &text, &catalog()) {
        Ok(t) => t,
        Err(e) => panic!("{e}"),
    }
}

/// What the user sees for a file that is refused.
fn refused(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let name = path.file_name().unwrap().to_string_lossy();
    match Topology::parse(&name, &text, &catalog()) {
        Ok(_) => panic!("{name} was accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn ds13_v2_temp_disk_shares_the_cached_budget() {
    let t = load("ds13_v2_temp_and_cached_p30.toml");
    assert!(t.warnings.is_empty(), "{:?}", t.warnings);
    let l = t.limits();
    let vm = l.vm.as_ref().unwrap();
    assert_eq!(
        (vm.cached_mbps, vm.uncached_mbps, vm.uncached_iops),
        (Some(256.0), Some(384.0), Some(25600.0))
    );
    assert_eq!(l.cached.members, ["C:", "E:", "D:"]);
    assert_eq!((l.cached.iops, l.cached.mbps), (Some(32000.0), Some(256.0)));
    assert_eq!(l.uncached.members, ["C:", "E:"]);
    let os = l.disk("c:").unwrap();
    assert_eq!((os.role, os.cache, os.cache_assumed), (Role::Os, Cache::ReadWrite, true));
    let e = l.disk("1 E:").unwrap();
    assert_eq!((e.iops, e.mbps), (Some(5000.0), Some(200.0)));
    // P30 bursts on demand only: not enabled here.
    assert_eq!(e.burst_iops, None);
    assert!(l.is_temp_disk("d:"));
    insta::assert_yaml_snapshot!(l);
}

#[test]
fn ds15_v2_provisions_more_than_the_vm_allows() {
    let l = load("ds15_v2_data_and_log.toml").limits();
    assert_eq!(l.cached.provisioned_mbps, Some(900.0));
    assert_eq!(l.uncached.provisioned_mbps, Some(1300.0));
    let ex = l.provisioned_excess();
    let mbps: Vec<(BudgetKind, f64, f64)> = ex
        .iter()
        .filter(|e| e.measure == Measure::Mbps)
        .map(|e| (e.budget, e.provisioned, e.vm_cap))
        .collect();
    assert_eq!(mbps, [(BudgetKind::Cached, 900.0, 640.0), (BudgetKind::Uncached, 1300.0, 960.0)]);
}

#[test]
fn ds1_with_a_p30() {
    let l = load("ds1_p30.toml").limits();
    assert_eq!(l.uncached.iops, Some(3200.0));
    let ex = l.provisioned_excess();
    let iops: Vec<(Option<f64>, Option<f64>)> = ex
        .iter()
        .filter(|e| e.measure == Measure::Iops)
        .map(|e| (Some(e.provisioned), Some(e.vm_cap)))
        .collect();
    assert_eq!(iops, [(Some(5000.0), Some(3200.0))]);
    assert!(l.disk("/dev/sdc").is_some());
}

#[test]
fn a_striped_pool_sums_its_members_and_notes_the_vm_cap() {
    let t = load("striped_pool_4disk.toml");
    assert!(t.warnings.is_empty(), "{:?}", t.warnings);
    let l = t.limits();
    let p = l.pool("f:").unwrap();
    assert_eq!((p.sum_iops, p.sum_mbps), (Some(20000.0), Some(800.0)));
    assert_eq!((p.columns, p.interleave_kib), (Some(4), Some(64)));
    assert!(p.unknown_members.is_empty());
    // D16s_v5: 25,600 IOPS / 600 MB/s uncached, cached not published.
    assert_eq!((p.vm_iops, p.vm_mbps), (Some(25600.0), Some(600.0)));
    assert_eq!((p.effective_mbps, p.vm_bound_mbps), (Some(600.0), true));
    assert_eq!((p.effective_iops, p.vm_bound_iops), (Some(20000.0), false));
    assert_eq!(l.disk("disk3").and_then(|d| d.pool.as_deref()), Some("F:"));
    insta::assert_yaml_snapshot!(p);
}

#[test]
fn e16as_v5_with_premium_v2() {
    let t = load("e16as_v5_premium_v2.toml");
    assert!(t.warnings.is_empty(), "{:?}", t.warnings);
    let l = t.limits();
    let vm = l.vm.as_ref().unwrap();
    assert_eq!((vm.uncached_iops, vm.uncached_mbps), (Some(25600.0), Some(384.0)));
    assert_eq!((vm.uncached_burst_iops, vm.uncached_burst_mbps), (Some(40000.0), Some(800.0)));
    assert_eq!((l.cached.iops, l.cached.mbps), (None, None));
    let d = l.disk("sdc").unwrap();
    assert_eq!((d.iops, d.mbps), (Some(80000.0), Some(1200.0)));
    assert_eq!(l.uncached.excess().len(), 2);
}

#[test]
fn premium_v2_without_figures_assumes_the_baseline() {
    let src = "[vm]\nsize = \"E2as_v5\"\n[[disk]]\nname = \"sdc\"\nsku = \"PremiumV2\"\n";
    let t = Topology::parse("t.toml", src, &catalog()).unwrap();
    let d = t.limits().disks.remove(0);
    assert_eq!((d.iops, d.mbps), (Some(3000.0), Some(125.0)));
    assert_eq!(d.origin, advisor_topology::FigureOrigin::Baseline);
    assert_eq!(
        t.warnings.iter().map(|w| w.code).collect::<Vec<_>>(),
        ["provisioned-figures-missing"]
    );
}

#[test]
fn small_premium_disks_burst_on_credit_by_default() {
    let src = "[[disk]]\nname = \"E:\"\nsku = \"P10\"\n[[disk]]\nname = \"F:\"\nsku = \"P40\"\nbursting = true\n\
               [[disk]]\nname = \"G:\"\nsku = \"P15\"\nbursting = false\n";
    let l = Topology::parse("t.toml", src, &catalog()).unwrap().limits();
    assert!(l.vm.is_none());
    let burst = |n: &str| l.disk(n).map(|d| (d.burst_iops, d.burst_mbps));
    assert_eq!(burst("E:"), Some((Some(3500.0), Some(170.0))));
    assert_eq!(burst("F:"), Some((Some(30000.0), Some(1000.0))));
    assert_eq!(burst("G:"), Some((None, None)));
    assert_eq!(l.disk("E:").and_then(|d| d.peak_iops()), Some(3500.0));
}

#[test]
fn json_is_the_same_topology() {
    let json = load("ds13_v2.json");
    let toml_src = "[vm]\nsize = \"Standard_DS13_v2\"\ntemp_disk = \"D:\"\n\
                    [[disk]]\nname = \"E:\"\nsku = \"P30\"\ncache = \"ReadOnly\"\nrole = \"data\"\n";
    let toml = Topology::parse("ds13_v2.toml", toml_src, &catalog()).unwrap();
    assert_eq!(json.limits(), toml.limits());
}

#[test]
fn vm_size_alone_is_a_topology() {
    let t = Topology::from_vm_size("ds13_v2", &catalog()).unwrap();
    let l = t.limits();
    assert_eq!(l.vm.as_ref().map(|v| v.size.as_str()), Some("Standard_DS13_v2"));
    assert!(l.disks.is_empty());
    // The same letters and digits with other punctuation: the catalog's size, said so.
    let t = Topology::from_vm_size("Standard_DS13v2", &catalog()).unwrap();
    assert_eq!(t.vm.as_ref().map(|v| v.size.name.as_str()), Some("Standard_DS13_v2"));
    assert_eq!(t.limits().vm.map(|v| v.uncached_iops), Some(Some(25600.0)));
    let w: Vec<String> = t.warnings.iter().map(|w| format!("[{}] {w}", w.code)).collect();
    assert_eq!(
        w,
        ["[vm-size-read-as] vm: VM size \"Standard_DS13v2\" is read as Standard_DS13_v2 (the \
          catalog's spelling) (fix: write size = \"Standard_DS13_v2\")"]
    );
    // Only an empty size is refused.
    let e = Topology::from_vm_size("  ", &catalog()).err().unwrap();
    insta::assert_snapshot!(e.to_string(), @r#"
    --vm: the VM size is empty
      help: give the size as Azure names it: Standard_DS13_v2
    "#);
}

/// A size the catalog lacks (a GPU size; or one newer than the catalog) is a topology: its
/// name, temp disk and disks are kept, every VM figure is unknown and the topology says so
/// first among its warnings, whether it came from a file, `--vm` or a later `--vm`.
#[test]
fn a_size_the_catalog_lacks_keeps_every_other_fact() {
    let t = load("warnings/unknown_vm_size.toml");
    let vm = t.vm.as_ref().unwrap();
    assert_eq!((vm.size.name.as_str(), vm.in_catalog), ("Standard_NC24ads_A100_v4", false));
    assert_eq!(t.temp_disks(), ["sdb"]);
    let l = t.limits();
    let v = l.vm.as_ref().unwrap();
    assert!(!v.in_catalog);
    let figures = [
        v.cached_iops,
        v.cached_mbps,
        v.uncached_iops,
        v.uncached_mbps,
        v.uncached_burst_iops,
        v.uncached_burst_mbps,
        v.temp_gib,
        v.cache_gib,
    ];
    assert_eq!(figures, [None; 8]);
    assert_eq!((v.vcpu, v.max_data_disks), (None, None));
    // The disks keep their SKUs, caps and caching.
    assert_eq!(
        l.disk("sdc").map(|d| (d.iops, d.mbps, d.cache)),
        Some((Some(5000.0), Some(200.0), Cache::ReadOnly))
    );
    assert_eq!(l.disk("sdd").map(|d| d.role), Some(Role::Log));
    assert_eq!(
        t.warnings.first().map(|w| (w.code, w.subject.as_str())),
        Some(("vm-size-unknown", "vm"))
    );
    // The same size from --vm, alone or over a file's size.
    let alone = Topology::from_vm_size("Standard_NC24ads_A100_v4", &catalog()).unwrap();
    assert_eq!(alone.vm.as_ref().map(|v| v.in_catalog), Some(false));
    let mut over = load("ds13_v2_temp_and_cached_p30.toml");
    over.set_vm_size("Standard_NC24ads_A100_v4", &catalog()).unwrap();
    assert_eq!(over.temp_disks(), ["D:"]);
    assert_eq!(
        over.limits().vm.map(|v| (v.size, v.cached_mbps)),
        Some(("Standard_NC24ads_A100_v4".to_owned(), None))
    );
    // Figures the topology gives are used, the others stay unknown.
    let given =
        "[vm]\nsize = \"Standard_ND96isr_H100_v5\"\nuncached_iops = 40800\nuncached_mbps = 612\n";
    let g = Topology::parse("t.toml", given, &catalog()).unwrap().limits().vm.unwrap();
    assert_eq!(
        (g.uncached_iops, g.uncached_mbps, g.cached_iops),
        (Some(40800.0), Some(612.0), None)
    );
    assert_eq!(g.overridden, ["uncached_iops", "uncached_mbps"]);
    // Without `Standard_`, as the catalog names a user's rows; the Basic tier keeps its own.
    let bare = Topology::from_vm_size("NC24ads_A100_v4", &catalog()).unwrap();
    assert_eq!(bare.vm.map(|v| v.size.name), Some("Standard_NC24ads_A100_v4".to_owned()));
    let basic = Topology::from_vm_size("Basic_A9", &catalog()).unwrap();
    assert_eq!(basic.vm.map(|v| v.size.name), Some("Basic_A9".to_owned()));
}

#[test]
fn vm_figures_can_be_overridden() {
    let src = "[vm]\nsize = \"Standard_DS13_v2\"\ncached_mbps = 300\nuncached_iops = 30000\n";
    let l = Topology::parse("t.toml", src, &catalog()).unwrap().limits();
    let vm = l.vm.unwrap();
    assert_eq!(
        (vm.cached_mbps, vm.uncached_iops, vm.uncached_mbps),
        (Some(300.0), Some(30000.0), Some(384.0))
    );
    assert_eq!(vm.overridden, ["cached_mbps", "uncached_iops"]);
    assert_eq!(vm.source[0], "t.toml [vm]: cached_mbps, uncached_iops");
}

#[test]
fn refused_topologies_as_a_user_sees_them() {
    insta::glob!("../../../../fixtures/topologies/invalid", "*.{toml,json}", |path| {
        insta::assert_snapshot!(refused(path));
    });
}

#[test]
fn the_done_when_errors() {
    let dir = fixtures().join("invalid");
    let size = refused(&dir.join("empty_vm_size.toml"));
    assert!(size.starts_with("empty_vm_size.toml:2:8: the VM size is empty"), "{size}");
    let cache = refused(&dir.join("bad_cache.toml"));
    assert!(cache.starts_with("bad_cache.toml:7:9: invalid cache \"WriteBack\""), "{cache}");
}

#[test]
fn validation_warnings() {
    for name in [
        "too_many_disks.toml",
        "unsupported_caching.toml",
        "pool_members.toml",
        "misspelt_vm_size.toml",
        "misspelt_vm_size.json",
        "unknown_vm_size.toml",
    ] {
        let t = load(&format!("warnings/{name}"));
        let lines: Vec<String> = t.warnings.iter().map(|w| format!("[{}] {w}", w.code)).collect();
        insta::assert_snapshot!(name, lines.join("\n"));
    }
}

#[test]
fn premium_disks_on_a_size_without_premium_storage() {
    let mut c = catalog();
    c.merge_csv(
        "mine.csv",
        "size,max_data_disks,uncached_iops,uncached_mbps,source\nD2_v3,4,3000,46,docs\n",
        true,
    )
    .unwrap();
    let src = "[vm]\nsize = \"Standard_D2_v3\"\n[[disk]]\nname = \"E:\"\nsku = \"P10\"\n";
    let t = Topology::parse("t.toml", src, &c).unwrap();
    let codes: Vec<&str> = t.warnings.iter().map(|w| w.code).collect();
    // E: leaves its caching out: the rules take None and say so.
    assert_eq!(codes, ["premium-disk-on-standard-vm", "cache-assumed"]);
}

/// The rules see the cache Azure applies: None for disks and sizes that cannot cache
/// (Premium SSD v2, Ultra, 4 TiB and more, B v1 and the L series), whatever the file says,
/// and such disks count in the uncached budget only. None on the OS disk is kept.
#[test]
fn effective_host_cache_is_none_where_azure_cannot_cache() {
    let src = "[vm]\nsize = \"Standard_DS13_v2\"\ntemp_disk = \"D:\"\n\
               [[disk]]\nname = \"C:\"\nsku = \"P10\"\nrole = \"os\"\ncache = \"None\"\n\
               [[disk]]\nname = \"E:\"\nsku = \"P30\"\ncache = \"ReadOnly\"\n\
               [[disk]]\nname = \"F:\"\nsku = \"P50\"\ncache = \"ReadOnly\"\n\
               [[disk]]\nname = \"G:\"\nsku = \"PremiumV2_LRS\"\ncache = \"ReadOnly\"\niops = 8000\nmbps = 300\n\
               [[disk]]\nname = \"H:\"\ncache = \"ReadOnly\"\n";
    let mut t = Topology::parse("t.toml", src, &catalog()).unwrap();
    let l = t.limits();
    let view = |n: &str| l.disk(n).map(|d| (d.cache_setting, d.cache, d.can_cache));
    assert_eq!(view("C:"), Some((Cache::None, Cache::None, Some(true))));
    assert_eq!(view("E:"), Some((Cache::ReadOnly, Cache::ReadOnly, Some(true))));
    assert_eq!(view("F:"), Some((Cache::ReadOnly, Cache::None, Some(false))));
    assert_eq!(view("G:"), Some((Cache::ReadOnly, Cache::None, Some(false))));
    // No SKU: whether it can cache is unknown, and its setting stands.
    assert_eq!(view("H:"), Some((Cache::ReadOnly, Cache::ReadOnly, None)));
    assert_eq!(l.cached.members, ["E:", "H:", "D:"]);
    assert_eq!(l.cached.provisioned_mbps, Some(200.0));
    assert_eq!(l.uncached.members, ["C:", "E:", "F:", "G:", "H:"]);
    let codes: Vec<&str> = t.warnings.iter().map(|w| w.code).collect();
    assert_eq!(codes, ["host-cache-on-large-disk", "host-cache-unsupported"]);
    assert!(t.warnings[0].message.contains("premium-storage-performance#disk-caching"));
    assert!(t.warnings[1].message.contains("disks-types"), "{}", t.warnings[1].message);

    // The same disks on a B v1 size: nothing can be cached, and the budget is empty of disks.
    t.set_vm_size("Standard_B2ms", &catalog()).unwrap();
    let l = t.limits();
    assert!(l.disks.iter().all(|d| d.cache == Cache::None && d.can_cache == Some(false)));
    assert_eq!(l.cached.members, ["D:"]);
    let vm_warnings: Vec<&str> = t
        .warnings
        .iter()
        .filter(|w| w.code == "host-cache-unsupported-on-vm")
        .map(|w| w.subject.as_str())
        .collect();
    assert_eq!(vm_warnings, ["E:", "H:"]);
    assert!(t.warnings.iter().any(|w| w.message.contains("bv1-series")));
    // And on an L-series size.
    t.set_vm_size("Standard_L8s_v3", &catalog()).unwrap();
    assert!(t.limits().disks.iter().all(|d| d.cache == Cache::None));
    assert!(t.warnings.iter().any(|w| w.message.contains("lsv3-series")));
}

#[test]
fn write_accelerator_is_read_and_misspellings_are_caught() {
    let src = "[vm]\nsize = \"Standard_M64ms\"\n[[disk]]\nname = \"L:\"\nsku = \"P30\"\nrole = \"log\"\nwrite_accelerator = true\n";
    let l = Topology::parse("t.toml", src, &catalog()).unwrap().limits();
    assert_eq!(l.disk("L:").and_then(|d| d.write_accelerator), Some(true));
    let json = r#"{"vm": {"size": "Standard_M64ms"}, "disk": [{"name": "L:", "sku": "P30", "write_accelerator": false}]}"#;
    let l = Topology::parse("t.json", json, &catalog()).unwrap().limits();
    assert_eq!(l.disk("L:").and_then(|d| d.write_accelerator), Some(false));
    let typo = "[[disk]]\nname = \"L:\"\nwrite_accelerater = true\n";
    let e = Topology::parse("t.toml", typo, &catalog()).err().unwrap().to_string();
    assert!(e.contains("unknown key `write_accelerater`"), "{e}");
    assert!(e.contains("did you mean `write_accelerator`?"), "{e}");
    let wrong = "[[disk]]\nname = \"L:\"\nwrite_accelerator = \"yes\"\n";
    let e = Topology::parse("t.toml", wrong, &catalog()).err().unwrap().to_string();
    assert!(e.starts_with("t.toml:3:"), "{e}");
}

/// A non-s size (Standard_D1_v2: no Premium Storage) still host-caches its Standard disks:
/// only Premium SSD caching needs Premium Storage support (premium-storage-performance.md
/// "Disk caching"; the Dv2 page lists Premium Storage caching as not supported because
/// Premium Storage is not). A data disk whose caching is not written is taken as None and
/// the topology says so.
#[test]
fn a_non_premium_size_caches_its_standard_disks_and_an_unwritten_cache_is_named() {
    let text = r#"
[vm]
size = "Standard_D1_v2"
temp_disk = "D:"

[[disk]]
name = "C:"
sku = "S10"
role = "os"

[[disk]]
name = "E:"
sku = "E10"
cache = "ReadOnly"
role = "data"

[[disk]]
name = "F:"
sku = "S20"
role = "data"
"#;
    let t = Topology::parse("d1v2.toml", text, &catalog()).expect("parses");
    let l = t.limits();
    let os = l.disk("C:").unwrap();
    assert_eq!((os.cache, os.can_cache), (Cache::ReadWrite, Some(true)));
    let e = l.disk("E:").unwrap();
    assert_eq!((e.cache, e.cache_assumed), (Cache::ReadOnly, false));
    let f = l.disk("F:").unwrap();
    assert_eq!((f.cache, f.cache_assumed), (Cache::None, true));
    let codes: Vec<(&str, &str)> =
        t.warnings.iter().map(|w| (w.code, w.subject.as_str())).collect();
    assert_eq!(codes, [("cache-assumed", "F:")], "{:?}", t.warnings);
    assert!(t.warnings[0].to_string().contains("the rules take None"), "{}", t.warnings[0]);
}
