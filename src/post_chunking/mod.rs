//! Post-chunking: cut only what a question retrieves. Pre-chunking cuts and
//! indexes every document before any question; post-chunking first ranks
//! whole documents ([`documents`]), then cuts only the top few, at question
//! time, keeping the chunks ([`cache`]) so a document is cut once however
//! often it is asked about, and ranks their chunks for the question. Since
//! the cut happens after the question is known, it can use it: [`focus`]
//! grows windows around the best-matching sentences instead of taking the
//! config's chunks.
//!
//! [`PostChunker`] is the whole pipeline as a call: documents in, a question
//! in, the best chunks out as byte ranges of their documents. [`evaluate`]
//! scores it as `chunktui eval --post-chunking` shows it, against
//! pre-chunking with the same config.

pub mod cache;
pub mod documents;
pub mod evaluate;
pub mod focus;
pub mod lexical;

use crate::chunk::Chunk;
use crate::chunker::Chunker;
use crate::config::ChunkConfig;
use crate::embedding::{Control, Embedder};
use crate::error::{Error, Result};
use crate::eval::retrieve::{Dense, Hybrid, Retriever, RetrieverKind};
use crate::extract::Structure;
pub use cache::ChunkCache;
use documents::DocumentIndex;
use lexical::{Collection, CollectionLexical};
use std::ops::Range;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// One document of the collection.
#[derive(Debug, Clone, Default)]
pub struct Source {
    /// What the caller calls it (a file name, a record id).
    pub id: String,
    pub text: String,
    /// HTML, PDF, Word and record data: the structure its text came with.
    pub structure: Option<Arc<Structure>>,
    /// The file it was read from, for hand-made boundaries that name one.
    pub path: Option<PathBuf>,
    /// Its own settings (a file kind's defaults); `None`: the collection's.
    pub config: Option<ChunkConfig>,
}

impl Source {
    pub fn new(id: impl Into<String>, text: impl Into<String>) -> Self {
        Source { id: id.into(), text: text.into(), ..Source::default() }
    }
}

/// How a [`PostChunker`] retrieves.
#[derive(Debug, Clone)]
pub struct Options {
    /// Documents cut per question.
    pub documents: usize,
    /// How documents are ranked.
    pub doc_retriever: RetrieverKind,
    /// How the chunks of those documents are ranked.
    pub retriever: RetrieverKind,
    pub cache: ChunkCache,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            documents: 5,
            doc_retriever: RetrieverKind::Bm25,
            retriever: RetrieverKind::Bm25,
            cache: ChunkCache::open(),
        }
    }
}

/// One retrieved chunk: its document and byte range there.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    pub doc: usize,
    pub range: Range<usize>,
    pub score: f64,
    /// `query`: the config's chunk itself (its size and metadata); `None`
    /// for a query-aware window.
    pub chunk: Option<Chunk>,
}

/// What the questions so far have cost.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct Cost {
    pub documents_total: usize,
    /// Documents cut (not found in the chunk cache).
    pub documents_chunked: usize,
    /// Documents whose chunks came from the chunk cache.
    pub chunk_cache_hits: usize,
    /// Chunk texts embedded to rank them (dense and hybrid).
    pub chunks_embedded: usize,
    /// Sentences embedded for the query-aware cut (dense and hybrid).
    pub sentences_embedded: usize,
    /// Texts embedded to build the document index (dense and hybrid).
    pub document_windows_embedded: usize,
    /// Documents whose chunks could not be written to the chunk cache (they
    /// are cut again next time); [`PostChunker::cache_error`] says why.
    pub chunk_cache_write_errors: usize,
}

/// A document once cut, and what ranking its pieces needed.
#[derive(Default)]
struct Cut {
    chunks: Vec<Chunk>,
    vectors: Mutex<Option<Arc<Vec<Vec<f32>>>>>,
    sentences: Mutex<Option<Sentences>>,
    /// The query-aware cut's candidate windows (they depend on the config only).
    windows: Mutex<Option<Arc<focus::Windows>>>,
    sentence_vectors: Mutex<Option<Arc<Vec<Vec<f32>>>>>,
}

/// Documents in, a question in, the best chunks out. Thread-safe: questions
/// may be asked from several threads at once.
pub struct PostChunker {
    docs: Vec<Source>,
    /// One per distinct config, and which one each document uses.
    chunkers: Vec<(Chunker, String)>,
    uses: Vec<usize>,
    index: DocumentIndex,
    /// The collection's word statistics, for BM25 over chunks and sentences.
    collection: Arc<Collection>,
    model: Option<Arc<dyn Embedder>>,
    options: Options,
    /// Each document's cut, once made: one lock per document, so two
    /// questions retrieving it at once cut (or read) it once, and others
    /// never wait on it.
    cut: Vec<Mutex<Option<Arc<Cut>>>>,
    counts: [AtomicUsize; 5],
    /// The first chunk-cache write that failed.
    cache_error: Mutex<Option<String>>,
}

/// A document's sentences, found once.
type Sentences = Arc<Vec<Range<usize>>>;

const CHUNKED: usize = 0;
const CACHE_HITS: usize = 1;
const CHUNKS_EMBEDDED: usize = 2;
const SENTENCES_EMBEDDED: usize = 3;
const CACHE_WRITE_ERRORS: usize = 4;

impl PostChunker {
    /// Index the documents (BM25 or embedded whole; nothing is cut yet).
    /// `config` cuts every document that brings none of its own.
    pub fn new(docs: Vec<Source>, config: &ChunkConfig, options: Options, control: Control<'_>) -> Result<Self> {
        if docs.is_empty() {
            return Err(Error::input("post-chunking needs at least one document"));
        }
        if options.documents == 0 {
            return Err(Error::config("0 documents per question cuts nothing: retrieve at least 1 (5 is usual)"));
        }
        let mut chunkers: Vec<(Chunker, String)> = Vec::new();
        let mut uses = Vec::with_capacity(docs.len());
        for d in &docs {
            let c = d.config.as_ref().unwrap_or(config);
            let key = ChunkCache::config_key(c);
            let at = match chunkers.iter().position(|(_, k)| *k == key) {
                Some(i) => i,
                None => {
                    chunkers.push((Chunker::new(c)?, key));
                    chunkers.len() - 1
                }
            };
            uses.push(at);
        }
        let needs_model = options.doc_retriever.needs_model() || options.retriever.needs_model();
        let model = if needs_model {
            let first = &chunkers[0].0;
            Some(
                first
                    .model()
                    .map_err(|e| Error::Model(format!("{e} (--retriever bm25 --doc-retriever bm25 need no model)")))?,
            )
        } else {
            None
        };
        let texts: Vec<&str> = docs.iter().map(|d| d.text.as_str()).collect();
        let (index, collection) = DocumentIndex::new(options.doc_retriever, &texts, model.clone(), control)?;
        let docs_len = docs.len();
        Ok(PostChunker {
            docs,
            chunkers,
            uses,
            index,
            collection,
            model,
            options,
            cut: (0..docs_len).map(|_| Mutex::new(None)).collect(),
            counts: Default::default(),
            cache_error: Mutex::new(None),
        })
    }

    pub fn documents(&self) -> &[Source] {
        &self.docs
    }

    pub fn options(&self) -> &Options {
        &self.options
    }

    /// How documents are represented in the document index, in a line.
    pub fn document_representation(&self) -> &str {
        &self.index.shown
    }

    pub fn cost(&self) -> Cost {
        let n = |i: usize| self.counts[i].load(Ordering::Relaxed);
        Cost {
            documents_total: self.docs.len(),
            documents_chunked: n(CHUNKED),
            chunk_cache_hits: n(CACHE_HITS),
            chunks_embedded: n(CHUNKS_EMBEDDED),
            sentences_embedded: n(SENTENCES_EMBEDDED),
            document_windows_embedded: self.index.embedded,
            chunk_cache_write_errors: n(CACHE_WRITE_ERRORS),
        }
    }

    /// Why the first chunk-cache write failed, if one did.
    pub fn cache_error(&self) -> Option<String> {
        self.cache_error.lock().expect("cache error").clone()
    }

    /// The documents cut so far (or read from the chunk cache), their chunks,
    /// and those chunks' characters: what the questions so far made ready.
    pub fn cut_so_far(&self) -> (usize, usize, usize) {
        let (mut documents, mut chunks, mut chars) = (0, 0, 0);
        for (d, slot) in self.cut.iter().enumerate() {
            if let Some(c) = slot.lock().expect("a document's cut").as_ref() {
                documents += 1;
                chunks += c.chunks.len();
                chars += c.chunks.iter().map(|x| x.text(&self.docs[d].text).chars().count()).sum::<usize>();
            }
        }
        (documents, chunks, chars)
    }

    /// The documents a question retrieves, best first: (index, score).
    pub fn rank_documents(&self, question: &str) -> Result<Vec<(usize, f64)>> {
        self.index.rank(question, self.options.documents)
    }

    /// The config's chunks of document `doc` (cut now, or kept).
    pub fn chunks_of(&self, doc: usize) -> Result<Vec<Chunk>> {
        Ok(self.cut_of(doc)?.chunks.clone())
    }

    /// The best `k` of the config's chunks in the documents `question`
    /// retrieves, best first.
    pub fn query(&self, question: &str, k: usize) -> Result<Vec<Found>> {
        let docs = self.rank_documents(question)?;
        let cuts = docs.iter().map(|&(d, _)| Ok((d, self.cut_of(d)?))).collect::<Result<Vec<_>>>()?;
        let mut owner: Vec<(usize, usize)> = Vec::new();
        let mut texts: Vec<&str> = Vec::new();
        for (d, cut) in &cuts {
            for (i, c) in cut.chunks.iter().enumerate() {
                owner.push((*d, i));
                texts.push(c.text(&self.docs[*d].text));
            }
        }
        let vectors = |cuts: &[(usize, Arc<Cut>)]| self.chunk_vectors(cuts);
        let hits = self.rank_units(question, &texts, &|| vectors(&cuts), k)?;
        Ok(hits
            .into_iter()
            .map(|(unit, score)| {
                let (d, i) = owner[unit];
                let cut = cuts.iter().find(|(x, _)| *x == d).map(|(_, c)| c).expect("a retrieved document");
                Found { doc: d, range: cut.chunks[i].range.clone(), score, chunk: Some(cut.chunks[i].clone()) }
            })
            .collect())
    }

    /// The query-aware cut ([`focus`]): `k` windows of whole sentences,
    /// each within the config's size, placed for `question` in the
    /// documents it retrieves.
    pub fn query_aware(&self, question: &str, k: usize) -> Result<Vec<Found>> {
        let docs = self.rank_documents(question)?;
        let mut all: Vec<(Arc<Cut>, Sentences, Arc<focus::Windows>)> = Vec::new();
        for &(d, _) in &docs {
            let cut = self.cut_of(d)?;
            let sentences = self.sentences_of(d, &cut);
            let windows = self.windows_of(d, &cut, &sentences);
            all.push((cut, sentences, windows));
        }
        let texts: Vec<&str> =
            all.iter().flat_map(|(_, _, w)| w.ranges.iter().map(|r| &self.docs[w.doc].text[r.clone()])).collect();
        // A window's vector: the mean of its sentences' (embedding every window would cost many times more).
        let vectors = || -> Result<Vec<Vec<f32>>> {
            let mut out = Vec::with_capacity(texts.len());
            for (cut, sentences, w) in &all {
                let each = self.sentence_vectors(w.doc, cut, sentences)?;
                out.extend(w.sentences.iter().map(|held| documents::mean(&each[held.clone()], each[0].len())));
            }
            Ok(out)
        };
        let ranked = self.rank_units(question, &texts, &vectors, texts.len())?;
        let windows: Vec<&focus::Windows> = all.iter().map(|(_, _, w)| w.as_ref()).collect();
        Ok(focus::pick(&windows, &ranked, k)
            .into_iter()
            .map(|w| Found { doc: w.doc, range: w.range, score: w.score, chunk: None })
            .collect())
    }

    /// `texts` ranked for `question` by the chunk retriever: (index, score),
    /// best `k`. `vectors` embeds the texts, when the retriever needs them.
    fn rank_units(
        &self,
        question: &str,
        texts: &[&str],
        vectors: &dyn Fn() -> Result<Vec<Vec<f32>>>,
        k: usize,
    ) -> Result<Vec<(usize, f64)>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let lexical = || Box::new(CollectionLexical::new(self.collection.clone(), texts)) as Box<dyn Retriever>;
        let retriever: Box<dyn Retriever> = match (self.options.retriever, &self.model) {
            (RetrieverKind::Bm25, _) | (_, None) => lexical(),
            (kind, Some(model)) => {
                let dense: Box<dyn Retriever> = Box::new(Dense::from_vectors(model.clone(), vectors()?));
                if kind == RetrieverKind::Dense {
                    dense
                } else {
                    Box::new(Hybrid::new(vec![dense, lexical()], texts.len()))
                }
            }
        };
        Ok(retriever.rank(question, k)?.into_iter().map(|h| (h.chunk, h.score)).collect())
    }

    fn cut_of(&self, doc: usize) -> Result<Arc<Cut>> {
        let mut slot = self.cut[doc].lock().expect("a document's cut");
        if let Some(c) = slot.as_ref() {
            return Ok(c.clone());
        }
        let (chunker, key) = &self.chunkers[self.uses[doc]];
        let source = &self.docs[doc];
        let chunks = match self.options.cache.get(key, &source.text) {
            Some(chunks) => {
                self.counts[CACHE_HITS].fetch_add(1, Ordering::Relaxed);
                chunks
            }
            None => {
                let chunks = chunker.chunk_structured_at(
                    &source.text,
                    source.structure.as_deref(),
                    source.path.as_deref(),
                    Control::none(),
                )?;
                self.counts[CHUNKED].fetch_add(1, Ordering::Relaxed);
                // A cache that cannot be written costs a re-cut next time, not this answer.
                if let Err(e) = self.options.cache.put(key, &source.text, &chunks) {
                    self.counts[CACHE_WRITE_ERRORS].fetch_add(1, Ordering::Relaxed);
                    self.cache_error.lock().expect("cache error").get_or_insert_with(|| e.to_string());
                }
                chunks
            }
        };
        let cut = Arc::new(Cut { chunks, ..Cut::default() });
        *slot = Some(cut.clone());
        Ok(cut)
    }

    fn sentences_of(&self, doc: usize, cut: &Cut) -> Sentences {
        let mut slot = cut.sentences.lock().expect("sentences");
        slot.get_or_insert_with(|| Arc::new(crate::segment::sentences(&self.docs[doc].text))).clone()
    }

    fn windows_of(&self, doc: usize, cut: &Cut, sentences: &[Range<usize>]) -> Arc<focus::Windows> {
        let mut slot = cut.windows.lock().expect("windows");
        slot.get_or_insert_with(|| {
            let chunker = &self.chunkers[self.uses[doc]].0;
            let text = &self.docs[doc].text;
            let fits = |r: Range<usize>| chunker.size_of(&text[r]) <= chunker.config.size;
            Arc::new(focus::candidates(doc, text, sentences, &fits))
        })
        .clone()
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let model = self.model.as_ref().ok_or_else(|| Error::Model("no model to embed with".into()))?;
        Ok(model.embed_texts(texts, Control::none())?.vectors)
    }

    /// The vectors of every chunk of these documents, in order (each
    /// document's embedded once).
    fn chunk_vectors(&self, cuts: &[(usize, Arc<Cut>)]) -> Result<Vec<Vec<f32>>> {
        let mut out = Vec::new();
        for (d, cut) in cuts {
            let mut slot = cut.vectors.lock().expect("vectors");
            if slot.is_none() {
                let texts: Vec<&str> = cut.chunks.iter().map(|c| c.text(&self.docs[*d].text)).collect();
                *slot = Some(Arc::new(self.embed(&texts)?));
                self.counts[CHUNKS_EMBEDDED].fetch_add(texts.len(), Ordering::Relaxed);
            }
            out.extend(slot.as_ref().expect("set").iter().cloned());
        }
        Ok(out)
    }

    /// The vectors of a document's sentences (embedded once).
    fn sentence_vectors(&self, doc: usize, cut: &Cut, sentences: &[Range<usize>]) -> Result<Arc<Vec<Vec<f32>>>> {
        let mut slot = cut.sentence_vectors.lock().expect("sentence vectors");
        if let Some(v) = slot.as_ref() {
            return Ok(v.clone());
        }
        let texts: Vec<&str> = sentences.iter().map(|r| &self.docs[doc].text[r.clone()]).collect();
        let v = Arc::new(self.embed(&texts)?);
        self.counts[SENTENCES_EMBEDDED].fetch_add(texts.len(), Ordering::Relaxed);
        *slot = Some(v.clone());
        Ok(v)
    }
}
