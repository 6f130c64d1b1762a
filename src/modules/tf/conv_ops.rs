//! `tf.nn.conv2d`, `max_pool2d`/`avg_pool2d` and `max_pool`/`avg_pool` of
//! 4-D inputs: TensorFlow's argument handling (`_get_sequence` for strides,
//! sizes and dilations, explicit padding lists) over
//! `runtime::ops::conv`. Only the NHWC layout is computed, as on
//! TensorFlow's CPU.

use super::convert::{placed, runtime_err, to_tensor};
use super::math_ops::matching;
use crate::modules::ModuleBuilder;
use crate::object::native;
use crate::runtime::ops::conv::{self, Padding, Window};
use crate::runtime::{ops, Tensor};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

pub(super) fn value_error(msg: String) -> PyErr {
    PyErr::new(ExcType::ValueError, msg)
}

/// `_get_sequence(value, 2, 3, name)`: the four NHWC entries.
pub(super) fn get_sequence(vm: &dyn Vm, value: &Value, name: &str) -> PyResult<[i64; 4]> {
    let items = sequence_items(vm, value)?;
    let Some(items) = items else {
        return Ok([1; 4]);
    };
    Ok(match items.len() {
        4 => [items[0], items[1], items[2], items[3]],
        1 => [1, items[0], items[0], 1],
        2 => [1, items[0], items[1], 1],
        n => {
            return Err(value_error(format!(
                "{name} should be of length 1, 2 or 4. Received: {name}={} of length {n}",
                vm.str(value)?
            )))
        }
    })
}

/// `[1] + _get_sequence(value, 1, 2, name)`: a 1-D op's entry as the
/// four NHWC entries of the 2-D op it runs as (height 1).
pub(super) fn get_sequence_1d(vm: &dyn Vm, value: &Value, name: &str) -> PyResult<[i64; 4]> {
    let Some(items) = sequence_items(vm, value)? else {
        return Ok([1; 4]);
    };
    Ok(match items.len() {
        3 => [1, items[0], items[1], items[2]],
        1 => [1, 1, items[0], 1],
        n => {
            return Err(value_error(format!(
                "{name} should be of length 1, 1 or 3. Received: {name}={} of length {n}",
                vm.str(value)?
            )))
        }
    })
}

/// The ints of a sequence argument (one int: a list of one), None for None.
fn sequence_items(vm: &dyn Vm, value: &Value) -> PyResult<Option<Vec<i64>>> {
    Ok(Some(match value {
        Value::None => return Ok(None),
        Value::List(_) | Value::Tuple(_) => vm
            .collect(value)?
            .iter()
            .map(|v| crate::object::types::int_arg(v, vm))
            .collect::<PyResult<_>>()?,
        v => vec![crate::object::types::int_arg(v, vm)?],
    }))
}

/// A kernel error of `op` on the CPU (node `node`), as TensorFlow words it.
fn op_error(ty: ExcType, (op, node): (&str, &str), msg: &str) -> PyErr {
    PyErr::new(
        ty,
        format!(
            "{{{{function_node __wrapped__{node}_device_/job:localhost/replica:0/task:0/device:CPU:0}}}} {msg} [Op:{op}] name: "
        ),
    )
}

/// The `padding` argument as given: a string, or explicit `[before, after]`
/// pairs for the four NHWC axes.
pub(super) enum PadArg {
    Str(String),
    Pairs([[i64; 2]; 4]),
}

pub(super) fn pad_arg(
    vm: &dyn Vm,
    padding: &Value,
    explicit_ok: bool,
    n: usize,
) -> PyResult<PadArg> {
    let not_string = || -> PyResult<PadArg> {
        Err(PyErr::new(
            ExcType::TypeError,
            format!(
                "Expected string for argument 'padding' not {}.",
                vm.repr(padding)?
            ),
        ))
    };
    match padding {
        Value::Str(s) => Ok(PadArg::Str(s.to_string())),
        Value::List(_) | Value::Tuple(_) if explicit_ok => {
            let pairs = vm.collect(padding)?;
            if pairs.len() != n {
                return Err(value_error(format!(
                    "When padding is a list, it must be of size {n}. Received: padding={} of size {}",
                    vm.str(padding)?,
                    pairs.len()
                )));
            }
            let mut p = [[0i64; 2]; 4];
            // a 1-D op's pairs are those of the 2-D op with a height of 1
            let skip = 4 - n;
            for (i, pair) in pairs.iter().enumerate() {
                let i = if i == 0 { 0 } else { i + skip };
                let two = vm.collect(pair)?;
                if two.len() != 2 {
                    return Err(value_error(format!(
                        "When padding is a list, each element must be a pair. Received: padding={}",
                        vm.str(padding)?
                    )));
                }
                for (j, v) in two.iter().enumerate() {
                    p[i][j] = crate::object::types::int_arg(v, vm)?;
                }
            }
            Ok(PadArg::Pairs(p))
        }
        _ => not_string(),
    }
}

/// The kernel's checks of `padding` (after the op's attribute checks).
pub(super) fn padding_of(pad: &PadArg, names: (&str, &str)) -> PyResult<Padding> {
    match pad {
        PadArg::Str(s) if s == "SAME" => Ok(Padding::Same),
        PadArg::Str(s) if s == "VALID" => Ok(Padding::Valid),
        PadArg::Str(s) => Err(runtime_err(conv::padding_attr_error(names.0, s))),
        PadArg::Pairs(p) => {
            if p[0] != [0, 0] || p[3] != [0, 0] {
                return Err(op_error(
                    ExcType::InvalidArgumentError,
                    names,
                    "Nonzero explicit padding in the batch or depth dimensions is not supported",
                ));
            }
            if p.iter().flatten().any(|&v| v < 0) {
                return Err(op_error(
                    ExcType::InvalidArgumentError,
                    names,
                    "All elements of explicit_paddings must be nonnegative",
                ));
            }
            Ok(Padding::Explicit([
                p[1][0] as usize,
                p[1][1] as usize,
                p[2][0] as usize,
                p[2][1] as usize,
            ]))
        }
    }
}

/// `Conv2D`'s checks of its strides and dilations.
pub(super) fn conv_attrs(
    names: (&str, &str),
    strides: [i64; 4],
    dilations: [i64; 4],
) -> PyResult<[[usize; 2]; 2]> {
    if strides[0] != 1 || strides[3] != 1 {
        return Err(op_error(
            ExcType::UnimplementedError,
            names,
            "Current implementation does not yet support strides in the batch and depth dimensions.",
        ));
    }
    if strides[1] <= 0 || strides[2] <= 0 {
        return Err(op_error(
            ExcType::InvalidArgumentError,
            names,
            "Row and column strides should be larger than 0.",
        ));
    }
    if dilations[0] != 1 || dilations[3] != 1 {
        return Err(op_error(
            ExcType::UnimplementedError,
            names,
            "Current implementation does not yet support dilations in the batch and depth dimensions.",
        ));
    }
    if dilations[1] <= 0 || dilations[2] <= 0 {
        return Err(op_error(
            ExcType::InvalidArgumentError,
            names,
            "Dilated rates should be larger than 0.",
        ));
    }
    Ok([
        [strides[1] as usize, strides[2] as usize],
        [dilations[1] as usize, dilations[2] as usize],
    ])
}

/// The pools' checks of their window and strides.
fn pool_attrs(op: &str, ksize: [i64; 4], strides: [i64; 4]) -> PyResult<[[usize; 2]; 2]> {
    let names = (op, op);
    if ksize[0] != 1 || strides[0] != 1 {
        return Err(op_error(
            ExcType::UnimplementedError,
            names,
            "Pooling is not yet supported on the batch dimension.",
        ));
    }
    if let Some(&s) = strides.iter().find(|&&s| s <= 0) {
        return Err(op_error(
            ExcType::InvalidArgumentError,
            names,
            &format!("Stride must be > 0, but got {s}"),
        ));
    }
    if let Some(&k) = ksize.iter().find(|&&k| k <= 0) {
        return Err(op_error(
            ExcType::InvalidArgumentError,
            names,
            &format!("Sliding window ksize must be > 0, but got {k}"),
        ));
    }
    if ksize[3] != 1 || strides[3] != 1 {
        if op == "MaxPool" && (ksize[1] != 1 || ksize[2] != 1 || strides[1] != 1 || strides[2] != 1)
        {
            return Err(op_error(
                ExcType::UnimplementedError,
                names,
                "MaxPooling supports exactly one of pooling across depth or pooling across width/height.",
            ));
        }
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            format!("tf.nn: {op} across the depth dimension is not supported in dist"),
        ));
    }
    Ok([
        [ksize[1] as usize, ksize[2] as usize],
        [strides[1] as usize, strides[2] as usize],
    ])
}

/// Only NHWC is computed (TensorFlow's CPU kernels have no NCHW either).
pub(super) fn check_format(op: &str, data_format: Option<&str>) -> PyResult<()> {
    match data_format {
        None | Some("NHWC") => Ok(()),
        Some(f) => Err(PyErr::new(
            ExcType::NotImplementedError,
            format!("tf.nn.{op}: data_format={f} is not supported in dist; only NHWC is"),
        )),
    }
}

/// 2-D convolution of an NHWC `input` with `[height, width, in, out]` `filters`.
#[native("conv2d(input, filters, strides, padding, data_format='NHWC', dilations=None, name=None)")]
#[expect(clippy::too_many_arguments, reason = "TensorFlow's signature")]
fn conv2d(
    vm: &dyn Vm,
    input: &Value,
    filters: &Value,
    strides: &Value,
    padding: &Value,
    data_format: Option<String>,
    dilations: &Value,
    _name: &Value,
) -> PyResult<Tensor> {
    check_format("conv2d", data_format.as_deref())?;
    let strides = get_sequence(vm, strides, "strides")?;
    let dilations = get_sequence(vm, dilations, "dilations")?;
    let pad = pad_arg(vm, padding, true, 4)?;
    let (x, f) = matching(vm, input, filters)?;
    placed(vm, run_conv2d(&x, &f, (strides, dilations), &pad, false)?)
}

/// `Conv2D` with TensorFlow's attribute checks.
fn run_conv2d(
    x: &Tensor,
    f: &Tensor,
    (strides, dilations): ([i64; 4], [i64; 4]),
    pad: &PadArg,
    dilated_grad: bool,
) -> PyResult<crate::runtime::Result<Tensor>> {
    let names = ("Conv2D", conv::conv_node(x.dtype()));
    let padding = padding_of(pad, names)?;
    let [strides, dilations] = conv_attrs(names, strides, dilations)?;
    let w = Window {
        size: [1, 1],
        strides,
        dilations,
        padding,
        dilated_grad,
    };
    Ok(conv::conv2d(x, f, &w))
}

/// `conv1d`: the input and filter given a height of 1, `Conv2D`, and the
/// height squeezed out again.
fn run_conv1d(
    vm: &dyn Vm,
    (input, filters): (&Value, &Value),
    (strides, dilations): ([i64; 4], [i64; 4]),
    pad: &PadArg,
    dilated_grad: bool,
) -> PyResult<Tensor> {
    let x = to_tensor(vm, input, None)?;
    let f = to_tensor(vm, filters, None)?;
    let x4 = ops::expand_dims(&x, 1).map_err(runtime_err)?;
    let f4 = ops::expand_dims(&f, 0).map_err(runtime_err)?;
    let y = run_conv2d(&x4, &f4, (strides, dilations), pad, dilated_grad)?;
    placed(vm, y.and_then(|y| ops::squeeze(&y, Some(&[1]))))
}

/// 1-D convolution of an NWC `input` with `[width, in, out]` `filters`.
#[native("conv1d(input, filters, stride, padding, data_format='NWC', dilations=None, name=None)")]
#[expect(clippy::too_many_arguments, reason = "TensorFlow's signature")]
fn conv1d(
    vm: &dyn Vm,
    input: &Value,
    filters: &Value,
    stride: &Value,
    padding: &Value,
    data_format: Option<String>,
    dilations: &Value,
    _name: &Value,
) -> PyResult<Tensor> {
    let format = data_format
        .as_deref()
        .map(|f| if f == "NWC" { "NHWC" } else { f });
    check_format("conv1d", format)?;
    let strides = get_sequence_1d(vm, stride, "stride")?;
    let dilations = get_sequence_1d(vm, dilations, "dilations")?;
    let pad = pad_arg(vm, padding, false, 3)?;
    run_conv1d(vm, (input, filters), (strides, dilations), &pad, false)
}

/// N-D convolution (`N` from the filter's rank: 1 or 2 in dist).
#[native("convolution(input, filters, strides=None, padding='VALID', data_format=None, dilations=None, name=None)")]
#[expect(clippy::too_many_arguments, reason = "TensorFlow's signature")]
fn convolution(
    vm: &dyn Vm,
    input: &Value,
    filters: &Value,
    strides: &Value,
    padding: &Value,
    data_format: Option<String>,
    dilations: &Value,
    _name: &Value,
) -> PyResult<Tensor> {
    let f = to_tensor(vm, filters, None)?;
    let n = f.rank() as i64 - 2;
    let channels_last = matches!(
        data_format.as_deref(),
        None | Some("NWC" | "NHWC" | "NDHWC")
    );
    if !channels_last {
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            format!(
                "tf.nn.convolution: data_format={} is not supported in dist; only channels-last is",
                data_format.unwrap_or_default()
            ),
        ));
    }
    // a dilated convolution runs between SpaceToBatchND and BatchToSpaceND,
    // and so has a gradient on the CPU
    let dilated = |d: &[i64; 4]| d.iter().any(|&v| v != 1);
    match n {
        1 => {
            let strides = get_sequence_1d(vm, strides, "strides")?;
            let dilations = get_sequence_1d(vm, dilations, "dilations")?;
            let pad = pad_arg(vm, padding, false, 3)?;
            let fv = Value::Tensor(f);
            let grad = dilated(&dilations);
            run_conv1d(vm, (input, &fv), (strides, dilations), &pad, grad)
        }
        2 => {
            let strides = get_sequence(vm, strides, "strides")?;
            let dilations = get_sequence(vm, dilations, "dilations")?;
            let pad = pad_arg(vm, padding, true, 4)?;
            let x = to_tensor(vm, input, None)?;
            let grad = dilated(&dilations);
            placed(vm, run_conv2d(&x, &f, (strides, dilations), &pad, grad)?)
        }
        3 => Err(PyErr::new(
            ExcType::NotImplementedError,
            "tf.nn.convolution: 3-D convolution is not supported in dist",
        )),
        _ => Err(value_error(format!(
            "`num_spatial_dims` must be 1, 2, or 3. Received: num_spatial_dims={n}."
        ))),
    }
}

fn pool(
    vm: &dyn Vm,
    (op, name): (&str, &str),
    input: &Value,
    ksize: &Value,
    strides: &Value,
    padding: &Value,
    data_format: Option<&str>,
) -> PyResult<Tensor> {
    let x = to_tensor(vm, input, None)?;
    let max = op == "MaxPool";
    let generic = name == "max_pool" || name == "avg_pool";
    let one_d = name.ends_with("1d") || (generic && x.rank() == 3);
    let data_format = data_format.map(|f| if f == "NWC" { "NHWC" } else { f });
    check_format(name, data_format)?;
    if generic && x.rank() != 4 && x.rank() != 3 {
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            format!(
                "tf.nn.{name}: only 3-D (NWC) and 4-D (NHWC) inputs are supported in dist; got rank {}",
                x.rank()
            ),
        ));
    }
    if one_d {
        // max_pool1d / avg_pool1d: a height of 1 added and squeezed out
        let ksize = get_sequence_1d(vm, ksize, "ksize")?;
        let strides = get_sequence_1d(vm, strides, "strides")?;
        let pad = pad_arg(vm, padding, max, 3)?;
        let padding = padding_of(&pad, (op, op))?;
        let [size, strides] = pool_attrs(op, ksize, strides)?;
        let w = Window {
            size,
            strides,
            dilations: [1, 1],
            padding,
            dilated_grad: false,
        };
        let r = ops::expand_dims(&x, 1)
            .and_then(|x4| conv::pool2d(&x4, &w, max))
            .and_then(|y| ops::squeeze(&y, Some(&[1])));
        return placed(vm, r);
    }
    let ksize = get_sequence(vm, ksize, "ksize")?;
    let strides = get_sequence(vm, strides, "strides")?;
    let pad = pad_arg(vm, padding, max, 4)?;
    let padding = padding_of(&pad, (op, op))?;
    let [size, strides] = pool_attrs(op, ksize, strides)?;
    let w = Window {
        size,
        strides,
        dilations: [1, 1],
        padding,
        dilated_grad: false,
    };
    placed(vm, conv::pool2d(&x, &w, max))
}

/// The pooling natives: the same arguments, their TensorFlow op and
/// Python names, and the layout default (by rank where it is None).
macro_rules! pool_natives {
    ($($(#[doc = $doc:tt])* fn $name:ident($sig:tt, $op:literal);)*) => {$(
        $(#[doc = $doc])*
        #[native($sig)]
        fn $name(
            vm: &dyn Vm,
            input: &Value,
            ksize: &Value,
            strides: &Value,
            padding: &Value,
            data_format: Option<String>,
            _name: &Value,
        ) -> PyResult<Tensor> {
            let names = ($op, stringify!($name));
            pool(vm, names, input, ksize, strides, padding, data_format.as_deref())
        }
    )*};
}

pool_natives! {
    /// The maximum of each `ksize` window of an NHWC `input`.
    fn max_pool2d("max_pool2d(input, ksize, strides, padding, data_format='NHWC', name=None)", "MaxPool");
    /// The mean of each `ksize` window of an NHWC `input` (padding not counted).
    fn avg_pool2d("avg_pool2d(input, ksize, strides, padding, data_format='NHWC', name=None)", "AvgPool");
    /// The maximum of each `ksize` window of an NWC `input`.
    fn max_pool1d("max_pool1d(input, ksize, strides, padding, data_format='NWC', name=None)", "MaxPool");
    /// The mean of each `ksize` window of an NWC `input` (padding not counted).
    fn avg_pool1d("avg_pool1d(input, ksize, strides, padding, data_format='NWC', name=None)", "AvgPool");
    /// `max_pool1d` or `max_pool2d` by the input's rank (3 or 4 in dist).
    fn max_pool("max_pool(input, ksize, strides, padding, data_format=None, name=None)", "MaxPool");
    /// `avg_pool1d` or `avg_pool2d` by the input's rank (3 or 4 in dist).
    fn avg_pool("avg_pool(input, ksize, strides, padding, data_format=None, name=None)", "AvgPool");
}

/// Adds these to the `tf.nn` namespace `n`.
pub fn register_nn(n: &mut ModuleBuilder) {
    super::conv_transpose_ops::register_nn(n);
    n.add(conv2d::DEF)
        .add(conv1d::DEF)
        .add(convolution::DEF)
        .add(max_pool1d::DEF)
        .add(avg_pool1d::DEF)
        .add(max_pool2d::DEF)
        .add(avg_pool2d::DEF)
        .add(max_pool::DEF)
        .add(avg_pool::DEF);
}
