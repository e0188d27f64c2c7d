//! Plain decimals (`-12.5`, `0.000178`, `171946582.622533470392227`: no exponent, up to 38
//! digits) read to the nearest double, faster than a general parser, for the shape
//! PerfMon writes (15 to 24 significant digits, most of a capture's bytes).
//!
//! The digits are read eight at a time into one 128-bit integer `m`, so the number is
//! exactly `m / 10^k` (`k` digits after the point). When `m` and `10^k` are both exact
//! doubles (`m <= 2^53`, `k <= 22`) one division of doubles rounds it correctly (Clinger's
//! fast path). Otherwise `m / 10^k = (m / 5^k) * 2^-k`: `m`, shifted left, divided by `5^k`
//! gives a quotient of 55 or 56 bits and a remainder, and the quotient is rounded to 53
//! bits (to nearest, ties to even) from the bits it drops and whether the remainder is
//! zero. The division is a multiplication by `5^k`'s reciprocal and one exact check of the
//! remainder ([`divide`]). Either way the result is the double nearest the text, which is
//! what `str::parse` and `fast-float2` give: the tests hold them to it bit for bit.
//!
//! Text of any other shape (an exponent, a leading `+` or `.`, more than 38 digits or 27
//! after the point, a number too large for the shift) is left to the general parser:
//! [`plain`] returns `None`.

/// 10^i as doubles, exact up to 10^22.
const POW10_F64: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// The most digits after the point: 5^27 is the largest power of five in 64 bits.
const MAX_FRACTION: usize = 27;
/// The most digits in all: 10^38 < 2^127.
const MAX_DIGITS: usize = 38;

/// 5^i for i in 0..=27.
const POW5: [u64; MAX_FRACTION + 1] = {
    let mut t = [1u64; MAX_FRACTION + 1];
    let mut i = 1;
    while i <= MAX_FRACTION {
        t[i] = t[i - 1] * 5;
        i += 1;
    }
    t
};

/// 10^i for i in 0..=8.
const POW10_U8: [u128; 9] = [1, 10, 100, 1000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000];

/// Eight bytes at `i`, first byte lowest.
#[inline]
fn word(s: &[u8], i: usize) -> Option<u64> {
    let b: [u8; 8] = s.get(i..i + 8)?.try_into().ok()?;
    Some(u64::from_le_bytes(b))
}

/// A bit set in the top of each byte of `w` that is not an ASCII digit. Exact up to and
/// including the first such byte (a borrow only runs from a non-digit into the bytes
/// after it), which is all the callers look at.
#[inline]
fn non_digits(w: u64) -> u64 {
    (w.wrapping_add(0x4646_4646_4646_4646) | w.wrapping_sub(0x3030_3030_3030_3030))
        & 0x8080_8080_8080_8080
}

/// The value of eight ASCII digits, the first byte the most significant.
#[inline]
fn eight_digits(w: u64) -> u64 {
    let w = w - 0x3030_3030_3030_3030;
    let w = (w * 10) + (w >> 8);
    let a = (w & 0x0000_00FF_0000_00FF).wrapping_mul(0x000F_4240_0000_0064);
    let b = ((w >> 16) & 0x0000_00FF_0000_00FF).wrapping_mul(0x0000_2710_0000_0001);
    u64::from((a.wrapping_add(b) >> 32) as u32)
}

/// Reads the run of digits at `s[i..]` onto `m` (`m * 10^n + digits`). Returns the new
/// `m` and where the run ends. `m` wraps past 2^128: the caller bounds the digit count.
#[inline]
fn run(s: &[u8], mut i: usize, mut m: u128) -> (u128, usize) {
    while let Some(w) = word(s, i) {
        let nd = non_digits(w);
        if nd == 0 {
            m = m.wrapping_mul(100_000_000).wrapping_add(u128::from(eight_digits(w)));
            i += 8;
            continue;
        }
        let n = (nd.trailing_zeros() / 8) as usize;
        if n > 0 {
            // The n digits moved to the top bytes, zeros before them.
            let shift = 64 - 8 * n as u32;
            let padded = (w << shift) | (0x3030_3030_3030_3030 >> (8 * n as u32));
            m = m.wrapping_mul(POW10_U8[n]).wrapping_add(u128::from(eight_digits(padded)));
        }
        return (m, i + n);
    }
    while let Some(&b) = s.get(i) {
        let d = b.wrapping_sub(b'0');
        if d >= 10 {
            break;
        }
        m = m.wrapping_mul(10).wrapping_add(u128::from(d));
        i += 1;
    }
    (m, i)
}

/// The plain decimal at the start of `s` and how many bytes it takes, or `None` for text
/// this reader leaves to a general parser (see the module's notes). Reads what
/// `fast_float2::parse_partial` reads: the number stops at the first byte that cannot
/// continue it.
#[inline]
pub(crate) fn plain(s: &[u8]) -> Option<(f64, usize)> {
    let negative = s.first() == Some(&b'-');
    let start = usize::from(negative);
    let (mut m, mut i) = run(s, start, 0);
    let whole = i - start;
    if whole == 0 {
        return None;
    }
    let mut k = 0usize;
    if s.get(i) == Some(&b'.') {
        let (m2, end) = run(s, i + 1, m);
        k = end - (i + 1);
        m = m2;
        i = end;
    }
    if k > MAX_FRACTION || whole + k > MAX_DIGITS || s.get(i).is_some_and(|&b| b | 0x20 == b'e') {
        return None;
    }
    let v = magnitude(m, k)?;
    Some((if negative { -v } else { v }, i))
}

/// The double nearest `m / 10^k` (`k <= 27`, `m < 10^38`), or `None` when `m` is too large
/// for the shift.
#[inline]
fn magnitude(m: u128, k: usize) -> Option<f64> {
    if m <= 1 << 53 && k < POW10_F64.len() {
        // Both exact, so the one rounding of the division is the only one.
        return Some((m as i64) as f64 / POW10_F64[k]);
    }
    let d = POW5[k];
    let bits_m = 128 - m.leading_zeros();
    let bits_d = 64 - d.leading_zeros();
    // The shift that puts the quotient at 55 or 56 bits: n in [2^(54+bd), 2^(55+bd)),
    // d in [2^(bd-1), 2^bd). n has at most 55 + 63 = 118 bits.
    let shift = (55 + bits_d).checked_sub(bits_m)?;
    let n = m << shift;
    let (q, exact) = divide(n, k, bits_d);
    let extra = 64 - q.leading_zeros() - 53;
    let dropped = q & ((1 << extra) - 1);
    let half = 1 << (extra - 1);
    let mut kept = q >> extra;
    if dropped > half || (dropped == half && (!exact || kept & 1 == 1)) {
        kept += 1;
    }
    // value = kept * 2^(extra - shift - k); the power of two is a normal double for every
    // m and k allowed here (between 2^-190 and 2^66), so the product is exact.
    let e = i64::from(extra) - i64::from(shift) - k as i64;
    let scale = f64::from_bits(((e + 1023) as u64) << 52);
    Some((kept as i64) as f64 * scale)
}

/// floor(2^(63 + bits(5^k)) / 5^k) for k in 1..=27: 5^k's reciprocal to 64 bits, rounded
/// down (below 2^64 since no 5^k past 1 is a power of two).
const RECIPROCAL: [u64; MAX_FRACTION + 1] = {
    let mut t = [0u64; MAX_FRACTION + 1];
    let mut k = 1;
    while k <= MAX_FRACTION {
        let d = POW5[k];
        let bits = 64 - d.leading_zeros();
        t[k] = ((1u128 << (63 + bits)) / d as u128) as u64;
        k += 1;
    }
    t
};

/// floor(n / 5^k) and whether it divides, for n of exactly 55 + bits(5^k) bits: the
/// quotient has 55 or 56 bits.
///
/// The quotient is estimated from n's top 64 bits and the 64-bit reciprocal, both rounded
/// down, so the estimate is never above the quotient and (the two roundings together cost
/// under 2^-7) at most one below it; the remainder, worked out exactly, says which.
#[inline]
fn divide(n: u128, k: usize, bits_d: u32) -> (u64, bool) {
    let d = POW5[k];
    if k == 0 {
        return (n as u64, true);
    }
    let j = bits_d.saturating_sub(9);
    let top = (n >> j) as u64;
    let mut q = ((u128::from(top) * u128::from(RECIPROCAL[k])) >> (63 + bits_d - j)) as u64;
    let mut r = n - u128::from(q) * u128::from(d);
    while r >= u128::from(d) {
        q += 1;
        r -= u128::from(d);
    }
    (q, r == 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// `plain`'s answer, held to `fast-float2`'s partial parse (the value's bits and the
    /// bytes taken) and to the standard library's parse of the same bytes.
    fn agrees(text: &str) -> Option<(f64, usize)> {
        let got = plain(text.as_bytes())?;
        let (v, n) = fast_float2::parse_partial::<f64, _>(text).unwrap_or((f64::NAN, 0));
        assert_eq!((got.0.to_bits(), got.1), (v.to_bits(), n), "{text}: fast-float2");
        let std: f64 = text[..got.1].parse().unwrap_or(f64::NAN);
        assert_eq!(got.0.to_bits(), std.to_bits(), "{text}: str::parse");
        Some(got)
    }

    #[test]
    fn the_nearest_double_ties_to_even_and_signs() {
        for text in [
            "0",
            "-0",
            "-0.000",
            "16384.000000000000000",
            "58.591695757992483",
            "959966.343298948835582",
            "0.00017826666666666667201",
            "85.211772421657045129",
            "50042245120",
            // 2^53 + 1 and 2^52 + 0.5: halfway, so to the even neighbour.
            "9007199254740993",
            "4503599627370496.5",
            "4503599627370497.5",
            "9007199254740993.0",
            // Just off halfway, either side.
            "4503599627370496.51",
            "4503599627370496.49",
            "0.1",
            "0.30000000000000004",
            "1.7976931348623157",
            "0.000000000000000000000000001",
            "9999999999.999999999999999999999",
        ] {
            assert!(agrees(text).is_some(), "{text}: left to the general parser");
        }
        assert_eq!(plain(b"-0").map(|(v, _)| v.to_bits()), Some((-0.0f64).to_bits()));
    }

    #[test]
    fn it_stops_where_the_number_stops() {
        assert_eq!(agrees("12.5\",3\""), Some((12.5, 4)));
        assert_eq!(agrees("5."), Some((5.0, 2)));
        assert_eq!(agrees("12abc"), Some((12.0, 2)));
        assert_eq!(agrees("7,8"), Some((7.0, 1)));
        assert_eq!(agrees("1.2.3"), Some((1.2, 3)));
        assert_eq!(agrees("123456789.125\r\n"), Some((123_456_789.125, 13)));
    }

    #[test]
    fn other_shapes_are_left_to_the_general_parser() {
        for text in [
            "",
            "-",
            "+1",
            ".5",
            "-.5",
            "1e5",
            "1.5E-3",
            "1.5e",
            "x",
            "NaN",
            "inf",
            "\"1\"",
            // 28 digits after the point; 39 in all.
            "0.0000000000000000000000000001",
            "123456789012345678901234567890123456789",
            // Too large for the shift: a 20-digit integer, 16 digits before the point and
            // 18 after.
            "12345678901234567890",
            "9007199254740993.000000000000000001",
        ] {
            assert_eq!(plain(text.as_bytes()), None, "{text}");
        }
    }

    /// Random doubles written as PerfMon and other tools write them.
    #[test]
    fn written_doubles_read_back() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = f64::from_bits(x >> 2) % 1e9;
            if !v.is_finite() {
                continue;
            }
            for text in [format!("{v:.15}"), format!("{v:.20}"), format!("{v}"), format!("{v:.3}")]
            {
                if text.len() - text.find('.').unwrap_or(text.len()) <= MAX_FRACTION + 1 {
                    agrees(&text);
                }
            }
        }
    }

    fn digits(max: usize) -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop_oneof![3 => 0u8..10, 1 => Just(0u8), 1 => Just(9u8)],
            0..=max,
        )
        .prop_map(|d| d.into_iter().map(|d| char::from(b'0' + d)).collect())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]
        #[test]
        fn any_plain_decimal_is_the_nearest_double(
            negative in any::<bool>(),
            whole in digits(24),
            point in any::<bool>(),
            fraction in digits(32),
            tail in prop_oneof![Just(""), Just("\""), Just(","), Just("e7"), Just("x"), Just(".")],
        ) {
            let text = format!(
                "{}{whole}{}{}{tail}",
                if negative { "-" } else { "" },
                if point { "." } else { "" },
                if point { fraction.as_str() } else { "" },
            );
            let got = agrees(&text);
            // What PerfMon writes is never left to the general parser.
            let k = if point { fraction.len() } else { 0 };
            if (1..=10).contains(&whole.len()) && k <= 21 && !tail.starts_with('e') {
                prop_assert!(got.is_some(), "{text}");
            }
        }
    }
}
