//! llama.cpp's own OpenAI-compatible HTTP server (the prebuilt xllamacpp
//! wheel, started by tests/python/llm_server.py), for the tests that say
//! LLM (tests/llm_server.rs) and embeddings API (tests/embed_api.rs).
//! scripts/setup-llm.sh installs its venv and prints CHUNKTUI_LLM_PYTHON.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The server venv's python, from CHUNKTUI_LLM_PYTHON (never skipped:
/// without it the test fails and says what to run).
pub fn python() -> PathBuf {
    let python = std::env::var_os("CHUNKTUI_LLM_PYTHON").map(PathBuf::from).unwrap_or_else(|| {
        panic!(
            "CHUNKTUI_LLM_PYTHON is not set: run `bash scripts/test.sh`, or `eval \"$(bash scripts/setup-llm.sh)\"` \
             (installs llama.cpp's server from the PyPI wheel xllamacpp and prints the variables to export)"
        )
    });
    assert!(python.is_file(), "CHUNKTUI_LLM_PYTHON={} is not a file: run scripts/setup-llm.sh", python.display());
    python
}

/// Whether the server on `port` answers `GET /health` with 200.
fn healthy(port: u16) -> bool {
    use std::io::{Read, Write};
    let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", port)) else { return false };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let mut status = [0u8; 12];
    stream.write_all(b"GET /health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n").is_ok()
        && stream.read_exact(&mut status).is_ok()
        && status.ends_with(b" 200")
}

pub struct LlamaServer {
    child: Child,
    /// The API base, `http://127.0.0.1:PORT/v1`.
    pub url: String,
}

impl LlamaServer {
    /// The server for `gguf` on a free port with llama-server's `args`
    /// (`--alias`, `-c`, `--embedding`, ...), its log in `log` (a pipe nobody
    /// reads would fill with llama.cpp's loading messages and stall it).
    pub fn start(gguf: &Path, args: &[&str], log: &Path) -> LlamaServer {
        let python = python();
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let launcher = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/llm_server.py");
        let child = Command::new(&python)
            .arg(&launcher)
            .arg("-m")
            .arg(gguf)
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .args(args)
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(log).unwrap())
            .spawn()
            .unwrap_or_else(|e| panic!("start {} {}: {e}", python.display(), launcher.display()));
        let mut server = LlamaServer { child, url: format!("http://127.0.0.1:{port}/v1") };
        let started = Instant::now();
        // llama.cpp's server listens at once and answers 503 while it loads
        // the model: ready is /health answering 200.
        while !healthy(port) {
            if let Ok(Some(status)) = server.child.try_wait() {
                let err = std::fs::read_to_string(log).unwrap_or_default();
                let tail = err.char_indices().map(|(i, _)| i).find(|&i| i + 2000 >= err.len()).unwrap_or(0);
                panic!("the llama.cpp server exited ({status}): {}", &err[tail..]);
            }
            assert!(started.elapsed() < Duration::from_secs(120), "the llama.cpp server was not ready within 120 s");
            std::thread::sleep(Duration::from_millis(200));
        }
        server
    }

    pub fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for LlamaServer {
    fn drop(&mut self) {
        self.stop();
    }
}
