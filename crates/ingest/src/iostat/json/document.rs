//! The walk over an `iostat -o JSON` document, as it is parsed: no `serde_json::Value` of
//! the document is built (a day of 32 devices at 1 s is 190 MB of JSON, and several GB as
//! a `Value`).
//!
//! What is read is what a `Value` of the document would hold: a key given twice counts
//! once, at its first place, with its last value; keys may come in any order. A report
//! (`statistics` entry) is buffered until its object closes, then read
//! ([`super::report`]). A host's reports go to the [`Assembler`] as they are
//! read, under the host's `nodename`; when that is not known in time (`statistics` before
//! `nodename`, or either key twice: layouts sysstat does not write), the document is read
//! again after a first pass that notes each host's name and last `statistics` (its
//! [`Plan`]). Slash dates are month-first unless some date of the document says otherwise,
//! which is known at the end: such a document is read again, day-first.

use std::fmt;

use advisor_model::{CaptureMeta, Location};
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};

use super::report::{self, At, Entry, Known, Reading};
use super::values::{KeySeed, Skip, Val, ValSeed, scalars_call, scalars_give, seed};
use crate::IngestError;
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
    known: Known,
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
            known: Known::default(),
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
        self.known = Known::default();
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
                "number-of-cpus" => {
                    if let Val::Num(n) = map.next_value_seed(ValSeed)?
                        && (1.0..1e6).contains(&n)
                        && w.state.meta.cpus.is_none()
                    {
                        w.state.meta.cpus = Some(n as u32);
                    }
                }
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
                    w.state.asm.begin_run(host.as_deref(), true);
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
            advisor_model::work::checkpoint_every(at.stat);
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
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<bool, A::Error> {
        let (w, at) = (self.w, self.at);
        let mut entry = std::mem::take(&mut w.entry);
        entry.fill(map)?;
        if w.state.first_location.is_none() {
            w.state.first_location = Some(Location::json(at.stat_path()));
        }
        let mut reading = Reading {
            meta: &mut w.state.meta,
            report: &mut w.report,
            known: &mut w.known,
            order: w.order,
            day_first: &mut w.state.day_first,
            version_set: &mut w.state.version_set,
        };
        report::read(&mut reading, at, &mut entry);
        w.state.asm.report(&mut w.state.meta, &w.report);
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
