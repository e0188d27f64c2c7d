//! `advisor schema`: the JSON Schema of the JSON report (`advisor.report/v1`), generated
//! from the Rust types the report is serialized from, so the two cannot drift.

use std::io::Write as _;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub(crate) struct SchemaArgs {}

pub(crate) fn run(_: &SchemaArgs) -> anyhow::Result<ExitCode> {
    let text = serde_json::to_string_pretty(&advisor_report::json_schema())?;
    // A closed pipe (`| head`) is not an error worth reporting.
    let _ = writeln!(std::io::stdout().lock(), "{text}");
    Ok(ExitCode::SUCCESS)
}
