//! `advisor schema [report|compare|recommend|batch|rule|catalog-vm]`: the JSON Schema of
//! the JSON report (`advisor.report/v1`) or of another JSON document advisor writes,
//! generated from the Rust types the documents are serialized from, so the two cannot
//! drift (`advisor_engine::schema`, which the Python package and the MCP server give too).

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
    /// A rule explained: `advisor rules explain ID --json`.
    Rule,
    /// A VM size's limits: `advisor catalog vm SIZE --json`.
    CatalogVm,
}

#[derive(Debug, clap::Args)]
pub(crate) struct SchemaArgs {
    /// Which document's schema: report (default), compare, recommend, batch, rule or
    /// catalog-vm.
    #[arg(value_enum, default_value_t = Which::Report)]
    which: Which,
}

pub(crate) fn run(args: &SchemaArgs) -> anyhow::Result<ExitCode> {
    let name = match args.which {
        Which::Report => "report",
        Which::Compare => "compare",
        Which::Recommend => "recommend",
        Which::Batch => "batch",
        Which::Rule => "rule",
        Which::CatalogVm => "catalog-vm",
    };
    let schema =
        advisor_engine::schema(name).ok_or_else(|| anyhow::anyhow!("no schema called {name}"))?;
    let text = serde_json::to_string_pretty(&schema)?;
    // A closed pipe (`| head`) is not an error worth reporting.
    let _ = writeln!(std::io::stdout().lock(), "{text}");
    Ok(ExitCode::SUCCESS)
}
