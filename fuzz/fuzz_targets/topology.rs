//! The topology loader (TOML, or JSON of the same shape) against the built-in catalog,
//! then the limits rules would compare with.
#![no_main]

use std::sync::OnceLock;

use advisor_topology::{Catalog, Topology};
use libfuzzer_sys::fuzz_target;

static CATALOG: OnceLock<Catalog> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let catalog = CATALOG.get_or_init(|| Catalog::builtin().expect("the built-in catalog"));
    for file in ["fuzz.toml", "fuzz.json"] {
        if let Ok(t) = Topology::parse(file, text, catalog) {
            let _ = t.limits();
        }
    }
});
