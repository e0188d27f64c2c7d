//! `xtask floor FILE`: the floor of the PerfMon benchmark. polars' own CSV reader reads the
//! file from its path, with the schema and projection advisor uses (every column Float64,
//! only the columns that map to a metric parsed, the same parse options), and nothing else.
//! Prints one JSON line: rows, columns, seconds, peak RSS.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use advisor_ingest::perfmon::{counters, header};
use advisor_model::CaptureMeta;
use anyhow::Result;
use polars::prelude::*;

pub(crate) fn floor(file: &Path, started: Instant) -> Result<()> {
    // The header only: which columns the reader would project.
    let mut line = String::new();
    BufReader::new(std::fs::File::open(file)?).read_line(&mut line)?;
    let line = line.trim_start_matches('\u{feff}').trim_end_matches(['\r', '\n']);
    let separator = header::detect_separator(line);
    let headers = header::split_cells(line, separator);
    let mut meta = CaptureMeta::new(advisor_ingest::perfmon::FORMAT);
    let mut projection: Vec<usize> =
        counters::plan(&headers, 1, &mut meta).iter().map(|c| c.index).collect();
    projection.sort_unstable();
    projection.dedup();
    let schema: SchemaRef = Arc::new(Schema::from_iter(
        (0..headers.len()).map(|i| Field::new(format!("c{i}").into(), DataType::Float64)),
    ));
    let parse = CsvParseOptions::default()
        .with_separator(separator)
        .with_quote_char(Some(b'"'))
        .with_missing_is_null(true)
        .with_truncate_ragged_lines(true);
    let columns = projection.len();
    let t = Instant::now();
    let df = CsvReadOptions::default()
        .with_has_header(false)
        .with_skip_rows(1)
        .with_schema(Some(schema))
        .with_projection(Some(Arc::new(projection)))
        .with_rechunk(false)
        .with_parse_options(parse)
        .try_into_reader_with_file_path(Some(file.into()))?
        .finish()?;
    let read_s = t.elapsed().as_secs_f64();
    println!(
        "{}",
        serde_json::json!({
            "bytes": std::fs::metadata(file)?.len(), "rows": df.height(), "columns": columns,
            "read_s": read_s, "total_s": started.elapsed().as_secs_f64(),
            "hwm_kib": crate::child::peak_rss_kib()
        })
    );
    Ok(())
}
