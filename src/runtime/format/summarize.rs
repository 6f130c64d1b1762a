//! TensorFlow's C++ `Tensor::SummarizeValue(summarize, print_v2=true)`, the
//! text `tf.print` and `tf.strings.format` show for a tensor: `[0 1 2 ... 7 8 9]`,
//! the first and last `summarize` entries of every dimension, elements as
//! C++'s `StrCat` writes them (`%g` with just enough digits to round-trip,
//! bools as `1`/`0`, strings in double quotes).

use super::super::dtype::{DType, Scalar};
use super::super::tensor::Tensor;

/// The text of `t` with `summarize` entries at each end of every dimension
/// (`-1`: all of them).
pub fn summarize(t: &Tensor, summarize: i64) -> String {
    let n = t.numel();
    let ends = if summarize < 0 {
        n
    } else {
        (summarize as usize).min(n)
    };
    let mut out = String::new();
    if t.rank() == 0 {
        if ends > 0 {
            out.push_str(&element(t, 0));
        }
        if n > ends {
            out.push_str("...");
        }
        return out;
    }
    dim(t, 0, ends, 0, &mut out);
    out
}

/// `PrintOneDimV2`: the sub-array of dimension `d` starting at flat `index`.
fn dim(t: &Tensor, d: usize, ends: usize, index: usize, out: &mut String) {
    let dims = t.dims();
    if d == dims.len() {
        out.push_str(&element(t, index));
        return;
    }
    out.push('[');
    let count = dims[d];
    let stride: usize = dims[d + 1..].iter().product();
    let start_of_end = ends.max(count.saturating_sub(ends));
    for i in 0..ends.min(count) {
        if i > 0 {
            spacing(d, dims.len(), out);
        }
        dim(t, d + 1, ends, index + stride * i, out);
    }
    if count > 2 * ends {
        spacing(d, dims.len(), out);
        out.push_str("...");
    }
    for i in start_of_end..count {
        spacing(d, dims.len(), out);
        dim(t, d + 1, ends, index + stride * i, out);
    }
    out.push(']');
}

/// `PrintDimSpacing`: a space between elements of the last dimension, else
/// one newline per inner dimension and an indent.
fn spacing(d: usize, rank: usize, out: &mut String) {
    if d == rank - 1 {
        out.push(' ');
        return;
    }
    for _ in 0..rank - d - 1 {
        out.push('\n');
    }
    for _ in 0..=d {
        out.push(' ');
    }
}

/// One element as `StrCat` writes it.
fn element(t: &Tensor, i: usize) -> String {
    match t.get(i) {
        Some(Scalar::Bool(b)) => (if b { "1" } else { "0" }).to_string(),
        Some(Scalar::Int(v)) => v.to_string(),
        Some(Scalar::Float(x)) => match t.dtype() {
            DType::Float64 => round_trip_g(x, 15, 17, |s| s.parse::<f64>().ok() == Some(x)),
            _ => {
                let f = x as f32;
                round_trip_g(x, 6, 9, |s| s.parse::<f32>().ok() == Some(f))
            }
        },
        // TensorFlow's summaries have no text for complex elements
        Some(Scalar::Complex(..)) => "?".to_string(),
        Some(Scalar::Bytes(b)) => format!("\"{}\"", c_escape(&b)),
        None => String::new(),
    }
}

/// `absl::Utf8SafeCEscape`: C escapes for quotes, backslashes and control
/// bytes; UTF-8 passes through.
fn c_escape(b: &[u8]) -> String {
    let mut out = String::new();
    let text = String::from_utf8_lossy(b);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '"' => out.push_str("\\\""),
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\{:03o}", c as u32))
            }
            c => out.push(c),
        }
    }
    out
}

/// `FloatToBuffer`/`DoubleToBuffer`: `%.{short}g`, or `%.{long}g` when that
/// does not read back as the same value.
fn round_trip_g(x: f64, short: usize, long: usize, same: impl Fn(&str) -> bool) -> String {
    let s = c_g(x, short);
    if x.is_finite() && !same(&s) {
        return c_g(x, long);
    }
    s
}

/// C's `printf("%.{prec}g", x)`.
pub fn c_g(x: f64, prec: usize) -> String {
    if x.is_nan() {
        return if x.is_sign_negative() { "-nan" } else { "nan" }.to_string();
    }
    if x.is_infinite() {
        return if x < 0.0 { "-inf" } else { "inf" }.to_string();
    }
    let prec = prec.max(1);
    // the exponent after rounding to `prec` significant digits
    let sci = format!("{:.*e}", prec - 1, x);
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if exp < -4 || exp >= prec as i32 {
        let mant = trim_zeros(mant);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mant}e{sign}{:02}", exp.abs())
    } else {
        let frac = (prec as i32 - 1 - exp).max(0) as usize;
        trim_zeros(&format!("{:.*}", frac, x)).to_string()
    }
}

/// `%g` drops trailing zeros of the fraction, and the point with them.
fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn g_formats_as_c_does() {
        assert_eq!(c_g(0.5, 6), "0.5");
        assert_eq!(c_g(1e-7, 6), "1e-07");
        assert_eq!(c_g(1e20, 6), "1e+20");
        assert_eq!(c_g(123456792.0, 6), "1.23457e+08");
        assert_eq!(c_g(100000.0, 6), "100000");
        assert_eq!(c_g(-0.0, 6), "-0");
        assert_eq!(c_g(2.5e-5, 15), "2.5e-05");
    }

    #[test]
    fn summaries_match_tensorflow() {
        let t = Tensor::from_vec((0..100).collect::<Vec<i32>>(), &[10, 10]).unwrap();
        assert_eq!(
            summarize(&t, 3),
            "[[0 1 2 ... 7 8 9]\n [10 11 12 ... 17 18 19]\n [20 21 22 ... 27 28 29]\n ...\n \
             [70 71 72 ... 77 78 79]\n [80 81 82 ... 87 88 89]\n [90 91 92 ... 97 98 99]]"
        );
        let f = Tensor::from_vec(vec![1.0f32 / 3.0, 0.7, 123456789.0], &[3]).unwrap();
        assert_eq!(summarize(&f, 3), "[0.333333343 0.7 123456792]");
        let e = Tensor::from_vec(Vec::<f32>::new(), &[2, 0]).unwrap();
        assert_eq!(summarize(&e, 3), "[\n ...]");
    }
}
