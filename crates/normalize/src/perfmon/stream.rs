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
use std::sync::mpsc;

use advisor_ingest::decode::{Choice, Decoding, Encoding, UTF_8};
use advisor_ingest::{ErrorKind, IngestError};

use super::{Body, Parsed};

/// Bytes read from the file at a time. Three pieces are in memory at most: one being
/// read, one waiting, one being parsed.
pub(crate) const PIECE: usize = 32 << 20;

/// Data lines the header reader looks at (the date order, the decimal comma): the first
/// piece is made long enough to hold them.
const SAMPLE_LINES: usize = 50;

/// What reading the file in pieces gave.
pub(crate) enum Streamed {
    /// A PerfMon CSV, parsed, and how its text was decoded.
    Read(Box<Parsed>, Decoding),
    /// Not a PerfMon CSV, or one that must be decoded whole: read it whole.
    Whole,
}

/// Reads the PerfMon CSV at `path` in pieces; [`Streamed::Whole`] for anything else.
pub(crate) fn read_file(file: &str, path: &Path) -> Result<Streamed, IngestError> {
    let io = |e: std::io::Error| IngestError::new(file, None, ErrorKind::Io(e));
    let f = std::fs::File::open(path).map_err(io)?;
    let (tx, rx) = mpsc::sync_channel::<std::io::Result<Vec<u8>>>(1);
    std::thread::scope(|s| {
        s.spawn(move || read_pieces(f, &tx));
        let out = parse_pieces(file, &rx);
        // Stop the reader if the parse ended early.
        drop(rx);
        out
    })
}

/// Sends the file's bytes in pieces of [`PIECE`] (the last one shorter, then nothing).
fn read_pieces(mut f: std::fs::File, tx: &mpsc::SyncSender<std::io::Result<Vec<u8>>>) {
    loop {
        let mut buf = Vec::with_capacity(PIECE);
        let got = (&mut f).take(PIECE as u64).read_to_end(&mut buf);
        match got {
            Ok(0) => return,
            Ok(_) => {
                if tx.send(Ok(buf)).is_err() {
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

/// Bytes to text, piece by piece, cut after the last line break of what has come.
struct Text {
    choice: Choice,
    decoder: Option<encoding_rs::Decoder>,
    /// Bytes not yet made text (UTF-8 after the last line break).
    carry_bytes: Vec<u8>,
    /// Text after the last line break of the last piece (decoded encodings).
    carry_text: String,
    had_errors: bool,
}

impl Text {
    fn new(choice: Choice) -> Self {
        let decoder = match choice {
            Choice::Utf8 => None,
            Choice::Decode { encoding, .. } => Some(encoding.new_decoder_without_bom_handling()),
        };
        Self {
            choice,
            decoder,
            carry_bytes: Vec::new(),
            carry_text: String::new(),
            had_errors: false,
        }
    }

    fn encoding(&self) -> &'static Encoding {
        match self.choice {
            Choice::Utf8 => UTF_8,
            Choice::Decode { encoding, .. } => encoding,
        }
    }

    /// The text of whole lines so far (all of it when `last`); `None` when the bytes are
    /// not UTF-8 after all.
    fn next(&mut self, bytes: &[u8], last: bool) -> Option<String> {
        match &mut self.decoder {
            None => {
                self.carry_bytes.extend_from_slice(bytes);
                let cut = if last {
                    self.carry_bytes.len()
                } else {
                    self.carry_bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1)
                };
                let rest = self.carry_bytes.split_off(cut);
                let whole = std::mem::replace(&mut self.carry_bytes, rest);
                simdutf8::basic::from_utf8(&whole).ok()?;
                String::from_utf8(whole).ok()
            }
            Some(decoder) => {
                let mut out = std::mem::take(&mut self.carry_text);
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
                if !last {
                    let cut = out.rfind('\n').map_or(0, |i| i + 1);
                    self.carry_text = out.split_off(cut);
                }
                Some(out)
            }
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

fn parse_pieces(
    file: &str,
    rx: &mpsc::Receiver<std::io::Result<Vec<u8>>>,
) -> Result<Streamed, IngestError> {
    let io = |e: std::io::Error| IngestError::new(file, None, ErrorKind::Io(e));
    // The head: at least one piece, more until it holds the header and its sample lines.
    let mut head: Vec<u8> = Vec::new();
    let mut ended = false;
    loop {
        match rx.recv() {
            Ok(piece) => head.extend_from_slice(&piece.map_err(io)?),
            Err(_) => {
                ended = true;
                break;
            }
        }
        if holds_header(&String::from_utf8_lossy(&head)) {
            break;
        }
        if head.len() >= 4 * PIECE {
            // Lines so long that fifty do not fit in 128 MiB: read whole, as it always was.
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
    let mut text = Text::new(choice);
    let skip = match choice {
        Choice::Decode { skip, .. } => skip.min(head.len()),
        Choice::Utf8 => 0,
    };
    let Some(first) = text.next(&head[skip..], ended) else {
        return Ok(Streamed::Whole);
    };
    drop(head);
    let header = advisor_ingest::perfmon::read_header(file, &first)?;
    let from = header.body_start;
    let mut body = Body::new(file, header);
    body.feed(&first, from)?;
    drop(first);
    while !ended {
        let (bytes, last) = match rx.recv() {
            Ok(piece) => (piece.map_err(io)?, false),
            Err(_) => (Vec::new(), true),
        };
        ended = last;
        let Some(piece) = text.next(&bytes, last) else {
            return Ok(Streamed::Whole);
        };
        drop(bytes);
        body.feed(&piece, 0)?;
    }
    let decoding = Decoding { encoding: text.encoding(), had_errors: text.had_errors };
    Ok(Streamed::Read(Box::new(body.finish()?), decoding))
}
