//! The front-end of advisor's rule language (docs/rule-language.md): the grammar, a spanned
//! AST, a printer, the checker that resolves and types every name before anything runs,
//! diagnostics with codes and did-you-means, and the registry of shipped and user rules.
//!
//! ```
//! let src = "rule x\ntitle \"t\"\nseverity info\nscope disk\n\
//!            when p95(latency_ms) > 20 ms\nevidence \"{p95(latency_ms):.1} ms\"\nfix \"f\"\n\
//!            doc what \"\"\"w\"\"\"\ndoc why \"\"\"y\"\"\"\ndoc fix \"\"\"f\"\"\"\n";
//! let rule = advisor_rules::compile("x.rule", src).expect("checks");
//! assert_eq!(rule.scope, advisor_rules::Scope::Disk);
//! ```

pub mod ast;
pub mod builtins;
pub mod check;
pub mod diag;
pub mod eval;
pub mod explain;
pub mod parser;
pub mod print;
pub mod registry;
pub mod stories;
pub mod types;

pub use check::{
    CheckedLet, CheckedParam, CheckedRule, Collection, Constant, Owner, Ref, RuleDoc, TypedExpr,
    TypedExprKind, TypedPart, check,
};
pub use diag::{Diagnostic, Error, ErrorAt};
pub use eval::{Facts, Outcome, SeriesSource, evaluate, evaluate_rule};
pub use explain::explain;
pub use parser::{parse, parse_expr, parse_param_value};
pub use print::print;
pub use registry::{LoadError, Origin, Registry, RuleFile, Setting, compile, parse_set};
pub use types::{Dim, ElementKind, Field, Scope, Severity, Ty};
