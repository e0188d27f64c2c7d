//! advisor's JSON documents besides the report, comparison, recommendation and batch index
//! (a rule explained, a VM size from the catalog), and every document's JSON Schema by
//! name: what `advisor schema NAME`, the Python package's `advisor.schema(name)` and the
//! MCP server's output schemas give, all from the Rust types the documents are written
//! from.

use std::collections::BTreeMap;

use advisor_model::limits::BurstModel;
use advisor_rules::{CheckedRule, Origin, Registry};
use advisor_topology::{CachedGap, DiskSku, SizeStatus, VmSize};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

/// The names [`schema`] knows, in the order `advisor schema` lists them.
pub const SCHEMA_NAMES: &[&str] =
    &["report", "compare", "recommend", "batch", "rule", "catalog-vm"];

/// The JSON Schema of the document called `name` (one of [`SCHEMA_NAMES`]):
/// `report` (`advisor analyze --format json`), `compare`, `recommend`, `batch`
/// (`index.json`), `rule` (`advisor rules explain ID --json`), `catalog-vm`
/// (`advisor catalog vm SIZE --json`).
pub fn schema(name: &str) -> Option<Value> {
    Some(match name {
        "report" => advisor_report::json_schema(),
        "compare" => advisor_report::compare_json_schema(),
        "recommend" => advisor_report::recommend_schema(),
        "batch" => advisor_report::batch_json_schema(),
        "rule" => titled::<RuleDocument>("advisor rule (advisor rules explain --json)"),
        "catalog-vm" => titled::<VmDocument>("advisor VM size (advisor catalog vm --json)"),
        _ => return None,
    })
}

fn titled<T: JsonSchema>(title: &str) -> Value {
    let mut schema = serde_json::to_value(schemars::schema_for!(T)).unwrap_or_default();
    if let Some(obj) = schema.as_object_mut() {
        obj.insert("title".into(), title.into());
    }
    schema
}

/// A rule of the ruleset in force, explained: `advisor rules explain ID --json`, the MCP
/// tool `explain_rule`.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct RuleDocument {
    /// The rule's id (its file name): stable, as findings name it (`rule`).
    pub id: String,
    /// The severity of its findings, unless a `case` line of the rule says otherwise for one
    /// finding: `critical`, `warning` or `info`.
    pub severity: String,
    /// What a finding is about: `vm`, `disk`, `pool`, `bench` or `target`.
    pub scope: String,
    pub title: String,
    /// The rule file: `rules/<theme>/<id>.rule` for a shipped rule, else a path under a
    /// `--rules` folder.
    pub file: String,
    /// `shipped`, or the `--rules` folder the rule came from.
    pub origin: String,
    /// What it checks.
    pub what: String,
    /// Why it matters.
    pub why: String,
    /// The fix.
    pub fix: String,
    /// Its thresholds, each settable with `--set ID.NAME=VALUE`.
    pub params: Vec<RuleParam>,
    /// Microsoft's pages the verdict rests on.
    pub refs: Vec<String>,
    /// Ids of the rules whose findings a finding of this rule explains (it is their cause).
    pub explains: Vec<String>,
    /// The whole explanation as `advisor rules explain ID` prints it (plain text).
    pub explain: String,
}

/// A rule's parameter.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct RuleParam {
    pub name: String,
    /// The value in force, as written (the default, or the `--set` value): `95%`, `30s`.
    pub value: String,
    /// The default, as written in the rule file.
    pub default: String,
    /// Its dimension: `count`, `percent`, `duration`, `MB/s`, ...
    pub dimension: String,
    /// Why that value.
    pub description: String,
}

impl RuleDocument {
    /// `rule` as the registry holds it (with `--set` values applied).
    pub fn of(rule: &CheckedRule, registry: &Registry) -> Self {
        RuleDocument {
            id: rule.id.clone(),
            severity: rule.severity.to_string(),
            scope: rule.scope.to_string(),
            title: rule.title.clone(),
            file: rule.file.clone(),
            origin: origin(rule, registry),
            what: rule.doc.what.clone(),
            why: rule.doc.why.clone(),
            fix: rule.doc.fix.clone(),
            params: RuleParam::all(rule),
            refs: rule.refs.clone(),
            explains: rule.explains.clone(),
            explain: advisor_rules::explain(rule),
        }
    }

    /// Every rule of the registry, in its order: `GET /api/v1/rules`.
    pub fn all(registry: &Registry) -> Vec<Self> {
        registry.rules().map(|r| Self::of(r, registry)).collect()
    }
}

/// `shipped`, or the `--rules` folder a rule came from.
fn origin(rule: &CheckedRule, registry: &Registry) -> String {
    match registry.origin(&rule.id) {
        Some(Origin::Dir(d)) => d.display().to_string(),
        _ => "shipped".to_owned(),
    }
}

impl RuleParam {
    /// A rule's parameters, in the order the rule declares them.
    pub fn all(rule: &CheckedRule) -> Vec<Self> {
        rule.params
            .iter()
            .map(|p| RuleParam {
                name: p.name.clone(),
                value: p.value_text.clone(),
                default: p.default_text.clone(),
                dimension: p.dim.to_string(),
                description: p.description.clone(),
            })
            .collect()
    }
}

/// A rule in a list of the ruleset: `advisor rules list --json` (one per rule), and the
/// line of `advisor rules list`. [`RuleDocument`] without the documentation.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct RuleSummary {
    pub id: String,
    /// `critical`, `warning` or `info`.
    pub severity: String,
    /// `vm`, `disk`, `pool`, `bench` or `target`.
    pub scope: String,
    pub title: String,
    /// The rule file.
    pub file: String,
    /// `shipped`, or the `--rules` folder the rule came from.
    pub origin: String,
    /// Its thresholds.
    pub params: Vec<RuleParam>,
    /// Microsoft's pages the verdict rests on.
    pub refs: Vec<String>,
}

impl RuleSummary {
    pub fn of(rule: &CheckedRule, registry: &Registry) -> Self {
        RuleSummary {
            id: rule.id.clone(),
            severity: rule.severity.to_string(),
            scope: rule.scope.to_string(),
            title: rule.title.clone(),
            file: rule.file.clone(),
            origin: origin(rule, registry),
            params: RuleParam::all(rule),
            refs: rule.refs.clone(),
        }
    }

    /// Every rule of the registry, in its order.
    pub fn all(registry: &Registry) -> Vec<Self> {
        registry.rules().map(|r| Self::of(r, registry)).collect()
    }

    /// The list as `advisor rules list` prints it: one line per rule, the columns id,
    /// severity, scope and title aligned.
    pub fn table(list: &[Self]) -> String {
        let width = list.iter().map(|r| r.id.len()).max().unwrap_or(0);
        list.iter()
            .map(|r| format!("{:<width$}  {:<8}  {:<6}  {}\n", r.id, r.severity, r.scope, r.title))
            .collect()
    }
}

/// A VM size's storage limits from the catalog, with what its name says: `advisor catalog
/// vm SIZE --json`, the MCP tool `catalog_vm`.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct VmDocument {
    /// The catalog's row. Throughput in MB/s, as Azure publishes it; a missing figure is
    /// `null` (not published).
    #[serde(flatten)]
    pub size: VmSize,
    /// The series as Microsoft names it (`DSv2`, `Easv5`).
    pub series: String,
    /// The family (`DS`, `E`).
    pub family: String,
    /// Whether the size takes Premium SSD disks.
    pub premium_storage: bool,
    /// Whether its disks can use host caching.
    pub host_caching: bool,
    /// Why there is no cached limit, when there is none.
    pub cached_gap: Option<CachedGap>,
    /// `cached_gap` as a sentence.
    pub cached_gap_reason: Option<String>,
    /// The units of the figures.
    pub units: Units,
}

/// The units of a VM size's figures.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Units {
    /// `IO/s`
    pub iops: String,
    /// `MB/s`
    pub mbps: String,
    /// `GiB`
    pub gib: String,
}

impl VmDocument {
    pub fn of(vm: &VmSize) -> Self {
        VmDocument {
            size: vm.clone(),
            series: vm.series(),
            family: vm.family(),
            premium_storage: vm.premium_storage(),
            host_caching: vm.host_caching(),
            cached_gap: vm.cached_gap(),
            cached_gap_reason: vm.cached_gap_reason(),
            units: Units { iops: "IO/s".into(), mbps: "MB/s".into(), gib: "GiB".into() },
        }
    }
}

/// A disk SKU's row of the catalog, with how it bursts: `advisor catalog disk SKU --json`
/// and the disks of `advisor catalog list --json`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiskDocument {
    /// The catalog's row.
    #[serde(flatten)]
    pub sku: DiskSku,
    /// How the SKU can exceed its provisioned figures.
    pub burst_model: BurstModel,
}

impl DiskDocument {
    pub fn of(sku: &DiskSku) -> Self {
        DiskDocument { sku: sku.clone(), burst_model: sku.burst_model() }
    }
}

/// VM sizes counted by status.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct StatusCounts {
    pub total: usize,
    pub current: usize,
    pub previous: usize,
    pub retired: usize,
}

impl StatusCounts {
    fn add(&mut self, status: SizeStatus) {
        self.total += 1;
        match status {
            SizeStatus::Current => self.current += 1,
            SizeStatus::Previous => self.previous += 1,
            SizeStatus::Retired => self.retired += 1,
        }
    }
}

/// VM sizes counted by status, in all and by family.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct VmCounts {
    #[serde(flatten)]
    pub all: StatusCounts,
    /// By family (`DS`, `E`), in name order.
    pub by_family: BTreeMap<String, StatusCounts>,
}

impl VmCounts {
    pub fn of(vms: &[&VmSize]) -> Self {
        let mut counts = VmCounts::default();
        for v in vms {
            counts.all.add(v.status);
            counts.by_family.entry(v.family()).or_default().add(v.status);
        }
        counts
    }
}

/// The catalog's VM sizes and disk SKUs: `advisor catalog list --json`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CatalogList {
    pub vm_sizes: Vec<VmDocument>,
    pub vm_counts: VmCounts,
    pub disk_skus: Vec<DiskDocument>,
}

impl CatalogList {
    pub fn of(vms: &[&VmSize], skus: &[&DiskSku]) -> Self {
        CatalogList {
            vm_sizes: vms.iter().map(|v| VmDocument::of(v)).collect(),
            vm_counts: VmCounts::of(vms),
            disk_skus: skus.iter().map(|d| DiskDocument::of(d)).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_has_a_schema_of_an_object() {
        for name in SCHEMA_NAMES {
            let s = schema(name).unwrap_or_else(|| panic!("{name}"));
            assert_eq!(s["type"], "object", "{name}");
            assert!(s["title"].as_str().is_some_and(|t| !t.is_empty()), "{name}");
        }
        assert_eq!(schema("reports"), None);
    }
}
