# The ns-2.35 mobile-node set-up shared by sctplab's wireless validation scripts
# (manet.tcl, wireless_chain.tcl, saturated_cell.tcl source this file from their own
# folder). IEEE 802.11 at 2 Mb/s for data and basic rate, two-ray ground, omni antennas,
# Queue/DropTail/PriQueue of 50, LL with ARP; every other value is ns-2.35's default.
#
#   wireless_setup SEED TRACE WIDTH HEIGHT NN ROUTING [RTR]
# seeds ns-2's default generator with SEED (> 0), creates the simulator ($ns_), the
# trace, a WIDTH x HEIGHT m flat grid ($topo), God for NN nodes ($god_), one channel and
# the node configuration with ROUTING as the ad hoc routing agent (AODV, DSDV,
# DumbAgent). TRACE is a file for agent-level lines (AGT) and drops, or "-" for none;
# RTR 1 adds the routing-level lines (default 0).
#   wireless_nodes NN
# then creates $node_(0) .. $node_(NN - 1), with no random motion.
#
# Class defaults a script changes (RTSThreshold_, CPThresh_ ...) must be set before
# wireless_nodes, which creates the MACs and PHYs that read them.

proc wireless_setup {seed tracefile width height nn routing {rtr 0}} {
    global defaultRNG ns_ tf topo god_ chan
    $defaultRNG seed $seed

    Mac/802_11 set dataRate_ 2Mb
    Mac/802_11 set basicRate_ 2Mb

    set ns_ [new Simulator]
    # A mobile node needs a trace file for its drop target, so "no trace" writes the (few)
    # drop lines to /dev/null with every trace level off.
    set traced [expr {$tracefile ne "-"}]
    set tf [open [expr {$traced ? $tracefile : "/dev/null"}] w]
    $ns_ trace-all $tf

    set topo [new Topography]
    $topo load_flatgrid $width $height
    # Movement files (setdest) refer to $god_.
    set god_ [create-god $nn]

    set chan [new Channel/WirelessChannel]
    $ns_ node-config -adhocRouting $routing \
        -llType LL \
        -macType Mac/802_11 \
        -ifqType Queue/DropTail/PriQueue \
        -ifqLen 50 \
        -antType Antenna/OmniAntenna \
        -propType Propagation/TwoRayGround \
        -phyType Phy/WirelessPhy \
        -channel $chan \
        -topoInstance $topo \
        -agentTrace [expr {$traced ? "ON" : "OFF"}] \
        -routerTrace [expr {$traced && $rtr ? "ON" : "OFF"}] \
        -macTrace OFF \
        -movementTrace OFF
}

proc wireless_nodes {nn} {
    global ns_ node_
    for {set i 0} {$i < $nn} {incr i} {
        set node_($i) [$ns_ node]
        $node_($i) random-motion 0
    }
}
