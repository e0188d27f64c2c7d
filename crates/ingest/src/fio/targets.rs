//! Targets: which job entries of a document are one target (a job, its `numjobs` clones
//! merged), and their names.

use super::options::parse_count;
use super::stats::{Doc, Entry};

/// How [`super::read_with`] reads a capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOptions {
    /// Merge the entries of `numjobs` clones (same job name and group, printed one by one
    /// without `group_reporting`) into one target. When false each clone is its own target,
    /// named `<target>#<n>`.
    pub merge_clones: bool,
}

impl Default for ReadOptions {
    fn default() -> Self {
        Self { merge_clones: true }
    }
}

/// A target: job entries of one (job name, group), or one clone.
#[derive(Debug)]
pub(super) struct Group {
    pub(super) idx: Vec<usize>,
    pub(super) name: String,
    pub(super) files: Vec<String>,
    /// One clone of several, kept apart (`merge_clones: false`).
    pub(super) clone: bool,
}

impl Group {
    /// Processes one entry stands for: `numjobs` for a lone entry (a `group_reporting`
    /// entry sums the group's jobs), 1 for clones printed one by one.
    pub(super) fn jobs_per_entry(&self, first: &Entry) -> u32 {
        if self.clone || self.idx.len() > 1 {
            1
        } else {
            first.options.get("numjobs").and_then(parse_count).unwrap_or(1).max(1)
        }
    }
}

pub(super) fn make_groups(doc: &Doc, opts: ReadOptions) -> Vec<Group> {
    let mut keyed: Vec<((String, i64), Vec<usize>)> = Vec::new();
    for (i, e) in doc.entries.iter().enumerate() {
        let key = (e.jobname.clone(), e.groupid);
        match keyed.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(i),
            None => keyed.push((key, vec![i])),
        }
    }
    let mut out: Vec<(Group, (String, i64))> = Vec::new();
    for (key, idx) in keyed {
        let Some(first) = idx.first().and_then(|&i| doc.entries.get(i)) else { continue };
        let (base, files) = base_name(first);
        if opts.merge_clones || idx.len() == 1 {
            out.push((Group { idx, name: base, files, clone: false }, key));
        } else {
            for (n, i) in idx.iter().enumerate() {
                let g = Group {
                    idx: vec![*i],
                    name: format!("{base}#{}", n + 1),
                    files: files.clone(),
                    clone: true,
                };
                out.push((g, key.clone()));
            }
        }
    }
    // Several jobs on the same file (or several groups of one job) get the job name added.
    let names: Vec<String> = out.iter().map(|(g, _)| g.name.clone()).collect();
    for (g, (job, gid)) in &mut out {
        if names.iter().filter(|n| **n == g.name).count() > 1 && g.name != *job {
            g.name = format!("{} ({job})", g.name);
        }
        let _ = gid;
    }
    let names: Vec<String> = out.iter().map(|(g, _)| g.name.clone()).collect();
    for (g, (_, gid)) in &mut out {
        if names.iter().filter(|n| **n == g.name).count() > 1 {
            g.name = format!("{} (group {gid})", g.name);
        }
    }
    out.into_iter().map(|(g, _)| g).collect()
}

/// The target name of a job: its `filename` (several values joined with `:` as fio lists
/// several files), prefixed by `directory` when relative; else the job name.
pub(super) fn base_name(e: &Entry) -> (String, Vec<String>) {
    let mut names: Vec<&str> = Vec::new();
    for n in e.options.all("filename") {
        if !names.contains(&n) {
            names.push(n);
        }
    }
    let dir = e.options.get("directory").map(|d| d.trim_end_matches('/').to_owned());
    if names.is_empty() {
        return (e.jobname.clone(), Vec::new());
    }
    let mut files: Vec<String> = Vec::new();
    for n in &names {
        for f in split_files(n) {
            let path = match &dir {
                Some(d) if !f.starts_with('/') && !f.contains('\\') && !d.is_empty() => {
                    format!("{d}/{f}")
                }
                _ => f,
            };
            files.push(path);
        }
    }
    let name = if names.len() == 1 && dir.is_none() {
        names.first().map(|s| (*s).to_owned()).unwrap_or_default()
    } else {
        files.join(":")
    };
    (name, files)
}

/// fio separates several files with `:`; `\:` is a literal colon (Windows drive letters).
pub(super) fn split_files(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' && chars.peek() == Some(&':') {
            cur.push(':');
            chars.next();
        } else if c == ':' {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
        } else {
            cur.push(c);
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}
