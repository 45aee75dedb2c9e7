//! The debug listing of `GGML_SCHED_DEBUG` (1: splits and their inputs, 2: also every node),
//! in the reference's format.

use super::Scheduler;
use crate::base::report::log_debug;
use crate::handle::{Graph, Tensor};
use alloc::format;
use alloc::string::String;

impl Scheduler {
    /// The debug listing of GGML_SCHED_DEBUG (1: splits and their inputs, 2: also every node).
    pub(super) fn print_assignments(&self, graph: Graph) {
        let mut next_split = 0;
        for (i, &node) in graph.nodes().iter().enumerate() {
            if let Some(split) = self.planning.plan.splits.get(next_split).filter(|s| s.i_start == i) {
                let mut line = format!(
                    "\n## SPLIT #{next_split}: {} # {} inputs",
                    self.backends.name(split.backend),
                    split.inputs.len()
                );
                for (k, &input) in self.planning.plan.split_inputs[split.inputs.clone()].iter().enumerate() {
                    let t = self.reading.tensors[input as usize];
                    line +=
                        &format!("{}[{} ({:>5.5})] ", if k == 0 { ": " } else { "" }, t.name(), fmt_size(t.nbytes()));
                }
                log_debug!("{line}\n");
                next_split += 1;
            }
            if node.is_view_op() || self.debug < 2 {
                continue;
            }
            let uses = graph.use_count(node);
            // From 0.6 the line shows whether the node is computed; 0.7 names unary ops by their
            // function.
            #[cfg(sched_debug_compute_flag)]
            let uses = format!("{uses},c={}", i32::from(node.flags() & crate::abi::GGML_TENSOR_FLAG_COMPUTE != 0));
            let op = if cfg!(sched_debug_op_desc) { node.op_desc() } else { node.op_name() };
            let mut line = format!(
                "node #{i:3} ({op:>10.10}): {:>20.20} ({:>5.5}) [{:>5.5} {:>8.8}] use={uses}:",
                node.name(),
                fmt_size(node.nbytes()),
                self.assigned_backend_name(node),
                ""
            );
            for &src in node.srcs().iter().flatten() {
                line += &format!(
                    " {:>20.20} ({:>5.5}) [{:>5.5} {:>8.8}]",
                    src.name(),
                    fmt_size(src.nbytes()),
                    self.assigned_backend_name(src),
                    ""
                );
            }
            log_debug!("{line}\n");
        }
    }

    fn assigned_backend_name(&self, tensor: Tensor) -> String {
        let table = &self.reading.table;
        match table.lookup(tensor.addr()).map(|tid| table.backend[tid as usize]) {
            Some(b) if b >= 0 => self.backends.name(b as usize).into_owned(),
            _ => "NULL".into(),
        }
    }
}

fn fmt_size(size: usize) -> String {
    if size >= 1024 * 1024 {
        format!("{}M", size / 1024 / 1024)
    } else {
        format!("{}K", size / 1024)
    }
}
