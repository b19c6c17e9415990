//! A progress bar while a model strategy embeds (at a terminal only): the
//! model the chunker would use, wrapped so that every embedding request
//! moves the bar, whichever strategy asks.

use crate::chunker::Chunker;
use crate::embedding::{Control, Embedder, Embeddings, TokenVectors};
use crate::error::Result;
use std::sync::Arc;

struct WithBar {
    inner: Arc<dyn Embedder>,
    bar: indicatif::ProgressBar,
}

impl Embedder for WithBar {
    fn model_id(&self) -> &str {
        self.inner.model_id()
    }
    fn max_input_tokens(&self) -> Option<usize> {
        self.inner.max_input_tokens()
    }
    fn embed_texts(&self, texts: &[&str], ctl: Control<'_>) -> Result<Embeddings> {
        let progress = |done: usize, total: usize| {
            self.bar.set_length(total as u64);
            self.bar.set_position(done as u64);
            (ctl.progress)(done, total);
        };
        let out = self.inner.embed_texts(texts, Control::new(&progress, ctl.cancel));
        self.bar.finish_and_clear();
        out
    }
    fn token_vectors(&self, text: &str, ctl: Control<'_>) -> Result<TokenVectors> {
        self.inner.token_vectors(text, ctl)
    }
}

/// `chunker` with its model behind a progress bar, when its strategy needs
/// a model and stderr is a terminal; else `chunker` as it was. The model is
/// loaded here, so a missing one is reported before any output.
pub fn with_bar(chunker: Chunker) -> Result<Chunker> {
    use std::io::IsTerminal;
    if !chunker.config.strategy.needs_model() || !std::io::stderr().is_terminal() {
        return Ok(chunker);
    }
    let model = chunker.model()?;
    let bar = indicatif::ProgressBar::new(0);
    if let Ok(style) = indicatif::ProgressStyle::with_template("embedding {bar:30} {pos}/{len} texts {elapsed}") {
        bar.set_style(style);
    }
    Ok(chunker.with_embedder(Arc::new(WithBar { inner: model, bar })))
}
