//! `time.struct_time` and the calendar functions of `time` built on it:
//! `gmtime`, `localtime`, `mktime`, `strftime`, `asctime`, `ctime`. Like
//! CPython, the local-time conversions and `strftime` are the C library's
//! (`localtime_r`, `mktime`, `strftime`), so they follow the process's TZ.

use std::ffi::{CStr, CString};

use crate::distribute::classes::{getters, native_class};
use crate::object::types::{int_arg, type_error, value_error};
use crate::object::{native, ClassSpec, Member};
use crate::syntax::ast::CmpOp;
use crate::value::{NativeObject, PyErr, PyResult, Value, Vm};

/// The nine fields, in tuple order.
const FIELDS: [&str; 9] = [
    "tm_year", "tm_mon", "tm_mday", "tm_hour", "tm_min", "tm_sec", "tm_wday", "tm_yday", "tm_isdst",
];

/// `time.struct_time`: a 9-tuple of ints with named fields, plus the
/// `tm_zone` and `tm_gmtoff` attributes that are not part of the tuple.
pub struct StructTime {
    /// The nine tuple fields (`tm_mon` 1-12, `tm_wday` 0 = Monday, `tm_yday` 1-366).
    fields: [i64; 9],
    /// The time zone's abbreviation (`'UTC'`).
    zone: String,
    /// The offset east of UTC, in seconds.
    gmtoff: i64,
}

/// The class of `time.struct_time` values.
pub static STRUCT_TIME: ClassSpec = ClassSpec {
    name: "struct_time",
    module: "time",
    bases: &[],
    members: &[
        Member::Getter(tm_year::DEF),
        Member::Getter(tm_mon::DEF),
        Member::Getter(tm_mday::DEF),
        Member::Getter(tm_hour::DEF),
        Member::Getter(tm_min::DEF),
        Member::Getter(tm_sec::DEF),
        Member::Getter(tm_wday::DEF),
        Member::Getter(tm_yday::DEF),
        Member::Getter(tm_isdst::DEF),
        Member::Getter(tm_zone::DEF),
        Member::Getter(tm_gmtoff::DEF),
        Member::Attr("n_fields", || Value::Int(11)),
        Member::Attr("n_sequence_fields", || Value::Int(9)),
    ],
};

native_class!(StructTime: STRUCT_TIME);

/// The tuple fields as getters.
macro_rules! fields {
    ($($name:ident = $i:tt, $sig:tt, $doc:tt;)*) => {$(
        #[doc = $doc]
        #[native($sig)]
        fn $name(this: &StructTime) -> i64 {
            this.fields[$i]
        }
    )*};
}

fields! {
    tm_year = 0, "struct_time.tm_year(self)", "The year, for example 1993.";
    tm_mon = 1, "struct_time.tm_mon(self)", "The month, 1-12.";
    tm_mday = 2, "struct_time.tm_mday(self)", "The day of the month, 1-31.";
    tm_hour = 3, "struct_time.tm_hour(self)", "The hour, 0-23.";
    tm_min = 4, "struct_time.tm_min(self)", "The minute, 0-59.";
    tm_sec = 5, "struct_time.tm_sec(self)", "The second, 0-61.";
    tm_wday = 6, "struct_time.tm_wday(self)", "The day of the week, 0-6, Monday is 0.";
    tm_yday = 7, "struct_time.tm_yday(self)", "The day of the year, 1-366.";
    tm_isdst = 8, "struct_time.tm_isdst(self)", "1 if summer time is in effect, 0 if not, and -1 if unknown.";
}

getters! { this: &StructTime;
    /// The abbreviation of the time zone.
    fn tm_zone("struct_time.tm_zone(self)") -> String { this.zone.clone() }
    /// The offset from UTC in seconds.
    fn tm_gmtoff("struct_time.tm_gmtoff(self)") -> i64 { this.gmtoff }
}

impl NativeObject for StructTime {
    fn repr(&self, _this: &Value, _vm: &dyn Vm) -> PyResult<String> {
        let parts: Vec<String> = FIELDS
            .iter()
            .zip(self.fields)
            .map(|(n, v)| format!("{n}={v}"))
            .collect();
        Ok(format!("time.struct_time({})", parts.join(", ")))
    }

    fn spec(&self) -> Option<&'static ClassSpec> {
        Some(&STRUCT_TIME)
    }

    fn iter(&self, _this: &Value, vm: &dyn Vm) -> PyResult<Option<Value>> {
        vm.iter(&self.as_tuple()).map(Some)
    }

    fn len(&self, _vm: &dyn Vm) -> PyResult<Option<usize>> {
        Ok(Some(9))
    }

    fn getitem(&self, _this: &Value, key: &Value, vm: &dyn Vm) -> PyResult<Option<Value>> {
        vm.getitem(&self.as_tuple(), key).map(Some)
    }

    fn compare(
        &self,
        _this: &Value,
        op: CmpOp,
        other: &Value,
        vm: &dyn Vm,
    ) -> PyResult<Option<Value>> {
        let mine = self.as_tuple();
        let theirs = match other {
            Value::Native(n) => match n.as_any().downcast_ref::<StructTime>() {
                Some(t) => t.as_tuple(),
                None => return Ok(None),
            },
            Value::Tuple(_) => other.clone(),
            _ => return Ok(None),
        };
        Ok(Some(match op {
            CmpOp::Eq => Value::Bool(vm.eq(&mine, &theirs)?),
            CmpOp::NotEq => Value::Bool(!vm.eq(&mine, &theirs)?),
            _ => return Ok(None),
        }))
    }
}

impl StructTime {
    fn as_tuple(&self) -> Value {
        Value::tuple(self.fields.iter().map(|v| Value::Int(*v)).collect())
    }

    #[allow(
        clippy::unnecessary_cast,
        reason = "tm_gmtoff is a c_long, narrower than i64 on 32-bit targets"
    )]
    fn from_tm(tm: &libc::tm) -> StructTime {
        let zone = if tm.tm_zone.is_null() {
            String::new()
        } else {
            // SAFETY: the C library's tm_zone points at a NUL-terminated name.
            unsafe { CStr::from_ptr(tm.tm_zone) }
                .to_string_lossy()
                .into_owned()
        };
        StructTime {
            fields: [
                tm.tm_year as i64 + 1900,
                tm.tm_mon as i64 + 1,
                tm.tm_mday as i64,
                tm.tm_hour as i64,
                tm.tm_min as i64,
                tm.tm_sec as i64,
                (tm.tm_wday as i64 + 6) % 7,
                tm.tm_yday as i64 + 1,
                tm.tm_isdst as i64,
            ],
            zone,
            gmtoff: tm.tm_gmtoff as i64,
        }
    }
}

/// The seconds argument of `gmtime`/`localtime`/`ctime`: now when None,
/// else rounded down to a whole second, as CPython does.
fn seconds(vm: &dyn Vm, v: &Value) -> PyResult<libc::time_t> {
    let secs = match v {
        Value::None => {
            return Ok(std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs() as libc::time_t))
        }
        Value::Int(i) => return Ok(*i as libc::time_t),
        Value::Bool(b) => return Ok(*b as libc::time_t),
        Value::Float(f) => *f,
        other => return Ok(int_arg(other, vm)? as libc::time_t),
    };
    if secs.is_nan() {
        return Err(value_error("Invalid value NaN (not a number)"));
    }
    if !(-1e18..1e18).contains(&secs) {
        return Err(PyErr::new(
            crate::value::ExcType::OverflowError,
            "timestamp out of range for platform time_t",
        ));
    }
    Ok(secs.floor() as libc::time_t)
}

fn convert(vm: &dyn Vm, v: &Value, local: bool) -> PyResult<StructTime> {
    let t = seconds(vm, v)?;
    // SAFETY: a zeroed tm is a valid out-parameter; both functions only
    // write to it and return null on failure.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    let ok = unsafe {
        if local {
            libc::localtime_r(&t, &mut tm)
        } else {
            libc::gmtime_r(&t, &mut tm)
        }
    };
    if ok.is_null() {
        return Err(PyErr::new(
            crate::value::ExcType::OverflowError,
            "timestamp out of range for platform time_t",
        ));
    }
    Ok(StructTime::from_tm(&tm))
}

/// Seconds since the epoch as a UTC `struct_time`: `time.gmtime(0).tm_year == 1970`.
#[native("gmtime(secs=None, /)")]
pub(super) fn gmtime(vm: &dyn Vm, secs: &Value) -> PyResult<Value> {
    convert(vm, secs, false).map(Value::native)
}

/// A struct_time from a 9-sequence of ints.
// Without a zone.
#[native("struct_time(sequence, /)")]
pub(super) fn struct_time(vm: &dyn Vm, sequence: &Value) -> PyResult<Value> {
    let items = vm.collect(sequence)?;
    if items.len() != 9 {
        return Err(type_error(format!(
            "time.struct_time() takes a 9-sequence ({}-sequence given)",
            items.len()
        )));
    }
    let mut fields = [0i64; 9];
    for (f, v) in fields.iter_mut().zip(&items) {
        *f = int_arg(v, vm)?;
    }
    Ok(Value::native(StructTime {
        fields,
        zone: String::new(),
        gmtoff: 0,
    }))
}

/// Seconds since the epoch as a local `struct_time`.
#[native("localtime(secs=None, /)")]
pub(super) fn localtime(vm: &dyn Vm, secs: &Value) -> PyResult<Value> {
    convert(vm, secs, true).map(Value::native)
}

/// A struct_time or a 9-sequence of ints as a C `tm` (and the zone name
/// it points at, kept alive beside it).
fn to_tm(vm: &dyn Vm, v: &Value, func: &str) -> PyResult<(libc::tm, Option<CString>)> {
    let (fields, zone, gmtoff) = match v {
        Value::Native(n) if n.as_any().is::<StructTime>() => {
            let t = n.as_any().downcast_ref::<StructTime>();
            let t = t.ok_or_else(|| type_error("Tuple or struct_time argument required"))?;
            (t.fields.to_vec(), Some(t.zone.clone()), t.gmtoff)
        }
        Value::Tuple(items) => {
            if items.len() != 9 {
                return Err(type_error(format!("{func}(): illegal time tuple argument")));
            }
            let f = items
                .iter()
                .map(|x| int_arg(x, vm))
                .collect::<PyResult<Vec<i64>>>()?;
            (f, None, 0)
        }
        _ => return Err(type_error("Tuple or struct_time argument required")),
    };
    // SAFETY: an all-zero tm is valid; the fields are set below.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    let narrow = |x: i64| x.clamp(i32::MIN as i64, i32::MAX as i64) as i32;
    tm.tm_year = narrow(fields[0] - 1900);
    tm.tm_mon = narrow(fields[1] - 1);
    tm.tm_mday = narrow(fields[2]);
    tm.tm_hour = narrow(fields[3]);
    tm.tm_min = narrow(fields[4]);
    tm.tm_sec = narrow(fields[5]);
    tm.tm_wday = narrow((fields[6] + 1).rem_euclid(7));
    tm.tm_yday = narrow(fields[7] - 1);
    tm.tm_isdst = narrow(fields[8]);
    tm.tm_gmtoff = gmtoff as _;
    let zone = zone.and_then(|z| CString::new(z).ok());
    if let Some(z) = &zone {
        tm.tm_zone = z.as_ptr() as _;
    }
    Ok((tm, zone))
}

/// CPython's range checks before `strftime`/`asctime`.
fn check_tm(tm: &libc::tm) -> PyResult<()> {
    for (v, range, what) in [
        (tm.tm_mon, 0..=11, "month"),
        (tm.tm_mday, 1..=31, "day of month"),
        (tm.tm_hour, 0..=23, "hour"),
        (tm.tm_min, 0..=59, "minute"),
        (tm.tm_sec, 0..=61, "seconds"),
        (tm.tm_yday, 0..=365, "day of year"),
    ] {
        if !range.contains(&v) {
            return Err(value_error(format!("{what} out of range")));
        }
    }
    Ok(())
}

fn now_local(vm: &dyn Vm) -> PyResult<Value> {
    convert(vm, &Value::None, true).map(Value::native)
}

/// A time tuple as text: `time.strftime('%Y-%m-%d', time.gmtime(0)) == '1970-01-01'`.
#[native("strftime(format, t=None, /)")]
pub(super) fn strftime(vm: &dyn Vm, format: &Value, t: &Value) -> PyResult<String> {
    let fmt = match format.as_builtin() {
        Value::Str(s) => s.to_string(),
        _ => {
            return Err(type_error(format!(
                "strftime() argument 1 must be str, not {}",
                format.type_name()
            )))
        }
    };
    let t = match t {
        Value::None => now_local(vm)?,
        t => t.clone(),
    };
    let (mut tm, _zone) = to_tm(vm, &t, "strftime")?;
    // CPython normalises out-of-range zero fields before checking.
    if tm.tm_mon == -1 {
        tm.tm_mon = 0;
    }
    if tm.tm_mday == 0 {
        tm.tm_mday = 1;
    }
    if tm.tm_yday == -1 {
        tm.tm_yday = 0;
    }
    check_tm(&tm)?;
    if fmt.contains('\0') {
        return Err(value_error("embedded null character"));
    }
    let cfmt = CString::new(fmt.clone()).map_err(|_| value_error("embedded null character"))?;
    // The C function says "too small" only by returning 0; grow the buffer
    // until the result fits (an empty result is legitimate for "" or "%p"
    // in some locales, so stop growing at a generous bound).
    let mut size = 256usize.max(fmt.len() * 4);
    loop {
        let mut buf = vec![0u8; size];
        // SAFETY: buf has `size` bytes; cfmt and tm are valid for the call.
        let n = unsafe { libc::strftime(buf.as_mut_ptr() as *mut _, size, cfmt.as_ptr(), &tm) };
        if n > 0 || size > 256 * fmt.len().max(1) {
            buf.truncate(n);
            return Ok(String::from_utf8_lossy(&buf).into_owned());
        }
        size *= 4;
    }
}

const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// CPython's own asctime layout: `'Thu Jan  1 00:00:00 1970'`.
fn asctime_of(tm: &libc::tm) -> String {
    format!(
        "{} {}{:3} {:02}:{:02}:{:02} {}",
        DAYS[tm.tm_wday.rem_euclid(7) as usize],
        MONTHS[tm.tm_mon.rem_euclid(12) as usize],
        tm.tm_mday,
        tm.tm_hour,
        tm.tm_min,
        tm.tm_sec,
        tm.tm_year as i64 + 1900
    )
}

/// A time tuple as `'Thu Jan  1 00:00:00 1970'`.
#[native("asctime(t=None, /)")]
pub(super) fn asctime(vm: &dyn Vm, t: &Value) -> PyResult<String> {
    let t = match t {
        Value::None => now_local(vm)?,
        t => t.clone(),
    };
    let (tm, _zone) = to_tm(vm, &t, "asctime")?;
    check_tm(&tm)?;
    Ok(asctime_of(&tm))
}

/// `asctime(localtime(secs))`.
#[native("ctime(secs=None, /)")]
pub(super) fn ctime(vm: &dyn Vm, secs: &Value) -> PyResult<String> {
    let t = convert(vm, secs, true)?;
    let (tm, _zone) = to_tm(vm, &Value::native(t), "ctime")?;
    Ok(asctime_of(&tm))
}

/// The inverse of `localtime`: seconds since the epoch, as a float.
#[native("mktime(t, /)")]
pub(super) fn mktime(vm: &dyn Vm, t: &Value) -> PyResult<f64> {
    let (mut tm, _zone) = to_tm(vm, t, "mktime")?;
    tm.tm_wday = -1;
    // SAFETY: tm is a valid, initialised struct.
    let t = unsafe { libc::mktime(&mut tm) };
    if t == -1 && tm.tm_wday == -1 {
        return Err(PyErr::new(
            crate::value::ExcType::OverflowError,
            "mktime argument out of range",
        ));
    }
    Ok(t as f64)
}

/// CPU time of this process, in seconds.
#[native("process_time()")]
pub(super) fn process_time() -> f64 {
    process_ns() as f64 / 1e9
}

/// `process_time()` in nanoseconds, as an int.
#[native("process_time_ns()")]
pub(super) fn process_time_ns() -> i64 {
    process_ns()
}

#[allow(
    clippy::unnecessary_cast,
    reason = "time_t and c_long are narrower than i64 on 32-bit targets"
)]
fn process_ns() -> i64 {
    // SAFETY: a zeroed timespec is a valid out-parameter.
    let mut ts: libc::timespec = unsafe { std::mem::zeroed() };
    // SAFETY: clock_gettime writes the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    ts.tv_sec as i64 * 1_000_000_000 + ts.tv_nsec as i64
}
