/*
 * report: one self-contained HTML page about a planned graph
 * (report.c), for nnc report: the graph drawn by Graphviz (dot.h), a
 * table of its nodes (op, output shape, parameters, multiply-adds,
 * arena offset and bytes), the memory plan drawn by memsvg.h, and the
 * weights.  The page loads nothing: no script, no style sheet, no font,
 * no image from anywhere.
 */
#ifndef NNL_REPORT_H
#define NNL_REPORT_H

#include "graph.h"

/*
 * Multiply-adds of node n: conv2d and convTranspose2d (one per filter
 * element and output, or input, element), gemm and matmul (one per
 * output element and element of the inner dimension); 0 for every
 * other op.  An activation folded into the node is not counted.
 */
uint64_t report_macs(const struct graph *g, const struct node *n);

/* Trained parameters n reads: elements of its constants from the
 * weights file (scalars and small constants a lowering adds are not). */
uint64_t report_params(const struct graph *g, const struct node *n);

/*
 * Write the page of g (typed, planned by nnl-plan-memory) to path,
 * atomically; title names the model.  0, or -1 after an error.
 */
int report_write(struct graph *g, const char *title, const char *path);

#endif
