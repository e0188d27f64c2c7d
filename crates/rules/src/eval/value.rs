//! Runtime values: scalars and series, time alignment, and the reductions.

use std::sync::{Arc, Weak};

use crate::types::{CacheMode, Role};

/// Why a value could not be computed: what to provide.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Missing(pub(crate) String);

/// A value, or why it could not be computed.
pub(crate) type OrMissing<T> = Result<T, Missing>;

pub(crate) fn missing<T>(reason: impl Into<String>) -> OrMissing<T> {
    Err(Missing(reason.into()))
}

/// A collection element (a disk, pool, benchmark or target), by its index in [`Facts`].
///
/// [`Facts`]: super::Facts
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Element {
    /// Index into `Facts::disks`.
    Disk(usize),
    Pool(usize),
    Bench(usize),
    /// Index into `Facts::targets`.
    Target(usize),
    /// Index into `Facts::files`.
    File(usize),
}

/// The time stamps of a series (ms; `None` for a benchmark's summary row), shared: the
/// series of one capture's targets are on the same time axis, and an operation on two
/// series with the same axis pairs values by position, with no join and no new axis.
pub(crate) type Times = Arc<Vec<Option<i64>>>;

/// A series' values, shared by whatever reads them: their own, worked out by an
/// operation, or a source's buffer read in place (a capture's column that needs no
/// conversion), so a series loaded for a rule costs no copy.
pub(crate) struct Vals<T>(Arc<Store<T>>);

enum Store<T> {
    Own(Vec<T>),
    Source(Arc<dyn AsRef<[T]> + Send + Sync>),
}

/// [`Vals`] held weakly: a cache keyed by the values it was taken of.
pub(crate) struct WeakVals<T>(Weak<Store<T>>);

impl<T> Vals<T> {
    pub(crate) fn new(v: Vec<T>) -> Self {
        Vals(Arc::new(Store::Own(v)))
    }

    /// A source's buffer, read in place.
    pub(crate) fn source(v: Arc<dyn AsRef<[T]> + Send + Sync>) -> Self {
        Vals(Arc::new(Store::Source(v)))
    }

    /// The values to write over in place: when they are this series' own and nothing
    /// else holds them.
    pub(crate) fn get_mut(&mut self) -> Option<&mut Vec<T>> {
        match Arc::get_mut(&mut self.0)? {
            Store::Own(v) => Some(v),
            Store::Source(_) => None,
        }
    }

    /// Whether both are the same values (not a copy of them).
    pub(crate) fn ptr_eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// Where the values are held, as an identity.
    pub(crate) fn as_ptr(&self) -> *const () {
        Arc::as_ptr(&self.0).cast()
    }

    pub(crate) fn downgrade(&self) -> WeakVals<T> {
        WeakVals(Arc::downgrade(&self.0))
    }
}

impl<T> WeakVals<T> {
    pub(crate) fn upgrade(&self) -> Option<Vals<T>> {
        self.0.upgrade().map(Vals)
    }

    pub(crate) fn as_ptr(&self) -> *const () {
        self.0.as_ptr().cast()
    }

    pub(crate) fn strong_count(&self) -> usize {
        self.0.strong_count()
    }
}

impl<T> Clone for Vals<T> {
    fn clone(&self) -> Self {
        Vals(Arc::clone(&self.0))
    }
}

impl<T> Default for Vals<T> {
    fn default() -> Self {
        Vals::new(Vec::new())
    }
}

impl<T> std::ops::Deref for Vals<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        match &*self.0 {
            Store::Own(v) => v,
            Store::Source(v) => (**v).as_ref(),
        }
    }
}

impl<T: PartialEq> PartialEq for Vals<T> {
    fn eq(&self, other: &Self) -> bool {
        self.ptr_eq(other) || **self == **other
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Vals<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

/// A series: time-ordered values on a time axis, and the sampling interval when known.
/// Columnar: an operation allocates only its values (8 bytes a point for numbers, 1 for
/// bools), never a copy of the time stamps, so rules over a day of samples stay cheap.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TimeSeries<T> {
    pub(crate) times: Times,
    pub(crate) vals: Vals<T>,
    pub(crate) interval: Option<f64>,
}

impl<T: Copy> TimeSeries<T> {
    #[cfg(test)]
    pub(crate) fn new(times: Times, vals: Vec<T>, interval: Option<f64>) -> Self {
        debug_assert_eq!(times.len(), vals.len());
        TimeSeries { times, vals: Vals::new(vals), interval }
    }

    pub(crate) fn len(&self) -> usize {
        self.vals.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.vals.is_empty()
    }

    pub(crate) fn map<U>(&self, f: impl Fn(T) -> U) -> TimeSeries<U> {
        TimeSeries {
            times: self.times.clone(),
            vals: Vals::new(self.vals.iter().map(|v| f(*v)).collect()),
            interval: self.interval,
        }
    }

    /// [`TimeSeries::map`] to the same type, taking the series: the values are written
    /// over in place when nothing else holds them (a temporary of an expression), so a
    /// chain of operations on a day of samples does not allocate a series for each.
    pub(crate) fn map_owned(mut self, f: impl Fn(T) -> T) -> TimeSeries<T> {
        match self.vals.get_mut() {
            Some(v) => {
                v.iter_mut().for_each(|x| *x = f(*x));
                self
            }
            None => self.map(f),
        }
    }

    /// [`TimeSeries::join`] to the same type, taking both series: on one time axis, the
    /// result is written over the values of whichever nothing else holds.
    pub(crate) fn join_owned(
        mut self,
        mut other: TimeSeries<T>,
        f: impl Fn(T, T) -> T,
    ) -> TimeSeries<T> {
        if Arc::ptr_eq(&self.times, &other.times) || self.times == other.times {
            let interval = self.interval.or(other.interval);
            if let Some(a) = self.vals.get_mut() {
                a.iter_mut().zip(other.vals.iter()).for_each(|(x, y)| *x = f(*x, *y));
                self.interval = interval;
                return self;
            }
            if let Some(b) = other.vals.get_mut() {
                b.iter_mut().zip(self.vals.iter()).for_each(|(y, x)| *y = f(*x, *y));
                return TimeSeries { times: self.times, vals: other.vals, interval };
            }
        }
        self.join(&other, f)
    }

    /// Inner join on time: the points both have, in time order. On the same time axis
    /// (the usual case) that is every point, paired by position.
    pub(crate) fn join<U: Copy, O>(
        &self,
        other: &TimeSeries<U>,
        f: impl Fn(T, U) -> O,
    ) -> TimeSeries<O> {
        let interval = self.interval.or(other.interval);
        if Arc::ptr_eq(&self.times, &other.times) || self.times == other.times {
            let vals = self.vals.iter().zip(other.vals.iter()).map(|(a, b)| f(*a, *b)).collect();
            return TimeSeries { times: self.times.clone(), vals: Vals::new(vals), interval };
        }
        let (ta, tb) = (&self.times, &other.times);
        let n = ta.len().min(tb.len());
        let (mut times, mut vals) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let (mut i, mut j) = (0, 0);
        while i < ta.len() && j < tb.len() {
            match ta[i].cmp(&tb[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    times.push(ta[i]);
                    vals.push(f(self.vals[i], other.vals[j]));
                    i += 1;
                    j += 1;
                }
            }
        }
        TimeSeries { times: Arc::new(times), vals: Vals::new(vals), interval }
    }

    /// Seconds between samples: as given, else the median gap of the timestamps.
    pub(crate) fn interval_s(&self) -> Option<f64> {
        if let Some(i) = self.interval.filter(|i| *i > 0.0 && i.is_finite()) {
            return Some(i);
        }
        let mut gaps: Vec<i64> = self
            .times
            .windows(2)
            .filter_map(|w| match (w[0], w[1]) {
                (Some(a), Some(b)) if b > a => Some(b - a),
                _ => None,
            })
            .collect();
        if gaps.is_empty() {
            return None;
        }
        // The median: a selection (linear), the sort's middle element.
        let mid = gaps.len() / 2;
        let (_, m, _) = gaps.select_nth_unstable(mid);
        Some(*m as f64 / 1000.0)
    }
}

impl TimeSeries<f64> {
    /// Drops points that are not finite (a division by zero at one sample).
    pub(crate) fn finite(self) -> TimeSeries<f64> {
        if advisor_model::all_finite(&self.vals) {
            return self;
        }
        let (times, vals): (Vec<Option<i64>>, Vec<f64>) = self
            .times
            .iter()
            .zip(self.vals.iter())
            .filter(|(_, v)| v.is_finite())
            .map(|(t, v)| (*t, *v))
            .unzip();
        TimeSeries { times: Arc::new(times), vals: Vals::new(vals), interval: self.interval }
    }
}

/// A value during evaluation. Numbers are in stored units (bytes, seconds, fractions).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    Num(f64),
    Bool(bool),
    Text(String),
    Cache(CacheMode),
    Role(Role),
    Element(Element),
    Nums(TimeSeries<f64>),
    Bools(TimeSeries<bool>),
}

impl Value {
    pub(crate) fn describe(&self) -> &'static str {
        match self {
            Value::Num(_) => "a number",
            Value::Bool(_) => "a bool",
            Value::Text(_) => "text",
            Value::Cache(_) => "a cache mode",
            Value::Role(_) => "a role",
            Value::Element(_) => "an element",
            Value::Nums(_) => "a series",
            Value::Bools(_) => "a bool series",
        }
    }
}

/// Calls `run` with each stretch of consecutive positions below `len` that are kept, in
/// order. `mask` says which positions of a block of at most 64 are kept, as the bits of a
/// word (bit `k`: the block's `k`th position; [`bits`] makes it from a slice), so the
/// test runs over a plain slice without a branch, and the stretches are read from the
/// word: a long busy or idle stretch (the usual shape of a disk's day) costs a copy or
/// nothing, not a mispredicted branch per sample.
pub(crate) fn kept_runs(
    len: usize,
    mask: impl Fn(std::ops::Range<usize>) -> u64,
    mut run: impl FnMut(std::ops::Range<usize>),
) {
    let mut open: Option<usize> = None;
    for block in (0..len).step_by(64) {
        let n = (len - block).min(64);
        let mask = mask(block..block + n);
        // Walk the mask's stretches of ones and zeros.
        let mut k = 0usize;
        while k < n {
            let rest = mask >> k;
            if rest & 1 == 1 {
                let ones = (rest.trailing_ones() as usize).min(n - k);
                open.get_or_insert(block + k);
                k += ones;
            } else {
                let zeros =
                    if rest == 0 { n - k } else { (rest.trailing_zeros() as usize).min(n - k) };
                if let Some(start) = open.take() {
                    run(start..block + k);
                }
                k += zeros;
            }
        }
    }
    if let Some(start) = open {
        run(start..len);
    }
}

/// The word [`kept_runs`] reads for a block: bit `k` set where `keep` holds of `xs[k]`
/// (at most 64 of them).
pub(crate) fn bits<T: Copy>(xs: &[T], keep: impl Fn(T) -> bool) -> u64 {
    xs.iter().take(64).enumerate().fold(0u64, |m, (k, x)| m | (u64::from(keep(*x)) << k))
}

/// Nearest-rank percentile (as `advisor_normalize::Stats`) of finite values: a selection,
/// linear in the values (a day of samples per disk and metric), the sort's value to the bit.
pub(crate) fn percentile(values: &[f64], p: f64) -> Option<f64> {
    percentiles(values, &[p]).into_iter().next().flatten()
}

/// [`percentile`] for each of `ps`, in one selection (each in the part above the last).
pub(crate) fn percentiles(values: &[f64], ps: &[f64]) -> Vec<Option<f64>> {
    // A straight copy to select in; filtered only when something is not finite.
    let mut v: Vec<f64> = values.to_vec();
    if !advisor_model::all_finite(&v) {
        v.retain(|x| x.is_finite());
    }
    advisor_model::nearest_ranks_of_numbers(&mut v, ps)
}

/// Whether a step between two samples breaks a run: more than 1.5 intervals, as
/// `step_ms as f64 / 1000.0 > interval * 1.5`. That test only grows with the step, so it
/// is worked out once as the smallest step it holds for, and each step is then one
/// integer comparison (the same answers, without a division per sample).
struct Gaps {
    /// The smallest step in ms that breaks a run; `None` when none does.
    min_gap: Option<i64>,
}

impl Gaps {
    fn new(interval: f64) -> Self {
        let breaks = |ms: i64| ms as f64 / 1000.0 > interval * 1.5;
        if !breaks(i64::MAX) {
            return Gaps { min_gap: None };
        }
        if breaks(i64::MIN) {
            return Gaps { min_gap: Some(i64::MIN) };
        }
        // breaks(lo) is false, breaks(hi) true; wide enough that `hi - lo` cannot overflow.
        let (mut lo, mut hi) = (i128::from(i64::MIN), i128::from(i64::MAX));
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            // Between two i64s, so an i64.
            if breaks(mid as i64) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        let hi = hi as i64;
        Gaps { min_gap: Some(hi) }
    }

    /// For a step of `ms` milliseconds.
    fn breaks(&self, ms: i64) -> bool {
        self.min_gap.is_some_and(|g| ms >= g)
    }
}

/// Where a time axis breaks runs: the positions whose step from the sample before is a
/// gap (more than 1.5 intervals, [`Gaps`]), in order; `None` when a sample has no time
/// (runs are then read a sample at a time). Worked out once per axis and interval
/// (`SeriesCache::gap_positions`): on a regular capture it is empty, and cutting the
/// stretches of true at gaps costs nothing per sample.
pub(crate) fn gap_positions(times: &[Option<i64>], interval: f64) -> Option<Vec<usize>> {
    if !times.iter().all(Option::is_some) {
        return None;
    }
    let gaps = Gaps::new(interval);
    let at = |k: usize| times[k].unwrap_or(0);
    Some((1..times.len()).filter(|&k| gaps.breaks(at(k) - at(k - 1))).collect())
}

/// The longest run of consecutive true samples, in seconds. A gap in the timestamps of
/// more than 1.5 intervals breaks a run. `breaks`: [`gap_positions`] of `s`'s axis.
pub(crate) fn longest_run_s(s: &TimeSeries<bool>, interval: f64, breaks: Option<&[usize]>) -> f64 {
    let best = match breaks {
        Some(b) => timed_pieces(s, b).iter().map(|r| r.len()).max().unwrap_or(0),
        None => longest_stepwise(s, &Gaps::new(interval)),
    };
    best as f64 * interval
}

/// [`longest_run_s`]'s count of samples, a sample at a time (any time stamps).
fn longest_stepwise(s: &TimeSeries<bool>, gaps: &Gaps) -> usize {
    let mut best = 0usize;
    let mut run = 0usize;
    let mut last: Option<i64> = None;
    for (t, b) in s.times.iter().zip(s.vals.iter()) {
        let gap = match (last, t) {
            (Some(a), Some(b)) => gaps.breaks(*b - a),
            _ => false,
        };
        if *b {
            run = if gap { 1 } else { run + 1 };
            best = best.max(run);
        } else {
            run = 0;
        }
        last = *t;
    }
    best
}

/// On an axis where every sample has a time (a capture over time; the usual case), the
/// positions of each run of true samples, unbroken by a gap: the stretches of true read
/// 64 samples at a time ([`kept_runs`]), each cut at the gap positions `breaks` inside it.
fn timed_pieces(s: &TimeSeries<bool>, breaks: &[usize]) -> Vec<std::ops::Range<usize>> {
    let n = s.times.len().min(s.vals.len());
    let mut pieces = Vec::new();
    kept_runs(
        n,
        |r| bits(&s.vals[r], |b| b),
        |r| {
            let mut start = r.start;
            let from = breaks.partition_point(|&k| k <= r.start);
            for &k in breaks[from..].iter().take_while(|&&k| k < r.end) {
                pieces.push(start..k);
                start = k;
            }
            pieces.push(start..r.end);
        },
    );
    pieces
}

/// The runs of consecutive true samples, as (first, last) time stamps in ms; a gap of more
/// than 1.5 intervals breaks a run. Samples without a time are skipped. `breaks`:
/// [`gap_positions`] of `s`'s axis.
pub(crate) fn runs(
    s: &TimeSeries<bool>,
    interval: f64,
    breaks: Option<&[usize]>,
) -> Vec<(i64, i64)> {
    match breaks {
        Some(b) => timed_pieces(s, b)
            .into_iter()
            .map(|r| (s.times[r.start].unwrap_or(0), s.times[r.end - 1].unwrap_or(0)))
            .collect(),
        None => runs_stepwise(s, &Gaps::new(interval)),
    }
}

/// [`runs`] a sample at a time (any time stamps).
fn runs_stepwise(s: &TimeSeries<bool>, gaps: &Gaps) -> Vec<(i64, i64)> {
    let mut out: Vec<(i64, i64)> = Vec::new();
    let mut open = false;
    let mut last: Option<i64> = None;
    for (t, b) in s.times.iter().zip(s.vals.iter()) {
        let Some(t) = *t else { continue };
        let gap = last.is_some_and(|a| gaps.breaks(t - a));
        match (b, open && !gap, out.last_mut()) {
            (true, true, Some(run)) => run.1 = t,
            (true, _, _) => {
                out.push((t, t));
                open = true;
            }
            (false, _, _) => open = false,
        }
        last = Some(t);
    }
    out
}

/// Runs as text, the three longest in time order then how many more: `18:25-18:40 on
/// 2024-06-11, 19:02-19:04`. Each run ends one interval after its last sample.
pub(crate) fn spans_text(runs: &[(i64, i64)], interval: f64) -> String {
    if runs.is_empty() {
        return "never".to_owned();
    }
    let step = (interval * 1000.0) as i64;
    let mut longest: Vec<&(i64, i64)> = runs.iter().collect();
    longest.sort_by_key(|(a, b)| std::cmp::Reverse(b - a));
    let mut shown: Vec<&(i64, i64)> = longest.into_iter().take(3).collect();
    shown.sort();
    let mut out = String::new();
    let mut day = String::new();
    for (i, (a, b)) in shown.iter().enumerate() {
        let (d, start) = clock(*a);
        let (_, end) = clock(*b + step);
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&format!("{start}-{end}"));
        if d != day {
            out.push_str(&format!(" on {d}"));
            day = d;
        }
    }
    if runs.len() > shown.len() {
        out.push_str(&format!(" and {} more", runs.len() - shown.len()));
    }
    out
}

/// A time stamp (ms since 1970, the series' own clock) as (`YYYY-MM-DD`, `HH:MM`), or
/// `HH:MM:SS` when it is not on a whole minute.
pub(crate) fn clock(ms: i64) -> (String, String) {
    let secs = ms.div_euclid(1000);
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Days to a civil date (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    let (h, mi, s) = (rem / 3600, rem % 3600 / 60, rem % 60);
    let time = if s == 0 { format!("{h:02}:{mi:02}") } else { format!("{h:02}:{mi:02}:{s:02}") };
    (format!("{y:04}-{m:02}-{d:02}"), time)
}

/// A name as (text, number) chunks, so that `disk2` sorts before `disk10`.
pub(crate) fn natural_key(s: &str) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut num: Option<u64> = None;
    for c in s.chars() {
        match c.to_digit(10) {
            Some(d) => {
                num = Some(num.unwrap_or(0).saturating_mul(10).saturating_add(u64::from(d)));
            }
            None => {
                if let Some(n) = num.take() {
                    out.push((std::mem::take(&mut text), n));
                }
                text.push(c);
            }
        }
    }
    out.push((text, num.unwrap_or(0)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    // Taking the series gives what the copying forms give, and writes over the values
    // only when nothing else holds them.
    #[test]
    fn owned_operations_are_the_copying_ones_in_place_when_alone() {
        let axis: Times = Arc::new((0..4).map(|i| Some(i * 1000)).collect());
        let a = || TimeSeries::new(axis.clone(), vec![1.0, 2.0, 3.0, 4.0], None);
        let b = TimeSeries::new(axis.clone(), vec![10.0, 20.0, 30.0, 40.0], Some(1.0));
        let want = a().join(&b, |x, y| x - y);
        // Alone: in place, in the left's buffer.
        let left = a();
        let at = left.vals.as_ptr();
        let got = left.join_owned(b.clone(), |x, y| x - y);
        assert_eq!(got, want);
        assert_eq!(got.vals.as_ptr(), at);
        // The left is held elsewhere (a let's value, the cache's series): the right's
        // buffer, with the operands in their order.
        let held = a();
        let right = TimeSeries::new(axis.clone(), vec![10.0, 20.0, 30.0, 40.0], Some(1.0));
        let at = right.vals.as_ptr();
        let got = held.clone().join_owned(right, |x, y| x - y);
        assert_eq!((got.clone(), got.vals.as_ptr()), (want.clone(), at));
        assert_eq!(*held.vals, vec![1.0, 2.0, 3.0, 4.0], "a held series is not written");
        // Both held: a new series.
        let got = held.clone().join_owned(b.clone(), |x, y| x - y);
        assert_eq!(got, want);
        assert_eq!(*b.vals, vec![10.0, 20.0, 30.0, 40.0]);
        // Other time stamps: the inner join.
        let other = TimeSeries::new(Arc::new(vec![Some(1000), Some(3000)]), vec![5.0, 6.0], None);
        assert_eq!(a().join_owned(other.clone(), |x, y| x + y), a().join(&other, |x, y| x + y));
        // map
        let one = a();
        let at = one.vals.as_ptr();
        let got = one.map_owned(|x| x * 2.0);
        assert_eq!((got.clone(), got.vals.as_ptr()), (a().map(|x| x * 2.0), at));
        assert_eq!(held.clone().map_owned(|x| x * 2.0), held.map(|x| x * 2.0));
        assert_eq!(*held.vals, vec![1.0, 2.0, 3.0, 4.0]);
        // A source's buffer read in place is never written over, even held by nothing
        // else: the operations give a new series.
        let buffer = Arc::new(vec![1.0, 2.0, 3.0, 4.0]);
        let source = || TimeSeries {
            times: axis.clone(),
            vals: Vals::source(buffer.clone()),
            interval: None,
        };
        assert_eq!(source().map_owned(|x| x * 2.0), a().map(|x| x * 2.0));
        assert_eq!(source().join_owned(source(), |x, y| x + y), a().join(&a(), |x, y| x + y));
        assert_eq!(*buffer, vec![1.0, 2.0, 3.0, 4.0]);
    }

    proptest::proptest! {
        // A step breaks a run exactly when it is more than 1.5 intervals, as the division
        // says, right at the threshold too.
        #[test]
        fn a_gap_is_what_the_division_says(
            interval in proptest::prop_oneof![
                proptest::num::f64::POSITIVE | proptest::num::f64::NORMAL,
                proptest::strategy::Strategy::prop_map(1u32..100_000, |i| f64::from(i) / 1000.0),
            ],
            steps in proptest::collection::vec(proptest::num::i64::ANY, 0..20),
        ) {
            let gaps = Gaps::new(interval);
            let says = |ms: i64| ms as f64 / 1000.0 > interval * 1.5;
            let mut tried = steps;
            if let Some(g) = gaps.min_gap {
                tried.extend([g, g.saturating_sub(1), g.saturating_add(1)]);
            }
            tried.extend([0, 1000, 1500, 1501, 2999, 3000, 60_000, 90_000, 90_001]);
            for ms in tried {
                proptest::prop_assert_eq!(gaps.breaks(ms), says(ms), "{} ms at {} s", ms, interval);
            }
        }

        // On a timed axis (any steps, gaps and repeats among them), the runs and the
        // longest run read from the stretches are those a sample at a time gives.
        #[test]
        fn runs_from_stretches_are_the_stepwise_runs(
            samples in proptest::collection::vec(
                (proptest::prop_oneof![8 => proptest::strategy::Just(1000i64), 1 => proptest::strategy::Just(0i64), 1 => 1500i64..5000], proptest::bool::weighted(0.6)),
                0..200,
            ),
            interval in proptest::prop_oneof![proptest::strategy::Just(1.0), proptest::strategy::Just(2.0), proptest::strategy::Just(0.5)],
        ) {
            let mut t = 1_700_000_000_000i64;
            let times: Vec<Option<i64>> = samples.iter().map(|(step, _)| { t += step; Some(t) }).collect();
            let vals: Vec<bool> = samples.iter().map(|(_, b)| *b).collect();
            let s = TimeSeries::new(Arc::new(times), vals, Some(interval));
            let gaps = Gaps::new(interval);
            let breaks = gap_positions(&s.times, interval);
            proptest::prop_assert!(breaks.is_some());
            let breaks = breaks.as_deref();
            proptest::prop_assert_eq!(runs(&s, interval, breaks), runs_stepwise(&s, &gaps));
            proptest::prop_assert_eq!(
                longest_run_s(&s, interval, breaks).to_bits(),
                (longest_stepwise(&s, &gaps) as f64 * interval).to_bits()
            );
            // A sample without a time: no gap positions, and the runs go a sample at a time.
            let mut untimed = s.times.to_vec();
            if let Some(t) = untimed.first_mut() {
                *t = None;
                proptest::prop_assert!(gap_positions(&untimed, interval).is_none());
            }
        }

        // The stretches are exactly the kept positions, each as long as it goes (never
        // two touching), across blocks of 64.
        #[test]
        fn kept_runs_are_the_kept_positions_in_maximal_stretches(
            flags in proptest::collection::vec(proptest::bool::weighted(0.7), 0..300),
        ) {
            let mut got: Vec<std::ops::Range<usize>> = Vec::new();
            kept_runs(flags.len(), |r| bits(&flags[r], |b| b), |r| got.push(r));
            let kept: Vec<usize> = got.iter().flat_map(|r| r.clone()).collect();
            let want: Vec<usize> = (0..flags.len()).filter(|i| flags[*i]).collect();
            proptest::prop_assert_eq!(kept, want);
            for w in got.windows(2) {
                proptest::prop_assert!(w[0].end < w[1].start);
            }
            proptest::prop_assert!(got.iter().all(|r| !r.is_empty()));
        }
    }

    #[test]
    fn runs_and_their_text() {
        let min = 60_000;
        let t0 = 1_718_130_600_000; // 2024-06-11 18:30 UTC
        let b = TimeSeries::new(
            Arc::new((0..10).map(|i| Some(t0 + i * min)).chain([Some(t0 + 20 * min)]).collect()),
            vec![true, true, false, true, false, false, true, true, true, false, true],
            Some(60.0),
        );
        let r = runs(&b, 60.0, gap_positions(&b.times, 60.0).as_deref());
        assert_eq!(r.len(), 4);
        assert_eq!(r[2], (t0 + 6 * min, t0 + 8 * min));
        assert_eq!(
            spans_text(&r, 60.0),
            "18:30-18:32 on 2024-06-11, 18:33-18:34, 18:36-18:39 and 1 more"
        );
        assert_eq!(spans_text(&[], 60.0), "never");
        let mut names = ["disk10", "LUN 1", "disk2", "E: (LUN 0)", "disk2"];
        names.sort_by_cached_key(|n| natural_key(n));
        assert_eq!(names, ["E: (LUN 0)", "LUN 1", "disk2", "disk2", "disk10"]);
        assert_eq!(clock(0), ("1970-01-01".to_owned(), "00:00".to_owned()));
        assert_eq!(clock(951_782_400_000 + 1000).0, "2000-02-29");
    }

    fn s(pts: &[(i64, f64)]) -> TimeSeries<f64> {
        let (times, vals) = pts.iter().map(|(t, v)| (Some(*t), *v)).unzip();
        TimeSeries::new(Arc::new(times), vals, None)
    }

    #[test]
    fn join_is_an_inner_join_on_time() {
        let a = s(&[(0, 1.0), (1000, 2.0), (2000, 3.0)]);
        let b = s(&[(1000, 10.0), (2000, 20.0), (3000, 30.0)]);
        let c = a.join(&b, |x, y| x + y);
        assert_eq!((&*c.times, &*c.vals), (&vec![Some(1000), Some(2000)], &[12.0, 23.0][..]));
        assert_eq!(c.interval_s(), Some(1.0));
        // The same axis (shared or equal): paired by position, the axis kept.
        let d = c.join(&c.map(|x| x * 2.0), |x, y| y - x);
        assert!(Arc::ptr_eq(&d.times, &c.times));
        assert_eq!(*d.vals, vec![12.0, 23.0]);
        let e = a.join(&s(&[(0, 1.0), (1000, 1.0), (2000, 1.0)]), |x, y| x + y);
        assert_eq!(*e.vals, vec![2.0, 3.0, 4.0]);
    }

    #[test]
    fn runs_break_on_false_and_on_gaps() {
        let b = TimeSeries::new(
            Arc::new([0, 1000, 2000, 3000, 4000, 5000, 9000].map(Some).to_vec()),
            vec![true, true, false, true, true, true, true],
            Some(1.0),
        );
        let breaks = gap_positions(&b.times, 1.0);
        assert_eq!(breaks.as_deref(), Some(&[6][..]), "the step 5000 -> 9000 is a gap");
        assert!((longest_run_s(&b, 1.0, breaks.as_deref()) - 3.0).abs() < 1e-9);
        assert_eq!(runs(&b, 1.0, breaks.as_deref()), vec![(0, 1000), (3000, 5000), (9000, 9000)]);
    }

    #[test]
    fn nearest_rank() {
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&v, 95.0), Some(95.0));
        assert_eq!(percentile(&v, 99.9), Some(100.0));
        assert_eq!(percentile(&[], 50.0), None);
        // Whole ranks stay whole: 14% of 50 samples is the 7th, 7% of 100 the 7th.
        let v: Vec<f64> = (1..=50).map(f64::from).collect();
        assert_eq!(percentile(&v, 14.0), Some(7.0));
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&v, 7.0), Some(7.0));
        let v: Vec<f64> = (1..=1000).map(f64::from).collect();
        assert_eq!(percentile(&v, 99.9), Some(999.0));
        assert_eq!(percentile(&v, 0.0), Some(1.0));
    }
}
