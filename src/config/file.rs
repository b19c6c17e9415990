//! Reading and writing config text: TOML or JSON, errors on one line that
//! say where (line, column, key) and what to write instead.

use super::{ChunkConfig, CONFIG_VERSION};
use crate::error::{Error, Result};
use std::path::Path;

impl ChunkConfig {
    /// Parse config text without validating it.
    pub fn parse(text: &str, json: bool) -> Result<Self> {
        // Look at the version first: a file from a newer chunktui gets "upgrade",
        // not a confusing complaint about a key this build does not know.
        let (version, has_overlap) = if json {
            let v = serde_json::from_str::<serde_json::Value>(text).ok();
            let get = |key: &str| v.as_ref().and_then(|v| v.get(key)).cloned();
            (get("version").and_then(|v| v.as_u64()), get("overlap").is_some())
        } else {
            let t = toml::from_str::<toml::Table>(text).ok();
            let get = |key: &str| t.as_ref().and_then(|t| t.get(key)).cloned();
            (get("version").and_then(|v| v.as_integer()).map(|v| v as u64), get("overlap").is_some())
        };
        if let Some(v) = version {
            if v > CONFIG_VERSION as u64 {
                return Err(Error::config(format!(
                    "config version {v} is newer than this chunktui understands ({CONFIG_VERSION}): upgrade chunktui"
                )));
            }
        }
        let mut config: Self = if json {
            serde_json::from_str(text).map_err(|e| Error::config(json_message(&e)))?
        } else {
            toml::from_str(text).map_err(|e| Error::config(toml_message(text, &e)))?
        };
        // A missing overlap keeps its default, which follows the size: the
        // same rule as `--size` without `--overlap`.
        if !has_overlap {
            config.overlap = Self::overlap_for_size(config.size);
        }
        Ok(config)
    }

    pub fn to_toml(&self) -> String {
        let body = toml::to_string_pretty(self).expect("config serialises to TOML");
        format!("# chunktui chunking config. Reproduce these chunks with:\n#   chunktui chunk FILE --config THIS_FILE\n{body}")
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("config serialises to JSON") + "\n"
    }

    /// Write to `path` as TOML or JSON (by extension), atomically.
    pub fn save(&self, path: &Path) -> Result<()> {
        let text = if is_json(path) { self.to_json() } else { self.to_toml() };
        crate::io::write_atomic(path, text.as_bytes())
    }
}

pub(crate) fn is_json(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("json"))
}

fn clean_serde_message(msg: &str) -> String {
    msg.trim().replace('\n', " ")
}

/// A JSON error on one line, place first as for TOML: `line 1, column
/// 25: invalid type: string "big", expected a whole number`.
fn json_message(err: &serde_json::Error) -> String {
    let full = clean_serde_message(&err.to_string());
    // serde_json appends " at line L column C" to the message itself.
    let what = full.rsplit_once(" at line ").map_or(full.as_str(), |(what, _)| what);
    let what = plain_types(what);
    if err.line() == 0 {
        return what;
    }
    format!("line {}, column {}: {what}", err.line(), err.column())
}

/// A TOML error on one line, saying where: `line 4, column 8, key size:
/// invalid type: string "big", expected a whole number`.
fn toml_message(text: &str, err: &toml::de::Error) -> String {
    let what = plain_types(&clean_serde_message(err.message()));
    let Some(span) = err.span() else { return what };
    // A missing key has no place of its own (the span is the whole table).
    if what.starts_with("missing field") {
        return format!("{what}: add it (`chunktui config init` prints every key with its default)");
    }
    let mut at = span.start.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |p| p + 1);
    let column = before[line_start..].chars().count() + 1;
    match toml_key_at(text, line_start) {
        Some(key) => format!("line {line}, column {column}, key {key}: {what}"),
        None => format!("line {line}, column {column}: {what}"),
    }
}

/// The dotted key set on the line starting at `line_start` (with the table
/// it is in), or the table a `[header]` line names.
fn toml_key_at(text: &str, line_start: usize) -> Option<String> {
    let line = text[line_start..].lines().next().unwrap_or("").trim();
    let header = |l: &str| -> Option<String> {
        let l = l.split('#').next().unwrap_or("").trim();
        let name = l.strip_prefix('[')?.trim_start_matches('[');
        let name = name.split(']').next()?.trim();
        Some(unquote_key(name))
    };
    if line.starts_with('[') {
        return header(line).filter(|h| !h.is_empty());
    }
    let (key, _) = line.split_once('=')?;
    let key = unquote_key(key.trim());
    if key.is_empty() || key.starts_with('#') {
        return None;
    }
    let table = text[..line_start].lines().rev().find_map(|l| {
        let l = l.trim();
        if l.starts_with('[') {
            header(l)
        } else {
            None
        }
    });
    Some(match table.filter(|t| !t.is_empty()) {
        Some(t) => format!("{t}.{key}"),
        None => key,
    })
}

fn unquote_key(key: &str) -> String {
    key.split('.').map(|part| part.trim().trim_matches(|c| c == '"' || c == '\'')).collect::<Vec<_>>().join(".")
}

/// serde's Rust type names in words a config writer knows.
fn plain_types(msg: &str) -> String {
    let mut out = msg.to_string();
    for (rust, plain) in [
        ("expected usize", "expected a whole number"),
        ("expected u64", "expected a whole number"),
        ("expected u32", "expected a whole number"),
        ("expected u8", "expected a whole number"),
        ("expected f64", "expected a number"),
    ] {
        out = out.replace(rust, plain);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_errors_say_line_and_column_in_plain_types() {
        let msg = ChunkConfig::parse("{\"version\": 1,\n \"size\": \"big\"}", true).unwrap_err().to_string();
        assert_eq!(msg, "line 2, column 14: invalid type: string \"big\", expected a whole number");
        let msg = ChunkConfig::parse("{\"version\": 1, \"size\": -3}", true).unwrap_err().to_string();
        assert_eq!(msg, "line 1, column 25: invalid value: integer `-3`, expected a whole number");
    }

    #[test]
    fn toml_errors_say_line_column_and_key() {
        let text = "version = 1\nstrategy = \"recursive\"\nunit = \"chars\"\nsize = \"big\"\n";
        let msg = ChunkConfig::parse(text, false).unwrap_err().to_string();
        assert_eq!(msg, "line 4, column 8, key size: invalid type: string \"big\", expected a whole number");
        let text = "version = 1\nstrategy = \"semantic\"\nunit = \"chars\"\nsize = 9\n\n[semantic]\n# note\nthreshold = \"x\"\n";
        let msg = ChunkConfig::parse(text, false).unwrap_err().to_string();
        assert!(msg.starts_with("line 8, column 13, key semantic.threshold: "), "{msg}");
        assert!(msg.ends_with("expected a number"), "{msg}");
        let text = "version = 1\nstrategy = \"recursive\"\nunit = \"chars\"\nsize = 9\ncolour = 3\n";
        let msg = ChunkConfig::parse(text, false).unwrap_err().to_string();
        assert!(msg.starts_with("line 5, column 1, key colour: unknown field `colour`"), "{msg}");
        let msg = ChunkConfig::parse("version = 1\nunit = \"chars\nsize = 1\n", false).unwrap_err().to_string();
        assert!(msg.starts_with("line 2, column "), "{msg}");
        assert!(!msg.contains('\n'), "{msg}");
    }
}
