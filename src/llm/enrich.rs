//! Enrichment for any strategy (`--llm-enrich title,summary,keywords,context`):
//! after the cut, the model describes each chunk. What it writes goes in
//! `meta.fields` (`title`, `summary`, `keywords`, `context`); `context`, a
//! sentence that places the chunk in the whole document, is also put before
//! the chunk's `embed_text` (contextual retrieval). The chunks themselves
//! (their ranges, their text) never change.

use super::{Client, Request};
use crate::chunk::{Chunk, EmbedText};
use crate::config::ChunkConfig;
use crate::embedding::Control;
use crate::error::{Error, Result};
use crate::size::{Sizer, Unit};

pub use super::{enrich_problems as problems, ENRICH_FIELDS as FIELDS};

/// How much of the document's start the model reads for `context`, and of
/// the chunk, in characters.
const HEAD_CHARS: usize = 1500;
const CHUNK_CHARS: usize = 3000;

/// Describe every chunk of `text` with the fields `config.llm.enrich` asks for.
pub fn attach(mut chunks: Vec<Chunk>, text: &str, config: &ChunkConfig, control: Control<'_>) -> Result<Vec<Chunk>> {
    let fields: Vec<&str> = FIELDS.iter().copied().filter(|f| config.llm.enrich.iter().any(|e| e == f)).collect();
    if fields.is_empty() || chunks.is_empty() {
        return Ok(chunks);
    }
    if let Some(p) = problems(&config.llm.enrich).into_iter().next() {
        return Err(Error::config(p));
    }
    let client = Client::new(&config.llm)?;
    let head: String = text.chars().take(HEAD_CHARS).collect();
    let schema = schema(&fields);
    let system = format!(
        "You describe one chunk of a document for a search index, in the chunk's language. Give only these fields: {}. \
         title: a few words naming the chunk's topic. summary: one sentence. keywords: 3 to 6 words or short \
         phrases. context: one sentence that places the chunk within the whole document (its subject, the part it \
         belongs to), to be put before the chunk when it is embedded. Answer with one JSON object.",
        fields.join(", ")
    );
    let answers =
        super::parallel::ask_all(chunks.len(), config.llm.concurrency, control.progress, &|| control.check(), &|i| {
            let c = &chunks[i];
            let body: String = c.text(text).chars().take(CHUNK_CHARS).collect();
            let path = if c.meta.headings.is_empty() { String::new() } else { c.meta.headings.join(" > ") };
            let user = format!("Start of the document:\n{head}\n\nSection: {path}\n\nChunk:\n{body}");
            client.ask(&Request {
                system: &system,
                user: &user,
                schema: Some(&schema),
                max_tokens: config.llm.max_tokens,
            })
        })?;
    let tokens = Sizer::for_unit(Unit::Tokens, &config.tokenizer)?;
    let sizer = Sizer::for_unit(config.unit, &config.tokenizer)?;
    for (chunk, answer) in chunks.iter_mut().zip(answers) {
        let described = read(&answer, &fields);
        if described.len() < fields.len() {
            super::usage::count::fallbacks(1);
        }
        for (name, value) in described {
            if name == "context" {
                let after = chunk.meta.embed.as_ref().map_or_else(|| chunk.text(text).to_string(), |e| e.text.clone());
                let embed = format!("{value}\n\n{after}");
                chunk.meta.embed =
                    Some(EmbedText { size: sizer.size(&embed), tokens: tokens.size(&embed), text: embed });
            }
            chunk.meta.fields.push((name.to_string(), value));
        }
    }
    Ok(chunks)
}

fn schema(fields: &[&str]) -> serde_json::Value {
    let mut props = serde_json::Map::new();
    for &f in fields {
        let t = if f == "keywords" {
            serde_json::json!({"type": "array", "items": {"type": "string"}})
        } else {
            serde_json::json!({"type": "string"})
        };
        props.insert(f.into(), t);
    }
    serde_json::json!({"type": "object", "properties": props, "required": fields})
}

/// The fields of an answer that could be read, cleaned: one line each (no
/// control characters), bounded; keywords joined by ", ".
pub fn read(answer: &str, fields: &[&str]) -> Vec<(&'static str, String)> {
    let Some(v) = super::reply::first_json(answer) else { return Vec::new() };
    let clean = |s: &str, max: usize| -> String {
        let one: String = s.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
        one.split_whitespace().collect::<Vec<_>>().join(" ").chars().take(max).collect()
    };
    let mut out = Vec::new();
    for &name in FIELDS.iter().filter(|f| fields.contains(f)) {
        let value = match (name, v.get(name)) {
            ("keywords", Some(serde_json::Value::Array(words))) => words
                .iter()
                .filter_map(|w| w.as_str())
                .map(|w| clean(w, 40))
                .filter(|w| !w.is_empty())
                .take(8)
                .collect::<Vec<_>>()
                .join(", "),
            (_, Some(serde_json::Value::String(s))) => clean(s, if name == "title" { 120 } else { 400 }),
            _ => String::new(),
        };
        if !value.is_empty() {
            out.push((name, value));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_cleaned_bounded_and_partial_answers_keep_what_they_have() {
        let got = read(
            r#"{"title": "Ownership\nrules", "keywords": ["memory", 3, "borrow\u001b[31m"], "summary": ""}"#,
            &["title", "summary", "keywords"],
        );
        assert_eq!(
            got,
            vec![("title", "Ownership rules".to_string()), ("keywords", "memory, borrow [31m".to_string())]
        );
        assert!(read("no json", &["title"]).is_empty());
        assert_eq!(problems(&["title".into(), "mood".into()]).len(), 1);
    }
}
