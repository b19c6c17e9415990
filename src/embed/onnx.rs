//! [`OnnxEmbedder`]: a sentence-transformers ONNX export run through ONNX
//! Runtime, with its `tokenizer.json`.
//!
//! - Texts are sorted by token length and batched, each batch padded to its
//!   own longest text (the tokenizer's fixed padding/truncation is switched off).
//! - A text longer than the model's input is cut to it and reported in
//!   [`Embeddings::truncated`]; never silently.
//! - Intra-op threads = available cores, spinning off.
//! - Pooling as the model's sentence-transformers Pooling module says (mean,
//!   cls, max, lasttoken, ...; prompt tokens left out when it says so), then
//!   L2 normalisation.
//!
//! Settings (input limit, lowercasing, pooling, prefix) are read from the
//! model directory as sentence-transformers reads them: see
//! [`super::st_config`]. [`ModelOptions`] overrides them.

use crate::embedding::TokenVectors;
use crate::embedding::{normalize, Control, Embedder, Embeddings};
use crate::error::{Error, Result};
use ort::session::Session;
use ort::value::Tensor;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

pub use super::graph::graph_positions;
pub use super::st_config::ModelOptions;

pub use super::st_config::{PoolMode, Pooling, StConfig};

/// What was loaded, for display and for caches.
#[derive(Debug, Clone)]
pub struct ModelInfo {
    /// Cache key of the model and its settings.
    pub id: String,
    pub dir: PathBuf,
    pub model_file: PathBuf,
    pub runtime: PathBuf,
    pub prefix: String,
    pub max_tokens: usize,
    pub pooling: Pooling,
    /// Every setting with where it came from.
    pub settings: StConfig,
    pub batch_size: usize,
    pub threads: usize,
    pub inputs: Vec<String>,
}

pub struct OnnxEmbedder {
    info: ModelInfo,
    session: Mutex<Session>,
    tokenizer: tokenizers::Tokenizer,
    pad_id: u32,
    token_type_ids: bool,
    /// Ids before a window of document tokens (specials + prefix) and after it.
    head: Vec<u32>,
    tail: Vec<u32>,
    /// Leading tokens pooling leaves out (the prompt, when the Pooling module
    /// has include_prompt false): sentence-transformers' prompt_length.
    skip: usize,
}

impl std::fmt::Debug for OnnxEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OnnxEmbedder").field("info", &self.info).finish_non_exhaustive()
    }
}

fn model_err(what: impl std::fmt::Display) -> Error {
    Error::Model(what.to_string())
}

/// The ONNX file and the tokenizer.json of a model directory, or the error
/// that says what is missing. Reads neither (`config check` uses it).
pub fn model_files(model_dir: &Path) -> Result<(std::path::PathBuf, std::path::PathBuf)> {
    if !model_dir.is_dir() {
        return Err(model_err(format!(
            "no embedding model at {}: run `chunktui setup` for the default model, or pass --model DIR \
             (a sentence-transformers ONNX export with tokenizer.json)",
            crate::error::shown_path(model_dir)
        )));
    }
    let model_file = ["model.onnx", "onnx/model.onnx", "model_quantized.onnx", "onnx/model_quantized.onnx"]
        .iter()
        .map(|n| model_dir.join(n))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            model_err(format!(
                "{} has no model.onnx: run `chunktui setup`, or pass --model DIR with an ONNX export",
                crate::error::shown_path(model_dir)
            ))
        })?;
    let tok_file = model_dir.join("tokenizer.json");
    if !tok_file.is_file() {
        return Err(model_err(format!(
            "{} has no tokenizer.json: export the model's tokenizer next to model.onnx",
            crate::error::shown_path(model_dir)
        )));
    }
    Ok((model_file, tok_file))
}

impl OnnxEmbedder {
    /// Load `model_dir` (an ONNX export with `tokenizer.json`). `runtime` is the
    /// ONNX Runtime library to use; `None` searches for one (see
    /// [`super::runtime::find`]).
    pub fn load(model_dir: &Path, runtime: Option<&Path>, opts: &ModelOptions) -> Result<Self> {
        let (model_file, tok_file) = model_files(model_dir)?;
        // Read within the tokenizer limit, as `--tokenizer hf:` files are.
        let tok_bytes =
            crate::input::read_capped(crate::input::Source::Path(&tok_file), &crate::input::Cap::tokenizer()?)?;
        let mut tokenizer = tokenizers::Tokenizer::from_bytes(&tok_bytes)
            .map_err(|e| model_err(format!("{} is not a usable tokenizer.json: {e}", tok_file.display())))?;
        let pad_id = tokenizer
            .get_padding()
            .map(|p| p.pad_id)
            .or_else(|| tokenizer.token_to_id("[PAD]"))
            .or_else(|| tokenizer.token_to_id("<pad>"))
            .unwrap_or(0);
        // Fixed padding (MiniLM: 128) would cost every input 128 tokens, and its
        // truncation would cut long texts silently: we pad per batch and cut ourselves.
        tokenizer.with_padding(None);
        tokenizer.with_truncation(None).map_err(model_err)?;

        let settings = super::st_config::read(model_dir, &model_file, opts)?;
        let (max_tokens, prefix, pooling) =
            (settings.max_tokens.value, settings.prefix.value.clone(), settings.pooling.value.clone());
        let dir_name = model_dir
            .canonicalize()
            .unwrap_or_else(|_| model_dir.to_path_buf())
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "model".into());

        let (runtime_path, env) = super::runtime::environment(runtime)?;
        let threads =
            opts.threads.unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));
        let session = Session::builder(&env)
            .map_err(model_err)?
            .with_intra_threads(threads)
            .map_err(model_err)?
            .with_intra_op_spinning(false)
            .map_err(model_err)?
            .commit_from_file(&model_file)
            .map_err(|e| {
                let why = e.to_string();
                // "Load model from PATH failed:Protobuf parsing failed." -> the reason.
                let why = why.split_once(" failed:").map_or(why.as_str(), |(_, r)| r).trim().trim_end_matches('.');
                model_err(format!(
                    "{} is not a usable ONNX model ({}): re-run `chunktui setup` or give another --model DIR",
                    model_file.display(),
                    why.replace('\n', " ")
                ))
            })?;
        let inputs: Vec<String> = session.inputs().iter().map(|i| i.name().to_string()).collect();
        for need in ["input_ids", "attention_mask"] {
            if !inputs.iter().any(|i| i == need) {
                return Err(model_err(format!(
                    "{} is not a sentence-transformers text encoder: it has no '{need}' input (inputs: {})",
                    model_file.display(),
                    inputs.join(", ")
                )));
            }
        }
        let token_type_ids = inputs.iter().any(|i| i == "token_type_ids");

        // Specials around a window of document tokens, and the prefix tokens.
        let enc = tokenizer.encode(prefix.as_str(), true).map_err(model_err)?;
        let (ids, special) = (enc.get_ids(), enc.get_special_tokens_mask());
        let split = match special.iter().rposition(|&s| s == 0) {
            Some(last) => last + 1,
            None => special.iter().position(|&s| s == 1).map_or(0, |_| 1.min(ids.len())),
        };
        let (head, tail) = (ids[..split].to_vec(), ids[split..].to_vec());
        // sentence-transformers' prompt_length: the prompt as it is tokenized
        // (stripped, lowercased), less a special token at its end.
        let skip = if pooling.include_prompt || prefix.is_empty() {
            0
        } else {
            let p = prefix.trim();
            let p = if settings.lower_case.value { p.to_lowercase() } else { p.to_string() };
            let enc = tokenizer.encode(p.as_str(), true).map_err(model_err)?;
            let n = enc.get_ids().len();
            n - usize::from(enc.get_special_tokens_mask().last() == Some(&1))
        };

        let model_hash = {
            use sha2::{Digest, Sha256};
            let meta = std::fs::metadata(&model_file).map_err(|e| Error::io(&model_file, &e))?;
            let mut h = Sha256::new();
            h.update(meta.len().to_le_bytes());
            // The first MiB tells exports apart cheaply; size covers the rest.
            let mut f = std::fs::File::open(&model_file).map_err(|e| Error::io(&model_file, &e))?;
            let mut buf = vec![0u8; 1 << 20];
            let n = std::io::Read::read(&mut f, &mut buf).unwrap_or(0);
            h.update(&buf[..n]);
            h.update(prefix.as_bytes());
            h.update((max_tokens as u64).to_le_bytes());
            // Plain mean and CLS hash as they always have (cached vectors stay valid).
            match (pooling.modes.as_slice(), pooling.include_prompt) {
                ([PoolMode::Mean], true) => h.update([0u8]),
                ([PoolMode::Cls], true) => h.update([1u8]),
                (modes, include) => {
                    h.update([2u8, u8::from(include)]);
                    modes.iter().for_each(|m| h.update(m.name().as_bytes()));
                }
            }
            if settings.lower_case.value {
                h.update(b"lowercase");
            }
            let d = h.finalize();
            d[..6].iter().map(|b| format!("{b:02x}")).collect::<String>()
        };
        let id = settings.id.clone().unwrap_or(dir_name);
        let info = ModelInfo {
            id: format!("{id}-{model_hash}"),
            dir: model_dir.to_path_buf(),
            model_file,
            runtime: runtime_path,
            prefix,
            max_tokens,
            pooling,
            settings,
            batch_size: opts.batch_size.unwrap_or(32).max(1),
            threads,
            inputs,
        };
        super::remember_settings(&info.id, &info.settings);
        Ok(OnnxEmbedder { info, session: Mutex::new(session), tokenizer, pad_id, token_type_ids, head, tail, skip })
    }

    pub fn info(&self) -> &ModelInfo {
        &self.info
    }

    /// Token ids of `prefix + text` (stripped, lowercased when the model
    /// says so) with specials, cut to the max input. Returns (ids, was_truncated).
    fn encode(&self, text: &str) -> Result<(Vec<u32>, bool)> {
        let input = self.info.settings.prepare(text);
        let enc = self.tokenizer.encode(input, true).map_err(model_err)?;
        let ids = enc.get_ids();
        let max = self.info.max_tokens;
        if ids.len() <= max {
            return Ok((ids.to_vec(), false));
        }
        let keep = max.saturating_sub(self.tail.len());
        let mut out = ids[..keep].to_vec();
        out.extend_from_slice(&self.tail);
        Ok((out, true))
    }

    /// Run one padded batch; returns the hidden states [b][s][d] flattened and d.
    fn run(&self, batch: &[&[u32]]) -> Result<(Vec<f32>, usize, usize)> {
        let b = batch.len();
        let s = batch.iter().map(|x| x.len()).max().unwrap_or(0).max(1);
        let mut ids = vec![self.pad_id as i64; b * s];
        let mut mask = vec![0i64; b * s];
        for (r, row) in batch.iter().enumerate() {
            for (c, &id) in row.iter().enumerate() {
                ids[r * s + c] = id as i64;
                mask[r * s + c] = 1;
            }
        }
        let shape = vec![b as i64, s as i64];
        let mut inputs: Vec<(std::borrow::Cow<'_, str>, ort::session::SessionInputValue<'_>)> = vec![
            ("input_ids".into(), Tensor::from_array((shape.clone(), ids)).map_err(model_err)?.into()),
            ("attention_mask".into(), Tensor::from_array((shape.clone(), mask)).map_err(model_err)?.into()),
        ];
        if self.token_type_ids {
            inputs.push((
                "token_type_ids".into(),
                Tensor::from_array((shape, vec![0i64; b * s])).map_err(model_err)?.into(),
            ));
        }
        let mut session = self.session.lock().unwrap_or_else(|e| e.into_inner());
        let outputs = session.run(inputs).map_err(|e| self.run_error(&e.to_string(), s))?;
        let value = match outputs.get("last_hidden_state").or_else(|| outputs.get("token_embeddings")) {
            Some(v) => v,
            None => &outputs[0],
        };
        let (shape, data) = value.try_extract_tensor::<f32>().map_err(model_err)?;
        match shape.len() {
            3 => Ok((data.to_vec(), s, shape[2] as usize)),
            // Already pooled ([b, d]): treat as one "token" per row.
            2 => Ok((data.to_vec(), 1, shape[1] as usize)),
            n => Err(model_err(format!("unexpected model output rank {n}: expected [batch, seq, dim]"))),
        }
    }

    /// A failed run as one line. Inputs longer than the model's position
    /// table (when [`graph_positions`] could not find it) fail as a
    /// broadcast between the table and the input: say what size works.
    fn run_error(&self, why: &str, seq: usize) -> Error {
        let why = why.replace('\n', " ");
        let limit = why.split_once("Attempting to broadcast").and_then(|(_, rest)| {
            // "... other than 1. 512 by 600"
            let (a, b) = rest.trim().trim_end_matches('.').rsplit_once(" by ")?;
            let a: usize = a.rsplit(' ').next()?.parse().ok()?;
            (b.trim().parse::<usize>().ok()? == seq && a < seq).then_some(a)
        });
        match limit {
            Some(max) => model_err(format!(
                "{} takes at most {max} tokens, not {seq}: set --model-max-tokens (semantic.max_tokens) \
                 to at most {max}",
                self.info.model_file.display()
            )),
            None => model_err(format!("model run failed: {why}")),
        }
    }

    /// One row's sentence vector from its token vectors, as
    /// sentence-transformers' Pooling module computes it (modes concatenated
    /// in its order), L2-normalised.
    fn pool(&self, hidden: &[f32], seq: usize, dim: usize, row: usize, len: usize) -> Vec<f32> {
        let base = row * seq * dim;
        let tok = |t: usize| &hidden[base + t * dim..base + (t + 1) * dim];
        if seq == 1 {
            let mut v = tok(0).to_vec();
            normalize(&mut v);
            return v;
        }
        let len = len.min(seq);
        // Tokens that count: the prompt's are masked out when include_prompt is false.
        let from = self.skip.min(len);
        let mut v = Vec::with_capacity(dim * self.info.pooling.modes.len());
        for mode in &self.info.pooling.modes {
            match mode {
                PoolMode::Cls => v.extend_from_slice(tok(0)),
                PoolMode::Max => {
                    // Masked-out tokens count as -1e9, as in sentence-transformers.
                    let masked = from > 0 || len < seq;
                    let mut m = vec![if masked { -1e9f32 } else { f32::NEG_INFINITY }; dim];
                    for t in from..len {
                        m.iter_mut().zip(tok(t)).for_each(|(a, b)| *a = a.max(*b));
                    }
                    v.extend(m);
                }
                PoolMode::Mean | PoolMode::MeanSqrtLen | PoolMode::WeightedMean => {
                    let mut sum = vec![0f32; dim];
                    let mut weight = 0f32;
                    for t in from..len {
                        let w = if *mode == PoolMode::WeightedMean { (t + 1) as f32 } else { 1.0 };
                        sum.iter_mut().zip(tok(t)).for_each(|(a, b)| *a += w * b);
                        weight += w;
                    }
                    let weight = weight.max(1e-9);
                    let d = if *mode == PoolMode::MeanSqrtLen { weight.sqrt() } else { weight };
                    v.extend(sum.into_iter().map(|a| a / d));
                }
                // The last token the mask keeps (zeros when it keeps none).
                PoolMode::LastToken if from < len => v.extend_from_slice(tok(len - 1)),
                PoolMode::LastToken => v.extend(std::iter::repeat_n(0f32, dim)),
            }
        }
        normalize(&mut v);
        v
    }
}

impl Embedder for OnnxEmbedder {
    fn model_id(&self) -> &str {
        &self.info.id
    }

    fn max_input_tokens(&self) -> Option<usize> {
        Some(self.info.max_tokens)
    }

    fn embed_texts(&self, texts: &[&str], ctl: Control<'_>) -> Result<Embeddings> {
        let total = texts.len();
        let mut encoded = Vec::with_capacity(total);
        let mut truncated = Vec::new();
        for (i, t) in texts.iter().enumerate() {
            let (ids, cut) = self.encode(t)?;
            if cut {
                truncated.push(i);
            }
            encoded.push(ids);
        }
        // Similar lengths together: little padding.
        let mut order: Vec<usize> = (0..total).collect();
        order.sort_by_key(|&i| encoded[i].len());
        let mut vectors: Vec<Vec<f32>> = vec![Vec::new(); total];
        // Cap tokens per batch too, so a batch of long texts stays small.
        let token_budget = self.info.batch_size * 64;
        let mut done = 0;
        let mut start = 0;
        while start < total {
            ctl.check()?;
            let mut end = start + 1;
            while end < total
                && end - start < self.info.batch_size
                && (end - start + 1) * encoded[order[end]].len() <= token_budget.max(encoded[order[end]].len())
            {
                end += 1;
            }
            let rows: Vec<&[u32]> = order[start..end].iter().map(|&i| encoded[i].as_slice()).collect();
            let (hidden, seq, dim) = self.run(&rows)?;
            for (r, &i) in order[start..end].iter().enumerate() {
                vectors[i] = self.pool(&hidden, seq, dim, r, encoded[i].len());
            }
            done += end - start;
            (ctl.progress)(done, total);
            start = end;
        }
        Ok(Embeddings { vectors, truncated })
    }

    fn token_vectors(&self, text: &str, ctl: Control<'_>) -> Result<TokenVectors> {
        let enc = self.tokenizer.encode(text, false).map_err(model_err)?;
        let ids = enc.get_ids().to_vec();
        let spans: Vec<(usize, usize)> = enc.get_offsets().to_vec();
        let room = self.info.max_tokens.saturating_sub(self.head.len() + self.tail.len()).max(8);
        let windows = super::windows::windows(ids.len(), room, room / 4);
        let mut dim = 0;
        let mut vectors: Vec<Vec<f32>> = vec![Vec::new(); ids.len()];
        for (w, win) in windows.iter().enumerate() {
            ctl.check()?;
            let mut row = self.head.clone();
            row.extend_from_slice(&ids[win.range.clone()]);
            row.extend_from_slice(&self.tail);
            let (hidden, seq, d) = self.run(&[row.as_slice()])?;
            dim = d;
            if seq == 1 {
                return Err(model_err("this model outputs pooled vectors only: late chunking needs token vectors"));
            }
            for t in win.keep.clone() {
                let pos = self.head.len() + (t - win.range.start);
                vectors[t] = hidden[pos * d..(pos + 1) * d].to_vec();
            }
            (ctl.progress)(w + 1, windows.len());
        }
        Ok(TokenVectors { spans, vectors, dim, windows: windows.len() })
    }
}

#[cfg(test)]
mod tests {
    use super::super::st_config::usable_positions;
    use super::*;

    fn varint(mut v: u64, out: &mut Vec<u8>) {
        while v >= 0x80 {
            out.push((v as u8) | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }

    fn field(n: u64, body: &[u8], out: &mut Vec<u8>) {
        varint(n << 3 | 2, out);
        varint(body.len() as u64, out);
        out.extend_from_slice(body);
    }

    /// A TensorProto: packed or unpacked dims, float data before the name
    /// (as some exporters write it), then the name.
    fn tensor(name: &str, dims: &[u64], packed: bool) -> Vec<u8> {
        let mut t = Vec::new();
        if packed {
            let mut d = Vec::new();
            dims.iter().for_each(|&x| varint(x, &mut d));
            field(1, &d, &mut t);
        } else {
            for &x in dims {
                varint(1 << 3, &mut t);
                varint(x, &mut t);
            }
        }
        varint(2 << 3, &mut t); // data_type = 1 (float)
        varint(1, &mut t);
        field(4, &[0u8; 64], &mut t); // float_data
        t.extend_from_slice(&[(10 << 3) | 5, 0, 0, 0, 0]); // a fixed32 field
        field(8, name.as_bytes(), &mut t);
        t
    }

    fn model(tensors: &[Vec<u8>]) -> tempfile::NamedTempFile {
        let mut graph = Vec::new();
        field(1, b"node", &mut graph);
        for t in tensors {
            field(5, t, &mut graph);
        }
        let mut m = Vec::new();
        varint(1 << 3, &mut m); // ir_version
        varint(8, &mut m);
        field(7, &graph, &mut m);
        let f = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(f.path(), m).unwrap();
        f
    }

    #[test]
    fn position_table_rows_come_from_the_graph() {
        let m = model(&[tensor("w", &[384, 384], true), tensor("pos", &[512, 384], false)]);
        assert_eq!(graph_positions(m.path()), Some(512));
        let m = model(&[
            tensor("embeddings.position_embeddings.weight_q", &[514, 768], true),
            tensor("embeddings.position_ids", &[1, 514], true),
        ]);
        assert_eq!(graph_positions(m.path()).map(usable_positions), Some(512));
        let m = model(&[tensor("w", &[30522, 384], true)]);
        assert_eq!(graph_positions(m.path()), None);
        let garbage = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(garbage.path(), [0xff; 300]).unwrap();
        assert_eq!(graph_positions(garbage.path()), None);
        assert_eq!(usable_positions(8192), 8192);
    }
}
