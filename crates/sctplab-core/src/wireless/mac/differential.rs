//! Differential tests of the MAC's fast paths (issue 31, step 4): random saturated
//! networks (the harness, with hidden stations, capture, errored frames, RTS/CTS or
//! not) drive every station through reachable states; before each of its inputs, the
//! state is cloned, a fast path applied to one clone and the general path it stands
//! for to the other, with the real input and with random frames, and the whole MAC
//! state (`Debug` of every field: timers, NAV, backoff, frames held, counters, queues,
//! random stream) must come out the same. Each fast path is tried only where the world
//! may take it (its precondition), and each must be met often enough for the test to
//! mean something.

use super::harness::*;
use super::*;
use crate::wireless::frame::FrameKind;

/// The general path a quiet MAC's timer events stand for, up to `until`: every due
/// deadline through `handle_timeout`, as the world's timer events run them.
fn general_timers_until(m: &mut Mac, until: SimTime) {
    while let Some(t) = m.poll_timeout() {
        if t > until {
            break;
        }
        m.handle_timeout(t);
    }
}

/// The whole state, but for the index in `next` when no timer runs: the fast paths
/// leave there the timer they stopped, the general path 0, and `set_timer` takes both
/// alike (a rescan finds the same earliest).
fn state(m: &Mac) -> String {
    let mut m = m.clone();
    if m.next.1 == NO_TIMER {
        m.next.0 = 0;
    }
    format!("{m:?}")
}

/// A frame from another station, not for `me`: a unicast frame of any kind, or a
/// broadcast DATA frame, with a random size, Duration and rate.
fn overheard_frame(r: &mut RngStream, me: MacAddr, n: u32) -> Frame {
    let src = (me.0 + 1 + (r.next_u64() % u64::from(n - 1)) as u32) % n;
    let mut dst = (src + 1 + (r.next_u64() % u64::from(n - 1)) as u32) % n;
    if dst == me.0 {
        dst = (dst + 1) % n;
        if dst == src {
            dst = (dst + 1) % n;
        }
    }
    let kind = [
        FrameKind::Rts,
        FrameKind::Cts,
        FrameKind::Data,
        FrameKind::Ack,
    ][(r.next_u64() % 4) as usize];
    let broadcast = kind == FrameKind::Data && r.next_u64() % 4 == 0;
    let bytes = 14 + (r.next_u64() % 1500) as u32;
    Frame {
        kind,
        src: MacAddr(src),
        dst: if broadcast || dst == me.0 {
            MacAddr::BROADCAST
        } else {
            MacAddr(dst)
        },
        duration: if broadcast {
            SimDuration::ZERO
        } else {
            SimDuration::from_micros(r.next_u64() % 3000)
        },
        bytes,
        airtime: us(192 + u64::from(bytes) * 8 / 2),
        seq: (r.next_u64() % 4096) as u16,
        retry: false,
        packet: (kind == FrameKind::Data).then_some(PacketId(1 << 20)),
        quiet_up: broadcast,
    }
}

/// `Mac::mode` as the two predicates it replaced read (each with its own copy of the
/// reception clause), so that merging them is checked on every state the test visits.
fn mode_as_two_predicates(m: &Mac) -> fast::Mode {
    let active = (1 << DEFER) | (1 << BACKOFF) | (1 << SEND) | (1 << IF);
    let rx_passive = m.timers[RECV] == NO_TIMER
        || m.rx.is_none_or(|rx| {
            m.rx_state == RxState::Coll
                || rx.error
                || rx.frame.quiet_up
                || (rx.frame.dst != m.addr && !rx.frame.dst.is_broadcast())
        });
    let quiet = m.tx_state == TxState::Idle
        && !m.tx_active
        && !m.backoff.busy
        && !m.holding
        && m.tx.is_none()
        && m.rts.is_none()
        && m.ctrl.is_none()
        && m.running & active == 0
        && rx_passive;
    let waiting = m.backoff.paused
        && m.tx_state == TxState::Idle
        && !m.tx_active
        && !m.resume_pending
        && m.ctrl.is_none()
        && m.running & active == 0
        && rx_passive;
    assert!(!(quiet && waiting), "quiet and waiting at once");
    if quiet {
        fast::Mode::Quiet
    } else if waiting {
        fast::Mode::Waiting
    } else {
        fast::Mode::General
    }
}

#[derive(Default, Debug)]
struct Met {
    modes: [usize; 3],
    quiet_timeout: usize,
    waiting_timeout: usize,
    quiet_rx_start_idle: usize,
    rx_start_idle: usize,
    quiet_overhear: usize,
    quiet_overhear_after_nav: usize,
    waiting_overhear: usize,
}

/// Every fast path that applies to `m` at `now`, against its general path, with the
/// frame `f` arriving at `now` (power `p`).
fn check_all(m: &Mac, now: SimTime, f: &Frame, p: f64, met: &mut Met) {
    let mode = m.mode();
    assert_eq!(mode, mode_as_two_predicates(m));
    met.modes[mode as usize] += 1;
    let decodable = p >= RX_THRESH;
    let quiet = m.timers_are_quiet() && !m.resume_pending;
    // A timer turn at `now` (only when something is due, as the world's events are).
    if m.poll_timeout().is_some_and(|t| t <= now) {
        if quiet {
            let (mut a, mut b) = (m.clone(), m.clone());
            a.quiet_timeout(now);
            b.handle_timeout(now);
            assert_eq!(state(&a), state(&b), "quiet_timeout at {now:?}");
            met.quiet_timeout += 1;
        }
        if m.waits_quietly() {
            let (mut a, mut b) = (m.clone(), m.clone());
            a.waiting_timeout(now);
            b.handle_timeout(now);
            assert_eq!(state(&a), state(&b), "waiting_timeout at {now:?}");
            met.waiting_timeout += 1;
        }
        // The receptions below come after the timer's turn.
        return;
    }
    let idle = !m.needs_power().0;
    let for_me = f.dst == m.addr() || (f.dst.is_broadcast() && !f.quiet_up);
    // A reception's start at a MAC that is not receiving.
    if idle {
        let (mut a, mut b) = (m.clone(), m.clone());
        a.rx_start_idle(now, f, p, decodable);
        b.rx_start(now, f, p, decodable);
        assert_eq!(state(&a), state(&b), "rx_start_idle of {f:?} at {now:?}");
        met.rx_start_idle += 1;
        if quiet && !for_me && !m.tx_active {
            let (mut a, mut b) = (m.clone(), m.clone());
            a.quiet_rx_start_idle(now, f, p, decodable);
            b.rx_start(now, f, p, decodable);
            assert_eq!(
                state(&a),
                state(&b),
                "quiet_rx_start_idle of {f:?} at {now:?}"
            );
            met.quiet_rx_start_idle += 1;
        }
    }
    if for_me {
        return;
    }
    // The reception and its end in one step, when nothing else happens in between (the
    // world's `QuietNic::ends_alone`) and the MAC's next deadline (a NAV end) is not
    // the reception's end itself.
    let end = now + f.airtime;
    let deadline = m.next_deadline_nanos();
    let nav_apart = deadline > now.as_nanos() && deadline != end.as_nanos();
    if quiet && nav_apart && m.quiet_overhear_fits(now) {
        let (mut a, mut b) = (m.clone(), m.clone());
        a.quiet_overhear(
            now,
            f.airtime,
            f.duration,
            decodable,
            f.quiet_up.then_some(f),
        );
        b.rx_start(now, f, p, decodable);
        general_timers_until(&mut b, end);
        assert_eq!(state(&a), state(&b), "quiet_overhear of {f:?} at {now:?}");
        met.quiet_overhear += 1;
    }
    if m.waits_quietly() && nav_apart && m.waiting_overhear_fits(now) {
        let (mut a, mut b) = (m.clone(), m.clone());
        a.waiting_overhear(
            now,
            f.airtime,
            f.duration,
            decodable,
            f.quiet_up.then_some(f),
        );
        b.rx_start(now, f, p, decodable);
        general_timers_until(&mut b, end);
        assert_eq!(state(&a), state(&b), "waiting_overhear of {f:?} at {now:?}");
        met.waiting_overhear += 1;
    }
}

/// A NAV end before the frame's arrival and the reception in one step
/// (`Mac::quiet_overhear_after_nav`), from a state where the NAV's timer alone runs.
fn check_after_nav(m: &Mac, f: &Frame, gap: SimDuration, p: f64, met: &mut Met) {
    let quiet = m.timers_are_quiet() && !m.resume_pending;
    let Some(nav_end) = m.poll_timeout() else {
        return;
    };
    if !(quiet && m.only_nav_due_at(nav_end) && m.nav == nav_end && !m.needs_power().0) {
        return;
    }
    let at = nav_end + gap;
    let end = at + f.airtime;
    let decodable = p >= RX_THRESH;
    let (mut a, mut b) = (m.clone(), m.clone());
    a.quiet_overhear_after_nav(
        nav_end,
        at,
        f.airtime,
        f.duration,
        decodable,
        f.quiet_up.then_some(f),
    );
    b.handle_timeout(nav_end);
    b.rx_start(at, f, p, decodable);
    general_timers_until(&mut b, end);
    assert_eq!(
        state(&a),
        state(&b),
        "after NAV end {nav_end:?}, {f:?} at {at:?}"
    );
    met.quiet_overhear_after_nav += 1;
}

#[test]
fn fast_paths_leave_the_mac_as_the_general_paths_do() {
    use std::cell::RefCell;
    use std::rc::Rc;
    let met = Rc::new(RefCell::new(Met::default()));
    for seed in 0..6u64 {
        let mut r = RngStream::new(seed, "mac-differential-test");
        let n = 6;
        let cfg = MacCfg {
            data_rate_bps: 2_000_000,
            basic_rate_bps: if seed % 2 == 0 { 1_000_000 } else { 2_000_000 },
            rts_threshold: [0, 500, 3000][(seed % 3) as usize],
            ..MacCfg::ns2()
        };
        let mut net = Net::new(n, &cfg, seed);
        net.prop = us(1);
        net.keep_logs = false;
        // Not sensed, sensed but not decodable, decodable, strong enough to capture.
        let levels = [0.0, 0.2, 1.0, 15.0];
        for i in 0..n {
            for j in 0..n {
                if i != j {
                    net.power[i][j] = levels[(r.next_u64() % 4) as usize];
                }
            }
            // Some stations only overhear: those are the quiet ones.
            if r.next_u64() % 3 != 0 {
                let to = (i + 1 + (r.next_u64() % (n as u64 - 1)) as usize) % n;
                net.saturated[i] = Some((200 + (r.next_u64() % 800) as u32, MacAddr(to as u32)));
            }
        }
        let seen = Rc::clone(&met);
        let mut draws = RngStream::new(seed, "mac-differential-inputs");
        net.before_input = Some(Box::new(move |m: &Mac, now: SimTime| {
            let met = &mut *seen.borrow_mut();
            for _ in 0..2 {
                let f = overheard_frame(&mut draws, m.addr(), n as u32);
                let p = [0.2, 1.0, 15.0][(draws.next_u64() % 3) as usize];
                check_all(m, now, &f, p, met);
                let gap = SimDuration::from_nanos(1 + draws.next_u64() % 50_000);
                check_after_nav(m, &f, gap, p, met);
            }
        }));
        net.start_saturated(SimTime::ZERO);
        net.run_until(at_us(150_000));
    }
    let met = met.borrow();
    let counts = [
        met.quiet_timeout,
        met.waiting_timeout,
        met.quiet_rx_start_idle,
        met.rx_start_idle,
        met.quiet_overhear,
        met.quiet_overhear_after_nav,
        met.waiting_overhear,
    ];
    assert!(counts.iter().all(|&c| c >= 200), "{met:?}");
    assert!(met.modes.iter().all(|&c| c >= 200), "{met:?}");
}
