//! The output argument names of TensorFlow's ops (their `OpDef`s), which a
//! `FunctionDef` names tensors by (`MatMul:product:0`): facts of
//! TensorFlow's op registry for the ops dist writes and runs.

/// The output arguments of `op`, in order (a list-valued argument counts
/// once: `Unpack`'s outputs are all `output:i`); None for an op dist does
/// not know.
pub fn output_args(op: &str) -> Option<&'static [&'static str]> {
    Some(match op {
        "Neg" | "Abs" | "Square" | "Sqrt" | "Rsqrt" | "Exp" | "Log" | "Log1p" | "Expm1" | "Erf"
        | "Erfc" | "Sin" | "Cos" | "Tanh" | "Sigmoid" | "Floor" | "Ceil" | "Round" | "Sign"
        | "Reciprocal" | "LogicalNot" | "Cast" | "Transpose" | "Tan" | "Asin" | "Acos" | "Atan"
        | "Sinh" | "Cosh" | "Asinh" | "Acosh" | "Atanh" | "Lgamma" | "Digamma" | "Erfinv"
        | "Ndtri" => &["y"],
        "Igamma" | "Igammac" | "IgammaGradA" | "Zeta" | "Polygamma" | "Betainc" => &["z"],
        "AddV2" | "Add" | "Sub" | "Mul" | "RealDiv" | "Div" | "TruncateDiv" | "FloorDiv"
        | "FloorMod" | "Pow" | "Maximum" | "Minimum" | "Equal" | "NotEqual" | "Less"
        | "LessEqual" | "Greater" | "GreaterEqual" | "LogicalAnd" | "LogicalOr"
        | "SquaredDifference" | "DivNoNan" | "MulNoNan" | "Xlogy" | "Xdivy" | "Xlog1py" => &["z"],
        "Relu" | "Relu6" | "LeakyRelu" | "Elu" | "Selu" | "Softplus" => &["activations"],
        "Sum"
        | "Prod"
        | "Max"
        | "Min"
        | "Mean"
        | "Any"
        | "All"
        | "ArgMax"
        | "ArgMin"
        | "Identity"
        | "IdentityN"
        | "SelectV2"
        | "BatchMatMulV2"
        | "Reshape"
        | "ExpandDims"
        | "Squeeze"
        | "ConcatV2"
        | "Pack"
        | "Unpack"
        | "SplitV"
        | "Tile"
        | "BroadcastTo"
        | "ReverseV2"
        | "GatherV2"
        | "StridedSlice"
        | "BiasAdd"
        | "Conv2D"
        | "MaxPool"
        | "AvgPool"
        | "Pad"
        | "Const"
        | "Shape"
        | "Fill"
        | "Range"
        | "Rank"
        | "Size"
        | "Einsum"
        | "StatefulPartitionedCall"
        | "PartitionedCall"
        | "Placeholder"
        | "StopGradient"
        | "ZerosLike"
        | "OnesLike"
        | "PadV2"
        | "L2Loss"
        | "Snapshot"
        | "BatchMatMulV3"
        | "BatchMatMul"
        | "Split"
        | "Select"
        | "BiasAddV1" => &["output"],
        "ReadVariableOp" => &["value"],
        "AddN" => &["sum"],
        "MatMul" => &["product"],
        "Softmax" => &["softmax"],
        "LogSoftmax" => &["logsoftmax"],
        "Cumsum" | "Cumprod" => &["out"],
        "TopKV2" => &["values", "indices"],
        "AssignVariableOp" | "AssignAddVariableOp" | "AssignSubVariableOp" | "NoOp" => &[],
        _ => return None,
    })
}

/// The output index a `FunctionDef` reference `arg:i` of an `op` node
/// names.
pub fn output_index(op: &str, arg: &str, i: usize) -> Option<usize> {
    let args = output_args(op)?;
    if args.len() == 1 {
        return (args[0] == arg).then_some(i);
    }
    args.iter().position(|a| *a == arg).map(|k| k + i)
}
