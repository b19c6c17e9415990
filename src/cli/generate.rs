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
    use super::prepare::load_input;
    use crate::eval::generate::{generate_with, to_csv, Mode, Options};
    let out =
        cmd.out.as_deref().ok_or_else(|| Error::config("--generate needs --out FILE.csv: where the questions go"))?;
    let mode = Mode::parse(&cmd.generate_mode)?;
    let (mut config, named) = cmd.flags.resolve_named()?;
    if let Some(a) = cmd.generate_attempts {
        config.generate.attempts = a;
    }
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
    let rules = rules(&config, named.is_some())?;
    let docs: Vec<(String, &str)> = ids.into_iter().zip(texts.iter().map(String::as_str)).collect();
    let bar = super::progress::progress_bar(n, "writing questions {bar:30} {pos}/{len} · {eta} left");
    let options = Options { n, seed: cmd.seed, mode, concurrency: config.llm.concurrency };
    let generated = generate_with(&client, &docs, &options, &rules, &|done, _| bar.set_position(done.min(n) as u64))?;
    bar.finish_and_clear();
    eprintln!("{}", counts(&generated, &config.generate));
    if generated.questions.is_empty() {
        return Err(Error::Llm(format!(
            "the model gave no usable question in {} answers. {}.",
            generated.asked,
            advice(&generated, mode, &config.generate)
        )));
    }
    crate::io::write_atomic(out, &to_csv(&generated.questions)?)?;
    let short = if generated.questions.len() < n {
        format!(", fewer than the {n} asked for: {}.\n", shortfall(&generated, mode, &config.generate))
    } else {
        ". ".into()
    };
    eprintln!(
        "chunktui: wrote {} questions to {}{short}Evaluate with:\n  chunktui eval {} --queries {}",
        generated.questions.len(),
        crate::error::shown_path(out),
        crate::error::shown_path(&cmd.path),
        crate::error::shown_path(out),
    );
    Ok(())
}

#[cfg(not(feature = "llm"))]
pub fn run(_cmd: &EvalCmd, _n: usize) -> Result<()> {
    Err(Error::config("--generate needs the 'llm' feature: rebuild chunktui with it"))
}

/// The rules a generated question must pass: the config's `[generate]`
/// settings, and the embedding model of the similarity rules when the user
/// configured one (`named`: `--model` or `semantic.model`; or an `[embed]`
/// endpoint). None is loaded otherwise, not even the default model.
#[cfg(feature = "llm")]
pub(super) fn rules(config: &crate::config::ChunkConfig, named: bool) -> Result<crate::eval::generate::Rules> {
    let embedder = if named || config.embed.is_set() {
        let model = crate::chunker::Chunker::new(config)?.model().map_err(|e| {
            Error::Model(format!(
                "{e} (the questions are checked against their references with the model named; without one only \
                 the word rules apply)"
            ))
        })?;
        Some(model)
    } else {
        None
    };
    Ok(crate::eval::generate::Rules { settings: config.generate.clone(), embedder })
}

/// One line: every answer asked, and what became of it.
#[cfg(feature = "llm")]
pub(super) fn counts(g: &crate::eval::generate::Generated, settings: &crate::config::GenerateOptions) -> String {
    let r = &g.rejected;
    let mut parts = Vec::new();
    if r.template > 0 {
        parts.push(format!("{} templates", r.template));
    }
    if r.language > 0 {
        parts.push(format!("{} in another language than their passage", r.language));
    }
    if r.unshared > 0 {
        parts.push(format!("{} sharing no word with their passage", r.unshared));
    }
    if r.dissimilar > 0 {
        parts.push(format!("{} less similar to their passage than {}", r.dissimilar, settings.min_similarity));
    }
    let why = if parts.is_empty() { String::new() } else { format!(" ({})", parts.join(", ")) };
    let spare = if g.spare > 0 { format!("; {} not looked at (enough were kept)", g.spare) } else { String::new() };
    let similarity = if g.similarity { "" } else { "; similarity not checked (no embedding model named)" };
    format!(
        "chunktui: {} answers asked, {} questions kept; rejected: not found {}, generic {}{why}, duplicates {}, \
         empty or copied {}{spare}",
        g.asked,
        g.questions.len(),
        r.not_found,
        r.generic(),
        r.duplicate,
        r.unusable,
    ) + similarity
}

/// Why fewer questions came back than were asked for, and what to do
/// (a sentence and a piece, to follow "fewer than asked for: ").
#[cfg(feature = "llm")]
pub(super) fn shortfall(
    g: &crate::eval::generate::Generated,
    mode: crate::eval::generate::Mode,
    settings: &crate::config::GenerateOptions,
) -> String {
    use crate::eval::generate::Stop;
    let why = match g.stop {
        Stop::PassagesRanOut => format!("every passage of the documents was asked about ({} answers)", g.asked),
        _ => format!(
            "{} answers asked, the most for {} questions ([generate] attempts = {} per question)",
            g.asked, g.wanted, settings.attempts
        ),
    };
    format!("{why}. {}", advice(g, mode, settings))
}

/// What to do about too few usable questions.
#[cfg(feature = "llm")]
fn advice(
    g: &crate::eval::generate::Generated,
    mode: crate::eval::generate::Mode,
    settings: &crate::config::GenerateOptions,
) -> String {
    use crate::eval::generate::{Mode, Stop};
    let multilingual = if g.rejected.language > 0 {
        "; for questions in the documents' language, one trained on it, such as Qwen2.5 for Chinese"
    } else {
        ""
    };
    let mut todo = vec![format!(
        "a stronger model (--llm-model: models under 1B parameters mostly write generic questions; a 3B or larger \
         instruct model rarely does{multilingual})"
    )];
    todo.push(match mode {
        Mode::Passage => "--generate-mode quote (the model picks the fact it asks about)".into(),
        Mode::Quote => "--generate-mode passage (chunktui picks the passage; easier for small models)".into(),
    });
    if g.stop == Stop::PassagesRanOut {
        todo.push("more documents".into());
    } else {
        todo.push(format!("more attempts (--generate-attempts {})", (settings.attempts * 2).min(100)));
    }
    format!("Try {}", todo.join(", or "))
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
