//! Credentials sent unencrypted: a judge whose API key (or a password in
//! its base URL) would travel over plain `http://` to another machine.

use std::net::{Ipv4Addr, Ipv6Addr};

/// The warning for judge `name`, whose requests go to `base_url`, when
/// they carry a credential (`has_key`, or a password in the URL) over plain
/// HTTP to a host that is not this machine. The host is named with its
/// port, never with the URL's user part, path or query.
pub(crate) fn warning(name: &str, base_url: &str, has_key: bool) -> Option<String> {
    let scheme = base_url.get(..7)?;
    if !scheme.eq_ignore_ascii_case("http://") {
        return None;
    }
    let authority = base_url[7..].split(['/', '?', '#']).next().unwrap_or("");
    let (userinfo, host_port) = match authority.rsplit_once('@') {
        Some((user, host)) => (Some(user), host),
        None => (None, authority),
    };
    let password = userinfo.is_some_and(|u| u.contains(':'));
    if !has_key && !password || is_this_machine(host(host_port)) {
        return None;
    }
    let what = if has_key { "its API key" } else { "the password in its base_url" };
    Some(format!(
        "judge `{name}` sends {what} unencrypted: its base_url is plain http:// to \
         {host_port}, not this machine (use https://, or a server on this machine)"
    ))
}

/// The host of `host[:port]` (an IPv6 address without its brackets).
fn host(host_port: &str) -> &str {
    match host_port.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or(""),
        None => host_port.split(':').next().unwrap_or(""),
    }
}

/// Whether `host` names this machine: `localhost` (and its subdomains),
/// 127.0.0.0/8, `::1` or an IPv4-mapped loopback address.
fn is_this_machine(host: &str) -> bool {
    let lower = host.to_ascii_lowercase();
    let lower = lower.trim_end_matches('.');
    lower == "localhost"
        || lower.ends_with(".localhost")
        || lower.parse::<Ipv4Addr>().is_ok_and(|a| a.is_loopback())
        || lower
            .parse::<Ipv6Addr>()
            .is_ok_and(|a| a.is_loopback() || a.to_ipv4_mapped().is_some_and(|v| v.is_loopback()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_over_plain_http_to_another_machine_is_warned_of() {
        for (url, host) in [
            ("http://10.0.0.5:4000/v1", "10.0.0.5:4000"),
            ("HTTP://litellm:4000", "litellm:4000"),
            ("http://example.com/v1?api-version=1", "example.com"),
            ("http://[2001:db8::1]:8080/v1", "[2001:db8::1]:8080"),
            ("http://user@gateway.internal/v1", "gateway.internal"),
            ("http://127.0.0.1.nip.io/v1", "127.0.0.1.nip.io"),
        ] {
            let w = warning("j", url, true).unwrap_or_else(|| panic!("{url}"));
            assert!(w.contains(&format!("to {host}, not this machine")), "{url}: {w}");
            assert!(w.starts_with("judge `j` sends its API key unencrypted"), "{w}");
        }
    }

    #[test]
    fn https_this_machine_or_no_credential_is_not() {
        for url in [
            "https://api.openai.com/v1",
            "http://localhost:8000/v1",
            "http://LOCALHOST./v1",
            "http://ollama.localhost/v1",
            "http://127.0.0.1:11434/v1",
            "http://127.8.9.10/v1",
            "http://[::1]:8000/v1",
            "http://[::ffff:127.0.0.1]/v1",
            "http:/",
            "",
        ] {
            assert_eq!(warning("j", url, true), None, "{url}");
        }
        assert_eq!(warning("j", "http://10.0.0.5/v1", false), None, "no key, no password");
        assert_eq!(warning("j", "http://user@10.0.0.5/v1", false), None, "a user alone");
    }

    #[test]
    fn a_password_in_the_url_is_warned_of_without_showing_it() {
        let w = warning("j", "http://me:s3cret@10.0.0.5/v1", false).unwrap();
        assert!(w.contains("the password in its base_url") && w.contains("to 10.0.0.5,"), "{w}");
        assert!(!w.contains("s3cret") && !w.contains("me:"), "{w}");
        let w = warning("j", "http://me:s3cret@10.0.0.5/v1?key=abc", true).unwrap();
        assert!(!w.contains("s3cret") && !w.contains("abc"), "{w}");
    }
}
