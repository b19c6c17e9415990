//! What chunktui reads from an ONNX file without loading it: the size of
//! the model's position table, through a small protobuf reader that walks
//! only the fields it needs (the weights are skipped, never read into memory).

use std::path::Path;

/// The rows of the model's position embedding table, read from the ONNX
/// graph's initializers without loading the weights: a tensor named like
/// `position_embeddings` (or `pos_embed`, or just `pos`) gives its first
/// dimension, a `position_ids` buffer its last. `None` when the file has none
/// (or is not a readable ONNX file: loading it says so).
pub fn graph_positions(model_file: &Path) -> Option<usize> {
    let file = std::fs::File::open(model_file).ok()?;
    let len = file.metadata().ok()?.len();
    let mut r = proto::Reader::new(file);
    let mut rows: Vec<usize> = Vec::new();
    // ModelProto.graph = 7, GraphProto.initializer = 5, TensorProto.dims = 1 / name = 8.
    r.fields(len, &mut |r, field, wire, size| {
        if field != 7 || wire != 2 {
            return r.skip(wire, size);
        }
        r.fields(size, &mut |r, field, wire, size| {
            if field != 5 || wire != 2 {
                return r.skip(wire, size);
            }
            let (mut dims, mut name) = (Vec::new(), String::new());
            r.fields(size, &mut |r, field, wire, size| match (field, wire) {
                (1, 0) => {
                    dims.push(size);
                    Some(())
                }
                (1, 2) => r.packed_varints(size, &mut dims),
                (8, 2) if size <= 4096 => {
                    name = String::from_utf8_lossy(&r.bytes(size as usize)?).to_lowercase();
                    Some(())
                }
                _ => r.skip(wire, size),
            })?;
            let table = name.contains("position_embedding") || name.contains("pos_embed") || name == "pos";
            if table && dims.len() == 2 {
                rows.push(dims[0] as usize);
            } else if name.contains("position_ids") && !dims.is_empty() {
                rows.push(*dims.last()? as usize);
            }
            Some(())
        })
    })?;
    rows.into_iter().filter(|&n| n > 0).min()
}

/// Just enough protobuf to walk an ONNX file's fields without reading the
/// weights into memory.
mod proto {
    use std::io::{BufReader, Read, Seek};

    pub struct Reader<R> {
        inner: BufReader<R>,
        pos: u64,
    }

    impl<R: Read + Seek> Reader<R> {
        pub fn new(inner: R) -> Self {
            Reader { inner: BufReader::new(inner), pos: 0 }
        }

        fn byte(&mut self) -> Option<u8> {
            let mut b = [0u8];
            self.inner.read_exact(&mut b).ok()?;
            self.pos += 1;
            Some(b[0])
        }

        pub fn varint(&mut self) -> Option<u64> {
            let mut v = 0u64;
            for shift in (0..64).step_by(7) {
                let b = self.byte()?;
                v |= u64::from(b & 0x7f) << shift;
                if b < 0x80 {
                    return Some(v);
                }
            }
            None
        }

        pub fn bytes(&mut self, n: usize) -> Option<Vec<u8>> {
            let mut buf = vec![0u8; n];
            self.inner.read_exact(&mut buf).ok()?;
            self.pos += n as u64;
            Some(buf)
        }

        /// Skip a field's value; `size` is the varint itself for wire type 0
        /// (already read) and the length for wire type 2.
        pub fn skip(&mut self, wire: u8, size: u64) -> Option<()> {
            let n = match wire {
                0 => 0,
                1 => 8,
                2 => size,
                5 => 4,
                _ => return None,
            };
            self.inner.seek_relative(i64::try_from(n).ok()?).ok()?;
            self.pos += n;
            Some(())
        }

        pub fn packed_varints(&mut self, size: u64, out: &mut Vec<u64>) -> Option<()> {
            let end = self.pos.checked_add(size)?;
            while self.pos < end {
                out.push(self.varint()?);
            }
            (self.pos == end).then_some(())
        }

        /// Call `f(reader, field, wire type, value)` for each field in the
        /// next `len` bytes; `value` is the varint for wire type 0, the
        /// length for wire type 2 (`f` reads or skips the bytes), else 0.
        pub fn fields(&mut self, len: u64, f: &mut dyn FnMut(&mut Self, u64, u8, u64) -> Option<()>) -> Option<()> {
            let end = self.pos.checked_add(len)?;
            while self.pos < end {
                let key = self.varint()?;
                let (field, wire) = (key >> 3, (key & 7) as u8);
                let value = match wire {
                    0 | 2 => self.varint()?,
                    1 | 5 => 0,
                    _ => return None,
                };
                let start = self.pos;
                f(self, field, wire, value)?;
                let want = if wire == 2 { start.checked_add(value)? } else { self.pos };
                if self.pos != want {
                    return None;
                }
            }
            (self.pos == end).then_some(())
        }
    }
}
