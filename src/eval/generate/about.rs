//! Whether a question written by the LLM is about its passage, by its
//! words alone (the similarity rules, which need an embedding model, are
//! in [`super`]):
//!
//! - [`is_template`]: generic questions that fit any passage ("What is the
//!   passage about?", "What is the answer to this question?",
//!   "这段文字主要讲了什么？") never pass, whatever else they hold;
//! - [`shared`]: the content words (names, terms, numbers) a question
//!   shares with its reference: lower-cased UAX #29 words, a possessive
//!   's dropped, nothing stemmed; Chinese and Japanese by characters. Words
//!   that fit any passage (question words, "passage", "text", 的, 是, 什么)
//!   are not content;
//! - [`same_language`]: a Chinese passage wants a Chinese question, an
//!   English one an English question (by script);
//! - [`same_words`]: what makes two questions one (their content words
//!   and question words, in any order).

use regex::Regex;
use std::collections::BTreeSet;
use std::sync::OnceLock;
use unicode_segmentation::UnicodeSegmentation;

/// A Han or kana character: words of these are compared character by
/// character (Chinese and Japanese have no spaces). Hangul keeps its
/// space-separated words.
fn by_char(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x2FA1F)
}

/// The words of `text` as the rules compare them: lower-cased UAX #29
/// words holding a letter or digit, a trailing possessive ('s, ’s, ')
/// dropped; Han and kana one character each.
pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for word in text.split_word_bounds() {
        if !word.chars().any(char::is_alphanumeric) {
            continue;
        }
        if word.chars().any(by_char) {
            out.extend(word.chars().filter(|c| c.is_alphanumeric()).map(|c| c.to_lowercase().collect::<String>()));
            continue;
        }
        let lower = word.to_lowercase().replace('’', "'");
        let bare = lower.strip_suffix("'s").or_else(|| lower.strip_suffix('\'')).unwrap_or(&lower);
        out.push(bare.to_string());
    }
    out
}

/// English words that fit any passage: function words, question words,
/// and the words a question uses to point at its source or at itself.
const EN_STOP: &str = "a an the and or but nor so yet if then than that this these those there here it its itself \
    they them their theirs themselves he him his himself she her hers herself we us our ours ourselves you your \
    yours yourself i me my mine myself one ones of in on at to from by with without within into onto upon about \
    above below over under between among through during before after since until till against along across \
    around behind beyond near off out up down via per as like unlike for while because although though \
    whether unless is are was were be been being am do does \
    did doing done have has had having will would shall should can could may might must ought not no yes \
    don't doesn't didn't isn't aren't wasn't weren't can't won't what who whom whose when where why how which \
    whichever whatever whoever any some all each every either neither both few many much more most other others \
    another such same own only just also too very quite rather really mainly mostly primarily generally \
    thing things something anything nothing someone anyone everyone kind type way ways part parts \
    passage passages text texts paragraph paragraphs excerpt excerpts extract document documents article \
    section chapter sentence sentences quote quotation story author writer narrator speaker context content \
    contents question questions answer answers response information detail details example examples main idea \
    ideas point points topic topics subject theme purpose summary describe described describes describing say \
    says said saying mention mentioned mentions discuss discussed discusses talk talks talking tell tells told \
    explain explains explained according given following mean means meaning happen happens happened \
    please provide give";

/// Chinese characters that fit any passage: particles, pronouns, question
/// words, and the characters of "this passage", "question", "answer",
/// "content", "describe", "author".
const ZH_STOP: &str =
    "的了是在和与及或而且也都就还又把被让给对向从到以于为因所之其此这那哪些个种位什么谁怎样吗呢吧啊呀\
    有没不无一中上下里内外前后将会能可要该应得地着过来去说讲问题答案段文章节篇句话主容述描写谈论介绍关何如请几多少作者\
    我你他她它们自己字";

fn stop_words() -> &'static BTreeSet<&'static str> {
    static STOP: OnceLock<BTreeSet<&'static str>> = OnceLock::new();
    STOP.get_or_init(|| EN_STOP.split_whitespace().collect())
}

/// Whether a word (as [`words`] gives it) says something of a passage.
fn is_content(word: &str) -> bool {
    let mut chars = word.chars();
    let (Some(first), rest) = (chars.next(), chars.next()) else { return false };
    if rest.is_none() && by_char(first) {
        // Hiragana is grammar (particles, endings); ー lengthens a vowel.
        return !ZH_STOP.contains(first) && !matches!(first as u32, 0x3040..=0x309F | 0x30FC);
    }
    if rest.is_none() && first.is_ascii_alphabetic() {
        return false;
    }
    !stop_words().contains(word)
}

/// The content words of `text`: what it says that another text may not.
pub fn content_words(text: &str) -> BTreeSet<String> {
    words(text).into_iter().filter(|w| is_content(w)).collect()
}

/// How many of the question's content words its reference holds.
pub fn shared(question: &str, reference: &str) -> usize {
    let reference: BTreeSet<String> = words(reference).into_iter().collect();
    content_words(question).iter().filter(|w| reference.contains(*w)).count()
}

/// Whether a question is in its reference's language, as far as script
/// tells: a reference mostly in Chinese or Japanese letters wants a
/// question holding some (identifiers and names may be Latin: `iter_mut`
/// 和 `iter` 有什么区别？ is Chinese); a reference with hardly any wants a
/// question mostly without. Small models answer Chinese passages with
/// English questions, which only the identifiers they share could find.
pub fn same_language(question: &str, reference: &str) -> bool {
    let reference = crate::segment::cjk_ratio(reference);
    if reference >= 0.5 {
        question.chars().filter(|&c| crate::segment::is_cjk(c) && c.is_alphanumeric()).count() >= 2
    } else if reference < 0.2 {
        crate::segment::cjk_ratio(question) < 0.5
    } else {
        true
    }
}

/// What makes two questions the same: their content words and question
/// words, in any order ("Who inherited the estate?" and "The estate was
/// inherited by whom?" differ, "What did Pierre inherit?" and "Pierre
/// inherit what?" do not).
pub fn same_words(question: &str) -> String {
    const ASKING: [&str; 9] = ["what", "who", "whom", "whose", "when", "where", "why", "how", "which"];
    const ZH_ASKING: &str = "谁哪几怎为何多什";
    let key: BTreeSet<String> = words(question)
        .into_iter()
        .filter(|w| {
            is_content(w)
                || ASKING.contains(&w.as_str())
                || (w.chars().count() == 1 && w.chars().all(|c| ZH_ASKING.contains(c)))
        })
        .collect();
    key.into_iter().collect::<Vec<_>>().join(" ")
}

/// English patterns of generic questions, on the question lower-cased
/// with every run of non-word characters made one space (possessives
/// dropped).
const EN_TEMPLATES: &[&str] = &[
    // About the question or the answer itself.
    r"\b(answer|answers|response|solution|reply) (to|for|of) (the|this|that|these|your|my|our|above|following|previous|given) questions?\b",
    r"\b(this|that|these|the above|the following|the previous|the preceding|the given|above|following|previous) questions?\b",
    r"\bquestions? (above|below)\b",
    r"\bwhat (is|was|are|were) the (correct |right |best |final |actual )?answers?\b",
    r"\b(passage|text|document|author|paragraph|excerpt) (answer|answers|response)\b",
    r"\b(answer|answers) (to|for|of|in) (SRC)\b",
    r"^what (is|was) (this|that|it)$",
    // What the source as a whole is about, says or means.
    r"\bwhat (is|was|are|were) (SRC) (mainly |mostly |primarily |really |all |generally )?(about|saying|describing|discussing|explaining|talking about|trying to say)\b",
    r"\bwhat (does|did|do) (SRC) (mainly |mostly |primarily |really |generally )?(say|tell|tell us|tell you|tell me|describe|discuss|talk about|mean|explain|show|suggest|convey|express|state|cover|focus on|deal with|refer to|imply)( about (it|this|that|them))?$",
    r"\bwhat (is|are|was|were) (being )?(described|discussed|said|explained|mentioned|talked about|told|presented) (in|by) (SRC)$",
    r"\bwhat (is|was) (it|this|that) (all )?about$",
    r"\bwhat (happens|happened|is happening|takes place|took place|is going on) in (SRC)$",
    r"\b(what|which) (topic|topics|subject|subjects|theme|themes|idea|ideas|issue|issues) (is|are|was|were|does|do|did) (SRC)\b",
    // The summary, main idea, author or title of the source; opinions.
    r"\b(main|central|key|primary|overall|general|core|major|basic) (idea|ideas|point|points|topic|topics|theme|themes|subject|message|argument|purpose|focus|takeaway|lesson|thesis|claim|gist)\b",
    r"\b(topic|subject|theme|purpose|gist|moral|summary|title|focus|tone|mood|meaning|message|point) of (SRC)\b",
    r"\bsummar(y|ize|ise|izes|ises|ized|ised|izing|ising)\b",
    r"\bwho (is|was) the (author|writer|narrator|speaker)\b",
    r"\bwho (wrote|narrates|is speaking in|is talking in) (SRC)\b",
    r"\bwhat can (you|we|one|i) (learn|infer|conclude|gather|say|tell)\b",
    r"\bwhat (do|does|did) (you|we) (learn|think|know)\b",
];

/// The sources a generic question points at ("the passage", "this text").
const EN_SOURCE: &str =
    "(the |this |that |these |the above |the following |the given |the provided |above |following |given )?\
    (passage|text|paragraph|excerpt|extract|document|article|section|chapter|story|quote|quotation|selection|speech|\
    book|poem|piece|content|context|author|writer|passage above|text above)";

/// Chinese patterns of generic questions, on the question with everything
/// but letters and digits removed.
const ZH_TEMPLATES: &[&str] = &[
    // About the question or the answer itself.
    r"(这个|这道|此|该|上述|上面的?|以上的?|前面的?|下面的?|下列)问题",
    r"问题的答案",
    r"答案是(什么|啥)",
    r"正确答案",
    // What the source is about, says or means.
    r"(SRC)(主要|大概|大致|究竟|到底|都)?(讲|说|写|谈|讨论|描述|描写|介绍|讲述|叙述|表达|论述|阐述|说明|提到|涉及|反映|告诉)(了|的|我们)*(什么|啥|哪些|是什么)",
    r"(SRC)(是|主要是)?(关于|有关)(什么|啥|哪)",
    r"是关于什么的?$",
    r"(主要内容|中心思想|主旨|大意|主要观点|核心观点|主要意思|中心意思|核心思想|主题思想)",
    r"(SRC)的?(主题|内容|意思|含义|目的|标题|作者|重点|要点|核心|观点)(是)?(什么|啥|谁|哪些)?$",
    // A summary, the author, an opinion.
    r"(总结|概括|归纳|概述)(一下)?(SRC|全文|内容|大意)",
    r"^请?(总结|概括|归纳|概述)",
    r"(作者|笔者)是谁",
    r"谁写的",
    r"你(怎么|如何)?(看|认为|觉得)",
    r"^(这|那|它)是(什么|啥)$",
];

/// The sources a generic Chinese question points at (这段文字, 本文).
const ZH_SOURCE: &str =
    "这段话|这段文字|这段内容|这段文本|这段材料|这一段|这段|本段|该段|此段|上段|这篇文章|这篇短文|这篇|本文|该文|\
    文章|段落|短文|原文|上文|文中|选段|文段|材料|这部分|这一部分|这句话|这个段落";

fn templates() -> &'static (Regex, Regex) {
    static RE: OnceLock<(Regex, Regex)> = OnceLock::new();
    RE.get_or_init(|| {
        let join = |patterns: &[&str], source: &str| {
            let all: Vec<String> = patterns.iter().map(|p| format!("(?:{})", p.replace("SRC", source))).collect();
            Regex::new(&all.join("|")).expect("the template patterns compile")
        };
        (join(EN_TEMPLATES, EN_SOURCE), join(ZH_TEMPLATES, ZH_SOURCE))
    })
}

/// Whether `question` is a generic template: about the passage as a
/// whole (its topic, main idea, summary, author) or about the question or
/// the answer itself, in English or Chinese. No passage answers such a
/// question more than any other, so it never passes.
pub fn is_template(question: &str) -> bool {
    let lower = question.to_lowercase().replace('’', "'").replace("what's", "what is").replace("'s", "");
    let spaced: String = lower.chars().map(|c| if c.is_alphanumeric() { c } else { ' ' }).collect();
    let spaced = spaced.split_whitespace().collect::<Vec<_>>().join(" ");
    let packed: String = lower.chars().filter(|c| c.is_alphanumeric()).collect();
    let (en, zh) = templates();
    en.is_match(&spaced) || zh.is_match(&packed)
}

/// The cosine similarity of two vectors (0 when either is all zeros).
pub fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let (mut dot, mut aa, mut bb) = (0.0f64, 0.0f64, 0.0f64);
    for (x, y) in a.iter().zip(b) {
        let (x, y) = (f64::from(*x), f64::from(*y));
        dot += x * y;
        aa += x * x;
        bb += y * y;
    }
    if aa == 0.0 || bb == 0.0 {
        0.0
    } else {
        dot / (aa.sqrt() * bb.sqrt())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EN_PASSAGE: &str = "Prince Vasili always spoke languidly, like an actor repeating a stale part. \
        Anna Pavlovna Scherer, on the contrary, was full of animation and impulsiveness despite her forty years.";
    const ZH_PASSAGE: &str = "所有权是 Rust 最独特的功能，它让 Rust 无需垃圾回收即可保证内存安全。";

    #[test]
    fn generic_templates_never_pass_in_english_or_chinese() {
        for q in [
            // The issue's own, from SmolLM2-135M.
            "What is the passage's answer to the question above?",
            "What is the answer to this question?",
            "What is the passage about?",
            "What does the text say?",
            "What is this text mainly about?",
            "What is the main idea of the passage about Anna Pavlovna?",
            "Summarize the passage about Prince Vasili.",
            "Who is the author of this excerpt?",
            "What is being described in the paragraph?",
            "What happens in this chapter?",
            "What is the topic of the passage?",
            "What can we learn from Prince Vasili's manner?",
            "What is the answer to the above passage?",
            "What is this?",
            "这段文字主要讲了什么？",
            "这段话是关于什么的？",
            "本文的主要内容是什么？",
            "这个问题的答案是什么？",
            "文章的中心思想是什么",
            "请概括这段文字",
            "这段内容的主题是什么？",
            "上文提到了什么？",
        ] {
            assert!(is_template(q), "a template: {q}");
        }
    }

    #[test]
    fn specific_questions_are_no_templates() {
        for q in [
            "How did Prince Vasili speak?",
            "What does the passage say about Anna Pavlovna's age?",
            "According to the text, why was Anna Pavlovna full of animation?",
            "What question did Pierre ask the abbé?",
            "What did the answer of the Emperor mean to Prince Andrew?",
            "Which text says ownership is a set of rules?",
            "所有权让 Rust 无需什么即可保证内存安全？",
            "Rust 最独特的功能是什么？",
            "这段代码中的借用检查器如何工作？",
            "文中提到的所有权规则有哪些？",
        ] {
            assert!(!is_template(q), "not a template: {q}");
        }
    }

    #[test]
    fn a_question_shares_content_words_with_its_reference() {
        // English: names and terms, a possessive dropped, any case.
        assert_eq!(shared("How did Prince Vasili speak?", EN_PASSAGE), 2, "prince, vasili (spoke is not speak)");
        assert_eq!(shared("What was ANNA's manner full of?", EN_PASSAGE), 2, "anna, full");
        assert!(shared("How old was Anna Pavlovna Scherer?", EN_PASSAGE) >= 3);
        // Nothing stemmed: "spoke" is not "speaks".
        assert_eq!(shared("Who speaks languid words?", EN_PASSAGE), 0);
        // Only words that fit any passage: nothing shared.
        assert_eq!(shared("What is the passage about?", EN_PASSAGE), 0);
        assert_eq!(shared("What did he say, according to the text?", EN_PASSAGE), 0);
        assert_eq!(shared("Who was on the contrary?", EN_PASSAGE), 1, "contrary");
        // Chinese, by characters: 所有权 shares 权 (所, 有 fit any text).
        assert_eq!(shared("Rust 的所有权是什么？", ZH_PASSAGE), 2, "rust, 权");
        assert_eq!(shared("为什么不需要垃圾回收？", ZH_PASSAGE), 5, "需 of 无需, 垃圾回收");
        assert_eq!(shared("这段文字主要讲了什么？", ZH_PASSAGE), 0);
        assert_eq!(shared("它是什么？", ZH_PASSAGE), 0);
        assert_eq!(shared("作者在哪里出生？", ZH_PASSAGE), 0, "出生 is not in the passage");
        // Mixed: an English term in a Chinese question.
        assert_eq!(shared("Rust 是什么？", ZH_PASSAGE), 1);
    }

    #[test]
    fn content_words_leave_out_what_fits_any_passage() {
        let en = content_words("What is Napoleon's answer to the question in this passage, in 1805?");
        assert_eq!(en.into_iter().collect::<Vec<_>>(), ["1805", "napoleon"]);
        let zh = content_words("这段文字中，内存安全是什么？");
        assert_eq!(zh, ["存", "安", "全"].map(String::from).into(), "中, 内 and 文字 fit any text");
        let ja = content_words("所有権とは何ですか？");
        assert!(ja.contains("権") && !ja.contains("と") && !ja.contains("す"), "{ja:?}");
    }

    #[test]
    fn a_question_is_in_its_passage_language() {
        assert!(same_language("Rust 的所有权是什么？", ZH_PASSAGE));
        assert!(same_language("`iter_mut` 和 `iter` 有什么区别？", ZH_PASSAGE), "identifiers in a Chinese question");
        assert!(!same_language("What is the purpose of the `next` method in Rust?", ZH_PASSAGE));
        assert!(!same_language("What is Rust 所?", ZH_PASSAGE), "one character is no Chinese question");
        assert!(same_language("How did Prince Vasili speak?", EN_PASSAGE));
        assert!(!same_language("瓦西里公爵怎样说话？", EN_PASSAGE));
        // A passage of both scripts takes either.
        let mixed = "`Vec<T>` 叫做 vector，可以储存多个相同类型的值，并且会按需增长 as values are pushed.";
        assert!((0.2..0.5).contains(&crate::segment::cjk_ratio(mixed)));
        assert!(same_language("What is Vec?", mixed) && same_language("什么是 Vec？", mixed));
    }

    #[test]
    fn questions_of_the_same_words_are_one() {
        assert_eq!(same_words("What did Pierre inherit?"), same_words("Pierre inherit what?"));
        assert_eq!(same_words("What did Pierre inherit?"), same_words("what does pierre inherit"));
        assert_ne!(same_words("When did Pierre arrive?"), same_words("Why did Pierre arrive?"));
        assert_ne!(same_words("What did Pierre inherit?"), same_words("What did Natasha inherit?"));
        assert_eq!(same_words("什么是所有权？"), same_words("所有权是什么？"));
        assert_ne!(same_words("谁拥有所有权？"), same_words("所有权是什么？"));
    }

    #[test]
    fn cosine_of_vectors() {
        assert!((cosine(&[1.0, 0.0], &[2.0, 0.0]) - 1.0).abs() < 1e-9);
        assert!(cosine(&[1.0, 0.0], &[0.0, 3.0]).abs() < 1e-9);
        assert_eq!(cosine(&[0.0, 0.0], &[1.0, 1.0]), 0.0);
    }
}
