//! `[generate]`: which questions written by an LLM (`eval --generate`,
//! `tune`) are kept. A question is kept only when it is about its passage:
//! it shares content with its reference and, when an embedding model is
//! configured, is close enough to it; near-duplicates keep one. The
//! numbers are checked as the file is read, so `chunktui config check`
//! and the Python keywords refuse what the generator would.

use serde::de::{Deserializer, Error as _};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct GenerateOptions {
    /// Content words a question must share with its reference (names,
    /// terms; lower-cased, not stemmed; CJK counted by characters), beyond
    /// question words and words like "passage" or "text". 0 turns the rule
    /// off (generic templates are still refused).
    #[serde(deserialize_with = "shared")]
    #[schemars(range(max = 64))]
    pub min_shared: usize,
    /// With an embedding model configured (`[semantic] model`, `--model`,
    /// or an `[embed]` endpoint): the least cosine similarity between a
    /// question and its reference. 0.36 is the threshold of Chroma's
    /// synthetic pipeline (`filter_poor_excerpts`); 0 turns the rule off.
    #[serde(deserialize_with = "similarity")]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub min_similarity: f64,
    /// With an embedding model configured: two questions more alike than
    /// this are one (the later is dropped). 0.78 is Chroma's
    /// `filter_duplicates` default; 1 keeps all but questions of the same
    /// words, which are always one.
    #[serde(deserialize_with = "duplicate")]
    #[schemars(range(max = 1.0), extend("exclusiveMinimum" = 0.0))]
    pub duplicate_similarity: f64,
    /// The most answers asked per question wanted (plus a few), before the
    /// generator gives up with fewer questions than asked.
    #[serde(deserialize_with = "attempts")]
    #[schemars(range(min = 1, max = 100))]
    pub attempts: usize,
    /// `tune`: the fewest usable generated questions it ranks settings on;
    /// with fewer it stops and writes no config (asking for fewer
    /// questions lowers it to that many).
    #[serde(deserialize_with = "min_questions")]
    #[schemars(range(min = 1))]
    pub min_questions: usize,
}

impl Default for GenerateOptions {
    fn default() -> Self {
        GenerateOptions {
            min_shared: 1,
            min_similarity: 0.36,
            duplicate_similarity: 0.78,
            attempts: 4,
            min_questions: 5,
        }
    }
}

impl GenerateOptions {
    /// What is wrong with these settings, if anything (a file is checked as
    /// it is read; a config built in code is checked before any request).
    pub fn problems(&self) -> Vec<String> {
        [
            shared_problem(self.min_shared),
            similarity_problem("min_similarity", self.min_similarity),
            duplicate_problem(self.duplicate_similarity),
            attempts_problem(self.attempts),
            min_questions_problem(self.min_questions),
        ]
        .into_iter()
        .flatten()
        .collect()
    }
}

fn shared_problem(n: usize) -> Option<String> {
    (n > 64).then(|| format!("generate.min_shared {n} is out of range: 0 to 64 words shared with the reference"))
}

fn similarity_problem(key: &str, x: f64) -> Option<String> {
    (!(0.0..=1.0).contains(&x))
        .then(|| format!("generate.{key} {x} is out of range: a cosine similarity from 0 (rule off) to 1"))
}

fn duplicate_problem(x: f64) -> Option<String> {
    if x == 0.0 {
        return Some(
            "generate.duplicate_similarity 0 would make every question a duplicate of the first: use 0.5 to 1 \
             (1: only questions of the same words)"
                .into(),
        );
    }
    similarity_problem("duplicate_similarity", x)
}

fn attempts_problem(n: usize) -> Option<String> {
    (!(1..=100).contains(&n))
        .then(|| format!("generate.attempts {n} is out of range: 1 to 100 answers asked per question wanted"))
}

fn min_questions_problem(n: usize) -> Option<String> {
    (n == 0).then(|| "generate.min_questions 0 is out of range: at least 1 question".to_string())
}

fn checked<'de, D: Deserializer<'de>, T: Deserialize<'de> + Copy>(
    d: D,
    problem: impl Fn(T) -> Option<String>,
) -> Result<T, D::Error> {
    let value = T::deserialize(d)?;
    match problem(value) {
        Some(p) => Err(D::Error::custom(p)),
        None => Ok(value),
    }
}

fn shared<'de, D: Deserializer<'de>>(d: D) -> Result<usize, D::Error> {
    checked(d, shared_problem)
}

fn similarity<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    checked(d, |x| similarity_problem("min_similarity", x))
}

fn duplicate<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    checked(d, duplicate_problem)
}

fn attempts<'de, D: Deserializer<'de>>(d: D) -> Result<usize, D::Error> {
    checked(d, attempts_problem)
}

fn min_questions<'de, D: Deserializer<'de>>(d: D) -> Result<usize, D::Error> {
    checked(d, min_questions_problem)
}

#[cfg(test)]
mod tests {
    use crate::config::ChunkConfig;

    #[test]
    fn out_of_range_settings_are_refused_as_the_file_is_read() {
        for (line, says) in [
            ("min_similarity = 1.5", "generate.min_similarity 1.5 is out of range"),
            ("duplicate_similarity = 0.0", "every question a duplicate"),
            ("attempts = 0", "generate.attempts 0 is out of range"),
            ("min_questions = 0", "generate.min_questions 0"),
            ("min_shared = 100", "generate.min_shared 100"),
        ] {
            let err = ChunkConfig::parse(&format!("[generate]\n{line}\n"), false).unwrap_err().to_string();
            assert!(err.contains(says) && err.contains("line 2"), "{line}: {err}");
        }
        let json = ChunkConfig::parse(r#"{"generate": {"min_similarity": -0.1}}"#, true).unwrap_err().to_string();
        assert!(json.contains("generate.min_similarity -0.1"), "{json}");
        let ok = ChunkConfig::parse("[generate]\nmin_similarity = 0.5\nmin_questions = 3\n", false).unwrap();
        assert_eq!((ok.generate.min_similarity, ok.generate.min_questions, ok.generate.attempts), (0.5, 3, 4));
        assert!(ok.generate.problems().is_empty());
        let mut bad = ok.generate.clone();
        bad.attempts = 0;
        bad.min_similarity = 2.0;
        assert_eq!(bad.problems().len(), 2, "{:?}", bad.problems());
    }
}
