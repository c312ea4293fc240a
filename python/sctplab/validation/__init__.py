"""Validation of sctplab against other simulators, one module per family of rows.

`check` (a row and what a validation wrote) is the leaf every family builds on;
`seed002`, `snoop`, `multihoming`, `wireless` and `cell` hold the ns-2.35 rows, `pool`
the process pool they run on, and `ns2` the `sctplab validate ns2` command that runs
them in order. The ns-2 scripts and their runner sit in `sctplab.ns2`.
"""
