//! The `enum` comparator: labels compared trimmed and case-insensitively,
//! optionally restricted to a set of allowed values.

use std::borrow::Cow;

use serde_json::Value;

use super::{Checked, Normalizer, Note, exact, normalize};
use crate::engine::Leaf;

/// The comparison key of a label: the normalizers, then trimming (Unicode
/// white space and U+FEFF), then full Unicode case folding.
pub(super) fn label_key<'a>(s: &'a str, normalizers: &[Normalizer]) -> Cow<'a, str> {
    let n = normalize(s, normalizers);
    let fixed = [Normalizer::Trim, Normalizer::Casefold];
    match n {
        Cow::Borrowed(b) => normalize(b, &fixed),
        Cow::Owned(o) => Cow::Owned(normalize(&o, &fixed).into_owned()),
    }
}

/// Two strings are equal when their keys are; with `values`, the output's
/// key must also be the key of one of them (else a value mismatch with
/// [`Note::NotAllowed`]). Other values are compared as `exact` does; a
/// non-string output is never among `values`.
pub(super) fn compare(
    e: &Value,
    a: &Value,
    normalizers: &[Normalizer],
    values: Option<&[String]>,
) -> Checked {
    let (Value::String(x), Value::String(y)) = (e, a) else {
        let leaf = exact::compare(e, a, normalizers);
        return match values {
            Some(_) if leaf == Leaf::MATCH => {
                Checked { leaf: Leaf::WRONG, note: Some(Note::NotAllowed) }
            }
            _ => leaf.into(),
        };
    };
    let actual = label_key(y, normalizers);
    if let Some(values) = values
        && !values.iter().any(|v| label_key(v, normalizers) == actual)
    {
        return Checked { leaf: Leaf::WRONG, note: Some(Note::NotAllowed) };
    }
    Leaf::exact(label_key(x, normalizers) == actual).into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn set(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn free_labels() {
        let cases = [
            ("paid", "PAID", Leaf::MATCH),
            ("paid", "  Paid\n", Leaf::MATCH),
            ("Überfällig", "ÜBERFÄLLIG", Leaf::MATCH),
            ("paid", "unpaid", Leaf::WRONG),
            ("paid", "paid.", Leaf::WRONG),
            ("", "", Leaf::MATCH),
            ("", " ", Leaf::MATCH),
        ];
        for (e, a, want) in cases {
            assert_eq!(compare(&json!(e), &json!(a), &[], None).leaf, want, "{e:?} {a:?}");
        }
        let n = [Normalizer::StripPunctuation];
        assert_eq!(compare(&json!("paid"), &json!("paid."), &n, None).leaf, Leaf::MATCH);
    }

    #[test]
    fn allowed_values() {
        let allowed = set(&["Paid", "Unpaid", "Overdue"]);
        let v = Some(allowed.as_slice());
        assert_eq!(compare(&json!("paid"), &json!(" PAID "), &[], v), Leaf::MATCH.into());
        assert_eq!(compare(&json!("paid"), &json!("overdue"), &[], v), Leaf::WRONG.into());
        let outside = Checked { leaf: Leaf::WRONG, note: Some(Note::NotAllowed) };
        assert_eq!(compare(&json!("pending"), &json!("pending"), &[], v), outside);
        assert_eq!(compare(&json!("paid"), &json!("paid!"), &[], v), outside);
        let n = [Normalizer::StripPunctuation];
        assert_eq!(compare(&json!("paid"), &json!("paid!"), &n, v), Leaf::MATCH.into());
        assert_eq!(compare(&json!(1), &json!(1), &[], v), outside);
        assert_eq!(compare(&json!(1), &json!(2), &[], v).leaf, Leaf::WRONG);
        assert_eq!(compare(&json!(1), &json!("1"), &[], v).leaf, Leaf::TYPE);
        let empty: Vec<String> = Vec::new();
        assert_eq!(compare(&json!("a"), &json!("a"), &[], Some(&empty)), outside);
    }

    #[test]
    fn other_types_without_values() {
        assert_eq!(compare(&json!(true), &json!(true), &[], None).leaf, Leaf::MATCH);
        assert_eq!(compare(&json!(true), &json!("true"), &[], None).leaf, Leaf::TYPE);
    }
}
