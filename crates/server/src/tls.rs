//! `--tls-cert FILE --tls-key FILE`: HTTPS with rustls (its ring provider; no OpenSSL),
//! HTTP/1.1 only. The certificate chain and the key are read once, at start: a file that
//! cannot be read, holds no certificate or key, or a key that is not the certificate's
//! stops the server before it listens.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

/// The server's certificate and key, ready to accept connections.
#[derive(Clone)]
pub struct Tls {
    config: Arc<rustls::ServerConfig>,
}

impl fmt::Debug for Tls {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Tls")
    }
}

/// Why the certificate and key cannot be used, naming the file.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("{file}: cannot read it: {source}")]
    Read {
        file: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{file}: {what}")]
    Content { file: String, what: String },
    #[error("{key}: this key is not the one of the certificate in {cert}")]
    Mismatch { cert: String, key: String },
    #[error("{cert}, {key}: the certificate and key cannot be used: {message}")]
    Refused { cert: String, key: String, message: String },
}

impl Tls {
    /// Reads a PEM certificate chain (the server's certificate first, then its
    /// intermediates) and its PEM private key (PKCS#8, PKCS#1 or SEC1).
    pub fn load(cert: &Path, key: &Path) -> Result<Tls, TlsError> {
        let (cert_name, key_name) = (cert.display().to_string(), key.display().to_string());
        let read = |path: &Path, file: &str| {
            std::fs::read(path).map_err(|source| TlsError::Read { file: file.to_owned(), source })
        };
        let cert_pem = read(cert, &cert_name)?;
        let key_pem = read(key, &key_name)?;
        let content = |file: &str, what: String| TlsError::Content { file: file.to_owned(), what };

        let chain = CertificateDer::pem_slice_iter(&cert_pem)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| content(&cert_name, format!("not a PEM certificate file: {e}")))?;
        if chain.is_empty() {
            return Err(content(
                &cert_name,
                "no certificate in it (PEM: -----BEGIN CERTIFICATE-----)".to_owned(),
            ));
        }
        let key_der = PrivateKeyDer::from_pem_slice(&key_pem).map_err(|e| match e {
            rustls::pki_types::pem::Error::NoItemsFound => content(
                &key_name,
                "no private key in it (PEM: PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY)"
                    .to_owned(),
            ),
            e => content(&key_name, format!("not a PEM private key file: {e}")),
        })?;

        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let refused = |e: rustls::Error| match e {
            rustls::Error::InconsistentKeys(rustls::InconsistentKeys::KeyMismatch) => {
                TlsError::Mismatch { cert: cert_name.clone(), key: key_name.clone() }
            }
            e => TlsError::Refused {
                cert: cert_name.clone(),
                key: key_name.clone(),
                message: e.to_string(),
            },
        };
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(refused)?
            .with_no_client_auth()
            .with_single_cert(chain, key_der)
            .map_err(refused)?;
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Tls { config: Arc::new(config) })
    }

    pub(crate) fn acceptor(&self) -> tokio_rustls::TlsAcceptor {
        tokio_rustls::TlsAcceptor::from(self.config.clone())
    }
}
