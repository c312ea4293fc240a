# The ns-2.35 oracle of sat/ns2_check.rs: a small polar constellation (3 planes of 6,
# Iridium's altitude and inclination) and two terminals, every position and link dumped
# at 64 instants. scripts/sat_ns2_oracle.py runs it (`ns ns2_polar.tcl > ns2_polar.out`).
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

# 3 planes of 6, 780 km, 86.4 deg; nodes at 0, 60, 120 E; alpha 60 i + 20 (p - 1).
for {set p 1} {$p <= 3} {incr p} {
    for {set i 0} {$i < 6} {incr i} {
        set k [expr ($p - 1) * 6 + $i]
        set n($k) [$ns node]
        $n($k) set-position 780 86.4 [expr ($p - 1) * 60] [expr 60 * $i + 20 * ($p - 1)] $p
    }
}
for {set p 0} {$p < 3} {incr p} {
    for {set i 0} {$i < 6} {incr i} {
        set k [expr $p * 6 + $i]
        set prev [expr $p * 6 + ($i + 5) % 6]
        $n($k) set_next $n($prev)
    }
}
for {set p 0} {$p < 3} {incr p} {
    for {set i 0} {$i < 6} {incr i} {
        set a [expr $p * 6 + $i]
        set b [expr $p * 6 + ($i + 1) % 6]
        $ns add-isl intraplane $n($a) $n($b) $opt(bw_isl) $opt(ifq) $opt(qlim)
    }
}
for {set p 0} {$p < 2} {incr p} {
    for {set i 0} {$i < 6} {incr i} {
        set a [expr $p * 6 + $i]
        set b [expr ($p + 1) * 6 + $i]
        $ns add-isl interplane $n($a) $n($b) $opt(bw_isl) $opt(ifq) $opt(qlim)
    }
}
$ns node-config -satNodeType terminal
set t0 [$ns node]
$t0 set-position 45.0 10.0
set t1 [$ns node]
$t1 set-position -30.0 100.0
$t0 add-gsl polar $opt(ll) $opt(ifq) $opt(qlim) $opt(mac) $opt(bw_up) $opt(phy) [$n(0) set downlink_] [$n(0) set uplink_]
$t1 add-gsl polar $opt(ll) $opt(ifq) $opt(qlim) $opt(mac) $opt(bw_up) $opt(phy) [$n(0) set downlink_] [$n(0) set uplink_]

set satrouteobject_ [new SatRouteObject]
$satrouteobject_ compute_routes

# Every 97 s from 5 s, over a little more than one orbit (6027 s).
for {set k 0} {$k < 64} {incr k} {
    $ns at [expr 5 + 97 * $k] "$n(0) dump_sats"
}
$ns at 6300 "exit 0"
$ns run
