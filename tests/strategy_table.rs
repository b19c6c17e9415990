//! The strategy table is the one list of strategies: every kind in it goes
//! through a config round trip, the command line (flag and help) and the
//! workbench's parameter panel and keys. A new row is covered here without
//! touching this file.

use chunktui::cli::args::Values;
use chunktui::cli::ChunkFlags;
use chunktui::config::{ChunkConfig, StrategyKind};
use chunktui::document::{DocKind, Document};
use chunktui::tui::keymap::Action;
use chunktui::tui::model::Model;
use chunktui::tui::params;
use chunktui::tui::theme::Theme;
use chunktui::tui::view::side;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use std::process::Command;

fn config_for(kind: StrategyKind) -> ChunkConfig {
    let mut c = ChunkConfig { strategy: kind, size: 300, overlap: 30, ..ChunkConfig::default() };
    // The LLM strategies need an endpoint named (none is asked here).
    if kind.needs_llm() {
        c.llm.url = Some("http://127.0.0.1:9/v1".into());
        c.llm.model = Some("any".into());
    }
    c.normalize();
    c
}

#[test]
fn every_strategy_survives_a_config_round_trip() {
    for &kind in StrategyKind::ALL {
        let c = config_for(kind);
        c.validate().unwrap_or_else(|e| panic!("{kind}: {e}"));
        let toml = c.to_toml();
        assert!(toml.contains(&format!("strategy = \"{}\"", kind.name())), "{kind}: {toml}");
        assert_eq!(ChunkConfig::parse(&toml, false).unwrap(), c, "{kind} through TOML");
        assert_eq!(ChunkConfig::parse(&c.to_json(), true).unwrap(), c, "{kind} through JSON");
    }
    // An unknown name is refused with the table's names.
    let err = ChunkConfig::parse("version = 1\nstrategy = \"nope\"\nunit = \"chars\"\nsize = 5\n", false).unwrap_err();
    for name in StrategyKind::NAMES {
        assert!(err.to_string().contains(name), "{err}");
    }
}

#[test]
fn every_strategy_parses_from_the_command_line() {
    for &kind in StrategyKind::ALL {
        let flags = ChunkFlags {
            strategy: Some(kind.name().into()),
            size: Some(Values::one(300)),
            llm_url: Some("http://127.0.0.1:9/v1".into()),
            llm_model: Some("any".into()),
            ..ChunkFlags::default()
        };
        let c = flags.resolve().unwrap_or_else(|e| panic!("--strategy {kind}: {e}"));
        assert_eq!(c.strategy, kind);
        if let Some(unit) = kind.spec().forces_unit {
            assert_eq!(c.unit, unit, "{kind} always counts {unit}");
        }
    }
    let err = ChunkFlags { strategy: Some("nope".into()), ..ChunkFlags::default() }.resolve().unwrap_err();
    assert!(err.to_string().contains(&StrategyKind::NAMES.join(", ")), "{err}");
}

#[test]
fn chunk_help_lists_every_strategy_with_its_line() {
    let out = Command::new(env!("CARGO_BIN_EXE_chunktui")).args(["chunk", "--help"]).output().expect("run chunktui");
    assert!(out.status.success());
    // The help wraps to the terminal width: compare with whitespace squeezed.
    let squeeze = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let help = squeeze(&String::from_utf8_lossy(&out.stdout));
    for &kind in StrategyKind::ALL {
        let spec = kind.spec();
        assert!(help.contains(&squeeze(spec.help)), "--help lacks {}'s line: {help}", spec.name);
        for option in spec.options {
            assert!(help.contains(option), "--help lacks {option} of {}", spec.name);
        }
    }
    let short = Command::new(env!("CARGO_BIN_EXE_chunktui")).args(["chunk", "-h"]).output().expect("run chunktui");
    assert!(squeeze(&String::from_utf8_lossy(&short.stdout)).contains(&StrategyKind::NAMES.join(", ")));
}

fn model_with(kind: StrategyKind) -> Model {
    let doc = Document::from_text("One sentence. Another one.\n\nA paragraph.".to_string(), DocKind::Text);
    let c = config_for(kind);
    Model::new(doc, c.clone(), c, Rect::new(0, 0, 120, 40))
}

fn panel_text(m: &Model) -> String {
    let area = Rect::new(0, 0, 60, 12);
    let mut buf = Buffer::empty(area);
    side::params(m, &Theme::dark(), area, &mut buf);
    (0..area.height)
        .map(|y| (0..area.width).map(|x| buf[(x, y)].symbol().to_string()).collect::<String>())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn every_strategy_shows_in_the_parameter_panel_with_its_own_knobs() {
    for &kind in StrategyKind::ALL {
        let m = model_with(kind);
        let panel = panel_text(&m);
        let spec = kind.spec();
        // Long names end in … so the key column stays put.
        let shown: String = kind.name().chars().take(20).collect();
        assert!(panel.contains(&shown), "{kind}: {panel}");
        let option = spec.option.map_or("-".to_string(), |o| (o.show)(&m.panes[0].config));
        assert_eq!(side::option_summary(&m, 0), option, "{kind}");
        assert_eq!(panel.contains("threshold"), spec.has_threshold, "{kind}: {panel}");
    }
}

#[test]
fn the_strategy_keys_visit_the_table_in_order_and_the_option_key_stays_valid() {
    let mut c = config_for(StrategyKind::ALL[0]);
    let mut all = vec![c.strategy];
    for _ in 1..StrategyKind::ALL.len() {
        params::apply(&mut c, Action::CycleStrategyAll, &[]).expect("a parameter action");
        all.push(c.strategy);
    }
    assert_eq!(all, StrategyKind::ALL);
    let mut c = config_for(StrategyKind::ALL[0]);
    let mut plain = Vec::new();
    for _ in 0..StrategyKind::ALL.len() {
        plain.push(c.strategy);
        params::apply(&mut c, Action::CycleStrategy, &[]).expect("a parameter action");
    }
    plain.sort_by_key(|k| StrategyKind::ALL.iter().position(|a| a == k));
    plain.dedup();
    let expected: Vec<_> = StrategyKind::ALL.iter().copied().filter(|k| k.is_plain()).collect();
    assert_eq!(plain, expected, "s cycles the strategies that need no model");
    for &kind in StrategyKind::ALL {
        let mut c = config_for(kind);
        for _ in 0..8 {
            let said = params::apply(&mut c, Action::CycleOption, &[]).expect("a parameter action");
            assert_eq!(c.strategy, kind);
            c.validate().unwrap_or_else(|e| panic!("{kind} after '{said}': {e}"));
        }
    }
}
