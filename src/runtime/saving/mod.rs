//! Keras 3's saving formats, without Python: `.weights.h5` (HDF5 groups of
//! numbered datasets, [`h5`]) and the `.keras` zip archive ([`archive`]).
//! What goes where — the object walk that names the groups, the configs in
//! `config.json` — is Keras's Python, written in `stdlib/keras_saving.dist`;
//! the natives between the two are `modules/keras_saving.rs`.
//!
//! Both formats are read and written by pure-Rust crates (`hdf5-pure`, `zip`)
//! so that building dist needs no C library (ARCHITECTURE.md, "Saving").

pub mod archive;
pub mod h5;

/// `n` damaged copies of a good file, for the readers' robustness tests:
/// truncated at a random length, or with up to 16 random bytes changed
/// (a xorshift stream from `seed`, so a failure repeats).
#[cfg(test)]
fn damaged_copies(good: &[u8], mut seed: u64, n: usize) -> Vec<Vec<u8>> {
    let mut next = |m: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % m.max(1) as u64) as usize
    };
    (0..n)
        .map(|i| {
            let mut b = good.to_vec();
            if i % 2 == 1 {
                b.truncate(next(b.len()));
            } else {
                for _ in 0..1 + next(16) {
                    let at = next(b.len());
                    b[at] = next(256) as u8;
                }
            }
            b
        })
        .collect()
}

/// A saving error: what failed, in words (the module turns it into Keras's
/// or h5py's exception).
#[derive(Debug, Clone, PartialEq)]
pub struct SaveError {
    /// Which kind of failure.
    pub kind: SaveErrorKind,
    /// The message, as the Python exception shows it.
    pub message: String,
}

/// The kinds of [`SaveError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SaveErrorKind {
    /// The file is not there (h5py's `FileNotFoundError`).
    NotFound,
    /// Reading or writing the file failed at the OS level.
    Io,
    /// The bytes are not a valid file of the format (h5py's `OSError`,
    /// zipfile's `BadZipFile`).
    Format,
    /// A value the format holds that dist cannot represent (a datatype).
    Unsupported,
}

impl SaveError {
    /// A new error.
    pub fn new(kind: SaveErrorKind, message: impl Into<String>) -> SaveError {
        SaveError {
            kind,
            message: message.into(),
        }
    }
}

/// Result of the saving formats.
pub type Result<T> = std::result::Result<T, SaveError>;
