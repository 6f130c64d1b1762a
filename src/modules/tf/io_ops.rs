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
            .add(serialize_tensor::DEF)
            .add(parse_tensor::DEF)
            .value(
                "TFRecordWriter",
                Value::Class(super::records::TF_RECORD_WRITER.class()),
            )
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

/// A tensor as a serialized `TensorProto` (raw little-endian content;
/// strings as `string_val`), a scalar string.
#[native("serialize_tensor(tensor, name=None)")]
fn serialize_tensor(vm: &dyn Vm, tensor: &Value, _name: &Value) -> PyResult<Tensor> {
    use crate::object::tensor::convert::runtime_err;
    let t = crate::object::tensor::convert::to_tensor(vm, tensor, None)?;
    let proto = crate::runtime::saved_model::tensor_proto(&t).map_err(runtime_err)?;
    let bytes = prost::Message::encode_to_vec(&proto);
    Tensor::from_host(HostData::Str(vec![bytes]), Shape::scalar(), Device::CPU0)
        .map_err(runtime_err)
}

/// Standard base64 with padding (TensorFlow's message shows the input so).
fn base64(data: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for c in data.chunks(3) {
        let n = (c[0] as u32) << 16
            | (*c.get(1).unwrap_or(&0) as u32) << 8
            | *c.get(2).unwrap_or(&0) as u32;
        for k in 0..4 {
            if k <= c.len() {
                out.push(A[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The tensor a serialized `TensorProto` holds, which must be of `out_type`.
#[native("parse_tensor(serialized, out_type, name=None)")]
fn parse_tensor(
    vm: &dyn Vm,
    serialized: &Value,
    out_type: DType,
    _name: &Value,
) -> PyResult<Tensor> {
    let s = super::strings_ops::string_arg(vm, serialized, "ParseTensor", 0)?;
    let data = scalar_bytes(&s, "ParseTensor", "Serialized")?;
    let parsed = <crate::runtime::saved_model::proto::TensorProto as prost::Message>::decode(
        data.as_slice(),
    );
    let bad = || {
        kernel_error(
            ExcType::InvalidArgumentError,
            "ParseTensor",
            &format!(
                "Could not parse `serialized` as TensorProto, base64: {}",
                base64(&data)
            ),
        )
    };
    let proto = parsed.map_err(|_| bad())?;
    let t = crate::runtime::saved_model::tensor_from_proto(&proto).map_err(|_| bad())?;
    if t.dtype() != out_type {
        // this check's message ends as the eager op's do
        return Err(PyErr::new(
            ExcType::InvalidArgumentError,
            format!(
                "{{{{function_node __wrapped__ParseTensor_device_{}}}}} Type mismatch between parsed tensor ({}) and dtype ({}) [Op:ParseTensor] name: ",
                Device::cpu(0).full_name(),
                t.dtype().kernel_name(),
                out_type.kernel_name()
            ),
        ));
    }
    Ok(t)
}
