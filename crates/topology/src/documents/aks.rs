//! Kubernetes' documents of an AKS cluster: `kubectl get pv,pvc,storageclass,nodes,
//! volumeattachment -o json` (one `List` of mixed kinds, a typed list such as
//! `PersistentVolumeList`, or one object). Shapes: see
//! fixtures/topologies/documents/PROVENANCE.md.
//!
//! A PersistentVolume of the Azure Disk CSI driver (`disk.csi.azure.com`) names its disk by
//! resource id (`spec.csi.volumeHandle`) and carries the StorageClass parameters it was made
//! with (`spec.csi.volumeAttributes`); the StorageClass gives what the volume does not; a
//! Node gives the VM size (`node.kubernetes.io/instance-type`) and the OS disk's type
//! (AKS' `kubernetes.azure.com/storagetier` label); a VolumeAttachment says which node a
//! volume is attached to and, in `status.attachmentMetadata.LUN`, at which LUN: the join
//! to the guest's devices, as for any data disk. Everything is read into the facts Azure's
//! own documents give (a VM and its disks), so the merge treats them alike.

use serde_json::Value;

use crate::error::TopologyError;
use crate::topology::TopologyWarning;

use super::Facts;
use super::azure::{AzDisk, Fact, VmFacts};
use super::node::{Node, Src};

/// The object kinds read; a `List` may hold any of them (others are skipped).
const KINDS: [&str; 5] =
    ["PersistentVolume", "PersistentVolumeClaim", "StorageClass", "Node", "VolumeAttachment"];

/// The Azure Disk CSI driver, and the in-tree plugin it replaced (migrated to it).
const CSI_DRIVER: &str = "disk.csi.azure.com";
const IN_TREE: &str = "kubernetes.io/azure-disk";

const GIB: f64 = 1_073_741_824.0;

/// A Kubernetes object or list of the kinds read here: `apiVersion` and `kind`.
pub(crate) fn is_kubernetes(v: &Value) -> bool {
    let Some(kind) = v.get("kind").and_then(Value::as_str) else {
        return false;
    };
    v.get("apiVersion").is_some_and(Value::is_string)
        && (kind == "List"
            || KINDS.iter().any(|k| kind == *k || kind.strip_suffix("List") == Some(*k)))
}

/// Parameters (a StorageClass' `parameters`, a CSI volume's `volumeAttributes`): the
/// driver reads their names case-insensitively.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Params(Vec<(String, Fact<String>)>);

impl Params {
    fn read(n: Option<Node<'_>>) -> Result<Self, TopologyError> {
        let Some(n) = n else { return Ok(Self::default()) };
        let Value::Object(map) = n.v else {
            return Err(n.error("expected an object of parameters".to_owned(), None));
        };
        let mut out = Vec::new();
        for k in map.keys() {
            if let Some(v) = n.get(k) {
                out.push((k.to_ascii_lowercase(), Fact { v: v.text()?, src: v.src() }));
            }
        }
        Ok(Self(out))
    }

    fn get(&self, names: &[&str]) -> Option<&Fact<String>> {
        names.iter().find_map(|n| self.0.iter().find(|(k, _)| k == n).map(|(_, f)| f))
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Pv {
    name: String,
    at: Src,
    /// `disk.csi.azure.com`, or another driver (Azure Files, ...), or the in-tree plugin.
    driver: String,
    /// The disk's resource id (`volumeHandle`, or the in-tree `diskURI`).
    handle: Option<Fact<String>>,
    /// The in-tree `diskName`.
    disk_name: Option<Fact<String>>,
    capacity_gib: Option<Fact<f64>>,
    class: Option<String>,
    /// `namespace/name` of the bound claim.
    claim: Option<String>,
    attrs: Params,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Pvc {
    /// `namespace/name`.
    id: String,
    volume: Option<String>,
    capacity_gib: Option<Fact<f64>>,
    requested_gib: Option<Fact<f64>>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Class {
    name: String,
    at: Src,
    provisioner: String,
    params: Params,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct KubeNode {
    name: Fact<String>,
    size: Option<Fact<String>>,
    os: Option<Fact<String>>,
    /// AKS' `kubernetes.azure.com/storageprofile` (`managed`, `ephemeral`) and
    /// `storagetier` (the OS disk's storage account type).
    storage_profile: Option<Fact<String>>,
    storage_tier: Option<Fact<String>>,
    /// `status.volumesAttached[].name`: `kubernetes.io/csi/<driver>^<volume handle>`.
    attached: Vec<Fact<String>>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Attachment {
    at: Src,
    attacher: String,
    node: String,
    pv: Option<String>,
    attached: bool,
    lun: Option<Fact<u32>>,
}

/// One document's Kubernetes objects.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct KubeDoc {
    pvs: Vec<Pv>,
    pvcs: Vec<Pvc>,
    classes: Vec<Class>,
    nodes: Vec<KubeNode>,
    attachments: Vec<Attachment>,
}

fn text_of(n: &Node<'_>, path: &[&str]) -> Result<Option<Fact<String>>, TopologyError> {
    let mut at = n.clone();
    for k in path {
        match at.get(k) {
            Some(x) => at = x,
            None => return Ok(None),
        }
    }
    let t = at.text()?;
    Ok((!t.is_empty()).then(|| Fact { v: t, src: at.src() }))
}

fn name_of(n: &Node<'_>) -> Result<Fact<String>, TopologyError> {
    text_of(n, &["metadata", "name"])?
        .ok_or_else(|| n.error("an object without `metadata.name`".to_owned(), None))
}

/// A Kubernetes quantity (`10Gi`, `1Ti`, `500G`, `1e9`, `1073741824`) in bytes.
fn quantity(n: &Node<'_>) -> Result<Option<Fact<f64>>, TopologyError> {
    let t = n.text()?;
    if t.is_empty() {
        return Ok(None);
    }
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '+')).unwrap_or(t.len());
    let (digits, suffix) = t.split_at(split);
    let factor = match suffix {
        "" => Some(1.0),
        "Ki" => Some(1024.0),
        "Mi" => Some(1024f64.powi(2)),
        "Gi" => Some(1024f64.powi(3)),
        "Ti" => Some(1024f64.powi(4)),
        "Pi" => Some(1024f64.powi(5)),
        "Ei" => Some(1024f64.powi(6)),
        "m" => Some(1e-3),
        "k" => Some(1e3),
        "M" => Some(1e6),
        "G" => Some(1e9),
        "T" => Some(1e12),
        "P" => Some(1e15),
        "E" => Some(1e18),
        s => s
            .strip_prefix(['e', 'E'])
            .and_then(|x| x.parse::<i32>().ok())
            .filter(|x| (-30..=30).contains(x))
            .map(|x| 10f64.powi(x)),
    };
    match (digits.parse::<f64>(), factor) {
        (Ok(x), Some(f)) if (x * f).is_finite() => Ok(Some(Fact { v: x * f, src: n.src() })),
        _ => Err(n.error(
            format!("expected a storage quantity such as 10Gi or 500G, found {}", n.v),
            Some("a Kubernetes quantity: digits and one suffix of Ki Mi Gi Ti Pi Ei k M G T P E"),
        )),
    }
}

/// A quantity in GiB, whole GiB up: the driver makes a disk of whole GiB that holds it.
fn gib(n: Option<Node<'_>>) -> Result<Option<Fact<f64>>, TopologyError> {
    let Some(n) = n else { return Ok(None) };
    Ok(quantity(&n)?.map(|f| Fact { v: (f.v / GIB).ceil(), src: f.src }))
}

fn at_path<'a>(n: &Node<'a>, path: &[&str]) -> Option<Node<'a>> {
    let mut at = n.clone();
    for k in path {
        at = at.get(k)?;
    }
    Some(at)
}

/// Reads one document: a `List` (items of any kind; kinds not read are skipped), a typed
/// list (`PersistentVolumeList`, items without `kind`), or one object.
pub(crate) fn read(root: &Node<'_>) -> Result<KubeDoc, TopologyError> {
    let kind = root.get("kind").map(|k| k.text()).transpose()?.unwrap_or_default();
    let mut doc = KubeDoc::default();
    let (items, implied) = if kind.ends_with("List") {
        let items = root.get("items").map(|i| i.items()).unwrap_or_default();
        (items, kind.strip_suffix("List").unwrap_or("").to_owned())
    } else {
        (vec![root.clone()], kind.clone())
    };
    let mut skipped = Vec::new();
    for item in &items {
        if !item.v.is_object() {
            return Err(item.error("expected a Kubernetes object".to_owned(), None));
        }
        let k = match item.get("kind") {
            Some(k) => k.text()?,
            None => implied.clone(),
        };
        match k.as_str() {
            "PersistentVolume" => doc.pvs.push(pv(item)?),
            "PersistentVolumeClaim" => doc.pvcs.push(pvc(item)?),
            "StorageClass" => doc.classes.push(class(item)?),
            "Node" => doc.nodes.push(node(item)?),
            "VolumeAttachment" => doc.attachments.push(attachment(item)?),
            other => skipped.push(other.to_owned()),
        }
    }
    if !items.is_empty() && skipped.len() == items.len() {
        skipped.sort();
        skipped.dedup();
        return Err(root.key_error(
            "items",
            format!(
                "a Kubernetes list of {}: none of the kinds a topology is read from",
                skipped.join(", ")
            ),
            Some("kubectl get pv,pvc,storageclass,nodes,volumeattachment -o json"),
        ));
    }
    Ok(doc)
}

fn pv(n: &Node<'_>) -> Result<Pv, TopologyError> {
    let name = name_of(n)?;
    let spec = n.get("spec");
    let csi = spec.as_ref().and_then(|s| s.get("csi"));
    let in_tree = spec.as_ref().and_then(|s| s.get("azureDisk"));
    let (driver, handle, disk_name, attrs) = match (&csi, &in_tree) {
        (Some(c), _) => (
            text_of(c, &["driver"])?.map(|f| f.v).unwrap_or_default(),
            text_of(c, &["volumeHandle"])?,
            None,
            Params::read(c.get("volumeAttributes"))?,
        ),
        (None, Some(a)) => {
            let mut attrs = Vec::new();
            for (key, json) in [("cachingmode", "cachingMode"), ("kind", "kind")] {
                if let Some(f) = text_of(a, &[json])? {
                    attrs.push((key.to_owned(), f));
                }
            }
            (
                IN_TREE.to_owned(),
                text_of(a, &["diskURI"])?,
                text_of(a, &["diskName"])?,
                Params(attrs),
            )
        }
        (None, None) => (String::new(), None, None, Params::default()),
    };
    let claim = match spec.as_ref().and_then(|s| s.get("claimRef")) {
        Some(c) => {
            let ns = text_of(&c, &["namespace"])?.map(|f| f.v).unwrap_or_default();
            text_of(&c, &["name"])?.map(|f| format!("{ns}/{}", f.v))
        }
        None => None,
    };
    Ok(Pv {
        name: name.v,
        at: n.src(),
        driver,
        handle,
        disk_name,
        capacity_gib: gib(spec.as_ref().and_then(|s| at_path(s, &["capacity", "storage"])))?,
        class: match &spec {
            Some(s) => text_of(s, &["storageClassName"])?.map(|f| f.v),
            None => None,
        },
        claim,
        attrs,
    })
}

fn pvc(n: &Node<'_>) -> Result<Pvc, TopologyError> {
    let name = name_of(n)?;
    let ns = text_of(n, &["metadata", "namespace"])?.map(|f| f.v).unwrap_or_default();
    Ok(Pvc {
        id: format!("{ns}/{}", name.v),
        volume: text_of(n, &["spec", "volumeName"])?.map(|f| f.v),
        capacity_gib: gib(at_path(n, &["status", "capacity", "storage"]))?,
        requested_gib: gib(at_path(n, &["spec", "resources", "requests", "storage"]))?,
    })
}

fn class(n: &Node<'_>) -> Result<Class, TopologyError> {
    Ok(Class {
        name: name_of(n)?.v,
        at: n.src(),
        provisioner: text_of(n, &["provisioner"])?.map(|f| f.v).unwrap_or_default(),
        params: Params::read(n.get("parameters"))?,
    })
}

fn node(n: &Node<'_>) -> Result<KubeNode, TopologyError> {
    let labels = at_path(n, &["metadata", "labels"]);
    let label = |keys: &[&str]| -> Result<Option<Fact<String>>, TopologyError> {
        match &labels {
            Some(l) => {
                for k in keys {
                    if let Some(f) = text_of(l, &[k])? {
                        return Ok(Some(f));
                    }
                }
                Ok(None)
            }
            None => Ok(None),
        }
    };
    let mut attached = Vec::new();
    if let Some(list) = at_path(n, &["status", "volumesAttached"]) {
        for v in list.items() {
            if let Some(f) = text_of(&v, &["name"])? {
                attached.push(f);
            }
        }
    }
    let os = match text_of(n, &["status", "nodeInfo", "operatingSystem"])? {
        Some(f) => Some(f),
        None => label(&["kubernetes.io/os", "beta.kubernetes.io/os"])?,
    };
    Ok(KubeNode {
        name: name_of(n)?,
        size: label(&["node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type"])?,
        os,
        storage_profile: label(&["kubernetes.azure.com/storageprofile", "storageprofile"])?,
        storage_tier: label(&["kubernetes.azure.com/storagetier", "storagetier"])?,
        attached,
    })
}

fn attachment(n: &Node<'_>) -> Result<Attachment, TopologyError> {
    let lun = match at_path(n, &["status", "attachmentMetadata"]) {
        Some(meta) => match meta.get("LUN").or_else(|| meta.get("lun")) {
            Some(l) => l.whole()?.map(|x| Fact { v: x, src: l.src() }),
            None => None,
        },
        None => None,
    };
    let attached = match at_path(n, &["status", "attached"]) {
        Some(a) => a.flag()?.unwrap_or(false),
        None => false,
    };
    Ok(Attachment {
        at: n.src(),
        attacher: text_of(n, &["spec", "attacher"])?.map(|f| f.v).unwrap_or_default(),
        node: text_of(n, &["spec", "nodeName"])?.map(|f| f.v).unwrap_or_default(),
        pv: text_of(n, &["spec", "source", "persistentVolumeName"])?.map(|f| f.v),
        attached,
        lun,
    })
}

fn note(code: &'static str, subject: &str, message: String, fix: &str) -> TopologyWarning {
    TopologyWarning { code, subject: subject.to_owned(), message, fix: fix.to_owned() }
}

/// `persistent volume a is` / `persistent volumes a, b are`.
fn volumes(names: &[String]) -> String {
    match names {
        [one] => format!("persistent volume {one} is"),
        _ => format!("persistent volumes {} are", names.join(", ")),
    }
}

/// The last segment of a disk's resource id: its name.
fn disk_name(id: &str) -> &str {
    id.trim_end_matches('/').rsplit('/').next().unwrap_or(id)
}

fn eq(a: &str, b: &str) -> bool {
    a.eq_ignore_ascii_case(b)
}

/// A value the driver takes by default, sourced to where the setting was looked for.
fn assumed(v: &str, at: &Src, what: &str) -> Fact<String> {
    Fact {
        v: v.to_owned(),
        src: Src {
            file: at.file.clone(),
            path: format!("{} (no {what}: the Azure Disk CSI driver's default {v})", at.path),
        },
    }
}

/// The Kubernetes documents' facts as a VM and its disks, for the merge: the node the
/// captures come from, its OS disk and the Azure Disk volumes attached to it. `hosts` are
/// the host names the VM documents give (IMDS `osProfile.computerName`), which pick the
/// node among several; `vm_disks` the disks the VM documents list, which give a volume's
/// LUN by its name when no VolumeAttachment does.
pub(crate) fn resolve(all: &[Facts]) -> (Vec<Facts>, Vec<TopologyWarning>) {
    let mut notes = Vec::new();
    let docs: Vec<&KubeDoc> =
        all.iter().filter_map(|f| if let Facts::Kube(k) = f { Some(k) } else { None }).collect();
    if docs.is_empty() {
        return (Vec::new(), notes);
    }
    let mut hosts = Vec::new();
    let mut vm_disks: Vec<&AzDisk> = Vec::new();
    for f in all {
        if let Facts::Vm(v) = f {
            hosts.extend(v.computer_name.iter().cloned());
            vm_disks.extend(v.disks.iter());
        }
    }
    // The same object in two documents (pv.json and the combined list) counts once.
    let mut pvs: Vec<&Pv> = Vec::new();
    let mut pvcs: Vec<&Pvc> = Vec::new();
    let mut classes: Vec<&Class> = Vec::new();
    let mut nodes: Vec<&KubeNode> = Vec::new();
    let mut attachments: Vec<&Attachment> = Vec::new();
    for d in &docs {
        for p in &d.pvs {
            if !pvs.iter().any(|e| e.name == p.name) {
                pvs.push(p);
            }
        }
        for p in &d.pvcs {
            if !pvcs.iter().any(|e| e.id == p.id) {
                pvcs.push(p);
            }
        }
        for c in &d.classes {
            if !classes.iter().any(|e| e.name == c.name) {
                classes.push(c);
            }
        }
        for n in &d.nodes {
            if !nodes.iter().any(|e| e.name.v == n.name.v) {
                nodes.push(n);
            }
        }
        attachments.extend(d.attachments.iter());
    }
    // The node the captures come from.
    let by_host = nodes.iter().find(|n| hosts.iter().any(|h| eq(h, &n.name.v))).copied();
    let chosen = match (nodes.as_slice(), by_host) {
        (_, Some(n)) => Some(n),
        ([one], None) => Some(*one),
        _ => None,
    };
    let on_azure_disk = |a: &&&Attachment| a.attached && (eq(&a.attacher, CSI_DRIVER));
    let node_name: Option<String> = match chosen {
        Some(n) => Some(n.name.v.clone()),
        None if nodes.is_empty() => hosts.first().cloned().or_else(|| {
            let mut names: Vec<&str> =
                attachments.iter().filter(on_azure_disk).map(|a| a.node.as_str()).collect();
            names.sort_unstable();
            names.dedup();
            match names[..] {
                [one] => Some(one.to_owned()),
                _ => None,
            }
        }),
        None => None,
    };
    if chosen.is_none() && nodes.len() > 1 {
        let names: Vec<&str> = nodes.iter().map(|n| n.name.v.as_str()).collect();
        notes.push(note(
            "aks-node-unknown",
            "vm",
            format!(
                "the documents list {} nodes ({}) and none says which one the captures come from: no VM size or volume is taken from them",
                nodes.len(),
                names.join(", ")
            ),
            "give the node's own document (kubectl get node NAME -o json) or the collector's imds.json from the node",
        ));
    }
    let mut vm = VmFacts::default();
    if let Some(n) = chosen {
        vm.size = n.size.clone();
        vm.os_type = n.os.clone();
        os_disk(n, &mut vm, &mut notes);
    }
    let mut loose = Vec::new();
    let mut elsewhere = Vec::new();
    let mut other_drivers = Vec::new();
    for p in &pvs {
        if !(eq(&p.driver, CSI_DRIVER) || p.driver == IN_TREE) {
            other_drivers.push(format!(
                "{} ({})",
                p.name,
                if p.driver.is_empty() { "no CSI driver" } else { p.driver.as_str() }
            ));
            continue;
        }
        let Some(handle) = &p.handle else {
            notes.push(note(
                "volume-not-joined",
                &p.name,
                format!("persistent volume {} ({}) names no disk (no volumeHandle)", p.name, p.at),
                "nothing to do if it is not on this node",
            ));
            continue;
        };
        let Some(node) = &node_name else {
            elsewhere.push(p.name.clone());
            continue;
        };
        let va = attachments.iter().find(|a| {
            on_azure_disk(a) && a.pv.as_deref() == Some(p.name.as_str()) && eq(&a.node, node)
        });
        let by_status = chosen.and_then(|n| {
            n.attached.iter().find(|f| {
                f.v.rsplit_once('^').is_some_and(|(_, h)| eq(h, &handle.v))
                    || eq(disk_name(&f.v), disk_name(&handle.v))
            })
        });
        if va.is_none() && by_status.is_none() {
            elsewhere.push(p.name.clone());
            continue;
        }
        let mut d = disk_of(p, handle, &pvcs, &classes, &mut notes);
        d.lun = va.and_then(|a| a.lun.clone());
        let label = p.claim.as_ref().map_or_else(
            || format!("persistent volume {}", p.name),
            |c| format!("persistent volume {} (claim {c})", p.name),
        );
        if d.lun.is_some() {
            vm.disks.push(d);
            continue;
        }
        let in_vm = vm_disks.iter().any(|e| {
            e.id.as_deref().is_some_and(|i| eq(i, &handle.v))
                || e.name.as_ref().is_some_and(|n| eq(&n.v, disk_name(&handle.v)))
        });
        if in_vm {
            loose.push(d);
        } else {
            let at = va.map(|a| a.at.to_string()).or(by_status.map(|f| f.src.to_string()));
            notes.push(note(
                "volume-not-joined",
                disk_name(&handle.v),
                format!(
                    "{label}, disk {}, is attached to node {node} ({}), but no VolumeAttachment gives its LUN (status.attachmentMetadata.LUN) and no VM document lists the disk: no capture device can be matched to it",
                    disk_name(&handle.v),
                    at.unwrap_or_default()
                ),
                "add kubectl get volumeattachment -o json, or the collector's imds.json from the node",
            ));
        }
    }
    if !elsewhere.is_empty() {
        notes.push(note(
            "volume-elsewhere",
            "vm",
            format!(
                "{} not attached to {}: left out",
                volumes(&elsewhere),
                node_name.as_deref().map_or_else(
                    || "a node the documents pick".to_owned(),
                    |n| format!("node {n}")
                )
            ),
            "nothing to do if they belong to other nodes",
        ));
    }
    if !other_drivers.is_empty() {
        notes.push(note(
            "volume-not-disk",
            "vm",
            format!(
                "{} not on Azure Disks ({CSI_DRIVER}): not disks of the VM",
                volumes(&other_drivers)
            ),
            "nothing to do: Azure Files and other network volumes have no disk caps on the VM",
        ));
    }
    let mut out = Vec::new();
    if vm.size.is_some() || vm.os_type.is_some() || !vm.disks.is_empty() {
        out.push(Facts::Vm(vm));
    }
    if !loose.is_empty() {
        out.push(Facts::Disks(loose));
    }
    (out, notes)
}

/// The node's OS disk as its labels say (AKS' reserved `storageprofile`/`storagetier`).
fn os_disk(n: &KubeNode, vm: &mut VmFacts, notes: &mut Vec<TopologyWarning>) {
    match (&n.storage_profile, &n.storage_tier) {
        (Some(p), _) if eq(&p.v, "ephemeral") => notes.push(note(
            "ephemeral-os-disk",
            "os",
            format!(
                "node {}'s OS disk is ephemeral ({}): it sits on the VM's local storage, not on a managed disk, so no disk SKU applies to it",
                n.name.v, p.src
            ),
            "nothing to do",
        )),
        (_, Some(t)) => vm.disks.push(AzDisk {
            os: true,
            at: Some(t.src.clone()),
            account_type: Some(t.clone()),
            ..AzDisk::default()
        }),
        _ => {}
    }
}

/// A volume's disk: its name and id, the size of the volume (or its claim), and the SKU,
/// caching and provisioned figures of its attributes, else of its StorageClass, else the
/// driver's defaults.
fn disk_of(
    p: &Pv,
    handle: &Fact<String>,
    pvcs: &[&Pvc],
    classes: &[&Class],
    notes: &mut Vec<TopologyWarning>,
) -> AzDisk {
    let name = match &p.disk_name {
        Some(n) => n.clone(),
        None => Fact { v: disk_name(&handle.v).to_owned(), src: handle.src.clone() },
    };
    let claim = pvcs.iter().find(|c| {
        p.claim.as_deref() == Some(c.id.as_str()) || c.volume.as_deref() == Some(p.name.as_str())
    });
    let size = p
        .capacity_gib
        .clone()
        .or_else(|| claim.and_then(|c| c.capacity_gib.clone().or_else(|| c.requested_gib.clone())));
    let class = p
        .class
        .as_deref()
        .and_then(|c| classes.iter().find(|k| k.name == c))
        .filter(|c| eq(&c.provisioner, CSI_DRIVER) || c.provisioner == IN_TREE);
    let pick = |names: &[&str]| -> Option<Fact<String>> {
        p.attrs.get(names).or_else(|| class.and_then(|c| c.params.get(names))).cloned()
    };
    let at_attrs = Src { file: handle.src.file.clone(), path: p.at.path.clone() };
    // The CSI driver's defaults; the in-tree plugin's were others, so they are not assumed.
    let csi = eq(&p.driver, CSI_DRIVER);
    let sku = pick(&["skuname", "storageaccounttype"]).or_else(|| {
        class
            .filter(|c| csi && eq(&c.provisioner, CSI_DRIVER))
            .map(|c| assumed("StandardSSD_LRS", &c.at, "skuName"))
    });
    let v2_or_ultra = sku.as_ref().is_some_and(|s| {
        let t = s.v.to_ascii_lowercase();
        t.starts_with("premiumv2") || t.starts_with("ultrassd")
    });
    let caching = pick(&["cachingmode"])
        .map(|c| {
            let canon = ["None", "ReadOnly", "ReadWrite"].into_iter().find(|k| eq(k, &c.v));
            Fact { v: canon.map_or(c.v.clone(), str::to_owned), src: c.src }
        })
        .or_else(|| {
            let default = if v2_or_ultra { "None" } else { "ReadOnly" };
            csi.then(|| assumed(default, &at_attrs, "cachingMode"))
        });
    let number = |names: &[&str]| {
        pick(names).and_then(|f| f.v.trim().parse::<f64>().ok().map(|x| Fact { v: x, src: f.src }))
    };
    let ultra = sku.as_ref().is_some_and(|s| s.v.to_ascii_lowercase().starts_with("ultrassd"));
    let mut iops = number(&["diskiopsreadwrite"]);
    let mut mbps = number(&["diskmbpsreadwrite"]);
    if ultra
        && csi
        && let Some(c) = class
    {
        // The driver's documented defaults for an Ultra disk it creates.
        let default = |v: f64, what: &str| Fact {
            v,
            src: Src {
                file: c.at.file.clone(),
                path: format!("{} (no {what}: the driver's default for UltraSSD)", c.at.path),
            },
        };
        iops = iops.or_else(|| Some(default(500.0, "DiskIOPSReadWrite")));
        mbps = mbps.or_else(|| Some(default(100.0, "DiskMBpsReadWrite")));
    }
    let flag = |names: &[&str]| {
        pick(names).and_then(|f| {
            let v = f.v.trim().to_ascii_lowercase();
            (v == "true" || v == "false").then(|| Fact { v: v == "true", src: f.src })
        })
    };
    if let Some(pp) = pick(&["perfprofile"])
        && !eq(&pp.v, "none")
    {
        notes.push(note(
            "perf-profile",
            &name.v,
            format!(
                "{} asks the CSI driver's perfProfile {} ({}): the driver tunes the block device's settings in the guest itself; the disk's caps are the same",
                p.name, pp.v, pp.src
            ),
            "nothing to do; compare the device's settings (/sys/block/DEV/queue) when latency differs from another node's",
        ));
    }
    AzDisk {
        at: Some(p.at.clone()),
        name: Some(name),
        id: Some(handle.v.clone()),
        size_gib: size,
        account_type: sku,
        caching,
        iops,
        mbps,
        write_accelerator: flag(&["writeacceleratorenabled"]),
        bursting: flag(&["enablebursting"]),
        ..AzDisk::default()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::float_cmp)]

    use super::*;

    fn bytes(q: &str) -> Result<Option<f64>, String> {
        let v = Value::String(q.to_owned());
        let n = Node::root("q.json", "", &v);
        quantity(&n).map(|f| f.map(|f| f.v)).map_err(|e| e.to_string())
    }

    #[test]
    fn quantities_read_as_kubernetes_writes_them() {
        assert_eq!(bytes("10Gi").unwrap(), Some(10.0 * GIB));
        assert_eq!(bytes("1.5Ti").unwrap(), Some(1.5 * 1024.0 * GIB));
        assert_eq!(bytes("500G").unwrap(), Some(500e9));
        assert_eq!(bytes("1e12").unwrap(), Some(1e12));
        assert_eq!(bytes("1073741824").unwrap(), Some(GIB));
        assert_eq!(bytes("").unwrap(), None);
        for bad in ["1 TB", "-5Gi", "Gi", "10Gb", "1e99999", "1.2.3Gi"] {
            assert!(bytes(bad).is_err(), "{bad}");
        }
        // 500 GB is 465.66 GiB: the driver's disk holds it in 466.
        let v = Value::String("500G".to_owned());
        assert_eq!(gib(Some(Node::root("q.json", "", &v))).unwrap().unwrap().v, 466.0);
    }

    #[test]
    fn only_the_kinds_read_here_are_kubernetes_documents() {
        let is = |s: &str| is_kubernetes(&serde_json::from_str(s).unwrap());
        assert!(is(r#"{"apiVersion": "v1", "kind": "List", "items": []}"#));
        assert!(is(r#"{"apiVersion": "storage.k8s.io/v1", "kind": "VolumeAttachmentList"}"#));
        assert!(is(r#"{"apiVersion": "v1", "kind": "Node"}"#));
        assert!(!is(r#"{"apiVersion": "v1", "kind": "Pod"}"#));
        assert!(!is(r#"{"apiVersion": "apps/v1", "kind": "DeploymentList"}"#));
        assert!(!is(r#"{"kind": "Node"}"#));
    }
}
