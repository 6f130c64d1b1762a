//! The `socket` module, as far as scripts and the summary writer need it:
//! `gethostname()` (TensorFlow names event files after the host). Networking
//! is not part of dist.

use super::ModuleBuilder;
use crate::object::native;
use crate::value::{PyErr, PyResult, Value};

/// The machine's host name, as `gethostname(2)` gives it.
#[native("gethostname()")]
fn gethostname() -> PyResult<String> {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is valid for its whole length and gethostname
    // writes at most that many bytes.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if rc != 0 {
        return Err(PyErr::from_io(&std::io::Error::last_os_error(), None));
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    Ok(String::from_utf8_lossy(&buf[..end]).into_owned())
}

/// The `socket` module.
pub fn module() -> Value {
    let mut m = ModuleBuilder::new("socket");
    m.add(gethostname::DEF);
    m.build()
}
