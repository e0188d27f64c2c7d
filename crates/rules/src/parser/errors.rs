//! What the parser says about text it cannot read: the prescan that rejects, before pest
//! sees it, text too large or nested too deep, and pest's errors turned into [`Error`]s
//! with a span and the names of what was expected.

use pest::error::{ErrorVariant, InputLocation};

use super::{MAX_DEPTH, MAX_LEN, Res, Rule};
use crate::ast::Span;
use crate::diag::{Error, ErrorAt};

/// Rejects, before pest sees it, text whose nesting would recurse too deep: parentheses,
/// interpolations and runs of prefix operators beyond [`MAX_DEPTH`], and files beyond
/// [`MAX_LEN`].
pub(super) fn prescan(src: &str) -> Res<()> {
    if src.len() > MAX_LEN {
        return Err(Error::TooLarge { max: MAX_LEN }.at(Span::new(0, 0)));
    }
    #[derive(PartialEq)]
    enum Mode {
        Code,
        Str,
    }
    let bytes = src.as_bytes();
    let mut stack = vec![Mode::Code];
    let mut prefix_run = 0u32;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let top = stack.last().unwrap_or(&Mode::Code);
        if *top == Mode::Str {
            match b {
                b'\\' => i += 1,
                b'"' | b'\n' => {
                    stack.pop();
                }
                b'{' if bytes.get(i + 1) == Some(&b'{') => i += 1,
                b'{' => stack.push(Mode::Code),
                _ => {}
            }
            i += 1;
        } else {
            match b {
                b'#' => {
                    while i < bytes.len() && bytes[i] != b'\n' {
                        i += 1;
                    }
                }
                b'"' if bytes[i..].starts_with(b"\"\"\"") => {
                    i += 3;
                    while i < bytes.len() && !bytes[i..].starts_with(b"\"\"\"") {
                        i += 1;
                    }
                    i += 3;
                    prefix_run = 0;
                    continue;
                }
                b'"' => {
                    stack.push(Mode::Str);
                    prefix_run = 0;
                }
                b'(' => stack.push(Mode::Code),
                b')' | b'}' if stack.len() > 1 => {
                    stack.pop();
                    prefix_run = 0;
                }
                b'-' => prefix_run += 1,
                b' ' | b'\t' | b'\r' | b'\n' => {}
                _ if b.is_ascii_alphanumeric() || b == b'_' => {
                    let start = i;
                    while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_')
                    {
                        i += 1;
                    }
                    if &bytes[start..i] == b"not" {
                        prefix_run += 1;
                    } else {
                        prefix_run = 0;
                    }
                    continue;
                }
                _ => prefix_run = 0,
            }
            i += 1;
        }
        let depth = stack.len() as u32;
        if depth > MAX_DEPTH || prefix_run > MAX_DEPTH {
            let at = i.saturating_sub(1).min(src.len());
            let start = (0..=at).rev().find(|&k| src.is_char_boundary(k)).unwrap_or(0);
            return Err(Error::TooDeep { max: MAX_DEPTH }.at(Span::new(start, start)));
        }
    }
    Ok(())
}

/// A human name for what the grammar expected.
fn expected_name(r: Rule) -> &'static str {
    match r {
        Rule::expr | Rule::paren | Rule::path | Rule::call | Rule::aggregate => "an expression",
        Rule::op_neg | Rule::op_not => "an expression",
        Rule::op_or
        | Rule::op_and
        | Rule::op_eq
        | Rule::op_ne
        | Rule::op_lt
        | Rule::op_le
        | Rule::op_gt
        | Rule::op_ge
        | Rule::op_add
        | Rule::op_sub
        | Rule::op_mul
        | Rule::op_div => "an operator",
        Rule::number_lit | Rule::number => "a number",
        Rule::unit => "a unit",
        Rule::boolean => "true or false",
        Rule::string => "a string \"...\"",
        Rule::doc_string => "a \"\"\" block",
        Rule::name => "a name",
        Rule::field => "a field name",
        Rule::word => "a word",
        Rule::rule_id => "a rule id",
        Rule::kw_rule | Rule::rule_decl => "`rule ID`",
        Rule::kw_over => "`over`",
        Rule::kw_where | Rule::where_clause => "`where`",
        Rule::collection => "a collection",
        Rule::param_value => "a number or true/false",
        Rule::format_spec => "`:.N`",
        Rule::interp | Rule::str_text | Rule::str_escape | Rule::brace_escape => {
            "`\"` to close the string"
        }
        Rule::EOI => "the end of the file",
        Rule::title_item
        | Rule::severity_item
        | Rule::scope_item
        | Rule::refs_item
        | Rule::param_item
        | Rule::let_item
        | Rule::when_item
        | Rule::evidence_item
        | Rule::fix_item
        | Rule::case_item
        | Rule::doc_item
        | Rule::kw_title
        | Rule::kw_severity
        | Rule::kw_scope
        | Rule::kw_refs
        | Rule::kw_param
        | Rule::kw_let
        | Rule::kw_when
        | Rule::kw_evidence
        | Rule::kw_fix
        | Rule::kw_case
        | Rule::kw_doc => {
            "an item (title, severity, scope, refs, param, let, when, evidence, fix, case, doc)"
        }
        _ => "something else",
    }
}

pub(super) fn from_pest(e: &pest::error::Error<Rule>, src: &str) -> ErrorAt {
    let (start, end) = match e.location {
        InputLocation::Pos(p) => (p, p),
        InputLocation::Span((s, e)) => (s, e),
    };
    let start = start.min(src.len());
    let end = end.clamp(start, src.len());
    let expected = match &e.variant {
        ErrorVariant::ParsingError { positives, .. } => {
            let mut names: Vec<&str> = Vec::new();
            for r in positives {
                let n = expected_name(*r);
                if !names.contains(&n) {
                    names.push(n);
                }
            }
            match names.len() {
                0 => "something else".to_owned(),
                1 => names[0].to_owned(),
                n => format!("{} or {}", names[..n - 1].join(", "), names[n - 1]),
            }
        }
        ErrorVariant::CustomError { message } => message.clone(),
    };
    // Point at the offending token (or character) rather than at nothing.
    let mut stop = end;
    if stop == start {
        let rest = &src[start..];
        let tok = rest
            .char_indices()
            .take_while(|(_, c)| c.is_alphanumeric() || *c == '_')
            .last()
            .map(|(i, c)| i + c.len_utf8());
        stop = start + tok.unwrap_or_else(|| rest.chars().next().map_or(0, |c| c.len_utf8()));
        if rest.starts_with('\n') || rest.starts_with('\r') {
            stop = start;
        }
    }
    let found = match src[start..stop].trim() {
        "" if start >= src.trim_end().len() => Some("the end of the file".to_owned()),
        "" => None,
        t => Some(format!("`{t}`")),
    };
    Error::Syntax { expected, found }.at(Span::new(start, stop))
}
