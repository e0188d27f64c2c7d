//! Azure Monitor platform metrics as JSON: what `az monitor metrics list --output json`
//! prints and what the REST API's "Metrics - List" returns (one resource), a JSON array of
//! such responses, or the batch API's `{"values": [...]}` (several resources).
//!
//! Shapes: <https://learn.microsoft.com/rest/api/monitor/metrics/list> (response:
//! `value[]` of metrics with `name.value`, `unit`, `timeseries[]` of `metadatavalues` and
//! `data[]` points with `timeStamp` and `average`/`minimum`/`maximum`/`total`/`count`);
//! metric names: <https://learn.microsoft.com/azure/virtual-machines/disks-metrics> and
//! <https://learn.microsoft.com/azure/azure-monitor/reference/supported-metrics/microsoft-compute-virtualmachines-metrics>.
//!
//! Each platform budget becomes a target of kind [`TargetKind::Platform`]: `VM cached`,
//! `VM uncached`, `LUN <n>` (the `LUN` dimension of the `Data Disk ...` metrics), `OS disk`,
//! `VM disks` (the VM-level `Disk Read Bytes` family) and, for a managed disk's own
//! resource, the disk's name. Scale sets prefix each with the `VMName` dimension's value.
//! Times are UTC (the API writes ISO 8601 with `Z`).

pub mod names;

use std::borrow::Cow;
use std::collections::BTreeMap;

use advisor_model::{CaptureMeta, Format, Location, Metric, RawCapture, Table, TargetKind};
use serde_json::Value;

use crate::IngestError;
use crate::formats::{CaptureFormat, Head, Read, Sniff};

pub use self::names::{PlatformMetric, ResourceKind, Scale, Subject, metric_of};

pub const FORMAT: Format = Format::new(
    "azure-monitor-json",
    "Azure Monitor metrics JSON (az monitor metrics list --output json, or the REST API's Metrics - List)",
    false,
);

/// Azure Monitor platform metrics JSON.
#[derive(Debug)]
pub struct AzureMonitorJson;

impl CaptureFormat for AzureMonitorJson {
    fn format(&self) -> Format {
        FORMAT
    }

    fn supported(&self) -> Option<&'static str> {
        Some("Azure Monitor metrics JSON (az monitor metrics list)")
    }

    /// JSON whose start holds `"timeseries"` or the metrics' resource type, or Azure's error
    /// document (`{"error": {"code": ..., "message": ...}}`), which the reader turns into an
    /// error naming the code and message.
    fn sniff(&self, head: &Head<'_>) -> Sniff {
        let t = head.text;
        if !(t.starts_with('{') || t.starts_with('[')) {
            return Sniff::No;
        }
        let lower = t.to_ascii_lowercase();
        if lower.contains("\"timeseries\"") || lower.contains("microsoft.insights/metrics") {
            return Sniff::Yes;
        }
        let compact: String = lower.chars().filter(|c| !c.is_whitespace()).take(64).collect();
        if compact.starts_with("{\"error\":{") && lower.contains("\"message\"") {
            return Sniff::Yes;
        }
        Sniff::No
    }

    fn read<'t>(&self, file: &str, text: Cow<'t, str>) -> Result<Read<'t>, IngestError> {
        read(file, &text).map(Read::Table)
    }
}

/// One value read, before the rows are assembled.
type Cells = BTreeMap<(u32, i64), Vec<(Metric, f64)>>;

/// Reads an Azure Monitor metrics document.
pub fn read(file: &str, text: &str) -> Result<RawCapture, IngestError> {
    let doc: Value = serde_json::from_str(text).map_err(|e| {
        IngestError::invalid(
            file,
            Some(Location::line(e.line() as u64, e.column() as u64)),
            format!("not valid JSON: {e}"),
        )
    })?;
    let mut meta = CaptureMeta::new(FORMAT);
    meta.utc_offset_min = Some(0);
    meta.timezone = Some("UTC".to_owned());
    let mut r = Reader { file, meta, cells: Cells::new(), intervals: Vec::new(), metrics: 0 };
    for (path, response) in responses(file, &doc)? {
        r.response(&path, response)?;
    }
    if r.metrics == 0 {
        return Err(IngestError::invalid(
            file,
            Some(Location::json("$.value")),
            "an Azure Monitor response with no metrics: ask `az monitor metrics list` for the \
             disk metrics (--metrics \"VM Cached IOPS Consumed Percentage\" ...)",
        ));
    }
    Ok(r.finish())
}

/// The metric responses of a document, with their JSON paths: the document itself, each
/// element of a top-level array, or each entry of the batch API's `values`.
fn responses<'v>(file: &str, doc: &'v Value) -> Result<Vec<(String, &'v Value)>, IngestError> {
    let list: Vec<(String, &Value)> = match doc {
        Value::Array(items) => {
            items.iter().enumerate().map(|(i, v)| (format!("$[{i}]"), v)).collect()
        }
        Value::Object(o)
            if o.get("values").is_some_and(Value::is_array) && !o.contains_key("value") =>
        {
            let items = o.get("values").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
            items.iter().enumerate().map(|(i, v)| (format!("$.values[{i}]"), v)).collect()
        }
        Value::Object(_) => vec![("$".to_owned(), doc)],
        other => {
            return Err(IngestError::invalid(
                file,
                Some(Location::json("$")),
                format!(
                    "expected an Azure Monitor response (an object with `value`), found {}",
                    kind(other)
                ),
            ));
        }
    };
    for (path, v) in &list {
        if let Some(err) = v.get("error") {
            let field = |k: &str| err.get(k).and_then(Value::as_str).unwrap_or("?").to_owned();
            return Err(IngestError::invalid(
                file,
                Some(Location::json(format!("{path}.error"))),
                format!(
                    "Azure returned an error instead of metrics: {}: {}",
                    field("code"),
                    field("message")
                ),
            ));
        }
    }
    Ok(list)
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

struct Reader<'f> {
    file: &'f str,
    meta: CaptureMeta,
    cells: Cells,
    /// The time grains seen, in seconds.
    intervals: Vec<f64>,
    /// Metrics recognised.
    metrics: usize,
}

impl Reader<'_> {
    fn invalid(&self, path: &str, message: impl Into<String>) -> IngestError {
        IngestError::invalid(self.file, Some(Location::json(path)), message)
    }

    fn response(&mut self, path: &str, resp: &Value) -> Result<(), IngestError> {
        let Some(values) = resp.get("value") else {
            return Err(self.invalid(
                path,
                "no `value` array: not an Azure Monitor metrics response (az monitor metrics list)",
            ));
        };
        let Some(values) = values.as_array() else {
            return Err(self.invalid(
                &format!("{path}.value"),
                format!("expected an array, found {}", kind(values)),
            ));
        };
        let grain = resp.get("interval").and_then(Value::as_str).and_then(iso_duration_s);
        if let Some(g) = grain {
            self.intervals.push(g);
        }
        // The batch API names the resource once per response.
        let resource =
            resp.get("resourceid").or_else(|| resp.get("resourceId")).and_then(Value::as_str);
        for (i, m) in values.iter().enumerate() {
            self.metric(&format!("{path}.value[{i}]"), m, resource, grain)?;
        }
        Ok(())
    }

    fn metric(
        &mut self,
        path: &str,
        m: &Value,
        resource: Option<&str>,
        grain: Option<f64>,
    ) -> Result<(), IngestError> {
        if !m.is_object() {
            return Err(self.invalid(path, format!("expected a metric object, found {}", kind(m))));
        }
        let name = m
            .get("name")
            .and_then(|n| n.get("value").or(Some(n)))
            .and_then(Value::as_str)
            .ok_or_else(|| {
            self.invalid(&format!("{path}.name.value"), "a metric without a name")
        })?;
        if let Some(code) = m.get("errorCode").and_then(Value::as_str)
            && !code.eq_ignore_ascii_case("success")
        {
            let msg = m.get("errorMessage").and_then(Value::as_str).unwrap_or("");
            self.meta.warn(
                format!("Azure Monitor could not return `{name}`: {code} {msg}")
                    .trim_end()
                    .to_owned(),
                Some(Location::json(path)),
            );
            return Ok(());
        }
        let id = m.get("id").and_then(Value::as_str).or(resource).unwrap_or("");
        let res = names::resource(id);
        if let Some(vm) = &res.name {
            self.meta.add_host(vm);
        }
        let Some(pm) = metric_of(name, res.kind) else {
            self.meta.ignore(format!("Azure Monitor metric `{name}`"));
            return Ok(());
        };
        if name.to_ascii_lowercase().contains("percentange") {
            self.meta.notes.push(format!(
                "`{name}` is Azure Monitor's early spelling of \"Consumed Percentage\": read as that metric"
            ));
        }
        self.metrics += 1;
        let Some(series) = m.get("timeseries") else { return Ok(()) };
        let Some(series) = series.as_array() else {
            return Err(self.invalid(
                &format!("{path}.timeseries"),
                format!("expected an array, found {}", kind(series)),
            ));
        };
        for (j, ts) in series.iter().enumerate() {
            let tpath = format!("{path}.timeseries[{j}]");
            let dims = dimensions(ts);
            let host = dims.vm.clone().or_else(|| res.name.clone());
            if let Some(h) = &dims.vm {
                self.meta.add_host(h);
            }
            let target_name = match (&pm.subject, &dims.lun, &res.name) {
                (Subject::Lun, Some(lun), _) => format!("LUN {lun}"),
                (Subject::Lun, None, Some(disk)) if res.kind == names::ResourceKind::Disk => {
                    disk.clone()
                }
                (Subject::Lun, None, _) => {
                    self.meta.warn(
                        format!("`{name}` has no LUN dimension: ask for it with --filter \"LUN eq '*'\"; read as LUN ?"),
                        Some(Location::json(&tpath)),
                    );
                    "LUN ?".to_owned()
                }
                (Subject::Named(n), _, _) => (*n).to_owned(),
                (Subject::Resource, _, Some(r)) => r.clone(),
                (Subject::Resource, _, None) => "disk".to_owned(),
            };
            let target_name = match &dims.vm {
                Some(vm) => format!("{vm}: {target_name}"),
                None => target_name,
            };
            let target =
                self.meta.target_index(&target_name, TargetKind::Platform, host.as_deref());
            let Some(points) = ts.get("data").and_then(Value::as_array) else { continue };
            for (k, p) in points.iter().enumerate() {
                advisor_model::work::checkpoint_every(k);
                let ppath = format!("{tpath}.data[{k}]");
                let Some(stamp) = p.get("timeStamp").and_then(Value::as_str) else {
                    return Err(self.invalid(
                        &format!("{ppath}.timeStamp"),
                        "a data point without a timeStamp",
                    ));
                };
                let Ok(time) = chrono::DateTime::parse_from_rfc3339(stamp) else {
                    return Err(self.invalid(
                        &format!("{ppath}.timeStamp"),
                        format!("`{stamp}` is not an ISO 8601 time such as 2026-11-20T10:03:00Z"),
                    ));
                };
                let Some((value, total)) = aggregate(p) else { continue };
                let value = if total {
                    // A total over the grain (the VM's `Disk Read Bytes`): a rate needs the grain.
                    match grain {
                        Some(g) if g > 0.0 => value / g,
                        _ => continue,
                    }
                } else {
                    value
                };
                let value = pm.scale.apply(value);
                if !value.is_finite() {
                    continue;
                }
                self.cells
                    .entry((target, time.timestamp_millis()))
                    .or_default()
                    .push((pm.metric, value));
            }
        }
        Ok(())
    }

    /// The capture, in an order that does not depend on the order of the document's
    /// metrics, time series or points: targets by host and name, rows by target and time,
    /// each row's values by metric.
    fn finish(mut self) -> RawCapture {
        let mut order: Vec<usize> = (0..self.meta.targets.len()).collect();
        order.sort_by(|&a, &b| {
            let (x, y) = (&self.meta.targets[a], &self.meta.targets[b]);
            (&x.host, &x.name).cmp(&(&y.host, &y.name))
        });
        let mut renumber = vec![0u32; order.len()];
        for (new, &old) in order.iter().enumerate() {
            renumber[old] = new as u32;
        }
        self.meta.targets = order.iter().map(|&i| self.meta.targets[i].clone()).collect();
        let mut cells: Cells = BTreeMap::new();
        for ((target, time), mut values) in std::mem::take(&mut self.cells) {
            values.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
            let t = renumber.get(target as usize).copied().unwrap_or(target);
            cells.insert((t, time), values);
        }
        self.cells = cells;
        self.meta.hosts.sort();
        self.meta.ignored.sort();
        self.meta.notes.sort();
        self.meta.notes.dedup();
        self.meta.warnings.sort_by(|a, b| a.message.cmp(&b.message));
        let mut table = Table::default();
        table.reserve(self.cells.len());
        for ((target, time), values) in &self.cells {
            table.push_row(*target, Some(*time), values);
        }
        self.intervals.sort_by(f64::total_cmp);
        self.meta.interval_s = self.intervals.first().copied().or_else(|| median_gap(&self.cells));
        self.meta.notes.push(
            "Azure Monitor times are UTC; each value is the grain's average (its maximum, minimum \
             or total where the average is absent)"
                .to_owned(),
        );
        RawCapture { meta: self.meta, table, since_boot: None }
    }
}

/// The dimensions of a time series that name its subject.
#[derive(Debug, Default)]
struct Dims {
    lun: Option<String>,
    vm: Option<String>,
}

fn dimensions(ts: &Value) -> Dims {
    let mut d = Dims::default();
    for md in ts.get("metadatavalues").and_then(Value::as_array).into_iter().flatten() {
        let key = md.get("name").and_then(|n| n.get("value").or(Some(n))).and_then(Value::as_str);
        let value = match md.get("value") {
            Some(Value::String(s)) => s.trim().to_owned(),
            Some(Value::Number(n)) => n.to_string(),
            _ => continue,
        };
        match key.map(str::to_ascii_lowercase).as_deref() {
            Some("lun") => d.lun = Some(value),
            Some("vmname") => d.vm = Some(value),
            _ => {}
        }
    }
    d
}

/// The point's value: the average, else the maximum, minimum or total (`true`: a total).
/// `count` alone says how many samples there were, not their value.
fn aggregate(p: &Value) -> Option<(f64, bool)> {
    for (key, total) in
        [("average", false), ("maximum", false), ("minimum", false), ("total", true)]
    {
        if let Some(v) = p.get(key).and_then(Value::as_f64) {
            return Some((v, total));
        }
    }
    None
}

/// `PT1M`, `PT5M`, `PT1H`, `P1D`, `PT30S` in seconds.
pub fn iso_duration_s(s: &str) -> Option<f64> {
    let s = s.trim().to_ascii_uppercase();
    let rest = s.strip_prefix('P')?;
    let (days, time) = match rest.split_once('T') {
        Some((d, t)) => (d, t),
        None => (rest, ""),
    };
    let mut total = 0.0;
    let mut parse = |part: &str, units: &[(char, f64)]| -> Option<()> {
        let mut num = String::new();
        for c in part.chars() {
            if c.is_ascii_digit() || c == '.' {
                num.push(c);
            } else {
                let (_, mult) = units.iter().find(|(u, _)| *u == c)?;
                total += num.parse::<f64>().ok()? * mult;
                num.clear();
            }
        }
        num.is_empty().then_some(())
    };
    parse(days, &[('D', 86400.0), ('W', 604_800.0)])?;
    parse(time, &[('H', 3600.0), ('M', 60.0), ('S', 1.0)])?;
    (total > 0.0).then_some(total)
}

fn median_gap(cells: &Cells) -> Option<f64> {
    let mut by_target: BTreeMap<u32, Vec<i64>> = BTreeMap::new();
    for (t, time) in cells.keys() {
        by_target.entry(*t).or_default().push(*time);
    }
    let mut gaps: Vec<i64> = by_target
        .values()
        .flat_map(|v| v.windows(2).map(|w| w[1] - w[0]))
        .filter(|g| *g > 0)
        .collect();
    gaps.sort_unstable();
    gaps.get(gaps.len() / 2).map(|g| *g as f64 / 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(iso_duration_s("PT1M"), Some(60.0));
        assert_eq!(iso_duration_s("PT5M"), Some(300.0));
        assert_eq!(iso_duration_s("P1D"), Some(86400.0));
        assert_eq!(iso_duration_s("PT1H30M"), Some(5400.0));
        assert_eq!(iso_duration_s("1M"), None);
        assert_eq!(iso_duration_s("PTXM"), None);
        assert_eq!(iso_duration_s("P"), None);
    }
}
