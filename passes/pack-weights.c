/*
 * pack-weights: .npy directories, .npz archives and .npy files into one
 * .weights file and its manifest (the pair graph consts of kind
 * "weights" refer to), and back: unpack to .npy files, verify every
 * checksum, list the tensors.  Nothing is written unless all of it is.
 */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checked.h"
#include "infile.h"
#include "npy.h"
#include "escape.h"
#include "npz.h"
#include "packgraph.h"
#include "util.h"
#include "weights.h"

enum { MAXALIGN = 4096 };

static const struct option longopts[] = {
	{ "max-tensor-bytes", required_argument, NULL, CHECKED_OPTION },
	{ NULL, 0, NULL, 0 }
};

NNL_NORETURN static void
usage(void)
{
	fprintf(stderr,
	    "usage: nnl-pack-weights pack [-a align] [-l limit] "
	    "[-o file.weights]\n"
	    "           [-m manifest] [--max-tensor-bytes size] source ...\n"
	    "       nnl-pack-weights unpack [-f] [-m manifest] [-d dir] "
	    "[--max-tensor-bytes size]\n"
	    "           file.weights\n"
	    "       nnl-pack-weights verify [-m manifest] "
	    "[--max-tensor-bytes size]\n"
	    "           file.weights\n"
	    "       nnl-pack-weights list [-m manifest] "
	    "[--max-tensor-bytes size]\n"
	    "           file.weights\n"
	    "       nnl-pack-weights extract [-o graph] [-w file.weights "
	    "-m manifest]\n"
	    "           [--max-tensor-bytes size] graph\n"
	    "       nnl-pack-weights inline [-o graph] "
	    "[--max-tensor-bytes size] graph\n"
	    "       nnl-pack-weights manifest [-a align] [-l limit] "
	    "[-m manifest]\n"
	    "           [--max-tensor-bytes size] source ...\n");
	exit(2);
}

static int
endswith(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n >= m && strcmp(s + n - m, suf) == 0;
}

/* x.weights -> x.manifest.json; any other name gets .manifest.json added */
static char *
manifestfor(const char *weights)
{
	size_t n = strlen(weights);

	if (endswith(weights, ".weights"))
		n -= strlen(".weights");
	return xasprintf("%.*s.manifest.json", (int)n, weights);
}

struct tensor {
	char *name, *src;
	struct npy a;
};

struct tensors {
	struct tensor *v;
	size_t n, cap;
};

/* Takes name and the array's data; a duplicate, or an array above the
 * tensor limit, frees them. */
static int
addtensor(struct tensors *ts, char *name, const char *src, struct npy *a)
{
	char *why = checked_tensor(&(struct tdesc){ a->dt, a->rank,
	    a->shape });

	if (why) {
		error("%s: tensor \"%s\": %s", src, name, why);
		free(why);
		free(name);
		npy_free(a);
		return -1;
	}
	for (size_t i = 0; i < ts->n; i++)
		if (strcmp(ts->v[i].name, name) == 0) {
			error("tensor \"%s\" comes from both %s and %s",
			    escape_tty_name(name),
			    ts->v[i].src, src);
			free(name);
			npy_free(a);
			return -1;
		}
	GROW(ts->v, ts->cap, ts->n + 1);
	ts->v[ts->n].name = name;
	ts->v[ts->n].src = xstrdup(src);
	ts->v[ts->n].a = *a;
	ts->n++;
	return 0;
}

static int
bystr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The .npy files of a directory, by name, not recursively. */
static int
loaddir(struct tensors *ts, const char *src)
{
	DIR *d = opendir(src);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	if (!d) {
		error("%s: %s", src, strerror(errno));
		return -1;
	}
	while ((e = readdir(d)))
		if (endswith(e->d_name, ".npy") && strlen(e->d_name) > 4) {
			GROW(names, cap, n + 1);
			names[n++] = xstrdup(e->d_name);
		}
	closedir(d);
	qsort(names, n, sizeof *names, bystr);
	if (n == 0)
		warn("%s: no .npy files", src);
	for (size_t i = 0; i < n; i++) {
		char *p = path_join(src, names[i]);
		struct npy a;

		if (rc == 0 && npy_load(p, &a) == 0)
			rc = addtensor(ts, xstrndup(names[i],
			    strlen(names[i]) - 4), p, &a);
		else
			rc = -1;
		free(p);
		free(names[i]);
	}
	free(names);
	return rc;
}

/* What an .npz source may inflate to (-l). */
static uint64_t npzmax = NPZ_MAXBYTES;

/* Tensors of one source: a directory, an .npz or an .npy file. */
static int
load(struct tensors *ts, const char *src)
{
	struct stat st;
	const char *b = path_basename(src);
	struct npz_member *m;
	struct npy a;
	size_t n;

	if (stat(src, &st) != 0) {
		error("%s: %s", src, strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode))
		return loaddir(ts, src);
	if (endswith(src, ".npz")) {
		if (npz_read(src, npzmax, &m, &n) != 0)
			return -1;
		for (size_t i = 0; i < n; i++)
			if (addtensor(ts, m[i].name, src, &m[i].arr) != 0) {
				for (size_t j = i + 1; j < n; j++) {
					free(m[j].name);
					npy_free(&m[j].arr);
				}
				free(m);
				return -1;
			}
		free(m);
		return 0;
	}
	if (!endswith(b, ".npy") || strlen(b) == 4) {
		error("%s: expected a directory, an .npz or an .npy file", src);
		return -1;
	}
	if (npy_load(src, &a) != 0)
		return -1;
	return addtensor(ts, xstrndup(b, strlen(b) - 4), src, &a);
}

/* weights/ -> weights.weights, w.npz -> w.weights, in the current
 * directory; NULL when the source has no usable name ("/", ".."). */
static char *
defaultout(const char *src)
{
	char *s = xstrdup(src), *o = NULL;
	size_t n = strlen(s);
	const char *b;

	while (n > 1 && s[n - 1] == '/')
		s[--n] = '\0';
	if (endswith(s, ".npz") || endswith(s, ".npy"))
		s[n - 4] = '\0';
	b = path_basename(s);
	if (b[0] && strcmp(b, ".") && strcmp(b, ".."))
		o = xasprintf("%s.weights", b);
	free(s);
	return o;
}

static void
freetensors(struct tensors *ts)
{
	for (size_t i = 0; i < ts->n; i++) {
		free(ts->v[i].name);
		free(ts->v[i].src);
		npy_free(&ts->v[i].a);
	}
	free(ts->v);
}

/* 0 if out is none of the files read so far; -1 after naming both. */
static int
notinput(const char *out)
{
	const char *in = strcmp(out, "/dev/null") ? infile_which(out) : NULL;

	if (!in)
		return 0;
	error("%s: it is the input %s: an input is never an output",
	    escape_tty_name(out), escape_tty_name(in));
	return -1;
}

/* pack; or, manifestonly, write only the manifest pack would write
 * (the weights go to a temporary that is removed). */
static int
pack(int argc, char *argv[], int manifestonly)
{
	const char *out = NULL, *man = NULL, *maxbytes = NULL;
	unsigned long align = WEIGHTS_ALIGN;
	struct tensors ts = { NULL, 0, 0 };
	struct wwriter ww;
	char *o = NULL, *m = NULL, *end;
	int c, rc = 1;

	while ((c = getopt_long(argc, argv, "a:l:o:m:", longopts,
	    NULL)) != -1) {
		switch (c) {
		case CHECKED_OPTION: maxbytes = optarg; break;
		case 'a':
			errno = 0;
			align = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || !align ||
			    align > MAXALIGN || (align & (align - 1))) {
				error("-a %s: expected a power of two from 1 "
				    "to %d", optarg, MAXALIGN);
				usage();
			}
			break;
		case 'l':
			if (checked_parse_size(optarg, &npzmax) != 0) {
				error("-l %s: expected a size such as 4096, "
				    "512M or 2G", optarg);
				usage();
			}
			break;
		case 'o': out = optarg; break;
		case 'm': man = optarg; break;
		default: usage();
		}
	}
	if (checked_setup(maxbytes) != 0)
		exit(2);
	if (optind >= argc || (manifestonly && out))
		usage();
	if (manifestonly && !man) {
		error("manifest: name the manifest to write (-m)");
		usage();
	}
	/* the manifest alone: the packed bytes go nowhere, never to a
	 * temporary file of a name someone could have foreseen */
	if (manifestonly)
		o = xstrdup("/dev/null");
	else if (!(o = out ? xstrdup(out) : defaultout(argv[optind]))) {
		error("%s: cannot name the output after it; use -o",
		    argv[optind]);
		usage();
	}
	m = man ? xstrdup(man) : manifestfor(o);
	for (int i = optind; i < argc; i++)
		if (load(&ts, argv[i]) != 0)
			goto out;
	if (notinput(o) != 0 || notinput(m) != 0)
		goto out;
	if (wwriter_open(&ww, o, m, (unsigned)align) != 0)
		goto out;
	for (size_t i = 0; i < ts.n; i++)
		if (wwriter_add(&ww, ts.v[i].name, ts.v[i].a.dt,
		    ts.v[i].a.rank, ts.v[i].a.shape, ts.v[i].a.data,
		    ts.v[i].a.nbytes) != 0) {
			wwriter_abort(&ww);
			goto out;
		}
	if (wwriter_commit(&ww) == 0)
		rc = 0;
out:
	freetensors(&ts);
	free(o);
	free(m);
	return rc;
}

/* unpack, verify and list share their options and their checks. */
static int
readside(int argc, char *argv[], int unpack, struct weights *w,
    const char **dir, int *force)
{
	const char *man = NULL, *maxbytes = NULL;
	char *m;
	int c, rc;

	*dir = ".";
	while ((c = getopt_long(argc, argv, unpack ? "fm:d:" : "m:", longopts,
	    NULL)) != -1) {
		switch (c) {
		case 'f': *force = 1; break;
		case 'm': man = optarg; break;
		case 'd': *dir = optarg; break;
		case CHECKED_OPTION: maxbytes = optarg; break;
		default: usage();
		}
	}
	if (checked_setup(maxbytes) != 0)
		exit(2);
	if (argc - optind != 1)
		usage();
	m = man ? xstrdup(man) : manifestfor(argv[optind]);
	rc = weights_open(w, argv[optind], m);
	free(m);
	/* every tensor within the limit before any is read or written */
	for (size_t i = 0; rc == 0 && i < w->m.n; i++) {
		struct wtensor *t = &w->m.t[i];
		char *why = checked_tensor(&(struct tdesc){ t->dt, t->rank,
		    t->shape });

		if (why) {
			error("%s: tensor \"%s\": %s", w->manifest_path,
			    t->name, why);
			free(why);
			weights_close(w);
			rc = -1;
		}
	}
	return rc;
}

/*
 * Every tensor to DIR/NAME.npy, or none: the files are renamed into
 * place together at the end, and one that exists already is an error
 * unless -f.  A tensor name must be one file name inside DIR.
 */
static int
unpack(int argc, char *argv[])
{
	struct weights w;
	const char *dir;
	char **paths;
	struct stat st;
	int rc = 0, made = 0, force = 0;

	if (readside(argc, argv, 1, &w, &dir, &force) != 0)
		return 1;
	paths = xcalloc(w.m.n + 1, sizeof *paths);
	/* everything that can be known to fail fails before any write */
	for (size_t i = 0; i < w.m.n; i++) {
		struct wtensor *t = &w.m.t[i];
		char *f = xasprintf("%s.npy", t->name);

		paths[i] = path_join(dir, f);
		free(f);
		if (!path_isname(t->name)) {
			error("%s: tensor \"%s\": not usable as a file name in "
			    "%s (an empty name, \".\", \"..\" or one with a "
			    "'/')", w.manifest_path, escape_tty_name(t->name),
			    dir);
			rc = 1;
		} else if (!dtype_npy(t->dt)) {
			error("%s: tensor \"%s\": %s has no .npy type", w.path,
			    escape_tty_name(t->name), dtype_name(t->dt));
			rc = 1;
		} else if (!force && lstat(paths[i], &st) == 0) {
			error("%s: exists (-f overwrites it)", paths[i]);
			rc = 1;
		}
	}
	if (rc || weights_verify(&w, 0) != 0)
		goto out;
	if (mkdir(dir, 0777) == 0) {
		made = 1;
	} else if (errno != EEXIST) {
		error("%s: %s", dir, strerror(errno));
		rc = 1;
		goto out;
	}
	outfile_group_begin();
	for (size_t i = 0; i < w.m.n && rc == 0; i++) {
		struct wtensor *t = &w.m.t[i];

		if (npy_save(paths[i], t->dt, t->rank, t->shape,
		    weights_bytes(&w, t), (size_t)t->length) != 0)
			rc = 1;
	}
	if (rc == 0 && outfile_group_commit() != 0)
		rc = 1;
	outfile_group_abort();
	if (rc && made)
		rmdir(dir);
out:
	for (size_t i = 0; i < w.m.n; i++)
		free(paths[i]);
	free(paths);
	weights_close(&w);
	return rc;
}

static int
verify(int argc, char *argv[])
{
	struct weights w;
	const char *dir;
	int bad;

	if (readside(argc, argv, 0, &w, &dir, NULL) != 0)
		return 1;
	bad = weights_verify(&w, 1);
	if (bad)
		error("%s: %d of %zu tensors fail their checksums", w.path,
		    bad, w.m.n);
	else
		printf("%s: %zu tensors, %zu bytes: ok\n", w.path, w.m.n,
		    w.size);
	weights_close(&w);
	return bad ? 1 : 0;
}

/* name, type, shape, offset, length, checksum state: tab-separated */
static int
list(int argc, char *argv[])
{
	struct weights w;
	const char *dir;
	int bad = 0;

	if (readside(argc, argv, 0, &w, &dir, NULL) != 0)
		return 1;
	for (size_t i = 0; i < w.m.n; i++) {
		struct wtensor *t = &w.m.t[i];
		int ok = t->has_checksum && checksum_xxh3(weights_bytes(&w, t),
		    (size_t)t->length) == t->checksum;

		printf("%s\t%s\t[", escape_tty_name(t->name),
		    dtype_name(t->dt));
		for (int k = 0; k < t->rank; k++)
			printf("%s%lld", k ? ", " : "", (long long)t->shape[k]);
		printf("]\t%" PRIu64 "\t%" PRIu64 "\t%s\n", t->offset,
		    t->length, !t->has_checksum ? "unchecked" : ok ? "ok" :
		    "BAD");
		bad += t->has_checksum && !ok;
	}
	if (bad)
		error("%s: %d of %zu tensors fail their checksums", w.path,
		    bad, w.m.n);
	weights_close(&w);
	return bad ? 1 : 0;
}

int
main(int argc, char *argv[])
{
	const char *cmd;
	int rc;

	setprogname(argv[0]);
	if (argc < 2)
		usage();
	cmd = argv[1];
	optind = 2;
	if (!strcmp(cmd, "pack"))
		rc = pack(argc, argv, 0);
	else if (!strcmp(cmd, "unpack"))
		rc = unpack(argc, argv);
	else if (!strcmp(cmd, "verify"))
		rc = verify(argc, argv);
	else if (!strcmp(cmd, "list"))
		rc = list(argc, argv);
	else if (!strcmp(cmd, "extract") || !strcmp(cmd, "inline")) {
		if ((rc = packgraph_main(cmd, argc, argv)) == -2)
			usage();
	} else if (!strcmp(cmd, "manifest"))
		rc = pack(argc, argv, 1);
	else
		usage();
	return rc ? rc : close_stdout();
}
