//! Sessions of one process are independent: what one is built with (`--counters`) never
//! changes what another reads, also when both read at once (the Python package and the MCP
//! server hold several in one process).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use advisor_engine::{Input, Session};

/// A counter-name table of a language advisor does not ship (Hungarian, one counter; the
/// name as PAL's CounterLang.xml gives it, as in tests/it/locales.rs).
const HUNGARIAN: &str = "language = \"Hungarian\"\ntag = \"hu-HU\"\nsources = [\"https://github.com/clinthuffman/PAL/blob/3046f15bba97f052431035dfcb49c5e54718e403/PAL2/PALWizard/bin/Debug/CounterLang.xml (huHU)\"]\n\n[objects.PhysicalDisk]\nname = \"Fizikai lemez\"\n[objects.PhysicalDisk.counters]\n\"Disk Write Bytes/sec\" = \"Írási sebesség (bájt/s)\"\n";

/// A PerfMon capture whose only counter has its Hungarian name.
const CAPTURE: &str = "\"(PDH-CSV 4.0) (W. Europe Standard Time)(-60)\",\"\\\\SRV\\Fizikai lemez(2 E:)\\Írási sebesség (bájt/s)\"\r\n\"01/02/2026 10:00:00.000\",\"1048576\"\r\n\"01/02/2026 10:00:01.000\",\"2097152\"\r\n";

fn temp_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("advisor-sessions-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// What `session` makes of the capture: the notes of a read, or the error.
fn read(session: &Session, input: Input) -> Result<Vec<String>, String> {
    session.read(input).map(|c| c.meta.notes).map_err(|e| e.to_string())
}

#[test]
fn counter_tables_belong_to_their_session() {
    let dir = temp_dir();
    let table = dir.join("hu-HU.toml");
    std::fs::write(&table, HUNGARIAN).unwrap();
    let path = dir.join("hu.csv");
    std::fs::write(&path, CAPTURE).unwrap();

    // Built in this order, a table kept by the process would reach the second session.
    let with = Session::builder().counters([&table]).build().unwrap();
    let without = Session::builder().build().unwrap();

    let inputs = || {
        [
            Input::Path(path.clone()),
            Input::Bytes { name: "hu.csv".into(), bytes: CAPTURE.as_bytes().to_vec() },
        ]
    };
    // Both sessions at once, from several threads, on the file (read in pieces) and on the
    // bytes (read whole).
    std::thread::scope(|s| {
        let mut handles = Vec::new();
        for _ in 0..3 {
            for input in inputs() {
                let i = input.clone();
                handles.push(s.spawn(|| (true, read(&with, i))));
                handles.push(s.spawn(|| (false, read(&without, input))));
            }
        }
        for h in handles {
            let (has_table, got) = h.join().unwrap();
            if has_table {
                let notes = got.unwrap_or_else(|e| panic!("the session with the table: {e}"));
                assert!(
                    notes.iter().any(|n| n.starts_with("counter names are Hungarian (hu-HU)")),
                    "{notes:?}"
                );
            } else {
                let e = got.expect_err("the session without the table must not read Hungarian");
                assert!(e.contains("do not hold these names"), "{e}");
            }
        }
    });
    let _ = std::fs::remove_dir_all(&dir);
}
