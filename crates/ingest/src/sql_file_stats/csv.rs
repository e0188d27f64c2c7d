//! The file statistics as CSV: SSMS's "Save Results As" (with or without a header row,
//! unquoted unless a cell holds the separator) and `Export-Csv` (a `#TYPE` line in
//! Windows PowerShell, every cell quoted, `;` with `-UseCulture` where that is the list
//! separator).

use advisor_model::Location;

use super::QUERY_COLUMNS;
use super::rows::{self, Col, Named, Parsed, Row};
use crate::IngestError;

/// Cells of one line: each cell's text and the 1-based column (in characters) it starts at.
type Cells = Vec<(String, u64)>;

/// Splits a line at `sep` outside double quotes; `""` inside quotes is one quote.
/// `Err(column)` for a quote left open.
fn split(line: &str, sep: char) -> Result<Cells, u64> {
    let mut out = Vec::new();
    let mut cell = String::new();
    let mut start = 1u64;
    let mut quoted = false;
    let mut open_at = 0u64;
    let mut chars = line.chars().peekable();
    let mut col = 0u64;
    while let Some(c) = chars.next() {
        col += 1;
        if quoted {
            if c == '"' {
                if chars.peek() == Some(&'"') {
                    chars.next();
                    col += 1;
                    cell.push('"');
                } else {
                    quoted = false;
                }
            } else {
                cell.push(c);
            }
        } else if c == '"' && cell.trim().is_empty() {
            cell.clear();
            quoted = true;
            open_at = col;
        } else if c == sep {
            out.push((std::mem::take(&mut cell), start));
            start = col + 1;
        } else {
            cell.push(c);
        }
    }
    if quoted {
        return Err(open_at);
    }
    out.push((cell, start));
    Ok(out)
}

/// The separator of a line: `,`, `;` or a tab, whichever splits it into the most cells
/// outside quotes (`,` on a tie).
fn separator(line: &str) -> char {
    let count = |sep: char| split(line, sep).map_or(0, |c| c.len());
    let mut best = (',', count(','));
    for sep in [';', '\t'] {
        let n = count(sep);
        if n > best.1 {
            best = (sep, n);
        }
    }
    best.0
}

/// A line `Export-Csv` writes before the header in Windows PowerShell.
fn is_type_line(line: &str) -> bool {
    line.trim_start().starts_with("#TYPE")
}

/// Lines SSMS and sqlcmd print around results that are not rows: blank lines, the row
/// count, SSMS's completion time, sqlcmd's line of dashes under the header.
fn is_noise(line: &str) -> bool {
    let t = line.trim();
    t.is_empty()
        || t.starts_with("Completion time:")
        || (t.starts_with('-') && t.chars().all(|c| matches!(c, '-' | ',' | ';' | '\t' | ' ')))
        || (t.starts_with('(') && t.ends_with("affected)") && t.contains("row"))
}

/// The first line of a CSV that is neither a `#TYPE` line nor blank: the header, when the
/// file has one.
pub(super) fn header_line(text: &str) -> Option<&str> {
    text.lines().map(|l| l.trim_end_matches('\r')).find(|l| !is_type_line(l) && !is_noise(l))
}

/// Whether a line splits into names advisor knows (at least three): a header row.
fn is_header(cells: &Cells) -> bool {
    cells.iter().filter(|(c, _)| matches!(rows::col_of(c), Named::Read(_))).count() >= 3
}

/// A row in the order of advisor's query ([`QUERY_COLUMNS`]): sixteen cells, a file type
/// sixth, a path eighth and whole numbers from the ninth on.
pub(super) fn is_query_row(line: &str) -> bool {
    let Ok(cells) = split(line, separator(line)) else { return false };
    if cells.len() != QUERY_COLUMNS.len() {
        return false;
    }
    let path = cells[7].0.trim();
    let path_like = path.starts_with('/')
        || path.starts_with("\\\\")
        || (path.len() > 2 && path.as_bytes()[1] == b':');
    rows::kind(&cells[5].0).ok().flatten().is_some()
        && path_like
        && cells[8..].iter().all(|(c, _)| rows::whole(c).is_ok_and(|v| v.is_some()))
}

/// Reads the CSV into rows.
pub(super) fn read(file: &str, text: &str) -> Result<Parsed, IngestError> {
    let lines: Vec<(u64, &str)> =
        text.lines().enumerate().map(|(i, l)| (i as u64 + 1, l.trim_end_matches('\r'))).collect();
    let Some(&(first_no, first)) = lines.iter().find(|(_, l)| !is_type_line(l) && !is_noise(l))
    else {
        return Err(IngestError::invalid(file, None, "no rows: the file holds no CSV lines"));
    };
    let sep = separator(first);
    let typed = lines.iter().any(|(_, l)| is_type_line(l));
    let at = |line: u64, col: u64| Location::line(line, col);
    let first_cells = split(first, sep)
        .map_err(|c| IngestError::invalid(file, Some(at(first_no, c)), "a quote is left open"))?;
    let mut parsed = Parsed::default();
    // The columns, by the header or by the query's order.
    let (cols, header): (Vec<Option<Col>>, Option<&str>) = if is_header(&first_cells) {
        let mut cols: Vec<Option<Col>> = Vec::new();
        for (name, _) in &first_cells {
            let name = name.trim();
            match rows::col_of(name) {
                // A join's `SELECT *` has database_id and file_id twice: the first is kept.
                Named::Read(c) if !cols.contains(&Some(c)) => cols.push(Some(c)),
                Named::Read(_) | Named::Known => cols.push(None),
                Named::Unknown => {
                    parsed.ignored.push(name.to_owned());
                    cols.push(None);
                }
            }
        }
        let have: Vec<Col> = cols.iter().flatten().copied().collect();
        let missing = rows::missing(&have);
        if !missing.is_empty() {
            return Err(IngestError::invalid(
                file,
                Some(at(first_no, 1)),
                format!(
                    "the header lacks {}: advisor needs the file statistics' counters and the \
                     file's identity (run advisor's query, docs/formats.md, \"SQL Server file statistics: the query\")",
                    missing.join(", ")
                ),
            ));
        }
        parsed.shape = if typed { "Export-Csv" } else { "CSV with a header row" }.to_owned();
        (cols, Some(first))
    } else {
        if first_cells.len() != QUERY_COLUMNS.len() || !is_query_row(first) {
            return Err(IngestError::invalid(
                file,
                Some(at(first_no, 1)),
                format!(
                    "no header row, and the first row ({} cells) is not in the order of \
                     advisor's query ({} columns: {}); save the results with their column \
                     names (SSMS: Tools > Options > Query Results > SQL Server > Results to \
                     Grid > Include column headers when copying or saving the results)",
                    first_cells.len(),
                    QUERY_COLUMNS.len(),
                    QUERY_COLUMNS.join(", ")
                ),
            ));
        }
        let cols = QUERY_COLUMNS.iter().map(|n| match rows::col_of(n) {
            Named::Read(c) => Some(c),
            _ => None,
        });
        parsed.shape = "CSV without a header row (advisor's query)".to_owned();
        (cols.collect(), None)
    };
    let mut boundary = false;
    for &(no, line) in &lines {
        if no < first_no || (header.is_some() && no == first_no) {
            continue;
        }
        if is_type_line(line) {
            boundary = true;
            continue;
        }
        if is_noise(line) {
            continue;
        }
        // The header again: a second export appended to the first.
        if header.is_some_and(|h| h.trim() == line.trim()) {
            boundary = true;
            continue;
        }
        let cells = split(line, sep)
            .map_err(|c| IngestError::invalid(file, Some(at(no, c)), "a quote is left open"))?;
        if cells.len() != cols.len() {
            let hint = if sep == ',' && cells.len() > cols.len() {
                ": a path or name with a comma in a file saved without quotes? (SSMS: Tools > \
                 Options > Query Results > SQL Server > Results to Grid > Quote strings \
                 containing list separators when saving .csv results)"
            } else {
                ""
            };
            return Err(IngestError::invalid(
                file,
                Some(at(no, 1)),
                format!("{} cells where the header has {}{hint}", cells.len(), cols.len()),
            ));
        }
        let mut row = Row { at: Some(at(no, 1)), boundary, ..Row::default() };
        boundary = false;
        for ((cell, col_no), col) in cells.iter().zip(&cols) {
            let Some(col) = col else { continue };
            rows::set(&mut row, *col, cell, at(no, *col_no)).map_err(|e| {
                let name = header
                    .and_then(|h| split(h, sep).ok())
                    .and_then(|h| {
                        h.get(cols.iter().position(|c| c == &Some(*col))?)
                            .map(|(n, _)| n.trim().to_owned())
                    })
                    .unwrap_or_else(|| col_name(*col).to_owned());
                IngestError::invalid(file, Some(at(no, *col_no)), format!("{name}: {e}"))
            })?;
        }
        parsed.rows.push(row);
    }
    Ok(parsed)
}

/// The query's name of a column, for messages about a file without a header.
fn col_name(col: Col) -> &'static str {
    QUERY_COLUMNS.iter().find(|n| rows::col_of(n) == Named::Read(col)).copied().unwrap_or("column")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_quoted_cells_and_keeps_their_columns() {
        let cells = split("\"a,b\",c,\"d\"\"e\"", ',').unwrap_or_default();
        assert_eq!(cells, vec![("a,b".to_owned(), 1), ("c".to_owned(), 7), ("d\"e".to_owned(), 9)]);
        assert_eq!(split("\"open,x", ','), Err(1));
        assert_eq!(separator("a;b;c"), ';');
        assert_eq!(separator("\"a;b\",c"), ',');
    }
}
