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
        Self::start_on("127.0.0.1:0", script)
    }

    /// [`FakeServer::start`] at `addr` (`host:port`): a server back at the
    /// address an earlier one had.
    pub fn start_on(addr: &str, script: impl Fn(usize, &Seen) -> Reply + Send + Sync + 'static) -> FakeServer {
        let listener = TcpListener::bind(addr).unwrap();
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

/// A plausible answer to every request chunktui makes (chunk starts,
/// propositions, the agent's plan, questions, ratings, descriptions, a
/// grid, groups), taken from the prompt itself: for tests that need an
/// endpoint to run commands through, not to script a misbehaviour.
pub fn generic(seen: &Seen) -> Reply {
    let system = seen.body["messages"][0]["content"].as_str().unwrap_or_default();
    let user = seen.body["messages"][1]["content"].as_str().unwrap_or_default();
    // The first numbered line `[n] text` of the prompt.
    let first = user.lines().find_map(|l| {
        let rest = l.strip_prefix('[')?;
        let (n, text) = rest.split_once(']')?;
        Some((n.parse::<usize>().ok()?, text.trim().trim_start_matches(['¶', '#']).trim().to_string()))
    });
    let words = |s: &str, n: usize| s.split_whitespace().take(n).collect::<Vec<_>>().join(" ");
    let content = if system.contains("split a document into chunks") {
        json!({"starts": [first.map_or(1, |f| f.0)]})
    } else if system.starts_with("Restate the passage") {
        let (n, text) = first.unwrap_or((1, String::new()));
        json!({"propositions": [{"text": text, "sentences": [n]}]})
    } else if system.contains("choose how to cut") {
        json!({"choices": [{"section": 1, "strategy": "recursive", "size": 400, "reason": "prose"}]})
    } else if system.contains("write one question") {
        let passage = user.split("Passage:\n").nth(1).unwrap_or(user);
        json!({"question": format!("What does the text say about {}?", words(passage, 6))})
    } else if system.contains("pick one fact") {
        let text = user.split("Text:\n").nth(1).unwrap_or(user);
        let end = text
            .find(['.', '。', '!', '?'])
            .map_or(text.len(), |i| i + text[i..].chars().next().map_or(1, char::len_utf8));
        let sentence = text[..end].trim().to_string();
        json!({"question": format!("What about {}?", words(&sentence, 6)), "excerpt": sentence})
    } else if system.contains("plan a search") {
        json!({"strategies": ["recursive", "sentence"], "sizes": [200, 400], "reason": "prose"})
    } else if system.starts_with("Group these") {
        json!({"groups": [{"members": [first.map_or(1, |f| f.0)], "title": "Topic", "summary": "A topic."}]})
    } else if system.contains("describe one chunk") {
        json!({"title": "Title", "summary": "Summary.", "keywords": ["word"], "context": "Context."})
    } else {
        json!({"score": 2})
    };
    answer(&content.to_string())
}

/// `chunktui ARGS` run in `dir` with its own cache and no LLM endpoint or
/// key from the environment: a test names its fake server itself.
pub fn chunktui_alone(dir: &std::path::Path, args: &[&str]) -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_chunktui"));
    cmd.current_dir(dir)
        .args(args)
        .env("CHUNKTUI_CACHE_DIR", dir.join("cache"))
        .env_remove("CHUNKTUI_LLM_KEY")
        .env_remove("OPENAI_API_KEY")
        .env_remove("CHUNKTUI_LLM_URL")
        .env_remove("CHUNKTUI_LLM_MODEL");
    cmd
}
