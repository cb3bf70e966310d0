/*
 * weights: the WGWT weights file and its wg-weights-manifest.  Reading
 * checks everything a later pass would trip over: magic, version,
 * offsets inside the file, no overlaps, lengths that match the type
 * and shape; checksums (XXH3-64, nnl's extension) on demand.  Writing
 * aligns every tensor and commits file and manifest together.
 */
#include "weights.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include <cjson/cJSON.h>

#include "graph.h"

uint64_t
checksum_xxh3(const void *data, size_t len)
{
	return (uint64_t)XXH3_64bits(data, len);
}

static struct wtensor *
addtensor(struct manifest *m)
{
	struct wtensor *t;

	GROW(m->t, m->cap, m->n + 1);
	t = &m->t[m->n++];
	memset(t, 0, sizeof *t);
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
	memset(m, 0, sizeof *m);
}

struct wtensor *
manifest_find(const struct manifest *m, const char *name)
{
	for (size_t i = 0; i < m->n; i++)
		if (strcmp(m->t[i].name, name) == 0)
			return &m->t[i];
	return NULL;
}

static int
uintval(const cJSON *v, uint64_t *out)
{
	if (!cJSON_IsNumber(v) || v->valuedouble < 0 ||
	    v->valuedouble != floor(v->valuedouble) ||
	    v->valuedouble > 9007199254740992.0)
		return -1;
	*out = (uint64_t)v->valuedouble;
	return 0;
}

static int
readentry(const char *path, const cJSON *e, struct wtensor *t)
{
	const cJSON *dt = cJSON_GetObjectItemCaseSensitive(e, "dataType");
	const cJSON *sh = cJSON_GetObjectItemCaseSensitive(e, "shape");
	const cJSON *cs = cJSON_GetObjectItemCaseSensitive(e, "checksum");
	const cJSON *lay = cJSON_GetObjectItemCaseSensitive(e, "layout");
	const cJSON *it;
	uint64_t numel = 1;
	int k = 0;

	if (!cJSON_IsObject(e)) {
		error("%s: tensor \"%s\": expected an object", path, t->name);
		return -1;
	}
	if (!cJSON_IsString(dt) ||
	    (t->dt = dtype_from_name(dt->valuestring)) == DT_NONE) {
		error("%s: tensor \"%s\": field \"dataType\": %s", path,
		    t->name, dt ? "unknown data type" : "missing");
		return -1;
	}
	if (!cJSON_IsArray(sh) || cJSON_GetArraySize(sh) > 32) {
		error("%s: tensor \"%s\": field \"shape\": %s", path, t->name,
		    sh ? "expected an array of at most 32 dimensions" :
		    "missing");
		return -1;
	}
	t->rank = cJSON_GetArraySize(sh);
	t->shape = xcalloc((size_t)t->rank + 1, sizeof *t->shape);
	cJSON_ArrayForEach(it, sh) {
		uint64_t d;

		if (uintval(it, &d) != 0 || d > 4294967295u) {
			error("%s: tensor \"%s\": field \"shape\": dimension %d "
			    "is not an integer from 0 to 4294967295", path,
			    t->name, k);
			return -1;
		}
		t->shape[k++] = (int64_t)d;
		if (d && numel > UINT64_MAX / 16 / d) {
			error("%s: tensor \"%s\": shape too large", path,
			    t->name);
			return -1;
		}
		numel *= d;
	}
	if (uintval(cJSON_GetObjectItemCaseSensitive(e, "byteOffset"),
	    &t->offset) != 0 ||
	    uintval(cJSON_GetObjectItemCaseSensitive(e, "byteLength"),
	    &t->length) != 0) {
		error("%s: tensor \"%s\": byteOffset and byteLength must be "
		    "non-negative integers", path, t->name);
		return -1;
	}
	if (t->length != dtype_bytes(t->dt, numel)) {
		struct tdesc d = { t->dt, t->rank, t->shape };
		char *ds = tdesc_str(&d);

		error("%s: tensor \"%s\": byteLength %" PRIu64 " disagrees "
		    "with %s (%" PRIu64 " bytes)", path, t->name, t->length,
		    ds, dtype_bytes(t->dt, numel));
		free(ds);
		return -1;
	}
	if (lay && (!cJSON_IsString(lay) ||
	    strcmp(lay->valuestring, "row-major") != 0)) {
		error("%s: tensor \"%s\": layout must be \"row-major\"", path,
		    t->name);
		return -1;
	}
	if (cs) {
		char *end;

		if (!cJSON_IsString(cs) || strncmp(cs->valuestring,
		    "xxh3-64:", 8) != 0 || strlen(cs->valuestring) != 24) {
			error("%s: tensor \"%s\": checksum must be "
			    "\"xxh3-64:\" and 16 hex digits", path, t->name);
			return -1;
		}
		errno = 0;
		t->checksum = strtoull(cs->valuestring + 8, &end, 16);
		if (*end || errno) {
			error("%s: tensor \"%s\": bad checksum \"%s\"", path,
			    t->name, cs->valuestring);
			return -1;
		}
		t->has_checksum = 1;
	}
	return 0;
}

int
manifest_load(const char *path, struct manifest *m)
{
	size_t len;
	char *text = readfile(path, &len);
	cJSON *root;
	const cJSON *v, *ts, *it;
	int rc = -1;

	memset(m, 0, sizeof *m);
	if (!text) {
		error("%s: %s", path, strerror(errno));
		return -1;
	}
	root = cJSON_ParseWithLength(text, len);
	free(text);
	if (!root || !cJSON_IsObject(root)) {
		error("%s: not a JSON object", path);
		goto out;
	}
	v = cJSON_GetObjectItemCaseSensitive(root, "format");
	if (!cJSON_IsString(v) ||
	    strcmp(v->valuestring, "wg-weights-manifest") != 0) {
		error("%s: field \"format\": expected \"wg-weights-manifest\"",
		    path);
		goto out;
	}
	v = cJSON_GetObjectItemCaseSensitive(root, "version");
	if (!cJSON_IsNumber(v) || v->valuedouble != 1) {
		error("%s: field \"version\": expected 1", path);
		goto out;
	}
	v = cJSON_GetObjectItemCaseSensitive(root, "endianness");
	if (v && (!cJSON_IsString(v) || strcmp(v->valuestring, "little"))) {
		error("%s: field \"endianness\": only \"little\" is supported",
		    path);
		goto out;
	}
	ts = cJSON_GetObjectItemCaseSensitive(root, "tensors");
	if (!cJSON_IsObject(ts)) {
		error("%s: field \"tensors\": expected an object", path);
		goto out;
	}
	cJSON_ArrayForEach(it, ts) {
		struct wtensor *t;

		if (manifest_find(m, it->string)) {
			error("%s: tensor \"%s\" appears twice", path,
			    it->string);
			goto out;
		}
		t = addtensor(m);
		t->name = xstrdup(it->string);
		if (readentry(path, it, t) != 0)
			goto out;
	}
	rc = 0;
out:
	cJSON_Delete(root);
	if (rc)
		manifest_free(m);
	return rc;
}

static char *
manifest_text(const struct manifest *m)
{
	struct buf b = { 0 };

	buf_puts(&b, "{\n  \"format\": \"wg-weights-manifest\",\n"
	    "  \"version\": 1,\n  \"endianness\": \"little\",\n"
	    "  \"tensors\": {");
	for (size_t i = 0; i < m->n; i++) {
		const struct wtensor *t = &m->t[i];

		buf_puts(&b, i ? ",\n    " : "\n    ");
		json_put_string(&b, t->name);
		buf_printf(&b, ": {\"dataType\": \"%s\", \"shape\": [",
		    dtype_name(t->dt));
		for (int k = 0; k < t->rank; k++)
			buf_printf(&b, "%s%lld", k ? ", " : "",
			    (long long)t->shape[k]);
		buf_printf(&b, "], \"byteOffset\": %" PRIu64 ", "
		    "\"byteLength\": %" PRIu64 ", \"layout\": \"row-major\"",
		    t->offset, t->length);
		if (t->has_checksum)
			buf_printf(&b, ", \"checksum\": \"xxh3-64:%016" PRIx64
			    "\"", t->checksum);
		buf_putc(&b, '}');
	}
	buf_puts(&b, m->n ? "\n  }\n}\n" : "}\n}\n");
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

/* Sort helper for the overlap check. */
static int
byoffset(const void *a, const void *b)
{
	const struct wtensor *x = *(const struct wtensor *const *)a;
	const struct wtensor *y = *(const struct wtensor *const *)b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

int
weights_open(struct weights *w, const char *path, const char *manifest)
{
	struct wtensor **v;

	memset(w, 0, sizeof *w);
	if (manifest_load(manifest, &w->m) != 0)
		return -1;
	w->data = (unsigned char *)readfile(path, &w->size);
	if (!w->data) {
		error("%s: %s", path, strerror(errno));
		manifest_free(&w->m);
		return -1;
	}
	if (w->size < WEIGHTS_HEADER || memcmp(w->data, "WGWT", 4) != 0) {
		error("%s: not a weights file (no WGWT magic)", path);
		goto fail;
	}
	if (le32(w->data + 4) != WEIGHTS_VERSION) {
		error("%s: unsupported weights file version %u", path,
		    le32(w->data + 4));
		goto fail;
	}
	v = xmalloc((w->m.n + 1) * sizeof *v);
	for (size_t i = 0; i < w->m.n; i++) {
		struct wtensor *t = &w->m.t[i];

		v[i] = t;
		if (t->offset < WEIGHTS_HEADER) {
			error("%s: tensor \"%s\": byteOffset %" PRIu64 " lies "
			    "in the file header", manifest, t->name,
			    t->offset);
			free(v);
			goto fail;
		}
		if (t->offset > w->size || t->length > w->size - t->offset) {
			error("%s: tensor \"%s\": byteOffset %" PRIu64 " + "
			    "byteLength %" PRIu64 " overruns %s (%zu bytes)",
			    manifest, t->name, t->offset, t->length, path,
			    w->size);
			free(v);
			goto fail;
		}
	}
	qsort(v, w->m.n, sizeof *v, byoffset);
	for (size_t i = 1; i < w->m.n; i++)
		if (v[i - 1]->length && v[i]->length &&
		    v[i - 1]->offset + v[i - 1]->length > v[i]->offset) {
			error("%s: tensor \"%s\" overlaps tensor \"%s\"",
			    manifest, v[i]->name, v[i - 1]->name);
			free(v);
			goto fail;
		}
	free(v);
	w->path = xstrdup(path);
	w->manifest_path = xstrdup(manifest);
	return 0;
fail:
	free(w->data);
	manifest_free(&w->m);
	memset(w, 0, sizeof *w);
	return -1;
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
				    w->manifest_path, t->name);
			continue;
		}
		h = checksum_xxh3(w->data + t->offset, (size_t)t->length);
		if (h != t->checksum) {
			error("%s: tensor \"%s\": checksum mismatch (manifest "
			    "xxh3-64:%016" PRIx64 ", data xxh3-64:%016" PRIx64
			    ")", w->path, t->name, t->checksum, h);
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
	if (outfile_open(&ww->out, path) != 0)
		return -1;
	if (!ww->out.path) {
		error("the weights file cannot be standard output");
		return -1;
	}
	memcpy(hdr, "WGWT", 4);
	put_le32(hdr + 4, WEIGHTS_VERSION);
	if (fwrite(hdr, 1, sizeof hdr, ww->out.fp) != sizeof hdr) {
		error("%s: write error: %s", path, strerror(errno));
		outfile_abort(&ww->out);
		return -1;
	}
	ww->off = WEIGHTS_HEADER;
	ww->manifest_path = xstrdup(manifest_path);
	return 0;
}

int
wwriter_add(struct wwriter *ww, const char *name, enum dtype dt, int rank,
    const int64_t *shape, const void *data, uint64_t len)
{
	uint64_t at = (ww->off + ww->align - 1) / ww->align * ww->align;
	struct wtensor *t;
	struct tdesc d = { dt, rank, (int64_t *)shape };

	if (manifest_find(&ww->m, name)) {
		error("%s: two tensors are named \"%s\"", ww->out.path, name);
		return -1;
	}
	if (len != dtype_bytes(dt, tdesc_numel(&d))) {
		error("tensor \"%s\": %" PRIu64 " bytes for %s data of %"
		    PRIu64 " elements", name, len, dtype_name(dt),
		    tdesc_numel(&d));
		return -1;
	}
	for (; ww->off < at; ww->off++)
		if (fputc(0, ww->out.fp) == EOF)
			goto ioerr;
	if (len && fwrite(data, 1, (size_t)len, ww->out.fp) != len)
		goto ioerr;
	t = addtensor(&ww->m);
	t->name = xstrdup(name);
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

int
wwriter_commit(struct wwriter *ww)
{
	struct outfile mo;
	char *s;
	size_t n;

	/* the manifest goes to its temporary first, so that either both
	 * files appear or neither does */
	if (outfile_open(&mo, ww->manifest_path) != 0) {
		wwriter_abort(ww);
		return -1;
	}
	s = manifest_text(&ww->m);
	n = strlen(s);
	if (fwrite(s, 1, n, mo.fp) != n || fflush(mo.fp) != 0) {
		error("%s: write error: %s", ww->manifest_path,
		    strerror(errno));
		free(s);
		outfile_abort(&mo);
		wwriter_abort(ww);
		return -1;
	}
	free(s);
	if (outfile_commit(&ww->out) != 0) {
		outfile_abort(&mo);
		wwriter_abort(ww);
		return -1;
	}
	if (outfile_commit(&mo) != 0) {
		wwriter_abort(ww);
		return -1;
	}
	manifest_free(&ww->m);
	free(ww->manifest_path);
	ww->manifest_path = NULL;
	return 0;
}

void
wwriter_abort(struct wwriter *ww)
{
	outfile_abort(&ww->out);
	manifest_free(&ww->m);
	free(ww->manifest_path);
	ww->manifest_path = NULL;
}
