//! `advisor recommend CAPTURE... [--topology F]... [--vm SIZE] [--percentile 95]
//! [--headroom 1.2] [--interval S] [--family X,...] [--any-size] [--prices FILE]
//! [--region R] [--format md|html|json] [--output F]`
//!
//! The VM size and disk SKUs that carry the demand the captures show, each with the figure
//! that decides it, and the confidence; with a prices file (the Azure Retail Prices API's
//! JSON) the monthly cost of today's and the proposed configuration.

use std::path::PathBuf;
use std::process::ExitCode;

use advisor_engine::recommend::{
    PriceList, RecommendOptions, parse_headroom, parse_interval, parse_percentile,
};
use advisor_engine::{Request, Session, TopologySources};

use crate::analyze_cmd::Bar;
use advisor_report::Format;
use anyhow::Context as _;

use crate::EXIT_INPUT;

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum FormatArg {
    Md,
    Html,
    Json,
}

#[derive(Debug, clap::Args)]
pub(crate) struct RecommendArgs {
    /// Capture files or collector bundles, as `advisor analyze` takes them.
    #[arg(required = true, value_name = "CAPTURE")]
    files: Vec<PathBuf>,
    /// The VM's topology (repeatable), as `advisor analyze` takes it.
    #[arg(long, value_name = "FILE")]
    topology: Vec<PathBuf>,
    /// The VM size today (replaces the topology's).
    #[arg(long, value_name = "SIZE")]
    vm: Option<String>,
    /// The percentile of the samples (or per-interval peaks) taken as demand.
    #[arg(long, default_value_t = 95.0, value_parser = parse_percentile)]
    percentile: f64,
    /// The factor demand is multiplied by before it is compared with caps.
    #[arg(long, default_value_t = 1.2, value_parser = parse_headroom)]
    headroom: f64,
    /// Seconds: with samples finer than this, each interval's peak is one value of the
    /// percentile (e.g. 60 for per-minute peaks of a 1 s capture).
    #[arg(long, value_name = "SECONDS", value_parser = parse_interval)]
    interval: Option<f64>,
    /// VM series to consider after the current one (Edsv5, Ev5, ...), comma-separated or
    /// repeated.
    #[arg(long, value_name = "SERIES", value_delimiter = ',')]
    family: Vec<String>,
    /// Accept sizes with fewer vCPUs or less memory than today's.
    #[arg(long)]
    any_size: bool,
    /// Prices: the JSON of the Azure Retail Prices API
    /// (https://prices.azure.com/api/retail/prices?$filter=...), pages concatenated.
    #[arg(long, value_name = "FILE")]
    prices: Option<PathBuf>,
    /// The region (armRegionName) to price in, when the prices file has several.
    #[arg(long, value_name = "REGION")]
    region: Option<String>,
    /// Output format. Default: from the --output extension, else md.
    #[arg(long, value_enum, value_name = "FORMAT")]
    format: Option<FormatArg>,
    /// Write to this file instead of stdout.
    #[arg(long, short = 'o', value_name = "FILE")]
    output: Option<PathBuf>,
    /// A catalog CSV (VM sizes or disk SKUs) that extends or corrects the built-in one.
    #[arg(long, value_name = "FILE")]
    catalog: Vec<PathBuf>,
    /// PerfMon counter names of another display language (a TOML table like those in
    /// counters/), used before the built-in tables.
    #[arg(long, value_name = "FILE")]
    counters: Vec<PathBuf>,
}

pub(crate) fn run(args: &RecommendArgs) -> anyhow::Result<ExitCode> {
    let format = match (args.format, &args.output) {
        (Some(FormatArg::Md), _) => Format::Markdown,
        (Some(FormatArg::Html), _) => Format::Html,
        (Some(FormatArg::Json), _) => Format::Json,
        (None, Some(p)) => Format::from_path(p).unwrap_or(Format::Markdown),
        (None, None) => Format::Markdown,
    };
    let session = Session::builder().catalog(&args.catalog).counters(&args.counters).build()?;
    let prices = match &args.prices {
        Some(p) => {
            let text =
                std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?;
            match PriceList::parse(&p.display().to_string(), &text, args.region.as_deref()) {
                Ok(list) => Some(list),
                Err(e) => {
                    eprintln!("error: {e}");
                    return Ok(ExitCode::from(EXIT_INPUT));
                }
            }
        }
        None => None,
    };
    let options = RecommendOptions {
        percentile: args.percentile,
        headroom: args.headroom,
        interval_s: args.interval,
        families: args.family.clone(),
        any_vcpu_memory: args.any_size,
        prices,
    };
    options.check(session.catalog()).map_err(anyhow::Error::msg)?;
    let sources = TopologySources {
        files: args.topology.clone(),
        vm: args.vm.clone(),
        ..TopologySources::default()
    };
    let request = Request::new(args.files.iter().cloned()).topology(sources);
    // Silent on stderr but for errors, as it always was.
    let mut bar = Bar::new(true);
    let rec = match session.recommend(request, &options, &mut bar) {
        Ok(r) => r,
        Err(e) => return bar.failed(e),
    };
    let text = session.render_recommendation(&rec, format)?;
    // Silent after a file, as it always was.
    crate::analyze_cmd::deliver(&text, args.output.as_deref(), true, String::new)?;
    Ok(ExitCode::SUCCESS)
}
