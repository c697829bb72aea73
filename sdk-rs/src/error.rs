//! One error type for every call: the API's `{"error": {code, message, field}}` bodies become a kind by HTTP status.

use std::fmt;
use std::time::Duration;

use serde_json::Value;

use crate::types::JobStatus;

/// What every fallible call of this crate returns.
pub type Result<T> = std::result::Result<T, Error>;

/// The service's own account of an error answer: status, code, message and field as it sent them.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    pub status: u16,
    /// The API's error code (`not_found`, `validation_error`, …), or `http_<status>` when the body had none.
    pub code: String,
    pub message: String,
    /// The request field the error is about, when the server named one.
    pub field: Option<String>,
    /// The Retry-After header (429, 503), when the server sent one in seconds.
    pub retry_after: Option<Duration>,
    pub request_id: Option<String>,
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "HTTP {} {}: {}", self.status, self.code, self.message)?;
        if let Some(field) = &self.field {
            write!(f, " (field: {field})")?;
        }
        Ok(())
    }
}

/// Every way a call can fail. The API kinds follow the HTTP status, like the Python and TypeScript SDKs; their
/// details are boxed so that a `Result` stays small on the success path.
#[derive(Debug)]
pub enum Error {
    /// Refused before anything was sent: an argument the server would reject (`field` names it).
    Input { field: String, message: String },
    /// 400: the request is malformed.
    BadRequest(Box<ApiError>),
    /// 401: no API key, an unknown one or a revoked one.
    Authentication(Box<ApiError>),
    /// 402: the key's quota or credit does not cover the request.
    PaymentRequired(Box<ApiError>),
    /// 403: the key lacks the scope this call needs.
    PermissionDenied(Box<ApiError>),
    /// 404: no such task or certificate for this key.
    NotFound(Box<ApiError>),
    /// 409: an idempotency key reused with a different request.
    Conflict(Box<ApiError>),
    /// 413: the body exceeds the server's limit.
    PayloadTooLarge(Box<ApiError>),
    /// 422: the body parsed but a field is invalid; the message and `field` say which.
    InvalidRequest(Box<ApiError>),
    /// 429: too many requests; `retry_after` says when to try again.
    RateLimited(Box<ApiError>),
    /// 5xx: the service failed (after the retries this client makes).
    Server(Box<ApiError>),
    /// Any other error status.
    OtherStatus(Box<ApiError>),
    /// The service could not be reached: refused, reset, timed out, unknown host.
    Transport { message: String },
    /// The job did not end in time. It keeps running: `get(task_id)` later.
    Timeout { task_id: String, last_status: JobStatus, waited: Duration },
    /// A 2xx answer that is not what the endpoint promises (a wrong base URL, a proxy's page, a newer server).
    Decode { message: String },
}

impl Error {
    /// The server's error details, for every kind that comes from an error answer.
    pub fn api(&self) -> Option<&ApiError> {
        match self {
            Error::BadRequest(e)
            | Error::Authentication(e)
            | Error::PaymentRequired(e)
            | Error::PermissionDenied(e)
            | Error::NotFound(e)
            | Error::Conflict(e)
            | Error::PayloadTooLarge(e)
            | Error::InvalidRequest(e)
            | Error::RateLimited(e)
            | Error::Server(e)
            | Error::OtherStatus(e) => Some(e.as_ref()),
            _ => None,
        }
    }

    /// The HTTP status of an error answer.
    pub fn status(&self) -> Option<u16> {
        self.api().map(|e| e.status)
    }

    /// The field the error is about: the argument refused here, or the one the server named.
    pub fn field(&self) -> Option<&str> {
        match self {
            Error::Input { field, .. } => Some(field),
            _ => self.api().and_then(|e| e.field.as_deref()),
        }
    }

    /// How long the server asked us to wait before trying again.
    pub fn retry_after(&self) -> Option<Duration> {
        self.api().and_then(|e| e.retry_after)
    }

    pub(crate) fn input(field: &str, message: impl Into<String>) -> Error {
        Error::Input { field: field.to_string(), message: message.into() }
    }

    pub(crate) fn decode(what: &str, reason: impl fmt::Display) -> Error {
        Error::Decode {
            message: format!("{what}: the server's answer is not what this endpoint returns ({reason}); check the base URL"),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Input { field, message } => write!(f, "{field}: {message}"),
            Error::Transport { message } | Error::Decode { message } => f.write_str(message),
            Error::Timeout { task_id, last_status, waited } => write!(
                f,
                "task {task_id} is still {last_status} after {:.1}s; wait longer or call get({task_id:?}) later",
                waited.as_secs_f64()
            ),
            _ => match self.api() {
                Some(api) => api.fmt(f),
                None => Ok(()),
            },
        }
    }
}

impl std::error::Error for Error {}

/// A proxy's HTML error page is not a message: keep only its start.
const MAX_TEXT: usize = 300;
/// The most of a server message kept.
const MAX_MESSAGE: usize = 2000;

/// Seconds from a Retry-After header given in seconds; None when absent or not a number (the HTTP-date form is
/// legal, but this server never sends it).
pub(crate) fn parse_retry_after(value: Option<&str>) -> Option<Duration> {
    let seconds: f64 = value?.trim().parse().ok()?;
    if seconds.is_finite() && seconds >= 0.0 {
        Some(Duration::from_secs_f64(seconds.min(1e9)))
    } else {
        None
    }
}

fn truncated(text: &str, most: usize) -> String {
    match text.char_indices().nth(most) {
        Some((end, _)) => text[..end].to_string(),
        None => text.to_string(),
    }
}

/// FastAPI's default 422 body (`{"detail": [{loc, msg}, …]}`) as one message and the first field.
fn from_validation_detail(items: &[Value]) -> (String, Option<String>) {
    let mut parts = Vec::new();
    let mut field = None;
    for item in items.iter().take(5) {
        let item = match item.as_object() {
            Some(item) => item,
            None => continue,
        };
        let loc: Vec<String> = item
            .get("loc")
            .and_then(Value::as_array)
            .map(|loc| {
                loc.iter()
                    .filter(|p| p.as_str() != Some("body"))
                    .map(|p| match p {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let msg = item.get("msg").and_then(Value::as_str).unwrap_or("invalid");
        let at = loc.join(".");
        if at.is_empty() {
            parts.push(msg.to_string());
        } else {
            if field.is_none() {
                field = Some(at.clone());
            }
            parts.push(format!("{at}: {msg}"));
        }
    }
    (parts.join("; "), field)
}

/// The error kind for a non-2xx answer, reading the standard error body when there is one.
pub(crate) fn from_response(status: u16, retry_after: Option<&str>, request_id: Option<&str>, body: &[u8]) -> Error {
    let payload: Option<Value> = serde_json::from_slice(body).ok();
    let mut code = None;
    let mut message = String::new();
    let mut field = None;
    if let Some(Value::Object(top)) = &payload {
        match (top.get("error"), top.get("detail")) {
            (Some(Value::Object(error)), _) => {
                code = error.get("code").and_then(Value::as_str).map(str::to_string);
                message = error.get("message").and_then(Value::as_str).unwrap_or("").to_string();
                field = error.get("field").and_then(Value::as_str).map(str::to_string);
            }
            (_, Some(Value::String(detail))) => message = detail.clone(),
            (_, Some(Value::Array(items))) => {
                let (text, at) = from_validation_detail(items);
                message = text;
                field = at;
            }
            _ => {}
        }
    }
    if message.is_empty() {
        let start = truncated(String::from_utf8_lossy(body).trim(), MAX_TEXT);
        message = if start.is_empty() {
            format!("the server answered HTTP {status} with an empty body")
        } else {
            format!("the server answered HTTP {status}: {start}")
        };
    }
    let api = Box::new(ApiError {
        status,
        code: code.filter(|c| !c.is_empty()).unwrap_or_else(|| format!("http_{status}")),
        message: truncated(&message, MAX_MESSAGE),
        field,
        retry_after: parse_retry_after(retry_after),
        request_id: request_id.map(str::to_string),
    });
    match status {
        400 => Error::BadRequest(api),
        401 => Error::Authentication(api),
        402 => Error::PaymentRequired(api),
        403 => Error::PermissionDenied(api),
        404 => Error::NotFound(api),
        409 => Error::Conflict(api),
        413 => Error::PayloadTooLarge(api),
        422 => Error::InvalidRequest(api),
        429 => Error::RateLimited(api),
        500..=599 => Error::Server(api),
        _ => Error::OtherStatus(api),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_error_body_gives_kind_code_message_and_field() {
        let body = br#"{"error":{"code":"not_found","message":"no task abc for this API key","field":"task_id"}}"#;
        let err = from_response(404, None, Some("req-1"), body);
        let api = match &err {
            Error::NotFound(api) => api,
            other => panic!("expected NotFound, got {other:?}"),
        };
        assert_eq!(api.code, "not_found");
        assert_eq!(api.field.as_deref(), Some("task_id"));
        assert_eq!(api.request_id.as_deref(), Some("req-1"));
        assert_eq!(err.to_string(), "HTTP 404 not_found: no task abc for this API key (field: task_id)");
    }

    #[test]
    fn each_status_has_its_kind() {
        type IsKind = fn(&Error) -> bool;
        let kinds: Vec<(u16, IsKind)> = vec![
            (400, |e| matches!(e, Error::BadRequest(_))),
            (401, |e| matches!(e, Error::Authentication(_))),
            (402, |e| matches!(e, Error::PaymentRequired(_))),
            (403, |e| matches!(e, Error::PermissionDenied(_))),
            (409, |e| matches!(e, Error::Conflict(_))),
            (413, |e| matches!(e, Error::PayloadTooLarge(_))),
            (422, |e| matches!(e, Error::InvalidRequest(_))),
            (429, |e| matches!(e, Error::RateLimited(_))),
            (500, |e| matches!(e, Error::Server(_))),
            (503, |e| matches!(e, Error::Server(_))),
            (418, |e| matches!(e, Error::OtherStatus(_))),
        ];
        for (status, is_kind) in kinds {
            let err = from_response(status, None, None, b"{}");
            assert!(is_kind(&err), "HTTP {status} became {err:?}");
            assert_eq!(err.status(), Some(status));
        }
    }

    #[test]
    fn retry_after_is_read_in_seconds_only() {
        let err = from_response(429, Some(" 1.5 "), None, b"");
        assert_eq!(err.retry_after(), Some(Duration::from_millis(1500)));
        assert_eq!(parse_retry_after(Some("Wed, 21 Oct 2015 07:28:00 GMT")), None);
        assert_eq!(parse_retry_after(Some("-1")), None);
        assert_eq!(parse_retry_after(Some("NaN")), None);
        assert_eq!(parse_retry_after(None), None);
    }

    #[test]
    fn fastapi_validation_details_become_one_message() {
        let body = br#"{"detail":[{"loc":["body","reasoning_chain",0,"content"],"msg":"Field required"},{"loc":["body"],"msg":"bad"}]}"#;
        let err = from_response(422, None, None, body);
        let api = err.api().expect("an API error");
        assert_eq!(api.message, "reasoning_chain.0.content: Field required; bad");
        assert_eq!(api.field.as_deref(), Some("reasoning_chain.0.content"));
        assert_eq!(api.code, "http_422");
        let plain = from_response(400, None, None, br#"{"detail":"nope"}"#);
        assert_eq!(plain.api().map(|a| a.message.as_str()), Some("nope"));
    }

    #[test]
    fn a_body_that_is_not_ours_is_shown_by_its_start() {
        let page = format!("<html>{}</html>", "x".repeat(5000));
        let err = from_response(502, None, None, page.as_bytes());
        let message = &err.api().expect("an API error").message;
        assert!(message.starts_with("the server answered HTTP 502: <html>xxx"), "{message}");
        assert!(message.chars().count() < 400, "{message}");
        let empty = from_response(503, None, None, b"");
        assert!(empty.to_string().ends_with("HTTP 503 with an empty body"), "{empty}");
        let utf8 = from_response(500, None, None, "é".repeat(400).as_bytes());
        assert!(utf8.to_string().contains("éé"));
    }

    #[test]
    fn input_and_timeout_errors_say_what_to_do() {
        let err = Error::input("task_id", "\"../x\" is not a valid id");
        assert_eq!(err.field(), Some("task_id"));
        assert_eq!(err.to_string(), "task_id: \"../x\" is not a valid id");
        let late = Error::Timeout {
            task_id: "t1".into(),
            last_status: JobStatus::Verifying,
            waited: Duration::from_secs(2),
        };
        assert_eq!(late.to_string(), "task t1 is still verifying after 2.0s; wait longer or call get(\"t1\") later");
        assert_eq!(late.status(), None);
    }
}
