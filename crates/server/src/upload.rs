//! Reading the multipart upload into memory, and the topology it describes.
//!
//! Fields: `capture` (a file, repeated), `topology` (a file, repeated: the topology TOML/JSON
//! or Azure's and the guest's own documents, detected by content), `vm` (a VM size),
//! `temp_disk`, the disks table (`disk_name`, `disk_sku`, `disk_cache`, `disk_role`,
//! repeated in step), `format` (md, html, json).

use advisor_engine::{DiskRow, TopologySources};
use axum::body::Bytes;
use axum::extract::Multipart;
use axum::extract::multipart::MultipartError;

use crate::AppError;

/// A text field longer than this is not a VM size, disk name or format.
pub(crate) const MAX_TEXT_FIELD: usize = 4096;

/// One request's upload, in memory.
#[derive(Debug, Default)]
pub(crate) struct Upload {
    /// (name shown in the report, bytes)
    pub(crate) captures: Vec<(String, Bytes)>,
    pub(crate) topology: Vec<(String, String)>,
    pub(crate) vm: Option<String>,
    pub(crate) temp_disk: Option<String>,
    pub(crate) disks: DiskTable,
    pub(crate) format: Option<String>,
    /// `advisor recommend`'s options (`/api/v1/recommend`): text as typed, and the prices
    /// file (name, text).
    pub(crate) percentile: Option<String>,
    pub(crate) headroom: Option<String>,
    pub(crate) prices: Option<(String, String)>,
    /// The request's audit facts (the formats and verdict are known after the analysis).
    pub(crate) record: crate::audit::Record,
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

    /// Where the upload's topology comes from, and its captures.
    pub(crate) fn into_parts(self) -> (TopologySources, Vec<(String, Bytes)>) {
        let t = &self.disks;
        let rows = t.name.len().max(t.sku.len()).max(t.cache.len()).max(t.role.len());
        fn cell(col: &[String], i: usize) -> String {
            col.get(i).cloned().unwrap_or_default()
        }
        let disks = (0..rows)
            .map(|i| DiskRow {
                name: cell(&t.name, i),
                sku: cell(&t.sku, i),
                cache: cell(&t.cache, i),
                role: cell(&t.role, i),
            })
            .collect();
        let sources = TopologySources {
            files: Vec::new(),
            texts: self.topology,
            vm: self.vm,
            temp_disk: self.temp_disk,
            disks,
        };
        (sources, self.captures)
    }
}

pub(crate) fn multipart_error(e: MultipartError, limit: usize) -> AppError {
    if e.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
        AppError::TooLarge { limit }
    } else {
        AppError::BadRequest(format!(
            "the upload is not a readable multipart form: {}",
            e.body_text()
        ))
    }
}

/// The last component of a client's file name (browsers may send `C:\fakepath\x.csv`),
/// at most [`advisor_model::MAX_ECHO`] characters: the name is echoed in the report and in
/// every error about the file.
pub(crate) fn base_name(name: &str) -> String {
    advisor_model::bounded(name.rsplit(['/', '\\']).next().unwrap_or(name).trim()).into_owned()
}

/// Reads every field into memory.
pub(crate) async fn read(mut form: Multipart, limit: usize) -> Result<Upload, AppError> {
    let mut up = Upload::default();
    while let Some(field) = form.next_field().await.map_err(|e| multipart_error(e, limit))? {
        let name = field.name().unwrap_or_default().to_owned();
        let file_name = field.file_name().map(base_name);
        match name.as_str() {
            "prices" => {
                let bytes = field.bytes().await.map_err(|e| multipart_error(e, limit))?;
                let shown = file_name.filter(|f| !f.is_empty()).unwrap_or_else(|| "prices".into());
                let text = String::from_utf8(bytes.to_vec()).map_err(|_| {
                    AppError::BadRequest(format!(
                        "{shown}: a prices file is JSON text; this is not UTF-8"
                    ))
                })?;
                up.prices = Some((shown, text));
            }
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
                    let shown =
                        file.unwrap_or_else(|| format!("topology-{}", up.topology.len() + 1));
                    let text = String::from_utf8(bytes.to_vec()).map_err(|_| {
                        AppError::BadTopology(format!(
                            "{shown}: a topology file is TOML or JSON text; this is not UTF-8 text"
                        ))
                    })?;
                    up.topology.push((shown, text));
                }
            }
            "vm" | "temp_disk" | "format" | "disk_name" | "disk_sku" | "disk_cache"
            | "disk_role" | "percentile" | "headroom" => {
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
                    "percentile" => up.percentile = opt,
                    "headroom" => up.headroom = opt,
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
                    "unknown field `{}`; the fields are capture (repeated), topology (repeated), vm, \
                     temp_disk, disk_name, disk_sku, disk_cache, disk_role, format (and for \
                     /api/v1/recommend: percentile, headroom, prices)",
                    advisor_model::bounded(other)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_form_becomes_topology_sources() {
        let up = Upload {
            vm: Some("Standard_DS13_v2".into()),
            temp_disk: Some("D:".into()),
            disks: DiskTable {
                name: vec!["C:".into(), "E:".into()],
                sku: vec!["P10".into(), "P30".into()],
                cache: vec!["ReadWrite".into()],
                role: vec!["os".into(), "data".into()],
            },
            ..Upload::default()
        };
        let (s, captures) = up.into_parts();
        assert!(captures.is_empty());
        assert_eq!(s.vm.as_deref(), Some("Standard_DS13_v2"));
        assert_eq!(s.disks.len(), 2);
        // A column sent short leaves the rest of its rows empty.
        assert_eq!(s.disks[1].name, "E:");
        assert_eq!(s.disks[1].cache, "");
    }

    #[test]
    fn base_names() {
        assert_eq!(base_name(r"C:\fakepath\x.csv"), "x.csv");
        assert_eq!(base_name("a/b/c.txt"), "c.txt");
        let long = base_name(&"x".repeat(1 << 20));
        assert_eq!(long.chars().count(), 255);
        assert!(long.ends_with("x…"));
        assert_eq!(base_name("plain"), "plain");
    }
}
