//! advisor's JSON documents besides the report, comparison, recommendation and batch index
//! (a rule explained, a VM size from the catalog), and every document's JSON Schema by
//! name: what `advisor schema NAME`, the Python package's `advisor.schema(name)` and the
//! MCP server's output schemas give, all from the Rust types the documents are written
//! from.

use advisor_rules::{CheckedRule, Origin, Registry};
use advisor_topology::{CachedGap, VmSize};
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
        let origin = match registry.origin(&rule.id) {
            Some(Origin::Dir(d)) => d.display().to_string(),
            _ => "shipped".to_owned(),
        };
        RuleDocument {
            id: rule.id.clone(),
            severity: rule.severity.to_string(),
            scope: rule.scope.to_string(),
            title: rule.title.clone(),
            file: rule.file.clone(),
            origin,
            what: rule.doc.what.clone(),
            why: rule.doc.why.clone(),
            fix: rule.doc.fix.clone(),
            params: rule
                .params
                .iter()
                .map(|p| RuleParam {
                    name: p.name.clone(),
                    value: p.value_text.clone(),
                    default: p.default_text.clone(),
                    dimension: p.dim.to_string(),
                    description: p.description.clone(),
                })
                .collect(),
            refs: rule.refs.clone(),
            explains: rule.explains.clone(),
            explain: advisor_rules::explain(rule),
        }
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
