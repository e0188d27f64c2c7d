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

/// Nothing in an HTML page makes a browser fetch anything: no scripts, stylesheets,
/// images, frames, fonts or imports; the only URLs are `<a href>` links a reader may follow.
pub fn assert_html_self_contained(html: &str) {
    let lower = html.to_ascii_lowercase();
    for bad in [
        "<script",
        "<link",
        "<img",
        "<iframe",
        "<object",
        "<embed",
        "<video",
        "<audio",
        "<source",
        "@import",
        "url(",
        " src=",
        "srcset=",
        "xlink:href",
        "<base",
        "xmlns=\"http",
    ] {
        assert!(!lower.contains(bad), "the page references something outside itself: {bad}");
    }
    for (i, _) in lower.match_indices("href=\"") {
        let inside = lower[i + 6..].starts_with('#');
        let link = lower[..i].trim_end().ends_with("<a");
        assert!(inside || link, "href outside an <a> link: {}", &html[i..html.len().min(i + 60)]);
    }
    for (i, _) in lower.match_indices("http") {
        let before = &lower[..i];
        assert!(
            before.ends_with("href=\"") || before.ends_with('>'),
            "a URL outside a link: {}",
            &html[i.saturating_sub(30)..html.len().min(i + 60)]
        );
    }
}

/// Chromium (Debian's `chromium`, or `chromium-browser` / `google-chrome`) when on PATH.
pub fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    for name in ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"] {
        for dir in std::env::split_paths(&path) {
            let p = dir.join(name);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

/// Runs headless Chromium with `args` (offline, a throwaway profile in `dir`), killing it
/// after two minutes.
pub fn run_chromium(browser: &Path, dir: &Path, args: &[&str]) -> Output {
    use std::time::{Duration, Instant};
    let profile = dir.join(format!("profile-{}", std::process::id()));
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .current_dir(dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("start chromium");
    let stdout = child.stdout.take().expect("stdout");
    let stderr = child.stderr.take().expect("stderr");
    let out_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = std::io::Read::read_to_end(&mut { stdout }, &mut buf);
        buf
    });
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = std::io::Read::read_to_end(&mut { stderr }, &mut buf);
        buf
    });
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait chromium") {
            break s;
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("chromium did not finish in two minutes: {args:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    Output {
        status,
        stdout: out_reader.join().unwrap_or_default(),
        stderr: err_reader.join().unwrap_or_default(),
    }
}

/// The boundary of the multipart bodies the server tests send.
pub const BOUNDARY: &str = "advisor-e2e-boundary-51f0";

/// A multipart/form-data body (with [`BOUNDARY`]): (field name, file name or "", content).
pub fn multipart(parts: &[(&str, &str, &[u8])]) -> Vec<u8> {
    let mut body = Vec::new();
    for (name, file, content) in parts {
        body.extend_from_slice(format!("--{BOUNDARY}\r\n").as_bytes());
        let disposition = if file.is_empty() {
            format!("Content-Disposition: form-data; name=\"{name}\"\r\n\r\n")
        } else {
            format!(
                "Content-Disposition: form-data; name=\"{name}\"; filename=\"{file}\"\r\n\
                 Content-Type: application/octet-stream\r\n\r\n"
            )
        };
        body.extend_from_slice(disposition.as_bytes());
        body.extend_from_slice(content);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{BOUNDARY}--\r\n").as_bytes());
    body
}

/// The seed scenario's capture and topology, as an upload sends them.
pub fn scenario() -> (Vec<u8>, Vec<u8>) {
    let dir = repo().join("fixtures/scenarios/ds13v2-temp-disk-throttles-cached-p30");
    (
        std::fs::read(dir.join("capture.csv")).unwrap(),
        std::fs::read(dir.join("topology.toml")).unwrap(),
    )
}

/// `advisor serve --listen 127.0.0.1:0 EXTRA...`: the child, the address it listens on
/// (`127.0.0.1:PORT`, from its first line), and the rest of its stderr, line by line.
pub fn start_serve(
    extra: &[&str],
) -> (std::process::Child, String, std::sync::mpsc::Receiver<String>) {
    use std::io::BufRead as _;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_advisor"))
        .args(["serve", "--listen", "127.0.0.1:0"])
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start advisor serve");
    let stderr = child.stderr.take().expect("stderr");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let first =
        rx.recv_timeout(std::time::Duration::from_secs(60)).expect("advisor serve said nothing");
    let addr = first
        .split_whitespace()
        .find_map(|w| w.strip_prefix("http://127.0.0.1:"))
        .map(|port| format!("127.0.0.1:{port}"))
        .unwrap_or_else(|| panic!("no address in {first:?}"));
    (child, addr, rx)
}
