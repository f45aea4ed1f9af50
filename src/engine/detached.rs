//! A consumer on a thread of its own: what a slow consumer does (drawing a progress bar,
//! rewriting the live report) never delays the engine's thread, where games are recorded and an
//! SPRT decides. The engine's thread only picks what the consumer needs out of each event (an
//! owned message) and queues it; the queue is unbounded, so the engine never waits for it.

use super::{Consumer, Event};
use std::ops::ControlFlow;
use std::sync::mpsc;
use std::thread::JoinHandle;

/// Makes a consumer's message out of an event, on the engine's thread.
type Pick<M> = Box<dyn FnMut(&Event<'_>) -> Option<M>>;

/// A consumer state `S` that lives on its own thread and is handed messages `M`.
pub struct Detached<S, M> {
    pick: Pick<M>,
    tx: mpsc::Sender<M>,
    thread: JoinHandle<S>,
}

impl<S: Send + 'static, M: Send + 'static> Detached<S, M> {
    /// Starts the thread: it owns `state` and calls `consume` on it with every message, in the
    /// order they were sent. `pick` runs on the engine's thread and makes the message of an
    /// event (`None`: nothing for this consumer).
    pub fn spawn(
        mut state: S,
        pick: impl FnMut(&Event<'_>) -> Option<M> + 'static,
        mut consume: impl FnMut(&mut S, M) + Send + 'static,
    ) -> Detached<S, M> {
        let (tx, rx) = mpsc::channel();
        let thread = std::thread::spawn(move || {
            for message in rx {
                consume(&mut state, message);
            }
            state
        });
        Detached {
            pick: Box::new(pick),
            tx,
            thread,
        }
    }

    /// Sends a message of the caller's own (from another consumer on the engine's thread).
    pub fn send(&self, message: M) {
        // The thread ends only when this handle is dropped, or when `consume` panicked; then
        // there is no one left to tell, and the panic is raised again by `finish`.
        let _ = self.tx.send(message);
    }

    /// Waits until every message is consumed and gives the state back.
    pub fn finish(self) -> S {
        drop(self.tx);
        match self.thread.join() {
            Ok(state) => state,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }
}

impl<S, M> Consumer for Detached<S, M> {
    fn event(&mut self, event: &Event<'_>) -> ControlFlow<()> {
        if let Some(message) = (self.pick)(event) {
            let _ = self.tx.send(message);
        }
        ControlFlow::Continue(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Barrier};

    #[test]
    fn a_blocked_consumer_holds_back_no_event_and_sees_every_one_in_order() {
        // The consumer's thread is stuck until the engine has sent everything: were it called
        // on the engine's thread, the sends below would never end.
        let gate = Arc::new(Barrier::new(2));
        let held = gate.clone();
        let mut first = true;
        let mut d = Detached::spawn(
            Vec::new(),
            |e: &Event<'_>| match e {
                Event::Dropped { game_id } => Some(*game_id),
                _ => None,
            },
            move |seen: &mut Vec<u64>, id| {
                if std::mem::take(&mut first) {
                    held.wait();
                }
                seen.push(id);
            },
        );
        for game_id in 0..1000 {
            assert!(d.event(&Event::Dropped { game_id }).is_continue());
        }
        assert!(d
            .event(&Event::BotReady { bot: 0, name: "a" })
            .is_continue());
        d.send(1000);
        gate.wait();
        assert_eq!(d.finish(), (0..=1000).collect::<Vec<u64>>());
    }
}
