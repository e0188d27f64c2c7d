//! Format detection from content. File names are never consulted: a support ticket's
//! attachments are called `capture.txt`, `perf (2).csv` or `output.log` whatever they hold.

use advisor_model::Format;

use crate::decode::decode_head;
use crate::error::{ErrorKind, IngestError};

/// How many leading bytes detection looks at.
const HEAD: usize = 64 * 1024;

const RELOG_HINT: &str = "convert a PerfMon .blg with `relog capture.blg -f csv -o capture.csv`";
const IOSTAT_HINT: &str = "capture with `iostat -x -t 1` or `iostat -x -t -o JSON 1` instead";

/// Detects the format of a capture from its first bytes.
///
/// Refusals name what the input looks like and what is supported; fio output that holds
/// only fio's own error message is reported as that error.
pub fn sniff(file: &str, bytes: &[u8]) -> Result<Format, IngestError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(IngestError::new(file, None, ErrorKind::Empty));
    }
    if let Some(what) = binary_kind(bytes) {
        let hint = (what == "binary data").then(|| RELOG_HINT.to_owned());
        return Err(IngestError::not_supported(file, what, hint));
    }
    let head = decode_head(bytes, HEAD);
    let text = head.trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n']);
    if looks_binary(text) {
        return Err(IngestError::not_supported(file, "binary data", Some(RELOG_HINT.to_owned())));
    }
    let first_line = text.lines().next().unwrap_or("");

    if first_line.trim_start_matches('"').starts_with("(PDH-CSV") || is_counter_header(first_line) {
        return Ok(Format::PerfmonCsv);
    }
    if first_line.starts_with("# hostname") && first_line.contains(';') {
        return Err(IngestError::not_supported(
            file,
            "sadf -d output (sar data)",
            Some(IOSTAT_HINT.to_owned()),
        ));
    }
    if text.starts_with('{') && text.contains("\"sysstat\"") {
        if text.contains("\"file-date\"") || text.contains("\"timestamp\": {") {
            return Err(IngestError::not_supported(
                file,
                "sadf -j output (sar data as JSON)",
                Some(IOSTAT_HINT.to_owned()),
            ));
        }
        return Ok(Format::IostatJson);
    }
    if is_fio_json(text) {
        return Ok(Format::FioJson);
    }
    if text.starts_with('<') && text.contains("<Results") {
        return Ok(Format::DiskspdXml);
    }
    if is_diskspd_text(text) {
        return Ok(Format::DiskspdText);
    }
    if let Some(message) = fio_error_only(text) {
        return Err(IngestError::new(file, None, ErrorKind::FioError { message }));
    }
    if let Some(what) = known_unsupported_text(text) {
        return Err(IngestError::not_supported(file, what.0, what.1.map(str::to_owned)));
    }
    if is_iostat_text(text) {
        return Ok(Format::IostatText);
    }
    Err(IngestError::not_supported(file, "text in none of the supported formats", None))
}

/// Container and compressed formats recognised by their magic bytes.
fn binary_kind(bytes: &[u8]) -> Option<&'static str> {
    const MAGIC: &[(&[u8], &str)] = &[
        (b"PK\x03\x04", "a zip archive (unzip it and pass the capture inside)"),
        (b"PK\x05\x06", "an empty zip archive"),
        (b"\x1f\x8b", "a gzip-compressed file (gunzip it first)"),
        (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive (extract it first)"),
        (b"Rar!", "a RAR archive (extract it first)"),
        (b"\x28\xb5\x2f\xfd", "a zstd-compressed file (decompress it first)"),
        (b"BZh", "a bzip2-compressed file (decompress it first)"),
        (b"\xfd7zXZ\x00", "an xz-compressed file (decompress it first)"),
        (b"\xd0\xcf\x11\xe0", "an Office document (save it as CSV, or pass the original capture)"),
        (b"%PDF", "a PDF document"),
        (b"\x89PNG", "a PNG image"),
        (b"\xff\xd8\xff", "a JPEG image"),
        (b"\x7fELF", "an executable"),
        (b"MZ", "a Windows executable"),
    ];
    MAGIC.iter().find(|(m, _)| bytes.starts_with(m)).map(|(_, what)| *what)
}

/// Text decoded from binary data is full of control characters or replacement marks.
fn looks_binary(text: &str) -> bool {
    let sample: Vec<char> = text.chars().take(4096).collect();
    if sample.is_empty() {
        return false;
    }
    let bad = sample
        .iter()
        .filter(|c| {
            **c == '\u{fffd}' || (c.is_control() && !matches!(c, '\n' | '\r' | '\t' | '\u{c}'))
        })
        .count();
    bad * 20 > sample.len()
}

/// A CSV header whose cells after the first are PerfMon counter paths (`\\HOST\Object\Counter`),
/// as in a capture re-saved by a spreadsheet that lost the `(PDH-CSV 4.0)` cell.
fn is_counter_header(line: &str) -> bool {
    let mut cells = line.split([',', ';']).skip(1).map(|c| c.trim().trim_matches('"'));
    cells.next().is_some_and(|c| c.starts_with("\\\\") && c[2..].contains('\\'))
}

/// A JSON document whose opening brace starts a line and whose first keys include
/// `"fio version"`; fio may print warnings or its normal output before it.
fn is_fio_json(text: &str) -> bool {
    let mut lines = text.lines().map(str::trim);
    while let Some(l) = lines.by_ref().find(|l| l.starts_with('{')) {
        let rest = l.trim_start_matches('{').trim();
        if rest.starts_with("\"fio version\"") {
            return true;
        }
        if rest.is_empty() && lines.clone().take(3).any(|l| l.starts_with("\"fio version\"")) {
            return true;
        }
    }
    false
}

fn is_diskspd_text(text: &str) -> bool {
    let has = |s: &str| text.contains(s);
    (has("Command Line:") && has("diskspd"))
        || (has("Input parameters:") && (has("timespan:") || has("Results for timespan")))
}

/// fio wrote only its own error lines (`fio: engine libaio not loadable`), no JSON.
fn fio_error_only(text: &str) -> Option<String> {
    if text.contains('{') {
        return None;
    }
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let fio_lines: Vec<&str> = lines.iter().copied().filter(|l| l.starts_with("fio: ")).collect();
    if fio_lines.is_empty() || lines.len() > 20 || fio_lines.len() * 2 < lines.len() {
        return None;
    }
    Some(fio_lines.join("; "))
}

fn is_time_token(tok: &str) -> bool {
    let b = tok.as_bytes();
    b.len() == 8
        && b[2] == b':'
        && b[5] == b':'
        && b.iter().enumerate().all(|(i, c)| i == 2 || i == 5 || c.is_ascii_digit())
}

/// Outputs of neighbouring tools that people attach instead of a capture.
fn known_unsupported_text(text: &str) -> Option<(&'static str, Option<&'static str>)> {
    let lines: Vec<&str> = text.lines().take(200).collect();
    // sar: rows start with a time of day and carry a DEV/CPU column, or an "Average:" line.
    let sar = lines.iter().any(|l| {
        let mut toks = l.split_whitespace();
        let first = toks.next().unwrap_or("");
        if !is_time_token(first) {
            return false;
        }
        let rest: Vec<&str> = toks.filter(|t| *t != "AM" && *t != "PM").collect();
        rest.iter().any(|t| matches!(*t, "DEV" | "CPU" | "IFACE" | "tps" | "%user" | "kbmemfree"))
    });
    if sar {
        return Some((
            "sar output",
            Some("capture with `iostat -x -t 1` or `iostat -x -t -o JSON 1` instead"),
        ));
    }
    let diskstats = lines.iter().filter(|l| !l.trim().is_empty()).all(|l| {
        let toks: Vec<&str> = l.split_whitespace().collect();
        toks.len() >= 14
            && toks[0].parse::<u32>().is_ok()
            && toks[1].parse::<u32>().is_ok()
            && toks[3..].iter().all(|t| t.parse::<u64>().is_ok())
    });
    if diskstats {
        return Some((
            "raw /proc/diskstats",
            Some("capture with `iostat -x -t 1` or `iostat -x -t -o JSON 1` instead"),
        ));
    }
    let first = lines.first().copied().unwrap_or("");
    if first.split(';').count() > 10
        && first.split(';').nth(1).is_some_and(|v| v.starts_with("fio-"))
    {
        return Some(("fio terse output", Some("rerun fio with --output-format=json")));
    }
    if text.contains("(g=") && text.contains(": rw=")
        || text.contains("Run status group")
        || (text.contains("fio-") && text.contains("Starting ") && text.contains("process"))
    {
        return Some((
            "fio normal (human-readable) output",
            Some("rerun fio with --output-format=json"),
        ));
    }
    let fio_log = lines.iter().filter(|l| !l.trim().is_empty()).take(20).all(|l| {
        let toks: Vec<&str> = l.split(',').map(str::trim).collect();
        toks.len() >= 4 && toks.iter().all(|t| t.parse::<u64>().is_ok())
    });
    if fio_log && !lines.is_empty() {
        return Some((
            "a fio per-IO or averaged log (write_*_log)",
            Some("pass fio's JSON output (--output-format=json) instead"),
        ));
    }
    if lines.iter().any(|l| l.trim() == "[global]")
        || (first.starts_with(';') && lines.iter().any(|l| l.trim_start().starts_with('[')))
    {
        return Some((
            "a fio job file (the input of a run, not its results)",
            Some("pass fio's JSON output (--output-format=json)"),
        ));
    }
    if first.starts_with("diskspd:") || lines.iter().any(|l| l.contains("diskspd --help")) {
        return Some(("DiskSpd's error message, not its results", None));
    }
    None
}

/// iostat text: a `Device` header with iostat's columns, an `avg-cpu:` block, or
/// sysstat's banner line.
fn is_iostat_text(text: &str) -> bool {
    text.lines().take(400).any(|l| {
        // pdsh prefixes lines with `host: `.
        let l = match l.split_once(": ") {
            Some((prefix, rest))
                if !prefix.contains(' ')
                    && !prefix.is_empty()
                    && prefix != "avg-cpu"
                    && prefix != "Device" =>
            {
                rest
            }
            _ => l,
        };
        let toks: Vec<&str> = l.split_whitespace().collect();
        let device_header = toks.first().is_some_and(|t| *t == "Device:" || *t == "Device")
            || toks.last().is_some_and(|t| *t == "Device");
        (device_header
            && toks.iter().any(|t| {
                matches!(*t, "r/s" | "w/s" | "tps" | "rkB/s" | "rMB/s" | "%util" | "aqu-sz")
            }))
            || l.trim_start().starts_with("avg-cpu:")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn detect(s: &str) -> Result<Format, String> {
        sniff("x", s.as_bytes()).map_err(|e| e.to_string())
    }

    #[test]
    fn detects_by_content() {
        assert_eq!(
            detect(
                "\"(PDH-CSV 4.0) (GMT Standard Time)(0)\",\"\\\\H\\PhysicalDisk(0 C:)\\Disk Reads/sec\"\r\n"
            ),
            Ok(Format::PerfmonCsv)
        );
        assert_eq!(
            detect("Linux 5.4 (h)\t01/01/20\t_x86_64_\t(8 CPU)\n\nDevice r/s w/s\nsda 1 2\n"),
            Ok(Format::IostatText)
        );
        assert_eq!(detect("{\"sysstat\": {\"hosts\": []}}"), Ok(Format::IostatJson));
        assert_eq!(detect("fio: warning\n{\n\"fio version\" : \"fio-3.33\"}"), Ok(Format::FioJson));
        assert_eq!(detect("<Results><System></System></Results>"), Ok(Format::DiskspdXml));
        assert_eq!(
            detect("\nCommand Line: diskspd -b8K c:\\x.dat\n\nInput parameters:\n"),
            Ok(Format::DiskspdText)
        );
    }

    #[test]
    fn refuses_neighbours() {
        let e = detect("fio: engine libaio not loadable\n").unwrap_err();
        assert!(
            e.contains("fio wrote no results, only its error: fio: engine libaio not loadable"),
            "{e}"
        );
        assert!(detect("PK\x03\x04abc").unwrap_err().contains("zip"));
        assert!(
            detect("   8       0 sda 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15\n")
                .unwrap_err()
                .contains("/proc/diskstats")
        );
        assert!(
            detect("22:53:58   tps rkB/s DEV\n22:53:59 1.0 2.0 vda\n")
                .unwrap_err()
                .contains("sar output")
        );
        assert!(detect("").unwrap_err().contains("empty"));
        assert!(detect("hello world\n").unwrap_err().contains("none of the supported formats"));
    }
}
