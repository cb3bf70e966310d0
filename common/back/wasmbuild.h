/*
 * wasmbuild: generated C to a WebAssembly module (nnc compile --emit
 * wasm) with clang's wasm32-wasi target, lld and wasi-libc.
 */
#ifndef NNL_WASMBUILD_H
#define NNL_WASMBUILD_H

/*
 * The code generation flags of a WebAssembly build (none beyond
 * wasm_build's own): warns about a --target, --target-triple or
 * --portable it ignores, and returns 0.
 */
int wasm_target(const char *target, const char *triple, int portable);

/*
 * Build csrc, whose API nnl-emit-c named with the C identifier pfx
 * (the caller's, never read back from the generated text, where a
 * model's names sit in comments), into the module out, a WASI reactor
 * that exports its memory, _initialize, the API's functions
 * (PFX_infer...), and the fixed names JavaScript calls:
 * nnl_infer, nnl_input_bytes, nnl_output_bytes, nnl_alloc, nnl_free.
 * tmp is a directory for the shim; messages name the module shown
 * (the path the caller delivers out to).  The compiler is
 * $NNC_WASM_CC, or clang.  Returns 0, or -1 after an error message.
 */
int wasm_build(const char *csrc, const char *pfx, const char *out,
    const char *shown, const char *tmp, int verbose);

#endif
