//! `update(model, msg) -> commands`: the only place the model changes. Pure:
//! no I/O, no threads, no terminal; tests drive it directly. It composes the
//! features: each message and key goes to the feature that owns it, and
//! nothing below imports this file.

// Where the runner and the tests find them (they belong to the features and the state).
pub use crate::tui::features::chunks::start;
pub use crate::tui::state::cursor::relayout;

use crate::config::ChunkConfig;
use crate::tui::features::chunks::{self, rechunk};
use crate::tui::features::semantic;
use crate::tui::msg::{Cmd, ExportKind, Msg};
use crate::tui::state::cursor::{clamp_selection, page, scroll_by, select, set_error, set_status};
use crate::tui::state::keymap::Action;
use crate::tui::state::model::{Highlight, Mode, Model, Status};
use crate::tui::view::{self, side};
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::{Position, Rect};
use std::path::PathBuf;

pub fn update(m: &mut Model, msg: Msg) -> Vec<Cmd> {
    // A few atomic loads: the footer's endpoint line follows every reply.
    m.embed_usage = crate::embed_usage::usage();
    match msg {
        Msg::KeyPressed(k) if k.kind != KeyEventKind::Release => {
            let cmds = key(m, k);
            relayout(m); // a strategy change may show or hide the distance chart
            cmds
        }
        Msg::KeyPressed(_) => vec![],
        Msg::MouseUsed(e) => {
            mouse(m, e);
            vec![]
        }
        Msg::Resized(w, h) => {
            m.screen = Rect::new(0, 0, w, h);
            relayout(m);
            vec![]
        }
        Msg::Chunked { pane, rev, result } => chunks::chunked(m, pane, rev, result),
        Msg::ChunkedPart { pane, rev, chunks, from_start } => {
            chunks::part(m, pane, rev, chunks, from_start);
            vec![]
        }
        Msg::TokensCounted { pane, rev, counts } => {
            chunks::counted(m, pane, rev, counts);
            vec![]
        }
        Msg::Highlighted { doc_rev, runs, done } => {
            if doc_rev == m.doc_rev {
                if m.highlight.doc_rev != doc_rev {
                    m.highlight = Highlight { doc_rev, ..Default::default() };
                }
                m.highlight.runs.extend(runs);
                m.highlight.done = done;
            }
            vec![]
        }
        Msg::FileReloaded(Ok(doc)) => crate::tui::features::reload::file_reloaded(m, doc),
        Msg::FileReloaded(Err(e)) => {
            m.file_unreadable = true;
            set_error(m, format!("{e} (showing the last good version)"));
            vec![]
        }
        Msg::ExportConflicted { path, kind } => {
            m.mode = Mode::ConfirmOverwrite { path, kind };
            vec![]
        }
        Msg::QuestionsGenerated { doc_rev, corpus_id, result } => {
            crate::tui::features::questions::take(m, doc_rev, corpus_id, result)
        }
        Msg::LlmProgress { pane, rev, done, total } => {
            m.llm_usage = crate::llm::usage();
            if pane == m.active && rev == m.panes[pane].rev {
                set_status(m, format!("{}: {done}/{total} LLM requests answered…", m.panes[pane].config.strategy));
            }
            vec![]
        }
        Msg::Exported(Ok(path)) => {
            set_status(m, format!("wrote {}", path.display()));
            vec![]
        }
        Msg::Exported(Err(e)) => {
            set_error(m, format!("export failed: {e}"));
            vec![]
        }
        Msg::EmbedProgress { id, done, total, .. } => crate::tui::features::embed_update::progress(m, id, done, total),
        Msg::Analyzed { id, result, .. } => crate::tui::features::embed_update::analyzed(m, id, result),
        Msg::AnalyzedPart { id, result, .. } => crate::tui::features::embed_update::analyzed_part(m, id, result),
        msg @ Msg::ModelChunked { .. } => crate::tui::features::embed_update::model_chunked(m, msg),
        Msg::RetrieveProgress { pane, id, done, total } => {
            crate::tui::features::probe::progress(m, pane, id, done, total)
        }
        Msg::Retrieved { pane, id, result } => crate::tui::features::probe::retrieved(m, pane, id, result),
        Msg::Linted { pane, rev, result } => crate::tui::features::lint::linted(m, pane, rev, result),
        Msg::EditsResolved { pane, rev, resolved } => crate::tui::features::edits::resolved(m, pane, rev, resolved),
        Msg::Signalled(_) => {
            m.quit = true;
            vec![]
        }
    }
}

fn key(m: &mut Model, k: KeyEvent) -> Vec<Cmd> {
    match m.mode.clone() {
        Mode::Normal => {}
        Mode::Help => {
            // Scroll keys scroll a help taller than the screen; any other key closes it.
            let avail = m.screen.height.saturating_sub(4) as usize;
            let max = view::overlay::help_rows(m).saturating_sub(avail);
            match k.code {
                KeyCode::Down | KeyCode::Char('j') | KeyCode::Char(' ') | KeyCode::PageDown => {
                    m.help_scroll = (m.help_scroll
                        + if k.code == KeyCode::Char('j') || k.code == KeyCode::Down { 1 } else { avail.max(1) })
                    .min(max)
                }
                KeyCode::Up | KeyCode::Char('k') | KeyCode::PageUp => {
                    m.help_scroll =
                        m.help_scroll.saturating_sub(if k.code == KeyCode::PageUp { avail.max(1) } else { 1 })
                }
                _ => m.mode = Mode::Normal,
            }
            return vec![];
        }
        Mode::Search(mut q) => {
            match k.code {
                KeyCode::Esc => m.mode = Mode::Normal,
                KeyCode::Enter => {
                    m.mode = Mode::Normal;
                    crate::tui::features::search::run(m, q);
                }
                KeyCode::Backspace => {
                    q.pop();
                    m.mode = Mode::Search(q);
                }
                KeyCode::Char(c) if !k.modifiers.contains(KeyModifiers::CONTROL) => {
                    q.push(c);
                    m.mode = Mode::Search(q);
                }
                _ => {}
            }
            return vec![];
        }
        Mode::Ask(q) => return crate::tui::features::probe::ask_key(m, k, q),
        Mode::ExportPath { mut input, kind } => {
            match k.code {
                KeyCode::Esc => {
                    m.mode = Mode::Normal;
                    set_status(m, "export cancelled".into());
                }
                KeyCode::Enter if !input.trim().is_empty() => {
                    m.mode = Mode::Normal;
                    return vec![export(m, PathBuf::from(input.trim()), kind, false)];
                }
                KeyCode::Backspace => {
                    input.pop();
                    m.mode = Mode::ExportPath { input, kind };
                }
                KeyCode::Char(c) if !k.modifiers.contains(KeyModifiers::CONTROL) => {
                    input.push(c);
                    m.mode = Mode::ExportPath { input, kind };
                }
                _ => {}
            }
            return vec![];
        }
        Mode::ConfirmOverwrite { path, kind } => {
            m.mode = Mode::Normal;
            if matches!(k.code, KeyCode::Char('y') | KeyCode::Char('Y')) {
                return vec![export(m, path, kind, true)];
            }
            set_status(m, format!("not written: {} already exists", path.display()));
            return vec![];
        }
    }
    let Some(action) = m.keymap.action(&k) else { return vec![] };
    // A message answers the key before it; the next key clears it.
    m.status = Status::default();
    action_(m, action)
}

/// What a bound action does in normal mode.
pub fn action_(m: &mut Model, action: Action) -> Vec<Cmd> {
    let pg = page(m).saturating_sub(1).max(1) as isize;
    match action {
        Action::Quit => m.quit = true,
        Action::Help => {
            m.mode = Mode::Help;
            m.help_scroll = 0;
        }
        Action::ScrollUp => scroll_by(m, -1),
        Action::ScrollDown => scroll_by(m, 1),
        Action::PageUp => scroll_by(m, -pg),
        Action::PageDown => scroll_by(m, pg),
        Action::Top => m.top = 0,
        Action::Bottom => scroll_by(m, isize::MAX / 2),
        Action::NextChunk | Action::PrevChunk => {
            let chunks = &m.pane().chunks;
            if chunks.is_empty() {
                return vec![];
            }
            let top_byte = m.layout.start_of(m.top);
            let k = match (m.selected, action) {
                (Some(s), Action::NextChunk) => (s + 1).min(chunks.len() - 1),
                (Some(s), _) => s.saturating_sub(1),
                (None, _) => chunks.partition_point(|c| c.range.start < top_byte).min(chunks.len() - 1),
            };
            select(m, k);
        }
        Action::Search => m.mode = Mode::Search(String::new()),
        Action::CycleLevel => {
            let msg = crate::tui::features::levels::cycle(m);
            set_status(m, msg);
        }
        Action::ExportConfig => {
            m.mode = Mode::ExportPath {
                input: crate::tui::features::export::default_path(&m.path, ExportKind::Config),
                kind: ExportKind::Config,
            }
        }
        Action::ExportChunks => {
            m.mode = Mode::ExportPath {
                input: crate::tui::features::export::default_path(&m.path, ExportKind::Chunks),
                kind: ExportKind::Chunks,
            }
        }
        Action::ToggleCompare => {
            m.compare = !m.compare;
            if !m.compare {
                m.active = 0;
            }
            clamp_selection(m);
            relayout(m);
            let msg =
                if m.compare { "comparing A and B: Tab switches the pane the keys edit" } else { "comparison off" };
            set_status(m, msg.into());
        }
        Action::SwitchPane if m.compare => {
            m.active ^= 1;
            clamp_selection(m);
            set_status(m, format!("keys now edit pane {}", ["A", "B"][m.active]));
        }
        Action::SwitchPane => set_status(m, "no second pane: press c to compare".into()),
        Action::CopyToOtherPane => {
            let other = m.active ^ 1;
            m.panes[other].config = m.pane().config.clone();
            crate::tui::features::probe::copy_to(m, m.active, other);
            set_status(m, format!("copied {} to {}", ["A", "B"][m.active], ["A", "B"][other]));
            return rechunk(m, other).into_iter().collect();
        }
        Action::None => {}
        Action::NextFinding => crate::tui::features::lint::next_finding(m),
        Action::TogglePanel(name) => return toggle_panel(m, name),
        Action::StartBackSentence
        | Action::StartForwardSentence
        | Action::StartBackWord
        | Action::StartForwardWord
        | Action::SplitChunk
        | Action::JoinNext
        | Action::UndoEdit
        | Action::RedoEdit => return crate::tui::features::edits::action(m, action),
        Action::GenerateQuestions => return crate::tui::features::questions::action(m),
        Action::Ask | Action::ClearProbe | Action::CycleRetriever | Action::SortByScore | Action::NextQuestion => {
            return crate::tui::features::probe::action(m, action);
        }
        Action::ThresholdUp | Action::ThresholdDown | Action::CycleThresholdType => {
            let active = m.active;
            let c = &mut m.panes[active].config;
            let msg = match action {
                Action::CycleThresholdType => semantic::cycle_threshold_type(c),
                a => semantic::step_threshold(c, a == Action::ThresholdUp),
            };
            match msg {
                Some(msg) => {
                    set_status(m, if m.compare { format!("{}: {msg}", ["A", "B"][active]) } else { msg });
                    return rechunk(m, active).into_iter().collect();
                }
                None => set_status(
                    m,
                    format!("strategy {} has no threshold: S reaches the model strategies", m.pane().config.strategy),
                ),
            }
        }
        param => {
            let active = m.active;
            let tokenizers = m.tokenizers.clone();
            let kind = m.kind;
            let pane = &mut m.panes[active];
            let before = pane.config.clone();
            let applied = crate::tui::features::params::apply(&mut pane.config, param, &tokenizers);
            // The strategy keys pass by strategies made for other formats
            // (`json` on a Markdown file).
            let applied = applied.map(|msg| {
                crate::tui::features::params::skip_other_formats(&mut pane.config, param, kind, &tokenizers)
                    .unwrap_or(msg)
            });
            if let Some(msg) = applied {
                let held = pane.held.follow(&before, &mut pane.config, param);
                let fallback = matches!(param, Action::CycleStrategy | Action::CycleStrategyAll)
                    .then(|| crate::tui::features::params::fallback_note(&pane.config, m.kind))
                    .flatten();
                let msg = [Some(msg), held, fallback].into_iter().flatten().collect::<Vec<_>>().join("; ");
                let same_cut = cuts_the_same(&m.panes[active]);
                let msg =
                    if same_cut { format!("{msg} ({}: no size limit, the same chunks)", before.strategy) } else { msg };
                let msg = if m.compare { format!("{}: {msg}", ["A", "B"][active]) } else { msg };
                set_status(m, msg);
                if same_cut {
                    return vec![];
                }
                return rechunk(m, active).into_iter().collect();
            }
        }
    }
    vec![]
}

/// Show or hide a panel of the table, then what its feature does about it.
fn toggle_panel(m: &mut Model, name: &str) -> Vec<Cmd> {
    let shown = m.panels.toggle(name);
    match view::PANELS.iter().find(|p| p.name == name).and_then(|p| p.toggled) {
        Some(toggled) => toggled(m, shown),
        None => vec![],
    }
}

/// Whether the pane's chunks on screen, cut under the config it last asked
/// for, are already those of its config now: only the size (or an overlap
/// the strategy never makes) changed, for a strategy that does not read
/// them. A size key on `document` or `langchain-markdown-header` then
/// re-cuts nothing (a whole pass over a big file for the same chunks).
fn cuts_the_same(p: &crate::tui::state::model::Pane) -> bool {
    let spec = p.config.strategy.spec();
    let cut = &p.requested;
    let overlap_unread = spec.never_overlaps();
    let unread = ChunkConfig {
        size: p.config.size,
        overlap: if overlap_unread { p.config.overlap } else { cut.overlap },
        ..cut.clone()
    };
    !spec.reads_size() && unread == p.config && p.shown_rev == p.rev && p.error.is_none() && p.part.is_none()
}

fn export(m: &mut Model, path: PathBuf, kind: ExportKind, overwrite: bool) -> Cmd {
    set_status(m, format!("writing {}…", path.display()));
    let p = m.pane();
    Cmd::Export { path, kind, overwrite, config: p.config.clone(), chunks: p.all_chunks.clone(), text: m.text.clone() }
}

fn mouse(m: &mut Model, e: MouseEvent) {
    match e.kind {
        MouseEventKind::ScrollUp => scroll_by(m, -3),
        MouseEventKind::ScrollDown => scroll_by(m, 3),
        MouseEventKind::Down(MouseButton::Left) if m.mode == Mode::Normal => {
            let g = view::regions_of(m);
            let pos = Position::new(e.column, e.row);
            for p in 0..m.visible_panes() {
                let d = g.docs[p];
                if d.contains(pos) {
                    let gw = view::gutter_width(d.width);
                    let line = m.top + (e.row - d.y) as usize;
                    let col = e.column.saturating_sub(d.x + gw) as usize;
                    if let Some(b) = m.layout.byte_at(&m.text, line, col) {
                        m.active = p;
                        clamp_selection(m);
                        let k = m.pane().chunks.partition_point(|c| c.range.end <= b);
                        if m.pane().chunks.get(k).is_some_and(|c| c.range.start <= b) {
                            select(m, k);
                        }
                    }
                    return;
                }
            }
            let l = g.list;
            if l.contains(pos) && e.row >= l.y + 2 && e.row + 1 < l.y + l.height {
                let rows = l.height.saturating_sub(3) as usize;
                if let Some(k) = side::chunk_at_row(m, rows, (e.row - l.y - 2) as usize) {
                    select(m, k);
                }
            }
        }
        _ => {}
    }
}
