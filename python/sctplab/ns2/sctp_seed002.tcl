# Seed 002's SCTP case in ns-2.35 (Agent/SCTP, the Delaware module), for sctplab's
# validation of its `ns2` preset. Topology of Fall & Floyd 1996 with the seed's 0.1 ms
# access delay: S1 -8Mb,0.1ms- R1 -800Kb,100ms- K1, DropTail, R1 queue limit QLIM.
# 1000-byte data chunks in a 1048-byte MTU (one 1016-byte chunk per packet), one stream,
# no delayed SACKs, 64 KiB receive window. Usage:
#   ns sctp_seed002.tcl "DROPS" QLIM OUT_TRACE [AGENT CHUNK [RTO_TRACE]]
# DROPS are 0-based packet counts on R1->K1, where ns-2 also counts the INIT,
# COOKIE-ECHO and HEARTBEAT that precede the data. AGENT (default SCTP) names the
# class under Agent/ for both ends, e.g. SCTP/Timestamp, whose TIMESTAMP chunk takes
# 12 bytes of every packet, so its CHUNK (default 1016 bytes) must be 1004. RTO_TRACE
# gets the sender's `rto_` trace: a line (time, rto, srtt, rttvar) per RTT update.

set drops [lindex $argv 0]
set qlim [lindex $argv 1]
set outfile [lindex $argv 2]
set agent [expr {$argc > 3 ? [lindex $argv 3] : "SCTP"}]
set chunk [expr {$argc > 4 ? [lindex $argv 4] : 1016}]
set rtofile [expr {$argc > 5 ? [lindex $argv 5] : ""}]

# One trace line per chunk, with its TSN.
Trace set show_sctphdr_ 1

set ns [new Simulator]
set tf [open $outfile w]
$ns trace-all $tf

set s1 [$ns node]
set r1 [$ns node]
set k1 [$ns node]
$ns duplex-link $s1 $r1 8Mb 0.1ms DropTail
$ns duplex-link $r1 $k1 800Kb 100ms DropTail
$ns queue-limit $r1 $k1 $qlim
$ns queue-limit $k1 $r1 $qlim

if {[llength $drops] > 0} {
    set em [new ErrorModel/List]
    $em unit pkt
    $em droplist $drops
    $ns lossmodel $em $r1 $k1
}

# Chunk size before MTU: ns-2 checks the chunk against the MTU as soon as either is set.
Agent/SCTP set dataChunkSize_ $chunk
Agent/SCTP set mtu_ 1048
set sctp [new Agent/$agent]
$sctp set numOutStreams_ 1
$sctp set useDelayedSacks_ 0
$sctp set initialRwnd_ 65536
$ns attach-agent $s1 $sctp
if {$rtofile != ""} {
    set rf [open $rtofile w]
    $sctp trace rto_
    $sctp attach $rf
}
set sink [new Agent/$agent]
$sink set useDelayedSacks_ 0
$sink set initialRwnd_ 65536
$ns attach-agent $k1 $sink
$ns connect $sctp $sink
set ftp [new Application/FTP]
$ftp attach-agent $sctp
$ns at 1.0 "$ftp start"
$ns at 6.0 "flush-trace-and-exit"
proc flush-trace-and-exit {} {
    global ns tf rtofile rf
    $ns flush-trace
    close $tf
    if {$rtofile != ""} {
        close $rf
    }
    exit 0
}
$ns run
