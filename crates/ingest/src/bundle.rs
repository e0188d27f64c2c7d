//! Collector bundles: a folder, a `.tar.gz` or a `.zip` holding captures and the documents
//! that describe the VM (what `collect/collect-linux.sh` and `collect/collect-windows.ps1`
//! write), opened in memory and sorted into captures, the collector's manifest, and other
//! documents.
//!
//! Archives are hostile input. They are read as a stream, entry by entry, never extracted
//! to disk by their names; the total uncompressed size, the ratio of uncompressed to
//! archive bytes and the number of entries are capped ([`Limits`]), counted on the bytes
//! actually inflated, never on sizes the archive declares; absolute paths, `..`
//! components, links and device entries are refused with an error naming the archive and
//! the entry. An entry is held in memory only when it is worth reading
//! ([`worth_reading`], from its first bytes): an entry that will be ignored is streamed
//! past. Archives inside a bundle are not opened.

use std::cell::{Cell, RefCell};
use std::io::{Cursor, Read};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{ErrorKind, IngestError};

/// What an archive may unpack to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Uncompressed bytes of all entries together.
    pub max_total: u64,
    /// Uncompressed bytes per archive byte, once past [`Limits::ratio_floor`].
    pub max_ratio: u64,
    /// Uncompressed bytes below which the ratio is not judged (a small text file
    /// compresses far better than 100:1 and is harmless).
    pub ratio_floor: u64,
    /// Entries (files and folders) in one archive or folder.
    pub max_entries: usize,
}

/// A collector's hour of iostat JSON on 64 devices is about 120 MiB, a PerfMon capture of
/// the same hour about 20 MiB: 1 GiB leaves room, and text compresses 5-30 times (iostat
/// JSON, the most repetitive, about 25 times), so 200 is far above a real bundle and far
/// below a bomb's 1000 and more.
impl Default for Limits {
    fn default() -> Self {
        Self { max_total: 1 << 30, max_ratio: 200, ratio_floor: 16 << 20, max_entries: 1000 }
    }
}

/// The kind of archive a file is, from its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArchiveKind {
    Zip,
    /// gzip: a `.tar.gz`, or one gzip-compressed file.
    Gzip,
}

impl ArchiveKind {
    /// The archive a file's first bytes say it is, if any.
    pub fn of(bytes: &[u8]) -> Option<Self> {
        if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06") {
            Some(Self::Zip)
        } else if bytes.starts_with(&[0x1f, 0x8b]) {
            Some(Self::Gzip)
        } else {
            None
        }
    }
}

/// One file of a bundle, in memory: its path inside the bundle (`/`-separated, relative).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    pub path: String,
    pub bytes: Vec<u8>,
}

/// A bundle's files, and those passed over (with why).
#[derive(Debug, Default)]
pub struct Opened {
    pub members: Vec<Member>,
    /// (path, reason): a link in a folder, a nested folder too deep.
    pub skipped: Vec<(String, String)>,
}

fn refuse(archive: &str, entry: &str, why: impl std::fmt::Display) -> IngestError {
    IngestError::new(
        archive,
        None,
        ErrorKind::Invalid(format!("entry `{entry}`: {why}; the archive is refused")),
    )
}

fn whole(archive: &str, why: impl std::fmt::Display) -> IngestError {
    IngestError::new(archive, None, ErrorKind::Invalid(why.to_string()))
}

/// The entry's path with `\` read as `/` (Windows PowerShell 5.1's Compress-Archive writes
/// backslashes), checked: relative, no `..`, no drive letter. Empty components and `.` are
/// dropped.
pub fn safe_path(archive: &str, raw: &str) -> Result<String, IngestError> {
    let unified = raw.replace('\\', "/");
    if unified.starts_with('/') {
        return Err(refuse(archive, raw, "an absolute path"));
    }
    if unified.chars().any(char::is_control) {
        return Err(refuse(archive, raw, "a control character in its name"));
    }
    let mut parts = Vec::new();
    for part in unified.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                return Err(refuse(archive, raw, "a `..` component (a path out of the bundle)"));
            }
            p => {
                // `C:` first, also after `./` (Windows would read it as a drive).
                let b = p.as_bytes();
                if parts.is_empty() && b.len() >= 2 && b[1] == b':' && b[0].is_ascii_alphabetic() {
                    return Err(refuse(archive, raw, "a path with a drive letter"));
                }
                parts.push(p)
            }
        }
    }
    Ok(parts.join("/"))
}

/// What to do with an entry of a bundle, decided from its first bytes ([`worth_reading`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Keep {
    /// Read it whole.
    Whole,
    /// Read it whole while it is at most [`MAX_DOCUMENT`] bytes (a document the topology
    /// may read, or the manifest); past that, pass over the rest.
    Document,
    /// Pass over it without holding it, with why.
    Skip(String),
}

/// One entry of a bundle as opened: read whole, or passed over with why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    Read(Member),
    Skipped { path: String, why: String },
}

/// Bytes of an entry's start that decide whether it is read: the detection of captures
/// reads no more (`formats::HEAD`).
pub const HEAD: usize = crate::formats::HEAD;

/// The largest entry read as a document (the instance metadata, `az` output, a disk map,
/// a topology file, the manifest: kilobytes each): a larger one that is not a capture is
/// passed over unread.
pub const MAX_DOCUMENT: u64 = 16 << 20;

/// Whether an entry whose first bytes are `head` is worth reading (`complete`: the entry
/// ends within them). Captures are read whole; the manifest and other text up to
/// [`MAX_DOCUMENT`]; an archive, a file a reader refuses by its first bytes, or binary
/// data, never: what [`classify`] would say of the whole file from its first
/// [`HEAD`] bytes is said here without reading the rest.
pub fn worth_reading(path: &str, head: &[u8], complete: bool) -> Keep {
    if complete {
        return Keep::Whole;
    }
    if ArchiveKind::of(head).is_some() {
        return Keep::Skip(INNER_ARCHIVE.to_owned());
    }
    let t = head.trim_ascii_start();
    if t.starts_with(b"{") && memchr::memmem::find(t, b"\"advisor-collect").is_some() {
        return Keep::Document;
    }
    match crate::detect(path, head) {
        Ok(_) => Keep::Whole,
        Err(e) => match e.kind {
            // Blank as far as the head goes: the rest decides.
            ErrorKind::Empty => Keep::Document,
            ErrorKind::NotSupported { looks_like, .. } if looks_like == NOT_A_CAPTURE => {
                Keep::Document
            }
            ErrorKind::NotSupported { looks_like, .. } => {
                Keep::Skip(format!("this looks like {looks_like}, which advisor does not read"))
            }
            kind => Keep::Skip(kind.to_string()),
        },
    }
}

/// Counts the bytes an archive inflates to, against the limits.
#[derive(Debug, Clone, Copy)]
struct Budget {
    archive_len: u64,
    limits: Limits,
    total: u64,
    entries: usize,
}

impl Budget {
    fn new(archive_len: u64, limits: &Limits) -> Self {
        Budget { archive_len, limits: *limits, total: 0, entries: 0 }
    }

    fn entry(&mut self, archive: &str, name: &str) -> Result<(), IngestError> {
        self.entries += 1;
        if self.entries > self.limits.max_entries {
            return Err(refuse(
                archive,
                name,
                format_args!("more than {} entries", self.limits.max_entries),
            ));
        }
        Ok(())
    }

    /// Counts `n` more bytes inflated; past a limit, why.
    fn count(&mut self, n: usize) -> Result<(), String> {
        self.total += n as u64;
        if self.total > self.limits.max_total {
            return Err(format!(
                "the archive unpacks to more than {} MiB (the limit)",
                self.limits.max_total >> 20
            ));
        }
        let ratio_cap = self.archive_len.max(1).saturating_mul(self.limits.max_ratio);
        if self.total > self.limits.ratio_floor && self.total > ratio_cap {
            return Err(format!(
                "the archive unpacks to more than {} times its size ({} bytes), the mark of a \
                 zip bomb",
                self.limits.max_ratio, self.archive_len
            ));
        }
        Ok(())
    }
}

/// Why reading an entry stopped.
enum Over {
    Io(std::io::Error),
    Limit(String),
}

/// A buffer read from an entry, its bytes charged against the current work's memory budget
/// as it grows (`advisor_model::work`) and given back if it is dropped unused.
#[derive(Default)]
struct Held {
    bytes: Vec<u8>,
}

impl Held {
    fn push(&mut self, chunk: &[u8]) {
        advisor_model::work::charge(chunk.len() as u64);
        self.bytes.extend_from_slice(chunk);
    }

    fn take(mut self) -> Vec<u8> {
        std::mem::take(&mut self.bytes)
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        advisor_model::work::release(self.bytes.len() as u64);
    }
}

/// Reads one entry as `keep` says from its first bytes: whole, as a document up to
/// [`MAX_DOCUMENT`], or passed over (every byte counted by `count`, none held). Bytes are
/// read 64 KiB at a time; the current work's cancellation is checked at each.
fn take_entry(
    path: String,
    mut r: impl Read,
    count: &mut dyn FnMut(usize) -> Result<(), String>,
    keep: &dyn Fn(&str, &[u8], bool) -> Keep,
) -> Result<Entry, Over> {
    let mut buf = vec![0u8; 64 * 1024];
    let mut next = |r: &mut dyn Read, buf: &mut [u8]| -> Result<usize, Over> {
        advisor_model::work::checkpoint();
        loop {
            match r.read(buf) {
                Ok(n) => {
                    count(n).map_err(Over::Limit)?;
                    return Ok(n);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Over::Io(e)),
            }
        }
    };
    // The head, and one byte more to know whether the entry goes on.
    let mut held = Held::default();
    let mut ended = false;
    while held.bytes.len() <= HEAD {
        let want = (HEAD + 1 - held.bytes.len()).min(buf.len());
        let n = next(&mut r, &mut buf[..want])?;
        if n == 0 {
            ended = true;
            break;
        }
        held.push(&buf[..n]);
    }
    let decision = keep(&path, &held.bytes[..held.bytes.len().min(HEAD)], ended);
    let cap = match &decision {
        Keep::Whole => u64::MAX,
        Keep::Document => MAX_DOCUMENT,
        Keep::Skip(_) => 0,
    };
    let mut skip_why = match decision {
        Keep::Skip(why) => Some(why),
        _ => None,
    };
    if skip_why.is_some() {
        drop(std::mem::take(&mut held));
    }
    // The rest of the entry, when the head did not end it.
    while !ended {
        let n = next(&mut r, &mut buf)?;
        if n == 0 {
            ended = true;
        } else if skip_why.is_none() {
            if held.bytes.len() as u64 + n as u64 > cap {
                drop(std::mem::take(&mut held));
                skip_why = Some(format!(
                    "larger than {} MiB, and in none of the supported formats (not a \
                     document advisor reads)",
                    MAX_DOCUMENT >> 20
                ));
            } else {
                held.push(&buf[..n]);
            }
        }
    }
    Ok(match skip_why {
        Some(why) => Entry::Skipped { path, why },
        None => Entry::Read(Member { path, bytes: held.take() }),
    })
}

/// Opens an archive held in memory: every regular file, by its checked path, read whole.
pub fn open_archive(
    archive: &str,
    bytes: &[u8],
    limits: &Limits,
) -> Result<Vec<Member>, IngestError> {
    let entries = open_archive_with(archive, bytes, limits, &|_, _, _| Keep::Whole)?;
    Ok(entries
        .into_iter()
        .filter_map(|e| match e {
            Entry::Read(m) => Some(m),
            Entry::Skipped { .. } => None,
        })
        .collect())
}

/// Opens an archive held in memory, streaming: each regular file (by its checked path) is
/// read as `keep` says from its first bytes ([`worth_reading`] reads captures and
/// documents, and passes over the rest unheld), in archive order. Every byte inflated
/// counts against `limits`; every byte held is charged against the current work's memory
/// budget.
pub fn open_archive_with(
    archive: &str,
    bytes: &[u8],
    limits: &Limits,
    keep: &dyn Fn(&str, &[u8], bool) -> Keep,
) -> Result<Vec<Entry>, IngestError> {
    let budget = Budget::new(bytes.len() as u64, limits);
    match ArchiveKind::of(bytes) {
        Some(ArchiveKind::Zip) => open_zip(archive, bytes, budget, keep),
        Some(ArchiveKind::Gzip) => open_gzip(archive, bytes, budget, keep),
        None => Err(whole(archive, "not a zip or gzip archive")),
    }
}

fn entry_error(archive: &str, raw: &str, over: Over) -> IngestError {
    match over {
        Over::Io(e) => refuse(archive, raw, format_args!("unreadable ({e})")),
        Over::Limit(why) => refuse(archive, raw, why),
    }
}

fn open_zip(
    archive: &str,
    bytes: &[u8],
    mut budget: Budget,
    keep: &dyn Fn(&str, &[u8], bool) -> Keep,
) -> Result<Vec<Entry>, IngestError> {
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes))
        .map_err(|e| whole(archive, format_args!("not a readable zip archive ({e})")))?;
    if zip.len() > budget.limits.max_entries {
        return Err(whole(
            archive,
            format_args!(
                "{} entries, more than the {} a bundle may hold; the archive is refused",
                zip.len(),
                budget.limits.max_entries
            ),
        ));
    }
    let mut out = Vec::new();
    for i in 0..zip.len() {
        let file = zip
            .by_index(i)
            .map_err(|e| whole(archive, format_args!("entry {}: unreadable ({e})", i + 1)))?;
        let raw = match file.name() {
            Ok(n) => n.into_owned(),
            Err(_) => String::from_utf8_lossy(file.name_raw()).into_owned(),
        };
        budget.entry(archive, &raw)?;
        let path = safe_path(archive, &raw)?;
        if file.is_symlink() {
            return Err(refuse(archive, &raw, "a symbolic link"));
        }
        if file.encrypted() {
            return Err(refuse(archive, &raw, "encrypted"));
        }
        if file.is_dir() {
            continue;
        }
        if let Some(mode) = file.unix_mode() {
            // Regular files only: a FIFO, device or socket marked in the Unix mode.
            let kind = mode & 0o170000;
            if kind != 0 && kind != 0o100000 {
                return Err(refuse(archive, &raw, "not a regular file (a device, FIFO or socket)"));
            }
        }
        let entry = take_entry(path, file, &mut |n| budget.count(n), keep)
            .map_err(|over| entry_error(archive, &raw, over))?;
        out.push(entry);
    }
    Ok(out)
}

/// The `ustar` magic at offset 257 of a tar header (POSIX and GNU).
fn is_tar(head: &[u8]) -> bool {
    head.len() >= 262 && &head[257..262] == b"ustar"
}

/// What went wrong below a tar reader: the gzip stream (corrupt or cut short), or a limit.
#[derive(Default)]
struct Trouble {
    broken: Cell<bool>,
    limit: RefCell<Option<String>>,
}

/// The inflated stream, every byte counted against the limits (tar headers and padding
/// too: the whole stream counts); past a limit, or on a corrupt stream, an error whose
/// cause is kept in [`Trouble`].
struct Counted<'t, R> {
    inner: R,
    budget: Budget,
    trouble: &'t Trouble,
}

impl<R: Read> Read for Counted<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        advisor_model::work::checkpoint();
        let n = self.inner.read(buf).inspect_err(|e| {
            if e.kind() != std::io::ErrorKind::Interrupted {
                self.trouble.broken.set(true);
            }
        })?;
        if let Err(why) = self.budget.count(n) {
            *self.trouble.limit.borrow_mut() = Some(why);
            return Err(std::io::Error::other("a limit of the bundle"));
        }
        Ok(n)
    }
}

fn open_gzip(
    archive: &str,
    bytes: &[u8],
    budget: Budget,
    keep: &dyn Fn(&str, &[u8], bool) -> Keep,
) -> Result<Vec<Entry>, IngestError> {
    let trouble = Trouble::default();
    let mut stream =
        Counted { inner: flate2::read::MultiGzDecoder::new(bytes), budget, trouble: &trouble };
    let mut entries_seen = budget;
    // The last entry whose header was read: the one being inflated when a limit is reached.
    let current: RefCell<Option<String>> = RefCell::new(None);
    let failed = |e: std::io::Error, what: &dyn Fn(std::io::Error) -> IngestError| {
        if let Some(why) = trouble.limit.borrow_mut().take() {
            let entry = current.borrow().clone();
            refuse(archive, entry.as_deref().unwrap_or("(the gzip stream)"), why)
        } else if trouble.broken.get() {
            whole(archive, "not a readable gzip stream (truncated or corrupt)")
        } else {
            what(e)
        }
    };
    // A tar is told by its first header; anything else is one compressed file.
    let mut head = Vec::with_capacity(512);
    (&mut stream)
        .take(512)
        .read_to_end(&mut head)
        .map_err(|e| failed(e, &|e| whole(archive, format_args!("unreadable ({e})"))))?;
    if !is_tar(&head) {
        // One gzip-compressed file (capture.csv.gz): a bundle of one, named without `.gz`.
        let name = Path::new(archive)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| archive.to_owned());
        let name = name
            .strip_suffix(".gz")
            .or_else(|| name.strip_suffix(".GZ"))
            .unwrap_or(&name)
            .to_owned();
        *current.borrow_mut() = Some("(the gzip stream)".to_owned());
        let reader = Cursor::new(head).chain(&mut stream);
        let entry = take_entry(name, reader, &mut |_| Ok(()), keep).map_err(|over| match over {
            Over::Io(e) => failed(e, &|_| whole(archive, "not a readable gzip stream")),
            Over::Limit(why) => whole(archive, why),
        })?;
        return Ok(vec![entry]);
    }
    let mut tar = tar::Archive::new(Cursor::new(head).chain(&mut stream));
    let entries =
        tar.entries().map_err(|e| whole(archive, format_args!("not a readable tar ({e})")))?;
    let mut out = Vec::new();
    for (i, entry) in entries.enumerate() {
        let mut entry = entry.map_err(|e| {
            failed(e, &|e| {
                whole(archive, format_args!("entry {}: unreadable tar header ({e})", i + 1))
            })
        })?;
        let raw = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        *current.borrow_mut() = Some(raw.clone());
        let kind = entry.header().entry_type();
        if kind.is_pax_global_extensions()
            || kind.is_pax_local_extensions()
            || kind.is_gnu_longname()
        {
            continue;
        }
        entries_seen.entry(archive, &raw)?;
        let path = safe_path(archive, &raw)?;
        if kind.is_symlink() {
            return Err(refuse(archive, &raw, "a symbolic link"));
        }
        if kind.is_hard_link() {
            return Err(refuse(archive, &raw, "a hard link"));
        }
        if kind.is_dir() {
            continue;
        }
        if !(kind.is_file() || kind.is_contiguous()) {
            return Err(refuse(
                archive,
                &raw,
                "not a regular file (a device, FIFO or other special entry)",
            ));
        }
        let taken = take_entry(path, &mut entry, &mut |_| Ok(()), keep);
        out.push(taken.map_err(|over| match over {
            Over::Io(e) => failed(e, &|e| refuse(archive, &raw, format_args!("unreadable ({e})"))),
            Over::Limit(why) => refuse(archive, &raw, why),
        })?);
    }
    // The rest of the stream (what follows the tar's end) is read too: a corrupt or cut
    // gzip stream is refused as a whole, wherever the damage is.
    std::io::copy(&mut tar.into_inner(), &mut std::io::sink())
        .map_err(|e| failed(e, &|_| whole(archive, "not a readable gzip stream")))?;
    Ok(out)
}

/// Reads a folder (the collector's, unpacked by hand): regular files up to two folders
/// deep, within the limits, each read whole. Links are not followed.
pub fn open_dir(dir: &Path, limits: &Limits) -> Result<Opened, IngestError> {
    open_dir_with(dir, limits, &|_, _, _| Keep::Whole)
}

/// [`open_dir`], each file read as `keep` says from its first bytes (see
/// [`open_archive_with`]); a file passed over is listed among the skipped.
pub fn open_dir_with(
    dir: &Path,
    limits: &Limits,
    keep: &dyn Fn(&str, &[u8], bool) -> Keep,
) -> Result<Opened, IngestError> {
    let shown = dir.display().to_string();
    let mut budget = Budget::new(u64::MAX / limits.max_ratio.max(1), limits);
    let mut opened = Opened::default();
    walk(&Walk { dir, shown: &shown, keep }, "", 0, &mut budget, &mut opened)?;
    opened.members.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(opened)
}

/// How deep a folder bundle is read (the collector writes one level; an archive unpacked
/// into a folder of its own adds one).
const MAX_DEPTH: usize = 3;

/// A folder being walked: the folder, its name as shown, what to read.
struct Walk<'a> {
    dir: &'a Path,
    shown: &'a str,
    keep: &'a dyn Fn(&str, &[u8], bool) -> Keep,
}

fn walk(
    w: &Walk<'_>,
    prefix: &str,
    depth: usize,
    budget: &mut Budget,
    opened: &mut Opened,
) -> Result<(), IngestError> {
    let io = |e: std::io::Error| IngestError::new(w.shown.to_owned(), None, ErrorKind::Io(e));
    let mut names: Vec<_> =
        std::fs::read_dir(w.dir).map_err(io)?.collect::<Result<_, _>>().map_err(io)?;
    names.sort_by_key(|e| e.file_name());
    for e in names {
        let name = e.file_name().to_string_lossy().into_owned();
        let rel = if prefix.is_empty() { name.clone() } else { format!("{prefix}/{name}") };
        budget.entry(w.shown, &rel)?;
        let meta = std::fs::symlink_metadata(e.path()).map_err(io)?;
        if meta.file_type().is_symlink() {
            opened.skipped.push((rel, "a symbolic link, not followed".to_owned()));
        } else if meta.is_dir() {
            if depth + 1 >= MAX_DEPTH {
                opened.skipped.push((rel, format!("a folder deeper than {MAX_DEPTH} levels")));
            } else {
                let below = e.path();
                walk(&Walk { dir: &below, ..*w }, &rel, depth + 1, budget, opened)?;
            }
        } else if meta.is_file() {
            let file = std::fs::File::open(e.path()).map_err(io)?;
            let entry = take_entry(rel.clone(), file, &mut |n| budget.count(n), w.keep)
                .map_err(|over| entry_error(w.shown, &rel, over))?;
            match entry {
                Entry::Read(m) => opened.members.push(m),
                Entry::Skipped { path, why } => opened.skipped.push((path, why)),
            }
        } else {
            opened.skipped.push((rel, "not a regular file".to_owned()));
        }
    }
    Ok(())
}

/// The collector's `manifest.json`: what was run, where and when, and whether the Azure
/// Instance Metadata Service answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// `advisor-collect-linux` or `advisor-collect-windows`.
    pub collector: String,
    #[serde(default)]
    pub collector_version: Option<String>,
    #[serde(default)]
    pub host: Option<String>,
    #[serde(default)]
    pub os: Option<String>,
    /// Linux: `uname -r`.
    #[serde(default)]
    pub kernel: Option<String>,
    /// Linux: the sysstat version of iostat.
    #[serde(default)]
    pub sysstat: Option<String>,
    /// Windows: the OS version.
    #[serde(default)]
    pub windows: Option<String>,
    #[serde(default)]
    pub powershell: Option<String>,
    #[serde(default)]
    pub seconds: Option<u64>,
    #[serde(default)]
    pub start: Option<String>,
    #[serde(default)]
    pub end: Option<String>,
    #[serde(default)]
    pub imds: Option<ImdsStatus>,
    #[serde(default)]
    pub commands: Vec<CommandRun>,
}

/// Whether the instance metadata answered, and why not.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImdsStatus {
    pub answered: bool,
    /// The collector was told not to ask (`--no-imds`, `-NoImds`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub skipped: bool,
    /// Where it asked, when the collector says (`--imds-url`, `ADVISOR_IMDS_URL`; Azure's
    /// own address by default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default)]
    pub reason: Option<String>,
}

impl ImdsStatus {
    /// Azure's instance metadata address: a document from anywhere else (a stand-in, a
    /// proxy) is said to come from there.
    pub const AZURE_HOST: &'static str = "169.254.169.254";

    /// The URL it was asked at, when that is not Azure's own address.
    pub fn elsewhere(&self) -> Option<&str> {
        let url = self.url.as_deref()?;
        let rest = url.split_once("://").map_or(url, |(_, r)| r);
        let host = rest.split(['/', '?']).next().unwrap_or(rest);
        let host = host.rsplit_once(':').map_or(host, |(h, _)| h);
        (host != Self::AZURE_HOST).then_some(url)
    }
}

/// One command the collector ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommandRun {
    pub file: String,
    pub command: String,
    pub exit: i64,
}

impl Manifest {
    /// The manifest in a document, if it is one: a JSON object whose `collector` starts with
    /// `advisor-collect`. A document that says it is a manifest but does not parse is an
    /// error naming the JSON path.
    pub fn parse(file: &str, bytes: &[u8]) -> Result<Option<Manifest>, IngestError> {
        let decoded = crate::decode::decode(bytes);
        let t = decoded.text.trim_start_matches('\u{feff}').trim_start();
        if !t.starts_with('{') || !t.contains("\"advisor-collect") {
            return Ok(None);
        }
        let value: serde_json::Value = match serde_json::from_str(t) {
            Ok(v) => v,
            Err(e) => {
                return Err(IngestError::invalid(
                    file,
                    Some(advisor_model::Location::line(e.line() as u64, e.column() as u64)),
                    format!("a collector manifest that is not valid JSON: {e}"),
                ));
            }
        };
        let is_manifest = value
            .get("collector")
            .and_then(|c| c.as_str())
            .is_some_and(|c| c.starts_with("advisor-collect"));
        if !is_manifest {
            return Ok(None);
        }
        serde_json::from_value(value).map(Some).map_err(|e| {
            IngestError::invalid(
                file,
                None,
                format!("a collector manifest with a wrong field: {e}"),
            )
        })
    }
}

/// What a file of a bundle is.
#[derive(Debug)]
pub enum Part {
    /// A capture of a format advisor reads (see [`crate::FORMATS`]).
    Capture,
    /// The collector's manifest.
    Manifest(Box<Manifest>),
    /// Text that is not a capture: a document that may describe the VM (the instance
    /// metadata, lsblk, a `/dev/disk/azure` listing, Get-Disk JSON, a topology file), decoded.
    Document(String),
    /// Passed over, with why.
    Ignored(String),
}

/// What the detection of captures says when no row of the table claims a text.
const NOT_A_CAPTURE: &str = "text in none of the supported formats";

/// Why an archive inside a bundle is not read.
const INNER_ARCHIVE: &str = "an archive inside the bundle: not opened (pass it on its own)";

/// Sorts a bundle's file: a capture (by the reader registry's detection), the manifest,
/// another text document, or nothing advisor reads (with why).
pub fn classify(file: &str, bytes: &[u8]) -> Result<Part, IngestError> {
    if ArchiveKind::of(bytes).is_some() {
        return Ok(Part::Ignored(INNER_ARCHIVE.to_owned()));
    }
    if let Some(m) = Manifest::parse(file, bytes)? {
        return Ok(Part::Manifest(Box::new(m)));
    }
    let e = match crate::detect(file, bytes) {
        Ok(_) => return Ok(Part::Capture),
        Err(e) => e,
    };
    Ok(match e.kind {
        ErrorKind::Empty => Part::Ignored("the file is empty".to_owned()),
        ErrorKind::NotSupported { looks_like, .. } if looks_like == NOT_A_CAPTURE => {
            let decoded = crate::decode::decode(bytes);
            if decoded.had_errors {
                Part::Ignored("neither a capture nor text".to_owned())
            } else {
                Part::Document(decoded.text.trim_start_matches('\u{feff}').to_owned())
            }
        }
        ErrorKind::NotSupported { looks_like, .. } => {
            Part::Ignored(format!("this looks like {looks_like}, which advisor does not read"))
        }
        kind => Part::Ignored(kind.to_string()),
    })
}

#[cfg(test)]
mod tests;
