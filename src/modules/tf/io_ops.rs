//! `tf.io`: the `ReadFile` and `WriteFile` ops (string tensors in and
//! out, TensorFlow's kernel messages) and the `gfile` namespace
//! (`gfile.rs`). Neither op has a gradient (string tensors), and neither
//! records a graph node: a `tf.function` that reads or writes files runs
//! its Python body on every call.

use super::gfile::io_status;
use crate::modules::ModuleBuilder;
use crate::object::native;
use crate::runtime::{DType, Device, HostData, Shape, Tensor};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// Registers `tf.io`.
pub fn register(m: &mut ModuleBuilder) {
    m.namespace("io", |io| {
        io.add(read_file::DEF)
            .add(write_file::DEF)
            .add(decode_raw::DEF)
            .namespace("gfile", super::gfile::register);
    });
}

/// TensorFlow's eager wrapper around a kernel's message.
fn kernel_error(ty: ExcType, op: &str, msg: &str) -> PyErr {
    PyErr::new(
        ty,
        format!(
            "{{{{function_node __wrapped__{op}_device_/job:localhost/replica:0/task:0/device:CPU:0}}}} {msg} [Op:{op}]"
        ),
    )
}

fn scalar_bytes(t: &Tensor, op: &str, what: &str) -> PyResult<Vec<u8>> {
    if t.rank() != 0 {
        let dims: Vec<String> = t.dims().iter().map(|d| d.to_string()).collect();
        let dims = dims.join(",");
        return Err(kernel_error(
            ExcType::InvalidArgumentError,
            op,
            &format!("{what} tensor must be scalar, but had shape: [{}]", dims),
        ));
    }
    match t.host() {
        Ok(HostData::Str(v)) if v.len() == 1 => Ok(v[0].clone()),
        _ => Err(PyErr::new(
            ExcType::SystemError,
            format!("{op}: expected a string scalar"),
        )),
    }
}

/// The contents of a file, as a scalar string tensor.
#[native("read_file(filename, name=None)")]
fn read_file(vm: &dyn Vm, filename: &Value, _name: &Value) -> PyResult<Tensor> {
    let t = super::strings_ops::string_arg(vm, filename, "ReadFile", 0)?;
    let path =
        String::from_utf8_lossy(&scalar_bytes(&t, "ReadFile", "Input filename")?).into_owned();
    let data = std::fs::read(&path).map_err(|e| {
        let (ty, msg) = io_status(&e, &path);
        kernel_error(ty, "ReadFile", &msg)
    })?;
    Tensor::from_host(HostData::Str(vec![data]), Shape::scalar(), Device::CPU0)
        .map_err(crate::object::tensor::convert::runtime_err)
}

/// Writes `contents` (a scalar string) to a file, creating its directory.
#[native("write_file(filename, contents, name=None)")]
fn write_file(vm: &dyn Vm, filename: &Value, contents: &Value, _name: &Value) -> PyResult<()> {
    let f = super::strings_ops::string_arg(vm, filename, "WriteFile", 0)?;
    let c = super::strings_ops::string_arg(vm, contents, "WriteFile", 1)?;
    let path =
        String::from_utf8_lossy(&scalar_bytes(&f, "WriteFile", "Input filename")?).into_owned();
    let data = scalar_bytes(&c, "WriteFile", "Contents")?;
    let wrap = |e: std::io::Error, at: &str| {
        let (ty, msg) = io_status(&e, at);
        kernel_error(ty, "WriteFile", &msg)
    };
    if let Some(dir) = std::path::Path::new(&path).parent() {
        if !dir.as_os_str().is_empty() {
            std::fs::create_dir_all(dir).map_err(|e| wrap(e, &dir.to_string_lossy()))?;
        }
    }
    std::fs::write(&path, data).map_err(|e| wrap(e, &path))
}

/// Each string element's bytes read as `out_type` numbers, along a new
/// last axis (`fixed_length`: each element cut or zero-padded to it).
#[native("decode_raw(input_bytes, out_type, little_endian=True, fixed_length=None, name=None)")]
fn decode_raw(
    vm: &dyn Vm,
    input_bytes: &Value,
    out_type: DType,
    little_endian: bool,
    fixed_length: Option<i64>,
    _name: &Value,
) -> PyResult<Tensor> {
    let op = if fixed_length.is_some() {
        "DecodePaddedRaw"
    } else {
        "DecodeRaw"
    };
    let t = super::strings_ops::string_arg(vm, input_bytes, op, 0)?;
    let r = crate::runtime::ops::raw::decode_raw(&t, out_type, little_endian, fixed_length);
    crate::object::tensor::convert::placed(vm, r)
}
