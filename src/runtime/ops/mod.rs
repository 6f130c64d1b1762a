//! Tensor ops: shape checks, dtype rules and the exact TensorFlow/numpy
//! error texts, on top of the backend kernels. TensorFlow-flavoured
//! functions are plain (`add`, `reduce`, `concat`…); numpy-flavoured ones
//! start with `np_` where the semantics differ (type promotion, integer
//! division by zero, reductions of small ints).

pub mod complex;
pub mod conv;
mod conv_gemm;
pub mod create;
pub mod decomp;
pub mod depthwise;
pub mod einsum;
mod einsum_ellipsis;
pub mod elementwise;
pub mod gather;
pub mod index;
pub mod join;
pub mod linalg;
pub mod matrix;
pub mod nn;
pub mod nn_loss;
pub mod np_math;
mod pool_kernels;
pub mod promote;
pub mod raw;
pub mod reduce;
pub mod reorder;
pub mod scan;
pub mod scatter;
pub mod segment;
pub mod segment_reduce;
pub mod shape_ops;
pub mod special;
pub mod zero_safe;

pub use create::{eye, range};
pub use elementwise::*;
pub use gather::{gather, gather_batched};
pub use index::{index, index_assign, IndexItem};
pub use join::{concat, split, stack, stack_named, unstack, SplitSpec};
pub use linalg::matmul;
pub use promote::{promote_types, weak_scalar_type, ScalarKind};
pub use reduce::{arg_reduce, l2_loss, np_reduce, reduce};
pub use shape_ops::*;

use super::device::Device;
use super::dtype::DType;
use super::error::{Error, ErrorKind};

/// `cannot compute {op} as input #{i}(zero-based) was expected to be a {want} tensor but is a {got} tensor [Op:{op}]{name}`.
#[cold]
pub(crate) fn dtype_mismatch(op: &str, input: usize, want: DType, got: DType, name: &str) -> Error {
    Error::invalid_argument(format!(
        "cannot compute {op} as input #{input}(zero-based) was expected to be a {} tensor but is a {} tensor [Op:{op}]{name}",
        want.kernel_name(),
        got.kernel_name()
    ))
}

/// Wraps a bare kernel message in TensorFlow's eager form (internal errors pass through).
#[cold]
pub(crate) fn wrap(e: Error, node: &str, device: &Device, op: &str, name: &str) -> Error {
    if e.kind() == ErrorKind::Internal {
        return e;
    }
    Error::kernel(e.kind(), node, device, e.message(), op, name)
}

/// A kernel error raised on `device` by `op` (node named like the op).
#[cold]
pub(crate) fn kernel_error(op: &str, device: &Device, msg: &str, name: &str) -> Error {
    Error::kernel(ErrorKind::InvalidArgument, op, device, msg, op, name)
}

/// TensorFlow's op-registration error for a dtype the op does not accept.
/// The allowed lists are the ones TensorFlow 2.21 prints for these ops.
#[cold]
pub(crate) fn attr_error(op: &str, d: DType) -> Error {
    let allowed = match op {
        "AddV2" => "bfloat16, half, float, double, uint8, uint16, uint32, uint64, int8, int16, int32, int64, complex64, complex128",
        "Neg" => "bfloat16, half, float, double, int8, int16, int32, int64, complex64, complex128",
        "Sqrt" | "Rsqrt" | "Exp" | "Expm1" | "Log" | "Log1p" | "Tanh" | "Sigmoid" | "Sin" | "Cos"
        | "Tan" | "Asin" | "Acos" | "Atan" | "Sinh" | "Cosh" | "Asinh" | "Acosh" | "Atanh" => {
            "bfloat16, half, float, double, complex64, complex128"
        }
        "Sum" | "Prod" | "Mean" => "float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, qint32, bfloat16, qint16, quint16, uint16, complex128, half, uint32, uint64",
        "Softmax" | "LogSoftmax" | "Softplus" | "Elu" | "Selu" | "L2Loss" => "half, bfloat16, float, double",
        "Floor" | "Ceil" | "Erf" | "Erfc" | "IsNan" | "IsInf" | "IsFinite" => {
            "bfloat16, half, float, double"
        }
        "SquaredDifference" => "bfloat16, half, float, double, int32, int64, complex64, complex128",
        "DivNoNan" => "half, float, bfloat16, double, complex64, complex128",
        "Xlogy" | "Xdivy" | "Xlog1py" => zero_safe::ZeroSafe::Xlogy.allowed(),
        "MulNoNan" => zero_safe::ZeroSafe::MulNoNan.allowed(),
        "Relu" => "float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64, qint8",
        "Cumsum" | "Cumprod" => "float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, qint32, bfloat16, qint16, quint16, uint16, complex128, half, uint32, uint64",
        "MatMul" => "bfloat16, half, float, double, int32, int64, uint8, uint16, uint32, uint64, complex64, complex128",
        "Maximum" | "Minimum" => "bfloat16, half, float, double, int8, uint8, int16, uint16, int32, uint32, int64, uint64",
        "Less" | "LessEqual" | "Greater" | "GreaterEqual" => "float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64",
        "Max" | "Min" => "float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64, qint8, quint8, qint32, qint16, quint16",
        "Complex" => "float, double",
        "MatrixInverse" | "Cholesky" | "MatrixSolve" => "double, float, half, complex64, complex128",
        "MatrixDeterminant" | "LogMatrixDeterminant" => "half, float, double, complex64, complex128",
        "MatrixTriangularSolve" => "bfloat16, double, float, half, complex64, complex128",
        _ => "",
    };
    if allowed.is_empty() {
        return Error::invalid_argument(format!(
            "Value for attr 'T' of {} is not in the list of allowed values for {op} [Op:{op}] name: ",
            d.name()
        ));
    }
    // TensorFlow appends the op's registration to some of these errors
    let dts = || {
        allowed
            .split(", ")
            .map(|n| format!("DT_{}", n.to_ascii_uppercase()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let registration = match op {
        "AddV2" => format!("; Op<name=AddV2; signature=x:T, y:T -> z:T; attr=T:type,allowed=[{}]; is_commutative=true; is_aggregate=true>", dts()),
        "Neg" | "Sqrt" | "Rsqrt" | "Exp" | "Expm1" | "Log" | "Log1p" | "Tanh" | "Sigmoid" | "Sin" | "Cos" | "Floor"
        | "Ceil" | "Erf" | "Erfc" | "Tan" | "Asin" | "Acos" | "Atan" | "Sinh" | "Cosh" | "Asinh" | "Acosh"
        | "Atanh" => {
            format!("; Op<name={op}; signature=x:T -> y:T; attr=T:type,allowed=[{}]>", dts())
        }
        "IsNan" | "IsInf" | "IsFinite" => {
            format!("; Op<name={op}; signature=x:T -> y:bool; attr=T:type,allowed=[{}]>", dts())
        }
        "Maximum" | "Minimum" | "Xlogy" | "Xdivy" | "Xlog1py" | "MulNoNan" => format!("; Op<name={op}; signature=x:T, y:T -> z:T; attr=T:type,allowed=[{}]>", dts()),
        "Less" | "LessEqual" | "Greater" | "GreaterEqual" => format!("; Op<name={op}; signature=x:T, y:T -> z:bool; attr=T:type,allowed=[{}]>", dts()),
        "Max" | "Min" => format!("; Op<name={op}; signature=input:T, reduction_indices:Tidx -> output:T; attr=keep_dims:bool,default=false; attr=T:type,allowed=[{}]; attr=Tidx:type,default=DT_INT32,allowed=[DT_INT32, DT_INT64]>", dts()),
        "SquaredDifference" => format!("; Op<name=SquaredDifference; signature=x:T, y:T -> z:T; attr=T:type,allowed=[{}]; is_commutative=true>", dts()),
        "Softmax" => format!("; Op<name=Softmax; signature=logits:T -> softmax:T; attr=T:type,allowed=[{}]>", dts()),
        "L2Loss" => format!("; Op<name=L2Loss; signature=t:T -> output:T; attr=T:type,allowed=[{}]>", dts()),
        "LogSoftmax" => format!("; Op<name=LogSoftmax; signature=logits:T -> logsoftmax:T; attr=T:type,allowed=[{}]>", dts()),
        "Softplus" | "Elu" | "Selu" => format!("; Op<name={op}; signature=features:T -> activations:T; attr=T:type,allowed=[{}]>", dts()),
        "Relu" => format!("; Op<name=Relu; signature=features:T -> activations:T; attr=T:type,allowed=[{}]>", dts()),
        "Cumsum" | "Cumprod" => format!("; Op<name={op}; signature=x:T, axis:Tidx -> out:T; attr=exclusive:bool,default=false; attr=reverse:bool,default=false; attr=T:type,allowed=[{}]; attr=Tidx:type,default=DT_INT32,allowed=[DT_INT32, DT_INT64]>", dts()),
        "MatrixInverse" => format!("; Op<name=MatrixInverse; signature=input:T -> output:T; attr=adjoint:bool,default=false; attr=T:type,allowed=[{}]>", dts()),
        "MatrixDeterminant" | "Cholesky" => format!("; Op<name={op}; signature=input:T -> output:T; attr=T:type,allowed=[{}]>", dts()),
        "LogMatrixDeterminant" => format!("; Op<name=LogMatrixDeterminant; signature=input:T -> sign:T, log_abs_determinant:T; attr=T:type,allowed=[{}]>", dts()),
        "MatrixSolve" => format!("; Op<name=MatrixSolve; signature=matrix:T, rhs:T -> output:T; attr=adjoint:bool,default=false; attr=T:type,allowed=[{}]>", dts()),
        "MatrixTriangularSolve" => format!("; Op<name=MatrixTriangularSolve; signature=matrix:T, rhs:T -> output:T; attr=lower:bool,default=true; attr=adjoint:bool,default=false; attr=T:type,allowed=[{}]>", dts()),
        _ => String::new(),
    };
    Error::invalid_argument(format!(
        "Value for attr 'T' of {} is not in the list of allowed values: {allowed}\n\t; NodeDef: {{{{node {op}}}}}{registration} [Op:{op}] name: ",
        d.name()
    ))
}
