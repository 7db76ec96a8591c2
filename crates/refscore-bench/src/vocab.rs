//! Word lists the invoice generator draws from: vendors, places, products,
//! payment terms and notes, a share of them non-ASCII.

/// A country: ISO code, currency, VAT rate, tax id prefix and cities with
/// their streets. Every postal code the generator makes for it is numeric.
#[derive(Debug, Clone, Copy)]
pub struct Country {
    /// ISO 3166 alpha-2 code.
    pub code: &'static str,
    /// ISO 4217 currency.
    pub currency: &'static str,
    /// VAT / sales tax rate.
    pub tax_rate: f64,
    /// Prefix of the vendor tax id.
    pub tax_prefix: &'static str,
    /// Digits in a postal code.
    pub postal_digits: u32,
    /// Cities.
    pub cities: &'static [&'static str],
    /// Street names.
    pub streets: &'static [&'static str],
}

/// Countries invoices come from.
pub const COUNTRIES: &[Country] = &[
    Country {
        code: "DE",
        currency: "EUR",
        tax_rate: 0.19,
        tax_prefix: "DE",
        postal_digits: 5,
        cities: &["München", "Berlin", "Köln", "Düsseldorf", "Hamburg", "Nürnberg"],
        streets: &["Königstraße", "Hauptstraße", "Müllerweg", "Lindenallee", "Schloßplatz"],
    },
    Country {
        code: "FR",
        currency: "EUR",
        tax_rate: 0.20,
        tax_prefix: "FR",
        postal_digits: 5,
        cities: &["Paris", "Lyon", "Orléans", "Besançon", "Nîmes", "Marseille"],
        streets: &["rue de la Paix", "avenue des Champs-Élysées", "boulevard Haussmann"],
    },
    Country {
        code: "ES",
        currency: "EUR",
        tax_rate: 0.21,
        tax_prefix: "ES",
        postal_digits: 5,
        cities: &["Madrid", "A Coruña", "Logroño", "Málaga", "Cádiz"],
        streets: &["Calle de Alcalá", "Avenida de la Peñuela", "Plaza Mayor"],
    },
    Country {
        code: "US",
        currency: "USD",
        tax_rate: 0.0825,
        tax_prefix: "EIN ",
        postal_digits: 5,
        cities: &["Austin", "Seattle", "Denver", "Portland", "Boston", "Chicago"],
        streets: &["Main Street", "Oak Avenue", "Pine Road", "Market Street", "5th Avenue"],
    },
    Country {
        code: "IT",
        currency: "EUR",
        tax_rate: 0.22,
        tax_prefix: "IT",
        postal_digits: 5,
        cities: &["Milano", "Torino", "Forlì", "Cantù", "Roma"],
        streets: &["Via Roma", "Corso Venezia", "Piazza del Duomo", "Via Garibaldi"],
    },
    Country {
        code: "CN",
        currency: "CNY",
        tax_rate: 0.13,
        tax_prefix: "91",
        postal_digits: 6,
        cities: &["深圳", "上海", "北京", "广州"],
        streets: &["华强北路", "南京东路", "长安街", "天河路"],
    },
    Country {
        code: "CH",
        currency: "CHF",
        tax_rate: 0.081,
        tax_prefix: "CHE-",
        postal_digits: 4,
        cities: &["Zürich", "Genève", "Bern", "Neuchâtel"],
        streets: &["Bahnhofstrasse", "Rue du Rhône", "Seefeldstrasse"],
    },
];

/// First words of company names.
pub const COMPANY_STEMS: &[&str] = &[
    "Acme",
    "Northwind",
    "Müller & Söhne",
    "Café Élégance",
    "Peñarol Suministros",
    "Blue Harbor",
    "Zhongshan 电子",
    "Brightline",
    "Nordlicht",
    "Ferretti Fratelli",
    "Summit Office",
    "Øresund Logistics",
    "Grünwald Technik",
    "Pacific Rim",
    "Atelier Renée",
    "Ironbridge",
];

/// Company name endings.
pub const COMPANY_SUFFIXES: &[&str] =
    &["GmbH", "SARL", "S.A.", "S.r.l.", "Inc.", "LLC", "Ltd.", "AG", "有限公司", "Co."];

/// Product families: SKU prefix, description stem and unit price range.
pub const PRODUCTS: &[(&str, &str, f64, f64)] = &[
    ("BLT", "Stainless steel hex bolt", 0.05, 2.5),
    ("CBL", "Cat6 patch cable", 1.5, 25.0),
    ("PPR", "A4 copy paper, 500 sheets", 3.0, 9.0),
    ("TNR", "Toner cartridge", 35.0, 180.0),
    ("SVC", "Consulting services (hours)", 60.0, 240.0),
    ("LIC", "Software licence, annual", 99.0, 1_200.0),
    ("CHR", "Ergonomic office chair", 120.0, 650.0),
    ("MON", "27\" monitor", 140.0, 520.0),
    ("CAF", "Café en grains, 1 kg", 12.0, 38.0),
    ("FRT", "Freight & handling", 15.0, 300.0),
    ("GLV", "Nitrile gloves, box of 100", 4.0, 14.0),
    ("LED", "LED panel 60×60", 18.0, 70.0),
    ("DRL", "Cordless drill 18V", 55.0, 240.0),
    ("TEA", "Thé vert bio, 250 g", 6.0, 19.0),
    ("CUP", "纸杯 paper cups (1000)", 9.0, 30.0),
    ("SSD", "NVMe SSD 1 TB", 45.0, 160.0),
];

/// Description qualifiers appended to product stems.
pub const QUALIFIERS: &[&str] = &[
    "M8 x 40mm",
    "2 m",
    "blue",
    "black",
    "Größe L",
    "tamaño M",
    "refurbished",
    "rush order",
    "Q3",
    "per site",
    "niño",
    "",
];

/// Payment terms.
pub const PAYMENT_TERMS: &[&str] = &[
    "Net 30",
    "Net 14",
    "Net 60",
    "Due on receipt",
    "2/10 Net 30",
    "Zahlbar innerhalb von 14 Tagen ohne Abzug",
    "Paiement à 30 jours fin de mois",
    "Pago a 60 días",
    "30天内付款",
];

/// Sentences of free-text notes.
pub const NOTES: &[&str] = &[
    "Thank you for your business!",
    "Please include the invoice number with your payment.",
    "Merci de votre confiance — à bientôt.",
    "Vielen Dank für Ihren Auftrag. Bitte überweisen Sie den Betrag fristgerecht.",
    "Gracias por su compra, señor Núñez.",
    "Goods remain our property until paid in full.",
    "感谢您的惠顾，请按时付款。",
    "Delivered to loading dock B 🚚",
    "Late payments incur 1.5% interest per month.",
    "Questions? Write to billing — we answer within 24 h 🙂",
    "Reverse charge: VAT to be accounted for by the recipient.",
    "Partial delivery; remaining items ship next week.",
    "Crème brûlée catering for the Zürich offsite 🎉",
];

/// Month names for written dates.
pub const MONTHS: &[&str] = &[
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// Keys a model adds that the reference does not have, with a value.
pub const EXTRA_KEYS: &[(&str, &str)] = &[
    ("confidence", "0.93"),
    ("invoice_type", "\"commercial\""),
    ("page", "1"),
    ("discount", "0.0"),
    ("unit", "\"pcs\""),
    ("iban", "\"DE89 3704 0044 0532 0130 00\""),
    ("language", "\"en\""),
    ("shipping_method", "\"ground\""),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_usable() {
        assert!(COUNTRIES.iter().all(|c| !c.cities.is_empty() && !c.streets.is_empty()));
        assert!(PRODUCTS.iter().all(|p| p.2 > 0.0 && p.2 < p.3));
        assert_eq!(MONTHS.len(), 12);
        for (_, v) in EXTRA_KEYS {
            assert!(serde_json::from_str::<serde_json::Value>(v).is_ok(), "{v}");
        }
        assert!(NOTES.iter().any(|n| !n.is_ascii()));
    }
}
