//! `advisor token new NAME`: a token for a client of `advisor serve --tokens FILE`, and the
//! line that goes into FILE. The token is printed once and stored nowhere: the file holds
//! only its SHA-256.

use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub(crate) struct TokenArgs {
    #[command(subcommand)]
    command: TokenCommand,
}

#[derive(Debug, clap::Subcommand)]
enum TokenCommand {
    /// Print a new token for NAME on the first line, and its line for the --tokens file
    /// (NAME:SHA256) on the second.
    New {
        /// The client's name, as the audit trail shows it: letters, digits and . _ @ + -
        name: String,
    },
}

pub(crate) fn run(args: &TokenArgs) -> anyhow::Result<ExitCode> {
    match &args.command {
        TokenCommand::New { name } => {
            let (token, line) = advisor_server::new_token(name)
                .map_err(|e| anyhow::anyhow!("advisor token new {name}: {e}"))?;
            println!("{token}");
            println!("{line}");
            eprintln!(
                "advisor token new: the first line is {name}'s token: hand it over now, it is \
                 kept nowhere. The second line goes into the file of `advisor serve --tokens`."
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}
