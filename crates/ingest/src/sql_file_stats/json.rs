//! The file statistics as `FOR JSON` writes them: an array of objects (`PATH`: dotted
//! aliases nest objects; `AUTO`: a joined table's columns in an array under its alias),
//! wrapped in an object by `ROOT('name')`, one document after another when several runs were
//! saved together; and as SSMS saves a `FOR JSON` result from the grid: the column name
//! first, the text cut into rows of 2,033 characters.

use advisor_model::Location;
use serde_json::Value;

use super::SSMS_JSON_COLUMN;
use super::rows::{self, Named, Parsed, Row};
use crate::IngestError;

/// The JSON documents of a text, one after another.
fn documents(text: &str) -> Result<Vec<Value>, serde_json::Error> {
    serde_json::Deserializer::from_str(text).into_iter::<Value>().collect()
}

/// A line SSMS wrote as a quoted CSV cell: its text with `""` as one quote.
fn unquote(line: &str) -> String {
    let t = line.trim_end_matches('\r');
    match t.strip_prefix('"').and_then(|x| x.strip_suffix('"')) {
        Some(inner) => inner.replace("\"\"", "\""),
        None => t.to_owned(),
    }
}

/// Reads the JSON into rows.
pub(super) fn read(file: &str, text: &str) -> Result<Parsed, IngestError> {
    let mut parsed = Parsed { shape: "FOR JSON".to_owned(), ..Parsed::default() };
    // SSMS's grid: the column's name on the first line.
    let (body, skipped_lines) = match text.trim_start().strip_prefix(SSMS_JSON_COLUMN) {
        Some(rest) => {
            let lead = text.len() - text.trim_start().len();
            let before = text[..lead].matches('\n').count() + 1;
            (rest.split_once('\n').map_or("", |(_, r)| r), before)
        }
        None => (text, 0),
    };
    let docs = match documents(body) {
        Ok(d) => d,
        Err(first) => {
            // SSMS cuts a long FOR JSON result into rows (2,033 characters each), and may
            // quote each as a CSV cell: joined back, the rows are the document.
            let joined: String = body.lines().map(unquote).collect();
            match documents(&joined) {
                Ok(d) if body.lines().count() > 1 => {
                    parsed.warnings.push((
                        "the JSON was cut into rows (as SSMS saves a FOR JSON result from the \
                         grid) and is read joined back"
                            .to_owned(),
                        None,
                    ));
                    d
                }
                _ => {
                    let line = first.line() + skipped_lines;
                    let what = if first.is_eof() {
                        "the JSON ends early: is the file truncated?".to_owned()
                    } else {
                        let full = first.to_string();
                        let suffix = format!(" at line {} column {}", first.line(), first.column());
                        format!("invalid JSON: {}", full.strip_suffix(&suffix).unwrap_or(&full))
                    };
                    let loc = (first.line() > 0)
                        .then(|| Location::line(line as u64, first.column() as u64));
                    return Err(IngestError::invalid(file, loc, what));
                }
            }
        }
    };
    let several = docs.len() > 1;
    for (d, doc) in docs.iter().enumerate() {
        let prefix = if several { format!("document {} $", d + 1) } else { "$".to_owned() };
        let (items, base) = match doc {
            Value::Array(a) => (a.as_slice(), prefix.clone()),
            Value::Object(o)
                if o.keys().any(|k| rows::col_of(k) == Named::Read(rows::Col::Reads)) =>
            {
                (std::slice::from_ref(doc), prefix.clone())
            }
            // ROOT('name'): the array under the one key.
            Value::Object(o) if o.len() == 1 => match o.iter().next() {
                Some((k, Value::Array(a))) => (a.as_slice(), format!("{prefix}.{k}")),
                _ => return Err(not_rows(file, &prefix)),
            },
            _ => return Err(not_rows(file, &prefix)),
        };
        let single = matches!(doc, Value::Object(o) if o.keys().any(|k| rows::col_of(k) == Named::Read(rows::Col::Reads)));
        for (i, item) in items.iter().enumerate() {
            let path = if single { base.clone() } else { format!("{base}[{i}]") };
            let Value::Object(_) = item else {
                return Err(IngestError::invalid(
                    file,
                    Some(Location::json(&path)),
                    "a row of FOR JSON is an object of columns",
                ));
            };
            let mut row = Row {
                at: Some(Location::json(&path)),
                boundary: i == 0 && d > 0,
                ..Row::default()
            };
            let mut fields: Vec<(String, String, &Value)> = Vec::new();
            flatten(item, &path, &mut fields);
            let mut seen: Vec<rows::Col> = Vec::new();
            for (key, at, value) in fields {
                let col = match rows::col_of(&key) {
                    Named::Read(c) => c,
                    Named::Known => continue,
                    Named::Unknown => {
                        if !parsed.ignored.contains(&key) {
                            parsed.ignored.push(key);
                        }
                        continue;
                    }
                };
                if seen.contains(&col) {
                    continue;
                }
                seen.push(col);
                let cell = match value {
                    Value::Null => continue,
                    Value::String(s) => s.clone(),
                    Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
                        (Some(x), _, _) => x.to_string(),
                        (_, Some(x), _) => x.to_string(),
                        (_, _, Some(x)) => x.to_string(),
                        _ => n.to_string(),
                    },
                    other => {
                        return Err(IngestError::invalid(
                            file,
                            Some(Location::json(&at)),
                            format!("{key}: expected a number or a string, found {other}"),
                        ));
                    }
                };
                rows::set(&mut row, col, &cell, Location::json(&at)).map_err(|e| {
                    IngestError::invalid(file, Some(Location::json(&at)), format!("{key}: {e}"))
                })?;
            }
            // FOR JSON leaves NULLs out, never a counter.
            let missing = rows::missing(&seen);
            if !missing.is_empty() {
                return Err(IngestError::invalid(
                    file,
                    Some(Location::json(&path)),
                    format!(
                        "the row lacks {}: advisor needs the file statistics' counters and the \
                         file's identity (run advisor's query, docs/formats.md, \"SQL \
                         Server file statistics: the query\")",
                        missing.join(", ")
                    ),
                ));
            }
            parsed.rows.push(row);
        }
    }
    Ok(parsed)
}

/// The fields of a row, nested ones (`FOR JSON PATH`'s dotted aliases, `AUTO`'s joined
/// table) brought up, each with its JSON path.
fn flatten<'v>(v: &'v Value, path: &str, out: &mut Vec<(String, String, &'v Value)>) {
    let Value::Object(o) = v else { return };
    for (k, x) in o {
        let at = format!("{path}.{k}");
        match x {
            Value::Object(_) => flatten(x, &at, out),
            Value::Array(a) if a.iter().all(Value::is_object) => {
                if let Some(first) = a.first() {
                    flatten(first, &format!("{at}[0]"), out);
                }
            }
            _ => out.push((k.clone(), at, x)),
        }
    }
}

fn not_rows(file: &str, path: &str) -> IngestError {
    IngestError::invalid(
        file,
        Some(Location::json(path)),
        "not the file statistics: FOR JSON writes an array of rows (or ROOT('name') of one)",
    )
}
