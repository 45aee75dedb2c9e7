// The Metal stand-in (ctests/metal/metal_standin.c): whisper.rn's Metal C++ (ggml-metal.cpp and
// the rest of cpp/ggml-metal/ but the .m files), linked with this stand-in for the Objective-C
// functions that ggml-metal-device.h and ggml-metal-context.h declare, is a Metal backend that runs
// on Linux:
//
//   - the reg, device(s), buffer types, backend and their names are whisper.rn's own code; the
//     device's properties are those of a unified-memory GPU, its description "Metal stand-in (host
//     memory)" (0.7: devices "MTL0".., as many as WSP_GGML_METAL_DEVICES says);
//   - buffers are host memory, but the buffer types say is_host false, as on Apple: the scheduler
//     copies between Metal and the CPU exactly as it does on an iPhone;
//   - graphs are computed by a private CPU backend of whisper.rn (one thread), after Metal's own
//     node reordering (graph_optimize); so results are the CPU's;
//   - supports_op is the CPU's answer minus NORM and IM2COL, so whisper's graphs split;
//   - kernel encoding (pipelines, encoders, command buffers) aborts with a message: never reached.
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

struct metal_standin_counters {
    long contexts_init, contexts_free;  // backends (Metal contexts)
    long buffers_alloc, buffers_free;   // owned buffers
    long graph_computes;                // graphs handed to the private CPU backend
    long nodes_computed;                // their nodes
    long graph_optimizes;               // graphs reordered
    long supports_op;                   // calls answered
    long events_recorded;               // 0.7
};

void metal_standin_counters(struct metal_standin_counters * out);

#ifdef __cplusplus
}
#endif
