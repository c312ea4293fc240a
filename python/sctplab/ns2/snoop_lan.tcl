# Seed 003's snoop topology in ns-2.35 for sctplab's comparison of TCP and TCP-snoop
# (sctplab validate ns2): fh -10Mb,20ms- bs -2Mb,10ms, random loss toward mh- mh.
# ns-2's LL/LLSnoop works only as the link layer of a LAN interface, so the wireless hop
# is a two-node LAN (bs, mh) with the base Mac class and the plain Channel: no carrier
# sense, no collisions, each interface sends on its own (one packet at a time, at the MAC
# bandwidth), so the hop behaves like a full-duplex point-to-point link.
# Timing as on our 2Mb, 10ms link: LL's delay_ applies on the way down and again on the
# way up, so it is half the link delay; the channel adds none. The base Mac sends
# 64 bytes of MAC header (MAC_HDR_LEN) with every packet, so its bandwidth is raised by
# 1104/1040 for a 1040-byte data packet to take 4.16 ms as on our link; it hands a packet
# to the channel when it starts sending it, so the receiving Mac adds the packet's
# transmission time at 2 Mb/s (data 1040 bytes at mh, 40-byte acks at bs).
# Loss: an ErrorModel (unit pkt, uniform) where bs's LL hands packets for mh to the
# interface queue, as ns-2's lossmodel (and sctplab's default position "entry") sits
# before a link's queue: only packets toward mh (TCP data, snoop's local retransmissions
# included) are lost, and a lost packet takes no air time.
# Usage: ns snoop_lan.tcl SNOOP(0|1) RATE SEED BYTES OUT_TRACE
# The trace has the usual LAN lines (node 3 is the LAN): "+" bs -> 3 for every data
# packet bs queues for mh (local retransmissions included; lost ones not), "d" 3 -> mh
# for the ErrorModel's losses, "r" 3 -> mh for the packets mh's LL passes up. The application
# starts at 1 s; the run stops when the sender has every byte acked.

set snoop [lindex $argv 0]
set rate [lindex $argv 1]
set seed [lindex $argv 2]
set nbytes [lindex $argv 3]
set outfile [lindex $argv 4]

# sctplab's TCP defaults are ns-2's, except that its one-way agent starts without a SYN
# and grows cwnd on the first ack.
Agent/TCP set syn_ false
Agent/TCP set delay_growth_ false
Agent/TCP set window_ 20
Agent/TCP set packetSize_ 1000

global defaultRNG
$defaultRNG seed $seed

set ns [new Simulator]
set tf [open $outfile w]
$ns trace-all $tf
set fh [$ns node]
set bs [$ns node]
set mh [$ns node]
$ns duplex-link $fh $bs 10Mb 20ms DropTail
$ns queue-limit $fh $bs 100
$ns queue-limit $bs $fh 100

set bw 2000000
Channel set delay_ 0
set lan [new LanNode $ns -bw 2Mb -delay 5ms -llType LL -ifqType Queue/DropTail \
    -ifqLen 100 -macType Mac -chanType Channel -phyType Phy/WiredPhy -mactrace false]
set lltype [expr {$snoop ? "LL/LLSnoop" : "LL"}]
$lan addNode [list $bs] 2Mb 5ms $lltype Queue/DropTail Mac Phy/WiredPhy false 100
$lan addNode [list $mh] 2Mb 5ms LL Queue/DropTail Mac Phy/WiredPhy false 100
set ifbs [$lan set lanIface_($bs)]
set ifmh [$lan set lanIface_($mh)]
foreach nif [list $ifbs $ifmh] { [$nif set mac_] set bandwidth_ [expr {$bw * 1104.0 / 1040}] }
[$ifmh set mac_] set delay_ [expr {8.0 * 1040 / $bw}]
[$ifbs set mac_] set delay_ [expr {8.0 * 40 / $bw}]

set em [new ErrorModel]
$em unit pkt
$em set rate_ $rate
$em ranvar [new RandomVariable/Uniform]
set lost [$ns create-trace Drop $tf $lan $mh]
$lost target [$ns set nullAgent_]
$em drop-target $lost
set llbs [$ifbs set ll_]
$em target [$llbs down-target]
$llbs down-target $em

set src [$ns create-connection TCP/Reno $fh TCPSink $mh 1]
set ftp [$src attach-app FTP]
$ns at 1.0 "$ftp send $nbytes"
$src proc done {} { finish }
$ns at 10000.0 "finish"
proc finish {} {
    global ns tf
    $ns flush-trace
    close $tf
    exit 0
}
$ns run
