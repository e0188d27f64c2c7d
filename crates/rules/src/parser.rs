//! Text to [`ast`](crate::ast). pest `Pair`s never leave this module: they are turned into
//! the spanned AST here, and pest's errors into [`Error`]s with a span.

use std::sync::LazyLock;

use pest::Parser as _;
use pest::iterators::Pair;
use pest::pratt_parser::{Assoc, Op, PrattParser};

use crate::ast::Rule as RuleAst;
use crate::ast::*;
use crate::diag::{Error, ErrorAt};

#[derive(pest_derive::Parser)]
#[grammar = "grammar.pest"]
struct Grammar;

/// Deepest nesting of parentheses, interpolations and prefix operators accepted, and of
/// the expression tree: keeps recursion (pest's, ours, the checker's, `Drop`'s) bounded
/// whatever the text.
pub const MAX_DEPTH: u32 = 32;

/// The largest rule file read, in bytes.
pub const MAX_LEN: usize = 256 * 1024;

static PRATT: LazyLock<PrattParser<Rule>> = LazyLock::new(|| {
    PrattParser::new()
        .op(Op::infix(Rule::op_or, Assoc::Left))
        .op(Op::infix(Rule::op_and, Assoc::Left))
        .op(Op::prefix(Rule::op_not))
        .op(Op::infix(Rule::op_eq, Assoc::Left)
            | Op::infix(Rule::op_ne, Assoc::Left)
            | Op::infix(Rule::op_lt, Assoc::Left)
            | Op::infix(Rule::op_le, Assoc::Left)
            | Op::infix(Rule::op_gt, Assoc::Left)
            | Op::infix(Rule::op_ge, Assoc::Left))
        .op(Op::infix(Rule::op_add, Assoc::Left) | Op::infix(Rule::op_sub, Assoc::Left))
        .op(Op::infix(Rule::op_mul, Assoc::Left) | Op::infix(Rule::op_div, Assoc::Left))
        .op(Op::prefix(Rule::op_neg))
});

type Res<T> = Result<T, ErrorAt>;

mod errors;

use errors::{from_pest, prescan};

/// Parses a rule file. Syntax errors stop at the first one (pest's furthest failure);
/// misplaced and repeated items are all reported.
pub fn parse(src: &str) -> Result<File, Vec<ErrorAt>> {
    prescan(src).map_err(|e| vec![e])?;
    let mut pairs = Grammar::parse(Rule::file, src).map_err(|e| vec![from_pest(&e, src)])?;
    let Some(file) = pairs.next() else {
        return Err(vec![Error::syntax("a rule").at(Span::new(0, 0))]);
    };
    build_file(file)
}

/// Parses one expression (built-in examples, tests).
pub fn parse_expr(src: &str) -> Res<Expr> {
    prescan(src)?;
    let mut pairs = Grammar::parse(Rule::expr_only, src).map_err(|e| from_pest(&e, src))?;
    let inner = pairs.next().and_then(|p| p.into_inner().next());
    match inner {
        Some(p) => Ok(expr(p)?.0),
        None => Err(Error::syntax("an expression").at(Span::new(0, 0))),
    }
}

/// Parses a parameter value as `--set` gives it: `90%`, `2 ms`, `true`.
pub fn parse_param_value(src: &str) -> Res<ParamValue> {
    prescan(src)?;
    let mut pairs = Grammar::parse(Rule::param_value_only, src).map_err(|e| from_pest(&e, src))?;
    let inner = pairs.next().and_then(|p| p.into_inner().next());
    match inner {
        Some(p) => param_value(p),
        None => Err(Error::syntax("a value").at(Span::new(0, 0))),
    }
}

fn span_of(p: &Pair<'_, Rule>) -> Span {
    let s = p.as_span();
    Span::new(s.start(), s.end())
}

fn ident(p: &Pair<'_, Rule>) -> Ident {
    Ident::new(p.as_str(), span_of(p))
}

fn syntax(expected: &str, span: Span) -> ErrorAt {
    Error::syntax(expected).at(span)
}

/// Where an item may appear: header, bindings, when, evidence/fix, docs.
fn rank(rule: Rule) -> u8 {
    match rule {
        Rule::title_item | Rule::severity_item | Rule::scope_item | Rule::refs_item => 1,
        Rule::param_item | Rule::let_item => 2,
        Rule::when_item => 3,
        Rule::evidence_item | Rule::fix_item => 4,
        Rule::case_item | Rule::episodes_item | Rule::explains_item => 5,
        _ => 6,
    }
}

fn keyword_of(rule: Rule) -> &'static str {
    match rule {
        Rule::title_item => "title",
        Rule::severity_item => "severity",
        Rule::scope_item => "scope",
        Rule::refs_item => "refs",
        Rule::param_item => "param",
        Rule::let_item => "let",
        Rule::when_item => "when",
        Rule::evidence_item => "evidence",
        Rule::fix_item => "fix",
        Rule::case_item => "case",
        Rule::episodes_item => "episodes",
        Rule::explains_item => "explains",
        _ => "doc",
    }
}

fn build_file(file: Pair<'_, Rule>) -> Result<File, Vec<ErrorAt>> {
    let file_span = span_of(&file);
    let mut errors = Vec::new();
    let mut inner = file.into_inner();
    let Some(decl) = inner.next() else {
        return Err(vec![syntax("`rule ID`", file_span)]);
    };
    let decl_span = span_of(&decl);
    let id = decl
        .into_inner()
        .find(|p| p.as_rule() == Rule::rule_id)
        .map(|p| ident(&p))
        .unwrap_or_else(|| Ident::new("", decl_span));
    let mut rule = RuleAst {
        header: Header {
            id,
            title: None,
            severity: None,
            scope: None,
            refs: Vec::new(),
            span: decl_span,
        },
        params: Vec::new(),
        lets: Vec::new(),
        when: None,
        evidence: None,
        fix: None,
        cases: Vec::new(),
        episodes: None,
        explains: Vec::new(),
        explains_where: None,
        docs: Vec::new(),
    };
    let mut highest: Option<Rule> = None;
    for item in inner {
        let kind = item.as_rule();
        if kind == Rule::EOI {
            break;
        }
        let span = span_of(&item);
        let kw_span = item.clone().into_inner().next().map_or(span, |k| span_of(&k));
        if let Some(h) = highest
            && rank(kind) < rank(h)
        {
            errors.push(
                Error::ItemOutOfOrder { item: keyword_of(kind), after: keyword_of(h) }.at(kw_span),
            );
        }
        if highest.is_none_or(|h| rank(kind) > rank(h)) {
            highest = Some(kind);
        }
        if let Err(e) = add_item(&mut rule, item, span, kw_span) {
            errors.push(e);
        }
    }
    if errors.is_empty() { Ok(File { rule, span: file_span }) } else { Err(errors) }
}

/// The children of an item after its keyword.
fn args(item: Pair<'_, Rule>) -> impl Iterator<Item = Pair<'_, Rule>> {
    item.into_inner().skip(1)
}

fn set_once<T>(slot: &mut Option<T>, value: T, item: &'static str, at: Span) -> Res<()> {
    if slot.is_some() {
        return Err(Error::DuplicateItem { item: item.into() }.at(at));
    }
    *slot = Some(value);
    Ok(())
}

fn add_item(rule: &mut RuleAst, item: Pair<'_, Rule>, span: Span, kw: Span) -> Res<()> {
    let kind = item.as_rule();
    let missing = || syntax("more after the keyword", span);
    match kind {
        Rule::title_item => {
            let s = args(item).next().ok_or_else(missing)?;
            let t = template(s)?;
            set_once(&mut rule.header.title, t, "title", kw)
        }
        Rule::severity_item => {
            let w = args(item).next().ok_or_else(missing)?;
            set_once(&mut rule.header.severity, ident(&w), "severity", kw)
        }
        Rule::scope_item => {
            let w = args(item).next().ok_or_else(missing)?;
            set_once(&mut rule.header.scope, ident(&w), "scope", kw)
        }
        Rule::refs_item => {
            if !rule.header.refs.is_empty() {
                return Err(Error::DuplicateItem { item: "refs".into() }.at(kw));
            }
            for s in args(item) {
                rule.header.refs.push(template(s)?);
            }
            Ok(())
        }
        Rule::param_item => {
            let mut a = args(item);
            let name = a.next().ok_or_else(missing)?;
            let value = a.next().ok_or_else(missing)?;
            let description = a.next().map(template).transpose()?;
            rule.params.push(Param {
                name: ident(&name),
                default: param_value(value)?,
                description,
                span,
            });
            Ok(())
        }
        Rule::let_item => {
            let mut a = args(item);
            let name = a.next().ok_or_else(missing)?;
            let value = a.next().ok_or_else(missing)?;
            rule.lets.push(Let { name: ident(&name), value: expr(value)?.0, span });
            Ok(())
        }
        Rule::when_item => {
            let c = args(item).next().ok_or_else(missing)?;
            let cond = expr(c)?.0;
            set_once(&mut rule.when, When { cond, span }, "when", kw)
        }
        Rule::evidence_item => {
            let s = args(item).next().ok_or_else(missing)?;
            let text = template(s)?;
            set_once(&mut rule.evidence, Evidence { text, span }, "evidence", kw)
        }
        Rule::fix_item => {
            let s = args(item).next().ok_or_else(missing)?;
            let text = template(s)?;
            set_once(&mut rule.fix, Fix { text, span }, "fix", kw)
        }
        Rule::case_item => {
            let mut a = args(item);
            let w = a.next().ok_or_else(missing)?;
            // The `when` keyword, then the condition and the two texts.
            let _when = a.next().ok_or_else(missing)?;
            let c = a.next().ok_or_else(missing)?;
            let cond = expr(c)?.0;
            let text_of = |p: Option<Pair<'_, Rule>>| -> Res<(Template, Span)> {
                let p = p.ok_or_else(missing)?;
                let at = span_of(&p);
                let s = args(p).next().ok_or_else(missing)?;
                Ok((template(s)?, at))
            };
            let mut next = a.next();
            let mut title = None;
            if let Some(t) = next.clone().filter(|p| p.as_rule() == Rule::title_item) {
                title = Some(text_of(Some(t))?.0);
                next = a.next();
            }
            let (evidence, e_span) = text_of(next)?;
            let (fix, f_span) = text_of(a.next())?;
            rule.cases.push(Case {
                severity: ident(&w),
                cond,
                title,
                evidence: Evidence { text: evidence, span: e_span },
                fix: Fix { text: fix, span: f_span },
                span,
            });
            Ok(())
        }
        Rule::episodes_item => {
            // The keywords `against`, `at` and `latency` are pairs of their own: skip them.
            let mut exprs = args(item).filter(|p| p.as_rule() == Rule::expr);
            let series = expr(exprs.next().ok_or_else(missing)?)?.0;
            let cap = expr(exprs.next().ok_or_else(missing)?)?.0;
            let ratio = expr(exprs.next().ok_or_else(missing)?)?.0;
            let latency = exprs.next().map(expr).transpose()?.map(|e| e.0);
            let e = Episodes { series, cap, ratio, latency, span };
            set_once(&mut rule.episodes, e, "episodes", kw)
        }
        Rule::explains_item => {
            if !rule.explains.is_empty() {
                return Err(Error::DuplicateItem { item: "explains".into() }.at(kw));
            }
            for p in args(item) {
                if p.as_rule() == Rule::where_clause {
                    let cond = p.into_inner().nth(1).ok_or_else(missing)?;
                    rule.explains_where = Some(expr(cond)?.0);
                } else {
                    rule.explains.push(ident(&p));
                }
            }
            Ok(())
        }
        _ => {
            let mut a = args(item);
            let k = a.next().ok_or_else(missing)?;
            let body = a.next().and_then(|d| d.into_inner().next());
            let text = body.map(|b| dedent(b.as_str())).unwrap_or_default();
            rule.docs.push(Doc { kind: ident(&k), text, span });
            Ok(())
        }
    }
}

/// The text of a `"""` block: the first newline, trailing blank space and the common
/// indentation of non-blank lines removed.
pub(crate) fn dedent(raw: &str) -> String {
    let raw = raw.strip_prefix("\r\n").or_else(|| raw.strip_prefix('\n')).unwrap_or(raw);
    let raw = raw.trim_end();
    let indent = raw
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start_matches([' ', '\t']).len())
        .min()
        .unwrap_or(0);
    let mut out = String::new();
    for (i, line) in raw.lines().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let line = line.strip_suffix('\r').unwrap_or(line);
        out.push_str(line.get(indent..).unwrap_or_else(|| line.trim_start()));
    }
    out
}

fn number(p: Pair<'_, Rule>) -> Res<Number> {
    let span = span_of(&p);
    let mut inner = p.into_inner();
    let digits = inner.next().ok_or_else(|| syntax("a number", span))?;
    let value: f64 =
        digits.as_str().parse().map_err(|_| Error::NumberOutOfRange.at(span_of(&digits)))?;
    if !value.is_finite() {
        return Err(Error::NumberOutOfRange.at(span_of(&digits)));
    }
    let unit = match inner.next() {
        Some(u) => Some(
            UnitLit::parse(u.as_str()).ok_or_else(|| Error::syntax("a unit").at(span_of(&u)))?,
        ),
        None => None,
    };
    Ok(Number { value, unit, span })
}

fn param_value(p: Pair<'_, Rule>) -> Res<ParamValue> {
    let span = span_of(&p);
    let mut negative = false;
    for c in p.into_inner() {
        match c.as_rule() {
            Rule::neg_sign => negative = true,
            Rule::number_lit => {
                let mut n = number(c)?;
                if negative {
                    n.value = -n.value;
                    n.span = span;
                }
                return Ok(ParamValue::Number(n));
            }
            Rule::boolean => return Ok(ParamValue::Bool { value: c.as_str() == "true", span }),
            _ => {}
        }
    }
    Err(syntax("a number or true/false", span))
}

fn template(p: Pair<'_, Rule>) -> Res<Template> {
    let span = span_of(&p);
    let mut parts: Vec<Part> = Vec::new();
    let push_text = |parts: &mut Vec<Part>, s: &str| {
        if let Some(Part::Text(t)) = parts.last_mut() {
            t.push_str(s);
        } else {
            parts.push(Part::Text(s.to_owned()));
        }
    };
    for c in p.into_inner() {
        match c.as_rule() {
            Rule::str_text => push_text(&mut parts, c.as_str()),
            Rule::brace_escape => push_text(&mut parts, &c.as_str()[..1]),
            Rule::str_escape => {
                let s = match c.as_str() {
                    "\\n" => "\n",
                    "\\t" => "\t",
                    "\\\"" => "\"",
                    _ => "\\",
                };
                push_text(&mut parts, s);
            }
            Rule::interp => {
                let ispan = span_of(&c);
                let mut inner = c.into_inner();
                let e = inner.next().ok_or_else(|| syntax("an expression", ispan))?;
                let e = expr(e)?.0;
                let decimals = match inner.next() {
                    Some(spec) => {
                        let dspan = span_of(&spec);
                        let digits = spec.into_inner().next().map(|d| d.as_str()).unwrap_or("");
                        match digits.parse::<u8>() {
                            Ok(n) if n <= 9 => Some(n),
                            _ => return Err(Error::BadDecimals.at(dspan)),
                        }
                    }
                    None => None,
                };
                parts.push(Part::Interp { expr: e, decimals, span: ispan });
            }
            _ => {}
        }
    }
    Ok(Template { parts, span })
}

fn path(p: Pair<'_, Rule>) -> Path {
    let span = span_of(&p);
    Path { segments: p.into_inner().map(|s| ident(&s)).collect(), span }
}

fn too_deep(depth: u32, span: Span) -> Res<()> {
    if depth > MAX_DEPTH { Err(Error::TooDeep { max: MAX_DEPTH }.at(span)) } else { Ok(()) }
}

/// An expression and the depth of its tree.
fn expr(p: Pair<'_, Rule>) -> Res<(Expr, u32)> {
    PRATT
        .map_primary(primary)
        .map_prefix(|op, rhs| {
            let (rhs, d) = rhs?;
            let span = span_of(&op).to(rhs.span);
            too_deep(d + 1, span)?;
            let op = if op.as_rule() == Rule::op_not { UnaryOp::Not } else { UnaryOp::Neg };
            Ok((Expr { kind: ExprKind::Unary { op, operand: Box::new(rhs) }, span }, d + 1))
        })
        .map_infix(|lhs, op, rhs| {
            let (lhs, dl) = lhs?;
            let (rhs, dr) = rhs?;
            let span = lhs.span.to(rhs.span);
            let d = dl.max(dr) + 1;
            too_deep(d, span)?;
            let op = match op.as_rule() {
                Rule::op_or => BinaryOp::Or,
                Rule::op_and => BinaryOp::And,
                Rule::op_eq => BinaryOp::Eq,
                Rule::op_ne => BinaryOp::Ne,
                Rule::op_lt => BinaryOp::Lt,
                Rule::op_le => BinaryOp::Le,
                Rule::op_gt => BinaryOp::Gt,
                Rule::op_ge => BinaryOp::Ge,
                Rule::op_add => BinaryOp::Add,
                Rule::op_sub => BinaryOp::Sub,
                Rule::op_mul => BinaryOp::Mul,
                _ => BinaryOp::Div,
            };
            Ok((
                Expr {
                    kind: ExprKind::Binary { op, lhs: Box::new(lhs), rhs: Box::new(rhs) },
                    span,
                },
                d,
            ))
        })
        .parse(p.into_inner())
}

fn primary(p: Pair<'_, Rule>) -> Res<(Expr, u32)> {
    let span = span_of(&p);
    let leaf = |kind| Ok((Expr { kind, span }, 1));
    match p.as_rule() {
        Rule::number_lit => leaf(ExprKind::Number(number(p)?)),
        Rule::boolean => leaf(ExprKind::Bool(p.as_str() == "true")),
        Rule::string => leaf(ExprKind::Str(template(p)?)),
        Rule::path => leaf(ExprKind::Path(path(p))),
        Rule::paren => {
            let inner = p.into_inner().next().ok_or_else(|| syntax("an expression", span))?;
            let (mut e, d) = expr(inner)?;
            // The parentheses belong to the expression: errors underline them too.
            e.span = span;
            Ok((e, d))
        }
        Rule::call => {
            let mut inner = p.into_inner();
            let func = inner.next().ok_or_else(|| syntax("a function name", span))?;
            let mut args = Vec::new();
            let mut depth = 0;
            for a in inner {
                let (a, d) = expr(a)?;
                depth = depth.max(d);
                args.push(a);
            }
            too_deep(depth + 1, span)?;
            Ok((Expr { kind: ExprKind::Call { func: ident(&func), args }, span }, depth + 1))
        }
        Rule::aggregate => {
            let mut inner = p.into_inner();
            let func = inner.next().ok_or_else(|| syntax("a function name", span))?;
            let body = inner.next().ok_or_else(|| syntax("an expression", span))?;
            let (body, mut depth) = expr(body)?;
            let mut over = None;
            let mut filter = None;
            for c in inner {
                match c.as_rule() {
                    Rule::collection => over = Some(path(c)),
                    Rule::where_clause => {
                        if let Some(cond) = c.into_inner().find(|x| x.as_rule() == Rule::expr) {
                            let (f, d) = expr(cond)?;
                            depth = depth.max(d);
                            filter = Some(Box::new(f));
                        }
                    }
                    _ => {}
                }
            }
            let over = over.ok_or_else(|| syntax("a collection", span))?;
            too_deep(depth + 1, span)?;
            let kind =
                ExprKind::Aggregate { func: ident(&func), body: Box::new(body), over, filter };
            Ok((Expr { kind, span }, depth + 1))
        }
        Rule::expr => expr(p),
        _ => Err(syntax("an expression", span)),
    }
}

#[cfg(test)]
mod tests {
    use pest::{consumes_to, fails_with, parses_to};

    use super::*;

    #[test]
    fn a_number_takes_its_unit_across_a_space() {
        parses_to! {
            parser: Grammar,
            input: "200 MB/s",
            rule: Rule::number_lit,
            tokens: [number_lit(0, 8, [number(0, 3), unit(4, 8)])]
        };
        parses_to! {
            parser: Grammar,
            input: "95%",
            rule: Rule::number_lit,
            tokens: [number_lit(0, 3, [number(0, 2), unit(2, 3)])]
        };
    }

    #[test]
    fn a_unit_ends_at_a_word_boundary() {
        // `5 sum` is the number 5: `s` must not be read as seconds.
        parses_to! {
            parser: Grammar,
            input: "5 sum",
            rule: Rule::number_lit,
            tokens: [number_lit(0, 1, [number(0, 1)])]
        };
    }

    #[test]
    fn keywords_are_not_names() {
        fails_with! {
            parser: Grammar,
            input: "where",
            rule: Rule::name,
            positives: vec![Rule::name],
            negatives: vec![],
            pos: 0
        };
    }

    #[test]
    fn interpolations_and_escapes() {
        let e = parse_expr(r#""a {{b}} {x:.2} \"q\"""#).expect("parses");
        let ExprKind::Str(t) = e.kind else { panic!("{e:?}") };
        assert_eq!(t.parts.len(), 3);
        assert_eq!(t.parts[0], Part::Text("a {b} ".into()));
        assert!(matches!(&t.parts[1], Part::Interp { decimals: Some(2), .. }));
        assert_eq!(t.parts[2], Part::Text(" \"q\"".into()));
    }

    #[test]
    fn precedence_follows_the_reference() {
        let show = |s: &str| crate::print::expr(&parse_expr(s).expect("parses"));
        assert_eq!(show("not a == b and c or d"), "not a == b and c or d");
        assert_eq!(show("(a + b) * c"), "(a + b) * c");
        assert_eq!(show("a - (b - c)"), "a - (b - c)");
        assert_eq!(show("(not a) == b"), "(not a) == b");
        assert_eq!(show("-a * b"), "-a * b");
        let e = parse_expr("not a == b").expect("parses");
        assert!(matches!(e.kind, ExprKind::Unary { op: UnaryOp::Not, .. }));
    }

    #[test]
    fn where_takes_the_rest_of_the_expression() {
        let e =
            parse_expr("sum(mbps) over disks where cache != none or role == temp").expect("parses");
        let ExprKind::Aggregate { filter: Some(f), .. } = e.kind else { panic!() };
        assert!(matches!(f.kind, ExprKind::Binary { op: BinaryOp::Or, .. }));
    }

    #[test]
    fn doc_blocks_are_dedented() {
        assert_eq!(dedent("\n    a\n      b\n\n    c\n  "), "a\n  b\n\nc");
    }
}
