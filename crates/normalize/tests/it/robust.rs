//! No input makes the pipeline (sniff, decode, read, normalize) panic: arbitrary bytes,
//! and the project's real fixtures cut short or with bytes flipped. Each run either
//! yields a capture or an error naming the file.

use std::path::{Path, PathBuf};

use proptest::prelude::*;

fn fixtures() -> Vec<(String, Vec<u8>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/captures");
    let mut out = Vec::new();
    let mut stack: Vec<PathBuf> = vec![root];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if !p.extension().is_some_and(|x| x == "md" || x == "py")
                && let Ok(b) = std::fs::read(&p)
            {
                out.push((p.display().to_string(), b));
            }
        }
    }
    out.sort();
    out
}

fn check(file: &str, bytes: &[u8]) {
    match advisor_normalize::read_bytes(file, bytes) {
        Ok(c) => {
            // Whatever was read is internally consistent.
            assert_eq!(c.frame.column("target").map(|t| t.len()).ok(), Some(c.frame.height()));
            let _ = c.summary();
        }
        Err(e) => assert!(e.to_string().starts_with(file), "error must name the file: {e}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..4096)) {
        check("arbitrary.bin", &bytes);
    }

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,2000}") {
        check("arbitrary.txt", text.as_bytes());
    }

    #[test]
    fn damaged_fixtures_never_panic(pick in any::<prop::sample::Index>(),
                                    cut in any::<prop::sample::Index>(),
                                    flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..8)) {
        let all = fixtures();
        prop_assume!(!all.is_empty());
        let (name, bytes) = &all[pick.index(all.len())];
        let mut b = bytes[..cut.index(bytes.len() + 1)].to_vec();
        for (at, v) in flips {
            if !b.is_empty() {
                let i = at.index(b.len());
                b[i] = v;
            }
        }
        check(name, &b);
    }
}

#[test]
fn every_fixture_reads_whole() {
    let all = fixtures();
    assert!(!all.is_empty(), "no fixtures found");
    for (name, bytes) in all {
        let c = advisor_normalize::read_bytes(&name, &bytes).unwrap_or_else(|e| panic!("{e}"));
        assert!(c.frame.height() > 0, "{name}: no rows");
        assert!(!c.metrics().is_empty(), "{name}: no metrics");
    }
}
