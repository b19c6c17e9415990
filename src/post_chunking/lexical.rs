//! BM25 over the chunks of the retrieved documents with the collection's
//! term statistics. An index built from those chunks alone would weigh a
//! word by how rare it is among five documents, all about the question: the
//! words that brought them back count for little, and the ranking drifts
//! from what the same chunks get in a pre-chunked index. A search engine
//! that post-chunks keeps its collection's statistics; so does this: each
//! word's IDF comes from the number of documents (of all of them) holding
//! it, while term frequency and length come from the chunk, as the `bm25`
//! crate computes them.

use crate::error::Result;
use crate::eval::retrieve::{Hit, Lexical, Retriever, Terms};
use bm25::EmbedderBuilder;
use std::collections::HashMap;
use std::sync::Arc;

/// How many documents of the collection hold each word.
pub struct Collection {
    documents_with: HashMap<u32, u32>,
    documents: f32,
}

impl Collection {
    pub fn new(texts: &[&str]) -> Self {
        Self::from_counts(Lexical::counting(texts).1, texts.len())
    }

    /// From the number of documents holding each word, of `documents`.
    pub fn from_counts(documents_with: HashMap<u32, u32>, documents: usize) -> Self {
        Collection { documents_with, documents: documents as f32 }
    }

    /// BM25's IDF (the `bm25` crate's formula) over the documents.
    fn idf(&self, word: u32) -> f32 {
        let n = self.documents_with.get(&word).copied().unwrap_or(0) as f32;
        (1.0 + (self.documents - n + 0.5) / (n + 0.5)).ln()
    }
}

/// BM25 over some texts with a [`Collection`]'s IDF.
pub struct CollectionLexical {
    collection: Arc<Collection>,
    texts: Vec<String>,
}

impl CollectionLexical {
    pub fn new(collection: Arc<Collection>, texts: &[&str]) -> Self {
        CollectionLexical { collection, texts: texts.iter().map(|t| t.to_string()).collect() }
    }
}

impl Retriever for CollectionLexical {
    fn rank(&self, question: &str, k: usize) -> Result<Vec<Hit>> {
        let texts: Vec<&str> = self.texts.iter().map(String::as_str).collect();
        // Length normalised against these texts' mean length, as the crate fits it.
        let embedder = EmbedderBuilder::<u32, Terms>::with_tokenizer_and_fit_to_corpus(Terms, &texts).build();
        let query = embedder.embed(question);
        let mut hits = Vec::new();
        for (i, text) in texts.iter().enumerate() {
            let mut weights: HashMap<u32, f32> = HashMap::new();
            for t in embedder.embed(text).iter() {
                weights.entry(t.index).or_insert(t.value);
            }
            let score: f32 =
                query.indices().map(|w| self.collection.idf(*w) * weights.get(w).copied().unwrap_or(0.0)).sum();
            if score > 0.0 {
                hits.push(Hit { chunk: i, score: score as f64 });
            }
        }
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.chunk.cmp(&b.chunk)));
        hits.truncate(k);
        Ok(hits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_rare_in_the_collection_outweighs_one_common_there() {
        // "ferry" is in one document of four, "river" in all: among the two
        // texts below a local index would weigh them alike.
        let docs = ["the river ferry", "the river bank", "the river mouth", "the river bed"];
        let collection = Arc::new(Collection::new(&docs));
        let texts = ["river river river here", "a ferry here too"];
        let hits = CollectionLexical::new(collection, &texts).rank("river ferry", 2).unwrap();
        assert_eq!(hits[0].chunk, 1, "{hits:?}");
        assert_eq!(hits.len(), 2);
        // Chinese runs are bigrams, as in the chunk index.
        let zh = ["渡船过河", "河边小路"];
        let c = Arc::new(Collection::new(&zh));
        let hits = CollectionLexical::new(c, &zh).rank("渡船", 2).unwrap();
        assert_eq!(hits.iter().map(|h| h.chunk).collect::<Vec<_>>(), vec![0]);
    }
}
