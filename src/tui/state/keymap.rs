//! Key bindings: an [`Action`] per key. Defaults and help lines in
//! `assets/keymap.toml` (embedded at build time), and each panel's in the
//! panel table (given to [`Keymap::new`]); a TOML file (`--keymap PATH`)
//! adds or replaces bindings: `"ctrl-s" = "export_config"`, `"ctrl-l" = "lint_panel"`.

use crate::error::{Error, Result};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde::de::IntoDeserializer;
use serde::Deserialize;
use std::collections::HashMap;
use std::sync::OnceLock;

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
    /// Hierarchical: show the next level.
    CycleLevel,
    ExportConfig,
    ExportChunks,
    ToggleCompare,
    SwitchPane,
    CopyToOtherPane,
    ThresholdUp,
    ThresholdDown,
    CycleThresholdType,
    /// Query probe: type a question, light up the chunks it retrieves.
    Ask,
    ClearProbe,
    CycleRetriever,
    SortByScore,
    NextQuestion,
    /// The LLM writes questions about the document into the probe panel.
    GenerateQuestions,
    /// Contextual text: off, on, on and held to the size.
    CycleEmbedText,
    /// Chunk lint: select the chunk of the next finding.
    NextFinding,
    /// Hand-made boundaries: move the selected chunk's start back a sentence.
    StartBackSentence,
    /// Hand-made boundaries: move the selected chunk's start forward a sentence.
    StartForwardSentence,
    /// Hand-made boundaries: move the selected chunk's start back a word.
    StartBackWord,
    /// Hand-made boundaries: move the selected chunk's start forward a word.
    StartForwardWord,
    /// Hand-made boundaries: split the selected chunk in two.
    SplitChunk,
    /// Hand-made boundaries: join the selected chunk with the next.
    JoinNext,
    /// Hand-made boundaries: undo the last change to the edits.
    UndoEdit,
    /// Hand-made boundaries: redo what undo undid.
    RedoEdit,
    /// Show / hide the panel of the panel table with this name (its
    /// action name in keymap files: `lint_panel`); the table lists the
    /// panels, so a keymap file's name is read against [`Keymap::new`]'s.
    #[serde(skip)]
    TogglePanel(PanelName),
    /// Does nothing: unbinds a default key.
    None,
}

/// A panel's name, `lint_panel`. (Named, not written `&'static str` in
/// [`Action`]: serde's derive would then make every `Action` borrow from
/// its input, though this variant is never read.)
pub type PanelName = &'static str;

impl Action {
    /// The panel a [`Action::TogglePanel`] shows or hides.
    pub fn panel_name(self) -> Option<PanelName> {
        match self {
            Action::TogglePanel(name) => Some(name),
            _ => None,
        }
    }

    /// The help screen's line for this action (from `assets/keymap.toml`).
    pub fn describe(self) -> &'static str {
        default_bindings().iter().find(|b| b.action == self).map_or("nothing", |b| b.description.as_str())
    }
}

/// One action of `assets/keymap.toml` (or a panel's): its default keys and
/// its help line.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Binding {
    pub action: Action,
    pub keys: Vec<String>,
    pub description: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct KeymapAsset {
    binding: Vec<Binding>,
}

const KEYMAP_ASSET: &str = include_str!("../../../assets/keymap.toml");

/// The default bindings, in help order, parsed once from the embedded asset
/// (a unit test proves it parses and covers every action).
pub fn default_bindings() -> &'static [Binding] {
    static BINDINGS: OnceLock<Vec<Binding>> = OnceLock::new();
    BINDINGS.get_or_init(|| {
        toml::from_str::<KeymapAsset>(KEYMAP_ASSET).expect("assets/keymap.toml is valid (see the keymap tests)").binding
    })
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

#[derive(Debug, Clone, PartialEq)]
pub struct Keymap {
    map: HashMap<Key, Action>,
    /// The panels' bindings ([`Action::TogglePanel`]), after the asset's in help order.
    panels: Vec<Binding>,
}

impl Keymap {
    /// The default bindings: the asset's, and the panels' (each a
    /// [`Action::TogglePanel`] binding, whose keys the asset does not bind).
    pub fn new(panels: Vec<Binding>) -> Keymap {
        let map = default_bindings()
            .iter()
            .chain(&panels)
            .flat_map(|b| b.keys.iter().map(|k| (Key::parse(k).expect("default key parses"), b.action)))
            .collect();
        Keymap { map, panels }
    }

    /// These bindings with a TOML file's on top.
    pub fn with_file(mut self, path: Option<&std::path::Path>) -> Result<Keymap> {
        if let Some(path) = path {
            let text = crate::input::read_text_capped(path, &crate::input::Cap::settings("keymap file")?)?;
            self.apply_toml(&text).map_err(|e| Error::config(format!("{}: {e}", path.display())))?;
        }
        Ok(self)
    }

    /// Every action's default binding, in help order: the asset's, then the panels'.
    pub fn bindings(&self) -> impl Iterator<Item = &Binding> {
        default_bindings().iter().chain(&self.panels)
    }

    pub fn apply_toml(&mut self, text: &str) -> Result<()> {
        let table: HashMap<String, String> =
            toml::from_str(text).map_err(|e| Error::config(format!("keymap: {}", e.message().trim())))?;
        let mut bound = Vec::with_capacity(table.len());
        for (k, name) in table {
            bound.push((Key::parse(&k)?, self.action_named(&name)?));
        }
        self.map.extend(bound);
        Ok(())
    }

    /// The action a keymap file names: one of [`Action`]'s, or a panel's.
    fn action_named(&self, name: &str) -> Result<Action> {
        if let Some(b) = self.panels.iter().find(|b| b.action.panel_name() == Some(name)) {
            return Ok(b.action);
        }
        Action::deserialize(name.into_deserializer()).map_err(|e: serde::de::value::Error| {
            let panels: Vec<String> =
                self.panels.iter().filter_map(|b| b.action.panel_name()).map(|n| format!("`{n}`")).collect();
            let or_panel =
                if panels.is_empty() { String::new() } else { format!(", or a panel: {}", panels.join(", ")) };
            Error::config(format!("keymap: {e}{or_panel}"))
        })
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
        let mut km = Keymap::new(Vec::new());
        km.apply_toml("\"x\" = \"export_config\"\n\"q\" = \"none\"").unwrap();
        let ev = KeyEvent::new(KeyCode::Char('x'), KeyModifiers::NONE);
        assert_eq!(km.action(&ev), Some(Action::ExportConfig));
        assert_eq!(km.action(&KeyEvent::new(KeyCode::Char('q'), KeyModifiers::NONE)), None);
        assert!(km.apply_toml("\"x\" = \"fly\"").unwrap_err().to_string().contains("fly"));
    }

    #[test]
    fn a_panels_keys_bind_and_a_keymap_file_rebinds_it_by_name() {
        let panel =
            Binding { action: Action::TogglePanel("histogram_panel"), keys: vec!["H".into()], description: "x".into() };
        let mut km = Keymap::new(vec![panel]);
        let key = |c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE);
        assert_eq!(km.action(&key('H')), Some(Action::TogglePanel("histogram_panel")));
        km.apply_toml("\"H\" = \"none\"\n\"%\" = \"histogram_panel\"").unwrap();
        assert_eq!((km.action(&key('H')), km.action(&key('%'))), (None, Some(Action::TogglePanel("histogram_panel"))));
        assert_eq!(km.keys_for(Action::TogglePanel("histogram_panel")), ["%"]);
        assert_eq!(km.bindings().last().map(|b| b.action), Some(Action::TogglePanel("histogram_panel")));
        let err = km.apply_toml("\"x\" = \"fly_panel\"").unwrap_err().to_string();
        assert!(err.contains("`fly_panel`") && err.contains("or a panel: `histogram_panel`"), "{err}");
    }

    /// Every action's name, read from serde's "unknown variant" message, so a
    /// new variant is covered without being listed here as well.
    fn all_action_names() -> Vec<String> {
        let err = toml::from_str::<HashMap<String, Action>>("\"x\" = \"?\"").unwrap_err().to_string();
        let list = err.split("expected one of").nth(1).expect("serde lists the variants");
        list.split(',').map(|n| n.trim().trim_matches('`').to_string()).filter(|n| !n.is_empty()).collect()
    }

    #[test]
    fn keymap_asset_covers_every_action_once() {
        let names = all_action_names();
        assert!(names.len() > 30 && names.contains(&"none".to_string()), "{names:?}");
        let bindings = default_bindings();
        for name in names.iter().filter(|n| *n != "none") {
            let action: Action =
                toml::from_str::<HashMap<String, Action>>(&format!("k = \"{name}\"")).expect("an action name")["k"];
            let found: Vec<&Binding> = bindings.iter().filter(|b| b.action == action).collect();
            assert_eq!(found.len(), 1, "{name} needs exactly one [[binding]] in assets/keymap.toml");
            assert!(!found[0].keys.is_empty(), "{name} has no default key");
            assert!(!found[0].description.trim().is_empty(), "{name} has no description");
            assert_eq!(action.describe(), found[0].description);
        }
        assert!(bindings.iter().all(|b| b.action != Action::None), "'none' is for user keymaps only");
        // Each default key is bound once: a repeat would silently shadow an action.
        let mut keys: Vec<Key> = bindings.iter().flat_map(|b| &b.keys).map(|k| Key::parse(k).unwrap()).collect();
        let count = keys.len();
        keys.sort_by_key(|k| k.label());
        keys.dedup();
        assert_eq!(keys.len(), count, "a key is bound twice in assets/keymap.toml");
        assert_eq!(Keymap::new(Vec::new()).keys_for(Action::SizeUp), ["+", "="]);
    }
}
