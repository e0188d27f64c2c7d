//! Generators of large, realistic captures. Deterministic: a fixed-seed generator, so two
//! runs give the same bytes.

use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::{Context, Result};
use chrono::NaiveDateTime;

/// xorshift64*: small, fast, deterministic.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Self(seed.max(1))
    }
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

fn create(out: &Path) -> Result<BufWriter<File>> {
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("create {}", dir.display()))?;
    }
    Ok(BufWriter::with_capacity(
        1 << 20,
        File::create(out).with_context(|| format!("create {}", out.display()))?,
    ))
}

fn start_time() -> Result<NaiveDateTime> {
    chrono::NaiveDate::from_ymd_opt(2026, 11, 2)
        .and_then(|d| d.and_hms_milli_opt(8, 0, 0, 417))
        .context("start time")
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

/// The volume name of disk `i`: C: (OS), D: (temp), then E: ... Z:, then mount-point style.
pub(crate) fn drive_letter(i: usize) -> String {
    match u8::try_from(b'C' as usize + i) {
        Ok(c) if c <= b'Z' => format!("{}:", c as char),
        _ => format!("M{i}:"),
    }
}

/// A PerfMon CSV at 1 s as typeperf writes it: `disks + 2` PhysicalDisk instances (C: OS,
/// D: temp, the data disks) with the 11 disk counters, their LogicalDisk twins,
/// Processor(_Total) and Memory; stops once the file reaches `mb` MB (10^6 bytes).
pub(crate) fn perfmon(disks: usize, mb: u64, out: &Path) -> Result<u64> {
    let (written, samples) = perfmon_bytes(disks, mb * 1_000_000, 0x9E37_79B9_7F4A_7C15, out)?;
    eprintln!("wrote {} ({written} bytes, {samples} samples, {} disks)", out.display(), disks + 2);
    Ok(written)
}

/// [`perfmon`] to a size in bytes, from a seed of the caller's (each of a batch's small
/// captures has its own); gives back the bytes and samples written.
pub(crate) fn perfmon_bytes(disks: usize, limit: u64, seed: u64, out: &Path) -> Result<(u64, i64)> {
    let host = "\\\\SQLVM01";
    let total = disks + 2;
    let mut w = create(out)?;
    let mut header = String::from("\"(PDH-CSV 4.0) (Eastern Daylight Time)(240)\"");
    for i in 0..total {
        for c in DISK_COUNTERS {
            write!(header, ",\"{host}\\PhysicalDisk({i} {})\\{c}\"", drive_letter(i))?;
        }
    }
    for i in 0..total {
        for c in DISK_COUNTERS {
            write!(header, ",\"{host}\\LogicalDisk({})\\{c}\"", drive_letter(i))?;
        }
    }
    write!(
        header,
        ",\"{host}\\Processor(_Total)\\% Processor Time\",\"{host}\\Memory\\Available MBytes\"\r\n"
    )?;
    w.write_all(header.as_bytes())?;
    let mut written = header.len() as u64;
    let mut rng = Rng::new(seed);
    let start = start_time()?;
    let mut row = String::with_capacity(header.len() * 2);
    let mut values = Vec::with_capacity(total * 11);
    let mut t = 0i64;
    while written < limit {
        row.clear();
        values.clear();
        let ts = start + chrono::Duration::seconds(t);
        write!(row, "\"{}\"", ts.format("%m/%d/%Y %H:%M:%S%.3f"))?;
        for i in 0..total {
            // Data disks near a P30's cap (5,000 IOPS / 200 MB/s) in busy hours, the temp
            // disk busy, the OS disk quiet.
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
            write!(row, ",\"{v:.15}\"")?;
        }
        write!(row, ",\"{:.15}\",\"{}\"\r\n", rng.around(55.0, 0.5), 20000 + (t % 500))?;
        w.write_all(row.as_bytes())?;
        written += row.len() as u64;
        t += 1;
    }
    w.flush()?;
    Ok((written, t))
}

/// The topology of [`perfmon`]'s VM: a Standard_DS15_v2 (up to 64 data disks), C: a
/// ReadWrite P10, D: the temp disk, the data disks P30, the first half ReadOnly-cached and
/// the rest uncached, so every family of rules has something to look at.
pub(crate) fn perfmon_topology(disks: usize, out: &Path) -> Result<()> {
    let mut s = String::from(
        "# Written by `xtask gen perfmon --topology`: the VM of the generated capture.\n\
         [vm]\nsize = \"Standard_DS15_v2\"\ntemp_disk = \"D:\"\n\n\
         [[disk]]\nname = \"C:\"\nsku = \"P10\"\ncache = \"ReadWrite\"\nrole = \"os\"\n",
    );
    for i in 2..disks + 2 {
        let cache = if i - 2 < disks / 2 { "ReadOnly" } else { "None" };
        write!(
            s,
            "\n[[disk]]\nname = \"{}\"\nsku = \"P30\"\ncache = \"{cache}\"\nrole = \"data\"\n",
            drive_letter(i)
        )?;
    }
    let mut w = create(out)?;
    w.write_all(s.as_bytes())?;
    w.flush()?;
    Ok(())
}

/// Device names as the kernel gives them: sda ... sdz, sdaa ...
fn device_name(i: usize) -> String {
    let mut name = String::from("sd");
    if i >= 26 {
        name.push((b'a' + (i / 26 - 1) as u8) as char);
    }
    name.push((b'a' + (i % 26) as u8) as char);
    name
}

/// `iostat -xt 1` text of sysstat 12 (the layout with discard and flush columns):
/// `devices` devices, one report a second for `seconds` seconds (or until `mb` MB).
pub(crate) fn iostat(devices: usize, seconds: u64, mb: Option<u64>, out: &Path) -> Result<u64> {
    let mut w = create(out)?;
    let banner = "Linux 5.15.0-1057-azure (sqlvm01) \t11/02/26 \t_x86_64_\t(16 CPU)\n\n";
    w.write_all(banner.as_bytes())?;
    let mut written = banner.len() as u64;
    let limit = mb.map_or(u64::MAX, |m| m * 1_000_000);
    let header = "Device            r/s     rkB/s   rrqm/s  %rrqm r_await rareq-sz     w/s     wkB/s   wrqm/s  %wrqm w_await wareq-sz     d/s     dkB/s   drqm/s  %drqm d_await dareq-sz     f/s f_await  aqu-sz  %util\n";
    let mut rng = Rng::new(0x5DEE_CE66_D1CE_4E5B);
    let start = start_time()?;
    let mut block = String::with_capacity(devices * 220 + 512);
    let mut t = 0u64;
    while t < seconds && written < limit {
        block.clear();
        let ts = start + chrono::Duration::seconds(t as i64);
        writeln!(block, "{}", ts.format("%m/%d/%y %H:%M:%S"))?;
        block.push_str("avg-cpu:  %user   %nice %system %iowait  %steal   %idle\n");
        let user = rng.around(40.0, 0.5);
        let sys = rng.around(15.0, 0.5);
        let iowait = rng.around(3.0, 0.9);
        let idle = (100.0 - user - sys - iowait).max(0.0);
        writeln!(block, "{user:15.2}{:8.2}{sys:8.2}{iowait:8.2}{:8.2}{idle:8.2}\n", 0.0, 0.0)?;
        block.push_str(header);
        for d in 0..devices {
            // sda the OS disk (quiet), sdb the temp disk, the rest data disks near a P30's cap.
            let (iops, kib) = match d {
                0 => (rng.around(40.0, 0.5), 16.0),
                1 => (rng.around(1500.0, 0.3), 128.0),
                _ => (rng.around(4200.0, 0.2), 8.0 * (1.0 + (d % 3) as f64)),
            };
            let r = iops * 0.7;
            let wr = iops - r;
            let r_await = rng.around(2.1, 0.4);
            let w_await = rng.around(2.8, 0.4);
            let aqu = (r * r_await + wr * w_await) / 1000.0;
            let util = (aqu * 30.0).min(100.0);
            let f = rng.around(15.0, 0.5);
            writeln!(
                block,
                "{:<13}{r:9.2}{:10.2}{:9.2}{:7.2}{r_await:8.2}{kib:9.2}{wr:8.2}{:10.2}{:9.2}{:7.2}{w_await:8.2}{kib:9.2}{:8.2}{:10.2}{:9.2}{:7.2}{:8.2}{:9.2}{f:8.2}{:8.2}{aqu:8.2}{util:7.2}",
                device_name(d),
                r * kib,
                rng.around(2.0, 1.0),
                rng.around(1.0, 1.0),
                wr * kib,
                rng.around(5.0, 1.0),
                rng.around(3.0, 1.0),
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
                rng.around(0.1, 0.5),
            )?;
        }
        block.push_str("\n\n");
        w.write_all(block.as_bytes())?;
        written += block.len() as u64;
        t += 1;
    }
    w.flush()?;
    eprintln!("wrote {} ({} bytes, {} reports, {} devices)", out.display(), written, t, devices);
    Ok(written)
}

/// fio 3.x JSON (`--output-format=json+`) of `jobs` jobs without group_reporting: one
/// entry per job, each on one of 16 files, with clat percentiles and `bins` latency
/// histograms (`bins` buckets per direction).
pub(crate) fn fio(jobs: usize, bins: usize, out: &Path) -> Result<u64> {
    use serde_json::{Map, Value, json};
    let mut rng = Rng::new(0xF10_F10_F10);
    let pcts = [
        "1.000000",
        "5.000000",
        "10.000000",
        "20.000000",
        "30.000000",
        "40.000000",
        "50.000000",
        "60.000000",
        "70.000000",
        "80.000000",
        "90.000000",
        "95.000000",
        "99.000000",
        "99.500000",
        "99.900000",
        "99.950000",
        "99.990000",
    ];
    let dir = |rng: &mut Rng, iops: f64, bs: f64, lat_us: f64| -> Value {
        let runtime = 600_000u64;
        let ios = (iops * runtime as f64 / 1000.0).round() as u64;
        let mut percentile = Map::new();
        let mut v = lat_us * 200.0;
        for p in pcts {
            v *= rng.around(1.25, 0.1);
            percentile.insert(p.to_owned(), json!(v.round() as u64));
        }
        let mut bin_map = Map::new();
        let mut at = lat_us * 100.0;
        for _ in 0..bins {
            at *= rng.around(1.02, 0.01);
            bin_map.insert(format!("{}", at.round() as u64), json!((rng.next() * 500.0) as u64));
        }
        let stat = |mean: f64| {
            json!({"min": (mean * 0.1) as u64, "max": (mean * 40.0) as u64, "mean": mean,
                   "stddev": mean * 0.8, "N": ios})
        };
        let mut clat = stat(lat_us * 1000.0);
        if let Some(o) = clat.as_object_mut() {
            o.insert("percentile".into(), Value::Object(percentile));
            if bins > 0 {
                o.insert("bins".into(), Value::Object(bin_map));
            }
        }
        json!({
            "io_bytes": (ios as f64 * bs) as u64, "io_kbytes": (ios as f64 * bs / 1024.0) as u64,
            "bw_bytes": (iops * bs) as u64, "bw": (iops * bs / 1024.0) as u64, "iops": iops,
            "runtime": runtime, "total_ios": ios, "short_ios": 0, "drop_ios": 0,
            "slat_ns": stat(lat_us * 40.0), "clat_ns": clat, "lat_ns": stat(lat_us * 1040.0),
            "bw_min": 1000, "bw_max": 90000, "bw_agg": 6.25, "bw_mean": iops * bs / 1024.0,
            "bw_dev": 100.0, "bw_samples": 1200, "iops_min": (iops * 0.5) as u64,
            "iops_max": (iops * 1.5) as u64, "iops_mean": iops, "iops_stddev": iops * 0.1,
            "iops_samples": 1200
        })
    };
    let zero = json!({"io_bytes": 0, "io_kbytes": 0, "bw_bytes": 0, "bw": 0, "iops": 0.0,
        "runtime": 0, "total_ios": 0, "short_ios": 0, "drop_ios": 0,
        "slat_ns": {"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0},
        "clat_ns": {"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0},
        "lat_ns": {"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0},
        "bw_min": 0, "bw_max": 0, "bw_agg": 0.0, "bw_mean": 0.0, "bw_dev": 0.0, "bw_samples": 0,
        "iops_min": 0, "iops_max": 0, "iops_mean": 0.0, "iops_stddev": 0.0, "iops_samples": 0});
    let mut list = Vec::with_capacity(jobs);
    for j in 0..jobs {
        let bs = [4096.0, 8192.0, 65536.0, 262_144.0][j % 4];
        let depth = [1, 8, 32, 64][(j / 4) % 4];
        let file = format!("/mnt/data{}/fio_job{}.dat", j % 16, j);
        let iops = rng.around(5000.0 * 8192.0 / bs, 0.3);
        let name = format!("job{j}-{}k-qd{depth}", bs as u64 / 1024);
        list.push(json!({
            "jobname": name, "groupid": j, "error": 0, "eta": 0, "elapsed": 601,
            "job options": {"name": name, "filename": file, "size": "16G", "rw": "randrw",
                "rwmixread": "70", "bs": format!("{}k", bs as u64 / 1024),
                "iodepth": depth.to_string(), "ioengine": "libaio", "direct": "1",
                "runtime": "600", "time_based": ""},
            "read": dir(&mut rng, iops * 0.7, bs, 2100.0),
            "write": dir(&mut rng, iops * 0.3, bs, 2800.0),
            "trim": zero.clone(),
            "sync": {"total_ios": 0, "lat_ns": {"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0}},
            "job_runtime": 600_000, "usr_cpu": rng.around(3.0, 0.5), "sys_cpu": rng.around(15.0, 0.5),
            "ctx": 150_000, "majf": 0, "minf": 14,
            "iodepth_level": {"1": 0.1, "2": 0.1, "4": 0.1, "8": 0.1, "16": 0.1, "32": 99.5, ">=64": 0.0},
            "latency_depth": depth, "latency_target": 0, "latency_percentile": 100.0, "latency_window": 0
        }));
    }
    let disk_util: Vec<Value> = (0..16)
        .map(|d| {
            json!({"name": device_name(d + 2), "read_ios": 2_000_000, "write_ios": 900_000,
                   "read_merges": 0, "write_merges": 0, "read_ticks": 4_000_000,
                   "write_ticks": 2_500_000, "in_queue": 6_500_000, "util": rng.around(90.0, 0.1)})
        })
        .collect();
    let doc = json!({
        "fio version": "fio-3.36", "timestamp": 1_793_606_400u64, "timestamp_ms": 1_793_606_400_000u64,
        "time": "Mon Nov  2 08:00:00 2026",
        "global options": {"ioengine": "libaio", "direct": "1", "runtime": "600", "time_based": ""},
        "jobs": list, "disk_util": disk_util
    });
    let text = serde_json::to_string_pretty(&doc)?;
    let mut w = create(out)?;
    w.write_all(text.as_bytes())?;
    w.write_all(b"\n")?;
    w.flush()?;
    eprintln!("wrote {} ({} bytes, {} jobs)", out.display(), text.len() + 1, jobs);
    Ok(text.len() as u64 + 1)
}

/// DiskSpd 2.2 `-Rxml -L -D` of `targets` targets with `threads` threads each (`-t`), a
/// run of `seconds` seconds: every thread's target carries one `<Iops>` bucket a second.
pub(crate) fn diskspd(threads: usize, targets: usize, seconds: u64, out: &Path) -> Result<u64> {
    let mut rng = Rng::new(0xD15C_5BD0);
    let mut s = String::with_capacity(1 << 20);
    let mut w = create(out)?;
    let mut written = 0u64;
    let mut flush = |s: &mut String, w: &mut BufWriter<File>| -> Result<()> {
        w.write_all(s.as_bytes())?;
        written += s.len() as u64;
        s.clear();
        Ok(())
    };
    s.push_str(
        "<Results>\n  <System>\n    <ComputerName>SQLVM01</ComputerName>\n    <Tool>\n      <Version>2.2.0</Version>\n      <VersionDate>2024/6/3</VersionDate>\n    </Tool>\n    <RunTime>2026/11/02 08:00:00 UTC</RunTime>\n    <PowerScheme Name=\"<unknown>\" Guid=\"\"/>\n  </System>\n  <Profile>\n    <Progress>0</Progress>\n    <ResultFormat>xml</ResultFormat>\n    <Verbose>false</Verbose>\n    <TimeSpans>\n      <TimeSpan>\n        <CompletionRoutines>false</CompletionRoutines>\n        <MeasureLatency>true</MeasureLatency>\n        <CalculateIopsStdDev>true</CalculateIopsStdDev>\n        <DisableAffinity>false</DisableAffinity>\n",
    );
    writeln!(s, "        <Duration>{seconds}</Duration>")?;
    s.push_str("        <Warmup>5</Warmup>\n        <Cooldown>0</Cooldown>\n        <ThreadCount>0</ThreadCount>\n        <RequestCount>0</RequestCount>\n        <IoBucketDuration>1000</IoBucketDuration>\n        <RandSeed>0</RandSeed>\n        <Targets>\n");
    let path = |t: usize| format!("{}\\diskspd\\target{t}.dat", drive_letter(t + 2));
    for t in 0..targets {
        write!(
            s,
            "          <Target>\n            <Path>{}</Path>\n            <BlockSize>8192</BlockSize>\n            <BaseFileOffset>0</BaseFileOffset>\n            <SequentialScan>false</SequentialScan>\n            <RandomAccess>false</RandomAccess>\n            <TemporaryFile>false</TemporaryFile>\n            <UseLargePages>false</UseLargePages>\n            <DisableOSCache>true</DisableOSCache>\n            <WriteThrough>true</WriteThrough>\n            <WriteBufferContent>\n              <Pattern>sequential</Pattern>\n            </WriteBufferContent>\n            <ParallelAsyncIO>false</ParallelAsyncIO>\n            <FileSize>68719476736</FileSize>\n            <Random>8192</Random>\n            <ThreadStride>0</ThreadStride>\n            <MaxFileSize>0</MaxFileSize>\n            <RequestCount>32</RequestCount>\n            <WriteRatio>30</WriteRatio>\n            <Throughput>0</Throughput>\n            <ThreadsPerFile>{threads}</ThreadsPerFile>\n            <IOPriority>3</IOPriority>\n            <Weight>1</Weight>\n          </Target>\n",
            path(t)
        )?;
    }
    s.push_str(
        "        </Targets>\n      </TimeSpan>\n    </TimeSpans>\n  </Profile>\n  <TimeSpan>\n",
    );
    writeln!(
        s,
        "    <TestTimeSeconds>{seconds}.00</TestTimeSeconds>\n    <ThreadCount>{}</ThreadCount>\n    <RequestCount>0</RequestCount>\n    <ProcCount>16</ProcCount>",
        threads * targets
    )?;
    s.push_str("    <CpuUtilization>\n      <Average>\n        <UsagePercent>61.20</UsagePercent>\n        <UserPercent>8.10</UserPercent>\n        <KernelPercent>53.10</KernelPercent>\n        <IdlePercent>38.80</IdlePercent>\n      </Average>\n    </CpuUtilization>\n");
    s.push_str("    <Latency>\n      <AverageReadMilliseconds>2.100</AverageReadMilliseconds>\n      <ReadLatencyStdev>1.303</ReadLatencyStdev>\n      <AverageWriteMilliseconds>2.800</AverageWriteMilliseconds>\n      <WriteLatencyStdev>1.502</WriteLatencyStdev>\n      <AverageTotalMilliseconds>2.310</AverageTotalMilliseconds>\n      <LatencyStdev>1.403</LatencyStdev>\n");
    let mut p_lat = 0.2f64;
    for p in
        (0..=99).map(f64::from).chain([99.9, 99.99, 99.999, 99.9999, 99.99999, 99.999999, 100.0])
    {
        p_lat *= if p < 99.0 { 1.02 } else { 1.6 };
        write!(
            s,
            "      <Bucket>\n        <Percentile>{p}</Percentile>\n        <ReadMilliseconds>{:.3}</ReadMilliseconds>\n        <WriteMilliseconds>{:.3}</WriteMilliseconds>\n        <TotalMilliseconds>{:.3}</TotalMilliseconds>\n      </Bucket>\n",
            p_lat,
            p_lat * 1.3,
            p_lat * 1.1
        )?;
    }
    s.push_str("    </Latency>\n");
    let bucket = |s: &mut String, rng: &mut Rng, ms: u64, scale: f64| -> Result<()> {
        let r = (rng.around(1400.0, 0.2) * scale).round();
        let wr = (rng.around(600.0, 0.2) * scale).round();
        writeln!(
            s,
            "<Bucket SampleMillisecond=\"{ms}\" Read=\"{r}\" Write=\"{wr}\" Total=\"{}\" ReadMinLatencyMilliseconds=\"0.061\" ReadMaxLatencyMilliseconds=\"{:.3}\" ReadAvgLatencyMilliseconds=\"{:.3}\" ReadLatencyStdDev=\"{:.3}\" WriteMinLatencyMilliseconds=\"0.082\" WriteMaxLatencyMilliseconds=\"{:.3}\" WriteAvgLatencyMilliseconds=\"{:.3}\" WriteLatencyStdDev=\"{:.3}\"/>",
            r + wr,
            rng.around(30.0, 0.5),
            rng.around(2.1, 0.3),
            rng.around(1.2, 0.3),
            rng.around(40.0, 0.5),
            rng.around(2.8, 0.3),
            rng.around(1.5, 0.3)
        )?;
        Ok(())
    };
    s.push_str("    <Iops>\n      <ReadIopsStdDev>120.300</ReadIopsStdDev>\n      <WriteIopsStdDev>80.100</WriteIopsStdDev>\n      <IopsStdDev>150.200</IopsStdDev>\n");
    for sec in 1..=seconds {
        s.push_str("      ");
        bucket(&mut s, &mut rng, sec * 1000, (threads * targets) as f64)?;
    }
    s.push_str("    </Iops>\n");
    for t in 0..targets {
        for k in 0..threads {
            let id = t * threads + k;
            let secs = seconds as f64;
            let rc = (rng.around(1400.0, 0.05) * secs).round();
            let wc = (rng.around(600.0, 0.05) * secs).round();
            write!(
                s,
                "    <Thread>\n      <Id>{id}</Id>\n      <Target>\n        <Path>{}</Path>\n        <BytesCount>{}</BytesCount>\n        <FileSize>68719476736</FileSize>\n        <IOCount>{}</IOCount>\n        <ReadBytes>{}</ReadBytes>\n        <ReadCount>{rc}</ReadCount>\n        <WriteBytes>{}</WriteBytes>\n        <WriteCount>{wc}</WriteCount>\n        <AverageReadLatencyMilliseconds>{:.3}</AverageReadLatencyMilliseconds>\n        <ReadLatencyStdev>1.278</ReadLatencyStdev>\n        <AverageWriteLatencyMilliseconds>{:.3}</AverageWriteLatencyMilliseconds>\n        <WriteLatencyStdev>1.326</WriteLatencyStdev>\n        <Iops>\n          <ReadIopsStdDev>40.100</ReadIopsStdDev>\n          <WriteIopsStdDev>20.300</WriteIopsStdDev>\n          <IopsStdDev>50.200</IopsStdDev>\n",
                path(t),
                (rc + wc) * 8192.0,
                rc + wc,
                rc * 8192.0,
                wc * 8192.0,
                rng.around(2.1, 0.2),
                rng.around(2.8, 0.2),
            )?;
            for sec in 1..=seconds {
                s.push_str("          ");
                bucket(&mut s, &mut rng, sec * 1000, 1.0)?;
                if s.len() > 1 << 20 {
                    flush(&mut s, &mut w)?;
                }
            }
            s.push_str("        </Iops>\n      </Target>\n    </Thread>\n");
        }
    }
    s.push_str("  </TimeSpan>\n</Results>\n");
    flush(&mut s, &mut w)?;
    w.flush()?;
    eprintln!(
        "wrote {} ({written} bytes, {targets} targets x {threads} threads, {seconds} s)",
        out.display()
    );
    Ok(written)
}
