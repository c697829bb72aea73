//! Retries, bounds and transport failures against a loopback stand-in for a proxy or a restarting API: no
//! ReasonForge server is needed.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use reasonforge::{Client, Domain, Error, JobStatus, VerifyRequest};

/// What the stand-in saw of one request.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    target: String,
    headers: HashMap<String, String>,
    body: String,
}

struct Reply {
    status: u16,
    headers: Vec<(&'static str, String)>,
    body: Vec<u8>,
    delay: Duration,
}

impl Reply {
    fn json(status: u16, body: &str) -> Reply {
        Reply { status, headers: vec![("content-type", "application/json".into())], body: body.into(), delay: Duration::ZERO }
    }

    fn header(mut self, name: &'static str, value: &str) -> Reply {
        self.headers.push((name, value.to_string()));
        self
    }
}

struct Stub {
    base_url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Stub {
    /// A server answering request number `n` (from 0) with `reply(n)`, one connection per request.
    fn start(reply: impl Fn(usize) -> Reply + Send + 'static) -> Stub {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let base_url = format!("http://{}", listener.local_addr().expect("an address"));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        // Detached: it ends with the test process.
        thread::spawn(move || {
            for stream in listener.incoming() {
                let stream = match stream {
                    Ok(stream) => stream,
                    Err(_) => continue,
                };
                let request = match read_request(&stream) {
                    Some(request) => request,
                    None => continue,
                };
                let n = {
                    let mut log = log.lock().expect("the log");
                    log.push(request);
                    log.len() - 1
                };
                answer(stream, reply(n));
            }
        });
        Stub { base_url, seen }
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().expect("the log").clone()
    }

    fn client(&self, retries: u32) -> Client {
        Client::builder(&self.base_url).api_key("rf_x").max_retries(retries).build().expect("a client")
    }
}

fn read_request(stream: &TcpStream) -> Option<Seen> {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let target = parts.next()?.to_string();
    let mut headers = HashMap::new();
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).ok()?;
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        let (name, value) = header.split_once(':')?;
        headers.insert(name.trim().to_ascii_lowercase(), value.trim().to_string());
    }
    let length: usize = headers.get("content-length").and_then(|v| v.parse().ok()).unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(Seen { method, target, headers, body: String::from_utf8_lossy(&body).into_owned() })
}

fn answer(mut stream: TcpStream, reply: Reply) {
    thread::sleep(reply.delay);
    let mut head = format!("HTTP/1.1 {} X\r\nconnection: close\r\ncontent-length: {}\r\n", reply.status, reply.body.len());
    for (name, value) in &reply.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    // The client may hang up first (a refused oversized answer): nothing to do about it here.
    let _ = stream.write_all(head.as_bytes()).and_then(|_| stream.write_all(&reply.body));
}

const QUEUED: &str = r#"{"task_id": "t1", "status": "queued", "steps_total": 1}"#;

fn one_step() -> VerifyRequest {
    VerifyRequest::from_texts(Domain::Mathematics, ["x = 1"])
}

#[test]
fn a_submit_is_retried_with_one_idempotency_key() {
    let stub = Stub::start(|n| {
        if n < 2 {
            Reply::json(503, r#"{"error": {"code": "restarting", "message": "back soon", "field": null}}"#)
                .header("retry-after", "0")
        } else {
            Reply::json(202, QUEUED)
        }
    });
    let job = stub.client(2).submit(&one_step()).expect("queued after two retries");
    assert_eq!((job.task_id.as_str(), job.status), ("t1", JobStatus::Queued));
    let seen = stub.seen();
    assert_eq!(seen.iter().map(|s| s.method.as_str()).collect::<Vec<_>>(), ["POST", "POST", "POST"]);
    let keys: Vec<&str> = seen.iter().map(|s| s.headers["idempotency-key"].as_str()).collect();
    assert!(keys[0].starts_with("sdk-") && keys.iter().all(|k| *k == keys[0]), "{keys:?}");
    let first = &seen[0];
    assert_eq!(first.target, "/v1/verify");
    assert_eq!(first.headers["authorization"], "Bearer rf_x");
    assert_eq!(first.headers["content-type"], "application/json");
    assert!(first.headers["user-agent"].starts_with("reasonforge-rs/"), "{:?}", first.headers);
    let body: serde_json::Value = serde_json::from_str(&first.body).expect("a JSON body");
    assert_eq!(body["reasoning_chain"][0]["content"], "x = 1");
}

#[test]
fn retries_run_out_into_a_server_error() {
    let stub = Stub::start(|_| Reply::json(503, r#"{"error": {"code": "restarting", "message": "back soon"}}"#).header("retry-after", "0"));
    match stub.client(1).get("t1") {
        Err(err @ Error::Server(_)) => {
            assert_eq!(err.status(), Some(503));
            assert_eq!(err.retry_after(), Some(Duration::ZERO));
            assert_eq!(err.to_string(), "HTTP 503 restarting: back soon");
        }
        other => panic!("expected a server error, got {other:?}"),
    }
    assert_eq!(stub.seen().len(), 2);
}

#[test]
fn throttling_waits_as_long_as_the_server_asks() {
    let stub = Stub::start(|_| {
        Reply::json(429, r#"{"error": {"code": "rate_limited", "message": "120 requests per minute"}}"#)
            .header("retry-after", "0.3")
    });
    let started = Instant::now();
    match stub.client(1).get("t1") {
        Err(Error::RateLimited(api)) => assert_eq!(api.retry_after, Some(Duration::from_millis(300))),
        other => panic!("expected RateLimited, got {other:?}"),
    }
    assert!(started.elapsed() >= Duration::from_millis(300), "retried after {:?}", started.elapsed());
    assert_eq!(stub.seen().len(), 2);
}

#[test]
fn client_errors_are_not_retried() {
    let stub = Stub::start(|_| {
        Reply::json(422, r#"{"error": {"code": "validation_error", "message": "step 1: content is empty", "field": "reasoning_chain[0].content"}}"#)
            .header("x-request-id", "req-9")
    });
    match stub.client(3).submit(&one_step()) {
        Err(Error::InvalidRequest(api)) => {
            assert_eq!(api.message, "step 1: content is empty");
            assert_eq!(api.field.as_deref(), Some("reasoning_chain[0].content"));
            assert_eq!(api.request_id.as_deref(), Some("req-9"));
        }
        other => panic!("expected InvalidRequest, got {other:?}"),
    }
    assert_eq!(stub.seen().len(), 1);
}

#[test]
fn a_refused_connection_is_a_transport_error() {
    let port = TcpListener::bind("127.0.0.1:0").expect("a port").local_addr().expect("an address").port();
    let client = Client::builder(&format!("http://127.0.0.1:{port}")).max_retries(0).build().expect("a client");
    match client.health() {
        Err(Error::Transport { message }) => assert!(message.contains(&format!("127.0.0.1:{port}")), "{message}"),
        other => panic!("expected a transport error, got {other:?}"),
    }
}

#[test]
fn a_server_that_does_not_answer_in_time_is_a_transport_error() {
    let stub = Stub::start(|_| {
        let mut reply = Reply::json(200, QUEUED);
        reply.delay = Duration::from_secs(3);
        reply
    });
    let client = Client::builder(&stub.base_url).timeout(Duration::from_millis(300)).max_retries(0).build().expect("a client");
    let started = Instant::now();
    assert!(matches!(client.get("t1"), Err(Error::Transport { .. })));
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
}

#[test]
fn answers_that_are_not_the_endpoints_are_decode_errors() {
    let stub = Stub::start(|n| match n {
        0 => Reply { status: 200, headers: vec![], body: b"<html>a login page</html>".to_vec(), delay: Duration::ZERO },
        1 => Reply::json(200, r#"{"task_id": "t1", "status": "pondering"}"#),
        2 => Reply::json(200, r#"{"valid": true, "reasons": ["the proof does not verify"]}"#),
        // Just over the bound: the client stops reading there.
        _ => Reply::json(200, &" ".repeat(16 * 1024 * 1024 + 1)),
    });
    let client = stub.client(0);
    for outcome in [client.get("t1").map(|_| ()), client.get("t1").map(|_| ()), client.verify_certificate("0xab").map(|_| ())] {
        match outcome {
            Err(Error::Decode { message }) => assert!(message.contains("check the base URL"), "{message}"),
            other => panic!("expected a decode error, got {other:?}"),
        }
    }
    match client.stats() {
        Err(Error::Decode { message }) => assert!(message.contains("larger than"), "{message}"),
        other => panic!("expected a decode error, got {other:?}"),
    }
}

#[test]
fn wait_long_polls_then_gives_up_with_a_timeout() {
    let stub = Stub::start(|_| Reply::json(200, QUEUED));
    match stub.client(0).wait("t1", Duration::from_millis(300)) {
        Err(Error::Timeout { task_id, last_status, waited }) => {
            assert_eq!((task_id.as_str(), last_status), ("t1", JobStatus::Queued));
            assert!(waited >= Duration::from_millis(300), "{waited:?}");
        }
        other => panic!("expected a timeout, got {other:?}"),
    }
    let seen = stub.seen();
    assert!(seen[0].target.starts_with("/v1/verify/t1?wait=0."), "{}", seen[0].target);
    assert!(seen.iter().all(|s| s.method == "GET"));
}

#[test]
fn a_batch_goes_in_one_request_and_comes_back_in_order() {
    let stub = Stub::start(|_| {
        Reply::json(
            202,
            r#"{"tasks": [{"task_id": "a", "status": "queued"}, {"task_id": "b", "status": "complete", "verdict": "FAILED"}], "next_cursor": null}"#,
        )
    });
    let jobs = stub.client(0).submit_many(&[one_step(), one_step()]).expect("two tasks");
    assert_eq!(jobs.iter().map(|j| j.task_id.as_str()).collect::<Vec<_>>(), ["a", "b"]);
    let seen = stub.seen();
    assert_eq!((seen.len(), seen[0].target.as_str()), (1, "/v1/verify/batch"));
    let body: serde_json::Value = serde_json::from_str(&seen[0].body).expect("a JSON body");
    assert_eq!(body["requests"].as_array().map(Vec::len), Some(2));
    assert!(seen[0].headers["idempotency-key"].ends_with(".0"));
    // A page that does not hold one task per request is not the batch's answer.
    let short = Stub::start(|_| Reply::json(202, r#"{"tasks": [{"task_id": "a", "status": "queued"}]}"#));
    assert!(matches!(short.client(0).submit_many(&[one_step(), one_step()]), Err(Error::Decode { .. })));
}
