//! Counter names in other display languages. Windows writes a counter log's object and
//! counter names in the display language of the account that collected it, and relog cannot
//! translate them: `\PhysicalDisk(2 E:)\Disk Reads/sec` is
//! `\Physikalischer Datenträger(2 E:)\Lesevorgänge/s` on a German server.
//!
//! The names are data, not code: one TOML file per language in the repository's `counters/`
//! folder (embedded here), plus the files a user passes with `--counters FILE`. A header is
//! translated once, cell by cell, into the English names the counter map knows
//! ([`translate`]); the values are never touched.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use advisor_model::Location;
use rust_embed::RustEmbed;
use serde::Deserialize;

use super::super::path::{CounterPath, parse_counter_path};
use crate::IngestError;

/// The shipped tables: `counters/*.toml` at the repository root.
#[derive(RustEmbed)]
#[folder = "../../counters/"]
#[include = "*.toml"]
struct Shipped;

const DISK: &[&str] = &[
    "Disk Reads/sec",
    "Disk Writes/sec",
    "Disk Transfers/sec",
    "Disk Read Bytes/sec",
    "Disk Write Bytes/sec",
    "Disk Bytes/sec",
    "Avg. Disk sec/Read",
    "Avg. Disk sec/Write",
    "Avg. Disk sec/Transfer",
    "Avg. Disk Bytes/Read",
    "Avg. Disk Bytes/Write",
    "Avg. Disk Bytes/Transfer",
    "Avg. Disk Queue Length",
    "Avg. Disk Read Queue Length",
    "Avg. Disk Write Queue Length",
    "Current Disk Queue Length",
    "% Idle Time",
    "% Disk Time",
    "Split IO/Sec",
];
const CPU: &[&str] = &["% Processor Time"];
const MEMORY: &[&str] = &["Available MBytes", "Available KBytes", "Available Bytes", "Pages/sec"];

/// The English objects a table may name, each with the English counters it may translate:
/// the counters advisor reads (and Split IO/Sec, listed as ignored by its English name).
pub const OBJECTS: &[(&str, &[&str])] = &[
    ("PhysicalDisk", DISK),
    ("LogicalDisk", DISK),
    ("Processor", CPU),
    ("Processor Information", CPU),
    ("Memory", MEMORY),
];

/// One language's names for the objects and counters advisor reads.
#[derive(Debug, Clone, PartialEq)]
pub struct Language {
    /// The language in English (`German`).
    pub name: String,
    /// Its tag (`de-DE`).
    pub tag: String,
    /// Where the table comes from: `counters/de-DE.toml`, or the `--counters` file.
    pub origin: String,
    objects: Vec<ObjectNames>,
}

#[derive(Debug, Clone, PartialEq)]
struct ObjectNames {
    english: &'static str,
    /// The object's name in this language, lowercased for matching.
    local: String,
    /// (English counter, local name lowercased).
    counters: Vec<(&'static str, String)>,
}

impl Language {
    fn object(&self, object_lower: &str) -> impl Iterator<Item = &ObjectNames> {
        self.objects.iter().filter(move |o| o.local == object_lower)
    }

    /// The English object and counter (when known) of a localized pair, lowercased input.
    fn english(
        &self,
        object_lower: &str,
        counter_lower: &str,
    ) -> Option<(&'static str, Option<&'static str>)> {
        let mut first = None;
        for o in self.object(object_lower) {
            if let Some((en, _)) = o.counters.iter().find(|(_, l)| l == counter_lower) {
                return Some((o.english, Some(en)));
            }
            first.get_or_insert((o.english, None));
        }
        first
    }

    /// How many English names this table translates (objects and counters).
    pub fn len(&self) -> usize {
        self.objects.iter().map(|o| 1 + o.counters.len()).sum()
    }

    /// Whether the table names nothing.
    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }
}

/// A table file as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TableFile {
    language: String,
    tag: String,
    /// Where the names come from (URLs): required, the names are facts.
    sources: Vec<String>,
    /// Names of [`OBJECTS`] no source gave: said, not guessed.
    #[serde(default)]
    #[allow(dead_code)]
    not_sourced: Vec<String>,
    objects: BTreeMap<String, ObjectFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ObjectFile {
    name: String,
    #[serde(default)]
    counters: BTreeMap<String, String>,
}

fn line_col(text: &str, offset: usize) -> Location {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() as u64 + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) as u64 + 1;
    Location::line(line, col)
}

/// Reads one table (`origin` names it in errors and in `advisor inspect`).
///
/// Errors name the file and the line:column: bad TOML, an object or counter advisor does
/// not read, an empty name, no `sources`.
pub fn parse(origin: &str, text: &str) -> Result<Language, IngestError> {
    let doc: TableFile = toml::from_str(text).map_err(|e| {
        let at = e.span().map(|s| line_col(text, s.start));
        IngestError::invalid(origin, at, format!("not a counter table: {}", e.message()))
    })?;
    let at_key = |key: &str| {
        text.find(key).map(|i| line_col(text, i)).or_else(|| Some(Location::line(1, 1)))
    };
    let bad = |key: &str, why: String| IngestError::invalid(origin, at_key(key), why);
    if doc.sources.iter().all(|s| s.trim().is_empty()) {
        return Err(bad(
            "sources",
            "`sources` is empty: say where the names come from (a URL per source)".to_owned(),
        ));
    }
    if doc.language.trim().is_empty() || doc.tag.trim().is_empty() {
        return Err(bad("language", "`language` and `tag` must not be empty".to_owned()));
    }
    let mut objects = Vec::new();
    for (english, obj) in &doc.objects {
        let Some((english, known)) = OBJECTS.iter().find(|(o, _)| o == english) else {
            let names: Vec<&str> = OBJECTS.iter().map(|(o, _)| *o).collect();
            return Err(bad(
                english,
                format!(
                    "`objects.{english}` is not an object advisor reads (it reads {})",
                    names.join(", ")
                ),
            ));
        };
        if obj.name.trim().is_empty() {
            return Err(bad(english, format!("`objects.{english}.name` is empty")));
        }
        let mut counters = Vec::new();
        for (en, local) in &obj.counters {
            let Some(en) = known.iter().find(|k| *k == en) else {
                return Err(bad(
                    en,
                    format!(
                        "`{en}` is not a {english} counter advisor reads (it reads {})",
                        known.join(", ")
                    ),
                ));
            };
            if local.trim().is_empty() {
                return Err(bad(en, format!("the {english} counter `{en}` has an empty name")));
            }
            counters.push((*en, local.trim().to_lowercase()));
        }
        objects.push(ObjectNames { english, local: obj.name.trim().to_lowercase(), counters });
    }
    Ok(Language {
        name: doc.language.trim().to_owned(),
        tag: doc.tag.trim().to_owned(),
        origin: origin.to_owned(),
        objects,
    })
}

/// Reads a `--counters FILE` (UTF-8, with or without a BOM).
pub fn load(path: &std::path::Path) -> Result<Language, IngestError> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path)
        .map_err(|e| IngestError::invalid(&name, None, format!("cannot read the file: {e}")))?;
    let text = std::str::from_utf8(bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes)).map_err(
        |e| {
            IngestError::invalid(
                &name,
                None,
                format!("a counter table is UTF-8 text (byte {} is not)", e.valid_up_to()),
            )
        },
    )?;
    parse(&name, text)
}

/// The shipped tables, in file-name order.
pub fn shipped() -> Vec<Result<Language, IngestError>> {
    let mut files: Vec<String> = Shipped::iter().map(|f| f.into_owned()).collect();
    files.sort();
    files
        .into_iter()
        .filter_map(|f| {
            let data = Shipped::get(&f)?;
            let origin = format!("counters/{f}");
            Some(match std::str::from_utf8(&data.data) {
                Ok(text) => parse(&origin, text),
                Err(_) => Err(IngestError::invalid(&origin, None, "not UTF-8")),
            })
        })
        .collect()
}

/// The shipped tables, read once per process (they are compiled in, so every session
/// shares them).
pub fn shipped_tables() -> &'static [Arc<Language>] {
    static SHIPPED: OnceLock<Vec<Arc<Language>>> = OnceLock::new();
    // A shipped table that does not read is a build mistake the tests catch
    // (`every_shipped_table_reads`); at run time it is left out rather than panicking.
    SHIPPED.get_or_init(|| shipped().into_iter().flatten().map(Arc::new).collect())
}

/// The tables a reader uses: `extra` (those of `--counters FILE`, in the order they are
/// to be tried) first, then the shipped ones. Held by whoever reads (a session), never by
/// the process: two sessions with different `--counters` read side by side.
pub fn with_shipped(extra: Vec<Language>) -> Vec<Arc<Language>> {
    extra.into_iter().map(Arc::new).chain(shipped_tables().iter().cloned()).collect()
}

/// The language of a localized object name, from the tables (`None` when no table has it).
pub fn language_of_object(object: &str, languages: &[Arc<Language>]) -> Option<String> {
    let o = object.trim().to_lowercase();
    languages.iter().find(|l| l.object(&o).next().is_some()).map(|l| l.name.clone())
}

/// A header in English, and what it was in.
#[derive(Debug, Clone)]
pub struct Translated {
    /// The header cells, those of the chosen language rewritten with English names; the
    /// others as written.
    pub headers: Vec<String>,
    /// The language read, `None` for English (or when no cell names a table's object).
    pub language: Option<Arc<Language>>,
    /// Cells translated.
    pub translated: usize,
}

/// Whether an English object and counter are a pair advisor reads.
fn english_pair(object: &str, counter: &str) -> bool {
    OBJECTS.iter().any(|(o, cs)| {
        o.eq_ignore_ascii_case(object) && cs.iter().any(|c| c.eq_ignore_ascii_case(counter))
    })
}

fn rebuild(path: &CounterPath<'_>, object: &str, counter: &str) -> String {
    let host = path.host.map(|h| format!("\\\\{h}")).unwrap_or_default();
    match path.instance {
        Some(i) => format!("{host}\\{object}({i})\\{counter}"),
        None => format!("{host}\\{object}\\{counter}"),
    }
}

/// Picks the header's language and rewrites its cells into English names, once per header.
///
/// Each cell whose object and counter a table knows is a vote for that table's language
/// (English counts its own names). English wins when it has any vote, as a capture with
/// English names was always read so; otherwise the language with the most votes (the first
/// table on a tie). Cells of other languages stay as written: the counter map lists them
/// as localized and ignored, with a warning naming their language.
pub fn translate(headers: &[String], languages: &[Arc<Language>]) -> Translated {
    let mut votes = vec![0usize; languages.len()];
    let mut english_votes = 0usize;
    let paths: Vec<Option<(CounterPath<'_>, String, String)>> = headers
        .iter()
        .enumerate()
        .map(|(i, h)| {
            if i == 0 {
                return None;
            }
            let p = parse_counter_path(h)?;
            Some((p, p.object.trim().to_lowercase(), p.counter.trim().to_lowercase()))
        })
        .collect();
    for (p, o, c) in paths.iter().flatten() {
        if english_pair(p.object.trim(), p.counter.trim()) {
            english_votes += 1;
        }
        for (k, lang) in languages.iter().enumerate() {
            if matches!(lang.english(o, c), Some((_, Some(_)))) {
                votes[k] += 1;
            }
        }
    }
    let chosen = if english_votes > 0 {
        None
    } else {
        let best = votes.iter().copied().max().unwrap_or(0);
        (best > 0).then(|| votes.iter().position(|v| *v == best)).flatten()
    };
    let Some(k) = chosen else {
        return Translated { headers: headers.to_vec(), language: None, translated: 0 };
    };
    let lang = &languages[k];
    let mut out = headers.to_vec();
    let mut translated = 0;
    for (cell, entry) in out.iter_mut().zip(&paths) {
        let Some((p, o, c)) = entry else { continue };
        if let Some((object, counter)) = lang.english(o, c) {
            *cell = rebuild(p, object, counter.unwrap_or(p.counter.trim()));
            translated += 1;
        }
    }
    Translated { headers: out, language: Some(Arc::clone(lang)), translated }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shipped_tables() -> Vec<Arc<Language>> {
        shipped().into_iter().map(|r| Arc::new(r.unwrap_or_else(|e| panic!("{e}")))).collect()
    }

    fn header(cells: &[&str]) -> Vec<String> {
        std::iter::once("(PDH-CSV 4.0)").chain(cells.iter().copied()).map(str::to_owned).collect()
    }

    #[test]
    fn every_shipped_table_reads_and_names_each_counter_once() {
        let tables = shipped_tables();
        let tags: Vec<&str> = tables.iter().map(|l| l.tag.as_str()).collect();
        for tag in [
            "de-DE", "fr-FR", "es-ES", "it-IT", "pt-BR", "ru-RU", "zh-CN", "ko-KR", "pl-PL",
            "nl-NL", "sv-SE", "tr-TR", "cs-CZ",
        ] {
            assert!(tags.contains(&tag), "{tag} missing from {tags:?}");
        }
        for l in &tables {
            assert_eq!(l.origin, format!("counters/{}.toml", l.tag));
            assert!(!l.is_empty(), "{}", l.tag);
            for o in &l.objects {
                let mut names: Vec<&str> = o.counters.iter().map(|(_, n)| n.as_str()).collect();
                names.sort_unstable();
                let n = names.len();
                names.dedup();
                assert_eq!(n, names.len(), "{} {}: a name given to two counters", l.tag, o.english);
            }
        }
    }

    #[test]
    fn a_german_header_becomes_english_once() {
        let tables = shipped_tables();
        let h = header(&[
            r"\\SQLVM01\Physikalischer Datenträger(2 E:)\Lesevorgänge/s",
            r"\\SQLVM01\Physikalischer Datenträger(2 E:)\Lesezeit (%)",
            r"\\SQLVM01\Prozessorinformationen(_Total)\Prozessorzeit (%)",
            r"\\SQLVM01\Arbeitsspeicher\Verfügbare MB",
            r"\\SQLVM01\SQLServer:Buffer Manager\Page life expectancy",
        ]);
        let t = translate(&h, &tables);
        assert_eq!(t.language.as_ref().map(|l| l.tag.as_str()), Some("de-DE"));
        assert_eq!(t.translated, 4);
        assert_eq!(t.headers[1], r"\\SQLVM01\PhysicalDisk(2 E:)\Disk Reads/sec");
        // A counter no table holds keeps its name under the English object.
        assert_eq!(t.headers[2], r"\\SQLVM01\PhysicalDisk(2 E:)\Lesezeit (%)");
        assert_eq!(t.headers[3], r"\\SQLVM01\Processor Information(_Total)\% Processor Time");
        assert_eq!(t.headers[4], r"\\SQLVM01\Memory\Available MBytes");
        assert_eq!(t.headers[5], h[5]);
    }

    #[test]
    fn english_names_stay_english_and_mixed_files_are_read_in_one_language() {
        let tables = shipped_tables();
        let en =
            header(&[r"\\H\PhysicalDisk(0 C:)\Disk Reads/sec", r"\\H\Memory\Available MBytes"]);
        let t = translate(&en, &tables);
        assert!(t.language.is_none());
        assert_eq!(t.headers, en);
        // English wins a merge: the Russian cells stay as written (and are warned about).
        let mixed = header(&[
            r"\\RU\Физический диск(0 C:)\Обращений к диску/с",
            r"\\RU\Память\Доступно МБ",
            r"\\EN\PhysicalDisk(0 C:)\Disk Reads/sec",
        ]);
        let t = translate(&mixed, &tables);
        assert!(t.language.is_none());
        assert_eq!(t.headers, mixed);
        // Two table languages: the one with more counters is read.
        let two = header(&[
            r"\\RU\Физический диск(0 C:)\Обращений к диску/с",
            r"\\RU\Память\Доступно МБ",
            r"\\DE\Physikalischer Datenträger(0 C:)\Lesevorgänge/s",
        ]);
        let t = translate(&two, &tables);
        assert_eq!(t.language.as_ref().map(|l| l.tag.as_str()), Some("ru-RU"));
        assert_eq!(t.headers[3], two[3]);
    }

    #[test]
    fn a_user_table_is_checked_with_file_and_line() {
        let ok = "language = \"Hungarian\"\ntag = \"hu-HU\"\nsources = [\"https://example.org/list\"]\n\n[objects.PhysicalDisk]\nname = \"Fizikai lemez\"\n[objects.PhysicalDisk.counters]\n\"Disk Write Bytes/sec\" = \"Írási sebesség (bájt/s)\"\n";
        let hu = parse("hu.toml", ok).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((hu.name.as_str(), hu.len()), ("Hungarian", 2));
        let h = header(&[r"\\H\Fizikai lemez(0 C:)\Írási sebesség (bájt/s)"]);
        let t = translate(&h, &[Arc::new(hu)]);
        assert_eq!(t.headers[1], r"\\H\PhysicalDisk(0 C:)\Disk Write Bytes/sec");

        let typo = ok.replace("Disk Write Bytes/sec", "Disk Write Byte/sec");
        let e = parse("hu.toml", &typo).map(|_| ()).unwrap_err().to_string();
        assert!(
            e.starts_with("hu.toml:8:2: `Disk Write Byte/sec` is not a PhysicalDisk counter"),
            "{e}"
        );
        let object = ok.replace("objects.PhysicalDisk", "objects.Process");
        let e = parse("hu.toml", &object).map(|_| ()).unwrap_err().to_string();
        assert!(e.contains("`objects.Process` is not an object advisor reads"), "{e}");
        let e =
            parse("hu.toml", "language = \"x\"\ntag = 3\n").map(|_| ()).unwrap_err().to_string();
        assert!(e.starts_with("hu.toml:2:7: not a counter table"), "{e}");
        let none = ok.replace("[\"https://example.org/list\"]", "[]");
        let e = parse("hu.toml", &none).map(|_| ()).unwrap_err().to_string();
        assert!(e.contains("`sources` is empty"), "{e}");
    }
}
