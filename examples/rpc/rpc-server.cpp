// rpc-server: offers this machine's CPU backend to ggml RPC clients (transcribe --rpc, or any
// program using ggml's RPC backend), through whichever backend layer it is linked with.
//
//   rpc-server [-H host] [-p port] [-t threads]
//
// Listens on host:port (default 127.0.0.1:50052) and serves one client at a time, forever.
// -p 0 picks a free port. Before serving, it prints "listening on HOST:PORT" to stdout; then
// ggml-rpc prints a line per client connection. There is no authentication: keep it on a
// trusted network.

#include "ggml-backend.h"
#include "rpc_device.h"

#include <arpa/inet.h>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <netinet/in.h>
#include <string>
#include <sys/socket.h>
#include <unistd.h>

namespace {

int usage(const char * argv0) {
    std::fprintf(stderr, "usage: %s [-H host] [-p port] [-t threads]\n", argv0);
    return 2;
}

// A port the kernel considers free on host (ggml-rpc binds the port it is given, so -p 0 is
// resolved here). 0 when host is not an IPv4 address or no port can be had.
int free_port(const char * host) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    if (inet_pton(AF_INET, host, &addr.sin_addr) != 1) {
        return 0;
    }
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    socklen_t len = sizeof(addr);
    int port = 0;
    if (fd >= 0 && bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof(addr)) == 0 &&
        getsockname(fd, reinterpret_cast<sockaddr *>(&addr), &len) == 0) {
        port = ntohs(addr.sin_port);
    }
    if (fd >= 0) {
        close(fd);
    }
    return port;
}

} // namespace

int main(int argc, char ** argv) {
    std::string host = "127.0.0.1";
    const char * port_text = "50052";
    int n_threads = 1;
    for (int i = 1; i < argc; i++) {
        if (std::strcmp(argv[i], "-H") == 0 && i + 1 < argc) {
            host = argv[++i];
        } else if (std::strcmp(argv[i], "-p") == 0 && i + 1 < argc) {
            port_text = argv[++i];
        } else if (std::strcmp(argv[i], "-t") == 0 && i + 1 < argc) {
            n_threads = std::atoi(argv[++i]);
        } else {
            return usage(argv[0]);
        }
    }
    if (n_threads < 1) {
        return usage(argv[0]);
    }
    int port = 0;
    if (std::strcmp(port_text, "0") == 0) {
        port = free_port(host.c_str());
        if (port == 0) {
            std::fprintf(stderr, "rpc-server: cannot find a free port on '%s' (an IPv4 address is expected)\n",
                         host.c_str());
            return 1;
        }
    } else if (rpc_port_valid(port_text)) {
        port = std::atoi(port_text);
    } else {
        std::fprintf(stderr, "rpc-server: '%s' is not a port (1-65535, or 0 for any free one)\n", port_text);
        return 2;
    }
    const std::string endpoint = host + ":" + std::to_string(port);

    // A client that disconnects while the server writes to it must not end the server.
    std::signal(SIGPIPE, SIG_IGN);

    wsp_ggml_backend_t backend = wsp_ggml_backend_init_by_type(WSP_GGML_BACKEND_DEVICE_TYPE_CPU, nullptr);
    if (backend == nullptr) {
        std::fprintf(stderr, "rpc-server: no CPU backend\n");
        return 1;
    }
    wsp_ggml_backend_dev_t cpu = wsp_ggml_backend_get_device(backend);
    auto set_n_threads = reinterpret_cast<wsp_ggml_backend_set_n_threads_t>(wsp_ggml_backend_reg_get_proc_address(
        wsp_ggml_backend_dev_backend_reg(cpu), GGML_SYMBOL("ggml_backend_set_n_threads")));
    if (set_n_threads != nullptr) {
        set_n_threads(backend, n_threads);
    }
    size_t free_mem = 0, total_mem = 0;
    wsp_ggml_backend_dev_memory(cpu, &free_mem, &total_mem);

    wsp_ggml_backend_reg_t reg = rpc_reg();
    void * start_server = reg == nullptr ? nullptr : wsp_ggml_backend_reg_get_proc_address(reg, GGML_SYMBOL("ggml_backend_rpc_start_server"));
    if (start_server == nullptr) {
        std::fprintf(stderr, "rpc-server: built without ggml's RPC backend\n");
        return 1;
    }
    // add_server tells the interface that serves devices (see rpc_device.h)
    const bool serves_devices = wsp_ggml_backend_reg_get_proc_address(reg, GGML_SYMBOL("ggml_backend_rpc_add_server")) != nullptr;
    std::printf("listening on %s (%d thread%s)\n", endpoint.c_str(), n_threads, n_threads == 1 ? "" : "s");
    std::fflush(stdout);
    // Returns only when the address cannot be bound or a connection cannot be accepted; it has
    // printed why.
    if (serves_devices) {
        reinterpret_cast<rpc_start_devices_server_fn>(start_server)(endpoint.c_str(), nullptr, n_threads, 1, &cpu);
    } else {
        reinterpret_cast<rpc_start_server_fn>(start_server)(backend, endpoint.c_str(), nullptr, free_mem, total_mem);
    }
    wsp_ggml_backend_free(backend);
    return 1;
}
