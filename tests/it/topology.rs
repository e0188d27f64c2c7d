//! The topology and catalog as a user meets them through the real binary: `advisor catalog`,
//! the errors `advisor analyze --topology` gives for a bad file, and `advisor topology` on
//! Azure's and the guest's own documents.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::*;

fn run(args: &[&str]) -> (i32, String, String) {
    let out = advisor(&repo(), args);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn catalog_vm_shows_the_figures_with_their_source() {
    let (code, out, _) = run(&["catalog", "vm", "standard_ds13_v2"]);
    assert_eq!(code, 0);
    for want in [
        "Standard_DS13_v2",
        "256 MB/s",
        "384 MB/s",
        "25600 IOPS",
        "source",
        "MicrosoftDocs/azure-docs",
    ] {
        assert!(out.contains(want), "missing {want:?} in:\n{out}");
    }
    let (code, out, _) = run(&["catalog", "disk", "p30"]);
    assert_eq!(code, 0);
    for want in ["P30", "5000 IOPS", "200 MB/s", "30000", "1000"] {
        assert!(out.contains(want), "missing {want:?} in:\n{out}");
    }
}

/// A size written with other punctuation than the catalog's is that size, said in the
/// report's warnings; `advisor catalog vm`, a lookup, still answers with a did-you-mean.
#[test]
fn a_misspelt_vm_size_is_read_as_the_catalogs_and_said() {
    let capture = "fixtures/captures/iostat-text/iostat_xt_1_10.txt";
    let (code, out, err) = run(&[
        "analyze",
        capture,
        "--topology",
        "fixtures/topologies/warnings/misspelt_vm_size.toml",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let warnings = v["warnings"].to_string();
    assert!(warnings.contains("is read as Standard_DS13_v2"), "{warnings}");
    let reasons = v["not_evaluated"].to_string();
    assert!(!reasons.contains("Standard_DS13v2"), "{reasons}");
    let (code, _, err) = run(&["catalog", "vm", "Standard_DS13v2"]);
    assert_eq!(code, 2);
    assert!(err.contains("did you mean \"Standard_DS13_v2\"?"), "{err}");
}

/// The DS13_v2 field capture on a size the catalog lacks, from a topology file and from
/// `--vm`: the run goes on, the VM's caps are "not evaluated" with the reason, the disks'
/// own rules are judged as before.
#[test]
fn a_size_the_catalog_lacks_leaves_its_caps_not_evaluated() {
    let dir = std::env::temp_dir().join(format!("advisor-topology-{}-unknown", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let capture = format!("{DS13}/capture.csv");
    let size = "Standard_NC24ads_A100_v4";
    let topology = dir.join("nc.toml");
    std::fs::write(
        &topology,
        format!(
            "[vm]\nsize = \"{size}\"\ntemp_disk = \"D:\"\n\n[[disk]]\nname = \"C:\"\nsku = \"P10\"\nrole = \"os\"\n\n[[disk]]\nname = \"E:\"\nsku = \"P30\"\ncache = \"ReadOnly\"\nrole = \"data\"\n"
        ),
    )
    .expect("topology");
    let topology = topology.display().to_string();
    let reason = |r: &serde_json::Value, rule: &str| -> Option<String> {
        r["not_evaluated"]
            .as_array()?
            .iter()
            .find(|n| n["rule"] == rule)
            .map(|n| n["reason"].as_str().unwrap_or_default().to_owned())
    };
    for args in [["--topology", topology.as_str()], ["--vm", size]] {
        let (code, out, err) = run(&["analyze", &capture, args[0], args[1], "--format", "json"]);
        assert!(code == 0 || code == 1, "{args:?}: exit {code}: {err}");
        let report: serde_json::Value = serde_json::from_str(&out).unwrap();
        // With `--vm` alone there are no disks: the rules that need them say that first;
        // the ones that need only the VM's figures blame the size.
        let rules: &[&str] = if args[0] == "--vm" {
            &["vm-provisioned-exceeds-vm-cap", "vm-cached-provisioned-exceeds-cap"]
        } else {
            &["vm-cached-throughput-cap", "vm-uncached-throughput-cap", "vm-uncached-iops-cap"]
        };
        for &rule in rules {
            let why = reason(&report, rule)
                .unwrap_or_else(|| panic!("{args:?}: {rule} is not listed as not evaluated"));
            assert!(
                why.starts_with(&format!("VM size {size} is not in advisor's catalog, so its ")),
                "{args:?}: {rule}: {why}"
            );
            assert!(why.contains("--catalog FILE"), "{why}");
        }
        let warnings = report["warnings"].to_string();
        assert!(
            warnings.contains("is not in advisor's catalog: every other fact is kept"),
            "{warnings}"
        );
        // The disks' own rules never blame the size (write-heavy-disk-cached weighs the
        // cached budget, so it may).
        for n in report["not_evaluated"].as_array().unwrap() {
            let rule = n["rule"].as_str().unwrap_or_default();
            let why = n["reason"].as_str().unwrap_or_default();
            let disk_rule = ["disk-", "log-disk", "read-heavy", "readwrite-cache"]
                .iter()
                .any(|p| rule.starts_with(p));
            assert!(!(disk_rule && why.contains("catalog")), "{args:?}: {rule}: {why}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_bad_cache_value_is_refused_with_its_line_and_column() {
    let capture = "fixtures/captures/iostat-text/iostat_xt_1_10.txt";
    let (code, _, err) =
        run(&["analyze", capture, "--topology", "fixtures/topologies/invalid/bad_cache.toml"]);
    assert_eq!(code, 2);
    insta::assert_snapshot!(err, @r#"
    error: fixtures/topologies/invalid/bad_cache.toml:7:9: invalid cache "WriteBack"
      |
    7 | cache = "WriteBack"
      |         ^^^^^^^^^^^
      help: `cache` is one of: None, ReadOnly, ReadWrite
    "#);
}

#[test]
fn catalog_vm_says_why_a_ddsv4_size_has_no_cached_limit() {
    // ../shared/catalog/NOTES.md section 9: the 2020 "cached and temp storage" figures of
    // Ddsv4 (19000 IOPS / 120 MB/s for D2ds_v4) are not a cached limit.
    let (code, out, err) = run(&["catalog", "vm", "Standard_D2ds_v4"]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("19000") && !out.contains("120 MB/s"), "{out}");
    insta::assert_snapshot!(out, @r#"
    Standard_D2ds_v4 (series Ddsv4)
      status                              current
      vCPUs                               2
      memory                              8 GiB
      temp disk                           75 GiB
      max data disks                      4
      cached IOPS                         not published
      cached throughput                   not published
      cache size                          not published
      uncached IOPS                       3200 IOPS
      uncached throughput                 48 MB/s
      uncached burst IOPS                 4000 IOPS
      uncached burst throughput           200 MB/s
      v2 / Ultra IOPS                     not published
      v2 / Ultra throughput               not published
      temp disk read IOPS                 9000 IOPS
      temp disk read throughput           125 MB/s
      premium storage                     supported
      host caching                        supported
      no cached limit                     Microsoft publishes only temp-storage figures for Ddsv4, no
                                          limit for host-cached disks: the 2020 pages' "cached and temp
                                          storage" column was renamed "temp storage" and no cached limit
                                          replaced it. Rules that compare with the cached limit report
                                          Standard_D2ds_v4 as not evaluated; set cached_iops and
                                          cached_mbps in the topology's [vm] section if you have
                                          figures.
      cached = host-cached disks + the temp disk; uncached = all remote disks
      source                              MicrosoftDocs/azure-compute-docs:articles/virtual-machines/sizes/general-purpose/ddsv4-series.md@9c9cd9d27d1d662344263286880faed58f013596
    "#);
}

#[test]
fn catalog_vm_says_b_series_v1_has_no_host_caching() {
    let (code, out, err) = run(&["catalog", "vm", "b1s"]);
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!(out, @r#"
    Standard_B1s (series Bs)
      status                              previous generation
      vCPUs                               1
      memory                              1 GiB
      temp disk                           4 GiB
      max data disks                      2
      cached IOPS                         not published
      cached throughput                   not published
      cache size                          not published
      uncached IOPS                       320 IOPS
      uncached throughput                 10 MB/s
      uncached burst IOPS                 4000 IOPS
      uncached burst throughput           100 MB/s
      v2 / Ultra IOPS                     not published
      v2 / Ultra throughput               not published
      temp disk read IOPS                 not published
      temp disk read throughput           not published
      premium storage                     supported
      host caching                        not supported
      no cached limit                     B-series v1 does not support host caching; what Microsoft
                                          publishes for its local storage is the local disks' own
                                          throughput (the temp disk or local NVMe figures), not a cached
                                          limit. Rules that compare with the cached limit report
                                          Standard_B1s as not evaluated; set cached_iops and cached_mbps
                                          in the topology's [vm] section if you have figures.
      cached = host-cached disks + the temp disk; uncached = all remote disks
      source                              MicrosoftDocs/azure-compute-docs:articles/virtual-machines/sizes/general-purpose/bv1-series.md@9c9cd9d27d1d662344263286880faed58f013596
                                          MicrosoftDocs/azure-compute-docs:articles/virtual-machines/sizes/lifecycle/previous-gen-sizes-list.md@a18807c4fcf50a76173edcbb264bc171197922a7
    "#);
}

#[test]
fn catalog_vm_json_carries_the_temp_disk_and_why_no_cached_limit() {
    let json = |size: &str| -> serde_json::Value {
        let (code, out, err) = run(&["catalog", "vm", size, "--json"]);
        assert_eq!(code, 0, "{err}");
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
    };
    let d2 = json("Standard_D2ds_v4");
    assert_eq!(d2["temp_gib"], 75.0);
    assert!(d2["cached_iops"].is_null() && d2["cached_mbps"].is_null(), "{d2}");
    assert_eq!(d2["cached_gap"], "temp_only");
    let why = d2["cached_gap_reason"].as_str().unwrap_or_default();
    assert!(why.starts_with("Microsoft publishes only temp-storage figures for Ddsv4"), "{why}");
    let b1s = json("Standard_B1s");
    assert_eq!(
        (b1s["cached_gap"].as_str(), b1s["temp_gib"].as_f64()),
        (Some("no_host_caching"), Some(4.0))
    );
    assert_eq!(b1s["host_caching"], false);
    let ds13 = json("Standard_DS13_v2");
    assert!(ds13["cached_gap"].is_null() && ds13["cached_gap_reason"].is_null(), "{ds13}");
    assert_eq!(ds13["cached_mbps"], 256.0);
}

/// The sizes tickets come from today, old and new, each with the figures its page gives:
/// per controller, Premium SSD v2 / Ultra, the temp disk's own and the local NVMe disks'.
#[test]
fn catalog_vm_answers_for_old_and_new_sizes_with_the_new_columns() {
    let json = |size: &str| -> serde_json::Value {
        let (code, out, err) = run(&["catalog", "vm", size, "--json"]);
        assert_eq!(code, 0, "{size}: {err}");
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
    };
    let d1 = json("Standard_D1_v2");
    assert_eq!(
        (d1["status"].as_str(), d1["premium_storage"].as_bool()),
        (Some("previous"), Some(false))
    );
    assert_eq!(
        (d1["temp_iops"].as_f64(), d1["temp_write_mbps"].as_f64()),
        (Some(3000.0), Some(23.0))
    );
    let d8as = json("Standard_D8as_v6");
    assert_eq!(
        (d8as["uncached_iops"].as_f64(), d8as["uncached_v2_iops"].as_f64()),
        (Some(15200.0), Some(15200.0))
    );
    assert_eq!(d8as["temp_gib"], 0.0);
    let d4ps = json("Standard_D4ps_v6");
    assert_eq!(
        (d4ps["uncached_v2_iops"].as_f64(), d4ps["uncached_v2_mbps"].as_f64()),
        (Some(8333.0), Some(248.0))
    );
    let d8lds = json("Standard_D8lds_v6");
    assert_eq!(
        (d8lds["temp_iops"].as_f64(), d8lds["temp_write_iops"].as_f64()),
        (Some(150000.0), Some(60000.0))
    );
    assert_eq!(
        (d8lds["uncached_v2_iops"].as_f64(), d8lds["uncached_v2_mbps"].as_f64()),
        (Some(16667.0), Some(496.0))
    );
    let e16 = json("Standard_E16bds_v5");
    assert_eq!(
        (e16["uncached_iops"].as_f64(), e16["nvme"]["iops"].as_f64()),
        (Some(48400.0), Some(66000.0))
    );
    assert_eq!(
        (e16["uncached_v2_iops"].as_f64(), e16["nvme"]["v2_iops"].as_f64()),
        (Some(64800.0), Some(88400.0))
    );
    let e16n = json("Standard_E16bds_v5:nvme");
    assert_eq!(e16n["uncached_iops"].as_f64(), Some(66000.0));
    let l8 = json("Standard_L8s_v3");
    assert_eq!(
        (l8["local_nvme_disks"].as_u64(), l8["local_nvme_iops"].as_f64()),
        (Some(1), Some(400000.0))
    );
    assert_eq!(
        (l8["local_nvme_disk_gb"].as_f64(), l8["host_caching"].as_bool()),
        (Some(1920.0), Some(false))
    );
    let a0 = json("Basic_A0");
    assert_eq!((a0["status"].as_str(), a0["family"].as_str()), (Some("retired"), Some("Basic_A")));
    for s in &[&d1, &d8as, &d4ps, &d8lds, &e16, &l8, &a0] {
        let src = s["source"].as_array().map(Vec::len).unwrap_or_default();
        assert!(src > 0 && s["source"][0].as_str().is_some_and(|x| x.contains('@')), "{s}");
    }
    // Both controllers, side by side in the text.
    let (_, out, _) = run(&["catalog", "vm", "E16bds_v5"]);
    assert!(out.contains("uncached IOPS (SCSI)") && out.contains("uncached IOPS (NVMe)"), "{out}");
}

#[test]
fn catalog_list_counts_the_sizes_by_family_and_status() {
    let (code, out, err) = run(&["catalog", "list", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let counts = &v["vm_counts"];
    assert_eq!(counts["total"], 1087);
    assert_eq!(counts["retired"], 17);
    assert_eq!(counts["by_family"]["Basic_A"]["retired"], 5);
    assert_eq!(counts["by_family"]["FX"]["total"], 25);
    let (code, out, _) = run(&["catalog", "list"]);
    assert_eq!(code, 0);
    assert!(
        out.contains(
            "1087 VM sizes (895 current, 175 previous generation, 17 retired), by family:"
        ),
        "{out}"
    );
    assert!(out.contains("  Basic_A     5  (5 retired)"), "{out}");
}

/// The expert's case: a Standard_D8s_v6 with a Premium SSD v2 at 15,000 IOPS / 450 MB/s is
/// within the size's own Premium SSD v2 / Ultra limits (16,667 / 496), though above its
/// Premium SSD ones (12,800 / 424): not "provisioned beyond the VM". Above 16,667 it is, and
/// the evidence says which figures it used.
#[test]
fn premium_ssd_v2_on_a_d8s_v6_is_judged_against_its_own_vm_limits() {
    let dir = std::env::temp_dir().join(format!("advisor-topology-{}-v2", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let capture = "fixtures/captures/iostat-text/iostat_xt_1_10.txt";
    let fired = |iops: u32, mbps: u32| -> Option<String> {
        let topology = dir.join(format!("d8s_v6_{iops}.toml"));
        let text = format!(
            "[vm]\nsize = \"Standard_D8s_v6\"\n\n[[disk]]\nname = \"sdc\"\nsku = \"PremiumV2\"\niops = {iops}\nmbps = {mbps}\n"
        );
        std::fs::write(&topology, text).expect("topology");
        let (findings, _) = json_findings(capture, &[&topology.to_string_lossy()]);
        findings.as_array().and_then(|f| {
            f.iter()
                .find(|x| x["rule"] == "vm-provisioned-exceeds-vm-cap")
                .map(|x| x["evidence"].as_str().unwrap_or_default().to_owned())
        })
    };
    assert_eq!(fired(15000, 450), None);
    let evidence = fired(18000, 520).expect("18,000 IOPS is above the size's v2 limit");
    assert!(
        evidence.contains("at most 16667 IOPS and 496 MB/s uncached (its limits for Premium SSD v2 and Ultra disks"),
        "{evidence}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// The DS13_v2 field case (a busy temp disk beside a cached P30) on a size whose cached limit
/// is not published: the cached rules must say so, not pass silently and not judge against
/// the 2020 figure; the temp disk is judged against its own published limit instead.
#[test]
fn rules_that_need_a_cached_limit_are_not_evaluated_where_none_is_published() {
    let dir = std::env::temp_dir().join(format!("advisor-topology-{}-gap", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let capture =
        repo().join("fixtures/scenarios/ds13v2-temp-disk-throttles-cached-p30/capture.csv");
    let capture = capture.to_string_lossy().into_owned();
    let cached_rules = [
        "temp-disk-pressure",
        "temp-disk-with-cached-disks",
        "vm-cached-iops-cap",
        "vm-cached-provisioned-exceeds-cap",
        "vm-cached-throughput-cap",
    ];
    let analyze = |size: &str, extra: &[&str]| -> serde_json::Value {
        let topology = dir.join(format!("{size}.toml"));
        let text = format!(
            "[vm]\nsize = \"{size}\"\ntemp_disk = \"D:\"\n\n[[disk]]\nname = \"C:\"\nsku = \"P10\"\nrole = \"os\"\n\n[[disk]]\nname = \"E:\"\nsku = \"P30\"\ncache = \"ReadOnly\"\nrole = \"data\"\n"
        );
        std::fs::write(&topology, text).expect("topology");
        let topology = topology.to_string_lossy().into_owned();
        let mut args = vec!["analyze", &capture, "--topology", &topology, "--format", "json"];
        args.extend(extra);
        let (code, out, err) = run(&args);
        assert!(code == 0 || code == 1, "exit {code}: {err}");
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
    };
    let fired = |r: &serde_json::Value, rule: &str| {
        r["findings"].as_array().is_some_and(|f| f.iter().any(|x| x["rule"] == rule))
    };
    let reason = |r: &serde_json::Value, rule: &str| -> Option<String> {
        r["not_evaluated"]
            .as_array()?
            .iter()
            .find(|n| n["rule"] == rule)
            .map(|n| n["reason"].as_str().unwrap_or_default().to_owned())
    };
    for size in ["Standard_D2ds_v4", "Standard_B1s"] {
        let report = analyze(size, &[]);
        for rule in cached_rules {
            // Ddsv4 publishes its temp disk's own limits: the temp disk is judged against
            // them (the capture's D: writes ~260 MB/s), not against a cached limit.
            if size == "Standard_D2ds_v4" && rule == "temp-disk-pressure" {
                let f = report["findings"].as_array().and_then(|f| {
                    f.iter().find(|x| x["rule"] == rule).map(|x| x["evidence"].to_string())
                });
                let evidence = f.unwrap_or_else(|| panic!("{size}: {rule} did not fire"));
                assert!(evidence.contains("allows for temp storage"), "{size}: {evidence}");
                continue;
            }
            assert!(!fired(&report, rule), "{size}: {rule} fired without a cached limit");
            // A B v1 size cannot host-cache (effective cache None on every disk): a rule that
            // needs a cached disk has nothing to judge there and is quiet, not unevaluated.
            // Nor does vm-cached-provisioned-exceeds-cap on either: it counts ReadWrite data
            // disks only, and E: is ReadOnly.
            if (size == "Standard_B1s" && rule == "temp-disk-with-cached-disks")
                || rule == "vm-cached-provisioned-exceeds-cap"
            {
                assert!(reason(&report, rule).is_none(), "{size}: {rule}");
                continue;
            }
            let why = reason(&report, rule)
                .unwrap_or_else(|| panic!("{size}: {rule} is not listed as not evaluated"));
            assert!(
                why.starts_with(&format!("{size} has no published cached")),
                "{size}: {rule}: {why}"
            );
        }
        // The uncached budget is published and still judged.
        assert!(reason(&report, "vm-uncached-throughput-cap").is_none(), "{size}");
        // The topology warning on caching a disk of a B v1 size still holds; Ddsv4 supports
        // host caching (its page: "Premium Storage caching: Supported"), only the limit is gone.
        let warnings = report["warnings"].to_string();
        let warned = warnings.contains(&format!("{size} does not support host caching"));
        assert_eq!(warned, size == "Standard_B1s", "{size}: {warnings}");
    }
    // With the 2020 "cached and temp storage" figures put back through --catalog, the same
    // capture is judged against them: the verdict the corrected catalog no longer makes.
    let old = dir.join("ddsv4-2020.csv");
    std::fs::write(
        &old,
        "size,cached_iops,cached_mbps,cache_gib,source\nStandard_D2ds_v4,19000,120,50,2020 page\n",
    )
    .expect("catalog");
    let report = analyze("Standard_D2ds_v4", &["--catalog", &old.to_string_lossy()]);
    assert!(fired(&report, "vm-cached-throughput-cap"), "{report}");
    assert!(reason(&report, "vm-cached-throughput-cap").is_none());
    std::fs::remove_dir_all(&dir).ok();
}

/// `analyze --format json` with these topology arguments: (findings, not evaluated).
fn json_findings(capture: &str, topology: &[&str]) -> (serde_json::Value, serde_json::Value) {
    let mut args = vec!["analyze", capture, "--format", "json"];
    for t in topology {
        args.extend(["--topology", t]);
    }
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    (v["findings"].clone(), v["not_evaluated"].clone())
}

const DS13: &str = "fixtures/scenarios/ds13v2-temp-disk-throttles-cached-p30";
const DS13_DOCS: [&str; 3] = [
    "fixtures/topologies/documents/ds13v2-windows/imds.json",
    "fixtures/topologies/documents/ds13v2-windows/get-disk.json",
    "fixtures/topologies/documents/ds13v2-windows/get-partition.json",
];

#[test]
fn ds13_v2_as_imds_and_get_disk_gives_exactly_the_findings_of_its_toml() {
    let capture = format!("{DS13}/capture.csv");
    let toml = format!("{DS13}/topology.toml");
    let from_toml = json_findings(&capture, &[&toml]);
    let from_docs = json_findings(&capture, &DS13_DOCS);
    assert_eq!(from_docs, from_toml);
    let rules: Vec<&str> =
        from_toml.0.as_array().unwrap().iter().filter_map(|f| f["rule"].as_str()).collect();
    assert!(rules.contains(&"vm-cached-throughput-cap"), "{rules:?}");
    assert!(rules.contains(&"temp-disk-with-cached-disks"), "{rules:?}");
}

const AKS: &str = "fixtures/topologies/documents/aks-d2sv3-linux";

/// An AKS node's capture (iostat of sda and sdc) with the cluster's documents (the Node,
/// its volumes, their claims and classes, the attachments) and the node's `/dev/disk/azure`
/// listing is judged exactly as with the topology a person would write of the same facts.
#[test]
fn an_aks_node_with_its_kubernetes_documents_gives_exactly_the_findings_of_its_toml() {
    let capture = "fixtures/scenarios/ds1-with-p30/iostat.txt";
    let docs: Vec<String> = [
        "node.json",
        "pv.json",
        "pvc.json",
        "storageclass.json",
        "volumeattachment.json",
        "disk-azure.txt",
    ]
    .iter()
    .map(|f| format!("{AKS}/{f}"))
    .collect();
    let docs: Vec<&str> = docs.iter().map(String::as_str).collect();
    let from_toml = json_findings(capture, &["fixtures/topologies/aks_d2sv3_node.toml"]);
    let from_docs = json_findings(capture, &docs);
    assert_eq!(from_docs, from_toml);
    let rules: Vec<&str> =
        from_toml.0.as_array().unwrap().iter().filter_map(|f| f["rule"].as_str()).collect();
    // A P30 (5,000 IOPS) behind a D2s_v3's 3,200 uncached IOPS.
    assert!(rules.contains(&"vm-provisioned-exceeds-vm-cap"), "{rules:?}");
}

#[test]
fn advisor_topology_output_fed_back_gives_the_same_findings() {
    let dir = std::env::temp_dir().join(format!("advisor-topology-rt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let tier = "fixtures/topologies/documents/tier-scsi-linux";
    let tier_docs = [
        format!("{tier}/az-vm-show.json"),
        format!("{tier}/az-disk-show-data0.json"),
        format!("{tier}/scsi1.txt"),
        format!("{tier}/override.toml"),
    ];
    let tier_docs: Vec<&str> = tier_docs.iter().map(String::as_str).collect();
    let aks_docs: Vec<String> = [
        "node.json",
        "pv.json",
        "pvc.json",
        "storageclass.json",
        "volumeattachment.json",
        "disk-azure.txt",
    ]
    .iter()
    .map(|f| format!("{AKS}/{f}"))
    .collect();
    let aks_docs: Vec<&str> = aks_docs.iter().map(String::as_str).collect();
    let cases: [(&str, String, Vec<&str>); 3] = [
        ("ds13", format!("{DS13}/capture.csv"), DS13_DOCS.to_vec()),
        ("tier", "fixtures/captures/iostat-text/iostat_xt_1_10.txt".to_owned(), tier_docs),
        ("aks", "fixtures/scenarios/ds1-with-p30/iostat.txt".to_owned(), aks_docs),
    ];
    for (name, capture, docs) in cases {
        let mut args = vec!["topology"];
        args.extend(docs.iter().copied());
        let (code, printed, err) = run(&args);
        assert_eq!(code, 0, "{err}");
        assert!(printed.contains("# from "), "{printed}");
        let file = dir.join(format!("{name}.toml"));
        std::fs::write(&file, &printed).unwrap();
        let file = file.display().to_string();
        assert_eq!(json_findings(&capture, &[&file]), json_findings(&capture, &docs), "{name}");
        // And printed again from the printed file: the same facts.
        let (_, again, _) = run(&["topology", &file]);
        let facts = |s: &str| -> Vec<String> {
            s.lines().filter(|l| !l.starts_with('#') && !l.is_empty()).map(str::to_owned).collect()
        };
        assert_eq!(facts(&again), facts(&printed), "{name}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_report_says_what_was_assumed_overridden_and_unexplained() {
    let tier = "fixtures/topologies/documents/tier-scsi-linux";
    let (code, out, err) = run(&[
        "analyze",
        "fixtures/captures/iostat-text/iostat_xt_1_10.txt",
        "--topology",
        &format!("{tier}/az-vm-show.json"),
        "--topology",
        &format!("{tier}/az-disk-show-data0.json"),
        "--topology",
        &format!("{tier}/scsi1.txt"),
        "--topology",
        &format!("{tier}/override.toml"),
    ]);
    assert_eq!(code, 0, "{err}");
    let section: String = out
        .split("#### Warnings about the inputs")
        .nth(1)
        .and_then(|s| s.split("\n### ").next())
        .unwrap_or_default()
        .to_owned();
    insta::assert_snapshot!("report_notes_tier_scsi_linux", section);
}

#[test]
fn bad_topology_documents_exit_2_naming_the_file() {
    for (file, want) in [
        ("imds-error.html", "imds-error.html: this is an HTML/XML page"),
        (
            "az-error.json",
            "az-error.json:2:12: at $.error: the document is an error answer, not a topology: ResourceNotFound",
        ),
        ("imds-truncated.json", "imds-truncated.json:24:21: the JSON ends early"),
        ("unknown-kind.json", "unknown-kind.json: unknown kind of document"),
        ("imds-bad-lun.json", "imds-bad-lun.json:6:55: at $.storageProfile.dataDisks[0].lun"),
        (
            "aks-bad-quantity.json",
            "aks-bad-quantity.json:28:32: at $.items[0].spec.capacity.storage: expected a storage quantity",
        ),
    ] {
        let path = format!("fixtures/topologies/documents/invalid/{file}");
        let (code, out, err) = run(&["topology", &path]);
        assert_eq!(code, 2, "{file}: {err}");
        assert!(out.is_empty(), "{file}: {out}");
        assert!(err.contains(want), "{file}: {err}");
        let capture = "fixtures/captures/iostat-text/iostat_xt_1_10.txt";
        let (code, _, err) = run(&["analyze", capture, "--topology", &path]);
        assert_eq!(code, 2, "{file}: {err}");
        assert!(err.contains(want), "{file}: {err}");
    }
}

/// Every lsblk shape (util-linux 2.32's strings to 2.38's `-O`, `-b`, `-p`, `-l`, columns in
/// any order) through the real binary: `advisor topology` prints a topology and `analyze
/// --topology` runs with it.
#[test]
fn every_lsblk_variant_goes_through_topology_and_analyze() {
    let dir = repo().join("fixtures/topologies/documents");
    let mut files: Vec<String> = std::fs::read_dir(dir.join("lsblk-variants"))
        .unwrap()
        .map(|e| {
            format!(
                "fixtures/topologies/documents/lsblk-variants/{}",
                e.unwrap().file_name().to_string_lossy()
            )
        })
        .collect();
    files.sort();
    files.push("fixtures/topologies/documents/nd96isr-h100-v5-linux/lsblk-jbp.json".to_owned());
    files.push("fixtures/topologies/documents/l8s-v3-linux/lsblk-names-only.json".to_owned());
    assert!(files.len() >= 9, "{files:?}");
    let capture = "fixtures/captures/iostat-text/iostat_xt_1_10.txt";
    for f in &files {
        let (code, out, err) = run(&["topology", f]);
        assert_eq!(code, 0, "{f}: {err}");
        assert!(
            out.contains("[[disk]]") && out.contains("role = \"os\"") || f.contains("names-only"),
            "{f}:\n{out}"
        );
        let (code, _, err) = run(&["analyze", capture, "--topology", f]);
        assert_eq!(code, 0, "{f}: {err}");
    }
}

/// The three documents of the field: a GPU VM's `lsblk -J -b -p` with eight local NVMe
/// disks under LVM, an IMDS document of a Standard_D1_v2, a `sar -n TCP,ETCP`: two
/// topologies and a refusal naming the command that captures disks.
#[test]
fn the_three_field_documents_give_a_topology_or_a_located_refusal() {
    let docs = "fixtures/topologies/documents";
    for files in [
        vec![format!("{docs}/nd96isr-h100-v5-linux/lsblk-jbp.json")],
        vec![
            format!("{docs}/nd96isr-h100-v5-linux/imds.json"),
            format!("{docs}/nd96isr-h100-v5-linux/lsblk-jbp.json"),
        ],
        vec![format!("{docs}/d1v2-linux/imds.json")],
    ] {
        let mut args = vec!["topology"];
        args.extend(files.iter().map(String::as_str));
        let (code, out, err) = run(&args);
        assert_eq!(code, 0, "{files:?}: {err}");
        assert!(out.contains("role = \"os\""), "{files:?}:\n{out}");
    }
    let (code, out, err) = run(&["analyze", "fixtures/invalid/sar-n-tcp-etcp.txt"]);
    assert_eq!(code, 2, "{out}");
    assert!(err.contains("sar-n-tcp-etcp.txt:3:1: this is sar text"), "{err}");
    assert!(err.contains("`sar -d -p 1 60`") && err.contains("`sar -A`"), "{err}");
}
