// sctplab's corrections to ns-3.37's TcpCubic and TcpBbr, as subclasses, so that
// `sctplab validate ns3` compares our controllers with the algorithms as specified rather
// than with defects that later ns-3 releases fixed. docs/validation.md lists each one.
// Written for sctplab against the public ns-3.37 API (no ns-3 code is copied here).
#ifndef SCTPLAB_LAB_CONTROLLERS_H
#define SCTPLAB_LAB_CONTROLLERS_H

#include "ns3/double.h"
#include "ns3/simulator.h"
#include "ns3/tcp-bbr.h"
#include "ns3/tcp-cubic.h"
#include "ns3/tcp-rate-ops.h"
#include "ns3/tcp-socket-base.h"
#include "ns3/tcp-tx-item.h"

#include <algorithm>

namespace ns3
{

// NewReno (RFC 5681) with ssthresh from FlightSize as RFC 5681 eq. 4 and RFC 6675
// step 4.2 define it, the data outstanding (SND.NXT - SND.UNA) less the new segments
// limited transmit sent on the first two duplicate acks (RFC 5681 sec. 3.2 step 2, RFC
// 3042 sec. 2). ns-3.37 passes TcpNewReno RFC 6675's pipe instead, which also leaves out
// the SACKed segments and the lost one: at a 12-segment window, 4 segments less before
// halving. A retransmission timeout halves the whole outstanding data.
class LabNewReno : public TcpNewReno
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::SctplabNewReno")
                                .SetParent<TcpNewReno>()
                                .SetGroupName("Internet")
                                .AddConstructor<LabNewReno>();
        return tid;
    }

    std::string GetName() const override
    {
        return "SctplabNewReno";
    }

    void CongestionStateSet(Ptr<TcpSocketState> tcb,
                            const TcpSocketState::TcpCongState_t newState) override
    {
        // TcpSocketBase::EnterRecovery announces CA_RECOVERY just before it asks for
        // ssthresh; a timeout asks first (whatever the state) and announces CA_LOSS after.
        m_fastRetransmit = newState == TcpSocketState::CA_RECOVERY;
        TcpNewReno::CongestionStateSet(tcb, newState);
    }

    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t) override
    {
        uint32_t flight = static_cast<uint32_t>(tcb->m_highTxMark.Get() - tcb->m_lastAckedSeq);
        if (m_fastRetransmit)
        {
            const uint32_t limited = 2 * tcb->m_segmentSize;
            flight = flight > limited ? flight - limited : 0;
        }
        m_fastRetransmit = false;
        return std::max(2 * tcb->m_segmentSize, flight / 2);
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<LabNewReno>(this);
    }

  private:
    bool m_fastRetransmit{false}; // the next GetSsThresh is a fast retransmit's
};

// CUBIC with the rule ns-3.37's TcpCubic lacks, the Reno-friendly region (RFC 9438 sec.
// 4.3; ns-3 issue #1001, added in ns-3.41): an estimate W_est of what AIMD(alpha_cubic,
// beta) would have grown to since the epoch began; when it is above CUBIC's window, cwnd
// follows it. And slow start that stops at ssthresh (below). The cubic function itself, fast convergence, the multiplicative decrease
// and the restart after a timeout (TcpCubic forgets W_max, so the next curve has K = 0
// and W_max = the window where congestion avoidance starts, as RFC 9438 sec. 4.8 says;
// ns-3.42 changed that for ns-3 issue #1085) are TcpCubic's own.
class LabCubic : public TcpCubic
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::SctplabCubic")
                                .SetParent<TcpCubic>()
                                .SetGroupName("Internet")
                                .AddConstructor<LabCubic>();
        return tid;
    }

    std::string GetName() const override
    {
        return "SctplabCubic";
    }

    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override
    {
        // A congestion event: the next congestion-avoidance ack starts a new epoch, whose
        // W_est begins at the reduced window (RFC 9438 sec. 4.3).
        m_cwndPrior = static_cast<double>(tcb->m_cWnd.Get()) / tcb->m_segmentSize;
        m_epochPending = true;
        return TcpCubic::GetSsThresh(tcb, bytesInFlight);
    }

    void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override
    {
        if (tcb->m_cWnd < tcb->m_ssThresh)
        {
            // Slow start stops at ssthresh and the rest of the ack goes to congestion
            // avoidance, as Linux's tcp_slow_start does. TcpCubic adds every segment the
            // ack covers: the ack that fills the hole after a timeout, covering up to a
            // window of segments the receiver held, opened cwnd from 1 to that window.
            const uint32_t room =
                (tcb->m_ssThresh - tcb->m_cWnd + tcb->m_segmentSize - 1) / tcb->m_segmentSize;
            const uint32_t slow = std::min(segmentsAcked, room);
            TcpCubic::IncreaseWindow(tcb, slow);
            segmentsAcked -= slow;
            if (segmentsAcked == 0 || tcb->m_cWnd < tcb->m_ssThresh)
            {
                return;
            }
        }
        TcpCubic::IncreaseWindow(tcb, segmentsAcked);
        const double mss = tcb->m_segmentSize;
        if (m_epochPending)
        {
            m_wEst = std::min(static_cast<double>(tcb->m_cWnd.Get()),
                              static_cast<double>(tcb->m_ssThresh.Get())) /
                     mss;
            m_epochPending = false;
        }
        // alpha_cubic = 3 (1 - beta) / (1 + beta) until W_est reaches the window before
        // the reduction, then 1 (RFC 9438 sec. 4.3).
        const double beta = Beta();
        const double alpha = m_wEst >= m_cwndPrior ? 1.0 : 3.0 * (1.0 - beta) / (1.0 + beta);
        m_wEst += alpha * segmentsAcked / (static_cast<double>(tcb->m_cWnd.Get()) / mss);
        const auto est = static_cast<uint32_t>(m_wEst * mss);
        if (est > tcb->m_cWnd.Get())
        {
            tcb->m_cWnd = est;
        }
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<LabCubic>(this);
    }

  private:
    double Beta()
    {
        DoubleValue v;
        GetAttribute("Beta", v);
        return v.Get();
    }

    double m_cwndPrior{0};     // cwnd (segments) at the last congestion event
    double m_wEst{0};          // RFC 9438 W_est (segments)
    bool m_epochPending{true}; // W_est starts at the next congestion-avoidance ack
};

// BBR v1 that discards invalid rate samples (ns-3 issue #735, fixed in ns-3.42): in
// ns-3.37 TcpBbr skips a sample only when its delivery rate is zero, but the rate
// sampler leaves the previous rate in an invalid sample (no timing information, or an
// interval shorter than min_rtt), so stale rates enter the max filter and the round
// counter. Here an invalid sample reaches TcpBbr with a zero rate, which it skips.
class LabBbr : public TcpBbr
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::SctplabBbr")
                                .SetParent<TcpBbr>()
                                .SetGroupName("Internet")
                                .AddConstructor<LabBbr>();
        return tid;
    }

    std::string GetName() const override
    {
        return "SctplabBbr";
    }

    void CongControl(Ptr<TcpSocketState> tcb,
                     const TcpRateOps::TcpRateConnection& rc,
                     const TcpRateOps::TcpRateSample& rs) override
    {
        if (rs.m_delivered < 0 || rs.m_interval.IsZero())
        {
            TcpRateOps::TcpRateSample invalid = rs;
            invalid.m_deliveryRate = DataRate(0);
            TcpBbr::CongControl(tcb, rc, invalid);
            return;
        }
        TcpBbr::CongControl(tcb, rc, rs);
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<LabBbr>(this);
    }
};

// Delivery-rate estimation as draft-cheng-iccrg-delivery-rate-estimation (and Linux's
// tcp_rate.c) define it, replacing ns-3.37's TcpRateLinux, which measures a sample's ack
// interval from the previous sample's delivery time instead of from the time the acked
// packet's own delivery count was taken (ns-3 issue #1026, fixed in ns-3.41). After a
// timeout that interval spans the idle time, the rate samples collapse and BBR's max
// filter forgets the bottleneck rate: the stall. The per-ack sample starts empty at each
// ack, as Linux's does.
class LabRateOps : public TcpRateOps
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::SctplabRateOps")
                                .SetParent<TcpRateOps>()
                                .SetGroupName("Internet")
                                .AddConstructor<LabRateOps>();
        return tid;
    }

    void SkbSent(TcpTxItem* skb, bool isStartOfTransmission) override
    {
        if (isStartOfTransmission)
        {
            // Nothing in flight: the interval of this packet's sample starts now.
            m_conn.m_firstSentTime = Simulator::Now();
            m_conn.m_deliveredTime = Simulator::Now();
        }
        auto& info = skb->GetRateInformation();
        info.m_firstSent = m_conn.m_firstSentTime;
        info.m_deliveredTime = m_conn.m_deliveredTime;
        info.m_isAppLimited = m_conn.m_appLimited != 0;
        info.m_delivered = m_conn.m_delivered;
    }

    void SkbDelivered(TcpTxItem* skb) override
    {
        auto& info = skb->GetRateInformation();
        if (info.m_deliveredTime == Time::Max())
        {
            return; // counted already (SACKed before, now cumulatively acked)
        }
        m_conn.m_delivered += skb->GetSeqSize();
        m_conn.m_deliveredTime = Simulator::Now();
        // The sample is taken from the most recently sent of the packets this ack
        // delivers: the one whose delivery count at sending is highest.
        if (!m_hasPrior || info.m_delivered > m_sample.m_priorDelivered)
        {
            m_hasPrior = true;
            m_sample.m_priorDelivered = static_cast<uint32_t>(info.m_delivered);
            m_sample.m_priorTime = info.m_deliveredTime;
            m_sample.m_isAppLimited = info.m_isAppLimited;
            m_sample.m_sendElapsed = skb->GetLastSent() - info.m_firstSent;
            m_sample.m_ackElapsed = m_conn.m_deliveredTime - info.m_deliveredTime;
            m_conn.m_firstSentTime = skb->GetLastSent();
        }
        info.m_deliveredTime = Time::Max();
        m_conn.m_txItemDelivered = static_cast<uint32_t>(info.m_delivered);
    }

    void CalculateAppLimited(uint32_t cWnd,
                             uint32_t inFlight,
                             uint32_t segmentSize,
                             const SequenceNumber32& tailSeq,
                             const SequenceNumber32& nextTx,
                             const uint32_t lostOut,
                             const uint32_t retransOut) override
    {
        // Application-limited: less than a segment waits to be sent, the window is not
        // full and every lost packet has been retransmitted.
        if (tailSeq - nextTx < static_cast<int32_t>(segmentSize) && inFlight < cWnd &&
            lostOut <= retransOut)
        {
            m_conn.m_appLimited =
                std::max<uint32_t>(static_cast<uint32_t>(m_conn.m_delivered) + inFlight, 1);
        }
    }

    const TcpRateSample& GenerateSample(uint32_t delivered,
                                        uint32_t lost,
                                        bool isSackReneg,
                                        uint32_t priorInFlight,
                                        const Time& minRtt) override
    {
        if (m_conn.m_appLimited != 0 && m_conn.m_delivered > m_conn.m_appLimited)
        {
            m_conn.m_appLimited = 0; // the application-limited bubble has been acked
        }
        m_out = TcpRateSample();
        m_out.m_ackedSacked = delivered;
        m_out.m_bytesLoss = lost;
        m_out.m_priorInFlight = priorInFlight;
        m_out.m_priorDelivered = m_sample.m_priorDelivered;
        m_out.m_priorTime = m_sample.m_priorTime;
        m_out.m_isAppLimited = m_sample.m_isAppLimited;
        m_out.m_sendElapsed = m_sample.m_sendElapsed;
        m_out.m_ackElapsed = m_sample.m_ackElapsed;
        const bool had = m_hasPrior;
        m_hasPrior = false; // the next ack's sample starts empty
        m_sample = TcpRateSample();
        if (!had || isSackReneg)
        {
            m_out.m_delivered = -1;
            m_out.m_interval = Seconds(0);
            return m_out;
        }
        // The longer of the send and ack phases (ack compression can make either longer).
        m_out.m_interval = std::max(m_out.m_sendElapsed, m_out.m_ackElapsed);
        m_out.m_delivered = static_cast<int32_t>(m_conn.m_delivered - m_out.m_priorDelivered);
        if (m_out.m_interval < minRtt)
        {
            // Shorter than a round trip: not a sample of the path's rate.
            m_out.m_interval = Seconds(0);
            m_out.m_priorTime = Seconds(0);
            return m_out;
        }
        m_out.m_deliveryRate =
            DataRate(static_cast<uint64_t>(m_out.m_delivered * 8.0 /
                                           m_out.m_interval.GetSeconds()));
        if (!m_out.m_isAppLimited || m_out.m_delivered * m_conn.m_rateInterval.GetSeconds() >=
                                         m_conn.m_rateDelivered * m_out.m_interval.GetSeconds())
        {
            m_conn.m_rateDelivered = m_out.m_delivered;
            m_conn.m_rateInterval = m_out.m_interval;
            m_conn.m_rateAppLimited = m_out.m_isAppLimited;
        }
        return m_out;
    }

    const TcpRateConnection& GetConnectionRate() override
    {
        return m_conn;
    }

  private:
    TcpRateConnection m_conn;
    TcpRateSample m_sample; // built while this ack's packets are delivered
    TcpRateSample m_out;    // the sample handed to the controller
    bool m_hasPrior{false};
};

// A TcpSocketBase whose rate sampler is LabRateOps (m_rateOps is protected; the socket
// is created by the program, not by TcpL4Protocol).
class LabTcpSocket : public TcpSocketBase
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::SctplabTcpSocket")
                                .SetParent<TcpSocketBase>()
                                .SetGroupName("Internet")
                                .AddConstructor<LabTcpSocket>();
        return tid;
    }

    LabTcpSocket()
    {
        m_rateOps = CreateObject<LabRateOps>();
    }
};

} // namespace ns3

#endif
