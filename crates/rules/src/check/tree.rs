//! The typed tree the checker produces: a checked rule, its parameters, lets, cases and
//! episodes, and expressions whose names are resolved (what the evaluator and `explain`
//! read).

use std::collections::BTreeMap;

use advisor_model::Metric;

use crate::ast::{self, BinaryOp, Span, UnaryOp};
use crate::builtins::{Builtin, CollectionAgg};
use crate::types::{CacheMode, Dim, ElementKind, Field, Role, Scope, Severity, Ty};

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
    pub when: TypedExpr,
    pub evidence: Vec<TypedPart>,
    pub fix: Vec<TypedPart>,
    /// `case` lines in file order: the first whose condition holds when the rule fires
    /// gives the finding its severity, evidence and fix.
    pub cases: Vec<CheckedCase>,
    /// `episodes`: what to compare with which cap, sample by sample, when the rule fires.
    pub episodes: Option<CheckedEpisodes>,
    /// `explains`: ids of the rules whose findings this rule's finding explains.
    pub explains: Vec<String>,
    /// `explains ... where COND`: a scalar bool, about a disk in a `vm` rule (its element
    /// is the scope's: [`Owner::Scope`]).
    pub explains_where: Option<TypedExpr>,
    pub doc: RuleDoc,
    /// The tree as parsed.
    pub ast: ast::File,
    /// Calls written more than once in the rule, the same function of the same arguments
    /// (`plateau(iops, iops >= busy_floor, min_samples)` three times in one condition): each
    /// one's span and the number of its class. The evaluator works a class out once per
    /// subject and element of an `over`.
    pub repeated: BTreeMap<Span, usize>,
}

/// A checked `case SEVERITY when EXPR evidence "..." fix "..."`.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckedCase {
    pub severity: Severity,
    /// The case's own title, else the rule's.
    pub title: Option<String>,
    /// A scalar bool.
    pub when: TypedExpr,
    pub evidence: Vec<TypedPart>,
    pub fix: Vec<TypedPart>,
}

/// A checked `episodes SERIES against CAP at RATIO [latency SERIES]`.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckedEpisodes {
    /// A numeric series.
    pub series: TypedExpr,
    /// A scalar of the series' dimension.
    pub cap: TypedExpr,
    /// A scalar ratio: the share of the cap that counts as at the cap.
    pub ratio: TypedExpr,
    /// A time series: the latency set inside against outside the episodes.
    pub latency: Option<TypedExpr>,
    /// Indexes into [`CheckedRule::params`] of `episode_gap` and `episode_sustained`.
    pub gap: usize,
    pub sustained: usize,
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
    pub value: Constant,
    /// The default as written (`95%`).
    pub default_text: String,
    /// The current value as written: the default, or the `--set` value.
    pub value_text: String,
    pub dim: Dim,
    pub description: String,
    pub span: Span,
}

/// A parameter's value, resolved to a constant in stored units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Constant {
    Number(f64),
    Bool(bool),
}

/// A `let` and its typed value.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckedLet {
    pub name: String,
    pub expr: TypedExpr,
}

/// A piece of evidence or fix text.
#[derive(Debug, Clone, PartialEq)]
pub enum TypedPart {
    Text(String),
    /// `{expr:.N}`; `label` is the expression as written, for the finding's metrics map.
    Value {
        expr: TypedExpr,
        decimals: Option<u8>,
        label: String,
    },
}

/// A typed expression whose names are resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct TypedExpr {
    pub kind: TypedExprKind,
    pub ty: Ty,
    pub span: Span,
}

/// The forms of a typed expression.
#[derive(Debug, Clone, PartialEq)]
pub enum TypedExprKind {
    /// In stored units: bytes, seconds, bytes/s, IO/s, a fraction.
    Number(f64),
    Bool(bool),
    Text(String),
    Cache(CacheMode),
    Role(Role),
    Ref(Ref),
    Unary(UnaryOp, Box<TypedExpr>),
    Binary(BinaryOp, Box<TypedExpr>, Box<TypedExpr>),
    Call(Builtin, Vec<TypedExpr>),
    Aggregate {
        agg: CollectionAgg,
        over: Collection,
        /// Evaluated once per element; the element is [`Owner::Over`] at this depth.
        body: Box<TypedExpr>,
        filter: Option<Box<TypedExpr>>,
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
    Metric { of: Owner, metric: Metric },
    /// A topology or settings field (a scalar).
    Field { of: Owner, field: Field },
    /// The element itself (`count(disk) over disks`, `exists(vm.temp_disk)`).
    Element(Owner),
}

/// Whose metric, field or element a [`Ref`] reads (its `of`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Owner {
    /// The VM (its fields).
    Vm,
    /// The host (`host.cpu_pct`).
    Host,
    /// The temp disk (`vm.temp_disk.iops`).
    TempDisk,
    /// The disk a `file` rule's database file sits on (`file.disk.cache`).
    FileDisk,
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
        of: Owner,
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
