/*
 * abi_layout.c - ABI parity report for the backend layer.
 *
 * Prints the size, alignment and field offsets of every struct declared by
 * ggml-backend.h / ggml-backend-impl.h, of the ggml core structs the backend
 * layer reads or writes (tensor, cgraph, hash set, init params, tallocr),
 * the values of the enums the layer depends on, the sizes of those enum
 * types and a handful of constants. One fact per line:
 *
 *   size   <type> <sizeof>
 *   align  <type> <alignof>
 *   offset <type>.<field> <offsetof>
 *   enum   <CONSTANT> <value>
 *   define <MACRO> <value>
 *
 * Built twice: against whisper.rn's own headers (default) and, with
 * -DABI_USE_LIBRARY_HEADER, against the library's generated wsp_ggml_backend.h.
 * The two outputs must be identical; only the include lines below differ.
 */

#ifdef ABI_USE_LIBRARY_HEADER
#ifdef GGML_LIBRARY_HEADER /* another package's header (scripts/release/prefix-map.sh names it) */
#include GGML_LIBRARY_HEADER
#else
#include "wsp_ggml_backend.h"
#endif
#else
#include "ggml-backend-impl.h"
#endif

/* ggml-impl.h has static helpers this file does not use */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "ggml-impl.h"
#pragma GCC diagnostic pop

#include <stddef.h>
#include <stdio.h>

static unsigned n_structs, n_fields, n_enums;

/* a struct: its size and alignment */
#define STRUCT(T)                                                              \
    do {                                                                       \
        printf("size %s %zu\n", #T, sizeof(struct T));                         \
        printf("align %s %zu\n", #T, _Alignof(struct T));                      \
        n_structs++;                                                           \
    } while (0)

/* one field of a struct (for arrays: where the array starts) */
#define FIELD(T, f)                                                            \
    do {                                                                       \
        printf("offset %s.%s %zu\n", #T, #f, offsetof(struct T, f));           \
        n_fields++;                                                            \
    } while (0)

/* a non-struct type (enum or typedef): size and alignment */
#define TYPE(name, T)                                                          \
    do {                                                                       \
        printf("size %s %zu\n", name, sizeof(T));                              \
        printf("align %s %zu\n", name, _Alignof(T));                           \
    } while (0)

#define ENUM(c)                                                                \
    do {                                                                       \
        printf("enum %s %lld\n", #c, (long long)(c));                          \
        n_enums++;                                                             \
    } while (0)

#define DEFINE(name, value) printf("define %s %lld\n", name, (long long)(value))
#define UNDEFINED(name)     printf("define %s undefined\n", name)

int main(void) {
    /* ---- ggml-backend-impl.h ---- */

    STRUCT(wsp_ggml_backend_buffer_type_i);
    FIELD(wsp_ggml_backend_buffer_type_i, get_name);
    FIELD(wsp_ggml_backend_buffer_type_i, alloc_buffer);
    FIELD(wsp_ggml_backend_buffer_type_i, get_alignment);
    FIELD(wsp_ggml_backend_buffer_type_i, get_max_size);
    FIELD(wsp_ggml_backend_buffer_type_i, get_alloc_size);
    FIELD(wsp_ggml_backend_buffer_type_i, is_host);

    STRUCT(wsp_ggml_backend_buffer_type);
    FIELD(wsp_ggml_backend_buffer_type, iface);
    FIELD(wsp_ggml_backend_buffer_type, device);
    FIELD(wsp_ggml_backend_buffer_type, context);

    STRUCT(wsp_ggml_backend_buffer_i);
    FIELD(wsp_ggml_backend_buffer_i, free_buffer);
    FIELD(wsp_ggml_backend_buffer_i, get_base);
    FIELD(wsp_ggml_backend_buffer_i, init_tensor);
    FIELD(wsp_ggml_backend_buffer_i, memset_tensor);
    FIELD(wsp_ggml_backend_buffer_i, set_tensor);
    FIELD(wsp_ggml_backend_buffer_i, get_tensor);
#ifdef WSP_GGML_BACKEND_META_MAX_DEVICES /* whisper.rn 0.7 */
    FIELD(wsp_ggml_backend_buffer_i, set_tensor_2d);
    FIELD(wsp_ggml_backend_buffer_i, get_tensor_2d);
#endif
    FIELD(wsp_ggml_backend_buffer_i, cpy_tensor);
    FIELD(wsp_ggml_backend_buffer_i, clear);
    FIELD(wsp_ggml_backend_buffer_i, reset);

    STRUCT(wsp_ggml_backend_buffer);
    FIELD(wsp_ggml_backend_buffer, iface);
    FIELD(wsp_ggml_backend_buffer, buft);
    FIELD(wsp_ggml_backend_buffer, context);
    FIELD(wsp_ggml_backend_buffer, size);
    FIELD(wsp_ggml_backend_buffer, usage);

    STRUCT(wsp_ggml_backend_i);
    FIELD(wsp_ggml_backend_i, get_name);
    FIELD(wsp_ggml_backend_i, free);
    FIELD(wsp_ggml_backend_i, set_tensor_async);
    FIELD(wsp_ggml_backend_i, get_tensor_async);
#ifdef WSP_GGML_BACKEND_META_MAX_DEVICES
    FIELD(wsp_ggml_backend_i, set_tensor_2d_async);
    FIELD(wsp_ggml_backend_i, get_tensor_2d_async);
#endif
    FIELD(wsp_ggml_backend_i, cpy_tensor_async);
    FIELD(wsp_ggml_backend_i, synchronize);
    FIELD(wsp_ggml_backend_i, graph_plan_create);
    FIELD(wsp_ggml_backend_i, graph_plan_free);
    FIELD(wsp_ggml_backend_i, graph_plan_update);
    FIELD(wsp_ggml_backend_i, graph_plan_compute);
    FIELD(wsp_ggml_backend_i, graph_compute);
    FIELD(wsp_ggml_backend_i, event_record);
    FIELD(wsp_ggml_backend_i, event_wait);
#if WSP_GGML_BACKEND_API_VERSION >= 2
    FIELD(wsp_ggml_backend_i, graph_optimize);
#endif

    STRUCT(wsp_ggml_backend);
    FIELD(wsp_ggml_backend, guid);
    FIELD(wsp_ggml_backend, iface);
    FIELD(wsp_ggml_backend, device);
    FIELD(wsp_ggml_backend, context);

    STRUCT(wsp_ggml_backend_event);
    FIELD(wsp_ggml_backend_event, device);
    FIELD(wsp_ggml_backend_event, context);

    STRUCT(wsp_ggml_backend_device_i);
    FIELD(wsp_ggml_backend_device_i, get_name);
    FIELD(wsp_ggml_backend_device_i, get_description);
    FIELD(wsp_ggml_backend_device_i, get_memory);
    FIELD(wsp_ggml_backend_device_i, get_type);
    FIELD(wsp_ggml_backend_device_i, get_props);
    FIELD(wsp_ggml_backend_device_i, init_backend);
    FIELD(wsp_ggml_backend_device_i, get_buffer_type);
    FIELD(wsp_ggml_backend_device_i, get_host_buffer_type);
    FIELD(wsp_ggml_backend_device_i, buffer_from_host_ptr);
    FIELD(wsp_ggml_backend_device_i, supports_op);
    FIELD(wsp_ggml_backend_device_i, supports_buft);
    FIELD(wsp_ggml_backend_device_i, offload_op);
    FIELD(wsp_ggml_backend_device_i, event_new);
    FIELD(wsp_ggml_backend_device_i, event_free);
    FIELD(wsp_ggml_backend_device_i, event_synchronize);

    STRUCT(wsp_ggml_backend_device);
    FIELD(wsp_ggml_backend_device, iface);
    FIELD(wsp_ggml_backend_device, reg);
    FIELD(wsp_ggml_backend_device, context);

    STRUCT(wsp_ggml_backend_reg_i);
    FIELD(wsp_ggml_backend_reg_i, get_name);
    FIELD(wsp_ggml_backend_reg_i, get_device_count);
    FIELD(wsp_ggml_backend_reg_i, get_device);
    FIELD(wsp_ggml_backend_reg_i, get_proc_address);

    STRUCT(wsp_ggml_backend_reg);
    FIELD(wsp_ggml_backend_reg, api_version);
    FIELD(wsp_ggml_backend_reg, iface);
    FIELD(wsp_ggml_backend_reg, context);

    /* ---- ggml-backend.h ---- */

    STRUCT(wsp_ggml_backend_dev_caps);
    FIELD(wsp_ggml_backend_dev_caps, async);
    FIELD(wsp_ggml_backend_dev_caps, host_buffer);
    FIELD(wsp_ggml_backend_dev_caps, buffer_from_host_ptr);
    FIELD(wsp_ggml_backend_dev_caps, events);
#ifdef WSP_GGML_BACKEND_MMAP_SUPPORT /* the build's capability: whisper.rn 0.7 */
    FIELD(wsp_ggml_backend_dev_caps, mmap_support);
#endif

    STRUCT(wsp_ggml_backend_dev_props);
    FIELD(wsp_ggml_backend_dev_props, name);
    FIELD(wsp_ggml_backend_dev_props, description);
    FIELD(wsp_ggml_backend_dev_props, memory_free);
    FIELD(wsp_ggml_backend_dev_props, memory_total);
    FIELD(wsp_ggml_backend_dev_props, type);
#if WSP_GGML_BACKEND_API_VERSION >= 2
    FIELD(wsp_ggml_backend_dev_props, device_id);
#endif
    FIELD(wsp_ggml_backend_dev_props, caps);

    STRUCT(wsp_ggml_backend_feature);
    FIELD(wsp_ggml_backend_feature, name);
    FIELD(wsp_ggml_backend_feature, value);

    STRUCT(wsp_ggml_backend_graph_copy);
    FIELD(wsp_ggml_backend_graph_copy, buffer);
    FIELD(wsp_ggml_backend_graph_copy, ctx_allocated);
    FIELD(wsp_ggml_backend_graph_copy, ctx_unallocated);
    FIELD(wsp_ggml_backend_graph_copy, graph);

    /* ---- ggml core structs the layer reads/writes ---- */

    STRUCT(wsp_ggml_tensor);
    FIELD(wsp_ggml_tensor, type);
    FIELD(wsp_ggml_tensor, buffer);
    FIELD(wsp_ggml_tensor, ne);
    FIELD(wsp_ggml_tensor, nb);
    FIELD(wsp_ggml_tensor, op);
    FIELD(wsp_ggml_tensor, op_params);
    FIELD(wsp_ggml_tensor, flags);
    FIELD(wsp_ggml_tensor, src);
    FIELD(wsp_ggml_tensor, view_src);
    FIELD(wsp_ggml_tensor, view_offs);
    FIELD(wsp_ggml_tensor, data);
    FIELD(wsp_ggml_tensor, name);
    FIELD(wsp_ggml_tensor, extra);
    FIELD(wsp_ggml_tensor, padding);

    STRUCT(wsp_ggml_hash_set);
    FIELD(wsp_ggml_hash_set, size);
    FIELD(wsp_ggml_hash_set, used);
    FIELD(wsp_ggml_hash_set, keys);

    STRUCT(wsp_ggml_cgraph);
    FIELD(wsp_ggml_cgraph, size);
    FIELD(wsp_ggml_cgraph, n_nodes);
    FIELD(wsp_ggml_cgraph, n_leafs);
    FIELD(wsp_ggml_cgraph, nodes);
    FIELD(wsp_ggml_cgraph, grads);
    FIELD(wsp_ggml_cgraph, grad_accs);
    FIELD(wsp_ggml_cgraph, leafs);
    FIELD(wsp_ggml_cgraph, use_counts);
    FIELD(wsp_ggml_cgraph, visited_hash_set);
    FIELD(wsp_ggml_cgraph, order);
#ifdef WSP_GGML_BACKEND_META_MAX_DEVICES
    FIELD(wsp_ggml_cgraph, uid);
#endif

    STRUCT(wsp_ggml_init_params);
    FIELD(wsp_ggml_init_params, mem_size);
    FIELD(wsp_ggml_init_params, mem_buffer);
    FIELD(wsp_ggml_init_params, no_alloc);

    STRUCT(wsp_ggml_tallocr);
    FIELD(wsp_ggml_tallocr, buffer);
    FIELD(wsp_ggml_tallocr, base);
    FIELD(wsp_ggml_tallocr, alignment);
    FIELD(wsp_ggml_tallocr, offset);

    /* ---- enum types and their values ---- */

    TYPE("wsp_ggml_backend_buffer_usage", enum wsp_ggml_backend_buffer_usage);
    ENUM(WSP_GGML_BACKEND_BUFFER_USAGE_ANY);
    ENUM(WSP_GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
    ENUM(WSP_GGML_BACKEND_BUFFER_USAGE_COMPUTE);

    TYPE("wsp_ggml_backend_dev_type", enum wsp_ggml_backend_dev_type);
    ENUM(WSP_GGML_BACKEND_DEVICE_TYPE_CPU);
    ENUM(WSP_GGML_BACKEND_DEVICE_TYPE_GPU);
#if WSP_GGML_BACKEND_API_VERSION >= 2
    ENUM(WSP_GGML_BACKEND_DEVICE_TYPE_IGPU);
#endif
    ENUM(WSP_GGML_BACKEND_DEVICE_TYPE_ACCEL);
#ifdef WSP_GGML_BACKEND_META_MAX_DEVICES
    ENUM(WSP_GGML_BACKEND_DEVICE_TYPE_META);
#endif

    TYPE("wsp_ggml_status", enum wsp_ggml_status);
    ENUM(WSP_GGML_STATUS_ALLOC_FAILED);
    ENUM(WSP_GGML_STATUS_FAILED);
    ENUM(WSP_GGML_STATUS_SUCCESS);
    ENUM(WSP_GGML_STATUS_ABORTED);

    TYPE("wsp_ggml_log_level", enum wsp_ggml_log_level);
    ENUM(WSP_GGML_LOG_LEVEL_NONE);
    ENUM(WSP_GGML_LOG_LEVEL_DEBUG);
    ENUM(WSP_GGML_LOG_LEVEL_INFO);
    ENUM(WSP_GGML_LOG_LEVEL_WARN);
    ENUM(WSP_GGML_LOG_LEVEL_ERROR);
    ENUM(WSP_GGML_LOG_LEVEL_CONT);

    TYPE("wsp_ggml_tensor_flag", enum wsp_ggml_tensor_flag);
    ENUM(WSP_GGML_TENSOR_FLAG_INPUT);
    ENUM(WSP_GGML_TENSOR_FLAG_OUTPUT);
    ENUM(WSP_GGML_TENSOR_FLAG_PARAM);
    ENUM(WSP_GGML_TENSOR_FLAG_LOSS);
#ifdef WSP_GGML_BACKEND_META_MAX_DEVICES
    ENUM(WSP_GGML_TENSOR_FLAG_COMPUTE);

    /* the meta backend (whisper.rn 0.6 and 0.7) */
    STRUCT(wsp_ggml_backend_meta_split_state);
    FIELD(wsp_ggml_backend_meta_split_state, axis);
    FIELD(wsp_ggml_backend_meta_split_state, ne);
#ifdef WSP_GGML_BACKEND_META_NR /* the build's capability: whisper.rn 0.7 */
    FIELD(wsp_ggml_backend_meta_split_state, nr);
#endif
    FIELD(wsp_ggml_backend_meta_split_state, n_segments);
    TYPE("wsp_ggml_backend_meta_split_axis", enum wsp_ggml_backend_meta_split_axis);
    ENUM(WSP_GGML_BACKEND_SPLIT_AXIS_0);
    ENUM(WSP_GGML_BACKEND_SPLIT_AXIS_1);
    ENUM(WSP_GGML_BACKEND_SPLIT_AXIS_2);
    ENUM(WSP_GGML_BACKEND_SPLIT_AXIS_3);
    ENUM(WSP_GGML_BACKEND_SPLIT_AXIS_MIRRORED);
    ENUM(WSP_GGML_BACKEND_SPLIT_AXIS_PARTIAL);
    ENUM(WSP_GGML_BACKEND_SPLIT_AXIS_NONE);
    ENUM(WSP_GGML_BACKEND_SPLIT_AXIS_UNKNOWN);
    DEFINE("WSP_GGML_BACKEND_META_MAX_DEVICES", WSP_GGML_BACKEND_META_MAX_DEVICES);
#endif

    TYPE("wsp_ggml_cgraph_eval_order", enum wsp_ggml_cgraph_eval_order);
    ENUM(WSP_GGML_CGRAPH_EVAL_ORDER_LEFT_TO_RIGHT);
    ENUM(WSP_GGML_CGRAPH_EVAL_ORDER_RIGHT_TO_LEFT);
    ENUM(WSP_GGML_CGRAPH_EVAL_ORDER_COUNT);

    TYPE("wsp_ggml_op", enum wsp_ggml_op);
    ENUM(WSP_GGML_OP_NONE);
    ENUM(WSP_GGML_OP_RESHAPE);
    ENUM(WSP_GGML_OP_VIEW);
    ENUM(WSP_GGML_OP_PERMUTE);
    ENUM(WSP_GGML_OP_TRANSPOSE);
    ENUM(WSP_GGML_OP_ROPE);
#ifdef WSP_GGML_BACKEND_META_MAX_DEVICES
    ENUM(WSP_GGML_OP_FLASH_ATTN_EXT);
#endif
    ENUM(WSP_GGML_OP_COUNT);

    TYPE("wsp_ggml_type", enum wsp_ggml_type);

    /* ---- other types and constants ---- */

    TYPE("wsp_ggml_guid", wsp_ggml_guid);

#ifdef WSP_GGML_BACKEND_API_VERSION
    DEFINE("WSP_GGML_BACKEND_API_VERSION", WSP_GGML_BACKEND_API_VERSION);
#else
    UNDEFINED("WSP_GGML_BACKEND_API_VERSION");
#endif
#ifdef WSP_GGML_MAX_DIMS
    DEFINE("WSP_GGML_MAX_DIMS", WSP_GGML_MAX_DIMS);
#else
    UNDEFINED("WSP_GGML_MAX_DIMS");
#endif
#ifdef WSP_GGML_MAX_SRC
    DEFINE("WSP_GGML_MAX_SRC", WSP_GGML_MAX_SRC);
#else
    UNDEFINED("WSP_GGML_MAX_SRC");
#endif
#ifdef WSP_GGML_MAX_NAME
    DEFINE("WSP_GGML_MAX_NAME", WSP_GGML_MAX_NAME);
#else
    UNDEFINED("WSP_GGML_MAX_NAME");
#endif
#ifdef WSP_GGML_MAX_OP_PARAMS
    DEFINE("WSP_GGML_MAX_OP_PARAMS", WSP_GGML_MAX_OP_PARAMS);
#else
    UNDEFINED("WSP_GGML_MAX_OP_PARAMS");
#endif
#ifdef TENSOR_ALIGNMENT
    DEFINE("TENSOR_ALIGNMENT", TENSOR_ALIGNMENT);
#else
    UNDEFINED("TENSOR_ALIGNMENT");
#endif
#ifdef WSP_GGML_DEFAULT_GRAPH_SIZE
    DEFINE("WSP_GGML_DEFAULT_GRAPH_SIZE", WSP_GGML_DEFAULT_GRAPH_SIZE);
#else
    UNDEFINED("WSP_GGML_DEFAULT_GRAPH_SIZE");
#endif

    printf("checked: %u structs, %u fields, %u enum values\n", n_structs, n_fields, n_enums);
    return 0;
}
