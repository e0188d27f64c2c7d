//! Azure's own documents: the IMDS instance document, `az vm show` and `az disk list/show`.
//! Shapes: see fixtures/topology/PROVENANCE.md.

use crate::error::TopologyError;

use super::node::{Node, Src};

/// A value with the place it came from.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Fact<T> {
    pub(crate) v: T,
    pub(crate) src: Src,
}

/// One disk as Azure describes it (a VM's storage profile entry, or a disk resource).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct AzDisk {
    pub(crate) os: bool,
    /// Where the disk's entry is (its storage-profile entry or disk resource).
    pub(crate) at: Option<Src>,
    pub(crate) lun: Option<Fact<u32>>,
    /// The disk resource's name.
    pub(crate) name: Option<Fact<String>>,
    /// The managed disk's resource id.
    pub(crate) id: Option<String>,
    pub(crate) size_gib: Option<Fact<f64>>,
    /// `Premium_LRS`, `StandardSSD_LRS`, `Standard_LRS`, `PremiumV2_LRS`, `UltraSSD_LRS`.
    pub(crate) account_type: Option<Fact<String>>,
    pub(crate) ultra: Option<Fact<bool>>,
    pub(crate) caching: Option<Fact<String>>,
    pub(crate) iops: Option<Fact<f64>>,
    pub(crate) mbps: Option<Fact<f64>>,
    pub(crate) write_accelerator: Option<Fact<bool>>,
    /// The performance tier (`P30`) set above the size's.
    pub(crate) tier: Option<Fact<String>>,
    pub(crate) bursting: Option<Fact<bool>>,
    /// `managedBy` of a disk resource: the VM it is attached to.
    pub(crate) managed_by: Option<String>,
}

/// What a VM document (IMDS, `az vm show`) says.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct VmFacts {
    pub(crate) size: Option<Fact<String>>,
    /// `Windows` or `Linux`.
    pub(crate) os_type: Option<Fact<String>>,
    /// The resource disk's size in MiB (IMDS `resourceDisk.size`).
    pub(crate) resource_disk_mib: Option<Fact<f64>>,
    pub(crate) disks: Vec<AzDisk>,
    /// The guest's host name (`osProfile.computerName`): an AKS node's name.
    pub(crate) computer_name: Option<String>,
}

fn fact<T>(n: &Node<'_>, v: T) -> Fact<T> {
    Fact { v, src: n.src() }
}

fn text_fact(n: &Node<'_>, key: &str) -> Result<Option<Fact<String>>, TopologyError> {
    match n.get(key) {
        None => Ok(None),
        Some(k) => {
            let t = k.text()?;
            Ok((!t.is_empty()).then(|| fact(&k, t)))
        }
    }
}

fn num_fact(n: &Node<'_>, keys: &[&str]) -> Result<Option<Fact<f64>>, TopologyError> {
    match n.get_any(keys) {
        None => Ok(None),
        Some(k) => Ok(k.number()?.map(|x| fact(&k, x))),
    }
}

fn flag_fact(n: &Node<'_>, key: &str) -> Result<Option<Fact<bool>>, TopologyError> {
    match n.get(key) {
        None => Ok(None),
        Some(k) => Ok(k.flag()?.map(|x| fact(&k, x))),
    }
}

/// The IMDS instance document, whole or its `compute` part. Every value is a string there.
pub(crate) fn imds(root: &Node<'_>) -> Result<VmFacts, TopologyError> {
    let compute = root.get("compute").unwrap_or_else(|| root.clone());
    let mut vm = VmFacts {
        size: text_fact(&compute, "vmSize")?,
        os_type: text_fact(&compute, "osType")?,
        computer_name: computer_name(&compute)?,
        ..VmFacts::default()
    };
    let Some(storage) = compute.get("storageProfile") else {
        return Ok(vm);
    };
    if let Some(rd) = storage.get("resourceDisk") {
        vm.resource_disk_mib = num_fact(&rd, &["size"])?;
    }
    if let Some(os) = storage.get("osDisk") {
        let mut d = profile_disk(&os)?;
        d.os = true;
        if vm.os_type.is_none() {
            vm.os_type = text_fact(&os, "osType")?;
        }
        vm.disks.push(d);
    }
    if let Some(data) = storage.get("dataDisks") {
        for n in data.items() {
            let mut d = profile_disk(&n)?;
            if d.lun.is_none() {
                return Err(n.error("a data disk without `lun`".to_owned(), None));
            }
            d.ultra = flag_fact(&n, "isUltraDisk")?;
            // IMDS gives the throttles of Premium SSD v2 / Ultra disks (bytes/s: Azure's
            // MB is 10^6 bytes).
            d.iops = num_fact(&n, &["opsPerSecondThrottle"])?;
            d.mbps = num_fact(&n, &["bytesPerSecondThrottle"])?
                .map(|f| Fact { v: f.v / 1_000_000.0, src: f.src });
            vm.disks.push(d);
        }
    }
    Ok(vm)
}

fn computer_name(n: &Node<'_>) -> Result<Option<String>, TopologyError> {
    match n.get("osProfile") {
        Some(p) => Ok(text_fact(&p, "computerName")?.map(|f| f.v)),
        None => Ok(None),
    }
}

/// An entry of a storage profile (IMDS or `az vm show`): lun, name, size, caching, type.
fn profile_disk(n: &Node<'_>) -> Result<AzDisk, TopologyError> {
    let mut d = AzDisk {
        at: Some(n.src()),
        lun: match n.get("lun") {
            Some(l) => l.whole()?.map(|x| fact(&l, x)),
            None => None,
        },
        name: text_fact(n, "name")?,
        size_gib: num_fact(n, &["diskSizeGB", "diskSizeGb"])?,
        caching: text_fact(n, "caching")?,
        write_accelerator: flag_fact(n, "writeAcceleratorEnabled")?,
        ..AzDisk::default()
    };
    if let Some(md) = n.get("managedDisk") {
        d.account_type = text_fact(&md, "storageAccountType")?;
        d.id = text_fact(&md, "id")?.map(|f| f.v);
    }
    Ok(d)
}

/// `az vm show`: `hardwareProfile.vmSize` and the storage profile (numbers are numbers).
pub(crate) fn az_vm(root: &Node<'_>) -> Result<VmFacts, TopologyError> {
    let mut vm = VmFacts { computer_name: computer_name(root)?, ..VmFacts::default() };
    if let Some(hw) = root.get("hardwareProfile") {
        vm.size = text_fact(&hw, "vmSize")?;
    }
    let Some(storage) = root.get("storageProfile") else {
        return Ok(vm);
    };
    if let Some(os) = storage.get("osDisk") {
        let mut d = profile_disk(&os)?;
        d.os = true;
        vm.os_type = text_fact(&os, "osType")?;
        vm.disks.push(d);
    }
    if let Some(data) = storage.get("dataDisks") {
        for n in data.items() {
            let mut d = profile_disk(&n)?;
            if d.lun.is_none() {
                return Err(n.error("a data disk without `lun`".to_owned(), None));
            }
            d.iops = num_fact(&n, &["diskIOPSReadWrite", "diskIopsReadWrite"])?;
            d.mbps = num_fact(&n, &["diskMBpsReadWrite", "diskMbpsReadWrite"])?;
            vm.disks.push(d);
        }
    }
    Ok(vm)
}

/// `az disk show` (one object) or `az disk list` (an array).
pub(crate) fn az_disks(root: &Node<'_>) -> Result<Vec<AzDisk>, TopologyError> {
    let mut out = Vec::new();
    for n in root.items() {
        if !n.v.is_object() {
            return Err(n.error("expected a disk object".to_owned(), None));
        }
        let account_type = match n.get("sku") {
            Some(s) => text_fact(&s, "name")?,
            None => None,
        };
        out.push(AzDisk {
            at: Some(n.src()),
            os: n.get("osType").is_some(),
            name: text_fact(&n, "name")?,
            id: text_fact(&n, "id")?.map(|f| f.v),
            size_gib: num_fact(&n, &["diskSizeGB", "diskSizeGb"])?,
            account_type,
            iops: num_fact(&n, &["diskIOPSReadWrite", "diskIopsReadWrite"])?,
            mbps: num_fact(&n, &["diskMBpsReadWrite", "diskMbpsReadWrite"])?,
            tier: text_fact(&n, "tier")?,
            bursting: flag_fact(&n, "burstingEnabled")?,
            managed_by: text_fact(&n, "managedBy")?.map(|f| f.v),
            ..AzDisk::default()
        });
    }
    Ok(out)
}
