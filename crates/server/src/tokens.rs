//! The tokens file of `advisor serve --tokens FILE`, and `advisor token new NAME`.
//!
//! The file holds one client a line, `NAME:SHA256`, the SHA-256 of the client's token in
//! hex; blank lines and lines starting with `#` are ignored. Tokens are never stored in
//! clear: a token is checked by hashing what the client sends and comparing the digest with
//! every line's, in constant time.

use std::fmt;
use std::path::Path;

use base64::Engine as _;
use sha2::{Digest as _, Sha256};
use subtle::ConstantTimeEq as _;

/// What `advisor token new` puts before the random part, so that a token found in a log or
/// a repository is recognisable (and secret scanners can look for it).
pub const TOKEN_PREFIX: &str = "adv_";

/// Random bytes in a token: 256 bits, beyond guessing.
const TOKEN_BYTES: usize = 32;

/// The longest name a line may have.
const MAX_NAME: usize = 64;

/// The clients of a tokens file: each name with its token's SHA-256.
#[derive(Clone)]
pub struct Tokens {
    entries: Vec<(String, [u8; 32])>,
}

impl fmt::Debug for Tokens {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The names only: the digests are not secrets, but nothing needs to print them.
        f.debug_struct("Tokens")
            .field("names", &self.entries.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>())
            .finish()
    }
}

/// A tokens file that cannot be used, with the file and line.
#[derive(Debug, thiserror::Error)]
pub enum TokensError {
    #[error("{file}: cannot read the tokens file: {source}")]
    Read {
        file: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{file}:{line}: {message}")]
    Line { file: String, line: usize, message: String },
    #[error(
        "{file}: no token in the file: add a line NAME:SHA256 for each client (`advisor token new NAME` prints one)"
    )]
    Empty { file: String },
}

impl Tokens {
    /// Reads a tokens file.
    pub fn read(path: &Path) -> Result<Tokens, TokensError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|source| TokensError::Read { file: file.clone(), source })?;
        Tokens::parse(&file, &text)
    }

    /// Reads the text of a tokens file; `file` names it in errors.
    pub fn parse(file: &str, text: &str) -> Result<Tokens, TokensError> {
        let mut entries: Vec<(String, [u8; 32])> = Vec::new();
        let mut lines_of: Vec<usize> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let err = |message: String| TokensError::Line { file: file.to_owned(), line, message };
            let t = raw.trim();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            let Some((name, hash)) = t.split_once(':') else {
                return Err(err(format!(
                    "expected NAME:SHA256 (the second line `advisor token new NAME` prints), found `{}`",
                    shorten(t)
                )));
            };
            let (name, hash) = (name.trim(), hash.trim());
            check_name(name).map_err(err)?;
            let digest = parse_digest(hash).ok_or_else(|| {
                let looks_clear = hash.starts_with(TOKEN_PREFIX);
                err(if looks_clear {
                    format!(
                        "`{name}`'s token is written in clear: the file holds its SHA-256 in hex \
                         (64 digits), never the token; `advisor token new {name}` prints the line"
                    )
                } else {
                    format!(
                        "`{name}`: after the `:` comes the SHA-256 of the token in hex (64 digits), \
                         found {} characters",
                        hash.chars().count()
                    )
                })
            })?;
            if let Some(k) = entries.iter().position(|(n, _)| n == name) {
                return Err(err(format!(
                    "`{name}` is also on line {}: a name is one client",
                    lines_of[k]
                )));
            }
            if let Some(k) = entries.iter().position(|(_, d)| *d == digest) {
                return Err(err(format!(
                    "`{name}` has the same token as `{}` on line {}: give each client its own",
                    entries[k].0, lines_of[k]
                )));
            }
            entries.push((name.to_owned(), digest));
            lines_of.push(line);
        }
        if entries.is_empty() {
            return Err(TokensError::Empty { file: file.to_owned() });
        }
        Ok(Tokens { entries })
    }

    /// The name of the client whose token `presented` is, if any. Every line is compared,
    /// in constant time, whatever matches: the time taken says nothing about the tokens.
    pub fn who(&self, presented: &[u8]) -> Option<&str> {
        let digest = sha256(presented);
        let mut found: Option<&str> = None;
        for (name, d) in &self.entries {
            if bool::from(d.ct_eq(&digest)) {
                found = Some(name);
            }
        }
        found
    }

    /// How many clients the file names.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// A client's name: letters, digits and `._@+-`, at most 64 (an e-mail address fits).
fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("the line has no name before the `:`".to_owned());
    }
    if name.len() > MAX_NAME {
        return Err(format!("the name is {} characters; at most {MAX_NAME}", name.len()));
    }
    if let Some(c) = name.chars().find(|c| !(c.is_ascii_alphanumeric() || "._@+-".contains(*c))) {
        return Err(format!(
            "the name `{}` has `{c}`: a name is letters, digits and . _ @ + -",
            shorten(name)
        ));
    }
    Ok(())
}

/// A new client's name, as `advisor token new` checks it.
pub fn valid_name(name: &str) -> Result<(), String> {
    check_name(name)
}

fn parse_digest(hex: &str) -> Option<[u8; 32]> {
    if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

fn sha256(bytes: &[u8]) -> [u8; 32] {
    let mut out = [0u8; 32];
    out.copy_from_slice(&Sha256::digest(bytes));
    out
}

/// The SHA-256 of `token` in lower-case hex, as a tokens file holds it.
pub fn token_digest(token: &str) -> String {
    sha256(token.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// A new token (`adv_` and 32 random bytes from the operating system, base64url) and its
/// tokens-file line `NAME:SHA256`.
pub fn new_token(name: &str) -> Result<(String, String), String> {
    check_name(name)?;
    let mut bytes = [0u8; TOKEN_BYTES];
    getrandom::fill(&mut bytes)
        .map_err(|e| format!("the operating system gave no random bytes: {e}"))?;
    let token =
        format!("{TOKEN_PREFIX}{}", base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes));
    let line = format!("{name}:{}", token_digest(&token));
    Ok((token, line))
}

/// The start of `s`, for a message (a line may be long, or be a token written in clear).
fn shorten(s: &str) -> String {
    let head: String = s.chars().take(24).collect();
    if head.len() < s.len() { format!("{head}...") } else { head }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_token_is_found_by_its_line_and_nothing_else_is() {
        let (alice, alice_line) = new_token("alice@example.com").expect("token");
        let (bob, bob_line) = new_token("bob").expect("token");
        assert!(alice.starts_with(TOKEN_PREFIX));
        // 32 bytes in base64url without padding: 43 characters.
        assert_eq!(alice.len(), TOKEN_PREFIX.len() + 43);
        assert_ne!(alice, bob);
        let text = format!("# clients\n\n{alice_line}\n  {bob_line}  \n");
        let tokens = Tokens::parse("tokens", &text).expect("parses");
        assert_eq!(tokens.len(), 2);
        assert_eq!(tokens.who(alice.as_bytes()), Some("alice@example.com"));
        assert_eq!(tokens.who(bob.as_bytes()), Some("bob"));
        assert_eq!(tokens.who(b""), None);
        assert_eq!(tokens.who(&alice.as_bytes()[..alice.len() - 1]), None);
        // The digest itself is not a token.
        let digest = alice_line.split_once(':').expect("line").1;
        assert_eq!(tokens.who(digest.as_bytes()), None);
    }

    #[test]
    fn the_digest_is_sha256_in_hex() {
        // SHA-256("abc"), FIPS 180-2 appendix B.1.
        assert_eq!(
            token_digest("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn bad_lines_are_refused_with_their_line() {
        let digest = token_digest("x");
        let cases: Vec<(String, &str)> = vec![
            ("alice\n".to_owned(), "tokens:1: expected NAME:SHA256"),
            (format!("\n:{digest}\n"), "tokens:2: the line has no name"),
            (format!("al ice:{digest}\n"), "tokens:1: the name `al ice` has ` `"),
            ("alice:1234\n".to_owned(), "tokens:1: `alice`: after the `:` comes the SHA-256"),
            ("alice:adv_abc\n".to_owned(), "tokens:1: `alice`'s token is written in clear"),
            (
                format!("alice:{digest}\nalice:{}\n", token_digest("y")),
                "tokens:2: `alice` is also on line 1",
            ),
            (
                format!("a:{digest}\nb:{digest}\n"),
                "tokens:2: `b` has the same token as `a` on line 1",
            ),
            ("# nobody yet\n".to_owned(), "tokens: no token in the file"),
        ];
        for (text, want) in cases {
            let e = Tokens::parse("tokens", &text).expect_err(&text).to_string();
            assert!(e.starts_with(want), "{text:?}: {e}");
        }
        assert!(new_token("a:b").is_err());
        assert!(new_token("").is_err());
        assert!(new_token(&"n".repeat(65)).is_err());
    }

    #[test]
    fn upper_case_digests_are_read_too() {
        let (token, line) = new_token("ci").expect("token");
        let tokens =
            Tokens::parse("t", &line.to_ascii_uppercase().replacen("CI", "ci", 1)).expect("parses");
        assert_eq!(tokens.who(token.as_bytes()), Some("ci"));
    }
}
