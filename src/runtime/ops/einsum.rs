//! `tf.einsum`: every output element is the sum, over the contracted labels
//! in row-major order, of the product of the operands' elements. Computed
//! in host memory; the result goes back to the first operand's device.
//! Ellipses (`...`) become fresh labels, with the operands broadcast to
//! their common batch shape first (`ellipsis`). Three or more operands are
//! taken for integer dtypes only, where any contraction order gives the
//! same values; TensorFlow contracts floats pairwise in opt_einsum's order,
//! whose rounding dist does not reproduce.

use super::attr_error;
use crate::runtime::autodiff::{tape, GradOp};
use crate::runtime::backend::cpu::num::Num;
use crate::runtime::error::{Error, ErrorKind, Result};
use crate::runtime::shape::Shape;
use crate::runtime::storage::HostData;
use crate::runtime::tensor::Tensor;

/// A parsed equation: the labels of each input and of the output.
struct Equation {
    inputs: Vec<Vec<u8>>,
    output: Vec<u8>,
}

fn parse(eq: &str, n: usize) -> Result<Equation> {
    let compact: String = eq.chars().filter(|c| !c.is_whitespace()).collect();
    let (lhs, rhs) = match compact.split_once("->") {
        Some((l, r)) => (l.to_string(), Some(r.to_string())),
        None => (compact.clone(), None),
    };
    let inputs: Vec<Vec<u8>> = lhs.split(',').map(|s| s.as_bytes().to_vec()).collect();
    if inputs.len() != n {
        return Err(Error::value_error(format!(
            "Got {n} inputs for equation \"{eq}\", expecting {}",
            inputs.len()
        )));
    }
    let all = inputs
        .iter()
        .flatten()
        .chain(rhs.iter().flat_map(|r| r.as_bytes()));
    if let Some(c) = all.clone().find(|c| !c.is_ascii_alphabetic()) {
        return Err(Error::invalid_argument(format!(
            "Invalid character '{}' in equation: {eq}",
            *c as char
        )));
    }
    let output = match rhs {
        Some(r) => r.into_bytes(),
        None => {
            // implicit output: the labels that appear once, in alphabetical order
            let mut once: Vec<u8> = inputs
                .iter()
                .flatten()
                .copied()
                .filter(|c| inputs.iter().flatten().filter(|d| *d == c).count() == 1)
                .collect();
            once.sort_unstable();
            once
        }
    };
    for c in &output {
        if !inputs.iter().flatten().any(|d| d == c) {
            return Err(Error::invalid_argument(format!(
                "Output subscript contains label '{}' not present in any input",
                *c as char
            )));
        }
    }
    Ok(Equation { inputs, output })
}

fn contract<T: Num>(
    xs: &[&[T]],
    strides: &[Vec<usize>],
    sizes: &[usize],
    n_out: usize,
) -> Result<HostData> {
    let out_n: usize = sizes[..n_out].iter().product();
    let sum_n: usize = sizes[n_out..].iter().product();
    let mut out = crate::runtime::storage::try_vec::<T>(out_n)?;
    let mut idx = vec![0usize; sizes.len()];
    for o in 0..out_n {
        // the output labels' coordinates of `o`
        let mut rest = o;
        for l in (0..n_out).rev() {
            idx[l] = rest % sizes[l];
            rest /= sizes[l];
        }
        let mut acc = T::zero();
        for s in 0..sum_n {
            let mut rest = s;
            for l in (n_out..sizes.len()).rev() {
                idx[l] = rest % sizes[l];
                rest /= sizes[l];
            }
            let mut p: Option<T> = None;
            for (x, st) in xs.iter().zip(strides) {
                let at: usize = st.iter().zip(&idx).map(|(s, i)| s * i).sum();
                p = Some(match p {
                    None => x[at],
                    Some(q) => q.mul(x[at]),
                });
            }
            if let Some(p) = p {
                acc = acc.add(p);
            }
        }
        out.push(acc);
    }
    Ok(T::wrap(out))
}

/// `tf.einsum(equation, *inputs)` for one or two inputs.
fn einsum_impl(eq: &str, xs: &[Tensor]) -> Result<Tensor> {
    let _trace = xs
        .first()
        .map(|x| crate::runtime::trace::op("Einsum", x.device()));
    let e = parse(eq, xs.len())?;
    let Some(first) = xs.first() else {
        return Err(Error::value_error(
            "einsum: at least one operand is required",
        ));
    };
    let dtype = first.dtype();
    let mkl = matches!(dtype, crate::runtime::DType::Float32);
    let node = if mkl {
        format!("__MklEinsum_N_{}", xs.len())
    } else {
        format!("Einsum_N_{}", xs.len())
    };
    for (i, x) in xs.iter().enumerate().skip(1) {
        if x.dtype() != dtype {
            return Err(Error::invalid_argument(format!(
                "cannot compute {} as input #{i}(zero-based) was expected to be a {} tensor but \
                 is a {} tensor [Op:Einsum] name: ",
                if mkl { "_MklEinsum" } else { "Einsum" },
                dtype.kernel_name(),
                x.dtype().kernel_name()
            )));
        }
    }
    if !dtype.is_numeric() {
        return Err(attr_error("Einsum", dtype));
    }
    if xs.len() > 2 && !dtype.is_integer() {
        return Err(Error::new(
            ErrorKind::Unimplemented,
            format!(
                "tf.einsum: dist takes three or more operands only for integer dtypes, not {} \
                 (TensorFlow contracts them pairwise in opt_einsum's order, whose rounding dist \
                 does not reproduce): contract them two at a time",
                dtype.name()
            ),
        ));
    }
    // labels: the output's (each once), then the contracted ones in order
    // of appearance
    let mut labels: Vec<u8> = Vec::new();
    for c in &e.output {
        if !labels.contains(c) {
            labels.push(*c);
        }
    }
    let n_out = labels.len();
    for c in e.inputs.iter().flatten() {
        if !labels.contains(c) {
            labels.push(*c);
        }
    }
    let mut sizes: Vec<Option<usize>> = vec![None; labels.len()];
    for (x, inp) in xs.iter().zip(&e.inputs) {
        if inp.len() != x.rank() {
            return Err(Error::invalid_argument(format!(
                "Input {} to einsum has {} dimensions but the equation \"{eq}\" gives it {} \
                 labels",
                0,
                x.rank(),
                inp.len()
            )));
        }
        for (ax, c) in inp.iter().enumerate() {
            let l = labels.iter().position(|d| d == c).unwrap_or(0);
            let got = x.dims()[ax];
            match sizes[l] {
                None => sizes[l] = Some(got),
                Some(want) if want != got => {
                    let dims: Vec<String> = x.dims().iter().map(|d| d.to_string()).collect();
                    return Err(Error::kernel(
                        ErrorKind::InvalidArgument,
                        &node,
                        &x.device(),
                        &format!(
                            "Expected dimension {want} at axis {ax} of the input shaped [{}] but \
                             got dimension {got}",
                            dims.join(",")
                        ),
                        "Einsum",
                        " name: ",
                    ));
                }
                _ => {}
            }
        }
    }
    let sizes: Vec<usize> = sizes.into_iter().map(|s| s.unwrap_or(1)).collect();
    let out_dims: Vec<usize> = sizes[..n_out].to_vec();
    let shape = Shape(out_dims);
    shape.checked_numel()?;
    let full_dims: Vec<usize> = e
        .output
        .iter()
        .map(|c| sizes[labels.iter().position(|d| d == c).unwrap_or(0)])
        .collect();
    Shape(full_dims.clone()).checked_numel()?;
    // each input's stride per label (0 where the label is not its own)
    let strides: Vec<Vec<usize>> = xs
        .iter()
        .zip(&e.inputs)
        .map(|(x, inp)| {
            let st = x.shape().strides();
            let mut per = vec![0usize; labels.len()];
            for (ax, c) in inp.iter().enumerate() {
                if let Some(l) = labels.iter().position(|d| d == c) {
                    per[l] += st[ax];
                }
            }
            per
        })
        .collect();
    let hosts = xs
        .iter()
        .map(|x| x.storage().backend().to_host(x.storage()))
        .collect::<Result<Vec<_>>>()?;
    macro_rules! go {
        ($var:ident) => {{
            let slices = hosts
                .iter()
                .map(|h| match h {
                    HostData::$var(v) => Ok(&v[..]),
                    _ => Err(Error::internal("einsum: mixed dtypes")),
                })
                .collect::<Result<Vec<_>>>()?;
            contract(&slices, &strides, &sizes, n_out)?
        }};
    }
    let data = match &hosts[0] {
        HostData::I8(_) => go!(I8),
        HostData::U8(_) => go!(U8),
        HostData::I16(_) => go!(I16),
        HostData::I32(_) => go!(I32),
        HostData::I64(_) => go!(I64),
        HostData::F16(_) => go!(F16),
        HostData::F32(_) => go!(F32),
        HostData::F64(_) => go!(F64),
        _ => return Err(attr_error("Einsum", dtype)),
    };
    let t = Tensor::from_host(data, shape, first.device())?;
    if n_out == e.output.len() {
        return Ok(t);
    }
    inflate(&t, &e.output, &labels[..n_out], &full_dims)
}

/// An output label repeated (`i->ii`): the values on the diagonal where the
/// repeated axes' coordinates agree, zeros elsewhere.
fn inflate(t: &Tensor, output: &[u8], uniq: &[u8], full_dims: &[usize]) -> Result<Tensor> {
    let full = Shape(full_dims.to_vec());
    let strides = full.strides();
    // each unique label's stride in the full output: the sum over its axes
    let per: Vec<usize> = uniq
        .iter()
        .map(|c| {
            output
                .iter()
                .zip(&strides)
                .filter(|(d, _)| *d == c)
                .map(|(_, s)| s)
                .sum()
        })
        .collect();
    let dims = t.dims();
    let mut at = Vec::with_capacity(t.numel());
    let mut coord = vec![0usize; dims.len()];
    for _ in 0..t.numel() {
        at.push(coord.iter().zip(&per).map(|(c, s)| c * s).sum());
        for k in (0..dims.len()).rev() {
            coord[k] += 1;
            if coord[k] < dims[k] {
                break;
            }
            coord[k] = 0;
        }
    }
    let mut out = Tensor::zeros(t.dtype(), full_dims, t.device())?;
    let inner = out.make_mut();
    let backend = inner.storage.backend();
    backend.scatter(&mut inner.storage, &at, t.storage())?;
    Ok(out)
}

/// `tf.einsum(equation, *inputs)` for one or two inputs: the `Einsum` op,
/// after `tf.einsum`'s check that no output label repeats.
pub fn einsum(eq: &str, xs: &[Tensor]) -> Result<Tensor> {
    if let Some((_, rhs)) = eq.split_once("->") {
        let mut seen = Vec::new();
        if rhs.bytes().filter(u8::is_ascii_alphabetic).any(|c| {
            let dup = seen.contains(&c);
            seen.push(c);
            dup
        }) {
            return Err(Error::value_error(format!(
                "Output subscripts contain a label appearing more than once: {eq}"
            )));
        }
    }
    match super::einsum_ellipsis::expand(eq, xs)? {
        Some((resolved, broadcast)) => einsum_op(&resolved, &broadcast),
        None => einsum_op(eq, xs),
    }
}

/// TensorFlow's `Einsum` op, which (unlike `tf.einsum`) puts a repeated
/// output label on a diagonal (`i->ii`, as einsum gradients emit). Tapes
/// record the equation with its output labels explicit, as the op holds it.
pub fn einsum_op(eq: &str, xs: &[Tensor]) -> Result<Tensor> {
    let refs: Vec<&Tensor> = xs.iter().collect();
    let gop = || {
        let resolved = match parse(eq, xs.len()) {
            Ok(e) => {
                let ins: Vec<String> = e
                    .inputs
                    .iter()
                    .map(|l| String::from_utf8_lossy(l).into_owned())
                    .collect();
                format!("{}->{}", ins.join(","), String::from_utf8_lossy(&e.output))
            }
            Err(_) => eq.to_string(),
        };
        GradOp::Einsum(resolved.into())
    };
    tape::primitive(gop, &refs, || einsum_impl(eq, xs))
}
