//! Caps read from the data itself: the band a series' busiest samples hold
//! (`plateau`), and the catalog limits a ceiling matches (`disk_caps_near`,
//! `vm_sizes_near`). Plain functions over numbers, called by the built-ins in
//! `functions.rs` and tested here.

use std::borrow::Cow;
use std::sync::Arc;

use super::facts::CatalogCaps;
use super::value::{OrMissing, TimeSeries, Times, Vals, Value, bits, kept_runs, missing};
use super::{AZURE_MB, Evaluation};
use crate::builtins::Builtin;
use crate::check::TypedExpr;
use crate::types::Dim;

/// A sample counts in the top band when it reaches this share of the busy samples' 99th
/// percentile: a cap is a ceiling the load keeps returning to, so the band is what lies
/// near the top, and the quiet stretches of a bursty load (below half) stay out of it.
pub(crate) const TOP_BAND: f64 = 0.5;

/// How many matches a list names at most: the closest first.
pub(crate) const MAX_MATCHES: usize = 5;

/// What `plateau` finds among the samples where `busy` holds.
#[cfg(test)]
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Band {
    /// The positions (into the input) of the samples in the top band, in input order.
    Samples(Vec<usize>),
    /// Fewer busy samples than asked for: how many there were.
    TooFew(usize),
}

/// The top band of `vals` among the samples where `busy` holds: those at or above
/// [`TOP_BAND`] x the busy samples' 99th percentile (nearest rank). Needs at least
/// `min_busy` busy samples; none busy is an empty band (an idle target holds no ceiling).
/// The band is chosen by value alone, so the order of the samples does not change it.
/// As positions, for the tests: `plateau` builds the band's series in one pass from
/// [`band_floor`] and [`in_band`].
#[cfg(test)]
pub(crate) fn plateau_band(vals: &[f64], busy: &[bool], min_busy: usize) -> Band {
    match band_floor(vals, busy, min_busy) {
        Err(n) => Band::TooFew(n),
        Ok(None) => Band::Samples(Vec::new()),
        Ok(Some((floor, _))) => Band::Samples(
            vals.iter()
                .zip(busy)
                .enumerate()
                .filter(|(_, (v, b))| in_band(**v, **b, floor))
                .map(|(i, _)| i)
                .collect(),
        ),
    }
}

/// Where [`plateau_band`]'s band starts, with how many samples are busy (the most the
/// band can hold): `Ok(None)` when no sample is busy (an empty band), `Err(n)` with fewer
/// than `min_busy` busy samples (`n` of them).
fn band_floor(vals: &[f64], busy: &[bool], min_busy: usize) -> Result<Option<(f64, usize)>, usize> {
    // The busy finite values, copied a stretch at a time.
    let len = vals.len().min(busy.len());
    let mut busy_vals: Vec<f64> = Vec::with_capacity(len);
    kept_runs(
        len,
        |r| bits(&busy[r.clone()], |b| b) & bits(&vals[r], f64::is_finite),
        |r| busy_vals.extend_from_slice(&vals[r]),
    );
    let n = busy_vals.len();
    if busy_vals.is_empty() {
        return Ok(None);
    }
    if busy_vals.len() < min_busy {
        return Err(busy_vals.len());
    }
    // Finite already: selected in place (the value `percentile` gives).
    Ok(advisor_model::nearest_ranks_of_numbers(&mut busy_vals, &[99.0])[0]
        .map(|p99| (p99 * TOP_BAND, n)))
}

/// Whether a sample is in the band that starts at `floor`.
fn in_band(v: f64, busy: bool, floor: f64) -> bool {
    busy & v.is_finite() & (v >= floor)
}

/// Which catalog figure a ceiling is compared with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Measure {
    /// IO/s.
    Iops,
    /// Azure MB/s (10^6 bytes/s).
    Mbps,
}

impl Measure {
    fn unit(self) -> &'static str {
        match self {
            Self::Iops => "IOPS",
            Self::Mbps => "MB/s",
        }
    }
}

/// A number as Azure's pages print it: thousands separated, at most one decimal.
fn grouped(x: f64) -> String {
    let r = (x * 10.0).round() / 10.0;
    let whole = r.trunc() as i64;
    let digits = whole.abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if whole < 0 {
        out.insert(0, '-');
    }
    let frac = ((r - r.trunc()).abs() * 10.0).round() as i64;
    if frac > 0 {
        out.push_str(&format!(".{frac}"));
    }
    out
}

/// SKU names as one phrase: `P10/P15/P20`, or `S4-S50` for a run of four or more rows
/// that are neighbours in the catalog.
fn sku_names(rows: &[(usize, &str)]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < rows.len() {
        let mut j = i;
        while j + 1 < rows.len() && rows[j + 1].0 == rows[j].0 + 1 {
            j += 1;
        }
        if j - i >= 3 {
            parts.push(format!("{}-{}", rows[i].1, rows[j].1));
        } else {
            parts.extend(rows[i..=j].iter().map(|r| r.1.to_owned()));
        }
        i = j + 1;
    }
    parts.join("/")
}

/// SKUs sharing one cap (value, baseline or burst, tier), as the matches list them.
struct CapGroup<'a> {
    /// Relative distance of the cap from the ceiling.
    dist: f64,
    cap: f64,
    burst: bool,
    tier: &'a str,
    /// (catalog row, SKU name)
    rows: Vec<(usize, &'a str)>,
}

/// The disk SKUs whose baseline or burst cap (of `measure`) lies within `tolerance` of
/// `ceiling`, grouped by cap and closest first: `P10/P15/P20 (Premium SSD) burst cap of 3,500 IOPS`.
/// Superseded rows and provisioned ranges (Ultra Disk, Premium SSD v2 above its free
/// baseline) are left out: they match any figure. `None` when nothing matches.
pub(crate) fn disk_caps_near(
    catalog: &CatalogCaps,
    measure: Measure,
    ceiling: f64,
    tolerance: f64,
) -> Option<String> {
    let mut groups: Vec<CapGroup<'_>> = Vec::new();
    for (i, d) in catalog.disks.iter().enumerate() {
        if d.superseded || d.provisioned {
            continue;
        }
        let (base, burst) = match measure {
            Measure::Iops => (d.iops, d.burst_iops),
            Measure::Mbps => (d.mbps, d.burst_mbps),
        };
        for (cap, is_burst) in [(base, false), (burst, true)] {
            let Some(cap) = cap.filter(|c| *c > 0.0) else { continue };
            let dist = (ceiling - cap).abs() / cap;
            if dist > tolerance {
                continue;
            }
            let same = |g: &&mut CapGroup<'_>| {
                (g.cap - cap).abs() <= 1e-9 * cap && g.burst == is_burst && g.tier == d.tier
            };
            match groups.iter_mut().find(same) {
                Some(g) => g.rows.push((i, d.sku.as_str())),
                None => groups.push(CapGroup {
                    dist,
                    cap,
                    burst: is_burst,
                    tier: &d.tier,
                    rows: vec![(i, &d.sku)],
                }),
            }
        }
    }
    if groups.is_empty() {
        return None;
    }
    groups.sort_by(|a, b| a.dist.total_cmp(&b.dist).then(a.cap.total_cmp(&b.cap)));
    let phrases: Vec<String> = groups
        .iter()
        .take(MAX_MATCHES)
        .map(|g| {
            format!(
                "{} ({}) {} of {} {}",
                sku_names(&g.rows),
                g.tier,
                if g.burst { "burst cap" } else { "cap" },
                grouped(g.cap),
                measure.unit()
            )
        })
        .collect();
    Some(phrases.join("; "))
}

/// The VM sizes one of whose limits (cached, uncached, uncached burst) of `measure` lies
/// within `tolerance` of `ceiling`, closest first, at most [`MAX_MATCHES`], only of
/// `family` when it is given, and only with `cpus` vCPUs when the capture states its CPU
/// count (a size whose vCPUs the catalog does not give stays): `Standard_DS1 (uncached
/// 3,200 IOPS)`. `None` when nothing matches.
pub(crate) fn vm_sizes_near(
    catalog: &CatalogCaps,
    measure: Measure,
    ceiling: f64,
    tolerance: f64,
    family: Option<&str>,
    cpus: Option<u32>,
) -> Option<String> {
    let mut hits: Vec<(f64, &str, &'static str, f64)> = Vec::new();
    for v in &catalog.vms {
        if family.is_some_and(|f| !v.family.eq_ignore_ascii_case(f)) {
            continue;
        }
        if let (Some(n), Some(have)) = (cpus, v.vcpu)
            && n != have
        {
            continue;
        }
        let caps = match measure {
            Measure::Iops => [
                ("uncached", v.uncached_iops),
                ("uncached burst", v.uncached_burst_iops),
                ("cached", v.cached_iops),
            ],
            Measure::Mbps => [
                ("uncached", v.uncached_mbps),
                ("uncached burst", v.uncached_burst_mbps),
                ("cached", v.cached_mbps),
            ],
        };
        let best = caps
            .iter()
            .filter_map(|(what, c)| {
                c.filter(|c| *c > 0.0).map(|c| ((ceiling - c).abs() / c, *what, c))
            })
            .filter(|(d, _, _)| *d <= tolerance)
            .min_by(|a, b| a.0.total_cmp(&b.0));
        if let Some((d, what, c)) = best {
            hits.push((d, v.size.as_str(), what, c));
        }
    }
    if hits.is_empty() {
        return None;
    }
    hits.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(b.1)));
    let more = hits.len().saturating_sub(MAX_MATCHES);
    let mut text = hits
        .iter()
        .take(MAX_MATCHES)
        .map(|(_, size, what, c)| format!("{size} ({what} {} {})", grouped(*c), measure.unit()))
        .collect::<Vec<_>>()
        .join(", ");
    if more > 0 {
        text.push_str(&format!(" and {more} more"));
    }
    Some(text)
}

impl Evaluation<'_> {
    /// `keep`, `plateau`, `disk_caps_near` and `vm_sizes_near`.
    pub(super) fn inferred(&mut self, b: Builtin, args: &[TypedExpr]) -> OrMissing<Value> {
        let mut vals = Vec::with_capacity(args.len());
        for a in args {
            vals.push(self.eval(a)?);
        }
        let arg = |i: usize| args.get(i).map(|a| self.src(a)).unwrap_or_default();
        match (b, vals.as_slice()) {
            (Builtin::Keep, [Value::Nums(x), cond]) => Ok(Value::Nums(select(x, cond))),
            (Builtin::Plateau, [Value::Nums(x), busy, Value::Num(min)]) => {
                // A benchmark's one summary row is its own plateau.
                if x.len() == 1 && x.times.first().is_some_and(Option::is_none) {
                    return Ok(Value::Nums(x.clone()));
                }
                if !matches!(busy, Value::Bools(_) | Value::Bool(_)) {
                    return missing(format!("plateau() of {}", busy.describe()));
                }
                let min = min.max(0.0).round() as usize;
                let band = || self.band(x, busy, min, &arg(0), &arg(1));
                match busy {
                    Value::Bools(flags) => self.cache.plateau(x, flags, min, band).map(Value::Nums),
                    _ => band().map(Value::Nums),
                }
            }
            (
                Builtin::DiskCapsNear | Builtin::VmSizesNear | Builtin::VmSizesNearIn,
                [Value::Num(x), Value::Num(tol), rest @ ..],
            ) => {
                let Some(catalog) = self.facts.catalog.as_deref() else {
                    return missing("no catalog of Azure limits to match the ceiling against");
                };
                let (measure, x) = match args.first().map(|a| a.ty.dim) {
                    Some(Dim::Throughput) => (Measure::Mbps, x / AZURE_MB),
                    _ => (Measure::Iops, *x),
                };
                let found = match (b, rest) {
                    (Builtin::DiskCapsNear, _) => disk_caps_near(catalog, measure, x, *tol),
                    (_, [Value::Text(f)]) => {
                        vm_sizes_near(catalog, measure, x, *tol, Some(f), self.facts.cpus)
                    }
                    _ => vm_sizes_near(catalog, measure, x, *tol, None, self.facts.cpus),
                };
                Ok(Value::Text(found.unwrap_or_else(|| "none".to_owned())))
            }
            (_, v) => missing(format!(
                "{}() of {}",
                b.spec().name,
                v.iter().map(Value::describe).collect::<Vec<_>>().join(", ")
            )),
        }
    }
}

impl Evaluation<'_> {
    /// The top band of `x` where `busy` holds (`plateau`'s value); `of` and `where_` are
    /// the rule's own text of the two, for the reason when too few samples are busy.
    fn band(
        &self,
        x: &TimeSeries<f64>,
        busy: &Value,
        min: usize,
        of: &str,
        where_: &str,
    ) -> OrMissing<TimeSeries<f64>> {
        let (times, vals, flags) = flagged(x, busy);
        // Every sample busy (a disk under load the whole capture): the busy samples are
        // the series, so their 99th percentile is the series' own, known from the
        // summaries or taken once for every rule that asks; and when every sample
        // reaches the floor the band is the series itself, whose percentiles are known
        // too. The same band as below, without copying or selecting.
        let n = x.len();
        if n >= min.max(1)
            && Arc::ptr_eq(&times, &x.times)
            && vals.len() == n
            && flags.len() == n
            && advisor_model::all_of(&flags, |b| b)
            && advisor_model::all_finite(&vals)
            && let Some(p99) = self.cache.percentile(&x.vals, 99.0, Vec::new)
        {
            let floor = p99 * TOP_BAND;
            if advisor_model::all_of(&vals, |v| v >= floor) {
                return Ok(TimeSeries {
                    times: Arc::clone(&x.times),
                    vals: x.vals.clone(),
                    interval: x.interval_s(),
                });
            }
            return Ok(kept(x.interval_s(), &times, &vals, n, |r| bits(&vals[r], |v| v >= floor)));
        }
        match band_floor(&vals, &flags, min) {
            Err(n) => {
                let secs = x.interval_s().map(|iv| format!(" ({:.0} s)", n as f64 * iv));
                missing(format!(
                    "only {n} busy samples{} of `{of}` where `{where_}`; {min} are needed to tell a held ceiling from a passing peak: capture longer while the workload runs",
                    secs.unwrap_or_default(),
                ))
            }
            // The band's samples (plateau_band's, without the positions in between); the
            // band is at most the busy samples.
            Ok(floor) => {
                let vals = &vals[..vals.len().min(flags.len())];
                Ok(match floor {
                    Some((floor, busy)) => kept(x.interval_s(), &times, vals, busy, |r| {
                        bits(&flags[r.clone()], |b| b) & bits(&vals[r], |v| in_band(v, true, floor))
                    }),
                    None => TimeSeries {
                        times: Arc::new(Vec::new()),
                        vals: Vals::new(Vec::new()),
                        interval: x.interval_s(),
                    },
                })
            }
        }
    }
}

/// The samples of `x` (joined on time with `cond`) where `cond` holds.
fn select(x: &TimeSeries<f64>, cond: &Value) -> TimeSeries<f64> {
    let (times, vals, flags) = flagged(x, cond);
    kept(x.interval_s(), &times, &vals[..vals.len().min(flags.len())], 0, |r| {
        bits(&flags[r], |b| b)
    })
}

/// The samples at the positions `keep` marks (a block's word, as [`kept_runs`] reads it),
/// a stretch at a time, with room for `expect` of them made first.
fn kept(
    interval: Option<f64>,
    times: &[Option<i64>],
    vals: &[f64],
    expect: usize,
    keep: impl Fn(std::ops::Range<usize>) -> u64,
) -> TimeSeries<f64> {
    let (mut t, mut v) = (Vec::with_capacity(expect), Vec::with_capacity(expect));
    kept_runs(times.len().min(vals.len()), keep, |r| {
        t.extend_from_slice(&times[r.clone()]);
        v.extend_from_slice(&vals[r]);
    });
    TimeSeries { times: Arc::new(t), vals: Vals::new(v), interval }
}

/// `x`'s samples where `cond` is known, each with its flag (false where `cond` is not a
/// bool): its time stamps, values and flags. On one time axis (the usual case) they are
/// `x`'s own and `cond`'s own, not copies.
fn flagged<'a>(
    x: &'a TimeSeries<f64>,
    cond: &'a Value,
) -> (Times, Cow<'a, [f64]>, Cow<'a, [bool]>) {
    match cond {
        Value::Bools(c) if Arc::ptr_eq(&x.times, &c.times) || x.times == c.times => {
            let n = x.len().min(c.len());
            (x.times.clone(), Cow::Borrowed(&x.vals[..n]), Cow::Borrowed(&c.vals[..n]))
        }
        Value::Bools(c) => {
            let pairs = x.join(c, |v, b| (v, b));
            let vals = pairs.vals.iter().map(|p| p.0).collect();
            let flags = pairs.vals.iter().map(|p| p.1).collect();
            (pairs.times, Cow::Owned(vals), Cow::Owned(flags))
        }
        Value::Bool(b) => {
            (x.times.clone(), Cow::Borrowed(&x.vals[..]), Cow::Owned(vec![*b; x.len()]))
        }
        _ => (x.times.clone(), Cow::Borrowed(&x.vals[..]), Cow::Owned(vec![false; x.len()])),
    }
}

#[cfg(test)]
mod tests {
    use super::super::facts::{SizeCaps, SkuCaps};
    use super::*;

    // `keep` of a series on its condition's axis (shared or equal) reads both in place;
    // on other time stamps it pairs them by time first. Either way the kept samples are
    // those of the time-paired definition.
    #[test]
    fn kept_samples_are_the_time_paired_ones_on_any_axis() {
        let axis: Times = Arc::new((0..5).map(|i| Some(i * 1000)).collect());
        let x = TimeSeries::new(axis.clone(), vec![1.0, 2.0, 3.0, 4.0, 5.0], Some(1.0));
        let flags = vec![true, false, true, true, false];
        let want = |x: &TimeSeries<f64>, c: &TimeSeries<bool>| {
            let pairs = x.join(c, |v, b| (v, b));
            let kept: Vec<(Option<i64>, f64)> = pairs
                .times
                .iter()
                .zip(pairs.vals.iter())
                .filter(|(_, p)| p.1)
                .map(|(t, p)| (*t, p.0))
                .collect();
            kept
        };
        let got = |s: TimeSeries<f64>| -> Vec<(Option<i64>, f64)> {
            s.times.iter().copied().zip(s.vals.iter().copied()).collect()
        };
        let shared = TimeSeries::new(axis.clone(), flags.clone(), None);
        let equal = TimeSeries::new(Arc::new((*axis).clone()), flags.clone(), None);
        let other = TimeSeries::new(
            Arc::new(vec![Some(1000), Some(2000), Some(9000)]),
            vec![true; 3],
            None,
        );
        for c in [&shared, &equal, &other] {
            let kept = select(&x, &Value::Bools(c.clone()));
            assert_eq!(kept.interval, Some(1.0));
            assert_eq!(got(kept), want(&x, c));
        }
        assert_eq!(
            got(select(&x, &Value::Bools(shared))),
            vec![(Some(0), 1.0), (Some(2000), 3.0), (Some(3000), 4.0)]
        );
        assert_eq!(select(&x, &Value::Bool(true)).vals, x.vals);
        assert!(select(&x, &Value::Bool(false)).is_empty());
        assert!(select(&x, &Value::Num(1.0)).is_empty());
    }

    fn sku(name: &str, tier: &str, caps: [Option<f64>; 4]) -> SkuCaps {
        SkuCaps {
            sku: name.into(),
            tier: tier.into(),
            iops: caps[0],
            mbps: caps[1],
            burst_iops: caps[2],
            burst_mbps: caps[3],
            superseded: false,
            provisioned: false,
            source: vec!["test".into()],
        }
    }

    /// Rows of crates/topology/catalog/disk_skus.csv.
    fn catalog() -> CatalogCaps {
        let p = "Premium SSD";
        let s = "Standard HDD";
        let mut disks = vec![
            sku("P6", p, [Some(240.0), Some(50.0), Some(3500.0), Some(170.0)]),
            sku("P10", p, [Some(500.0), Some(100.0), Some(3500.0), Some(170.0)]),
            sku("P15", p, [Some(1100.0), Some(125.0), Some(3500.0), Some(170.0)]),
            sku("P20", p, [Some(2300.0), Some(150.0), Some(3500.0), Some(170.0)]),
            sku("P30", p, [Some(5000.0), Some(200.0), Some(30000.0), Some(1000.0)]),
        ];
        for n in ["S4", "S6", "S10", "S15", "S20", "S30", "S40", "S50"] {
            disks.push(sku(n, s, [Some(500.0), Some(60.0), None, None]));
        }
        let mut ultra = sku("Ultra_4GiB", "Ultra Disk", [Some(4000.0), Some(1000.0), None, None]);
        ultra.provisioned = true;
        disks.push(ultra);
        let vm = |size: &str, family: &str, u: f64, um: f64, burst: Option<f64>| SizeCaps {
            size: size.into(),
            family: family.into(),
            cached_iops: None,
            cached_mbps: None,
            uncached_iops: Some(u),
            uncached_mbps: Some(um),
            uncached_burst_iops: None,
            uncached_burst_mbps: burst,
            vcpu: Some(if size.contains("16") {
                16
            } else if size.contains("DS1") {
                1
            } else {
                2
            }),
            source: vec!["test".into()],
        };
        let vms = vec![
            vm("Standard_DS1", "DS", 3200.0, 32.0, None),
            vm("Standard_E16as_v5", "E", 25600.0, 384.0, Some(800.0)),
            vm("Standard_D16s_v5", "D", 25600.0, 600.0, Some(1200.0)),
            vm("Standard_E2as_v5", "E", 3750.0, 82.0, Some(600.0)),
        ];
        CatalogCaps { disks, vms }
    }

    #[test]
    fn a_flat_top_is_the_band_and_quiet_stretches_stay_out() {
        // 20 idle-ish samples at 300, 40 at the 3,500 ceiling: the band is the 40.
        let mut vals = vec![300.0; 20];
        vals.extend((0..40).map(|i| 3490.0 + f64::from(i % 8) * 10.0));
        let busy = vec![true; 60];
        let Band::Samples(b) = plateau_band(&vals, &busy, 30) else { panic!("band") };
        assert_eq!(b.len(), 40);
        assert!(b.iter().all(|i| *i >= 20));
    }

    #[test]
    fn too_few_busy_samples_are_counted_and_none_is_an_empty_band() {
        let vals = vec![3500.0; 10];
        assert_eq!(plateau_band(&vals, &[true; 10], 30), Band::TooFew(10));
        assert_eq!(plateau_band(&vals, &[false; 10], 30), Band::Samples(vec![]));
        // Not-a-number samples do not count as busy.
        assert_eq!(plateau_band(&[f64::NAN; 40], &[true; 40], 30), Band::Samples(vec![]));
    }

    #[test]
    fn a_burst_ceiling_names_every_credit_bursting_sku_with_that_cap() {
        let c = catalog();
        // P6, P10, P15 and P20 all burst to 3,500: neighbours in the catalog, a range.
        assert_eq!(
            disk_caps_near(&c, Measure::Iops, 3520.0, 0.05).as_deref(),
            Some("P6-P20 (Premium SSD) burst cap of 3,500 IOPS")
        );
        let three = CatalogCaps { disks: c.disks[1..].to_vec(), vms: Vec::new() };
        assert_eq!(
            disk_caps_near(&three, Measure::Iops, 3480.0, 0.05).as_deref(),
            Some("P10/P15/P20 (Premium SSD) burst cap of 3,500 IOPS")
        );
        // 500 IOPS: the Standard HDD run (neighbours in the catalog, so a range) and the
        // P10 baseline, equally close: the lower cap first, then by catalog order.
        assert_eq!(
            disk_caps_near(&c, Measure::Iops, 500.0, 0.05).as_deref(),
            Some("P10 (Premium SSD) cap of 500 IOPS; S4-S50 (Standard HDD) cap of 500 IOPS")
        );
        // Provisioned rows never match; far from everything is None.
        assert_eq!(disk_caps_near(&c, Measure::Iops, 4000.0, 0.05), None);
        assert_eq!(
            disk_caps_near(&c, Measure::Mbps, 196.0, 0.05).as_deref(),
            Some("P30 (Premium SSD) cap of 200 MB/s")
        );
    }

    #[test]
    fn vm_sizes_match_any_of_their_caps_closest_first_and_by_family() {
        let c = catalog();
        assert_eq!(
            vm_sizes_near(&c, Measure::Mbps, 815.0, 0.05, None, None).as_deref(),
            Some("Standard_E16as_v5 (uncached burst 800 MB/s)")
        );
        assert_eq!(
            vm_sizes_near(&c, Measure::Iops, 3210.0, 0.05, None, None).as_deref(),
            Some("Standard_DS1 (uncached 3,200 IOPS)")
        );
        assert_eq!(vm_sizes_near(&c, Measure::Iops, 3210.0, 0.05, Some("E"), None), None);
        // A capture that states its CPU count keeps only sizes with that many vCPUs.
        assert!(vm_sizes_near(&c, Measure::Iops, 3210.0, 0.05, None, Some(1)).is_some());
        assert_eq!(vm_sizes_near(&c, Measure::Iops, 3210.0, 0.05, None, Some(8)), None);
        let two = vm_sizes_near(&c, Measure::Iops, 25_000.0, 0.05, Some("E"), None);
        assert_eq!(two.as_deref(), Some("Standard_E16as_v5 (uncached 25,600 IOPS)"));
    }

    #[test]
    fn numbers_print_as_azure_writes_them() {
        assert_eq!(grouped(3500.0), "3,500");
        assert_eq!(grouped(120.0), "120");
        assert_eq!(grouped(1_234_567.25), "1,234,567.3");
        assert_eq!(grouped(62.5), "62.5");
    }
}
