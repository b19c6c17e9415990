//! The strategy table: one row per strategy, in the order the workbench
//! cycles them and `--help` lists them. A row names the kind and the
//! strategy's [`Spec`]; the macro makes the [`StrategyKind`] enum, its list
//! and its lookup from the rows, so the compiler checks that every kind has a
//! spec and every spec a kind.

use super::Spec;
use crate::error::{Error, Result};

macro_rules! strategy_table {
    ($($kind:ident => $spec:path,)*) => {
        /// Which strategy a config uses. See [`StrategyKind::spec`].
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum StrategyKind {
            $($kind,)*
        }

        impl StrategyKind {
            /// Every strategy, in table order.
            pub const ALL: &'static [StrategyKind] = &[$(StrategyKind::$kind,)*];

            /// Every strategy's name, in table order.
            pub const NAMES: &'static [&'static str] = &[$($spec.name,)*];

            /// This strategy's row of the table.
            pub fn spec(self) -> &'static Spec {
                match self {
                    $(StrategyKind::$kind => &$spec,)*
                }
            }
        }
    };
}

strategy_table! {
    Fixed => super::fixed::SPEC,
    Recursive => super::recursive::SPEC,
    Sentence => super::sentence::SPEC,
    Markdown => super::markdown::SPEC,
    Document => super::document::SPEC,
    Html => super::html::SPEC,
    Code => super::code::SPEC,
    LangchainCharacter => super::langchain::split::CHARACTER,
    LangchainRecursive => super::langchain::split::RECURSIVE,
    LangchainToken => super::langchain::token::SPEC,
    LangchainMarkdownHeader => super::langchain::markdown::SPEC,
    LangchainSemantic => super::langchain::semantic::SPEC,
    Semantic => super::semantic::SEMANTIC,
    SemanticGrouping => super::semantic::GROUPING,
    Adaptive => super::semantic::ADAPTIVE,
    Late => super::late::SPEC,
    Hierarchical => super::hierarchical::SPEC,
}

impl StrategyKind {
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    pub fn parse(name: &str) -> Result<Self> {
        StrategyKind::ALL.iter().copied().find(|k| k.name() == name).ok_or_else(|| {
            Error::config(format!("unknown strategy '{name}': use one of {}", StrategyKind::NAMES.join(", ")))
        })
    }

    /// Strategies that need an embedding model.
    pub fn needs_model(self) -> bool {
        self.spec().needs_model
    }

    /// Strategies whose chunks must stay within `size`.
    pub fn promises_size_limit(self) -> bool {
        self.spec().promises_size_limit()
    }
}

impl std::fmt::Display for StrategyKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// In the config's JSON Schema: one of the table's names.
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
                StrategyKind::ALL
                    .iter()
                    .copied()
                    .find(|k| k.name() == v)
                    .ok_or_else(|| E::unknown_variant(v, StrategyKind::NAMES))
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
            assert!(!kind.spec().help.is_empty() && !kind.spec().help.contains('\n'), "{name}: one-line help");
        }
        let mut names = StrategyKind::NAMES.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), StrategyKind::ALL.len());
    }

    #[test]
    fn a_threshold_or_a_recut_means_a_model() {
        for kind in StrategyKind::ALL {
            let s = kind.spec();
            if s.has_threshold || s.recut.is_some() {
                assert!(s.needs_model, "{kind}");
            }
        }
    }
}
