//! Which embedding model a document gets: the one the user names, else the
//! one for the document's language. The one place that decides it, for
//! every front end (`chunk`, `stats`, `lint`, `eval`, `sweep`, the workbench).
//!
//! First match wins:
//!
//! 1. `--model` (the command line);
//! 2. `semantic.model` in the config file;
//! 3. `$CHUNKTUI_MODEL_DIR` (it names the default model's directory, so it
//!    is a choice too);
//! 4. the text's language ([`super::language::text_language`]): text that
//!    is not English (mostly Chinese, Japanese, Korean, another script or
//!    another language's function words) gets the multilingual model
//!    ([`MULTILINGUAL_MODEL`]) when `chunktui setup --multilingual` has
//!    installed it; English text, and any text when it is not installed,
//!    gets the default model ([`DEFAULT_MODEL`]).
//!
//! A choice by language is written into the config's `semantic.model`
//! ([`ModelChoice::apply`]), so an exported config names the model that was
//! used and `chunktui chunk --config` gives the same chunks anywhere.

use super::language::{installed, text_language, TextLanguage};
use crate::config::{ChunkConfig, DEFAULT_MODEL, MULTILINGUAL_MODEL};
use std::path::PathBuf;

/// Who chose the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelSource {
    /// `--model`.
    Flag,
    /// `semantic.model` in the config file.
    Config,
    /// `$CHUNKTUI_MODEL_DIR`.
    Env,
    /// Nobody named one: the text's language decides.
    Language,
    /// `--embed-url` or `[embed] url`: the user's own endpoint.
    Endpoint,
}

impl ModelSource {
    /// `"flag"`, `"config"`, `"env"`, `"language"`.
    pub fn name(self) -> &'static str {
        match self {
            ModelSource::Flag => "flag",
            ModelSource::Config => "config",
            ModelSource::Env => "env",
            ModelSource::Language => "language",
            ModelSource::Endpoint => "endpoint",
        }
    }
}

/// The model a document gets, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelChoice {
    pub source: ModelSource,
    /// The model as a config names it: [`DEFAULT_MODEL`],
    /// [`MULTILINGUAL_MODEL`] or a directory.
    pub model: String,
    /// The text's language, when it decided.
    pub text: Option<TextLanguage>,
    /// One line: which model and why.
    pub reason: String,
}

impl ModelChoice {
    /// Write a choice by language into `config` (`semantic.model`): the
    /// multilingual model by name; the default model by name for a model
    /// strategy, as [`ChunkConfig::normalize`] writes it. A model the user
    /// named is already there and stays.
    pub fn apply(&self, config: &mut ChunkConfig) {
        if self.source != ModelSource::Language {
            return;
        }
        config.semantic.model =
            if self.model != DEFAULT_MODEL || config.strategy.needs_model() { Some(self.model.clone()) } else { None };
    }

    /// Who named the model, as [`choose_for`] takes it: `--model` or the
    /// config file, else `None`.
    pub fn named(&self) -> Option<ModelSource> {
        matches!(self.source, ModelSource::Flag | ModelSource::Config).then_some(self.source)
    }

    /// Whether the choice by language picked the multilingual model.
    pub fn is_multilingual(&self) -> bool {
        self.source == ModelSource::Language && self.model == MULTILINGUAL_MODEL
    }

    /// `{"model", "chosen_by", "text_language", "reason"}` for JSON reports.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "model": self.model,
            "chosen_by": self.source.name(),
            "text_language": self.text.map(|t| t.code),
            "reason": self.reason,
        })
    }
}

/// The model for `texts` (one document, or a corpus taken together).
/// `named` is the model the user named and where (`--model` or the config
/// file); `None` when neither names one.
pub fn choose_model(named: Option<(ModelSource, &str)>, texts: &[&str]) -> ModelChoice {
    let env = std::env::var_os("CHUNKTUI_MODEL_DIR").filter(|d| !d.is_empty());
    choose_model_with(named, env.map(PathBuf::from), texts, installed())
}

/// [`choose_model`] for a config, written into it ([`ModelChoice::apply`]).
/// `named` says who named the config's `semantic.model` (`--model`, the
/// config file), `None` when nobody did (a model strategy's config then
/// holds [`DEFAULT_MODEL`], which [`ChunkConfig::normalize`] put there).
pub fn choose_for(config: &mut ChunkConfig, named: Option<ModelSource>, texts: &[&str]) -> ModelChoice {
    if config.embed.is_set() {
        let model = config.embed.model_id();
        let reason = format!("{model}: the embeddings endpoint (--embed-url, [embed])");
        return ModelChoice { source: ModelSource::Endpoint, model, text: None, reason };
    }
    let model = config.semantic.model.clone().unwrap_or_else(|| DEFAULT_MODEL.into());
    let choice = choose_model(named.map(|source| (source, model.as_str())), texts);
    choice.apply(config);
    choice
}

/// [`choose_model`] with the environment and the installed model given.
fn choose_model_with(
    named: Option<(ModelSource, &str)>,
    env: Option<PathBuf>,
    texts: &[&str],
    multilingual: Option<PathBuf>,
) -> ModelChoice {
    if let Some((source, model)) = named {
        let by = if source == ModelSource::Flag { "--model" } else { "the config (semantic.model)" };
        return ModelChoice { source, model: model.into(), text: None, reason: format!("{model}: named by {by}") };
    }
    if let Some(dir) = env {
        return ModelChoice {
            source: ModelSource::Env,
            model: DEFAULT_MODEL.into(),
            text: None,
            reason: format!("{}: named by $CHUNKTUI_MODEL_DIR", crate::error::shown_path(&dir)),
        };
    }
    let text = text_language(texts);
    let choice = |model: &str, reason: String| ModelChoice {
        source: ModelSource::Language,
        model: model.into(),
        text: Some(text),
        reason,
    };
    if text.is_english() {
        return choice(DEFAULT_MODEL, format!("{DEFAULT_MODEL}: English text (the default model; --model to choose)"));
    }
    match multilingual {
        Some(_) => choice(
            MULTILINGUAL_MODEL,
            format!(
                "{MULTILINGUAL_MODEL}: the text is mostly {} and the multilingual model is installed (--model to \
                 choose)",
                text.name
            ),
        ),
        None => choice(
            DEFAULT_MODEL,
            format!(
                "{DEFAULT_MODEL}: the text is mostly {}, but only the English default model is installed \
                 (`chunktui setup --multilingual` installs one that reads it)",
                text.name
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::StrategyKind;

    const ZH: &str = "所有权是 Rust 最独特的功能，它让 Rust 无需垃圾回收即可保证内存安全。";
    const EN: &str = "The quick brown fox jumps over the lazy dog.";

    fn pick(named: Option<(ModelSource, &str)>, env: bool, text: &str, installed: bool) -> ModelChoice {
        let env = env.then(|| PathBuf::from("/m"));
        choose_model_with(named, env, &[text], installed.then(|| PathBuf::from("/c/models/me5")))
    }

    #[test]
    fn a_named_model_wins_then_the_environment_then_the_language() {
        let flag = pick(Some((ModelSource::Flag, "/my/model")), true, ZH, true);
        assert_eq!((flag.source, flag.model.as_str()), (ModelSource::Flag, "/my/model"));
        assert!(flag.reason.contains("--model"), "{}", flag.reason);
        let config = pick(Some((ModelSource::Config, DEFAULT_MODEL)), false, ZH, true);
        assert_eq!((config.source, config.model.as_str()), (ModelSource::Config, DEFAULT_MODEL));
        let env = pick(None, true, ZH, true);
        assert_eq!((env.source, env.model.as_str()), (ModelSource::Env, DEFAULT_MODEL));
        assert!(env.reason.contains("CHUNKTUI_MODEL_DIR"));
        let zh = pick(None, false, ZH, true);
        assert_eq!((zh.source, zh.model.as_str()), (ModelSource::Language, MULTILINGUAL_MODEL));
        assert!(zh.reason.contains("mostly Chinese"), "{}", zh.reason);
        assert!(zh.is_multilingual());
        let en = pick(None, false, EN, true);
        assert_eq!((en.source, en.model.as_str()), (ModelSource::Language, DEFAULT_MODEL));
        let missing = pick(None, false, ZH, false);
        assert_eq!(missing.model, DEFAULT_MODEL);
        assert!(missing.reason.contains("chunktui setup --multilingual"), "{}", missing.reason);
    }

    #[test]
    fn applying_pins_a_choice_by_language_only() {
        let mut c = ChunkConfig::default();
        pick(None, false, ZH, true).apply(&mut c);
        assert_eq!(c.semantic.model.as_deref(), Some(MULTILINGUAL_MODEL));
        // Back to English (a corpus decides after each file did): as before.
        pick(None, false, EN, true).apply(&mut c);
        assert_eq!(c.semantic.model, None);
        let mut c = ChunkConfig { strategy: StrategyKind::Semantic, ..Default::default() };
        c.normalize();
        pick(None, false, EN, true).apply(&mut c);
        assert_eq!(c.semantic.model.as_deref(), Some(DEFAULT_MODEL));
        c.semantic.model = Some("/mine".into());
        pick(Some((ModelSource::Flag, "/mine")), false, ZH, true).apply(&mut c);
        assert_eq!(c.semantic.model.as_deref(), Some("/mine"));
    }

    #[cfg(feature = "embed")]
    #[test]
    fn the_name_is_the_folder_setup_installs() {
        assert_eq!(crate::embed::runtime::downloads().multilingual.name, MULTILINGUAL_MODEL);
    }
}
