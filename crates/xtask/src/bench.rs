//! `xtask bench`: end-to-end speed and peak memory of `analyze` on generated captures of
//! every format, and the floor: polars' own CSV read of the same PerfMon file.
//!
//! Every measurement runs in a child process (this binary again, `case` or `floor`), so
//! that its peak RSS (`VmHWM` of `/proc/self/status`, read by the child just before it
//! exits) is its own. Each case runs `--reps` times; the table shows medians. The runs of
//! one case go round by round (advisor, the floor, the README's build, python), and a
//! ratio is the median of each round's ratio, not a ratio of medians taken minutes apart.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use crate::generate;

/// What `xtask bench` measures.
#[derive(Debug, clap::Args)]
pub(crate) struct BenchArgs {
    /// PerfMon CSV sizes in MB (10^6 bytes), at --disks data disks.
    #[arg(long, value_delimiter = ',', default_value = "100,500,1000,4000")]
    sizes: Vec<u64>,
    /// Data disks of the PerfMon captures (besides C: and D:).
    #[arg(long, default_value_t = 14)]
    disks: usize,
    /// Data-disk counts for the growth-with-disks table, each at --sweep-mb MB.
    #[arg(long, value_delimiter = ',', default_value = "2,14,30,62")]
    disk_sweep: Vec<usize>,
    #[arg(long, default_value_t = 200)]
    sweep_mb: u64,
    /// A very wide capture (thousands of columns, few samples), without a topology: the
    /// per-target costs, which were quadratic in the number of targets.
    #[arg(long, value_delimiter = ',', default_value = "700,2700")]
    wide_disks: Vec<usize>,
    #[arg(long, default_value_t = 10)]
    wide_mb: u64,
    /// iostat -xt devices and seconds (a day at 1 s by default).
    #[arg(long, default_value_t = 32)]
    iostat_devices: usize,
    #[arg(long, default_value_t = 86_400)]
    iostat_seconds: u64,
    /// fio jobs (no group_reporting).
    #[arg(long, default_value_t = 64)]
    fio_jobs: usize,
    /// DiskSpd threads per target, targets, and seconds of per-second IOPS buckets.
    #[arg(long, default_value_t = 16)]
    diskspd_threads: usize,
    #[arg(long, default_value_t = 8)]
    diskspd_targets: usize,
    #[arg(long, default_value_t = 900)]
    diskspd_seconds: u64,
    /// Batch triage: this many small captures (every other one a ticket folder with its
    /// topology), of --batch-kb KB each, analysed by `Session::batch` as `advisor batch` does.
    #[arg(long, default_value_t = 1000)]
    batch_inputs: usize,
    #[arg(long, default_value_t = 300)]
    batch_kb: u64,
    /// The batch's analyses at once (default: the CPUs) and memory budget in MiB.
    #[arg(long)]
    batch_jobs: Option<usize>,
    #[arg(long, default_value_t = 2048)]
    batch_budget_mib: u64,
    /// Runs per case; the median is shown.
    #[arg(long, default_value_t = 3)]
    reps: usize,
    /// Where the generated inputs are kept (generated when absent).
    #[arg(long, default_value = "/tmp/advisor-bench")]
    dir: PathBuf,
    /// Only the cases whose name contains one of these (perfmon, sweep, wide, iostat, fio,
    /// diskspd, batch).
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
    /// Also write the Markdown tables to this file.
    #[arg(long)]
    out: Option<PathBuf>,
    /// The README's build of advisor, run on each PerfMon case as a user runs it
    /// (`analyze FILE --topology T --format json`). Default: `cargo build --release -p
    /// advisor-cli` is run first and its binary used.
    #[arg(long)]
    advisor: Option<PathBuf>,
    /// A python with polars, whose `read_csv` of every column of each PerfMon case is the
    /// five-line script a user would write. Default: $HOME/.cache/advisor-polars-venv's
    /// python when present, else `python3`. Without polars the column is left empty.
    #[arg(long)]
    python: Option<PathBuf>,
}

/// A case: a capture and how it is analyzed.
struct Case {
    name: String,
    group: &'static str,
    file: PathBuf,
    topology: Option<PathBuf>,
    /// Disks or devices, for the table.
    width: usize,
    floor: bool,
}

pub(crate) fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    if v.is_empty() { f64::NAN } else { v[v.len() / 2] }
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".to_owned())
}

fn ensure(file: &Path, make: impl FnOnce(&Path) -> Result<u64>) -> Result<()> {
    if file.exists() {
        return Ok(());
    }
    let tmp = file.with_extension("partial");
    make(&tmp)?;
    std::fs::rename(&tmp, file)?;
    Ok(())
}

fn perfmon_case(dir: &Path, mb: u64, disks: usize, group: &'static str) -> Result<Case> {
    let file = dir.join(format!("perfmon_{disks}disks_{mb}mb.csv"));
    let topo = dir.join(format!("perfmon_{disks}disks.toml"));
    ensure(&file, |p| generate::perfmon(disks, mb, p))?;
    if !topo.exists() {
        generate::perfmon_topology(disks, &topo)?;
    }
    Ok(Case {
        name: format!("perfmon {mb} MB, {} disks", disks + 2),
        group,
        file,
        topology: Some(topo),
        width: disks + 2,
        floor: true,
    })
}

fn cases(a: &BenchArgs) -> Result<Vec<Case>> {
    std::fs::create_dir_all(&a.dir)?;
    let want = |g: &str| a.only.is_empty() || a.only.iter().any(|o| g.contains(o.as_str()));
    let mut out = Vec::new();
    if want("perfmon") {
        for &mb in &a.sizes {
            out.push(perfmon_case(&a.dir, mb, a.disks, "perfmon")?);
        }
    }
    if want("sweep") {
        for &d in &a.disk_sweep {
            out.push(perfmon_case(&a.dir, a.sweep_mb, d, "sweep")?);
        }
    }
    if want("wide") {
        for &d in &a.wide_disks {
            let mut c = perfmon_case(&a.dir, a.wide_mb, d, "wide")?;
            c.name = format!("perfmon {} MB, {} disks (wide)", a.wide_mb, d + 2);
            c.topology = None;
            out.push(c);
        }
    }
    if want("iostat") {
        let (n, s) = (a.iostat_devices, a.iostat_seconds);
        let file = a.dir.join(format!("iostat_xt_{n}dev_{s}s.txt"));
        ensure(&file, |p| generate::iostat(n, s, None, p))?;
        out.push(Case {
            name: format!("iostat -xt, {n} devices, {s} s"),
            group: "iostat",
            file,
            topology: None,
            width: n,
            floor: false,
        });
    }
    if want("fio") {
        let n = a.fio_jobs;
        let file = a.dir.join(format!("fio_{n}jobs.json"));
        ensure(&file, |p| generate::fio(n, 600, p))?;
        out.push(Case {
            name: format!("fio json+, {n} jobs"),
            group: "fio",
            file,
            topology: None,
            width: n,
            floor: false,
        });
    }
    if want("diskspd") {
        let (t, n, s) = (a.diskspd_threads, a.diskspd_targets, a.diskspd_seconds);
        let file = a.dir.join(format!("diskspd_{n}targets_{t}threads_{s}s.xml"));
        ensure(&file, |p| generate::diskspd(t, n, s, p))?;
        out.push(Case {
            name: format!("DiskSpd XML, {n} targets x {t} threads, {s} s"),
            group: "diskspd",
            file,
            topology: None,
            width: n * t,
            floor: false,
        });
    }
    Ok(out)
}

/// Runs this binary with `args`; returns its JSON line and its wall time.
fn child(args: &[&str]) -> Result<(Value, f64)> {
    let exe = std::env::current_exe()?;
    let t0 = Instant::now();
    let out = Command::new(&exe).args(args).output().context("run the child")?;
    let wall = t0.elapsed().as_secs_f64();
    if !out.status.success() {
        bail!(
            "{} {} failed: {}",
            exe.display(),
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().last().unwrap_or("{}");
    Ok((serde_json::from_str(line).with_context(|| format!("child said {line:?}"))?, wall))
}

fn num(v: &Value, k: &str) -> f64 {
    v.get(k).and_then(Value::as_f64).unwrap_or(f64::NAN)
}

/// Medians of each field over runs, plus the parent's wall time as `wall_s`.
fn run(args: &[&str], reps: usize) -> Result<Value> {
    let runs = (0..reps.max(1)).map(|_| run_once(args)).collect::<Result<Vec<_>>>()?;
    Ok(medians(&runs))
}

/// One child run, with the parent's wall time (less any time the child says was extra)
/// as `wall_s`.
fn run_once(args: &[&str]) -> Result<Value> {
    let (mut v, wall) = child(args)?;
    let extra = v.get("extra_s").and_then(Value::as_f64).unwrap_or(0.0);
    if let Some(o) = v.as_object_mut() {
        o.insert("wall_s".into(), json!(wall - extra));
    }
    Ok(v)
}

/// The median of each field over `runs`.
fn medians(runs: &[Value]) -> Value {
    let mut m = serde_json::Map::new();
    if let Some(first) = runs.first().and_then(Value::as_object) {
        for k in first.keys() {
            m.insert(k.clone(), json!(median(runs.iter().map(|r| num(r, k)).collect())));
        }
    }
    Value::Object(m)
}

/// The median over rounds of `a[i].ka / b[i].kb`: a ratio of two runs taken one after the
/// other, so a machine whose speed drifts slows both alike.
fn paired_ratio(a: &[Value], ka: &str, b: &[Value], kb: &str) -> f64 {
    median(a.iter().zip(b).map(|(x, y)| num(x, ka) / num(y, kb)).collect())
}

fn mb(bytes: f64) -> f64 {
    bytes / 1e6
}

pub(crate) fn bench(a: &BenchArgs) -> Result<()> {
    if cfg!(debug_assertions) {
        eprintln!(
            "warning: a debug build; measure with `cargo run --profile bench-release -p xtask -- bench`"
        );
    }
    let load_before = load();
    let cases = cases(a)?;
    let mut rows = Vec::new();
    let mut user = User::default();
    let mut user_rows = Vec::new();
    for c in &cases {
        let file = c.file.to_string_lossy().into_owned();
        let mut args = vec!["case", file.as_str()];
        let topo = c.topology.as_ref().map(|t| t.to_string_lossy().into_owned());
        if let Some(t) = &topo {
            args.extend(["--topology", t.as_str()]);
        }
        eprintln!("{}: {} runs ...", c.name, a.reps);
        // Round by round, each contender once a round (advisor, the floor, the README's
        // build, python), so the ratios compare runs taken minutes apart at most.
        let perfmon = c.group == "perfmon";
        let advisor = if perfmon { Some(user.advisor(a)?) } else { None };
        let python = if perfmon { user.python(a) } else { None };
        let (mut ours, mut floor, mut readme, mut py) = (vec![], vec![], vec![], vec![]);
        for _ in 0..a.reps.max(1) {
            ours.push(run_once(&args)?);
            if c.floor {
                floor.push(run_once(&["floor", file.as_str()])?);
            }
            if let Some(adv) = &advisor {
                readme.push(readme_build(adv, c)?);
                if let Some((p, _)) = &python {
                    py.push(python_read(p, &c.file)?);
                }
            }
        }
        let mut o = medians(&ours);
        let floor = (!floor.is_empty()).then(|| {
            let ratio = paired_ratio(&ours, "wall_s", &floor, "wall_s");
            if let Some(m) = o.as_object_mut() {
                m.insert("floor_ratio".into(), json!(ratio));
            }
            medians(&floor)
        });
        if perfmon {
            let mut r = medians(&readme);
            if !py.is_empty()
                && let Some(m) = r.as_object_mut()
            {
                m.insert(
                    "python_ratio".into(),
                    json!(paired_ratio(&readme, "wall_s", &py, "read_s")),
                );
            }
            user_rows.push((c, r, (!py.is_empty()).then(|| medians(&py))));
        }
        rows.push((c, o, floor));
    }
    let batch = if a.only.is_empty() || a.only.iter().any(|o| "batch".contains(o.as_str())) {
        let queue = batch_queue(a)?;
        let jobs = a
            .batch_jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
            .to_string();
        let budget = a.batch_budget_mib.to_string();
        let q = queue.to_string_lossy().into_owned();
        eprintln!("batch of {} inputs: {} runs ...", a.batch_inputs, a.reps);
        Some(run(&["batch-case", &q, "--jobs", &jobs, "--budget-mib", &budget], a.reps)?)
    } else {
        None
    };
    let load_after = load();

    let mut md = String::new();
    md.push_str(&format!(
        "Load average (1, 5, 15 min) before: {load_before}; after: {load_after}. CPUs: {}. Medians of {} runs.\n\n",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        a.reps
    ));
    if !rows.is_empty() {
        md.push_str("| case | file MB | end to end s | MB/s | read s | reader MB/s | read CPU s (cores) | setup s | analysis s (share) | analysis CPU s (cores) | rules s (share) | summaries s | charts s | render s | peak RSS MB | RSS / file | polars floor s | floor RSS MB | ratio to floor |\n");
        md.push_str(
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
        );
        for (c, o, f) in &rows {
            let bytes = num(o, "bytes");
            let wall = num(o, "wall_s");
            let read = num(o, "read_s");
            let analysis = num(o, "analysis_s");
            let rss = num(o, "hwm_kib") * 1024.0;
            let (fs, frss, ratio) = match f {
                Some(f) => (
                    format!("{:.2}", num(f, "wall_s")),
                    format!("{:.0}", mb(num(f, "hwm_kib") * 1024.0)),
                    format!("**{:.2}x**", num(o, "floor_ratio")),
                ),
                None => ("".into(), "".into(), "".into()),
            };
            md.push_str(&format!(
                "| {} | {:.0} | {:.2} | {:.0} | {:.3} | {:.0} | {:.2} ({:.1}) | {:.3} | {:.3} ({:.1}%) | {:.2} ({:.1}) | {:.3} ({:.1}%) | {:.3} | {:.3} | {:.3} | {:.0} | {:.2} | {fs} | {frss} | {ratio} |\n",
                c.name,
                mb(bytes),
                wall,
                mb(bytes) / wall,
                read,
                mb(bytes) / read,
                num(o, "read_cpu_s"),
                num(o, "read_cpu_s") / read,
                num(o, "setup_s"),
                analysis,
                100.0 * analysis / wall,
                num(o, "analysis_cpu_s"),
                num(o, "analysis_cpu_s") / analysis,
                num(o, "rules_s"),
                100.0 * num(o, "rules_s") / wall,
                num(o, "summaries_s"),
                num(o, "charts_s"),
                num(o, "render_s"),
                mb(rss),
                rss / bytes,
            ));
            let _ = (c.group, c.width);
        }
    }
    if !user_rows.is_empty() {
        md.push_str(&user_table(&user, &user_rows));
    }
    if let Some(b) = &batch {
        md.push_str("\n| batch triage | inputs | MB in all | jobs | budget MiB | seconds | captures/s | analysed | peak RSS MB |\n");
        md.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        md.push_str(&format!(
            "| {} PerfMon captures of {} KB (half as ticket folders with a topology), md + json reports | {} | {:.0} | {} | {} | {:.2} | {:.0} | {} | {:.0} |\n",
            a.batch_inputs,
            a.batch_kb,
            a.batch_inputs,
            mb(num(b, "bytes")),
            num(b, "jobs"),
            a.batch_budget_mib,
            num(b, "wall_s"),
            a.batch_inputs as f64 / num(b, "wall_s"),
            num(b, "analyzed"),
            mb(num(b, "hwm_kib") * 1024.0),
        ));
    }
    println!("{md}");
    if let Some(p) = &a.out {
        std::fs::write(p, &md)?;
        eprintln!("wrote {}", p.display());
    }
    Ok(())
}

/// The README's build and python polars, found once.
#[derive(Default)]
struct User {
    advisor: Option<PathBuf>,
    /// The python and its polars version; `Some(None)` once looked for and not found.
    python: Option<Option<(PathBuf, String)>>,
}

impl User {
    /// The README's build: `--advisor`, or `cargo build --release -p advisor-cli` run now.
    fn advisor(&mut self, a: &BenchArgs) -> Result<PathBuf> {
        if let Some(p) = &self.advisor {
            return Ok(p.clone());
        }
        let path = match &a.advisor {
            Some(p) => p.clone(),
            None => {
                eprintln!("building the README's binary: cargo build --release -p advisor-cli ...");
                let status =
                    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
                        .args(["build", "--release", "--locked", "-p", "advisor-cli"])
                        .status()
                        .context("run cargo")?;
                if !status.success() {
                    bail!("cargo build --release -p advisor-cli failed");
                }
                let target = std::env::var_os("CARGO_TARGET_DIR")
                    .map_or_else(|| PathBuf::from("target"), PathBuf::from);
                target.join("release").join("advisor")
            }
        };
        if !path.is_file() {
            bail!(
                "{}: no such binary (build it with `cargo build --release -p advisor-cli`, or pass --advisor)",
                path.display()
            );
        }
        self.advisor = Some(path.clone());
        Ok(path)
    }

    /// A python that imports polars, and polars' version.
    fn python(&mut self, a: &BenchArgs) -> Option<(PathBuf, String)> {
        if let Some(found) = &self.python {
            return found.clone();
        }
        let venv = std::env::var_os("HOME")
            .map(|h| PathBuf::from(h).join(".cache/advisor-polars-venv/bin/python"));
        let py = a
            .python
            .clone()
            .or_else(|| venv.filter(|p| p.is_file()))
            .unwrap_or_else(|| "python3".into());
        let version = Command::new(&py)
            .args(["-c", "import polars; print(polars.__version__)"])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned());
        if version.is_none() {
            eprintln!(
                "{}: no polars; the python column stays empty (python3 -m venv ~/.cache/advisor-polars-venv && ~/.cache/advisor-polars-venv/bin/pip install polars)",
                py.display()
            );
        }
        let found = version.map(|v| (py, v));
        self.python = Some(found.clone());
        found
    }
}

/// `advisor analyze FILE --topology T --format json` as a user runs it, the report thrown
/// away: wall time and peak RSS (GNU time's `%M`).
fn readme_build(advisor: &Path, c: &Case) -> Result<Value> {
    let mut cmd = Command::new("/usr/bin/time");
    cmd.args(["-f", "%e %M"]).arg(advisor).arg("analyze").arg(&c.file);
    if let Some(t) = &c.topology {
        cmd.arg("--topology").arg(t);
    }
    cmd.args(["--format", "json"]).stdout(std::process::Stdio::null());
    let t0 = Instant::now();
    let out = cmd.output().context("run /usr/bin/time (Debian package `time`)")?;
    let wall = t0.elapsed().as_secs_f64();
    let err = String::from_utf8_lossy(&out.stderr);
    // `analyze` exits 0, or 1 when --fail-on is met; GNU time's line is the last.
    let last = err.lines().last().unwrap_or("");
    let kib: f64 = last
        .split_whitespace()
        .nth(1)
        .and_then(|k| k.parse().ok())
        .with_context(|| format!("advisor analyze {}: {err}", c.file.display()))?;
    Ok(json!({ "wall_s": wall, "hwm_kib": kib }))
}

/// python polars' `read_csv` of the whole file (every column, types inferred): the time
/// of the call, the process's wall time and its peak RSS.
fn python_read(py: &Path, file: &Path) -> Result<Value> {
    const SCRIPT: &str = "import json, resource, sys, time\nt0 = time.perf_counter()\nimport polars as pl\nt = time.perf_counter()\ndf = pl.read_csv(sys.argv[1])\nread = time.perf_counter() - t\nprint(json.dumps({'read_s': read, 'rows': df.height, 'columns': df.width, 'hwm_kib': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))\n";
    let t0 = Instant::now();
    let out = Command::new(py).args(["-c", SCRIPT]).arg(file).output().context("run python")?;
    let wall = t0.elapsed().as_secs_f64();
    if !out.status.success() {
        bail!(
            "python polars read_csv {}: {}",
            file.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut v: Value = serde_json::from_str(text.lines().last().unwrap_or("{}"))?;
    if let Some(o) = v.as_object_mut() {
        o.insert("wall_s".into(), json!(wall));
    }
    Ok(v)
}

/// The table of what a user runs: the README's build against python polars' read.
fn user_table(user: &User, rows: &[(&Case, Value, Option<Value>)]) -> String {
    let version =
        user.python.clone().flatten().map_or_else(|| "not installed".to_owned(), |(_, v)| v);
    let mut md = format!(
        "\n| case (what a user runs) | file MB | README build: `advisor analyze --format json` s | its peak RSS MB | RSS / file | python polars {version} `read_csv` s | python process s | python peak RSS MB | README build / `read_csv` |\n"
    );
    md.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (c, r, p) in rows {
        let bytes = std::fs::metadata(&c.file).map_or(f64::NAN, |m| m.len() as f64);
        let wall = num(r, "wall_s");
        let rss = num(r, "hwm_kib") * 1024.0;
        let (ps, pw, prss, ratio) = match p {
            Some(p) => (
                format!("{:.2}", num(p, "read_s")),
                format!("{:.2}", num(p, "wall_s")),
                format!("{:.0}", mb(num(p, "hwm_kib") * 1024.0)),
                format!("**{:.2}x**", num(r, "python_ratio")),
            ),
            None => (String::new(), String::new(), String::new(), String::new()),
        };
        md.push_str(&format!(
            "| {} | {:.0} | {:.2} | {:.0} | {:.2} | {ps} | {pw} | {prss} | {ratio} |\n",
            c.name,
            mb(bytes),
            wall,
            mb(rss),
            rss / bytes,
        ));
    }
    md
}

/// The batch case's queue: `inputs` small PerfMon captures of 4 disks, each with its own
/// seed; every odd one is a ticket folder with the capture and a DS13_v2 topology.
fn batch_queue(a: &BenchArgs) -> Result<PathBuf> {
    let queue = a.dir.join(format!("batch_{}x{}kb", a.batch_inputs, a.batch_kb));
    let done = queue.join(".complete");
    if done.exists() {
        return Ok(queue);
    }
    std::fs::create_dir_all(&queue)?;
    let topology = "[vm]\nsize = \"Standard_DS13_v2\"\ntemp_disk = \"D:\"\n\n\
                    [[disk]]\nname = \"C:\"\nsku = \"P10\"\ncache = \"ReadWrite\"\nrole = \"os\"\n\n\
                    [[disk]]\nname = \"E:\"\nsku = \"P30\"\ncache = \"ReadOnly\"\nrole = \"data\"\n\n\
                    [[disk]]\nname = \"F:\"\nsku = \"P30\"\ncache = \"None\"\nrole = \"log\"\n";
    for i in 0..a.batch_inputs {
        let seed = 0xBA7C_0000_0000 + i as u64;
        let limit = a.batch_kb * 1000;
        if i % 2 == 1 {
            let ticket = queue.join(format!("ticket-{i:05}"));
            std::fs::create_dir_all(&ticket)?;
            generate::perfmon_bytes(2, limit, seed, &ticket.join("perfmon.csv"))?;
            std::fs::write(ticket.join("topology.toml"), topology)?;
        } else {
            generate::perfmon_bytes(2, limit, seed, &queue.join(format!("capture-{i:05}.csv")))?;
        }
    }
    std::fs::write(&done, b"")?;
    eprintln!("wrote {} inputs under {}", a.batch_inputs, queue.display());
    Ok(queue)
}
