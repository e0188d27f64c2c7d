//! The audit trail: one JSON line per request (the probes aside), on stderr or appended to
//! `--audit FILE`, written when the answer's head is ready (or, for a request whose client
//! went away before it, when the request is dropped, with `status` null):
//!
//! ```json
//! {"time":"2026-05-04T09:12:44.120Z","principal":"ci","client":"127.0.0.1","method":"POST",
//!  "route":"/api/v1/analyze","status":200,"ms":840,"files":1,"bytes":1048576,
//!  "formats":["perfmon-csv"],"verdict":"warning","findings":{"critical":0,"warning":2,"info":1}}
//! ```
//!
//! `route` is the route's pattern (`/api/v1/catalog/vm/{size}`), null for a path that is
//! none; `files` and `bytes` count the uploaded files (null when the request uploaded
//! none); `formats` are the formats detected, `verdict` the report's status (for a
//! comparison, its outcome) and `findings` the findings by severity, when the request got
//! that far. Never any content, file name, field value or topology fact.

use std::collections::BTreeSet;
use std::fmt;
use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Instant, SystemTime};

use advisor_model::{Analysis, Comparison, Severity};
use axum::extract::{MatchedPath, Request, State};
use axum::http::Extensions;
use axum::middleware::Next;
use axum::response::Response;
use serde_json::{Value, json};

use crate::{AppState, guard};

/// Where audit lines go.
#[derive(Clone)]
pub struct Audit {
    out: Arc<Mutex<Box<dyn Write + Send>>>,
    name: String,
}

impl fmt::Debug for Audit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Audit({})", self.name)
    }
}

impl Audit {
    /// Lines on the process's stderr.
    pub fn stderr() -> Audit {
        Audit::to_writer("stderr", std::io::stderr())
    }

    /// Lines appended to `path` (created, readable by its owner only, when missing).
    pub fn file(path: &Path) -> std::io::Result<Audit> {
        let mut options = std::fs::OpenOptions::new();
        options.create(true).append(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let f = options.open(path)?;
        Ok(Audit::to_writer(&path.display().to_string(), f))
    }

    /// Lines written to `w`, one `write` each: for embedders that collect them.
    pub fn to_writer(name: &str, w: impl Write + Send + 'static) -> Audit {
        Audit { out: Arc::new(Mutex::new(Box::new(w))), name: name.to_owned() }
    }

    /// Where the lines go, as the start-up line says it.
    pub fn name(&self) -> &str {
        &self.name
    }

    fn write(&self, line: &Value) {
        let mut text = line.to_string();
        text.push('\n');
        let mut out = self.out.lock().unwrap_or_else(PoisonError::into_inner);
        if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
            tracing::error!(error = %e, audit = %self.name, "writing an audit line failed");
        }
    }
}

/// What a request's handlers learn that the audit line reports.
#[derive(Debug, Default)]
struct Facts {
    principal: Option<String>,
    files: Option<usize>,
    bytes: Option<usize>,
    formats: BTreeSet<String>,
    verdict: Option<String>,
    findings: Option<[usize; 3]>,
}

/// A request's audit facts, shared by the audit layer and the handlers (an extension of
/// the request). Detached, it records nothing: the audit is off, or a router is called
/// without the audit layer.
#[derive(Debug, Clone, Default)]
pub(crate) struct Record(Option<Arc<Mutex<Facts>>>);

impl Record {
    /// The request's record.
    pub(crate) fn of(ext: &Extensions) -> Record {
        ext.get::<Record>().cloned().unwrap_or_default()
    }

    fn with(&self, f: impl FnOnce(&mut Facts)) {
        if let Some(m) = &self.0 {
            f(&mut m.lock().unwrap_or_else(PoisonError::into_inner));
        }
    }

    pub(crate) fn principal(&self, name: &str) {
        self.with(|f| f.principal = Some(name.to_owned()));
    }

    /// The number and total size of the uploaded files.
    pub(crate) fn upload(&self, files: usize, bytes: usize) {
        self.with(|f| {
            f.files = Some(files);
            f.bytes = Some(bytes);
        });
    }

    pub(crate) fn analysis(&self, a: &Analysis) {
        self.with(|f| {
            f.formats.extend(a.inputs.iter().map(|i| i.format.clone()));
            f.verdict = Some(a.verdict.status.as_str().to_owned());
            let mut n = [0usize; 3];
            for finding in &a.findings {
                n[match finding.severity {
                    Severity::Critical => 0,
                    Severity::Warning => 1,
                    Severity::Info => 2,
                }] += 1;
            }
            f.findings = Some(n);
        });
    }

    pub(crate) fn comparison(&self, c: &Comparison) {
        self.with(|f| {
            let sides = c.before.inputs.iter().chain(&c.after.inputs);
            f.formats.extend(sides.map(|i| i.format.clone()));
            f.verdict = Some(c.verdict.outcome.as_str().to_owned());
        });
    }
}

/// What the line needs of a request, kept until it is answered, or dropped unanswered.
struct Pending {
    audit: Audit,
    record: Record,
    time: SystemTime,
    started: Instant,
    client: Option<String>,
    method: String,
    route: Option<String>,
    written: bool,
}

impl Pending {
    fn finish(&mut self, status: Option<u16>) {
        if self.written {
            return;
        }
        self.written = true;
        let facts = self
            .record
            .0
            .as_ref()
            .map(|m| std::mem::take(&mut *m.lock().unwrap_or_else(PoisonError::into_inner)));
        let facts = facts.unwrap_or_default();
        let time = chrono::DateTime::<chrono::Utc>::from(self.time)
            .to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        let ms = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let line = json!({
            "time": time,
            "principal": facts.principal,
            "client": self.client,
            "method": self.method,
            "route": self.route,
            "status": status,
            "ms": ms,
            "files": facts.files,
            "bytes": facts.bytes,
            "formats": facts.formats,
            "verdict": facts.verdict,
            "findings": facts.findings.map(|[c, w, i]| json!({"critical": c, "warning": w, "info": i})),
        });
        self.audit.write(&line);
    }
}

impl Drop for Pending {
    /// The client went away before the answer (the request's future is dropped).
    fn drop(&mut self) {
        self.finish(None);
    }
}

/// Writes each request's line.
pub(crate) async fn record(
    State(state): State<AppState>,
    mut req: Request,
    next: Next,
) -> Response {
    let Some(audit) = &state.inner.config.guard.audit else {
        return next.run(req).await;
    };
    if guard::is_probe(&req) {
        return next.run(req).await;
    }
    let record = Record(Some(Arc::default()));
    req.extensions_mut().insert(record.clone());
    let mut pending = Pending {
        audit: audit.clone(),
        record,
        time: SystemTime::now(),
        started: Instant::now(),
        client: guard::peer(&req).map(|ip| ip.to_string()),
        method: req.method().as_str().to_owned(),
        route: req.extensions().get::<MatchedPath>().map(|m| m.as_str().to_owned()),
        written: false,
    };
    let resp = next.run(req).await;
    pending.finish(Some(resp.status().as_u16()));
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_has_every_field_and_nothing_else() {
        let buf = Arc::new(Mutex::new(Vec::<u8>::new()));
        struct Shared(Arc<Mutex<Vec<u8>>>);
        impl Write for Shared {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap_or_else(PoisonError::into_inner).extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let audit = Audit::to_writer("test", Shared(buf.clone()));
        let record = Record(Some(Arc::default()));
        record.principal("ci");
        record.upload(2, 1234);
        let mut p = Pending {
            audit,
            record,
            time: SystemTime::UNIX_EPOCH + std::time::Duration::from_millis(1_700_000_000_123),
            started: Instant::now(),
            client: Some("127.0.0.1".into()),
            method: "POST".into(),
            route: Some("/api/v1/analyze".into()),
            written: false,
        };
        p.finish(Some(422));
        drop(p);
        let text = String::from_utf8(buf.lock().unwrap_or_else(PoisonError::into_inner).clone())
            .expect("utf-8");
        // One line, written once (the drop after the answer adds nothing).
        assert_eq!(text.lines().count(), 1, "{text}");
        let v: Value = serde_json::from_str(text.trim()).expect("json");
        let keys: Vec<&str> = v.as_object().expect("object").keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "time",
                "principal",
                "client",
                "method",
                "route",
                "status",
                "ms",
                "files",
                "bytes",
                "formats",
                "verdict",
                "findings"
            ]
        );
        assert_eq!(v["time"], "2023-11-14T22:13:20.123Z");
        assert_eq!((v["principal"].as_str(), v["status"].as_u64()), (Some("ci"), Some(422)));
        assert_eq!((v["files"].as_u64(), v["bytes"].as_u64()), (Some(2), Some(1234)));
        assert!(v["verdict"].is_null() && v["findings"].is_null());
    }
}
