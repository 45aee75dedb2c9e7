// abi_prototypes.cpp - the type of every function of the backend layer, as a C++ compiler sees
// it after all typedefs: one line "<function> <mangled function type>" per function named in
// ABI_FUNCTIONS (a file of F(name) lines, made from a release's symbol list).
//
// Built against a whisper.rn release's headers and against the library's generated header:
// equal output means equal return and parameter types, in order (parameter names do not count).
// decltype does not use the functions, so nothing is linked.

#ifdef ABI_USE_LIBRARY_HEADER
#include "wsp_ggml_backend.h"
#else
#include "ggml-backend-impl.h"
#endif

#include <cstdio>
#include <typeinfo>

int main() {
#define F(function) std::printf("%s %s\n", #function, typeid(decltype(function)).name());
#include ABI_FUNCTIONS
#undef F
    return 0;
}
