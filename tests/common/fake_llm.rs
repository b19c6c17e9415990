//! A scripted OpenAI-compatible endpoint for the LLM tests: it answers
//! request n with what the test's script says (statuses, headers, delays,
//! any content) and records every request. Only std.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub struct Seen {
    pub path: String,
    pub authorization: Option<String>,
    pub body: Value,
}

/// What the script answers: a status, extra headers, a body.
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
    /// Wait this long before answering.
    pub delay: Duration,
}

type Script = dyn Fn(usize, &Seen) -> Reply + Send + Sync;

pub struct FakeServer {
    pub url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    stop: Arc<std::sync::atomic::AtomicBool>,
    accepting: Option<std::thread::JoinHandle<()>>,
}

impl Drop for FakeServer {
    /// Stop listening: the port is closed once this returns.
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        let addr = self.url.trim_start_matches("http://").trim_end_matches("/v1").to_string();
        let _ = TcpStream::connect(addr);
        if let Some(t) = self.accepting.take() {
            let _ = t.join();
        }
    }
}

impl FakeServer {
    /// A server on a free port that answers request n (0-based) with `script(n, request)`.
    pub fn start(script: impl Fn(usize, &Seen) -> Reply + Send + Sync + 'static) -> FakeServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let script: Arc<Script> = Arc::new(script);
        let log = seen.clone();
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let stopped = stop.clone();
        let accepting = std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                if stopped.load(std::sync::atomic::Ordering::SeqCst) {
                    break;
                }
                let (log, script) = (log.clone(), script.clone());
                std::thread::spawn(move || serve(stream, &log, script.as_ref()));
            }
        });
        FakeServer { url, seen, stop, accepting: Some(accepting) }
    }

    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

fn serve(stream: TcpStream, log: &Mutex<Vec<Seen>>, script: &Script) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() {
        return;
    }
    let path = line.split_whitespace().nth(1).unwrap_or_default().to_string();
    let (mut length, mut authorization) = (0, None);
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).unwrap_or(0) == 0 || h.trim().is_empty() {
            break;
        }
        let (name, value) = h.split_once(':').unwrap_or((&h, ""));
        match name.trim().to_ascii_lowercase().as_str() {
            "content-length" => length = value.trim().parse().unwrap_or(0),
            "authorization" => authorization = Some(value.trim().to_string()),
            _ => {}
        }
    }
    let mut body = vec![0; length];
    let _ = reader.read_exact(&mut body);
    let seen = Seen { path, authorization, body: serde_json::from_slice(&body).unwrap_or(Value::Null) };
    let n = {
        let mut log = log.lock().unwrap();
        log.push(seen.clone());
        log.len() - 1
    };
    let reply = script(n, &seen);
    std::thread::sleep(reply.delay);
    let mut out = stream;
    let mut head = format!(
        "HTTP/1.1 {} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        reply.status,
        reply.body.len()
    );
    for (k, v) in &reply.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    let _ = out.write_all(format!("{head}\r\n{}", reply.body).as_bytes());
}

/// A chat completion whose message is `content`.
pub fn answer(content: &str) -> Reply {
    let body = json!({
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 10}
    });
    Reply { status: 200, headers: vec![], body: body.to_string(), delay: Duration::ZERO }
}

pub fn status(code: u16, body: &str) -> Reply {
    Reply { status: code, headers: vec![], body: body.to_string(), delay: Duration::ZERO }
}
