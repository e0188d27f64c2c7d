//! The bounds of one piece of work (an upload's analysis in `advisor serve`) as the code
//! deep inside the readers, the normalizer and the rules sees them: whether the work was
//! cancelled (its request's deadline passed, its client went away, the server is
//! stopping), the memory budget it draws on, and the limits on what it may hold.
//!
//! A [`Work`] is entered on the thread that does the work ([`Work::run`]) and handed to
//! the threads that share it ([`crate::par::map_indexed`] does). Code that loops over
//! input calls [`checkpoint`] now and then, and code about to hold a large buffer calls
//! [`charge`] first: when the work was cancelled, or the bytes do not fit in the budget,
//! either unwinds to [`Work::run`] with the [`Stop`] (a `resume_unwind`: no panic message,
//! no hook), which gives it back as an error. Everything the work built is dropped on the
//! way, so its memory is freed and its thread is free within a checkpoint's interval.
//! Without a work entered (the command line, tests, `advisor batch`) both do nothing.

use std::cell::RefCell;
use std::fmt;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Why work stopped before its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// The work was cancelled ([`Work::cancel`]).
    Cancelled,
    /// The work needed more memory than its budget had left.
    OverBudget(OverBudget),
    /// The input has more of something than the work's [`Limits`] allow.
    TooLarge(TooLarge),
}

/// An input past one of the work's [`Limits`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooLarge {
    /// What was counted: `captures`, `disks`, `pool members`, `columns`.
    pub what: &'static str,
    /// How many there were (at least).
    pub found: usize,
    /// The limit.
    pub limit: usize,
}

impl fmt::Display for TooLarge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} in one request; the limit is {} (split the input)",
            self.found, self.what, self.limit
        )
    }
}

/// Bytes a piece of work asked for that its budget did not have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OverBudget {
    /// What it asked for.
    pub wanted: u64,
    /// What it held already.
    pub held: u64,
    /// What all the work on the budget held (this one's included).
    pub in_use: u64,
    /// The whole budget.
    pub budget: u64,
}

impl OverBudget {
    /// Whether the work alone is larger than the budget (it can never fit, so waiting or
    /// retrying cannot help), rather than the budget being taken by other work now.
    pub fn alone_too_large(&self) -> bool {
        self.held.saturating_add(self.wanted) > self.budget
    }
}

impl fmt::Display for OverBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.alone_too_large() {
            write!(
                f,
                "it needs more than the memory budget of {} (at least {})",
                bytes(self.budget),
                bytes(self.held.saturating_add(self.wanted))
            )
        } else {
            write!(
                f,
                "it needs {} more, and the memory budget of {} has {} left now",
                bytes(self.wanted),
                bytes(self.budget),
                bytes(self.budget.saturating_sub(self.in_use))
            )
        }
    }
}

/// `1536 MiB`, `12.5 MiB`, `512 KiB`: sizes in messages.
fn bytes(n: u64) -> String {
    #[allow(clippy::cast_precision_loss)]
    let x = n as f64;
    if n >= 1 << 20 {
        let mib = x / f64::from(1u32 << 20);
        if n.is_multiple_of(1 << 20) { format!("{mib:.0} MiB") } else { format!("{mib:.1} MiB") }
    } else if n >= 1 << 10 {
        format!("{:.0} KiB", x / 1024.0)
    } else {
        format!("{n} bytes")
    }
}

/// A memory budget shared by the work that draws on it (`advisor serve --memory-budget`):
/// bytes are taken before the buffer that holds them is made, and given back when the work
/// ends.
#[derive(Debug)]
pub struct MemoryBudget {
    limit: u64,
    used: AtomicU64,
}

impl MemoryBudget {
    pub fn new(limit: u64) -> MemoryBudget {
        MemoryBudget { limit, used: AtomicU64::new(0) }
    }

    /// The whole budget, in bytes.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Bytes held by the work on it now.
    pub fn in_use(&self) -> u64 {
        self.used.load(Ordering::Acquire)
    }

    /// Takes `n` bytes when they fit; otherwise what is in use.
    fn take(&self, n: u64) -> Result<(), u64> {
        let mut used = self.used.load(Ordering::Acquire);
        loop {
            let next = used.saturating_add(n);
            if next > self.limit {
                return Err(used);
            }
            match self.used.compare_exchange_weak(used, next, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => return Ok(()),
                Err(now) => used = now,
            }
        }
    }

    fn give_back(&self, n: u64) {
        let _ = self
            .used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |u| Some(u.saturating_sub(n)));
    }
}

/// What one piece of work may hold; checked where each thing is counted, the error naming
/// the limit. [`Limits::NONE`] by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Captures read, bundles' captures included.
    pub captures: usize,
    /// Disks a topology describes.
    pub disks: usize,
    /// Member disks of one pool.
    pub pool_members: usize,
    /// Columns of one PerfMon capture (its header's counters).
    pub columns: usize,
}

impl Limits {
    /// No limit at all.
    pub const NONE: Limits = Limits {
        captures: usize::MAX,
        disks: usize::MAX,
        pool_members: usize::MAX,
        columns: usize::MAX,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Limits::NONE
    }
}

/// One piece of work: whether it was cancelled, the budget it draws on and what it holds
/// of it, and its limits. Shared (an `Arc`) by whoever may cancel it and the threads that
/// do it; what it holds of the budget is given back when the last of them drops it.
#[derive(Debug)]
pub struct Work {
    cancelled: AtomicBool,
    memory: Option<Arc<MemoryBudget>>,
    charged: AtomicU64,
    limits: Limits,
}

impl Work {
    /// Work drawing on `memory` (none: unbounded), within `limits`.
    pub fn new(memory: Option<Arc<MemoryBudget>>, limits: Limits) -> Arc<Work> {
        Arc::new(Work {
            cancelled: AtomicBool::new(false),
            memory,
            charged: AtomicU64::new(0),
            limits,
        })
    }

    /// Asks the work to stop: its next [`checkpoint`] unwinds.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Release);
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Acquire)
    }

    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Bytes this work holds of its budget.
    pub fn charged(&self) -> u64 {
        self.charged.load(Ordering::Acquire)
    }

    /// Takes `bytes` of the budget for this work, or says why not (nothing is taken then).
    pub fn try_charge(&self, bytes: u64) -> Result<(), OverBudget> {
        let Some(memory) = &self.memory else { return Ok(()) };
        match memory.take(bytes) {
            Ok(()) => {
                self.charged.fetch_add(bytes, Ordering::AcqRel);
                Ok(())
            }
            Err(in_use) => Err(OverBudget {
                wanted: bytes,
                held: self.charged(),
                in_use,
                budget: memory.limit(),
            }),
        }
    }

    /// Gives back `bytes` this work held (at most what it holds): a buffer it dropped.
    pub fn release(&self, bytes: u64) {
        let Some(memory) = &self.memory else { return };
        let mut given = 0;
        let _ = self.charged.fetch_update(Ordering::AcqRel, Ordering::Acquire, |held| {
            given = held.min(bytes);
            Some(held - given)
        });
        memory.give_back(given);
    }

    /// Runs `f` with this work entered on the calling thread: a [`Stop`] inside it (a
    /// [`checkpoint`] after [`Work::cancel`], a [`charge`] over the budget) ends it early and
    /// is returned as the error. A real panic goes on unwinding.
    pub fn run<R>(self: &Arc<Self>, f: impl FnOnce() -> R) -> Result<R, Stop> {
        let _entered = enter(Some(Arc::clone(self)));
        match panic::catch_unwind(AssertUnwindSafe(f)) {
            Ok(r) => Ok(r),
            Err(payload) => match payload.downcast::<Stop>() {
                Ok(stop) => Err(*stop),
                Err(other) => panic::resume_unwind(other),
            },
        }
    }
}

impl Drop for Work {
    fn drop(&mut self) {
        if let Some(memory) = &self.memory {
            memory.give_back(*self.charged.get_mut());
        }
    }
}

thread_local! {
    static CURRENT: RefCell<Option<Arc<Work>>> = const { RefCell::new(None) };
}

/// The work entered on this thread, if any (to hand to threads that share it).
pub fn current() -> Option<Arc<Work>> {
    CURRENT.with(|c| c.borrow().clone())
}

/// While the guard lives, `work` is this thread's work (the one before it after).
pub fn enter(work: Option<Arc<Work>>) -> Entered {
    let before = CURRENT.with(|c| c.replace(work));
    Entered { before }
}

/// See [`enter`].
#[must_use]
#[derive(Debug)]
pub struct Entered {
    before: Option<Arc<Work>>,
}

impl Drop for Entered {
    fn drop(&mut self) {
        let before = self.before.take();
        CURRENT.with(|c| *c.borrow_mut() = before);
    }
}

/// Ends the current work with `stop`: unwinds to its [`Work::run`].
pub fn stop(stop: Stop) -> ! {
    panic::resume_unwind(Box::new(stop))
}

/// Whether the work entered on this thread was cancelled (never, without one).
pub fn is_cancelled() -> bool {
    CURRENT.with(|c| c.borrow().as_ref().is_some_and(|w| w.is_cancelled()))
}

/// Unwinds to [`Work::run`] when the work entered on this thread was cancelled. Cheap (a
/// thread-local and an atomic load): loops over input call it every few thousand items.
pub fn checkpoint() {
    if is_cancelled() {
        stop(Stop::Cancelled);
    }
}

/// [`checkpoint`] at every 4096th `i` (a loop's counter): a line, a data point.
pub fn checkpoint_every(i: usize) {
    if i.is_multiple_of(4096) {
        checkpoint();
    }
}

/// Takes `bytes` of the current work's budget, or unwinds to [`Work::run`] with
/// [`Stop::OverBudget`]; also a [`checkpoint`]. Nothing without a work or a budget.
pub fn charge(bytes: u64) {
    checkpoint();
    if let Err(over) = try_charge(bytes) {
        stop(Stop::OverBudget(over));
    }
}

/// [`charge`] for code that reports the error itself.
pub fn try_charge(bytes: u64) -> Result<(), OverBudget> {
    CURRENT.with(|c| match c.borrow().as_ref() {
        Some(w) => w.try_charge(bytes),
        None => Ok(()),
    })
}

/// Gives back `bytes` the current work held (a buffer it dropped).
pub fn release(bytes: u64) {
    CURRENT.with(|c| {
        if let Some(w) = c.borrow().as_ref() {
            w.release(bytes);
        }
    });
}

/// Unwinds to [`Work::run`] with [`Stop::TooLarge`] when `found` of `what` is past
/// `limit` (one of the current work's [`limits`]).
pub fn within(what: &'static str, found: usize, limit: usize) {
    if found > limit {
        stop(Stop::TooLarge(TooLarge { what, found, limit }));
    }
}

/// The current work's limits ([`Limits::NONE`] without one).
pub fn limits() -> Limits {
    CURRENT.with(|c| c.borrow().as_ref().map_or(Limits::NONE, |w| w.limits()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]

    use super::*;

    #[test]
    fn a_cancelled_work_stops_at_its_next_checkpoint_and_gives_its_bytes_back() {
        let budget = Arc::new(MemoryBudget::new(1000));
        let work = Work::new(Some(budget.clone()), Limits::NONE);
        let w = work.clone();
        let mut reached = 0;
        let r = work.run(|| {
            for i in 0..100 {
                charge(5);
                reached = i;
                if i == 10 {
                    w.cancel();
                }
                checkpoint();
            }
        });
        assert_eq!(r, Err(Stop::Cancelled));
        assert_eq!(reached, 10);
        assert_eq!(budget.in_use(), 55);
        drop((work, w));
        assert_eq!(budget.in_use(), 0, "dropping the work gives its bytes back");
        // Outside any work, nothing stops and nothing is charged.
        checkpoint();
        charge(u64::MAX);
        assert!(!is_cancelled());
    }

    #[test]
    fn over_the_budget_is_a_stop_that_says_whether_the_work_alone_is_too_large() {
        let budget = Arc::new(MemoryBudget::new(1 << 20));
        let other = Work::new(Some(budget.clone()), Limits::NONE);
        other.try_charge(600 << 10).unwrap();
        let work = Work::new(Some(budget.clone()), Limits::NONE);
        let r = work.run(|| charge(500 << 10));
        let Err(Stop::OverBudget(over)) = r else { panic!("{r:?}") };
        assert!(!over.alone_too_large(), "{over}");
        assert_eq!(
            over.to_string(),
            "it needs 500 KiB more, and the memory budget of 1 MiB has 424 KiB left now"
        );
        let r = work.run(|| charge(2 << 20));
        let Err(Stop::OverBudget(over)) = r else { panic!("{r:?}") };
        assert!(over.alone_too_large());
        assert_eq!(
            over.to_string(),
            "it needs more than the memory budget of 1 MiB (at least 2 MiB)"
        );
        // What did not fit was not taken; a release gives back at most what is held.
        assert_eq!(budget.in_use(), 600 << 10);
        other.release(u64::MAX);
        assert_eq!(budget.in_use(), 0);
    }

    #[test]
    fn a_real_panic_goes_on_unwinding_and_the_work_is_left() {
        let work = Work::new(None, Limits::NONE);
        let caught = panic::catch_unwind(AssertUnwindSafe(|| work.run(|| panic!("a bug"))));
        assert!(caught.is_err());
        assert!(current().is_none(), "the thread's work is restored");
    }
}
