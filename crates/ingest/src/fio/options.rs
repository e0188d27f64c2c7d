//! fio job options (`job options` over `global options`) and the value grammar fio uses for
//! sizes, block sizes and times.

use super::json::Node;

/// The options of one job: its own `job options` first, then the top-level `global options`.
/// Every value is kept, duplicates included (fio accepts `filename` twice and uses both).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Options {
    job: Vec<(String, String)>,
    global: Vec<(String, String)>,
}

fn collect(node: Option<&Node>) -> Vec<(String, String)> {
    node.map(|n| {
        n.entries()
            .iter()
            .filter_map(|(k, v)| {
                let value = match v {
                    Node::Str(s) => s.clone(),
                    Node::Num(x) => format!("{x}"),
                    Node::Bool(b) => if *b { "1" } else { "0" }.to_owned(),
                    _ => return None,
                };
                Some((k.clone(), value))
            })
            .collect()
    })
    .unwrap_or_default()
}

impl Options {
    pub(crate) fn new(job: Option<&Node>, global: Option<&Node>) -> Self {
        Self { job: collect(job), global: collect(global) }
    }

    /// Whether the output printed any option at all (fio 2.2.x prints none).
    pub(crate) fn is_known(&self) -> bool {
        !self.job.is_empty() || !self.global.is_empty()
    }

    /// Every value of `key` from the level that sets it (job over global), in file order.
    pub(crate) fn all(&self, key: &str) -> Vec<&str> {
        let job: Vec<&str> =
            self.job.iter().filter(|(k, _)| k == key).map(|(_, v)| v.as_str()).collect();
        if !job.is_empty() {
            return job;
        }
        self.global.iter().filter(|(k, _)| k == key).map(|(_, v)| v.as_str()).collect()
    }

    /// The value of `key` (the last one given, as fio itself keeps for scalar options).
    pub(crate) fn get(&self, key: &str) -> Option<&str> {
        self.all(key).last().copied()
    }

    /// The first of several alias names that is set.
    pub(crate) fn get_any(&self, keys: &[&str]) -> Option<&str> {
        keys.iter().find_map(|k| self.get(k))
    }

    /// fio's `kb_base` (1024 unless set to 1000).
    pub(crate) fn kb_base(&self) -> f64 {
        match self.get("kb_base").map(str::trim) {
            Some("1000") => 1000.0,
            _ => 1024.0,
        }
    }
}

/// A size as fio reads it (`parse.c` `get_mult_bytes`): a number with an optional
/// `k/m/g/t/p` prefix. With the default `kb_base=1024` the SI-looking forms (`4k`, `4K`,
/// `4KB`) are powers of 2 and the IEC forms (`4KiB`) powers of 10; `kb_base=1000` swaps them.
/// A percentage (`10%`, `100%%`) is returned as `Size::Percent`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Size {
    Bytes(f64),
    Percent(f64),
}

pub(crate) fn parse_size(s: &str, kb_base: f64) -> Option<Size> {
    let s = s.trim();
    let num_len = s
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || *c == '.'))
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    let (num, suffix) = s.split_at(num_len);
    let value: f64 = num.parse().ok()?;
    let suffix = suffix.trim().to_ascii_lowercase();
    if suffix.starts_with('%') {
        return Some(Size::Percent(value));
    }
    let other = if kb_base < 1012.0 { 1024.0 } else { 1000.0 };
    let (pow, base) = match suffix.as_str() {
        "" | "b" => (0, kb_base),
        _ => {
            let pow = match suffix.chars().next() {
                Some('k') => 1,
                Some('m') => 2,
                Some('g') => 3,
                Some('t') => 4,
                Some('p') => 5,
                _ => return None,
            };
            let rest = suffix.get(1..).unwrap_or_default();
            match rest {
                "ib" => (pow, other),
                "" | "b" | "i" => (pow, kb_base),
                _ => return None,
            }
        }
    };
    let bytes = value * base.powi(pow);
    bytes.is_finite().then_some(Size::Bytes(bytes))
}

/// A block size option: `4k`, `4096`, a range `4k-64k` / `4k:64k`, or per direction
/// `4k,8k` (read, write[, trim]). Returns (read, write) ranges in bytes.
pub(crate) type Range = (f64, f64);

pub(crate) fn parse_bs(s: &str, kb_base: f64) -> Option<(Range, Range)> {
    let mut parts = s.split(',').map(str::trim);
    let read_part = parts.next().unwrap_or_default();
    let write_part = parts.next();
    // fio's default block size is 4 KiB; an empty part keeps it.
    let default = (4096.0, 4096.0);
    let read = if read_part.is_empty() { default } else { parse_range(read_part, kb_base)? };
    let write = match write_part {
        None => read,
        Some("") => default,
        Some(w) => parse_range(w, kb_base)?,
    };
    Some((read, write))
}

fn parse_range(s: &str, kb_base: f64) -> Option<Range> {
    let mut it = s.splitn(2, ['-', ':']);
    let lo = bytes_of(it.next()?, kb_base)?;
    let hi = match it.next() {
        Some(h) => bytes_of(h, kb_base)?,
        None => lo,
    };
    Some((lo.min(hi), lo.max(hi)))
}

fn bytes_of(s: &str, kb_base: f64) -> Option<f64> {
    match parse_size(s, kb_base)? {
        Size::Bytes(b) if b > 0.0 => Some(b),
        _ => None,
    }
}

/// A time option in seconds: fio's default unit is seconds; `us`, `ms`, `s`, `m`, `h`, `d`.
pub(crate) fn parse_time_s(s: &str) -> Option<f64> {
    let s = s.trim();
    let num_len = s
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || *c == '.'))
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    let (num, suffix) = s.split_at(num_len);
    let value: f64 = num.parse().ok()?;
    let factor = match suffix.trim().to_ascii_lowercase().as_str() {
        "" | "s" | "sec" => 1.0,
        "us" | "usec" => 1e-6,
        "ms" | "msec" => 1e-3,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        "d" => 86400.0,
        _ => return None,
    };
    Some(value * factor)
}

/// A whole-number option (`iodepth`, `numjobs`, `fsync`).
pub(crate) fn parse_count(s: &str) -> Option<u32> {
    let s = s.trim();
    if let Ok(v) = s.parse::<u32>() {
        return Some(v);
    }
    // fio accepts size suffixes on integers too (`iodepth=1k` is rare but legal).
    match parse_size(s, 1024.0)? {
        Size::Bytes(b) if (0.0..=u32::MAX as f64).contains(&b) && b.fract() == 0.0 => {
            Some(b as u32)
        }
        _ => None,
    }
}

/// A boolean option: `1`/`0`, `true`/`false`; `sync` also takes `sync`/`dsync`/`none`.
pub(crate) fn parse_flag(s: &str) -> Option<bool> {
    match s.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" | "sync" | "dsync" => Some(true),
        "0" | "false" | "no" | "off" | "none" => Some(false),
        other => other.parse::<i64>().ok().map(|v| v != 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(s: &str) -> Option<f64> {
        match parse_size(s, 1024.0) {
            Some(Size::Bytes(b)) => Some(b),
            _ => None,
        }
    }

    #[test]
    fn sizes_follow_fio_kb_base_rules() {
        assert_eq!(bytes("64m"), Some(64.0 * 1048576.0));
        assert_eq!(bytes("128M"), Some(128.0 * 1048576.0));
        assert_eq!(bytes("1g"), Some(1073741824.0));
        assert_eq!(bytes("1GB"), Some(1073741824.0));
        assert_eq!(bytes("4096"), Some(4096.0));
        assert_eq!(bytes("50000Mi"), Some(50000.0 * 1048576.0));
        // Compatibility mode: IEC prefixes are powers of 10.
        assert_eq!(bytes("4KiB"), Some(4000.0));
        assert_eq!(parse_size("4KiB", 1000.0), Some(Size::Bytes(4096.0)));
        assert_eq!(parse_size("4k", 1000.0), Some(Size::Bytes(4000.0)));
        assert_eq!(parse_size("10%", 1024.0), Some(Size::Percent(10.0)));
        assert_eq!(parse_size("100%%", 1024.0), Some(Size::Percent(100.0)));
        assert_eq!(bytes("abc"), None);
        assert_eq!(bytes("4x"), None);
        assert_eq!(bytes(""), None);
    }

    #[test]
    fn block_sizes_ranges_and_per_direction() {
        let k4 = (4096.0, 4096.0);
        assert_eq!(parse_bs("4k", 1024.0), Some((k4, k4)));
        assert_eq!(parse_bs("4K", 1024.0), Some((k4, k4)));
        assert_eq!(parse_bs("4096", 1024.0), Some((k4, k4)));
        assert_eq!(parse_bs("4k-4k", 1024.0), Some((k4, k4)));
        assert_eq!(parse_bs("1m", 1024.0), Some(((1048576.0, 1048576.0), (1048576.0, 1048576.0))));
        assert_eq!(parse_bs("4k-64k", 1024.0), Some(((4096.0, 65536.0), (4096.0, 65536.0))));
        assert_eq!(parse_bs("4k:64k", 1024.0), Some(((4096.0, 65536.0), (4096.0, 65536.0))));
        assert_eq!(parse_bs("4k,8k", 1024.0), Some((k4, (8192.0, 8192.0))));
        assert_eq!(parse_bs(",8k", 1024.0), Some((k4, (8192.0, 8192.0))));
        assert_eq!(parse_bs("4k,8k,16k", 1024.0), Some((k4, (8192.0, 8192.0))));
        assert_eq!(parse_bs("big", 1024.0), None);
        assert_eq!(parse_bs("0", 1024.0), None);
    }

    #[test]
    fn times_counts_and_flags() {
        assert_eq!(parse_time_s("8"), Some(8.0));
        assert_eq!(parse_time_s("60s"), Some(60.0));
        assert_eq!(parse_time_s("2m"), Some(120.0));
        assert_eq!(parse_time_s("1h"), Some(3600.0));
        assert_eq!(parse_time_s("500ms"), Some(0.5));
        assert_eq!(parse_time_s("x"), None);
        assert_eq!(parse_count("64"), Some(64));
        assert_eq!(parse_count("1k"), Some(1024));
        assert_eq!(parse_count("-1"), None);
        assert_eq!(parse_flag("1"), Some(true));
        assert_eq!(parse_flag("dsync"), Some(true));
        assert_eq!(parse_flag("none"), Some(false));
        assert_eq!(parse_flag("0"), Some(false));
    }

    #[test]
    fn job_options_override_global_and_keep_duplicates() {
        let job: Node = serde_json::from_str(r#"{"bs": "8k", "filename": "a", "filename": "b"}"#)
            .unwrap_or(Node::Null);
        let global: Node =
            serde_json::from_str(r#"{"bs": "4k", "iodepth": "16"}"#).unwrap_or(Node::Null);
        let o = Options::new(Some(&job), Some(&global));
        assert_eq!(o.get("bs"), Some("8k"));
        assert_eq!(o.get("iodepth"), Some("16"));
        assert_eq!(o.all("filename"), vec!["a", "b"]);
        assert_eq!(o.get("filename"), Some("b"));
        assert!(o.is_known());
        assert!(!Options::new(None, None).is_known());
    }
}
