//! LevelDB's table format (an SSTable), which TensorFlow's tensor bundles
//! use for their `.index` file: sorted key/value entries in prefix-compressed
//! blocks, each followed by a compression byte and a masked CRC-32C, then an
//! (empty) metaindex block, an index block naming each data block by a key
//! at or past its last one, and a 48-byte footer ending in the magic number.
//! The writer makes the same bytes as TensorFlow's `table::TableBuilder`
//! with the options the bundle writer passes (no compression, 256 KiB blocks,
//! a restart point every 16 keys); the reader reads any uncompressed table.

use super::crc32c;
use super::proto::{get_varint, put_varint};

const BLOCK_SIZE: usize = 262_144;
const RESTART_INTERVAL: usize = 16;
const MAGIC: u64 = 0xdb47_7524_8b80_fb57;
const FOOTER_LEN: usize = 48;
const NO_COMPRESSION: u8 = 0;

/// One block being built (`table::BlockBuilder`).
struct Block {
    buf: Vec<u8>,
    restarts: Vec<u32>,
    counter: usize,
    last_key: Vec<u8>,
}

impl Block {
    fn new() -> Block {
        Block {
            buf: Vec::new(),
            restarts: vec![0],
            counter: 0,
            last_key: Vec::new(),
        }
    }

    fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    fn size_estimate(&self) -> usize {
        self.buf.len() + self.restarts.len() * 4 + 4
    }

    fn add(&mut self, key: &[u8], value: &[u8]) {
        let mut shared = 0;
        if self.counter < RESTART_INTERVAL {
            let n = self.last_key.len().min(key.len());
            while shared < n && self.last_key[shared] == key[shared] {
                shared += 1;
            }
        } else {
            self.restarts.push(self.buf.len() as u32);
            self.counter = 0;
        }
        put_varint(&mut self.buf, shared as u64);
        put_varint(&mut self.buf, (key.len() - shared) as u64);
        put_varint(&mut self.buf, value.len() as u64);
        self.buf.extend_from_slice(&key[shared..]);
        self.buf.extend_from_slice(value);
        self.last_key.clear();
        self.last_key.extend_from_slice(key);
        self.counter += 1;
    }

    fn finish(self) -> Vec<u8> {
        let mut out = self.buf;
        for r in &self.restarts {
            out.extend_from_slice(&r.to_le_bytes());
        }
        out.extend_from_slice(&(self.restarts.len() as u32).to_le_bytes());
        out
    }
}

/// Appends a finished block and its trailer; returns its handle.
fn write_block(out: &mut Vec<u8>, raw: &[u8]) -> (u64, u64) {
    let offset = out.len() as u64;
    out.extend_from_slice(raw);
    let crc = crc32c::extend(crc32c::value(raw), &[NO_COMPRESSION]);
    out.push(NO_COMPRESSION);
    out.extend_from_slice(&crc32c::mask(crc).to_le_bytes());
    (offset, raw.len() as u64)
}

fn encode_handle(out: &mut Vec<u8>, (offset, size): (u64, u64)) {
    put_varint(out, offset);
    put_varint(out, size);
}

/// The shortest key `k` with `start <= k < limit` that shares `start`'s
/// prefix (the bytewise comparator's `FindShortestSeparator`).
fn shortest_separator(start: &mut Vec<u8>, limit: &[u8]) {
    let n = start.len().min(limit.len());
    let mut i = 0;
    while i < n && start[i] == limit[i] {
        i += 1;
    }
    if i < n {
        let b = start[i];
        if b < 0xff && b + 1 < limit[i] {
            start[i] += 1;
            start.truncate(i + 1);
        }
    }
}

/// The shortest key at or after `key` (`FindShortSuccessor`).
fn short_successor(key: &mut Vec<u8>) {
    if let Some(i) = key.iter().position(|&b| b != 0xff) {
        key[i] += 1;
        key.truncate(i + 1);
    }
}

/// The table holding `entries`, which must be sorted by key and unique.
pub fn build(entries: &[Entry]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut data = Block::new();
    let mut index = Block::new();
    let mut pending: Option<(u64, u64)> = None;
    let mut last_key: Vec<u8> = Vec::new();
    for (key, value) in entries {
        if let Some(handle) = pending.take() {
            shortest_separator(&mut last_key, key);
            let mut h = Vec::new();
            encode_handle(&mut h, handle);
            index.add(&last_key, &h);
        }
        data.add(key, value);
        last_key.clone_from(key);
        if data.size_estimate() >= BLOCK_SIZE {
            let block = std::mem::replace(&mut data, Block::new());
            pending = Some(write_block(&mut out, &block.finish()));
        }
    }
    if !data.is_empty() {
        pending = Some(write_block(&mut out, &data.finish()));
    }
    let metaindex = write_block(&mut out, &Block::new().finish());
    if let Some(handle) = pending {
        short_successor(&mut last_key);
        let mut h = Vec::new();
        encode_handle(&mut h, handle);
        index.add(&last_key, &h);
    }
    let index_handle = write_block(&mut out, &index.finish());
    let mut footer = Vec::with_capacity(FOOTER_LEN);
    encode_handle(&mut footer, metaindex);
    encode_handle(&mut footer, index_handle);
    footer.resize(FOOTER_LEN - 8, 0);
    footer.extend_from_slice(&MAGIC.to_le_bytes());
    out.extend_from_slice(&footer);
    out
}

/// One key/value entry of a table.
pub type Entry = (Vec<u8>, Vec<u8>);

/// Why a table could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TableError {
    /// The footer is missing or wrong: not a table (LevelDB's words).
    NotATable(&'static str),
    /// A block is damaged; the text says how (LevelDB's words).
    Corrupt(&'static str),
    /// A block is compressed (bundles never are).
    Compressed,
}

fn read_handle(data: &[u8], pos: &mut usize) -> Result<(usize, usize), TableError> {
    let bad = TableError::Corrupt("bad block handle");
    let offset = get_varint(data, pos).ok_or(bad.clone())?;
    let size = get_varint(data, pos).ok_or(bad.clone())?;
    Ok((
        usize::try_from(offset).map_err(|_| bad.clone())?,
        usize::try_from(size).map_err(|_| bad)?,
    ))
}

/// The contents of the block at `handle`, its checksum verified.
fn block_at(file: &[u8], (offset, size): (usize, usize)) -> Result<&[u8], TableError> {
    let end = offset
        .checked_add(size)
        .and_then(|e| e.checked_add(5))
        .filter(|&e| e <= file.len())
        .ok_or(TableError::Corrupt("truncated block read"))?;
    let raw = &file[offset..offset + size];
    let kind = file[offset + size];
    let stored = u32::from_le_bytes(file[end - 4..end].try_into().unwrap_or([0; 4]));
    if crc32c::unmask(stored) != crc32c::extend(crc32c::value(raw), &[kind]) {
        return Err(TableError::Corrupt("block checksum mismatch"));
    }
    if kind != NO_COMPRESSION {
        return Err(TableError::Compressed);
    }
    Ok(raw)
}

/// The entries of one block, in order.
/// A key and the value it has in a block.
type BlockEntry<'a> = (Vec<u8>, &'a [u8]);

fn block_entries(block: &[u8]) -> Result<Vec<BlockEntry<'_>>, TableError> {
    let bad = TableError::Corrupt("bad block contents");
    if block.len() < 4 {
        return Err(bad);
    }
    let n = u32::from_le_bytes(block[block.len() - 4..].try_into().unwrap_or([0; 4])) as usize;
    let restarts_len = n
        .checked_mul(4)
        .and_then(|r| r.checked_add(4))
        .filter(|&r| r <= block.len())
        .ok_or(bad.clone())?;
    let limit = block.len() - restarts_len;
    let mut out = Vec::new();
    let mut pos = 0;
    let mut key: Vec<u8> = Vec::new();
    while pos < limit {
        let shared = get_varint(block, &mut pos).ok_or(bad.clone())? as usize;
        let unshared = get_varint(block, &mut pos).ok_or(bad.clone())? as usize;
        let vlen = get_varint(block, &mut pos).ok_or(bad.clone())? as usize;
        if shared > key.len() {
            return Err(bad);
        }
        let kend = pos
            .checked_add(unshared)
            .filter(|&e| e <= limit)
            .ok_or(bad.clone())?;
        let vend = kend
            .checked_add(vlen)
            .filter(|&e| e <= limit)
            .ok_or(bad.clone())?;
        key.truncate(shared);
        key.extend_from_slice(&block[pos..kend]);
        out.push((key.clone(), &block[kend..vend]));
        pos = vend;
    }
    Ok(out)
}

/// Every entry of the table in `file`, in key order.
pub fn read(file: &[u8]) -> Result<Vec<Entry>, TableError> {
    if file.len() < FOOTER_LEN {
        return Err(TableError::NotATable("file is too short to be an sstable"));
    }
    let footer = &file[file.len() - FOOTER_LEN..];
    if footer[FOOTER_LEN - 8..] != MAGIC.to_le_bytes() {
        return Err(TableError::NotATable("not an sstable (bad magic number)"));
    }
    let mut pos = 0;
    let _metaindex = read_handle(footer, &mut pos)?;
    let index = read_handle(footer, &mut pos)?;
    let mut out = Vec::new();
    for (_, handle) in block_entries(block_at(file, index)?)? {
        let mut p = 0;
        let h = read_handle(handle, &mut p)?;
        for (k, v) in block_entries(block_at(file, h)?)? {
            out.push((k, v.to_vec()));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separators_are_leveldbs() {
        let mut k = b"abcd".to_vec();
        shortest_separator(&mut k, b"abzz");
        assert_eq!(k, b"abd");
        let mut k = b"abc".to_vec();
        shortest_separator(&mut k, b"abd");
        assert_eq!(k, b"abc");
        let mut k = b"v/.ATTRIBUTES".to_vec();
        short_successor(&mut k);
        assert_eq!(k, b"w");
        let mut k = vec![0xff, 0xff];
        short_successor(&mut k);
        assert_eq!(k, [0xff, 0xff]);
    }

    #[test]
    fn tables_round_trip() {
        let entries: Vec<(Vec<u8>, Vec<u8>)> = (0..40)
            .map(|i| (format!("key{i:03}").into_bytes(), vec![i as u8; i]))
            .collect();
        let table = build(&entries);
        assert_eq!(read(&table).unwrap(), entries);
        // many blocks
        let big: Vec<(Vec<u8>, Vec<u8>)> = (0..5)
            .map(|i| (format!("k{i}").into_bytes(), vec![7u8; 100_000]))
            .collect();
        assert_eq!(read(&build(&big)).unwrap(), big);
    }

    #[test]
    fn damage_is_detected() {
        let entries = vec![(b"a".to_vec(), b"1".to_vec())];
        let mut table = build(&entries);
        table[4] ^= 1;
        assert!(read(&table).is_err());
        assert!(read(b"short").is_err());
    }
}
