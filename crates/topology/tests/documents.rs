//! Topology from Azure's and the guest's own documents (issue 13): detection by content,
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

#[test]
fn the_printed_toml_round_trips() {
    for set in [
        &["ds13v2-windows"][..],
        &["tier-scsi-linux"],
        &["nvme-ultra-v2-linux"],
        &["ds13v2-windows/imds.json"],
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
    ] {
        let merged = merge_documents(&docs(set), &catalog()).unwrap();
        insta::assert_snapshot!(format!("merged_{name}"), merged.toml);
    }
}

#[test]
fn bad_documents_are_refused_with_file_and_json_path() {
    insta::glob!("../../../fixtures/topologies/documents/invalid", "*.{html,json}", |path| {
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
    for set in ["ds13v2-windows", "nvme-ultra-v2-linux", "tier-scsi-linux"] {
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
