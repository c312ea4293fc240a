# A static 3-node DSDV chain in ns-2.35, for the question whether the far end learns the
# route to the near end (docs/models/wireless.md, DSDV section): n0, n1, n2 at x = 100,
# 300, 500 m, y = 100 m (200 m apart, the receive range being 250 m: only neighbours hear
# each other), DSDV with ns-2.35's defaults, one CBR/UDP flow of 512-byte packets at
# 100 kb/s from n2 to n0 from START s to STOP s. The node set-up is wireless_node.tcl's.
# Usage:
#   ns dsdv_chain.tcl SEED START STOP TRACE
# TRACE gets the agent-level (AGT) and routing-level (RTR) lines, where n2's first data
# packet to n0 and n1's DSDV updates (their sizes count the advertised entries) show.

if {$argc != 4} {
    puts stderr "usage: ns dsdv_chain.tcl SEED START STOP TRACE"
    exit 2
}
set seed [lindex $argv 0]
set start [lindex $argv 1]
set stop [lindex $argv 2]
set tracefile [lindex $argv 3]

source [file join [file dirname [info script]] wireless_node.tcl]
wireless_setup $seed $tracefile 2000 300 3 DSDV 1
wireless_nodes 3
foreach {i x} {0 100 1 300 2 500} {
    $node_($i) set X_ $x
    $node_($i) set Y_ 100
    $node_($i) set Z_ 0
}

set udp [new Agent/UDP]
$ns_ attach-agent $node_(2) $udp
set null [new Agent/Null]
$ns_ attach-agent $node_(0) $null
$ns_ connect $udp $null
set cbr [new Application/Traffic/CBR]
$cbr set packetSize_ 512
$cbr set rate_ 100Kb
$cbr attach-agent $udp
$ns_ at $start "$cbr start"
$ns_ at $stop "$cbr stop"

proc finish {} {
    global ns_ tf
    $ns_ flush-trace
    close $tf
    exit 0
}
$ns_ at $stop "finish"
$ns_ run
