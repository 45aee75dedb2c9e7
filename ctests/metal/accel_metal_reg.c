// whisper.rn 0.4.3's Metal backend is Objective-C only (ggml-metal.m): nothing of it builds on Linux.
// Its backend layer built with WSP_GGML_USE_METAL (and the library built with the `metal` feature)
// registers wsp_ggml_backend_metal_reg() before the CPU; here that reg is the ACCEL fixture
// (ctests/fixtures/accel_fixture.h): a GPU device in host memory that computes its default op set
// on a private CPU backend. So the registry and whisper's split graphs of an iOS build can be
// compared between the layers on Linux.
#include "ggml-metal.h"

#include "accel_fixture.h"

wsp_ggml_backend_reg_t wsp_ggml_backend_metal_reg(void) { return accel_fixture_reg(); }
