//! Currencies written as a symbol or as their ISO 4217 code, for the
//! `auto` comparator: a symbol with one reading (`€`, `£`, `R$`) names the
//! same currency as its code. `$`, `¥`, `kr`, `₩` and the like name more
//! than one currency and are not read.

/// The unambiguous symbols and the code each stands for.
const SYMBOLS: [(&str, &str); 22] = [
    ("€", "EUR"),
    ("£", "GBP"),
    ("₹", "INR"),
    ("₽", "RUB"),
    ("₺", "TRY"),
    ("₪", "ILS"),
    ("₫", "VND"),
    ("₴", "UAH"),
    ("₦", "NGN"),
    ("฿", "THB"),
    ("₸", "KZT"),
    ("₼", "AZN"),
    ("₾", "GEL"),
    ("₲", "PYG"),
    ("₵", "GHS"),
    ("R$", "BRL"),
    ("US$", "USD"),
    ("CA$", "CAD"),
    ("AU$", "AUD"),
    ("NZ$", "NZD"),
    ("HK$", "HKD"),
    ("NT$", "TWD"),
];

/// The code an unambiguous currency symbol stands for.
fn code_of(symbol: &str) -> Option<&'static str> {
    SYMBOLS.iter().find(|(s, _)| *s == symbol).map(|(_, code)| *code)
}

/// Whether `x` and `y`, written differently, name the same currency: one
/// an unambiguous symbol and the other its three-letter code (in any
/// letter case).
pub(super) fn same_currency(x: &str, y: &str) -> bool {
    let names = |symbol: &str, code: &str| {
        code.len() == 3 && code_of(symbol).is_some_and(|c| c.eq_ignore_ascii_case(code))
    };
    names(x, y) || names(y, x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_symbol_with_one_reading_is_its_code() {
        for (x, y) in [("€", "EUR"), ("eur", "€"), ("£", "GBP"), ("R$", "BRL"), ("₹", "INR")]
        {
            assert!(same_currency(x, y), "{x} {y}");
        }
        // Symbols of several currencies, other codes, two symbols, two codes.
        for (x, y) in [
            ("$", "USD"),
            ("¥", "JPY"),
            ("₩", "KRW"),
            ("€", "GBP"),
            ("€", "EURO"),
            ("€", "€"),
            ("EUR", "EUR"),
            ("£", "€"),
        ] {
            assert!(!same_currency(x, y), "{x} {y}");
        }
    }
}
