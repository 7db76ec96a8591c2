//! The keys of a tree of field path segments, one after another in one
//! string: a segment holds its key's range, or `None` for `[*]`. One
//! allocation for a tree's keys, not one per key.

/// A key's place in [`SegKeys`]: start and length.
pub(crate) type KeyRange = (u32, u32);

/// Keys of path segments, one after another.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct SegKeys(String);

impl SegKeys {
    /// Room for `bytes` bytes of keys.
    pub(crate) fn with_capacity(bytes: usize) -> Self {
        SegKeys(String::with_capacity(bytes))
    }

    /// Adds a segment's key (`None` for `[*]`); its range. The trees
    /// holding the ranges keep their keys under 4 GiB (past it, the
    /// range saturates and names no key).
    pub(crate) fn push(&mut self, seg: Option<&str>) -> Option<KeyRange> {
        seg.map(|k| {
            let start = self.0.len();
            self.0.push_str(k);
            let u32_of = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
            (u32_of(start), u32_of(k.len()))
        })
    }

    /// The key of a range from [`SegKeys::push`]; `None` for `[*]`.
    pub(crate) fn get(&self, key: Option<KeyRange>) -> Option<&str> {
        let (start, len) = key?;
        self.0.get(start as usize..(start as usize).saturating_add(len as usize))
    }

    /// The bytes of keys held.
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_found_by_their_range() {
        let mut k = SegKeys::with_capacity(4);
        let a = k.push(Some("ab"));
        let wild = k.push(None);
        let e = k.push(Some(""));
        let c = k.push(Some("é"));
        assert_eq!(
            (k.get(a), k.get(wild), k.get(e), k.get(c)),
            (Some("ab"), None, Some(""), Some("é"))
        );
        assert_eq!(k.len(), 4);
        assert_eq!(k.get(Some((u32::MAX, 1))), None);
    }
}
