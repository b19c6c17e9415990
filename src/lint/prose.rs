//! The prose and size rules: mid-sentence, tiny-fragment, over-model-limit.

use super::{Finding, LevelCx, Rule, SharedTally, TokenCount};
use crate::segment;
use std::ops::Range;

/// mid-sentence's reach, in percent of the chunk's own length: a cut inside
/// a sentence is flagged when a sentence boundary lies at most this far from
/// it, inside the chunk. Moving the cut there costs the chunk at most a
/// fifth of its text, which packers that stop at sentence ends (the sentence
/// strategy, recursive with ". ") give up routinely; a boundary further away
/// would cost a much shorter chunk, and a cut mid-sentence can then be the
/// better trade.
pub const REACH_PERCENT: usize = 20;

/// The sentences of the whole text (the project's segmentation: English
/// abbreviations, Chinese 。！？, Markdown blocks).
pub struct Sentences(std::sync::Arc<Vec<Range<usize>>>);

impl Sentences {
    /// Kept per text, under the key the sentence strategy keeps them by:
    /// the workbench lints after every key press, and the sentences do not
    /// change with the settings.
    pub fn new(text: &str) -> Sentences {
        let all = crate::size::doc_cache::get_or_build(segment::SENTENCES_KEY, text, || Ok(segment::sentences(text)));
        Sentences(all.unwrap_or_else(|_| std::sync::Arc::new(segment::sentences(text))))
    }

    /// Claim `text`'s sentences for a build ahead ([`super::read_ahead`]),
    /// to be filled with `segment::sentences(text)`.
    pub fn claim(text: &str) -> Option<crate::size::doc_cache::Claim> {
        crate::size::doc_cache::claim(segment::SENTENCES_KEY, text)
    }

    /// The index of the sentence `p` lies strictly inside, if any.
    fn inside(&self, p: usize) -> Option<usize> {
        let j = self.0.partition_point(|s| s.start < p).checked_sub(1)?;
        (p < self.0[j].end).then_some(j)
    }
}

fn chars(text: &str, r: Range<usize>) -> usize {
    text[r].chars().count()
}

/// How far back from `p` (inside sentence `j`) the previous sentence ends,
/// in chars, when that end lies inside `chunk` within reach.
fn reach_back(text: &str, s: &Sentences, j: usize, p: usize, chunk: &Range<usize>) -> Option<usize> {
    let x = s.0.get(j.checked_sub(1)?)?.end;
    // Outside the chunk first: counting up to a boundary far away (in a long
    // sentence) for every chunk would be quadratic.
    if x <= chunk.start {
        return None;
    }
    let d = chars(text, x..p);
    (d * 100 <= chars(text, chunk.clone()) * REACH_PERCENT).then_some(d)
}

/// How far on from `p` (inside sentence `j`) the next sentence starts, in
/// chars, when that start lies inside `chunk` within reach.
fn reach_on(text: &str, s: &Sentences, j: usize, p: usize, chunk: &Range<usize>) -> Option<usize> {
    let y = s.0.get(j + 1)?.start;
    if y >= chunk.end {
        return None;
    }
    let d = chars(text, p..y);
    (d * 100 <= chars(text, chunk.clone()) * REACH_PERCENT).then_some(d)
}

/// **mid-sentence**: a chunk's text (whitespace trimmed) ends inside a
/// sentence although the sentence before ends inside the chunk within
/// [`REACH_PERCENT`] of the chunk's length (in chars) before the cut — or
/// the chunk starts inside a sentence although the next sentence starts
/// within that reach after it. A cut that ends one chunk where the next
/// begins (nothing but whitespace between) is one finding, on the chunk it
/// ends, when either side had a boundary within reach. A sentence longer
/// than the reach is never flagged: there was no better cut. In Markdown,
/// cuts inside code, tables and HTML are left to split-fence / split-table.
pub fn mid_sentence(cx: &LevelCx<'_>, s: &Sentences, md: Option<&super::markdown::Blocks>, out: &mut Vec<Finding>) {
    let text = cx.text;
    let opaque = |p: usize| md.is_some_and(|b| b.opaque_at(p));
    let items: Vec<(usize, Range<usize>)> =
        cx.iter().map(|(i, _)| (i, cx.trimmed(i))).filter(|(_, r)| !r.is_empty()).collect();
    let joined = |a: &Range<usize>, b: &Range<usize>| b.start >= a.end && text[a.end..b.start].trim().is_empty();
    for (k, (i, r)) in items.iter().enumerate() {
        let next = items.get(k + 1).filter(|(_, n)| joined(r, n));
        if let Some(j) = s.inside(r.end).filter(|_| !opaque(r.end)) {
            let back = reach_back(text, s, j, r.end, r);
            let on = next.and_then(|(_, n)| reach_on(text, s, j, n.start, n));
            let message = match (back, on) {
                (Some(d), _) => Some(format!("ends mid-sentence; the sentence before ends {d} chars earlier")),
                (None, Some(d)) => Some(format!("cut mid-sentence; the next sentence starts {d} chars later")),
                (None, None) => None,
            };
            if let Some(message) = message {
                out.push(Finding { rule: Rule::MidSentence, chunk: *i, at: r.end, message: message.into() });
            }
        }
        let after_cut = k > 0 && joined(&items[k - 1].1, r);
        if after_cut {
            continue; // judged with the previous chunk's end
        }
        if let Some(j) = s.inside(r.start).filter(|_| !opaque(r.start)) {
            if let Some(d) = reach_on(text, s, j, r.start, r) {
                let message = format!("starts mid-sentence; the next sentence starts {d} chars later");
                out.push(Finding { rule: Rule::MidSentence, chunk: *i, at: r.start, message: message.into() });
            }
        }
    }
}

/// The smallest chunk tiny-fragment lets pass, for chunks cut to `size`:
/// a tenth of it (at least 1, so that empty chunks are flagged at any size).
/// A chunk under a tenth of the size a pipeline asked for holds a phrase or a
/// stray line: too little text for its vector to stand for anything, yet it
/// takes a whole slot in a top-k result. It is also where packers leave
/// their scraps (the tail of a section, a lone heading), while real short
/// paragraphs seldom fall that far below a sensibly chosen size.
pub fn tiny_limit(size: usize) -> usize {
    (size / 10).max(1)
}

/// **tiny-fragment**: a chunk whose size (in the config's unit) is under
/// [`tiny_limit`] of its level's size. Not for strategies that do not read
/// `size`, nor for a document that is one chunk.
pub fn tiny_fragment(cx: &LevelCx<'_>, out: &mut Vec<Finding>) {
    if !cx.sized() || cx.level.chunks.len() < 2 {
        return;
    }
    let (size, unit) = (cx.level.size, cx.opts.config.unit);
    let limit = tiny_limit(size);
    for (i, c) in cx.iter() {
        if c.size < limit {
            let one = unit.to_string();
            let counted = if c.size == 1 { one.trim_end_matches('s') } else { &one };
            let message = format!("{} {counted}, under a tenth of the size ({size} {unit})", c.size);
            out.push(Finding { rule: Rule::TinyFragment, chunk: i, at: cx.trimmed(i).start, message: message.into() });
        }
    }
}

/// **over-model-limit**: the text a chunk is embedded as (its embed text
/// when `[embed_text]` is on, else its text) has more tokens than the
/// model's input limit (`lint.max_tokens`, else `semantic.max_tokens`, else
/// the default model's `max_seq_length`, 256), special tokens included when
/// the model's own tokenizer counts. The model reads only the first tokens:
/// the rest of the chunk is in the index but can never be found.
pub fn over_model_limit(cx: &LevelCx<'_>, t: &TokenCount, tally: Option<&SharedTally<'_>>, out: &mut Vec<Finding>) {
    let max = cx.opts.max_tokens;
    // A token covers at least one byte: a short text cannot be over.
    let candidates: Vec<(usize, &str, bool)> = cx
        .iter()
        .filter_map(|(i, c)| {
            let embedded = c.meta.embed.as_ref().map(|e| e.text.as_str());
            let text = embedded.or_else(|| c.checked_text(cx.text))?;
            (text.len() + t.specials > max).then_some((i, text, embedded.is_some()))
        })
        .collect();
    // The chunk's own text is counted from the tally; embed text (a
    // context line before it) one by one.
    let counts: Vec<usize> = match tally {
        Some(tally) => candidates
            .iter()
            .map(|&(i, text, embedded)| match embedded {
                false => tally.count(cx.chunks[i].range.clone()).map_or_else(|| t.count(text), |n| n + t.specials),
                true => t.count(text),
            })
            .collect(),
        None => t.count_all(&candidates.iter().map(|&(_, text, _)| text).collect::<Vec<_>>()),
    };
    for (&(i, _, embedded), n) in candidates.iter().zip(counts) {
        if n > max {
            let how =
                if t.model { String::new() } else { format!(" (counted with {}, an estimate)", t.tokenizer.name()) };
            let what = if embedded { "embed text has" } else { "has" };
            let message = format!("{what} {n} tokens, over the model's input limit of {max}{how}");
            out.push(Finding {
                rule: Rule::OverModelLimit,
                chunk: i,
                at: cx.trimmed(i).start,
                message: message.into(),
            });
        }
    }
}
