//! Reading a capture file: with `read`, never by mapping it. A file mapped into memory that
//! another process truncates kills the reader with SIGBUS when it touches the pages that
//! are gone; read, the same file only comes back short. A file whose length changes while
//! it is read (shrunk, or grown: still being written, rotated, copied over) is an error
//! that says where the text stopped, never a partial capture taken for the whole.

use std::io::Read as _;
use std::path::Path;

use crate::{ErrorKind, IngestError};
use advisor_model::Location;

/// A file whose length is not the one it had when it was opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Changed {
    /// Its length when opened.
    pub(crate) opened: u64,
    /// Bytes read when the change showed: fewer than `opened` if it shrank.
    pub(crate) at: u64,
}

impl Changed {
    /// The error, at `location` (where the text read ends).
    pub(crate) fn error(self, file: &str, location: Location) -> IngestError {
        let now = if self.at < self.opened {
            format!("it ends at byte {} now", self.at)
        } else {
            "more has been written to it since".to_owned()
        };
        let message = format!(
            "the file changed while it was read: it had {} bytes when it was opened and {now}. \
             A capture that is still being written, rotated or copied cannot be read as it \
             stands: analyze a copy made once it is complete",
            self.opened
        );
        IngestError::new(
            file,
            Some(location),
            ErrorKind::Io(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, message)),
        )
    }
}

/// Reads up to `want` bytes into `buf` (cleared first), fewer only at the end of the file.
pub(crate) fn read_up_to(
    f: &mut std::fs::File,
    buf: &mut Vec<u8>,
    want: usize,
) -> std::io::Result<usize> {
    buf.clear();
    buf.reserve(want);
    f.take(want as u64).read_to_end(buf)
}

/// Whether anything follows what has been read: the file grew past its opened length.
pub(crate) fn has_more(f: &mut std::fs::File) -> std::io::Result<bool> {
    let mut one = [0u8; 1];
    loop {
        match f.read(&mut one) {
            Ok(n) => return Ok(n > 0),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// The whole file. A regular file must keep the length it had when opened; anything else
/// (a pipe) is read to its end.
pub fn read_whole(file: &str, path: &Path) -> Result<Vec<u8>, IngestError> {
    let io = |e: std::io::Error| IngestError::new(file, None, ErrorKind::Io(e));
    let mut f = std::fs::File::open(path).map_err(io)?;
    let len = f.metadata().ok().filter(std::fs::Metadata::is_file).map(|m| m.len());
    let mut bytes = Vec::new();
    let Some(len) = len else {
        f.read_to_end(&mut bytes).map_err(io)?;
        return Ok(bytes);
    };
    let want = usize::try_from(len).map_err(|_| {
        io(std::io::Error::new(std::io::ErrorKind::OutOfMemory, "the file is larger than memory"))
    })?;
    let got = read_up_to(&mut f, &mut bytes, want).map_err(io)?;
    if got < want || has_more(&mut f).map_err(io)? {
        let changed = Changed { opened: len, at: got as u64 };
        return Err(changed.error(file, end_of(&bytes)));
    }
    Ok(bytes)
}

/// The line and column just past the last byte of `bytes` (the column in characters).
pub(crate) fn end_of(bytes: &[u8]) -> Location {
    let line = memchr::memchr_iter(b'\n', bytes).count() as u64 + 1;
    let start = memchr::memrchr(b'\n', bytes).map_or(0, |i| i + 1);
    let column = String::from_utf8_lossy(&bytes[start..]).chars().count() as u64 + 1;
    Location::line(line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let p = std::env::temp_dir().join(format!("advisor-file-{}-{name}", std::process::id()));
        std::fs::write(&p, bytes).unwrap_or_else(|e| panic!("{e}"));
        p
    }

    #[test]
    fn a_file_is_read_whole_and_its_end_located() {
        let p = temp("whole", "a,b\n1,2\nxé".as_bytes());
        let bytes = read_whole("w.csv", &p).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(bytes, "a,b\n1,2\nxé".as_bytes());
        assert_eq!(end_of(&bytes), Location::line(3, 3));
        assert_eq!(end_of(b""), Location::line(1, 1));
        let _ = std::fs::remove_file(&p);
    }

    #[test]
    fn a_change_is_worded_with_its_lengths() {
        let shrunk = Changed { opened: 100, at: 40 }.error("c.csv", Location::line(3, 1));
        let text = shrunk.to_string();
        assert!(text.starts_with("c.csv:3:1: cannot read the file: the file changed while it was read: it had 100 bytes when it was opened and it ends at byte 40 now."), "{text}");
        let grown = Changed { opened: 100, at: 100 }.error("c.csv", Location::line(9, 1));
        assert!(
            grown.to_string().contains(
                "it had 100 bytes when it was opened and more has been written to it since"
            ),
            "{grown}"
        );
    }
}
