//! The other builds of advisor give this build's answers: the Windows build
//! (`x86_64-pc-windows-gnu`) run under Wine, and the static Linux build
//! (`x86_64-unknown-linux-musl`). Each analyses every scenario fixture (JSON, Markdown and
//! HTML), compares and recommends on every pair and case, inspects every fixture capture,
//! reads the collector bundles, merges the topology documents, and serves one upload; the
//! output must equal this build's byte for byte. The Windows build also takes paths with
//! backslashes and expands `*` itself; the static build has no dynamic dependency and runs in
//! an empty root.
//!
//! They need the other builds and Wine, so they are ignored in a plain `cargo test`;
//! `.ci/run` builds both and runs them:
//! ```text
//! ADVISOR_WINDOWS_EXE=.../x86_64-pc-windows-gnu/debug/advisor.exe \
//! ADVISOR_MUSL_BIN=.../x86_64-unknown-linux-musl/debug/advisor \
//!   cargo test -p advisor-cli --test it builds:: -- --ignored
//! ```

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::ffi::OsString;
use std::io::{BufRead as _, Read as _, Write as _};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use common::{BOUNDARY, multipart, repo, scenario};

/// How to run one build: the program and what comes before advisor's own arguments.
#[derive(Debug, Clone)]
struct Build {
    name: &'static str,
    program: PathBuf,
    prefix: Vec<OsString>,
    env: Vec<(String, OsString)>,
}

impl Build {
    fn this() -> Build {
        Build {
            name: "this build",
            program: PathBuf::from(env!("CARGO_BIN_EXE_advisor")),
            prefix: Vec::new(),
            env: Vec::new(),
        }
    }

    fn command(&self, args: &[String], cwd: &Path) -> Command {
        let mut c = Command::new(&self.program);
        c.args(&self.prefix).args(args).current_dir(cwd).env("NO_COLOR", "1");
        for (k, v) in &self.env {
            c.env(k, v);
        }
        c
    }

    fn run(&self, args: &[String], cwd: &Path) -> Output {
        self.command(args, cwd)
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("{}: {args:?}: {e}", self.name))
    }
}

/// A path the test was told about, or a failure that says how to make it.
fn required(var: &str, how: &str) -> PathBuf {
    match std::env::var_os(var) {
        Some(p) if Path::new(&p).is_file() => PathBuf::from(p),
        Some(p) => panic!("{var}={}: no such file; {how}", Path::new(&p).display()),
        None => panic!("{var} is not set; {how}"),
    }
}

/// The files of a fixture folder, sorted, as paths from the repository root (without
/// the ones listed in `skip`).
fn files_of(dir: &str, skip: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(repo().join(dir))
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .flatten()
        .filter(|e| e.path().is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !skip.contains(&n.as_str()))
        .map(|n| format!("{dir}/{n}"))
        .collect();
    // Shorter names first (`qd4` before `qd16`), as the compare tests order a sweep.
    out.sort_by_key(|f| (f.len(), f.clone()));
    out
}

fn dirs_of(dir: &str) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(repo().join(dir))
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| format!("{dir}/{}", e.file_name().to_string_lossy()))
        .collect();
    out.sort();
    out
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| (*s).to_owned()).collect()
}

/// Every command the builds must answer alike: analyze (three formats), compare,
/// recommend, inspect, topology, and the collector bundles.
fn cases() -> Vec<Vec<String>> {
    let mut cases = Vec::new();
    for dir in dirs_of("fixtures/scenarios") {
        let captures = files_of(&dir, &["expect.toml", "topology.toml"]);
        for format in ["json", "md", "html"] {
            let mut args = strings(&["analyze"]);
            args.extend(captures.iter().cloned());
            args.extend(strings(&["--topology", &format!("{dir}/topology.toml")]));
            args.extend(strings(&["--format", format]));
            cases.push(args);
        }
    }
    for dir in dirs_of("fixtures/compare") {
        let side = |s: &str| {
            let d = format!("{dir}/{s}");
            let seed = "fixtures/scenarios/ds13v2-temp-disk-throttles-cached-p30";
            if repo().join(&d).is_dir() {
                let topology = repo().join(&d).join("topology.toml").is_file();
                (files_of(&d, &["topology.toml"]), topology.then(|| format!("{d}/topology.toml")))
            } else {
                // The seed pair's before side is the seed scenario.
                (vec![format!("{seed}/capture.csv")], Some(format!("{seed}/topology.toml")))
            }
        };
        let ((before, bt), (after, at)) = (side("before"), side("after"));
        let mut args = strings(&["compare"]);
        args.extend(before);
        if let Some(t) = bt {
            args.extend(["--topology".to_owned(), t]);
        }
        args.push("--with".to_owned());
        args.extend(after);
        if let Some(t) = at {
            args.extend(["--with-topology".to_owned(), t]);
        }
        args.extend(strings(&["--format", "json"]));
        cases.push(args);
    }
    for dir in dirs_of("fixtures/recommend") {
        let mut args = strings(&["recommend"]);
        args.extend(files_of(&dir, &["topology.toml", "note.md"]));
        args.extend(strings(&["--topology", &format!("{dir}/topology.toml"), "--format", "json"]));
        cases.push(args);
    }
    for dir in dirs_of("fixtures/captures") {
        let mut args = strings(&["inspect", "--json"]);
        args.extend(files_of(&dir, &["README.md", "PROVENANCE.md"]));
        cases.push(args);
    }
    for bundle in [
        "fixtures/bundles/windows-ds13v2.zip",
        "fixtures/bundles/windows-ds13v2",
        "fixtures/bundles/linux-off-azure.tar.gz",
    ] {
        cases.push(strings(&["analyze", bundle, "--format", "json"]));
        cases.push(strings(&["inspect", bundle]));
    }
    let mut topology = strings(&["topology"]);
    topology.extend(files_of("fixtures/topologies/documents/ds13v2-windows", &[]));
    cases.push(topology);
    cases.push(strings(&["catalog", "vm", "Standard_DS13_v2", "--json"]));
    cases.push(strings(&["rules", "list"]));
    cases.push(strings(&["rules", "explain", "vm-cached-throughput-cap", "--json"]));
    for name in ["report", "rule", "catalog-vm"] {
        cases.push(strings(&["schema", name]));
    }
    cases
}

/// Runs every case with both builds and lists each difference.
fn differences(other: &Build) -> Vec<String> {
    let this = Build::this();
    let mut wrong = Vec::new();
    let cases = cases();
    assert!(cases.len() > 40, "only {} cases: the fixtures moved?", cases.len());
    for args in &cases {
        let a = this.run(args, &repo());
        let mut b = other.run(args, &repo());
        // An exit unlike this build's with nothing on stderr is not advisor's (it says why
        // whenever it fails on input) but the runner's: Wine, on a loaded machine, now and
        // then ends a program with 1 and no word. Such a run is tried again, twice at most,
        // and said on the test's stderr; a real difference stays one.
        for _ in 0..2 {
            if a.status.code() == b.status.code() || !b.stderr.is_empty() {
                break;
            }
            eprintln!("{}: {args:?} ended {:?} silently; run again", other.name, b.status);
            b = other.run(args, &repo());
        }
        if a.status.code() != b.status.code() {
            wrong.push(format!(
                "{args:?}: exit {:?} here, {:?} in {}:\n{}",
                a.status.code(),
                b.status.code(),
                other.name,
                String::from_utf8_lossy(&b.stderr)
            ));
        } else if a.stdout != b.stdout {
            wrong.push(format!("{args:?}: {}", first_difference(&a.stdout, &b.stdout)));
        }
    }
    wrong
}

fn first_difference(a: &[u8], b: &[u8]) -> String {
    let (a, b) = (String::from_utf8_lossy(a), String::from_utf8_lossy(b));
    for (n, (x, y)) in a.lines().zip(b.lines()).enumerate() {
        if x != y {
            return format!("line {}: {x:?} here, {y:?} there", n + 1);
        }
    }
    format!("{} lines here, {} there", a.lines().count(), b.lines().count())
}

/// `advisor serve` of a build answers /healthz and one upload, with this build's findings.
fn serves(build: &Build) {
    let mut child = build
        .command(&strings(&["serve", "--listen", "127.0.0.1:0"]), &repo())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start serve");
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let addr = loop {
        let line = rx
            .recv_timeout(Duration::from_secs(120))
            .unwrap_or_else(|_| panic!("{}: serve printed no address", build.name));
        if let Some(port) =
            line.split_whitespace().find_map(|w| w.strip_prefix("http://127.0.0.1:"))
        {
            break format!("127.0.0.1:{}", port.trim_end_matches(['/', ')', ',']));
        }
    };
    let request = |head: String, body: &[u8]| -> (String, Vec<u8>) {
        let mut s = TcpStream::connect(&addr).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
        s.write_all(head.as_bytes()).unwrap();
        s.write_all(body).unwrap();
        let mut raw = Vec::new();
        let _ = s.read_to_end(&mut raw);
        let split = raw.windows(4).position(|w| w == b"\r\n\r\n").expect("a response");
        (String::from_utf8_lossy(&raw[..split]).into_owned(), raw[split + 4..].to_vec())
    };
    let (head, _) =
        request(format!("GET /healthz HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"), &[]);
    assert!(head.starts_with("HTTP/1.1 200"), "{}: /healthz: {head}", build.name);
    let (capture, topology) = scenario();
    let body = multipart(&[
        ("capture", "capture.csv", capture.as_slice()),
        ("topology", "topology.toml", topology.as_slice()),
    ]);
    let (head, answer) = request(
        format!(
            "POST /api/v1/analyze HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\
             Accept: application/json\r\nContent-Type: multipart/form-data; boundary={BOUNDARY}\r\n\
             Content-Length: {}\r\n\r\n",
            body.len()
        ),
        &body,
    );
    let _ = child.kill();
    let _ = child.wait();
    assert!(head.starts_with("HTTP/1.1 200"), "{}: upload: {head}", build.name);
    let report: serde_json::Value = serde_json::from_slice(&answer).expect("a JSON report");
    let dir = "fixtures/scenarios/ds13v2-temp-disk-throttles-cached-p30";
    let here = Build::this().run(
        &strings(&[
            "analyze",
            &format!("{dir}/capture.csv"),
            "--topology",
            &format!("{dir}/topology.toml"),
            "--format",
            "json",
        ]),
        &repo(),
    );
    let here: serde_json::Value = serde_json::from_slice(&here.stdout).unwrap();
    assert_eq!(report["findings"], here["findings"], "{}: the upload's findings", build.name);
    assert_eq!(report["verdict"], here["verdict"]);
}

/// Wine, with a prefix of its own under the test's scratch folder. Wine 8.0 (Debian 12)
/// lacks bcryptprimitives.dll, where Rust's standard library takes random bytes from on
/// Windows: the prefix gets the stand-in of `.ci/wine/bcryptprimitives.c`, built with
/// mingw-w64 (never shipped; Windows has the DLL).
fn wine(exe: PathBuf) -> Build {
    let wine = ["/usr/lib/wine/wine64", "wine64", "wine"]
        .iter()
        .map(PathBuf::from)
        .find(|p| Command::new(p).arg("--version").output().is_ok_and(|o| o.status.success()))
        .expect("wine64 (Debian's wine64 package): .ci/install-cross installs it");
    let prefix = Path::new(env!("CARGO_TARGET_TMPDIR")).join("wine-prefix");
    let shim = prefix.join("drive_c/windows/system32/bcryptprimitives.dll");
    let env: Vec<(String, OsString)> = vec![
        ("WINEPREFIX".into(), prefix.clone().into()),
        ("WINEDEBUG".into(), "-all".into()),
        ("WINEDLLOVERRIDES".into(), "mscoree,mshtml=".into()),
    ];
    // One wine server for all the runs (it would otherwise start again for each), stopped
    // by `wineserver -k` when the test ends. Wine's own processes outlive the command that
    // started them: none of them may hold a pipe the test reads, so their output is dropped.
    let quiet = |program: &Path, args: &[&str]| {
        Command::new(program)
            .args(args)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap_or_else(|e| panic!("{} {args:?}: {e}", program.display()))
    };
    std::fs::create_dir_all(&prefix).unwrap();
    quiet(&wine.with_file_name("wineserver"), &["-p"]);
    // wineboot starts Wine's services now, with no pipe of ours (the first program run would
    // start them otherwise, holding its output open); `--init` makes the prefix first.
    let first = !shim.is_file();
    let boot = quiet(&wine, if first { &["wineboot", "--init"] } else { &["wineboot"] });
    assert!(boot.success(), "wineboot failed");
    if first {
        let built = Command::new("x86_64-w64-mingw32-gcc")
            .args(["-O2", "-shared", "-Wl,--kill-at", "-o"])
            .arg(&shim)
            .arg(repo().join(".ci/wine/bcryptprimitives.c"))
            .arg("-ladvapi32")
            .output()
            .expect("x86_64-w64-mingw32-gcc (Debian's gcc-mingw-w64-x86-64)");
        assert!(built.status.success(), "{}", String::from_utf8_lossy(&built.stderr));
    }
    Build { name: "the Windows build under Wine", program: wine, prefix: vec![exe.into()], env }
}

/// Stops the persistent wine server of [`wine`] when dropped.
struct WineServer(Build);

impl Drop for WineServer {
    fn drop(&mut self) {
        let server = self.0.program.with_file_name("wineserver");
        let _ = Command::new(server)
            .arg("-k")
            .envs(self.0.env.iter().map(|(k, v)| (k, v)))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

#[test]
#[ignore = "needs the Windows build and Wine; .ci/run builds it and runs this"]
fn the_windows_build_under_wine_answers_as_this_one() {
    let exe = required(
        "ADVISOR_WINDOWS_EXE",
        "build it with `cargo build -p advisor-cli --target x86_64-pc-windows-gnu` \
         (.ci/install-cross installs the target and mingw-w64)",
    );
    let windows = wine(exe);
    let _server = WineServer(windows.clone());
    let wrong = differences(&windows);
    assert!(wrong.is_empty(), "{} differences:\n{}", wrong.len(), wrong.join("\n"));

    // Windows paths: backslashes and a drive letter (Wine maps Z: to /) read the same files.
    let dir = "fixtures/scenarios/ds13v2-temp-disk-throttles-cached-p30";
    let slash = strings(&[
        "analyze",
        &format!("{dir}/capture.csv"),
        "--topology",
        &format!("{dir}/topology.toml"),
        "--format",
        "json",
    ]);
    let root = repo().display().to_string();
    let back = strings(&[
        "analyze",
        &format!("{dir}\\capture.csv").replace('/', "\\"),
        "--topology",
        &format!("Z:{}\\{dir}\\topology.toml", root.replace('/', "\\")).replace('/', "\\"),
        "--format",
        "json",
    ]);
    let (a, b) = (windows.run(&slash, &repo()), windows.run(&back, &repo()));
    assert!(b.status.success(), "{}", String::from_utf8_lossy(&b.stderr));
    // The report names the capture as given; that aside, the reports are the same.
    let given = format!("{dir}/capture.csv");
    let echoed = given.replace('/', "\\\\");
    let b_text = String::from_utf8_lossy(&b.stdout).into_owned();
    assert!(b_text.contains(&format!("\"file\": \"{echoed}\"")), "{}", &b_text[..400]);
    let b_text = b_text.replace(&echoed, &given);
    assert!(a.stdout == b_text.as_bytes(), "{}", first_difference(&a.stdout, b_text.as_bytes()));

    // `*` is expanded by advisor itself (cmd and PowerShell pass it on as it is).
    let pattern = strings(&["inspect", "fixtures/captures/fio-json/*.json"]);
    let expanded = {
        let mut args = strings(&["inspect"]);
        args.extend(
            files_of("fixtures/captures/fio-json", &[])
                .into_iter()
                .filter(|f| f.ends_with(".json")),
        );
        // In name order, as a Unix shell expands a pattern.
        args[1..].sort();
        args
    };
    assert!(expanded.len() > 2, "{expanded:?}");
    let (globbed, listed) = (windows.run(&pattern, &repo()), Build::this().run(&expanded, &repo()));
    assert!(globbed.status.success(), "{}", String::from_utf8_lossy(&globbed.stderr));
    let unify = |o: &Output| String::from_utf8_lossy(&o.stdout).replace('\\', "/");
    let (globbed, listed) = (unify(&globbed), unify(&listed));
    assert!(globbed == listed, "{}", first_difference(globbed.as_bytes(), listed.as_bytes()));

    serves(&windows);
}

#[test]
#[ignore = "needs the static musl build; .ci/run builds it and runs this"]
fn the_static_build_has_no_dependencies_and_answers_as_this_one() {
    let bin = required(
        "ADVISOR_MUSL_BIN",
        "build it with `cargo build -p advisor-cli --target x86_64-unknown-linux-musl` \
         (.ci/install-cross installs the target and musl-tools)",
    );
    // No dynamic loader, no shared library.
    let ldd = Command::new("ldd").arg(&bin).output().expect("ldd");
    let said =
        format!("{}{}", String::from_utf8_lossy(&ldd.stdout), String::from_utf8_lossy(&ldd.stderr));
    assert!(
        said.contains("not a dynamic executable") || said.contains("statically linked"),
        "ldd {}: {said}",
        bin.display()
    );

    // In an empty root: the binary and one scenario's files, nothing else (no libc, no
    // /etc, no /proc, no /tmp).
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("empty-root");
    let _ = std::fs::remove_dir_all(&root);
    let dir = "fixtures/scenarios/ds13v2-temp-disk-throttles-cached-p30";
    std::fs::create_dir_all(root.join("s")).unwrap();
    std::fs::copy(&bin, root.join("advisor")).unwrap();
    for f in ["capture.csv", "topology.toml"] {
        std::fs::copy(repo().join(dir).join(f), root.join("s").join(f)).unwrap();
    }
    let args = ["analyze", "s/capture.csv", "--topology", "s/topology.toml", "--format", "json"];
    // chroot by its full path: the environment is emptied for what runs inside.
    let chroot = ["/usr/sbin/chroot", "/usr/bin/chroot", "/sbin/chroot"]
        .into_iter()
        .find(|p| Path::new(p).is_file())
        .expect("chroot (coreutils)");
    let inside = Command::new(chroot)
        .arg(&root)
        .arg("/advisor")
        .args(args)
        .env_clear()
        .output()
        .expect("chroot (run as root, as CI does)");
    assert!(inside.status.success(), "chroot: {}", String::from_utf8_lossy(&inside.stderr));
    let here = Build::this().run(&strings(&args), &root);
    assert!(
        inside.stdout == here.stdout,
        "the static build in an empty root: {}",
        first_difference(&inside.stdout, &here.stdout)
    );
    let _ = std::fs::remove_dir_all(&root);

    let musl =
        Build { name: "the static build", program: bin, prefix: Vec::new(), env: Vec::new() };
    let wrong = differences(&musl);
    assert!(wrong.is_empty(), "{} differences:\n{}", wrong.len(), wrong.join("\n"));
    serves(&musl);
}
