//! Writing a PDF whole or not at all.
//!
//! The bytes go to a new temporary file in the target's directory (same file system, so the
//! rename is atomic), are flushed to disk, and only then renamed over the target. If anything
//! fails the temporary file is removed and an existing target is untouched. Bytes that are not
//! a complete PDF (no `%PDF-` header or no `%%EOF` trailer) are refused before touching disk.

use super::ExportError;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

static COUNTER: AtomicU32 = AtomicU32::new(0);

/// Whether `bytes` look like a whole PDF: the header at the start, the end-of-file marker at
/// the end (trailing whitespace allowed).
fn is_complete_pdf(bytes: &[u8]) -> bool {
    let end = bytes
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(0, |i| i + 1);
    bytes.starts_with(b"%PDF-") && bytes.get(..end).is_some_and(|b| b.ends_with(b"%%EOF"))
}

/// Writes `bytes` to `path`, replacing an existing file only once the new one is complete on
/// disk: temporary file in the same directory, `fsync`, rename, then `fsync` of the directory
/// (best effort). Refuses bytes that are not a complete PDF.
pub fn write_pdf_atomically(path: &Path, bytes: &[u8]) -> Result<(), ExportError> {
    let shown = path.display().to_string();
    if !is_complete_pdf(bytes) {
        return Err(ExportError::IncompletePdf { path: shown });
    }
    let err = |source: std::io::Error| ExportError::Write {
        path: shown.clone(),
        source,
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| {
            err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "the path names no file",
            ))
        })?;
    let (tmp, mut file) = create_temp(&dir, &name).map_err(err)?;
    let written = (|| {
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        // Keep the permissions of the file being replaced.
        if let Ok(meta) = fs::metadata(path) {
            if meta.is_file() {
                let _ = fs::set_permissions(&tmp, meta.permissions());
            }
        }
        fs::rename(&tmp, path)
    })();
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(err(e));
    }
    // Make the rename itself durable. Not every platform can open a directory; ignore that.
    if let Ok(d) = File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

fn create_temp(dir: &Path, name: &str) -> std::io::Result<(PathBuf, File)> {
    let mut last = None;
    for _ in 0..16 {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let tmp = dir.join(format!(".{name}.{}.{n}.tmp", std::process::id()));
        match OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(f) => return Ok((tmp, f)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no free temporary file name")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completeness_check() {
        assert!(is_complete_pdf(b"%PDF-1.7\n...\n%%EOF\n"));
        assert!(!is_complete_pdf(b"%PDF-1.7\n...truncated"));
        assert!(!is_complete_pdf(b""));
        assert!(!is_complete_pdf(b"hello %%EOF"));
    }
}
