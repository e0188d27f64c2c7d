//! The values of a PerfMon CSV's good data lines: each line split into its cells (quotes
//! honoured), the cells of the planned columns parsed as numbers, straight into one Float64
//! builder per column.
//!
//! A cell is read as polars' CSV reader reads a Float64 cell (the floor the benchmark
//! measures against, and what this replaced): the quotes around it dropped, leading spaces
//! and tabs skipped, an empty cell missing, the rest parsed whole to the nearest double,
//! `1,5` read as `1.5` in a file with decimal commas. Plain decimals, nearly every cell
//! PerfMon writes, are read by [`super::decimal`]; everything else by `fast-float2` (the
//! crate and version polars uses), which gives the same double for a plain decimal. A cell that is
//! not a number is missing too, and the first one of each run of good lines is kept for
//! the warning.

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

/// A cell with no value, in a column being filled: a NaN that no parse gives (a cell
/// written `NaN` parses to the canonical quiet NaN).
pub(crate) const MISSING: f64 = f64::from_bits(0x7ff8_0000_dead_beef);

/// Whether a value in a column being filled is [`MISSING`].
pub(crate) fn is_missing(v: f64) -> bool {
    v.to_bits() == MISSING.to_bits()
}

/// What parsing some lines found besides their values.
pub(crate) struct Found {
    pub(crate) rows: usize,
    pub(crate) bad: Vec<BadCell>,
}

/// Parses the lines of `ranges` (in order) of `text` into `columns`: one slice per slot,
/// one element per line. Every element is written: a value, or [`MISSING`] for a cell
/// with none (so the slices need not be filled beforehand).
pub(crate) fn parse(
    text: &[u8],
    ranges: &[Range],
    layout: &Layout,
    columns: &mut [&mut [f64]],
) -> Found {
    let mut row = 0usize;
    let mut bad: Vec<BadCell> = Vec::new();
    let mut scratch: Vec<u8> = Vec::new();
    for r in ranges {
        let Some(bytes) = text.get(r.start..r.end) else { continue };
        let mut pos = 0usize;
        while pos < bytes.len() {
            let end = memchr::memchr(b'\n', &bytes[pos..]).map_or(bytes.len(), |i| pos + i);
            let line = &bytes[pos..end];
            pos = end + 1;
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            let mut at = 0usize;
            let mut col = 0usize;
            loop {
                let slot = layout.slot_of.get(col).copied().unwrap_or(SKIP);
                let out = columns.get_mut(slot as usize).and_then(|c| c.get_mut(row));
                // The common cell, `"1.25"`: the number parsed where it lies, its closing
                // quote and the separator checked after it.
                if let Some(out) = out {
                    if !layout.decimal_comma
                        && let Some((v, next)) = quick_number(line, at, layout.separator)
                    {
                        *out = v;
                        at = next;
                        col += 1;
                        if at > line.len() {
                            break;
                        }
                        continue;
                    }
                    let cell = cell_at(line, at, layout.separator);
                    match number(cell, layout.decimal_comma, &mut scratch) {
                        Cell::Value(v) => *out = v,
                        Cell::Missing => *out = MISSING,
                        Cell::NotANumber => {
                            *out = MISSING;
                            if bad.last().is_none_or(|x| x.run != r.run) {
                                bad.push(BadCell {
                                    run: r.run,
                                    value: String::from_utf8_lossy(cell)
                                        .trim_matches('"')
                                        .to_owned(),
                                    column: col,
                                });
                            }
                        }
                    }
                    at += cell.len() + 1;
                } else {
                    at += cell_at(line, at, layout.separator).len() + 1;
                }
                col += 1;
                if at > line.len() {
                    break;
                }
            }
            // Columns past the line's last cell have no value in it.
            for &slot in layout.slot_of.get(col..).unwrap_or_default() {
                if let Some(out) = columns.get_mut(slot as usize).and_then(|c| c.get_mut(row)) {
                    *out = MISSING;
                }
            }
            row += 1;
        }
    }
    Found { rows: row, bad }
}

/// A number cell parsed in place: `"1.25"` or `1.25`, then the separator or the end of
/// the line. Returns the value and where the next cell starts; `None` for anything else
/// (blanks, letters, a decimal comma, trailing text), which [`number`] then reads. The
/// same value as [`number`]'s: `fast-float2`'s whole parse is its partial parse that
/// took every byte, here every byte up to the quote was taken, and [`super::decimal`]
/// reads what it reads to the same double.
fn quick_number(line: &[u8], at: usize, sep: u8) -> Option<(f64, usize)> {
    let rest = line.get(at..)?;
    let quoted = rest.first() == Some(&b'"');
    let body = if quoted { &rest[1..] } else { rest };
    if !body.first().is_some_and(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.')) {
        return None;
    }
    let (v, n) = match super::decimal::plain(body) {
        Some(read) => read,
        None => fast_float2::parse_partial::<f64, _>(body).ok()?,
    };
    let mut end = n;
    if quoted {
        if body.get(end) != Some(&b'"') {
            return None;
        }
        end += 1;
    }
    match body.get(end) {
        None => Some((v, at + usize::from(quoted) + end + 1)),
        Some(&b) if b == sep => Some((v, at + usize::from(quoted) + end + 1)),
        Some(_) => None,
    }
}

/// The cell that starts at `at`: one that opens with a quote runs to the separator after
/// its closing quote (`""` inside is a quote), quotes included.
fn cell_at(line: &[u8], at: usize, sep: u8) -> &[u8] {
    let rest = line.get(at..).unwrap_or_default();
    let len = if rest.first() == Some(&b'"') {
        quoted_len(rest, sep)
    } else {
        memchr::memchr(sep, rest).unwrap_or(rest.len())
    };
    &rest[..len]
}

/// The length of a cell that opens with a quote: up to the first separator outside quotes.
fn quoted_len(cell: &[u8], sep: u8) -> usize {
    // The common case: "value" then the separator or the end of the line.
    if let Some(close) = memchr::memchr(b'"', &cell[1..]) {
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
        let (line, mut at, mut out) = (line.as_bytes(), 0usize, Vec::new());
        loop {
            let c = cell_at(line, at, b',');
            out.push(String::from_utf8_lossy(c).into_owned());
            at += c.len() + 1;
            if at > line.len() {
                return out;
            }
        }
    }

    #[test]
    fn quick_numbers_agree_with_the_whole_parse() {
        for cell in [
            r#""0.015625""#,
            "12",
            r#""-1e-3""#,
            r#""1.2.3""#,
            r#""12 ""#,
            r#"" 12""#,
            r#""""#,
            r#""x""#,
            r#""+7""#,
            r#"".5""#,
            r#""5.""#,
            r#""1e400""#,
            r#""12"x"#,
        ] {
            let line = format!("{cell},\"9\"");
            let whole = match number(cell.as_bytes(), false, &mut Vec::new()) {
                Cell::Value(v) => Some(v),
                _ => None,
            };
            match quick_number(line.as_bytes(), 0, b',') {
                Some((v, next)) => {
                    assert_eq!(Some(v), whole, "{cell}");
                    assert_eq!(next, cell.len() + 1, "{cell}");
                }
                None => assert!(
                    whole.is_none() || cell.starts_with("\" "),
                    "{cell}: the quick path gave up on a number"
                ),
            }
        }
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
            "\"01/02/2024 10:00:02.000\",\"3\",\"y\",\"skip\"",
        );
        let layout = Layout::new(b',', false, 4, &[2, 1, 2]);
        let second = text.find("\"01/02/2024 10:00:02").unwrap_or(0);
        let ranges = [
            Range { start: 0, end: second, run: 1 },
            Range { start: second, end: text.len(), run: 2 },
        ];
        // Whatever the columns held before: the parser writes every element.
        let (mut a, mut b) = (vec![42.0; 3], vec![42.0; 3]);
        let found = parse(text.as_bytes(), &ranges, &layout, &mut [&mut a[..], &mut b[..]]);
        assert_eq!(found.rows, 3);
        let show = |c: &[f64]| c.iter().map(|&v| (!is_missing(v)).then_some(v)).collect::<Vec<_>>();
        assert_eq!(show(&a), vec![None, Some(2.0), Some(3.0)]);
        assert_eq!(show(&b), vec![Some(1.0), None, None]);
        assert_eq!(
            found.bad,
            vec![
                BadCell { run: 1, value: "x".into(), column: 2 },
                BadCell { run: 2, value: "y".into(), column: 2 }
            ]
        );
        // A line that ends before a planned column leaves that column without a value.
        let short = "\"01/02/2024 10:00:00.000\",\"5\"\r\n";
        let layout = Layout::new(b',', false, 4, &[1, 3]);
        let (mut a, mut b) = (vec![42.0; 1], vec![42.0; 1]);
        let ranges = [Range { start: 0, end: short.len(), run: 1 }];
        parse(short.as_bytes(), &ranges, &layout, &mut [&mut a[..], &mut b[..]]);
        assert_eq!((show(&a), show(&b)), (vec![Some(5.0)], vec![None]));
    }
}
