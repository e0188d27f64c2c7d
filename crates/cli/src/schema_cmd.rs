//! `advisor schema [report|compare]`: the JSON Schema of the JSON report
//! (`advisor.report/v1`) or of the comparison (`advisor.compare/v1`), generated from the
//! Rust types the documents are serialized from, so the two cannot drift.

use std::io::Write as _;
use std::process::ExitCode;

#[derive(Debug, Clone, Copy, Default, clap::ValueEnum)]
enum Which {
    /// The JSON report of `advisor analyze` (advisor.report/v1).
    #[default]
    Report,
    /// The JSON comparison of `advisor compare` (advisor.compare/v1).
    Compare,
    /// The JSON of `advisor recommend` (advisor.recommend/v1).
    Recommend,
    /// `index.json` of `advisor batch` (advisor.batch/v1).
    Batch,
}

#[derive(Debug, clap::Args)]
pub(crate) struct SchemaArgs {
    /// Which document's schema: report (default), compare, recommend or batch.
    #[arg(value_enum, default_value_t = Which::Report)]
    which: Which,
}

pub(crate) fn run(args: &SchemaArgs) -> anyhow::Result<ExitCode> {
    let schema = match args.which {
        Which::Report => advisor_report::json_schema(),
        Which::Compare => advisor_report::compare_json_schema(),
        Which::Recommend => advisor_report::recommend_schema(),
        Which::Batch => advisor_report::batch_json_schema(),
    };
    let text = serde_json::to_string_pretty(&schema)?;
    // A closed pipe (`| head`) is not an error worth reporting.
    let _ = writeln!(std::io::stdout().lock(), "{text}");
    Ok(ExitCode::SUCCESS)
}
