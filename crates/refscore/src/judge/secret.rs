//! The API key and the other credentials: read from the environment (or
//! the suite's credential headers), sent in their headers, shown nowhere
//! else.

use std::fmt;

use serde_json::Value;

/// Secrets shorter than this are not redacted (a one-letter "secret"
/// would blank every reply).
const SHORTEST_SECRET: usize = 4;

/// The environment variable a judge's key is read from when its
/// `api_key_env` is left out.
pub(crate) const DEFAULT_KEY_ENV: &str = "OPENAI_API_KEY";

/// An API key. Its `Debug` is redacted and it has no `Display` nor
/// `Serialize`, so it cannot reach an output, a log or the cache by
/// accident; [`ApiKey::redact`] removes it from text a server sent back.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Reads the key from environment variable `var` (empty counts as unset).
    pub fn from_env(var: &str) -> Option<ApiKey> {
        std::env::var(var)
            .ok()
            .filter(|k| !k.trim().is_empty())
            .map(|k| ApiKey(k.trim().to_owned()))
    }

    /// The key a judge sends, read from the environment variable its
    /// `api_key_env` names (default `OPENAI_API_KEY`), as a suite's judges
    /// read it when the suite loads:
    ///
    /// * `api_key_env: ""`: no key (a local server);
    /// * `api_key_env` naming a variable that is unset or empty: an error
    ///   naming it;
    /// * the default `OPENAI_API_KEY` (left out or named) unset or empty:
    ///   no key (local servers; a 401 then says the variable was not set);
    /// * a key that cannot be sent in an HTTP header ([`ApiKey::problem`]):
    ///   an error naming the variable, never showing the value.
    ///
    /// # Errors
    /// As above, in words.
    pub fn for_judge(api_key_env: Option<&str>) -> Result<Option<ApiKey>, String> {
        let var = match api_key_env {
            Some("") => return Ok(None),
            Some(var) => var,
            None => DEFAULT_KEY_ENV,
        };
        let Some(key) = ApiKey::from_env(var) else {
            return match api_key_env {
                // Naming the default is the default.
                None | Some(DEFAULT_KEY_ENV) => Ok(None),
                Some(_) => Err(format!(
                    "api_key_env names the environment variable `{var}`, which is not set \
                     (or is empty); set it, or write `api_key_env: \"\"` to send no key"
                )),
            };
        };
        match key.problem() {
            None => Ok(Some(key)),
            Some(what) => Err(format!(
                "the API key in the environment variable `{var}` {what}; it cannot be sent in \
                 an HTTP header (its value is not shown)"
            )),
        }
    }

    /// A key from a value (tests, embedding applications).
    pub fn new(key: impl Into<String>) -> ApiKey {
        ApiKey(key.into())
    }

    /// What makes the key unusable in an `Authorization` header, in words
    /// that never show it: a line break (a key file of two lines), another
    /// control character, a space, or a character that is not visible
    /// ASCII (a zero-width space copied with the key); `None` for a key
    /// of visible ASCII characters.
    pub fn problem(&self) -> Option<String> {
        let (i, c) = self.0.char_indices().find(|(_, c)| !c.is_ascii_graphic())?;
        let at = self.0[..i].chars().count() + 1;
        let what = match c {
            '\n' | '\r' => String::from("a line break (a key file of more than one line?)"),
            ' ' | '\t' => String::from("a space"),
            c if c.is_control() => format!("a control character (U+{:04X})", u32::from(c)),
            c => format!(
                "a character that is not visible ASCII (U+{:04X}: an invisible character \
                 copied with the key?)",
                u32::from(c)
            ),
        };
        Some(format!("holds {what} at character {at}"))
    }

    /// The `Authorization` header's value.
    pub(crate) fn bearer(&self) -> String {
        format!("Bearer {}", self.0)
    }

    /// The key itself, for a [`Redactor`].
    pub(crate) fn secret(&self) -> &str {
        &self.0
    }

    /// `text` with every occurrence of the key, written as is or
    /// JSON-escaped (see [`Redactor`]), replaced by `***`.
    pub fn redact(&self, text: &str) -> String {
        Redactor::new([self.0.as_str()]).text(text)
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(***)")
    }
}

/// Removes secrets (the API key, the values of credential headers) from
/// what a server sent back, in every form they can take there: as
/// written, and JSON-escaped at any depth of nesting (each character
/// possibly written `\uXXXX`, `/` as `\/`, `"` and `\` escaped, behind
/// one or more backslashes), and percent-encoded (a key in a URL).
/// [`Redactor::body`] also decodes a JSON body and redacts its decoded
/// strings, so that no decoding of what is kept can bring a secret back. Its `Debug` shows nothing of the secrets.
#[derive(Clone, Default)]
pub(crate) struct Redactor {
    /// Every whole form of every secret.
    pattern: Option<regex::Regex>,
    /// Parts of the long secrets as written ([`ECHOED_PART`]).
    parts: Option<regex::Regex>,
    /// Each part: the secret it is of (its characters) and where in it.
    part_of: std::collections::HashMap<String, (usize, usize)>,
    /// The characters of the long secrets, by their index in `part_of`.
    long: Vec<Vec<char>>,
}

impl fmt::Debug for Redactor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Redactor(***)")
    }
}

/// The pattern of one character of a secret: itself, a JSON escape of it
/// behind one or more backslashes, or its percent-encoding.
fn char_pattern(c: char, out: &mut String) {
    out.push_str("(?:");
    out.push_str(&regex::escape(c.encode_utf8(&mut [0; 4])));
    // `\uXXXX` (a surrogate pair beyond the first plane).
    let mut units = [0u16; 2];
    out.push('|');
    for u in c.encode_utf16(&mut units).iter() {
        out.push_str(&format!(r"\\+u(?i:{u:04x})"));
    }
    let short = match c {
        '/' => Some("/"),
        '"' => Some("\""),
        '\\' => Some(r"\\"),
        '\u{8}' => Some("b"),
        '\u{c}' => Some("f"),
        '\n' => Some("n"),
        '\r' => Some("r"),
        '\t' => Some("t"),
        _ => None,
    };
    if let Some(s) = short {
        out.push_str(r"|\\+");
        out.push_str(s);
    }
    // Percent-encoded (a key in a URL: a redirect's `Location`).
    out.push('|');
    for b in c.encode_utf8(&mut [0; 4]).bytes() {
        out.push_str(&format!("%(?i:{b:02x})"));
    }
    out.push(')');
}

/// Characters of a secret that, echoed together as written, are redacted
/// as the whole secret is (the part a server quotes of a key it refused:
/// `Incorrect API key provided: sk-proj-abc1****`).
const ECHOED_PART: usize = 12;

/// Secrets at least this long have their parts redacted
/// ([`ECHOED_PART`]); in a shorter one, a part is most of the secret.
const LONG_SECRET: usize = 20;

/// The secrets of [`LONG_SECRET`] characters or more, as characters, and
/// each run of [`ECHOED_PART`] of their characters with where it is (the
/// first place, for a run a secret repeats).
type Parts = (Vec<Vec<char>>, std::collections::HashMap<String, (usize, usize)>);

fn partial_echoes(secrets: &[&str]) -> Parts {
    let mut long = Vec::new();
    let mut part_of = std::collections::HashMap::new();
    for s in secrets {
        let chars: Vec<char> = s.chars().collect();
        if chars.len() < LONG_SECRET {
            continue;
        }
        for (at, w) in chars.windows(ECHOED_PART).enumerate() {
            part_of.entry(w.iter().collect::<String>()).or_insert((long.len(), at));
        }
        long.push(chars);
    }
    (long, part_of)
}

impl Redactor {
    /// A redactor of `secrets` (those shorter than 4 characters are
    /// ignored).
    pub(crate) fn new<'a>(secrets: impl IntoIterator<Item = &'a str>) -> Self {
        let mut secrets: Vec<&str> =
            secrets.into_iter().filter(|s| s.chars().count() >= SHORTEST_SECRET).collect();
        if secrets.is_empty() {
            return Redactor::default();
        }
        // The longest first: a secret holding another is removed whole.
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        secrets.dedup();
        let alternatives: Vec<String> = secrets
            .iter()
            .map(|s| {
                let mut p = String::new();
                s.chars().for_each(|c| char_pattern(c, &mut p));
                p
            })
            .collect();
        // A secret too long for a pattern is still removed where it is
        // written as is.
        let pattern = regex::Regex::new(&alternatives.join("|")).ok().or_else(|| {
            let plain: Vec<String> = secrets.iter().map(|s| regex::escape(s)).collect();
            regex::Regex::new(&plain.join("|")).ok()
        });
        // A part of a long secret echoed as written (a server's error that
        // quotes a key's first characters): every run of [`ECHOED_PART`]
        // of its characters, removed after the whole forms.
        let (long, part_of) = partial_echoes(&secrets);
        let mut escaped: Vec<String> = part_of.keys().map(|p| regex::escape(p)).collect();
        escaped.sort_unstable();
        let parts = (!escaped.is_empty()).then(|| regex::Regex::new(&escaped.join("|")).ok());
        Redactor { pattern, parts: parts.flatten(), part_of, long }
    }

    /// `text` with every form of every secret replaced by `***`, then
    /// every part of a long one ([`ECHOED_PART`] characters or more of it
    /// in a row, as written, each run replaced by one `***`).
    pub(crate) fn text(&self, text: &str) -> String {
        let whole = self.whole(text);
        let Some(parts) = &self.parts else { return whole };
        let mut out = String::with_capacity(whole.len());
        let (mut kept, mut from) = (0, 0);
        while let Some(m) = parts.find_at(&whole, from) {
            let Some(&(secret, at)) = self.part_of.get(m.as_str()) else { break };
            let key = self.long.get(secret).map_or(&[][..], Vec::as_slice);
            // The run goes on as far as the text goes on with the secret,
            // on either side.
            let (mut start, mut end) = (m.start(), m.end());
            for (next, c) in (at + ECHOED_PART..).zip(whole[end..].chars()) {
                if key.get(next) != Some(&c) {
                    break;
                }
                end += c.len_utf8();
            }
            let mut before = at;
            for c in whole[kept..start].chars().rev() {
                if before == 0 || key.get(before - 1) != Some(&c) {
                    break;
                }
                start -= c.len_utf8();
                before -= 1;
            }
            out.push_str(&whole[kept..start]);
            out.push_str("***");
            (kept, from) = (end, end);
        }
        out.push_str(&whole[kept..]);
        out
    }

    /// `text` with every whole form of every secret replaced by `***`,
    /// its parts left: for a reply body that is decoded and redacted
    /// again ([`Redactor::value`]), once the text parts of its content are
    /// joined (a key split across two parts, each a part of it, is then
    /// removed whole).
    pub(crate) fn whole(&self, text: &str) -> String {
        match &self.pattern {
            Some(p) => p.replace_all(text, "***").into_owned(),
            None => text.to_owned(),
        }
    }

    /// Redacts every string (and object key) of `v`, at any depth.
    pub(crate) fn value(&self, v: &mut Value) {
        if self.pattern.is_none() {
            return;
        }
        let mut stack = vec![v];
        while let Some(v) = stack.pop() {
            match v {
                Value::String(s) => {
                    let clean = self.text(s);
                    if clean != *s {
                        *s = clean;
                    }
                }
                Value::Array(items) => stack.extend(items.iter_mut()),
                Value::Object(map) => {
                    if map.keys().any(|k| self.text(k) != *k) {
                        let old = std::mem::take(map);
                        map.extend(old.into_iter().map(|(k, v)| (self.text(&k), v)));
                    }
                    stack.extend(map.values_mut());
                }
                _ => {}
            }
        }
    }

    /// A reply body as it may be kept or quoted: [`Redactor::text`], then,
    /// when the body is JSON, decoded, its strings redacted
    /// ([`Redactor::value`]) and written again.
    pub(crate) fn body(&self, text: &str) -> String {
        let text = self.text(text);
        if self.pattern.is_none() {
            return text;
        }
        match serde_json::from_str::<Value>(&text) {
            Ok(mut v) => {
                self.value(&mut v);
                serde_json::to_string(&v).unwrap_or(text)
            }
            Err(_) => text,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn naming_the_default_variable_is_the_default() {
        // Only when the machine has no key: the environment is the
        // process's, shared with every test.
        if std::env::var_os(DEFAULT_KEY_ENV).is_none() {
            assert!(matches!(ApiKey::for_judge(None), Ok(None)));
            assert!(matches!(ApiKey::for_judge(Some(DEFAULT_KEY_ENV)), Ok(None)));
        }
        let e = ApiKey::for_judge(Some("REFSCORE_TEST_SURELY_UNSET_VARIABLE")).unwrap_err();
        assert!(e.contains("`REFSCORE_TEST_SURELY_UNSET_VARIABLE`, which is not set"), "{e}");
        assert!(matches!(ApiKey::for_judge(Some("")), Ok(None)));
    }

    #[test]
    fn never_shown() {
        let k = ApiKey::new("sk-secret-123");
        assert_eq!(format!("{k:?}"), "ApiKey(***)");
        assert_eq!(k.redact("bad key sk-secret-123 given"), "bad key *** given");
        let r = Redactor::new(["sk-secret-123"]);
        assert_eq!(format!("{r:?}"), "Redactor(***)");
        assert_eq!(Redactor::new(["abc"]).text("abc"), "abc", "too short to redact");
        assert_eq!(Redactor::default().text("x"), "x");
    }

    #[test]
    fn a_part_of_a_long_key_echoed_as_written_is_removed() {
        let key = "sk-proj-Abc123Def456Ghi789Jkl";
        let r = Redactor::new([key]);
        // The first 12 characters, as OpenAI quotes a key it refused.
        assert_eq!(
            r.text("Incorrect API key provided: sk-proj-Abc1****. See https://x"),
            "Incorrect API key provided: *******. See https://x"
        );
        // Its end, and the whole key (once, not as parts).
        assert_eq!(r.text("ends 456Ghi789Jkl!"), "ends ***!");
        assert_eq!(r.text(&format!("[{key}]")), "[***]");
        // A run longer than a part is one `***`, on either side of the
        // part found first.
        assert_eq!(r.text(&format!("<{}>", &key[..key.len() - 1])), "<***>");
        assert_eq!(r.text(&format!("<{}>", &key[3..key.len() - 2])), "<***>");
        assert_eq!(r.text("x sk-proj-Abc123D y 123Def456Ghi z"), "x *** y *** z");
        // Eleven characters are left: too short a part to say much.
        assert_eq!(r.text("sk-proj-Abc"), "sk-proj-Abc");
        // A short secret has no parts redacted.
        assert_eq!(Redactor::new(["abcdefghijklmnop"]).text("abcdefghijkl"), "abcdefghijkl");
    }

    #[test]
    fn every_json_escape_of_a_secret_is_removed() {
        let key = "sk-proj/SECRET-1234+Zz";
        let r = Redactor::new([key, "hdr-SECRET-5678"]);
        let escaped_slash = key.replace('/', r"\/");
        let unicode: String = key.chars().map(|c| format!("\\u{:04X}", u32::from(c))).collect();
        let mixed = r"sk-pr\u006Fj\\\/SECRET-1234\u002bZz";
        let twice = serde_json::to_string(&serde_json::to_string(&unicode).unwrap()).unwrap();
        for text in [
            format!("Bearer {key}!"),
            format!("Bearer {escaped_slash}!"),
            format!("Bearer {unicode}!"),
            format!("Bearer {mixed}!"),
            format!("Bearer {twice}!"),
            String::from("api-key: hdr-SECRET-5678"),
        ] {
            let clean = r.text(&text);
            assert!(!clean.contains("SECRET") && clean.contains("***"), "{text} → {clean}");
        }
        // A body: decoded, redacted, written again; nested JSON included.
        let inner = serde_json::json!({"explanation": format!("you sent {escaped_slash}")});
        let body = serde_json::json!({"a": inner.to_string(), key: 1}).to_string();
        let clean = r.body(&body);
        assert!(!clean.contains("SECRET"), "{clean}");
        let v: Value = serde_json::from_str(&clean).unwrap();
        assert!(v.get("***").is_some(), "{v}");
        let mut deep = serde_json::json!([[[{"k": [format!("x{key}x")]}]]]);
        r.value(&mut deep);
        assert_eq!(deep, serde_json::json!([[[{"k": ["x***x"]}]]]));
    }
}
