//! Forgiving name matching between a topology and the targets of captures.
//!
//! A disk is named differently by every tool: PerfMon says `1 E:` (PhysicalDisk) or `E:`
//! (LogicalDisk), DiskSpd `E:\io.dat` or `#2`, iostat `sdc`, fio `/dev/sdc` or
//! `/mnt/data/x.dat`, Windows `\\.\PhysicalDrive2`. Each name reduces to one or more *keys*
//! (`e:`, `disk1`, `sdc`, `/mnt/data/x.dat`); two names match when they share a key, or
//! when a benchmark's file lies under a topology's mount path.

use advisor_model::TargetKind;

/// The primary key of a name: lower case, with the spelling differences of the tools
/// removed. `E:`, `e:`, `1 E:`, `E:\io.dat` -> `e:`; `/dev/sdc`, `SDC` -> `sdc`;
/// `2`, `Disk 2`, `\\.\PhysicalDrive2`, `#2` -> `disk2`. Idempotent.
pub fn normalize_name(name: &str) -> String {
    name_keys(name).into_iter().next().unwrap_or_default()
}

/// Every key a name answers to, the primary first. `1 E:` -> `e:`, `disk1`;
/// `0 C: D:` -> `c:`, `d:`, `disk0`.
pub fn name_keys(name: &str) -> Vec<String> {
    let lower = name.to_lowercase();
    let s = lower.trim_matches(|c: char| c == '"' || c.is_whitespace());
    if s.is_empty() {
        return vec![String::new()];
    }
    // PerfMon PhysicalDisk instance: `1 E:`, `0 C: D:`, `2` (a bare number).
    let mut words = s.split_whitespace();
    if let Some(first) = words.next()
        && first.bytes().all(|c| c.is_ascii_digit())
    {
        let rest: Vec<&str> = words.collect();
        if rest.iter().all(|w| drive_letter(w).is_some_and(|d| d.len() == w.len())) {
            let mut keys: Vec<String> = rest.iter().map(|w| (*w).to_owned()).collect();
            keys.push(format!("disk{}", trim_zeros(first)));
            return keys;
        }
    }
    // Windows physical drive spellings.
    for prefix in
        [r"\\.\physicaldrive", r"\\?\physicaldrive", "physicaldrive", "physicaldisk", "disk", "#"]
    {
        if let Some(n) = s.strip_prefix(prefix) {
            let n = n.trim_start_matches([' ', '_', '-']);
            if !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()) {
                return vec![format!("disk{}", trim_zeros(n))];
            }
        }
    }
    // A drive letter, alone or leading a path: `e`, `e:`, `e:\`, `e:\data\io.dat`.
    if let Some(d) = drive_letter(s) {
        return vec![d.to_owned()];
    }
    if s.len() == 1 && s.bytes().all(|c| c.is_ascii_alphabetic()) {
        return vec![format!("{s}:")];
    }
    // Linux block devices: `/dev/sdc` -> `sdc`; `/dev/mapper/vg-lv` -> `mapper/vg-lv`.
    let slashed = s.replace('\\', "/");
    let stripped = slashed.strip_prefix("/dev/").unwrap_or(&slashed).trim_end_matches('/');
    let out = if stripped.is_empty() { "/" } else { stripped };
    if out == s {
        vec![out.to_owned()]
    } else {
        // `/dev/2` is `2` is `disk2`: reduce until nothing changes, so keys are fixed points.
        name_keys(out)
    }
}

fn trim_zeros(n: &str) -> &str {
    let t = n.trim_start_matches('0');
    if t.is_empty() { "0" } else { t }
}

/// `e:` when `s` (lower case) starts with a drive letter and a colon, followed by nothing,
/// a backslash or a slash.
fn drive_letter(s: &str) -> Option<&str> {
    let b = s.as_bytes();
    let ok = b.len() >= 2
        && b[0].is_ascii_alphabetic()
        && b[1] == b':'
        && (b.len() == 2 || matches!(b[2], b'\\' | b'/'));
    ok.then(|| &s[..2])
}

/// Whether a topology name and a capture target's name denote the same disk or volume.
/// `kind` is the capture target's, when known: aggregates (`_Total`) and hosts never
/// match; a benchmark file matches a topology path it lies under (`/mnt/data` matches
/// `/mnt/data/x.dat`).
pub fn matches(topology_name: &str, capture_name: &str, kind: Option<TargetKind>) -> bool {
    if matches!(kind, Some(TargetKind::Aggregate | TargetKind::Host)) {
        return false;
    }
    let topo = name_keys(topology_name);
    let cap = name_keys(capture_name);
    if topo.iter().any(|k| !k.is_empty() && cap.contains(k)) {
        return true;
    }
    // A file under a mount path (fio, DiskSpd on Linux).
    let file_like = matches!(kind, None | Some(TargetKind::Benchmark));
    file_like
        && topo.iter().any(|t| {
            t.starts_with('/')
                && t.len() > 1
                && cap
                    .iter()
                    .any(|c| c.strip_prefix(t.as_str()).is_some_and(|r| r.starts_with('/')))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_contract_spellings_match() {
        for cap in ["E:", "e:", "1 E:", "E:\\io.dat", "e:/data/io.dat"] {
            assert!(matches("E:", cap, None), "{cap}");
        }
        for cap in ["/dev/sdc", "sdc", "SDC"] {
            assert!(matches("sdc", cap, Some(TargetKind::Device)), "{cap}");
            assert!(matches("/dev/sdc", cap, None), "{cap}");
        }
        assert!(matches("disk2", "2", Some(TargetKind::Disk)));
        assert!(matches("disk2", "\\\\.\\PhysicalDrive2", Some(TargetKind::Benchmark)));
        assert!(matches("Disk 2", "#2", Some(TargetKind::Benchmark)));
        assert!(matches("1", "1 E:", Some(TargetKind::Disk)));
        assert!(matches("/mnt/data", "/mnt/data/x.dat", Some(TargetKind::Benchmark)));
    }

    #[test]
    fn different_things_do_not_match() {
        assert!(!matches("E:", "F:", None));
        assert!(!matches("E:", "_Total", Some(TargetKind::Aggregate)));
        assert!(!matches("sdc", "sdc1", Some(TargetKind::Volume)));
        assert!(!matches("disk2", "12", Some(TargetKind::Disk)));
        assert!(!matches("/mnt/data", "/mnt/database/x", Some(TargetKind::Benchmark)));
        assert!(!matches("/mnt/data", "/mnt/data/x.dat", Some(TargetKind::Device)));
    }

    #[test]
    fn keys() {
        assert_eq!(name_keys("0 C: D:"), ["c:", "d:", "disk0"]);
        assert_eq!(normalize_name("HarddiskVolume2"), "harddiskvolume2");
        assert_eq!(normalize_name("/dev/nvme0n1"), "nvme0n1");
        assert_eq!(normalize_name("disk02"), "disk2");
        assert_eq!(normalize_name("  E  "), "e:");
    }
}
