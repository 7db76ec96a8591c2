//! Deterministic embeddings: a unit vector per text, from a hash of it.

use serde_json::Value;

/// Dimensions of an embedding when the request does not ask for others.
pub(crate) const DEFAULT_DIMENSIONS: usize = 8;

/// Most dimensions a request may ask for.
pub(crate) const MAX_DIMENSIONS: usize = 4096;

/// The embedding of `text`: `dims` floats derived from a 64-bit FNV-1a hash
/// of the text, scaled to unit length. Identical texts give identical
/// vectors, on every platform and Rust version.
pub(crate) fn embed(text: &[u8], dims: usize) -> Vec<f32> {
    let seed = fnv1a(text);
    let mut v: Vec<f64> = (0..dims as u64)
        .map(|i| {
            let z = splitmix64(seed ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            // Top 53 bits to [0, 1), then to [-1, 1).
            (z >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        })
        .collect();
    let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    } else if let Some(first) = v.first_mut() {
        *first = 1.0;
    }
    v.into_iter().map(|x| x as f32).collect()
}

/// The texts to embed in a request's `input`: a string, a list of strings,
/// a token list, or a list of token lists (token lists are hashed as their
/// JSON text). `None` when `input` is missing or of another shape.
pub(crate) fn inputs(body: &Value) -> Option<Vec<Vec<u8>>> {
    match body.get("input")? {
        Value::String(s) => Some(vec![s.as_bytes().to_vec()]),
        Value::Array(items) if !items.is_empty() && items.iter().all(Value::is_number) => {
            Some(vec![Value::Array(items.clone()).to_string().into_bytes()])
        }
        Value::Array(items) => items
            .iter()
            .map(|item| match item {
                Value::String(s) => Some(s.as_bytes().to_vec()),
                Value::Array(_) => Some(item.to_string().into_bytes()),
                _ => None,
            })
            .collect(),
        _ => None,
    }
}

/// The dimensions a request asks for (8 when it does not); `None` when
/// `dimensions` is not an integer in 1..=4096.
pub(crate) fn dimensions(body: &Value) -> Option<usize> {
    match body.get("dimensions") {
        None | Some(Value::Null) => Some(DEFAULT_DIMENSIONS),
        Some(d) => d
            .as_u64()
            .and_then(|d| usize::try_from(d).ok())
            .filter(|d| (1..=MAX_DIMENSIONS).contains(d)),
    }
}

/// The little-endian `f32` bytes of `v` in standard base64, as OpenAI's
/// `encoding_format: "base64"` sends them.
pub(crate) fn base64_f32(v: &[f32]) -> String {
    let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    base64(&bytes)
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk.first().copied().unwrap_or(0),
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        let sextets = [(n >> 18) & 63, (n >> 12) & 63, (n >> 6) & 63, n & 63];
        for (i, s) in sextets.iter().enumerate() {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[*s as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3))
}

fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn same_text_same_unit_vector() {
        let a = embed(b"hello", 8);
        assert_eq!(a, embed(b"hello", 8));
        assert_ne!(a, embed(b"hello!", 8));
        assert_eq!(a.len(), 8);
        let norm: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-5, "norm {norm}");
        assert_eq!(embed(b"", 1).len(), 1);
        assert_eq!(embed(b"x", 0), Vec::<f32>::new());
    }

    #[test]
    fn inputs_accept_strings_lists_and_tokens() {
        assert_eq!(inputs(&json!({"input": "a"})), Some(vec![b"a".to_vec()]));
        assert_eq!(inputs(&json!({"input": ["a", "b"]})), Some(vec![b"a".to_vec(), b"b".to_vec()]));
        assert_eq!(inputs(&json!({"input": [1, 2]})), Some(vec![b"[1,2]".to_vec()]));
        assert_eq!(inputs(&json!({"input": [[1], [2]]})).map(|v| v.len()), Some(2));
        assert_eq!(inputs(&json!({"input": []})), Some(vec![]));
        assert_eq!(inputs(&json!({"input": ["a", 3]})), None);
        assert_eq!(inputs(&json!({"input": {"a": 1}})), None);
        assert_eq!(inputs(&json!({})), None);
    }

    #[test]
    fn dimensions_are_bounded() {
        assert_eq!(dimensions(&json!({})), Some(8));
        assert_eq!(dimensions(&json!({"dimensions": null})), Some(8));
        assert_eq!(dimensions(&json!({"dimensions": 3})), Some(3));
        assert_eq!(dimensions(&json!({"dimensions": 0})), None);
        assert_eq!(dimensions(&json!({"dimensions": 1_000_000})), None);
        assert_eq!(dimensions(&json!({"dimensions": "3"})), None);
    }

    #[test]
    fn base64_matches_the_standard_alphabet() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64_f32(&[1.0]), "AACAPw==");
    }
}
