//! The topology and catalog as a user meets them through the real binary: `advisor catalog`
//! and the errors `advisor analyze --topology` gives for a bad file.

mod common;

use common::*;

fn run(args: &[&str]) -> (i32, String, String) {
    let out = advisor(&repo(), args);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn catalog_vm_shows_the_figures_with_their_source() {
    let (code, out, _) = run(&["catalog", "vm", "standard_ds13_v2"]);
    assert_eq!(code, 0);
    for want in [
        "Standard_DS13_v2",
        "256 MB/s",
        "384 MB/s",
        "25600 IOPS",
        "source",
        "MicrosoftDocs/azure-docs",
    ] {
        assert!(out.contains(want), "missing {want:?} in:\n{out}");
    }
    let (code, out, _) = run(&["catalog", "disk", "p30"]);
    assert_eq!(code, 0);
    for want in ["P30", "5000 IOPS", "200 MB/s", "30000", "1000"] {
        assert!(out.contains(want), "missing {want:?} in:\n{out}");
    }
}

#[test]
fn a_misspelt_vm_size_is_refused_with_a_did_you_mean() {
    let capture = "fixtures/captures/iostat-text/iostat_xt_1_10.txt";
    let (code, out, err) = run(&[
        "analyze",
        capture,
        "--topology",
        "fixtures/topologies/invalid/unknown_vm_size.toml",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "nothing on stdout: {out}");
    assert!(err.contains("unknown_vm_size.toml:"), "{err}");
    assert!(err.contains("did you mean \"Standard_DS13_v2\"?"), "{err}");
    let (code, _, err) = run(&["catalog", "vm", "Standard_DS13v2"]);
    assert_eq!(code, 2);
    assert!(err.contains("did you mean \"Standard_DS13_v2\"?"), "{err}");
}

#[test]
fn a_bad_cache_value_is_refused_with_its_line_and_column() {
    let capture = "fixtures/captures/iostat-text/iostat_xt_1_10.txt";
    let (code, _, err) =
        run(&["analyze", capture, "--topology", "fixtures/topologies/invalid/bad_cache.toml"]);
    assert_eq!(code, 2);
    insta::assert_snapshot!(err, @r#"
    error: fixtures/topologies/invalid/bad_cache.toml:7:9: invalid cache "WriteBack"
      |
    7 | cache = "WriteBack"
      |         ^^^^^^^^^^^
      help: `cache` is one of: None, ReadOnly, ReadWrite
    "#);
}
