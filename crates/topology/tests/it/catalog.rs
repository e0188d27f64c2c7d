//! The built-in catalog: the seeds' figures, lookup, gaps, and user overrides.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use advisor_topology::{BurstModel, CachedGap, Catalog, DiskKind, SkuRef};

fn catalog() -> Catalog {
    match Catalog::builtin() {
        Ok(c) => c,
        Err(e) => panic!("built-in catalog: {e}"),
    }
}

#[test]
fn ds13_v2_and_ds15_v2_seed_figures() {
    let c = catalog();
    let ds13 = c.vm("Standard_DS13_v2").unwrap();
    assert_eq!(ds13.cached_mbps, Some(256.0));
    assert_eq!(ds13.uncached_mbps, Some(384.0));
    assert_eq!(ds13.uncached_iops, Some(25600.0));
    assert_eq!(ds13.cached_iops, Some(32000.0));
    assert!(ds13.source.iter().any(|s| s.contains("dv2-dsv2-series-memory.md")));
    let ds15 = c.vm("DS15_v2").unwrap();
    assert_eq!((ds15.cached_mbps, ds15.uncached_mbps), (Some(640.0), Some(960.0)));
}

#[test]
fn e16as_v5_has_burst_and_no_published_cache() {
    let c = catalog();
    let e16 = c.vm("standard_e16as_v5").unwrap();
    assert_eq!((e16.uncached_iops, e16.uncached_mbps), (Some(25600.0), Some(384.0)));
    assert_eq!((e16.uncached_burst_iops, e16.uncached_burst_mbps), (Some(40000.0), Some(800.0)));
    // Not published for Easv5: absent, never 0.
    assert_eq!(e16.cached_iops, None);
    assert_eq!(e16.cached_mbps, None);
    assert_eq!(advisor_topology::fmt_opt(e16.cached_mbps), "not published");
    assert_eq!(e16.series(), "Easv5");
}

#[test]
fn corrected_figures_of_2026_11_23() {
    // ../shared/catalog/NOTES.md section 9: the audited corrections.
    let c = catalog();
    for size in ["Standard_D2ds_v4", "Standard_D64ds_v4", "Standard_E2ds_v4", "E80ids_v4"] {
        let vm = c.vm(size).unwrap();
        assert_eq!((vm.cached_iops, vm.cached_mbps, vm.cache_gib), (None, None, None), "{size}");
    }
    let d2 = c.vm("D2ds_v4").unwrap();
    assert_eq!(
        (d2.temp_gib, d2.uncached_iops, d2.uncached_mbps),
        (Some(75.0), Some(3200.0), Some(48.0))
    );
    for size in ["B1ls", "B1s", "B1ms", "B2s", "B2ms", "B4ms", "B8ms", "B12ms", "B16ms", "B20ms"] {
        let vm = c.vm(size).unwrap();
        assert_eq!((vm.cached_iops, vm.cached_mbps), (None, None), "{size}");
        assert!(vm.uncached_iops.is_some(), "{size}");
    }
    let e2as = c.vm("E2as_v4").unwrap();
    assert_eq!((e2as.uncached_burst_iops, e2as.uncached_burst_mbps), (Some(4000.0), Some(200.0)));
    assert_eq!((e2as.cached_iops, e2as.cached_mbps), (Some(4000.0), Some(32.0)));
    assert!(e2as.source.iter().any(|s| s.contains("memory-optimized/easv4-series.md@")));
    let d192 = c.vm("Standard_D192ds_v6").unwrap();
    assert_eq!((d192.vcpu, d192.temp_gib), (Some(192), Some(10560.0)));
    assert_eq!((d192.uncached_iops, d192.uncached_mbps), (Some(260000.0), Some(12000.0)));
}

#[test]
fn a_missing_cached_limit_says_why() {
    let c = catalog();
    let gap = |s: &str| c.vm(s).unwrap().cached_gap();
    assert_eq!(gap("Standard_DS13_v2"), None);
    assert_eq!(gap("Standard_D2ds_v4"), Some(CachedGap::TempOnly));
    assert_eq!(gap("Standard_E16ds_v5"), Some(CachedGap::TempOnly));
    assert_eq!(gap("Standard_B1s"), Some(CachedGap::NoHostCaching));
    assert_eq!(gap("Standard_L8s_v3"), Some(CachedGap::NoHostCaching));
    assert_eq!(gap("Standard_E16as_v5"), Some(CachedGap::NoTempDisk));
    let why = |s: &str| c.vm(s).unwrap().cached_gap_reason().unwrap_or_default();
    assert!(why("D2ds_v4").contains("only temp-storage figures for Ddsv4"), "{}", why("D2ds_v4"));
    assert!(why("D2ds_v4").contains("renamed \"temp storage\""), "{}", why("D2ds_v4"));
    assert!(
        why("B1ms").starts_with("B-series v1 does not support host caching"),
        "{}",
        why("B1ms")
    );
    assert!(why("E16as_v5").contains("no temp disk"), "{}", why("E16as_v5"));
    // Every size without cached figures has a reason; none with them has one.
    for vm in c.vm_sizes() {
        assert_eq!(vm.cached_gap().is_some(), vm.cached_iops.is_none(), "{}", vm.name);
    }
    // A user's row with figures closes the gap; one without a temp disk figure says less.
    let mut c = catalog();
    c.merge_csv(
        "mine.csv",
        "size,cached_iops,cached_mbps,source\nD2ds_v4,19000,120,my test\n",
        true,
    )
    .unwrap();
    assert_eq!(c.vm("D2ds_v4").unwrap().cached_gap(), None);
    c.merge_csv("mine.csv", "size,uncached_iops,source\nStandard_Z9s_v9,100,lab\n", true).unwrap();
    assert_eq!(c.vm("Z9s_v9").unwrap().cached_gap(), Some(CachedGap::NotPublished));
}

#[test]
fn p30_figures_and_burst() {
    let c = catalog();
    let p30 = c.disk("p30").unwrap();
    assert_eq!((p30.iops, p30.mbps), (Some(5000.0), Some(200.0)));
    assert_eq!((p30.burst_iops, p30.burst_mbps), (Some(30000.0), Some(1000.0)));
    assert_eq!(p30.burst_model(), BurstModel::OnDemand);
    assert_eq!(p30.kind, DiskKind::PremiumSsd);
    let p20 = c.disk("P20_LRS").unwrap();
    assert_eq!(p20.burst_model(), BurstModel::Credit);
    let e40 = c.disk("E40").unwrap();
    assert_eq!(e40.burst_model(), BurstModel::None);
    assert_eq!(c.disk("e30").map(|d| d.burst_model()), Ok(BurstModel::Credit));
}

#[test]
fn sizes_match_case_insensitively_with_or_without_prefix() {
    let c = catalog();
    for name in ["Standard_DS13_v2", "standard_ds13_v2", "DS13_v2", "ds13_v2", " STANDARD_DS13_V2 "]
    {
        assert_eq!(c.vm(name).map(|v| v.name.as_str()), Ok("Standard_DS13_v2"), "{name}");
    }
    let nvme = c.vm("E2bs_v5:NVMe").unwrap();
    assert_eq!(nvme.controller(), Some("nvme"));
    assert_eq!(nvme.uncached_iops, Some(8000.0));
    assert_eq!(nvme.uncached_v2_iops, Some(12000.0));
    let scsi = c.vm("E2bs_v5:scsi").unwrap();
    assert_eq!((scsi.name.as_str(), scsi.uncached_iops), ("Standard_E2bs_v5", Some(6000.0)));
    assert_eq!(c.vm("Standard_E2bs_v5").unwrap().nvme.iops, Some(8000.0));
    assert_eq!(c.vm("basic_a0").map(|v| v.name.as_str()), Ok("Basic_A0"));
}

#[test]
fn misspelt_names_get_a_suggestion() {
    let c = catalog();
    let err = c.vm("Standard_DS13v2").err();
    assert_eq!(err.as_ref().and_then(|e| e.suggestion.as_deref()), Some("Standard_DS13_v2"));
    assert_eq!(err.map(|e| e.help()).as_deref(), Some("did you mean \"Standard_DS13_v2\"?"));
    let err = c.disk("P3O").err();
    assert_eq!(err.and_then(|e| e.suggestion), Some("P30".to_owned()));
    assert!(c.vm("Standard_Q9000").err().is_some_and(|e| e.suggestion.is_none()));
}

#[test]
fn premium_v2_and_ultra_resolve_to_provisioned_kinds() {
    let c = catalog();
    for n in ["PremiumV2", "PremiumV2_LRS", "Premium SSD v2", "premiumv2_max"] {
        assert_eq!(c.resolve_sku(n), Ok(SkuRef::PremiumV2), "{n}");
    }
    for n in ["Ultra", "UltraSSD_LRS", "ultra disk"] {
        assert_eq!(c.resolve_sku(n), Ok(SkuRef::Ultra), "{n}");
    }
    assert!(matches!(c.resolve_sku("Ultra_64GiB"), Ok(SkuRef::Row(r)) if r.iops == Some(64000.0)));
    let v2max = c.max_of(DiskKind::PremiumSsdV2).map(|d| (d.iops, d.mbps));
    assert_eq!(v2max, Some((Some(80000.0), Some(2000.0))));
    let base = c.baseline_of(DiskKind::PremiumSsdV2).map(|d| (d.iops, d.mbps));
    assert_eq!(base, Some((Some(3000.0), Some(125.0))));
    let ultra = c.max_of(DiskKind::Ultra).map(|d| (d.iops, d.mbps));
    assert_eq!(ultra, Some((Some(400000.0), Some(10000.0))));
}

#[test]
fn every_row_has_a_source_and_sane_figures() {
    let c = catalog();
    assert_eq!(c.vm_sizes().len(), 1087);
    assert_eq!(c.disk_skus().len(), 79);
    for vm in c.vm_sizes() {
        assert!(!vm.source.is_empty(), "{}", vm.name);
        // Every row names the page and the commit its figures were read at.
        assert!(
            vm.source.iter().all(|s| s.contains(":articles/") && s.contains('@')),
            "{}",
            vm.name
        );
        assert!(vm.name.starts_with("Standard_") || vm.name.starts_with("Basic_A"), "{}", vm.name);
        // Cached IOPS and MB/s are published together or not at all.
        assert_eq!(vm.cached_iops.is_some(), vm.cached_mbps.is_some(), "{}", vm.name);
        if let (Some(b), Some(u)) = (vm.uncached_burst_iops, vm.uncached_iops) {
            assert!(b >= u, "{}: burst below sustained", vm.name);
        }
        for x in [vm.cached_iops, vm.cached_mbps, vm.uncached_iops, vm.uncached_mbps]
            .into_iter()
            .flatten()
        {
            assert!(x > 0.0, "{}: a published cap of 0", vm.name);
        }
    }
    for d in c.disk_skus() {
        assert!(!d.source.is_empty(), "{}", d.name);
        assert!(d.iops.is_some() && d.mbps.is_some(), "{}", d.name);
    }
}

#[test]
fn premium_storage_as_the_pages_state_it() {
    let c = catalog();
    let premium = |s: &str| c.vm(s).unwrap().premium_storage();
    for s in ["D1_v2", "D2_v3", "D2_v5", "A1_v2", "Basic_A0", "A0", "D1", "F2", "D2a_v4"] {
        assert!(!premium(s), "{s}");
    }
    for s in ["DS1_v2", "D2s_v3", "D8as_v6", "M64", "M128m", "L8s_v3", "E16bds_v5", "GS1"] {
        assert!(premium(s), "{s}");
    }
    // Every size states its storage class, and the name says the same one.
    for vm in c.vm_sizes() {
        assert!(vm.premium_storage_stated.is_some(), "{}", vm.name);
        if !vm.name.starts_with("Standard_M") {
            assert_eq!(vm.premium_storage(), vm.premium_storage_by_name(), "{}", vm.name);
        }
    }
    let l96 = c.vm("L96s_v4").unwrap();
    assert!(l96.premium_storage() && !l96.host_caching(), "Supported (except for L96s_v4)");
    assert!(c.vm("L80s_v4").unwrap().host_caching());
    let no_cache: Vec<&str> =
        c.vm_sizes().into_iter().filter(|v| !v.host_caching()).map(|v| v.short_name()).collect();
    assert!(no_cache.contains(&"L8s_v3") && no_cache.contains(&"B1ls"), "{no_cache:?}");
    assert!(!no_cache.contains(&"B2s_v2"));
}

#[test]
fn series_filter() {
    let c = catalog();
    let dsv2: Vec<&str> =
        c.vm_sizes().into_iter().filter(|v| v.in_series("dsv2")).map(|v| v.short_name()).collect();
    assert_eq!(dsv2.len(), 10);
    assert!(dsv2.contains(&"DS13_v2"));
    assert!(c.series().iter().any(|s| s == "Easv5"));
}

#[test]
fn a_user_file_overrides_and_extends() {
    let mut c = catalog();
    let csv = "size,uncached_iops,uncached_mbps,source\n\
               Standard_DS13_v2,,400,my measurements\n\
               D2_v3,3000,46,\n";
    c.merge_csv("mine.csv", csv, true).unwrap();
    let ds13 = c.vm("DS13_v2").unwrap();
    assert_eq!((ds13.uncached_iops, ds13.uncached_mbps), (Some(25600.0), Some(400.0)));
    assert_eq!(ds13.source[0], "mine.csv:2");
    assert_eq!(ds13.source[1], "my measurements");
    let d2 = c.vm("standard_d2_v3").unwrap();
    assert_eq!(d2.uncached_iops, Some(3000.0));
    assert_eq!(d2.cached_iops, None);
    assert!(!d2.premium_storage());

    let disks =
        "sku,tier,size_gib,iops,mbps\nP30,Premium SSD,1024,5500,\nX1,Premium SSD,64,100,10\n";
    c.merge_csv("disks.csv", disks, true).unwrap();
    assert_eq!(c.disk("P30").map(|d| (d.iops, d.mbps)), Ok((Some(5500.0), Some(200.0))));
    assert_eq!(c.disk("x1").map(|d| d.iops), Ok(Some(100.0)));
}

#[test]
fn a_bad_user_file_names_its_line() {
    let mut c = catalog();
    let e = c
        .merge_csv("mine.csv", "size,uncached_iops\nDS1,lots\n", true)
        .err()
        .map(|e| e.to_string());
    assert_eq!(e.as_deref(), Some("mine.csv:2: `uncached_iops`: `lots` is not a number"));
    let e = c.merge_csv("mine.csv", "size,uncahced_iops\n", true).err().map(|e| e.to_string());
    assert!(e.is_some_and(|e| e.contains("did you mean `uncached_iops`")));
    let e = c.merge_csv("mine.csv", "name,iops\n", true).err().map(|e| e.to_string());
    assert!(e.is_some_and(|e| e.starts_with("mine.csv:1: the header needs")));
}

/// A size name the catalog does not know is never "corrected" to a size of the other storage
/// class: a non-s size to a Premium-capable one (whose cached figures would then judge the
/// disks), nor the reverse.
#[test]
fn did_you_mean_stays_in_the_storage_class() {
    let c = catalog();
    let suggestion = |n: &str| c.vm(n).err().and_then(|e| e.suggestion);
    for name in ["Standard_D4_v9", "D2_v6", "Standard_E8_v7", "Standard_D3_v3", "F4_v6", "D2a_v6"] {
        if let Some(s) = suggestion(name) {
            assert!(!c.vm(&s).unwrap().premium_storage(), "{name} -> {s}");
        }
    }
    for name in ["Standard_D4s_v9", "D2ds_v9", "Standard_E8as_v8", "DS13v2", "M64x"] {
        if let Some(s) = suggestion(name) {
            assert!(c.vm(&s).unwrap().premium_storage(), "{name} -> {s}");
        }
    }
    assert_eq!(suggestion("Standard_DS13v2").as_deref(), Some("Standard_DS13_v2"));
    assert_eq!(suggestion("Standard_D1v2").as_deref(), Some("Standard_D1_v2"));
    // Some suggestions do come: the check above is not vacuous.
    assert!(suggestion("Standard_D4_v9").is_some() && suggestion("Standard_D4s_v9").is_some());
}

/// A user's CSV in the shared catalog's form: an `X:nvme` row gives X's NVMe-controller
/// figures, and `X:nvme` then finds them.
#[test]
fn a_user_file_with_an_nvme_row() {
    let mut c = catalog();
    let csv = "size,vcpu,uncached_iops,uncached_mbps,source\n\
               Standard_Z2bs_v9,2,6000,170,lab\n\
               Standard_Z2bs_v9:nvme,2,8000,230,lab\n";
    c.merge_csv("mine.csv", csv, true).unwrap();
    let z = c.vm("Z2bs_v9").unwrap();
    assert_eq!(
        (z.uncached_iops, z.nvme.iops, z.nvme.mbps),
        (Some(6000.0), Some(8000.0), Some(230.0))
    );
    assert_eq!(c.vm("Z2bs_v9:nvme").unwrap().uncached_iops, Some(8000.0));
    let e =
        c.merge_csv("mine.csv", "size,vcpu\nZ2bs_v9:ide,2\n", true).err().map(|e| e.to_string());
    assert!(e.is_some_and(|e| e.contains("`:ide` is not a controller")));
}
