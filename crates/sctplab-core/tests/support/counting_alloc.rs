//! A global allocator that counts allocations on the measured thread only, for the tests
//! that check a hot path does not touch the heap per packet. Included with
//! `#[path = "support/counting_alloc.rs"] mod counting_alloc;` by each such test binary
//! (a global allocator is per binary, so it cannot live in `common`).
#![allow(dead_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

struct Counting;

static ALLOCS: AtomicU64 = AtomicU64::new(0);

/// The counter is shared, so tests that measure take turns.
static MEASURING: Mutex<()> = Mutex::new(());

thread_local! {
    // Only the thread under measurement counts: the test harness and tests running in
    // parallel allocate on their own threads, and must not leak into the numbers. A const
    // initialiser and no destructor make this safe to touch from inside the allocator.
    static COUNTING: Cell<bool> = const { Cell::new(false) };
}

fn note_alloc() {
    if COUNTING.with(Cell::get) {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
    }
}

// SAFETY: defers every operation to `System`; the counter has no effect on the memory.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note_alloc();
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note_alloc();
        unsafe { System.alloc_zeroed(layout) }
    }
    // A growing Vec reallocates rather than allocates, and that is exactly the per-packet
    // growth these tests are after, so reallocations count too.
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note_alloc();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// `f`'s result and the allocations made on this thread while it ran.
pub fn counted<T>(f: impl FnOnce() -> T) -> (T, u64) {
    let before = ALLOCS.load(Ordering::Relaxed);
    COUNTING.with(|c| c.set(true));
    let r = f();
    COUNTING.with(|c| c.set(false));
    (r, ALLOCS.load(Ordering::Relaxed) - before)
}

/// Holds the measuring turn while alive.
pub fn take_turn() -> MutexGuard<'static, ()> {
    MEASURING.lock().unwrap_or_else(|e| e.into_inner())
}
