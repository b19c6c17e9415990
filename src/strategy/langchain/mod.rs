//! LangChain-compatible splitters: the same chunks as `langchain-text-splitters`.
//! (Filled in by the parity work; see tests/langchain_parity.rs.)

use crate::chunk::Chunk;
use crate::config::ChunkConfig;
use crate::error::{Error, Result};
use crate::size::Sizer;

pub fn chunk(_text: &str, cfg: &ChunkConfig, _sizer: &Sizer) -> Result<Vec<Chunk>> {
    Err(Error::config(format!("strategy '{}' is not available yet", cfg.strategy)))
}
