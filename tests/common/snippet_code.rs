//! What an exported snippet runs, for tests/export_injection.rs and the
//! fuzz target fuzz/fuzz_targets/export_snippet.rs (which includes this file
//! by path: std and chunktui only).
//!
//! A config value may reach a snippet in a string literal or in a comment.
//! [`code_of`] keeps the lines that are code, with string literals blanked,
//! so a snippet made with a hostile value must have exactly the code of the
//! same config with a [`plain`] value: anything more is injected.
#![allow(dead_code)]

use chunktui::cli::export_splitter::Library;
use chunktui::config::{ChunkConfig, StrategyKind, Unit};

/// Which free-text field of a config a value goes to.
#[derive(Debug, Clone, Copy)]
pub enum Field {
    Model,
    Tokenizer,
    Separators,
    Separator,
    Language,
}

pub const FIELDS: [Field; 5] = [Field::Model, Field::Tokenizer, Field::Separators, Field::Separator, Field::Language];

/// A config of `kind` with `value` in `field`.
pub fn config(kind: StrategyKind, field: Field, value: &str) -> ChunkConfig {
    let mut c = ChunkConfig { strategy: kind, size: 300, overlap: 30, ..ChunkConfig::default() };
    match field {
        Field::Model => c.semantic.model = Some(value.to_string()),
        Field::Tokenizer => {
            c.unit = Unit::Tokens;
            c.tokenizer = format!("hf:{value}.json");
        }
        Field::Separators => {
            c.recursive.separators = Some(vec![value.to_string(), "\n".into()]);
            c.langchain.separators = Some(vec![value.to_string(), "\n".into()]);
        }
        Field::Separator => c.langchain.separator = value.to_string(),
        Field::Language => c.code.language = Some(value.to_string()),
    }
    c.normalize();
    c
}

/// The same value with every character made plain: the same code paths
/// (length, emptiness), nothing that could break a line.
pub fn plain(value: &str) -> String {
    value.chars().map(|_| 'x').collect()
}

/// What must not change when a value in `field` turns hostile. A model,
/// tokenizer or language value never changes the snippet's code paths, so
/// its code must be the same line for line; a separator's characters do
/// (a line break becomes a pattern where a letter is a delimiter), so there
/// the same number of code lines and the same statements (lines at column
/// 0) must hold.
pub fn shape_of(snippet: &str, lib: Library, field: Field) -> Vec<String> {
    let code = code_of(snippet, lib);
    match field {
        Field::Model | Field::Tokenizer | Field::Language => code,
        Field::Separators | Field::Separator => {
            let mut shape = vec![format!("{} code lines", code.len())];
            shape.extend(code.into_iter().filter(|l| !l.starts_with(char::is_whitespace)));
            shape
        }
    }
}

/// The code of a snippet: the lines that are not comments, each string
/// literal (`"..."`, `r"..."`, with backslash escapes) blanked to `""`.
pub fn code_of(snippet: &str, lib: Library) -> Vec<String> {
    let comment = if lib == Library::TextSplitter { "//" } else { "#" };
    snippet.lines().filter(|l| !l.trim_start().starts_with(comment)).map(blank_literals).collect()
}

fn blank_literals(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '"' {
            // A raw prefix (`r"`) is a choice of spelling, not code.
            let before_r = out.strip_suffix('r').map(|b| b.chars().last());
            if let Some(before) = before_r {
                if before.is_none_or(|b| !b.is_alphanumeric() && b != '_') {
                    out.pop();
                }
            }
        }
        out.push(c);
        if c == '"' {
            // Skip to the closing quote; a backslash escapes the next character.
            while let Some(c) = chars.next() {
                match c {
                    '\\' => {
                        chars.next();
                    }
                    '"' => break,
                    _ => {}
                }
            }
            out.push('"');
        }
    }
    out
}
