//! `advisor topology FILES...`: the merged topology of the contract's topology files and
//! Azure's and the guest's own documents, printed as the contract's TOML with the source of
//! each fact in a comment, to correct and pass again with `--topology`.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use advisor_engine::{Session, TopologySources};

#[derive(Debug, clap::Args)]
pub(crate) struct TopologyArgs {
    /// Topology documents: the topology file (TOML/JSON), the IMDS instance document, az vm
    /// show, az disk list/show, lsblk -J, ls -lR /dev/disk/azure, Get-Disk /
    /// Get-PhysicalDisk / Get-Partition / Get-Volume JSON.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// A catalog CSV (VM sizes or disk SKUs) that extends or corrects the built-in one.
    #[arg(long, value_name = "FILE")]
    catalog: Vec<PathBuf>,
}

pub(crate) fn run(args: &TopologyArgs) -> anyhow::Result<ExitCode> {
    let session = Session::builder().catalog(&args.catalog).build()?;
    let sources = TopologySources { files: args.files.clone(), ..TopologySources::default() };
    let merged = session.topology(&sources)?;
    // A closed pipe (`| head`) is not an error worth reporting.
    let _ = std::io::stdout().lock().write_all(merged.toml.as_bytes());
    Ok(ExitCode::SUCCESS)
}
