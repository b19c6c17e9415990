//! Process-wide counters for the API clients' accounting ([`crate::llm::usage`],
//! [`crate::embed_usage`]): `counters! { name: "doc", ... }` makes a `Usage`
//! snapshot type, `usage()`, `Usage::since`, and a `count` module with one
//! adder per counter.

macro_rules! counters {
    ($($name:ident: $doc:literal,)*) => {
        use serde::Serialize;
        use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

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
        #[allow(dead_code)] // The HTTP counters are unused without the HTTP features.
        pub(crate) mod count {
            use super::*;
            $(pub fn $name(n: u64) { COUNTERS.$name.fetch_add(n, Relaxed); })*
        }
    };
}
