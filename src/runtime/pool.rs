//! A cache of large freed host buffers, so a loop that computes `a + b` on big
//! tensors does not pay the kernel's page faults (a fresh 64 MiB `mmap`, zeroed
//! page by page) on every iteration. TensorFlow's allocator keeps freed memory
//! for the same reason.
//!
//! Only buffers of at least [`MIN_BYTES`] are cached, at most [`MAX_ENTRIES`]
//! of them and [`MAX_BYTES`] in all (oldest evicted first); a buffer is reused
//! for a request of the same element type that fills at least three quarters
//! of it. When an allocation fails, the cache is emptied and the allocation
//! tried again, so cached memory never causes a `ResourceExhausted`.
//!
//! Smaller buffers ([`SMALL_MIN_BYTES`] up to `MIN_BYTES`) have a second,
//! per-thread tier: malloc serves sizes above a kilobyte from its general
//! bins, which costs as much as a small op's arithmetic, and a loop of eager
//! ops on small tensors frees and asks for the same sizes over and over. It
//! holds at most [`SMALL_ENTRIES`] buffers and [`SMALL_MAX_BYTES`] in all,
//! and hands a buffer out only for the same element type and capacity.

use std::any::{Any, TypeId};
use std::sync::Mutex;

use super::storage::HostData;

/// Smallest buffer worth caching (smaller ones come from malloc's free lists).
const MIN_BYTES: usize = 1 << 20;
/// Most bytes held in the cache.
const MAX_BYTES: usize = 1 << 30;
/// Most buffers held in the cache.
const MAX_ENTRIES: usize = 8;
/// Fresh allocations from this size are advised to use transparent huge pages.
const HUGE_BYTES: usize = 4 << 20;

/// Smallest buffer the per-thread tier keeps (malloc's own per-thread
/// cache serves smaller ones).
const SMALL_MIN_BYTES: usize = 1 << 10;
/// Most buffers in the per-thread tier.
const SMALL_ENTRIES: usize = 64;
/// Most bytes in the per-thread tier.
const SMALL_MAX_BYTES: usize = 8 << 20;

/// A buffer of the per-thread tier: a `Vec<T>`'s allocation, with the
/// function that frees it as that `Vec<T>` would.
struct SmallEntry {
    ty: TypeId,
    cap: usize,
    bytes: usize,
    ptr: *mut u8,
    free: unsafe fn(*mut u8, usize),
}

/// Frees a `Vec<T>` allocation of capacity `cap` at `ptr`.
///
/// # Safety
/// `ptr`/`cap` must come from a `Vec<T>` that was forgotten.
unsafe fn free_vec<T>(ptr: *mut u8, cap: usize) {
    drop(Vec::from_raw_parts(ptr as *mut T, 0, cap));
}

/// The per-thread tier: its buffers and their total bytes.
#[derive(Default)]
struct SmallTier(Vec<SmallEntry>, usize);

impl Drop for SmallTier {
    fn drop(&mut self) {
        for e in self.0.drain(..) {
            // SAFETY: every entry holds a forgotten Vec of its type's `free`.
            unsafe { (e.free)(e.ptr, e.cap) };
        }
    }
}

thread_local! {
    static SMALL: std::cell::RefCell<SmallTier> = std::cell::RefCell::new(SmallTier::default());
}

fn take_small<T: 'static>(n: usize) -> Option<Vec<T>> {
    let ty = TypeId::of::<T>();
    SMALL
        .try_with(|s| {
            let mut s = s.try_borrow_mut().ok()?;
            let i = s.0.iter().rposition(|e| e.ty == ty && e.cap == n)?;
            let e = s.0.swap_remove(i);
            s.1 -= e.bytes;
            // SAFETY: the entry holds a forgotten Vec<T> (same TypeId) of capacity `cap`.
            Some(unsafe { Vec::from_raw_parts(e.ptr as *mut T, 0, e.cap) })
        })
        .ok()
        .flatten()
}

/// Keeps a small `v` in the per-thread tier (or frees it when the tier is full).
fn give_small<T: 'static>(v: Vec<T>, bytes: usize) {
    let mut v = Some(v);
    let _ = SMALL.try_with(|s| {
        let Ok(mut s) = s.try_borrow_mut() else {
            return;
        };
        if s.0.len() >= SMALL_ENTRIES || s.1 + bytes > SMALL_MAX_BYTES {
            return;
        }
        if let Some(v) = v.take() {
            let mut v = std::mem::ManuallyDrop::new(v);
            s.1 += bytes;
            s.0.push(SmallEntry {
                ty: TypeId::of::<T>(),
                cap: v.capacity(),
                bytes,
                ptr: v.as_mut_ptr() as *mut u8,
                free: free_vec::<T>,
            });
        }
    });
    // Not kept: `v` is freed here.
}

/// Empties this thread's small tier.
fn clear_small() -> bool {
    SMALL
        .try_with(|s| match s.try_borrow_mut() {
            Ok(mut s) if !s.0.is_empty() => {
                *s = SmallTier::default();
                true
            }
            _ => false,
        })
        .unwrap_or(false)
}

struct Entry {
    ty: TypeId,
    cap: usize,
    bytes: usize,
    buf: Box<dyn Any + Send>,
}

static POOL: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

/// An empty `Vec` with room for `n` elements, from the cache when one fits.
pub(crate) fn take<T: Send + 'static>(n: usize) -> Option<Vec<T>> {
    let bytes = n.checked_mul(std::mem::size_of::<T>())?;
    if bytes < MIN_BYTES {
        return if bytes >= SMALL_MIN_BYTES {
            take_small(n)
        } else {
            None
        };
    }
    let mut pool = POOL.lock().ok()?;
    let ty = TypeId::of::<T>();
    let i = pool
        .iter()
        .position(|e| e.ty == ty && e.cap >= n && n >= e.cap - e.cap / 4)?;
    let entry = pool.remove(i);
    entry.buf.downcast::<Vec<T>>().ok().map(|b| *b)
}

/// Empties the cache (before retrying a failed allocation).
pub(crate) fn clear() -> bool {
    let small = clear_small();
    match POOL.lock() {
        Ok(mut pool) if !pool.is_empty() => {
            pool.clear();
            true
        }
        _ => small,
    }
}

/// Keeps `v`'s allocation for reuse when it is large enough.
fn give<T: Send + 'static>(mut v: Vec<T>) {
    let bytes = v.capacity() * std::mem::size_of::<T>();
    if (SMALL_MIN_BYTES..MIN_BYTES).contains(&bytes) {
        v.clear();
        give_small(v, bytes);
        return;
    }
    if !(MIN_BYTES..=MAX_BYTES).contains(&bytes) {
        return;
    }
    v.clear();
    let Ok(mut pool) = POOL.lock() else { return };
    let mut total: usize = pool.iter().map(|e| e.bytes).sum();
    while !pool.is_empty() && (pool.len() >= MAX_ENTRIES || total + bytes > MAX_BYTES) {
        total -= pool.remove(0).bytes;
    }
    pool.push(Entry {
        ty: TypeId::of::<T>(),
        cap: v.capacity(),
        bytes,
        buf: Box::new(v),
    });
}

/// Hands a dropped tensor's numeric buffer to the cache.
pub(crate) fn recycle(data: &mut HostData) {
    match data {
        HostData::Bool(v) => give(std::mem::take(v)),
        HostData::I8(v) => give(std::mem::take(v)),
        HostData::U8(v) => give(std::mem::take(v)),
        HostData::I16(v) => give(std::mem::take(v)),
        HostData::I32(v) => give(std::mem::take(v)),
        HostData::I64(v) => give(std::mem::take(v)),
        HostData::F16(v) => give(std::mem::take(v)),
        HostData::F32(v) => give(std::mem::take(v)),
        HostData::F64(v) => give(std::mem::take(v)),
        HostData::C64(v) => give(std::mem::take(v)),
        HostData::C128(v) => give(std::mem::take(v)),
        HostData::Str(_) => {}
    }
}

/// Asks the kernel to back a fresh large allocation with huge pages, which
/// cuts its page faults 512-fold when transparent huge pages are in
/// `madvise` mode. Advice only: failure changes nothing.
pub(crate) fn advise_huge<T>(v: &Vec<T>) {
    let bytes = v.capacity() * std::mem::size_of::<T>();
    if bytes < HUGE_BYTES {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 2 << 20;
        let start = v.as_ptr() as usize;
        let aligned = (start + PAGE - 1) & !(PAGE - 1);
        let end = (start + bytes) & !(PAGE - 1);
        if end > aligned {
            // SAFETY: the range lies inside `v`'s own allocation; MADV_HUGEPAGE
            // only changes how the kernel backs pages, never their contents.
            unsafe {
                libc::madvise(
                    aligned as *mut libc::c_void,
                    end - aligned,
                    libc::MADV_HUGEPAGE,
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::storage::try_vec;
    use crate::runtime::Tensor;

    // The cache is global: these tests take turns, and use sizes of their own.
    static TURN: Mutex<()> = Mutex::new(());

    #[test]
    fn a_dropped_tensor_buffer_is_reused_for_the_same_type() {
        let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
        let n = (1 << 20) + 7;
        let t = Tensor::from_vec(vec![1.5f32; n], &[n]).unwrap();
        let ptr = t.as_slice::<f32>().unwrap().as_ptr();
        drop(t);
        // Another element type of the same byte size does not get it.
        assert!(take::<i32>(n).is_none());
        let v: Vec<f32> = try_vec(n).unwrap();
        assert_eq!(v.as_ptr(), ptr);
        assert!(v.is_empty() && v.capacity() >= n);
    }

    #[test]
    fn small_and_much_smaller_requests_allocate_fresh() {
        let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
        let n = (1 << 19) + 11;
        give(Vec::<f64>::with_capacity(n));
        assert!(take::<f64>(n / 2).is_none());
        assert!(take::<f64>(16).is_none());
        assert!(take::<f64>(n).is_some());
        give(Vec::<f64>::with_capacity(100));
        assert!(take::<f64>(100).is_none());
    }

    #[test]
    fn small_buffers_are_reused_per_thread_for_the_same_type_and_size() {
        let n = 1000;
        let t = Tensor::from_vec(vec![2.5f32; n], &[n]).unwrap();
        let ptr = t.as_slice::<f32>().unwrap().as_ptr();
        drop(t);
        assert!(take::<i32>(n).is_none());
        assert!(take::<f32>(n + 1).is_none());
        let v: Vec<f32> = try_vec(n).unwrap();
        assert_eq!(v.as_ptr(), ptr);
        assert!(v.is_empty() && v.capacity() == n);
        // Bounded: a flood of small buffers keeps at most SMALL_ENTRIES.
        for _ in 0..3 * SMALL_ENTRIES {
            give(Vec::<f64>::with_capacity(300));
        }
        SMALL.with(|s| {
            let s = s.borrow();
            assert!(s.0.len() <= SMALL_ENTRIES && s.1 <= SMALL_MAX_BYTES);
            assert_eq!(s.1, s.0.iter().map(|e| e.bytes).sum::<usize>());
        });
        assert!(clear());
        SMALL.with(|s| assert!(s.borrow().0.is_empty()));
    }

    #[test]
    fn the_cache_stays_bounded() {
        let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
        for _ in 0..3 * MAX_ENTRIES {
            give(Vec::<u8>::with_capacity(MIN_BYTES + 3));
        }
        let pool = POOL.lock().unwrap();
        assert!(pool.len() <= MAX_ENTRIES);
        assert!(pool.iter().map(|e| e.bytes).sum::<usize>() <= MAX_BYTES);
    }
}
