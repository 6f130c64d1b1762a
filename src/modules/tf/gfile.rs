//! `tf.io.gfile` on the local file system, with TensorFlow's behaviour and
//! messages (`tensorflow/python/lib/io/file_io.py` over the C++ POSIX file
//! system): the queries and directory operations, `stat` with its
//! `FileStatistics`, and `GFile` (read lazily, written through, text or
//! binary). A path with a URL scheme other than `file://` is TensorFlow's
//! `UnimplementedError` for a file system it has not registered. `walk`
//! is Python, as TensorFlow's is (`stdlib/tensorflow_io.dist`); the
//! `tf.io.read_file`/`write_file` ops are in `io_ops.rs`.

use std::cell::RefCell;
use std::io::Write;

use crate::distribute::classes::{getters, native_class};
use crate::modules::ModuleBuilder;
use crate::object::types::type_error;
use crate::object::{native, ClassSpec, Member};
use crate::value::{ExcType, NativeObject, PyErr, PyResult, Value, Vm};

/// Registers `tf.io.gfile`'s natives.
pub fn register(m: &mut ModuleBuilder) {
    m.add(exists::DEF)
        .add(isdir::DEF)
        .add(listdir::DEF)
        .add(glob::DEF)
        .add(makedirs::DEF)
        .add(mkdir::DEF)
        .add(remove::DEF)
        .add(rmtree::DEF)
        .add(rename::DEF)
        .add(copy::DEF)
        .add(stat::DEF)
        .add(join::DEF)
        .value("GFile", Value::Class(GFILE.class()));
}

/// A TensorFlow error of `ty` with `msg`.
pub fn tf_error(ty: ExcType, msg: impl Into<String>) -> PyErr {
    PyErr::new(ty, msg.into())
}

/// TensorFlow's status for a failed system call on `context`:
/// `context; strerror`, its class from the errno (`ErrnoToCode`).
pub fn io_status(e: &std::io::Error, context: &str) -> (ExcType, String) {
    let ty = match e.raw_os_error() {
        Some(2) => ExcType::NotFoundError,              // ENOENT
        Some(17) => ExcType::AlreadyExistsError,        // EEXIST
        Some(1 | 13) => ExcType::PermissionDeniedError, // EPERM, EACCES
        // ENOTDIR, EISDIR, ENOTEMPTY, EBUSY
        Some(20 | 21 | 39 | 16) => ExcType::FailedPreconditionError,
        Some(22 | 36) => ExcType::InvalidArgumentError, // EINVAL, ENAMETOOLONG
        Some(28) => ExcType::ResourceExhaustedError,    // ENOSPC
        _ => ExcType::UnknownError,
    };
    let text = e.to_string();
    let strerror = text.split(" (os error").next().unwrap_or(&text);
    (ty, format!("{context}; {strerror}"))
}

/// `io_status` as the exception.
pub fn io_error(e: &std::io::Error, context: &str) -> PyErr {
    let (ty, msg) = io_status(e, context);
    tf_error(ty, msg)
}

/// A path argument (`str`, `bytes` or path-like) as a local path: a
/// `file://` prefix dropped, another scheme TensorFlow's error.
pub fn local_path(vm: &dyn Vm, v: &Value) -> PyResult<String> {
    let p = match v.as_builtin() {
        Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        _ => crate::modules::os_path::fspath(vm, v)?,
    };
    if let Some(rest) = p.strip_prefix("file://") {
        return Ok(rest.to_string());
    }
    if let Some(i) = p.find("://") {
        let scheme = &p[..i];
        if !scheme.is_empty()
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
        {
            return Err(tf_error(
                ExcType::UnimplementedError,
                format!("File system scheme '{scheme}' not implemented (file: '{p}')"),
            ));
        }
    }
    Ok(p)
}

/// Whether a path exists.
#[native("exists(path)")]
fn exists(vm: &dyn Vm, path: &Value) -> PyResult<bool> {
    let p = local_path(vm, path)?;
    Ok(!p.is_empty() && std::path::Path::new(&p).exists())
}

/// Whether a path is a directory.
#[native("isdir(path)")]
fn isdir(vm: &dyn Vm, path: &Value) -> PyResult<bool> {
    let p = local_path(vm, path)?;
    Ok(!p.is_empty() && std::path::Path::new(&p).is_dir())
}

fn names_in(dir: &str) -> PyResult<Vec<String>> {
    let entries = std::fs::read_dir(dir).map_err(|e| io_error(&e, dir))?;
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| io_error(&e, dir))?;
        crate::object::types::push(&mut out, entry.file_name().to_string_lossy().into_owned())?;
    }
    Ok(out)
}

/// The names in a directory (not its path), in the order the file system
/// lists them.
#[native("listdir(path)")]
fn listdir(vm: &dyn Vm, path: &Value) -> PyResult<Vec<Value>> {
    let p = local_path(vm, path)?;
    if !std::path::Path::new(&p).is_dir() {
        return Err(tf_error(
            ExcType::NotFoundError,
            format!("Could not find directory {p}"),
        ));
    }
    Ok(names_in(&p)?.into_iter().map(Value::str).collect())
}

fn path_matches(pattern: &[&str], path: &str) -> bool {
    let parts: Vec<&str> = path.split('/').collect();
    parts.len() == pattern.len()
        && parts.iter().zip(pattern).all(|(n, p)| {
            let (p, n): (Vec<char>, Vec<char>) = (p.chars().collect(), n.chars().collect());
            super::glob_match::component_match(&p, &n)
        })
}

fn join2(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else if dir.ends_with('/') {
        format!("{dir}{name}")
    } else {
        format!("{dir}/{name}")
    }
}

/// The paths that match a pattern (`*`, `?`, `[...]` within one path
/// component), as TensorFlow's `GetMatchingPaths` finds them: level by
/// level from the pattern's fixed directory (`.` when it has none, which
/// then prefixes the results).
/// An iterable of patterns gives the matches of each in turn.
#[native("glob(pattern)")]
fn glob(vm: &dyn Vm, pattern: &Value) -> PyResult<Vec<Value>> {
    let single = matches!(pattern.as_builtin(), Value::Str(_) | Value::Bytes(_))
        || crate::modules::os_path::fspath_opt(vm, pattern)?.is_some();
    if single {
        return glob_one(vm, pattern);
    }
    let mut out = Vec::new();
    for p in vm.collect(pattern)? {
        for m in glob_one(vm, &p)? {
            crate::object::types::push(&mut out, m)?;
        }
    }
    Ok(out)
}

fn glob_one(vm: &dyn Vm, pattern: &Value) -> PyResult<Vec<Value>> {
    let pattern = local_path(vm, pattern)?;
    if pattern.is_empty() {
        return Ok(Vec::new());
    }
    let wild = pattern.find(['*', '?', '[', '\\']);
    let Some(wild) = wild else {
        return Ok(if std::path::Path::new(&pattern).exists() {
            vec![Value::str(pattern)]
        } else {
            Vec::new()
        });
    };
    let fixed = &pattern[..wild];
    let mut dir = match fixed.rfind('/') {
        Some(0) => "/".to_string(),
        Some(i) => fixed[..i].to_string(),
        None => String::new(),
    };
    let mut eval = pattern.clone();
    if dir.is_empty() {
        dir = ".".into();
        eval = format!("./{pattern}");
    }
    let pat_parts: Vec<&str> = eval.trim_end_matches('/').split('/').collect();
    let depth0 = dir.trim_end_matches('/').split('/').count();
    let mut level = vec![dir];
    let mut results = Vec::new();
    for depth in depth0..pat_parts.len() {
        let prefix = &pat_parts[..=depth];
        let mut next = Vec::new();
        for d in &level {
            let Ok(names) = names_in(d) else { continue };
            for n in names {
                let child = join2(d, &n);
                if path_matches(prefix, &child) {
                    crate::object::types::push(&mut next, child)?;
                }
            }
        }
        if depth + 1 == pat_parts.len() {
            results = next;
            break;
        }
        level = next
            .into_iter()
            .filter(|p| std::path::Path::new(p).is_dir())
            .collect();
    }
    Ok(results.into_iter().map(Value::str).collect())
}

/// Creates a directory and any missing parents (a file in the way is
/// `FailedPreconditionError: x is not a directory`).
#[native("makedirs(path)")]
fn makedirs(vm: &dyn Vm, path: &Value) -> PyResult<()> {
    let p = local_path(vm, path)?;
    let trimmed = p.trim_end_matches('/');
    let mut prefix = String::new();
    for (i, part) in trimmed.split('/').enumerate() {
        if i > 0 {
            prefix.push('/');
        }
        prefix.push_str(part);
        if part.is_empty() {
            continue;
        }
        let pp = std::path::Path::new(&prefix);
        if pp.exists() {
            if !pp.is_dir() {
                return Err(tf_error(
                    ExcType::FailedPreconditionError,
                    format!("{prefix} is not a directory"),
                ));
            }
            continue;
        }
        match std::fs::create_dir(&prefix) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(io_error(&e, &prefix)),
        }
    }
    Ok(())
}

/// Creates a directory (one that exists already is not an error, as in
/// TensorFlow's local file system).
#[native("mkdir(path)")]
fn mkdir(vm: &dyn Vm, path: &Value) -> PyResult<()> {
    let p = local_path(vm, path)?;
    match std::fs::create_dir(&p) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(io_error(&e, &p)),
    }
}

/// Deletes a file.
#[native("remove(path)")]
fn remove(vm: &dyn Vm, path: &Value) -> PyResult<()> {
    let p = local_path(vm, path)?;
    std::fs::remove_file(&p).map_err(|e| io_error(&e, &p))
}

/// Deletes a directory and everything in it (or a file).
#[native("rmtree(path)")]
fn rmtree(vm: &dyn Vm, path: &Value) -> PyResult<()> {
    let p = local_path(vm, path)?;
    let meta = std::fs::symlink_metadata(&p)
        .map_err(|_| tf_error(ExcType::NotFoundError, format!("{p} not found")))?;
    if meta.is_dir() {
        std::fs::remove_dir_all(&p).map_err(|e| io_error(&e, &p))
    } else {
        std::fs::remove_file(&p).map_err(|e| io_error(&e, &p))
    }
}

fn check_overwrite(dst: &str, overwrite: bool) -> PyResult<()> {
    if !overwrite && std::path::Path::new(dst).exists() {
        return Err(tf_error(ExcType::AlreadyExistsError, "file already exists"));
    }
    Ok(())
}

/// Renames a file or directory; an existing `newpath` is an error unless
/// `overwrite`.
#[native("rename(src, dst, overwrite=False)")]
fn rename(vm: &dyn Vm, src: &Value, dst: &Value, overwrite: bool) -> PyResult<()> {
    let (s, d) = (local_path(vm, src)?, local_path(vm, dst)?);
    check_overwrite(&d, overwrite)?;
    std::fs::rename(&s, &d).map_err(|e| io_error(&e, &s))
}

/// Copies a file; an existing `dst` is an error unless `overwrite`.
#[native("copy(src, dst, overwrite=False)")]
fn copy(vm: &dyn Vm, src: &Value, dst: &Value, overwrite: bool) -> PyResult<()> {
    let (s, d) = (local_path(vm, src)?, local_path(vm, dst)?);
    check_overwrite(&d, overwrite)?;
    let data = std::fs::read(&s).map_err(|e| io_error(&e, &s))?;
    std::fs::write(&d, data).map_err(|e| io_error(&e, &d))
}

/// Joins path components (`os.path.join`'s rule).
#[native("join(path, *paths)")]
fn join(vm: &dyn Vm, path: &Value, paths: &[Value]) -> PyResult<String> {
    let first = local_path_any(vm, path)?;
    let rest = paths
        .iter()
        .map(|p| local_path_any(vm, p))
        .collect::<PyResult<Vec<_>>>()?;
    let rest: Vec<&str> = rest.iter().map(String::as_str).collect();
    Ok(crate::modules::os_path::join_paths(&first, &rest))
}

/// A path as text without the scheme check (`join` keeps URLs).
fn local_path_any(vm: &dyn Vm, v: &Value) -> PyResult<String> {
    match v.as_builtin() {
        Value::Bytes(b) => Ok(String::from_utf8_lossy(b).into_owned()),
        _ => crate::modules::os_path::fspath(vm, v),
    }
}

/// What `tf.io.gfile.stat` returns.
pub struct FileStatistics {
    length: i64,
    mtime_nsec: i64,
    is_directory: bool,
}

/// The class of `stat`'s results.
pub static FILE_STATISTICS: ClassSpec = ClassSpec {
    name: "FileStatistics",
    module: "tensorflow.python.lib.io._pywrap_file_io",
    bases: &[],
    members: &[
        Member::Getter(fs_length::DEF),
        Member::Getter(fs_mtime_nsec::DEF),
        Member::Getter(fs_is_directory::DEF),
    ],
};

native_class!(FileStatistics: FILE_STATISTICS);

impl NativeObject for FileStatistics {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&FILE_STATISTICS)
    }

    fn repr(&self, this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!(
            "<{}.FileStatistics object at {:#x}>",
            FILE_STATISTICS.module,
            this.id()
        ))
    }
}

getters! { this: &FileStatistics;
    /// The size in bytes.
    fn fs_length("FileStatistics.length(self)") -> i64 { this.length }
    /// The modification time in nanoseconds since the epoch.
    fn fs_mtime_nsec("FileStatistics.mtime_nsec(self)") -> i64 { this.mtime_nsec }
    /// Whether the path is a directory.
    fn fs_is_directory("FileStatistics.is_directory(self)") -> bool { this.is_directory }
}

fn file_stat(p: &str) -> PyResult<FileStatistics> {
    let meta = std::fs::metadata(p).map_err(|e| io_error(&e, p))?;
    let mtime_nsec = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as i64);
    Ok(FileStatistics {
        length: meta.len() as i64,
        mtime_nsec,
        is_directory: meta.is_dir(),
    })
}

/// The size, modification time and kind of a path.
#[native("stat(path)")]
fn stat(vm: &dyn Vm, path: &Value) -> PyResult<Value> {
    let p = local_path(vm, path)?;
    Ok(Value::native(file_stat(&p)?))
}

/// A file opened by `tf.io.gfile.GFile`.
pub struct GFile(RefCell<GState>);

struct GState {
    name: String,
    mode: String,
    binary: bool,
    can_read: bool,
    can_write: bool,
    /// The whole file, read on the first read.
    read_buf: Option<Vec<u8>>,
    pos: usize,
    /// The file being written, opened on the first write.
    writer: Option<std::fs::File>,
    written: usize,
}

/// The class `tf.io.gfile.GFile`.
pub static GFILE: ClassSpec = ClassSpec {
    name: "GFile",
    module: "tensorflow.python.platform.gfile",
    bases: &[],
    members: &[
        Member::New(gfile_new::DEF),
        Member::Method(g_read::DEF),
        Member::Method(g_readline::DEF),
        Member::Method(g_readlines::DEF),
        Member::Method(g_write::DEF),
        Member::Method(g_seek::DEF),
        Member::Method(g_tell::DEF),
        Member::Method(g_size::DEF),
        Member::Method(g_flush::DEF),
        Member::Method(g_close::DEF),
        Member::Method(g_seekable::DEF),
        Member::Getter(g_name::DEF),
        Member::Getter(g_mode::DEF),
    ],
};

native_class!(GFile: GFILE);

const MODES: &[&str] = &[
    "r", "w", "a", "rb", "wb", "ab", "r+", "w+", "a+", "r+b", "w+b", "a+b",
];

/// Opens a file lazily: nothing touches the file system before the first
/// read or write, as in TensorFlow.
#[native("GFile.__init__(name, mode='r')")]
fn gfile_new(vm: &dyn Vm, name: &Value, mode: &Value) -> PyResult<Value> {
    let name = local_path(vm, name)?;
    let mode = match mode.as_builtin() {
        Value::Str(s) => s.to_string(),
        Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        other => {
            return Err(type_error(format!(
                "Expected binary or unicode string, got {}",
                vm.repr(other)?
            )))
        }
    };
    if !MODES.contains(&mode.as_str()) {
        return Err(tf_error(
            ExcType::InvalidArgumentError,
            "mode is not 'r' or 'w' or 'a' or 'r+' or 'w+' or 'a+'",
        ));
    }
    let can_read = ["r", "r+", "a+", "w+", "rb", "r+b", "a+b", "w+b"].contains(&mode.as_str());
    let can_write =
        ["a", "w", "r+", "a+", "w+", "wb", "ab", "r+b", "a+b", "w+b"].contains(&mode.as_str());
    Ok(Value::native(GFile(RefCell::new(GState {
        binary: mode.contains('b'),
        name,
        mode,
        can_read,
        can_write,
        read_buf: None,
        pos: 0,
        writer: None,
        written: 0,
    }))))
}

impl GState {
    fn preread(&mut self) -> PyResult<&[u8]> {
        if !self.can_read {
            return Err(tf_error(
                ExcType::PermissionDeniedError,
                "File isn't open for reading",
            ));
        }
        if self.read_buf.is_none() {
            let data = std::fs::read(&self.name).map_err(|e| io_error(&e, &self.name))?;
            self.read_buf = Some(data);
            self.pos = 0;
        }
        Ok(self.read_buf.as_deref().unwrap_or_default())
    }

    fn prewrite(&mut self) -> PyResult<&mut std::fs::File> {
        if !self.can_write {
            return Err(tf_error(
                ExcType::PermissionDeniedError,
                "File isn't open for writing",
            ));
        }
        if self.writer.is_none() {
            let append = self.mode.starts_with('a');
            let mut opts = std::fs::OpenOptions::new();
            opts.write(true).create(true);
            if append {
                opts.append(true);
            } else if self.mode.starts_with('w') {
                opts.truncate(true);
            }
            let f = opts
                .open(&self.name)
                .map_err(|e| io_error(&e, &self.name))?;
            self.written = if append {
                f.metadata().map_or(0, |m| m.len() as usize)
            } else {
                0
            };
            self.writer = Some(f);
        }
        match self.writer.as_mut() {
            Some(f) => Ok(f),
            None => Err(PyErr::new(ExcType::SystemError, "GFile: no writer")),
        }
    }

    fn value(&self, bytes: &[u8]) -> PyResult<Value> {
        if self.binary {
            return Ok(Value::Bytes(std::rc::Rc::new(bytes.to_vec())));
        }
        match std::str::from_utf8(bytes) {
            Ok(s) => Ok(Value::str(s)),
            Err(e) => Err(PyErr::new(
                ExcType::UnicodeDecodeError,
                format!(
                    "'utf-8' codec can't decode byte {:#04x} in position {}: invalid start byte",
                    bytes[e.valid_up_to()],
                    e.valid_up_to()
                ),
            )),
        }
    }

    fn read(&mut self, n: Option<usize>) -> PyResult<Value> {
        let pos = self.pos;
        let data = self.preread()?;
        let start = pos.min(data.len());
        let end = n.map_or(data.len(), |n| (start + n).min(data.len()));
        let chunk = data[start..end].to_vec();
        self.pos = end;
        self.value(&chunk)
    }

    fn readline(&mut self) -> PyResult<Value> {
        let pos = self.pos;
        let data = self.preread()?;
        let start = pos.min(data.len());
        let end = data[start..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(data.len(), |i| start + i + 1);
        let chunk = data[start..end].to_vec();
        self.pos = end;
        self.value(&chunk)
    }

    fn close(&mut self) -> PyResult<()> {
        self.read_buf = None;
        if let Some(mut f) = self.writer.take() {
            f.flush().map_err(|e| io_error(&e, &self.name))?;
        }
        Ok(())
    }
}

impl NativeObject for GFile {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&GFILE)
    }

    fn repr(&self, this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!(
            "<{}.GFile object at {:#x}>",
            GFILE.module,
            this.id()
        ))
    }

    fn iter(&self, this: &Value, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        Ok(Some(this.clone()))
    }

    fn next(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        let line = self.0.borrow_mut().readline()?;
        Ok(match &line {
            Value::Str(s) if s.is_empty() => None,
            Value::Bytes(b) if b.is_empty() => None,
            _ => Some(line),
        })
    }

    fn enter(&self, this: &Value, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        Ok(Some(this.clone()))
    }

    fn exit(&self, _this: &Value, _exc: Option<&PyErr>, _vm: &dyn Vm) -> PyResult<bool> {
        self.0.borrow_mut().close()?;
        Ok(false)
    }
}

getters! { this: &GFile;
    /// The path as given.
    fn g_name("GFile.name(self)") -> String { this.0.borrow().name.clone() }
    /// The mode as given.
    fn g_mode("GFile.mode(self)") -> String { this.0.borrow().mode.clone() }
}

/// Reads `n` bytes (all that are left when `n` is -1), as `str` in text
/// mode.
#[native("GFile.read(self, n=-1)")]
fn g_read(this: &GFile, n: i64) -> PyResult<Value> {
    this.0.borrow_mut().read(usize::try_from(n).ok())
}

/// The next line with its newline; empty at the end.
#[native("GFile.readline(self)")]
fn g_readline(this: &GFile) -> PyResult<Value> {
    this.0.borrow_mut().readline()
}

/// The remaining lines.
#[native("GFile.readlines(self)")]
fn g_readlines(this: &GFile) -> PyResult<Vec<Value>> {
    let mut st = this.0.borrow_mut();
    st.preread()?;
    let mut out = Vec::new();
    loop {
        let line = st.readline()?;
        let empty = match &line {
            Value::Str(s) => s.is_empty(),
            Value::Bytes(b) => b.is_empty(),
            _ => true,
        };
        if empty {
            return Ok(out);
        }
        crate::object::types::push(&mut out, line)?;
    }
}

/// Appends `file_content` (`str` or `bytes`).
#[native("GFile.write(self, file_content)")]
fn g_write(vm: &dyn Vm, this: &GFile, file_content: &Value) -> PyResult<()> {
    let bytes: Vec<u8> = match file_content.as_builtin() {
        Value::Str(s) => s.as_bytes().to_vec(),
        Value::Bytes(b) => b.to_vec(),
        other => {
            return Err(type_error(format!(
                "Expected binary or unicode string, got {}",
                vm.repr(other)?
            )))
        }
    };
    let mut st = this.0.borrow_mut();
    let name = st.name.clone();
    st.prewrite()?
        .write_all(&bytes)
        .map_err(|e| io_error(&e, &name))?;
    st.written += bytes.len();
    // what is written is read back by a later first read
    st.read_buf = None;
    Ok(())
}

/// Moves the read position: `whence` 0 (from the start), 1 (from here) or
/// 2 (from the end).
#[native("GFile.seek(self, offset=None, whence=0, position=None)")]
fn g_seek(this: &GFile, offset: Option<i64>, whence: i64, position: Option<i64>) -> PyResult<()> {
    let mut st = this.0.borrow_mut();
    let len = st.preread()?.len() as i64;
    let offset = offset.or(position).unwrap_or(0);
    let base = match whence {
        0 => 0,
        1 => st.pos as i64,
        2 => len,
        _ => {
            return Err(tf_error(
                ExcType::InvalidArgumentError,
                format!("Invalid whence argument: {whence}. Valid values are 0, 1, or 2."),
            ))
        }
    };
    let target = base + offset;
    if target < 0 {
        return Err(tf_error(
            ExcType::InvalidArgumentError,
            format!("Seeking to a negative position: {target}"),
        ));
    }
    st.pos = target as usize;
    Ok(())
}

/// The read position (the write position of a file open only for
/// writing).
#[native("GFile.tell(self)")]
fn g_tell(this: &GFile) -> PyResult<i64> {
    let mut st = this.0.borrow_mut();
    if st.can_read {
        st.preread()?;
        return Ok(st.pos as i64);
    }
    st.prewrite()?;
    Ok(st.written as i64)
}

/// The file's size in bytes.
#[native("GFile.size(self)")]
fn g_size(this: &GFile) -> PyResult<i64> {
    let name = this.0.borrow().name.clone();
    Ok(file_stat(&name)?.length)
}

/// Writes what is buffered to the file.
#[native("GFile.flush(self)")]
fn g_flush(this: &GFile) -> PyResult<()> {
    let mut st = this.0.borrow_mut();
    let name = st.name.clone();
    if let Some(f) = st.writer.as_mut() {
        f.flush().map_err(|e| io_error(&e, &name))?;
    }
    Ok(())
}

/// Closes the file (reading again reopens it, as in TensorFlow).
#[native("GFile.close(self)")]
fn g_close(this: &GFile) -> PyResult<()> {
    this.0.borrow_mut().close()
}

/// Always True.
#[native("GFile.seekable(self)")]
fn g_seekable(this: &GFile) -> bool {
    let _ = this;
    true
}
