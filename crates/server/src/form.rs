//! The upload forms as typed axum extractors: [`Form<F>`] reads a multipart body into the
//! form type `F`, whose table of fields ([`Fields::FIELDS`]) is the one place a form's
//! field names live: the reader takes only those (a part with another name, or none, is a
//! 400 naming the fields), and each form type's `utoipa::ToSchema` describes the same
//! fields in the OpenAPI document (a test holds the two together).
//!
//! Every part is read whole (the body is already in memory, charged to the request's
//! budget); a file part's name is the client's file name without its folders and bounded
//! ([`base_name`]); a file input left empty (an empty part without a file name) is
//! skipped; a text part is at most [`MAX_TEXT_FIELD`] bytes of UTF-8, trimmed.

use axum::body::Bytes;
use axum::extract::multipart::MultipartError;
use axum::extract::{FromRequest, Multipart, Request};

use crate::{AppError, AppState};

/// A text field longer than this is not a VM size, disk name or format.
pub(crate) const MAX_TEXT_FIELD: usize = 4096;

/// How a field's parts are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    /// A file: its bytes, and the client's file name.
    File,
    /// A short text ([`MAX_TEXT_FIELD`]), trimmed.
    Text,
}

/// A field of a form.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Field {
    pub(crate) name: &'static str,
    pub(crate) part: Part,
    /// Whether it may be sent more than once.
    pub(crate) repeated: bool,
}

impl Field {
    pub(crate) const fn file(name: &'static str) -> Self {
        Field { name, part: Part::File, repeated: false }
    }
    pub(crate) const fn files(name: &'static str) -> Self {
        Field { name, part: Part::File, repeated: true }
    }
    pub(crate) const fn text(name: &'static str) -> Self {
        Field { name, part: Part::Text, repeated: false }
    }
    pub(crate) const fn texts(name: &'static str) -> Self {
        Field { name, part: Part::Text, repeated: true }
    }
}

/// A form type: its fields, and what it does with each part.
pub(crate) trait Fields: Default + Send + 'static {
    /// Every field, in the order the unknown-field error names them.
    const FIELDS: &'static [Field];

    /// Takes a file part of the field `name` (one of [`Fields::FIELDS`]): its file name
    /// (without folders, bounded; `None` when the part has none) and its bytes.
    fn file(&mut self, name: &str, file: Option<String>, bytes: Bytes) -> Result<(), AppError>;

    /// Takes a text part of the field `name`, trimmed.
    fn text(&mut self, name: &str, text: String);

    /// Whether the form, all read, is complete (its captures are there).
    fn check(&self) -> Result<(), AppError>;

    /// How many files the form carries, and their bytes (for the audit log).
    fn upload_size(&self) -> (usize, usize);

    /// The `format` field, if sent.
    fn format(&self) -> Option<&str>;
}

/// A form read from a multipart body: the typed extractor of the upload routes.
#[derive(Debug)]
pub(crate) struct Form<F>(pub(crate) F);

impl<F: Fields> FromRequest<AppState> for Form<F> {
    type Rejection = AppError;

    async fn from_request(req: Request, state: &AppState) -> Result<Self, AppError> {
        let form = Multipart::from_request(req, state).await.map_err(crate::routes::not_a_form)?;
        read(form, state.inner.config.max_upload).await.map(Form)
    }
}

pub(crate) fn multipart_error(e: MultipartError, limit: usize) -> AppError {
    if e.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
        AppError::TooLarge { limit }
    } else {
        AppError::BadRequest(format!(
            "the upload is not a readable multipart form: {}",
            e.body_text()
        ))
    }
}

/// The last component of a client's file name (browsers may send `C:\fakepath\x.csv`),
/// at most [`advisor_model::MAX_ECHO`] characters: the name is echoed in the report and in
/// every error about the file.
pub(crate) fn base_name(name: &str) -> String {
    advisor_model::bounded(name.rsplit(['/', '\\']).next().unwrap_or(name).trim()).into_owned()
}

/// The fields of `F`, as the unknown-field error lists them.
fn field_list<F: Fields>() -> String {
    F::FIELDS
        .iter()
        .map(|f| if f.repeated { format!("{} (repeated)", f.name) } else { f.name.to_owned() })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Reads every part of `form` into `F`.
pub(crate) async fn read<F: Fields>(mut form: Multipart, limit: usize) -> Result<F, AppError> {
    let mut out = F::default();
    while let Some(field) = form.next_field().await.map_err(|e| multipart_error(e, limit))? {
        let name = field.name().unwrap_or_default().to_owned();
        let Some(spec) = F::FIELDS.iter().find(|f| f.name == name) else {
            return Err(if name.is_empty() {
                AppError::BadRequest(
                    "a part of the form has no name: each part needs a header like \
                     `Content-Disposition: form-data; name=\"capture\"; filename=\"x.csv\"`"
                        .to_owned(),
                )
            } else {
                AppError::BadRequest(format!(
                    "unknown field `{}`; the fields are {}",
                    advisor_model::bounded(&name),
                    field_list::<F>()
                ))
            });
        };
        let file = field.file_name().map(base_name).filter(|f| !f.is_empty());
        let bytes = field.bytes().await.map_err(|e| multipart_error(e, limit))?;
        match spec.part {
            Part::File => {
                // A file input left empty still sends an empty part without a name.
                if bytes.is_empty() && file.is_none() {
                    continue;
                }
                out.file(spec.name, file, bytes)?;
            }
            Part::Text => {
                if bytes.len() > MAX_TEXT_FIELD {
                    return Err(AppError::BadRequest(format!(
                        "field `{name}` is {} bytes; it is a short text field",
                        bytes.len()
                    )));
                }
                let text = String::from_utf8(bytes.to_vec()).map_err(|_| {
                    AppError::BadRequest(format!("field `{name}` is not UTF-8 text"))
                })?;
                out.text(spec.name, text.trim().to_owned());
            }
        }
    }
    out.check()?;
    Ok(out)
}

/// The name a file part is shown by: its file name, else `<field>-<n>` (the n-th of the
/// field).
pub(crate) fn shown(file: Option<String>, field: &str, n: usize) -> String {
    file.unwrap_or_else(|| format!("{field}-{n}"))
}

/// A topology document's text: TOML or JSON, so UTF-8.
pub(crate) fn topology_text(shown: &str, bytes: &Bytes) -> Result<String, AppError> {
    String::from_utf8(bytes.to_vec()).map_err(|_| {
        AppError::BadTopology(format!(
            "{shown}: a topology file is TOML or JSON text; this is not UTF-8 text"
        ))
    })
}

/// `text`, unless it is empty.
pub(crate) fn non_empty(text: String) -> Option<String> {
    (!text.is_empty()).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_names() {
        assert_eq!(base_name(r"C:\fakepath\x.csv"), "x.csv");
        assert_eq!(base_name("a/b/c.txt"), "c.txt");
        let long = base_name(&"x".repeat(1 << 20));
        assert_eq!(long.chars().count(), 255);
        assert!(long.ends_with("x…"));
        assert_eq!(base_name("plain"), "plain");
    }
}
