//! Numbers in evidence, fix and the metrics map: stored units to display units.
//!
//! A number shows in the unit the text right after it names, when that unit has the
//! number's dimension (`{x:.1} GiB`, `{t:.0} s`, `{r:.0}%`); otherwise in the dimension's
//! display unit: MB/s (10^6 bytes/s) for throughput, ms for times (s for run durations:
//! `bench.duration`, `bench.warmup`, `duration(...)`), KiB for sizes (GiB from 1 GiB),
//! % for ratios.

use crate::builtins::Builtin;
use crate::check::{CheckedRule, Owner, Ref, TypedExpr, TypedExprKind};
use crate::types::{BenchField, CacheMode, Dim, Field};

/// Units a text may name right after a number, with their dimension and stored factor.
const UNITS: &[(&str, Dim, f64)] = &[
    ("MiB/s", Dim::Throughput, 1024.0 * 1024.0),
    ("MB/s", Dim::Throughput, 1e6),
    ("GB/s", Dim::Throughput, 1e9),
    ("IOPS", Dim::Rate, 1.0),
    ("iops", Dim::Rate, 1.0),
    ("KiB", Dim::Size, 1024.0),
    ("MiB", Dim::Size, 1024.0 * 1024.0),
    ("GiB", Dim::Size, 1024.0 * 1024.0 * 1024.0),
    ("TiB", Dim::Size, 1024.0 * 1024.0 * 1024.0 * 1024.0),
    ("ms", Dim::Time, 1e-3),
    ("us", Dim::Time, 1e-6),
    ("µs", Dim::Time, 1e-6),
    ("min", Dim::Time, 60.0),
    ("s", Dim::Time, 1.0),
    ("h", Dim::Time, 3600.0),
    ("%", Dim::Ratio, 0.01),
];

/// The unit named at the start of `text` (after spaces), for dimension `dim`.
fn named_unit(text: &str, dim: Dim) -> Option<(&'static str, f64)> {
    let t = text.trim_start_matches(' ');
    UNITS.iter().find_map(|(u, d, f)| {
        let rest = t.strip_prefix(u)?;
        let boundary = rest.chars().next().is_none_or(|c| !c.is_alphanumeric());
        (*d == dim && boundary).then_some((*u, *f))
    })
}

/// The unit a `let`'s name ends in, for its dimension: `file_size_gib` in GiB, `wait_s` in
/// s, `cap_mbps` in MB/s, `busy_pct` in %. The metrics map reports such a let in that unit,
/// so a report that reads the unit from the name (`fmt::finding_unit_of`) always agrees
/// with the number, whatever its magnitude.
pub(crate) fn name_unit(name: &str, dim: Dim) -> Option<f64> {
    // After an underscore only, and no `min` / `h`: `latency_min` is a minimum.
    let (_, word) = name.rsplit_once('_')?;
    let unit = match word {
        "mbps" => "MB/s",
        "pct" => "%",
        "kib" => "KiB",
        "mib" => "MiB",
        "gib" => "GiB",
        "tib" => "TiB",
        "iops" | "ms" | "us" | "s" => word,
        _ => return None,
    };
    UNITS.iter().find(|(u, d, _)| *u == unit && *d == dim).map(|(_, _, f)| *f)
}

/// Whether an expression is a run's duration (shown in s rather than ms).
fn is_run_duration(e: &TypedExpr, rule: &CheckedRule, depth: u8) -> bool {
    if depth > 16 {
        return false;
    }
    match &e.kind {
        TypedExprKind::Ref(Ref::Field {
            field: Field::Bench(BenchField::Duration | BenchField::Warmup),
            ..
        }) => true,
        TypedExprKind::Call(Builtin::Duration | Builtin::Interval, _) => true,
        TypedExprKind::Ref(Ref::Let(i)) => {
            rule.lets.get(*i).is_some_and(|l| is_run_duration(&l.expr, rule, depth + 1))
        }
        TypedExprKind::Ref(Ref::Param(i)) => rule.params.get(*i).is_some_and(|p| {
            let t = p.default_text.trim_end();
            t.ends_with(" s") || t.ends_with("min") || t.ends_with(" h")
        }),
        TypedExprKind::Ref(Ref::Field { of: Owner::Vm, .. }) => false,
        _ => false,
    }
}

/// A stored value of `e` in its display unit: `(number, unit)`.
pub(crate) fn display(
    e: &TypedExpr,
    rule: &CheckedRule,
    stored: f64,
    next: Option<&str>,
) -> (f64, &'static str) {
    let dim = e.ty.dim;
    if let Some((u, f)) = next.and_then(|t| named_unit(t, dim)) {
        return (stored / f, u);
    }
    if dim == Dim::Time && is_run_duration(e, rule, 0) {
        return (stored, "s");
    }
    dim.display(stored)
}

/// A number with `decimals` places, or a short form without.
pub(crate) fn number(v: f64, decimals: Option<u8>) -> String {
    if !v.is_finite() {
        return "n/a".to_owned();
    }
    let s = match decimals {
        Some(d) => format!("{:.*}", usize::from(d), v),
        None if v.fract() == 0.0 && v.abs() < 1e15 => format!("{v:.0}"),
        None => {
            let s = format!("{v:.2}");
            s.trim_end_matches('0').trim_end_matches('.').to_owned()
        }
    };
    // "-0" and "-0.0" read as a sign error.
    if s.starts_with('-') && s[1..].chars().all(|c| c == '0' || c == '.') {
        s[1..].to_owned()
    } else {
        s
    }
}

/// A cache mode as Azure spells it.
pub(crate) fn cache_name(c: CacheMode) -> &'static str {
    match c {
        CacheMode::None => "None",
        CacheMode::ReadOnly => "ReadOnly",
        CacheMode::ReadWrite => "ReadWrite",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(number(12.345, Some(1)), "12.3");
        assert_eq!(number(12.0, None), "12");
        assert_eq!(number(0.126, None), "0.13");
        assert_eq!(number(-0.01, Some(1)), "0.0");
        assert_eq!(number(f64::NAN, Some(1)), "n/a");
    }

    #[test]
    fn units_named_by_a_let() {
        assert_eq!(name_unit("file_size_gib", Dim::Size), Some(1024.0 * 1024.0 * 1024.0));
        assert_eq!(name_unit("wait_s", Dim::Time), Some(1.0));
        assert_eq!(name_unit("expected_ms", Dim::Time), Some(1e-3));
        assert_eq!(name_unit("cpu_busy_pct", Dim::Ratio), Some(0.01));
        assert_eq!(name_unit("peak_mbps", Dim::Throughput), Some(1e6));
        // A unit of another dimension, or no unit word: the display unit.
        assert_eq!(name_unit("latency_s", Dim::Size), None);
        assert_eq!(name_unit("expected_latency", Dim::Time), None);
        assert_eq!(name_unit("s", Dim::Time), None);
        assert_eq!(name_unit("latency_min", Dim::Time), None);
    }

    #[test]
    fn units_named_after_the_number() {
        assert_eq!(
            named_unit(" GiB of memory", Dim::Size),
            Some(("GiB", 1024.0 * 1024.0 * 1024.0))
        );
        assert_eq!(named_unit("% of", Dim::Ratio), Some(("%", 0.01)));
        assert_eq!(named_unit(" s after", Dim::Time), Some(("s", 1.0)));
        assert_eq!(named_unit(" ms", Dim::Time), Some(("ms", 1e-3)));
        assert_eq!(named_unit(" MB/s", Dim::Throughput), Some(("MB/s", 1e6)));
        assert_eq!(named_unit(" thread", Dim::Count), None);
        assert_eq!(named_unit(" seconds", Dim::Time), None);
        assert_eq!(named_unit(" IOPS", Dim::Throughput), None);
    }
}
