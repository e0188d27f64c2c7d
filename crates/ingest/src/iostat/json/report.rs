//! One report (a `statistics` entry) of `iostat -o JSON`: its keys buffered as a
//! `serde_json::Value` would hold them ([`Entry`]: a key given twice counts once, with its
//! last value), then read into a [`Report`] in the order `timestamp`, `avg-cpu`, `disk`,
//! with a warning and the JSON path for each value of an unexpected type.

use std::borrow::Cow;
use std::fmt;

use advisor_model::{CaptureMeta, Location};
use serde::de::{MapAccess, SeqAccess, Visitor};

use super::values::{KeySeed, Skip, Val, ValSeed, scalars_call, seed};
use crate::iostat::Report;
use crate::iostat::columns::{self, Column, Number};
use crate::iostat::time::{self, DateOrder};

/// What is known of the last reports' keys (reset with what the document gave).
#[derive(Debug, Default)]
pub(super) struct Known {
    disk_keys: DiskKeys,
    /// The last avg-cpu keys recorded as ignored.
    cpu_recorded: Vec<String>,
}

/// Where a report is read to.
pub(super) struct Reading<'a> {
    pub meta: &'a mut CaptureMeta,
    pub report: &'a mut Report,
    pub known: &'a mut Known,
    pub order: DateOrder,
    /// Set when a timestamp is day-first.
    pub day_first: &'a mut bool,
    /// Whether the capture's version (the layout of the first disk object) is set.
    pub version_set: &'a mut bool,
}

/// `base.key`, or `base["key"]` for keys that are not identifiers (`r/s`, `avg-cpu`).
pub(super) fn key_path(base: &str, key: &str) -> String {
    let ident = key.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ident { format!("{base}.{key}") } else { format!("{base}[{key:?}]") }
}

/// Where a report is, for locations (built only when one is needed).
#[derive(Debug, Clone, Copy)]
pub(super) struct At {
    pub host: usize,
    pub stat: usize,
}

impl At {
    pub(super) fn stat_path(self) -> String {
        format!("$.sysstat.hosts[{}].statistics[{}]", self.host, self.stat)
    }
}

/// A report's keys as a `Value` would hold them (a key given twice: its last value). Keys
/// and values borrow from the text; the vectors are kept from one report to the next.
#[derive(Debug, Default)]
pub(super) struct Entry<'de> {
    timestamp: Option<Val<'de>>,
    cpu: Found,
    /// The avg-cpu object's keys (a key given twice is listed twice) and its last `idle`.
    cpu_keys: Vec<Cow<'de, str>>,
    idle: Option<Val<'de>>,
    disk: Found,
    /// The disk list's entries: `None` for one that is not an object, else its range in
    /// `keys` and `vals`.
    disks: Vec<Option<(usize, usize)>>,
    keys: Vec<Cow<'de, str>>,
    vals: Vec<Val<'de>>,
}

/// Whether a key was there, and with a value of the expected type.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
enum Found {
    #[default]
    Absent,
    OtherType,
    Expected,
}

impl<'de> Entry<'de> {
    /// Reads a report object's keys into the entry (emptied first).
    pub(super) fn fill<A: MapAccess<'de>>(&mut self, mut map: A) -> Result<(), A::Error> {
        self.clear();
        while let Some(k) = map.next_key_seed(KeySeed)? {
            match k.as_ref() {
                "timestamp" => self.timestamp = Some(map.next_value_seed(ValSeed)?),
                "avg-cpu" => map.next_value_seed(CpuSeed(self))?,
                "disk" => map.next_value_seed(DisksSeed(self))?,
                _ => map.next_value_seed(Skip)?,
            }
        }
        Ok(())
    }

    fn clear(&mut self) {
        self.timestamp = None;
        self.cpu = Found::Absent;
        self.cpu_keys.clear();
        self.idle = None;
        self.disk = Found::Absent;
        self.disks.clear();
        self.keys.clear();
        self.vals.clear();
    }
}

/// `"avg-cpu": {...}` into an [`Entry`].
struct CpuSeed<'a, 'de>(&'a mut Entry<'de>);
seed!(CpuSeed);

impl<'de> Visitor<'de> for CpuSeed<'_, 'de> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }
    scalars_call!(other);
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        Skip.visit_seq(seq)?;
        self.other()
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let e = self.0;
        e.cpu = Found::Expected;
        e.cpu_keys.clear();
        e.idle = None;
        while let Some(k) = map.next_key_seed(KeySeed)? {
            if k == "idle" {
                e.idle = Some(map.next_value_seed(ValSeed)?);
            } else {
                map.next_value_seed(Skip)?;
            }
            e.cpu_keys.push(k);
        }
        Ok(())
    }
}

impl CpuSeed<'_, '_> {
    fn other<E>(self) -> Result<(), E> {
        self.0.cpu = Found::OtherType;
        self.0.cpu_keys.clear();
        self.0.idle = None;
        Ok(())
    }
}

/// `"disk": [...]` into an [`Entry`].
struct DisksSeed<'a, 'de>(&'a mut Entry<'de>);
seed!(DisksSeed);

impl<'de> Visitor<'de> for DisksSeed<'_, 'de> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array")
    }
    scalars_call!(other);
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        Skip.visit_map(map)?;
        self.other()
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let e = self.0;
        e.disk = Found::Expected;
        e.disks.clear();
        e.keys.clear();
        e.vals.clear();
        while seq.next_element_seed(DiskSeed(&mut *e))?.is_some() {}
        Ok(())
    }
}

impl DisksSeed<'_, '_> {
    fn other<E>(self) -> Result<(), E> {
        let e = self.0;
        e.disk = Found::OtherType;
        e.disks.clear();
        e.keys.clear();
        e.vals.clear();
        Ok(())
    }
}

impl DiskSeed<'_, '_> {
    fn not_an_object<E>(self) -> Result<(), E> {
        self.0.disks.push(None);
        Ok(())
    }
}

/// One entry of the disk list into an [`Entry`].
struct DiskSeed<'a, 'de>(&'a mut Entry<'de>);
seed!(DiskSeed);

impl<'de> Visitor<'de> for DiskSeed<'_, 'de> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }
    scalars_call!(not_an_object);
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        Skip.visit_seq(seq)?;
        self.not_an_object()
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let e = self.0;
        let start = e.keys.len();
        while let Some(k) = map.next_key_seed(KeySeed)? {
            e.keys.push(k);
            e.vals.push(map.next_value_seed(ValSeed)?);
        }
        e.disks.push(Some((start, e.keys.len())));
        Ok(())
    }
}

/// Reads a buffered report into `r.report`.
pub(super) fn read(r: &mut Reading<'_>, at: At, entry: &mut Entry<'_>) {
    r.report.clear();
    r.report.seen = true;
    if let Some(t) = entry.timestamp.take() {
        timestamp(r, at, t);
    }
    match entry.cpu {
        Found::Absent => {}
        Found::OtherType => r.meta.warn(
            "skipped an avg-cpu that is not an object",
            Some(Location::json(key_path(&at.stat_path(), "avg-cpu"))),
        ),
        Found::Expected => cpu(r, at, entry),
    }
    match entry.disk {
        Found::Absent => {}
        Found::OtherType => r.meta.warn(
            "skipped a disk list that is not an array",
            Some(Location::json(key_path(&at.stat_path(), "disk"))),
        ),
        Found::Expected => {
            for (index, range) in entry.disks.iter().enumerate() {
                match *range {
                    Some((start, end)) => {
                        let keys = entry.keys.get(start..end).unwrap_or(&[]);
                        let vals = entry.vals.get(start..end).unwrap_or(&[]);
                        disk(r, at, index, keys, vals);
                    }
                    None => r.meta.warn(
                        "skipped a disk entry that is not an object",
                        Some(Location::json(disk_path(at, index))),
                    ),
                }
            }
        }
    }
}

fn disk_path(at: At, index: usize) -> String {
    format!("{}[{index}]", key_path(&at.stat_path(), "disk"))
}

fn timestamp(r: &mut Reading<'_>, at: At, v: Val<'_>) {
    let loc = || Location::json(key_path(&at.stat_path(), "timestamp"));
    match v {
        Val::Str(t) => {
            *r.day_first |= time::has_day_first_date(&t);
            match time::parse_timestamp(&t, r.order) {
                Some(st) => r.report.time = Some(st),
                None => r
                    .meta
                    .warn("unreadable timestamp; the report is kept without a time", Some(loc())),
            }
        }
        _ => r.meta.warn(
            "a timestamp that is not a string; the report is kept without a time",
            Some(loc()),
        ),
    }
}

/// 100 - idle of an avg-cpu object; its other keys are recorded as ignored.
fn cpu(r: &mut Reading<'_>, at: At, entry: &mut Entry<'_>) {
    let keys = &entry.cpu_keys;
    if r.known.cpu_recorded.len() != keys.len()
        || r.known.cpu_recorded.iter().zip(keys).any(|(a, b)| a != b)
    {
        for k in keys.iter().filter(|k| *k != "idle") {
            r.meta.ignore(format!("avg-cpu {k}"));
        }
        r.known.cpu_recorded = keys.iter().map(|k| k.to_string()).collect();
    }
    let path = || key_path(&key_path(&at.stat_path(), "avg-cpu"), "idle");
    r.report.cpu_pct = match entry.idle.take() {
        None => {
            r.meta.warn("avg-cpu without idle: CPU not read", Some(Location::json(path())));
            None
        }
        Some(Val::Num(i)) => match columns::check(100.0 - i) {
            Ok(v) => Some((v * 1e6).round() / 1e6),
            Err(why) => {
                let message = format!("dropped {why} in avg-cpu idle");
                r.meta.warn(message, Some(Location::json(path())));
                None
            }
        },
        Some(_) => {
            r.meta.warn("avg-cpu idle is not a number", Some(Location::json(path())));
            None
        }
    };
}

/// The keys of the last disk objects (usually every disk of a document has the same) and
/// what was made of them: each key once, at its first place, with what it holds and the
/// index of its last value; where `disk_device` is; whether the ignored ones are recorded
/// in the capture (recording them again changes nothing).
#[derive(Debug, Default)]
struct DiskKeys {
    seen: Vec<String>,
    columns: Vec<(String, Column)>,
    value_at: Vec<usize>,
    device: Option<usize>,
    ignored_recorded: bool,
}

impl DiskKeys {
    fn learn(&mut self, keys: &[Cow<'_, str>]) {
        let same = self.seen.len() == keys.len() && self.seen.iter().zip(keys).all(|(a, b)| a == b);
        if same {
            return;
        }
        self.seen = keys.iter().map(|k| k.to_string()).collect();
        self.columns.clear();
        self.value_at.clear();
        for (i, k) in keys.iter().enumerate() {
            match self.columns.iter().position(|(c, _)| c == k) {
                Some(j) => self.value_at[j] = i,
                None => {
                    self.columns.push((k.to_string(), columns::classify(k)));
                    self.value_at.push(i);
                }
            }
        }
        self.device = self.columns.iter().position(|(k, _)| k == "disk_device");
        self.ignored_recorded = false;
    }
}

/// One device row from a disk object's keys and values.
fn disk(r: &mut Reading<'_>, at: At, index: usize, keys: &[Cow<'_, str>], vals: &[Val<'_>]) {
    r.known.disk_keys.learn(keys);
    let dk = &mut r.known.disk_keys;
    let meta = &mut r.meta;
    let path = || disk_path(at, index);
    if !*r.version_set {
        let names: Vec<&str> = dk.columns.iter().map(|(k, _)| k.as_str()).collect();
        meta.version = Some(columns::layout(&names));
        *r.version_set = true;
    }
    let raw_name = match dk.device.and_then(|j| vals.get(dk.value_at[j])) {
        Some(Val::Str(s)) => s.as_ref(),
        _ => {
            meta.warn(
                "skipped a disk entry without a disk_device name",
                Some(Location::json(key_path(&path(), "disk_device"))),
            );
            return;
        }
    };
    let name = raw_name.trim();
    if name.is_empty() {
        meta.warn("skipped a disk entry with an empty name", Some(Location::json(path())));
        return;
    }
    // `-g` group summaries carry a leading space.
    let group = raw_name.starts_with(' ');
    let device = r.report.push_device(name, group);
    for (j, ((k, col), &vi)) in dk.columns.iter().zip(&dk.value_at).enumerate() {
        if Some(j) == dk.device {
            continue;
        }
        match col {
            Column::Metric { .. } => {}
            Column::Ignored => {
                if !dk.ignored_recorded {
                    meta.ignore(k.as_str());
                }
                continue;
            }
            Column::Unknown => {
                if !dk.ignored_recorded {
                    meta.ignore(format!("{k} (unknown key)"));
                }
                continue;
            }
        }
        let Some(Val::Num(x)) = vals.get(vi) else {
            meta.warn(
                format!("skipped a value of {k} that is not a number"),
                Some(Location::json(key_path(&path(), k))),
            );
            continue;
        };
        match columns::convert(*col, Number { value: *x, suffix_bytes: None }) {
            Ok(Some(mv)) => device.values.push(mv),
            Ok(None) => {}
            Err(why) => meta
                .warn(format!("dropped {why} in {k}"), Some(Location::json(key_path(&path(), k)))),
        }
    }
    dk.ignored_recorded = true;
}
