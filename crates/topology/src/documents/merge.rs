//! Merging the documents' facts into one topology, written as the contract's TOML with the
//! source of each fact in a comment.
use advisor_model::limits::DiskKind;

use crate::catalog::{Catalog, DiskSku, SkuRef};
use crate::error::{ErrorKind, TopologyError};
use crate::names::name_keys;
use crate::spec::{FileSpec, PoolSpec, VmSpec};
use crate::topology::{TopologyWarning, find_size};

use super::Facts;
use super::azure::{AzDisk, Fact, VmFacts};
use super::emit;
use super::guest::{GuestDisk, GuestFacts, GuestRole, Letter};
use super::node::Src;

/// A value to write, with the comment saying where it came from.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Val {
    /// The TOML literal.
    pub(super) lit: String,
    pub(super) from: String,
}

impl Val {
    fn of(lit: String, from: impl Into<String>) -> Self {
        Self { lit, from: from.into() }
    }
    fn str(s: &str, from: impl Into<String>) -> Self {
        Self::of(quote(s), from)
    }
}

pub(super) fn quote(s: &str) -> String {
    toml::Value::String(s.to_owned()).to_string()
}

fn num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 { format!("{}", x as i64) } else { format!("{x}") }
}

fn from(src: &Src) -> String {
    src.to_string()
}

/// A disk as it will be written.
#[derive(Debug, Clone, Default)]
pub(super) struct OutDisk {
    pub(super) name: Option<Val>,
    pub(super) lun: Option<Val>,
    pub(super) sku: Option<Val>,
    pub(super) cache: Option<Val>,
    pub(super) role: Option<Val>,
    pub(super) iops: Option<Val>,
    pub(super) mbps: Option<Val>,
    pub(super) bursting: Option<Val>,
    pub(super) write_accelerator: Option<Val>,
    /// For joining the contract's disks.
    pub(super) lun_num: Option<u32>,
    pub(super) os: bool,
}

#[derive(Debug, Default)]
pub(super) struct Out {
    pub(super) size: Option<Val>,
    pub(super) temp_disk: Option<Val>,
    /// The contract's `[vm]` figure overrides, written as given.
    pub(super) vm_extra: Vec<(String, Val)>,
    pub(super) disks: Vec<OutDisk>,
    pub(super) pools: Vec<(String, PoolSpec)>,
    pub(super) notes: Vec<TopologyWarning>,
}

fn note(code: &'static str, subject: &str, message: String, fix: &str) -> TopologyWarning {
    TopologyWarning { code, subject: subject.to_owned(), message, fix: fix.to_owned() }
}

/// The merge: the TOML, its notes, and each fact's source.
pub(crate) type Merge = (String, Vec<TopologyWarning>, Vec<(String, String)>);

/// `notes` are the joins' own (Kubernetes' objects), said first.
pub(crate) fn merge(
    all: &[Facts],
    catalog: &Catalog,
    notes: Vec<TopologyWarning>,
) -> Result<Merge, TopologyError> {
    let mut out = Out { notes, ..Out::default() };
    let vm = vm_facts(all, &mut out.notes);
    let mut guest = guest_facts(all);
    // A size the catalog lacks keeps every other fact: its caps are not evaluated.
    let found = match &vm.size {
        Some(f) => Some(find_size(&f.v, catalog).map_err(|kind| {
            TopologyError::new(
                f.src.file.clone(),
                ErrorKind::Invalid {
                    message: format!("at {}: {kind}", f.src.path),
                    help: kind.help().map(str::to_owned),
                },
            )
        })?),
        None => None,
    };
    let size_row = found.as_ref().filter(|f| f.in_catalog).map(|f| &f.row);
    if let (Some(f), Some(found)) = (&vm.size, &found) {
        out.size = Some(Val::str(&found.row.name, from(&f.src)));
        if let Some(n) = &found.note {
            out.notes.push(n.clone());
        }
    }
    let windows =
        guest.windows || vm.os_type.as_ref().is_some_and(|o| o.v.eq_ignore_ascii_case("windows"));
    let linux = !windows
        && (vm.os_type.as_ref().is_some_and(|o| o.v.eq_ignore_ascii_case("linux"))
            || !guest.disks.is_empty());
    let has_temp = match (&vm.resource_disk_mib, size_row.and_then(|r| r.temp_gib)) {
        (Some(mib), _) => mib.v > 0.0,
        (None, Some(gib)) => gib > 0.0,
        (None, None) => false,
    };
    temp_by_size(&mut guest, &vm, size_row.and_then(|r| r.temp_gib));
    let disks = az_disks(all, &vm, &mut out.notes);
    let mut used_guest = vec![false; guest.disks.len()];
    for d in &disks {
        let mut o =
            OutDisk { os: d.os, lun_num: d.lun.as_ref().map(|l| l.v), ..OutDisk::default() };
        // The name the captures use.
        let found = guest.disks.iter().position(|g| {
            if d.os {
                g.role.as_ref().is_some_and(|r| r.v == GuestRole::Os)
            } else {
                g.lun.as_ref().map(|l| l.v) == d.lun.as_ref().map(|l| l.v) && g.lun.is_some()
            }
        });
        let subject;
        match found {
            Some(i) => {
                used_guest[i] = true;
                let g = &guest.disks[i];
                let (name, src) = guest_name(g, &guest.letters);
                subject = name.clone();
                let why = match (&g.lun, d.os) {
                    (Some(l), false) if l.src.file == src.file => {
                        format!("{} (LUN {})", from(&src), l.v)
                    }
                    (Some(l), false) => {
                        format!("{}, the disk at LUN {} ({})", from(&src), l.v, from(&l.src))
                    }
                    _ => from(&src),
                };
                o.name = Some(Val::str(&name, why));
            }
            None if d.os => {
                let name = if windows {
                    "disk0"
                } else if linux {
                    "sda"
                } else {
                    "os"
                };
                subject = name.to_owned();
                o.name =
                    Some(Val::str(name, "ASSUMED: the documented default name of the OS disk"));
                out.notes.push(note(
                    "assumed-device-name",
                    name,
                    format!("the OS disk's name in the captures is ASSUMED to be {name} (no guest disk map says)"),
                    "add lsblk -J (Linux) or Get-Disk JSON (Windows), or write its name in the topology",
                ));
            }
            None => {
                let lun = d.lun.as_ref().map_or(0, |l| l.v);
                let name = format!("lun{lun}");
                subject = name.clone();
                o.name = Some(Val::str(
                    &name,
                    "NOT MAPPED: no guest disk map says which device this LUN is; named by its LUN",
                ));
                out.notes.push(note(
                    "unmapped-lun",
                    &name,
                    format!("no guest disk map says which device LUN {lun} is, so no capture target can be matched to it"),
                    "add lsblk -J / ls -lR /dev/disk/azure (Linux) or Get-Disk and Get-Partition JSON (Windows)",
                ));
            }
        }
        if let Some(l) = &d.lun {
            o.lun = Some(Val::of(l.v.to_string(), from(&l.src)));
        }
        if d.os {
            let at = d.at.as_ref().map_or_else(|| "the VM's osDisk".to_owned(), from);
            o.role = Some(Val::str("os", at));
        }
        if let Some(c) = &d.caching {
            o.cache = Some(Val::str(&c.v, from(&c.src)));
        }
        if let Some(w) = &d.write_accelerator
            && w.v
        {
            o.write_accelerator = Some(Val::of("true".into(), from(&w.src)));
        }
        if let Some(b) = &d.bursting {
            o.bursting = Some(Val::of(b.v.to_string(), from(&b.src)));
        }
        sku(d, catalog, &subject, &mut o, &mut out.notes)?;
        out.disks.push(o);
    }
    // The temp disk.
    let temp =
        guest.disks.iter().position(|g| g.role.as_ref().is_some_and(|r| r.v == GuestRole::Temp));
    let has_local =
        guest.disks.iter().any(|g| g.role.as_ref().is_some_and(|r| r.v == GuestRole::Local));
    match temp {
        Some(i) => {
            used_guest[i] = true;
            let (name, src) = guest_name(&guest.disks[i], &guest.letters);
            // Which disk is the temp disk may come from another document than its name.
            let why = match guest.disks[i].role.as_ref() {
                Some(r) if r.src.file != src.file => {
                    format!("{}, the temp disk by {}", from(&src), from(&r.src))
                }
                _ => from(&src),
            };
            out.temp_disk = Some(Val::str(&name, why));
        }
        // On sizes whose local storage is NVMe, the local disks are the temp storage.
        None if has_temp && (windows || linux) && !has_local => {
            let name = if windows { "disk1" } else { "sdb" };
            let why = match &vm.resource_disk_mib {
                Some(f) => format!(
                    "ASSUMED: the documented default name; the size has a temp disk ({})",
                    from(&f.src)
                ),
                None => "ASSUMED: the documented default name; the size has a temp disk (catalog)"
                    .to_owned(),
            };
            out.temp_disk = Some(Val::str(name, why));
            out.notes.push(note(
                "assumed-device-name",
                name,
                format!("the temp disk's name in the captures is ASSUMED to be {name} (no guest disk map says)"),
                "add lsblk -J (Linux) or Get-Disk JSON (Windows), or set temp_disk in the topology",
            ));
        }
        None => {}
    }
    // Guest disks no Azure document explains.
    let azure_known = !disks.is_empty();
    for (i, g) in guest.disks.iter().enumerate() {
        if used_guest[i] {
            continue;
        }
        let (name, src) = guest_name(g, &guest.letters);
        let mut o = OutDisk { lun_num: g.lun.as_ref().map(|l| l.v), ..OutDisk::default() };
        o.name = Some(Val::str(&name, from(&src)));
        if let Some(l) = &g.lun {
            o.lun = Some(Val::of(l.v.to_string(), from(&l.src)));
        }
        let role = g.role.as_ref().map(|r| r.v);
        match (role, g.role.as_ref()) {
            (Some(GuestRole::Os), Some(r)) => {
                o.os = true;
                o.role = Some(Val::str("os", from(&r.src)));
            }
            // Local storage, not a managed disk: no Azure document describes it.
            (Some(GuestRole::Local), Some(r)) => {
                o.role = Some(Val::str("temp", format!("{} (a local NVMe disk)", from(&r.src))));
                out.disks.push(o);
                continue;
            }
            (Some(GuestRole::Temp), Some(r)) => {
                o.role = Some(Val::str("temp", format!("{} (the temp disk)", from(&r.src))));
                out.disks.push(o);
                continue;
            }
            _ => {}
        }
        if azure_known {
            out.notes.push(note(
                "unexplained-disk",
                &name,
                format!(
                    "{name} ({}) is in the guest's disk map, but no Azure document describes a disk {}: its SKU and limits are unknown",
                    from(&src),
                    g.lun.as_ref().map_or_else(|| "there".to_owned(), |l| format!("at LUN {}", l.v)),
                ),
                "add `az disk list` output, or give its sku in the topology",
            ));
        }
        out.disks.push(o);
    }
    volumes(&guest, &mut out);
    if !guest.unplaced_letters.is_empty() && guest.letters.is_empty() {
        let letters: Vec<&str> = guest.unplaced_letters.iter().map(|l| l.v.as_str()).collect();
        out.notes.push(note(
            "letters-not-placed",
            "vm",
            format!("Get-Volume lists {} but says not which disk each is on", letters.join(", ")),
            "add Get-Partition | ConvertTo-Json, which has DiskNumber and DriveLetter",
        ));
    }
    for f in all {
        if let Facts::Contract(c) = f {
            apply_contract(&mut out, &c.file, &c.spec);
        }
    }
    // Without a VM size there is no [vm] table to hold the temp disk: it is a disk of role
    // temp instead (a guest map alone, lsblk or Get-Disk, says which disk it is).
    if out.size.is_none()
        && let Some(t) = out.temp_disk.take()
    {
        let named = |o: &OutDisk| o.name.as_ref().is_some_and(|n| n.lit == t.lit);
        if !out.disks.iter().any(named) {
            let role = Val::str("temp", format!("{} (the temp disk)", t.from));
            out.disks.push(OutDisk { name: Some(t), role: Some(role), ..OutDisk::default() });
        }
    }
    let sources = emit::sources(&out);
    Ok((emit::emit(&out), out.notes, sources))
}

fn vm_facts(all: &[Facts], notes: &mut Vec<TopologyWarning>) -> VmFacts {
    let mut vm = VmFacts::default();
    for f in all {
        let Facts::Vm(v) = f else { continue };
        for (mine, theirs, what) in
            [(&mut vm.size, &v.size, "VM size"), (&mut vm.os_type, &v.os_type, "OS type")]
        {
            match (mine.as_ref(), theirs) {
                (None, Some(t)) => *mine = Some(t.clone()),
                (Some(m), Some(t)) if !m.v.eq_ignore_ascii_case(&t.v) => notes.push(note(
                    "source-conflict",
                    "vm",
                    format!(
                        "{what}: {} says {}, {} says {}; the first is kept",
                        m.src, m.v, t.src, t.v
                    ),
                    "remove the stale document, or write the right value in the topology",
                )),
                _ => {}
            }
        }
        if vm.resource_disk_mib.is_none() {
            vm.resource_disk_mib = v.resource_disk_mib.clone();
        }
    }
    vm
}

/// When no guest document marked the temp disk, the one non-OS disk whose size is the
/// resource disk's (IMDS `resourceDisk.size`, to the MiB; else the catalog's temp storage,
/// within 2%) is it. Windows' disk locations do not tell the temp disk's adapter apart on
/// every generation of VM, while its size is exact; a data disk of that very size would be
/// a 112 GiB managed disk, which Azure does not sell.
fn temp_by_size(guest: &mut GuestFacts, vm: &VmFacts, catalog_gib: Option<f64>) {
    const MIB: f64 = 1_048_576.0;
    if guest.disks.iter().any(|g| g.role.as_ref().is_some_and(|r| r.v == GuestRole::Temp)) {
        return;
    }
    let matches = |bytes: f64| match (&vm.resource_disk_mib, catalog_gib) {
        (Some(mib), _) => mib.v > 0.0 && (bytes / MIB - mib.v).abs() <= 1.0,
        (None, Some(gib)) => gib > 0.0 && (bytes / (1024.0 * MIB) / gib - 1.0).abs() <= 0.02,
        (None, None) => false,
    };
    let found: Vec<usize> = (0..guest.disks.len())
        .filter(|&i| {
            let g = &guest.disks[i];
            !g.role.as_ref().is_some_and(|r| matches!(r.v, GuestRole::Os | GuestRole::Local))
                && g.size_bytes.is_some_and(&matches)
        })
        .collect();
    if let [i] = found[..] {
        let g = &mut guest.disks[i];
        let src = match &vm.resource_disk_mib {
            Some(mib) => Src {
                file: g.device.src.file.clone(),
                path: format!("{}, the size of the resource disk ({})", g.device.src.path, mib.src),
            },
            None => g.device.src.clone(),
        };
        g.role = Some(Fact { v: GuestRole::Temp, src });
        g.lun = None;
    }
}

/// The guest documents' disks by device name. What Azure's own marks say (a
/// `/dev/disk/azure` link, the NVMe model, a mount point) wins over a layout rule's guess
/// from another document, and a LUN a mark gives is no other device's.
fn guest_facts(all: &[Facts]) -> GuestFacts {
    let mut g = GuestFacts::default();
    for f in all {
        let Facts::Guest(x) = f else { continue };
        g.windows |= x.windows;
        for d in &x.disks {
            match g.disks.iter_mut().find(|e| e.device.v == d.device.v) {
                Some(e) if d.certain && !e.certain => {
                    e.lun = d.lun.clone().or(e.lun.take().filter(|_| d.role.is_none()));
                    e.role = d.role.clone().or(e.role.take());
                    e.certain = true;
                    e.size_bytes = e.size_bytes.or(d.size_bytes);
                }
                Some(e) => {
                    if e.lun.is_none() && e.role.as_ref().is_none_or(|r| r.v == GuestRole::Data) {
                        e.lun = d.lun.clone();
                    }
                    if e.role.is_none() {
                        e.role = d.role.clone();
                    }
                    e.size_bytes = e.size_bytes.or(d.size_bytes);
                }
                None => g.disks.push(d.clone()),
            }
        }
        g.letters.extend(x.letters.iter().cloned());
        g.unplaced_letters.extend(x.unplaced_letters.iter().cloned());
        for v in &x.volumes {
            if !g.volumes.iter().any(|e| e.name == v.name) {
                g.volumes.push(v.clone());
            }
        }
    }
    let sure: Vec<(String, u32)> = g
        .disks
        .iter()
        .filter(|d| d.certain)
        .filter_map(|d| d.lun.as_ref().map(|l| (d.device.v.clone(), l.v)))
        .collect();
    for d in g.disks.iter_mut().filter(|d| !d.certain) {
        if d.lun
            .as_ref()
            .is_some_and(|l| sure.iter().any(|(dev, n)| *n == l.v && *dev != d.device.v))
        {
            d.lun = None;
            d.role = None;
        }
    }
    g
}

/// lsblk's volumes over several disks: an md RAID 0 of remote disks is a striped pool; any
/// other volume over several disks is said in a note (lsblk does not say whether an LVM
/// volume stripes), as is a volume over local disks (local storage has no caps to pool).
fn volumes(guest: &GuestFacts, out: &mut Out) {
    let role_of = |dev: &str| {
        guest.disks.iter().find(|d| d.device.v == dev).and_then(|d| d.role.as_ref().map(|r| r.v))
    };
    for v in guest.volumes.iter().filter(|v| v.members.len() >= 2) {
        let members = v.members.join(", ");
        let local = v
            .members
            .iter()
            .all(|m| matches!(role_of(m), Some(GuestRole::Local | GuestRole::Temp)));
        if local {
            out.notes.push(note(
                "local-volume",
                &v.name,
                format!(
                    "{} ({}, {}) spans the local disks {members}: each is described as a temp disk; local storage is not under the VM's remote-disk caps, so there is no pool to judge",
                    v.name,
                    v.kind,
                    from(&v.src)
                ),
                "nothing to do; per-device statistics (iostat -x) show each local disk",
            ));
        } else if v.kind == "raid0" {
            out.pools.push((
                from(&v.src),
                PoolSpec {
                    name: v.name.clone(),
                    disks: v.members.clone(),
                    columns: None,
                    interleave_kib: None,
                },
            ));
        } else {
            out.notes.push(note(
                "volume-not-pooled",
                &v.name,
                format!(
                    "{} ({}, {}) spans {members}; lsblk does not say whether it stripes, so it is not written as a [[pool]]",
                    v.name,
                    v.kind,
                    from(&v.src)
                ),
                "if it stripes (lvcreate -i, mdadm --level=0), add a [[pool]] with these disks to the topology",
            ));
        }
    }
}

/// A Windows disk's first drive letter when Get-Partition gave one, else its device name.
fn guest_name(g: &GuestDisk, letters: &[Letter]) -> (String, Src) {
    if let Some(n) = g.number
        && let Some(l) = letters.iter().find(|l| l.disk_number == n)
    {
        return (l.letter.v.clone(), l.letter.src.clone());
    }
    (g.device.v.clone(), g.device.src.clone())
}

/// The VM's disks from the VM documents, with the disk resources joined in by id or name.
fn az_disks(all: &[Facts], vm: &VmFacts, notes: &mut Vec<TopologyWarning>) -> Vec<AzDisk> {
    let mut disks: Vec<AzDisk> = Vec::new();
    let mut from_vm = false;
    for f in all {
        let Facts::Vm(v) = f else { continue };
        from_vm = true;
        for d in &v.disks {
            let same = disks.iter_mut().find(|e| {
                (d.os && e.os)
                    || (!d.os
                        && !e.os
                        && e.lun.as_ref().map(|l| l.v) == d.lun.as_ref().map(|l| l.v))
            });
            match same {
                Some(e) => fill(e, d, notes),
                None => disks.push(d.clone()),
            }
        }
    }
    let _ = vm;
    let mut ignored = Vec::new();
    for f in all {
        let Facts::Disks(list) = f else { continue };
        for d in list {
            let key = |x: &AzDisk| {
                (
                    x.id.as_deref().map(str::to_ascii_lowercase),
                    x.name.as_ref().map(|n| n.v.to_ascii_lowercase()),
                )
            };
            let (id, name) = key(d);
            let same = disks.iter_mut().find(|e| {
                let (eid, ename) = key(e);
                (id.is_some() && eid == id) || (name.is_some() && ename == name)
            });
            match same {
                Some(e) => fill(e, d, notes),
                None if !from_vm => disks.push(d.clone()),
                None => ignored
                    .push(d.name.as_ref().map_or_else(|| "(unnamed)".to_owned(), |n| n.v.clone())),
            }
        }
    }
    if !ignored.is_empty() {
        notes.push(note(
            "disk-not-attached",
            "vm",
            format!(
                "az disk output lists {} which the VM's documents do not attach; left out",
                ignored.join(", ")
            ),
            "nothing to do if they belong to other VMs",
        ));
    }
    disks
}

/// Fills what `e` lacks from `d`; a disagreement is a note (the first source is kept).
// Figures compare exactly: two documents that agree print the same number.
#[allow(clippy::float_cmp)]
fn fill(e: &mut AzDisk, d: &AzDisk, notes: &mut Vec<TopologyWarning>) {
    macro_rules! take {
        ($f:ident) => {
            match (&e.$f, &d.$f) {
                (None, Some(x)) => e.$f = Some(x.clone()),
                (Some(a), Some(b)) if a.v != b.v => notes.push(note(
                    "source-conflict",
                    e.name.as_ref().map_or("disk", |n| n.v.as_str()),
                    format!(
                        "{}: {} says {:?}, {} says {:?}; the first is kept",
                        stringify!($f),
                        a.src,
                        a.v,
                        b.src,
                        b.v
                    ),
                    "remove the stale document, or write the right value in the topology",
                )),
                _ => {}
            }
        };
    }
    // A disk resource's type is its billing SKU: it wins over the VM view's account type.
    if let Some(t) = &d.account_type
        && d.lun.is_none()
    {
        e.account_type = Some(t.clone());
    }
    take!(lun);
    take!(name);
    take!(size_gib);
    take!(account_type);
    take!(ultra);
    take!(caching);
    take!(iops);
    take!(mbps);
    take!(write_accelerator);
    take!(tier);
    take!(bursting);
    if e.id.is_none() {
        e.id = d.id.clone();
    }
}

/// The kind of a storage account type (`Premium_LRS`, `PremiumV2_LRS`, ...).
fn kind_of(account_type: &str) -> Option<DiskKind> {
    let t = account_type.to_ascii_lowercase();
    let base = t.split('_').next().unwrap_or("");
    match base {
        "premium" => Some(DiskKind::PremiumSsd),
        "premiumv2" => Some(DiskKind::PremiumSsdV2),
        "standardssd" => Some(DiskKind::StandardSsd),
        "standard" => Some(DiskKind::StandardHdd),
        "ultrassd" => Some(DiskKind::Ultra),
        _ => None,
    }
}

/// The billed SKU: the smallest of the kind's sizes that holds the disk (Azure rounds up),
/// or the performance tier when it is set above that.
fn billed(catalog: &Catalog, kind: DiskKind, gib: f64) -> Option<&DiskSku> {
    catalog
        .disks_of(kind)
        .into_iter()
        .filter(|r| !r.perf_plus && !r.superseded)
        .filter_map(|r| r.size_gib().map(|s| (s, r)))
        .filter(|(s, _)| *s >= gib)
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, r)| r)
}

fn sku(
    d: &AzDisk,
    catalog: &Catalog,
    subject: &str,
    o: &mut OutDisk,
    notes: &mut Vec<TopologyWarning>,
) -> Result<(), TopologyError> {
    let ultra = d.ultra.as_ref().is_some_and(|u| u.v);
    let kind = match (&d.account_type, ultra) {
        (_, true) => Some(DiskKind::Ultra),
        (Some(t), _) => match kind_of(&t.v) {
            Some(k) => Some(k),
            None => {
                return Err(TopologyError::new(
                    t.src.file.clone(),
                    ErrorKind::Invalid {
                        message: format!("at {}: unknown storage account type \"{}\"", t.src.path, t.v),
                        help: Some("one of Premium_LRS, StandardSSD_LRS, Standard_LRS, PremiumV2_LRS, UltraSSD_LRS (or _ZRS)".to_owned()),
                    },
                ));
            }
        },
        (None, false) => None,
    };
    let type_src =
        d.account_type.as_ref().map(|t| format!("{} ({})", t.src, t.v)).unwrap_or_default();
    match kind {
        None => {
            if !d.os || d.size_gib.is_some() {
                notes.push(note(
                    "sku-unknown",
                    subject,
                    format!(
                        "no document gives {subject}'s disk type, so its SKU and limits are unknown"
                    ),
                    "add `az disk list` output, or write its sku in the topology",
                ));
            }
        }
        Some(k @ (DiskKind::PremiumSsdV2 | DiskKind::Ultra)) => {
            let name = if k == DiskKind::Ultra { "Ultra" } else { "PremiumV2" };
            o.sku = Some(Val::str(name, type_src));
            if let Some(i) = &d.iops {
                o.iops = Some(Val::of(num(i.v), from(&i.src)));
            }
            if let Some(m) = &d.mbps {
                let unit = if m.src.path.ends_with("bytesPerSecondThrottle") {
                    " (bytes/s / 10^6)"
                } else {
                    ""
                };
                o.mbps = Some(Val::of(num(m.v), format!("{}{unit}", m.src)));
            }
            if d.iops.is_none() || d.mbps.is_none() {
                notes.push(note(
                    "provisioned-unknown",
                    subject,
                    format!(
                        "{subject} is {} but no document gives its provisioned IOPS and MB/s",
                        k.label()
                    ),
                    "add `az disk list` output (diskIOPSReadWrite, diskMBpsReadWrite)",
                ));
            }
        }
        Some(k) => {
            let Some(size) = &d.size_gib else {
                notes.push(note(
                    "sku-unknown",
                    subject,
                    format!(
                        "{subject} is {} but no document gives its size, so its SKU is unknown",
                        k.label()
                    ),
                    "add `az disk list` output, or write its sku in the topology",
                ));
                return Ok(());
            };
            let Some(by_size) = billed(catalog, k, size.v) else {
                notes.push(note(
                    "sku-unknown",
                    subject,
                    format!("the catalog has no {} size of {} GiB or more", k.label(), num(size.v)),
                    "write its sku in the topology",
                ));
                return Ok(());
            };
            let mut row = by_size;
            // `file: $.a (Premium_LRS) + $.b (200 GiB) -> P15`: the file once when it is one.
            let size_at = match &d.account_type {
                Some(t) if t.src.file == size.src.file => size.src.path.clone(),
                _ => from(&size.src),
            };
            let mut why =
                format!("{type_src} + {size_at} ({} GiB) -> {}", num(size.v), by_size.name);
            if let Some(t) = &d.tier
                && let Ok(SkuRef::Row(tr)) = catalog.resolve_sku(&t.v)
                && tr.kind == k
                && tr.size_gib() > by_size.size_gib()
            {
                why = format!(
                    "{} (performance tier {} above the size's {})",
                    t.src, tr.name, by_size.name
                );
                row = tr;
            }
            o.sku = Some(Val::str(&row.name, why));
        }
    }
    Ok(())
}

/// The contract's facts, which win; each difference is a note.
fn apply_contract(out: &mut Out, file: &str, spec: &FileSpec) {
    let override_note =
        |notes: &mut Vec<TopologyWarning>, subject: &str, key: &str, old: &Val, new: &str| {
            if old.lit != new {
                notes.push(note(
                    "topology-override",
                    subject,
                    format!("{key} = {new} from {file} overrides {} from {}", old.lit, old.from),
                    "nothing to do if the topology file is right; otherwise correct it",
                ));
            }
        };
    let at = |key: &str| format!("{file}: {key}");
    if let Some(vm) = &spec.vm {
        let lit = quote(&vm.size);
        if let Some(old) = &out.size {
            override_note(&mut out.notes, "vm", "size", old, &lit);
        }
        out.size = Some(Val::of(lit, at("[vm] size")));
        if let Some(t) = &vm.temp_disk {
            let lit = quote(t);
            if let Some(old) = &out.temp_disk {
                override_note(&mut out.notes, "vm", "temp_disk", old, &lit);
            }
            out.temp_disk = Some(Val::of(lit, at("[vm] temp_disk")));
        }
        for (k, v) in vm_figures(vm) {
            out.vm_extra.retain(|(e, _)| *e != k);
            out.vm_extra.push((k.clone(), Val::of(v, at(&format!("[vm] {k}")))));
        }
    }
    for (i, d) in spec.disk.iter().enumerate() {
        let keys = name_keys(&d.name);
        let role_os = d.role.as_deref().is_some_and(|r| r.eq_ignore_ascii_case("os"));
        let pos = out.disks.iter().position(|o| {
            (d.lun.is_some() && o.lun_num == d.lun)
                || o.name.as_ref().is_some_and(|n| {
                    let written: String = toml::from_str::<toml::Value>(&format!("x = {}", n.lit))
                        .ok()
                        .and_then(|v| v.get("x").and_then(|x| x.as_str()).map(str::to_owned))
                        .unwrap_or_default();
                    name_keys(&written).iter().any(|k| keys.contains(k))
                })
                || (role_os && o.os)
        });
        let here = format!("[[disk]] #{}", i + 1);
        let o = match pos {
            Some(p) => &mut out.disks[p],
            None => {
                out.disks.push(OutDisk::default());
                let last = out.disks.len() - 1;
                &mut out.disks[last]
            }
        };
        let subject = d.name.clone();
        let set = |slot: &mut Option<Val>,
                   key: &str,
                   lit: Option<String>,
                   notes: &mut Vec<TopologyWarning>| {
            if let Some(lit) = lit {
                if let Some(old) = slot.as_ref() {
                    override_note(notes, &subject, key, old, &lit);
                }
                *slot = Some(Val::of(lit, format!("{file}: {here} {key}")));
            }
        };
        let notes = &mut out.notes;
        set(&mut o.name, "name", Some(quote(&d.name)), notes);
        set(&mut o.lun, "lun", d.lun.map(|l| l.to_string()), notes);
        set(&mut o.sku, "sku", d.sku.as_deref().map(quote), notes);
        set(&mut o.cache, "cache", d.cache.as_deref().map(quote), notes);
        set(&mut o.role, "role", d.role.as_deref().map(quote), notes);
        set(&mut o.iops, "iops", d.iops.map(num), notes);
        set(&mut o.mbps, "mbps", d.mbps.map(num), notes);
        set(&mut o.bursting, "bursting", d.bursting.map(|b| b.to_string()), notes);
        set(
            &mut o.write_accelerator,
            "write_accelerator",
            d.write_accelerator.map(|b| b.to_string()),
            notes,
        );
        if d.lun.is_some() {
            o.lun_num = d.lun;
        }
        // A provisioned figure from Azure does not apply to a SKU the file changed.
        if d.sku.is_some()
            && d.iops.is_none()
            && o.sku.as_ref().is_some_and(|s| s.from.starts_with(file))
        {
            let provisioned = d.sku.as_deref().is_some_and(|s| {
                let k = s.to_ascii_lowercase();
                k.starts_with("ultra") || k.starts_with("premiumv2") || k.starts_with("premium_v2")
            });
            if !provisioned {
                o.iops = None;
                o.mbps = None;
            }
        }
    }
    for p in &spec.pool {
        let key = crate::names::normalize_name(&p.name);
        out.pools.retain(|(_, e)| crate::names::normalize_name(&e.name) != key);
        out.pools.push((file.to_owned(), p.clone()));
    }
}

fn vm_figures(vm: &VmSpec) -> Vec<(String, String)> {
    let mut v = Vec::new();
    for (k, x) in [
        ("memory_gib", vm.memory_gib),
        ("temp_gib", vm.temp_gib),
        ("cached_iops", vm.cached_iops),
        ("cached_mbps", vm.cached_mbps),
        ("cache_gib", vm.cache_gib),
        ("uncached_iops", vm.uncached_iops),
        ("uncached_mbps", vm.uncached_mbps),
        ("uncached_burst_iops", vm.uncached_burst_iops),
        ("uncached_burst_mbps", vm.uncached_burst_mbps),
    ] {
        if let Some(x) = x {
            v.push((k.to_owned(), num(x)));
        }
    }
    for (k, x) in [("vcpu", vm.vcpu), ("max_data_disks", vm.max_data_disks)] {
        if let Some(x) = x {
            v.push((k.to_owned(), x.to_string()));
        }
    }
    v
}
