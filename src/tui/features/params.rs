//! Parameter changes bound to keys: each edits the active pane's config in a
//! way that stays valid (overlap below size, size at least 1).

use crate::config::{ChunkConfig, StrategyKind, Unit};
use crate::document::DocKind;
use crate::strategy::recursive::preset_names;
use crate::tui::state::keymap::Action;
pub use crate::tui::state::params::Held;

/// A small size step that feels right at this size.
pub fn step(size: usize) -> usize {
    match size {
        0..=20 => 1,
        21..=100 => 5,
        101..=500 => 10,
        501..=2000 => 50,
        _ => 100,
    }
}

fn next<T: PartialEq + Copy>(list: &[T], cur: T) -> T {
    let i = list.iter().position(|x| *x == cur).map_or(0, |i| (i + 1) % list.len());
    list[i]
}

pub fn non_model_strategies() -> Vec<StrategyKind> {
    StrategyKind::all().into_iter().filter(|k| k.is_plain()).collect()
}

/// After a strategy key: go on past strategies that do not read documents
/// of `kind`, saying where it stopped (None: the first was fine).
pub fn skip_other_formats(c: &mut ChunkConfig, action: Action, kind: DocKind, tokenizers: &[String]) -> Option<String> {
    if !matches!(action, Action::CycleStrategy | Action::CycleStrategyAll) || c.strategy.spec().reads(kind) {
        return None;
    }
    let mut said = None;
    for _ in 0..StrategyKind::all().len() {
        said = apply(c, action, tokenizers);
        if c.strategy.spec().reads(kind) {
            break;
        }
    }
    said
}

/// Apply a parameter action; returns a one-line description of the change,
/// or None when `action` is not a parameter action.
pub fn apply(c: &mut ChunkConfig, action: Action, tokenizers: &[String]) -> Option<String> {
    let st = step(c.size);
    let msg = match action {
        Action::SizeUp | Action::SizeUpBig => {
            c.size += if action == Action::SizeUp { st } else { st * 10 };
            format!("size {} {}", c.size, c.unit)
        }
        Action::SizeDown | Action::SizeDownBig => {
            let by = if action == Action::SizeDown { step(c.size.saturating_sub(1)) } else { st * 10 };
            c.size = c.size.saturating_sub(by).max(1);
            if c.overlap >= c.size {
                c.overlap = c.size - 1;
            }
            format!("size {} {}", c.size, c.unit)
        }
        Action::OverlapUp | Action::OverlapUpBig => {
            let by = if action == Action::OverlapUp { st } else { st * 10 };
            c.overlap = (c.overlap + by).min(c.size.saturating_sub(1));
            format!("overlap {} {}", c.overlap, c.unit)
        }
        Action::OverlapDown | Action::OverlapDownBig => {
            let by = if action == Action::OverlapDown { st } else { st * 10 };
            c.overlap = c.overlap.saturating_sub(by);
            format!("overlap {} {}", c.overlap, c.unit)
        }
        Action::CycleStrategy => {
            c.strategy = next(&non_model_strategies(), c.strategy);
            format!("strategy {}", c.strategy)
        }
        Action::CycleStrategyAll => {
            // Late chunking needs token vectors, which no embeddings API
            // returns: with an endpoint, `S` passes it by.
            let endpoint = c.embed.is_set();
            let all: Vec<StrategyKind> =
                StrategyKind::all().into_iter().filter(|k| !(endpoint && *k == StrategyKind::Late)).collect();
            c.strategy = next(&all, c.strategy);
            format!("strategy {}", c.strategy)
        }
        Action::CycleUnit => {
            c.unit = next(&Unit::ALL, c.unit);
            format!("unit {}", c.unit)
        }
        Action::CycleTokenizer => {
            let i = tokenizers.iter().position(|t| *t == c.tokenizer).map_or(0, |i| (i + 1) % tokenizers.len());
            c.tokenizer = tokenizers[i].clone();
            format!("tokenizer {}", c.tokenizer)
        }
        Action::CyclePreset => {
            c.recursive.preset = next(preset_names(), c.recursive.preset.as_str()).to_string();
            c.recursive.separators = None;
            format!("separators preset {}", c.recursive.preset)
        }
        Action::CycleOption => cycle_option(c),
        Action::CycleMaxSentences if c.strategy != StrategyKind::Sentence => {
            // Changing a setting the strategy on screen does not read would
            // look like a change that did nothing.
            format!("strategy {} has no sentence limit: O sets the sentence strategy's", c.strategy)
        }
        Action::CycleMaxSentences => {
            c.sentence.max_sentences = next(&[0, 1, 3, 5, 10], c.sentence.max_sentences);
            // A chunk of N sentences can repeat at most N-1 of them (validate
            // refuses more), so a smaller limit pulls the overlap down with it.
            let max = c.sentence.max_sentences;
            if max > 0 && c.sentence.overlap_sentences >= max {
                c.sentence.overlap_sentences = max - 1;
            }
            format!(
                "sentence max_sentences {max} (0 = size only), overlap {} sentence(s)",
                c.sentence.overlap_sentences
            )
        }
        Action::CycleEmbedText => cycle_embed_text(c),
        _ => return None,
    };
    let resized = matches!(action, Action::SizeUp | Action::SizeUpBig | Action::SizeDown | Action::SizeDownBig);
    if resized && c.strategy == StrategyKind::Hierarchical {
        // Explicit levels would put `size` back (normalize): scale them instead.
        crate::strategy::hierarchical::follow_size(c);
    }
    // e.g. langchain-token always counts tokens: the view must say so.
    c.normalize();
    // A strategy that cannot hold embed text to the size keeps showing it.
    if crate::contextual::fit_problem(c).is_some() {
        c.embed_text.fit = false;
    }
    Some(msg)
}

/// What a structure strategy does with a document that lacks its structure,
/// said when the strategy is picked: it then cuts as `recursive` does, and
/// the same chunks under another name would look like a fault.
pub fn fallback_note(c: &ChunkConfig, kind: DocKind) -> Option<String> {
    match c.strategy {
        StrategyKind::Html if kind != DocKind::Html => {
            Some("not an HTML file: it cuts the text by separators, as recursive does".to_string())
        }
        StrategyKind::Code if c.code.language.as_deref().and_then(crate::strategy::code::grammar_name).is_none() => {
            Some("no code grammar for this file: it cuts by separators, as recursive does".to_string())
        }
        _ => None,
    }
}

/// Off, then embed text shown, then held to the size (where the strategy
/// can), then off.
fn cycle_embed_text(c: &mut ChunkConfig) -> String {
    let e = &mut c.embed_text;
    (e.enabled, e.fit) = match (e.enabled, e.fit) {
        (false, _) => (true, false),
        (true, false) => (true, true),
        (true, true) => (false, false),
    };
    if crate::contextual::fit_problem(c).is_some() {
        c.embed_text = Default::default();
        return format!("embed text off ({} cannot hold it to the size)", c.strategy);
    }
    match (c.embed_text.enabled, c.embed_text.fit) {
        (true, false) => "embed text on: heading path + text, beside each chunk".to_string(),
        (true, true) => format!("embed text held to size {} {}", c.size, c.unit),
        _ => "embed text off".to_string(),
    }
}

/// The strategy's own option (its row of the strategy table says which).
fn cycle_option(c: &mut ChunkConfig) -> String {
    match c.strategy.spec().option {
        Some(knob) => (knob.next)(c),
        None => format!("strategy {} has no option to cycle", c.strategy),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(c: &mut ChunkConfig, held: &mut Held, action: Action) {
        let before = c.clone();
        apply(c, action, &["cl100k_base".to_string()]).expect("a parameter action");
        held.follow(&before, c, action);
    }

    #[test]
    fn a_structure_strategy_says_when_the_file_lacks_its_structure() {
        use crate::document::DocKind;
        let html = ChunkConfig { strategy: StrategyKind::Html, ..ChunkConfig::default() };
        assert!(fallback_note(&html, DocKind::Markdown).is_some_and(|n| n.contains("recursive")));
        assert_eq!(fallback_note(&html, DocKind::Html), None);
        let mut code = ChunkConfig { strategy: StrategyKind::Code, ..ChunkConfig::default() };
        assert!(fallback_note(&code, DocKind::Markdown).is_some());
        code.code.language = Some("rs".to_string());
        assert_eq!(fallback_note(&code, DocKind::Code), None);
        assert_eq!(fallback_note(&ChunkConfig::default(), DocKind::Markdown), None);
    }

    #[test]
    fn a_full_cycle_of_strategies_comes_back_in_the_unit_it_left() {
        // langchain-token counts tokens: the unit stayed tokens after it, and
        // recursive came back at 700 tokens instead of 700 chars.
        let mut c = ChunkConfig::default();
        let mut held = Held::default();
        let start = (c.strategy, c.unit);
        for _ in 0..non_model_strategies().len() {
            press(&mut c, &mut held, Action::CycleStrategy);
            let forced = c.strategy.spec().forces_unit;
            assert_eq!(c.unit, forced.unwrap_or(start.1), "{}", c.strategy);
        }
        assert_eq!((c.strategy, c.unit), start);
        // A unit chosen by key while the strategy forces its own is the user's choice.
        while c.strategy != StrategyKind::LangchainToken {
            press(&mut c, &mut held, Action::CycleStrategy);
        }
        press(&mut c, &mut held, Action::CycleUnit);
        press(&mut c, &mut held, Action::CycleStrategy);
        assert_eq!(c.unit, Unit::Tokens, "no unit held after `u`");
        // Bytes are fast's alone: `u` there, then on, comes to chars.
        while c.strategy != StrategyKind::Fast {
            press(&mut c, &mut held, Action::CycleStrategy);
        }
        assert_eq!(c.unit, Unit::Bytes);
        press(&mut c, &mut held, Action::CycleUnit);
        press(&mut c, &mut held, Action::CycleStrategy);
        assert_eq!(c.unit, Unit::Chars, "{}", c.strategy);
    }

    #[test]
    fn the_overlap_a_smaller_size_cut_comes_back_as_the_size_grows() {
        let mut c = ChunkConfig { size: 30, overlap: 20, ..ChunkConfig::default() };
        let mut held = Held::default();
        for _ in 0..3 {
            press(&mut c, &mut held, Action::SizeDown);
        }
        assert!(c.overlap < c.size && c.overlap < 20, "{}/{}", c.size, c.overlap);
        while c.size <= 20 {
            press(&mut c, &mut held, Action::SizeUp);
            assert!(c.overlap < c.size);
        }
        assert_eq!(c.overlap, 20, "back to the overlap asked for");
        // An overlap set by key after the cut is kept.
        press(&mut c, &mut held, Action::SizeDownBig);
        press(&mut c, &mut held, Action::OverlapDown);
        let chosen = c.overlap;
        press(&mut c, &mut held, Action::SizeUpBig);
        assert_eq!(c.overlap, chosen);
    }

    /// Every state the sentence keys reach is one `validate` accepts: the
    /// workbench never offers settings the CLI would refuse.
    #[test]
    fn sentence_keys_never_reach_an_overlap_the_limit_refuses() {
        let mut c = ChunkConfig { strategy: StrategyKind::Sentence, ..ChunkConfig::default() };
        for step in 0..60 {
            let action = if step % 3 == 0 { Action::CycleMaxSentences } else { Action::CycleOption };
            apply(&mut c, action, &[]).expect("a sentence key changes the config");
            c.validate().unwrap_or_else(|e| panic!("step {step}: {e} ({:?})", c.sentence));
        }
    }
}

#[cfg(test)]
mod endpoint_tests {
    use super::*;

    #[test]
    fn with_an_endpoint_every_model_strategy_but_late_comes_round() {
        let mut c = ChunkConfig::default();
        c.embed.url = Some("http://127.0.0.1:9/v1".into());
        c.embed.model = Some("m".into());
        let mut seen = Vec::new();
        for _ in 0..StrategyKind::all().len() {
            apply(&mut c, Action::CycleStrategyAll, &[]);
            seen.push(c.strategy);
        }
        assert!(!seen.contains(&StrategyKind::Late), "{seen:?}");
        assert!(seen.contains(&StrategyKind::Semantic) && seen.contains(&StrategyKind::Adaptive));
        c.embed = Default::default();
        let mut seen = Vec::new();
        for _ in 0..StrategyKind::all().len() {
            apply(&mut c, Action::CycleStrategyAll, &[]);
            seen.push(c.strategy);
        }
        assert!(seen.contains(&StrategyKind::Late));
    }
}
