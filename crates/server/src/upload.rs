//! Reading the multipart upload into memory, and the topology it describes.
//!
//! Fields: `capture` (a file, repeated), `topology` (a TOML or JSON file), `vm` (a VM size),
//! `temp_disk`, the disks table (`disk_name`, `disk_sku`, `disk_cache`, `disk_role`,
//! repeated in step), `format` (md, html, json).

use advisor_topology::{Catalog, Topology};
use axum::body::Bytes;
use axum::extract::Multipart;
use axum::extract::multipart::MultipartError;
use serde_json::{Map, Value, json};

use crate::AppError;

/// A text field longer than this is not a VM size, disk name or format.
const MAX_TEXT_FIELD: usize = 4096;

/// One request's upload, in memory.
#[derive(Debug, Default)]
pub(crate) struct Upload {
    /// (name shown in the report, bytes)
    pub(crate) captures: Vec<(String, Bytes)>,
    pub(crate) topology: Option<(String, String)>,
    pub(crate) vm: Option<String>,
    pub(crate) temp_disk: Option<String>,
    pub(crate) disks: DiskTable,
    pub(crate) format: Option<String>,
}

/// The upload page's disks table: one entry per row in each column.
#[derive(Debug, Default)]
pub(crate) struct DiskTable {
    pub(crate) name: Vec<String>,
    pub(crate) sku: Vec<String>,
    pub(crate) cache: Vec<String>,
    pub(crate) role: Vec<String>,
}

impl Upload {
    /// Total bytes of the captures.
    pub(crate) fn capture_bytes(&self) -> usize {
        self.captures.iter().map(|(_, b)| b.len()).sum()
    }
}

fn multipart_error(e: MultipartError, limit: usize) -> AppError {
    if e.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
        AppError::TooLarge { limit }
    } else {
        AppError::BadRequest(format!(
            "the upload is not a readable multipart form: {}",
            e.body_text()
        ))
    }
}

/// The last component of a client's file name (browsers may send `C:\fakepath\x.csv`).
fn base_name(name: &str) -> &str {
    name.rsplit(['/', '\\']).next().unwrap_or(name).trim()
}

/// Reads every field into memory.
pub(crate) async fn read(mut form: Multipart, limit: usize) -> Result<Upload, AppError> {
    let mut up = Upload::default();
    while let Some(field) = form.next_field().await.map_err(|e| multipart_error(e, limit))? {
        let name = field.name().unwrap_or_default().to_owned();
        let file_name = field.file_name().map(|f| base_name(f).to_owned());
        match name.as_str() {
            "capture" | "topology" => {
                let bytes = field.bytes().await.map_err(|e| multipart_error(e, limit))?;
                let file = file_name.filter(|f| !f.is_empty());
                // A file input left empty still sends an empty part without a name.
                if bytes.is_empty() && file.is_none() {
                    continue;
                }
                if name == "capture" {
                    let shown =
                        file.unwrap_or_else(|| format!("capture-{}", up.captures.len() + 1));
                    up.captures.push((shown, bytes));
                } else {
                    if up.topology.is_some() {
                        return Err(AppError::BadRequest(
                            "give one topology file, not several".to_owned(),
                        ));
                    }
                    let shown = file.unwrap_or_else(|| "topology".to_owned());
                    let text = String::from_utf8(bytes.to_vec()).map_err(|_| {
                        AppError::BadTopology(format!(
                            "{shown}: a topology file is TOML or JSON text; this is not UTF-8 text"
                        ))
                    })?;
                    up.topology = Some((shown, text));
                }
            }
            "vm" | "temp_disk" | "format" | "disk_name" | "disk_sku" | "disk_cache"
            | "disk_role" => {
                let bytes = field.bytes().await.map_err(|e| multipart_error(e, limit))?;
                if bytes.len() > MAX_TEXT_FIELD {
                    return Err(AppError::BadRequest(format!(
                        "field `{name}` is {} bytes; it is a short text field",
                        bytes.len()
                    )));
                }
                let text = String::from_utf8(bytes.to_vec())
                    .map_err(|_| AppError::BadRequest(format!("field `{name}` is not UTF-8 text")))?
                    .trim()
                    .to_owned();
                let opt = (!text.is_empty()).then(|| text.clone());
                match name.as_str() {
                    "vm" => up.vm = opt,
                    "temp_disk" => up.temp_disk = opt,
                    "format" => up.format = opt,
                    "disk_name" => up.disks.name.push(text),
                    "disk_sku" => up.disks.sku.push(text),
                    "disk_cache" => up.disks.cache.push(text),
                    _ => up.disks.role.push(text),
                }
            }
            "" => {
                return Err(AppError::BadRequest(
                    "a part of the form has no name: each part needs a header like \
                     `Content-Disposition: form-data; name=\"capture\"; filename=\"x.csv\"`"
                        .to_owned(),
                ));
            }
            other => {
                return Err(AppError::BadRequest(format!(
                    "unknown field `{other}`; the fields are capture (repeated), topology, vm, \
                     temp_disk, disk_name, disk_sku, disk_cache, disk_role, format"
                )));
            }
        }
    }
    if up.captures.is_empty() {
        return Err(AppError::BadRequest(
            "no capture: send one or more files in the `capture` field".to_owned(),
        ));
    }
    Ok(up)
}

/// The disks table as topology entries: rows with a name; a row without one must be empty.
fn disk_rows(t: &DiskTable) -> Result<Vec<Value>, AppError> {
    let rows = t.name.len().max(t.sku.len()).max(t.cache.len()).max(t.role.len());
    fn cell(col: &[String], i: usize) -> &str {
        col.get(i).map(String::as_str).unwrap_or_default()
    }
    let mut out = Vec::new();
    for i in 0..rows {
        let (name, sku, cache, role) =
            (cell(&t.name, i), cell(&t.sku, i), cell(&t.cache, i), cell(&t.role, i));
        if name.is_empty() {
            // The page's selects send their first choice on blank rows: only a SKU marks a
            // row as filled in.
            if !sku.is_empty() {
                return Err(AppError::BadTopology(format!(
                    "disks table, row {}: the disk has a SKU ({sku}) but no name; give the name \
                     the captures use (E:, sdc, ...)",
                    i + 1
                )));
            }
            continue;
        }
        let mut d = Map::new();
        d.insert("name".into(), name.into());
        for (k, v) in [("sku", sku), ("cache", cache), ("role", role)] {
            if !v.is_empty() {
                d.insert(k.into(), v.into());
            }
        }
        out.push(Value::Object(d));
    }
    Ok(out)
}

/// The topology the upload describes: the file (with `vm` replacing its size), else the
/// VM size with the disks table, else none.
pub(crate) fn topology(up: &Upload, catalog: &Catalog) -> Result<Option<Topology>, AppError> {
    let bad = |e: advisor_topology::TopologyError| AppError::BadTopology(e.to_string());
    let disks = disk_rows(&up.disks)?;
    if let Some((file, text)) = &up.topology {
        if !disks.is_empty() {
            return Err(AppError::BadTopology(
                "give either a topology file or the disks table, not both".to_owned(),
            ));
        }
        let mut t = Topology::parse(file, text, catalog).map_err(bad)?;
        if let Some(size) = &up.vm {
            t.set_vm_size(size, catalog).map_err(bad)?;
        }
        return Ok(Some(t));
    }
    let Some(size) = &up.vm else {
        if disks.is_empty() && up.temp_disk.is_none() {
            return Ok(None);
        }
        return Err(AppError::BadTopology(
            "the disks table needs the VM size: choose one from the catalog".to_owned(),
        ));
    };
    let mut vm = Map::new();
    vm.insert("size".into(), size.as_str().into());
    if let Some(t) = &up.temp_disk {
        vm.insert("temp_disk".into(), t.as_str().into());
    }
    let doc = json!({ "vm": vm, "disk": disks });
    Topology::parse("the upload form", &doc.to_string(), catalog).map(Some).map_err(bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(rows: &[[&str; 4]]) -> DiskTable {
        let col = |i: usize| rows.iter().map(|r| r[i].to_owned()).collect();
        DiskTable { name: col(0), sku: col(1), cache: col(2), role: col(3) }
    }

    #[test]
    fn the_form_makes_a_topology() {
        let Ok(catalog) = Catalog::builtin() else { panic!("catalog") };
        let up = Upload {
            vm: Some("Standard_DS13_v2".into()),
            temp_disk: Some("D:".into()),
            disks: table(&[
                ["C:", "P10", "ReadWrite", "os"],
                ["E:", "P30", "ReadOnly", "data"],
                ["", "", "None", "data"],
            ]),
            ..Upload::default()
        };
        let t = topology(&up, &catalog).ok().flatten();
        let Some(t) = t else { panic!("no topology") };
        assert_eq!(t.disks.len(), 2);
        assert_eq!(t.temp_disks(), vec!["D:"]);
    }

    #[test]
    fn half_rows_and_missing_size_are_refused() {
        let Ok(catalog) = Catalog::builtin() else { panic!("catalog") };
        let up = Upload {
            vm: Some("Standard_DS13_v2".into()),
            disks: table(&[["", "P30", "None", "data"]]),
            ..Upload::default()
        };
        assert!(matches!(topology(&up, &catalog), Err(AppError::BadTopology(_))));
        let up = Upload { disks: table(&[["E:", "P30", "None", "data"]]), ..Upload::default() };
        assert!(matches!(topology(&up, &catalog), Err(AppError::BadTopology(_))));
        let up = Upload { vm: Some("Standard_Nope".into()), ..Upload::default() };
        assert!(
            matches!(topology(&up, &catalog), Err(AppError::BadTopology(m)) if m.contains("Nope"))
        );
        assert!(topology(&Upload::default(), &catalog).is_ok_and(|t| t.is_none()));
    }

    #[test]
    fn base_names() {
        assert_eq!(base_name(r"C:\fakepath\x.csv"), "x.csv");
        assert_eq!(base_name("a/b/c.txt"), "c.txt");
        assert_eq!(base_name("plain"), "plain");
    }
}
