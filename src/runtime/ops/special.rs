//! TensorFlow's special-function ops: `Lgamma`, `Digamma`, `Erfinv`,
//! `Ndtri` (one input), `Igamma`, `Igammac`, `IgammaGradA`, `Zeta`,
//! `Polygamma` (two, broadcast) and `Betainc` (three: equal shapes or
//! scalars). One op each for the tapes and graphs, with TensorFlow's
//! dtype and shape errors and its registered gradients (`math_grad.py`).
//! The element functions are `backend::cpu::special`; other devices run
//! them on a host copy.

use crate::runtime::autodiff::{tape, GradOp};
use crate::runtime::backend::cpu::special::{self as k, Real, Z};
use crate::runtime::dtype::{DType, Scalar};
use crate::runtime::error::{Error, Result};
use crate::runtime::op::UnaryOp;
use crate::runtime::ops::{self, dtype_mismatch, kernel_error, zero_safe};
use crate::runtime::shape::Shape;
use crate::runtime::storage::HostData;
use crate::runtime::tensor::Tensor;
use crate::runtime::Device;

/// Which of the ops.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Special {
    /// `log |Γ(x)|`.
    Lgamma,
    /// `ψ(x)`, the derivative of `lgamma`.
    Digamma,
    /// The inverse error function.
    Erfinv,
    /// The inverse of the standard normal CDF.
    Ndtri,
    /// `P(a, x)`, the regularized lower incomplete gamma function.
    Igamma,
    /// `Q(a, x) = 1 - P(a, x)`.
    Igammac,
    /// `∂P(a, x)/∂a`.
    IgammaGradA,
    /// Hurwitz's zeta function `ζ(x, q)`.
    Zeta,
    /// `ψ⁽ᵃ⁾(x)`.
    Polygamma,
    /// `I_x(a, b)`, the regularized incomplete beta function.
    Betainc,
}

impl Special {
    /// Every op.
    pub const ALL: &'static [Special] = &[
        Special::Lgamma,
        Special::Digamma,
        Special::Erfinv,
        Special::Ndtri,
        Special::Igamma,
        Special::Igammac,
        Special::IgammaGradA,
        Special::Zeta,
        Special::Polygamma,
        Special::Betainc,
    ];

    /// TensorFlow's op type.
    pub const fn name(self) -> &'static str {
        match self {
            Special::Lgamma => "Lgamma",
            Special::Digamma => "Digamma",
            Special::Erfinv => "Erfinv",
            Special::Ndtri => "Ndtri",
            Special::Igamma => "Igamma",
            Special::Igammac => "Igammac",
            Special::IgammaGradA => "IgammaGradA",
            Special::Zeta => "Zeta",
            Special::Polygamma => "Polygamma",
            Special::Betainc => "Betainc",
        }
    }

    /// The op of TensorFlow type `name`.
    pub fn from_name(name: &str) -> Option<Special> {
        Special::ALL.iter().copied().find(|s| s.name() == name)
    }

    /// How many inputs it takes.
    pub const fn arity(self) -> usize {
        match self {
            Special::Lgamma | Special::Digamma | Special::Erfinv | Special::Ndtri => 1,
            Special::Betainc => 3,
            _ => 2,
        }
    }

    /// Whether TensorFlow's CPU kernels take half (the others' half is
    /// registered for XLA only).
    const fn half_kernel(self) -> bool {
        matches!(self, Special::Lgamma | Special::Digamma)
    }

    /// Whether TensorFlow registers it for half and bfloat16 too.
    const fn halves(self) -> bool {
        matches!(
            self,
            Special::Lgamma
                | Special::Digamma
                | Special::Erfinv
                | Special::Ndtri
                | Special::Igamma
                | Special::Igammac
        )
    }

    /// The signature TensorFlow prints in its registration.
    const fn signature(self) -> &'static str {
        match self {
            Special::Lgamma | Special::Digamma | Special::Erfinv | Special::Ndtri => "x:T -> y:T",
            Special::Zeta => "x:T, q:T -> z:T",
            Special::Betainc => "a:T, b:T, x:T -> z:T",
            _ => "a:T, x:T -> z:T",
        }
    }

    /// TensorFlow's error for a dtype it is not registered for.
    fn attr_error(self, d: DType) -> Error {
        let allowed = if self.halves() {
            "bfloat16, half, float, double"
        } else {
            "float, double"
        };
        let dts: Vec<String> = allowed
            .split(", ")
            .map(|n| format!("DT_{}", n.to_ascii_uppercase()))
            .collect();
        let op = self.name();
        Error::invalid_argument(format!(
            "Value for attr 'T' of {} is not in the list of allowed values: {allowed}\n\t; NodeDef: {{{{node {op}}}}}; Op<name={op}; signature={}; attr=T:type,allowed=[{}]> [Op:{op}] name: ",
            d.kernel_name(),
            self.signature(),
            dts.join(", ")
        ))
    }

    /// One element in `T` (`packet`: Eigen's vectorised path).
    fn element<T: Real>(self, v: &[T], packet: bool) -> T {
        match self {
            Special::Lgamma => k::lgamma(v[0]),
            Special::Digamma => k::digamma(v[0]),
            Special::Erfinv => k::erfinv(v[0], packet),
            Special::Ndtri => k::ndtri(v[0], packet),
            Special::Igamma => k::igamma(v[0], v[1]),
            Special::Igammac => k::igammac(v[0], v[1]),
            Special::IgammaGradA => k::igamma_der_a(v[0], v[1]),
            Special::Zeta => k::zeta(v[0], v[1]),
            Special::Polygamma => k::polygamma(v[0], v[1]),
            Special::Betainc => k::betainc(v[0], v[1], v[2]),
        }
    }
}

/// `op(inputs…)`, recorded on the tapes.
pub fn special(op: Special, inputs: &[&Tensor]) -> Result<Tensor> {
    tape::primitive(|| GradOp::Special(op), inputs, || run(op, inputs))
}

/// The output shape: broadcast for two inputs; for `Betainc` the
/// non-scalar shapes must agree.
fn out_shape(op: Special, ins: &[&Tensor]) -> Result<Shape> {
    let name = op.name();
    if op != Special::Betainc {
        if ins.len() == 1 {
            return Ok(ins[0].shape().clone());
        }
        return super::elementwise::broadcast_shape(
            name,
            ins[0],
            ins[1],
            crate::runtime::Semantics::Tf,
        );
    }
    let dims = |t: &Tensor| {
        let d: Vec<String> = t.dims().iter().map(|d| d.to_string()).collect();
        format!("[{}]", d.join(","))
    };
    let mut merged = ins[0].shape().clone();
    for (i, j, ni, nj) in [(0, 1, "a", "b"), (0, 2, "a", "x"), (1, 2, "b", "x")] {
        let (p, q) = (ins[i], ins[j]);
        if p.rank() > 0 && q.rank() > 0 && p.dims() != q.dims() {
            let msg = format!(
                "Shapes of {ni} and {nj} are inconsistent: {} vs. {}",
                dims(p),
                dims(q)
            );
            return Err(kernel_error(name, &p.device(), &msg, " name: "));
        }
    }
    for t in &ins[1..] {
        if t.rank() > 0 {
            merged = t.shape().clone();
        }
    }
    Ok(merged)
}

fn run(op: Special, ins: &[&Tensor]) -> Result<Tensor> {
    let name = op.name();
    let device = ins[0].device();
    let _trace = crate::runtime::trace::op(name, device);
    let d = ins[0].dtype();
    for (i, t) in ins.iter().enumerate().skip(1) {
        if t.dtype() != d {
            return Err(dtype_mismatch(name, i, d, t.dtype(), " name: "));
        }
    }
    match d {
        DType::Float32 | DType::Float64 => {}
        DType::Float16 if op.half_kernel() => {}
        DType::Float16 if op.halves() => {
            return Err(Error::new(
                crate::runtime::ErrorKind::NotFound,
                format!(
                    "Could not find device for node: {{{{node {name}}}}} = {name}[T=DT_HALF]\nAll kernels registered for op {name}:\n  device='XLA_CPU_JIT'; T in [DT_FLOAT, DT_DOUBLE, DT_BFLOAT16, DT_HALF]\n  device='CPU'; T in [DT_DOUBLE]\n  device='CPU'; T in [DT_FLOAT]\n [Op:{name}] name: "
                ),
            ))
        }
        _ => return Err(op.attr_error(d)),
    }
    let out = out_shape(op, ins)?;
    let host: Vec<Tensor> = ins
        .iter()
        .map(|t| {
            let t = if t.shape() == &out {
                (*t).clone()
            } else {
                ops::broadcast_to(t, out.dims())?
            };
            if t.device().is_host() {
                Ok(t)
            } else {
                t.to_device(Device::CPU0)
            }
        })
        .collect::<Result<_>>()?;
    // (`from_host` uploads to a CUDA device)
    match d {
        DType::Float32 => Tensor::from_host(HostData::F32(map(op, &host, true)?), out, device),
        DType::Float64 => Tensor::from_host(HostData::F64(map(op, &host, true)?), out, device),
        // Eigen's half functions compute in float, one element at a time
        _ => {
            let wide: Vec<Tensor> = host
                .iter()
                .map(|t| ops::cast(t, DType::Float32))
                .collect::<Result<_>>()?;
            let r = HostData::F32(map(op, &wide, false)?);
            ops::cast(&Tensor::from_host(r, out, Device::CPU0)?, d)?.to_device(device)
        }
    }
}

/// The element function over equally shaped host inputs; whole packets
/// from the start take the vectorised path when `packets`.
fn map<F>(op: Special, ins: &[Tensor], packets: bool) -> Result<Vec<F>>
where
    F: crate::runtime::storage::Elem + Copy,
    Z<F>: Real,
{
    let slices: Vec<&[F]> = ins
        .iter()
        .map(|t| {
            t.as_slice::<F>()
                .ok_or_else(|| Error::internal("special: host data expected"))
        })
        .collect::<Result<_>>()?;
    let n = slices[0].len();
    let full = if packets {
        n / <Z<F>>::PACKET * <Z<F>>::PACKET
    } else {
        0
    };
    let last = slices.len() - 1;
    Ok((0..n)
        .map(|i| {
            let args: [Z<F>; 3] = std::array::from_fn(|j| Z(slices[j.min(last)][i]));
            op.element(&args[..=last], i < full).0
        })
        .collect())
}

/// A 0-d tensor of `like`'s dtype and device holding `v`.
fn constant(like: &Tensor, v: f64) -> Result<Tensor> {
    Tensor::fill(&[], &Scalar::Float(v), like.dtype(), like.device())
}

/// TensorFlow's registered gradients of `op` for upstream `g`, `y` the
/// op's output; `unbroadcast` sums a gradient over an input's broadcast
/// axes. `skip[i]`: input i needs none.
pub fn gradient(
    op: Special,
    ins: &[Tensor],
    y: &Tensor,
    g: &Tensor,
    skip: &[bool],
    unbroadcast: impl Fn(Tensor, &Tensor) -> Result<Tensor>,
) -> Result<Vec<Option<Tensor>>> {
    use ops::{add, mul, sub, unary};
    let exp = |t: &Tensor| unary(UnaryOp::Exp, t);
    let x = &ins[0];
    Ok(match op {
        // _LgammaGrad: grad * digamma(x)
        Special::Lgamma => vec![Some(mul(g, &special(Special::Digamma, &[x])?)?)],
        // _DigammaGrad: grad * polygamma(1, x)
        Special::Digamma => {
            let one = constant(x, 1.0)?;
            vec![Some(mul(g, &special(Special::Polygamma, &[&one, x])?)?)]
        }
        // _ErfinvGrad: grad * (√π/2) * exp(y²)
        Special::Erfinv => {
            let c = constant(g, std::f64::consts::PI.sqrt() / 2.0)?;
            vec![Some(mul(&mul(g, &c)?, &exp(&unary(UnaryOp::Square, y)?)?)?)]
        }
        // _NdtriGrad: grad * √(2π) * exp(y² / 2)
        Special::Ndtri => {
            let c = constant(g, (2.0 * std::f64::consts::PI).sqrt())?;
            let half = ops::truediv(&unary(UnaryOp::Square, y)?, &constant(y, 2.0)?)?;
            vec![Some(mul(&mul(g, &c)?, &exp(&half)?)?)]
        }
        // _IgammaGrad / _IgammacGrad (negated)
        Special::Igamma | Special::Igammac => {
            let a = x;
            let x = &ins[1];
            let sum = |p: Tensor, like: &Tensor| -> Result<Tensor> {
                let r = unbroadcast(mul(&p, g)?, like)?;
                if op == Special::Igammac {
                    unary(UnaryOp::Neg, &r)
                } else {
                    Ok(r)
                }
            };
            let ga = if skip[0] {
                None
            } else {
                Some(sum(special(Special::IgammaGradA, &[a, x])?, a)?)
            };
            let gx = if skip[1] {
                None
            } else {
                // exp(-x + (a - 1) * log(x) - lgamma(a))
                let am1 = sub(a, &constant(a, 1.0)?)?;
                let t = add(
                    &unary(UnaryOp::Neg, x)?,
                    &mul(&am1, &unary(UnaryOp::Log, x)?)?,
                )?;
                let p = exp(&sub(&t, &special(Special::Lgamma, &[a])?)?)?;
                Some(sum(p, x)?)
            };
            vec![ga, gx]
        }
        // TensorFlow registers none for IgammaGradA: no gradient flows
        Special::IgammaGradA => vec![None, None],
        // _PolygammaGrad: (None, sum(polygamma(n + 1, x) * grad))
        Special::Polygamma => {
            let x1 = &ins[1];
            let gx = if skip[1] {
                None
            } else {
                let n1 = add(x, &constant(x, 1.0)?)?;
                Some(unbroadcast(
                    mul(&special(Special::Polygamma, &[&n1, x1])?, g)?,
                    x1,
                )?)
            };
            vec![None, gx]
        }
        // _ZetaGrad: (None, sum(-x * zeta(x + 1, q) * grad))
        Special::Zeta => {
            let q = &ins[1];
            let gq = if skip[1] {
                None
            } else {
                let x1 = add(x, &constant(x, 1.0)?)?;
                let p = mul(
                    &unary(UnaryOp::Neg, x)?,
                    &special(Special::Zeta, &[&x1, q])?,
                )?;
                Some(unbroadcast(mul(&p, g)?, q)?)
            };
            vec![None, gq]
        }
        // _BetaincGrad: (None, None, sum(partial_x * grad)) with
        // partial_x = exp(xlog1py(b - 1, -x) + xlogy(a - 1, x) - log_beta)
        Special::Betainc => {
            let (a, b, xx) = (x, &ins[1], &ins[2]);
            let gx = if skip[2] {
                None
            } else {
                let lg = |t: &Tensor| special(Special::Lgamma, &[t]);
                let log_beta = sub(&add(&lg(a)?, &lg(b)?)?, &lg(&add(a, b)?)?)?;
                let one = constant(a, 1.0)?;
                let t1 = zero_safe::zero_safe(
                    zero_safe::ZeroSafe::Xlog1py,
                    &sub(b, &one)?,
                    &unary(UnaryOp::Neg, xx)?,
                )?;
                let t2 = zero_safe::zero_safe(zero_safe::ZeroSafe::Xlogy, &sub(a, &one)?, xx)?;
                let p = exp(&sub(&add(&t1, &t2)?, &log_beta)?)?;
                Some(unbroadcast(mul(&p, g)?, xx)?)
            };
            vec![None, None, gx]
        }
    })
}
