// two_copies: two packages' native libraries in one process, each holding its own copy of this
// library built for its package's prefix, as an app holding whisper.rn (wsp_) and llama.rn 0.13
// (plain ggml names) does. Each side is an example built as a shared library with -Bsymbolic
// (examples/CMakeLists.txt, wsp_example_side); this program links both, so both are loaded from
// the start and every symbol they have in common (the Rust runtime, the test fixtures' names) is
// defined twice in the process. Each side must keep to its own copy: its registry, scheduler and
// statics.
//
//   two_copies <first side's arguments...> -- <second side's arguments...>
//
// runs the first side's example, the second's, then the first's again: stdout must be what the
// three examples print when each runs alone (ctests/two_copies/run.cmake).
#include <cstdio>
#include <cstring>
#include <vector>

int FIRST_ENTRY(int argc, char ** argv);
int SECOND_ENTRY(int argc, char ** argv);

int main(int argc, char ** argv) {
    std::vector<char *> first{ argv[0] }, second{ argv[0] };
    std::vector<char *> * side = &first;
    for (int i = 1; i < argc; i++) {
        if (std::strcmp(argv[i], "--") == 0 && side == &first) {
            side = &second;
        } else {
            side->push_back(argv[i]);
        }
    }
    if (side != &second) {
        std::fprintf(stderr, "usage: %s <first side's arguments...> -- <second side's arguments...>\n", argv[0]);
        return 2;
    }
    first.push_back(nullptr);
    second.push_back(nullptr);
    const int first_argc = int(first.size()) - 1, second_argc = int(second.size()) - 1;
    // (each entry may rearrange its argv, as main may: each run gets a fresh copy)
    std::vector<char *> run = first;
    if (FIRST_ENTRY(first_argc, run.data()) != 0) {
        return 1;
    }
    std::fflush(stdout);
    run = second;
    if (SECOND_ENTRY(second_argc, run.data()) != 0) {
        return 1;
    }
    std::fflush(stdout);
    run = first;
    return FIRST_ENTRY(first_argc, run.data()) != 0 ? 1 : 0;
}
