//! Coupled congestion control across the paths of one multipath flow: the increase of
//! congestion avoidance on one path reads every path's window and RTT, so that the
//! flow as a whole takes no more than a single-path flow would at a shared bottleneck
//! and moves traffic off the more congested paths. Slow start and the decrease stay
//! each path's own rules (RFC 6356 sec. 3; Khalili et al. change only the increase).
//!
//! - LIA: RFC 6356 sec. 3 ("Linked Increases Algorithm").
//! - OLIA: Khalili, Gast, Popovic and Le Boudec, "MPTCP is not Pareto-optimal:
//!   performance issues and a possible solution", CoNEXT 2012 (and IEEE/ACM ToN 2013),
//!   sec. 5, the "Opportunistic Linked Increases Algorithm", as
//!   draft-khalili-mptcp-congestion-control specifies it.
//!
//! Windows are in bytes and RTTs in seconds, as the caller keeps them; each function says
//! where it converts to segments. Pure functions of the paths' state: the transport
//! decides which paths take part and keeps the loss intervals OLIA needs.

/// One path of the flow as the coupled increase sees it.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Subflow {
    /// Congestion window, bytes.
    pub cwnd: f64,
    /// Smoothed RTT, seconds (> 0).
    pub rtt: f64,
    /// OLIA's l_r: the larger of the bytes acknowledged between the path's last two
    /// losses and those acknowledged since its last loss (LIA does not read it).
    pub inter_loss: f64,
}

/// RFC 6356 sec. 3: alpha = cwnd_total * max_i(cwnd_i / rtt_i^2) / (sum_i cwnd_i /
/// rtt_i)^2. With one path it is 1 (the increase is Reno's).
pub fn lia_alpha(paths: &[Subflow]) -> f64 {
    let total: f64 = paths.iter().map(|p| p.cwnd).sum();
    let best = paths
        .iter()
        .map(|p| p.cwnd / (p.rtt * p.rtt))
        .fold(0.0, f64::max);
    let sum: f64 = paths.iter().map(|p| p.cwnd / p.rtt).sum();
    if sum <= 0.0 {
        return 1.0;
    }
    total * best / (sum * sum)
}

/// RFC 6356 sec. 3: for an ack of `bytes_acked` on path `i` (in congestion avoidance),
/// cwnd_i grows by min(alpha * bytes_acked * MSS_i / cwnd_total, bytes_acked * MSS_i /
/// cwnd_i) bytes, `mss` being path i's MSS_i. The second term caps the path at what a
/// single-path flow on it would take.
pub fn lia_increase(paths: &[Subflow], i: usize, bytes_acked: f64, mss: f64) -> f64 {
    let total: f64 = paths.iter().map(|p| p.cwnd).sum();
    let own = bytes_acked * mss / paths[i].cwnd;
    if total <= 0.0 {
        return own;
    }
    (lia_alpha(paths) * bytes_acked * mss / total).min(own)
}

/// OLIA's alpha_r (Khalili et al. sec. 5): with M the paths of the largest window and B
/// the presumably best paths, those with the largest l_r / rtt_r^2 (a single-path
/// TCP's rate on a path goes as sqrt(2 l_r) / rtt_r; the authors' Linux
/// `mptcp_olia.c` compares the same quantity), and n the number of paths:
/// 1 / (n |B \ M|) for a path in B \ M, -1 / (n |M|) for a path in M when B \ M is not
/// empty, 0 otherwise. Windows and the quantity are compared exactly.
pub fn olia_alpha(paths: &[Subflow], i: usize) -> f64 {
    let n = paths.len() as f64;
    let max_w = paths.iter().map(|p| p.cwnd).fold(f64::MIN, f64::max);
    let quality = |p: &Subflow| p.inter_loss / (p.rtt * p.rtt);
    let best_q = paths.iter().map(quality).fold(f64::MIN, f64::max);
    let in_m = |p: &Subflow| p.cwnd == max_w;
    let in_b = |p: &Subflow| quality(p) == best_q;
    let m = paths.iter().filter(|p| in_m(p)).count() as f64;
    let b_not_m = paths.iter().filter(|p| in_b(p) && !in_m(p)).count() as f64;
    if b_not_m == 0.0 {
        return 0.0;
    }
    let p = &paths[i];
    if in_b(p) && !in_m(p) {
        1.0 / (n * b_not_m)
    } else if in_m(p) {
        -1.0 / (n * m)
    } else {
        0.0
    }
}

/// OLIA (Khalili et al. sec. 5, eq. 5): for each acked segment on path r, w_r grows by
/// (w_r / rtt_r^2) / (sum_p w_p / rtt_p)^2 + alpha_r / w_r segments. Windows are
/// taken in segments of path r's `mss`; the result is in bytes for `bytes_acked`. With
/// one path it is Reno's 1 / w per segment. Negative when alpha_r < 0 outweighs the
/// first term (a path of the largest window gives way to a better one).
pub fn olia_increase(paths: &[Subflow], i: usize, bytes_acked: f64, mss: f64) -> f64 {
    let r = &paths[i];
    let w_r = r.cwnd / mss;
    let sum: f64 = paths.iter().map(|p| p.cwnd / mss / p.rtt).sum();
    let first = (w_r / (r.rtt * r.rtt)) / (sum * sum);
    let per_segment = first + olia_alpha(paths, i) / w_r;
    bytes_acked / mss * per_segment * mss
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1.0)
    }

    fn path(cwnd: f64, rtt: f64) -> Subflow {
        Subflow {
            cwnd,
            rtt,
            inter_loss: 0.0,
        }
    }

    const MSS: f64 = 1000.0;

    #[test]
    fn lia_with_one_path_is_reno() {
        // alpha = w * (w / r^2) / (w / r)^2 = 1; increase min(b m / w, b m / w).
        let p = [path(20_000.0, 0.1)];
        assert!(close(lia_alpha(&p), 1.0));
        assert!(close(
            lia_increase(&p, 0, 1000.0, MSS),
            1000.0 * 1000.0 / 20_000.0
        ));
    }

    #[test]
    fn lia_on_two_equal_paths_takes_half_of_one_reno_flow_per_path() {
        // Two paths of 10 segments, 100 ms each: cwnd_total = 20000 B,
        // max(cwnd_i / rtt_i^2) = 10000 / 0.01 = 1e6, sum cwnd_i / rtt_i = 2e5,
        // alpha = 20000 * 1e6 / 4e10 = 0.5. Per 1000 acked bytes:
        // min(0.5 * 1000 * 1000 / 20000, 1000 * 1000 / 10000) = min(25, 100) = 25 B,
        // a quarter of the path's own Reno increase, so the pair together grows as one
        // Reno flow of the total window would: 2 x 25 B per 2 x 1000 B against
        // 1000 * 1000 / 20000 = 50 B per 1000 B.
        let p = [path(10_000.0, 0.1), path(10_000.0, 0.1)];
        assert!(close(lia_alpha(&p), 0.5));
        assert!(close(lia_increase(&p, 0, 1000.0, MSS), 25.0));
        assert!(close(lia_increase(&p, 1, 1000.0, MSS), 25.0));
    }

    #[test]
    fn lia_alpha_and_increase_on_unequal_windows_and_rtts() {
        // cwnd 30000 B at 50 ms and 10000 B at 200 ms: cwnd_total = 40000;
        // cwnd_i / rtt_i^2 = 30000 / 0.0025 = 1.2e7 and 10000 / 0.04 = 2.5e5, max 1.2e7;
        // sum cwnd_i / rtt_i = 600000 + 50000 = 650000;
        // alpha = 40000 * 1.2e7 / 650000^2 = 4.8e11 / 4.225e11 = 1.136094674...
        let p = [path(30_000.0, 0.05), path(10_000.0, 0.2)];
        let alpha = 4.8e11 / 4.225e11;
        assert!(close(lia_alpha(&p), alpha));
        // Path 0, 1460 B acked with MSS 1460: coupled term alpha * 1460 * 1460 / 40000
        // = 60.5445... B, own term 1460 * 1460 / 30000 = 71.0533 B: the coupled one.
        let coupled0 = alpha * 1460.0 * 1460.0 / 40_000.0;
        assert!(coupled0 < 1460.0 * 1460.0 / 30_000.0);
        assert!(close(lia_increase(&p, 0, 1460.0, 1460.0), coupled0));
        // Path 1: coupled term the same 60.54 B, own 1460 * 1460 / 10000 = 213.16 B.
        assert!(close(lia_increase(&p, 1, 1460.0, 1460.0), coupled0));
    }

    #[test]
    fn lia_caps_a_path_at_its_own_reno_increase() {
        // A large window on a short RTT path and a small one on a long RTT path:
        // cwnd 1000 B at 10 ms, 100000 B at 1 s: total 101000; max(1000 / 1e-4,
        // 100000 / 1) = 1e7; sum = 100000 + 100000 = 2e5; alpha = 101000 * 1e7 / 4e10
        // = 25.25. Path 0 per 1000 B: coupled 25.25 * 1e6 / 101000 = 250 B, own 1e6 /
        // 1000 = 1000 B: 250. Path 1: coupled 250 B, own 1e6 / 100000 = 10 B: capped
        // at 10.
        let p = [path(1000.0, 0.01), path(100_000.0, 1.0)];
        assert!(close(lia_alpha(&p), 25.25));
        assert!(close(lia_increase(&p, 0, 1000.0, MSS), 250.0));
        assert!(close(lia_increase(&p, 1, 1000.0, MSS), 10.0));
    }

    #[test]
    fn olia_with_one_path_is_reno() {
        // B = M = {0}: alpha 0; first term (w / r^2) / (w / r)^2 = 1 / w.
        let p = [path(20_000.0, 0.1)];
        assert_eq!(olia_alpha(&p, 0), 0.0);
        assert!(close(olia_increase(&p, 0, 1000.0, MSS), 1000.0 / 20.0));
    }

    #[test]
    fn olia_alpha_moves_window_from_the_largest_to_the_best_path() {
        // Three paths of equal RTT (100 ms): windows 20, 10, 10 segments; l_r 5e5,
        // 8e5, 3e5 bytes. M = {0} (largest window), B = {1} (largest l_r / rtt^2, equal
        // RTTs), B \ M = {1}; n = 3. alpha_1 = 1 / (3 * 1) = 1/3, alpha_0 = -1 / (3 * 1)
        // = -1/3, alpha_2 = 0.
        let mut p = [
            path(20_000.0, 0.1),
            path(10_000.0, 0.1),
            path(10_000.0, 0.1),
        ];
        p[0].inter_loss = 5e5;
        p[1].inter_loss = 8e5;
        p[2].inter_loss = 3e5;
        assert!(close(olia_alpha(&p, 0), -1.0 / 3.0));
        assert!(close(olia_alpha(&p, 1), 1.0 / 3.0));
        assert_eq!(olia_alpha(&p, 2), 0.0);
        // Increase per acked segment (windows in segments 20, 10, 10; sum w_p / rtt_p
        // = 400): path 0: (20 / 0.01) / 400^2 - (1/3) / 20 = 0.0125 - 0.0166667
        // = -0.0041667 segments, i.e. -4.1667 B per 1000 B acked: the window shrinks.
        assert!(close(
            olia_increase(&p, 0, 1000.0, MSS),
            (2000.0 / 160_000.0 - 1.0 / 60.0) * 1000.0
        ));
        assert!(olia_increase(&p, 0, 1000.0, MSS) < 0.0);
        // Path 1: (10 / 0.01) / 160000 + (1/3) / 10 = 0.00625 + 0.0333333 segments.
        assert!(close(
            olia_increase(&p, 1, 1000.0, MSS),
            (1000.0 / 160_000.0 + 1.0 / 30.0) * 1000.0
        ));
        // Path 2: 0.00625 segments = 6.25 B.
        assert!(close(olia_increase(&p, 2, 1000.0, MSS), 6.25));
    }

    #[test]
    fn olia_best_path_weighs_inter_loss_against_rtt_squared() {
        // Path 0: l = 4e5 B at 200 ms: 4e5 / 0.04 = 1e7; path 1: l = 2e5 B at 100 ms:
        // 2e5 / 0.01 = 2e7: B = {1} despite its shorter inter-loss distance. Windows
        // 10 and 30 segments: M = {1} too, so B \ M is empty and every alpha is 0.
        let mut p = [path(10_000.0, 0.2), path(30_000.0, 0.1)];
        p[0].inter_loss = 4e5;
        p[1].inter_loss = 2e5;
        assert_eq!((olia_alpha(&p, 0), olia_alpha(&p, 1)), (0.0, 0.0));
        // Then the increase is the first term only: sum w_p / rtt_p = 10 / 0.2 + 30 /
        // 0.1 = 350; path 0: (10 / 0.04) / 350^2 = 250 / 122500 segments per segment.
        assert!(close(
            olia_increase(&p, 0, 1000.0, MSS),
            250.0 / 122_500.0 * 1000.0
        ));
        // Swap the windows: M = {0}, B \ M = {1}: alpha_1 = 1 / (2 * 1) = 0.5,
        // alpha_0 = -1 / (2 * 1) = -0.5.
        p[0].cwnd = 30_000.0;
        p[1].cwnd = 10_000.0;
        assert!(close(olia_alpha(&p, 0), -0.5));
        assert!(close(olia_alpha(&p, 1), 0.5));
    }

    #[test]
    fn olia_on_two_equal_paths_is_half_a_reno_flow_per_path() {
        // Equal windows (10 segments) and RTTs: M = both, B \ M empty, alpha 0. Per
        // segment: (10 / r^2) / (20 / r)^2 = 10 / 400 = 1/40 segment, a quarter of
        // Reno's 1/10 on the path: the pair grows by 2 / 40 = 1/20 per pair of
        // segments, the increase of one Reno flow with the total window of 20.
        let p = [path(10_000.0, 0.1), path(10_000.0, 0.1)];
        assert!(close(olia_increase(&p, 0, 1000.0, MSS), 25.0));
        // LIA gives the same on this symmetric case (above).
        assert!(close(lia_increase(&p, 0, 1000.0, MSS), 25.0));
    }
}
