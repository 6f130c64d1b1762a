//! The `.keras` archive: a zip of `metadata.json`, `config.json` and
//! `model.weights.h5` (plus `assets/` for layers that save files), each
//! member stored uncompressed, as Keras's `zipfile.ZipFile(f, "w")` writes
//! them. Reading accepts only stored members (what Keras writes); a
//! compressed member is [`SaveErrorKind::Unsupported`].

use super::{Result, SaveError, SaveErrorKind};
use std::io::{Cursor, Read, Write};

/// Cap on a member's declared size (Keras's own zip-bomb guard rejects far
/// less than this for a weights member; this only keeps dist from
/// allocating what a damaged header claims).
const MAX_MEMBER_BYTES: u64 = 1 << 34;

fn format_err(e: impl std::fmt::Display) -> SaveError {
    SaveError::new(SaveErrorKind::Format, e.to_string())
}

/// The zip archive holding `members` (name and bytes), in this order.
pub fn write(members: &[(String, Vec<u8>)]) -> Result<Vec<u8>> {
    let mut zw = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let opts =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for (name, bytes) in members {
        zw.start_file(name.as_str(), opts).map_err(format_err)?;
        zw.write_all(bytes)
            .map_err(|e| SaveError::new(SaveErrorKind::Io, e.to_string()))?;
    }
    Ok(zw.finish().map_err(format_err)?.into_inner())
}

/// The members of the zip archive `bytes`, in the archive's order.
pub fn read(bytes: Vec<u8>) -> Result<Vec<(String, Vec<u8>)>> {
    let mut za = zip::ZipArchive::new(Cursor::new(bytes))
        .map_err(|_| SaveError::new(SaveErrorKind::Format, "File is not a zip file"))?;
    let mut out = Vec::new();
    for i in 0..za.len() {
        let mut f = za.by_index(i).map_err(|e| match e {
            zip::result::ZipError::UnsupportedArchive(m) => {
                SaveError::new(SaveErrorKind::Unsupported, m.to_string())
            }
            e => format_err(e),
        })?;
        let name = f.name().map_err(format_err)?.to_string();
        if f.size() > MAX_MEMBER_BYTES {
            return Err(SaveError::new(
                SaveErrorKind::Format,
                format!("zip member {name} is too large"),
            ));
        }
        let mut data = Vec::new();
        f.read_to_end(&mut data).map_err(format_err)?;
        out.push((name, data));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_round_trip_in_order() {
        let members = vec![
            ("metadata.json".to_string(), b"{}".to_vec()),
            ("config.json".to_string(), b"{\"a\": 1}".to_vec()),
            ("model.weights.h5".to_string(), vec![0u8, 1, 2, 255]),
        ];
        let bytes = write(&members).unwrap();
        assert_eq!(read(bytes).unwrap(), members);
    }

    /// Damaged archives are errors, never panics (Keras's own `.keras` file).
    #[test]
    fn damaged_archives_do_not_panic() {
        let good = include_bytes!("../../../tests/data/keras_saving/keras_seq.keras");
        assert_eq!(read(good.to_vec()).unwrap().len(), 3);
        for b in crate::runtime::saving::damaged_copies(good, 0x9e37_79b9_7f4a_7c15, 300) {
            let _ = read(b);
        }
    }

    #[test]
    fn garbage_is_a_format_error() {
        let e = read(b"not a zip".to_vec()).unwrap_err();
        assert_eq!(e.kind, SaveErrorKind::Format);
    }
}
