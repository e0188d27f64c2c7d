//! Helpers of the crate's tests: the real scenarios under `fixtures/scenarios`, read as an
//! analysis reads them.
#![allow(clippy::panic)]

use advisor_normalize::Capture;
use advisor_topology::Topology;

/// The capture (`capture.csv`) and topology (`topology.toml`) of scenario `case`.
pub(crate) fn scenario(case: &str) -> ([Capture; 1], Topology) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/scenarios")
        .join(case);
    let catalog = advisor_topology::Catalog::builtin().unwrap_or_else(|e| panic!("{e}"));
    let capture = advisor_normalize::read_path(&dir.join("capture.csv"))
        .unwrap_or_else(|e| panic!("{case}: {e}"));
    let topology = Topology::load(&dir.join("topology.toml"), &catalog)
        .unwrap_or_else(|e| panic!("{case}: {e}"));
    ([capture], topology)
}
