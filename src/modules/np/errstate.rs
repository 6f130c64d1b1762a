//! `np.seterr` and `np.geterr` (the state and its checks are
//! `object/numpy/fperr.rs`; `np.errstate` is written in the language, in
//! `stdlib/numpy_py.dist`).

use crate::distribute::notes::note_once;
use crate::object::native;
use crate::object::numpy::fperr;
use crate::value::{PyResult, Value, Vm};

/// How floating-point errors are handled now.
#[native("geterr()")]
pub fn geterr(vm: &dyn Vm) -> Value {
    fperr::geterr_dict(vm)
}

/// Sets how floating-point errors are handled (`all` for the conditions
/// not named); returns the settings before.
#[native("seterr(all=None, divide=None, over=None, under=None, invalid=None)")]
pub fn seterr(
    vm: &dyn Vm,
    all: &Value,
    divide: &Value,
    over: &Value,
    under: &Value,
    invalid: &Value,
) -> PyResult<Value> {
    let (old, under_set) = fperr::seterr_values(vm, all, [divide, over, under, invalid])?;
    if under_set {
        note_once(
            vm,
            "np-underflow",
            "np.seterr(under=...) is accepted but dist does not detect underflow (numpy ignores it by default)",
        );
    }
    Ok(old)
}
