//! Work shared among the machine's cores, item by item.

use std::sync::atomic::{AtomicUsize, Ordering};

/// `f(0) .. f(n - 1)` on up to `max_threads` threads (the cores there are), each thread
/// taking the next index when it is done with one, so a few slow items do not leave a
/// core idle the way fixed chunks do. The results come back in index order, whatever
/// order they were made in. A panic in `f` is raised again here, once every thread has
/// stopped.
///
/// The calling thread's [`crate::work`] is entered on every thread, and each item starts
/// with a [`crate::work::checkpoint`]: cancelled work stops between items (an item once
/// taken is always started, so whoever waits for it is not left waiting).
pub fn map_indexed<T: Send>(n: usize, max_threads: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let threads =
        std::thread::available_parallelism().map_or(1, |p| p.get()).min(max_threads).min(n);
    if threads <= 1 {
        return (0..n)
            .map(|i| {
                crate::work::checkpoint();
                f(i)
            })
            .collect();
    }
    let next = AtomicUsize::new(0);
    let work = crate::work::current();
    let (f, next, work) = (&f, &next, &work);
    let mut made: Vec<(usize, T)> = std::thread::scope(|s| {
        let jobs: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(move || {
                    let _entered = crate::work::enter(work.clone());
                    let mut mine = Vec::new();
                    loop {
                        crate::work::checkpoint();
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= n {
                            break mine;
                        }
                        mine.push((i, f(i)));
                    }
                })
            })
            .collect();
        // Every thread is joined before a panic goes on: one left unjoined would make the
        // scope raise a panic of its own in place of this one.
        let mut all = Vec::with_capacity(n);
        let mut panicked = None;
        for job in jobs {
            match job.join() {
                Ok(part) => all.extend(part),
                Err(panic) => {
                    panicked.get_or_insert(panic);
                }
            }
        }
        if let Some(panic) = panicked {
            std::panic::resume_unwind(panic);
        }
        all
    });
    made.sort_unstable_by_key(|(i, _)| *i);
    made.into_iter().map(|(_, t)| t).collect()
}

/// [`map_indexed`] over owned items: `f(i, item)` for each, every item handed to the one
/// thread that takes its index (a buffer converted in place, not copied). Results in
/// index order.
pub fn map_owned<I: Send, T: Send>(
    items: Vec<I>,
    max_threads: usize,
    f: impl Fn(usize, I) -> T + Sync,
) -> Vec<T> {
    let slots: Vec<std::sync::Mutex<Option<I>>> =
        items.into_iter().map(|x| std::sync::Mutex::new(Some(x))).collect();
    let made = map_indexed(slots.len(), max_threads, |i| {
        // Each index is taken once, so its slot is always full and never contended.
        let item = slots[i].lock().ok().and_then(|mut slot| slot.take());
        item.map(|x| f(i, x))
    });
    made.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::{map_indexed, map_owned};

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

    #[test]
    fn owned_items_are_each_handed_over_once_in_order() {
        let items: Vec<Vec<u64>> = (0..50u64).map(|i| vec![i; (50 - i as usize) * 100]).collect();
        let got = map_owned(items, 8, |i, mut v| {
            v.iter_mut().for_each(|x| *x += 1);
            (i, v.len(), v.first().copied())
        });
        assert_eq!(got.len(), 50);
        for (k, (i, len, first)) in got.into_iter().enumerate() {
            assert_eq!((i, len, first), (k, (50 - k) * 100, Some(k as u64 + 1)));
        }
    }
}
