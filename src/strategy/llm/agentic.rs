//! `agentic`: an agent reads the document's outline and statistics and
//! chooses, per top-level section, one of chunktui's strategies and its
//! size, with a one-line reason. chunktui then cuts each section with that
//! strategy: every chunk is exact source text, and carries the choice in
//! `meta.fields` (`strategy`, `reason`). The choices form a plan
//! (`[[agentic.plan]]`) that `chunk --write-config` saves, and a config
//! with a plan cuts the same chunks with no LLM.
//!
//! Every choice is checked: an unknown strategy, a section number out of
//! range or a size out of bounds is repaired or replaced by the rule a
//! person would use (markdown for a section with sub-headings, recursive
//! otherwise), counted as a fallback.

use super::pieces::{pieces, Piece};
use super::{Context, OverlapRule, SizeRule, Spec, Strategy};
use crate::chunk::Chunk;
use crate::config::{ChunkConfig, PlanStep, StrategyKind};
use crate::error::Result;
use std::ops::Range;

pub const SPEC: Spec = Spec {
    name: "agentic",
    help: "an LLM agent reads the outline and picks a strategy and size per section (a plan --write-config saves)",
    needs_llm: true,
    size: SizeRule::Target,
    overlap: OverlapRule::None,
    options: &["--llm-url", "--llm-model", "--write-config", "agentic.plan"],
    option: Some(super::CONCURRENCY),
    ..Spec::new(build)
};

/// What the agent may choose from.
pub const MENU: [StrategyKind; 8] = [
    StrategyKind::Recursive,
    StrategyKind::Markdown,
    StrategyKind::Sentence,
    StrategyKind::Fixed,
    StrategyKind::Code,
    StrategyKind::LangchainRecursive,
    StrategyKind::Llm,
    StrategyKind::Propositions,
];

/// Sizes the agent may choose, in `unit`.
const SIZES: Range<usize> = 64..8001;

/// Plan steps a config may hold that make no sense.
pub fn problems(config: &ChunkConfig, out: &mut Vec<String>) {
    for step in &config.agentic.plan {
        if !MENU.contains(&step.strategy) {
            out.push(format!(
                "agentic.plan: section '{}' names strategy '{}': a plan step uses one of {}",
                step.section,
                step.strategy,
                MENU.map(|k| k.name()).join(", ")
            ));
        }
        if step.size == 0 || step.overlap >= step.size {
            out.push(format!(
                "agentic.plan: section '{}' has size {} and overlap {}: the size must be at least 1 and the overlap \
                 smaller",
                step.section, step.size, step.overlap
            ));
        }
    }
}

/// The plan the agent made last in this process (what `chunk
/// --write-config` saves).
static LAST_PLAN: std::sync::Mutex<Vec<PlanStep>> = std::sync::Mutex::new(Vec::new());

/// The plan the agent made last in this process.
pub fn last_plan() -> Vec<PlanStep> {
    LAST_PLAN.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

fn build(config: &ChunkConfig) -> Result<Box<dyn Strategy>> {
    Ok(Box::new(Agentic { config: config.clone() }))
}

struct Agentic {
    config: ChunkConfig,
}

/// A top-level section: its heading text and range.
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    pub name: String,
    pub range: Range<usize>,
}

impl Strategy for Agentic {
    fn chunk(&self, text: &str, cx: &Context<'_>) -> Result<Vec<Chunk>> {
        let pieces = pieces(text);
        let sections = sections(text, &pieces);
        if sections.is_empty() {
            return Ok(Vec::new());
        }
        let plan =
            if self.config.agentic.plan.is_empty() { self.ask(text, &sections, cx)? } else { self.replay(&sections) };
        *LAST_PLAN.lock().unwrap_or_else(|e| e.into_inner()) = plan.clone();
        let mut out = Vec::new();
        for (section, step) in sections.iter().zip(&plan) {
            let mut config = self.config.clone();
            config.strategy = step.strategy;
            config.size = step.size;
            config.overlap = step.overlap;
            config.agentic.plan.clear();
            let cut = super::super::Configured::new(&config)?;
            let body = &text[section.range.clone()];
            for mut c in cut.chunk_in(body, None, None, cx.control)? {
                c.range = c.range.start + section.range.start..c.range.end + section.range.start;
                c.meta.fields.push(("strategy".into(), step.strategy.name().into()));
                c.meta.fields.push(("reason".into(), step.reason.clone()));
                if !section.name.is_empty() {
                    c.meta.fields.push(("section".into(), section.name.clone()));
                }
                out.push(c);
            }
        }
        Ok(out)
    }
}

impl Agentic {
    /// The plan's step for each section, by heading; unnamed ones take the first step.
    fn replay(&self, sections: &[Section]) -> Vec<PlanStep> {
        let plan = &self.config.agentic.plan;
        sections
            .iter()
            .map(|s| {
                let step = plan.iter().find(|p| p.section == s.name).unwrap_or(&plan[0]);
                PlanStep { section: s.name.clone(), ..step.clone() }
            })
            .collect()
    }

    #[cfg(feature = "llm")]
    fn ask(&self, text: &str, sections: &[Section], _cx: &Context<'_>) -> Result<Vec<PlanStep>> {
        let client = crate::llm::Client::new(&self.config.llm)?;
        let outline: Vec<String> = sections.iter().enumerate().map(|(i, s)| profile(i + 1, text, s)).collect();
        let menu = MENU.map(|k| format!("{} ({})", k.name(), k.spec().help)).join("\n- ");
        let system = format!(
            "You choose how to cut a document into chunks for retrieval search. For each numbered section, choose \
             one strategy from this list:\n- {menu}\nand a chunk size in {} ({} to {}). Prefer rule-based \
             strategies; markdown for sections with sub-headings, code for source code, sentence or recursive for \
             prose. Give a one-line reason. Answer as {{\"choices\": [{{\"section\": n, \"strategy\": \"name\", \
             \"size\": n, \"reason\": \"...\"}}]}}.",
            self.config.unit,
            SIZES.start,
            SIZES.end - 1
        );
        let schema = serde_json::json!({
            "type": "object",
            "properties": {"choices": {"type": "array", "items": {
                "type": "object",
                "properties": {
                    "section": {"type": "integer"},
                    "strategy": {"type": "string", "enum": MENU.map(|k| k.name())},
                    "size": {"type": "integer"},
                    "reason": {"type": "string"}
                },
                "required": ["section", "strategy", "size", "reason"]
            }}},
            "required": ["choices"]
        });
        let answer = client.ask(&crate::llm::Request {
            system: &system,
            user: &outline.join("\n"),
            schema: Some(&schema),
            max_tokens: self.config.llm.max_tokens.max(64 * sections.len().min(16)),
        })?;
        Ok(checked_plan(&answer, text, sections, &self.config))
    }

    #[cfg(not(feature = "llm"))]
    fn ask(&self, _: &str, _: &[Section], _: &Context<'_>) -> Result<Vec<PlanStep>> {
        Err(crate::error::Error::config("agentic needs the 'llm' feature (or a config with [[agentic.plan]])"))
    }
}

/// One plan step per section from the agent's `answer`: its choice when
/// valid (a size out of bounds is clamped, counted as repaired), else the
/// rule (counted as a fallback).
pub fn checked_plan(answer: &str, text: &str, sections: &[Section], config: &ChunkConfig) -> Vec<PlanStep> {
    use crate::llm::usage::count;
    let choices = crate::llm::reply::first_json(answer)
        .and_then(|v| v.get("choices").and_then(|c| c.as_array()).cloned())
        .unwrap_or_default();
    sections
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let named = |c: &&serde_json::Value| c.get("section").and_then(|n| n.as_u64());
            let valid = |n: u64| (1..=sections.len() as u64).contains(&n);
            let mut choice = choices.iter().find(|c| named(c) == Some(i as u64 + 1));
            // A choice in the i-th place that names no section is taken as the i-th (repaired).
            if choice.is_none() {
                choice = choices.get(i).filter(|c| !named(c).is_some_and(valid));
                if choice.is_some() {
                    count::repaired(1);
                }
            }
            let strategy = choice
                .and_then(|c| c.get("strategy")?.as_str())
                .and_then(|n| StrategyKind::parse(n).ok())
                .filter(|k| MENU.contains(k));
            match (choice, strategy) {
                (Some(c), Some(strategy)) => {
                    let asked = c.get("size").and_then(|n| n.as_u64()).unwrap_or(config.size as u64) as usize;
                    let size = asked.clamp(SIZES.start, SIZES.end - 1);
                    if size != asked {
                        count::repaired(1);
                    }
                    let reason = c.get("reason").and_then(|r| r.as_str()).unwrap_or("").trim();
                    let reason: String = reason.chars().filter(|c| !c.is_control()).take(200).collect();
                    PlanStep { section: s.name.clone(), strategy, size, overlap: 0, reason }
                }
                _ => {
                    count::fallbacks(1);
                    rule(text, s, config)
                }
            }
        })
        .collect()
}

/// What a person would choose without an agent.
fn rule(text: &str, s: &Section, config: &ChunkConfig) -> PlanStep {
    let has_subheadings = text[s.range.clone()].lines().skip(1).any(|l| l.trim_start().starts_with('#'));
    let strategy = if has_subheadings { StrategyKind::Markdown } else { StrategyKind::Recursive };
    PlanStep {
        section: s.name.clone(),
        strategy,
        size: config.size,
        overlap: 0,
        reason: "fallback: the agent gave no usable choice for this section".into(),
    }
}

/// The top-level sections: split at the shallowest heading level present
/// (text before the first one is a section of its own).
pub fn sections(text: &str, pieces: &[Piece]) -> Vec<Section> {
    let level = |p: &Piece| -> usize {
        let t = &text[p.range.clone()];
        let hashes = t.chars().take_while(|&c| c == '#').count();
        if hashes > 0 {
            hashes
        } else if t.trim_end().ends_with('=') {
            1
        } else {
            2
        }
    };
    let top = pieces.iter().filter(|p| p.heading).map(level).min();
    let mut starts: Vec<(usize, String)> = Vec::new();
    if let Some(top) = top {
        for p in pieces.iter().filter(|p| p.heading && level(p) == top) {
            let t = &text[p.range.clone()];
            let name = t.lines().next().unwrap_or_default().trim_start_matches('#').trim().to_string();
            starts.push((p.range.start, name));
        }
    }
    if starts.first().is_none_or(|(s, _)| !text[..*s].trim().is_empty()) {
        starts.insert(0, (0, String::new()));
    }
    starts[0].0 = 0;
    let mut out: Vec<Section> = Vec::with_capacity(starts.len());
    for (k, (start, name)) in starts.iter().enumerate() {
        let end = starts.get(k + 1).map_or(text.len(), |n| n.0);
        if !text[*start..end].trim().is_empty() {
            out.push(Section { name: name.clone(), range: *start..end });
        }
    }
    out
}

/// One line of the outline the agent reads: size, sentences, code, tables,
/// sub-headings and script of a section.
fn profile(n: usize, text: &str, s: &Section) -> String {
    let body = &text[s.range.clone()];
    let sentences = crate::segment::sentences(body).len().max(1);
    let chars = body.chars().count();
    let fences = body.lines().filter(|l| l.trim_start().starts_with("```")).count() / 2;
    let table_rows = body.lines().filter(|l| l.trim_start().starts_with('|')).count();
    let subheadings = body.lines().skip(1).filter(|l| l.trim_start().starts_with('#')).count();
    let cjk = (crate::segment::cjk_ratio(body) * 100.0).round();
    let name: String =
        if s.name.is_empty() { "(before the first heading)".into() } else { s.name.chars().take(80).collect() };
    format!(
        "[{n}] \"{name}\": {chars} chars, {sentences} sentences (~{} chars each), {fences} code blocks, {table_rows} \
         table rows, {subheadings} sub-headings, {cjk}% CJK",
        chars / sentences
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_split_at_the_shallowest_heading_with_the_preamble_first() {
        let text = "Intro text.\n\n## A\n\nbody a\n\n### A.1\n\nsub\n\n## B\n\nbody b\n";
        let s = sections(text, &pieces(text));
        let names: Vec<&str> = s.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, vec!["", "A", "B"]);
        assert_eq!(s[0].range.start, 0);
        assert_eq!(s.last().unwrap().range.end, text.len());
        for w in s.windows(2) {
            assert_eq!(w[0].range.end, w[1].range.start);
        }
        let plain = "No headings at all. Just text.";
        assert_eq!(sections(plain, &pieces(plain)), vec![Section { name: String::new(), range: 0..plain.len() }]);
    }

    #[test]
    fn bad_choices_are_clamped_or_replaced_by_the_rule() {
        let text = "# A\n\nbody\n\n# B\n\n## B.1\n\nmore\n";
        let s = sections(text, &pieces(text));
        let config = ChunkConfig::default();
        let answer = r#"{"choices": [{"section": 1, "strategy": "sentence", "size": 99999, "reason": "prose"},
                                     {"section": 2, "strategy": "teleport", "size": 300, "reason": "?"}]}"#;
        let plan = checked_plan(answer, text, &s, &config);
        assert_eq!(plan[0].strategy, StrategyKind::Sentence);
        assert_eq!(plan[0].size, SIZES.end - 1);
        assert_eq!(plan[1].strategy, StrategyKind::Markdown, "sub-headings: markdown");
        assert!(plan[1].reason.starts_with("fallback"));
    }
}
