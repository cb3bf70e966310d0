/*
 * weights: the WGWT weights file and its wg-weights-manifest.  Reading
 * checks everything a later pass would trip over: magic, version,
 * offsets past the header and inside the file, no two tensors sharing a
 * byte, lengths that match type and shape; checksums (XXH3-64, nnl's
 * extension) on demand.  Writing aligns every tensor and commits the
 * file and its manifest together, or leaves neither.
 *
 * The manifest is printed by the small printer below, canonically: two
 * spaces of indent, one line per tensor in manifest order with its keys
 * in a fixed order.  Keys the reader does not know, at the top or inside
 * a tensor's entry, are not kept: a manifest is data about one file and
 * is rewritten whole whenever that file is.
 */
#include "weights.h"
#include "escape.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include <cjson/cJSON.h>

#include "infile.h"
#include "jsonerr.h"

enum { MAXRANK = 32 };
#define MAXDIM 4294967295.0	/* WebNN dimensions are 32-bit */
#define MAXINT 9007199254740992.0	/* 2^53: exact in a JSON number */

uint64_t
checksum_xxh3(const void *data, size_t len)
{
	return (uint64_t)XXH3_64bits(data, len);
}

/* A growing string, for the manifest text and messages. */
struct sb {
	char *s;
	size_t n, cap;
};

static void
sb_printf(struct sb *b, const char *fmt, ...)
{
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (k < 0)
		BUG("vsnprintf failed");
	GROW(b->s, b->cap, b->n + (size_t)k + 1);
	va_start(ap, fmt);
	vsnprintf(b->s + b->n, (size_t)k + 1, fmt, ap);
	va_end(ap);
	b->n += (size_t)k;
}

/* A JSON string: quotes, backslashes and control characters escaped. */
static void
sb_jsonstr(struct sb *b, const char *s)
{
	sb_printf(b, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			sb_printf(b, "\\%c", c);
		else if (c == '\n')
			sb_printf(b, "\\n");
		else if (c == '\t')
			sb_printf(b, "\\t");
		else if (c < 0x20)
			sb_printf(b, "\\u%04x", c);
		else
			sb_printf(b, "%c", c);
	}
	sb_printf(b, "\"");
}

/* "float32[2, 3]", malloc'd. */
static char *
descstr(enum dtype dt, int rank, const int64_t *shape)
{
	struct sb b = { NULL, 0, 0 };

	sb_printf(&b, "%s[", dtype_name(dt));
	for (int i = 0; i < rank; i++)
		sb_printf(&b, "%s%lld", i ? ", " : "", (long long)shape[i]);
	sb_printf(&b, "]");
	return b.s;
}

/* Elements of a shape, or -1 when a dimension is negative or the count
 * (times 8 bytes) would not fit in 64 bits. */
static int
countof(int rank, const int64_t *shape, uint64_t *numel)
{
	*numel = 1;
	for (int i = 0; i < rank; i++) {
		uint64_t d = (uint64_t)shape[i];

		if (shape[i] < 0 || (d && *numel > UINT64_MAX / 8 / d))
			return -1;
		*numel *= d;
	}
	return 0;
}

static struct wtensor *
addtensor(struct manifest *m, const char *name)
{
	struct wtensor *t;

	GROW(m->t, m->cap, m->n + 1);
	t = &m->t[m->n++];
	memset(t, 0, sizeof *t);
	t->name = xstrdup(name);
	strtab_put(&m->idx, t->name, (void *)(uintptr_t)m->n);
	t->dt = DT_NONE;
	return t;
}

void
manifest_free(struct manifest *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->t[i].name);
		free(m->t[i].shape);
	}
	free(m->t);
	strtab_free(&m->idx);
	memset(m, 0, sizeof *m);
}

struct wtensor *
manifest_find(const struct manifest *m, const char *name)
{
	uintptr_t k = (uintptr_t)strtab_get(&m->idx, name);

	return k ? &m->t[k - 1] : NULL;
}

/* A JSON number that is an integer from 0 to max. */
static int
uintval(const cJSON *v, double max, uint64_t *out)
{
	if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) ||
	    v->valuedouble != floor(v->valuedouble) || v->valuedouble > max)
		return -1;
	*out = (uint64_t)v->valuedouble;
	return 0;
}

/* "xxh3-64:" and exactly 16 lowercase hex digits. */
static int
parsesum(const char *s, uint64_t *out)
{
	if (strncmp(s, "xxh3-64:", 8) != 0 || strlen(s) != 24)
		return -1;
	*out = 0;
	for (s += 8; *s; s++) {
		if (!strchr("0123456789abcdef", *s))
			return -1;
		*out = *out << 4 | (uint64_t)(*s <= '9' ? *s - '0' :
		    *s - 'a' + 10);
	}
	return 0;
}

static int
readshape(const char *path, const cJSON *sh, struct wtensor *t)
{
	const cJSON *it;
	int k = 0;

	if (!cJSON_IsArray(sh) || cJSON_GetArraySize(sh) > MAXRANK) {
		error("%s: tensor \"%s\": field \"shape\": %s", path,
		    escape_tty_name(t->name),
		    sh ? "expected an array of at most 32 dimensions" :
		    "missing");
		return -1;
	}
	t->rank = cJSON_GetArraySize(sh);
	t->shape = xcalloc((size_t)t->rank + 1, sizeof *t->shape);
	cJSON_ArrayForEach(it, sh) {
		uint64_t d;

		if (uintval(it, MAXDIM, &d) != 0) {
			error("%s: tensor \"%s\": field \"shape\": dimension "
			    "%d is not an integer from 0 to 4294967295", path,
			    escape_tty_name(t->name), k);
			return -1;
		}
		t->shape[k++] = (int64_t)d;
	}
	return 0;
}

static int
readentry(const char *path, const cJSON *e, struct wtensor *t)
{
	const cJSON *dt = cJSON_GetObjectItemCaseSensitive(e, "dataType");
	const cJSON *cs = cJSON_GetObjectItemCaseSensitive(e, "checksum");
	const cJSON *lay = cJSON_GetObjectItemCaseSensitive(e, "layout");
	uint64_t numel;

	if (!cJSON_IsObject(e)) {
		error("%s: tensor \"%s\": expected an object", path,
		    escape_tty_name(t->name));
		return -1;
	}
	if (!cJSON_IsString(dt) ||
	    (t->dt = dtype_from_name(dt->valuestring)) == DT_NONE) {
		error("%s: tensor \"%s\": field \"dataType\": %s", path,
		    escape_tty_name(t->name),
		    !dt ? "missing" : "unknown data type");
		return -1;
	}
	if (readshape(path, cJSON_GetObjectItemCaseSensitive(e, "shape"),
	    t) != 0)
		return -1;
	if (uintval(cJSON_GetObjectItemCaseSensitive(e, "byteOffset"), MAXINT,
	    &t->offset) != 0 ||
	    uintval(cJSON_GetObjectItemCaseSensitive(e, "byteLength"), MAXINT,
	    &t->length) != 0) {
		error("%s: tensor \"%s\": byteOffset and byteLength must be "
		    "integers from 0 to 2^53", path, escape_tty_name(t->name));
		return -1;
	}
	if (countof(t->rank, t->shape, &numel) != 0) {
		char *ds = descstr(t->dt, t->rank, t->shape);

		error("%s: tensor \"%s\": %s is too large", path,
		    escape_tty_name(t->name),
		    ds);
		free(ds);
		return -1;
	}
	if (t->length != dtype_bytes(t->dt, numel)) {
		char *ds = descstr(t->dt, t->rank, t->shape);

		error("%s: tensor \"%s\": byteLength %" PRIu64 " disagrees "
		    "with %s (%" PRIu64 " bytes)", path,
		    escape_tty_name(t->name), t->length, ds,
		    dtype_bytes(t->dt, numel));
		free(ds);
		return -1;
	}
	if (lay && (!cJSON_IsString(lay) ||
	    strcmp(lay->valuestring, "row-major") != 0)) {
		error("%s: tensor \"%s\": field \"layout\": only \"row-major\" "
		    "is supported", path, escape_tty_name(t->name));
		return -1;
	}
	if (cs) {
		if (!cJSON_IsString(cs) ||
		    parsesum(cs->valuestring, &t->checksum) != 0) {
			error("%s: tensor \"%s\": field \"checksum\": expected "
			    "\"xxh3-64:\" and 16 lowercase hex digits", path,
			    escape_tty_name(t->name));
			return -1;
		}
		t->has_checksum = 1;
	}
	return 0;
}

static int
readmanifest(const char *path, const cJSON *root, struct manifest *m)
{
	const cJSON *v, *it;

	if (!cJSON_IsObject(root)) {
		error("%s: not a JSON object", path);
		return -1;
	}
	v = cJSON_GetObjectItemCaseSensitive(root, "format");
	if (!cJSON_IsString(v) ||
	    strcmp(v->valuestring, "wg-weights-manifest") != 0) {
		error("%s: field \"format\": expected \"wg-weights-manifest\"",
		    path);
		return -1;
	}
	v = cJSON_GetObjectItemCaseSensitive(root, "version");
	if (!cJSON_IsNumber(v) || v->valuedouble != 1) {
		error("%s: field \"version\": expected 1", path);
		return -1;
	}
	v = cJSON_GetObjectItemCaseSensitive(root, "endianness");
	if (v && (!cJSON_IsString(v) || strcmp(v->valuestring, "little"))) {
		error("%s: field \"endianness\": only \"little\" is supported",
		    path);
		return -1;
	}
	v = cJSON_GetObjectItemCaseSensitive(root, "tensors");
	if (!cJSON_IsObject(v)) {
		error("%s: field \"tensors\": %s", path, v ? "expected an "
		    "object" : "missing");
		return -1;
	}
	cJSON_ArrayForEach(it, v) {
		if (!it->string[0]) {
			error("%s: a tensor has an empty name", path);
			return -1;
		}
		if (manifest_find(m, it->string)) {
			error("%s: tensor \"%s\" appears twice", path,
			    escape_tty_name(it->string));
			return -1;
		}
		if (readentry(path, it, addtensor(m, it->string)) != 0)
			return -1;
	}
	return 0;
}

int
manifest_load(const char *path, struct manifest *m)
{
	size_t len;
	const char *why;
	/* a manifest this program wrote may still be in its temporary */
	char *text = infile_read(outfile_staged(path), MANIFEST_MAX, &len,
	    &why);
	cJSON *root;
	int rc;

	memset(m, 0, sizeof *m);
	if (!text) {
		error("%s: %s", path, why);
		return -1;
	}
	if (json_check(text, len, path) != 0) {
		free(text);
		return -1;
	}
	root = cJSON_ParseWithLength(text, len);
	if (!root) {
		const char *at = cJSON_GetErrorPtr();

		error("%s: not valid JSON (near byte %td)", path,
		    at && at >= text && at <= text + len ? at - text : 0);
		free(text);
		return -1;
	}
	free(text);
	rc = readmanifest(path, root, m);
	cJSON_Delete(root);
	if (rc)
		manifest_free(m);
	return rc;
}

static char *
manifest_text(const struct manifest *m)
{
	struct sb b = { NULL, 0, 0 };

	sb_printf(&b, "{\n  \"format\": \"wg-weights-manifest\",\n"
	    "  \"version\": 1,\n  \"endianness\": \"little\",\n"
	    "  \"tensors\": {");
	for (size_t i = 0; i < m->n; i++) {
		const struct wtensor *t = &m->t[i];

		sb_printf(&b, i ? ",\n    " : "\n    ");
		sb_jsonstr(&b, t->name);
		sb_printf(&b, ": {\"dataType\": \"%s\", \"shape\": [",
		    dtype_name(t->dt));
		for (int k = 0; k < t->rank; k++)
			sb_printf(&b, "%s%lld", k ? ", " : "",
			    (long long)t->shape[k]);
		sb_printf(&b, "], \"byteOffset\": %" PRIu64 ", \"byteLength\": "
		    "%" PRIu64 ", \"layout\": \"row-major\"", t->offset,
		    t->length);
		if (t->has_checksum)
			sb_printf(&b, ", \"checksum\": \"xxh3-64:%016" PRIx64
			    "\"", t->checksum);
		sb_printf(&b, "}");
	}
	sb_printf(&b, m->n ? "\n  }\n}\n" : "}\n}\n");
	return b.s;
}

int
manifest_save(const struct manifest *m, const char *path)
{
	char *s = manifest_text(m);
	int rc = writefile_atomic(path, s, strlen(s));

	free(s);
	return rc;
}

static int
byoffset(const void *a, const void *b)
{
	const struct wtensor *x = *(const struct wtensor *const *)a;
	const struct wtensor *y = *(const struct wtensor *const *)b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Every tensor past the header and inside the file; no shared bytes. */
static int
checklayout(const struct weights *w)
{
	struct wtensor **v = xmalloc((w->m.n + 1) * sizeof *v), *last = NULL;
	size_t nv = 0;
	int rc = -1;

	for (size_t i = 0; i < w->m.n; i++) {
		struct wtensor *t = &w->m.t[i];

		if (t->offset < WEIGHTS_HEADER) {
			error("%s: tensor \"%s\": byteOffset %" PRIu64 " lies "
			    "in the %d-byte header", w->path,
			    escape_tty_name(t->name),
			    t->offset, WEIGHTS_HEADER);
			goto out;
		}
		if (t->offset > w->size || t->length > w->size - t->offset) {
			error("%s: tensor \"%s\": byteOffset %" PRIu64 " + "
			    "byteLength %" PRIu64 " overruns the file (%zu "
			    "bytes)", w->path, escape_tty_name(t->name),
			    t->offset, t->length,
			    w->size);
			goto out;
		}
		if (t->length)
			v[nv++] = t;
	}
	qsort(v, nv, sizeof *v, byoffset);
	/* last: the tensor reaching furthest among those before v[i] */
	for (size_t i = 0; i < nv; i++) {
		if (last && last->offset + last->length > v[i]->offset) {
			error("%s: tensors \"%s\" (bytes %" PRIu64 " to %"
			    PRIu64 ") and \"%s\" (bytes %" PRIu64 " to %" PRIu64
			    ") overlap", w->path, escape_tty_name(last->name),
			    last->offset,
			    last->offset + last->length,
			    escape_tty_name(v[i]->name),
			    v[i]->offset, v[i]->offset + v[i]->length);
			goto out;
		}
		if (!last || v[i]->offset + v[i]->length >
		    last->offset + last->length)
			last = v[i];
	}
	rc = 0;
out:
	free(v);
	return rc;
}

/* The furthest byte any tensor reaches (they are inside the file). */
static uint64_t
extent(const struct weights *w)
{
	uint64_t end = WEIGHTS_HEADER;

	for (size_t i = 0; i < w->m.n; i++)
		if (w->m.t[i].offset + w->m.t[i].length > end)
			end = w->m.t[i].offset + w->m.t[i].length;
	return end;
}

/*
 * Manifest, then the weights file: a regular file, its header, every
 * tensor checked against its real size; then, when data, the bytes up
 * to the last tensor's end (never more than the file holds).
 */
static int
wopen(struct weights *w, const char *path, const char *manifest, int data)
{
	unsigned char hdr[WEIGHTS_HEADER];
	const char *why;
	uint64_t fsize;
	int fd = -1;

	memset(w, 0, sizeof *w);
	if (manifest_load(manifest, &w->m) != 0)
		return -1;
	w->path = xstrdup(path);
	w->manifest_path = xstrdup(manifest);
	/* a weights file this program wrote may still be in its temporary */
	if ((fd = infile_open(outfile_staged(path), &fsize, &why)) < 0) {
		error("%s: %s", path, why);
		goto fail;
	}
	if (fsize < WEIGHTS_HEADER || infile_pread(fd, hdr, sizeof hdr, 0,
	    &why) != 0 || memcmp(hdr, "WGWT", 4) != 0) {
		error("%s: not a weights file (no WGWT magic)", path);
		goto fail;
	}
	if (le32(hdr + 4) != WEIGHTS_VERSION) {
		error("%s: unsupported weights file version %" PRIu32, path,
		    le32(hdr + 4));
		goto fail;
	}
	w->size = fsize < SIZE_MAX ? (size_t)fsize : SIZE_MAX - 1;
	if (checklayout(w) != 0)
		goto fail;
	if (data) {
		w->size = (size_t)extent(w);
		w->data = xmalloc(w->size + 1);
		if (infile_pread(fd, w->data, w->size, 0, &why) != 0) {
			error("%s: %s", path, why);
			goto fail;
		}
	}
	close(fd);
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	weights_close(w);
	return -1;
}

int
weights_open(struct weights *w, const char *path, const char *manifest)
{
	return wopen(w, path, manifest, 1);
}

int
weights_check(struct weights *w, const char *path, const char *manifest)
{
	return wopen(w, path, manifest, 0);
}

const unsigned char *
weights_bytes(const struct weights *w, const struct wtensor *t)
{
	return w->data + t->offset;
}

int
weights_verify(const struct weights *w, int warn_unchecked)
{
	int bad = 0;

	for (size_t i = 0; i < w->m.n; i++) {
		const struct wtensor *t = &w->m.t[i];
		uint64_t h;

		if (!t->has_checksum) {
			if (warn_unchecked)
				warn("%s: tensor \"%s\" has no checksum",
				    w->manifest_path, escape_tty_name(t->name));
			continue;
		}
		h = checksum_xxh3(weights_bytes(w, t), (size_t)t->length);
		if (h != t->checksum) {
			error("%s: tensor \"%s\": checksum mismatch (manifest "
			    "xxh3-64:%016" PRIx64 ", data xxh3-64:%016" PRIx64
			    ")", w->path, escape_tty_name(t->name), t->checksum,
			    h);
			bad++;
		}
	}
	return bad;
}

void
weights_close(struct weights *w)
{
	free(w->data);
	free(w->path);
	free(w->manifest_path);
	manifest_free(&w->m);
	memset(w, 0, sizeof *w);
}

int
wwriter_open(struct wwriter *ww, const char *path, const char *manifest_path,
    unsigned align)
{
	unsigned char hdr[WEIGHTS_HEADER];

	memset(ww, 0, sizeof *ww);
	ww->align = align ? align : WEIGHTS_ALIGN;
	if (ww->align & (ww->align - 1)) {
		error("%s: alignment %u is not a power of two", path,
		    ww->align);
		return -1;
	}
	if (!path || !strcmp(path, "-")) {
		error("the weights file cannot be standard output");
		return -1;
	}
	if (manifest_path && strcmp(path, manifest_path) == 0) {
		error("%s: the weights file and its manifest must differ",
		    path);
		return -1;
	}
	if (outfile_open(&ww->out, path) != 0)
		return -1;
	memcpy(hdr, "WGWT", 4);
	put_le32(hdr + 4, WEIGHTS_VERSION);
	if (fwrite(hdr, 1, sizeof hdr, ww->out.fp) != sizeof hdr) {
		error("%s: write error: %s", path, strerror(errno));
		outfile_abort(&ww->out);
		return -1;
	}
	ww->off = WEIGHTS_HEADER;
	ww->manifest_path = xstrdup(manifest_path ? manifest_path : "-");
	return 0;
}

int
wwriter_add(struct wwriter *ww, const char *name, enum dtype dt, int rank,
    const int64_t *shape, const void *data, uint64_t len)
{
	static const unsigned char zeros[4096];
	uint64_t at = (ww->off + ww->align - 1) / ww->align * ww->align, numel;
	struct wtensor *t;

	if (!name[0] || manifest_find(&ww->m, name)) {
		error("%s: %s tensor name \"%s\"", ww->out.path, name[0] ?
		    "duplicate" : "empty", escape_tty_name(name));
		return -1;
	}
	if (dtype_bits(dt) == 0 || rank < 0 || rank > MAXRANK ||
	    countof(rank, shape, &numel) != 0 ||
	    len != dtype_bytes(dt, numel)) {
		error("%s: tensor \"%s\": %" PRIu64 " bytes do not make a "
		    "%s tensor of that shape", ww->out.path,
		    escape_tty_name(name), len,
		    dtype_name(dt));
		return -1;
	}
	while (ww->off < at) {
		uint64_t gap = at - ww->off;
		size_t k = gap < sizeof zeros ? (size_t)gap : sizeof zeros;

		if (fwrite(zeros, 1, k, ww->out.fp) != k)
			goto ioerr;
		ww->off += k;
	}
	if (len && fwrite(data, 1, (size_t)len, ww->out.fp) != len)
		goto ioerr;
	t = addtensor(&ww->m, name);
	t->dt = dt;
	t->rank = rank;
	t->shape = xcalloc((size_t)rank + 1, sizeof *t->shape);
	if (rank)
		memcpy(t->shape, shape, (size_t)rank * sizeof *shape);
	t->offset = at;
	t->length = len;
	t->has_checksum = 1;
	t->checksum = checksum_xxh3(data, (size_t)len);
	ww->off += len;
	return 0;
ioerr:
	error("%s: write error: %s", ww->out.path, strerror(errno));
	return -1;
}

/* Both files are renamed together, or neither (one group). */
int
wwriter_commit(struct wwriter *ww)
{
	struct outfile mo;
	char *s = NULL;
	size_t n;
	int rc = -1;

	outfile_group_begin();
	if (outfile_open(&mo, ww->manifest_path) != 0)
		goto out;
	s = manifest_text(&ww->m);
	n = strlen(s);
	if (fwrite(s, 1, n, mo.fp) != n) {
		error("%s: write error: %s", ww->manifest_path,
		    strerror(errno));
		outfile_abort(&mo);
		goto out;
	}
	if (outfile_commit(&ww->out) != 0) {
		outfile_abort(&mo);
		goto out;
	}
	if (outfile_commit(&mo) != 0)
		goto out;
	rc = 0;
out:
	if (rc == 0)
		rc = outfile_group_commit();
	else
		outfile_group_abort();
	free(s);
	wwriter_abort(ww);
	return rc;
}

void
wwriter_abort(struct wwriter *ww)
{
	outfile_abort(&ww->out);
	manifest_free(&ww->m);
	free(ww->manifest_path);
	ww->manifest_path = NULL;
}
