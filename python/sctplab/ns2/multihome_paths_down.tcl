# The dual-homed network of multihome.tcl (scenarios/example-multihoming.toml) with a
# fault schedule for each network, for sctplab's checks of the `ns2` preset when paths
# fail: every destination down (Agent/SCTP's dormant state) and SCTP-PF (ns-2.35 has it
# only in Agent/SCTP/CMT, as CMT-PF).
#   h1_if0 -10Mb,25ms- ra -10Mb,25ms- h2_if0     network A (primary)
#   h1_if1 -10Mb,50ms- rb -10Mb,50ms- h2_if1     network B
# The link ra - h2_if0 goes down at DOWN_A and up at UP_A, rb - h2_if1 at DOWN_B and
# UP_B (a time past END: never). PMR is the sender's pathMaxRetrans_. CMT_PF 1 makes
# both agents Agent/SCTP/CMT with useCmtPF_ 1 (concurrent transfer over both paths,
# CMT-PF's potentially-failed state); 0 keeps Agent/SCTP. Agent defaults otherwise.
# Usage:
#   ns multihome_paths_down.tcl START DOWN_A UP_A DOWN_B UP_B PMR CMT_PF END OUT_TRACE
# Node numbers in the trace: 0 h1, 1 h1_if0, 2 h1_if1, 3 h2, 4 h2_if0, 5 h2_if1,
# 6 ra, 7 rb.

set start [lindex $argv 0]
set down_a [lindex $argv 1]
set up_a [lindex $argv 2]
set down_b [lindex $argv 3]
set up_b [lindex $argv 4]
set pmr [lindex $argv 5]
set cmt_pf [lindex $argv 6]
set end [lindex $argv 7]
set outfile [lindex $argv 8]

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

if {$cmt_pf} {
    set snd [new Agent/SCTP/CMT]
    $snd set useCmtPF_ 1
    set rcv [new Agent/SCTP/CMT]
} else {
    set snd [new Agent/SCTP]
    set rcv [new Agent/SCTP]
}
$snd set pathMaxRetrans_ $pmr
$ns multihome-attach-agent $h1 $snd
$ns multihome-attach-agent $h2 $rcv
$ns connect $snd $rcv
$snd set-primary-destination $h2_if0

set ftp [new Application/FTP]
$ftp attach-agent $snd

foreach {t what link_a link_b} [list $down_a down $ra $h2_if0 $up_a up $ra $h2_if0 \
                                    $down_b down $rb $h2_if1 $up_b up $rb $h2_if1] {
    if {$t < $end} {
        $ns rtmodel-at $t $what $link_a $link_b
    }
}

$ns at $start "$ftp start"
$ns at $end "flush-trace-and-exit"
proc flush-trace-and-exit {} {
    global ns tf
    $ns flush-trace
    close $tf
    exit 0
}
$ns run
