//! Helpers shared by the end-to-end tests: the real binary, the repository, ../shared.

#![allow(dead_code, unreachable_pub, clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("repo root")
}

/// `../shared` beside the clone, when it is there (CI has it; a bare clone may not).
pub fn shared() -> Option<PathBuf> {
    let p = repo().join("../shared");
    p.is_dir().then(|| p.canonicalize().expect("shared dir"))
}

/// Runs the real `advisor` binary in `cwd`.
pub fn advisor(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_advisor"))
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .output()
        .expect("run advisor")
}

/// Every regular file below `dir`, sorted, as paths relative to `dir`.
pub fn files_below(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read dir") {
            let p = e.expect("dir entry").path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(dir).expect("below dir").to_path_buf());
            }
        }
    }
    out.sort();
    out
}

/// What a user sees for `advisor inspect FILE`: exit code, stdout, stderr.
pub fn inspect_transcript(cwd: &Path, file: &str) -> (i32, String) {
    let out = advisor(cwd, &["inspect", file]);
    let code = out.status.code().unwrap_or(-1);
    let text = format!(
        "exit: {code}\n--- stdout\n{}--- stderr\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (code, text)
}

/// A snapshot name from a relative path: `samples/fio-json/x.json` -> `samples__fio-json__x.json`.
pub fn snap_name(rel: &Path) -> String {
    rel.to_string_lossy().replace(['/', '\\'], "__")
}

/// Fails on snapshot files in `dir` that no test produced any more (the corpus or the
/// fixtures lost a file): orphans would otherwise linger unnoticed.
pub fn assert_no_orphans(dir: &Path, produced: &[String]) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut orphans = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if let Some(stem) = name.strip_suffix(".snap")
            && !produced.iter().any(|p| p == stem)
        {
            orphans.push(name);
        }
    }
    assert!(orphans.is_empty(), "snapshots no test produces (delete them): {orphans:?}");
}
