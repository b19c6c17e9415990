//! [`Model::new`]: the model of a document just opened, its text already
//! wrapped for the screen, with the panel table's panels (all hidden) and
//! their keys. The table ([`PANELS`]) stands above the state, and so does
//! the constructor: here in the app rather than in `model.rs`.

use crate::config::ChunkConfig;
use crate::document::Document;
use crate::tui::state::cursor::relayout;
use crate::tui::state::keymap::Keymap;
use crate::tui::state::layout::Layout;
use crate::tui::state::model::{Highlight, Mode, Model, Pane, Status};
use crate::tui::state::panels::Panels;
use crate::tui::view::panel::Panel;
use crate::tui::view::PANELS;
use ratatui::layout::Rect;
use std::path::PathBuf;
use std::sync::Arc;

impl Model {
    pub fn new(doc: Document, a: ChunkConfig, b: ChunkConfig, screen: Rect) -> Model {
        let mut tokenizers: Vec<String> = crate::size::BUILTIN_TOKENIZERS.iter().map(|s| s.to_string()).collect();
        for t in [&a.tokenizer, &b.tokenizer] {
            if !tokenizers.contains(t) {
                tokenizers.push(t.clone());
            }
        }
        let mut m = Model {
            text: Arc::from(doc.text),
            structure: doc.structure,
            kind: doc.kind,
            path: doc.path.unwrap_or_else(|| PathBuf::from("untitled")),
            doc_rev: 0,
            panes: [Pane::new(a), Pane::new(b)],
            compare: false,
            active: 0,
            top: 0,
            selected: None,
            layout: Arc::new(Layout::default()),
            screen,
            highlight: Highlight::default(),
            mode: Mode::Normal,
            status: Status::default(),
            last_search: None,
            file_unreadable: false,
            last_found: None,
            help_scroll: 0,
            tokenizers,
            max_tokens: None,
            keymap: keymap(),
            analyses: Vec::new(),
            next_job: 0,
            questions: None,
            llm_usage: crate::llm::Usage::default(),
            embed_usage: crate::embed_usage::Usage::default(),
            panels: Panels::new(PANELS.iter().map(|p| (p.name, p.rows))),
            quit: false,
        };
        relayout(&mut m);
        m
    }
}

/// The default key bindings: `assets/keymap.toml`'s and each panel's.
pub fn keymap() -> Keymap {
    Keymap::new(PANELS.iter().map(Panel::binding).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::state::keymap::{Action, Key};

    /// The panels' keys join the asset's (`keymap.rs` checks those): each
    /// default key bound once, each panel named once and not as an action.
    #[test]
    fn every_default_key_is_bound_once_with_the_panels_and_each_panel_has_a_name_and_a_help_line() {
        let km = keymap();
        let mut keys: Vec<String> =
            km.bindings().flat_map(|b| &b.keys).map(|k| Key::parse(k).unwrap().label()).collect();
        let count = keys.len();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), count, "a panel's key is bound twice (to another panel, or in assets/keymap.toml)");
        let mut names: Vec<&str> = PANELS.iter().map(|p| p.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), PANELS.len(), "two panels share a name");
        for p in PANELS {
            assert!(!p.keys.is_empty() && !p.description.trim().is_empty() && p.rows > 0, "{}", p.name);
            let as_action = toml::from_str::<std::collections::HashMap<String, Action>>(&format!("k = \"{}\"", p.name));
            assert!(as_action.is_err(), "{} is an action's name", p.name);
            let mut file = km.clone();
            file.apply_toml(&format!("\"f9\" = \"{}\"", p.name)).unwrap();
            assert_eq!(file.keys_for(Action::TogglePanel(p.name)).last().map(String::as_str), Some("f9"));
        }
    }
}
