//! The walk over an `iostat -o JSON` document, as it is parsed: no `serde_json::Value` of
//! the document is built (a day of 32 devices at 1 s is 190 MB of JSON, and several GB as
//! a `Value`).
//!
//! What is read is what a `Value` of the document would hold: a key given twice counts
//! once, at its first place, with its last value; keys may come in any order. A report
//! (`statistics` entry) is buffered until its object closes, then read in the order
//! `timestamp`, `avg-cpu`, `disk`. A host's reports go to the [`Assembler`] as they are
//! read, under the host's `nodename`; when that is not known in time (`statistics` before
//! `nodename`, or either key twice: layouts sysstat does not write), the document is read
//! again after a first pass that notes each host's name and last `statistics` (its
//! [`Plan`]). Slash dates are month-first unless some date of the document says otherwise,
//! which is known at the end: such a document is read again, day-first.

use std::borrow::Cow;
use std::fmt;

use advisor_model::{CaptureMeta, Location};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use super::values::{KeySeed, Skip, Val, ValSeed, scalars_call, scalars_give};
use crate::IngestError;
use crate::iostat::columns::{self, Column, Number};
use crate::iostat::time::{self, DateOrder};
use crate::iostat::{Assembler, Report};

/// What a read of the whole document gives.
#[derive(Debug)]
pub(super) struct Walked {
    pub meta: CaptureMeta,
    pub asm: Assembler,
    pub first_location: Option<Location>,
    /// Where text after the document starts (`serde_json`'s line and column), if any.
    pub trailing: Option<(usize, usize)>,
}

/// Why a document gives no [`Walked`].
#[derive(Debug)]
pub(super) enum Failed {
    /// Not JSON, or cut short.
    Json(serde_json::Error),
    /// JSON without the shape of iostat's (`$.sysstat.hosts` missing, say).
    Shape(IngestError),
}

/// Reads `body` (the text from the document's `{`); `meta` is what the reader has noted so
/// far.
pub(super) fn walk(file: &str, body: &str, meta: &CaptureMeta) -> Result<Walked, Failed> {
    let mut order = DateOrder::MonthFirst;
    let mut plan: Option<Plan> = None;
    loop {
        let mut w = Walker::new(meta.clone(), order, Mode::from(plan.take()));
        let result = w.run(body);
        if let Mode::Planned(p) = std::mem::replace(&mut w.mode, Mode::Direct) {
            plan = Some(p);
        }
        let trailing = match result {
            Ok(trailing) => trailing,
            Err(_) if w.restart => {
                plan = Some(make_plan(body)?);
                continue;
            }
            Err(e) => return Err(Failed::Json(e)),
        };
        if w.state.day_first && order == DateOrder::MonthFirst {
            order = DateOrder::DayFirst;
            continue;
        }
        return w.finish(file, trailing).map_err(Failed::Shape);
    }
}

/// The first pass of a document whose hosts cannot be read in one pass.
fn make_plan(body: &str) -> Result<Plan, Failed> {
    let mut w = Walker::new(CaptureMeta::new(crate::iostat::JSON), DateOrder::MonthFirst, {
        Mode::Planning(Plan::default())
    });
    w.run(body).map_err(Failed::Json)?;
    match w.mode {
        Mode::Planning(p) => Ok(p),
        _ => Ok(Plan::default()),
    }
}

/// `base.key`, or `base["key"]` for keys that are not identifiers (`r/s`, `avg-cpu`).
pub(super) fn key_path(base: &str, key: &str) -> String {
    let ident = key.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ident { format!("{base}.{key}") } else { format!("{base}[{key:?}]") }
}

/// Each `hosts` array of the document (in the order met), each host's final `nodename`
/// and how many `statistics` keys it has (the last one counts).
#[derive(Debug, Default)]
struct Plan {
    hosts: Vec<Vec<HostPlan>>,
}

#[derive(Debug, Default, Clone)]
struct HostPlan {
    name: Option<String>,
    statistics: usize,
}

#[derive(Debug)]
enum Mode {
    /// Reports go to the assembler under the `nodename` read so far; a host that turns out
    /// otherwise stops the pass (`restart`).
    Direct,
    /// Noting each host's name and `statistics` count; reports are skipped.
    Planning(Plan),
    /// Reading with the plan: only each host's last `statistics`, under its final name.
    Planned(Plan),
}

impl From<Option<Plan>> for Mode {
    fn from(plan: Option<Plan>) -> Self {
        plan.map_or(Mode::Direct, Mode::Planned)
    }
}

/// What the `sysstat` object of the document yields; all of it starts again when a later
/// `sysstat` or `hosts` key replaces the one read.
#[derive(Debug)]
struct State {
    meta: CaptureMeta,
    asm: Assembler,
    /// A date or timestamp of the document is day-first.
    day_first: bool,
    first_location: Option<Location>,
    version_set: bool,
    runs_with_reports: usize,
}

impl State {
    fn new(meta: CaptureMeta) -> Self {
        Self {
            meta,
            asm: Assembler::default(),
            day_first: false,
            first_location: None,
            version_set: false,
            runs_with_reports: 0,
        }
    }
}

/// One pass over the document.
struct Walker<'de> {
    /// What was noted before the document (text before it, a cut).
    meta0: CaptureMeta,
    order: DateOrder,
    mode: Mode,
    /// `hosts` arrays met so far (the plan's index).
    hosts_arrays: usize,
    /// The pass stopped: a host must be read with a plan.
    restart: bool,
    /// `$.sysstat`: absent, not an object, an object; and its `hosts`: an array or not.
    sysstat: Option<bool>,
    hosts: Option<bool>,
    state: State,
    /// The report being filled, and the buffered entry it is read from.
    report: Report,
    entry: Entry<'de>,
    /// The last disk objects' keys, and what is known of them.
    disk_keys: DiskKeys,
    /// The last avg-cpu keys recorded as ignored.
    cpu_recorded: Vec<String>,
}

impl<'de> Walker<'de> {
    fn new(meta0: CaptureMeta, order: DateOrder, mode: Mode) -> Self {
        Self {
            state: State::new(meta0.clone()),
            meta0,
            order,
            mode,
            hosts_arrays: 0,
            restart: false,
            sysstat: None,
            hosts: None,
            report: Report::default(),
            entry: Entry::default(),
            disk_keys: DiskKeys::default(),
            cpu_recorded: Vec::new(),
        }
    }

    fn run(&mut self, body: &'de str) -> Result<Option<(usize, usize)>, serde_json::Error> {
        let mut de = serde_json::Deserializer::from_str(body);
        Root(self).deserialize(&mut de)?;
        Ok(de.end().err().map(|e| (e.line(), e.column())))
    }

    /// Forgets what the document's `sysstat` gave so far.
    fn reset(&mut self) {
        self.state = State::new(self.meta0.clone());
        self.disk_keys = DiskKeys::default();
        self.cpu_recorded.clear();
    }

    fn finish(self, file: &str, trailing: Option<(usize, usize)>) -> Result<Walked, IngestError> {
        match self.sysstat {
            Some(true) => {}
            Some(false) => {
                return Err(IngestError::invalid(
                    file,
                    Some(Location::json("$.sysstat")),
                    "expected an object",
                ));
            }
            None => {
                return Err(IngestError::invalid(
                    file,
                    Some(Location::json("$.sysstat")),
                    "missing (expected `iostat -o JSON` output: {\"sysstat\": {\"hosts\": [...]}})",
                ));
            }
        }
        if self.hosts != Some(true) {
            return Err(IngestError::invalid(
                file,
                Some(Location::json("$.sysstat.hosts")),
                "expected an array of hosts",
            ));
        }
        let mut state = self.state;
        if state.runs_with_reports > 1 {
            state.meta.notes.push("several hosts in one document; targets carry their host".into());
        }
        Ok(Walked {
            meta: state.meta,
            asm: state.asm,
            first_location: state.first_location,
            trailing,
        })
    }

    /// Stops the pass: the document is read again with a plan.
    fn stop_for_plan<E: de::Error>(&mut self) -> E {
        self.restart = true;
        E::custom("a host must be read with a plan")
    }
}

/// Implements `DeserializeSeed` for a visitor of this module (`deserialize_any`).
macro_rules! seed {
    ($t:ident) => {
        impl<'de> DeserializeSeed<'de> for $t<'_, 'de> {
            type Value = <Self as Visitor<'de>>::Value;
            fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
                d.deserialize_any(self)
            }
        }
    };
}

/// `{"sysstat": ...}`.
struct Root<'a, 'de>(&'a mut Walker<'de>);
seed!(Root);

impl<'de> Visitor<'de> for Root<'_, 'de> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }
    scalars_give!(());
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        Skip.visit_seq(seq)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let w = self.0;
        while let Some(k) = map.next_key_seed(KeySeed)? {
            if k == "sysstat" {
                w.reset();
                w.hosts = None;
                w.sysstat = Some(map.next_value_seed(Sysstat(&mut *w))?);
            } else {
                map.next_value_seed(Skip)?;
            }
        }
        Ok(())
    }
}

/// `{"hosts": [...]}`; the value is whether it is an object.
struct Sysstat<'a, 'de>(&'a mut Walker<'de>);
seed!(Sysstat);

impl<'de> Visitor<'de> for Sysstat<'_, 'de> {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }
    scalars_give!(false);
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<bool, A::Error> {
        Skip.visit_seq(seq).map(|()| false)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        let w = self.0;
        while let Some(k) = map.next_key_seed(KeySeed)? {
            if k == "hosts" {
                w.reset();
                w.hosts = Some(map.next_value_seed(Hosts(&mut *w))?);
            } else {
                map.next_value_seed(Skip)?;
            }
        }
        Ok(true)
    }
}

/// `[{host}, ...]`; the value is whether it is an array.
struct Hosts<'a, 'de>(&'a mut Walker<'de>);
seed!(Hosts);

impl<'de> Visitor<'de> for Hosts<'_, 'de> {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array")
    }
    scalars_give!(false);
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<bool, A::Error> {
        Skip.visit_map(map).map(|()| false)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
        let w = self.0;
        let array = w.hosts_arrays;
        w.hosts_arrays += 1;
        if let Mode::Planning(p) = &mut w.mode {
            p.hosts.push(Vec::new());
        }
        let mut host = 0;
        while seq.next_element_seed(Host { w: &mut *w, array, host })?.is_some() {
            host += 1;
        }
        Ok(true)
    }
}

/// `{"nodename", "date", ..., "statistics": [...]}`.
struct Host<'a, 'de> {
    w: &'a mut Walker<'de>,
    /// Which `hosts` array of the document, and which host in it.
    array: usize,
    host: usize,
}
seed!(Host);

impl Host<'_, '_> {
    fn path(&self) -> String {
        format!("$.sysstat.hosts[{}]", self.host)
    }

    fn planned(&self) -> Option<HostPlan> {
        match &self.w.mode {
            Mode::Planned(p) => Some(
                p.hosts.get(self.array).and_then(|h| h.get(self.host)).cloned().unwrap_or_default(),
            ),
            _ => None,
        }
    }
}

impl<'de> Visitor<'de> for Host<'_, 'de> {
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
        let planned = self.planned();
        let planning = matches!(self.w.mode, Mode::Planning(_));
        let path = self.path();
        let Host { w, host: index, .. } = self;
        let mut name: Option<String> = None;
        let mut date: Option<String> = None;
        let mut statistics = 0;
        // The name the reports went to the assembler under, and whether the last
        // `statistics` was an array.
        let mut read_as: Option<Option<String>> = None;
        let mut array = false;
        while let Some(k) = map.next_key_seed(KeySeed)? {
            match k.as_ref() {
                "nodename" => {
                    name = map.next_value_seed(ValSeed)?.into_string();
                    if read_as.as_ref().is_some_and(|r| *r != name) && planned.is_none() {
                        return Err(w.stop_for_plan());
                    }
                }
                "date" => date = map.next_value_seed(ValSeed)?.into_string(),
                "statistics" => {
                    statistics += 1;
                    let host = match &planned {
                        _ if planning => None,
                        Some(p) if p.statistics == statistics => Some(p.name.clone()),
                        Some(_) => None,
                        None if statistics > 1 => return Err(w.stop_for_plan()),
                        None => Some(name.clone()),
                    };
                    let Some(host) = host else {
                        map.next_value_seed(Skip)?;
                        continue;
                    };
                    w.state.asm.begin_run(host.as_deref());
                    let at = At { host: index, stat: 0 };
                    match map.next_value_seed(Statistics { w: &mut *w, at })? {
                        Some(reports) => {
                            w.state.asm.end_run(&mut w.state.meta);
                            if reports > 0 {
                                w.state.runs_with_reports += 1;
                            }
                            array = true;
                        }
                        None => array = false,
                    }
                    read_as = Some(host);
                }
                _ => map.next_value_seed(Skip)?,
            }
        }
        if let Mode::Planning(p) = &mut w.mode {
            if let Some(hosts) = p.hosts.last_mut() {
                hosts.push(HostPlan { name, statistics });
            }
            return Ok(());
        }
        // A `Value` reader notes the date before it reads the reports: the reports add no
        // notes, so the order of the notes is the same.
        if let Some(d) = date {
            w.state.day_first |= time::has_day_first_date(&d);
            let note = format!("date: {d}");
            if !w.state.meta.notes.contains(&note) {
                w.state.meta.notes.push(note);
            }
        }
        if !array {
            w.state.meta.warn(
                "skipped a host without a statistics array",
                Some(Location::json(format!("{path}.statistics"))),
            );
        }
        Ok(())
    }
}

impl Host<'_, '_> {
    fn not_an_object<E>(self) -> Result<(), E> {
        if let Mode::Planning(p) = &mut self.w.mode {
            if let Some(hosts) = p.hosts.last_mut() {
                hosts.push(HostPlan::default());
            }
            return Ok(());
        }
        let path = self.path();
        self.w
            .state
            .meta
            .warn("skipped a host entry that is not an object", Some(Location::json(path)));
        Ok(())
    }
}

/// Where a report is, for locations (built only when one is needed).
#[derive(Debug, Clone, Copy)]
struct At {
    host: usize,
    stat: usize,
}

impl At {
    fn stat_path(self) -> String {
        format!("$.sysstat.hosts[{}].statistics[{}]", self.host, self.stat)
    }
}

/// A host's reports; the value is how many are objects, `None` when it is not an array.
struct Statistics<'a, 'de> {
    w: &'a mut Walker<'de>,
    at: At,
}
seed!(Statistics);

impl<'de> Visitor<'de> for Statistics<'_, 'de> {
    type Value = Option<usize>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array")
    }
    scalars_give!(None);
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Option<usize>, A::Error> {
        Skip.visit_map(map).map(|()| None)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Option<usize>, A::Error> {
        let mut at = self.at;
        let mut reports = 0;
        while let Some(object) = seq.next_element_seed(Stat { w: &mut *self.w, at })? {
            reports += usize::from(object);
            at.stat += 1;
        }
        Ok(Some(reports))
    }
}

/// One report, `{"timestamp", "avg-cpu", "disk"}`, buffered and then read; the value is
/// whether it is an object.
struct Stat<'a, 'de> {
    w: &'a mut Walker<'de>,
    at: At,
}
seed!(Stat);

impl<'de> Visitor<'de> for Stat<'_, 'de> {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }
    scalars_call!(not_an_object);
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<bool, A::Error> {
        Skip.visit_seq(seq)?;
        self.not_an_object()
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        let (w, at) = (self.w, self.at);
        let mut entry = std::mem::take(&mut w.entry);
        entry.clear();
        while let Some(k) = map.next_key_seed(KeySeed)? {
            match k.as_ref() {
                "timestamp" => entry.timestamp = Some(map.next_value_seed(ValSeed)?),
                "avg-cpu" => map.next_value_seed(CpuSeed(&mut entry))?,
                "disk" => map.next_value_seed(DisksSeed(&mut entry))?,
                _ => map.next_value_seed(Skip)?,
            }
        }
        if w.state.first_location.is_none() {
            w.state.first_location = Some(Location::json(at.stat_path()));
        }
        read_entry(w, at, &mut entry);
        w.entry = entry;
        Ok(true)
    }
}

impl Stat<'_, '_> {
    fn not_an_object<E>(self) -> Result<bool, E> {
        let path = self.at.stat_path();
        self.w
            .state
            .meta
            .warn("skipped a statistics entry that is not an object", Some(Location::json(path)));
        Ok(false)
    }
}

/// A report's keys as a `Value` would hold them (a key given twice: its last value). Keys
/// and values borrow from the text; the vectors are kept from one report to the next.
#[derive(Debug, Default)]
struct Entry<'de> {
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

impl Entry<'_> {
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

/// Reads a buffered report into `w.report` and gives it to the assembler.
fn read_entry(w: &mut Walker<'_>, at: At, entry: &mut Entry<'_>) {
    w.report.clear();
    w.report.seen = true;
    if let Some(t) = entry.timestamp.take() {
        timestamp(w, at, t);
    }
    match entry.cpu {
        Found::Absent => {}
        Found::OtherType => w.state.meta.warn(
            "skipped an avg-cpu that is not an object",
            Some(Location::json(key_path(&at.stat_path(), "avg-cpu"))),
        ),
        Found::Expected => cpu(w, at, entry),
    }
    match entry.disk {
        Found::Absent => {}
        Found::OtherType => w.state.meta.warn(
            "skipped a disk list that is not an array",
            Some(Location::json(key_path(&at.stat_path(), "disk"))),
        ),
        Found::Expected => {
            for (index, range) in entry.disks.iter().enumerate() {
                match *range {
                    Some((start, end)) => {
                        let keys = entry.keys.get(start..end).unwrap_or(&[]);
                        let vals = entry.vals.get(start..end).unwrap_or(&[]);
                        disk(w, at, index, keys, vals);
                    }
                    None => w.state.meta.warn(
                        "skipped a disk entry that is not an object",
                        Some(Location::json(disk_path(at, index))),
                    ),
                }
            }
        }
    }
    w.state.asm.report(&mut w.state.meta, &w.report);
}

fn disk_path(at: At, index: usize) -> String {
    format!("{}[{index}]", key_path(&at.stat_path(), "disk"))
}

fn timestamp(w: &mut Walker<'_>, at: At, v: Val<'_>) {
    let loc = || Location::json(key_path(&at.stat_path(), "timestamp"));
    match v {
        Val::Str(t) => {
            w.state.day_first |= time::has_day_first_date(&t);
            match time::parse_timestamp(&t, w.order) {
                Some(st) => w.report.time = Some(st),
                None => w
                    .state
                    .meta
                    .warn("unreadable timestamp; the report is kept without a time", Some(loc())),
            }
        }
        _ => w.state.meta.warn(
            "a timestamp that is not a string; the report is kept without a time",
            Some(loc()),
        ),
    }
}

/// 100 - idle of an avg-cpu object; its other keys are recorded as ignored.
fn cpu(w: &mut Walker<'_>, at: At, entry: &mut Entry<'_>) {
    let keys = &entry.cpu_keys;
    if w.cpu_recorded.len() != keys.len() || w.cpu_recorded.iter().zip(keys).any(|(a, b)| a != b) {
        for k in keys.iter().filter(|k| *k != "idle") {
            w.state.meta.ignore(format!("avg-cpu {k}"));
        }
        w.cpu_recorded = keys.iter().map(|k| k.to_string()).collect();
    }
    let path = || key_path(&key_path(&at.stat_path(), "avg-cpu"), "idle");
    w.report.cpu_pct = match entry.idle.take() {
        None => {
            w.state.meta.warn("avg-cpu without idle: CPU not read", Some(Location::json(path())));
            None
        }
        Some(Val::Num(i)) => match columns::check(100.0 - i) {
            Ok(v) => Some((v * 1e6).round() / 1e6),
            Err(why) => {
                let message = format!("dropped {why} in avg-cpu idle");
                w.state.meta.warn(message, Some(Location::json(path())));
                None
            }
        },
        Some(_) => {
            w.state.meta.warn("avg-cpu idle is not a number", Some(Location::json(path())));
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
fn disk(w: &mut Walker<'_>, at: At, index: usize, keys: &[Cow<'_, str>], vals: &[Val<'_>]) {
    w.disk_keys.learn(keys);
    let dk = &mut w.disk_keys;
    let meta = &mut w.state.meta;
    let path = || disk_path(at, index);
    if !w.state.version_set {
        let names: Vec<&str> = dk.columns.iter().map(|(k, _)| k.as_str()).collect();
        meta.version = Some(columns::layout(&names));
        w.state.version_set = true;
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
    let device = w.report.push_device(name, group);
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
