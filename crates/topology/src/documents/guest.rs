//! What the guest says about its disks: which device or disk number is which LUN, which is
//! the OS disk and the temp disk, and (Windows) the drive letters. Shapes: see
//! fixtures/topology/PROVENANCE.md.

use crate::error::{ErrorKind, Snippet, TopologyError};

use super::azure::Fact;
use super::node::{Node, Src};

/// What a guest disk is, when the document says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GuestRole {
    Os,
    Temp,
    Data,
}

/// One disk as the guest sees it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct GuestDisk {
    /// The name the captures use: `sdc`, `nvme0n2` (Linux); `disk2` (Windows, before drive
    /// letters are known).
    pub(crate) device: Fact<String>,
    /// Windows disk number (PerfMon's `PhysicalDisk(N X:)`).
    pub(crate) number: Option<u32>,
    pub(crate) lun: Option<Fact<u32>>,
    pub(crate) role: Option<Fact<GuestRole>>,
    pub(crate) size_bytes: Option<f64>,
}

/// A drive letter on a Windows disk (Get-Partition).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Letter {
    pub(crate) disk_number: u32,
    pub(crate) letter: Fact<String>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct GuestFacts {
    pub(crate) windows: bool,
    pub(crate) disks: Vec<GuestDisk>,
    pub(crate) letters: Vec<Letter>,
    /// Get-Volume's letters: without disk numbers, they cannot be placed.
    pub(crate) unplaced_letters: Vec<Fact<String>>,
}

fn fact<T>(n: &Node<'_>, v: T) -> Fact<T> {
    Fact { v, src: n.src() }
}

/// Device name prefixes lsblk lists as `disk` that no Azure disk has: compressed RAM
/// (`zram0`), RAM disks, loop and network block devices.
const NOT_AZURE_DISKS: [&str; 4] = ["zram", "ram", "loop", "nbd"];

/// `lsblk -J -o NAME,HCTL,SIZE,TYPE,MOUNTPOINT`: HCTL `1:0:0:2` is LUN 2; NVMe namespaces
/// of the remote controller are nsid 1 = OS, nsid N = LUN N-2 (azure-vm-utils).
pub(crate) fn lsblk(root: &Node<'_>) -> Result<GuestFacts, TopologyError> {
    let mut facts = GuestFacts::default();
    let Some(devs) = root.get("blockdevices") else {
        return Ok(facts);
    };
    for n in devs.items() {
        let name_node =
            n.get("name").ok_or_else(|| n.error("a device without `name`".to_owned(), None))?;
        let name = name_node.text()?;
        let kind = match n.get("type") {
            Some(t) => t.text()?,
            None => "disk".to_owned(),
        };
        // Memory, loop and network block devices are never an Azure disk.
        if kind != "disk" || NOT_AZURE_DISKS.iter().any(|p| name.starts_with(p)) {
            continue;
        }
        let mounts = mountpoints(&n);
        let mut role = None;
        if mounts.iter().any(|m| m == "/" || m == "/boot" || m == "/boot/efi") {
            role = Some(fact(&n, GuestRole::Os));
        } else if mounts.iter().any(|m| m == "/mnt" || m == "/mnt/resource") {
            role = Some(fact(&n, GuestRole::Temp));
        }
        let mut lun = None;
        if let Some(h) = n.get("hctl") {
            let hctl = h.text()?;
            let parts: Vec<&str> = hctl.split(':').collect();
            match (parts.len(), parts.last().and_then(|l| l.parse::<u32>().ok())) {
                (4, Some(l)) => {
                    if role.is_none() {
                        lun = Some(fact(&h, l));
                    }
                }
                _ if hctl.is_empty() => {}
                _ => {
                    return Err(
                        h.error(format!("HCTL \"{hctl}\" is not host:channel:target:lun"), None)
                    );
                }
            }
        } else if let Some((ctrl, nsid)) = nvme_namespace(&name) {
            // Remote disks are namespaces of the first controller; a local NVMe temp
            // disk is another controller.
            if ctrl == 0 && nsid == 1 {
                role = role.or_else(|| Some(fact(&name_node, GuestRole::Os)));
            } else if ctrl == 0 && nsid >= 2 && role.is_none() {
                lun = Some(fact(&name_node, nsid - 2));
            } else if role.is_none() {
                role = Some(fact(&name_node, GuestRole::Temp));
            }
        }
        if lun.is_some() && role.is_none() {
            role = Some(fact(&n, GuestRole::Data));
        }
        let size_bytes = n.get("size").and_then(|s| s.v.as_f64());
        facts.disks.push(GuestDisk {
            device: fact(&name_node, name),
            number: None,
            lun,
            role,
            size_bytes,
        });
    }
    Ok(facts)
}

/// Mount points of a device and its children (`mountpoint`, or lsblk 2.37's `mountpoints`).
fn mountpoints(n: &Node<'_>) -> Vec<String> {
    let mut out = Vec::new();
    for key in ["mountpoint", "mountpoints"] {
        if let Some(m) = n.get(key) {
            for item in m.items() {
                if let Some(s) = item.v.as_str() {
                    out.push(s.to_owned());
                }
            }
        }
    }
    if let Some(children) = n.get("children") {
        for c in children.items() {
            out.extend(mountpoints(&c));
        }
    }
    out
}

/// `nvme0n2` -> (0, 2).
fn nvme_namespace(name: &str) -> Option<(u32, u32)> {
    let rest = name.strip_prefix("nvme")?;
    let (c, n) = rest.split_once('n')?;
    Some((c.parse().ok()?, n.parse().ok()?))
}

/// `ls -l /dev/disk/azure/scsi1/`: lines ending `lun2 -> ../../../sdd`.
pub(crate) fn is_scsi_listing(text: &str) -> bool {
    text.lines().any(|l| link(l).is_some())
}

fn link(line: &str) -> Option<(u32, &str)> {
    let (left, target) = line.split_once(" -> ")?;
    let lun = left.split_whitespace().last()?.strip_prefix("lun")?.parse().ok()?;
    let dev = target.trim().rsplit('/').next()?;
    (!dev.is_empty()).then_some((lun, dev))
}

pub(crate) fn scsi_listing(file: &str, text: &str) -> Result<GuestFacts, TopologyError> {
    let mut facts = GuestFacts::default();
    for (i, line) in text.lines().enumerate() {
        let l = line.trim();
        if l.is_empty() || l.starts_with("total ") {
            continue;
        }
        match link(l) {
            // lunN-partM links name partitions of the same disk.
            Some((lun, dev))
                if !dev.chars().last().is_some_and(|c| c.is_ascii_digit())
                    || dev.starts_with("nvme") =>
            {
                let src = Src { file: file.to_owned(), path: format!("line {}", i + 1) };
                facts.disks.push(GuestDisk {
                    device: Fact { v: dev.to_owned(), src: src.clone() },
                    number: None,
                    lun: Some(Fact { v: lun, src: src.clone() }),
                    role: Some(Fact { v: GuestRole::Data, src }),
                    size_bytes: None,
                });
            }
            Some(_) => {}
            None if l.contains("-part") || l.starts_with('/') || l.ends_with(':') => {}
            None => {
                let err = TopologyError::new(
                    file,
                    ErrorKind::Syntax {
                        message: "expected a line of `ls -l /dev/disk/azure/scsi1/` (`lun2 -> ../../../sdd`)".to_owned(),
                        help: None,
                    },
                );
                return Err(err.at(Snippet::at_line_col(text, i + 1, 1)));
            }
        }
    }
    Ok(facts)
}

/// `Get-Disk | ConvertTo-Json` (Number, Location, IsBoot) or `Get-PhysicalDisk`
/// (DeviceId, PhysicalLocation). `Location` ends in `LUN 2`.
pub(crate) fn windows_disks(root: &Node<'_>) -> Result<GuestFacts, TopologyError> {
    let mut facts = GuestFacts { windows: true, ..GuestFacts::default() };
    let mut adapters = Vec::new();
    for n in root.items() {
        let num_node = n
            .get_any(&["Number", "DiskNumber", "DeviceId"])
            .ok_or_else(|| n.error("a disk without `Number` or `DeviceId`".to_owned(), None))?;
        let Some(number) = num_node.whole()? else {
            return Err(num_node.error("the disk number is empty".to_owned(), None));
        };
        let mut lun = None;
        let mut adapter = None;
        if let Some(loc) = n.get_any(&["Location", "PhysicalLocation"]) {
            let text = loc.text()?;
            let (a, l) = parse_location(&text);
            adapter = a;
            lun = l.map(|l| fact(&loc, l));
        }
        let boot = match n.get("IsBoot") {
            Some(b) => b.flag()?.unwrap_or(false),
            None => false,
        };
        let system = match n.get("IsSystem") {
            Some(b) => b.flag()?.unwrap_or(false),
            None => false,
        };
        let role =
            (boot || system).then(|| fact(n.get("IsBoot").as_ref().unwrap_or(&n), GuestRole::Os));
        adapters.push(adapter);
        facts.disks.push(GuestDisk {
            device: fact(&num_node, format!("disk{number}")),
            number: Some(number),
            lun,
            role,
            size_bytes: n.get("Size").and_then(|s| s.v.as_f64()),
        });
    }
    // Get-PhysicalDisk has no IsBoot: disk 0 is the OS disk, Windows' documented default.
    if !facts.disks.iter().any(|d| d.role.is_some())
        && let Some(d) = facts.disks.iter_mut().find(|d| d.number == Some(0))
    {
        d.role = Some(Fact { v: GuestRole::Os, src: d.device.src.clone() });
    }
    // Data disks sit on their own SCSI adapter (the OS and temp disks share the first);
    // a disk on the OS disk's adapter that is not the OS disk is the temp disk.
    let os_adapter = facts
        .disks
        .iter()
        .zip(&adapters)
        .find(|(d, _)| d.role.as_ref().is_some_and(|r| r.v == GuestRole::Os))
        .and_then(|(_, a)| *a);
    for (d, a) in facts.disks.iter_mut().zip(&adapters) {
        if d.role.is_some() {
            continue;
        }
        match (os_adapter, a) {
            (Some(os), Some(a)) if os == *a => {
                let src = d.lun.as_ref().map_or_else(|| d.device.src.clone(), |l| l.src.clone());
                d.role = Some(Fact { v: GuestRole::Temp, src });
                d.lun = None;
            }
            _ if d.lun.is_some() => {
                let src = d.lun.as_ref().map_or_else(|| d.device.src.clone(), |l| l.src.clone());
                d.role = Some(Fact { v: GuestRole::Data, src });
            }
            _ => {}
        }
    }
    for d in &mut facts.disks {
        if d.role.as_ref().is_some_and(|r| r.v == GuestRole::Os) {
            d.lun = None;
        }
    }
    Ok(facts)
}

/// `Integrated : Adapter 1 : Port 0 : Target 0 : LUN 2` -> (adapter 1, LUN 2).
fn parse_location(text: &str) -> (Option<u32>, Option<u32>) {
    let mut adapter = None;
    let mut lun = None;
    for part in text.split(':') {
        let mut words = part.split_whitespace();
        match (words.next(), words.next().and_then(|w| w.parse::<u32>().ok())) {
            (Some(w), Some(x)) if w.eq_ignore_ascii_case("adapter") => adapter = Some(x),
            (Some(w), Some(x)) if w.eq_ignore_ascii_case("lun") => lun = Some(x),
            _ => {}
        }
    }
    (adapter, lun)
}

/// `Get-Partition | ConvertTo-Json`: DiskNumber and DriveLetter (a char; ConvertTo-Json
/// writes it as its code, 69 for `E`, or as a string).
pub(crate) fn partitions(root: &Node<'_>) -> Result<GuestFacts, TopologyError> {
    let mut facts = GuestFacts { windows: true, ..GuestFacts::default() };
    for n in root.items() {
        let Some(dl) = n.get("DriveLetter") else { continue };
        let Some(letter) = drive_letter(&dl)? else { continue };
        let dn = n
            .get("DiskNumber")
            .ok_or_else(|| n.error("a partition without `DiskNumber`".to_owned(), None))?;
        let Some(disk_number) = dn.whole()? else { continue };
        facts.letters.push(Letter { disk_number, letter: fact(&dl, letter) });
    }
    Ok(facts)
}

/// `Get-Volume | ConvertTo-Json`: letters, but no disk numbers.
pub(crate) fn volumes(root: &Node<'_>) -> Result<GuestFacts, TopologyError> {
    let mut facts = GuestFacts { windows: true, ..GuestFacts::default() };
    for n in root.items() {
        if let Some(dl) = n.get("DriveLetter")
            && let Some(letter) = drive_letter(&dl)?
        {
            facts.unplaced_letters.push(fact(&dl, letter));
        }
    }
    Ok(facts)
}

fn drive_letter(n: &Node<'_>) -> Result<Option<String>, TopologyError> {
    let c = match n.v {
        serde_json::Value::Number(x) => {
            x.as_u64().and_then(|x| u8::try_from(x).ok()).map(char::from)
        }
        serde_json::Value::String(s) => s.trim().chars().next(),
        _ => None,
    };
    match c {
        None | Some('\0') => Ok(None),
        Some(c) if c.is_ascii_alphabetic() => Ok(Some(format!("{}:", c.to_ascii_uppercase()))),
        Some(_) => Err(n.error(format!("not a drive letter: {}", n.v), None)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn get_physical_disk_without_is_boot_takes_disk_0_as_the_os_disk() {
        let text = r#"[
 {"DeviceId": "0", "FriendlyName": "Virtual HD", "PhysicalLocation": "Integrated : Adapter 0 : Port 0 : Target 0 : LUN 0"},
 {"DeviceId": "1", "FriendlyName": "Virtual HD", "PhysicalLocation": "Integrated : Adapter 0 : Port 0 : Target 1 : LUN 0"},
 {"DeviceId": "2", "FriendlyName": "Msft Virtual Disk", "PhysicalLocation": "Integrated : Adapter 1 : Port 0 : Target 0 : LUN 2"}
]"#;
        let v: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
        let Ok(f) = windows_disks(&Node::root("pd.json", text, &v)) else { panic!("refused") };
        let got: Vec<(String, Option<GuestRole>, Option<u32>)> = f
            .disks
            .iter()
            .map(|d| {
                (d.device.v.clone(), d.role.as_ref().map(|r| r.v), d.lun.as_ref().map(|l| l.v))
            })
            .collect();
        assert_eq!(
            got,
            [
                ("disk0".to_owned(), Some(GuestRole::Os), None),
                ("disk1".to_owned(), Some(GuestRole::Temp), None),
                ("disk2".to_owned(), Some(GuestRole::Data), Some(2)),
            ]
        );
    }

    /// What the collector wrote on a Debian VM off Azure: a zram swap device beside the
    /// virtio OS disk. zram is memory, not a disk the topology could describe.
    #[test]
    fn lsblk_skips_memory_and_loop_devices() {
        let text = r#"{"blockdevices": [
 {"name": "zram0", "hctl": null, "size": "0B", "type": "disk", "mountpoint": null},
 {"name": "loop3", "hctl": null, "size": "64M", "type": "disk", "mountpoint": null},
 {"name": "vda", "hctl": null, "size": "256G", "type": "disk", "mountpoint": "/"},
 {"name": "sdc", "hctl": "1:0:0:0", "size": "1T", "type": "disk", "mountpoint": null}
]}"#;
        let v: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
        let Ok(f) = lsblk(&Node::root("lsblk.json", text, &v)) else { panic!("refused") };
        let names: Vec<&str> = f.disks.iter().map(|d| d.device.v.as_str()).collect();
        assert_eq!(names, ["vda", "sdc"]);
    }

    #[test]
    fn locations_and_nvme_names() {
        assert_eq!(
            parse_location("Integrated : Adapter 1 : Port 0 : Target 0 : LUN 2"),
            (Some(1), Some(2))
        );
        assert_eq!(parse_location("PCI Slot 3"), (None, None));
        assert_eq!(nvme_namespace("nvme0n3"), Some((0, 3)));
        assert_eq!(nvme_namespace("sdc"), None);
        assert_eq!(
            link("lrwxrwxrwx 1 root root 12 Jan  1 00:00 lun2 -> ../../../sdd"),
            Some((2, "sdd"))
        );
        assert_eq!(link("lrwxrwxrwx 1 root root 13 lun2-part1 -> ../../../sdd1"), None);
    }
}
