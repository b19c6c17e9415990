//! The ONNX implementation of [`crate::embedding::Embedder`]: the only part
//! of chunktui that knows about ONNX Runtime and model files. The model
//! strategies themselves live in the core (`strategy/`) and take any
//! embedder; [`crate::chunker::Chunker`] loads this one when a config names a model.
//!
//! - [`OnnxEmbedder`] runs a sentence-transformers ONNX export through ONNX
//!   Runtime; [`CachedEmbedder`] wraps any embedder with an on-disk cache
//!   keyed by (model id, text hash).
//! - [`runtime`]: finds and loads ONNX Runtime's shared library
//!   (`ORT_DYLIB_PATH`, then chunktui's cache dir, then Python site-packages).
//! - [`load_model_for`]: a model directory (or the default model) to a
//!   shared, cached embedder, once per process.

pub mod api;
mod api_reply;
pub mod cache;
mod graph;
pub mod onnx;
pub mod runtime;
pub mod st_config;
pub mod windows;

use crate::config::{DEFAULT_MODEL, MULTILINGUAL_MODEL};
use crate::embedding::Embedder;
use crate::error::{Error, Result};
use std::sync::Arc;

pub use api::ApiEmbedder;
pub use cache::CachedEmbedder;
pub use onnx::{ModelInfo, ModelOptions, OnnxEmbedder};
pub use st_config::StConfig;

type SettingsMap = std::collections::HashMap<String, StConfig>;
static SETTINGS: std::sync::OnceLock<std::sync::Mutex<SettingsMap>> = std::sync::OnceLock::new();

/// Note the settings of a loaded model under its id, for reports that only
/// hold the model's id (eval, sweep).
pub(crate) fn remember_settings(model_id: &str, settings: &StConfig) {
    let map = SETTINGS.get_or_init(Default::default);
    map.lock().unwrap_or_else(|p| p.into_inner()).insert(model_id.to_string(), settings.clone());
}

/// The settings (input limit, pooling, prefix, ...) of a model loaded in
/// this process, by its [`crate::embedding::Embedder::model_id`].
pub fn settings_of(model_id: &str) -> Option<StConfig> {
    SETTINGS.get()?.lock().unwrap_or_else(|p| p.into_inner()).get(model_id).cloned()
}

/// The settings a config's model would be loaded with, read from its
/// directory without loading it (no ONNX Runtime needed).
pub fn describe(semantic: &crate::config::SemanticOptions) -> Result<StConfig> {
    let dir = model_dir(semantic)?;
    let (model_file, _) = onnx::model_files(&dir)?;
    let opts = ModelOptions { prefix: semantic.prefix.clone(), max_tokens: semantic.max_tokens, ..Default::default() };
    st_config::read(&dir, &model_file, &opts)
}

pub use crate::io::cache_dir;

/// Where `chunktui setup` puts the default model.
pub fn default_model_dir() -> Option<std::path::PathBuf> {
    if let Some(d) = std::env::var_os("CHUNKTUI_MODEL_DIR").filter(|d| !d.is_empty()) {
        return Some(d.into());
    }
    cache_dir().map(|d| d.join("models").join(DEFAULT_MODEL))
}

/// Where `chunktui setup --multilingual` puts the multilingual model.
pub fn multilingual_model_dir() -> Option<std::path::PathBuf> {
    cache_dir().map(|d| d.join("models").join(MULTILINGUAL_MODEL))
}

/// The directory a config's `semantic.model` stands for: the default
/// model's for `None` and [`DEFAULT_MODEL`], the multilingual model's in the
/// cache for [`MULTILINGUAL_MODEL`], else the value itself. `None` when
/// the system has no cache directory.
pub fn model_dir_for(model: Option<&str>) -> Option<std::path::PathBuf> {
    match model {
        None | Some(DEFAULT_MODEL) => default_model_dir(),
        Some(MULTILINGUAL_MODEL) => multilingual_model_dir(),
        Some(dir) => Some(dir.into()),
    }
}

/// The model directory a config names (the default model's when none).
fn model_dir(semantic: &crate::config::SemanticOptions) -> Result<std::path::PathBuf> {
    let dir = model_dir_for(semantic.model.as_deref()).ok_or_else(|| {
        Error::Model("no cache directory on this system: pass a model directory with --model DIR".into())
    })?;
    if semantic.model.as_deref() == Some(MULTILINGUAL_MODEL) && !dir.is_dir() {
        return Err(Error::Model(format!(
            "the multilingual model {MULTILINGUAL_MODEL} is not installed at {}: run `chunktui setup \
             --multilingual`, or pass another model with --model DIR",
            crate::error::shown_path(&dir)
        )));
    }
    Ok(dir)
}

/// What [`load_model_for`] would refuse for want of files, found without
/// loading anything: a missing directory, model.onnx or tokenizer.json.
pub fn check_model_files(semantic: &crate::config::SemanticOptions) -> Result<()> {
    onnx::model_files(&model_dir(semantic)?).map(|_| ())
}

/// The embedder a config names: its `[embed]` endpoint when one is set
/// ([`load_api`]), else its ONNX model ([`load_model_for`]).
pub fn load_for(config: &crate::config::ChunkConfig) -> Result<Arc<dyn Embedder>> {
    if config.embed.is_set() {
        load_api(&config.embed, &config.tokenizer)
    } else {
        load_model_for(&config.semantic)
    }
}

/// The embeddings endpoint of `opts` (once per process and settings, then
/// shared), with the disk cache unless `opts.cache` is off. The cache file
/// is named after the model, the base and the dimensions (a hash of
/// them): never the key.
pub fn load_api(opts: &crate::config::EmbedApiOptions, tokenizer: &str) -> Result<Arc<dyn Embedder>> {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static LOADED: OnceLock<Mutex<HashMap<String, Arc<dyn Embedder>>>> = OnceLock::new();
    let key = format!("{}\n{tokenizer}", serde_json::to_string(opts).expect("options serialise"));
    let map = LOADED.get_or_init(Default::default);
    if let Some(e) = map.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return Ok(e.clone());
    }
    let api = ApiEmbedder::new(opts, tokenizer)?;
    let file = opts.cache.then(|| api_cache_file(&opts.model_id())).flatten();
    let cached = CachedEmbedder::in_file(api, file).counting_hits(crate::embed_usage::count::cached);
    let embedder: Arc<dyn Embedder> = Arc::new(cached);
    map.lock().unwrap_or_else(|p| p.into_inner()).insert(key, embedder.clone());
    Ok(embedder)
}

/// `<cache dir>/embeddings/api-<model>-<hash of model@base/dims>.bin`.
pub fn api_cache_file(model_id: &str) -> Option<std::path::PathBuf> {
    use sha2::{Digest, Sha256};
    let hash = Sha256::digest(model_id.as_bytes());
    let hex: String = hash[..8].iter().map(|b| format!("{b:02x}")).collect();
    let model: String = model_id.split('@').next().unwrap_or("").chars().take(40).collect();
    cache_dir().map(|d| d.join("embeddings").join(format!("api-{hex}-{}", cache::file_name(&model))))
}

/// Load (once per process, then shared) the embedder for a model directory,
/// or the default model when `model` is `None`, with the on-disk cache.
/// Errors say what to run when the runtime or the model is missing.
pub fn load_model(model: Option<&str>) -> Result<Arc<dyn Embedder>> {
    let opts = crate::config::SemanticOptions { model: model.map(String::from), ..Default::default() };
    load_model_for(&opts)
}

/// [`load_model`] with the model settings of a config (`semantic.model`,
/// `semantic.prefix`, `semantic.max_tokens`), which override what the model
/// directory says.
pub fn load_model_for(semantic: &crate::config::SemanticOptions) -> Result<Arc<dyn Embedder>> {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    type Key = (std::path::PathBuf, Option<String>, Option<usize>);
    static LOADED: OnceLock<Mutex<HashMap<Key, Arc<dyn Embedder>>>> = OnceLock::new();
    let dir = model_dir(semantic)?;
    let key = (dir.clone(), semantic.prefix.clone(), semantic.max_tokens);
    let map = LOADED.get_or_init(Default::default);
    if let Some(e) = map.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return Ok(e.clone());
    }
    let opts = ModelOptions { prefix: semantic.prefix.clone(), max_tokens: semantic.max_tokens, ..Default::default() };
    let onnx = OnnxEmbedder::load(&dir, None, &opts)?;
    let embedder: Arc<dyn Embedder> = Arc::new(CachedEmbedder::on_disk(onnx));
    map.lock().unwrap_or_else(|p| p.into_inner()).insert(key, embedder.clone());
    Ok(embedder)
}
