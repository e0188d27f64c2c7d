//! The topology from its sources, assembled in one place: a topology file (on disk, or its
//! text from an upload), a VM size (`--vm`, the form's size), and the upload form's temp
//! disk and disks table, which become a topology directly (no text in between).

use std::path::PathBuf;

use advisor_topology::{
    Catalog, DiskEntry, DocumentKind, ErrorKind, Merged, Topology, TopologyError, merge_documents,
};

use crate::session::EngineError;

/// Where the topology comes from. All empty: no topology.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TopologySources {
    /// Topology documents on disk (`--topology`, repeated): the contract's TOML/JSON, or
    /// Azure's and the guest's own documents (IMDS, `az vm show`, `az disk list`, lsblk,
    /// Get-Disk, ...), detected by content and merged.
    pub files: Vec<PathBuf>,
    /// Documents as (name to show, text): uploaded files or a bundle's documents; they go
    /// through the same detection as `files`.
    pub texts: Vec<(String, String)>,
    /// A VM size: alone, the VM's caps and no disks; with a file, it replaces the file's
    /// size; with the disks table, the table's VM.
    pub vm: Option<String>,
    /// The local temp disk's name in the captures (with `vm` and the disks table).
    pub temp_disk: Option<String>,
    /// The upload form's disks table, row by row as typed.
    pub disks: Vec<DiskRow>,
}

/// One row of the upload form's disks table, as typed; an empty cell is not given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DiskRow {
    pub name: String,
    pub sku: String,
    pub cache: String,
    pub role: String,
}

/// What the form's topology is called in errors and in the report.
const FORM: &str = "the upload form";

/// The rows with a name as topology entries, each with its label; a row without a name
/// must be blank.
fn entries(rows: &[DiskRow]) -> Result<(Vec<DiskEntry>, Vec<String>), EngineError> {
    let mut out = Vec::new();
    let mut labels = Vec::new();
    let given = |s: &str| (!s.is_empty()).then(|| s.to_owned());
    for (i, r) in rows.iter().enumerate() {
        if r.name.is_empty() {
            // The page's selects send their first choice on blank rows: only a SKU marks a
            // row as filled in.
            if !r.sku.is_empty() {
                return Err(EngineError::Form(format!(
                    "disks table, row {}: the disk has a SKU ({}) but no name; give the name \
                     the captures use (E:, sdc, ...)",
                    i + 1,
                    r.sku
                )));
            }
            continue;
        }
        out.push(DiskEntry {
            name: r.name.clone(),
            sku: given(&r.sku),
            cache: given(&r.cache),
            role: given(&r.role),
            lun: None,
        });
        labels.push(format!("disks table, row {}", i + 1));
    }
    Ok((out, labels))
}

/// Every topology document of the sources, (name, text), files first.
pub(crate) fn documents(s: &TopologySources) -> Result<Vec<(String, String)>, TopologyError> {
    let mut docs = Vec::with_capacity(s.files.len() + s.texts.len());
    for path in &s.files {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|e| TopologyError::new(name.clone(), ErrorKind::Io(e.to_string())))?;
        docs.push((name, text));
    }
    docs.extend(s.texts.iter().cloned());
    Ok(docs)
}

/// The documents of the sources merged as the contract's TOML (`advisor topology`), checked
/// as `--topology` would read them.
pub(crate) fn merged(s: &TopologySources, catalog: &Catalog) -> Result<Merged, EngineError> {
    let docs = documents(s)?;
    let merged = merge_documents(&docs, catalog)?;
    Topology::from_documents(&docs, catalog)?;
    Ok(merged)
}

pub(crate) fn assemble(
    s: &TopologySources,
    catalog: &Catalog,
) -> Result<Option<Topology>, EngineError> {
    let (disks, labels) = entries(&s.disks)?;
    let docs = documents(s)?;
    let file = if docs.is_empty() { None } else { Some(Topology::from_documents(&docs, catalog)?) };
    if let Some(mut t) = file {
        if !disks.is_empty() {
            return Err(EngineError::Form(
                "give either a topology file or the disks table, not both".to_owned(),
            ));
        }
        if let Some(size) = &s.vm {
            t.set_vm_size(size, catalog)?;
        }
        return Ok(Some(t));
    }
    let Some(size) = &s.vm else {
        if disks.is_empty() && s.temp_disk.is_none() {
            return Ok(None);
        }
        return Err(EngineError::Form(
            "the disks table needs the VM size: choose one from the catalog".to_owned(),
        ));
    };
    if disks.is_empty() && s.temp_disk.is_none() {
        return Ok(Some(Topology::from_vm_size(size, catalog)?));
    }
    let t = Topology::from_entries(FORM, size, s.temp_disk.as_deref(), &disks, &labels, catalog)?;
    Ok(Some(t))
}

/// Whether the topology reads a document (a bundle's file that is not a capture), and as
/// what; if not, why not, naming what the document is. The one place that says which
/// documents the topology knows: a bundle's other files are listed as ignored with the
/// reason instead of failing the run.
pub fn document_kind(name: &str, text: &str) -> Result<&'static str, String> {
    const KEYS: [&str; 3] = ["vm", "disk", "pool"];
    let t = text.trim_start_matches('\u{feff}').trim_start();
    let json: Option<serde_json::Value> = serde_json::from_str(t).ok();
    match advisor_topology::detect_kind(name, text) {
        // Every text that is not JSON or a scsi listing is taken for the contract's TOML by
        // the topology's detection; here it must also look like one, or a bundle's counter
        // list would fail the whole analysis as bad TOML.
        Ok(DocumentKind::Contract) => {
            let contract = match &json {
                Some(serde_json::Value::Object(o)) => KEYS.iter().any(|k| o.contains_key(*k)),
                Some(_) => false,
                None => t
                    .parse::<toml::Table>()
                    .is_ok_and(|tb| KEYS.iter().any(|k| tb.contains_key(*k))),
            };
            if contract {
                Ok(DocumentKind::Contract.label())
            } else {
                Err(unread(json.as_ref(), t))
            }
        }
        Ok(kind) => Ok(kind.label()),
        Err(_) => Err(unread(json.as_ref(), t)),
    }
}

/// The reason a bundle's document is not read, in a user's words.
fn unread(json: Option<&serde_json::Value>, text: &str) -> String {
    format!(
        "{}, which advisor's topology does not read; give the VM size with --vm or a topology \
         file with --topology",
        describe(json, text)
    )
}

/// What a document that is neither a capture nor a topology file is, in a user's words.
fn describe(json: Option<&serde_json::Value>, text: &str) -> &'static str {
    use serde_json::Value;
    let first = match json {
        Some(Value::Array(a)) => a.first(),
        v => v,
    };
    let has = |k: &str| first.and_then(|v| v.get(k)).is_some();
    if has("compute") || has("vmSize") && has("storageProfile") && has("azEnvironment") {
        "an Azure instance metadata (IMDS) document"
    } else if has("hardwareProfile") || has("storageProfile") {
        "az vm show JSON"
    } else if has("diskSizeGb") || has("diskSizeGB") || has("diskIopsReadWrite") {
        "az disk JSON"
    } else if has("blockdevices") {
        "lsblk JSON"
    } else if has("Number") && (has("Location") || has("PartitionStyle")) {
        "Get-Disk JSON"
    } else if has("DeviceId") && has("PhysicalLocation") {
        "Get-PhysicalDisk JSON"
    } else if has("DiskNumber") && has("PartitionNumber") {
        "Get-Partition JSON"
    } else if has("FileSystem") && has("SizeRemaining") {
        "Get-Volume JSON"
    } else if json.is_some() {
        "a JSON document of no kind advisor knows"
    } else if text.lines().any(|l| l.contains(" lun") && l.contains(" -> ")) {
        "a /dev/disk/azure listing"
    } else if text.lines().next().is_some_and(|l| l.starts_with('\\')) {
        "a PerfMon counter list"
    } else {
        "text of no kind advisor knows"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(rows: &[[&str; 4]]) -> Vec<DiskRow> {
        rows.iter()
            .map(|r| DiskRow {
                name: r[0].into(),
                sku: r[1].into(),
                cache: r[2].into(),
                role: r[3].into(),
            })
            .collect()
    }

    fn catalog() -> Catalog {
        let Ok(c) = Catalog::builtin() else { panic!("catalog") };
        c
    }

    #[test]
    fn the_form_makes_a_topology() {
        let s = TopologySources {
            vm: Some("Standard_DS13_v2".into()),
            temp_disk: Some("D:".into()),
            disks: table(&[
                ["C:", "P10", "ReadWrite", "os"],
                ["E:", "P30", "ReadOnly", "data"],
                ["", "", "None", "data"],
            ]),
            ..TopologySources::default()
        };
        let Ok(Some(t)) = assemble(&s, &catalog()) else { panic!("no topology") };
        assert_eq!(t.disks.len(), 2);
        assert_eq!(t.temp_disks(), vec!["D:"]);
        assert_eq!(t.origin, "the upload form");
    }

    #[test]
    fn half_rows_missing_sizes_and_bad_cells_are_refused() {
        let c = catalog();
        let err = |s: &TopologySources| match assemble(s, &c) {
            Err(e) => e.to_string(),
            Ok(_) => String::new(),
        };
        let s = TopologySources {
            vm: Some("Standard_DS13_v2".into()),
            disks: table(&[["", "P30", "None", "data"]]),
            ..TopologySources::default()
        };
        assert!(err(&s).starts_with("disks table, row 1: the disk has a SKU (P30) but no name"));
        let s = TopologySources {
            disks: table(&[["E:", "P30", "None", "data"]]),
            ..TopologySources::default()
        };
        assert!(err(&s).contains("needs the VM size"));
        let s = TopologySources {
            vm: Some("Standard_DS13_v2".into()),
            disks: table(&[["E:", "P30", "None", "data"], ["F:", "P30", "Sometimes", "data"]]),
            ..TopologySources::default()
        };
        assert!(
            err(&s).starts_with("disks table, row 2: invalid cache \"Sometimes\""),
            "{}",
            err(&s)
        );
        // A size the catalog lacks is kept, with the form's disks; only an empty one is
        // refused.
        let s = TopologySources {
            vm: Some("Standard_Nope".into()),
            disks: table(&[["E:", "P30", "ReadOnly", "data"]]),
            ..TopologySources::default()
        };
        let t = assemble(&s, &c).ok().flatten();
        assert_eq!(
            t.as_ref().and_then(|t| t.vm.as_ref()).map(|v| (v.size.name.as_str(), v.in_catalog)),
            Some(("Standard_Nope", false))
        );
        assert_eq!(
            t.as_ref().and_then(|t| t.disk("E:")).and_then(|d| d.sku.clone()).as_deref(),
            Some("P30")
        );
        let s = TopologySources { vm: Some(String::new()), ..TopologySources::default() };
        assert!(err(&s).contains("the VM size is empty"), "{}", err(&s));
        assert!(matches!(assemble(&TopologySources::default(), &c), Ok(None)));
    }
}
