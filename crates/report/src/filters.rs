//! The Tera filters the templates format numbers and text with. They are thin wrappers
//! over [`crate::fmt`], so templates and Rust agree on every figure.
//!
//! | filter | input | example |
//! |---|---|---|
//! | `num` | number | `256.04` -> `256` |
//! | `unit(metric="read_latency_ms")` | number | `2.07` -> `2.07 ms` (frame units: MiB/s) |
//! | `unit(metric="vm.cached_mbps", finding=true)` | number | `256` -> `256 MB/s` (rule units) |
//! | `unit_name` | metric name | `read_mbps` -> `MiB/s` |
//! | `label` | metric name | `read_latency_ms` -> `read latency` |
//! | `percent` | number, 0-100 | `37.5` -> `37.5%` |
//! | `share` | number, percent | `102.64` -> `103%`, `0.4865` -> `0.49%` (shares and changes) |
//! | `duration` | seconds | `125` -> `2 min 5 s` |
//! | `money` | number | `1109.6` -> `1109.60` |
//! | `md` | text | escapes Markdown and HTML syntax, one line, safe in a table cell |
//! | `code(cell=false)` | text | a Markdown code span (`E:\io.dat`), pipes escaped in cells |

use std::collections::HashMap;

use tera::{Tera, Value};

use crate::fmt;

type Args = HashMap<String, Value>;

fn number(name: &str, v: &Value) -> tera::Result<Option<f64>> {
    match v {
        Value::Null => Ok(None),
        Value::Number(n) => Ok(n.as_f64()),
        other => Err(tera::Error::msg(format!("filter `{name}` expects a number, got {other}"))),
    }
}

fn text<'a>(name: &str, v: &'a Value) -> tera::Result<&'a str> {
    v.as_str().ok_or_else(|| tera::Error::msg(format!("filter `{name}` expects a string, got {v}")))
}

/// Shown where a figure is missing.
const MISSING: &str = "–";

fn num(v: &Value, _: &Args) -> tera::Result<Value> {
    Ok(number("num", v)?.map_or(MISSING.to_owned(), fmt::num).into())
}

fn unit(v: &Value, args: &Args) -> tera::Result<Value> {
    let metric = args.get("metric").and_then(Value::as_str).unwrap_or("");
    let finding = args.get("finding").and_then(Value::as_bool).unwrap_or(false);
    let f = if finding { fmt::finding_with_unit } else { fmt::with_unit };
    Ok(number("unit", v)?.map_or(MISSING.to_owned(), |x| f(x, metric)).into())
}

fn unit_name(v: &Value, _: &Args) -> tera::Result<Value> {
    Ok(fmt::unit_of(text("unit_name", v)?).unwrap_or("").into())
}

fn label(v: &Value, _: &Args) -> tera::Result<Value> {
    Ok(fmt::metric_label(text("label", v)?).into())
}

fn percent(v: &Value, _: &Args) -> tera::Result<Value> {
    Ok(number("percent", v)?.map_or(MISSING.to_owned(), fmt::percent).into())
}

fn share(v: &Value, _: &Args) -> tera::Result<Value> {
    Ok(number("share", v)?.map_or(MISSING.to_owned(), fmt::share).into())
}

/// A price with two decimals (`1109.6` -> `1109.60`).
fn money(v: &Value, _: &Args) -> tera::Result<Value> {
    Ok(number("money", v)?.map_or(MISSING.to_owned(), |x| format!("{x:.2}")).into())
}

fn duration(v: &Value, _: &Args) -> tera::Result<Value> {
    Ok(number("duration", v)?.map_or(MISSING.to_owned(), fmt::duration).into())
}

/// Escapes text for Markdown (GitHub and Azure DevOps): characters that would start
/// emphasis, code, links, HTML or a table cell are backslash-escaped, and line breaks
/// become spaces, so the text stays one paragraph or one cell and never becomes HTML. A
/// backslash is doubled only where it would escape what follows (before ASCII punctuation,
/// or at the end): `C:\testfile.foo` reads as written, in the source as on the page.
pub(crate) fn md_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    let mut last_space = false;
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some(n) if !n.is_ascii_punctuation() && !matches!(n, '\r' | '\n') => out.push('\\'),
                _ => out.push_str("\\\\"),
            }
            last_space = false;
            continue;
        }
        match c {
            '\r' | '\n' | '\t' => {
                if !last_space {
                    out.push(' ');
                }
                last_space = true;
                continue;
            }
            '\\' | '`' | '*' | '<' | '|' | '[' | ']' | '&' => {
                out.push('\\');
                out.push(c);
            }
            // Only at the start of a line do these begin a quote or a heading.
            '>' | '#' if out.is_empty() => {
                out.push('\\');
                out.push(c);
            }
            '_' if out.is_empty() || last_space => out.push_str("\\_"),
            _ => out.push(c),
        }
        last_space = c == ' ';
    }
    out
}

fn md(v: &Value, _: &Args) -> tera::Result<Value> {
    match v {
        Value::Null => Ok("".into()),
        Value::String(s) => Ok(md_escape(s).into()),
        other => Ok(md_escape(&other.to_string()).into()),
    }
}

/// A Markdown code span around `s`, for names that are full of backslashes (`E:\\io.dat`,
/// PerfMon counter paths): the fence is longer than any backtick run inside, line breaks
/// become spaces, and with `cell=true` pipes are escaped so a table cell stays one cell.
pub(crate) fn md_code(s: &str, cell: bool) -> String {
    let s = advisor_model::bounded(s);
    // A name with markup in it is escaped text, not a code span: some renderers of tickets
    // and wikis read HTML even inside code spans.
    if s.contains(['<', '>', '&']) {
        return md_escape(&s);
    }
    let body: String = s.chars().map(|c| if c == '\r' || c == '\n' { ' ' } else { c }).collect();
    let body = if cell { body.replace('|', "\\|") } else { body };
    let mut longest = 0;
    let mut run = 0;
    for c in body.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    let pad = if body.starts_with('`') || body.ends_with('`') { " " } else { "" };
    format!("{fence}{pad}{body}{pad}{fence}")
}

fn code(v: &Value, args: &Args) -> tera::Result<Value> {
    let cell = args.get("cell").and_then(Value::as_bool).unwrap_or(false);
    match v {
        Value::Null => Ok("".into()),
        Value::String(s) => Ok(md_code(s, cell).into()),
        other => Ok(md_code(&other.to_string(), cell).into()),
    }
}

pub(crate) fn register(tera: &mut Tera) {
    tera.register_filter("code", code);
    tera.register_filter("num", num);
    tera.register_filter("unit", unit);
    tera.register_filter("unit_name", unit_name);
    tera.register_filter("label", label);
    tera.register_filter("percent", percent);
    tera.register_filter("share", share);
    tera.register_filter("duration", duration);
    tera.register_filter("money", money);
    tera.register_filter("md", md);
}

#[cfg(test)]
mod tests {
    use super::{md_code, md_escape};

    #[test]
    fn code_spans() {
        assert_eq!(md_code("E:\\io.dat", false), "`E:\\io.dat`");
        assert_eq!(md_code("a|b", true), "`a\\|b`");
        assert_eq!(md_code("a`b", false), "``a`b``");
        assert_eq!(md_code("`x", false), "`` `x ``");
        assert_eq!(md_code("<img src=x>", true), "\\<img src=x>");
        let long = md_code(&"n".repeat(1 << 20), false);
        assert_eq!(long.chars().count(), 255 + 2, "254 characters, an ellipsis and the fences");
    }

    #[test]
    fn markdown_escapes() {
        assert_eq!(md_escape("a|b"), "a\\|b");
        assert_eq!(
            md_escape("<PowerScheme Name=\"<unknown>\">"),
            "\\<PowerScheme Name=\"\\<unknown>\">"
        );
        assert_eq!(md_escape("E:\\io.dat"), "E:\\io.dat");
        assert_eq!(md_escape("a\\*b and c:\\"), "a\\\\\\*b and c:\\\\");
        assert_eq!(md_escape("Standard_DS13_v2"), "Standard_DS13_v2");
        assert_eq!(md_escape("_x_ and *y*"), "\\_x_ and \\*y\\*");
        assert_eq!(md_escape("one\r\ntwo"), "one two");
        assert_eq!(md_escape("&amp;"), "\\&amp;");
        assert_eq!(md_escape("# p99 >= 10x p50"), "\\# p99 >= 10x p50");
    }
}
