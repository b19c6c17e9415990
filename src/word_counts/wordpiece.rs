//! WordPiece's count of one plain ASCII word, without its tokens.
//!
//! `tokenizers`' `WordPiece::tokenize` builds a `String` for every
//! candidate sub-word it tries and a `Token` for every one it keeps: a word
//! not in the vocabulary costs a microsecond or more. A book has tens of
//! thousands of distinct words and each is counted once per thread, so
//! those allocations were a third of a `stats` run. This is the same greedy
//! longest-match-first walk, counting into one reused buffer, looking words
//! up in the model's own vocabulary.

use tokenizers::models::wordpiece::WordPiece;
use tokenizers::Model;

/// A WordPiece model that can be counted with.
#[derive(Clone, Copy)]
pub struct WordVocab<'m> {
    model: &'m WordPiece,
}

impl<'m> WordVocab<'m> {
    /// None when the model has no unknown token in its vocabulary: its
    /// `tokenize` then fails on an unknown word, and only the whole
    /// pipeline can say what that word counts.
    pub fn of(model: &'m WordPiece) -> Option<WordVocab<'m>> {
        model.token_to_id(&model.unk_token).map(|_| WordVocab { model })
    }

    /// The tokens WordPiece cuts `word` into: `word` is plain ASCII and
    /// already normalized (lowercased when the normalizer lowercases), so a
    /// byte is a char. `buf` is scratch space, kept between calls.
    pub fn count(&self, word: &str, buf: &mut String) -> usize {
        if word.len() > self.model.max_input_chars_per_word {
            return 1;
        }
        let mut tokens = 0;
        let mut start = 0;
        while start < word.len() {
            let found = (start + 1..=word.len()).rev().find(|&end| {
                buf.clear();
                if start > 0 {
                    buf.push_str(&self.model.continuing_subword_prefix);
                }
                buf.push_str(&word[start..end]);
                self.model.token_to_id(buf).is_some()
            });
            match found {
                Some(end) => {
                    tokens += 1;
                    start = end;
                }
                // No sub-word matches here: the whole word is unknown.
                None => return 1,
            }
        }
        tokens
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A WordPiece model of `words`, read as tokenizer.json holds one.
    fn model_of(words: &[&str]) -> WordPiece {
        let vocab: serde_json::Map<String, serde_json::Value> =
            words.iter().enumerate().map(|(i, w)| (w.to_string(), i.into())).collect();
        let json = serde_json::json!({
            "type": "WordPiece", "vocab": vocab, "unk_token": "[UNK]",
            "continuing_subword_prefix": "##", "max_input_chars_per_word": 12,
        });
        serde_json::from_str(&json.to_string()).expect("a WordPiece")
    }

    fn model() -> WordPiece {
        model_of(&["[UNK]", "un", "##aff", "##able", "a", "##b", "##a", "b", "ab", "##ab", "abc", "##c"])
    }

    #[test]
    fn known_unknown_and_overlong_words() {
        let (model, mut buf) = (model(), String::new());
        let vocab = WordVocab::of(&model).expect("has [UNK]");
        assert_eq!(vocab.count("unaffable", &mut buf), 3);
        assert_eq!(vocab.count("abcab", &mut buf), 2, "abc, ##ab");
        assert_eq!(vocab.count("abx", &mut buf), 1, "x matches nothing: one [UNK]");
        assert_eq!(vocab.count(&"ab".repeat(7), &mut buf), 1, "over 12 chars: one [UNK]");
    }

    #[test]
    fn no_unknown_token_no_counter() {
        assert!(WordVocab::of(&model_of(&["a"])).is_none());
    }

    proptest! {
        #[test]
        fn counts_equal_the_crates_tokens(word in "[abcunfle]{1,16}") {
            let (model, mut buf) = (model(), String::new());
            let vocab = WordVocab::of(&model).expect("has [UNK]");
            let tokens = model.tokenize(&word).expect("tokenizes").len();
            prop_assert_eq!(vocab.count(&word, &mut buf), tokens);
        }
    }
}
