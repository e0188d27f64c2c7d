//! Property test: random well-typed expressions evaluate like a reference evaluator.
//!
//! A generator builds dimension-correct expressions (literals with units, parameters,
//! `let`-bound names, fields, + - * / and unary minus, comparisons, and / or / not,
//! min / max / abs / ratio / between, time aggregates, share / duration / sustained over
//! bool series, series arithmetic with aligned and misaligned sample times). Each case is
//! rendered as rule text inside a minimal valid `disk` rule, compiled by the real front-end
//! and evaluated by the real evaluator on `Facts` and a `MemorySeries`. A small reference evaluator
//! below, written from docs/rule-language.md alone, computes the same with plain f64
//! arithmetic in stored units; the `when` outcome (fires / does not / not evaluated), every
//! scalar `let` in the finding's metrics map (display units) and the evidence must agree.
//!
//! The reference's reading of the language reference:
//! - literals and frame values are kept in stored units, dividing for units below the
//!   stored one (`2 ms` is 2 / 1000 s, `95%` is 95 / 100, a capture's 9 ms is 9 / 1000 s);
//! - series with series align by timestamp (inner join), series with scalar broadcast;
//!   a non-finite point of a series result is dropped; a division by a scalar zero, a
//!   non-finite scalar, a missing field or metric, an empty series under a reduction make
//!   the value missing, and a missing `when` means "not evaluated";
//! - `and` / `or` short-circuit with three-valued logic, a decisive scalar beside a bool
//!   series broadcasts over that series' times;
//! - `==` / `!=` compare numbers up to a relative 1e-9 (float noise);
//! - `avg min max pNN pct` are nearest rank over the samples; `share` is the true share;
//!   `duration` is true samples times the interval; `sustained` compares the longest run
//!   of true samples (a gap over 1.5 intervals breaks it) times the interval with D; the
//!   interval is the capture's, else the median gap of the series' timestamps;
//! - a let shows in its dimension's display unit (durations of `duration(...)` and of
//!   parameters written in s / min / h in seconds).

#![allow(clippy::panic, clippy::expect_used, clippy::unwrap_used, clippy::float_cmp)]

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Arc;

use advisor_model::limits::{Cache, DiskLimits, Role};
use advisor_model::{Metric, TargetKind};
use advisor_rules::eval::{DiskInfo, Facts, MemorySeries, VmInfo, evaluate_rule};
use proptest::prelude::*;
use proptest::sample::select;

use crate::fixtures;

const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

// ---- types and expressions ----------------------------------------------------------------

/// Numeric dimensions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum D {
    Rate,
    Thr,
    Time,
    Size,
    Ratio,
    Count,
}

const DIMS: [D; 6] = [D::Rate, D::Thr, D::Time, D::Size, D::Ratio, D::Count];

/// An expression's type: a number of a dimension or a bool, scalar or series.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum T {
    Num(D, bool),
    Bool(bool),
}

impl T {
    fn scalar(self) -> bool {
        matches!(self, T::Num(_, false) | T::Bool(false))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    And,
    Or,
}

impl Op {
    fn text(self) -> &'static str {
        match self {
            Op::Add => "+",
            Op::Sub => "-",
            Op::Mul => "*",
            Op::Div => "/",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Ge => ">=",
            Op::Eq => "==",
            Op::Ne => "!=",
            Op::And => "and",
            Op::Or => "or",
        }
    }
}

const CMP: [Op; 6] = [Op::Lt, Op::Le, Op::Gt, Op::Ge, Op::Eq, Op::Ne];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum F {
    Avg,
    Min,
    Max,
    P50,
    P90,
    P95,
    P99,
    Pct(u8),
    Share,
    Duration,
    Sustained,
    Min2,
    Max2,
    Abs,
    Ratio,
    Between,
}

impl F {
    fn name(self) -> &'static str {
        match self {
            F::Avg => "avg",
            F::Min | F::Min2 => "min",
            F::Max | F::Max2 => "max",
            F::P50 => "p50",
            F::P90 => "p90",
            F::P95 => "p95",
            F::P99 => "p99",
            F::Pct(_) => "pct",
            F::Share => "share",
            F::Duration => "duration",
            F::Sustained => "sustained",
            F::Abs => "abs",
            F::Ratio => "ratio",
            F::Between => "between",
        }
    }
}

#[derive(Debug, Clone)]
enum E {
    /// A literal: its stored value and its text.
    Num(f64, String),
    Bool(bool),
    Param(usize),
    Let(usize),
    /// A topology field: its text and stored value (`None`: the topology lacks it).
    Field(&'static str, Option<f64>),
    Metric(Metric),
    Neg(Box<E>),
    Not(Box<E>),
    Bin(Op, Box<E>, Box<E>),
    Call(F, Vec<E>),
}

impl E {
    fn render(&self, out: &mut String) {
        match self {
            E::Num(_, t) => out.push_str(t),
            E::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            E::Param(i) => write!(out, "p{i}").unwrap(),
            E::Let(i) => write!(out, "l{i}").unwrap(),
            E::Field(t, _) => out.push_str(t),
            E::Metric(m) => out.push_str(m.name()),
            E::Neg(x) => {
                out.push_str("(-");
                x.render(out);
                out.push(')');
            }
            E::Not(x) => {
                out.push_str("(not ");
                x.render(out);
                out.push(')');
            }
            E::Bin(op, l, r) => {
                out.push('(');
                l.render(out);
                write!(out, " {} ", op.text()).unwrap();
                r.render(out);
                out.push(')');
            }
            E::Call(f, args) => {
                out.push_str(f.name());
                out.push('(');
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    a.render(out);
                }
                if let F::Pct(p) = f {
                    write!(out, ", {p}").unwrap();
                }
                out.push(')');
            }
        }
    }

    fn text(&self) -> String {
        let mut s = String::new();
        self.render(&mut s);
        s
    }
}

// ---- the generator ------------------------------------------------------------------------

/// Literal values and, per dimension, units with how they reach the stored unit.
const VALUES: &[f64] =
    &[0.0, 0.5, 1.0, 2.0, 2.5, 5.0, 7.0, 9.0, 10.0, 13.0, 20.0, 35.0, 57.0, 95.0, 128.0, 5000.0];

/// `(unit, factor, divide)`: stored = value / factor when `divide`, else value * factor.
fn units(d: D) -> &'static [(&'static str, f64, bool)] {
    match d {
        D::Rate => &[("iops", 1.0, false)],
        D::Thr => &[("MB/s", 1e6, false), ("MiB/s", 1048576.0, false), ("GB/s", 1e9, false)],
        D::Time => &[
            ("us", 1e6, true),
            ("ms", 1e3, true),
            ("s", 1.0, false),
            ("min", 60.0, false),
            ("h", 3600.0, false),
        ],
        D::Size => &[
            ("B", 1.0, false),
            ("KiB", 1024.0, false),
            ("MiB", 1048576.0, false),
            ("GiB", GIB, false),
        ],
        D::Ratio => &[("%", 100.0, true)],
        D::Count => &[("", 1.0, false)],
    }
}

fn literal(d: D) -> impl Strategy<Value = E> {
    (select(VALUES), select(units(d))).prop_map(|(v, (u, f, div))| {
        let stored = if div { v / f } else { v * f };
        let text = match u {
            "" => fmt_plain(v),
            "%" => format!("{}%", fmt_plain(v)),
            u => format!("{} {u}", fmt_plain(v)),
        };
        E::Num(stored, text)
    })
}

fn fmt_plain(v: f64) -> String {
    if v.fract() == 0.0 { format!("{v:.0}") } else { format!("{v}") }
}

/// Scalar fields of the test topology (one P30 disk `E:` on a DS13_v2), per dimension.
fn fields(d: D) -> &'static [(&'static str, Option<f64>)] {
    match d {
        D::Rate => &[
            ("disk.iops_cap", Some(5000.0)),
            ("vm.cached_iops", Some(32000.0)),
            ("disk.burst_iops", None),
        ],
        D::Thr => &[("disk.mbps_cap", Some(200e6)), ("vm.uncached_burst_mbps", None)],
        D::Size => &[("disk.size", Some(1024.0 * GIB)), ("vm.memory", Some(56.0 * GIB))],
        D::Count => &[("vm.vcpu", Some(8.0))],
        D::Time | D::Ratio => &[],
    }
}

/// The capture's metrics per dimension; `write_iops` is never captured.
fn metrics(d: D) -> &'static [Metric] {
    match d {
        D::Rate => &[Metric::Iops, Metric::ReadIops, Metric::WriteIops],
        D::Thr => &[Metric::Mbps],
        D::Time => &[Metric::LatencyMs],
        D::Size => &[Metric::IoKib],
        D::Ratio => &[Metric::BusyPct],
        D::Count => &[Metric::QueueDepth],
    }
}

const CAPTURED: [Metric; 7] = [
    Metric::Iops,
    Metric::ReadIops,
    Metric::Mbps,
    Metric::LatencyMs,
    Metric::IoKib,
    Metric::BusyPct,
    Metric::QueueDepth,
];

/// Frame value to stored value, as the language reference states the conversion.
fn from_frame(m: Metric, v: f64) -> f64 {
    match m {
        Metric::Mbps => v * 1048576.0,
        Metric::LatencyMs => v / 1000.0,
        Metric::IoKib => v * 1024.0,
        Metric::BusyPct => v / 100.0,
        _ => v,
    }
}

/// `l * r` and `l / r` operand dimensions that give `d` (never mixing a ratio with a count).
fn products(d: D) -> &'static [(D, D)] {
    use D::*;
    match d {
        Rate => &[(Rate, Ratio), (Ratio, Rate), (Rate, Count), (Count, Rate)],
        Thr => &[(Thr, Ratio), (Ratio, Thr), (Thr, Count), (Size, Rate), (Rate, Size)],
        Time => &[(Time, Ratio), (Time, Count), (Count, Time)],
        Size => &[(Size, Ratio), (Size, Count), (Ratio, Size)],
        Ratio => &[(Ratio, Ratio)],
        Count => &[(Count, Count), (Time, Rate), (Rate, Time)],
    }
}

fn quotients(d: D) -> &'static [(D, D)] {
    use D::*;
    match d {
        Rate => &[(Rate, Ratio), (Rate, Count), (Count, Time), (Thr, Size)],
        Thr => &[(Thr, Ratio), (Thr, Count), (Size, Time)],
        Time => &[(Time, Ratio), (Time, Count), (Count, Rate), (Size, Thr)],
        Size => &[(Size, Ratio), (Size, Count), (Thr, Rate)],
        Ratio => &[(Rate, Rate), (Thr, Thr), (Time, Time), (Size, Size), (Ratio, Ratio)],
        Count => &[(Count, Count)],
    }
}

/// Names visible to an expression: the parameters' and earlier lets' types.
#[derive(Debug, Clone)]
struct Names {
    params: Arc<Vec<T>>,
    lets: Arc<Vec<T>>,
}

/// One production of the grammar for a type. `sides`: which operands are series
/// (0: both, 1: the left, 2: the right); only for series results.
#[derive(Debug, Clone, Copy)]
enum Choice {
    Lit,
    Param(usize),
    Let(usize),
    Field(usize),
    Metric(Metric),
    BoolLit,
    CmpLeaf(D),
    Neg,
    Abs,
    Arith(Op, D, D, u8),
    MinMax(F, u8),
    RatioFn(D, u8),
    Agg(F),
    Share,
    Duration,
    Cmp(Op, D, u8),
    Logic(Op, u8),
    Not,
    Between(D, u8),
    Sustained,
}

fn choices(t: T, depth: u32, n: &Names) -> Vec<Choice> {
    let mut c = Vec::new();
    for (i, p) in n.params.iter().enumerate() {
        if *p == t {
            c.push(Choice::Param(i));
        }
    }
    for (i, l) in n.lets.iter().enumerate() {
        if *l == t {
            c.push(Choice::Let(i));
        }
    }
    let deep = depth > 0;
    let sides: &[u8] = &[0, 1, 2];
    match t {
        T::Num(d, false) => {
            c.extend([Choice::Lit, Choice::Lit, Choice::Lit]);
            c.extend((0..fields(d).len()).map(Choice::Field));
            for f in [F::Avg, F::Min, F::Max, F::P50, F::P90, F::P95, F::P99, F::Pct(0)] {
                c.push(Choice::Agg(f));
            }
            if d == D::Ratio {
                c.push(Choice::Share);
            }
            if d == D::Time {
                c.push(Choice::Duration);
            }
            if deep {
                c.extend([Choice::Neg, Choice::Abs]);
                c.extend([Op::Add, Op::Sub].map(|o| Choice::Arith(o, d, d, 0)));
                c.extend([F::Min2, F::Max2].map(|f| Choice::MinMax(f, 0)));
                c.extend(products(d).iter().map(|(l, r)| Choice::Arith(Op::Mul, *l, *r, 0)));
                c.extend(quotients(d).iter().map(|(l, r)| Choice::Arith(Op::Div, *l, *r, 0)));
                if d == D::Ratio {
                    c.extend(
                        DIMS.iter().filter(|x| **x != D::Count).map(|x| Choice::RatioFn(*x, 0)),
                    );
                }
            }
        }
        T::Num(d, true) => {
            c.extend(metrics(d).iter().map(|m| Choice::Metric(*m)));
            c.push(Choice::Metric(metrics(d)[0]));
            if deep {
                c.extend([Choice::Neg, Choice::Abs]);
                for s in sides {
                    c.extend([Op::Add, Op::Sub].map(|o| Choice::Arith(o, d, d, *s)));
                    c.extend([F::Min2, F::Max2].map(|f| Choice::MinMax(f, *s)));
                    c.extend(products(d).iter().map(|(l, r)| Choice::Arith(Op::Mul, *l, *r, *s)));
                    c.extend(quotients(d).iter().map(|(l, r)| Choice::Arith(Op::Div, *l, *r, *s)));
                    if d == D::Ratio {
                        c.push(Choice::RatioFn(D::Rate, *s));
                        c.push(Choice::RatioFn(D::Time, *s));
                    }
                }
            }
        }
        T::Bool(false) => {
            c.extend([Choice::BoolLit, Choice::BoolLit]);
            c.extend(DIMS.iter().map(|d| Choice::Cmp(Op::Gt, *d, 0)));
            if deep {
                c.extend(CMP.iter().flat_map(|o| DIMS.iter().map(|d| Choice::Cmp(*o, *d, 0))));
                c.extend([Op::And, Op::Or, Op::And, Op::Or].map(|o| Choice::Logic(o, 0)));
                c.extend([Choice::Not, Choice::Sustained, Choice::Sustained]);
                c.extend(DIMS.iter().map(|d| Choice::Between(*d, 0)));
            }
        }
        T::Bool(true) => {
            c.extend(DIMS.iter().map(|d| Choice::CmpLeaf(*d)));
            if deep {
                for s in sides {
                    c.extend(CMP.iter().map(|o| Choice::Cmp(*o, D::Rate, *s)));
                    c.extend(DIMS.iter().map(|d| Choice::Cmp(Op::Ge, *d, *s)));
                    c.extend([Op::And, Op::Or].map(|o| Choice::Logic(o, *s)));
                }
                c.push(Choice::Not);
                c.extend(DIMS.iter().flat_map(|d| [1u8, 2, 3].map(|m| Choice::Between(*d, m))));
            }
        }
    }
    c
}

/// The operand types of a binary production for a result of type `t`.
fn operands(series: bool, sides: u8, l: T, r: T) -> (T, T) {
    let set = |t: T, s: bool| match t {
        T::Num(d, _) => T::Num(d, s),
        T::Bool(_) => T::Bool(s),
    };
    if !series {
        return (set(l, false), set(r, false));
    }
    match sides {
        1 => (set(l, true), set(r, false)),
        2 => (set(l, false), set(r, true)),
        _ => (set(l, true), set(r, true)),
    }
}

fn expr(t: T, depth: u32, n: Names) -> BoxedStrategy<E> {
    let cs = choices(t, depth, &n);
    select(cs).prop_flat_map(move |c| build(c, t, depth, n.clone())).boxed()
}

fn build(c: Choice, t: T, depth: u32, n: Names) -> BoxedStrategy<E> {
    let sub = depth.saturating_sub(1);
    let series = !t.scalar();
    let g = |t: T| expr(t, sub, n.clone());
    let bin = |op: Op, l: BoxedStrategy<E>, r: BoxedStrategy<E>| {
        (l, r).prop_map(move |(l, r)| E::Bin(op, Box::new(l), Box::new(r))).boxed()
    };
    let call = |f: F, args: Vec<BoxedStrategy<E>>| args.prop_map(move |a| E::Call(f, a)).boxed();
    match c {
        Choice::Lit => match t {
            T::Num(d, _) => literal(d).boxed(),
            T::Bool(_) => any::<bool>().prop_map(E::Bool).boxed(),
        },
        Choice::Param(i) => Just(E::Param(i)).boxed(),
        Choice::Let(i) => Just(E::Let(i)).boxed(),
        Choice::Field(i) => {
            let T::Num(d, _) = t else { unreachable!() };
            let (text, v) = fields(d)[i];
            Just(E::Field(text, v)).boxed()
        }
        Choice::Metric(m) => Just(E::Metric(m)).boxed(),
        Choice::BoolLit => any::<bool>().prop_map(E::Bool).boxed(),
        Choice::CmpLeaf(d) => {
            let m = select(metrics(d)).prop_map(E::Metric);
            bin(Op::Ge, m.boxed(), literal(d).boxed())
        }
        Choice::Neg => g(t).prop_map(|x| E::Neg(Box::new(x))).boxed(),
        Choice::Not => g(t).prop_map(|x| E::Not(Box::new(x))).boxed(),
        Choice::Abs => call(F::Abs, vec![g(t)]),
        Choice::Arith(op, ld, rd, s) => {
            let (l, r) = operands(series, s, T::Num(ld, false), T::Num(rd, false));
            bin(op, g(l), g(r))
        }
        Choice::MinMax(f, s) => {
            let T::Num(d, _) = t else { unreachable!() };
            let (l, r) = operands(series, s, T::Num(d, false), T::Num(d, false));
            call(f, vec![g(l), g(r)])
        }
        Choice::RatioFn(d, s) => {
            let (l, r) = operands(series, s, T::Num(d, false), T::Num(d, false));
            call(F::Ratio, vec![g(l), g(r)])
        }
        Choice::Agg(f) => {
            let T::Num(d, _) = t else { unreachable!() };
            let arg = g(T::Num(d, true));
            match f {
                F::Pct(_) => {
                    (arg, 0u8..=100).prop_map(|(a, p)| E::Call(F::Pct(p), vec![a])).boxed()
                }
                f => call(f, vec![arg]),
            }
        }
        Choice::Share => call(F::Share, vec![g(T::Bool(true))]),
        Choice::Duration => call(F::Duration, vec![g(T::Bool(true))]),
        Choice::Sustained => {
            let d = prop_oneof![literal(D::Time).boxed(), g(T::Num(D::Time, false))];
            call(F::Sustained, vec![g(T::Bool(true)), d.boxed()])
        }
        Choice::Cmp(op, d, s) => {
            let (l, r) = operands(series, s, T::Num(d, false), T::Num(d, false));
            bin(op, g(l), g(r))
        }
        Choice::Logic(op, s) => {
            let (l, r) = operands(series, s, T::Bool(false), T::Bool(false));
            bin(op, g(l), g(r))
        }
        Choice::Between(d, mask) => {
            // mask: which of x, lo, hi are series (bit 0: x); 0 for scalars.
            let arg = |bit: u8| g(T::Num(d, mask & bit != 0));
            call(F::Between, vec![arg(1), arg(2), arg(4)])
        }
    }
}

/// A rule: parameters (type, literal), lets (type, expression), the condition.
#[derive(Debug, Clone)]
struct Case {
    params: Vec<(T, E)>,
    lets: Vec<(T, E)>,
    when: E,
}

const LET_TYPES: &[T] = &[
    T::Num(D::Rate, false),
    T::Num(D::Thr, false),
    T::Num(D::Time, false),
    T::Num(D::Size, false),
    T::Num(D::Ratio, false),
    T::Num(D::Count, false),
    T::Num(D::Rate, true),
    T::Num(D::Time, true),
    T::Num(D::Ratio, true),
    T::Bool(false),
    T::Bool(true),
];

fn param() -> impl Strategy<Value = (T, E)> {
    prop_oneof![
        4 => select(DIMS.to_vec()).prop_flat_map(|d| literal(d).prop_map(move |e| (T::Num(d, false), e))),
        1 => any::<bool>().prop_map(|b| (T::Bool(false), E::Bool(b))),
    ]
}

fn case() -> impl Strategy<Value = Case> {
    (
        proptest::collection::vec(param(), 1..=2),
        proptest::collection::vec(select(LET_TYPES), 0..=4),
        1u32..=3,
    )
        .prop_flat_map(|(params, let_types, depth)| {
            let ptypes = Arc::new(params.iter().map(|(t, _)| *t).collect::<Vec<_>>());
            let mut lets = Vec::new();
            for i in 0..let_types.len() {
                let names =
                    Names { params: ptypes.clone(), lets: Arc::new(let_types[..i].to_vec()) };
                lets.push(expr(let_types[i], depth - 1, names));
            }
            let names = Names { params: ptypes, lets: Arc::new(let_types.clone()) };
            let when = expr(T::Bool(false), depth, names);
            (Just(params), Just(let_types), lets, when).prop_map(|(params, types, lets, when)| {
                Case { params, lets: types.into_iter().zip(lets).collect(), when }
            })
        })
}

impl Case {
    fn text(&self, when: &str) -> String {
        let mut s = String::from("rule ref-eval\ntitle \"t\"\nseverity info\nscope disk\n");
        for (i, (_, e)) in self.params.iter().enumerate() {
            writeln!(s, "param p{i} = {} \"p\"", e.text()).unwrap();
        }
        for (i, (_, e)) in self.lets.iter().enumerate() {
            writeln!(s, "let l{i} = {}", e.text()).unwrap();
        }
        writeln!(s, "when {when}").unwrap();
        let shown: Vec<String> = self
            .lets
            .iter()
            .enumerate()
            .filter(|(_, (t, _))| t.scalar())
            .map(|(i, _)| format!("{{l{i}}}"))
            .collect();
        let ev = if shown.is_empty() { "x".to_owned() } else { shown.join(" | ") };
        writeln!(s, "evidence \"{ev}\"\nfix \"f\"").unwrap();
        s.push_str("doc what \"\"\"w\"\"\"\ndoc why \"\"\"y\"\"\"\ndoc fix \"\"\"f\"\"\"\n");
        s
    }
}

// ---- the capture --------------------------------------------------------------------------

/// Series of the disk's one target in frame units at whole seconds, and the capture's
/// interval when it states one.
#[derive(Debug, Clone)]
struct Data {
    interval: Option<f64>,
    series: Vec<(Metric, Vec<(i64, f64)>)>,
}

const FRAME: &[f64] =
    &[0.0, 0.5, 1.0, 2.0, 5.0, 7.0, 9.0, 10.0, 13.0, 20.0, 35.0, 57.0, 95.0, 128.0, 5000.0];

fn data() -> impl Strategy<Value = Data> {
    let one = (any::<u16>(), proptest::collection::vec(select(FRAME), 10));
    (
        1usize..=10,
        prop_oneof![Just(0u8), Just(1), Just(2)],
        proptest::option::of(Just(1.0)),
        proptest::collection::vec(one, CAPTURED.len()),
    )
        .prop_map(|(n, mode, interval, raw)| {
            let series = CAPTURED
                .iter()
                .zip(raw)
                .map(|(m, (mask, vals))| {
                    let pts = (0..n)
                        .filter(|i| match mode {
                            0 => true,                               // aligned
                            1 => mask & (1 << i) != 0,               // random subsets
                            _ => mask & (1 << i) != 0 || i % 2 == 0, // mostly aligned
                        })
                        .map(|i| (i as i64 * 1000, vals[i]))
                        .collect();
                    (*m, pts)
                })
                .collect();
            Data { interval, series }
        })
}

fn disk() -> DiskLimits {
    fixtures::p30("E:", Cache::ReadOnly, Role::Data, Some(5000.0), Some(200.0))
}

fn vm() -> VmInfo {
    VmInfo {
        limits: fixtures::ds13_v2(),
        memory_gib: Some(56.0),
        provisioned_iops: Some(5000.0),
        provisioned_mbps: Some(200.0),
    }
}

/// What the evaluator reads, held in memory: the facts and the series.
#[derive(Debug, Default)]
struct Inputs {
    facts: Facts,
    series: MemorySeries,
}

impl Inputs {
    /// With a topology and the DS13_v2 VM.
    fn with_vm() -> Self {
        Inputs {
            facts: Facts { topology: true, vm: Some(vm()), ..Default::default() },
            ..Default::default()
        }
    }
}

fn inputs_of(d: &Data) -> Inputs {
    let mut c = Inputs::with_vm();
    let t = c.facts.add_target("2 E:", TargetKind::Disk);
    if let Some(iv) = d.interval {
        c.series.intervals.insert(t, iv);
    }
    c.facts.disks.push(DiskInfo {
        limits: disk(),
        tier: Some("Premium SSD".to_owned()),
        temp: false,
        targets: vec![t],
    });
    for (m, pts) in &d.series {
        c.series.set_series(t, *m, pts.iter().map(|(t, v)| (Some(*t), *v)).collect());
    }
    c
}

// ---- the reference evaluator --------------------------------------------------------------

type Ser<X> = Vec<(i64, X)>;

#[derive(Debug, Clone, PartialEq)]
enum RV {
    Num(f64),
    Bool(bool),
    Nums(Ser<f64>),
    Bools(Ser<bool>),
}

struct Reference<'a> {
    case: &'a Case,
    data: &'a Data,
    lets: Vec<Option<RV>>,
}

/// Inner join on time.
fn join<X: Copy, Y: Copy, Z>(a: &Ser<X>, b: &Ser<Y>, f: impl Fn(X, Y) -> Z) -> Ser<Z> {
    let bm: BTreeMap<i64, Y> = b.iter().copied().collect();
    a.iter().filter_map(|(t, x)| bm.get(t).map(|y| (*t, f(*x, *y)))).collect()
}

fn approx_eq(x: f64, y: f64) -> bool {
    (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0)
}

/// Element-wise numbers: scalar with scalar, broadcast, join. `div`: a scalar zero
/// divisor is missing; non-finite points of a series are dropped; a non-finite scalar is
/// missing.
fn nums(a: RV, b: RV, div: bool, f: impl Fn(f64, f64) -> f64) -> Option<RV> {
    if div && b == RV::Num(0.0) {
        return None;
    }
    let keep = |s: Ser<f64>| RV::Nums(s.into_iter().filter(|(_, v)| v.is_finite()).collect());
    Some(match (a, b) {
        (RV::Num(x), RV::Num(y)) => {
            let z = f(x, y);
            if !z.is_finite() {
                return None;
            }
            RV::Num(z)
        }
        (RV::Nums(s), RV::Num(y)) => keep(s.iter().map(|(t, x)| (*t, f(*x, y))).collect()),
        (RV::Num(x), RV::Nums(s)) => keep(s.iter().map(|(t, y)| (*t, f(x, *y))).collect()),
        (RV::Nums(s), RV::Nums(u)) => keep(join(&s, &u, f)),
        (a, b) => panic!("reference: numbers expected, got {a:?} and {b:?}"),
    })
}

fn compare(a: RV, b: RV, f: impl Fn(f64, f64) -> bool) -> RV {
    match (a, b) {
        (RV::Num(x), RV::Num(y)) => RV::Bool(f(x, y)),
        (RV::Nums(s), RV::Num(y)) => RV::Bools(s.iter().map(|(t, x)| (*t, f(*x, y))).collect()),
        (RV::Num(x), RV::Nums(s)) => RV::Bools(s.iter().map(|(t, y)| (*t, f(x, *y))).collect()),
        (RV::Nums(s), RV::Nums(u)) => RV::Bools(join(&s, &u, f)),
        (a, b) => panic!("reference: numbers expected, got {a:?} and {b:?}"),
    }
}

fn bools(a: RV, b: RV, f: impl Fn(bool, bool) -> bool) -> RV {
    match (a, b) {
        (RV::Bool(x), RV::Bool(y)) => RV::Bool(f(x, y)),
        (RV::Bools(s), RV::Bool(y)) => RV::Bools(s.iter().map(|(t, x)| (*t, f(*x, y))).collect()),
        (RV::Bool(x), RV::Bools(s)) => RV::Bools(s.iter().map(|(t, y)| (*t, f(x, *y))).collect()),
        (RV::Bools(s), RV::Bools(u)) => RV::Bools(join(&s, &u, f)),
        (a, b) => panic!("reference: bools expected, got {a:?} and {b:?}"),
    }
}

/// Nearest rank, computed exactly: the ceil(P * n / 100)-th smallest (at least the first).
fn nearest_rank(values: &[f64], p: u8) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let rank = (usize::from(p) * v.len()).div_ceil(100).clamp(1, v.len());
    v[rank - 1]
}

impl<'a> Reference<'a> {
    fn new(case: &'a Case, data: &'a Data) -> Reference<'a> {
        let mut r = Reference { case, data, lets: Vec::new() };
        for (_, e) in &case.lets {
            let v = r.eval(e);
            r.lets.push(v);
        }
        r
    }

    fn interval(&self, s: &Ser<bool>) -> Option<f64> {
        if self.data.interval.is_some() {
            return self.data.interval;
        }
        let mut gaps: Vec<i64> = s.windows(2).map(|w| w[1].0 - w[0].0).collect();
        gaps.sort_unstable();
        gaps.get(gaps.len() / 2).map(|g| *g as f64 / 1000.0)
    }

    fn eval(&self, e: &E) -> Option<RV> {
        match e {
            E::Num(v, _) => Some(RV::Num(*v)),
            E::Bool(b) => Some(RV::Bool(*b)),
            E::Param(i) => self.eval(&self.case.params[*i].1),
            E::Let(i) => self.lets[*i].clone(),
            E::Field(_, v) => v.map(RV::Num),
            E::Metric(m) => {
                let (_, pts) = self.data.series.iter().find(|(x, _)| x == m)?;
                if pts.is_empty() {
                    return None;
                }
                Some(RV::Nums(pts.iter().map(|(t, v)| (*t, from_frame(*m, *v))).collect()))
            }
            E::Neg(x) => Some(match self.eval(x)? {
                RV::Num(v) => RV::Num(-v),
                RV::Nums(s) => RV::Nums(s.into_iter().map(|(t, v)| (t, -v)).collect()),
                v => panic!("reference: -{v:?}"),
            }),
            E::Not(x) => Some(match self.eval(x)? {
                RV::Bool(b) => RV::Bool(!b),
                RV::Bools(s) => RV::Bools(s.into_iter().map(|(t, b)| (t, !b)).collect()),
                v => panic!("reference: not {v:?}"),
            }),
            E::Bin(op @ (Op::And | Op::Or), l, r) => {
                let decisive = *op == Op::Or;
                let a = self.eval(l);
                let b = self.eval(r);
                if a == Some(RV::Bool(decisive)) {
                    return match b {
                        Some(RV::Bools(s)) => {
                            Some(RV::Bools(s.into_iter().map(|(t, _)| (t, decisive)).collect()))
                        }
                        _ => a,
                    };
                }
                match (a, b) {
                    // A decisive scalar beside a series: that value at the series' times.
                    (Some(RV::Bools(s)), Some(RV::Bool(y))) if y == decisive => {
                        Some(RV::Bools(s.into_iter().map(|(t, _)| (t, y)).collect()))
                    }
                    (_, Some(RV::Bool(y))) if y == decisive => Some(RV::Bool(y)),
                    (Some(a), Some(b)) => {
                        Some(bools(a, b, |p, q| if decisive { p || q } else { p && q }))
                    }
                    _ => None,
                }
            }
            E::Bin(op, l, r) => {
                let (a, b) = (self.eval(l)?, self.eval(r)?);
                match op {
                    Op::Add => nums(a, b, false, |x, y| x + y),
                    Op::Sub => nums(a, b, false, |x, y| x - y),
                    Op::Mul => nums(a, b, false, |x, y| x * y),
                    Op::Div => nums(a, b, true, |x, y| x / y),
                    Op::Lt => Some(compare(a, b, |x, y| x < y)),
                    Op::Le => Some(compare(a, b, |x, y| x <= y)),
                    Op::Gt => Some(compare(a, b, |x, y| x > y)),
                    Op::Ge => Some(compare(a, b, |x, y| x >= y)),
                    Op::Eq => Some(compare(a, b, approx_eq)),
                    Op::Ne => Some(compare(a, b, |x, y| !approx_eq(x, y))),
                    Op::And | Op::Or => unreachable!(),
                }
            }
            E::Call(f, args) => self.call(*f, args),
        }
    }

    fn call(&self, f: F, args: &[E]) -> Option<RV> {
        let vals: Vec<RV> = args.iter().map(|a| self.eval(a)).collect::<Option<_>>()?;
        let mut it = vals.into_iter();
        let a = it.next()?;
        match f {
            F::Avg | F::Min | F::Max | F::P50 | F::P90 | F::P95 | F::P99 | F::Pct(_) => {
                let RV::Nums(s) = a else { panic!("reference: {f:?} of {a:?}") };
                let v: Vec<f64> = s.iter().map(|(_, v)| *v).collect();
                if v.is_empty() {
                    return None;
                }
                Some(RV::Num(match f {
                    F::Avg => v.iter().sum::<f64>() / v.len() as f64,
                    F::Min => v.iter().copied().fold(f64::INFINITY, f64::min),
                    F::Max => v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                    F::P50 => nearest_rank(&v, 50),
                    F::P90 => nearest_rank(&v, 90),
                    F::P95 => nearest_rank(&v, 95),
                    F::P99 => nearest_rank(&v, 99),
                    F::Pct(p) => nearest_rank(&v, p),
                    _ => unreachable!(),
                }))
            }
            F::Share => match a {
                // A constant (a decisive scalar under `and` / `or`) holds always or never.
                RV::Bool(b) => Some(RV::Num(if b { 1.0 } else { 0.0 })),
                RV::Bools(s) if s.is_empty() => None,
                RV::Bools(s) => {
                    let n = s.iter().filter(|(_, b)| *b).count();
                    Some(RV::Num(n as f64 / s.len() as f64))
                }
                a => panic!("reference: share of {a:?}"),
            },
            F::Duration => match a {
                RV::Bool(false) => Some(RV::Num(0.0)),
                RV::Bool(true) => None,
                RV::Bools(s) if s.is_empty() => None,
                RV::Bools(s) => {
                    let iv = self.interval(&s)?;
                    Some(RV::Num(s.iter().filter(|(_, b)| *b).count() as f64 * iv))
                }
                a => panic!("reference: duration of {a:?}"),
            },
            F::Sustained => {
                let Some(RV::Num(d)) = it.next() else { panic!("reference: sustained without D") };
                match a {
                    RV::Bool(false) => Some(RV::Bool(false)),
                    RV::Bool(true) => None,
                    RV::Bools(s) if s.is_empty() => None,
                    RV::Bools(s) => {
                        let iv = self.interval(&s)?;
                        let (mut best, mut run, mut last) = (0usize, 0usize, None::<i64>);
                        for (t, b) in &s {
                            let broken = last.is_some_and(|l| (t - l) as f64 / 1000.0 > 1.5 * iv);
                            run = if !*b {
                                0
                            } else if broken {
                                1
                            } else {
                                run + 1
                            };
                            best = best.max(run);
                            last = Some(*t);
                        }
                        Some(RV::Bool(best as f64 * iv >= d - 1e-9))
                    }
                    a => panic!("reference: sustained of {a:?}"),
                }
            }
            F::Abs => Some(match a {
                RV::Num(v) => RV::Num(v.abs()),
                RV::Nums(s) => RV::Nums(s.into_iter().map(|(t, v)| (t, v.abs())).collect()),
                a => panic!("reference: abs of {a:?}"),
            }),
            F::Min2 => nums(a, it.next()?, false, f64::min),
            F::Max2 => nums(a, it.next()?, false, f64::max),
            F::Ratio => nums(a, it.next()?, true, |x, y| x / y),
            F::Between => {
                let (lo, hi) = (it.next()?, it.next()?);
                let ge = compare(a.clone(), lo, |x, y| x >= y);
                let le = compare(a, hi, |x, y| x <= y);
                Some(bools(ge, le, |p, q| p && q))
            }
        }
    }
}

/// Whether a let shows in seconds rather than ms: `duration(...)`, a parameter written in
/// s / min / h, or a let of one.
fn in_seconds(case: &Case, e: &E) -> bool {
    match e {
        E::Call(F::Duration, _) => true,
        E::Let(i) => in_seconds(case, &case.lets[*i].1),
        E::Param(i) => match &case.params[*i].1 {
            E::Num(_, t) => t.ends_with(" s") || t.ends_with(" min") || t.ends_with(" h"),
            _ => false,
        },
        _ => false,
    }
}

/// A stored value in its dimension's display unit.
fn display(d: D, seconds: bool, v: f64) -> f64 {
    match d {
        D::Rate | D::Count => v,
        D::Thr => v / 1e6,
        D::Time if seconds => v,
        D::Time => v * 1000.0,
        D::Size if v.abs() >= GIB => v / GIB,
        D::Size => v / 1024.0,
        D::Ratio => v * 100.0,
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()) + 1e-12
}

// ---- the property -------------------------------------------------------------------------

fn compile(text: &str) -> advisor_rules::CheckedRule {
    advisor_rules::compile("ref-eval.rule", text).unwrap_or_else(|d| {
        panic!("{text}\n{}", d.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))
    })
}

fn check(case: &Case, data: &Data) -> Result<(), TestCaseError> {
    let ctx = inputs_of(data);
    let reference = Reference::new(case, data);
    let when = case.when.text();

    // The condition: fires, does not, or is not evaluated.
    let text = case.text(&when);
    let o = evaluate_rule(&compile(&text), &ctx.facts, &ctx.series);
    let got = match (o.findings.len(), o.not_evaluated.len()) {
        (1, 0) => Some(true),
        (0, 0) => Some(false),
        (0, 1) => None,
        _ => panic!("{text}\n{o:#?}"),
    };
    let want = match reference.eval(&case.when) {
        Some(RV::Bool(b)) => Some(b),
        None => None,
        Some(v) => panic!("reference: the condition gave {v:?}"),
    };
    prop_assert_eq!(got, want, "when\n{}\n{:?}\n{:#?}", text, data, o);

    // Every scalar let, through a rule that always fires: the metrics map and the evidence.
    let text = case.text("true");
    let o = evaluate_rule(&compile(&text), &ctx.facts, &ctx.series);
    prop_assert_eq!(o.findings.len(), 1, "{}\n{:#?}", text, o);
    let f = &o.findings[0];
    let mut shown = f.evidence.split(" | ");
    for (i, ((t, e), v)) in case.lets.iter().zip(&reference.lets).enumerate() {
        let name = format!("l{i}");
        let got = f.metrics.get(&name).copied();
        let token = if t.scalar() { shown.next() } else { None };
        match (t, v) {
            (T::Num(d, false), Some(RV::Num(x))) => {
                let want = display(*d, in_seconds(case, e), *x);
                let ok = got.is_some_and(|g| close(g, want));
                prop_assert!(ok, "{name}: metrics {got:?}, reference {want}\n{text}\n{data:?}");
                let tok: f64 = token.unwrap_or("").parse().unwrap_or(f64::NAN);
                let ok = (tok - want).abs() <= 0.005 + 1e-9 * want.abs();
                prop_assert!(ok, "{name}: evidence {:?}, reference {want}\n{text}", f.evidence);
            }
            (T::Bool(false), Some(RV::Bool(b))) => {
                prop_assert_eq!(got, None);
                let want = if *b { "true" } else { "false" };
                prop_assert_eq!(token, Some(want), "{}: {}\n{:?}", name, text, data);
            }
            (_, None) => {
                prop_assert_eq!(
                    got,
                    None,
                    "{} is missing in the reference\n{}\n{:?}",
                    name,
                    text,
                    data
                );
                if t.scalar() {
                    prop_assert_eq!(token, Some("n/a"), "{}: {}\n{:?}", name, text, data);
                }
            }
            (_, Some(_)) => prop_assert_eq!(got, None, "{}: a series is not a metric", name),
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn random_expressions_evaluate_like_a_reference_evaluator(case in case(), data in data()) {
        check(&case, &data)?;
    }

    /// Long series: nearest rank is exact for every whole P.
    #[test]
    fn percentiles_are_nearest_rank(
        values in proptest::collection::vec(select(FRAME), 1..160),
        p in 0u8..=100,
    ) {
        let data = Data {
            interval: Some(1.0),
            series: vec![(
                Metric::Iops,
                values.iter().enumerate().map(|(i, v)| (i as i64 * 1000, *v)).collect(),
            )],
        };
        let case = Case {
            params: vec![(T::Num(D::Rate, false), E::Num(1.0, "1 iops".into()))],
            lets: vec![(
                T::Num(D::Rate, false),
                E::Call(F::Pct(p), vec![E::Metric(Metric::Iops)]),
            )],
            when: E::Bool(true),
        };
        check(&case, &data)?;
    }
}
