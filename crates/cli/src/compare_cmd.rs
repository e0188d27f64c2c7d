//! `advisor compare BEFORE... --with AFTER... [--topology F] [--vm SIZE] [--with-topology F]
//! [--with-vm SIZE] [--label L]... [--format md|html|json] [--output F] [--fail-on-worse]`
//!
//! Reads and analyses each side as `analyze` would (its own topology, or one shared), and
//! writes one comparison whose first line says whether the change helped and by how much.
//! Exit codes: 0 ran; 1 `--fail-on-worse` and the verdict is worse or mixed; 2 bad usage or
//! unreadable input (every unreadable file of both sides is named).

use std::path::PathBuf;
use std::process::ExitCode;

use advisor_engine::{CompareSide, Input, TopologySources};
use advisor_model::Outcome;

use crate::analyze_cmd::{Bar, FormatArg, choose_format, deliver, session};

/// Exit code when `--fail-on-worse` is met.
const EXIT_WORSE: u8 = 1;

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  advisor compare before.csv --with after.csv --topology topology.toml\n  \
    advisor compare before.csv --vm Standard_DS13_v2 --with after.csv --with-vm Standard_DS14_v2\n  \
    advisor compare qd1.json qd8.json --with v2-qd1.json v2-qd8.json --label 'P30 QD1' --label 'P30 QD8' \
    --label 'v2 QD1' --label 'v2 QD8' -o sweep.html"
)]
pub(crate) struct CompareArgs {
    /// The captures before the change (files or collector bundles, as `analyze` takes them).
    #[arg(required = true, value_name = "BEFORE")]
    before: Vec<PathBuf>,
    /// The captures after the change.
    #[arg(long = "with", required = true, num_args = 1.., value_name = "AFTER")]
    after: Vec<PathBuf>,
    /// The before side's topology (repeatable, as `analyze --topology`); also the after
    /// side's unless --with-topology or --with-vm is given.
    #[arg(long, value_name = "FILE")]
    topology: Vec<PathBuf>,
    /// The before side's VM size; also the after side's unless --with-topology or --with-vm
    /// is given.
    #[arg(long, value_name = "SIZE")]
    vm: Option<String>,
    /// The after side's own topology (repeatable): a resized VM, a disk moved or re-cached.
    #[arg(long = "with-topology", value_name = "FILE")]
    with_topology: Vec<PathBuf>,
    /// The after side's own VM size (with the shared --topology's disks when no
    /// --with-topology is given).
    #[arg(long = "with-vm", value_name = "SIZE")]
    with_vm: Option<String>,
    /// A label per input, in order (the before inputs, then the after ones), for the
    /// benchmark table and charts; inputs without one are labelled by their file name.
    #[arg(long = "label", value_name = "LABEL")]
    labels: Vec<String>,
    /// Report format. Default: from the --output extension (.html/.htm, .md, .json), else md.
    #[arg(long, value_enum, value_name = "FORMAT")]
    format: Option<FormatArg>,
    /// Write the comparison to this file instead of stdout.
    #[arg(long, short = 'o', value_name = "FILE")]
    output: Option<PathBuf>,
    /// Exit with 1 when the verdict is worse or mixed.
    #[arg(long = "fail-on-worse")]
    fail_on_worse: bool,
    /// Also load the rules of this folder (adds, or replaces a shipped rule by id).
    #[arg(long = "rules", value_name = "DIR")]
    rules: Vec<PathBuf>,
    /// Set a rule parameter, e.g. --set vm-cached-throughput-cap.cap_ratio=90%.
    #[arg(long = "set", value_name = "ID.PARAM=VALUE")]
    sets: Vec<String>,
    /// Templates that replace the built-in ones file by file (compare.md.tera, ...).
    #[arg(long, value_name = "DIR")]
    templates: Option<PathBuf>,
    /// A catalog CSV (VM sizes or disk SKUs) that extends or corrects the built-in one.
    #[arg(long, value_name = "FILE")]
    catalog: Vec<PathBuf>,
    /// PerfMon counter names of another display language (a TOML table like those in
    /// counters/), used before the built-in tables.
    #[arg(long, value_name = "FILE")]
    counters: Vec<PathBuf>,
    /// No note on stderr; errors are still printed.
    #[arg(long, short = 'q')]
    quiet: bool,
}

/// The two sides' topology sources: the shared options for the before side, and for the
/// after side its own when given (`--with-vm` alone keeps the shared files' disks).
fn sources(args: &CompareArgs) -> (TopologySources, TopologySources) {
    let before =
        TopologySources { files: args.topology.clone(), vm: args.vm.clone(), ..Default::default() };
    let after = TopologySources {
        files: if args.with_topology.is_empty() {
            args.topology.clone()
        } else {
            args.with_topology.clone()
        },
        vm: if args.with_topology.is_empty() && args.with_vm.is_none() {
            args.vm.clone()
        } else {
            args.with_vm.clone()
        },
        ..Default::default()
    };
    (before, after)
}

pub(crate) fn run(args: &CompareArgs) -> anyhow::Result<ExitCode> {
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
    let n = args.before.len() + args.after.len();
    if args.labels.len() > n {
        anyhow::bail!(
            "{} labels for {n} inputs: give at most one --label per input",
            args.labels.len()
        );
    }
    let session =
        session(&args.rules, &args.sets, &args.catalog, args.templates.as_deref(), &args.counters)?;
    let (tb, ta) = sources(args);
    let split = args.before.len().min(args.labels.len());
    let side = |files: &[PathBuf], topology, labels: &[String]| CompareSide {
        inputs: files.iter().cloned().map(Input::Path).collect(),
        topology,
        labels: labels.to_vec(),
    };
    let mut bar = Bar::new(args.quiet);
    let comparison = match session.compare(
        side(&args.before, tb, &args.labels[..split]),
        side(&args.after, ta, &args.labels[split..]),
        &mut bar,
    ) {
        Ok(c) => c,
        Err(e) => return bar.failed(e),
    };
    let report = session.render_comparison(&comparison, format)?;
    deliver(&report, args.output.as_deref(), args.quiet, || {
        format!("{} comparison written ({})", format.as_str(), comparison.verdict.sentence)
    })?;
    let worse = matches!(comparison.verdict.outcome, Outcome::Worse | Outcome::Mixed);
    Ok(if args.fail_on_worse && worse { ExitCode::from(EXIT_WORSE) } else { ExitCode::SUCCESS })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        args: CompareArgs,
    }

    fn parse(line: &[&str]) -> CompareArgs {
        Cli::try_parse_from(std::iter::once("compare").chain(line.iter().copied()))
            .expect("parses")
            .args
    }

    #[test]
    fn one_topology_serves_both_sides_unless_the_after_side_has_its_own() {
        let a = parse(&["b.csv", "--with", "a.csv", "--topology", "t.toml"]);
        let (b, af) = sources(&a);
        assert_eq!(b.files, af.files);
        let a = parse(&[
            "b.csv",
            "--vm",
            "Standard_DS13_v2",
            "--with",
            "a.csv",
            "--with-vm",
            "Standard_DS14_v2",
        ]);
        let (b, af) = sources(&a);
        assert_eq!(b.vm.as_deref(), Some("Standard_DS13_v2"));
        assert_eq!(af.vm.as_deref(), Some("Standard_DS14_v2"));
        let a = parse(&[
            "b.csv",
            "--topology",
            "t.toml",
            "--with",
            "a.csv",
            "--with-topology",
            "u.toml",
        ]);
        let (b, af) = sources(&a);
        assert_eq!(b.files, [PathBuf::from("t.toml")]);
        assert_eq!(af.files, [PathBuf::from("u.toml")]);
        assert_eq!(af.vm, None);
    }

    #[test]
    fn several_captures_per_side() {
        let a = parse(&["b1.csv", "b2.json", "--with", "a1.csv", "a2.json"]);
        assert_eq!(a.before.len(), 2);
        assert_eq!(a.after.len(), 2);
    }
}
