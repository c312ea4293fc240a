//! Expected values are worked out by hand from ns-2.35's rules (mac-802_11.{h,cc},
//! mac-timers.cc) in the comments; the random backoff is shown as its range and, to pin
//! the exact timeline, replayed from the station's stream with ns-2's rule
//! (`Random::random() % cw` slots).

use super::harness::*;
use super::*;
use crate::wireless::frame::FrameKind;

/// Seed 004's rates: both 2 Mb/s.
fn cfg2() -> MacCfg {
    MacCfg {
        data_rate_bps: 2_000_000,
        basic_rate_bps: 2_000_000,
        ..MacCfg::ns2()
    }
}

/// The next backoff draw of a stream, in slots, for window `cw` (ns-2: random % cw).
fn draw(rng: &mut RngStream, cw: u64) -> u64 {
    rng.next_u64() % cw
}

#[test]
fn derived_constants_match_ns2() {
    let c = cfg2();
    // DIFS = SIFS + 2 slots = 10 + 40 = 50 us.
    assert_eq!(c.difs(), us(50));
    assert_eq!(c.pifs(), us(30));
    // PLCP = (144 + 48) / 8 = 24 bytes, sent at 1 Mb/s: 192 us.
    assert_eq!(c.plcp_bytes(), 24);
    // EIFS = SIFS + DIFS + 8 * (24 + 14) / 1e6 = 10 + 50 + 304 = 364 us.
    assert_eq!(c.eifs(), us(364));
    // getHdrLen11 = 24 + 30 + 4 = 58 bytes.
    assert_eq!(c.hdr_len11(), 58);
    // At 2 Mb/s: RTS 192 + 20*8/2 = 272 us; CTS/ACK 192 + 14*8/2 = 248 us;
    // DATA of a 1000-byte IP packet: 192 + 1034*8/2 = 4328 us.
    assert_eq!(c.airtime(20, 2_000_000), us(272));
    assert_eq!(c.airtime(14, 2_000_000), us(248));
    assert_eq!(c.airtime(1034, 2_000_000), us(4328));
    // ns-2 defaults (1 Mb/s): DATA 192 + 1034*8 = 8464 us.
    let d = MacCfg::ns2();
    assert_eq!(d.airtime(1034, d.data_rate_bps), us(8464));
}

#[test]
fn rts_cts_data_ack_timeline_at_2mbps() {
    // Station 0 gets a 1000-byte IP packet for station 1 at t = 0; both idle, zero
    // propagation delay.
    let seed = 11;
    let mut net = Net::new(2, &cfg2(), seed);
    let pkt = net.enqueue_at(SimTime::ZERO, 0, 1000, MacAddr(1));
    net.run_until(at_us(1_000_000));

    // send(): medium idle, no backoff running -> backoff of DIFS + k slots, k = random %
    // 31 in 0..=30 (bugFix_timer_). So the RTS starts at t0 = 50 + 20 k us, 50..=650 us.
    let k = draw(&mut rng_for(seed, 0), 31);
    let t0 = at_us(50 + 20 * k);
    let rel = |x: u64| t0 + us(x);

    let log: Vec<(
        SimTime,
        usize,
        FrameKind,
        MacAddr,
        SimDuration,
        u32,
        SimDuration,
    )> = net
        .tx_log
        .iter()
        .map(|(t, s, f)| (*t, *s, f.kind, f.dst, f.duration, f.bytes, f.airtime))
        .collect();
    assert!(log[0].0 >= at_us(50) && log[0].0 <= at_us(650));
    assert_eq!(
        log,
        vec![
            // RTS: 20 B, 272 us. Duration = SIFS + CTS + SIFS + DATA + SIFS + ACK
            //   = 10 + 248 + 10 + 4328 + 10 + 248 = 4854 us.
            (t0, 0, FrameKind::Rts, MacAddr(1), us(4854), 20, us(272)),
            // CTS after RTS end + SIFS = t0 + 282. Duration = 4854 - SIFS - CTS
            //   = 4854 - 10 - 248 = 4596 us.
            (
                rel(282),
                1,
                FrameKind::Cts,
                MacAddr(0),
                us(4596),
                14,
                us(248)
            ),
            // DATA after CTS end (t0 + 530) + SIFS = t0 + 540; 1000 + 30 + 4 = 1034 B,
            // 4328 us. Duration = ACK + SIFS = 258 us.
            (
                rel(540),
                0,
                FrameKind::Data,
                MacAddr(1),
                us(258),
                1034,
                us(4328)
            ),
            // ACK after DATA end (t0 + 4868) + SIFS = t0 + 4878; Duration 0.
            (rel(4878), 1, FrameKind::Ack, MacAddr(0), us(0), 14, us(248)),
        ]
    );
    // DATA carries sequence number 1 (sta_seqno_ starts at 1), no retry bit.
    assert_eq!(net.tx_log[2].2.seq, 1);
    assert!(!net.tx_log[2].2.retry);
    assert_eq!(net.tx_log[2].2.packet, Some(pkt));
    // Delivered up at the end of DATA (t0 + 4868); acked at the end of the ACK
    // (t0 + 4878 + 248 = t0 + 5126).
    assert_eq!(
        net.ev_log,
        vec![
            (
                rel(4868),
                1,
                MacEvent::Received {
                    packet: pkt,
                    from: MacAddr(0)
                }
            ),
            (rel(5126), 0, MacEvent::Sent { packet: pkt }),
        ]
    );
}

#[test]
fn response_timeouts_follow_ns2() {
    // The RTS timeout is RTS + 2 + SIFS + CTS + 2 = 272 + 2 + 10 + 248 + 2 = 534 us;
    // the CTS timeout CTS + 2 + (CTS duration) + 2 - SIFS - ACK
    //   = 248 + 2 + 4596 + 2 - 10 - 248 = 4590 us;
    // the ACK timeout DATA + 2 + SIFS + ACK + 2 = 4328 + 2 + 10 + 248 + 2 = 4590 us.
    // Station 0 sends to an absent station: its RTS at t0, then its deadline (the send
    // timer, once the interface timer at t0 + 272 has fired) must be t0 + 534.
    let mut mac = Mac::new(cfg2(), MacAddr(0), rng_for(1, 0));
    mac.enqueue(SimTime::ZERO, PacketId(1), 1000, MacAddr(5), false);
    let t0 = mac.poll_timeout().expect("backoff armed");
    mac.handle_timeout(t0);
    assert_eq!(mac.poll_transmit().map(|f| f.kind), Some(FrameKind::Rts));
    assert_eq!(mac.poll_timeout(), Some(t0 + us(272)));
    mac.handle_timeout(t0 + us(272));
    assert_eq!(mac.poll_timeout(), Some(t0 + us(534)));

    // Station 1 answers an RTS (duration 4854) with a CTS at +282 and then waits for
    // DATA until CTS start + 4590.
    let mut b = Mac::new(cfg2(), MacAddr(1), rng_for(1, 1));
    let rts = Frame {
        kind: FrameKind::Rts,
        src: MacAddr(0),
        dst: MacAddr(1),
        duration: us(4854),
        bytes: 20,
        airtime: us(272),
        seq: 0,
        retry: false,
        packet: None,
        quiet_up: false,
    };
    b.rx_start(SimTime::ZERO, &rts, 1.0, true);
    b.handle_timeout(at_us(272));
    b.handle_timeout(at_us(282));
    let cts = b.poll_transmit().expect("CTS");
    assert_eq!((cts.kind, cts.duration), (FrameKind::Cts, us(4596)));
    b.handle_timeout(at_us(282 + 248)); // end of the CTS (interface timer)
    assert_eq!(b.poll_timeout(), Some(at_us(282 + 4590)));
    // No DATA: the CTS is given up, nothing else is sent.
    b.handle_timeout(at_us(282 + 4590));
    assert_eq!(b.poll_transmit(), None);
    assert_eq!(b.poll_timeout(), None);
}

#[test]
fn seven_rts_without_cts_then_failed_and_window_reset() {
    // One station, the next hop absent. Each RTS times out 534 us after it starts;
    // RetransmitRTS: ssrc += 1, inc_cw (31 -> 63 -> 127 -> 255 -> 511 -> 1023 -> 1023),
    // a frozen backoff (tx_state is still RTS) resumed with DIFS by tx_resume. So
    //   RTS(i+1) = RTS(i) + 534 + 50 + 20 * k_i,  k_i = random % cw_i.
    // At the 7th timeout ssrc = 7 >= ShortRetryLimit 7: Failed, cw back to 31, and the
    // next queued packet is taken at once with a backoff drawn from 31 slots.
    let seed = 5;
    let mut net = Net::new(1, &cfg2(), seed);
    let p1 = net.enqueue_at(SimTime::ZERO, 0, 1000, MacAddr(9));
    let p2 = net.enqueue_at(SimTime::ZERO, 0, 1000, MacAddr(9));
    net.run_until(at_us(200_000));

    let mut rng = rng_for(seed, 0);
    let mut t = at_us(50 + 20 * draw(&mut rng, 31));
    let sent = net.sent_by(0);
    let mut cw = 31u64;
    for (i, (start, f)) in sent.iter().take(7).enumerate() {
        assert_eq!(f.kind, FrameKind::Rts, "attempt {i}");
        assert_eq!(f.retry, i > 0);
        assert_eq!(*start, t, "attempt {i}");
        cw = (2 * cw + 1).min(1023);
        t += us(534 + 50 + 20 * draw(&mut rng, cw));
    }
    // Failed at the 7th timeout: 7th RTS start + 534 us.
    let failed_at = sent[6].0 + us(534);
    let ev = net.events_of(0);
    assert_eq!(
        ev[0],
        (
            failed_at,
            MacEvent::Failed {
                packet: p1,
                next_hop: MacAddr(9)
            }
        )
    );
    // The draw for packet 2 is taken at the timeout (the 7th timeout draws nothing), from
    // the reset window: RTS at failed_at + 50 + 20 * (random % 31). The loop above drew
    // one value too many (after the 7th attempt), so replay the sequence again.
    let mut rng = rng_for(seed, 0);
    let mut w = 31u64;
    draw(&mut rng, w);
    for _ in 0..6 {
        w = (2 * w + 1).min(1023);
        draw(&mut rng, w);
    }
    let k = draw(&mut rng, 31);
    assert_eq!(sent[7].0, failed_at + us(50 + 20 * k));
    assert!(!sent[7].1.retry);
    assert_eq!(
        ev[1].1,
        MacEvent::Failed {
            packet: p2,
            next_hop: MacAddr(9)
        }
    );
    let c = net.macs[0].counters();
    assert_eq!((c.rts_sent, c.failed_short, c.short_retries), (14, 2, 14));
    assert_eq!(c.data_sent, 0);
    assert_eq!(net.macs[0].cw(), 31);
}

#[test]
fn failure_callback_purges_the_queue_before_the_next_pull() {
    // ns-2.35 mac-802_11.cc RetransmitRTS: at the retry limit the packet's xmit_failure_
    // callback runs first (AODV rt_ll_failed, aodv.cc, which with link-layer detection
    // drops every queued packet for the broken hop via ifqueue->filter), and only then
    // does send_timer call tx_resume, whose queue callback dequeues the next packet.
    // Queue: p1 and p2 for absent station 9, p3 for absent station 8. After p1's 7th
    // timeout p2 is purged, so the 8th RTS is p3's, addressed to 8, at
    // failed_at + DIFS 50 + 20 * k (k from the reset window of 31, the backoff frozen
    // while tx_state is still RTS and resumed with DIFS when it goes idle). p2 is never
    // sent nor reported.
    let seed = 5;
    let mut net = Net::new(1, &cfg2(), seed);
    net.purge_on_failure = true;
    let p1 = net.enqueue_at(SimTime::ZERO, 0, 1000, MacAddr(9));
    let _p2 = net.enqueue_at(SimTime::ZERO, 0, 1000, MacAddr(9));
    let p3 = net.enqueue_at(SimTime::ZERO, 0, 1000, MacAddr(8));
    net.run_until(at_us(200_000));

    let sent = net.sent_by(0);
    assert_eq!(sent.len(), 14);
    assert!(sent[..7].iter().all(|(_, f)| f.dst == MacAddr(9)));
    assert!(sent[7..].iter().all(|(_, f)| f.dst == MacAddr(8)));
    let failed_at = sent[6].0 + us(534);
    let mut rng = rng_for(seed, 0);
    let mut w = 31u64;
    draw(&mut rng, w);
    for _ in 0..6 {
        w = (2 * w + 1).min(1023);
        draw(&mut rng, w);
    }
    let k = draw(&mut rng, 31);
    assert_eq!(sent[7].0, failed_at + us(50 + 20 * k));
    let ev: Vec<MacEvent> = net.events_of(0).into_iter().map(|(_, e)| e).collect();
    assert_eq!(
        ev,
        vec![
            MacEvent::Failed {
                packet: p1,
                next_hop: MacAddr(9)
            },
            MacEvent::Failed {
                packet: p3,
                next_hop: MacAddr(8)
            }
        ]
    );
}

#[test]
fn backoff_windows_double_to_1023() {
    // 150 packets to an absent station, 7 RTS each. The gap between the timeout of
    // attempt i and RTS i+1 is DIFS + k slots with k in 0..=cw_i - 1, cw_i = 63, 127,
    // 255, 511, 1023, 1023; the first RTS of a packet comes after the Failed of the
    // previous one with k in 0..=30 (window reset). Over 150 draws per stage the largest
    // k exceeds the previous stage's window (P of not doing so < (1/2)^150).
    let cfg = MacCfg {
        ifq_limit: 1000,
        ..cfg2()
    };
    let mut net = Net::new(1, &cfg, 3);
    for _ in 0..150 {
        net.enqueue_at(SimTime::ZERO, 0, 1000, MacAddr(9));
    }
    net.run_until(at_us(3_000_000_000));
    let sent = net.sent_by(0);
    assert_eq!(sent.len(), 150 * 7);
    let windows = [63u64, 127, 255, 511, 1023, 1023];
    let mut max_k = [0u64; 7];
    for (n, attempts) in sent.chunks(7).enumerate() {
        if n > 0 {
            let prev_fail = sent[7 * n - 1].0 + us(534);
            let gap = attempts[0].0 - prev_fail;
            let k = (gap - us(50)).as_nanos() / 20_000;
            assert_eq!(gap, us(50 + 20 * k));
            assert!(k <= 30, "first attempt k {k}");
            max_k[0] = max_k[0].max(k);
        }
        for i in 0..6 {
            let gap = attempts[i + 1].0 - (attempts[i].0 + us(534));
            let k = (gap - us(50)).as_nanos() / 20_000;
            assert_eq!(gap, us(50 + 20 * k), "whole slots");
            assert!(k < windows[i], "stage {i}: k {k} >= cw {}", windows[i]);
            max_k[i + 1] = max_k[i + 1].max(k);
        }
    }
    assert!(max_k[0] >= 25, "{max_k:?}");
    for i in 1..6 {
        let prev = if i == 1 { 31 } else { windows[i - 2] };
        assert!(
            max_k[i] >= prev,
            "stage {i} never exceeded {prev}: {max_k:?}"
        );
    }
}

#[test]
fn overheard_rts_sets_nav_of_a_hidden_third_station() {
    // Stations 0 -> 1 as in the timeline test; station 2 hears station 0 only (so not
    // the CTS nor the ACK). Station 2 gets a packet for 0 at t0 + 100 us, while the RTS
    // is on the air: the medium is busy, so its backoff starts frozen (k2 = its first
    // draw % 31). At t0 + 272 the RTS ends and sets 2's NAV to t0 + 272 + 4854 = t0 + 5126.
    // The CTS (t0 + 282..530) is not heard, yet 2 stays silent (NAV). The DATA
    // (t0 + 540..4868) sets NAV to 4868 + 258 = 5126, no later. At t0 + 5126 the NAV
    // timer resumes the backoff after DIFS: 2's RTS at t0 + 5126 + 50 + 20 k2.
    let seed = 21;
    let mut net = Net::new(3, &cfg2(), seed);
    net.power[1][2] = 0.0;
    net.power[2][1] = 0.0;
    let k0 = draw(&mut rng_for(seed, 0), 31);
    let t0 = at_us(50 + 20 * k0);
    net.enqueue_at(SimTime::ZERO, 0, 1000, MacAddr(1));
    net.enqueue_at(t0 + us(100), 2, 1000, MacAddr(0));
    net.run_until(at_us(30_000));
    let k2 = draw(&mut rng_for(seed, 2), 31);
    let first2 = net.sent_by(2)[0];
    assert_eq!(first2.1.kind, FrameKind::Rts);
    assert_eq!(first2.0, t0 + us(5126 + 50 + 20 * k2));
    // And station 0's exchange was undisturbed.
    let kinds: Vec<FrameKind> = net.tx_log.iter().take(4).map(|x| x.2.kind).collect();
    assert_eq!(
        kinds,
        vec![
            FrameKind::Rts,
            FrameKind::Cts,
            FrameKind::Data,
            FrameKind::Ack
        ]
    );
}

fn bcast_frame(src: u32, packet: u32) -> Frame {
    // A 100-byte IP broadcast at 2 Mb/s: 134 MAC bytes, 192 + 134*8/2 = 728 us.
    Frame {
        kind: FrameKind::Data,
        src: MacAddr(src),
        dst: MacAddr::BROADCAST,
        duration: SimDuration::ZERO,
        bytes: 134,
        airtime: us(728),
        seq: packet as u16,
        retry: false,
        packet: Some(PacketId(packet)),
        quiet_up: false,
    }
}

#[test]
fn overlapping_frames_collide_unless_ten_times_stronger() {
    // Frame A (power pa) arrives at 0, frame B (power 1.0) at 100 us, both 728 us long.
    // A / B < CPThresh (10): collision, both lost, reception extended to B's end
    // (100 + 728 = 828 us), then NAV = EIFS: idle again at 828 + 364 = 1192 us.
    // A / B >= 10: B is captured (ignored) and A is received at 728 us; capture sets the
    // NAV to B's arrival + EIFS + B's airtime = 100 + 364 + 728 = 1192 us.
    for (pa, collide) in [(1.0, true), (9.99, true), (10.0, false), (50.0, false)] {
        let mut m = Mac::new(cfg2(), MacAddr(1), rng_for(1, 1));
        m.rx_start(SimTime::ZERO, &bcast_frame(0, 1), pa, true);
        m.rx_start(at_us(100), &bcast_frame(2, 2), 1.0, true);
        if collide {
            assert_eq!(m.poll_timeout(), Some(at_us(828)), "pa {pa}");
            m.handle_timeout(at_us(828));
            assert_eq!(m.poll_event(), None);
            assert_eq!(m.counters().collisions, 1);
            assert_eq!(m.counters().rx_collided, 1);
        } else {
            assert_eq!(m.poll_timeout(), Some(at_us(728)), "pa {pa}");
            m.handle_timeout(at_us(728));
            assert_eq!(
                m.poll_event(),
                Some(MacEvent::Received {
                    packet: PacketId(1),
                    from: MacAddr(0)
                })
            );
            assert_eq!(m.poll_event(), None);
            assert_eq!(m.counters().captures, 1);
        }
        assert!(!m.is_idle_at(at_us(1191)), "pa {pa}");
        assert!(m.is_idle_at(at_us(1192)), "pa {pa}");
    }
}

#[test]
fn collision_at_a_receiver_in_the_full_exchange() {
    // Stations 0 and 2 cannot hear each other; both send to 1. Their RTSs are forced to
    // overlap by giving both the packet when a fixed backoff would make them start
    // within 272 us of each other: we pick seeds where |t0 - t2| < 272 us, i.e. the two
    // first draws (each % 31) differ by at most 13 slots. With equal power at 1 the
    // later RTS collides with the earlier one; no CTS is sent for either, both time out
    // (534 us after their start) and retry with cw 63.
    let mut seed = 0;
    let (k0, k2) = loop {
        seed += 1;
        let a = draw(&mut rng_for(seed, 0), 31);
        let b = draw(&mut rng_for(seed, 2), 31);
        if a.abs_diff(b) <= 13 && a != b {
            break (a, b);
        }
    };
    let mut net = Net::new(3, &cfg2(), seed);
    net.power[0][2] = 0.0;
    net.power[2][0] = 0.0;
    net.enqueue_at(SimTime::ZERO, 0, 1000, MacAddr(1));
    net.enqueue_at(SimTime::ZERO, 2, 1000, MacAddr(1));
    let t_first = at_us(50 + 20 * k0.min(k2));
    let t_second = at_us(50 + 20 * k0.max(k2));
    // Run until just after both RTS timeouts.
    net.run_until(t_second + us(534));
    let starts: Vec<(SimTime, FrameKind)> = net.tx_log.iter().map(|x| (x.0, x.2.kind)).collect();
    assert_eq!(
        starts,
        vec![(t_first, FrameKind::Rts), (t_second, FrameKind::Rts)]
    );
    let c1 = net.macs[1].counters();
    assert_eq!((c1.collisions, c1.rx_collided, c1.cts_sent), (1, 1, 0));
    assert_eq!(net.macs[0].cw(), 63);
    assert_eq!(net.macs[2].cw(), 63);
}

#[test]
fn captured_rts_still_blocks_the_cts_through_the_nav() {
    // ns-2's capture() sets NAV = EIFS + airtime of the ignored frame. An RTS for us
    // (power 10) captured over an RTS from elsewhere arriving at 100 us (power 1): the
    // first RTS is received at 272 us, but when the SIFS ends (282 us) the NAV runs to
    // 100 + 364 + 272 = 736 us, so check_pktCTRL drops the CTS (medium busy).
    let rts = |src: u32, dst: u32| Frame {
        kind: FrameKind::Rts,
        src: MacAddr(src),
        dst: MacAddr(dst),
        duration: us(4854),
        bytes: 20,
        airtime: us(272),
        seq: 0,
        retry: false,
        packet: None,
        quiet_up: false,
    };
    let mut m = Mac::new(cfg2(), MacAddr(1), rng_for(1, 1));
    m.rx_start(SimTime::ZERO, &rts(0, 1), 10.0, true);
    m.rx_start(at_us(100), &rts(2, 3), 1.0, true);
    m.handle_timeout(at_us(272));
    assert_eq!(m.poll_timeout(), Some(at_us(282)));
    m.handle_timeout(at_us(282));
    assert_eq!(m.poll_transmit(), None);
    assert_eq!(m.counters().cts_suppressed, 1);
    assert!(m.is_idle_at(at_us(736)));
    assert!(!m.is_idle_at(at_us(735)));
}

#[test]
fn errored_frame_costs_eifs_before_the_backoff_resumes() {
    // A 728-us frame arrives at 0; at 10 us a broadcast packet is queued, so the backoff
    // starts frozen with k = first draw % 31.
    // Decodable (and Duration 0): reception ends at 728, the backoff resumes after DIFS:
    //   broadcast at 728 + 50 + 20 k.
    // Below RXThresh: recv_timer sets NAV = EIFS (364 us) at 728; the NAV timer then
    // resumes the backoff with DIFS: broadcast at 728 + 364 + 50 + 20 k.
    for (decodable, extra) in [(true, 0u64), (false, 364u64)] {
        let seed = 8;
        let mut m = Mac::new(cfg2(), MacAddr(1), rng_for(seed, 1));
        m.rx_start(SimTime::ZERO, &bcast_frame(0, 1), 1.0, decodable);
        m.enqueue(at_us(10), PacketId(7), 100, MacAddr::BROADCAST, false);
        let k = draw(&mut rng_for(seed, 1), 31);
        let mut sent = None;
        while let Some(t) = m.poll_timeout() {
            m.handle_timeout(t);
            if let Some(f) = m.poll_transmit() {
                sent = Some((t, f));
                break;
            }
        }
        let (t, f) = sent.expect("broadcast sent");
        assert_eq!(f.packet, Some(PacketId(7)));
        assert_eq!(t, at_us(728 + extra + 50 + 20 * k), "decodable {decodable}");
        assert_eq!(m.counters().rx_errors, u64::from(!decodable));
    }
}

#[test]
fn frame_arriving_while_transmitting_is_lost() {
    // Station 1 sends a broadcast (728 us) starting at t0. A frame arriving during it is
    // marked errored. If it ends while we still transmit it vanishes (no EIFS); if it
    // ends after our transmission it costs EIFS like any errored frame.
    let mut m = Mac::new(cfg2(), MacAddr(1), rng_for(2, 1));
    m.enqueue(SimTime::ZERO, PacketId(7), 100, MacAddr::BROADCAST, false);
    let t0 = m.poll_timeout().expect("backoff");
    m.handle_timeout(t0);
    assert!(m.poll_transmit().is_some());
    // A 272-us RTS from 0 arrives 100 us in, ends at t0 + 372 < t0 + 728.
    let rts = Frame {
        kind: FrameKind::Rts,
        src: MacAddr(0),
        dst: MacAddr(1),
        duration: us(4854),
        bytes: 20,
        airtime: us(272),
        seq: 0,
        retry: false,
        packet: None,
        quiet_up: false,
    };
    m.rx_start(t0 + us(100), &rts, 1.0, true);
    m.handle_timeout(t0 + us(372));
    assert_eq!(m.counters().rx_missed_tx, 1);
    assert!(m.ctrl.is_none(), "no CTS prepared");
    // A second one arrives at t0 + 600 and ends at t0 + 872, after our end (t0 + 728).
    m.rx_start(t0 + us(600), &rts, 1.0, true);
    while let Some(t) = m.poll_timeout() {
        if t > t0 + us(872) {
            break;
        }
        m.handle_timeout(t);
    }
    assert_eq!(m.counters().rx_errors, 1);
    assert!(!m.is_idle_at(t0 + us(872 + 363)));
    assert!(m.is_idle_at(t0 + us(872 + 364)));
}

#[test]
fn broadcast_has_no_rts_and_no_ack() {
    // 100-byte IP broadcast from 0 at t = 0: DIFS + k slots, then DATA of 134 B at the
    // basic rate (728 us), Duration 0; received by both others at its end; Sent at its
    // end (send timer = airtime for broadcast); no other frame on the air.
    let seed = 4;
    let mut net = Net::new(3, &cfg2(), seed);
    let p = net.enqueue_at(SimTime::ZERO, 0, 100, MacAddr::BROADCAST);
    net.run_until(at_us(100_000));
    let k = draw(&mut rng_for(seed, 0), 31);
    let t0 = at_us(50 + 20 * k);
    assert_eq!(net.tx_log.len(), 1);
    let (t, s, f) = net.tx_log[0];
    assert_eq!((t, s), (t0, 0));
    assert_eq!(
        (f.kind, f.dst, f.duration, f.bytes, f.airtime),
        (
            FrameKind::Data,
            MacAddr::BROADCAST,
            SimDuration::ZERO,
            134,
            us(728)
        )
    );
    let end = t0 + us(728);
    let mut ev = net.ev_log.clone();
    ev.sort_by_key(|x| x.1);
    assert_eq!(
        ev,
        vec![
            (end, 0, MacEvent::Sent { packet: p }),
            (
                end,
                1,
                MacEvent::Received {
                    packet: p,
                    from: MacAddr(0)
                }
            ),
            (
                end,
                2,
                MacEvent::Received {
                    packet: p,
                    from: MacAddr(0)
                }
            ),
        ]
    );
    assert_eq!(net.macs[0].counters().broadcast_sent, 1);
}

#[test]
fn duplicate_data_after_lost_ack_is_acked_not_delivered_twice() {
    // 0 -> 1, 1000 B. The first ACK never reaches station 0. Its ACK timeout fires at
    // DATA start + 4590 = t0 + 540 + 4590 = t0 + 5130: RetransmitDATA (slrc = 1 < 4),
    // retry bit, new RTS, cw 63, frozen backoff resumed with DIFS: the second RTS at
    // t0 + 5130 + 50 + 20 k1, k1 = second draw % 63. The retransmitted DATA has the same
    // sequence number (1); station 1 ACKs it (the ACK is sent before the duplicate
    // check) but does not deliver it again.
    let seed = 13;
    let mut net = Net::new(2, &cfg2(), seed);
    let mut acks_lost = 0;
    net.lose = Some(Box::new(move |to, f| {
        if to == 0 && f.kind == FrameKind::Ack && acks_lost == 0 {
            acks_lost += 1;
            return true;
        }
        false
    }));
    let p = net.enqueue_at(SimTime::ZERO, 0, 1000, MacAddr(1));
    net.run_until(at_us(200_000));
    let mut rng = rng_for(seed, 0);
    let t0 = at_us(50 + 20 * draw(&mut rng, 31));
    let t1 = t0 + us(5130 + 50 + 20 * draw(&mut rng, 63));
    let s0 = net.sent_by(0);
    let kinds: Vec<(SimTime, FrameKind, bool)> =
        s0.iter().map(|(t, f)| (*t, f.kind, f.retry)).collect();
    assert_eq!(
        kinds,
        vec![
            (t0, FrameKind::Rts, false),
            (t0 + us(540), FrameKind::Data, false),
            (t1, FrameKind::Rts, false),
            (t1 + us(540), FrameKind::Data, true),
        ]
    );
    assert_eq!(s0[1].1.seq, s0[3].1.seq);
    let acks = net
        .sent_by(1)
        .iter()
        .filter(|x| x.1.kind == FrameKind::Ack)
        .count();
    assert_eq!(acks, 2);
    let recv: Vec<_> = net
        .events_of(1)
        .into_iter()
        .filter(|e| matches!(e.1, MacEvent::Received { .. }))
        .collect();
    assert_eq!(recv.len(), 1);
    assert_eq!(net.macs[1].counters().duplicates, 1);
    assert_eq!(
        net.events_of(0),
        vec![(t1 + us(5126), MacEvent::Sent { packet: p })]
    );
    let c0 = net.macs[0].counters();
    assert_eq!((c0.long_retries, c0.data_retransmissions), (1, 1));
    // Success resets the window (31) and the long retry count.
    assert_eq!(net.macs[0].cw(), 31);
    assert_eq!(net.macs[0].slrc, 0);
}

#[test]
fn interface_queue_in_front_of_the_mac() {
    // 60 packets at once into an idle NIC: the first goes straight to the MAC, 49 wait
    // (limit 50: drop when waiting + 1 >= 50), the last 10 are dropped. A routing packet
    // then goes to the head and pushes out the tail (packet 50).
    let mut m = Mac::new(cfg2(), MacAddr(0), rng_for(1, 0));
    for i in 1..=60 {
        m.enqueue(SimTime::ZERO, PacketId(i), 500, MacAddr(1), false);
    }
    assert!(m.holds_packet());
    assert_eq!(m.ifq().len(), 49);
    let mut dropped = Vec::new();
    while let Some(MacEvent::Dropped { packet, reason }) = m.poll_event() {
        assert_eq!(reason, DropReason::IfqFull);
        dropped.push(packet.0);
    }
    assert_eq!(dropped, (51..=60).collect::<Vec<u32>>());
    m.enqueue(SimTime::ZERO, PacketId(99), 48, MacAddr::BROADCAST, true);
    assert_eq!(
        m.poll_event(),
        Some(MacEvent::Dropped {
            packet: PacketId(50),
            reason: DropReason::IfqFull
        })
    );
    assert_eq!(m.ifq().iter().next().map(|e| e.packet), Some(PacketId(99)));
    // AODV's purge on a failed link toward 1 empties the rest.
    let mut n = 0;
    while m.ifq_mut().take_next_hop(MacAddr(1)).is_some() {
        n += 1;
    }
    assert_eq!(n, 48);
    assert_eq!(m.ifq().len(), 1);
}

#[test]
fn waiting_mac_sends_nothing_before_its_wait_bound() {
    // Six saturated stations with RTS/CTS, each sending to another, over a random power
    // matrix (not sensed, sensed but not decodable, decodable, strong enough to
    // capture), so that backoffs pause behind overheard exchanges, hidden stations
    // collide, errored frames cost EIFS. Whenever a station is left waiting quietly,
    // its bound, with every frame that later reaches it taken in (in arrival order, up
    // to the first frame addressed to it or broadcast, an input after which the world
    // sets the bound anew), must not be later than its next transmission: the MAC's own
    // timeline is the independent answer.
    let mut checked = 0;
    let mut raised = 0;
    for seed in 0..12u64 {
        let mut r = RngStream::new(seed, "wait-bound-test");
        let n = 6;
        let mut net = Net::new(n, &cfg2(), seed);
        net.prop = us(1);
        let levels = [0.0, 0.2, 1.0, 15.0];
        for i in 0..n {
            for j in 0..n {
                if i != j {
                    net.power[i][j] = levels[(r.next_u64() % 4) as usize];
                }
            }
            let to = (i + 1 + (r.next_u64() % (n as u64 - 1)) as usize) % n;
            net.saturated[i] = Some((200 + (r.next_u64() % 800) as u32, MacAddr(to as u32)));
        }
        net.start_saturated(SimTime::ZERO);
        net.run_until(at_us(400_000));
        for &(t0, i, b0) in &net.wait_log {
            let mut b = b0;
            let mut limit = SimTime::MAX;
            for &(t, j, f) in &net.tx_log {
                let at = t + net.prop;
                if j == i || at < t0 || net.power[j][i] < CS_THRESH {
                    continue;
                }
                if f.dst == MacAddr(i as u32) || f.dst.is_broadcast() {
                    limit = limit.min(at);
                    continue;
                }
                if at < limit && !net.macs[i].wait_bound_sense(&mut b, at, f.airtime, f.duration) {
                    break;
                }
            }
            let end = net.macs[i].wait_end(b);
            assert!(end > t0);
            raised += usize::from(end > net.macs[i].wait_end(b0));
            let first_tx = net.tx_log.iter().find(|&&(t, j, _)| j == i && t > t0);
            if let Some(&(t, _, f)) = first_tx {
                assert!(
                    t >= end.min(limit),
                    "seed {seed}: station {i} waiting at {t0:?} sent {f:?} at {t:?}, bound {end:?}"
                );
            }
            checked += 1;
        }
    }
    assert!(
        checked > 1000 && raised > 100,
        "{checked} checked, {raised} raised"
    );
}

#[test]
fn quiet_delivery_counts_instead_of_putting_out() {
    // The broadcast frame of `bcast_frame` arrives at 0 and ends at 728 us. Marked
    // `quiet_up`, its reception leaves the MAC's timers quiet, and its end counts the
    // delivery (`delivered`, and `quiet_ups` if the end is before `quiet_up_until`)
    // instead of putting the packet out; unmarked, the same frame is put out.
    for (until_ns, quiet, expect_ups) in [
        (728_001, true, 1),
        (728_000, true, 0),
        (0, true, 0),
        (u64::MAX, false, 0),
    ] {
        let mut m = Mac::new(cfg2(), MacAddr(1), rng_for(1, 1));
        m.set_quiet_up_until(SimTime::from_nanos(until_ns));
        let mut f = bcast_frame(0, 7);
        f.quiet_up = quiet;
        m.rx_start(SimTime::ZERO, &f, 1.0, true);
        assert_eq!(m.timers_are_quiet(), quiet);
        assert_eq!(m.poll_timeout(), Some(at_us(728)));
        m.handle_timeout(at_us(728));
        assert_eq!(m.counters().delivered, 1);
        assert_eq!(m.take_quiet_ups(), expect_ups, "until {until_ns} ns");
        assert_eq!(m.take_quiet_ups(), 0);
        let out = m.poll_event();
        if quiet {
            assert_eq!(out, None);
        } else {
            assert_eq!(
                out,
                Some(MacEvent::Received {
                    packet: PacketId(7),
                    from: MacAddr(0)
                })
            );
        }
    }
    // Collided, a marked frame is counted as collided and not delivered.
    let mut m = Mac::new(cfg2(), MacAddr(1), rng_for(1, 1));
    let mut f = bcast_frame(0, 7);
    f.quiet_up = true;
    m.rx_start(SimTime::ZERO, &f, 1.0, true);
    m.rx_start(at_us(100), &bcast_frame(2, 8), 1.0, true);
    m.handle_timeout(at_us(828));
    assert_eq!(
        (
            m.counters().delivered,
            m.counters().rx_collided,
            m.take_quiet_ups()
        ),
        (0, 1, 0)
    );
}
