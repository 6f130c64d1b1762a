//! `tf.io.TFRecordWriter`: records written in TFRecord framing
//! (`distribute::dataset::files::frame`, the reader's counterpart), with
//! TensorFlow's errors. `tf.io.TFRecordOptions` and
//! `tf.data.experimental.TFRecordWriter` are Python over it
//! (`stdlib/tensorflow_io.dist`). Compressed output is refused.

use std::cell::RefCell;
use std::io::Write;

use super::gfile::{io_error, local_path, tf_error};
use crate::distribute::classes::native_class;
use crate::distribute::dataset::files::frame;
use crate::object::types::type_error;
use crate::object::{native, ClassSpec, Member};
use crate::value::{ExcType, NativeObject, PyErr, PyResult, Value, Vm};

/// A TFRecord file being written.
pub struct RecordWriter(RefCell<Option<std::io::BufWriter<std::fs::File>>>);

/// The class `tf.io.TFRecordWriter`.
pub static TF_RECORD_WRITER: ClassSpec = ClassSpec {
    name: "TFRecordWriter",
    module: "tensorflow.python.lib.io.tf_record",
    bases: &[],
    members: &[
        Member::New(writer_new::DEF),
        Member::Method(writer_write::DEF),
        Member::Method(writer_flush::DEF),
        Member::Method(writer_close::DEF),
    ],
};

native_class!(RecordWriter: TF_RECORD_WRITER);

/// The compression an `options` argument asks for: `None`, a string or a
/// `TFRecordOptions` (its `compression_type`).
fn compression(vm: &dyn Vm, options: &Value) -> PyResult<String> {
    let v = match options.as_builtin() {
        Value::None => return Ok(String::new()),
        Value::Str(s) => return Ok(s.to_string()),
        _ => vm.getattr(options, "compression_type")?,
    };
    Ok(match v.as_builtin() {
        Value::Str(s) => s.to_string(),
        _ => String::new(),
    })
}

/// Opens `path` for writing (truncating it), as TensorFlow does at once.
#[native("TFRecordWriter.__init__(path, options=None)")]
fn writer_new(vm: &dyn Vm, path: &Value, options: &Value) -> PyResult<Value> {
    let path = local_path(vm, path)?;
    let kind = compression(vm, options)?;
    if kind == "GZIP" || kind == "ZLIB" {
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            format!(
                "TFRecordOptions(compression_type='{kind}'): dist reads and writes uncompressed record files only"
            ),
        ));
    }
    let file = std::fs::File::create(&path).map_err(|e| io_error(&e, &path))?;
    Ok(Value::native(RecordWriter(RefCell::new(Some(
        std::io::BufWriter::new(file),
    )))))
}

fn closed() -> PyErr {
    tf_error(ExcType::FailedPreconditionError, "Writer is closed.")
}

/// Writes one record (`bytes`, or `str` as UTF-8).
#[native("TFRecordWriter.write(self, record)")]
fn writer_write(vm: &dyn Vm, this: &RecordWriter, record: &Value) -> PyResult<()> {
    let data: Vec<u8> = match record.as_builtin() {
        Value::Bytes(b) => b.to_vec(),
        Value::Str(s) => s.as_bytes().to_vec(),
        other => {
            return Err(type_error(format!(
                "write(): incompatible function arguments. The following argument types are supported:\n    1. (self: tensorflow.python.lib.io._pywrap_record_io.RecordWriter, record: str) -> None\n\nInvoked with: <tensorflow.python.lib.io.tf_record.TFRecordWriter object>, {}",
                vm.repr(other)?
            )))
        }
    };
    let mut st = this.0.borrow_mut();
    let w = st.as_mut().ok_or_else(closed)?;
    w.write_all(&frame(&data))
        .map_err(|e| tf_error(ExcType::UnknownError, e.to_string()))
}

/// Pushes what is buffered to the file.
#[native("TFRecordWriter.flush(self)")]
fn writer_flush(this: &RecordWriter) -> PyResult<()> {
    let mut st = this.0.borrow_mut();
    let w = st.as_mut().ok_or_else(closed)?;
    w.flush()
        .map_err(|e| tf_error(ExcType::UnknownError, e.to_string()))
}

/// Flushes and closes the file (closing twice does nothing).
#[native("TFRecordWriter.close(self)")]
fn writer_close(this: &RecordWriter) -> PyResult<()> {
    match this.0.borrow_mut().take() {
        Some(mut w) => w
            .flush()
            .map_err(|e| tf_error(ExcType::UnknownError, e.to_string())),
        None => Ok(()),
    }
}

impl NativeObject for RecordWriter {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&TF_RECORD_WRITER)
    }

    fn repr(&self, this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(format!(
            "<{}.TFRecordWriter object at {:#x}>",
            TF_RECORD_WRITER.module,
            this.id()
        ))
    }

    fn enter(&self, this: &Value, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        Ok(Some(this.clone()))
    }

    fn exit(&self, _this: &Value, _exc: Option<&PyErr>, _vm: &dyn Vm) -> PyResult<bool> {
        writer_close(self)?;
        Ok(false)
    }
}
