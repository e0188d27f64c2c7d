//! What `advisor recommend` produces: the demand read from the captures, the disk SKUs and
//! VM sizes that carry it (each with the figure that decides it), the confidence, and the
//! cost when prices are given. This is the shape of its JSON (`advisor.recommend/v1`) and
//! what its Markdown and HTML render.

use serde::{Deserialize, Serialize};

use crate::ToolInfo;

/// The schema identifier of the recommendation's JSON.
pub const RECOMMEND_SCHEMA: &str = "advisor.recommend/v1";

/// A recommendation: what to buy for the workload the captures show.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Recommendation {
    /// Always `advisor.recommend/v1`.
    pub schema: String,
    pub tool: ToolInfo,
    /// The captures read, as named on the command line.
    pub inputs: Vec<String>,
    /// How demand was read: percentile, headroom, interval.
    pub basis: DemandBasis,
    pub confidence: Confidence,
    /// The configuration today, as the topology describes it.
    pub current: Configuration,
    /// The configuration proposed: the chosen VM size and each disk's chosen SKU.
    pub proposed: Configuration,
    /// Per disk of the topology (the temp disk too, which has no SKU to choose).
    pub disks: Vec<DiskAdvice>,
    /// The VM: its demand on the cached and uncached budgets and the sizes that carry it.
    pub vm: VmAdvice,
    /// How candidates are ordered, and the monthly costs when prices were given.
    pub cost: CostBasis,
    /// What the reader should know about the figures (assumptions, what was skipped).
    pub notes: Vec<String>,
}

/// How demand figures were read from the captures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DemandBasis {
    /// The percentile of the samples (or of per-interval peaks) taken as demand.
    pub percentile: f64,
    /// The factor demand is multiplied by before it is compared with caps.
    pub headroom: f64,
    /// The interval asked, in seconds: with samples finer than it, each interval's peak is
    /// one value of the percentile. `None`: every sample is one value.
    pub interval_s: Option<f64>,
}

/// How far the figures can be trusted: from the capture's length, gaps and interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Confidence {
    /// `low`, `medium` or `high`.
    pub level: String,
    /// The time the captures span, in seconds (the longest capture).
    pub span_s: f64,
    /// The sampling interval, in seconds (the coarsest capture's).
    pub interval_s: Option<f64>,
    /// Samples missing where the interval says one should be.
    pub gaps: u64,
    /// Why this level, one sentence each.
    pub reasons: Vec<String>,
}

/// A VM size and its disks, with the monthly cost when prices were given.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Configuration {
    pub vm: Option<String>,
    pub disks: Vec<ConfiguredDisk>,
    /// The monthly cost of the VM and the disks, when every part could be priced.
    pub monthly_cost: Option<f64>,
    /// Parts no price was found for (so `monthly_cost` is absent).
    pub unpriced: Vec<String>,
}

/// One disk of a configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ConfiguredDisk {
    pub name: String,
    /// `P30`, `E10`, `PremiumV2`, `Ultra`, or none for the temp disk or an unknown SKU.
    pub sku: Option<String>,
    /// Disks of this SKU striped together (1: a single disk).
    pub count: u32,
    /// Provisioned IOPS and MB/s (Premium SSD v2, Ultra).
    pub iops: Option<f64>,
    pub mbps: Option<f64>,
    pub size_gib: Option<f64>,
    pub cache: String,
}

/// One measured figure of demand: the percentile, its peak, and with headroom.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Figure {
    /// The percentile asked (of samples or per-interval peaks).
    pub observed: f64,
    /// The highest sample.
    pub peak: f64,
    /// `observed` x headroom: what a cap must cover.
    pub needed: f64,
}

/// A disk's (or a budget's) demand. IOPS, and MB/s as Azure counts them (10^6 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Demand {
    pub iops: Figure,
    pub mbps: Figure,
}

/// One disk: its demand, the host caching the rules approve, and the SKUs that carry it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DiskAdvice {
    pub name: String,
    /// `os`, `data`, `log`, `tempdb`, `temp`, `other`.
    pub role: String,
    /// The capture target its figures come from; none when no target matched it.
    pub target: Option<String>,
    pub current_sku: Option<String>,
    pub current_cache: String,
    pub size_gib: Option<f64>,
    /// Total demand (reads and writes).
    pub demand: Option<Demand>,
    /// Share of reads in the IO, 0-100.
    pub read_pct: Option<f64>,
    /// Median write latency (ms) and queue depth: what tells a latency-bound disk.
    pub write_latency_ms: Option<f64>,
    pub queue_depth: Option<f64>,
    /// True when the IO is synchronous and small: latency, not IOPS, limits it, so only a
    /// lower-latency disk (Premium SSD v2, Ultra) helps.
    pub latency_bound: bool,
    /// The host-cache setting proposed, and why.
    pub cache: String,
    pub cache_why: String,
    /// Every type's smallest fit, in the order the chosen one is taken from.
    pub options: Vec<DiskOption>,
    /// The SKU proposed (an entry of `options`), when one fits.
    pub chosen: Option<String>,
    /// The reasoning, one step a line.
    pub why: Vec<String>,
}

/// The smallest SKU of one disk type that carries a disk's demand (or a stripe of them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DiskOption {
    /// `Premium SSD`, `Premium SSD v2`, `Standard SSD`, `Ultra Disk`.
    pub kind: String,
    /// `P30`; `PremiumV2` and `Ultra` for the provisioned types.
    pub sku: String,
    /// Disks striped (1: one disk).
    pub count: u32,
    pub size_gib: f64,
    /// The caps of the whole option (a stripe's sum), as provisioned or as the SKU has them.
    pub iops: f64,
    pub mbps: f64,
    /// The demand figure that decided the size: `iops`, `mbps`, `capacity`, or `baseline`
    /// (the type's smallest already covers it).
    pub deciding: String,
    /// Spare share of the deciding cap over the demand with headroom, in percent.
    pub margin_pct: f64,
    pub monthly_cost: Option<f64>,
    /// Whether this option can be chosen (a latency-bound disk on a type that does not
    /// lower latency cannot; a type the VM cannot attach cannot).
    pub suitable: bool,
    pub why: String,
}

/// The VM: demand on its budgets and the sizes that carry it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct VmAdvice {
    pub current: Option<String>,
    /// IO through host-cached disks and the temp disk, with the proposed caching.
    pub cached: Option<Demand>,
    /// IO to uncached disks and the writes of cached disks (cache misses would add to it).
    pub uncached: Option<Demand>,
    /// Data disks the proposal attaches (stripe members counted).
    pub data_disks: u32,
    /// The vCPUs and memory a candidate must have (the current size's, unless told).
    pub min_vcpu: Option<u32>,
    pub min_memory_gib: Option<f64>,
    /// The sizes that carry the demand, the current family first, best first.
    pub candidates: Vec<VmOption>,
    pub chosen: Option<String>,
    pub why: Vec<String>,
}

/// One VM size that carries the demand.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct VmOption {
    pub size: String,
    pub series: String,
    pub vcpu: Option<u32>,
    pub memory_gib: Option<f64>,
    pub cached_iops: Option<f64>,
    pub cached_mbps: Option<f64>,
    pub uncached_iops: Option<f64>,
    pub uncached_mbps: Option<f64>,
    /// The budget figure with the least margin: `cached MB/s`, `uncached IOPS`, ...
    pub deciding: String,
    pub margin_pct: f64,
    pub monthly_cost: Option<f64>,
    pub why: String,
}

/// How candidates were ordered, and with what prices.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CostBasis {
    /// True when a prices file was given and used.
    pub priced: bool,
    /// The order, in words ("by size within a family and by tier: no prices given").
    pub order: String,
    pub currency: Option<String>,
    pub region: Option<String>,
    /// Hours a month that hourly prices are multiplied by.
    pub hours_per_month: f64,
    /// The proposed monthly cost minus today's, when both are priced.
    pub monthly_change: Option<f64>,
}
