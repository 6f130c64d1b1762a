//! `choice`, `shuffle` and `permutation` of numpy's `RandomState` and
//! `Generator`: the same draws numpy makes (Fisher–Yates partners by
//! `random_interval`, bounded integers, a cdf searched for `p=`), the
//! results in numpy's types.

use super::array::{wrap, wrap_array};
use super::random_draw::{count, draw_n, size_arg, Api, Cell};
use super::{to_np_tensor, NdArray};
use crate::modules::tf::convert::runtime_err;
use crate::object::types::{type_error, value_error};
use crate::runtime::random::numpy::{
    bounded, choice_without_replacement, random_interval, shuffled_indices, Buffer, Width,
};
use crate::runtime::{ops, DType, Device, Tensor};
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};

/// The two APIs' wording of one error.
fn msg(api: Api, legacy: &str, generator: &str) -> PyErr {
    value_error(if api == Api::Legacy {
        legacy
    } else {
        generator
    })
}

/// numpy's `kahan_sum` of the probabilities.
fn kahan_sum(p: &[f64]) -> f64 {
    let Some((&first, rest)) = p.split_first() else {
        return 0.0;
    };
    let (mut sum, mut c) = (first, 0.0);
    for &x in rest {
        let y = x - c;
        let t = sum + y;
        c = (t - sum) - y;
        sum = t;
    }
    sum
}

/// The normalised cdf of `p` (`p.cumsum()` then `/= cdf[-1]`).
fn cdf(p: &[f64]) -> Vec<f64> {
    let mut acc = 0.0;
    let mut c: Vec<f64> = p
        .iter()
        .map(|&x| {
            acc += x;
            acc
        })
        .collect();
    let last = c.last().copied().unwrap_or(1.0);
    for x in &mut c {
        *x /= last;
    }
    c
}

/// `cdf.searchsorted(u, side='right')`.
fn search_right(cdf: &[f64], u: f64) -> i64 {
    cdf.partition_point(|&c| c <= u) as i64
}

/// `choice(a, size, replace, p)` (the Generator's `axis` is 0, `shuffle` its flag).
#[allow(clippy::too_many_arguments)]
pub fn choice(
    vm: &dyn Vm,
    cell: &Cell,
    a: &Value,
    size: &Value,
    replace: bool,
    p: &Value,
    shuffle: bool,
    api: Api,
) -> PyResult<Value> {
    let arr = to_np_tensor(vm, a, None)?;
    let shape = size_arg(vm, size)?;
    let n = match &shape {
        Some(d) => count(d)?,
        None => 1,
    };
    let pop: u64 = if arr.rank() == 0 {
        let i = match arr.get(0) {
            Some(crate::runtime::Scalar::Int(i)) if arr.dtype() != DType::Bool => i,
            _ => {
                return Err(if api == Api::Legacy {
                    value_error("a must be 1-dimensional or an integer")
                } else {
                    value_error(format!(
                        "a must be a sequence or an integer, not {}",
                        vm.repr(&vm.type_of(a))?
                    ))
                })
            }
        };
        if i <= 0 && n != 0 {
            return Err(msg(
                api,
                "a must be greater than 0 unless no samples are taken",
                "a must be a positive integer unless no samples are taken",
            ));
        }
        i.max(0) as u64
    } else {
        if api == Api::Legacy && arr.rank() != 1 {
            return Err(value_error("a must be 1-dimensional"));
        }
        if arr.dtype() == DType::String {
            return Err(PyErr::new(
                ExcType::NotImplementedError,
                "np.random choice over an array of strings is not supported in dist",
            ));
        }
        let len = arr.dims()[0] as u64;
        if len == 0 && n != 0 {
            return Err(msg(
                api,
                "'a' cannot be empty unless no samples are taken",
                "a cannot be empty unless no samples are taken",
            ));
        }
        len
    };
    let p = match p {
        Value::None => None,
        p => Some(probabilities(vm, p, pop, api)?),
    };
    let dims = shape.clone().unwrap_or_default();
    let idx: Vec<i64> = if replace {
        let mut rng = cell.borrow_mut();
        match &p {
            Some(p) => {
                let c = cdf(p);
                draw_n(n, || search_right(&c, rng.bits.next_double()))?
            }
            None => {
                let masked = api == Api::Legacy;
                let mut buf = Buffer::default();
                let r = pop.saturating_sub(1);
                draw_n(n, || {
                    bounded(&mut rng.bits, r, Width::W64, masked, &mut buf) as i64
                })?
            }
        }
    } else {
        if n as u64 > pop {
            return Err(msg(
                api,
                "Cannot take a larger sample than population when 'replace=False'",
                "Cannot take a larger sample than population when replace is False",
            ));
        }
        match p {
            Some(p) => without_replacement_p(cell, p, n)?,
            None => {
                let mut rng = cell.borrow_mut();
                if api == Api::Legacy {
                    let perm =
                        shuffled_indices(&mut rng.bits, pop as usize).map_err(runtime_err)?;
                    perm[..n].iter().map(|&i| i as i64).collect()
                } else {
                    choice_without_replacement(&mut rng.bits, pop, n as u64, shuffle)
                        .map_err(runtime_err)?
                }
            }
        }
    };
    let idx_t = Tensor::from_vec(idx, &dims).map_err(runtime_err)?;
    if arr.rank() == 0 {
        return Ok(match shape {
            None => Value::Int(idx_t.get(0).map_or(0, |s| s.as_f64() as i64)),
            Some(_) => wrap_array(idx_t),
        });
    }
    let picked = ops::gather(&arr, &idx_t, 0).map_err(runtime_err)?;
    Ok(match shape {
        None if arr.rank() == 1 => wrap(picked),
        _ => wrap_array(picked),
    })
}

/// `p=` checked as numpy checks it, as doubles.
fn probabilities(vm: &dyn Vm, p: &Value, pop: u64, api: Api) -> PyResult<Vec<f64>> {
    let t = to_np_tensor(vm, p, None)?;
    let mut atol = f64::EPSILON.sqrt();
    // a float32 or float16 array of probabilities gets its own type's tolerance
    let own_eps = match t.dtype() {
        DType::Float32 => Some(f32::EPSILON as f64),
        DType::Float16 => Some(2f64.powi(-10)),
        _ => None,
    };
    if let (Some(eps), true) = (own_eps, p.downcast::<NdArray>().is_some()) {
        atol = atol.max(eps.sqrt());
    }
    if t.rank() != 1 {
        return Err(msg(
            api,
            "'p' must be 1-dimensional",
            "p must be 1-dimensional",
        ));
    }
    let v: Vec<f64> = t.to_scalars().iter().map(|s| s.as_f64()).collect();
    if v.len() as u64 != pop {
        return Err(msg(
            api,
            "'a' and 'p' must have same size",
            "a and p must have same size",
        ));
    }
    let sum = kahan_sum(&v);
    if sum.is_nan() {
        return Err(msg(
            api,
            "probabilities contain NaN",
            "Probabilities contain NaN",
        ));
    }
    if v.iter().any(|&x| x < 0.0) {
        return Err(msg(
            api,
            "probabilities are not non-negative",
            "Probabilities are not non-negative",
        ));
    }
    if (sum - 1.0).abs() > atol {
        return Err(msg(
            api,
            "probabilities do not sum to 1",
            "Probabilities do not sum to 1. See Notes section of docstring for more information.",
        ));
    }
    Ok(v)
}

/// `replace=False` with `p=`: rounds of uniform draws over the cdf of the
/// probabilities not yet picked, keeping each round's new values in the
/// order they first appear.
fn without_replacement_p(cell: &Cell, mut p: Vec<f64>, n: usize) -> PyResult<Vec<i64>> {
    if p.iter().filter(|&&x| x > 0.0).count() < n {
        return Err(value_error("Fewer non-zero entries in p than size"));
    }
    let mut found: Vec<i64> = Vec::new();
    let mut rng = cell.borrow_mut();
    while found.len() < n {
        let u = draw_n(n - found.len(), || rng.bits.next_double())?;
        for &i in &found {
            p[i as usize] = 0.0;
        }
        let c = cdf(&p);
        let mut seen = std::collections::HashSet::new();
        for x in u {
            let i = search_right(&c, x);
            if seen.insert(i) {
                found.push(i);
            }
        }
    }
    Ok(found)
}

/// `shuffle(x)` along `axis`: arrays and lists in place, other mutable
/// sequences through their items.
pub fn shuffle(vm: &dyn Vm, cell: &Cell, x: &Value, axis: i64) -> PyResult<()> {
    if let Some(a) = x.downcast::<NdArray>() {
        let t = a.tensor();
        if t.rank() == 0 {
            return Err(type_error(if a.scalar {
                format!(
                    "object of type 'numpy.{}' has no len()",
                    t.dtype().numpy_name()
                )
            } else {
                "len() of unsized object".to_string()
            }));
        }
        let ax = if axis < 0 {
            axis + t.rank() as i64
        } else {
            axis
        };
        if ax < 0 || ax >= t.rank() as i64 {
            return Err(PyErr::new(
                ExcType::AxisError,
                format!(
                    "axis {axis} is out of bounds for array of dimension {}",
                    t.rank()
                ),
            ));
        }
        if t.numel() == 0 {
            return Ok(());
        }
        let n = t.dims()[ax as usize];
        let perm = shuffled_indices(&mut cell.borrow_mut().bits, n).map_err(runtime_err)?;
        let idx: Vec<i64> = perm.iter().map(|&i| i as i64).collect();
        let it = Tensor::from_vec(idx, &[n]).map_err(runtime_err)?;
        let shuffled = ops::gather(&t, &it, ax).map_err(runtime_err)?;
        *a.t.borrow_mut() = shuffled;
        return Ok(());
    }
    if axis != 0 {
        return Err(PyErr::new(
            ExcType::NotImplementedError,
            "Axis argument is only supported on ndarray objects",
        ));
    }
    let n = vm.len(x)?;
    // the partners first, so no borrow is held while items are assigned
    let partners: Vec<(usize, usize)> = {
        let mut rng = cell.borrow_mut();
        (1..n)
            .rev()
            .map(|i| (i, random_interval(&mut rng.bits, i as u64) as usize))
            .collect()
    };
    if let Value::List(l) = x {
        let mut l = l.borrow_mut();
        for (i, j) in partners {
            if i < l.len() && j < l.len() {
                l.swap(i, j);
            }
        }
        return Ok(());
    }
    for (i, j) in partners {
        let (ki, kj) = (Value::Int(i as i64), Value::Int(j as i64));
        let (xi, xj) = (vm.getitem(x, &ki)?, vm.getitem(x, &kj)?);
        vm.setitem(x, &ki, xj)?;
        vm.setitem(x, &kj, xi)?;
    }
    Ok(())
}

/// `permutation(x)`: a shuffled `arange(x)` for an int, else a shuffled
/// copy of the array along `axis`.
pub fn permutation(vm: &dyn Vm, cell: &Cell, x: &Value, axis: i64, api: Api) -> PyResult<Value> {
    let int = match x {
        Value::Int(i) => Some(*i),
        Value::Native(n) => n
            .as_any()
            .downcast_ref::<NdArray>()
            .filter(|a| a.scalar && a.tensor().dtype().is_integer())
            .and_then(|a| a.tensor().get(0))
            .map(|s| s.as_f64() as i64),
        _ => None,
    };
    let arr = match int {
        Some(n) => {
            if n < 0 {
                return Err(value_error("negative dimensions are not allowed"));
            }
            let t = Tensor::zeros(DType::Int64, &[0], Device::CPU0).map_err(runtime_err)?;
            if n == 0 {
                t
            } else {
                ops::range(
                    &crate::runtime::Scalar::Int(0),
                    &crate::runtime::Scalar::Int(n),
                    &crate::runtime::Scalar::Int(1),
                    DType::Int64,
                    Device::CPU0,
                )
                .map_err(runtime_err)?
            }
        }
        None => {
            let t = to_np_tensor(vm, x, None)?;
            if t.rank() == 0 {
                return Err(if api == Api::Legacy {
                    PyErr::new(
                        ExcType::IndexError,
                        "x must be an integer or at least 1-dimensional",
                    )
                } else {
                    value_error(format!(
                        "axis {axis} is out of bounds for array of dimension 0"
                    ))
                });
            }
            t
        }
    };
    let out = wrap_array(arr);
    shuffle(vm, cell, &out, axis)?;
    Ok(out)
}
