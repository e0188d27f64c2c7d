//! The sample time a query adds (`SYSDATETIME()`, `GETDATE()`, `SYSDATETIMEOFFSET()`), as
//! SSMS writes it (`2024-06-11 14:30:00.1234567`, ` +00:00` with an offset), as `FOR JSON`
//! writes it (`2024-06-11T14:30:00.1234567`), and as `Export-Csv` writes a .NET DateTime in
//! the current culture (`6/11/2024 2:30:00 PM`, `11/06/2024 14:30:00`, `11.06.2024
//! 14:30:00`). Slashed dates are month first unless a day above 12 stands first in one of
//! the file's stamps.

use chrono::{NaiveDate, NaiveDateTime, NaiveTime};

/// A sample time: wall clock as written (ms since 1970, no zone applied) and the offset
/// the stamp carries, when it does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Stamp {
    pub(super) ms: i64,
    pub(super) offset_min: Option<i32>,
}

/// A stamp split into its parts, before the order of a slashed date is known.
struct Parts {
    /// The three numbers of the date as written, and its separator.
    date: (u32, u32, i32, char),
    /// ISO order (year first).
    year_first: bool,
    time: NaiveTime,
    offset_min: Option<i32>,
}

fn split(text: &str) -> Result<Parts, String> {
    let t = text.trim();
    let (date, rest) = match t.find(['T', ' ']) {
        Some(i) => (&t[..i], t[i + 1..].trim()),
        None => (t, ""),
    };
    let sep = date.chars().find(|c| matches!(c, '-' | '/' | '.')).ok_or("no date")?;
    let nums: Vec<&str> = date.split(sep).collect();
    let [a, b, c] = nums[..] else { return Err("a date has three numbers".into()) };
    let num = |s: &str| s.trim().parse::<u32>().map_err(|_| format!("\"{s}\" is not a number"));
    let (a, b, c) = (num(a)?, num(b)?, num(c)?);
    let year_first = a > 31;
    // The time, an AM/PM word, an offset (`+02:00`, `Z`, `-0500`).
    let mut words: Vec<&str> = rest.split_whitespace().collect();
    let mut offset_min = None;
    let mut meridiem = None;
    let mut clock = "";
    for w in words.drain(..) {
        let upper = w.to_ascii_uppercase();
        if upper == "AM" || upper == "PM" {
            meridiem = Some(upper == "PM");
        } else if clock.is_empty() {
            // An offset glued to the time: `14:30:00+02:00`, `14:30:00Z`.
            let cut = w.char_indices().skip(1).find(|(_, c)| matches!(c, '+' | '-' | 'Z'));
            match cut {
                Some((i, _)) => {
                    clock = &w[..i];
                    offset_min = Some(offset(&w[i..])?);
                }
                None => clock = w,
            }
        } else {
            offset_min = Some(offset(w)?);
        }
    }
    let time = if clock.is_empty() { NaiveTime::MIN } else { time(clock, meridiem)? };
    let year = if year_first { a as i32 } else { c as i32 };
    let year = if year < 100 { 2000 + year } else { year };
    let date = if year_first { (b, c, year, sep) } else { (a, b, year, sep) };
    Ok(Parts { date, year_first, time, offset_min })
}

fn offset(w: &str) -> Result<i32, String> {
    if w == "Z" {
        return Ok(0);
    }
    let sign = match w.chars().next() {
        Some('+') => 1,
        Some('-') => -1,
        _ => return Err(format!("\"{w}\" is not an offset")),
    };
    let digits: String = w[1..].chars().filter(char::is_ascii_digit).collect();
    let (h, m) = match digits.len() {
        2 => (&digits[..2], "0"),
        4 => (&digits[..2], &digits[2..]),
        _ => return Err(format!("\"{w}\" is not an offset")),
    };
    let (h, m) = (h.parse::<i32>().unwrap_or(0), m.parse::<i32>().unwrap_or(0));
    Ok(sign * (h * 60 + m))
}

fn time(clock: &str, pm: Option<bool>) -> Result<NaiveTime, String> {
    let mut parts = clock.split(':');
    let bad = || format!("\"{clock}\" is not a time of day");
    let h: u32 = parts.next().and_then(|x| x.parse().ok()).ok_or_else(bad)?;
    let m: u32 = parts.next().and_then(|x| x.parse().ok()).ok_or_else(bad)?;
    let (s, frac) = match parts.next() {
        Some(x) => match x.split_once(['.', ',']) {
            Some((s, f)) => (s, f),
            None => (x, ""),
        },
        None => ("0", ""),
    };
    let s: u32 = s.parse().map_err(|_| bad())?;
    let ms: u32 = if frac.is_empty() {
        0
    } else {
        let digits: String = frac.chars().take(3).collect();
        if !frac.chars().all(|c| c.is_ascii_digit()) {
            return Err(bad());
        }
        format!("{digits:0<3}").parse().map_err(|_| bad())?
    };
    let h = match pm {
        Some(true) if h < 12 => h + 12,
        Some(false) if h == 12 => 0,
        _ => h,
    };
    NaiveTime::from_hms_milli_opt(h, m, s, ms).ok_or_else(bad)
}

/// Parses every sample time of a file with one date order. `Err((index, message))` names
/// the first stamp that cannot be read.
pub(super) fn parse_all(cells: &[&str]) -> Result<Vec<Stamp>, (usize, String)> {
    let parts: Vec<Parts> = cells
        .iter()
        .enumerate()
        .map(|(i, c)| split(c).map_err(|e| (i, e)))
        .collect::<Result<_, _>>()?;
    // Slashed and dotted dates: day first when a first number above 12 says so (a dotted
    // date is day first in every locale that writes one).
    let day_first_slash = parts.iter().any(|p| !p.year_first && p.date.3 == '/' && p.date.0 > 12);
    let mut out = Vec::with_capacity(parts.len());
    for (i, p) in parts.iter().enumerate() {
        let (a, b, year, sep) = p.date;
        let (month, day) = if p.year_first {
            (a, b)
        } else if sep == '.' || (sep == '/' && day_first_slash) || sep == '-' {
            (b, a)
        } else {
            (a, b)
        };
        let date = NaiveDate::from_ymd_opt(year, month, day).ok_or_else(|| {
            (
                i,
                format!(
                    "\"{}\" is not a date (read as year {year}, month {month}, day {day})",
                    cells[i].trim()
                ),
            )
        })?;
        let ms = NaiveDateTime::new(date, p.time).and_utc().timestamp_millis();
        out.push(Stamp { ms, offset_min: p.offset_min });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(s: &str) -> i64 {
        NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S%.3f")
            .map(|t| t.and_utc().timestamp_millis())
            .unwrap_or(-1)
    }

    #[test]
    fn the_shapes_sql_server_and_powershell_write() {
        let got = parse_all(&[
            "2024-06-11 14:30:00.1234567",
            "2024-06-11T14:30:05.5",
            "2024-06-11 14:30:10.0000000 +02:00",
            "6/11/2024 2:30:15 PM",
        ])
        .unwrap_or_default();
        assert_eq!(got.len(), 4);
        assert_eq!(got[0], Stamp { ms: ms("2024-06-11 14:30:00.123"), offset_min: None });
        assert_eq!(got[1].ms, ms("2024-06-11 14:30:05.500"));
        assert_eq!(got[2], Stamp { ms: ms("2024-06-11 14:30:10.000"), offset_min: Some(120) });
        assert_eq!(got[3].ms, ms("2024-06-11 14:30:15.000"));
    }

    #[test]
    fn day_first_when_a_stamp_says_so() {
        let got = parse_all(&["11/06/2024 14:30:00", "13/06/2024 14:30:00"]).unwrap_or_default();
        assert_eq!(got[0].ms, ms("2024-06-11 14:30:00.000"));
        let dotted = parse_all(&["11.06.2024 14:30:00"]).unwrap_or_default();
        assert_eq!(dotted[0].ms, ms("2024-06-11 14:30:00.000"));
        assert!(parse_all(&["2024-13-40 10:00:00"]).is_err());
        assert!(parse_all(&["yesterday"]).is_err());
    }
}
