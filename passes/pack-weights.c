/*
 * pack-weights: .npy directories, .npz archives and .npy files into one
 * .weights file and its manifest (the pair graph consts refer to); and
 * back: unpack, verify, list.
 */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "npy.h"
#include "npz.h"
#include "util.h"
#include "weights.h"

NNL_NORETURN static void
usage(void)
{
	fprintf(stderr,
	    "usage: nnl-pack-weights pack [-a align] [-o file.weights] "
	    "[-m manifest] source...\n"
	    "       nnl-pack-weights unpack [-m manifest] [-d dir] "
	    "file.weights\n"
	    "       nnl-pack-weights verify [-m manifest] file.weights\n"
	    "       nnl-pack-weights list [-m manifest] file.weights\n");
	exit(2);
}

static int
endswith(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n >= m && strcmp(s + n - m, suf) == 0;
}

/* x.weights -> x.manifest.json */
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

static int
addtensor(struct tensors *ts, char *name, const char *src, struct npy *a)
{
	for (size_t i = 0; i < ts->n; i++)
		if (strcmp(ts->v[i].name, name) == 0) {
			error("tensor \"%s\" comes from both %s and %s", name,
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

/* Tensors of one source: a directory, an .npz or an .npy file. */
static int
load(struct tensors *ts, const char *src)
{
	struct stat st;

	if (stat(src, &st) != 0) {
		error("%s: %s", src, strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
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
			if (endswith(e->d_name, ".npy") &&
			    strlen(e->d_name) > 4) {
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
	if (endswith(src, ".npz")) {
		struct npz_member *m;
		size_t n;

		if (npz_load(src, &m, &n) != 0)
			return -1;
		for (size_t i = 0; i < n; i++) {
			if (addtensor(ts, m[i].name, src, &m[i].arr) != 0) {
				for (size_t j = i + 1; j < n; j++) {
					free(m[j].name);
					npy_free(&m[j].arr);
				}
				free(m);
				return -1;
			}
		}
		free(m);
		return 0;
	}
	{
		struct npy a;
		const char *b = path_basename(src);

		if (!endswith(b, ".npy")) {
			error("%s: expected a directory, an .npz or an .npy "
			    "file", src);
			return -1;
		}
		if (npy_load(src, &a) != 0)
			return -1;
		return addtensor(ts, xstrndup(b, strlen(b) - 4), src, &a);
	}
}

static int
pack(int argc, char *argv[])
{
	const char *out = NULL, *man = NULL;
	unsigned align = WEIGHTS_ALIGN;
	struct tensors ts = { NULL, 0, 0 };
	struct wwriter ww;
	char *o, *m;
	int c, rc = 1;

	while ((c = getopt(argc, argv, "a:o:m:")) != -1) {
		switch (c) {
		case 'a': {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);

			if (*end || !v || v > 4096 || (v & (v - 1)))
				usage();
			align = (unsigned)v;
			break;
		}
		case 'o': out = optarg; break;
		case 'm': man = optarg; break;
		default: usage();
		}
	}
	if (optind >= argc)
		usage();
	if (out)
		o = xstrdup(out);
	else {
		/* named after the first source: weights/ -> weights.weights */
		char *s = xstrdup(argv[optind]);
		size_t n = strlen(s);

		while (n > 1 && s[n - 1] == '/')
			s[--n] = '\0';
		if (endswith(s, ".npz") || endswith(s, ".npy"))
			s[n - 4] = '\0';
		o = xasprintf("%s.weights", path_basename(s));
		free(s);
	}
	m = man ? xstrdup(man) : manifestfor(o);
	for (int i = optind; i < argc; i++)
		if (load(&ts, argv[i]) != 0)
			goto out;
	if (wwriter_open(&ww, o, m, align) != 0)
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
	for (size_t i = 0; i < ts.n; i++) {
		free(ts.v[i].name);
		free(ts.v[i].src);
		npy_free(&ts.v[i].a);
	}
	free(ts.v);
	free(o);
	free(m);
	return rc;
}

/* unpack, verify and list share their options. */
static int
readside(int argc, char *argv[], int unpack, struct weights *w,
    const char **dir)
{
	const char *man = NULL;
	char *m;
	int c, rc;

	*dir = ".";
	while ((c = getopt(argc, argv, unpack ? "m:d:" : "m:")) != -1) {
		switch (c) {
		case 'm': man = optarg; break;
		case 'd': *dir = optarg; break;
		default: usage();
		}
	}
	if (argc - optind != 1)
		usage();
	m = man ? xstrdup(man) : manifestfor(argv[optind]);
	rc = weights_open(w, argv[optind], m);
	free(m);
	return rc;
}

static int
unpack(int argc, char *argv[])
{
	struct weights w;
	const char *dir;
	int rc = 0;

	if (readside(argc, argv, 1, &w, &dir) != 0)
		return 1;
	if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
		error("%s: %s", dir, strerror(errno));
		weights_close(&w);
		return 1;
	}
	for (size_t i = 0; i < w.m.n && rc == 0; i++) {
		struct wtensor *t = &w.m.t[i];
		char *f = xasprintf("%s.npy", t->name);
		char *p = path_join(dir, f);

		if (strchr(t->name, '/') || !strcmp(t->name, "..") ||
		    !strcmp(t->name, ".")) {
			error("tensor \"%s\": not usable as a file name",
			    t->name);
			rc = 1;
		} else if (npy_save(p, t->dt, t->rank, t->shape,
		    weights_bytes(&w, t), (size_t)t->length) != 0) {
			rc = 1;
		}
		free(f);
		free(p);
	}
	weights_close(&w);
	return rc;
}

static int
verify(int argc, char *argv[])
{
	struct weights w;
	const char *dir;
	int bad;

	if (readside(argc, argv, 0, &w, &dir) != 0)
		return 1;
	bad = weights_verify(&w, 1);
	if (!bad)
		printf("%s: %zu tensors, %zu bytes: ok\n", w.path, w.m.n,
		    w.size);
	weights_close(&w);
	return bad ? 1 : 0;
}

static int
list(int argc, char *argv[])
{
	struct weights w;
	const char *dir;

	if (readside(argc, argv, 0, &w, &dir) != 0)
		return 1;
	for (size_t i = 0; i < w.m.n; i++) {
		struct wtensor *t = &w.m.t[i];
		int ok = !t->has_checksum || checksum_xxh3(weights_bytes(&w,
		    t), (size_t)t->length) == t->checksum;

		printf("%-24s %-8s [", t->name, dtype_name(t->dt));
		for (int k = 0; k < t->rank; k++)
			printf("%s%lld", k ? ", " : "", (long long)t->shape[k]);
		printf("] offset %" PRIu64 " length %" PRIu64 " %s\n",
		    t->offset, t->length, !t->has_checksum ? "unchecked" :
		    ok ? "ok" : "BAD");
	}
	weights_close(&w);
	return 0;
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
		rc = pack(argc, argv);
	else if (!strcmp(cmd, "unpack"))
		rc = unpack(argc, argv);
	else if (!strcmp(cmd, "verify"))
		rc = verify(argc, argv);
	else if (!strcmp(cmd, "list"))
		rc = list(argc, argv);
	else
		usage();
	return rc ? rc : close_stdout();
}
