//! `cargo run -p xtask -- gen perfmon --disks 16 --mb 200 --out big.csv`
//!
//! Writes large, realistic captures for benchmarks: deterministic (a fixed-seed generator),
//! so two runs give the same bytes.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Debug, Subcommand)]
enum Cmd {
    /// Generate a capture.
    Gen {
        #[command(subcommand)]
        what: Gen,
    },
}

#[derive(Debug, Subcommand)]
enum Gen {
    /// A PerfMon CSV at 1 s: N PhysicalDisk instances with the 11 disk counters, their
    /// LogicalDisk twins, Processor(_Total) and Memory, as typeperf writes it.
    Perfmon {
        /// Data disks besides C: (OS) and D: (temp).
        #[arg(long, default_value_t = 14)]
        disks: usize,
        /// Stop once the file reaches this many MB (10^6 bytes).
        #[arg(long, default_value_t = 200)]
        mb: u64,
        #[arg(long)]
        out: PathBuf,
    },
}

/// xorshift64*: small, fast, deterministic.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }
    fn around(&mut self, centre: f64, spread: f64) -> f64 {
        (centre * (1.0 + spread * (self.next() * 2.0 - 1.0))).max(0.0)
    }
}

const DISK_COUNTERS: [&str; 11] = [
    "Disk Reads/sec",
    "Disk Writes/sec",
    "Disk Read Bytes/sec",
    "Disk Write Bytes/sec",
    "Avg. Disk sec/Read",
    "Avg. Disk sec/Write",
    "Avg. Disk Bytes/Read",
    "Avg. Disk Bytes/Write",
    "Avg. Disk Queue Length",
    "Current Disk Queue Length",
    "% Idle Time",
];

fn drive_letter(i: usize) -> String {
    // C: OS, D: temp, then E: ... Z:, then mount-point style names.
    match u8::try_from(b'C' as usize + i) {
        Ok(c) if c <= b'Z' => format!("{}:", c as char),
        _ => format!("M{i}:"),
    }
}

fn perfmon(disks: usize, mb: u64, out: PathBuf) -> Result<()> {
    let host = "\\\\SQLVM01";
    let total = disks + 2;
    let mut w = BufWriter::with_capacity(
        1 << 20,
        File::create(&out).with_context(|| format!("create {}", out.display()))?,
    );
    let mut header = String::from("\"(PDH-CSV 4.0) (Eastern Daylight Time)(240)\"");
    for i in 0..total {
        for c in DISK_COUNTERS {
            header.push_str(&format!(",\"{host}\\PhysicalDisk({i} {})\\{c}\"", drive_letter(i)));
        }
    }
    for i in 0..total {
        for c in DISK_COUNTERS {
            header.push_str(&format!(",\"{host}\\LogicalDisk({})\\{c}\"", drive_letter(i)));
        }
    }
    header.push_str(&format!(
        ",\"{host}\\Processor(_Total)\\% Processor Time\",\"{host}\\Memory\\Available MBytes\"\r\n"
    ));
    w.write_all(header.as_bytes())?;
    let mut written = header.len() as u64;
    let limit = mb * 1_000_000;
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let start = chrono::NaiveDate::from_ymd_opt(2026, 11, 2)
        .and_then(|d| d.and_hms_milli_opt(8, 0, 0, 417))
        .context("start time")?;
    let mut row = String::with_capacity(header.len() * 2);
    let mut t = 0i64;
    while written < limit {
        row.clear();
        let ts = start + chrono::Duration::seconds(t);
        row.push_str(&format!("\"{}\"", ts.format("%m/%d/%Y %H:%M:%S%.3f")));
        let mut values = Vec::with_capacity(total * 11);
        for i in 0..total {
            // Data disks near a P30's cap (5,000 IOPS / 200 MB/s) in busy hours, the temp disk
            // busy, the OS disk quiet.
            let (iops, size) = match i {
                0 => (rng.around(60.0, 0.5), 16384.0),
                1 => (rng.around(1800.0, 0.3), 131072.0),
                _ => (rng.around(4200.0, 0.2), 8192.0 * (1.0 + (i % 3) as f64)),
            };
            let reads = iops * 0.7;
            let writes = iops - reads;
            let lat_r = rng.around(0.0021, 0.4);
            let lat_w = rng.around(0.0028, 0.4);
            let qd = reads * lat_r + writes * lat_w;
            let idle = (100.0 - qd * 30.0).clamp(0.0, 100.0);
            values.extend_from_slice(&[
                reads,
                writes,
                reads * size,
                writes * size,
                lat_r,
                lat_w,
                size,
                size,
                qd,
                qd.round(),
                idle,
            ]);
        }
        for v in values.iter().chain(values.iter()) {
            row.push_str(&format!(",\"{v:.15}\""));
        }
        row.push_str(&format!(",\"{:.15}\",\"{}\"\r\n", rng.around(55.0, 0.5), 20000 + (t % 500)));
        w.write_all(row.as_bytes())?;
        written += row.len() as u64;
        t += 1;
    }
    w.flush()?;
    eprintln!("wrote {} ({} bytes, {} samples, {} disks)", out.display(), written, t, total);
    Ok(())
}

fn main() -> Result<()> {
    match Cli::parse().command {
        Cmd::Gen { what: Gen::Perfmon { disks, mb, out } } => perfmon(disks, mb, out),
    }
}
