//! The values of a PerfMon CSV's good data lines: each line split into its cells (quotes
//! honoured), the cells of the planned columns parsed as numbers, straight into one Float64
//! builder per column.
//!
//! A cell is read as polars' CSV reader reads a Float64 cell (the floor the benchmark
//! measures against, and what this replaced): the quotes around it dropped, leading spaces
//! and tabs skipped, an empty cell missing, the rest parsed whole by `fast-float2` (the same
//! crate and version), `1,5` read as `1.5` in a file with decimal commas. A cell that is
//! not a number is missing too, and the first one of each run of good lines is kept for
//! the warning.

use polars::prelude::*;

/// What the parser needs to know of the lines.
#[derive(Debug, Clone)]
pub(crate) struct Layout {
    pub(crate) separator: u8,
    pub(crate) decimal_comma: bool,
    /// For each CSV column, its slot among the parsed columns, or [`SKIP`].
    pub(crate) slot_of: Vec<u32>,
    /// The CSV column of each slot, in CSV order.
    pub(crate) columns: Vec<usize>,
}

/// A CSV column that is not parsed.
pub(crate) const SKIP: u32 = u32::MAX;

impl Layout {
    /// `wanted`: the CSV columns to parse (any order, repeats ignored); `n_columns`: cells
    /// in a line.
    pub(crate) fn new(
        separator: u8,
        decimal_comma: bool,
        n_columns: usize,
        wanted: &[usize],
    ) -> Self {
        let mut columns: Vec<usize> = wanted.iter().copied().filter(|&i| i < n_columns).collect();
        columns.sort_unstable();
        columns.dedup();
        let mut slot_of = vec![SKIP; n_columns];
        for (slot, &c) in columns.iter().enumerate() {
            slot_of[c] = u32::try_from(slot).unwrap_or(SKIP);
        }
        Self { separator, decimal_comma, slot_of, columns }
    }
}

/// A byte range of whole good lines, and the run of good lines it belongs to.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Range {
    pub(crate) start: usize,
    pub(crate) end: usize,
    /// Which run of good lines (numbered in file order): a warning is given per run.
    pub(crate) run: u64,
}

/// The first cell of a run that is not a number.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BadCell {
    pub(crate) run: u64,
    /// The cell as written, quotes dropped.
    pub(crate) value: String,
    /// Its CSV column.
    pub(crate) column: usize,
}

/// The parsed values of some lines: one column per slot, all of `rows` rows.
pub(crate) struct Piece {
    pub(crate) columns: Vec<Float64Chunked>,
    pub(crate) rows: usize,
    pub(crate) bad: Vec<BadCell>,
}

/// Parses the lines of `ranges` (in order) of `text`. `rows_hint` sizes the builders.
pub(crate) fn parse(text: &[u8], ranges: &[Range], layout: &Layout, rows_hint: usize) -> Piece {
    let mut builders: Vec<PrimitiveChunkedBuilder<Float64Type>> = layout
        .columns
        .iter()
        .map(|&c| PrimitiveChunkedBuilder::new(format!("c{c}").into(), rows_hint))
        .collect();
    let mut rows = 0usize;
    let mut bad: Vec<BadCell> = Vec::new();
    let mut scratch: Vec<u8> = Vec::new();
    // The row each slot was last filled in, to fill the gaps of a short line.
    let mut filled_in: Vec<usize> = vec![0; builders.len()];
    for r in ranges {
        let Some(bytes) = text.get(r.start..r.end) else { continue };
        for line in bytes.split(|&b| b == b'\n') {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.is_empty() {
                // Only the end of the range (after its last `\n`).
                continue;
            }
            rows += 1;
            let mut filled = 0usize;
            for_each_cell(line, layout.separator, |col, cell| {
                let Some(&slot) = layout.slot_of.get(col) else { return };
                if slot == SKIP {
                    return;
                }
                let Some(b) = builders.get_mut(slot as usize) else { return };
                filled += 1;
                filled_in[slot as usize] = rows;
                match number(cell, layout.decimal_comma, &mut scratch) {
                    Cell::Value(v) => b.append_value(v),
                    Cell::Missing => b.append_null(),
                    Cell::NotANumber => {
                        b.append_null();
                        if bad.last().is_none_or(|x| x.run != r.run) {
                            bad.push(BadCell {
                                run: r.run,
                                value: String::from_utf8_lossy(cell).trim_matches('"').to_owned(),
                                column: col,
                            });
                        }
                    }
                }
            });
            // A line with fewer cells than the header (the scan lets none through; kept
            // so the columns always stay the same length).
            if filled < builders.len() {
                for (b, at) in builders.iter_mut().zip(&mut filled_in) {
                    if *at != rows {
                        b.append_null();
                        *at = rows;
                    }
                }
            }
        }
    }
    Piece { columns: builders.into_iter().map(|b| b.finish()).collect(), rows, bad }
}

/// Calls `f(column, cell)` for every cell of a line: a cell that opens with a quote runs to
/// the separator after its closing quote (`""` inside is a quote), quotes included.
fn for_each_cell(line: &[u8], sep: u8, mut f: impl FnMut(usize, &[u8])) {
    let mut pos = 0usize;
    let mut col = 0usize;
    loop {
        let rest = &line[pos..];
        let len =
            if rest.first() == Some(&b'"') { quoted_len(rest, sep) } else { memchr_sep(rest, sep) };
        f(col, &rest[..len]);
        col += 1;
        pos += len + 1;
        if pos > line.len() {
            return;
        }
    }
}

fn memchr_sep(bytes: &[u8], sep: u8) -> usize {
    bytes.iter().position(|&b| b == sep).unwrap_or(bytes.len())
}

/// The length of a cell that opens with a quote: up to the first separator outside quotes.
fn quoted_len(cell: &[u8], sep: u8) -> usize {
    // The common case: "value" then the separator or the end of the line.
    if let Some(close) = cell[1..].iter().position(|&b| b == b'"') {
        let after = close + 2;
        match cell.get(after) {
            None => return after,
            Some(&b) if b == sep => return after,
            _ => {}
        }
    }
    let mut in_quotes = false;
    for (i, &b) in cell.iter().enumerate() {
        if b == b'"' {
            in_quotes = !in_quotes;
        } else if b == sep && !in_quotes {
            return i;
        }
    }
    cell.len()
}

enum Cell {
    Value(f64),
    Missing,
    NotANumber,
}

/// One cell as polars reads a Float64 cell (see the module's notes).
fn number(cell: &[u8], decimal_comma: bool, scratch: &mut Vec<u8>) -> Cell {
    let mut b = cell;
    if decimal_comma && b.contains(&b',') {
        scratch.clear();
        scratch.extend(b.iter().map(|&c| if c == b',' { b'.' } else { c }));
        b = scratch.as_slice();
    }
    if b.first() == Some(&b'"') {
        b = if b.len() >= 2 { &b[1..b.len() - 1] } else { &[] };
    }
    while let Some((&first, rest)) = b.split_first() {
        if first == b' ' || first == b'\t' {
            b = rest;
        } else {
            break;
        }
    }
    if b.is_empty() {
        return Cell::Missing;
    }
    match fast_float2::parse::<f64, _>(b) {
        Ok(v) => Cell::Value(v),
        Err(_) => Cell::NotANumber,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells(line: &str) -> Vec<String> {
        let mut out = Vec::new();
        for_each_cell(line.as_bytes(), b',', |_, c| out.push(String::from_utf8_lossy(c).into()));
        out
    }

    #[test]
    fn cells_honour_quotes() {
        assert_eq!(
            cells(r#""a","1,5",,"x""y",2"#),
            vec![r#""a""#, r#""1,5""#, "", r#""x""y""#, "2"]
        );
        assert_eq!(cells(""), vec![""]);
        assert_eq!(cells(r#""12"x,3"#), vec![r#""12"x"#, "3"]);
        assert_eq!(cells(r#"1,"#), vec!["1", ""]);
    }

    fn num(cell: &str, comma: bool) -> Option<Option<f64>> {
        match number(cell.as_bytes(), comma, &mut Vec::new()) {
            Cell::Value(v) => Some(Some(v)),
            Cell::Missing => Some(None),
            Cell::NotANumber => None,
        }
    }

    #[test]
    fn numbers_read_as_polars_reads_them() {
        assert_eq!(num(r#""0.015625""#, false), Some(Some(0.015625)));
        assert_eq!(num(r#"" ""#, false), Some(None));
        assert_eq!(num(r#""""#, false), Some(None));
        assert_eq!(num("", false), Some(None));
        assert_eq!(num(r#"" 12""#, false), Some(Some(12.0)));
        assert_eq!(num(r#""12 ""#, false), None);
        assert_eq!(num(r#""1,5""#, true), Some(Some(1.5)));
        assert_eq!(num(r#""1,5""#, false), None);
        assert_eq!(num("1e-3", false), Some(Some(0.001)));
        assert!(num("NaN", false).is_some_and(|v| v.is_some_and(f64::is_nan)));
        assert_eq!(num(r#""x""#, false), None);
        assert_eq!(num(r#"""#, false), Some(None));
    }

    #[test]
    fn lines_become_columns_with_the_first_bad_cell_per_run() {
        let text = concat!(
            "\"01/02/2024 10:00:00.000\",\" \",\"1\",\"skip\"\r\n",
            "\"01/02/2024 10:00:01.000\",\"2\",\"x\",\"skip\"\r\n",
            "\"01/02/2024 10:00:02.000\",\"3\",\"y\",\"skip\"\r\n",
        );
        let layout = Layout::new(b',', false, 4, &[2, 1, 2]);
        let second = text.find("\"01/02/2024 10:00:02").unwrap_or(0);
        let ranges = [
            Range { start: 0, end: second, run: 1 },
            Range { start: second, end: text.len(), run: 2 },
        ];
        let piece = parse(text.as_bytes(), &ranges, &layout, 2);
        assert_eq!(piece.rows, 3);
        let col = |i: usize| piece.columns[i].iter().collect::<Vec<_>>();
        assert_eq!(col(0), vec![None, Some(2.0), Some(3.0)]);
        assert_eq!(col(1), vec![Some(1.0), None, None]);
        assert_eq!(
            piece.bad,
            vec![
                BadCell { run: 1, value: "x".into(), column: 2 },
                BadCell { run: 2, value: "y".into(), column: 2 }
            ]
        );
    }
}
