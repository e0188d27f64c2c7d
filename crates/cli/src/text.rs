//! Number formatting for people: enough digits to be exact where it matters, no more.

/// Formats a value with about four significant digits, no exponent, no trailing zeros.
pub(crate) fn num(v: f64) -> String {
    if !v.is_finite() {
        return v.to_string();
    }
    let a = v.abs();
    let s = if a >= 1000.0 || a == 0.0 {
        format!("{v:.0}")
    } else if a >= 100.0 {
        format!("{v:.1}")
    } else if a >= 10.0 {
        format!("{v:.2}")
    } else if a >= 1.0 {
        format!("{v:.3}")
    } else {
        format!("{v:.4}")
    };
    if s.contains('.') {
        let t = s.trim_end_matches('0').trim_end_matches('.');
        if t == "-0" { "0".to_owned() } else { t.to_owned() }
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::num;

    #[test]
    fn significant_digits() {
        assert_eq!(num(25600.0), "25600");
        assert_eq!(num(256.04), "256");
        assert_eq!(num(2.07), "2.07");
        assert_eq!(num(0.01234), "0.0123");
        assert_eq!(num(0.0), "0");
        assert_eq!(num(-0.00001), "0");
        assert_eq!(num(37.5), "37.5");
    }
}
