//! A PerfMon CSV read from its file a piece at a time, so that memory holds the values
//! and a few pieces of text, never the whole file: a thread reads the next piece while the
//! last one is decoded, scanned and parsed ([`super::Body`]).
//!
//! Everything is decided as the whole-file path decides it (the same detection, the same
//! encoding, the same header and sample lines), and the result is the same frame. Where
//! that cannot be known from the first piece (a file whose start is UTF-8 but whose middle
//! is not: the whole file is then decoded in a legacy code page), the caller is told to
//! read the file whole instead.
//!
//! Pieces are read into buffers that go back and forth between the two threads, not
//! mapped: a mapped file truncated by another process kills the reader (SIGBUS), while a
//! read one comes back short, and a file that is not the length it had when it was opened
//! is an error at the line where its text stops ([`crate::file`]).

use std::path::Path;
use std::sync::{Arc, mpsc};

use advisor_ingest::decode::{Choice, Decoding, Encoding, UTF_8};
use advisor_ingest::perfmon::Language;
use advisor_ingest::{ErrorKind, IngestError};
use advisor_model::Location;

use super::{Body, Parsed};
use crate::file::{Changed, has_more, read_up_to};

/// Bytes of the file taken at a time. Three pieces are in memory at most: the one being
/// parsed, the next, read while it is (the channel holds none), and a buffer on its way
/// back to be read into again.
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

/// Why the next piece did not come.
enum Fault {
    Io(std::io::Error),
    /// The file's length is no longer the one it had when it was opened.
    Changed(Changed),
}

type Sent = Result<Vec<u8>, Fault>;

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
    let io = |e: std::io::Error| IngestError::new(file, None, ErrorKind::Io(e));
    let f = std::fs::File::open(path).map_err(io)?;
    let len = f.metadata().ok().filter(std::fs::Metadata::is_file).map(|m| m.len());
    let (tx, rx) = mpsc::sync_channel::<Sent>(0);
    let (back, recycled) = mpsc::channel::<Vec<u8>>();
    std::thread::scope(|s| {
        s.spawn(move || send_pieces(f, len, piece, &tx, &recycled));
        let out = parse_pieces(file, len, piece, &rx, &back, tables);
        // Stop the reader if the parse ended early.
        drop(rx);
        out
    })
}

/// Sends the file in pieces of `piece` bytes (the last one shorter), then nothing; a
/// regular file must have the length `len` it had when opened, to the end.
fn send_pieces(
    mut f: std::fs::File,
    len: Option<u64>,
    piece: usize,
    tx: &mpsc::SyncSender<Sent>,
    recycled: &mpsc::Receiver<Vec<u8>>,
) {
    let mut offset = 0u64;
    loop {
        let want = match len {
            Some(len) if offset >= len => {
                // Read to the length it had: anything after it was written since.
                match has_more(&mut f) {
                    Ok(false) => {}
                    Ok(true) => {
                        let _ = tx.send(Err(Fault::Changed(Changed { opened: len, at: offset })));
                    }
                    Err(e) => {
                        let _ = tx.send(Err(Fault::Io(e)));
                    }
                }
                return;
            }
            #[allow(clippy::cast_possible_truncation)]
            Some(len) => (len - offset).min(piece as u64) as usize,
            None => piece,
        };
        let mut buf = recycled.try_recv().unwrap_or_default();
        let n = match read_up_to(&mut f, &mut buf, want) {
            Ok(n) => n,
            Err(e) => {
                let _ = tx.send(Err(Fault::Io(e)));
                return;
            }
        };
        if n == 0 && len.is_none() {
            return;
        }
        offset += n as u64;
        // What was read, a piece cut short too: the parse locates the cut after it.
        if n > 0 && tx.send(Ok(buf)).is_err() {
            return;
        }
        if let Some(opened) = len
            && n < want
        {
            let _ = tx.send(Err(Fault::Changed(Changed { opened, at: offset })));
            return;
        }
    }
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

    /// Where the text fed so far stops: the line after the whole lines `body` has taken,
    /// at the column past the part of it carried.
    fn cut(&self, body: &Body) -> Location {
        let carried = if self.decoder.is_some() {
            self.carry_text.chars().count()
        } else {
            String::from_utf8_lossy(&self.carry).chars().count()
        };
        Location::line(body.next_line(), carried as u64 + 1)
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
    back: &mpsc::Sender<Vec<u8>>,
    tables: &[Arc<Language>],
) -> Result<Streamed, IngestError> {
    // A fault, located where the text read so far ends.
    let fault = |f: Fault, at: Location| match f {
        Fault::Io(e) => IngestError::new(file, None, ErrorKind::Io(e)),
        Fault::Changed(c) => c.error(file, at),
    };
    // The head: at least one piece, more until it holds the header and its sample lines.
    let mut head: Vec<u8> = Vec::new();
    let mut ended = false;
    loop {
        match rx.recv() {
            Ok(Ok(piece)) => {
                head.extend_from_slice(&piece);
                let _ = back.send(piece);
            }
            Ok(Err(f)) => return Err(fault(f, crate::file::end_of(&head))),
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
            Ok(Ok(piece)) => (piece, false),
            Ok(Err(f)) => return Err(fault(f, text.cut(&body))),
            Err(_) => (Vec::new(), true),
        };
        ended = last;
        if !text.feed(&mut body, &piece, last)? {
            return Ok(Streamed::Whole);
        }
        let _ = back.send(piece);
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

    fn temp(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let path =
            std::env::temp_dir().join(format!("advisor-stream-{}-{name}.csv", std::process::id()));
        std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{e}"));
        path
    }

    /// The reader thread's pieces of a file truncated, then of one grown, after the first
    /// piece was taken: whatever was read, then the change with the lengths.
    #[test]
    fn a_file_cut_or_grown_while_its_pieces_are_read_is_a_change_not_a_short_capture() {
        let piece = 4096;
        let text = capture(3000);
        assert!(text.len() > 6 * piece);
        let path = temp("cut", text.as_bytes());
        let f = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{e}"));
        let len = Some(text.len() as u64);
        let (tx, rx) = mpsc::sync_channel::<Sent>(0);
        let (_back, recycled) = mpsc::channel::<Vec<u8>>();
        let got = std::thread::scope(|s| {
            s.spawn(move || send_pieces(f, len, piece, &tx, &recycled));
            let mut got = Vec::new();
            // The first piece; the reader is now reading the second, and waits to hand it
            // over before it reads the third.
            got.push(rx.recv().ok());
            let cut = std::fs::OpenOptions::new()
                .write(true)
                .open(&path)
                .unwrap_or_else(|e| panic!("{e}"));
            cut.set_len(2 * piece as u64 + 100).unwrap_or_else(|e| panic!("{e}"));
            while let Ok(x) = rx.recv() {
                got.push(Some(x));
            }
            got
        });
        let sizes: Vec<String> = got
            .iter()
            .map(|x| match x {
                Some(Ok(b)) => b.len().to_string(),
                Some(Err(Fault::Changed(c))) => format!("changed {} -> {}", c.opened, c.at),
                Some(Err(Fault::Io(e))) => format!("io {e}"),
                None => "nothing".to_owned(),
            })
            .collect();
        let want = format!("changed {} -> {}", text.len(), 2 * piece + 100);
        assert_eq!(sizes, ["4096", "4096", "100", want.as_str()]);

        // Grown: every piece as long as it was, then the change.
        std::fs::write(&path, text.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
        let f = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{e}"));
        let (tx, rx) = mpsc::sync_channel::<Sent>(0);
        let (_back, recycled) = mpsc::channel::<Vec<u8>>();
        let (total, last) = std::thread::scope(|s| {
            s.spawn(move || send_pieces(f, len, piece, &tx, &recycled));
            let mut total = rx.recv().ok().and_then(Result::ok).map_or(0, |b| b.len());
            let mut more = std::fs::OpenOptions::new()
                .append(true)
                .open(&path)
                .unwrap_or_else(|e| panic!("{e}"));
            std::io::Write::write_all(&mut more, b"\"01/02/2024 23:59:59.000\",\"1\"\r\n")
                .unwrap_or_else(|e| panic!("{e}"));
            let mut last = None;
            while let Ok(x) = rx.recv() {
                match x {
                    Ok(b) => total += b.len(),
                    Err(Fault::Changed(c)) => last = Some(c),
                    Err(Fault::Io(e)) => panic!("{e}"),
                }
            }
            (total, last)
        });
        assert_eq!(total, text.len());
        assert_eq!(last, Some(Changed { opened: text.len() as u64, at: text.len() as u64 }));
        let _ = std::fs::remove_file(&path);
    }

    /// The parse of pieces that end in a change: the error names the file and the line
    /// and column where the text read stops.
    #[test]
    fn a_change_is_located_at_the_line_where_the_text_stops() {
        let text = capture(3000);
        // Cut inside line 2001 (the header is line 1): after the date's first 9 characters.
        let line_start: usize = text.split_inclusive('\n').take(2000).map(str::len).sum();
        let cut = line_start + 10;
        let bytes = text.as_bytes();
        for piece in [4096, 1 << 20] {
            let (tx, rx) = mpsc::sync_channel::<Sent>(cut / piece + 2);
            let (back, _recycled) = mpsc::channel::<Vec<u8>>();
            for chunk in bytes[..cut].chunks(piece) {
                tx.send(Ok(chunk.to_vec())).unwrap_or_else(|e| panic!("{e}"));
            }
            let changed = Changed { opened: bytes.len() as u64, at: cut as u64 };
            tx.send(Err(Fault::Changed(changed))).unwrap_or_else(|e| panic!("{e}"));
            drop(tx);
            let e = match parse_pieces(
                "c.csv",
                Some(bytes.len() as u64),
                piece,
                &rx,
                &back,
                shipped_tables(),
            ) {
                Err(e) => e,
                Ok(_) => panic!("{piece}: a cut file was read"),
            };
            assert_eq!(e.location, Some(Location::line(2001, 11)), "{piece}: {e}");
            assert!(e.to_string().starts_with(&format!("c.csv:2001:11: cannot read the file: the file changed while it was read: it had {} bytes when it was opened and it ends at byte {cut} now", bytes.len())), "{e}");
        }
    }
}
