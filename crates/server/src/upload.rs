//! The forms of `POST /api/v1/analyze` and `POST /api/v1/recommend`, and the topology they
//! describe.
//!
//! Fields: `capture` (a file, repeated), `topology` (a file, repeated: the topology TOML/JSON
//! or Azure's and the guest's own documents, detected by content), `vm` (a VM size),
//! `temp_disk`, the disks table (`disk_name`, `disk_sku`, `disk_cache`, `disk_role`,
//! repeated in step), `format` (md, html, json); for recommend also `percentile`,
//! `headroom` and `prices` (a file).

use advisor_engine::{DiskRow, TopologySources};
use axum::body::Bytes;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{AllOfBuilder, Schema};
use utoipa::{PartialSchema, ToSchema};

use crate::AppError;
use crate::form::{Field, Fields, non_empty, shown, topology_text};

/// The multipart form of `POST /api/v1/analyze`.
#[derive(Debug, Default, ToSchema)]
pub(crate) struct AnalyzeForm {
    /// One or more captures ({formats}) or collector bundles (.tar.gz, .zip); the format is
    /// detected from the content. Each is named in the report by its file name.
    #[schema(value_type = Vec<String>, format = Binary)]
    pub(crate) capture: Vec<(String, Bytes)>,
    /// The VM's topology: the topology file (TOML, or the same shape as JSON), or the VM's
    /// own documents (IMDS JSON, az vm show, az disk list, lsblk -J, Get-Disk JSON, ...),
    /// detected by content and merged.
    #[schema(value_type = Option<Vec<String>>, format = Binary)]
    pub(crate) topology: Vec<(String, String)>,
    /// The VM size (e.g. Standard_DS13_v2): alone, the VM's caps; with `topology`, it
    /// replaces the file's size; with the disks table, the table's VM. A size the catalog
    /// lacks is kept: its caps are listed as not evaluated, with the reason.
    pub(crate) vm: Option<String>,
    /// The local temp disk's name in the captures (with `vm`).
    pub(crate) temp_disk: Option<String>,
    /// Disks table, one entry per disk, in step with `disk_sku`, `disk_cache`, `disk_role`.
    #[schema(value_type = Option<Vec<String>>)]
    pub(crate) disk_name: Vec<String>,
    /// Catalog SKU of each disk (P30, E10, ...).
    #[schema(value_type = Option<Vec<String>>)]
    pub(crate) disk_sku: Vec<String>,
    /// None, ReadOnly or ReadWrite.
    #[schema(value_type = Option<Vec<String>>)]
    pub(crate) disk_cache: Vec<String>,
    /// os, data, log, tempdb, temp or other.
    #[schema(value_type = Option<Vec<String>>)]
    pub(crate) disk_role: Vec<String>,
    /// md, html or json; overrides `Accept`.
    pub(crate) format: Option<String>,
}

impl Fields for AnalyzeForm {
    const FIELDS: &'static [Field] = &[
        Field::files("capture"),
        Field::files("topology"),
        Field::text("vm"),
        Field::text("temp_disk"),
        Field::texts("disk_name"),
        Field::texts("disk_sku"),
        Field::texts("disk_cache"),
        Field::texts("disk_role"),
        Field::text("format"),
    ];

    fn file(&mut self, name: &str, file: Option<String>, bytes: Bytes) -> Result<(), AppError> {
        if name == "capture" {
            let shown = shown(file, name, self.capture.len() + 1);
            self.capture.push((shown, bytes));
        } else {
            let shown = shown(file, name, self.topology.len() + 1);
            let text = topology_text(&shown, &bytes)?;
            self.topology.push((shown, text));
        }
        Ok(())
    }

    fn text(&mut self, name: &str, text: String) {
        match name {
            "vm" => self.vm = non_empty(text),
            "temp_disk" => self.temp_disk = non_empty(text),
            "format" => self.format = non_empty(text),
            // The disks table keeps empty cells: its columns stay in step.
            "disk_name" => self.disk_name.push(text),
            "disk_sku" => self.disk_sku.push(text),
            "disk_cache" => self.disk_cache.push(text),
            _ => self.disk_role.push(text),
        }
    }

    fn check(&self) -> Result<(), AppError> {
        if self.capture.is_empty() {
            return Err(AppError::BadRequest(
                "no capture: send one or more files in the `capture` field".to_owned(),
            ));
        }
        Ok(())
    }

    fn upload_size(&self) -> (usize, usize) {
        (self.capture.len(), self.capture.iter().map(|(_, b)| b.len()).sum())
    }

    fn format(&self) -> Option<&str> {
        self.format.as_deref()
    }
}

impl AnalyzeForm {
    /// Where the upload's topology comes from, and its captures.
    pub(crate) fn into_parts(self) -> (TopologySources, Vec<(String, Bytes)>) {
        let cols = [&self.disk_name, &self.disk_sku, &self.disk_cache, &self.disk_role];
        let rows = cols.iter().map(|c| c.len()).max().unwrap_or(0);
        fn cell(col: &[String], i: usize) -> String {
            col.get(i).cloned().unwrap_or_default()
        }
        let disks = (0..rows)
            .map(|i| DiskRow {
                name: cell(&self.disk_name, i),
                sku: cell(&self.disk_sku, i),
                cache: cell(&self.disk_cache, i),
                role: cell(&self.disk_role, i),
            })
            .collect();
        let sources = TopologySources {
            files: Vec::new(),
            texts: self.topology,
            vm: self.vm,
            temp_disk: self.temp_disk,
            disks,
        };
        (sources, self.capture)
    }
}

/// `POST /api/v1/recommend`'s own fields, besides the analyze form's.
#[derive(Debug, Default, ToSchema)]
pub(crate) struct RecommendFields {
    /// Percentile of the samples taken as demand (95 unless given).
    pub(crate) percentile: Option<String>,
    /// Factor demand is multiplied by (1.2 unless given).
    pub(crate) headroom: Option<String>,
    /// The Azure Retail Prices API's JSON, for monthly costs (one region).
    #[schema(value_type = Option<String>, format = Binary)]
    pub(crate) prices: Option<(String, String)>,
}

/// The multipart form of `POST /api/v1/recommend`: the analyze form's fields, and
/// [`RecommendFields`].
#[derive(Debug, Default)]
pub(crate) struct RecommendForm {
    pub(crate) upload: AnalyzeForm,
    pub(crate) options: RecommendFields,
}

impl PartialSchema for RecommendForm {
    fn schema() -> RefOr<Schema> {
        let all = AllOfBuilder::new()
            .item(RefOr::Ref(utoipa::openapi::Ref::from_schema_name(AnalyzeForm::name())))
            .item(RefOr::Ref(utoipa::openapi::Ref::from_schema_name(RecommendFields::name())))
            .build();
        RefOr::T(Schema::AllOf(all))
    }
}

impl ToSchema for RecommendForm {
    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        schemas.push((AnalyzeForm::name().into_owned(), AnalyzeForm::schema()));
        schemas.push((RecommendFields::name().into_owned(), RecommendFields::schema()));
    }
}

impl Fields for RecommendForm {
    const FIELDS: &'static [Field] = &[
        Field::files("capture"),
        Field::files("topology"),
        Field::text("vm"),
        Field::text("temp_disk"),
        Field::texts("disk_name"),
        Field::texts("disk_sku"),
        Field::texts("disk_cache"),
        Field::texts("disk_role"),
        Field::text("format"),
        Field::text("percentile"),
        Field::text("headroom"),
        Field::file("prices"),
    ];

    fn file(&mut self, name: &str, file: Option<String>, bytes: Bytes) -> Result<(), AppError> {
        if name != "prices" {
            return self.upload.file(name, file, bytes);
        }
        let shown = file.unwrap_or_else(|| "prices".into());
        let text = String::from_utf8(bytes.to_vec()).map_err(|_| {
            AppError::BadRequest(format!("{shown}: a prices file is JSON text; this is not UTF-8"))
        })?;
        self.options.prices = Some((shown, text));
        Ok(())
    }

    fn text(&mut self, name: &str, text: String) {
        match name {
            "percentile" => self.options.percentile = non_empty(text),
            "headroom" => self.options.headroom = non_empty(text),
            _ => self.upload.text(name, text),
        }
    }

    fn check(&self) -> Result<(), AppError> {
        self.upload.check()
    }

    fn upload_size(&self) -> (usize, usize) {
        self.upload.upload_size()
    }

    fn format(&self) -> Option<&str> {
        self.upload.format()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_form_becomes_topology_sources() {
        let up = AnalyzeForm {
            vm: Some("Standard_DS13_v2".into()),
            temp_disk: Some("D:".into()),
            disk_name: vec!["C:".into(), "E:".into()],
            disk_sku: vec!["P10".into(), "P30".into()],
            disk_cache: vec!["ReadWrite".into()],
            disk_role: vec!["os".into(), "data".into()],
            ..AnalyzeForm::default()
        };
        let (s, captures) = up.into_parts();
        assert!(captures.is_empty());
        assert_eq!(s.vm.as_deref(), Some("Standard_DS13_v2"));
        assert_eq!(s.disks.len(), 2);
        // A column sent short leaves the rest of its rows empty.
        assert_eq!(s.disks[1].name, "E:");
        assert_eq!(s.disks[1].cache, "");
    }
}
