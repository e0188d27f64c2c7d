//! iostat column names (text headers and JSON keys) mapped to canonical metrics, by name.
//!
//! Every layout since sysstat 9 is covered: the old `Device:` layout (`avgrq-sz` in 512-byte
//! sectors, `avgqu-sz`), the 11.5.7-11.7 transitional one, the 12.x read/write/discard(/flush)
//! groups, the short `-s` layout, the basic (non `-x`) one, and the keys of `-o JSON` old and new.

use advisor_model::Metric;

const KIB: f64 = 1024.0;
const MIB: f64 = 1024.0 * 1024.0;
const GIB: f64 = 1024.0 * 1024.0 * 1024.0;
const SECTOR: f64 = 512.0;

/// What a column holds and how to bring it to the canonical unit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Column {
    /// A canonical metric: `canonical = value * factor`. `unit_bytes` is the size of one
    /// unit of the column for size columns (kB: 1024), so that `--human` values with a unit
    /// suffix (`222.1k`, `1.5G`) can be converted.
    Metric { metric: Metric, factor: f64, unit_bytes: Option<f64> },
    /// Present in the source, deliberately not mapped (discard, flush, merges, svctm, totals).
    Ignored,
    /// Not a column iostat is known to print.
    Unknown,
}

fn rate(metric: Metric, unit_bytes: f64) -> Column {
    Column::Metric { metric, factor: unit_bytes / MIB, unit_bytes: Some(unit_bytes) }
}

fn size_kib(metric: Metric, unit_bytes: f64) -> Column {
    Column::Metric { metric, factor: unit_bytes / KIB, unit_bytes: Some(unit_bytes) }
}

fn plain(metric: Metric) -> Column {
    Column::Metric { metric, factor: 1.0, unit_bytes: None }
}

/// Bytes in one unit of a throughput column named `<prefix><unit>/s`, e.g. `kB` -> 1024.
fn unit_bytes(unit: &str) -> Option<f64> {
    match unit {
        "kB" => Some(KIB),
        "MB" => Some(MIB),
        "GB" => Some(GIB),
        "sec" | "Blk" => Some(SECTOR),
        _ => None,
    }
}

/// Maps an iostat column (text header token or JSON key) to what it holds.
///
/// JSON written by sysstat 11.3-11.5.6 uses `r`/`w` (IOPS), `rkB`/`wkB` (throughput) and
/// `rrqm`/`wrqm` for merges per second; newer JSON's `rrqm`/`wrqm`/`util` are the text's
/// `%rrqm`/`%wrqm`/`%util`. Merges are ignored either way, so one table serves both.
pub(crate) fn classify(name: &str) -> Column {
    use Metric::*;
    match name {
        "r/s" | "r" => return plain(ReadIops),
        "w/s" | "w" => return plain(WriteIops),
        // Basic and short layouts: reads + writes (+ discards since sysstat 12.1).
        "tps" => return plain(Iops),
        "r_await" => return plain(ReadLatencyMs),
        "w_await" => return plain(WriteLatencyMs),
        "await" => return plain(LatencyMs),
        // New layouts print request sizes in kB whatever -k/-m say.
        "rareq-sz" => return size_kib(ReadIoKib, KIB),
        "wareq-sz" => return size_kib(WriteIoKib, KIB),
        "areq-sz" => return size_kib(IoKib, KIB),
        // Old layouts: average request size in 512-byte sectors.
        "avgrq-sz" => return size_kib(IoKib, SECTOR),
        "aqu-sz" | "avgqu-sz" => return plain(QueueDepth),
        "%util" | "util" => return plain(BusyPct),
        // Old JSON (11.3-11.5.6) keys.
        "rkB" => return rate(ReadMbps, KIB),
        "wkB" => return rate(WriteMbps, KIB),
        "kB_read_per_sec" => return rate(ReadMbps, KIB),
        "kB_wrtn_per_sec" => return rate(WriteMbps, KIB),
        _ => {}
    }
    // Extended: rkB/s rMB/s rsec/s, wkB/s ..., short: kB/s MB/s sec/s.
    if let Some(unit) = name.strip_suffix("/s") {
        if let Some(u) = unit.strip_prefix('r').and_then(unit_bytes) {
            return rate(ReadMbps, u);
        }
        if let Some(u) = unit.strip_prefix('w').and_then(unit_bytes) {
            return rate(WriteMbps, u);
        }
        if let Some(u) = unit_bytes(unit) {
            return rate(Mbps, u);
        }
        // Basic: kB_read/s kB_wrtn/s (MB_, GB_, Blk_); short basic: kB_w+d/s.
        if let Some((u, what)) = unit.split_once('_')
            && let Some(u) = unit_bytes(u)
        {
            match what {
                "read" => return rate(ReadMbps, u),
                "wrtn" | "w+d" => return rate(WriteMbps, u),
                "dscd" => return Column::Ignored,
                _ => {}
            }
        }
    }
    if is_ignored(name) {
        return Column::Ignored;
    }
    Column::Unknown
}

fn is_ignored(name: &str) -> bool {
    const IGNORED: &[&str] = &[
        "rrqm/s", "wrqm/s", "drqm/s", "rqm/s", "%rrqm", "%wrqm", "%drqm", "rrqm", "wrqm", "drqm",
        "d/s", "d_await", "dareq-sz", "f/s", "f_await", "svctm", "dkB/s", "dMB/s", "dsec/s",
        "dGB/s", "kB_read", "kB_wrtn", "kB_dscd", "kB_w+d", "MB_read", "MB_wrtn", "MB_dscd",
        "MB_w+d", "GB_read", "GB_wrtn", "GB_dscd", "GB_w+d", "Blk_read", "Blk_wrtn", "Blk_dscd",
        "Blk_w+d", "sec_read", "sec_wrtn", "sec_dscd", "sec_w+d",
    ];
    IGNORED.contains(&name)
}

/// The sysstat layout a set of column names belongs to, for `meta.version`.
pub(crate) fn layout(names: &[&str]) -> String {
    let has = |n: &str| names.contains(&n);
    let extended = has("r/s") || has("r") || has("areq-sz");
    if !extended {
        if has("tps") && names.iter().any(|n| n.contains("w+d")) {
            return "sysstat 12.x short basic layout (iostat -s, no -x)".into();
        }
        if names.iter().any(|n| n.contains("_dscd")) {
            return "sysstat 12.1+ basic layout (no -x, with discard columns)".into();
        }
        return "sysstat basic layout (no -x)".into();
    }
    if has("areq-sz") && !has("rareq-sz") {
        return "sysstat 12.x short extended layout (iostat -x -s)".into();
    }
    if has("f/s") || has("f_await") {
        return "sysstat 12.3+ layout (f/s, f_await)".into();
    }
    if has("d/s") || has("d_await") {
        return "sysstat 12.0-12.2 layout (discard columns, no f/s)".into();
    }
    if has("aqu-sz") || has("rareq-sz") {
        return "sysstat 11.5.7-11.7 layout (aqu-sz, rareq-sz, svctm)".into();
    }
    if has("avgrq-sz") || has("avgqu-sz") {
        if has("r_await") {
            return "sysstat <= 11.5 layout (avgrq-sz in sectors, avgqu-sz)".into();
        }
        return "old sysstat layout without r_await/w_await (avgrq-sz in sectors)".into();
    }
    "sysstat extended layout (unrecognised column set)".into()
}

/// A parsed number: iostat prints `12.34`, `12,34` (locales with a decimal comma),
/// `222.1k`/`1.5G` with `--human` (a size in bytes with a 1024-based suffix) and `56.0%`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Number {
    pub value: f64,
    /// Multiplier to bytes of a `--human` suffix (`B` 1, `k` 1024, `M` 1024^2 ...).
    pub suffix_bytes: Option<f64>,
}

pub(crate) fn parse_number(tok: &str) -> Option<Number> {
    if let Some(value) = plain_decimal(tok) {
        return Some(Number { value, suffix_bytes: None });
    }
    let tok = tok.strip_suffix('%').unwrap_or(tok);
    let (body, suffix_bytes) = match tok.as_bytes().last()? {
        b'B' => (&tok[..tok.len() - 1], Some(1.0)),
        b'k' | b'K' => (&tok[..tok.len() - 1], Some(KIB)),
        b'M' => (&tok[..tok.len() - 1], Some(MIB)),
        b'G' => (&tok[..tok.len() - 1], Some(GIB)),
        b'T' => (&tok[..tok.len() - 1], Some(GIB * KIB)),
        b'P' => (&tok[..tok.len() - 1], Some(GIB * MIB)),
        _ => (tok, None),
    };
    if body.is_empty() || !body.bytes().all(|b| b.is_ascii_digit() || b"+-.,eE".contains(&b)) {
        // Also refuses `inf`, `nan`: handled by the caller as unreadable.
        return None;
    }
    let value = match body.parse::<f64>() {
        Ok(v) => v,
        Err(_) if body.bytes().filter(|b| *b == b',').count() == 1 && !body.contains('.') => {
            body.replace(',', ".").parse::<f64>().ok()?
        }
        Err(_) => return None,
    };
    Some(Number { value, suffix_bytes })
}

/// Powers of ten that are exact in an f64.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// The value of `digits` or `digits.digits` (what iostat prints almost always), when it is
/// small enough to be computed exactly: digits as an integer below 2^53 divided by an exact
/// power of ten is one correctly rounded operation, so the result is the f64 that
/// `str::parse` returns. `None` for anything else (the caller parses it the long way).
fn plain_decimal(tok: &str) -> Option<f64> {
    let b = tok.as_bytes();
    let mut mantissa: u64 = 0;
    let mut digits = 0usize;
    let mut point: Option<usize> = None;
    for (i, &c) in b.iter().enumerate() {
        if c.is_ascii_digit() {
            if digits == 19 {
                return None;
            }
            mantissa = mantissa * 10 + u64::from(c - b'0');
            digits += 1;
        } else if c == b'.' && point.is_none() && i > 0 {
            point = Some(i);
        } else {
            return None;
        }
    }
    let frac = match point {
        Some(p) => b.len() - p - 1,
        None => 0,
    };
    if digits == 0 || (point.is_some() && frac == 0) || mantissa > (1 << 53) {
        return None;
    }
    Some(mantissa as f64 / *POW10.get(frac)?)
}

/// Whether a token is `digits` or `digits.digits`: such a token is always a number to
/// [`parse_number`] (whatever its size).
pub(crate) fn is_plain_decimal(tok: &str) -> bool {
    let b = tok.as_bytes();
    let int = b.iter().take_while(|c| c.is_ascii_digit()).count();
    match b.get(int) {
        None => int > 0,
        Some(b'.') => {
            let frac = b.iter().skip(int + 1).take_while(|c| c.is_ascii_digit()).count();
            int > 0 && frac > 0 && int + 1 + frac == b.len()
        }
        Some(_) => false,
    }
}

/// Converts a cell of a column to the canonical unit. `Err` says why it cannot be used.
pub(crate) fn convert(col: Column, num: Number) -> Result<Option<(Metric, f64)>, &'static str> {
    let Column::Metric { metric, factor, unit_bytes } = col else {
        return Ok(None);
    };
    let in_unit = match (num.suffix_bytes, unit_bytes) {
        (None, _) => num.value,
        (Some(sb), Some(ub)) => num.value * sb / ub,
        (Some(_), None) => return Err("a unit suffix on a column that is not a size"),
    };
    let v = in_unit * factor;
    check(v).map(|v| Some((metric, v)))
}

/// Largest value kept: anything above is a corrupt number, not a measurement.
const ABSURD: f64 = 1e12;

/// Drops negative, non-finite and absurdly large values.
pub(crate) fn check(v: f64) -> Result<f64, &'static str> {
    if !v.is_finite() {
        Err("a value that is not a finite number")
    } else if v < 0.0 {
        Err("a negative value")
    } else if v > ABSURD {
        Err("an absurdly large value")
    } else {
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conv(name: &str, tok: &str) -> Option<(Metric, f64)> {
        let n = parse_number(tok)?;
        convert(classify(name), n).ok().flatten()
    }

    fn close(a: Option<(Metric, f64)>, m: Metric, v: f64) {
        let (got_m, got_v) = a.unwrap_or((Metric::CpuPct, f64::NAN));
        assert_eq!(got_m, m);
        assert!((got_v - v).abs() < 1e-9, "{got_v} != {v}");
    }

    #[test]
    fn units_are_converted_exactly() {
        close(conv("rkB/s", "1024.00"), Metric::ReadMbps, 1.0);
        close(conv("wMB/s", "2.5"), Metric::WriteMbps, 2.5);
        close(conv("rsec/s", "2048"), Metric::ReadMbps, 1.0);
        close(conv("Blk_wrtn/s", "4096"), Metric::WriteMbps, 2.0);
        close(conv("kB_read/s", "512"), Metric::ReadMbps, 0.5);
        close(conv("MB_read/s", "0.22"), Metric::ReadMbps, 0.22);
        close(conv("kB/s", "1024"), Metric::Mbps, 1.0);
        close(conv("avgrq-sz", "16.00"), Metric::IoKib, 8.0);
        close(conv("rareq-sz", "12.44"), Metric::ReadIoKib, 12.44);
        close(conv("avgqu-sz", "1.5"), Metric::QueueDepth, 1.5);
        close(conv("%util", "24,42"), Metric::BusyPct, 24.42);
        close(conv("util", "3"), Metric::BusyPct, 3.0);
        close(conv("tps", "8.59"), Metric::Iops, 8.59);
        close(conv("await", "71.08"), Metric::LatencyMs, 71.08);
    }

    #[test]
    fn human_suffixes_are_bytes_1024_based() {
        // 222.1k in a kB/s column is 222.1 kB/s; 1.5G of kB is 1.5 GiB.
        close(conv("kB_read/s", "222.1k"), Metric::ReadMbps, 222.1 / 1024.0);
        close(conv("kB_read/s", "1.5M"), Metric::ReadMbps, 1.5);
        close(conv("rareq-sz", "32.2k"), Metric::ReadIoKib, 32.2);
        close(conv("rareq-sz", "512B"), Metric::ReadIoKib, 0.5);
        close(conv("%util", "56.0%"), Metric::BusyPct, 56.0);
        assert!(
            convert(classify("r/s"), Number { value: 1.0, suffix_bytes: Some(1024.0) }).is_err()
        );
    }

    #[test]
    fn plain_decimals_are_exact() {
        for t in [
            "0",
            "0.00",
            "7",
            "12.34",
            "100.00",
            "143821.59",
            "0.1",
            "0.3",
            "9007199254740992",
            "1.7976931348623157",
            "123456789.012345678",
            "007.50",
            "4503599627370497.5",
        ] {
            let want = t.parse::<f64>().ok();
            assert_eq!(parse_number(t).map(|n| n.value.to_bits()), want.map(f64::to_bits), "{t}");
        }
        // Not plain: parsed the long way, or refused.
        for t in [
            ".5",
            "5.",
            "1.2.3",
            "-1.0",
            "1e3",
            "12,5",
            "",
            "9007199254740993",
            "1.23456789012345678901",
        ] {
            assert_eq!(plain_decimal(t), None, "{t}");
        }
        assert_eq!(parse_number("5.").map(|n| n.value), Some(5.0));
        for t in ["0", "12.34", "123456789012345678901234567890.5", "0.000000000000000000000001"] {
            assert!(is_plain_decimal(t) && parse_number(t).is_some(), "{t}");
        }
        for t in ["", ".5", "5.", "1.2.3", "-1", "1e3", "12,5", "1k", "."] {
            assert!(!is_plain_decimal(t), "{t}");
        }
        assert_eq!(parse_number("1e3").map(|n| n.value), Some(1000.0));
    }

    #[test]
    fn bad_numbers_are_refused() {
        for t in ["", "k", "nan", "-nan", "inf", "1.2.3", "abc", "1,2,3"] {
            let n = parse_number(t);
            let ok = n.map(|n| check(n.value).is_ok()).unwrap_or(false);
            assert!(!ok, "{t}");
        }
        assert!(check(-1.0).is_err());
        assert!(check(1e300).is_err());
    }

    #[test]
    fn names_not_positions() {
        assert_eq!(classify("svctm"), Column::Ignored);
        assert_eq!(classify("f_await"), Column::Ignored);
        assert_eq!(classify("dkB/s"), Column::Ignored);
        assert_eq!(classify("kB_dscd/s"), Column::Ignored);
        assert_eq!(classify("bogus"), Column::Unknown);
        assert_eq!(layout(&["r/s", "f/s"]), "sysstat 12.3+ layout (f/s, f_await)");
        assert_eq!(
            layout(&["rrqm/s", "r/s", "avgrq-sz", "await", "svctm"]),
            "old sysstat layout without r_await/w_await (avgrq-sz in sectors)"
        );
    }
}
