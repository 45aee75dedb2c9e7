//! `WSP_GGML_SCHED_DOT=file`: after each split, write the graph as Graphviz, one cluster per
//! split, nodes filled with their backend's colour, and the copies between backends as dashed
//! edges, so that one can see where the graph was cut and why.

use super::{is_view_op, wsp_ggml_backend_sched};
use crate::abi::*;
use crate::ggml::{c_str_lossy, log_error, tensor_name, wsp_ggml_op_name};
use std::fmt::Write as _;
use std::path::Path;

const COLOURS: [&str; 8] = ["lightblue", "palegreen", "lightsalmon", "khaki", "plum", "lightgrey", "aquamarine", "pink"];

fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Writes the current splits of `graph` to `path`; failures are logged, not fatal.
///
/// # Safety
/// The graph and its tensors are live.
pub(super) unsafe fn write_splits(sched: &wsp_ggml_backend_sched, graph: &mut wsp_ggml_cgraph, path: &Path) {
    let nodes = crate::utils::graph_nodes(graph);
    let mut out = String::from("digraph splits {\n  rankdir=TB;\n  node [shape=box, style=filled];\n");
    let backend_name = |b: usize| c_str_lossy(crate::backend::wsp_ggml_backend_name(sched.backends[b])).into_owned();
    for (b, _) in sched.backends.iter().enumerate() {
        let _ = writeln!(out, "  // backend {b}: {} = {}", backend_name(b), COLOURS[b % COLOURS.len()]);
    }
    for (s, split) in sched.plan.splits.iter().enumerate() {
        let _ = writeln!(
            out,
            "  subgraph cluster_{s} {{\n    label=\"split {s}: {} ({} inputs)\";",
            escape(&backend_name(split.backend)),
            split.inputs.len()
        );
        for (i, &node) in nodes.iter().enumerate().take(split.i_end).skip(split.i_start) {
            let backend = sched.table.backend.get(sched.node_tids[i] as usize).copied().unwrap_or(-1);
            let colour = if backend >= 0 { COLOURS[backend as usize % COLOURS.len()] } else { "white" };
            let shape = if is_view_op((*node).op) { ", shape=ellipse" } else { "" };
            let _ = writeln!(
                out,
                "    n{:p} [label=\"#{i} {}\\n{}\", fillcolor={colour}{shape}];",
                node,
                escape(&tensor_name(node)),
                c_str_lossy(wsp_ggml_op_name((*node).op))
            );
        }
        out.push_str("  }\n");
    }
    // Sources a node reads through a copy made for its split's backend: dashed, from the original.
    let rewritten: std::collections::HashMap<(usize, usize), usize> = sched
        .plan
        .rewrites
        .iter()
        .map(|r| ((r.node as usize, r.slot as usize), r.src as usize))
        .collect();
    for (i, &node) in nodes.iter().enumerate() {
        for (slot, &src) in (*node).src.iter().enumerate().filter(|(_, s)| !s.is_null()) {
            match rewritten.get(&(i, slot)) {
                Some(&original) => {
                    let _ = writeln!(
                        out,
                        "  n{:p} -> n{:p} [style=dashed, color=red, label=\"copy {}\"];",
                        sched.tensors[original],
                        node,
                        escape(&tensor_name(src))
                    );
                }
                None => {
                    let _ = writeln!(out, "  n{:p} -> n{:p};", src, node);
                }
            }
        }
    }
    out.push_str("}\n");
    if let Err(e) = std::fs::write(path, out) {
        log_error!("wsp_ggml_backend_sched: cannot write WSP_GGML_SCHED_DOT file {}: {e}\n", path.display());
    }
}
