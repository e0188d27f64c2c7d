//! A capture that changes while advisor reads it: truncated (a log rotated, a copy started
//! over) or grown (a capture still being written). The real binary reads a large generated
//! PerfMon CSV; it is stopped (SIGSTOP) once it has the file open and has read into it,
//! the file is cut short or appended to, and it goes on (SIGCONT). It must end with exit
//! code 2 and an error naming the file, the line and column where the text stops, and the
//! lengths; never a signal (a mapped file cut short kills its reader with SIGBUS).

#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufWriter, Write as _};
use std::os::unix::process::ExitStatusExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const HEADER: &str = "\"(PDH-CSV 4.0) (Coordinated Universal Time)(0)\",\"\\\\SQLVM01\\PhysicalDisk(0 C:)\\Disk Reads/sec\",\"\\\\SQLVM01\\PhysicalDisk(0 C:)\\Avg. Disk sec/Read\",\"\\\\SQLVM01\\PhysicalDisk(0 C:)\\Current Disk Queue Length\"\r\n";

/// Every data line has this many bytes, so that a byte offset gives its line and column.
const LINE: usize = 64;

/// A PerfMon CSV of `lines` samples a millisecond apart, every data line `LINE` bytes.
fn generate(path: &Path, lines: usize) -> u64 {
    let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(path).unwrap());
    w.write_all(HEADER.as_bytes()).unwrap();
    for i in 0..lines {
        let (h, m, s, ms) = (i / 3_600_000, i / 60_000 % 60, i / 1000 % 60, i % 1000);
        let line = format!(
            "\"01/02/2024 {h:02}:{m:02}:{s:02}.{ms:03}\",\"{:07}.5\",\"0.00{}\",\"{:014}\"\r\n",
            i % 9_999_999,
            i % 9,
            i % 99_999
        );
        assert_eq!(line.len(), LINE, "{line:?}");
        w.write_all(line.as_bytes()).unwrap();
    }
    w.flush().unwrap();
    (HEADER.len() + lines * LINE) as u64
}

/// Where the process `pid` is in `file`: the offset of its descriptor on it, once open.
fn position(pid: u32, file: &Path) -> Option<u64> {
    for fd in std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?.flatten() {
        if std::fs::read_link(fd.path()).ok().as_deref() == Some(file) {
            let info = std::fs::read_to_string(format!(
                "/proc/{pid}/fdinfo/{}",
                fd.file_name().to_string_lossy()
            ))
            .ok()?;
            return info
                .lines()
                .find_map(|l| l.strip_prefix("pos:"))
                .and_then(|p| p.trim().parse().ok());
        }
    }
    None
}

fn signal(pid: u32, sig: &str) {
    let ok = Command::new("kill").args([sig, &pid.to_string()]).status().unwrap();
    assert!(ok.success(), "kill {sig} {pid}");
}

/// Runs `advisor inspect FILE`, stops it once it has read into the file, applies `change`
/// to the file (given how far the reader got) and lets it go on: its exit status and
/// stderr.
fn inspect_while(file: &Path, change: impl FnOnce(u64)) -> (std::process::ExitStatus, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_advisor"))
        .arg("inspect")
        .arg(file)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let pid = child.id();
    loop {
        if let Some(pos) = position(pid, file).filter(|p| *p > 0) {
            signal(pid, "-STOP");
            // Where it stands now that it cannot move.
            let pos = position(pid, file).unwrap_or(pos);
            change(pos);
            signal(pid, "-CONT");
            break;
        }
        if let Some(status) = child.try_wait().unwrap() {
            panic!("advisor ended ({status}) before it was seen reading {}", file.display());
        }
        assert!(Instant::now() < deadline, "advisor never opened {}", file.display());
        std::thread::sleep(Duration::from_millis(1));
    }
    let out = child.wait_with_output().unwrap();
    (out.status, String::from_utf8_lossy(&out.stderr).into_owned())
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("advisor-truncation-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name).canonicalize().unwrap_or_else(|_| dir.canonicalize().unwrap().join(name))
}

/// Samples in the generated capture: 96 MiB, six pieces of the streaming reader's 16 MiB.
const SAMPLES: usize = 96 << 20 >> 6;

#[test]
fn a_capture_cut_short_while_it_is_read_is_a_located_error_not_a_signal() {
    let file = temp("cut.csv");
    let len = generate(&file, SAMPLES);
    let mut cut_at = 0u64;
    let (status, stderr) = inspect_while(&file, |pos| {
        // Well past what the reader holds (a piece being parsed, the next one read), in
        // the middle of a line: line 1 is the header.
        let at = (pos + (40 << 20)).max(len * 2 / 3);
        cut_at = at - (at - HEADER.len() as u64) % LINE as u64 + 17;
        let f = std::fs::OpenOptions::new().write(true).open(&file).unwrap();
        f.set_len(cut_at).unwrap();
    });
    assert_eq!(status.signal(), None, "advisor was killed by a signal: {status}\n{stderr}");
    assert_eq!(status.code(), Some(2), "{stderr}");
    let line = (cut_at - HEADER.len() as u64) / LINE as u64 + 2;
    let want = format!(
        "{}:{line}:18: cannot read the file: the file changed while it was read: it had {len} bytes \
         when it was opened and it ends at byte {cut_at} now",
        file.display()
    );
    assert!(stderr.contains(&want), "expected {want:?} in:\n{stderr}");
    let _ = std::fs::remove_file(&file);
}

#[test]
fn a_capture_grown_while_it_is_read_is_a_located_error() {
    let file = temp("grown.csv");
    let len = generate(&file, SAMPLES);
    let (status, stderr) = inspect_while(&file, |_| {
        let mut f = std::fs::OpenOptions::new().append(true).open(&file).unwrap();
        f.write_all(b"\"01/02/2024 23:00:00.000\",\"1.5\",\"0.001\",\"2\"\r\n").unwrap();
    });
    assert_eq!(status.signal(), None, "advisor was killed by a signal: {status}\n{stderr}");
    assert_eq!(status.code(), Some(2), "{stderr}");
    // All it had was read: the text stops after the last line, on the line that follows.
    let line = SAMPLES + 2;
    let want = format!(
        "{}:{line}:1: cannot read the file: the file changed while it was read: it had {len} bytes \
         when it was opened and more has been written to it since",
        file.display()
    );
    assert!(stderr.contains(&want), "expected {want:?} in:\n{stderr}");
    let _ = std::fs::remove_file(&file);
}
