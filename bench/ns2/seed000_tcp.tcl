# ns-2.35 side of bench/seed000-tcp-sack.toml (bench/ns2_speed.sh): one TCP/Sack1 flow
# over seed 000's GEO path N0 -10Mb,2ms- N2 -3Mb,250ms (queue 10)- N3 -10Mb,2ms- N4,
# 1448-byte segments, window 45, initial ssthresh 45, 1 % Bernoulli loss on N2 -> N3
# (which carries no acks), no trace.
# Usage: ns seed000_tcp.tcl SEED DURATION [COUNT]   (COUNT=1 prints N2->N3 departures)
set seed [lindex $argv 0]
set duration [lindex $argv 1]
set count [expr {[llength $argv] > 2 ? [lindex $argv 2] : 0}]

Agent/TCP set precisionReduce_ false
Agent/TCP set packetSize_ 1448
Agent/TCP set window_ 45
Agent/TCP set ssthresh_ 45
global defaultRNG
$defaultRNG seed $seed

set ns [new Simulator]
set n0 [$ns node]
set n2 [$ns node]
set n3 [$ns node]
set n4 [$ns node]
$ns duplex-link $n0 $n2 10Mb 2ms DropTail
$ns duplex-link $n2 $n3 3Mb 250ms DropTail
$ns duplex-link $n3 $n4 10Mb 2ms DropTail
$ns queue-limit $n2 $n3 10
$ns queue-limit $n3 $n2 10

set em [new ErrorModel]
$em unit pkt
$em set rate_ 0.01
$em ranvar [new RandomVariable/Uniform]
$ns lossmodel $em $n2 $n3

set src [$ns create-connection TCP/Sack1 $n0 TCPSink/Sack1 $n4 1]
set ftp [$src attach-app FTP]
if {$count} { set qm [$ns monitor-queue $n2 $n3 ""] }
$ns at 0.0 "$ftp start"
$ns at $duration "finish"
proc finish {} {
    global count qm
    if {$count} { puts "ns-2 packets on N2->N3: [$qm set pdepartures_]" }
    exit 0
}
$ns run
