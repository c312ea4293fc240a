# ns-2.35's satellite module on a polar constellation, for `sctplab validate ns2`'s
# satellite rows (python/sctplab/validation/satellite.py builds the same network for
# sctplab). Six planes of 11 satellites at 780 km and 86.4 deg (Iridium's numbers),
# ascending nodes 30 deg apart, the ISL grid of ns-2's Iridium example (a ring in each
# plane, satellite i of plane p to satellite i of plane p + 1), and two terminals at
# ns-2's Berkeley and Boston. Unlike the Iridium example, handoff randomisation is off
# and routes are recomputed at every topology change (data_driven_computation_ false):
# a sample-by-sample comparison needs both.
# Usage: ns satellite.tcl MODE DURATION OUT_TRACE
#   MODE cbr: one 100-byte UDP packet every 8 s from Berkeley to Boston, from 1 s;
#   MODE tcp: TCP SACK (Agent/TCP/Sack1, window 20, no SYN) from Berkeley to Boston,
#   FTP from 1 s, 984-byte segments: with ns-2's 40-byte TCP/IP header and the 16 bytes
#   its satellite links add to every packet (LINK_HDRSIZE), 1040 bytes on every hop, what
#   sctplab's 1000-byte segments with their 40-byte header take.
# OUT_TRACE gets `trace-all-satlinks`: every satellite link's +, -, r and d lines
# (`none`: no trace, for timing the simulator alone).

set mode [lindex $argv 0]
set duration [lindex $argv 1]
set outfile [lindex $argv 2]

set ns [new Simulator]
HandoffManager/Term set elevation_mask_ 8.2
HandoffManager/Term set term_handoff_int_ 10
HandoffManager/Sat set sat_handoff_int_ 10
HandoffManager/Sat set latitude_threshold_ 60
HandoffManager/Sat set longitude_threshold_ 0
HandoffManager set handoff_randomization_ false
SatRouteObject set metric_delay_ true
SatRouteObject set data_driven_computation_ false

set opt(chan) Channel/Sat
set opt(bw_down) 1.5Mb
set opt(bw_up) 1.5Mb
set opt(bw_isl) 25Mb
set opt(phy) Phy/Sat
set opt(mac) Mac/Sat
set opt(ifq) Queue/DropTail
set opt(qlim) 50
set opt(ll) LL/Sat
set opt(wiredRouting) OFF

$ns node-config -satNodeType polar -llType $opt(ll) -ifqType $opt(ifq) -ifqLen $opt(qlim) \
    -macType $opt(mac) -phyType $opt(phy) -channelType $opt(chan) -downlinkBW $opt(bw_down) \
    -wiredRouting $opt(wiredRouting)

# Plane p (1..6): node at 30 (p - 1) deg E; satellite i at alpha 360 i / 11 + 360 (p - 1) / 22.
set P 6
set S 11
for {set p 0} {$p < $P} {incr p} {
    for {set i 0} {$i < $S} {incr i} {
        set k [expr $p * $S + $i]
        set n($k) [$ns node]
        set alpha [expr fmod(360.0 * $i / $S + 360.0 * $p / (2 * $S), 360.0)]
        $n($k) set-position 780 86.4 [expr 30 * $p] $alpha [expr $p + 1]
    }
}
for {set p 0} {$p < $P} {incr p} {
    for {set i 0} {$i < $S} {incr i} {
        set k [expr $p * $S + $i]
        $n($k) set_next $n([expr $p * $S + ($i + $S - 1) % $S])
        $ns add-isl intraplane $n($k) $n([expr $p * $S + ($i + 1) % $S]) $opt(bw_isl) $opt(ifq) $opt(qlim)
    }
}
for {set p 0} {$p < $P - 1} {incr p} {
    for {set i 0} {$i < $S} {incr i} {
        $ns add-isl interplane $n([expr $p * $S + $i]) $n([expr ($p + 1) * $S + $i]) $opt(bw_isl) $opt(ifq) $opt(qlim)
    }
}
$ns node-config -satNodeType terminal
set t0 [$ns node]
$t0 set-position 37.9 -122.3
set t1 [$ns node]
$t1 set-position 42.3 -71.1
$t0 add-gsl polar $opt(ll) $opt(ifq) $opt(qlim) $opt(mac) $opt(bw_up) $opt(phy) [$n(0) set downlink_] [$n(0) set uplink_]
$t1 add-gsl polar $opt(ll) $opt(ifq) $opt(qlim) $opt(mac) $opt(bw_up) $opt(phy) [$n(0) set downlink_] [$n(0) set uplink_]

if {$outfile != "none"} {
    set tf [open $outfile w]
    $ns trace-all-satlinks $tf
}
if {$mode == "cbr"} {
    set udp0 [new Agent/UDP]
    $ns attach-agent $t0 $udp0
    set app [new Application/Traffic/CBR]
    $app attach-agent $udp0
    $app set packetSize_ 100
    $app set interval_ 8.0
    set null0 [new Agent/Null]
    $ns attach-agent $t1 $null0
    $ns connect $udp0 $null0
} else {
    Agent/TCP set syn_ false
    set tcp [new Agent/TCP/Sack1]
    $tcp set window_ 20
    $tcp set packetSize_ 984
    $ns attach-agent $t0 $tcp
    set sink [new Agent/TCPSink/Sack1]
    $ns attach-agent $t1 $sink
    $ns connect $tcp $sink
    set app [new Application/FTP]
    $app attach-agent $tcp
}
$ns at 1.0 "$app start"
set satrouteobject_ [new SatRouteObject]
$satrouteobject_ compute_routes
if {$outfile != "none"} {
    $ns at $duration "close $tf; exit 0"
} else {
    $ns at $duration "exit 0"
}
$ns run
