//! Printing, as a spec: numpy's `str`/`repr` of arrays and scalars in its
//! `legacy="1.25"` style, and TensorFlow's `str`/`repr` of tensors built on
//! them. Checked against a corpus generated with real numpy and TensorFlow
//! (`tests/runtime_format.rs`).

pub mod array;
pub mod digits;
pub mod elem;
pub mod summarize;

use self::array::{array2string, LINE_WIDTH};
use self::digits::{numpy_scalar_complex, numpy_scalar_float, FloatKind};
use self::elem::bytes_repr;
use super::dtype::{DType, Scalar};
use super::storage::HostData;
use super::tensor::Tensor;

pub use self::digits::python_float_repr;

/// How numpy shows a string array's dtype in `repr`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StrDisplay {
    /// `dtype=object`: what `tensor.numpy()` gives for `tf.string`.
    #[default]
    Object,
    /// `dtype='|S5'`: a numpy bytes array (`np.array([b'a'])`).
    FixedBytes,
}

fn kind_of(d: DType) -> FloatKind {
    match d {
        DType::Float16 => FloatKind::F16,
        DType::Float32 | DType::Complex64 => FloatKind::F32,
        _ => FloatKind::F64,
    }
}

/// numpy's legacy `str`/`repr` of one scalar of `dtype` (they agree in
/// legacy mode): `1.5`, `3`, `True`, `b'hi'`, `1e+20`.
pub fn numpy_scalar_text(value: &Scalar, dtype: DType) -> String {
    match value {
        Scalar::Bool(b) => if *b { "True" } else { "False" }.to_string(),
        Scalar::Int(i) => i.to_string(),
        Scalar::Float(f) => numpy_scalar_float(*f, kind_of(dtype)),
        Scalar::Complex(re, im) => numpy_scalar_complex(*re, *im, kind_of(dtype)),
        Scalar::Bytes(b) => bytes_repr(b),
    }
}

fn host(t: &Tensor) -> Option<&HostData> {
    t.storage().host()
}

/// `str(arr)` of a numpy array (`[1. 2.]`; a 0-d array prints its scalar).
pub fn numpy_str(t: &Tensor) -> String {
    let Some(data) = host(t) else {
        return "<unprintable>".to_string();
    };
    if t.rank() == 0 {
        return match t.get(0) {
            Some(v) => numpy_scalar_text(&v, t.dtype()),
            None => String::new(),
        };
    }
    array2string(data, t.dims(), " ", "", "")
}

/// `repr(arr)` of a numpy array: `array([1., 2.], dtype=float32)`.
pub fn numpy_repr(t: &Tensor) -> String {
    numpy_repr_with(t, StrDisplay::Object)
}

/// [`numpy_repr`] with a choice of how string dtypes are named.
pub fn numpy_repr_with(t: &Tensor, strs: StrDisplay) -> String {
    let Some(data) = host(t) else {
        return "<unprintable>".to_string();
    };
    let prefix = "array(";
    let lst = array2string(data, t.dims(), ", ", prefix, ")");
    let size = t.numel();
    let mut extras = Vec::new();
    if size == 0 && t.dims() != [0] {
        extras.push(format!("shape={}", t.shape().tuple_text()));
    }
    let dtype = t.dtype();
    if !dtype.numpy_repr_implied() || size == 0 {
        let name = match (dtype, strs) {
            (DType::String, StrDisplay::FixedBytes) => {
                let w = (0..size)
                    .filter_map(|i| match t.get(i) {
                        Some(Scalar::Bytes(b)) => Some(b.len()),
                        _ => None,
                    })
                    .max()
                    .unwrap_or(0);
                format!("'|S{w}'")
            }
            (d, _) => d.numpy_name().to_string(),
        };
        extras.push(format!("dtype={name}"));
    }
    if extras.is_empty() {
        return format!("{prefix}{lst})");
    }
    let arr_str = format!("{prefix}{lst},");
    let extra_str = format!("{})", extras.join(", "));
    let last_line_len = arr_str.len() - arr_str.rfind('\n').map_or(0, |p| p + 1);
    let spacer = if last_line_len + extra_str.len() + 1 > LINE_WIDTH {
        format!("\n{}", " ".repeat(prefix.len()))
    } else {
        " ".to_string()
    };
    format!("{arr_str}{spacer}{extra_str}")
}

fn newline_prefixed(text: String) -> String {
    if text.contains('\n') {
        format!("\n{text}")
    } else {
        text
    }
}

/// TensorFlow's `str(tensor)`: `tf.Tensor([1 2], shape=(2,), dtype=int32)`.
pub fn tf_str(t: &Tensor) -> String {
    format!(
        "tf.Tensor({}, shape={}, dtype={})",
        newline_prefixed(numpy_str(t)),
        t.shape().tuple_text(),
        t.dtype().name()
    )
}

/// TensorFlow's `repr(tensor)`:
/// `<tf.Tensor: shape=(2,), dtype=float32, numpy=array([1., 2.], dtype=float32)>`.
pub fn tf_repr(t: &Tensor) -> String {
    let np = if t.rank() == 0 && t.dtype().is_floating() {
        // TensorFlow's repr shows a 0-d float tensor as a Python float
        // (`numpy=0.10000000149011612` for float32 0.1)
        match t.get(0) {
            Some(Scalar::Float(f)) => python_float_repr(f),
            _ => numpy_str(t),
        }
    } else if t.rank() == 0 && t.dtype().is_complex() {
        // and a 0-d complex one as a Python complex
        match t.get(0) {
            Some(Scalar::Complex(re, im)) => numpy_scalar_complex(re, im, FloatKind::F64),
            _ => numpy_str(t),
        }
    } else if t.rank() == 0 {
        numpy_str(t)
    } else {
        numpy_repr(t)
    };
    format!(
        "<tf.Tensor: shape={}, dtype={}, numpy={}>",
        t.shape().tuple_text(),
        t.dtype().name(),
        newline_prefixed(np)
    )
}
