//! Natives under their Python names: `builtins`, `tf`, `np`, `os`, `json`,
//! `math`, `time`, `collections`, `re`. Registration and argument conversion only; the work lives
//! in `runtime` and `distribute`.

pub mod builtins;
pub mod collections;
pub mod hashlib;
pub mod io;
pub mod json;
pub mod math;
pub mod math_int;

pub mod np;
pub mod os;
pub mod os_path;
pub mod re;
pub mod statistics;
pub mod sys;
pub mod tf;
pub mod tf_data;
pub mod tf_distribute;
pub mod time;

pub mod weakref;

#[cfg(test)]
mod tests;

pub use crate::object::module::{ModuleBuilder, ModuleObj};
pub use crate::object::tensor::hooks::*;

use crate::value::{Value, Vm};

/// Builds the module with this dotted name, or None if there is no such module
/// (the importer raises `ModuleNotFoundError: No module named 'x'`).
pub fn load(vm: &dyn Vm, name: &str) -> Option<Value> {
    match name {
        "math" => Some(math::module()),
        "os" => Some(os::module()),
        "os.path" => {
            let os = os::module();
            let m = os.downcast::<ModuleObj>()?;
            let path = m.dict.borrow().get("path").cloned();
            path
        }
        "_json" => Some(json::module()),
        "_collections" => Some(collections::module()),
        "time" => Some(time::module()),
        "_statistics" => Some(statistics::module()),
        "sys" => Some(sys::module(vm)),
        "re" => Some(re::module()),
        "tensorflow" => Some(tf::module()),
        "numpy" => Some(np::module()),
        "_io" => Some(io::module()),
        "_hashlib" => Some(hashlib::module()),
        "_weakref" => Some(weakref::module()),
        "gc" => Some(gc_module()),
        _ => None,
    }
}

/// `gc`: dist frees objects by reference counting alone, as CPython does
/// for everything outside reference cycles; it has no cycle collector, so
/// `collect()` finds nothing to free.
mod gc {
    use crate::object::native;

    /// Runs a collection: 0, as dist has no reference cycles' collector (objects are freed when their last reference goes).
    #[native("collect(generation=2)")]
    pub fn collect(_generation: &crate::value::Value) -> i64 {
        0
    }

    /// Whether automatic collection is on.
    #[native("isenabled()")]
    pub fn isenabled() -> bool {
        true
    }

    /// Turns automatic collection on.
    #[native("enable()")]
    pub fn enable() {}

    /// Turns automatic collection off (no effect in dist).
    #[native("disable()")]
    pub fn disable() {}
}

fn gc_module() -> Value {
    let mut m = ModuleBuilder::new("gc");
    m.add(gc::collect::DEF)
        .add(gc::isenabled::DEF)
        .add(gc::enable::DEF)
        .add(gc::disable::DEF);
    m.build()
}
