//! Identifying fields of array elements, for pairing partly wrong items:
//! a string field whose value occurs once among the reference elements
//! and once among the output elements identifies the element holding it.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use super::align::Fx;

/// A map with the engine's fast hasher.
type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<Fx>>;

use crate::tree::{Kind, Node};

/// A string for identity: trimmed, inner white space collapsed, lower case.
fn folded(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

/// The `(field, folded value)` entries of an element's string fields.
fn entries<'v>(v: Node<'v>) -> Vec<(&'v str, String)> {
    v.entries()
        .filter_map(|(k, x)| x.as_str().map(|s| (k, folded(s))))
        .filter(|(_, s)| !s.is_empty())
        .collect()
}

/// Which reference and output elements share an identifying field.
pub(super) struct Identities<'v> {
    /// Per reference element, its identifying entries.
    reference: Vec<Vec<(&'v str, String)>>,
    /// Identifying entries of the output: the one element holding each.
    output: FxMap<(&'v str, String), usize>,
}

impl<'v> Identities<'v> {
    /// The identifying fields of two arrays' object elements.
    pub(super) fn new(e: &[Node<'v>], a: &[Node<'v>]) -> Self {
        fn unique<'v>(items: &[Node<'v>]) -> FxMap<(&'v str, String), Option<usize>> {
            let mut seen: FxMap<(&'v str, String), Option<usize>> = FxMap::default();
            for (i, &v) in items.iter().enumerate() {
                for entry in entries(v) {
                    seen.entry(entry).and_modify(|x| *x = None).or_insert(Some(i));
                }
            }
            seen
        }
        let in_e = unique(e);
        let reference = e
            .iter()
            .map(|&v| {
                entries(v)
                    .into_iter()
                    .filter(|k| in_e.get(k).is_some_and(Option::is_some))
                    .collect()
            })
            .collect();
        let output = unique(a).into_iter().filter_map(|(k, at)| at.map(|j| (k, j))).collect();
        Identities { reference, output }
    }

    /// The identifying field reference element `i` and output element `j`
    /// agree on, if any.
    pub(super) fn agree(&self, i: usize, j: usize) -> Option<&'v str> {
        self.reference
            .get(i)?
            .iter()
            .find_map(|(k, v)| (self.output.get(&(*k, v.clone())) == Some(&j)).then_some(*k))
    }
}

/// How alike two elements' key fields are: the mean normalized Levenshtein
/// similarity of the keys' values as text (trimmed, lower case); a key
/// absent on either side counts 0.
pub(super) fn key_similarity(e: Node<'_>, a: Node<'_>, keys: &[String]) -> f64 {
    if keys.is_empty() {
        return 0.0;
    }
    let text = |v: Node<'_>| match v.kind() {
        Kind::String => v.as_str().map(folded),
        Kind::Number | Kind::Bool => Some(v.compact()),
        _ => None,
    };
    let sum: f64 = keys
        .iter()
        .map(|k| match (e.get(k).and_then(text), a.get(k).and_then(text)) {
            (Some(x), Some(y)) => crate::text::normalized_levenshtein(&x, &y),
            _ => 0.0,
        })
        .sum();
    #[allow(clippy::cast_precision_loss)]
    let n = keys.len() as f64;
    crate::number::clamp01(sum / n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::Tree;
    use serde_json::{Value, json};

    fn node(v: &Value) -> Tree<'_> {
        Tree::from_value(v)
    }

    #[test]
    fn unique_strings_identify() {
        let e = [
            json!({"sku": "A", "unit": "pc", "qty": 1}),
            json!({"sku": "B", "unit": "pc", "qty": 1}),
        ];
        let a = [json!({"sku": " b ", "unit": "pc"}), json!({"sku": "C", "unit": "pc"})];
        let (ve, va) = (Value::Array(e.to_vec()), Value::Array(a.to_vec()));
        let (te, ta) = (node(&ve), node(&va));
        let (e, a): (Vec<Node<'_>>, Vec<Node<'_>>) =
            (te.root().items().collect(), ta.root().items().collect());
        let ids = Identities::new(&e, &a);
        assert_eq!(ids.agree(1, 0), Some("sku"));
        // "pc" is shared by every element: it identifies nothing.
        assert_eq!(ids.agree(0, 1), None);
        assert_eq!(ids.agree(0, 0), None);
    }

    #[test]
    fn keys_compare_by_edit_distance() {
        let keys = [String::from("sku")];
        let sim = |e: Value, a: Value| key_similarity(node(&e).root(), node(&a).root(), &keys);
        let s = sim(json!({"sku": "SKU-1001"}), json!({"sku": "SKU-1011"}));
        assert!((s - 0.875).abs() < 1e-12, "{s}");
        assert_eq!(sim(json!({"sku": 1}), json!({})), 0.0);
        assert_eq!(sim(json!({"sku": 12}), json!({"sku": 12})), 1.0);
    }
}
