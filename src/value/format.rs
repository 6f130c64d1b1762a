//! Text forms of builtin scalars exactly as CPython writes them: float repr
//! (shortest round trip, Python's switch to exponent notation), string and
//! bytes reprs (quote choice and escapes). The format-spec mini-language
//! lives in `fmtspec`, `%`-formatting in `percent`, rounding in `round`;
//! they are re-exported here.

pub use super::fmtspec::{format_builtin, format_float, format_int, format_str};
pub use super::percent::percent_format;
pub use super::round::{float_to_int, round_big, round_float, round_int, round_to_int};
pub use crate::syntax::printable::is_printable;

/// `repr(x)` of a float: `0.1`, `1e-05`, `1e+16`, `1.0`, `inf`, `nan`.
pub fn float_repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if x == 0.0 {
        return if x.is_sign_negative() {
            "-0.0".into()
        } else {
            "0.0".into()
        };
    }
    // The shortest round-trip digit count comes from Rust's `{:e}`; the
    // digits themselves are then the correctly rounded ones of that length,
    // as CPython's dtoa gives: where two shortest strings are equally near
    // (x = 1030391001507030.25), `{:e}` may pick either, dtoa the even one.
    let shortest = format!("{:e}", x.abs());
    let n = shortest
        .split_once('e')
        .map_or(&*shortest, |(m, _)| m)
        .chars()
        .filter(char::is_ascii_digit)
        .count();
    // Where x is a power of two the gap below it is half the gap above, so
    // the correctly rounded string may fall nearer the neighbour below
    // (2.0**-24): then the shortest string is the one that round-trips.
    let rounded = format!("{:.*e}", n.saturating_sub(1), x.abs());
    let sci = if rounded.parse::<f64>() == Ok(x.abs()) {
        rounded
    } else {
        shortest
    };
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    let sign = if x < 0.0 { "-" } else { "" };
    if !(-4..16).contains(&exp) {
        let m = if digits.len() > 1 {
            format!("{}.{}", &digits[..1], &digits[1..])
        } else {
            digits.clone()
        };
        return format!(
            "{sign}{m}e{}{:02}",
            if exp < 0 { '-' } else { '+' },
            exp.abs()
        );
    }
    let n = digits.len() as i32;
    let body = if exp < 0 {
        format!("0.{}{}", "0".repeat((-exp - 1) as usize), digits)
    } else if exp + 1 >= n {
        format!("{}{}.0", digits, "0".repeat((exp + 1 - n) as usize))
    } else {
        let p = (exp + 1) as usize;
        format!("{}.{}", &digits[..p], &digits[p..])
    };
    format!("{sign}{body}")
}

/// `repr(s)` of a string: single quotes unless the string contains a single
/// quote and no double quote; escapes as CPython.
pub fn str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if !is_printable(c) => {
                let u = c as u32;
                if u < 0x100 {
                    out.push_str(&format!("\\x{u:02x}"));
                } else if u <= 0xffff {
                    out.push_str(&format!("\\u{u:04x}"));
                } else {
                    out.push_str(&format!("\\U{u:08x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// `repr(b)` of bytes: `b'...'` with `\xNN` escapes for non-printable bytes.
pub fn bytes_repr(b: &[u8]) -> String {
    let quote = if b.contains(&b'\'') && !b.contains(&b'"') {
        b'"'
    } else {
        b'\''
    };
    let mut out = String::from("b");
    out.push(quote as char);
    for &c in b {
        match c {
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c as char);
            }
            0x20..=0x7e => out.push(c as char),
            c => out.push_str(&format!("\\x{c:02x}")),
        }
    }
    out.push(quote as char);
    out
}

/// `ascii(x)`'s escaping of a repr: every non-ASCII character becomes
/// `\xNN`, `\uNNNN` or `\UNNNNNNNN`.
pub fn ascii_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        let n = c as u32;
        if n < 0x80 {
            out.push(c);
        } else if n < 0x100 {
            out.push_str(&format!("\\x{n:02x}"));
        } else if n < 0x10000 {
            out.push_str(&format!("\\u{n:04x}"));
        } else {
            out.push_str(&format!("\\U{n:08x}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_like_cpython() {
        for (x, want) in [
            (0.1, "0.1"),
            (1e-5, "1e-05"),
            (1e16, "1e+16"),
            (1.0, "1.0"),
            (123456789012345.6, "123456789012345.6"),
            (1.5e300, "1.5e+300"),
            (-2.5, "-2.5"),
            (0.0001, "0.0001"),
            (1e15, "1000000000000000.0"),
        ] {
            assert_eq!(float_repr(x), want);
        }
    }

    #[test]
    fn strings_like_cpython() {
        assert_eq!(str_repr("a'b"), "\"a'b\"");
        assert_eq!(str_repr("a'b\""), "'a\\'b\"'");
        assert_eq!(str_repr("x\ny"), "'x\\ny'");
    }
}
