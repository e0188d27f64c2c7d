//! The text around fio's JSON documents: its warnings and errors, `--output-format=json,normal`.

use advisor_model::{CaptureMeta, Location};

use super::json::{self, Document};

/// Lines of the file outside the JSON documents, with their 1-based numbers.
pub(super) fn outside_lines<'a>(
    text: &'a str,
    docs: &[Document],
    broken: Option<usize>,
) -> Vec<(u64, &'a str)> {
    let mut ranges = Vec::new();
    let mut pos = 0usize;
    for d in docs {
        ranges.push((pos, d.start));
        pos = d.end;
    }
    ranges.push((pos, broken.unwrap_or(text.len()).max(pos)));
    let mut out = Vec::new();
    for (a, b) in ranges {
        let Some(seg) = text.get(a..b) else { continue };
        let first = json::line_of(text, a);
        for (n, line) in seg.lines().enumerate() {
            advisor_model::work::checkpoint_every(n);
            let line = line.trim();
            if !line.is_empty() {
                out.push((first + n as u64, line));
            }
        }
    }
    out
}

/// Turns fio's own messages into warnings and summarizes normal text output. Returns the
/// lines made warnings (fio's messages).
pub(super) fn report_outside_text(meta: &mut CaptureMeta, lines: &[(u64, &str)]) -> Vec<String> {
    let normal = lines.iter().any(|(_, l)| {
        l.starts_with("Run status group") || l.contains("(groupid=") || l.starts_with("Starting ")
    });
    let mut fio_said = Vec::new();
    let mut others = 0usize;
    for &(n, line) in lines {
        if let Some(msg) = line.strip_prefix("fio: ") {
            meta.warn(format!("fio said: {msg}"), Some(Location::line(n, 1)));
            fio_said.push(line.to_owned());
            if let Some(sig) = msg.strip_prefix("terminating on signal ") {
                meta.notes.push(format!(
                    "the run was interrupted (signal {sig}): the results cover the time before"
                ));
            }
        } else if !normal && lines.len() <= 10 {
            meta.warn(format!("text outside the JSON: {line}"), Some(Location::line(n, 1)));
            fio_said.push(line.to_owned());
        } else {
            others += 1;
        }
    }
    if others > 0 {
        meta.notes.push(if normal {
            format!(
                "{others} line(s) of fio's normal text output around the JSON skipped \
                 (--output-format=json,normal); the JSON was read"
            )
        } else {
            format!("{others} line(s) of text outside the JSON skipped")
        });
    }
    fio_said
}
