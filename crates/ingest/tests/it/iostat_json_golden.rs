//! Golden outputs of the iostat JSON reader, recorded from the two readers it replaced (a
//! streaming one for documents laid out as sysstat writes them, and a general one over a
//! `serde_json::Value`, which also recovered cut documents): the reader must give exactly
//! what they gave, capture, warnings and errors included, on
//!
//! - every iostat JSON file of `fixtures/` and of `../shared` (a full `Debug` dump each),
//! - those files cut short every 31 bytes (as a killed iostat leaves them),
//! - those files with the keys of their objects in reverse order, at every level or in the
//!   hosts only (`statistics` before `nodename` and `date`, `disk` before `timestamp`),
//! - 3,000 generated documents, mostly as sysstat writes them, with odd ones among them
//!   (keys out of order or twice, values of other types, hosts or entries missing, text
//!   around the document, cuts): the generator of the old readers' comparison test.
//!
//! The cuts and generated documents are recorded as one line each (a 64-bit FNV-1a hash of
//! the `Debug` dump, and a short summary), so the snapshot stays small. Recorded with
//! `INSTA_UPDATE=always`; a change to any line is a change of what users see.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use advisor_ingest::IngestError;
use advisor_ingest::iostat::read_json;
use advisor_model::RawCapture;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The iostat JSON files: the fixtures, then `../shared`'s (when it is there), by name.
fn files() -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    let mut dirs = vec![("fixtures", root().join("fixtures/captures/iostat-json"))];
    let shared = root().join("../shared");
    if shared.is_dir() {
        dirs.push(("samples", shared.join("samples/iostat-json")));
        dirs.push(("generated", shared.join("generated/iostat")));
    } else {
        eprintln!("note: {} is absent; its files are not checked", shared.display());
    }
    for (label, dir) in dirs {
        let mut here: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        here.sort();
        for p in here {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            out.push((format!("{label}/{name}"), p));
        }
    }
    out
}

fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// One line: the hash of the whole `Debug` dump and what it is, in short.
fn line(r: &Result<RawCapture, IngestError>) -> String {
    let hash = fnv1a(&format!("{r:?}"));
    let what = match r {
        Ok(c) => format!(
            "ok {} rows, {} since boot, {} targets, {} warnings",
            c.table.len(),
            c.since_boot.as_ref().map_or(0, |t| t.len()),
            c.meta.targets.len(),
            c.meta.warnings.len()
        ),
        Err(e) => format!("error {e}"),
    };
    format!("{hash:016x} {what}")
}

#[test]
fn real_files_read_as_recorded() {
    let files = files();
    assert!(files.len() >= 6, "{files:?}");
    for (name, path) in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let dump = format!("{:#?}", read_json(&name, &text));
        let snap = name.replace('/', "__").trim_end_matches(".json").to_owned();
        insta::assert_snapshot!(snap, dump);
    }
}

#[test]
fn cut_files_read_as_recorded() {
    let mut out = String::new();
    for (name, path) in files() {
        let text = std::fs::read_to_string(&path).unwrap();
        for end in (0..text.len()).step_by(31).filter(|e| text.is_char_boundary(*e)) {
            let r = read_json("f.json", &text[..end]);
            writeln!(out, "{name} cut at {end}: {}", line(&r)).unwrap();
        }
    }
    insta::assert_snapshot!("cuts", out);
}

/// `v` with the keys of its objects in reverse order: at every depth, or (`deep` false) in
/// the objects at `depth` only.
fn reversed(v: &serde_json::Value, deep: bool, depth: usize) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::Object(m) => {
            let mut pairs: Vec<(String, Value)> = m
                .iter()
                .map(|(k, v)| (k.clone(), reversed(v, deep, depth.wrapping_sub(1))))
                .collect();
            if deep || depth == 0 {
                pairs.reverse();
            }
            Value::Object(pairs.into_iter().collect())
        }
        Value::Array(a) => Value::Array(a.iter().map(|v| reversed(v, deep, depth)).collect()),
        other => other.clone(),
    }
}

#[test]
fn reordered_files_read_as_recorded() {
    let mut out = String::new();
    for (name, path) in files() {
        let text = std::fs::read_to_string(&path).unwrap();
        let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) else { continue };
        // {"sysstat": {"hosts": [HOST]}}: a host is an object at depth 2 (arrays do not count).
        for (what, deep, depth) in [("every object", true, 0), ("hosts", false, 2)] {
            let doc = serde_json::to_string_pretty(&reversed(&v, deep, depth)).unwrap();
            let r = read_json("f.json", &doc);
            writeln!(out, "{name}, keys reversed in {what}: {}", line(&r)).unwrap();
        }
    }
    insta::assert_snapshot!("reordered", out);
}

#[test]
fn generated_documents_read_as_recorded() {
    let mut out = String::new();
    for seed in 0..3000u64 {
        // An odd state: xorshift never leaves 0.
        let mut rng = Rng(2 * seed + 1);
        let doc = document(&mut rng);
        let r = read_json("f.json", &doc);
        writeln!(out, "{seed}: {}", line(&r)).unwrap();
    }
    insta::assert_snapshot!("generated", out);
}

// ---------------------------------------------------------------------------------------
// The document generator (unchanged from the old readers' comparison test, so that a seed
// makes the same document).

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.below(from.len())]
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

fn object(pairs: &[(String, String)]) -> String {
    let body: Vec<String> = pairs.iter().map(|(k, v)| format!("{k:?}: {v}")).collect();
    format!("{{{}}}", body.join(", "))
}

/// Reorders, duplicates or drops a pair now and then: shapes sysstat does not write.
fn shuffle(rng: &mut Rng, pairs: &mut Vec<(String, String)>, percent: usize) {
    if pairs.len() > 1 && rng.chance(percent) {
        let (a, b) = (rng.below(pairs.len()), rng.below(pairs.len()));
        pairs.swap(a, b);
    }
    if !pairs.is_empty() && rng.chance(3) {
        let p = pairs[rng.below(pairs.len())].clone();
        pairs.push(p);
    }
    if !pairs.is_empty() && rng.chance(3) {
        pairs.remove(rng.below(pairs.len()));
    }
}

/// An iostat JSON document, mostly as sysstat writes it, with odd values in places.
fn document(rng: &mut Rng) -> String {
    let numbers = ["0.00", "12.5", "100", "-1.5", "1e13", "7", "0", "99.99"];
    let odd = ["null", "\"x\"", "true", "[]", "{}", "[1, {\"a\": 2}]", "\"12\""];
    let stamps = [
        "\"11/21/26 10:00:00\"",
        "\"21/11/26 10:00:00\"",
        "\"2026-11-21T10:00:00+0530\"",
        "\"2026-11-21T10:00:00-0700\"",
        "\"1606829600\"",
        "\"11/05/2026 01:30:00 PM\"",
        "\"garbage\"",
        "3",
    ];
    let keys = [
        "r/s",
        "w/s",
        "rkB/s",
        "wkB/s",
        "rrqm/s",
        "r_await",
        "w_await",
        "aqu-sz",
        "util",
        "rareq-sz",
        "f/s",
        "bogus",
        "tps",
        "kB_read/s",
        "avgrq-sz",
        "rkB",
    ];
    let devices = ["\"sda\"", "\"sda1\"", "\"nvme0n1\"", "\" data\"", "\"  \"", "4", "\"dm-0\""];
    let mut hosts = Vec::new();
    for h in 0..1 + rng.below(2) {
        let mut host = Vec::new();
        if rng.chance(90) {
            let name = if rng.chance(90) { format!("\"vm{h}\"") } else { "1".to_owned() };
            host.push(("nodename".to_owned(), name));
        }
        host.push(("sysname".to_owned(), "\"Linux\"".to_owned()));
        if rng.chance(90) {
            let date = rng.pick(&["\"11/21/26\"", "\"21/11/26\"", "\"2026-11-21\"", "null"]);
            host.push(("date".to_owned(), date.to_owned()));
        }
        let mut stats = Vec::new();
        for _ in 0..rng.below(4) {
            let mut stat = Vec::new();
            if rng.chance(85) {
                stat.push(("timestamp".to_owned(), rng.pick(&stamps).to_owned()));
            }
            if rng.chance(80) {
                let mut cpu = vec![
                    ("user".to_owned(), rng.pick(&numbers).to_owned()),
                    ("system".to_owned(), rng.pick(&numbers).to_owned()),
                ];
                if rng.chance(85) {
                    let idle = if rng.chance(85) { rng.pick(&numbers) } else { rng.pick(&odd) };
                    cpu.push(("idle".to_owned(), idle.to_owned()));
                }
                shuffle(rng, &mut cpu, 4);
                stat.push(("avg-cpu".to_owned(), object(&cpu)));
            }
            if rng.chance(90) {
                let mut disks = Vec::new();
                // The same keys for every disk of a report, mostly.
                let n_keys = 1 + rng.below(6);
                let chosen: Vec<&str> = (0..n_keys).map(|_| rng.pick(&keys)).collect();
                for _ in 0..rng.below(4) {
                    let mut disk = Vec::new();
                    if rng.chance(92) {
                        disk.push(("disk_device".to_owned(), rng.pick(&devices).to_owned()));
                    }
                    for k in &chosen {
                        let v = if rng.chance(90) { rng.pick(&numbers) } else { rng.pick(&odd) };
                        disk.push(((*k).to_owned(), v.to_owned()));
                    }
                    shuffle(rng, &mut disk, 4);
                    disks.push(if rng.chance(97) { object(&disk) } else { "7".to_owned() });
                }
                let list = if rng.chance(97) {
                    format!("[{}]", disks.join(", "))
                } else {
                    "{}".to_owned()
                };
                stat.push(("disk".to_owned(), list));
            }
            shuffle(rng, &mut stat, 15);
            stats.push(if rng.chance(97) { object(&stat) } else { "[]".to_owned() });
        }
        if rng.chance(95) {
            host.push(("statistics".to_owned(), format!("[\n{}\n]", stats.join(",\n"))));
        }
        shuffle(rng, &mut host, 30);
        hosts.push(object(&host));
    }
    let mut sysstat = vec![("hosts".to_owned(), format!("[{}]", hosts.join(", ")))];
    shuffle(rng, &mut sysstat, 4);
    let mut doc = object(&[("sysstat".to_owned(), object(&sysstat))]);
    if rng.chance(5) {
        doc = format!("junk before\n{doc}");
    }
    if rng.chance(5) {
        doc.push_str("\n trailing junk");
    }
    if rng.chance(15) {
        // Cut short, as a killed iostat leaves it.
        let mut cut = rng.below(doc.len());
        while !doc.is_char_boundary(cut) {
            cut -= 1;
        }
        doc.truncate(cut);
    }
    doc
}
