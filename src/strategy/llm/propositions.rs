//! `propositions`: the model restates each passage as standalone
//! propositions, each naming the numbered sentences it came from. A
//! proposition's chunk is the source sentences' range, exact; its
//! `embed_text` is the proposition. One the source does not support (no
//! valid sentence numbers and no sentence sharing enough of its words) is
//! dropped and counted: a model that invents text adds nothing. A passage
//! whose answer gives no usable proposition falls back to its sentences as
//! they are (counted).

// Without the `llm` feature only the pure parts are used (no client to ask).
#![cfg_attr(not(feature = "llm"), allow(unused_imports, dead_code))]

use super::pieces::{self, Piece};
use super::{Context, OverlapRule, SizeRule, Spec, Strategy};
use crate::chunk::{Chunk, EmbedText};
use crate::config::ChunkConfig;
use crate::error::Result;
use std::collections::HashSet;
use std::ops::Range;

pub const SPEC: Spec = Spec {
    name: "propositions",
    help: "an LLM restates each passage as standalone propositions, each anchored to its source sentences",
    needs_llm: true,
    size: SizeRule::Ignored,
    overlap: OverlapRule::None,
    options: &["--llm-url", "--llm-model", "--llm-cache", "--group-propositions"],
    option: Some(super::CONCURRENCY),
    ..Spec::new(build)
};

#[cfg(feature = "llm")]
fn build(config: &ChunkConfig) -> Result<Box<dyn Strategy>> {
    let tokens = crate::size::Sizer::for_unit(crate::size::Unit::Tokens, &config.tokenizer)?;
    Ok(Box::new(Propositions { asker: super::Asker::new(&config.llm)?, tokens }))
}

#[cfg(not(feature = "llm"))]
fn build(config: &ChunkConfig) -> Result<Box<dyn Strategy>> {
    (super::SPEC.build)(config)
}

#[cfg(feature = "llm")]
struct Propositions {
    asker: super::Asker,
    tokens: crate::size::Sizer,
}

/// Source text per request, in rough tokens: small enough that the
/// restatement fits one answer.
const PASSAGE_TOKENS: usize = 350;

#[cfg(feature = "llm")]
fn schema() -> serde_json::Value {
    serde_json::json!({
        "type": "object",
        "properties": {"propositions": {"type": "array", "items": {
            "type": "object",
            "properties": {
                "text": {"type": "string"},
                "sentences": {"type": "array", "items": {"type": "integer"}}
            },
            "required": ["text", "sentences"]
        }}},
        "required": ["propositions"]
    })
}

/// A proposition anchored in the source.
#[derive(Debug, Clone, PartialEq)]
pub struct Anchored {
    pub range: Range<usize>,
    pub text: String,
}

#[cfg(feature = "llm")]
impl Strategy for Propositions {
    fn chunk(&self, text: &str, cx: &Context<'_>) -> Result<Vec<Chunk>> {
        let pieces = pieces::pieces(text);
        if pieces.is_empty() {
            return Ok(Vec::new());
        }
        let shown: Vec<String> = pieces.iter().enumerate().map(|(i, p)| pieces::shown(text, i + 1, p, 600)).collect();
        let costs: Vec<usize> = shown.iter().map(|s| pieces::rough_tokens(s)).collect();
        let budget =
            PASSAGE_TOKENS.min(self.asker.opts.context_tokens.saturating_sub(self.asker.opts.max_tokens + 400)).max(64);
        let windows = pieces::windows(&costs, budget, 0);
        let ask = |w: usize| -> Result<Vec<Anchored>> {
            let win = &windows[w];
            let answer = self.asker.client.ask(&crate::llm::Request {
                system:
                    "Restate the passage as a list of propositions: short, standalone statements of one fact each, \
                         in the passage's language, with pronouns replaced by what they refer to. For each, give the \
                         numbers [n] of the sentences it comes from. Answer as {\"propositions\": [{\"text\": \"...\", \
                         \"sentences\": [n]}]}.",
                user: &shown[win.shown.clone()].join("\n"),
                schema: Some(&schema()),
                max_tokens: self.asker.opts.max_tokens,
            })?;
            Ok(anchor_answer(text, &pieces, win.shown.clone(), &answer))
        };
        let answers = self.asker.ask_all(windows.len(), cx, &ask)?;
        let mut seen = HashSet::new();
        let mut props: Vec<Anchored> =
            answers.into_iter().flatten().filter(|a| seen.insert((a.range.clone(), normalized(&a.text)))).collect();
        props.sort_by_key(|a| (a.range.start, a.range.end));
        let chunk_of = |range: Range<usize>, embed: String| {
            let mut chunk = Chunk::new(range.clone(), cx.sizer.size(&text[range]));
            let (size, tokens) = (cx.sizer.size(&embed), self.tokens.size(&embed));
            chunk.meta.embed = Some(EmbedText { text: embed, size, tokens });
            chunk
        };
        if !self.asker.opts.group_propositions {
            return Ok(props.into_iter().map(|a| chunk_of(a.range, a.text)).collect());
        }
        let groups = self.group(&props, cx)?;
        Ok(groups
            .into_iter()
            .map(|g| {
                let start = g.members.iter().map(|&i| props[i].range.start).min().expect("a group has members");
                let end = g.members.iter().map(|&i| props[i].range.end).max().expect("a group has members");
                let joined: Vec<&str> = g.members.iter().map(|&i| props[i].text.as_str()).collect();
                let mut chunk = chunk_of(start..end, joined.join("\n"));
                chunk.meta.fields.push(("title".into(), g.title));
                chunk.meta.fields.push(("summary".into(), g.summary));
                chunk
            })
            .collect())
    }
}

/// A topical group of propositions (indices into the anchored list).
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    pub members: Vec<usize>,
    pub title: String,
    pub summary: String,
}

/// Propositions per grouping request.
#[cfg(feature = "llm")]
const GROUP_WINDOW: usize = 40;

#[cfg(feature = "llm")]
impl Propositions {
    /// Group the propositions into topics, a window of them per request.
    fn group(&self, props: &[Anchored], cx: &Context<'_>) -> Result<Vec<Group>> {
        let windows: Vec<Range<usize>> =
            (0..props.len()).step_by(GROUP_WINDOW).map(|s| s..(s + GROUP_WINDOW).min(props.len())).collect();
        let schema = serde_json::json!({
            "type": "object",
            "properties": {"groups": {"type": "array", "items": {
                "type": "object",
                "properties": {
                    "members": {"type": "array", "items": {"type": "integer"}},
                    "title": {"type": "string"},
                    "summary": {"type": "string"}
                },
                "required": ["members", "title", "summary"]
            }}},
            "required": ["groups"]
        });
        let ask = |w: usize| -> Result<Vec<Group>> {
            let window = windows[w].clone();
            let listed: Vec<String> = window.clone().map(|i| format!("[{}] {}", i + 1, props[i].text)).collect();
            let answer = self.asker.client.ask(&crate::llm::Request {
                system: "Group these numbered propositions into topics: each group lists the numbers of its \
                         propositions, a short title and a one-sentence summary, in the propositions' language. \
                         Answer as {\"groups\": [{\"members\": [n, ...], \"title\": \"...\", \"summary\": \"...\"}]}.",
                user: &listed.join("\n"),
                schema: Some(&schema),
                max_tokens: self.asker.opts.max_tokens,
            })?;
            Ok(checked_groups(&answer, window, props))
        };
        Ok(self.asker.ask_all(windows.len(), cx, &ask)?.into_iter().flatten().collect())
    }
}

/// The groups of an answer about `window` of the propositions: members in
/// the window, each proposition in one group (its first), the ones no
/// group took each a group of its own (titled by itself; counted as
/// repaired). Groups come in the order of their first member.
pub fn checked_groups(answer: &str, window: Range<usize>, props: &[Anchored]) -> Vec<Group> {
    use crate::llm::usage::count;
    let listed = crate::llm::reply::first_json(answer)
        .and_then(|v| v.get("groups").and_then(|g| g.as_array()).cloned())
        .unwrap_or_default();
    let clean = |s: Option<&str>, max: usize| -> String {
        s.unwrap_or("")
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .take(max)
            .collect::<String>()
            .trim()
            .to_string()
    };
    let mut taken = vec![false; window.len()];
    let mut groups = Vec::new();
    for g in &listed {
        let members: Vec<usize> = g
            .get("members")
            .and_then(|m| m.as_array())
            .map(|m| m.iter().filter_map(|n| usize::try_from(n.as_i64()?).ok()?.checked_sub(1)).collect())
            .unwrap_or_default();
        let mut mine: Vec<usize> = Vec::new();
        for i in members.into_iter().filter(|i| window.contains(i)) {
            if !std::mem::replace(&mut taken[i - window.start], true) {
                mine.push(i);
            }
        }
        if mine.is_empty() {
            continue;
        }
        mine.sort_unstable();
        let title = clean(g.get("title").and_then(|t| t.as_str()), 120);
        let summary = clean(g.get("summary").and_then(|t| t.as_str()), 400);
        groups.push(Group { members: mine, title, summary });
    }
    let left: Vec<usize> = window.clone().filter(|i| !taken[i - window.start]).collect();
    if !left.is_empty() {
        count::repaired(1);
    }
    for i in left {
        let text = props[i].text.clone();
        groups.push(Group { members: vec![i], title: text.chars().take(80).collect(), summary: text });
    }
    groups.sort_by_key(|g| g.members[0]);
    groups
}

/// The anchored propositions of one answer about `shown` pieces; its
/// sentences as they are when nothing in it can be anchored.
pub fn anchor_answer(text: &str, pieces: &[Piece], shown: Range<usize>, answer: &str) -> Vec<Anchored> {
    use crate::llm::usage::count;
    let items = crate::llm::reply::first_json(answer)
        .and_then(|v| v.get("propositions").and_then(|p| p.as_array()).cloned())
        .unwrap_or_default();
    let mut out = Vec::new();
    for item in &items {
        let Some(prop) = item.get("text").and_then(|t| t.as_str()).map(str::trim).filter(|t| !t.is_empty()) else {
            count::dropped(1);
            continue;
        };
        let named: Vec<usize> = item
            .get("sentences")
            .and_then(|s| s.as_array())
            .map(|a| a.iter().filter_map(|n| usize::try_from(n.as_i64()?).ok()?.checked_sub(1)).collect())
            .unwrap_or_default();
        match anchor(text, pieces, shown.clone(), &named, prop) {
            Some(range) => out.push(Anchored { range, text: prop.to_string() }),
            None => count::dropped(1),
        }
    }
    if out.is_empty() {
        count::fallbacks(1);
        out = shown
            .map(|i| Anchored { range: pieces[i].range.clone(), text: text[pieces[i].range.clone()].to_string() })
            .collect();
    }
    out
}

/// Share of a proposition's words its source must hold.
const SUPPORT: f64 = 0.4;

/// The source range of `prop`: the sentences it names (within `shown`) when
/// they hold enough of its words, else the one shown sentence that holds the
/// most of them, if that is enough.
pub fn anchor(text: &str, pieces: &[Piece], shown: Range<usize>, named: &[usize], prop: &str) -> Option<Range<usize>> {
    let words = terms(prop);
    if words.is_empty() {
        return None;
    }
    let support = |range: &Range<usize>| {
        let source = terms(&text[range.clone()]);
        words.iter().filter(|w| source.contains(*w)).count() as f64 / words.len() as f64
    };
    let valid: Vec<usize> = named.iter().copied().filter(|i| shown.contains(i)).collect();
    if let (Some(&lo), Some(&hi)) = (valid.iter().min(), valid.iter().max()) {
        let range = pieces[lo].range.start..pieces[hi].range.end;
        if support(&range) >= SUPPORT {
            return Some(range);
        }
    }
    shown
        .map(|i| (support(&pieces[i].range), i))
        .filter(|(s, _)| *s >= SUPPORT)
        .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)))
        .map(|(_, i)| pieces[i].range.clone())
}

/// The words of `s` for support: lower-case alphanumeric words of three or
/// more characters, and each CJK character on its own.
fn terms(s: &str) -> HashSet<String> {
    let mut out = HashSet::new();
    for w in s.split(|c: char| !c.is_alphanumeric()) {
        let mut latin = String::new();
        for c in w.chars() {
            if crate::segment::is_cjk(c) {
                out.insert(c.to_string());
            } else {
                latin.extend(c.to_lowercase());
            }
        }
        if latin.chars().count() >= 3 {
            out.insert(latin);
        }
    }
    out
}

fn normalized(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn propositions_anchor_in_their_sentences_or_are_dropped() {
        let text = "The Rust compiler checks borrows. Cargo builds crates.\n\n猫喜欢睡觉。狗喜欢跑步。";
        let p = pieces::pieces(text);
        let answer = r#"{"propositions": [
            {"text": "Cargo builds Rust crates.", "sentences": [2]},
            {"text": "The compiler checks borrows in Rust.", "sentences": [9]},
            {"text": "Bananas are yellow fruit.", "sentences": [1]},
            {"text": "狗喜欢跑步", "sentences": []}
        ]}"#;
        let got = anchor_answer(text, &p, 0..p.len(), answer);
        let ranges: Vec<&str> = got.iter().map(|a| &text[a.range.clone()]).collect();
        assert_eq!(ranges, vec!["Cargo builds crates.", "The Rust compiler checks borrows.", "狗喜欢跑步。"]);
    }

    #[test]
    fn groups_take_each_proposition_once_and_leave_none_out() {
        let props: Vec<Anchored> =
            (0..5).map(|i| Anchored { range: i * 10..i * 10 + 5, text: format!("fact {i}") }).collect();
        let answer = r#"{"groups": [{"members": [2, 1, 99], "title": "A\ntopic", "summary": "s"},
                                    {"members": [1, 4], "title": "B", "summary": "t"}]}"#;
        let g = checked_groups(answer, 0..5, &props);
        let members: Vec<Vec<usize>> = g.iter().map(|g| g.members.clone()).collect();
        assert_eq!(members, vec![vec![0, 1], vec![2], vec![3], vec![4]]);
        assert_eq!(g[0].title, "A topic");
        assert_eq!(g[1].title, "fact 2", "one no group took is its own group");
        assert_eq!(g[2].title, "B");
    }

    #[test]
    fn an_answer_with_nothing_anchored_falls_back_to_the_sentences() {
        let text = "One fact here. Another fact there.";
        let p = pieces::pieces(text);
        let got = anchor_answer(text, &p, 0..p.len(), "I cannot help with that.");
        assert_eq!(got.len(), 2);
        assert_eq!(got[1].text, "Another fact there.");
    }
}
