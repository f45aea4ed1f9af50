//! The server's locks, taken whatever became of their last holder. A thread that panics while
//! it holds a `Mutex` poisons it, and every later `lock().unwrap()` panics in turn: one bad
//! input that reached a panic would take every page, lease and result down with it. The
//! league's state stays usable instead (each holder leaves it whole between its statements),
//! and the recorder, the one thread whose failure matters, says so itself
//! ([`super::server::Shared::recording_failure`]).

use std::sync::{Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// `Mutex::lock` that takes a poisoned lock as it is.
pub trait Locked<T> {
    fn locked(&self) -> MutexGuard<'_, T>;
}

impl<T> Locked<T> for Mutex<T> {
    fn locked(&self) -> MutexGuard<'_, T> {
        self.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// `RwLock::read` and `write` that take a poisoned lock as it is.
pub trait RwLocked<T> {
    fn reading(&self) -> RwLockReadGuard<'_, T>;
    fn writing(&self) -> RwLockWriteGuard<'_, T>;
}

impl<T> RwLocked<T> for RwLock<T> {
    fn reading(&self) -> RwLockReadGuard<'_, T> {
        self.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn writing(&self) -> RwLockWriteGuard<'_, T> {
        self.write().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lock_whose_holder_panicked_is_still_taken() {
        let m = std::sync::Arc::new(Mutex::new(1));
        let m2 = m.clone();
        let _ = std::thread::spawn(move || {
            let _held = m2.lock().unwrap();
            panic!("a holder panics");
        })
        .join();
        assert!(m.is_poisoned());
        *m.locked() += 1;
        assert_eq!(*m.locked(), 2);
        let r = std::sync::Arc::new(RwLock::new(1));
        let r2 = r.clone();
        let _ = std::thread::spawn(move || {
            let _held = r2.write().unwrap();
            panic!("a writer panics");
        })
        .join();
        *r.writing() += 1;
        assert_eq!(*r.reading(), 2);
    }
}
