//! `advisor rules explain ID`: a rule's documentation as text.

use std::fmt::Write as _;

use crate::check::CheckedRule;

fn indent(out: &mut String, text: &str) {
    for line in text.lines() {
        if line.trim().is_empty() {
            out.push('\n');
        } else {
            let _ = writeln!(out, "  {line}");
        }
    }
}

/// Title, severity, scope, the doc sections, the condition, parameters with their defaults
/// and descriptions, and the references.
pub fn explain(rule: &CheckedRule) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}: {}", rule.id, rule.title);
    let _ = writeln!(out, "  severity: {}", rule.severity);
    let _ = writeln!(out, "  scope:    {}", rule.scope);
    let _ = writeln!(out, "  file:     {}", rule.file);
    for (head, text) in [
        ("What it checks", &rule.doc.what),
        ("Why it matters", &rule.doc.why),
        ("The fix", &rule.doc.fix),
    ] {
        let _ = writeln!(out, "\n{head}");
        indent(&mut out, text);
    }
    if let Some(w) = &rule.ast.rule.when {
        let _ = writeln!(out, "\nFires when");
        let _ = writeln!(out, "  {}", crate::print::expr(&w.cond));
    }
    for c in &rule.ast.rule.cases {
        let _ = writeln!(out, "\nReported as {} when", c.severity.name);
        let _ = writeln!(out, "  {}", crate::print::expr(&c.cond));
    }
    if !rule.params.is_empty() {
        let _ = writeln!(out, "\nParameters (--set {}.NAME=VALUE)", rule.id);
        let width =
            rule.params.iter().map(|p| p.name.len() + p.value_text.len() + 3).max().unwrap_or(0);
        for p in &rule.params {
            let lhs = format!("{} = {}", p.name, p.value_text);
            let _ = write!(out, "  {lhs:<width$}  {}", p.description);
            if p.value_text != p.default_text {
                let _ = write!(out, " (default {})", p.default_text);
            }
            out.push('\n');
        }
    }
    if !rule.refs.is_empty() {
        let _ = writeln!(out, "\nReferences");
        for r in &rule.refs {
            let _ = writeln!(out, "  - {r}");
        }
    }
    out
}
