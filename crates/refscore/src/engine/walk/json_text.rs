//! JSON text where the other side has a document: a string holding a JSON
//! object or array, compared with an object or array, is read as that
//! document when the rules say so ([`Rules::reads_json_text`]). OpenAI's
//! tool calls carry their `arguments` so, as text, while a reference
//! usually holds them as an object.

// The walk's own types and imports: this is the rest of its `impl`.
#[allow(clippy::wildcard_imports)]
use super::*;

/// The documents one comparison read from JSON text, each text read at
/// most once: they live as long as its walk and its sub-walks, so that
/// their nodes are walked, memoised and counted like the input's own, and
/// pairing an array by similarity (which compares each element with
/// every element of the other side) reads each text once, not once per
/// pair.
///
/// A text is read only if it nests no deeper than the deeper of the two
/// documents compared: the walk descends both sides together, so nothing
/// deeper could be compared, and the depth the input was checked for
/// (the parse limit, json_match's bound for path rules) bounds the walk
/// through texts within texts too.
pub(in crate::engine) struct Texts<'v> {
    /// The two documents compared.
    roots: (Node<'v>, Node<'v>),
    /// The deepest nesting a text may have, once a text is read.
    depth: OnceCell<usize>,
    /// Made at the first text read: most comparisons read none.
    trees: OnceCell<typed_arena::Arena<Tree<'v>>>,
    /// Per string node read: its document's root, `None` when its text
    /// is not one JSON document (within the depth).
    read: RefCell<FxHashMap<NodeId, Option<Node<'v>>>>,
}

impl<'v> Texts<'v> {
    /// No text read yet, for comparing `expected` with `actual`.
    pub(in crate::engine) fn new(expected: Node<'v>, actual: Node<'v>) -> Self {
        Texts {
            roots: (expected, actual),
            depth: OnceCell::new(),
            trees: OnceCell::new(),
            read: RefCell::default(),
        }
    }

    /// The document string node `text` (whose text is `s`) holds.
    fn document(&'v self, text: Node<'v>, s: &'v str) -> Option<Node<'v>> {
        if let Some(&known) = self.read.borrow().get(&text.id()) {
            return known;
        }
        let depth = *self.depth.get_or_init(|| self.roots.0.depth().max(self.roots.1.depth()));
        let root = crate::fast_json::read_within(s, depth)
            .map(|t| self.trees.get_or_init(typed_arena::Arena::new).alloc(t).root());
        self.read.borrow_mut().insert(text.id(), root);
        root
    }

    /// How many texts were read as documents.
    #[cfg(test)]
    fn documents(&self) -> usize {
        self.trees.get().map_or(0, typed_arena::Arena::len)
    }
}

/// JSON's white space, which may surround a document in its text.
const JSON_SPACE: [char; 4] = [' ', '\t', '\n', '\r'];

impl<'m, 'v, M: Rules + ?Sized> Walk<'m, 'v, M> {
    /// The pair to compare in place of `e` and `a` when one is an object
    /// or array and the other a string whose text is a JSON document of
    /// the same kind, and the rules read such text here: that string read
    /// as its document. `None` otherwise (the pair is compared as leaves).
    pub(super) fn json_text(
        &self,
        e: Node<'v>,
        a: Node<'v>,
        rule: &NodeRule,
    ) -> Option<(Node<'v>, Node<'v>)> {
        // The rules first: a metric that never reads JSON text answers
        // `false` for every rule, and its walk pays nothing here.
        if !self.m.reads_json_text(rule) {
            return None;
        }
        let (container, text, text_is_output) = match (e.is_container(), a.is_container()) {
            (true, false) => (e, a, true),
            (false, true) => (a, e, false),
            _ => return None,
        };
        let s = text.as_str()?.trim_matches(JSON_SPACE);
        let open = if container.is_object() { b'{' } else { b'[' };
        if s.as_bytes().first() != Some(&open) {
            return None;
        }
        let read = self.texts.document(text, s)?;
        if read.kind() != container.kind() {
            return None;
        }
        Some(if text_is_output { (e, read) } else { (read, a) })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::Texts;
    use crate::engine::Keep;
    use crate::metrics::json_match::JsonMatch;
    use crate::tree::Tree;

    #[test]
    fn pairing_an_array_by_similarity_reads_each_text_once() {
        // Elements in reverse order: each reference element is compared
        // with every output element before the pairs are chosen.
        let n = 64;
        let reference: Value = (0..n).map(|i| json!({"id": format!("a{i}"), "v": i})).collect();
        let output: Value = (0..n)
            .rev()
            .map(|i| Value::String(json!({"id": format!("a{i}"), "v": i}).to_string()))
            .collect();
        let (e, a) = (Tree::from_value(&reference), Tree::from_value(&output));
        let null = Tree::null();
        let texts = Texts::new(e.root(), a.root());
        let m = JsonMatch::default();
        let c = super::super::Walk::new(&m, Keep::Failed, false, null.root(), &texts).run(
            e.root(),
            a.root(),
            None,
        );
        assert_eq!((c.counts.matched, c.counts.total()), (2 * n, 2 * n), "{:?}", c.records);
        assert_eq!(texts.documents(), n as usize);
    }

    #[test]
    fn a_deep_document_written_as_text_is_read_like_the_document() {
        const DEPTH: usize = 10_000;
        let text = format!("{}1{}", "[".repeat(DEPTH), "]".repeat(DEPTH));
        let nested = crate::json::parse(&text).unwrap();
        let m = JsonMatch::default();
        let c = m.compare_values(&Value::String(text.clone()), &nested, Keep::Failed);
        assert_eq!((c.counts.matched, c.counts.total()), (1, 1), "{:?}", c.records);
        let wrong = text.replace('1', "\"one\"");
        let c = m.compare_values(&Value::String(wrong), &nested, Keep::Failed);
        // Nothing alike at any level: the one element of the outer array
        // is missing and another extra (as between two such documents).
        assert_eq!((c.counts.missing, c.counts.extra, c.records.len()), (1, 1, 2));
        assert_eq!(c.records[0].path.to_string(), "$[0]");
        crate::json::drop_deep(nested);
    }

    #[test]
    fn a_text_nesting_deeper_than_both_documents_is_not_read() {
        let m = JsonMatch::default();
        let reference = json!({"a": {"b": 1}});
        let within = m.compare_values(&json!({"a": "{\"b\": 1}"}), &reference, Keep::Failed);
        assert_eq!(within.counts.matched, 1, "{:?}", within.records);
        // Deeper than either side: nothing of it could be compared, and
        // texts within texts could nest past any depth the input was
        // checked for.
        let deeper = json!({"a": "{\"b\": [[[[1]]]]}"});
        let c = m.compare_values(&deeper, &reference, Keep::Failed);
        assert_eq!(c.records[0].path.to_string(), "$.a");
        assert_eq!(c.records[0].outcome, crate::detail::Outcome::TypeMismatch);
        let mut chain = json!(1);
        for _ in 0..12 {
            chain = json!({"x": chain.to_string()});
        }
        let c = m.compare_values(&chain, &json!({"x": {"x": 1}}), Keep::Failed);
        assert_eq!(c.counts.matched, 0, "{:?}", c.records);
    }

    #[test]
    fn text_within_text_is_read_at_every_level_and_only_against_a_document() {
        let m = JsonMatch::default();
        let inner = json!({"q": "rust", "limit": 5}).to_string();
        let outer = json!({"tool": "search", "args": inner}).to_string();
        let reference = json!({"call": {"tool": "search", "args": {"q": "rust", "limit": 5}}});
        let c = m.compare_values(&json!({"call": outer}), &reference, Keep::Failed);
        assert_eq!((c.counts.matched, c.counts.total()), (3, 3), "{:?}", c.records);
        // Against a string, JSON text is text.
        let c = m.compare_values(&json!({"a": "[1]"}), &json!({"a": "[1.0]"}), Keep::Failed);
        assert_eq!(c.counts.matched, 0, "{:?}", c.records);
    }
}
