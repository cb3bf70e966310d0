/*
 * wasmbuild: generated C to a WebAssembly module.  The kernels take
 * their portable path (common/rt/rt.h defines no x86 or NEON unit for
 * wasm32), which clang vectorizes with SIMD128; the weights come in
 * through the assembler's .incbin, so the module is self-contained.
 */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "pipeline.h"
#include "util.h"
#include "wasmbuild.h"

/* The API's functions, after the prefix, that the module exports:
 * nnl-emit-c declares each of them in every header. */
static const char *const api[] = {
	"infer", "input_size", "output_size", "input_bytes", "output_bytes",
	"workspace_size", "run", NULL
};

int
wasm_target(const char *target, const char *triple, int portable)
{
	if (target && strcmp(target, "generic") && strcmp(target, "wasm"))
		warn("--emit wasm: ignoring target \"%s\" (WebAssembly builds "
		    "use SIMD128)", target);
	if (triple)
		warn("--emit wasm: ignoring --target-triple %s "
		    "(wasm32-wasi)", triple);
	if (portable)
		warn("--emit wasm: ignoring --portable");
	return 0;
}

int
wasm_build(const char *csrc, const char *pfx, const char *out,
    const char *shown, const char *tmp, int verbose)
{
	char *shim, **cc;
	char *argv[64], *owned[16];
	const char *env = getenv("NNC_WASM_CC");
	struct buf b = { 0 };
	int k = 0, no = 0, rc;

	/* fixed names, so that one JavaScript runtime serves every model */
	buf_printf(&b, "/* nnc --emit wasm: the exports JavaScript calls. */\n"
	    "#include <stddef.h>\n#include <stdlib.h>\n\n"
	    "#define NNL_EXPORT(n) __attribute__((export_name(#n)))\n\n"
	    "int %s_infer(const void *, void *);\n"
	    "size_t %s_input_bytes(void);\nsize_t %s_output_bytes(void);\n\n"
	    "NNL_EXPORT(nnl_infer) int\nnnl_infer(const void *in, void *out)\n"
	    "{\n\treturn %s_infer(in, out);\n}\n\n"
	    "NNL_EXPORT(nnl_input_bytes) size_t\nnnl_input_bytes(void)\n"
	    "{\n\treturn %s_input_bytes();\n}\n\n"
	    "NNL_EXPORT(nnl_output_bytes) size_t\nnnl_output_bytes(void)\n"
	    "{\n\treturn %s_output_bytes();\n}\n\n"
	    "/* 64-byte aligned, as the kernels' vectors like */\n"
	    "NNL_EXPORT(nnl_alloc) void *\nnnl_alloc(size_t n)\n"
	    "{\n\treturn aligned_alloc(64, (n + 63) / 64 * 64);\n}\n\n"
	    "NNL_EXPORT(nnl_free) void\nnnl_free(void *p)\n"
	    "{\n\tfree(p);\n}\n", pfx, pfx, pfx, pfx, pfx, pfx);
	shim = xasprintf("%s/nnl_wasm_exports.c", tmp);
	if (writefile_atomic(shim, b.s, b.n) != 0) {
		free(b.s);
		free(shim);
		return -1;
	}
	free(b.s);
	/* NNC_WASM_CC as $CC: split at blanks, no shell */
	cc = words_split(env && *env ? env : "clang");
	if (!cc[0]) {
		words_free(cc);
		cc = words_split("clang");
	}
	for (int i = 0; cc[i]; i++) {
		if (k == 32) {
			error("NNC_WASM_CC: more than 32 words");
			words_free(cc);
			free(shim);
			return -1;
		}
		argv[k++] = cc[i];
	}
	argv[k++] = "--target=wasm32-wasi";
	argv[k++] = "-mexec-model=reactor";
	argv[k++] = "-O3";
	argv[k++] = "-msimd128";
	/* the stack first, so that running off its end traps instead of
	 * overwriting data; as large as a native thread's */
	argv[k++] = "-Wl,--stack-first";
	argv[k++] = "-Wl,-z,stack-size=8388608";
	for (int i = 0; api[i]; i++)
		argv[k++] = owned[no++] = xasprintf("-Wl,--export=%s_%s", pfx,
		    api[i]);
	argv[k++] = "-o";
	/* paths that no option or response file can be read from */
	argv[k++] = owned[no++] = argpath(out);
	argv[k++] = owned[no++] = argpath(csrc);
	argv[k++] = owned[no++] = argpath(shim);
	argv[k] = NULL;
	rc = run_command(argv, verbose);
	if (rc != 0)
		error("%s: the WebAssembly build failed (%s, with lld and "
		    "wasi-libc)", shown, cc[0]);
	for (int i = 0; i < no; i++)
		free(owned[i]);
	words_free(cc);
	free(shim);
	return rc == 0 ? 0 : -1;
}
