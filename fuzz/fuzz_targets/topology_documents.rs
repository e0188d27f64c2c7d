//! Topology documents (IMDS, `az vm show`, `az disk list`, lsblk JSON, `/dev/disk/azure`
//! listings, Get-Disk / Get-Partition JSON, the contract's file) detected by content and
//! merged against the built-in catalog: alone, then as two documents merged, then the
//! limits rules would compare with.
#![no_main]

use std::sync::OnceLock;

use advisor_topology::{Catalog, Topology, merge_documents};
use libfuzzer_sys::fuzz_target;

static CATALOG: OnceLock<Catalog> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let catalog = CATALOG.get_or_init(|| Catalog::builtin().expect("the built-in catalog"));
    let one = [("fuzz.json".to_owned(), text.to_owned())];
    if let Ok(t) = Topology::from_documents(&one, catalog) {
        let _ = t.limits();
    }
    let two = [("a.json".to_owned(), text.to_owned()), ("b.txt".to_owned(), text.to_owned())];
    let _ = merge_documents(&two, catalog);
});
