//! What anonbox reads by name: regular files, opened without blocking, and lines of a bounded
//! length.
//!
//! **Regular files only.** Every file read by name (a run's input, hierarchy, subset and mapping
//! files, the inputs of `audit`, `init` and `hierarchy`) must be a regular file: a device never
//! ends (`/dev/zero` was read for ever), a FIFO without a writer blocks the open for ever, and
//! neither can be read twice. Checking the name before opening it leaves a gap (the name can be
//! swapped for a FIFO in between), and checking after a plain open is too late (the open itself
//! blocks), so [`open_regular`] opens with `O_NONBLOCK`, which never blocks and means nothing
//! to a regular file, takes the type from the open descriptor and only then clears the flag.
//! A config may also be a pipe that something writes into (`-config <(...)`, see
//! [`open_config`]); one without a writer is refused at once.
//!
//! **Bounded lines.** Readers take a line at most [`DEFAULT_MAX_LINE`] bytes long unless told
//! otherwise (`-maxLineLength`, `--max-line-length`, parsed by [`parse_size`]): a file without a
//! line end (a binary, a 1 GB blob) is an error naming the line, with memory bounded by the
//! limit, never an abort when memory runs out. [`read_line`] is the bounded `read_until`.

use std::fs::File;
use std::io::{self, BufRead};
use std::path::Path;

/// The default longest line (and record) a reader accepts: 64 MiB.
pub const DEFAULT_MAX_LINE: usize = 64 << 20;

/// What every message about a line too long adds.
pub const RAISE_HINT: &str = "(raise the limit with -maxLineLength SIZE, or --max-line-length \
                              SIZE for audit, init and hierarchy)";

/// The message of a line longer than `limit` bytes.
pub fn too_long(limit: usize) -> String {
    format!(
        "the line is longer than {}, the longest line anonbox reads: is the file delimited \
         text? {RAISE_HINT}",
        shown_size(limit)
    )
}

/// Opens `path` for reading if it is a regular file (following links). A folder, device, FIFO
/// or socket is an error of kind `InvalidInput` saying what it is; nothing blocks.
pub fn open_regular(path: &Path) -> io::Result<File> {
    match open_nonblocking(path)? {
        (file, None) => Ok(file),
        (_, Some(what)) => Err(not_regular(what)),
    }
}

/// A config as opened by [`open_config`].
pub enum Config {
    /// A regular file of this many bytes.
    File(File, u64),
    /// A pipe with a writer (`-config <(...)`): the bytes the check read, then the rest.
    Pipe(Vec<u8>, File),
}

/// Opens a config: a regular file, or a pipe that something writes into (a process
/// substitution, `-config <(...)`). A pipe without a writer (a FIFO nobody opened) is refused
/// instead of waiting for one; folders, devices and sockets as [`open_regular`] refuses them.
pub fn open_config(path: &Path) -> io::Result<Config> {
    let (file, what) = open_nonblocking(path)?;
    match what {
        None => {
            let len = file.metadata()?.len();
            Ok(Config::File(file, len))
        }
        #[cfg(unix)]
        Some(FIFO) => {
            // Still non-blocking: an empty pipe with a writer says `WouldBlock`, one without a
            // writer reads as ended (0 bytes). One that holds text is read to its end.
            let mut head = vec![0u8; 1 << 16];
            loop {
                match io::Read::read(&mut &file, &mut head) {
                    Ok(0) => {
                        return Err(io::Error::new(
                            io::ErrorKind::InvalidInput,
                            "a FIFO (named pipe) that nothing writes into: give a file",
                        ))
                    }
                    Ok(n) => {
                        head.truncate(n);
                        break;
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                        head.clear();
                        break;
                    }
                    Err(e) => return Err(e),
                }
            }
            blocking(&file)?;
            Ok(Config::Pipe(head, file))
        }
        Some(what) => Err(not_regular(what)),
    }
}

const FIFO: &str = "a FIFO (named pipe)";

/// The error of a file that is not a regular one.
fn not_regular(what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{what}, not a regular file"),
    )
}

/// Opens `path` read-only without blocking; the second item is what the file is if it is not
/// a regular file (the descriptor is then non-blocking still).
#[cfg(unix)]
fn open_nonblocking(path: &Path) -> io::Result<(File, Option<&'static str>)> {
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
        .open(path)?;
    let t = file.metadata()?.file_type();
    let what = if t.is_file() {
        None
    } else if t.is_dir() {
        Some("a folder")
    } else if t.is_fifo() {
        Some(FIFO)
    } else if t.is_char_device() {
        Some("a character device")
    } else if t.is_block_device() {
        Some("a block device")
    } else if t.is_socket() {
        Some("a socket")
    } else {
        Some("not a file")
    };
    if what.is_none() {
        blocking(&file)?;
    }
    Ok((file, what))
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> io::Result<(File, Option<&'static str>)> {
    let file = File::open(path)?;
    let what = (!file.metadata()?.is_file()).then_some("not a file");
    Ok((file, what))
}

/// Clears `O_NONBLOCK` (reads of a pipe then wait for its writer, as any reader's do).
#[cfg(unix)]
fn blocking(file: &File) -> io::Result<()> {
    use rustix::fs::{fcntl_getfl, fcntl_setfl, OFlags};
    let flags = fcntl_getfl(file)?;
    fcntl_setfl(file, flags - OFlags::NONBLOCK)?;
    Ok(())
}

#[cfg(not(unix))]
fn blocking(_: &File) -> io::Result<()> {
    Ok(())
}

/// Appends the next line of `src` to `buf`, its `\n` included: the bytes appended (0 at the end
/// of the input), or `None` if the line is longer than `limit` bytes (its line end, `\n` or
/// `\r\n`, not counted); then what was appended is the line's start, at most `limit + 1` bytes,
/// and the rest is left unread.
pub fn read_line<R: BufRead>(
    src: &mut R,
    buf: &mut Vec<u8>,
    limit: usize,
) -> io::Result<Option<usize>> {
    let start = buf.len();
    loop {
        let avail = match src.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let had = buf.len() - start;
        if avail.is_empty() {
            // The last line, without a `\n` (a `\r` ends a line too).
            let cr = usize::from(buf.last() == Some(&b'\r') && had > 0);
            return Ok((had - cr <= limit).then_some(had));
        }
        let (take, too_long) = match memchr::memchr(b'\n', avail) {
            Some(i) => {
                let cr = if i > 0 {
                    avail[i - 1] == b'\r'
                } else {
                    had > 0 && buf.last() == Some(&b'\r')
                };
                (i + 1, had + i - usize::from(cr) > limit)
            }
            // A `\r` beyond the limit may be the start of a line end.
            None => (avail.len(), had + avail.len() > limit.saturating_add(1)),
        };
        if too_long {
            return Ok(None);
        }
        buf.extend_from_slice(&avail[..take]);
        src.consume(take);
        if buf.last() == Some(&b'\n') {
            return Ok(Some(buf.len() - start));
        }
    }
}

/// A reader that fails (an I/O error that [`line_too_long`] recognizes) once a line of `R`'s
/// text is longer than a limit, for readers that do not read line by line themselves (the csv
/// crate's, of hierarchy files): what they hold stays within the limit.
pub struct LineLimit<R> {
    inner: R,
    limit: usize,
    /// The 1-based number of the current line, and its bytes so far.
    line: u64,
    run: usize,
}

impl<R> LineLimit<R> {
    /// `inner`, whose lines may be at most `limit` bytes long (their `\n` not counted).
    pub fn new(inner: R, limit: usize) -> LineLimit<R> {
        LineLimit {
            inner,
            limit,
            line: 1,
            run: 0,
        }
    }
}

impl<R: io::Read> io::Read for LineLimit<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let mut rest = &buf[..n];
        loop {
            let (len, ended) = match memchr::memchr(b'\n', rest) {
                Some(i) => (i, true),
                None => (rest.len(), false),
            };
            if self.run + len > self.limit {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    TooLong {
                        line: self.line,
                        limit: self.limit,
                    },
                ));
            }
            if !ended {
                self.run += len;
                return Ok(n);
            }
            (self.run, self.line) = (0, self.line + 1);
            rest = &rest[len + 1..];
        }
    }
}

/// The payload of [`LineLimit`]'s error.
#[derive(Debug)]
struct TooLong {
    line: u64,
    limit: usize,
}

impl std::fmt::Display for TooLong {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&too_long(self.limit))
    }
}

impl std::error::Error for TooLong {}

/// The line and message of an error of [`LineLimit`], if `e` is one.
pub fn line_too_long(e: &io::Error) -> Option<(u64, String)> {
    let t = e.get_ref()?.downcast_ref::<TooLong>()?;
    Some((t.line, t.to_string()))
}

/// A size in bytes as given to `-maxLineLength` / `--max-line-length`: digits, optionally
/// followed by `K`, `M` or `G` (KiB, MiB, GiB; `KiB`, `MB`, ... accepted, any case). At least 1.
pub fn parse_size(given: &str) -> Result<usize, String> {
    let s = given.trim();
    let digits = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (number, unit) = s.split_at(digits);
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        _ => return Err(size_error(given)),
    };
    number
        .parse::<usize>()
        .ok()
        .and_then(|n| n.checked_mul(1 << shift))
        .filter(|&n| n > 0)
        .ok_or_else(|| size_error(given))
}

fn size_error(given: &str) -> String {
    format!("'{given}' is not a size in bytes > 0 (such as 1000000, 64M or 1G)")
}

/// A size as messages show it: `64 MiB`, `512 KiB`, `1000 bytes`.
pub fn shown_size(n: usize) -> String {
    for (shift, unit) in [(30, "GiB"), (20, "MiB"), (10, "KiB")] {
        if n >= 1 << shift && n.is_multiple_of(1 << shift) {
            return format!("{} {unit}", n >> shift);
        }
    }
    format!("{n} bytes")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("1000"), Ok(1000));
        assert_eq!(parse_size("64M"), Ok(DEFAULT_MAX_LINE));
        assert_eq!(parse_size(" 2 KiB"), Ok(2048));
        assert_eq!(parse_size("1g"), Ok(1 << 30));
        for bad in ["", "0", "M", "1.5M", "-1", "1T", "99999999999999999999G"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
        assert_eq!(shown_size(DEFAULT_MAX_LINE), "64 MiB");
        assert_eq!(shown_size(3 << 30), "3 GiB");
        assert_eq!(shown_size(1000), "1000 bytes");
    }

    #[test]
    fn lines_are_read_up_to_the_limit() {
        let read_all = |data: &[u8], limit: usize| {
            // A small buffer: lines cross the reads.
            let mut src = io::BufReader::with_capacity(3, data);
            let mut lines = Vec::new();
            loop {
                let mut buf = Vec::new();
                match read_line(&mut src, &mut buf, limit).unwrap() {
                    Some(0) => return Ok(lines),
                    Some(_) => lines.push(buf),
                    None => return Err(lines.len()),
                }
            }
        };
        assert_eq!(
            read_all(b"abcd\nab\r\nabcd\r\nxy", 4),
            Ok(vec![
                b"abcd\n".to_vec(),
                b"ab\r\n".to_vec(),
                b"abcd\r\n".to_vec(),
                b"xy".to_vec()
            ])
        );
        assert_eq!(read_all(b"abcd\nabcde\n", 4), Err(1));
        assert_eq!(
            read_all(b"abcd\nabcd\r", 4),
            Ok(vec![b"abcd\n".to_vec(), b"abcd\r".to_vec()])
        );
        assert_eq!(read_all(b"abcd\nabcdef", 4), Err(1));
    }

    #[test]
    fn line_limit_names_the_line() {
        let mut out = Vec::new();
        let mut r = LineLimit::new(&b"ab\nabc\nabcd\n"[..], 3);
        let e = r.read_to_end(&mut out).unwrap_err();
        let (line, message) = line_too_long(&e).unwrap();
        assert_eq!(line, 3);
        assert!(
            message.starts_with("the line is longer than 3 bytes"),
            "{message}"
        );
        let mut r = LineLimit::new(&b"ab\nabc\nabc"[..], 3);
        assert!(r.read_to_end(&mut out).is_ok());
    }

    /// Devices, folders and FIFOs are refused at once (a FIFO without a writer blocked the
    /// open for ever); a config may be a pipe with a writer.
    #[cfg(unix)]
    #[test]
    fn only_regular_files_are_opened() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        assert!(std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        for (path, what) in [
            (
                Path::new("/dev/null"),
                "a character device, not a regular file",
            ),
            (dir.path(), "a folder, not a regular file"),
            (&fifo, "a FIFO (named pipe), not a regular file"),
        ] {
            let e = open_regular(path).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
            assert_eq!(e.to_string(), what);
        }
        let file = dir.path().join("f");
        std::fs::write(&file, "x").unwrap();
        let mut text = String::new();
        open_regular(&file)
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text, "x");

        let e = open_config(&fifo).err().unwrap();
        assert!(e.to_string().contains("that nothing writes into"), "{e}");
        // With a writer (that has written, or not yet): read to its end.
        let writer = {
            let fifo = fifo.clone();
            std::thread::spawn(move || {
                let mut w = std::fs::OpenOptions::new().write(true).open(fifo).unwrap();
                std::thread::sleep(std::time::Duration::from_millis(200));
                io::Write::write_all(&mut w, b"<config/>").unwrap();
            })
        };
        let source = loop {
            // The writer's open waits for a reader: retry until it is there.
            match open_config(&fifo) {
                Ok(s) => break s,
                Err(_) => std::thread::sleep(std::time::Duration::from_millis(10)),
            }
        };
        let Config::Pipe(mut head, mut f) = source else {
            panic!("a pipe")
        };
        f.read_to_end(&mut head).unwrap();
        writer.join().unwrap();
        assert_eq!(head, b"<config/>");
    }
}
