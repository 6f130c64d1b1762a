//! The costly part of big-int arithmetic, arranged so that it copies as
//! little as the values allow: division with a short quotient, `divmod` as
//! one division, and `+ - * & | ^` computed in the storage of an operand
//! that nothing else refers to (a temporary such as `num * 2` in
//! `acc + num * 2`, or a local variable in `den *= k`). Ints are immutable
//! values, so reusing the storage of one no other reference can reach is
//! invisible to the script. `long.rs` holds the rest of the big-int
//! arithmetic and the conversions.

use std::borrow::Cow;
use std::rc::Rc;

use num_bigint::{BigInt, BigUint, Sign};
use num_traits::{Signed, ToPrimitive, Zero};

use super::num::Num;
use crate::syntax::ast::BinOp;
use crate::value::{ExcType, PyErr, PyResult, Value};

/// The largest result, in bits, that arithmetic builds (512 MiB); past it
/// `**`, `<<` and `*` raise MemoryError instead of spending minutes
/// allocating (or aborting when the allocation fails).
pub const MAX_BITS: u64 = 1 << 32;

/// A dividend of more than this many bits is one num-bigint divides by
/// Burnikel–Ziegler (128 limbs and a divisor over 64), whatever the
/// size of the quotient.
const BZ_DIVIDEND_BITS: u64 = 128 * 64;
const BZ_DIVISOR_BITS: u64 = 64 * 64;
/// The longest quotient (bits) found by [`div_rem_short`].
const SHORT_QUOTIENT_BITS: u64 = 16 * 64;

#[cold]
pub fn memory_error() -> PyErr {
    PyErr::with_args(ExcType::MemoryError, Vec::new())
}

/// An int operand as a big int, borrowed when it is one: a small int
/// becomes a one-digit `BigInt`, which num-bigint keeps without a heap
/// allocation.
pub fn big_of<'a>(n: Num<'a>) -> Cow<'a, BigInt> {
    match n {
        Num::I(i) => Cow::Owned(BigInt::from(i)),
        Num::B(b) => Cow::Borrowed(b),
        Num::F(_) => Cow::Owned(BigInt::zero()),
    }
}

/// `n / d` and `n % d` on magnitudes whose quotient is short, where
/// num-bigint would take Burnikel–Ziegler: a dividend of 20 000 digits
/// divided by one of 19 999 (a digit of pi in the spigot, the 55 bits of a
/// correctly rounded `a / b`) cost it dozens of partial divisions and
/// copies, where one small division of the leading bits, one
/// multiplication by the quotient and one subtraction do. None where the
/// library's own division is the right one.
pub(super) fn div_rem_short(n: &BigUint, d: &BigUint) -> Option<(BigUint, BigUint)> {
    let (nb, db) = (n.bits(), d.bits());
    if nb <= BZ_DIVIDEND_BITS || db <= BZ_DIVISOR_BITS || nb < db {
        return None;
    }
    let qbits = nb - db + 1;
    if qbits > SHORT_QUOTIENT_BITS {
        return None;
    }
    // Drop the low `t` bits of both, keeping 64 guard bits of the divisor
    // beyond the quotient's length: with n' = n >> t, d' = d >> t, the true
    // quotient lies within one of n' / d' (n/d < (n'+1)/d' and
    // n/d > n'/(d'+1) > n'/d' - 1 since d' > 2**63 * (n'/d' + 1)).
    let t = db - (qbits + 64);
    let mut q = (n >> t) / (d >> t);
    let mut p = &q * d;
    while p > *n {
        q -= 1u32;
        p -= d;
    }
    // `n - p` reuses the storage of `p`.
    let mut r = n - p;
    while r >= *d {
        q += 1u32;
        r -= d;
    }
    Some((q, r))
}

/// Truncated `(a / b, a % b)` (`b != 0`): the quotient rounds toward zero,
/// the remainder has the dividend's sign.
pub fn div_rem_trunc(a: &BigInt, b: &BigInt) -> (BigInt, BigInt) {
    match div_rem_short(a.magnitude(), b.magnitude()) {
        Some((q, r)) => {
            let qs = if a.sign() == b.sign() {
                Sign::Plus
            } else {
                Sign::Minus
            };
            (
                BigInt::from_biguint(qs, q),
                BigInt::from_biguint(a.sign(), r),
            )
        }
        None => num_integer::Integer::div_rem(a, b),
    }
}

/// Python's `divmod(a, b)` (`b != 0`): the quotient rounded toward minus
/// infinity, the remainder with the divisor's sign; one division.
pub fn div_mod_floor(a: &BigInt, b: &BigInt) -> (BigInt, BigInt) {
    let (mut q, mut r) = div_rem_trunc(a, b);
    if !r.is_zero() && r.is_negative() != b.is_negative() {
        q -= 1u32;
        r += b;
    }
    (q, r)
}

/// `divmod(x, y)` on two ints, at least one past 64 bits.
pub fn divmod_big(x: Num, y: Num) -> PyResult<(Value, Value)> {
    let (a, b) = (big_of(x), big_of(y));
    if b.is_zero() {
        return Err(PyErr::new(
            ExcType::ZeroDivisionError,
            "integer division or modulo by zero",
        ));
    }
    let (q, r) = div_mod_floor(&a, &b);
    Ok((Value::from_big(q), Value::from_big(r)))
}

/// MemoryError when `a op b` would build an int past [`MAX_BITS`].
pub fn check_size(op: BinOp, a: &BigInt, b: &BigInt) -> PyResult<()> {
    let bits = match op {
        BinOp::Mult => a.bits().saturating_add(b.bits()),
        _ => a.bits().max(b.bits()).saturating_add(1),
    };
    if bits > MAX_BITS {
        return Err(memory_error());
    }
    Ok(())
}

/// Whether [`long_assign_op`] computes `a op b` (an int `a` past 64 bits).
pub fn assignable(op: BinOp, b: &Value) -> bool {
    matches!(
        op,
        BinOp::Add | BinOp::Sub | BinOp::Mult | BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor
    ) && matches!(b, Value::Int(_) | Value::Long(_) | Value::Bool(_))
}

/// `*a = a op b` for `+ - * & | ^` ([`assignable`]), where `a` is an int
/// past 64 bits held by the caller and `b` is an int: in the storage of `a`
/// when no other reference shares it, else into a new one. `a` is
/// unchanged when this fails (MemoryError).
pub fn long_assign_op(op: BinOp, a: &mut Value, b: Num) -> PyResult<()> {
    let Value::Long(rc) = a else {
        return Err(PyErr::new(
            ExcType::SystemError,
            "long_assign_op: not a big int",
        ));
    };
    let y = big_of(b);
    check_size(op, rc, &y)?;
    let small = match Rc::get_mut(rc) {
        Some(m) => {
            match op {
                BinOp::Add => *m += &*y,
                BinOp::Sub => *m -= &*y,
                BinOp::Mult => *m *= &*y,
                BinOp::BitAnd => *m &= &*y,
                BinOp::BitOr => *m |= &*y,
                _ => *m ^= &*y,
            }
            m.to_i64()
        }
        None => {
            let x: &BigInt = rc;
            *a = Value::from_big(match op {
                BinOp::Add => x + &*y,
                BinOp::Sub => x - &*y,
                BinOp::Mult => x * &*y,
                BinOp::BitAnd => x & &*y,
                BinOp::BitOr => x | &*y,
                _ => x ^ &*y,
            });
            return Ok(());
        }
    };
    if let Some(i) = small {
        *a = Value::Int(i);
    }
    Ok(())
}

/// `a op b` on two owned int operands, one past 64 bits, for an operator
/// [`assignable`] takes: the result is computed in the storage of
/// whichever operand nothing else shares (the left for every operator;
/// the right for the commutative ones and `-`).
pub fn long_binop_owned(op: BinOp, a: Value, b: Value) -> PyResult<Value> {
    let unique = |v: &Value| matches!(v, Value::Long(r) if Rc::strong_count(r) == 1);
    let (mut a, mut b) = (a, b);
    if unique(&b) && !unique(&a) {
        let Some(x) = super::num::num(&a) else {
            return Err(PyErr::new(
                ExcType::SystemError,
                "long_binop_owned: not an int",
            ));
        };
        if op == BinOp::Sub {
            // `a - b` as `-(b - a)`.
            long_assign_op(op, &mut b, x)?;
            return Ok(negate(b));
        }
        // `a op b` as `b op a` (commutative), in the storage of `b`.
        long_assign_op(op, &mut b, x)?;
        return Ok(b);
    }
    if !matches!(a, Value::Long(_)) {
        // Only the right operand is big, and it is shared.
        std::mem::swap(&mut a, &mut b);
        let Some(x) = super::num::num(&b) else {
            return Err(PyErr::new(
                ExcType::SystemError,
                "long_binop_owned: not an int",
            ));
        };
        long_assign_op(op, &mut a, x)?;
        return Ok(if op == BinOp::Sub { negate(a) } else { a });
    }
    let Some(y) = super::num::num(&b) else {
        return Err(PyErr::new(
            ExcType::SystemError,
            "long_binop_owned: not an int",
        ));
    };
    long_assign_op(op, &mut a, y)?;
    Ok(a)
}

/// `-v` for an int value, in place when its storage is not shared.
fn negate(v: Value) -> Value {
    match v {
        Value::Int(i) => Value::from_i128(-(i as i128)),
        Value::Long(mut rc) => match Rc::get_mut(&mut rc) {
            Some(m) => {
                let n = std::mem::take(m);
                Value::from_big(-n)
            }
            None => Value::from_big(-(&*rc)),
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_integer::Integer;

    /// A pseudo-random big int of about `bits` bits (xorshift digits).
    fn big(bits: u64, seed: &mut u64) -> BigInt {
        let mut digits = Vec::new();
        for _ in 0..bits.div_ceil(32) {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            digits.push(*seed as u32);
        }
        BigInt::from_slice(Sign::Plus, &digits)
    }

    #[test]
    fn short_quotients_match_the_library() {
        let mut seed = 0x9e37_79b9_7f4a_7c15;
        for db in [4097u64, 5000, 9000, 20000, 70000] {
            for extra in [0u64, 1, 2, 31, 63, 64, 65, 200, 1000, 1024, 1100] {
                let d: BigInt = big(db, &mut seed) + 1u32;
                let n = big(db + extra, &mut seed);
                let (nn, nd): (BigInt, BigInt) = (-n.clone(), -d.clone());
                for (a, b) in [(&n, &d), (&nn, &d), (&n, &nd), (&nn, &nd)] {
                    assert_eq!(div_rem_trunc(a, b), a.div_rem(b));
                    assert_eq!(div_mod_floor(a, b), a.div_mod_floor(b));
                }
                // Exact multiples and one below them (the corrections).
                let q = big(extra + 1, &mut seed);
                let m = &q * &d;
                assert_eq!(div_rem_trunc(&m, &d), m.div_rem(&d));
                let m1: BigInt = &m - 1u32;
                assert_eq!(div_rem_trunc(&m1, &d), m1.div_rem(&d));
            }
        }
    }

    #[test]
    fn in_place_only_when_unshared() {
        let x = BigInt::from(1u8) << 100u32;
        let mut a = Value::Long(Rc::new(x.clone()));
        let keep = a.clone();
        long_assign_op(BinOp::Add, &mut a, Num::I(1)).unwrap();
        // The shared value is untouched.
        assert!(matches!(&keep, Value::Long(r) if **r == x));
        assert!(matches!(&a, Value::Long(r) if **r == &x + 1));
        drop(keep);
        let before = match &a {
            Value::Long(r) => Rc::as_ptr(r),
            _ => unreachable!(),
        };
        long_assign_op(BinOp::Mult, &mut a, Num::I(3)).unwrap();
        assert!(matches!(&a, Value::Long(r) if Rc::as_ptr(r) == before && **r == (&x + 1) * 3));
        // A result that fits comes back inline.
        let mut c = Value::Long(Rc::new(x.clone()));
        long_assign_op(BinOp::Sub, &mut c, Num::B(&(&x - 5))).unwrap();
        assert!(matches!(c, Value::Int(5)));
        // `a - b` with the right operand unshared: -(b - a).
        let r =
            long_binop_owned(BinOp::Sub, Value::Int(7), Value::Long(Rc::new(x.clone()))).unwrap();
        assert!(matches!(&r, Value::Long(v) if **v == 7 - &x));
    }
}
