//! What the walk needs to know about each language's syntax tree: which
//! nodes are items that name a symbol (and how the symbol reads), which wrap
//! an item (`export`, decorators, `template<...>`), and which belong to the
//! item after them (comments, attributes, decorators). Node kinds are the
//! grammars' own names (their `node-types.json`).

use tree_sitter::{Language, Node};

pub struct Grammar {
    pub name: &'static str,
    pub language: fn() -> Language,
    /// (node kind, the word its symbol starts with), in one list or more.
    items: &'static [&'static [(&'static str, &'static str)]],
    /// Nodes that hold one item and name nothing themselves.
    wrappers: &'static [&'static str],
    /// Nodes that go with the item after them.
    attached: &'static [&'static str],
}

const RUST: Grammar = Grammar {
    name: "rust",
    language: || tree_sitter_rust::LANGUAGE.into(),
    items: &[&[
        ("function_item", "fn"),
        ("function_signature_item", "fn"),
        ("impl_item", "impl"),
        ("trait_item", "trait"),
        ("struct_item", "struct"),
        ("enum_item", "enum"),
        ("union_item", "union"),
        ("mod_item", "mod"),
        ("macro_definition", "macro_rules!"),
    ]],
    wrappers: &[],
    attached: &["line_comment", "block_comment", "attribute_item"],
};

const PYTHON: Grammar = Grammar {
    name: "python",
    language: || tree_sitter_python::LANGUAGE.into(),
    items: &[&[("function_definition", "def"), ("class_definition", "class")]],
    wrappers: &["decorated_definition"],
    attached: &["comment", "decorator"],
};

const JS_ITEMS: &[(&str, &str)] = &[
    ("function_declaration", "function"),
    ("generator_function_declaration", "function*"),
    ("class_declaration", "class"),
    ("method_definition", "method"),
    // Only when they bind a function (`const f = () => ...`): see `name`.
    ("lexical_declaration", "function"),
    ("variable_declaration", "function"),
];

const JAVASCRIPT: Grammar = Grammar {
    name: "javascript",
    language: || tree_sitter_javascript::LANGUAGE.into(),
    items: &[JS_ITEMS],
    wrappers: &["export_statement"],
    attached: &["comment", "decorator"],
};

const TS_ITEMS: &[(&str, &str)] = &[
    ("abstract_class_declaration", "class"),
    ("interface_declaration", "interface"),
    ("type_alias_declaration", "type"),
    ("enum_declaration", "enum"),
    ("internal_module", "namespace"),
    ("module", "module"),
    ("function_signature", "function"),
    ("method_signature", "method"),
    ("abstract_method_signature", "method"),
];

const TYPESCRIPT: Grammar = Grammar {
    name: "typescript",
    language: || tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
    items: &[JS_ITEMS, TS_ITEMS],
    wrappers: &["export_statement", "ambient_declaration"],
    attached: &["comment", "decorator"],
};

const TSX: Grammar = Grammar { name: "tsx", language: || tree_sitter_typescript::LANGUAGE_TSX.into(), ..TYPESCRIPT };

const GO: Grammar = Grammar {
    name: "go",
    language: || tree_sitter_go::LANGUAGE.into(),
    items: &[&[
        ("function_declaration", "func"),
        ("method_declaration", "func"),
        ("type_spec", "type"),
        ("type_alias", "type"),
    ]],
    wrappers: &["type_declaration"],
    attached: &["comment"],
};

const JAVA: Grammar = Grammar {
    name: "java",
    language: || tree_sitter_java::LANGUAGE.into(),
    items: &[&[
        ("class_declaration", "class"),
        ("interface_declaration", "interface"),
        ("enum_declaration", "enum"),
        ("record_declaration", "record"),
        ("annotation_type_declaration", "@interface"),
        ("method_declaration", "method"),
        ("constructor_declaration", "constructor"),
        ("compact_constructor_declaration", "constructor"),
    ]],
    wrappers: &[],
    attached: &["line_comment", "block_comment"],
};

const C_ITEMS: &[(&str, &str)] = &[
    ("function_definition", "function"),
    // Only with a body (`struct point { ... }`): see `name`.
    ("struct_specifier", "struct"),
    ("union_specifier", "union"),
    ("enum_specifier", "enum"),
    ("type_definition", "typedef"),
];

const C: Grammar = Grammar {
    name: "c",
    language: || tree_sitter_c::LANGUAGE.into(),
    items: &[C_ITEMS],
    wrappers: &["declaration"],
    attached: &["comment"],
};

const CPP: Grammar = Grammar {
    name: "cpp",
    language: || tree_sitter_cpp::LANGUAGE.into(),
    items: &[C_ITEMS, &[("class_specifier", "class"), ("namespace_definition", "namespace")]],
    wrappers: &["declaration", "template_declaration"],
    attached: &["comment"],
};

const ALL: [&Grammar; 9] = [&RUST, &PYTHON, &JAVASCRIPT, &TYPESCRIPT, &TSX, &GO, &JAVA, &C, &CPP];

/// The grammar named `name` (one of [`super::LANGUAGES`]).
pub fn find(name: &str) -> Option<&'static Grammar> {
    ALL.into_iter().find(|g| g.name == name)
}

/// Longest symbol name kept (a C++ template type can be a paragraph).
const MAX_NAME_CHARS: usize = 80;

impl Grammar {
    pub fn is_attached(&self, node: Node<'_>) -> bool {
        self.attached.contains(&node.kind())
    }

    /// The symbol an item node names (`fn find`, `impl Display for Searcher`),
    /// or None for a node that is no item.
    pub fn label(&self, node: Node<'_>, text: &str) -> Option<String> {
        let kind = node.kind();
        let word = self.word(kind)?;
        match name(node, text) {
            Some(name) if name.is_empty() => Some(word.to_string()),
            Some(name) => Some(format!("{word} {name}")),
            // These name a symbol only when they bind a function or have a body.
            None if conditional(kind) => None,
            None => Some(word.to_string()),
        }
    }

    /// The symbol of an item, or of the item a wrapper holds (`export class X`
    /// names `class X`).
    pub fn symbol(&self, mut node: Node<'_>, text: &str) -> Option<String> {
        // Wrappers nest at most a few deep (export of a declare of a class).
        for _ in 0..4 {
            if !self.wrappers.contains(&node.kind()) {
                return self.label(node, text);
            }
            node = inner(node)?;
        }
        None
    }

    /// The item a wrapper node holds; None for other nodes.
    pub fn wrapped<'tree>(&self, node: Node<'tree>) -> Option<Node<'tree>> {
        self.wrappers.contains(&node.kind()).then(|| inner(node)).flatten()
    }

    /// Whether `node` is an item or wraps one.
    pub fn is_symbol(&self, node: Node<'_>, text: &str) -> bool {
        let kind = node.kind();
        if self.wrappers.contains(&kind) || conditional(kind) {
            return self.symbol(node, text).is_some();
        }
        self.word(kind).is_some()
    }

    /// The word an item kind's symbols start with.
    fn word(&self, kind: &str) -> Option<&'static str> {
        self.items.iter().flat_map(|list| list.iter()).find(|(k, _)| *k == kind).map(|&(_, word)| word)
    }
}

fn conditional(kind: &str) -> bool {
    matches!(
        kind,
        "lexical_declaration"
            | "variable_declaration"
            | "struct_specifier"
            | "union_specifier"
            | "enum_specifier"
            | "class_specifier"
    )
}

/// The item inside a wrapper node.
fn inner(node: Node<'_>) -> Option<Node<'_>> {
    ["declaration", "definition", "type"]
        .into_iter()
        .find_map(|f| node.child_by_field_name(f))
        .or_else(|| node.named_child(u32::try_from(node.named_child_count()).ok()?.checked_sub(1)?))
}

/// The name part of an item's symbol ("" for an anonymous one).
fn name(node: Node<'_>, text: &str) -> Option<String> {
    let field = |n: Node<'_>, f: &str| {
        n.child_by_field_name(f).map(|c| crate::chunk::label(&text[c.byte_range()], MAX_NAME_CHARS))
    };
    match node.kind() {
        "impl_item" => {
            let ty = field(node, "type")?;
            Some(match field(node, "trait") {
                Some(tr) => format!("{tr} for {ty}"),
                None => ty,
            })
        }
        "lexical_declaration" | "variable_declaration" => {
            let mut cursor = node.walk();
            let binding = node.named_children(&mut cursor).find(|d| d.kind() == "variable_declarator")?;
            let value = binding.child_by_field_name("value")?;
            matches!(value.kind(), "arrow_function" | "function_expression" | "function" | "generator_function")
                .then(|| field(binding, "name"))?
        }
        "struct_specifier" | "union_specifier" | "enum_specifier" | "class_specifier" => {
            // Anonymous (`typedef struct { ... } Point`): named by its word alone.
            node.child_by_field_name("body")?;
            Some(field(node, "name").unwrap_or_default())
        }
        _ => {
            if let Some(name) = field(node, "name") {
                // A Go method names its receiver's type: `func (*Store) Add`.
                let receiver = node.child_by_field_name("receiver").and_then(|r| {
                    let mut cursor = r.walk();
                    let first = r.named_children(&mut cursor).find(|p| p.kind() == "parameter_declaration");
                    first.and_then(|p| field(p, "type"))
                });
                return Some(match receiver {
                    Some(ty) => format!("({ty}) {name}"),
                    None => name,
                });
            }
            // C and C++ name a function or typedef through its declarator chain.
            let mut declarator = node.child_by_field_name("declarator")?;
            while let Some(next) = declarator.child_by_field_name("declarator") {
                declarator = next;
            }
            Some(crate::chunk::label(&text[declarator.byte_range()], MAX_NAME_CHARS))
        }
    }
}
