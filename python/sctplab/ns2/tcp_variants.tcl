# Seed 002's TCP cases in ns-2.35, for sctplab's validation (sctplab validate ns2).
# Topology of Fall & Floyd 1996 / test-suite-tcpVariants.tcl (net4), with the seed's
# 0.1 ms access delay: S1 -8Mb,0.1ms- R1 -800Kb,100ms- K1, DropTail, R1 queue limit QLIM.
# Usage: ns tcp_variants.tcl VARIANT "DROPS" QLIM ACCESS_DELAY OUT_TRACE [SYN]
#   VARIANT: Reno | Newreno | Sack1 | Fack;  DROPS: 0-based packet counts on R1->K1.
#   SYN: true to model the SYN exchange (syn_ true; the SYN is packet 0 and the data
#   starts at sequence number 1), false (the default) as Fall & Floyd ran it.
# The trace file gets ns-2's standard trace-all lines for the two links.

set variant [lindex $argv 0]
set drops [lindex $argv 1]
set qlim [lindex $argv 2]
set access_delay [lindex $argv 3]
set outfile [lindex $argv 4]
set syn [expr {$argc > 5 ? [lindex $argv 5] : "false"}]

# Global defaults as in test-suite-tcpVariants.tcl.
Agent/TCP set precisionReduce_ false
Agent/TCP set rtxcur_init_ 6.0
Agent/TCP set updated_rttvar_ false
Agent/TCP set minrto_ 1
Agent/TCP/Newreno set newreno_changes1_ 0
Agent/TCP/Newreno set partial_window_deflation_ 0
Agent/TCP set singledup_ 0
# Fall & Floyd's agents had no SYN packet: data starts at sequence number 0. With SYN
# true, delay_growth_ (true in the golden scenarios) applies to the SYN's ack.
Agent/TCP set syn_ $syn

set ns [new Simulator]
set tf [open $outfile w]
$ns trace-all $tf

set s1 [$ns node]
set r1 [$ns node]
set k1 [$ns node]
$ns duplex-link $s1 $r1 8Mb $access_delay DropTail
$ns duplex-link $r1 $k1 800Kb 100ms DropTail
$ns queue-limit $r1 $k1 $qlim
$ns queue-limit $k1 $r1 $qlim

if {[llength $drops] > 0} {
    set em [new ErrorModel/List]
    $em unit pkt
    $em droplist $drops
    $ns lossmodel $em $r1 $k1
}

if {$variant == "Reno" || $variant == "Newreno"} {
    set sinktype TCPSink
} else {
    set sinktype TCPSink/Sack1
}
set tcp [$ns create-connection TCP/$variant $s1 $sinktype $k1 1]
$tcp set window_ 28
set ftp [$tcp attach-app FTP]
$ns at 1.0 "$ftp start"
$ns at 6.0 "flush-trace-and-exit"
proc flush-trace-and-exit {} {
    global ns tf
    $ns flush-trace
    close $tf
    exit 0
}
$ns run
