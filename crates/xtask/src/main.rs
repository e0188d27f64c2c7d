//! Developer tasks.
//!
//! - `cargo run -p xtask -- gen perfmon --disks 14 --mb 200 --out big.csv` (and `gen iostat`,
//!   `gen fio`, `gen diskspd`): large, realistic captures, deterministic (a fixed-seed
//!   generator, so two runs give the same bytes).
//! - `cargo run --profile bench-release -p xtask -- bench`: the speed and memory benchmark
//!   of docs/performance.md (inputs generated under /tmp when absent).
//! - `xtask rules FILE --topology T`: the rules' time rule by rule on one capture.
//! - `cargo run -p xtask -- catalog`: `crates/topology/catalog/vm_sizes.csv` and `disk_skus.csv`
//!   from the committed snapshot of Microsoft's size and disk pages (`--check` compares
//!   instead of writing).
//! - `cargo xtask dist`: the release archives (Linux glibc and static musl, Windows) and
//!   their SHA256SUMS, in `dist/`.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;
use clap::{Parser, Subcommand};

mod bench;
mod catalog;
mod child;
mod dist;
mod floor;
mod generate;

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
    /// Measure analyze on generated captures of every format against polars' bare read.
    Bench(Box<bench::BenchArgs>),
    /// (used by bench) Analyze one capture as `advisor analyze` does, timing each phase.
    #[command(hide = true)]
    Case {
        file: PathBuf,
        #[arg(long)]
        topology: Option<PathBuf>,
    },
    /// The rules' time rule by rule on one capture: each rule evaluated alone (median of
    /// `--reps` rounds), then all of them together, as the analysis runs them.
    Rules {
        file: PathBuf,
        #[arg(long)]
        topology: Option<PathBuf>,
        #[arg(long, default_value_t = 3)]
        reps: usize,
        /// Time only these rules alone (every rule is still timed together).
        #[arg(long = "rule")]
        only: Vec<String>,
    },
    /// (used by bench) Batch triage of a queue folder as `advisor batch` does.
    #[command(hide = true)]
    BatchCase {
        queue: PathBuf,
        #[arg(long)]
        jobs: usize,
        #[arg(long)]
        budget_mib: u64,
    },
    /// Build the built-in VM and disk catalog from the snapshot of Microsoft's pages.
    Catalog {
        /// Compare with the committed file instead of writing it.
        #[arg(long)]
        check: bool,
        /// Print nothing but errors.
        #[arg(long)]
        quiet: bool,
    },
    /// The release archives: `advisor-<version>-<target>.tar.gz|.zip` with the binary,
    /// README, LICENSE and the collectors, and SHA256SUMS.
    Dist(dist::DistArgs),
    /// (used by bench) polars' own read of a PerfMon CSV with advisor's schema.
    #[command(hide = true)]
    Floor { file: PathBuf },
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
        /// Also write the VM's topology (TOML) here.
        #[arg(long)]
        topology: Option<PathBuf>,
    },
    /// `iostat -xt 1` text (sysstat 12) of N devices.
    Iostat {
        #[arg(long, default_value_t = 32)]
        devices: usize,
        /// Reports (one a second); a day by default.
        #[arg(long, default_value_t = 86_400)]
        seconds: u64,
        /// Stop earlier once the file reaches this many MB.
        #[arg(long)]
        mb: Option<u64>,
        #[arg(long)]
        out: PathBuf,
    },
    /// fio 3.x json+ of N jobs without group_reporting.
    Fio {
        #[arg(long, default_value_t = 64)]
        jobs: usize,
        /// Histogram bins per direction and job (0: plain json).
        #[arg(long, default_value_t = 600)]
        bins: usize,
        #[arg(long)]
        out: PathBuf,
    },
    /// DiskSpd -Rxml -L -D: T threads on each of N targets, one IOPS bucket a second.
    Diskspd {
        #[arg(long, default_value_t = 16)]
        threads: usize,
        #[arg(long, default_value_t = 8)]
        targets: usize,
        #[arg(long, default_value_t = 900)]
        seconds: u64,
        #[arg(long)]
        out: PathBuf,
    },
}

fn main() -> Result<()> {
    let started = Instant::now();
    match Cli::parse().command {
        Cmd::Gen { what } => match what {
            Gen::Perfmon { disks, mb, out, topology } => {
                generate::perfmon(disks, mb, &out)?;
                if let Some(t) = topology {
                    generate::perfmon_topology(disks, &t)?;
                }
            }
            Gen::Iostat { devices, seconds, mb, out } => {
                generate::iostat(devices, seconds, mb, &out)?;
            }
            Gen::Fio { jobs, bins, out } => {
                generate::fio(jobs, bins, &out)?;
            }
            Gen::Diskspd { threads, targets, seconds, out } => {
                generate::diskspd(threads, targets, seconds, &out)?;
            }
        },
        Cmd::Bench(args) => bench::bench(&args)?,
        Cmd::Case { file, topology } => child::case(&file, topology.as_deref(), started)?,
        Cmd::Rules { file, topology, reps, only } => {
            child::rules(&file, topology.as_deref(), reps, &only)?;
        }
        Cmd::BatchCase { queue, jobs, budget_mib } => child::batch_case(&queue, jobs, budget_mib)?,
        Cmd::Floor { file } => floor::floor(&file, started)?,
        Cmd::Catalog { check, quiet } => catalog::run(check, quiet)?,
        Cmd::Dist(args) => dist::dist(&args)?,
    }
    Ok(())
}
