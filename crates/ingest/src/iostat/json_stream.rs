//! `iostat -o JSON` read as it is parsed, without a `serde_json::Value` of the document (a
//! day of 32 devices at 1 s is 190 MB of JSON, and several GB as a `Value`).
//!
//! Only documents laid out as sysstat writes them are read here: objects where sysstat
//! writes objects, arrays where it writes arrays, no key twice in an object, a host's
//! `nodename` and `date` before its `statistics`, and a report's `timestamp`, `avg-cpu` and
//! `disk` in that order. Anything else makes [`read`] give up with an error, and the
//! general reader ([`super::json`]) reads the document as a `Value`. On the documents it
//! accepts, this reader applies the general reader's rules in the general reader's order
//! (`walk`, `cpu_pct`, `disk`), so both give the same capture, warnings included; the
//! tests compare them on generated and mutated documents.
//!
//! Every value goes through `deserialize_any` (nothing is skipped unparsed), so a document
//! is accepted or refused by the JSON syntax exactly as the general reader's `Value` parse
//! does, and a syntax error or the end of a cut document is met at the same place.

use std::borrow::Cow;
use std::fmt;

use advisor_model::{CaptureMeta, Location};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use super::columns::{self, Column, Number};
use super::time::{self, DateOrder};
use super::{Assembler, Report};

/// What a read of the whole document gives.
#[derive(Debug)]
pub(super) struct Streamed {
    pub meta: CaptureMeta,
    pub asm: Assembler,
    pub first_location: Option<Location>,
    /// Where text after the document starts (`serde_json`'s line and column), if any.
    pub trailing: Option<(usize, usize)>,
}

/// Reads `body` (the text from the document's `{`); `meta` is what the reader has noted so
/// far. An error when the document is not laid out as sysstat writes it, or is not JSON.
pub(super) fn read(body: &str, meta: &CaptureMeta) -> Result<Streamed, serde_json::Error> {
    // Slash dates are month-first unless some date of the document says otherwise; that
    // is known at the end, and a day-first document is read again.
    let mut order = DateOrder::MonthFirst;
    loop {
        let mut ctx = Ctx::new(meta.clone(), order);
        let mut de = serde_json::Deserializer::from_str(body);
        Root(&mut ctx).deserialize(&mut de)?;
        let trailing = de.end().err().map(|e| (e.line(), e.column()));
        if ctx.day_first && order == DateOrder::MonthFirst {
            order = DateOrder::DayFirst;
            continue;
        }
        if ctx.runs_with_reports > 1 {
            ctx.meta.notes.push("several hosts in one document; targets carry their host".into());
        }
        return Ok(Streamed {
            meta: ctx.meta,
            asm: ctx.asm,
            first_location: ctx.first_location,
            trailing,
        });
    }
}

/// `base.key`, or `base["key"]` for keys that are not identifiers (`r/s`, `avg-cpu`).
pub(super) fn key_path(base: &str, key: &str) -> String {
    let ident = key.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ident { format!("{base}.{key}") } else { format!("{base}[{key:?}]") }
}

fn bail<E: de::Error>() -> E {
    E::custom("not laid out as sysstat writes iostat JSON")
}

/// A scalar as the general reader looks at it (`as_f64`, `as_str`).
#[derive(Debug)]
enum Val<'de> {
    Num(f64),
    Str(Cow<'de, str>),
    Other,
}

struct Ctx<'de> {
    meta: CaptureMeta,
    asm: Assembler,
    order: DateOrder,
    /// A date or timestamp of the document is day-first.
    day_first: bool,
    first_location: Option<Location>,
    version_set: bool,
    runs_with_reports: usize,
    report: Report,
    /// The keys of the disk object being read, and their values.
    keys: Vec<Cow<'de, str>>,
    vals: Vec<Val<'de>>,
    /// The last disk objects' keys, what they hold and where `disk_device` is; whether
    /// their ignored names are recorded in `meta` (recording them again changes nothing).
    disk_cols: Vec<(String, Column)>,
    disk_device_at: Option<usize>,
    disk_ignored: bool,
    /// The keys of the avg-cpu object being read, and the last ones recorded.
    cpu_keys: Vec<Cow<'de, str>>,
    cpu_recorded: Vec<String>,
}

impl<'de> Ctx<'de> {
    fn new(meta: CaptureMeta, order: DateOrder) -> Self {
        Self {
            meta,
            asm: Assembler::default(),
            order,
            day_first: false,
            first_location: None,
            version_set: false,
            runs_with_reports: 0,
            report: Report::default(),
            keys: Vec::new(),
            vals: Vec::new(),
            disk_cols: Vec::new(),
            disk_device_at: None,
            disk_ignored: false,
            cpu_keys: Vec::new(),
            cpu_recorded: Vec::new(),
        }
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

/// Any JSON value, parsed and dropped.
struct Skip;

impl<'de> DeserializeSeed<'de> for Skip {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Skip {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(Skip)?.is_some() {}
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while map.next_key_seed(Skip)?.is_some() {
            map.next_value_seed(Skip)?;
        }
        Ok(())
    }
}

/// A scalar value ([`Val`]); arrays and objects are parsed and become `Other`.
struct ValSeed;

impl<'de> DeserializeSeed<'de> for ValSeed {
    type Value = Val<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Val<'de>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValSeed {
    type Value = Val<'de>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Val<'de>, E> {
        Ok(Val::Other)
    }
    // serde_json's `as_f64` of an integer: `as f64`.
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Val<'de>, E> {
        Ok(Val::Num(v as f64))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Val<'de>, E> {
        Ok(Val::Num(v as f64))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Val<'de>, E> {
        Ok(Val::Num(v))
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Val<'de>, E> {
        Ok(Val::Str(Cow::Borrowed(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Val<'de>, E> {
        Ok(Val::Str(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Val<'de>, E> {
        Ok(Val::Str(Cow::Owned(v)))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Val<'de>, E> {
        Ok(Val::Other)
    }
    fn visit_none<E: de::Error>(self) -> Result<Val<'de>, E> {
        Ok(Val::Other)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Val<'de>, A::Error> {
        Skip.visit_seq(seq).map(|()| Val::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Val<'de>, A::Error> {
        Skip.visit_map(map).map(|()| Val::Other)
    }
}

/// An object key, borrowed from the text when it has no escapes.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Cow<'de, str>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Cow<'de, str>, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Cow<'de, str>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Borrowed(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v))
    }
}

/// Implements `DeserializeSeed` for a visitor type of this module (`deserialize_any`).
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
struct Root<'a, 'de>(&'a mut Ctx<'de>);
seed!(Root);

impl<'de> Visitor<'de> for Root<'_, 'de> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = false;
        while let Some(k) = map.next_key_seed(KeySeed)? {
            if k == "sysstat" {
                if seen {
                    return Err(bail());
                }
                seen = true;
                map.next_value_seed(Sysstat(&mut *self.0))?;
            } else {
                map.next_value_seed(Skip)?;
            }
        }
        if seen { Ok(()) } else { Err(bail()) }
    }
}

/// `{"hosts": [...]}`.
struct Sysstat<'a, 'de>(&'a mut Ctx<'de>);
seed!(Sysstat);

impl<'de> Visitor<'de> for Sysstat<'_, 'de> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = false;
        while let Some(k) = map.next_key_seed(KeySeed)? {
            if k == "hosts" {
                if seen {
                    return Err(bail());
                }
                seen = true;
                map.next_value_seed(Hosts(&mut *self.0))?;
            } else {
                map.next_value_seed(Skip)?;
            }
        }
        if seen { Ok(()) } else { Err(bail()) }
    }
}

struct Hosts<'a, 'de>(&'a mut Ctx<'de>);
seed!(Hosts);

impl<'de> Visitor<'de> for Hosts<'_, 'de> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut host = 0;
        while seq.next_element_seed(Host { ctx: &mut *self.0, host })?.is_some() {
            host += 1;
        }
        Ok(())
    }
}

/// `{"nodename", "date", ..., "statistics": [...]}`: `walk`'s host.
struct Host<'a, 'de> {
    ctx: &'a mut Ctx<'de>,
    host: usize,
}
seed!(Host);

impl<'de> Visitor<'de> for Host<'_, 'de> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let ctx = self.ctx;
        let (mut nodename, mut date, mut stats) = (false, false, false);
        let mut host: Option<String> = None;
        while let Some(k) = map.next_key_seed(KeySeed)? {
            match k.as_ref() {
                "nodename" => {
                    if nodename || stats {
                        return Err(bail());
                    }
                    nodename = true;
                    if let Val::Str(s) = map.next_value_seed(ValSeed)? {
                        host = Some(s.into_owned());
                    }
                }
                "date" => {
                    if date || stats {
                        return Err(bail());
                    }
                    date = true;
                    if let Val::Str(d) = map.next_value_seed(ValSeed)? {
                        ctx.day_first |= time::has_day_first_date(&d);
                        let note = format!("date: {d}");
                        if !ctx.meta.notes.contains(&note) {
                            ctx.meta.notes.push(note);
                        }
                    }
                }
                "statistics" => {
                    if stats {
                        return Err(bail());
                    }
                    stats = true;
                    ctx.asm.begin_run(host.as_deref());
                    let reports =
                        map.next_value_seed(Statistics { ctx: &mut *ctx, host: self.host })?;
                    ctx.asm.end_run(&mut ctx.meta);
                    if reports > 0 {
                        ctx.runs_with_reports += 1;
                    }
                }
                _ => map.next_value_seed(Skip)?,
            }
        }
        if !stats {
            ctx.meta.warn(
                "skipped a host without a statistics array",
                Some(Location::json(format!("$.sysstat.hosts[{}].statistics", self.host))),
            );
        }
        Ok(())
    }
}

/// A host's reports; the value is how many.
struct Statistics<'a, 'de> {
    ctx: &'a mut Ctx<'de>,
    host: usize,
}
seed!(Statistics);

impl<'de> Visitor<'de> for Statistics<'_, 'de> {
    type Value = usize;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<usize, A::Error> {
        let mut stat = 0;
        while seq
            .next_element_seed(Stat { ctx: &mut *self.ctx, at: At { host: self.host, stat } })?
            .is_some()
        {
            stat += 1;
        }
        Ok(stat)
    }
}

/// One report: `{"timestamp", "avg-cpu", "disk"}`.
struct Stat<'a, 'de> {
    ctx: &'a mut Ctx<'de>,
    at: At,
}
seed!(Stat);

impl<'de> Visitor<'de> for Stat<'_, 'de> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let (ctx, at) = (self.ctx, self.at);
        if ctx.first_location.is_none() {
            ctx.first_location = Some(Location::json(at.stat_path()));
        }
        ctx.report.clear();
        ctx.report.seen = true;
        // 1 timestamp, 2 avg-cpu, 3 disk: each once, in this order (`walk`'s).
        let mut stage = 0;
        while let Some(k) = map.next_key_seed(KeySeed)? {
            let this = match k.as_ref() {
                "timestamp" => 1,
                "avg-cpu" => 2,
                "disk" => 3,
                _ => {
                    map.next_value_seed(Skip)?;
                    continue;
                }
            };
            if this <= stage {
                return Err(bail());
            }
            stage = this;
            match this {
                1 => {
                    let v = map.next_value_seed(ValSeed)?;
                    timestamp(ctx, at, v);
                }
                2 => map.next_value_seed(Cpu { ctx: &mut *ctx, at })?,
                _ => map.next_value_seed(Disks { ctx: &mut *ctx, at })?,
            }
        }
        ctx.asm.report(&mut ctx.meta, &ctx.report);
        Ok(())
    }
}

fn timestamp(ctx: &mut Ctx<'_>, at: At, v: Val<'_>) {
    let loc = || Location::json(key_path(&at.stat_path(), "timestamp"));
    match v {
        Val::Str(t) => {
            ctx.day_first |= time::has_day_first_date(&t);
            match time::parse_timestamp(&t, ctx.order) {
                Some(st) => ctx.report.time = Some(st),
                None => ctx
                    .meta
                    .warn("unreadable timestamp; the report is kept without a time", Some(loc())),
            }
        }
        _ => ctx.meta.warn(
            "a timestamp that is not a string; the report is kept without a time",
            Some(loc()),
        ),
    }
}

/// `{"user", ..., "idle"}`: `cpu_pct`.
struct Cpu<'a, 'de> {
    ctx: &'a mut Ctx<'de>,
    at: At,
}
seed!(Cpu);

impl<'de> Visitor<'de> for Cpu<'_, 'de> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let ctx = self.ctx;
        let mut keys = std::mem::take(&mut ctx.cpu_keys);
        keys.clear();
        let mut idle = None;
        while let Some(k) = map.next_key_seed(KeySeed)? {
            if keys.contains(&k) {
                return Err(bail());
            }
            if k == "idle" {
                idle = Some(map.next_value_seed(ValSeed)?);
            } else {
                map.next_value_seed(Skip)?;
            }
            keys.push(k);
        }
        if ctx.cpu_recorded.len() != keys.len()
            || ctx.cpu_recorded.iter().zip(&keys).any(|(a, b)| a != b)
        {
            for k in keys.iter().filter(|k| *k != "idle") {
                ctx.meta.ignore(format!("avg-cpu {k}"));
            }
            ctx.cpu_recorded = keys.iter().map(|k| k.to_string()).collect();
        }
        ctx.cpu_keys = keys;
        let path = || key_path(&key_path(&self.at.stat_path(), "avg-cpu"), "idle");
        ctx.report.cpu_pct = match idle {
            None => {
                ctx.meta.warn("avg-cpu without idle: CPU not read", Some(Location::json(path())));
                None
            }
            Some(Val::Num(i)) => match columns::check(100.0 - i) {
                Ok(v) => Some((v * 1e6).round() / 1e6),
                Err(why) => {
                    let message = format!("dropped {why} in avg-cpu idle");
                    ctx.meta.warn(message, Some(Location::json(path())));
                    None
                }
            },
            Some(_) => {
                ctx.meta.warn("avg-cpu idle is not a number", Some(Location::json(path())));
                None
            }
        };
        Ok(())
    }
}

/// `[{"disk_device", ...}]`.
struct Disks<'a, 'de> {
    ctx: &'a mut Ctx<'de>,
    at: At,
}
seed!(Disks);

impl<'de> Visitor<'de> for Disks<'_, 'de> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut disk = 0;
        while seq.next_element_seed(Disk { ctx: &mut *self.ctx, at: self.at, disk })?.is_some() {
            disk += 1;
        }
        Ok(())
    }
}

/// One device: `disk` of the general reader.
struct Disk<'a, 'de> {
    ctx: &'a mut Ctx<'de>,
    at: At,
    disk: usize,
}
seed!(Disk);

impl<'de> Visitor<'de> for Disk<'_, 'de> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let ctx = self.ctx;
        let mut keys = std::mem::take(&mut ctx.keys);
        let mut vals = std::mem::take(&mut ctx.vals);
        keys.clear();
        vals.clear();
        while let Some(k) = map.next_key_seed(KeySeed)? {
            keys.push(k);
            vals.push(map.next_value_seed(ValSeed)?);
        }
        // Usually the same keys as the last disk: classified then, and known to be unique.
        let same = ctx.disk_cols.len() == keys.len()
            && ctx.disk_cols.iter().zip(&keys).all(|((a, _), b)| a == b);
        if !same {
            if keys.iter().enumerate().any(|(i, k)| keys.iter().take(i).any(|o| o == k)) {
                return Err(bail());
            }
            ctx.disk_cols = keys.iter().map(|k| (k.to_string(), columns::classify(k))).collect();
            ctx.disk_device_at = keys.iter().position(|k| k == "disk_device");
            ctx.disk_ignored = false;
        }
        disk(ctx, self.at, self.disk, &vals);
        ctx.keys = keys;
        ctx.vals = vals;
        Ok(())
    }
}

/// The general reader's `disk` on the object whose keys are `ctx.disk_cols`.
fn disk(ctx: &mut Ctx<'_>, at: At, index: usize, vals: &[Val<'_>]) {
    let path = || format!("{}[{index}]", key_path(&at.stat_path(), "disk"));
    if !ctx.version_set {
        let keys: Vec<&str> = ctx.disk_cols.iter().map(|(k, _)| k.as_str()).collect();
        ctx.meta.version = Some(columns::layout(&keys));
        ctx.version_set = true;
    }
    let raw_name = match ctx.disk_device_at.and_then(|i| vals.get(i)) {
        Some(Val::Str(s)) => s.as_ref(),
        _ => {
            ctx.meta.warn(
                "skipped a disk entry without a disk_device name",
                Some(Location::json(key_path(&path(), "disk_device"))),
            );
            return;
        }
    };
    let name = raw_name.trim();
    if name.is_empty() {
        ctx.meta.warn("skipped a disk entry with an empty name", Some(Location::json(path())));
        return;
    }
    // `-g` group summaries carry a leading space.
    let group = raw_name.starts_with(' ');
    let device = ctx.report.push_device(name, group);
    for (i, ((k, col), v)) in ctx.disk_cols.iter().zip(vals).enumerate() {
        if Some(i) == ctx.disk_device_at {
            continue;
        }
        match col {
            Column::Metric { .. } => {}
            Column::Ignored => {
                if !ctx.disk_ignored {
                    ctx.meta.ignore(k.as_str());
                }
                continue;
            }
            Column::Unknown => {
                if !ctx.disk_ignored {
                    ctx.meta.ignore(format!("{k} (unknown key)"));
                }
                continue;
            }
        }
        let Val::Num(x) = v else {
            ctx.meta.warn(
                format!("skipped a value of {k} that is not a number"),
                Some(Location::json(key_path(&path(), k))),
            );
            continue;
        };
        match columns::convert(*col, Number { value: *x, suffix_bytes: None }) {
            Ok(Some(mv)) => device.values.push(mv),
            Ok(None) => {}
            Err(why) => ctx
                .meta
                .warn(format!("dropped {why} in {k}"), Some(Location::json(key_path(&path(), k)))),
        }
    }
    ctx.disk_ignored = true;
}
