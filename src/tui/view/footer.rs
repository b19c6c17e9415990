//! The key footer: the most useful keys first, as many as fit the width
//! (never a cut label); `?` lists the rest.

use crate::tui::state::keymap::Action::{self, *};
use crate::tui::state::model::Model;
use crate::tui::view::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

/// (keys, label) items in the order shown; a pair of actions shares a label
/// ("+/- size"). Keys come from the keymap, so remapped keys show.
pub fn items(m: &Model) -> Vec<(String, &'static str)> {
    let first = |a: Action| m.keymap.keys_for(a).first().cloned();
    let pair = |a: Action, b: Action| match (first(a), first(b)) {
        (Some(x), Some(y)) => Some(format!("{x}/{y}")),
        (x, y) => x.or(y),
    };
    let mut out: Vec<(Option<String>, &'static str)> = vec![(first(Quit), "quit"), (first(Help), "help")];
    if m.compare {
        out.push((first(SwitchPane), "switch pane"));
        out.push((first(CopyToOtherPane), "copy to other"));
    }
    if m.pane().config.strategy.spec().has_threshold {
        out.push((pair(ThresholdDown, ThresholdUp), "threshold"));
        out.push((first(CycleThresholdType), "thr type"));
    }
    let c = &m.pane().config;
    out.push((pair(NextChunk, PrevChunk), "chunk"));
    if c.strategy == crate::config::StrategyKind::Hierarchical {
        out.push((first(CycleLevel), "level"));
    }
    out.push((pair(SizeDown, SizeUp), "size"));
    // Only the knobs that change this strategy's chunks.
    if c.uses_overlap() {
        out.push((pair(OverlapDown, OverlapUp), "overlap"));
    }
    out.extend([(first(CycleStrategy), "strategy"), (first(CycleUnit), "unit"), (first(CycleTokenizer), "tokenizer")]);
    if c.strategy.spec().uses_preset() {
        out.push((first(CyclePreset), "preset"));
    }
    out.extend([
        (first(Search), "search"),
        (first(ExportConfig), "export"),
        (first(ToggleCompare), "compare"),
        (first(CycleStrategyAll), "+model"),
        (first(Ask), "ask"),
        (first(CycleRetriever), "retriever"),
    ]);
    if m.questions.is_some() {
        out.push((first(NextQuestion), "question"));
    }
    out.into_iter().filter_map(|(k, l)| k.map(|k| (k, l))).collect()
}

pub fn render(m: &Model, theme: &Theme, area: Rect, buf: &mut Buffer) {
    let mut spans = Vec::new();
    // LLM work first, when there was some: requests, tokens, cached.
    let mut used = 0usize;
    for summary in [llm_summary(m), embed_summary(m)].into_iter().flatten() {
        used += summary.chars().count() + 2;
        spans.push(Span::styled(format!(" {summary} "), theme.warn));
    }
    for (keys, label) in items(m) {
        let w = 1 + keys.chars().count() + 1 + label.chars().count() + 1;
        if used + w > area.width as usize {
            break;
        }
        used += w;
        spans.push(Span::styled(format!(" {keys}"), theme.accent));
        spans.push(Span::styled(format!(" {label} "), theme.dim));
    }
    Paragraph::new(Line::from(spans)).render(area, buf);
}

/// `embed 3 req · 150 in · 20 cached` (with `· 1 retried`): what the
/// embeddings endpoint was asked so far.
pub fn embed_summary(m: &Model) -> Option<String> {
    let u = &m.embed_usage;
    if u.is_empty() {
        return Option::None;
    }
    let mut s = format!("embed {} req · {} in · {} cached", u.requests, u.inputs, u.cached);
    if u.retries > 0 {
        s.push_str(&format!(" · {} retried", u.retries));
    }
    Option::Some(s)
}

/// `llm 12 req · 3.4k tok · 5 cached` (with `· 2 fixed` for repairs and
/// fallbacks): what the LLM strategies and `G` cost so far.
pub fn llm_summary(m: &Model) -> Option<String> {
    let u = &m.llm_usage;
    if u.is_empty() {
        return Option::None;
    }
    let tokens = u.prompt_tokens + u.completion_tokens;
    let tokens = if tokens >= 10_000 { format!("{}k", tokens / 1000) } else { tokens.to_string() };
    let mut s = format!("llm {} req · {tokens} tok · {} cached", u.requests, u.cached);
    let fixed = u.repaired + u.fallbacks;
    if fixed > 0 {
        s.push_str(&format!(" · {fixed} fixed"));
    }
    Option::Some(s)
}
