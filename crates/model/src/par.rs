//! Work shared among the machine's cores, item by item.

use std::sync::atomic::{AtomicUsize, Ordering};

/// `f(0) .. f(n - 1)` on up to `max_threads` threads (the cores there are), each thread
/// taking the next index when it is done with one, so a few slow items do not leave a
/// core idle the way fixed chunks do. The results come back in index order, whatever
/// order they were made in. A panic in `f` is raised again here.
pub fn map_indexed<T: Send>(n: usize, max_threads: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let threads =
        std::thread::available_parallelism().map_or(1, |p| p.get()).min(max_threads).min(n);
    if threads <= 1 {
        return (0..n).map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let (f, next) = (&f, &next);
    let mut made: Vec<(usize, T)> = std::thread::scope(|s| {
        let jobs: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(move || {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= n {
                            break mine;
                        }
                        mine.push((i, f(i)));
                    }
                })
            })
            .collect();
        let mut all = Vec::with_capacity(n);
        for job in jobs {
            match job.join() {
                Ok(part) => all.extend(part),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        all
    });
    made.sort_unstable_by_key(|(i, _)| *i);
    made.into_iter().map(|(_, t)| t).collect()
}

#[cfg(test)]
mod tests {
    use super::map_indexed;

    #[test]
    fn results_come_in_index_order() {
        // Uneven work: early items are the slow ones.
        let got = map_indexed(200, 8, |i| {
            let spin: u64 = (0..(200 - i) * 1000).map(|x| x as u64).sum();
            (i, spin > 0 || i == 199)
        });
        assert_eq!(got.len(), 200);
        assert!(got.iter().enumerate().all(|(k, (i, _))| k == *i));
        assert_eq!(map_indexed(0, 8, |i| i), Vec::<usize>::new());
        assert_eq!(map_indexed(3, 1, |i| i * 2), vec![0, 2, 4]);
    }
}
