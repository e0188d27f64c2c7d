//! The built-in catalog is a copy of `../shared/catalog` (the project's audited facts, each
//! row with its Microsoft source). When that folder is beside the clone, as in CI, the copy
//! compiled into the binary must equal it cell for cell; any difference fails and is named
//! by file, row and column, so the two cannot drift apart silently. Without `../shared` the
//! check says that it skipped and passes.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use advisor_topology::{BUILTIN_FILES, builtin_csv};

/// `../shared/catalog` beside the clone, when it is there.
fn shared_catalog() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().ok()?;
    let p = root.join("../shared/catalog");
    p.is_dir().then_some(p)
}

/// A CSV as a header and rows keyed by their first cell (the size or SKU name), each row
/// with its line number. Cells are compared as written: no trimming.
struct Table {
    header: Vec<String>,
    rows: BTreeMap<String, (u64, Vec<String>)>,
    /// Keys seen twice, with both lines.
    duplicates: Vec<String>,
}

fn table(text: &str) -> Result<Table, String> {
    let mut rdr = csv::ReaderBuilder::new().has_headers(true).from_reader(text.as_bytes());
    let header: Vec<String> =
        rdr.headers().map_err(|e| format!("bad header: {e}"))?.iter().map(str::to_owned).collect();
    let mut rows = BTreeMap::new();
    let mut duplicates = Vec::new();
    for rec in rdr.records() {
        let rec = rec.map_err(|e| format!("bad row: {e}"))?;
        let line = rec.position().map_or(0, |p| p.line());
        let cells: Vec<String> = rec.iter().map(str::to_owned).collect();
        let key = cells.first().cloned().unwrap_or_default();
        if let Some((first, _)) = rows.insert(key.clone(), (line, cells)) {
            duplicates.push(format!("row {key} appears twice (lines {first} and {line})"));
        }
    }
    Ok(Table { header, rows, duplicates })
}

/// Every difference between the built-in copy of `file` and the shared one, each naming the
/// row and column. Empty when they hold the same cells.
fn differences(file: &str, builtin: &str, shared: &str) -> Vec<String> {
    let (ours, theirs) = match (table(builtin), table(shared)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) => return vec![format!("{file}: the built-in copy does not parse: {e}")],
        (_, Err(e)) => {
            return vec![format!("{file}: ../shared/catalog's file does not parse: {e}")];
        }
    };
    let mut out = Vec::new();
    for d in &ours.duplicates {
        out.push(format!("{file} (built-in): {d}"));
    }
    for d in &theirs.duplicates {
        out.push(format!("{file} (../shared): {d}"));
    }
    for c in theirs.header.iter().filter(|c| !ours.header.contains(c)) {
        out.push(format!(
            "{file}: column `{c}` is in ../shared/catalog but not in the built-in copy"
        ));
    }
    for c in ours.header.iter().filter(|c| !theirs.header.contains(c)) {
        out.push(format!(
            "{file}: column `{c}` is in the built-in copy but not in ../shared/catalog"
        ));
    }
    if out.is_empty() && ours.header != theirs.header {
        out.push(format!(
            "{file}: the columns are in another order: built-in `{}`, ../shared `{}`",
            ours.header.join(","),
            theirs.header.join(",")
        ));
    }
    for (key, (line, cells)) in &theirs.rows {
        let Some((our_line, our_cells)) = ours.rows.get(key) else {
            out.push(format!(
                "{file}: row {key} (line {line} of ../shared) is missing from the built-in copy"
            ));
            continue;
        };
        for (i, col) in theirs.header.iter().enumerate() {
            let Some(j) = ours.header.iter().position(|c| c == col) else { continue };
            let want = cells.get(i).map_or("", String::as_str);
            let have = our_cells.get(j).map_or("", String::as_str);
            if want != have {
                out.push(format!(
                    "{file}: row {key}, column {col}: built-in `{have}` (line {our_line}), ../shared `{want}` (line {line})"
                ));
            }
        }
    }
    for (key, (line, _)) in &ours.rows {
        if !theirs.rows.contains_key(key) {
            out.push(format!(
                "{file}: row {key} (line {line} of the built-in copy) is not in ../shared/catalog"
            ));
        }
    }
    if out.is_empty() && builtin != shared {
        out.push(format!(
            "{file}: the same cells, but the bytes differ (row order, quoting or line endings): copy the file unchanged"
        ));
    }
    out
}

#[test]
fn the_built_in_catalog_equals_the_shared_one() {
    let Some(shared) = shared_catalog() else {
        eprintln!("../shared/catalog is absent: the catalog drift check is skipped");
        return;
    };
    let mut all = Vec::new();
    for file in BUILTIN_FILES {
        let builtin = builtin_csv(file).unwrap_or_else(|| panic!("{file} is not built in"));
        let theirs = std::fs::read_to_string(shared.join(file))
            .unwrap_or_else(|e| panic!("{}: {e}", shared.join(file).display()));
        all.extend(differences(file, &builtin, &theirs));
    }
    assert!(
        all.is_empty(),
        "the built-in catalog (crates/topology/catalog/) differs from {}: copy the corrected files \
         unchanged, or correct ../shared first\n{}",
        shared.display(),
        all.join("\n")
    );
}

/// The check itself: a built-in copy with one wrong cell, a missing row, an extra row and a
/// renamed column is caught, each difference named by row and column.
#[test]
fn a_drifted_copy_is_named_by_row_and_column() {
    let shared = builtin_csv("vm_sizes.csv").expect("built in");
    assert!(differences("vm_sizes.csv", &shared, &shared).is_empty());

    // Standard_D2ds_v4 with the 2020 "cached and temp storage" figures put back.
    let drifted =
        shared.replacen("Standard_D2ds_v4,2,8,75,4,,,,", "Standard_D2ds_v4,2,8,75,4,19000,,,", 1);
    assert_ne!(drifted, shared, "the fixture row is in the catalog");
    let d = differences("vm_sizes.csv", &drifted, &shared);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert!(
        d[0].starts_with(
            "vm_sizes.csv: row Standard_D2ds_v4, column cached_iops: built-in `19000`"
        ),
        "{}",
        d[0]
    );
    assert!(d[0].contains("../shared ``"), "{}", d[0]);

    // A row the shared file gained, one it lost, and a new column.
    let without: String = shared
        .lines()
        .filter(|l| !l.starts_with("Standard_D192ds_v6,"))
        .map(|l| l.to_owned() + "\n")
        .collect();
    let d = differences("vm_sizes.csv", &without, &shared);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert!(
        d[0].contains("row Standard_D192ds_v6") && d[0].contains("missing from the built-in"),
        "{}",
        d[0]
    );
    let d = differences("vm_sizes.csv", &shared, &without);
    assert!(
        d[0].contains("row Standard_D192ds_v6") && d[0].contains("not in ../shared"),
        "{}",
        d[0]
    );

    let renamed = shared.replacen(",temp_gib,", ",temp_size_gib,", 1);
    let d = differences("vm_sizes.csv", &shared, &renamed);
    assert!(d.iter().any(|m| m.contains("column `temp_size_gib` is in ../shared")), "{d:#?}");
    assert!(d.iter().any(|m| m.contains("column `temp_gib` is in the built-in copy")), "{d:#?}");

    // Same cells, other bytes: CRLF line endings.
    let crlf = shared.replace('\n', "\r\n");
    let d = differences("vm_sizes.csv", &crlf, &shared);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert!(d[0].contains("the bytes differ"), "{}", d[0]);
}
