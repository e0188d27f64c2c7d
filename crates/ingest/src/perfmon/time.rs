//! Sample time stamps. PerfMon writes `MM/DD/YYYY HH:MM:SS.mmm` on every locale; a
//! spreadsheet re-save may rewrite them (`19.09.2017 09:51:39`, `9/19/2017 9:51`,
//! `2017-09-19 09:51:39`, `9/19/2017 9:51:39 AM`).

use chrono::NaiveDate;

/// How to read a `a/b/yyyy` date.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DateOrder {
    /// `MM/DD/YYYY`: what PerfMon writes.
    #[default]
    MonthFirst,
    /// `DD/MM/YYYY`: only a spreadsheet re-save in such a locale writes it.
    DayFirst,
}

/// Picks the order of `a/b/yyyy` dates from sample cells: day first only when some first
/// part exceeds 12 and no second part does.
pub fn guess_date_order<'a>(cells: impl IntoIterator<Item = &'a str>) -> DateOrder {
    let (mut first_big, mut second_big) = (false, false);
    for cell in cells {
        let date = cell.trim().split([' ', 'T']).next().unwrap_or("");
        let mut parts = date.split('/');
        let (Some(a), Some(b), Some(_)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        if a.len() <= 2 && b.len() <= 2 {
            first_big |= a.parse::<u32>().is_ok_and(|a| a > 12);
            second_big |= b.parse::<u32>().is_ok_and(|b| b > 12);
        }
    }
    if first_big && !second_big { DateOrder::DayFirst } else { DateOrder::MonthFirst }
}

fn digits(b: &[u8]) -> Option<u32> {
    if b.is_empty() || b.len() > 9 {
        return None;
    }
    b.iter().try_fold(0u32, |acc, &c| c.is_ascii_digit().then(|| acc * 10 + u32::from(c - b'0')))
}

fn to_ms(y: i32, mo: u32, d: u32, h: u32, mi: u32, s: u32, ms: u32) -> Option<i64> {
    Some(
        NaiveDate::from_ymd_opt(y, mo, d)?
            .and_hms_milli_opt(h, mi, s, ms)?
            .and_utc()
            .timestamp_millis(),
    )
}

/// Reads a sample time: milliseconds since 1970-01-01 of the wall clock as written, no
/// zone applied. `None` when the cell is not a date and time.
pub fn parse_timestamp(cell: &str, order: DateOrder) -> Option<i64> {
    let b = cell.trim().as_bytes();
    // Fast path: exactly PerfMon's `MM/DD/YYYY HH:MM:SS.mmm`.
    if b.len() == 23
        && order == DateOrder::MonthFirst
        && b[2] == b'/'
        && b[5] == b'/'
        && b[10] == b' '
        && b[13] == b':'
        && b[16] == b':'
        && b[19] == b'.'
    {
        let y = i32::try_from(digits(&b[6..10])?).ok()?;
        return to_ms(
            y,
            digits(&b[0..2])?,
            digits(&b[3..5])?,
            digits(&b[11..13])?,
            digits(&b[14..16])?,
            digits(&b[17..19])?,
            digits(&b[20..23])?,
        );
    }
    parse_general(cell.trim(), order)
}

fn parse_general(s: &str, order: DateOrder) -> Option<i64> {
    let (date, time) = s.split_once([' ', 'T'])?;
    let sep = date.bytes().find(|c| matches!(c, b'/' | b'.' | b'-'))?;
    let mut parts = date.split(char::from(sep));
    let (a, b, c) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let (ys, ms, ds) = if a.len() == 4 {
        (a, b, c)
    } else if sep == b'/' && order == DateOrder::MonthFirst {
        (c, a, b)
    } else {
        (c, b, a)
    };
    let mut year = i32::try_from(digits(ys.as_bytes())?).ok()?;
    if ys.len() == 2 {
        year += 2000;
    } else if ys.len() != 4 {
        return None;
    }
    let (month, day) = (digits(ms.as_bytes())?, digits(ds.as_bytes())?);

    let time = time.trim();
    let (time, pm) = match time.get(time.len().saturating_sub(2)..) {
        Some(suffix) if suffix.eq_ignore_ascii_case("AM") => {
            (time[..time.len() - 2].trim(), Some(false))
        }
        Some(suffix) if suffix.eq_ignore_ascii_case("PM") => {
            (time[..time.len() - 2].trim(), Some(true))
        }
        _ => (time, None),
    };
    let mut tparts = time.split(':');
    let mut hour = digits(tparts.next()?.as_bytes())?;
    let minute = digits(tparts.next()?.as_bytes())?;
    let (second, milli) = match tparts.next() {
        Some(sec) => {
            let (whole, frac) = match sec.split_once(['.', ',']) {
                Some((w, f)) => (w, f),
                None => (sec, ""),
            };
            let mut milli = 0;
            for (i, c) in frac.bytes().enumerate() {
                if !c.is_ascii_digit() {
                    return None;
                }
                if i < 3 {
                    milli = milli * 10 + u32::from(c - b'0');
                }
            }
            for _ in frac.len()..3 {
                milli *= 10;
            }
            (digits(whole.as_bytes())?, milli)
        }
        None => (0, 0),
    };
    if tparts.next().is_some() {
        return None;
    }
    match pm {
        Some(pm) if (1..=12).contains(&hour) => hour = hour % 12 + if pm { 12 } else { 0 },
        Some(_) => return None,
        None => {}
    }
    to_ms(year, month, day, hour, minute, second, milli)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(y: i32, mo: u32, d: u32, h: u32, mi: u32, s: u32, milli: u32) -> Option<i64> {
        to_ms(y, mo, d, h, mi, s, milli)
    }

    #[test]
    fn perfmon_stamps() {
        let m = DateOrder::MonthFirst;
        assert_eq!(parse_timestamp("09/19/2017 09:51:39.073", m), ms(2017, 9, 19, 9, 51, 39, 73));
        assert_eq!(parse_timestamp("02/25/2023 11:20:17.685", m), ms(2023, 2, 25, 11, 20, 17, 685));
        assert_eq!(
            parse_timestamp("09/19/2017 09:51:39.073", m),
            Some(1_505_814_699_073),
            "wall clock as written, no zone"
        );
        assert_eq!(parse_timestamp("13/19/2017 09:51:39.073", m), None);
        assert_eq!(parse_timestamp("(PDH-CSV 4.0) (", m), None);
        assert_eq!(parse_timestamp("", m), None);
        assert_eq!(parse_timestamp("09/19/2017", m), None);
    }

    #[test]
    fn spreadsheet_stamps() {
        let m = DateOrder::MonthFirst;
        assert_eq!(parse_timestamp("9/19/2017 9:51", m), ms(2017, 9, 19, 9, 51, 0, 0));
        assert_eq!(parse_timestamp("9/19/2017 9:51:39 PM", m), ms(2017, 9, 19, 21, 51, 39, 0));
        assert_eq!(parse_timestamp("9/19/2017 12:01:00 AM", m), ms(2017, 9, 19, 0, 1, 0, 0));
        assert_eq!(parse_timestamp("19.09.2017 09:51:39,5", m), ms(2017, 9, 19, 9, 51, 39, 500));
        assert_eq!(parse_timestamp("2017-09-19 09:51:39.0731", m), ms(2017, 9, 19, 9, 51, 39, 73));
        assert_eq!(parse_timestamp("2017-09-19T09:51:39", m), ms(2017, 9, 19, 9, 51, 39, 0));
        assert_eq!(
            parse_timestamp("19/09/2017 09:51:39.073", DateOrder::DayFirst),
            ms(2017, 9, 19, 9, 51, 39, 73)
        );
        assert_eq!(parse_timestamp("9/19/17 9:51", m), ms(2017, 9, 19, 9, 51, 0, 0));
        assert_eq!(parse_timestamp("9/19/2017 13:00 PM", m), None);
        assert_eq!(parse_timestamp("9/19/2017 9:5x", m), None);
    }

    #[test]
    fn date_order() {
        assert_eq!(guess_date_order(["09/19/2017 09:51:39.073"]), DateOrder::MonthFirst);
        assert_eq!(guess_date_order(["19/09/2017 09:51:39.073"]), DateOrder::DayFirst);
        assert_eq!(
            guess_date_order(["01/02/2017 00:00", "19/13/2017 00:00"]),
            DateOrder::MonthFirst
        );
        assert_eq!(guess_date_order(["x", ""]), DateOrder::MonthFirst);
    }
}
