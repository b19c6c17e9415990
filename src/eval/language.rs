//! Which retriever to use when the user names none: it depends on the
//! documents' language and on the languages the embedding model reads.
//!
//! - English text (or text we cannot tell from English, such as code):
//!   `dense`, as always.
//! - Mostly Chinese, Japanese or Korean text, or text in another language:
//!   `hybrid` when the model reads that language (a multilingual model),
//!   `bm25` when it is English-only, and `bm25` too when nobody knows which
//!   languages the model reads: an English-only model ranks such text by
//!   noise, slowly, and BM25 (CJK by character bigrams) needs no model.
//!
//! A retriever the user names always wins. [`choose`] decides for
//! `chunktui eval`, `chunktui sweep` and the workbench's probe and live
//! scores; its [`Choice`] says which retriever and why, for the reports.
//!
//! A model's languages come from its directory, first match wins:
//! `chunktui-model.json` `"languages"` (`["en"]`, `["multilingual"]`,
//! `["zh", "en"]`...), then a table of known models by name (the directory,
//! the `id` of chunktui-model.json, `_name_or_path` of config.json), then
//! `config.json` (`model_type` xlm-roberta, or a vocabulary of 100 000 or
//! more), then the size of tokenizer.json's vocabulary (multilingual
//! tokenizers hold 100 000 to 500 000 pieces). A small vocabulary proves
//! nothing (BERT's English vocabulary holds CJK characters too): such a
//! model's language is unknown, never assumed English.

use super::retrieve::RetrieverKind;
use crate::config::{SemanticOptions, DEFAULT_MODEL, MULTILINGUAL_MODEL};
use std::path::{Path, PathBuf};

/// What a text is mostly written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextLanguage {
    /// ISO 639-1 code, or `"other"` for a script or language not told apart.
    pub code: &'static str,
    /// In words: "English", "Chinese", "a non-Latin script"...
    pub name: &'static str,
}

impl TextLanguage {
    pub const ENGLISH: TextLanguage = TextLanguage { code: "en", name: "English" };

    pub fn is_english(self) -> bool {
        self.code == "en"
    }
}

/// Characters read from each document: enough to tell, cheap on a novel.
const SAMPLE_CHARS: usize = 200_000;

/// Share of letters (CJK counted per character, other scripts per letter)
/// above which a text is "mostly" CJK. A Chinese character is about a word,
/// an English word about five letters: 0.3 is roughly twice as many Chinese
/// words as English ones (code blocks included).
const CJK_SHARE: f64 = 0.3;

/// Common function words, English first: a Latin-script text whose
/// commonest function words are another language's is not English.
const STOPWORDS: [(&str, &str, &[&str]); 7] = [
    ("en", "English", &["the", "and", "of", "to", "is", "in", "that", "it", "with", "for", "was", "are", "this", "be"]),
    (
        "de",
        "German",
        &["der", "die", "und", "das", "ist", "nicht", "ein", "eine", "mit", "den", "von", "zu", "sich", "auf"],
    ),
    ("fr", "French", &["le", "la", "les", "et", "des", "est", "une", "dans", "que", "pour", "pas", "du", "qui", "au"]),
    ("es", "Spanish", &["el", "los", "las", "y", "que", "del", "una", "por", "con", "para", "es", "se", "lo", "como"]),
    (
        "it",
        "Italian",
        &["il", "di", "che", "e", "della", "per", "una", "non", "sono", "gli", "del", "con", "nel", "anche"],
    ),
    ("pt", "Portuguese", &["o", "os", "que", "não", "uma", "do", "da", "em", "para", "com", "dos", "das", "ao", "é"]),
    (
        "nl",
        "Dutch",
        &["de", "het", "een", "en", "van", "dat", "niet", "op", "zijn", "voor", "met", "ook", "maar", "wordt"],
    ),
];

/// The longest stopword's bytes, lowercase or not (each of its chars, and
/// each char's capital, is one or two bytes): no longer word is one, so
/// most words are never lowercased.
const STOPWORD_BYTES: usize = 6;

/// The language of a set of documents taken together.
pub fn text_language(texts: &[&str]) -> TextLanguage {
    let mut tally = Tally::default();
    for text in texts {
        tally.sample(text);
    }
    let Tally { han, kana, hangul, latin, other, votes } = tally;
    let letters = (han + kana + hangul + latin + other) as f64;
    if letters == 0.0 {
        return TextLanguage::ENGLISH;
    }
    let cjk = (han + kana + hangul) as f64;
    if cjk / letters >= CJK_SHARE {
        return if hangul > han + kana {
            TextLanguage { code: "ko", name: "Korean" }
        } else if kana > 0 && kana * 10 >= han + kana {
            TextLanguage { code: "ja", name: "Japanese" }
        } else {
            TextLanguage { code: "zh", name: "Chinese" }
        };
    }
    if other as f64 / letters >= 0.5 {
        return TextLanguage { code: "other", name: "a non-Latin script" };
    }
    // Latin script: English unless another language's function words lead
    // clearly (code and word lists stay English, as before).
    let (best, &n) = votes.iter().enumerate().max_by_key(|(i, n)| (**n, std::cmp::Reverse(*i))).expect("languages");
    if best != 0 && n >= 20 && n > votes[0] * 2 {
        return TextLanguage { code: STOPWORDS[best].0, name: STOPWORDS[best].1 };
    }
    TextLanguage::ENGLISH
}

/// Letters by script and stopwords by language, counted in one pass.
#[derive(Default)]
struct Tally {
    han: usize,
    kana: usize,
    hangul: usize,
    latin: usize,
    other: usize,
    votes: [usize; STOPWORDS.len()],
}

impl Tally {
    /// Count the first [`SAMPLE_CHARS`] chars of `text`.
    fn sample(&mut self, text: &str) {
        use crate::segment::{is_digit_not_letter, is_letter};
        let bytes = text.as_bytes();
        let mut word_start = None;
        let (mut at, mut taken) = (0, 0);
        while at < bytes.len() && taken < SAMPLE_CHARS {
            // ASCII (most of most text) without decoding a char.
            let (len, word_char) = if bytes[at].is_ascii() {
                self.latin += usize::from(bytes[at].is_ascii_alphabetic());
                (1, bytes[at].is_ascii_alphanumeric())
            } else {
                let c = text[at..].chars().next().unwrap_or_default();
                let letter = is_letter(c);
                if letter {
                    self.letter(c);
                }
                (c.len_utf8(), letter || is_digit_not_letter(c))
            };
            if word_char {
                word_start.get_or_insert(at);
            } else if let Some(from) = word_start.take() {
                self.word(&text[from..at]);
            }
            at += len;
            taken += 1;
        }
        if let Some(from) = word_start {
            self.word(&text[from..at]);
        }
    }

    fn letter(&mut self, c: char) {
        match c as u32 {
            0..=0x24F | 0x1E00..=0x1EFF => self.latin += 1,
            0x3040..=0x30FF | 0x31F0..=0x31FF | 0xFF66..=0xFF9F => self.kana += 1,
            0xAC00..=0xD7AF | 0x1100..=0x11FF | 0x3130..=0x318F => self.hangul += 1,
            _ if crate::segment::is_cjk(c) => self.han += 1,
            _ => self.other += 1,
        }
    }

    /// A word (letters and digits): a vote for each language it is a stopword of.
    fn word(&mut self, word: &str) {
        if word.len() > STOPWORD_BYTES {
            return;
        }
        let key = if word.is_ascii() {
            packed(word.bytes().map(|b| b.to_ascii_lowercase()))
        } else {
            packed(word.to_lowercase().bytes())
        };
        let Some(languages) = key.and_then(stopword_languages) else { return };
        for (i, vote) in self.votes.iter_mut().enumerate() {
            *vote += usize::from(languages >> i & 1);
        }
    }
}

/// A word's bytes as one number (a lookup compares numbers, not strings);
/// None when longer than any stopword.
fn packed(bytes: impl Iterator<Item = u8>) -> Option<u64> {
    let mut key = 0u64;
    for (i, b) in bytes.enumerate() {
        if i >= STOPWORD_BYTES {
            return None;
        }
        key |= u64::from(b) << (8 * i);
    }
    Some(key)
}

/// The languages `word` (lowercase, [`packed`]) is a stopword of, bit i
/// for `STOPWORDS[i]` (some are two languages' stopwords: "que", "de").
/// Tens of thousands of short words are looked up per document: a small
/// open-addressing table, one multiply and a probe or two each.
fn stopword_languages(word: u64) -> Option<u8> {
    const SLOTS: usize = 512;
    fn slot_of(key: u64) -> usize {
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 55) as usize
    }
    static TABLE: std::sync::LazyLock<Vec<(u64, u8)>> = std::sync::LazyLock::new(|| {
        // Key 0 is empty: a packed word has a non-zero first byte.
        let mut table = vec![(0u64, 0u8); SLOTS];
        for (i, (_, _, words)) in STOPWORDS.iter().enumerate() {
            for word in *words {
                let key = packed(word.bytes()).expect("stopwords are short");
                let mut slot = slot_of(key);
                while table[slot].0 != 0 && table[slot].0 != key {
                    slot = (slot + 1) % SLOTS;
                }
                table[slot] = (key, table[slot].1 | 1 << i);
            }
        }
        table
    });
    let mut slot = slot_of(word);
    loop {
        match TABLE[slot] {
            (0, _) => return None,
            (key, languages) if key == word => return Some(languages),
            _ => slot = (slot + 1) % SLOTS,
        }
    }
}

/// The languages a model reads, as far as anyone can tell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Languages {
    /// Trained on English only.
    English,
    /// Trained on many languages.
    Multilingual,
    /// These (ISO 639-1 codes): what its `chunktui-model.json` lists.
    Listed(Vec<String>),
    /// Nothing says.
    Unknown,
}

/// A model's languages and how they were found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelLanguage {
    /// The model's name (its directory's, or the default model's).
    pub model: String,
    pub languages: Languages,
    /// Where the languages came from ("tokenizer.json: 250002 pieces"...).
    pub source: String,
}

impl ModelLanguage {
    /// `"en"`, `"multilingual"`, the listed codes joined by `,`, or `"unknown"`.
    pub fn label(&self) -> String {
        match &self.languages {
            Languages::English => "en".into(),
            Languages::Multilingual => "multilingual".into(),
            Languages::Listed(l) => l.join(","),
            Languages::Unknown => "unknown".into(),
        }
    }

    /// Whether the model reads `text`: `None` when unknown.
    pub fn reads(&self, text: TextLanguage) -> Option<bool> {
        match &self.languages {
            Languages::English => Some(text.is_english()),
            Languages::Multilingual => Some(true),
            Languages::Listed(l) => Some(l.iter().any(|c| c == text.code || c == "multilingual")),
            Languages::Unknown => None,
        }
    }
}

/// Known models by a part of their name, first match wins: multilingual
/// ones before English ones ("multilingual-e5-small" holds "e5-small").
const KNOWN: [(&str, bool); 34] = [
    ("multilingual", true),
    ("me5", true),
    ("xlm-r", true),
    ("xlm_r", true),
    ("labse", true),
    ("bge-m3", true),
    ("jina-embeddings-v3", true),
    ("nomic-embed-text-v2", true),
    ("gte-multilingual", true),
    ("paraphrase-xlm", true),
    ("distiluse-base-multilingual", true),
    ("m3e", true),
    ("text2vec", true),
    ("-zh", true),
    ("all-minilm", false),
    ("all-mpnet", false),
    ("all-distilroberta", false),
    ("paraphrase-minilm", false),
    ("paraphrase-mpnet", false),
    ("multi-qa-minilm", false),
    ("multi-qa-mpnet", false),
    ("msmarco-", false),
    ("bge-small-en", false),
    ("bge-base-en", false),
    ("bge-large-en", false),
    ("e5-small", false),
    ("e5-base", false),
    ("e5-large", false),
    ("gte-small", false),
    ("gte-base", false),
    ("gte-large", false),
    ("nomic-embed-text-v1", false),
    ("snowflake-arctic-embed", false),
    ("mxbai-embed-large", false),
];

fn known(name: &str) -> Option<Languages> {
    let name = name.to_lowercase();
    KNOWN.iter().find(|(part, _)| name.contains(part)).map(|(part, multi)| {
        if *multi && (part.ends_with("zh") || *part == "m3e" || *part == "text2vec") {
            Languages::Listed(vec!["zh".into(), "en".into()])
        } else if *multi {
            Languages::Multilingual
        } else {
            Languages::English
        }
    })
}

/// A vocabulary this large is a multilingual tokenizer's.
const MULTILINGUAL_VOCAB: usize = 100_000;

/// The languages of the model a config embeds with: its endpoint's
/// ([`endpoint_language`]) when it has one, else [`model_language`].
pub fn config_model_language(config: &crate::config::ChunkConfig) -> ModelLanguage {
    if config.embed.is_set() {
        endpoint_language(&config.embed)
    } else {
        model_language(&config.semantic)
    }
}

/// The languages of an endpoint's model, by its name: the English-only
/// sentence-transformers families (MiniLM, MPNet, `*-en`) read English; the
/// models teams call through an API (OpenAI's, DashScope's, BGE-M3, E5,
/// Jina, Qwen, ...) are taken as multilingual, and the reason says so.
pub fn endpoint_language(embed: &crate::config::EmbedApiOptions) -> ModelLanguage {
    let name = embed.model.clone().unwrap_or_default();
    let n = name.to_ascii_lowercase();
    let english = !n.contains("multilingual")
        && !n.contains("paraphrase-multi")
        && (n.contains("minilm")
            || n.contains("mpnet")
            || n.ends_with("-en")
            || n.contains("-en-")
            || n.contains("_en"));
    let (languages, source) = if english {
        (Languages::English, "an English-only family, by its name")
    } else {
        (Languages::Multilingual, "an embeddings endpoint's model, taken as multilingual")
    };
    ModelLanguage { model: name, languages, source: source.into() }
}

/// The languages of the model a config names (the default model when none).
pub fn model_language(semantic: &SemanticOptions) -> ModelLanguage {
    let name = match semantic.model.as_deref() {
        None | Some(DEFAULT_MODEL) => DEFAULT_MODEL,
        Some(MULTILINGUAL_MODEL) => MULTILINGUAL_MODEL,
        Some(dir) => return model_language_in(Path::new(dir)),
    };
    // A model chunktui setup installs, named by its folder in the cache.
    match dir_of(name) {
        Some(dir) if dir.is_dir() => {
            let mut found = model_language_in(&dir);
            if found.languages == Languages::Unknown && dir.file_name().is_some_and(|n| n == name) {
                found = by_name(name);
            }
            found
        }
        // Not installed: what chunktui setup would install.
        _ => by_name(name),
    }
}

fn by_name(name: &str) -> ModelLanguage {
    match known(name) {
        Some(languages) => ModelLanguage { model: name.into(), languages, source: "known model".into() },
        None => ModelLanguage { model: name.into(), languages: Languages::Unknown, source: String::new() },
    }
}

/// The folder of a model chunktui setup installs, by its name in configs.
#[cfg(feature = "embed")]
fn dir_of(name: &str) -> Option<PathBuf> {
    crate::embed::model_dir_for(Some(name))
}

#[cfg(not(feature = "embed"))]
fn dir_of(_name: &str) -> Option<PathBuf> {
    None
}

/// The languages of the model in `dir`, from its files (see the module's doc).
pub fn model_language_in(dir: &Path) -> ModelLanguage {
    let read =
        |file: &str| -> Option<serde_json::Value> { serde_json::from_slice(&std::fs::read(dir.join(file)).ok()?).ok() };
    let dir_name = dir.file_name().map_or_else(|| dir.display().to_string(), |n| n.to_string_lossy().into_owned());
    let found = |languages, source: String| ModelLanguage { model: dir_name.clone(), languages, source };
    let own = read("chunktui-model.json");
    if let Some(listed) = own.as_ref().and_then(|v| v.get("languages")) {
        let codes: Vec<String> = match listed {
            serde_json::Value::String(s) => vec![s.to_lowercase()],
            serde_json::Value::Array(a) => a.iter().filter_map(|v| v.as_str()).map(str::to_lowercase).collect(),
            _ => Vec::new(),
        };
        let languages = match codes.as_slice() {
            [] => Languages::Unknown,
            [en] if en == "en" => Languages::English,
            l if l.iter().any(|c| c == "multilingual" || c == "*") => Languages::Multilingual,
            l => Languages::Listed(l.to_vec()),
        };
        if languages != Languages::Unknown {
            return found(languages, "chunktui-model.json languages".into());
        }
    }
    let config = read("config.json");
    let names = [
        Some(dir_name.clone()),
        own.as_ref().and_then(|v| v.get("id")?.as_str().map(String::from)),
        config.as_ref().and_then(|v| v.get("_name_or_path")?.as_str().map(String::from)),
    ];
    for name in names.into_iter().flatten() {
        if let Some(languages) = known(&name) {
            let source = if name == dir_name { "known model".into() } else { format!("known model {name}") };
            return found(languages, source);
        }
    }
    if let Some(c) = &config {
        if let Some(t) = c.get("model_type").and_then(|t| t.as_str()).filter(|t| t.contains("xlm")) {
            return found(Languages::Multilingual, format!("config.json model_type {t}"));
        }
        if let Some(n) = c.get("vocab_size").and_then(|n| n.as_u64()).filter(|n| *n as usize >= MULTILINGUAL_VOCAB) {
            return found(Languages::Multilingual, format!("config.json vocab_size {n}"));
        }
    }
    if let Some(n) = vocab_size(&dir.join("tokenizer.json")).filter(|n| *n >= MULTILINGUAL_VOCAB) {
        return found(Languages::Multilingual, format!("tokenizer.json: {n} pieces"));
    }
    found(Languages::Unknown, String::new())
}

/// How many pieces tokenizer.json's `model.vocab` holds (a map for
/// WordPiece and BPE, a list for Unigram), counted without keeping them.
pub fn vocab_size(tokenizer: &Path) -> Option<usize> {
    use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
    struct Count(usize);
    impl<'de> serde::Deserialize<'de> for Count {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = Count;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("a vocabulary")
                }
                fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Count, A::Error> {
                    let mut n = 0;
                    while a.next_element::<IgnoredAny>()?.is_some() {
                        n += 1;
                    }
                    Ok(Count(n))
                }
                fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Count, A::Error> {
                    let mut n = 0;
                    while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {
                        n += 1;
                    }
                    Ok(Count(n))
                }
            }
            d.deserialize_any(V)
        }
    }
    #[derive(serde::Deserialize)]
    struct Model {
        vocab: Option<Count>,
    }
    #[derive(serde::Deserialize)]
    struct Tokenizer {
        model: Model,
    }
    let bytes = std::fs::read(tokenizer).ok()?;
    let t: Tokenizer = serde_json::from_slice(&bytes).ok()?;
    t.model.vocab.map(|c| c.0)
}

/// The retriever to use, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    pub kind: RetrieverKind,
    /// The user named it (`--retriever`, `r`).
    pub asked: bool,
    pub text: TextLanguage,
    /// Looked up only when the text is not English (or the user asked for a
    /// model on such text).
    pub model: Option<ModelLanguage>,
    /// One line: why this retriever.
    pub reason: String,
}

impl Choice {
    /// `{"asked", "reason", "text_language", "model_language",
    /// "model_language_from"}` for JSON reports.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "asked": self.asked,
            "reason": self.reason,
            "text_language": self.text.code,
            "model_language": self.model.as_ref().map(ModelLanguage::label),
            "model_language_from": self.model.as_ref().map(|m| m.source.clone()).filter(|s| !s.is_empty()),
        })
    }
}

/// The retriever for these documents: `asked` if the user named one, else
/// by the documents' language and the languages of the config's model.
pub fn choose(asked: Option<RetrieverKind>, texts: &[&str], config: &crate::config::ChunkConfig) -> Choice {
    choose_with(asked, text_language(texts), || config_model_language(config))
}

/// [`choose`] with the text's language known, and the model's found on demand.
pub fn choose_with(asked: Option<RetrieverKind>, text: TextLanguage, model: impl FnOnce() -> ModelLanguage) -> Choice {
    if text.is_english() {
        let kind = asked.unwrap_or(RetrieverKind::Dense);
        let reason = match asked {
            Some(_) => format!("{kind} as asked"),
            None => "dense: English text (the default)".into(),
        };
        return Choice { kind, asked: asked.is_some(), text, model: None, reason };
    }
    let model = model();
    let which = || match model.source.as_str() {
        "" => model.model.clone(),
        s => format!("{} ({s})", model.model),
    };
    let mostly = format!("the text is mostly {}", text.name);
    if let Some(kind) = asked {
        let reason = match (kind.needs_model(), model.reads(text)) {
            (true, Some(false)) => format!(
                "{kind} as asked, though {mostly} and model {} reads only {} ({})",
                which(),
                model.label(),
                multilingual_hint()
            ),
            (true, None) => format!("{kind} as asked; {mostly} and the languages of model {} are unknown", which()),
            _ => format!("{kind} as asked"),
        };
        return Choice { kind, asked: true, text, model: Some(model), reason };
    }
    let (kind, reason) = match model.reads(text) {
        Some(true) => {
            (RetrieverKind::Hybrid, format!("hybrid: {mostly} and model {} reads it (--retriever to choose)", which()))
        }
        Some(false) => (
            RetrieverKind::Bm25,
            format!(
                "bm25: {mostly} and model {} reads only {} ({}; --retriever dense to embed anyway)",
                which(),
                model.label(),
                multilingual_hint()
            ),
        ),
        None => (
            RetrieverKind::Bm25,
            format!(
                "bm25: {mostly} and the languages of model {} are unknown (add \"languages\" to its \
                 chunktui-model.json, or --retriever hybrid to use it)",
                model.model
            ),
        ),
    };
    Choice { kind, asked: false, text, model: Some(model), reason }
}

/// What gets a model that reads the text: `chunktui setup --multilingual`,
/// or once it is installed, naming it.
fn multilingual_hint() -> String {
    match installed() {
        Some(_) => format!("--model {MULTILINGUAL_MODEL} uses the multilingual model"),
        None => "`chunktui setup --multilingual` installs a model that reads it".into(),
    }
}

/// The multilingual model's directory, when `chunktui setup --multilingual`
/// has installed it (model.onnx and tokenizer.json are there).
pub fn installed() -> Option<PathBuf> {
    let dir = multilingual_dir()?;
    (dir.join("model.onnx").is_file() && dir.join("tokenizer.json").is_file()).then_some(dir)
}

#[cfg(feature = "embed")]
fn multilingual_dir() -> Option<PathBuf> {
    crate::embed::multilingual_model_dir()
}

#[cfg(not(feature = "embed"))]
fn multilingual_dir() -> Option<PathBuf> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_stopword_is_longer_than_the_words_looked_up() {
        for word in STOPWORDS.iter().flat_map(|(_, _, words)| words.iter()) {
            assert!(word.len() <= STOPWORD_BYTES && word.to_uppercase().len() <= STOPWORD_BYTES, "{word}");
        }
        let capitals = "NÃO É Uma DAS casas ".repeat(10);
        assert_eq!(text_language(&[capitals.as_str()]).code, "pt", "capitalised stopwords count");
    }

    #[test]
    fn languages_of_texts() {
        assert!(text_language(&["The quick brown fox jumps over the lazy dog."]).is_english());
        assert!(text_language(&["fn main() { let x = 1; }"]).is_english());
        assert_eq!(text_language(&["所有权是 Rust 最独特的功能，它让 Rust 无需垃圾回收即可保证内存安全。"]).code, "zh");
        assert_eq!(text_language(&["これは日本語の文章です。ひらがなとカタカナがあります。"]).code, "ja");
        assert_eq!(text_language(&["이것은 한국어 문장입니다. 한글로 쓰였습니다."]).code, "ko");
        assert_eq!(text_language(&["Это русский текст, написанный кириллицей."]).code, "other");
        let de = "Der Hund und die Katze sind nicht zu Hause, das ist ein Problem mit den Nachbarn. ".repeat(5);
        assert_eq!(text_language(&[&de]).code, "de");
        assert!(text_language(&[""]).is_english());
    }

    #[test]
    fn known_names() {
        assert_eq!(known("all-MiniLM-L6-v2-int8"), Some(Languages::English));
        assert_eq!(known("multilingual-e5-small"), Some(Languages::Multilingual));
        assert_eq!(known("me5-small-q4"), Some(Languages::Multilingual));
        assert_eq!(known("my-model"), None);
    }

    #[test]
    fn the_choice() {
        let zh = TextLanguage { code: "zh", name: "Chinese" };
        let m = |languages| move || ModelLanguage { model: "m".into(), languages, source: String::new() };
        assert_eq!(choose_with(None, TextLanguage::ENGLISH, m(Languages::English)).kind, RetrieverKind::Dense);
        assert_eq!(choose_with(None, zh, m(Languages::English)).kind, RetrieverKind::Bm25);
        assert_eq!(choose_with(None, zh, m(Languages::Multilingual)).kind, RetrieverKind::Hybrid);
        let unknown = choose_with(None, zh, m(Languages::Unknown));
        assert_eq!(unknown.kind, RetrieverKind::Bm25);
        assert!(unknown.reason.contains("unknown"), "{}", unknown.reason);
        let asked = choose_with(Some(RetrieverKind::Dense), zh, m(Languages::English));
        assert_eq!((asked.kind, asked.asked), (RetrieverKind::Dense, true));
        assert!(asked.reason.contains("as asked"));
        let listed = || ModelLanguage {
            model: "m".into(),
            languages: Languages::Listed(vec!["zh".into()]),
            source: String::new(),
        };
        assert_eq!(choose_with(None, zh, listed).kind, RetrieverKind::Hybrid);
    }
}
