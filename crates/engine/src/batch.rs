//! Batch triage: many tickets' inputs analysed each on its own, several at once within a
//! memory budget, with every input accounted for (a report, or the error that stopped it).
//!
//! Scheduling: `jobs` workers take the inputs in the order given. Before an input is read,
//! its peak memory is estimated ([`memory_estimate`]); a worker starts it only while the
//! estimates of the analyses running plus its own stay within the budget, so a queue of
//! small captures runs `jobs` at a time and a large one waits for room (and, larger than
//! the whole budget, runs alone). A panic in one analysis is caught and recorded as that
//! input's error: the queue goes on.

use std::collections::VecDeque;
use std::io::Read as _;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex, mpsc};
use std::time::Instant;

use advisor_model::{Analysis, BatchEntry, BatchStatus, Severity, WorstFinding};
use advisor_report::Format;

use crate::session::{ReadRequest, Request, Session};

/// Fixed part of an analysis' peak memory: the rules, catalog and templates are shared, but
/// each analysis holds its own frames, series and rendered reports.
const BASE_ESTIMATE: u64 = 24 << 20;

/// Peak memory per byte of input. The benchmark (docs/performance.md) measured 1.35-1.5x for
/// PerfMon CSV and 2.0x for iostat text at 100 MB-1 GB; small structured files cost more per
/// byte (fio JSON 9x, DiskSpd XML 7x) but are small. 3x covers the large ones with room.
const BYTES_FACTOR: u64 = 3;

/// Archives are judged by what they unpack to: text compresses 5-30 times (see
/// `BundleLimits`), so an archive counts as 10 times its size, at most the bundle limit.
const ARCHIVE_FACTOR: u64 = 10;

/// How a batch runs.
#[derive(Debug, Clone)]
pub struct BatchOptions {
    /// Analyses at once, at most (at least 1).
    pub jobs: usize,
    /// Bytes the running analyses' estimates may add up to.
    pub memory_budget: u64,
    /// The report formats to render for each input.
    pub formats: Vec<Format>,
}

/// One input's result, as it finishes.
#[derive(Debug)]
pub struct BatchDone {
    /// Its position among the inputs given.
    pub index: usize,
    /// What the index says of it (`reports` is left empty: the caller writes the files).
    pub entry: BatchEntry,
    /// The rendered reports, in the order of [`BatchOptions::formats`] (empty on failure).
    pub reports: Vec<(Format, String)>,
}

/// Peak memory an analysis of `path` is expected to take: a fixed part plus a multiple of
/// the bytes it holds (a folder's files added up, an archive by what it may unpack to).
pub fn memory_estimate(path: &Path, max_unpacked: u64) -> u64 {
    BASE_ESTIMATE.saturating_add(input_bytes(path, max_unpacked).saturating_mul(BYTES_FACTOR))
}

/// The bytes an input holds: a file's size, a folder's files added up, an archive by what
/// it may unpack to (10 times its size, at most `max_unpacked`).
pub fn input_bytes(path: &Path, max_unpacked: u64) -> u64 {
    bytes_below(path, max_unpacked, 0)
}

fn bytes_below(path: &Path, max_unpacked: u64, depth: usize) -> u64 {
    let Ok(meta) = std::fs::metadata(path) else { return 0 };
    if meta.is_dir() {
        if depth > 8 {
            return 0;
        }
        let Ok(entries) = std::fs::read_dir(path) else { return 0 };
        return entries
            .filter_map(Result::ok)
            .map(|e| bytes_below(&e.path(), max_unpacked, depth + 1))
            .fold(0u64, u64::saturating_add);
    }
    if is_archive(path) {
        meta.len().saturating_mul(ARCHIVE_FACTOR).min(max_unpacked.max(meta.len()))
    } else {
        meta.len()
    }
}

/// A gzip or zip file, by its first bytes.
fn is_archive(path: &Path) -> bool {
    let mut head = [0u8; 4];
    let Ok(mut f) = std::fs::File::open(path) else { return false };
    let n = f.read(&mut head).unwrap_or(0);
    matches!(&head[..n], [0x1f, 0x8b, ..] | [b'P', b'K', 3, 4])
}

/// The budget the scheduler keeps to.
struct Budget {
    limit: u64,
    state: Mutex<u64>,
    freed: Condvar,
}

impl Budget {
    /// Waits until `bytes` fit beside what runs (or nothing runs), then takes them.
    fn take(&self, bytes: u64) {
        let mut used = self.state.lock().unwrap_or_else(|e| e.into_inner());
        while *used > 0 && used.saturating_add(bytes) > self.limit {
            used = self.freed.wait(used).unwrap_or_else(|e| e.into_inner());
        }
        *used = used.saturating_add(bytes);
    }

    fn give_back(&self, bytes: u64) {
        let mut used = self.state.lock().unwrap_or_else(|e| e.into_inner());
        *used = used.saturating_sub(bytes);
        self.freed.notify_all();
    }
}

impl Session {
    /// Analyses each input on its own (a capture file, or a collector bundle with its own
    /// topology documents), `options.jobs` at a time within `options.memory_budget`, and
    /// calls `done` on the calling thread as each finishes (in finishing order). Inputs that
    /// cannot be analysed are reported through `done` like the others, with their error.
    pub fn batch(
        &self,
        inputs: &[PathBuf],
        options: &BatchOptions,
        mut done: impl FnMut(BatchDone),
    ) {
        let queue: Mutex<VecDeque<usize>> = Mutex::new((0..inputs.len()).collect());
        let budget =
            Budget { limit: options.memory_budget, state: Mutex::new(0), freed: Condvar::new() };
        let max_unpacked = self.bundle_limits().max_total;
        let workers = options.jobs.clamp(1, inputs.len().max(1));
        let (tx, rx) = mpsc::channel::<BatchDone>();
        std::thread::scope(|scope| {
            for _ in 0..workers {
                let tx = tx.clone();
                let (queue, budget) = (&queue, &budget);
                scope.spawn(move || {
                    loop {
                        // The next input in order; the lock is held only to take it.
                        let next = queue.lock().unwrap_or_else(|e| e.into_inner()).pop_front();
                        let Some(index) = next else { break };
                        let path = &inputs[index];
                        let estimate = memory_estimate(path, max_unpacked);
                        budget.take(estimate);
                        let result = self.batch_one(index, path, estimate, &options.formats);
                        budget.give_back(estimate);
                        if tx.send(result).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(tx);
            for result in rx {
                done(result);
            }
        });
    }

    fn batch_one(&self, index: usize, path: &Path, estimate: u64, formats: &[Format]) -> BatchDone {
        let started = Instant::now();
        let outcome = catch_unwind(AssertUnwindSafe(|| self.analyze_one(path, formats)))
            .unwrap_or_else(|panic| {
                let what = panic
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "no message".to_owned());
                Err(format!("{}: internal error (a bug, please report it): {what}", path.display()))
            });
        let seconds = started.elapsed().as_secs_f64();
        let input = path.display().to_string();
        match outcome {
            Ok((analysis, reports)) => BatchDone {
                index,
                entry: entry_of(
                    input,
                    &analysis,
                    index_verdict(self.verdict(&analysis)),
                    estimate,
                    seconds,
                ),
                reports,
            },
            Err(error) => BatchDone {
                index,
                entry: BatchEntry {
                    input,
                    status: BatchStatus::Failed,
                    verdict: None,
                    verdict_status: None,
                    vm: None,
                    worst: None,
                    critical: 0,
                    warning: 0,
                    info: 0,
                    not_evaluated: 0,
                    reports: Vec::new(),
                    error: Some(error),
                    memory_estimate_bytes: estimate,
                    seconds,
                },
                reports: Vec::new(),
            },
        }
    }

    /// What `advisor analyze INPUT` does, with the input's own topology documents only;
    /// the captures are freed before the reports are rendered.
    fn analyze_one(
        &self,
        path: &Path,
        formats: &[Format],
    ) -> Result<(Analysis, Vec<(Format, String)>), String> {
        let read =
            self.prepare(Request::new([path.to_path_buf()]), &mut ()).map_err(|e| e.to_string())?;
        let mut analysis = self.analyze_read(&read, &mut ());
        let ReadRequest { captures, listed, .. } = read;
        drop(captures);
        analysis.inputs.extend(listed);
        let reports = formats
            .iter()
            .map(|&f| self.render(&analysis, f).map(|text| (f, text)).map_err(|e| e.to_string()))
            .collect::<Result<Vec<_>, _>>()?;
        Ok((analysis, reports))
    }
}

/// The report's verdict as the index shows it: the report's pointer to its own sections
/// ("(see below)") means nothing in an index.
fn index_verdict(verdict: String) -> String {
    verdict.replace(" (see below)", "")
}

fn entry_of(
    input: String,
    analysis: &Analysis,
    verdict: String,
    estimate: u64,
    seconds: f64,
) -> BatchEntry {
    let count = |s: Severity| analysis.findings.iter().filter(|f| f.severity == s).count();
    // Findings are most severe first: the first is the worst.
    let worst = analysis.findings.first().map(|f| WorstFinding {
        rule: f.rule.clone(),
        severity: f.severity,
        subject: f.subject.clone(),
        title: f.title.clone(),
    });
    BatchEntry {
        input,
        status: BatchStatus::Analyzed,
        verdict: Some(verdict),
        verdict_status: Some(analysis.verdict.status),
        vm: analysis.vm.clone(),
        worst,
        critical: count(Severity::Critical),
        warning: count(Severity::Warning),
        info: count(Severity::Info),
        not_evaluated: analysis.not_evaluated.len(),
        reports: Vec::new(),
        error: None,
        memory_estimate_bytes: estimate,
        seconds,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_lets_an_oversized_job_run_alone_and_waits_for_room() {
        let budget = Budget { limit: 100, state: Mutex::new(0), freed: Condvar::new() };
        budget.take(250); // nothing runs: it goes, alone
        assert_eq!(*budget.state.lock().unwrap(), 250);
        std::thread::scope(|s| {
            let waiter = s.spawn(|| {
                budget.take(10); // must wait until the 250 is given back
                *budget.state.lock().unwrap()
            });
            std::thread::sleep(std::time::Duration::from_millis(50));
            assert!(!waiter.is_finished(), "a job started beyond the budget");
            budget.give_back(250);
            assert_eq!(waiter.join().unwrap(), 10);
        });
    }

    #[test]
    fn estimates_follow_the_bytes_and_unpacked_archives() {
        let dir = std::env::temp_dir().join(format!("advisor-batch-est-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("bundle")).unwrap();
        std::fs::write(dir.join("plain.csv"), vec![b'x'; 1000]).unwrap();
        std::fs::write(dir.join("bundle/a.txt"), vec![b'x'; 600]).unwrap();
        std::fs::write(dir.join("bundle/b.txt"), vec![b'x'; 400]).unwrap();
        let mut gz = vec![0x1f, 0x8b];
        gz.resize(1000, 0);
        std::fs::write(dir.join("c.tar.gz"), gz).unwrap();
        assert_eq!(memory_estimate(&dir.join("plain.csv"), 1 << 30), BASE_ESTIMATE + 3000);
        assert_eq!(memory_estimate(&dir.join("bundle"), 1 << 30), BASE_ESTIMATE + 3000);
        assert_eq!(memory_estimate(&dir.join("c.tar.gz"), 1 << 30), BASE_ESTIMATE + 30_000);
        // capped by what a bundle may unpack to
        assert_eq!(memory_estimate(&dir.join("c.tar.gz"), 5000), BASE_ESTIMATE + 15_000);
        assert_eq!(memory_estimate(&dir.join("missing"), 1 << 30), BASE_ESTIMATE);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
