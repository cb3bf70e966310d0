/*
 * nnc: the driver.  compile, test and inspect compose the nnl passes as
 * separate processes on pipes, exactly as a shell or Make pipeline
 * would, then hand the C to the system compiler.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checked.h"
#include "dimsfile.h"
#include "graph.h"
#include "escape.h"
#include "footprint.h"
#include "infile.h"
#include "modelpath.h"
#include "nnc-test.h"
#include "nnl.h"
#include "pipeline.h"
#include "dot.h"
#include "report.h"
#include "progress.h"
#include "scaffold.h"
#include "summary.h"
#include "threads.h"
#include "util.h"
#include "wasmbuild.h"

#define NNC_VERSION "0.1.0"
/* --cflag options a command line may give */
#define NNC_MAXCFLAGS 16

NNL_NORETURN static void
usage(void)
{
	fprintf(stderr,
	    "usage: nnc compile [-v] [--save-temps] [--passes file] "
	    "[--emit kind] [-o out]\n"
	    "           [--target name] [--portable] [--target-triple triple]\n"
	    "           [--cflag flag] [--prefix name] [--weights file|embed]\n"
	    "           [--threads n] [--dim NAME=N ...] [--dims file.json]\n"
	    "           [--bound n] [--max-tensor-bytes size] "
	    "[--allow-outside] model\n"
	    "       nnc test [-v] [--tolerance t] [--target name] [--portable]\n"
	    "           [--target-triple triple] [--threads n]\n"
	    "           [--dim NAME=N ...] [--dims file.json] [--bound n]\n"
	    "           --input [NAME=]in.npy|in.npz ...\n"
	    "           --expected [NAME=]out.npy|out.npz ...\n"
	    "           [--max-tensor-bytes size] [--allow-outside] model\n"
	    "       nnc inspect [--fused] [--svg file.svg] [--target-triple triple]\n"
	    "           [--cflag flag] [--dim NAME=N ...] [--dims file.json]\n"
	    "           [--bound n] [--max-tensor-bytes size] "
	    "[--allow-outside] model\n"
	    "       nnc report [-v] -o file.html [--dim NAME=N ...] "
	    "[--dims file.json]\n"
	    "           [--bound n] [--max-tensor-bytes size] "
	    "[--allow-outside] model\n"
	    "       nnc import [-v] [-o model.nnl|model.json|model.webnn] "
	    "[--weights-dir dir]\n"
	    "           [--unsupported error|comment] [--dim NAME=N ...] "
	    "[--dims file.json]\n"
	    "           [--bound n] [--max-tensor-bytes size] "
	    "[--allow-outside] model.onnx\n"
	    "       nnc new dir --project rust|go|cpp|python\n"
	    "       nnc --version\n");
	exit(2);
}

struct opts {
	const char *model, *out, *emit, *triple, *passes, *target;
	const char *prefix;	/* --prefix: the API's; NULL: the model's */
	const char *weights;	/* --weights file|embed */
	int verbose, savetemps, portable;
	int threads;	/* --threads, 0 if not given */
	int testing;	/* nnc test: a main() whatever the model's io */
	const char *cflag[NNC_MAXCFLAGS];	/* --cflag, in order */
	int ncflag;
	struct footprint *footprint;	/* a target build's, when not NULL */
	int fused;	/* nnc inspect --fused: the graph nnc compiles */
	const char *unsup;	/* nnc import --unsupported */
	int outside;	/* --allow-outside, for the front end */
	struct testio *tio;	/* nnc test's arrays, bound when compiled */
	const char **dims;	/* --dim NAME=N, for the ONNX importer */
	int ndims;
	char *dimsfile;		/* --dims, absolute */
	const char *bound;	/* --bound, for the ONNX importer */
};

static char *modelabs;	/* the model's absolute path */

/* nnc's temporary folder, under $TMPDIR; with --save-temps (keeptmp)
 * in the current directory, beside the other files it keeps, and kept
 * unless empty, so that every command -v printed names files still
 * there. */
static char *tmpdir;
static int keeptmp;

static void
rmtmp(void)
{
	/* (an empty one, left by an early error, is not kept) */
	if (tmpdir && keeptmp && rmdir(tmpdir) != 0) {
		fprintf(stderr, "%s: --save-temps: kept %s\n",
		    getprogname_nnl(), escape_tty_name(tmpdir));
		free(tmpdir);
		tmpdir = NULL;
	} else if (tmpdir) {
		char *dir = argpath(tmpdir);
		char *argv[] = { "rm", "-rf", dir, NULL };

		run_command(argv, 0);
		free(dir);
		free(tmpdir);
		tmpdir = NULL;
	}
}

static const char *
maketmp(void)
{
	if (!tmpdir) {
		const char *t = keeptmp ? "." : getenv("TMPDIR");
		char *tpl = xasprintf("%s/nnc.XXXXXX", t && *t ? t : "/tmp");

		if (!mkdtemp(tpl))
			die("mkdtemp %s: %s", tpl, strerror(errno));
		tmpdir = tpl;
		atexit(rmtmp);
		/* absolute: the passes run in it (pipeline_workdir), and
		 * no path in it starts with '-' or '@' */
		if (!(tmpdir = realpath(tpl, NULL))) {
			tmpdir = tpl;
			die("%s: %s", tpl, strerror(errno));
		}
		free(tpl);
	}
	return tmpdir;
}

/* "dir/model.nnl" -> "model" */
static char *
stem(const char *path)
{
	const char *b = path_basename(path), *dot = strrchr(b, '.');

	return dot && dot != b ? xstrndup(b, (size_t)(dot - b)) : xstrdup(b);
}

static int
endswith(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n >= m && strcmp(s + n - m, suf) == 0;
}

/* The pass list: --passes FILE, else pipelines/c.passes beside the
 * programs, else the built-in default. */
static char **
readpasses(const char *file, int *n)
{
	char *path = file ? xstrdup(file) : NULL, *text, *line, *save = NULL;
	char **v = NULL;
	size_t cap = 0;

	*n = 0;
	if (!path) {
		static const char *const tries[] = {
		    "../pipelines/c.passes", "../share/nnl/pipelines/c.passes"
		};
		char *self = find_program("nnc");
		char *dir = path_dirname(self);

		for (size_t i = 0; i < 2 && !path; i++) {
			char *p = path_join(dir, tries[i]);

			if (access(p, R_OK) == 0)
				path = p;
			else
				free(p);
		}
		free(self);
		free(dir);
	}
	text = path ? readfile(path, NULL) : xstrdup("nnl-reorder\n"
	    "nnl-shape-infer\nnnl-fuse -e winograd -e panels -e ihwo "
	    "-e residual\n"
	    "nnl-plan-memory\n");
	if (!text)
		die("%s: %s", path, strerror(errno));
	for (line = strtok_r(text, "\n", &save); line;
	    line = strtok_r(NULL, "\n", &save)) {
		while (*line == ' ' || *line == '\t')
			line++;
		if (!*line || *line == '#')
			continue;
		GROW(v, cap, (size_t)*n + 2);
		v[(*n)++] = xstrdup(line);
	}
	free(text);
	free(path);
	return v;
}

/* Split a pass line into argv; the program found beside nnc. */
static char **
splitargs(const char *line)
{
	char *s = xstrdup(line), *tok, *save = NULL;
	char **v = NULL;
	size_t cap = 0, n = 0;

	for (tok = strtok_r(s, " \t", &save); tok;
	    tok = strtok_r(NULL, " \t", &save)) {
		GROW(v, cap, n + 2);
		if (n == 0 && !strchr(tok, '/'))
			v[n] = find_program(tok);
		else if (tok[0] != '/' && strchr(tok, '/')) {
			/* a relative path: from the caller's directory */
			char *abs = realpath(tok, NULL);

			v[n] = abs ? abs : xstrdup(tok);
		} else {
			v[n] = xstrdup(tok);
		}
		n++;
	}
	GROW(v, cap, n + 1);
	v[n] = NULL;
	free(s);
	return v;
}

/* --threads N for nnl-plan-memory in a pass line: it sizes the
 * kernels' workspace for them (after the line's own arguments). */
static void
threadsarg(char ***argv, int n)
{
	size_t k = 0;
	char **v = *argv;

	if (strcmp(path_basename(v[0]), "nnl-plan-memory"))
		return;
	while (v[k])
		k++;
	v = xrealloc(v, (k + 3) * sizeof *v);
	v[k++] = xstrdup("--threads");
	v[k++] = xasprintf("%d", n);
	v[k] = NULL;
	*argv = v;
}

/* a[i], a[i + 1]: the model, after --allow-outside when it was given,
 * for the front end that reads the files the model names. */
static void
outsidearg(const struct opts *o, char **a, int i, char *model)
{
	if (o->outside)
		a[i++] = MODELPATH_FLAG;
	a[i] = model;
}

/* a[i], ...: the symbolic dimensions nnc was given for nnl-onnx-import,
 * each --dim as -d NAME=N, then --dims FILE, then --bound N (a has
 * room for 2 * o->ndims + 4 of them); the index after them. */
static int
dimsargs(const struct opts *o, char **a, int i)
{
	for (int k = 0; k < o->ndims; k++) {
		a[i++] = "-d";
		a[i++] = (char *)o->dims[k];
	}
	if (o->dimsfile) {
		a[i++] = "--dims";
		a[i++] = o->dimsfile;
	}
	if (o->bound) {
		a[i++] = "--bound";
		a[i++] = (char *)o->bound;
	}
	return i;
}

/*
 * Front end and passes: model -> planned JSON at jsonpath.  .nnl
 * models pack their weights into the temporary directory, ONNX models
 * import theirs there; with --save-temps, into the current directory
 * (STEM.weights), where the kept graphs can still find them.
 */
static int
tojson(const struct opts *o, const char *jsonpath)
{
	int npass, rc, ns = 0;
	char **lines = readpasses(o->passes, &npass);
	struct stage *st = xcalloc((size_t)npass + 2, sizeof *st);
	char *parse = find_program("nnl-parse");
	char *stemp = o->savetemps ? stem(o->out ? o->out : o->model) : NULL;
	char *here = o->savetemps ? realpath(".", NULL) : NULL;
	const char *dir;
	char *w, *m, *onnx = NULL;

	if (o->savetemps && !here)
		die(".: %s", strerror(errno));
	dir = here ? here : maketmp();
	w = xasprintf("%s/%s.weights", dir, stemp ? stemp : "model");
	m = xasprintf("%s/%s.manifest.json", dir, stemp ? stemp : "model");
	/* the passes run in the temporary directory, where whatever they
	 * write (fused weights, packed NNL weights) belongs; with
	 * --save-temps, beside the graphs that name it */
	pipeline_workdir(dir);
	if (endswith(o->model, ".nnl")) {
		char **a = xcalloc(8, sizeof *a);

		a[0] = parse;
		a[1] = "-w";
		a[2] = w;
		a[3] = "-m";
		a[4] = m;
		outsidearg(o, a, 5, modelabs);
		st[ns++].argv = a;
	} else if (endswith(o->model, ".onnx")) {
		char **a = xcalloc(12 + 2 * (size_t)o->ndims, sizeof *a);

		a[0] = onnx = find_program("nnl-onnx-import");
		a[1] = "-w";
		a[2] = w;
		a[3] = "-m";
		a[4] = m;
		outsidearg(o, a, dimsargs(o, a, 5), modelabs);
		st[ns++].argv = a;
	} else {
		char **a = xcalloc(4, sizeof *a);

		a[0] = parse;
		outsidearg(o, a, 1, modelabs);
		st[ns++].argv = a;
	}
	for (int i = 0; i < npass; i++) {
		st[ns++].argv = splitargs(lines[i]);
		if (o->threads)
			threadsarg(&st[ns - 1].argv, o->threads);
	}
	rc = pipeline_run(st, ns, NULL, jsonpath, stemp, o->verbose);
	pipeline_workdir(NULL);
	for (int i = 0; i < ns; i++) {
		if (i > 0)
			for (char **p = st[i].argv; *p; p++)
				free(*p);
		free(st[i].argv);
	}
	for (int i = 0; i < npass; i++)
		free(lines[i]);
	free(lines);
	free(st);
	free(parse);
	free(onnx);
	free(w);
	free(m);
	free(stemp);
	free(here);
	return rc;
}

static int makedirs(const char *dir);

/*
 * nnc import: an ONNX model to canonical JSON (nnl-onnx-import), its
 * weights beside it or in weightsdir; or, for an .nnl output (the
 * default, MODEL.nnl with ./weights), on through nnl-parse -t nnl to an
 * NNL model and its .npy weights.
 */
static int
import(const struct opts *o, const char *weightsdir)
{
	char *st = stem(o->model);
	char *out = o->out ? xstrdup(o->out) : xasprintf("%s.nnl", st);
	char *base = stem(out), *od = path_dirname(out);
	int nnl = endswith(out, ".nnl");
	char *dir = weightsdir ? xstrdup(weightsdir) : nnl ?
	    xstrdup("weights") : xstrdup(od);
	char *json = nnl ? xasprintf("%s/model.json", maketmp()) :
	    xstrdup(out);
	char *w = nnl ? xasprintf("%s/model.weights", tmpdir) :
	    xasprintf("%s/%s.weights", dir, base);
	char *m = nnl ? xasprintf("%s/model.manifest.json", tmpdir) :
	    xasprintf("%s/%s.manifest.json", dir, base);
	char *prog = find_program("nnl-onnx-import");
	char *parse = find_program("nnl-parse");
	char *modelarg = argpath(o->model), *jsonarg = argpath(json);
	char **argv = xcalloc(16 + 2 * (size_t)o->ndims, sizeof *argv);
	int rc = 0, k;

	if (!nnl && !endswith(out, ".json") && !endswith(out, ".webnn")) {
		error("%s: nnc import writes an NNL model (.nnl), canonical "
		    "JSON (.json) or .webnn text (.webnn)", out);
		rc = -1;
	} else if (endswith(out, ".webnn") && weightsdir) {
		/* the text names no weights: they must lie beside it */
		error("%s: .webnn text finds its weights beside it; "
		    "--weights-dir is for .json and .nnl", out);
		rc = -1;
	} else if (makedirs(od) != 0 || (!nnl && weightsdir &&
	    makedirs(dir) != 0)) {
		rc = -1;
	}
	argv[0] = prog;
	argv[1] = "-o";
	argv[2] = json;
	argv[3] = "-w";
	argv[4] = w;
	argv[5] = "-m";
	argv[6] = m;
	k = 7;
	if (nnl)
		argv[k++] = "-a";	/* origins, for nnl_write */
	k = dimsargs(o, argv, k);
	outsidearg(o, argv, k, modelarg);
	argv[k + 1 + o->outside] = NULL;
	if (rc == 0)
		rc = run_command(argv, o->verbose);
	if (rc == 0 && nnl) {
		argv[0] = parse;
		argv[1] = "-t";
		argv[2] = "nnl";
		argv[3] = "-o";
		argv[4] = out;
		argv[5] = "-d";
		argv[6] = dir;
		argv[7] = "-u";
		argv[8] = (char *)(o->unsup ? o->unsup : "error");
		/* nnc's own graph, in its temporary directory */
		argv[9] = MODELPATH_FLAG;
		argv[10] = jsonarg;
		argv[11] = NULL;
		rc = run_command(argv, o->verbose);
	}
	free(st);
	free(out);
	free(base);
	free(od);
	free(dir);
	free(json);
	free(w);
	free(m);
	free(prog);
	free(parse);
	free(modelarg);
	free(jsonarg);
	free(argv);
	return rc;
}

static const cJSON *
config(const struct graph *g, const char *key)
{
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(g->extra, "nnl");

	return cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(n, "config"), key);
}

/* Whether a triple names a bare-metal ARM target (arm-none-eabi,
 * thumbv7em-none-eabi, ...): Debian's arm-none-eabi-gcc and newlib. */
static int
baremetal(const char *triple)
{
	size_t n = triple ? strlen(triple) : 0;

	return n && (!strncmp(triple, "arm", 3) || !strncmp(triple, "thumb",
	    5)) && (strstr(triple, "-none-eabi") != NULL);
}

/* The C compiler (tool "cc") or archiver ("ar") as words: TRIPLE-gcc
 * (arm-none-eabi-gcc for the bare-metal ARM triples), else $CC or $AR
 * split at blanks with no shell (words_split: "ccache gcc"), else the
 * tool. */
static char **
compiler(const char *triple, const char *tool)
{
	const char *cc = getenv(strcmp(tool, "ar") ? "CC" : "AR");
	char **v;

	if (triple) {
		v = xcalloc(2, sizeof *v);
		v[0] = xasprintf("%s-%s", baremetal(triple) ?
		    "arm-none-eabi" : triple, strcmp(tool, "ar") ? "gcc" :
		    "ar");
		return v;
	}
	v = words_split(cc);
	if (!v[0]) {
		free(v);
		v = xcalloc(2, sizeof *v);
		v[0] = xstrdup(tool);
	}
	return v;
}

/* How many words a NULL-terminated vector holds. */
static size_t
nwords(char **v)
{
	size_t n = 0;

	while (v[n])
		n++;
	return n;
}

/* Whether a triple (NULL: this host) names an x86 or an ARM machine. */
static int
isx86(const char *triple)
{
	if (!triple)
#if defined(__x86_64__) || defined(__i386__)
		return 1;
#else
		return 0;
#endif
	return !strncmp(triple, "x86_64", 6) || (triple[0] == 'i' &&
	    strchr("3456", triple[1]) && !strncmp(triple + 2, "86", 2));
}

static int
isarm(const char *triple)
{
	if (!triple)
#if defined(__aarch64__) || defined(__arm__)
		return 1;
#else
		return 0;
#endif
	return !strncmp(triple, "aarch64", 7) || !strncmp(triple, "arm", 3);
}

static int targetflags(const struct opts *o, const struct graph *g,
    const char **f);

/*
 * The machine $CC builds for, when $CC is set and builds for another
 * architecture than this host ("aarch64-linux-gnu" from -dumpmachine);
 * NULL otherwise, and then the host's flags are right.
 */
static char *
ccmachine(void)
{
	const char *cc = getenv("CC");
	char line[256], **v;
	size_t n;

	if (!cc || !*cc)
		return NULL;
	v = words_split(cc);
	n = nwords(v);
	if (n == 0) {
		free(v);
		return NULL;
	}
	v = xrealloc(v, (n + 2) * sizeof *v);
	v[n] = xstrdup("-dumpmachine");
	v[n + 1] = NULL;
	if (run_capture(v, line, sizeof line) != 0)
		line[0] = '\0';
	words_free(v);
	line[strcspn(line, "\r\n")] = '\0';
	if (!line[0] || (isx86(line) == isx86(NULL) &&
	    isarm(line) == isarm(NULL)))
		return NULL;
	return xstrdup(line);
}

/*
 * NNC_CFLAGS, split at blanks, into f (at most NNC_MAXCFLAGS words):
 * flags for this host's C compiler after nnc's own, e.g. make
 * check-asan's sanitizers.  No shell reads them, so no quoting: a word
 * holds no blank.  A build for another machine (--target-triple, or a
 * $CC for another architecture) takes none, as the WebAssembly build
 * (wasm_build) does not: its compiler needs flags of its own.
 */
static int
envflags(const struct opts *o, const char **f)
{
	static char **words;
	const char *e = getenv("NNC_CFLAGS");
	char *mach;
	int n;

	if (!e || !*e || o->triple)
		return 0;
	if ((mach = ccmachine()) != NULL) {
		free(mach);
		return 0;
	}
	words_free(words);
	words = words_split(e);
	for (n = 0; words[n]; n++) {
		if (n == NNC_MAXCFLAGS) {
			error("NNC_CFLAGS: more than %d words", NNC_MAXCFLAGS);
			return -1;
		}
		f[n] = words[n];
	}
	return n;
}

/*
 * The code generation flags, into f (at most 8, then NNC_CFLAGS's
 * words, then the --cflag options): the target is
 * --target, else the model's config "target", else "native" for this
 * host and "generic" under --target-triple.  native builds for the
 * machine nnc runs on (-march=native); avx2 and avx512 for x86 with
 * those units; arm_neon for ARM (NEON is part of AArch64; 32-bit ARM
 * must ask for it); generic for the instruction set's baseline.  A
 * target for another architecture than the compiler's is dropped with
 * a warning, so no host flag reaches a cross compiler.  --portable
 * builds for the baseline, with the SGEMM kernels of every x86
 * extension chosen at run time (common/rt/rt.h's NNL_RT_DISPATCH).
 * A bare-metal triple builds for a Cortex-M4F (m4flags).  NNC_CFLAGS
 * (envflags) and the --cflag options come last.
 */
static int
cflags(const struct opts *o, const struct graph *g, const char **f)
{
	int n = targetflags(o, g, f), k;

	if (n >= 0 && (k = envflags(o, f + n)) >= 0)
		n += k;
	else
		return -1;
	/* --cflag last: GCC takes the last of conflicting options */
	for (int i = 0; n >= 0 && i < o->ncflag; i++)
		f[n++] = o->cflag[i];
	return n;
}

/*
 * Flags for a bare-metal ARM triple: a Cortex-M4F (Thumb-2, the
 * single-precision FPU with the hard-float ABI), newlib-nano, and one
 * section per function and object so that the firmware's link can drop
 * what it does not call (--gc-sections).  --cflag changes them, e.g.
 * --cflag -mcpu=cortex-m7 --cflag -mfpu=fpv5-d16.
 */
static const char *const m4flags[] = {
	"-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16",
	"--specs=nano.specs", "-ffunction-sections", "-fdata-sections"
};

static int
targetflags(const struct opts *o, const struct graph *g, const char **f)
{
	const cJSON *ct = config(g, "target");
	const char *t = o->target ? o->target : cJSON_IsString(ct) ?
	    ct->valuestring : o->triple || o->portable ? "generic" : "native";
	int n = 0;
	char *mach = o->triple ? NULL : ccmachine();
	const char *tr = o->triple ? o->triple : mach;

	f[n++] = "-O2";
	if (baremetal(o->triple)) {
		for (size_t i = 0; i < sizeof m4flags / sizeof *m4flags; i++)
			f[n++] = m4flags[i];
		if (o->portable)
			warn("%s: ignoring --portable: building for a "
			    "Cortex-M4F (change with --cflag)", o->triple);
		else if (strcmp(t, "generic"))
			warn("%s: ignoring target \"%s\": building for a "
			    "Cortex-M4F (change with --cflag)", o->triple,
			    escape_tty_name(t));
		return n;
	}
	if (o->portable) {
		f[n++] = "-DNNL_RT_DISPATCH";
		if (strcmp(t, "generic"))
			warn("--portable: ignoring target \"%s\"", t);
		free(mach);
		return n;
	}
	if (!strcmp(t, "native")) {
		if (tr)
			warn("target \"native\" names this host, not %s: "
			    "building for its baseline", escape_tty_name(tr));
		else
			f[n++] = "-march=native";
	} else if (!strcmp(t, "avx2") || !strcmp(t, "avx512")) {
		if (!isx86(tr)) {
			warn("target \"%s\" is for x86, not %s: building for "
			    "the baseline", t, tr ? tr :
			    "this host");
		} else {
			f[n++] = t[3] == '2' ? "-mavx2" : "-mavx512f";
			f[n++] = "-mfma";
		}
	} else if (!strcmp(t, "arm_neon")) {
		if (!isarm(tr))
			warn("target \"arm_neon\" is for ARM, not %s: building "
			    "for the baseline", tr ? tr :
			    "this host");
		else if (tr ? strncmp(tr, "aarch64", 7) :
#ifdef __aarch64__
		    0
#else
		    1
#endif
		    ) {
			/* 32-bit ARM: NEON, and the FP registers to use it,
			 * keeping the soft-float calling convention unless
			 * the triple is hard-float */
			f[n++] = "-mfpu=neon";
			if (!tr || !endswith(tr, "hf"))
				f[n++] = "-mfloat-abi=softfp";
		}
	} else if (strcmp(t, "generic")) {
		error("target \"%s\": expected native, generic, avx2, avx512 "
		    "or arm_neon", t);
		free(mach);
		return -1;
	}
	free(mach);
	return n;
}

static int
copyfile(const char *from, const char *to)
{
	size_t n;
	const char *why;
	/* a graph's weights and manifest: regular files only */
	char *b = infile_read(from, UINT64_MAX, &n, &why);
	int rc;

	if (!b) {
		error("%s: %s", from, why);
		return -1;
	}
	rc = writefile_atomic(to, b, n);
	free(b);
	return rc;
}

/* mkdir -p */
static int
makedirs(const char *dir)
{
	char *p = xstrdup(dir);

	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0777);
			*s = '/';
		}
	if (mkdir(p, 0777) != 0 && errno != EEXIST) {
		error("%s: %s", p, strerror(errno));
		free(p);
		return -1;
	}
	free(p);
	return 0;
}

/*
 * Generated C that outlives nnc finds its weights beside it, through
 * __FILE__ (nnl-emit-c -e beside): a copy named SOURCE.weights.
 */
static int
keepweights(const char *json, const char *csrc)
{
	struct graph *g = graph_load(json);
	char *w;
	int rc;

	if (!g)
		return -1;
	if (!g->weights_file) {
		graph_free(g);
		return 0;
	}
	w = xasprintf("%s.weights", csrc);
	rc = copyfile(g->weights_file, w);
	free(w);
	graph_free(g);
	return rc;
}

/*
 * Deliver a file nnc made in its temporary directory to the path the
 * user named, through outfile (nnl(7) FILES): a regular file replaced
 * by rename, keeping its mode; a FIFO or a device written in place; a
 * link kept, its target replaced.  how: 0 text ("-" is standard
 * output), 1 binary ("-" is a file), 2 an executable binary (a new file
 * gets 0777 less the umask, a replaced one execute bits where it has
 * read bits).  0, or -1 after an error.
 */
static int
deliver(const char *from, const char *to, int how)
{
	struct outfile of;
	char buf[1 << 16];
	size_t n;
	FILE *in = fopen(from, "rb");

	if (!in) {
		error("%s: %s", from, strerror(errno));
		return -1;
	}
	if (how && !strcmp(to, "-"))
		to = "./-";
	if (outfile_open(&of, to) != 0) {
		fclose(in);
		return -1;
	}
	while ((n = fread(buf, 1, sizeof buf, in)) > 0)
		if (fwrite(buf, 1, n, of.fp) != n)
			break;
	if (ferror(in) || ferror(of.fp)) {
		error("%s: write error: %s", to, strerror(errno));
		fclose(in);
		outfile_abort(&of);
		return -1;
	}
	fclose(in);
	if (how == 2 && of.tmp) {
		mode_t m = umask(0);

		umask(m);
		of.mode = of.mode < 0 ? (int)(0777 & ~m) :
		    of.mode | (of.mode & 0444) >> 2;
	}
	return outfile_commit(&of);
}

/* --emit c, --save-temps: the source, its header and the weights
 * beside it (when there are) all or none. */
static int
deliverc(const char *tsrc, const char *thdr, const char *csrc,
    const char *chdr)
{
	char *tw = xasprintf("%s.weights", tsrc);
	char *w = xasprintf("%s.weights", csrc);
	int rc = -1;

	outfile_group_begin();
	if (deliver(thdr, chdr, 0) == 0 && deliver(tsrc, csrc, 0) == 0 &&
	    (access(tw, F_OK) != 0 || deliver(tw, w, 1) == 0) &&
	    outfile_group_commit() == 0)
		rc = 0;
	else
		outfile_group_abort();
	free(tw);
	free(w);
	return rc;
}

static char *
humanb(uint64_t b, char *buf, size_t len)
{
	if (b >= 1024 * 1024)
		snprintf(buf, len, "%.2f MB", (double)b / (1024 * 1024));
	else if (b >= 1024)
		snprintf(buf, len, "%.1f KB", (double)b / 1024);
	else
		snprintf(buf, len, "%llu B", (unsigned long long)b);
	return buf;
}

/*
 * A target build's flash (text + rodata + data) and RAM (data + bss)
 * from its object, into *fp when fp is not NULL; the model's
 * memory_limit applies to their sum (E009, as nnl-plan-memory's to
 * weights + arena).  The weights are rodata, the arena bss.
 */
static int
targetcheck(const struct opts *o, const char *json, const char *object,
    struct footprint *fp)
{
	struct footprint f;
	struct graph *g;
	const cJSON *ml;
	int64_t limit = -1;
	uint64_t total;
	char b1[32], b2[32], b3[32], b4[32];
	int rc = 0;

	if (footprint_read(object, &f) != 0)
		return -1;
	if (fp)
		*fp = f;
	total = footprint_flash(&f) + footprint_ram(&f);
	if ((g = graph_load(json)) != NULL) {
		ml = config(g, "memory_limit");
		if (cJSON_IsString(ml))
			limit = footprint_parsesize(ml->valuestring);
		graph_free(g);
	}
	if (limit >= 0 && total > (uint64_t)limit) {
		error("%s: E009: the %s build needs %s (flash %s + RAM %s, "
		    "without the stack), more than memory_limit %s", o->model,
		    o->triple, humanb(total, b1, sizeof b1),
		    humanb(footprint_flash(&f), b2, sizeof b2),
		    humanb(footprint_ram(&f), b3, sizeof b3),
		    humanb((uint64_t)limit, b4, sizeof b4));
		rc = -1;
	}
	return rc;
}

/* The artifact --emit kind writes: -o, else named after the model. */
static char *
outname(const struct opts *o, const char *kind, const char *st)
{
	if (o->out)
		return xstrdup(o->out);
	if (!strcmp(kind, "exe"))
		return xstrdup(st);
	if (!strcmp(kind, "obj"))
		return xasprintf("%s.o", st);
	if (!strcmp(kind, "lib"))
		return xasprintf("lib%s.a", st);
	if (!strcmp(kind, "shared"))
		return xasprintf("lib%s.so", st);
	if (!strcmp(kind, "header"))
		return xasprintf("%s.h", st);
	if (!strcmp(kind, "wasm"))
		return xasprintf("%s.wasm", st);
	return xasprintf("%s.c", st);
}

/* A graph model's weights and manifest, as the graph names them. */
static void
graphinputs(const char *model, char **w, char **m)
{
	size_t n;
	char *text = readfile(model, &n), *dir = path_dirname(model);
	cJSON *j = text ? cJSON_ParseWithLength(text, n) : NULL;
	const cJSON *wt = cJSON_GetObjectItemCaseSensitive(j, "weights");
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(wt, "file");
	const cJSON *mf = cJSON_GetObjectItemCaseSensitive(wt, "manifest");

	*w = cJSON_IsString(f) ? path_join(dir, f->valuestring) : NULL;
	*m = cJSON_IsString(mf) ? path_join(dir, mf->valuestring) : NULL;
	cJSON_Delete(j);
	free(text);
	free(dir);
}

/*
 * An input is never an output (nnl(7) FILES): no file nnc would write
 * (the artifact, its header, and with --save-temps every graph, weights
 * file, manifest and C source it keeps) may be, by device and inode,
 * the model, the weights or manifest a graph model names, the --passes
 * or --dims file or nnc test's arrays.  0, or -1 after an error naming
 * both.
 */
static int
inputclash(const struct opts *o, const char *kind, const char *st,
    const char *out, const char *hdr)
{
	char *sp = stem(o->out ? o->out : o->model), *gw = NULL, *gm = NULL;
	const char *const *tf = o->tio ? testio_files(o->tio) : NULL;
	const char **in;
	char **outs = NULL, **lines = NULL;
	size_t cap = 0, nout = 0, nin = 0, ntf = 0;
	int npass = 0, rc = 0;
	size_t nart;

	if (!endswith(o->model, ".nnl") && !endswith(o->model, ".onnx"))
		graphinputs(o->model, &gw, &gm);
	while (tf && tf[ntf])
		ntf++;
	in = xcalloc(ntf + 6, sizeof *in);
	in[nin++] = o->model;
	in[nin++] = o->passes;
	in[nin++] = o->dimsfile;
	in[nin++] = gw;
	in[nin++] = gm;
	for (size_t k = 0; k < ntf; k++)
		in[nin++] = tf[k];
	GROW(outs, cap, 16);
	outs[nout++] = xstrdup(out);
	outs[nout++] = xstrdup(hdr);
	if (!strcmp(kind, "c"))
		outs[nout++] = xasprintf("%s.weights", out);
	nart = nout;
	if (o->savetemps) {
		lines = readpasses(o->passes, &npass);
		GROW(outs, cap, nout + (size_t)npass + 14);
		outs[nout++] = xasprintf("%s.json", st);
		outs[nout++] = xasprintf("%s.c", st);
		outs[nout++] = xasprintf("%s.h", st);
		outs[nout++] = xasprintf("%s.c.weights", st);
		outs[nout++] = xasprintf("%s.weights", sp);
		outs[nout++] = xasprintf("%s.manifest.json", sp);
		outs[nout++] = xasprintf("%s.fused.weights", sp);
		outs[nout++] = xasprintf("%s.fused.manifest.json", sp);
		if (gw && endswith(gw, ".weights")) {	/* nnl-fuse's */
			int n = (int)(strlen(gw) - strlen(".weights"));

			outs[nout++] = xasprintf("%.*s.fused.weights", n, gw);
			outs[nout++] = xasprintf("%.*s.fused.manifest.json",
			    n, gw);
		}
		/* the graph after each stage but the last (pipeline.c) */
		for (int i = 0; i < npass; i++) {
			const char *prog = i == 0 ? (endswith(o->model,
			    ".onnx") ? "nnl-onnx-import" : "nnl-parse") :
			    lines[i - 1];
			size_t len = strcspn(prog, " \t");
			char *p = xstrndup(prog, len);

			outs[nout++] = xasprintf("%s.%d.%s.json", sp, i + 1,
			    path_basename(p));
			free(p);
		}
	}
	for (size_t i = 0; i < nout && !rc; i++) {
		struct stat so, si;

		if (stat(outs[i], &so) != 0)
			continue;
		for (size_t k = 0; k < nin && !rc; k++)
			if (in[k] && stat(in[k], &si) == 0 &&
			    so.st_dev == si.st_dev && so.st_ino == si.st_ino) {
				error("%s: %s would write over the input %s: "
				    "an input is never an output (%s)",
				    escape_tty_name(outs[i]), i < nart ?
				    "-o" : "--save-temps",
				    escape_tty_name(in[k]), i < nart ?
				    "name another output" :
				    "run nnc in another directory");
				rc = -1;
			}
	}
	for (size_t i = 0; i < nout; i++)
		free(outs[i]);
	free(outs);
	for (int i = 0; i < npass; i++)
		free(lines[i]);
	free(lines);
	free(in);
	free(gw);
	free(gm);
	free(sp);
	return rc;
}

/* The files of one compile and what it learns of the graph. */
struct build {
	const char *kind;	/* --emit */
	int isexe;		/* --emit exe */
	char *st;		/* the model's stem */
	char *out, *outdir, *hdr;	/* the artifact and its header */
	char *json;		/* the graph nnl-emit-c reads */
	char *pfx;		/* the API's prefix */
	char *csrc, *chdr;	/* the C source and header compiled */
	char *tsrc, *thdr;	/* nnl-emit-c's, in the temporary directory */
	char *built;		/* the artifact before it is delivered */
	const char *flags[16 + 2 * NNC_MAXCFLAGS];	/* the C compiler's */
	int nflags;		/* of flags, or -1 after an error */
	int threads;
};

/* Whether --emit kind is one nnc makes, and one the target can have. */
static int
checkkind(struct opts *o, const char *kind, int isexe)
{
	if (strcmp(kind, "exe") && strcmp(kind, "obj") && strcmp(kind, "lib") &&
	    strcmp(kind, "shared") && strcmp(kind, "header") &&
	    strcmp(kind, "c") && strcmp(kind, "wasm"))
		die("--emit %s: expected exe, obj, lib, shared, header, c or "
		    "wasm", kind);
	if (baremetal(o->triple) && (isexe || !strcmp(kind, "shared"))) {
		if (o->testing)
			error("%s: nnc test runs programs under qemu-user, not "
			    "bare-metal builds: see examples/cortex-m4/run.sh",
			    o->triple);
		else
			error("%s: --emit %s: a bare-metal build is linked into "
			    "its firmware: use --emit obj or lib "
			    "(examples/cortex-m4)", o->triple, kind);
		return -1;
	}
	return 0;
}

/*
 * What the graph b->json says of the build: its io (a program needs
 * "stdio"), the C compiler's flags for the target, the API's prefix
 * and the thread count.
 */
static int
readgraph(struct opts *o, struct build *b)
{
	struct graph *g = graph_load(b->json);
	const char *io;

	if (!g)
		return -1;
	io = cJSON_IsString(config(g, "io")) ?
	    config(g, "io")->valuestring : "stdio";
	if (b->isexe && strcmp(io, "none") == 0 && !o->testing) {
		error("%s: io \"none\" makes a library without main(): use "
		    "--emit obj, lib or shared", o->model);
		graph_free(g);
		return -1;
	}
	if (strcmp(io, "stdio") && strcmp(io, "none")) {
		error("%s: io \"%s\": expected \"stdio\" or \"none\"",
		    o->model, escape_tty_name(io));
		graph_free(g);
		return -1;
	}
	b->nflags = strcmp(b->kind, "wasm") ? cflags(o, g, b->flags) :
	    wasm_target(o->target, o->triple, o->portable);
	/* the API is named after the model: --prefix, else the graph's
	 * name (an ONNX graph's is the exporter's: the file's stem) */
	b->pfx = xstrdup(o->prefix ? o->prefix : g->name && *g->name &&
	    !endswith(o->model, ".onnx") ? g->name : b->st);
	b->threads = threads_of_graph(g, 1);
	/* nnc test's arrays, before the C is built */
	if (o->testing && o->tio && testio_bind(o->tio, g) != 0)
		b->threads = -1;
	graph_free(g);
	return b->threads < 0 ? -1 : 0;
}

/* The header beside a library or object is named after the API, as
 * upstream nnc names it: <prefix>.h (nnc(1), OUTPUT). */
static int
apiheader(struct opts *o, struct build *b)
{
	char *id = escape_c_ident(b->pfx);

	free(b->hdr);
	b->hdr = xasprintf("%s/%s.h", b->outdir, id);
	free(id);
	if (!strcmp(b->hdr + strlen(b->outdir) + 1, path_basename(b->out))) {
		error("%s: --emit %s would write its header %s over "
		    "it: name another output", escape_tty_name(b->out),
		    b->kind, escape_tty_name(b->hdr));
		return -1;
	}
	return inputclash(o, b->kind, b->st, b->out, b->hdr);
}

/* nnl-emit-c's source and header of the graph, into the temporary
 * directory; the weights embedded, beside the source (keep) or by
 * their path. */
static int
emitsource(struct opts *o, struct build *b, char *emit, int embed,
    int keep)
{
	char *ja = argpath(b->json);
	char *ea[] = { emit, "-p", b->pfx, "-e", embed ? "array" :
	    keep ? "beside" : "incbin", "-H", b->thdr,
	    "-o", b->tsrc, ja, b->isexe ? "-m" : NULL, NULL };
	int k;

	progress_start("compile 2/3: nnl-emit-c", 0);
	k = run_command(ea, o->verbose);
	free(ja);
	return k;
}

/* The archive of a library: ar rcs out obj. */
static int
archive(struct opts *o, char *outarg, char *objarg)
{
	char **ar = compiler(o->triple, "ar");
	size_t n = nwords(ar);
	char **aa = xcalloc(n + 4, sizeof *aa);
	int rc;

	memcpy(aa, ar, n * sizeof *aa);
	aa[n] = "rcs";
	aa[n + 1] = outarg;	/* new: ar adds to a file */
	aa[n + 2] = objarg;
	rc = run_command(aa, o->verbose);
	free(aa);
	words_free(ar);
	return rc;
}

/* The C compiler cc on the source: a program, a shared library, an
 * object or (with ar) a library, checked against the target and
 * delivered with its header. */
static int
ccbuild(struct opts *o, struct build *b, char **cc)
{
	const char *kind = b->kind;
	char *incdir = path_dirname(b->chdr);
	char *inc = xasprintf("-I%s", incdir);
	char *obj = xasprintf("%s/%s.o", tmpdir, b->st);
	char *objarg = argpath(obj), *outarg = argpath(b->built);
	char *srcarg = argpath(b->csrc);
	char **a = xcalloc(nwords(cc) + 24 + 2 * NNC_MAXCFLAGS,
	    sizeof *a);
	int k = 0, rc;

	for (char **w = cc; *w; w++)
		a[k++] = *w;
	for (int i = 0; i < b->nflags; i++)
		a[k++] = (char *)b->flags[i];
	a[k++] = inc;
	if (b->threads > 1)	/* rt/par/par.c's POSIX threads */
		a[k++] = "-pthread";
	if (!strcmp(kind, "shared")) {
		a[k++] = "-shared";
		a[k++] = "-fPIC";
	} else if (strcmp(kind, "exe")) {
		a[k++] = "-c";
	}
	a[k++] = "-o";
	a[k++] = !strcmp(kind, "lib") ? objarg : outarg;
	a[k++] = srcarg;
	if (b->isexe || !strcmp(kind, "shared"))
		a[k++] = "-lm";
	a[k] = NULL;
	progress_start("compile 3/3: the C compiler", 0);
	rc = run_command(a, o->verbose);
	/* no object over the limit: it is never delivered */
	if (rc == 0 && o->triple && !b->isexe && strcmp(kind, "shared"))
		rc = targetcheck(o, b->json, !strcmp(kind, "lib") ?
		    obj : b->built, o->footprint);
	if (rc == 0 && !strcmp(kind, "lib"))
		rc = archive(o, outarg, objarg);
	if (rc == 0)
		rc = deliver(b->built, b->out, b->isexe ||
		    !strcmp(kind, "shared") ? 2 : 1);
	if (rc == 0 && !b->isexe && strcmp(b->chdr, b->hdr))
		rc = deliver(b->thdr, b->hdr, 0);
	free(a);
	free(obj);
	free(objarg);
	free(outarg);
	free(srcarg);
	free(inc);
	free(incdir);
	return rc;
}

/* The artifact from the C source: the source itself, the header, a
 * WebAssembly module, or what the C compiler makes. */
static int
makeartifact(struct opts *o, struct build *b, char **cc)
{
	int rc;

	b->built = xasprintf("%s/artifact.%s", tmpdir, b->kind);
	if (!strcmp(b->kind, "c")) {
		rc = 0;
	} else if (!strcmp(b->kind, "header")) {
		rc = strcmp(b->chdr, b->hdr) ? deliver(b->thdr, b->hdr, 0) : 0;
	} else if (!strcmp(b->kind, "wasm")) {
		/* the identifier nnl-emit-c made of -p, not one read back
		 * from the header, whose comments hold the model's names */
		char *id = escape_c_ident(b->pfx);

		rc = wasm_build(b->csrc, id, b->built, b->out, tmpdir,
		    o->verbose);
		free(id);
		if (rc == 0)
			rc = deliver(b->built, b->out, 1);
		if (rc == 0 && strcmp(b->chdr, b->hdr))
			rc = deliver(b->thdr, b->hdr, 0);
	} else {
		rc = ccbuild(o, b, cc);
	}
	return rc;
}

/* The names of the C that outlives nnc (--emit c, --save-temps): the
 * artifact, or the model's stem with .c and .h. */
static int
keptnames(struct build *b, int embed)
{
	b->csrc = !strcmp(b->kind, "c") ? xstrdup(b->out) :
	    xasprintf("%s.c", b->st);
	b->chdr = !strcmp(b->kind, "c") ? xstrdup(b->hdr) :
	    xasprintf("%s.h", b->st);
	if (!embed && strcmp(b->csrc, "-") &&
	    escape_beside_check(b->csrc) != 0)
		return -1;
	return 0;
}

/* Frees the names b holds. */
static void
build_free(struct build *b)
{
	free(b->csrc);
	free(b->chdr);
	free(b->tsrc);
	free(b->thdr);
	free(b->built);
	free(b->hdr);
	free(b->outdir);
	free(b->out);
	free(b->pfx);
	free(b->json);
	free(b->st);
}

/* Compile o->model into the artifact o->emit; *artifact gets its path. */
static int
compile(struct opts *o, char **artifact)
{
	struct build b;
	char *emit = find_program("nnl-emit-c");
	char **cc = compiler(o->triple, "cc");
	int rc = -1, embed, keep;

	memset(&b, 0, sizeof b);
	b.kind = o->emit ? o->emit : "exe";
	b.isexe = !strcmp(b.kind, "exe");
	b.st = stem(o->model);
	if (checkkind(o, b.kind, b.isexe) != 0)
		goto out;
	b.out = outname(o, b.kind, b.st);
	b.outdir = path_dirname(b.out);
	b.hdr = !strcmp(b.kind, "header") ? xstrdup(b.out) :
	    xasprintf("%s/%s.h", b.outdir, b.st);
	if (inputclash(o, b.kind, b.st, b.out, b.hdr) != 0)
		goto out;
	b.json = o->savetemps ? xasprintf("%s.json", b.st) :
	    xasprintf("%s/model.json", maketmp());
	if (o->verbose)
		progress_off();
	progress_start("compile 1/3: front end and passes", 0);
	if (tojson(o, b.json) != 0 || readgraph(o, &b) != 0)
		goto out;
	if ((!strcmp(b.kind, "obj") || !strcmp(b.kind, "lib") ||
	    !strcmp(b.kind, "shared")) && apiheader(o, &b) != 0)
		goto out;
	/* bare-metal and WebAssembly triples have no POSIX threads */
	if (b.threads > 1 && o->triple && (strstr(o->triple, "-none") ||
	    !strncmp(o->triple, "wasm", 4))) {
		error("%s: %d threads: target %s has no POSIX threads (use "
		    "--threads 1)", o->model, b.threads,
		    escape_tty_name(o->triple));
		goto out;
	}
	if (b.nflags < 0)
		goto out;
	if (makedirs(b.outdir) != 0)
		goto out;
	embed = o->weights && !strcmp(o->weights, "embed");
	/* C that outlives nnc (--emit c, --save-temps) finds its weights
	 * beside it; C in the temporary directory, by its path there */
	keep = !strcmp(b.kind, "c") || o->savetemps;
	if (keep && keptnames(&b, embed) != 0)
		goto out;
	/* everything is made in the temporary directory and delivered
	 * through outfile (nnl(7) FILES): no tool replaces a link or
	 * removes a device named by -o */
	b.tsrc = xasprintf("%s/%s.c", maketmp(), b.st);
	b.thdr = xasprintf("%s/%s.h", tmpdir, b.st);
	if (emitsource(o, &b, emit, embed, keep) != 0)
		goto out;
	/* the weights once the source is there; no source without them */
	if (keep && !embed && keepweights(b.json, b.tsrc) != 0)
		goto out;
	if (keep && deliverc(b.tsrc, b.thdr, b.csrc, b.chdr) != 0)
		goto out;
	if (!keep) {
		b.csrc = xstrdup(b.tsrc);
		b.chdr = xstrdup(b.thdr);
	}
	rc = makeartifact(o, &b, cc);
	progress_clear();
	if (rc == 0 && artifact)
		*artifact = xstrdup(b.out);
out:
	build_free(&b);
	free(emit);
	words_free(cc);
	return rc;
}

/* The compiled program exe on inraw into outraw, under qemu-user for
 * another target: 0, or 1 after an error. */
static int
runcompiled(struct opts *o, char *exe, const char *inraw, const char *outraw)
{
	char *exearg, *argv[5], *owned[2] = { 0 };
	char why[96];
	int rc;

	/* the program by its path (it has a '/': no PATH search) */
	exearg = argpath(exe);
	if (o->triple) {
		/* a foreign program runs under qemu-user, with the cross
		 * libraries Debian installs in /usr/TRIPLE */
		char *arch = xstrndup(o->triple, strcspn(o->triple, "-"));

		argv[0] = owned[0] = xasprintf("qemu-%s", arch);
		argv[1] = "-L";
		argv[2] = owned[1] = xasprintf("/usr/%s", o->triple);
		argv[3] = exearg;
		argv[4] = NULL;
		free(arch);
	} else {
		argv[0] = exearg;
		argv[1] = NULL;
	}
	rc = run_io(argv, inraw, outraw, o->verbose);
	free(owned[0]);
	free(owned[1]);
	free(exearg);
	if (rc != 0) {
		error("%s: the compiled model failed: %s %s", o->model,
		    o->triple ? "qemu-user" : "it", run_status(rc, why,
		    sizeof why));
		return 1;
	}
	return 0;
}

/*
 * nnc test: the model compiled to a program with main (its arrays bound
 * to the graph as it is compiled, before the C is built), run on the
 * inputs packed, every output compared with its expected array.
 */
static int
test(struct opts *o, double tol)
{
	char *exe = NULL, *inraw = NULL, *outraw = NULL, *st;
	unsigned char *got = NULL;
	size_t n;
	int bad = 1;

	o->emit = "exe";
	o->testing = 1;
	st = stem(o->model);
	o->out = xasprintf("%s/%s", maketmp(), st);
	free(st);
	if (compile(o, &exe) != 0)
		goto out;
	inraw = xasprintf("%s/input.bin", tmpdir);
	outraw = xasprintf("%s/output.bin", tmpdir);
	if (testio_write(o->tio, inraw) != 0 ||
	    runcompiled(o, exe, inraw, outraw) != 0)
		goto out;
	if (!(got = (unsigned char *)readfile(outraw, &n)))
		die("%s: %s", outraw, strerror(errno));
	bad = testio_compare(o->tio, got, n, tol);
out:
	free(got);
	free(exe);
	free(inraw);
	free(outraw);
	free((char *)o->out);
	o->out = NULL;
	return bad;
}

static char *
commas(uint64_t v)
{
	char digits[32], *out = xmalloc(48), *p = out;
	int n = snprintf(digits, sizeof digits, "%llu",
	    (unsigned long long)v);

	for (int i = 0; i < n; i++) {
		*p++ = digits[i];
		if ((n - i - 1) % 3 == 0 && i < n - 1)
			*p++ = ',';
	}
	*p = '\0';
	return out;
}

static void
human(uint64_t b, char *buf, size_t len)
{
	if (b >= 1024 * 1024)
		snprintf(buf, len, "%.2f MB", (double)b / (1024 * 1024));
	else
		snprintf(buf, len, "%.1f KB", (double)b / 1024);
}

/* Shape text, without the batch dimension for NNL models. */
static char *
shapetext(const struct tdesc *t, int nobatch)
{
	struct buf b = { 0 };
	int from = nobatch && t->rank > 0 ? 1 : 0;

	buf_putc(&b, '[');
	for (int i = from; i < t->rank; i++)
		buf_printf(&b, "%s%lld", i > from ? ", " : "",
		    (long long)t->dims[i]);
	buf_putc(&b, ']');
	return b.s;
}

static uint64_t
nodeparams(struct graph *g, struct node *n)
{
	const char **reads;
	int nr = node_reads(n, &reads);
	uint64_t p = 0;

	for (int i = 0; i < nr; i++) {
		struct operand *o = graph_find(g, reads[i]);

		/* parameters are the trained tensors, not the scalars and
		 * small constants a lowering introduces */
		if (o && o->kind == OPND_CONST && o->init == INIT_WEIGHTS)
			p += tdesc_numel(&o->desc);
	}
	free(reads);
	return p;
}

static void
row(const char *layer, const char *type, const char *shape, uint64_t params)
{
	char *pc = commas(params);

	/* names from the model, terminal-safe */
	printf("%-15s %-11s %-16s %9s\n", escape_tty_name(layer),
	    escape_tty_name(type), shape, pc);
	free(pc);
}

/*
 * With --target-triple: what the target build needs, from the object
 * nnc compiles for it: flash (code, read-only data with the weights,
 * initialised data) and RAM (the arena and the rest of .data and .bss;
 * the stack is the firmware's).  memory_limit applies (targetcheck).
 */
static int
inspecttarget(struct opts *o, uint64_t arena)
{
	struct footprint f;
	char *obj = xasprintf("%s/inspect.o", maketmp());
	char b[6][32];
	uint64_t ram;
	int rc;

	fflush(stdout);
	o->emit = "obj";
	o->out = obj;
	o->footprint = &f;
	rc = compile(o, NULL);
	o->footprint = NULL;
	free(obj);
	if (rc != 0)
		return 1;
	ram = footprint_ram(&f);
	printf("Target:          %s\n", escape_tty_name(o->triple));
	printf("Flash:           %s (code %s + read-only data %s + data %s)\n",
	    humanb(footprint_flash(&f), b[0], 32), humanb(f.text, b[1], 32),
	    humanb(f.rodata, b[2], 32), humanb(f.data, b[3], 32));
	printf("RAM:             %s (arena %s + other %s) + stack\n",
	    humanb(ram, b[4], 32), humanb(arena, b[5], 32),
	    humanb(ram > arena ? ram - arena : 0, b[0], 32));
	return 0;
}

static int
inspect(struct opts *o)
{
	char *json = xasprintf("%s/model.json", maketmp());
	struct graph *g;
	const cJSON *nnl, *mem, *c;
	uint64_t total = 0, weights = 0, arena = 0;
	int64_t a;
	static const char rule[] = "──────────────────────────────────────"
	    "────────────────";
	char b1[32], b2[32], b3[32], *tp;
	int isnnl;

	if (tojson(o, json) != 0 || !(g = graph_load(json))) {
		free(json);
		return 1;
	}
	nnl = cJSON_GetObjectItemCaseSensitive(g->extra, "nnl");
	isnnl = nnl != NULL;
	c = cJSON_GetObjectItemCaseSensitive(nnl, "version");
	printf("Model: %s (%s%s)\n", g->name ? escape_tty_name(g->name) :
	    "(unnamed)", isnnl ? "version " : "webnn-graph v1",
	    isnnl && cJSON_IsString(c) ? escape_tty_name(c->valuestring) :
	    "");
	printf("Precision: %s | Target: %s | Batch: %lld\n",
	    cJSON_IsString(config(g, "precision")) ?
	    escape_tty_name(config(g, "precision")->valuestring) :
	    g->ninputs ? dtype_name(g->inputs[0]->desc.dt) : "float32",
	    cJSON_IsString(config(g, "target")) ?
	    escape_tty_name(config(g, "target")->valuestring) : "generic",
	    g->ninputs && g->inputs[0]->desc.rank > 0 ?
	    (long long)g->inputs[0]->desc.dims[0] : 1LL);
	printf("\n%-15s %-11s %-16s %9s\n%s\n", "Layer", "Type",
	    "Output Shape", "Params", rule);
	for (size_t i = 0; i < g->ninputs; i++) {
		char *s = shapetext(&g->inputs[i]->desc, isnnl);

		row(g->inputs[i]->name, "Input", s, 0);
		free(s);
	}
	for (size_t i = 0; i < g->nnodes; i++) {
		struct node *n = g->nodes[i];
		const cJSON *layer = cJSON_GetObjectItemCaseSensitive(n->extra,
		    "layer");
		const cJSON *ltype = cJSON_GetObjectItemCaseSensitive(n->extra,
		    "layerType");
		uint64_t p = nodeparams(g, n);
		char *s;

		/* NNL layers lower to several nodes: one row per layer,
		 * printed at its last node, the one named after it */
		if (cJSON_IsString(layer)) {
			for (size_t j = i + 1; j < g->nnodes; j++) {
				const cJSON *l2 = cJSON_GetObjectItemCaseSensitive(
				    g->nodes[j]->extra, "layer");

				if (!cJSON_IsString(l2) ||
				    strcmp(l2->valuestring, layer->valuestring))
					break;
				p += nodeparams(g, g->nodes[j]);
				i = j;
			}
			n = g->nodes[i];
		}
		total += p;
		s = shapetext(&n->types[0], isnnl);
		row(cJSON_IsString(layer) ? layer->valuestring : n->id,
		    cJSON_IsString(ltype) ? ltype->valuestring : n->opname, s,
		    p);
		free(s);
	}
	for (size_t i = 0; i < g->nconsts; i++)
		weights += dtype_bytes(g->consts[i]->desc.dt,
		    tdesc_numel(&g->consts[i]->desc));
	mem = cJSON_GetObjectItemCaseSensitive(g->extra, "memory");
	c = cJSON_GetObjectItemCaseSensitive(mem, "arenaBytes");
	if (cJSON_IsNumber(c) && checked_double_i64(c->valuedouble, 0,
	    INT64_C(1) << 53, &a) == 0)	/* nnl-plan-memory's, in range */
		arena = (uint64_t)a;
	tp = commas(total);
	human(weights, b1, sizeof b1);
	human(arena, b2, sizeof b2);
	human(weights + arena, b3, sizeof b3);
	printf("%s\nTotal params:    %s\nWeight memory:   %s\nWorkspace:       "
	    "%s (static buffer)\nTotal memory:    %s\n", rule, tp, b1, b2, b3);
	free(tp);
	graph_free(g);
	free(json);
	return o->triple ? inspecttarget(o, arena) : 0;
}

/*
 * nnc inspect --svg: the model after the passes, drawn by Graphviz;
 * nnc report: the HTML page of report.c.
 */
static int
draw(struct opts *o, const char *svgpath, const char *html)
{
	char *json = xasprintf("%s/draw.json", maketmp());
	struct graph *g = NULL;
	int rc = tojson(o, json) == 0 && (g = graph_load(json)) ? 0 : -1;

	if (rc == 0 && svgpath) {
		struct dot_opts d = { 0, 0 };
		struct buf b = { 0 };
		char *svg;

		dot_graph(&b, g, &d);
		svg = dot_render(b.s);
		rc = svg ? writefile_atomic(svgpath, svg, strlen(svg)) : -1;
		free(svg);
		free(b.s);
	}
	if (rc == 0 && html)
		rc = report_write(g, path_basename(o->model), html);
	graph_free(g);
	free(json);
	return rc;
}

/* nnc inspect: the model as written (summary.c), weights or none. */
static int
inspect_written(struct opts *o)
{
	struct graph *g;
	int rc = -1;

	if (endswith(o->model, ".nnl")) {
		g = summary_nnl(o->model);
	} else if (endswith(o->model, ".onnx")) {
		char *j = xasprintf("%s/model.json", maketmp());
		char *w = xasprintf("%s/model.weights", tmpdir);
		char *m = xasprintf("%s/model.manifest.json", tmpdir);
		char *prog = find_program("nnl-onnx-import");
		char **a = xcalloc(14 + 2 * (size_t)o->ndims, sizeof *a);

		a[0] = prog;
		a[1] = "-o";
		a[2] = j;
		a[3] = "-w";
		a[4] = w;
		a[5] = "-m";
		a[6] = m;
		outsidearg(o, a, dimsargs(o, a, 7), modelabs);
		g = run_command(a, o->verbose) == 0 ? graph_load(j) : NULL;
		free(a);
		free(j);
		free(w);
		free(m);
		free(prog);
	} else {
		g = graph_load_model(o->model, o->outside);
	}
	if (g && summary_plan(g) == 0 && summary_print(stdout, g) == 0)
		rc = 0;
	graph_free(g);
	return rc;
}

/* The options that are not nnc's struct opts: a command's own. */
struct args {
	const char *wdir;	/* nnc import --weights-dir */
	const char *maxbytes;	/* --max-tensor-bytes */
	const char *svg;	/* nnc inspect --svg */
	const char *project;	/* nnc new --project */
	const char *dims;	/* --dims, as given */
	double tol;		/* nnc test --tolerance */
};

/* nnc's long options, each with its short name for getopt_long. */
static const struct option longopts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "emit", required_argument, NULL, 'e' },
	{ "target-triple", required_argument, NULL, 't' },
	{ "target", required_argument, NULL, 'g' },
	{ "cflag", required_argument, NULL, 'C' },
	{ "portable", no_argument, NULL, 'P' },
	{ "threads", required_argument, NULL, 'N' },
	{ "passes", required_argument, NULL, 'p' },
	{ "save-temps", no_argument, NULL, 's' },
	{ "input", required_argument, NULL, 'i' },
	{ "expected", required_argument, NULL, 'x' },
	{ "tolerance", required_argument, NULL, 'T' },
	{ "dim", required_argument, NULL, 'd' },
	{ "dims", required_argument, NULL, 'D' },
	{ "bound", required_argument, NULL, 'B' },
	{ "weights-dir", required_argument, NULL, 'W' },
	{ "svg", required_argument, NULL, 'S' },
	{ "prefix", required_argument, NULL, 'X' },
	{ "project", required_argument, NULL, 'J' },
	{ "weights", required_argument, NULL, 'E' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "version", no_argument, NULL, 'V' },
	{ "fused", no_argument, NULL, 'F' },
	{ "unsupported", required_argument, NULL, 'U' },
	{ MODELPATH_NAME, no_argument, NULL, MODELPATH_OPTION },
	{ "max-tensor-bytes", required_argument, NULL,
	    CHECKED_OPTION },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

/* The options after the command (argv[1]) into o and a; usage() exits
 * 2 on a wrong one. */
static void
parse_options(int argc, char *argv[], struct opts *o, struct args *a)
{
	int c;

	optind = 2;
	while ((c = getopt_long(argc, argv, "o:vVh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': o->out = optarg; break;
		case 'e': o->emit = optarg; break;
		case 't':
			o->triple = optarg;
			/* a compiler's and qemu's name are made from it */
			if (!*optarg || *optarg == '-' || optarg[strspn(optarg,
			    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTU"
			    "VWXYZ0123456789_.-")])
				die("--target-triple %s: expected letters, "
				    "digits, '_', '.' and '-', not first",
				    escape_tty_name(optarg));
			break;
		case 'g': o->target = optarg; break;
		case 'C':
			if (o->ncflag == NNC_MAXCFLAGS)
				die("more than %d --cflag options", NNC_MAXCFLAGS);
			o->cflag[o->ncflag++] = optarg;
			break;
		case 'P': o->portable = 1; break;
		case 'F': o->fused = 1; break;
		case MODELPATH_OPTION: o->outside = 1; break;
		case 'U':
			o->unsup = optarg;
			if (strcmp(optarg, "error") && strcmp(optarg, "comment"))
				usage();
			break;
		case 'N':
			if ((o->threads = threads_parse(optarg)) < 0)
				usage();
			break;
		case 'p': o->passes = optarg; break;
		case 's': o->savetemps = 1; break;
		case 'i':
		case 'x':
			if (testio_add(o->tio, c == 'x', optarg) != 0) {
				error("--%s wants NAME=FILE.npy, FILE.npz or "
				    "FILE.npy, not \"%s\"", c == 'x' ?
				    "expected" : "input",
				    escape_tty_name(optarg));
				exit(2);
			}
			break;
		case 'd':
			if (!dimsfile_arg(optarg)) {
				error("--dim wants NAME=N with N positive, not "
				    "\"%s\"", escape_tty_name(optarg));
				exit(2);
			}
			o->dims[o->ndims++] = optarg;
			break;
		case 'D': a->dims = optarg; break;
		case 'B': {
			char *end;
			unsigned long long v;

			errno = 0;
			v = strtoull(optarg, &end, 10);
			if (*optarg < '0' || *optarg > '9' || *end || errno ||
			    v < 1 || v > UINT32_MAX) {
				error("--bound wants a count from 1 to %lu, "
				    "not \"%s\"", (unsigned long)UINT32_MAX,
				    escape_tty_name(optarg));
				exit(2);
			}
			o->bound = optarg;
			break;
		}
		case 'W': a->wdir = optarg; break;
		case 'S': a->svg = optarg; break;
		case 'X': o->prefix = optarg; break;
		case 'J': a->project = optarg; break;
		case 'E':
			if (strcmp(optarg, "file") && strcmp(optarg, "embed"))
				usage();
			o->weights = optarg;
			break;
		case 'T': {
			char *end;

			a->tol = strtod(optarg, &end);
			if (*end || !(a->tol >= 0))
				usage();
			break;
		}
		case 'v': o->verbose = 1; break;
		case CHECKED_OPTION: a->maxbytes = optarg; break;
		default: usage();
		}
	}
}

/*
 * --dim and --dims pin an ONNX model's symbolic dimensions, as
 * nnl-onnx-import's do: the file is read here, so that its errors name
 * it as given (and exit 1), then passed on by its absolute path, the
 * importer running in nnc's temporary directory.  0, or -1 when the
 * model is not ONNX.
 */
static int
modeldims(struct opts *o, const char *file)
{
	char **d = NULL;
	int n = 0, rc;

	if (!endswith(o->model, ".onnx")) {
		error("%s: --dim, --dims and --bound size the values of an "
		    "ONNX model (.onnx); this one's are its own",
		    escape_tty_name(o->model));
		return -1;
	}
	if (!file)
		return 0;
	rc = dimsfile_read(file, &d, &n);
	for (int i = 0; i < n; i++)
		free(d[i]);
	free(d);
	if (rc != 0)
		exit(1);
	if (!(o->dimsfile = realpath(file, NULL)))
		die("%s: %s", file, strerror(errno));
	return 0;
}

/*
 * An absolute TMPDIR for nnc and every program it runs (the C
 * compiler's own temporaries): a relative one that starts with '-' or
 * '@' would read as an option.
 */
static void
abstmpdir(void)
{
	const char *t = getenv("TMPDIR");
	char *abs = t && *t && *t != '/' ? realpath(t, NULL) : NULL;

	if (abs)
		setenv("TMPDIR", abs, 1);
	free(abs);
}

int
main(int argc, char *argv[])
{
	struct opts o;
	struct args a = { .tol = 1e-5 };
	const char *cmd;

	memset(&o, 0, sizeof o);
	setprogname(argv[0]);
	if (argc >= 2 && (!strcmp(argv[1], "--version") ||
	    !strcmp(argv[1], "-V"))) {
		printf("nnc %s (NNL language %s)\n", NNC_VERSION,
		    NNL_LANG_VERSION);
		return close_stdout();
	}
	if (argc < 2 || argv[1][0] == '-')
		usage();
	cmd = argv[1];
	o.tio = testio_new();
	o.dims = xcalloc((size_t)argc + 1, sizeof *o.dims);
	parse_options(argc, argv, &o, &a);
	if (checked_setup(a.maxbytes) != 0)
		exit(2);
	if (a.maxbytes) {
		/* every stage reads the limit from the environment */
		char v[32];

		snprintf(v, sizeof v, "%llu",
		    (unsigned long long)checked_limit());
		setenv("NNL_MAX_TENSOR_BYTES", v, 1);
	}
	if (argc - optind != 1 || (a.svg && strcmp(cmd, "inspect")) ||
	    (strcmp(cmd, "test") && (testio_count(o.tio, 0) ||
	    testio_count(o.tio, 1))) || ((o.ndims || a.dims || o.bound) &&
	    !strcmp(cmd, "new")))
		usage();
	o.model = argv[optind];
	keeptmp = o.savetemps;
	if ((o.ndims || a.dims || o.bound) && modeldims(&o, a.dims) != 0)
		exit(2);
	abstmpdir();
	if (!strcmp(cmd, "new")) {
		int k = scaffold_new(o.model, a.project);

		return k == -2 ? 2 : k ? 1 : close_stdout();
	}
	{
		/* the passes run elsewhere: name the model absolutely */
		char *abs = realpath(o.model, NULL);

		if (!abs)
			die("%s: %s", o.model, strerror(errno));
		modelabs = abs;
	}
	if (!strcmp(cmd, "import"))
		return import(&o, a.wdir) == 0 ? close_stdout() : 1;
	if (!strcmp(cmd, "compile"))
		return compile(&o, NULL) == 0 ? close_stdout() : 1;
	if (!strcmp(cmd, "test")) {
		if (!testio_count(o.tio, 1))
			usage();
		return test(&o, a.tol) ? 1 : close_stdout();
	}
	if (!strcmp(cmd, "inspect") && a.svg && draw(&o, a.svg, NULL) != 0)
		return 1;
	/* as written, unless the fused view is asked for (or what a
	 * target build needs, which is the fused graph's) */
	if (!strcmp(cmd, "inspect") && !o.fused && !o.triple)
		return inspect_written(&o) ? 1 : close_stdout();
	if (!strcmp(cmd, "inspect"))
		return inspect(&o) ? 1 : close_stdout();
	if (!strcmp(cmd, "report") && o.out)
		return draw(&o, NULL, o.out) ? 1 : close_stdout();
	usage();
	return 2;
}
