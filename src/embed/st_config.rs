//! A sentence-transformers model directory read the way sentence-transformers
//! (v5) reads it, so that chunktui embeds a text as `SentenceTransformer(dir)
//! .encode(text)` does. Each setting says where it came from, for `chunktui
//! setup --model DIR`, `stats --json` and the eval report.
//!
//! - Input limit: `--model-max-tokens` (semantic.max_tokens), else
//!   `chunktui-model.json`, else the Transformer module's
//!   `sentence_bert_config.json` `max_seq_length`, else the smaller of
//!   `tokenizer_config.json` `model_max_length` and `config.json`
//!   `max_position_embeddings` (what sentence-transformers does when
//!   max_seq_length is absent), else the position table in the ONNX graph,
//!   else 512. A limit over the position table is an error: the model cannot
//!   take it (sentence-transformers would fail inside the model).
//! - `do_lower_case` (sentence_bert_config.json): texts are lowercased before
//!   tokenizing; texts are always stripped of surrounding whitespace, as
//!   sentence-transformers strips them.
//! - Pooling: the Pooling module named by `modules.json` (its
//!   `config.json`: `pooling_mode_*` flags with sentence-transformers'
//!   defaults, or `pooling_mode`; several modes are concatenated in
//!   sentence-transformers' order), `include_prompt`.
//! - Normalisation: a `Normalize` module in modules.json. chunktui's
//!   vectors are always unit length (every score it computes is a cosine,
//!   which scaling does not change); the setting says what
//!   sentence-transformers would output.
//! - Prefix: `--model-prefix` (semantic.prefix) as `encode(prompt=...)`, else
//!   `chunktui-model.json` `prefix`, else the prompt named by
//!   `config_sentence_transformers.json` `default_prompt_name` (its
//!   `prompts`), else none. A bare export (no modules.json, no
//!   config_sentence_transformers.json) whose directory name holds "e5" gets
//!   e5's `"query: "`: chunktui's guess, labelled as such.
//!
//! A file that is there but is not valid JSON (or holds a setting of the
//! wrong type) is an error naming the file and what to fix, not a silent
//! default.

use crate::error::{Error, Result};
use serde_json::Value;
use std::path::Path;

/// Overrides for what the model directory says (or does not say).
#[derive(Debug, Clone, Default)]
pub struct ModelOptions {
    /// Text put before every input, such as e5's `"query: "`.
    pub prefix: Option<String>,
    /// Largest input in tokens, specials included.
    pub max_tokens: Option<usize>,
    pub pooling: Option<Pooling>,
    /// Texts per batch (default 32).
    pub batch_size: Option<usize>,
    /// Intra-op threads (default: available cores).
    pub threads: Option<usize>,
}

/// One way of turning token vectors into one vector (sentence-transformers'
/// `Pooling` modes, in the order it concatenates them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PoolMode {
    Cls,
    Max,
    Mean,
    MeanSqrtLen,
    WeightedMean,
    LastToken,
}

impl PoolMode {
    /// (name, `pooling_mode_*` key, default when the key is absent).
    const ALL: [(PoolMode, &'static str, &'static str, bool); 6] = [
        (PoolMode::Cls, "cls", "pooling_mode_cls_token", false),
        (PoolMode::Max, "max", "pooling_mode_max_tokens", false),
        (PoolMode::Mean, "mean", "pooling_mode_mean_tokens", true),
        (PoolMode::MeanSqrtLen, "mean_sqrt_len_tokens", "pooling_mode_mean_sqrt_len_tokens", false),
        (PoolMode::WeightedMean, "weightedmean", "pooling_mode_weightedmean_tokens", false),
        (PoolMode::LastToken, "lasttoken", "pooling_mode_lasttoken", false),
    ];

    pub fn name(self) -> &'static str {
        Self::ALL.iter().find(|m| m.0 == self).map_or("mean", |m| m.1)
    }

    pub fn parse(name: &str) -> Option<PoolMode> {
        Self::ALL.iter().find(|m| m.1.eq_ignore_ascii_case(name)).map(|m| m.0)
    }
}

/// The pooling in effect: its modes (concatenated when several) and whether
/// the prompt's tokens count.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Pooling {
    pub modes: Vec<PoolMode>,
    pub include_prompt: bool,
}

impl Pooling {
    pub fn mean() -> Self {
        Pooling { modes: vec![PoolMode::Mean], include_prompt: true }
    }
    pub fn cls() -> Self {
        Pooling { modes: vec![PoolMode::Cls], include_prompt: true }
    }

    /// `mean`, `cls+mean`, `mean, prompt excluded`.
    pub fn label(&self) -> String {
        let modes: Vec<&str> = self.modes.iter().map(|m| m.name()).collect();
        let mut s = modes.join("+");
        if !self.include_prompt {
            s.push_str(", prompt tokens excluded");
        }
        s
    }
}

/// A setting's value and where it came from ("sentence_bert_config.json",
/// "--model-max-tokens", ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting<T> {
    pub value: T,
    pub from: String,
}

fn set<T>(value: T, from: impl Into<String>) -> Setting<T> {
    Setting { value, from: from.into() }
}

/// Everything that decides a model directory's vectors besides its weights.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StConfig {
    /// Largest input in tokens, specials included.
    pub max_tokens: Setting<usize>,
    pub lower_case: Setting<bool>,
    pub pooling: Setting<Pooling>,
    /// Whether sentence-transformers would L2-normalise (chunktui always does).
    pub normalize: Setting<bool>,
    pub prefix: Setting<String>,
    /// Rows of the position table the model can use, when known.
    pub positions: Option<usize>,
    /// `id` of chunktui-model.json.
    pub id: Option<String>,
    /// Things sentence-transformers would do that chunktui does not (a
    /// Dense module, say), or prompts the directory offers but does not apply.
    pub notes: Vec<String>,
}

impl StConfig {
    /// One line per setting: `max input  256 tokens (sentence_bert_config.json)`.
    pub fn lines(&self) -> Vec<String> {
        let prefix = if self.prefix.value.is_empty() {
            "none".to_string()
        } else {
            serde_json::to_string(&self.prefix.value).unwrap_or_default()
        };
        let yes = |b: bool| if b { "yes" } else { "no" };
        let mut out = vec![
            format!("max input  {} tokens ({})", self.max_tokens.value, self.max_tokens.from),
            format!("pooling    {} ({})", self.pooling.value.label(), self.pooling.from),
            format!("prefix     {prefix} ({})", self.prefix.from),
            format!("normalize  {} ({})", yes(self.normalize.value), self.normalize.from),
            format!("lowercase  {} ({})", yes(self.lower_case.value), self.lower_case.from),
        ];
        out.extend(self.notes.iter().map(|n| format!("note       {n}")));
        out
    }

    /// `{"max_tokens": {"value": 256, "from": "..."}, "pooling": ..., ...}`.
    pub fn to_json(&self) -> Value {
        let entry = |value: Value, from: &str| serde_json::json!({ "value": value, "from": from });
        serde_json::json!({
            "max_tokens": entry(self.max_tokens.value.into(), &self.max_tokens.from),
            "pooling": entry(self.pooling.value.label().into(), &self.pooling.from),
            "prefix": entry(self.prefix.value.clone().into(), &self.prefix.from),
            "normalize": entry(self.normalize.value.into(), &self.normalize.from),
            "lowercase": entry(self.lower_case.value.into(), &self.lower_case.from),
            "notes": self.notes,
        })
    }

    /// A text as sentence-transformers hands it to the tokenizer: prefix
    /// put before it, stripped, lowercased when the model says so.
    pub fn prepare(&self, text: &str) -> String {
        let joined =
            if self.prefix.value.is_empty() { text.to_string() } else { format!("{}{text}", self.prefix.value) };
        let stripped = joined.trim();
        if self.lower_case.value {
            stripped.to_lowercase()
        } else {
            stripped.to_string()
        }
    }
}

/// A JSON file of the directory: `None` when it is not there; an error
/// naming it when it is there but unreadable or not JSON.
fn json(dir: &Path, rel: &str) -> Result<Option<Value>> {
    let path = dir.join(rel);
    if !path.exists() {
        return Ok(None);
    }
    let cap = crate::input::Cap::settings("model settings file")?;
    let text = crate::input::read_text_capped(&path, &cap)?;
    serde_json::from_str(&text).map(Some).map_err(|e| {
        Error::Model(format!(
            "{} is not valid JSON ({e}): fix the file (it is the model's sentence-transformers settings) \
             or remove it to use the defaults",
            path.display()
        ))
    })
}

fn bad_value(dir: &Path, rel: &str, key: &str, want: &str) -> Error {
    Error::Model(format!("{}: \"{key}\" must be {want}: fix that value in the file", dir.join(rel).display()))
}

/// `key` of an object as a whole number; absent or null is `None`.
fn whole(v: &Value, dir: &Path, rel: &str, key: &str) -> Result<Option<usize>> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(x) => match x.as_u64() {
            Some(n) => Ok(Some(usize::try_from(n).unwrap_or(usize::MAX))),
            // tokenizer_config.json writes "no limit" as a huge float (1e30).
            None if x.as_f64().is_some_and(|f| f >= 1e18) => Ok(Some(usize::MAX)),
            None => Err(bad_value(dir, rel, key, "a whole number")),
        },
    }
}

fn flag(v: &Value, dir: &Path, rel: &str, key: &str) -> Result<Option<bool>> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(bad_value(dir, rel, key, "true or false")),
    }
}

fn string(v: &Value, dir: &Path, rel: &str, key: &str) -> Result<Option<String>> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(bad_value(dir, rel, key, "a string")),
    }
}

/// `rel` under a module's folder (`""` is the directory itself).
fn join(folder: &str, file: &str) -> String {
    let folder = folder.trim_matches('/');
    if folder.is_empty() {
        file.to_string()
    } else {
        format!("{folder}/{file}")
    }
}

/// A module of modules.json: (short type such as `Pooling`, folder).
struct Module {
    kind: String,
    path: String,
}

fn modules(dir: &Path) -> Result<Option<Vec<Module>>> {
    let Some(v) = json(dir, "modules.json")? else { return Ok(None) };
    let list = v.as_array().ok_or_else(|| bad_value(dir, "modules.json", "(the whole file)", "a list of modules"))?;
    let mut out = Vec::new();
    for m in list {
        let kind = string(m, dir, "modules.json", "type")?.unwrap_or_default();
        let kind = kind.rsplit('.').next().unwrap_or_default().to_string();
        let path = string(m, dir, "modules.json", "path")?.unwrap_or_default();
        out.push(Module { kind, path });
    }
    Ok(Some(out))
}

/// Read `dir` as sentence-transformers would, with `opts` (the user's flags)
/// over it. `model_file` is the ONNX graph, whose position table bounds the
/// input.
pub fn read(dir: &Path, model_file: &Path, opts: &ModelOptions) -> Result<StConfig> {
    let own = json(dir, "chunktui-model.json")?;
    let mods = modules(dir)?;
    let st_model = json(dir, "config_sentence_transformers.json")?;
    let hf = json(dir, "config.json")?;
    let mut notes = Vec::new();

    // The Transformer module's folder holds sentence_bert_config.json.
    let tf_path = mods
        .as_ref()
        .and_then(|m| m.iter().find(|m| m.kind == "Transformer").map(|m| m.path.clone()))
        .unwrap_or_default();
    let mut sbert: Option<(Value, String)> = None;
    // sentence-transformers' older exports name the file after the architecture.
    for name in [
        "sentence_bert_config.json",
        "sentence_roberta_config.json",
        "sentence_distilbert_config.json",
        "sentence_camembert_config.json",
        "sentence_albert_config.json",
        "sentence_xlm-roberta_config.json",
        "sentence_xlnet_config.json",
    ] {
        let rel = join(&tf_path, name);
        if let Some(v) = json(dir, &rel)? {
            sbert = Some((v, rel));
            break;
        }
    }

    // The position table: the graph's, else config.json's.
    let hf_positions = match &hf {
        Some(v) => whole(v, dir, "config.json", "max_position_embeddings")?,
        None => None,
    };
    let (positions, positions_from) = match super::graph::graph_positions(model_file) {
        Some(rows) => (Some(usable_positions(rows)), "its position table in the ONNX graph"),
        None => (hf_positions.map(usable_positions), "config.json max_position_embeddings"),
    };
    let over = |n: usize, what: &str, fix: &str| -> Result<()> {
        match positions {
            Some(real) if n > real => Err(Error::Model(format!(
                "{what} is {n} tokens, more than the model takes ({real}, {positions_from}): {fix} to at most {real}"
            ))),
            _ => Ok(()),
        }
    };

    let max_tokens = if let Some(n) = opts.max_tokens {
        over(n, "--model-max-tokens (semantic.max_tokens)", "set --model-max-tokens, or leave it out,")?;
        set(n, "--model-max-tokens / semantic.max_tokens")
    } else if let Some(n) =
        own.as_ref().map(|v| whole(v, dir, "chunktui-model.json", "max_seq_length")).transpose()?.flatten()
    {
        let file = dir.join("chunktui-model.json").display().to_string();
        over(n, &format!("max_seq_length in {file}"), "set it")?;
        set(n, "chunktui-model.json")
    } else if let Some(n) = sbert.as_ref().map(|(v, rel)| whole(v, dir, rel, "max_seq_length")).transpose()?.flatten() {
        let rel = &sbert.as_ref().expect("read above").1;
        let file = dir.join(rel).display().to_string();
        over(
            n,
            &format!("max_seq_length in {file}"),
            &format!("set max_seq_length in {file} (or --model-max-tokens)"),
        )?;
        set(n, rel.as_str())
    } else {
        // sentence-transformers: min(tokenizer model_max_length, config max_position_embeddings).
        let tok_max = match json(dir, &join(&tf_path, "tokenizer_config.json"))? {
            Some(v) => whole(&v, dir, "tokenizer_config.json", "model_max_length")?,
            None => None,
        };
        match (tok_max.filter(|&n| n < usize::MAX), hf_positions) {
            (Some(t), Some(p)) if t <= p => {
                set(t.min(positions.unwrap_or(t)), "tokenizer_config.json model_max_length")
            }
            (_, Some(p)) => set(p.min(positions.unwrap_or(p)), "config.json max_position_embeddings"),
            (Some(t), None) => set(t.min(positions.unwrap_or(t)), "tokenizer_config.json model_max_length"),
            (None, None) => match positions {
                Some(p) => set(p, positions_from),
                None => set(512, "default: the directory says nothing about it"),
            },
        }
    };
    let max_tokens = Setting { value: max_tokens.value.max(crate::config::MIN_MODEL_TOKENS), ..max_tokens };

    let lower_case = match &sbert {
        Some((v, rel)) => match flag(v, dir, rel, "do_lower_case")? {
            Some(b) => set(b, rel.as_str()),
            None => set(false, format!("default: {rel} does not set do_lower_case")),
        },
        None => set(false, "default: no sentence_bert_config.json"),
    };

    let pooling = if let Some(p) = &opts.pooling {
        set(p.clone(), "chunktui option")
    } else if let Some(name) =
        own.as_ref().map(|v| string(v, dir, "chunktui-model.json", "pooling")).transpose()?.flatten()
    {
        let mode = PoolMode::parse(&name)
            .ok_or_else(|| bad_value(dir, "chunktui-model.json", "pooling", "mean, cls, max or lasttoken"))?;
        set(Pooling { modes: vec![mode], include_prompt: true }, "chunktui-model.json")
    } else {
        let rel = match &mods {
            Some(m) => m.iter().find(|m| m.kind == "Pooling").map(|m| join(&m.path, "config.json")),
            // No modules.json: the usual place, if it is there.
            None => Some("1_Pooling/config.json".to_string()).filter(|r| dir.join(r).is_file()),
        };
        match rel {
            Some(rel) => match json(dir, &rel)? {
                Some(v) => set(pooling_config(&v, dir, &rel)?, rel.as_str()),
                None => set(Pooling::mean(), format!("default: {rel} is missing")),
            },
            None if mods.is_some() => set(Pooling::mean(), "default: modules.json has no Pooling module"),
            None => set(Pooling::mean(), "default: no pooling config"),
        }
    };

    let normalize = match &mods {
        Some(m) if m.iter().any(|m| m.kind == "Normalize") => set(true, "modules.json"),
        Some(_) => set(
            false,
            "modules.json has no Normalize module; chunktui still scales vectors to unit length, \
             which leaves every cosine score unchanged",
        ),
        None => set(true, "chunktui's default: no modules.json"),
    };
    if let Some(m) = &mods {
        for m in m.iter().filter(|m| !["Transformer", "Pooling", "Normalize"].contains(&m.kind.as_str())) {
            notes.push(format!(
                "modules.json lists a {} module ({}) that chunktui does not run: its vectors differ from \
                 sentence-transformers' unless the ONNX graph includes it",
                m.kind,
                if m.path.is_empty() { "." } else { &m.path }
            ));
        }
    }

    // Prompts: sentence-transformers starts from {"query": "", "document": ""}.
    let (prompts, default_name) = match &st_model {
        Some(v) => {
            let rel = "config_sentence_transformers.json";
            let mut prompts: Vec<(String, String)> = Vec::new();
            match v.get("prompts") {
                None | Some(Value::Null) => {}
                Some(Value::Object(map)) => {
                    for (k, p) in map {
                        let p = p.as_str().ok_or_else(|| bad_value(dir, rel, "prompts", "names to strings"))?;
                        prompts.push((k.clone(), p.to_string()));
                    }
                }
                Some(_) => return Err(bad_value(dir, rel, "prompts", "an object of names to strings")),
            }
            (prompts, string(v, dir, rel, "default_prompt_name")?)
        }
        None => (Vec::new(), None),
    };
    let prefix = if let Some(p) = &opts.prefix {
        set(p.clone(), "--model-prefix / semantic.prefix")
    } else if let Some(p) = own.as_ref().map(|v| string(v, dir, "chunktui-model.json", "prefix")).transpose()?.flatten()
    {
        set(p, "chunktui-model.json")
    } else if let Some(name) = default_name {
        let found = prompts.iter().find(|(k, _)| *k == name).map(|(_, p)| p.clone());
        let found = found.or_else(|| ["query", "document"].contains(&name.as_str()).then(String::new));
        let p = found.ok_or_else(|| {
            Error::Model(format!(
                "{}: default_prompt_name \"{name}\" is not one of its prompts ({}): fix default_prompt_name or add \
                 the prompt",
                dir.join("config_sentence_transformers.json").display(),
                prompts.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>().join(", ")
            ))
        })?;
        set(p, format!("config_sentence_transformers.json prompt \"{name}\""))
    } else if st_model.is_some() || mods.is_some() {
        let offered: Vec<&str> = prompts.iter().filter(|(_, p)| !p.is_empty()).map(|(k, _)| k.as_str()).collect();
        if !offered.is_empty() {
            notes.push(format!(
                "the model offers prompts ({}) but names no default_prompt_name: none is applied; \
                 --model-prefix TEXT applies one",
                offered.join(", ")
            ));
        }
        set(String::new(), "no default_prompt_name in config_sentence_transformers.json")
    } else {
        let name = dir.canonicalize().ok().and_then(|d| d.file_name().map(|n| n.to_string_lossy().to_lowercase()));
        match name.filter(|n| n.contains("e5")) {
            Some(_) => set("query: ".to_string(), "chunktui's guess: an e5 model (by its directory name)"),
            None => set(String::new(), "default: the directory names no prompt"),
        }
    };

    let id = match &own {
        Some(v) => string(v, dir, "chunktui-model.json", "id")?,
        None => None,
    };
    Ok(StConfig { max_tokens, lower_case, pooling, normalize, prefix, positions, id, notes })
}

/// A Pooling module's config.json, with sentence-transformers' defaults for
/// absent flags (mean on, the rest off, prompt included).
fn pooling_config(v: &Value, dir: &Path, rel: &str) -> Result<Pooling> {
    let include_prompt = flag(v, dir, rel, "include_prompt")?.unwrap_or(true);
    if let Some(name) = string(v, dir, rel, "pooling_mode")? {
        let mode = PoolMode::parse(&name).ok_or_else(|| {
            bad_value(dir, rel, "pooling_mode", "cls, lasttoken, max, mean, mean_sqrt_len_tokens or weightedmean")
        })?;
        return Ok(Pooling { modes: vec![mode], include_prompt });
    }
    let mut modes = Vec::new();
    for (mode, _, key, default) in PoolMode::ALL {
        if flag(v, dir, rel, key)?.unwrap_or(default) {
            modes.push(mode);
        }
    }
    if modes.is_empty() {
        return Err(Error::Model(format!(
            "{}: every pooling_mode_* is false, so there is no sentence vector: set one (e.g. \
             \"pooling_mode_mean_tokens\": true)",
            dir.join(rel).display()
        )));
    }
    Ok(Pooling { modes, include_prompt })
}

/// Positions a model can use: RoBERTa-style tables (2^k + 2 rows, e.g. 514)
/// reserve two rows before the first token.
pub fn usable_positions(rows: usize) -> usize {
    if rows > 4 && (rows - 2).is_power_of_two() {
        rows - 2
    } else {
        rows
    }
}
