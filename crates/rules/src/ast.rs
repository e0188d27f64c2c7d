//! The spanned syntax tree of a rule file, as written: names are not resolved here (the
//! checker does that, see [`crate::check`]). Every node carries the [`Span`] of the text
//! it came from, so any error can point at it.

use std::fmt;

/// Byte offsets `start..end` into the rule file's text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Self {
        Self { start, end }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span { start: self.start.min(other.start), end: self.end.max(other.end) }
    }
}

/// A name as written, with where.
#[derive(Debug, Clone, PartialEq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

impl Ident {
    pub fn new(name: impl Into<String>, span: Span) -> Self {
        Self { name: name.into(), span }
    }
}

/// A parsed rule file. One file holds one rule.
#[derive(Debug, Clone, PartialEq)]
pub struct File {
    pub rule: Rule,
    /// The whole text.
    pub span: Span,
}

/// A rule with its items in the reference's order. Items the grammar lets one leave out are
/// `Option`s here: the checker says which are required.
#[derive(Debug, Clone, PartialEq)]
pub struct Rule {
    pub header: Header,
    pub params: Vec<Param>,
    /// In file order: a `let` sees the ones above it.
    pub lets: Vec<Let>,
    pub when: Option<When>,
    pub evidence: Option<Evidence>,
    pub fix: Option<Fix>,
    /// `case` lines, in file order: the first whose condition holds sets the finding's
    /// severity and texts.
    pub cases: Vec<Case>,
    /// `episodes SERIES against CAP at RATIO [latency SERIES]`, at most one.
    pub episodes: Option<Episodes>,
    /// `explains RULE-ID ...`: the rules whose findings this rule's finding explains.
    pub explains: Vec<Ident>,
    /// `explains ... where COND`: which of those findings (their disk, in a `vm` rule).
    pub explains_where: Option<Expr>,
    pub docs: Vec<Doc>,
}

/// `episodes SERIES against CAP at RATIO [latency SERIES]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Episodes {
    pub series: Expr,
    pub cap: Expr,
    pub ratio: Expr,
    pub latency: Option<Expr>,
    pub span: Span,
}

/// `rule`, `title`, `severity`, `scope`, `refs`.
#[derive(Debug, Clone, PartialEq)]
pub struct Header {
    /// The id after `rule`.
    pub id: Ident,
    pub title: Option<Template>,
    /// The word after `severity`, resolved by the checker.
    pub severity: Option<Ident>,
    /// The word after `scope`, resolved by the checker.
    pub scope: Option<Ident>,
    pub refs: Vec<Template>,
    /// `rule ID` itself.
    pub span: Span,
}

/// `param NAME = VALUE "description"`.
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    pub name: Ident,
    pub default: ParamValue,
    pub description: Option<Template>,
    pub span: Span,
}

/// A parameter's default, or a `--set` value.
#[derive(Debug, Clone, PartialEq)]
pub enum ParamValue {
    /// A number with its unit; `value` may be negative here (never in an expression,
    /// where `-` is an operator).
    Number(Number),
    Bool {
        value: bool,
        span: Span,
    },
}

impl ParamValue {
    pub fn span(&self) -> Span {
        match self {
            Self::Number(n) => n.span,
            Self::Bool { span, .. } => *span,
        }
    }
}

/// `let NAME = EXPR`.
#[derive(Debug, Clone, PartialEq)]
pub struct Let {
    pub name: Ident,
    pub value: Expr,
    pub span: Span,
}

/// `when EXPR`.
#[derive(Debug, Clone, PartialEq)]
pub struct When {
    pub cond: Expr,
    pub span: Span,
}

/// `evidence "..."`.
#[derive(Debug, Clone, PartialEq)]
pub struct Evidence {
    pub text: Template,
    pub span: Span,
}

/// `fix "..."`.
#[derive(Debug, Clone, PartialEq)]
pub struct Fix {
    pub text: Template,
    pub span: Span,
}

/// `case SEVERITY when EXPR [title "..."] evidence "..." fix "..."`.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// The word after `case`, resolved by the checker.
    pub severity: Ident,
    pub cond: Expr,
    /// A title of its own, else the rule's.
    pub title: Option<Template>,
    pub evidence: Evidence,
    pub fix: Fix,
    pub span: Span,
}

/// `doc KIND """TEXT"""`.
#[derive(Debug, Clone, PartialEq)]
pub struct Doc {
    /// `what`, `why` or `fix` (checked by the checker).
    pub kind: Ident,
    /// The text, with the first newline, the trailing blank space and the common
    /// indentation removed.
    pub text: String,
    pub span: Span,
}

/// A number literal as written: `95%` is `value: 95.0, unit: Some(Percent)`;
/// [`Number::base_value`] gives what it means (0.95).
#[derive(Debug, Clone, PartialEq)]
pub struct Number {
    pub value: f64,
    pub unit: Option<UnitLit>,
    pub span: Span,
}

impl Number {
    /// The value in the unit its dimension is stored in: bytes, seconds, bytes/s, IO/s,
    /// a fraction.
    pub fn base_value(&self) -> f64 {
        // Divide for units below the stored one: 95 / 100 is exactly 0.95, 95 * 0.01 is not.
        match self.unit {
            None => self.value,
            Some(UnitLit::Percent) => self.value / 100.0,
            Some(UnitLit::Ms) => self.value / 1e3,
            Some(UnitLit::Us) => self.value / 1e6,
            Some(u) => self.value * u.factor(),
        }
    }
}

/// The units a literal may carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnitLit {
    Iops,
    MBps,
    MiBps,
    GBps,
    Us,
    Ms,
    S,
    Min,
    H,
    B,
    KiB,
    MiB,
    GiB,
    TiB,
    KB,
    MB,
    GB,
    TB,
    Percent,
}

const KIB: f64 = 1024.0;
const MIB: f64 = KIB * 1024.0;
const GIB: f64 = MIB * 1024.0;
const TIB: f64 = GIB * 1024.0;

impl UnitLit {
    /// Every unit, longest spelling first (the grammar's order).
    pub const ALL: &'static [UnitLit] = &[
        Self::Iops,
        Self::MBps,
        Self::MiBps,
        Self::GBps,
        Self::Us,
        Self::Ms,
        Self::S,
        Self::Min,
        Self::H,
        Self::B,
        Self::KiB,
        Self::MiB,
        Self::GiB,
        Self::TiB,
        Self::KB,
        Self::MB,
        Self::GB,
        Self::TB,
        Self::Percent,
    ];

    /// As written in rule text.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Iops => "iops",
            Self::MBps => "MB/s",
            Self::MiBps => "MiB/s",
            Self::GBps => "GB/s",
            Self::Us => "us",
            Self::Ms => "ms",
            Self::S => "s",
            Self::Min => "min",
            Self::H => "h",
            Self::B => "B",
            Self::KiB => "KiB",
            Self::MiB => "MiB",
            Self::GiB => "GiB",
            Self::TiB => "TiB",
            Self::KB => "KB",
            Self::MB => "MB",
            Self::GB => "GB",
            Self::TB => "TB",
            Self::Percent => "%",
        }
    }

    /// From its spelling.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|u| u.as_str() == s)
    }

    /// Multiplier to the stored unit. Throughput in `MB/s` and `GB/s` is decimal (10^6 and
    /// 10^9 bytes/s), as Azure publishes its caps; `MiB/s` is 2^20 bytes/s. Sizes are binary
    /// whatever their spelling (`MB` = `MiB`), as Azure sizes disks and caches in GiB.
    pub fn factor(self) -> f64 {
        match self {
            Self::Iops | Self::B | Self::S => 1.0,
            Self::MBps => 1e6,
            Self::GBps => 1e9,
            Self::MiBps | Self::MiB | Self::MB => MIB,
            Self::GiB | Self::GB => GIB,
            Self::Us => 1e-6,
            Self::Ms => 1e-3,
            Self::Min => 60.0,
            Self::H => 3600.0,
            Self::KiB | Self::KB => KIB,
            Self::TiB | Self::TB => TIB,
            Self::Percent => 0.01,
        }
    }
}

impl fmt::Display for UnitLit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A string: text and `{EXPR:.N}` interpolations. Adjacent text is one part; no text part
/// is empty.
#[derive(Debug, Clone, PartialEq)]
pub struct Template {
    pub parts: Vec<Part>,
    pub span: Span,
}

impl Template {
    /// The text, when there is no interpolation.
    pub fn as_plain(&self) -> Option<String> {
        let mut out = String::new();
        for p in &self.parts {
            match p {
                Part::Text(t) => out.push_str(t),
                Part::Interp { .. } => return None,
            }
        }
        Some(out)
    }
}

/// A piece of a [`Template`].
#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    Text(String),
    /// `{EXPR}` or `{EXPR:.N}`.
    Interp {
        expr: Expr,
        decimals: Option<u8>,
        span: Span,
    },
}

/// An expression with its span.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

/// The forms of an expression.
#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    /// `12`, `95%`, `8 KiB`.
    Number(Number),
    /// `true`, `false`.
    Bool(bool),
    /// `"text"`; interpolations are parsed but only allowed in evidence and fix.
    Str(Template),
    /// `name`, `vm.cached_mbps`, `vm.temp_disk.iops`: resolved by the checker.
    Path(Path),
    Unary {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    Binary {
        op: BinaryOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `f(args)`.
    Call {
        func: Ident,
        args: Vec<Expr>,
    },
    /// `agg(body) over collection [where filter]`.
    Aggregate {
        func: Ident,
        body: Box<Expr>,
        over: Path,
        filter: Option<Box<Expr>>,
    },
}

/// Dotted names.
#[derive(Debug, Clone, PartialEq)]
pub struct Path {
    pub segments: Vec<Ident>,
    pub span: Span,
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, s) in self.segments.iter().enumerate() {
            if i > 0 {
                f.write_str(".")?;
            }
            f.write_str(&s.name)?;
        }
        Ok(())
    }
}

/// `-` and `not`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Neg,
    Not,
}

/// Infix operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Or,
    And,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Mul,
    Div,
}

impl BinaryOp {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Or => "or",
            Self::And => "and",
            Self::Eq => "==",
            Self::Ne => "!=",
            Self::Lt => "<",
            Self::Le => "<=",
            Self::Gt => ">",
            Self::Ge => ">=",
            Self::Add => "+",
            Self::Sub => "-",
            Self::Mul => "*",
            Self::Div => "/",
        }
    }

    /// Binding power, lowest first, as the grammar's Pratt table (`not` sits at 3).
    pub fn precedence(self) -> u8 {
        match self {
            Self::Or => 1,
            Self::And => 2,
            Self::Eq | Self::Ne | Self::Lt | Self::Le | Self::Gt | Self::Ge => 4,
            Self::Add | Self::Sub => 5,
            Self::Mul | Self::Div => 6,
        }
    }

    pub fn is_comparison(self) -> bool {
        self.precedence() == 4
    }
}

impl UnaryOp {
    pub fn precedence(self) -> u8 {
        match self {
            Self::Not => 3,
            Self::Neg => 7,
        }
    }
}

// ---------------------------------------------------------------------------------------
// Span erasure, to compare trees regardless of layout (printer round trips).

impl File {
    /// The same tree with every span set to `0..0`.
    pub fn without_spans(&self) -> File {
        let mut f = self.clone();
        f.clear_spans();
        f
    }

    fn clear_spans(&mut self) {
        self.span = Span::default();
        let r = &mut self.rule;
        let h = &mut r.header;
        h.span = Span::default();
        h.id.span = Span::default();
        if let Some(t) = &mut h.title {
            t.clear_spans();
        }
        for i in [&mut h.severity, &mut h.scope].into_iter().flatten() {
            i.span = Span::default();
        }
        for t in &mut h.refs {
            t.clear_spans();
        }
        for p in &mut r.params {
            p.span = Span::default();
            p.name.span = Span::default();
            match &mut p.default {
                ParamValue::Number(n) => n.span = Span::default(),
                ParamValue::Bool { span, .. } => *span = Span::default(),
            }
            if let Some(d) = &mut p.description {
                d.clear_spans();
            }
        }
        for l in &mut r.lets {
            l.span = Span::default();
            l.name.span = Span::default();
            l.value.clear_spans();
        }
        if let Some(w) = &mut r.when {
            w.span = Span::default();
            w.cond.clear_spans();
        }
        if let Some(e) = &mut r.evidence {
            e.span = Span::default();
            e.text.clear_spans();
        }
        if let Some(e) = &mut r.fix {
            e.span = Span::default();
            e.text.clear_spans();
        }
        for c in &mut r.cases {
            c.span = Span::default();
            c.severity.span = Span::default();
            c.cond.clear_spans();
            if let Some(t) = &mut c.title {
                t.clear_spans();
            }
            c.evidence.span = Span::default();
            c.evidence.text.clear_spans();
            c.fix.span = Span::default();
            c.fix.text.clear_spans();
        }
        if let Some(e) = &mut r.episodes {
            e.span = Span::default();
            for x in [&mut e.series, &mut e.cap, &mut e.ratio].into_iter().chain(e.latency.as_mut())
            {
                x.clear_spans();
            }
        }
        for i in &mut r.explains {
            i.span = Span::default();
        }
        if let Some(w) = &mut r.explains_where {
            w.clear_spans();
        }
        for d in &mut r.docs {
            d.span = Span::default();
            d.kind.span = Span::default();
        }
    }
}

impl Template {
    fn clear_spans(&mut self) {
        self.span = Span::default();
        for p in &mut self.parts {
            if let Part::Interp { expr, span, .. } = p {
                *span = Span::default();
                expr.clear_spans();
            }
        }
    }
}

impl Path {
    fn clear_spans(&mut self) {
        self.span = Span::default();
        for s in &mut self.segments {
            s.span = Span::default();
        }
    }
}

impl Expr {
    /// The same expression with every span set to `0..0`.
    pub fn without_spans(&self) -> Expr {
        let mut e = self.clone();
        e.clear_spans();
        e
    }

    fn clear_spans(&mut self) {
        self.span = Span::default();
        match &mut self.kind {
            ExprKind::Number(n) => n.span = Span::default(),
            ExprKind::Bool(_) => {}
            ExprKind::Str(t) => t.clear_spans(),
            ExprKind::Path(p) => p.clear_spans(),
            ExprKind::Unary { operand, .. } => operand.clear_spans(),
            ExprKind::Binary { lhs, rhs, .. } => {
                lhs.clear_spans();
                rhs.clear_spans();
            }
            ExprKind::Call { func, args } => {
                func.span = Span::default();
                for a in args {
                    a.clear_spans();
                }
            }
            ExprKind::Aggregate { func, body, over, filter } => {
                func.span = Span::default();
                body.clear_spans();
                over.clear_spans();
                if let Some(f) = filter {
                    f.clear_spans();
                }
            }
        }
    }
}
