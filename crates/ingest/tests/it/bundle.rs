//! Bundles on arbitrary input: no bytes make opening an archive panic, and no entry name
//! passes the path check with a way out of the bundle.

#![allow(clippy::panic, clippy::expect_used, clippy::unwrap_used)] // tests fail by panicking

use advisor_ingest::bundle::{Limits, classify, open_archive, safe_path};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn no_bytes_after_an_archive_magic_make_opening_panic(
        magic in prop::sample::select(vec![&b"PK\x03\x04"[..], &b"PK\x05\x06"[..], &b"\x1f\x8b"[..], &b"\x1f\x8b\x08\x00"[..]]),
        rest in prop::collection::vec(any::<u8>(), 0..2048),
    ) {
        let mut bytes = magic.to_vec();
        bytes.extend_from_slice(&rest);
        let limits = Limits { max_total: 1 << 20, ..Limits::default() };
        if let Ok(members) = open_archive("fuzz.zip", &bytes, &limits) {
            let total: usize = members.iter().map(|m| m.bytes.len()).sum();
            prop_assert!(total as u64 <= limits.max_total);
            for m in members {
                prop_assert!(!m.path.split('/').any(|p| p == ".."));
                let _ = classify(&m.path, &m.bytes);
            }
        }
    }

    #[test]
    fn a_checked_path_never_leaves_the_bundle(name in "[a-zA-Z0-9./\\\\:_ -]{0,40}") {
        if let Ok(p) = safe_path("a.zip", &name) {
            prop_assert!(!p.starts_with('/'));
            prop_assert!(!p.contains('\\'));
            prop_assert!(!p.split('/').any(|c| c == ".." || c == "." || c.is_empty()) || p.is_empty());
            let b = p.as_bytes();
            prop_assert!(!(b.len() >= 2 && b[1] == b':' && b[0].is_ascii_alphabetic()), "{p}");
        }
    }
}
