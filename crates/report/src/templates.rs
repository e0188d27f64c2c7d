//! The templates: compiled in from the repository's `templates/`, overridable file by file
//! from a directory, all in one Tera instance with the report's filters.

use std::path::{Path, PathBuf};

use rust_embed::RustEmbed;

use crate::ReportError;
use crate::filters;

#[derive(RustEmbed)]
#[folder = "../../templates/"]
#[include = "*.tera"]
struct Embedded;

/// The names of the compiled-in templates (`report.html.tera`, `partials/...`), sorted.
pub fn embedded_names() -> Vec<String> {
    let mut names: Vec<String> = Embedded::iter().map(|n| n.into_owned()).collect();
    names.sort();
    names
}

/// A Tera error with its causes, which is where Tera puts the line and the reason.
pub(crate) fn chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        out.push_str(": ");
        out.push_str(&c.to_string());
        cur = c.source();
    }
    out
}

fn overrides(dir: &Path) -> Result<Vec<(String, String)>, ReportError> {
    let io = |path: &Path, source| ReportError::Overrides { path: path.to_path_buf(), source };
    let mut out = Vec::new();
    let mut stack: Vec<PathBuf> = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).map_err(|e| io(&d, e))? {
            let path = entry.map_err(|e| io(&d, e))?.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|x| x == "tera") {
                let text = std::fs::read_to_string(&path).map_err(|e| io(&path, e))?;
                let rel = path.strip_prefix(dir).unwrap_or(&path);
                let name = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy())
                    .collect::<Vec<_>>()
                    .join("/");
                out.push((name, text));
            }
        }
    }
    Ok(out)
}

/// HTML escaping of text and attribute values. Tera's default also escapes `/`, which
/// would turn every link and path in the page into `&#x2F;` soup for no safety gain.
fn escape_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// One Tera instance: every embedded template, then the overrides, then the filters.
pub(crate) fn load(dir: Option<&Path>) -> Result<tera::Tera, ReportError> {
    let mut sources: Vec<(String, String)> = Vec::new();
    for name in embedded_names() {
        if let Some(file) = Embedded::get(&name) {
            let text = String::from_utf8_lossy(&file.data).into_owned();
            sources.push((name, text));
        }
    }
    if let Some(dir) = dir {
        for (name, text) in overrides(dir)? {
            match sources.iter_mut().find(|(n, _)| *n == name) {
                Some(slot) => slot.1 = text,
                None => sources.push((name, text)),
            }
        }
    }
    let mut tera = tera::Tera::default();
    // HTML templates escape every interpolation unless marked `safe`; Markdown templates
    // escape explicitly with the `md` filter.
    tera.autoescape_on(vec![".html.tera", ".html"]);
    tera.set_escape_fn(escape_html);
    filters::register(&mut tera);
    tera.add_raw_templates(sources).map_err(|e| ReportError::Template {
        name: dir.map_or_else(|| "(embedded)".to_owned(), |d| d.display().to_string()),
        message: chain(&e),
    })?;
    Ok(tera)
}
