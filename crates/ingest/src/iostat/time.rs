//! The dates and times sysstat prints: `%x %X` in the C locale (`11/21/26 22:47:32`), in
//! 12-hour locales (`11/05/2026 01:30:00 PM`), day-first locales (`21/11/2026`, `21.11.2026`),
//! ISO with `S_TIME_FORMAT=ISO` / `-o JSON` (`2026-11-21T22:47:32+0000`) and `-U` epoch seconds.

use chrono::{NaiveDate, NaiveDateTime, NaiveTime};

/// A report's time as written, and the UTC offset when the text states one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Stamp {
    pub naive: NaiveDateTime,
    /// Minutes east of UTC (`+0530` -> 330).
    pub offset_min: Option<i32>,
    /// Seconds since the epoch (`iostat -U`): the time is UTC.
    pub epoch: bool,
}

impl Stamp {
    pub(crate) fn millis(&self) -> i64 {
        self.naive.and_utc().timestamp_millis()
    }
}

/// Whether `a/b/y` dates put the month or the day first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DateOrder {
    MonthFirst,
    DayFirst,
}

/// Whether a string has a slash date whose first field exceeds 12 and second does not.
///
/// The readers read slash dates month-first (C locale) unless some date of the file is
/// day-first (en_GB and similar locales).
pub(crate) fn has_day_first_date(s: &str) -> bool {
    // The first field of such a date ends in a digit just before its slash: most lines
    // (device lines, headers' `r/s`) have no slash after a digit.
    let b = s.as_bytes();
    if !memchr::memchr_iter(b'/', b).any(|i| i > 0 && b.get(i - 1).is_some_and(u8::is_ascii_digit))
    {
        return false;
    }
    s.split_whitespace().any(|tok| {
        let mut parts = tok.split('/');
        if let (Some(a), Some(b), Some(_), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        {
            let (a, b) = (a.parse::<u32>().unwrap_or(0), b.parse::<u32>().unwrap_or(0));
            a > 12 && b <= 12
        } else {
            false
        }
    })
}

fn year(y: &str) -> Option<i32> {
    let v: i32 = y.parse().ok()?;
    match y.len() {
        2 => Some(if v < 69 { 2000 + v } else { 1900 + v }),
        4 => Some(v),
        _ => None,
    }
}

fn all_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// Parses a date token: `11/21/26`, `11/21/2026`, `21.11.2026`, `2026-11-21`.
pub(crate) fn parse_date(tok: &str, order: DateOrder) -> Option<NaiveDate> {
    let tok = tok.trim();
    if let Some((y, rest)) = tok.split_once('-') {
        let (m, d) = rest.split_once('-')?;
        if y.len() != 4 || !all_digits(y) || !all_digits(m) || !all_digits(d) {
            return None;
        }
        return NaiveDate::from_ymd_opt(y.parse().ok()?, m.parse().ok()?, d.parse().ok()?);
    }
    let (sep, day_first) = if tok.contains('/') {
        ('/', order == DateOrder::DayFirst)
    } else if tok.contains('.') {
        ('.', true)
    } else {
        return None;
    };
    let mut parts = tok.split(sep);
    let (a, b, y) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || !all_digits(a) || !all_digits(b) || !all_digits(y) {
        return None;
    }
    let (a, b): (u32, u32) = (a.parse().ok()?, b.parse().ok()?);
    let (m, d) = if day_first { (b, a) } else { (a, b) };
    NaiveDate::from_ymd_opt(year(y)?, m, d)
}

fn parse_time(tok: &str, meridiem: Option<&str>) -> Option<NaiveTime> {
    let mut parts = tok.split(':');
    let (h, m, s) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || !all_digits(h) || !all_digits(m) || !all_digits(s) {
        return None;
    }
    let (mut h, m, s): (u32, u32, u32) = (h.parse().ok()?, m.parse().ok()?, s.parse().ok()?);
    match meridiem.map(str::to_ascii_uppercase).as_deref() {
        None => {}
        Some("AM") if (1..=12).contains(&h) => h %= 12,
        Some("PM") if (1..=12).contains(&h) => h = h % 12 + 12,
        Some(_) => return None,
    }
    NaiveTime::from_hms_opt(h, m, s)
}

/// `+0000`, `-0700`, `+05:30`, `Z` to minutes east of UTC.
fn parse_offset(s: &str) -> Option<i32> {
    if s == "Z" {
        return Some(0);
    }
    let (sign, rest) = match s.as_bytes().first()? {
        b'+' => (1, &s[1..]),
        b'-' => (-1, &s[1..]),
        _ => return None,
    };
    let digits: String = rest.chars().filter(|c| *c != ':').collect();
    if digits.len() != 4 || !all_digits(&digits) {
        return None;
    }
    let h: i32 = digits[..2].parse().ok()?;
    let m: i32 = digits[2..].parse().ok()?;
    if h > 14 || m > 59 {
        return None;
    }
    Some(sign * (h * 60 + m))
}

/// Parses a whole line (or JSON `timestamp`) as a report time. `None` when it is not one.
pub(crate) fn parse_timestamp(s: &str, order: DateOrder) -> Option<Stamp> {
    let s = s.trim();
    // Every form starts with a digit (of the date, or of the epoch seconds): a device line
    // is told apart at its first byte.
    if !s.as_bytes().first().is_some_and(u8::is_ascii_digit) {
        return None;
    }
    // -U: seconds since the epoch.
    if all_digits(s) && (9..=11).contains(&s.len()) {
        let secs: i64 = s.parse().ok()?;
        let naive = chrono::DateTime::from_timestamp(secs, 0)?.naive_utc();
        return Some(Stamp { naive, offset_min: Some(0), epoch: true });
    }
    // ISO: 2026-11-21T22:47:32+0000 (sysstat's %FT%T%z).
    if let Some((date, rest)) = s.split_once('T') {
        let date = parse_date(date, order)?;
        let split = rest.find(['+', '-', 'Z']).unwrap_or(rest.len());
        let (time, offset) = rest.split_at(split);
        let time = parse_time(time, None)?;
        let offset_min = if offset.is_empty() { None } else { Some(parse_offset(offset)?) };
        return Some(Stamp { naive: date.and_time(time), offset_min, epoch: false });
    }
    let mut toks = s.split_whitespace();
    let date = parse_date(toks.next()?, order)?;
    let time = toks.next()?;
    let meridiem = toks.next();
    if toks.next().is_some() {
        return None;
    }
    let time = parse_time(time, meridiem)?;
    Some(Stamp { naive: date.and_time(time), offset_min: None, epoch: false })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(s: &str) -> Option<String> {
        parse_timestamp(s, DateOrder::MonthFirst)
            .map(|t| format!("{} {:?}", t.naive.format("%Y-%m-%d %H:%M:%S"), t.offset_min))
    }

    #[test]
    fn sysstat_time_formats() {
        assert_eq!(ts("11/21/26 22:47:32").as_deref(), Some("2026-11-21 22:47:32 None"));
        assert_eq!(ts("11/05/2026 01:30:00 PM").as_deref(), Some("2026-11-05 13:30:00 None"));
        assert_eq!(ts("03/15/2016 12:00:01 AM").as_deref(), Some("2016-03-15 00:00:01 None"));
        assert_eq!(ts("03/15/2016 12:00:01 PM").as_deref(), Some("2016-03-15 12:00:01 None"));
        assert_eq!(ts("2026-11-21T22:47:32+0000").as_deref(), Some("2026-11-21 22:47:32 Some(0)"));
        assert_eq!(
            ts("2024-03-14T17:53:14-0700").as_deref(),
            Some("2024-03-14 17:53:14 Some(-420)")
        );
        assert_eq!(ts("21.11.2026 22:47:32").as_deref(), Some("2026-11-21 22:47:32 None"));
        assert_eq!(ts("1606829600").as_deref(), Some("2020-12-01 13:33:20 Some(0)"));
        let day_first = parse_timestamp("21/11/26 22:47:32", DateOrder::DayFirst);
        assert_eq!(
            day_first.map(|t| t.naive.format("%F").to_string()).as_deref(),
            Some("2026-11-21")
        );
    }

    #[test]
    fn not_timestamps() {
        for s in [
            "",
            "avg-cpu:  %user",
            "13/45/26 22:47:32",
            "11/21/26 25:00:00",
            "11/21/26",
            "sda 1.0 2.0",
            "11/21/26 10:00:00 XM",
            "2026-11-21T22:47:32+99",
            "12345",
        ] {
            assert_eq!(ts(s), None, "{s}");
        }
    }

    #[test]
    fn day_first_dates() {
        assert!(!has_day_first_date("01/02/26 10:00:00"));
        assert!(has_day_first_date("21/11/26 10:00:00"));
        assert!(!has_day_first_date("11/21/26 10:00:00"));
    }
}
