//! Property tests: a generated AST prints as text that parses back to the same AST (spans
//! aside), and no text, however broken, panics the parser or the checker.

#![allow(clippy::panic, clippy::expect_used, clippy::unwrap_used)] // tests fail by panicking

use advisor_rules::ast::*;
use proptest::prelude::*;

const KEYWORDS: &[&str] = &[
    "and", "or", "not", "over", "where", "true", "false", "rule", "title", "severity", "scope",
    "refs", "param", "let", "when", "evidence", "fix", "doc", "case", "episodes", "explains",
];

fn sp() -> Span {
    Span::default()
}

fn ident(name: String) -> Ident {
    Ident::new(name, sp())
}

fn name() -> impl Strategy<Value = String> {
    "[a-z_][a-z0-9_]{0,7}".prop_filter("not a keyword", |s| !KEYWORDS.contains(&s.as_str()))
}

fn word() -> impl Strategy<Value = String> {
    "[a-z_][a-z0-9_]{0,7}"
}

fn number(allow_negative: bool) -> impl Strategy<Value = Number> {
    let value = prop_oneof![
        (0u32..100_000).prop_map(f64::from),
        (0u32..1_000_000).prop_map(|v| f64::from(v) / 1000.0),
    ];
    let unit = proptest::option::of(proptest::sample::select(UnitLit::ALL.to_vec()));
    (value, unit, any::<bool>()).prop_map(move |(value, unit, neg)| Number {
        value: if allow_negative && neg { -value } else { value },
        unit,
        span: sp(),
    })
}

fn text() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9 .,:;%/()'µ\"\\\\{}\\t\\n#-]{1,12}"
}

/// Parts as the parser builds them: no empty text, no two texts side by side.
fn normalize(parts: Vec<Part>) -> Vec<Part> {
    let mut out: Vec<Part> = Vec::new();
    for p in parts {
        match (p, out.last_mut()) {
            (Part::Text(t), _) if t.is_empty() => {}
            (Part::Text(t), Some(Part::Text(prev))) => prev.push_str(&t),
            (p, _) => out.push(p),
        }
    }
    out
}

fn plain_template() -> impl Strategy<Value = Template> {
    proptest::collection::vec(text(), 0..3).prop_map(|ts| Template {
        parts: normalize(ts.into_iter().map(Part::Text).collect()),
        span: sp(),
    })
}

fn template(expr: BoxedStrategy<Expr>) -> impl Strategy<Value = Template> {
    let part = prop_oneof![
        text().prop_map(Part::Text),
        (expr, proptest::option::of(0u8..=9)).prop_map(|(expr, decimals)| Part::Interp {
            expr,
            decimals,
            span: sp()
        }),
    ];
    proptest::collection::vec(part, 0..4)
        .prop_map(|parts| Template { parts: normalize(parts), span: sp() })
}

fn path(max: usize) -> impl Strategy<Value = Path> {
    (name(), proptest::collection::vec(word(), 0..max)).prop_map(|(first, rest)| {
        let mut segments = vec![ident(first)];
        segments.extend(rest.into_iter().map(ident));
        Path { segments, span: sp() }
    })
}

fn e(kind: ExprKind) -> Expr {
    Expr { kind, span: sp() }
}

const BINARY: &[BinaryOp] = &[
    BinaryOp::Or,
    BinaryOp::And,
    BinaryOp::Eq,
    BinaryOp::Ne,
    BinaryOp::Lt,
    BinaryOp::Le,
    BinaryOp::Gt,
    BinaryOp::Ge,
    BinaryOp::Add,
    BinaryOp::Sub,
    BinaryOp::Mul,
    BinaryOp::Div,
];

fn expr() -> BoxedStrategy<Expr> {
    let leaf = prop_oneof![
        number(false).prop_map(|n| e(ExprKind::Number(n))),
        any::<bool>().prop_map(|b| e(ExprKind::Bool(b))),
        plain_template().prop_map(|t| e(ExprKind::Str(t))),
        path(3).prop_map(|p| e(ExprKind::Path(p))),
    ];
    leaf.prop_recursive(4, 24, 3, |inner| {
        prop_oneof![
            (prop_oneof![Just(UnaryOp::Neg), Just(UnaryOp::Not)], inner.clone())
                .prop_map(|(op, o)| e(ExprKind::Unary { op, operand: Box::new(o) })),
            (proptest::sample::select(BINARY.to_vec()), inner.clone(), inner.clone()).prop_map(
                |(op, l, r)| e(ExprKind::Binary { op, lhs: Box::new(l), rhs: Box::new(r) })
            ),
            (name(), proptest::collection::vec(inner.clone(), 0..3))
                .prop_map(|(f, args)| e(ExprKind::Call { func: ident(f), args })),
            (name(), inner.clone(), path(2), proptest::option::of(inner.clone())).prop_map(
                |(f, body, over, filter)| e(ExprKind::Aggregate {
                    func: ident(f),
                    body: Box::new(body),
                    over,
                    filter: filter.map(Box::new),
                })
            ),
            template(inner).prop_map(|t| e(ExprKind::Str(t))),
        ]
    })
    .boxed()
}

fn doc_text() -> impl Strategy<Value = String> {
    proptest::collection::vec("[A-Za-z0-9#{(][A-Za-z0-9 .,:#{}()\"-]{0,20}", 1..4).prop_map(
        |lines| {
            lines
                .iter()
                .map(|l| l.trim_end().replace("\"\"\"", "\""))
                .collect::<Vec<_>>()
                .join("\n")
        },
    )
}

fn file() -> impl Strategy<Value = File> {
    let id = "[a-z][a-z0-9]{0,5}(-[a-z0-9]{1,5}){0,3}";
    let header = (
        id,
        proptest::option::of(plain_template()),
        proptest::option::of(word()),
        proptest::option::of(word()),
        proptest::collection::vec(plain_template(), 0..3),
    )
        .prop_map(|(id, title, severity, scope, refs)| Header {
            id: ident(id),
            title,
            severity: severity.map(ident),
            scope: scope.map(ident),
            refs,
            span: sp(),
        });
    let param_value = prop_oneof![
        number(true).prop_map(ParamValue::Number),
        any::<bool>().prop_map(|value| ParamValue::Bool { value, span: sp() }),
    ];
    let param = (name(), param_value, proptest::option::of(plain_template())).prop_map(
        |(n, default, description)| Param { name: ident(n), default, description, span: sp() },
    );
    let let_ = (name(), expr()).prop_map(|(n, value)| Let { name: ident(n), value, span: sp() });
    let doc = (word(), doc_text()).prop_map(|(k, text)| Doc { kind: ident(k), text, span: sp() });
    let case = (
        word(),
        expr(),
        proptest::option::of(plain_template()),
        template(expr()),
        template(expr()),
    )
        .prop_map(|(sev, cond, title, evidence, fix)| Case {
            severity: ident(sev),
            cond,
            title,
            evidence: Evidence { text: evidence, span: sp() },
            fix: Fix { text: fix, span: sp() },
            span: sp(),
        });
    (
        header,
        proptest::collection::vec(param, 0..3),
        proptest::collection::vec(let_, 0..3),
        proptest::option::of(expr()),
        proptest::option::of(template(expr())),
        proptest::option::of(template(expr())),
        proptest::collection::vec(case, 0..3),
        proptest::option::of((expr(), expr(), expr(), proptest::option::of(expr()))),
        (
            proptest::collection::vec("x[a-z0-9]{0,4}(-[a-z0-9]{1,4}){0,2}", 0..3),
            proptest::option::of(expr()),
        ),
        proptest::collection::vec(doc, 0..4),
    )
        .prop_map(
            |(header, params, lets, when, evidence, fix, cases, episodes, explains, docs)| File {
                rule: Rule {
                    header,
                    params,
                    lets,
                    when: when.map(|cond| When { cond, span: sp() }),
                    evidence: evidence.map(|text| Evidence { text, span: sp() }),
                    fix: fix.map(|text| Fix { text, span: sp() }),
                    cases,
                    episodes: episodes.map(|(series, cap, ratio, latency)| Episodes {
                        series,
                        cap,
                        ratio,
                        latency,
                        span: sp(),
                    }),
                    explains_where: explains.1.filter(|_| !explains.0.is_empty()),
                    explains: explains.0.into_iter().map(ident).collect(),
                    docs,
                },
                span: sp(),
            },
        )
}

const VALID: &str = include_str!("../ok/disk-iops-throttled.rule");

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn printed_expressions_parse_back(x in expr()) {
        let text = advisor_rules::print::expr(&x);
        let back = advisor_rules::parse_expr(&text)
            .unwrap_or_else(|err| panic!("{text}\n{}", err.error));
        prop_assert_eq!(back.without_spans(), x, "{}", text);
    }

    #[test]
    fn printed_files_parse_back(f in file()) {
        let text = advisor_rules::print(&f);
        let back = advisor_rules::parse(&text)
            .unwrap_or_else(|errs| panic!("{text}\n{:?}", errs));
        prop_assert_eq!(back.without_spans(), f, "{}", text);
    }

    #[test]
    fn arbitrary_text_never_panics(s in "\\PC{0,200}") {
        let _ = advisor_rules::compile("x.rule", &s);
        let _ = advisor_rules::parse_expr(&s);
        let _ = advisor_rules::parse_param_value(&s);
    }

    #[test]
    fn broken_rules_never_panic(cuts in proptest::collection::vec((0usize..2000, "\\PC{0,3}"), 1..4)) {
        let mut s = VALID.to_owned();
        for (at, insert) in cuts {
            let mut at = at % (s.len() + 1);
            while !s.is_char_boundary(at) {
                at -= 1;
            }
            let end = (at + 3).min(s.len());
            let end = (end..=s.len()).find(|&i| s.is_char_boundary(i)).unwrap_or(s.len());
            s.replace_range(at..end, &insert);
        }
        if let Err(diags) = advisor_rules::compile("disk-iops-throttled.rule", &s) {
            for d in diags {
                let _ = d.to_string();
            }
        }
    }
}

#[test]
fn deep_nesting_is_refused_without_overflowing() {
    for text in [
        format!("{}1{}", "(".repeat(100_000), ")".repeat(100_000)),
        format!("{}1", "-".repeat(100_000)),
        format!("{}true", "not ".repeat(100_000)),
        format!("1{}", " + 1".repeat(20_000)),
        format!("\"{}\"", "{\"".repeat(10_000)),
    ] {
        assert!(advisor_rules::parse_expr(&text).is_err());
    }
    let at_limit = format!("{}1{}", "(".repeat(20), ")".repeat(20));
    assert!(advisor_rules::parse_expr(&at_limit).is_ok());
}
