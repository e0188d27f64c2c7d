//! The rows read from CSV or JSON, grouped into snapshots and turned into per-file rates.

use std::collections::{BTreeMap, HashSet};

use advisor_model::{
    CaptureMeta, Counters, DbFile, DbFileKind, Location, RawCapture, Snapshot, Table, TargetKind,
};

use super::FORMAT;
use super::time::{self, Stamp};
use crate::IngestError;
use crate::snapshots::ONE_SNAPSHOT;

/// A column advisor reads, by what it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum Col {
    SampleTime,
    Server,
    DatabaseName,
    DatabaseId,
    FileId,
    TypeDesc,
    LogicalName,
    PhysicalName,
    SampleMs,
    Reads,
    BytesRead,
    StallRead,
    Writes,
    BytesWritten,
    StallWrite,
    Size,
}

/// What a column name is: one advisor reads, one it knows and leaves (the DMV's other
/// columns, the DataRow properties `Export-Csv` adds), or one it does not know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Named {
    Read(Col),
    Known,
    Unknown,
}

/// A column name as the query, the DMV, `sys.master_files` or a DBA's alias spells it:
/// case, spaces, underscores and brackets aside.
pub(super) fn col_of(name: &str) -> Named {
    let key: String = name
        .chars()
        .filter(|c| !matches!(c, ' ' | '_' | '[' | ']' | '"' | '\'' | '.' | '-'))
        .flat_map(char::to_lowercase)
        .collect();
    // A qualified name from a join (`vfs.num_of_reads`, `mf.physical_name`).
    let key = match name.rsplit_once('.') {
        Some((_, tail)) if !tail.is_empty() => tail
            .chars()
            .filter(|c| !matches!(c, ' ' | '_' | '[' | ']' | '"'))
            .flat_map(char::to_lowercase)
            .collect(),
        _ => key,
    };
    use Col::*;
    Named::Read(match key.as_str() {
        "sampletime" | "sampledate" | "sampledat" | "sampledatetime" | "capturetime"
        | "capturedat" | "collectiontime" | "collectedat" | "snapshottime" | "timestamp"
        | "checkdate" | "sampletimestamp" => SampleTime,
        "servername" | "server" | "instance" | "instancename" | "sqlinstance" => Server,
        "databasename" | "dbname" | "database" | "db" => DatabaseName,
        "databaseid" | "dbid" => DatabaseId,
        "fileid" => FileId,
        "typedesc" | "filetype" | "filetypedesc" | "type" => TypeDesc,
        "logicalname" | "name" | "logicalfilename" => LogicalName,
        "physicalname" | "physicalfilename" | "filepath" | "path" | "physicalpath" => PhysicalName,
        "samplems" => SampleMs,
        "numofreads" => Reads,
        "numofbytesread" => BytesRead,
        "iostallreadms" => StallRead,
        "numofwrites" => Writes,
        "numofbyteswritten" => BytesWritten,
        "iostallwritems" => StallWrite,
        "sizeondiskbytes" => Size,
        // The DMV's other columns, and the properties `Export-Csv` writes of a DataRow.
        "iostall"
        | "iostallqueuedreadms"
        | "iostallqueuedwritems"
        | "filehandle"
        | "pdwnodeid"
        | "rowerror"
        | "rowstate"
        | "table"
        | "itemarray"
        | "haserrors" => {
            return Named::Known;
        }
        _ => return Named::Unknown,
    })
}

/// The columns a file must have: the counters, and what tells one file from another.
pub(super) fn missing(cols: &[Col]) -> Vec<&'static str> {
    let mut out = Vec::new();
    for (c, name) in [
        (Col::Reads, "num_of_reads"),
        (Col::BytesRead, "num_of_bytes_read"),
        (Col::Writes, "num_of_writes"),
        (Col::BytesWritten, "num_of_bytes_written"),
    ] {
        if !cols.contains(&c) {
            out.push(name);
        }
    }
    if !cols.contains(&Col::StallRead) && !cols.contains(&Col::StallWrite) {
        out.push("io_stall_read_ms or io_stall_write_ms");
    }
    let file_known = cols.contains(&Col::PhysicalName)
        || (cols.contains(&Col::FileId)
            && (cols.contains(&Col::DatabaseId) || cols.contains(&Col::DatabaseName)));
    if !file_known {
        out.push("physical_name (or database_id and file_id)");
    }
    out
}

/// One row of the file statistics, as read.
#[derive(Debug, Clone, Default)]
pub(super) struct Row {
    /// Where the row is: `line 3` or `$[2]`.
    pub(super) at: Option<Location>,
    pub(super) server: Option<String>,
    /// The sample time as written, and where.
    pub(super) time: Option<(String, Location)>,
    pub(super) database: Option<String>,
    pub(super) database_id: Option<u32>,
    pub(super) file_id: Option<u32>,
    pub(super) kind: Option<DbFileKind>,
    pub(super) logical: Option<String>,
    pub(super) path: Option<String>,
    pub(super) sample_ms: Option<i64>,
    pub(super) counters: Counters,
    pub(super) size: Option<f64>,
    /// A header or `#TYPE` line stood before the row: it starts a snapshot.
    pub(super) boundary: bool,
}

/// What a reader (CSV or JSON) gives.
#[derive(Debug, Default)]
pub(super) struct Parsed {
    pub(super) rows: Vec<Row>,
    pub(super) ignored: Vec<String>,
    pub(super) warnings: Vec<(String, Option<Location>)>,
    /// `CSV with a header`, `FOR JSON`, ...
    pub(super) shape: String,
}

/// A whole number as a cell or a JSON string holds it; `Ok(None)` for an empty cell or
/// `NULL`. The DMV's counters are `bigint`: a fraction, a decimal comma or a thousands
/// separator means the file went through a spreadsheet or a culture's number format.
pub(super) fn whole(cell: &str) -> Result<Option<f64>, String> {
    let t = cell.trim();
    if t.is_empty() || t.eq_ignore_ascii_case("null") {
        return Ok(None);
    }
    let digits = t.strip_prefix('-').unwrap_or(t);
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        return match t.parse::<i64>() {
            Ok(n) if n.unsigned_abs() <= 1 << 53 => Ok(Some(n as f64)),
            _ => Err(format!("\"{t}\" is too large for a counter")),
        };
    }
    let looks_localized =
        t.chars().all(|c| c.is_ascii_digit() || matches!(c, ',' | '.' | ' ' | '\u{a0}' | '\''));
    if looks_localized && t.chars().any(|c| c.is_ascii_digit()) {
        return Err(format!(
            "\"{t}\" is not a whole number: the DMV's counters are integers, so a decimal \
             comma, a fraction or a thousands separator means the file was rewritten in a \
             locale's number format (a spreadsheet, Export-Csv -UseCulture of a converted \
             value); save the query's results again as they come"
        ));
    }
    Err(format!("\"{t}\" is not a number"))
}

/// A file type: `type_desc` (`ROWS`, `LOG`, ...) or `type` (0, 1, 2, 4).
pub(super) fn kind(cell: &str) -> Result<Option<DbFileKind>, String> {
    let t = cell.trim();
    Ok(Some(match t.to_ascii_uppercase().as_str() {
        "" | "NULL" => return Ok(None),
        "ROWS" | "0" | "DATA" => DbFileKind::Rows,
        "LOG" | "1" => DbFileKind::Log,
        "FILESTREAM" | "2" => DbFileKind::Filestream,
        "FULLTEXT" | "4" => DbFileKind::Fulltext,
        _ => return Err(format!("\"{t}\" is not a file type (ROWS, LOG, FILESTREAM, FULLTEXT)")),
    }))
}

/// A text cell: `None` when empty or `NULL`.
pub(super) fn text(cell: &str) -> Option<String> {
    let t = cell.trim();
    (!t.is_empty() && !t.eq_ignore_ascii_case("null")).then(|| t.to_owned())
}

/// Sets one column of a row from its text; an error is the message (the caller locates it).
pub(super) fn set(row: &mut Row, col: Col, cell: &str, at: Location) -> Result<(), String> {
    let id = |v: Option<f64>| -> Result<Option<u32>, String> {
        match v {
            Some(x) if (0.0..=f64::from(u32::MAX)).contains(&x) => Ok(Some(x as u32)),
            Some(x) => Err(format!("{x} is not an id")),
            None => Ok(None),
        }
    };
    let count = |v: Option<f64>| -> Result<f64, String> {
        match v {
            Some(x) if x >= 0.0 => Ok(x),
            Some(x) => Err(format!("{x} is negative: counters only grow")),
            None => Err("is empty: the counters are never NULL".to_owned()),
        }
    };
    let c = &mut row.counters;
    match col {
        Col::SampleTime => row.time = text(cell).map(|t| (t, at)),
        Col::Server => row.server = text(cell),
        Col::DatabaseName => row.database = text(cell),
        Col::DatabaseId => row.database_id = id(whole(cell)?)?,
        Col::FileId => row.file_id = id(whole(cell)?)?,
        Col::TypeDesc => row.kind = kind(cell)?,
        Col::LogicalName => row.logical = text(cell),
        Col::PhysicalName => row.path = text(cell),
        Col::SampleMs => row.sample_ms = whole(cell)?.map(|x| x as i64),
        Col::Reads => c.reads = count(whole(cell)?)?,
        Col::BytesRead => c.bytes_read = count(whole(cell)?)?,
        Col::StallRead => c.read_stall_ms = Some(count(whole(cell)?)?),
        Col::Writes => c.writes = count(whole(cell)?)?,
        Col::BytesWritten => c.bytes_written = count(whole(cell)?)?,
        Col::StallWrite => c.write_stall_ms = Some(count(whole(cell)?)?),
        Col::Size => row.size = whole(cell)?,
    }
    Ok(())
}

/// What tells one file from another: the server, the database and the file.
fn key(r: &Row) -> (String, String, String) {
    let server = r.server.as_deref().unwrap_or("").to_ascii_lowercase();
    let db = match (r.database_id, &r.database) {
        (Some(id), _) => format!("#{id}"),
        (None, Some(d)) => d.to_lowercase(),
        (None, None) => String::new(),
    };
    let file = match (r.file_id, &r.path) {
        (Some(id), _) => format!("#{id}"),
        (None, Some(p)) => p.to_lowercase(),
        (None, None) => String::new(),
    };
    (server, db, file)
}

/// How a report names a file: its path, else `database (file N)`.
fn target_name(r: &Row) -> String {
    if let Some(p) = &r.path {
        return p.clone();
    }
    let db = match (&r.database, r.database_id) {
        (Some(d), _) => d.clone(),
        (None, Some(id)) => format!("database {id}"),
        (None, None) => "database".to_owned(),
    };
    match r.file_id {
        Some(f) => format!("{db} (file {f})"),
        None => db,
    }
}

/// The file's kind: as the capture says, else by the path's extension (`.ldf` a log,
/// `.mdf`/`.ndf` data), said in a warning.
fn file_kind(r: &Row, guessed: &mut bool) -> DbFileKind {
    if let Some(k) = r.kind {
        return k;
    }
    let ext =
        r.path.as_deref().and_then(|p| p.rsplit_once('.')).map(|(_, e)| e.to_ascii_lowercase());
    match ext.as_deref() {
        Some("ldf") => {
            *guessed = true;
            DbFileKind::Log
        }
        Some("mdf" | "ndf") => {
            *guessed = true;
            DbFileKind::Rows
        }
        _ => DbFileKind::Unknown,
    }
}

fn err(file: &str, at: Option<&Location>, message: String) -> IngestError {
    IngestError::invalid(file, at.cloned(), message)
}

/// Groups the rows into snapshots (a file seen again, or a header line again, starts the
/// next) and builds the capture: rates between consecutive snapshots, or one snapshot's
/// averages since the instance started.
pub(super) fn build(file: &str, parsed: Parsed) -> Result<RawCapture, IngestError> {
    let Parsed { rows, ignored, warnings, shape } = parsed;
    let mut meta = CaptureMeta::new(FORMAT);
    meta.version = Some(shape);
    for i in ignored {
        meta.ignore(i);
    }
    for (w, at) in warnings {
        meta.warn(w, at);
    }
    if rows.is_empty() {
        return Err(IngestError::invalid(
            file,
            None,
            "no rows of file statistics: the query returned nothing, or only its header was saved",
        ));
    }
    // Sample times, read with one date order for the file.
    let cells: Vec<&str> =
        rows.iter().filter_map(|r| r.time.as_ref().map(|(t, _)| t.as_str())).collect();
    let stamps = time::parse_all(&cells).map_err(|(i, e)| {
        let at = rows.iter().filter_map(|r| r.time.as_ref()).nth(i).map(|(_, at)| at);
        err(file, at, format!("sample time: {e}"))
    })?;
    let mut stamp_of: Vec<Option<Stamp>> = Vec::with_capacity(rows.len());
    let mut it = stamps.into_iter();
    for r in &rows {
        stamp_of.push(if r.time.is_some() { it.next() } else { None });
    }
    if let Some(off) = stamp_of.iter().flatten().find_map(|s| s.offset_min) {
        meta.utc_offset_min = Some(off);
    }
    // Snapshots.
    let mut snapshots: Vec<Vec<usize>> = Vec::new();
    let mut seen: HashSet<(String, String, String)> = HashSet::new();
    for (i, r) in rows.iter().enumerate() {
        let k = key(r);
        if snapshots.is_empty() || r.boundary || seen.contains(&k) {
            snapshots.push(Vec::new());
            seen.clear();
        }
        seen.insert(k);
        if let Some(s) = snapshots.last_mut() {
            s.push(i);
        }
    }
    // Targets, one per file, named by path, on the server's host.
    let mut guessed = false;
    let mut target_of: Vec<u32> = Vec::with_capacity(rows.len());
    let mut files: BTreeMap<u32, DbFile> = BTreeMap::new();
    for r in &rows {
        if let Some(s) = &r.server {
            meta.add_host(s);
        }
        let t = meta.target_index(&target_name(r), TargetKind::File, r.server.as_deref());
        target_of.push(t);
        let f = DbFile {
            target: t,
            database: r.database.clone(),
            database_id: r.database_id,
            file_id: r.file_id,
            logical_name: r.logical.clone(),
            path: r.path.clone(),
            kind: file_kind(r, &mut guessed),
            size_bytes: r.size,
            since_start: snapshots.len() == 1,
        };
        files.insert(t, f);
    }
    meta.files = files.into_values().collect();
    if guessed {
        meta.warn(
            "no type_desc column: a file's type is read from its extension (.ldf a log, .mdf and .ndf data)",
            None,
        );
    }
    if meta.files.iter().all(|f| f.path.is_none()) {
        meta.warn(
            "no physical_name column: the files cannot be placed on disks; join sys.master_files for it (advisor's query, docs/formats.md)",
            None,
        );
    }
    let mut table = Table::default();
    if snapshots.len() == 1 {
        // Averages since the instance started.
        let only = &snapshots[0];
        for &i in only {
            let r = &rows[i];
            table.push_row(target_of[i], stamp_of[i].map(|s| s.ms), &r.counters.averages());
        }
        let first = only.first().map(|&i| &rows[i]);
        meta.snapshot = Some(Snapshot {
            clock_ms: first.and_then(|r| r.sample_ms),
            time_ms: only.first().and_then(|&i| stamp_of[i].map(|s| s.ms)),
            source: first.and_then(|r| r.server.clone()),
            counters: only.iter().map(|&i| (target_of[i], rows[i].counters)).collect(),
        });
        meta.since_boot_only = true;
        meta.notes.push(format!(
            "{ONE_SNAPSHOT} the file statistics: the latencies and IO sizes are averages since \
             SQL Server started (its counters start at zero with the service), with no rates; \
             run the query again a few minutes later and give both (in one file or two) for \
             the rates and latencies in between"
        ));
        let since_boot = table.clone();
        return Ok(RawCapture { meta, table, since_boot: Some(since_boot) });
    }
    // Rates between consecutive snapshots, file by file.
    let base_clock = snapshots[0].iter().filter_map(|&i| rows[i].sample_ms).min();
    let mut relative = false;
    let mut gaps: Vec<f64> = Vec::new();
    let mut unmatched = 0usize;
    for pair in snapshots.windows(2) {
        let (before, after) = (&pair[0], &pair[1]);
        let earlier: BTreeMap<u32, usize> = before.iter().map(|&i| (target_of[i], i)).collect();
        for &j in after {
            let Some(&i) = earlier.get(&target_of[j]) else {
                unmatched += 1;
                continue;
            };
            let (a, b) = (&rows[i], &rows[j]);
            let by_clock = a.sample_ms.zip(b.sample_ms).map(|(x, y)| y - x);
            let by_time = stamp_of[i].zip(stamp_of[j]).map(|(x, y)| y.ms - x.ms);
            let ms = match (by_clock, by_time) {
                (Some(c), _) if c > 0 => c,
                (Some(_), Some(t)) if t > 0 => {
                    meta.warn(
                        "sample_ms went back between two snapshots while the sample time went on \
                         (an int sample_ms wraps after about 25 days on SQL Server 2008-2014): the \
                         interval is the sample times' difference",
                        b.at.clone(),
                    );
                    t
                }
                (None, Some(t)) if t > 0 => t,
                (None, None) => {
                    return Err(err(
                        file,
                        b.at.as_ref(),
                        "several snapshots but neither sample_ms nor a sample time: the time \
                         between them is unknown; keep the sample_ms column (advisor's query has it)"
                            .to_owned(),
                    ));
                }
                _ => {
                    meta.warn(
                        "a snapshot is not later than the one before it (sample_ms and the sample \
                         time did not advance): that interval is left out",
                        b.at.clone(),
                    );
                    continue;
                }
            };
            let Some(delta) = a.counters.delta(&b.counters) else {
                meta.warn(
                    "a file's counters went back between two snapshots (SQL Server restarted, or \
                     the database was taken offline or reattached): that interval is left out for it",
                    b.at.clone(),
                );
                continue;
            };
            let seconds = ms as f64 / 1000.0;
            gaps.push(seconds);
            let at = match (stamp_of[j], b.sample_ms, base_clock) {
                (Some(s), _, _) => s.ms,
                (None, Some(c), Some(base)) => {
                    relative = true;
                    c - base
                }
                _ => {
                    relative = true;
                    (gaps.len() as i64) * ms
                }
            };
            table.push_row(target_of[j], Some(at), &delta.rates(seconds));
        }
    }
    if unmatched > 0 {
        meta.warn(
            format!(
                "{unmatched} rows of a later snapshot name a file the snapshot before did not \
                 have (a database created or brought online between them): no rates for them there"
            ),
            None,
        );
    }
    if table.is_empty() {
        return Err(IngestError::invalid(
            file,
            None,
            "no interval between the snapshots could be used: see the warnings (counters reset, \
             snapshots out of order)",
        ));
    }
    meta.relative_time = relative;
    gaps.sort_by(f64::total_cmp);
    meta.interval_s = gaps.get(gaps.len() / 2).copied();
    meta.notes.push(format!(
        "{} snapshots of the file statistics: rates and latencies per interval between them",
        snapshots.len()
    ));
    Ok(RawCapture { meta, table, since_boot: None })
}
