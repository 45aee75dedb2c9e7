// The score of a CPU module variant, fixed when the variant is linked (-DWSP_TEST_SCORE=<n>).
// whisper.rn's ggml-cpu.cpp exports wsp_ggml_backend_init but no score; linking the same CPU
// objects with this file and different scores gives variants that differ in nothing else, so
// the loading tests can see which one the loader picked.
#ifndef WSP_TEST_SCORE
#    error "define WSP_TEST_SCORE"
#endif

int wsp_ggml_backend_score(void);

int wsp_ggml_backend_score(void) {
    return WSP_TEST_SCORE;
}
