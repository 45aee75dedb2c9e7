//! What the backends answered about each tensor (`supports_op`, `offload_op`), kept from one
//! evaluation to the next while the tensor stays as it was.
//!
//! whisper.cpp builds its decoder graph again for every token, in the same memory; only the
//! nodes whose shapes follow the KV length change. The scheduler would otherwise ask every
//! backend the same questions about every other node again, and a GPU backend's answers are
//! the costliest part of planning.
//!
//! **Assumed purity.** A backend's answer about a node depends only on the node's
//! [`Description`] (type, buffer, shape, strides, op, op parameters, flags, source and view
//! source addresses, view offset) and on its sources' and view source's descriptions: not on
//! data addresses, names, tensor contents, anything further up the graph, or time. A
//! tensor's answers are kept when its id's stored description equals its current one and so do
//! its sources' (they come first in a graph, so they have been compared). For a backend whose
//! answers are not pure, `GGML_SCHED_NO_ANSWER_CACHE` lists it by name (or `1`/`all` for
//! every backend): its answers are then kept within one graph only, and no plan is reused
//! (see [`super::memo::PlanMemo`]).

use super::table::{BuftId, Tid};
use crate::abi::env_var;
use crate::base::fallible::{reserve_total, try_collect, OutOfMemory};
use crate::handle::{Description, Tensor};
use alloc::vec::Vec;

/// One answer: not asked yet, no, yes.
const NOT_ASKED: u8 = 0;
const NO: u8 = 1;
const YES: u8 = 2;
const SUPPORTS: u32 = 0;
const OFFLOAD: u32 = 2;

/// An answer forgotten in this graph, for the scheduler to ask again: if every one is given
/// again, the graph is planned as before (see [`super::memo::PlanMemo`]).
#[derive(Clone, Copy)]
pub struct Forgotten {
    pub tid: Tid,
    pub backend: usize,
    answers: u8,
}

impl Forgotten {
    /// The `supports_op` answer that was kept, if one was.
    pub fn supports_op(self) -> Option<bool> {
        answer(self.answers >> SUPPORTS)
    }

    /// The `offload_op` answer that was kept, if one was.
    pub fn offload_op(self) -> Option<bool> {
        answer(self.answers >> OFFLOAD)
    }
}

fn answer(bits: u8) -> Option<bool> {
    match bits & 3 {
        NO => Some(false),
        YES => Some(true),
        _ => None,
    }
}

/// What is kept of one tensor id (together: both are read for each tensor).
#[derive(Clone, Default)]
struct Kept {
    description: Option<Description>,
    same_in: u32,
}

pub struct Answers {
    n_backends: usize,
    /// Per tensor id: the description its answers are about (None: none kept), and the split
    /// (epoch) in which it was found unchanged, so that its users may keep their answers.
    described: Vec<Kept>,
    /// `[tid][backend]`: the `supports_op` answer in bits 0-1, the `offload_op` answer in 2-3.
    answers: Vec<u8>,
    /// Backends whose answers are forgotten at every graph.
    ask_again: Vec<bool>,
    /// The answers forgotten since the graph began.
    forgotten: Vec<Forgotten>,
    /// Whether a backend can use a buffer type, as asked while planning this graph (a buffer
    /// type's id is its address, which another one may take after it is gone).
    bufts: Vec<(usize, BuftId, bool)>,
}

impl Answers {
    /// `names` are the backends' names, for the environment switch.
    pub fn new(names: &[impl AsRef<[u8]>]) -> Result<Self, OutOfMemory> {
        let switch = crate::base::os::env(env_var!("GGML_SCHED_NO_ANSWER_CACHE")).unwrap_or_default();
        Self::with_switch(names, &switch)
    }

    /// `switch` read as bytes, ASCII white space trimmed: no text slicing, whose panic path
    /// would bring Unicode tables into every app.
    fn with_switch(names: &[impl AsRef<[u8]>], switch: &[u8]) -> Result<Self, OutOfMemory> {
        let all = matches!(switch.trim_ascii(), b"1" | b"all");
        let listed = |name: &[u8]| switch.split(|&c| c == b',').any(|s| s.trim_ascii() == name);
        Ok(Answers {
            n_backends: names.len(),
            described: Vec::new(),
            answers: Vec::new(),
            ask_again: try_collect(names.iter().map(|n| all || listed(n.as_ref())))?,
            forgotten: Vec::new(),
            bufts: Vec::new(),
        })
    }

    /// Room for `n_tensors` ids, and for forgetting the answers of each of them.
    pub fn make_room(&mut self, n_tensors: usize) -> Result<(), OutOfMemory> {
        reserve_total(&mut self.described, n_tensors)?;
        reserve_total(&mut self.answers, n_tensors * self.n_backends)?;
        reserve_total(&mut self.forgotten, n_tensors * self.n_backends)
    }

    /// Whether every backend's answers are kept from one graph to the next (none is named by
    /// the switch).
    pub fn are_kept(&self) -> bool {
        !self.ask_again.contains(&true)
    }

    /// Room for `n_tensors` ids.
    fn grow(&mut self, n_tensors: usize) {
        if self.described.len() < n_tensors {
            self.described.resize(n_tensors, Kept::default());
            self.answers.resize(n_tensors * self.n_backends, NOT_ASKED);
        }
    }

    /// Before reading a graph: nothing forgotten in it yet.
    pub fn begin_reading(&mut self) {
        self.forgotten.clear();
    }

    /// Before planning a graph of `n_tensors` ids: room for them, and the answers of backends
    /// whose answers are not kept forgotten, as are those about buffer types.
    pub fn begin_graph(&mut self, n_tensors: usize) {
        self.grow(n_tensors);
        self.bufts.clear();
        for (backend, _) in self.ask_again.iter().enumerate().filter(|(_, &again)| again) {
            self.answers.iter_mut().skip(backend).step_by(self.n_backends).for_each(|a| *a = NOT_ASKED);
        }
    }

    /// Whether `tid`'s kept description is `tensor`'s; then marked as found so in split
    /// `epoch`.
    #[inline(always)]
    pub fn still_describes(&mut self, tid: Tid, tensor: Tensor, epoch: u32) -> bool {
        let i = tid as usize;
        let Some(kept) = self.described.get_mut(i) else { return false };
        let same = kept.description.as_ref().is_some_and(|d| tensor.is_described_by(d));
        if same {
            kept.same_in = epoch;
        }
        same
    }

    /// Asks for `tid`'s kept description to be brought into the caches (see
    /// [`crate::base::prefetch`]): read a few tensors later, after the compute has evicted it.
    #[inline(always)]
    pub fn prefetch(&self, tid: usize) {
        if let Some(kept) = self.described.get(tid) {
            crate::base::prefetch::prefetch(kept);
        }
    }

    /// Whether `tid`'s description was found unchanged in split `epoch`.
    #[inline(always)]
    pub fn is_same(&self, tid: Tid, epoch: u32) -> bool {
        self.described.get(tid as usize).is_some_and(|kept| kept.same_in == epoch)
    }

    /// `tid` is now `tensor`, about which nothing has been asked.
    pub fn learn(&mut self, tid: Tid, tensor: Tensor) {
        let i = tid as usize;
        self.grow(i + 1);
        let kept = &mut self.described[i];
        kept.same_in = 0;
        match &mut kept.description {
            Some(description) => tensor.describe_into(description),
            none => *none = Some(tensor.description()),
        }
        self.forget(tid);
    }

    /// Forgets `tid`'s answers (a source of it changed), listing them among the forgotten.
    pub fn forget(&mut self, tid: Tid) {
        let i = tid as usize;
        let kept = &mut self.answers[i * self.n_backends..(i + 1) * self.n_backends];
        for (backend, answers) in kept.iter_mut().enumerate() {
            if *answers != NOT_ASKED {
                self.forgotten.push(Forgotten { tid, backend, answers: *answers });
                *answers = NOT_ASKED;
            }
        }
    }

    /// The answers forgotten since [`Self::begin_reading`], taken out (to be asked again through
    /// `self`); [`Self::put_back`] returns the list's memory.
    pub fn take_forgotten(&mut self) -> Vec<Forgotten> {
        core::mem::take(&mut self.forgotten)
    }

    pub fn put_back(&mut self, mut forgotten: Vec<Forgotten>) {
        forgotten.clear();
        self.forgotten = forgotten;
    }

    /// The kept answer in `tid`'s bits at `shift` for `backend`, else `ask`'s, kept.
    #[inline(always)]
    fn kept_or_asked(&mut self, tid: Tid, backend: usize, shift: u32, ask: impl FnOnce() -> bool) -> bool {
        let a = &mut self.answers[tid as usize * self.n_backends + backend];
        match (*a >> shift) & 3 {
            NO => false,
            YES => true,
            _ => {
                let yes = ask();
                *a = (*a & !(3 << shift)) | ((if yes { YES } else { NO }) << shift);
                yes
            }
        }
    }

    /// `backend`'s `supports_op` about `tid`, asked once.
    #[inline(always)]
    pub fn supports_op(&mut self, tid: Tid, backend: usize, ask: impl FnOnce() -> bool) -> bool {
        self.kept_or_asked(tid, backend, SUPPORTS, ask)
    }

    /// `backend`'s `offload_op` about `tid`, asked once.
    #[inline(always)]
    pub fn offload_op(&mut self, tid: Tid, backend: usize, ask: impl FnOnce() -> bool) -> bool {
        self.kept_or_asked(tid, backend, OFFLOAD, ask)
    }

    /// Whether `backend` can use buffer type `buft`, asked once per graph.
    pub fn supports_buft(&mut self, backend: usize, buft: BuftId, ask: impl FnOnce() -> bool) -> bool {
        if let Some(&(_, _, yes)) = self.bufts.iter().find(|&&(b, t, _)| b == backend && t == buft) {
            return yes;
        }
        let yes = ask();
        // A cache: without room, the question is asked again next time.
        if self.bufts.try_reserve(1).is_ok() {
            self.bufts.push((backend, buft, yes));
        }
        yes
    }
}

#[cfg(test)]
mod tests {
    use super::super::arena::TensorArena;
    use super::*;
    use crate::abi::ggml_tensor;

    fn tensor(arena: &mut TensorArena, ne0: i64) -> Tensor {
        // SAFETY: all-zero is a valid tensor (NULL pointers, zero numbers, empty name).
        let mut t: ggml_tensor = unsafe { std::mem::zeroed() };
        t.ne = [ne0, 1, 1, 1];
        arena.make_room(1).unwrap();
        arena.alloc(t)
    }

    /// Asks through `answers` and counts the backend's calls.
    fn ask(answers: &mut Answers, tid: Tid, backend: usize, calls: &mut usize) -> bool {
        answers.supports_op(tid, backend, || {
            *calls += 1;
            backend == 0
        })
    }

    #[test]
    fn a_question_is_asked_once_while_the_tensor_is_described_the_same() {
        let mut arena = TensorArena::default();
        let t = tensor(&mut arena, 8);
        let mut answers = Answers::with_switch(&["ACCEL", "CPU"], b"").unwrap();
        let mut calls = 0;
        answers.learn(0, t);
        assert!(ask(&mut answers, 0, 0, &mut calls));
        assert!(!ask(&mut answers, 0, 1, &mut calls));
        assert!(ask(&mut answers, 0, 0, &mut calls));
        assert_eq!(calls, 2, "one call per backend");

        // the next evaluation: the same description keeps the answers
        answers.begin_graph(1);
        assert!(answers.still_describes(0, t, 2));
        assert!(answers.is_same(0, 2));
        assert!(!answers.is_same(0, 3));
        assert!(ask(&mut answers, 0, 0, &mut calls) && !ask(&mut answers, 0, 1, &mut calls));
        assert_eq!(calls, 2);
        let offload = answers.offload_op(0, 0, || true);
        assert!(offload && answers.offload_op(0, 0, || unreachable!("kept")), "offload_op is kept beside it");
        assert!(ask(&mut answers, 0, 0, &mut calls), "and does not overwrite supports_op");
    }

    #[test]
    fn a_changed_description_or_source_asks_again() {
        let mut arena = TensorArena::default();
        let t = tensor(&mut arena, 8);
        let mut answers = Answers::with_switch(&["CPU"], b"").unwrap();
        let mut calls = 0;
        answers.learn(0, t);
        ask(&mut answers, 0, 0, &mut calls);

        t.set_flags(1);
        assert!(!answers.still_describes(0, t, 2), "the flags are part of the description");
        assert!(!answers.is_same(0, 2));
        answers.learn(0, t);
        ask(&mut answers, 0, 0, &mut calls);
        assert_eq!(calls, 2);

        let longer = tensor(&mut arena, 9);
        assert!(!answers.still_describes(0, longer, 3), "so is the shape");
        assert!(answers.still_describes(0, t, 3));
        answers.forget(0); // what the scheduler does when a source changed
        ask(&mut answers, 0, 0, &mut calls);
        assert_eq!(calls, 3);
    }

    #[test]
    fn forgotten_answers_are_listed_with_what_they_were() {
        let mut arena = TensorArena::default();
        let t = tensor(&mut arena, 8);
        let mut answers = Answers::with_switch(&["ACCEL", "CPU"], b"").unwrap();
        answers.learn(0, t);
        answers.learn(1, t);
        answers.supports_op(0, 0, || true);
        answers.offload_op(0, 0, || false);
        answers.supports_op(0, 1, || false);
        answers.begin_reading();
        answers.forget(1); // nothing asked: nothing listed
        answers.forget(0);
        let forgotten = answers.take_forgotten();
        let listed: Vec<_> = forgotten.iter().map(|f| (f.tid, f.backend, f.supports_op(), f.offload_op())).collect();
        assert_eq!(listed, [(0, 0, Some(true), Some(false)), (0, 1, Some(false), None)]);
        assert!(!answers.supports_op(0, 0, || false), "forgotten, so asked again");
        answers.put_back(forgotten);
        answers.begin_reading();
        assert!(answers.take_forgotten().is_empty());
        assert!(answers.are_kept() && !Answers::with_switch(&["ACCEL", "CPU"], b"CPU").unwrap().are_kept());
    }

    #[test]
    fn the_switch_keeps_the_answers_of_the_backends_it_names_for_one_graph_only() {
        let mut arena = TensorArena::default();
        let t = tensor(&mut arena, 8);
        for (switch, asked_again) in [
            ("", [false, false]),
            ("ACCEL", [true, false]),
            (" CPU,ACCEL ", [true, true]),
            ("1", [true, true]),
            ("all", [true, true]),
            ("GPU", [false, false]),
        ] {
            let mut answers = Answers::with_switch(&["ACCEL", "CPU"], switch.as_bytes()).unwrap();
            answers.learn(0, t);
            let mut calls = [0, 0];
            for (backend, calls) in calls.iter_mut().enumerate() {
                ask(&mut answers, 0, backend, calls);
            }
            answers.begin_graph(1);
            assert!(answers.still_describes(0, t, 2));
            for (backend, calls) in calls.iter_mut().enumerate() {
                ask(&mut answers, 0, backend, calls);
                assert_eq!(*calls == 2, asked_again[backend], "switch {switch:?}, backend {backend}");
            }
        }
    }
}
