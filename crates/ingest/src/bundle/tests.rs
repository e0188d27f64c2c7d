use std::io::Write as _;

use super::*;

/// A tar.gz of (path, type, data) entries, with the names written into the headers as
/// given (tar's own builder refuses `..`, which is what a hostile archive carries).
fn tgz(entries: &[(&str, tar::EntryType, &[u8])]) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for (path, kind, data) in entries {
        let mut h = tar::Header::new_gnu();
        let name = &mut h.as_old_mut().name;
        name[..path.len()].copy_from_slice(path.as_bytes());
        h.set_entry_type(*kind);
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        if kind.is_symlink() || kind.is_hard_link() {
            let Ok(()) = h.set_link_name("/etc/passwd") else { panic!("link name") };
        }
        h.set_cksum();
        let Ok(()) = b.append(&h, *data) else { panic!("append") };
    }
    let Ok(tar) = b.into_inner() else { panic!("tar") };
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let Ok(()) = gz.write_all(&tar) else { panic!("gz") };
    let Ok(out) = gz.finish() else { panic!("gz") };
    out
}

fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut z = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, data) in entries {
        let Ok(()) = z.start_file(*name, opts) else { panic!("start") };
        let Ok(()) = z.write_all(data) else { panic!("write") };
    }
    let Ok(c) = z.finish() else { panic!("finish") };
    c.into_inner()
}

fn err(r: Result<Vec<Member>, IngestError>) -> String {
    match r {
        Ok(m) => panic!("opened: {:?}", m.iter().map(|m| &m.path).collect::<Vec<_>>()),
        Err(e) => e.to_string(),
    }
}

const FILE: tar::EntryType = tar::EntryType::Regular;

#[test]
fn a_tar_gz_and_a_zip_open_in_memory_with_their_paths() {
    let l = Limits::default();
    let t = tgz(&[("b/iostat.json", FILE, b"{}"), ("b/", tar::EntryType::Directory, b"")]);
    let Ok(m) = open_archive("x.tgz", &t, &l) else { panic!("tgz") };
    assert_eq!(m, vec![Member { path: "b/iostat.json".into(), bytes: b"{}".to_vec() }]);
    let z = zip_of(&[(r"b\get-disk.json", b"[]"), ("./c.txt", b"c")]);
    let Ok(m) = open_archive("x.zip", &z, &l) else { panic!("zip") };
    let paths: Vec<&str> = m.iter().map(|m| m.path.as_str()).collect();
    // Windows PowerShell 5.1's backslashes read as folders.
    assert_eq!(paths, ["b/get-disk.json", "c.txt"]);
}

#[test]
fn one_gzip_file_is_a_bundle_of_one() {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let Ok(()) = gz.write_all(b"Linux 6.1 (h) ...") else { panic!() };
    let Ok(bytes) = gz.finish() else { panic!() };
    let Ok(m) = open_archive("/t/iostat.txt.gz", &bytes, &Limits::default()) else { panic!() };
    assert_eq!(m[0].path, "iostat.txt");
}

#[test]
fn traversal_absolute_and_drive_paths_are_refused_naming_the_entry() {
    let l = Limits::default();
    let e = err(open_archive("t.tgz", &tgz(&[("../../x", FILE, b"x")]), &l));
    assert_eq!(
        e,
        "t.tgz: entry `../../x`: a `..` component (a path out of the bundle); the archive is refused"
    );
    let e = err(open_archive("t.zip", &zip_of(&[("a/../../x", b"x")]), &l));
    assert!(e.starts_with("t.zip: entry `a/../../x`: a `..` component"), "{e}");
    let e = err(open_archive("t.zip", &zip_of(&[(r"..\x", b"x")]), &l));
    assert!(e.contains(r"entry `..\x`: a `..` component"), "{e}");
    let e = err(open_archive("t.tgz", &tgz(&[("/etc/cron.d/x", FILE, b"x")]), &l));
    assert!(e.contains("entry `/etc/cron.d/x`: an absolute path"), "{e}");
    let e = err(open_archive("t.zip", &zip_of(&[(r"C:\Windows\x", b"x")]), &l));
    assert!(e.contains("a path with a drive letter"), "{e}");
}

#[test]
fn links_and_devices_are_refused() {
    let l = Limits::default();
    let e = err(open_archive("s.tgz", &tgz(&[("imds.json", tar::EntryType::Symlink, b"")]), &l));
    assert_eq!(e, "s.tgz: entry `imds.json`: a symbolic link; the archive is refused");
    let e = err(open_archive("h.tgz", &tgz(&[("a", tar::EntryType::Link, b"")]), &l));
    assert!(e.contains("entry `a`: a hard link"), "{e}");
    let e = err(open_archive("d.tgz", &tgz(&[("sda", tar::EntryType::Block, b"")]), &l));
    assert!(e.contains("entry `sda`: not a regular file"), "{e}");
    let e = err(open_archive("f.tgz", &tgz(&[("p", tar::EntryType::Fifo, b"")]), &l));
    assert!(e.contains("entry `p`: not a regular file"), "{e}");

    let mut z = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default();
    let Ok(()) = z.add_symlink("lsblk.json", "/etc/shadow", opts) else { panic!() };
    let Ok(c) = z.finish() else { panic!() };
    let e = err(open_archive("s.zip", &c.into_inner(), &l));
    assert_eq!(e, "s.zip: entry `lsblk.json`: a symbolic link; the archive is refused");
}

#[test]
fn a_zip_bomb_is_refused_by_its_ratio_and_a_large_archive_by_its_total() {
    let zeros = vec![0u8; 20 << 20];
    let bomb = zip_of(&[("perfmon.csv", &zeros)]);
    assert!(bomb.len() < 64 * 1024, "{} bytes", bomb.len());
    let e = err(open_archive("bomb.zip", &bomb, &Limits::default()));
    assert!(
        e.starts_with("bomb.zip: entry `perfmon.csv`: the archive unpacks to more than 200 times"),
        "{e}"
    );
    let e =
        err(open_archive("bomb.tgz", &tgz(&[("perfmon.csv", FILE, &zeros)]), &Limits::default()));
    assert!(
        e.starts_with("bomb.tgz: entry `perfmon.csv`: the archive unpacks to more than 200 times"),
        "{e}"
    );

    let small = Limits { max_total: 1 << 20, ..Limits::default() };
    let data: Vec<u8> =
        (0..(2u32 << 20)).map(|i| (i.wrapping_mul(2654435761) >> 24) as u8).collect();
    let e = err(open_archive("big.zip", &zip_of(&[("a", &data)]), &small));
    assert_eq!(
        e,
        "big.zip: entry `a`: the archive unpacks to more than 1 MiB (the limit); the archive is refused"
    );
}

#[test]
fn too_many_entries_are_refused() {
    let l = Limits { max_entries: 3, ..Limits::default() };
    let names = ["a", "b", "c", "d"];
    let entries: Vec<(&str, &[u8])> = names.iter().map(|n| (*n, &b"x"[..])).collect();
    let e = err(open_archive("many.zip", &zip_of(&entries), &l));
    assert!(e.contains("4 entries, more than the 3"), "{e}");
    let entries: Vec<(&str, tar::EntryType, &[u8])> =
        names.iter().map(|n| (*n, FILE, &b"x"[..])).collect();
    let e = err(open_archive("many.tgz", &tgz(&entries), &l));
    assert!(e.contains("entry `d`: more than 3 entries"), "{e}");
}

#[test]
fn broken_archives_say_so() {
    let l = Limits::default();
    let t = tgz(&[("a", FILE, b"hello")]);
    let e = err(open_archive("cut.tgz", &t[..t.len() / 2], &l));
    assert!(e.starts_with("cut.tgz: not a readable gzip stream"), "{e}");
    let z = zip_of(&[("a", b"hello")]);
    let e = err(open_archive("cut.zip", &z[..z.len() - 30], &l));
    assert!(e.starts_with("cut.zip: not a readable zip archive"), "{e}");
}

#[test]
fn files_are_sorted_into_captures_manifest_documents_and_ignored() {
    let part = |bytes: &[u8]| match classify("f", bytes) {
        Ok(Part::Capture) => "capture".to_owned(),
        Ok(Part::Manifest(m)) => format!("manifest of {}", m.host.unwrap_or_default()),
        Ok(Part::Document(_)) => "document".to_owned(),
        Ok(Part::Ignored(why)) => format!("ignored: {why}"),
        Err(e) => format!("error: {e}"),
    };
    assert_eq!(part(br#"{"sysstat": {"hosts": []}}"#), "capture");
    assert_eq!(
        part(br#"{"collector": "advisor-collect-linux", "host": "vm1", "imds": {"answered": false}}"#),
        "manifest of vm1"
    );
    assert_eq!(part(br#"{"compute": {"vmSize": "Standard_DS13_v2"}}"#), "document");
    assert_eq!(part(br#"{"blockdevices": []}"#), "document");
    assert_eq!(part(b"lrwxrwxrwx 1 root root 12 Jan 1 00:00 lun0 -> ../../../sdc\n"), "document");
    assert_eq!(part(b"\n"), "ignored: the file is empty");
    assert!(part(b"PK\x03\x04...").starts_with("ignored: an archive inside the bundle"));
    assert!(part(b"\x00\x01\x02\x03binary").starts_with("ignored: this looks like"));
    assert!(part(br#"{"collector": "advisor-collect-linux", "host": "#).starts_with("error: f:1:"));
}

#[test]
fn the_manifest_says_where_the_metadata_came_from_and_whether_it_was_asked() {
    let manifest = |imds: &str| -> ImdsStatus {
        let text = format!(r#"{{"collector": "advisor-collect-linux", "imds": {imds}}}"#);
        Manifest::parse("manifest.json", text.as_bytes()).unwrap().unwrap().imds.unwrap()
    };
    // Collectors before the endpoint was configurable wrote neither field.
    let old = manifest(r#"{"answered": false, "reason": "no answer"}"#);
    assert!(!old.skipped);
    assert_eq!(old.elsewhere(), None);
    let azure = manifest(&format!(
        r#"{{"answered": true, "skipped": false,
            "url": "http://{}/metadata/instance?api-version=2021-02-01"}}"#,
        ImdsStatus::AZURE_HOST
    ));
    assert_eq!(azure.elsewhere(), None);
    let standin = manifest(
        r#"{"answered": true, "skipped": false,
            "url": "http://127.0.0.1:41234/metadata/instance?api-version=2021-02-01"}"#,
    );
    assert_eq!(
        standin.elsewhere(),
        Some("http://127.0.0.1:41234/metadata/instance?api-version=2021-02-01")
    );
    let skipped = manifest(r#"{"answered": false, "skipped": true, "reason": "not asked"}"#);
    assert!(skipped.skipped);
    // Written back, an absent field stays absent.
    let written = serde_json::to_string(&old).unwrap();
    assert_eq!(written, r#"{"answered":false,"reason":"no answer"}"#);
}

#[test]
fn an_entry_that_will_be_ignored_is_passed_over_unheld_and_what_is_held_is_charged() {
    use std::sync::Arc;

    use advisor_model::work::{Limits as WorkLimits, MemoryBudget, Stop, Work};

    // 4 MiB of binary data beside a small iostat capture, within a 1 MiB budget: the
    // binary entry is streamed past (it would not fit), the capture is read.
    let junk: Vec<u8> =
        (0..4u32 << 20).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    let iostat = b"Linux 5.15.0 (vm) \t07/01/2024 \t_x86_64_\t(4 CPU)\n\n";
    let t = tgz(&[("junk.bin", FILE, &junk), ("iostat.txt", FILE, iostat)]);
    let budget = Arc::new(MemoryBudget::new(1 << 20));
    let work = Work::new(Some(budget.clone()), WorkLimits::NONE);
    let opened = work.run(|| open_archive_with("b.tgz", &t, &Limits::default(), &worth_reading));
    let Ok(Ok(entries)) = opened else { panic!("{opened:?}") };
    assert!(
        matches!(&entries[0], Entry::Skipped { path, .. } if path == "junk.bin"),
        "{entries:?}"
    );
    assert!(matches!(&entries[1], Entry::Read(m) if m.path == "iostat.txt"), "{entries:?}");
    assert_eq!(work.charged(), iostat.len() as u64, "only the capture is held");
    drop((entries, work));
    assert_eq!(budget.in_use(), 0, "the work's bytes come back when it ends");

    // A capture larger than the budget stops the work, and nothing stays charged.
    let mut big = b"Linux 5.15.0 (vm) \t07/01/2024 \t_x86_64_\t(4 CPU)\n\n".to_vec();
    while big.len() < 2 << 20 {
        big.extend_from_slice(b"Device  r/s  w/s\nsdc  1.00  2.00\n\n");
    }
    let t = tgz(&[("iostat.txt", FILE, &big)]);
    let work = Work::new(Some(budget.clone()), WorkLimits::NONE);
    let opened = work.run(|| open_archive_with("b.tgz", &t, &Limits::default(), &worth_reading));
    let Err(Stop::OverBudget(over)) = opened else { panic!("{opened:?}") };
    assert!(over.alone_too_large(), "{over}");
    drop(work);
    assert_eq!(budget.in_use(), 0);
}
