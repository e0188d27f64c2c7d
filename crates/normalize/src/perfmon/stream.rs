//! A PerfMon CSV read from its file a piece at a time: the values of each piece of lines
//! [`advisor_ingest::perfmon::stream`] gives, scanned, are parsed as they come, so memory
//! holds the values and a few pieces of text, never the whole file.

use std::path::Path;
use std::sync::Arc;

use advisor_ingest::decode::Decoding;
use advisor_ingest::perfmon::Language;
use advisor_ingest::perfmon::stream::{self, Next, Opened, PIECE};
use advisor_ingest::{CaptureFormat, IngestError};

use super::{Body, Parsed};

/// What reading the file in pieces gave.
pub(crate) enum Streamed {
    /// A PerfMon CSV, parsed, and how its text was decoded.
    Read(Box<Parsed>, Decoding),
    /// Not a PerfMon CSV, or one that must be decoded whole: read it whole, with the reader
    /// detection chose from the first piece (none when it did not get that far), so that
    /// the file is not detected again.
    Whole(Option<&'static dyn CaptureFormat>),
}

/// Reads the PerfMon CSV at `path` in pieces; [`Streamed::Whole`] for anything else.
/// Counter names of other display languages are read with `tables`.
pub(crate) fn read_file(
    file: &str,
    path: &Path,
    tables: &[Arc<Language>],
) -> Result<Streamed, IngestError> {
    read_file_in(file, path, PIECE, tables)
}

/// [`read_file`] with pieces of `piece` bytes.
fn read_file_in(
    file: &str,
    path: &Path,
    piece: usize,
    tables: &[Arc<Language>],
) -> Result<Streamed, IngestError> {
    let (mut header, mut lines) = match stream::open_in(file, path, piece, tables)? {
        Opened::Stream(header, lines) => (*header, lines),
        Opened::Whole(reader) => return Ok(Streamed::Whole(reader)),
    };
    let mut body = Body::new(file, &header, lines.size_hint(), lines.threads());
    loop {
        match lines.next_lines()? {
            Next::Lines(bytes, parts) => body.parse(bytes, parts)?,
            Next::End => break,
            Next::Whole(reader) => return Ok(Streamed::Whole(Some(reader))),
        }
    }
    let (time_ms, decoding) = lines.finish(&mut header.meta)?;
    Ok(Streamed::Read(Box::new(body.finish(header, time_ms)?), decoding))
}

#[cfg(test)]
mod tests {
    use super::*;
    use advisor_ingest::perfmon::counters::names::shipped_tables;

    /// A capture of `lines` data lines with a non-ASCII instance name, a blank line, a
    /// broken line and a cell that is not a number along the way.
    fn capture(lines: usize) -> String {
        let disk = "\\\\H\\PhysicalDisk(0 C: Daten\u{e4})";
        let mut text = format!(
            "\"(PDH-CSV 4.0) (UTC)(0)\",\"{disk}\\Disk Reads/sec\",\"{disk}\\Avg. Disk sec/Read\",\"\\\\H\\Memory\\Available MBytes\"\r\n"
        );
        for i in 0..lines {
            let (h, m, s) = (i / 3600 % 24, i / 60 % 60, i % 60);
            let time = format!("\"01/02/2024 {h:02}:{m:02}:{s:02}.000\"");
            match i {
                700 => text.push_str("\r\n"),
                900 => text.push_str(&format!("{time},\"1\"\r\n")),
                1300 => text.push_str(&format!("{time},\"n/a\",\"0.001\",\"512\"\r\n")),
                _ => text.push_str(&format!(
                    "{time},\"{i}.25\",\"0.00{}\",\"{}\"\r\n",
                    i % 9,
                    512 - i % 5
                )),
            }
        }
        text
    }

    use super::super::tests::summary;

    fn whole(text: &str) -> Parsed {
        let header =
            advisor_ingest::perfmon::read_header("c.csv", text).unwrap_or_else(|e| panic!("{e}"));
        super::super::parse("c.csv", header, text).unwrap_or_else(|e| panic!("{e}"))
    }

    fn streamed(bytes: &[u8], piece: usize) -> Option<(Parsed, Decoding)> {
        let path = std::env::temp_dir().join(format!(
            "advisor-stream-{}-{piece}-{}.csv",
            std::process::id(),
            bytes.len()
        ));
        std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{e}"));
        let out =
            read_file_in("c.csv", &path, piece, shipped_tables()).unwrap_or_else(|e| panic!("{e}"));
        let _ = std::fs::remove_file(&path);
        match out {
            Streamed::Read(p, d) => Some((*p, d)),
            Streamed::Whole(_) => None,
        }
    }

    #[test]
    fn pieces_of_a_file_give_the_whole_texts_values() {
        let text = capture(3000);
        let want = summary(&whole(&text));
        assert!(want.2.iter().any(|w| w.contains("`n/a`")), "{:?}", want.2);
        assert_eq!(want.1.len(), 2998);
        // Pieces of one page, of three, and larger than the file.
        for piece in [4096, 3 * 4096, 1 << 20] {
            let (got, decoding) =
                streamed(text.as_bytes(), piece).unwrap_or_else(|| panic!("{piece}: read whole"));
            assert_eq!(summary(&got), want, "{piece}");
            assert_eq!(decoding.encoding, advisor_ingest::decode::UTF_8);
        }
    }

    #[test]
    fn other_encodings_are_decoded_piece_by_piece() {
        let text = capture(1500);
        let want = summary(&whole(&text));
        let mut utf16 = vec![0xff, 0xfe];
        for u in text.encode_utf16() {
            utf16.extend_from_slice(&u.to_le_bytes());
        }
        let (got, decoding) = streamed(&utf16, 4096).unwrap_or_else(|| panic!("read whole"));
        assert_eq!(summary(&got), want);
        assert_eq!(decoding.encoding, encoding_rs::UTF_16LE);
        let (latin1, _, _) = encoding_rs::WINDOWS_1252.encode(&text);
        let (got, decoding) = streamed(&latin1, 4096).unwrap_or_else(|| panic!("read whole"));
        assert_eq!(summary(&got), want);
        assert_eq!(decoding.encoding, encoding_rs::WINDOWS_1252);
    }

    #[test]
    fn a_utf8_start_with_a_broken_middle_is_read_whole() {
        let mut bytes = capture(3000).into_bytes();
        let at = bytes.len() - 2000;
        bytes[at] = 0xe4;
        assert!(streamed(&bytes, 4096).is_none());
    }

    /// Another format is read whole with the reader its first piece was detected as (not
    /// detected again); a file of no format is refused from its first piece.
    #[test]
    fn other_files_are_detected_once_from_their_first_piece() {
        let path = |name: &str, bytes: &[u8]| {
            let p =
                std::env::temp_dir().join(format!("advisor-once-{}-{name}", std::process::id()));
            std::fs::write(&p, bytes).unwrap_or_else(|e| panic!("{e}"));
            p
        };
        let p = std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../fixtures/captures/iostat-text/hand_short_xs.txt"
        ));
        match read_file_in("iostat.txt", p, 4096, shipped_tables()) {
            Ok(Streamed::Whole(Some(reader))) => assert_eq!(reader.format().id(), "iostat-text"),
            Ok(Streamed::Whole(None)) => panic!("detected again"),
            Ok(Streamed::Read(..)) => panic!("read as PerfMon"),
            Err(e) => panic!("{e}"),
        }
        let p = path("notes.txt", b"Linux 5.15 (host)\n");
        let e = read_file_in("notes.txt", &p, 4096, shipped_tables()).err();
        let e = e.unwrap_or_else(|| panic!("a file of no format was read"));
        assert_eq!(
            e.to_string(),
            advisor_ingest::detect("notes.txt", b"Linux 5.15 (host)\n")
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        );
    }
}
