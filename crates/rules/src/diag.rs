//! Errors and their rendering. An [`Error`] says what is wrong and holds no location;
//! [`Error::at`] attaches a span where one is known, and a [`Diagnostic`] adds the file,
//! line, column and source line, ready to print:
//!
//! ```text
//! error[E0101]: unknown function `p59`
//!   --> rules/vm/x.rule:12:12
//!    |
//! 12 | let peak = p59(iops)
//!    |            ^^^
//!    = note: functions: avg, min, max, p50, p90, p95, p99, pct, ...
//!    = help: did you mean `p95`?
//! ```
//!
//! Never coloured: the text is the same on a terminal, in a pipe and in a snapshot.

use std::fmt;

use crate::ast::Span;

/// Everything the front-end can reject, with a stable code each ([`Error::code`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    // ---- syntax (E00xx)
    #[error("syntax error: expected {expected}{}", found.as_ref().map(|f| format!(", found {f}")).unwrap_or_default())]
    Syntax { expected: String, found: Option<String> },
    #[error("`{item}` is out of place: it comes before `{after}`")]
    ItemOutOfOrder { item: &'static str, after: &'static str },
    #[error("a second `{item}`")]
    DuplicateItem { item: String },
    #[error("nested too deeply")]
    TooDeep { max: u32 },
    #[error("the file is larger than {max} bytes")]
    TooLarge { max: usize },
    #[error("number out of range")]
    NumberOutOfRange,
    #[error("too many decimals: `:.N` takes 0 to 9")]
    BadDecimals,

    // ---- names and scopes (E01xx)
    #[error("unknown function `{name}`")]
    UnknownFunction { name: String, suggestion: Option<String> },
    #[error("`{func}` takes {expected}, found {found} argument{}", if *found == 1 { "" } else { "s" })]
    Arity { func: String, expected: String, found: usize },
    #[error("`{name}` cannot aggregate over a collection")]
    NotAnAggregate { name: String },
    #[error("`{name}` needs `over COLLECTION`")]
    AggregateWithoutOver { name: String },
    #[error("unknown collection `{name}`")]
    UnknownCollection { name: String, suggestion: Option<String> },
    #[error("unknown name `{name}`")]
    UnknownName { name: String, suggestion: Option<String>, hint: Option<String> },
    #[error("`{name}` is used before its `let`")]
    UseBeforeLet { name: String, line: usize },
    #[error("`{object}` has no field `{field}`")]
    UnknownField { object: String, field: String, suggestion: Option<String> },
    #[error("`{object}` is not available in a `{scope}` scope rule")]
    NotInScope { object: String, scope: String },
    #[error("metric `{metric}` has no target in a `vm` scope rule")]
    BareMetricInVm { metric: String },
    #[error("`{name}` is declared twice")]
    DuplicateName { name: String, line: usize },
    #[error("`{name}` is {what}: a `let` or `param` may not shadow it")]
    ReservedName { name: String, what: &'static str },

    // ---- types and dimensions (E02xx)
    #[error("`{op}` on {left} and {right}")]
    DimensionMismatch { op: String, left: String, right: String, hint: Option<String> },
    #[error("argument {index} of `{func}` must be {expected}, found {found}")]
    ArgumentType { func: String, index: usize, expected: String, found: String },
    #[error("`when` must be a scalar bool, found {found}")]
    WhenNotScalarBool { found: String },
    #[error("a ratio compared with the plain number {value}, which is {percent}%")]
    RatioVsPlain { value: String, percent: String },
    #[error("`{op}` needs {expected}, found {found}")]
    OperandType { op: String, expected: &'static str, found: String },
    #[error("`where` must be a scalar bool for each element, found {found}")]
    WhereNotBool { found: String },
    #[error("interpolation `{{...}}` is only allowed in `evidence` and `fix`")]
    InterpolationNotAllowed,
    #[error("an interpolated value must be a scalar, found {found}")]
    InterpolatedSeries { found: String },
    #[error("`episodes` {part} must be {expected}, found {found}")]
    EpisodesType { part: &'static str, expected: String, found: String },
    #[error("{what} has no dimension the language knows ({dim})")]
    UnknownDimension { what: String, dim: String },

    // ---- the rule as a whole (E03xx)
    #[error("rule id `{id}` differs from the file name `{file}`")]
    RuleIdMismatch { id: String, file: String },
    #[error("missing `{item}`")]
    MissingItem { item: &'static str },
    #[error("missing `doc {section}`")]
    MissingDoc { section: &'static str },
    #[error("unknown severity `{word}`")]
    UnknownSeverity { word: String, suggestion: Option<String> },
    #[error("unknown scope `{word}`")]
    UnknownScope { word: String, suggestion: Option<String> },
    #[error("rule id `{id}` is not kebab-case")]
    BadRuleId { id: String, suggestion: String },
    #[error("unknown doc section `{word}`")]
    UnknownDocSection { word: String, suggestion: Option<String> },
    #[error("parameter `{name}` has no description")]
    MissingDescription { name: String },
    #[error("`doc {section}` is empty")]
    EmptyDoc { section: String },
    #[error("a rule with `episodes` needs `param {name}`")]
    EpisodesParam { name: &'static str },

    // ---- the ruleset (E04xx)
    #[error("rule id `{id}` is defined twice: in {first} and in {second}")]
    DuplicateRuleId { id: String, first: String, second: String },
    #[error("unknown rule `{id}`")]
    UnknownRule { id: String, suggestion: Option<String> },
    #[error("rule `{rule}` has no parameter `{param}`")]
    UnknownParam { rule: String, param: String, suggestion: Option<String>, known: String },
    #[error("`{rule}.{param}` is {expected}; `{value}` is {found}")]
    SetDimension { rule: String, param: String, value: String, expected: String, found: String },
    #[error("`--set {text}`: expected RULE-ID.PARAM=VALUE")]
    BadSet { text: String },
    #[error("cannot read {path}: {message}")]
    Io { path: String, message: String },
}

fn did_you_mean(s: &Option<String>) -> Option<String> {
    s.as_ref().map(|s| format!("did you mean `{s}`?"))
}

impl Error {
    /// A syntax error expecting `what`.
    pub fn syntax(what: &str) -> Error {
        Error::Syntax { expected: what.to_owned(), found: None }
    }

    /// Attaches where it happened.
    pub fn at(self, span: Span) -> ErrorAt {
        ErrorAt { error: Box::new(self), span: Some(span) }
    }

    /// No place in a file (a `--set` option, a folder).
    pub fn nowhere(self) -> ErrorAt {
        ErrorAt { error: Box::new(self), span: None }
    }

    /// The stable code, e.g. `E0101`.
    pub fn code(&self) -> &'static str {
        use Error::*;
        match self {
            Syntax { .. } => "E0001",
            ItemOutOfOrder { .. } => "E0002",
            DuplicateItem { .. } => "E0003",
            TooDeep { .. } => "E0004",
            TooLarge { .. } => "E0005",
            NumberOutOfRange => "E0006",
            BadDecimals => "E0007",
            UnknownFunction { .. } => "E0101",
            Arity { .. } => "E0102",
            NotAnAggregate { .. } => "E0103",
            AggregateWithoutOver { .. } => "E0104",
            UnknownCollection { .. } => "E0105",
            UnknownName { .. } => "E0110",
            UseBeforeLet { .. } => "E0111",
            UnknownField { .. } => "E0112",
            NotInScope { .. } => "E0113",
            BareMetricInVm { .. } => "E0114",
            DuplicateName { .. } => "E0115",
            ReservedName { .. } => "E0116",
            DimensionMismatch { .. } => "E0201",
            ArgumentType { .. } => "E0202",
            WhenNotScalarBool { .. } => "E0203",
            RatioVsPlain { .. } => "E0204",
            OperandType { .. } => "E0205",
            WhereNotBool { .. } => "E0206",
            InterpolationNotAllowed => "E0207",
            InterpolatedSeries { .. } => "E0208",
            UnknownDimension { .. } => "E0209",
            EpisodesType { .. } => "E0210",
            RuleIdMismatch { .. } => "E0301",
            MissingItem { .. } => "E0302",
            MissingDoc { .. } => "E0303",
            UnknownSeverity { .. } => "E0304",
            UnknownScope { .. } => "E0305",
            BadRuleId { .. } => "E0306",
            UnknownDocSection { .. } => "E0307",
            MissingDescription { .. } => "E0308",
            EmptyDoc { .. } => "E0309",
            EpisodesParam { .. } => "E0310",
            DuplicateRuleId { .. } => "E0401",
            UnknownRule { .. } => "E0402",
            UnknownParam { .. } => "E0403",
            SetDimension { .. } => "E0404",
            BadSet { .. } => "E0405",
            Io { .. } => "E0406",
        }
    }

    /// Background that helps to understand the error.
    pub fn note(&self) -> Option<String> {
        use Error::*;
        Some(match self {
            ItemOutOfOrder { .. } => "a rule is: rule, title, severity, scope, refs; then param and let lines; one when; evidence and fix; case, episodes and explains lines; doc what, why, fix".into(),
            DuplicateItem { item } => format!("a rule has one `{item}`"),
            TooDeep { max } => format!("at most {max} levels of parentheses, interpolations or prefix operators"),
            NumberOutOfRange => "numbers must be finite".into(),
            UnknownFunction { .. } => format!("functions: {}", crate::builtins::function_names().join(", ")),
            NotAnAggregate { .. } | AggregateWithoutOver { .. } => "collection aggregates: sum, avg, min, max, count, any, all, as `sum(mbps) over disks where cache != none`".into(),
            UnknownCollection { .. } => "collections: disks, pools, targets, benches, pool.members".into(),
            UseBeforeLet { line, .. } => format!("it is declared on line {line}; a `let` sees only the lines above it"),
            NotInScope { object, .. } => format!("`{object}.*` is valid in a `{object}` scope rule or inside `over {}`", plural(object)),
            DuplicateName { line, .. } => format!("first declared on line {line}"),
            ReservedName { .. } => "choose another name".into(),
            DimensionMismatch { op, .. } if op == "+" || op == "-" => "both sides of `+` and `-` must have the same dimension".into(),
            DimensionMismatch { .. } => "both sides must have the same dimension".into(),
            WhenNotScalarBool { .. } => "a series of bools says when something held; `sustained`, `share` and `duration` reduce it to one answer".into(),
            RatioVsPlain { .. } => "ratios are fractions: 95% is 0.95".into(),
            InterpolatedSeries { .. } => "a series has many values; reduce it with avg, p95, max...".into(),
            UnknownDimension { .. } => "dimensions are rate, throughput, time, size, ratio and count".into(),
            MissingItem { .. } => "a rule needs rule, title, severity, scope, when, evidence and fix".into(),
            MissingDoc { .. } => "a rule documents what it checks, why it matters and the fix: doc what, doc why, doc fix".into(),
            UnknownSeverity { .. } => "severities: critical, warning, info".into(),
            UnknownScope { .. } => "scopes: vm, disk, pool, bench, target".into(),
            UnknownDocSection { .. } => "doc sections: what, why, fix".into(),
            MissingDescription { .. } => "`advisor rules explain` shows it to the user: `param NAME = VALUE \"what it means\"`".into(),
            DuplicateRuleId { .. } => "ids are unique across the shipped rules and every --rules folder; a rule in a --rules folder replaces a shipped one with its id".into(),
            UnknownParam { known, .. } => format!("parameters: {known}"),
            RuleIdMismatch { .. } => "a rule lives in `<rule-id>.rule`".into(),
            EpisodesType { .. } => "`episodes SERIES against CAP at RATIO [latency SERIES]`: a series, a scalar of the series' dimension, a ratio, a time series".into(),
            EpisodesParam { .. } => "episodes closer than `episode_gap` merge; one at least `episode_sustained` long is sustained, a shorter one a spike".into(),
            _ => return None,
        })
    }

    /// What to do about it: a did-you-mean, or a rewrite.
    pub fn help(&self) -> Option<String> {
        use Error::*;
        match self {
            UnknownFunction { suggestion, .. }
            | UnknownCollection { suggestion, .. }
            | UnknownField { suggestion, .. }
            | UnknownSeverity { word: _, suggestion }
            | UnknownScope { word: _, suggestion }
            | UnknownDocSection { word: _, suggestion }
            | UnknownRule { suggestion, .. }
            | UnknownParam { suggestion, .. } => did_you_mean(suggestion),
            UnknownName { suggestion, hint, .. } => did_you_mean(suggestion).or_else(|| hint.clone()),
            BareMetricInVm { metric }
                if crate::types::HOST_METRICS.iter().any(|m| m.name() == metric.as_str()) =>
            {
                Some(format!("the host's series is `host.{metric}`"))
            }
            BareMetricInVm { metric } => {
                Some(format!("reach it through a collection: `sum({metric}) over disks`"))
            }
            NotAnAggregate { name } => Some(format!("aggregate first, then reduce over time: `{name}(sum(x) over disks)`")),
            AggregateWithoutOver { name } => Some(format!("`{name}(mbps) over disks`")),
            DimensionMismatch { hint, .. } => hint.clone(),
            WhenNotScalarBool { .. } => Some("for example `sustained(busy_pct > 95%, 5 min)`, or compare an aggregate: `p95(iops) > 1000 iops`".into()),
            RatioVsPlain { value, .. } => Some(format!("write `{value}%`")),
            WhereNotBool { .. } => Some("compare the element's fields: `where cache != none`, or reduce its series: `where p95(iops) > 100 iops`".into()),
            InterpolationNotAllowed => Some("write `{{` and `}}` for literal braces".into()),
            RuleIdMismatch { file, .. } => Some(format!("rename the file or write `rule {file}`")),
            BadRuleId { suggestion, .. } => Some(format!("write `{suggestion}`")),
            MissingDoc { section } => Some(format!("add `doc {section} \"\"\" ... \"\"\"`")),
            UseBeforeLet { .. } => Some("move this line below the `let`".into()),
            SetDimension { expected, .. } => Some(format!("give {expected}")),
            EpisodesParam { name } => Some(format!("add `param {name} = 30 s \"...\"`")),
            _ => None,
        }
    }
}

fn plural(object: &str) -> String {
    match object {
        "bench" => "benches".into(),
        o => format!("{o}s"),
    }
}

/// An [`Error`] and, where known, the span it is about.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorAt {
    /// Boxed: errors travel up through every parser and checker function.
    pub error: Box<Error>,
    pub span: Option<Span>,
}

impl fmt::Display for ErrorAt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.error.fmt(f)
    }
}

impl std::error::Error for ErrorAt {}

/// A line and column (1-based, column in characters) and the line's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceLine {
    pub line: usize,
    pub column: usize,
    pub text: String,
    /// How many characters to underline on that line (at least 1).
    pub width: usize,
}

/// An error placed in a file, ready to print (its `Display` is the rendered text).
#[derive(Debug, Clone, PartialEq)]
pub struct Diagnostic {
    pub code: &'static str,
    pub message: String,
    /// The file as the user named it (or the embedded path).
    pub file: String,
    pub span: Option<Span>,
    pub source: Option<SourceLine>,
    pub note: Option<String>,
    pub help: Option<String>,
    /// The error itself, for code that wants to match on it.
    pub error: Error,
}

impl Diagnostic {
    /// Places `e` in `file`, whose text is `src`.
    pub fn new(file: &str, src: &str, e: ErrorAt) -> Diagnostic {
        let source = e.span.map(|s| locate(src, s));
        Diagnostic {
            code: e.error.code(),
            message: e.error.to_string(),
            file: file.to_owned(),
            span: e.span,
            source,
            note: e.error.note(),
            help: e.error.help(),
            error: *e.error,
        }
    }

    /// `file:line:col`, or the file alone.
    pub fn location(&self) -> String {
        match &self.source {
            Some(s) => format!("{}:{}:{}", self.file, s.line, s.column),
            None => self.file.clone(),
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "error[{}]: {}", self.code, self.message)?;
        let gutter = self.source.as_ref().map_or(1, |s| s.line.to_string().len());
        let pad = " ".repeat(gutter);
        if !self.file.is_empty() {
            writeln!(f, "{pad}--> {}", self.location())?;
        }
        if let Some(s) = &self.source {
            writeln!(f, "{pad} |")?;
            writeln!(f, "{} | {}", s.line, s.text)?;
            // Keep tabs so the caret lines up under the same characters.
            let lead: String = s
                .text
                .chars()
                .take(s.column - 1)
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            writeln!(f, "{pad} | {lead}{}", "^".repeat(s.width))?;
        }
        if let Some(n) = &self.note {
            writeln!(f, "{pad} = note: {n}")?;
        }
        if let Some(h) = &self.help {
            writeln!(f, "{pad} = help: {h}")?;
        }
        Ok(())
    }
}

/// Line, column and underline width of a span.
fn locate(src: &str, span: Span) -> SourceLine {
    let start = floor_boundary(src, span.start.min(src.len()));
    let end = floor_boundary(src, span.end.clamp(start, src.len()));
    let line_start = src[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = src[start..].find('\n').map_or(src.len(), |i| start + i);
    let text = src[line_start..line_end].trim_end_matches('\r').to_owned();
    let line = src[..start].matches('\n').count() + 1;
    let column = src[line_start..start].chars().count() + 1;
    let width = src[start..end.min(line_end)].trim_end().chars().count().max(1);
    SourceLine { line, column, text, width }
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The closest of `candidates` to `word`, when it is close enough to be a typo.
pub fn suggest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let sorted = |s: &str| {
        let mut v: Vec<char> = s.chars().collect();
        v.sort_unstable();
        v
    };
    let letters = sorted(word);
    // Lower is better: edit distance, then swapped letters first (`p59` is `p95`), then
    // Jaro-Winkler similarity.
    let mut best: Option<((usize, bool, f64), &str)> = None;
    for c in candidates {
        if c == word {
            continue;
        }
        let d = strsim::damerau_levenshtein(word, c);
        let jw = strsim::jaro_winkler(word, c);
        let limit = (word.chars().count().max(c.chars().count()) / 3).max(1);
        let prefix = word.chars().count() >= 3 && c.starts_with(word);
        if d > limit && jw < 0.9 && !prefix {
            continue;
        }
        let key = (d, sorted(c) != letters, -jw);
        let better = match &best {
            None => true,
            Some((b, _)) => key.0 < b.0 || (key.0 == b.0 && (key.1, key.2) < (b.1, b.2)),
        };
        if better {
            best = Some((key, c));
        }
    }
    best.map(|(_, c)| c.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions_catch_typos() {
        assert_eq!(suggest("p59", ["p50", "p90", "p95", "p99", "avg"]).as_deref(), Some("p95"));
        assert_eq!(
            suggest("critcal", ["critical", "warning", "info"]).as_deref(),
            Some("critical")
        );
        assert_eq!(
            suggest("cahced_mbps", ["cached_mbps", "cached_iops", "uncached_mbps"]).as_deref(),
            Some("cached_mbps")
        );
        assert_eq!(suggest("zzz", ["critical", "warning", "info"]), None);
        assert_eq!(suggest("cpu", ["cpu_pct", "available_memory_mib"]).as_deref(), Some("cpu_pct"));
    }

    #[test]
    fn locates_lines_and_columns_in_characters() {
        let src = "a\nµb cd\n";
        let s = locate(src, Span::new(6, 8));
        assert_eq!((s.line, s.column, s.width), (2, 4, 2));
        assert_eq!(s.text, "µb cd");
    }
}
