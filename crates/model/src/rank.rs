/// The nearest-rank percentile of values already sorted ascending: the ceil(P x n / 100)-th
/// value (1-based), the definition every advisor figure uses (the report's checklist and
/// the rules alike). `None` when `sorted` is empty.
///
/// `p / 100 * n` rounds up past whole ranks (p14 of 50 samples is 0.14 x 50 =
/// 7.000000000000001, the 8th): the product is taken first, and a product within float
/// noise of a whole number counts as that number (p99.9 of 1000 samples is the 999th).
pub fn nearest_rank(sorted: &[f64], p: f64) -> Option<f64> {
    let n = sorted.len();
    if n == 0 {
        return None;
    }
    let x = p * n as f64 / 100.0;
    let whole = x.round();
    let rank = if (x - whole).abs() <= 1e-9 * whole.max(1.0) { whole } else { x.ceil() };
    let rank = (rank.max(1.0) as usize).min(n);
    sorted.get(rank - 1).copied()
}

#[cfg(test)]
mod tests {
    use super::nearest_rank;

    #[test]
    fn whole_ranks_are_not_pushed_up_by_float_noise() {
        let v: Vec<f64> = (1..=50).map(f64::from).collect();
        assert_eq!(nearest_rank(&v, 14.0), Some(7.0));
        let v: Vec<f64> = (1..=1000).map(f64::from).collect();
        assert_eq!(nearest_rank(&v, 99.9), Some(999.0));
        assert_eq!(nearest_rank(&v, 0.0), Some(1.0));
        assert_eq!(nearest_rank(&v, 100.0), Some(1000.0));
        assert_eq!(nearest_rank(&[], 50.0), None);
    }
}
