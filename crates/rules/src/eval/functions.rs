//! Built-in functions: `exists`, `coalesce`, `if`, time aggregates, the tool's own percentiles,
//! and aggregates over collections of disks, pools and targets.

use super::operators::{bool_op, cmp_op, num_op, num_op_unchecked};
use super::*;

impl Evaluation<'_> {
    // ---- functions ----------------------------------------------------------------------

    pub(super) fn call(
        &mut self,
        b: Builtin,
        args: &[TypedExpr],
        whole: &TypedExpr,
    ) -> OrMissing<Value> {
        if b == Builtin::Exists {
            let Some(a) = args.first() else { return Ok(Value::Bool(false)) };
            return Ok(Value::Bool(match self.eval(a) {
                Ok(Value::Nums(s)) => !s.is_empty(),
                Ok(Value::Bools(s)) => !s.is_empty(),
                Ok(_) => true,
                Err(_) => false,
            }));
        }
        if b == Builtin::Coalesce {
            let (Some(a), Some(fallback)) = (args.first(), args.get(1)) else {
                return missing("internal: coalesce() takes two arguments");
            };
            return match self.eval(a) {
                Ok(v) => Ok(v),
                Err(_) => self.eval(fallback),
            };
        }
        if b == Builtin::If {
            // Lazy: only the chosen value is evaluated, so the other may be missing.
            let (Some(c), Some(x), Some(y)) = (args.first(), args.get(1), args.get(2)) else {
                return missing("internal: if() without three arguments");
            };
            return match self.eval(c)? {
                Value::Bool(true) => self.eval(x),
                Value::Bool(false) => self.eval(y),
                v => missing(format!("if() of {}", v.describe())),
            };
        }
        if b.is_time_aggregate() {
            return self.time_aggregate(b, args, whole);
        }
        if b.is_inferred() {
            return self.inferred(b, args);
        }
        let mut vals = Vec::with_capacity(args.len());
        for a in args {
            vals.push(self.eval(a)?);
        }
        let mut it = vals.into_iter();
        let a = it.next();
        let c = it.next();
        let d = it.next();
        match (b, a, c, d) {
            (Builtin::Sustained, Some(cond), Some(Value::Num(dur)), _) => match cond {
                // A constant (`x and false`, `x or true` with `x` missing): never held, or
                // held for an unknown time.
                Value::Bool(false) => Ok(Value::Bool(false)),
                Value::Bool(true) => missing(self.constant_true(args)),
                Value::Bools(s) if s.is_empty() => {
                    missing(format!("no common samples in `{}`", self.src(&args[0])))
                }
                Value::Bools(s) => {
                    let Some(iv) = s.interval_s() else {
                        return missing(self.no_interval(args, s.len()));
                    };
                    let breaks = self.cache.gap_positions(&s.times, iv);
                    let longest =
                        value::longest_run_s(&s, iv, breaks.as_deref().map(Vec::as_slice));
                    Ok(Value::Bool(longest + 1e-9 >= dur))
                }
                v => missing(format!("sustained() of {}", v.describe())),
            },
            (Builtin::Share, Some(cond), _, _) => match cond {
                Value::Bool(x) => Ok(Value::Num(if x { 1.0 } else { 0.0 })),
                Value::Bools(s) if s.is_empty() => {
                    missing(format!("no common samples in `{}`", self.src(&args[0])))
                }
                Value::Bools(s) => {
                    let n = s.vals.iter().filter(|x| **x).count();
                    Ok(Value::Num(n as f64 / s.len() as f64))
                }
                v => missing(format!("share() of {}", v.describe())),
            },
            (Builtin::Interval, Some(x), _, _) => match x {
                Value::Nums(s) if s.is_empty() => {
                    missing(format!("no samples in `{}`", self.src(&args[0])))
                }
                // A benchmark's one-row summary has no clock: no interval to average over.
                Value::Nums(s) => Ok(Value::Num(s.interval_s().unwrap_or(0.0))),
                Value::Num(_) => Ok(Value::Num(0.0)),
                v => missing(format!("interval() of {}", v.describe())),
            },
            (Builtin::Duration, Some(cond), _, _) => match cond {
                Value::Bool(false) => Ok(Value::Num(0.0)),
                Value::Bool(true) => missing(self.constant_true(args)),
                Value::Bools(s) if s.is_empty() => {
                    missing(format!("no common samples in `{}`", self.src(&args[0])))
                }
                Value::Bools(s) => {
                    let Some(iv) = s.interval_s() else {
                        return missing(self.no_interval(args, s.len()));
                    };
                    let n = s.vals.iter().filter(|x| **x).count();
                    Ok(Value::Num(n as f64 * iv))
                }
                _ => missing(self.no_interval(args, 0)),
            },
            (Builtin::Longest | Builtin::Runs | Builtin::Spans, Some(cond), _, _) => {
                let s = match cond {
                    Value::Bools(s) if !s.is_empty() => s,
                    Value::Bool(false) if b == Builtin::Runs => return Ok(Value::Num(0.0)),
                    Value::Bool(false) if b == Builtin::Longest => return Ok(Value::Num(0.0)),
                    _ => return missing(format!("no samples in `{}`", self.src(&args[0]))),
                };
                let Some(iv) = s.interval_s() else {
                    return missing(self.no_interval(args, s.len()));
                };
                let breaks = self.cache.gap_positions(&s.times, iv);
                let breaks = breaks.as_deref().map(Vec::as_slice);
                Ok(match b {
                    Builtin::Longest => Value::Num(value::longest_run_s(&s, iv, breaks)),
                    Builtin::Runs => Value::Num(value::runs(&s, iv, breaks).len() as f64),
                    _ => Value::Text(value::spans_text(&value::runs(&s, iv, breaks), iv)),
                })
            }
            (Builtin::During, Some(Value::Nums(x)), Some(Value::Bools(c)), _) => {
                let kept = x.join(&c, |v, keep| if keep { v } else { f64::NAN }).finite();
                if kept.is_empty() {
                    return missing(format!("`{}` never holds", self.src(&args[1])));
                }
                Ok(Value::Nums(kept))
            }
            (Builtin::Min2, Some(x), Some(y), _) => num_op(x, y, f64::min),
            (Builtin::Max2, Some(x), Some(y), _) => num_op(x, y, f64::max),
            (Builtin::Abs, Some(x), _, _) => match x {
                Value::Num(n) => Ok(Value::Num(n.abs())),
                Value::Nums(s) => Ok(Value::Nums(s.map(f64::abs))),
                v => missing(format!("abs() of {}", v.describe())),
            },
            (Builtin::Ratio, Some(x), Some(y), _) => {
                if let Value::Num(den) = y
                    && den == 0.0
                {
                    return missing(format!(
                        "division by zero: `{}` is 0 in `{}`",
                        self.src(&args[1]),
                        self.src(whole)
                    ));
                }
                num_op(x, y, |p, q| p / q)
            }
            (Builtin::Between, Some(x), Some(lo), Some(hi)) => {
                let ge = cmp_op(x.clone(), lo, |p, q| p >= q)?;
                let le = cmp_op(x, hi, |p, q| p <= q)?;
                bool_op(ge, le, |p, q| p && q)
            }
            _ => missing(format!("internal: {} with these arguments", b.spec().name)),
        }
    }

    pub(super) fn constant_true(&self, args: &[TypedExpr]) -> String {
        let what = args.first().map(|a| self.src(a)).unwrap_or_default();
        format!("`{what}` is true with no samples to time it by: capture the series it combines")
    }

    /// Why a timed function has no interval to work with: a capture of one sample (an
    /// iostat since-boot report, a single typeperf line), or a benchmark's summary row.
    pub(super) fn no_interval(&self, args: &[TypedExpr], samples: usize) -> String {
        let what = args.first().map(|a| self.src(a)).unwrap_or_default();
        if samples == 1 {
            return format!(
                "`{what}` needs samples over time, and the capture has one: capture a series \
                 (PerfMon every second, iostat -x -t 1)"
            );
        }
        format!(
            "`{what}` needs samples over time with a known interval (a benchmark summary has one row)"
        )
    }

    pub(super) fn time_aggregate(
        &mut self,
        b: Builtin,
        args: &[TypedExpr],
        whole: &TypedExpr,
    ) -> OrMissing<Value> {
        let Some(arg) = args.first() else { return missing("internal: no argument") };
        let p = match b {
            Builtin::Pct => match args.get(1).map(|a| self.eval(a)) {
                Some(Ok(Value::Num(p))) => Some(p),
                Some(Err(e)) => return Err(e),
                _ => return missing("internal: pct without P"),
            },
            _ => b.percentile(),
        };
        // A percentile, the least or the most of a metric itself, when the source took it
        // already (the summaries did): the series is not loaded for it.
        let known = match &arg.kind {
            TypedExprKind::Ref(Ref::Metric { of, metric }) => self.known_stat(b, p, *of, *metric),
            _ => None,
        };
        let s = match known {
            Some(_) => None,
            None => match self.eval(arg)? {
                Value::Num(x) => return Ok(Value::Num(x)),
                Value::Nums(s) => Some(s),
                v => return missing(format!("{}() of {}", b.spec().name, v.describe())),
            },
        };
        // A latency metric's percentile: the tool's own when the target has it.
        let latency_dir = match &arg.kind {
            TypedExprKind::Ref(Ref::Metric { of, metric }) => {
                latency_direction(*metric).map(|d| (*of, *metric, d))
            }
            _ => None,
        };
        // `max` of a latency is the tool's 100th percentile where it has one.
        let src_p = p.or((b == Builtin::Max).then_some(100.0));
        if let (Some(p), Some((of, _, dirs))) = (src_p, latency_dir)
            && let Some(x) = self.source_pct(of, dirs, p)?
        {
            self.used_source = true;
            return Ok(Value::Num(x / 1000.0));
        }
        let x = match (known, s) {
            (Some((_t, x)), _) => {
                // What the series gives, to the bit (the source's ranks are its values'):
                // checked against the series loaded apart (not kept, nothing seeded).
                #[cfg(debug_assertions)]
                if let TypedExprKind::Ref(Ref::Metric { metric, .. }) = &arg.kind {
                    let vals = self.load_series(_t, *metric).map(|(_, v)| v).unwrap_or_default();
                    let want = match b {
                        Builtin::Min => vals.iter().copied().reduce(f64::min),
                        Builtin::Max => vals.iter().copied().reduce(f64::max),
                        _ => p.and_then(|p| super::value::percentile(&vals, p)),
                    };
                    assert_eq!(
                        want.map(f64::to_bits),
                        Some(x.to_bits()),
                        "a known statistic is not the series' own: `{}`",
                        self.src(whole)
                    );
                }
                x
            }
            (None, Some(s)) => self.series_stat(b, p, arg, whole, &s)?,
            (None, None) => return missing("internal: no series"),
        };
        if x.is_finite() {
            Ok(Value::Num(x))
        } else {
            missing(format!("`{}` is not a number", self.src(whole)))
        }
    }

    /// `b` (a percentile when `p` is given, `avg`, `min` or `max`) of the series `s` that
    /// `arg` gave.
    fn series_stat(
        &self,
        b: Builtin,
        p: Option<f64>,
        arg: &TypedExpr,
        whole: &TypedExpr,
        s: &TimeSeries<f64>,
    ) -> OrMissing<f64> {
        let values: &[f64] = &s.vals;
        if values.is_empty() {
            return missing(format!("no common samples in `{}`", self.src(arg)));
        }
        if let Some(p) = p.or((b == Builtin::Max).then_some(100.0))
            && let TypedExprKind::Ref(Ref::Metric { metric, .. }) = &arg.kind
            && latency_direction(*metric).is_some()
            && s.len() == 1
            && s.times.first().is_some_and(Option::is_none)
            && p > 50.0
        {
            return missing(format!(
                "`{}` needs the benchmark's own latency percentiles for {} (DiskSpd -L, fio's clat percentiles): a summary has one average",
                self.src(whole),
                metric.name()
            ));
        }
        Ok(match b {
            Builtin::Avg => values.iter().sum::<f64>() / values.len() as f64,
            Builtin::Min => values.iter().copied().fold(f64::INFINITY, f64::min),
            Builtin::Max => values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            _ => match p.and_then(|p| {
                let also = || match &arg.kind {
                    TypedExprKind::Ref(r) => cache::rule_percentiles(self.rule, r),
                    _ => Vec::new(),
                };
                self.cache.percentile(&s.vals, p, also)
            }) {
                Some(x) => x,
                None => return missing(format!("no samples in `{}`", self.src(arg))),
            },
        })
    }

    /// What [`Self::series_stat`] gives for `b` of metric `m` of `of`, from the ranks the
    /// source took of the series `of` reads it from (its first target): `None` when the
    /// source has not taken it (then the series is loaded), for a benchmark's one summary
    /// row, and for `avg`. The ranks are of the series' own values (the source's promise,
    /// [`super::SeriesSource::known_ranks`]), in the frame's unit: converted as the series
    /// is, value by value, which keeps their order. Only when they are of a value at each
    /// of the target's time stamps, the series' length.
    fn known_stat(
        &self,
        b: Builtin,
        p: Option<f64>,
        of: Owner,
        m: Metric,
    ) -> Option<(TargetId, f64)> {
        // A percentile, `min` or `max` (`avg` has no P).
        if !matches!((b, p), (Builtin::Min | Builtin::Max, _) | (_, Some(_))) {
            return None;
        }
        let t = match of {
            Owner::Host => self.facts.host?,
            Owner::Vm => return None,
            // The series of an element is its first target's when that one has samples
            // ([`Self::metric`]); known ranks of them say it has.
            of => *self.elem_targets(self.subject(of).ok()?).ok()?.first()?,
        };
        let known = self.series.known_ranks(t, m)?;
        let stored = |x: f64| to_stored(m.unit(), x);
        if known.count < 2 || !stored(known.min).is_finite() || !stored(known.max).is_finite() {
            return None;
        }
        // Of as many finite values as the target has time stamps: then the series is the
        // column on the target's axis, one value a stamp ([`Self::load_series`]), and these
        // are its ranks. The axis is taken once for every metric and group.
        let axis =
            self.cache.target_axis(t, |a| self.series.axis_is(t, a), || self.series.axis(t))?;
        if known.count != axis.len() {
            return None;
        }
        let x = match (b, p) {
            (Builtin::Min, _) => known.min,
            (Builtin::Max, _) => known.max,
            (_, None) => return None,
            (_, Some(p)) => known.ranks.iter().find(|(q, _)| q.to_bits() == p.to_bits())?.1,
        };
        Some((t, stored(x)))
    }

    /// The source percentile of a latency metric of `of`, in ms; `Ok(None)` when the
    /// target has none (use the series).
    pub(super) fn source_pct(
        &self,
        of: Owner,
        dirs: &[Direction],
        p: f64,
    ) -> OrMissing<Option<f64>> {
        let targets = match of {
            Owner::Host | Owner::Vm => return Ok(None),
            s => match self.subject(s).and_then(|e| self.elem_targets(e)) {
                Ok(t) => t,
                Err(_) => return Ok(None),
            },
        };
        for t in targets {
            for d in dirs {
                if let Some(x) = self.series.source_percentile(t, *d, p)
                    && x.is_finite()
                {
                    return Ok(Some(x));
                }
            }
        }
        Ok(None)
    }

    // ---- collections --------------------------------------------------------------------

    pub(super) fn aggregate(
        &mut self,
        agg: CollectionAgg,
        over: Collection,
        body: &TypedExpr,
        filter: Option<&TypedExpr>,
    ) -> OrMissing<Value> {
        let elems = self.elements(over)?;
        let mut folder = Folder::new(agg, over, filter.is_some());
        for e in elems {
            let keep = match filter.map(|f| self.at_element(e, |env| env.eval(f))) {
                None | Some(Ok(Value::Bool(true))) => Ok(true),
                Some(Ok(_)) => Ok(false),
                Some(Err(m)) => Err(m),
            };
            folder.push(match keep {
                Ok(true) => Some(self.at_element(e, |env| env.eval(body))),
                Ok(false) => None,
                Err(m) => Some(Err(m)),
            });
        }
        folder.finish()
    }

    /// The elements an aggregate goes over, in order, or why there are none to go over.
    pub(super) fn elements(&self, over: Collection) -> OrMissing<Vec<Element>> {
        let facts = self.facts;
        Ok(match over {
            Collection::Disks => {
                if !facts.topology || facts.disks.is_empty() {
                    return missing(NO_DISKS);
                }
                (0..facts.disks.len()).map(Element::Disk).collect()
            }
            Collection::Pools => (0..facts.pools.len()).map(Element::Pool).collect(),
            Collection::Benches => (0..facts.benches.len()).map(Element::Bench).collect(),
            Collection::Targets => {
                let v: Vec<Element> = facts
                    .targets
                    .iter()
                    .enumerate()
                    .filter(|(_, t)| is_storage(t.kind))
                    .map(|(i, _)| Element::Target(i))
                    .collect();
                if v.is_empty() {
                    return missing(NO_TARGETS);
                }
                v
            }
            Collection::PoolMembers { of } => match self.subject(of)? {
                Element::Pool(i) => {
                    facts.pools.get(i).map(|p| p.members.clone()).unwrap_or_default()
                }
                _ => return missing("internal: pool.members of another element"),
            }
            .into_iter()
            .map(Element::Disk)
            .collect(),
        })
    }

    /// `work` with `e` as the element of the innermost `over` (one frame of repeated
    /// calls of its own, dropped with it).
    pub(super) fn at_element<T>(&mut self, e: Element, work: impl FnOnce(&mut Self) -> T) -> T {
        self.overs.push(e);
        self.repeats.push(HashMap::new());
        let v = work(self);
        self.overs.pop();
        self.repeats.pop();
        v
    }
}

/// An aggregate over a collection folded element by element, in the collection's order:
/// what [`Evaluation::aggregate`] does in one place, and what the `vm` rules' aggregates
/// are folded with from the groups that load each element's series
/// ([`super::streams`]). Elements whose value is missing are skipped (the first one's
/// reason kept), values are folded left to right as `num_op` and `bool_op` pair two.
pub(super) struct Folder {
    agg: CollectionAgg,
    over: Collection,
    filtered: bool,
    /// The values folded so far (`None` before the first).
    acc: Option<Value>,
    /// How many values were folded.
    n: usize,
    first_missing: Option<Missing>,
    /// A fold that failed: the rest is not folded.
    failed: Option<Missing>,
}

impl Folder {
    pub(super) fn new(agg: CollectionAgg, over: Collection, filtered: bool) -> Self {
        Folder { agg, over, filtered, acc: None, n: 0, first_missing: None, failed: None }
    }

    /// The next element's value: `None` when `where` left it out.
    pub(super) fn push(&mut self, v: Option<OrMissing<Value>>) {
        let v = match v {
            None => return,
            Some(Err(m)) => {
                self.first_missing.get_or_insert(m);
                return;
            }
            Some(Ok(v)) => v,
        };
        self.n += 1;
        if self.failed.is_some() {
            return;
        }
        let acc = self.acc.take();
        let next = match self.agg {
            CollectionAgg::Count => {
                let one = match v {
                    Value::Element(_) => Value::Num(1.0),
                    Value::Bool(b) => Value::Num(if b { 1.0 } else { 0.0 }),
                    Value::Bools(s) => Value::Nums(s.map(|b| if b { 1.0 } else { 0.0 })),
                    v => {
                        self.failed = Some(Missing(format!("count() of {}", v.describe())));
                        return;
                    }
                };
                num_op_unchecked(acc.unwrap_or(Value::Num(0.0)), one, |x, y| x + y)
            }
            CollectionAgg::Any | CollectionAgg::All => match acc {
                None => Ok(v),
                Some(acc) if self.agg == CollectionAgg::All => bool_op(acc, v, |p, q| p && q),
                Some(acc) => bool_op(acc, v, |p, q| p || q),
            },
            // Each its own closure, not one function pointer: a sum of sixteen disks'
            // series is then an addition the compiler sees, not a call per sample.
            CollectionAgg::Min | CollectionAgg::Max | CollectionAgg::Sum | CollectionAgg::Avg => {
                match acc {
                    None => Ok(v),
                    Some(a) if self.agg == CollectionAgg::Min => num_op_unchecked(a, v, f64::min),
                    Some(a) if self.agg == CollectionAgg::Max => num_op_unchecked(a, v, f64::max),
                    Some(a) => num_op_unchecked(a, v, |x, y| x + y),
                }
            }
        };
        match next {
            Ok(a) => self.acc = Some(a),
            Err(m) => self.failed = Some(m),
        }
    }

    /// The aggregate's value.
    pub(super) fn finish(self) -> OrMissing<Value> {
        let Some(acc) = self.acc.filter(|_| self.n > 0 && self.failed.is_none()) else {
            if let Some(m) = self.failed {
                return Err(m);
            }
            if let Some(m) = self.first_missing {
                return Err(m);
            }
            return match self.agg {
                CollectionAgg::Sum | CollectionAgg::Count => Ok(Value::Num(0.0)),
                CollectionAgg::Any => Ok(Value::Bool(false)),
                CollectionAgg::All => Ok(Value::Bool(true)),
                CollectionAgg::Avg | CollectionAgg::Min | CollectionAgg::Max => missing(format!(
                    "no {} to take the {} of{}",
                    collection_name(self.over),
                    self.agg.name(),
                    if self.filtered { " (none passes `where`)" } else { "" }
                )),
            };
        };
        // The folds' steps kept points that are not finite (`num_op_unchecked`): dropped
        // here, once.
        let acc = match acc {
            Value::Nums(s) => Value::Nums(s.finite()),
            v => v,
        };
        match self.agg {
            CollectionAgg::Count | CollectionAgg::Any | CollectionAgg::All => Ok(acc),
            CollectionAgg::Sum | CollectionAgg::Avg | CollectionAgg::Min | CollectionAgg::Max => {
                if let Value::Nums(s) = &acc
                    && s.is_empty()
                {
                    return missing(format!(
                        "the {} share no sample times: capture them together",
                        collection_name(self.over)
                    ));
                }
                if self.agg == CollectionAgg::Avg {
                    return num_op(acc, Value::Num(self.n as f64), |x, y| x / y);
                }
                Ok(acc)
            }
        }
    }
}
