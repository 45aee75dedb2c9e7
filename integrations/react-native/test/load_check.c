// Loads the library built by the package's Android CMakeLists (changed by android/apply.sh), as
// the app's Java code would, and checks that its graph computes (a + b) * b (backend_check.cpp).
//   load_check path/to/librnwhisper_....so
#include <dlfcn.h>
#include <stdio.h>

typedef int (*check_fn)(const float *, const float *, float *, int);

int main(int argc, char ** argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s library.so\n", argv[0]);
        return 2;
    }
    void * lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    check_fn check = (check_fn) dlsym(lib, "backend_check");
    if (check == NULL) {
        fprintf(stderr, "dlsym: %s\n", dlerror());
        return 1;
    }
    enum { N = 8 };
    float a[N], b[N], out[N];
    for (int i = 0; i < N; i++) {
        a[i] = (float) i - 2.5f;
        b[i] = 0.25f * (float) (i * i) + 1.0f;
        out[i] = -1.0f;
    }
    int status = check(a, b, out, N);
    if (status != 0) {
        fprintf(stderr, "backend_check failed (%d)\n", status);
        return 1;
    }
    for (int i = 0; i < N; i++) {
        if (out[i] != (a[i] + b[i]) * b[i]) {
            fprintf(stderr, "element %d: %g, expected %g\n", i, out[i], (a[i] + b[i]) * b[i]);
            return 1;
        }
    }
    printf("%s: (a + b) * b over %d elements computed through the scheduler\n", argv[1], N);
    dlclose(lib);
    return 0;
}
