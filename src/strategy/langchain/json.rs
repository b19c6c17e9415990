//! LangChain's RecursiveJsonSplitter. (Being written: see issue #48.)

use crate::error::Error;
use crate::strategy::{OverlapRule, SizeRule, Spec};

pub const SPEC: Spec = Spec {
    name: "langchain-json",
    help: "LangChain's RecursiveJsonSplitter, chunk for chunk (re-serialised JSON)",
    size: SizeRule::Target,
    overlap: OverlapRule::None,
    ..Spec::new(|_| Err(Error::config("langchain-json is not built yet")))
};
