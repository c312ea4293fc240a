# A dual-homed SCTP association in ns-2.35 (Agent/SCTP with its multihoming support),
# for sctplab's validation of failover: the same network as
# scenarios/example-multihoming.toml. Each host is a core node with two interface
# nodes (ns-2's model of a multihomed host: the agent is attached to every interface
# node, and the core node's never-used links only pick the interface for a
# destination); interface 0 of each host is on network A (router ra), interface 1 on
# network B (router rb), so the two paths share nothing:
#   h1_if0 -10Mb,25ms- ra -10Mb,25ms- h2_if0
#   h1_if1 -10Mb,50ms- rb -10Mb,50ms- h2_if1
# DropTail queues of 50 packets. The sender's primary destination is h2_if0; its FTP
# source starts at START; the link ra - h2_if0 goes down at DOWN and up again at UP.
# Agent/SCTP defaults otherwise (1468-byte DATA chunks in a 1500-byte MTU, 64 KiB
# receive window, delayed SACKs, heartbeats every 30 s, Path.Max.Retrans 5,
# retransmissions to the alternate destination).
# Usage:
#   ns multihome.tcl START DOWN UP END OUT_TRACE
# Node numbers in the trace: 0 h1, 1 h1_if0, 2 h1_if1, 3 h2, 4 h2_if0, 5 h2_if1,
# 6 ra, 7 rb.

set start [lindex $argv 0]
set down [lindex $argv 1]
set up [lindex $argv 2]
set end [lindex $argv 3]
set outfile [lindex $argv 4]

# One trace line per chunk, with its TSN.
Trace set show_sctphdr_ 1

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

$ns duplex-link $h1_if0 $ra 10Mb 25ms DropTail
$ns duplex-link $ra $h2_if0 10Mb 25ms DropTail
$ns duplex-link $h1_if1 $rb 10Mb 50ms DropTail
$ns duplex-link $rb $h2_if1 10Mb 50ms DropTail

set snd [new Agent/SCTP]
$ns multihome-attach-agent $h1 $snd
set rcv [new Agent/SCTP]
$ns multihome-attach-agent $h2 $rcv
$ns connect $snd $rcv
$snd set-primary-destination $h2_if0

set ftp [new Application/FTP]
$ftp attach-agent $snd

$ns rtmodel-at $down down $ra $h2_if0
$ns rtmodel-at $up up $ra $h2_if0

$ns at $start "$ftp start"
$ns at $end "flush-trace-and-exit"
proc flush-trace-and-exit {} {
    global ns tf
    $ns flush-trace
    close $tf
    exit 0
}
$ns run
