//! sadf's three renderings of sar data: `sadf -d` (`;`-separated, a `# hostname;...`
//! header per section), `sadf -j` (JSON) and `sadf -x` (XML), read for the block-device
//! (`-d`) and CPU (`-u`) activities, into the same rows as the sar text of the same file.
//!
//! Shapes, from sysstat 12.6.1's own output (`fixtures/captures/sadf/PROVENANCE.md`):
//! - `-d`: `# hostname;interval;timestamp;DEV;tps;rkB/s;...;%util` then
//!   `vm;1;2026-11-24 03:59:32 UTC;vda;764.00;...`; the CPU section's `CPU` is `-1` for all.
//! - `-j`: `$.sysstat.hosts[].statistics[]` with `timestamp {date, time, utc, interval}`,
//!   `cpu-load[] {cpu: "all", idle}` and `disk[] {disk-device, tps, rkB, wkB, areq-sz,
//!   aqu-sz, await, util-percent}`. sysstat 12 also writes the old names (`rd_sec`, `wr_sec`
//!   in sectors, `avgrq-sz`, `avgqu-sz`); older versions write only those.
//! - `-x`: the same under `<host nodename>` / `<statistics>` / `<timestamp date time utc
//!   interval>`, as attributes of `<cpu number="all">` and `<disk-device dev>`.
//!
//! Columns go through sar text's names ([`super::text::classify`]), so units and checks are
//! the text reader's; where a file gives a new and an old name for one measure (`rkB` and
//! `rd_sec`), the new one is kept.

use std::collections::BTreeMap;

use advisor_model::{CaptureMeta, Format, Location, Metric, RawCapture, Table, TargetKind};
use chrono::{DateTime, NaiveDateTime};
use quick_xml::events::{BytesStart, Event};
use quick_xml::reader::Reader;
use serde_json::Value;

use crate::IngestError;
use crate::error::line_col;
use crate::iostat::columns::{self, Column};

pub(super) const CSV: Format = Format::new("sadf-csv", "sadf -d (sar data, ;-separated)", false);
pub(super) const JSON: Format = Format::new("sadf-json", "sadf -j (sar data as JSON)", false);
pub(super) const XML: Format = Format::new("sadf-xml", "sadf -x (sar data as XML)", false);

/// `sadf -d`'s first line.
pub(crate) fn is_csv(first_line: &str) -> bool {
    first_line.starts_with("# hostname;") && first_line.contains(";timestamp")
}

/// sadf -j: a `"sysstat"` object whose hosts carry `"statistics"` (iostat -o JSON's carry
/// `"statistics"` too, but no `"file-date"` and no `"timestamp": {`).
pub(crate) fn is_json(head: &str) -> bool {
    head.starts_with('{')
        && head.contains("\"sysstat\"")
        && (head.contains("\"file-date\"") || head.contains("\"timestamp\": {"))
}

/// sadf -x: the `<sysstat>` root (sysstat's DTD).
pub(crate) fn is_xml(head: &str) -> bool {
    head.starts_with("<?xml") && head.contains("<sysstat") && head.contains("<sysdata-version>")
}

/// The JSON/XML field names as sar text prints the column; `None` for fields that are
/// not measurements (the device's name) or that sar text has no column for.
fn text_name(key: &str) -> Option<&'static str> {
    Some(match key {
        "tps" => "tps",
        "rkB" => "rkB/s",
        "wkB" => "wkB/s",
        "dkB" => "dkB/s",
        "rd_sec" => "rd_sec/s",
        "wr_sec" => "wr_sec/s",
        "areq-sz" => "areq-sz",
        "avgrq-sz" => "avgrq-sz",
        "aqu-sz" => "aqu-sz",
        "avgqu-sz" => "avgqu-sz",
        "await" => "await",
        "r_await" => "r_await",
        "w_await" => "w_await",
        "svctm" => "svctm",
        "util-percent" => "%util",
        _ => return None,
    })
}

/// Old names, used only where the file has no new name for the same measure.
fn is_old(name: &str) -> bool {
    matches!(name, "rd_sec/s" | "wr_sec/s" | "avgrq-sz" | "avgqu-sz")
}

/// The rows of every rendering, and what they say about the capture.
struct Rows<'f> {
    file: &'f str,
    meta: CaptureMeta,
    table: Table,
    times: Vec<i64>,
    ignored: Vec<String>,
}

impl<'f> Rows<'f> {
    fn new(file: &'f str, format: Format) -> Self {
        Self {
            file,
            meta: CaptureMeta::new(format),
            table: Table::default(),
            times: Vec::new(),
            ignored: Vec::new(),
        }
    }

    fn time(&mut self, ms: i64) {
        if self.times.last() != Some(&ms) {
            self.times.push(ms);
        }
    }

    /// One device's sample: (column name as sar text prints it, value as written).
    fn disk(&mut self, host: &str, ms: i64, dev: &str, fields: &[(&str, &str)], at: &Location) {
        self.time(ms);
        let mut values: Vec<(Metric, f64)> = Vec::new();
        let mut order: Vec<&(&str, &str)> = fields.iter().collect();
        order.sort_by_key(|(n, _)| is_old(n));
        for (name, raw) in order {
            let col = super::text::classify(name);
            if col == Column::Unknown {
                if !self.ignored.iter().any(|x| x == name) {
                    self.ignored.push((*name).to_owned());
                }
                continue;
            }
            let conv = columns::parse_number(raw)
                .ok_or("not a number")
                .and_then(|n| columns::convert(col, n));
            match conv {
                Ok(Some((m, v))) if !values.iter().any(|(k, _)| *k == m) => values.push((m, v)),
                Ok(_) => {}
                Err(why) => self.meta.warn(
                    format!("skipped `{raw}` ({name}) of device {dev}: {why}"),
                    Some(at.clone()),
                ),
            }
        }
        let t = self.meta.target_index(dev, TargetKind::Device, Some(host));
        self.table.push_row(t, Some(ms), &values);
    }

    /// The `all` CPU's `%idle` of one sample.
    fn cpu(&mut self, host: &str, ms: i64, idle: &str, at: &Location) {
        self.time(ms);
        match columns::parse_number(idle) {
            Some(n) if (0.0..=100.0).contains(&n.value) => {
                let t = self.meta.target_index(host, TargetKind::Host, Some(host));
                self.table.push_row(t, Some(ms), &[(Metric::CpuPct, 100.0 - n.value)]);
            }
            _ => self.meta.warn(
                "skipped a CPU sample whose idle share is not a percentage",
                Some(at.clone()),
            ),
        }
    }

    fn finish(mut self, utc: bool) -> Result<RawCapture, IngestError> {
        if self.table.is_empty() {
            return Err(IngestError::invalid(
                self.file,
                None,
                "no block-device or CPU activity in this sadf output: convert with \
                 `sadf -d|-j|-x saDD -- -d -p -u` (the `-- -d -u` part chooses them)",
            ));
        }
        if utc {
            self.meta.utc_offset_min = Some(0);
            self.meta.timezone = Some("UTC".to_owned());
        }
        self.meta.ignored = self.ignored;
        let mut diffs: Vec<i64> =
            self.times.windows(2).map(|w| w[1] - w[0]).filter(|d| *d > 0).collect();
        diffs.sort_unstable();
        if let Some(m) = diffs.get(diffs.len() / 2) {
            self.meta.interval_s = Some(*m as f64 / 1000.0);
        }
        Ok(RawCapture { meta: self.meta, table: self.table, since_boot: None })
    }
}

/// sadf's timestamps: `2026-11-24 03:59:32 UTC` (`-d`), `2026-11-24` + `03:59:32` (`-j`,
/// `-x`), or seconds since the epoch (`-d -U`); in milliseconds.
fn timestamp(text: &str) -> Option<i64> {
    let t = text.trim();
    if let Ok(secs) = t.parse::<i64>() {
        return DateTime::from_timestamp(secs, 0).map(|d| d.timestamp_millis());
    }
    let t = t.strip_suffix("UTC").map_or(t, str::trim_end);
    NaiveDateTime::parse_from_str(t, "%Y-%m-%d %H:%M:%S")
        .ok()
        .map(|d| d.and_utc().timestamp_millis())
}

/// `sadf -d`.
pub(crate) fn read_csv(file: &str, text: &str) -> Result<RawCapture, IngestError> {
    enum Sec {
        Other,
        Dev { cols: Vec<String>, dev: usize },
        Cpu { cpu: usize, idle: usize },
    }
    let mut rows = Rows::new(file, CSV);
    let mut sec = Sec::Other;
    let mut utc = true;
    for (i, line) in text.lines().enumerate() {
        advisor_model::work::checkpoint_every(i);
        let no = i as u64 + 1;
        let line = line.trim_end_matches('\r');
        if let Some(head) = line.strip_prefix("# ") {
            let names: Vec<&str> = head.split(';').collect();
            let at = |n: &str| names.iter().position(|x| *x == n);
            if at("hostname") != Some(0) || at("timestamp") != Some(2) {
                return Err(IngestError::invalid(
                    file,
                    Some(Location::line(no, 1)),
                    "a sadf -d header that does not start `# hostname;interval;timestamp`",
                ));
            }
            sec = match (at("DEV"), at("CPU"), at("%idle")) {
                (Some(dev), _, _) => {
                    Sec::Dev { cols: names.iter().map(|s| (*s).to_owned()).collect(), dev }
                }
                (None, Some(cpu), Some(idle)) => Sec::Cpu { cpu, idle },
                _ => Sec::Other,
            };
            continue;
        }
        if line.trim().is_empty() || matches!(sec, Sec::Other) {
            continue;
        }
        let cells: Vec<&str> = line.split(';').collect();
        let loc = Location::line(no, 1);
        let host = cells.first().copied().unwrap_or("").to_owned();
        let Some(ms) = cells.get(2).and_then(|t| timestamp(t)) else {
            rows.meta.warn("skipped a line whose timestamp is not a date and time", Some(loc));
            continue;
        };
        if cells.get(2).is_some_and(|t| !t.trim_end().ends_with("UTC") && t.contains(' ')) {
            utc = false;
        }
        rows.meta.add_host(&host);
        match &sec {
            Sec::Dev { cols, dev } => {
                if cells.len() != cols.len() {
                    rows.meta.warn(
                        format!(
                            "skipped a device line of {} fields under a header of {}",
                            cells.len(),
                            cols.len()
                        ),
                        Some(loc),
                    );
                    continue;
                }
                let Some(name) = cells.get(*dev).filter(|d| !d.is_empty()) else { continue };
                let fields: Vec<(&str, &str)> = cols
                    .iter()
                    .zip(&cells)
                    .enumerate()
                    .filter(|(k, _)| *k > 2 && k != dev)
                    .map(|(_, (c, v))| (c.as_str(), *v))
                    .collect();
                rows.disk(&host, ms, name, &fields, &loc);
            }
            Sec::Cpu { cpu, idle } => {
                if matches!(cells.get(*cpu).copied(), Some("-1" | "all"))
                    && let Some(v) = cells.get(*idle)
                {
                    rows.cpu(&host, ms, v, &loc);
                }
            }
            Sec::Other => {}
        }
    }
    rows.finish(utc)
}

/// A JSON value as the text sadf wrote for it (numbers stay numbers).
fn json_text(v: &Value) -> Option<String> {
    match v {
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) => Some(s.clone()),
        _ => None,
    }
}

/// `sadf -j`.
pub(crate) fn read_json(file: &str, text: &str) -> Result<RawCapture, IngestError> {
    let doc: Value = serde_json::from_str(text).map_err(|e| {
        let what = if e.is_eof() { "the JSON stops before its end" } else { "not valid JSON" };
        IngestError::invalid(
            file,
            Some(Location::line(e.line() as u64, e.column() as u64)),
            format!("{what}: {e}"),
        )
    })?;
    let bad = |path: String, msg: &str| IngestError::invalid(file, Some(Location::json(path)), msg);
    let Some(hosts) = doc.pointer("/sysstat/hosts").and_then(Value::as_array) else {
        return Err(bad("$.sysstat.hosts".into(), "no `hosts` array: not sadf -j output"));
    };
    let mut rows = Rows::new(file, JSON);
    let mut utc = true;
    for (h, host) in hosts.iter().enumerate() {
        let hp = format!("$.sysstat.hosts[{h}]");
        let name = host.get("nodename").and_then(Value::as_str).unwrap_or("host").to_owned();
        rows.meta.add_host(&name);
        let Some(stats) = host.get("statistics").and_then(Value::as_array) else {
            return Err(bad(format!("{hp}.statistics"), "no `statistics` array"));
        };
        for (s, st) in stats.iter().enumerate() {
            let sp = format!("{hp}.statistics[{s}]");
            let Some(ts) = st.get("timestamp") else { continue };
            let date = ts.get("date").and_then(Value::as_str).unwrap_or("");
            let time = ts.get("time").and_then(Value::as_str).unwrap_or("");
            let Some(ms) = timestamp(&format!("{date} {time}")) else {
                return Err(bad(format!("{sp}.timestamp"), "not a date and time"));
            };
            if ts.get("utc").and_then(Value::as_i64) == Some(0) {
                utc = false;
            }
            for (k, c) in
                st.get("cpu-load").and_then(Value::as_array).into_iter().flatten().enumerate()
            {
                let all = c.get("cpu").and_then(json_text).is_some_and(|x| x == "all" || x == "-1");
                if let (true, Some(idle)) = (all, c.get("idle").and_then(json_text)) {
                    rows.cpu(&name, ms, &idle, &Location::json(format!("{sp}.cpu-load[{k}].idle")));
                }
            }
            for (k, d) in st.get("disk").and_then(Value::as_array).into_iter().flatten().enumerate()
            {
                let dp = format!("{sp}.disk[{k}]");
                let Some(obj) = d.as_object() else {
                    return Err(bad(dp, "a disk that is not an object"));
                };
                let Some(dev) = obj.get("disk-device").and_then(Value::as_str) else {
                    return Err(bad(format!("{dp}.disk-device"), "a disk without its device name"));
                };
                let texts: Vec<(&'static str, String)> =
                    obj.iter().filter_map(|(k, v)| Some((text_name(k)?, json_text(v)?))).collect();
                let fields: Vec<(&str, &str)> =
                    texts.iter().map(|(n, v)| (*n, v.as_str())).collect();
                rows.disk(&name, ms, dev, &fields, &Location::json(dp));
            }
        }
    }
    rows.finish(utc)
}

/// An element's attributes, decoded.
fn attributes(e: &BytesStart<'_>) -> Result<BTreeMap<String, String>, String> {
    let mut out = BTreeMap::new();
    for a in e.attributes() {
        let a = a.map_err(|err| format!("malformed attribute: {err}"))?;
        let key = a.key.0.to_owned();
        let value = a
            .normalized_value(quick_xml::XmlVersion::Implicit1_0)
            .map_err(|err| format!("bad attribute value: {err}"))?;
        out.insert(key, value.into_owned());
    }
    Ok(out)
}

/// `sadf -x`.
pub(crate) fn read_xml(file: &str, text: &str) -> Result<RawCapture, IngestError> {
    let mut reader = Reader::from_str(text);
    let mut rows = Rows::new(file, XML);
    let mut host = "host".to_owned();
    let mut ms: Option<i64> = None;
    let mut utc = true;
    let mut depth = 0usize;
    let mut closed = false;
    for n in 0usize.. {
        advisor_model::work::checkpoint_every(n);
        let pos = reader.buffer_position();
        let event = match reader.read_event() {
            Ok(e) => e,
            Err(e) => {
                return Err(IngestError::invalid(
                    file,
                    Some(line_col(
                        text,
                        usize::try_from(reader.error_position()).unwrap_or(usize::MAX),
                    )),
                    format!("malformed XML: {e}"),
                ));
            }
        };
        let e = match event {
            Event::Start(e) => {
                depth += 1;
                e
            }
            Event::Empty(e) => e,
            Event::End(_) => {
                depth = depth.saturating_sub(1);
                closed |= depth == 0;
                continue;
            }
            Event::Eof => break,
            _ => continue,
        };
        let at = line_col(text, usize::try_from(pos).unwrap_or(usize::MAX));
        let attrs = attributes(&e).map_err(|m| IngestError::invalid(file, Some(at.clone()), m))?;
        match e.name().as_ref() {
            "host" => {
                if let Some(n) = attrs.get("nodename") {
                    host.clone_from(n);
                    rows.meta.add_host(n);
                }
            }
            "timestamp" => {
                let date = attrs.get("date").map_or("", String::as_str);
                let time = attrs.get("time").map_or("", String::as_str);
                ms = timestamp(&format!("{date} {time}"));
                if ms.is_none() {
                    return Err(IngestError::invalid(
                        file,
                        Some(at),
                        "a <timestamp> that is not a date and time",
                    ));
                }
                if attrs.get("utc").is_some_and(|u| u == "0") {
                    utc = false;
                }
            }
            "cpu" => {
                let all = attrs.get("number").is_some_and(|n| n == "all" || n == "-1");
                if let (true, Some(t), Some(idle)) = (all, ms, attrs.get("idle")) {
                    rows.cpu(&host, t, idle, &at);
                }
            }
            "disk-device" => {
                let Some(t) = ms else { continue };
                let Some(dev) = attrs.get("dev") else {
                    return Err(IngestError::invalid(
                        file,
                        Some(at),
                        "a <disk-device> without `dev`",
                    ));
                };
                let fields: Vec<(&str, &str)> =
                    attrs.iter().filter_map(|(k, v)| Some((text_name(k)?, v.as_str()))).collect();
                rows.disk(&host, t, dev, &fields, &at);
            }
            _ => {}
        }
    }
    if !closed {
        return Err(IngestError::invalid(
            file,
            Some(line_col(text, text.len())),
            "the XML stops before its end (no closing </sysstat>): the file was cut",
        ));
    }
    rows.finish(utc)
}
