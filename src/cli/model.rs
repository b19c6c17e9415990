//! The embedding model each command's documents get. The decision is the
//! core's ([`crate::eval::model_choice`]); the command line knows who named
//! a model (`--model`, the config file) and remembers the choice for the
//! reports that only see the config (`stats --json`'s `model_settings`).

use crate::config::ChunkConfig;
use crate::eval::model_choice::{choose_for, ModelChoice, ModelSource};
use std::sync::Mutex;

static LAST: Mutex<Option<ModelChoice>> = Mutex::new(None);

/// Who names the model in these flags: `--model`, else the config file's
/// `semantic.model` (what [`super::args::ChunkFlags::resolve_named`] says, for a
/// command whose flags hold lists to try and so do not resolve whole).
pub(crate) fn named_by(flags: &super::args::ChunkFlags) -> crate::error::Result<Option<ModelSource>> {
    if flags.model.is_some() {
        return Ok(Some(ModelSource::Flag));
    }
    match &flags.config {
        Some(path) => Ok(ChunkConfig::load(path)?.semantic.model.is_some().then_some(ModelSource::Config)),
        None => Ok(None),
    }
}

/// The model for `texts` under `config`, written into it and remembered.
pub(crate) fn choose(config: &mut ChunkConfig, named: Option<ModelSource>, texts: &[&str]) -> ModelChoice {
    let choice = choose_for(config, named, texts);
    *LAST.lock().unwrap_or_else(|p| p.into_inner()) = Some(choice.clone());
    choice
}

/// The last choice this process made, if it is the model `config` names.
#[cfg(feature = "embed")]
pub(crate) fn chosen_for(config: &ChunkConfig) -> Option<ModelChoice> {
    let last = LAST.lock().unwrap_or_else(|p| p.into_inner()).clone()?;
    (last.model == config.semantic.model.as_deref().unwrap_or(crate::config::DEFAULT_MODEL)).then_some(last)
}
