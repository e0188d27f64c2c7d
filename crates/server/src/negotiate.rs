//! Which report format a request asks for: the `format` field when given, else the
//! `Accept` header (JSON when it says nothing or anything goes).

use advisor_report::Format;

use crate::AppError;

/// The media type of a report format.
pub(crate) fn content_type(format: Format) -> &'static str {
    match format {
        Format::Json => "application/json",
        Format::Html => "text/html; charset=utf-8",
        Format::Markdown => "text/markdown; charset=utf-8",
    }
}

/// The format from the `format` field, else from `Accept`.
pub(crate) fn choose(field: Option<&str>, accept: Option<&str>) -> Result<Format, AppError> {
    if let Some(f) = field {
        return f.parse().map_err(AppError::BadRequest);
    }
    let Some(accept) = accept.map(str::trim).filter(|a| !a.is_empty()) else {
        return Ok(Format::Json);
    };
    ranked(accept).into_iter().find_map(|(range, _)| of_range(&range)).ok_or_else(|| {
        AppError::NotAcceptable(format!(
            "no report format matches Accept: {accept}; reports are application/json, \
             text/html or text/markdown"
        ))
    })
}

/// Whether the client is a browser that prefers a page (`text/html` before JSON), so that
/// errors come back as the upload page with the message rather than as a problem document.
pub(crate) fn prefers_html(accept: Option<&str>) -> bool {
    let Some(accept) = accept else { return false };
    matches!(
        ranked(accept).into_iter().find_map(|(r, _)| match r.as_str() {
            "text/html" | "application/xhtml+xml" => Some(true),
            "application/json" | "application/problem+json" | "*/*" => Some(false),
            _ => None,
        }),
        Some(true)
    )
}

/// Media ranges by preference: `q` descending, then as written; `q=0` dropped.
fn ranked(accept: &str) -> Vec<(String, u16)> {
    let mut out: Vec<(String, u16)> = accept
        .split(',')
        .filter_map(|part| {
            let mut bits = part.split(';');
            let range = bits.next()?.trim().to_ascii_lowercase();
            if range.is_empty() {
                return None;
            }
            let mut q = 1000u16;
            for p in bits {
                if let Some(v) = p.trim().strip_prefix("q=") {
                    q = parse_q(v.trim());
                }
            }
            (q > 0).then_some((range, q))
        })
        .collect();
    out.sort_by_key(|r| std::cmp::Reverse(r.1));
    out
}

/// `0.8` -> 800; anything unreadable counts as 1.
fn parse_q(v: &str) -> u16 {
    match v.split_once('.').unwrap_or((v, "")) {
        ("0", frac) => {
            let digits: String = frac.chars().take(3).collect();
            format!("{digits:0<3}").parse::<u16>().unwrap_or(0)
        }
        _ => 1000,
    }
}

fn of_range(range: &str) -> Option<Format> {
    match range {
        "application/json" | "application/*" | "*/*" => Some(Format::Json),
        "text/html" | "application/xhtml+xml" | "text/*" => Some(Format::Html),
        "text/markdown" | "text/x-markdown" | "text/plain" => Some(Format::Markdown),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_wins_then_accept_then_json() {
        assert_eq!(choose(Some("md"), Some("application/json")).ok(), Some(Format::Markdown));
        assert_eq!(choose(None, None).ok(), Some(Format::Json));
        assert_eq!(choose(None, Some("*/*")).ok(), Some(Format::Json));
        assert_eq!(choose(None, Some("text/markdown")).ok(), Some(Format::Markdown));
        let browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
        assert_eq!(choose(None, Some(browser)).ok(), Some(Format::Html));
        assert_eq!(
            choose(None, Some("text/html;q=0.5, application/json")).ok(),
            Some(Format::Json)
        );
        assert!(matches!(choose(None, Some("image/png")), Err(AppError::NotAcceptable(_))));
        assert!(matches!(choose(Some("pdf"), None), Err(AppError::BadRequest(_))));
        assert!(matches!(
            choose(None, Some("application/json;q=0")),
            Err(AppError::NotAcceptable(_))
        ));
    }

    #[test]
    fn browsers_prefer_html() {
        assert!(prefers_html(Some("text/html,application/xhtml+xml,*/*;q=0.8")));
        assert!(!prefers_html(Some("application/json")));
        assert!(!prefers_html(Some("*/*")));
        assert!(!prefers_html(None));
    }

    #[test]
    fn q_values() {
        assert_eq!(parse_q("0.8"), 800);
        assert_eq!(parse_q("0.05"), 50);
        assert_eq!(parse_q("1.0"), 1000);
        assert_eq!(parse_q("0"), 0);
    }
}
