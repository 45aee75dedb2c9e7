// Reaching ggml's RPC backend through the backend registry, as llama.cpp's tools do: the RPC reg
// is looked up by name and its functions through get_proc_address, so a program needs no
// ggml-rpc.h. Shared by examples/rpc/rpc-server.cpp, examples/transcribe and ctests/rpc (C and
// C++).
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ggml-backend.h"
#include "ggml-backend-impl.h"  // wsp_ggml_backend_register, wsp_ggml_backend_device_register
#include "ggml_names.h"        // GGML_SYMBOL

#ifdef __cplusplus
extern "C" {
#endif

// Defined when the program is linked with ggml-rpc.cpp (weak: transcribe is built without it
// too, and then says so).
wsp_ggml_backend_reg_t wsp_ggml_backend_rpc_reg(void) __attribute__((weak));

// ggml-rpc's two interfaces, told apart by the functions its reg offers (the release table's
// rpc names which a family builds): up to protocol 4 (ggml a2253f34's), add_device gives the
// device of an endpoint and start_server serves one backend; from protocol 5 (llama-cpp-python
// 0.3.35's), add_server asks the server for its devices and gives a reg with them, and
// start_server serves a list of devices.
typedef wsp_ggml_backend_dev_t (*rpc_add_device_fn)(const char * endpoint);
typedef void (*rpc_start_server_fn)(wsp_ggml_backend_t backend, const char * endpoint, const char * cache_dir,
                                    size_t free_mem, size_t total_mem);
typedef wsp_ggml_backend_reg_t (*rpc_add_server_fn)(const char * endpoint);
typedef void (*rpc_start_devices_server_fn)(const char * endpoint, const char * cache_dir, size_t n_threads,
                                            size_t n_devices, wsp_ggml_backend_dev_t * devices);

// The RPC reg, registered first when this program has not registered it yet (whisper.rn's and
// this library's registries only register the CPU backend by themselves). NULL when the
// program was linked without ggml-rpc.
static inline wsp_ggml_backend_reg_t rpc_reg(void) {
    wsp_ggml_backend_reg_t reg = wsp_ggml_backend_reg_by_name("RPC");
    if (reg == NULL && wsp_ggml_backend_rpc_reg != NULL) {
        wsp_ggml_backend_register(wsp_ggml_backend_rpc_reg());
        reg = wsp_ggml_backend_reg_by_name("RPC");
    }
    return reg;
}

// Whether text is a decimal port number in 1..65535.
static inline bool rpc_port_valid(const char * text) {
    if (*text == '\0' || strlen(text) > 5 || strspn(text, "0123456789") != strlen(text)) {
        return false;
    }
    const long port = strtol(text, NULL, 10);
    return port >= 1 && port <= 65535;
}

// Whether endpoint is HOST:PORT (ggml-rpc itself throws an uncaught exception on a port that is
// not a number).
static inline bool rpc_endpoint_valid(const char * endpoint) {
    const char * colon = strrchr(endpoint, ':');
    return colon != NULL && colon != endpoint && strchr(endpoint, ':') == colon && rpc_port_valid(colon + 1);
}

// The RPC device of the server at endpoint, added through the RPC reg's add_device and
// registered with the backend registry (where whisper.cpp finds it as a GPU device), after
// checking that the server answers. NULL, with the reason in error, otherwise.
static inline wsp_ggml_backend_dev_t rpc_connect_device(const char * endpoint, char * error, size_t error_size) {
    if (!rpc_endpoint_valid(endpoint)) {
        snprintf(error, error_size, "'%s' is not an endpoint: expected HOST:PORT with a port in 1-65535", endpoint);
        return NULL;
    }
    wsp_ggml_backend_reg_t reg = rpc_reg();
    if (reg == NULL) {
        snprintf(error, error_size, "this program was built without ggml's RPC backend");
        return NULL;
    }
    wsp_ggml_backend_dev_t dev = NULL;
    rpc_add_server_fn add_server =
        (rpc_add_server_fn) wsp_ggml_backend_reg_get_proc_address(reg, GGML_SYMBOL("ggml_backend_rpc_add_server"));
    rpc_add_device_fn add_device =
        (rpc_add_device_fn) wsp_ggml_backend_reg_get_proc_address(reg, GGML_SYMBOL("ggml_backend_rpc_add_device"));
    if (add_server != NULL) {
        // the server's first device (NULL when it cannot be reached)
        wsp_ggml_backend_reg_t server = add_server(endpoint);
        if (server != NULL && wsp_ggml_backend_reg_dev_count(server) > 0) {
            dev = wsp_ggml_backend_reg_dev_get(server, 0);
        }
    } else if (add_device != NULL) {
        dev = add_device(endpoint);
    } else {
        snprintf(error, error_size, "the RPC backend has neither add_server nor add_device");
        return NULL;
    }
    // Adding a device need not connect; its buffer type asks the server for its alignment.
    if (dev == NULL || wsp_ggml_backend_dev_buffer_type(dev) == NULL) {
        snprintf(error, error_size, "cannot reach an RPC server at %s", endpoint);
        return NULL;
    }
    wsp_ggml_backend_device_register(dev);
    return dev;
}

// The examples' option --rpc HOST:PORT: the server's device, connected and registered, or NULL
// after saying why on stderr ("--rpc: ..."). SIGPIPE is ignored from here on: ggml-rpc writes to
// its socket without MSG_NOSIGNAL, and if the server goes away the program should end with
// ggml-rpc's message, not die of SIGPIPE without a word.
static inline wsp_ggml_backend_dev_t rpc_option_device(const char * endpoint) {
    signal(SIGPIPE, SIG_IGN);
    char error[256];
    wsp_ggml_backend_dev_t dev = rpc_connect_device(endpoint, error, sizeof(error));
    if (dev == NULL) {
        fprintf(stderr, "--rpc: %s\n", error);
    }
    return dev;
}

#ifdef __cplusplus
}
#endif
