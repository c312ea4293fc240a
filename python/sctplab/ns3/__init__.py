"""ns-3.37 programs shipped with sctplab (C++ sources, compiled at validation time against
Debian's libns3-dev), used as an independent oracle by `sctplab validate ns3`."""
