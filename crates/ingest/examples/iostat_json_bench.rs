//! The speed and peak memory of the iostat JSON reader on a large document.
//!
//! ```text
//! cargo run --release -p advisor-ingest --example iostat_json_bench -- generate /tmp/iostat.json 32 86400
//! /usr/bin/time -v target/release/examples/iostat_json_bench read /tmp/iostat.json
//! ```
//!
//! `generate` writes a document laid out as sysstat 12 writes `iostat -xt -o JSON 1`
//! (`devices` devices, `seconds` reports; 32 devices for a day is about 190 MB); `read`
//! reads it with [`advisor_ingest::iostat::read_json`] and prints the time taken, the rows
//! read and the peak resident set (`VmHWM`).

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::io::{BufWriter, Write};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["generate", path, devices, seconds] => match (devices.parse(), seconds.parse()) {
            (Ok(d), Ok(s)) => generate(path, d, s),
            _ => Err("devices and seconds are numbers".to_owned()),
        },
        ["read", path] => read(path),
        _ => Err("usage: iostat_json_bench generate PATH DEVICES SECONDS | read PATH".to_owned()),
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(2);
    }
}

fn read(path: &str) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let cpu0 = cpu_ticks();
    let t0 = Instant::now();
    let raw = advisor_ingest::iostat::read_json(path, &text).map_err(|e| e.to_string())?;
    let secs = t0.elapsed().as_secs_f64();
    let cpu = cpu_ticks().zip(cpu0).map(|(b, a)| b.saturating_sub(a));
    println!(
        "read {:.1} MB in {secs:.3} s ({:.0} MB/s, CPU {} ticks of 10 ms): {} rows, {} targets, \
         {} warnings; peak RSS {} KiB",
        text.len() as f64 / 1e6,
        text.len() as f64 / 1e6 / secs,
        cpu.map_or("?".to_owned(), |t| t.to_string()),
        raw.table.len(),
        raw.meta.targets.len(),
        raw.meta.warnings.len(),
        peak_rss_kib()
    );
    Ok(())
}

/// User + system CPU time of this process in clock ticks (`/proc/self/stat`), which a
/// loaded machine does not inflate as it does the wall time.
fn cpu_ticks() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command name (which is in parentheses): utime is the 14th
    // field of the line, stime the 15th.
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some(utime + stime)
}

fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find_map(|l| {
                l.strip_prefix("VmHWM:")?.trim().trim_end_matches("kB").trim().parse().ok()
            })
        })
        .unwrap_or(0)
}

/// sysstat 12's extended keys, in its order.
const KEYS: [&str; 21] = [
    "r/s", "w/s", "d/s", "f/s", "rkB/s", "wkB/s", "dkB/s", "rrqm/s", "wrqm/s", "drqm/s", "rrqm",
    "wrqm", "drqm", "r_await", "w_await", "d_await", "f_await", "rareq-sz", "wareq-sz", "dareq-sz",
    "aqu-sz",
];

fn generate(path: &str, devices: usize, seconds: u64) -> Result<(), String> {
    let file = std::fs::File::create(path).map_err(|e| format!("{path}: {e}"))?;
    let mut w = BufWriter::new(file);
    write_document(&mut w, devices, seconds).map_err(|e| format!("{path}: {e}"))?;
    w.flush().map_err(|e| format!("{path}: {e}"))
}

fn write_document(w: &mut impl Write, devices: usize, seconds: u64) -> std::io::Result<()> {
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut rand = move || {
        // xorshift64*, in [0, 1).
        seed ^= seed >> 12;
        seed ^= seed << 25;
        seed ^= seed >> 27;
        (seed.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    };
    write!(
        w,
        "{{\"sysstat\": {{\n\t\"hosts\": [\n\t\t{{\n\t\t\t\"nodename\": \"vm\",\n\t\t\t\
         \"sysname\": \"Linux\",\n\t\t\t\"release\": \"6.8.0-azure\",\n\t\t\t\
         \"machine\": \"x86_64\",\n\t\t\t\"number-of-cpus\": 16,\n\t\t\t\
         \"date\": \"11/21/26\",\n\t\t\t\"statistics\": [\n"
    )?;
    for s in 0..seconds {
        let (h, m, sec) = (s / 3600 % 24, s / 60 % 60, s % 60);
        let idle = rand() * 100.0;
        write!(
            w,
            "\t\t\t\t{{\n\t\t\t\t\t\"timestamp\": \"11/21/26 {h:02}:{m:02}:{sec:02}\",\n\t\t\t\t\t\
             \"avg-cpu\":  {{\"user\": {:.2}, \"nice\": 0.00, \"system\": {:.2}, \
             \"iowait\": 0.00, \"steal\": 0.00, \"idle\": {idle:.2}}},\n\t\t\t\t\t\"disk\": [\n",
            (100.0 - idle) * 0.7,
            (100.0 - idle) * 0.3
        )?;
        for d in 0..devices {
            write!(w, "\t\t\t\t\t\t{{\"disk_device\": \"sd{}\"", device_letters(d))?;
            for k in KEYS {
                write!(w, ", \"{k}\": {:.2}", rand() * 5000.0)?;
            }
            write!(w, ", \"util\": {:.2}}}", rand() * 100.0)?;
            w.write_all(if d + 1 < devices { b",\n" } else { b"\n" })?;
        }
        w.write_all(b"\t\t\t\t\t]\n\t\t\t\t}")?;
        w.write_all(if s + 1 < seconds { b",\n" } else { b"\n" })?;
    }
    w.write_all(b"\t\t\t]\n\t\t}\n\t]\n}}\n")
}

/// `a`, ..., `z`, `aa`, `ab`, ... as the kernel names sd devices.
fn device_letters(mut i: usize) -> String {
    let mut s = Vec::new();
    loop {
        s.push(b'a' + (i % 26) as u8);
        if i < 26 {
            break;
        }
        i = i / 26 - 1;
    }
    s.reverse();
    String::from_utf8(s).unwrap_or_default()
}
