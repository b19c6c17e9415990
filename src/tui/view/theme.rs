//! Colour themes: plain TOML files (themes/*.toml, embedded in the binary) or
//! a user's file. With NO_COLOR set, chunks alternate by text style instead.

use crate::error::{Error, Result};
use ratatui::style::{Color, Modifier, Style};
use serde::Deserialize;
use std::str::FromStr;

pub const BUILTIN: [(&str, &str); 3] = [
    ("dark", include_str!("../../../themes/dark.toml")),
    ("light", include_str!("../../../themes/light.toml")),
    ("high-contrast", include_str!("../../../themes/high-contrast.toml")),
];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ThemeFile {
    name: String,
    syntect: Option<String>,
    text: String,
    dim: String,
    accent: String,
    warn: String,
    error: String,
    chunks: Vec<String>,
    overlap_bg: String,
    overlap_fg: String,
    selected_bg: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Theme {
    pub name: String,
    /// Name of the syntect theme giving the syntax foreground colours.
    pub syntect: Option<String>,
    pub no_color: bool,
    pub text: Style,
    pub dim: Style,
    pub accent: Style,
    pub warn: Style,
    pub error: Style,
    /// Backgrounds of chunks, cycled by index.
    pub chunks: Vec<Style>,
    pub overlap: Style,
    pub selected: Style,
    /// Text of a chunk the query probe retrieved (over its chunk background).
    pub hit: Style,
    /// The rank badge (`#1 0.82`) of a retrieved chunk.
    pub badge: Style,
    /// The selected question's answer in the text (added to the cell's style).
    pub reference: Style,
}

impl Theme {
    /// `--theme` (a built-in name or a path); NO_COLOR wins over both.
    pub fn resolve(spec: Option<&str>, no_color: bool) -> Result<Theme> {
        if no_color {
            return Ok(Theme::no_color());
        }
        let spec = spec.unwrap_or("dark");
        if let Some((_, text)) = BUILTIN.iter().find(|(n, _)| *n == spec) {
            return Theme::parse(text);
        }
        let path = std::path::Path::new(spec);
        if !path.exists() {
            let names: Vec<_> = BUILTIN.iter().map(|(n, _)| *n).collect();
            return Err(Error::config(format!(
                "theme '{spec}' is neither a built-in theme ({}) nor an existing file",
                names.join(", ")
            )));
        }
        let text = crate::input::read_text_capped(path, &crate::input::Cap::settings("theme file")?)?;
        Theme::parse(&text).map_err(|e| Error::config(format!("{}: {e}", path.display())))
    }

    /// Whether the NO_COLOR convention asks for no colour (set and not empty).
    pub fn no_color_env() -> bool {
        std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
    }

    pub fn dark() -> Theme {
        Theme::parse(BUILTIN[0].1).expect("built-in theme parses")
    }

    pub fn parse(text: &str) -> Result<Theme> {
        let f: ThemeFile = toml::from_str(text).map_err(|e| Error::config(format!("theme: {}", e.message())))?;
        let c = |s: &str| Color::from_str(s).map_err(|_| Error::config(format!("theme: '{s}' is not a colour")));
        let text_fg = c(&f.text)?;
        if f.chunks.len() < 2 {
            return Err(Error::config("theme: give at least two chunk colours"));
        }
        let warn = c(&f.warn)?;
        let accent = c(&f.accent)?;
        let chunks = f.chunks.iter().map(|s| Ok(Style::new().fg(text_fg).bg(c(s)?))).collect::<Result<Vec<_>>>()?;
        Ok(Theme {
            name: f.name,
            syntect: f.syntect,
            no_color: false,
            text: Style::new().fg(text_fg),
            dim: Style::new().fg(c(&f.dim)?),
            accent: Style::new().fg(c(&f.accent)?).add_modifier(Modifier::BOLD),
            warn: Style::new().fg(c(&f.warn)?).add_modifier(Modifier::BOLD),
            error: Style::new().fg(c(&f.error)?).add_modifier(Modifier::BOLD),
            chunks,
            overlap: Style::new().fg(c(&f.overlap_fg)?).bg(c(&f.overlap_bg)?).add_modifier(Modifier::UNDERLINED),
            selected: Style::new().fg(text_fg).bg(c(&f.selected_bg)?).add_modifier(Modifier::BOLD),
            hit: Style::new().fg(warn).add_modifier(Modifier::BOLD),
            badge: Style::new().fg(Color::Black).bg(warn).add_modifier(Modifier::BOLD),
            reference: Style::new().add_modifier(Modifier::UNDERLINED).underline_color(accent),
        })
    }

    /// No colours at all: chunks alternate plain / underlined, overlaps are
    /// reversed, the selected chunk is bold and italic.
    pub fn no_color() -> Theme {
        Theme {
            name: "no-color".into(),
            syntect: None,
            no_color: true,
            text: Style::new(),
            dim: Style::new().add_modifier(Modifier::DIM),
            accent: Style::new().add_modifier(Modifier::BOLD),
            warn: Style::new().add_modifier(Modifier::BOLD),
            error: Style::new().add_modifier(Modifier::BOLD | Modifier::REVERSED),
            chunks: vec![Style::new(), Style::new().add_modifier(Modifier::UNDERLINED)],
            overlap: Style::new().add_modifier(Modifier::REVERSED),
            selected: Style::new().add_modifier(Modifier::BOLD | Modifier::ITALIC),
            hit: Style::new().add_modifier(Modifier::BOLD),
            badge: Style::new().add_modifier(Modifier::BOLD | Modifier::REVERSED),
            reference: Style::new().add_modifier(Modifier::UNDERLINED),
        }
    }

    pub fn chunk(&self, k: usize) -> Style {
        self.chunks[k % self.chunks.len()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_themes_parse_and_overlap_differs_from_chunks() {
        for (name, _) in BUILTIN {
            let t = Theme::resolve(Some(name), false).unwrap();
            assert!(t.chunks.iter().all(|c| c.bg != t.overlap.bg), "{name}");
            assert!(t.chunks.windows(2).all(|w| w[0] != w[1]), "{name}");
        }
    }

    #[test]
    fn unknown_theme_is_explained() {
        let err = Theme::resolve(Some("nope"), false).unwrap_err().to_string();
        assert!(err.contains("dark, light, high-contrast"), "{err}");
    }
}
