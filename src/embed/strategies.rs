//! Semantic, adaptive and late chunking. (Filled in by the embeddings work.)

use crate::chunk::Chunk;
use crate::config::StrategyKind;
use crate::error::{Error, Result};
use crate::strategy::Chunker;

pub fn chunk(_chunker: &Chunker, _text: &str, kind: StrategyKind) -> Result<Vec<Chunk>> {
    Err(Error::Model(format!("strategy '{kind}' is not available yet")))
}
