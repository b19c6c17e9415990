//! Reading what a model answers. Servers without JSON constraints (and small
//! models with them) wrap JSON in prose or code fences, or send two objects;
//! the first JSON value that parses is taken. Nothing here trusts a number:
//! callers validate every value against what they sent.

use serde_json::Value;

/// The first JSON object or array in `reply`, wherever it starts.
pub fn first_json(reply: &str) -> Option<Value> {
    let starts = reply.char_indices().filter(|&(_, c)| c == '{' || c == '[').map(|(i, _)| i);
    for start in starts {
        let mut values = serde_json::Deserializer::from_str(&reply[start..]).into_iter::<Value>();
        if let Some(Ok(v)) = values.next() {
            return Some(v);
        }
    }
    None
}

/// The integers of `key` in the first JSON object of `reply` (a list of
/// numbers, or of numeric strings), else every integer in the reply's text
/// (a text-mode answer like "3, 7, 12"). `None` when there is none at all.
pub fn numbers(reply: &str, key: &str) -> Option<Vec<i64>> {
    if let Some(v) = first_json(reply) {
        let list = match &v {
            Value::Object(o) => o.get(key).cloned(),
            Value::Array(_) => Some(v.clone()),
            _ => None,
        };
        if let Some(Value::Array(items)) = list {
            let nums: Vec<i64> = items
                .iter()
                .filter_map(|x| match x {
                    Value::Number(n) => {
                        n.as_i64().or_else(|| n.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64))
                    }
                    Value::String(s) => s.trim().parse().ok(),
                    _ => None,
                })
                .collect();
            return Some(nums);
        }
    }
    let nums: Vec<i64> =
        reply.split(|c: char| !c.is_ascii_digit() && c != '-').filter_map(|w| w.parse().ok()).collect();
    (!nums.is_empty()).then_some(nums)
}

/// The string at `key` of the first JSON object in `reply`, trimmed; `None`
/// when absent or blank.
pub fn string(reply: &str, key: &str) -> Option<String> {
    let v = first_json(reply)?;
    let s = v.get(key)?.as_str()?.trim();
    (!s.is_empty()).then(|| s.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_is_found_in_fences_and_prose() {
        assert_eq!(numbers("```json\n{\"starts\": [1, 4, 9]}\n```", "starts"), Some(vec![1, 4, 9]));
        assert_eq!(numbers("Sure! {\"starts\": [\"2\", 5.0]} hope it helps {", "starts"), Some(vec![2, 5]));
        assert_eq!(numbers("[3, 8]", "starts"), Some(vec![3, 8]));
        assert_eq!(numbers("new chunks start at 3, 7 and 12", "starts"), Some(vec![3, 7, 12]));
        assert_eq!(numbers("no idea", "starts"), None);
        assert_eq!(string("{\"question\": \"  Why?  \"}", "question").as_deref(), Some("Why?"));
        assert_eq!(string("{\"question\": \"\"}", "question"), None);
        assert_eq!(first_json("{ broken [1,2]"), Some(serde_json::json!([1, 2])));
    }
}
