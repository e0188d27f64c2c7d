//! `../shared/catalog` as an independent audit of the built-in catalog. The built-in files
//! are generated from the snapshot of Microsoft's pages (`cargo run -p xtask -- catalog`);
//! the shared files were typed from the same documentation by other hands. When that folder is
//! beside the clone, as in CI, every cell it has must equal the built-in one, or be one of the
//! disagreements below, each with the documentation passage that decides it. A disagreement
//! that is not listed fails, naming the file, row and column; a listed one that no longer
//! occurs fails too, so the list stays true. Without `../shared` the check says that it
//! skipped and passes.
//!
//! Mapping: a shared `Standard_X:nvme` row holds the NVMe-controller figures of X, which the
//! built-in file keeps in X's `nvme_uncached_*` columns; its other cells are X's. The shared
//! `source` column (`repo:path`) is not compared: the built-in one names `repo:path@commit`
//! of the snapshot's pages, which may be other versions or pages.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::skip;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use advisor_topology::{BUILTIN_FILES, builtin_csv};

/// A cell where the documentation and `../shared/catalog` disagree, as the audit found it.
struct Disagreement {
    file: &'static str,
    row: &'static str,
    column: &'static str,
    /// The shared file's cell and the built-in one, as written.
    shared: &'static str,
    builtin: &'static str,
    /// The page (repo:path@commit) and what it says.
    passage: &'static str,
}

const EBSV5_PAGE: &str = "MicrosoftDocs/azure-compute-docs:articles/virtual-machines/sizes/memory-optimized/ebdsv5-ebsv5-series.md@76e3d22a34ca2aa3a8518a17b7eeb5ceb4bfb1c6";
const EBSV5_TEMP: &str = "the Ebsv5 tables (NVMe and SCSI) have columns Size, vCPU, Memory: GiB, Max data disks and four remote-storage pairs: no temp-storage column, and the page states no temp disk for Ebsv5 (its Ebdsv5 tables have one). The shared 0 is read from the name; the page publishes nothing";

/// The cells where the documentation and the shared catalog disagree (or where the shared
/// catalog states what the documentation does not).
const DISAGREEMENTS: &[Disagreement] = &[
    Disagreement {
        file: "vm_sizes.csv",
        row: "Standard_E2bs_v5",
        column: "temp_gib",
        shared: "0",
        builtin: "",
        passage: EBSV5_TEMP,
    },
    Disagreement {
        file: "vm_sizes.csv",
        row: "Standard_E4bs_v5",
        column: "temp_gib",
        shared: "0",
        builtin: "",
        passage: EBSV5_TEMP,
    },
    Disagreement {
        file: "vm_sizes.csv",
        row: "Standard_E8bs_v5",
        column: "temp_gib",
        shared: "0",
        builtin: "",
        passage: EBSV5_TEMP,
    },
    Disagreement {
        file: "vm_sizes.csv",
        row: "Standard_E16bs_v5",
        column: "temp_gib",
        shared: "0",
        builtin: "",
        passage: EBSV5_TEMP,
    },
    Disagreement {
        file: "vm_sizes.csv",
        row: "Standard_E32bs_v5",
        column: "temp_gib",
        shared: "0",
        builtin: "",
        passage: EBSV5_TEMP,
    },
    Disagreement {
        file: "vm_sizes.csv",
        row: "Standard_E48bs_v5",
        column: "temp_gib",
        shared: "0",
        builtin: "",
        passage: EBSV5_TEMP,
    },
    Disagreement {
        file: "vm_sizes.csv",
        row: "Standard_E64bs_v5",
        column: "temp_gib",
        shared: "0",
        builtin: "",
        passage: EBSV5_TEMP,
    },
    Disagreement {
        file: "vm_sizes.csv",
        row: "Standard_E96bs_v5",
        column: "temp_gib",
        shared: "0",
        builtin: "",
        passage: EBSV5_TEMP,
    },
    Disagreement {
        file: "vm_sizes.csv",
        row: "Standard_E2bs_v5:nvme",
        column: "temp_gib",
        shared: "0",
        builtin: "",
        passage: EBSV5_TEMP,
    },
    Disagreement {
        file: "vm_sizes.csv",
        row: "Standard_E4bs_v5:nvme",
        column: "temp_gib",
        shared: "0",
        builtin: "",
        passage: EBSV5_TEMP,
    },
    Disagreement {
        file: "vm_sizes.csv",
        row: "Standard_E8bs_v5:nvme",
        column: "temp_gib",
        shared: "0",
        builtin: "",
        passage: EBSV5_TEMP,
    },
    Disagreement {
        file: "vm_sizes.csv",
        row: "Standard_E16bs_v5:nvme",
        column: "temp_gib",
        shared: "0",
        builtin: "",
        passage: EBSV5_TEMP,
    },
    Disagreement {
        file: "vm_sizes.csv",
        row: "Standard_E32bs_v5:nvme",
        column: "temp_gib",
        shared: "0",
        builtin: "",
        passage: EBSV5_TEMP,
    },
    Disagreement {
        file: "vm_sizes.csv",
        row: "Standard_E48bs_v5:nvme",
        column: "temp_gib",
        shared: "0",
        builtin: "",
        passage: EBSV5_TEMP,
    },
    Disagreement {
        file: "vm_sizes.csv",
        row: "Standard_E64bs_v5:nvme",
        column: "temp_gib",
        shared: "0",
        builtin: "",
        passage: EBSV5_TEMP,
    },
    Disagreement {
        file: "vm_sizes.csv",
        row: "Standard_E96bs_v5:nvme",
        column: "temp_gib",
        shared: "0",
        builtin: "",
        passage: EBSV5_TEMP,
    },
    Disagreement {
        file: "vm_sizes.csv",
        row: "Standard_E112ibs_v5:nvme",
        column: "temp_gib",
        shared: "0",
        builtin: "",
        passage: EBSV5_TEMP,
    },
];

/// `../shared/catalog` beside the clone, when it is there.
fn shared_catalog() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().ok()?;
    let p = root.join("../shared/catalog");
    p.is_dir().then_some(p)
}

/// A CSV as a header and rows keyed by their first cell (the size or SKU name), each row
/// with its line number.
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

/// Two cells hold the same figure: equal as written, or as numbers (`3.5` and `3.50`).
fn same(a: &str, b: &str) -> bool {
    a == b || matches!((a.parse::<f64>(), b.parse::<f64>()), (Ok(x), Ok(y)) if (x - y).abs() < 1e-9)
}

/// A cell where the built-in `file` and the shared one disagree.
#[derive(Debug, PartialEq)]
struct Cell {
    row: String,
    column: String,
    builtin: String,
    shared: String,
    lines: (u64, u64),
}

/// Every cell of the shared `file` against the built-in one. `Err` for what is not a cell
/// (a file that does not parse, a duplicated row, a shared column or row the built-in file
/// lacks).
fn audit(builtin: &str, shared: &str) -> (Vec<Cell>, Vec<String>) {
    let (ours, theirs) = match (table(builtin), table(shared)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) => return (vec![], vec![format!("the built-in file does not parse: {e}")]),
        (_, Err(e)) => return (vec![], vec![format!("../shared's file does not parse: {e}")]),
    };
    let mut cells = Vec::new();
    let mut other = Vec::new();
    for d in ours.duplicates.iter().chain(&theirs.duplicates) {
        other.push(d.clone());
    }
    for (key, (line, row)) in &theirs.rows {
        let (base, nvme) = match key.strip_suffix(":nvme") {
            Some(b) => (b, true),
            None => (key.as_str(), false),
        };
        let Some((our_line, our_row)) = ours.rows.get(base) else {
            other.push(format!("row {key} (line {line} of ../shared) is not in the built-in file"));
            continue;
        };
        for (i, col) in theirs.header.iter().enumerate() {
            if col == "source" || i == 0 {
                continue;
            }
            let ours_col = match col.strip_prefix("uncached_") {
                Some(_) if nvme => format!("nvme_{col}"),
                _ => col.clone(),
            };
            let Some(j) = ours.header.iter().position(|c| *c == ours_col) else {
                other.push(format!("column `{col}` of ../shared is not in the built-in file"));
                continue;
            };
            let want = row.get(i).map_or("", String::as_str);
            let have = our_row.get(j).map_or("", String::as_str);
            if !same(want, have) {
                cells.push(Cell {
                    row: key.clone(),
                    column: col.clone(),
                    builtin: have.to_owned(),
                    shared: want.to_owned(),
                    lines: (*our_line, *line),
                });
            }
        }
    }
    other.sort();
    other.dedup();
    (cells, other)
}

/// What the audit of `file` finds that the list of disagreements does not explain.
fn unexplained(file: &str, builtin: &str, shared: &str) -> Vec<String> {
    let (cells, other) = audit(builtin, shared);
    let mut out: Vec<String> = other.into_iter().map(|o| format!("{file}: {o}")).collect();
    for c in &cells {
        let known = DISAGREEMENTS.iter().any(|d| {
            d.file == file
                && d.row == c.row
                && d.column == c.column
                && d.shared == c.shared
                && d.builtin == c.builtin
        });
        if !known {
            out.push(format!(
                "{file}: row {}, column {}: built-in `{}` (line {}), ../shared `{}` (line {})",
                c.row, c.column, c.builtin, c.lines.0, c.shared, c.lines.1
            ));
        }
    }
    for d in DISAGREEMENTS.iter().filter(|d| d.file == file) {
        if !cells.iter().any(|c| c.row == d.row && c.column == d.column) {
            out.push(format!(
                "{file}: the listed disagreement on row {}, column {} no longer occurs: remove it",
                d.row, d.column
            ));
        }
    }
    out
}

#[test]
fn the_shared_catalog_agrees_with_the_built_in_one_cell_by_cell() {
    let Some(shared) = shared_catalog() else {
        skip::skip("../shared/catalog is absent: the catalog audit");
        return;
    };
    let mut all = Vec::new();
    for file in BUILTIN_FILES {
        let builtin = builtin_csv(file).unwrap_or_else(|| panic!("{file} is not built in"));
        let theirs = std::fs::read_to_string(shared.join(file))
            .unwrap_or_else(|e| panic!("{}: {e}", shared.join(file).display()));
        all.extend(unexplained(file, &builtin, &theirs));
    }
    assert!(
        all.is_empty(),
        "the built-in catalog (crates/topology/catalog/, generated from the snapshot of \
         Microsoft's pages) and {} disagree where no documented disagreement explains it: read \
         the page, then fix the snapshot's reading or list the disagreement with its passage\n{}",
        shared.display(),
        all.join("\n")
    );
}

#[test]
fn every_listed_disagreement_cites_a_pinned_page() {
    for d in DISAGREEMENTS {
        assert!(d.passage.len() > 40, "{} {}: say what the page says", d.row, d.column);
    }
    assert!(EBSV5_PAGE.contains('@'));
}

/// The audit itself: a wrong cell, an NVMe row's figure, a missing row and a missing column
/// are each named; equal numbers written differently are not a difference.
#[test]
fn a_drifted_cell_is_named_by_row_and_column() {
    let builtin = "size,vcpu,uncached_iops,nvme_uncached_iops,source\n\
                   Standard_A2,2,100,150,x@1\n\
                   Standard_B4,4,200,,x@1\n";
    let shared = "size,vcpu,uncached_iops,source\n\
                  Standard_A2,2.0,100,x\n\
                  Standard_A2:nvme,2,150,x\n\
                  Standard_B4,4,250,x\n";
    let (cells, other) = audit(builtin, shared);
    assert!(other.is_empty(), "{other:?}");
    assert_eq!(cells.len(), 1, "{cells:#?}");
    assert_eq!((cells[0].row.as_str(), cells[0].column.as_str()), ("Standard_B4", "uncached_iops"));
    assert_eq!((cells[0].builtin.as_str(), cells[0].shared.as_str()), ("200", "250"));

    let shared_nvme_off = shared.replace("Standard_A2:nvme,2,150", "Standard_A2:nvme,2,160");
    let (cells, _) = audit(builtin, &shared_nvme_off);
    assert!(cells.iter().any(|c| c.row == "Standard_A2:nvme" && c.builtin == "150"));

    let (_, other) = audit(builtin, &format!("{shared}Standard_C8,8,1,x\n"));
    assert!(other.iter().any(|o| o.contains("row Standard_C8")), "{other:?}");
    let (_, other) = audit(builtin, &shared.replace("vcpu", "cores"));
    assert!(other.iter().any(|o| o.contains("column `cores`")), "{other:?}");
    let u = unexplained("vm_sizes.csv", builtin, shared);
    assert!(u.iter().any(|m| m.contains("row Standard_B4, column uncached_iops")), "{u:#?}");
}
