//! `advisor inspect FILE...`

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use advisor_engine::{BundleSummary, Input, Inspection, Session};
use advisor_model::Direction;

use crate::EXIT_INPUT;
use advisor_report::fmt::num;

#[derive(Debug, clap::Args)]
pub(crate) struct InspectArgs {
    /// Capture files (format detected from content), or collector bundles (a folder, a
    /// .tar.gz or a .zip).
    #[arg(required = true, value_name = "CAPTURE")]
    files: Vec<PathBuf>,
    /// Print JSON (an array, one object per readable capture) instead of text.
    #[arg(long)]
    json: bool,
    /// PerfMon counter names of another display language (a TOML table like those in
    /// counters/), used before the built-in tables.
    #[arg(long, value_name = "FILE")]
    counters: Vec<PathBuf>,
}

/// Inspects every file; unreadable ones are reported on stderr and make the exit code 2,
/// but never hide the ones that were read.
pub(crate) fn run(args: &InspectArgs) -> anyhow::Result<ExitCode> {
    let session = Session::builder().counters(&args.counters).build()?;
    let mut ok = Vec::new();
    let mut failed = false;
    let mut out = String::new();
    for path in &args.files {
        // A bundle: its manifest's facts and where each file went, then its captures.
        let inspected = match session.inspect(Input::Path(path.clone())) {
            Ok(x) => x,
            Err(e) => {
                eprintln!("error: {e}");
                failed = true;
                continue;
            }
        };
        for b in &inspected.bundles {
            if !out.is_empty() {
                out.push('\n');
            }
            render_bundle(&mut out, b)?;
        }
        for result in inspected.captures {
            match result {
                Ok(i) => {
                    if !out.is_empty() {
                        out.push('\n');
                    }
                    render(&mut out, &i)?;
                    ok.push(i);
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    failed = true;
                }
            }
        }
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&ok)?);
    } else {
        print!("{out}");
    }
    Ok(if failed { ExitCode::from(EXIT_INPUT) } else { ExitCode::SUCCESS })
}

/// The tool's own percentiles shown in text; `--json` has them all.
const SHOWN_PERCENTILES: [f64; 7] = [50.0, 90.0, 99.0, 99.9, 99.99, 99.999, 100.0];

fn offset(min: i32) -> String {
    let sign = if min < 0 { '-' } else { '+' };
    format!("UTC{sign}{:02}:{:02}", min.abs() / 60, min.abs() % 60)
}

/// What a bundle holds: the collector's facts and where each file went.
fn render_bundle(out: &mut String, b: &BundleSummary) -> std::fmt::Result {
    writeln!(out, "{}", b.name)?;
    writeln!(
        out,
        "  bundle:    {} of {} files",
        b.kind,
        b.captures.len() + b.documents.len() + b.ignored.len() + usize::from(b.manifest.is_some())
    )?;
    for f in b.facts() {
        writeln!(out, "  collector: {f}")?;
    }
    if b.manifest.is_none() {
        writeln!(out, "  collector: no manifest.json (not written by advisor's collector)")?;
    }
    for c in &b.captures {
        writeln!(out, "  capture:   {c}")?;
    }
    for (name, what) in &b.documents {
        writeln!(out, "  topology:  {name}: {what}")?;
    }
    for (name, why) in &b.ignored {
        writeln!(out, "  ignored:   {name}: {why}")?;
    }
    Ok(())
}

/// The human form of an inspection.
pub(crate) fn render(out: &mut String, i: &Inspection) -> std::fmt::Result {
    writeln!(out, "{}", i.file)?;
    write!(out, "  format:    {} ({})", i.format, i.format_description)?;
    if let Some(v) = &i.version {
        write!(out, ", {v}")?;
    }
    out.push('\n');
    if !i.hosts.is_empty() {
        writeln!(out, "  hosts:     {}", i.hosts.join(", "))?;
    }
    match (&i.start, &i.end) {
        (Some(s), Some(e)) => {
            write!(out, "  time:      {s} .. {e}, {} samples", i.samples)?;
            if let Some(iv) = i.interval_s {
                write!(out, " every {} s", num(iv))?;
            }
            out.push('\n');
        }
        _ => writeln!(out, "  time:      no timestamps ({} samples)", i.samples)?,
    }
    if i.utc_offset_min.is_some() || i.timezone.is_some() {
        let off = i.utc_offset_min.map(offset).unwrap_or_else(|| "offset unknown".to_owned());
        match &i.timezone {
            Some(tz) => writeln!(out, "  zone:      {off} ({tz})")?,
            None => writeln!(out, "  zone:      {off}")?,
        }
    }
    let names: Vec<&str> = i.metrics.iter().map(|m| m.name()).collect();
    writeln!(
        out,
        "  metrics:   {}",
        if names.is_empty() { "none".to_owned() } else { names.join(", ") }
    )?;
    writeln!(out, "  targets:   {} ({} rows)", i.targets.len(), i.rows)?;
    for t in &i.targets {
        write!(out, "    {} [{:?}", t.name, t.kind)?;
        if let Some(h) = &t.host {
            write!(out, ", host {h}")?;
        }
        writeln!(out, ", {} rows]", t.rows)?;
        if t.rows == 1 {
            // A benchmark summary (or a single report): one value per metric.
            for m in &t.metrics {
                writeln!(
                    out,
                    "      {:<22} {:>10} {}",
                    m.metric.name(),
                    num(m.stats.max),
                    m.unit.suffix()
                )?;
            }
            continue;
        }
        if !t.metrics.is_empty() {
            writeln!(
                out,
                "      {:<22} {:>6} {:>10} {:>10} {:>10} {:>10}",
                "metric", "unit", "p50", "p90", "p99", "max"
            )?;
        }
        for m in &t.metrics {
            writeln!(
                out,
                "      {:<22} {:>6} {:>10} {:>10} {:>10} {:>10}",
                m.metric.name(),
                m.unit.suffix(),
                num(m.stats.p50),
                num(m.stats.p90),
                num(m.stats.p99),
                num(m.stats.max)
            )?;
        }
    }
    for b in &i.bench {
        let s = &b.settings;
        let mut parts = vec![s.tool.clone()];
        let mut add = |label: &str, v: Option<String>| {
            if let Some(v) = v {
                parts.push(format!("{label} {v}"));
            }
        };
        add("pattern", s.pattern.clone());
        add("block", s.block_size_kib.map(|v| format!("{} KiB", num(v))));
        add("QD/thread", s.queue_depth_per_thread.map(|v| v.to_string()));
        add("threads", s.threads.map(|v| v.to_string()));
        add("write", s.write_pct.map(|v| format!("{}%", num(v))));
        add("random", s.random.map(|v| v.to_string()));
        add("OS cache off", s.os_cache_disabled.map(|v| v.to_string()));
        add("write-through", s.write_through.map(|v| v.to_string()));
        add("sync every", s.sync_every.map(|v| v.to_string()));
        add("file", s.file_size_bytes.map(|v| format!("{} MiB", num(v as f64 / 1048576.0))));
        add("duration", s.duration_s.map(|v| format!("{} s", num(v))));
        add("warm-up", s.warmup_s.map(|v| format!("{} s", num(v))));
        add("engine", s.engine.clone());
        writeln!(out, "  benchmark: {}: {}", b.target, parts.join(", "))?;
        for dir in [Direction::Read, Direction::Write, Direction::Total, Direction::Sync] {
            let ps: Vec<String> = b
                .percentiles
                .iter()
                .filter(|p| p.direction == dir)
                .filter(|p| SHOWN_PERCENTILES.iter().any(|q| (p.percentile - q).abs() < 1e-9))
                .map(|p| format!("p{} {}", p.percentile, num(p.latency_ms)))
                .collect();
            if !ps.is_empty() {
                let name = format!("{dir:?}").to_lowercase();
                writeln!(out, "             {name} latency ms: {}", ps.join(", "))?;
            }
        }
    }
    if let Some(n) = i.since_boot_rows {
        writeln!(out, "  since boot: {n} rows kept apart from the series")?;
    }
    if !i.ignored.is_empty() {
        writeln!(out, "  ignored:   {} counters/fields", i.ignored.len())?;
        for x in i.ignored.iter().take(12) {
            writeln!(out, "    {x}")?;
        }
        if i.ignored.len() > 12 {
            writeln!(out, "    ... and {} more (see --json)", i.ignored.len() - 12)?;
        }
    }
    for w in &i.warnings {
        writeln!(out, "  warning:   {w}")?;
    }
    for n in &i.notes {
        writeln!(out, "  note:      {n}")?;
    }
    Ok(())
}
