# ns-2.35 side of sctplab.validation.red's RED rows (`sctplab validate ns2`; also
# bench/red_vs_ns2.py): seed 000's GEO path N0 -10Mb,2ms- N2 -3Mb,250ms (Queue/RED with
# ns-2.35's defaults, limit 100)- N3 -10Mb,2ms- N4, one TCP/Sack1 flow of 1448-byte
# segments, window and ssthresh 300; precisionReduce_ at ns-2.35's default (true), as
# sctplab's `precision_reduce` default.
# Usage: ns red_dumbbell.tcl SEED DURATION
# Prints: packets N2 sent to N3, packets dropped at N2's queue, and the time-average of
# the packets waiting there (the queue monitor's integrator over the run).
set seed [lindex $argv 0]
set duration [lindex $argv 1]
Agent/TCP set packetSize_ 1448
Agent/TCP set window_ 300
Agent/TCP set ssthresh_ 300
global defaultRNG
$defaultRNG seed $seed
set ns [new Simulator]
set n0 [$ns node]
set n2 [$ns node]
set n3 [$ns node]
set n4 [$ns node]
$ns duplex-link $n0 $n2 10Mb 2ms DropTail
$ns duplex-link $n2 $n3 3Mb 250ms RED
$ns duplex-link $n3 $n4 10Mb 2ms DropTail
$ns queue-limit $n2 $n3 100
$ns queue-limit $n3 $n2 100
set src [$ns create-connection TCP/Sack1 $n0 TCPSink/Sack1 $n4 1]
set ftp [$src attach-app FTP]
set qm [$ns monitor-queue $n2 $n3 ""]
$ns at 0.0 "$ftp start"
$ns at $duration "finish"
proc finish {} {
    global qm duration
    set i [$qm get-pkts-integrator]
    puts "[$qm set pdepartures_] [$qm set pdrops_] [expr {[$i set sum_] / $duration}]"
    exit 0
}
$ns run
