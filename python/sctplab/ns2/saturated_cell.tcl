# One 802.11 cell of N saturated stations for sctplab's validation: ns-2.35's result on the
# cell of the Bianchi test (crates/sctplab-core/src/wireless/mac/bianchi.rs) and of
# sctplab.validate_cell. Node 0 is the sink; nodes 1..N each send CBR over UDP to it at
# 2 Mb/s (above the cell's capacity, so every interface queue stays full). IEEE 802.11 at
# 2 Mb/s for data and basic rate, two-ray ground, PriQueue of 50; every other value is
# ns-2.35's default; the node set-up is wireless_node.tcl's.
#
# - Routing: ns-2's DumbAgent (no routing traffic): a packet goes straight to the link
#   layer, which ARPs for its IP destination, the sink, one hop away. The ARP exchange
#   happens once per station at the start, before the measured window.
# - Packet size: CBR packetSize_ is the size ns-2 hands to the MAC (DumbAgent adds no IP
#   header), SIZE bytes (1000 in the test); the MAC frame is SIZE + 58 bytes with PLCP.
# - Layout, as LAYOUT says; either way everyone is within receive range of everyone and
#   no frame is ever captured, as in the test, where every station receives every other
#   at one power:
#   circle: the sink at the centre of a circle of radius 20 m with the stations evenly on
#     it; the powers then differ (a neighbour 2.5 m away is far stronger than the
#     station across the circle), so capture is turned off (CPThresh_ 1e30). Propagation
#     delays are 0 to 133 ns, under a slot;
#   point: the stations share one point (Friis returns Pt at distance 0, so they hear
#     each other at one power and with no delay) and the sink sits 10 m away; every
#     default kept. With no delay a station's backoff is frozen exactly on a slot
#     boundary, where ns-2's BackoffTimer::pause counts elapsed slots with a floating-
#     point int(elapsed / slot) that can come out one short.
# - ARP first: ns-2 sends an ARP request for every packet that finds its destination
#   unresolved, so N saturated sources starting together flood the cell with broadcast
#   requests and the sink's replies rarely get through (at N = 50 almost nothing is
#   delivered). So each station first sends one packet alone (station i at
#   0.1 + 0.02 (i - 1) s), which resolves the sink's address; the CBR sources all start
#   0.5 s after the last of these.
#
# Usage:
#   ns saturated_cell.tcl N RTS SIZE SEED WARMUP DURATION LAYOUT
# RTS is 1 for RTS/CTS on every DATA frame (RTSThreshold_ 0, ns-2's default) or 0 for
# basic access (RTSThreshold_ 3000, above any frame here). The window measured is
# [WARMUP, WARMUP + DURATION] seconds of simulated time. Prints two lines:
#   bytes B seconds D
# B: bytes of the CBR packets the sink's agents received in the window (SIZE each).
# Then one line "active K": how many stations had a packet received in the window (N when
# every station's ARP succeeded).

if {$argc != 7} {
    puts stderr "usage: ns saturated_cell.tcl N RTS SIZE SEED WARMUP DURATION LAYOUT"
    exit 2
}
set n [lindex $argv 0]
set rts [lindex $argv 1]
set size [lindex $argv 2]
set seed [lindex $argv 3]
set warmup [lindex $argv 4]
set duration [lindex $argv 5]
set layout [lindex $argv 6]
if {$layout ne "circle" && $layout ne "point"} {
    puts stderr "LAYOUT is circle or point"
    exit 2
}
set stagger 0.02
set start [expr {0.1 + $stagger * $n + 0.5}]
if {$warmup < $start + 1.0} {
    puts stderr "WARMUP must leave 1 s after the sources start at $start s"
    exit 2
}

source [file join [file dirname [info script]] wireless_node.tcl]
Mac/802_11 set RTSThreshold_ [expr {$rts ? 0 : 3000}]
if {$layout eq "circle"} {
    Phy/WirelessPhy set CPThresh_ 1e30
}
# Nothing is traced.
wireless_setup $seed - 100.0 100.0 [expr {$n + 1}] DumbAgent
wireless_nodes [expr {$n + 1}]
for {set i 0} {$i <= $n} {incr i} {
    if {$i == 0} {
        set x [expr {$layout eq "circle" ? 50.0 : 60.0}]
        set y 50.0
    } elseif {$layout eq "circle"} {
        set a [expr {2.0 * 3.141592653589793 * ($i - 1) / $n}]
        set x [expr {50.0 + 20.0 * cos($a)}]
        set y [expr {50.0 + 20.0 * sin($a)}]
    } else {
        set x 50.0
        set y 50.0
    }
    $node_($i) set X_ $x
    $node_($i) set Y_ $y
    $node_($i) set Z_ 0.0
}

for {set i 1} {$i <= $n} {incr i} {
    set udp($i) [new Agent/UDP]
    $udp($i) set packetSize_ $size
    set mon($i) [new Agent/LossMonitor]
    $ns_ attach-agent $node_($i) $udp($i)
    $ns_ attach-agent $node_(0) $mon($i)
    $ns_ connect $udp($i) $mon($i)
    set cbr($i) [new Application/Traffic/CBR]
    $cbr($i) set packetSize_ $size
    $cbr($i) set rate_ 2Mb
    $cbr($i) attach-agent $udp($i)
    $ns_ at [expr {0.1 + $stagger * ($i - 1)}] "$udp($i) send $size arp"
    $ns_ at $start "$cbr($i) start"
}

proc received {} {
    global n mon
    set b 0
    for {set i 1} {$i <= $n} {incr i} {
        set b [expr {$b + [$mon($i) set bytes_]}]
    }
    return $b
}

set b0 0
proc mark {} {
    global b0 n mon npk0
    set b0 [received]
    for {set i 1} {$i <= $n} {incr i} {
        set npk0($i) [$mon($i) set npkts_]
    }
}

proc finish {} {
    global b0 duration tf n mon npk0
    puts "bytes [expr {[received] - $b0}] seconds $duration"
    set k 0
    for {set i 1} {$i <= $n} {incr i} {
        if {[$mon($i) set npkts_] > $npk0($i)} {
            incr k
        }
    }
    puts "active $k"
    close $tf
    exit 0
}
$ns_ at $warmup "mark"
$ns_ at [expr {$warmup + $duration}] "finish"
$ns_ run
