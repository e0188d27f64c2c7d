//! The checker: runs before anything is evaluated. It resolves every name, checks scopes,
//! dimensions, series against scalars, function arities and the rule's shape, and lowers
//! the AST into a typed tree ([`TypedExpr`]) whose references are already resolved, so the
//! evaluator never looks a name up.

use std::collections::BTreeMap;
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

mod functions;
mod names;
mod operators;
mod tree;

pub use tree::*;

const COLLECTIONS: &[&str] = &["disks", "pools", "targets", "benches", "pool.members"];
const OBJECTS: &[&str] = &["vm", "host", "disk", "pool", "bench", "target", "file"];
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
pub fn param_value(v: &ParamValue) -> (Dim, Constant) {
    match v {
        ParamValue::Number(n) => (literal_dim(n), Constant::Number(n.base_value())),
        ParamValue::Bool { value, .. } => (Dim::Bool, Constant::Bool(*value)),
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
    lets: Vec<Option<TypedExpr>>,
    visible_lets: usize,
    /// Elements in reach, innermost last.
    elements: Vec<(ElementKind, Owner)>,
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
            self.elements.push((k, Owner::Scope));
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
        let episodes = r.episodes.as_ref().and_then(|e| self.episodes(e, &params));
        let explains = r.explains.iter().map(|i| i.name.clone()).collect();
        let explains_where = r.explains_where.as_ref().and_then(|w| {
            // In a `vm` rule the condition is about the disk an effect is about.
            let vm = self.scope == Scope::Vm;
            if vm {
                self.elements.push((ElementKind::Disk, Owner::Scope));
            }
            let t = self.expr(w);
            if vm {
                self.elements.pop();
            }
            match t {
                Some(t) if t.ty == Ty::scalar(Dim::Bool) => Some(t),
                Some(t) => {
                    self.err(Error::WhereNotBool { found: t.ty.describe() }, w.span);
                    None
                }
                None => None,
            }
        });
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
        let mut rule = CheckedRule {
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
            episodes,
            explains,
            explains_where,
            doc,
            ast: file.clone(),
            repeated: BTreeMap::new(),
        };
        rule.repeated = crate::eval::repeated_calls(&rule);
        Ok(rule)
    }

    /// Checks `episodes`: a numeric series, a cap of its dimension, a ratio, a latency
    /// series, and the two time parameters it reads.
    fn episodes(&mut self, e: &ast::Episodes, params: &[CheckedParam]) -> Option<CheckedEpisodes> {
        let numeric = |d: Dim| {
            matches!(
                d,
                Dim::Rate | Dim::Throughput | Dim::Time | Dim::Size | Dim::Ratio | Dim::Count
            )
        };
        let series = self.expr(&e.series);
        let cap = self.expr(&e.cap);
        let ratio = self.expr(&e.ratio);
        let latency = e.latency.as_ref().map(|l| (self.expr(l), l.span));
        let mut ok = true;
        let mut bad = |c: &mut Self, part: &'static str, expected: String, found: Ty, at: Span| {
            c.err(Error::EpisodesType { part, expected, found: found.describe() }, at);
            ok = false;
        };
        if let Some(t) = &series
            && !(t.ty.series && numeric(t.ty.dim))
        {
            bad(self, "SERIES", "a numeric series".into(), t.ty, e.series.span);
        }
        if let (Some(s), Some(c)) = (&series, &cap)
            && (c.ty.series || !(c.ty.dim == s.ty.dim || c.ty.dim == Dim::Number))
        {
            let expected = Ty::scalar(s.ty.dim).describe();
            bad(self, "CAP", expected, c.ty, e.cap.span);
        }
        if let Some(r) = &ratio
            && (r.ty.series || !matches!(r.ty.dim, Dim::Ratio | Dim::Number))
        {
            bad(self, "RATIO", "a ratio".into(), r.ty, e.ratio.span);
        }
        if let Some((Some(l), at)) = &latency
            && !(l.ty.series && l.ty.dim == Dim::Time)
        {
            bad(self, "latency", "a time series".into(), l.ty, *at);
        }
        let param = |c: &mut Self, name: &'static str| {
            let i = params.iter().position(|p| p.name == name && p.dim == Dim::Time);
            if i.is_none() {
                c.err(Error::EpisodesParam { name }, e.span);
            }
            i
        };
        let gap = param(self, "episode_gap");
        let sustained = param(self, "episode_sustained");
        let latency = match latency {
            Some((Some(l), _)) => Some(l),
            Some((None, _)) => return None,
            None => None,
        };
        match (ok, series, cap, ratio, gap, sustained) {
            (true, Some(series), Some(cap), Some(ratio), Some(gap), Some(sustained)) => {
                Some(CheckedEpisodes { series, cap, ratio, latency, gap, sustained })
            }
            _ => None,
        }
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

    fn template(&mut self, t: &Template) -> Vec<TypedPart> {
        let mut out = Vec::new();
        for p in &t.parts {
            match p {
                Part::Text(s) => out.push(TypedPart::Text(s.clone())),
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
                    out.push(TypedPart::Value { expr: e, decimals: *decimals, label });
                }
            }
        }
        out
    }

    fn texpr(kind: TypedExprKind, ty: Ty, span: Span) -> Option<TypedExpr> {
        Some(TypedExpr { kind, ty, span })
    }

    fn expr(&mut self, e: &Expr) -> Option<TypedExpr> {
        let span = e.span;
        match &e.kind {
            ExprKind::Number(n) => {
                Self::texpr(TypedExprKind::Number(n.base_value()), Ty::scalar(literal_dim(n)), span)
            }
            ExprKind::Bool(b) => Self::texpr(TypedExprKind::Bool(*b), Ty::scalar(Dim::Bool), span),
            ExprKind::Str(t) => {
                let s = self.plain(t);
                t.as_plain()?;
                Self::texpr(TypedExprKind::Text(s), Ty::scalar(Dim::Text), span)
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
                Self::texpr(TypedExprKind::Unary(*op, Box::new(o)), ty, span)
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let l = self.expr(lhs);
                let r = self.expr(rhs);
                let (l, r) = (l?, r?);
                let ty = self.binary(*op, lhs, rhs, &l, &r, span)?;
                Self::texpr(TypedExprKind::Binary(*op, Box::new(l), Box::new(r)), ty, span)
            }
            ExprKind::Call { func, args } => self.call(func, args, span),
            ExprKind::Aggregate { func, body, over, filter } => {
                self.aggregate(func, body, over, filter.as_deref(), span)
            }
        }
    }

    fn nearest_element(&self, kind: ElementKind) -> Option<Owner> {
        self.elements.iter().rev().find(|(k, _)| *k == kind).map(|(_, s)| *s)
    }
}
