# A static 802.11 chain for sctplab's validation (`sctplab validate ns2`, wireless rows):
# HOPS+1 mobile nodes on a line 200 m apart (receive range 250 m, carrier sense 550 m, so
# each node hears its neighbours and senses the next ones), IEEE 802.11 at 2 Mb/s for
# data and basic rate, two-ray ground, AODV, PriQueue of 50, and one TCP-SACK flow from
# the first node to the last, started at 1 s. Every other value is ns-2.35's default.
# Usage:
#   ns wireless_chain.tcl HOPS SEED DURATION TRACE
# DURATION is the flow's running time (the run ends at 1 s + DURATION); SEED (> 0) seeds
# ns-2's default generator, which the MAC's backoff and AODV's jitter draw from. TRACE is
# a trace file of agent-level lines (AGT) and drops, or "-" for none.

if {$argc != 4} {
    puts stderr "usage: ns wireless_chain.tcl HOPS SEED DURATION TRACE"
    exit 2
}
set hops [lindex $argv 0]
set seed [lindex $argv 1]
set duration [lindex $argv 2]
set tracefile [lindex $argv 3]
set start 1.0
set spacing 200.0
set nn [expr {$hops + 1}]

global defaultRNG
$defaultRNG seed $seed

Mac/802_11 set dataRate_ 2Mb
Mac/802_11 set basicRate_ 2Mb

set ns_ [new Simulator]
# A mobile node needs a trace file for its drop target, so "no trace" writes the (few)
# drop lines to /dev/null with every trace level off.
set traced [expr {$tracefile ne "-"}]
set tf [open [expr {$traced ? $tracefile : "/dev/null"}] w]
$ns_ trace-all $tf

# The nodes sit on y = 50 m from x = 50 m on, inside a flat grid with a 50 m margin.
set topo [new Topography]
$topo load_flatgrid [expr {$spacing * $hops + 100.0}] 100.0
create-god $nn

set chan [new Channel/WirelessChannel]
$ns_ node-config -adhocRouting AODV \
    -llType LL \
    -macType Mac/802_11 \
    -ifqType Queue/DropTail/PriQueue \
    -ifqLen 50 \
    -antType Antenna/OmniAntenna \
    -propType Propagation/TwoRayGround \
    -phyType Phy/WirelessPhy \
    -channel $chan \
    -topoInstance $topo \
    -agentTrace [expr {$traced ? "ON" : "OFF"}] \
    -routerTrace OFF \
    -macTrace OFF \
    -movementTrace OFF

for {set i 0} {$i < $nn} {incr i} {
    set node_($i) [$ns_ node]
    $node_($i) random-motion 0
    $node_($i) set X_ [expr {50.0 + $spacing * $i}]
    $node_($i) set Y_ 50.0
    $node_($i) set Z_ 0.0
}

# The transport flow as scenarios/manet-tcp.toml configures ours.
set tcp [new Agent/TCP/Sack1]
$tcp set packetSize_ 1400
$tcp set window_ 46
$tcp set windowInit_ 2
$tcp set syn_ true
set sink [new Agent/TCPSink/Sack1]
$ns_ attach-agent $node_(0) $tcp
$ns_ attach-agent $node_($hops) $sink
$ns_ connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp
$ns_ at $start "$ftp start"

proc finish {} {
    global ns_ tcp tf
    # Sender-side counters, for a quick look without a trace.
    puts "ack [$tcp set ack_] ndatapack [$tcp set ndatapack_] rexmitpack [$tcp set nrexmitpack_]"
    $ns_ flush-trace
    close $tf
    exit 0
}
$ns_ at [expr {$start + $duration}] "finish"
$ns_ run
