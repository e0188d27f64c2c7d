//! Renders an [`Analysis`] for people and tools: one self-contained HTML page with inline
//! SVG charts, Markdown that pastes cleanly into a ticket, and the JSON report of the
//! contract (`advisor.report/v1`) with its JSON Schema.
//!
//! The HTML and Markdown come from Tera templates compiled into the binary (the
//! repository's `templates/`); a directory given with [`Renderer::with_overrides`] replaces
//! them file by file. One [`tera::Tera`] instance holds every template and the report's
//! filters (`num`, `unit`, `percent`, `duration`, `md`, `label`). A comparison of two runs
//! ([`advisor_model::Comparison`]) renders through [`Renderer::render_comparison`].

mod charts;
mod compare;
mod filters;
pub mod fmt;
mod recommend;
mod series;
mod story;
mod templates;
mod view;

use std::path::{Path, PathBuf};
use std::str::FromStr;

use advisor_model::{Analysis, BatchEntry, BatchIndex, BatchStatus, REPORT_SCHEMA};

pub use compare::{compare_json_schema, comparison_json, word_comparison};
pub use recommend::{headline as recommendation_headline, recommend_schema};
pub use series::{CapLine, ChartSeries, chart_data, chart_series};
pub use templates::embedded_names;
pub use view::{verdict, word_verdict};

/// A report format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Markdown,
    Html,
    Json,
}

impl Format {
    /// The format a file name asks for by its extension (`.html`/`.htm`, `.md`/`.markdown`,
    /// `.json`, any case); `None` for anything else.
    pub fn from_path(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "html" | "htm" => Some(Format::Html),
            "md" | "markdown" => Some(Format::Markdown),
            "json" => Some(Format::Json),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Format::Markdown => "md",
            Format::Html => "html",
            Format::Json => "json",
        }
    }
}

impl FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "md" | "markdown" => Ok(Format::Markdown),
            "html" | "htm" => Ok(Format::Html),
            "json" => Ok(Format::Json),
            _ => Err(format!("unknown report format `{s}` (expected md, html or json)")),
        }
    }
}

/// What went wrong while rendering.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// A template failed to parse or render; the message names the template and the cause.
    #[error("template {name}: {message}")]
    Template { name: String, message: String },
    /// An override directory could not be read.
    #[error("templates directory {}: {source}", path.display())]
    Overrides { path: PathBuf, source: std::io::Error },
    /// A chart could not be drawn.
    #[error("chart: {0}")]
    Chart(String),
    #[error("JSON: {0}")]
    Json(#[from] serde_json::Error),
}

/// Facts about the run that the [`Analysis`] does not carry but the verdict reads better
/// with.
#[derive(Debug, Clone, Default)]
pub struct RenderOptions {
    /// How many rules were in force, so the verdict can say "in 24 rules evaluated".
    pub rules_in_force: Option<usize>,
}

/// Renders analyses. Build once, render many (the server shares one).
#[derive(Debug)]
pub struct Renderer {
    tera: tera::Tera,
}

impl Renderer {
    /// The embedded templates only.
    pub fn new() -> Result<Renderer, ReportError> {
        Self::with_overrides(None)
    }

    /// The embedded templates, each replaced by the file of the same relative name in
    /// `dir` when there is one (`dir/report.html.tera`, `dir/partials/findings.md.tera`);
    /// files in `dir` with new names are added, so overrides can include their own partials.
    pub fn with_overrides(dir: Option<&Path>) -> Result<Renderer, ReportError> {
        Ok(Renderer { tera: templates::load(dir)? })
    }

    /// Renders `analysis` in `format`. HTML and Markdown end with a newline; so does JSON.
    pub fn render(
        &self,
        analysis: &Analysis,
        format: Format,
        options: &RenderOptions,
    ) -> Result<String, ReportError> {
        match format {
            Format::Json => to_json(analysis),
            Format::Markdown => self.page("report.md.tera", analysis, options, false),
            Format::Html => self.page("report.html.tera", analysis, options, true),
        }
    }

    fn page(
        &self,
        name: &str,
        analysis: &Analysis,
        options: &RenderOptions,
        charts: bool,
    ) -> Result<String, ReportError> {
        // Chart data is made here, from the analysis's sampled series, for the page only.
        let chart_data = if charts { series::chart_data(analysis) } else { Vec::new() };
        let view = view::build(analysis, &chart_data, options, charts)?;
        let ctx = tera::Context::from_serialize(&view).map_err(|e| ReportError::Template {
            name: name.to_owned(),
            message: templates::chain(&e),
        })?;
        self.render_template(name, &ctx)
    }

    /// Renders any registered template with a context of the caller's (for pages beyond
    /// the report, such as an upload form), with the same filters.
    pub fn render_template(&self, name: &str, ctx: &tera::Context) -> Result<String, ReportError> {
        let mut out = self.tera.render(name, ctx).map_err(|e| ReportError::Template {
            name: name.to_owned(),
            message: templates::chain(&e),
        })?;
        if !out.ends_with('\n') {
            out.push('\n');
        }
        Ok(out)
    }
}

/// The index of a batch run (`advisor batch`) as Markdown: a table of the analysed inputs,
/// the most severe first, then every input that could not be analysed with its error.
pub fn batch_index_md(renderer: &Renderer, index: &BatchIndex) -> Result<String, ReportError> {
    let mut analysed: Vec<&BatchEntry> =
        index.entries.iter().filter(|e| e.status == BatchStatus::Analyzed).collect();
    // Stable: equally severe inputs keep their order.
    analysed.sort_by_key(|e| {
        std::cmp::Reverse((e.worst.as_ref().map(|w| w.severity), e.critical, e.warning))
    });
    let failed: Vec<&BatchEntry> =
        index.entries.iter().filter(|e| e.status == BatchStatus::Failed).collect();
    let mut ctx = tera::Context::new();
    ctx.insert("index", index);
    ctx.insert("by_severity", &analysed);
    ctx.insert("failed", &failed);
    ctx.insert("budget_mib", &(index.memory_budget_bytes >> 20));
    renderer.render_template("batch-index.md.tera", &ctx)
}

/// The index of a batch run as JSON (`advisor.batch/v1`), newline-terminated.
pub fn batch_index_json(index: &BatchIndex) -> Result<String, ReportError> {
    let mut s = serde_json::to_string_pretty(index)?;
    s.push('\n');
    Ok(s)
}

/// The JSON report: the serde form of [`Analysis`], pretty-printed, newline-terminated.
pub fn to_json(analysis: &Analysis) -> Result<String, ReportError> {
    let mut s = serde_json::to_string_pretty(analysis)?;
    s.push('\n');
    Ok(s)
}

/// The JSON Schema of the JSON report, generated from the Rust types, with `schema` pinned
/// to [`REPORT_SCHEMA`].
pub fn json_schema() -> serde_json::Value {
    schema_of::<Analysis>("advisor JSON report", REPORT_SCHEMA)
}

/// The JSON Schema of `advisor batch`'s `index.json` (`advisor.batch/v1`).
pub fn batch_json_schema() -> serde_json::Value {
    schema_of::<BatchIndex>("advisor batch index", advisor_model::BATCH_SCHEMA)
}

/// The JSON Schema of one of advisor's documents, generated from its Rust type, titled and
/// with its `schema` field pinned to the document's id: every `advisor schema` is one.
pub(crate) fn schema_of<T: schemars::JsonSchema>(title: &str, id: &str) -> serde_json::Value {
    let mut schema = serde_json::to_value(schemars::schema_for!(T)).unwrap_or_default();
    if let Some(obj) = schema.as_object_mut() {
        obj.insert("title".into(), format!("{title} ({id})").into());
        if let Some(s) = obj
            .get_mut("properties")
            .and_then(|p| p.get_mut("schema"))
            .and_then(|s| s.as_object_mut())
        {
            s.insert("const".into(), id.into());
            s.insert("description".into(), format!("Always `{id}`.").into());
        }
    }
    schema
}

#[cfg(test)]
mod tests;
