//! Op behaviour and error texts. Every expected string here was printed by
//! real TensorFlow 2.21 / numpy 2.4 (the oracle), never by this runtime.

use dist::runtime::format::{numpy_repr, tf_repr, tf_str};
use dist::runtime::ops::{self, IndexItem, SplitSpec};
use dist::runtime::{
    tensor_from_literal, BinaryOp, DType, Device, InferMode, Literal, ReduceOp, Scalar, Semantics,
    Tensor, UnaryOp,
};

fn tf(lit: Literal) -> Tensor {
    tensor_from_literal(&lit, None, InferMode::Tf, Device::CPU0).unwrap()
}

fn np(lit: Literal) -> Tensor {
    tensor_from_literal(&lit, None, InferMode::Numpy, Device::CPU0).unwrap()
}

fn ints(v: &[i64]) -> Literal {
    Literal::List(v.iter().map(|&i| Literal::Int(i)).collect())
}

fn floats(v: &[f64]) -> Literal {
    Literal::List(v.iter().map(|&f| Literal::Float(f)).collect())
}

fn err<T: std::fmt::Debug>(r: dist::runtime::Result<T>) -> String {
    let e = r.unwrap_err();
    format!("{}: {}", e.kind().python_name(), e.message())
}

fn a23() -> Tensor {
    ops::reshape(
        &ops::range(
            &Scalar::Int(0),
            &Scalar::Int(6),
            &Scalar::Int(1),
            DType::Int32,
            Device::CPU0,
        )
        .unwrap(),
        &[2, 3],
        Semantics::Tf,
    )
    .unwrap()
}

const W: &str = "{{function_node __wrapped__";
const DEV: &str = "_device_/job:localhost/replica:0/task:0/device:CPU:0}}";

#[test]
fn construction_inference_and_errors() {
    assert_eq!(
        tf_repr(&tf(floats(&[1.0, 2.5]))),
        "<tf.Tensor: shape=(2,), dtype=float32, numpy=array([1. , 2.5], dtype=float32)>"
    );
    assert_eq!(
        tf_repr(&tf(ints(&[1, 3000000000]))),
        "<tf.Tensor: shape=(2,), dtype=int64, numpy=array([         1, 3000000000])>"
    );
    let mixed = Literal::List(vec![Literal::Int(1), Literal::Float(2.5)]);
    assert_eq!(tf(mixed.clone()).dtype(), DType::Float32);
    assert_eq!(
        err(tensor_from_literal(
            &mixed,
            Some(DType::Int32),
            InferMode::Tf,
            Device::CPU0
        )),
        "TypeError: Cannot convert [1, 2.5] to EagerTensor of dtype int32"
    );
    let ragged = Literal::List(vec![ints(&[1, 2]), ints(&[3])]);
    assert_eq!(
        err(tensor_from_literal(
            &ragged,
            None,
            InferMode::Tf,
            Device::CPU0
        )),
        "ValueError: Can't convert non-rectangular Python sequence to Tensor."
    );
    let bool_int = Literal::List(vec![Literal::Bool(true), Literal::Int(2)]);
    assert_eq!(
        err(tensor_from_literal(
            &bool_int,
            None,
            InferMode::Tf,
            Device::CPU0
        )),
        "ValueError: Can't convert Python sequence with mixed types to Tensor."
    );
    assert_eq!(
        tf_repr(
            &tensor_from_literal(
                &Literal::Int(300),
                Some(DType::Int8),
                InferMode::Tf,
                Device::CPU0
            )
            .unwrap()
        ),
        "<tf.Tensor: shape=(), dtype=int8, numpy=44>"
    );
    assert_eq!(
        err(tensor_from_literal(
            &Literal::Float(1e20),
            Some(DType::Int64),
            InferMode::Tf,
            Device::CPU0
        )),
        "TypeError: Cannot convert 1e+20 to EagerTensor of dtype int64"
    );
    assert_eq!(
        err(tensor_from_literal(
            &Literal::Str("a".into()),
            Some(DType::Int32),
            InferMode::Tf,
            Device::CPU0
        )),
        "TypeError: Cannot convert 'a' to EagerTensor of dtype int32"
    );
    assert_eq!(
        tf_repr(&tf(Literal::List(vec![
            Literal::List(vec![]),
            Literal::List(vec![])
        ]))),
        "<tf.Tensor: shape=(2, 0), dtype=float32, numpy=array([], shape=(2, 0), dtype=float32)>"
    );
    assert_eq!(
        numpy_repr(&np(Literal::List(vec![
            Literal::Bool(true),
            Literal::Int(2)
        ]))),
        "array([1, 2])"
    );
    assert_eq!(
        err(tensor_from_literal(
            &Literal::Int(300),
            Some(DType::Int8),
            InferMode::Numpy,
            Device::CPU0
        )),
        "OverflowError: Python integer 300 out of bounds for int8"
    );
    assert_eq!(
        tf_str(
            &tensor_from_literal(
                &Literal::Str("hello".into()),
                None,
                InferMode::Tf,
                Device::CPU0
            )
            .unwrap()
        ),
        "tf.Tensor(b'hello', shape=(), dtype=string)"
    );
}

#[test]
fn binary_ops_follow_tensorflow() {
    let e = ops::add(&tf(ints(&[1, 2, 3])), &tf(ints(&[1, 2])));
    assert_eq!(err(e), format!("InvalidArgumentError: {W}AddV2{DEV} Incompatible shapes: [3] vs. [2] [Op:AddV2] name: "));
    let e = ops::add(&tf(ints(&[1, 2, 3])), &tf(floats(&[1.0, 2.0, 3.0])));
    assert_eq!(err(e), "InvalidArgumentError: cannot compute AddV2 as input #1(zero-based) was expected to be a int32 tensor but is a float tensor [Op:AddV2] name: ");
    let seven = tf(Literal::Int(7));
    let zero = tf(Literal::Int(0));
    assert_eq!(
        err(ops::floordiv(&seven, &zero)),
        format!(
            "InvalidArgumentError: {W}FloorDiv{DEV} Integer division by zero [Op:FloorDiv] name: "
        )
    );
    assert_eq!(
        tf_repr(&ops::truediv(&seven, &zero).unwrap()),
        "<tf.Tensor: shape=(), dtype=float64, numpy=inf>"
    );
    let m7 = tf(Literal::Int(-7));
    let two = tf(Literal::Int(2));
    assert_eq!(
        tf_repr(&ops::floordiv(&m7, &two).unwrap()),
        "<tf.Tensor: shape=(), dtype=int32, numpy=-4>"
    );
    assert_eq!(
        tf_repr(&ops::floormod(&m7, &two).unwrap()),
        "<tf.Tensor: shape=(), dtype=int32, numpy=1>"
    );
    let big = tf(Literal::Int(2147483647));
    let one = tf(Literal::Int(1));
    assert_eq!(
        tf_repr(&ops::add(&big, &one).unwrap()),
        "<tf.Tensor: shape=(), dtype=int32, numpy=-2147483648>"
    );
    assert_eq!(err(ops::pow(&two, &tf(Literal::Int(-1)))), format!("InvalidArgumentError: {W}Pow{DEV} Integers to negative integer powers are not allowed [Op:Pow] name: "));
    assert_eq!(
        tf_repr(&ops::pow(&two, &tf(Literal::Int(40))).unwrap()),
        "<tf.Tensor: shape=(), dtype=int32, numpy=0>"
    );
    let f = tf(floats(&[1.5, -1.5]));
    assert_eq!(
        tf_repr(&ops::floordiv(&f, &tf(Literal::Float(1.0))).unwrap()),
        "<tf.Tensor: shape=(2,), dtype=float32, numpy=array([ 1., -2.], dtype=float32)>"
    );
    let x = tf(ints(&[1, 2]));
    assert_eq!(
        tf_repr(&ops::truediv(&x, &x).unwrap()),
        "<tf.Tensor: shape=(2,), dtype=float64, numpy=array([1., 1.])>"
    );
    assert_eq!(
        err(ops::truediv(&one, &tf(Literal::Float(1.0)))),
        "TypeError: `x` and `y` must have the same dtype, got tf.int32 != tf.float32."
    );
    let nan = tf(Literal::Float(f64::NAN));
    assert_eq!(
        tf_repr(&ops::binary(BinaryOp::Maximum, &nan, &tf(Literal::Float(1.0))).unwrap()),
        "<tf.Tensor: shape=(), dtype=float32, numpy=nan>"
    );
    assert_eq!(
        tf_repr(&ops::binary(BinaryOp::Maximum, &tf(ints(&[1, 5])), &tf(ints(&[3, 2]))).unwrap()),
        "<tf.Tensor: shape=(2,), dtype=int32, numpy=array([3, 5], dtype=int32)>"
    );
    let e = ops::binary(BinaryOp::Equal, &one, &tf(Literal::Float(1.0)));
    assert_eq!(err(e), "InvalidArgumentError: cannot compute Equal as input #1(zero-based) was expected to be a int32 tensor but is a float tensor [Op:Equal] name: ");
    let e = ops::binary(BinaryOp::LogicalAnd, &one, &zero);
    assert_eq!(err(e), "InvalidArgumentError: cannot compute LogicalAnd as input #0(zero-based) was expected to be a bool tensor but is a int32 tensor [Op:LogicalAnd] name: ");
    let s = tf(Literal::Str("a".into()));
    assert_eq!(
        tf_repr(&ops::add(&s, &tf(Literal::Str("b".into()))).unwrap()),
        "<tf.Tensor: shape=(), dtype=string, numpy=b'ab'>"
    );
    let t = tf(Literal::Bool(true));
    assert!(err(ops::add(&t, &t)).starts_with("InvalidArgumentError: Value for attr 'T' of bool is not in the list of allowed values: bfloat16, half, float, double, uint8, uint16, uint32, uint64, int8, int16, int32, int64, complex64, complex128\n"));
    let u = tensor_from_literal(
        &Literal::Int(5),
        Some(DType::UInt8),
        InferMode::Tf,
        Device::CPU0,
    )
    .unwrap();
    let v = tensor_from_literal(
        &Literal::Int(6),
        Some(DType::UInt8),
        InferMode::Tf,
        Device::CPU0,
    )
    .unwrap();
    assert_eq!(
        tf_repr(&ops::sub(&u, &v).unwrap()),
        "<tf.Tensor: shape=(), dtype=uint8, numpy=255>"
    );
}

#[test]
fn numpy_promotion_and_errors() {
    let e = ops::np_binary(BinaryOp::Add, &np(ints(&[1, 2, 3])), &np(ints(&[1, 2])));
    assert_eq!(
        err(e),
        "ValueError: operands could not be broadcast together with shapes (3,) (2,) "
    );
    let a = tensor_from_literal(
        &ints(&[1, 2]),
        Some(DType::Int32),
        InferMode::Numpy,
        Device::CPU0,
    )
    .unwrap();
    let h = tensor_from_literal(
        &floats(&[1.5]),
        Some(DType::Float32),
        InferMode::Numpy,
        Device::CPU0,
    )
    .unwrap();
    assert_eq!(
        numpy_repr(&ops::np_binary(BinaryOp::Add, &a, &h).unwrap()),
        "array([2.5, 3.5])"
    );
    let z = np(Literal::Int(0));
    assert_eq!(
        numpy_repr(&ops::np_binary(BinaryOp::FloorDiv, &np(ints(&[1, 2])), &z).unwrap()),
        "array([0, 0])"
    );
    assert_eq!(
        numpy_repr(&ops::np_binary(BinaryOp::RealDiv, &np(ints(&[1, 2])), &z).unwrap()),
        "array([inf, inf])"
    );
    let e = ops::np_binary(BinaryOp::Pow, &np(ints(&[1, 2])), &np(Literal::Int(-1)));
    assert_eq!(
        err(e),
        "ValueError: Integers to negative integer powers are not allowed."
    );
    let s = ops::np_reduce(
        ReduceOp::Sum,
        &np(Literal::List(vec![
            Literal::Bool(true),
            Literal::Bool(true),
        ])),
        None,
        false,
    )
    .unwrap();
    assert_eq!(numpy_repr(&s), "array(2)");
    let m = ops::np_reduce(ReduceOp::Mean, &np(ints(&[1, 2])), None, false).unwrap();
    assert_eq!(dist::runtime::format::numpy_str(&m), "1.5");
    let e = ops::np_reduce(ReduceOp::Max, &np(Literal::List(vec![])), None, false);
    assert_eq!(
        err(e),
        "ValueError: zero-size array to reduction operation maximum which has no identity"
    );
    let ones = Tensor::ones(DType::Float64, &[2, 3], Device::CPU0).unwrap();
    assert_eq!(
        err(ops::np_reduce(ReduceOp::Sum, &ones, Some(&[2]), false)),
        "AxisError: axis 2 is out of bounds for array of dimension 2"
    );
    assert_eq!(
        err(ops::index(&ones, &[IndexItem::Int(5)], Semantics::Numpy)),
        "IndexError: index 5 is out of bounds for axis 0 with size 2"
    );
    assert_eq!(
        err(ops::index(
            &ones,
            &[IndexItem::Int(1), IndexItem::Int(2), IndexItem::Int(3)],
            Semantics::Numpy
        )),
        "IndexError: too many indices for array: array is 2-dimensional, but 3 were indexed"
    );
    assert_eq!(
        err(ops::reshape(&ones, &[4, 2], Semantics::Numpy)),
        "ValueError: cannot reshape array of size 6 into shape (4,2)"
    );
}

#[test]
fn reductions() {
    let a = a23();
    assert_eq!(err(ops::reduce(ReduceOp::Sum, &a, Some(&[2]), false)), format!("InvalidArgumentError: {W}Sum{DEV} Invalid reduction dimension (2 for input with 2 dimension(s) [Op:Sum] name: "));
    assert_eq!(err(ops::reduce(ReduceOp::Sum, &a, Some(&[0, 0]), false)), format!("InvalidArgumentError: {W}Sum{DEV} Invalid reduction arguments: Axes contains duplicate dimension: 0 [Op:Sum]"));
    assert_eq!(
        tf_str(&ops::reduce(ReduceOp::Sum, &a, None, false).unwrap()),
        "tf.Tensor(15, shape=(), dtype=int32)"
    );
    assert_eq!(
        tf_str(&ops::reduce(ReduceOp::Sum, &a, Some(&[0]), false).unwrap()),
        "tf.Tensor([3 5 7], shape=(3,), dtype=int32)"
    );
    assert_eq!(
        tf_str(&ops::reduce(ReduceOp::Max, &a, Some(&[-1]), true).unwrap()),
        "tf.Tensor(\n[[2]\n [5]], shape=(2, 1), dtype=int32)"
    );
    assert_eq!(
        tf_repr(&ops::reduce(ReduceOp::Mean, &tf(ints(&[1, 2, 4])), None, false).unwrap()),
        "<tf.Tensor: shape=(), dtype=int32, numpy=2>"
    );
    let e = Tensor::zeros(DType::Float32, &[0], Device::CPU0).unwrap();
    assert_eq!(
        tf_repr(&ops::reduce(ReduceOp::Max, &e, None, false).unwrap()),
        "<tf.Tensor: shape=(), dtype=float32, numpy=-inf>"
    );
    assert_eq!(
        tf_repr(&ops::reduce(ReduceOp::Mean, &e, None, false).unwrap()),
        "<tf.Tensor: shape=(), dtype=float32, numpy=nan>"
    );
    let ei = Tensor::zeros(DType::Int32, &[0], Device::CPU0).unwrap();
    assert_eq!(
        tf_repr(&ops::reduce(ReduceOp::Max, &ei, None, false).unwrap()),
        "<tf.Tensor: shape=(), dtype=int32, numpy=-2147483648>"
    );
    assert_eq!(err(ops::reduce(ReduceOp::Any, &a, None, false)), "InvalidArgumentError: cannot compute Any as input #0(zero-based) was expected to be a bool tensor but is a int32 tensor [Op:Any] name: ");
    assert_eq!(
        tf_repr(&ops::arg_reduce(dist::runtime::ArgOp::ArgMax, &a, 0, Semantics::Tf).unwrap()),
        "<tf.Tensor: shape=(3,), dtype=int64, numpy=array([1, 1, 1])>"
    );
    assert_eq!(err(ops::arg_reduce(dist::runtime::ArgOp::ArgMax, &a, 2, Semantics::Tf)), format!("InvalidArgumentError: {W}ArgMax{DEV} Expected dimension in the range [-2, 2), but got 2 [Op:ArgMax] name: "));
    let h = tensor_from_literal(
        &floats(&[1.5, 2.5]),
        Some(DType::Float16),
        InferMode::Tf,
        Device::CPU0,
    )
    .unwrap();
    assert_eq!(
        tf_repr(&ops::reduce(ReduceOp::Sum, &h, None, false).unwrap()),
        "<tf.Tensor: shape=(), dtype=float16, numpy=4.0>"
    );
    // pairwise float sums: 0.1 * 1000 in float32
    let v = Tensor::fill(&[1000], &Scalar::Float(0.1), DType::Float32, Device::CPU0).unwrap();
    let s = ops::reduce(ReduceOp::Sum, &v, None, false).unwrap();
    assert!((s.item().unwrap().as_f64() - 100.0).abs() < 1e-3);
}

#[test]
fn shape_ops_and_their_errors() {
    let a = a23();
    let r = ops::range(
        &Scalar::Int(0),
        &Scalar::Int(6),
        &Scalar::Int(1),
        DType::Int32,
        Device::CPU0,
    )
    .unwrap();
    assert_eq!(err(ops::reshape(&r, &[4, 2], Semantics::Tf)), format!("InvalidArgumentError: {W}Reshape{DEV} Input to reshape is a tensor with 6 values, but the requested shape has 8 [Op:Reshape]"));
    assert_eq!(err(ops::reshape(&r, &[-1, 4], Semantics::Tf)), format!("InvalidArgumentError: {W}Reshape{DEV} Input to reshape is a tensor with 6 values, but the requested shape requires a multiple of 4 [Op:Reshape]"));
    assert_eq!(err(ops::reshape(&r, &[-1, -1], Semantics::Tf)), format!("InvalidArgumentError: {W}Reshape{DEV} Only one input size may be -1, not both 0 and 1 [Op:Reshape]"));
    assert_eq!(err(ops::transpose(&a, Some(&[0]))), format!("InvalidArgumentError: {W}Transpose{DEV} transpose expects a vector of size 2. But input(1) is a vector of size 1 [Op:Transpose]"));
    assert_eq!(
        err(ops::transpose(&a, Some(&[0, 0]))),
        format!(
            "InvalidArgumentError: {W}Transpose{DEV} 1 is missing from {{0,0}}. [Op:Transpose]"
        )
    );
    assert_eq!(
        err(ops::transpose(&a, Some(&[0, 2]))),
        format!(
            "InvalidArgumentError: {W}Transpose{DEV} 2 is out of range [0 .. 2) [Op:Transpose]"
        )
    );
    assert_eq!(
        tf_str(&ops::transpose(&a, None).unwrap()),
        "tf.Tensor(\n[[0 3]\n [1 4]\n [2 5]], shape=(3, 2), dtype=int32)"
    );
    let ones23 = Tensor::ones(DType::Float32, &[2, 3], Device::CPU0).unwrap();
    assert_eq!(err(ops::squeeze(&ones23, Some(&[0]))), format!("InvalidArgumentError: {W}Squeeze{DEV} Can not squeeze dim[0], expected a dimension of 1, got 2 [Op:Squeeze] name: "));
    assert_eq!(err(ops::squeeze(&a, Some(&[3]))), format!("InvalidArgumentError: {W}Squeeze{DEV} Tried to squeeze dim index 3 for tensor with 2 dimensions. [Op:Squeeze] name: "));
    assert_eq!(err(ops::expand_dims(&ones23, 5)), format!("InvalidArgumentError: {W}ExpandDims{DEV} Tried to expand dim index 5 for tensor with 2 dimensions. [Op:ExpandDims] name: "));
    let ones22 = Tensor::ones(DType::Float32, &[2, 2], Device::CPU0).unwrap();
    assert_eq!(err(ops::concat(&[ones23.clone(), ones22.clone()], 0)), format!("InvalidArgumentError: {W}ConcatV2_N_2{DEV} ConcatOp : Dimension 1 in both shapes must be equal: shape[0] = [2,3] vs. shape[1] = [2,2] [Op:ConcatV2] name: concat"));
    assert_eq!(err(ops::concat(&[a.clone(), a.clone()], 2)), format!("InvalidArgumentError: {W}ConcatV2_N_2{DEV} ConcatOp : Expected concatenating dimensions in the range [-2, 2), but got 2 [Op:ConcatV2] name: concat"));
    assert_eq!(err(ops::concat(&[a.clone(), ones23.clone()], 0)), "InvalidArgumentError: cannot compute ConcatV2 as input #1(zero-based) was expected to be a int32 tensor but is a float tensor [Op:ConcatV2] name: concat");
    assert_eq!(tf_repr(&ops::concat(&[a.clone(), a.clone()], -1).unwrap()), "<tf.Tensor: shape=(2, 6), dtype=int32, numpy=\narray([[0, 1, 2, 0, 1, 2],\n       [3, 4, 5, 3, 4, 5]], dtype=int32)>");
    assert_eq!(err(ops::stack(&[ones23.clone(), ones22], 0)), format!("InvalidArgumentError: {W}Pack_N_2{DEV} Shapes of all inputs must match: values[0].shape = [2,3] != values[1].shape = [2,2] [Op:Pack] name: stack"));
    assert_eq!(
        err(ops::stack(&[a.clone(), a.clone()], 3)),
        "ValueError: Argument `axis` = 3 not in range [-3, 3)"
    );
    assert_eq!(
        err(ops::unstack(&a, 2)),
        "ValueError: Argument `axis` = 2 not in range [-2, 2)"
    );
    let parts = ops::unstack(&a, 0).unwrap();
    assert_eq!(
        tf_repr(&parts[1]),
        "<tf.Tensor: shape=(3,), dtype=int32, numpy=array([3, 4, 5], dtype=int32)>"
    );
    let five = Tensor::ones(DType::Float32, &[5], Device::CPU0).unwrap();
    assert_eq!(err(ops::split(&five, &SplitSpec::Count(2), 0)), format!("InvalidArgumentError: {W}Split_num_split_2{DEV} Number of ways to split should evenly divide the split dimension, but got split_dim 0 (size = 5) and num_split 2 [Op:Split] name: split"));
    let sp = ops::split(&r, &SplitSpec::Sizes(vec![2, 4]), 0).unwrap();
    assert_eq!(
        tf_repr(&sp[1]),
        "<tf.Tensor: shape=(4,), dtype=int32, numpy=array([2, 3, 4, 5], dtype=int32)>"
    );
    assert_eq!(err(ops::split(&r, &SplitSpec::Sizes(vec![2, 3]), 0)), format!("InvalidArgumentError: {W}SplitV_num_split_2{DEV} Determined shape must either match input shape along split_dim exactly if fully specified, or be less than the size of the input along split_dim if not fully specified.  Got: 5 [Op:SplitV] name: split"));
    assert_eq!(err(ops::tile(&a, &[2])), format!("InvalidArgumentError: {W}Tile{DEV} Expected multiples argument to be a vector of length 2 but got length 1 [Op:Tile]"));
    assert_eq!(
        tf_str(&ops::tile(&a, &[2, 1]).unwrap()),
        "tf.Tensor(\n[[0 1 2]\n [3 4 5]\n [0 1 2]\n [3 4 5]], shape=(4, 3), dtype=int32)"
    );
    assert_eq!(
        err(ops::gather(&tf(ints(&[1, 2])), &tf(ints(&[0, 5])), 0)),
        format!(
            "InvalidArgumentError: {W}GatherV2{DEV} indices[1] = 5 is not in [0, 2) [Op:GatherV2]"
        )
    );
    assert_eq!(
        err(ops::gather(&tf(ints(&[1, 2])), &tf(Literal::Int(5)), 0)),
        format!(
            "InvalidArgumentError: {W}GatherV2{DEV} indices = 5 is not in [0, 2) [Op:GatherV2]"
        )
    );
    assert_eq!(err(ops::gather(&a, &tf(ints(&[0])), 2)), format!("InvalidArgumentError: {W}GatherV2{DEV} Shape must be at least rank 3 but is rank 2 [Op:GatherV2]"));
    assert_eq!(
        tf_str(&ops::gather(&a, &tf(ints(&[0, 2])), 1).unwrap()),
        "tf.Tensor(\n[[0 2]\n [3 5]], shape=(2, 2), dtype=int32)"
    );
    let rf = ops::range(
        &Scalar::Float(0.0),
        &Scalar::Float(1.0),
        &Scalar::Float(0.25),
        DType::Float32,
        Device::CPU0,
    )
    .unwrap();
    assert_eq!(tf_repr(&rf), "<tf.Tensor: shape=(4,), dtype=float32, numpy=array([0.  , 0.25, 0.5 , 0.75], dtype=float32)>");
    let rd = ops::range(
        &Scalar::Int(5),
        &Scalar::Int(0),
        &Scalar::Int(-2),
        DType::Int32,
        Device::CPU0,
    )
    .unwrap();
    assert_eq!(
        tf_repr(&rd),
        "<tf.Tensor: shape=(3,), dtype=int32, numpy=array([5, 3, 1], dtype=int32)>"
    );
    assert_eq!(
        err(ops::range(
            &Scalar::Int(0),
            &Scalar::Int(5),
            &Scalar::Int(0),
            DType::Int32,
            Device::CPU0
        )),
        format!("InvalidArgumentError: {W}Range{DEV} Requires delta != 0: 0 [Op:Range] name: ")
    );
    assert_eq!(err(ops::range(&Scalar::Int(0), &Scalar::Int(10), &Scalar::Int(-1), DType::Int32, Device::CPU0)), format!("InvalidArgumentError: {W}Range{DEV} Requires start >= limit when delta < 0: 0/10 [Op:Range] name: "));
    assert_eq!(tf_repr(&ops::eye(2, 2, DType::Float32, Device::CPU0).unwrap()), "<tf.Tensor: shape=(2, 2), dtype=float32, numpy=\narray([[1., 0.],\n       [0., 1.]], dtype=float32)>");
    assert_eq!(
        err(Tensor::zeros(
            DType::Float32,
            &[100000, 100000, 100000],
            Device::CPU0
        ))
        .split(':')
        .next(),
        Some("ResourceExhaustedError")
    );
}

#[test]
fn where_cast_unary() {
    let c = tf(Literal::List(vec![
        Literal::Bool(true),
        Literal::Bool(false),
    ]));
    assert_eq!(err(ops::where_select(&c, &tf(ints(&[1, 2])), &tf(ints(&[3, 4, 5])))), format!("InvalidArgumentError: {W}SelectV2{DEV} condition [2], then [2], and else [3] must be broadcastable [Op:SelectV2] name: "));
    assert_eq!(err(ops::where_select(&c, &tf(ints(&[1, 2])), &tf(floats(&[1.0, 2.0])))), "InvalidArgumentError: cannot compute SelectV2 as input #2(zero-based) was expected to be a int32 tensor but is a float tensor [Op:SelectV2] name: ");
    let m = tf(Literal::List(vec![
        Literal::List(vec![Literal::Bool(true), Literal::Bool(false)]),
        Literal::List(vec![Literal::Bool(false), Literal::Bool(true)]),
    ]));
    assert_eq!(
        tf_repr(&ops::where_true(&m).unwrap()),
        "<tf.Tensor: shape=(2, 2), dtype=int64, numpy=\narray([[0, 0],\n       [1, 1]])>"
    );
    assert_eq!(
        tf_repr(&ops::cast(&tf(floats(&[1.7, -1.7, 2.5])), DType::Int32).unwrap()),
        "<tf.Tensor: shape=(3,), dtype=int32, numpy=array([ 1, -1,  2], dtype=int32)>"
    );
    assert_eq!(tf_repr(&ops::cast(&tf(floats(&[1e10, -2.7, f64::NAN])), DType::Int32).unwrap()), "<tf.Tensor: shape=(3,), dtype=int32, numpy=array([-2147483648,          -2, -2147483648], dtype=int32)>");
    assert_eq!(
        tf_repr(&ops::cast(&tf(ints(&[300, -1])), DType::UInt8).unwrap()),
        "<tf.Tensor: shape=(2,), dtype=uint8, numpy=array([ 44, 255], dtype=uint8)>"
    );
    assert_eq!(
        tf_repr(&ops::cast(&tf(floats(&[0.0, 2.0])), DType::Bool).unwrap()),
        "<tf.Tensor: shape=(2,), dtype=bool, numpy=array([False,  True])>"
    );
    assert_eq!(
        tf_repr(&ops::cast(&tf(floats(&[70000.0])), DType::Float16).unwrap()),
        "<tf.Tensor: shape=(1,), dtype=float16, numpy=array([inf], dtype=float16)>"
    );
    assert_eq!(err(ops::cast(&tf(ints(&[1, 0])), DType::String)), format!("UnimplementedError: {W}Cast{DEV} Cast int32 to string is not supported [Op:Cast] name: "));
    assert!(err(ops::unary(UnaryOp::Sqrt, &tf(Literal::Int(4)))).starts_with("InvalidArgumentError: Value for attr 'T' of int32 is not in the list of allowed values: bfloat16, half, float, double, complex64, complex128\n"));
    assert_eq!(
        tf_repr(&ops::unary(UnaryOp::Abs, &tf(floats(&[-1.5, 2.0]))).unwrap()),
        "<tf.Tensor: shape=(2,), dtype=float32, numpy=array([1.5, 2. ], dtype=float32)>"
    );
    assert_eq!(
        tf_repr(&ops::unary(UnaryOp::Abs, &tf(Literal::Int(-2147483648))).unwrap()),
        "<tf.Tensor: shape=(), dtype=int32, numpy=-2147483648>"
    );
}

#[test]
fn indexing_and_assignment() {
    let a = a23();
    let full = IndexItem::Slice {
        start: None,
        stop: None,
        step: None,
    };
    assert_eq!(err(ops::index(&a, &[IndexItem::Int(1), IndexItem::Int(2), IndexItem::Int(3)], Semantics::Tf)), format!("InvalidArgumentError: {W}StridedSlice{DEV} Index out of range using input dim 2; input has only 2 dims [Op:StridedSlice] name: strided_slice/"));
    assert_eq!(err(ops::index(&a, &[full, IndexItem::Int(5)], Semantics::Tf)), format!("InvalidArgumentError: {W}StridedSlice{DEV} slice index 5 of dimension 1 out of bounds. [Op:StridedSlice] name: strided_slice/"));
    assert_eq!(
        tf_repr(&ops::index(&a, &[IndexItem::Ellipsis, IndexItem::Int(1)], Semantics::Tf).unwrap()),
        "<tf.Tensor: shape=(2,), dtype=int32, numpy=array([1, 4], dtype=int32)>"
    );
    let rev = IndexItem::Slice {
        start: None,
        stop: None,
        step: Some(-1),
    };
    let two = IndexItem::Slice {
        start: None,
        stop: None,
        step: Some(2),
    };
    assert_eq!(
        tf_str(&ops::index(&a, &[rev, two], Semantics::Tf).unwrap()),
        "tf.Tensor(\n[[3 5]\n [0 2]], shape=(2, 2), dtype=int32)"
    );
    assert_eq!(
        tf_repr(&ops::index(&a, &[IndexItem::NewAxis, IndexItem::Int(1)], Semantics::Tf).unwrap()),
        "<tf.Tensor: shape=(1, 3), dtype=int32, numpy=array([[3, 4, 5]], dtype=int32)>"
    );
    let tail = IndexItem::Slice {
        start: Some(1),
        stop: Some(5),
        step: None,
    };
    assert_eq!(
        tf_repr(&ops::index(&a, &[tail], Semantics::Tf).unwrap()),
        "<tf.Tensor: shape=(1, 3), dtype=int32, numpy=array([[3, 4, 5]], dtype=int32)>"
    );
    let zero_step = IndexItem::Slice {
        start: None,
        stop: None,
        step: Some(0),
    };
    assert_eq!(err(ops::index(&a, &[full, zero_step], Semantics::Tf)), format!("InvalidArgumentError: {W}StridedSlice{DEV} strides[1] must be non-zero [Op:StridedSlice] name: strided_slice/"));
    // numpy copy-on-write assignment
    let mut x = np(ints(&[1, 2, 3, 4]));
    let shared = x.clone();
    ops::index_assign(
        &mut x,
        &[IndexItem::Slice {
            start: Some(1),
            stop: Some(3),
            step: None,
        }],
        &np(Literal::Float(9.7)),
    )
    .unwrap();
    assert_eq!(numpy_repr(&x), "array([1, 9, 9, 4])");
    assert_eq!(numpy_repr(&shared), "array([1, 2, 3, 4])");
}

#[test]
fn matmul_ops() {
    let ones = |d: &[usize]| Tensor::ones(DType::Float32, d, Device::CPU0).unwrap();
    assert_eq!(err(ops::matmul(&ones(&[2, 3]), &ones(&[2, 3]), false, false)), format!("InvalidArgumentError: {W}__MklMatMul{DEV} Matrix size-incompatible: In[0]: [2,3], In[1]: [2,3] [Op:MatMul] name: "));
    assert_eq!(err(ops::matmul(&ones(&[2, 2, 3]), &ones(&[3, 3, 4]), false, false)), format!("InvalidArgumentError: {W}__MklBatchMatMulV2{DEV} In[0] and In[1] must have compatible batch dimensions: [2,2,3] vs. [3,3,4] [Op:BatchMatMulV2] name: "));
    assert_eq!(err(ops::matmul(&ones(&[2, 2, 3]), &ones(&[2, 4, 3]), false, false)), format!("InvalidArgumentError: {W}__MklBatchMatMulV2{DEV} Matrix size-incompatible: In[0]: [2,2,3], In[1]: [2,4,3] 0 0 [Op:BatchMatMulV2] name: "));
    assert_eq!(
        err(ops::matmul(&ones(&[3]), &ones(&[3, 4]), false, false)),
        format!(
            "InvalidArgumentError: {W}__MklMatMul{DEV} In[0] ndims must be >= 2 [Op:MatMul] name: "
        )
    );
    let int_ones = |d: &[usize]| Tensor::ones(DType::Int32, d, Device::CPU0).unwrap();
    assert_eq!(
        err(ops::matmul(&int_ones(&[2]), &int_ones(&[2]), false, false)),
        format!("InvalidArgumentError: {W}MatMul{DEV} In[0] and In[1] ndims must be == 2: 1 [Op:MatMul] name: ")
    );
    assert_eq!(tf_repr(&ops::matmul(&ones(&[2, 2, 3]), &ones(&[3, 4]), false, false).unwrap()), "<tf.Tensor: shape=(2, 2, 4), dtype=float32, numpy=\narray([[[3., 3., 3., 3.],\n        [3., 3., 3., 3.]],\n\n       [[3., 3., 3., 3.],\n        [3., 3., 3., 3.]]], dtype=float32)>");
    let p = ops::matmul(
        &tf(Literal::List(vec![ints(&[1, 2])])),
        &tf(Literal::List(vec![ints(&[3]), ints(&[4])])),
        false,
        false,
    )
    .unwrap();
    assert_eq!(
        tf_repr(&p),
        "<tf.Tensor: shape=(1, 1), dtype=int32, numpy=array([[11]], dtype=int32)>"
    );
    // a larger product against a naive f64 reference
    let n = 70;
    let av: Vec<f32> = (0..n * n).map(|i| ((i * 7 % 13) as f32) - 6.0).collect();
    let bv: Vec<f32> = (0..n * n).map(|i| ((i * 5 % 11) as f32) * 0.5).collect();
    let c = ops::matmul(
        &Tensor::from_vec(av.clone(), &[n, n]).unwrap(),
        &Tensor::from_vec(bv.clone(), &[n, n]).unwrap(),
        false,
        true,
    )
    .unwrap();
    let cv = c.as_slice::<f32>().unwrap();
    for i in (0..n).step_by(7) {
        for j in (0..n).step_by(5) {
            let r: f64 = (0..n)
                .map(|k| av[i * n + k] as f64 * bv[j * n + k] as f64)
                .sum();
            assert!((cv[i * n + j] as f64 - r).abs() < 1e-3, "({i},{j})");
        }
    }
}
