//! A topology described field by field (the upload form's VM size, temp disk and disks
//! table) rather than written in a file: resolved against the catalog by the same code as
//! a file, with no text in between.

use crate::catalog::Catalog;
use crate::error::TopologyError;
use crate::spec::{DiskSpec, FileSpec, Parsed, SourceFormat, VmSpec};
use crate::topology::{Topology, resolve};

/// One disk as a form describes it. `None` is "not given" (the file's defaults apply:
/// role data, cache None, ReadWrite for the OS disk).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DiskEntry {
    /// The disk's name as the captures use it (`E:`, `sdc`, `disk2`).
    pub name: String,
    pub sku: Option<String>,
    pub cache: Option<String>,
    pub role: Option<String>,
    /// The disk's LUN on the VM, when known.
    pub lun: Option<u32>,
}

impl Topology {
    /// The topology of a VM size, its temp disk and disks given one by one. `origin` names
    /// it in errors and in the report; `labels` (one per disk, e.g. "disks table, row 2")
    /// name each disk's own errors (a bad SKU, cache or role).
    pub fn from_entries(
        origin: &str,
        size: &str,
        temp_disk: Option<&str>,
        disks: &[DiskEntry],
        labels: &[String],
        catalog: &Catalog,
    ) -> Result<Topology, TopologyError> {
        // Each disk alone first, so that its error names its row.
        for (d, label) in disks.iter().zip(labels) {
            let spec = FileSpec { vm: None, disk: vec![disk_spec(d)], pool: Vec::new() };
            resolve(&described(label, spec), catalog)?;
        }
        let spec = FileSpec {
            vm: Some(VmSpec {
                size: size.to_owned(),
                temp_disk: temp_disk.map(str::to_owned),
                ..VmSpec::default()
            }),
            disk: disks.iter().map(disk_spec).collect(),
            pool: Vec::new(),
        };
        resolve(&described(origin, spec), catalog)
    }
}

fn disk_spec(d: &DiskEntry) -> DiskSpec {
    DiskSpec {
        name: d.name.clone(),
        sku: d.sku.clone(),
        cache: d.cache.clone(),
        role: d.role.clone(),
        iops: None,
        mbps: None,
        bursting: None,
        // The upload form has no Write Accelerator column: not given, as in a file without it.
        write_accelerator: None,
        lun: d.lun,
        // Nor a controller column: the disk names or a topology file say it.
        controller: None,
    }
}

/// A spec with no source text: its errors name `origin` and point at nothing.
fn described(origin: &str, spec: FileSpec) -> Parsed<'static> {
    Parsed { file: origin.to_owned(), text: "", format: SourceFormat::Json, spec }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, sku: &str, cache: &str, role: &str) -> DiskEntry {
        let opt = |s: &str| (!s.is_empty()).then(|| s.to_owned());
        DiskEntry {
            name: name.into(),
            sku: opt(sku),
            cache: opt(cache),
            role: opt(role),
            lun: None,
        }
    }

    #[test]
    fn entries_resolve_as_a_file_does() {
        let Ok(catalog) = Catalog::builtin() else { panic!("catalog") };
        let disks = [entry("C:", "P10", "", "os"), entry("E:", "P30", "ReadOnly", "data")];
        let labels = ["row 1".to_owned(), "row 2".to_owned()];
        let text = "[vm]\nsize = \"Standard_DS13_v2\"\ntemp_disk = \"D:\"\n\n[[disk]]\nname = \"C:\"\nsku = \"P10\"\nrole = \"os\"\n\n[[disk]]\nname = \"E:\"\nsku = \"P30\"\ncache = \"ReadOnly\"\nrole = \"data\"\n";
        let from_form = Topology::from_entries(
            "form",
            "Standard_DS13_v2",
            Some("D:"),
            &disks,
            &labels,
            &catalog,
        );
        let from_file = Topology::parse("form", text, &catalog);
        assert_eq!(from_form.ok(), from_file.ok());
    }

    #[test]
    fn a_bad_disk_names_its_row() {
        let Ok(catalog) = Catalog::builtin() else { panic!("catalog") };
        let disks = [entry("E:", "P30", "", ""), entry("F:", "P3O", "", "")];
        let labels = ["disks table, row 1".to_owned(), "disks table, row 2".to_owned()];
        let e = Topology::from_entries("form", "Standard_DS13_v2", None, &disks, &labels, &catalog);
        let e = e.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(e.starts_with("disks table, row 2: unknown disk SKU \"P3O\""), "{e}");
        let dup = [entry("E:", "", "", ""), entry("e:", "", "", "")];
        let e = Topology::from_entries("form", "Standard_DS13_v2", None, &dup, &labels, &catalog);
        assert!(e.err().is_some_and(|e| e.to_string().contains("used twice")));
    }
}
