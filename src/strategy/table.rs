//! The strategy table: one row per strategy, in the order the workbench
//! cycles them and `--help` lists them. A row names the kind and the
//! strategy's [`Spec`]; the match is exhaustive, so the compiler checks that
//! every built-in kind has a spec. Strategies from outside the crate add
//! their row with [`register`] and are found the same way.

use super::Spec;
use crate::config::StrategyKind;
use crate::error::Result;
use std::sync::RwLock;

macro_rules! strategy_table {
    ($($kind:ident => $spec:path,)*) => {
        impl StrategyKind {
            /// This strategy's row of the table.
            pub fn spec(self) -> &'static Spec {
                match self {
                    $(StrategyKind::$kind => &$spec,)*
                    StrategyKind::Custom(_) => registered(self),
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
    Json => super::json::SPEC,
    Rows => super::rows::SPEC,
    Fast => super::fast::SPEC,
    LangchainCharacter => super::langchain::split::CHARACTER,
    LangchainRecursive => super::langchain::split::RECURSIVE,
    LangchainToken => super::langchain::token::SPEC,
    LangchainMarkdownHeader => super::langchain::markdown::SPEC,
    LangchainJson => super::langchain::json::SPEC,
    LangchainSemantic => super::langchain::semantic::SPEC,
    Semantic => super::semantic::SEMANTIC,
    SemanticGrouping => super::semantic::GROUPING,
    Adaptive => super::semantic::ADAPTIVE,
    Cluster => super::semantic::cluster::SPEC,
    Late => super::late::SPEC,
    Llm => super::llm::SPEC,
    Propositions => super::llm::propositions::SPEC,
    Agentic => super::llm::agentic::SPEC,
    Hierarchical => super::hierarchical::SPEC,
}

impl StrategyKind {
    /// Strategies that need an embedding model.
    pub fn needs_model(self) -> bool {
        self.spec().needs_model
    }

    /// Strategies that ask an LLM.
    pub fn needs_llm(self) -> bool {
        self.spec().needs_llm
    }

    /// Strategies that cut by rule alone: no embedding model, no LLM.
    pub fn is_plain(self) -> bool {
        !self.spec().needs_model && !self.spec().needs_llm
    }

    /// Strategies whose chunks must stay within `size`.
    pub fn promises_size_limit(self) -> bool {
        self.spec().promises_size_limit()
    }
}

/// Rows registered from outside the crate, in registration order.
static REGISTERED: RwLock<Vec<&'static Spec>> = RwLock::new(Vec::new());

/// Add a strategy to the table: from then on a config (or `--strategy`)
/// may name `spec.name`, and everything that reads the table offers it — the
/// CLI's commands, lint, eval, sweep and the workbench's strategy cycle. The
/// name must be new and lower-case kebab-case. Register before parsing
/// configs or command lines that name it; rows live as long as the program.
///
/// ```
/// use chunktui::strategy::{self, Context, OverlapRule, SizeRule, Spec, Strategy};
/// use chunktui::{Chunk, ChunkConfig, Chunker, Result};
///
/// /// One chunk per line.
/// struct Lines;
/// impl Strategy for Lines {
///     fn chunk(&self, text: &str, cx: &Context<'_>) -> Result<Vec<Chunk>> {
///         let index = cx.sizer.index(text)?;
///         let mut start = 0;
///         Ok(text.split_inclusive('\n').map(|line| {
///             let range = start..start + line.trim_end().len();
///             start += line.len();
///             strategy::sized(range, &index)
///         }).filter(|c| !c.range.is_empty()).collect())
///     }
/// }
///
/// let kind = strategy::register(Spec {
///     name: "doc-lines",
///     help: "one chunk per line",
///     size: SizeRule::Ignored,
///     overlap: OverlapRule::None,
///     ..Spec::new(|_config| Ok(Box::new(Lines)))
/// })
/// .unwrap();
/// let config = ChunkConfig { strategy: kind, ..ChunkConfig::default() };
/// let chunks = Chunker::new(&config).unwrap().chunk("one\ntwo\n").unwrap();
/// assert_eq!(chunks.len(), 2);
/// ```
pub fn register(spec: Spec) -> Result<StrategyKind> {
    let mut rows = REGISTERED.write().unwrap_or_else(|e| e.into_inner());
    let kind = StrategyKind::register(spec.name)?;
    rows.push(Box::leak(Box::new(spec)));
    Ok(kind)
}

/// The registered row of a custom kind (registration made both together).
fn registered(kind: StrategyKind) -> &'static Spec {
    let rows = REGISTERED.read().unwrap_or_else(|e| e.into_inner());
    let name = kind.name();
    rows.iter().copied().find(|s| s.name == name).expect("a custom kind is made only by registering its row")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_is_named_as_its_kind_with_one_line_of_help() {
        for &kind in StrategyKind::ALL {
            assert_eq!(kind.spec().name, kind.name());
            assert!(!kind.spec().help.is_empty() && !kind.spec().help.contains('\n'), "{kind}: one-line help");
        }
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
