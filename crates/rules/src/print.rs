//! AST to canonical rule text. What it prints parses back to the same tree (spans aside):
//! parentheses are put back where precedence needs them, strings are escaped, and the
//! items come in the reference's order. Comments are not part of the tree and are lost.

use std::fmt::Write as _;

use crate::ast::*;

/// A number as the grammar reads it: shortest round-tripping decimal, no exponent.
pub fn number_text(v: f64) -> String {
    format!("{v}")
}

/// `95%`, `8 KiB`, `12`.
pub fn number(n: &Number) -> String {
    match n.unit {
        None => number_text(n.value),
        Some(UnitLit::Percent) => format!("{}%", number_text(n.value)),
        Some(u) => format!("{} {u}", number_text(n.value)),
    }
}

/// A parameter value.
pub fn param_value(v: &ParamValue) -> String {
    match v {
        ParamValue::Number(n) => number(n),
        ParamValue::Bool { value, .. } => value.to_string(),
    }
}

/// A string with its quotes, escapes and interpolations.
pub fn template(t: &Template) -> String {
    let mut out = String::from("\"");
    for p in &t.parts {
        match p {
            Part::Text(s) => {
                for c in s.chars() {
                    match c {
                        '"' => out.push_str("\\\""),
                        '\\' => out.push_str("\\\\"),
                        '\n' => out.push_str("\\n"),
                        '\t' => out.push_str("\\t"),
                        '{' => out.push_str("{{"),
                        '}' => out.push_str("}}"),
                        c => out.push(c),
                    }
                }
            }
            Part::Interp { expr: e, decimals, .. } => {
                out.push('{');
                out.push_str(&expr(e));
                if let Some(d) = decimals {
                    let _ = write!(out, ":.{d}");
                }
                out.push('}');
            }
        }
    }
    out.push('"');
    out
}

/// An expression, fully readable back.
pub fn expr(e: &Expr) -> String {
    let mut out = String::new();
    write_expr(&mut out, e);
    out
}

const ATOM: u8 = 8;

fn precedence(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Binary { op, .. } => op.precedence(),
        ExprKind::Unary { op, .. } => op.precedence(),
        _ => ATOM,
    }
}

/// An aggregate with `where` swallows what follows it: as an operand it needs parentheses.
fn open_ended(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Aggregate { filter: Some(_), .. })
}

fn operand(out: &mut String, e: &Expr, parens: bool) {
    if parens || open_ended(e) {
        out.push('(');
        write_expr(out, e);
        out.push(')');
    } else {
        write_expr(out, e);
    }
}

fn write_expr(out: &mut String, e: &Expr) {
    match &e.kind {
        ExprKind::Number(n) => out.push_str(&number(n)),
        ExprKind::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        ExprKind::Str(t) => out.push_str(&template(t)),
        ExprKind::Path(p) => out.push_str(&p.to_string()),
        ExprKind::Unary { op, operand: o } => {
            out.push_str(match op {
                UnaryOp::Neg => "-",
                UnaryOp::Not => "not ",
            });
            operand(out, o, precedence(o) < op.precedence());
        }
        ExprKind::Binary { op, lhs, rhs } => {
            let p = op.precedence();
            operand(out, lhs, precedence(lhs) < p);
            let _ = write!(out, " {} ", op.as_str());
            operand(out, rhs, precedence(rhs) <= p);
        }
        ExprKind::Call { func, args } => {
            out.push_str(&func.name);
            out.push('(');
            for (i, a) in args.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_expr(out, a);
            }
            out.push(')');
        }
        ExprKind::Aggregate { func, body, over, filter } => {
            let _ = write!(out, "{}(", func.name);
            write_expr(out, body);
            let _ = write!(out, ") over {over}");
            if let Some(f) = filter {
                out.push_str(" where ");
                write_expr(out, f);
            }
        }
    }
}

/// A whole rule file in canonical layout.
pub fn print(file: &File) -> String {
    let r = &file.rule;
    let h = &r.header;
    let mut out = String::new();
    let _ = writeln!(out, "rule {}", h.id.name);
    if let Some(t) = &h.title {
        let _ = writeln!(out, "title    {}", template(t));
    }
    if let Some(s) = &h.severity {
        let _ = writeln!(out, "severity {}", s.name);
    }
    if let Some(s) = &h.scope {
        let _ = writeln!(out, "scope    {}", s.name);
    }
    for (i, t) in h.refs.iter().enumerate() {
        let lead = if i == 0 { "refs    " } else { "        " };
        let _ = writeln!(out, "{lead} {}", template(t));
    }
    if !r.params.is_empty() {
        out.push('\n');
    }
    for p in &r.params {
        let _ = write!(out, "param {} = {}", p.name.name, param_value(&p.default));
        if let Some(d) = &p.description {
            let _ = write!(out, " {}", template(d));
        }
        out.push('\n');
    }
    if !r.lets.is_empty() {
        out.push('\n');
    }
    for l in &r.lets {
        let _ = writeln!(out, "let {} = {}", l.name.name, expr(&l.value));
    }
    if let Some(w) = &r.when {
        let _ = writeln!(out, "\nwhen {}", expr(&w.cond));
    }
    if r.evidence.is_some() || r.fix.is_some() {
        out.push('\n');
    }
    if let Some(e) = &r.evidence {
        let _ = writeln!(out, "evidence {}", template(&e.text));
    }
    if let Some(f) = &r.fix {
        let _ = writeln!(out, "fix      {}", template(&f.text));
    }
    for c in &r.cases {
        let _ = writeln!(out, "\ncase {} when {}", c.severity.name, expr(&c.cond));
        if let Some(t) = &c.title {
            let _ = writeln!(out, "title    {}", template(t));
        }
        let _ = writeln!(out, "evidence {}", template(&c.evidence.text));
        let _ = writeln!(out, "fix      {}", template(&c.fix.text));
    }
    if let Some(e) = &r.episodes {
        let _ = write!(
            out,
            "\nepisodes {} against {} at {}",
            expr(&e.series),
            expr(&e.cap),
            expr(&e.ratio)
        );
        if let Some(l) = &e.latency {
            let _ = write!(out, " latency {}", expr(l));
        }
        out.push('\n');
    }
    if !r.explains.is_empty() {
        let ids: Vec<&str> = r.explains.iter().map(|i| i.name.as_str()).collect();
        let _ = write!(out, "\nexplains {}", ids.join(" "));
        if let Some(w) = &r.explains_where {
            let _ = write!(out, " where {}", expr(w));
        }
        out.push('\n');
    }
    for d in &r.docs {
        let _ = writeln!(out, "\ndoc {} \"\"\"\n{}\n\"\"\"", d.kind.name, d.text);
    }
    out
}
