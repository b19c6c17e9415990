//! The hand-made boundaries' rules: **stale-edit** (an edit that was not
//! applied: its text is gone, or found more than once without `near`) and
//! **join-over-size** (a chunk a join keeps whole although it is over the
//! size: the join wins, and says so).

use super::{Finding, LintOptions, Rule};
use crate::chunk::Chunk;
use crate::edits::{resolve, Stale};

/// Push the findings of both rules (those that are on).
pub fn lint_edits(text: &str, chunks: &[Chunk], opts: &LintOptions, out: &mut Vec<Finding>) {
    let edits = &opts.config.edits;
    let (stale_on, join_on) = (opts.enabled(Rule::StaleEdit), opts.enabled(Rule::JoinOverSize));
    if edits.is_empty() || !(stale_on || join_on) {
        return;
    }
    // Edits that name a file are for that file; lint reads a text, not a path.
    let mine: Vec<_> = edits.iter().filter(|e| e.file.is_none()).cloned().collect();
    let resolved = resolve(text, &mine);
    let chunk_at = |at: usize| chunks.partition_point(|c| c.range.end <= at).min(chunks.len().saturating_sub(1));
    if stale_on {
        for (i, why) in resolved.stale.iter().filter(|(i, why)| crate::edits::stale_here(&mine[*i], why)) {
            let e = &mine[*i];
            let why = match why {
                Stale::Gone => "its text is gone from the document".to_string(),
                Stale::Ambiguous(n) => format!("its text is found {n} times: add near = BYTE to pick one"),
            };
            // Where it was, when the edit says (near), else the top.
            let at = e.near.unwrap_or(0).min(text.len());
            let at = crate::size::floor_char_boundary(text, at);
            out.push(Finding {
                rule: Rule::StaleEdit,
                chunk: chunk_at(at),
                at,
                message: format!("edit {} {} is not applied: {why}", i + 1, e.describe()).into(),
            });
        }
    }
    if join_on && opts.config.strategy.spec().reads_size() {
        let size = opts.config.size;
        for (i, c) in chunks.iter().enumerate() {
            let held = resolved.joins.iter().any(|&j| c.range.start < j && j < c.range.end);
            if held && c.size > size && c.meta.level.unwrap_or(0) == 0 {
                out.push(Finding {
                    rule: Rule::JoinOverSize,
                    chunk: i,
                    at: c.range.start,
                    message: format!(
                        "a hand-made join keeps this chunk whole at {} {} (size {size})",
                        c.size, opts.config.unit
                    )
                    .into(),
                });
            }
        }
    }
}
