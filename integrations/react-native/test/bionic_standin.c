// Stands in, in android-on-linux.sh, for the functions of Android's C library (bionic) that glibc
// lacks and Rust's standard library for Android calls: an archive built for
// aarch64-linux-android (the npm package's prebuilt one) is linked into a GNU/Linux library there
// and run under qemu.
#include <errno.h>

// bionic's name for the calling thread's errno (glibc's is __errno_location)
int * __errno(void) {
    return &errno;
}

// No system property is set (the standard library asks for none that changes what it does here).
int __system_property_get(const char * name, char * value) {
    (void) name;
    value[0] = '\0';
    return 0;
}
