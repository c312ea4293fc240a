# Seed 004's MANET scenario for sctplab's validation (`sctplab validate ns2`, wireless
# rows): 46 mobile nodes in 1000 m x 300 m replaying a setdest movement file (the one
# `sctplab movement scenarios/manet-tcp.toml --seed K` writes), IEEE 802.11 at 2 Mb/s for
# data and basic rate, two-ray ground, AODV, PriQueue of 50; the CBR/UDP background pairs
# of sctplab's run of the same seed; one transport flow from node 0 to node 1 from 20 s to
# STOP. Every other value is ns-2.35's default; the node set-up is wireless_node.tcl's.
# Usage:
#   ns manet.tcl TRANSPORT MOVEMENT PAIRS SEED STOP TRACE [ROUTING]
# TRANSPORT is "tcp" (Agent/TCP/Sack1 as scenarios/manet-tcp.toml) or "sctp" (Agent/SCTP as
# scenarios/manet-sctp.toml). PAIRS is a text file with one CBR flow a line,
# "FROM TO START_S" (0-based node indices). SEED (> 0) seeds ns-2's default generator.
# TRACE is a trace file of agent-level lines (AGT) and drops, or "-" for none.
# ROUTING is the ad hoc routing agent, AODV (the default), DSDV or DSR; with DSDV or DSR
# the trace also has the routing-level lines (RTR), where its packets are counted. DSR
# gets the interface queue ns-2's DSR scripts give it (-ifqType CMUPriQueue).

if {$argc != 6 && $argc != 7} {
    puts stderr "usage: ns manet.tcl TRANSPORT MOVEMENT PAIRS SEED STOP TRACE \[ROUTING\]"
    exit 2
}
set transport [lindex $argv 0]
set movement [lindex $argv 1]
set pairsfile [lindex $argv 2]
set seed [lindex $argv 3]
set stop [lindex $argv 4]
set tracefile [lindex $argv 5]
set routing [expr {$argc == 7 ? [lindex $argv 6] : "AODV"}]
set nn 46
set start 20.0
# 16 kb/s of 512-byte payloads.
set cbr_size 512
set cbr_interval [expr {$cbr_size * 8.0 / 16000.0}]

source [file join [file dirname [info script]] wireless_node.tcl]
wireless_setup $seed $tracefile 1000 300 $nn $routing [expr {$routing ne "AODV"}]
if {$routing eq "DSR"} {
    $ns_ node-config -ifqType CMUPriQueue
}
wireless_nodes $nn
# The setdest file refers to $node_(i), $ns_ and $god_.
source $movement

# Background: UDP with a CBR application and a null sink per pair, with cbrgen.tcl's
# `random_ 1` (seed 004's traffic generator): each gap is the interval times a uniform
# factor in [0.5, 1.5), as sctplab's CBR with `jitter = true` (scenarios/manet-*.toml).
set k 0
set pf [open $pairsfile r]
while {[gets $pf line] >= 0} {
    if {[llength $line] != 3} {
        continue
    }
    set from [lindex $line 0]
    set to [lindex $line 1]
    set at [lindex $line 2]
    set udp($k) [new Agent/UDP]
    $ns_ attach-agent $node_($from) $udp($k)
    set null($k) [new Agent/Null]
    $ns_ attach-agent $node_($to) $null($k)
    set cbr($k) [new Application/Traffic/CBR]
    $cbr($k) set packetSize_ $cbr_size
    $cbr($k) set interval_ $cbr_interval
    $cbr($k) set random_ 1
    $cbr($k) attach-agent $udp($k)
    $ns_ connect $udp($k) $null($k)
    $ns_ at $at "$cbr($k) start"
    incr k
}
close $pf

if {$transport eq "tcp"} {
    set src [new Agent/TCP/Sack1]
    $src set packetSize_ 1400
    $src set window_ 46
    $src set windowInit_ 2
    $src set syn_ true
    set dst [new Agent/TCPSink/Sack1]
} elseif {$transport eq "sctp"} {
    # The chunk size counts the 16-byte chunk header (684 bytes of user data); set it
    # before the MTU, which ns-2 checks it against.
    Agent/SCTP set dataChunkSize_ 700
    Agent/SCTP set mtu_ 1500
    set src [new Agent/SCTP]
    set dst [new Agent/SCTP]
    foreach a [list $src $dst] {
        $a set initialRwnd_ 65536
        $a set useDelayedSacks_ 1
        $a set heartbeatInterval_ 30
    }
} else {
    puts stderr "unknown transport $transport (tcp or sctp)"
    exit 2
}
$ns_ attach-agent $node_(0) $src
$ns_ attach-agent $node_(1) $dst
$ns_ connect $src $dst
set ftp [new Application/FTP]
$ftp attach-agent $src
$ns_ at $start "$ftp start"
$ns_ at $stop "$ftp stop"

proc finish {} {
    global ns_ tf
    $ns_ flush-trace
    close $tf
    exit 0
}
$ns_ at $stop "finish"
$ns_ run
