//! The `time` module: wall clock, monotonic clocks and `sleep`; the
//! calendar side (`struct_time`, `gmtime`, `strftime` …) is in `time_struct.rs`.

#[path = "time_struct.rs"]
mod time_struct;

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::ModuleBuilder;
use crate::object::native;
use crate::object::types::value_error;
use crate::value::{PyResult, Value, Vm};

/// The origin of `perf_counter` and `monotonic`: the first time the
/// script asked (interpreter state, `vm.state()`).
struct Clock(Instant);

impl Default for Clock {
    fn default() -> Clock {
        Clock(Instant::now())
    }
}

fn since_start(vm: &dyn Vm) -> Duration {
    vm.state().get::<Clock>().0.elapsed()
}

/// The `time` module.
pub fn module() -> Value {
    let mut m = ModuleBuilder::new("time");
    m.add(time::DEF)
        .add(time_ns::DEF)
        .add(perf_counter::DEF)
        .add(perf_counter_ns::DEF)
        .add(monotonic::DEF)
        .add(sleep::DEF)
        .add(monotonic_ns::DEF)
        .add(time_struct::process_time::DEF)
        .add(time_struct::process_time_ns::DEF)
        .add(time_struct::gmtime::DEF)
        .add(time_struct::localtime::DEF)
        .add(time_struct::mktime::DEF)
        .add(time_struct::strftime::DEF)
        .add(time_struct::asctime::DEF)
        .add(time_struct::ctime::DEF)
        .add(time_struct::struct_time::DEF);
    m.build()
}

fn epoch() -> Duration {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
}

/// Seconds since the Unix epoch, as a float.
#[native("time()")]
fn time() -> f64 {
    epoch().as_secs_f64()
}

/// Nanoseconds since the Unix epoch, as an int.
#[native("time_ns()")]
fn time_ns() -> i64 {
    epoch().as_nanos().min(i64::MAX as u128) as i64
}

/// A high-resolution clock for measuring intervals, in seconds.
#[native("perf_counter()")]
fn perf_counter(vm: &dyn Vm) -> f64 {
    since_start(vm).as_secs_f64()
}

/// `perf_counter()` in nanoseconds, as an int.
#[native("perf_counter_ns()")]
fn perf_counter_ns(vm: &dyn Vm) -> i64 {
    since_start(vm).as_nanos().min(i64::MAX as u128) as i64
}

/// A clock that never goes back, in seconds.
#[native("monotonic()")]
fn monotonic(vm: &dyn Vm) -> f64 {
    perf_counter(vm)
}

/// `monotonic()` in nanoseconds, as an int.
#[native("monotonic_ns()")]
fn monotonic_ns(vm: &dyn Vm) -> i64 {
    perf_counter_ns(vm)
}

/// Suspends execution for `secs` seconds.
#[native("sleep(secs, /)")]
fn sleep(secs: &Value) -> PyResult<()> {
    let secs = match secs.as_builtin() {
        Value::Int(i) => *i as f64,
        Value::Float(f) => *f,
        Value::Bool(b) => *b as i64 as f64,
        _ => {
            return Err(crate::object::types::type_error(format!(
                "'{}' object cannot be interpreted as an integer",
                secs.type_name()
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
    Ok(())
}
