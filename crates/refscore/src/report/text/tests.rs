//! Tests of the shared text helpers.

use super::*;

/// Strings a Markdown renderer would otherwise turn into markup, or that
/// hide characters: each must come back as written.
const HOSTILE: &[&str] = &[
    "$.items[*].tags[*]",
    "a*b*c",
    "**bold** __bold__ _it_",
    "![t](https://example.invalid/pixel.png)",
    "[click](https://evil.example)",
    "<https://evil.example>",
    "a\\|b",
    "a|b",
    "`code` ``a`b``",
    "~~struck~~",
    "<img src=x onerror=alert(1)>",
    "&amp; &#42; &lt;",
    ":tada: $x^2$",
    "\\*not emphasis\\*",
    "# heading - item > quote",
    "user\u{202e}gnp.exe",
    "x\u{0}y\u{1b}[31mRED\u{7}\u{9b}",
    "line\nbreak\ttab\rcr",
    "bidi \u{2066}isolate\u{2069} \u{200f}mark",
];

/// What a Markdown renderer shows for text [`md_text`] wrote: its
/// character references decoded (entities are decoded after parsing, so
/// the text holds no markup when nothing but entities and plain
/// characters are left).
fn decode(md: &str) -> String {
    let mut out = String::new();
    let mut rest = md;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        let end = rest[i..].find(';').expect("a reference ends with ;") + i;
        let name = &rest[i + 1..end];
        out.push(match name {
            "lt" => '<',
            "gt" => '>',
            "amp" => '&',
            n => char::from_u32(n.strip_prefix('#').unwrap().parse().unwrap()).unwrap(),
        });
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    out
}

#[test]
fn markdown_text_shows_as_written() {
    for &text in HOSTILE {
        let md = md_text(text, 1000);
        // Nothing a Markdown parser acts on is left as it is ...
        // (a backslash escapes only the punctuation after it).
        let markup: Vec<char> =
            md.chars().filter(|c| "*_~[]!`|$:<>".contains(*c) || hidden(*c)).collect();
        assert!(markup.is_empty(), "{text:?} → {md:?} keeps {markup:?}");
        let escapes = md.match_indices('\\').map(|(i, _)| md[i + 1..].chars().next());
        assert!(escapes.clone().all(|c| c.is_some_and(|c| c.is_ascii_alphabetic())), "{md:?}");
        // ... and what shows is the text, hidden characters as escapes.
        assert_eq!(decode(&md), visible(text), "{text:?} → {md:?}");
    }
    assert_eq!(md_text("abcdef", 3), "abc…");
    assert_eq!(md_text("a*b", 1), "a…");
}

/// What GitHub-flavoured Markdown shows for a code span [`md_code`]
/// wrote (in a table cell when `table`): the text between the fences, one
/// space off each side when both have one (and it is not all spaces), and
/// in a table cell `\|` read as `|` before the span is.
fn code_span(md: &str, table: bool) -> String {
    if md == "<code></code>" {
        return String::new();
    }
    let fence = md.chars().take_while(|&c| c == '`').count();
    assert!(fence > 0 && md.ends_with(&"`".repeat(fence)), "{md:?}");
    let inner = &md[fence..md.len() - fence];
    assert!(!inner.contains(&"`".repeat(fence)), "a fence inside: {md:?}");
    let inner = if table { inner.replace("\\|", "|") } else { inner.to_owned() };
    let all_spaces = inner.bytes().all(|b| b == b' ');
    if !all_spaces && inner.len() >= 2 && inner.starts_with(' ') && inner.ends_with(' ') {
        return inner[1..inner.len() - 1].to_owned();
    }
    inner
}

#[test]
fn code_spans_show_as_written() {
    let more: &[&str] = &["", " ", "  ", " a", "a ", "`", "``a``", "a``b`c", "` x `", "|", "\\|"];
    for &text in HOSTILE.iter().chain(more) {
        for table in [false, true] {
            let md = md_code(text, 1000, table);
            assert!(!md.chars().any(hidden), "{text:?} → {md:?}");
            if table {
                // No pipe that would end the cell: each is escaped.
                let bare = md.match_indices('|').filter(|(i, _)| !md[..*i].ends_with('\\'));
                assert_eq!(bare.count(), 0, "{text:?} → {md:?}");
            }
            assert_eq!(code_span(&md, table), visible(text), "{text:?} → {md:?}");
        }
    }
    assert_eq!(md_code("$.a[*]", 100, true), "`$.a[*]`");
    assert_eq!(md_code("abcdef", 3, false), "`abc…`");
}

#[test]
fn hidden_characters_show_as_escapes() {
    let cases = [
        ("plain é 日本", "plain é 日本"),
        ("\u{1b}[31mRED\u{7}\u{9b}", "\\u{1b}[31mRED\\u{7}\\u{9b}"),
        ("a\tb\nc\rd\u{0}", "a\\tb\\nc\\rd\\u{0}"),
        ("id\u{202e}cod.exe", "id\\u{202e}cod.exe"),
        (
            "\u{200e}\u{200f}\u{202a}\u{2066}\u{2069}",
            "\\u{200e}\\u{200f}\\u{202a}\\u{2066}\\u{2069}",
        ),
        ("\u{fffe}\u{ffff}\u{fffd}", "\\u{fffe}\\u{ffff}\u{fffd}"),
        ("line\u{2028}para\u{2029}end", "line\\u{2028}para\\u{2029}end"),
    ];
    for (text, shown) in cases {
        assert_eq!(visible(text), shown, "{text:?}");
    }
}

#[test]
fn numbers_and_changes() {
    assert_eq!(num(2.0), "2");
    assert_eq!(num(0.91666), "0.917");
    assert_eq!(opt(None), "—");
    assert_eq!(percent(0.8125), "81.2%");
    assert_eq!(change(Some(0.0125)), "↑ +0.013");
    assert_eq!(change(Some(-2.0)), "↓ -2");
    assert_eq!(change(Some(0.0)), "→ 0");
    assert_eq!(change(None), "—");
}

#[test]
fn accuracy_changes_are_points() {
    for (c, shown) in [
        (Some(-1.0), "↓ -100.0 pts"),
        (Some(-0.75), "↓ -75.0 pts"),
        (Some(0.125), "↑ +12.5 pts"),
        (None, "—"),
    ] {
        assert_eq!(points(c), shown);
    }
}

#[test]
fn gate_checks_read_as_words() {
    use crate::history::RegressionStatus as S;
    let check = |required: f64, actual: Option<f64>, status: Option<S>| GateCheck {
        name: String::from("c"),
        op: if status.is_some() { "<=" } else { ">=" },
        required,
        actual,
        passed: false,
        status,
    };
    let cases = [
        (check(2.0, Some(3.0), Some(S::Critical)), "not critical", "critical"),
        (check(1.0, Some(2.0), Some(S::Warning)), "clean or new", "warning"),
        (check(2.0, Some(1.0), Some(S::Clean)), "not critical", "clean"),
        (check(0.9, Some(0.5), None), "≥ 0.900", "0.500"),
        (check(1.0, None, None), "≥ 1", "—"),
    ];
    for (c, required, actual) in cases {
        assert_eq!((gate_required(&c), gate_actual(&c)), (required.into(), actual.into()));
    }
}

/// Every character of Unicode's `Bidi_Control` property (16.0) shows as
/// its escape, the Arabic letter mark included.
#[test]
fn every_bidi_control_shows_as_its_escape() {
    let controls = ['\u{61c}', '\u{200e}', '\u{200f}']
        .into_iter()
        .chain('\u{202a}'..='\u{202e}')
        .chain('\u{2066}'..='\u{2069}');
    for c in controls {
        let text = format!("a{c}b");
        assert_eq!(visible(&text), format!("a{}b", c.escape_unicode()), "{:04x}", c as u32);
    }
    assert_eq!(visible("a\u{200b}b"), "a\u{200b}b");
}
