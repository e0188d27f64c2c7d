//! What runs inside a measured child process of `xtask bench` (this binary again): `case`
//! (what `advisor analyze FILE` does, phase by phase), `rules` (each rule's share of the
//! analysis) and `batch-case` (what `advisor batch` does), each printing one JSON line with
//! its own peak RSS, which `crate::bench` (the parent) gathers into tables.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Result;
use serde_json::json;

use crate::bench::median;

/// Peak resident set of this process in KiB (`VmHWM`), 0 when unknown.
pub(crate) fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find_map(|l| {
                l.strip_prefix("VmHWM:")?.trim().trim_end_matches("kB").trim().parse().ok()
            })
        })
        .unwrap_or(0)
}

/// CPU seconds this process has used (user and system, every thread), from
/// `/proc/self/stat` (clock ticks of 1/100 s), 0 when unknown.
pub(crate) fn cpu_s() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else { return 0.0 };
    // Fields after the command name (which may hold spaces), from the 3rd: utime is the 14th.
    let Some((_, rest)) = stat.rsplit_once(')') else { return 0.0 };
    let f: Vec<f64> = rest.split_whitespace().map(|x| x.parse().unwrap_or(0.0)).collect();
    (f.get(11).copied().unwrap_or(0.0) + f.get(12).copied().unwrap_or(0.0)) / 100.0
}

/// A job's phases as the benchmark times them, heard through [`advisor_engine::Progress`]:
/// from the start to the first read (bundles, topology), the reads, and from the last
/// read to the analysis' end.
struct Clock {
    started: Instant,
    /// When the first read began and the last ended (wall, CPU).
    first: Option<(Instant, f64)>,
    last: Option<(Instant, f64)>,
    done: Option<(Instant, f64, advisor_engine::Timings)>,
    rows: usize,
}

/// What [`Clock`] measured.
struct Phases {
    before_read_s: f64,
    read_s: f64,
    read_cpu_s: f64,
    analysis_s: f64,
    analysis_cpu_s: f64,
    timings: advisor_engine::Timings,
}

impl Clock {
    fn new() -> Self {
        Self { started: Instant::now(), first: None, last: None, done: None, rows: 0 }
    }

    fn phases(&self) -> Result<Phases> {
        let (Some(first), Some(last), Some(done)) = (self.first, self.last, self.done) else {
            anyhow::bail!("the analysis did not read and analyse (no capture?)");
        };
        Ok(Phases {
            before_read_s: (first.0 - self.started).as_secs_f64(),
            read_s: (last.0 - first.0).as_secs_f64(),
            read_cpu_s: last.1 - first.1,
            analysis_s: (done.0 - last.0).as_secs_f64(),
            analysis_cpu_s: done.1 - last.1,
            timings: done.2,
        })
    }
}

impl advisor_engine::Progress for Clock {
    fn reading(&mut self, _name: &str, _bytes: u64) {
        if self.first.is_none() {
            self.first = Some((Instant::now(), cpu_s()));
        }
    }

    fn read(
        &mut self,
        _name: &str,
        _bytes: u64,
        result: std::result::Result<&advisor_engine::Capture, &advisor_engine::IngestError>,
    ) {
        self.rows += result.map_or(0, |c| c.rows());
        self.last = Some((Instant::now(), cpu_s()));
    }

    fn analysed(&mut self, timings: &advisor_engine::Timings) {
        self.done = Some((Instant::now(), cpu_s(), *timings));
    }
}

/// `xtask case FILE [--topology T]`: what `advisor analyze FILE` does (read, load the
/// rules, analyze, render Markdown), each phase timed; prints one JSON line.
pub(crate) fn case(file: &Path, topology: Option<&Path>, started: Instant) -> Result<()> {
    use advisor_engine::{Input, Request, Session, TopologySources};
    let bytes = std::fs::metadata(file)?.len();
    // The session (rules, catalog, templates) is set up before the read, as `analyze`
    // does; its time is counted with the topology's (assembled before the read).
    let t = Instant::now();
    let session = Session::builder().build().map_err(|e| anyhow::anyhow!("{e}"))?;
    let setup_s = t.elapsed().as_secs_f64();
    let request = Request::new([file.to_path_buf()]).topology(TopologySources {
        files: topology.map(Path::to_path_buf).into_iter().collect(),
        ..TopologySources::default()
    });
    let mut clock = Clock::new();
    let analysis = session.analyze(request, &mut clock).map_err(|e| anyhow::anyhow!("{e}"))?;
    let phases = clock.phases()?;
    let setup_s = setup_s + phases.before_read_s;
    let (mut read_s, mut read_cpu_s) = (phases.read_s, phases.read_cpu_s);
    let (analysis_s, analysis_cpu_s) = (phases.analysis_s, phases.analysis_cpu_s);
    let timings = phases.timings;
    let rows = clock.rows;
    let t = Instant::now();
    let report = session.render(&analysis, advisor_report::Format::Markdown)?;
    let render_s = t.elapsed().as_secs_f64();
    let total_s = started.elapsed().as_secs_f64();
    let hwm_kib = peak_rss_kib();
    // A small capture is read again until a second has passed: its reader speed is the
    // median, not one run's noise. The parent takes this time off the wall clock.
    let extra = Instant::now();
    if bytes < 64_000_000 {
        let (mut times, mut cpus) = (vec![read_s], vec![read_cpu_s]);
        while extra.elapsed().as_secs_f64() < 1.0 && times.len() < 200 {
            let (t, cpu) = (Instant::now(), cpu_s());
            let again = session
                .read(Input::Path(file.to_path_buf()))
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            times.push(t.elapsed().as_secs_f64());
            cpus.push(cpu_s() - cpu);
            drop(again);
        }
        read_s = median(times);
        read_cpu_s = median(cpus);
    }
    let extra_s = extra.elapsed().as_secs_f64();
    println!(
        "{}",
        json!({
            "bytes": bytes, "rows": rows, "read_s": read_s, "setup_s": setup_s,
            "read_cpu_s": read_cpu_s, "analysis_cpu_s": analysis_cpu_s,
            "analysis_s": analysis_s, "render_s": render_s,
            "context_s": timings.context_s, "rules_s": timings.rules_s,
            "summaries_s": timings.summaries_s, "charts_s": timings.charts_s,
            "total_s": total_s, "hwm_kib": hwm_kib, "extra_s": extra_s,
            "findings": analysis.findings.len(), "report_bytes": report.len()
        })
    );
    Ok(())
}

/// `xtask rules FILE [--topology T]`: reads the capture once, then times the rules' phase
/// of the analysis for each rule alone (a session with `only` that rule) and for all of
/// them, the median of `reps` rounds each; prints a table, slowest first. `only`: time
/// just these rules alone, and together. Under `taskset -c 0` the rules run on one thread, so each time
/// is CPU time (this machine's wall times move by a quarter between runs).
pub(crate) fn rules(
    file: &Path,
    topology: Option<&Path>,
    reps: usize,
    only: &[String],
) -> Result<()> {
    use advisor_engine::{Input, Request, Session, TopologySources};
    let reps = reps.max(1);
    let all = Session::builder().build().map_err(|e| anyhow::anyhow!("{e}"))?;
    // Read once; each analysis below takes the capture read (the frame is shared, not
    // copied) so that only the analysis is timed.
    let capture = all.read(Input::Path(file.to_path_buf())).map_err(|e| anyhow::anyhow!("{e}"))?;
    let sources = TopologySources {
        files: topology.map(Path::to_path_buf).into_iter().collect(),
        ..TopologySources::default()
    };
    let timed = |session: &Session| -> Result<f64> {
        let mut times = Vec::with_capacity(reps);
        for _ in 0..reps {
            let request = Request {
                inputs: vec![Input::Read(Box::new(capture.clone()))],
                topology: sources.clone(),
            };
            let mut clock = Clock::new();
            session.analyze(request, &mut clock).map_err(|e| anyhow::anyhow!("{e}"))?;
            times.push(clock.phases()?.timings.rules_s);
        }
        Ok(median(times))
    };
    let ids: Vec<String> = all
        .rules()
        .rules()
        .map(|r| r.id.clone())
        .filter(|id| only.is_empty() || only.contains(id))
        .collect();
    let mut rows: Vec<(String, f64)> = Vec::new();
    for id in ids {
        let one =
            Session::builder().only([id.clone()]).build().map_err(|e| anyhow::anyhow!("{e}"))?;
        rows.push((id, timed(&one)?));
    }
    let together = timed(&all)?;
    // The chosen rules together (all the `vm` rules, say: one group).
    let chosen = if only.is_empty() {
        None
    } else {
        let some = Session::builder().only(only.iter().cloned()).build();
        Some(timed(&some.map_err(|e| anyhow::anyhow!("{e}"))?)?)
    };
    rows.sort_by(|a, b| b.1.total_cmp(&a.1));
    let alone: f64 = rows.iter().map(|r| r.1).sum();
    println!("| rule | alone s | share of the sum |");
    println!("|---|---:|---:|");
    for (id, s) in &rows {
        println!("| {id} | {s:.4} | {:.1}% |", 100.0 * s / alone);
    }
    println!("| every rule alone, summed | {alone:.4} | |");
    if let Some(t) = chosen {
        println!("| the rules chosen, together | {t:.4} | |");
    }
    println!("| every rule together | {together:.4} | |");
    Ok(())
}

/// `xtask batch-case QUEUE --jobs N --budget-mib M`: what `advisor batch QUEUE --out D`
/// does (every entry analysed on its own, Markdown and JSON written), timed; one JSON line.
pub(crate) fn batch_case(queue: &Path, jobs: usize, budget_mib: u64) -> Result<()> {
    use advisor_engine::{BatchOptions, Session};
    use advisor_report::Format;
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(queue)?
        .filter_map(Result::ok)
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| e.path())
        .collect();
    inputs.sort();
    let bytes: u64 = inputs.iter().map(|p| advisor_engine::input_bytes(p, u64::MAX)).sum();
    let out = std::env::temp_dir().join(format!("advisor-bench-batch-{}", std::process::id()));
    std::fs::create_dir_all(&out)?;
    let session = Session::builder().build().map_err(|e| anyhow::anyhow!("{e}"))?;
    let options = BatchOptions {
        jobs,
        memory_budget: budget_mib << 20,
        formats: vec![Format::Markdown, Format::Json],
    };
    let (mut analyzed, mut failed) = (0usize, 0usize);
    let mut write_error = None;
    session.batch(&inputs, &options, |done| {
        if done.reports.is_empty() {
            failed += 1;
        } else {
            analyzed += 1;
        }
        for (f, text) in &done.reports {
            let ext = if *f == Format::Json { "json" } else { "md" };
            if let Err(e) = std::fs::write(out.join(format!("{}.{ext}", done.index)), text) {
                write_error.get_or_insert(e);
            }
        }
    });
    std::fs::remove_dir_all(&out)?;
    if let Some(e) = write_error {
        return Err(e.into());
    }
    println!(
        "{}",
        json!({
            "bytes": bytes, "inputs": inputs.len(), "analyzed": analyzed, "failed": failed,
            "jobs": jobs, "hwm_kib": peak_rss_kib()
        })
    );
    Ok(())
}
