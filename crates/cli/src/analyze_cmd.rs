//! `advisor analyze CAPTURE... [--topology F] [--vm SIZE] [--format md|html|json]
//! [--output F] [--rules DIR] [--set ID.PARAM=V] [--fail-on SEV] [--templates DIR]`
//!
//! Reads every capture, analyzes them together against the topology, and writes one report:
//! Markdown to stdout by default; `--output` writes a file, its extension choosing the
//! format unless `--format` says otherwise. Exit codes: 0 ran, 1 a finding at or above
//! `--fail-on`, 2 bad usage or unreadable input (nothing is written then).

use std::collections::HashSet;
use std::io::{IsTerminal as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use advisor_engine::{
    Capture, EngineError, IngestError, Progress, Request, Session, Timings, TopologySources,
};
use advisor_model::Severity;
use advisor_report::Format;
use anyhow::Context as _;

use crate::EXIT_INPUT;

/// Exit code when `--fail-on` is met.
const EXIT_FINDINGS: u8 = 1;

/// Inputs this large in total (bytes) get a progress bar, when stderr is a terminal.
const PROGRESS_BYTES: u64 = 32 * 1024 * 1024;

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub(crate) enum FormatArg {
    Md,
    Html,
    Json,
}

impl From<FormatArg> for Format {
    fn from(f: FormatArg) -> Self {
        match f {
            FormatArg::Md => Format::Markdown,
            FormatArg::Html => Format::Html,
            FormatArg::Json => Format::Json,
        }
    }
}

#[derive(Debug, clap::Args)]
pub(crate) struct AnalyzeArgs {
    /// Capture files (format detected from content), or collector bundles (a folder, a
    /// .tar.gz or a .zip: every capture and topology document in it); several go into one
    /// report.
    #[arg(required = true, value_name = "CAPTURE")]
    files: Vec<PathBuf>,
    /// The VM's topology, repeatable: the topology file (TOML or JSON), or the VM's own
    /// documents (IMDS JSON, az vm show, az disk list, lsblk -J, ls -lR /dev/disk/azure,
    /// Get-Disk/Get-Partition JSON), detected by content and merged.
    #[arg(long, value_name = "FILE")]
    topology: Vec<PathBuf>,
    /// The VM size (e.g. Standard_DS13_v2); alone it is a topology with unknown disks, with
    /// --topology it replaces the file's size.
    #[arg(long, value_name = "SIZE")]
    vm: Option<String>,
    /// Report format. Default: from the --output extension (.html/.htm, .md, .json), else md
    /// (an --output with another extension gets md and a note on stderr).
    #[arg(long, value_enum, value_name = "FORMAT")]
    format: Option<FormatArg>,
    /// Write the report to this file instead of stdout.
    #[arg(long, short = 'o', value_name = "FILE")]
    output: Option<PathBuf>,
    /// Also load the rules of this folder (adds, or replaces a shipped rule by id).
    #[arg(long = "rules", value_name = "DIR")]
    rules: Vec<PathBuf>,
    /// Set a rule parameter, e.g. --set vm-cached-throughput-cap.cap_ratio=90%.
    #[arg(long = "set", value_name = "ID.PARAM=VALUE")]
    sets: Vec<String>,
    /// Exit with 1 when a finding at or above this severity exists.
    #[arg(long = "fail-on", value_name = "SEVERITY", value_parser = parse_severity)]
    fail_on: Option<Severity>,
    /// Templates that replace the built-in ones file by file (report.html.tera,
    /// report.md.tera, partials/...).
    #[arg(long, value_name = "DIR")]
    templates: Option<PathBuf>,
    /// A catalog CSV (VM sizes or disk SKUs) that extends or corrects the built-in one.
    #[arg(long, value_name = "FILE")]
    catalog: Vec<PathBuf>,
    /// PerfMon counter names of another display language (a TOML table like those in
    /// counters/), used before the built-in tables.
    #[arg(long, value_name = "FILE")]
    counters: Vec<PathBuf>,
    /// No progress bar and no notes on stderr; errors are still printed.
    #[arg(long, short = 'q')]
    quiet: bool,
}

fn parse_severity(s: &str) -> Result<Severity, String> {
    s.parse()
}

/// The format: `--format`, else the output's extension, else Markdown. The second value
/// says the extension was not understood (the caller notes it).
pub(crate) fn choose_format(format: Option<FormatArg>, output: Option<&Path>) -> (Format, bool) {
    if let Some(f) = format {
        return (f.into(), false);
    }
    match output {
        Some(p) => match Format::from_path(p) {
            Some(f) => (f, false),
            None => (Format::Markdown, true),
        },
        None => (Format::Markdown, false),
    }
}

/// The CLI's [`Progress`]: each unreadable input reported as it is read (a long read of
/// many files does not hide its errors until the end), and a progress bar on a terminal
/// while large inputs are read.
pub(crate) struct Bar {
    quiet: bool,
    bar: Option<indicatif::ProgressBar>,
    /// The errors already printed, so that the job's error does not print them again.
    shown: HashSet<String>,
}

impl Bar {
    pub(crate) fn new(quiet: bool) -> Self {
        Self { quiet, bar: None, shown: HashSet::new() }
    }

    fn clear(&mut self) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
    }

    /// What a job's error means for the exit code: unreadable inputs are each printed
    /// (unless they were as they were read) and exit 2; any other error is the caller's
    /// to print.
    pub(crate) fn failed(mut self, e: EngineError) -> anyhow::Result<ExitCode> {
        self.clear();
        let EngineError::Unreadable(errors) = e else { return Err(e.into()) };
        for e in errors {
            let line = format!("error: {e}");
            if !self.shown.contains(&line) {
                eprintln!("{line}");
            }
        }
        Ok(ExitCode::from(EXIT_INPUT))
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.clear();
    }
}

impl Progress for Bar {
    fn start(&mut self, _inputs: usize, bytes: u64) {
        self.clear();
        if self.quiet || bytes < PROGRESS_BYTES || !std::io::stderr().is_terminal() {
            return;
        }
        let bar = indicatif::ProgressBar::new(bytes);
        let style = indicatif::ProgressStyle::with_template(
            "{spinner} reading {msg} [{bar:30}] {binary_bytes}/{binary_total_bytes} {elapsed}",
        )
        .map(|s| s.progress_chars("=> "))
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
        bar.set_style(style);
        bar.enable_steady_tick(Duration::from_millis(120));
        self.bar = Some(bar);
    }

    fn reading(&mut self, name: &str, _bytes: u64) {
        if let Some(b) = &self.bar {
            b.set_message(name.to_owned());
        }
    }

    fn read(&mut self, _name: &str, bytes: u64, result: Result<&Capture, &IngestError>) {
        if let Err(e) = result {
            let line = format!("error: {e}");
            match &self.bar {
                Some(b) => b.suspend(|| eprintln!("{line}")),
                None => eprintln!("{line}"),
            }
            self.shown.insert(line);
        }
        if let Some(b) = &self.bar {
            b.inc(bytes);
        }
    }

    fn analysed(&mut self, _timings: &Timings) {
        self.clear();
    }
}

/// Writes a command's document to `output`, or to stdout (a closed pipe, `| head`, is not
/// an error worth reporting); after a file, `note()` goes to stderr unless `quiet`
/// (`analyze`, `compare`, `recommend`).
pub(crate) fn deliver(
    text: &str,
    output: Option<&Path>,
    quiet: bool,
    note: impl FnOnce() -> String,
) -> anyhow::Result<()> {
    match output {
        Some(path) => {
            std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
            if !quiet {
                eprintln!("{}: {}", path.display(), note());
            }
        }
        None => {
            let _ = std::io::stdout().lock().write_all(text.as_bytes());
        }
    }
    Ok(())
}

/// The session of `analyze` and `serve`: `--rules`, `--set`, `--catalog`, `--templates`,
/// `--counters`.
pub(crate) fn session(
    rules: &[PathBuf],
    sets: &[String],
    catalog: &[PathBuf],
    templates: Option<&Path>,
    counters: &[PathBuf],
) -> Result<Session, EngineError> {
    Session::builder()
        .templates(templates)
        .catalog(catalog)
        .rules(rules)
        .set(sets)
        .counters(counters)
        .build()
}

pub(crate) fn run(args: &AnalyzeArgs) -> anyhow::Result<ExitCode> {
    let (format, unknown_ext) = choose_format(args.format, args.output.as_deref());
    if unknown_ext
        && !args.quiet
        && let Some(out) = &args.output
    {
        eprintln!(
            "note: {}: extension not .html, .md or .json; writing Markdown (choose with --format)",
            out.display()
        );
    }
    // Everything that can be wrong with the command line is checked before the (possibly
    // long) read of the captures.
    let session =
        session(&args.rules, &args.sets, &args.catalog, args.templates.as_deref(), &args.counters)?;
    let request = Request::new(args.files.iter().cloned()).topology(TopologySources {
        files: args.topology.clone(),
        vm: args.vm.clone(),
        ..TopologySources::default()
    });
    let mut bar = Bar::new(args.quiet);
    let analysis = match session.analyze(request, &mut bar) {
        Ok(a) => a,
        Err(e) => return bar.failed(e),
    };
    let report = session.render(&analysis, format)?;

    deliver(&report, args.output.as_deref(), args.quiet, || {
        format!("{} report written ({})", format.as_str(), session.verdict(&analysis))
    })?;
    let failed = args.fail_on.is_some_and(|t| analysis.worst().is_some_and(|w| w >= t));
    Ok(if failed { ExitCode::from(EXIT_FINDINGS) } else { ExitCode::SUCCESS })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_choice() {
        let p = |s: &str| Some(PathBuf::from(s));
        assert_eq!(choose_format(None, None), (Format::Markdown, false));
        assert_eq!(choose_format(None, p("r.html").as_deref()), (Format::Html, false));
        assert_eq!(choose_format(None, p("r.JSON").as_deref()), (Format::Json, false));
        assert_eq!(choose_format(None, p("r.txt").as_deref()), (Format::Markdown, true));
        assert_eq!(
            choose_format(Some(FormatArg::Json), p("r.html").as_deref()),
            (Format::Json, false)
        );
    }
}
