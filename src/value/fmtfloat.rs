//! The digits of a float for each presentation type of the format-spec
//! mini-language (`f`, `e`, `g`, `%`, and the type-less general form),
//! correctly rounded from the exact binary value (Rust's fixed-precision
//! formatting rounds exactly, ties to even, as CPython's `dtoa` does).

use super::format::float_repr;

/// Past these many digits a double's exact decimal expansion is all zeros
/// (at most 1074 fractional and 767 significant digits), and Rust's
/// formatter refuses precisions above `u16::MAX`: format this many and pad.
const EXACT_FIXED: usize = 1100;
const EXACT_SCI: usize = 800;

/// `x` with `p` digits after the point, correctly rounded (any `p`).
pub fn fixed(x: f64, p: usize) -> String {
    let mut s = format!("{:.*}", p.min(EXACT_FIXED), x);
    if p > EXACT_FIXED && x.is_finite() {
        s.push_str(&"0".repeat(p - EXACT_FIXED));
    }
    s
}

/// `x` as Rust's `{:.p$e}` (`1.500e3`), for any `p`.
fn sci_raw(x: f64, p: usize) -> String {
    let s = format!("{:.*e}", p.min(EXACT_SCI), x);
    match (p > EXACT_SCI, s.find('e')) {
        (true, Some(i)) => format!("{}{}{}", &s[..i], "0".repeat(p - EXACT_SCI), &s[i..]),
        _ => s,
    }
}

/// Decimal exponent of a finite nonzero `x` once rounded to `sig` significant digits.
fn exponent_at(x: f64, sig: usize) -> i32 {
    let s = sci_raw(x, sig.saturating_sub(1));
    s.rsplit_once('e')
        .and_then(|(_, e)| e.parse().ok())
        .unwrap_or(0)
}

/// `x` (non-negative) in scientific notation with `prec` digits after the point.
fn sci(x: f64, prec: usize, alternate: bool, upper: bool) -> String {
    let s = sci_raw(x, prec);
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let dot = if alternate && prec == 0 { "." } else { "" };
    let e = if upper { 'E' } else { 'e' };
    format!(
        "{mant}{dot}{e}{}{:02}",
        if exp < 0 { '-' } else { '+' },
        exp.abs()
    )
}

fn strip_zeros(s: String) -> String {
    let (num, exp) = match s.find(['e', 'E']) {
        Some(i) => (s[..i].to_string(), s[i..].to_string()),
        None => (s, String::new()),
    };
    if !num.contains('.') {
        return format!("{num}{exp}");
    }
    let num = num.trim_end_matches('0').trim_end_matches('.');
    format!("{num}{exp}")
}

/// The digits of a non-negative float for presentation type `ty`
/// (`None` is the no-type form: repr-like, or general with precision).
pub fn float_body(x: f64, ty: Option<char>, prec: Option<usize>, alternate: bool) -> String {
    let upper = matches!(ty, Some('E' | 'F' | 'G'));
    if !x.is_finite() {
        let s = if x.is_nan() { "nan" } else { "inf" };
        return if upper {
            s.to_uppercase()
        } else {
            s.to_string()
        };
    }
    match ty {
        Some('f' | 'F') => {
            let p = prec.unwrap_or(6);
            let dot = if alternate && p == 0 { "." } else { "" };
            format!("{}{dot}", fixed(x, p))
        }
        Some('%') => {
            let p = prec.unwrap_or(6);
            let dot = if alternate && p == 0 { "." } else { "" };
            format!("{}{dot}", fixed(x * 100.0, p))
        }
        Some('e' | 'E') => sci(x, prec.unwrap_or(6), alternate, upper),
        Some('g' | 'G' | 'n') => general(x, prec.unwrap_or(6).max(1), alternate, upper, false),
        _ => match prec {
            None => {
                let r = float_repr(x);
                match (alternate, r.contains('.'), r.find('e')) {
                    (true, false, Some(i)) => format!("{}.{}", &r[..i], &r[i..]),
                    _ => r,
                }
            }
            Some(p) => general(x, p.max(1), alternate, upper, true),
        },
    }
}

/// General format with `p` significant digits. `no_type` is the spec without a
/// type letter: it keeps one fractional digit and switches to exponent one
/// digit earlier, as CPython's `repr`-style general format does.
fn general(x: f64, p: usize, alternate: bool, upper: bool, no_type: bool) -> String {
    let exp = if x == 0.0 { 0 } else { exponent_at(x, p) };
    let limit = if no_type { p as i32 - 1 } else { p as i32 };
    let s = if (-4..limit).contains(&exp) {
        let decimals = (p as i32 - 1 - exp).max(0) as usize;
        fixed(x, decimals)
    } else {
        sci(x, p - 1, false, upper)
    };
    if alternate {
        if !s.contains('.') {
            return match s.find(['e', 'E']) {
                Some(i) => format!("{}.{}", &s[..i], &s[i..]),
                None => format!("{s}."),
            };
        }
        return s;
    }
    let s = strip_zeros(s);
    if no_type && !s.contains(['.', 'e', 'E']) {
        return format!("{s}.0");
    }
    s
}
