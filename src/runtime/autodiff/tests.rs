//! Finite-difference checks (float64, central differences) of every
//! gradient function, as `tf.test.compute_gradient` does: for each op the
//! tape's gradient of `sum(f(x) * w)` (fixed weights `w`, so no symmetry
//! hides an error) is compared with the numeric one.

use super::gradient_of;
use super::tape::Tape;
use crate::runtime::op::{BinaryOp, ReduceOp, Semantics, UnaryOp};
use crate::runtime::ops::{self, IndexItem, SplitSpec};
use crate::runtime::{Result, Tensor};

pub(super) fn t(v: &[f64], dims: &[usize]) -> Tensor {
    Tensor::from_vec(v.to_vec(), dims).unwrap()
}

/// Values in (lo, lo + 1), spread so no two are equal.
pub(super) fn spread(n: usize, lo: f64) -> Vec<f64> {
    (0..n)
        .map(|i| lo + ((i * 7 + 3) % 11) as f64 / 11.0 + i as f64 * 1e-3)
        .collect()
}

fn vals(x: &Tensor) -> Vec<f64> {
    x.as_slice::<f64>().unwrap().to_vec()
}

/// `sum(y * w)` with weights 1, 2, 3 … cycling.
fn weighted_sum(y: &Tensor) -> Result<Tensor> {
    let w: Vec<f64> = (0..y.numel()).map(|i| 1.0 + (i % 5) as f64 * 0.5).collect();
    let w = Tensor::from_vec(w, y.dims())?;
    ops::reduce(
        ReduceOp::Sum,
        &ops::binary(BinaryOp::Mul, y, &w)?,
        None,
        false,
    )
}

pub(super) type F<'a> = dyn Fn(&[Tensor]) -> Result<Tensor> + 'a;

pub(super) fn check(name: &str, f: &F<'_>, inputs: &[Tensor]) {
    let tape = Tape::new(false, true);
    tape.push();
    for x in inputs {
        tape.watch(x);
    }
    let y = f(inputs).and_then(|y| weighted_sum(&y));
    tape.pop();
    let y = y.unwrap_or_else(|e| panic!("{name}: forward failed: {}", e.message()));
    let ids: Vec<usize> = inputs.iter().map(Tensor::id).collect();
    let grads = gradient_of(&tape, &[y], &ids, &[], true, &mut |_, _| unreachable!())
        .unwrap_or_else(|e| panic!("{name}: gradient failed: {}", e.message()));
    let h = 1e-6;
    for (k, x) in inputs.iter().enumerate() {
        let base = vals(x);
        let analytic = match &grads[k] {
            Some(g) => {
                assert_eq!(
                    g.dims(),
                    x.dims(),
                    "{name}: gradient {k} has the wrong shape"
                );
                vals(g)
            }
            None => vec![0.0; base.len()],
        };
        for i in 0..base.len() {
            let at = |d: f64| {
                let mut v = base.clone();
                v[i] += d;
                let mut xs = inputs.to_vec();
                xs[k] = t(&v, x.dims());
                let y = weighted_sum(&f(&xs).unwrap()).unwrap();
                vals(&y)[0]
            };
            let numeric = (at(h) - at(-h)) / (2.0 * h);
            let err = (numeric - analytic[i]).abs();
            assert!(
                err <= 1e-5 * (1.0 + numeric.abs()),
                "{name}: d/dx{k}[{i}] analytic {} numeric {numeric}",
                analytic[i]
            );
        }
    }
}

#[test]
fn unary_ops() {
    for &op in UnaryOp::ALL {
        if op == UnaryOp::LogicalNot {
            continue;
        }
        // away from the kinks and discontinuities (0 for abs/relu/sign, integers for floor),
        // inside the domains (|x| < 1 for asin, acos and atanh; x > 1 for acosh)
        let inside: fn(f64) -> f64 = match op {
            UnaryOp::Asin | UnaryOp::Acos | UnaryOp::Atanh => |v| v * 0.7,
            UnaryOp::Acosh => |v| v + 1.0,
            _ => |v| v,
        };
        let x = t(
            &spread(6, 0.3).into_iter().map(inside).collect::<Vec<_>>(),
            &[2, 3],
        );
        check(op.name(), &|xs| ops::unary(op, &xs[0]), &[x]);
        let n = t(
            &spread(6, -1.4).iter().map(|v| v * 0.9).collect::<Vec<_>>(),
            &[2, 3],
        );
        if !op.float_only()
            || matches!(
                op,
                UnaryOp::Exp
                    | UnaryOp::Expm1
                    | UnaryOp::Erf
                    | UnaryOp::Erfc
                    | UnaryOp::Sin
                    | UnaryOp::Cos
                    | UnaryOp::Tanh
                    | UnaryOp::Sigmoid
                    | UnaryOp::Atan
                    | UnaryOp::Sinh
                    | UnaryOp::Cosh
                    | UnaryOp::Asinh
            )
        {
            check(op.name(), &|xs| ops::unary(op, &xs[0]), &[n]);
        }
    }
}

#[test]
fn binary_ops_broadcast() {
    let shapes: [(&[usize], &[usize]); 4] = [
        (&[2, 3], &[2, 3]),
        (&[2, 3], &[3]),
        (&[2, 1], &[1, 3]),
        (&[], &[2, 3]),
    ];
    for &op in BinaryOp::ALL {
        if op.is_comparison()
            || op.is_logical()
            || matches!(op, BinaryOp::FloorDiv | BinaryOp::TruncateDiv)
        {
            continue;
        }
        for (sa, sb) in shapes {
            let na: usize = sa.iter().product();
            let nb: usize = sb.iter().product();
            let a = t(&spread(na, 1.2), sa);
            let b = t(
                &spread(nb, 0.4).iter().map(|v| v + 0.05).collect::<Vec<_>>(),
                sb,
            );
            check(
                op.name(),
                &|xs| ops::binary(op, &xs[0], &xs[1]),
                &[a.clone(), b.clone()],
            );
        }
    }
}

#[test]
fn reductions() {
    let x = t(&spread(24, 0.5), &[2, 3, 4]);
    for &op in ReduceOp::ALL {
        if matches!(op, ReduceOp::Any | ReduceOp::All) {
            continue;
        }
        for axes in [None, Some(vec![1]), Some(vec![0, 2]), Some(vec![-1])] {
            for keep in [false, true] {
                let a = axes.clone();
                check(
                    op.name(),
                    &move |xs| ops::reduce(op, &xs[0], a.as_deref(), keep),
                    std::slice::from_ref(&x),
                );
            }
        }
    }
}

#[test]
fn matmuls() {
    let a = t(&spread(6, -0.5), &[2, 3]);
    let b = t(&spread(6, 0.2), &[3, 2]);
    for (ta, tb) in [(false, false), (true, true)] {
        check(
            "MatMul",
            &move |xs| ops::matmul(&xs[0], &xs[1], ta, tb),
            &[a.clone(), b.clone()],
        );
    }
    let at = t(&spread(6, -0.5), &[3, 2]);
    check(
        "MatMul ta",
        &|xs| ops::matmul(&xs[0], &xs[1], true, false),
        &[at.clone(), b.clone()],
    );
    check(
        "MatMul tb",
        &|xs| ops::matmul(&xs[0], &xs[1], false, true),
        &[a.clone(), t(&spread(6, 0.1), &[2, 3])],
    );
    let batch = t(&spread(12, 0.1), &[2, 2, 3]);
    check(
        "BatchMatMulV2",
        &|xs| ops::matmul(&xs[0], &xs[1], false, false),
        &[batch, b],
    );
}

#[test]
fn shape_ops() {
    let x = t(&spread(24, -0.5), &[2, 3, 4]);
    let one = |name: &str, f: &F| check(name, f, std::slice::from_ref(&x));
    one("Reshape", &|xs| {
        ops::reshape(&xs[0], &[4, 6], Semantics::Tf)
    });
    one("ExpandDims", &|xs| ops::expand_dims(&xs[0], 1));
    one("Transpose", &|xs| ops::transpose(&xs[0], Some(&[2, 0, 1])));
    one("ConcatV2", &|xs| {
        ops::concat(&[xs[0].clone(), ops::unary(UnaryOp::Square, &xs[0])?], 1)
    });
    one("Pack", &|xs| {
        ops::stack(&[xs[0].clone(), ops::unary(UnaryOp::Exp, &xs[0])?], 2)
    });
    one("Unpack", &|xs| Ok(ops::unstack(&xs[0], 1)?[2].clone()));
    one("SplitV", &|xs| {
        Ok(ops::split(&xs[0], &SplitSpec::Sizes(vec![1, 3]), 2)?[1].clone())
    });
    one("Tile", &|xs| ops::tile(&xs[0], &[2, 1, 3]));
    one("Roll", &|xs| ops::reorder::roll(&xs[0], &[1, 0, 3]));
    one("ReverseV2", &|xs| ops::reorder::reverse(&xs[0], &[0, 2]));
    one("BroadcastTo", &|xs| {
        ops::broadcast_to(
            &ops::reshape(&xs[0], &[2, 3, 1, 4], Semantics::Tf)?,
            &[2, 3, 5, 4],
        )
    });
    let idx = Tensor::from_vec(vec![1i32, 0, 1], &[3]).unwrap();
    for axis in [0i64, 1, 2] {
        let i = idx.clone();
        one("GatherV2", &move |xs| ops::gather(&xs[0], &i, axis));
    }
    // batch_dims 1: indices [2, 2] into params [2, 3, 4] along axis 1 and 2
    let bidx = Tensor::from_vec(vec![2i32, 2, 0, 1], &[2, 2]).unwrap();
    for axis in [1i64, 2] {
        let i = bidx.clone();
        one("GatherV2 batch_dims", &move |xs| {
            ops::gather_batched(&xs[0], &i, axis, 1)
        });
    }
    let bidx2 = Tensor::from_vec(vec![3i64, 0, 0, 1, 2, 2], &[2, 3, 1]).unwrap();
    one("GatherV2 batch_dims 2", &move |xs| {
        ops::gather_batched(&xs[0], &bidx2, 2, -1)
    });
    one("StridedSlice", &|xs| {
        let items = [
            IndexItem::Int(1),
            IndexItem::Slice {
                start: Some(1),
                stop: None,
                step: None,
            },
            IndexItem::Slice {
                start: None,
                stop: None,
                step: Some(-2),
            },
        ];
        ops::index(&xs[0], &items, Semantics::Tf)
    });
    one("Select", &|xs| {
        let c = ops::binary(BinaryOp::Greater, &xs[0], &Tensor::scalar(0.0f64))?;
        ops::where_select(&c, &xs[0], &ops::unary(UnaryOp::Square, &xs[0])?)
    });
    one("AddN", &|xs| {
        ops::add_n(&[
            xs[0].clone(),
            ops::unary(UnaryOp::Sin, &xs[0])?,
            xs[0].clone(),
        ])
    });
    for (ex, rev) in [(false, false), (true, true)] {
        one("Cumsum", &move |xs| {
            ops::scan::cumulative(&xs[0], 1, ex, rev, false)
        });
    }
    let ids = Tensor::from_vec(vec![0i32, 0, 1], &[3]).unwrap();
    check(
        "SegmentSum",
        &|xs| ops::segment::segment_sum(&xs[0], &ids),
        &[t(&spread(6, 0.1), &[3, 2])],
    );
}

#[test]
fn nn_ops() {
    let x = t(
        &spread(12, -0.6).iter().map(|v| v * 3.0).collect::<Vec<_>>(),
        &[3, 4],
    );
    let one = |name: &str, f: &F| check(name, f, std::slice::from_ref(&x));
    one("Softmax", &|xs| ops::nn::softmax(&xs[0], -1, false));
    one("Softmax axis 0", &|xs| ops::nn::softmax(&xs[0], 0, false));
    one("LogSoftmax", &|xs| ops::nn::softmax(&xs[0], -1, true));
    one("Relu6", &|xs| ops::nn::relu6(&xs[0]));
    one("LeakyRelu", &|xs| ops::nn::leaky_relu(&xs[0], 0.2));
    one("Elu", &|xs| ops::nn::elu(&xs[0]));
    one("Selu", &|xs| ops::nn::selu(&xs[0]));
    one("Softplus", &|xs| ops::nn::softplus(&xs[0]));
    one("l2_normalize", &|xs| {
        ops::nn::l2_normalize(&xs[0], Some(&[1]), &Tensor::scalar(1e-12f64))
    });
}

#[test]
fn higher_order() {
    // d²/dx² x³ = 6x through nested tapes
    let x = Tensor::scalar(1.5f64);
    let outer = Tape::new(false, true);
    outer.push();
    outer.watch(&x);
    let inner = Tape::new(false, true);
    inner.push();
    inner.watch(&x);
    let y = ops::binary(BinaryOp::Mul, &ops::unary(UnaryOp::Square, &x).unwrap(), &x).unwrap();
    inner.pop();
    let g = gradient_of(
        &inner,
        &[y],
        &[x.id()],
        &[],
        true,
        &mut |_, _| unreachable!(),
    )
    .unwrap();
    let dy = g[0].clone().unwrap();
    outer.pop();
    let g2 = gradient_of(
        &outer,
        std::slice::from_ref(&dy),
        &[x.id()],
        &[],
        true,
        &mut |_, _| unreachable!(),
    )
    .unwrap();
    assert_eq!(vals(&dy), vec![6.75]);
    assert_eq!(vals(&g2[0].clone().unwrap()), vec![9.0]);
}

#[test]
fn no_tape_records_nothing() {
    assert!(!super::tape::active());
    let x = Tensor::scalar(1.0f64);
    let tape = Tape::new(false, true);
    let _ = ops::unary(UnaryOp::Exp, &x).unwrap();
    assert!(tape.data.borrow().entries.is_empty());
}

#[test]
fn cast_gradient_returns_to_the_input_dtype() {
    let x = t(&[1.5, -2.0], &[2]);
    let tape = Tape::new(false, true);
    tape.push();
    tape.watch(&x);
    let y = ops::cast(&x, crate::runtime::DType::Float32).unwrap();
    let y = ops::binary(BinaryOp::Mul, &y, &Tensor::scalar(3.0f32)).unwrap();
    let i = ops::cast(&x, crate::runtime::DType::Int32).unwrap();
    let back = ops::cast(&i, crate::runtime::DType::Float64).unwrap();
    tape.pop();
    let g = gradient_of(
        &tape,
        &[y],
        &[x.id()],
        &[],
        false,
        &mut |_, _| unreachable!(),
    )
    .unwrap();
    let g = g[0].clone().unwrap();
    assert_eq!(g.dtype(), crate::runtime::DType::Float64);
    assert_eq!(vals(&g), vec![3.0, 3.0]);
    // through an integer there is no gradient
    let g = gradient_of(
        &tape,
        &[back],
        &[x.id()],
        &[],
        true,
        &mut |_, _| unreachable!(),
    )
    .unwrap();
    assert!(g[0].is_none());
}

#[test]
fn a_complex_path_marks_the_tape() {
    // dist has no complex gradients: a tape that saw a complex value from a
    // followed tensor (or watched one) says so, and `gradient` refuses
    let x = t(&[1.5, -2.0], &[2]);
    let tape = Tape::new(false, true);
    tape.push();
    tape.watch(&x);
    let _real = ops::binary(BinaryOp::Mul, &x, &x).unwrap();
    assert!(!tape.saw_complex());
    let z = ops::complex::complex(&x, &x).unwrap();
    let _ = ops::complex::part(ops::complex::ComplexOp::Abs, &z).unwrap();
    tape.pop();
    assert!(tape.saw_complex());
    let watched = Tape::new(false, true);
    watched.watch(&ops::cast(&x, crate::runtime::DType::Complex64).unwrap());
    assert!(watched.saw_complex());
}
