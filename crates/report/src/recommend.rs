//! The recommendation (`advisor recommend`) as Markdown, HTML and JSON, and its schema.

use advisor_model::{RECOMMEND_SCHEMA, Recommendation};
use serde::Serialize;

use crate::{Format, Renderer, ReportError, templates};

/// The one line a recommendation starts with: the VM and each disk proposed.
pub fn headline(r: &Recommendation) -> String {
    let vm = match (&r.current.vm, &r.vm.chosen) {
        (Some(a), Some(b)) if a == b => format!("keep {a}"),
        (Some(a), Some(b)) => format!("{b} instead of {a}"),
        (None, Some(b)) => b.clone(),
        (Some(a), None) if r.vm.cached.is_none() && r.vm.uncached.is_none() => {
            format!("{a}, not judged: no disk demand is known")
        }
        (Some(a), None) => format!("no size found that carries the demand (today {a})"),
        (None, None) => "no VM size given".to_owned(),
    };
    let disks: Vec<String> = r
        .disks
        .iter()
        .filter_map(|d| {
            let c = d.options.iter().find(|o| Some(&o.sku) == d.chosen.as_ref())?;
            let what = if c.count > 1 { format!("{} x {}", c.count, c.sku) } else { c.sku.clone() };
            let what = if c.sku == "PremiumV2" || c.sku == "Ultra" {
                format!("{what} ({:.0} IOPS, {:.0} MB/s)", c.iops, c.mbps)
            } else {
                what
            };
            Some(format!("{} {what} cache {}", d.name, d.cache))
        })
        .collect();
    if disks.is_empty() {
        format!("VM: {vm}")
    } else {
        format!("VM: {vm}; disks: {}", disks.join(", "))
    }
}

#[derive(Serialize)]
struct View<'a> {
    #[serde(flatten)]
    r: &'a Recommendation,
    headline: String,
}

impl Renderer {
    /// Renders a recommendation in `format` (`recommend.md.tera`, `recommend.html.tera`;
    /// JSON is its serde form).
    pub fn render_recommendation(
        &self,
        r: &Recommendation,
        format: Format,
    ) -> Result<String, ReportError> {
        let name = match format {
            Format::Json => {
                let mut s = serde_json::to_string_pretty(r)?;
                s.push('\n');
                return Ok(s);
            }
            Format::Markdown => "recommend.md.tera",
            Format::Html => "recommend.html.tera",
        };
        let view = View { r, headline: headline(r) };
        let ctx = tera::Context::from_serialize(&view).map_err(|e| ReportError::Template {
            name: name.to_owned(),
            message: templates::chain(&e),
        })?;
        self.render_template(name, &ctx)
    }
}

/// The JSON Schema of the recommendation's JSON (`advisor.recommend/v1`).
pub fn recommend_schema() -> serde_json::Value {
    crate::schema_of::<Recommendation>("advisor recommendation", RECOMMEND_SCHEMA)
}
