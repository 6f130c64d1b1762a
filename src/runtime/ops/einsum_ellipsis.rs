//! `tf.einsum`'s ellipses: each `...` stands for an operand's unlabelled
//! leading-or-middle dims, broadcast (NumPy's rule, right-aligned) across
//! the operands. They become fresh labels (letters the equation does not
//! use) and the operands are broadcast where a dim of 1 meets a larger
//! one, so `einsum` proper sees an equation without ellipses; the
//! broadcast is a recorded op whose gradient sums back.

use crate::runtime::error::{Error, ErrorKind, Result};
use crate::runtime::tensor::Tensor;

/// TensorFlow's kernel error for the `Einsum` node of `n` operands.
fn kernel(
    dtype: crate::runtime::DType,
    n: usize,
    device: &crate::runtime::Device,
    msg: &str,
) -> Error {
    let node = if dtype == crate::runtime::DType::Float32 {
        format!("__MklEinsum_N_{n}")
    } else {
        format!("Einsum_N_{n}")
    };
    Error::kernel(
        ErrorKind::InvalidArgument,
        &node,
        device,
        msg,
        "Einsum",
        " name: ",
    )
}

fn dims_text(d: &[usize]) -> String {
    let parts: Vec<String> = d.iter().map(|x| x.to_string()).collect();
    format!("[{}]", parts.join(","))
}

/// One subscript term split at its ellipsis: the labels before and after
/// it, or `None` without one.
type Term = (Vec<u8>, Option<Vec<u8>>);

fn split_term(t: &str, eq: &str) -> Result<Term> {
    let bad = || Error::value_error(format!("Subscripts have incorrect format: {eq}"));
    match t.split_once("...") {
        None if t.contains('.') => Err(bad()),
        None => Ok((t.as_bytes().to_vec(), None)),
        Some((a, b)) if a.contains('.') || b.contains('.') => Err(bad()),
        Some((a, b)) => Ok((a.as_bytes().to_vec(), Some(b.as_bytes().to_vec()))),
    }
}

/// The equation with its ellipses replaced by fresh labels and the
/// operands broadcast to match, or `None` when it has no ellipsis.
pub(super) fn expand(eq: &str, xs: &[Tensor]) -> Result<Option<(String, Vec<Tensor>)>> {
    let compact: String = eq.chars().filter(|c| !c.is_whitespace()).collect();
    if !compact.contains('.') {
        return Ok(None);
    }
    let (lhs, rhs) = match compact.split_once("->") {
        Some((l, r)) => (l, Some(r)),
        None => (compact.as_str(), None),
    };
    let terms = lhs
        .split(',')
        .map(|t| split_term(t, eq))
        .collect::<Result<Vec<_>>>()?;
    if terms.len() != xs.len() {
        return Err(Error::value_error(format!(
            "Got {} inputs for equation \"{eq}\", expecting {}",
            xs.len(),
            terms.len()
        )));
    }
    let Some(first) = xs.first() else {
        return Ok(None);
    };
    let (dtype, device) = (first.dtype(), first.device());
    let n = xs.len();
    // each operand's ellipsis dims
    let mut ell: Vec<&[usize]> = Vec::with_capacity(n);
    for (i, ((pre, post), x)) in terms.iter().zip(xs).enumerate() {
        let Some(post) = post else {
            ell.push(&[]);
            continue;
        };
        let labelled = pre.len() + post.len();
        if x.rank() < labelled {
            return Err(kernel(
                dtype,
                n,
                &device,
                &format!(
                    "Expected input {i} to have rank at least {labelled} but got: {}",
                    x.rank()
                ),
            ));
        }
        ell.push(&x.dims()[pre.len()..x.rank() - post.len()]);
    }
    // the broadcast batch shape, right-aligned
    let rank = ell.iter().map(|e| e.len()).max().unwrap_or(0);
    let mut batch = vec![1usize; rank];
    for (i, e) in ell.iter().enumerate() {
        for (k, &d) in e.iter().enumerate() {
            let b = &mut batch[rank - e.len() + k];
            if *b == 1 {
                *b = d;
            } else if d != 1 && d != *b {
                let j = (0..i)
                    .find(|&j| {
                        let f = ell[j];
                        f.len() + k >= e.len()
                            && matches!(f.get(f.len() + k - e.len()), Some(&g) if g != 1 && g != d)
                    })
                    .unwrap_or(0);
                return Err(kernel(
                    dtype,
                    n,
                    &device,
                    &format!(
                        "In[{j}] and In[{i}] must have compatible batch dimensions: {} vs. {}",
                        dims_text(xs[j].dims()),
                        dims_text(xs[i].dims())
                    ),
                ));
            }
        }
    }
    // fresh labels for the batch dims
    let fresh: Vec<u8> = (b'A'..=b'Z')
        .chain(b'a'..=b'z')
        .filter(|c| !compact.as_bytes().contains(c))
        .take(rank)
        .collect();
    if fresh.len() < rank {
        return Err(Error::new(
            ErrorKind::Unimplemented,
            "tf.einsum: too many labels and ellipsis dims for dist's one-letter labels",
        ));
    }
    let mut ins = Vec::with_capacity(n);
    let mut operands = Vec::with_capacity(n);
    for ((pre, post), (x, e)) in terms.iter().zip(xs.iter().zip(&ell)) {
        let mut t = pre.clone();
        if let Some(post) = post {
            t.extend_from_slice(&fresh[rank - e.len()..]);
            t.extend_from_slice(post);
        }
        ins.push(String::from_utf8_lossy(&t).into_owned());
        // a batch dim of 1 against a larger one: broadcast it
        let mut target = x.dims().to_vec();
        for (k, &d) in e.iter().enumerate() {
            if d == 1 {
                target[pre.len() + k] = batch[rank - e.len() + k];
            }
        }
        operands.push(if target.as_slice() == x.dims() {
            x.clone()
        } else {
            super::broadcast_to(x, &target)?
        });
    }
    let out = match rhs {
        Some(r) => {
            let (pre, post) = split_term(r, eq)?;
            match post {
                Some(post) => {
                    let mut o = pre;
                    o.extend_from_slice(&fresh);
                    o.extend_from_slice(&post);
                    o
                }
                None => pre,
            }
        }
        None => {
            // implicit: the labels that appear once, in alphabetical order
            let all: Vec<u8> = terms
                .iter()
                .flat_map(|(a, b)| a.iter().chain(b.iter().flatten()).copied())
                .collect();
            let mut once: Vec<u8> = all
                .iter()
                .copied()
                .filter(|c| all.iter().filter(|d| *d == c).count() == 1)
                .collect();
            once.sort_unstable();
            once
        }
    };
    let has_ellipsis_out = rhs.is_some_and(|r| r.contains("..."));
    if rank > 0 && !has_ellipsis_out {
        return Err(kernel(
            dtype,
            n,
            &device,
            &format!(
                "Output contains {rank} broadcasting dimension(s) but no ellipsis (...) was found \
                 in the output subscripts."
            ),
        ));
    }
    let resolved = format!("{}->{}", ins.join(","), String::from_utf8_lossy(&out));
    Ok(Some((resolved, operands)))
}
