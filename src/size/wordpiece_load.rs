//! A WordPiece tokenizer.json loaded in a few milliseconds instead of ~25.
//!
//! `tokenizers` reads the model through an untagged enum: the whole model
//! (MiniLM's 30k-word vocabulary) is buffered, turned into a
//! `serde_json::Value` (a `BTreeMap` insert per word), and only then read as
//! a WordPiece. Every `stats` and `lint` run loads the embedding model's
//! tokenizer, so that was most of their time on a small file. Here the
//! vocabulary is read straight into the map the model keeps, the rest of
//! the file (normalizer, pre-tokenizer, added tokens, post-processor) is read
//! by `tokenizers` itself around a one-word model, and the real model is
//! put in its place.

use ahash::AHashMap;
use serde::Deserialize;
use serde_json::value::RawValue;
use std::collections::BTreeMap;
use tokenizers::models::wordpiece::WordPiece;

#[derive(Deserialize)]
struct WordPieceFile {
    #[serde(rename = "type")]
    kind: String,
    unk_token: String,
    continuing_subword_prefix: String,
    max_input_chars_per_word: usize,
    vocab: AHashMap<String, u32>,
}

/// The tokenizer `bytes` (a tokenizer.json) describes, when its model is a
/// WordPiece written out in full; None sends the caller to
/// `Tokenizer::from_bytes`. Added tokens get ids after the one-word
/// model's: ids differ from the file's, token counts do not (they are all
/// chunktui asks of a tokenizer).
pub fn load(bytes: &[u8]) -> Option<tokenizers::Tokenizer> {
    let mut top: BTreeMap<String, Box<RawValue>> = serde_json::from_slice(bytes).ok()?;
    let file: WordPieceFile = serde_json::from_str(top.get("model")?.get()).ok()?;
    if file.kind != "WordPiece" || !file.vocab.contains_key(&file.unk_token) {
        return None;
    }
    let stand_in = serde_json::json!({
        "type": "WordPiece",
        "unk_token": file.unk_token,
        "continuing_subword_prefix": file.continuing_subword_prefix,
        "max_input_chars_per_word": file.max_input_chars_per_word,
        "vocab": {file.unk_token.as_str(): 0},
    });
    top.insert("model".into(), RawValue::from_string(stand_in.to_string()).ok()?);
    let mut tokenizer: tokenizers::Tokenizer = serde_json::to_string(&top).ok()?.parse().ok()?;
    let model = WordPiece::builder()
        .vocab(file.vocab)
        .unk_token(file.unk_token)
        .continuing_subword_prefix(file.continuing_subword_prefix)
        .max_input_chars_per_word(file.max_input_chars_per_word)
        .build()
        .ok()?;
    tokenizer.with_model(model);
    Some(tokenizer)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(model: serde_json::Value) -> Vec<u8> {
        serde_json::json!({
            "version": "1.0",
            "added_tokens": [
                {"id": 0, "content": "[UNK]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
                {"id": 5, "content": "[CLS]", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
            ],
            "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": null, "lowercase": true},
            "pre_tokenizer": {"type": "BertPreTokenizer"},
            "model": model,
        })
        .to_string()
        .into_bytes()
    }

    fn wordpiece() -> serde_json::Value {
        serde_json::json!({
            "type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
            "max_input_chars_per_word": 100,
            "vocab": {"[UNK]": 0, "un": 1, "##aff": 2, "##able": 3, "中": 4, "[CLS]": 5, "!": 6},
        })
    }

    #[test]
    fn counts_equal_the_crates_own_load() {
        let bytes = file(wordpiece());
        let fast = load(&bytes).expect("a WordPiece file");
        let slow = tokenizers::Tokenizer::from_bytes(&bytes).expect("loads");
        for text in ["Unaffable!", "[CLS] unaffable 中文 x", "", "ÜNAFFABLE [CLS]!!", "un##aff"] {
            let count = |t: &tokenizers::Tokenizer| t.encode_fast(text, false).expect("encodes").get_ids().len();
            assert_eq!(count(&fast), count(&slow), "{text:?}");
        }
    }

    #[test]
    fn other_models_and_broken_files_are_left_to_the_crate() {
        let bpe = serde_json::json!({"type": "BPE", "vocab": {"a": 0}, "merges": []});
        assert!(load(&file(bpe)).is_none());
        let mut no_unk = wordpiece();
        no_unk["vocab"] = serde_json::json!({"un": 0});
        assert!(load(&file(no_unk)).is_none());
        assert!(load(b"{\"model\": 3}").is_none());
        assert!(load(b"not json").is_none());
    }
}
