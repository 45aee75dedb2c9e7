// What an example reports about the work a GPU did, on stderr, for the end-to-end tests that compare
// the two backend layers (ctests/e2e):
//
//   --splits (with <PREFIX>GGML_SCHED_DEBUG=1 in the environment) counts the splits of every graph
//   the scheduler plans from its debug listing, through the program's log callback (count_splits),
//   and prints at the end (print_splits)
//     splits: graphs=G splits=S accel_splits=A per_graph=S1/A1,S2/A2x3,... backends=B1:N1,B2:N2
//   per_graph in planning order, with xN for N graphs in a row planned the same way; backends: the
//   splits of each backend (by name, sorted).
//
//   print_metal_counters: in a build linked with the Metal stand-in (ctests/fixtures/metal_standin.h),
//     metal: computes=N nodes=M optimized=K
//   the graphs it computed, their nodes and the graphs Metal's own optimizer reordered.
#pragma once

#include "ggml.h"
#include "metal_standin.h"

#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

// Defined only in builds linked with the Metal stand-in.
extern "C" void metal_standin_counters(struct metal_standin_counters * out) __attribute__((weak));

// The splits of each graph the scheduler planned, read from its debug listing (one
// "## SPLIT #i: BACKEND # n inputs" line per split, i from 0 for every graph). Both backend
// layers print the marker and the name in one piece of text.
struct split_count {
    int splits = 0;
    int accel = 0;  // of them on ACCEL
};

// What the log callback passes on to stderr besides counting.
enum class split_echo {
    everything,
    nothing,
    splits_and_errors,  // the listing's lines and ERROR lines
};

struct split_log {
    split_echo echo = split_echo::everything;
    std::vector<split_count> graphs;
    std::map<std::string, int> by_backend;
    bool in_listing = false;  // the last text began a split's line and did not end it
};

inline void count_splits(enum wsp_ggml_log_level level, const char * text, void * user_data) {
    auto * log = static_cast<split_log *>(user_data);
    static const char marker[] = "## SPLIT #";
    bool listing = false;
    for (const char * at = std::strstr(text, marker); at != nullptr; at = std::strstr(at + 1, marker)) {
        int index = -1;
        char backend[32] = "";
        if (std::sscanf(at + sizeof(marker) - 1, "%d: %31s", &index, backend) != 2) {
            continue;
        }
        listing = true;
        if (index == 0 || log->graphs.empty()) {
            log->graphs.emplace_back();
        }
        log->graphs.back().splits++;
        log->graphs.back().accel += std::strcmp(backend, "ACCEL") == 0;
        log->by_backend[backend]++;
    }
    // a layer may log a split's line in pieces (its inputs one by one): the line ends with its newline
    const bool listing_line = listing || log->in_listing;
    const size_t length = std::strlen(text);
    log->in_listing = listing_line && (length == 0 || text[length - 1] != '\n');
    const bool echo = log->echo == split_echo::everything ||
                      (log->echo == split_echo::splits_and_errors && (listing_line || level == WSP_GGML_LOG_LEVEL_ERROR));
    if (echo) {
        std::fputs(text, stderr);
    }
}

inline void print_splits(const split_log & log) {
    int total = 0, accel = 0;
    std::string per_graph;
    for (size_t i = 0; i < log.graphs.size();) {
        size_t same = i + 1;
        while (same < log.graphs.size() && log.graphs[same].splits == log.graphs[i].splits &&
               log.graphs[same].accel == log.graphs[i].accel) {
            same++;
        }
        per_graph += (i ? "," : "") + std::to_string(log.graphs[i].splits) + "/" + std::to_string(log.graphs[i].accel);
        if (same - i > 1) {
            per_graph += "x" + std::to_string(same - i);
        }
        for (size_t k = i; k < same; k++) {
            total += log.graphs[k].splits;
            accel += log.graphs[k].accel;
        }
        i = same;
    }
    std::string backends;
    for (const auto & entry : log.by_backend) {
        backends += (backends.empty() ? "" : ",") + entry.first + ":" + std::to_string(entry.second);
    }
    std::fprintf(stderr, "splits: graphs=%zu splits=%d accel_splits=%d per_graph=%s backends=%s\n", log.graphs.size(), total,
                 accel, per_graph.c_str(), backends.c_str());
}

inline void print_metal_counters() {
    if (metal_standin_counters != nullptr) {
        struct metal_standin_counters counters;
        metal_standin_counters(&counters);
        std::fprintf(stderr, "metal: computes=%ld nodes=%ld optimized=%ld\n", counters.graph_computes, counters.nodes_computed,
                     counters.graph_optimizes);
    }
}
