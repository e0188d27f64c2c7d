//! Topology and catalog (issue 3).
