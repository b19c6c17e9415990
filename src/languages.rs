//! What `assets/languages.toml` says about file extensions: the kind of
//! document a file reads as, the separator preset of its code language, and
//! the tree-sitter grammar of the `code` strategy. Its own module so that
//! document loading and the strategies read one table without importing
//! each other.

use std::collections::HashMap;
use std::sync::OnceLock;

/// `assets/languages.toml`: document kind and code language by extension,
/// each as name → extensions (how the file reads best).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ExtensionsAsset {
    kind: HashMap<String, Vec<String>>,
    language: HashMap<String, Vec<String>>,
    grammar: HashMap<String, Vec<String>>,
}

/// The asset turned around for lookups: extension → kind, extension →
/// language, extension → tree-sitter grammar.
struct Extensions {
    kind: HashMap<String, String>,
    language: HashMap<String, String>,
    grammar: HashMap<String, String>,
}

const LANGUAGES_ASSET: &str = include_str!("../assets/languages.toml");

fn extensions() -> &'static Extensions {
    static EXTENSIONS: OnceLock<Extensions> = OnceLock::new();
    EXTENSIONS.get_or_init(|| {
        let asset: ExtensionsAsset = toml::from_str(LANGUAGES_ASSET).expect("assets/languages.toml is valid");
        Extensions {
            kind: by_extension(asset.kind),
            language: by_extension(asset.language),
            grammar: by_extension(asset.grammar),
        }
    })
}

fn by_extension<V: Clone>(table: HashMap<V, Vec<String>>) -> HashMap<String, V> {
    table.into_iter().flat_map(|(value, exts)| exts.into_iter().map(move |e| (e, value.clone()))).collect()
}

/// The document kind (`markdown`, `html`, `code`, `text`, `pdf`) the asset
/// gives an extension (no dot, any case).
pub fn kind(ext: &str) -> Option<&'static str> {
    extensions().kind.get(&ext.to_ascii_lowercase()).map(String::as_str)
}

/// The code language (a separator preset) of an extension.
pub fn language(ext: &str) -> Option<&'static str> {
    extensions().language.get(&ext.to_ascii_lowercase()).map(String::as_str)
}

/// The tree-sitter grammar the asset gives an extension (no dot).
pub fn grammar(ext: &str) -> Option<&'static str> {
    extensions().grammar.get(&ext.to_ascii_lowercase()).map(String::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_extension_once_with_known_kinds_presets_and_grammars() {
        let asset: ExtensionsAsset = toml::from_str(LANGUAGES_ASSET).unwrap();
        let count = |t: &HashMap<String, Vec<String>>| t.values().map(Vec::len).sum::<usize>();
        assert_eq!(extensions().kind.len(), count(&asset.kind), "an extension has two kinds");
        assert_eq!(extensions().language.len(), count(&asset.language), "an extension has two languages");
        assert_eq!(extensions().grammar.len(), count(&asset.grammar), "an extension has two grammars");
        for kind in asset.kind.keys() {
            let known = crate::document::DocKind::ALL.iter().any(|k| k.name() == kind);
            assert!(known, "no kind '{kind}'");
        }
        for language in asset.language.keys() {
            assert!(crate::strategy::recursive::preset_names().contains(&language.as_str()), "no preset '{language}'");
        }
        for grammar in asset.grammar.keys() {
            assert!(crate::strategy::code::LANGUAGES.contains(&grammar.as_str()), "no code language '{grammar}'");
        }
    }
}
