//! The items of a source file, found with tree-sitter by this test's own
//! list of node kinds (written from the grammars' node-types.json, not the
//! strategy's tables), and which of them a list of chunks splits.

use crate::common::Checker;
use chunktui::Chunk;
use tree_sitter::{Language, Node, Parser};

/// The grammar and the item kinds this test looks for, per language: its
/// own list, written from the grammars' node-types.json, not the strategy's.
fn grammar(language: &str) -> (Language, &'static [&'static str]) {
    const JS: &[&str] =
        &["function_declaration", "generator_function_declaration", "class_declaration", "method_definition"];
    const TS: &[&str] = &[
        "function_declaration",
        "class_declaration",
        "abstract_class_declaration",
        "method_definition",
        "interface_declaration",
        "enum_declaration",
        "type_alias_declaration",
        "internal_module",
    ];
    const C: &[&str] = &["function_definition", "struct_specifier", "enum_specifier", "type_definition"];
    match language {
        "rust" => (
            tree_sitter_rust::LANGUAGE.into(),
            &["function_item", "impl_item", "trait_item", "struct_item", "enum_item", "mod_item", "macro_definition"],
        ),
        "python" => {
            (tree_sitter_python::LANGUAGE.into(), &["function_definition", "class_definition", "decorated_definition"])
        }
        "javascript" => (tree_sitter_javascript::LANGUAGE.into(), JS),
        "typescript" => (tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(), TS),
        "go" => (tree_sitter_go::LANGUAGE.into(), &["function_declaration", "method_declaration", "type_declaration"]),
        "java" => (
            tree_sitter_java::LANGUAGE.into(),
            &[
                "class_declaration",
                "interface_declaration",
                "enum_declaration",
                "record_declaration",
                "method_declaration",
                "constructor_declaration",
            ],
        ),
        "c" => (tree_sitter_c::LANGUAGE.into(), C),
        "cpp" => (
            tree_sitter_cpp::LANGUAGE.into(),
            &[
                "function_definition",
                "struct_specifier",
                "class_specifier",
                "namespace_definition",
                "template_declaration",
                "type_definition",
            ],
        ),
        other => panic!("no test grammar for {other}"),
    }
}

/// Byte ranges of every item node of `text`.
pub fn items(text: &str, language: &str) -> Vec<(&'static str, std::ops::Range<usize>)> {
    let (lang, kinds) = grammar(language);
    let mut parser = Parser::new();
    parser.set_language(&lang).unwrap();
    let tree = parser.parse(text, None).unwrap();
    let mut out = Vec::new();
    let mut stack: Vec<Node<'_>> = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if let Some(kind) = kinds.iter().find(|&&k| k == node.kind()) {
            // A struct named in a declaration (`struct item *it`) is no item.
            if !kind.ends_with("_specifier") || node.child_by_field_name("body").is_some() {
                out.push((*kind, node.byte_range()));
            }
        }
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor));
    }
    out
}

/// The items of `text` that measure at most `size` and lie in no single chunk.
pub fn split_items(text: &str, language: &str, chunks: &[Chunk], checker: &Checker<'_>, size: usize) -> Vec<String> {
    let mut split = Vec::new();
    for (kind, item) in items(text, language) {
        // A node from error recovery may begin or end in whitespace, which chunks leave out.
        let body = &text[item.clone()];
        let start = item.start + (body.len() - body.trim_start().len());
        let item = start..start + body.trim().len();
        let whole = chunks.iter().any(|c| c.range.start <= item.start && item.end <= c.range.end);
        if !whole && checker.index.size(item.clone()) <= size {
            let head: String = text[item.clone()].chars().take(60).collect();
            split.push(format!("{kind} {item:?} {head:?}"));
        }
    }
    split
}
