//! Kubernetes' documents of an AKS node (`kubectl get pv,pvc,storageclass,nodes,
//! volumeattachment -o json`): the bytes as one document, then in place of each document of
//! the AKS fixture in turn, beside the others, so that the reader and the join across
//! documents (a volume to its claim, class, node and LUN, the LUN to the guest's device)
//! both meet them; then the limits rules would compare with.
#![no_main]

use std::sync::OnceLock;

use advisor_topology::{Catalog, Topology};
use libfuzzer_sys::fuzz_target;

static CATALOG: OnceLock<Catalog> = OnceLock::new();

macro_rules! aks {
    ($($f:literal),*) => {
        [$(($f, include_str!(concat!("../../fixtures/topologies/documents/aks-d2sv3-linux/", $f)))),*]
    };
}

const NODE: [(&str, &str); 6] = aks!(
    "node.json",
    "pv.json",
    "pvc.json",
    "storageclass.json",
    "volumeattachment.json",
    "disk-azure.txt"
);

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let catalog = CATALOG.get_or_init(|| Catalog::builtin().expect("the built-in catalog"));
    let one = [("fuzz.json".to_owned(), text.to_owned())];
    if let Ok(t) = Topology::from_documents(&one, catalog) {
        let _ = t.limits();
    }
    for i in 0..NODE.len() {
        let docs: Vec<(String, String)> = NODE
            .iter()
            .enumerate()
            .map(|(j, (name, doc))| {
                if i == j {
                    ("fuzz.json".to_owned(), text.to_owned())
                } else {
                    ((*name).to_owned(), (*doc).to_owned())
                }
            })
            .collect();
        if let Ok(t) = Topology::from_documents(&docs, catalog) {
            let _ = t.limits();
        }
    }
});
