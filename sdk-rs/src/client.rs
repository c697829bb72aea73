//! The blocking client: `verify` submits a reasoning chain and long-polls until its verdict is in.

use std::collections::hash_map::RandomState;
use std::fmt::Write as _;
use std::hash::{BuildHasher, Hash, Hasher};
use std::io::Read;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread::sleep;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

use crate::error::{self, Error, Result};
use crate::types::{
    Certificate, CertificateCheck, Health, JobStatus, ReasoningRequest, Stats, TaskPage, VerifyRequest,
    VerifyResponse,
};

pub const DEFAULT_BASE_URL: &str = "http://127.0.0.1:8000";
pub const SDK_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The most one poll asks the server to hold it; the server allows 60.
const LONG_POLL: Duration = Duration::from_secs(25);
/// Requests per `POST /v1/verify/batch` (the server refuses more).
const MAX_BATCH: usize = 100;
/// A verdict page of 100 tasks is well under this; anything larger is not an answer of this API.
const MAX_BODY: u64 = 16 * 1024 * 1024;
/// Error bodies are short; a proxy's page is cut here.
const MAX_ERROR_BODY: u64 = 64 * 1024;
const MAX_RETRY_WAIT: Duration = Duration::from_secs(30);

/// Worth another try: the key is throttled for a moment, or the server is busy or restarting.
fn retryable(status: u16) -> bool {
    matches!(status, 429 | 502 | 503 | 504)
}

fn retry_delay(attempt: u32, retry_after: Option<Duration>) -> Duration {
    let backoff = Duration::from_millis(250u64.saturating_mul(1u64 << attempt.min(16)));
    retry_after.unwrap_or(backoff).min(MAX_RETRY_WAIT)
}

/// A fresh Idempotency-Key: a retried POST lands on the job the first attempt queued instead of a second one.
fn fresh_key() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    let mut key = String::from("sdk-");
    // RandomState is seeded from the OS: 128 unpredictable bits without a random-number crate.
    for salt in 0..2u8 {
        let mut hasher = RandomState::new().build_hasher();
        (nanos, std::process::id(), count, salt).hash(&mut hasher);
        let _ = write!(key, "{:016x}", hasher.finish());
    }
    key
}

/// Ids go into URL paths: only the characters the server's ids use, so no id can reach another route.
fn check_id<'a>(value: &'a str, field: &str) -> Result<&'a str> {
    let ok = !value.is_empty()
        && value.len() <= 200
        && value != "."
        && value != ".."
        && value.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.:".contains(&b));
    if ok {
        Ok(value)
    } else {
        Err(Error::input(field, format!("{value:?} is not a valid id")))
    }
}

fn check_base_url(raw: &str) -> Result<String> {
    let raw = raw.trim();
    let hint = || format!("base URL {raw:?} must be an http(s) URL with a host and no query; use e.g. {DEFAULT_BASE_URL}");
    let url = url::Url::parse(raw).map_err(|_| Error::input("base_url", hint()))?;
    let scheme_ok = url.scheme() == "http" || url.scheme() == "https";
    if !scheme_ok || url.host_str().map_or(true, str::is_empty) || url.query().is_some() || url.fragment().is_some() {
        return Err(Error::input("base_url", hint()));
    }
    if url.scheme() == "https" && !cfg!(feature = "tls") {
        return Err(Error::input(
            "base_url",
            format!("{raw:?} is https, but this build has no TLS: build with `--features tls`, or reach the server over http (e.g. through a TLS-terminating proxy on loopback)"),
        ));
    }
    Ok(raw.trim_end_matches('/').to_string())
}

/// `wait=` in seconds, to the millisecond.
fn seconds(d: Duration) -> String {
    format!("{}.{:03}", d.as_secs(), d.subsec_millis())
}

/// Sets how a [`Client`] talks to the server; `build` checks the settings.
#[derive(Clone)]
pub struct ClientBuilder {
    base_url: String,
    api_key: Option<String>,
    timeout: Duration,
    max_retries: u32,
    verify_timeout: Duration,
}

impl std::fmt::Debug for ClientBuilder {
    // Whether there is a key, never the key.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "…"))
            .field("timeout", &self.timeout)
            .field("max_retries", &self.max_retries)
            .field("verify_timeout", &self.verify_timeout)
            .finish()
    }
}

impl ClientBuilder {
    /// The `rf_…` key; without one, only public endpoints answer.
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    /// Per-request timeout, connecting included (default 30 s); a long poll asks the server for 5 s less.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Retries on 429, 502, 503, 504 and dropped connections (default 2).
    pub fn max_retries(mut self, retries: u32) -> Self {
        self.max_retries = retries;
        self
    }

    /// How long `verify`, `verify_text`, `verify_response` and `verify_many` wait for verdicts (default 300 s).
    pub fn verify_timeout(mut self, timeout: Duration) -> Self {
        self.verify_timeout = timeout;
        self
    }

    pub fn build(self) -> Result<Client> {
        let base_url = check_base_url(&self.base_url)?;
        let api_key = match self.api_key {
            None => None,
            Some(key) => {
                let key = key.trim().to_string();
                if key.is_empty() || key.chars().any(|c| c.is_whitespace() || c.is_control()) {
                    return Err(Error::input("api_key", "is empty or contains whitespace; pass the rf_... key you were given"));
                }
                Some(key)
            }
        };
        if self.timeout.is_zero() {
            return Err(Error::input("timeout", "must be more than zero"));
        }
        let agent = ureq::AgentBuilder::new()
            .timeout(self.timeout)
            .user_agent(&format!("reasonforge-rs/{SDK_VERSION}"))
            .build();
        Ok(Client {
            agent,
            base_url,
            api_key,
            timeout: self.timeout,
            max_retries: self.max_retries,
            verify_timeout: self.verify_timeout,
        })
    }
}

/// A blocking client of one ReasonForge API. Cheap to clone; clones share the connection pool.
#[derive(Clone)]
pub struct Client {
    agent: ureq::Agent,
    base_url: String,
    api_key: Option<String>,
    timeout: Duration,
    max_retries: u32,
    verify_timeout: Duration,
}

impl std::fmt::Debug for Client {
    // Never the key.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client").field("base_url", &self.base_url).field("timeout", &self.timeout).finish()
    }
}

impl Client {
    /// A client of the API at `base_url` (e.g. `http://127.0.0.1:8000`) with an `rf_…` key and default settings.
    pub fn new(base_url: &str, api_key: &str) -> Result<Client> {
        Client::builder(base_url).api_key(api_key).build()
    }

    /// A client configured like the Python SDK's default: $REASONFORGE_BASE_URL (else [`DEFAULT_BASE_URL`]) and
    /// $REASONFORGE_API_KEY (else no key).
    pub fn from_env() -> Result<Client> {
        let base_url = std::env::var("REASONFORGE_BASE_URL").unwrap_or_else(|_| DEFAULT_BASE_URL.to_string());
        let builder = Client::builder(base_url.trim());
        match std::env::var("REASONFORGE_API_KEY") {
            Ok(key) => builder.api_key(key).build(),
            Err(_) => builder.build(),
        }
    }

    pub fn builder(base_url: &str) -> ClientBuilder {
        ClientBuilder {
            base_url: base_url.to_string(),
            api_key: None,
            timeout: Duration::from_secs(30),
            max_retries: 2,
            verify_timeout: Duration::from_secs(300),
        }
    }

    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// One API call, retried on throttling, restarts and dropped connections. Every call is safe to repeat:
    /// reads are reads, and submissions carry an Idempotency-Key.
    fn request(
        &self,
        method: &str,
        path: &str,
        query: &[(&str, String)],
        body: Option<&Value>,
        headers: &[(&str, &str)],
        timeout: Option<Duration>,
    ) -> Result<Vec<u8>> {
        let url = format!("{}{}", self.base_url, path);
        let payload = match body {
            Some(body) => Some(serde_json::to_string(body).map_err(|e| Error::input("request", e.to_string()))?),
            None => None,
        };
        let mut attempt = 0;
        loop {
            let mut call = self.agent.request(method, &url).set("Accept", "application/json");
            for (name, value) in query {
                call = call.query(name, value);
            }
            if let Some(key) = &self.api_key {
                call = call.set("Authorization", &format!("Bearer {key}"));
            }
            for (name, value) in headers {
                call = call.set(name, value);
            }
            if let Some(timeout) = timeout {
                call = call.timeout(timeout);
            }
            let outcome = match &payload {
                Some(text) => call.set("Content-Type", "application/json").send_string(text),
                None => call.call(),
            };
            let (failure, retry_after) = match outcome {
                Ok(response) => return read_body(response, MAX_BODY, method, &url),
                Err(ureq::Error::Status(status, response)) => {
                    let retry_after = response.header("retry-after").map(str::to_string);
                    let request_id = response.header("x-request-id").map(str::to_string);
                    // Only the start of an error page is shown, so the rest need not be read.
                    let mut body = Vec::new();
                    let _ = response.into_reader().take(MAX_ERROR_BODY).read_to_end(&mut body);
                    let failure = error::from_response(status, retry_after.as_deref(), request_id.as_deref(), &body);
                    if !retryable(status) {
                        return Err(failure);
                    }
                    let wait = failure.retry_after();
                    (failure, wait)
                }
                Err(ureq::Error::Transport(transport)) => {
                    // ureq's message starts with the URL when it has one.
                    let message = if transport.url().is_some() {
                        format!("{method} {transport}")
                    } else {
                        format!("{method} {url}: {transport}")
                    };
                    (Error::Transport { message }, None)
                }
            };
            if attempt >= self.max_retries {
                return Err(failure);
            }
            sleep(retry_delay(attempt, retry_after));
            attempt += 1;
        }
    }

    fn json<T: DeserializeOwned>(
        &self,
        method: &str,
        path: &str,
        query: &[(&str, String)],
        body: Option<&Value>,
        headers: &[(&str, &str)],
        timeout: Option<Duration>,
    ) -> Result<T> {
        let bytes = self.request(method, path, query, body, headers, timeout)?;
        serde_json::from_slice(&bytes).map_err(|e| Error::decode(&format!("{method} {path}"), e))
    }

    fn to_body(request: &impl Serialize) -> Result<Value> {
        serde_json::to_value(request).map_err(|e| Error::input("request", e.to_string()))
    }

    /// `GET /healthz`: whether the service is up and its store answers (needs no key).
    pub fn health(&self) -> Result<Health> {
        self.json("GET", "/healthz", &[], None, &[], None)
    }

    /// `POST /v1/verify`: queue a verification and return at once (status `queued`).
    pub fn submit(&self, request: &VerifyRequest) -> Result<VerifyResponse> {
        self.submit_with_key(request, &fresh_key())
    }

    /// `submit` with your own Idempotency-Key: the same key and request give back the same task, a different
    /// request under that key is refused (`Error::Conflict`).
    pub fn submit_with_key(&self, request: &VerifyRequest, idempotency_key: &str) -> Result<VerifyResponse> {
        // A header value: a line break would end it and start another header.
        let printable = idempotency_key.bytes().all(|b| b.is_ascii_graphic() || b == b' ');
        if idempotency_key.trim().is_empty() || idempotency_key.len() > 200 || !printable {
            return Err(Error::input("idempotency_key", "must be 1 to 200 printable ASCII characters"));
        }
        request.check()?;
        let body = Client::to_body(request)?;
        let job: VerifyResponse =
            self.json("POST", "/v1/verify", &[], Some(&body), &[("Idempotency-Key", idempotency_key)], None)?;
        job.checked("POST /v1/verify")
    }

    /// `GET /v1/verify/{task_id}`: the job's status and, once it is complete, its verdict.
    pub fn get(&self, task_id: &str) -> Result<VerifyResponse> {
        self.poll(task_id, Duration::ZERO)
    }

    /// `GET /v1/verify/{task_id}?wait=`: the server holds the answer until the job ends or `wait` passes
    /// (it allows 60 s; this client's own request timeout must be longer).
    pub fn poll(&self, task_id: &str, wait: Duration) -> Result<VerifyResponse> {
        let id = check_id(task_id, "task_id")?;
        let path = format!("/v1/verify/{id}");
        let query = if wait.is_zero() { vec![] } else { vec![("wait", seconds(wait))] };
        let timeout = if wait.is_zero() { None } else { Some(self.timeout.max(wait + Duration::from_secs(5))) };
        let job: VerifyResponse = self.json("GET", &path, &query, None, &[], timeout)?;
        job.checked(&format!("GET {path}"))
    }

    /// Wait until the job is complete, failed or cancelled: one long poll at a time, not a polling loop.
    /// `Error::Timeout` after `timeout`, when the job is still running.
    pub fn wait(&self, task_id: &str, timeout: Duration) -> Result<VerifyResponse> {
        let started = Instant::now();
        let deadline = started + timeout;
        let mut pause = Duration::from_millis(100);
        // Under the request timeout with a margin, and under the cap of one poll.
        let longest = LONG_POLL.min(self.timeout.saturating_sub(Duration::from_secs(5)));
        loop {
            let asked = longest.min(deadline.saturating_duration_since(Instant::now()));
            let sent = Instant::now();
            let job = self.poll(task_id, asked)?;
            if job.status.is_terminal() {
                return Ok(job);
            }
            let remaining = deadline.saturating_duration_since(Instant::now());
            if remaining.is_zero() {
                return Err(Error::Timeout { task_id: task_id.to_string(), last_status: job.status, waited: started.elapsed() });
            }
            if asked.is_zero() || sent.elapsed() < asked / 2 {
                // Answered early without an end (a stopping or older server): pause, growing, before asking again.
                sleep(pause.min(remaining));
                pause = (pause * 3 / 2).min(Duration::from_secs(2));
            }
        }
    }

    /// Submit a reasoning chain and wait for its verdict (the client's `verify_timeout`, 300 s by default).
    pub fn verify(&self, request: &VerifyRequest) -> Result<VerifyResponse> {
        let job = self.submit(request)?;
        self.finish(job, self.verify_timeout)
    }

    fn finish(&self, job: VerifyResponse, timeout: Duration) -> Result<VerifyResponse> {
        if job.status.is_terminal() {
            Ok(job)
        } else {
            self.wait(&job.task_id, timeout)
        }
    }

    fn submit_reasoning(&self, reasoning: Value, request: &ReasoningRequest) -> Result<VerifyResponse> {
        request.check()?;
        let mut body = Client::to_body(request)?;
        if let Value::Object(fields) = &mut body {
            fields.insert("reasoning".to_string(), reasoning);
        }
        let key = fresh_key();
        let job: VerifyResponse =
            self.json("POST", "/v1/verify/reasoning", &[], Some(&body), &[("Idempotency-Key", &key)], None)?;
        job.checked("POST /v1/verify/reasoning")
    }

    /// `POST /v1/verify/reasoning`: queue reasoning text as a model wrote it ("Step 1: …", paragraphs, lists,
    /// `<think>` tags); the server splits it into steps.
    pub fn submit_text(&self, text: &str, request: &ReasoningRequest) -> Result<VerifyResponse> {
        if text.trim().is_empty() {
            return Err(Error::input("reasoning", "the reasoning text is empty"));
        }
        self.submit_reasoning(Value::String(text.to_string()), request)
    }

    /// Verify plain reasoning text and wait for the verdict.
    pub fn verify_text(&self, text: &str, request: &ReasoningRequest) -> Result<VerifyResponse> {
        let job = self.submit_text(text, request)?;
        self.finish(job, self.verify_timeout)
    }

    /// Verify a provider's raw response object (OpenAI Chat Completions or Responses, Anthropic with thinking,
    /// DeepSeek-R1) as it came back, and wait for the verdict.
    pub fn verify_response(&self, response: &Value, request: &ReasoningRequest) -> Result<VerifyResponse> {
        if !response.is_object() {
            return Err(Error::input("reasoning", "a provider's response is a JSON object; use verify_text for text"));
        }
        let job = self.submit_reasoning(response.clone(), request)?;
        self.finish(job, self.verify_timeout)
    }

    /// `POST /v1/verify/batch`: queue every request (100 per call), each its own task, in order.
    pub fn submit_many(&self, requests: &[VerifyRequest]) -> Result<Vec<VerifyResponse>> {
        if requests.is_empty() {
            return Err(Error::input("requests", "give at least one request to verify"));
        }
        let mut bodies = Vec::with_capacity(requests.len());
        for (index, request) in requests.iter().enumerate() {
            let prefixed = |e: Error| match e {
                Error::Input { field, message } => Error::Input { field: format!("requests[{index}].{field}"), message },
                other => other,
            };
            request.check().map_err(prefixed)?;
            bodies.push(Client::to_body(request).map_err(prefixed)?);
        }
        let key = fresh_key();
        let mut tasks = Vec::with_capacity(requests.len());
        for (chunk, part) in bodies.chunks(MAX_BATCH).enumerate() {
            let chunk_key = format!("{key}.{chunk}");
            let body = json!({ "requests": part });
            let page: TaskPage =
                self.json("POST", "/v1/verify/batch", &[], Some(&body), &[("Idempotency-Key", &chunk_key)], None)?;
            if page.tasks.len() != part.len() {
                return Err(Error::decode(
                    "POST /v1/verify/batch",
                    format!("{} tasks for {} requests", page.tasks.len(), part.len()),
                ));
            }
            for job in page.tasks {
                tasks.push(job.checked("POST /v1/verify/batch")?);
            }
        }
        Ok(tasks)
    }

    /// Submit every request and wait for all their verdicts, in order; the client's `verify_timeout` bounds the
    /// whole wait.
    pub fn verify_many(&self, requests: &[VerifyRequest]) -> Result<Vec<VerifyResponse>> {
        let jobs = self.submit_many(requests)?;
        let deadline = Instant::now() + self.verify_timeout;
        let mut done = Vec::with_capacity(jobs.len());
        for job in jobs {
            let left = deadline.saturating_duration_since(Instant::now());
            done.push(self.finish(job, left)?);
        }
        Ok(done)
    }

    /// `GET /v1/verify`: this key's tasks, newest first, `limit` (1 to 100) per page, optionally only those in one
    /// status; pass the page's `next_cursor` as `cursor` for the next.
    pub fn list_tasks(&self, limit: u32, status: Option<JobStatus>, cursor: Option<&str>) -> Result<TaskPage> {
        if !(1..=100).contains(&limit) {
            return Err(Error::input("limit", format!("must be from 1 to 100, not {limit}")));
        }
        let mut query = vec![("limit", limit.to_string())];
        if let Some(status) = status {
            query.push(("status", status.as_str().to_string()));
        }
        if let Some(cursor) = cursor {
            query.push(("cursor", cursor.to_string()));
        }
        let page: TaskPage = self.json("GET", "/v1/verify", &query, None, &[], None)?;
        for job in &page.tasks {
            if job.task_id.is_empty() {
                return Err(Error::decode("GET /v1/verify", "a task_id is empty"));
            }
        }
        Ok(page)
    }

    /// `GET /v1/certificates/{cert_id}`: the certificate as issued.
    pub fn certificate(&self, cert_id: &str) -> Result<Certificate> {
        let id = check_id(cert_id, "cert_id")?;
        let path = format!("/v1/certificates/{id}");
        let document: Value = self.json("GET", &path, &[], None, &[], None)?;
        Certificate::from_document(document, &format!("GET {path}"))
    }

    /// `POST /v1/certificates/{cert_id}/verify`: the server re-checks the certificate's proof now.
    pub fn verify_certificate(&self, cert_id: &str) -> Result<CertificateCheck> {
        let id = check_id(cert_id, "cert_id")?;
        let path = format!("/v1/certificates/{id}/verify");
        let check: CertificateCheck = self.json("POST", &path, &[], None, &[], None)?;
        if check.valid != check.reasons.is_empty() {
            return Err(Error::decode(&format!("POST {path}"), "`valid` disagrees with `reasons`"));
        }
        Ok(check)
    }

    /// `GET /v1/stats`: jobs by status, verdicts by result, steps, certificates, mean time.
    pub fn stats(&self) -> Result<Stats> {
        self.json("GET", "/v1/stats", &[], None, &[], None)
    }
}

/// The body, at most `most` bytes: a larger answer is not one of this API's.
fn read_body(response: ureq::Response, most: u64, method: &str, url: &str) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    response
        .into_reader()
        .take(most + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::Transport { message: format!("{method} {url}: reading the answer: {e}") })?;
    if bytes.len() as u64 > most {
        return Err(Error::decode(&format!("{method} {url}"), format!("the answer is larger than {most} bytes")));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_that_could_leave_their_route_are_refused() {
        for bad in ["", ".", "..", "a/b", "a?b", "a b", "é", &"x".repeat(201)] {
            let err = check_id(bad, "task_id").unwrap_err();
            assert_eq!(err.field(), Some("task_id"), "{bad:?}");
        }
        for good in ["0123456789abcdef", "0x20b8", "sdk-1.2:3_4"] {
            assert_eq!(check_id(good, "cert_id").ok(), Some(good));
        }
    }

    #[test]
    fn base_urls_are_checked_and_trimmed() {
        assert_eq!(check_base_url(" http://127.0.0.1:8000/ ").ok().as_deref(), Some("http://127.0.0.1:8000"));
        assert_eq!(check_base_url("http://api.example/rf").ok().as_deref(), Some("http://api.example/rf"));
        for bad in ["127.0.0.1:8000", "ftp://h", "http://h/?x=1", "http://h/#f", "not a url"] {
            assert_eq!(check_base_url(bad).unwrap_err().field(), Some("base_url"), "{bad}");
        }
        match check_base_url("https://h/") {
            Ok(url) => assert!(cfg!(feature = "tls") && url == "https://h", "{url}"),
            Err(err) => assert!(!cfg!(feature = "tls") && err.to_string().contains("--features tls"), "{err}"),
        }
    }

    #[test]
    fn keys_and_timeouts_are_checked_before_any_request() {
        for bad in ["", "  ", "rf_a b"] {
            let err = Client::new("http://127.0.0.1:9", bad).unwrap_err();
            assert_eq!(err.field(), Some("api_key"));
        }
        let err = Client::builder("http://127.0.0.1:9").timeout(Duration::ZERO).build().unwrap_err();
        assert_eq!(err.field(), Some("timeout"));
        let builder = Client::builder("http://127.0.0.1:9").api_key(" rf_secret ");
        assert!(!format!("{builder:?}").contains("rf_secret"));
        let client = builder.build().expect("a client");
        assert!(!format!("{client:?}").contains("rf_secret"));
    }

    #[test]
    fn an_idempotency_key_cannot_carry_another_header() {
        let client = Client::new("http://127.0.0.1:9", "rf_x").expect("a client");
        let request = VerifyRequest::from_texts(crate::Domain::Logic, ["p"]);
        for bad in ["", " ", "k\r\nX-Other: 1", "ключ", &"k".repeat(201)] {
            let err = client.submit_with_key(&request, bad).unwrap_err();
            assert_eq!(err.field(), Some("idempotency_key"), "{bad:?}");
        }
    }

    #[test]
    fn idempotency_keys_differ_every_call() {
        let keys: std::collections::HashSet<String> = (0..1000).map(|_| fresh_key()).collect();
        assert_eq!(keys.len(), 1000);
        assert!(keys.iter().all(|k| k.starts_with("sdk-") && k.len() == 36));
    }

    #[test]
    fn retries_back_off_and_honour_retry_after_up_to_a_cap() {
        assert_eq!(retry_delay(0, None), Duration::from_millis(250));
        assert_eq!(retry_delay(2, None), Duration::from_secs(1));
        assert_eq!(retry_delay(0, Some(Duration::from_secs(3))), Duration::from_secs(3));
        assert_eq!(retry_delay(0, Some(Duration::from_secs(3600))), MAX_RETRY_WAIT);
        assert_eq!(retry_delay(40, None), MAX_RETRY_WAIT);
        assert_eq!(seconds(Duration::from_millis(24_500)), "24.500");
    }
}
