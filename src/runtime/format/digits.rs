//! Decimal digit generation for floats, the part of numpy's Dragon4 that the
//! printers need: shortest round-trip digits of a value *at its own
//! precision* (a float32 prints float32-shortest digits), and correctly
//! rounded digits (ties to even) at a fixed count. Also Python's `repr(float)`.

use crate::runtime::f16::F16;

/// Which IEEE width a value came from; decides its shortest digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FloatKind {
    /// binary16.
    F16,
    /// binary32.
    F32,
    /// binary64.
    F64,
}

/// Decimal digits of a finite value: `value = ±d1.d2d3… × 10^exp`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Digits {
    /// Sign bit set (including `-0.0`).
    pub neg: bool,
    /// ASCII digits, no leading zeros (a zero value is `"0"`), no trailing zeros.
    pub digits: Vec<u8>,
    /// Decimal exponent of the first digit.
    pub exp: i32,
}

impl Digits {
    /// Digits after the decimal point when written positionally.
    pub fn frac_len(&self) -> usize {
        (self.digits.len() as i32 - 1 - self.exp).max(0) as usize
    }

    /// Digits after the point of the mantissa in scientific form.
    pub fn sci_frac_len(&self) -> usize {
        self.digits.len() - 1
    }

    fn is_zero(&self) -> bool {
        self.digits == b"0"
    }

    /// Positional text: integer part (with `-`) and fraction digits, padded with
    /// zeros to at least `min_frac` fraction digits.
    pub fn positional_parts(&self, min_frac: usize) -> (String, String) {
        let mut int = String::new();
        if self.neg {
            int.push('-');
        }
        let mut frac = String::new();
        if self.is_zero() {
            int.push('0');
        } else if self.exp < 0 {
            int.push('0');
            for _ in 0..(-self.exp - 1) {
                frac.push('0');
            }
            frac.push_str(std::str::from_utf8(&self.digits).unwrap_or(""));
        } else {
            let e = self.exp as usize;
            for i in 0..=e {
                int.push(*self.digits.get(i).unwrap_or(&b'0') as char);
            }
            if self.digits.len() > e + 1 {
                frac.push_str(std::str::from_utf8(&self.digits[e + 1..]).unwrap_or(""));
            }
        }
        while frac.len() < min_frac {
            frac.push('0');
        }
        (int, frac)
    }

    /// Scientific parts: mantissa integer digit (with `-`), mantissa fraction
    /// (zero-padded to `min_frac`), exponent sign and digits (zero-padded to
    /// at least `min_exp_digits`).
    pub fn scientific_parts(
        &self,
        min_frac: usize,
        min_exp_digits: usize,
    ) -> (String, String, String) {
        let mut int = String::new();
        if self.neg {
            int.push('-');
        }
        int.push(self.digits[0] as char);
        let mut frac = String::from(std::str::from_utf8(&self.digits[1..]).unwrap_or(""));
        while frac.len() < min_frac {
            frac.push('0');
        }
        let e = if self.is_zero() { 0 } else { self.exp };
        let mut ed = e.unsigned_abs().to_string();
        while ed.len() < min_exp_digits {
            ed.insert(0, '0');
        }
        let exp = format!("{}{}", if e < 0 { '-' } else { '+' }, ed);
        (int, frac, exp)
    }
}

/// Parses Rust's `{:e}` output (`-1.25e-3`) into [`Digits`].
fn parse_sci(s: &str) -> Digits {
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let (mant, exp) = s.split_once('e').unwrap_or((s, "0"));
    let mut digits: Vec<u8> = mant.bytes().filter(|b| b.is_ascii_digit()).collect();
    while digits.len() > 1 && digits.last() == Some(&b'0') {
        digits.pop();
    }
    let exp = exp.parse::<i32>().unwrap_or(0);
    let zero = digits.iter().all(|&d| d == b'0');
    if zero {
        return Digits {
            neg,
            digits: b"0".to_vec(),
            exp: 0,
        };
    }
    Digits { neg, digits, exp }
}

/// Shortest digits that round-trip to `x` at the precision of `kind`
/// (closest such digits when several have the same length).
pub fn shortest(x: f64, kind: FloatKind) -> Digits {
    let s = match kind {
        FloatKind::F64 => format!("{x:e}"),
        FloatKind::F32 => format!("{:e}", x as f32),
        FloatKind::F16 => return shortest_f16(x),
    };
    // Rust breaks exact ties between two shortest candidates upward; Dragon4
    // takes the correctly rounded one (ties to even) when it round-trips.
    let d = parse_sci(&s);
    if d.digits.len() > 1 {
        let alt_text = format!("{:.*e}", d.digits.len() - 1, x);
        let round_trips = match kind {
            FloatKind::F32 => alt_text
                .parse::<f32>()
                .map(|v| v == x as f32)
                .unwrap_or(false),
            _ => alt_text.parse::<f64>().map(|v| v == x).unwrap_or(false),
        };
        if round_trips {
            let alt = parse_sci(&alt_text);
            if alt.digits.len() <= d.digits.len() {
                return alt;
            }
        }
    }
    d
}

fn shortest_f16(x: f64) -> Digits {
    let h = F16::from_f64(x);
    if x == 0.0 {
        return Digits {
            neg: x.is_sign_negative(),
            digits: b"0".to_vec(),
            exp: 0,
        };
    }
    for p in 1..=5usize {
        let c = parse_sci(&format!("{:.*e}", p - 1, x));
        let mut best: Option<(f64, Digits)> = None;
        // the closest p-digit decimal, and its neighbours (the rounding
        // interval is lopsided at powers of two)
        for delta in [0i64, -1, 1] {
            let cand = bump(&c, p, delta);
            let v: f64 = to_f64(&cand);
            if F16::from_f64(v) == h {
                let d = (v - x).abs();
                if best.as_ref().is_none_or(|(bd, _)| d < *bd) {
                    best = Some((d, cand));
                }
            }
        }
        if let Some((_, d)) = best {
            return d;
        }
    }
    parse_sci(&format!("{x:e}"))
}

/// `d` (with exactly `p` significant digits, zero-padded) moved by `delta`
/// units in its last place.
fn bump(d: &Digits, p: usize, delta: i64) -> Digits {
    let mut s: Vec<u8> = d.digits.clone();
    s.resize(p, b'0');
    let mut n: i64 = std::str::from_utf8(&s)
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(0);
    n += delta;
    let mut exp = d.exp;
    if n <= 0 {
        return d.clone();
    }
    let txt = n.to_string();
    if txt.len() > p {
        exp += 1;
    } else if txt.len() < p {
        exp -= 1;
    }
    parse_sci(&format!(
        "{}{}.{}e{}",
        if d.neg { "-" } else { "" },
        &txt[..1],
        &txt[1..],
        exp
    ))
}

fn to_f64(d: &Digits) -> f64 {
    let s = format!(
        "{}0.{}e{}",
        if d.neg { "-" } else { "" },
        std::str::from_utf8(&d.digits).unwrap_or("0"),
        d.exp + 1
    );
    s.parse().unwrap_or(f64::NAN)
}

/// Digits of `x` correctly rounded (ties to even) to `frac` fractional digits.
pub fn rounded_positional(x: f64, frac: usize) -> Digits {
    let s = format!("{:.*}", frac, x);
    let neg = s.starts_with('-') || x.is_sign_negative();
    let body = s.trim_start_matches('-');
    let (ip, fp) = body.split_once('.').unwrap_or((body, ""));
    let all: String = format!("{ip}{fp}");
    let lead = all.bytes().take_while(|&b| b == b'0').count();
    if lead == all.len() {
        return Digits {
            neg,
            digits: b"0".to_vec(),
            exp: 0,
        };
    }
    let exp = ip.len() as i32 - 1 - lead as i32;
    let mut digits: Vec<u8> = all.bytes().skip(lead).collect();
    while digits.len() > 1 && digits.last() == Some(&b'0') {
        digits.pop();
    }
    Digits { neg, digits, exp }
}

/// Digits of `x` correctly rounded (ties to even) to `sig` significant digits.
pub fn rounded_scientific(x: f64, sig: usize) -> Digits {
    let mut d = parse_sci(&format!("{:.*e}", sig.saturating_sub(1), x));
    d.neg = x.is_sign_negative();
    d
}

/// numpy's `dragon4_positional(x, precision=p, unique=True)` digits: the
/// shortest digits when they need at most `p` fraction digits, else rounded.
///
/// Dragon4 in positional mode always produces the exact digits down to the
/// units place (`float16(10784)` prints `10784.`, not its shortest `1078e1`).
pub fn maxprec_positional(x: f64, kind: FloatKind, p: usize) -> Digits {
    let s = shortest(x, kind);
    if s.frac_len() > p {
        rounded_positional(x, p)
    } else if (s.digits.len() as i32) < s.exp + 1 {
        rounded_positional(x, 0)
    } else {
        s
    }
}

/// numpy's `dragon4_scientific(x, precision=p, unique=True)` digits.
pub fn maxprec_scientific(x: f64, kind: FloatKind, p: usize) -> Digits {
    dragon4_scientific(x, kind, p, 0)
}

/// numpy's `dragon4_scientific(x, precision=max, min_digits=min, unique=True)`:
/// Dragon4 stops at the shortest unique digits unless that is more than
/// `max` fraction digits (then it rounds there) or fewer than `min` (then it
/// keeps producing the value's exact digits and rounds at `min`).
pub fn dragon4_scientific(x: f64, kind: FloatKind, max: usize, min: usize) -> Digits {
    let s = shortest(x, kind);
    let k = s.sci_frac_len();
    if k > max {
        rounded_scientific(x, max + 1)
    } else if k < min {
        rounded_scientific(x, min + 1)
    } else {
        s
    }
}

/// Python's `repr(float)`: `1.0`, `2.5`, `1e+20`, `1.5e-05`, `nan`, `-inf`.
pub fn python_float_repr(x: f64) -> String {
    scalar_float_text(x, FloatKind::F64, -4, 16)
}

/// numpy's legacy scalar `str`/`repr` of a float (`np.float32(0.1)` → `0.1`):
/// positional with `.0` for `1e-4 <= |x| < 1e16` (and 0), scientific otherwise.
pub fn numpy_scalar_float(x: f64, kind: FloatKind) -> String {
    scalar_float_text(x, kind, -4, 16)
}

/// Python's `repr(complex)` (kind `F64`) and numpy's legacy scalar text of
/// a complex element, whose parts print with their float type's shortest
/// digits: `(1+2j)`, `2j`, `(-0-1.5j)`, `(nan+infj)`, `(1e+20+1j)`.
pub fn numpy_scalar_complex(re: f64, im: f64, kind: FloatKind) -> String {
    let part = |x: f64| {
        let s = scalar_float_text(x, kind, -4, 16);
        match s.strip_suffix(".0") {
            Some(t) => t.to_string(),
            None => s,
        }
    };
    let imag = part(im);
    if re == 0.0 && re.is_sign_positive() {
        return format!("{imag}j");
    }
    let sign = if imag.starts_with('-') { "" } else { "+" };
    format!("({}{sign}{imag}j)", part(re))
}

fn scalar_float_text(x: f64, kind: FloatKind, lo: i32, hi: i32) -> String {
    if x.is_nan() {
        return "nan".to_string();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf" } else { "inf" }.to_string();
    }
    let a = x.abs();
    let positional = a == 0.0 || (a >= 10f64.powi(lo) && a < 10f64.powi(hi));
    if positional {
        let d = shortest(x, kind);
        let (i, f) = d.positional_parts(1);
        format!("{i}.{f}")
    } else {
        let d = shortest(x, kind);
        let (i, f, e) = d.scientific_parts(0, 2);
        if f.is_empty() {
            format!("{i}e{e}")
        } else {
            format!("{i}.{f}e{e}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_repr() {
        assert_eq!(python_float_repr(2.5), "2.5");
        assert_eq!(python_float_repr(1.0), "1.0");
        assert_eq!(python_float_repr(1e20), "1e+20");
        assert_eq!(python_float_repr(1.5e-5), "1.5e-05");
        assert_eq!(python_float_repr(-0.0), "-0.0");
        assert_eq!(python_float_repr(123456789012.0), "123456789012.0");
        assert_eq!(python_float_repr(1e16), "1e+16");
        assert_eq!(python_float_repr(0.0001), "0.0001");
    }

    #[test]
    fn own_precision_digits() {
        assert_eq!(numpy_scalar_float(0.1f32 as f64, FloatKind::F32), "0.1");
        assert_eq!(
            numpy_scalar_float(F16::from_f64(0.1).to_f64(), FloatKind::F16),
            "0.1"
        );
        assert_eq!(numpy_scalar_float(1000.0, FloatKind::F16), "1000.0");
        let d = maxprec_positional(0.001953125, FloatKind::F64, 8);
        assert_eq!(
            d.positional_parts(0),
            ("0".to_string(), "00195312".to_string())
        );
    }
}
