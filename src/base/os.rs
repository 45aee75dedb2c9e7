//! What the layer asks of the operating system, through the C library (so that the library needs
//! no Rust standard library): environment variables, the files of a directory, the executable's
//! and the current directory, and shared libraries (`dlopen`).
//!
//! Paths are bytes, as the C API and the file system have them.

use super::text::Lossy;
use alloc::ffi::CString;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::ffi::{c_char, c_int, c_void, CStr};

// 32-bit glibc's `readdir` and `stat` fail with EOVERFLOW where inode numbers pass 32 bits (big
// or overlay file systems); their 64-bit forms work on every Linux and Android target.
#[cfg(target_vendor = "apple")]
use libc::{readdir, stat};
#[cfg(any(target_os = "linux", target_os = "android"))]
use libc::{readdir64 as readdir, stat64 as stat};

/// The value of environment variable `name`, if it is set.
pub fn env(name: &CStr) -> Option<Vec<u8>> {
    // SAFETY: a NUL-terminated name; getenv returns NULL or a NUL-terminated value, copied at
    // once (the API's rule: no thread changes the environment meanwhile).
    let value = unsafe { libc::getenv(name.as_ptr()) };
    // SAFETY: NULL or the value just returned.
    (!value.is_null()).then(|| unsafe { CStr::from_ptr(value) }.to_bytes().to_vec())
}

/// The leading integer of environment variable `name`, as C's `atoi` reads it (0 for a value that
/// does not start with one); None when it is unset.
pub fn env_int(name: &CStr) -> Option<i64> {
    Some(leading_int(&env(name)?))
}

/// What C's `atoi` reads of `text`: after white space, an optional sign and the digits that
/// follow (0 where there are none, or more than an `i64` holds). Read as bytes: no slicing of
/// text, whose panic path would bring Unicode tables into every app.
fn leading_int(text: &[u8]) -> i64 {
    let start = text.iter().position(|c| !c.is_ascii_whitespace() && *c != 0x0b).unwrap_or(text.len());
    let (negative, digits) = match text.get(start..).unwrap_or_default() {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        rest => (false, rest),
    };
    let mut value: i64 = 0;
    for &c in digits.iter().take_while(|c| c.is_ascii_digit()) {
        match value.checked_mul(10).and_then(|v| v.checked_add(i64::from(c - b'0'))) {
            Some(v) => value = v,
            None => return 0,
        }
    }
    if negative {
        -value
    } else {
        value
    }
}

/// The message of the C library's last error (`errno`).
pub fn last_error() -> String {
    // SAFETY: strerror returns a NUL-terminated message for any errno (copied at once).
    let message = unsafe { CStr::from_ptr(libc::strerror(errno())) };
    Lossy(message.to_bytes()).to_string()
}

fn errno() -> c_int {
    // SAFETY: errno is the calling thread's own variable.
    unsafe { *errno_location() }
}

fn set_errno(value: c_int) {
    // SAFETY: errno is the calling thread's own variable.
    unsafe { *errno_location() = value }
}

#[cfg(target_os = "linux")]
unsafe fn errno_location() -> *mut c_int {
    // SAFETY: always callable.
    unsafe { libc::__errno_location() }
}

#[cfg(target_os = "android")]
unsafe fn errno_location() -> *mut c_int {
    // SAFETY: always callable.
    unsafe { libc::__errno() }
}

#[cfg(target_vendor = "apple")]
unsafe fn errno_location() -> *mut c_int {
    // SAFETY: always callable.
    unsafe { libc::__error() }
}

/// `path` as a C string; None for a path with a NUL inside (which no file has).
fn c_path(path: &[u8]) -> Option<CString> {
    CString::new(path).ok()
}

/// Why a directory cannot be listed.
pub enum ListError {
    /// It does not exist; a dangling symbolic link gives where it points.
    NotFound { dangling_to: Option<Vec<u8>> },
    /// Another error, with the C library's message.
    Other(String),
}

/// The paths of the entries of directory `dir` (without `.` and `..`).
pub fn list_dir(dir: &[u8]) -> Result<Vec<Vec<u8>>, ListError> {
    let c_dir = c_path(dir).ok_or(ListError::NotFound { dangling_to: None })?;
    // SAFETY: a NUL-terminated path.
    let handle = unsafe { libc::opendir(c_dir.as_ptr()) };
    if handle.is_null() {
        if errno() != libc::ENOENT {
            return Err(ListError::Other(last_error()));
        }
        return Err(ListError::NotFound { dangling_to: read_link(dir) });
    }
    let mut entries = Vec::new();
    let result = loop {
        // readdir tells its end from an error by errno alone.
        set_errno(0);
        // SAFETY: an open directory stream, read from this thread only.
        let entry = unsafe { readdir(handle) };
        if entry.is_null() {
            break if errno() == 0 { Ok(entries) } else { Err(ListError::Other(last_error())) };
        }
        // SAFETY: readdir's entry stays valid until the next call; its name is NUL-terminated.
        let name = unsafe { CStr::from_ptr((*entry).d_name.as_ptr()) }.to_bytes();
        if name != b"." && name != b".." {
            entries.push(join(dir, name));
        }
    };
    // SAFETY: the stream opened above, closed once.
    unsafe { libc::closedir(handle) };
    result
}

/// `dir/name`.
pub fn join(dir: &[u8], name: &[u8]) -> Vec<u8> {
    let mut path = dir.to_vec();
    if !path.ends_with(b"/") {
        path.push(b'/');
    }
    path.extend_from_slice(name);
    path
}

/// The last part of `path`.
pub fn file_name(path: &[u8]) -> &[u8] {
    path.rsplit(|&b| b == b'/').next().unwrap_or(path)
}

/// Where symbolic link `path` points, if it is one.
fn read_link(path: &[u8]) -> Option<Vec<u8>> {
    let c_link = c_path(path)?;
    let mut target = alloc::vec![0u8; libc::PATH_MAX as usize];
    // SAFETY: a NUL-terminated path and a buffer of the length given.
    let n = unsafe { libc::readlink(c_link.as_ptr(), target.as_mut_ptr() as *mut c_char, target.len()) };
    let n = usize::try_from(n).ok()?;
    target.truncate(n);
    Some(target)
}

/// Whether `path` is a regular file (following symbolic links).
pub fn is_file(path: &[u8]) -> bool {
    let Some(c_file) = c_path(path) else { return false };
    // SAFETY: a NUL-terminated path and a stat buffer that stat fills.
    unsafe {
        let mut status: stat = core::mem::zeroed();
        // mode_t is narrower than st_mode on some targets (32-bit Android): the casts are
        // needed there, not here.
        #[allow(clippy::unnecessary_cast)]
        let is_regular = |mode| mode as u32 & libc::S_IFMT as u32 == libc::S_IFREG as u32;
        stat(c_file.as_ptr(), &mut status) == 0 && is_regular(status.st_mode)
    }
}

/// Whether anything is at `path`.
pub fn exists(path: &[u8]) -> bool {
    let Some(c_file) = c_path(path) else { return false };
    // SAFETY: a NUL-terminated path.
    unsafe { libc::access(c_file.as_ptr(), libc::F_OK) == 0 }
}

/// Writes `bytes` to the file at `path` (created or truncated); the error is the C library's
/// message.
pub fn write_file(path: &[u8], bytes: &[u8]) -> Result<(), String> {
    let c_file = c_path(path).ok_or_else(|| String::from("the path has a NUL byte"))?;
    // SAFETY: a NUL-terminated path and a mode for a newly created file.
    let fd = unsafe { libc::open(c_file.as_ptr(), libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC, 0o644) };
    if fd < 0 {
        return Err(last_error());
    }
    let mut written = 0;
    let mut result = Ok(());
    while written < bytes.len() {
        // SAFETY: an open descriptor and the unwritten rest of `bytes`.
        let n = unsafe { libc::write(fd, bytes[written..].as_ptr() as *const c_void, bytes.len() - written) };
        match usize::try_from(n) {
            Ok(n) if n > 0 => written += n,
            _ if errno() == libc::EINTR => {}
            _ => {
                result = Err(last_error());
                break;
            }
        }
    }
    // SAFETY: the descriptor opened above, closed once.
    unsafe { libc::close(fd) };
    result
}

/// The current directory.
pub fn current_dir() -> Option<Vec<u8>> {
    // SAFETY: with a NULL buffer, getcwd allocates the result (freed below).
    let cwd = unsafe { libc::getcwd(core::ptr::null_mut(), 0) };
    if cwd.is_null() {
        return None;
    }
    // SAFETY: getcwd's NUL-terminated result, copied, then freed once.
    let dir = unsafe { CStr::from_ptr(cwd) }.to_bytes().to_vec();
    // SAFETY: allocated by getcwd with malloc.
    unsafe { libc::free(cwd as *mut c_void) };
    Some(dir)
}

/// The directory of the running executable.
pub fn executable_dir() -> Option<Vec<u8>> {
    let exe = executable_path()?;
    let dir_len = exe.iter().rposition(|&b| b == b'/')?;
    Some(exe[..dir_len.max(1)].to_vec())
}

#[cfg(any(target_os = "linux", target_os = "android"))]
fn executable_path() -> Option<Vec<u8>> {
    read_link(b"/proc/self/exe")
}

#[cfg(target_vendor = "apple")]
extern "C" {
    /// dyld's (`<mach-o/dyld.h>`).
    fn _NSGetExecutablePath(buf: *mut c_char, size: *mut u32) -> c_int;
}

#[cfg(target_vendor = "apple")]
fn executable_path() -> Option<Vec<u8>> {
    let mut size: u32 = 0;
    // SAFETY: with a zero size, the call only writes the size it needs.
    unsafe { _NSGetExecutablePath(core::ptr::null_mut(), &mut size) };
    let mut path = alloc::vec![0u8; size as usize];
    // SAFETY: a buffer of the size asked for.
    if unsafe { _NSGetExecutablePath(path.as_mut_ptr() as *mut c_char, &mut size) } != 0 {
        return None;
    }
    let end = path.iter().position(|&b| b == 0).unwrap_or(path.len());
    path.truncate(end);
    Some(path)
}

/// A shared library opened with `dlopen`, closed when dropped.
pub struct Library(*mut c_void);

// SAFETY: a dlopen handle may be used and closed from any thread.
unsafe impl Send for Library {}
// SAFETY: dlsym on a handle is thread-safe.
unsafe impl Sync for Library {}

impl Library {
    /// Opens `path` (symbols resolved now, kept to itself); the error is the dynamic loader's
    /// message.
    ///
    /// # Safety
    /// Opening a library runs its initialisers.
    pub unsafe fn open(path: &[u8]) -> Result<Library, String> {
        let Some(c_file) = c_path(path) else {
            return Err(String::from("the path has a NUL byte"));
        };
        // SAFETY: a NUL-terminated path; the caller accepts the initialisers.
        let handle = unsafe { libc::dlopen(c_file.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        if handle.is_null() {
            return Err(dl_error());
        }
        Ok(Library(handle))
    }

    /// The address of symbol `name`, if the library defines it.
    pub fn symbol(&self, name: &CStr) -> Option<*mut c_void> {
        // SAFETY: an open handle and a NUL-terminated name.
        let address = unsafe { libc::dlsym(self.0, name.as_ptr()) };
        (!address.is_null()).then_some(address)
    }
}

impl Drop for Library {
    fn drop(&mut self) {
        // SAFETY: the handle opened by `open`, closed once.
        unsafe { libc::dlclose(self.0) };
    }
}

/// The dynamic loader's message about its last error.
fn dl_error() -> String {
    // SAFETY: dlerror returns NULL or a NUL-terminated message (copied at once).
    let message = unsafe { libc::dlerror() };
    if message.is_null() {
        return String::from("unknown error");
    }
    // SAFETY: the message just returned.
    Lossy(unsafe { CStr::from_ptr(message) }.to_bytes()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_numeric_variable_reads_as_atoi_would() {
        for (value, expected) in [
            ("1", Some(1)),
            (" 2x", Some(2)),
            ("\t\n+7 8", Some(7)),
            ("-3", Some(-3)),
            ("- 3", Some(0)),
            ("yes", Some(0)),
            ("", Some(0)),
            ("99999999999999999999", Some(0)),
        ] {
            std::env::set_var("WSP_OS_TEST_ENV_INT", value);
            assert_eq!(env_int(c"WSP_OS_TEST_ENV_INT"), expected, "{value:?}");
        }
        std::env::remove_var("WSP_OS_TEST_ENV_INT");
        assert_eq!(env_int(c"WSP_OS_TEST_ENV_INT"), None);
    }

    #[test]
    fn a_directory_lists_its_entries_and_a_missing_one_says_so() {
        let dir = std::env::temp_dir().join(format!("wsp-os-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.so"), b"x").unwrap();
        let path = dir.to_str().unwrap().as_bytes();
        let files = list_dir(path).ok().unwrap();
        assert_eq!(files, [join(path, b"a.so")]);
        assert!(is_file(&files[0]) && exists(&files[0]) && !is_file(path));
        assert_eq!(file_name(&files[0]), b"a.so");
        std::fs::remove_file(dir.join("a.so")).unwrap();
        std::fs::remove_dir(&dir).unwrap();
        assert!(matches!(list_dir(path), Err(ListError::NotFound { dangling_to: None })));
    }

    #[test]
    fn the_executable_is_in_its_directory() {
        let exe = std::env::current_exe().unwrap();
        assert_eq!(executable_dir().unwrap(), exe.parent().unwrap().to_str().unwrap().as_bytes());
        assert_eq!(current_dir().unwrap(), std::env::current_dir().unwrap().to_str().unwrap().as_bytes());
    }
}
