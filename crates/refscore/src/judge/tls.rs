//! Private certificate authorities: the roots a judge trusts are read from
//! `SSL_CERT_FILE` and `SSL_CERT_DIR` when either is set, as OpenSSL,
//! curl and Python read them; else the bundled Mozilla roots are used.

use std::ffi::OsString;
use std::path::Path;

use ureq::tls::{Certificate, PemItem, RootCerts};

/// The roots `SSL_CERT_FILE` and `SSL_CERT_DIR` name (read now), or
/// `None` when neither is set: the bundled roots.
///
/// # Errors
/// A file or folder that cannot be read, or that holds no certificate.
pub(super) fn root_certs() -> Result<Option<RootCerts>, String> {
    let set = |var: &str| std::env::var_os(var).filter(|v| !v.is_empty());
    root_certs_from(set("SSL_CERT_FILE"), set("SSL_CERT_DIR"))
}

/// [`root_certs`] from the variables' values.
fn root_certs_from(
    file: Option<OsString>,
    dir: Option<OsString>,
) -> Result<Option<RootCerts>, String> {
    if file.is_none() && dir.is_none() {
        return Ok(None);
    }
    let mut certs: Vec<Certificate<'static>> = Vec::new();
    if let Some(file) = file {
        let path = Path::new(&file);
        let pem = std::fs::read(path)
            .map_err(|e| format!("SSL_CERT_FILE `{}` cannot be read: {e}", path.display()))?;
        let before = certs.len();
        read_pem(&pem, &mut certs);
        if certs.len() == before {
            return Err(format!(
                "SSL_CERT_FILE `{}` holds no PEM certificate (-----BEGIN CERTIFICATE-----)",
                path.display()
            ));
        }
    }
    if let Some(dir) = dir {
        let path = Path::new(&dir);
        let entries = std::fs::read_dir(path)
            .map_err(|e| format!("SSL_CERT_DIR `{}` cannot be read: {e}", path.display()))?;
        let before = certs.len();
        // Every readable file: OpenSSL's hashed names (`5ed36f99.0`) and
        // plain `.pem` or `.crt` files alike; a key or another file holds
        // no certificate and adds nothing.
        for entry in entries.flatten() {
            if entry.path().is_file()
                && let Ok(pem) = std::fs::read(entry.path())
            {
                read_pem(&pem, &mut certs);
            }
        }
        if certs.len() == before {
            return Err(format!("SSL_CERT_DIR `{}` holds no PEM certificate", path.display()));
        }
    }
    Ok(Some(RootCerts::new_with_certs(&certs)))
}

/// The certificates of a PEM text, added to `out` (keys are skipped).
fn read_pem(pem: &[u8], out: &mut Vec<Certificate<'static>>) {
    for item in ureq::tls::parse_pem(pem).flatten() {
        if let PemItem::Certificate(c) = item {
            out.push(c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A self-signed test authority's certificate, PEM.
    const CERT: &str = "-----BEGIN CERTIFICATE-----
MIIDBzCCAe+gAwIBAgIUSkEUKSJElZAxNbPLBjJfrWOsiq0wDQYJKoZIhvcNAQEL
BQAwEzERMA8GA1UEAwwIcHJvYmUtY2EwHhcNMjYxMTI3MTMxOTA4WhcNMjYxMTI5
MTMxOTA4WjATMREwDwYDVQQDDAhwcm9iZS1jYTCCASIwDQYJKoZIhvcNAQEBBQAD
ggEPADCCAQoCggEBAJgxI0bxcG1L+F89Mo36XaisuxnWN01pq5X7Unu22cmvoyEW
TuNXDesHvtkBJkDP9E59vzQLdUlYbN9oeK8LAc4es8MNEOUhUHjSRsmCBWycBnj6
PUJKEY4BgETAl+Kx7RH4ULbnH+F+o+JVUW/NCgX8+xooe3J/0tkbMaq8HOGn55kf
8ll9iBUIYp7TK9//TmkkeRwynrtS3E3HFkx2PnaE8ghig2CK15nFOH9ZZDJzkiRu
hmTKBix0zzwyiDU+e26qgFyvuqVduYJeY52bO/RQdoiPuzNLdAJuLOByF5Kh2pln
jPUDhqufjULarUc3ZXeVA5qclCfqZlt/Q8c5Y70CAwEAAaNTMFEwHQYDVR0OBBYE
FLr5f5TqSdOcFh85nWjwv3QXTnQrMB8GA1UdIwQYMBaAFLr5f5TqSdOcFh85nWjw
v3QXTnQrMA8GA1UdEwEB/wQFMAMBAf8wDQYJKoZIhvcNAQELBQADggEBACsaiF5K
KcD9v2w1+fa7Pn3OAsuTebq8Ap3n2IXmfYq7yPLyCDoZfq550LofFnLQ37dX8FBc
cDqAbuaaV5lKVVihkVg1ntujnKgK31HOb0V73Z4Mg9HHOFou/6EwrKUQXtGFalpY
lCvAoOv9ImDMzKwvDDwtjSnBE93C1ImnNalKWw59nIXoYnlUbYbrkW+cb7/YWqyw
r/uVewswGd5xRd/Ln1CLHiEek1/lDP4gLDgnOResslnq3y093cUV+0NvSjUp3E9S
tysFbTpQsYXWldmLU0j9nlxzQg7ayXZGZoEIiRZxi6BKoj1sR/CNW99ekyH6Q2r8
BE5gZUzzXZjLmP0=
-----END CERTIFICATE-----
";

    #[test]
    fn roots_come_from_ssl_cert_file_and_dir_when_set() {
        assert!(root_certs_from(None, None).unwrap().is_none());
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("ca.pem");
        std::fs::write(&file, CERT).unwrap();
        std::fs::write(dir.path().join("key.pem"), "-----BEGIN PRIVATE KEY-----\n").unwrap();
        let one = |r: Option<RootCerts>| match r {
            Some(RootCerts::Specific(c)) => c.len(),
            _ => 0,
        };
        assert_eq!(one(root_certs_from(Some(file.clone().into()), None).unwrap()), 1);
        assert_eq!(one(root_certs_from(None, Some(dir.path().into())).unwrap()), 1);
        assert_eq!(one(root_certs_from(Some(file.into()), Some(dir.path().into())).unwrap()), 2);
        let missing = dir.path().join("absent.pem");
        let e = root_certs_from(Some(missing.into()), None).err().unwrap();
        assert!(e.starts_with("SSL_CERT_FILE `") && e.contains("cannot be read"), "{e}");
        let e = root_certs_from(Some(dir.path().join("key.pem").into()), None).err().unwrap();
        assert!(e.contains("holds no PEM certificate"), "{e}");
        let empty = tempfile::tempdir().unwrap();
        let e = root_certs_from(None, Some(empty.path().into())).err().unwrap();
        assert!(e.starts_with("SSL_CERT_DIR") && e.contains("no PEM certificate"), "{e}");
    }
}
