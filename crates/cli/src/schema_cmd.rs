//! `advisor schema`: the JSON Schema of the JSON report (`advisor.report/v1`), generated
//! from the Rust types the report is serialized from, so the two cannot drift.

use std::io::Write as _;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub(crate) struct SchemaArgs {
    /// Which JSON: the report (`analyze`, the default) or `recommend`'s.
    #[arg(value_enum, default_value = "report")]
    of: SchemaOf,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum SchemaOf {
    Report,
    Recommend,
}

pub(crate) fn run(args: &SchemaArgs) -> anyhow::Result<ExitCode> {
    let schema = match args.of {
        SchemaOf::Report => advisor_report::json_schema(),
        SchemaOf::Recommend => advisor_report::recommend_schema(),
    };
    let text = serde_json::to_string_pretty(&schema)?;
    // A closed pipe (`| head`) is not an error worth reporting.
    let _ = writeln!(std::io::stdout().lock(), "{text}");
    Ok(ExitCode::SUCCESS)
}
