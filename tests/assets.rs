//! The data files in `assets/` (embedded at build time) say what the code
//! did before they existed: the annotated default config is exactly the
//! defaults, and the separator presets keep their names and order.

use chunktui::config::{
    AgenticOptions, ChunkConfig, ClusterOptions, CodeOptions, EmbedTextOptions, HierarchicalOptions, LangchainOptions,
    LintOptions, LlmOptions, MarkdownOptions, RecursiveOptions, SemanticOptions, SentenceOptions,
};
use chunktui::strategy::recursive::{preset_names, Separators};
use chunktui::strategy::StrategyKind;
use std::process::Command;

const DEFAULT_CONFIG: &str = include_str!("../assets/default-config.toml");

#[test]
fn annotated_default_config_parses_to_the_defaults() {
    let parsed = ChunkConfig::parse(DEFAULT_CONFIG, false).expect("assets/default-config.toml parses");
    assert_eq!(parsed, ChunkConfig::default());
    parsed.validate().expect("the defaults are valid");
}

/// What `ChunkConfig::default()` serialises to, sub-tables included (its
/// `to_toml` leaves them out while they are at their defaults).
fn defaults_as_toml() -> toml::Table {
    let mut table = toml::Table::try_from(ChunkConfig::default()).unwrap();
    let sections = [
        ("recursive", toml::Value::try_from(RecursiveOptions::default())),
        ("sentence", toml::Value::try_from(SentenceOptions::default())),
        ("markdown", toml::Value::try_from(MarkdownOptions::default())),
        ("langchain", toml::Value::try_from(LangchainOptions::default())),
        ("semantic", toml::Value::try_from(SemanticOptions::default())),
        ("embed_text", toml::Value::try_from(EmbedTextOptions::default())),
        ("json", toml::Value::try_from(chunktui::config::JsonOptions::default())),
        ("fast", toml::Value::try_from(chunktui::config::FastOptions::default())),
        ("hierarchical", toml::Value::try_from(HierarchicalOptions::default())),
        ("cluster", toml::Value::try_from(ClusterOptions::default())),
        ("code", toml::Value::try_from(CodeOptions::default())),
        ("lint", toml::Value::try_from(LintOptions::default())),
        ("llm", toml::Value::try_from(LlmOptions::default())),
        ("agentic", toml::Value::try_from(AgenticOptions::default())),
        ("generate", toml::Value::try_from(chunktui::config::GenerateOptions::default())),
        ("embed", toml::Value::try_from(chunktui::config::EmbedApiOptions::default())),
    ];
    for (name, value) in sections {
        table.insert(name.to_string(), value.unwrap());
    }
    // Every section the config has is above (the schema lists them all).
    let schema: serde_json::Value = serde_json::from_str(&chunktui::config::json_schema()).unwrap();
    for (key, property) in schema["properties"].as_object().unwrap() {
        let target = property["$ref"].as_str().and_then(|r| r.strip_prefix("#/$defs/"));
        let is_section = target.is_some_and(|name| schema["$defs"][name]["type"] == "object");
        assert!(!is_section || table.contains_key(key), "[{key}] is missing from defaults_as_toml");
    }
    table
}

/// The file's first comment names every strategy.
#[test]
fn annotated_default_config_names_every_strategy() {
    let about_strategy: String = DEFAULT_CONFIG.split("\nstrategy = ").next().unwrap().lines().rev().take(6).collect();
    for kind in StrategyKind::ALL {
        assert!(about_strategy.contains(kind.name()), "the comment over `strategy` does not name {}", kind.name());
    }
}

#[test]
fn annotated_default_config_writes_out_every_key() {
    let written: toml::Table = toml::from_str(DEFAULT_CONFIG).unwrap();
    let defaults = defaults_as_toml();
    for (key, value) in &defaults {
        match value {
            toml::Value::Table(section) => {
                let in_file = written.get(key).and_then(|v| v.as_table());
                let in_file = in_file.unwrap_or_else(|| panic!("[{key}] is missing"));
                for (sub, v) in section {
                    assert_eq!(in_file.get(sub), Some(v), "{key}.{sub} is missing or not the default");
                }
            }
            v => assert_eq!(written.get(key), Some(v), "{key} is missing or not the default"),
        }
    }
    assert_eq!(written, defaults, "the file has keys the config does not");
}

/// The optional keys are shown commented out (`# threshold = 90`): each
/// example, uncommented, must be a real key that parses.
#[test]
fn commented_out_examples_are_real_keys() {
    let examples: Vec<&str> = DEFAULT_CONFIG
        .lines()
        .filter(|l| l.strip_prefix("# ").is_some_and(|rest| rest.split_once(" = ").is_some_and(|(k, _)| is_key(k))))
        .collect();
    assert!(examples.len() >= 10, "{examples:?}");
    for line in examples {
        let text = DEFAULT_CONFIG.replacen(line, &line[2..], 1);
        let config = ChunkConfig::parse(&text, false).unwrap_or_else(|e| panic!("{line}: {e}"));
        assert_ne!(config, ChunkConfig::default(), "{line} changes nothing");
    }
}

fn is_key(word: &str) -> bool {
    !word.is_empty() && word.chars().all(|c| c.is_ascii_lowercase() || c == '_')
}

fn chunktui(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_chunktui")).args(args).output().expect("chunktui runs");
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn config_init_prints_the_annotated_defaults() {
    let text = chunktui(&["config", "init"]);
    assert_eq!(text, DEFAULT_CONFIG);
    assert_eq!(ChunkConfig::parse(&text, false).unwrap(), ChunkConfig::default());
    // With flags it prints the config they make, as before.
    let sized = chunktui(&["config", "init", "--size", "5"]);
    assert!(sized.contains("size = 5\n") && !sized.contains("[semantic]"), "{sized}");
    assert_eq!(ChunkConfig::parse(&sized, false).unwrap().size, 5);
    let json = chunktui(&["config", "init", "--json"]);
    assert_eq!(ChunkConfig::parse(&json, true).unwrap(), ChunkConfig::default());
}

#[test]
fn separator_presets_keep_their_names_order_and_aliases() {
    let names = ["english", "chinese", "markdown", "rust", "python", "javascript", "go", "java", "c", "code"];
    assert_eq!(preset_names(), names);
    for name in names.into_iter().chain(["default", "zh"]) {
        let levels = Separators::preset(name).unwrap_or_else(|e| panic!("{name}: {e}")).0;
        assert!(matches!(levels.last(), Some(chunktui::strategy::recursive::Sep::Grapheme)), "{name}");
    }
    let err = Separators::preset("klingon").unwrap_err().to_string();
    assert!(
        err.contains("use one of english, chinese, markdown, rust, python, javascript, go, java, c, code"),
        "{err}"
    );
}

/// assets/config.schema.json is what the Rust types generate: a change to
/// the config without regenerating it fails here.
#[test]
fn checked_in_config_schema_matches_the_types() {
    let checked_in = include_str!("../assets/config.schema.json");
    let generated = chunktui::config::json_schema();
    assert!(
        checked_in == generated,
        "assets/config.schema.json is out of date: run `cargo run -- config schema > assets/config.schema.json` \
         and commit it"
    );
    let schema: serde_json::Value = serde_json::from_str(&generated).unwrap();
    // Every top-level key of a config is described, and unknown keys are refused as the parser refuses them.
    let defaults = defaults_as_toml();
    for key in defaults.keys() {
        assert!(schema["properties"].get(key).is_some(), "{key} is not in the schema");
    }
    assert_eq!(schema["additionalProperties"], false);
}
