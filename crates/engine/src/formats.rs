//! The inputs advisor reads, as every front end names them: the capture formats of the
//! reader registry and the collector bundles. The CLI's help, the upload page, the API's
//! OpenAPI document and the MCP tools' descriptions all render these, so a format added to
//! the registry is named everywhere at once.

/// The marker a front end's static text (a doc comment that becomes a schema description)
/// carries where the list of formats goes; [`fill_formats`] replaces it.
pub const FORMATS_MARKER: &str = "{formats}";

/// What a collector bundle is, as the lists of inputs name it.
pub const BUNDLES: &str =
    "collector bundles (collect-linux.sh's .tar.gz, collect-windows.ps1's .zip)";

/// The capture formats advisor reads, one phrase per format (or family named together) in
/// the registry's order: `PerfMon CSV (typeperf/relog)`, `iostat text (iostat -x -t 1)`, ...
pub fn capture_formats() -> Vec<&'static str> {
    advisor_ingest::supported_formats()
}

/// The capture formats as one phrase: `PerfMon CSV (typeperf/relog); iostat text (...); ...`
/// (semicolons: the phrases have commas of their own).
pub fn capture_formats_sentence() -> String {
    capture_formats().join("; ")
}

/// `text` with every [`FORMATS_MARKER`] replaced by [`capture_formats_sentence`].
pub fn fill_formats(text: &str) -> String {
    if text.contains(FORMATS_MARKER) {
        text.replace(FORMATS_MARKER, &capture_formats_sentence())
    } else {
        text.to_owned()
    }
}

/// Every string of a JSON document (a schema's descriptions) with [`FORMATS_MARKER`]
/// replaced by the list of formats.
pub fn fill_formats_in(doc: &mut serde_json::Value) {
    match doc {
        serde_json::Value::String(s) if s.contains(FORMATS_MARKER) => *s = fill_formats(s),
        serde_json::Value::Array(a) => a.iter_mut().for_each(fill_formats_in),
        serde_json::Value::Object(m) => m.values_mut().for_each(fill_formats_in),
        _ => {}
    }
}

/// Whether `text` names every capture format of the registry (each phrase, as
/// [`capture_formats`] gives it) and the collector bundles: the check every front end's
/// tests make of the lists they show. The phrases missing, if any. Runs of white space
/// count as one space (a help text wrapped to the terminal still names them).
pub fn missing_formats(text: &str) -> Vec<&'static str> {
    let words = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    let text = words(text);
    capture_formats().into_iter().chain([BUNDLES]).filter(|p| !text.contains(&words(p))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reader_is_named_and_a_dropped_one_would_show() {
        let list = capture_formats();
        // sar and sadf are named (the lists written by hand had dropped them).
        assert!(list.iter().any(|p| p.starts_with("sar text")), "{list:?}");
        assert!(list.iter().any(|p| p.starts_with("Azure Monitor")), "{list:?}");
        let all = format!("{}; {BUNDLES}", capture_formats_sentence());
        assert_eq!(missing_formats(&all), Vec::<&str>::new());
        // A list without one of them fails the check, naming it.
        for dropped in &list {
            let short = all.replace(dropped, "");
            assert_eq!(missing_formats(&short), vec![*dropped]);
        }
    }

    #[test]
    fn the_marker_is_filled_in_json_strings() {
        let mut doc = serde_json::json!({"a": ["x {formats} y"], "b": {"c": "{formats}"}, "n": 1});
        fill_formats_in(&mut doc);
        let text = doc.to_string();
        assert!(!text.contains(FORMATS_MARKER), "{text}");
        assert!(doc["b"]["c"].as_str().is_some_and(|c| c == capture_formats_sentence()));
    }
}
