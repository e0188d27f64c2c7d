//! Counter paths: `\\HOST\Object(Instance)\Counter`, `\\HOST\Object\Counter`, and the same
//! without the `\\HOST` part.

/// A counter path split into its parts, borrowed from the header cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CounterPath<'a> {
    /// The `HOST` of `\\HOST\...`, when the path names one.
    pub host: Option<&'a str>,
    pub object: &'a str,
    /// The instance exactly as written: `1 C: E:`, `0,_Total`, `svchost#2`, `_Total`, `3`.
    pub instance: Option<&'a str>,
    pub counter: &'a str,
}

impl CounterPath<'_> {
    /// `Object(*)\Counter` or `Object\Counter`: one name for every instance, for lists of
    /// what was not used.
    pub fn generic(&self) -> String {
        match self.instance {
            Some(_) => format!("{}(*)\\{}", self.object, self.counter),
            None => format!("{}\\{}", self.object, self.counter),
        }
    }

    /// `Object(Instance)\Counter` without the host.
    pub fn short(&self) -> String {
        match self.instance {
            Some(i) => format!("{}({i})\\{}", self.object, self.counter),
            None => format!("{}\\{}", self.object, self.counter),
        }
    }
}

/// Parses a counter path; `None` when the cell is not one.
///
/// The instance runs from the first `(` of the object part to the last `)\`, so instances
/// holding spaces, commas or parentheses (`Intel(R) Ethernet`) stay whole.
pub fn parse_counter_path(cell: &str) -> Option<CounterPath<'_>> {
    let cell = cell.trim();
    let (host, rest) = if let Some(rest) = cell.strip_prefix("\\\\") {
        let (host, rest) = rest.split_once('\\')?;
        if host.is_empty() {
            return None;
        }
        (Some(host), rest)
    } else {
        (None, cell.strip_prefix('\\')?)
    };
    let first_bs = rest.find('\\')?;
    let (object, instance, counter) = match rest.find('(') {
        Some(open) if open < first_bs => {
            let close = rest.rfind(")\\")?;
            if close < open {
                return None;
            }
            (&rest[..open], Some(&rest[open + 1..close]), &rest[close + 2..])
        }
        _ => (&rest[..first_bs], None, &rest[first_bs + 1..]),
    };
    let object = object.trim();
    let counter = counter.trim();
    if object.is_empty() || counter.is_empty() {
        return None;
    }
    Some(CounterPath { host, object, instance, counter })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> (Option<&str>, &str, Option<&str>, &str) {
        let c = parse_counter_path(s).unwrap_or_else(|| panic!("not a path: {s}"));
        (c.host, c.object, c.instance, c.counter)
    }

    #[test]
    fn instances_with_spaces_commas_and_suffixes() {
        assert_eq!(
            p(r"\\DESKTOP-5GTCQEM\PhysicalDisk(1 C: E:)\Avg. Disk sec/Read"),
            (Some("DESKTOP-5GTCQEM"), "PhysicalDisk", Some("1 C: E:"), "Avg. Disk sec/Read")
        );
        assert_eq!(
            p(r"\\ZANXX1I9\Processor Information(0,_Total)\% Processor Time"),
            (Some("ZANXX1I9"), "Processor Information", Some("0,_Total"), "% Processor Time")
        );
        assert_eq!(
            p(r"\\H\Process(svchost#85)\% Processor Time"),
            (Some("H"), "Process", Some("svchost#85"), "% Processor Time")
        );
        assert_eq!(
            p(r"\\IMPC3116\LogicalDisk(HarddiskVolume2)\Current Disk Queue Length"),
            (Some("IMPC3116"), "LogicalDisk", Some("HarddiskVolume2"), "Current Disk Queue Length")
        );
        assert_eq!(p(r"\\H\PhysicalDisk(3)\Disk Reads/sec").2, Some("3"));
        assert_eq!(p(r"\\H\LogicalDisk(_Total)\% Idle Time").2, Some("_Total"));
        assert_eq!(
            p(r"\\H\Network Interface(Intel(R) 82574L Gigabit)\Bytes Total/sec"),
            (Some("H"), "Network Interface", Some("Intel(R) 82574L Gigabit"), "Bytes Total/sec")
        );
    }

    #[test]
    fn objects_without_instance_and_hosts() {
        assert_eq!(
            p(r"\\Z_ANXX1_HPPAVX1\Memory\Available MBytes"),
            (Some("Z_ANXX1_HPPAVX1"), "Memory", None, "Available MBytes")
        );
        assert_eq!(p(r"\Memory\Available MBytes"), (None, "Memory", None, "Available MBytes"));
        assert_eq!(
            p(r"\\DESKTOP-LRPVSK4\Процесс(Idle)\% загруженности процессора"),
            (Some("DESKTOP-LRPVSK4"), "Процесс", Some("Idle"), "% загруженности процессора")
        );
        // A counter name with parentheses after an instance-less object.
        assert_eq!(p(r"\\H\Memory\Cache Bytes (peak)").3, "Cache Bytes (peak)");
    }

    #[test]
    fn paging_file_instances_hold_backslashes_and_question_marks() {
        // The instance is an NT path: its `\` are not path separators of the counter.
        assert_eq!(
            p(r"\\SQLVM01\Paging File(\??\C:\pagefile.sys)\% Usage"),
            (Some("SQLVM01"), "Paging File", Some(r"\??\C:\pagefile.sys"), "% Usage")
        );
        assert_eq!(
            p(r"\\SQLVM01\Paging File(\??\D:\pagefile.sys)\% Usage Peak"),
            (Some("SQLVM01"), "Paging File", Some(r"\??\D:\pagefile.sys"), "% Usage Peak")
        );
        assert_eq!(p(r"\Paging File(_Total)\% Usage").2, Some("_Total"));
        // A folder with parentheses in the paging file's path stays in the instance.
        assert_eq!(
            p(r"\\H\Paging File(\??\E:\swap (x)\pagefile.sys)\% Usage"),
            (Some("H"), "Paging File", Some(r"\??\E:\swap (x)\pagefile.sys"), "% Usage")
        );
        let c = parse_counter_path(r"\\H\Paging File(\??\C:\pagefile.sys)\% Usage")
            .unwrap_or_else(|| panic!());
        assert_eq!(c.generic(), r"Paging File(*)\% Usage");
    }

    #[test]
    fn not_paths() {
        for s in [
            "",
            "abc",
            r"\\",
            r"\\H",
            r"\\H\Memory",
            r"\\\Memory\X",
            r"\\H\Disk(0\X",
            "(PDH-CSV 4.0)",
        ] {
            assert_eq!(parse_counter_path(s), None, "{s}");
        }
    }

    #[test]
    fn generic_names() {
        let c =
            parse_counter_path(r"\\H\Process(a#1)\% Processor Time").unwrap_or_else(|| panic!());
        assert_eq!(c.generic(), r"Process(*)\% Processor Time");
        assert_eq!(c.short(), r"Process(a#1)\% Processor Time");
        let c = parse_counter_path(r"\\H\Memory\Pages/sec").unwrap_or_else(|| panic!());
        assert_eq!(c.generic(), r"Memory\Pages/sec");
    }
}
