//! `tf.nn.conv2d_transpose`, `conv1d_transpose`, `conv_transpose`,
//! `depthwise_conv2d` and `separable_conv2d`: TensorFlow's argument
//! handling (shared with `conv_ops.rs`) over `runtime::ops::conv` and
//! `runtime::ops::depthwise`.

use super::conv_ops::{
    check_format, conv_attrs, get_sequence, get_sequence_1d, pad_arg, padding_of, value_error,
    PadArg,
};
use super::convert::{placed, runtime_err, to_tensor};
use super::math_ops::matching;
use crate::modules::ModuleBuilder;
use crate::object::native;
use crate::runtime::ops::conv::{self, Padding, Window};
use crate::runtime::{ops, Tensor};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// The transpose of `conv2d` (its gradient for the input): `input` spread
/// through `filters` (`[h, w, out, in]`) into `output_shape`.
#[native("conv2d_transpose(input, filters, output_shape, strides, padding='SAME', data_format='NHWC', dilations=None, name=None)")]
#[expect(clippy::too_many_arguments, reason = "TensorFlow's signature")]
fn conv2d_transpose(
    vm: &dyn Vm,
    input: &Value,
    filters: &Value,
    output_shape: &Value,
    strides: &Value,
    padding: &Value,
    data_format: Option<String>,
    dilations: &Value,
    _name: &Value,
) -> PyResult<Tensor> {
    check_format("conv2d_transpose", data_format.as_deref())?;
    let strides = get_sequence(vm, strides, "strides")?;
    let dilations = get_sequence(vm, dilations, "dilations")?;
    let pad = pad_arg(vm, padding, true, 4)?;
    let shape = shape_arg(vm, output_shape)?;
    let (f, x) = matching(vm, filters, input)?;
    placed(
        vm,
        run_transpose(&x, &f, &shape, (strides, dilations), &pad)?,
    )
}

/// An `output_shape` argument: a list, tuple or 1-D integer tensor.
fn shape_arg(vm: &dyn Vm, v: &Value) -> PyResult<Vec<i64>> {
    Ok(match v {
        Value::Tensor(t) => t
            .to_scalars()
            .into_iter()
            .map(|s| match s {
                crate::runtime::Scalar::Int(i) => i,
                _ => -1,
            })
            .collect(),
        v => super::convert::int_list(vm, v)?,
    })
}

/// `Conv2DBackpropInput` with TensorFlow's attribute checks.
fn run_transpose(
    x: &Tensor,
    f: &Tensor,
    shape: &[i64],
    (strides, dilations): ([i64; 4], [i64; 4]),
    pad: &PadArg,
) -> PyResult<crate::runtime::Result<Tensor>> {
    let names = ("Conv2DBackpropInput", "Conv2DBackpropInput");
    let padding = padding_of(pad, names)?;
    let [strides, dilations] = conv_attrs(names, strides, dilations)?;
    let w = Window {
        size: [1, 1],
        strides,
        dilations,
        padding,
        dilated_grad: false,
    };
    Ok(conv::conv2d_transpose(x, f, shape, &w))
}

/// The transpose of `conv1d`: `input` (NWC) spread through `filters`
/// (`[w, out, in]`) into `output_shape`.
#[native("conv1d_transpose(input, filters, output_shape, strides, padding='SAME', data_format='NWC', dilations=None, name=None)")]
#[expect(clippy::too_many_arguments, reason = "TensorFlow's signature")]
fn conv1d_transpose(
    vm: &dyn Vm,
    input: &Value,
    filters: &Value,
    output_shape: &Value,
    strides: &Value,
    padding: &Value,
    data_format: Option<String>,
    dilations: &Value,
    _name: &Value,
) -> PyResult<Tensor> {
    let format = data_format
        .as_deref()
        .map(|f| if f == "NWC" { "NHWC" } else { f });
    check_format("conv1d_transpose", format)?;
    let strides = get_sequence_1d(vm, strides, "stride")?;
    let dilations = get_sequence_1d(vm, dilations, "dilations")?;
    let pad = pad_arg(vm, padding, false, 3)?;
    let mut shape = shape_arg(vm, output_shape)?;
    if !shape.is_empty() {
        shape.insert(1, 1);
    }
    let x = to_tensor(vm, input, None)?;
    let f = to_tensor(vm, filters, None)?;
    let x4 = ops::expand_dims(&x, 1).map_err(runtime_err)?;
    let f4 = ops::expand_dims(&f, 0).map_err(runtime_err)?;
    let y = run_transpose(&x4, &f4, &shape, (strides, dilations), &pad)?;
    placed(vm, y.and_then(|y| ops::squeeze(&y, Some(&[1]))))
}

/// `conv1d_transpose` or `conv2d_transpose` by the length of
/// `output_shape` (3 or 4; 3-D is not supported in dist).
#[native("conv_transpose(input, filters, output_shape, strides, padding='SAME', data_format=None, dilations=None, name=None)")]
#[expect(clippy::too_many_arguments, reason = "TensorFlow's signature")]
fn conv_transpose(
    vm: &dyn Vm,
    input: &Value,
    filters: &Value,
    output_shape: &Value,
    strides: &Value,
    padding: &Value,
    data_format: Option<String>,
    dilations: &Value,
    name: &Value,
) -> PyResult<Tensor> {
    let n = match output_shape {
        Value::Tensor(t) => t.dims().first().copied().unwrap_or(0) as i64 - 2,
        v => vm.len(v)? as i64 - 2,
    };
    match n {
        1 => conv1d_transpose(
            vm,
            input,
            filters,
            output_shape,
            strides,
            padding,
            data_format.or(Some("NWC".into())),
            dilations,
            name,
        ),
        2 => conv2d_transpose(
            vm,
            input,
            filters,
            output_shape,
            strides,
            padding,
            data_format.or(Some("NHWC".into())),
            dilations,
            name,
        ),
        3 => Err(PyErr::new(
            ExcType::NotImplementedError,
            "tf.nn.conv_transpose: 3-D transposed convolution is not supported in dist",
        )),
        _ => Err(value_error(format!(
            "`output_shape` must be of length 3, 4 or 5. Received: output_shape={} of length {}.",
            vm.str(output_shape)?,
            n + 2
        ))),
    }
}

/// Depthwise 2-D convolution: each input channel of an NHWC `input` with
/// its own `filter[:, :, c, :]` (`[h, w, in, multiplier]`).
#[native("depthwise_conv2d(input, filter, strides, padding, data_format=None, dilations=None, name=None)")]
#[expect(clippy::too_many_arguments, reason = "TensorFlow's signature")]
fn depthwise_conv2d(
    vm: &dyn Vm,
    input: &Value,
    filter: &Value,
    strides: &Value,
    padding: &Value,
    data_format: Option<String>,
    dilations: &Value,
    _name: &Value,
) -> PyResult<Tensor> {
    check_format("depthwise_conv2d", data_format.as_deref())?;
    let (x, f) = matching(vm, input, filter)?;
    let y = run_depthwise(vm, &x, &f, (strides, dilations), padding)?;
    placed(vm, Ok(y))
}

/// `depthwise_conv2d_native` through `with_space_to_batch`: the checks and the op.
fn run_depthwise(
    vm: &dyn Vm,
    x: &Tensor,
    f: &Tensor,
    (strides, dilations): (&Value, &Value),
    padding: &Value,
) -> PyResult<Tensor> {
    let strides = get_sequence(vm, strides, "strides")?;
    let dilations = get_sequence(vm, dilations, "dilations")?;
    let pad = pad_arg(vm, padding, false, 4)?;
    let names = ("DepthwiseConv2dNative", "DepthwiseConv2dNative");
    let padding = padding_of(&pad, names)?;
    let [strides, dilations] = conv_attrs(names, strides, dilations)?;
    if dilations != [1, 1] && strides != [1, 1] {
        // TensorFlow warns and runs a space-to-batch variant dist does not reproduce
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            "tf.nn.depthwise_conv2d: strides > 1 together with dilations > 1 is not supported in dist",
        ));
    }
    // a dilated one runs between SpaceToBatchND and BatchToSpaceND
    let w = Window {
        size: [1, 1],
        strides,
        dilations,
        padding,
        dilated_grad: true,
    };
    crate::runtime::ops::depthwise::depthwise_conv2d(x, f, &w).map_err(runtime_err)
}

/// A depthwise convolution followed by a 1x1 (`pointwise_filter`,
/// `[1, 1, in * multiplier, out]`) convolution.
#[native("separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding, data_format=None, dilations=None, name=None)")]
#[expect(clippy::too_many_arguments, reason = "TensorFlow's signature")]
fn separable_conv2d(
    vm: &dyn Vm,
    input: &Value,
    depthwise_filter: &Value,
    pointwise_filter: &Value,
    strides: &Value,
    padding: &Value,
    data_format: Option<String>,
    dilations: &Value,
    _name: &Value,
) -> PyResult<Tensor> {
    check_format("separable_conv2d", data_format.as_deref())?;
    let x = to_tensor(vm, input, None)?;
    let df = to_tensor(vm, depthwise_filter, None)?;
    let pf = to_tensor(vm, pointwise_filter, None)?;
    if pf.rank() != 4 {
        return Err(value_error(format!(
            "Shape {} must have rank 4",
            pf.shape().tuple_text()
        )));
    }
    for d in 0..2 {
        if pf.dims()[d] != 1 {
            return Err(value_error(format!(
                "Dimensions {} and 1 are not compatible",
                pf.dims()[d]
            )));
        }
    }
    let depthwise = run_depthwise(vm, &x, &df, (strides, dilations), padding)?;
    let w = Window {
        size: [1, 1],
        strides: [1, 1],
        dilations: [1, 1],
        padding: Padding::Valid,
        dilated_grad: false,
    };
    placed(vm, conv::conv2d(&depthwise, &pf, &w))
}

/// Adds these to the `tf.nn` namespace `n`.
pub fn register_nn(n: &mut ModuleBuilder) {
    n.add(conv2d_transpose::DEF)
        .add(conv1d_transpose::DEF)
        .add(conv_transpose::DEF)
        .add(depthwise_conv2d::DEF)
        .add(separable_conv2d::DEF);
}
