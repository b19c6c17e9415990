//! Export, UI side: the path proposed for each kind of export. Writing is
//! done by the core (`ChunkConfig::save`, `export::records`) on a worker.

use super::msg::ExportKind;
use std::path::Path;

/// `chunktui.toml` (config) or `<stem>.chunks.jsonl` (chunks) next to the document.
pub fn default_path(doc: &Path, kind: ExportKind) -> String {
    let dir = doc.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = match kind {
        ExportKind::Config => "chunktui.toml".to_string(),
        ExportKind::Chunks => format!("{}.chunks.jsonl", doc.file_stem().map_or("chunks".into(), |s| s.to_string_lossy())),
    };
    dir.join(name).display().to_string()
}
