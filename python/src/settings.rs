//! Keyword arguments to a [`ChunkConfig`]: the keywords are the config
//! file's keys, so they go through the same serde types (a dict -> JSON ->
//! `ChunkConfig`), and every key the file knows, sections included, works
//! without a list kept here. Errors become the Python exceptions a caller
//! expects, carrying chunktui's own one-line message.

use chunktui::config::ChunkConfig;
use chunktui::Error;
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

pyo3::create_exception!(
    chunktui,
    ModelError,
    PyRuntimeError,
    "An embedding model or ONNX Runtime is missing or failed (the semantic, adaptive and late strategies)."
);

/// chunktui's error as the exception a Python caller expects: bad settings,
/// tokenizers and input are `ValueError`, files `OSError`, models `ModelError`.
pub fn to_py(err: Error) -> PyErr {
    match err {
        Error::Config(m) | Error::Input(m) | Error::Tokenizer(m) => PyValueError::new_err(m),
        Error::Io(m) => PyOSError::new_err(m),
        Error::Model(m) => ModelError::new_err(m),
        other => PyRuntimeError::new_err(other.to_string()),
    }
}

/// The config `base` (a loaded file, else the defaults) with `overrides` on
/// top. A section given as a dict (`semantic={"threshold": 90}`) is merged
/// into the base's section key by key; anything else replaces the key.
pub fn build(base: Option<&ChunkConfig>, overrides: Map<String, Value>) -> Result<ChunkConfig, Error> {
    let defaults = ChunkConfig::default();
    let from_file = base.is_some();
    let mut value = serde_json::to_value(base.unwrap_or(&defaults)).expect("a config serialises");
    let Value::Object(merged) = &mut value else { unreachable!("a config serialises to an object") };
    let overrides = into_strategy_section(overrides, merged);
    if let Some(hint) = section_hint(&overrides, merged) {
        return Err(Error::config(hint));
    }
    for (key, given) in &overrides {
        match (merged.get_mut(key), given) {
            (Some(Value::Object(section)), Value::Object(keys)) => {
                section.extend(keys.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
            _ => {
                merged.insert(key.clone(), given.clone());
            }
        }
    }
    let mut config = ChunkConfig::parse(&value.to_string(), true).map_err(|e| name_the_keyword(e, &overrides))?;
    if let (Some(Value::String(unit)), Some(forced)) = (overrides.get("unit"), config.strategy.spec().forces_unit) {
        if unit != forced.name() {
            return Err(Error::config(format!(
                "{} always counts {forced}: drop unit={unit:?} (or use unit=\"{forced}\")",
                config.strategy
            )));
        }
    }
    config.normalize();
    // As on the command line: a size given without an overlap (and without
    // a config file) brings its own.
    let sized = overrides.contains_key("size") || overrides.contains_key("hierarchical");
    if !from_file && sized && !overrides.contains_key("overlap") {
        config.overlap = ChunkConfig::overlap_for_size(config.size);
    }
    Ok(config)
}

/// The config file's sections and each one's keys, from its schema (a
/// serialised config leaves unset optional keys out).
static SECTIONS: LazyLock<BTreeMap<String, BTreeSet<String>>> = LazyLock::new(|| {
    let schema: Value = serde_json::from_str(&chunktui::config::json_schema()).expect("the schema is JSON");
    let keys_of = |def: &Value| -> Option<BTreeSet<String>> {
        let name = def.get("$ref")?.as_str()?.rsplit('/').next()?;
        Some(schema["$defs"][name]["properties"].as_object()?.keys().cloned().collect())
    };
    let top = schema["properties"].as_object().expect("the schema has properties");
    top.iter().filter_map(|(section, def)| Some((section.clone(), keys_of(def)?))).collect()
});

/// A keyword that is not a top-level key but a key of the chosen strategy's
/// own section goes into that section, as chonkie's and LangChain's
/// splitters take them: `Chunker(strategy="fast", delimiters="\n.?")` is
/// `fast={"delimiters": "\n.?"}`, `Chunker(strategy="semantic",
/// threshold=90)` is `semantic={"threshold": 90}`. The section is the one
/// named as the strategy, else its family's (`langchain-*`, `semantic-*`),
/// else `semantic` for a strategy that embeds. Any other keyword is left
/// where it is, for [`section_hint`] to name.
fn into_strategy_section(overrides: Map<String, Value>, config: &Map<String, Value>) -> Map<String, Value> {
    let strategy = match overrides.get("strategy").or_else(|| config.get("strategy")) {
        Some(Value::String(name)) => name.clone(),
        _ => return overrides,
    };
    let needs_model = chunktui::config::StrategyKind::parse(&strategy).is_ok_and(|k| k.spec().needs_model);
    let family = strategy.split('-').next().unwrap_or_default().to_string();
    let homes: Vec<(&String, &BTreeSet<String>)> =
        [Some(strategy.as_str()), Some(family.as_str()), needs_model.then_some("semantic")]
            .into_iter()
            .flatten()
            .filter_map(|name| SECTIONS.get_key_value(name))
            .collect();
    let mut out = Map::new();
    for (key, value) in overrides {
        let home = match config.contains_key(&key) {
            true => None,
            false => homes.iter().find(|(_, keys)| keys.contains(&key)),
        };
        match (home, value) {
            (Some((section, _)), value) => {
                let entry = out.entry(section.to_string()).or_insert_with(|| Value::Object(Map::new()));
                if let Value::Object(keys) = entry {
                    keys.entry(key).or_insert(value);
                }
            }
            // A section's dict given beside a shorthand of the same section:
            // the dict's keys win.
            (None, Value::Object(given)) if matches!(out.get(&key), Some(Value::Object(_))) => {
                if let Some(Value::Object(keys)) = out.get_mut(&key) {
                    keys.extend(given);
                }
            }
            (None, value) => {
                out.insert(key, value);
            }
        }
    }
    out
}

/// A keyword left at the top level that only a section knows: which
/// section, and how to give it.
fn section_hint(overrides: &Map<String, Value>, config: &Map<String, Value>) -> Option<String> {
    let key = overrides.keys().find(|k| !config.contains_key(*k))?;
    let sections: Vec<&String> = SECTIONS.iter().filter(|(_, keys)| keys.contains(key)).map(|(name, _)| name).collect();
    let first = sections.first()?;
    let named: Vec<String> = sections.iter().map(|s| format!("[{s}]")).collect();
    let alone = match chunktui::config::StrategyKind::parse(first) {
        Ok(_) => format!(" (with strategy=\"{first}\", {key}= alone goes there)"),
        Err(_) => String::new(),
    };
    Some(format!(
        "{key} is not a top-level setting but a key of {}: pass {first}={{\"{key}\": ...}}{alone}",
        named.join(" and ")
    ))
}

/// The place in a JSON error ("line 1, column 57: ") points into JSON the
/// caller never saw: name the keyword instead (the first one that fails on
/// its own over the defaults), as the CLI's TOML errors name the key.
fn name_the_keyword(err: Error, overrides: &Map<String, Value>) -> Error {
    let Error::Config(message) = err else { return err };
    let placed = message.strip_prefix("line ").and_then(|rest| rest.split_once(": "));
    let message = match placed {
        Some((place, what)) if place.contains(", column ") => what.to_string(),
        _ => message,
    };
    let defaults = serde_json::to_value(ChunkConfig::default()).expect("a config serialises");
    let culprit = overrides.iter().find(|(key, value)| {
        let mut alone = defaults.clone();
        alone[key.as_str()] = (*value).clone();
        ChunkConfig::parse(&alone.to_string(), true).is_err()
    });
    match culprit {
        Some((key, value)) => Error::Config(format!("{key}={value}: {message}")),
        None => Error::Config(message),
    }
}

/// Keyword arguments as JSON, through Python's own `json` module (what a
/// config file could hold: str, int, float, bool, None, lists, dicts).
pub fn kwargs_to_json(py: Python<'_>, kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Map<String, Value>> {
    let Some(kwargs) = kwargs else { return Ok(Map::new()) };
    let text: String = py.import("json")?.call_method1("dumps", (kwargs,))?.extract()?;
    match serde_json::from_str(&text) {
        Ok(Value::Object(map)) => Ok(map),
        _ => Err(PyValueError::new_err("keyword arguments must be config keys with JSON-like values")),
    }
}

/// A JSON value as the Python object `json.loads` would give.
pub fn json_to_py<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => u.into_pyobject(py)?.into_any(),
            (None, Some(i)) => i.into_pyobject(py)?.into_any(),
            _ => n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any(),
        },
        Value::String(s) => s.into_pyobject(py)?.into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(json_to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                dict.set_item(k, json_to_py(py, v)?)?;
            }
            dict.into_any()
        }
    })
}
