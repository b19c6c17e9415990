//! Which strategy a config names: [`StrategyKind`], plain data. The built-in
//! kinds are listed here by name; what each one is and does is its row of the
//! strategy table ([`StrategyKind::spec`], in `strategy/table.rs`). Strategies
//! registered from outside the crate ([`crate::strategy::register`]) get a
//! kind of their own, by name, and are read and written like the others.

use crate::error::{Error, Result};
use std::sync::RwLock;

macro_rules! strategy_kinds {
    ($($kind:ident => $name:literal,)*) => {
        /// Which strategy a config uses. See [`StrategyKind::spec`].
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum StrategyKind {
            $($kind,)*
            /// A strategy registered with [`crate::strategy::register`].
            Custom(CustomKind),
        }

        impl StrategyKind {
            /// Every built-in strategy, in table order ([`StrategyKind::all`]
            /// adds the registered ones).
            pub const ALL: &'static [StrategyKind] = &[$(StrategyKind::$kind,)*];

            /// Every built-in strategy's name, in table order.
            pub const NAMES: &'static [&'static str] = &[$($name,)*];

            /// Its name in configs and on the command line.
            pub fn name(self) -> &'static str {
                match self {
                    $(StrategyKind::$kind => $name,)*
                    StrategyKind::Custom(custom) => custom.0,
                }
            }
        }
    };
}

strategy_kinds! {
    Fixed => "fixed",
    Recursive => "recursive",
    Sentence => "sentence",
    Markdown => "markdown",
    Document => "document",
    Html => "html",
    Code => "code",
    Json => "json",
    Rows => "rows",
    Fast => "fast",
    LangchainCharacter => "langchain-character",
    LangchainRecursive => "langchain-recursive",
    LangchainToken => "langchain-token",
    LangchainMarkdownHeader => "langchain-markdown-header",
    LangchainJson => "langchain-json",
    LangchainSemantic => "langchain-semantic",
    Semantic => "semantic",
    SemanticGrouping => "semantic-grouping",
    Adaptive => "adaptive",
    Cluster => "cluster",
    Late => "late",
    Llm => "llm",
    Propositions => "propositions",
    Agentic => "agentic",
    Hierarchical => "hierarchical",
}

/// A registered strategy's kind: its name. Made only by registration, so a
/// custom kind always has a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CustomKind(&'static str);

/// Names registered from outside the crate, in registration order.
static REGISTERED: RwLock<Vec<&'static str>> = RwLock::new(Vec::new());

impl StrategyKind {
    /// Every strategy: the built-in ones in table order, then the registered
    /// ones in the order they were registered.
    pub fn all() -> Vec<StrategyKind> {
        let registered = REGISTERED.read().unwrap_or_else(|e| e.into_inner());
        StrategyKind::ALL
            .iter()
            .copied()
            .chain(registered.iter().map(|&n| StrategyKind::Custom(CustomKind(n))))
            .collect()
    }

    /// Every strategy's name, as [`StrategyKind::all`] lists them.
    pub fn names() -> Vec<&'static str> {
        StrategyKind::all().into_iter().map(StrategyKind::name).collect()
    }

    pub fn parse(name: &str) -> Result<Self> {
        StrategyKind::all().into_iter().find(|k| k.name() == name).ok_or_else(|| {
            Error::config(format!("unknown strategy '{name}': use one of {}", StrategyKind::names().join(", ")))
        })
    }

    /// Give `name` a kind of its own. Only the strategy registry calls it,
    /// with its row in hand: the name must be new, lower-case kebab-case.
    pub(crate) fn register(name: &'static str) -> Result<StrategyKind> {
        let usable = !name.is_empty()
            && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            && !name.starts_with('-');
        if !usable {
            return Err(Error::config(format!(
                "strategy name '{name}' cannot be registered: use lower-case letters, digits and '-'"
            )));
        }
        let mut registered = REGISTERED.write().unwrap_or_else(|e| e.into_inner());
        if StrategyKind::NAMES.contains(&name) || registered.contains(&name) {
            return Err(Error::config(format!("a strategy named '{name}' exists already: pick another name")));
        }
        registered.push(name);
        Ok(StrategyKind::Custom(CustomKind(name)))
    }
}

impl std::fmt::Display for StrategyKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// In the config's JSON Schema: one of the built-in names (a registered
/// strategy is known only to the program that registers it).
impl schemars::JsonSchema for StrategyKind {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "StrategyKind".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "description": "How the text is cut: one of the strategy table's names (see `chunktui chunk --help`).",
            "enum": StrategyKind::NAMES,
        })
    }
}

impl serde::Serialize for StrategyKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for StrategyKind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Name;
        impl serde::de::Visitor<'_> for Name {
            type Value = StrategyKind;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a strategy name")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<StrategyKind, E> {
                let all = StrategyKind::all();
                if let Some(kind) = all.iter().copied().find(|k| k.name() == v) {
                    return Ok(kind);
                }
                if all.len() == StrategyKind::ALL.len() {
                    return Err(E::unknown_variant(v, StrategyKind::NAMES));
                }
                // serde's own wording, with the registered names too.
                let expected: Vec<String> = all.iter().map(|k| format!("`{k}`")).collect();
                Err(E::custom(format!("unknown variant `{v}`, expected one of {}", expected.join(", "))))
            }
        }
        d.deserialize_str(Name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_kebab_case_and_parse_back() {
        for (i, &kind) in StrategyKind::ALL.iter().enumerate() {
            let name = kind.name();
            assert_eq!(StrategyKind::NAMES[i], name);
            assert!(name.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'), "{name}");
            assert_eq!(StrategyKind::parse(name).unwrap(), kind);
        }
        let mut names = StrategyKind::NAMES.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), StrategyKind::ALL.len());
    }

    #[test]
    fn a_registered_name_must_be_new_and_kebab_case_or_is_refused() {
        assert!(StrategyKind::register("recursive").is_err());
        assert!(StrategyKind::register("Upper").is_err());
        assert!(StrategyKind::register("").is_err());
    }
}
