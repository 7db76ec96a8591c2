//! Number comparisons that never overflow and never return NaN.

use serde_json::Number;
#[cfg(test)]
use serde_json::Value;

/// The number a 32-bit float was written as: the shortest decimal that
/// reads back as it, as a double (`0.1_f32` is 0.1, where widening gives
/// 0.10000000149011612). A FLOAT column (Parquet, Arrow, numpy's
/// `float32`) holds what its writer meant in fewer digits than a double
/// has: compared with a reference written `0.1`, it must be 0.1.
pub fn f32_as_written(x: f32) -> f64 {
    x.to_string().parse().unwrap_or_else(|_| f64::from(x))
}

/// A JSON number as f64 (integers beyond 2^53 lose precision).
pub fn to_f64(n: &Number) -> f64 {
    n.as_f64().unwrap_or(0.0)
}

/// Whether a number was written as an integer that fits i64 or u64.
pub fn is_int(n: &Number) -> bool {
    n.is_i64() || n.is_u64()
}

/// An integer number as i128, when it is one.
pub fn as_i128(n: &Number) -> Option<i128> {
    n.as_i64().map(i128::from).or_else(|| n.as_u64().map(i128::from))
}

/// Exact numeric equality, as Python compares `int`, `float` and `bool`:
/// integers compare exactly, an integer equals a float only when the float
/// is integral and has the same value, `-0.0 == 0`.
pub fn exact_eq(a: &Number, b: &Number) -> bool {
    match (as_i128(a), as_i128(b)) {
        (Some(x), Some(y)) => x == y,
        (Some(i), None) | (None, Some(i)) => {
            let f = if as_i128(a).is_some() { to_f64(b) } else { to_f64(a) };
            float_equals_int(f, i)
        }
        (None, None) => to_f64(a) == to_f64(b),
    }
}

/// Whether the float `f` is exactly the integer `i`: integral, and within
/// the range where converting it to `i128` is exact (±1.7e38).
pub(crate) fn float_equals_int(f: f64, i: i128) -> bool {
    f.is_finite() && f.fract() == 0.0 && f.abs() < 1.7e38 && f as i128 == i
}

/// Numeric view of a value for metrics that treat booleans as 0 and 1.
pub fn bool_or_number(v: crate::tree::Node<'_>) -> Option<f64> {
    match (v.as_bool(), v.as_number()) {
        (Some(b), _) => Some(if b { 1.0 } else { 0.0 }),
        (_, Some(n)) => Some(to_f64(n)),
        _ => None,
    }
}

/// Symmetric normalised similarity `1 − |x − y| / (|x| + |y|)`, 1 when both
/// are zero. Computed directly (so subnormal numbers keep their exact
/// ratio), and on halves only when `|x| + |y|` overflows: it never returns
/// NaN and never mistakes an overflow for a match.
pub fn normalized_difference(x: f64, y: f64) -> f64 {
    if x == 0.0 && y == 0.0 {
        return 1.0;
    }
    let denom = x.abs() + y.abs();
    if denom.is_finite() {
        return clamp01(1.0 - (x - y).abs() / denom);
    }
    let (hx, hy) = (x / 2.0, y / 2.0);
    let denom = hx.abs() + hy.abs();
    if !denom.is_finite() {
        return if x == y { 1.0 } else { 0.0 };
    }
    clamp01(1.0 - (hx - hy).abs() / denom)
}

/// Similarity relative to the expected value: `1 − |e − a| / |e|`, clamped
/// to [0, 1]; when `|e| ≤ 1e-12`, 1 if `|a| ≤ 1e-12` else 0. An overflowing
/// difference means no credit, as in the original.
pub fn relative_to_expected(expected: f64, actual: f64) -> f64 {
    const ZERO: f64 = 1e-12;
    if expected.abs() <= ZERO {
        return if actual.abs() <= ZERO { 1.0 } else { 0.0 };
    }
    clamp01(1.0 - (expected - actual).abs() / expected.abs())
}

/// Whether `|a − b| ≤ tol`, without overflow.
pub fn within_abs(a: f64, b: f64, tol: f64) -> bool {
    let d = (a / 2.0 - b / 2.0).abs();
    d.is_finite() && d <= tol / 2.0
}

/// Clamps to [0, 1], mapping NaN to 0.
pub fn clamp01(x: f64) -> f64 {
    if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) }
}

/// Maps NaN and infinities to a finite value so that no score is ever
/// non-finite: NaN becomes 0, infinities clamp to the largest finite f64.
pub fn finite(x: f64) -> f64 {
    if x.is_nan() {
        0.0
    } else if x.is_infinite() {
        if x > 0.0 { f64::MAX } else { f64::MIN }
    } else {
        x
    }
}

/// Appends an integer in decimal, as `format!("{n}")` and `serde_json`
/// write it.
pub(crate) fn push_integer(out: &mut String, n: impl itoa::Integer) {
    out.push_str(itoa::Buffer::new().format(n));
}

/// Appends `x` with three decimals, exactly as `format!("{x:.3}")` writes
/// it (the exact binary value rounded half to even), without the general
/// float formatter's cost: scores, precisions and recalls are printed so
/// on every row.
pub fn push_fixed3(out: &mut String, x: f64) {
    use std::fmt::Write;
    // Below 8e12 the value is a 53-bit mantissa over at least 2^10, so the
    // arithmetic below needs no left shift; larger values (printed with
    // their integer digits, never in practice) take the general writer.
    if !x.is_finite() || x.abs() >= 8.0e12 {
        let _ = write!(out, "{x:.3}");
        return;
    }
    // |x| = mantissa * 2^-shift exactly, with shift at least 10 under the
    // bound; thousandths = mantissa * 1000 / 2^shift, rounded half to even.
    let bits = x.to_bits();
    let exponent = (bits >> 52) & 0x7ff;
    let fraction = bits & ((1 << 52) - 1);
    let (mantissa, shift) =
        if exponent == 0 { (fraction, 1074) } else { (fraction | (1 << 52), 1075 - exponent) };
    let scaled = u128::from(mantissa) * 1000;
    let thousandths: u128 = if shift >= 127 {
        // Below 2^-74: far under half a thousandth.
        0
    } else {
        let (q, rem, half) = (scaled >> shift, scaled & ((1 << shift) - 1), 1u128 << (shift - 1));
        if rem > half || (rem == half && q & 1 == 1) { q + 1 } else { q }
    };
    if x.is_sign_negative() {
        out.push('-');
    }
    // At most 8e15 thousandths under the bound: the integer part, the
    // point, three decimals.
    let n = u64::try_from(thousandths).unwrap_or(u64::MAX);
    push_integer(out, n / 1000);
    out.push('.');
    let decimals = n % 1000;
    for below in [100, 10] {
        if decimals < below {
            out.push('0');
        }
    }
    push_integer(out, decimals);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fixed3(x: f64) -> String {
        let mut s = String::new();
        push_fixed3(&mut s, x);
        s
    }

    #[test]
    fn integers_are_written_as_format_writes_them() {
        for n in [0u64, 1, 9, 10, 99, 100, 12_345, u64::from(u32::MAX), u64::MAX] {
            let mut out = String::from("x");
            push_integer(&mut out, n);
            assert_eq!(out, format!("x{n}"));
        }
        for n in [i64::MIN, -1, 0, 7, i64::MAX] {
            let mut out = String::new();
            push_integer(&mut out, n);
            assert_eq!(out, n.to_string());
        }
    }

    #[test]
    fn a_32_bit_float_is_the_decimal_it_was_written_as() {
        for (x, want) in [
            (0.1_f32, 0.1),
            (-2.88, -2.88),
            (12.5, 12.5),
            (1e-7, 1e-7),
            (3.4028235e38, 3.4028235e38),
            (16_777_217.0, 16_777_216.0),
            (0.0, 0.0),
        ] {
            assert_eq!(f32_as_written(x), want, "{x}");
        }
        assert_ne!(f64::from(0.1_f32), 0.1, "widening alone is not enough");
        assert!(f32_as_written(-0.0).is_sign_negative());
        assert!(f32_as_written(f32::NAN).is_nan());
        assert_eq!(f32_as_written(f32::INFINITY), f64::INFINITY);
        // Every float reads back as itself.
        for bits in (0..u32::MAX).step_by(65_537) {
            let x = f32::from_bits(bits);
            if x.is_finite() {
                #[allow(clippy::cast_possible_truncation)]
                let back = f32_as_written(x) as f32;
                assert_eq!(back.to_bits(), x.to_bits(), "{x}");
            }
        }
    }

    #[test]
    fn three_decimals_are_written_as_the_formatter_writes_them() {
        let mut cases = vec![
            0.0,
            -0.0,
            1.0,
            0.5,
            0.0625,
            0.1875,
            0.0005,
            0.0015,
            0.0025,
            0.9995,
            0.96875,
            2.5e-4,
            1e-300,
            5e-324,
            -0.0004,
            -0.0625,
            123.4565,
            7.999_999_999,
            8.0e12,
            -9.1e12,
            1e300,
            f64::MAX,
            f64::MIN_POSITIVE,
            0.1 + 0.2,
            2.0 / 3.0,
        ];
        // Every exact tie below 4 (k/16: a half thousandth when k is odd).
        cases.extend((0..64).map(|k| f64::from(k) / 16.0));
        // Neighbours of ties and of rounding boundaries.
        for k in 0..2000 {
            let t = (f64::from(k) + 0.5) / 1000.0;
            cases.extend([t, t.next_up(), t.next_down()]);
        }
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..20_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let x = f64::from_bits(state);
            if x.is_finite() {
                cases.push(x);
            }
            #[allow(clippy::cast_precision_loss)]
            let unit = (state >> 11) as f64 / (1u64 << 53) as f64;
            // A fraction, and a value anywhere below the bound.
            cases.extend([unit, unit * 8.0e12, -unit * 1000.0]);
        }
        for x in cases {
            assert_eq!(fixed3(x), format!("{x:.3}"), "{x:e}");
        }
    }

    fn n(v: Value) -> Number {
        match v {
            Value::Number(n) => n,
            _ => unreachable!(),
        }
    }

    #[test]
    fn python_equality() {
        assert!(exact_eq(&n(json!(1)), &n(json!(1.0))));
        assert!(exact_eq(&n(json!(-0.0)), &n(json!(0))));
        assert!(!exact_eq(
            &n(json!(9_007_199_254_740_993_u64)),
            &n(json!(9_007_199_254_740_992.0))
        ));
        assert!(exact_eq(&n(json!(u64::MAX)), &n(json!(u64::MAX))));
        assert!(!exact_eq(&n(json!(1.5)), &n(json!(1))));
    }

    #[test]
    fn normalized_difference_is_safe() {
        assert!((normalized_difference(19.0, 39.0) - (1.0 - 20.0 / 58.0)).abs() < 1e-12);
        assert_eq!(normalized_difference(0.0, 0.0), 1.0);
        assert_eq!(normalized_difference(0.001, 0.0), 0.0);
        assert_eq!(normalized_difference(-5.0, 5.0), 0.0);
        let big = normalized_difference(1.7e308, 1e308);
        assert!((big - (1.0 - 0.7 / 2.7)).abs() < 1e-12);
        assert_eq!(normalized_difference(1e308, -1e308), 0.0);
        assert_eq!(normalized_difference(f64::MAX, f64::MAX), 1.0);
        assert_eq!(normalized_difference(f64::MAX, -f64::MAX), 0.0);
        // Subnormals keep their exact ratio (halving would round 5e-324 away).
        assert!((normalized_difference(1e-323, 5e-324) - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(normalized_difference(5e-324, 0.0), 0.0);
    }

    #[test]
    fn relative_is_safe() {
        assert_eq!(relative_to_expected(1.0, 2.0), 0.0);
        assert_eq!(relative_to_expected(2.0, 1.0), 0.5);
        assert_eq!(relative_to_expected(5e-14, 1e-13), 1.0);
        assert!((relative_to_expected(1.7e308, 1e308) - (1.0 - 0.7 / 1.7)).abs() < 1e-12);
        assert_eq!(relative_to_expected(1e308, -1e308), 0.0);
        assert_eq!(relative_to_expected(-f64::MAX, f64::MAX), 0.0);
    }

    #[test]
    fn abs_tolerance() {
        assert!(within_abs(100.004, 100.0, 0.01));
        assert!(!within_abs(2.02, 2.0, 0.01));
        assert!(!within_abs(1e308, -1e308, 0.01));
    }

    #[test]
    fn finite_guards() {
        assert_eq!(finite(f64::NAN), 0.0);
        assert_eq!(finite(f64::INFINITY), f64::MAX);
        assert_eq!(finite(0.25), 0.25);
    }
}
