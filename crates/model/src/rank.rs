/// The nearest-rank percentile of values already sorted ascending: the ceil(P x n / 100)-th
/// value (1-based), the definition every advisor figure uses (the report's checklist and
/// the rules alike). `None` when `sorted` is empty.
///
/// `p / 100 * n` rounds up past whole ranks (p14 of 50 samples is 0.14 x 50 =
/// 7.000000000000001, the 8th): the product is taken first, and a product within float
/// noise of a whole number counts as that number (p99.9 of 1000 samples is the 999th).
pub fn nearest_rank(sorted: &[f64], p: f64) -> Option<f64> {
    sorted.get(rank_index(sorted.len(), p)?).copied()
}

/// The 0-based index of the nearest-rank `p`th percentile among `n` sorted values.
fn rank_index(n: usize, p: f64) -> Option<usize> {
    if n == 0 {
        return None;
    }
    let x = p * n as f64 / 100.0;
    let whole = x.round();
    let rank = if (x - whole).abs() <= 1e-9 * whole.max(1.0) { whole } else { x.ceil() };
    Some((rank.max(1.0) as usize).min(n) - 1)
}

/// The nearest-rank percentiles `ps` of `values` (in any order), as [`nearest_rank`] of
/// the values sorted by [`f64::total_cmp`] gives them, without sorting: each is a selection
/// (`select_nth_unstable`) in the part above the one before, so the cost is linear in
/// `values.len()`, not n log n. `values` is reordered. All `None` when `values` is empty.
///
/// To the bit what the sort gives. Without a NaN among the values they are selected by
/// `<`, a fifth faster than by `total_cmp` over a day of samples: `<` ties only values of
/// the same bits, and -0 with +0, so a selection that lands on a zero is given the sign
/// the sort's order (-0 below +0) puts at that rank.
pub fn nearest_ranks(values: &mut [f64], ps: &[f64]) -> Vec<Option<f64>> {
    let by_lt = !any_nan(values);
    ranks_by(values, ps, by_lt)
}

/// [`nearest_ranks`] of values none of which is NaN (finite ones, say), which the caller
/// knows: the same ranks without the pass that looks for one (debug builds look).
pub fn nearest_ranks_of_numbers(values: &mut [f64], ps: &[f64]) -> Vec<Option<f64>> {
    debug_assert!(!any_nan(values), "a NaN among values said to be numbers");
    ranks_by(values, ps, true)
}

/// [`nearest_ranks`], selecting by `<` when `by_lt` (no value is NaN), else by
/// [`f64::total_cmp`].
fn ranks_by(values: &mut [f64], ps: &[f64], by_lt: bool) -> Vec<Option<f64>> {
    let n = values.len();
    let mut wanted: Vec<(usize, usize)> =
        ps.iter().enumerate().filter_map(|(i, p)| rank_index(n, *p).map(|k| (k, i))).collect();
    wanted.sort_unstable();
    let mut out = vec![None; ps.len()];
    // Everything below `lo` is at most values[lo - 1], everything from `lo` at least.
    let mut lo = 0usize;
    let mut last: Option<(usize, f64)> = None;
    // How many values the sort puts below +0: those below -0, and the -0s.
    let mut below_plus_zero: Option<usize> = None;
    for (k, i) in wanted {
        let v = match last {
            Some((lk, lv)) if lk == k => lv,
            _ => {
                let rest = &mut values[lo..];
                let v = if by_lt {
                    *rest.select_nth_unstable_by(k - lo, lt_order).1
                } else {
                    *rest.select_nth_unstable_by(k - lo, f64::total_cmp).1
                };
                lo = k + 1;
                if by_lt && v == 0.0 {
                    let below = *below_plus_zero.get_or_insert_with(|| {
                        values.iter().filter(|x| x.total_cmp(&0.0).is_lt()).count()
                    });
                    if k < below { -0.0 } else { 0.0 }
                } else {
                    v
                }
            }
        };
        last = Some((k, v));
        out[i] = Some(v);
    }
    out
}

/// The order of `<` on values that are not NaN (-0 and +0 tie).
fn lt_order(a: &f64, b: &f64) -> std::cmp::Ordering {
    if a < b {
        std::cmp::Ordering::Less
    } else if b < a {
        std::cmp::Ordering::Greater
    } else {
        std::cmp::Ordering::Equal
    }
}

/// Whether any value is NaN, branch-free within blocks of 256 (as [`all_finite`]).
fn any_nan(values: &[f64]) -> bool {
    !all_of(values, |x| !x.is_nan())
}

/// Whether every value is finite ([`all_of`]).
pub fn all_finite(values: &[f64]) -> bool {
    all_of(values, f64::is_finite)
}

/// Whether `holds` is true of every value: branch-free within blocks of 256, so it
/// vectorises (a short-circuit `all` tests and branches value by value, at twice the time
/// or more over a day of samples), and stops after the first block holding one it is not.
pub fn all_of<T: Copy>(values: &[T], holds: impl Fn(T) -> bool) -> bool {
    values.chunks(256).all(|c| c.iter().fold(true, |ok, x| ok & holds(*x)))
}

#[cfg(test)]
mod tests {
    use super::{all_finite, nearest_rank, nearest_ranks, nearest_ranks_of_numbers};

    #[test]
    fn all_finite_finds_one_value_anywhere() {
        let mut v: Vec<f64> = (0..1000).map(f64::from).collect();
        assert!(all_finite(&v) && all_finite(&[]));
        for (at, bad) in
            [(0, f64::NAN), (255, f64::INFINITY), (256, f64::NEG_INFINITY), (999, f64::NAN)]
        {
            let old = std::mem::replace(&mut v[at], bad);
            assert!(!all_finite(&v), "{bad} at {at}");
            v[at] = old;
        }
    }

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

    #[test]
    fn selection_gives_the_sorted_rank_in_any_order_of_requests() {
        let mut v: Vec<f64> = (1..=1000).rev().map(f64::from).collect();
        let got = nearest_ranks(&mut v, &[99.0, 50.0, 99.9, 50.0, 0.0, 100.0]);
        let want = [990.0, 500.0, 999.0, 500.0, 1.0, 1000.0];
        assert_eq!(got, want.map(Some).to_vec());
        assert_eq!(nearest_ranks(&mut [], &[50.0]), vec![None]);
        assert_eq!(nearest_ranks(&mut [3.0], &[1.0, 99.0]), vec![Some(3.0), Some(3.0)]);
    }

    /// The bits of `nearest_ranks` of `values`, and of the ranks of `values` sorted by
    /// `total_cmp`.
    fn selected_and_sorted(
        mut values: Vec<f64>,
        ps: &[f64],
    ) -> (Vec<Option<u64>>, Vec<Option<u64>>) {
        let mut sorted = values.clone();
        sorted.sort_by(f64::total_cmp);
        let want = ps.iter().map(|p| nearest_rank(&sorted, *p).map(f64::to_bits)).collect();
        let got = nearest_ranks(&mut values, ps).into_iter().map(|x| x.map(f64::to_bits)).collect();
        (got, want)
    }

    proptest::proptest! {
        #[test]
        fn selection_equals_sorting(
            mut values in proptest::collection::vec(-1e6f64..1e6, 0..300),
            dup in proptest::collection::vec(0usize..300, 0..50),
            ps in proptest::collection::vec(0.0f64..=100.0, 1..6),
        ) {
            // Repeated values, as real counters have (a disk idle at 0 for hours).
            for d in dup {
                if let Some(&x) = values.get(d % values.len().max(1)) {
                    values.push(x);
                }
            }
            let mut numbers = values.clone();
            let (got, want) = selected_and_sorted(values, &ps);
            proptest::prop_assert_eq!(&got, &want);
            // Said to be numbers: the same ranks without looking for a NaN.
            let bits = |r: Vec<Option<f64>>| r.into_iter().map(|x| x.map(f64::to_bits)).collect::<Vec<_>>();
            proptest::prop_assert_eq!(bits(nearest_ranks_of_numbers(&mut numbers, &ps)), want);
        }

        // Both zeros, and NaNs of both signs (the selection by `<` is not used then), in
        // any mix: a zero rank has the sign the sort puts there.
        #[test]
        fn selection_equals_sorting_with_signed_zeros_and_nans(
            picks in proptest::collection::vec(0usize..8, 0..200),
            ps in proptest::collection::vec(0.0f64..=100.0, 1..6),
        ) {
            let specials =
                [0.0, -0.0, 0.0, -0.0, -1.5, 2.5, f64::INFINITY, f64::NAN];
            let mut values: Vec<f64> = picks.iter().map(|i| specials[*i]).collect();
            if picks.len() % 3 == 0 {
                values.push(-f64::NAN);
            }
            let (got, want) = selected_and_sorted(values, &ps);
            proptest::prop_assert_eq!(got, want);
        }
    }

    // Without NaNs, selected by `<`: every rank of a run of -0s then +0s has its sign.
    #[test]
    fn zeros_keep_the_sign_of_their_rank() {
        let mut v: Vec<f64> = [0.0; 5].into_iter().chain([-0.0; 5]).chain([-1.0, 1.0]).collect();
        let ps: Vec<f64> = (1..=12).map(|r| f64::from(r) * 100.0 / 12.0).collect();
        let got: Vec<u64> =
            nearest_ranks(&mut v, &ps).into_iter().flatten().map(f64::to_bits).collect();
        let mut want = vec![(-1.0f64).to_bits()];
        want.extend([(-0.0f64).to_bits(); 5]);
        want.extend([0.0f64.to_bits(); 5]);
        want.push(1.0f64.to_bits());
        assert_eq!(got, want);
    }
}
