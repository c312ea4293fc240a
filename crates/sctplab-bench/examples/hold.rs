//! The kernel benchmark's hold model as a plain program, for instruction counts
//! (`valgrind --tool=callgrind`) that do not depend on the machine's load.
//!
//! Usage: `cargo run --release -p sctplab-bench --example hold -- PENDING STEPS`

use sctplab_core::sim::{EventQueue, SimDuration, SimTime};

const MAX_DELAY_NS: u64 = 10_000_000;

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let mut num = |what: &str| -> Result<u64, String> {
        args.next()
            .ok_or(format!("missing {what}"))?
            .parse()
            .map_err(|e| format!("{what}: {e}"))
    };
    let pending = num("PENDING")?;
    let steps = num("STEPS")?;
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut q: EventQueue<(u32, u32, u32)> = EventQueue::with_capacity(pending as usize + 1);
    q.keep_history(std::env::var_os("HOLD_HISTORY").is_some());
    for _ in 0..pending {
        let r = next();
        q.schedule(SimTime::from_nanos(r % MAX_DELAY_NS), (r as u32, 0, 0));
    }
    let started = std::time::Instant::now();
    let mut seen = 0u32;
    for _ in 0..steps {
        let (now, ev) = q.pop().ok_or("the hold model never drains")?;
        seen = seen.wrapping_add(ev.0);
        let r = next();
        q.schedule(
            now + SimDuration::from_nanos(r % MAX_DELAY_NS),
            (r as u32, 1, 2),
        );
    }
    let s = started.elapsed().as_secs_f64();
    println!(
        "{pending} pending: {steps} holds in {s:.3} s, {:.2} M holds/s ({seen})",
        steps as f64 / s / 1e6
    );
    Ok(())
}
