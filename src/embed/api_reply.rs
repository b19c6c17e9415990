//! Reading one `/embeddings` reply, trusting nothing in it: every vector is
//! put back by its item's `index` (never by reply order), and a reply with
//! too few or too many vectors, a repeated or missing index, a vector of
//! the wrong or a changing length, a NaN or an infinity, or a body that is
//! not the documented shape is refused with what was wrong.

use serde_json::Value;

/// The vectors of one batch, in input order, and the tokens the server counted.
#[derive(Debug, PartialEq)]
pub struct Batch {
    pub vectors: Vec<Vec<f32>>,
    pub tokens: u64,
}

/// Read the reply to a batch of `inputs` texts. `dim` is the length every
/// vector must have (`None`: the first one sets it for the rest). The
/// error says what was wrong, for "`URL` answered ..., but ...".
pub fn read(body: &str, inputs: usize, dim: Option<usize>) -> Result<Batch, String> {
    let v: Value = serde_json::from_str(body).map_err(|e| {
        if body.contains("NaN") || body.contains("Infinity") {
            return format!("its reply holds NaN or Infinity, which are not numbers ({e})");
        }
        format!("its reply is not JSON ({e}), where an embeddings list ({{\"data\": [{{\"index\", \"embedding\"}}]}}) was due")
    })?;
    let data = v.get("data").and_then(Value::as_array).ok_or_else(|| {
        let keys: Vec<&str> = v.as_object().map(|o| o.keys().map(String::as_str).collect()).unwrap_or_default();
        format!(
            "its reply has no \"data\" list of embeddings (it has: {})",
            if keys.is_empty() { "no keys".into() } else { keys.join(", ") }
        )
    })?;
    if data.len() != inputs {
        return Err(format!(
            "it returned {} vector{} for {inputs} input{}",
            data.len(),
            plural(data.len()),
            plural(inputs)
        ));
    }
    let mut vectors: Vec<Option<Vec<f32>>> = vec![None; inputs];
    let mut dim = dim;
    for (at, item) in data.iter().enumerate() {
        let index = item.get("index").and_then(Value::as_u64).ok_or_else(|| {
            format!(
                "item {at} of its reply has no \"index\" (a whole number), so its vector cannot be matched to an input"
            )
        })? as usize;
        if index >= inputs {
            return Err(format!(
                "item {at} of its reply has index {index}, outside the {inputs} input{}",
                plural(inputs)
            ));
        }
        if vectors[index].is_some() {
            return Err(format!("index {index} appears twice in its reply"));
        }
        let vector = vector_of(item).map_err(|e| format!("the vector at index {index} {e}"))?;
        match dim {
            Some(d) if d != vector.len() => {
                return Err(format!(
                    "the vector at index {index} has {} dimensions where {d} were due (a wrong or changing \
                     dimension)",
                    vector.len()
                ))
            }
            _ => dim = Some(vector.len()),
        }
        vectors[index] = Some(vector);
    }
    let usage = v.get("usage");
    let tokens =
        usage.and_then(|u| u.get("prompt_tokens").or(u.get("total_tokens"))).and_then(Value::as_u64).unwrap_or(0);
    Ok(Batch { vectors: vectors.into_iter().map(|v| v.expect("every index filled once")).collect(), tokens })
}

/// The `embedding` of one item: a non-empty list of finite numbers.
fn vector_of(item: &Value) -> Result<Vec<f32>, String> {
    let list = match item.get("embedding") {
        Some(Value::Array(list)) => list,
        Some(Value::String(_)) => {
            return Err("is a string (base64?): chunktui asks for float lists, and the server sent another \
                        encoding"
                .into())
        }
        Some(_) => return Err("is not a list of numbers".into()),
        None => return Err("is missing (no \"embedding\" in the item)".into()),
    };
    if list.is_empty() {
        return Err("is empty".into());
    }
    let mut out = Vec::with_capacity(list.len());
    for (i, x) in list.iter().enumerate() {
        // serde_json reads NaN/Infinity literals as errors and 1e999 as
        // infinite; a number that does not fit an f32 is refused too.
        let f = x.as_f64().filter(|f| f.is_finite() && (*f as f32).is_finite());
        match f {
            Some(f) => out.push(f as f32),
            None => return Err(format!("holds {x} at position {i}, which is not a finite number")),
        }
    }
    Ok(out)
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(index: usize, v: &[f32]) -> Value {
        serde_json::json!({"object": "embedding", "index": index, "embedding": v})
    }

    fn reply(items: Vec<Value>) -> String {
        serde_json::json!({"object": "list", "data": items, "usage": {"prompt_tokens": 7, "total_tokens": 7}})
            .to_string()
    }

    #[test]
    fn vectors_are_put_back_by_index_not_by_reply_order() {
        let body = reply(vec![item(2, &[3.0, 0.0]), item(0, &[1.0, 0.0]), item(1, &[2.0, 0.0])]);
        let got = read(&body, 3, None).unwrap();
        assert_eq!(got.vectors, vec![vec![1.0, 0.0], vec![2.0, 0.0], vec![3.0, 0.0]]);
        assert_eq!(got.tokens, 7);
    }

    #[test]
    fn short_long_repeated_and_wrong_shapes_are_refused() {
        let two = reply(vec![item(0, &[1.0]), item(1, &[1.0])]);
        assert!(read(&two, 3, None).unwrap_err().contains("2 vectors for 3 inputs"));
        let repeated = reply(vec![item(0, &[1.0]), item(0, &[1.0])]);
        assert!(read(&repeated, 2, None).unwrap_err().contains("twice"));
        let outside = reply(vec![item(5, &[1.0])]);
        assert!(read(&outside, 1, None).unwrap_err().contains("outside"));
        let changing = reply(vec![item(0, &[1.0, 2.0]), item(1, &[1.0])]);
        assert!(read(&changing, 2, None).unwrap_err().contains("1 dimensions where 2"));
        assert!(read(&reply(vec![item(0, &[1.0])]), 1, Some(384)).unwrap_err().contains("where 384"));
        assert!(read("<html>", 1, None).unwrap_err().contains("not JSON"));
        assert!(read(r#"{"error": "x"}"#, 1, None).unwrap_err().contains("it has: error"));
        let literal = r#"{"data": [{"index": 0, "embedding": [NaN]}]}"#;
        assert!(read(literal, 1, None).unwrap_err().contains("NaN or Infinity"));
        let nan = r#"{"data": [{"index": 0, "embedding": [0.1, null]}]}"#;
        assert!(read(nan, 1, None).unwrap_err().contains("not a finite number"));
        let huge = r#"{"data": [{"index": 0, "embedding": [1e300]}]}"#;
        assert!(read(huge, 1, None).unwrap_err().contains("not a finite number"));
        let b64 = r#"{"data": [{"index": 0, "embedding": "AAAA"}]}"#;
        assert!(read(b64, 1, None).unwrap_err().contains("base64"));
        let no_index = r#"{"data": [{"embedding": [1.0]}]}"#;
        assert!(read(no_index, 1, None).unwrap_err().contains("no \"index\""));
    }
}
