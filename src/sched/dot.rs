//! `GGML_SCHED_DOT=file`: after each split, write the graph as Graphviz, one cluster per
//! split, nodes filled with their backend's colour, and the copies between backends as dashed
//! edges, so that one can see where the graph was cut and why.

use super::Scheduler;
use crate::abi::{MACRO_PREFIX, PREFIX};
use crate::base::report::log_error;
use crate::base::text::Lossy;
use crate::handle::Graph;
use alloc::string::String;
use core::fmt::{self, Write as _};

const COLOURS: [&str; 8] =
    ["lightblue", "palegreen", "lightsalmon", "khaki", "plum", "lightgrey", "aquamarine", "pink"];

/// A name written inside a Graphviz string: backslashes and quotes escaped. Both are single
/// bytes that never occur inside a multi-byte character, so the text between them is shown as it
/// is.
struct Escaped<'a>(Lossy<'a>);

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for piece in self.0 .0.split_inclusive(|&b| b == b'\\' || b == b'"') {
            match piece.split_last() {
                Some((&special, text)) if special == b'\\' || special == b'"' => {
                    write!(f, "{}\\{}", Lossy(text), char::from(special))?;
                }
                _ => write!(f, "{}", Lossy(piece))?,
            }
        }
        Ok(())
    }
}

/// Writes the current splits of `graph` to `path`; failures are logged, not fatal. Out of
/// line, as [`Scheduler::print_assignments`] is.
#[cold]
#[inline(never)]
pub(super) fn write_splits(sched: &Scheduler, graph: Graph, path: &[u8]) {
    let nodes = graph.nodes();
    let mut out = String::from("digraph splits {\n  rankdir=TB;\n  node [shape=box, style=filled];\n");
    let backend_name = |b: usize| sched.backends.name(b);
    for b in 0..sched.backends.len() {
        let _ = writeln!(out, "  // backend {b}: {} = {}", backend_name(b), COLOURS[b % COLOURS.len()]);
    }
    for (s, split) in sched.planning.plan.splits.iter().enumerate() {
        let _ = writeln!(
            out,
            "  subgraph cluster_{s} {{\n    label=\"split {s}: {} ({} inputs)\";",
            Escaped(backend_name(split.backend)),
            split.inputs.len()
        );
        for (i, &node) in nodes.iter().enumerate().take(split.i_end).skip(split.i_start) {
            let backend = sched.reading.table.backend.get(sched.reading.node_tids[i] as usize).copied().unwrap_or(-1);
            let colour = if backend >= 0 { COLOURS[backend as usize % COLOURS.len()] } else { "white" };
            let shape = if node.is_view_op() { ", shape=ellipse" } else { "" };
            let _ = writeln!(
                out,
                "    n{:p} [label=\"#{i} {}\\n{}\", fillcolor={colour}{shape}];",
                node.as_ptr(),
                Escaped(node.name()),
                node.op_name()
            );
        }
        out.push_str("  }\n");
    }
    // Sources a node reads through a copy made for its split's backend: dashed, from the original.
    // The plan lists them in graph order, node by node and slot by slot, as they are met here.
    let mut rewrites = sched.planning.plan.rewrites.iter().peekable();
    for (i, &node) in nodes.iter().enumerate() {
        for (slot, src) in node.srcs().iter().enumerate().filter_map(|(slot, &s)| Some((slot, s?))) {
            match rewrites.next_if(|r| (r.node as usize, r.slot as usize) == (i, slot)).map(|r| r.src) {
                Some(original) => {
                    let _ = writeln!(
                        out,
                        "  n{:p} -> n{:p} [style=dashed, color=red, label=\"copy {}\"];",
                        sched.reading.tensors[original].as_ptr(),
                        node.as_ptr(),
                        Escaped(src.name())
                    );
                }
                None => {
                    let _ = writeln!(out, "  n{:p} -> n{:p};", src.as_ptr(), node.as_ptr());
                }
            }
        }
    }
    out.push_str("}\n");
    if let Err(e) = crate::base::os::write_file(path, out.as_bytes()) {
        log_error!("{PREFIX}ggml_backend_sched: cannot write {MACRO_PREFIX}GGML_SCHED_DOT file {}: {e}\n", Lossy(path));
    }
}

#[cfg(test)]
mod tests {
    use super::{Escaped, Lossy};
    use alloc::format;

    #[test]
    fn a_name_is_escaped_for_a_graphviz_string() {
        assert_eq!(format!("{}", Escaped(Lossy(r#"a "b" c\d é"#.as_bytes()))), r#"a \"b\" c\\d é"#);
        assert_eq!(format!("{}", Escaped(Lossy(b""))), "");
    }
}
