//! `_statistics`: the exact arithmetic behind `statistics.mean`, `variance`,
//! `stdev`, `harmonic_mean` … CPython sums the data as exact fractions and
//! rounds once; every int and finite float is `m * 2**e` exactly, so the sums
//! are a big integer over a power of two, kept here in a small sign-magnitude
//! bigint (`Big`), and the final quotient (or square root) is correctly
//! rounded to a float, or returned as an int when the data are ints and the
//! quotient is exact.

use super::ModuleBuilder;
use crate::object::native;
use crate::object::types::type_error;
use crate::value::{ExcType, PyErr, PyResult, Value, Vm};
use std::cmp::Ordering;

/// A non-negative big integer: little-endian 64-bit limbs, no trailing zeros.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Big(Vec<u64>);

impl Big {
    pub fn zero() -> Big {
        Big(Vec::new())
    }

    pub fn from_u128(v: u128) -> Big {
        let mut b = Big(vec![v as u64, (v >> 64) as u64]);
        b.trim();
        b
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    pub fn is_zero(&self) -> bool {
        self.0.is_empty()
    }

    pub fn bits(&self) -> u64 {
        match self.0.last() {
            None => 0,
            Some(top) => 64 * (self.0.len() as u64 - 1) + (64 - top.leading_zeros() as u64),
        }
    }

    pub fn add(&self, o: &Big) -> Big {
        let n = self.0.len().max(o.0.len());
        let mut out = Vec::with_capacity(n + 1);
        let mut carry = 0u128;
        for i in 0..n {
            let s =
                *self.0.get(i).unwrap_or(&0) as u128 + *o.0.get(i).unwrap_or(&0) as u128 + carry;
            out.push(s as u64);
            carry = s >> 64;
        }
        out.push(carry as u64);
        let mut b = Big(out);
        b.trim();
        b
    }

    /// `self - o`; requires `self >= o`.
    pub fn sub(&self, o: &Big) -> Big {
        let mut out = Vec::with_capacity(self.0.len());
        let mut borrow = 0i128;
        for i in 0..self.0.len() {
            let mut d = self.0[i] as i128 - *o.0.get(i).unwrap_or(&0) as i128 - borrow;
            borrow = 0;
            if d < 0 {
                d += 1i128 << 64;
                borrow = 1;
            }
            out.push(d as u64);
        }
        assert!(borrow == 0, "Big::sub underflow");
        let mut b = Big(out);
        b.trim();
        b
    }

    pub fn mul(&self, o: &Big) -> Big {
        if self.is_zero() || o.is_zero() {
            return Big::zero();
        }
        let mut out = vec![0u64; self.0.len() + o.0.len()];
        for (i, &a) in self.0.iter().enumerate() {
            let mut carry = 0u128;
            for (j, &b) in o.0.iter().enumerate() {
                let t = a as u128 * b as u128 + out[i + j] as u128 + carry;
                out[i + j] = t as u64;
                carry = t >> 64;
            }
            let mut k = i + o.0.len();
            while carry != 0 {
                let t = out[k] as u128 + carry;
                out[k] = t as u64;
                carry = t >> 64;
                k += 1;
            }
        }
        let mut b = Big(out);
        b.trim();
        b
    }

    pub fn shl(&self, n: u64) -> Big {
        if self.is_zero() {
            return Big::zero();
        }
        let limbs = (n / 64) as usize;
        let bits = n % 64;
        let mut out = vec![0u64; limbs];
        let mut carry = 0u64;
        for &l in &self.0 {
            if bits == 0 {
                out.push(l);
            } else {
                out.push((l << bits) | carry);
                carry = l >> (64 - bits);
            }
        }
        out.push(carry);
        let mut b = Big(out);
        b.trim();
        b
    }

    /// `self >> n`, and whether any one bit was shifted out.
    pub fn shr(&self, n: u64) -> (Big, bool) {
        let limbs = (n / 64) as usize;
        let bits = n % 64;
        if limbs >= self.0.len() {
            return (Big::zero(), !self.is_zero());
        }
        let mut lost = self.0[..limbs].iter().any(|&l| l != 0);
        if bits != 0 {
            lost |= self.0[limbs] & ((1u64 << bits) - 1) != 0;
        }
        let src = &self.0[limbs..];
        let mut out = Vec::with_capacity(src.len());
        for i in 0..src.len() {
            let lo = src[i];
            let hi = *src.get(i + 1).unwrap_or(&0);
            out.push(if bits == 0 {
                lo
            } else {
                (lo >> bits) | (hi << (64 - bits))
            });
        }
        let mut b = Big(out);
        b.trim();
        (b, lost)
    }

    pub fn cmp_mag(&self, o: &Big) -> Ordering {
        if self.0.len() != o.0.len() {
            return self.0.len().cmp(&o.0.len());
        }
        for i in (0..self.0.len()).rev() {
            match self.0[i].cmp(&o.0[i]) {
                Ordering::Equal => {}
                c => return c,
            }
        }
        Ordering::Equal
    }

    /// The value if it fits in 128 bits.
    pub fn to_u128(&self) -> Option<u128> {
        match self.0.len() {
            0 => Some(0),
            1 => Some(self.0[0] as u128),
            2 => Some(self.0[0] as u128 | (self.0[1] as u128) << 64),
            _ => None,
        }
    }

    /// `floor(self / d)` and whether the remainder is nonzero, for a
    /// quotient known to be below 2**127 (restoring binary division).
    pub fn div_small_quotient(&self, d: &Big) -> (u128, bool) {
        let mut r = self.clone();
        let mut q = 0u128;
        let top = self.bits().saturating_sub(d.bits()) + 1;
        for i in (0..=top.min(127)).rev() {
            let s = d.shl(i);
            if r.cmp_mag(&s) != Ordering::Less {
                r = r.sub(&s);
                q |= 1u128 << i;
            }
        }
        (q, !r.is_zero())
    }
}

/// A signed big integer.
#[derive(Clone, Debug)]
pub struct SBig {
    pub neg: bool,
    pub mag: Big,
}

impl SBig {
    pub fn add(&self, o: &SBig) -> SBig {
        if self.neg == o.neg {
            return SBig {
                neg: self.neg,
                mag: self.mag.add(&o.mag),
            };
        }
        match self.mag.cmp_mag(&o.mag) {
            Ordering::Less => SBig {
                neg: o.neg,
                mag: o.mag.sub(&self.mag),
            },
            _ => {
                let mag = self.mag.sub(&o.mag);
                SBig {
                    neg: self.neg && !mag.is_zero(),
                    mag,
                }
            }
        }
    }
}

/// `(-1)**neg * m * 2**exp2`, with `sticky` meaning "a little more than m",
/// correctly rounded (half to even) to a float.
pub fn round_to_f64(neg: bool, m: u128, exp2: i64, sticky: bool) -> f64 {
    if m == 0 {
        return if neg { -0.0 } else { 0.0 };
    }
    let len = 128 - m.leading_zeros() as i64;
    let e = len - 1 + exp2; // the value is in [2**e, 2**(e+1))
    let mut p: i64 = 53;
    if e < -1022 {
        p = 53 - (-1022 - e);
    }
    let drop = len - p;
    let (mut mant, mut sh) = if drop > 0 {
        if drop >= 128 {
            (0u128, exp2 + drop)
        } else {
            let kept = m >> drop;
            let rest = m & ((1u128 << drop) - 1);
            let half = 1u128 << (drop - 1);
            let up = rest > half || (rest == half && (sticky || kept & 1 == 1));
            (kept + up as u128, exp2 + drop)
        }
    } else {
        (m, exp2)
    };
    if drop >= 128 {
        // Far below the smallest subnormal (p <= -75): rounds to zero unless
        // it is just over half of it, which cannot happen this far down.
        mant = 0;
        sh = 0;
    }
    let mut f = mant as f64;
    while sh > 0 {
        let step = sh.min(1000);
        f *= 2f64.powi(step as i32);
        sh -= step;
    }
    while sh < 0 {
        let step = (-sh).min(1000);
        f /= 2f64.powi(step as i32);
        sh += step;
    }
    if neg {
        -f
    } else {
        f
    }
}

/// `num / den` (den > 0) correctly rounded to a float.
pub fn frac_to_f64(num: &SBig, den: &Big) -> f64 {
    if num.mag.is_zero() {
        return 0.0;
    }
    // Scale so the quotient has 66..68 bits.
    let shift = 66 - num.mag.bits() as i64 + den.bits() as i64;
    let (n, d) = if shift >= 0 {
        (num.mag.shl(shift as u64), den.clone())
    } else {
        (num.mag.clone(), den.shl((-shift) as u64))
    };
    let (q, sticky) = n.div_small_quotient(&d);
    round_to_f64(num.neg, q, -shift, sticky)
}

/// A finite float, or CPython's OverflowError for `int / int` too large.
fn finite(f: f64) -> PyResult<Value> {
    if f.is_infinite() {
        return Err(PyErr::new(
            ExcType::OverflowError,
            "integer division result too large for a float",
        ));
    }
    Ok(Value::Float(f))
}

/// The square root of `num / den` (num >= 0, den > 0), correctly rounded.
pub fn frac_sqrt_to_f64(num: &Big, den: &Big) -> f64 {
    if num.is_zero() {
        return 0.0;
    }
    // t = num * 2**(2s) / den with 120..123 bits.
    let mut e = 120 - num.bits() as i64 + den.bits() as i64;
    if e % 2 != 0 {
        e += 1;
    }
    let (n, d) = if e >= 0 {
        (num.shl(e as u64), den.clone())
    } else {
        (num.clone(), den.shl((-e) as u64))
    };
    let (t, sticky) = n.div_small_quotient(&d);
    let r = isqrt_u128(t);
    let inexact = sticky || r * r != t;
    round_to_f64(false, r, -e / 2, inexact)
}

fn isqrt_u128(t: u128) -> u128 {
    if t == 0 {
        return 0;
    }
    let mut x = (t as f64).sqrt() as u128;
    // Fix up the float estimate.
    while x.checked_mul(x).is_none_or(|sq| sq > t) {
        x -= 1;
    }
    while (x + 1).checked_mul(x + 1).is_some_and(|sq| sq <= t) {
        x += 1;
    }
    x
}

/// The data as exact sums: Σx = a / 2**k and Σx² = b / 2**(2k); `all_int`
/// when no float was seen; `special` is the running sum of the non-finite
/// floats (CPython adds those as floats, in order).
struct Sums {
    a: SBig,
    b: Big,
    k: u64,
    n: u64,
    all_int: bool,
    special: Option<f64>,
}

/// `(negative, m, e)` with x = ±m * 2**e.
fn decompose(v: &Value) -> PyResult<Option<(bool, u64, i64)>> {
    match v.as_builtin() {
        Value::Int(i) => Ok(Some((*i < 0, i.unsigned_abs(), 0))),
        Value::Bool(b) => Ok(Some((false, *b as u64, 0))),
        Value::Float(f) => {
            if !f.is_finite() {
                return Ok(None);
            }
            if *f == 0.0 {
                return Ok(Some((false, 0, 0)));
            }
            let bits = f.to_bits();
            let exp = ((bits >> 52) & 0x7ff) as i64;
            let frac = bits & ((1u64 << 52) - 1);
            let (m, e) = if exp == 0 {
                (frac, -1074)
            } else {
                (frac | (1u64 << 52), exp - 1075)
            };
            let tz = m.trailing_zeros() as i64;
            Ok(Some((*f < 0.0, m >> tz, e + tz)))
        }
        _ if matches!(v.type_name().as_str(), "Fraction" | "Decimal") => Err(PyErr::new(
            ExcType::NotImplementedError,
            format!(
                "statistics in dist supports int and float data only, not '{}'",
                v.type_name()
            ),
        )),
        _ => Err(type_error(format!(
            "can't convert type '{}' to numerator/denominator",
            v.type_name()
        ))),
    }
}

fn sums(vm: &dyn Vm, data: &Value) -> PyResult<Sums> {
    let items = vm.collect(data)?;
    let mut parts = Vec::with_capacity(items.len());
    let mut all_int = true;
    let mut special: Option<f64> = None;
    for v in &items {
        if matches!(v.as_builtin(), Value::Float(_)) {
            all_int = false;
        }
        match decompose(v)? {
            Some(p) => parts.push(p),
            None => {
                let f = match v.as_builtin() {
                    Value::Float(f) => *f,
                    _ => unreachable!(),
                };
                special = Some(special.map_or(f, |s| s + f));
            }
        }
    }
    let k = parts
        .iter()
        .map(|p| (-p.2).max(0) as u64)
        .max()
        .unwrap_or(0);
    let mut a = SBig {
        neg: false,
        mag: Big::zero(),
    };
    let mut b = Big::zero();
    for &(neg, m, e) in &parts {
        let mag = Big::from_u128(m as u128).shl((e + k as i64) as u64);
        b = b.add(&mag.mul(&mag));
        a = a.add(&SBig { neg, mag });
    }
    Ok(Sums {
        a,
        b,
        k,
        n: items.len() as u64,
        all_int,
        special,
    })
}

fn int_or_float(num: &SBig, den: &Big, all_int: bool) -> PyResult<Value> {
    if all_int {
        // An int when the quotient is exact.
        if num.mag.bits() <= den.bits() + 126 {
            let (q, rem) = num.mag.div_small_quotient(den);
            if !rem {
                if q > i64::MAX as u128 + num.neg as u128 {
                    return Err(PyErr::new(
                        ExcType::OverflowError,
                        "statistics result does not fit in a 64-bit int",
                    ));
                }
                let q = q as i128;
                return Ok(Value::Int(if num.neg { -q } else { q } as i64));
            }
        }
    }
    finite(frac_to_f64(num, den))
}

fn positive_int(v: &Value) -> PyResult<u64> {
    match v.as_builtin() {
        Value::Int(i) if *i > 0 => Ok(*i as u64),
        _ => Err(type_error("_statistics: divisor must be a positive int")),
    }
}

/// A sum that is inf or nan (CPython adds such floats as floats): divided by
/// `d`, or, for a square root, CPython's error (it asks the float for a
/// numerator).
fn special_result(sp: f64, d: u64, sqrt: bool) -> PyResult<Value> {
    if sqrt {
        return Err(PyErr::new(
            ExcType::AttributeError,
            "'float' object has no attribute 'numerator'",
        ));
    }
    Ok(Value::Float(sp / d as f64))
}

/// sum(data) / d computed exactly and rounded once.
// An int for int data when exact; with `sqrt`, the correctly rounded square root.
#[native("sum_div(data, d, sqrt=False, /)")]
fn sum_div(vm: &dyn Vm, data: &Value, d: &Value, sqrt: &Value) -> PyResult<Value> {
    let s = sums(vm, data)?;
    let d = positive_int(d)?;
    let sqrt = vm.truthy(sqrt)?;
    if let Some(sp) = s.special {
        return special_result(sp, d, sqrt);
    }
    let den = Big::from_u128(d as u128).shl(s.k);
    if sqrt {
        if s.a.neg && !s.a.mag.is_zero() {
            return Err(PyErr::new(
                ExcType::ValueError,
                "math domain error: square root of a negative sum",
            ));
        }
        return finite(frac_sqrt_to_f64(&s.a.mag, &den));
    }
    int_or_float(&s.a, &den, s.all_int)
}

/// The exact sum of squared deviations over n - ddof, rounded once.
// The deviations are from the exact mean; an int for int data when exact;
// with `sqrt`, the correctly rounded square root.
#[native("ss_div(data, ddof, sqrt=False, /)")]
fn ss_div(vm: &dyn Vm, data: &Value, ddof: &Value, sqrt: &Value) -> PyResult<Value> {
    let s = sums(vm, data)?;
    let ddof = match ddof.as_builtin() {
        Value::Int(i) => *i as u64,
        _ => 0,
    };
    let sqrt = vm.truthy(sqrt)?;
    let d = s.n - ddof;
    if let Some(sp) = s.special {
        return special_result(sp, d, sqrt);
    }
    // ssd = (n*B - A*A) / (n * 2**2k); over d: / (n * d * 2**2k).
    let nb = s.b.mul(&Big::from_u128(s.n as u128));
    let a2 = s.a.mag.mul(&s.a.mag);
    let num = nb.sub(&a2);
    let den = Big::from_u128(s.n as u128 * d as u128).shl(2 * s.k);
    if sqrt {
        return finite(frac_sqrt_to_f64(&num, &den));
    }
    int_or_float(
        &SBig {
            neg: false,
            mag: num,
        },
        &den,
        s.all_int,
    )
}

/// float(sum(nums) / sum(dens)) computed exactly and rounded once.
#[native("ratio(nums, dens, /)")]
fn ratio(vm: &dyn Vm, nums: &Value, dens: &Value) -> PyResult<Value> {
    let p = sums(vm, nums)?;
    let q = sums(vm, dens)?;
    if p.special.is_some() || q.special.is_some() {
        let ps = p
            .special
            .unwrap_or_else(|| frac_to_f64(&p.a, &Big::from_u128(1).shl(p.k)));
        let qs = q
            .special
            .unwrap_or_else(|| frac_to_f64(&q.a, &Big::from_u128(1).shl(q.k)));
        return Ok(Value::Float(ps / qs));
    }
    if q.a.mag.is_zero() {
        return Err(PyErr::new(ExcType::ZeroDivisionError, "division by zero"));
    }
    // (pa / 2**pk) / (qa / 2**qk) = pa * 2**qk / (qa * 2**pk)
    let num = SBig {
        neg: p.a.neg != q.a.neg,
        mag: p.a.mag.shl(q.k),
    };
    let den = q.a.mag.shl(p.k);
    finite(frac_to_f64(&num, &den))
}

/// The correctly rounded square root of n / d.
// Ints `n >= 0`, `d > 0`, as CPython's `_float_sqrt_of_frac`.
#[native("sqrt_frac(n, d, /)")]
fn sqrt_frac(n: &Value, d: &Value) -> PyResult<Value> {
    let (n, d) = match (n.as_builtin(), d.as_builtin()) {
        (Value::Int(n), Value::Int(d)) if *n >= 0 && *d > 0 => (*n as u128, *d as u128),
        _ => {
            return Err(type_error(
                "_statistics.sqrt_frac: needs ints n >= 0, d > 0",
            ))
        }
    };
    finite(frac_sqrt_to_f64(&Big::from_u128(n), &Big::from_u128(d)))
}

/// The `_statistics` module.
pub fn module() -> Value {
    let mut m = ModuleBuilder::new("_statistics");
    m.add(sum_div::DEF)
        .add(ss_div::DEF)
        .add(sqrt_frac::DEF)
        .add(ratio::DEF);
    m.build()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn big(v: u128) -> Big {
        Big::from_u128(v)
    }

    #[test]
    fn add_sub_mul_shift() {
        let a = big(u64::MAX as u128);
        let b = a.add(&big(1));
        assert_eq!(b, big(1u128 << 64));
        assert_eq!(b.sub(&big(1)), a);
        let sq = a.mul(&a);
        assert_eq!(sq.to_u128(), Some((u64::MAX as u128) * (u64::MAX as u128)));
        let s = big(3).shl(200);
        assert_eq!(s.bits(), 202);
        let (back, lost) = s.shr(200);
        assert_eq!(back, big(3));
        assert!(!lost);
        let (_, lost) = big(5).shr(1);
        assert!(lost);
        assert_eq!(big(7).shl(130).mul(&big(9).shl(70)), big(63).shl(200));
    }

    #[test]
    fn division_and_rounding() {
        let (q, r) = big(100).div_small_quotient(&big(7));
        assert_eq!((q, r), (14, true));
        let (q, r) = big(1).shl(300).div_small_quotient(&big(1).shl(200));
        assert_eq!((q, r), (1u128 << 100, false));
        let third = frac_to_f64(
            &SBig {
                neg: false,
                mag: big(1),
            },
            &big(3),
        );
        assert_eq!(third, 1.0 / 3.0);
        assert_eq!(frac_sqrt_to_f64(&big(2), &big(1)), 2f64.sqrt());
        assert_eq!(frac_sqrt_to_f64(&big(9), &big(4)), 1.5);
        assert_eq!(round_to_f64(false, 1, -1074, false), 5e-324);
        assert_eq!(
            round_to_f64(true, (1u128 << 53) + 1, 0, false),
            -9007199254740992.0
        );
        assert_eq!(
            round_to_f64(false, (1u128 << 53) + 1, 0, true),
            9007199254740994.0
        );
    }

    #[test]
    fn signed_add() {
        let p = SBig {
            neg: false,
            mag: big(5),
        };
        let n = SBig {
            neg: true,
            mag: big(8),
        };
        let s = p.add(&n);
        assert!(s.neg);
        assert_eq!(s.mag, big(3));
    }
}
