//! An embedding cache keyed by (model id, text hash), kept in memory and
//! appended to a file per model under `<cache dir>/embeddings/`, so that
//! re-opening a document embeds nothing again.
//!
//! File format: the magic `CTEMB001`, then records of
//! `[16-byte sha256 prefix of the text][u8 truncated][u32 LE dim][dim x f32 LE]`.
//! A torn last record (a crash mid-write) is ignored on load. The cache is
//! best-effort: when the file cannot be written, it stays in memory.

use crate::embedding::{Control, Embedder, Embeddings, TokenVectors};
use crate::error::Result;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

const MAGIC: &[u8; 8] = b"CTEMB001";

type Key = [u8; 16];

pub struct CachedEmbedder<E> {
    inner: E,
    file: Option<PathBuf>,
    state: Mutex<State>,
    /// Told how many texts each call found in the cache (API accounting).
    on_hits: Option<fn(u64)>,
}

#[derive(Default)]
struct State {
    loaded: bool,
    map: HashMap<Key, (Vec<f32>, bool)>,
}

fn key(text: &str) -> Key {
    let d = Sha256::digest(text.as_bytes());
    let mut k = [0u8; 16];
    k.copy_from_slice(&d[..16]);
    k
}

/// `<model id, made safe for a file name>.bin`.
pub(crate) fn file_name(model_id: &str) -> String {
    let safe: String =
        model_id.chars().map(|c| if c.is_ascii_alphanumeric() || "-_.".contains(c) { c } else { '_' }).collect();
    format!("{safe}.bin")
}

impl<E: Embedder> CachedEmbedder<E> {
    /// Cache in `<chunktui cache dir>/embeddings/<model id>.bin`.
    pub fn on_disk(inner: E) -> Self {
        let dir = super::cache_dir().map(|d| d.join("embeddings"));
        Self::in_dir(inner, dir.as_deref())
    }

    /// Cache in `dir/<model id>.bin`; `None` keeps it in memory only.
    pub fn in_dir(inner: E, dir: Option<&Path>) -> Self {
        let file = dir.map(|d| d.join(file_name(inner.model_id())));
        Self::in_file(inner, file)
    }

    /// Cache in `file`; `None` keeps it in memory only.
    pub fn in_file(inner: E, file: Option<PathBuf>) -> Self {
        CachedEmbedder { inner, file, state: Mutex::new(State::default()), on_hits: None }
    }

    /// Tell `count` how many texts each call found in the cache.
    pub fn counting_hits(mut self, count: fn(u64)) -> Self {
        self.on_hits = Some(count);
        self
    }

    pub fn inner(&self) -> &E {
        &self.inner
    }

    /// The cache file, when there is one.
    pub fn file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    /// Number of cached texts.
    pub fn len(&self) -> usize {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        self.ensure_loaded(&mut st);
        st.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn ensure_loaded(&self, st: &mut State) {
        if st.loaded {
            return;
        }
        st.loaded = true;
        let Some(bytes) = self.file.as_ref().and_then(|f| std::fs::read(f).ok()) else { return };
        if bytes.len() < 8 || &bytes[..8] != MAGIC {
            return;
        }
        let mut p = 8;
        while p + 21 <= bytes.len() {
            let mut k = [0u8; 16];
            k.copy_from_slice(&bytes[p..p + 16]);
            let trunc = bytes[p + 16] != 0;
            let dim = u32::from_le_bytes(bytes[p + 17..p + 21].try_into().unwrap()) as usize;
            let end = p + 21 + dim * 4;
            if end > bytes.len() {
                break;
            }
            let v: Vec<f32> =
                bytes[p + 21..end].chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
            st.map.insert(k, (v, trunc));
            p = end;
        }
    }

    fn append(&self, records: &[(Key, &[f32], bool)]) {
        let Some(path) = &self.file else { return };
        if records.is_empty() {
            return;
        }
        let mut buf = Vec::with_capacity(records.len() * (21 + records[0].1.len() * 4));
        for (k, v, t) in records {
            buf.extend_from_slice(k);
            buf.push(*t as u8);
            buf.extend_from_slice(&(v.len() as u32).to_le_bytes());
            for x in v.iter() {
                buf.extend_from_slice(&x.to_le_bytes());
            }
        }
        let _ = (|| -> std::io::Result<()> {
            if let Some(d) = path.parent() {
                std::fs::create_dir_all(d)?;
            }
            let mut f = std::fs::OpenOptions::new().create(true).append(true).open(path)?;
            if f.metadata()?.len() == 0 {
                f.write_all(MAGIC)?;
            }
            f.write_all(&buf)
        })();
    }
}

impl<E: Embedder> Embedder for CachedEmbedder<E> {
    fn model_id(&self) -> &str {
        self.inner.model_id()
    }

    fn max_input_tokens(&self) -> Option<usize> {
        self.inner.max_input_tokens()
    }

    fn embed_texts(&self, texts: &[&str], ctl: Control<'_>) -> Result<Embeddings> {
        let keys: Vec<Key> = texts.iter().map(|t| key(t)).collect();
        let mut vectors: Vec<Vec<f32>> = vec![Vec::new(); texts.len()];
        let mut truncated = Vec::new();
        let mut missing: Vec<usize> = Vec::new();
        {
            let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
            self.ensure_loaded(&mut st);
            let mut first_seen: HashMap<Key, usize> = HashMap::new();
            for (i, k) in keys.iter().enumerate() {
                match st.map.get(k) {
                    Some((v, t)) => {
                        vectors[i] = v.clone();
                        if *t {
                            truncated.push(i);
                        }
                    }
                    None => {
                        if first_seen.insert(*k, i).is_none() {
                            missing.push(i);
                        }
                    }
                }
            }
        }
        let hits = texts.len() - missing.len();
        if let Some(count) = self.on_hits {
            count(hits as u64);
        }
        if !missing.is_empty() {
            let todo: Vec<&str> = missing.iter().map(|&i| texts[i]).collect();
            let total = texts.len();
            let progress = |done: usize, _: usize| (ctl.progress)(hits + done, total);
            let got = self.inner.embed_texts(&todo, Control::new(&progress, ctl.cancel))?;
            let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
            let mut records = Vec::with_capacity(missing.len());
            for (j, &i) in missing.iter().enumerate() {
                let t = got.truncated.contains(&j);
                st.map.insert(keys[i], (got.vectors[j].clone(), t));
                records.push((keys[i], got.vectors[j].as_slice(), t));
            }
            self.append(&records);
            // Duplicates of a missing text.
            for i in 0..texts.len() {
                if vectors[i].is_empty() {
                    if let Some((v, t)) = st.map.get(&keys[i]) {
                        vectors[i] = v.clone();
                        if *t {
                            truncated.push(i);
                        }
                    }
                }
            }
            truncated.sort_unstable();
            truncated.dedup();
        } else {
            (ctl.progress)(texts.len(), texts.len());
        }
        Ok(Embeddings { vectors, truncated })
    }

    fn token_vectors(&self, text: &str, ctl: Control<'_>) -> Result<TokenVectors> {
        self.inner.token_vectors(text, ctl)
    }
}
