//! A snapshot page as the generator reads it: its `<!-- source: ... -->` line, then headings,
//! feature statements, "no local storage" notes and tables, in page order. Other lines are
//! ignored (the snapshot keeps none, but a pasted page may).

use anyhow::{Result, bail};

/// A feature a page states for its sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Feature {
    PremiumStorage,
    PremiumCaching,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Item {
    Heading {
        level: usize,
        text: String,
    },
    /// `Supported`, `Not Supported`, `Supported (except for L96s_v4)`.
    Feature {
        feature: Feature,
        value: String,
        line: usize,
    },
    NoLocalStorage,
    Table(Table),
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Table {
    pub(crate) line: usize,
    pub(crate) header: Vec<String>,
    pub(crate) rows: Vec<Row>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Row {
    pub(crate) line: usize,
    pub(crate) cells: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Page {
    /// `repository:path@commit`.
    pub(crate) source: String,
    pub(crate) items: Vec<Item>,
}

/// The cells of a table line: outer pipes dropped, each cell trimmed. A line that starts
/// with `||` keeps its empty first cell (the caller aligns it).
pub(crate) fn split_cells(line: &str) -> Vec<String> {
    let t = line.trim();
    let t = t.strip_prefix('|').unwrap_or(t);
    let t = t.strip_suffix('|').unwrap_or(t);
    t.split('|').map(|c| c.trim().to_owned()).collect()
}

fn is_separator(line: &str) -> bool {
    let cells = split_cells(line);
    !cells.is_empty()
        && line.trim_start().starts_with('|')
        && cells.iter().all(|c| {
            let c = c.trim_matches(':');
            !c.is_empty() && c.bytes().all(|b| b == b'-')
        })
}

/// The feature statements of one line: `[Premium Storage](...): Supported <br>[...]`,
/// `- [Premium Storage](...): Supported`, `Premium Storage:  Not Supported`, and the feature
/// table's `|[Premium Storage](...)| Supported |`.
pub(crate) fn features(line: &str) -> Vec<(Feature, String)> {
    let mut out = Vec::new();
    for piece in line.split("<br>") {
        let text = unlink(piece);
        let t = text.trim().trim_start_matches('-').trim().trim_start_matches('|').trim();
        let t = t.strip_suffix('|').unwrap_or(t).trim();
        let (name, value) = match t.split_once(':').or_else(|| t.split_once('|')) {
            Some(x) => x,
            None => continue,
        };
        let feature = match name.trim() {
            "Premium Storage" => Feature::PremiumStorage,
            "Premium Storage caching" => Feature::PremiumCaching,
            _ => continue,
        };
        let value = value.split_whitespace().collect::<Vec<_>>().join(" ");
        out.push((feature, value));
    }
    out
}

/// `[text](link)` -> `text`.
fn unlink(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('[') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        match after.find("](") {
            Some(j) => {
                out.push_str(&after[..j]);
                let tail = &after[j + 2..];
                rest = match tail.find(')') {
                    Some(k) => &tail[k + 1..],
                    None => "",
                };
            }
            None => {
                out.push('[');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn no_local_storage(line: &str) -> bool {
    let l = line.to_ascii_lowercase();
    l.contains("no local storage present")
        || l.contains("doesn't include local storage")
        || l.contains("doesn't have local storage")
        || l.contains("does not include local storage")
}

pub(crate) fn parse(text: &str) -> Result<Page> {
    let lines: Vec<&str> = text.lines().collect();
    let first = lines.first().copied().unwrap_or_default();
    let source = match first.trim().strip_prefix("<!-- source:").and_then(|s| s.strip_suffix("-->"))
    {
        Some(s) => s.trim().to_owned(),
        None => bail!("line 1 must be `<!-- source: REPO:PATH@COMMIT -->`"),
    };
    if !source.contains(':') || !source.contains('@') {
        bail!("line 1: the source `{source}` is not `REPO:PATH@COMMIT`");
    }
    let mut items = Vec::new();
    let mut i = 1;
    while i < lines.len() {
        let line = lines[i];
        let t = line.trim();
        if t.starts_with('#') {
            let level = t.bytes().take_while(|b| *b == b'#').count();
            items.push(Item::Heading { level, text: t[level..].trim().to_owned() });
            i += 1;
            continue;
        }
        if t.starts_with('|') && i + 1 < lines.len() && is_separator(lines[i + 1]) {
            let header = split_cells(t);
            let feature_table =
                header.first().is_some_and(|h| h.trim().eq_ignore_ascii_case("feature name"));
            let mut rows = Vec::new();
            let start = i + 1;
            i += 2;
            while i < lines.len() && lines[i].trim().starts_with('|') {
                if feature_table {
                    for (feature, value) in features(lines[i]) {
                        items.push(Item::Feature { feature, value, line: i + 1 });
                    }
                } else {
                    rows.push(Row { line: i + 1, cells: split_cells(lines[i]) });
                }
                i += 1;
            }
            if !feature_table {
                items.push(Item::Table(Table { line: start, header, rows }));
            }
            continue;
        }
        if no_local_storage(t) {
            items.push(Item::NoLocalStorage);
        } else {
            for (feature, value) in features(t) {
                items.push(Item::Feature { feature, value, line: i + 1 });
            }
        }
        i += 1;
    }
    Ok(Page { source, items })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feature_lines_of_every_shape() {
        let f = |l: &str| features(l);
        assert_eq!(
            f(
                "[Premium Storage](../../p.md): Supported <br>[Premium Storage caching](../../p.md): Not Supported <br>[Live Migration](x.md): Supported <br>"
            ),
            [
                (Feature::PremiumStorage, "Supported".to_owned()),
                (Feature::PremiumCaching, "Not Supported".to_owned())
            ]
        );
        assert_eq!(
            f("- [Premium Storage caching](../../p.md): Supported "),
            [(Feature::PremiumCaching, "Supported".to_owned())]
        );
        assert_eq!(
            f("Premium Storage:  Not Supported"),
            [(Feature::PremiumStorage, "Not Supported".to_owned())]
        );
        assert_eq!(
            f("|[Premium Storage caching](../../p.md)| Supported (except for L32aos_v5) |"),
            [(Feature::PremiumCaching, "Supported (except for L32aos_v5)".to_owned())]
        );
        assert!(f("Premium Storage is great").is_empty());
    }

    #[test]
    fn a_page_in_order() {
        let page = parse(
            "<!-- source: R/x:a/b.md@abc -->\n\n## Feature support\n- [Premium Storage](p): Supported\n\n### [Basics](#tab/b)\n\n| Size Name | vCPUs (Qty.) | Memory (GB) \n| --- | --- | --- |\n| Standard_X2 | 2 | 8 |\n\n### [Local storage](#tab/l)\n\n> [!NOTE]\n> No local storage present in this series.\n\n## Feature support\n\n|Feature name | Support status |\n| --- | --- |\n|[Premium Storage caching](p)| Supported |\n",
        )
        .unwrap();
        assert_eq!(page.source, "R/x:a/b.md@abc");
        let kinds: Vec<&str> = page
            .items
            .iter()
            .map(|i| match i {
                Item::Heading { .. } => "h",
                Item::Feature { .. } => "f",
                Item::NoLocalStorage => "n",
                Item::Table(_) => "t",
            })
            .collect();
        assert_eq!(kinds, ["h", "f", "h", "t", "h", "n", "h", "f"]);
        let Item::Table(t) = &page.items[3] else { unreachable!() };
        assert_eq!(t.header, ["Size Name", "vCPUs (Qty.)", "Memory (GB)"]);
        assert_eq!(t.rows[0].cells, ["Standard_X2", "2", "8"]);
        assert!(parse("no source").is_err());
    }
}
