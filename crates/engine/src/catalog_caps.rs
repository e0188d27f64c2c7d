//! The catalog as the rules read it: every disk SKU's and VM size's caps, for matching a
//! ceiling read from the data (`disk_caps_near`, `vm_sizes_near`).

use advisor_rules::eval::{CatalogCaps, SizeCaps, SkuCaps};
use advisor_topology::{Catalog, SizeStatus};

/// The catalog's caps as the rules read them: every disk SKU row and every VM size that can
/// attach Premium SSD and still runs, with its source (`crates/topology/catalog/*.csv`,
/// `--catalog` files). A size without Premium Storage publishes the caps of its `s` twin
/// (D4_v5 those of D4s_v5): listing both would only double the matches; a retired size
/// (Basic_A, A v1) no longer explains anything a capture of today shows.
pub(crate) fn catalog_caps(catalog: &Catalog) -> CatalogCaps {
    let disks = catalog
        .disk_skus()
        .into_iter()
        .map(|d| SkuCaps {
            sku: d.name.clone(),
            tier: d.tier.clone(),
            iops: d.iops,
            mbps: d.mbps,
            burst_iops: d.burst_iops,
            burst_mbps: d.burst_mbps,
            superseded: d.superseded,
            // Premium SSD v2's free baseline (3,000 IOPS / 125 MB/s) is what a disk left
            // at its defaults holds; its other rows, and Ultra's, are ranges set per disk.
            provisioned: d.kind.is_provisioned() && !d.name.ends_with("_baseline"),
            source: d.source.clone(),
        })
        .collect();
    let vms = catalog
        .vm_sizes()
        .into_iter()
        .filter(|v| v.premium_storage() && v.status != SizeStatus::Retired)
        .map(|v| SizeCaps {
            size: v.name.clone(),
            family: v.series().chars().take_while(char::is_ascii_uppercase).collect(),
            cached_iops: v.cached_iops,
            cached_mbps: v.cached_mbps,
            uncached_iops: v.uncached_iops,
            uncached_mbps: v.uncached_mbps,
            uncached_burst_iops: v.uncached_burst_iops,
            uncached_burst_mbps: v.uncached_burst_mbps,
            vcpu: v.vcpu,
            source: v.source.clone(),
        })
        .collect();
    CatalogCaps { disks, vms }
}
