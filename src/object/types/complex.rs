//! `complex`: numbers `a+bj` as a native object, with CPython's arithmetic
//! (its division and power algorithms, so results match to the last bit),
//! comparisons, hashing as an equal int/float, `repr` and the constructor
//! (numbers and strings).

use super::{type_error, value_error};
use crate::object::{native, ClassSpec, Given, Member, NativeClass, This};
use crate::syntax::ast;
use crate::syntax::ast::BinOp;
use crate::value::{ExcType, NativeObject, PyErr, PyResult, Value, Vm};

/// A complex number.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Complex {
    /// The real part.
    pub re: f64,
    /// The imaginary part.
    pub im: f64,
}

impl Complex {
    /// The value of `complex(re, im)`.
    pub fn value(re: f64, im: f64) -> Value {
        Value::native(Complex { re, im })
    }
}

/// A number operand as a complex (ints, floats and bools too).
/// A number as a complex operand (an int past a float's range is CPython's
/// OverflowError); None for other values.
fn operand(v: &Value) -> PyResult<Option<Complex>> {
    if let Value::Long(n) = v {
        return Ok(Some(Complex {
            re: super::long::to_f64(n)?,
            im: 0.0,
        }));
    }
    Ok(match v {
        Value::Int(i) => Some(Complex {
            re: *i as f64,
            im: 0.0,
        }),
        Value::Bool(b) => Some(Complex {
            re: *b as i64 as f64,
            im: 0.0,
        }),
        Value::Float(f) => Some(Complex { re: *f, im: 0.0 }),
        Value::Native(_) => v.downcast::<Complex>().copied(),
        _ => None,
    })
}

fn prod(a: Complex, b: Complex) -> Complex {
    Complex {
        re: a.re * b.re - a.im * b.im,
        im: a.re * b.im + a.im * b.re,
    }
}

/// CPython's `_Py_c_quot` (Smith's method).
fn quot(a: Complex, b: Complex) -> PyResult<Complex> {
    let (abs_re, abs_im) = (b.re.abs(), b.im.abs());
    if abs_re >= abs_im {
        if abs_re == 0.0 {
            return Err(PyErr::new(
                ExcType::ZeroDivisionError,
                "complex division by zero",
            ));
        }
        let ratio = b.im / b.re;
        let denom = b.re + b.im * ratio;
        Ok(Complex {
            re: (a.re + a.im * ratio) / denom,
            im: (a.im - a.re * ratio) / denom,
        })
    } else if abs_im >= abs_re {
        let ratio = b.re / b.im;
        let denom = b.re * ratio + b.im;
        Ok(Complex {
            re: (a.re * ratio + a.im) / denom,
            im: (a.im * ratio - a.re) / denom,
        })
    } else {
        Ok(Complex {
            re: f64::NAN,
            im: f64::NAN,
        })
    }
}

fn powu(x: Complex, n: i64) -> Complex {
    let mut r = Complex { re: 1.0, im: 0.0 };
    let mut p = x;
    let mut mask = 1i64;
    while mask > 0 && n >= mask {
        if n & mask != 0 {
            r = prod(r, p);
        }
        mask <<= 1;
        p = prod(p, p);
    }
    r
}

/// CPython's `complex_pow`: repeated squaring for small integral
/// exponents, else polar form (`_Py_c_pow`).
fn pow(a: Complex, b: Complex) -> PyResult<Complex> {
    let zero_power = || {
        PyErr::new(
            ExcType::ZeroDivisionError,
            "0.0 to a negative or complex power",
        )
    };
    let r = if b.im == 0.0 && b.re == b.re.floor() && b.re.abs() <= 100.0 {
        let n = b.re as i64;
        if n > 0 {
            powu(a, n)
        } else {
            let p = powu(a, -n);
            quot(Complex { re: 1.0, im: 0.0 }, p).map_err(|_| zero_power())?
        }
    } else if b.re == 0.0 && b.im == 0.0 {
        Complex { re: 1.0, im: 0.0 }
    } else if a.re == 0.0 && a.im == 0.0 {
        if b.im != 0.0 || b.re < 0.0 {
            return Err(zero_power());
        }
        Complex { re: 0.0, im: 0.0 }
    } else {
        let vabs = a.re.hypot(a.im);
        let mut len = vabs.powf(b.re);
        let at = a.im.atan2(a.re);
        let mut phase = at * b.re;
        if b.im != 0.0 {
            len /= (at * b.im).exp();
            phase += b.im * vabs.ln();
        }
        Complex {
            re: len * phase.cos(),
            im: len * phase.sin(),
        }
    };
    let finite = |c: Complex| c.re.is_finite() && c.im.is_finite();
    if !finite(r) && finite(a) && finite(b) {
        return Err(PyErr::new(ExcType::OverflowError, "complex exponentiation"));
    }
    Ok(r)
}

/// `a ** b` for floats whose result is complex (a negative base, a
/// fractional exponent).
pub fn complex_pow_value(a: f64, b: f64) -> PyResult<Value> {
    let r = pow(Complex { re: a, im: 0.0 }, Complex { re: b, im: 0.0 })?;
    Ok(Value::native(r))
}

/// `format(c, spec)` for the specs with a float presentation type
/// (`'.2f'`, `'>20.3e'`): each part formatted as a float, the imaginary one
/// signed, then padded as a whole (CPython's `complex.__format__`).
pub fn format_spec(vm: &dyn Vm, v: &Value, spec: &str) -> PyResult<String> {
    let c = operand(v)?.unwrap_or(Complex { re: 0.0, im: 0.0 });
    let unsupported = || {
        PyErr::new(
            ExcType::NotImplementedError,
            format!("format spec {spec:?} for a complex number is not supported in dist"),
        )
    };
    let chars: Vec<char> = spec.chars().collect();
    let mut i = 0;
    let (mut fill, mut align) = (' ', '>');
    if chars.len() >= 2 && matches!(chars[1], '<' | '>' | '^') {
        fill = chars[0];
        align = chars[1];
        i = 2;
    } else if chars.first().is_some_and(|c| matches!(c, '<' | '>' | '^')) {
        align = chars[0];
        i = 1;
    }
    let mut sign = String::new();
    if chars.get(i).is_some_and(|c| matches!(c, '+' | '-' | ' ')) {
        sign.push(chars[i]);
        i += 1;
    }
    let rest: String = chars[i..].iter().collect();
    let Some(ty) = rest.chars().last().filter(|c| "eEfFgG".contains(*c)) else {
        return Err(unsupported());
    };
    let body = &rest[..rest.len() - 1];
    let (width, prec) = match body.split_once('.') {
        Some((w, p)) => (w, format!(".{p}")),
        None => (body, String::new()),
    };
    if !width.chars().all(|c| c.is_ascii_digit())
        || !prec.chars().skip(1).all(|c| c.is_ascii_digit())
    {
        return Err(unsupported());
    }
    let re = vm.format(&Value::Float(c.re), &format!("{sign}{prec}{ty}"))?;
    let im = vm.format(&Value::Float(c.im), &format!("+{prec}{ty}"))?;
    let s = format!("{re}{im}j");
    let width: usize = width.parse().unwrap_or(0);
    let n = s.chars().count();
    if n >= width {
        return Ok(s);
    }
    let pad = width - n;
    let fills = |k: usize| fill.to_string().repeat(k);
    Ok(match align {
        '<' => format!("{s}{}", fills(pad)),
        '^' => format!("{}{s}{}", fills(pad / 2), fills(pad - pad / 2)),
        _ => format!("{}{s}", fills(pad)),
    })
}

/// The class `complex`.
pub static COMPLEX: ClassSpec = ClassSpec {
    name: "complex",
    module: "builtins",
    bases: &[],
    members: &[
        Member::New(complex_new::DEF),
        Member::Getter(real::DEF),
        Member::Getter(imag::DEF),
        Member::Method(conjugate::DEF),
        Member::Method(abs::DEF),
        Member::Method(format::DEF),
    ],
};

impl NativeClass for Complex {
    const SPEC: &'static ClassSpec = &COMPLEX;
}

impl NativeObject for Complex {
    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&COMPLEX)
    }

    fn repr(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        Ok(crate::runtime::format::digits::numpy_scalar_complex(
            self.re,
            self.im,
            crate::runtime::format::digits::FloatKind::F64,
        ))
    }

    fn binop(
        &self,
        _this: &Value,
        op: BinOp,
        other: &Value,
        reflected: bool,
        _vm: &dyn Vm,
    ) -> PyResult<Option<Value>> {
        let Some(o) = operand(other)? else {
            return Ok(None);
        };
        let (a, b) = if reflected { (o, *self) } else { (*self, o) };
        let r = match op {
            BinOp::Add => Complex {
                re: a.re + b.re,
                im: a.im + b.im,
            },
            BinOp::Sub => Complex {
                re: a.re - b.re,
                im: a.im - b.im,
            },
            BinOp::Mult => prod(a, b),
            BinOp::Div => quot(a, b)?,
            BinOp::Pow => pow(a, b)?,
            _ => return Ok(None),
        };
        Ok(Some(Value::native(r)))
    }

    fn unary(&self, _this: &Value, op: ast::UnaryOp, _vm: &dyn Vm) -> PyResult<Option<Value>> {
        Ok(match op {
            ast::UnaryOp::USub => Some(Complex::value(-self.re, -self.im)),
            ast::UnaryOp::UAdd => Some(Complex::value(self.re, self.im)),
            _ => None,
        })
    }

    fn equals(&self, _this: &Value, other: &Value, _vm: &dyn Vm) -> PyResult<Option<bool>> {
        if let Value::Long(n) = other {
            // Exactly, as CPython compares an int with the real part.
            let same = super::long::cmp_big_float(n, self.re) == Some(std::cmp::Ordering::Equal);
            return Ok(Some(same && self.im == 0.0));
        }
        Ok(operand(other)?.map(|o| self.re == o.re && self.im == o.im))
    }

    fn truthy(&self, _vm: &dyn Vm) -> PyResult<Option<bool>> {
        Ok(Some(self.re != 0.0 || self.im != 0.0))
    }

    fn hash_as(&self) -> Option<Value> {
        // Equal to an int or float when the imaginary part is 0; otherwise
        // a key no other value equals.
        Some(if self.im == 0.0 {
            Value::Float(self.re)
        } else {
            Value::tuple(vec![
                Value::str("complex"),
                Value::Float(self.re),
                Value::Float(self.im),
            ])
        })
    }
}

/// The real part.
#[native("complex.real(self)")]
fn real(this: &Complex) -> f64 {
    this.re
}

/// The imaginary part.
#[native("complex.imag(self)")]
fn imag(this: &Complex) -> f64 {
    this.im
}

/// The complex conjugate.
#[native("complex.conjugate(self)", c)]
fn conjugate(this: &Complex) -> Value {
    Complex::value(this.re, -this.im)
}

/// abs(self)
#[native("complex.__abs__(self)", c)]
fn abs(this: &Complex) -> PyResult<f64> {
    let c = this;
    let r = c.re.hypot(c.im);
    if r.is_infinite() && c.re.is_finite() && c.im.is_finite() {
        return Err(PyErr::new(
            ExcType::OverflowError,
            "absolute value too large",
        ));
    }
    Ok(r)
}

/// format(self, spec)
#[native("complex.__format__(self, format_spec, /)", c)]
fn format(vm: &dyn Vm, this: This<Complex>, format_spec: &Value) -> PyResult<Value> {
    match format_spec {
        Value::Str(s) if s.is_empty() => Ok(Value::str(vm.repr(this.value)?)),
        _ => Err(PyErr::new(
            ExcType::NotImplementedError,
            "format specs for complex numbers are not supported in dist",
        )),
    }
}

/// A complex number: `complex(1, 2) == 1+2j`, `complex('1+2j')`.
#[native("complex(real=0, imag=0)", c_ctor)]
fn complex_new(vm: &dyn Vm, real: &Value, imag: Given<&Value>) -> PyResult<Value> {
    let Given(imag) = imag;
    if let Value::Str(s) = real {
        if imag.is_some() {
            return Err(type_error(
                "complex() can't take second arg if first is a string",
            ));
        }
        let c = parse(s).ok_or_else(|| value_error("complex() arg is a malformed string"))?;
        return Ok(Value::native(c));
    }
    if let Some(Value::Str(_)) = imag {
        return Err(type_error("complex() second arg can't be a string"));
    }
    let (r, real_is_complex) = argument(vm, real, true)?.ok_or_else(|| {
        type_error(format!(
            "complex() first argument must be a string or a number, not '{}'",
            real.type_name()
        ))
    })?;
    // real + imag * 1j, as CPython's complex_new combines them (a part is
    // added only when an argument is complex, so -0.0 stays -0.0).
    let mut re = r.re;
    let im = if let Some(imag) = imag {
        let (i, imag_is_complex) = argument(vm, imag, false)?.ok_or_else(|| {
            type_error(format!(
                "complex() second argument must be a number, not '{}'",
                imag.type_name()
            ))
        })?;
        if imag_is_complex {
            re -= i.im;
        }
        if real_is_complex {
            i.re + r.im
        } else {
            i.re
        }
    } else {
        r.im
    };
    Ok(Complex::value(re, im))
}

/// An argument of `complex()` as a number, and whether it is complex: a
/// number, or an object whose class defines `__complex__` (the first
/// argument only), `__float__` or `__index__`, tried in that order as
/// CPython does. None: not a number.
fn argument(vm: &dyn Vm, v: &Value, first: bool) -> PyResult<Option<(Complex, bool)>> {
    if let Some(c) = operand(v)? {
        return Ok(Some((c, v.downcast::<Complex>().is_some())));
    }
    if matches!(v, Value::Native(_) | Value::Tensor(_)) {
        // a one-element tensor or numpy value: its element
        let n = match v {
            Value::Native(n) => n.to_number(vm)?,
            _ => crate::object::tensor::tensor_to_number(vm, v, false)?,
        };
        return match n {
            Some(n) if operand(&n)?.is_some() => argument(vm, &n, first),
            _ => Ok(None),
        };
    }
    let Value::Instance(inst) = v else {
        return Ok(None);
    };
    if first && inst.class.lookup("__complex__").is_some() {
        let f = vm.getattr(v, "__complex__")?;
        let out = vm.call(&f, Vec::new(), Vec::new())?;
        return match out.downcast::<Complex>() {
            Some(c) => Ok(Some((*c, true))),
            None => Err(type_error(format!(
                "__complex__ returned non-complex (type {})",
                out.type_name()
            ))),
        };
    }
    if inst.class.lookup("__float__").is_some() || inst.class.lookup("__index__").is_some() {
        let f = super::float::to_float(vm, v)?;
        return Ok(Some((Complex { re: f, im: 0.0 }, false)));
    }
    match v.as_builtin() {
        Value::Instance(_) => Ok(None),
        base => argument(vm, base, first),
    }
}

/// A float in the syntax `complex()` accepts (underscores between digits).
fn parse_float(s: &str) -> Option<f64> {
    if s.is_empty() || s.starts_with('_') || s.ends_with('_') || s.contains("__") {
        return None;
    }
    let clean: String = s.chars().filter(|c| *c != '_').collect();
    let lower = clean.to_ascii_lowercase();
    let body = lower.trim_start_matches(['+', '-']);
    if !matches!(body, "inf" | "infinity" | "nan")
        && !body
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | '+' | '-'))
    {
        return None;
    }
    clean.parse::<f64>().ok()
}

/// `complex('1+2j')`: CPython's syntax (spaces around, parentheses).
fn parse(text: &str) -> Option<Complex> {
    let mut s = text.trim_matches(super::str::is_space);
    if let Some(inner) = s.strip_prefix('(').and_then(|t| t.strip_suffix(')')) {
        s = inner.trim_matches(super::str::is_space);
    }
    let Some(body) = s.strip_suffix(['j', 'J']) else {
        return parse_float(s).map(|re| Complex { re, im: 0.0 });
    };
    // The imaginary part starts at the last sign that follows a digit or
    // '.' (not an exponent's sign).
    let bytes = body.as_bytes();
    let mut split = None;
    for i in (1..bytes.len()).rev() {
        if matches!(bytes[i], b'+' | b'-') && !matches!(bytes[i - 1], b'e' | b'E') {
            split = Some(i);
            break;
        }
    }
    let imag = |t: &str| match t {
        "" | "+" => Some(1.0),
        "-" => Some(-1.0),
        _ => parse_float(t),
    };
    match split {
        Some(i) => Some(Complex {
            re: parse_float(&body[..i])?,
            im: imag(&body[i..])?,
        }),
        None => Some(Complex {
            re: 0.0,
            im: imag(body)?,
        }),
    }
}
