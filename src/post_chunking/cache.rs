//! The chunk cache of post-chunking: a document's chunks kept on disk under
//! `<cache>/chunks/<config key>/<2 hex>/<document key>.json`, keyed by the
//! document's bytes and the settings that cut it (and chunktui's version,
//! since a new release may cut differently). A second run cuts nothing; an
//! edited document or a changed setting misses and is cut again. A cache
//! that cannot be read or written costs a re-cut, never a wrong chunk: a
//! file whose ranges do not fit the document is ignored.

use crate::chunk::{Chunk, ChunkMeta};
use crate::config::ChunkConfig;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use xxhash_rust::xxh3::xxh3_128;

/// Where chunks are kept, or nowhere (`--chunk-cache off`).
#[derive(Debug, Clone, Default)]
pub struct ChunkCache {
    dir: Option<PathBuf>,
}

/// One chunk as stored: its byte range, size and metadata (when any).
#[derive(Serialize, Deserialize)]
struct Stored {
    start: usize,
    end: usize,
    size: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    meta: Option<ChunkMeta>,
}

impl ChunkCache {
    /// The cache in chunktui's cache folder (`None` when the system has none).
    pub fn open() -> Self {
        ChunkCache { dir: crate::io::cache_dir().map(|d| d.join("chunks")) }
    }

    /// A cache in `dir`.
    pub fn at(dir: PathBuf) -> Self {
        ChunkCache { dir: Some(dir) }
    }

    /// No cache: every document is cut when first asked for.
    pub fn off() -> Self {
        ChunkCache { dir: None }
    }

    pub fn dir(&self) -> Option<&std::path::Path> {
        self.dir.as_deref()
    }

    /// The key of a config: the settings that cut (as JSON) and chunktui's
    /// version. The embedding model is left out for a strategy that never
    /// calls it: choosing another one (by the documents' language, or
    /// because one was installed since) must not make every document miss.
    pub fn config_key(config: &ChunkConfig) -> String {
        let mut cuts_by = config.clone();
        if !cuts_by.strategy.needs_model() {
            cuts_by.semantic.model = None;
            cuts_by.embed = Default::default();
        }
        let settings = serde_json::to_string(&cuts_by).expect("a config serialises");
        hex(xxh3_128(format!("{}\n{settings}", env!("CARGO_PKG_VERSION")).as_bytes()))
    }

    /// The key of a document's text.
    pub fn text_key(text: &str) -> String {
        hex(xxh3_128(text.as_bytes()))
    }

    fn path(&self, config_key: &str, text_key: &str) -> Option<PathBuf> {
        Some(self.dir.as_ref()?.join(config_key).join(&text_key[..2]).join(format!("{text_key}.json")))
    }

    /// The chunks of `text` under `config_key`, when kept and whole.
    pub fn get(&self, config_key: &str, text: &str) -> Option<Vec<Chunk>> {
        let bytes = std::fs::read(self.path(config_key, &Self::text_key(text))?).ok()?;
        let stored: Vec<Stored> = serde_json::from_slice(&bytes).ok()?;
        let fits = |s: &Stored| {
            s.start <= s.end && s.end <= text.len() && text.is_char_boundary(s.start) && text.is_char_boundary(s.end)
        };
        if !stored.iter().all(fits) {
            return None;
        }
        Some(
            stored
                .into_iter()
                .map(|s| Chunk { range: s.start..s.end, size: s.size, meta: s.meta.unwrap_or_default().into() })
                .collect(),
        )
    }

    /// Keep the chunks of `text`. Errors are for the caller to ignore or
    /// report: a cache that cannot be written costs a re-cut next time.
    pub fn put(&self, config_key: &str, text: &str, chunks: &[Chunk]) -> crate::error::Result<()> {
        let Some(path) = self.path(config_key, &Self::text_key(text)) else { return Ok(()) };
        let stored: Vec<Stored> = chunks
            .iter()
            .map(|c| Stored {
                start: c.range.start,
                end: c.range.end,
                size: c.size,
                meta: (!c.meta.is_empty()).then(|| c.meta.clone().into_inner()),
            })
            .collect();
        let json = serde_json::to_vec(&stored).expect("chunks serialise");
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| crate::error::Error::io_write(dir, &e))?;
        }
        crate::io::write_atomic(&path, &json)
    }
}

fn hex(v: u128) -> String {
    format!("{v:032x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_come_back_and_a_changed_text_or_config_misses() {
        let dir = tempfile::tempdir().unwrap();
        let cache = ChunkCache::at(dir.path().to_path_buf());
        let config = ChunkConfig::default();
        let key = ChunkCache::config_key(&config);
        let text = "one two three. four five six.";
        let chunks = vec![Chunk::new(0..14, 3), Chunk::new(15..text.len(), 3)];
        assert!(cache.get(&key, text).is_none());
        cache.put(&key, text, &chunks).unwrap();
        assert_eq!(cache.get(&key, text).unwrap(), chunks);
        assert!(cache.get(&key, "one two three. four five sixty.").is_none());
        let mut other = config.clone();
        other.size += 1;
        assert!(cache.get(&ChunkCache::config_key(&other), text).is_none());
        // Ranges that do not fit the text are not trusted.
        let short = &text[..10];
        cache.put(&key, short, &chunks).unwrap();
        assert!(cache.get(&key, short).is_none());
        assert!(ChunkCache::off().get(&key, text).is_none());
    }

    #[test]
    fn the_model_counts_in_the_key_only_for_a_strategy_that_embeds() {
        let mut a = ChunkConfig::default();
        let mut b = a.clone();
        b.semantic.model = Some("multilingual-e5-small".into());
        assert_eq!(ChunkCache::config_key(&a), ChunkCache::config_key(&b));
        a.strategy = crate::config::StrategyKind::Semantic;
        b.strategy = crate::config::StrategyKind::Semantic;
        assert_ne!(ChunkCache::config_key(&a), ChunkCache::config_key(&b));
    }
}
