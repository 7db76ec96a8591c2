//! Property tests over every comparator: scores stay in range, outcomes
//! agree with scores, values equal themselves, parsers round-trip.

use proptest::prelude::*;
use serde_json::{Value, json};

use super::*;
use crate::detail::Outcome;

fn comparators() -> Vec<Comparator> {
    let mut all: Vec<Comparator> =
        COMPARATOR_TYPES.iter().map(|k| Comparator::from_spec(&json!(k)).unwrap()).collect();
    all.extend([
        Comparator::Numeric { abs_tol: 0.5, rel_tol: 0.01, partial: true },
        Comparator::String { threshold: Some(0.7) },
        Comparator::Date { day_month: DayMonth::DayFirst },
        Comparator::Date { day_month: DayMonth::MonthFirst },
        Comparator::NumberString { decimal: ',' },
    ]);
    all
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|i| json!(i)),
        any::<u64>().prop_map(|u| json!(u)),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(|f| json!(f)),
        (-1000.0..1000.0f64).prop_map(|f| json!(f)),
        any::<String>().prop_map(Value::String),
        "[ -~]{0,12}".prop_map(Value::String),
        "[(]?[-+$€]?[0-9]{1,3}([,. ][0-9]{3}){0,3}([.,][0-9]{0,3})?[%)]?".prop_map(Value::String),
        "[0-9]{1,4}[-/.][0-9]{1,2}[-/.][0-9]{1,4}(T[0-9]{2}:[0-9]{2}(:[0-9]{2})?(Z|[+-][0-9]{2}:[0-9]{2})?)?"
            .prop_map(Value::String),
        "(Mon|Tue, )?([0-9]{1,2}(st|th)? )?(Jan|March|Sept|Foo)[.,]? [0-9]{1,2},? [0-9]{4}"
            .prop_map(Value::String),
    ]
}

fn normalizers() -> impl Strategy<Value = Vec<Normalizer>> {
    proptest::collection::vec(proptest::sample::select(ALL_NORMALIZERS.to_vec()), 0..4)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn leaves_are_well_formed(e in scalar(), a in scalar(), n in normalizers(), empty in any::<bool>()) {
        let nulls = NullPolicy { absent_is_null: false, empty_string_is_null: empty };
        for c in comparators() {
            let leaf = c.compare_with(&e, &a, &n, &nulls);
            prop_assert!((0.0..=1.0).contains(&leaf.score), "{:?} {} {} {:?}", c, e, a, leaf);
            let want = if leaf.score == 1.0 {
                vec![Outcome::Match]
            } else if leaf.score > 0.0 {
                vec![Outcome::Partial]
            } else {
                vec![Outcome::ValueMismatch, Outcome::TypeMismatch]
            };
            prop_assert!(want.contains(&leaf.outcome), "{:?} {} {} {:?}", c, e, a, leaf);
        }
    }

    #[test]
    fn values_equal_themselves(v in scalar(), n in normalizers()) {
        for c in comparators() {
            prop_assert_eq!(c.compare(&v, &v, &n), crate::engine::Leaf::MATCH, "{:?} {}", c, v);
        }
    }

    #[test]
    fn symmetric_comparators(e in scalar(), a in scalar(), n in normalizers()) {
        let symmetric = [
            Comparator::Exact,
            Comparator::String { threshold: None },
            Comparator::String { threshold: Some(0.7) },
            Comparator::NumberString { decimal: '.' },
            Comparator::Enum { values: None },
        ];
        for c in symmetric {
            prop_assert_eq!(c.compare(&e, &a, &n), c.compare(&a, &e, &n), "{:?}", c);
        }
    }

    #[test]
    fn idempotent_normalizers(s in any::<String>()) {
        use Normalizer::*;
        for n in [Nfkc, Trim, CollapseWhitespace, StripPunctuation] {
            let once = normalize(&s, &[n]).into_owned();
            prop_assert_eq!(normalize(&once, &[n]).into_owned(), once.clone(), "{}", n);
        }
    }

    #[test]
    fn grouped_amounts_round_trip(units in 0u64..10_000_000_000, cents in 0u32..100, neg in any::<bool>()) {
        let mut grouped = String::new();
        let digits = units.to_string();
        for (i, ch) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                grouped.push(',');
            }
            grouped.push(ch);
        }
        let text = if neg { format!("(${grouped}.{cents:02})") } else { format!("${grouped}.{cents:02}") };
        let plain: f64 = format!("{}{units}.{cents:02}", if neg { "-" } else { "" }).parse().unwrap();
        let amount = parse_number_string(&text, '.').unwrap();
        prop_assert_eq!(amount.value, plain, "{}", text);
        let european = text.replace(',', " ").replacen('.', ",", 1);
        prop_assert_eq!(parse_number_string(&european, ',').map(|a| a.value), Some(plain), "{}", european);
    }

    #[test]
    fn written_dates_round_trip(y in 1u32..=9999, m in 1u32..=12, d in 1u32..=31) {
        let Some(date) = CalendarDate::new(y, m, d) else { return Ok(()) };
        const NAMES: [&str; 12] = ["January", "February", "March", "April", "May", "June", "July",
            "August", "September", "October", "November", "December"];
        let name = NAMES[usize::try_from(m - 1).unwrap()];
        let forms = [
            format!("{y:04}-{m:02}-{d:02}"),
            format!("{y:04}/{m}/{d}"),
            format!("{d}.{m}.{y:04}"),
            format!("{name} {d}, {y:04}"),
            format!("{d} {} {y:04}", &name[..3]),
            format!("{y:04}-{m:02}-{d:02}T12:00:00Z"),
        ];
        for s in forms {
            prop_assert_eq!(parse_date(&s, DayMonth::Reject).map(|p| p.date), Ok(date), "{}", s);
        }
        let dm = format!("{d:02}/{m:02}/{y:04}");
        prop_assert_eq!(parse_date(&dm, DayMonth::DayFirst).map(|p| p.date), Ok(date), "{}", dm);
    }
}
