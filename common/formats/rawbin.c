/*
 * rawbin: webnn-graph's tensor directories, NAME.bin plus NAME.meta.json,
 * read as a source of tensors like an .npy file.  The meta file gives
 * the type; the .bin holds exactly its bytes, row-major, little-endian
 * (webnn-graph writes no byte order beside them; its manifests default
 * to little).  Its 4-bit types take a byte per value there, unlike
 * nnl's packed nibbles, so they are refused rather than misread.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "rawbin.h"
#include "checked.h"
#include "escape.h"
#include "infile.h"
#include "jsonerr.h"
#include "util.h"

/* A meta file is a few lines; 1 MiB is far more than any needs. */
#define META_MAX ((uint64_t)1 << 20)

int
rawbin_is(const char *name)
{
	size_t n = strlen(name);

	return n > 4 && strcmp(name + n - 4, ".bin") == 0;
}

/* "dataType" and "shape" of a meta file into a; 0 or -1 reported. */
static int
readmeta(const char *meta, const cJSON *root, struct npy *a,
    uint64_t *length)
{
	const cJSON *dt = cJSON_GetObjectItemCaseSensitive(root, "dataType");
	const cJSON *sh = cJSON_GetObjectItemCaseSensitive(root, "shape");
	const cJSON *bl = cJSON_GetObjectItemCaseSensitive(root,
	    "byteLength");
	const cJSON *lay = cJSON_GetObjectItemCaseSensitive(root, "layout");
	const cJSON *it;

	*length = UINT64_MAX;
	if (!cJSON_IsString(dt) ||
	    (a->dt = dtype_from_name(dt->valuestring)) == DT_NONE) {
		error("%s: field \"dataType\": %s", meta, dt ? "not a "
		    "webnn data type" : "missing");
		return -1;
	}
	if (dtype_bits(a->dt) < 8) {
		error("%s: %s: webnn-graph stores a byte per 4-bit value; "
		    "give the tensor as .npy instead", meta, dt->valuestring);
		return -1;
	}
	if (!cJSON_IsArray(sh) || cJSON_GetArraySize(sh) > NPY_MAXDIM) {
		error("%s: field \"shape\": %s", meta, sh ? "expected an "
		    "array of at most 32 dimensions" : "missing");
		return -1;
	}
	a->rank = 0;
	cJSON_ArrayForEach(it, sh) {
		double v = it->valuedouble;

		if (!cJSON_IsNumber(it) || v < 0 || v != floor(v) ||
		    v > 9007199254740992.0) {
			error("%s: field \"shape\"[%d]: expected a dimension "
			    "(an integer, 0 or more)", meta, a->rank);
			return -1;
		}
		a->shape[a->rank++] = (int64_t)v;
	}
	if (lay && (!cJSON_IsString(lay) ||
	    strcmp(lay->valuestring, "row-major") != 0)) {
		error("%s: field \"layout\": only \"row-major\" is read", meta);
		return -1;
	}
	if (bl) {
		if (!cJSON_IsNumber(bl) || bl->valuedouble < 0 ||
		    bl->valuedouble != floor(bl->valuedouble) ||
		    bl->valuedouble > 9007199254740992.0) {
			error("%s: field \"byteLength\": expected a byte "
			    "count", meta);
			return -1;
		}
		*length = (uint64_t)bl->valuedouble;
	}
	return 0;
}

int
rawbin_load(const char *bin, struct npy *a)
{
	size_t n = strlen(bin) - 4, len;
	char *meta = xasprintf("%.*s.meta.json", (int)n, bin), *text, *why;
	const char *whyr;
	cJSON *root = NULL;
	uint64_t numel, bytes, length, size;
	int fd, rc = -1;

	memset(a, 0, sizeof *a);
	if (!(text = infile_read(meta, META_MAX, &len, &whyr))) {
		error("%s: %s (a .bin tensor needs its .meta.json)", meta,
		    whyr);
		goto out;
	}
	if (json_check(text, len, meta) != 0) {
		free(text);
		goto out;
	}
	root = cJSON_ParseWithLength(text, len);
	free(text);
	if (!cJSON_IsObject(root)) {
		error("%s: expected a JSON object", meta);
		goto out;
	}
	if (readmeta(meta, root, a, &length) != 0)
		goto out;
	why = checked_tensor(&(struct tdesc){ a->dt, a->rank, a->shape });
	if (why || checked_size(&(struct tdesc){ a->dt, a->rank,
	    a->shape }, &numel, &bytes) != 0) {
		error("%s: %s", meta, why ? why : "too large");
		free(why);
		goto out;
	}
	if (length != UINT64_MAX && length != bytes) {
		error("%s: field \"byteLength\": %llu, but the type holds "
		    "%llu bytes", meta, (unsigned long long)length,
		    (unsigned long long)bytes);
		goto out;
	}
	if ((fd = infile_open(bin, &size, &whyr)) < 0) {
		error("%s: %s", bin, whyr);
		goto out;
	}
	close(fd);
	if (size != bytes) {
		error("%s: %llu bytes, but %s gives a %s tensor of %llu "
		    "bytes", bin, (unsigned long long)size,
		    path_basename(meta), dtype_name(a->dt),
		    (unsigned long long)bytes);
		goto out;
	}
	if (!(text = infile_read(bin, bytes, &len, &whyr)) ||
	    len != bytes) {
		error("%s: %s", bin, text ? "changed while read" : whyr);
		free(text);
		goto out;
	}
	a->data = (unsigned char *)text;
	a->nbytes = len;
	rc = 0;
out:
	cJSON_Delete(root);
	free(meta);
	return rc;
}
