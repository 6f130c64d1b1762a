//! Ops on a tensor's bytes: `DecodeRaw` / `DecodePaddedRaw`
//! (`tf.io.decode_raw`: string elements read as numbers) and `Bitcast`
//! (`tf.bitcast`: one dtype's bytes read as another's). Both work on the
//! little-endian layout TensorFlow's CPU kernels see, in host memory.

use super::kernel_error;
use crate::runtime::autodiff::{tape, GradOp, NoGrad};
use crate::runtime::checkpoint::bundle;
use crate::runtime::dtype::DType;
use crate::runtime::error::{Error, Result};
use crate::runtime::shape::Shape;
use crate::runtime::storage::HostData;
use crate::runtime::tensor::Tensor;
use crate::runtime::Device;

/// TensorFlow's registration error for attr `attr` of `op` given `d`.
#[cold]
fn registration_error(op: &str, attr: &str, d: DType) -> Error {
    let (allowed, registration) = match op {
        "Bitcast" => {
            let types = "bfloat16, half, float, double, int64, int32, uint8, uint16, uint32, \
                         uint64, int8, int16, complex64, complex128, qint8, quint8, qint16, \
                         quint16, qint32";
            let dts = dt_list(types);
            (
                types,
                format!(
                    "Op<name=Bitcast; signature=input:T -> output:type; \
                     attr=T:type,allowed=[{dts}]; attr=type:type,allowed=[{dts}]>"
                ),
            )
        }
        _ => {
            let types = "half, float, double, int32, uint16, uint8, int16, int8, int64, \
                         complex64, complex128, bool, bfloat16";
            (
                types,
                format!(
                    "Op<name={op}; signature=bytes:string -> output:out_type; \
                     attr=out_type:type,allowed=[{}]; attr=little_endian:bool,default=true>",
                    dt_list(types)
                ),
            )
        }
    };
    Error::invalid_argument(format!(
        "Value for attr '{attr}' of {} is not in the list of allowed values: {allowed}\n\t; \
         NodeDef: {{{{node {op}}}}}; {registration} [Op:{op}] name: ",
        d.kernel_name()
    ))
}

fn dt_list(types: &str) -> String {
    types
        .split(", ")
        .map(|n| format!("DT_{}", n.to_ascii_uppercase()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `tf.io.decode_raw(input_bytes, out_type, little_endian, fixed_length)`:
/// each string element's bytes as `out_type` numbers along a new last
/// axis. Without `fixed_length` every element must have the same size, a
/// multiple of the type's; with it each is cut or zero-padded to it.
pub fn decode_raw(
    input: &Tensor,
    out: DType,
    little_endian: bool,
    fixed_length: Option<i64>,
) -> Result<Tensor> {
    let op = if fixed_length.is_some() {
        "DecodePaddedRaw"
    } else {
        "DecodeRaw"
    };
    let _trace = crate::runtime::trace::op(op, input.device());
    if out == DType::String {
        return Err(registration_error(op, "out_type", out));
    }
    let dev = Device::CPU0;
    let fail = |msg: String| kernel_error(op, &dev, &msg, " name: ");
    let size = out.size();
    let host = input.to_device(Device::CPU0)?;
    let HostData::Str(elems) = host.host()? else {
        return Err(Error::internal(format!(
            "{op} reads string tensors, not {}",
            input.dtype().name()
        )));
    };
    let width = match fixed_length {
        Some(n) if n <= 0 => {
            return Err(fail(format!(
                "fixed_length ({n}) must be greater than zero."
            )))
        }
        Some(n) if !(n as usize).is_multiple_of(size) => {
            return Err(fail(format!(
                "fixed_length ({n}) must be a multiple of the size of out_type ({size})"
            )))
        }
        Some(n) => n as usize,
        None => {
            let width = elems.first().map_or(0, Vec::len);
            if !width.is_multiple_of(size) {
                return Err(fail(format!(
                    "Input to DecodeRaw has length {width} that is not a multiple of {size}, \
                     the size of {}",
                    out.kernel_name()
                )));
            }
            if let Some((i, e)) = elems.iter().enumerate().find(|(_, e)| e.len() != width) {
                // (TensorFlow's message puts the first element's size first)
                return Err(fail(format!(
                    "DecodeRaw requires input strings to all be the same size, but element {i} \
                     has size {width} != {}",
                    e.len()
                )));
            }
            width
        }
    };
    let mut dims = input.dims().to_vec();
    dims.push(width / size);
    let shape = Shape(dims);
    let n = shape.checked_numel()?;
    let mut bytes = Vec::with_capacity(elems.len() * width);
    for e in elems {
        let start = bytes.len();
        bytes.extend_from_slice(&e[..e.len().min(width)]);
        bytes.resize(start + width, 0);
    }
    if !little_endian {
        bytes.chunks_mut(size).for_each(<[u8]>::reverse);
    }
    let data = bundle::decode(out, n, &bytes)
        .ok_or_else(|| Error::internal("DecodeRaw: the bytes do not fill the output"))?;
    Tensor::from_host(data, shape, input.device())
}

fn bitcast_impl(x: &Tensor, to: DType) -> Result<Tensor> {
    let op = "Bitcast";
    let _trace = crate::runtime::trace::op(op, x.device());
    let bad = |d: DType| matches!(d, DType::Bool | DType::String);
    if bad(to) {
        return Err(registration_error(op, "type", to));
    }
    if bad(x.dtype()) {
        return Err(registration_error(op, "T", x.dtype()));
    }
    let (from_size, to_size) = (x.dtype().size(), to.size());
    let mut dims = x.dims().to_vec();
    let fits = match from_size.cmp(&to_size) {
        std::cmp::Ordering::Equal => true,
        std::cmp::Ordering::Greater => {
            dims.push(from_size / to_size);
            true
        }
        std::cmp::Ordering::Less => dims.pop() == Some(to_size / from_size),
    };
    if !fits {
        return Err(kernel_error(
            op,
            &x.device(),
            &format!(
                "Cannot bitcast from {} to {}",
                x.dtype().datatype_enum(),
                to.datatype_enum()
            ),
            " name: ",
        ));
    }
    let shape = Shape(dims);
    let n = shape.checked_numel()?;
    let (bytes, _) = bundle::tensor_bytes(x)?;
    let data = bundle::decode(to, n, &bytes)
        .ok_or_else(|| Error::internal("Bitcast: the bytes do not fill the output"))?;
    Tensor::from_host(data, shape, Device::CPU0)?.to_device(x.device())
}

/// `tf.bitcast(input, type)`: `input`'s bytes read as `type` (a larger
/// input type adds a last axis, a smaller one takes its last axis away).
/// No gradient, as in TensorFlow.
pub fn bitcast(x: &Tensor, to: DType) -> Result<Tensor> {
    tape::primitive(
        || GradOp::NoGrad(NoGrad("Bitcast")),
        &[x],
        || bitcast_impl(x, to),
    )
}
