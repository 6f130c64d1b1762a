//! `open()` and its file objects (`_io.TextIOWrapper` in text mode,
//! `BufferedReader`/`BufferedWriter`/`BufferedRandom` in binary mode): read,
//! readline(s), write(lines), seek/tell, iteration over lines, `with`.
//!
//! A file's contents are held in memory from `open` (empty for `w`) and
//! written back on `flush`, `close` or when the object goes away; positions
//! are byte offsets, as CPython's `tell()` gives for UTF-8 text. Text is
//! UTF-8 with universal newlines on reading (`\r\n` and `\r` read as `\n`).

use std::cell::RefCell;
use std::rc::Rc;

use crate::distribute::classes::{getters, native_class};
use crate::object::spec::public_names;
use crate::object::types::type_error;
use crate::object::{native, ClassSpec, Member};
use crate::value::format::str_repr;
use crate::value::{ExcType, NativeObject, PyErr, PyResult, Value, Vm};

/// An open file.
pub struct File(RefCell<FileState>);

/// The class of files (CPython has one per mode; dist's objects name
/// theirs in `type_name`).
pub static FILE: ClassSpec = ClassSpec {
    name: "TextIOWrapper",
    module: "_io",
    bases: &[],
    members: &[
        Member::Method(f_read::DEF),
        Member::Method(f_readline::DEF),
        Member::Method(f_readlines::DEF),
        Member::Method(f_write::DEF),
        Member::Method(f_writelines::DEF),
        Member::Method(f_seek::DEF),
        Member::Method(f_tell::DEF),
        Member::Method(f_truncate::DEF),
        Member::Method(f_flush::DEF),
        Member::Method(f_close::DEF),
        Member::Method(f_readable::DEF),
        Member::Method(f_writable::DEF),
        Member::Method(f_seekable::DEF),
        Member::Getter(f_closed::DEF),
        Member::Getter(f_name::DEF),
        Member::Getter(f_mode::DEF),
    ],
};

native_class!(File: FILE);

struct FileState {
    /// The path as given.
    name: String,
    /// The mode as given (`'r'`, `'wb'` …).
    mode: String,
    /// The `encoding` argument (text mode), `UTF-8` by default.
    encoding: String,
    binary: bool,
    readable: bool,
    writable: bool,
    append: bool,
    /// `newline=''`: lines are read untranslated.
    keep_newlines: bool,
    data: Vec<u8>,
    pos: usize,
    dirty: bool,
    closed: bool,
}

impl FileState {
    /// Writes the contents back to the file when they changed.
    fn flush(&mut self) -> PyResult<()> {
        if self.dirty {
            std::fs::write(&self.name, &self.data)
                .map_err(|e| PyErr::from_io(&e, Some(&self.name)))?;
            self.dirty = false;
        }
        Ok(())
    }

    fn check_open(&self) -> PyResult<()> {
        if self.closed {
            return Err(PyErr::new(
                ExcType::ValueError,
                "I/O operation on closed file.",
            ));
        }
        Ok(())
    }

    fn check_readable(&self) -> PyResult<()> {
        self.check_open()?;
        if !self.readable {
            return Err(PyErr::new(ExcType::UnsupportedOperation, "not readable"));
        }
        Ok(())
    }

    fn check_writable(&self) -> PyResult<()> {
        self.check_open()?;
        if !self.writable {
            return Err(PyErr::new(ExcType::UnsupportedOperation, "not writable"));
        }
        Ok(())
    }

    /// The next character of text at `pos` (a newline sequence read as
    /// `\n` unless `keep_newlines`), and the bytes it takes.
    fn next_char(&self) -> PyResult<Option<(char, usize)>> {
        let rest = &self.data[self.pos..];
        let Some(&b) = rest.first() else {
            return Ok(None);
        };
        if b == b'\r' && !self.keep_newlines {
            let n = if rest.get(1) == Some(&b'\n') { 2 } else { 1 };
            return Ok(Some(('\n', n)));
        }
        let len = match b {
            0x00..=0x7f => 1,
            0xc2..=0xdf => 2,
            0xe0..=0xef => 3,
            0xf0..=0xf4 => 4,
            _ => return Err(self.decode_error(b, "invalid start byte")),
        };
        match rest.get(..len).map(std::str::from_utf8) {
            Some(Ok(s)) => Ok(s.chars().next().map(|c| (c, len))),
            _ => Err(self.decode_error(b, "invalid continuation byte")),
        }
    }

    fn decode_error(&self, b: u8, why: &str) -> PyErr {
        PyErr::new(
            ExcType::UnicodeDecodeError,
            format!(
                "'utf-8' codec can't decode byte {b:#04x} in position {}: {why}",
                self.pos
            ),
        )
    }

    /// Up to `size` characters (all when None), stopping after a newline
    /// when `line`.
    fn read_text(&mut self, size: Option<usize>, line: bool) -> PyResult<String> {
        let mut out = String::new();
        let mut n = 0;
        while size.is_none_or(|s| n < s) {
            let Some((c, len)) = self.next_char()? else {
                break;
            };
            self.pos += len;
            out.push(c);
            n += 1;
            if line && (c == '\n' || (c == '\r' && self.data.get(self.pos) != Some(&b'\n'))) {
                break;
            }
        }
        Ok(out)
    }

    /// Up to `size` bytes (all when None), stopping after `\n` when `line`.
    fn read_bytes(&mut self, size: Option<usize>, line: bool) -> Vec<u8> {
        let rest = &self.data[self.pos..];
        let mut end = size.map_or(rest.len(), |s| s.min(rest.len()));
        if line {
            if let Some(i) = rest[..end].iter().position(|&b| b == b'\n') {
                end = i + 1;
            }
        }
        let out = rest[..end].to_vec();
        self.pos += end;
        out
    }

    fn read(&mut self, size: Option<usize>, line: bool) -> PyResult<Value> {
        self.check_readable()?;
        Ok(if self.binary {
            Value::Bytes(Rc::new(self.read_bytes(size, line)))
        } else {
            Value::str(self.read_text(size, line)?)
        })
    }

    fn write(&mut self, v: &Value) -> PyResult<usize> {
        self.check_writable()?;
        let (bytes, n) = match (v, self.binary) {
            (Value::Str(s), false) => (s.as_bytes().to_vec(), s.chars().count()),
            (Value::Bytes(b), true) => (b.to_vec(), b.len()),
            (other, false) => {
                return Err(type_error(format!(
                    "write() argument must be str, not {}",
                    other.type_name()
                )))
            }
            (other, true) => {
                return Err(type_error(format!(
                    "a bytes-like object is required, not '{}'",
                    other.type_name()
                )))
            }
        };
        if self.append {
            self.pos = self.data.len();
        }
        let end = self.pos + bytes.len();
        if self.data.len() < self.pos {
            self.data.resize(self.pos, 0);
        }
        let overlap = end.min(self.data.len());
        self.data.splice(self.pos..overlap, bytes);
        self.pos = end;
        self.dirty = true;
        Ok(n)
    }
}

impl Drop for File {
    fn drop(&mut self) {
        // CPython flushes a file that is collected unclosed.
        let _ = self.0.get_mut().flush();
    }
}

impl NativeObject for File {
    fn type_name(&self) -> &str {
        let st = self.0.borrow();
        match (st.binary, st.readable, st.writable) {
            (false, _, _) => "TextIOWrapper",
            (true, true, true) => "BufferedRandom",
            (true, true, false) => "BufferedReader",
            (true, false, _) => "BufferedWriter",
        }
    }

    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&FILE)
    }

    fn repr(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        let st = self.0.borrow();
        let name = str_repr(&st.name);
        Ok(if st.binary {
            format!("<_io.{} name={name}>", self.type_name())
        } else {
            format!(
                "<_io.TextIOWrapper name={name} mode={} encoding={}>",
                str_repr(&st.mode),
                str_repr(&st.encoding)
            )
        })
    }

    // A binary file has no `encoding`: not a member of the class.
    fn getattr(&self, _this: &Value, name: &str, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        let st = self.0.borrow();
        Ok(match name {
            "encoding" if !st.binary => Some(Value::str(&st.encoding)),
            _ => None,
        })
    }

    fn dir(&self) -> Vec<String> {
        let mut names = public_names(&FILE.class());
        names.push("encoding".to_string());
        names
    }

    fn iter(&self, this: &Value, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        self.0.borrow().check_open()?;
        Ok(Some(this.clone()))
    }

    fn next(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        let line = self.0.borrow_mut().read(None, true)?;
        Ok(match &line {
            Value::Str(s) if s.is_empty() => None,
            Value::Bytes(b) if b.is_empty() => None,
            _ => Some(line),
        })
    }

    fn enter(&self, this: &Value, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        self.0.borrow().check_open()?;
        Ok(Some(this.clone()))
    }

    fn exit(&self, _this: &Value, _exc: Option<&PyErr>, _vm: &dyn Vm) -> PyResult<bool> {
        close_state(&mut self.0.borrow_mut())?;
        Ok(false)
    }
}

fn close_state(st: &mut FileState) -> PyResult<()> {
    if st.closed {
        return Ok(());
    }
    st.closed = true;
    st.flush()
}

getters! { this: &File;
    /// `closed`.
    fn f_closed("TextIOWrapper.closed(self)") -> bool { this.0.borrow().closed }
    /// The path as given.
    fn f_name("TextIOWrapper.name(self)") -> String { this.0.borrow().name.clone() }
    /// The mode as given.
    fn f_mode("TextIOWrapper.mode(self)") -> String { this.0.borrow().mode.clone() }
}

/// A `size` argument: None for "all" (a negative number or None).
fn size_arg(v: &Value) -> PyResult<Option<usize>> {
    match v {
        Value::None => Ok(None),
        Value::Int(n) => Ok(usize::try_from(*n).ok()),
        Value::Bool(b) => Ok(Some(*b as usize)),
        other => Err(type_error(format!(
            "argument should be integer or None, not '{}'",
            other.type_name()
        ))),
    }
}

/// Reads up to `size` characters (bytes in binary mode), all when negative.
#[native("TextIOWrapper.read(self, size=-1, /)", c)]
fn f_read(this: &File, size: &Value) -> PyResult<Value> {
    let size = size_arg(size)?;
    this.0.borrow_mut().read(size, false)
}

/// Reads one line, with its newline; '' at the end.
#[native("TextIOWrapper.readline(self, size=-1, /)", c)]
fn f_readline(this: &File, size: &Value) -> PyResult<Value> {
    let size = size_arg(size)?;
    this.0.borrow_mut().read(size, true)
}

/// The remaining lines, as a list.
#[native("TextIOWrapper.readlines(self, hint=-1, /)", c)]
fn f_readlines(this: &File, hint: &Value) -> PyResult<Vec<Value>> {
    let hint = size_arg(hint)?.filter(|&h| h > 0);
    {
        let st = &mut *this.0.borrow_mut();
        let mut lines = Vec::new();
        let mut total = 0;
        loop {
            let line = st.read(None, true)?;
            let n = match &line {
                Value::Str(s) => s.chars().count(),
                Value::Bytes(b) => b.len(),
                _ => 0,
            };
            if n == 0 {
                break;
            }
            lines.push(line);
            total += n;
            if hint.is_some_and(|h| total >= h) {
                break;
            }
        }
        Ok(lines)
    }
}

/// Writes the text (bytes in binary mode); returns how many characters (bytes).
#[native("TextIOWrapper.write(self, s, /)", c)]
fn f_write(this: &File, s: &Value) -> PyResult<usize> {
    this.0.borrow_mut().write(s)
}

/// Writes each string of `lines` (no newlines are added).
#[native("TextIOWrapper.writelines(self, lines, /)", c)]
fn f_writelines(vm: &dyn Vm, this: &File, lines: &Value) -> PyResult<()> {
    let lines = vm.collect(lines)?;
    let st = &mut *this.0.borrow_mut();
    for l in &lines {
        st.write(l)?;
    }
    Ok(())
}

/// Moves to a position (0: from the start, 1: from here, 2: from the end).
#[native("TextIOWrapper.seek(self, cookie, whence=0, /)", c)]
fn f_seek(this: &File, cookie: &Value, whence: &Value) -> PyResult<i64> {
    let Value::Int(offset) = *cookie else {
        return Err(type_error(format!(
            "'{}' object cannot be interpreted as an integer",
            cookie.type_name()
        )));
    };
    let whence = match whence {
        Value::Int(w) => *w,
        _ => 0,
    };
    {
        let st = &mut *this.0.borrow_mut();
        st.check_open()?;
        let base = match whence {
            0 => 0,
            1 | 2 if !st.binary && offset != 0 => {
                let which = if whence == 1 { "cur" } else { "end" };
                return Err(PyErr::new(
                    ExcType::UnsupportedOperation,
                    format!("can't do nonzero {which}-relative seeks"),
                ));
            }
            1 => st.pos as i64,
            2 => st.data.len() as i64,
            w => {
                return Err(PyErr::new(
                    ExcType::ValueError,
                    format!("invalid whence ({w}, should be 0, 1 or 2)"),
                ))
            }
        };
        let pos = base + offset;
        if pos < 0 {
            return Err(PyErr::new(
                if st.binary {
                    ExcType::OSError
                } else {
                    ExcType::ValueError
                },
                if st.binary {
                    "[Errno 22] Invalid argument".to_string()
                } else {
                    format!("negative seek position {offset}")
                },
            ));
        }
        st.pos = pos as usize;
        Ok(pos)
    }
}

/// The current position.
#[native("TextIOWrapper.tell(self, /)", c)]
fn f_tell(this: &File) -> PyResult<usize> {
    let st = this.0.borrow();
    st.check_open()?;
    Ok(st.pos)
}

/// Cuts the file at `pos` (the current position by default).
#[native("TextIOWrapper.truncate(self, pos=None, /)", c)]
fn f_truncate(this: &File, pos: &Value) -> PyResult<usize> {
    let at = size_arg(pos)?;
    let st = &mut *this.0.borrow_mut();
    st.check_writable()?;
    let at = at.unwrap_or(st.pos);
    st.data.resize(at, 0);
    st.dirty = true;
    Ok(at)
}

/// Writes what was written so far to the file.
#[native("TextIOWrapper.flush(self, /)", c)]
fn f_flush(this: &File) -> PyResult<()> {
    let st = &mut *this.0.borrow_mut();
    st.check_open()?;
    st.flush()
}

/// Flushes and closes the file.
#[native("TextIOWrapper.close(self, /)", c)]
fn f_close(this: &File) -> PyResult<()> {
    close_state(&mut this.0.borrow_mut())
}

/// Whether the file was opened for reading.
#[native("TextIOWrapper.readable(self, /)", c)]
fn f_readable(this: &File) -> PyResult<bool> {
    let st = this.0.borrow();
    st.check_open().map(|_| st.readable)
}

/// Whether the file was opened for writing.
#[native("TextIOWrapper.writable(self, /)", c)]
fn f_writable(this: &File) -> PyResult<bool> {
    let st = this.0.borrow();
    st.check_open().map(|_| st.writable)
}

/// True: files can seek.
#[native("TextIOWrapper.seekable(self, /)", c)]
fn f_seekable(this: &File) -> PyResult<bool> {
    this.0.borrow().check_open().map(|_| true)
}

/// Opens a file: `with open('data.txt', 'w', encoding='utf-8') as f: f.write('hi')`.
#[allow(clippy::too_many_arguments)]
#[native("open(file, mode='r', buffering=-1, encoding=None, errors=None, newline=None, closefd=True, opener=None)", c)]
pub fn open(
    vm: &dyn Vm,
    file: &Value,
    mode: &Value,
    buffering: &Value,
    encoding: &Value,
    errors: &Value,
    newline: &Value,
    closefd: &Value,
    opener: &Value,
) -> PyResult<Value> {
    if !opener.is_none() {
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            "open(opener=...) is not supported in dist",
        ));
    }
    let name = match file {
        Value::Str(s) => s.to_string(),
        Value::Int(_) => {
            return Err(PyErr::new(
                ExcType::NotImplementedError,
                "open() of a file descriptor is not supported in dist: open a path",
            ))
        }
        // an os.PathLike (`pathlib.Path`)
        other @ Value::Instance(_) => super::os_path::fspath(vm, other)?,
        other => {
            return Err(type_error(format!(
                "expected str, bytes or os.PathLike object, not {}",
                other.type_name()
            )))
        }
    };
    let mode = match mode {
        Value::Str(s) => s.to_string(),
        other => {
            return Err(type_error(format!(
                "open() argument 'mode' must be str, not {}",
                other.type_name()
            )))
        }
    };
    let m = parse_mode(&mode)?;
    let (encoding_arg, newline_arg) = (encoding, newline);
    let encoding = match encoding_arg {
        Value::None => None,
        Value::Str(s) => Some(s.to_string()),
        other => {
            return Err(type_error(format!(
                "open() argument 'encoding' must be str or None, not {}",
                other.type_name()
            )))
        }
    };
    let newline = match newline_arg {
        Value::None => None,
        Value::Str(s) => Some(s.to_string()),
        other => {
            return Err(type_error(format!(
                "open() argument 'newline' must be str or None, not {}",
                other.type_name()
            )))
        }
    };
    if m.binary {
        for (v, what) in [
            (encoding_arg, "encoding"),
            (errors, "errors"),
            (newline_arg, "newline"),
        ] {
            if !v.is_none() {
                return Err(PyErr::new(
                    ExcType::ValueError,
                    format!("binary mode doesn't take an {what} argument")
                        .replace("an newline", "a newline"),
                ));
            }
        }
    }
    if let Some(e) = &encoding {
        let norm = e.to_ascii_lowercase().replace(['-', '_'], "");
        if norm != "utf8" && norm != "ascii" {
            return Err(PyErr::new(
                ExcType::NotImplementedError,
                format!(
                    "open() with encoding={} is not supported in dist: files are UTF-8",
                    str_repr(e)
                ),
            ));
        }
    }
    match newline.as_deref() {
        None | Some("") | Some("\n") => {}
        Some(nl @ ("\r" | "\r\n")) => {
            return Err(PyErr::new(
                ExcType::NotImplementedError,
                format!(
                    "open() with newline={} is not supported in dist",
                    str_repr(nl)
                ),
            ))
        }
        Some(nl) => {
            return Err(PyErr::new(
                ExcType::ValueError,
                format!("illegal newline value: {nl}"),
            ))
        }
    }
    // CPython's FileIO refuses closefd=False for a path before opening it
    if !vm.truthy(closefd)? {
        return Err(PyErr::new(
            ExcType::ValueError,
            "Cannot use closefd=False with file name",
        ));
    }
    let io = |e: std::io::Error| PyErr::from_io(&e, Some(&name));
    let data = match m.kind {
        'r' => std::fs::read(&name).map_err(io)?,
        'w' => {
            std::fs::File::create(&name).map_err(io)?;
            Vec::new()
        }
        'x' => {
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&name)
                .map_err(io)?;
            Vec::new()
        }
        _ => {
            std::fs::OpenOptions::new()
                .append(true)
                .create(true)
                .open(&name)
                .map_err(io)?;
            std::fs::read(&name).map_err(io)?
        }
    };
    // checked once the file is open, as CPython does; any other buffering
    // reads and writes the same bytes
    if matches!(buffering, Value::Int(0)) && !m.binary {
        return Err(PyErr::new(
            ExcType::ValueError,
            "can't have unbuffered text I/O",
        ));
    }
    let pos = if m.kind == 'a' { data.len() } else { 0 };
    Ok(Value::native(File(RefCell::new(FileState {
        name,
        mode,
        encoding: encoding.unwrap_or_else(|| "UTF-8".to_string()),
        binary: m.binary,
        readable: m.kind == 'r' || m.plus,
        writable: m.kind != 'r' || m.plus,
        append: m.kind == 'a',
        keep_newlines: newline.is_some(),
        data,
        pos,
        dirty: false,
        closed: false,
    }))))
}

struct Mode {
    /// One of `r w x a`.
    kind: char,
    plus: bool,
    binary: bool,
}

/// CPython's checks of `open()`'s mode.
fn parse_mode(mode: &str) -> PyResult<Mode> {
    let invalid = || {
        PyErr::new(
            ExcType::ValueError,
            format!("invalid mode: {}", str_repr(mode)),
        )
    };
    let mut seen = String::new();
    for c in mode.chars() {
        if !"rwxabt+".contains(c) || seen.contains(c) {
            return Err(invalid());
        }
        seen.push(c);
    }
    let kinds: Vec<char> = seen.chars().filter(|c| "rwxa".contains(*c)).collect();
    let binary = seen.contains('b');
    if binary && seen.contains('t') {
        return Err(PyErr::new(
            ExcType::ValueError,
            "can't have text and binary mode at once",
        ));
    }
    let kind = match kinds.as_slice() {
        [kind] => *kind,
        [] => {
            return Err(PyErr::new(
                ExcType::ValueError,
                "Must have exactly one of create/read/write/append mode and at most one plus",
            ))
        }
        _ => {
            return Err(PyErr::new(
                ExcType::ValueError,
                "must have exactly one of create/read/write/append mode",
            ))
        }
    };
    Ok(Mode {
        kind,
        plus: seen.contains('+'),
        binary,
    })
}

/// `_io`: what `stdlib/io.dist` takes from the native side (the exception
/// `open()` raises for an unsupported operation, and `open` itself).
pub fn module() -> Value {
    let mut m = super::ModuleBuilder::new("_io");
    m.value(
        "UnsupportedOperation",
        Value::Class(ExcType::UnsupportedOperation.class()),
    );
    m.add(open::DEF);
    m.build()
}
