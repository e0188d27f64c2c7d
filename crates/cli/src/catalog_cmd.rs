//! `advisor catalog vm SIZE | disk SKU | list [--series X]`: the built-in Azure limits,
//! each figure with its unit and the source of its row.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use advisor_engine::catalog::{
    BurstModel, Catalog, DiskKind, DiskSku, HOST_CACHE_MAX_GIB, RemoteFigures, SizeStatus, SkuRef,
    UnknownName, VmSize, did_you_mean, fmt_num,
};
use advisor_engine::{CatalogList, DiskDocument, VmCounts, VmDocument};

use crate::EXIT_INPUT;

#[derive(Debug, clap::Args)]
pub(crate) struct CatalogArgs {
    #[command(subcommand)]
    what: CatalogWhat,
    /// A CSV of VM sizes (`size,...` header) or disk SKUs (`sku,...`) that overrides or
    /// extends the built-in catalog; may be given twice (one of each).
    #[arg(long, value_name = "FILE", global = true)]
    catalog: Vec<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long, global = true)]
    json: bool,
}

#[derive(Debug, clap::Subcommand)]
enum CatalogWhat {
    /// A VM size's storage limits (case-insensitive, `Standard_` optional).
    Vm {
        #[arg(value_name = "SIZE")]
        size: String,
    },
    /// A managed-disk SKU's limits (P30, E10, S4, P30_PerfPlus, PremiumV2, Ultra).
    Disk {
        #[arg(value_name = "SKU")]
        sku: String,
    },
    /// The VM sizes and disk SKUs the catalog knows.
    List {
        /// Only this VM series (`DSv2`, `Easv5`, `Ev5`, `M`).
        #[arg(long, value_name = "X")]
        series: Option<String>,
        /// Only the disk SKUs.
        #[arg(long, conflicts_with = "series")]
        disks: bool,
    },
}

pub(crate) fn run(args: &CatalogArgs) -> anyhow::Result<ExitCode> {
    let mut catalog = Catalog::builtin()?;
    for file in &args.catalog {
        catalog.merge_file(file)?;
    }
    let mut out = String::new();
    match &args.what {
        CatalogWhat::Vm { size } => match catalog.vm(size) {
            Ok(vm) if args.json => out = serde_json::to_string_pretty(&VmDocument::of(vm))?,
            Ok(vm) => render_vm(&mut out, vm)?,
            Err(u) => return Ok(unknown(&u)),
        },
        CatalogWhat::Disk { sku } => {
            let rows: Vec<&DiskSku> = match catalog.resolve_sku(sku) {
                Ok(SkuRef::Row(d)) if d.kind != DiskKind::PremiumSsdV2 => vec![d],
                Ok(SkuRef::Row(_) | SkuRef::PremiumV2) => catalog.disks_of(DiskKind::PremiumSsdV2),
                Ok(SkuRef::Ultra) => catalog.disks_of(DiskKind::Ultra),
                Err(u) => return Ok(unknown(&u)),
            };
            if args.json {
                let docs: Vec<DiskDocument> = rows.iter().map(|d| DiskDocument::of(d)).collect();
                // One SKU is its document; a family provisioned per disk, their list.
                out = match docs.as_slice() {
                    [one] => serde_json::to_string_pretty(one)?,
                    many => serde_json::to_string_pretty(many)?,
                };
            } else {
                render_disks(&mut out, &rows)?;
            }
        }
        CatalogWhat::List { series, disks } => {
            let vms: Vec<&VmSize> = match series {
                _ if *disks => Vec::new(),
                None => catalog.vm_sizes(),
                Some(s) => {
                    let v: Vec<&VmSize> =
                        catalog.vm_sizes().into_iter().filter(|v| v.in_series(s)).collect();
                    if v.is_empty() {
                        let all = catalog.series();
                        eprintln!("error: unknown VM series \"{s}\"");
                        match did_you_mean(s, all.iter().map(String::as_str)) {
                            Some(m) => eprintln!("  help: did you mean \"{m}\"?"),
                            None => eprintln!("  help: the series are: {}", all.join(", ")),
                        }
                        return Ok(ExitCode::from(EXIT_INPUT));
                    }
                    v
                }
            };
            let skus: Vec<&DiskSku> =
                if series.is_some() { Vec::new() } else { catalog.disk_skus() };
            if args.json {
                out = serde_json::to_string_pretty(&CatalogList::of(&vms, &skus))?;
            } else {
                render_list(&mut out, &vms, &skus)?;
            }
        }
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    // A closed pipe (`advisor catalog list | head`) is not an error.
    match std::io::stdout().lock().write_all(out.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(ExitCode::SUCCESS),
    }
}

/// An unknown name: the did-you-mean on stderr, exit 2.
fn unknown(u: &UnknownName) -> ExitCode {
    eprintln!("error: {u}");
    eprintln!("  help: {}", u.help());
    ExitCode::from(EXIT_INPUT)
}

fn with_unit(x: Option<f64>, unit: &str) -> String {
    match x {
        Some(x) => format!("{} {unit}", fmt_num(x)),
        None => "not published".to_owned(),
    }
}

fn yes(b: bool) -> &'static str {
    if b { "supported" } else { "not supported" }
}

fn render_vm(out: &mut String, vm: &VmSize) -> std::fmt::Result {
    write!(out, "{} (series {}", vm.name, vm.series())?;
    if let Some(c) = vm.controller() {
        write!(out, ", {} controller figures", c.to_ascii_uppercase())?;
    }
    writeln!(out, ")")?;
    let count = |x: Option<u32>| x.map_or_else(|| "not published".to_owned(), |x| x.to_string());
    let status = match vm.status {
        SizeStatus::Current => "current".to_owned(),
        SizeStatus::Previous => "previous generation".to_owned(),
        SizeStatus::Retired => "retired (no longer runs in Azure)".to_owned(),
    };
    let mut rows: Vec<(String, String)> = vec![
        ("status".into(), status),
        ("vCPUs".into(), count(vm.vcpu)),
        ("memory".into(), with_unit(vm.memory_gib, "GiB")),
        (
            "temp disk".into(),
            match (vm.temp_gib, vm.temp_disks) {
                (Some(t), _) if t <= 0.0 => "none".to_owned(),
                (t, Some(n)) if n > 1 => format!("{} ({n} disks)", with_unit(t, "GiB")),
                (t, _) => with_unit(t, "GiB"),
            },
        ),
        ("max data disks".into(), count(vm.max_data_disks)),
        ("cached IOPS".into(), with_unit(vm.cached_iops, "IOPS")),
        ("cached throughput".into(), with_unit(vm.cached_mbps, "MB/s")),
        ("cache size".into(), with_unit(vm.cache_gib, "GiB")),
    ];
    // Where both controllers are published, the plain figures are SCSI's; where only the
    // NVMe ones are, they are those.
    let nvme_only = vm.controller().is_none() && vm.nvme.any() && vm.nvme == vm.remote();
    let both = vm.controller().is_none() && vm.nvme.any() && !nvme_only;
    let label = match (both, nvme_only) {
        (true, _) => " (SCSI)",
        (_, true) => " (NVMe)",
        _ => "",
    };
    remote_rows(&mut rows, &vm.remote(), label, vm.premium_storage());
    if both {
        remote_rows(&mut rows, &vm.nvme, " (NVMe)", vm.premium_storage());
    }
    if vm.temp_gib.is_some_and(|t| t > 0.0) {
        rows.push(("temp disk read IOPS".into(), with_unit(vm.temp_iops, "IOPS")));
        rows.push(("temp disk read throughput".into(), with_unit(vm.temp_mbps, "MB/s")));
        if vm.temp_write_iops.is_some() || vm.temp_write_mbps.is_some() {
            rows.push(("temp disk write IOPS".into(), with_unit(vm.temp_write_iops, "IOPS")));
            rows.push(("temp disk write throughput".into(), with_unit(vm.temp_write_mbps, "MB/s")));
        }
    }
    if let Some(n) = vm.local_nvme_disks {
        let each =
            vm.local_nvme_disk_gb.map_or_else(String::new, |g| format!(" of {} GB", fmt_num(g)));
        rows.push(("local NVMe disks".into(), format!("{n}{each}")));
        rows.push(("local NVMe IOPS".into(), with_unit(vm.local_nvme_iops, "IOPS")));
        rows.push(("local NVMe throughput".into(), with_unit(vm.local_nvme_mbps, "MB/s")));
    }
    rows.push(("premium storage".into(), yes(vm.premium_storage()).to_owned()));
    rows.push(("host caching".into(), yes(vm.host_caching()).to_owned()));
    for (k, v) in &rows {
        writeln!(out, "  {k:<VM_LABEL$}{v}")?;
    }
    if let Some(why) = vm.cached_gap_reason() {
        let text = format!(
            "{why}. Rules that compare with the cached limit report {} as not evaluated; set cached_iops and cached_mbps in the topology's [vm] section if you have figures.",
            vm.name
        );
        for (i, line) in wrap(&text, WRAP_WIDTH).iter().enumerate() {
            writeln!(out, "  {:<VM_LABEL$}{line}", if i == 0 { "no cached limit" } else { "" })?;
        }
    }
    writeln!(out, "  cached = host-cached disks + the temp disk; uncached = all remote disks")?;
    if vm.uncached_v2_iops.is_some() || vm.nvme.v2_iops.is_some() {
        writeln!(
            out,
            "  v2 / Ultra = the remote limits of Premium SSD v2 and Ultra disks, published apart"
        )?;
    }
    render_source(out, &vm.source, VM_LABEL)
}

/// The label column of `catalog vm` (wide enough for `v2 / Ultra burst throughput (NVMe)`).
const VM_LABEL: usize = 36;

/// The remote rows of one controller (`suffix` says which, when the size publishes both).
fn remote_rows(rows: &mut Vec<(String, String)>, r: &RemoteFigures, suffix: &str, premium: bool) {
    rows.push((format!("uncached IOPS{suffix}"), with_unit(r.iops, "IOPS")));
    rows.push((format!("uncached throughput{suffix}"), with_unit(r.mbps, "MB/s")));
    rows.push((format!("uncached burst IOPS{suffix}"), with_unit(r.burst_iops, "IOPS")));
    rows.push((format!("uncached burst throughput{suffix}"), with_unit(r.burst_mbps, "MB/s")));
    if premium {
        rows.push((format!("v2 / Ultra IOPS{suffix}"), with_unit(r.v2_iops, "IOPS")));
        rows.push((format!("v2 / Ultra throughput{suffix}"), with_unit(r.v2_mbps, "MB/s")));
        if r.v2_burst_iops.is_some() || r.v2_burst_mbps.is_some() {
            rows.push((
                format!("v2 / Ultra burst IOPS{suffix}"),
                with_unit(r.v2_burst_iops, "IOPS"),
            ));
            rows.push((
                format!("v2 / Ultra burst throughput{suffix}"),
                with_unit(r.v2_burst_mbps, "MB/s"),
            ));
        }
    }
}

/// The width of a wrapped value column (the label column is 38 wide).
const WRAP_WIDTH: usize = 62;

/// Words into lines of at most `width` characters (a longer word gets a line of its own).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

fn render_source(out: &mut String, source: &[String], width: usize) -> std::fmt::Result {
    for (i, s) in source.iter().enumerate() {
        writeln!(out, "  {:<width$}{s}", if i == 0 { "source" } else { "" })?;
    }
    Ok(())
}

fn render_disks(out: &mut String, rows: &[&DiskSku]) -> std::fmt::Result {
    if let Some(first) = rows.first().filter(|_| rows.len() > 1) {
        writeln!(
            out,
            "{}: performance is provisioned per disk; give `iops` and `mbps` in the topology.",
            first.kind
        )?;
        writeln!(out, "The documented figures:\n")?;
    }
    for (n, d) in rows.iter().enumerate() {
        if n > 0 {
            out.push('\n');
        }
        write!(out, "{} ({}", d.name, d.tier)?;
        if let Some(s) = d.size {
            write!(out, ", {s}")?;
        }
        writeln!(out, ")")?;
        writeln!(out, "  {:<26}{}", "IOPS", with_unit(d.iops, "IOPS"))?;
        writeln!(out, "  {:<26}{}", "throughput", with_unit(d.mbps, "MB/s"))?;
        let burst = match d.burst_model() {
            BurstModel::None => "none",
            BurstModel::Credit => "credit-based, on by default, up to 30 minutes",
            BurstModel::OnDemand => "on demand, when enabled on the disk (billed)",
        };
        writeln!(out, "  {:<26}{burst}", "bursting")?;
        if d.burst_model() != BurstModel::None {
            writeln!(out, "  {:<26}{}", "burst IOPS", with_unit(d.burst_iops, "IOPS"))?;
            writeln!(out, "  {:<26}{}", "burst throughput", with_unit(d.burst_mbps, "MB/s"))?;
        }
        let cache = if !d.kind.supports_host_cache() {
            "not supported".to_owned()
        } else if d.size.is_some_and(|s| f64::from(s.min_gib) >= HOST_CACHE_MAX_GIB) {
            "not supported (4 TiB or larger)".to_owned()
        } else {
            "supported".to_owned()
        };
        writeln!(out, "  {:<26}{cache}", "host caching")?;
        if d.superseded {
            writeln!(out, "  {:<26}from a superseded document, for reference", "note")?;
        }
        render_source(out, &d.source, 26)?;
    }
    Ok(())
}

/// Tables, with each row's source as a numbered note below.
fn render_list(out: &mut String, vms: &[&VmSize], skus: &[&DiskSku]) -> std::fmt::Result {
    let mut sources: Vec<String> = Vec::new();
    let mut note = |s: &[String]| -> String {
        let joined = s.join("; ");
        let i = match sources.iter().position(|x| *x == joined) {
            Some(i) => i,
            None => {
                sources.push(joined);
                sources.len() - 1
            }
        };
        format!("[{}]", i + 1)
    };
    let f = |x: Option<f64>| x.map_or_else(|| "n/p".to_owned(), fmt_num);
    if !vms.is_empty() {
        writeln!(
            out,
            "{:<28} {:<8} {:<4} {:>5} {:>5} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}  src",
            "VM size",
            "series",
            "st",
            "vCPU",
            "disks",
            "cch IOPS",
            "cch MB/s",
            "unc IOPS",
            "unc MB/s",
            "bst IOPS",
            "bst MB/s"
        )?;
        for v in vms {
            let n = note(&v.source);
            writeln!(
                out,
                "{:<28} {:<8} {:<4} {:>5} {:>5} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}  {n}",
                v.name,
                v.series(),
                match v.status {
                    SizeStatus::Current => "cur",
                    SizeStatus::Previous => "prev",
                    SizeStatus::Retired => "ret",
                },
                v.vcpu.map_or_else(|| "n/p".to_owned(), |x| x.to_string()),
                v.max_data_disks.map_or_else(|| "n/p".to_owned(), |x| x.to_string()),
                f(v.cached_iops),
                f(v.cached_mbps),
                f(v.uncached_iops),
                f(v.uncached_mbps),
                f(v.uncached_burst_iops),
                f(v.uncached_burst_mbps),
            )?;
        }
        writeln!(
            out,
            "st = status (cur current, prev previous generation, ret retired); cch = cached (host \
             cache + temp disk), unc = uncached (SCSI where both controllers are published), \
             bst = uncached burst; `advisor catalog vm SIZE` gives every figure"
        )?;
        let counts = VmCounts::of(vms);
        let all = counts.all;
        writeln!(
            out,
            "\n{} VM sizes ({} current, {} previous generation, {} retired), by family:",
            all.total, all.current, all.previous, all.retired
        )?;
        for (f, n) in &counts.by_family {
            write!(out, "  {f:<8} {:>4}", n.total)?;
            let parts: Vec<String> =
                [(&n.current, "current"), (&n.previous, "previous"), (&n.retired, "retired")]
                    .iter()
                    .filter(|(n, _)| **n > 0)
                    .map(|(n, w)| format!("{n} {w}"))
                    .collect();
            writeln!(out, "  ({})", parts.join(", "))?;
        }
    }
    if !skus.is_empty() {
        if !vms.is_empty() {
            out.push('\n');
        }
        writeln!(
            out,
            "{:<26} {:<32} {:>12} {:>7} {:>6} {:>9} {:>9}  src",
            "disk SKU", "tier", "size GiB", "IOPS", "MB/s", "bst IOPS", "bst MB/s"
        )?;
        for d in skus {
            let n = note(&d.source);
            let size = d.size.map_or_else(
                || "n/p".to_owned(),
                |s| s.to_string().trim_end_matches(" GiB").to_owned(),
            );
            writeln!(
                out,
                "{:<26} {:<32} {:>12} {:>7} {:>6} {:>9} {:>9}  {n}",
                d.name,
                d.tier,
                size,
                f(d.iops),
                f(d.mbps),
                f(d.burst_iops),
                f(d.burst_mbps),
            )?;
        }
    }
    writeln!(out, "n/p = not published; MB/s as Azure publishes it")?;
    writeln!(out, "\nsources:")?;
    for (i, s) in sources.iter().enumerate() {
        writeln!(out, "  [{}] {s}", i + 1)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use advisor_engine::catalog::fmt_opt;

    use super::*;

    #[test]
    fn ds13_v2_shows_its_figures_and_source() {
        let c = Catalog::builtin().unwrap_or_default();
        let mut out = String::new();
        if let Ok(vm) = c.vm("standard_ds13_v2") {
            render_vm(&mut out, vm).ok();
        }
        for want in ["256 MB/s", "384 MB/s", "25600 IOPS", "dv2-dsv2-series-memory.md"] {
            assert!(out.contains(want), "{want} missing from\n{out}");
        }
    }

    #[test]
    fn long_reasons_wrap_at_word_boundaries() {
        let text = "Microsoft publishes only temp-storage figures for Ddsv4, no limit for host-cached disks";
        let lines = wrap(text, 30);
        assert!(lines.iter().all(|l| l.chars().count() <= 30), "{lines:?}");
        assert_eq!(lines.join(" "), text);
        assert_eq!(
            wrap("a-word-longer-than-the-width next", 10),
            ["a-word-longer-than-the-width", "next"]
        );
        assert!(wrap("", 10).is_empty());
    }

    #[test]
    fn missing_figures_say_not_published() {
        let c = Catalog::builtin().unwrap_or_default();
        let mut out = String::new();
        if let Ok(vm) = c.vm("E16as_v5") {
            render_vm(&mut out, vm).ok();
        }
        assert!(out.contains("  cached IOPS                         not published\n"), "{out}");
        assert_eq!(fmt_opt(None), "not published");
    }
}
