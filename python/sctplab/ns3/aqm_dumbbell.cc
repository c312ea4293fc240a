// sctplab validate ns3 (main.cc: `sctplab-ns3 aqm ARGS`), AQM rows (issue 34): bulk TCP
// flows through a bufferbloated bottleneck managed by one of ns-3.37's queue discs
// (CoDel, FQ-CoDel, PIE) or a plain FIFO, the ns-3 side of an sctplab dumbbell whose
// bottleneck link has an `aqm` table.
//
//   sender --access-- r1 =[queue disc]=bottleneck-- r2 --access-- receiver
//
// `flows` TCP connections (NewReno window rules with RFC 5681's ssthresh, SACK, classic
// recovery, as dumbbell.cc) from sender to receiver on ports 50000, 50001, ...; the
// queue disc sits on r1's bottleneck device, whose own queue holds one packet, so the
// standing queue is the disc's. Prints one JSON object on stdout:
//   goodput_bps         payload bytes all receivers got in [start, stop) * 8 / window
//   queue_delay_mean_s  mean time from a packet's arrival at the disc to the start of
//                       its transmission, over the packets whose transmission began in
//                       the window (the wait in the device's one-packet queue included)
//   aqm_drops           packets the discipline dropped (not for a full queue), window
//   queue_drops         packets dropped because the hard limit was reached, window
//   ecn_marks           packets marked CE instead of dropped, window
//   dequeued            packets whose transmission began in the window
//
// --aqm: fifo | codel | fq_codel | pie, with RFC defaults as ns-3.37 has them (CoDel
// target 5 ms, interval 100 ms; FQ-CoDel 1024 flows, quantum one MTU; PIE target 15 ms,
// t_update 15 ms, alpha 0.125, beta 1.25, max burst 150 ms), --target/--interval
// override CoDel's and FQ-CoDel's, --ecn marks ECN-capable packets instead of dropping.
#include "lab_app.h"
#include "lab_controllers.h"

#include "ns3/boolean.h"
#include "ns3/codel-queue-disc.h"
#include "ns3/command-line.h"
#include "ns3/config.h"
#include "ns3/fifo-queue-disc.h"
#include "ns3/fq-codel-queue-disc.h"
#include "ns3/inet-socket-address.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/ipv4-global-routing-helper.h"
#include "ns3/node-container.h"
#include "ns3/packet-sink-helper.h"
#include "ns3/packet-sink.h"
#include "ns3/pie-queue-disc.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/queue-disc.h"
#include "ns3/queue-size.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/rtt-estimator.h"
#include "ns3/string.h"
#include "ns3/tag.h"
#include "ns3/tcp-l4-protocol.h"
#include "ns3/tcp-recovery-ops.h"
#include "ns3/traffic-control-helper.h"
#include "ns3/uinteger.h"

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

using namespace ns3;

namespace aqmrun
{

struct Window
{
    bool open{false};
    double sojournSum{0};
    uint64_t dequeued{0};
    uint64_t aqmDrops{0};
    uint64_t queueDrops{0};
    uint64_t marks{0};
};

Window g;

// Queueing delay as sctplab's `queue_delay_mean_s` counts it: from the packet's arrival
// at the disc to the start of its transmission, so the wait in the device's one-packet
// queue is included (ns-3's SojournTime stops at the disc's dequeue). The arrival time
// rides on the packet as a tag: packet uids are not unique (TCP's segments of one
// application write share theirs).
class ArrivalTag : public Tag
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("ns3::SctplabArrivalTag").SetParent<Tag>().AddConstructor<ArrivalTag>();
        return tid;
    }

    TypeId GetInstanceTypeId() const override
    {
        return GetTypeId();
    }

    uint32_t GetSerializedSize() const override
    {
        return 8;
    }

    void Serialize(TagBuffer i) const override
    {
        i.WriteU64(static_cast<uint64_t>(at.GetTimeStep()));
    }

    void Deserialize(TagBuffer i) override
    {
        at = TimeStep(i.ReadU64());
    }

    void Print(std::ostream& os) const override
    {
        os << "arrival=" << at;
    }

    Time at;
};

void
OnEnqueue(Ptr<const QueueDiscItem> item)
{
    ArrivalTag tag;
    tag.at = Simulator::Now();
    item->GetPacket()->AddPacketTag(tag);
}

void
OnTxBegin(Ptr<const Packet> p)
{
    ArrivalTag tag;
    if (g.open && p->PeekPacketTag(tag))
    {
        g.sojournSum += (Simulator::Now() - tag.at).GetSeconds();
        ++g.dequeued;
    }
}

// A drop for a full queue (sctplab's `queue_drops`) rather than the discipline's own
// decision (`aqm_drops`), by the reason strings ns-3.37's discs give; FQ-CoDel prefixes
// its flow queues' CoDel drops with the child-disc marker.
bool
IsLimitDrop(const char* reason)
{
    const std::string r(reason);
    for (const char* full : {CoDelQueueDisc::OVERLIMIT_DROP,
                             FqCoDelQueueDisc::OVERLIMIT_DROP,
                             PieQueueDisc::FORCED_DROP,
                             FifoQueueDisc::LIMIT_EXCEEDED_DROP,
                             QueueDisc::INTERNAL_QUEUE_DROP})
    {
        if (r.find(full) != std::string::npos)
        {
            return true;
        }
    }
    return false;
}

void
OnDropBeforeEnqueue(Ptr<const QueueDiscItem>, const char* reason)
{
    if (g.open)
    {
        (IsLimitDrop(reason) ? g.queueDrops : g.aqmDrops)++;
    }
}

void
OnDropAfterDequeue(Ptr<const QueueDiscItem>, const char* reason)
{
    if (g.open)
    {
        (IsLimitDrop(reason) ? g.queueDrops : g.aqmDrops)++;
    }
}

void
OnMark(Ptr<const QueueDiscItem>, const char*)
{
    if (g.open)
    {
        ++g.marks;
    }
}

std::vector<Ptr<PacketSink>> g_sinks;
uint64_t g_rxAtStart = 0;

uint64_t
TotalRx()
{
    uint64_t sum = 0;
    for (const auto& s : g_sinks)
    {
        sum += s->GetTotalRx();
    }
    return sum;
}

void
OpenWindow()
{
    g.open = true;
    g_rxAtStart = TotalRx();
}

} // namespace aqmrun

int
RunAqmDumbbell(int argc, char* argv[])
{
    using namespace aqmrun;
    std::string aqm = "codel";
    uint32_t seed = 1;
    uint32_t flows = 4;
    double stop = 60;
    double start = 10;
    std::string bottleneckRate = "10Mbps";
    std::string bottleneckDelay = "23ms";
    std::string accessRate = "100Mbps";
    std::string accessDelay = "1ms";
    uint32_t limit = 1000;
    uint32_t segment = 1460;
    uint32_t initialCwnd = 10;
    uint32_t buffer = 4 * 1024 * 1024;
    double minRto = 1.0;
    std::string target = "";
    std::string interval = "";
    bool ecn = false;

    CommandLine cmd;
    cmd.AddValue("aqm", "fifo | codel | fq_codel | pie", aqm);
    cmd.AddValue("seed", "run number (RngRun)", seed);
    cmd.AddValue("flows", "bulk TCP flows", flows);
    cmd.AddValue("stop", "end of the run and of the measurement window (s)", stop);
    cmd.AddValue("start", "start of the measurement window (s)", start);
    cmd.AddValue("bottleneckRate", "bottleneck rate", bottleneckRate);
    cmd.AddValue("bottleneckDelay", "bottleneck one-way delay", bottleneckDelay);
    cmd.AddValue("accessRate", "access link rate", accessRate);
    cmd.AddValue("accessDelay", "access link one-way delay", accessDelay);
    cmd.AddValue("limit", "hard limit, packets, the one in transmission included", limit);
    cmd.AddValue("segment", "TCP payload per segment (bytes)", segment);
    cmd.AddValue("initialCwnd", "initial window (segments)", initialCwnd);
    cmd.AddValue("buffer", "send and receive buffers (bytes)", buffer);
    cmd.AddValue("minRto", "minimum RTO (s)", minRto);
    cmd.AddValue("target", "CoDel / FQ-CoDel target (ns-3 time, e.g. 5ms)", target);
    cmd.AddValue("interval", "CoDel / FQ-CoDel interval (ns-3 time, e.g. 100ms)", interval);
    cmd.AddValue("ecn", "ECN-capable flows, discipline marks instead of dropping", ecn);
    cmd.Parse(argc, argv);
    if (aqm != "fifo" && aqm != "codel" && aqm != "fq_codel" && aqm != "pie")
    {
        std::cerr << "aqm_dumbbell: --aqm " << aqm << ": expected fifo, codel, fq_codel or pie\n";
        return 2;
    }

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);

    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(segment));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(initialCwnd));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(buffer));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(buffer));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(minRto)));
    Config::SetDefault("ns3::TcpSocketBase::UseEcn",
                       EnumValue(ecn ? TcpSocketState::On : TcpSocketState::Off));

    NodeContainer nodes;
    nodes.Create(4); // sender, r1, r2, receiver
    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", StringValue(accessRate));
    access.SetChannelAttribute("Delay", StringValue(accessDelay));
    access.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("10000p"));
    PointToPointHelper neck;
    neck.SetDeviceAttribute("DataRate", StringValue(bottleneckRate));
    neck.SetChannelAttribute("Delay", StringValue(bottleneckDelay));
    neck.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("1p"));
    NetDeviceContainer d0 = access.Install(nodes.Get(0), nodes.Get(1));
    NetDeviceContainer d1 = neck.Install(nodes.Get(1), nodes.Get(2));
    NetDeviceContainer d2 = access.Install(nodes.Get(2), nodes.Get(3));

    InternetStackHelper stack;
    stack.Install(nodes);

    // The disc on r1's bottleneck device; its limit leaves room for the device queue's
    // packet and the one on the wire, so the three hold `limit` packets as sctplab's
    // link direction does.
    const std::string discLimit = std::to_string(std::max(limit, 3u) - 2) + "p";
    TrafficControlHelper tch;
    if (aqm == "fifo")
    {
        tch.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", StringValue(discLimit));
    }
    else if (aqm == "codel")
    {
        tch.SetRootQueueDisc("ns3::CoDelQueueDisc",
                             "MaxSize",
                             StringValue(discLimit),
                             "UseEcn",
                             BooleanValue(ecn));
        if (!target.empty())
        {
            Config::SetDefault("ns3::CoDelQueueDisc::Target", StringValue(target));
        }
        if (!interval.empty())
        {
            Config::SetDefault("ns3::CoDelQueueDisc::Interval", StringValue(interval));
        }
    }
    else if (aqm == "fq_codel")
    {
        tch.SetRootQueueDisc("ns3::FqCoDelQueueDisc",
                             "MaxSize",
                             StringValue(discLimit),
                             "UseEcn",
                             BooleanValue(ecn));
        if (!target.empty())
        {
            Config::SetDefault("ns3::FqCoDelQueueDisc::Target", StringValue(target));
        }
        if (!interval.empty())
        {
            Config::SetDefault("ns3::FqCoDelQueueDisc::Interval", StringValue(interval));
        }
    }
    else
    {
        tch.SetRootQueueDisc("ns3::PieQueueDisc",
                             "MaxSize",
                             StringValue(discLimit),
                             "UseEcn",
                             BooleanValue(ecn),
                             "MeanPktSize",
                             UintegerValue(segment + 40));
    }
    // Before the addresses: Ipv4AddressHelper installs a default disc only where none is.
    QueueDiscContainer discs = tch.Install(d1.Get(0));
    Ipv4AddressHelper ip;
    ip.SetBase("10.1.1.0", "255.255.255.0");
    ip.Assign(d0);
    ip.SetBase("10.1.2.0", "255.255.255.0");
    ip.Assign(d1);
    ip.SetBase("10.1.3.0", "255.255.255.0");
    Ipv4InterfaceContainer i2 = ip.Assign(d2);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    // Every other device is plain drop-tail, as sctplab's links without `aqm`.
    TrafficControlHelper plain;
    plain.Uninstall(d0);
    plain.Uninstall(d1.Get(1));
    plain.Uninstall(d2);

    Ptr<QueueDisc> disc = discs.Get(0);
    disc->TraceConnectWithoutContext("Enqueue", MakeCallback(&OnEnqueue));
    d1.Get(0)->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&OnTxBegin));
    disc->TraceConnectWithoutContext("DropBeforeEnqueue", MakeCallback(&OnDropBeforeEnqueue));
    disc->TraceConnectWithoutContext("DropAfterDequeue", MakeCallback(&OnDropAfterDequeue));
    disc->TraceConnectWithoutContext("Mark", MakeCallback(&OnMark));

    Ptr<Node> sender = nodes.Get(0);
    Ptr<TcpL4Protocol> tcp = sender->GetObject<TcpL4Protocol>();
    for (uint32_t i = 0; i < flows; ++i)
    {
        const uint16_t port = 50000 + i;
        PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                    InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sinkApp = sinkHelper.Install(nodes.Get(3));
        sinkApp.Start(Seconds(0));
        g_sinks.push_back(DynamicCast<PacketSink>(sinkApp.Get(0)));

        Ptr<TcpSocketBase> socket = CreateObject<TcpSocketBase>();
        socket->SetNode(sender);
        socket->SetTcp(tcp);
        socket->SetRtt(CreateObject<RttMeanDeviation>());
        socket->SetCongestionControlAlgorithm(CreateObject<LabNewReno>());
        socket->SetRecoveryAlgorithm(CreateObject<TcpClassicRecovery>());
        tcp->AddSocket(socket);
        Ptr<BulkSender> app = CreateObject<BulkSender>();
        app->Setup(socket, InetSocketAddress(i2.GetAddress(1), port));
        sender->AddApplication(app);
        app->SetStartTime(Seconds(0));
    }

    Simulator::Schedule(Seconds(start), &OpenWindow);
    Simulator::Stop(Seconds(stop));
    Simulator::Run();

    const double window = stop - start;
    std::printf("{\"aqm\": \"%s\", \"seed\": %u, \"goodput_bps\": %.3f, "
                "\"queue_delay_mean_s\": %.9f, \"aqm_drops\": %llu, \"queue_drops\": %llu, "
                "\"ecn_marks\": %llu, \"dequeued\": %llu}\n",
                aqm.c_str(),
                seed,
                (TotalRx() - g_rxAtStart) * 8.0 / window,
                g.dequeued ? g.sojournSum / g.dequeued : 0.0,
                static_cast<unsigned long long>(g.aqmDrops),
                static_cast<unsigned long long>(g.queueDrops),
                static_cast<unsigned long long>(g.marks),
                static_cast<unsigned long long>(g.dequeued));
    Simulator::Destroy();
    return 0;
}
