// "ACCEL": a host-memory accelerator for end-to-end tests and benchmarks, shaped like the
// integrated GPUs whisper.rn's users offload to (Metal on iOS, OpenCL/Vulkan on Android).
//
// One reg ("ACCEL") with one device ("ACCEL", type GPU) whose buffer type ("ACCEL") lives in
// host memory (is_host: the CPU backend reads and writes its tensors in place, as it does
// unified memory). The device supports a configurable subset of ggml's ops, so that a real
// model's graphs split between it and the CPU; it computes its splits itself by handing each of
// them to a private CPU backend of whisper.rn, so results are the CPU's, bit for bit.
//
// Registered through wsp_ggml_backend_register(accel_fixture_reg()), it is what whisper.cpp
// finds when it enumerates the registry for a GPU device (use_gpu): whisper then puts its
// weights and KV cache in ACCEL buffers and schedules {ACCEL, CPU}.
//
// supports_op(op) is true when
//   - op is NONE or a view (RESHAPE, VIEW, PERMUTE, TRANSPOSE), as on every real device, or
//     op->op is in the configured set, and
//   - every tensor involved has a type the device handles: F32, F16 or I32 (indices), and for
//     the weight of MUL_MAT and GET_ROWS (src[0]) also Q4_0, Q4_1, Q5_0, Q5_1 and Q8_0 (no
//     k-quants), and
//   - a CPY reads a source whose elements along dim 0 are adjacent (not a transposed view,
//     such as whisper's V cache update), and
//   - the private CPU backend can compute it (the CPU device's supports_op).
// So the answer depends on types and strides, not only on the op.
// offload_op(op) is true for a MUL_MAT or GET_ROWS over at least 32 rows (a batch worth moving
// weights for, as GPU backends decide).
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "ggml.h"
#include "ggml-backend.h"

#ifdef __cplusplus
extern "C" {
#endif

wsp_ggml_backend_reg_t         accel_fixture_reg(void);
wsp_ggml_backend_dev_t         accel_fixture_dev(void);
wsp_ggml_backend_buffer_type_t accel_fixture_buffer_type(void);

// Sets the ops the device supports from a preset or a comma-separated list of ggml op names
// (as wsp_ggml_op_name prints them, e.g. "MUL_MAT,ADD,SOFT_MAX"). Presets:
//   few         MUL_MAT
//   default     MUL_MAT, ADD, MUL, SCALE, SOFT_MAX, CPY, GET_ROWS
//   almost-all  every op but NORM (layer norms stay on the CPU)
// Returns false, with a message in err, for an unknown name or an empty list (the set is then
// unchanged). Before any call the set is "default".
bool accel_fixture_set_ops(const char * spec, char * err, size_t err_size);

struct accel_fixture_counters {
    long backends_init, backends_free;
    long buffers_alloc, buffers_free;
    long graph_computes;  // splits handed to the private CPU backend
    long nodes_computed;  // their nodes (views and NONE included)
    long supports_op, offload_op;  // calls answered
};

void accel_fixture_counters(struct accel_fixture_counters * out);

#ifdef __cplusplus
}
#endif
