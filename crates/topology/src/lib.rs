//! The VM's topology, the built-in Azure catalog of VM and disk limits, and name matching.
//!
//! - [`Catalog`]: Azure VM sizes and managed-disk SKUs from embedded CSV files (each row
//!   with its source), overridable with `--catalog FILE`.
//! - [`Topology`]: the topology file (TOML, or JSON of the same shape) or `--vm SIZE`,
//!   resolved against the catalog, with validation [`TopologyWarning`]s. Errors are
//!   [`TopologyError`]s that render with `file:line:col`, the source line, a caret and a
//!   did-you-mean.
//! - [`Limits`] (from [`Topology::limits`]): what rules compare captures with: each disk's
//!   caps, each pool's, the VM's cached and uncached budgets. Plain data.
//! - [`match_targets`]: which capture target is which disk, pool or temp disk, and the
//!   warnings for disks no capture mentions and busy targets the topology lacks.

mod catalog;
mod controller;
mod documents;
mod entries;
mod error;
mod limits;
mod matching;
mod names;
mod spec;
mod suggest;
mod topology;

// The limit types and their words live in `advisor_model::limits` (the rules read them
// without this crate); re-exported so topology users name them here as before.
pub use advisor_model::limits::{
    BurstModel, Cache, Controller, DiskKind, DiskLimits, FigureOrigin, PoolLimits, Role, VmLimits,
    VmUncached,
};
pub use catalog::{
    BUILTIN_FILES, CREDIT_BURST_MAX_PREMIUM_GIB, CachedGap, Catalog, CatalogError, DiskSku,
    HOST_CACHE_MAX_GIB, RemoteFigures, SizeRange, SizeStatus, SkuRef, UnknownName, VmSize,
    builtin_csv, fmt_num, fmt_opt, sku_key, vm_key,
};
pub use documents::{DocumentKind, Merged, detect_kind, merge_documents};
pub use entries::DiskEntry;
pub use error::{ErrorKind, Snippet, TopologyError};
pub use limits::{Budget, BudgetKind, Excess, Limits, Measure};
pub use matching::{CaptureTarget, Matching, Subject, TargetMatch, match_targets};
pub use names::{matches, name_keys, normalize_name};
pub use spec::SourceFormat;
pub use suggest::did_you_mean;
pub use topology::{Disk, NoHostCache, Pool, Topology, TopologyWarning, Vm, no_host_cache};
