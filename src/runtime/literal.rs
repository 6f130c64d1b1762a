//! Tensors from nested Python literals ([`Literal`]): shape discovery,
//! dtype inference (TensorFlow's or numpy's rules, [`InferMode`]), and
//! conversion to an explicit dtype with TensorFlow's/numpy's error texts.

use super::device::Device;
use super::dtype::DType;
use super::error::{Error, ErrorKind, Result};
use super::f16::F16;
use super::format::digits::{numpy_scalar_complex, FloatKind};
use super::format::elem::bytes_repr;
use super::format::python_float_repr;
use super::shape::Shape;
use super::storage::{try_vec, HostData, C128, C64};
use super::tensor::Tensor;

/// A Python value the language layer hands over for conversion.
#[derive(Debug, Clone, PartialEq)]
pub enum Literal {
    /// `True` / `False`.
    Bool(bool),
    /// A Python `int` (the language layer rejects ints beyond `i64`).
    Int(i64),
    /// A Python `float`.
    Float(f64),
    /// A Python `complex`: its real and imaginary parts.
    Complex(f64, f64),
    /// A Python `str` (stored as UTF-8 bytes).
    Str(String),
    /// A Python `bytes`.
    Bytes(Vec<u8>),
    /// A Python `list`.
    List(Vec<Literal>),
    /// A Python `tuple`.
    Tuple(Vec<Literal>),
}

/// Which library's inference rules apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InferMode {
    /// `tf.constant`: int → int32 (int64 if too big), float → float32.
    Tf,
    /// `np.array`: int → int64, float → float64.
    Numpy,
}

impl Literal {
    /// Python's `repr` of the literal (used in conversion errors).
    pub fn python_repr(&self) -> String {
        match self {
            Literal::Bool(b) => if *b { "True" } else { "False" }.to_string(),
            Literal::Int(i) => i.to_string(),
            Literal::Float(f) => python_float_repr(*f),
            Literal::Complex(re, im) => numpy_scalar_complex(*re, *im, FloatKind::F64),
            Literal::Str(s) => python_str_repr(s),
            Literal::Bytes(b) => bytes_repr(b),
            Literal::List(v) => {
                let parts: Vec<String> = v.iter().map(|x| x.python_repr()).collect();
                format!("[{}]", parts.join(", "))
            }
            Literal::Tuple(v) => {
                let parts: Vec<String> = v.iter().map(|x| x.python_repr()).collect();
                if parts.len() == 1 {
                    format!("({},)", parts[0])
                } else {
                    format!("({})", parts.join(", "))
                }
            }
        }
    }
}

fn python_str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::new();
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

#[derive(Default)]
struct Kinds {
    bool_: bool,
    int: bool,
    float: bool,
    complex: bool,
    text: bool,
    int_out_of_i32: bool,
}

/// Walks the tree: fills `dims` from the first path, checks rectangularity
/// and records which leaf kinds occur.
fn discover(
    lit: &Literal,
    depth: usize,
    dims: &mut Vec<usize>,
    leaf_depth: &mut Option<usize>,
    kinds: &mut Kinds,
    mode: InferMode,
) -> Result<()> {
    match lit {
        Literal::List(v) | Literal::Tuple(v) => {
            if depth == dims.len() {
                if leaf_depth.is_some() {
                    return Err(non_rectangular(mode, dims, depth));
                }
                dims.push(v.len());
            } else if dims[depth] != v.len() {
                return Err(non_rectangular(mode, dims, depth));
            }
            for x in v {
                discover(x, depth + 1, dims, leaf_depth, kinds, mode)?;
            }
            Ok(())
        }
        leaf => {
            if depth != dims.len() {
                return Err(non_rectangular(mode, dims, depth));
            }
            *leaf_depth = Some(depth);
            match leaf {
                Literal::Bool(_) => kinds.bool_ = true,
                Literal::Int(i) => {
                    kinds.int = true;
                    if *i < i32::MIN as i64 || *i > i32::MAX as i64 {
                        kinds.int_out_of_i32 = true;
                    }
                }
                Literal::Float(_) => kinds.float = true,
                Literal::Complex(..) => kinds.complex = true,
                _ => kinds.text = true,
            }
            Ok(())
        }
    }
}

fn non_rectangular(mode: InferMode, dims: &[usize], depth: usize) -> Error {
    match mode {
        InferMode::Tf => {
            Error::value_error("Can't convert non-rectangular Python sequence to Tensor.")
        }
        InferMode::Numpy => {
            let d = depth.min(dims.len());
            let shape = Shape(dims[..d].to_vec());
            Error::value_error(format!(
                "setting an array element with a sequence. The requested array has an \
                 inhomogeneous shape after {d} dimensions. The detected shape was {} + \
                 inhomogeneous part.",
                shape.tuple_text()
            ))
        }
    }
}

/// Converts a literal to a tensor on `device`, inferring the dtype under
/// `mode` unless `dtype` is given.
pub fn tensor_from_literal(
    lit: &Literal,
    dtype: Option<DType>,
    mode: InferMode,
    device: Device,
) -> Result<Tensor> {
    let mut dims = Vec::new();
    let mut kinds = Kinds::default();
    discover(lit, 0, &mut dims, &mut None, &mut kinds, mode)?;
    let leaves = collect_leaves(lit);
    let shape = Shape(dims);
    shape.checked_numel()?;
    let target = match dtype {
        Some(d) => d,
        None => infer(&kinds, mode)?,
    };
    let data = convert(&leaves, target, lit, mode)?;
    Tensor::from_host(data, shape, device)
}

fn collect_leaves(lit: &Literal) -> Vec<&Literal> {
    let mut out = Vec::new();
    let mut stack = vec![lit];
    while let Some(x) = stack.pop() {
        match x {
            Literal::List(v) | Literal::Tuple(v) => stack.extend(v.iter().rev()),
            leaf => out.push(leaf),
        }
    }
    out
}

fn infer(k: &Kinds, mode: InferMode) -> Result<DType> {
    let mixed = Error::value_error("Can't convert Python sequence with mixed types to Tensor.");
    Ok(match mode {
        InferMode::Tf => {
            if k.text {
                if k.bool_ || k.int || k.float || k.complex {
                    return Err(mixed);
                }
                DType::String
            } else if k.complex {
                // (bools convert to complex numbers, unlike to floats)
                DType::Complex128
            } else if k.bool_ {
                if k.int || k.float {
                    return Err(mixed);
                }
                DType::Bool
            } else if k.float || !k.int {
                DType::Float32
            } else if k.int_out_of_i32 {
                DType::Int64
            } else {
                DType::Int32
            }
        }
        InferMode::Numpy => {
            if k.text {
                if k.bool_ || k.int || k.float || k.complex {
                    return Err(Error::unimplemented(
                        "numpy arrays mixing strings and numbers are not supported",
                    ));
                }
                DType::String
            } else if k.complex {
                DType::Complex128
            } else if k.float || (!k.int && !k.bool_) {
                DType::Float64
            } else if k.int {
                DType::Int64
            } else {
                DType::Bool
            }
        }
    })
}

fn convert(leaves: &[&Literal], to: DType, whole: &Literal, mode: InferMode) -> Result<HostData> {
    let n = leaves.len();
    let bad = || {
        Error::type_error(format!(
            "Cannot convert {} to EagerTensor of dtype {}",
            whole.python_repr(),
            to.kernel_name()
        ))
    };
    macro_rules! ints {
        ($t:ty, $var:ident) => {{
            let mut v = try_vec::<$t>(n)?;
            for l in leaves {
                v.push(match l {
                    Literal::Int(i) => {
                        if mode == InferMode::Numpy {
                            check_numpy_range(*i, to)?;
                        }
                        *i as $t
                    }
                    Literal::Bool(b) => *b as $t,
                    Literal::Float(f) if mode == InferMode::Numpy && f.is_finite() => *f as $t,
                    _ => return Err(bad()),
                });
            }
            HostData::$var(v)
        }};
    }
    macro_rules! floats {
        ($t:ty, $var:ident, $conv:expr) => {{
            let mut v = try_vec::<$t>(n)?;
            for l in leaves {
                let x = match l {
                    Literal::Int(i) => *i as f64,
                    Literal::Bool(b) => *b as u8 as f64,
                    Literal::Float(f) => *f,
                    _ => return Err(bad()),
                };
                v.push($conv(x));
            }
            HostData::$var(v)
        }};
    }
    macro_rules! complexes {
        ($t:ty, $var:ident, $part:ty) => {{
            let mut v = try_vec::<$t>(n)?;
            for l in leaves {
                let (re, im) = match l {
                    Literal::Int(i) => (*i as f64, 0.0),
                    Literal::Bool(b) => (*b as u8 as f64, 0.0),
                    Literal::Float(f) => (*f, 0.0),
                    Literal::Complex(re, im) => (*re, *im),
                    _ => return Err(bad()),
                };
                v.push(<$t>::new(re as $part, im as $part));
            }
            HostData::$var(v)
        }};
    }
    Ok(match to {
        DType::Bool => {
            let mut v = try_vec(n)?;
            for l in leaves {
                v.push(match l {
                    Literal::Bool(b) => *b,
                    Literal::Int(i) if mode == InferMode::Numpy => *i != 0,
                    Literal::Float(f) if mode == InferMode::Numpy => *f != 0.0,
                    _ => return Err(bad()),
                });
            }
            HostData::Bool(v)
        }
        DType::Int8 => ints!(i8, I8),
        DType::UInt8 => ints!(u8, U8),
        DType::Int16 => ints!(i16, I16),
        DType::Int32 => ints!(i32, I32),
        DType::Int64 => ints!(i64, I64),
        DType::Float16 => floats!(F16, F16, F16::from_f64),
        DType::Float32 => floats!(f32, F32, |x: f64| x as f32),
        DType::Float64 => floats!(f64, F64, |x: f64| x),
        DType::Complex64 => complexes!(C64, C64, f32),
        DType::Complex128 => complexes!(C128, C128, f64),
        DType::String => {
            let mut v = try_vec(n)?;
            for l in leaves {
                v.push(match l {
                    Literal::Str(s) => s.as_bytes().to_vec(),
                    Literal::Bytes(b) => b.clone(),
                    _ => return Err(bad()),
                });
            }
            HostData::Str(v)
        }
    })
}

fn check_numpy_range(i: i64, to: DType) -> Result<()> {
    match (to.int_min(), to.int_max()) {
        (Some(lo), Some(hi)) if i < lo || i > hi => Err(Error::new(
            ErrorKind::Overflow,
            format!("Python integer {i} out of bounds for {}", to.name()),
        )),
        _ => Ok(()),
    }
}
