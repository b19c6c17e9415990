// chunktui strategy sentence (size 40 words) as text-splitter (Rust).
// Fidelity: close: TextSplitter keeps Unicode sentences whole where they fit the size.
// Needs in Cargo.toml [dependencies]:
//   text-splitter = "0.33.1"
// Does not carry over:
//   - words: counted at whitespace, so CJK text without spaces is one word per run
//   - overlap_sentences = 1: chunktui repeats whole sentences; this overlap counts units (set to 0)
//   - chunktui's sentence rules (CJK ends, abbreviations like "e.g."): Unicode (UAX #29) sentences
//     here

use text_splitter::{ChunkConfig, TextSplitter};

/// Counts whitespace-separated words (chunktui counts Unicode UAX #29 words).
struct Words;

impl text_splitter::ChunkSizer for Words {
    fn size(&self, chunk: &str) -> usize {
        chunk.split_whitespace().count()
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let splitter = TextSplitter::new(ChunkConfig::new(40).with_sizer(Words));
    // Usage: `cargo run -- doc.md` prints each chunk as a quoted string, one a line.
    if let Some(path) = std::env::args().nth(1) {
        let text = std::fs::read_to_string(path)?;
        for chunk in splitter.chunks(&text) {
            println!("{chunk:?}");
        }
    }
    Ok(())
}
