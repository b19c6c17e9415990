//! The interactive workbench (placeholder until the workbench work lands).

pub mod bench;

use crate::cli::args::OpenArgs;
use crate::config::ChunkConfig;
use crate::error::{Error, Result};
use std::path::Path;

pub fn run(_file: &Path, _config: ChunkConfig, _open: &OpenArgs, _lossy: bool) -> Result<()> {
    Err(Error::input("the workbench is not available yet"))
}
