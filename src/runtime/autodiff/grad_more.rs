//! The gradients of `Cumprod`, `TopKV2` (and `tf.sort`, which TensorFlow
//! builds on it), the matrix diagonal ops and `Einsum`, each as the op
//! sequence of TensorFlow's registered gradient (`math_grad.py`,
//! `nn_grad.py`, `array_grad.py`). `grad.rs` dispatches here.

use crate::runtime::dtype::{DType, Scalar};
use crate::runtime::error::{Error, Result};
use crate::runtime::op::{BinaryOp, Semantics};
use crate::runtime::ops;
use crate::runtime::tensor::Tensor;

fn zeros(dtype: DType, dims: &[usize], like: &Tensor) -> Result<Tensor> {
    Tensor::zeros(dtype, dims, like.device())
}

/// `tf.math.divide_no_nan(x, y)`: 0 where `y` is 0, else `x / y`.
fn div_no_nan(x: &Tensor, y: &Tensor) -> Result<Tensor> {
    let zero = zeros(y.dtype(), &[], y)?;
    let is_zero = ops::binary(BinaryOp::Equal, y, &zero)?;
    let q = ops::truediv(x, y)?;
    ops::where_select(&is_zero, &zeros(q.dtype(), &[], &q)?, &q)
}

/// `_CumprodGrad`: `div_no_nan(cumsum(cumprod(x) * g, reversed), x)`.
pub(super) fn cumprod(
    x: &Tensor,
    g: &Tensor,
    axis: i64,
    exclusive: bool,
    reverse: bool,
) -> Result<Tensor> {
    let prod = ops::scan::cumulative(x, axis, exclusive, reverse, true)?;
    let weighted = ops::binary(BinaryOp::Mul, &prod, g)?;
    let out = ops::scan::cumulative(&weighted, axis, exclusive, !reverse, false)?;
    div_no_nan(&out, x)
}

fn int_values(t: &Tensor) -> Result<Vec<i64>> {
    t.to_scalars()
        .into_iter()
        .map(|s| match s {
            Scalar::Int(i) => Ok(i),
            _ => Err(Error::internal("gradient: indices are not integers")),
        })
        .collect()
}

/// `g`'s values added into zeros of `dims` at flat positions `at`: a
/// recorded `ScatterNd` of the flat gradient (so gradients of this gradient,
/// and forward-mode tangents, pass it), reshaped to `dims`.
fn scatter_into_zeros(g: &Tensor, dims: &[usize], at: &[usize]) -> Result<Tensor> {
    let pos: Vec<i64> = at.iter().map(|&i| i as i64).collect();
    let n = pos.len();
    let pos = Tensor::from_vec(pos, &[n, 1])?.to_device(g.device())?;
    let total: usize = dims.iter().product();
    let flat = ops::reshape(g, &[-1], Semantics::Tf)?;
    let out = ops::scatter::scatter_nd(&pos, &flat, &[total])?;
    let dims: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
    ops::reshape(&out, &dims, Semantics::Tf)
}

/// `_TopKGrad`: each row's gradient scattered to the positions its
/// indices name along the last axis, zeros elsewhere.
pub(super) fn top_k(x: &Tensor, indices: &Tensor, g: &Tensor) -> Result<Tensor> {
    let n = x.dims().last().copied().unwrap_or(1);
    let k = indices.dims().last().copied().unwrap_or(1);
    let idx = int_values(indices)?;
    let at: Vec<usize> = idx
        .iter()
        .enumerate()
        .map(|(j, &i)| (j / k.max(1)) * n + i as usize)
        .collect();
    scatter_into_zeros(g, x.dims(), &at)
}

/// The gradient of `tf.sort` along `axis`: TensorFlow sorts with `top_k`
/// on the input with `axis` swapped last (negated for ascending), so its
/// gradient is `top_k`'s, through the same transposes (and two negations,
/// which cancel exactly).
pub(super) fn sort(x: &Tensor, indices: &Tensor, g: &Tensor, axis: i64) -> Result<Tensor> {
    let r = x.rank();
    let a = if axis < 0 { axis + r as i64 } else { axis } as usize;
    if a + 1 == r {
        return top_k(x, indices, g);
    }
    let mut perm: Vec<i64> = (0..r as i64).collect();
    perm.swap(a, r - 1);
    let xt = ops::transpose(x, Some(&perm))?;
    let it = ops::transpose(indices, Some(&perm))?;
    let gt = ops::transpose(g, Some(&perm))?;
    let out = top_k(&xt, &it, &gt)?;
    ops::transpose(&out, Some(&perm))
}

/// `_MatrixSetDiagGradV3`: the gradient with its diagonals zeroed, and the
/// diagonals.
pub(super) fn set_diag(g: &Tensor, diagonal: &Tensor) -> Result<[Tensor; 2]> {
    let z = zeros(g.dtype(), diagonal.dims(), g)?;
    Ok([
        ops::matrix::set_diag(g, &z)?,
        ops::matrix::diag_part(g, " name: diag_part")?,
    ])
}

/// One operand's labels and the equation's output labels.
fn labels(eq: &str) -> Result<(Vec<String>, String)> {
    let (lhs, out) = eq
        .split_once("->")
        .ok_or_else(|| Error::internal("einsum gradient: equation without output"))?;
    Ok((
        lhs.split(',').map(str::to_string).collect(),
        out.to_string(),
    ))
}

fn einsum(eq: String, xs: &[Tensor]) -> Result<Tensor> {
    ops::einsum::einsum_op(&eq, xs)
}

/// `_GetGradReduced`: the gradient of the unary einsum
/// `input_subs -> output_subs` that sums the `reduced` labels.
fn grad_reduced(
    og: &Tensor,
    output_subs: &str,
    input_subs: &str,
    x_dims: &[usize],
) -> Result<Tensor> {
    let reduced: Vec<char> = {
        let mut seen = Vec::new();
        for c in input_subs.chars() {
            if !output_subs.contains(c) && !seen.contains(&c) {
                seen.push(c);
            }
        }
        seen
    };
    let axis_of = |c: char| input_subs.chars().position(|d| d == c).unwrap_or(0);
    let reduced_axes: Vec<usize> = reduced.iter().map(|&c| axis_of(c)).collect();
    let reduced_dims: Vec<usize> = reduced_axes.iter().map(|&a| x_dims[a]).collect();
    let distinct = |s: &str| {
        let mut v: Vec<char> = s.chars().collect();
        v.sort_unstable();
        v.dedup();
        v.len()
    };
    let repeated =
        distinct(input_subs) + distinct(output_subs) < input_subs.len() + output_subs.len();
    let without: String = input_subs
        .chars()
        .filter(|c| !reduced.contains(c))
        .collect();
    let dims_i64 = |d: &[usize]| d.iter().map(|&x| x as i64).collect::<Vec<_>>();
    if !repeated && without == output_subs {
        // reshape to the kept shape (1 on the reduced axes) and broadcast
        let kept: Vec<usize> = x_dims
            .iter()
            .enumerate()
            .map(|(i, &d)| if reduced_axes.contains(&i) { 1 } else { d })
            .collect();
        let r = ops::reshape(og, &dims_i64(&kept), Semantics::Tf)?;
        return ops::broadcast_to(&r, x_dims);
    }
    let mut ones_then: Vec<usize> = vec![1; reduced.len()];
    ones_then.extend_from_slice(og.dims());
    let mut full = reduced_dims;
    full.extend_from_slice(og.dims());
    let b = ops::broadcast_to(
        &ops::reshape(og, &dims_i64(&ones_then), Semantics::Tf)?,
        &full,
    )?;
    let reduced_subs: String = reduced.iter().collect();
    einsum(format!("{reduced_subs}{output_subs}->{input_subs}"), &[b])
}

/// `_GetGradWrt`: the gradient of one operand of a binary einsum.
fn grad_wrt(
    g: &Tensor,
    other: &Tensor,
    x_dims: &[usize],
    (input_subs, other_subs, output_subs): (&str, &str, &str),
) -> Result<Tensor> {
    let kept = |c: &char| output_subs.contains(*c) || other_subs.contains(*c);
    let left: String = input_subs.chars().filter(kept).collect();
    let reduced = input_subs.chars().any(|c| !kept(&c));
    let partial = einsum(
        format!("{output_subs},{other_subs}->{left}"),
        &[g.clone(), other.clone()],
    )?;
    if !reduced {
        return Ok(partial);
    }
    grad_reduced(&partial, &left, input_subs, x_dims)
}

/// `_EinsumGrad` for one or two operands (`eq` has its output explicit).
pub(super) fn einsum_grad(eq: &str, inputs: &[Tensor], g: &Tensor) -> Result<Vec<Option<Tensor>>> {
    let (ins, out) = labels(eq)?;
    if inputs.len() == 1 {
        let x = &inputs[0];
        let reduced = ins[0].chars().any(|c| !out.contains(c));
        let gx = if reduced {
            grad_reduced(g, &out, &ins[0], x.dims())?
        } else {
            einsum(format!("{out}->{}", ins[0]), std::slice::from_ref(g))?
        };
        return Ok(vec![Some(gx)]);
    }
    let (x, y) = (&inputs[0], &inputs[1]);
    let gx = grad_wrt(g, y, x.dims(), (&ins[0], &ins[1], &out))?;
    let gy = grad_wrt(g, x, y.dims(), (&ins[1], &ins[0], &out))?;
    Ok(vec![Some(gx), Some(gy)])
}
