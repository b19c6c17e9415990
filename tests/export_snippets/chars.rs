// chunktui strategy recursive (size 300 chars, overlap 30) as text-splitter (Rust).
// Fidelity: close: TextSplitter's levels are line breaks, Unicode sentences, words and graphemes;
// chunktui's separators are not used.
// Needs in Cargo.toml [dependencies]:
//   text-splitter = "0.33.1"
// Does not carry over:
//   - separators (preset english): text-splitter has fixed Unicode levels

use text_splitter::{ChunkConfig, TextSplitter};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let splitter = TextSplitter::new(ChunkConfig::new(300).with_overlap(30)?);
    // Usage: `cargo run -- doc.md` prints each chunk as a quoted string, one a line.
    if let Some(path) = std::env::args().nth(1) {
        let text = std::fs::read_to_string(path)?;
        for chunk in splitter.chunks(&text) {
            println!("{chunk:?}");
        }
    }
    Ok(())
}
