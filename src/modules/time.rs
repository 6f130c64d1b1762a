//! The `time` module: wall clock, monotonic clocks and `sleep`; the
//! calendar side (`struct_time`, `gmtime`, `strftime` …) is in `time_struct.rs`.

#[path = "time_struct.rs"]
mod time_struct;

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::ModuleBuilder;
use crate::object::types::value_error;
use crate::value::{Args, PyResult, Value, Vm};

thread_local! {
    /// The origin of `perf_counter` and `monotonic`.
    static START: Instant = Instant::now();
}

fn since_start() -> Duration {
    START.with(|s| s.elapsed())
}

/// The `time` module.
pub fn module() -> Value {
    let mut m = ModuleBuilder::new("time");
    m.function("time()", time, "Seconds since the Unix epoch, as a float.")
        .function(
            "time_ns()",
            time_ns,
            "Nanoseconds since the Unix epoch, as an int.",
        )
        .function(
            "perf_counter()",
            perf_counter,
            "A high-resolution clock for measuring intervals, in seconds.",
        )
        .function(
            "perf_counter_ns()",
            perf_counter_ns,
            "`perf_counter()` in nanoseconds, as an int.",
        )
        .function(
            "monotonic()",
            perf_counter,
            "A clock that never goes back, in seconds.",
        )
        .function(
            "sleep(secs, /)",
            sleep,
            "Suspends execution for `secs` seconds.",
        )
        .function(
            "monotonic_ns()",
            perf_counter_ns,
            "`monotonic()` in nanoseconds, as an int.",
        )
        .function(
            "process_time()",
            time_struct::process_time,
            "CPU time of this process, in seconds.",
        )
        .function(
            "process_time_ns()",
            time_struct::process_time_ns,
            "`process_time()` in nanoseconds, as an int.",
        )
        .function(
            "gmtime(secs=None, /)",
            time_struct::gmtime,
            "Seconds since the epoch as a UTC `struct_time`: `time.gmtime(0).tm_year == 1970`.",
        )
        .function(
            "localtime(secs=None, /)",
            time_struct::localtime,
            "Seconds since the epoch as a local `struct_time`.",
        )
        .function(
            "mktime(t, /)",
            time_struct::mktime,
            "The inverse of `localtime`: seconds since the epoch, as a float.",
        )
        .function(
            "strftime(format, t=None, /)",
            time_struct::strftime,
            "A time tuple as text: `time.strftime('%Y-%m-%d', time.gmtime(0)) == '1970-01-01'`.",
        )
        .function(
            "asctime(t=None, /)",
            time_struct::asctime,
            "A time tuple as `'Thu Jan  1 00:00:00 1970'`.",
        )
        .function(
            "ctime(secs=None, /)",
            time_struct::ctime,
            "`asctime(localtime(secs))`.",
        )
        .function(
            "struct_time(sequence, /)",
            time_struct::struct_time,
            "A struct_time from a 9-sequence of ints.",
        );
    m.build()
}

fn epoch() -> Duration {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
}

fn time(_vm: &dyn Vm, _a: &Args) -> PyResult<Value> {
    Ok(Value::Float(epoch().as_secs_f64()))
}

fn time_ns(_vm: &dyn Vm, _a: &Args) -> PyResult<Value> {
    Ok(Value::Int(epoch().as_nanos().min(i64::MAX as u128) as i64))
}

fn perf_counter(_vm: &dyn Vm, _a: &Args) -> PyResult<Value> {
    Ok(Value::Float(since_start().as_secs_f64()))
}

fn perf_counter_ns(_vm: &dyn Vm, _a: &Args) -> PyResult<Value> {
    Ok(Value::Int(
        since_start().as_nanos().min(i64::MAX as u128) as i64
    ))
}

fn sleep(_vm: &dyn Vm, a: &Args) -> PyResult<Value> {
    let secs = match a.get(0).as_builtin() {
        Value::Int(i) => *i as f64,
        Value::Float(f) => *f,
        Value::Bool(b) => *b as i64 as f64,
        _ => {
            return Err(crate::object::types::type_error(format!(
                "'{}' object cannot be interpreted as an integer",
                a.get(0).type_name()
            )))
        }
    };
    if secs.is_nan() {
        return Err(value_error("Invalid value NaN (not a number)"));
    }
    if secs < 0.0 {
        return Err(value_error("sleep length must be non-negative"));
    }
    std::thread::sleep(Duration::from_secs_f64(secs.min(1e9)));
    Ok(Value::None)
}
