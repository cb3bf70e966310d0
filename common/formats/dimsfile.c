/*
 * dimsfile: the symbolic dimensions of an ONNX model pinned from a JSON
 * file, as ONNX Runtime's freeDimensionOverrides session option gives
 * them ({"freeDimensionOverrides": {"batch": 1}}) or as a flat object
 * ({"batch": 1}): the same overrides --dim NAME=N gives one at a time.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "dimsfile.h"
#include "escape.h"
#include "jsonerr.h"
#include "util.h"

/* "prog: file: error: ..." */
#define FERR(...) error_at(&(struct srcloc){ name, 0, 0, NULL, 0 }, \
    __VA_ARGS__)

int
dimsfile_read(const char *path, char ***dims, int *n)
{
	size_t len;
	char *text = readfile(path, &len);
	const char *name = displayname(path);
	cJSON *root, *obj, *it;
	int rc = 0;

	if (!text) {
		FERR("%s", strerror(errno));
		return -1;
	}
	if (json_check(text, len, name) != 0) {
		free(text);
		return -1;
	}
	root = cJSON_ParseWithLength(text, len);
	free(text);
	if (!cJSON_IsObject(root)) {
		FERR("expected a JSON object of dimension names and sizes");
		cJSON_Delete(root);
		return -1;
	}
	obj = cJSON_GetObjectItemCaseSensitive(root, "freeDimensionOverrides");
	if (obj && !cJSON_IsObject(obj)) {
		FERR("\"freeDimensionOverrides\": expected an object");
		cJSON_Delete(root);
		return -1;
	}
	if (!obj)
		obj = root;
	cJSON_ArrayForEach(it, obj) {
		double v = it->valuedouble;

		if (!*it->string || strchr(it->string, '=')) {
			FERR("entry \"%s\": not a dimension name (empty, or "
			    "with '=')", escape_tty_name(it->string));
			rc = -1;
		} else if (!cJSON_IsNumber(it) || v != floor(v) || v < 1 ||
		    v > 4294967295.0) {
			char *s = cJSON_PrintUnformatted(it);

			FERR("entry \"%s\": expected a positive integer, found "
			    "%s", escape_tty_name(it->string),
			    escape_tty_name(s ? s : "?"));
			free(s);
			rc = -1;
		} else {
			*dims = xrealloc(*dims, (size_t)(*n + 1) *
			    sizeof **dims);
			(*dims)[(*n)++] = xasprintf("%s=%.0f", it->string, v);
		}
	}
	cJSON_Delete(root);
	return rc;
}

int
dimsfile_arg(const char *arg)
{
	const char *eq = strchr(arg, '=');
	char *end;
	unsigned long long v;

	if (!eq || eq == arg || !eq[1] || eq[1] < '0' || eq[1] > '9')
		return 0;
	errno = 0;
	v = strtoull(eq + 1, &end, 10);
	return !*end && errno == 0 && v >= 1 && v <= 4294967295ULL;
}
