//! Per-element formatters, chosen from the data as numpy's
//! `_get_format_function` does: `FloatingFormat` (maxprec, precision 8,
//! legacy 1.25), `IntegerFormat`, `BoolFormat`, and `repr` for byte strings.

use super::digits::{dragon4_scientific, maxprec_positional, maxprec_scientific, FloatKind};
use crate::runtime::f16::F16;
use crate::runtime::storage::HostData;

/// numpy's print precision option.
const PRECISION: usize = 8;

/// A formatter for the elements of one array.
#[derive(Debug, Clone)]
pub enum ElemFormat {
    /// `True`/`False`; `true_str` is `" True"` except in 0-d arrays.
    Bool {
        /// Text for true.
        true_str: &'static str,
    },
    /// Integers right-aligned to `width`.
    Int {
        /// Column width.
        width: usize,
    },
    /// Floats.
    Float(FloatFormat),
    /// Complex numbers: numpy's `ComplexFloatingFormat`, a format for the
    /// real parts and one with a `+` sign for the imaginary parts.
    Complex(FloatFormat, FloatFormat),
    /// Byte strings as Python `repr(bytes)`, unpadded.
    Bytes,
}

/// numpy's `FloatingFormat` state after `fillFormat`.
#[derive(Debug, Clone)]
pub struct FloatFormat {
    kind: FloatKind,
    /// numpy's `sign='+'`: non-negative values show a `+`.
    plus: bool,
    exp_format: bool,
    precision: usize,
    min_digits: usize,
    pad_left: usize,
    pad_right: usize,
    exp_size: usize,
}

impl ElemFormat {
    /// Chooses the formatter for `data` restricted to the flat indices `sel`
    /// (numpy looks only at the printed corners of a summarised array).
    pub fn new(data: &HostData, sel: &[usize], zero_dim: bool) -> ElemFormat {
        match data {
            HostData::Bool(_) => ElemFormat::Bool {
                true_str: if zero_dim { "True" } else { " True" },
            },
            HostData::I8(v) => int_format(sel.iter().map(|&i| v[i] as i64)),
            HostData::U8(v) => int_format(sel.iter().map(|&i| v[i] as i64)),
            HostData::I16(v) => int_format(sel.iter().map(|&i| v[i] as i64)),
            HostData::I32(v) => int_format(sel.iter().map(|&i| v[i] as i64)),
            HostData::I64(v) => int_format(sel.iter().map(|&i| v[i])),
            HostData::F16(v) => ElemFormat::Float(FloatFormat::new(
                FloatKind::F16,
                sel.iter().map(|&i| v[i].to_f64()),
            )),
            HostData::F32(v) => ElemFormat::Float(FloatFormat::new(
                FloatKind::F32,
                sel.iter().map(|&i| v[i] as f64),
            )),
            HostData::F64(v) => {
                ElemFormat::Float(FloatFormat::new(FloatKind::F64, sel.iter().map(|&i| v[i])))
            }
            HostData::C64(v) => ElemFormat::complex(FloatKind::F32, || {
                sel.iter().map(|&i| (v[i].re as f64, v[i].im as f64))
            }),
            HostData::C128(v) => {
                ElemFormat::complex(FloatKind::F64, || sel.iter().map(|&i| (v[i].re, v[i].im)))
            }
            HostData::Str(_) => ElemFormat::Bytes,
        }
    }

    fn complex<I: Iterator<Item = (f64, f64)>>(
        kind: FloatKind,
        vals: impl Fn() -> I,
    ) -> ElemFormat {
        ElemFormat::Complex(
            FloatFormat::new(kind, vals().map(|c| c.0)),
            FloatFormat::signed(kind, vals().map(|c| c.1)),
        )
    }

    /// Formats element `i` of `data`.
    pub fn format(&self, data: &HostData, i: usize) -> String {
        match (self, data) {
            (ElemFormat::Bool { true_str }, HostData::Bool(v)) => {
                if v[i] { true_str } else { "False" }.to_string()
            }
            (ElemFormat::Int { width }, d) => {
                let x = match d {
                    HostData::I8(v) => v[i] as i64,
                    HostData::U8(v) => v[i] as i64,
                    HostData::I16(v) => v[i] as i64,
                    HostData::I32(v) => v[i] as i64,
                    HostData::I64(v) => v[i],
                    _ => 0,
                };
                format!("{x:>width$}")
            }
            (ElemFormat::Float(f), d) => {
                let x = match d {
                    HostData::F16(v) => v[i].to_f64(),
                    HostData::F32(v) => v[i] as f64,
                    HostData::F64(v) => v[i],
                    _ => f64::NAN,
                };
                f.format(x)
            }
            (ElemFormat::Complex(re, im), d) => {
                let (x, y) = match d {
                    HostData::C64(v) => (v[i].re as f64, v[i].im as f64),
                    HostData::C128(v) => (v[i].re, v[i].im),
                    _ => (f64::NAN, f64::NAN),
                };
                let (r, mut j) = (re.format(x), im.format(y));
                // the `j` goes before the imaginary part's padding
                j.insert(j.trim_end().len(), 'j');
                r + &j
            }
            (ElemFormat::Bytes, HostData::Str(v)) => bytes_repr(&v[i]),
            _ => String::from("?"),
        }
    }
}

fn int_format(vals: impl Iterator<Item = i64>) -> ElemFormat {
    let mut lo: Option<i64> = None;
    let mut hi: Option<i64> = None;
    for x in vals {
        lo = Some(lo.map_or(x, |l| l.min(x)));
        hi = Some(hi.map_or(x, |h| h.max(x)));
    }
    let width = match (lo, hi) {
        (Some(l), Some(h)) => l.to_string().len().max(h.to_string().len()),
        _ => 0,
    };
    ElemFormat::Int { width }
}

impl FloatFormat {
    /// numpy's `fillFormat` over the values to be printed.
    pub fn new(kind: FloatKind, vals: impl Iterator<Item = f64>) -> FloatFormat {
        FloatFormat::fill(kind, false, vals)
    }

    /// [`FloatFormat::new`] with numpy's `sign='+'`.
    pub fn signed(kind: FloatKind, vals: impl Iterator<Item = f64>) -> FloatFormat {
        FloatFormat::fill(kind, true, vals)
    }

    fn fill(kind: FloatKind, plus: bool, vals: impl Iterator<Item = f64>) -> FloatFormat {
        let vals: Vec<f64> = vals.collect();
        let finite: Vec<f64> = vals.iter().copied().filter(|x| x.is_finite()).collect();
        let mut exp_format = false;
        let mut max_val = f64::NEG_INFINITY;
        let mut min_val = f64::INFINITY;
        for &x in &finite {
            if x != 0.0 {
                max_val = max_val.max(x.abs());
                min_val = min_val.min(x.abs());
            }
        }
        if max_val.is_finite() {
            // numpy compares and divides in the array's own dtype (the Python
            // floats 1e8, 1e-4 and 1000 are cast to it), so do the same
            exp_format = match kind {
                FloatKind::F64 => max_val >= 1e8 || min_val < 0.0001 || max_val / min_val > 1000.0,
                FloatKind::F32 => {
                    let (a, b) = (max_val as f32, min_val as f32);
                    a >= 1e8f32 || b < 0.0001f32 || a / b > 1000.0f32
                }
                FloatKind::F16 => {
                    let lim = F16::from_f64(0.0001).to_f32();
                    let (a, b) = (max_val as f32, min_val as f32);
                    let ratio = F16::from_f32(a / b).to_f32();
                    b < lim || ratio > 1000.0
                }
            };
        }
        let mut f = FloatFormat {
            kind,
            plus,
            exp_format,
            precision: PRECISION,
            min_digits: 0,
            pad_left: 0,
            pad_right: 0,
            exp_size: 0,
        };
        if finite.is_empty() {
            f.exp_format = false;
        } else if exp_format {
            let mut exp_len = 0;
            f.precision = 0;
            for &x in &finite {
                let (i, fr, e) = maxprec_scientific(x, kind, PRECISION).scientific_parts(0, 2);
                f.pad_left = f.pad_left.max(i.len() + f.sign_len(&i));
                f.precision = f.precision.max(fr.len());
                exp_len = exp_len.max(e.len());
            }
            f.exp_size = exp_len - 1;
            f.min_digits = f.precision;
            f.pad_right = f.exp_size + 2 + f.precision;
        } else {
            for &x in &finite {
                let (i, fr) = maxprec_positional(x, kind, PRECISION).positional_parts(0);
                f.pad_left = f.pad_left.max(i.len() + f.sign_len(&i));
                f.pad_right = f.pad_right.max(fr.len());
            }
        }
        if finite.len() != vals.len() {
            let neginf = (plus || vals.contains(&f64::NEG_INFINITY)) as i64;
            let offset = f.pad_right as i64 + 1;
            let pl = (f.pad_left as i64).max(3 - offset).max(3 + neginf - offset);
            f.pad_left = pl.max(0) as usize;
        }
        f
    }

    /// The length of the `+` a signed format puts before integer part `i`.
    fn sign_len(&self, i: &str) -> usize {
        (self.plus && !i.starts_with('-')) as usize
    }

    /// Integer part `i` with the sign a signed format shows.
    fn signed_int(&self, i: String) -> String {
        if self.sign_len(&i) == 1 {
            format!("+{i}")
        } else {
            i
        }
    }

    /// Formats one value with the shared widths.
    pub fn format(&self, x: f64) -> String {
        if !x.is_finite() {
            let plus = if self.plus { "+" } else { "" };
            let ret = if x.is_nan() {
                format!("{plus}nan")
            } else if x < 0.0 {
                "-inf".to_string()
            } else {
                format!("{plus}inf")
            };
            let w = self.pad_left + self.pad_right + 1;
            return format!("{ret:>w$}");
        }
        let pl = self.pad_left;
        if self.exp_format {
            let d = dragon4_scientific(x, self.kind, self.precision, self.min_digits);
            let (i, fr, e) = d.scientific_parts(self.min_digits, self.exp_size);
            let i = self.signed_int(i);
            format!("{i:>pl$}.{fr}e{e}")
        } else {
            let d = maxprec_positional(x, self.kind, self.precision);
            let (i, fr) = d.positional_parts(0);
            let i = self.signed_int(i);
            let pr = self.pad_right;
            format!("{i:>pl$}.{fr:<pr$}")
        }
    }
}

/// Python's `repr(bytes)`: `b'hello'`, `b"it's"`, `b'\xff\n'`.
pub fn bytes_repr(b: &[u8]) -> String {
    let quote = if b.contains(&b'\'') && !b.contains(&b'"') {
        b'"'
    } else {
        b'\''
    };
    let mut s = String::with_capacity(b.len() + 3);
    s.push('b');
    s.push(quote as char);
    for &c in b {
        match c {
            b'\\' => s.push_str("\\\\"),
            b'\t' => s.push_str("\\t"),
            b'\n' => s.push_str("\\n"),
            b'\r' => s.push_str("\\r"),
            c if c == quote => {
                s.push('\\');
                s.push(c as char);
            }
            0x20..=0x7e => s.push(c as char),
            c => s.push_str(&format!("\\x{c:02x}")),
        }
    }
    s.push(quote as char);
    s
}
