//! `advisor rules list | check [DIR]... | explain ID`

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use advisor_engine::RuleSummary;
use advisor_engine::rules::{LoadError, Origin, Registry, dir_files, shipped_files};

use crate::EXIT_INPUT;

#[derive(Debug, clap::Args)]
pub(crate) struct RulesArgs {
    #[command(subcommand)]
    command: RulesCommand,
}

#[derive(Debug, clap::Subcommand)]
enum RulesCommand {
    /// List the rules in force: id, severity, scope, title.
    List {
        /// Print JSON (an array, one object per rule, with its parameters).
        #[arg(long)]
        json: bool,
        /// Also load the rules of this folder (adds, or replaces a shipped rule by id).
        #[arg(long = "rules", value_name = "DIR")]
        rules: Vec<PathBuf>,
    },
    /// Check rule files and print every error with file:line:col. With no DIR, checks the
    /// shipped ruleset. Exit code 2 when any rule has an error.
    Check {
        /// Folders of `*.rule` files (searched recursively).
        #[arg(value_name = "DIR")]
        dirs: Vec<PathBuf>,
    },
    /// Print a rule's documentation: what it checks, why, the fix, parameters, references.
    Explain {
        /// The rule id, e.g. vm-cached-throughput-cap.
        #[arg(value_name = "RULE-ID")]
        id: String,
        /// Print JSON (the document of `advisor schema rule`).
        #[arg(long)]
        json: bool,
        /// Also load the rules of this folder (adds, or replaces a shipped rule by id).
        #[arg(long = "rules", value_name = "DIR")]
        rules: Vec<PathBuf>,
    },
}

pub(crate) fn run(args: &RulesArgs) -> anyhow::Result<ExitCode> {
    match &args.command {
        RulesCommand::Check { dirs } => Ok(check(dirs)),
        RulesCommand::List { json, rules } => {
            let (reg, ok) = load(rules);
            let list = RuleSummary::all(&reg);
            if *json {
                out(&format!("{}\n", serde_json::to_string_pretty(&list)?));
            } else {
                out(&RuleSummary::table(&list));
            }
            Ok(exit(ok))
        }
        RulesCommand::Explain { id, json, rules } => {
            let (reg, ok) = load(rules);
            match reg.get(id) {
                Some(r) if *json => {
                    let doc = advisor_engine::RuleDocument::of(r, &reg);
                    out(&format!("{}\n", serde_json::to_string_pretty(&doc)?));
                    Ok(exit(ok))
                }
                Some(r) => {
                    out(&advisor_engine::rules::explain(r));
                    Ok(exit(ok))
                }
                None => {
                    eprint!("{}", reg.unknown_rule(id));
                    Ok(ExitCode::from(EXIT_INPUT))
                }
            }
        }
    }
}

/// Writes to stdout; a closed pipe (`| head`) is not an error worth a panic.
fn out(text: &str) {
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}

fn exit(ok: bool) -> ExitCode {
    if ok { ExitCode::SUCCESS } else { ExitCode::from(EXIT_INPUT) }
}

/// The shipped rules plus `--rules` folders; load errors go to stderr (the rules that
/// checked are still used).
fn load(dirs: &[PathBuf]) -> (Registry, bool) {
    let (mut reg, res) = Registry::shipped();
    let mut ok = true;
    if let Err(e) = res {
        eprintln!("{e}");
        ok = false;
    }
    for d in dirs {
        if let Err(e) = reg.load_dir(d) {
            eprintln!("{e}");
            ok = false;
        }
    }
    (reg, ok)
}

fn check(dirs: &[PathBuf]) -> ExitCode {
    let mut reg = Registry::new();
    let mut checked = 0usize;
    let mut errors = 0usize;
    if dirs.is_empty() {
        let files = shipped_files();
        checked += files.len();
        errors += report(reg.add_files(files, &Origin::Shipped));
    }
    for d in dirs {
        match dir_files(d) {
            Ok(files) => {
                checked += files.len();
                errors += report(reg.add_files(files, &Origin::Dir(d.clone())));
            }
            Err(diag) => {
                errors += 1;
                out(&format!("{diag}\n"));
            }
        }
    }
    let s = if checked == 1 { "" } else { "s" };
    if errors == 0 {
        out(&format!("{checked} rule{s} checked, no errors\n"));
        ExitCode::SUCCESS
    } else {
        let e = if errors == 1 { "" } else { "s" };
        out(&format!("{checked} rule{s} checked, {errors} error{e}\n"));
        ExitCode::from(EXIT_INPUT)
    }
}

/// Prints a load's diagnostics; how many there were.
fn report(res: Result<usize, LoadError>) -> usize {
    match res {
        Ok(_) => 0,
        Err(e) => {
            out(&format!("{e}\n"));
            e.diagnostics.len()
        }
    }
}
