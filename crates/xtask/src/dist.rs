//! `cargo xtask dist`: the release archives.
//!
//! For each target it builds `advisor` (`cargo build --locked -p advisor-cli --target T`),
//! then writes `advisor-<version>-<target>.tar.gz` (Linux) or `.zip` (Windows) holding one
//! folder of that name with the binary, README.md, LICENSE and both collectors, and at the
//! end `SHA256SUMS` over every archive of the folder (the `sha256sum -c` format).
//!
//! The archives are reproducible: entries in a fixed order, every time stamp the commit's
//! (`SOURCE_DATE_EPOCH` when set), owner 0, modes 0755 for programs and 0644 for the rest.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail, ensure};
use sha2::{Digest, Sha256};

/// The targets released, and how each is packed.
pub(crate) const TARGETS: &[(&str, Pack)] = &[
    ("x86_64-unknown-linux-gnu", Pack::TarGz),
    ("x86_64-unknown-linux-musl", Pack::TarGz),
    ("x86_64-pc-windows-gnu", Pack::Zip),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pack {
    TarGz,
    Zip,
}

#[derive(Debug, clap::Args)]
pub(crate) struct DistArgs {
    /// Only these targets (default: all three).
    #[arg(long = "target")]
    targets: Vec<String>,
    /// The cargo profile to build with (`release` for a release; `dev` builds faster).
    #[arg(long, default_value = "release")]
    profile: String,
    /// Where the archives and SHA256SUMS go.
    #[arg(long, default_value = "dist")]
    out: PathBuf,
    /// Pack binaries already built, without running cargo build.
    #[arg(long)]
    no_build: bool,
}

/// What goes into every archive besides the binary: (path in the repository, mode).
const FILES: &[(&str, u32)] = &[
    ("README.md", 0o644),
    ("LICENSE", 0o644),
    ("collect/collect-linux.sh", 0o755),
    ("collect/collect-windows.ps1", 0o644),
];

pub(crate) fn dist(args: &DistArgs) -> Result<()> {
    let root = workspace_root()?;
    let version = env!("CARGO_PKG_VERSION");
    let targets: Vec<(&str, Pack)> = if args.targets.is_empty() {
        TARGETS.to_vec()
    } else {
        args.targets
            .iter()
            .map(|t| {
                TARGETS.iter().copied().find(|(name, _)| name == t).with_context(|| {
                    let known: Vec<&str> = TARGETS.iter().map(|(n, _)| *n).collect();
                    format!("unknown target {t}: one of {}", known.join(", "))
                })
            })
            .collect::<Result<_>>()?
    };
    let out = if args.out.is_absolute() { args.out.clone() } else { root.join(&args.out) };
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    let target_dir = target_dir(&root)?;
    let epoch = source_date_epoch(&root)?;
    let host = host_triple()?;
    for &(target, pack) in &targets {
        // The host's own build goes where a plain `cargo build` puts it, so that it reuses
        // (and is reused by) the builds of every day.
        let native = target == host;
        if !args.no_build {
            build(&root, (!native).then_some(target), &args.profile)?;
        }
        let profile_dir = if args.profile == "dev" { "debug" } else { args.profile.as_str() };
        let exe = if target.contains("windows") { "advisor.exe" } else { "advisor" };
        let dir = if native { target_dir.clone() } else { target_dir.join(target) };
        let binary = dir.join(profile_dir).join(exe);
        let bytes =
            std::fs::read(&binary).with_context(|| format!("reading {}", binary.display()))?;
        if target.contains("musl") {
            ensure!(
                elf_interpreter(&bytes)?.is_none(),
                "{}: the musl build asks for a dynamic loader; it must be static",
                binary.display()
            );
        }
        let name = format!("advisor-{version}-{target}");
        let mut entries = vec![Entry { path: format!("{name}/{exe}"), mode: 0o755, bytes }];
        for (rel, mode) in FILES {
            let bytes = std::fs::read(root.join(rel)).with_context(|| format!("reading {rel}"))?;
            entries.push(Entry { path: format!("{name}/{rel}"), mode: *mode, bytes });
        }
        let (file, data) = match pack {
            Pack::TarGz => (format!("{name}.tar.gz"), tar_gz(&name, &entries, epoch)?),
            Pack::Zip => (format!("{name}.zip"), zip(&name, &entries, epoch)?),
        };
        std::fs::write(out.join(&file), &data).with_context(|| format!("writing {file}"))?;
        eprintln!("xtask dist: {} ({} bytes)", out.join(&file).display(), data.len());
    }
    let sums = sha256sums(&out)?;
    std::fs::write(out.join("SHA256SUMS"), &sums)?;
    eprintln!("xtask dist: {}", out.join("SHA256SUMS").display());
    print!("{sums}");
    Ok(())
}

fn workspace_root() -> Result<PathBuf> {
    // crates/xtask -> the workspace root.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.canonicalize().context("the workspace root")
}

/// Cargo's target directory (`CARGO_TARGET_DIR`, a config file, or `target/`), as cargo
/// itself reports it.
fn target_dir(root: &Path) -> Result<PathBuf> {
    let out = Command::new(cargo())
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .current_dir(root)
        .output()
        .context("running cargo metadata")?;
    ensure!(out.status.success(), "cargo metadata: {}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    let dir = v["target_directory"].as_str().context("cargo metadata: no target_directory")?;
    Ok(PathBuf::from(dir))
}

fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned())
}

/// The triple rustc builds for by default (`host:` of `rustc -vV`).
fn host_triple() -> Result<String> {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let out = Command::new(rustc).arg("-vV").output().context("running rustc -vV")?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .find_map(|l| l.strip_prefix("host: "))
        .map(|h| h.trim().to_owned())
        .context("rustc -vV names no host")
}

/// `cargo build` of the advisor binary, for `target` (the host when `None`).
fn build(root: &Path, target: Option<&str>, profile: &str) -> Result<()> {
    let shown = target.unwrap_or("the host");
    eprintln!("xtask dist: building {shown} ({profile})");
    let mut cmd = Command::new(cargo());
    cmd.args(["build", "--locked", "-p", "advisor-cli", "--profile", profile]);
    if let Some(t) = target {
        cmd.args(["--target", t]);
    }
    let status = cmd.current_dir(root).status().context("running cargo build")?;
    let target = target.unwrap_or("the host");
    if !status.success() {
        bail!(
            "cargo build for {target} failed; the cross tools come from .ci/install-cross \
             (rustup target add {target}, and Debian's {})",
            if target.contains("windows") {
                "gcc-mingw-w64-x86-64"
            } else if target.contains("musl") {
                "musl-tools"
            } else {
                "gcc"
            }
        );
    }
    Ok(())
}

/// The time stamp of every entry: `SOURCE_DATE_EPOCH`, else the last commit's time.
fn source_date_epoch(root: &Path) -> Result<u64> {
    if let Ok(v) = std::env::var("SOURCE_DATE_EPOCH") {
        return v.trim().parse().with_context(|| format!("SOURCE_DATE_EPOCH={v}"));
    }
    let out = Command::new("git")
        .args(["log", "-1", "--format=%ct"])
        .current_dir(root)
        .output()
        .context("running git log (or set SOURCE_DATE_EPOCH)")?;
    ensure!(out.status.success(), "git log: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    text.trim().parse().with_context(|| format!("git log's commit time {text:?}"))
}

#[derive(Debug)]
struct Entry {
    path: String,
    mode: u32,
    bytes: Vec<u8>,
}

fn tar_gz(top: &str, entries: &[Entry], epoch: u64) -> Result<Vec<u8>> {
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let mut tar = tar::Builder::new(gz);
    tar.mode(tar::HeaderMode::Deterministic);
    let mut dirs: Vec<String> = vec![top.to_owned()];
    for e in entries {
        if let Some((dir, _)) = e.path.rsplit_once('/')
            && !dirs.iter().any(|d| d == dir)
        {
            dirs.push(dir.to_owned());
        }
    }
    for dir in &dirs {
        let mut h = tar::Header::new_gnu();
        h.set_entry_type(tar::EntryType::Directory);
        h.set_mode(0o755);
        h.set_mtime(epoch);
        h.set_size(0);
        tar.append_data(&mut h, format!("{dir}/"), std::io::empty())?;
    }
    for e in entries {
        let mut h = tar::Header::new_gnu();
        h.set_entry_type(tar::EntryType::Regular);
        h.set_mode(e.mode);
        h.set_mtime(epoch);
        h.set_size(e.bytes.len() as u64);
        tar.append_data(&mut h, &e.path, e.bytes.as_slice())?;
    }
    Ok(tar.into_inner()?.finish()?)
}

fn zip(top: &str, entries: &[Entry], epoch: u64) -> Result<Vec<u8>> {
    use zip::write::SimpleFileOptions;
    let stamp = dos_time(epoch)?;
    let mut z = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let base = SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .last_modified_time(stamp);
    z.add_directory(format!("{top}/"), base.unix_permissions(0o755))?;
    let mut dirs: Vec<String> = Vec::new();
    for e in entries {
        if let Some((dir, _)) = e.path.rsplit_once('/')
            && dir != top
            && !dirs.iter().any(|d| d == dir)
        {
            dirs.push(dir.to_owned());
            z.add_directory(format!("{dir}/"), base.unix_permissions(0o755))?;
        }
        z.start_file(e.path.as_str(), base.unix_permissions(e.mode))?;
        z.write_all(&e.bytes)?;
    }
    Ok(z.finish()?.into_inner())
}

/// A zip (MS-DOS) time stamp of a Unix time, in UTC.
fn dos_time(epoch: u64) -> Result<zip::DateTime> {
    let days = i64::try_from(epoch / 86_400)?;
    let secs = epoch % 86_400;
    let (y, m, d) = civil_from_days(days);
    let t = zip::DateTime::from_date_and_time(
        u16::try_from(y)?,
        m,
        d,
        u8::try_from(secs / 3600)?,
        u8::try_from(secs % 3600 / 60)?,
        u8::try_from(secs % 60)?,
    );
    t.map_err(|e| anyhow::anyhow!("a zip time stamp for {epoch}: {e}"))
}

/// Year, month, day of a count of days since 1970-01-01 (the proleptic Gregorian calendar).
fn civil_from_days(z: i64) -> (i64, u8, u8) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u8;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u8;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// `SHA256SUMS` of every archive in `dir`, sorted by name: `<hex>  <name>` lines.
fn sha256sums(dir: &Path) -> Result<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("advisor-") && (n.ends_with(".tar.gz") || n.ends_with(".zip")))
        .collect();
    names.sort();
    let mut out = String::new();
    for n in names {
        let bytes = std::fs::read(dir.join(&n))?;
        let digest = Sha256::digest(&bytes);
        for b in digest {
            let _ = write!(out, "{b:02x}");
        }
        let _ = writeln!(out, "  {n}");
    }
    Ok(out)
}

/// The program interpreter an ELF executable asks for (`PT_INTERP`), or `None` for a
/// static one.
pub(crate) fn elf_interpreter(bytes: &[u8]) -> Result<Option<String>> {
    ensure!(bytes.len() >= 64 && bytes.starts_with(b"\x7fELF"), "not an ELF file");
    ensure!(bytes[4] == 2 && bytes[5] == 1, "not a 64-bit little-endian ELF file");
    let u16_at = |o: usize| u16::from_le_bytes([bytes[o], bytes[o + 1]]);
    let u64_at = |o: usize| -> Result<u64> {
        let s = bytes.get(o..o + 8).context("a truncated ELF file")?;
        Ok(u64::from_le_bytes(s.try_into()?))
    };
    let phoff = usize::try_from(u64_at(32)?)?;
    let phentsize = usize::from(u16_at(54));
    let phnum = usize::from(u16_at(56));
    for i in 0..phnum {
        let h = phoff + i * phentsize;
        let kind = bytes.get(h..h + 4).context("a truncated program header")?;
        if u32::from_le_bytes(kind.try_into()?) == 3 {
            let off = usize::try_from(u64_at(h + 8)?)?;
            let size = usize::try_from(u64_at(h + 32)?)?;
            let raw = bytes.get(off..off + size).context("a truncated interpreter")?;
            return Ok(Some(String::from_utf8_lossy(raw).trim_end_matches('\0').to_owned()));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn days_become_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(20_785), (2026, 11, 28));
    }

    #[test]
    fn archives_hold_the_folder_and_are_reproducible() {
        let entries = vec![
            Entry { path: "top/advisor".into(), mode: 0o755, bytes: b"\x7fELF...".to_vec() },
            Entry { path: "top/collect/c.sh".into(), mode: 0o755, bytes: b"#!/bin/sh\n".to_vec() },
        ];
        let a = tar_gz("top", &entries, 1_764_288_000).unwrap();
        assert_eq!(a, tar_gz("top", &entries, 1_764_288_000).unwrap());
        let mut t = tar::Archive::new(flate2::read::GzDecoder::new(a.as_slice()));
        let listed: Vec<(String, u32, u64)> = t
            .entries()
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                let h = e.header();
                (e.path().unwrap().display().to_string(), h.mode().unwrap(), h.mtime().unwrap())
            })
            .collect();
        assert_eq!(
            listed,
            vec![
                ("top/".to_owned(), 0o755, 1_764_288_000),
                ("top/collect/".to_owned(), 0o755, 1_764_288_000),
                ("top/advisor".to_owned(), 0o755, 1_764_288_000),
                ("top/collect/c.sh".to_owned(), 0o755, 1_764_288_000),
            ]
        );
        let z = zip("top", &entries, 1_764_288_000).unwrap();
        assert_eq!(z, zip("top", &entries, 1_764_288_000).unwrap());
        let mut archive = zip::ZipArchive::new(std::io::Cursor::new(z)).unwrap();
        let names: Vec<String> = archive.file_names().map(|n| n.unwrap().into_owned()).collect();
        assert_eq!(names, ["top/", "top/advisor", "top/collect/", "top/collect/c.sh"]);
        let f = archive.by_name("top/collect/c.sh").unwrap();
        assert_eq!(f.unix_mode(), Some(0o100_755));
    }

    #[test]
    fn the_interpreter_of_an_elf_file() {
        // This test binary is a dynamic executable on a glibc host.
        let me = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        if cfg!(all(target_os = "linux", target_env = "gnu")) {
            let interp = elf_interpreter(&me).unwrap().expect("an interpreter");
            assert!(interp.starts_with('/') && interp.contains("ld-linux"), "{interp}");
        }
        assert!(elf_interpreter(b"MZ not an ELF").is_err());
    }
}
