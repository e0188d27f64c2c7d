//! `lsblk -J` in the shapes util-linux writes it, read for which device is the OS disk, the
//! temp (resource) disk, a local NVMe disk, or the data disk at which LUN.
//!
//! What varies (util-linux's `misc-utils/lsblk.c`, now `lsblk-cmd/lsblk.c`, and its man page;
//! see fixtures/topologies/documents/PROVENANCE.md):
//! - the columns: any subset in any order (`-o`, `-O`, the default `NAME,MAJ:MIN,RM,SIZE,RO,
//!   TYPE,MOUNTPOINT[S]`); the keys are the column names in lower case (`maj:min`, `log-sec`);
//!   `children[]` only when `NAME` is among them (or `--tree`), a flat list with `-l`;
//! - the values: util-linux 2.27-2.32 quote every value (`"rm": "0"`, `"size": "256G"`, a
//!   number of bytes `"274877906944"` with `-b`); 2.33 and later write numbers and booleans
//!   (`"rm": false`, `"size": 274877906944` with `-b`, `"size": "256G"` without); an empty
//!   cell is `null`; 2.37 adds `mountpoints`, an array holding `null` when unmounted;
//! - the names: short (`sda`) or full (`/dev/sda`, `/dev/mapper/vg-lv`) with `-p`.
//!
//! Azure's devices (azure-vm-utils `doc/disk-identification.md`, `src/identify_disks.c`): a
//! local NVMe disk reports the model "Microsoft NVMe Direct Disk" (v1: Lsv2, Lsv3, the GPU
//! sizes) or "Microsoft NVMe Direct Disk v2" (v6 sizes), each on its own controller; remote
//! disks on NVMe are namespaces of the "MSFT NVMe Accelerator v1.0" controller, namespace 1 the
//! OS disk and namespace N the data disk at LUN N-2. On SCSI, HCTL `host:channel:target:lun`
//! gives a data disk's LUN; the OS disk sits at LUN 0 of the lowest host, the resource (temp)
//! disk beside it (LUN 1 on Gen2 VMs) or at target 1 (Gen1), as Microsoft's "attach a data
//! disk" page shows (`sda 0:0:0:0`, `sdb 1:0:1:0 /mnt`, `sdc 3:0:0:0`).

use std::collections::BTreeMap;

use serde_json::Value;

use crate::error::TopologyError;

use super::azure::Fact;
use super::guest::{GuestDisk, GuestFacts, GuestRole, Volume};
use super::node::{Node, Src};

/// Device name prefixes lsblk lists as `disk` that no Azure disk has: compressed RAM
/// (`zram0`), RAM disks, loop and network block devices.
const NOT_AZURE_DISKS: [&str; 4] = ["zram", "ram", "loop", "nbd"];

/// Device types that are volumes over disks: LVM, md RAID (`raid0`, `raid1`, ..., `md`),
/// dm-crypt, other device-mapper targets, multipath.
fn is_volume(kind: &str) -> bool {
    kind.starts_with("raid")
        || matches!(kind, "lvm" | "md" | "crypt" | "dm" | "mpath" | "dmraid" | "linear")
}

/// A `host:channel:target:lun` address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Hctl {
    host: u32,
    target: u32,
    lun: u32,
}

/// One row of the document (a disk, partition, volume ...), wherever it sits.
struct Entry<'a> {
    node: Node<'a>,
    name_node: Node<'a>,
    /// The name as the captures use it (`sda`, `nvme0n1`, `vg-lv`): without `/dev/`.
    name: String,
    /// `type`, lower case; told by the name when the column is absent.
    kind: String,
    model: Option<(Node<'a>, String)>,
    hctl: Option<(Node<'a>, Hctl)>,
    size: Option<f64>,
    removable: bool,
    mounts: Vec<String>,
    /// The row it belongs to: the row whose `children` hold it, else `pkname`, else (a
    /// partition) the disk its name extends.
    parent: Option<String>,
    top: bool,
}

/// `/dev/sda` -> `sda`; `/dev/mapper/vg-lv` -> `vg-lv`.
fn short(name: &str) -> &str {
    let n = name.trim();
    n.strip_prefix("/dev/mapper/").or_else(|| n.strip_prefix("/dev/")).unwrap_or(n)
}

/// `nvme0n2` -> (0, 2).
pub(crate) fn nvme_namespace(name: &str) -> Option<(u32, u32)> {
    let rest = name.strip_prefix("nvme")?;
    let (c, n) = rest.split_once('n')?;
    Some((c.parse().ok()?, n.parse().ok()?))
}

/// The disk a partition's name extends: `sda1` -> `sda`, `nvme0n1p2` -> `nvme0n1`,
/// `vdb3` -> `vdb`, `mmcblk0p1` -> `mmcblk0`.
fn partition_of(name: &str) -> Option<&str> {
    let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 || digits == name.len() {
        return None;
    }
    let base = &name[..name.len() - digits];
    if let Some(disk) = base.strip_suffix('p')
        && disk.ends_with(|c: char| c.is_ascii_digit())
    {
        return Some(disk);
    }
    let letters = ["sd", "vd", "xvd", "hd"].iter().any(|p| {
        base.strip_prefix(p)
            .is_some_and(|r| !r.is_empty() && r.chars().all(|c| c.is_ascii_lowercase()))
    });
    letters.then_some(base)
}

/// The type of a row without a `type` column, told by its name.
fn kind_by_name(name: &str) -> &'static str {
    if name.starts_with("loop") {
        "loop"
    } else if name.starts_with("sr") || name.starts_with("scd") {
        "rom"
    } else if name.starts_with("md") && name[2..].chars().all(|c| c.is_ascii_digit()) {
        "md"
    } else if name.starts_with("dm-") {
        "dm"
    } else if partition_of(name).is_some() {
        "part"
    } else {
        "disk"
    }
}

/// A size: bytes (`-b`: a number, or its digits quoted by util-linux before 2.33), or
/// lsblk's human form, a number and a binary suffix (`256G`, `3.5T`, `0B`; the decimal
/// separator is the locale's: `3,5T`).
fn size_of(n: &Node<'_>) -> Result<Option<f64>, TopologyError> {
    let bad =
        || n.error(format!("expected a size (bytes, or lsblk's `256G`), found {}", n.v), None);
    let text = match n.v {
        Value::Number(x) => {
            return x.as_f64().filter(|x| x.is_finite() && *x >= 0.0).map(Some).ok_or_else(bad);
        }
        Value::String(s) => s.trim().replace(',', "."),
        _ => return Err(bad()),
    };
    if text.is_empty() {
        return Ok(None);
    }
    let (num, suffix) = match text.find(|c: char| c.is_ascii_alphabetic()) {
        Some(i) => (&text[..i], &text[i..]),
        None => (text.as_str(), ""),
    };
    let power =
        match suffix.trim().to_ascii_uppercase().trim_end_matches("IB").trim_end_matches('B') {
            "" => 0,
            "K" => 1,
            "M" => 2,
            "G" => 3,
            "T" => 4,
            "P" => 5,
            "E" => 6,
            _ => return Err(bad()),
        };
    match num.trim().parse::<f64>().map(|x| x * 1024f64.powi(power)) {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(Some(x)),
        _ => Err(bad()),
    }
}

/// A boolean column (`rm`, `ro`, `rota`, `hotplug`): `true`/`false` (util-linux 2.33+),
/// `"1"`/`"0"` (earlier), or `1`/`0` and `"true"`/`"false"` from other tools' rewrites.
fn flag_of(n: &Node<'_>) -> Result<bool, TopologyError> {
    let v = match n.v {
        Value::Bool(b) => Some(*b),
        Value::Number(x) => match x.as_u64() {
            Some(0) => Some(false),
            Some(1) => Some(true),
            _ => None,
        },
        Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "1" | "true" => Some(true),
            "0" | "false" | "" => Some(false),
            _ => None,
        },
        _ => None,
    };
    v.ok_or_else(|| n.error(format!("expected true or false (or 1 or 0), found {}", n.v), None))
}

fn hctl_of(n: &Node<'_>) -> Result<Option<Hctl>, TopologyError> {
    let text = n.text()?;
    if text.is_empty() {
        return Ok(None);
    }
    let parts: Vec<Option<u32>> = text.split(':').map(|p| p.trim().parse().ok()).collect();
    match parts[..] {
        [Some(host), Some(_), Some(target), Some(lun)] => Ok(Some(Hctl { host, target, lun })),
        _ => Err(n.error(format!("HCTL \"{text}\" is not host:channel:target:lun"), None)),
    }
}

/// The row's own mount points: `mountpoint` (a string or null) and `mountpoints` (an array
/// of strings and nulls, util-linux 2.37+), either or both.
fn own_mounts(n: &Node<'_>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for key in ["mountpoint", "mountpoints"] {
        if let Some(m) = n.get(key) {
            for item in m.items() {
                if let Some(s) = item.v.as_str().map(str::trim).filter(|s| !s.is_empty())
                    && !out.iter().any(|o| o == s)
                {
                    out.push(s.to_owned());
                }
            }
        }
    }
    out
}

/// Reads a row and, under it, its `children`.
fn collect<'a>(
    n: Node<'a>,
    parent: Option<String>,
    top: bool,
    depth: usize,
    out: &mut Vec<Entry<'a>>,
) -> Result<(), TopologyError> {
    if !n.v.is_object() {
        return Err(n.error("expected a device object".to_owned(), None));
    }
    // Deeper than any real stack of volumes: a hostile document, not a machine.
    if depth > 32 {
        return Err(n.error("devices nested more than 32 deep".to_owned(), None));
    }
    let name_node = n.get_any(&["name", "kname", "path"]).ok_or_else(|| {
        n.error(
            "a device without `name`, `kname` or `path`".to_owned(),
            Some(
                "run lsblk with the NAME column: lsblk -J -o NAME,HCTL,SIZE,TYPE,MODEL,MOUNTPOINT",
            ),
        )
    })?;
    let name = short(&name_node.text()?).to_owned();
    if name.is_empty() {
        return Err(name_node.error("the device name is empty".to_owned(), None));
    }
    let kind = match n.get("type") {
        Some(t) => t.text()?.to_ascii_lowercase(),
        None => kind_by_name(&name).to_owned(),
    };
    let model = match n.get("model") {
        Some(m) => Some(m.text()?).filter(|t| !t.is_empty()).map(|t| (m, t)),
        None => None,
    };
    let hctl = match n.get("hctl") {
        Some(h) => hctl_of(&h)?.map(|x| (h, x)),
        None => None,
    };
    let size = match n.get("size") {
        Some(s) => size_of(&s)?,
        None => None,
    };
    let removable = match n.get("rm") {
        Some(r) => flag_of(&r)?,
        None => false,
    };
    let pkname = match n.get("pkname") {
        Some(p) => Some(short(&p.text()?).to_owned()).filter(|p| !p.is_empty()),
        None => None,
    };
    let parent = parent
        .or(pkname)
        .or_else(|| (kind == "part").then(|| partition_of(&name).map(str::to_owned)).flatten());
    let mounts = own_mounts(&n);
    let children = n.get("children");
    out.push(Entry {
        node: n,
        name_node,
        name: name.clone(),
        kind,
        model,
        hctl,
        size,
        removable,
        mounts,
        parent,
        top,
    });
    if let Some(children) = children {
        for c in children.items() {
            collect(c, Some(name.clone()), false, depth + 1, out)?;
        }
    }
    Ok(())
}

/// What one disk is, and why.
struct Verdict {
    role: Option<(GuestRole, At)>,
    lun: Option<(u32, At)>,
    certain: bool,
}

/// Where a verdict's fact came from: the disk's row, its name, model or HCTL.
#[derive(Clone, Copy, PartialEq, Eq)]
enum At {
    Row,
    Name,
    Model,
    Hctl,
}

fn is_root(m: &str) -> bool {
    matches!(m, "/" | "/boot" | "/boot/efi")
}

fn is_resource(m: &str) -> bool {
    matches!(m, "/mnt" | "/mnt/resource")
}

fn is_local_model(m: &str) -> bool {
    m.trim().to_ascii_lowercase().starts_with("microsoft nvme direct disk")
}

fn is_remote_nvme_model(m: &str) -> bool {
    m.trim().to_ascii_lowercase().starts_with("msft nvme accelerator")
}

pub(crate) fn lsblk(root: &Node<'_>) -> Result<GuestFacts, TopologyError> {
    let mut facts = GuestFacts::default();
    let Some(devs) = root.get("blockdevices") else {
        return Ok(facts);
    };
    let mut entries = Vec::new();
    for n in devs.items() {
        collect(n, None, true, 0, &mut entries)?;
    }
    // Children by parent name, and each disk's rows below it (partitions, volumes, the
    // volumes' own partitions ...).
    let mut below: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, e) in entries.iter().enumerate() {
        if let Some(p) = &e.parent {
            below.entry(p.as_str()).or_default().push(i);
        }
    }
    let descendants = |disk: &str| -> Vec<usize> {
        let mut seen = vec![false; entries.len()];
        let mut out: Vec<usize> = Vec::new();
        let mut names: Vec<&str> = vec![disk];
        while let Some(n) = names.pop() {
            for &i in below.get(n).map_or(&[][..], Vec::as_slice) {
                if !seen[i] {
                    seen[i] = true;
                    out.push(i);
                    names.push(entries[i].name.as_str());
                }
            }
        }
        out
    };
    // The disks: top rows of type disk, once each (lsblk before 2.34 repeats rows in `-l`),
    // without memory, loop and network devices and removable media.
    let mut disks: Vec<usize> = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let azure = e.kind == "disk"
            && !e.removable
            && !NOT_AZURE_DISKS.iter().any(|p| e.name.starts_with(p));
        if e.top && azure && !disks.iter().any(|&d| entries[d].name == e.name) {
            disks.push(i);
        }
    }
    let below_of: Vec<Vec<usize>> = disks.iter().map(|&d| descendants(&entries[d].name)).collect();
    let mounts_of = |k: usize| -> Vec<&str> {
        let d = disks[k];
        let mut m: Vec<&str> = entries[d].mounts.iter().map(String::as_str).collect();
        for &i in &below_of[k] {
            m.extend(entries[i].mounts.iter().map(String::as_str));
        }
        m
    };
    let model_of = |k: usize| entries[disks[k]].model.as_ref().map(|(_, m)| m.as_str());
    let nvme_of = |k: usize| nvme_namespace(&entries[disks[k]].name);

    // The OS disk: where the root file system is mounted (through a partition or LVM) ...
    let mut os: Option<(usize, At)> =
        (0..disks.len()).find(|&k| mounts_of(k).iter().any(|m| is_root(m))).map(|k| (k, At::Row));
    // ... or namespace 1 of the remote NVMe controller, which its model names ...
    let remote_by_model = (0..disks.len())
        .find(|&k| model_of(k).is_some_and(is_remote_nvme_model))
        .and_then(|k| nvme_of(k).map(|(c, _)| c));
    // ... or, on SCSI, LUN 0 of the lowest host.
    if os.is_none() && remote_by_model.is_none() {
        let lowest =
            disks.iter().filter_map(|&d| entries[d].hctl.as_ref().map(|(_, h)| h.host)).min();
        os = (0..disks.len())
            .find(|&k| {
                entries[disks[k]]
                    .hctl
                    .as_ref()
                    .is_some_and(|(_, h)| Some(h.host) == lowest && h.target == 0 && h.lun == 0)
            })
            .map(|k| (k, At::Hctl));
    }
    let os_nvme = os.and_then(|(k, _)| nvme_of(k));
    // The remote NVMe controller: the model's, the OS disk's, the one with several
    // namespaces (local disks have a controller each, namespace 1), or, with no other sign,
    // the first, unless several other disks say the remote disks are on SCSI (a VM with
    // remote NVMe disks has one SCSI disk at most, its temp disk).
    let nvme_ctrls: Vec<(u32, u32)> = (0..disks.len()).filter_map(nvme_of).collect();
    let others = disks.len() - nvme_ctrls.len();
    let remote_ctrl = remote_by_model.or(os_nvme.map(|(c, _)| c)).or_else(|| {
        if os.is_some() {
            return None;
        }
        nvme_ctrls
            .iter()
            .find(|(_, n)| *n >= 2)
            .map(|(c, _)| *c)
            .or_else(|| (others <= 1 && nvme_ctrls.iter().any(|(c, _)| *c == 0)).then_some(0))
    });
    let os_host = os.and_then(|(k, _)| entries[disks[k]].hctl.as_ref().map(|(_, h)| h.host));
    let remote_on_nvme = remote_ctrl.is_some();

    for (k, &d) in disks.iter().enumerate() {
        let e = &entries[d];
        let mounts = mounts_of(k);
        let mut v = Verdict { role: None, lun: None, certain: false };
        let model = model_of(k);
        if let Some((ok, at)) = os
            && ok == k
        {
            v.role = Some((GuestRole::Os, at));
            v.certain = matches!(at, At::Row);
        } else if model.is_some_and(is_local_model) {
            v.role = Some((GuestRole::Local, At::Model));
            v.certain = true;
        } else if let Some((c, n)) = nvme_of(k)
            && remote_ctrl == Some(c)
        {
            let at = if model.is_some_and(is_remote_nvme_model) { At::Model } else { At::Name };
            v.certain = model.is_some_and(is_remote_nvme_model);
            if n == 1 {
                v.role = Some((GuestRole::Os, at));
            } else if mounts.iter().any(|m| is_resource(m)) {
                v.role = Some((GuestRole::Temp, At::Row));
            } else if let Some(lun) = n.checked_sub(2) {
                v.lun = Some((lun, At::Name));
                v.role = Some((GuestRole::Data, At::Name));
            }
        } else if mounts.iter().any(|m| is_resource(m)) {
            v.role = Some((GuestRole::Temp, At::Row));
            v.certain = true;
        } else if nvme_of(k).is_some() {
            // Not the remote controller: a local disk (each has its own controller).
            v.role = Some((GuestRole::Local, At::Name));
        } else if let Some((_, h)) = e.hctl.as_ref() {
            if remote_on_nvme || os_host == Some(h.host) || h.target != 0 {
                // The resource disk: the only SCSI disk beside NVMe remote disks, or the
                // one on the OS disk's controller (Gen2) or at target 1 (Gen1).
                v.role = Some((GuestRole::Temp, At::Hctl));
            } else {
                v.lun = Some((h.lun, At::Hctl));
                v.role = Some((GuestRole::Data, At::Hctl));
                v.certain = true;
            }
        }
        let src = |at: At| -> Src {
            match at {
                At::Name => e.name_node.src(),
                At::Model => e.model.as_ref().map_or_else(|| e.node.src(), |(n, _)| n.src()),
                At::Hctl => e.hctl.as_ref().map_or_else(|| e.node.src(), |(n, _)| n.src()),
                At::Row => e.node.src(),
            }
        };
        facts.disks.push(GuestDisk {
            device: Fact { v: e.name.clone(), src: e.name_node.src() },
            number: None,
            lun: v.lun.map(|(l, at)| Fact { v: l, src: src(at) }),
            role: v.role.map(|(r, at)| Fact { v: r, src: src(at) }),
            size_bytes: e.size,
            certain: v.certain,
        });
    }
    // Volumes over several disks (LVM, md RAID): which disks each spans.
    let mut volumes: Vec<Volume> = Vec::new();
    for (k, &d) in disks.iter().enumerate() {
        for &i in &below_of[k] {
            let e = &entries[i];
            if !is_volume(&e.kind) {
                continue;
            }
            let disk = entries[d].name.clone();
            match volumes.iter_mut().find(|v| v.name == e.name) {
                Some(v) if !v.members.contains(&disk) => v.members.push(disk),
                Some(_) => {}
                None => volumes.push(Volume {
                    name: e.name.clone(),
                    kind: e.kind.clone(),
                    members: vec![disk],
                    src: e.node.src(),
                }),
            }
        }
    }
    facts.volumes = volumes;
    Ok(facts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> GuestFacts {
        let v: Value = serde_json::from_str(text).unwrap_or_default();
        match lsblk(&Node::root("lsblk.json", text, &v)) {
            Ok(f) => f,
            Err(e) => panic!("{e}"),
        }
    }

    fn summary(f: &GuestFacts) -> Vec<(String, Option<GuestRole>, Option<u32>)> {
        f.disks
            .iter()
            .map(|d| {
                (d.device.v.clone(), d.role.as_ref().map(|r| r.v), d.lun.as_ref().map(|l| l.v))
            })
            .collect()
    }

    /// What the collector wrote on a Debian VM off Azure: a zram swap device beside the
    /// virtio OS disk. zram is memory, not a disk the topology could describe.
    #[test]
    fn memory_and_loop_devices_are_not_disks() {
        let f = read(
            r#"{"blockdevices": [
 {"name": "zram0", "hctl": null, "size": "0B", "type": "disk", "mountpoint": null},
 {"name": "loop3", "hctl": null, "size": "64M", "type": "disk", "mountpoint": null},
 {"name": "/dev/loop4", "size": 67108864, "type": "loop", "mountpoints": ["/snap/core/1"]},
 {"name": "sr0", "size": "1024M", "rm": true, "type": "rom", "mountpoint": null},
 {"name": "vda", "hctl": null, "size": "256G", "type": "disk", "mountpoint": "/"},
 {"name": "sdc", "hctl": "1:0:0:0", "size": "1T", "type": "disk", "mountpoint": null}
]}"#,
        );
        assert_eq!(
            summary(&f),
            [
                ("vda".to_owned(), Some(GuestRole::Os), None),
                ("sdc".to_owned(), Some(GuestRole::Data), Some(0))
            ]
        );
    }

    #[test]
    fn sizes_names_and_flags_in_every_spelling() {
        let n = |v: Value| size_of(&Node::root("x", "", &v)).ok().flatten();
        assert_eq!(n(Value::from(274_877_906_944u64)), Some(274_877_906_944.0));
        assert_eq!(n(Value::from("274877906944")), Some(274_877_906_944.0));
        assert_eq!(n(Value::from("256G")), Some(256.0 * 1024f64.powi(3)));
        assert_eq!(n(Value::from("3.5T")), Some(3.5 * 1024f64.powi(4)));
        assert_eq!(n(Value::from("3,5T")), Some(3.5 * 1024f64.powi(4)));
        assert_eq!(n(Value::from("0B")), Some(0.0));
        assert_eq!(n(Value::from("")), None);
        assert!(size_of(&Node::root("x", "", &Value::from("lots"))).is_err());
        assert!(size_of(&Node::root("x", "", &Value::from("12Q"))).is_err());
        assert!(size_of(&Node::root("x", "", &Value::from("1e300E"))).is_err());
        let f = |v: Value| flag_of(&Node::root("x", "", &v)).ok();
        assert_eq!(
            [f(true.into()), f("1".into()), f(1.into()), f("0".into()), f(false.into())],
            [Some(true), Some(true), Some(true), Some(false), Some(false)]
        );
        assert_eq!(f("maybe".into()), None);
        assert_eq!(short("/dev/mapper/datavg-datalv"), "datavg-datalv");
        assert_eq!(short("/dev/nvme0n1"), "nvme0n1");
        assert_eq!(partition_of("nvme0n1p15"), Some("nvme0n1"));
        assert_eq!(partition_of("sda14"), Some("sda"));
        assert_eq!(partition_of("nvme0n1"), None);
        assert_eq!(partition_of("md127"), None);
        assert_eq!(kind_by_name("dm-0"), "dm");
        assert_eq!(nvme_namespace("nvme0n3"), Some((0, 3)));
        assert_eq!(nvme_namespace("sdc"), None);
    }

    /// Microsoft's page on attaching a data disk: a Gen1 VM (`sdb` at target 1) and the
    /// same without any mount point column: the OS disk is LUN 0 of the lowest host.
    #[test]
    fn scsi_disks_by_hctl_with_and_without_mount_points() {
        let with = r#"{"blockdevices": [
 {"name": "sda", "hctl": "0:0:0:0", "size": "30G", "children": [{"name": "sda1", "mountpoint": "/"}]},
 {"name": "sdb", "hctl": "1:0:1:0", "size": "14G", "children": [{"name": "sdb1", "mountpoint": "/mnt"}]},
 {"name": "sdc", "hctl": "3:0:0:0", "size": "4G"},
 {"name": "sdd", "hctl": "3:0:0:1", "size": "16G"}
]}"#;
        let want = [
            ("sda".to_owned(), Some(GuestRole::Os), None),
            ("sdb".to_owned(), Some(GuestRole::Temp), None),
            ("sdc".to_owned(), Some(GuestRole::Data), Some(0)),
            ("sdd".to_owned(), Some(GuestRole::Data), Some(1)),
        ];
        assert_eq!(summary(&read(with)), want);
        let without = r#"{"blockdevices": [
 {"name": "sda", "hctl": "0:0:0:0", "size": "30G"},
 {"name": "sdb", "hctl": "1:0:1:0", "size": "14G"},
 {"name": "sdc", "hctl": "3:0:0:0", "size": "4G"},
 {"name": "sdd", "hctl": "3:0:0:1", "size": "16G"}
]}"#;
        assert_eq!(summary(&read(without)), want);
        // Gen2: the resource disk is LUN 1 of the OS disk's controller.
        let gen2 = r#"{"blockdevices": [
 {"name": "sda", "hctl": "0:0:0:0"}, {"name": "sdb", "hctl": "0:0:0:1"}, {"name": "sdc", "hctl": "1:0:0:0"}
]}"#;
        assert_eq!(
            summary(&read(gen2)),
            [
                ("sda".to_owned(), Some(GuestRole::Os), None),
                ("sdb".to_owned(), Some(GuestRole::Temp), None),
                ("sdc".to_owned(), Some(GuestRole::Data), Some(0)),
            ]
        );
    }

    /// An L-series VM: a SCSI OS disk, and `nvme0n1` is a local disk, not the OS disk of
    /// an NVMe VM, whether the model says so or the SCSI OS disk does.
    #[test]
    fn local_nvme_beside_a_scsi_os_disk() {
        let with_model = r#"{"blockdevices": [
 {"name": "sda", "hctl": "0:0:0:0", "model": "Virtual Disk", "children": [{"name": "sda1", "mountpoints": ["/"]}]},
 {"name": "nvme0n1", "hctl": null, "model": "Microsoft NVMe Direct Disk              "},
 {"name": "nvme1n1", "hctl": null, "model": "Microsoft NVMe Direct Disk              "}
]}"#;
        let want = [
            ("sda".to_owned(), Some(GuestRole::Os), None),
            ("nvme0n1".to_owned(), Some(GuestRole::Local), None),
            ("nvme1n1".to_owned(), Some(GuestRole::Local), None),
        ];
        assert_eq!(summary(&read(with_model)), want);
        let no_model = r#"{"blockdevices": [
 {"name": "sda", "hctl": "0:0:0:0", "children": [{"name": "sda1", "mountpoints": ["/"]}]},
 {"name": "nvme0n1"}, {"name": "nvme1n1"}
]}"#;
        assert_eq!(summary(&read(no_model)), want);
        // A v6 size: remote disks on the accelerator, the local disk by its model.
        let v6 = r#"{"blockdevices": [
 {"name": "nvme0n1", "model": "MSFT NVMe Accelerator v1.0"},
 {"name": "nvme0n2", "model": "MSFT NVMe Accelerator v1.0"},
 {"name": "nvme1n1", "model": "Microsoft NVMe Direct Disk v2"}
]}"#;
        assert_eq!(
            summary(&read(v6)),
            [
                ("nvme0n1".to_owned(), Some(GuestRole::Os), None),
                ("nvme0n2".to_owned(), Some(GuestRole::Data), Some(0)),
                ("nvme1n1".to_owned(), Some(GuestRole::Local), None),
            ]
        );
    }

    /// Namespace 0 is no NVMe namespace: no LUN is made of it.
    #[test]
    fn an_impossible_namespace_is_no_lun() {
        let f = read(r#"{"blockdevices": [{"name": "nvme0n0"}, {"name": "nvme0n2"}]}"#);
        assert_eq!(
            summary(&f),
            [
                ("nvme0n0".to_owned(), None, None),
                ("nvme0n2".to_owned(), Some(GuestRole::Data), Some(0))
            ]
        );
    }

    /// `lsblk -J -l -o NAME,PKNAME,TYPE,MOUNTPOINT`: a flat list whose partitions and
    /// volumes name their parent.
    #[test]
    fn a_flat_list_hangs_rows_off_their_parents() {
        let f = read(
            r#"{"blockdevices": [
 {"name": "sda", "pkname": null, "type": "disk", "mountpoint": null},
 {"name": "sda1", "pkname": "sda", "type": "part", "mountpoint": null},
 {"name": "rootvg-rootlv", "pkname": "sda1", "type": "lvm", "mountpoint": "/"},
 {"name": "sdb", "pkname": null, "type": "disk", "mountpoint": null},
 {"name": "sdb1", "pkname": "sdb", "type": "part", "mountpoint": "/mnt"},
 {"name": "sdc", "pkname": null, "type": "disk", "mountpoint": null},
 {"name": "md0", "pkname": "sdc", "type": "raid0", "mountpoint": "/data"},
 {"name": "sdd", "pkname": null, "type": "disk", "mountpoint": null},
 {"name": "md0", "pkname": "sdd", "type": "raid0", "mountpoint": "/data"}
]}"#,
        );
        let roles: Vec<Option<GuestRole>> =
            f.disks.iter().map(|d| d.role.as_ref().map(|r| r.v)).collect();
        assert_eq!(roles, [Some(GuestRole::Os), Some(GuestRole::Temp), None, None]);
        let vols: Vec<(&str, &str, Vec<&str>)> = f
            .volumes
            .iter()
            .map(|v| {
                (v.name.as_str(), v.kind.as_str(), v.members.iter().map(String::as_str).collect())
            })
            .collect();
        assert_eq!(
            vols,
            [("rootvg-rootlv", "lvm", vec!["sda"]), ("md0", "raid0", vec!["sdc", "sdd"])]
        );
    }

    #[test]
    fn bad_values_are_errors_at_their_path() {
        let bad = |text: &str| {
            let v: Value = serde_json::from_str(text).unwrap_or_default();
            lsblk(&Node::root("lsblk.json", text, &v))
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        let e = bad(r#"{"blockdevices": [{"name": "sda", "size": "big"}]}"#);
        assert!(e.contains("at $.blockdevices[0].size: expected a size"), "{e}");
        let e = bad(r#"{"blockdevices": [{"name": "sda", "rm": "perhaps"}]}"#);
        assert!(e.contains("at $.blockdevices[0].rm: expected true or false"), "{e}");
        let e = bad(r#"{"blockdevices": [{"size": "1G", "type": "disk"}]}"#);
        assert!(e.contains("a device without `name`, `kname` or `path`"), "{e}");
        let e = bad(r#"{"blockdevices": [{"name": "sda", "hctl": "1:0"}]}"#);
        assert!(e.contains("is not host:channel:target:lun"), "{e}");
    }
}
