//! Bytes to text: BOMs, UTF-16 with or without a BOM, and legacy code pages
//! (a Russian PerfMon CSV is Windows-1251).

use std::borrow::Cow;

pub use encoding_rs::{Encoding, UTF_8};
use encoding_rs::{UTF_16BE, UTF_16LE};

/// Text decoded from a file, and the encoding it was in.
#[derive(Debug)]
pub struct Decoded<'a> {
    pub text: Cow<'a, str>,
    pub encoding: &'static Encoding,
    /// Whether the bytes carried a byte-order mark.
    pub bom: bool,
    /// Whether the decoder had to replace malformed sequences (U+FFFD).
    pub had_errors: bool,
}

impl Decoded<'_> {
    /// What the decoder found, to keep once the text is gone.
    pub fn decoding(&self) -> Decoding {
        Decoding { encoding: self.encoding, had_errors: self.had_errors }
    }
}

/// The encoding a file was in and whether it had undecodable bytes: what is said about the
/// text once the text itself is gone.
#[derive(Debug, Clone, Copy)]
pub struct Decoding {
    pub encoding: &'static Encoding,
    /// Malformed sequences were replaced (U+FFFD).
    pub had_errors: bool,
}

impl Decoding {
    /// Tells the reader of a capture about its text: a warning when bytes were replaced, a
    /// note when it was not UTF-8.
    pub fn annotate(&self, meta: &mut advisor_model::CaptureMeta) {
        if self.had_errors {
            meta.warn(
                format!(
                    "the file is not valid {}; undecodable bytes were replaced",
                    self.encoding.name()
                ),
                None,
            );
        }
        if self.encoding != UTF_8 {
            meta.notes.push(format!("text encoding: {}", self.encoding.name()));
        }
    }
}

/// Guesses UTF-16 without a BOM from where the NUL bytes sit in the first bytes.
fn sniff_utf16(bytes: &[u8]) -> Option<&'static Encoding> {
    let head = &bytes[..bytes.len().min(512) & !1];
    if head.len() < 4 {
        return None;
    }
    let pairs = head.len() / 2;
    let even_nul = head.iter().step_by(2).filter(|b| **b == 0).count();
    let odd_nul = head.iter().skip(1).step_by(2).filter(|b| **b == 0).count();
    // ASCII text in UTF-16LE has a NUL at every odd byte; BE at every even byte.
    if odd_nul * 10 >= pairs * 8 && even_nul * 10 <= pairs {
        Some(UTF_16LE)
    } else if even_nul * 10 >= pairs * 8 && odd_nul * 10 <= pairs {
        Some(UTF_16BE)
    } else {
        None
    }
}

/// Decodes a whole file. UTF-8 input is borrowed, not copied.
pub fn decode(bytes: &[u8]) -> Decoded<'_> {
    if let Some((enc, bom_len)) = Encoding::for_bom(bytes) {
        let (text, had_errors) = enc.decode_without_bom_handling(&bytes[bom_len..]);
        return Decoded { text, encoding: enc, bom: true, had_errors };
    }
    if let Some(enc) = sniff_utf16(bytes) {
        let (text, had_errors) = enc.decode_without_bom_handling(bytes);
        return Decoded { text, encoding: enc, bom: false, had_errors };
    }
    // SIMD validation: a gigabyte of PerfMon CSV is checked in a fraction of the time the
    // standard library's takes; the result is the same `&str`.
    if let Ok(s) = simdutf8::basic::from_utf8(bytes) {
        return Decoded { text: Cow::Borrowed(s), encoding: UTF_8, bom: false, had_errors: false };
    }
    let mut det = chardetng::EncodingDetector::new();
    det.feed(&bytes[..bytes.len().min(1 << 20)], bytes.len() <= 1 << 20);
    let enc = det.guess(None, true);
    let (text, had_errors) = enc.decode_without_bom_handling(bytes);
    Decoded { text, encoding: enc, bom: false, had_errors }
}

/// How to turn a file read in pieces into text, decided from its first bytes as
/// [`decode`] decides for the whole file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// UTF-8 without a byte-order mark, as far as the first bytes go: each piece is
    /// validated as it comes, and a piece that is not UTF-8 means the file must be decoded
    /// whole ([`decode`] guesses another encoding for it).
    Utf8,
    /// Decoded with this encoding after skipping `skip` bytes (its byte-order mark).
    Decode { encoding: &'static Encoding, skip: usize },
}

/// The encoding of a file from its first bytes. `head` must hold at least the first MiB
/// of the file (or all of it), and `whole` says whether it is all of it: [`decode`] guesses
/// a legacy code page from that first MiB.
pub fn choose(head: &[u8], whole: bool) -> Choice {
    if let Some((encoding, skip)) = Encoding::for_bom(head) {
        return Choice::Decode { encoding, skip };
    }
    if let Some(encoding) = sniff_utf16(head) {
        return Choice::Decode { encoding, skip: 0 };
    }
    match simdutf8::compat::from_utf8(head) {
        Ok(_) => return Choice::Utf8,
        // A character cut by the end of the head.
        Err(e) if e.error_len().is_none() && !whole => return Choice::Utf8,
        Err(_) => {}
    }
    let mut det = chardetng::EncodingDetector::new();
    det.feed(&head[..head.len().min(1 << 20)], whole && head.len() <= 1 << 20);
    Choice::Decode { encoding: det.guess(None, true), skip: 0 }
}

/// Decodes at most the first `max` bytes, for format detection.
pub fn decode_head(bytes: &[u8], max: usize) -> Cow<'_, str> {
    let mut end = bytes.len().min(max);
    let is16 =
        Encoding::for_bom(bytes).is_some_and(|(e, _)| e != UTF_8) || sniff_utf16(bytes).is_some();
    if is16 {
        end &= !1;
    } else if let Err(e) = std::str::from_utf8(&bytes[..end]) {
        // Do not cut a UTF-8 sequence in half.
        if e.error_len().is_none() {
            end = e.valid_up_to();
        }
    }
    decode(&bytes[..end]).text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16le_without_bom() {
        let bytes: Vec<u8> =
            "\"(PDH-CSV 4.0)\"".encode_utf16().flat_map(u16::to_le_bytes).collect();
        let d = decode(&bytes);
        assert_eq!(d.encoding, UTF_16LE);
        assert_eq!(d.text, "\"(PDH-CSV 4.0)\"");
    }

    #[test]
    fn utf8_bom_is_dropped() {
        let d = decode(b"\xEF\xBB\xBFabc");
        assert!(d.bom);
        assert_eq!(d.text, "abc");
    }

    #[test]
    fn cp1251_is_guessed() {
        let (bytes, _, _) = encoding_rs::WINDOWS_1251
            .encode("\"\\\\PC\\Процесс(_Total)\\% загруженности процессора\"\r\n\"1\"");
        let d = decode(&bytes);
        assert_eq!(d.encoding, encoding_rs::WINDOWS_1251);
        assert!(d.text.contains("Процесс"));
    }
}
