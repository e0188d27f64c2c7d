//! The reader registry: every input advisor recognises, in one table.
//!
//! [`FORMATS`] lists the formats advisor reads (each a [`CaptureFormat`] in its own folder:
//! its id and name, how it is recognised, its reader) and, between them, the files people
//! attach instead of a capture ([`Refusal`]: sar, a zip, raw `/proc/diskstats`, ...), which
//! are refused with what they look like and what to capture instead. Detection
//! ([`detect`]), the "Supported: ..." sentence of refusals ([`supported`]), `advisor
//! inspect`'s format names (through [`Format`]) and the registry's tests all read this table.
//!
//! Adding a format: a folder with the reader and a `CaptureFormat` for it, one line here,
//! its fixtures under `fixtures/captures/<id>/` (CONTRIBUTING.md, "Add a capture format").

use std::borrow::Cow;
use std::sync::Arc;

use advisor_model::{Format, RawCapture};

use crate::decode::{self, Decoding};
use crate::error::{ErrorKind, IngestError};
use crate::perfmon::Language;
use crate::{azure_monitor, diskspd, fio, iostat, perfmon, refusals, sar, sql_file_stats};

/// Every input advisor recognises, in the order detection tries them: the first row that
/// claims the input decides (a [`Sniff::Fallback`] claim only when no row does). The
/// formats are listed in the order the "Supported: ..." sentence names them.
pub const FORMATS: &[Entry] = &[
    Entry::Refuse(&refusals::ZIP),
    Entry::Refuse(&refusals::EMPTY_ZIP),
    Entry::Refuse(&refusals::GZIP),
    Entry::Refuse(&refusals::SEVEN_ZIP),
    Entry::Refuse(&refusals::RAR),
    Entry::Refuse(&refusals::ZSTD),
    Entry::Refuse(&refusals::BZIP2),
    Entry::Refuse(&refusals::XZ),
    Entry::Refuse(&refusals::OFFICE),
    Entry::Refuse(&refusals::PDF),
    Entry::Refuse(&refusals::PNG),
    Entry::Refuse(&refusals::JPEG),
    Entry::Refuse(&refusals::ELF),
    Entry::Refuse(&refusals::WINDOWS_EXE),
    Entry::Refuse(&refusals::SA_BINARY),
    Entry::Refuse(&refusals::BINARY),
    Entry::Read(&perfmon::PerfmonCsv),
    Entry::Read(&iostat::IostatText),
    Entry::Read(&sar::SADF_CSV),
    Entry::Read(&sar::SADF_JSON),
    Entry::Read(&iostat::IostatJson),
    Entry::Read(&sar::SADF_XML),
    Entry::Read(&diskspd::DiskspdXml),
    Entry::Read(&diskspd::DiskspdText),
    Entry::Read(&fio::FioJson),
    Entry::Read(&azure_monitor::AzureMonitorJson),
    Entry::Read(&sql_file_stats::SqlFileStats),
    Entry::Read(&sar::SarText),
    Entry::Refuse(&refusals::DISKSTATS),
    Entry::Refuse(&refusals::FIO_TERSE),
    Entry::Refuse(&refusals::FIO_NORMAL),
    Entry::Refuse(&refusals::FIO_LOG),
    Entry::Refuse(&refusals::FIO_JOB_FILE),
    Entry::Refuse(&refusals::DISKSPD_ERROR),
];

/// A row of [`FORMATS`].
#[derive(Clone, Copy)]
pub enum Entry {
    /// A format advisor reads.
    Read(&'static dyn CaptureFormat),
    /// Something that is not a capture, refused with what it looks like.
    Refuse(&'static Refusal),
}

impl std::fmt::Debug for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Read(r) => write!(f, "Read({})", r.format().id()),
            Self::Refuse(r) => write!(f, "Refuse({})", r.looks_like),
        }
    }
}

/// A format advisor reads: its identity, how it is recognised, and its reader.
pub trait CaptureFormat: Sync {
    /// Id, name, and whether it is a benchmark's summary.
    fn format(&self) -> Format;

    /// How the "Supported: ..." sentence names it (`None`: named with the row before).
    fn supported(&self) -> Option<&'static str>;

    /// Whether the start of a file is this format.
    fn sniff(&self, head: &Head<'_>) -> Sniff;

    /// Reads a decoded file of this format. Readers other than PerfMon's return the
    /// samples in plain columns and drop the text.
    fn read<'t>(&self, file: &str, text: Cow<'t, str>) -> Result<Read<'t>, IngestError>;

    /// [`CaptureFormat::read`] with the PerfMon counter-name tables in force (those of
    /// `--counters` first, then the shipped ones); only a format whose names are localized
    /// reads them.
    fn read_with<'t>(
        &self,
        file: &str,
        text: Cow<'t, str>,
        counter_tables: &[Arc<Language>],
    ) -> Result<Read<'t>, IngestError> {
        let _ = counter_tables;
        self.read(file, text)
    }
}

impl std::fmt::Debug for dyn CaptureFormat + '_ {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CaptureFormat({})", self.format().id())
    }
}

/// What a format's [`CaptureFormat::sniff`] says of a file.
#[derive(Debug)]
pub enum Sniff {
    No,
    Yes,
    /// This format, unless another row of the table claims the file (a loose signature).
    Fallback,
    /// The format's tool wrote this, but it holds no results (fio's error message alone).
    Refuse(ErrorKind),
}

/// The start of a file, as detection sees it.
#[derive(Debug, Clone, Copy)]
pub struct Head<'a> {
    /// The file's first bytes, undecoded (magic numbers).
    pub bytes: &'a [u8],
    /// The decoded first [`HEAD`] bytes, without a BOM and leading blank lines.
    pub text: &'a str,
}

impl<'a> Head<'a> {
    /// The first line of [`Head::text`].
    pub fn first_line(&self) -> &'a str {
        self.text.lines().next().unwrap_or("")
    }
}

/// How many leading bytes detection looks at.
pub const HEAD: usize = 64 * 1024;

/// A file that is not a capture: what it looks like, what to do instead, how to tell.
#[derive(Debug)]
pub struct Refusal {
    /// "this looks like {looks_like}, which advisor does not read".
    pub looks_like: &'static str,
    /// What to capture or do instead.
    pub hint: Option<&'static str>,
    pub test: Test,
    /// A short input this row refuses (the registry's tests check every row with it).
    pub example: &'static [u8],
}

/// How a [`Refusal`] recognises a file.
#[derive(Debug)]
pub enum Test {
    /// The file starts with these bytes.
    Magic(&'static [u8]),
    /// A test of the decoded start of the file.
    Text(fn(&Head<'_>) -> bool),
}

impl Refusal {
    fn matches(&self, head: &Head<'_>) -> bool {
        match self.test {
            Test::Magic(m) => head.bytes.starts_with(m),
            Test::Text(f) => f(head),
        }
    }
}

/// What a format's reader returns: reading flows one way, from bytes through the reader to
/// the one step (in `advisor-normalize`) that builds the canonical frame.
#[derive(Debug)]
pub enum Read<'t> {
    /// Samples in plain columns (iostat, DiskSpd, fio).
    Table(RawCapture),
    /// A PerfMon CSV: the header read and the column plan, and the text, whose data lines
    /// are scanned and parsed by `advisor-normalize` (in pieces when read from a file).
    Csv { plan: perfmon::Header, text: Cow<'t, str> },
}

/// A file read by its format's reader, and what its decoder found.
#[derive(Debug)]
pub struct Reading<'b> {
    pub format: Format,
    pub decoding: Decoding,
    pub read: Read<'b>,
}

/// The readers of [`FORMATS`], in table order.
pub fn readers() -> impl Iterator<Item = &'static dyn CaptureFormat> {
    FORMATS.iter().filter_map(|e| match e {
        Entry::Read(r) => Some(*r),
        Entry::Refuse(_) => None,
    })
}

/// The reader of a format.
pub fn reader(format: Format) -> Option<&'static dyn CaptureFormat> {
    readers().find(|r| r.format() == format)
}

/// The supported formats as users are told of them, from [`FORMATS`]: one phrase per
/// format (or family of formats named together), in table order. Every list of formats a
/// user sees (error messages, `advisor --help`, the upload page, the API's and the MCP
/// tools' descriptions) is made of these.
pub fn supported_formats() -> Vec<&'static str> {
    readers().filter_map(|r| r.supported()).collect()
}

/// The supported formats, as a sentence for error messages, from [`FORMATS`].
pub fn supported() -> String {
    supported_formats().join(", ")
}

/// Detects the format of a file from its first bytes; file names are never consulted (a
/// ticket's attachments are called `capture.txt` or `perf (2).csv` whatever they hold).
///
/// Refusals name what the input looks like and what is supported.
pub fn detect(file: &str, bytes: &[u8]) -> Result<&'static dyn CaptureFormat, IngestError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(IngestError::new(file, None, ErrorKind::Empty));
    }
    let decoded = decode::decode_head(bytes, HEAD);
    let text = decoded.trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n']);
    let head = Head { bytes, text };
    let mut fallback = None;
    for entry in FORMATS {
        match entry {
            Entry::Read(r) => match r.sniff(&head) {
                Sniff::No => {}
                Sniff::Yes => return Ok(*r),
                Sniff::Fallback => {
                    fallback.get_or_insert(*r);
                }
                Sniff::Refuse(kind) => return Err(IngestError::new(file, None, kind)),
            },
            Entry::Refuse(r) if r.matches(&head) => {
                return Err(IngestError::not_supported(
                    file,
                    r.looks_like,
                    r.hint.map(str::to_owned),
                ));
            }
            Entry::Refuse(_) => {}
        }
    }
    fallback.ok_or_else(|| {
        IngestError::not_supported(file, "text in none of the supported formats", None)
    })
}

/// The format of a file, detected from its first bytes (see [`detect`]).
pub fn sniff(file: &str, bytes: &[u8]) -> Result<Format, IngestError> {
    detect(file, bytes).map(|r| r.format())
}

/// Reads a file: detects its format, decodes it, and runs the format's reader.
pub fn read<'b>(file: &str, bytes: &'b [u8]) -> Result<Reading<'b>, IngestError> {
    read_as(detect(file, bytes)?, file, bytes)
}

/// [`read`] with these PerfMon counter-name tables
/// ([`perfmon::counters::names::with_shipped`]).
pub fn read_with<'b>(
    file: &str,
    bytes: &'b [u8],
    counter_tables: &[Arc<Language>],
) -> Result<Reading<'b>, IngestError> {
    read_as_with(detect(file, bytes)?, file, bytes, counter_tables)
}

/// [`read_as`] with these PerfMon counter-name tables: for a file whose format was detected
/// already (from its first piece, when it was read in pieces), so that it is not detected
/// twice.
pub fn read_as_with<'b>(
    reader: &dyn CaptureFormat,
    file: &str,
    bytes: &'b [u8],
    counter_tables: &[Arc<Language>],
) -> Result<Reading<'b>, IngestError> {
    let decoded = decode::decode(bytes);
    let decoding = decoded.decoding();
    let read = reader.read_with(file, decoded.text, counter_tables)?;
    Ok(Reading { format: reader.format(), decoding, read })
}

/// Reads a file with a given reader, without detection (fuzzing one reader, say).
pub fn read_as<'b>(
    reader: &dyn CaptureFormat,
    file: &str,
    bytes: &'b [u8],
) -> Result<Reading<'b>, IngestError> {
    let decoded = decode::decode(bytes);
    let decoding = decoded.decoding();
    let read = reader.read(file, decoded.text)?;
    Ok(Reading { format: reader.format(), decoding, read })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn detect(s: &str) -> Result<Format, String> {
        sniff("x", s.as_bytes()).map_err(|e| e.to_string())
    }

    #[test]
    fn ids_are_unique_and_kebab_case() {
        let ids: Vec<&str> = readers().map(|r| r.format().id()).collect();
        for (i, id) in ids.iter().enumerate() {
            assert!(!ids[..i].contains(id), "{id} twice");
            assert!(id.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'), "{id}");
        }
        assert!(ids.len() >= 6, "{ids:?}");
    }

    /// Every file under `fixtures/captures/<id>/` is detected as the format `<id>`, and every
    /// format has such fixtures.
    #[test]
    fn every_format_detects_its_fixtures() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/captures");
        for r in readers() {
            let id = r.format().id();
            let mut n = 0;
            for entry in std::fs::read_dir(root.join(id)).into_iter().flatten().flatten() {
                let path = entry.path();
                let Ok(bytes) = std::fs::read(&path) else { continue };
                // READMEs and the scripts that made the fixtures.
                if !path.is_file() || path.extension().is_some_and(|e| e == "md" || e == "py") {
                    continue;
                }
                let got = sniff(&path.display().to_string(), &bytes).map(|f| f.id());
                assert_eq!(got.as_ref().ok(), Some(&id), "{}: {got:?}", path.display());
                n += 1;
            }
            assert!(n > 0, "no fixtures for {id} in fixtures/captures/{id}/");
        }
    }

    /// Every refusal refuses its example with its own words: no row is hidden by another.
    #[test]
    fn every_refusal_refuses_its_example() {
        for entry in FORMATS {
            let Entry::Refuse(r) = entry else { continue };
            let e = sniff("x", r.example).map_err(|e| e.to_string());
            let message = e.err().unwrap_or_default();
            assert!(
                message.contains(&format!("this looks like {},", r.looks_like)),
                "{}: {message}",
                r.looks_like
            );
        }
    }

    #[test]
    fn the_supported_sentence_names_every_format() {
        assert_eq!(
            supported(),
            "PerfMon CSV (typeperf/relog), iostat text (iostat -x -t 1), iostat JSON \
             (iostat -x -t -o JSON 1), DiskSpd XML (-Rxml) or text, fio JSON \
             (--output-format=json), Azure Monitor metrics JSON (az monitor metrics list), SQL \
             Server file statistics (sys.dm_io_virtual_file_stats with sys.master_files, as CSV \
             or FOR JSON), sar text (sar -A, sar -d -p -u) and sadf -d, -j or -x output (sadf \
             saDD -- -d -p -u)"
        );
    }

    /// The user guide's "What is read" table (`docs/formats.md`) has a row for every format
    /// the registry names, by the words its phrase starts with (`| sar text |`).
    #[test]
    fn the_guide_has_a_row_for_every_format() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/formats.md");
        let guide = std::fs::read_to_string(root).unwrap();
        for phrase in supported_formats() {
            let head = phrase.split(" (").next().unwrap_or(phrase);
            assert!(
                guide.contains(&format!("\n| {head} |")),
                "docs/formats.md has no row for {head}"
            );
        }
    }

    #[test]
    fn detects_by_content() {
        assert_eq!(
            detect(
                "\"(PDH-CSV 4.0) (GMT Standard Time)(0)\",\"\\\\H\\PhysicalDisk(0 C:)\\Disk Reads/sec\"\r\n"
            ),
            Ok(perfmon::FORMAT)
        );
        assert_eq!(
            detect("Linux 5.4 (h)\t01/01/20\t_x86_64_\t(8 CPU)\n\nDevice r/s w/s\nsda 1 2\n"),
            Ok(iostat::TEXT)
        );
        assert_eq!(detect("{\"sysstat\": {\"hosts\": []}}"), Ok(iostat::JSON));
        assert_eq!(detect("fio: warning\n{\n\"fio version\" : \"fio-3.33\"}"), Ok(fio::FORMAT));
        assert_eq!(detect("<Results><System></System></Results>"), Ok(diskspd::XML));
        assert_eq!(
            detect("\nCommand Line: diskspd -b8K c:\\x.dat\n\nInput parameters:\n"),
            Ok(diskspd::TEXT)
        );
    }

    #[test]
    fn refuses_neighbours() {
        let e = detect("fio: engine libaio not loadable\n").unwrap_err();
        assert!(
            e.contains("fio wrote no results, only its error: fio: engine libaio not loadable"),
            "{e}"
        );
        assert!(detect("PK\x03\x04abc").unwrap_err().contains("zip"));
        assert!(
            detect("   8       0 sda 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15\n")
                .unwrap_err()
                .contains("/proc/diskstats")
        );
        assert_eq!(detect("22:53:58   tps rkB/s DEV\n22:53:59 1.0 2.0 vda\n"), Ok(sar::FORMAT));
        assert!(detect("\u{96}\u{d5}").is_err());
        assert!(detect("").unwrap_err().contains("empty"));
        assert!(detect("hello world\n").unwrap_err().contains("none of the supported formats"));
    }
}
