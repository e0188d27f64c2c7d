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
    /// The temp (resource) disk.
    Temp,
    Data,
    /// A local NVMe disk (Microsoft NVMe Direct Disk): local storage beside or instead of
    /// the temp disk, not a managed disk.
    Local,
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
    /// The role and LUN come from Azure's own marks (a `/dev/disk/azure` link, the NVMe
    /// model, a mount point, Windows' location), not from a layout rule: they win over a
    /// rule's guess from another document.
    pub(crate) certain: bool,
}

/// A volume over disks (LVM, md RAID) as lsblk shows it under each member.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Volume {
    /// As the captures name it: `md127`, `datavg-datalv`.
    pub(crate) name: String,
    /// lsblk's type: `lvm`, `raid0`, `raid1`, `crypt` ...
    pub(crate) kind: String,
    /// The disks it sits on, by device name.
    pub(crate) members: Vec<String>,
    pub(crate) src: Src,
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
    /// lsblk's volumes (LVM, md RAID) and the disks under each.
    pub(crate) volumes: Vec<Volume>,
}

fn fact<T>(n: &Node<'_>, v: T) -> Fact<T> {
    Fact { v, src: n.src() }
}

/// `ls -l` of `/dev/disk/azure` (`-R` for all of it, or one folder such as `scsi1/`), or
/// `find /dev/disk/azure -type l -ls`: the links Azure's udev rules make (WALinuxAgent's
/// `scsi1/lunN`, `root`, `resource`; azure-vm-utils' `os`, `data/by-lun/N`,
/// `local/by-serial/...`, `local/by-index/N`, `local/by-name/...`), each naming the device
/// behind it.
pub(crate) fn is_scsi_listing(text: &str) -> bool {
    let mut dir: Option<&str> = None;
    for l in text.lines().take(400) {
        let l = l.trim();
        if let Some(d) = l.strip_suffix(':')
            && d.starts_with('/')
        {
            dir = Some(d);
            continue;
        }
        if let Some((path, _)) = link(dir, l)
            && azure_link(&path).is_some()
        {
            return true;
        }
    }
    false
}

/// What an Azure link says of the device behind it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AzureLink {
    Lun(u32),
    Os,
    Resource,
    Local,
}

/// The link's name with its folder (`/dev/disk/azure/scsi1/lun2`) and the device it points
/// to (`sdd`), from an `ls -l` or `find -ls` line.
fn link(dir: Option<&str>, line: &str) -> Option<(String, String)> {
    let (left, target) = line.split_once(" -> ")?;
    let name = left.split_whitespace().last()?;
    let dev = target.trim().rsplit('/').next()?.trim();
    if dev.is_empty() || name.is_empty() {
        return None;
    }
    let path = match dir {
        _ if name.starts_with('/') => name.to_owned(),
        Some(d) => format!("{}/{name}", d.trim_end_matches('/')),
        None => name.to_owned(),
    };
    Some((path, dev.to_owned()))
}

/// What a link under `/dev/disk/azure` is; `None` for a partition's link (`lun0-part1`,
/// `root-part1`) or one this reader has no use for. A bare `lunN` (one folder listed
/// without its name) is `scsi1`'s.
fn azure_link(path: &str) -> Option<AzureLink> {
    let rel = match path.find("/dev/disk/azure") {
        Some(i) => path[i + "/dev/disk/azure".len()..].trim_start_matches('/'),
        None if path.starts_with('/') => return None,
        None => path,
    };
    let parts: Vec<&str> = rel.split('/').filter(|p| !p.is_empty()).collect();
    let lun = |s: &str| s.parse::<u32>().ok();
    match parts[..] {
        ["scsi1", l] | [l] if l.strip_prefix("lun").and_then(lun).is_some() => {
            l.strip_prefix("lun").and_then(lun).map(AzureLink::Lun)
        }
        ["data", "by-lun", l] => lun(l).map(AzureLink::Lun),
        ["os" | "root"] => Some(AzureLink::Os),
        ["resource"] => Some(AzureLink::Resource),
        ["local", "by-serial" | "by-index" | "by-name", x] if !x.contains("-part") => {
            Some(AzureLink::Local)
        }
        _ => None,
    }
}

pub(crate) fn scsi_listing(file: &str, text: &str) -> Result<GuestFacts, TopologyError> {
    let mut facts = GuestFacts::default();
    let mut dir: Option<String> = None;
    for (i, line) in text.lines().enumerate() {
        let l = line.trim();
        if l.is_empty() || l.starts_with("total ") {
            continue;
        }
        // `ls -R` folder headers, `find`'s bare paths, folders' own lines (`drwxr-xr-x`).
        if let Some(d) = l.strip_suffix(':')
            && d.starts_with('/')
        {
            dir = Some(d.to_owned());
            continue;
        }
        let Some((path, dev)) = link(dir.as_deref(), l) else {
            if l.starts_with('/') || l.starts_with('d') && l.split_whitespace().count() >= 8 {
                continue;
            }
            let err = TopologyError::new(
                file,
                ErrorKind::Syntax {
                    message: "expected a line of `ls -l /dev/disk/azure/scsi1/` or \
                              `ls -lR /dev/disk/azure` (`lun2 -> ../../../sdd`)"
                        .to_owned(),
                    help: None,
                },
            );
            return Err(err.at(Snippet::at_line_col(text, i + 1, 1)));
        };
        let Some(what) = azure_link(&path) else { continue };
        let src = Src { file: file.to_owned(), path: format!("line {}", i + 1) };
        let (role, lun) = match what {
            AzureLink::Lun(l) => (GuestRole::Data, Some(l)),
            AzureLink::Os => (GuestRole::Os, None),
            AzureLink::Resource => (GuestRole::Temp, None),
            AzureLink::Local => (GuestRole::Local, None),
        };
        // Several links name one device (`os` and `root`, a local disk's serial, index and
        // name): the first says it.
        if facts.disks.iter().any(|d| d.device.v == dev) {
            continue;
        }
        facts.disks.push(GuestDisk {
            device: Fact { v: dev, src: src.clone() },
            number: None,
            lun: lun.map(|l| Fact { v: l, src: src.clone() }),
            role: Some(Fact { v: role, src }),
            size_bytes: None,
            certain: true,
        });
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
        let mut role =
            (boot || system).then(|| fact(n.get("IsBoot").as_ref().unwrap_or(&n), GuestRole::Os));
        // A local NVMe disk by its model, as on Linux (azure-vm-utils' identify_disks.c).
        if role.is_none()
            && let Some(f) = n.get_any(&["FriendlyName", "Model"])
            && f.text()?.to_ascii_lowercase().starts_with("microsoft nvme direct disk")
        {
            role = Some(fact(&f, GuestRole::Local));
            lun = None;
            adapter = None;
        }
        adapters.push(adapter);
        facts.disks.push(GuestDisk {
            device: fact(&num_node, format!("disk{number}")),
            number: Some(number),
            lun,
            role,
            size_bytes: n.get("Size").and_then(|s| s.v.as_f64()),
            certain: true,
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

    #[test]
    fn get_disk_tells_a_local_nvme_disk_by_its_model() {
        let text = r#"[
 {"Number": 0, "FriendlyName": "Virtual HD", "IsBoot": true, "Location": "Integrated : Adapter 0 : Port 0 : Target 0 : LUN 0"},
 {"Number": 1, "FriendlyName": "Microsoft NVMe Direct Disk v2", "IsBoot": false, "Location": "PCI Slot 3 : Adapter 2 : Port 0 : Target 0 : LUN 0"},
 {"Number": 2, "FriendlyName": "Msft Virtual Disk", "IsBoot": false, "Location": "Integrated : Adapter 1 : Port 0 : Target 0 : LUN 0"}
]"#;
        let v: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
        let Ok(f) = windows_disks(&Node::root("gd.json", text, &v)) else { panic!("refused") };
        let got: Vec<(Option<GuestRole>, Option<u32>)> = f
            .disks
            .iter()
            .map(|d| (d.role.as_ref().map(|r| r.v), d.lun.as_ref().map(|l| l.v)))
            .collect();
        assert_eq!(
            got,
            [
                (Some(GuestRole::Os), None),
                (Some(GuestRole::Local), None),
                (Some(GuestRole::Data), Some(0))
            ]
        );
    }

    #[test]
    fn locations_and_links() {
        assert_eq!(
            parse_location("Integrated : Adapter 1 : Port 0 : Target 0 : LUN 2"),
            (Some(1), Some(2))
        );
        assert_eq!(parse_location("PCI Slot 3"), (None, None));
        let at = |dir: Option<&str>, l: &str| {
            link(dir, l).and_then(|(p, d)| azure_link(&p).map(|a| (a, d)))
        };
        let lun2 = Some((AzureLink::Lun(2), "sdd".to_owned()));
        assert_eq!(at(None, "lrwxrwxrwx 1 root root 12 Jan  1 00:00 lun2 -> ../../../sdd"), lun2);
        assert_eq!(
            at(
                Some("/dev/disk/azure/scsi1"),
                "lrwxrwxrwx 1 root root 12 Jan  1 00:00 lun2 -> ../../../sdd"
            ),
            lun2
        );
        assert_eq!(at(None, "lrwxrwxrwx 1 root root 13 lun2-part1 -> ../../../sdd1"), None);
        assert_eq!(
            at(
                Some("/dev/disk/azure/data/by-lun"),
                "lrwxrwxrwx 1 root root 15 Mar  4 10:00 2 -> ../../../../nvme0n4"
            ),
            Some((AzureLink::Lun(2), "nvme0n4".to_owned()))
        );
        assert_eq!(
            at(
                Some("/dev/disk/azure"),
                "lrwxrwxrwx 1 root root  9 Mar  4 10:00 resource -> ../../sdb"
            ),
            Some((AzureLink::Resource, "sdb".to_owned()))
        );
        assert_eq!(
            at(
                Some("/dev/disk/azure"),
                "lrwxrwxrwx 1 root root 10 Mar  4 10:00 root-part1 -> ../../sda1"
            ),
            None
        );
        assert_eq!(
            at(
                None,
                "  1234   0 lrwxrwxrwx 1 root root 13 Mar  4 10:00 /dev/disk/azure/local/by-index/1 -> ../../../../nvme1n1"
            ),
            Some((AzureLink::Local, "nvme1n1".to_owned()))
        );
        // Other folders' links are not Azure's.
        assert_eq!(
            at(Some("/dev/disk/by-id"), "lrwxrwxrwx 1 root root 9 Mar  4 10:00 lun0 -> ../../sdc"),
            None
        );
    }
}
