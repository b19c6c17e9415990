//! What the LLM work of this process cost and how it went: requests, tokens,
//! cache hits, and every answer that had to be repaired or replaced. Counted
//! process-wide (the CLI reports it on stderr and in `stats --json`, the
//! workbench in its footer), so a fallback is never silent.

counters! {
    requests: "HTTP requests sent (retries included).",
    prompt_tokens: "Prompt tokens the server reported.",
    completion_tokens: "Completion tokens the server reported.",
    cached: "Answers read from the disk cache (no request).",
    retries: "Requests repeated after a 429, a 5xx, a timeout or a refused connection.",
    repaired: "Answers with invalid numbers (out of range, repeated, out of order) that were repaired.",
    fallbacks: "Answers that could not be used at all: a rule took over (sentence grouping, the sentences as they are) or no rating was read.",
    dropped: "Model text that could not be anchored in the source and was dropped.",
}

impl Usage {
    /// Whether any LLM work happened.
    pub fn is_empty(&self) -> bool {
        *self == Usage::default()
    }

    /// One line for stderr and the footer: `llm: 12 requests, 3400+210 tokens, 5 cached; 2 repaired, 1 fallback`.
    pub fn line(&self) -> String {
        let mut s = format!(
            "llm: {} request{}, {}+{} tokens, {} cached",
            self.requests,
            if self.requests == 1 { "" } else { "s" },
            self.prompt_tokens,
            self.completion_tokens,
            self.cached
        );
        let notes: Vec<String> = [
            (self.retries, "retried"),
            (self.repaired, "repaired"),
            (self.fallbacks, "unusable (a rule took over)"),
            (self.dropped, "dropped (unusable, or not found in the source)"),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{n} {what}"))
        .collect();
        if !notes.is_empty() {
            s.push_str("; ");
            s.push_str(&notes.join(", "));
        }
        s
    }
}
