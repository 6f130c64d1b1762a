//! CRC-32C (Castagnoli), as LevelDB tables and TensorFlow's tensor bundles
//! checksum their blocks and tensors, with LevelDB's "masked" form (a CRC
//! stored beside the data it covers is rotated and offset, so that a CRC of
//! data that itself holds CRCs stays well distributed).

/// The reflected Castagnoli polynomial.
const POLY: u32 = 0x82F6_3B78;

/// The byte-at-a-time table, computed at compile time.
const TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut crc = i as u32;
        let mut bit = 0;
        while bit < 8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ POLY
            } else {
                crc >> 1
            };
            bit += 1;
        }
        table[i] = crc;
        i += 1;
    }
    table
};

/// The CRC of `crc`'s data followed by `data` (`crc32c::Extend`).
pub fn extend(crc: u32, data: &[u8]) -> u32 {
    let mut c = !crc;
    for &b in data {
        c = TABLE[((c ^ b as u32) & 0xff) as usize] ^ (c >> 8);
    }
    !c
}

/// The CRC of `data` (`crc32c::Value`).
pub fn value(data: &[u8]) -> u32 {
    extend(0, data)
}

const MASK_DELTA: u32 = 0xa282_ead8;

/// LevelDB's masked form of a CRC (`crc32c::Mask`).
pub fn mask(crc: u32) -> u32 {
    crc.rotate_right(15).wrapping_add(MASK_DELTA)
}

/// The CRC a masked value was made from (`crc32c::Unmask`).
pub fn unmask(masked: u32) -> u32 {
    masked.wrapping_sub(MASK_DELTA).rotate_left(15)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        // RFC 3720's test vectors (also LevelDB's crc32c_test.cc)
        assert_eq!(value(&[0u8; 32]), 0x8a91_36aa);
        assert_eq!(value(&[0xffu8; 32]), 0x62a8_ab43);
        let ascending: Vec<u8> = (0..32).collect();
        assert_eq!(value(&ascending), 0x46dd_794e);
        assert_eq!(value(b"123456789"), 0xe306_9283);
    }

    #[test]
    fn extend_is_concatenation() {
        assert_eq!(extend(value(b"hello "), b"world"), value(b"hello world"));
    }

    #[test]
    fn mask_round_trips() {
        let crc = value(b"foo");
        assert_ne!(mask(crc), crc);
        assert_ne!(mask(mask(crc)), crc);
        assert_eq!(unmask(mask(crc)), crc);
        assert_eq!(unmask(unmask(mask(mask(crc)))), crc);
    }
}
