//! Which files the inputs name (files, directories walked with .gitignore
//! honoured, globs), and the strategy a file's kind gets by default.

use crate::config::StrategyKind;
use crate::document::DocKind;
use crate::error::{Error, Result};
use std::path::PathBuf;

/// The files named by the inputs, sorted and without repeats.
pub fn expand(inputs: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for input in inputs {
        let shown = input.display().to_string();
        if input.is_dir() {
            let walk = ignore::WalkBuilder::new(input).require_git(false).sort_by_file_path(|a, b| a.cmp(b)).build();
            let before = files.len();
            for entry in walk {
                let entry = entry.map_err(|e| Error::input(format!("{shown}: {e}")))?;
                if entry.file_type().is_some_and(|t| t.is_file()) {
                    files.push(entry.into_path());
                }
            }
            if files.len() == before {
                return Err(Error::input(format!(
                    "{shown} is a directory that holds no files to chunk (hidden and .gitignored files are \
                     skipped): give a file, or a folder of documents"
                )));
            }
        } else if !input.exists() && shown.contains(['*', '?', '[']) {
            let paths = glob::glob(&shown).map_err(|e| Error::input(format!("bad glob '{shown}': {e}")))?;
            let before = files.len();
            files.extend(paths.filter_map(|p| p.ok()).filter(|p| p.is_file()));
            if files.len() == before {
                return Err(Error::input(format!("'{shown}' matches no file")));
            }
        } else if input.exists() {
            files.push(input.clone());
        } else {
            return Err(Error::input(format!("{shown}: no such file or directory")));
        }
    }
    files.sort();
    files.dedup();
    if files.is_empty() {
        return Err(Error::input("the inputs hold no files to chunk"));
    }
    Ok(files)
}

/// Whether `chunk` should take the many-files path for these inputs (and
/// so hand-made boundaries apply to whichever file holds them).
pub fn is_many(inputs: &[PathBuf]) -> bool {
    let many = inputs.len() > 1
        || inputs.first().is_some_and(|p| p.is_dir() || (!p.exists() && p.to_string_lossy().contains('*')));
    crate::edits::set_many_files(many);
    many
}

/// The strategy a file gets when neither `--strategy` nor a config names one.
pub fn strategy_for(kind: DocKind) -> StrategyKind {
    match kind {
        DocKind::Markdown => StrategyKind::Markdown,
        DocKind::Html => StrategyKind::Html,
        DocKind::Code => StrategyKind::Code,
        // A Word file's headings and tables are read as HTML's are.
        DocKind::Docx => StrategyKind::Html,
        DocKind::Json | DocKind::Jsonl => StrategyKind::Json,
        DocKind::Csv | DocKind::Tsv => StrategyKind::Rows,
        DocKind::Text | DocKind::Pdf => StrategyKind::Recursive,
    }
}
