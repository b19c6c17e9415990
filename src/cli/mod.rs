//! The command line: `chunktui FILE` opens the workbench; subcommands run
//! headless for pipelines. Every error is one line on stderr and exit code 2.

pub mod args;
mod commands;
mod corpus;
mod default_size;
mod diff;
mod embed_progress;
mod eval;
pub mod export_splitter;
mod files;
mod flags;
mod frontier;
mod generate;
mod lint;
mod model;
mod output;
mod post_eval;
mod prepare;
mod progress;
mod records;
#[cfg(feature = "embed")]
pub mod setup;
mod sweep;
mod tune;

pub use args::{ChunkFlags, Cli, Command};
pub use commands::run;
pub use prepare::load_input;
