# A static 802.11 chain for sctplab's validation (`sctplab validate ns2`, wireless rows):
# HOPS+1 mobile nodes on a line 200 m apart (receive range 250 m, carrier sense 550 m, so
# each node hears its neighbours and senses the next ones), IEEE 802.11 at 2 Mb/s for
# data and basic rate, two-ray ground, AODV, PriQueue of 50, and one TCP-SACK flow from
# the first node to the last, started at 1 s. Every other value is ns-2.35's default;
# the node set-up is wireless_node.tcl's.
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

source [file join [file dirname [info script]] wireless_node.tcl]
# The nodes sit on y = 50 m from x = 50 m on, inside a flat grid with a 50 m margin.
wireless_setup $seed $tracefile [expr {$spacing * $hops + 100.0}] 100.0 $nn AODV
wireless_nodes $nn
for {set i 0} {$i < $nn} {incr i} {
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
