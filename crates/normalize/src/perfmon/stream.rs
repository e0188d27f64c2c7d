//! A PerfMon CSV read from its file a piece at a time, so that memory holds the values
//! and a few pieces of text, never the whole file: a thread reads the next piece while the
//! last one is decoded, scanned and parsed ([`super::Body`]).
//!
//! Everything is decided as the whole-file path decides it (the same detection, the same
//! encoding, the same header and sample lines), and the result is the same frame. Where
//! that cannot be known from the first piece (a file whose start is UTF-8 but whose middle
//! is not: the whole file is then decoded in a legacy code page), the caller is told to
//! read the file whole instead.

use std::io::Read as _;
use std::path::Path;
use std::sync::{Arc, mpsc};

use advisor_ingest::decode::{Choice, Decoding, Encoding, UTF_8};
use advisor_ingest::perfmon::Language;
use advisor_ingest::{ErrorKind, IngestError};
use polars::polars_utils::mmap::MMapSemaphore;

use super::{Body, Parsed};

/// Bytes of the file taken at a time. Two pieces are in memory at most: the one being
/// parsed, and the next, mapped while it is (the channel holds none).
pub(crate) const PIECE: usize = 16 << 20;

/// Data lines the header reader looks at (the date order, the decimal comma): the head is
/// made long enough to hold them.
const SAMPLE_LINES: usize = 50;

/// What reading the file in pieces gave.
pub(crate) enum Streamed {
    /// A PerfMon CSV, parsed, and how its text was decoded.
    Read(Box<Parsed>, Decoding),
    /// Not a PerfMon CSV, or one that must be decoded whole: read it whole.
    Whole,
}

/// A piece of the file: mapped (polars' own safe mapping, populated: the kernel reads it
/// in one go, and nothing is copied), or read when the file cannot be mapped (a pipe).
enum Piece {
    Mapped(MMapSemaphore),
    Read(Vec<u8>),
}

impl AsRef<[u8]> for Piece {
    fn as_ref(&self) -> &[u8] {
        match self {
            Self::Mapped(m) => m.as_ref(),
            Self::Read(v) => v,
        }
    }
}

type Sent = std::io::Result<Piece>;

/// Reads the PerfMon CSV at `path` in pieces; [`Streamed::Whole`] for anything else.
/// Counter names of other display languages are read with `tables`.
pub(crate) fn read_file(
    file: &str,
    path: &Path,
    tables: &[Arc<Language>],
) -> Result<Streamed, IngestError> {
    read_file_in(file, path, PIECE, tables)
}

/// [`read_file`] with pieces of `piece` bytes (a multiple of the page size).
fn read_file_in(
    file: &str,
    path: &Path,
    piece: usize,
    tables: &[Arc<Language>],
) -> Result<Streamed, IngestError> {
    let io = |e: std::io::Error| IngestError::new(file, None, ErrorKind::Io(e));
    let f = std::fs::File::open(path).map_err(io)?;
    let len = f.metadata().ok().filter(std::fs::Metadata::is_file).map(|m| m.len());
    let (tx, rx) = mpsc::sync_channel::<Sent>(0);
    std::thread::scope(|s| {
        s.spawn(move || send_pieces(f, len, piece, &tx));
        let out = parse_pieces(file, len, piece, &rx, tables);
        // Stop the reader if the parse ended early.
        drop(rx);
        out
    })
}

/// Sends the file in pieces of `piece` bytes (the last one shorter), then nothing.
fn send_pieces(mut f: std::fs::File, len: Option<u64>, piece: usize, tx: &mpsc::SyncSender<Sent>) {
    let mut offset = 0u64;
    loop {
        let next = match len {
            Some(len) if offset >= len => return,
            Some(len) => {
                let n = (len - offset).min(piece as u64);
                let mut options = memmap2::MmapOptions::new();
                options.offset(offset).len(n as usize).populate();
                match MMapSemaphore::new_from_file_with_options(&f, options) {
                    Ok(m) => {
                        offset += n;
                        Ok(Piece::Mapped(m))
                    }
                    // Not mappable after all: read it.
                    Err(_) => read_piece(&mut f, offset, piece).inspect(|p| {
                        offset += p.as_ref().len() as u64;
                    }),
                }
            }
            None => read_piece(&mut f, offset, piece),
        };
        match next {
            Ok(p) if p.as_ref().is_empty() => return,
            Ok(p) => {
                if len.is_none() {
                    offset += p.as_ref().len() as u64;
                }
                if tx.send(Ok(p)).is_err() {
                    return;
                }
            }
            Err(e) => {
                let _ = tx.send(Err(e));
                return;
            }
        }
    }
}

fn read_piece(f: &mut std::fs::File, offset: u64, piece: usize) -> std::io::Result<Piece> {
    use std::io::Seek as _;
    if f.stream_position().ok() != Some(offset) {
        f.seek(std::io::SeekFrom::Start(offset))?;
    }
    let mut buf = Vec::with_capacity(piece);
    f.take(piece as u64).read_to_end(&mut buf)?;
    Ok(Piece::Read(buf))
}

/// Bytes to text, piece by piece. UTF-8 is validated and parsed where it lies; only the
/// line cut by a piece's end is copied. Other encodings are decoded piece by piece.
struct Text {
    choice: Choice,
    decoder: Option<encoding_rs::Decoder>,
    /// The start of a line cut by the end of the last piece (UTF-8 bytes, or decoded text).
    carry: Vec<u8>,
    carry_text: String,
    had_errors: bool,
}

impl Text {
    fn new(choice: Choice) -> Self {
        let decoder = match choice {
            Choice::Utf8 => None,
            Choice::Decode { encoding, .. } => Some(encoding.new_decoder_without_bom_handling()),
        };
        Self { choice, decoder, carry: Vec::new(), carry_text: String::new(), had_errors: false }
    }

    fn encoding(&self) -> &'static Encoding {
        match self.choice {
            Choice::Utf8 => UTF_8,
            Choice::Decode { encoding, .. } => encoding,
        }
    }

    /// Hands the whole lines of `bytes` (with the line carried from before; everything
    /// when `last`) to `body`, in order, and carries the rest. `Ok(false)` when the bytes
    /// are not UTF-8 after all.
    fn feed(&mut self, body: &mut Body, bytes: &[u8], last: bool) -> Result<bool, IngestError> {
        if self.decoder.is_some() {
            let text = self.decode(bytes, last);
            body.feed(&text, 0)?;
            return Ok(true);
        }
        let mut start = 0usize;
        if !self.carry.is_empty() {
            // The carried line, finished by this piece's first line break.
            let end = if last {
                bytes.len()
            } else {
                match memchr::memchr(b'\n', bytes) {
                    Some(i) => i + 1,
                    None => {
                        self.carry.extend_from_slice(bytes);
                        return Ok(true);
                    }
                }
            };
            self.carry.extend_from_slice(&bytes[..end]);
            let Ok(line) = simdutf8::basic::from_utf8(&self.carry) else { return Ok(false) };
            body.feed(line, 0)?;
            self.carry.clear();
            start = end;
        }
        let rest = &bytes[start..];
        let cut = if last { rest.len() } else { memchr::memrchr(b'\n', rest).map_or(0, |i| i + 1) };
        if !body.feed_utf8(&rest[..cut])? {
            return Ok(false);
        }
        self.carry.extend_from_slice(&rest[cut..]);
        Ok(true)
    }

    /// Decodes `bytes` after the text carried from before; returns the whole lines (all of
    /// it when `last`) and carries the rest.
    fn decode(&mut self, bytes: &[u8], last: bool) -> String {
        let mut out = std::mem::take(&mut self.carry_text);
        if let Some(decoder) = &mut self.decoder {
            let mut src = bytes;
            loop {
                let need = decoder.max_utf8_buffer_length(src.len()).unwrap_or(src.len() * 3);
                out.reserve(need);
                let (result, read, errors) = decoder.decode_to_string(src, &mut out, last);
                self.had_errors |= errors;
                src = &src[read..];
                if matches!(result, encoding_rs::CoderResult::InputEmpty) {
                    break;
                }
            }
        }
        if !last {
            let cut = out.rfind('\n').map_or(0, |i| i + 1);
            self.carry_text = out.split_off(cut);
        }
        out
    }
}

/// Whether `text` (the start of a file) holds the header line and the data lines the
/// header reader samples.
fn holds_header(text: &str) -> bool {
    let lines = text.split_inclusive('\n').filter(|l| !l.trim().is_empty());
    // The header, then the sample lines, each complete (ended by its line break).
    lines.take(SAMPLE_LINES + 1).filter(|l| l.ends_with('\n')).count() > SAMPLE_LINES
}

fn parse_pieces(
    file: &str,
    len: Option<u64>,
    piece: usize,
    rx: &mpsc::Receiver<Sent>,
    tables: &[Arc<Language>],
) -> Result<Streamed, IngestError> {
    let io = |e: std::io::Error| IngestError::new(file, None, ErrorKind::Io(e));
    // The head: at least one piece, more until it holds the header and its sample lines.
    let mut head: Vec<u8> = Vec::new();
    let mut ended = false;
    loop {
        match rx.recv() {
            Ok(piece) => head.extend_from_slice(piece.map_err(io)?.as_ref()),
            Err(_) => {
                ended = true;
                break;
            }
        }
        if holds_header(&String::from_utf8_lossy(&head)) {
            break;
        }
        if head.len() >= 4 * piece {
            // Lines so long that fifty do not fit in 64 MiB: read whole, as it always was.
            return Ok(Streamed::Whole);
        }
    }
    if head.iter().all(u8::is_ascii_whitespace) {
        return Ok(Streamed::Whole);
    }
    match advisor_ingest::detect(file, &head) {
        Ok(reader) if reader.format() == advisor_ingest::perfmon::FORMAT => {}
        _ => return Ok(Streamed::Whole),
    }
    let choice = advisor_ingest::decode::choose(&head, ended);
    let skip = match choice {
        Choice::Decode { skip, .. } => skip.min(head.len()),
        Choice::Utf8 => 0,
    };
    let mut text = Text::new(choice);
    // The header is read from the head's whole lines.
    let first = match choice {
        Choice::Utf8 => {
            let cut =
                if ended { head.len() } else { memchr::memrchr(b'\n', &head).map_or(0, |i| i + 1) };
            match simdutf8::basic::from_utf8(&head[..cut]) {
                Ok(s) => s.to_owned(),
                Err(_) => return Ok(Streamed::Whole),
            }
        }
        Choice::Decode { .. } => text.decode(&head[skip..], ended),
    };
    let header = advisor_ingest::perfmon::read_header_with(file, &first, tables)?;
    let from = header.body_start;
    let hint = len.map(|l| l.saturating_sub(from as u64));
    let mut body = Body::new(file, header, hint);
    body.feed(&first, from)?;
    if matches!(choice, Choice::Utf8) {
        text.carry.extend_from_slice(&head[first.len()..]);
    }
    drop(first);
    drop(head);
    while !ended {
        let (piece, last) = match rx.recv() {
            Ok(piece) => (Some(piece.map_err(io)?), false),
            Err(_) => (None, true),
        };
        ended = last;
        let bytes = piece.as_ref().map_or(&[][..], AsRef::as_ref);
        if !text.feed(&mut body, bytes, last)? {
            return Ok(Streamed::Whole);
        }
    }
    let decoding = Decoding { encoding: text.encoding(), had_errors: text.had_errors };
    Ok(Streamed::Read(Box::new(body.finish()?), decoding))
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
            Streamed::Whole => None,
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
            assert_eq!(decoding.encoding, UTF_8);
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
        // Not a PerfMon CSV: read whole too.
        assert!(streamed(b"Linux 5.15 (host)\n", 4096).is_none());
    }
}
