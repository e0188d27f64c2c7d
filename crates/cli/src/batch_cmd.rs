//! `advisor batch INPUT... --out DIR [--format md|html|json]... [--jobs N]
//! [--memory-budget SIZE] [--shard I/N] [--rules DIR] [--set ID.PARAM=V] [--catalog F]
//! [--counters F] [--fail-on SEV]`
//!
//! Batch triage of a support queue: every input is analysed on its own (its own topology
//! documents, when it is a collector bundle), several at once within a memory budget; one
//! report per input and an index (`index.json`, `index.md`) go to `--out`. An input that
//! cannot be read is listed in the index with its error and the queue goes on.
//!
//! A folder given on the command line is a queue: each of its entries (a capture file, a
//! collector bundle as a folder, a .tar.gz or a .zip) is one input. A file given is one
//! input. Exit codes: 0 every input analysed, 1 a finding at or above `--fail-on` in any,
//! 2 bad usage, or an input could not be analysed (after the others were).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use advisor_engine::{BatchOptions, Session};
use advisor_model::{BATCH_SCHEMA, BatchIndex, BatchStatus, Severity, ToolInfo};
use advisor_report::Format;
use anyhow::{Context as _, bail};

use crate::EXIT_INPUT;
use crate::analyze_cmd::{FormatArg, session};

const EXIT_FINDINGS: u8 = 1;

#[derive(Debug, clap::Args)]
pub(crate) struct BatchArgs {
    /// Inputs: a folder is a queue (each entry in it, a capture file or a collector bundle,
    /// is one input, in name order; hidden entries are skipped); a file is one input.
    #[arg(required = true, value_name = "INPUT")]
    inputs: Vec<PathBuf>,
    /// The folder the reports and the index (index.json, index.md) are written to; made
    /// when missing.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Report formats for each input, repeatable. Default: md and json.
    #[arg(long, value_enum, value_name = "FORMAT")]
    format: Vec<FormatArg>,
    /// Analyses at once. Default: the number of CPUs.
    #[arg(long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    jobs: Option<u16>,
    /// Memory the analyses running at once may take together (estimated from each input's
    /// size before it is read): a number of bytes with an optional K, M or G (powers of
    /// 1024). An input whose estimate alone exceeds it runs by itself.
    #[arg(long, value_name = "SIZE", default_value = "2G", value_parser = parse_size)]
    memory_budget: u64,
    /// Take only one shard of the inputs, INDEX/COUNT (0-based): those whose position in the
    /// list (folders' entries in name order) modulo COUNT is INDEX. For an Indexed Job whose
    /// pods share a queue (deploy/kubernetes/batch-job.yaml).
    #[arg(long, value_name = "INDEX/COUNT", value_parser = parse_shard)]
    shard: Option<(usize, usize)>,
    /// Also load the rules of this folder (adds, or replaces a shipped rule by id).
    #[arg(long = "rules", value_name = "DIR")]
    rules: Vec<PathBuf>,
    /// Set a rule parameter, e.g. --set vm-cached-throughput-cap.cap_ratio=90%.
    #[arg(long = "set", value_name = "ID.PARAM=VALUE")]
    sets: Vec<String>,
    /// A catalog CSV (VM sizes or disk SKUs) that extends or corrects the built-in one.
    #[arg(long, value_name = "FILE")]
    catalog: Vec<PathBuf>,
    /// PerfMon counter names of another display language (a TOML table like those in
    /// counters/), used before the built-in tables.
    #[arg(long, value_name = "FILE")]
    counters: Vec<PathBuf>,
    /// Exit with 1 when any input has a finding at or above this severity.
    #[arg(long = "fail-on", value_name = "SEVERITY", value_parser = |s: &str| s.parse::<Severity>())]
    fail_on: Option<Severity>,
    /// No line per input on stderr; errors are still in the index.
    #[arg(long, short = 'q')]
    quiet: bool,
}

/// `512`, `64K`, `300M`, `2G` (powers of 1024; a trailing `B` or `iB` is allowed).
fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let t = t.strip_suffix("iB").or_else(|| t.strip_suffix('B')).unwrap_or(t);
    let (digits, shift) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let shift = match c.to_ascii_uppercase() {
                'K' => 10,
                'M' => 20,
                'G' => 30,
                'T' => 40,
                _ => return Err(format!("{s:?}: the unit is K, M, G or T")),
            };
            (&t[..i], shift)
        }
        _ => (t, 0),
    };
    let n: f64 =
        digits.trim().parse().map_err(|_| format!("{s:?} is not a size such as 2G or 512M"))?;
    if !n.is_finite() || n <= 0.0 {
        return Err(format!("{s:?}: the budget must be more than zero"));
    }
    Ok((n * (1u64 << shift) as f64) as u64)
}

/// `2/4`: the third of four shards.
fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let bad = || format!("{s:?} is not a shard such as 0/4 (INDEX/COUNT, INDEX below COUNT)");
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) =
        (i.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
    if n == 0 || i >= n {
        return Err(bad());
    }
    Ok((i, n))
}

/// The inputs: each folder's entries in name order (hidden ones skipped), each file as is.
fn inputs(args: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for path in args {
        let meta = std::fs::metadata(path).with_context(|| format!("{}", path.display()))?;
        if meta.is_dir() {
            let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
                .with_context(|| format!("{}", path.display()))?
                .filter_map(Result::ok)
                .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
                .map(|e| e.path())
                .collect();
            entries.sort();
            out.extend(entries);
        } else {
            out.push(path.clone());
        }
    }
    Ok(out)
}

/// Report file stems, one per input, unique and safe in a file name and a Markdown link:
/// the input's file name without its extension(s), other characters as `_`, a `-2`, `-3`
/// ... suffix when two inputs share a name (`t1/capture.csv`, `t2/capture.csv`).
fn stems(inputs: &[PathBuf]) -> Vec<String> {
    let mut seen = HashSet::new();
    inputs
        .iter()
        .map(|p| {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let base = name
                .strip_suffix(".tar.gz")
                .or_else(|| name.rsplit_once('.').map(|(b, _)| b).filter(|b| !b.is_empty()))
                .unwrap_or(&name);
            let mut clean: String = base
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() || "-_.".contains(c) { c } else { '_' })
                .collect();
            if clean.is_empty() || clean.starts_with('.') || clean == "index" {
                clean.insert_str(0, "input-");
            }
            let mut stem = clean.clone();
            let mut n = 1;
            while !seen.insert(stem.to_ascii_lowercase()) {
                n += 1;
                stem = format!("{clean}-{n}");
            }
            stem
        })
        .collect()
}

fn extension(f: Format) -> &'static str {
    match f {
        Format::Markdown => "md",
        Format::Html => "html",
        Format::Json => "json",
    }
}

fn write(path: &Path, text: &str) -> anyhow::Result<()> {
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

pub(crate) fn run(args: &BatchArgs) -> anyhow::Result<ExitCode> {
    let session: Session = session(&args.rules, &args.sets, &args.catalog, None, &args.counters)?;
    let mut inputs = inputs(&args.inputs)?;
    if inputs.is_empty() {
        bail!("no input: the folders given are empty");
    }
    if let Some((index, count)) = args.shard {
        // A shard past the last input is empty: its index says so, and it succeeds.
        inputs = inputs.into_iter().skip(index).step_by(count).collect();
    }
    std::fs::create_dir_all(&args.out).with_context(|| format!("{}", args.out.display()))?;
    let mut formats: Vec<Format> = args.format.iter().map(|&f| f.into()).collect();
    if formats.is_empty() {
        formats = vec![Format::Markdown, Format::Json];
    }
    let mut seen = Vec::new();
    formats.retain(|f| {
        if seen.contains(f) {
            false
        } else {
            seen.push(*f);
            true
        }
    });
    let jobs = args
        .jobs
        .map_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()), usize::from);
    let options = BatchOptions { jobs, memory_budget: args.memory_budget, formats };
    let stems = stems(&inputs);
    let started = Instant::now();
    let mut entries = vec![None; inputs.len()];
    let mut write_error = None;
    let total = inputs.len();
    let mut finished = 0;
    session.batch(&inputs, &options, |done| {
        finished += 1;
        let mut entry = done.entry;
        for (format, text) in &done.reports {
            let file = format!("{}.{}", stems[done.index], extension(*format));
            match write(&args.out.join(&file), text) {
                Ok(()) => entry.reports.push(file),
                Err(e) => write_error = write_error.take().or(Some(e)),
            }
        }
        if !args.quiet {
            match (&entry.error, &entry.verdict) {
                (Some(e), _) => {
                    eprintln!("[{finished}/{total}] {}: not analysed: {e}", entry.input)
                }
                (None, Some(v)) => eprintln!("[{finished}/{total}] {}: {v}", entry.input),
                (None, None) => {}
            }
        }
        entries[done.index] = Some(entry);
    });
    if let Some(e) = write_error {
        return Err(e);
    }
    let entries: Vec<_> = entries.into_iter().flatten().collect();
    let failed = entries.iter().filter(|e| e.status == BatchStatus::Failed).count();
    let index = BatchIndex {
        schema: BATCH_SCHEMA.to_owned(),
        tool: ToolInfo {
            name: "advisor".to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
        },
        analyzed: entries.len() - failed,
        failed,
        jobs: jobs.min(total.max(1)),
        memory_budget_bytes: args.memory_budget,
        elapsed_seconds: started.elapsed().as_secs_f64(),
        entries,
    };
    write(&args.out.join("index.json"), &advisor_report::batch_index_json(&index)?)?;
    write(
        &args.out.join("index.md"),
        &advisor_report::batch_index_md(session.renderer(), &index)?,
    )?;
    if !args.quiet {
        eprintln!(
            "{}: {} analysed, {} not analysed, in {:.1} s (index.md, index.json)",
            args.out.display(),
            index.analyzed,
            index.failed,
            index.elapsed_seconds
        );
    }
    let worst = index.entries.iter().filter_map(|e| e.worst.as_ref().map(|w| w.severity)).max();
    Ok(if failed > 0 {
        ExitCode::from(EXIT_INPUT)
    } else if args.fail_on.is_some_and(|t| worst.is_some_and(|w| w >= t)) {
        ExitCode::from(EXIT_FINDINGS)
    } else {
        ExitCode::SUCCESS
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("2G"), Ok(2 << 30));
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("1.5GiB"), Ok(3 << 29));
        assert_eq!(parse_size("64kB"), Ok(64 << 10));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert!(parse_size("0").is_err());
        assert!(parse_size("2X").is_err());
        assert!(parse_size("lots").is_err());
    }

    #[test]
    fn shards() {
        assert_eq!(parse_shard("0/4"), Ok((0, 4)));
        assert_eq!(parse_shard("3/4"), Ok((3, 4)));
        assert!(parse_shard("4/4").is_err());
        assert!(parse_shard("1/0").is_err());
        assert!(parse_shard("$(SHARD)/4").is_err());
        assert!(parse_shard("2").is_err());
    }

    #[test]
    fn stems_are_unique_and_safe() {
        let p = |s: &str| PathBuf::from(s);
        let got = stems(&[
            p("q/t1/capture.csv"),
            p("q/t2/capture.csv"),
            p("q/Capture.json"),
            p("q/bundle.tar.gz"),
            p("q/ticket 42 (E:)"),
            p("q/index.csv"),
            p("q/.hidden"),
        ]);
        assert_eq!(
            got,
            [
                "capture",
                "capture-2",
                "Capture-3",
                "bundle",
                "ticket_42__E__",
                "input-index",
                "input-.hidden"
            ]
        );
    }
}
