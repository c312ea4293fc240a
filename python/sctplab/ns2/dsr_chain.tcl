# ns-2.35's DSR on a static chain, the oracle for the hand-derived DSR tests
# (crates/sctplab-core/src/wireless/dsr/tests.rs): 6 nodes 200 m apart on a line (each
# reaches only its neighbours: two-ray ground, 250 m range), IEEE 802.11 at 2 Mb/s,
# `-adhocRouting DSR` with `-ifqType CMUPriQueue`, one CBR/UDP flow of 512-byte packets
# every 0.5 s from node 0 to node 5 from 1 s. Every other value is ns-2.35's default.
# Usage:
#   ns dsr_chain.tcl TRACE STOP
# TRACE gets the agent- and routing-level lines (AGT, RTR): the route requests as each
# node sends them ("DSR 32", then 48, 68, 92, 120), the target's reply ("DSR 76", TTL
# 254), the data packets ("cbr 564" while they carry the source route and flow-state
# fields, "cbr 532" once the flow is established end to end).

if {$argc != 2} {
    puts stderr "usage: ns dsr_chain.tcl TRACE STOP"
    exit 2
}
set tracefile [lindex $argv 0]
set stop [lindex $argv 1]
set nn 6

Mac/802_11 set dataRate_ 2Mb
Mac/802_11 set basicRate_ 2Mb
set ns_ [new Simulator]
set tf [open $tracefile w]
$ns_ trace-all $tf
set topo [new Topography]
$topo load_flatgrid 1200 300
set god_ [create-god $nn]
set chan [new Channel/WirelessChannel]
$ns_ node-config -adhocRouting DSR \
    -llType LL \
    -macType Mac/802_11 \
    -ifqType CMUPriQueue \
    -ifqLen 50 \
    -antType Antenna/OmniAntenna \
    -propType Propagation/TwoRayGround \
    -phyType Phy/WirelessPhy \
    -channel $chan \
    -topoInstance $topo \
    -agentTrace ON \
    -routerTrace ON \
    -macTrace OFF \
    -movementTrace OFF
for {set i 0} {$i < $nn} {incr i} {
    set node_($i) [$ns_ node]
    $node_($i) random-motion 0
    $node_($i) set X_ [expr {10.0 + 200.0 * $i}]
    $node_($i) set Y_ 100.0
    $node_($i) set Z_ 0.0
}
set udp [new Agent/UDP]
$ns_ attach-agent $node_(0) $udp
set null [new Agent/Null]
$ns_ attach-agent $node_(5) $null
$ns_ connect $udp $null
set cbr [new Application/Traffic/CBR]
$cbr set packetSize_ 512
$cbr set interval_ 0.5
$cbr attach-agent $udp
$ns_ at 1.0 "$cbr start"

proc finish {} {
    global ns_ tf
    $ns_ flush-trace
    close $tf
    exit 0
}
$ns_ at $stop "finish"
$ns_ run
