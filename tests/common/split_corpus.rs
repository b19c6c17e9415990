//! The shared corpus as a folder of many documents, for post-chunking: each
//! book cut where a chapter or section starts (Markdown headings of level 1
//! and 2 outside code fences; War and Peace at each `CHAPTER` line), each
//! part written as its own file, and a question set's references moved to
//! the part that holds them. The parts are exact slices, so every offset
//! stays true; a question whose references fall in two parts is left out
//! (and counted). Written into a temporary folder at test time: the corpus
//! text never enters the repository.
//!
//! Included by `#[path]` from tests and benches.
#![allow(dead_code)]

use std::path::Path;

/// The books, in make-big.sh's order.
pub const BOOKS: [&str; 4] = ["en_rust_book.md", "en_war_and_peace.txt", "zh_rust_book.md", "en_ripgrep_guide_faq.md"];

/// Byte offsets where a new document starts (0 first).
pub fn starts(text: &str, markdown: bool) -> Vec<usize> {
    let mut out = vec![0];
    let mut fence: Option<&str> = None;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let body = line.trim_end();
        if markdown {
            let trimmed = body.trim_start();
            for marker in ["```", "~~~"] {
                if trimmed.starts_with(marker) {
                    fence = match fence {
                        Some(m) if m == marker => None,
                        None => Some(marker),
                        other => other,
                    };
                }
            }
            if fence.is_none() && (body.starts_with("# ") || body.starts_with("## ")) && at > 0 {
                out.push(at);
            }
        } else if body.starts_with("CHAPTER ") && at > 0 {
            out.push(at);
        }
        at += line.len();
    }
    out.dedup();
    out
}

/// What [`write`] made.
pub struct Split {
    pub documents: usize,
    pub bytes: usize,
    pub questions_kept: usize,
    pub questions_dropped: usize,
}

/// Cut the books in `corpus` into `out` (`<book>-<NNNN>.<ext>`), with
/// `copies` copies of the whole set (the second as `c2-…`), until `max_bytes`;
/// move the questions of `questions` (JSONL) into `questions_out`.
pub fn write(corpus: &Path, out: &Path, questions: Option<(&Path, &Path)>, copies: usize, max_bytes: usize) -> Split {
    std::fs::create_dir_all(out).expect("make the split folder");
    // Each book's parts: (id, code-point start, code-point end).
    let mut parts: Vec<(String, String, usize, usize)> = Vec::new();
    let mut bytes = 0;
    let mut documents = 0;
    'copies: for copy in 0..copies.max(1) {
        for book in BOOKS {
            let text = std::fs::read_to_string(corpus.join(book)).expect("read a corpus book");
            let (stem, ext) = book.rsplit_once('.').expect("a book has an extension");
            let cuts = starts(&text, ext == "md");
            for (i, &start) in cuts.iter().enumerate() {
                let end = cuts.get(i + 1).copied().unwrap_or(text.len());
                let part = &text[start..end];
                // A blank part (the lines before a book's first chapter) is no document.
                if part.trim().is_empty() {
                    continue;
                }
                if bytes + part.len() > max_bytes {
                    break 'copies;
                }
                let prefix = if copy == 0 { String::new() } else { format!("c{}-", copy + 1) };
                let id = format!("{prefix}{stem}-{i:04}");
                std::fs::write(out.join(format!("{id}.{ext}")), part).expect("write a part");
                if copy == 0 {
                    let cp_start = text[..start].chars().count();
                    parts.push((stem.to_string(), id, cp_start, cp_start + part.chars().count()));
                }
                bytes += part.len();
                documents += 1;
            }
        }
    }
    let (mut kept, mut dropped) = (0, 0);
    if let Some((from, to)) = questions {
        let mut lines = String::new();
        for line in std::fs::read_to_string(from).expect("read the questions").lines() {
            let mut q: serde_json::Value = serde_json::from_str(line).expect("a question");
            let book = q["corpus_id"].as_str().expect("a corpus_id").to_string();
            let refs = q["references"].as_array().expect("references").clone();
            let range = |r: &serde_json::Value| {
                (r["start_index"].as_u64().unwrap() as usize, r["end_index"].as_u64().unwrap() as usize)
            };
            let holder = |(s, e): (usize, usize)| {
                parts.iter().find(|(b, _, ps, pe)| *b == book && *ps <= s && e <= *pe).map(|p| (p.1.clone(), p.2))
            };
            let holders: Vec<Option<(String, usize)>> = refs.iter().map(|r| holder(range(r))).collect();
            let first = holders.first().cloned().flatten();
            match first {
                Some((id, base)) if holders.iter().all(|h| h.as_ref().map(|h| &h.0) == Some(&id)) => {
                    q["corpus_id"] = id.into();
                    for r in q["references"].as_array_mut().unwrap() {
                        let (s, e) = range(r);
                        r["start_index"] = (s - base).into();
                        r["end_index"] = (e - base).into();
                    }
                    lines.push_str(&q.to_string());
                    lines.push('\n');
                    kept += 1;
                }
                _ => dropped += 1,
            }
        }
        std::fs::write(to, lines).expect("write the moved questions");
    }
    Split { documents, bytes, questions_kept: kept, questions_dropped: dropped }
}
