//! What the LLM work of this process cost and how it went: requests, tokens,
//! cache hits, and every answer that had to be repaired or replaced. Counted
//! process-wide (the CLI reports it on stderr and in `stats --json`, the
//! workbench in its footer), so a fallback is never silent.

use serde::Serialize;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

macro_rules! counters {
    ($($name:ident: $doc:literal,)*) => {
        struct Counters { $($name: AtomicU64,)* }
        static COUNTERS: Counters = Counters { $($name: AtomicU64::new(0),)* };

        /// A snapshot of the counters.
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
        pub struct Usage { $(#[doc = $doc] pub $name: u64,)* }

        /// The counters now.
        pub fn usage() -> Usage {
            Usage { $($name: COUNTERS.$name.load(Relaxed),)* }
        }

        impl Usage {
            /// What happened between `earlier` and `self`.
            pub fn since(&self, earlier: &Usage) -> Usage {
                Usage { $($name: self.$name.saturating_sub(earlier.$name),)* }
            }
        }

        /// Add to the counters.
        #[allow(dead_code)] // The HTTP counters are unused without the `llm` feature.
        pub(crate) mod count {
            use super::*;
            $(pub fn $name(n: u64) { COUNTERS.$name.fetch_add(n, Relaxed); })*
        }
    };
}

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
