//! The built-in functions and collection aggregates, declared once: name, parameters,
//! what they return, docs and an example. The examples are checked by a test (and shown by
//! `advisor rules explain`-style tooling), so the docs cannot drift from the checker.

/// A built-in function, resolved by name and number of arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Builtin {
    /// Time aggregates of a series.
    Avg,
    Min,
    Max,
    P50,
    P90,
    P95,
    P99,
    /// `pct(series, P)`.
    Pct,
    Sustained,
    Share,
    Duration,
    /// `interval(x)`: the sampling interval of a series (0 s for a one-row summary).
    Interval,
    /// `longest(cond)`: the longest unbroken run of a bool series, as a time.
    Longest,
    /// `runs(cond)`: how many separate runs of true a bool series has.
    Runs,
    /// `spans(cond)`: when a bool series held, as text (`18:25-18:40 on 2024-06-11`).
    Spans,
    /// `during(series, cond)`: the points of a series where a bool series holds.
    During,
    /// `min(a, b)`: the smaller (element-wise on series).
    Min2,
    /// `max(a, b)`: the larger (element-wise on series).
    Max2,
    Abs,
    Ratio,
    Between,
    Exists,
    /// `coalesce(a, b)`: `a`, or `b` when `a` is missing.
    Coalesce,
    /// `if(cond, a, b)`: `a` when the scalar condition holds, else `b`.
    If,
    /// `keep(x, cond)`: the samples of `x` where `cond` holds.
    Keep,
    /// `plateau(x, busy, min_samples)`: the top band of `x` among its busy samples.
    Plateau,
    /// `disk_caps_near(ceiling, tolerance)`: catalog disk caps near a ceiling, as text.
    DiskCapsNear,
    /// `vm_sizes_near(ceiling, tolerance)`: catalog VM sizes with a cap near a ceiling.
    VmSizesNear,
    /// `vm_sizes_near(ceiling, tolerance, family)`: the same, of one family.
    VmSizesNearIn,
}

impl Builtin {
    /// The percentile of a `pNN` time aggregate.
    pub fn percentile(self) -> Option<f64> {
        match self {
            Self::P50 => Some(50.0),
            Self::P90 => Some(90.0),
            Self::P95 => Some(95.0),
            Self::P99 => Some(99.0),
            _ => None,
        }
    }

    /// Whether it reduces a numeric series to a scalar (avg, min, max, pNN, pct).
    pub fn is_time_aggregate(self) -> bool {
        matches!(
            self,
            Self::Avg
                | Self::Min
                | Self::Max
                | Self::P50
                | Self::P90
                | Self::P95
                | Self::P99
                | Self::Pct
        )
    }

    /// Whether it is one of the functions that read a cap from the data (`eval/inferred.rs`).
    pub fn is_inferred(self) -> bool {
        matches!(
            self,
            Self::Keep
                | Self::Plateau
                | Self::DiskCapsNear
                | Self::VmSizesNear
                | Self::VmSizesNearIn
        )
    }

    /// This function's entry in [`FUNCTIONS`].
    pub fn spec(self) -> &'static FunctionSpec {
        FUNCTIONS.iter().find(|f| f.builtin == self).unwrap_or(&FUNCTIONS[0])
    }
}

/// The declaration of a built-in function.
#[derive(Debug)]
pub struct FunctionSpec {
    pub builtin: Builtin,
    pub name: &'static str,
    /// What each argument must be.
    pub params: &'static [&'static str],
    pub returns: &'static str,
    pub doc: &'static str,
    /// An expression using it, valid in a `disk` scope rule.
    pub example: &'static str,
}

/// Every built-in function. `min` and `max` appear twice: one argument (over time) and two.
pub const FUNCTIONS: &[FunctionSpec] = &[
    FunctionSpec {
        builtin: Builtin::Avg,
        name: "avg",
        params: &["a numeric series"],
        returns: "a scalar of the same dimension",
        doc: "The mean over time.",
        example: "avg(latency_ms)",
    },
    FunctionSpec {
        builtin: Builtin::Min,
        name: "min",
        params: &["a numeric series"],
        returns: "a scalar of the same dimension",
        doc: "The smallest value over time.",
        example: "min(iops)",
    },
    FunctionSpec {
        builtin: Builtin::Max,
        name: "max",
        params: &["a numeric series"],
        returns: "a scalar of the same dimension",
        doc: "The largest value over time.",
        example: "max(queue_depth)",
    },
    FunctionSpec {
        builtin: Builtin::P50,
        name: "p50",
        params: &["a numeric series"],
        returns: "a scalar of the same dimension",
        doc: "The median over time.",
        example: "p50(latency_ms)",
    },
    FunctionSpec {
        builtin: Builtin::P90,
        name: "p90",
        params: &["a numeric series"],
        returns: "a scalar of the same dimension",
        doc: "The 90th percentile over time.",
        example: "p90(mbps)",
    },
    FunctionSpec {
        builtin: Builtin::P95,
        name: "p95",
        params: &["a numeric series"],
        returns: "a scalar of the same dimension",
        doc: "The 95th percentile over time.",
        example: "p95(iops) >= disk.iops_cap * 95%",
    },
    FunctionSpec {
        builtin: Builtin::P99,
        name: "p99",
        params: &["a numeric series"],
        returns: "a scalar of the same dimension",
        doc: "The 99th percentile over time; latencies use the source's own percentiles where it has them.",
        example: "p99(latency_ms) >= 10 * p50(latency_ms)",
    },
    FunctionSpec {
        builtin: Builtin::Pct,
        name: "pct",
        params: &["a numeric series", "a plain number from 0 to 100"],
        returns: "a scalar of the same dimension",
        doc: "The P-th percentile; the source's own percentiles first (fio, DiskSpd -L), so `pct(latency_ms, 99.99)` works on a one-row benchmark summary.",
        example: "pct(latency_ms, 99.9) > 500 ms",
    },
    FunctionSpec {
        builtin: Builtin::Sustained,
        name: "sustained",
        params: &["a bool series", "a time"],
        returns: "a scalar bool",
        doc: "True when the condition held for at least the duration without a break.",
        example: "sustained(busy_pct > 95%, 5 min)",
    },
    FunctionSpec {
        builtin: Builtin::Share,
        name: "share",
        params: &["a bool series"],
        returns: "a scalar ratio",
        doc: "The share of samples where the condition holds.",
        example: "share(iops >= disk.iops_cap * 95%) > 20%",
    },
    FunctionSpec {
        builtin: Builtin::Duration,
        name: "duration",
        params: &["a bool series"],
        returns: "a scalar time",
        doc: "The total time the condition holds (samples x interval).",
        example: "duration(latency_ms > 50 ms) >= 1 min",
    },
    FunctionSpec {
        builtin: Builtin::Interval,
        name: "interval",
        params: &["a numeric series"],
        returns: "a scalar time",
        doc: "The series' sampling interval: 1 s for a 1-second capture, 10 min for sar's daily files, 0 s for a benchmark's one-row summary (no clock). Each sample is an average over it, so peaks shorter than the interval do not show.",
        example: "interval(iops) >= 5 min",
    },
    FunctionSpec {
        builtin: Builtin::Longest,
        name: "longest",
        params: &["a bool series"],
        returns: "a scalar time",
        doc: "The longest time the condition held without a break (a gap of more than 1.5 intervals breaks it): the number `sustained` compares; missing on a one-row summary.",
        example: "longest(busy_pct > 95%) >= 5 min",
    },
    FunctionSpec {
        builtin: Builtin::Runs,
        name: "runs",
        params: &["a bool series"],
        returns: "a scalar count",
        doc: "How many separate periods the condition held (a false sample or a gap ends one).",
        example: "runs(latency_ms > 50 ms) >= 3",
    },
    FunctionSpec {
        builtin: Builtin::Spans,
        name: "spans",
        params: &["a bool series"],
        returns: "a text",
        doc: "When the condition held, as time ranges of the series' clock (`18:25-18:40 on 2024-06-11`), the three longest first and how many more; `never` when it did not.",
        example: "spans(busy_pct > 95%) != \"never\"",
    },
    FunctionSpec {
        builtin: Builtin::During,
        name: "during",
        params: &["a numeric series", "a bool series"],
        returns: "the first series at the times the condition holds",
        doc: "The points of a series at the times a condition holds (aligned by time); aggregate it: `avg(during(latency_ms, iops > 1000 iops))`. Missing when the condition never holds.",
        example: "avg(during(latency_ms, busy_pct > 95%)) > 10 ms",
    },
    FunctionSpec {
        builtin: Builtin::Min2,
        name: "min",
        params: &["a number or numeric series", "the same dimension"],
        returns: "the same dimension (a series if either is)",
        doc: "The smaller of two values (element-wise on series).",
        example: "min(disk.iops_cap, vm.uncached_iops)",
    },
    FunctionSpec {
        builtin: Builtin::Max2,
        name: "max",
        params: &["a number or numeric series", "the same dimension"],
        returns: "the same dimension (a series if either is)",
        doc: "The larger of two values (element-wise on series).",
        example: "max(disk.burst_mbps, disk.mbps_cap)",
    },
    FunctionSpec {
        builtin: Builtin::Abs,
        name: "abs",
        params: &["a number or numeric series"],
        returns: "the same dimension",
        doc: "The absolute value.",
        example: "abs(p95(read_iops) - p95(write_iops))",
    },
    FunctionSpec {
        builtin: Builtin::Ratio,
        name: "ratio",
        params: &["a number or numeric series", "the same dimension"],
        returns: "a ratio (a series if either is)",
        doc: "a / b as a ratio; missing (rule not evaluated) when b is zero.",
        example: "ratio(p95(mbps), disk.mbps_cap) >= 90%",
    },
    FunctionSpec {
        builtin: Builtin::Between,
        name: "between",
        params: &["a number or numeric series", "the same dimension", "the same dimension"],
        returns: "a bool (a series if x is)",
        doc: "lo <= x <= hi.",
        example: "between(avg(queue_depth), 0.5, 1.5)",
    },
    FunctionSpec {
        builtin: Builtin::Exists,
        name: "exists",
        params: &["anything"],
        returns: "a scalar bool",
        doc: "Whether an input is present: a metric in the capture, a topology figure, an element. Never makes a rule not evaluated.",
        example: "exists(vm.temp_disk) and exists(latency_ms)",
    },
    FunctionSpec {
        builtin: Builtin::Coalesce,
        name: "coalesce",
        params: &["anything", "the same kind and dimension"],
        returns: "the same (a series if either is)",
        doc: "The first argument, or the second when the first is missing (a figure the size does not publish, a metric the capture lacks, an aggregate over elements that all lack it). Never makes a rule not evaluated by itself.",
        example: "p95(mbps) >= coalesce(disk.burst_mbps, disk.mbps_cap)",
    },
    FunctionSpec {
        builtin: Builtin::If,
        name: "if",
        params: &["a scalar bool", "a value", "a value of the same type"],
        returns: "the type of the two values",
        doc: "The second argument when the condition holds, else the third; only the chosen one is evaluated, so the other may be missing. Text in `evidence` and `fix` chosen by a setting: `{if(disk.tier == \"Ultra Disk\", \"raise its provisioned IOPS\", \"move it to Ultra Disk\")}`. A condition that is missing makes the value missing (`n/a` in text): guard it with `exists(...) and ...`.",
        example: "if(disk.cache == none, iops, write_iops)",
    },
    // Caps read from the data.
    FunctionSpec {
        builtin: Builtin::Keep,
        name: "keep",
        params: &["a numeric series", "a bool series"],
        returns: "a series of the same dimension",
        doc: "The samples of the series where the condition holds (joined on time): `p50(keep(queue_depth, iops >= 3000 iops))` is the median queue while the IOPS were high. A one-row benchmark summary is kept or dropped whole.",
        example: "p50(keep(queue_depth, busy_pct > 90%))",
    },
    FunctionSpec {
        builtin: Builtin::Plateau,
        name: "plateau",
        params: &[
            "a numeric series",
            "a bool series (which samples are busy)",
            "a count (busy samples needed)",
        ],
        returns: "a series of the same dimension",
        doc: "The top band of the series: its busy samples at or above half their 99th percentile, the level a capped load keeps returning to (its `p50` is the ceiling, `p99` its top; a narrow band is a ceiling, a wide one a load that varies). No busy sample gives an empty band; fewer busy samples than asked makes the value missing (not evaluated: the capture is too short to tell a ceiling from a passing peak). A one-row benchmark summary is its own plateau. The band depends on the values only, not their order.",
        example: "p50(plateau(iops, iops >= 50 iops, 30))",
    },
    FunctionSpec {
        builtin: Builtin::DiskCapsNear,
        name: "disk_caps_near",
        params: &["a scalar rate or throughput", "a ratio (the tolerance)"],
        returns: "text",
        doc: "The catalog's disk SKUs whose cap or burst cap (IOPS for a rate, MB/s for a throughput) lies within the tolerance of the value, grouped by cap, closest first: `P10/P15/P20 (Premium SSD) burst cap of 3,500 IOPS`; `none` when nothing does. Superseded rows and provisioned ranges (Ultra Disk, Premium SSD v2 above its baseline) are not matched.",
        example: "disk_caps_near(p50(iops), 5%) != \"none\"",
    },
    FunctionSpec {
        builtin: Builtin::VmSizesNear,
        name: "vm_sizes_near",
        params: &["a scalar rate or throughput", "a ratio (the tolerance)"],
        returns: "text",
        doc: "The catalog's VM sizes whose cached, uncached or uncached burst cap lies within the tolerance of the value, closest first, at most five (`and N more`): `Standard_DS1 (uncached 3,200 IOPS)`; `none` when nothing does.",
        example: "vm_sizes_near(p50(iops), 5%) != \"none\"",
    },
    FunctionSpec {
        builtin: Builtin::VmSizesNearIn,
        name: "vm_sizes_near",
        params: &[
            "a scalar rate or throughput",
            "a ratio (the tolerance)",
            "text: a family as `vm.family` gives it",
        ],
        returns: "text",
        doc: "`vm_sizes_near` among the sizes of one family (`DS`, `E`): the capture's own when the size is partly known.",
        example: "vm_sizes_near(p50(mbps), 5%, vm.family) != \"none\"",
    },
];

/// Function names, each once, in table order.
pub fn function_names() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for f in FUNCTIONS {
        if !out.contains(&f.name) {
            out.push(f.name);
        }
    }
    out
}

/// The function called `name` with `arity` arguments, else the candidates by that name.
pub fn lookup(name: &str, arity: usize) -> Result<Builtin, Vec<&'static FunctionSpec>> {
    let named: Vec<_> = FUNCTIONS.iter().filter(|f| f.name == name).collect();
    named.iter().find(|f| f.params.len() == arity).map(|f| f.builtin).ok_or(named)
}

/// `agg(EXPR) over COLLECTION [where COND]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CollectionAgg {
    Sum,
    Avg,
    Min,
    Max,
    Count,
    Any,
    All,
}

/// The declaration of a collection aggregate.
#[derive(Debug)]
pub struct AggregateSpec {
    pub agg: CollectionAgg,
    pub name: &'static str,
    pub body: &'static str,
    pub returns: &'static str,
    pub doc: &'static str,
    pub example: &'static str,
}

/// Every collection aggregate.
pub const AGGREGATES: &[AggregateSpec] = &[
    AggregateSpec {
        agg: CollectionAgg::Sum,
        name: "sum",
        body: "a number or numeric series",
        returns: "the same dimension; a series (time-aligned) when the body is one",
        doc: "The sum over the elements.",
        example: "sum(mbps) over disks where cache != none or role == temp",
    },
    AggregateSpec {
        agg: CollectionAgg::Avg,
        name: "avg",
        body: "a number or numeric series",
        returns: "the same dimension",
        doc: "The mean over the elements.",
        example: "avg(p95(latency_ms)) over disks where role == data",
    },
    AggregateSpec {
        agg: CollectionAgg::Min,
        name: "min",
        body: "a number or numeric series",
        returns: "the same dimension",
        doc: "The smallest over the elements.",
        example: "min(disk.iops_cap) over disks",
    },
    AggregateSpec {
        agg: CollectionAgg::Max,
        name: "max",
        body: "a number or numeric series",
        returns: "the same dimension",
        doc: "The largest over the elements.",
        example: "max(p99(latency_ms)) over disks",
    },
    AggregateSpec {
        agg: CollectionAgg::Count,
        name: "count",
        body: "the element, or a bool",
        returns: "a count: the elements (where the bool holds)",
        doc: "How many elements pass `where` (and the body, when it is a bool).",
        example: "count(disk) over disks where role == log",
    },
    AggregateSpec {
        agg: CollectionAgg::Any,
        name: "any",
        body: "a bool",
        returns: "a bool",
        doc: "Whether the body holds for at least one element.",
        example: "any(p95(iops) >= disk.iops_cap) over disks",
    },
    AggregateSpec {
        agg: CollectionAgg::All,
        name: "all",
        body: "a bool",
        returns: "a bool",
        doc: "Whether the body holds for every element (true for none).",
        example: "all(cache == none) over disks where role == log",
    },
];

impl CollectionAgg {
    pub fn parse(name: &str) -> Option<CollectionAgg> {
        AGGREGATES.iter().find(|a| a.name == name).map(|a| a.agg)
    }

    pub fn name(self) -> &'static str {
        AGGREGATES.iter().find(|a| a.agg == self).map_or("sum", |a| a.name)
    }
}
