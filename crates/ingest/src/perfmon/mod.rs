//! PerfMon CSV header grammar and the counter map (English names to canonical metrics).
//! The rows themselves are read by polars in `advisor-normalize`.
