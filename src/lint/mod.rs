//! Chunk lint: the chunks a reviewer would send back. Each rule is one row of
//! [`RULES`] (name, one-line explanation, on by default or not, which
//! documents it reads); `[lint] off = [...]` in a config switches rules off
//! by name. `chunktui stats` and `chunktui lint` report the findings, the
//! workbench marks them in the margin.
//!
//! Prose rules ([`prose`]) apply to text and Markdown; the structure rules
//! ([`markdown`]) read Markdown with a CommonMark parser; the size rules apply
//! to every document. A hierarchical cut is linted one level at a time, each
//! level against its own size: a level's chunks are a complete cut of the
//! text, the levels together are not.

mod edits;
pub mod markdown;
mod options;
pub mod prose;
mod stream;
mod tally;

pub use stream::LintStream;
pub use tally::{with_kept_tally, with_tally, SharedTally};

#[cfg(feature = "embed")]
pub use options::model_tokens;
pub use options::{default_model_max_tokens, problems, LintOptions, TokenCount};

use crate::chunk::Chunk;
use crate::config::ChunkConfig;
use crate::strategy::SizeRule;
use serde::Serialize;
use std::ops::Range;

/// What a rule looks at, and so which documents it applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Sentences: text and Markdown (not code, not raw HTML).
    Prose,
    /// Markdown structure (fences, tables, headings).
    Markdown,
    /// Sizes: every document.
    Any,
    /// Every document but record data (JSON, JSONL, CSV): whose records
    /// are whole things, however short.
    Documents,
    /// Configs with hand-made boundaries (`[[edits]]`).
    Edits,
}

/// One row of the rule table.
#[derive(Debug, Clone, Copy)]
pub struct RuleSpec {
    pub rule: Rule,
    /// Its name in configs and reports (kebab-case).
    pub name: &'static str,
    /// One line for reports and the workbench.
    pub help: &'static str,
    /// On unless `[lint] off` names it.
    pub default_on: bool,
    pub scope: Scope,
}

/// The rules; [`RULES`] has one row for each, in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    MidSentence,
    SplitFence,
    SplitTable,
    OrphanHeading,
    TinyFragment,
    OverModelLimit,
    StaleEdit,
    JoinOverSize,
}

/// The rule table, in report order. Each rule's exact definition is the doc
/// comment of the function that checks it.
pub const RULES: &[RuleSpec] = &[
    RuleSpec {
        rule: Rule::MidSentence,
        name: "mid-sentence",
        help: "a chunk ends (or starts) inside a sentence although a sentence boundary lay close by",
        default_on: true,
        scope: Scope::Prose,
    },
    RuleSpec {
        rule: Rule::SplitFence,
        name: "split-fence",
        help: "a code block that fits in one chunk is split between chunks",
        default_on: true,
        scope: Scope::Markdown,
    },
    RuleSpec {
        rule: Rule::SplitTable,
        name: "split-table",
        help: "a table that fits in one chunk is split between chunks",
        default_on: true,
        scope: Scope::Markdown,
    },
    RuleSpec {
        rule: Rule::OrphanHeading,
        name: "orphan-heading",
        help: "a chunk ends with a heading whose text went to the next chunk",
        default_on: true,
        scope: Scope::Markdown,
    },
    RuleSpec {
        rule: Rule::TinyFragment,
        name: "tiny-fragment",
        help: "a chunk under a tenth of the size: too little to retrieve on its own",
        default_on: true,
        scope: Scope::Documents,
    },
    RuleSpec {
        rule: Rule::OverModelLimit,
        name: "over-model-limit",
        help: "a chunk (as embedded) has more tokens than the embedding model reads; the rest is cut off",
        default_on: true,
        scope: Scope::Any,
    },
    RuleSpec {
        rule: Rule::StaleEdit,
        name: "stale-edit",
        help: "a hand-made boundary ([[edits]]) whose text is gone or found more than once: not applied",
        default_on: true,
        scope: Scope::Edits,
    },
    RuleSpec {
        rule: Rule::JoinOverSize,
        name: "join-over-size",
        help: "a hand-made join keeps a chunk over the size (the join wins over the size)",
        default_on: true,
        scope: Scope::Edits,
    },
];

impl Rule {
    pub fn spec(self) -> &'static RuleSpec {
        &RULES[self as usize]
    }
    pub fn name(self) -> &'static str {
        self.spec().name
    }
    pub fn parse(name: &str) -> Option<Rule> {
        RULES.iter().find(|r| r.name == name).map(|r| r.rule)
    }
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Rule {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// One thing a rule found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    pub rule: Rule,
    /// Index of the chunk in the list that was linted.
    pub chunk: usize,
    /// The byte offset the finding points to (a cut, or the chunk's start).
    pub at: usize,
    pub message: Message,
}

/// A finding's message. Shared: a rule that fires on millions of chunks
/// (a large file cut small) says the same few things, held once each.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Message(std::sync::Arc<str>);

impl From<String> for Message {
    fn from(s: String) -> Self {
        Message(s.into())
    }
}

impl std::ops::Deref for Message {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for Message {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl Serialize for Message {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

/// One level of a cut: the indices of its chunks in text order, and the
/// size they were cut to.
pub struct Level {
    pub chunks: Vec<usize>,
    pub size: usize,
}

/// The levels of `chunks`: one for a flat cut; one per `meta.level` of a
/// hierarchical cut, each with its own size.
pub fn levels(chunks: &[Chunk], config: &ChunkConfig) -> Vec<Level> {
    let sizes = crate::strategy::hierarchical::level_sizes(config);
    let mut out: Vec<(Option<u8>, Level)> = Vec::new();
    for (i, c) in chunks.iter().enumerate() {
        let level = c.meta.level;
        match out.iter_mut().find(|(l, _)| *l == level) {
            Some((_, lv)) => lv.chunks.push(i),
            None => {
                let size = level.and_then(|l| sizes.get(l as usize).copied()).unwrap_or(config.size);
                out.push((level, Level { chunks: vec![i], size }));
            }
        }
    }
    out.sort_by_key(|(l, _)| *l);
    for (_, lv) in &mut out {
        lv.chunks.sort_by_key(|&i| (chunks[i].range.start, chunks[i].range.end));
    }
    out.into_iter().map(|(_, lv)| lv).collect()
}

/// Lint `chunks` (cut from `text`) with `opts`. Findings come in text order
/// (then rule order).
pub fn lint(text: &str, chunks: &[Chunk], opts: &LintOptions) -> Vec<Finding> {
    with_tally(text, opts, |tally| lint_with(text, chunks, opts, tally))
}

/// [`lint`], over-model-limit counting from `tally` (see [`with_tally`]).
pub fn lint_with(text: &str, chunks: &[Chunk], opts: &LintOptions, tally: Option<&SharedTally<'_>>) -> Vec<Finding> {
    let mut out = Vec::new();
    Reading::new(text, opts, tally).lint_into(chunks, 0, &mut out);
    edits::lint_edits(text, chunks, opts, &mut out);
    sort(&mut out);
    out
}

fn sort(findings: &mut [Finding]) {
    findings.sort_by_key(|f| (f.at, f.rule, f.chunk));
}

/// Texts at least this long are read on two threads (see [`Reading::new`]).
const PARALLEL_READING: usize = 1 << 18;

/// What the rules read of the whole text, parsed once: its Markdown blocks
/// and its sentences (when a rule that needs them is on).
pub struct Reading<'a> {
    text: &'a str,
    opts: &'a LintOptions,
    md: Option<std::sync::Arc<markdown::Blocks>>,
    prose: Option<prose::Sentences>,
    tally: Option<&'a SharedTally<'a>>,
}

/// Where a text's Markdown blocks are kept: the workbench lints after every
/// key press, and the blocks do not change with the settings.
const BLOCKS_KEY: &str = "lint blocks";

/// Parse what [`Reading::new`] will read of a large `text` linted under
/// `config`, now, on this thread (and a second): `stats` and `lint` do it
/// while the model's tokenizer loads, and the reading then waits for it
/// rather than parse the text again.
pub fn read_ahead(text: &str, config: &crate::config::ChunkConfig, kind: crate::document::DocKind) {
    if text.len() < PARALLEL_READING {
        return;
    }
    let rules = options::rules_for(config, kind);
    let md = rules.iter().any(|r| r.spec().scope == Scope::Markdown);
    let blocks = md.then(|| crate::size::doc_cache::claim(BLOCKS_KEY, text)).flatten();
    let sentences = rules.contains(&Rule::MidSentence).then(|| prose::Sentences::claim(text)).flatten();
    std::thread::scope(|scope| {
        if let Some(claim) = blocks {
            scope.spawn(move || claim.fill(markdown::Blocks::parse(text)));
        }
        if let Some(claim) = sentences {
            claim.fill(crate::segment::sentences(text));
        }
    });
}

/// Run `f` while other threads [`read_ahead`] what lint reads of a large `text`.
pub fn with_read_ahead<R>(
    text: &str,
    config: &crate::config::ChunkConfig,
    kind: crate::document::DocKind,
    f: impl FnOnce() -> R,
) -> R {
    if text.len() < PARALLEL_READING {
        return f();
    }
    std::thread::scope(|scope| {
        scope.spawn(|| read_ahead(text, config, kind));
        f()
    })
}

impl<'a> Reading<'a> {
    pub fn new(text: &'a str, opts: &'a LintOptions, tally: Option<&'a SharedTally<'a>>) -> Self {
        let blocks = || crate::size::doc_cache::get_or_build(BLOCKS_KEY, text, || Ok(markdown::Blocks::parse(text)));
        let md = || {
            let on = opts.rules.iter().any(|r| r.spec().scope == Scope::Markdown);
            on.then(|| blocks().unwrap_or_else(|_| std::sync::Arc::new(markdown::Blocks::parse(text))))
        };
        let prose = || opts.enabled(Rule::MidSentence).then(|| prose::Sentences::new(text));
        // A large text's blocks are parsed on a second thread while this one
        // finds its sentences: together they take longer than cutting it.
        let (md, prose) = match text.len() >= PARALLEL_READING {
            true => crate::parallel::join(md, prose),
            false => (md(), prose()),
        };
        Reading { text, opts, md, prose, tally }
    }

    /// The findings of `chunks`, unsorted, their chunk numbers counted from
    /// `first` (the number of `chunks[0]` in the whole cut).
    fn lint_into(&self, chunks: &[Chunk], first: usize, out: &mut Vec<Finding>) {
        let (text, opts, from) = (self.text, self.opts, out.len());
        for level in levels(chunks, &opts.config) {
            let cx = LevelCx { text, chunks, level: &level, opts };
            if let Some(s) = &self.prose {
                prose::mid_sentence(&cx, s, self.md.as_deref(), out);
            }
            if let Some(b) = &self.md {
                markdown::split_blocks(&cx, b, out);
                if opts.enabled(Rule::OrphanHeading) {
                    markdown::orphan_heading(&cx, b, out);
                }
            }
            if opts.enabled(Rule::TinyFragment) {
                prose::tiny_fragment(&cx, out);
            }
            if let Some(t) = &opts.tokens {
                prose::over_model_limit(&cx, t, self.tally, out);
            }
        }
        for f in &mut out[from..] {
            f.chunk += first;
        }
    }
}

/// What a rule reads for one level.
pub struct LevelCx<'a> {
    pub text: &'a str,
    pub chunks: &'a [Chunk],
    pub level: &'a Level,
    pub opts: &'a LintOptions,
}

impl LevelCx<'_> {
    /// The level's chunks in text order, with their indices.
    pub fn iter(&self) -> impl Iterator<Item = (usize, &Chunk)> + '_ {
        self.level.chunks.iter().map(|&i| (i, &self.chunks[i]))
    }

    /// Chunk `i`'s range without leading and trailing whitespace (clamped
    /// to the text: a chunk held against another text lints as empty).
    pub fn trimmed(&self, i: usize) -> Range<usize> {
        let r = &self.chunks[i].range;
        match self.text.get(r.clone()) {
            Some(_) => crate::segment::trim_range(self.text, r.clone()),
            None => 0..0,
        }
    }

    /// Whether the strategy reads `size` at all (cuts by meaning do not).
    pub fn sized(&self) -> bool {
        self.opts.config.strategy.spec().size != SizeRule::Ignored
    }
}

/// The rule table as help text (`chunktui lint --help`).
pub fn rules_help() -> String {
    let mut out = String::from("Rules (switch them off with `[lint] off = [\"NAME\", ...]` in a --config file):\n");
    for r in RULES {
        let only = match r.scope {
            Scope::Prose => " (text, Markdown)",
            Scope::Markdown => " (Markdown)",
            Scope::Any => "",
            Scope::Documents => " (not JSON, JSONL, CSV records)",
            Scope::Edits => " (configs with [[edits]])",
        };
        out.push_str(&format!("  {:<17} {}{only}\n", r.name, r.help));
    }
    out.push_str("Exit status: 0 no findings, 1 findings, 2 an error.");
    out
}

/// Findings per rule, every enabled rule present (zeros included), in table order.
pub fn counts(findings: &[Finding], opts: &LintOptions) -> Vec<(Rule, usize)> {
    opts.rules.iter().map(|&r| (r, findings.iter().filter(|f| f.rule == r).count())).collect()
}

/// Findings, perhaps only the first ones, and how many each rule found.
#[derive(Default)]
pub struct Linted {
    /// In text order (then rule order): all of them, or the first ones.
    pub findings: Vec<Finding>,
    /// Every finding counted, by `Rule as usize`.
    per_rule: [usize; RULES.len()],
    /// Messages held once each (up to [`SHARED_MESSAGES`] of them).
    shared: rustc_hash::FxHashSet<Message>,
}

/// Distinct messages [`Linted`] shares: a rule says a few things many times
/// (tiny-fragment: one message per size), or many things once each.
const SHARED_MESSAGES: usize = 4096;

impl Linted {
    /// `findings` (of [`lint`]), the first `keep` of them kept.
    pub fn of(findings: Vec<Finding>, keep: Option<usize>) -> Linted {
        let mut out = Linted::default();
        findings.into_iter().for_each(|f| out.add(f, keep));
        out.settle(keep);
        out
    }

    /// Count `f` and hold it; past twice `keep` held, keep the first `keep`
    /// (each finding then costs a constant on average).
    fn add(&mut self, mut f: Finding, keep: Option<usize>) {
        self.per_rule[f.rule as usize] += 1;
        match self.shared.get(&f.message) {
            Some(m) => f.message = m.clone(),
            None if self.shared.len() < SHARED_MESSAGES => {
                self.shared.insert(f.message.clone());
            }
            None => {}
        }
        self.findings.push(f);
        if keep.is_some_and(|n| self.findings.len() >= n.saturating_mul(2).max(1024)) {
            self.settle(keep);
        }
    }

    /// Sort, and keep the first `keep`.
    fn settle(&mut self, keep: Option<usize>) {
        sort(&mut self.findings);
        if let Some(n) = keep {
            self.findings.truncate(n);
        }
    }

    /// All findings, counted.
    pub fn total(&self) -> usize {
        self.per_rule.iter().sum()
    }

    /// Findings per enabled rule (zeros included), in table order.
    pub fn counts(&self, opts: &LintOptions) -> Vec<(Rule, usize)> {
        opts.rules.iter().map(|&r| (r, self.per_rule[r as usize])).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_has_one_row_per_rule_in_order_with_kebab_names() {
        for (i, r) in RULES.iter().enumerate() {
            assert_eq!(r.rule as usize, i, "{}", r.name);
            assert!(r.name.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'), "{}", r.name);
            assert!(!r.help.is_empty() && !r.help.contains('\n'), "{}", r.name);
            assert_eq!(Rule::parse(r.name), Some(r.rule));
        }
        assert_eq!(RULES.len(), Rule::JoinOverSize as usize + 1);
    }

    #[test]
    fn the_default_limit_is_the_default_models() {
        assert_eq!(default_model_max_tokens(), 256);
    }
}
