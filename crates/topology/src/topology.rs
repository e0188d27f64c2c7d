//! The VM's topology: its size, disks and pools, resolved against the catalog.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::Path;

use advisor_model::limits::{BurstModel, Cache, Controller, DiskKind, Role};
use serde::Serialize;

use crate::catalog::{Catalog, DiskSku, HOST_CACHE_MAX_GIB, SkuRef, VmSize, fmt_num};
use crate::error::{ErrorKind, TopologyError};
use crate::names::normalize_name;
use crate::spec::{self, DiskSpec, Parsed, Seg, SourceFormat, VmSpec};
use crate::suggest::did_you_mean;

/// Something in a topology (or its match with the captures) worth telling the user,
/// with the fix. Not an error: the analysis goes on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TopologyWarning {
    /// Stable id, e.g. `too-many-disks`.
    pub code: &'static str,
    /// `vm`, or the disk, pool or capture target's name.
    pub subject: String,
    pub message: String,
    pub fix: String,
}

impl fmt::Display for TopologyWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} (fix: {})", self.subject, self.message, self.fix)
    }
}

/// The VM: its catalog row with the topology's overrides applied.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Vm {
    /// Figures in effect (catalog, then `[vm]` overrides).
    pub size: VmSize,
    /// The figures the topology replaced, by column name.
    pub overridden: Vec<String>,
    /// The local temp disk's name in the captures.
    pub temp_disk: Option<String>,
    /// False for a size the catalog lacks: its name is kept, its figures are unknown (the
    /// rules that need them are not evaluated) unless the topology's `[vm]` gives them.
    pub in_catalog: bool,
    /// How the size was found when not as written: read as the catalog's spelling of the
    /// same name, or not in the catalog. Listed first among the topology's warnings.
    pub size_note: Option<TopologyWarning>,
}

/// A remote disk as the topology describes it, with its limits worked out.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Disk {
    pub name: String,
    /// The SKU as written, when given.
    pub sku: Option<String>,
    pub kind: Option<DiskKind>,
    /// The catalog row the figures come from (none for Ultra, or without a SKU).
    pub row: Option<DiskSku>,
    /// The *effective* host caching: the setting, except None when the disk or the VM
    /// size cannot use host caching ([`Disk::can_cache`] false). What the budgets count.
    pub cache: Cache,
    /// The setting as written, or Azure's default when not written (ReadWrite for the OS
    /// disk, None for others). An OS disk may be None: only ephemeral OS disks are
    /// ReadOnly-only.
    pub cache_setting: Cache,
    /// What the topology wrote, when it did.
    pub cache_written: Option<Cache>,
    /// Whether this disk on this VM could use host caching: false for Premium SSD v2,
    /// Ultra, disks of 4 TiB or more and sizes without Premium Storage caching; `None`
    /// when that is unknown (no SKU, or no VM size to judge by).
    pub can_cache: Option<bool>,
    /// `write_accelerator = true|false` (M-series log disks), when the topology says.
    pub write_accelerator: Option<bool>,
    pub role: Role,
    /// Whether the topology wrote the role (else it is `data` by default, and SQL Server's
    /// files on the disk may say what it is).
    #[serde(skip)]
    pub role_written: bool,
    /// `iops` / `mbps` from the topology (provisioned Premium SSD v2 / Ultra figures, or
    /// overrides).
    pub iops: Option<f64>,
    pub mbps: Option<f64>,
    pub bursting: Option<bool>,
    /// The disk's LUN on the VM, when a topology or document says (the key Azure
    /// Monitor's per-disk metrics use).
    pub lun: Option<u32>,
    /// `controller = "scsi" | "nvme"`, when the topology says.
    pub controller: Option<Controller>,
}

/// A striped volume.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Pool {
    pub name: String,
    /// Member names as written.
    pub disks: Vec<String>,
    /// Index into [`Topology::disks`] of each member, when described.
    pub members: Vec<Option<usize>>,
    pub columns: Option<u32>,
    pub interleave_kib: Option<u32>,
}

/// A topology resolved against the catalog. Build it with [`Topology::load`],
/// [`Topology::parse`] or [`Topology::from_vm_size`]; read its figures through
/// [`Topology::limits`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Topology {
    /// The file it came from, or `--vm`.
    pub origin: String,
    pub vm: Option<Vm>,
    pub disks: Vec<Disk>,
    pub pools: Vec<Pool>,
    /// Validation findings (more disks than allowed, caching where unsupported, ...).
    pub warnings: Vec<TopologyWarning>,
    /// For a topology merged from several documents: each fact (`vm.size`, `disk E:.sku`)
    /// and the document and JSON path it came from. Empty for a topology file read alone.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<(String, String)>,
    /// Premium SSD v2 / Ultra per-disk maxima and baseline, for the limits.
    #[serde(skip)]
    pub(crate) provisioned_rules: ProvisionedRules,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ProvisionedRules {
    pub(crate) v2_baseline: Option<DiskSku>,
    pub(crate) v2_max: Option<DiskSku>,
    pub(crate) ultra_max: Option<DiskSku>,
}

impl ProvisionedRules {
    fn from(catalog: &Catalog) -> Self {
        Self {
            v2_baseline: catalog.baseline_of(DiskKind::PremiumSsdV2).cloned(),
            v2_max: catalog.max_of(DiskKind::PremiumSsdV2).cloned(),
            ultra_max: catalog.max_of(DiskKind::Ultra).cloned(),
        }
    }
}

impl Topology {
    /// Reads a topology file (TOML, or JSON when named `*.json` or starting with `{`).
    pub fn load(path: &Path, catalog: &Catalog) -> Result<Self, TopologyError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|e| TopologyError::new(file.clone(), ErrorKind::Io(e.to_string())))?;
        Self::parse(&file, &text, catalog)
    }

    /// Parses a topology; `file` names it in errors and detects JSON by its extension.
    pub fn parse(file: &str, text: &str, catalog: &Catalog) -> Result<Self, TopologyError> {
        let format = SourceFormat::detect(file, text);
        let parsed = spec::parse(file, text, format)?;
        resolve(&parsed, catalog)
    }

    /// `--vm SIZE` alone: the VM's caps, no disks.
    pub fn from_vm_size(size: &str, catalog: &Catalog) -> Result<Self, TopologyError> {
        let mut t = Self::empty("--vm", catalog);
        t.set_vm_size(size, catalog)?;
        Ok(t)
    }

    fn empty(origin: &str, catalog: &Catalog) -> Self {
        Self {
            origin: origin.to_owned(),
            vm: None,
            disks: Vec::new(),
            pools: Vec::new(),
            warnings: Vec::new(),
            sources: Vec::new(),
            provisioned_rules: ProvisionedRules::from(catalog),
        }
    }

    /// Replaces the VM size (`--vm SIZE` given with `--topology FILE`), keeping the
    /// topology's temp disk and re-running the checks.
    pub fn set_vm_size(&mut self, size: &str, catalog: &Catalog) -> Result<(), TopologyError> {
        let found = find_size(size, catalog).map_err(|kind| TopologyError::new("--vm", kind))?;
        let temp_disk = self.vm.as_ref().and_then(|v| v.temp_disk.clone());
        self.vm = Some(Vm {
            size: found.row,
            overridden: Vec::new(),
            temp_disk,
            in_catalog: found.in_catalog,
            size_note: found.note,
        });
        apply_host_cache(self);
        self.warnings = validate(self);
        Ok(())
    }

    /// Names of the local temp disk (`[vm] temp_disk` and disks with role `temp`).
    pub fn temp_disks(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self.vm.iter().filter_map(|vm| vm.temp_disk.as_deref()).collect();
        v.extend(self.disks.iter().filter(|d| d.role == Role::Temp).map(|d| d.name.as_str()));
        v
    }

    /// A disk by name, matched forgivingly.
    pub fn disk(&self, name: &str) -> Option<&Disk> {
        let key = normalize_name(name);
        self.disks.iter().find(|d| normalize_name(&d.name) == key)
    }
}

pub(crate) fn resolve(p: &Parsed<'_>, catalog: &Catalog) -> Result<Topology, TopologyError> {
    let mut t = Topology::empty(&p.file, catalog);
    if let Some(vm) = &p.spec.vm {
        t.vm = Some(resolve_vm(p, vm, catalog)?);
    }
    // Names must be unique across the temp disk, disks and pools (looked up by key: a
    // topology of thousands of disks must not compare each name with every other).
    let mut seen: HashMap<String, Vec<Seg<'static>>> = HashMap::new();
    let mut claim = |name: &str, path: Vec<Seg<'static>>| -> Result<(), TopologyError> {
        // Names are echoed in every warning and report line about their subject.
        let chars = name.chars().count();
        if chars > advisor_model::MAX_ECHO {
            return Err(p.error(
                &path,
                ErrorKind::Invalid {
                    message: format!(
                        "a name of {chars} characters; names are at most {} (disks and \
                         pools are named as the captures name them: \"E:\", \"sdc\")",
                        advisor_model::MAX_ECHO
                    ),
                    help: None,
                },
            ));
        }
        match seen.entry(normalize_name(name)) {
            Entry::Occupied(first) => {
                let first = p.line_col(first.get());
                Err(p.error(&path, ErrorKind::DuplicateName { name: name.to_owned(), first }))
            }
            Entry::Vacant(slot) => {
                slot.insert(path);
                Ok(())
            }
        }
    };
    if let Some(temp) = p.spec.vm.as_ref().and_then(|v| v.temp_disk.as_deref()) {
        claim(temp, vec![Seg::Key("vm"), Seg::Key("temp_disk")])?;
    }
    let limits = advisor_model::work::limits();
    advisor_model::work::within("disks", p.spec.disk.len(), limits.disks);
    for pool in &p.spec.pool {
        advisor_model::work::within("pool members", pool.disks.len(), limits.pool_members);
    }
    for (i, d) in p.spec.disk.iter().enumerate() {
        claim(&d.name, vec![Seg::Key("disk"), Seg::Index(i), Seg::Key("name")])?;
        t.disks.push(resolve_disk(p, i, d, catalog)?);
    }
    // Each disk's position by its name's key (the first disk of a key), made once.
    let mut by_key: Option<HashMap<String, usize>> = None;
    for (i, pool) in p.spec.pool.iter().enumerate() {
        claim(&pool.name, vec![Seg::Key("pool"), Seg::Index(i), Seg::Key("name")])?;
        if pool.disks.is_empty() {
            return Err(p.error(
                &[Seg::Key("pool"), Seg::Index(i), Seg::Key("disks")],
                ErrorKind::Invalid {
                    message: format!("pool \"{}\" has no disks", pool.name),
                    help: Some("list its member disks: disks = [\"disk2\", \"disk3\"]".to_owned()),
                },
            ));
        }
        for (what, v) in [("columns", pool.columns), ("interleave_kib", pool.interleave_kib)] {
            if v == Some(0) {
                return Err(p.error(
                    &[Seg::Key("pool"), Seg::Index(i), Seg::Key(what)],
                    ErrorKind::Invalid {
                        message: format!("`{what}` must be at least 1"),
                        help: None,
                    },
                ));
            }
        }
        if by_key.is_none() {
            by_key = Some(disk_positions(&t.disks));
        }
        let members = pool
            .disks
            .iter()
            .map(|m| by_key.as_ref().and_then(|k| k.get(&normalize_name(m)).copied()))
            .collect();
        t.pools.push(Pool {
            name: pool.name.clone(),
            disks: pool.disks.clone(),
            members,
            columns: pool.columns,
            interleave_kib: pool.interleave_kib,
        });
    }
    crate::controller::check_one_controller(p, &t)?;
    apply_host_cache(&mut t);
    t.warnings = validate(&t);
    Ok(t)
}

/// Each disk's position by the key of its name: the first disk of each key, as a search
/// from the start finds it.
fn disk_positions(disks: &[Disk]) -> HashMap<String, usize> {
    let mut by_key = HashMap::with_capacity(disks.len());
    for (i, d) in disks.iter().enumerate() {
        by_key.entry(normalize_name(&d.name)).or_insert(i);
    }
    by_key
}

/// A VM size as the catalog knows it, or as written when it does not.
pub(crate) struct FoundSize {
    pub(crate) row: VmSize,
    pub(crate) in_catalog: bool,
    pub(crate) note: Option<TopologyWarning>,
}

/// Letters and digits of a size's name, lower case, without `Standard_`: `DS13v2`,
/// `ds13-v2` and `Standard_DS13_v2` are the same name.
fn squashed(name: &str) -> String {
    let t = name.trim();
    let t = match t.get(..9) {
        Some(p) if p.eq_ignore_ascii_case("standard_") => &t[9..],
        _ => t,
    };
    t.chars().filter(char::is_ascii_alphanumeric).collect::<String>().to_ascii_lowercase()
}

/// Looks a VM size up. Never an error for a name the catalog lacks: a name with the same
/// letters and digits as a catalog size (`DS13v2`) is read as that size, said in a note;
/// any other name is kept with every figure unknown, said in a note with the closest
/// catalog name. Only an empty name is an error.
pub(crate) fn find_size(size: &str, catalog: &Catalog) -> Result<FoundSize, ErrorKind> {
    let written = size.trim();
    if written.is_empty() {
        return Err(ErrorKind::Invalid {
            message: "the VM size is empty".to_owned(),
            help: Some("give the size as Azure names it: Standard_DS13_v2".to_owned()),
        });
    }
    let unknown = match catalog.vm(written) {
        Ok(row) => return Ok(FoundSize { row: row.clone(), in_catalog: true, note: None }),
        Err(u) => u,
    };
    let key = squashed(written);
    if let Some(row) = catalog.vm_sizes().into_iter().find(|v| squashed(&v.name) == key) {
        let note = warn(
            "vm-size-read-as",
            "vm",
            format!("VM size \"{written}\" is read as {} (the catalog's spelling)", row.name),
            format!("write size = \"{}\"", row.name),
        );
        return Ok(FoundSize { row: row.clone(), in_catalog: true, note: Some(note) });
    }
    let row = unknown_row(written).ok_or_else(|| ErrorKind::UnknownVmSize {
        name: written.to_owned(),
        help: unknown.help(),
    })?;
    let fix = match &unknown.suggestion {
        Some(s) => format!(
            "if you meant {s}, write that; otherwise add the size's published limits with \
             --catalog FILE (a CSV row: size,uncached_iops,uncached_mbps,...), or set them in \
             the topology's [vm] section (uncached_iops = ..., uncached_mbps = ...)"
        ),
        None => "add the size's published limits with --catalog FILE (a CSV row: \
                 size,uncached_iops,uncached_mbps,...), or set them in the topology's [vm] \
                 section (uncached_iops = ..., uncached_mbps = ...)"
            .to_owned(),
    };
    let note = warn(
        "vm-size-unknown",
        "vm",
        format!(
            "VM size \"{}\" is not in advisor's catalog: every other fact is kept, and the \
             rules that need the size's caps (cached and uncached IOPS and MB/s, burst, data \
             disk count, temp disk size) are not evaluated",
            row.name
        ),
        fix,
    );
    Ok(FoundSize { row, in_catalog: false, note: Some(note) })
}

/// A size the catalog lacks, as a row of its name alone: what a user's catalog row with no
/// figures gives (`Standard_` added when missing), every figure unknown.
fn unknown_row(name: &str) -> Option<VmSize> {
    let mut one = Catalog::default();
    let quoted = name.replace('"', "\"\"");
    let csv = format!("size,source\n\"{quoted}\",not in advisor's catalog: figures unknown\n");
    one.merge_csv("unknown size", &csv, false).ok()?;
    let mut row = one.vm_sizes().into_iter().next().cloned()?;
    // The retired Basic tier is named `Basic_A1`, not `Standard_Basic_A1`.
    if name.get(..6).is_some_and(|p| p.eq_ignore_ascii_case("basic_")) {
        row.name = name.to_owned();
    }
    Some(row)
}

fn resolve_vm(p: &Parsed<'_>, spec: &VmSpec, catalog: &Catalog) -> Result<Vm, TopologyError> {
    let path = [Seg::Key("vm"), Seg::Key("size")];
    let found = find_size(&spec.size, catalog).map_err(|kind| p.error(&path, kind))?;
    let mut size = found.row;
    let mut overridden = Vec::new();
    let figures: [(&'static str, Option<f64>, &mut Option<f64>); 9] = [
        ("memory_gib", spec.memory_gib, &mut size.memory_gib),
        ("temp_gib", spec.temp_gib, &mut size.temp_gib),
        ("cached_iops", spec.cached_iops, &mut size.cached_iops),
        ("cached_mbps", spec.cached_mbps, &mut size.cached_mbps),
        ("cache_gib", spec.cache_gib, &mut size.cache_gib),
        ("uncached_iops", spec.uncached_iops, &mut size.uncached_iops),
        ("uncached_mbps", spec.uncached_mbps, &mut size.uncached_mbps),
        ("uncached_burst_iops", spec.uncached_burst_iops, &mut size.uncached_burst_iops),
        ("uncached_burst_mbps", spec.uncached_burst_mbps, &mut size.uncached_burst_mbps),
    ];
    for (key, given, slot) in figures {
        if let Some(x) = given {
            check_figure(p, &[Seg::Key("vm"), Seg::Key(key)], key, x)?;
            *slot = Some(x);
            overridden.push(key.to_owned());
        }
    }
    for (key, given, slot) in [
        ("vcpu", spec.vcpu, &mut size.vcpu),
        ("max_data_disks", spec.max_data_disks, &mut size.max_data_disks),
    ] {
        if let Some(x) = given {
            *slot = Some(x);
            overridden.push(key.to_owned());
        }
    }
    if !overridden.is_empty() {
        size.source.insert(0, format!("{} [vm]: {}", p.file, overridden.join(", ")));
    }
    Ok(Vm {
        size,
        overridden,
        temp_disk: spec.temp_disk.clone(),
        in_catalog: found.in_catalog,
        size_note: found.note,
    })
}

/// The least a cap may be: a figure below it is a typo or an attack, and a cap of
/// (nearly) zero makes every share of it infinite. Sizes in GiB may also be 0 (no temp
/// disk, no cache).
fn least_figure(key: &str) -> (f64, &'static str) {
    if key.ends_with("iops") {
        (1.0, "1 IOPS")
    } else if key.ends_with("mbps") {
        (0.001, "0.001 MB/s")
    } else {
        (0.001, "0.001 GiB (or 0)")
    }
}

fn check_figure(p: &Parsed<'_>, path: &[Seg<'_>], key: &str, x: f64) -> Result<(), TopologyError> {
    let (least, shown) = least_figure(key);
    let zero_allowed = key.ends_with("gib");
    if x.is_finite() && (x >= least || (zero_allowed && x == 0.0)) {
        return Ok(());
    }
    let message = if x.is_finite() && x >= 0.0 {
        format!("`{key}` = {x} is below the least sane figure, {shown}")
    } else {
        format!("`{key}` must be a figure of at least {shown}")
    };
    Err(p.error(path, ErrorKind::Invalid { message, help: None }))
}

fn resolve_disk(
    p: &Parsed<'_>,
    i: usize,
    d: &DiskSpec,
    catalog: &Catalog,
) -> Result<Disk, TopologyError> {
    let at = |key: &'static str| [Seg::Key("disk"), Seg::Index(i), Seg::Key(key)];
    if d.name.trim().is_empty() {
        return Err(p.error(
            &at("name"),
            ErrorKind::Invalid {
                message: "a disk's name is empty".to_owned(),
                help: Some("name it as the captures do: \"E:\", \"sdc\", \"disk2\"".to_owned()),
            },
        ));
    }
    let role = match &d.role {
        None => Role::Data,
        Some(r) => parse_enum(p, &at("role"), "role", r, &Role::ALL, Role::name)?,
    };
    let given_cache = match &d.cache {
        None => None,
        Some(c) => Some(parse_enum(p, &at("cache"), "cache", c, &Cache::ALL, Cache::name)?),
    };
    let controller = match &d.controller {
        None => None,
        Some(c) => Some(parse_enum(
            p,
            &at("controller"),
            "controller",
            c,
            &Controller::ALL,
            Controller::name,
        )?),
    };
    let (kind, row) = match &d.sku {
        None => (None, None),
        Some(s) => match catalog.resolve_sku(s) {
            Ok(SkuRef::Row(r)) => (Some(r.kind), Some(r.clone())),
            Ok(SkuRef::PremiumV2) => (Some(DiskKind::PremiumSsdV2), None),
            Ok(SkuRef::Ultra) => (Some(DiskKind::Ultra), None),
            Err(u) => {
                return Err(p.error(
                    &at("sku"),
                    ErrorKind::UnknownSku { name: u.name.clone(), help: u.help() },
                ));
            }
        },
    };
    for (key, v) in [("iops", d.iops), ("mbps", d.mbps)] {
        if let Some(x) = v {
            check_figure(p, &at(key), key, x)?;
        }
    }
    // Defaults: the OS disk is ReadWrite; data disks have no cache (disks-performance.md).
    // None on a managed OS disk is a valid setting and is kept.
    let setting = match (given_cache, role) {
        (Some(c), _) => c,
        (None, Role::Os) => Cache::ReadWrite,
        (None, _) => Cache::None,
    };
    // The effective cache and `can_cache` depend on the VM size too: set by
    // `apply_host_cache` once the VM is known.
    Ok(Disk {
        name: d.name.trim().to_owned(),
        sku: d.sku.clone(),
        kind,
        row,
        cache: setting,
        cache_setting: setting,
        cache_written: given_cache,
        can_cache: None,
        write_accelerator: d.write_accelerator,
        role,
        role_written: d.role.is_some(),
        iops: d.iops,
        mbps: d.mbps,
        bursting: d.bursting,
        lun: d.lun,
        controller,
    })
}

/// A case-insensitive enum value; anything else is a located error with a did-you-mean.
fn parse_enum<T: Copy>(
    p: &Parsed<'_>,
    path: &[Seg<'_>],
    what: &str,
    value: &str,
    all: &[T],
    name: fn(T) -> &'static str,
) -> Result<T, TopologyError> {
    let squash = |s: &str| {
        s.chars().filter(|c| c.is_ascii_alphanumeric()).collect::<String>().to_ascii_lowercase()
    };
    if let Some(v) = all.iter().find(|v| squash(name(**v)) == squash(value)) {
        return Ok(*v);
    }
    let names: Vec<&str> = all.iter().map(|v| name(*v)).collect();
    let help = match did_you_mean(value, names.iter().copied()) {
        Some(s) => format!("did you mean \"{s}\"?"),
        None => format!("`{what}` is one of: {}", names.join(", ")),
    };
    Err(p.error(
        path,
        ErrorKind::Invalid { message: format!("invalid {what} \"{value}\""), help: Some(help) },
    ))
}

fn warn(
    code: &'static str,
    subject: &str,
    message: String,
    fix: impl Into<String>,
) -> TopologyWarning {
    TopologyWarning { code, subject: subject.to_owned(), message, fix: fix.into() }
}

/// Members of pools without a `[[disk]]` entry named one by one (each with the closest
/// disk name, a search among all disks), in all; past them, one warning per pool counts
/// the rest.
const NAMED_UNDESCRIBED: usize = 16;

/// The checks worth telling a user about.
pub(crate) fn validate(t: &Topology) -> Vec<TopologyWarning> {
    let mut w = Vec::new();
    let vm = t.vm.as_ref();
    if let Some(note) = vm.and_then(|v| v.size_note.clone()) {
        w.push(note);
    }
    let data_disks = t.disks.iter().filter(|d| !matches!(d.role, Role::Os | Role::Temp)).count();
    if let Some(max) = vm.and_then(|v| v.size.max_data_disks)
        && data_disks > max as usize
    {
        let size = vm.map_or("", |v| v.size.name.as_str());
        w.push(warn(
            "too-many-disks",
            "vm",
            format!("{data_disks} data disks described, but {size} attaches at most {max}"),
            "use fewer, larger disks, or a VM size that allows more data disks",
        ));
    }
    if let Some(vm) = vm {
        if vm.temp_disk.is_some() && vm.size.temp_gib == Some(0.0) {
            w.push(warn(
                "no-temp-disk",
                "vm",
                format!("temp_disk is set, but {} has no local temp disk", vm.size.name),
                "remove temp_disk, or check the VM size",
            ));
        }
        if let Some((Controller::Scsi, why)) = t.controller()
            && vm.size.nvme.any()
            && vm.size.nvme == vm.size.remote()
        {
            w.push(warn(
                "controller-not-published",
                "vm",
                format!(
                    "{why}, but {} publishes its remote limits for the NVMe controller only: they are used",
                    vm.size.name
                ),
                "check the controller: sizes whose page publishes NVMe figures only attach their disks through NVMe",
            ));
        }
        let premium: Vec<&str> = t
            .disks
            .iter()
            .filter(|d| d.kind.is_some_and(DiskKind::needs_premium_vm))
            .map(|d| d.name.as_str())
            .collect();
        if !premium.is_empty() && !vm.size.premium_storage() {
            w.push(warn(
                "premium-disk-on-standard-vm",
                "vm",
                format!(
                    "{} does not support premium storage, but {} {} Premium disks",
                    vm.size.name,
                    premium.join(", "),
                    if premium.len() == 1 { "is" } else { "are" }
                ),
                "choose a size with premium storage support (an `s` size such as D4s_v5), or Standard disks",
            ));
        }
    }
    for d in &t.disks {
        if d.cache_written.is_some_and(Cache::is_cached)
            && let Some(why) = no_host_cache(d, vm.map(|v| &v.size))
        {
            w.push(warn(
                why.code(),
                &d.name,
                format!(
                    "host caching is {} on {}, but {}: it runs without host caching, and its IO counts against the VM's uncached budget only ({})",
                    d.cache_setting,
                    d.name,
                    why.reason(),
                    why.doc()
                ),
                why.fix(),
            ));
        }
        if d.cache_written.is_none()
            && matches!(d.role, Role::Data | Role::Log | Role::Tempdb)
            && no_host_cache(d, vm.map(|v| &v.size)).is_none()
        {
            w.push(warn(
                "cache-assumed",
                &d.name,
                format!(
                    "host caching for {} is not written: the rules take None, the API's default for a data disk, but a disk attached in the portal may be ReadOnly",
                    d.name
                ),
                "write cache = \"None\", \"ReadOnly\" or \"ReadWrite\" as `az vm show` reports it (storageProfile.dataDisks[].caching)",
            ));
        }
        if d.role == Role::Os && d.kind.is_some_and(DiskKind::is_provisioned) {
            w.push(warn(
                "unsupported-os-disk",
                &d.name,
                format!("{} cannot be an OS disk", d.kind.map_or("", DiskKind::label)),
                "use Premium SSD for the OS disk",
            ));
        }
        check_provisioned(t, d, &mut w);
        if d.bursting == Some(true) {
            let model = d.row.as_ref().map_or(BurstModel::None, DiskSku::burst_model);
            if model == BurstModel::None {
                w.push(warn(
                    "bursting-not-available",
                    &d.name,
                    format!(
                        "bursting = true, but {} does not burst",
                        d.sku.as_deref().unwrap_or("this disk")
                    ),
                    "remove bursting; only Premium SSD and Standard SSD (E30 and smaller) burst",
                ));
            }
        }
    }
    let mut named = 0;
    for pool in &t.pools {
        let undescribed = pool.members.iter().filter(|m| m.is_none()).count();
        let to_name = undescribed.min(NAMED_UNDESCRIBED - named);
        named += to_name;
        for (name, _) in
            pool.disks.iter().zip(&pool.members).filter(|(_, m)| m.is_none()).take(to_name)
        {
            // Numbers are not typos: `disk4` is not a misspelt `disk2`.
            let digits = |s: &str| s.chars().filter(char::is_ascii_digit).collect::<String>();
            let hint = did_you_mean(name, t.disks.iter().map(|d| d.name.as_str()))
                .filter(|s| digits(s) == digits(name))
                .map(|s| format!("did you mean \"{s}\"? or add "))
                .unwrap_or_else(|| "add ".to_owned());
            w.push(warn(
                "pool-member-undescribed",
                &pool.name,
                format!(
                    "member \"{name}\" has no [[disk]] entry, so the pool's limits are unknown"
                ),
                format!("{hint}[[disk]] name = \"{name}\" with its sku"),
            ));
        }
        if undescribed > to_name {
            w.push(warn(
                "pool-member-undescribed",
                &pool.name,
                format!(
                    "{} {}members have no [[disk]] entry, so the pool's limits are unknown",
                    undescribed - to_name,
                    if to_name > 0 { "more " } else { "" }
                ),
                "add a [[disk]] entry with its sku for each member disk",
            ));
        }
        let mut listed = HashSet::with_capacity(pool.disks.len());
        for name in &pool.disks {
            if !listed.insert(normalize_name(name)) {
                w.push(warn(
                    "pool-member-twice",
                    &pool.name,
                    format!("member \"{name}\" is listed twice"),
                    "list each member disk once",
                ));
            }
        }
    }
    w
}

/// Premium SSD v2 and Ultra: figures within the documented per-disk maxima.
fn check_provisioned(t: &Topology, d: &Disk, w: &mut Vec<TopologyWarning>) {
    let rules = &t.provisioned_rules;
    let (max, per_iops) = match d.kind {
        Some(DiskKind::PremiumSsdV2) => (rules.v2_max.as_ref(), 0.25),
        Some(DiskKind::Ultra) => (rules.ultra_max.as_ref().or(d.row.as_ref()), 0.25),
        _ => return,
    };
    let label = d.kind.map_or("", DiskKind::label);
    if d.kind == Some(DiskKind::Ultra) && d.row.is_none() && (d.iops.is_none() || d.mbps.is_none())
    {
        w.push(warn(
            "provisioned-figures-missing",
            &d.name,
            format!("{label} performance is provisioned per disk, and iops or mbps is not given: its limits are unknown"),
            "add iops = ... and mbps = ... as provisioned in Azure",
        ));
    }
    if d.kind == Some(DiskKind::PremiumSsdV2) && (d.iops.is_none() || d.mbps.is_none()) {
        let base = rules.v2_baseline.as_ref();
        w.push(warn(
            "provisioned-figures-missing",
            &d.name,
            format!(
                "{label} iops/mbps not given: assuming the free baseline of {} IOPS / {} MB/s",
                base.and_then(|b| b.iops).map_or_else(|| "?".to_owned(), fmt_num),
                base.and_then(|b| b.mbps).map_or_else(|| "?".to_owned(), fmt_num),
            ),
            "add iops = ... and mbps = ... as provisioned in Azure",
        ));
    }
    let Some(max) = max else { return };
    if let (Some(iops), Some(cap)) = (d.iops, max.iops)
        && iops > cap
    {
        w.push(warn(
            "provisioned-over-maximum",
            &d.name,
            format!(
                "iops = {} is above the {label} maximum of {} per disk",
                fmt_num(iops),
                fmt_num(cap)
            ),
            "check the provisioned IOPS in Azure",
        ));
    }
    if let (Some(mbps), Some(cap)) = (d.mbps, max.mbps)
        && mbps > cap
    {
        w.push(warn(
            "provisioned-over-maximum",
            &d.name,
            format!(
                "mbps = {} is above the {label} maximum of {} MB/s per disk",
                fmt_num(mbps),
                fmt_num(cap)
            ),
            "check the provisioned throughput in Azure",
        ));
    }
    if let (Some(iops), Some(mbps)) = (d.iops, d.mbps)
        && mbps > iops * per_iops
    {
        w.push(warn(
            "provisioned-over-maximum",
            &d.name,
            format!(
                "mbps = {} is above {label}'s 0.25 MB/s per provisioned IOPS ({} MB/s at {} IOPS)",
                fmt_num(mbps),
                fmt_num(iops * per_iops),
                fmt_num(iops)
            ),
            "provision more IOPS, or check the figures",
        ));
    }
}

/// Why a disk has no host caching whatever its setting.
#[derive(Debug, Clone, PartialEq)]
pub enum NoHostCache {
    /// Premium SSD v2 and Ultra Disk have no host caching.
    DiskKind(DiskKind),
    /// Disks of 4 TiB (4,096 GiB) and more cannot be cached.
    LargeDisk(f64),
    /// The VM size does not support Premium Storage caching (B v1, the L series, sizes
    /// without premium storage).
    VmSize(String),
}

impl NoHostCache {
    /// The topology warning's code (stable).
    pub fn code(&self) -> &'static str {
        match self {
            Self::DiskKind(_) => "host-cache-unsupported",
            Self::LargeDisk(_) => "host-cache-on-large-disk",
            Self::VmSize(_) => "host-cache-unsupported-on-vm",
        }
    }

    /// Why, in a few words: "Premium SSD v2 disks have no host caching".
    pub fn reason(&self) -> String {
        match self {
            Self::DiskKind(k) => format!("{k} disks have no host caching"),
            Self::LargeDisk(gib) => format!(
                "it is a {} GiB disk, and disks of 4 TiB (4,096 GiB) or more cannot use host caching",
                fmt_num(*gib)
            ),
            Self::VmSize(size) => {
                format!(
                    "{size} does not support host caching (its feature table: Premium Storage caching not supported)"
                )
            }
        }
    }

    /// The Microsoft page that says so.
    pub fn doc(&self) -> &'static str {
        match self {
            Self::DiskKind(_) => "https://learn.microsoft.com/azure/virtual-machines/disks-types",
            Self::LargeDisk(_) => {
                "https://learn.microsoft.com/azure/virtual-machines/premium-storage-performance#disk-caching"
            }
            Self::VmSize(size) => size_doc(size),
        }
    }

    fn fix(&self) -> &'static str {
        match self {
            Self::DiskKind(_) => "set cache = \"None\" (what Azure applies)",
            Self::LargeDisk(_) => {
                "set cache = \"None\" (what Azure applies), or stripe several disks under 4 TiB (P40 or smaller) to cache them"
            }
            Self::VmSize(_) => {
                "set cache = \"None\" (what Azure applies), or choose a size with Premium Storage caching"
            }
        }
    }
}

/// The feature table that says a size has no Premium Storage caching.
fn size_doc(size: &str) -> &'static str {
    let short = size.strip_prefix("Standard_").unwrap_or(size).to_ascii_lowercase();
    let base = short.split(':').next().unwrap_or(&short);
    if base.starts_with('b') && !base.contains("_v") {
        "https://learn.microsoft.com/azure/virtual-machines/sizes/general-purpose/bv1-series"
    } else if base.starts_with('l') && base.ends_with("_v3") && base.contains("as") {
        "https://learn.microsoft.com/azure/virtual-machines/sizes/storage-optimized/lasv3-series"
    } else if base.starts_with('l') && base.ends_with("_v3") {
        "https://learn.microsoft.com/azure/virtual-machines/sizes/storage-optimized/lsv3-series"
    } else if base.starts_with('l') && base.ends_with("_v2") {
        "https://learn.microsoft.com/azure/virtual-machines/sizes/storage-optimized/lsv2-series"
    } else if base.starts_with('l') {
        "https://learn.microsoft.com/azure/virtual-machines/sizes-previous-gen"
    } else {
        "https://learn.microsoft.com/azure/virtual-machines/sizes/overview"
    }
}

/// Why `d` on a VM of size `vm` has no host caching, when it has none whatever its setting.
pub fn no_host_cache(d: &Disk, vm: Option<&VmSize>) -> Option<NoHostCache> {
    if let Some(kind) = d.kind.filter(|k| !k.supports_host_cache()) {
        return Some(NoHostCache::DiskKind(kind));
    }
    if let Some(gib) =
        d.row.as_ref().and_then(DiskSku::size_gib).filter(|g| *g >= HOST_CACHE_MAX_GIB)
    {
        return Some(NoHostCache::LargeDisk(gib));
    }
    match vm {
        Some(v) if !v.host_caching() => Some(NoHostCache::VmSize(v.name.clone())),
        _ => None,
    }
}

/// Works out each disk's effective cache and `can_cache` from its kind, size and the VM
/// size (premium-storage-performance.md "Disk caching"; disks-types.md; the sizes' feature
/// tables): such disks run uncached whatever the setting, and count in the uncached budget.
fn apply_host_cache(t: &mut Topology) {
    let vm = t.vm.as_ref().map(|v| v.size.clone());
    for d in &mut t.disks {
        if d.role == Role::Temp {
            // The local temp disk: not a managed disk, no host cache setting of its own.
            d.can_cache = Some(false);
            d.cache = d.cache_setting;
            continue;
        }
        let none = no_host_cache(d, vm.as_ref());
        d.can_cache = match (&none, d.kind, &vm) {
            (Some(_), _, _) => Some(false),
            (None, Some(_), Some(_)) => Some(true),
            _ => None,
        };
        d.cache = if none.is_some() { Cache::None } else { d.cache_setting };
    }
}
