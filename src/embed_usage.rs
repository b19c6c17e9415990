//! What the embeddings API work of this process cost and how it went:
//! requests, inputs, tokens, cache hits, retries and time. Counted
//! process-wide, like the LLM's ([`crate::llm::usage`]): the CLI reports it
//! on stderr after every command and in `stats --json`, the workbench in
//! its footer.

use std::sync::Mutex;

counters! {
    requests: "HTTP requests sent (retries included).",
    inputs: "Texts sent to be embedded.",
    tokens: "Input tokens the server reported (`usage.prompt_tokens`).",
    cached: "Texts whose vectors came from the disk cache (nothing sent).",
    retries: "Requests repeated after a 429, a 5xx, a timeout or a refused connection.",
    millis: "Milliseconds spent waiting for the server.",
    over_limit: "Texts longer than the model's input limit (sent whole: the server decides).",
}

/// Things said once per process (a batch size the server made smaller),
/// each under a topic.
static NOTES: Mutex<Vec<(&'static str, String)>> = Mutex::new(Vec::new());

/// Say `note` in the usage line, once per `topic`: a later note on the
/// same topic replaces the earlier (the batch size as it ended up).
pub fn note(topic: &'static str, note: String) {
    let mut notes = NOTES.lock().unwrap_or_else(|e| e.into_inner());
    match notes.iter_mut().find(|(t, _)| *t == topic) {
        Some(slot) => slot.1 = note,
        None => notes.push((topic, note)),
    }
}

/// What [`note`] was told, one per topic, in order.
pub fn notes() -> Vec<String> {
    NOTES.lock().unwrap_or_else(|e| e.into_inner()).iter().map(|(_, n)| n.clone()).collect()
}

impl Usage {
    /// Whether the embeddings API was used (sent or read from its cache).
    pub fn is_empty(&self) -> bool {
        self.requests == 0 && self.cached == 0
    }

    /// One line for stderr and the footer:
    /// `embeddings API: 3 requests, 150 inputs, 4100 tokens, 20 cached, 1.4 s; 1 retried`.
    pub fn line(&self) -> String {
        let mut s = format!(
            "embeddings API: {} request{}, {} input{}, {} tokens, {} cached, {:.1} s",
            self.requests,
            if self.requests == 1 { "" } else { "s" },
            self.inputs,
            if self.inputs == 1 { "" } else { "s" },
            self.tokens,
            self.cached,
            self.millis as f64 / 1000.0
        );
        let mut extra: Vec<String> = Vec::new();
        if self.retries > 0 {
            extra.push(format!("{} retried", self.retries));
        }
        if self.over_limit > 0 {
            extra.push(format!("{} over the model's input limit (sent whole)", self.over_limit));
        }
        extra.extend(notes());
        if !extra.is_empty() {
            s.push_str("; ");
            s.push_str(&extra.join(", "));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_names_what_happened() {
        let u = Usage { requests: 1, inputs: 3, tokens: 40, cached: 2, retries: 1, millis: 1500, over_limit: 0 };
        assert_eq!(u.line(), "embeddings API: 1 request, 3 inputs, 40 tokens, 2 cached, 1.5 s; 1 retried");
        assert!(Usage::default().is_empty());
    }
}
