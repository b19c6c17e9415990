// chunktui strategy markdown (size 120 tokens, overlap 0) as text-splitter (Rust).
// Fidelity: close: MarkdownSplitter cuts at headings, then blocks and sentences, within the size.
// Needs in Cargo.toml [dependencies]:
//   text-splitter = { version = "0.33.1", features = ["markdown", "tiktoken-rs"] }
//   tiktoken-rs = "0.12"
// Does not carry over:
//   - markdown.levels = [1, 2, 3]: every heading level cuts
//   - the heading path of each chunk (meta.headings)

use text_splitter::{ChunkConfig, MarkdownSplitter};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let splitter = MarkdownSplitter::new(
        ChunkConfig::new(120)
            .with_sizer(tiktoken_rs::o200k_base()?),
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
