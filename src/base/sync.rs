//! Locks for the library's process-wide state (the registry, the loader), built on pthreads
//! rather than `std::sync`. Programs that use this library are C and C++ programs, and their
//! authors check threading with helgrind, DRD or ThreadSanitizer; those tools recognise
//! pthread locks, while std's futex-based locks are invisible to them, so every registry
//! access would be reported as a data race and real reports would drown.
//!
//! The locks are only for statics: a pthread lock must not move once used, and `'static`
//! receivers make sure of that. There is no poisoning: the library aborts on panic.

use core::cell::UnsafeCell;
use core::ops::{Deref, DerefMut};

/// A mutex around `T`.
pub struct StaticMutex<T> {
    raw: UnsafeCell<libc::pthread_mutex_t>,
    data: UnsafeCell<T>,
}

// SAFETY: the data is only reached through a guard, which holds the mutex.
unsafe impl<T: Send> Sync for StaticMutex<T> {}
// SAFETY: the data is only reached through a guard, which holds the mutex; the pthread mutex
// itself may be used from any thread.
unsafe impl<T: Send> Send for StaticMutex<T> {}

impl<T> StaticMutex<T> {
    pub const fn new(data: T) -> Self {
        StaticMutex { raw: UnsafeCell::new(libc::PTHREAD_MUTEX_INITIALIZER), data: UnsafeCell::new(data) }
    }

    pub fn lock(&'static self) -> StaticMutexGuard<T> {
        // SAFETY: a statically initialised mutex that never moves.
        let rc = unsafe { libc::pthread_mutex_lock(self.raw.get()) };
        if rc != 0 {
            lock_failed("pthread_mutex_lock", rc);
        }
        StaticMutexGuard { mutex: self }
    }
}

pub struct StaticMutexGuard<T: 'static> {
    mutex: &'static StaticMutex<T>,
}

impl<T> Deref for StaticMutexGuard<T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the guard holds the mutex.
        unsafe { &*self.mutex.data.get() }
    }
}

impl<T> DerefMut for StaticMutexGuard<T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: the guard holds the mutex, and `&mut self` makes this the only reference.
        unsafe { &mut *self.mutex.data.get() }
    }
}

impl<T> Drop for StaticMutexGuard<T> {
    fn drop(&mut self) {
        // SAFETY: locked by this guard, on this thread.
        unsafe { libc::pthread_mutex_unlock(self.mutex.raw.get()) };
    }
}

/// A reader-writer lock without data. glibc's default kind prefers readers, so a thread that
/// already holds the read side may take it again even while a writer waits.
pub struct StaticRwLock {
    raw: UnsafeCell<libc::pthread_rwlock_t>,
}

// SAFETY: pthread rwlocks are made to be shared between threads.
unsafe impl Sync for StaticRwLock {}
// SAFETY: pthread rwlocks are made to be shared between threads, and may be used from any.
unsafe impl Send for StaticRwLock {}

impl StaticRwLock {
    pub const fn new() -> Self {
        StaticRwLock { raw: UnsafeCell::new(libc::PTHREAD_RWLOCK_INITIALIZER) }
    }

    pub fn read(&'static self) -> StaticRwLockGuard {
        // SAFETY: a statically initialised lock that never moves.
        let rc = unsafe { libc::pthread_rwlock_rdlock(self.raw.get()) };
        if rc != 0 {
            lock_failed("pthread_rwlock_rdlock", rc);
        }
        StaticRwLockGuard { lock: self }
    }

    pub fn write(&'static self) -> StaticRwLockGuard {
        // SAFETY: a statically initialised lock that never moves.
        let rc = unsafe { libc::pthread_rwlock_wrlock(self.raw.get()) };
        if rc != 0 {
            lock_failed("pthread_rwlock_wrlock", rc);
        }
        StaticRwLockGuard { lock: self }
    }
}

/// Either side of a `StaticRwLock`; dropping it unlocks.
pub struct StaticRwLockGuard {
    lock: &'static StaticRwLock,
}

impl Drop for StaticRwLockGuard {
    fn drop(&mut self) {
        // SAFETY: locked by this guard, on this thread.
        unsafe { libc::pthread_rwlock_unlock(self.lock.raw.get()) };
    }
}

/// A lock call that failed (a lock is never destroyed nor taken twice here, so never): nothing
/// it guards can be used, and one cold call says so instead of an assertion at each.
#[cold]
#[inline(never)]
fn lock_failed(call: &str, rc: libc::c_int) -> ! {
    panic!("{call} failed: {rc}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mutex_serialises_increments() {
        static COUNTER: StaticMutex<u64> = StaticMutex::new(0);
        let threads: Vec<_> = (0..4)
            .map(|_| {
                std::thread::spawn(|| {
                    for _ in 0..10_000 {
                        *COUNTER.lock() += 1;
                    }
                })
            })
            .collect();
        threads.into_iter().for_each(|t| t.join().unwrap());
        assert_eq!(*COUNTER.lock(), 40_000);
    }

    #[test]
    fn readers_may_nest_and_a_writer_gets_in_afterwards() {
        static LOCK: StaticRwLock = StaticRwLock::new();
        let outer = LOCK.read();
        let inner = LOCK.read();
        drop(inner);
        drop(outer);
        drop(LOCK.write());
    }
}
