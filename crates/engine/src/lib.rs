//! The library entry point of advisor, and the one crate that wires the readers, topology,
//! rules and reports together: front ends (the CLI, the server, the benchmark) build one
//! [`Session`] and call it, and render with `advisor_report`.
//!
//! - [`Session`] ([`Session::builder`]): the rules in force, the catalog, the templates;
//!   one entry per job, each taking a [`Request`] (inputs and [`TopologySources`]) and a
//!   [`Progress`]: [`Session::analyze`], [`Session::compare`], [`Session::recommend`],
//!   [`Session::batch`]; [`Session::inspect`] and [`Session::topology`] for one input and
//!   for the topology's documents; [`Session::render`] and its kin for the reports. The
//!   steps the jobs share (opening bundles, assembling the topology, reading every input
//!   with every error) are written once, in private.
//! - [`rules`] and [`catalog`]: what front ends show of the ruleset and the catalog
//!   (`advisor rules`, `advisor catalog`, the API's reference routes); [`RuleDocument`] and
//!   [`VmDocument`] as JSON, and every document's JSON Schema by name ([`schema`]).

mod analyze;
mod batch;
mod bind;
mod bundle;
mod capture_series;
mod catalog_caps;
mod compare;
mod documents;
mod formats;
mod inspect;
mod platform;
pub mod recommend;
mod series;
mod session;
mod sources;
mod verdict;

pub use advisor_ingest::bundle::{Limits as BundleLimits, Manifest};
pub use advisor_ingest::{ErrorKind, IngestError};
pub use advisor_model::reduce_points;
pub use advisor_normalize::Capture;
/// The readers' own entry for captures in memory (what a [`Session`] uses unless told
/// otherwise by [`SessionBuilder::bytes_reader`]).
pub use advisor_normalize::read_bytes;
pub use analyze::{Timings, findings_of, not_evaluated_of};
pub use batch::{BatchDone, BatchOptions, input_bytes, memory_estimate};
pub use bundle::BundleSummary;
pub use compare::CompareSide;
pub use documents::{
    CatalogList, DiskDocument, RuleDocument, RuleParam, RuleSummary, SCHEMA_NAMES, StatusCounts,
    Units, VmCounts, VmDocument, schema,
};
pub use formats::{
    BUNDLES, FORMATS_MARKER, capture_formats, capture_formats_sentence, fill_formats,
    fill_formats_in, missing_formats,
};
pub use inspect::{BenchInspection, Inspection, MetricStats, TargetInspection};
pub use session::{
    BUSY_IOPS, BytesReader, CHART_POINTS, EngineError, Input, Inspected, NO_CAPTURE, Progress,
    Request, Session, SessionBuilder,
};
pub use sources::{DiskRow, TopologySources, document_kind};

/// The ruleset as the front ends show it: listing, checking and explaining rules.
pub mod rules {
    pub use advisor_rules::registry::{Origin, dir_files, shipped_files};
    pub use advisor_rules::{CheckedRule, Diagnostic, LoadError, Registry, explain};
}

/// The Azure catalog and topology types as the front ends show them.
pub mod catalog {
    pub use advisor_topology::{
        BurstModel, Catalog, CatalogError, DiskKind, DiskSku, DocumentKind, HOST_CACHE_MAX_GIB,
        Merged, RemoteFigures, SizeStatus, SkuRef, Topology, TopologyError, UnknownName, VmSize,
        did_you_mean, fmt_num, fmt_opt,
    };
}

// Helpers of the crate's tests.
#[cfg(test)]
mod tests;
