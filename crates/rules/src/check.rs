//! The checker: runs before anything is evaluated. It resolves every name, checks scopes,
//! dimensions, series against scalars, function arities and the rule's shape, and lowers
//! the AST into a typed tree ([`TExpr`]) whose references are already resolved, so the
//! evaluator never looks a name up.

use std::path::Path as FsPath;

use advisor_model::Metric;

use crate::ast::{
    self, BinaryOp, Expr, ExprKind, ParamValue, Part, Span, Template, UnaryOp, UnitLit,
};
use crate::builtins::{self, AGGREGATES, Builtin, CollectionAgg};
use crate::diag::{Error, ErrorAt, suggest};
use crate::types::{
    CacheMode, Dim, ElementKind, Field, HOST_METRICS, Role, Scope, Severity, Ty, VmField,
    metric_dim,
};

/// A rule that passed the checker: everything the evaluator and `explain` need.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckedRule {
    pub id: String,
    /// The file as named to the user (`rules/vm/x.rule`, or a path on disk).
    pub file: String,
    /// The file's text, to place runtime messages at a span.
    pub source: String,
    pub title: String,
    pub severity: Severity,
    pub scope: Scope,
    pub refs: Vec<String>,
    /// In declaration order; [`Ref::Param`] indexes this.
    pub params: Vec<CheckedParam>,
    /// In declaration order; [`Ref::Let`] indexes this. A let only refers to earlier ones.
    pub lets: Vec<CheckedLet>,
    /// A scalar bool.
    pub when: TExpr,
    pub evidence: Vec<TPart>,
    pub fix: Vec<TPart>,
    /// `case` lines in file order: the first whose condition holds when the rule fires
    /// gives the finding its severity, evidence and fix.
    pub cases: Vec<CheckedCase>,
    pub doc: RuleDoc,
    /// The tree as parsed.
    pub ast: ast::File,
}

/// A checked `case SEVERITY when EXPR evidence "..." fix "..."`.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckedCase {
    pub severity: Severity,
    /// The case's own title, else the rule's.
    pub title: Option<String>,
    /// A scalar bool.
    pub when: TExpr,
    pub evidence: Vec<TPart>,
    pub fix: Vec<TPart>,
}

/// `doc what`, `doc why`, `doc fix`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RuleDoc {
    pub what: String,
    pub why: String,
    pub fix: String,
}

/// A parameter with its current value (the default, or a `--set` override).
#[derive(Debug, Clone, PartialEq)]
pub struct CheckedParam {
    pub name: String,
    /// The value in stored units (0.95 for `95%`).
    pub value: Value,
    /// The default as written (`95%`).
    pub default_text: String,
    /// The current value as written: the default, or the `--set` value.
    pub value_text: String,
    pub dim: Dim,
    pub description: String,
    pub span: Span,
}

/// A constant value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    Number(f64),
    Bool(bool),
}

/// A `let` and its typed value.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckedLet {
    pub name: String,
    pub expr: TExpr,
}

/// A piece of evidence or fix text.
#[derive(Debug, Clone, PartialEq)]
pub enum TPart {
    Text(String),
    /// `{expr:.N}`; `label` is the expression as written, for the finding's metrics map.
    Value {
        expr: TExpr,
        decimals: Option<u8>,
        label: String,
    },
}

/// A typed expression whose names are resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct TExpr {
    pub kind: TKind,
    pub ty: Ty,
    pub span: Span,
}

/// The forms of a typed expression.
#[derive(Debug, Clone, PartialEq)]
pub enum TKind {
    /// In stored units: bytes, seconds, bytes/s, IO/s, a fraction.
    Number(f64),
    Bool(bool),
    Text(String),
    Cache(CacheMode),
    Role(Role),
    Ref(Ref),
    Unary(UnaryOp, Box<TExpr>),
    Binary(BinaryOp, Box<TExpr>, Box<TExpr>),
    Call(Builtin, Vec<TExpr>),
    Aggregate {
        agg: CollectionAgg,
        over: Collection,
        /// Evaluated once per element; the element is [`Subject::Over`] at this depth.
        body: Box<TExpr>,
        filter: Option<Box<TExpr>>,
    },
}

/// What a name refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ref {
    /// Index into [`CheckedRule::params`].
    Param(usize),
    /// Index into [`CheckedRule::lets`].
    Let(usize),
    /// A metric's series of some subject.
    Metric { of: Subject, metric: Metric },
    /// A topology or settings field (a scalar).
    Field { of: Subject, field: Field },
    /// The element itself (`count(disk) over disks`, `exists(vm.temp_disk)`).
    Element(Subject),
}

/// Whose metric or field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Subject {
    /// The VM (its fields).
    Vm,
    /// The host (`host.cpu_pct`).
    Host,
    /// The temp disk (`vm.temp_disk.iops`).
    TempDisk,
    /// The element the rule is evaluated for (disk, pool, bench or target scope).
    Scope,
    /// The element of an enclosing aggregate: 0 is the outermost `over`.
    Over(u8),
}

/// What an aggregate iterates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Collection {
    Disks,
    Pools,
    Targets,
    Benches,
    /// The member disks of a pool.
    PoolMembers {
        of: Subject,
    },
}

impl Collection {
    pub fn element(self) -> ElementKind {
        match self {
            Self::Disks | Self::PoolMembers { .. } => ElementKind::Disk,
            Self::Pools => ElementKind::Pool,
            Self::Targets => ElementKind::Target,
            Self::Benches => ElementKind::Bench,
        }
    }
}

const COLLECTIONS: &[&str] = &["disks", "pools", "targets", "benches", "pool.members"];
const OBJECTS: &[&str] = &["vm", "host", "disk", "pool", "bench", "target"];
/// Doc sections, all required.
pub const DOC_SECTIONS: &[&str] = &["what", "why", "fix"];

/// The dimension of a literal.
pub fn literal_dim(n: &ast::Number) -> Dim {
    match n.unit {
        None => Dim::Number,
        Some(u) => match u {
            UnitLit::Iops => Dim::Rate,
            UnitLit::MBps | UnitLit::MiBps | UnitLit::GBps => Dim::Throughput,
            UnitLit::Us | UnitLit::Ms | UnitLit::S | UnitLit::Min | UnitLit::H => Dim::Time,
            UnitLit::Percent => Dim::Ratio,
            _ => Dim::Size,
        },
    }
}

/// A parameter value's dimension and stored value.
pub fn param_value(v: &ParamValue) -> (Dim, Value) {
    match v {
        ParamValue::Number(n) => (literal_dim(n), Value::Number(n.base_value())),
        ParamValue::Bool { value, .. } => (Dim::Bool, Value::Bool(*value)),
    }
}

/// Checks a parsed rule. `path` names the file (its stem must be the rule id); `src` is
/// its text. Reports every error it finds, not just the first.
pub fn check(file: &ast::File, src: &str, path: &str) -> Result<CheckedRule, Vec<ErrorAt>> {
    let mut c = Checker {
        src,
        rule: &file.rule,
        errors: Vec::new(),
        scope: Scope::Vm,
        params: Vec::new(),
        lets: Vec::new(),
        visible_lets: 0,
        elements: Vec::new(),
        overs: 0,
        bare_fields: Vec::new(),
    };
    c.run(file, path)
}

struct Checker<'a> {
    src: &'a str,
    rule: &'a ast::Rule,
    errors: Vec<ErrorAt>,
    scope: Scope,
    /// Per param: its dimension, `None` when its declaration failed.
    params: Vec<Option<Dim>>,
    lets: Vec<Option<TExpr>>,
    visible_lets: usize,
    /// Elements in reach, innermost last.
    elements: Vec<(ElementKind, Subject)>,
    overs: u8,
    /// Field names usable bare in this rule: the scope element's and those of every
    /// collection it aggregates over. A let or param may not take them.
    bare_fields: Vec<&'static str>,
}

fn line_of(src: &str, span: Span) -> usize {
    src.get(..span.start).map_or(1, |s| s.matches('\n').count() + 1)
}

fn is_kebab(id: &str) -> bool {
    !id.is_empty()
        && id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !id.starts_with('-')
        && !id.ends_with('-')
        && !id.contains("--")
}

fn kebab(id: &str) -> String {
    let mut out = String::new();
    for (i, ch) in id.chars().enumerate() {
        if ch.is_ascii_uppercase() && i > 0 && !out.ends_with('-') {
            let prev_lower = id.chars().nth(i - 1).is_some_and(|p| p.is_ascii_lowercase());
            if prev_lower {
                out.push('-');
            }
        }
        match ch {
            '_' | '-' => {
                if !out.ends_with('-') {
                    out.push('-');
                }
            }
            c => out.push(c.to_ascii_lowercase()),
        }
    }
    out.trim_matches('-').to_owned()
}

/// The kinds of element the rule's aggregates iterate (`over disks` gives disk).
fn aggregated_elements(r: &ast::Rule) -> Vec<ElementKind> {
    fn walk(e: &Expr, out: &mut Vec<ElementKind>) {
        match &e.kind {
            ExprKind::Aggregate { body, over, filter, .. } => {
                let k = match over.to_string().as_str() {
                    "disks" | "pool.members" => Some(ElementKind::Disk),
                    "pools" => Some(ElementKind::Pool),
                    "targets" => Some(ElementKind::Target),
                    "benches" => Some(ElementKind::Bench),
                    _ => None,
                };
                out.extend(k);
                walk(body, out);
                if let Some(f) = filter {
                    walk(f, out);
                }
            }
            ExprKind::Unary { operand, .. } => walk(operand, out),
            ExprKind::Binary { lhs, rhs, .. } => {
                walk(lhs, out);
                walk(rhs, out);
            }
            ExprKind::Call { args, .. } => args.iter().for_each(|a| walk(a, out)),
            ExprKind::Str(t) => walk_template(t, out),
            ExprKind::Number(_) | ExprKind::Bool(_) | ExprKind::Path(_) => {}
        }
    }
    fn walk_template(t: &Template, out: &mut Vec<ElementKind>) {
        for p in &t.parts {
            if let Part::Interp { expr, .. } = p {
                walk(expr, out);
            }
        }
    }
    let mut out = Vec::new();
    for l in &r.lets {
        walk(&l.value, &mut out);
    }
    if let Some(w) = &r.when {
        walk(&w.cond, &mut out);
    }
    for t in [r.evidence.as_ref().map(|e| &e.text), r.fix.as_ref().map(|f| &f.text)]
        .into_iter()
        .flatten()
    {
        walk_template(t, &mut out);
    }
    out.sort();
    out.dedup();
    out
}

impl<'a> Checker<'a> {
    fn err(&mut self, e: Error, span: Span) {
        self.errors.push(e.at(span));
    }

    fn plain(&mut self, t: &Template) -> String {
        match t.as_plain() {
            Some(s) => s,
            None => {
                let at = t
                    .parts
                    .iter()
                    .find_map(|p| match p {
                        Part::Interp { span, .. } => Some(*span),
                        Part::Text(_) => None,
                    })
                    .unwrap_or(t.span);
                self.err(Error::InterpolationNotAllowed, at);
                String::new()
            }
        }
    }

    fn run(&mut self, file: &ast::File, path: &str) -> Result<CheckedRule, Vec<ErrorAt>> {
        let r = self.rule;
        let h = &r.header;
        let id = h.id.name.clone();
        if !is_kebab(&id) {
            self.err(Error::BadRuleId { id: id.clone(), suggestion: kebab(&id) }, h.id.span);
        }
        let stem = FsPath::new(path).file_stem().and_then(|s| s.to_str()).unwrap_or("");
        if !stem.is_empty() && stem != id {
            self.err(Error::RuleIdMismatch { id: id.clone(), file: stem.to_owned() }, h.id.span);
        }
        let title = match &h.title {
            Some(t) => self.plain(t),
            None => {
                self.err(Error::MissingItem { item: "title" }, h.span);
                String::new()
            }
        };
        let severity = match &h.severity {
            Some(w) => match Severity::parse(&w.name) {
                Some(s) => Some(s),
                None => {
                    let suggestion = suggest(&w.name, Severity::names());
                    self.err(Error::UnknownSeverity { word: w.name.clone(), suggestion }, w.span);
                    None
                }
            },
            None => {
                self.err(Error::MissingItem { item: "severity" }, h.span);
                None
            }
        };
        let scope = match &h.scope {
            Some(w) => match Scope::parse(&w.name) {
                Some(s) => Some(s),
                None => {
                    let suggestion = suggest(&w.name, Scope::names());
                    self.err(Error::UnknownScope { word: w.name.clone(), suggestion }, w.span);
                    None
                }
            },
            None => {
                self.err(Error::MissingItem { item: "scope" }, h.span);
                None
            }
        };
        let refs: Vec<String> = h.refs.iter().map(|t| self.plain(t)).collect();
        self.scope = scope.unwrap_or(Scope::Vm);
        if let Some(k) = self.scope.element() {
            self.elements.push((k, Subject::Scope));
        }

        if let Some(k) = self.scope.element() {
            self.bare_fields.extend(k.field_names());
        }
        for k in aggregated_elements(r) {
            self.bare_fields.extend(k.field_names());
        }

        // Parameters: visible everywhere.
        let mut params = Vec::new();
        let mut names: Vec<(&str, Span)> = Vec::new();
        for p in &r.params {
            let ok = self.declare(&p.name, &mut names);
            let (dim, value) = param_value(&p.default);
            let description = match &p.description {
                Some(d) => self.plain(d),
                None => {
                    self.err(Error::MissingDescription { name: p.name.name.clone() }, p.name.span);
                    String::new()
                }
            };
            self.params.push(ok.then_some(dim));
            let default_text = crate::print::param_value(&p.default);
            params.push(CheckedParam {
                name: p.name.name.clone(),
                value,
                value_text: default_text.clone(),
                default_text,
                dim,
                description,
                span: p.span,
            });
        }

        // Without a known scope, names cannot be resolved: report the header only.
        if scope.is_none() {
            self.docs();
            return Err(std::mem::take(&mut self.errors));
        }

        // Lets, in order; a failed let is `None` and silences errors about its uses.
        for (i, l) in r.lets.iter().enumerate() {
            let ok = self.declare(&l.name, &mut names);
            self.visible_lets = i;
            let t = self.expr(&l.value);
            self.lets.push(if ok { t } else { None });
        }
        self.visible_lets = r.lets.len();

        let when = match &r.when {
            Some(w) => {
                let t = self.expr(&w.cond);
                match t {
                    Some(t) if t.ty == Ty::scalar(Dim::Bool) => Some(t),
                    Some(t) => {
                        self.err(Error::WhenNotScalarBool { found: t.ty.describe() }, w.cond.span);
                        None
                    }
                    None => None,
                }
            }
            None => {
                self.err(Error::MissingItem { item: "when" }, h.span);
                None
            }
        };
        let evidence = match &r.evidence {
            Some(e) => self.template(&e.text),
            None => {
                self.err(Error::MissingItem { item: "evidence" }, h.span);
                Vec::new()
            }
        };
        let fix = match &r.fix {
            Some(e) => self.template(&e.text),
            None => {
                self.err(Error::MissingItem { item: "fix" }, h.span);
                Vec::new()
            }
        };
        let mut cases = Vec::new();
        for c in &r.cases {
            let severity = match Severity::parse(&c.severity.name) {
                Some(s) => Some(s),
                None => {
                    let suggestion = suggest(&c.severity.name, Severity::names());
                    let word = c.severity.name.clone();
                    self.err(Error::UnknownSeverity { word, suggestion }, c.severity.span);
                    None
                }
            };
            let when = match self.expr(&c.cond) {
                Some(t) if t.ty == Ty::scalar(Dim::Bool) => Some(t),
                Some(t) => {
                    self.err(Error::WhenNotScalarBool { found: t.ty.describe() }, c.cond.span);
                    None
                }
                None => None,
            };
            let title = c.title.as_ref().map(|t| self.plain(t));
            let evidence = self.template(&c.evidence.text);
            let fix = self.template(&c.fix.text);
            if let (Some(severity), Some(when)) = (severity, when) {
                cases.push(CheckedCase { severity, title, when, evidence, fix });
            }
        }
        let doc = self.docs();

        if !self.errors.is_empty() {
            return Err(std::mem::take(&mut self.errors));
        }
        let (Some(severity), Some(scope), Some(when)) = (severity, scope, when) else {
            return Err(vec![Error::MissingItem { item: "when" }.at(h.span)]);
        };
        let lets = r
            .lets
            .iter()
            .zip(std::mem::take(&mut self.lets))
            .filter_map(|(l, t)| t.map(|expr| CheckedLet { name: l.name.name.clone(), expr }))
            .collect();
        Ok(CheckedRule {
            id,
            file: path.to_owned(),
            source: self.src.to_owned(),
            title,
            severity,
            scope,
            refs,
            params,
            lets,
            when,
            evidence,
            fix,
            cases,
            doc,
            ast: file.clone(),
        })
    }

    /// Checks a let/param name: unique, not reserved. Returns whether it is usable.
    fn declare<'n>(&mut self, name: &'n ast::Ident, seen: &mut Vec<(&'n str, Span)>) -> bool {
        let n = name.name.as_str();
        if let Some((_, first)) = seen.iter().find(|(s, _)| *s == n) {
            let line = line_of(self.src, *first);
            self.err(Error::DuplicateName { name: n.to_owned(), line }, name.span);
            return false;
        }
        seen.push((n, name.span));
        let what = if n.parse::<Metric>().is_ok() {
            Some("a metric")
        } else if CacheMode::parse(n).is_some() || Role::parse(n).is_some() {
            Some("a constant")
        } else if OBJECTS.contains(&n) {
            Some("an object")
        } else if COLLECTIONS.contains(&n) {
            Some("a collection")
        } else if builtins::lookup(n, 0).is_ok()
            || builtins::function_names().contains(&n)
            || CollectionAgg::parse(n).is_some()
        {
            Some("a built-in function")
        } else if self.bare_fields.contains(&n) {
            Some("a field name (usable bare inside `over` and per-element scopes)")
        } else {
            None
        };
        if let Some(what) = what {
            self.err(Error::ReservedName { name: n.to_owned(), what }, name.span);
            return false;
        }
        true
    }

    fn docs(&mut self) -> RuleDoc {
        let mut doc = RuleDoc::default();
        let mut seen: Vec<&str> = Vec::new();
        for d in &self.rule.docs {
            let k = d.kind.name.as_str();
            let slot = match k {
                "what" => &mut doc.what,
                "why" => &mut doc.why,
                "fix" => &mut doc.fix,
                _ => {
                    let suggestion = suggest(k, DOC_SECTIONS.iter().copied());
                    self.err(
                        Error::UnknownDocSection { word: k.to_owned(), suggestion },
                        d.kind.span,
                    );
                    continue;
                }
            };
            if seen.contains(&k) {
                self.errors.push(Error::DuplicateItem { item: format!("doc {k}") }.at(d.kind.span));
                continue;
            }
            seen.push(k);
            if d.text.trim().is_empty() {
                self.errors.push(Error::EmptyDoc { section: k.to_owned() }.at(d.span));
            }
            *slot = d.text.clone();
        }
        for s in DOC_SECTIONS {
            if !seen.contains(s) {
                let at = self.rule.docs.last().map_or(self.rule.header.span, |d| d.span);
                self.err(Error::MissingDoc { section: s }, at);
            }
        }
        doc
    }

    fn template(&mut self, t: &Template) -> Vec<TPart> {
        let mut out = Vec::new();
        for p in &t.parts {
            match p {
                Part::Text(s) => out.push(TPart::Text(s.clone())),
                Part::Interp { expr, decimals, .. } => {
                    let Some(e) = self.expr(expr) else { continue };
                    if e.ty.series || matches!(e.ty.dim, Dim::Element(_)) {
                        self.err(Error::InterpolatedSeries { found: e.ty.describe() }, expr.span);
                        continue;
                    }
                    let label = self
                        .src
                        .get(expr.span.start..expr.span.end)
                        .unwrap_or("")
                        .trim()
                        .to_owned();
                    out.push(TPart::Value { expr: e, decimals: *decimals, label });
                }
            }
        }
        out
    }

    fn texpr(kind: TKind, ty: Ty, span: Span) -> Option<TExpr> {
        Some(TExpr { kind, ty, span })
    }

    fn expr(&mut self, e: &Expr) -> Option<TExpr> {
        let span = e.span;
        match &e.kind {
            ExprKind::Number(n) => {
                Self::texpr(TKind::Number(n.base_value()), Ty::scalar(literal_dim(n)), span)
            }
            ExprKind::Bool(b) => Self::texpr(TKind::Bool(*b), Ty::scalar(Dim::Bool), span),
            ExprKind::Str(t) => {
                let s = self.plain(t);
                t.as_plain()?;
                Self::texpr(TKind::Text(s), Ty::scalar(Dim::Text), span)
            }
            ExprKind::Path(p) => self.path(p),
            ExprKind::Unary { op, operand } => {
                let o = self.expr(operand)?;
                let ok = match op {
                    UnaryOp::Neg => o.ty.dim.is_numeric(),
                    UnaryOp::Not => o.ty.dim == Dim::Bool,
                };
                if !ok {
                    let (sym, expected) = match op {
                        UnaryOp::Neg => ("-", "a number"),
                        UnaryOp::Not => ("not", "a bool"),
                    };
                    self.err(
                        Error::OperandType { op: sym.into(), expected, found: o.ty.describe() },
                        operand.span,
                    );
                    return None;
                }
                let ty = o.ty;
                Self::texpr(TKind::Unary(*op, Box::new(o)), ty, span)
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let l = self.expr(lhs);
                let r = self.expr(rhs);
                let (l, r) = (l?, r?);
                let ty = self.binary(*op, lhs, rhs, &l, &r, span)?;
                Self::texpr(TKind::Binary(*op, Box::new(l), Box::new(r)), ty, span)
            }
            ExprKind::Call { func, args } => self.call(func, args, span),
            ExprKind::Aggregate { func, body, over, filter } => {
                self.aggregate(func, body, over, filter.as_deref(), span)
            }
        }
    }

    fn binary(
        &mut self,
        op: BinaryOp,
        lhs: &Expr,
        rhs: &Expr,
        l: &TExpr,
        r: &TExpr,
        span: Span,
    ) -> Option<Ty> {
        let series = l.ty.series || r.ty.series;
        let sym = op.as_str();
        match op {
            BinaryOp::And | BinaryOp::Or => {
                for (t, e) in [(l, lhs), (r, rhs)] {
                    if t.ty.dim != Dim::Bool {
                        self.err(
                            Error::OperandType {
                                op: sym.into(),
                                expected: "bools",
                                found: t.ty.describe(),
                            },
                            e.span,
                        );
                        return None;
                    }
                }
                Some(Ty { dim: Dim::Bool, series })
            }
            BinaryOp::Eq | BinaryOp::Ne => {
                for (t, e) in [(l, lhs), (r, rhs)] {
                    if matches!(t.ty.dim, Dim::Element(_)) {
                        self.err(
                            Error::OperandType {
                                op: sym.into(),
                                expected: "values",
                                found: t.ty.describe(),
                            },
                            e.span,
                        );
                        return None;
                    }
                }
                self.same_dim(op, lhs, rhs, l, r, span)?;
                Some(Ty { dim: Dim::Bool, series })
            }
            BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => {
                self.numeric(op, lhs, rhs, l, r)?;
                self.same_dim(op, lhs, rhs, l, r, span)?;
                Some(Ty { dim: Dim::Bool, series })
            }
            BinaryOp::Add | BinaryOp::Sub => {
                self.numeric(op, lhs, rhs, l, r)?;
                let dim = self.same_dim(op, lhs, rhs, l, r, span)?;
                Some(Ty { dim, series })
            }
            BinaryOp::Mul | BinaryOp::Div => {
                self.numeric(op, lhs, rhs, l, r)?;
                let d = if op == BinaryOp::Mul {
                    Dim::product(l.ty.dim, r.ty.dim)
                } else {
                    Dim::quotient(l.ty.dim, r.ty.dim)
                };
                match d {
                    Some(dim) => Some(Ty { dim, series }),
                    None => {
                        let what = format!(
                            "`{sym}` of {} and {}",
                            l.ty.dim.describe(),
                            r.ty.dim.describe()
                        );
                        let dim = format!("{} {sym} {}", l.ty.dim, r.ty.dim);
                        self.err(Error::UnknownDimension { what, dim }, span);
                        None
                    }
                }
            }
        }
    }

    fn numeric(
        &mut self,
        op: BinaryOp,
        lhs: &Expr,
        rhs: &Expr,
        l: &TExpr,
        r: &TExpr,
    ) -> Option<()> {
        for (t, e) in [(l, lhs), (r, rhs)] {
            if !t.ty.dim.is_numeric() {
                self.err(
                    Error::OperandType {
                        op: op.as_str().into(),
                        expected: "numbers",
                        found: t.ty.describe(),
                    },
                    e.span,
                );
                return None;
            }
        }
        Some(())
    }

    /// Both sides of a comparison or sum must agree; a literal 0 fits any number.
    fn same_dim(
        &mut self,
        op: BinaryOp,
        lhs: &Expr,
        rhs: &Expr,
        l: &TExpr,
        r: &TExpr,
        span: Span,
    ) -> Option<Dim> {
        let (a, b) = (l.ty.dim, r.ty.dim);
        // A ratio against a plain number above 1 is almost always a forgotten `%`.
        for (t, other) in [(l, rhs), (r, lhs)] {
            if t.ty.dim == Dim::Ratio
                && let ExprKind::Number(n) = &other.kind
                && n.unit.is_none()
                && n.value > 1.0
            {
                let value = crate::print::number_text(n.value);
                let percent = crate::print::number_text(n.value * 100.0);
                self.err(Error::RatioVsPlain { value, percent }, other.span);
                return None;
            }
        }
        if let Some(d) = Dim::unify(a, b) {
            return Some(d);
        }
        let is_zero =
            |e: &Expr| matches!(&e.kind, ExprKind::Number(n) if n.value == 0.0 && n.unit.is_none());
        if a.is_numeric() && is_zero(rhs) {
            return Some(a);
        }
        if b.is_numeric() && is_zero(lhs) {
            return Some(b);
        }
        let hint = match (&lhs.kind, &rhs.kind) {
            (_, ExprKind::Number(n)) if n.unit.is_none() && a.literal_unit().is_some() => {
                Some(format!(
                    "write the unit: `{} {}`",
                    crate::print::number_text(n.value),
                    a.literal_unit().unwrap_or("")
                ))
            }
            (ExprKind::Number(n), _) if n.unit.is_none() && b.literal_unit().is_some() => {
                Some(format!(
                    "write the unit: `{} {}`",
                    crate::print::number_text(n.value),
                    b.literal_unit().unwrap_or("")
                ))
            }
            (_, ExprKind::Str(_)) if matches!(a, Dim::Cache | Dim::Role) => {
                Some("cache modes and roles are written without quotes: `none`, `log`".into())
            }
            (ExprKind::Str(_), _) if matches!(b, Dim::Cache | Dim::Role) => {
                Some("cache modes and roles are written without quotes: `none`, `log`".into())
            }
            _ if (a == Dim::Ratio && b == Dim::Count) || (a == Dim::Count && b == Dim::Ratio) => {
                Some("`ratio(a, b)` turns two counts into a ratio".into())
            }
            _ => None,
        };
        self.err(
            Error::DimensionMismatch {
                op: op.as_str().into(),
                left: l.ty.dim.describe(),
                right: r.ty.dim.describe(),
                hint,
            },
            span,
        );
        None
    }

    fn nearest_element(&self, kind: ElementKind) -> Option<Subject> {
        self.elements.iter().rev().find(|(k, _)| *k == kind).map(|(_, s)| *s)
    }

    fn path(&mut self, p: &ast::Path) -> Option<TExpr> {
        let span = p.span;
        let segs = &p.segments;
        let first = segs.first()?;
        if segs.len() == 1 {
            return self.name(first);
        }
        let second = &segs[1];
        let third = segs.get(2);
        let too_long = |c: &mut Self, at: usize, object: String| {
            if let Some(s) = segs.get(at) {
                c.err(
                    Error::UnknownField { object, field: s.name.clone(), suggestion: None },
                    s.span,
                );
                true
            } else {
                false
            }
        };
        let f = first.name.as_str();
        if f == "vm" {
            let Some(field) = VmField::parse(&second.name) else {
                let suggestion = suggest(&second.name, VmField::names());
                self.err(
                    Error::UnknownField {
                        object: "vm".into(),
                        field: second.name.clone(),
                        suggestion,
                    },
                    second.span,
                );
                return None;
            };
            if field != VmField::TempDisk {
                if too_long(self, 2, format!("vm.{}", second.name)) {
                    return None;
                }
                let field = Field::Vm(field);
                return Self::texpr(
                    TKind::Ref(crate::check::Ref::Field { of: Subject::Vm, field }),
                    Ty::scalar(field.dim()),
                    span,
                );
            }
            let Some(t) = third else {
                return Self::texpr(
                    TKind::Ref(Ref::Element(Subject::TempDisk)),
                    Ty::scalar(Dim::Element(ElementKind::Disk)),
                    span,
                );
            };
            if too_long(self, 3, "vm.temp_disk".into()) {
                return None;
            }
            return self.member(ElementKind::Disk, Subject::TempDisk, "vm.temp_disk", t, span);
        }
        if f == "host" {
            if too_long(self, 2, format!("host.{}", second.name)) {
                return None;
            }
            return match HOST_METRICS.iter().find(|m| m.name() == second.name) {
                Some(m) => Self::texpr(
                    TKind::Ref(Ref::Metric { of: Subject::Host, metric: *m }),
                    Ty::series(metric_dim(*m)),
                    span,
                ),
                None => {
                    let suggestion = suggest(&second.name, HOST_METRICS.iter().map(|m| m.name()));
                    self.err(
                        Error::UnknownField {
                            object: "host".into(),
                            field: second.name.clone(),
                            suggestion,
                        },
                        second.span,
                    );
                    None
                }
            };
        }
        if let Some(kind) = ElementKind::parse(f) {
            let Some(subject) = self.nearest_element(kind) else {
                self.err(
                    Error::NotInScope { object: f.into(), scope: self.scope.to_string() },
                    first.span,
                );
                return None;
            };
            if too_long(self, 2, format!("{f}.{}", second.name)) {
                return None;
            }
            return self.member(kind, subject, f, second, span);
        }
        // `x.y` where x is not an object.
        let known = self.rule.params.iter().any(|p| p.name.name == f)
            || self.rule.lets.iter().any(|l| l.name.name == f)
            || f.parse::<Metric>().is_ok();
        if known {
            self.err(
                Error::UnknownField {
                    object: f.into(),
                    field: second.name.clone(),
                    suggestion: None,
                },
                second.span,
            );
        } else {
            let suggestion = suggest(f, OBJECTS.iter().copied());
            self.err(Error::UnknownName { name: f.into(), suggestion, hint: None }, first.span);
        }
        None
    }

    /// `OBJECT.NAME` on an element: a field, or a metric (that element's series).
    fn member(
        &mut self,
        kind: ElementKind,
        of: Subject,
        object: &str,
        name: &ast::Ident,
        span: Span,
    ) -> Option<TExpr> {
        if let Some(field) = kind.field(&name.name) {
            return Self::texpr(
                TKind::Ref(Ref::Field { of, field }),
                Ty::scalar(field.dim()),
                span,
            );
        }
        if let Ok(metric) = name.name.parse::<Metric>() {
            return Self::texpr(
                TKind::Ref(Ref::Metric { of, metric }),
                Ty::series(metric_dim(metric)),
                span,
            );
        }
        let fields = kind.field_names();
        let candidates = fields.iter().copied().chain(Metric::ALL.iter().map(|m| m.name()));
        let suggestion = suggest(&name.name, candidates);
        self.err(
            Error::UnknownField { object: object.into(), field: name.name.clone(), suggestion },
            name.span,
        );
        None
    }

    /// A bare name.
    fn name(&mut self, id: &ast::Ident) -> Option<TExpr> {
        let n = id.name.as_str();
        let span = id.span;
        if let Some(i) = self.rule.params.iter().position(|p| p.name.name == n) {
            let dim = self.params.get(i).copied().flatten()?;
            return Self::texpr(TKind::Ref(Ref::Param(i)), Ty::scalar(dim), span);
        }
        if let Some(i) = self.rule.lets[..self.visible_lets].iter().position(|l| l.name.name == n) {
            let ty = self.lets.get(i)?.as_ref()?.ty;
            return Self::texpr(TKind::Ref(Ref::Let(i)), ty, span);
        }
        if let Ok(metric) = n.parse::<Metric>() {
            let Some(&(_, of)) = self.elements.last() else {
                self.err(Error::BareMetricInVm { metric: n.into() }, span);
                return None;
            };
            return Self::texpr(
                TKind::Ref(Ref::Metric { of, metric }),
                Ty::series(metric_dim(metric)),
                span,
            );
        }
        for &(kind, of) in self.elements.iter().rev() {
            if let Some(field) = kind.field(n) {
                return Self::texpr(
                    TKind::Ref(Ref::Field { of, field }),
                    Ty::scalar(field.dim()),
                    span,
                );
            }
        }
        if let Some(c) = CacheMode::parse(n) {
            return Self::texpr(TKind::Cache(c), Ty::scalar(Dim::Cache), span);
        }
        if let Some(r) = Role::parse(n) {
            return Self::texpr(TKind::Role(r), Ty::scalar(Dim::Role), span);
        }
        if let Some(kind) = ElementKind::parse(n) {
            let Some(of) = self.nearest_element(kind) else {
                self.err(
                    Error::NotInScope { object: n.into(), scope: self.scope.to_string() },
                    span,
                );
                return None;
            };
            return Self::texpr(TKind::Ref(Ref::Element(of)), Ty::scalar(Dim::Element(kind)), span);
        }
        if let Some(l) = self.rule.lets[self.visible_lets..].iter().find(|l| l.name.name == n) {
            let line = line_of(self.src, l.span);
            self.err(Error::UseBeforeLet { name: n.into(), line }, span);
            return None;
        }
        let hint = match n {
            "vm" => Some("`vm` is an object: use a field, like `vm.cached_mbps`".to_owned()),
            "host" => Some(
                "`host` is an object: use `host.cpu_pct` or `host.available_memory_mib`".to_owned(),
            ),
            _ if COLLECTIONS.contains(&n) => {
                Some(format!("a collection is aggregated: `sum(iops) over {n}`"))
            }
            _ => None,
        };
        let rule: &'a ast::Rule = self.rule;
        let mut candidates: Vec<&str> = Vec::new();
        candidates.extend(rule.params.iter().map(|p| p.name.name.as_str()));
        candidates.extend(rule.lets[..self.visible_lets].iter().map(|l| l.name.name.as_str()));
        let mut statics: Vec<&'static str> = Vec::new();
        if !self.elements.is_empty() {
            statics.extend(Metric::ALL.iter().map(|m| m.name()));
        }
        for (k, _) in &self.elements {
            statics.extend(k.field_names());
            statics.push(k.name());
        }
        statics.extend(CacheMode::names());
        statics.extend(Role::names());
        for s in statics {
            candidates.push(s);
        }
        let suggestion = if hint.is_some() { None } else { suggest(n, candidates) };
        self.err(Error::UnknownName { name: n.into(), suggestion, hint }, span);
        None
    }

    fn call(&mut self, func: &ast::Ident, args: &[Expr], span: Span) -> Option<TExpr> {
        let name = func.name.as_str();
        let builtin = match builtins::lookup(name, args.len()) {
            Ok(b) => b,
            Err(named) if named.is_empty() => {
                if CollectionAgg::parse(name).is_some() {
                    self.err(Error::AggregateWithoutOver { name: name.into() }, span);
                } else {
                    let candidates = builtins::function_names()
                        .into_iter()
                        .chain(AGGREGATES.iter().map(|a| a.name));
                    let suggestion = suggest(name, candidates);
                    self.err(Error::UnknownFunction { name: name.into(), suggestion }, func.span);
                }
                return None;
            }
            Err(named) => {
                let mut counts: Vec<usize> = named.iter().map(|f| f.params.len()).collect();
                counts.sort_unstable();
                let expected =
                    counts.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(" or ");
                let one = counts.len() == 1 && counts[0] == 1;
                let expected = format!("{expected} argument{}", if one { "" } else { "s" });
                self.err(Error::Arity { func: name.into(), expected, found: args.len() }, span);
                return None;
            }
        };
        let mut typed = Vec::new();
        let mut failed = false;
        for a in args {
            match self.expr(a) {
                Some(t) => typed.push(t),
                None => failed = true,
            }
        }
        if failed {
            return None;
        }
        let ty = self.call_type(builtin, name, args, &typed)?;
        Self::texpr(TKind::Call(builtin, typed), ty, span)
    }

    fn want(
        &mut self,
        ok: bool,
        func: &str,
        index: usize,
        expected: &str,
        args: &[Expr],
        t: &[TExpr],
    ) -> Option<()> {
        if ok {
            return Some(());
        }
        self.err(
            Error::ArgumentType {
                func: func.into(),
                index: index + 1,
                expected: expected.into(),
                found: t[index].ty.describe(),
            },
            args[index].span,
        );
        None
    }

    fn call_type(&mut self, b: Builtin, name: &str, args: &[Expr], t: &[TExpr]) -> Option<Ty> {
        let ty = |i: usize| t[i].ty;
        match b {
            Builtin::Avg
            | Builtin::Min
            | Builtin::Max
            | Builtin::P50
            | Builtin::P90
            | Builtin::P95
            | Builtin::P99
            | Builtin::Pct => {
                let a = ty(0);
                self.want(a.dim.is_numeric() && a.series, name, 0, "a numeric series", args, t)?;
                if b == Builtin::Pct {
                    let p = ty(1);
                    self.want(
                        p.dim == Dim::Number && !p.series,
                        name,
                        1,
                        "a plain number from 0 to 100",
                        args,
                        t,
                    )?;
                }
                Some(Ty::scalar(a.dim))
            }
            Builtin::Sustained | Builtin::Share | Builtin::Duration => {
                let a = ty(0);
                self.want(a.dim == Dim::Bool && a.series, name, 0, "a bool series", args, t)?;
                match b {
                    Builtin::Sustained => {
                        let d = ty(1);
                        self.want(d.dim == Dim::Time && !d.series, name, 1, "a time", args, t)?;
                        Some(Ty::scalar(Dim::Bool))
                    }
                    Builtin::Share => Some(Ty::scalar(Dim::Ratio)),
                    _ => Some(Ty::scalar(Dim::Time)),
                }
            }
            Builtin::Abs => {
                self.want(ty(0).dim.is_numeric(), name, 0, "a number", args, t)?;
                Some(ty(0))
            }
            Builtin::Min2 | Builtin::Max2 | Builtin::Ratio | Builtin::Between => {
                for i in 0..t.len() {
                    self.want(ty(i).dim.is_numeric(), name, i, "a number", args, t)?;
                }
                let mut dim = ty(0).dim;
                for i in 1..t.len() {
                    match Dim::unify(dim, ty(i).dim) {
                        Some(d) => dim = d,
                        None => {
                            let expected = format!("{} like argument 1", dim.describe());
                            self.want(false, name, i, &expected, args, t)?;
                        }
                    }
                }
                let series = t.iter().any(|x| x.ty.series);
                Some(match b {
                    Builtin::Ratio => Ty { dim: Dim::Ratio, series },
                    Builtin::Between => Ty { dim: Dim::Bool, series },
                    _ => Ty { dim, series },
                })
            }
            Builtin::Exists => Some(Ty::scalar(Dim::Bool)),
            Builtin::Coalesce => {
                let dim = Dim::unify(ty(0).dim, ty(1).dim);
                let expected = format!("{} like argument 1", ty(0).dim.describe());
                self.want(dim.is_some(), name, 1, &expected, args, t)?;
                Some(Ty { dim: dim.unwrap_or(ty(0).dim), series: ty(0).series || ty(1).series })
            }
            Builtin::If => {
                let c = ty(0);
                self.want(c.dim == Dim::Bool && !c.series, name, 0, "a scalar bool", args, t)?;
                let (a, b) = (ty(1), ty(2));
                let dim = if a.dim.is_numeric() && b.dim.is_numeric() {
                    Dim::unify(a.dim, b.dim)
                } else {
                    (a.dim == b.dim).then_some(a.dim)
                };
                let expected = format!("{} like argument 2", a.describe());
                match dim {
                    Some(dim) if a.series == b.series => Some(Ty { dim, series: a.series }),
                    _ => {
                        self.want(false, name, 2, &expected, args, t)?;
                        None
                    }
                }
            }
        }
    }

    fn aggregate(
        &mut self,
        func: &ast::Ident,
        body: &Expr,
        over: &ast::Path,
        filter: Option<&Expr>,
        span: Span,
    ) -> Option<TExpr> {
        let name = func.name.as_str();
        let Some(agg) = CollectionAgg::parse(name) else {
            if builtins::function_names().contains(&name) {
                self.err(Error::NotAnAggregate { name: name.into() }, func.span);
            } else {
                let suggestion = suggest(name, AGGREGATES.iter().map(|a| a.name));
                self.err(Error::UnknownFunction { name: name.into(), suggestion }, func.span);
            }
            return None;
        };
        let coll = self.collection(over)?;
        let depth = self.overs;
        self.elements.push((coll.element(), Subject::Over(depth)));
        self.overs += 1;
        let b = self.expr(body);
        let f = filter.and_then(|f| {
            let t = self.expr(f)?;
            if t.ty != Ty::scalar(Dim::Bool) {
                self.err(Error::WhereNotBool { found: t.ty.describe() }, f.span);
                return None;
            }
            Some(t)
        });
        self.overs -= 1;
        self.elements.pop();
        let b = b?;
        if filter.is_some() && f.is_none() {
            return None;
        }
        let series = b.ty.series;
        let ty = match agg {
            CollectionAgg::Sum | CollectionAgg::Avg | CollectionAgg::Min | CollectionAgg::Max => {
                if !b.ty.dim.is_numeric() {
                    self.err(
                        Error::ArgumentType {
                            func: name.into(),
                            index: 1,
                            expected: "a number".into(),
                            found: b.ty.describe(),
                        },
                        body.span,
                    );
                    return None;
                }
                b.ty
            }
            CollectionAgg::Count => {
                if !matches!(b.ty.dim, Dim::Bool | Dim::Element(_)) {
                    self.err(
                        Error::ArgumentType {
                            func: name.into(),
                            index: 1,
                            expected: "the element or a bool".into(),
                            found: b.ty.describe(),
                        },
                        body.span,
                    );
                    return None;
                }
                Ty { dim: Dim::Count, series }
            }
            CollectionAgg::Any | CollectionAgg::All => {
                if b.ty.dim != Dim::Bool {
                    self.err(
                        Error::ArgumentType {
                            func: name.into(),
                            index: 1,
                            expected: "a bool".into(),
                            found: b.ty.describe(),
                        },
                        body.span,
                    );
                    return None;
                }
                b.ty
            }
        };
        Self::texpr(
            TKind::Aggregate { agg, over: coll, body: Box::new(b), filter: f.map(Box::new) },
            ty,
            span,
        )
    }

    fn collection(&mut self, over: &ast::Path) -> Option<Collection> {
        let text = over.to_string();
        let c = match text.as_str() {
            "disks" => Collection::Disks,
            "pools" => Collection::Pools,
            "targets" => Collection::Targets,
            "benches" => Collection::Benches,
            "pool.members" => match self.nearest_element(ElementKind::Pool) {
                Some(of) => Collection::PoolMembers { of },
                None => {
                    self.err(
                        Error::NotInScope { object: "pool".into(), scope: self.scope.to_string() },
                        over.span,
                    );
                    return None;
                }
            },
            _ => {
                let suggestion = suggest(&text, COLLECTIONS.iter().copied());
                self.err(Error::UnknownCollection { name: text, suggestion }, over.span);
                return None;
            }
        };
        Some(c)
    }
}
