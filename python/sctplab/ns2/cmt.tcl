# Concurrent multipath transfer in ns-2.35 (Agent/SCTP/CMT; Agent/SCTP for the single-
# path runs), for sctplab's validation of CMT: the same network as scenarios/cmt.toml.
# Each host is a core node with two interface nodes (ns-2's model of a multihomed host);
# interface 0 of each host is on network A (router ra), interface 1 on network B (router
# rb), so the two paths share nothing, and each has a 2 Mb/s bottleneck into the
# receiver:
#   h1_if0 -10Mb,20ms- ra -2Mb,20ms- h2_if0
#   h1_if1 -10Mb,20ms- rb -2Mb,20ms- h2_if1
# DropTail queues of 50 packets. A 1 MB receive window keeps the flow limited by cwnd
# and the bottlenecks, not by the receiver. With LOSS > 0, packets entering rb's link to
# h2_if1 are dropped with that probability (ErrorModel, uniform; ns-2's default RNG seeded with SEED); SACKs
# going back are not lost.
# Agent/SCTP(/CMT) defaults otherwise (1468-byte DATA chunks in a 1500-byte MTU,
# delayed SACKs, heartbeats every 30 s; CMT: SFR, CUC, DAC, RTX_CWND, CMT-PF).
# Usage:
#   ns cmt.tcl AGENT LOSS SEED START END OUT_TRACE [SWND NRSACK UNORDERED RWND DELAYB POLICY]
# Optional (send buffer and NR-SACK rows): SWND the sender's initialSwnd_ in bytes (0:
# unlimited, the default), NRSACK 1 for useNonRenegSacks_ on both agents, UNORDERED 1
# for unordered_ on the sender, RWND the receiver's initialRwnd_ (default 1048576).
# Optional (`sctplab reproduce cmt`): DELAYB the delay of path B's bottleneck rb-h2_if1
# (default 20ms), POLICY Agent/SCTP/CMT's eCmtRtxPolicy_ (0 RTX_ASAP, 1 RTX_TO_SAME,
# 2 RTX_SSTHRESH, 3 RTX_LOSSRATE, 4 RTX_CWND, the default).
# AGENT: cmt or sctp (single path to h2_if0). Node numbers in the trace: 0 h1,
# 1 h1_if0, 2 h1_if1, 3 h2, 4 h2_if0, 5 h2_if1, 6 ra, 7 rb.

set agent [lindex $argv 0]
set loss [lindex $argv 1]
set seed [lindex $argv 2]
set start [lindex $argv 3]
set end [lindex $argv 4]
set outfile [lindex $argv 5]
set swnd [expr {[llength $argv] > 6 ? [lindex $argv 6] : 0}]
set nrsack [expr {[llength $argv] > 7 ? [lindex $argv 7] : 0}]
set unordered [expr {[llength $argv] > 8 ? [lindex $argv 8] : 0}]
set rwnd [expr {[llength $argv] > 9 ? [lindex $argv 9] : 1048576}]
set delayb [expr {[llength $argv] > 10 ? [lindex $argv 10] : "20ms"}]
set policy [expr {[llength $argv] > 11 ? [lindex $argv 11] : 4}]

Trace set show_sctphdr_ 1
global defaultRNG
$defaultRNG seed $seed

set ns [new Simulator]
set tf [open $outfile w]
$ns trace-all $tf

set h1 [$ns node]
set h1_if0 [$ns node]
set h1_if1 [$ns node]
$ns multihome-add-interface $h1 $h1_if0
$ns multihome-add-interface $h1 $h1_if1
set h2 [$ns node]
set h2_if0 [$ns node]
set h2_if1 [$ns node]
$ns multihome-add-interface $h2 $h2_if0
$ns multihome-add-interface $h2 $h2_if1
set ra [$ns node]
set rb [$ns node]

$ns duplex-link $h1_if0 $ra 10Mb 20ms DropTail
$ns duplex-link $ra $h2_if0 2Mb 20ms DropTail
$ns duplex-link $h1_if1 $rb 10Mb 20ms DropTail
$ns duplex-link $rb $h2_if1 2Mb $delayb DropTail

if {$loss > 0} {
    set em [new ErrorModel]
    $em unit pkt
    $em set rate_ $loss
    $em ranvar [new RandomVariable/Uniform]
    $ns lossmodel $em $rb $h2_if1
}

if {$agent == "cmt"} {
    set snd [new Agent/SCTP/CMT]
    set rcv [new Agent/SCTP/CMT]
    $snd set eCmtRtxPolicy_ $policy
} else {
    set snd [new Agent/SCTP]
    set rcv [new Agent/SCTP]
}
$rcv set initialRwnd_ $rwnd
if {$swnd > 0} {
    $snd set initialSwnd_ $swnd
}
if {$nrsack} {
    $snd set useNonRenegSacks_ 1
    $rcv set useNonRenegSacks_ 1
}
if {$unordered} {
    $snd set unordered_ 1
}
$ns multihome-attach-agent $h1 $snd
$ns multihome-attach-agent $h2 $rcv
$ns connect $snd $rcv
$snd set-primary-destination $h2_if0

set ftp [new Application/FTP]
$ftp attach-agent $snd

$ns at $start "$ftp start"
$ns at $end "flush-trace-and-exit"
proc flush-trace-and-exit {} {
    global ns tf
    $ns flush-trace
    close $tf
    exit 0
}
$ns run
