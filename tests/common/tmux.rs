//! Driving the real binary in a real terminal: a tmux server of the test's
//! own (its socket), its one pane's screen, keys, and waits for a screen.
//! Tests that need tmux fail (never skip) when it is missing.

use regex::Regex;
use std::process::Command;
use std::time::{Duration, Instant};

pub struct Tmux {
    pub socket: String,
}

impl Tmux {
    pub fn run(&self, args: &[&str]) -> String {
        let out = Command::new("tmux").arg("-L").arg(&self.socket).args(args).output().expect("run tmux");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
    pub fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-t", "e2e"])
    }
    /// A tmux format variable of the pane, e.g. `#{alternate_on}`.
    pub fn pane_var(&self, var: &str) -> String {
        self.run(&["display-message", "-p", "-t", "e2e", var]).trim().to_string()
    }
    pub fn keys(&self, keys: &[&str]) {
        for k in keys {
            self.run(&["send-keys", "-t", "e2e", k]);
        }
    }
    /// Poll the screen until `ok` holds; panic with the last screen after 30 s.
    /// The screen once `ok` holds for it and a second capture 50 ms later
    /// is the same: a capture can land in the middle of a frame being
    /// written (the header of the new frame above the panels of the old).
    pub fn wait_for(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        let mut last: Option<String> = None;
        loop {
            let s = self.screen();
            if ok(&s) && last.as_deref() == Some(s.as_str()) {
                return s;
            }
            last = Some(s.clone());
            if start.elapsed() > Duration::from_secs(30) {
                panic!("timed out waiting for {what}; screen:\n{s}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux").args(["-L", &self.socket, "kill-server"]).output();
    }
}

pub fn require_tmux() {
    let ok = Command::new("tmux").arg("-V").output().is_ok_and(|o| o.status.success());
    assert!(
        ok,
        "tmux is not installed: the end-to-end tests need it (apt-get install -y tmux, or run scripts/test.sh)"
    );
}

/// The chunk count in the header, once chunking has settled.
pub fn settled_count(screen: &str) -> Option<usize> {
    let header = screen.lines().next()?;
    if header.contains("counting") || header.contains("embedding") {
        return None;
    }
    Regex::new(r"(\d+) chunks?\b").unwrap().captures(header)?[1].parse().ok()
}
