//! What every cut of the `fast` strategy must be, on any bytes (valid UTF-8
//! or not) and any delimiter settings: shared by the property test
//! (tests/fast_properties.rs) and the fuzz target (fuzz/fuzz_targets/fast_bytes.rs).

use chunktui::config::{ChunkConfig, FastOptions, StrategyKind, Unit};
use chunktui::strategy::fast::Cutter;
use chunktui::Chunker;

fn is_continuation(b: u8) -> bool {
    b & 0xC0 == 0x80
}

/// Where a chunk may end, by the definition and nothing faster: for each
/// chunk, every place a delimiter (or the pattern) lies wholly inside the
/// budget and does not start the chunk, the last such cut; else the budget
/// snapped back to a character's start; else one whole character.
pub fn reference(bytes: &[u8], size: usize, o: &FastOptions) -> Vec<(usize, usize)> {
    let forms: Vec<Vec<u8>> = match &o.pattern {
        Some(p) => vec![p.as_bytes().to_vec()],
        None => o.delimiters.chars().map(|c| c.to_string().into_bytes()).collect(),
    };
    let (n, size) = (bytes.len(), size.max(1));
    let mut out = Vec::new();
    let mut start = 0;
    while start < n {
        if n - start <= size {
            out.push((start, n));
            break;
        }
        let limit = start + size;
        let mut best = None;
        for from in start + 1..limit {
            for f in &forms {
                if from + f.len() <= limit && bytes[from..].starts_with(f) {
                    let cut = if o.prefix { from } else { from + f.len() };
                    if cut == n || !is_continuation(bytes[cut]) {
                        best = best.max(Some(cut));
                    }
                }
            }
        }
        let end = best.unwrap_or_else(|| {
            let mut end = limit;
            while end > start && is_continuation(bytes[end]) {
                end -= 1;
            }
            if end == start {
                end = start + 1;
                while end < n && is_continuation(bytes[end]) {
                    end += 1;
                }
            }
            end
        });
        out.push((start, end));
        start = end;
    }
    out
}

/// The cut of `bytes` with these settings keeps every invariant, and on
/// valid UTF-8 is the reference's and the library's (`Chunker`) alike.
pub fn check(bytes: &[u8], size: usize, o: &FastOptions) -> Result<(), String> {
    let cutter = Cutter::new(o).map_err(|e| format!("settings refused: {e}"))?;
    let mut got = Vec::new();
    cutter.cut_bytes(bytes, size, |s, e| got.push((s, e)));
    let mut at = 0;
    for &(s, e) in &got {
        if s != at || e <= s {
            return Err(format!("chunk {s}..{e} does not follow {at} (the chunks must tile the bytes): {got:?}"));
        }
        if e < bytes.len() && is_continuation(bytes[e]) {
            return Err(format!("chunk {s}..{e} ends before a continuation byte"));
        }
        let one_character = bytes[s + 1..e].iter().all(|&b| is_continuation(b));
        if e - s > size.max(1) && !one_character {
            return Err(format!("chunk {s}..{e} is over the budget of {size} bytes"));
        }
        at = e;
    }
    if at != bytes.len() {
        return Err(format!("the chunks end at {at}, the bytes at {}", bytes.len()));
    }
    let Ok(text) = std::str::from_utf8(bytes) else { return Ok(()) };
    let want = reference(bytes, size, o);
    if got != want {
        return Err(format!("cut {got:?}\n  is not the reference's {want:?}"));
    }
    let mut config =
        ChunkConfig { strategy: StrategyKind::Fast, unit: Unit::Bytes, size, overlap: 0, ..Default::default() };
    config.fast = o.clone();
    let chunker = Chunker::new(&config).map_err(|e| format!("Chunker refused: {e}"))?;
    let flat = |offsets: Vec<u64>| offsets.chunks(2).map(|p| (p[0] as usize, p[1] as usize)).collect::<Vec<_>>();
    let (mut of_text, mut of_bytes) = (Vec::new(), Vec::new());
    chunker.offsets_into(text, &mut of_text).map_err(|e| e.to_string())?;
    chunker.offsets_of_bytes_into(bytes, &mut of_bytes).map_err(|e| e.to_string())?;
    let chunks: Vec<(usize, usize)> =
        chunker.chunk(text).map_err(|e| e.to_string())?.iter().map(|c| (c.range.start, c.range.end)).collect();
    for (how, other) in [("offsets_into", flat(of_text)), ("offsets_of_bytes_into", flat(of_bytes)), ("chunk", chunks)]
    {
        if other != got {
            return Err(format!("Chunker::{how} gives {other:?}, the cutter {got:?}"));
        }
    }
    Ok(())
}
