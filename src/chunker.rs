//! [`Chunker`]: what the CLI, the workbench and library users call. It builds
//! the strategy a config names (through the strategy table) and supplies
//! the embedding model when that strategy needs one: the one attached with
//! [`Chunker::with_embedder`], else — in builds with the `embed` feature —
//! the model the config names (`semantic.model`, default: the model `chunktui
//! setup` installs), loaded once per process.
//!
//! This is the one place where the model-free core (`strategy/`, `config`)
//! meets the ONNX layer (`embed/`).

use crate::chunk::Chunk;
use crate::config::ChunkConfig;
use crate::document::Document;
use crate::embedding::{Control, Embedder};
use crate::error::Result;
use crate::extract::Structure;
use crate::strategy::Configured;
use std::sync::Arc;

/// A configured chunker. Cheap to clone and share between threads. Its
/// normalised, validated `config` and its `sizer` are those of the
/// [`Configured`] strategy it derefs to.
#[derive(Clone)]
pub struct Chunker {
    configured: Configured,
    embedder: Option<Arc<dyn Embedder>>,
}

impl std::ops::Deref for Chunker {
    type Target = Configured;
    fn deref(&self) -> &Configured {
        &self.configured
    }
}

impl std::fmt::Debug for Chunker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Chunker").field("config", &self.config).finish_non_exhaustive()
    }
}

impl Chunker {
    /// Validate the config and load what it names (tokenizer, separators).
    /// A model is loaded on first use, not here.
    pub fn new(config: &ChunkConfig) -> Result<Self> {
        config.validate()?;
        Ok(Chunker { configured: Configured::new(config)?, embedder: None })
    }

    /// Use this embedding model for the model strategies.
    pub fn with_embedder(mut self, embedder: Arc<dyn Embedder>) -> Self {
        self.embedder = Some(embedder);
        self
    }

    /// The model attached with [`Chunker::with_embedder`], if any.
    pub fn embedder(&self) -> Option<&Arc<dyn Embedder>> {
        self.embedder.as_ref()
    }

    /// The model the strategy uses: the attached one, else the one the
    /// config names. Errors say what to install or pass.
    pub fn model(&self) -> Result<Arc<dyn Embedder>> {
        match &self.embedder {
            Some(e) => Ok(e.clone()),
            None => load_model(&self.config),
        }
    }

    /// Cut `text` into chunks.
    pub fn chunk(&self, text: &str) -> Result<Vec<Chunk>> {
        self.chunk_with(text, Control::none())
    }

    /// [`Chunker::chunk`] with progress and cancellation of model work.
    pub fn chunk_with(&self, text: &str, control: Control<'_>) -> Result<Vec<Chunk>> {
        self.chunk_structured(text, None, control)
    }

    /// Cut a loaded document: what the CLI and the workbench call. For HTML
    /// and PDF the chunks are ranges of the extracted text (`doc.text`), the
    /// strategy sees its structure, and every chunk gets `meta.element` /
    /// `meta.pages` from it, whatever the strategy.
    pub fn chunk_document(&self, doc: &Document) -> Result<Vec<Chunk>> {
        self.chunk_structured_at(&doc.text, doc.structure.as_deref(), doc.path.as_deref(), Control::none())
    }

    /// The config's hand-made boundaries for `doc` (those naming no file, and
    /// those naming its file) found in its text: what applies and what is
    /// stale (see [`crate::edits`]).
    pub fn resolve_edits(&self, doc: &Document) -> crate::edits::Resolved {
        self.configured.resolve_edits(&doc.text, doc.path.as_deref())
    }

    /// [`Chunker::chunk_document`], each chunk handed to `emit` in order as it
    /// is cut. Where the strategy can ([`Chunker::streams`]), no chunk list is
    /// held: statistics over a large file cut small stay small.
    pub fn chunk_document_each(&self, doc: &Document, emit: &mut dyn FnMut(Chunk)) -> Result<()> {
        let structure = doc.structure.as_deref();
        if !self.configured.cuts_each() {
            let path = doc.path.as_deref();
            self.chunk_structured_at(&doc.text, structure, path, Control::none())?.into_iter().for_each(emit);
            return Ok(());
        }
        let model = if self.config.strategy.needs_model() { Some(self.model()?) } else { None };
        self.configured.chunk_each_in(&doc.text, structure, model.as_deref(), Control::none(), emit)
    }

    /// Whether [`Chunker::chunk_document_each`] cuts without holding the
    /// chunk list, chunks coming in text order.
    pub fn streams(&self) -> bool {
        self.configured.streams()
    }

    /// Whether [`Chunker::chunk_document_each`] cuts without holding the
    /// chunk list, chunks perhaps out of text order.
    pub fn holds_no_list(&self) -> bool {
        self.configured.holds_no_list()
    }

    /// [`Chunker::chunk_document`] of a text and its structure (None: plain text).
    pub fn chunk_structured(
        &self,
        text: &str,
        structure: Option<&Structure>,
        control: Control<'_>,
    ) -> Result<Vec<Chunk>> {
        self.chunk_structured_at(text, structure, None, control)
    }

    /// [`Chunker::chunk_structured`] of the file at `path` (for edits that
    /// name their file).
    pub fn chunk_structured_at(
        &self,
        text: &str,
        structure: Option<&Structure>,
        path: Option<&std::path::Path>,
        control: Control<'_>,
    ) -> Result<Vec<Chunk>> {
        let model = if self.config.strategy.needs_model() { Some(self.model()?) } else { None };
        let chunks = self.configured.chunk_in_file(text, structure, path, model.as_deref(), control)?;
        let chunks = crate::contextual::attach(chunks, text, &self.configured)?;
        enrich(chunks, text, &self.config, control)
    }

    /// The chunks' byte ranges, appended to `out` flat: start0, end0,
    /// start1, end1... The same ranges as [`Chunker::chunk`], without a
    /// [`Chunk`] per chunk where the config allows (no edits, embed text,
    /// enrichment or model); `fast` then cuts at memory speed. Reuse `out`
    /// across documents to allocate nothing per document.
    ///
    /// ```
    /// use chunktui::config::StrategyKind;
    /// use chunktui::{ChunkConfig, Chunker};
    /// let config = ChunkConfig {
    ///     strategy: StrategyKind::Fast,
    ///     unit: chunktui::size::Unit::Bytes,
    ///     size: 8,
    ///     overlap: 0,
    ///     ..ChunkConfig::default()
    /// };
    /// let mut out = Vec::new();
    /// Chunker::new(&config).unwrap().offsets_into("One. Two. Three.", &mut out).unwrap();
    /// assert_eq!(out, [0, 4, 4, 9, 9, 16]);
    /// ```
    pub fn offsets_into(&self, text: &str, out: &mut Vec<u64>) -> Result<()> {
        if let Some(done) = self.configured.plain_offsets_into(text, out) {
            return done;
        }
        for c in self.chunk(text)? {
            out.push(c.range.start as u64);
            out.push(c.range.end as u64);
        }
        Ok(())
    }

    /// [`Chunker::offsets_into`] of bytes meant to be UTF-8. `fast` cuts
    /// them as they are, unchecked and uncopied (it never ends a chunk
    /// before a UTF-8 continuation byte); every other strategy checks them
    /// first, and an error names the first byte that is not UTF-8.
    pub fn offsets_of_bytes_into(&self, bytes: &[u8], out: &mut Vec<u64>) -> Result<()> {
        if self.config.strategy == crate::config::StrategyKind::Fast && self.configured.cuts_each() {
            let cutter = crate::strategy::fast::Cutter::new(&self.config.fast)?;
            cutter.cut_bytes(bytes, self.config.size, |s, e| {
                out.push(s as u64);
                out.push(e as u64);
            });
            return Ok(());
        }
        let text = std::str::from_utf8(bytes).map_err(|e| {
            crate::error::Error::input(format!(
                "the text is not valid UTF-8 (byte {}): decode it first, or convert the file to UTF-8",
                e.valid_up_to()
            ))
        })?;
        self.offsets_into(text, out)
    }

    /// The size of `text` in the configured unit.
    pub fn size_of(&self, text: &str) -> usize {
        self.sizer.size(text)
    }
}

/// `--llm-enrich`: the model's description of every chunk.
#[cfg(feature = "llm")]
fn enrich(chunks: Vec<Chunk>, text: &str, config: &ChunkConfig, control: Control<'_>) -> Result<Vec<Chunk>> {
    crate::llm::enrich::attach(chunks, text, config, control)
}

#[cfg(not(feature = "llm"))]
fn enrich(chunks: Vec<Chunk>, _text: &str, config: &ChunkConfig, _control: Control<'_>) -> Result<Vec<Chunk>> {
    if config.llm.enrich.is_empty() {
        return Ok(chunks);
    }
    Err(crate::error::Error::config("--llm-enrich needs the 'llm' feature: rebuild chunktui with it"))
}

#[cfg(feature = "embed")]
fn load_model(config: &ChunkConfig) -> Result<Arc<dyn Embedder>> {
    crate::embed::load_for(config)
}

#[cfg(not(feature = "embed"))]
fn load_model(config: &ChunkConfig) -> Result<Arc<dyn Embedder>> {
    Err(crate::error::Error::Model(format!(
        "strategy '{}' needs an embedding model, and this build of chunktui has no ONNX support: rebuild with \
         the 'embed' feature, or attach your own model with Chunker::with_embedder",
        config.strategy
    )))
}
