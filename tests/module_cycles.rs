//! The top-level modules of src/ import each other in one direction only:
//! no two of them reach each other, through any number of steps. A new
//! import that closes a circle fails here, naming the files and lines of
//! every import in it (ARCHITECTURE.md draws the layers this keeps).
//!
//! Inside a folder that holds one part of the program (src/tui), the same
//! holds file by file: [`folder_circles`] reads which file of the folder
//! imports which (a `use` path, or a path written out, resolved to the file
//! that defines what it names, through `pub use` re-exports) and
//! names, for every circle, the import that closes it.
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

// ---- File by file, inside one folder ----------------------------------

/// The module a file under src/ is: `tui/view/doc.rs` is `tui::view::doc`,
/// `tui/view/mod.rs` is `tui::view`.
fn module_of(file: &str) -> Vec<String> {
    let path = file.trim_end_matches(".rs").trim_end_matches("/mod");
    path.split('/').map(str::to_string).collect()
}

/// The file that defines module `module`, if it is one of `files`.
fn file_of(module: &[String], files: &BTreeSet<String>) -> Option<String> {
    let base = module.join("/");
    [format!("{base}.rs"), format!("{base}/mod.rs")].into_iter().find(|f| files.contains(f))
}

/// The paths one `use` item brings in, braces expanded, each with the name
/// it is known by in the file (`as` renames; `self` is its module's name).
fn use_paths(item: &str) -> Vec<(Vec<String>, String)> {
    fn expand(prefix: &[String], item: &str, out: &mut Vec<(Vec<String>, String)>) {
        let item = item.trim();
        if item.is_empty() {
            return;
        }
        if let Some(open) = item.find('{') {
            let head: Vec<String> =
                item[..open].split("::").map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect();
            let prefix: Vec<String> = prefix.iter().cloned().chain(head).collect();
            let body = &item[open + 1..item.rfind('}').unwrap_or(item.len())];
            // Split the group's items at top-level commas only.
            let (mut depth, mut start) = (0, 0);
            for (i, c) in body.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        expand(&prefix, &body[start..i], out);
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            expand(&prefix, &body[start..], out);
            return;
        }
        let (path, alias) = match item.split_once(" as ") {
            Some((p, a)) => (p.trim(), Some(a.trim().to_string())),
            None => (item, None),
        };
        let mut segs: Vec<String> = prefix.to_vec();
        segs.extend(path.split("::").map(|s| s.trim().to_string()).filter(|s| !s.is_empty()));
        if segs.last().is_some_and(|s| s == "self") {
            segs.pop();
        }
        if segs.last().is_some_and(|s| s == "*") {
            return; // a glob names no module of its own
        }
        let name = alias.unwrap_or_else(|| segs.last().cloned().unwrap_or_default());
        out.push((segs, name));
    }
    let mut out = Vec::new();
    expand(&[], item, &mut out);
    out
}

/// One `use` item of a file: the line it starts on, the item joined onto
/// one line (without `use` and `;`), and whether it is `pub` (a re-export).
#[derive(Debug, PartialEq)]
struct UseItem {
    line: usize,
    item: String,
    public: bool,
}

/// The `use` items of a file's code, and its other lines.
fn split_uses(code: &[(usize, String)]) -> (Vec<UseItem>, Vec<(usize, String)>) {
    let (mut uses, mut rest) = (Vec::new(), Vec::new());
    let mut open: Option<UseItem> = None;
    for (line, text) in code {
        let t = text.trim();
        if let Some(u) = open.as_mut() {
            u.item.push(' ');
            u.item.push_str(t);
        } else if let Some(at) = t.find("use ").filter(|&at| {
            let head = &t[..at];
            head.is_empty() || head == "pub " || (head.starts_with("pub(") && head.ends_with(") "))
        }) {
            open = Some(UseItem { line: *line, item: t[at + 4..].to_string(), public: at > 0 });
        } else {
            rest.push((*line, text.clone()));
            continue;
        }
        if open.as_ref().is_some_and(|u| u.item.ends_with(';')) {
            let mut u = open.take().unwrap();
            u.item = u.item.trim_end_matches(';').to_string();
            uses.push(u);
        }
    }
    (uses, rest)
}

/// Paths written out in code: `a::b::c` (idents joined by `::`).
fn written_paths(code: &str) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    let chars: Vec<char> = code.chars().collect();
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut i = 0;
    while i < chars.len() {
        if !ident(chars[i]) || (i > 0 && (ident(chars[i - 1]) || chars[i - 1] == ':')) {
            i += 1;
            continue;
        }
        let mut segs = Vec::new();
        let mut j = i;
        loop {
            let start = j;
            while j < chars.len() && ident(chars[j]) {
                j += 1;
            }
            segs.push(chars[start..j].iter().collect::<String>());
            if j + 2 < chars.len() && chars[j] == ':' && chars[j + 1] == ':' && ident(chars[j + 2]) {
                j += 2;
            } else {
                break;
            }
        }
        if segs.len() > 1 {
            paths.push(segs);
        }
        i = j.max(i + 1);
    }
    paths
}

/// A path as written in the file of module `here`, from the crate root:
/// `crate::`, `super::`, `self::`, a name the file imported, or a child
/// module. None for other crates, std and the file's own items.
fn absolute(
    segs: &[String],
    here: &[String],
    aliases: &BTreeMap<String, Vec<String>>,
    files: &BTreeSet<String>,
) -> Option<Vec<String>> {
    let (first, rest) = segs.split_first()?;
    let mut base = match first.as_str() {
        "crate" => Vec::new(),
        "self" => here.to_vec(),
        "super" => {
            let mut m = here.to_vec();
            m.pop();
            let mut rest = rest;
            while rest.first().is_some_and(|s| s == "super") {
                m.pop();
                rest = &rest[1..];
            }
            return Some(m.into_iter().chain(rest.iter().cloned()).collect());
        }
        _ => match aliases.get(first) {
            Some(path) => path.clone(),
            None => {
                let child: Vec<String> = here.iter().cloned().chain([first.clone()]).collect();
                file_of(&child, files)?;
                child
            }
        },
    };
    base.extend(rest.iter().cloned());
    Some(base)
}

/// A folder's files (paths under src/) and, per file, what it re-exports
/// and from where (`pub use crate::tui::state::{keymap, model};`).
struct Tree {
    files: BTreeSet<String>,
    reexports: BTreeMap<String, BTreeMap<String, Vec<String>>>,
}

/// The file whose module a path from the crate root lands in: the longest
/// run of its segments that names a file, following `pub use` re-exports
/// (a name re-exported lands in the file that defines it).
fn resolve(path: &[String], tree: &Tree) -> Option<String> {
    let mut module: Vec<String> = Vec::new();
    let mut found = None;
    let mut path: Vec<String> = path.to_vec();
    let mut hops = 0;
    let mut i = 0;
    while i < path.len() {
        let next: Vec<String> = module.iter().cloned().chain([path[i].clone()]).collect();
        if let Some(file) = file_of(&next, &tree.files) {
            module = next;
            found = Some(file);
            i += 1;
            continue;
        }
        let via = found.as_ref().and_then(|f| tree.reexports.get(f)).and_then(|r| r.get(&path[i]));
        match via {
            Some(target) if hops < 8 => {
                hops += 1;
                path = target.iter().cloned().chain(path[i + 1..].iter().cloned()).collect();
                (module, found, i) = (Vec::new(), None, 0);
            }
            _ => break,
        }
    }
    found
}

/// Which file of `folder` (a path under src/, e.g. `tui`) imports which,
/// each import with where it is written. Comments, `#[cfg(test)]` modules
/// and `tests.rs` files do not count, as above.
fn folder_imports(folder: &str) -> BTreeMap<String, Vec<Import>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    rust_files(&src.join(folder), &mut paths);
    let rel = |p: &PathBuf| p.strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/");
    let mut tree = Tree { files: paths.iter().map(rel).collect(), reexports: BTreeMap::new() };
    let mut parsed = Vec::new();
    for path in &paths {
        let file = rel(path);
        let here = module_of(&file);
        let code = code_lines(&std::fs::read_to_string(path).unwrap());
        let (uses, rest) = split_uses(&code);
        // Twice: a `use` may start from a name another `use` brought in.
        let mut aliases = BTreeMap::new();
        for _ in 0..2 {
            for (segs, name) in uses.iter().flat_map(|u| use_paths(&u.item)) {
                if let Some(abs) = absolute(&segs, &here, &aliases, &tree.files) {
                    aliases.insert(name, abs);
                }
            }
        }
        let public: BTreeMap<String, Vec<String>> = uses
            .iter()
            .filter(|u| u.public)
            .flat_map(|u| use_paths(&u.item))
            .filter_map(|(_, name)| aliases.get(&name).map(|abs| (name, abs.clone())))
            .collect();
        tree.reexports.insert(file.clone(), public);
        parsed.push((file, here, uses, rest, aliases));
    }
    let mut graph: BTreeMap<String, Vec<Import>> = BTreeMap::new();
    for (file, here, uses, rest, aliases) in parsed {
        if file.ends_with("/tests.rs") {
            continue;
        }
        let written = uses
            .iter()
            .flat_map(|u| use_paths(&u.item).into_iter().map(|(segs, _)| (u.line, segs)).collect::<Vec<_>>())
            .chain(rest.iter().flat_map(|(line, code)| written_paths(code).into_iter().map(|p| (*line, p))));
        for (line, segs) in written {
            let Some(abs) = absolute(&segs, &here, &aliases, &tree.files) else { continue };
            if let Some(to) = resolve(&abs, &tree).filter(|to| *to != file && !to.ends_with("/tests.rs")) {
                graph.entry(file.clone()).or_default().push(Import { to, file: file.clone(), line });
            }
        }
    }
    graph
}

/// The shortest way back from `to` to `from` inside `group`, if any.
fn way_back(graph: &BTreeMap<String, BTreeSet<String>>, to: &str, from: &str) -> Option<Vec<String>> {
    let mut came: BTreeMap<String, String> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([to.to_string()]);
    while let Some(v) = queue.pop_front() {
        if v == from {
            let mut way = vec![v.clone()];
            while let Some(p) = came.get(way.last().unwrap()) {
                way.push(p.clone());
            }
            way.reverse();
            return Some(way);
        }
        for w in graph.get(&v).into_iter().flatten() {
            if w != to && !came.contains_key(w) {
                came.insert(w.clone(), v.clone());
                queue.push_back(w.clone());
            }
        }
    }
    None
}

/// Every circle among the files of `folder`, one report each: the files,
/// one way round, and the import that closes it (file and line).
fn folder_circles(folder: &str) -> Vec<String> {
    let imports = folder_imports(folder);
    let graph: BTreeMap<String, BTreeSet<String>> =
        imports.iter().map(|(from, list)| (from.clone(), list.iter().map(|i| i.to.clone()).collect())).collect();
    let mut reports = Vec::new();
    for group in circles(&graph) {
        // The import that closes it: the first (in file order) from a file of
        // the group to one it is reached from.
        let closing = group
            .iter()
            .flat_map(|from| &imports[from])
            .find_map(|i| Some((i, way_back(&graph, &i.to, &i.file)?)).filter(|_| group.contains(&i.to)));
        let mut report = format!("circle of {} files in src/{folder}: {}\n", group.len(), group.join(", "));
        if let Some((import, way)) = closing {
            report += &format!("  one way round: {} -> {}\n", way.join(" -> "), import.to);
            report += &format!(
                "  the import that closes it: src/{}:{} ({} -> {})\n",
                import.file, import.line, import.file, import.to
            );
        }
        reports.push(report);
    }
    reports
}

#[test]
fn no_import_circle_between_the_files_of_src_tui() {
    let found = folder_circles("tui");
    assert!(found.is_empty(), "files of src/tui import each other:\n{}", found.concat());
}

#[test]
fn no_import_circle_between_the_files_of_src_cli() {
    let found = folder_circles("cli");
    assert!(found.is_empty(), "files of src/cli import each other:\n{}", found.concat());
}

#[test]
fn the_folder_check_resolves_paths_to_files() {
    let files: BTreeSet<String> =
        ["tui/mod.rs", "tui/app/mod.rs", "tui/app/update.rs", "tui/state/mod.rs", "tui/state/model.rs"]
            .into_iter()
            .map(str::to_string)
            .collect();
    let s = |p: &str| p.split("::").map(str::to_string).collect::<Vec<_>>();
    assert_eq!(module_of("tui/app/update.rs"), s("tui::app::update"));
    assert_eq!(module_of("tui/app/mod.rs"), s("tui::app"));
    // Braces, self, renames; a glob names no module.
    let uses = use_paths("crate::tui::{state::model::{self, Model as M}, app}");
    assert_eq!(
        uses,
        [
            (s("crate::tui::state::model"), "model".into()),
            (s("crate::tui::state::model::Model"), "M".into()),
            (s("crate::tui::app"), "app".into())
        ]
    );
    assert!(use_paths("super::*").is_empty());
    // crate::, super::, a child module, a name imported, something else.
    let here = s("tui::app::update");
    let none = BTreeMap::new();
    assert_eq!(
        absolute(&s("super::super::state::model::Model"), &here, &none, &files),
        Some(s("tui::state::model::Model"))
    );
    assert_eq!(absolute(&s("app::update"), &s("tui"), &none, &files), Some(s("tui::app::update")));
    let aliases = BTreeMap::from([("model".to_string(), s("tui::state::model"))]);
    assert_eq!(absolute(&s("model::Model"), &here, &aliases, &files), Some(s("tui::state::model::Model")));
    assert_eq!(absolute(&s("std::sync::Arc"), &here, &none, &files), None);
    // The longest path that is a file, through a re-exported module.
    let reexports = BTreeMap::from([("tui/app/mod.rs".to_string(), aliases)]);
    let tree = Tree { files, reexports };
    assert_eq!(resolve(&s("tui::state::model::Model"), &tree).as_deref(), Some("tui/state/model.rs"));
    assert_eq!(resolve(&s("tui::app::model::Model"), &tree).as_deref(), Some("tui/state/model.rs"));
    assert_eq!(resolve(&s("tui::app::Thing"), &tree).as_deref(), Some("tui/app/mod.rs"));
    // Written paths and `use` items spread over lines.
    assert_eq!(written_paths("let x = a::b::c(d::E);"), [s("a::b::c"), s("d::E")]);
    let code = [
        (1, "use crate::{".to_string()),
        (2, "  a::b,".to_string()),
        (3, "};".to_string()),
        (4, "x::y();".to_string()),
    ];
    let (uses, rest) = split_uses(&code);
    assert_eq!(uses, [UseItem { line: 1, item: "crate::{ a::b, }".into(), public: false }]);
    assert_eq!(rest.len(), 1);
    // The way round names the import that closes the circle.
    let g = BTreeMap::from([
        ("a".to_string(), BTreeSet::from(["b".to_string()])),
        ("b".to_string(), BTreeSet::from(["a".to_string()])),
    ]);
    assert_eq!(way_back(&g, "b", "a"), Some(vec!["b".to_string(), "a".to_string()]));
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
