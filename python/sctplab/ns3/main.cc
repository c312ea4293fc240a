// sctplab's ns-3.37 programs as one binary, so `sctplab validate ns3` parses ns-3's
// headers once (most of the compile time): `sctplab-ns3 dumbbell ARGS` (dumbbell.cc)
// or `sctplab-ns3 aqm ARGS` (aqm_dumbbell.cc). Each program's header says its arguments
// and its JSON output.
#include "aqm_dumbbell.cc"
#include "dumbbell.cc"

#include <cstring>

int
main(int argc, char* argv[])
{
    if (argc >= 2 && (std::strcmp(argv[1], "dumbbell") == 0 || std::strcmp(argv[1], "aqm") == 0))
    {
        const bool aqm = std::strcmp(argv[1], "aqm") == 0;
        argv[1] = argv[0]; // the program's CommandLine sees its own name first
        return aqm ? RunAqmDumbbell(argc - 1, argv + 1) : RunDumbbell(argc - 1, argv + 1);
    }
    std::cerr << "sctplab-ns3: expected a program, dumbbell or aqm, then its --arguments\n";
    return 2;
}
