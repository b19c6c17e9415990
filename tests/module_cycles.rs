//! The top-level modules of src/ import each other in one direction only:
//! no two of them reach each other, through any number of steps. A new
//! import that closes a circle fails here, naming the files and lines of
//! every import in it (ARCHITECTURE.md draws the layers this keeps).
//!
//! An import is any `crate::NAME` path in code (a `use`, or a path written
//! out), a name `lib.rs` re-exports (`crate::Chunk` is `chunk`'s), or `super::`
//! from a file right under src/. Comments and `#[cfg(test)]` modules do not
//! count: a unit test may reach up to build its fixtures.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One import of another top-level module: where it is written.
#[derive(Debug, Clone)]
struct Import {
    to: String,
    file: String,
    line: usize,
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `pub use MODULE::{A, B};` lines of lib.rs: name -> module.
fn reexports(lib: &str) -> BTreeMap<String, String> {
    let mut names = BTreeMap::new();
    for line in lib.lines() {
        let Some(rest) = line.trim().strip_prefix("pub use ") else { continue };
        let rest = rest.trim_end_matches(';');
        let Some((module, items)) = rest.split_once("::") else { continue };
        for item in items.trim_matches(|c| c == '{' || c == '}').split(',') {
            let name = item.trim().rsplit("::").next().unwrap().trim();
            if !name.is_empty() {
                names.insert(name.to_string(), module.to_string());
            }
        }
    }
    names
}

/// The code of a file without comments and without its `#[cfg(test)]`
/// module (the last item of a file, by this project's habit), line by line.
fn code_lines(text: &str) -> Vec<(usize, String)> {
    let mut lines = Vec::new();
    let all: Vec<&str> = text.lines().collect();
    for (i, line) in all.iter().enumerate() {
        let trimmed = line.trim();
        if trimmed.starts_with("#[cfg(test)]") || trimmed.starts_with("#[cfg(all(test") {
            let next = all.get(i + 1).map(|l| l.trim()).unwrap_or("");
            if next.starts_with("mod ") || next.starts_with("pub mod ") {
                break;
            }
        }
        let code = match line.find("//") {
            // `//` inside a string ("https://") is rare in paths we look for.
            Some(at) if !line[..at].contains('"') => &line[..at],
            _ => line,
        };
        lines.push((i + 1, code.to_string()));
    }
    lines
}

/// The first segment of each path after `crate::` (or `super::` for a file
/// right under src/), braces opened one level.
fn imported_names(code: &str, top_file: bool) -> Vec<String> {
    let mut names = Vec::new();
    let prefixes: &[&str] = if top_file { &["crate::", "super::"] } else { &["crate::"] };
    for prefix in prefixes {
        let mut rest = code;
        while let Some(at) = rest.find(prefix) {
            let before = rest[..at].chars().last();
            rest = &rest[at + prefix.len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            if let Some(group) = rest.strip_prefix('{') {
                let body = &group[..group.find('}').unwrap_or(group.len())];
                names.extend(body.split(',').map(|item| item.trim().split("::").next().unwrap().trim().to_string()));
            } else {
                let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                names.push(name);
            }
        }
    }
    names.retain(|n| !n.is_empty() && n != "self");
    names
}

fn imports() -> BTreeMap<String, Vec<Import>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let reexported = reexports(&lib);
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut graph: BTreeMap<String, Vec<Import>> = BTreeMap::new();
    for path in files {
        let rel = path.strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/");
        let top = rel.split('/').next().unwrap().trim_end_matches(".rs").to_string();
        if top == "lib" || top == "main" || rel.ends_with("/tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (line, code) in code_lines(&text) {
            for name in imported_names(&code, !rel.contains('/')) {
                let module = reexported.get(&name).cloned().unwrap_or(name);
                if module != top {
                    graph.entry(top.clone()).or_default().push(Import { to: module, file: rel.clone(), line });
                }
            }
        }
    }
    graph
}

/// Strongly connected groups of two or more modules (Tarjan).
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'g> {
        graph: &'g BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        for w in s.graph.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                s.low.insert(v, s.low[v].min(lw));
            } else if s.stack.contains(&w) {
                let iw = s.index[w];
                s.low.insert(v, s.low[v].min(iw));
            }
        }
        if s.low[v] == s.index[v] {
            let mut group = Vec::new();
            while let Some(w) = s.stack.pop() {
                group.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if group.len() > 1 {
                group.sort();
                s.found.push(group);
            }
        }
    }
    let mut s = State { graph, index: BTreeMap::new(), low: BTreeMap::new(), stack: Vec::new(), found: Vec::new() };
    for v in graph.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.found
}

#[test]
fn no_import_circle_between_top_level_modules() {
    let imports = imports();
    let graph: BTreeMap<String, BTreeSet<String>> =
        imports.iter().map(|(from, list)| (from.clone(), list.iter().map(|i| i.to.clone()).collect())).collect();
    let found = circles(&graph);
    let mut report = String::new();
    for group in &found {
        report += &format!("circle: {}\n", group.join(" ⇄ "));
        for from in group {
            for import in &imports[from] {
                if group.contains(&import.to) {
                    report += &format!("  {from} -> {} at src/{}:{}\n", import.to, import.file, import.line);
                }
            }
        }
    }
    assert!(found.is_empty(), "top-level modules of src/ import each other:\n{report}");
}

#[test]
fn the_check_sees_imports_and_circles() {
    // The reader: braces, re-exported names, super:: from a top file, comments.
    assert_eq!(imported_names("use crate::{config::X, size::Y};", false), ["config", "size"]);
    assert_eq!(imported_names("let a = crate::strategy::recursive::SPEC;", false), ["strategy"]);
    assert_eq!(imported_names("use super::io;", true), ["io"]);
    assert!(imported_names("use super::io;", false).is_empty());
    assert!(imported_names("foo_crate::x", false).is_empty());
    let lines =
        code_lines("use crate::a; // crate::b\n/// [`crate::c`]\n#[cfg(test)]\nmod tests {\n use crate::d;\n}\n");
    let seen: Vec<String> = lines.iter().flat_map(|(_, l)| imported_names(l, false)).collect();
    assert_eq!(seen, ["a"]);
    // The finder: a circle of three is found, a chain is not.
    let edges = |pairs: &[(&str, &str)]| {
        let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in pairs {
            g.entry(a.to_string()).or_default().insert(b.to_string());
        }
        g
    };
    assert_eq!(circles(&edges(&[("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")])), [["a", "b", "c"]]);
    assert!(circles(&edges(&[("a", "b"), ("b", "c"), ("a", "c")])).is_empty());
    let lib = reexports("pub use chunk::{Chunk, ChunkMeta};\npub use size::Unit;\n");
    assert_eq!(lib["ChunkMeta"], "chunk");
    assert_eq!(lib["Unit"], "size");
}
