//! Key bindings: an [`Action`] per key. Defaults below; a TOML file
//! (`--keymap PATH`) adds or replaces bindings: `"ctrl-s" = "export_config"`.

use crate::error::{Error, Result};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde::Deserialize;
use std::collections::HashMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Quit,
    Help,
    ScrollUp,
    ScrollDown,
    PageUp,
    PageDown,
    Top,
    Bottom,
    NextChunk,
    PrevChunk,
    Search,
    SizeUp,
    SizeDown,
    SizeUpBig,
    SizeDownBig,
    OverlapUp,
    OverlapDown,
    OverlapUpBig,
    OverlapDownBig,
    CycleStrategy,
    CycleStrategyAll,
    CycleUnit,
    CycleTokenizer,
    CyclePreset,
    CycleOption,
    CycleMaxSentences,
    ExportConfig,
    ExportChunks,
    ToggleCompare,
    SwitchPane,
    CopyToOtherPane,
    ThresholdUp,
    ThresholdDown,
    CycleThresholdType,
    /// Does nothing: unbinds a default key.
    None,
}

impl Action {
    pub fn describe(self) -> &'static str {
        match self {
            Action::Quit => "quit",
            Action::Help => "show / hide this help",
            Action::ScrollUp => "scroll up",
            Action::ScrollDown => "scroll down",
            Action::PageUp => "page up",
            Action::PageDown => "page down",
            Action::Top => "go to the top",
            Action::Bottom => "go to the end",
            Action::NextChunk => "select the next chunk",
            Action::PrevChunk => "select the previous chunk",
            Action::Search => "search the text",
            Action::SizeUp => "size up",
            Action::SizeDown => "size down",
            Action::SizeUpBig => "size up, big step",
            Action::SizeDownBig => "size down, big step",
            Action::OverlapUp => "overlap up",
            Action::OverlapDown => "overlap down",
            Action::OverlapUpBig => "overlap up, big step",
            Action::OverlapDownBig => "overlap down, big step",
            Action::CycleStrategy => "next strategy (no model needed)",
            Action::CycleStrategyAll => "next strategy, including model ones",
            Action::CycleUnit => "next unit (chars, words, tokens)",
            Action::CycleTokenizer => "next tokenizer",
            Action::CyclePreset => "next separators preset",
            Action::CycleOption => "cycle the strategy's option",
            Action::CycleMaxSentences => "sentence: cycle max sentences",
            Action::ExportConfig => "export the config (TOML / JSON)",
            Action::ExportChunks => "export the chunks (JSONL)",
            Action::ToggleCompare => "side-by-side comparison on / off",
            Action::SwitchPane => "switch which pane the keys edit",
            Action::CopyToOtherPane => "copy this pane's settings to the other",
            Action::ThresholdUp => "model strategies: threshold up (fewer cuts)",
            Action::ThresholdDown => "model strategies: threshold down (more cuts)",
            Action::CycleThresholdType => "model strategies: next threshold type",
            Action::None => "nothing",
        }
    }
}

/// A key as written in keymap files: `q`, `?`, `ctrl-s`, `shift-tab`, `pgdn`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key {
    pub code: KeyCode,
    pub mods: KeyModifiers,
}

impl Key {
    pub fn from_event(ev: &KeyEvent) -> Key {
        let mut mods = ev.modifiers & (KeyModifiers::CONTROL | KeyModifiers::ALT | KeyModifiers::SHIFT);
        let code = match ev.code {
            // The char already carries the shift: `N`, not `shift-n`.
            KeyCode::Char(c) => {
                mods.remove(KeyModifiers::SHIFT);
                KeyCode::Char(c)
            }
            KeyCode::BackTab => {
                mods.remove(KeyModifiers::SHIFT);
                KeyCode::BackTab
            }
            c => c,
        };
        Key { code, mods }
    }

    pub fn parse(s: &str) -> Result<Key> {
        let bad =
            || Error::config(format!("keymap: cannot read key '{s}' (try 'q', 'ctrl-s', 'shift-up', 'pgdn', 'f1')"));
        let mut mods = KeyModifiers::NONE;
        let mut rest = s;
        loop {
            let lower = rest.to_ascii_lowercase();
            let (m, len) = if lower.starts_with("ctrl-") {
                (KeyModifiers::CONTROL, 5)
            } else if lower.starts_with("alt-") {
                (KeyModifiers::ALT, 4)
            } else if lower.starts_with("shift-") {
                (KeyModifiers::SHIFT, 6)
            } else {
                break;
            };
            if rest.len() == len {
                break; // "-" itself after a modifier, e.g. "ctrl--" is handled below
            }
            mods |= m;
            rest = &rest[len..];
        }
        let mut chars = rest.chars();
        let code = match (chars.next(), chars.next()) {
            (Some(c), None) => {
                if mods.contains(KeyModifiers::SHIFT) && c.is_ascii_alphabetic() {
                    mods.remove(KeyModifiers::SHIFT);
                    KeyCode::Char(c.to_ascii_uppercase())
                } else {
                    KeyCode::Char(c)
                }
            }
            _ => match rest.to_ascii_lowercase().as_str() {
                "up" => KeyCode::Up,
                "down" => KeyCode::Down,
                "left" => KeyCode::Left,
                "right" => KeyCode::Right,
                "pgup" | "pageup" => KeyCode::PageUp,
                "pgdn" | "pagedown" => KeyCode::PageDown,
                "home" => KeyCode::Home,
                "end" => KeyCode::End,
                "enter" | "return" => KeyCode::Enter,
                "esc" | "escape" => KeyCode::Esc,
                "tab" => KeyCode::Tab,
                "backtab" => KeyCode::BackTab,
                "space" => KeyCode::Char(' '),
                "backspace" => KeyCode::Backspace,
                "delete" | "del" => KeyCode::Delete,
                f if f.starts_with('f') => KeyCode::F(f[1..].parse().map_err(|_| bad())?),
                _ => return Err(bad()),
            },
        };
        if code == KeyCode::Tab && mods.contains(KeyModifiers::SHIFT) {
            mods.remove(KeyModifiers::SHIFT);
            return Ok(Key { code: KeyCode::BackTab, mods });
        }
        Ok(Key { code, mods })
    }

    pub fn label(&self) -> String {
        let mut s = String::new();
        if self.mods.contains(KeyModifiers::CONTROL) {
            s.push_str("ctrl-");
        }
        if self.mods.contains(KeyModifiers::ALT) {
            s.push_str("alt-");
        }
        if self.mods.contains(KeyModifiers::SHIFT) {
            s.push_str("shift-");
        }
        match self.code {
            KeyCode::Char(' ') => s.push_str("space"),
            KeyCode::Char(c) => s.push(c),
            KeyCode::F(n) => s.push_str(&format!("f{n}")),
            KeyCode::PageUp => s.push_str("pgup"),
            KeyCode::PageDown => s.push_str("pgdn"),
            c => s.push_str(&format!("{c:?}").to_ascii_lowercase()),
        }
        s
    }
}

const DEFAULTS: &[(&str, Action)] = &[
    ("q", Action::Quit),
    ("ctrl-c", Action::Quit),
    ("?", Action::Help),
    ("up", Action::ScrollUp),
    ("k", Action::ScrollUp),
    ("down", Action::ScrollDown),
    ("j", Action::ScrollDown),
    ("pgup", Action::PageUp),
    ("pgdn", Action::PageDown),
    ("space", Action::PageDown),
    ("home", Action::Top),
    ("g", Action::Top),
    ("end", Action::Bottom),
    ("G", Action::Bottom),
    ("n", Action::NextChunk),
    ("right", Action::NextChunk),
    ("N", Action::PrevChunk),
    ("left", Action::PrevChunk),
    ("/", Action::Search),
    ("+", Action::SizeUp),
    ("=", Action::SizeUp),
    ("-", Action::SizeDown),
    (">", Action::SizeUpBig),
    ("<", Action::SizeDownBig),
    ("_", Action::SizeDownBig),
    ("]", Action::OverlapUp),
    ("[", Action::OverlapDown),
    ("}", Action::OverlapUpBig),
    ("{", Action::OverlapDownBig),
    ("s", Action::CycleStrategy),
    ("S", Action::CycleStrategyAll),
    ("u", Action::CycleUnit),
    ("t", Action::CycleTokenizer),
    ("p", Action::CyclePreset),
    ("o", Action::CycleOption),
    ("O", Action::CycleMaxSentences),
    ("e", Action::ExportConfig),
    ("ctrl-s", Action::ExportConfig),
    ("E", Action::ExportChunks),
    ("c", Action::ToggleCompare),
    ("tab", Action::SwitchPane),
    ("y", Action::CopyToOtherPane),
    (".", Action::ThresholdUp),
    (",", Action::ThresholdDown),
    ("T", Action::CycleThresholdType),
];

#[derive(Debug, Clone, PartialEq)]
pub struct Keymap {
    map: HashMap<Key, Action>,
}

impl Default for Keymap {
    fn default() -> Self {
        let map = DEFAULTS.iter().map(|(k, a)| (Key::parse(k).expect("default key parses"), *a)).collect();
        Keymap { map }
    }
}

impl Keymap {
    /// The defaults with a TOML file's bindings on top.
    pub fn load(path: Option<&std::path::Path>) -> Result<Keymap> {
        let mut km = Keymap::default();
        if let Some(path) = path {
            let text = crate::input::read_text_capped(path, &crate::input::Cap::settings("keymap file")?)?;
            km.apply_toml(&text).map_err(|e| Error::config(format!("{}: {e}", path.display())))?;
        }
        Ok(km)
    }

    pub fn apply_toml(&mut self, text: &str) -> Result<()> {
        let table: HashMap<String, Action> =
            toml::from_str(text).map_err(|e| Error::config(format!("keymap: {}", e.message().trim())))?;
        for (k, a) in table {
            self.map.insert(Key::parse(&k)?, a);
        }
        Ok(())
    }

    pub fn action(&self, ev: &KeyEvent) -> Option<Action> {
        self.map.get(&Key::from_event(ev)).copied().filter(|a| *a != Action::None)
    }

    /// Keys bound to an action, shortest first (for the footer and help).
    pub fn keys_for(&self, action: Action) -> Vec<String> {
        let mut keys: Vec<String> = self.map.iter().filter(|(_, a)| **a == action).map(|(k, _)| k.label()).collect();
        keys.sort_by_key(|k| (k.len(), k.clone()));
        keys
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_parse_and_toml_overrides() {
        assert_eq!(Key::parse("ctrl-s").unwrap(), Key { code: KeyCode::Char('s'), mods: KeyModifiers::CONTROL });
        assert_eq!(Key::parse("shift-n").unwrap(), Key::parse("N").unwrap());
        assert_eq!(Key::parse("-").unwrap().code, KeyCode::Char('-'));
        let mut km = Keymap::default();
        km.apply_toml("\"x\" = \"export_config\"\n\"q\" = \"none\"").unwrap();
        let ev = KeyEvent::new(KeyCode::Char('x'), KeyModifiers::NONE);
        assert_eq!(km.action(&ev), Some(Action::ExportConfig));
        assert_eq!(km.action(&KeyEvent::new(KeyCode::Char('q'), KeyModifiers::NONE)), None);
        assert!(km.apply_toml("\"x\" = \"fly\"").unwrap_err().to_string().contains("fly"));
    }
}
