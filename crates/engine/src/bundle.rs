//! Collector bundles among the inputs: a folder, a `.tar.gz`/`.tgz` or a `.zip` (told by
//! content, never by name) is opened in memory within [`Limits`], its captures become
//! inputs of their own (`bundle.tgz!dir/iostat.json`), its other documents go to the
//! topology when the topology reads them and are listed as ignored with the reason when it
//! does not, and its manifest's facts (host, collection time, tool versions, whether the
//! instance metadata answered) are kept for `inspect` and the report's inputs.

use std::io::Read as _;
use std::path::Path;

use advisor_ingest::IngestError;
use advisor_ingest::bundle::{self, ArchiveKind, Entry, Limits, Manifest, Member, Part};
use advisor_model::InputSummary;
use serde::Serialize;

use crate::session::{EngineError, Input};
use crate::sources;

/// What the inputs hold once bundles are opened.
#[derive(Debug, Default)]
pub(crate) struct Expanded {
    /// Every capture: the inputs that were not bundles, in order, and each bundle's
    /// captures in their place.
    pub inputs: Vec<Input>,
    /// Documents the topology reads, named `bundle!path` (for [`crate::TopologySources`]'s
    /// `texts`).
    pub documents: Vec<(String, String)>,
    /// Each bundle, as opened.
    pub bundles: Vec<BundleSummary>,
}

/// One bundle as opened: where each of its files went.
#[derive(Debug, Clone, Serialize)]
pub struct BundleSummary {
    /// The bundle as given (a path, or an upload's file name).
    pub name: String,
    /// `folder`, `zip` or `tar.gz` (`gzip` for one compressed file).
    pub kind: &'static str,
    /// The collector's manifest, when the bundle has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub manifest: Option<Manifest>,
    /// The manifest's file, named `bundle!path`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub manifest_file: Option<String>,
    /// Captures, named `bundle!path`.
    pub captures: Vec<String>,
    /// Documents given to the topology: (name, what it is).
    pub documents: Vec<(String, String)>,
    /// Files not read: (name, why).
    pub ignored: Vec<(String, String)>,
}

impl BundleSummary {
    /// The manifest's facts as lines ("host vm1", "sysstat 12.6.1", "instance metadata:
    /// no answer (...)"), for `inspect` and the report.
    pub fn facts(&self) -> Vec<String> {
        let Some(m) = &self.manifest else { return Vec::new() };
        let mut out = vec![match &m.collector_version {
            Some(v) => format!("collected by {} {v}", m.collector),
            None => format!("collected by {}", m.collector),
        }];
        let mut add = |label: &str, v: &Option<String>| {
            if let Some(v) = v.as_deref().filter(|v| !v.is_empty()) {
                out.push(format!("{label} {v}"));
            }
        };
        add("host", &m.host);
        add("kernel", &m.kernel);
        add("sysstat", &m.sysstat);
        add("Windows", &m.windows);
        add("PowerShell", &m.powershell);
        match (&m.start, &m.end, m.seconds) {
            (Some(s), Some(e), Some(n)) => out.push(format!("from {s} to {e} ({n} s asked)")),
            (Some(s), Some(e), None) => out.push(format!("from {s} to {e}")),
            _ => {}
        }
        out.extend(self.imds_line());
        for c in m.commands.iter().filter(|c| c.exit != 0) {
            out.push(format!("`{}` exited with {} ({})", c.command, c.exit, c.file));
        }
        out
    }

    /// Whether the instance metadata answered, as a line.
    fn imds_line(&self) -> Option<String> {
        let imds = self.manifest.as_ref()?.imds.as_ref()?;
        Some(if imds.answered {
            match imds.elsewhere() {
                Some(url) => format!("instance metadata (IMDS): answered by {url}"),
                None => "instance metadata (IMDS): answered".to_owned(),
            }
        } else if imds.skipped {
            format!(
                "instance metadata (IMDS): not asked ({}); the bundle has no VM size or disk \
                 SKUs: pass --vm SIZE or --topology FILE",
                imds.reason.as_deref().unwrap_or("the collector was told not to")
            )
        } else {
            format!(
                "instance metadata (IMDS): no answer ({}); the bundle has no VM size or disk \
                 SKUs: pass --vm SIZE or --topology FILE",
                imds.reason.as_deref().unwrap_or("no reason given")
            )
        })
    }

    /// The report's inputs for what is not a capture: the manifest, the documents read by
    /// the topology, the files not read.
    pub fn listed(&self) -> Vec<InputSummary> {
        // A path inside an archive may be as long as the archive allows: echoed bounded.
        let entry = |file: &str, format: &str, reason: Option<String>| InputSummary {
            file: advisor_model::bounded(file).into_owned(),
            format: format.to_owned(),
            version: None,
            host: None,
            start: None,
            end: None,
            samples: 0,
            targets: Vec::new(),
            ignored: Vec::new(),
            warnings: Vec::new(),
            reason,
        };
        let mut out = Vec::new();
        if let (Some(m), Some(file)) = (&self.manifest, &self.manifest_file) {
            let mut e = entry(file, "collector-manifest", None);
            e.version = m.collector_version.clone();
            e.host = m.host.clone();
            e.start = m.start.as_deref().map(|s| s.trim_end_matches('Z').to_owned());
            e.end = m.end.as_deref().map(|s| s.trim_end_matches('Z').to_owned());
            e.warnings = self
                .facts()
                .into_iter()
                .skip(1)
                .filter(|f| !f.starts_with("host ") && !f.starts_with("from "))
                .collect();
            out.push(e);
        }
        for (name, what) in &self.documents {
            out.push(entry(name, "topology", Some(format!("read into the topology: {what}"))));
        }
        for (name, why) in &self.ignored {
            out.push(entry(name, "ignored", Some(format!("not read: {why}"))));
        }
        out
    }
}

impl Expanded {
    /// The report's inputs for every bundle's non-capture files.
    pub(crate) fn listed(&self) -> Vec<InputSummary> {
        self.bundles.iter().flat_map(BundleSummary::listed).collect()
    }
}

/// Whether an input is a bundle, and of which kind: a folder, or an archive by its first
/// bytes.
fn kind_of(input: &Input) -> Option<&'static str> {
    let head: Vec<u8> = match input {
        Input::Path(p) if p.is_dir() => return Some("folder"),
        Input::Path(p) => {
            let mut head = [0u8; 4];
            let n = std::fs::File::open(p).and_then(|mut f| f.read(&mut head)).unwrap_or(0);
            head[..n].to_vec()
        }
        Input::Bytes { bytes, .. } => bytes.iter().take(4).copied().collect(),
        Input::Read(_) => return None,
    };
    match ArchiveKind::of(&head)? {
        ArchiveKind::Zip => Some("zip"),
        ArchiveKind::Gzip => Some("tar.gz"),
    }
}

/// Opens every bundle among the inputs (see the module's documentation). Every bundle
/// that cannot be opened is reported, not just the first.
pub(crate) fn expand(inputs: Vec<Input>, limits: &Limits) -> Result<Expanded, EngineError> {
    let mut out = Expanded::default();
    let mut errors = Vec::new();
    for input in inputs {
        let Some(kind) = kind_of(&input) else {
            out.inputs.push(input);
            continue;
        };
        match open(&input, kind, limits) {
            Ok((summary, captures, documents)) => {
                out.inputs.extend(captures);
                out.documents.extend(documents);
                out.bundles.push(summary);
            }
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() { Ok(out) } else { Err(EngineError::Unreadable(errors)) }
}

type Opened = (BundleSummary, Vec<Input>, Vec<(String, String)>);

fn open(input: &Input, kind: &'static str, limits: &Limits) -> Result<Opened, IngestError> {
    let name = input.name();
    // `dir/` and `dir` name one folder.
    let name = match name.trim_end_matches(['/', '\\']) {
        "" => name.clone(),
        trimmed => trimmed.to_owned(),
    };
    // Entries are read as a stream, each held only when its first bytes say it is worth
    // reading: an ignored entry is passed over, never buffered.
    let keep = &bundle::worth_reading;
    let entries: Vec<Entry> = match input {
        Input::Path(p) if kind == "folder" => {
            let opened = bundle::open_dir_with(p, limits, keep)?;
            let skipped =
                opened.skipped.into_iter().map(|(path, why)| Entry::Skipped { path, why });
            skipped.chain(opened.members.into_iter().map(Entry::Read)).collect()
        }
        Input::Path(p) => {
            bundle::open_archive_with(&name, &read_archive(p, &name, limits)?, limits, keep)?
        }
        Input::Bytes { bytes, .. } => bundle::open_archive_with(&name, bytes, limits, keep)?,
        // Never a bundle (`kind_of`).
        Input::Read(_) => Vec::new(),
    };
    let mut summary = BundleSummary {
        name: name.clone(),
        kind,
        manifest: None,
        manifest_file: None,
        captures: Vec::new(),
        documents: Vec::new(),
        ignored: Vec::new(),
    };
    let single = match entries.as_slice() {
        [Entry::Read(Member { path, .. }) | Entry::Skipped { path, .. }] => !path.contains('/'),
        _ => false,
    };
    let kind = if kind == "tar.gz" && single { "gzip" } else { kind };
    summary.kind = kind;
    let mut captures = Vec::new();
    let mut documents = Vec::new();
    for entry in entries {
        let (path, bytes) = match entry {
            Entry::Read(Member { path, bytes }) => (path, bytes),
            Entry::Skipped { path, why } => {
                summary.ignored.push((format!("{name}!{path}"), why));
                continue;
            }
        };
        let full = format!("{name}!{path}");
        match bundle::classify(&full, &bytes)? {
            Part::Capture => {
                summary.captures.push(full.clone());
                captures.push(Input::Bytes { name: full, bytes });
            }
            Part::Manifest(m) => {
                if summary.manifest.is_some() {
                    summary.ignored.push((full, "a second collector manifest".to_owned()));
                } else {
                    summary.manifest = Some(*m);
                    summary.manifest_file = Some(full);
                }
            }
            Part::Document(text) => match sources::document_kind(&full, &text) {
                Ok(what) => {
                    summary.documents.push((full.clone(), what.to_owned()));
                    documents.push((full, text));
                }
                Err(why) => summary.ignored.push((full, why)),
            },
            Part::Ignored(why) => summary.ignored.push((full, why)),
        }
    }
    if summary.captures.is_empty()
        && summary.manifest.is_none()
        && summary.documents.is_empty()
        && summary.ignored.is_empty()
    {
        return Err(IngestError::invalid(&name, None, format!("an empty {kind}: no file in it")));
    }
    Ok((summary, captures, documents))
}

/// An archive on disk, read whole when it is within the limits.
fn read_archive(path: &Path, name: &str, limits: &Limits) -> Result<Vec<u8>, IngestError> {
    let io = |e| IngestError::new(name, None, advisor_ingest::ErrorKind::Io(e));
    let len = std::fs::metadata(path).map_err(io)?.len();
    if len > limits.max_total {
        return Err(IngestError::invalid(
            name,
            None,
            format!(
                "an archive of {} MiB, more than the {} MiB a bundle may unpack to",
                len >> 20,
                limits.max_total >> 20
            ),
        ));
    }
    std::fs::read(path).map_err(io)
}
