//! Collector bundles: a folder, a `.tar.gz` or a `.zip` holding captures and the documents
//! that describe the VM (what `collect/collect-linux.sh` and `collect/collect-windows.ps1`
//! write), opened in memory and sorted into captures, the collector's manifest, and other
//! documents.
//!
//! Archives are hostile input. Entries are read into memory, never extracted to disk by
//! their names; the total uncompressed size, the ratio of uncompressed to archive bytes and
//! the number of entries are capped ([`Limits`]), counted on the bytes actually inflated,
//! never on sizes the archive declares; absolute paths, `..` components, links and device
//! entries are refused with an error naming the archive and the entry. Archives inside a
//! bundle are not opened.

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

/// Counts the bytes an archive inflates to, against the limits.
struct Budget<'a> {
    archive: &'a str,
    archive_len: u64,
    limits: Limits,
    total: u64,
    entries: usize,
}

impl Budget<'_> {
    fn entry(&mut self, name: &str) -> Result<(), IngestError> {
        self.entries += 1;
        if self.entries > self.limits.max_entries {
            return Err(refuse(
                self.archive,
                name,
                format_args!("more than {} entries", self.limits.max_entries),
            ));
        }
        Ok(())
    }

    /// Reads one entry whole, stopping at the first byte past a limit.
    fn read(&mut self, name: &str, r: impl Read) -> Result<Vec<u8>, IngestError> {
        let mut out = Vec::new();
        match self.fill(r, &mut out) {
            Ok(()) => Ok(out),
            Err(Over::Io(e)) => Err(refuse(self.archive, name, format_args!("unreadable ({e})"))),
            Err(Over::Limit(why)) => Err(refuse(self.archive, name, why)),
        }
    }

    /// Appends what `r` gives to `out`, counting every byte against the limits.
    fn fill(&mut self, mut r: impl Read, out: &mut Vec<u8>) -> Result<(), Over> {
        let mut buf = [0u8; 64 * 1024];
        loop {
            let n = match r.read(&mut buf) {
                Ok(0) => return Ok(()),
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(Over::Io(e)),
            };
            self.total += n as u64;
            if self.total > self.limits.max_total {
                return Err(Over::Limit(format!(
                    "the archive unpacks to more than {} MiB (the limit)",
                    self.limits.max_total >> 20
                )));
            }
            let ratio_cap = self.archive_len.max(1).saturating_mul(self.limits.max_ratio);
            if self.total > self.limits.ratio_floor && self.total > ratio_cap {
                return Err(Over::Limit(format!(
                    "the archive unpacks to more than {} times its size ({} bytes), the mark \
                     of a zip bomb",
                    self.limits.max_ratio, self.archive_len
                )));
            }
            out.extend_from_slice(&buf[..n]);
        }
    }
}

/// Why [`Budget::fill`] stopped.
enum Over {
    Io(std::io::Error),
    Limit(String),
}

/// The path of the last entry whose header is whole in a tar cut short (the entry being
/// inflated when a limit was reached).
fn last_tar_entry(partial: &[u8]) -> Option<String> {
    let mut tar = tar::Archive::new(Cursor::new(partial));
    let mut last = None;
    for entry in tar.entries().ok()? {
        let Ok(entry) = entry else { break };
        last = Some(String::from_utf8_lossy(&entry.path_bytes()).into_owned());
    }
    last
}

/// Opens an archive held in memory: every regular file, by its checked path.
pub fn open_archive(
    archive: &str,
    bytes: &[u8],
    limits: &Limits,
) -> Result<Vec<Member>, IngestError> {
    let mut budget =
        Budget { archive, archive_len: bytes.len() as u64, limits: *limits, total: 0, entries: 0 };
    match ArchiveKind::of(bytes) {
        Some(ArchiveKind::Zip) => open_zip(bytes, &mut budget),
        Some(ArchiveKind::Gzip) => open_gzip(bytes, &mut budget),
        None => Err(whole(archive, "not a zip or gzip archive")),
    }
}

fn open_zip(bytes: &[u8], budget: &mut Budget<'_>) -> Result<Vec<Member>, IngestError> {
    let archive = budget.archive;
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
        budget.entry(&raw)?;
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
        let data = budget.read(&raw, file)?;
        out.push(Member { path, bytes: data });
    }
    Ok(out)
}

/// The `ustar` magic at offset 257 of a tar header (POSIX and GNU).
fn is_tar(head: &[u8]) -> bool {
    head.len() >= 262 && &head[257..262] == b"ustar"
}

fn open_gzip(bytes: &[u8], budget: &mut Budget<'_>) -> Result<Vec<Member>, IngestError> {
    let archive = budget.archive;
    // Inflate under the budget first (the whole stream counts), then read the tar from
    // memory: a tar's own headers cannot make it read more.
    let mut inflated = Vec::new();
    match budget.fill(flate2::read::MultiGzDecoder::new(bytes), &mut inflated) {
        Ok(()) => {}
        Err(Over::Io(_)) => {
            return Err(whole(archive, "not a readable gzip stream (truncated or corrupt)"));
        }
        Err(Over::Limit(why)) => {
            let entry = if is_tar(&inflated) { last_tar_entry(&inflated) } else { None };
            return Err(refuse(archive, entry.as_deref().unwrap_or("(the gzip stream)"), why));
        }
    }
    if !is_tar(&inflated) {
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
        return Ok(vec![Member { path: name, bytes: inflated }]);
    }
    let mut tar = tar::Archive::new(Cursor::new(inflated.as_slice()));
    let entries =
        tar.entries().map_err(|e| whole(archive, format_args!("not a readable tar ({e})")))?;
    let mut out = Vec::new();
    for (i, entry) in entries.enumerate() {
        let mut entry = entry.map_err(|e| {
            whole(archive, format_args!("entry {}: unreadable tar header ({e})", i + 1))
        })?;
        let raw = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        let kind = entry.header().entry_type();
        if kind.is_pax_global_extensions()
            || kind.is_pax_local_extensions()
            || kind.is_gnu_longname()
        {
            continue;
        }
        budget.entry(&raw)?;
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
        let mut data = Vec::new();
        entry
            .read_to_end(&mut data)
            .map_err(|e| refuse(archive, &raw, format_args!("unreadable ({e})")))?;
        out.push(Member { path, bytes: data });
    }
    Ok(out)
}

/// Reads a folder (the collector's, unpacked by hand): regular files up to two folders
/// deep, within the limits. Links are not followed.
pub fn open_dir(dir: &Path, limits: &Limits) -> Result<Opened, IngestError> {
    let shown = dir.display().to_string();
    let mut budget = Budget {
        archive: &shown,
        archive_len: u64::MAX / limits.max_ratio.max(1),
        limits: *limits,
        total: 0,
        entries: 0,
    };
    let mut opened = Opened::default();
    walk(dir, "", 0, &mut budget, &mut opened)?;
    opened.members.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(opened)
}

/// How deep a folder bundle is read (the collector writes one level; an archive unpacked
/// into a folder of its own adds one).
const MAX_DEPTH: usize = 3;

fn walk(
    dir: &Path,
    prefix: &str,
    depth: usize,
    budget: &mut Budget<'_>,
    opened: &mut Opened,
) -> Result<(), IngestError> {
    let shown = budget.archive.to_owned();
    let io = |e: std::io::Error| IngestError::new(shown.clone(), None, ErrorKind::Io(e));
    let mut names: Vec<_> =
        std::fs::read_dir(dir).map_err(io)?.collect::<Result<_, _>>().map_err(io)?;
    names.sort_by_key(|e| e.file_name());
    for e in names {
        let name = e.file_name().to_string_lossy().into_owned();
        let rel = if prefix.is_empty() { name.clone() } else { format!("{prefix}/{name}") };
        budget.entry(&rel)?;
        let meta = std::fs::symlink_metadata(e.path()).map_err(io)?;
        if meta.file_type().is_symlink() {
            opened.skipped.push((rel, "a symbolic link, not followed".to_owned()));
        } else if meta.is_dir() {
            if depth + 1 >= MAX_DEPTH {
                opened.skipped.push((rel, format!("a folder deeper than {MAX_DEPTH} levels")));
            } else {
                walk(&e.path(), &rel, depth + 1, budget, opened)?;
            }
        } else if meta.is_file() {
            let file = std::fs::File::open(e.path()).map_err(io)?;
            let bytes = budget.read(&rel, file)?;
            opened.members.push(Member { path: rel, bytes });
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

/// Sorts a bundle's file: a capture (by the reader registry's detection), the manifest,
/// another text document, or nothing advisor reads (with why).
pub fn classify(file: &str, bytes: &[u8]) -> Result<Part, IngestError> {
    if ArchiveKind::of(bytes).is_some() {
        return Ok(Part::Ignored(
            "an archive inside the bundle: not opened (pass it on its own)".to_owned(),
        ));
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
