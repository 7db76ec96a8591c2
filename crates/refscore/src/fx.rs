//! The crate's fast hash for in-memory maps: the multiply-rotate scheme of
//! Firefox's FxHash, with the high half of each product folded into its
//! low half for the words of a text. Not for anything an attacker could
//! flood: keys are the engine's own (node ids, paths, folded values); a
//! collision costs an equality check, or (for an identifying field's key)
//! the identification of the two elements.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A hash map with [`Fx`].
pub(crate) type FxHashMap<K, V> = HashMap<K, V, BuildHasherDefault<Fx>>;

/// A fast, non-cryptographic hasher.
#[derive(Default, Clone, Copy)]
pub(crate) struct Fx(u64);

impl Hasher for Fx {
    // `engine::identity::plain_key` hashes folded text eight bytes at a
    // time the way this does (little-endian words, then the bytes left):
    // a change here must be made there too (its property tests compare
    // the two).
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(c);
            self.add_text(u64::from_le_bytes(word));
        }
        for &b in chunks.remainder() {
            self.add_text(u64::from(b));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        // The product's low bits depend only on the low bits of what was
        // added, and hash tables index by the low bits: whole numbers as
        // f64 bits (all low bits zero) fell into one bucket, so an array
        // of 100,000 of them took seconds to index. The high bits are
        // well mixed: bring them down.
        self.0.rotate_left(26)
    }
}

impl Fx {
    fn add(&mut self, word: u64) {
        self.0 = Self::mixed(self.0, word);
    }

    fn mixed(state: u64, word: u64) -> u64 {
        (state.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95)
    }

    /// Adds one word (eight bytes, or one byte at the end) of a text, as
    /// [`Hasher::write`] does. A product's bits depend only on the bits
    /// below them: without the fold of its high half into its low half,
    /// two words differing in their top byte left states differing in a
    /// few bits, which the next byte added could cancel. Identifiers
    /// differing in two digits collided so (`SKU-00414` with `SKU-00499`:
    /// 27,530 of 200,000 such keys), and an identifying field whose key
    /// collides identifies nothing. Whole words (numbers, node ids) are
    /// added without the fold: a collision there costs an equality check.
    pub(crate) fn add_text(&mut self, word: u64) {
        let x = Self::mixed(self.0, word);
        self.0 = x ^ (x >> 32);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::Hash;

    fn hash(x: impl Hash) -> u64 {
        let mut h = Fx::default();
        x.hash(&mut h);
        h.finish()
    }

    #[test]
    fn keys_differing_only_in_high_bits_spread_over_the_low_bits() {
        // Whole numbers as f64 bits differ only in their high bits; so do
        // the hashes of such hashes, which the pairing's index keys by.
        let low: std::collections::HashSet<u64> =
            (0..4096u32).map(|i| hash(hash(f64::from(i).to_bits())) & 0xFFF).collect();
        assert!(low.len() > 2_000, "only {} distinct low 12 bits of 4096", low.len());
    }

    /// Identifiers of the usual shapes, numbered in sequence, hash apart
    /// (before the fold, hashed as here, 26,968 of the first kind
    /// collided, 69,704 of the second, 47,200 of the third; as keys of an
    /// identifying field, with its name before them, the counts differ:
    /// 27,530 under `sku` for the first).
    #[test]
    fn numbered_identifiers_do_not_collide() {
        let shapes: [fn(u32) -> String; 5] = [
            |i| format!("SKU-{i:05}"),
            |i| format!("Widget model {i}"),
            |i| format!("{i:012}"),
            |i| format!("user{i}@example.com"),
            |i| format!("00000000-0000-0000-0000-{i:012}"),
        ];
        for (n, shape) in shapes.iter().enumerate() {
            let mut seen = std::collections::HashSet::new();
            for i in 0..200_000 {
                let mut h = Fx::default();
                h.write(shape(i).as_bytes());
                assert!(seen.insert(h.finish()), "shape {n}: {} collides", shape(i));
            }
        }
    }

    #[test]
    fn distinct_keys_hash_apart_and_maps_work() {
        assert_eq!(hash("abc"), hash("abc"));
        assert_ne!(hash("abc"), hash("abd"));
        assert_ne!(hash(("ab", "c")), hash(("a", "bc")));
        assert_ne!(hash("0123456789"), hash("0123456788"));
        let mut m: FxHashMap<String, u32> = FxHashMap::default();
        m.insert("x".into(), 1);
        assert_eq!(m.get("x"), Some(&1));
    }
}
