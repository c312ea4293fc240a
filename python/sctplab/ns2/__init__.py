"""ns-2.35 scripts shipped with sctplab, used as an independent oracle in validation."""
