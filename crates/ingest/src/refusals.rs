//! Files people attach instead of a capture, each a row of [`crate::FORMATS`]: archives
//! and other binary files by their magic bytes, then the text outputs of neighbouring tools
//! (sar, `/proc/diskstats`, fio's other outputs, DiskSpd's error message).

use crate::formats::{Head, Refusal, Test};

const RELOG_HINT: &str = "convert a PerfMon .blg with `relog capture.blg -f csv -o capture.csv`";
const IOSTAT_HINT: &str = "capture with `iostat -x -t 1` or `iostat -x -t -o JSON 1` instead";

/// A refusal by magic bytes; the example is the magic itself.
const fn magic(bytes: &'static [u8], looks_like: &'static str) -> Refusal {
    Refusal { looks_like, hint: None, test: Test::Magic(bytes), example: bytes }
}

pub(crate) const ZIP: Refusal =
    magic(b"PK\x03\x04", "a zip archive (unzip it and pass the capture inside)");
pub(crate) const EMPTY_ZIP: Refusal = magic(b"PK\x05\x06", "an empty zip archive");
pub(crate) const GZIP: Refusal = magic(b"\x1f\x8b", "a gzip-compressed file (gunzip it first)");
pub(crate) const SEVEN_ZIP: Refusal =
    magic(b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive (extract it first)");
pub(crate) const RAR: Refusal = magic(b"Rar!", "a RAR archive (extract it first)");
pub(crate) const ZSTD: Refusal =
    magic(b"\x28\xb5\x2f\xfd", "a zstd-compressed file (decompress it first)");
pub(crate) const BZIP2: Refusal = magic(b"BZh", "a bzip2-compressed file (decompress it first)");
pub(crate) const XZ: Refusal =
    magic(b"\xfd7zXZ\x00", "an xz-compressed file (decompress it first)");
pub(crate) const OFFICE: Refusal =
    magic(b"\xd0\xcf\x11\xe0", "an Office document (save it as CSV, or pass the original capture)");
pub(crate) const PDF: Refusal = magic(b"%PDF", "a PDF document");
pub(crate) const PNG: Refusal = magic(b"\x89PNG", "a PNG image");
pub(crate) const JPEG: Refusal = magic(b"\xff\xd8\xff", "a JPEG image");
pub(crate) const ELF: Refusal = magic(b"\x7fELF", "an executable");
pub(crate) const WINDOWS_EXE: Refusal = magic(b"MZ", "a Windows executable");

/// Binary data of no known kind: a PerfMon `.blg` most often.
pub(crate) const BINARY: Refusal = Refusal {
    looks_like: "binary data",
    hint: Some(RELOG_HINT),
    test: Test::Text(looks_binary),
    example: b"\x01\x02\x03\x04\x05\x06\x07\x08\x0e\x0f\x10\x11blg",
};

/// A binary sysstat data file (`/var/log/sa/saDD`): its layout changes between sysstat
/// versions, so it is converted on the host that wrote it.
pub(crate) const SA_BINARY: Refusal = Refusal {
    looks_like: "a binary sysstat data file (saDD)",
    hint: Some(
        "convert it to text on the host that wrote it (sysstat reads only its own version's \
         files): `LC_ALL=C sar -A -f /var/log/sa/saDD > sarDD.txt`",
    ),
    test: Test::Magic(b"\x96\xd5"),
    example: b"\x96\xd5\x75\x21\x0c\x06",
};

pub(crate) const DISKSTATS: Refusal = Refusal {
    looks_like: "raw /proc/diskstats",
    hint: Some(IOSTAT_HINT),
    test: Test::Text(is_diskstats),
    example: b"   8       0 sda 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15\n",
};

pub(crate) const FIO_TERSE: Refusal = Refusal {
    looks_like: "fio terse output",
    hint: Some("rerun fio with --output-format=json"),
    test: Test::Text(|h| {
        let first = first(h);
        first.split(';').count() > 10
            && first.split(';').nth(1).is_some_and(|v| v.starts_with("fio-"))
    }),
    example: b"3;fio-3.33;job;0;0;1;2;3;4;5;6;7;8;9\n",
};

pub(crate) const FIO_NORMAL: Refusal = Refusal {
    looks_like: "fio normal (human-readable) output",
    hint: Some("rerun fio with --output-format=json"),
    test: Test::Text(|h| {
        let text = h.text;
        text.contains("(g=") && text.contains(": rw=")
            || text.contains("Run status group")
            || (text.contains("fio-") && text.contains("Starting ") && text.contains("process"))
    }),
    example: b"job: (g=0): rw=randread, bs=(R) 4096B-4096B\nfio-3.33\nStarting 1 process\n",
};

pub(crate) const FIO_LOG: Refusal = Refusal {
    looks_like: "a fio per-IO or averaged log (write_*_log)",
    hint: Some("pass fio's JSON output (--output-format=json) instead"),
    test: Test::Text(|h| {
        let lines = lines(h);
        let all_numbers = lines.iter().filter(|l| !l.trim().is_empty()).take(20).all(|l| {
            let toks: Vec<&str> = l.split(',').map(str::trim).collect();
            toks.len() >= 4 && toks.iter().all(|t| t.parse::<u64>().is_ok())
        });
        all_numbers && !lines.is_empty()
    }),
    example: b"1000, 250, 0, 4096, 0\n2000, 251, 0, 4096, 0\n",
};

pub(crate) const FIO_JOB_FILE: Refusal = Refusal {
    looks_like: "a fio job file (the input of a run, not its results)",
    hint: Some("pass fio's JSON output (--output-format=json)"),
    test: Test::Text(|h| {
        let lines = lines(h);
        lines.iter().any(|l| l.trim() == "[global]")
            || (first(h).starts_with(';') && lines.iter().any(|l| l.trim_start().starts_with('[')))
    }),
    example: b"[global]\nioengine=libaio\n[job]\nrw=randread\n",
};

pub(crate) const DISKSPD_ERROR: Refusal = Refusal {
    looks_like: "DiskSpd's error message, not its results",
    hint: None,
    test: Test::Text(|h| {
        first(h).starts_with("diskspd:") || lines(h).iter().any(|l| l.contains("diskspd --help"))
    }),
    example: b"diskspd: error: invalid argument\n",
};

/// The lines the text tests look at.
fn lines<'a>(h: &Head<'a>) -> Vec<&'a str> {
    h.text.lines().take(200).collect()
}

fn first<'a>(h: &Head<'a>) -> &'a str {
    h.text.lines().next().unwrap_or("")
}

/// Text decoded from binary data is full of control characters or replacement marks.
fn looks_binary(h: &Head<'_>) -> bool {
    let sample: Vec<char> = h.text.chars().take(4096).collect();
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

fn is_diskstats(h: &Head<'_>) -> bool {
    lines(h).iter().filter(|l| !l.trim().is_empty()).all(|l| {
        let toks: Vec<&str> = l.split_whitespace().collect();
        toks.len() >= 14
            && toks[0].parse::<u32>().is_ok()
            && toks[1].parse::<u32>().is_ok()
            && toks[3..].iter().all(|t| t.parse::<u64>().is_ok())
    })
}
