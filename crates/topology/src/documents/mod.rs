//! Topology from the documents Azure and the guest already print, detected by content and
//! merged: the IMDS instance document, `az vm show`, `az disk list`/`show`, Linux `lsblk
//! -J` and `/dev/disk/azure` listings, Windows `Get-Disk`/`Get-PhysicalDisk` and
//! `Get-Partition`/`Get-Volume` JSON, and the contract's own TOML/JSON topology (which
//! wins where sources disagree).
//!
//! The merge produces the contract's TOML with a `# from <file>: <json path>` comment on
//! each fact ([`Merged::toml`]); the topology is that TOML parsed as any topology file is,
//! so `advisor topology` output fed back gives the same topology.

mod aks;
mod azure;
mod emit;
mod guest;
mod lsblk;
mod merge;
mod node;

use serde_json::Value;

use crate::catalog::Catalog;
use crate::error::{ErrorKind, Snippet, TopologyError};
use crate::spec::{self, SourceFormat};
use crate::topology::{Topology, TopologyWarning};

pub(crate) use node::Node;

/// What kind of document a file is, as detected from its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocumentKind {
    /// The contract's topology file (TOML, or JSON of the same shape).
    Contract,
    /// `GET /metadata/instance` (whole, or its `compute` part).
    Imds,
    /// `az vm show`.
    AzVm,
    /// `az disk show` (one disk) or `az disk list` (an array).
    AzDisk,
    /// `lsblk -J`, any columns (best `-o NAME,HCTL,SIZE,TYPE,MODEL,MOUNTPOINT`).
    Lsblk,
    /// `ls -lR /dev/disk/azure`, or `ls -l /dev/disk/azure/scsi1/`.
    AzureScsiLinks,
    /// `Get-Disk | ConvertTo-Json` or `Get-PhysicalDisk | ConvertTo-Json`.
    WindowsDisks,
    /// `Get-Partition | ConvertTo-Json` (drive letters by disk number).
    WindowsPartitions,
    /// `Get-Volume | ConvertTo-Json` (drive letters without disk numbers).
    WindowsVolumes,
    /// `kubectl get pv,pvc,storageclass,nodes,volumeattachment -o json` (a `List`, a typed
    /// list or one object): an AKS node's VM size and its Azure Disk volumes.
    Kubernetes,
}

impl DocumentKind {
    pub fn label(self) -> &'static str {
        match self {
            Self::Contract => "topology file",
            Self::Imds => "IMDS instance document",
            Self::AzVm => "az vm show",
            Self::AzDisk => "az disk list/show",
            Self::Lsblk => "lsblk -J",
            Self::AzureScsiLinks => "ls -l /dev/disk/azure",
            Self::WindowsDisks => "Get-Disk/Get-PhysicalDisk JSON",
            Self::WindowsPartitions => "Get-Partition JSON",
            Self::WindowsVolumes => "Get-Volume JSON",
            Self::Kubernetes => "kubectl get pv/pvc/storageclass/nodes -o json",
        }
    }
}

/// The kinds a document can be, for the error on one that is none of them.
const KINDS_HELP: &str = "give the contract's topology (TOML/JSON), the IMDS instance \
document (curl -H Metadata:true \"http://169.254.169.254/metadata/instance?api-version=2021-02-01\"), \
`az vm show`, `az disk list`, `lsblk -J -o NAME,HCTL,SIZE,TYPE,MODEL,MOUNTPOINT`, \
`ls -lR /dev/disk/azure`, `Get-Disk`/`Get-Partition | ConvertTo-Json`, or (AKS) \
`kubectl get pv,pvc,storageclass,nodes,volumeattachment -o json`";

/// The merged topology of several documents: the contract TOML (with a source comment on
/// each fact) and the notes the merge has for the report.
#[derive(Debug, Clone, PartialEq)]
pub struct Merged {
    /// The documents' names joined, for the report.
    pub origin: String,
    /// Each document with its detected kind.
    pub kinds: Vec<(String, DocumentKind)>,
    /// The contract TOML, ready to edit and pass again.
    pub toml: String,
    /// Overridden facts, assumed device names, disks no source explains.
    pub notes: Vec<TopologyWarning>,
    /// Each fact and where it came from: (`disk E:.sku`, `imds.json: $.compute...`).
    pub sources: Vec<(String, String)>,
}

/// The detected kind of one document; a bad document is a located error.
pub fn detect_kind(name: &str, text: &str) -> Result<DocumentKind, TopologyError> {
    Ok(classify(name, text)?.0)
}

/// A document read: its kind, and its JSON when it is JSON.
pub(crate) struct Classified {
    pub(crate) value: Option<Value>,
}

fn classify(name: &str, text: &str) -> Result<(DocumentKind, Classified), TopologyError> {
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    if trimmed.is_empty() {
        return Err(invalid(name, "the document is empty", Some(KINDS_HELP)));
    }
    if trimmed.starts_with('<') {
        return Err(invalid(
            name,
            "this is an HTML/XML page, not a topology document (an error page from the \
             metadata service or a proxy?)",
            Some(
                "query IMDS from inside the VM with the header `Metadata: true` and no proxy; \
                 save the JSON it answers",
            ),
        ));
    }
    if trimmed.starts_with('{') || (trimmed.starts_with('[') && !toml_header(trimmed)) {
        let value: Value = match serde_json::from_str(trimmed) {
            Ok(v) => v,
            Err(e) => {
                // The contract's JSON keeps its own located errors.
                if looks_like_contract_text(trimmed) {
                    return Ok((DocumentKind::Contract, Classified { value: None }));
                }
                return Err(json_syntax(name, text, &e));
            }
        };
        let kind = json_kind(name, text, &value)?;
        return Ok((kind, Classified { value: Some(value) }));
    }
    if guest::is_scsi_listing(trimmed) {
        return Ok((DocumentKind::AzureScsiLinks, Classified { value: None }));
    }
    Ok((DocumentKind::Contract, Classified { value: None }))
}

/// The text opens with a TOML table header (`[vm]`, `[[disk]]`), not a JSON array.
fn toml_header(t: &str) -> bool {
    let first = t.lines().next().unwrap_or("").split('#').next().unwrap_or("").trim();
    let inner = first.trim_start_matches('[').trim_end_matches(']').trim();
    first.ends_with(']')
        && !inner.is_empty()
        && inner.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ' '))
}

fn looks_like_contract_text(t: &str) -> bool {
    ["\"vm\"", "\"disk\"", "\"pool\""].iter().any(|k| t.contains(k))
}

/// The kind of a JSON document by its keys.
fn json_kind(name: &str, text: &str, v: &Value) -> Result<DocumentKind, TopologyError> {
    let root = Node::root(name, text, v);
    if let Some(err) = v.get("error") {
        let code = err.get("code").and_then(Value::as_str).unwrap_or("?");
        let message = err.get("message").and_then(Value::as_str).unwrap_or("");
        return Err(root.key_error(
            "error",
            format!("the document is an error answer, not a topology: {code}: {message}"),
            Some("run the command again (az login, the right subscription, the VM's name) and save its output"),
        ));
    }
    let obj_or_first = match v {
        Value::Array(a) => a.first(),
        other => Some(other),
    };
    let Some(first) = obj_or_first else {
        return Err(invalid(name, "the document is an empty JSON array", Some(KINDS_HELP)));
    };
    if aks::is_kubernetes(v) {
        return Ok(DocumentKind::Kubernetes);
    }
    let has = |k: &str| first.get(k).is_some();
    if v.is_object() && (has("vm") || has("disk") || has("pool")) {
        return Ok(DocumentKind::Contract);
    }
    if let Some(c) = first.get("compute")
        && (c.get("vmSize").is_some() || c.get("storageProfile").is_some())
    {
        return Ok(DocumentKind::Imds);
    }
    if has("vmSize") && (has("storageProfile") || has("osType") || has("vmId")) {
        return Ok(DocumentKind::Imds);
    }
    if first.get("hardwareProfile").is_some()
        || (has("storageProfile")
            && first
                .get("type")
                .and_then(Value::as_str)
                .is_some_and(|t| t.eq_ignore_ascii_case("Microsoft.Compute/virtualMachines")))
    {
        return Ok(DocumentKind::AzVm);
    }
    if has("diskSizeGB")
        || has("diskSizeGb")
        || first
            .get("type")
            .and_then(Value::as_str)
            .is_some_and(|t| t.eq_ignore_ascii_case("Microsoft.Compute/disks"))
    {
        return Ok(DocumentKind::AzDisk);
    }
    if has("blockdevices") {
        return Ok(DocumentKind::Lsblk);
    }
    if has("DiskNumber") && has("DriveLetter") {
        return Ok(DocumentKind::WindowsPartitions);
    }
    if (has("Number") || has("DeviceId"))
        && (has("Location") || has("PhysicalLocation") || has("FriendlyName"))
    {
        return Ok(DocumentKind::WindowsDisks);
    }
    if has("DriveLetter") {
        return Ok(DocumentKind::WindowsVolumes);
    }
    Err(invalid(
        name,
        "unknown kind of document: none of the keys a topology document has",
        Some(KINDS_HELP),
    ))
}

pub(crate) fn invalid(name: &str, message: &str, help: Option<&str>) -> TopologyError {
    TopologyError::new(
        name,
        ErrorKind::Invalid { message: message.to_owned(), help: help.map(str::to_owned) },
    )
}

fn json_syntax(name: &str, text: &str, e: &serde_json::Error) -> TopologyError {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let raw = full.strip_suffix(&suffix).unwrap_or(&full);
    let truncated = e.is_eof();
    let message = if truncated {
        format!("the JSON ends early ({raw}): is the file truncated?")
    } else {
        format!("invalid JSON: {raw}")
    };
    let help = truncated.then(|| "save the command's whole output again".to_owned());
    let err = TopologyError::new(name, ErrorKind::Syntax { message, help });
    if e.line() == 0 { err } else { err.at(Snippet::at_line_col(text, e.line(), e.column())) }
}

/// One document's facts.
pub(crate) enum Facts {
    Contract(Box<ContractDoc>),
    Vm(azure::VmFacts),
    Disks(Vec<azure::AzDisk>),
    Guest(guest::GuestFacts),
    /// Kubernetes' objects, joined across documents by [`aks::resolve`] before the merge.
    Kube(aks::KubeDoc),
}

/// The contract's file as parsed, with its name.
pub(crate) struct ContractDoc {
    pub(crate) file: String,
    pub(crate) spec: spec::FileSpec,
}

fn facts_of(name: &str, text: &str) -> Result<(DocumentKind, Facts), TopologyError> {
    let (kind, c) = classify(name, text)?;
    let root = c.value.as_ref().map(|v| Node::root(name, text, v));
    let facts = match (kind, root) {
        (DocumentKind::Imds, Some(r)) => Facts::Vm(azure::imds(&r)?),
        (DocumentKind::AzVm, Some(r)) => Facts::Vm(azure::az_vm(&r)?),
        (DocumentKind::AzDisk, Some(r)) => Facts::Disks(azure::az_disks(&r)?),
        (DocumentKind::Lsblk, Some(r)) => Facts::Guest(lsblk::lsblk(&r)?),
        (DocumentKind::WindowsDisks, Some(r)) => Facts::Guest(guest::windows_disks(&r)?),
        (DocumentKind::WindowsPartitions, Some(r)) => Facts::Guest(guest::partitions(&r)?),
        (DocumentKind::WindowsVolumes, Some(r)) => Facts::Guest(guest::volumes(&r)?),
        (DocumentKind::Kubernetes, Some(r)) => Facts::Kube(aks::read(&r)?),
        (DocumentKind::AzureScsiLinks, _) => Facts::Guest(guest::scsi_listing(name, text)?),
        _ => {
            let format = SourceFormat::detect(name, text);
            let parsed = spec::parse(name, text, format)?;
            Facts::Contract(Box::new(ContractDoc { file: name.to_owned(), spec: parsed.spec }))
        }
    };
    Ok((kind, facts))
}

/// Reads and merges documents (name, text), in order. The contract's files win over
/// Azure's documents.
pub fn merge_documents(
    docs: &[(String, String)],
    catalog: &Catalog,
) -> Result<Merged, TopologyError> {
    let mut kinds = Vec::new();
    let mut all = Vec::new();
    for (name, text) in docs {
        let (kind, facts) = facts_of(name, text)?;
        kinds.push((name.clone(), kind));
        all.push(facts);
    }
    let origin = docs.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(" + ");
    // Kubernetes' objects join across documents (a volume, its claim, its class, the
    // node): they become a VM and its disks, merged after the VM documents, which win.
    let (joined, notes) = aks::resolve(&all);
    all.extend(joined);
    let (toml, notes, sources) = merge::merge(&all, catalog, notes)?;
    Ok(Merged { origin, kinds, toml, notes, sources })
}

impl Topology {
    /// The topology of several documents of any kind [`detect_kind`] knows, merged. One
    /// contract file alone is read as [`Topology::parse`] reads it.
    pub fn from_documents(
        docs: &[(String, String)],
        catalog: &Catalog,
    ) -> Result<Topology, TopologyError> {
        if let [(name, text)] = docs
            && detect_kind(name, text)? == DocumentKind::Contract
        {
            return Topology::parse(name, text, catalog);
        }
        let merged = merge_documents(docs, catalog)?;
        // The merged text is ours: its errors name the documents, keep the message.
        let relabel = |e: TopologyError| TopologyError::new(merged.origin.clone(), e.kind);
        let parsed =
            spec::parse(&merged.origin, &merged.toml, SourceFormat::Toml).map_err(relabel)?;
        let mut t = crate::topology::resolve(&parsed, catalog).map_err(relabel)?;
        // The merge already said what the resolve says again of the size.
        t.warnings.retain(|w| {
            !(w.code.starts_with("vm-size-") && merged.notes.iter().any(|n| n.code == w.code))
        });
        t.warnings.splice(0..0, merged.notes);
        t.sources = merged.sources;
        Ok(t)
    }
}
