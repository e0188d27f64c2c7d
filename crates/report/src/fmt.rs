//! Numbers for people, in one place: every report format and the template filters use
//! these, so a figure reads the same in HTML, Markdown and on the terminal.

/// Formats a value with about four significant digits, no exponent, no trailing zeros.
pub fn num(v: f64) -> String {
    if !v.is_finite() {
        return if v.is_nan() { "n/a".to_owned() } else { v.to_string() };
    }
    let a = v.abs();
    let s = if a >= 1000.0 || a == 0.0 {
        format!("{v:.0}")
    } else if a >= 100.0 {
        format!("{v:.1}")
    } else if a >= 10.0 {
        format!("{v:.2}")
    } else if a >= 1.0 {
        format!("{v:.3}")
    } else {
        format!("{v:.4}")
    };
    if s.contains('.') {
        let t = s.trim_end_matches('0').trim_end_matches('.');
        if t == "-0" { "0".to_owned() } else { t.to_owned() }
    } else if s == "-0" {
        "0".to_owned()
    } else {
        s
    }
}

/// The display unit of a metric, from its name: the last `_`-separated word that names a
/// unit (`cached_mbps_p95` -> MiB/s, `read_latency_ms` -> ms, `queue_depth` -> IOs).
/// `None` for plain numbers and ratios.
pub fn unit_of(metric: &str) -> Option<&'static str> {
    metric.rsplit('_').find_map(|word| match word {
        "mbps" => Some("MiB/s"),
        "ms" => Some("ms"),
        "iops" => Some("IOPS"),
        "kib" => Some("KiB"),
        "mib" => Some("MiB"),
        "gib" => Some("GiB"),
        "pct" => Some("%"),
        "depth" | "qd" => Some("IOs"),
        "s" | "seconds" => Some("s"),
        _ => None,
    })
}

/// The display unit of a number a rule reports (a finding's `metrics`), from its name:
/// rules work in Azure's units (MB/s = 10^6 bytes/s) and name their numbers freely
/// (`cached_mbps_p95`, `vm.cached_mbps`, `latency_p50`, `iops_used`, `in_flight`), so
/// the last dotted part's words are read right to left and the first that implies a unit
/// wins (`latency_p50.from_source`, a flag, has none).
pub fn finding_unit_of(name: &str) -> Option<&'static str> {
    let last = name.rsplit('.').next().unwrap_or(name);
    last.rsplit('_').find_map(|word| match word {
        "used" | "share" | "pct" | "percent" | "util" => Some("%"),
        "mbps" => Some("MB/s"),
        "ms" | "latency" | "await" => Some("ms"),
        "iops" => Some("IOPS"),
        "kib" | "size" => Some("KiB"),
        "mib" => Some("MiB"),
        "gib" => Some("GiB"),
        "depth" | "qd" | "flight" | "outstanding" => Some("IOs"),
        "s" | "seconds" | "duration" | "warmup" => Some("s"),
        _ => None,
    })
}

/// A number a rule reports, with the unit its name implies ([`finding_unit_of`]).
pub fn finding_with_unit(v: f64, name: &str) -> String {
    attach(v, finding_unit_of(name))
}

/// A value with its metric's unit: `256 MiB/s`, `2.07 ms`, `37.5%`, `481 IOPS`.
pub fn with_unit(v: f64, metric: &str) -> String {
    attach(v, unit_of(metric))
}

fn attach(v: f64, unit: Option<&str>) -> String {
    match unit {
        _ if !v.is_finite() => num(v),
        Some("%") => format!("{}%", num(v)),
        Some(u) => format!("{} {u}", num(v)),
        None => num(v),
    }
}

/// A percentage, given 0-100: `37.5%`.
pub fn percent(v: f64) -> String {
    format!("{}%", num(v))
}

/// A share or a change in percent, as precise as its size needs: `103%`, `4.9%`, `0.49%`.
pub fn share(v: f64) -> String {
    if !v.is_finite() {
        return num(v);
    }
    let a = v.abs();
    let s = if a >= 10.0 {
        format!("{v:.0}")
    } else if a >= 1.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    };
    let s =
        if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_owned() } else { s };
    format!("{}%", if s == "-0" { "0" } else { &s })
}

/// A duration in seconds for people: `850 ms`, `45 s`, `2 min 5 s`, `1 h 20 min`, `2 d 3 h`.
pub fn duration(seconds: f64) -> String {
    if !seconds.is_finite() || seconds < 0.0 {
        return num(seconds);
    }
    if seconds < 1.0 {
        return format!("{} ms", num(seconds * 1000.0));
    }
    if seconds < 60.0 {
        return format!("{} s", num(seconds));
    }
    let total = seconds.round() as u64;
    let (d, h, m, s) = (total / 86_400, total / 3600 % 24, total / 60 % 60, total % 60);
    match (d, h) {
        (0, 0) if s == 0 => format!("{m} min"),
        (0, 0) => format!("{m} min {s} s"),
        (0, _) if m == 0 => format!("{h} h"),
        (0, _) => format!("{h} h {m} min"),
        _ if h == 0 => format!("{d} d"),
        _ => format!("{d} d {h} h"),
    }
}

/// A metric's name for people: `read_latency_ms` -> `read latency`, `io_kib` -> `IO size`.
pub fn metric_label(metric: &str) -> String {
    match metric {
        "iops" => "IOPS".to_owned(),
        "read_iops" => "read IOPS".to_owned(),
        "write_iops" => "write IOPS".to_owned(),
        "mbps" => "throughput".to_owned(),
        "read_mbps" => "read throughput".to_owned(),
        "write_mbps" => "write throughput".to_owned(),
        "latency_ms" => "latency".to_owned(),
        "read_latency_ms" => "read latency".to_owned(),
        "write_latency_ms" => "write latency".to_owned(),
        "sync_latency_ms" => "sync latency".to_owned(),
        "queue_depth" => "queue depth".to_owned(),
        "read_queue_depth" => "read queue depth".to_owned(),
        "write_queue_depth" => "write queue depth".to_owned(),
        "io_kib" => "IO size".to_owned(),
        "read_io_kib" => "read IO size".to_owned(),
        "write_io_kib" => "write IO size".to_owned(),
        "read_pct" => "read share".to_owned(),
        "busy_pct" => "busy".to_owned(),
        "cpu_pct" => "CPU".to_owned(),
        "available_memory_mib" => "available memory".to_owned(),
        "pages_per_sec" => "paging".to_owned(),
        "pagefile_usage_pct" => "pagefile usage".to_owned(),
        "iops_consumed_pct" => "IOPS consumed".to_owned(),
        "mbps_consumed_pct" => "bandwidth consumed".to_owned(),
        "burst_io_credits_used_pct" => "IO burst credits used".to_owned(),
        "burst_bps_credits_used_pct" => "bandwidth burst credits used".to_owned(),
        "target_iops" => "baseline IOPS".to_owned(),
        "target_mbps" => "baseline throughput".to_owned(),
        "max_burst_iops" => "burst IOPS limit".to_owned(),
        "max_burst_mbps" => "burst throughput limit".to_owned(),
        other => {
            let trimmed = match unit_of(other) {
                Some(_) => other.rsplit_once('_').map_or(other, |(head, _)| head),
                None => other,
            };
            trimmed.replace('_', " ")
        }
    }
}

/// Days since 1970-01-01 to (year, month, day) in the proleptic Gregorian calendar
/// (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// Wall-clock milliseconds since 1970 as `HH:MM:SS`, or `MM-DD HH:MM` when `with_date`.
pub fn clock(ms: i64, with_date: bool) -> String {
    let secs = ms.div_euclid(1000);
    let (days, tod) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (h, m, s) = (tod / 3600, tod / 60 % 60, tod % 60);
    if with_date {
        let (_, mo, d) = civil_from_days(days);
        format!("{mo:02}-{d:02} {h:02}:{m:02}")
    } else {
        format!("{h:02}:{m:02}:{s:02}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn significant_digits() {
        assert_eq!(num(25600.0), "25600");
        assert_eq!(num(256.04), "256");
        assert_eq!(num(2.07), "2.07");
        assert_eq!(num(0.01234), "0.0123");
        assert_eq!(num(0.0), "0");
        assert_eq!(num(-0.00001), "0");
        assert_eq!(num(-0.4), "-0.4");
        assert_eq!(num(37.5), "37.5");
        assert_eq!(num(f64::NAN), "n/a");
    }

    #[test]
    fn units_from_names() {
        assert_eq!(with_unit(256.0, "cached_mbps_p95"), "256 MiB/s");
        assert_eq!(with_unit(2.07, "read_latency_ms"), "2.07 ms");
        assert_eq!(with_unit(481.0, "iops"), "481 IOPS");
        assert_eq!(with_unit(4.0, "io_kib"), "4 KiB");
        assert_eq!(with_unit(37.5, "read_pct"), "37.5%");
        assert_eq!(with_unit(8.0, "queue_depth"), "8 IOs");
        assert_eq!(with_unit(0.5, "cap_used"), "0.5");
        assert_eq!(metric_label("vm_cached_mbps"), "vm cached");
        assert_eq!(finding_with_unit(275.3, "cached_mbps_p95"), "275.3 MB/s");
        assert_eq!(finding_with_unit(256.0, "vm.cached_mbps"), "256 MB/s");
        assert_eq!(finding_with_unit(0.55, "iops_used"), "0.55%");
        assert_eq!(finding_with_unit(36.63, "latency_p50"), "36.63 ms");
        assert_eq!(finding_with_unit(5000.0, "disk.iops_cap"), "5000 IOPS");
        assert_eq!(finding_with_unit(4.015, "io_size_p50"), "4.015 KiB");
        assert_eq!(finding_with_unit(0.99, "in_flight"), "0.99 IOs");
        assert_eq!(finding_with_unit(2.0, "cached_disks"), "2");
        assert_eq!(finding_with_unit(1.0, "latency_p50.from_source"), "1");
        assert_eq!(metric_label("read_latency_ms"), "read latency");
    }

    #[test]
    fn durations() {
        assert_eq!(duration(0.5), "500 ms");
        assert_eq!(duration(45.0), "45 s");
        assert_eq!(duration(125.0), "2 min 5 s");
        assert_eq!(duration(600.0), "10 min");
        assert_eq!(duration(4800.0), "1 h 20 min");
        assert_eq!(duration(2.0 * 86_400.0 + 3.0 * 3600.0), "2 d 3 h");
    }

    #[test]
    fn clocks() {
        // 2024-03-10 14:05:09
        let ms = 1_710_079_509_000;
        assert_eq!(clock(ms, false), "14:05:09");
        assert_eq!(clock(ms, true), "03-10 14:05");
        assert_eq!(clock(-1000, false), "23:59:59");
    }
}
