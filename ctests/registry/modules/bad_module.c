// Deliberately broken backend modules for the loading tests. The flaw is chosen when the module
// is compiled:
//   BAD_SCORE=<n>  export wsp_ggml_backend_score returning n (left undefined: no score function)
//   BAD_INIT=0     no wsp_ggml_backend_init at all
//   BAD_INIT=1     wsp_ggml_backend_init returns NULL
//   BAD_INIT=2     wsp_ggml_backend_init returns a reg of the next API version (2 with whisper.rn
//                  0.4's headers, 3 with 0.5's)
//   BAD_INIT=3     wsp_ggml_backend_init aborts: for modules the loader must reject before init
#include <stdio.h>
#include <stdlib.h>

#include "ggml-backend-impl.h"

#ifdef BAD_SCORE
int wsp_ggml_backend_score(void);

int wsp_ggml_backend_score(void) {
    return BAD_SCORE;
}
#endif

#if BAD_INIT == 1 || BAD_INIT == 2 || BAD_INIT == 3
wsp_ggml_backend_reg_t wsp_ggml_backend_init(void);
#endif

#if BAD_INIT == 1
wsp_ggml_backend_reg_t wsp_ggml_backend_init(void) {
    return NULL;
}
#elif BAD_INIT == 2
static const char * future_name(wsp_ggml_backend_reg_t reg) {
    (void) reg;
    return "FUTURE";
}

static size_t future_device_count(wsp_ggml_backend_reg_t reg) {
    (void) reg;
    return 0;
}

// A reg of the other backend API (v2 in a whisper.rn 0.4 build, v1 in a 0.5 build): the loader
// must refuse it without calling into it.
static struct wsp_ggml_backend_reg future_reg = {
    .api_version = WSP_GGML_BACKEND_API_VERSION == 1 ? 2 : 1,
    .iface       = { .get_name = future_name, .get_device_count = future_device_count },
    .context     = NULL,
};

wsp_ggml_backend_reg_t wsp_ggml_backend_init(void) {
    return &future_reg;
}
#elif BAD_INIT == 3
wsp_ggml_backend_reg_t wsp_ggml_backend_init(void) {
    fprintf(stderr, "bad_module: wsp_ggml_backend_init called on a module the loader should have rejected\n");
    abort();
}
#elif BAD_INIT != 0
#    error "BAD_INIT must be 0, 1, 2 or 3"
#endif
