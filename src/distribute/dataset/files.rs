//! Datasets read from files: `tf.data.TFRecordDataset`, `TextLineDataset`
//! and `FixedLengthRecordDataset` (TensorFlow's `readers` module), and the
//! TFRecord framing `tf.io.TFRecordWriter` writes (`frame`). Each element
//! is a scalar string tensor; files are opened when a pass reaches them
//! and read record by record, so a pass holds one record per open file.
//!
//! `filenames` is a string, a list or tensor of them, or a dataset of
//! them (read once per pass); `num_parallel_reads` interleaves that many
//! files a record at a time, in TensorFlow's deterministic order.
//! Compressed files (`compression_type="GZIP"`/`"ZLIB"`) are refused.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::rc::Rc;

use super::methods::DATASET_V2;
use super::node::{dataset_of, DatasetObj, Kind};
use super::stream::{open, Stream};
use super::structure::{leaves, Spec};
use crate::object::{native, ClassSpec, Member};
use crate::runtime::{DType, Device, HostData, Shape, Tensor};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// How a file is cut into records.
#[derive(Clone, Copy)]
pub enum Format {
    /// TFRecord framing: length, its CRC, the bytes, their CRC.
    TfRecord,
    /// Lines, without their `\n` (or `\r\n`).
    TextLine,
    /// Records of `record` bytes after `header` bytes, before `footer`.
    Fixed {
        /// Bytes per record.
        record: i64,
        /// Bytes skipped at the start of each file.
        header: u64,
        /// Bytes left at the end of each file.
        footer: u64,
    },
}

/// The files a reader dataset reads.
pub enum Files {
    /// Paths known when the dataset was made.
    Names(Vec<String>),
    /// A dataset of scalar strings, read at the start of each pass.
    Dataset(Value),
}

/// A reader dataset's source.
pub struct FileSource {
    /// Its files.
    pub files: Files,
    /// How records are cut.
    pub format: Format,
    /// `num_parallel_reads`: files read at once, a record each in turn.
    pub cycle: Option<usize>,
}

macro_rules! reader_class {
    ($id:ident, $name:literal, $new:path) => {
        #[doc = concat!("`tf.data.", $name, "`.")]
        pub static $id: ClassSpec = ClassSpec {
            name: $name,
            module: "tensorflow.python.data.ops.readers",
            bases: &[&DATASET_V2],
            members: &[Member::New($new)],
        };
    };
}

reader_class!(TF_RECORD, "TFRecordDatasetV2", tfrecord_new::DEF);
reader_class!(TEXT_LINE, "TextLineDatasetV2", text_line_new::DEF);
reader_class!(
    FIXED_LENGTH,
    "FixedLengthRecordDatasetV2",
    fixed_length_new::DEF
);

impl FileSource {
    /// TensorFlow's class of a reader dataset.
    pub fn class_spec(&self) -> &'static ClassSpec {
        match self.format {
            Format::TfRecord => &TF_RECORD,
            Format::TextLine => &TEXT_LINE,
            Format::Fixed { .. } => &FIXED_LENGTH,
        }
    }
}

fn string_spec() -> Spec {
    Spec::of(&Value::Tensor(string_scalar(Vec::new())))
}

fn string_scalar(data: Vec<u8>) -> Tensor {
    Tensor::from_host(HostData::Str(vec![data]), Shape::scalar(), Device::CPU0)
        .expect("a scalar string tensor")
}

/// `filenames` as TensorFlow's readers take it.
fn files_arg(vm: &dyn Vm, filenames: &Value) -> PyResult<Files> {
    if let Some(d) = dataset_of(filenames) {
        let specs = d.spec.leaves();
        let dtype = specs.first().map(|s| s.0);
        if specs.len() != 1 || dtype != Some(DType::String) {
            let got = dtype.map_or("?".to_string(), |d| d.name().to_string());
            return Err(PyErr::new(
                ExcType::TypeError,
                format!(
                    "The `filenames` argument must contain `tf.string` elements. Got a dataset of `tf.{got}` elements."
                ),
            ));
        }
        return Ok(Files::Dataset(filenames.clone()));
    }
    let t = crate::object::tensor::convert::to_tensor(vm, filenames, None)?;
    if t.dtype() != DType::String {
        return Err(PyErr::new(
            ExcType::TypeError,
            format!(
                "The `filenames` argument must contain `tf.string` elements. Got `tf.{}` elements.",
                t.dtype().name()
            ),
        ));
    }
    match t.host() {
        Ok(HostData::Str(v)) => Ok(Files::Names(
            v.iter()
                .map(|b| String::from_utf8_lossy(b).into_owned())
                .collect(),
        )),
        _ => Err(PyErr::new(
            ExcType::TypeError,
            "filenames: expected strings",
        )),
    }
}

fn check_compression(vm: &dyn Vm, compression_type: &Value) -> PyResult<()> {
    if compression_type.is_none() {
        return Ok(());
    }
    let t = crate::object::tensor::convert::to_tensor(vm, compression_type, None)?;
    let name = match t.host() {
        Ok(HostData::Str(v)) if v.len() == 1 => String::from_utf8_lossy(&v[0]).into_owned(),
        _ => String::new(),
    };
    if name == "GZIP" || name == "ZLIB" {
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            format!(
                "compression_type='{name}': dist reads and writes uncompressed record files only"
            ),
        ));
    }
    Ok(())
}

fn cycle_arg(vm: &dyn Vm, n: &Value) -> PyResult<Option<usize>> {
    if n.is_none() {
        return Ok(None);
    }
    let n = super::methods::int_arg(vm, n, "num_parallel_reads")?;
    // AUTOTUNE (-1) reads as many files as there are cores; dist's order
    // is the one TensorFlow gives any fixed count, one file at a time each
    Ok(Some(if n < 1 { 1 } else { n as usize }))
}

fn reader(vm: &dyn Vm, filenames: &Value, format: Format, cycle: &Value) -> PyResult<Value> {
    let source = FileSource {
        files: files_arg(vm, filenames)?,
        format,
        cycle: cycle_arg(vm, cycle)?,
    };
    Ok(DatasetObj::value(
        Kind::Files(Rc::new(source)),
        string_spec(),
    ))
}

/// The records of TFRecord files.
#[native(
    "TFRecordDatasetV2.__new__(filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None)"
)]
fn tfrecord_new(
    vm: &dyn Vm,
    filenames: &Value,
    compression_type: &Value,
    _buffer_size: &Value,
    num_parallel_reads: &Value,
    _name: &Value,
) -> PyResult<Value> {
    check_compression(vm, compression_type)?;
    reader(vm, filenames, Format::TfRecord, num_parallel_reads)
}

/// The lines of text files.
#[native(
    "TextLineDatasetV2.__new__(filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None)"
)]
fn text_line_new(
    vm: &dyn Vm,
    filenames: &Value,
    compression_type: &Value,
    _buffer_size: &Value,
    num_parallel_reads: &Value,
    _name: &Value,
) -> PyResult<Value> {
    check_compression(vm, compression_type)?;
    reader(vm, filenames, Format::TextLine, num_parallel_reads)
}

/// Fixed-length records of files.
#[native(
    "FixedLengthRecordDatasetV2.__new__(filenames, record_bytes, header_bytes=None, footer_bytes=None, buffer_size=None, compression_type=None, num_parallel_reads=None, name=None)"
)]
#[allow(clippy::too_many_arguments)]
fn fixed_length_new(
    vm: &dyn Vm,
    filenames: &Value,
    record_bytes: i64,
    header_bytes: Option<i64>,
    footer_bytes: Option<i64>,
    _buffer_size: &Value,
    compression_type: &Value,
    num_parallel_reads: &Value,
    _name: &Value,
) -> PyResult<Value> {
    check_compression(vm, compression_type)?;
    let format = Format::Fixed {
        record: record_bytes,
        header: header_bytes.unwrap_or(0).max(0) as u64,
        footer: footer_bytes.unwrap_or(0).max(0) as u64,
    };
    reader(vm, filenames, format, num_parallel_reads)
}

/// The error of a reader kernel, as `IteratorGetNext` raises it.
fn read_error(ty: ExcType, msg: &str) -> PyErr {
    PyErr::new(
        ty,
        format!(
            "{{{{function_node __wrapped__IteratorGetNext_output_types_1_device_{}}}}} {msg} [Op:IteratorGetNext] name: ",
            Device::cpu(0).full_name()
        ),
    )
}

fn io_error(e: &std::io::Error, path: &str) -> PyErr {
    let ty = match e.kind() {
        std::io::ErrorKind::NotFound => ExcType::NotFoundError,
        std::io::ErrorKind::PermissionDenied => ExcType::PermissionDeniedError,
        _ => ExcType::UnknownError,
    };
    let text = e.to_string();
    let strerror = text.split(" (os error").next().unwrap_or(&text);
    read_error(ty, &format!("{path}; {strerror}"))
}

// --- CRC32C and the TFRecord framing ---------------------------------------

fn crc32c_table() -> &'static [u32; 256] {
    static TABLE: std::sync::OnceLock<[u32; 256]> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = [0u32; 256];
        for (i, e) in t.iter_mut().enumerate() {
            let mut c = i as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 {
                    (c >> 1) ^ 0x82F6_3B78
                } else {
                    c >> 1
                };
            }
            *e = c;
        }
        t
    })
}

/// CRC-32C (Castagnoli) of `data`.
pub fn crc32c(data: &[u8]) -> u32 {
    let t = crc32c_table();
    !data.iter().fold(!0u32, |c, &b| {
        t[((c ^ b as u32) & 0xFF) as usize] ^ (c >> 8)
    })
}

/// TFRecord's masked CRC (so a CRC of CRCs is not itself a CRC).
pub fn masked_crc(data: &[u8]) -> u32 {
    let c = crc32c(data);
    (c.rotate_right(15)).wrapping_add(0xA282_EAD8)
}

/// One record as a TFRecord file holds it.
pub fn frame(record: &[u8]) -> Vec<u8> {
    let len = (record.len() as u64).to_le_bytes();
    let mut out = Vec::with_capacity(record.len() + 16);
    out.extend_from_slice(&len);
    out.extend_from_slice(&masked_crc(&len).to_le_bytes());
    out.extend_from_slice(record);
    out.extend_from_slice(&masked_crc(record).to_le_bytes());
    out
}

// --- reading ----------------------------------------------------------------

/// One open file.
struct FileReader {
    input: BufReader<File>,
    /// Where the next record starts.
    offset: u64,
    /// Bytes before the footer (fixed-length records) or the file's size.
    end: u64,
    format: Format,
}

/// Reads up to `buf.len()` bytes; how many came.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..])? {
            0 => break,
            n => got += n,
        }
    }
    Ok(got)
}

impl FileReader {
    fn open(path: &str, format: Format) -> PyResult<FileReader> {
        let file = File::open(path).map_err(|e| io_error(&e, path))?;
        let size = file.metadata().map_err(|e| io_error(&e, path))?.len();
        let mut input = BufReader::new(file);
        let (offset, end) = match format {
            Format::Fixed {
                record,
                header,
                footer,
            } => {
                if record <= 0 {
                    return Err(read_error(
                        ExcType::InvalidArgumentError,
                        "`record_bytes` must be > 0",
                    ));
                }
                if header + footer > size {
                    return Err(read_error(
                        ExcType::DataLossError,
                        &format!(
                            "{path}: the file ({size} bytes) is shorter than header_bytes + footer_bytes ({})",
                            header + footer
                        ),
                    ));
                }
                input
                    .seek(SeekFrom::Start(header))
                    .map_err(|e| io_error(&e, path))?;
                (header, size - footer)
            }
            _ => (0, size),
        };
        Ok(FileReader {
            input,
            offset,
            end,
            format,
        })
    }

    fn next(&mut self) -> PyResult<Option<Vec<u8>>> {
        match self.format {
            Format::TfRecord => self.next_tfrecord(),
            Format::TextLine => self.next_line(),
            Format::Fixed { record, .. } => {
                let n = record as u64;
                if self.end - self.offset < n {
                    return Ok(None);
                }
                let mut buf = vec![0u8; n as usize];
                let got = read_full(&mut self.input, &mut buf).map_err(|e| io_error(&e, ""))?;
                if got < buf.len() {
                    return Ok(None);
                }
                self.offset += n;
                Ok(Some(buf))
            }
        }
    }

    fn next_line(&mut self) -> PyResult<Option<Vec<u8>>> {
        let mut line = Vec::new();
        let n = self
            .input
            .read_until(b'\n', &mut line)
            .map_err(|e| io_error(&e, ""))?;
        if n == 0 {
            return Ok(None);
        }
        if line.last() == Some(&b'\n') {
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
        }
        Ok(Some(line))
    }

    fn next_tfrecord(&mut self) -> PyResult<Option<Vec<u8>>> {
        let at = self.offset;
        let mut header = [0u8; 12];
        let got = read_full(&mut self.input, &mut header).map_err(|e| io_error(&e, ""))?;
        if got < header.len() {
            // a partial header ends the file, as TensorFlow's reader treats it
            return Ok(None);
        }
        let len = u64::from_le_bytes(header[..8].try_into().unwrap_or_default());
        let crc = u32::from_le_bytes(header[8..].try_into().unwrap_or_default());
        if masked_crc(&header[..8]) != crc {
            let hint = if at == 0 {
                " (Is this even a TFRecord file?)"
            } else {
                ""
            };
            return Err(read_error(
                ExcType::DataLossError,
                &format!("corrupted record at {at}{hint}"),
            ));
        }
        let truncated = || {
            read_error(
                ExcType::DataLossError,
                &format!("truncated record at {at}' failed with Read less bytes than requested"),
            )
        };
        // the length is checked against the file before anything is allocated
        if len > self.end.saturating_sub(at + 12).saturating_sub(4) {
            return Err(truncated());
        }
        let mut data = vec![0u8; len as usize + 4];
        let got = read_full(&mut self.input, &mut data).map_err(|e| io_error(&e, ""))?;
        if got < data.len() {
            return Err(truncated());
        }
        let stored = u32::from_le_bytes(data[len as usize..].try_into().unwrap_or_default());
        data.truncate(len as usize);
        if masked_crc(&data) != stored {
            return Err(read_error(
                ExcType::DataLossError,
                &format!("corrupted record at {}", at + 12),
            ));
        }
        self.offset = at + 12 + len + 4;
        Ok(Some(data))
    }
}

/// A pass over a reader dataset.
struct FileStream {
    source: Rc<FileSource>,
    /// The file names still to open.
    names: NameStream,
    /// The open files (one without `num_parallel_reads`).
    slots: Vec<Option<FileReader>>,
    /// The slot whose turn it is.
    turn: usize,
    /// Whether every name has been taken.
    names_done: bool,
}

enum NameStream {
    List(Rc<[String]>, usize),
    Dataset(Box<dyn Stream>),
}

impl NameStream {
    fn next(&mut self, vm: &dyn Vm) -> PyResult<Option<String>> {
        match self {
            NameStream::List(names, pos) => {
                let n = names.get(*pos).cloned();
                *pos += 1;
                Ok(n)
            }
            NameStream::Dataset(s) => {
                let Some(elem) = s.next(vm)? else {
                    return Ok(None);
                };
                match leaves(&elem).first().map(|t| t.host()) {
                    Some(Ok(HostData::Str(v))) if v.len() == 1 => {
                        Ok(Some(String::from_utf8_lossy(&v[0]).into_owned()))
                    }
                    _ => Err(PyErr::new(
                        ExcType::InvalidArgumentError,
                        "`filenames` must be a `tf.data.Dataset` of scalar `tf.string` elements.",
                    )),
                }
            }
        }
    }
}

/// Opens a pass over a reader dataset.
pub fn open_files(source: &Rc<FileSource>) -> PyResult<Box<dyn Stream>> {
    let names = match &source.files {
        Files::Names(v) => NameStream::List(v.clone().into(), 0),
        Files::Dataset(ds) => NameStream::Dataset(open(ds)?),
    };
    Ok(Box::new(FileStream {
        source: source.clone(),
        names,
        slots: (0..source.cycle.unwrap_or(1)).map(|_| None).collect(),
        turn: 0,
        names_done: false,
    }))
}

impl Stream for FileStream {
    /// TensorFlow's interleave with a block of one: the slot whose turn it
    /// is opens the next file when empty; a file that ends frees its slot
    /// and the turn passes on.
    fn next(&mut self, vm: &dyn Vm) -> PyResult<Option<Value>> {
        loop {
            let open_count = self.slots.iter().filter(|s| s.is_some()).count();
            if self.names_done && open_count == 0 {
                return Ok(None);
            }
            let n = self.slots.len();
            let turn = self.turn;
            match &mut self.slots[turn] {
                Some(r) => {
                    if let Some(rec) = r.next()? {
                        self.turn = (turn + 1) % n;
                        return Ok(Some(Value::Tensor(string_scalar(rec))));
                    }
                    self.slots[turn] = None;
                    self.turn = (turn + 1) % n;
                }
                None if !self.names_done => match self.names.next(vm)? {
                    Some(path) => {
                        self.slots[turn] = Some(FileReader::open(&path, self.source.format)?)
                    }
                    None => self.names_done = true,
                },
                None => self.turn = (turn + 1) % n,
            }
        }
    }
}

/// `Dataset.list_files`: the files matching the patterns, sorted, then
/// (unless `shuffle=False`) shuffled with `seed` over a buffer of all of
/// them, as TensorFlow composes it (`_TensorSliceDataset`, `_ShuffleDataset`).
#[native("DatasetV2.list_files(file_pattern, shuffle=None, seed=None, name=None)")]
pub fn list_files(
    vm: &dyn Vm,
    file_pattern: &Value,
    shuffle: &Value,
    seed: &Value,
    _name: &Value,
) -> PyResult<Value> {
    let t = crate::object::tensor::convert::to_tensor(vm, file_pattern, None)?;
    let patterns: Vec<String> = match t.host() {
        Ok(HostData::Str(v)) => v
            .iter()
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .collect(),
        _ => {
            return Err(PyErr::new(
                ExcType::TypeError,
                format!(
                    "Input 'pattern' of 'MatchingFiles' Op has type {} that does not match expected type of string.",
                    t.dtype().name()
                ),
            ))
        }
    };
    let tf = vm.import_module("tensorflow")?;
    let gfile = vm.getattr(&vm.getattr(&tf, "io")?, "gfile")?;
    let glob = vm.getattr(&gfile, "glob")?;
    let mut names: Vec<Vec<u8>> = Vec::new();
    for p in &patterns {
        let found = vm.call(&glob, vec![Value::str(p.as_str())], Vec::new())?;
        for f in vm.collect(&found)? {
            names.push(vm.str(&f)?.into_bytes());
        }
    }
    names.sort();
    if names.is_empty() {
        return Err(PyErr::new(
            ExcType::InvalidArgumentError,
            format!(
                "Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: b'No files matched pattern: {}'",
                patterns.join(", ")
            ),
        ));
    }
    let n = names.len();
    let files = Tensor::from_host(HostData::Str(names), Shape::new(&[n]), Device::CPU0)
        .map_err(crate::object::tensor::convert::runtime_err)?;
    let ds = super::sources::from_tensor_slices(vm, &Value::Tensor(files), &Value::None)?;
    if !shuffle.is_none() && !vm.truthy(shuffle)? {
        return Ok(ds);
    }
    let method = vm.getattr(&ds, "shuffle")?;
    vm.call(
        &method,
        vec![Value::Int(n as i64)],
        vec![("seed".into(), seed.clone())],
    )
}
