// "TEST": a second, non-host backend used by the C test programs.
//
// One reg ("TEST") with one device ("TEST", type GPU), a backend named "TEST" and a buffer type "TEST"
// whose buffers are not addressable by callers: wsp_ggml_backend_buffer_get_base() returns a fake
// address that must never be dereferenced, and all data access goes through the buffer interface,
// which maps tensor->data onto a private malloc'ed block. This makes every copy between TEST and
// the CPU backend visible, and any code that touches tensor->data of a TEST tensor directly crashes.
//
// The set of ops the device claims to support, the ops it wants offloaded, and whether the backend
// exposes the (synchronous) async interface are configurable; calls are counted so that tests can
// print how often the scheduler recorded/waited on events, synchronized, copied, etc.
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ggml.h"
#include "ggml-backend.h"
#include "ggml-backend-impl.h"

#ifdef __cplusplus
extern "C" {
#endif

// Fixed properties
#define TEST_BACKEND_ALIGNMENT  64
#if UINTPTR_MAX > 0xFFFFFFFFu
#define TEST_BACKEND_MAX_SIZE   ((size_t) 1 << 30)
#else
#define TEST_BACKEND_MAX_SIZE   ((size_t) 1 << 24)  // a 32-bit address space holds few such ranges
#endif
#define TEST_BACKEND_MEMORY     ((size_t) 1 << 30)

wsp_ggml_backend_reg_t         test_backend_reg(void);          // the "TEST" reg (not registered by itself)
wsp_ggml_backend_dev_t         test_backend_dev(void);          // its only device
wsp_ggml_backend_buffer_type_t test_backend_buffer_type(void);  // the "TEST" buffer type
wsp_ggml_backend_t             test_backend_init(void);         // = wsp_ggml_backend_dev_init(test_backend_dev(), NULL)
void                           test_backend_register(void);     // wsp_ggml_backend_register(test_backend_reg()), once

bool test_backend_is_test(wsp_ggml_backend_t backend);
bool test_backend_buffer_is_test(wsp_ggml_backend_buffer_t buffer);

// Replace the set of ops that supports_op accepts (in addition to its type/location rules: the op and all
// sources are F32, compute ops produce a contiguous tensor, sources live in TEST buffers or are unallocated,
// or in host buffers if test_backend_set_accept_host_srcs(true)). View ops and NONE are only supported if
// listed. Ops that graph_compute cannot do (anything but NONE, ADD, SUB, MUL, DIV, SCALE, SQR, MUL_MAT (F32)
// and the view ops) may be listed to steer a scheduler; computing them then fails with WSP_GGML_STATUS_FAILED.
// Default: NONE, ADD, MUL, SUB, SCALE, SQR, RESHAPE, VIEW, PERMUTE, TRANSPOSE.
void test_backend_set_supported_ops(const enum wsp_ggml_op * ops, int n_ops);
// Replace the set of ops for which offload_op returns true. Default: none.
void test_backend_set_offload_ops(const enum wsp_ggml_op * ops, int n_ops);
// Whether supports_op accepts sources residing in host buffers (needed for op offloading). Default: false.
void test_backend_set_accept_host_srcs(bool accept);
// Whether backends created from now on provide set_tensor_async/get_tensor_async/cpy_tensor_async
// (performed synchronously; cpy only TEST -> TEST). synchronize is always provided. Default: true.
void test_backend_set_async_iface(bool enable);
// Whether the TEST buffer type's alloc_buffer fails (returns NULL) for every request. Default: false.
void test_backend_set_fail_alloc(bool fail);
// A function graph_compute calls first, with the graph it was given (as a backend that calls
// back into the scheduler would). Default: none.
void test_backend_set_compute_hook(void (*hook)(struct wsp_ggml_cgraph * cgraph, void * user_data), void * user_data);
// Restore all of the above defaults.
void test_backend_reset_config(void);

struct test_backend_counters {
    int backends_init,  backends_free;
    int buffers_alloc,  buffers_free;
    int graph_computes, nodes_computed;
    int synchronize;
    int set_async, get_async, cpy_async;   // calls of the async interface (cpy_async: successful ones)
    int buffer_cpy;                         // successful buffer cpy_tensor calls
    int event_new, event_free, event_record, event_wait, event_sync;
};

void test_backend_counters(struct test_backend_counters * out);
void test_backend_reset_counters(void);
// One line: "<label> backends=I/F buffers=A/F computes=N nodes=N sync=N set_async=N get_async=N
// cpy_async=N buffer_cpy=N events=N/F record=N wait=N sync=N"
void test_backend_print_counters(FILE * f, const char * label);

// Backend API 2 (whisper.rn 0.5): the backend's graph_optimize, which the scheduler calls on each
// split it plans. Every call is recorded (test_backend_reset_counters clears the record) with the
// split's node names as they were when it came in. With swap on, it reorders the split the way an
// optimizing backend may: it exchanges the first two nodes when neither reads the other. Default: off.
void test_backend_set_optimize_swap(bool swap);
int  test_backend_graph_optimize_calls(void);
// One line per recorded call: "<label> graph_optimize <i> n_nodes=N nodes=<name>,<name>,..."
void test_backend_print_graph_optimize(FILE * f, const char * label);

#ifdef WSP_GGML_BACKEND_META_MAX_DEVICES
// whisper.rn 0.7: 2d tensor access. With the 2d interface on, TEST buffers allocated from now on
// have set_tensor_2d/get_tensor_2d, and TEST backends created from now on with the async interface
// have set_tensor_2d_async/get_tensor_2d_async. Every call is recorded (cleared with the counters).
// Default: off. Also the uid of the last graph a TEST backend computed.
void     test_backend_set_2d_iface(bool enable);
// One line per recorded call: "<label> 2d <i> <buffer set|buffer get|backend set_async|backend
// get_async> offset=N size=N n_copies=N stride_tensor=N stride_data=N"
void     test_backend_print_2d(FILE * f, const char * label);
uint64_t test_backend_last_graph_uid(void);
#endif

#ifdef __cplusplus
}
#endif
