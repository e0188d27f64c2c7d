//! The header line: splitting CSV cells, the separator, and the grammar of the first cell
//! (`(PDH-CSV 4.0) (India Standard Time)(-330)` and its bare and truncated forms).

/// What the first header cell says about the capture.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FirstCell {
    /// The format tag without parentheses, e.g. `PDH-CSV 4.0`.
    pub version: Option<String>,
    /// The time zone's name as written (possibly cut short); `None` when absent or empty.
    pub timezone: Option<String>,
    /// The header's number: minutes to ADD to local time to reach UTC (-330 for India).
    pub bias_min: Option<i32>,
    /// A zone part is present but cut short (non-English zone names stop at the first
    /// non-ASCII character): the name is incomplete and the offset is lost.
    pub truncated: bool,
}

impl FirstCell {
    /// Local time = UTC + this many minutes (India: +330): the header's number negated.
    pub fn utc_offset_min(&self) -> Option<i32> {
        self.bias_min.and_then(i32::checked_neg)
    }
}

/// Parses the first header cell. Never fails: a cell that is not a `(PDH-...)` tag (a
/// spreadsheet re-save that lost it) gives an empty [`FirstCell`].
///
/// Forms: `(PDH-CSV 4.0) (India Standard Time)(-330)`, `(PDH-CSV 4.0)`, `(PDH-CSV 4.0) (`,
/// `(PDH-CSV 4.0) (RTZ 2 (`, and a complete localized name holding parentheses such as
/// `(PDH-CSV 4.0) (RTZ 2 (winter))(-180)`.
pub fn parse_first_cell(cell: &str) -> FirstCell {
    let cell = cell.trim().trim_start_matches('\u{feff}').trim();
    let Some(rest) = cell.strip_prefix('(') else {
        return FirstCell::default();
    };
    let Some(close) = rest.find(')') else {
        return FirstCell::default();
    };
    let tag = rest[..close].trim();
    if !tag.starts_with("PDH-") {
        return FirstCell::default();
    }
    let mut out = FirstCell { version: Some(tag.to_owned()), ..FirstCell::default() };
    let zone = rest[close + 1..].trim();
    if zone.is_empty() {
        return out;
    }
    let Some(zone) = zone.strip_prefix('(') else {
        // Something after the tag that is not a zone: keep the tag, say nothing of a zone.
        out.truncated = true;
        return out;
    };
    // Complete form: `NAME)(NUMBER)`; the name itself may hold parentheses.
    if let Some(inner) = zone.strip_suffix(')')
        && let Some(split) = inner.rfind(")(")
        && let Ok(bias) = inner[split + 2..].trim().parse::<i32>()
    {
        let name = inner[..split].trim();
        out.timezone = (!name.is_empty()).then(|| name.to_owned());
        out.bias_min = Some(bias);
        return out;
    }
    // Cut short: keep what is left of the name, without the dangling ` (` of a
    // localized suffix, and say the offset is lost.
    let name = zone.trim_end_matches(['(', ')', ' ']).trim();
    out.timezone = (!name.is_empty()).then(|| name.to_owned());
    out.truncated = true;
    out
}

/// Splits one CSV line into cells: `sep`-separated, cells optionally quoted with `"`,
/// `""` inside quotes is one quote. Text after a closing quote is kept as written.
/// A trailing `\r` is dropped.
pub fn split_cells(line: &str, sep: u8) -> Vec<String> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    let sep = char::from(sep);
    let mut cells = Vec::new();
    let mut cur = String::new();
    let mut in_quotes = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if in_quotes {
            if c == '"' {
                if chars.peek() == Some(&'"') {
                    cur.push('"');
                    chars.next();
                } else {
                    in_quotes = false;
                }
            } else {
                cur.push(c);
            }
        } else if c == '"' {
            in_quotes = true;
        } else if c == sep {
            cells.push(std::mem::take(&mut cur));
        } else {
            cur.push(c);
        }
    }
    cells.push(cur);
    cells
}

/// Counts the cells of a line exactly (quote-aware); `None` when a quote is left open.
pub fn count_cells(line: &[u8], sep: u8) -> Option<usize> {
    let mut n = 1;
    let mut in_quotes = false;
    for &b in line {
        if b == b'"' {
            in_quotes = !in_quotes;
        } else if b == sep && !in_quotes {
            n += 1;
        }
    }
    (!in_quotes).then_some(n)
}

/// The separator of the header line: the one of `,`, `;` and tab that occurs most often
/// outside quotes (a comma on a tie). PerfMon writes commas; a spreadsheet re-save in a
/// decimal-comma locale writes semicolons; `typeperf -f TSV` writes tabs.
pub fn detect_separator(header_line: &str) -> u8 {
    let (mut comma, mut semi, mut tab) = (0usize, 0usize, 0usize);
    let mut in_quotes = false;
    for b in header_line.bytes() {
        match b {
            b'"' => in_quotes = !in_quotes,
            b',' if !in_quotes => comma += 1,
            b';' if !in_quotes => semi += 1,
            b'\t' if !in_quotes => tab += 1,
            _ => {}
        }
    }
    if semi > comma && semi >= tab {
        b';'
    } else if tab > comma && tab > semi {
        b'\t'
    } else {
        b','
    }
}

/// Whether values use a decimal comma: only possible when the separator is not a comma,
/// and seen as a value cell like `1,5` in the sample lines given.
pub fn detect_decimal_comma<'a>(lines: impl IntoIterator<Item = &'a str>, sep: u8) -> bool {
    if sep == b',' {
        return false;
    }
    lines.into_iter().any(|line| {
        split_cells(line, sep).iter().skip(1).any(|cell| {
            let v = cell.trim();
            let v = v.strip_prefix('-').unwrap_or(v);
            match v.split_once(',') {
                Some((int, frac)) => {
                    !int.is_empty()
                        && !frac.is_empty()
                        && int.bytes().all(|b| b.is_ascii_digit())
                        && frac.bytes().all(|b| b.is_ascii_digit() || matches!(b, b'E' | b'e'))
                }
                None => false,
            }
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_cell_complete() {
        let c = parse_first_cell("(PDH-CSV 4.0) (India Standard Time)(-330)");
        assert_eq!(c.version.as_deref(), Some("PDH-CSV 4.0"));
        assert_eq!(c.timezone.as_deref(), Some("India Standard Time"));
        assert_eq!(c.bias_min, Some(-330));
        assert_eq!(c.utc_offset_min(), Some(330));
        assert!(!c.truncated);

        let c = parse_first_cell("(PDH-CSV 4.0) (Eastern Daylight Time)(240)");
        assert_eq!(c.utc_offset_min(), Some(-240));
        assert_eq!(c.timezone.as_deref(), Some("Eastern Daylight Time"));

        let c = parse_first_cell("(PDH-CSV 4.0) (GMT Standard Time)(0)");
        assert_eq!(c.utc_offset_min(), Some(0));
    }

    #[test]
    fn first_cell_bare_and_truncated() {
        let c = parse_first_cell("(PDH-CSV 4.0)");
        assert_eq!(c.version.as_deref(), Some("PDH-CSV 4.0"));
        assert_eq!((c.timezone, c.bias_min, c.truncated), (None, None, false));

        let c = parse_first_cell("(PDH-CSV 4.0) (");
        assert_eq!(c.version.as_deref(), Some("PDH-CSV 4.0"));
        assert_eq!((c.timezone, c.bias_min, c.truncated), (None, None, true));

        let c = parse_first_cell("(PDH-CSV 4.0) (RTZ 2 (");
        assert_eq!(c.timezone.as_deref(), Some("RTZ 2"));
        assert_eq!((c.bias_min, c.truncated), (None, true));

        // A localized name that survived whole, parentheses and all.
        let c = parse_first_cell("(PDH-CSV 4.0) (RTZ 2 (зима))(-180)");
        assert_eq!(c.timezone.as_deref(), Some("RTZ 2 (зима)"));
        assert_eq!(c.utc_offset_min(), Some(180));

        // A zone with its offset missing.
        let c = parse_first_cell("(PDH-CSV 4.0) (India Standard Time)");
        assert_eq!(c.timezone.as_deref(), Some("India Standard Time"));
        assert_eq!((c.bias_min, c.truncated), (None, true));
    }

    #[test]
    fn first_cell_not_a_tag() {
        assert_eq!(parse_first_cell(""), FirstCell::default());
        assert_eq!(parse_first_cell("Time"), FirstCell::default());
        assert_eq!(parse_first_cell("(oops"), FirstCell::default());
        assert_eq!(parse_first_cell("(abc) (x)(1)"), FirstCell::default());
        let c = parse_first_cell("(PDH-TSV 4.0) (UTC)(0)");
        assert_eq!(c.version.as_deref(), Some("PDH-TSV 4.0"));
        // An absurd offset does not overflow.
        assert_eq!(parse_first_cell("(PDH-CSV 4.0) (X)(-2147483648)").utc_offset_min(), None);
    }

    #[test]
    fn cells_keep_commas_and_quotes() {
        let line =
            r#""(PDH-CSV 4.0)","\\H\Processor Information(0,_Total)\% Processor Time","a""b",x"#;
        assert_eq!(
            split_cells(line, b','),
            vec![
                "(PDH-CSV 4.0)".to_owned(),
                r"\\H\Processor Information(0,_Total)\% Processor Time".to_owned(),
                "a\"b".to_owned(),
                "x".to_owned()
            ]
        );
        assert_eq!(split_cells("a;b;\r", b';'), vec!["a", "b", ""]);
        assert_eq!(count_cells(br#""a,b","c""#, b','), Some(2));
        assert_eq!(count_cells(br#""a","c"#, b','), None);
        assert_eq!(count_cells(b"1;2;3", b';'), Some(3));
    }

    #[test]
    fn separators() {
        assert_eq!(detect_separator(r#""(PDH-CSV 4.0)","\\H\P(0,_Total)\X""#), b',');
        assert_eq!(detect_separator(r"(PDH-CSV 4.0) (W)(-60);\\H\M\A;\\H\P(0,_Total)\X"), b';');
        assert_eq!(detect_separator("\"(PDH-TSV 4.0)\"\t\"\\\\H\\M\\A\""), b'\t');
        assert!(detect_decimal_comma(["09/19/2017 09:51:39.073;1,5;2"], b';'));
        assert!(!detect_decimal_comma(["09/19/2017 09:51:39.073;1.5;2"], b';'));
        assert!(!detect_decimal_comma(["x,1,5"], b','));
    }
}
