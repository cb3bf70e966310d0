/*
 * progress: one line on standard error, rewritten in place, while a
 * long step runs ("nnl-onnx-import: nodes 512/1024 (50%)").  Only when
 * standard error is a terminal and NNL_PROGRESS is not "0"; nothing at
 * all otherwise, so logs and pipes see no extra bytes.
 */
#ifndef NNL_PROGRESS_H
#define NNL_PROGRESS_H

#include <stdint.h>

/* Begin a step named what; total items, 0 when not counted. */
void progress_start(const char *what, uint64_t total);
/* done items of the step: redrawn at most every 100 ms, and at the end. */
void progress_tick(uint64_t done);
/* Erase the line (diagnostics call it before they print; at exit too). */
void progress_clear(void);
/* Nothing more from this process (e.g. under -v). */
void progress_off(void);

#endif
