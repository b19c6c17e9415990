//! `chunktui eval PATH --generate N --out FILE.csv`: questions about the
//! user's own documents, written by an LLM, each with an exact reference
//! (see [`crate::eval::generate`]).

use super::args::EvalCmd;
use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// What a folder's documents are: the files eval finds by corpus_id.
const DOCUMENT_EXTENSIONS: [&str; 7] = ["md", "txt", "markdown", "rst", "html", "htm", "pdf"];

#[cfg(feature = "llm")]
pub fn run(cmd: &EvalCmd, n: usize) -> Result<()> {
    use super::commands::load_input;
    use crate::eval::generate::{generate, to_csv, Mode, Options};
    let out =
        cmd.out.as_deref().ok_or_else(|| Error::config("--generate needs --out FILE.csv: where the questions go"))?;
    let mode = Mode::parse(&cmd.generate_mode)?;
    let config = cmd.flags.resolve()?;
    let client = crate::llm::Client::new(&config.llm)?;
    let mut ids = Vec::new();
    let mut texts = Vec::new();
    for path in documents(&cmd.path)? {
        let doc = load_input(&path, cmd.flags.lossy)?;
        ids.push(path.file_stem().map_or_else(String::new, |s| s.to_string_lossy().into_owned()));
        texts.push(doc.text);
    }
    // Before any request: the output must not replace a document.
    crate::io::check_output(out)?;
    let docs: Vec<(String, &str)> = ids.into_iter().zip(texts.iter().map(String::as_str)).collect();
    let bar = super::eval::progress_bar(n, "writing questions {bar:30} {pos}/{len} · {eta} left");
    let options = Options { n, seed: cmd.seed, mode, concurrency: config.llm.concurrency };
    let generated = generate(&client, &docs, &options, &|done, _| bar.set_position(done.min(n) as u64))?;
    bar.finish_and_clear();
    if generated.questions.is_empty() {
        return Err(Error::Llm(format!(
            "the model gave no usable question in {} answers (each was empty, a copy of its passage, a repeat, or \
             quoted text not in the document): try --generate-mode passage, or a larger model",
            generated.asked
        )));
    }
    crate::io::write_atomic(out, &to_csv(&generated.questions)?)?;
    let short = if generated.questions.len() < n { " (fewer than asked: the passages ran out)" } else { "" };
    eprintln!(
        "chunktui: wrote {} questions to {}{short}; {} answers asked, {} rejected. Evaluate with:\n  chunktui eval {} \
         --queries {}",
        generated.questions.len(),
        crate::error::shown_path(out),
        generated.asked,
        generated.rejected,
        crate::error::shown_path(&cmd.path),
        crate::error::shown_path(out),
    );
    Ok(())
}

#[cfg(not(feature = "llm"))]
pub fn run(_cmd: &EvalCmd, _n: usize) -> Result<()> {
    Err(Error::config("--generate needs the 'llm' feature: rebuild chunktui with it"))
}

/// The document itself, or the documents directly in a folder (by name).
pub(super) fn documents(path: &Path) -> Result<Vec<PathBuf>> {
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let entries = std::fs::read_dir(path).map_err(|e| Error::io(path, &e))?;
    let mut found: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .filter(|p| {
            p.extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| DOCUMENT_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
        })
        .collect();
    found.sort();
    if found.is_empty() {
        return Err(Error::input(format!(
            "{} holds no document ({}): give a folder of documents, or one file",
            crate::error::shown_path(path),
            DOCUMENT_EXTENSIONS.join(", ")
        )));
    }
    Ok(found)
}
