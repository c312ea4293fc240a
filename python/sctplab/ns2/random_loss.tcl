# One flow over seed 002's topology with random (Bernoulli) loss of data packets on R1's
# outgoing link, for sctplab's statistical comparison with ns-2.35 (sctplab validate ns2).
# S1 -8Mb,0.1ms- R1 -800Kb,100ms- K1, R1 queue limit QLIM.
# Usage: ns random_loss.tcl AGENT RATE SEED DURATION QLIM OUT_TRACE [BOTTLENECK]
#   AGENT: Reno | Newreno | Sack1 | Fack | SCTP; OUT_TRACE "-" for no trace (benchmarks)
# TCP as in tcp_variants.tcl (window 28, 1000-byte segments, test-suite defaults);
# SCTP as in sctp_seed002.tcl (1000-byte chunks, 1048-byte MTU, no delayed SACKs).

set agent [lindex $argv 0]
set rate [lindex $argv 1]
set seed [lindex $argv 2]
set duration [lindex $argv 3]
set qlim [lindex $argv 4]
set outfile [lindex $argv 5]
# Bottleneck rate, 800Kb unless given (benchmarks scale the work with faster links).
set bw [expr {[llength $argv] > 6 ? [lindex $argv 6] : "800Kb"}]

Agent/TCP set precisionReduce_ false
Agent/TCP set rtxcur_init_ 6.0
Agent/TCP set minrto_ 1
Agent/TCP/Newreno set newreno_changes1_ 0
Agent/TCP/Newreno set partial_window_deflation_ 0
Agent/TCP set singledup_ 0
Agent/TCP set syn_ false
Agent/SCTP set dataChunkSize_ 1016
Agent/SCTP set mtu_ 1048
Trace set show_sctphdr_ 1

global defaultRNG
$defaultRNG seed $seed

set ns [new Simulator]
set tracing [expr {$outfile != "-"}]
if {$tracing} {
    set tf [open $outfile w]
    $ns trace-all $tf
}
set s1 [$ns node]
set r1 [$ns node]
set k1 [$ns node]
$ns duplex-link $s1 $r1 8Mb 0.1ms DropTail
$ns duplex-link $r1 $k1 $bw 100ms DropTail
$ns queue-limit $r1 $k1 $qlim
$ns queue-limit $k1 $r1 $qlim

set em [new ErrorModel]
$em unit pkt
$em set rate_ $rate
$em ranvar [new RandomVariable/Uniform]
# Only data packets are lost: the error model sits on R1 -> K1, which carries no acks.
$ns lossmodel $em $r1 $k1

if {$agent == "SCTP"} {
    set src [new Agent/SCTP]
    $src set numOutStreams_ 1
    $src set useDelayedSacks_ 0
    $src set initialRwnd_ 65536
    set sink [new Agent/SCTP]
    $sink set useDelayedSacks_ 0
    $sink set initialRwnd_ 65536
    $ns attach-agent $s1 $src
    $ns attach-agent $k1 $sink
    $ns connect $src $sink
    set ftp [new Application/FTP]
    $ftp attach-agent $src
} else {
    if {$agent == "Reno" || $agent == "Newreno"} { set sinktype TCPSink } else { set sinktype TCPSink/Sack1 }
    set src [$ns create-connection TCP/$agent $s1 $sinktype $k1 1]
    $src set window_ 28
    set ftp [$src attach-app FTP]
}
$ns at 1.0 "$ftp start"
$ns at $duration "finish"
proc finish {} {
    global ns tf tracing
    if {$tracing} {
        $ns flush-trace
        close $tf
    }
    exit 0
}
$ns run
