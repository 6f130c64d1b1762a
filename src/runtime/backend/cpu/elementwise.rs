//! CPU element-wise kernels: binary arithmetic, comparisons and logic,
//! unary math, `where`, and casts, dispatched per dtype over [`super::zip`].

use super::num::Num;
use super::zip::{map, zip};
use crate::runtime::dtype::DType;
use crate::runtime::error::{Error, Result};
use crate::runtime::f16::F16;
use crate::runtime::op::{BinaryOp, Semantics, UnaryOp};
use crate::runtime::storage::HostData;

/// Binary op on two host buffers of one dtype.
pub fn binary(
    op: BinaryOp,
    sem: Semantics,
    a: &HostData,
    ash: &[usize],
    b: &HostData,
    bsh: &[usize],
    out: &[usize],
) -> Result<HostData> {
    macro_rules! num {
        ($x:expr, $y:expr) => {
            typed(op, sem, $x, ash, $y, bsh, out)
        };
    }
    match (a, b) {
        (HostData::I8(x), HostData::I8(y)) => num!(x, y),
        (HostData::U8(x), HostData::U8(y)) => num!(x, y),
        (HostData::I16(x), HostData::I16(y)) => num!(x, y),
        (HostData::I32(x), HostData::I32(y)) => num!(x, y),
        (HostData::I64(x), HostData::I64(y)) => num!(x, y),
        (HostData::F16(x), HostData::F16(y)) => num!(x, y),
        (HostData::F32(x), HostData::F32(y)) => num!(x, y),
        (HostData::F64(x), HostData::F64(y)) => num!(x, y),
        (HostData::Bool(x), HostData::Bool(y)) => {
            let f = match op {
                BinaryOp::LogicalAnd | BinaryOp::Mul | BinaryOp::Minimum => {
                    |p: bool, q: bool| p & q
                }
                BinaryOp::LogicalOr | BinaryOp::Add | BinaryOp::Maximum => |p: bool, q: bool| p | q,
                BinaryOp::Equal => |p: bool, q: bool| p == q,
                BinaryOp::NotEqual => |p: bool, q: bool| p != q,
                BinaryOp::Less => |p: bool, q: bool| !p & q,
                BinaryOp::LessEqual => |p: bool, q: bool| !p | q,
                BinaryOp::Greater => |p: bool, q: bool| p & !q,
                BinaryOp::GreaterEqual => |p: bool, q: bool| p | !q,
                _ => return Err(unsupported(op.name(), DType::Bool)),
            };
            Ok(HostData::Bool(zip(x, ash, y, bsh, out, f)?))
        }
        (HostData::Str(x), HostData::Str(y)) => {
            let idx_a: Vec<u32> = (0..x.len() as u32).collect();
            let idx_b: Vec<u32> = (0..y.len() as u32).collect();
            let (xa, yb) = (x.as_slice(), y.as_slice());
            let cmp = |i: u32, j: u32| xa[i as usize].cmp(&yb[j as usize]);
            let r = match op {
                BinaryOp::Equal => zip(&idx_a, ash, &idx_b, bsh, out, |i, j| cmp(i, j).is_eq())?,
                BinaryOp::NotEqual => zip(&idx_a, ash, &idx_b, bsh, out, |i, j| cmp(i, j).is_ne())?,
                BinaryOp::Add => {
                    let idx = zip(&idx_a, ash, &idx_b, bsh, out, |i, j| (i, j))?;
                    let v = idx
                        .into_iter()
                        .map(|(i, j)| {
                            [xa[i as usize].as_slice(), yb[j as usize].as_slice()].concat()
                        })
                        .collect();
                    return Ok(HostData::Str(v));
                }
                _ => return Err(unsupported(op.name(), DType::String)),
            };
            Ok(HostData::Bool(r))
        }
        _ => Err(Error::internal("binary: operands of different dtypes")),
    }
}

#[cold]
fn unsupported(op: &str, d: DType) -> Error {
    Error::invalid_argument(format!("{op} is not supported for dtype {}", d.name()))
}

fn typed<T: Num>(
    op: BinaryOp,
    sem: Semantics,
    a: &[T],
    ash: &[usize],
    b: &[T],
    bsh: &[usize],
    out: &[usize],
) -> Result<HostData> {
    let np = sem == Semantics::Numpy;
    if T::IS_INT {
        let divides = matches!(
            op,
            BinaryOp::FloorDiv | BinaryOp::FloorMod | BinaryOp::TruncateDiv | BinaryOp::RealDiv
        );
        if divides && !np && b.iter().any(|y| y.is_zero()) {
            return Err(Error::invalid_argument("Integer division by zero"));
        }
        if op == BinaryOp::Pow && b.iter().any(|y| y.is_negative()) {
            return Err(Error::invalid_argument(if np {
                "Integers to negative integer powers are not allowed."
            } else {
                "Integers to negative integer powers are not allowed"
            }));
        }
    }
    macro_rules! arith {
        ($f:expr) => {
            Ok(T::wrap(zip(a, ash, b, bsh, out, $f)?))
        };
    }
    macro_rules! cmp {
        ($f:expr) => {
            Ok(HostData::Bool(zip(a, ash, b, bsh, out, $f)?))
        };
    }
    match op {
        BinaryOp::Add => arith!(|x: T, y: T| x.add(y)),
        BinaryOp::Sub => arith!(|x: T, y: T| x.sub(y)),
        BinaryOp::Mul => arith!(|x: T, y: T| x.mul(y)),
        BinaryOp::RealDiv | BinaryOp::TruncateDiv => arith!(|x: T, y: T| x.div(y)),
        BinaryOp::FloorDiv if np => arith!(|x: T, y: T| x.floordiv_np(y)),
        BinaryOp::FloorDiv => arith!(|x: T, y: T| x.floordiv_tf(y)),
        BinaryOp::FloorMod => arith!(|x: T, y: T| x.floormod(y, np)),
        BinaryOp::Pow => arith!(|x: T, y: T| x.pow(y)),
        BinaryOp::Maximum => arith!(|x: T, y: T| x.maximum(y)),
        BinaryOp::Minimum => arith!(|x: T, y: T| x.minimum(y)),
        BinaryOp::Equal => cmp!(|x: T, y: T| x == y),
        BinaryOp::NotEqual => cmp!(|x: T, y: T| x != y),
        BinaryOp::Less => cmp!(|x: T, y: T| x < y),
        BinaryOp::LessEqual => cmp!(|x: T, y: T| x <= y),
        BinaryOp::Greater => cmp!(|x: T, y: T| x > y),
        BinaryOp::GreaterEqual => cmp!(|x: T, y: T| x >= y),
        BinaryOp::LogicalAnd | BinaryOp::LogicalOr => Err(unsupported(op.name(), T::DTYPE)),
    }
}

/// Unary op on a host buffer.
pub fn unary(op: UnaryOp, x: &HostData) -> Result<HostData> {
    match x {
        HostData::Bool(v) if op == UnaryOp::LogicalNot => Ok(HostData::Bool(map(v, |b| !b)?)),
        HostData::I8(v) => unary_typed(op, v),
        HostData::U8(v) => unary_typed(op, v),
        HostData::I16(v) => unary_typed(op, v),
        HostData::I32(v) => unary_typed(op, v),
        HostData::I64(v) => unary_typed(op, v),
        HostData::F16(v) => unary_typed(op, v),
        HostData::F32(v) => unary_typed(op, v),
        HostData::F64(v) => unary_typed(op, v),
        other => Err(unsupported(op.name(), other.dtype())),
    }
}

// The C library's error functions (Rust's std has none; it links libm already).
extern "C" {
    #[link_name = "erf"]
    fn c_erf(x: f64) -> f64;
    #[link_name = "erfc"]
    fn c_erfc(x: f64) -> f64;
}

/// The error function.
fn libm_erf(x: f64) -> f64 {
    // SAFETY: a pure C math function of one double.
    unsafe { c_erf(x) }
}

/// The complementary error function.
fn libm_erfc(x: f64) -> f64 {
    // SAFETY: a pure C math function of one double.
    unsafe { c_erfc(x) }
}

fn unary_typed<T: Num>(op: UnaryOp, v: &[T]) -> Result<HostData> {
    macro_rules! m {
        ($f:expr) => {
            Ok(T::wrap(map(v, $f)?))
        };
    }
    macro_rules! fl {
        ($f:expr) => {{
            let g = $f;
            m!(|x: T| T::from_f64(g(x.to_f64())))
        }};
    }
    match op {
        UnaryOp::Neg => m!(|x: T| x.neg()),
        UnaryOp::Abs => m!(|x: T| x.abs()),
        UnaryOp::Square => m!(|x: T| x.mul(x)),
        UnaryOp::Sign => m!(|x: T| if x.is_nan() {
            x
        } else if x.is_negative() {
            T::one().neg()
        } else if x.is_zero() {
            T::zero()
        } else {
            T::one()
        }),
        // max(x, 0) as TensorFlow computes it: -0.0 becomes 0.0, NaN stays
        UnaryOp::Relu => m!(|x: T| if x.is_negative() || x.is_zero() {
            T::zero()
        } else {
            x
        }),
        UnaryOp::Reciprocal if !T::IS_INT => m!(|x: T| T::one().div(x)),
        UnaryOp::Round if T::IS_INT => m!(|x: T| x),
        UnaryOp::Round => fl!(|x: f64| x.round_ties_even()),
        _ if T::IS_INT => Err(unsupported(op.name(), T::DTYPE)),
        // TensorFlow's float32 Exp and Log: Eigen's packet functions on
        // 8-lane packets, the C library on the last n % 8 elements
        UnaryOp::Exp | UnaryOp::Log if T::DTYPE == DType::Float32 && !scalar_math_on() => {
            // TensorFlow's threads flush denormal results to zero
            let (packet, scalar): (F32Fn, F32Fn) = if op == UnaryOp::Exp {
                (
                    |x| flush_denormal(eigen_pexp(x)),
                    |x| flush_denormal(x.exp()),
                )
            } else {
                (eigen_plog, f32::ln)
            };
            let full = v.len() / 8 * 8;
            let mut out = crate::runtime::storage::filled(v.len(), T::zero())?;
            for (i, (o, x)) in out.iter_mut().zip(v).enumerate() {
                let f = if i < full { packet } else { scalar };
                *o = T::from_f64(f(x.to_f64() as f32) as f64);
            }
            Ok(T::wrap(out))
        }
        // f32 math stays in f32 so results match TensorFlow's float kernels
        _ if T::DTYPE == DType::Float32 => {
            let f: fn(f32) -> f32 = match op {
                UnaryOp::Sqrt => f32::sqrt,
                UnaryOp::Rsqrt => |x| 1.0 / x.sqrt(),
                UnaryOp::Exp => f32::exp,
                UnaryOp::Log => f32::ln,
                UnaryOp::Log1p => f32::ln_1p,
                UnaryOp::Expm1 => f32::exp_m1,
                // the C library's in double, rounded once (Eigen's own
                // approximation differs in the last bit: known_gaps/nn_erf)
                UnaryOp::Erf => |x| libm_erf(x as f64) as f32,
                UnaryOp::Erfc => |x| libm_erfc(x as f64) as f32,
                UnaryOp::Sin => f32::sin,
                UnaryOp::Cos => f32::cos,
                UnaryOp::Tanh => eigen_tanh,
                UnaryOp::Sigmoid => |x| 1.0 / (1.0 + (-x).exp()),
                UnaryOp::Floor => f32::floor,
                UnaryOp::Ceil => f32::ceil,
                _ => return Err(unsupported(op.name(), T::DTYPE)),
            };
            fl!(|x: f64| f(x as f32) as f64)
        }
        _ => {
            let f: fn(f64) -> f64 = match op {
                UnaryOp::Sqrt => f64::sqrt,
                UnaryOp::Rsqrt => |x| 1.0 / x.sqrt(),
                UnaryOp::Exp => f64::exp,
                UnaryOp::Log => f64::ln,
                UnaryOp::Log1p => f64::ln_1p,
                UnaryOp::Expm1 => f64::exp_m1,
                UnaryOp::Erf => libm_erf,
                UnaryOp::Erfc => libm_erfc,
                UnaryOp::Sin => f64::sin,
                UnaryOp::Cos => f64::cos,
                UnaryOp::Tanh => f64::tanh,
                UnaryOp::Sigmoid => |x| 1.0 / (1.0 + (-x).exp()),
                UnaryOp::Floor => f64::floor,
                UnaryOp::Ceil => f64::ceil,
                _ => return Err(unsupported(op.name(), T::DTYPE)),
            };
            fl!(f)
        }
    }
}

/// `where(c, x, y)` with broadcasting.
pub fn select(
    c: &[bool],
    cs: &[usize],
    x: &HostData,
    xs: &[usize],
    y: &HostData,
    ys: &[usize],
    out: &[usize],
) -> Result<HostData> {
    // pick indices first (one broadcast pass), then gather from x or y
    let n: usize = out.iter().product();
    let ix: Vec<u32> = (0..x.len() as u32).collect();
    let iy: Vec<u32> = (0..y.len() as u32).collect();
    let cx = zip(c, cs, &ix, xs, &bshape(cs, xs), |b, i| (b, i))?;
    let shape_cx = bshape(cs, xs);
    let picks = zip(&cx, &shape_cx, &iy, ys, out, |(b, i), j| {
        if b {
            (true, i)
        } else {
            (false, j)
        }
    })?;
    debug_assert_eq!(picks.len(), n);
    macro_rules! gather {
        ($xv:expr, $yv:expr, $var:ident) => {
            HostData::$var(
                picks
                    .iter()
                    .map(|&(b, i)| {
                        if b {
                            $xv[i as usize].clone()
                        } else {
                            $yv[i as usize].clone()
                        }
                    })
                    .collect(),
            )
        };
    }
    Ok(match (x, y) {
        (HostData::Bool(a), HostData::Bool(b)) => gather!(a, b, Bool),
        (HostData::I8(a), HostData::I8(b)) => gather!(a, b, I8),
        (HostData::U8(a), HostData::U8(b)) => gather!(a, b, U8),
        (HostData::I16(a), HostData::I16(b)) => gather!(a, b, I16),
        (HostData::I32(a), HostData::I32(b)) => gather!(a, b, I32),
        (HostData::I64(a), HostData::I64(b)) => gather!(a, b, I64),
        (HostData::F16(a), HostData::F16(b)) => gather!(a, b, F16),
        (HostData::F32(a), HostData::F32(b)) => gather!(a, b, F32),
        (HostData::F64(a), HostData::F64(b)) => gather!(a, b, F64),
        (HostData::Str(a), HostData::Str(b)) => gather!(a, b, Str),
        _ => return Err(Error::internal("select: branches of different dtypes")),
    })
}

fn bshape(a: &[usize], b: &[usize]) -> Vec<usize> {
    crate::runtime::shape::Shape::new(a)
        .broadcast(&crate::runtime::shape::Shape::new(b))
        .map(|s| s.0)
        .unwrap_or_default()
}

/// Element conversion with TensorFlow's `Cast` semantics: float → int
/// truncates, and NaN or out-of-range floats become the integer minimum
/// (as x86 conversion does); int → narrower int wraps; nonzero → `true`.
pub fn cast(x: &HostData, to: DType) -> Result<HostData> {
    if x.dtype() == to {
        return Ok(x.clone());
    }
    macro_rules! from_num {
        ($v:expr) => {
            cast_num($v, to)
        };
    }
    match x {
        HostData::Bool(v) => cast_num(&map(v, |b| b as u8)?, to),
        HostData::I8(v) => from_num!(v),
        HostData::U8(v) => from_num!(v),
        HostData::I16(v) => from_num!(v),
        HostData::I32(v) => from_num!(v),
        HostData::I64(v) => from_num!(v),
        HostData::F16(v) => from_num!(v),
        HostData::F32(v) => from_num!(v),
        HostData::F64(v) => from_num!(v),
        HostData::Str(_) => Err(Error::unimplemented(
            "Cast string to number is not supported",
        )),
    }
}

fn float_to_int(x: f64, lo: f64, hi: f64, min: i64) -> i64 {
    if x.is_nan() || x < lo || x >= hi {
        min
    } else {
        x as i64
    }
}

fn cast_num<T: Num>(v: &[T], to: DType) -> Result<HostData> {
    let float = !T::IS_INT;
    // floats convert through int32 (narrow types) or int64, like the C casts
    // TF uses; integers keep their value (then wrap to a narrower type)
    let to_i32 = |x: T| -> i64 {
        if float {
            float_to_int(x.to_f64(), -2147483648.0, 2147483648.0, i32::MIN as i64)
        } else {
            x.to_i64()
        }
    };
    let as_i64 = |x: T| -> i64 {
        if float {
            float_to_int(
                x.to_f64(),
                -9.223372036854776e18,
                9.223372036854776e18,
                i64::MIN,
            )
        } else {
            x.to_i64()
        }
    };
    Ok(match to {
        DType::Bool => HostData::Bool(map(v, |x| !x.is_zero())?),
        DType::Int8 => HostData::I8(map(v, |x| to_i32(x) as i8)?),
        DType::UInt8 => HostData::U8(map(v, |x| to_i32(x) as u8)?),
        DType::Int16 => HostData::I16(map(v, |x| to_i32(x) as i16)?),
        DType::Int32 => HostData::I32(map(v, |x| to_i32(x) as i32)?),
        DType::Int64 => HostData::I64(map(v, as_i64)?),
        DType::Float16 => HostData::F16(map(v, |x| F16::from_f64(x.to_f64()))?),
        DType::Float32 => HostData::F32(map(v, |x| x.to_f64() as f32)?),
        DType::Float64 => HostData::F64(map(v, |x| x.to_f64())?),
        DType::String => {
            return Err(Error::unimplemented(
                "Cast number to string is not supported",
            ))
        }
    })
}

/// float32 tanh the way TensorFlow's CPU kernel computes it: Eigen's 13/6
/// rational approximation without fused multiply-adds.
/// Eigen's `pexp_float` for one lane (TensorFlow's build: no FMA, so
/// each multiply-add rounds twice): exp(x) = 2^m · exp(r), r = x - m·ln 2,
/// exp(r) by a 6th-order polynomial.
#[allow(clippy::excessive_precision)]
fn eigen_pexp(x0: f32) -> f32 {
    if x0.is_nan() {
        return x0;
    }
    if x0 < -104.0 {
        return 0.0;
    }
    let x = x0.min(88.723);
    let m = (x * std::f32::consts::LOG2_E + 0.5).floor();
    let r = m * -0.693_359_375 + x;
    let r = m * 2.121_944_40e-4 + r;
    let r2 = r * r;
    let p_even =
        r2 * 1.374_496_379_867_196_083_068_847_656_25e-3 + 4.166_965_186_595_916_748_046_875e-2;
    let p_odd = r2 * 8.368_944_749_236_106_872_558_593_75e-3 + 0.166_665_181_517_601_013_183_593_75;
    let p_even = r2 * p_even + 0.499_999_880_790_710_449_218_75;
    let p_low = r + 1.0;
    let y = r * p_odd + p_even;
    let y = r2 * y + p_low;
    ldexp_f32(y, m as i32).max(x0)
}

/// A float32 function of one lane.
type F32Fn = fn(f32) -> f32;

thread_local! {
    static SCALAR_MATH: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn scalar_math_on() -> bool {
    SCALAR_MATH.with(|c| c.get())
}

/// While the guard lives, float32 `Exp` and `Log` on this thread take the C
/// library for every element, as the TensorFlow kernels whose `exp` sits
/// inside a reduction (the softmax cross-entropies' sums) or in oneDNN
/// (softmax) compute it; the standalone ops use Eigen's packet rule.
pub struct ScalarMath(bool);

/// See [`ScalarMath`].
pub fn scalar_math() -> ScalarMath {
    ScalarMath(SCALAR_MATH.with(|c| c.replace(true)))
}

impl Drop for ScalarMath {
    fn drop(&mut self) {
        SCALAR_MATH.with(|c| c.set(self.0));
    }
}

/// Zero for a subnormal (TensorFlow runs its kernels with flush-to-zero).
fn flush_denormal(x: f32) -> f32 {
    if x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}

/// `y · 2^e`, exact while the result is normal (Eigen's `pldexp`).
fn ldexp_f32(y: f32, e: i32) -> f32 {
    let mut y = y;
    let mut e = e;
    while e > 127 {
        y *= f32::from_bits(254 << 23);
        e -= 127;
    }
    while e < -126 {
        y *= f32::from_bits(1 << 23);
        e += 126;
    }
    y * f32::from_bits(((e + 127) as u32) << 23)
}

/// Eigen's `plog_float` for one lane (no FMA): frexp, the mantissa
/// shifted to [√½, √2) − 1, a rational approximation of log(1 + x), plus
/// e·ln 2.
#[allow(clippy::excessive_precision)]
fn eigen_plog(x0: f32) -> f32 {
    if x0.is_nan() || x0 < 0.0 {
        return f32::NAN;
    }
    if x0 == 0.0 {
        return f32::NEG_INFINITY;
    }
    if x0 == f32::INFINITY {
        return x0;
    }
    // Eigen's generic pfrexp: the exponent field as is (denormals included)
    let bits = x0.to_bits();
    let mut e = ((bits >> 23) & 0xff) as f32 - 126.0;
    let mut x = f32::from_bits((bits & 0x807f_ffff) | 0x3f00_0000);
    let below = x < std::f32::consts::FRAC_1_SQRT_2;
    let tmp = if below { x } else { 0.0 };
    x -= 1.0;
    if below {
        e -= 1.0;
    }
    x += tmp;
    let p =
        (0.182_562_963_498_492_54_f32 * x + 1.000_000_019_028_106_3) * x + 1.000_000_019_028_113_6;
    let p = x * p;
    let q = ((0.049_616_247_954_120_038_f32 * x + 0.599_232_495_908_235_2) * x
        + 1.499_999_999_999_992_7)
        * x
        + 1.0;
    let x = p / q;
    e * std::f32::consts::LN_2 + x
}

// TODO: TensorFlow 2.21's Eigen still differs by one ulp on some inputs
// (tanh(-0.5)); the remaining difference is within the approximation's error.
#[allow(clippy::excessive_precision)]
fn eigen_tanh(a: f32) -> f32 {
    if a.is_nan() {
        return a;
    }
    const CLAMP: f32 = 7.905_311_107_635_498_05;
    let x = a.clamp(-CLAMP, CLAMP);
    if a.abs() < 0.0004 {
        return a;
    }
    let x2 = x * x;
    let mut p = -2.760_768_477_423_55e-16_f32;
    for c in [
        2.000_187_904_824_77e-13_f32,
        -8.604_671_522_137_35e-11,
        5.122_297_090_371_14e-08,
        1.485_722_357_179_79e-05,
        6.372_619_288_754_36e-04,
        4.893_524_558_917_86e-03,
    ] {
        p = p * x2 + c;
    }
    p *= x;
    let mut q = 1.198_258_394_667_02e-06_f32;
    for c in [
        1.185_347_056_866_54e-04_f32,
        2.268_434_632_439_00e-03,
        4.893_525_185_543_85e-03,
    ] {
        q = q * x2 + c;
    }
    p / q
}
