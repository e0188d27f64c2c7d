//! `advisor`: tells a person why an Azure VM's storage is slow, with the numbers that prove it.

mod analyze_cmd;
mod batch_cmd;
mod catalog_cmd;
mod compare_cmd;
mod inspect_cmd;
mod mcp_cmd;
mod recommend_cmd;
mod rules_cmd;
mod schema_cmd;
mod serve_cmd;
mod token_cmd;
mod topology_cmd;

use std::process::ExitCode;

use clap::{CommandFactory as _, FromArgMatches as _, Parser, Subcommand};

/// The static (musl) build allocates with mimalloc: musl's allocator takes one lock that the
/// parsing and rule threads queue on.
#[cfg(target_env = "musl")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Exit code for bad usage or unreadable input (the contract's 2).
pub(crate) const EXIT_INPUT: u8 = 2;

#[derive(Debug, Parser)]
#[command(name = "advisor", version, long_about = None)]
/// Reads storage performance captures and tells what limits an Azure VM's storage.
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Analyze captures against the VM's topology and write a report (md, html, json).
    Analyze(analyze_cmd::AnalyzeArgs),
    /// Batch triage: analyse each capture or bundle of a queue on its own, in parallel
    /// within a memory budget; one report per input and an index (index.md, index.json).
    Batch(batch_cmd::BatchArgs),
    /// Compare runs before and after a change: per target and budget, findings resolved and
    /// new, and a verdict in the first line.
    Compare(compare_cmd::CompareArgs),
    /// Show what was recognised in captures: format, hosts, time range, targets, metrics.
    Inspect(inspect_cmd::InspectArgs),
    /// Azure VM size and disk SKU limits from the built-in catalog, with their sources.
    Catalog(catalog_cmd::CatalogArgs),
    /// The ruleset: list the rules, check rule files, explain a rule.
    Rules(rules_cmd::RulesArgs),
    /// The VM size and disk SKUs that carry the captured workload, and why.
    Recommend(recommend_cmd::RecommendArgs),
    /// Print the JSON Schema of the JSON report (advisor.report/v1), or of compare's,
    /// recommend's, batch's index, a rule's (rules explain --json) or a VM size's (catalog
    /// vm --json).
    Schema(schema_cmd::SchemaArgs),
    /// Merge topology documents (topology TOML, IMDS, az vm show, az disk list, lsblk,
    /// Get-Disk, ...) and print the topology as TOML, each fact with its source.
    Topology(topology_cmd::TopologyArgs),
    /// Serve the upload page and the HTTP API (loopback by default) until SIGTERM or Ctrl-C.
    Serve(serve_cmd::ServeArgs),
    /// Tokens for `advisor serve --tokens FILE`: `advisor token new NAME`.
    Token(token_cmd::TokenArgs),
    /// Serve the analyses as Model Context Protocol tools on stdin and stdout, for agents;
    /// files are read only under the --allow directories.
    Mcp(mcp_cmd::McpArgs),
}

/// The command line, with `--help` naming every input the reader registry reads (clap's
/// texts are static; the list is not written by hand).
fn command() -> clap::Command {
    Cli::command().long_about(long_about())
}

fn long_about() -> String {
    format!(
        "Reads storage performance captures and tells what limits an Azure VM's storage.\n\n\
         Reads (the format is detected from the content): {}; and {}, or their folders.",
        advisor_engine::capture_formats_sentence(),
        advisor_engine::BUNDLES
    )
}

fn main() -> ExitCode {
    // On Windows, cmd and PowerShell hand `*.csv` over as it is: `wild` expands it the way a
    // Unix shell would (a pattern that matches nothing stays as written, and a quoted one is
    // not expanded). Elsewhere the arguments pass through unchanged.
    let cli = match command()
        .try_get_matches_from(wild::args_os())
        .and_then(|m| Cli::from_arg_matches(&m))
    {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { ExitCode::from(EXIT_INPUT) } else { ExitCode::SUCCESS };
        }
    };
    let result = match &cli.command {
        Command::Analyze(args) => analyze_cmd::run(args),
        Command::Batch(args) => batch_cmd::run(args),
        Command::Compare(args) => compare_cmd::run(args),
        Command::Inspect(args) => inspect_cmd::run(args),
        Command::Catalog(args) => catalog_cmd::run(args),
        Command::Rules(args) => rules_cmd::run(args),
        Command::Recommend(args) => recommend_cmd::run(args),
        Command::Schema(args) => schema_cmd::run(args),
        Command::Serve(args) => serve_cmd::run(args),
        Command::Token(args) => token_cmd::run(args),
        Command::Mcp(args) => mcp_cmd::run(args),
        Command::Topology(args) => topology_cmd::run(args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(EXIT_INPUT)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_long_help_names_every_format_of_the_registry() {
        let help = command().render_long_help().to_string();
        assert_eq!(advisor_engine::missing_formats(&help), Vec::<&str>::new(), "{help}");
        // `-h` keeps the one line.
        let short = command().render_help().to_string();
        assert!(short.starts_with("Reads storage performance captures and tells"), "{short}");
        assert!(!short.contains("typeperf"), "{short}");
    }

    #[test]
    fn the_command_line_is_well_formed() {
        command().debug_assert();
    }
}
