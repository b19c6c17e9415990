//! Strategies turn a text into chunk ranges. [`Chunker`] is the one entry
//! point: built once from a validated [`ChunkConfig`] (tokenizer loaded,
//! separators compiled), then applied to any number of texts.

pub mod fixed;
pub mod langchain;
pub mod markdown;
pub mod recursive;
pub mod sentence;

use crate::chunk::Chunk;
use crate::config::{ChunkConfig, StrategyKind};
use crate::error::{Error, Result};
use crate::size::{SizeIndex, Sizer};
use std::ops::Range;

/// A configured chunker. Cheap to share between threads.
#[derive(Clone)]
pub struct Chunker {
    pub config: ChunkConfig,
    pub sizer: Sizer,
    recursive: Option<recursive::Separators>,
    #[cfg(feature = "embed")]
    embedder: Option<std::sync::Arc<dyn crate::embed::Embedder>>,
}

impl std::fmt::Debug for Chunker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Chunker").field("config", &self.config).finish_non_exhaustive()
    }
}

impl Chunker {
    /// Validate the config and load what it names (tokenizer, separators).
    pub fn new(config: &ChunkConfig) -> Result<Self> {
        // Before anything copies or compiles a separator list.
        check_separator_limits(config)?;
        let mut config = config.clone();
        config.normalize();
        let config = &config;
        config.validate()?;
        let sizer = Sizer::for_unit(config.unit, &config.tokenizer)?;
        let recursive = match config.strategy {
            StrategyKind::Recursive | StrategyKind::Markdown => {
                Some(recursive::Separators::from_options(&config.recursive, config.strategy)?)
            }
            _ => None,
        };
        Ok(Chunker {
            config: config.clone(),
            sizer,
            recursive,
            #[cfg(feature = "embed")]
            embedder: None,
        })
    }

    /// Attach the embedding model the model strategies use.
    #[cfg(feature = "embed")]
    pub fn with_embedder(mut self, embedder: std::sync::Arc<dyn crate::embed::Embedder>) -> Self {
        self.embedder = Some(embedder);
        self
    }

    #[cfg(feature = "embed")]
    pub fn embedder(&self) -> Option<&std::sync::Arc<dyn crate::embed::Embedder>> {
        self.embedder.as_ref()
    }

    /// Cut `text` into chunks.
    pub fn chunk(&self, text: &str) -> Result<Vec<Chunk>> {
        let cfg = &self.config;
        // Built only for our own strategies: LangChain measures pieces its own
        // way and the model strategies index what they need.
        let index = || self.sizer.index(text);
        let (ranges, index) = match cfg.strategy {
            StrategyKind::LangchainCharacter
            | StrategyKind::LangchainRecursive
            | StrategyKind::LangchainToken
            | StrategyKind::LangchainMarkdownHeader => return langchain::chunk(text, cfg, &self.sizer),
            StrategyKind::Markdown => return Ok(markdown::chunk(text, &index()?, self.separators(), cfg)),
            StrategyKind::Fixed => {
                let index = index()?;
                (fixed::chunk(text, &index, cfg.unit, cfg.size, cfg.overlap), index)
            }
            StrategyKind::Recursive => {
                let index = index()?;
                (recursive::chunk(text, &index, self.separators(), cfg.size, cfg.overlap, 0..text.len()), index)
            }
            StrategyKind::Sentence => {
                let index = index()?;
                (sentence::chunk(text, &index, cfg), index)
            }
            StrategyKind::Document => {
                // The whole file, byte for byte (nothing at all for blank text).
                let whole = if text.trim().is_empty() { Vec::new() } else { std::iter::once(0..text.len()).collect() };
                (whole, index()?)
            }
            kind => return self.chunk_with_model(text, kind),
        };
        Ok(ranges_to_chunks(ranges, &index))
    }

    fn separators(&self) -> &recursive::Separators {
        self.recursive.as_ref().expect("recursive separators are compiled in Chunker::new")
    }

    #[cfg(feature = "embed")]
    fn chunk_with_model(&self, text: &str, kind: StrategyKind) -> Result<Vec<Chunk>> {
        crate::embed::strategies::chunk(self, text, kind)
    }

    #[cfg(not(feature = "embed"))]
    fn chunk_with_model(&self, _text: &str, kind: StrategyKind) -> Result<Vec<Chunk>> {
        Err(crate::error::Error::Model(format!(
            "strategy '{kind}' needs an embedding model, and this build of chunktui has no model support \
             (rebuild with the 'embed' feature)"
        )))
    }

    /// The size of a byte range of `text` in the configured unit.
    pub fn size_of(&self, text: &str) -> usize {
        self.sizer.size(text)
    }
}

/// Most separators a config may list (`recursive.separators`,
/// `langchain.separators`): each one is compiled and searched for.
pub const MAX_SEPARATORS: usize = 1000;
/// Most bytes all separators of a config may hold together.
pub const MAX_SEPARATOR_BYTES: usize = 64 * 1024;

/// Refuse separator lists too long or too big to compile and search with
/// bounded memory. Called by [`Chunker::new`] before anything copies or
/// compiles them (`ChunkConfig::validate` may call it too, so that `config
/// check` reports the same).
pub(crate) fn check_separator_limits(config: &ChunkConfig) -> Result<()> {
    let lists = [
        ("recursive.separators (--separators)", config.recursive.separators.as_deref().unwrap_or_default()),
        ("langchain.separators (--separators)", config.langchain.separators.as_deref().unwrap_or_default()),
        ("langchain.separator (--separator)", std::slice::from_ref(&config.langchain.separator)),
    ];
    for (name, list) in lists {
        if list.len() > MAX_SEPARATORS {
            return Err(Error::config(format!(
                "{name} lists {} separators; at most {MAX_SEPARATORS} are allowed: keep the ones that matter \
                 (or join literal alternatives into one regex)",
                list.len()
            )));
        }
        let bytes: usize = list.iter().map(String::len).sum();
        if bytes > MAX_SEPARATOR_BYTES {
            return Err(Error::config(format!(
                "{name} holds {bytes} bytes of separators; at most {MAX_SEPARATOR_BYTES} are allowed: use fewer or \
                 shorter separators"
            )));
        }
    }
    Ok(())
}

/// Compiled size allowed to one separator regex (the `regex` crate's
/// `size_limit` and lazy-DFA cache; fancy-regex's delegates)...
const REGEX_SIZE_ONE: usize = 1 << 20;
/// ...and to all the separator regexes of one chunker together: with many
/// regexes each gets `REGEX_SIZE_TOTAL / count`.
pub const REGEX_SIZE_TOTAL: usize = 32 << 20;

/// The compiled-size limit of each of `count` separator regexes.
pub(crate) fn regex_size_limit(count: usize) -> usize {
    REGEX_SIZE_ONE.min(REGEX_SIZE_TOTAL / count.max(1))
}

/// The message for a separator regex over its compiled-size limit.
pub(crate) fn regex_too_big(raw: &str, limit: usize, count: usize) -> Error {
    let with = if count > 1 { format!(" with {count} regex separators") } else { String::new() };
    Error::config(format!(
        "separator regex '{raw}' is too big once compiled (limit {} KiB{with}): simplify it (fewer alternatives, \
         smaller repetition counts like {{1000}}) or list fewer separators",
        limit >> 10
    ))
}

/// A queue that hands out its contents as one slice: the open chunk of a
/// packer, the window of LangChain's merge.
pub(crate) struct Window<T> {
    items: Vec<T>,
    head: usize,
}

impl<T> Window<T> {
    pub fn new() -> Self {
        Window { items: Vec::new(), head: 0 }
    }
    pub fn len(&self) -> usize {
        self.items.len() - self.head
    }
    pub fn as_slice(&self) -> &[T] {
        &self.items[self.head..]
    }
    pub fn push(&mut self, item: T) {
        self.items.push(item);
    }
    /// Forget the first `n` items (at most all of them).
    pub fn drop_front(&mut self, n: usize) {
        self.head = (self.head + n).min(self.items.len());
        // Free what was dropped once it is most of the vector.
        if self.head >= 64 && self.head * 2 >= self.items.len() {
            self.items.drain(..self.head);
            self.head = 0;
        }
    }
    pub fn clear(&mut self) {
        self.items.clear();
        self.head = 0;
    }
}

/// Attach sizes to ranges.
pub fn ranges_to_chunks(ranges: Vec<Range<usize>>, index: &SizeIndex<'_>) -> Vec<Chunk> {
    ranges
        .into_iter()
        .map(|r| {
            let size = index.size(r.clone());
            Chunk::new(r, size)
        })
        .collect()
}
