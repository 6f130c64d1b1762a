//! TensorFlow's tensor bundle (the V2 checkpoint format): `PREFIX.index`, an
//! SSTable whose `""` entry is a `BundleHeaderProto` and whose other entries
//! are `BundleEntryProto`s (dtype, shape, shard, offset, size, masked
//! CRC-32C) keyed by tensor name, and `PREFIX.data-00000-of-00001`, the
//! tensors' bytes back to back in the order they were added (little-endian
//! elements; a string tensor as its lengths in varints, a masked CRC of them,
//! then the bytes). The writer makes the bytes TensorFlow's `BundleWriter`
//! makes; the reader also reads bundles of several shards. Partitioned
//! (sliced) tensors are refused.

use std::collections::BTreeMap;
use std::io::{Read, Seek, SeekFrom};

use super::crc32c;
use super::proto::{fields, get_varint, put_varint, Writer};
use super::sstable;
use crate::runtime::device::Device;
use crate::runtime::dtype::DType;
use crate::runtime::f16::F16;
use crate::runtime::shape::Shape;
use crate::runtime::storage::{HostData, C128, C64};
use crate::runtime::tensor::Tensor;

/// Which of TensorFlow's status codes a bundle error carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BundleErrorKind {
    /// A file is missing (`NotFoundError`).
    NotFound,
    /// A file is damaged (`DataLossError`).
    DataLoss,
    /// The bundle uses something dist does not read (`UnimplementedError`).
    Unimplemented,
    /// A key is missing or a value cannot be stored (`InvalidArgumentError`
    /// in TensorFlow's C++, `NotFoundError` at the Python reader).
    InvalidArgument,
    /// A data file is shorter than its index says (`OutOfRangeError`).
    OutOfRange,
    /// A status the Python reader raises as the base `OpError`.
    Other,
    /// The operating system refused a file operation (`errno` kept).
    Os(i32),
}

/// A failed bundle read or write: TensorFlow's status code and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleError {
    /// The status code.
    pub kind: BundleErrorKind,
    /// The message, as TensorFlow words it where dist knows its words.
    pub message: String,
}

impl BundleError {
    fn new(kind: BundleErrorKind, message: impl Into<String>) -> BundleError {
        BundleError {
            kind,
            message: message.into(),
        }
    }

    fn io(path: &str, e: &std::io::Error) -> BundleError {
        match e.kind() {
            std::io::ErrorKind::NotFound => BundleError::new(
                BundleErrorKind::NotFound,
                format!("{path}; No such file or directory"),
            ),
            _ => BundleError::new(
                BundleErrorKind::Os(e.raw_os_error().unwrap_or(0)),
                format!("{path}; {e}"),
            ),
        }
    }
}

type Result<T> = std::result::Result<T, BundleError>;

/// The data file of shard `shard` of `num_shards`.
pub fn data_path(prefix: &str, shard: u64, num_shards: u64) -> String {
    format!("{prefix}.data-{shard:05}-of-{num_shards:05}")
}

/// The index file of a bundle.
pub fn index_path(prefix: &str) -> String {
    format!("{prefix}.index")
}

/// The CRCs TensorFlow's `WriteStringTensor` computes for `strings`: the
/// masked CRC of the lengths (taken as 32-bit little-endian words, not the
/// varints on disk) that is stored after them, and the tensor's CRC (the
/// lengths' CRC extended by that stored checksum and by the bytes).
fn string_crcs(strings: &[Vec<u8>]) -> (u32, u32) {
    let mut crc = 0;
    for s in strings {
        crc = crc32c::extend(crc, &(s.len() as u32).to_le_bytes());
    }
    let lengths_crc = crc32c::mask(crc);
    crc = crc32c::extend(crc, &lengths_crc.to_le_bytes());
    for s in strings {
        crc = crc32c::extend(crc, s);
    }
    (lengths_crc, crc)
}

/// A tensor's bytes as the bundle stores them, and their CRC (unmasked).
pub(crate) fn tensor_bytes(
    t: &Tensor,
) -> std::result::Result<(Vec<u8>, u32), crate::runtime::error::Error> {
    let host_copy;
    let t = if t.device().is_host() {
        t
    } else {
        host_copy = t.to_device(Device::CPU0)?;
        &host_copy
    };
    let mut out = Vec::new();
    match t.host()? {
        HostData::Bool(v) => out.extend(v.iter().map(|&b| b as u8)),
        HostData::I8(v) => out.extend(v.iter().map(|&x| x as u8)),
        HostData::U8(v) => out.extend_from_slice(v),
        HostData::I16(v) => v
            .iter()
            .for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
        HostData::I32(v) => v
            .iter()
            .for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
        HostData::I64(v) => v
            .iter()
            .for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
        HostData::F16(v) => v
            .iter()
            .for_each(|x| out.extend_from_slice(&x.to_bits().to_le_bytes())),
        HostData::F32(v) => v
            .iter()
            .for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
        HostData::C64(v) => v.iter().for_each(|x| {
            out.extend_from_slice(&x.re.to_le_bytes());
            out.extend_from_slice(&x.im.to_le_bytes());
        }),
        HostData::C128(v) => v.iter().for_each(|x| {
            out.extend_from_slice(&x.re.to_le_bytes());
            out.extend_from_slice(&x.im.to_le_bytes());
        }),
        HostData::F64(v) => v
            .iter()
            .for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
        HostData::Str(v) => {
            // varint lengths, a masked CRC of them, then the bytes
            for s in v {
                put_varint(&mut out, s.len() as u64);
            }
            let (lengths_crc, crc) = string_crcs(v);
            out.extend_from_slice(&lengths_crc.to_le_bytes());
            for s in v {
                out.extend_from_slice(s);
            }
            return Ok((out, crc));
        }
    }
    let crc = crc32c::value(&out);
    Ok((out, crc))
}

fn shape_proto(dims: &[usize]) -> Vec<u8> {
    let mut shape = Writer::new();
    for &d in dims {
        let mut dim = Writer::new();
        dim.varint(1, d as u64);
        shape.bytes(2, &dim.buf);
    }
    shape.buf
}

fn write_file(path: &str, bytes: &[u8]) -> Result<()> {
    std::fs::write(path, bytes).map_err(|e| BundleError::io(path, &e))
}

/// Writes the bundle `prefix` holding `tensors` (their data in this order,
/// the index sorted by name), creating the prefix's directory.
pub fn write(prefix: &str, tensors: &[(String, Tensor)]) -> Result<()> {
    if let Some(dir) = std::path::Path::new(prefix).parent() {
        if !dir.as_os_str().is_empty() {
            std::fs::create_dir_all(dir)
                .map_err(|e| BundleError::io(&dir.to_string_lossy(), &e))?;
        }
    }
    let mut data = Vec::new();
    let mut index: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
    for (name, t) in tensors {
        if name.is_empty() || index.contains_key(name.as_bytes()) {
            return Err(BundleError::new(
                BundleErrorKind::InvalidArgument,
                format!("Adding duplicate key: {name}"),
            ));
        }
        let (bytes, crc) = tensor_bytes(t)
            .map_err(|e| BundleError::new(BundleErrorKind::InvalidArgument, e.message()))?;
        let mut entry = Writer::new();
        entry
            .varint(1, t.dtype().datatype_enum())
            .bytes(2, &shape_proto(t.dims()))
            .varint(4, data.len() as u64)
            .varint(5, bytes.len() as u64)
            .fixed32(6, crc32c::mask(crc));
        index.insert(name.as_bytes().to_vec(), entry.buf);
        data.extend_from_slice(&bytes);
    }
    let mut version = Writer::new();
    version.varint(1, 1);
    let mut header = Writer::new();
    header.varint(1, 1).bytes(3, &version.buf);
    let mut entries = vec![(Vec::new(), header.buf)];
    entries.extend(index);
    write_file(&data_path(prefix, 0, 1), &data)?;
    write_file(&index_path(prefix), &sstable::build(&entries))
}

/// One tensor's entry in a bundle's index.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Its dtype (`None`: a dtype dist has no tensors of, by its code).
    pub dtype: Result<DType>,
    /// Its dimensions.
    pub dims: Vec<usize>,
    /// The data file it is in.
    pub shard: u64,
    /// Where its bytes start in that file.
    pub offset: u64,
    /// How many bytes it has.
    pub size: u64,
    /// The masked CRC-32C of its bytes.
    pub crc: u32,
    /// Whether it is stored as slices of a partitioned variable.
    pub sliced: bool,
}

fn parse_shape(data: &[u8]) -> Option<Vec<usize>> {
    let mut dims = Vec::new();
    for (f, v) in fields(data)? {
        match f {
            2 => {
                let size = fields(v.data())?
                    .iter()
                    .find(|(n, _)| *n == 1)
                    .map_or(0, |(_, s)| s.int() as i64);
                dims.push(usize::try_from(size).ok()?);
            }
            3 if v.int() != 0 => return None,
            _ => {}
        }
    }
    Some(dims)
}

fn parse_entry(data: &[u8]) -> Option<Entry> {
    let mut e = Entry {
        dtype: Ok(DType::Float32),
        dims: Vec::new(),
        shard: 0,
        offset: 0,
        size: 0,
        crc: 0,
        sliced: false,
    };
    let mut code = 0;
    for (f, v) in fields(data)? {
        match f {
            1 => code = v.int(),
            2 => e.dims = parse_shape(v.data())?,
            3 => e.shard = v.int(),
            4 => e.offset = v.int(),
            5 => e.size = v.int(),
            6 => e.crc = v.int() as u32,
            7 => e.sliced = true,
            _ => {}
        }
    }
    e.dtype = DType::from_datatype_enum(code).ok_or_else(|| {
        BundleError::new(
            BundleErrorKind::Unimplemented,
            format!("dist cannot read checkpointed tensors of DataType {code}"),
        )
    });
    Some(e)
}

/// A bundle opened for reading: its index, read whole.
#[derive(Debug)]
pub struct Bundle {
    prefix: String,
    num_shards: u64,
    /// The tensors by name, in the index's (sorted) order.
    pub entries: BTreeMap<String, Entry>,
}

impl Bundle {
    /// Opens the bundle `prefix` (reads `prefix.index`).
    pub fn open(prefix: &str) -> Result<Bundle> {
        let path = index_path(prefix);
        let bytes = std::fs::read(&path).map_err(|e| BundleError::io(&path, &e))?;
        let corrupt = |what: &str| {
            BundleError::new(
                BundleErrorKind::Other,
                format!("Unable to read file ({path}). Perhaps the file is corrupt or was produced by a newer version of TensorFlow with format changes (failed to seek to header entry): {what}"),
            )
        };
        let table = sstable::read(&bytes).map_err(|e| match e {
            sstable::TableError::NotATable(what) => BundleError::new(BundleErrorKind::Other, what),
            sstable::TableError::Corrupt(what) => corrupt(what),
            sstable::TableError::Compressed => BundleError::new(
                BundleErrorKind::Unimplemented,
                format!("{path}: dist cannot read compressed checkpoint index blocks"),
            ),
        })?;
        let mut num_shards = 1;
        let mut entries = BTreeMap::new();
        for (key, value) in table {
            if key.is_empty() {
                for (f, v) in fields(&value).ok_or_else(|| corrupt("bad bundle header"))? {
                    match f {
                        1 => num_shards = v.int(),
                        2 if v.int() != 0 => {
                            return Err(BundleError::new(
                                BundleErrorKind::Unimplemented,
                                "Reading a big-endian bundle is not supported",
                            ))
                        }
                        _ => {}
                    }
                }
                continue;
            }
            let entry = parse_entry(&value).ok_or_else(|| corrupt("bad bundle entry"))?;
            entries.insert(String::from_utf8_lossy(&key).into_owned(), entry);
        }
        Ok(Bundle {
            prefix: prefix.to_string(),
            num_shards,
            entries,
        })
    }

    /// The tensor stored under `key`, its checksum verified.
    pub fn tensor(&self, key: &str) -> Result<Tensor> {
        let entry = self.entries.get(key).ok_or_else(|| {
            BundleError::new(
                BundleErrorKind::InvalidArgument,
                format!("Key {key} not found in checkpoint"),
            )
        })?;
        if entry.sliced {
            return Err(BundleError::new(
                BundleErrorKind::Unimplemented,
                format!("{key}: dist cannot read partitioned (sliced) checkpoint tensors"),
            ));
        }
        let dtype = entry.dtype.clone()?;
        let path = data_path(&self.prefix, entry.shard, self.num_shards);
        let loss = |what: String| BundleError::new(BundleErrorKind::DataLoss, what);
        let size = usize::try_from(entry.size).map_err(|_| loss(format!("{key}: bad size")))?;
        let mut file = std::fs::File::open(&path).map_err(|e| BundleError::io(&path, &e))?;
        let mut bytes = Vec::new();
        bytes
            .try_reserve_exact(size)
            .map_err(|_| loss(format!("{key}: size {size} too large")))?;
        file.seek(SeekFrom::Start(entry.offset))
            .map_err(|e| BundleError::io(&path, &e))?;
        file.take(entry.size)
            .read_to_end(&mut bytes)
            .map_err(|e| BundleError::io(&path, &e))?;
        if bytes.len() != size {
            return Err(BundleError::new(
                BundleErrorKind::OutOfRange,
                "Read less bytes than requested",
            ));
        }
        let n: usize = entry
            .dims
            .iter()
            .try_fold(1usize, |a, &d| a.checked_mul(d))
            .ok_or_else(|| loss(format!("{key}: bad shape")))?;
        let data = decode(dtype, n, &bytes)
            .ok_or_else(|| loss(format!("{key}: the stored bytes do not match its shape")))?;
        let crc = match &data {
            HostData::Str(v) => string_crcs(v).1,
            _ => crc32c::value(&bytes),
        };
        if crc32c::unmask(entry.crc) != crc {
            return Err(loss(format!(
                "TensorBundle at {} shard {} ({size} bytes): Checksum does not match: stored {} vs. calculated on the restored bytes {crc}",
                self.prefix,
                entry.shard,
                crc32c::unmask(entry.crc),
            )));
        }
        Tensor::from_host(data, Shape::new(&entry.dims), Device::CPU0)
            .map_err(|e| loss(e.message().to_string()))
    }
}

fn chunks<const N: usize, T>(bytes: &[u8], n: usize, f: impl Fn([u8; N]) -> T) -> Option<Vec<T>> {
    if bytes.len() != n.checked_mul(N)? {
        return None;
    }
    Some(
        bytes
            .chunks_exact(N)
            .map(|c| f(c.try_into().unwrap_or([0; N])))
            .collect(),
    )
}

/// `n` elements of `dtype` from their stored bytes.
pub(crate) fn decode(dtype: DType, n: usize, bytes: &[u8]) -> Option<HostData> {
    Some(match dtype {
        DType::Bool => HostData::Bool(chunks(bytes, n, |[b]: [u8; 1]| b != 0)?),
        DType::Int8 => HostData::I8(chunks(bytes, n, |[b]: [u8; 1]| b as i8)?),
        DType::UInt8 => HostData::U8(chunks(bytes, n, |[b]: [u8; 1]| b)?),
        DType::Int16 => HostData::I16(chunks(bytes, n, i16::from_le_bytes)?),
        DType::Int32 => HostData::I32(chunks(bytes, n, i32::from_le_bytes)?),
        DType::Int64 => HostData::I64(chunks(bytes, n, i64::from_le_bytes)?),
        DType::Float16 => {
            HostData::F16(chunks(bytes, n, |b| F16::from_bits(u16::from_le_bytes(b)))?)
        }
        DType::Float32 => HostData::F32(chunks(bytes, n, f32::from_le_bytes)?),
        DType::Float64 => HostData::F64(chunks(bytes, n, f64::from_le_bytes)?),
        DType::Complex64 => HostData::C64(chunks(bytes, n, |b: [u8; 8]| {
            let [r0, r1, r2, r3, i0, i1, i2, i3] = b;
            C64::new(
                f32::from_le_bytes([r0, r1, r2, r3]),
                f32::from_le_bytes([i0, i1, i2, i3]),
            )
        })?),
        DType::Complex128 => HostData::C128(chunks(bytes, n, |b: [u8; 16]| {
            let (r, i) = b.split_at(8);
            C128::new(
                f64::from_le_bytes(r.try_into().unwrap_or([0; 8])),
                f64::from_le_bytes(i.try_into().unwrap_or([0; 8])),
            )
        })?),
        DType::String => {
            let mut pos = 0;
            let mut lens = Vec::new();
            for _ in 0..n {
                lens.push(usize::try_from(get_varint(bytes, &mut pos)?).ok()?);
            }
            let stored = u32::from_le_bytes(bytes.get(pos..pos + 4)?.try_into().ok()?);
            let mut lengths_crc = 0;
            for &len in &lens {
                lengths_crc = crc32c::extend(lengths_crc, &(len as u32).to_le_bytes());
            }
            if crc32c::unmask(stored) != lengths_crc {
                return None;
            }
            pos += 4;
            let mut out = Vec::new();
            for len in lens {
                let end = pos.checked_add(len)?;
                out.push(bytes.get(pos..end)?.to_vec());
                pos = end;
            }
            if pos != bytes.len() {
                return None;
            }
            HostData::Str(out)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundles_round_trip() {
        let dir = std::env::temp_dir().join(format!("dist-bundle-{}", std::process::id()));
        let prefix = dir.join("ckpt").to_string_lossy().into_owned();
        let tensors = vec![
            (
                "v".to_string(),
                Tensor::from_vec(vec![1.0f32, 2.0], &[2]).unwrap(),
            ),
            (
                "s".to_string(),
                Tensor::from_host(
                    HostData::Str(vec![b"ab".to_vec(), b"c".to_vec()]),
                    Shape::new(&[2]),
                    Device::CPU0,
                )
                .unwrap(),
            ),
            ("i".to_string(), Tensor::from_vec(vec![7i64], &[]).unwrap()),
        ];
        write(&prefix, &tensors).unwrap();
        let b = Bundle::open(&prefix).unwrap();
        assert_eq!(b.entries.keys().collect::<Vec<_>>(), ["i", "s", "v"]);
        for (k, t) in &tensors {
            let r = b.tensor(k).unwrap();
            assert_eq!(r.dims(), t.dims());
            assert_eq!(r.host().unwrap(), t.host().unwrap());
        }
        // offsets follow the order of adding
        assert_eq!(b.entries["v"].offset, 0);
        assert_eq!(b.entries["s"].offset, 8);
        // TensorFlow's bytes for a string tensor
        let data = std::fs::read(data_path(&prefix, 0, 1)).unwrap();
        // (its lengths' checksum is over 32-bit lengths, as TensorFlow's)
        assert_eq!(
            &data[8..17],
            &[2, 1, 0x03, 0x71, 0x7c, 0x67, b'a', b'b', b'c']
        );
        assert_eq!(b.entries["s"].crc.to_le_bytes(), [0xd5, 0x30, 0xd8, 0x5f]);
        assert!(b.tensor("missing").is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn damaged_data_is_data_loss() {
        let dir = std::env::temp_dir().join(format!("dist-bundle-bad-{}", std::process::id()));
        let prefix = dir.join("x").to_string_lossy().into_owned();
        let t = Tensor::from_vec(vec![1.0f64], &[1]).unwrap();
        write(&prefix, &[("x".to_string(), t)]).unwrap();
        let path = data_path(&prefix, 0, 1);
        let mut data = std::fs::read(&path).unwrap();
        data[0] ^= 1;
        std::fs::write(&path, data).unwrap();
        let err = Bundle::open(&prefix).unwrap().tensor("x").unwrap_err();
        assert_eq!(err.kind, BundleErrorKind::DataLoss);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
