//! `chunktui export CFG --to LIB`: a self-contained snippet that builds the
//! closest splitter of another library (LangChain, LlamaIndex, chonkie, the
//! Rust `text-splitter` crate) from a chunktui config, as a variable named
//! `splitter`, with what does not carry over stated as comments.
//!
//! [`mapping`] says, for every strategy of the table and every library, how
//! close that library can come: the snippet writers and the strategy table
//! (`chunktui export --table`, kept in docs/export.md) both read it, and a
//! strategy added to the table without a mapping says "none" instead of being
//! forgotten. `exact` is a promise the Python tests keep with the real
//! packages: the snippet's chunks are chunktui's, text for text.

mod chonkie;
mod langchain;
mod literals;
mod llamaindex;
mod snippet;
mod text_splitter;

pub use snippet::{Fidelity, Library};

use crate::config::{ChunkConfig, StrategyKind, Unit};
use snippet::Snippet;
use std::fmt::Write as _;

/// How close `lib` comes to `kind`. Every library's own function answers for
/// the strategies it knows; the rest are `None`.
pub fn mapping(kind: StrategyKind, lib: Library) -> Fidelity {
    match lib {
        Library::Langchain => langchain::mapping(kind),
        Library::Llamaindex => llamaindex::mapping(kind),
        Library::Chonkie => chonkie::mapping(kind),
        Library::TextSplitter => text_splitter::mapping(kind),
    }
}

/// The fidelity of this config's snippet: the strategy's, lowered to close
/// where a setting cannot be reproduced (words are counted differently
/// everywhere but in chunktui).
pub fn fidelity_for(config: &ChunkConfig, lib: Library) -> Fidelity {
    match mapping(config.strategy, lib) {
        Fidelity::Exact if config.unit == Unit::Words => {
            Fidelity::Close("words are counted with a regular expression, not chunktui's Unicode word rules")
        }
        f => f,
    }
}

/// The snippet for `config` (normalised and validated) in `lib`'s language.
pub fn snippet(config: &ChunkConfig, lib: Library) -> String {
    let fidelity = fidelity_for(config, lib);
    let mut s = Snippet::new(lib.lang());
    if !matches!(fidelity, Fidelity::None(_)) {
        match lib {
            Library::Langchain => langchain::write(config, &mut s),
            Library::Llamaindex => llamaindex::write(config, &mut s),
            Library::Chonkie => chonkie::write(config, &mut s),
            Library::TextSplitter => text_splitter::write(config, &mut s),
        }
    }
    s.render(config, lib, &fidelity)
}

/// The strategy × library table (`chunktui export --table`; docs/export.md holds a copy).
pub fn table() -> String {
    let mut out = String::from("| strategy |");
    for lib in Library::ALL {
        let _ = write!(out, " {} |", lib.title());
    }
    out.push_str("\n|---|");
    for _ in Library::ALL {
        out.push_str("---|");
    }
    out.push('\n');
    for &kind in StrategyKind::ALL {
        let _ = write!(out, "| `{kind}` |");
        for lib in Library::ALL {
            let f = mapping(kind, lib);
            let _ = write!(out, " {} |", cell(&f, kind, lib));
        }
        out.push('\n');
    }
    out
}

/// A table cell: the fidelity and, unless none, the class the snippet builds.
fn cell(f: &Fidelity, kind: StrategyKind, lib: Library) -> String {
    if matches!(f, Fidelity::None(_)) {
        return "none".into();
    }
    let mut config = ChunkConfig { strategy: kind, ..ChunkConfig::default() };
    config.normalize();
    let body = snippet(&config, lib);
    match main_class(&body) {
        Some(class) => format!("{} (`{class}`)", f.label()),
        None => f.label().into(),
    }
}

/// The class a snippet builds its `splitter` from (the first name called).
fn main_class(body: &str) -> Option<&str> {
    let line = body.lines().find(|l| l.starts_with("splitter = ") || l.trim_start().starts_with("let splitter = "))?;
    let rhs = line.split_once(" = ")?.1;
    let name = rhs.split(['(', ':', '.']).next()?.trim();
    (!name.is_empty()).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_main_class_is_read_from_the_splitter_line() {
        assert_eq!(main_class("x\nsplitter = Foo(\n  a=1,\n)\n"), Some("Foo"));
        assert_eq!(main_class("    let splitter = TextSplitter::new(c);"), Some("TextSplitter"));
        assert_eq!(main_class("splitter = Foo.from_tiktoken_encoder("), Some("Foo"));
        assert_eq!(main_class("# nothing"), None);
    }
}
