//! Export, UI side: the path proposed for each kind of export. Writing is
//! done by the core (`ChunkConfig::save`, `export::records`) on a thread of its own,
//! through `export::write_atomic`, which replaces only regular files (devices
//! and FIFOs are written in place, symlinks followed) and refuses the
//! document itself (`cli` marks it with `export::protect_input`).

use crate::chunk::Chunk;
use crate::config::ChunkConfig;
use crate::error::Result;
use crate::tui::msg::ExportKind;
use std::path::Path;

/// Write one export (on its own thread: see the runtime).
pub fn write(path: &Path, kind: ExportKind, config: &ChunkConfig, chunks: &[Chunk], text: &str) -> Result<()> {
    match kind {
        ExportKind::Config => config.save(path),
        ExportKind::Chunks => {
            let mut out = Vec::with_capacity(text.len() * 2);
            for r in crate::export::records(chunks, text) {
                serde_json::to_writer(&mut out, &r).expect("records serialise");
                out.push(b'\n');
            }
            crate::export::write_atomic(path, &out)
        }
    }
}

/// `chunktui.toml` (config) or `<stem>.chunks.jsonl` (chunks) next to the
/// document; never the document's own name (a document called
/// `chunktui.toml` gets `chunktui.export.toml` proposed).
pub fn default_path(doc: &Path, kind: ExportKind) -> String {
    let dir = doc.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = match kind {
        ExportKind::Config if doc.file_name().is_some_and(|n| n == "chunktui.toml") => {
            "chunktui.export.toml".to_string()
        }
        ExportKind::Config => "chunktui.toml".to_string(),
        // `<stem>.chunks.jsonl` can never be the document's own name.
        ExportKind::Chunks => {
            format!("{}.chunks.jsonl", doc.file_stem().map_or("chunks".into(), |s| s.to_string_lossy()))
        }
    };
    dir.join(name).display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_proposes_the_document_itself() {
        assert_eq!(default_path(Path::new("a/guide.md"), ExportKind::Config), "a/chunktui.toml");
        assert_eq!(default_path(Path::new("a/chunktui.toml"), ExportKind::Config), "a/chunktui.export.toml");
        assert_eq!(default_path(Path::new("x.chunks.jsonl"), ExportKind::Chunks), "./x.chunks.chunks.jsonl");
        assert_eq!(default_path(Path::new("guide.md"), ExportKind::Chunks), "./guide.chunks.jsonl");
    }
}
