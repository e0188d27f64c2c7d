//! The rule language: parse, check, and on success print the rule back (the printer's
//! output must parse again).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let _ = advisor_rules::compile("fuzz.rule", text);
    if let Ok(file) = advisor_rules::parse(text) {
        let printed = advisor_rules::print(&file);
        assert!(advisor_rules::parse(&printed).is_ok(), "printed rule does not parse:\n{printed}");
    }
});
