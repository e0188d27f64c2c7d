//! `--rules DIR` overrides and `--set` values.

#![allow(clippy::panic, clippy::expect_used, clippy::unwrap_used)] // tests fail by panicking

use std::path::PathBuf;

use advisor_rules::registry::{Origin, RuleFile};
use advisor_rules::{Constant, Error, Registry};

fn ok_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/ok")
}

fn registry() -> Registry {
    let mut reg = Registry::new();
    reg.load_dir(&ok_dir()).unwrap_or_else(|e| panic!("{e}"));
    reg
}

#[test]
fn a_folder_replaces_a_shipped_rule_by_id_and_adds_the_rest() {
    let text = std::fs::read_to_string(ok_dir().join("disk-iops-throttled.rule")).expect("read");
    let mut reg = Registry::new();
    let shipped = vec![RuleFile { path: "rules/disk/disk-iops-throttled.rule".into(), text }];
    reg.add_files(shipped, &Origin::Shipped).expect("shipped");
    assert_eq!(reg.load_dir(&ok_dir()).expect("dir"), 2);
    assert_eq!(reg.len(), 2);
    assert_eq!(reg.origin("disk-iops-throttled"), Some(&Origin::Dir(ok_dir())));
}

#[test]
fn two_user_rules_with_one_id_name_both_files() {
    let text = std::fs::read_to_string(ok_dir().join("disk-iops-throttled.rule")).expect("read");
    let files = vec![
        RuleFile { path: "a/disk-iops-throttled.rule".into(), text: text.clone() },
        RuleFile { path: "b/disk-iops-throttled.rule".into(), text },
    ];
    let mut reg = Registry::new();
    let err = reg.add_files(files, &Origin::Dir("x".into())).expect_err("duplicate");
    let d = &err.diagnostics[0];
    assert_eq!(d.code, "E0401");
    assert!(
        d.message.contains("a/disk-iops-throttled.rule")
            && d.message.contains("b/disk-iops-throttled.rule")
    );
    assert_eq!(reg.len(), 1, "the first one is kept");
}

#[test]
fn set_overrides_a_parameter() {
    let mut reg = registry();
    reg.set("vm-cached-throughput-cap.cap_ratio=90%").expect("valid");
    let p = &reg.get("vm-cached-throughput-cap").expect("rule").params[0];
    assert_eq!(p.value, Constant::Number(0.9));
    assert_eq!(p.value_text, "90%");
    reg.set("vm-cached-throughput-cap.cap_ratio=0.8").expect("a plain fraction is a ratio");
    reg.set("disk-iops-throttled.held_for=10 min").expect("valid");
}

#[test]
fn set_errors_say_what_to_write() {
    let mut reg = registry();
    let code = |r: Result<(), Box<advisor_rules::Diagnostic>>| r.expect_err("error");
    let d = code(reg.set("vm-cached-throughput-cp.cap_ratio=90%"));
    assert!(matches!(d.error, Error::UnknownRule { .. }));
    assert_eq!(d.help.as_deref(), Some("did you mean `vm-cached-throughput-cap`?"));
    let d = code(reg.set("vm-cached-throughput-cap.cap_ration=90%"));
    assert_eq!(d.code, "E0403");
    assert_eq!(d.help.as_deref(), Some("did you mean `cap_ratio`?"));
    let d = code(reg.set("vm-cached-throughput-cap.cap_ratio=2 ms"));
    assert_eq!(d.code, "E0404");
    let d = code(reg.set("vm-cached-throughput-cap.cap_ratio=90"));
    assert_eq!(d.code, "E0404", "90 is 9000%: {d}");
    let d = code(reg.set("disk-iops-throttled.held_for=5 minutes"));
    assert_eq!(d.code, "E0001");
    let d = code(reg.set("nonsense"));
    assert_eq!(d.code, "E0405");
    insta::assert_snapshot!(
        "set-wrong-dimension",
        code(reg.set("disk-iops-throttled.slow=2 MB/s")).to_string()
    );
}

#[test]
fn unreadable_folders_are_reported() {
    let mut reg = Registry::new();
    let err = reg.load_dir(&ok_dir().join("no-such-folder")).expect_err("missing");
    assert_eq!(err.diagnostics[0].code, "E0406");
}
