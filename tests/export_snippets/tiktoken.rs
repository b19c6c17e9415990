// chunktui strategy langchain-token (size 64 tokens, overlap 8) as text-splitter (Rust).
// Fidelity: close: TextSplitter with the same tiktoken encoding stays within the size at semantic
// boundaries, not fixed token windows.
// Needs in Cargo.toml [dependencies]:
//   text-splitter = { version = "0.33.1", features = ["tiktoken-rs"] }
//   tiktoken-rs = "0.12"

use text_splitter::{ChunkConfig, TextSplitter};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let splitter = TextSplitter::new(
        ChunkConfig::new(64)
            .with_overlap(8)?
            .with_sizer(tiktoken_rs::cl100k_base()?),
    );
    // Usage: `cargo run -- doc.md` prints each chunk as a quoted string, one a line.
    if let Some(path) = std::env::args().nth(1) {
        let text = std::fs::read_to_string(path)?;
        for chunk in splitter.chunks(&text) {
            println!("{chunk:?}");
        }
    }
    Ok(())
}
