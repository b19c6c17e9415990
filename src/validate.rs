//! The whole-config check: every problem of a config, one per line, from
//! each part that reads it (the strategy's settings, embed text, lint), and
//! loading a config file with it. Above strategy, lint and contextual, so
//! none of them needs to know about the others' settings.

use crate::config::ChunkConfig;
use crate::error::{Error, Result};
use std::path::Path;

impl ChunkConfig {
    /// Check the settings and explain every problem found, one per line:
    /// the strategies' ([`ChunkConfig::strategy_problems`]), embed text's
    /// fit and lint's.
    pub fn validate(&self) -> Result<()> {
        let mut problems = self.strategy_problems();
        if let Some(problem) = crate::contextual::fit_problem(self) {
            problems.push(problem);
        }
        crate::lint::problems(self, &mut problems);
        problems.extend(self.embed.problems());
        problems.extend(self.generate.problems());
        if self.embed.is_set() && self.strategy == crate::config::StrategyKind::Late {
            problems.push(
                "late chunking needs a vector for every token, which no embeddings API returns: with --embed-url use \
                 semantic, langchain-semantic, semantic-grouping, adaptive or cluster, or run late on an ONNX model \
                 (--model DIR, without --embed-url)"
                    .into(),
            );
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(Error::config(problems.join("\n")))
        }
    }

    /// Read a config file (TOML, or JSON for `.json`), then validate it.
    pub fn load(path: &Path) -> Result<Self> {
        Self::load_with(path, |_| {})
    }

    /// [`ChunkConfig::load`], with `adjust` applied before the check: what
    /// the command line adds that a file need not hold (the LLM endpoint,
    /// which a file shared across machines leaves to each one).
    pub fn load_with(path: &Path, adjust: impl FnOnce(&mut Self)) -> Result<Self> {
        let text = crate::input::read_text_capped(path, &crate::input::Cap::settings("config file")?)?;
        let mut config = Self::parse(&text, crate::config::file::is_json(path))
            .map_err(|e| Error::config(format!("{}: {e}", path.display())))?;
        adjust(&mut config);
        config.validate().map_err(|e| Error::config(format!("{}: {e}", path.display())))?;
        Ok(config)
    }
}
