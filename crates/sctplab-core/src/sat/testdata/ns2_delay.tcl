# The ns-2.35 oracle of sat/ns2_check.rs for routing over time: a Walker-star-like polar
# constellation (6 planes of 11 at 780 km, 86.4 deg, as Iridium), two terminals (ns-2's
# Berkeley and Boston), and one small CBR packet every 7.3 s from one to the other.
# scripts/sat_ns2_oracle.py runs it and keeps, per delivered packet, its path and times.
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

set outfile [open delay.tr w]
$ns trace-all-satlinks $outfile
set udp0 [new Agent/UDP]
$ns attach-agent $t0 $udp0
set cbr0 [new Application/Traffic/CBR]
$cbr0 attach-agent $udp0
$cbr0 set packetSize_ 100
$cbr0 set interval_ 7.3
set null0 [new Agent/Null]
$ns attach-agent $t1 $null0
$ns connect $udp0 $null0
$ns at 1.0 "$cbr0 start"
set satrouteobject_ [new SatRouteObject]
$satrouteobject_ compute_routes
$ns at 6100 "close $outfile; exit 0"
$ns run
