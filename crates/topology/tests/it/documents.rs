//! Topology from Azure's and the guest's own documents: detection by content,
//! the merge, SKUs from type and size, device names, the TOML that `advisor topology`
//! prints (round-tripped), and bad documents as a user sees them.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};

use advisor_topology::{
    Catalog, DiskKind, DocumentKind, Role, Topology, detect_kind, merge_documents,
};

fn catalog() -> Catalog {
    Catalog::builtin().unwrap()
}

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/topologies/documents")
}

/// The documents of a fixture folder (or single files), named relative to `documents/`.
fn docs(names: &[&str]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for n in names {
        let p = dir().join(n);
        let mut files: Vec<PathBuf> = if p.is_dir() {
            std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()).collect()
        } else {
            vec![p]
        };
        files.sort();
        for f in files {
            let rel = f.strip_prefix(dir()).unwrap().display().to_string();
            out.push((rel, std::fs::read_to_string(&f).unwrap()));
        }
    }
    out
}

fn topology(names: &[&str]) -> Topology {
    match Topology::from_documents(&docs(names), &catalog()) {
        Ok(t) => t,
        Err(e) => panic!("{e}"),
    }
}

fn codes(t: &Topology) -> Vec<(&str, &str)> {
    t.warnings.iter().map(|w| (w.code, w.subject.as_str())).collect()
}

#[test]
fn every_document_kind_is_detected_by_content() {
    let kind = |n: &str| {
        let (name, text) = docs(&[n]).remove(0);
        detect_kind(&name, &text).unwrap()
    };
    assert_eq!(kind("ds13v2-windows/imds.json"), DocumentKind::Imds);
    assert_eq!(kind("nvme-ultra-v2-linux/imds-compute.json"), DocumentKind::Imds);
    assert_eq!(kind("ds13v2-windows/get-disk.json"), DocumentKind::WindowsDisks);
    assert_eq!(kind("ds13v2-windows/get-partition.json"), DocumentKind::WindowsPartitions);
    assert_eq!(kind("nvme-ultra-v2-linux/lsblk.json"), DocumentKind::Lsblk);
    assert_eq!(kind("nvme-ultra-v2-linux/az-disk-list.json"), DocumentKind::AzDisk);
    assert_eq!(kind("tier-scsi-linux/az-disk-show-data0.json"), DocumentKind::AzDisk);
    assert_eq!(kind("tier-scsi-linux/az-vm-show.json"), DocumentKind::AzVm);
    assert_eq!(kind("tier-scsi-linux/scsi1.txt"), DocumentKind::AzureScsiLinks);
    assert_eq!(kind("tier-scsi-linux/override.toml"), DocumentKind::Contract);
    assert_eq!(kind("d1v2-linux/imds.json"), DocumentKind::Imds);
    assert_eq!(kind("nd96isr-h100-v5-linux/imds.json"), DocumentKind::Imds);
    assert_eq!(kind("nd96isr-h100-v5-linux/lsblk-jbp.json"), DocumentKind::Lsblk);
    assert_eq!(kind("l8s-v3-linux/lsblk-names-only.json"), DocumentKind::Lsblk);
    assert_eq!(kind("d16alds-v6-linux/disk-azure.txt"), DocumentKind::AzureScsiLinks);
    assert_eq!(kind("l8s-v3-linux/disk-azure.txt"), DocumentKind::AzureScsiLinks);
    for (name, text) in docs(&["lsblk-variants"]) {
        assert_eq!(detect_kind(&name, &text).unwrap(), DocumentKind::Lsblk, "{name}");
    }
    for (name, text) in docs(&["aks-d2sv3-linux", "aks-combined-list"]) {
        let want = if name.ends_with(".txt") {
            DocumentKind::AzureScsiLinks
        } else {
            DocumentKind::Kubernetes
        };
        assert_eq!(detect_kind(&name, &text).unwrap(), want, "{name}");
    }
    // A Kubernetes object alone, or a typed list whose items carry no kind.
    let (_, node) = docs(&["aks-d2sv3-linux/node.json"]).remove(0);
    assert_eq!(detect_kind("node", &node).unwrap(), DocumentKind::Kubernetes);
    let typed = r#"{"apiVersion": "v1", "kind": "PersistentVolumeList", "items": []}"#;
    assert_eq!(detect_kind("pvs", typed).unwrap(), DocumentKind::Kubernetes);
    // The name does not decide: an IMDS document saved as .txt is still IMDS.
    let (_, text) = docs(&["ds13v2-windows/imds.json"]).remove(0);
    assert_eq!(detect_kind("imds.txt", &text).unwrap(), DocumentKind::Imds);
}

#[test]
fn ds13_v2_from_imds_and_get_disk_is_the_seed_topology() {
    let t = topology(&["ds13v2-windows"]);
    let text = std::fs::read_to_string(
        dir().join("../../scenarios/ds13v2-temp-disk-throttles-cached-p30/topology.toml"),
    )
    .unwrap();
    let seed = Topology::parse("topology.toml", &text, &catalog()).unwrap();
    assert!(t.warnings.is_empty(), "{:?}", t.warnings);
    assert_eq!(t.vm.as_ref().map(|v| &v.size), seed.vm.as_ref().map(|v| &v.size));
    assert_eq!(t.temp_disks(), seed.temp_disks());
    let summary = |t: &Topology| -> Vec<(String, Option<String>, String, Role)> {
        t.disks
            .iter()
            .map(|d| (d.name.clone(), d.sku.clone(), d.cache.to_string(), d.role))
            .collect()
    };
    assert_eq!(summary(&t), summary(&seed));
    assert_eq!(t.disk("E:").and_then(|d| d.lun), Some(0));
    // Each merged fact remembers its source.
    let source = |k: &str| t.sources.iter().find(|(key, _)| key == k).map(|(_, s)| s.as_str());
    assert_eq!(
        source("disk E:.sku"),
        Some(
            "ds13v2-windows/imds.json: $.compute.storageProfile.dataDisks[0].managedDisk.storageAccountType (Premium_LRS) + $.compute.storageProfile.dataDisks[0].diskSizeGB (1024 GiB) -> P30"
        )
    );
    assert_eq!(
        source("vm.temp_disk"),
        Some(
            "ds13v2-windows/get-partition.json: $[2].DriveLetter, the temp disk by ds13v2-windows/get-disk.json: $[1].Location"
        )
    );
    assert!(seed.sources.is_empty());
    assert_eq!(t.disk("C:").and_then(|d| d.lun), None);
}

/// The collector's Windows bundle puts the temp disk on an adapter of its own (as Gen1 VMs
/// do), not the OS disk's: it is told by its size, the resource disk's to the MiB, and its
/// `LUN 0` is not taken for the data disk at LUN 0.
#[test]
fn a_temp_disk_on_its_own_adapter_is_told_by_the_resource_disk_size() {
    let bundle = dir().join("../../bundles/windows-ds13v2");
    let mut docs = Vec::new();
    for f in ["get-disk.json", "get-partition.json", "get-volume.json", "imds.json"] {
        let text = std::fs::read_to_string(bundle.join(f)).unwrap();
        docs.push((f.to_owned(), text));
    }
    let t = match Topology::from_documents(&docs, &catalog()) {
        Ok(t) => t,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(t.temp_disks(), vec!["D:"]);
    assert_eq!(t.disk("E:").and_then(|d| d.lun), Some(0));
    assert_eq!(t.disk("E:").and_then(|d| d.sku.clone()).as_deref(), Some("P30"));
    assert!(t.disk("D:").is_none());
    let source = |k: &str| t.sources.iter().find(|(key, _)| key == k).map(|(_, s)| s.as_str());
    assert!(
        source("vm.temp_disk").is_some_and(|s| s.contains("the size of the resource disk")),
        "{:?}",
        source("vm.temp_disk")
    );
}

#[test]
fn premium_by_size_unless_the_tier_says_more_and_the_toml_wins() {
    let t = topology(&["tier-scsi-linux"]);
    let sku = |n: &str| t.disk(n).and_then(|d| d.sku.clone());
    // 200 GiB Premium_LRS bills as P15; `az disk show` says tier P30 for lun 0.
    assert_eq!(sku("sdc").as_deref(), Some("P30"));
    assert_eq!(sku("sdd").as_deref(), Some("P15"));
    // 30 GiB StandardSSD_LRS: E4.
    assert_eq!(sku("sda").as_deref(), Some("E4"));
    let sdd = t.disk("sdd").unwrap();
    assert_eq!((sdd.role, sdd.cache_setting.name(), sdd.lun), (Role::Log, "ReadOnly", Some(1)));
    let c = codes(&t);
    assert!(c.contains(&("assumed-device-name", "sda")), "{c:?}");
    assert!(c.contains(&("topology-override", "sdd")), "{c:?}");
    let o = t.warnings.iter().find(|w| w.code == "topology-override").unwrap();
    assert!(o.message.contains("override.toml overrides \"None\" from"), "{}", o.message);
    assert!(
        o.message.contains("az-vm-show.json: $.storageProfile.dataDisks[1].caching"),
        "{}",
        o.message
    );
}

#[test]
fn ultra_and_premium_v2_use_their_provisioned_figures_on_nvme_names() {
    let t = topology(&["nvme-ultra-v2-linux"]);
    let wal = t.disk("nvme0n2").unwrap();
    assert_eq!(
        (wal.kind, wal.iops, wal.mbps, wal.lun),
        (Some(DiskKind::Ultra), Some(40000.0), Some(1200.0), Some(0))
    );
    let data = t.disk("nvme0n3").unwrap();
    assert_eq!(
        (data.kind, data.iops, data.mbps, data.lun),
        (Some(DiskKind::PremiumSsdV2), Some(12000.0), Some(250.0), Some(1))
    );
    assert_eq!(t.disk("nvme0n1").map(|d| d.role), Some(Role::Os));
    assert_eq!(t.temp_disks(), vec!["sda"]);
    // nvme0n4 is LUN 2 in the guest, and no Azure document has a LUN 2: listed, not guessed.
    let extra = t.disk("nvme0n4").unwrap();
    assert_eq!((extra.sku.as_deref(), extra.lun), (None, Some(2)));
    assert!(codes(&t).contains(&("unexplained-disk", "nvme0n4")), "{:?}", codes(&t));
}

#[test]
fn without_a_guest_map_the_default_names_are_assumed_and_said() {
    let t = topology(&["ds13v2-windows/imds.json"]);
    let names: Vec<&str> = t.disks.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["disk0", "lun0"]);
    assert_eq!(t.temp_disks(), vec!["disk1"]);
    let c = codes(&t);
    assert!(c.contains(&("assumed-device-name", "disk0")), "{c:?}");
    assert!(c.contains(&("assumed-device-name", "disk1")), "{c:?}");
    assert!(c.contains(&("unmapped-lun", "lun0")), "{c:?}");
}

/// One E16ds_v5 as lsblk prints it in every shape (util-linux 2.32's strings and 2.33+'s
/// types, sizes in bytes or `256G`, short or full names, columns in any order, all columns,
/// a flat list): the same disks, roles and LUNs from each, and its md RAID 0 as a pool from
/// each shape that shows both members (a flat list of 2.34+ names one parent per row).
#[test]
fn every_lsblk_variant_gives_the_same_disks() {
    let want: Vec<(String, Option<String>, Option<u32>)> = [
        ("sda", Some("os"), None),
        ("sdc", None, Some(0)),
        ("sdd", None, Some(1)),
        ("sde", None, Some(2)),
        ("sdb", Some("temp"), None),
    ]
    .iter()
    .map(|(n, r, l)| ((*n).to_owned(), r.map(str::to_owned), *l))
    .collect();
    let variants = docs(&["lsblk-variants"]);
    assert_eq!(variants.len(), 7);
    for (name, text) in variants {
        let t = match Topology::from_documents(&[(name.clone(), text)], &catalog()) {
            Ok(t) => t,
            Err(e) => panic!("{name}: {e}"),
        };
        let got: Vec<(String, Option<String>, Option<u32>)> = t
            .disks
            .iter()
            .map(|d| {
                let role = match d.role {
                    Role::Os => Some("os".to_owned()),
                    Role::Temp => Some("temp".to_owned()),
                    _ => None,
                };
                (d.name.clone(), role, d.lun)
            })
            .collect();
        assert_eq!(got, want, "{name}");
        assert!(t.vm.is_none(), "{name}");
        let pools: Vec<(&str, Vec<&str>)> = t
            .pools
            .iter()
            .map(|p| (p.name.as_str(), p.disks.iter().map(String::as_str).collect()))
            .collect();
        if name.ends_with("2.38-list.json") {
            assert!(pools.is_empty(), "{name}: {pools:?}");
        } else {
            assert_eq!(pools, [("md0", vec!["sdc", "sdd"])], "{name}");
        }
    }
}

/// The issue's GPU VM: `lsblk -J -b -p` (sizes in bytes, /dev paths, snap loop devices,
/// eight "Microsoft NVMe Direct Disk" devices under one LVM volume) and the IMDS document of
/// a size the catalog lacks: a topology with the OS, temp and data disks, the eight local
/// disks as temp storage, the VM's caps unknown and said so.
#[test]
fn a_gpu_vm_with_eight_local_nvme_disks_under_lvm_is_a_topology() {
    let t = topology(&["nd96isr-h100-v5-linux"]);
    let vm = t.vm.as_ref().unwrap();
    assert_eq!((vm.size.name.as_str(), vm.in_catalog), ("Standard_ND96isr_H100_v5", false));
    let mut temp = vec!["sdb".to_owned()];
    temp.extend((0..8).map(|i| format!("nvme{i}n1")));
    assert_eq!(t.temp_disks(), temp.iter().map(String::as_str).collect::<Vec<_>>());
    let sda = t.disk("/dev/sda").unwrap();
    assert_eq!(
        (sda.role, sda.sku.as_deref(), sda.cache.name()),
        (Role::Os, Some("P6"), "ReadWrite")
    );
    let sdc = t.disk("sdc").unwrap();
    assert_eq!((sdc.lun, sdc.sku.as_deref(), sdc.cache.name()), (Some(0), Some("P30"), "ReadOnly"));
    assert!(t.disks.iter().all(|d| !d.name.starts_with("loop")));
    let c = codes(&t);
    assert_eq!(c.first(), Some(&("vm-size-unknown", "vm")), "{c:?}");
    assert!(c.contains(&("local-volume", "vg_nvme-lv_scratch")), "{c:?}");
    assert!(!c.iter().any(|(code, _)| *code == "unexplained-disk"), "{c:?}");
    let l = t.limits();
    assert_eq!(l.vm.as_ref().map(|v| (v.uncached_iops, v.in_catalog)), Some((None, false)));
    assert_eq!(l.disk("sdc").map(|d| (d.iops, d.mbps)), Some((Some(5000.0), Some(200.0))));
    // lsblk alone is a topology too: no VM size, so the temp disk is a disk of role temp.
    let alone = topology(&["nd96isr-h100-v5-linux/lsblk-jbp.json"]);
    assert!(alone.vm.is_none());
    assert_eq!(alone.temp_disks().len(), 9);
    assert_eq!(alone.disk("sda").map(|d| d.role), Some(Role::Os));
}

/// An IMDS document of Standard_D1_v2 (a legacy size, no premium storage) gives its OS
/// disk, caching, data disk and resource disk whether or not the catalog carries the size.
#[test]
fn a_d1_v2_imds_document_gives_a_topology_with_or_without_its_catalog_row() {
    let mut with_row = catalog();
    with_row
        .merge_csv(
            "d1v2.csv",
            "size,vcpu,memory_gib,temp_gib,max_data_disks,source\n\
             Standard_D1_v2,1,3.5,50,4,MicrosoftDocs/azure-docs:articles/virtual-machines/dv2-dsv2-series.md\n",
            true,
        )
        .unwrap();
    let d = docs(&["d1v2-linux/imds.json"]);
    let builtin = catalog();
    for c in [&builtin, &with_row] {
        let t = Topology::from_documents(&d, c).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(t.vm.as_ref().map(|v| v.size.name.as_str()), Some("Standard_D1_v2"));
        assert_eq!(t.temp_disks(), ["sdb"]);
        let os = t.disk("sda").unwrap();
        assert_eq!(
            (os.role, os.sku.as_deref(), os.cache_setting.name()),
            (Role::Os, Some("S4"), "ReadWrite")
        );
        let data = t.disk("lun0").unwrap();
        assert_eq!(
            (data.lun, data.sku.as_deref(), data.cache_setting.name()),
            (Some(0), Some("E10"), "None")
        );
        let codes = codes(&t);
        let known = c.vm("Standard_D1_v2").is_ok();
        assert_eq!(t.vm.as_ref().map(|v| v.in_catalog), Some(known));
        assert_eq!(codes.contains(&("vm-size-unknown", "vm")), !known, "{codes:?}");
        assert!(codes.contains(&("assumed-device-name", "sdb")), "{codes:?}");
    }
}

/// `az vm show` of a size the catalog lacks keeps its disks, SKUs and caching too.
#[test]
fn az_vm_show_of_a_size_the_catalog_lacks_keeps_its_disks() {
    let mut d = docs(&["tier-scsi-linux"]);
    let known = Topology::from_documents(&d, &catalog()).unwrap_or_else(|e| panic!("{e}"));
    for (name, text) in &mut d {
        if name.ends_with("az-vm-show.json") {
            let before = known.vm.as_ref().map(|v| v.size.name.clone()).unwrap_or_default();
            assert!(text.contains(&format!("\"{before}\"")), "{before}");
            *text = text.replace(&format!("\"{before}\""), "\"Standard_NC24ads_A100_v4\"");
        }
    }
    let t = Topology::from_documents(&d, &catalog()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(t.vm.as_ref().map(|v| v.in_catalog), Some(false));
    let view = |t: &Topology| -> Vec<(String, Option<String>, String, Option<u32>)> {
        t.disks
            .iter()
            .map(|d| (d.name.clone(), d.sku.clone(), d.cache_setting.to_string(), d.lun))
            .collect()
    };
    assert_eq!(view(&t), view(&known));
    assert_eq!(t.temp_disks(), known.temp_disks());
    assert_eq!(codes(&t).first(), Some(&("vm-size-unknown", "vm")));
}

/// `ls -lR /dev/disk/azure`: azure-vm-utils' links name the OS disk, each data disk's LUN
/// and the local disks; on an L8s_v3 they also correct what an lsblk with names only would
/// guess (`nvme0n1` is a local disk, not an NVMe OS disk), in either order.
#[test]
fn azure_links_name_os_data_and_local_disks() {
    let t = topology(&["d16alds-v6-linux"]);
    let roles: Vec<(&str, Role, Option<u32>)> =
        t.disks.iter().map(|d| (d.name.as_str(), d.role, d.lun)).collect();
    assert_eq!(
        roles,
        [
            ("nvme0n1", Role::Os, None),
            ("nvme0n2", Role::Data, Some(0)),
            ("nvme0n3", Role::Data, Some(1)),
            ("nvme0n4", Role::Data, Some(2)),
            ("nvme0n5", Role::Data, Some(3)),
            ("nvme3n1", Role::Temp, None),
            ("nvme1n1", Role::Temp, None),
            ("nvme2n1", Role::Temp, None),
            ("nvme4n1", Role::Temp, None),
        ]
    );
    let guessed = topology(&["l8s-v3-linux/lsblk-names-only.json"]);
    assert_eq!(guessed.disk("nvme0n1").map(|d| d.role), Some(Role::Temp));
    let links_first = docs(&["l8s-v3-linux/disk-azure.txt", "l8s-v3-linux/lsblk-names-only.json"]);
    let lsblk_first = docs(&["l8s-v3-linux/lsblk-names-only.json", "l8s-v3-linux/disk-azure.txt"]);
    for d in [links_first, lsblk_first] {
        let t = Topology::from_documents(&d, &catalog()).unwrap_or_else(|e| panic!("{e}"));
        let view = |n: &str| t.disk(n).map(|d| (d.role, d.lun));
        assert_eq!(view("sda"), Some((Role::Os, None)));
        assert_eq!(view("sdb"), Some((Role::Temp, None)));
        assert_eq!(view("sdc"), Some((Role::Data, Some(0))));
        assert_eq!(view("sdf"), Some((Role::Data, Some(3))));
        assert_eq!(view("nvme0n1"), Some((Role::Temp, None)));
    }
}

#[test]
fn the_printed_toml_round_trips() {
    for set in [
        &["ds13v2-windows"][..],
        &["tier-scsi-linux"],
        &["nvme-ultra-v2-linux"],
        &["ds13v2-windows/imds.json"],
        &["nd96isr-h100-v5-linux"],
        &["nd96isr-h100-v5-linux/lsblk-jbp.json"],
        &["d1v2-linux"],
        &["d16alds-v6-linux"],
        &["l8s-v3-linux"],
        &["lsblk-variants/util-linux-2.38-all-columns.json"],
        &["lsblk-variants/util-linux-2.32-strings.json"],
        &["aks-d2sv3-linux"],
        &["aks-combined-list"],
        &["aks-combined-list", "aks-d2sv3-linux/disk-azure.txt"],
    ] {
        let d = docs(set);
        let merged = merge_documents(&d, &catalog()).unwrap();
        let direct = Topology::from_documents(&d, &catalog()).unwrap();
        let again = Topology::parse("edited.toml", &merged.toml, &catalog())
            .unwrap_or_else(|e| panic!("{set:?}: {e}\n{}", merged.toml));
        assert_eq!(again.vm, direct.vm, "{set:?}");
        assert_eq!(again.disks, direct.disks, "{set:?}");
        assert_eq!(again.pools, direct.pools, "{set:?}");
        // Printed once more, the merge of the printed file is the same topology.
        let twice = merge_documents(&[("edited.toml".to_owned(), merged.toml.clone())], &catalog())
            .unwrap();
        let again2 = Topology::parse("twice.toml", &twice.toml, &catalog()).unwrap();
        assert_eq!(again2.disks, direct.disks, "{set:?}");
    }
}

#[test]
fn what_advisor_topology_prints() {
    for (name, set) in [
        ("ds13v2_windows", &["ds13v2-windows"][..]),
        ("tier_scsi_linux", &["tier-scsi-linux"]),
        ("nvme_ultra_v2_linux", &["nvme-ultra-v2-linux"]),
        ("imds_only", &["ds13v2-windows/imds.json"]),
        ("nd96isr_h100_v5_linux", &["nd96isr-h100-v5-linux"]),
        ("d16alds_v6_links", &["d16alds-v6-linux"]),
        ("l8s_v3_links_and_lsblk", &["l8s-v3-linux"]),
        ("lsblk_all_columns", &["lsblk-variants/util-linux-2.38-all-columns.json"]),
        ("aks_d2sv3_linux", &["aks-d2sv3-linux"]),
        ("aks_combined_list", &["aks-combined-list"]),
    ] {
        let merged = merge_documents(&docs(set), &catalog()).unwrap();
        insta::assert_snapshot!(format!("merged_{name}"), merged.toml);
    }
}

#[test]
fn bad_documents_are_refused_with_file_and_json_path() {
    insta::glob!("../../../../fixtures/topologies/documents/invalid", "*.{html,json}", |path| {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(path).unwrap();
        match Topology::from_documents(&[(name.clone(), text)], &catalog()) {
            Ok(_) => panic!("{name} was accepted"),
            Err(e) => insta::assert_snapshot!(e.to_string()),
        }
    });
}

#[test]
fn odd_input_never_panics() {
    for text in [
        "",
        "   ",
        "{",
        "[]",
        "[1, 2]",
        "{\"blockdevices\": 3}",
        "{\"compute\": {\"vmSize\": 7}}",
        "{\"compute\": {\"vmSize\": \"Standard_DS13_v2\", \"storageProfile\": {\"dataDisks\": [{\"lun\": \"-1\"}]}}}",
        "{\"Number\": \"x\", \"Location\": \"LUN\"}",
        "{\"DiskNumber\": 1, \"DriveLetter\": \"%\"}",
        "lun2 -> \nnonsense",
        "\u{feff}{\"vmSize\": \"Standard_DS13_v2\", \"osType\": \"Linux\"}",
        "{\"sku\": {\"name\": \"Fancy_LRS\"}, \"diskSizeGB\": 10, \"name\": \"d\"}",
        "{\"blockdevices\": [{\"name\": 7, \"children\": {\"name\": []}}]}",
        "{\"blockdevices\": [{\"name\": \"/dev/\", \"size\": -1}]}",
        "{\"blockdevices\": [{\"name\": \"nvme99999999999n1\", \"hctl\": \"9:9:9:99999999999\"}]}",
        "{\"blockdevices\": [{\"name\": \"a\", \"pkname\": \"a\", \"type\": \"lvm\"}]}",
        "{\"blockdevices\": [{\"name\": \"sda\", \"size\": \"1e400G\", \"rm\": 2}]}",
        "/dev/disk/azure:\nos -> \nlun -> x\n/dev/disk/azure/data/by-lun:\n99999999999 -> ../sda",
        "{\"vmSize\": \"\", \"osType\": \"Linux\"}",
        "{\"vmSize\": \"Standard_\\\"odd,name\", \"osType\": \"Linux\"}",
        "{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": 3}",
        "{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [7, null]}",
        "{\"apiVersion\": \"v1\", \"kind\": \"PersistentVolume\"}",
        "{\"apiVersion\": \"v1\", \"kind\": \"PersistentVolume\", \"metadata\": {\"name\": \"p\"}, \"spec\": {\"capacity\": {\"storage\": \"9e99999Gi\"}}}",
        "{\"apiVersion\": \"v1\", \"kind\": \"PersistentVolume\", \"metadata\": {\"name\": \"p\"}, \"spec\": {\"capacity\": {\"storage\": \"1e400\"}, \"csi\": {\"driver\": \"disk.csi.azure.com\", \"volumeHandle\": \"/\", \"volumeAttributes\": [1]}}}",
        "{\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": {\"name\": \"n\", \"labels\": {\"node.kubernetes.io/instance-type\": {}}}}",
        "{\"apiVersion\": \"v1\", \"kind\": \"VolumeAttachment\", \"metadata\": {\"name\": \"v\"}, \"status\": {\"attached\": \"yes\", \"attachmentMetadata\": {\"LUN\": \"-1\"}}}",
    ] {
        let _ = Topology::from_documents(&[("x".to_owned(), text.to_owned())], &catalog());
        let _ = merge_documents(
            &[("x".to_owned(), text.to_owned()), ("y".to_owned(), text.to_owned())],
            &catalog(),
        );
    }
}

#[test]
fn every_fixture_cut_short_is_an_error_or_a_topology_never_a_panic() {
    let c = catalog();
    for set in [
        "ds13v2-windows",
        "nvme-ultra-v2-linux",
        "tier-scsi-linux",
        "nd96isr-h100-v5-linux",
        "d16alds-v6-linux",
        "l8s-v3-linux",
        "aks-d2sv3-linux",
    ] {
        for (name, text) in docs(&[set]) {
            let mut cut = 0;
            while cut < text.len() {
                if text.is_char_boundary(cut) {
                    let short = vec![(name.clone(), text[..cut].to_owned())];
                    if let Err(e) = Topology::from_documents(&short, &c) {
                        assert!(e.to_string().starts_with(&name), "{name} cut at {cut}: {e}");
                    }
                }
                cut += 3;
            }
        }
    }
}

/// lsblk's JSON generated in its shapes: any subset of columns in any order, sizes in bytes
/// (numbers, or digits quoted as util-linux before 2.33 writes them) or human (`29.9G`,
/// with a decimal comma in some locales), booleans typed or `"0"`/`"1"`, short or `/dev/`
/// names, a tree (with NAME) or a flat list. Whatever the shape, a document with a name
/// column is read, the LUNs come from HCTL alone, the OS and temp disks are found when a
/// mount point or HCTL column says, and loop, rom and local NVMe devices are never taken
/// for Azure's remote disks.
mod lsblk_shapes {
    use super::*;
    use proptest::prelude::*;
    use serde_json::{Map, Value, json};

    const COLUMNS: [&str; 16] = [
        "name",
        "kname",
        "path",
        "maj:min",
        "rm",
        "size",
        "ro",
        "type",
        "mountpoint",
        "mountpoints",
        "hctl",
        "model",
        "pkname",
        "rota",
        "tran",
        "vendor",
    ];

    struct Dev {
        name: &'static str,
        kind: &'static str,
        size: u64,
        hctl: Option<&'static str>,
        model: Option<&'static str>,
        mount: Option<&'static str>,
        rm: bool,
        children: Vec<Dev>,
    }

    fn dev(name: &'static str, kind: &'static str, size: u64) -> Dev {
        Dev {
            name,
            kind,
            size,
            hctl: None,
            model: None,
            mount: None,
            rm: false,
            children: Vec::new(),
        }
    }

    /// A Gen2 SCSI VM: OS and resource disks on host 0, data disks at LUN 0 and 3 on host 1,
    /// a local NVMe disk, a snap loop device and the provisioning DVD.
    fn vm() -> Vec<Dev> {
        let g = 1u64 << 30;
        vec![
            Dev { mount: Some("/snap/core20/2015"), ..dev("loop0", "loop", 66_772_992) },
            Dev {
                hctl: Some("0:0:0:0"),
                model: Some("Virtual Disk"),
                children: vec![
                    Dev { mount: Some("/"), ..dev("sda1", "part", 32_105_299_456) },
                    Dev { mount: Some("/boot/efi"), ..dev("sda15", "part", 111_149_056) },
                ],
                ..dev("sda", "disk", 30 * g)
            },
            Dev {
                hctl: Some("0:0:0:1"),
                model: Some("Virtual Disk"),
                children: vec![Dev { mount: Some("/mnt"), ..dev("sdb1", "part", 75 * g) }],
                ..dev("sdb", "disk", 75 * g)
            },
            Dev {
                hctl: Some("1:0:0:0"),
                model: Some("Virtual Disk"),
                ..dev("sdc", "disk", 1024 * g)
            },
            Dev {
                hctl: Some("1:0:0:3"),
                model: Some("Virtual Disk"),
                ..dev("sdd", "disk", 512 * g)
            },
            Dev {
                model: Some("Microsoft NVMe Direct Disk              "),
                ..dev("nvme0n1", "disk", 1_920_383_410_176)
            },
            Dev {
                hctl: Some("0:0:0:2"),
                model: Some("Virtual DVD-ROM"),
                rm: true,
                ..dev("sr0", "rom", 643_072)
            },
        ]
    }

    /// util-linux's size_to_human_string (one decimal, half up, `.0` dropped).
    fn human(n: u64, comma: bool) -> String {
        let exp = (10..=60).step_by(10).find(|s| n < (1u64 << s)).map_or(60, |s| s - 10);
        let c = b"BKMGTPE"[(exp / 10) as usize] as char;
        let (mut dec, mut frac) =
            if exp == 0 { (n, 0) } else { (n >> exp, n & ((1u64 << exp) - 1)) };
        if frac > 0 {
            frac = (((frac as u128 * 1000) >> exp) as u64 + 50) / 100 * 10;
            if frac == 100 {
                dec += 1;
                frac = 0;
            }
        }
        if frac == 0 {
            return format!("{dec}{c}");
        }
        let mut s = format!("{dec}{}{frac:02}", if comma { ',' } else { '.' });
        if s.ends_with('0') {
            s.pop();
        }
        format!("{s}{c}")
    }

    #[derive(Debug)]
    struct Shape {
        cols: Vec<&'static str>,
        typed: bool,
        bytes: bool,
        paths: bool,
        list: bool,
        comma: bool,
    }

    fn cell(d: &Dev, col: &str, parent: Option<&str>, sh: &Shape) -> Value {
        let s = |x: &str| Value::from(x);
        let full = |n: &str| if sh.paths { format!("/dev/{n}") } else { n.to_owned() };
        let flag = |b: bool| if sh.typed { Value::from(b) } else { s(if b { "1" } else { "0" }) };
        match col {
            "name" => Value::from(full(d.name)),
            "kname" => s(d.name),
            "path" => Value::from(format!("/dev/{}", d.name)),
            "maj:min" => s("8:0"),
            "rm" => flag(d.rm),
            "ro" | "rota" => flag(false),
            "size" if sh.bytes && sh.typed => Value::from(d.size),
            "size" if sh.bytes => Value::from(d.size.to_string()),
            "size" => Value::from(human(d.size, sh.comma)),
            "type" => s(d.kind),
            "mountpoint" => d.mount.map_or(Value::Null, s),
            "mountpoints" => json!([d.mount]),
            "hctl" => d.hctl.map_or(Value::Null, s),
            "model" => d.model.map_or(Value::Null, s),
            "pkname" => parent.map_or(Value::Null, |p| Value::from(full(p))),
            "tran" if d.name.starts_with("nvme") => s("nvme"),
            "vendor" if d.hctl.is_some() => s("Msft    "),
            _ => Value::Null,
        }
    }

    fn rows(devs: &[Dev], parent: Option<&str>, sh: &Shape, out: &mut Vec<Value>) {
        let tree = !sh.list && sh.cols.contains(&"name");
        for d in devs {
            let mut m = Map::new();
            for c in &sh.cols {
                m.insert((*c).to_owned(), cell(d, c, parent, sh));
            }
            if tree && !d.children.is_empty() {
                let mut kids = Vec::new();
                rows(&d.children, Some(d.name), sh, &mut kids);
                m.insert("children".to_owned(), Value::Array(kids));
                out.push(Value::Object(m));
            } else {
                out.push(Value::Object(m));
                if !tree {
                    rows(&d.children, Some(d.name), sh, out);
                }
            }
        }
    }

    fn shape() -> impl Strategy<Value = Shape> {
        (
            proptest::sample::subsequence(COLUMNS.to_vec(), 0..=COLUMNS.len()).prop_shuffle(),
            any::<(bool, bool, bool, bool, bool)>(),
        )
            .prop_map(|(cols, (typed, bytes, paths, list, comma))| Shape {
                cols,
                typed,
                bytes,
                paths,
                list,
                comma,
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]
        #[test]
        fn every_shape_reads_to_the_same_facts(sh in shape()) {
            let mut list = Vec::new();
            rows(&vm(), None, &sh, &mut list);
            let text = serde_json::to_string_pretty(&json!({ "blockdevices": list })).unwrap();
            let doc = vec![("lsblk.json".to_owned(), text.clone())];
            let named = ["name", "kname", "path"].iter().any(|c| sh.cols.contains(c));
            let t = Topology::from_documents(&doc, &catalog());
            if !named {
                let e = t.err().map(|e| e.to_string()).unwrap_or_default();
                prop_assert!(e.contains("a device without `name`, `kname` or `path`"), "{e}\n{text}");
                return Ok(());
            }
            let t = match t {
                Ok(t) => t,
                Err(e) => return Err(TestCaseError::fail(format!("{e}\n{text}"))),
            };
            let has = |c: &str| sh.cols.contains(&c);
            let luns: Vec<(&str, u32)> =
                t.disks.iter().filter_map(|d| d.lun.map(|l| (d.name.as_str(), l))).collect();
            if has("hctl") {
                prop_assert_eq!(luns, vec![("sdc", 0), ("sdd", 3)], "{}", text);
            } else {
                prop_assert!(luns.is_empty(), "{:?}\n{}", luns, text);
            }
            let role = |n: &str| t.disk(n).map(|d| d.role);
            if has("hctl") || has("mountpoint") || has("mountpoints") {
                prop_assert_eq!(role("sda"), Some(Role::Os), "{}", text);
                prop_assert_eq!(role("sdb"), Some(Role::Temp), "{}", text);
            }
            prop_assert_eq!(role("nvme0n1"), Some(Role::Temp), "{}", text);
            for not_a_disk in ["loop0", "sr0", "sda1", "sdb1", "sda15"] {
                prop_assert!(t.disk(not_a_disk).is_none(), "{} in\n{}", not_a_disk, text);
            }
            prop_assert!(t.vm.is_none());
        }
    }

    #[test]
    fn human_sizes_are_util_linuxs() {
        assert_eq!(human(30 << 30, false), "30G");
        assert_eq!(human(32_105_299_456, false), "29.9G");
        assert_eq!(human(66_772_992, true), "63,7M");
        assert_eq!(human(643_072, false), "628K");
        assert_eq!(human(0, false), "0B");
    }
}

/// An AKS node from Kubernetes' own documents: the VM size and the OS disk's type from the
/// Node's labels, the volume's disk from its PersistentVolume and StorageClass, its LUN from
/// the VolumeAttachment, its device from the node's `/dev/disk/azure` listing.
#[test]
fn aks_volumes_join_the_guest_by_the_volume_attachments_lun() {
    let t = topology(&["aks-d2sv3-linux"]);
    let vm = t.vm.as_ref().unwrap();
    assert_eq!(vm.size.name, "Standard_D2s_v3");
    assert_eq!(vm.temp_disk.as_deref(), Some("sdb"));
    let sdc = t.disks.iter().find(|d| d.name == "sdc").unwrap();
    // 1024Gi of Premium_LRS is a P30; the class asks no host caching.
    assert_eq!(sdc.sku.as_deref(), Some("P30"));
    assert_eq!(sdc.lun, Some(0));
    assert_eq!(format!("{:?}", sdc.cache), "None");
    let sda = t.disks.iter().find(|d| d.name == "sda").unwrap();
    assert_eq!(sda.role, Role::Os);
    assert_eq!(t.disks.len(), 2, "{:?}", t.disks);
    let c = codes(&t);
    // The volumes of the other node, the Azure Files volume, the class' perfProfile, and
    // the OS disk whose type the labels give but whose size no document does.
    for want in [
        ("volume-elsewhere", "vm"),
        ("volume-not-disk", "vm"),
        ("perf-profile", "pvc-5e6f2a39-8f0d-4c55-a0e1-7a1b2c3d4e51"),
        ("sku-unknown", "sda"),
    ] {
        assert!(c.contains(&want), "{want:?} not in {c:?}");
    }
    let elsewhere = t.warnings.iter().find(|w| w.code == "volume-elsewhere").unwrap();
    assert!(
        elsewhere.message.contains("pvc-5e6f2a39-8f0d-4c55-a0e1-7a1b2c3d4e52"),
        "{elsewhere:?}"
    );
    assert!(
        !elsewhere.message.contains("pvc-5e6f2a39-8f0d-4c55-a0e1-7a1b2c3d4e51"),
        "{elsewhere:?}"
    );
    // Each fact keeps its document and JSON path.
    let src = |key: &str| t.sources.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str());
    assert_eq!(
        src("vm.size"),
        Some("aks-d2sv3-linux/node.json: $.metadata.labels[\"node.kubernetes.io/instance-type\"]")
    );
}

#[test]
fn an_aks_volume_without_its_lun_is_said_not_joined() {
    let t = topology(&[
        "aks-d2sv3-linux/node.json",
        "aks-d2sv3-linux/pv.json",
        "aks-d2sv3-linux/pvc.json",
        "aks-d2sv3-linux/storageclass.json",
        "aks-d2sv3-linux/disk-azure.txt",
    ]);
    let c = codes(&t);
    assert!(
        c.contains(&("volume-not-joined", "pvc-5e6f2a39-8f0d-4c55-a0e1-7a1b2c3d4e51")),
        "{c:?}"
    );
    // The device is there, but nothing says which disk it is.
    let sdc = t.disks.iter().find(|d| d.name == "sdc").unwrap();
    assert!(sdc.sku.is_none(), "{sdc:?}");
    assert!(c.contains(&("unexplained-disk", "sdc")), "{c:?}");
}

#[test]
fn the_combined_list_of_two_nodes_says_it_cannot_pick_one() {
    let t = topology(&["aks-combined-list"]);
    let c = codes(&t);
    assert!(c.contains(&("aks-node-unknown", "vm")), "{c:?}");
    assert!(t.vm.is_none());
    // The node's host name (IMDS osProfile.computerName) picks it.
    let imds = r#"{"compute": {"vmSize": "Standard_D2s_v3", "osType": "Linux",
        "osProfile": {"computerName": "aks-nodepool1-37663765-vmss000001"}}}"#;
    let mut d = docs(&["aks-combined-list", "aks-d2sv3-linux/disk-azure.txt"]);
    d.push(("imds.json".to_owned(), imds.to_owned()));
    let t = Topology::from_documents(&d, &catalog()).unwrap();
    let c = codes(&t);
    assert!(!c.contains(&("aks-node-unknown", "vm")), "{c:?}");
    // Node 1 holds two volumes; the combined list has no VolumeAttachment, so neither LUN
    // is known.
    let joined: Vec<&str> = t
        .warnings
        .iter()
        .filter(|w| w.code == "volume-not-joined")
        .map(|w| w.subject.as_str())
        .collect();
    assert_eq!(
        joined,
        ["pvc-5e6f2a39-8f0d-4c55-a0e1-7a1b2c3d4e52", "pvc-5e6f2a39-8f0d-4c55-a0e1-7a1b2c3d4e53"]
    );
}

/// Without the VolumeAttachments, the node's IMDS document (which the collector saves) gives
/// the volume's LUN by the disk's name, and picks the node among several by its host name.
#[test]
fn an_aks_volume_takes_its_lun_from_the_nodes_imds_data_disks() {
    let imds = r#"{"compute": {"vmSize": "Standard_D2s_v3", "osType": "Linux",
        "osProfile": {"computerName": "aks-nodepool1-37663765-vmss000000"},
        "storageProfile": {"dataDisks": [{"lun": "0", "name": "pvc-5e6f2a39-8f0d-4c55-a0e1-7a1b2c3d4e51",
            "caching": "None", "diskSizeGB": "1024",
            "managedDisk": {"id": "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/MC_rg-shop_aks-shop_westeurope/providers/Microsoft.Compute/disks/pvc-5e6f2a39-8f0d-4c55-a0e1-7a1b2c3d4e51",
                "storageAccountType": "Premium_LRS"}}]}}}"#;
    let mut d = docs(&["aks-combined-list", "aks-d2sv3-linux/disk-azure.txt"]);
    d.insert(0, ("imds.json".to_owned(), imds.to_owned()));
    let t = Topology::from_documents(&d, &catalog()).unwrap();
    let c = codes(&t);
    assert!(
        !c.iter().any(|(code, _)| *code == "volume-not-joined" || *code == "aks-node-unknown"),
        "{c:?}"
    );
    let sdc = t.disks.iter().find(|d| d.name == "sdc").unwrap();
    assert_eq!((sdc.sku.as_deref(), sdc.lun), (Some("P30"), Some(0)));
    // The volume's facts and the VM's agree: no conflict is said.
    assert!(!c.iter().any(|(code, _)| *code == "source-conflict"), "{c:?}");
}

/// A Premium SSD v2 volume takes its provisioned IOPS and MB/s from its class' parameters
/// (carried in the volume's attributes), with no host caching.
#[test]
fn an_aks_premium_v2_volume_takes_its_provisioned_figures() {
    let imds = r#"{"compute": {"vmSize": "Standard_D2s_v3", "osType": "Linux",
        "osProfile": {"computerName": "aks-nodepool1-37663765-vmss000001"}}}"#;
    let mut d = docs(&["aks-combined-list", "aks-d2sv3-linux/volumeattachment.json"]);
    d.push(("imds.json".to_owned(), imds.to_owned()));
    let t = Topology::from_documents(&d, &catalog()).unwrap();
    // No guest map of that node: the disks are named by their LUNs, and said so.
    let lun1 = t.disks.iter().find(|d| d.lun == Some(1)).unwrap();
    assert_eq!(lun1.kind, Some(DiskKind::PremiumSsdV2));
    assert_eq!((lun1.iops, lun1.mbps), (Some(4000.0), Some(1000.0)));
    assert_eq!(format!("{:?}", lun1.cache), "None");
    let lun0 = t.disks.iter().find(|d| d.lun == Some(0)).unwrap();
    assert_eq!(lun0.sku.as_deref(), Some("P30"));
    assert!(codes(&t).contains(&("unmapped-lun", "lun1")), "{:?}", codes(&t));
}
