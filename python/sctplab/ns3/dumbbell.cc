// sctplab validate ns3 (main.cc: `sctplab-ns3 dumbbell ARGS`): one bulk TCP flow over a
// dumbbell with random loss of data packets on the bottleneck, the ns-3.37 side of
// scenarios/dumbbell.toml.
//
//   sender --access-- r1 --bottleneck-- r2 --access-- receiver
//
// Every parameter is a command-line argument (python/sctplab/ns3/oracle.py passes the
// values of the sctplab scenario). Prints one JSON object on stdout:
//   goodput_bps      payload bytes the receiving application got in [start, stop) * 8 / window
//   cwnd_mean        mean of cwnd (segments) sampled every `sample` seconds in the window
//   retransmissions  data segments sent again (sequence below the highest sent), whole run
//   timeouts         entries into CA_LOSS (retransmission timeouts), whole run
//   recoveries       entries into CA_RECOVERY (fast retransmits), whole run
//   loss_drops       data packets the bottleneck's loss model dropped, whole run
//
// --cc: newreno / cubic / bbr (ns-3.37's TcpNewReno / TcpCubic / TcpBbr as shipped),
// newreno-fixed / cubic-fixed / bbr-fixed (the corrected subclasses of lab_controllers.h).
#include "lab_app.h"
#include "lab_controllers.h"

#include "ns3/application.h"
#include "ns3/boolean.h"
#include "ns3/command-line.h"
#include "ns3/config.h"
#include "ns3/data-rate.h"
#include "ns3/error-model.h"
#include "ns3/inet-socket-address.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/ipv4-global-routing-helper.h"
#include "ns3/node-container.h"
#include "ns3/packet-sink-helper.h"
#include "ns3/packet-sink.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/queue-size.h"
#include "ns3/random-variable-stream.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/rtt-estimator.h"
#include "ns3/string.h"
#include "ns3/tcp-header.h"
#include "ns3/tcp-l4-protocol.h"
#include "ns3/tcp-recovery-ops.h"
#include "ns3/traffic-control-helper.h"
#include "ns3/uinteger.h"

#include <cstdio>
#include <iostream>
#include <string>

using namespace ns3;

namespace dumbbell
{

// Bernoulli loss of data packets only, as the sctplab scenario's `data_only = true`:
// handshake and ack packets (no payload) never draw. Sits on r2's receive side of the
// bottleneck, so a lost packet has used the link (sctplab's `position = "wire"`).
class DataLossModel : public ErrorModel
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::SctplabDataLossModel")
                                .SetParent<ErrorModel>()
                                .AddConstructor<DataLossModel>();
        return tid;
    }

    DataLossModel()
        : m_rv(CreateObject<UniformRandomVariable>())
    {
    }

    void SetRate(double rate)
    {
        m_rate = rate;
    }

    uint64_t Drops() const
    {
        return m_drops;
    }

  private:
    bool DoCorrupt(Ptr<Packet> p) override
    {
        // PPP (2) + IPv4 (20) + TCP (20 + options): anything longer carries payload.
        if (p->GetSize() <= kHeaderBytes)
        {
            return false;
        }
        if (m_rv->GetValue() < m_rate)
        {
            ++m_drops;
            return true;
        }
        return false;
    }

    void DoReset() override
    {
    }

    static constexpr uint32_t kHeaderBytes = 2 + 20 + 60;
    Ptr<UniformRandomVariable> m_rv;
    double m_rate{0};
    uint64_t m_drops{0};
};

struct Counters
{
    uint32_t cwnd{0};
    uint32_t segment{0};
    double cwndSum{0};
    uint64_t cwndSamples{0};
    SequenceNumber32 highestSent{0};
    bool sentAny{false};
    uint64_t retransmissions{0};
    uint64_t timeouts{0};
    uint64_t recoveries{0};
};

Counters g;

void
OnCwnd(uint32_t, uint32_t now)
{
    g.cwnd = now;
}

void
OnCongState(TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    if (now == TcpSocketState::CA_LOSS)
    {
        ++g.timeouts;
    }
    else if (now == TcpSocketState::CA_RECOVERY)
    {
        ++g.recoveries;
    }
}

void
OnTx(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() == 0)
    {
        return;
    }
    SequenceNumber32 end = h.GetSequenceNumber() + p->GetSize();
    if (g.sentAny && h.GetSequenceNumber() < g.highestSent)
    {
        ++g.retransmissions;
    }
    if (!g.sentAny || end > g.highestSent)
    {
        g.highestSent = end;
    }
    g.sentAny = true;
}

void
SampleCwnd(double interval, double stop)
{
    g.cwndSum += static_cast<double>(g.cwnd) / g.segment;
    ++g.cwndSamples;
    Time next = Simulator::Now() + Seconds(interval);
    if (next < Seconds(stop))
    {
        Simulator::Schedule(Seconds(interval), &SampleCwnd, interval, stop);
    }
}

uint64_t g_rxAtStart = 0;

void
MarkStart(Ptr<PacketSink> sink)
{
    g_rxAtStart = sink->GetTotalRx();
}

TypeId
Controller(const std::string& cc)
{
    if (cc == "newreno")
    {
        return TcpNewReno::GetTypeId();
    }
    if (cc == "newreno-fixed")
    {
        return LabNewReno::GetTypeId();
    }
    if (cc == "cubic")
    {
        return TcpCubic::GetTypeId();
    }
    if (cc == "cubic-fixed")
    {
        return LabCubic::GetTypeId();
    }
    if (cc == "bbr")
    {
        return TcpBbr::GetTypeId();
    }
    if (cc == "bbr-fixed")
    {
        return LabBbr::GetTypeId();
    }
    std::cerr << "dumbbell: --cc " << cc
              << ": expected newreno, newreno-fixed, cubic, cubic-fixed, bbr or bbr-fixed\n";
    std::exit(2);
}

} // namespace dumbbell

int
RunDumbbell(int argc, char* argv[])
{
    using namespace dumbbell;
    std::string cc = "newreno";
    uint32_t seed = 1;
    double loss = 0.001;
    double stop = 60;
    double start = 10;
    double sample = 0.01;
    std::string bottleneckRate = "10Mbps";
    std::string bottleneckDelay = "23ms";
    std::string accessRate = "100Mbps";
    std::string accessDelay = "1ms";
    uint32_t queue = 42;
    uint32_t accessQueue = 1000;
    uint32_t segment = 1460;
    uint32_t initialCwnd = 10;
    uint32_t buffer = 4 * 1024 * 1024;
    bool sack = false;
    double minRto = 1.0;
    uint32_t delAckCount = 1;

    CommandLine cmd;
    cmd.AddValue("cc", "newreno | newreno-fixed | cubic | cubic-fixed | bbr | bbr-fixed", cc);
    cmd.AddValue("seed", "run number (RngRun)", seed);
    cmd.AddValue("loss", "probability that a data packet is lost on the bottleneck", loss);
    cmd.AddValue("stop", "end of the run and of the measurement window (s)", stop);
    cmd.AddValue("start", "start of the measurement window (s)", start);
    cmd.AddValue("sample", "cwnd sampling interval (s)", sample);
    cmd.AddValue("bottleneckRate", "bottleneck rate", bottleneckRate);
    cmd.AddValue("bottleneckDelay", "bottleneck one-way delay", bottleneckDelay);
    cmd.AddValue("accessRate", "access link rate", accessRate);
    cmd.AddValue("accessDelay", "access link one-way delay", accessDelay);
    cmd.AddValue("queue", "bottleneck limit, packets, the one in transmission included", queue);
    cmd.AddValue("accessQueue", "access links' limit, packets", accessQueue);
    cmd.AddValue("segment", "TCP payload per segment (bytes)", segment);
    cmd.AddValue("initialCwnd", "initial window (segments)", initialCwnd);
    cmd.AddValue("buffer", "send and receive buffers (bytes)", buffer);
    cmd.AddValue("sack", "SACK option", sack);
    cmd.AddValue("minRto", "minimum RTO (s)", minRto);
    cmd.AddValue("delAckCount", "segments per ack", delAckCount);
    cmd.Parse(argc, argv);

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);

    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(segment));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(initialCwnd));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(buffer));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(buffer));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(delAckCount));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
    // No timestamps: sctplab's TCP carries none, so both send 40-byte headers.
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(minRto)));
    // HyStart off: ns-3.37 has the original HyStart, sctplab HyStart++ (RFC 9406); the
    // rows compare the congestion-avoidance rules with `hystart = false` on our side.
    Config::SetDefault("ns3::TcpCubic::HyStart", BooleanValue(false));
    const bool bbr = cc.rfind("bbr", 0) == 0;
    Config::SetDefault("ns3::TcpSocketState::EnablePacing", BooleanValue(bbr));

    NodeContainer nodes;
    nodes.Create(4); // sender, r1, r2, receiver
    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", StringValue(accessRate));
    access.SetChannelAttribute("Delay", StringValue(accessDelay));
    access.SetQueue("ns3::DropTailQueue<Packet>",
                    "MaxSize",
                    QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, accessQueue)));
    PointToPointHelper neck;
    neck.SetDeviceAttribute("DataRate", StringValue(bottleneckRate));
    neck.SetChannelAttribute("Delay", StringValue(bottleneckDelay));
    // ns-3's device queue does not hold the packet in transmission; sctplab's (and
    // ns-2's) limit counts it.
    neck.SetQueue("ns3::DropTailQueue<Packet>",
                  "MaxSize",
                  QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, std::max(queue, 2u) - 1)));
    NetDeviceContainer d0 = access.Install(nodes.Get(0), nodes.Get(1));
    NetDeviceContainer d1 = neck.Install(nodes.Get(1), nodes.Get(2));
    NetDeviceContainer d2 = access.Install(nodes.Get(2), nodes.Get(3));

    InternetStackHelper stack;
    stack.Install(nodes);
    Ipv4AddressHelper ip;
    ip.SetBase("10.1.1.0", "255.255.255.0");
    ip.Assign(d0);
    ip.SetBase("10.1.2.0", "255.255.255.0");
    ip.Assign(d1);
    ip.SetBase("10.1.3.0", "255.255.255.0");
    Ipv4InterfaceContainer i2 = ip.Assign(d2);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    // Plain drop-tail devices, as sctplab's links: no queue discipline in front of them.
    TrafficControlHelper tc;
    tc.Uninstall(d0);
    tc.Uninstall(d1);
    tc.Uninstall(d2);

    Ptr<DataLossModel> lossModel = CreateObject<DataLossModel>();
    lossModel->SetRate(loss);
    DynamicCast<PointToPointNetDevice>(d1.Get(1))->SetReceiveErrorModel(lossModel);

    const uint16_t port = 50000;
    PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                InetSocketAddress(Ipv4Address::GetAny(), port));
    ApplicationContainer sinkApp = sinkHelper.Install(nodes.Get(3));
    sinkApp.Start(Seconds(0));
    Ptr<PacketSink> sink = DynamicCast<PacketSink>(sinkApp.Get(0));

    // The sender's socket, made as TcpL4Protocol::CreateSocket makes one, but of our
    // class (LabRateOps for bbr-fixed) and with classic (RFC 6582 / RFC 6675) recovery
    // rather than ns-3.37's default PRR, as sctplab's TCP recovers.
    Ptr<Node> sender = nodes.Get(0);
    Ptr<TcpL4Protocol> tcp = sender->GetObject<TcpL4Protocol>();
    Ptr<TcpSocketBase> socket =
        cc == "bbr-fixed" ? Ptr<TcpSocketBase>(CreateObject<LabTcpSocket>())
                          : CreateObject<TcpSocketBase>();
    ObjectFactory ccFactory;
    ccFactory.SetTypeId(Controller(cc));
    socket->SetNode(sender);
    socket->SetTcp(tcp);
    socket->SetRtt(CreateObject<RttMeanDeviation>());
    socket->SetCongestionControlAlgorithm(ccFactory.Create<TcpCongestionOps>());
    socket->SetRecoveryAlgorithm(CreateObject<TcpClassicRecovery>());
    tcp->AddSocket(socket);
    socket->TraceConnectWithoutContext("CongestionWindow", MakeCallback(&OnCwnd));
    socket->TraceConnectWithoutContext("CongState", MakeCallback(&OnCongState));
    socket->TraceConnectWithoutContext("Tx", MakeCallback(&OnTx));
    g.segment = segment;
    g.cwnd = initialCwnd * segment;

    Ptr<BulkSender> app = CreateObject<BulkSender>();
    app->Setup(socket, InetSocketAddress(i2.GetAddress(1), port));
    sender->AddApplication(app);
    app->SetStartTime(Seconds(0));

    Simulator::Schedule(Seconds(start), &MarkStart, sink);
    Simulator::Schedule(Seconds(start), &SampleCwnd, sample, stop);
    Simulator::Stop(Seconds(stop));
    Simulator::Run();

    const double window = stop - start;
    const double goodput = (sink->GetTotalRx() - g_rxAtStart) * 8.0 / window;
    const double cwndMean = g.cwndSamples ? g.cwndSum / g.cwndSamples : 0.0;
    std::printf("{\"cc\": \"%s\", \"seed\": %u, \"goodput_bps\": %.3f, \"cwnd_mean\": %.6f, "
                "\"retransmissions\": %llu, \"timeouts\": %llu, \"recoveries\": %llu, "
                "\"loss_drops\": %llu}\n",
                cc.c_str(),
                seed,
                goodput,
                cwndMean,
                static_cast<unsigned long long>(g.retransmissions),
                static_cast<unsigned long long>(g.timeouts),
                static_cast<unsigned long long>(g.recoveries),
                static_cast<unsigned long long>(lossModel->Drops()));
    Simulator::Destroy();
    return 0;
}
