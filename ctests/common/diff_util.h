// Helpers shared by the differential test programs (ctests/diff). Everything printed must be
// deterministic: labels, names, sizes, booleans, enum values and float data as hex of the bits.
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ggml.h"
#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-backend-impl.h"
#include "test_backend.h"

// one labelled fact per line
#define DU_B(label, expr) printf("%s %d\n", (label), (expr) ? 1 : 0)
#define DU_I(label, expr) printf("%s %d\n", (label), (int) (expr))
#define DU_Z(label, expr) printf("%s %zu\n", (label), (size_t) (expr))

static inline void DU_S(const char * label, const char * s) {
    printf("%s %s\n", label, s ? s : "(null)");
}

// a context for tensor metadata only (no_alloc), with room for one graph
static inline struct wsp_ggml_context * du_ctx(size_t n_tensors) {
    struct wsp_ggml_init_params p = {
        /* .mem_size   = */ wsp_ggml_tensor_overhead() * n_tensors + wsp_ggml_graph_overhead(),
        /* .mem_buffer = */ NULL,
        /* .no_alloc   = */ true,
    };
    return wsp_ggml_init(p);
}

static inline uint32_t du_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    return u;
}

static inline void du_print_f32(const char * label, const float * v, size_t n) {
    printf("%s", label);
    for (size_t i = 0; i < n; i++) {
        printf(" %08x", du_bits(v[i]));
    }
    printf("\n");
}

static inline void du_print_bytes(const char * label, const void * p, size_t n) {
    printf("%s ", label);
    for (size_t i = 0; i < n; i++) {
        printf("%02x", ((const uint8_t *) p)[i]);
    }
    printf("\n");
}

// all elements of an F32 tensor in logical order (follows nb, so views print correctly), read
// through wsp_ggml_backend_tensor_get
static inline void du_print_tensor(const char * label, const struct wsp_ggml_tensor * t) {
    size_t nbytes = wsp_ggml_nbytes(t);
    uint8_t * raw = (uint8_t *) malloc(nbytes ? nbytes : 1);
    wsp_ggml_backend_tensor_get(t, raw, 0, nbytes);
    printf("%s", label);
    for (int64_t i3 = 0; i3 < t->ne[3]; i3++)
    for (int64_t i2 = 0; i2 < t->ne[2]; i2++)
    for (int64_t i1 = 0; i1 < t->ne[1]; i1++)
    for (int64_t i0 = 0; i0 < t->ne[0]; i0++) {
        float f;
        memcpy(&f, raw + i0*t->nb[0] + i1*t->nb[1] + i2*t->nb[2] + i3*t->nb[3], sizeof(f));
        printf(" %08x", du_bits(f));
    }
    printf("\n");
    free(raw);
}

// fill a contiguous F32 tensor with start, start+step, ... through wsp_ggml_backend_tensor_set
static inline void du_fill(struct wsp_ggml_tensor * t, float start, float step) {
    int64_t n = wsp_ggml_nelements(t);
    float * v = (float *) malloc(sizeof(float) * (size_t) (n ? n : 1));
    for (int64_t i = 0; i < n; i++) {
        v[i] = start + step * (float) i;
    }
    wsp_ggml_backend_tensor_set(t, v, 0, sizeof(float) * (size_t) n);
    free(v);
}

static inline void du_print_guid(const char * label, wsp_ggml_guid_t guid) {
    du_print_bytes(label, *guid, sizeof(*guid));
}

static inline void du_counters(const char * label) {
    test_backend_print_counters(stdout, label);
}

//
// "custom" buffer type with an interface written here: real, directly addressable memory, optional
// callbacks present or absent depending on the flags. Counts init_tensor/reset/free calls.
// init_tensor fails (WSP_GGML_STATUS_FAILED) for tensors named "bad". cpy_tensor is never provided.
//

struct du_custom {
    const char * name;
    bool is_host;       // false: is_host callback absent (defaults to false)
    bool pad;           // true: get_alloc_size = nbytes + 16; false: callback absent
    size_t max_size;    // 0: get_max_size callback absent
    int n_init, n_reset, n_free, n_alloc;
    struct wsp_ggml_backend_buffer_type buft;
};

static inline struct du_custom * du_custom_of(wsp_ggml_backend_buffer_t buffer) {
    return (struct du_custom *) buffer->buft->context;
}

static inline void du_custom_free(wsp_ggml_backend_buffer_t buffer) {
    du_custom_of(buffer)->n_free++;
    free(buffer->context);
}

static inline void * du_custom_get_base(wsp_ggml_backend_buffer_t buffer) {
    return buffer->context;
}

static inline enum wsp_ggml_status du_custom_init_tensor(wsp_ggml_backend_buffer_t buffer, struct wsp_ggml_tensor * tensor) {
    du_custom_of(buffer)->n_init++;
    return strcmp(tensor->name, "bad") == 0 ? WSP_GGML_STATUS_FAILED : WSP_GGML_STATUS_SUCCESS;
}

static inline void du_custom_memset_tensor(wsp_ggml_backend_buffer_t buffer, struct wsp_ggml_tensor * tensor, uint8_t value, size_t offset, size_t size) {
    (void) buffer;
    memset((char *) tensor->data + offset, value, size);
}

static inline void du_custom_set_tensor(wsp_ggml_backend_buffer_t buffer, struct wsp_ggml_tensor * tensor, const void * data, size_t offset, size_t size) {
    (void) buffer;
    memcpy((char *) tensor->data + offset, data, size);
}

static inline void du_custom_get_tensor(wsp_ggml_backend_buffer_t buffer, const struct wsp_ggml_tensor * tensor, void * data, size_t offset, size_t size) {
    (void) buffer;
    memcpy(data, (const char *) tensor->data + offset, size);
}

static inline void du_custom_clear(wsp_ggml_backend_buffer_t buffer, uint8_t value) {
    memset(buffer->context, value, buffer->size);
}

static inline void du_custom_reset(wsp_ggml_backend_buffer_t buffer) {
    du_custom_of(buffer)->n_reset++;
}

static inline struct wsp_ggml_backend_buffer_i du_custom_buffer_iface(void) {
    struct wsp_ggml_backend_buffer_i i;
    memset(&i, 0, sizeof(i));
    i.free_buffer   = du_custom_free;
    i.get_base      = du_custom_get_base;
    i.init_tensor   = du_custom_init_tensor;
    i.memset_tensor = du_custom_memset_tensor;
    i.set_tensor    = du_custom_set_tensor;
    i.get_tensor    = du_custom_get_tensor;
    i.cpy_tensor    = NULL;
    i.clear         = du_custom_clear;
    i.reset         = du_custom_reset;
    return i;
}

static inline const char * du_custom_buft_name(wsp_ggml_backend_buffer_type_t buft) {
    return ((struct du_custom *) buft->context)->name;
}

static inline wsp_ggml_backend_buffer_t du_custom_alloc(wsp_ggml_backend_buffer_type_t buft, size_t size) {
    void * mem = aligned_alloc(32, (size + 31) / 32 * 32);
    ((struct du_custom *) buft->context)->n_alloc++;
    return wsp_ggml_backend_buffer_init(buft, du_custom_buffer_iface(), mem, size);
}

static inline size_t du_custom_alignment(wsp_ggml_backend_buffer_type_t buft) { (void) buft; return 32; }
static inline bool   du_custom_is_host(wsp_ggml_backend_buffer_type_t buft)   { (void) buft; return true; }

static inline size_t du_custom_max_size(wsp_ggml_backend_buffer_type_t buft) {
    return ((struct du_custom *) buft->context)->max_size;
}

static inline size_t du_custom_alloc_size(wsp_ggml_backend_buffer_type_t buft, const struct wsp_ggml_tensor * t) {
    (void) buft;
    return wsp_ggml_nbytes(t) + 16;
}

static inline wsp_ggml_backend_buffer_type_t du_custom_init(struct du_custom * c, const char * name, bool is_host, bool pad, size_t max_size) {
    memset(c, 0, sizeof(*c));
    c->name     = name;
    c->is_host  = is_host;
    c->pad      = pad;
    c->max_size = max_size;
    c->buft.iface.get_name       = du_custom_buft_name;
    c->buft.iface.alloc_buffer   = du_custom_alloc;
    c->buft.iface.get_alignment  = du_custom_alignment;
    c->buft.iface.get_max_size   = max_size ? du_custom_max_size : NULL;
    c->buft.iface.get_alloc_size = pad ? du_custom_alloc_size : NULL;
    c->buft.iface.is_host        = is_host ? du_custom_is_host : NULL;
    c->buft.device  = NULL;
    c->buft.context = c;
    return &c->buft;
}
