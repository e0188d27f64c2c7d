//! A PerfMon CSV read from its file a piece at a time, so that memory holds the values and
//! a few pieces of text, never the whole file: a thread reads the next piece while the
//! last one is decoded, scanned and handed on.
//!
//! [`open`] reads the file's start, detects its format (once: a file that is not a PerfMon
//! CSV comes back as [`Opened::Whole`] with the reader detection chose), chooses its
//! encoding and reads the header. The [`Stream`] then gives the data lines as they come,
//! scanned ([`Next::Lines`]: whole lines and the runs of good lines in each part, ready to
//! be parsed), until [`Next::End`]; [`Stream::finish`] reports the broken lines and the
//! times. The consumer (the canonical frame's builder) only takes what it is given.
//!
//! Everything is decided as the whole-file path decides it (the same detection, the same
//! encoding, the same header and sample lines), and the result is the same. Where that
//! cannot be known from the first piece (a file whose start is UTF-8 but whose middle is
//! not: the whole file is then decoded in a legacy code page), the stream says
//! [`Next::Whole`], and the file is read whole instead.
//!
//! Pieces are read into buffers that go back and forth between the two threads, not
//! mapped: a mapped file truncated by another process kills the reader (SIGBUS), while a
//! read one comes back short, and a file that is not the length it had when it was opened
//! is an error at the line where its text stops ([`crate::file`]).

use std::path::Path;
use std::sync::{Arc, mpsc};

use advisor_model::{CaptureMeta, Location};

use super::scan::{Scanner, Segment};
use super::{Header, Language};
use crate::decode::{Choice, Decoding, Encoding, UTF_8};
use crate::file::{Changed, end_of, has_more, read_up_to};
use crate::{CaptureFormat, ErrorKind, IngestError};

/// Bytes of the file taken at a time. Three pieces are in memory at most: the one being
/// parsed, the next, read while it is (the channel holds none), and a buffer on its way
/// back to be read into again.
pub const PIECE: usize = 16 << 20;

/// Data lines the header reader looks at (the date order, the decimal comma): the head is
/// made long enough to hold them.
const SAMPLE_LINES: usize = 50;

/// What [`open`] found.
#[derive(Debug)]
pub enum Opened {
    /// A PerfMon CSV: its header read, its data lines to come.
    Stream(Box<Header>, Box<Stream>),
    /// Not a PerfMon CSV, or one that must be decoded whole: read it whole, with the reader
    /// detection chose from the file's start (none when it did not get that far), so that
    /// it is not detected again.
    Whole(Option<&'static dyn CaptureFormat>),
}

/// What [`Stream::next_lines`] gives.
#[derive(Debug)]
pub enum Next<'a> {
    /// Whole lines (UTF-8), and the runs of good lines in each part they were scanned in,
    /// as byte ranges of them.
    Lines(&'a [u8], Vec<Vec<Segment>>),
    /// Every line was given.
    End,
    /// The file is not UTF-8 after all: read it whole (with this reader).
    Whole(&'static dyn CaptureFormat),
}

/// Why the next piece did not come.
enum Fault {
    Io(std::io::Error),
    /// The file's length is no longer the one it had when it was opened.
    Changed(Changed),
}

type Sent = Result<Vec<u8>, Fault>;

/// Opens the file at `path` and, when it is a PerfMon CSV, reads its header; counter names
/// of other display languages are read with `tables`.
pub fn open(file: &str, path: &Path, tables: &[Arc<Language>]) -> Result<Opened, IngestError> {
    open_in(file, path, PIECE, tables)
}

/// [`open`] with pieces of `piece` bytes (tests take small ones).
pub fn open_in(
    file: &str,
    path: &Path,
    piece: usize,
    tables: &[Arc<Language>],
) -> Result<Opened, IngestError> {
    let io = |e: std::io::Error| IngestError::new(file, None, ErrorKind::Io(e));
    let f = std::fs::File::open(path).map_err(io)?;
    let len = f.metadata().ok().filter(std::fs::Metadata::is_file).map(|m| m.len());
    let (tx, rx) = mpsc::sync_channel::<Sent>(0);
    let (back, recycled) = mpsc::channel::<Vec<u8>>();
    let reader = std::thread::spawn(move || send_pieces(f, len, piece, &tx, &recycled));
    start(file, Pieces { rx, back, reader: Some(reader) }, len, piece, tables)
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

/// The pieces coming from the reader thread, and the way back for their buffers.
struct Pieces {
    rx: mpsc::Receiver<Sent>,
    back: mpsc::Sender<Vec<u8>>,
    reader: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Pieces {
    fn drop(&mut self) {
        // Stop the reader (its next send fails) and wait for it: a stream dropped early
        // leaves no thread reading behind it.
        let (_, rx) = mpsc::sync_channel::<Sent>(0);
        drop(std::mem::replace(&mut self.rx, rx));
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
    }
}

/// Whether `text` (the start of a file) holds the header line and the data lines the
/// header reader samples.
fn holds_header(text: &str) -> bool {
    let lines = text.split_inclusive('\n').filter(|l| !l.trim().is_empty());
    // The header, then the sample lines, each complete (ended by its line break).
    lines.take(SAMPLE_LINES + 1).filter(|l| l.ends_with('\n')).count() > SAMPLE_LINES
}

/// Reads the head (at least one piece, more until it holds the header and its sample
/// lines), detects the format, chooses the encoding and reads the header.
fn start(
    file: &str,
    pieces: Pieces,
    len: Option<u64>,
    piece: usize,
    tables: &[Arc<Language>],
) -> Result<Opened, IngestError> {
    let mut head: Vec<u8> = Vec::new();
    let mut ended = false;
    loop {
        match pieces.rx.recv() {
            Ok(Ok(p)) => {
                head.extend_from_slice(&p);
                let _ = pieces.back.send(p);
            }
            Ok(Err(f)) => return Err(located(file, f, end_of(&head))),
            Err(_) => {
                ended = true;
                break;
            }
        }
        if holds_header(&String::from_utf8_lossy(&head)) {
            break;
        }
        if head.len() >= 4 * piece {
            // Lines so long that fifty do not fit in four pieces: read whole, as it
            // always was.
            return Ok(Opened::Whole(None));
        }
    }
    if head.iter().all(u8::is_ascii_whitespace) {
        return Ok(Opened::Whole(None));
    }
    // Detection reads the first `HEAD` bytes, which the head holds: what it says of the
    // head it says of the file.
    let reader = crate::detect(file, &head)?;
    if reader.format() != super::FORMAT {
        return Ok(Opened::Whole(Some(reader)));
    }
    let choice = crate::decode::choose(&head, ended);
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
                Err(_) => return Ok(Opened::Whole(Some(reader))),
            }
        }
        Choice::Decode { .. } => text.decode(&head[skip..], ended),
    };
    let header = super::read_header_with(file, &first, tables)?;
    if matches!(choice, Choice::Utf8) {
        text.carry.extend_from_slice(&head[first.len()..]);
    }
    drop(head);
    let size_hint = len.map(|l| l.saturating_sub(header.body_start as u64));
    let stream = Stream {
        file: file.to_owned(),
        reader,
        scanner: Scanner::new(&header),
        text,
        pieces,
        size_hint,
        ended,
        first: Some((first, header.body_start)),
        given: Given::Nothing,
        piece: Vec::new(),
        rest: None,
        decoded: String::new(),
    };
    Ok(Opened::Stream(Box::new(header), Box::new(stream)))
}

/// A fault, located where the text read so far ends.
fn located(file: &str, f: Fault, at: Location) -> IngestError {
    match f {
        Fault::Io(e) => IngestError::new(file, None, ErrorKind::Io(e)),
        Fault::Changed(c) => c.error(file, at),
    }
}

/// What the last [`Stream::next_lines`] gave, to let go of before the next.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Given {
    Nothing,
    /// The carried line, finished by the start of the piece.
    Carry,
    /// Lines of the piece.
    Piece,
    /// Lines of text of its own (the head's, or a piece decoded).
    Text,
}

/// The data lines of a PerfMon CSV, as they come from its file ([`open`]).
pub struct Stream {
    file: String,
    reader: &'static dyn CaptureFormat,
    scanner: Scanner,
    text: Text,
    pieces: Pieces,
    /// Bytes of data lines the file holds, when known (sizes the columns).
    size_hint: Option<u64>,
    /// The file has been read to its end.
    ended: bool,
    /// The head's whole lines, given first from the data lines' start.
    first: Option<(String, usize)>,
    given: Given,
    /// The piece whose lines are being given (UTF-8), and where its lines not yet given
    /// start, when the carried line was given first.
    piece: Vec<u8>,
    rest: Option<usize>,
    /// A piece decoded from another encoding.
    decoded: String,
}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stream")
            .field("file", &self.file)
            .field("next_line", &self.scanner.next_line())
            .field("ended", &self.ended)
            .finish_non_exhaustive()
    }
}

impl Stream {
    /// Bytes of data lines the file holds, when known.
    pub fn size_hint(&self) -> Option<u64> {
        self.size_hint
    }

    /// The threads the scan shared its parts among (the parse may share them as widely).
    pub fn threads(&self) -> usize {
        self.scanner.threads()
    }

    /// The next whole lines, scanned; [`Next::End`] after the last.
    ///
    /// Errors: the file could not be read on, or changed while it was (located at the line
    /// and column where the text read stops).
    pub fn next_lines(&mut self) -> Result<Next<'_>, IngestError> {
        // What was given last is let go of: a given piece's buffer goes back to be read
        // into again.
        match std::mem::replace(&mut self.given, Given::Nothing) {
            Given::Carry => self.text.carry.clear(),
            // The head's lines (a piece or more) are not kept while the rest is read.
            Given::Text => self.decoded = String::new(),
            Given::Piece if self.rest.is_none() => {
                let _ = self.pieces.back.send(std::mem::take(&mut self.piece));
            }
            _ => {}
        }
        if let Some((first, from)) = self.first.take() {
            let parts = self.scanner.scan(&first, from);
            self.decoded = first;
            self.given = Given::Text;
            return Ok(Next::Lines(self.decoded.as_bytes(), parts));
        }
        loop {
            if let Some(start) = self.rest.take() {
                // The lines of the piece after the carried line it finished.
                let last = self.ended;
                let rest = &self.piece[start..];
                let cut = if last {
                    rest.len()
                } else {
                    memchr::memrchr(b'\n', rest).map_or(0, |i| i + 1)
                };
                let Some(parts) = self.scanner.scan_utf8(&rest[..cut]) else {
                    return Ok(Next::Whole(self.reader));
                };
                self.text.carry.extend_from_slice(&rest[cut..]);
                self.given = Given::Piece;
                return Ok(Next::Lines(&self.piece[start..start + cut], parts));
            }
            if self.ended {
                return Ok(Next::End);
            }
            let (piece, last) = match self.pieces.rx.recv() {
                Ok(Ok(piece)) => (piece, false),
                Ok(Err(f)) => {
                    let at = self.text.cut(self.scanner.next_line());
                    return Err(located(&self.file, f, at));
                }
                Err(_) => (Vec::new(), true),
            };
            self.ended = last;
            if self.text.decoder.is_some() {
                self.decoded = self.text.decode(&piece, last);
                let _ = self.pieces.back.send(piece);
                let parts = self.scanner.scan(&self.decoded, 0);
                self.given = Given::Text;
                return Ok(Next::Lines(self.decoded.as_bytes(), parts));
            }
            self.piece = piece;
            if self.text.carry.is_empty() {
                self.rest = Some(0);
                continue;
            }
            // The carried line, finished by this piece's first line break.
            let end = if last {
                self.piece.len()
            } else {
                match memchr::memchr(b'\n', &self.piece) {
                    Some(i) => i + 1,
                    None => {
                        self.text.carry.extend_from_slice(&self.piece);
                        let _ = self.pieces.back.send(std::mem::take(&mut self.piece));
                        continue;
                    }
                }
            };
            self.text.carry.extend_from_slice(&self.piece[..end]);
            let Ok(line) = simdutf8::basic::from_utf8(&self.text.carry) else {
                return Ok(Next::Whole(self.reader));
            };
            let parts = self.scanner.scan(line, 0);
            self.rest = Some(end);
            self.given = Given::Carry;
            return Ok(Next::Lines(&self.text.carry, parts));
        }
    }

    /// After [`Next::End`]: the broken lines reported and the times checked into `meta`;
    /// one time per good line, and how the text was decoded.
    pub fn finish(self, meta: &mut CaptureMeta) -> Result<(Vec<i64>, Decoding), IngestError> {
        let decoding =
            Decoding { encoding: self.text.encoding(), had_errors: self.text.had_errors };
        let time_ms = self.scanner.finish(&self.file, meta)?;
        Ok((time_ms, decoding))
    }
}

/// Bytes to text, piece by piece. UTF-8 is validated where it lies (by the scan); only the
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

    /// Where the text given so far stops: `next_line`, at the column past the part of it
    /// carried.
    fn cut(&self, next_line: u64) -> Location {
        let carried = if self.decoder.is_some() {
            self.carry_text.chars().count()
        } else {
            String::from_utf8_lossy(&self.carry).chars().count()
        };
        Location::line(next_line, carried as u64 + 1)
    }

    fn encoding(&self) -> &'static Encoding {
        match self.choice {
            Choice::Utf8 => UTF_8,
            Choice::Decode { encoding, .. } => encoding,
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perfmon::counters::names::shipped_tables;

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
            let pieces = Pieces { rx, back, reader: None };
            let opened = start("c.csv", pieces, Some(bytes.len() as u64), piece, shipped_tables());
            let Ok(Opened::Stream(_, mut lines)) = opened else {
                panic!("{piece}: not read as a stream")
            };
            let e = loop {
                match lines.next_lines() {
                    Err(e) => break e,
                    Ok(Next::Lines(..)) => {}
                    Ok(Next::End | Next::Whole(_)) => panic!("{piece}: a cut file was read"),
                }
            };
            assert_eq!(e.location, Some(Location::line(2001, 11)), "{piece}: {e}");
            assert!(e.to_string().starts_with(&format!("c.csv:2001:11: cannot read the file: the file changed while it was read: it had {} bytes when it was opened and it ends at byte {cut} now", bytes.len())), "{e}");
        }
    }
}
