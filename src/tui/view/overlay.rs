//! The help screen and the one-line prompts (search, export path, overwrite).

use crate::tui::keymap::Action;
use crate::tui::model::{Mode, Model};
use crate::tui::msg::ExportKind;
use crate::tui::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget, Wrap};

const HELP_ORDER: [Action; 34] = [
    Action::Quit,
    Action::Help,
    Action::ScrollUp,
    Action::ScrollDown,
    Action::PageUp,
    Action::PageDown,
    Action::Top,
    Action::Bottom,
    Action::NextChunk,
    Action::PrevChunk,
    Action::Search,
    Action::SizeUp,
    Action::SizeDown,
    Action::SizeUpBig,
    Action::SizeDownBig,
    Action::OverlapUp,
    Action::OverlapDown,
    Action::OverlapUpBig,
    Action::OverlapDownBig,
    Action::CycleStrategy,
    Action::CycleStrategyAll,
    Action::CycleUnit,
    Action::CycleTokenizer,
    Action::CyclePreset,
    Action::CycleOption,
    Action::CycleMaxSentences,
    Action::ThresholdUp,
    Action::ThresholdDown,
    Action::CycleThresholdType,
    Action::ExportConfig,
    Action::ExportChunks,
    Action::ToggleCompare,
    Action::SwitchPane,
    Action::CopyToOtherPane,
];

pub fn help(m: &Model, theme: &Theme, area: Rect, buf: &mut Buffer) {
    let w = area.width.min(64);
    let h = area.height.min(HELP_ORDER.len() as u16 + 6);
    let r = Rect::new(area.x + (area.width - w) / 2, area.y + (area.height - h) / 2, w, h);
    Clear.render(r, buf);
    let mut lines = vec![Line::styled("Mouse: wheel scrolls, click selects a chunk. Esc or ? closes.", theme.dim)];
    for a in HELP_ORDER {
        let keys = m.keymap.keys_for(a).join(" ");
        if keys.is_empty() {
            continue;
        }
        lines.push(Line::from(vec![Span::styled(format!("{keys:>14}  "), theme.accent), Span::styled(a.describe(), theme.text)]));
    }
    lines.push(Line::styled("Colours: one background per chunk; the light band is overlap.", theme.dim));
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .block(Block::new().borders(Borders::ALL).border_style(theme.accent).title(" Help "))
        .render(r, buf);
}

pub fn prompt(m: &Model, theme: &Theme, area: Rect, buf: &mut Buffer) {
    let line = match &m.mode {
        Mode::Search(q) => Line::from(vec![Span::styled(" search: ", theme.accent), Span::styled(format!("{q}▏"), theme.text)]),
        Mode::ExportPath { input, kind } => {
            let what = if *kind == ExportKind::Config { "config" } else { "chunks" };
            Line::from(vec![
                Span::styled(format!(" export {what} to: "), theme.accent),
                Span::styled(format!("{input}▏"), theme.text),
                Span::styled("  (Enter writes, Esc cancels)", theme.dim),
            ])
        }
        Mode::ConfirmOverwrite { path, .. } => Line::from(vec![Span::styled(
            format!(" {} exists: overwrite? (y/n)", path.display()),
            theme.warn,
        )]),
        _ => return,
    };
    Clear.render(area, buf);
    Paragraph::new(line).render(area, buf);
}
