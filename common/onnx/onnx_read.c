/*
 * onnx_read: ONNX tensors into bytes: the data types nnl has, every
 * encoding a TensorProto may use (raw_data, the typed repeated fields,
 * external data), each checked against the tensor's shape.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "infile.h"
#include "modelpath.h"
#include "onnx_imp.h"
#include "escape.h"

enum dtype
onnx_dtype(int32_t t, const char **name)
{
	static const char *const names[] = {
		"UNDEFINED", "FLOAT", "UINT8", "INT8", "UINT16", "INT16",
		"INT32", "INT64", "STRING", "BOOL", "FLOAT16", "DOUBLE",
		"UINT32", "UINT64", "COMPLEX64", "COMPLEX128", "BFLOAT16",
	};

	*name = t >= 0 && t < (int32_t)(sizeof names / sizeof *names) ?
	    names[t] : "an unknown type";
	switch (t) {
	case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT: return DT_FLOAT32;
	case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16: return DT_FLOAT16;
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT32: return DT_INT32;
	case ONNX__TENSOR_PROTO__DATA_TYPE__UINT32: return DT_UINT32;
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT64: return DT_INT64;
	case ONNX__TENSOR_PROTO__DATA_TYPE__UINT64: return DT_UINT64;
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT8: return DT_INT8;
	case ONNX__TENSOR_PROTO__DATA_TYPE__UINT8: return DT_UINT8;
	case ONNX__TENSOR_PROTO__DATA_TYPE__BOOL: return DT_UINT8;
	/* nnl's extended types, beyond WebNN (nnl-graph(5)) */
	case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE: return DT_FLOAT64;
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT16: return DT_INT16;
	case ONNX__TENSOR_PROTO__DATA_TYPE__UINT16: return DT_UINT16;
	case ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16: return DT_BFLOAT16;
	default: return DT_NONE;
	}
}

static const char *
extget(const Onnx__TensorProto *t, const char *key)
{
	for (size_t i = 0; i < t->n_external_data; i++)
		if (t->external_data[i]->key &&
		    strcmp(t->external_data[i]->key, key) == 0)
			return t->external_data[i]->value;
	return NULL;
}

static int
extnum(struct imp *m, const char *what, const char *key, const char *s,
    uint64_t *v)
{
	char *end;
	unsigned long long x;

	errno = 0;
	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		goto bad;
	x = strtoull(s, &end, 10);
	if (errno || *end)
		goto bad;
	*v = x;
	return 0;
bad:
	error("%s: %s: external data %s \"%s\" is not a byte count", m->path,
	    what, key, escape_tty_name(s ? s : ""));
	return -1;
}

/* The bytes of external data: location relative to the model's folder,
 * never absolute or outside it without --allow-outside (modelpath). */
static void *
external(struct imp *m, const Onnx__TensorProto *t, const char *what,
    uint64_t want)
{
	const char *loc = extget(t, "location"), *so = extget(t, "offset");
	const char *sl = extget(t, "length");
	uint64_t off = 0, len = want, size;
	char *real = NULL;
	unsigned char *data = NULL;
	const char *why;
	int fd = -1;

	if (!loc || !*loc) {
		error("%s: %s: external data without a location", m->path,
		    what);
		return NULL;
	}
	if ((so && extnum(m, what, "offset", so, &off) != 0) ||
	    (sl && extnum(m, what, "length", sl, &len) != 0))
		return NULL;
	if (!(real = modelpath(m->dir, loc, m->outside, &why))) {
		int sys = errno != 0;	/* else the policy's refusal */

		error("%s: %s: external data %s\"%s\"%s%s", m->path, what,
		    sys ? "" : "path ", escape_tty_name(loc), sys ? ": " : " ",
		    why);
		goto out;
	}
	if (len != want) {
		error("%s: %s: external data length %llu, the tensor needs "
		    "%llu bytes", m->path, what, (unsigned long long)len,
		    (unsigned long long)want);
		goto out;
	}
	/* a regular file (a FIFO would hang us), holding what is asked */
	if ((fd = infile_open(real, &size, &why)) < 0) {
		error("%s: %s: external data \"%s\": %s", m->path, what,
		    escape_tty_name(loc),
		    why);
		goto out;
	}
	if (off > size || len > size - off) {
		error("%s: %s: external data \"%s\" holds %llu bytes; offset "
		    "%llu and length %llu run past its end", m->path, what,
		    escape_tty_name(loc), (unsigned long long)size, (unsigned long long)off,
		    (unsigned long long)len);
		goto out;
	}
	data = xmalloc(len + 1);
	if (infile_pread(fd, data, len, off, &why) != 0) {
		error("%s: %s: external data \"%s\": %s", m->path, what,
		    escape_tty_name(loc),
		    why);
		free(data);
		data = NULL;
	}
out:
	if (fd >= 0)
		close(fd);
	free(real);
	return data;
}

/* How many values the typed field of t's data type holds. */
static size_t
fieldcount(const Onnx__TensorProto *t)
{
	switch (t->data_type) {
	case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT: return t->n_float_data;
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT64: return t->n_int64_data;
	case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE: return t->n_double_data;
	case ONNX__TENSOR_PROTO__DATA_TYPE__UINT32:
	case ONNX__TENSOR_PROTO__DATA_TYPE__UINT64: return t->n_uint64_data;
	default: return t->n_int32_data;
	}
}

/*
 * The n values of t's typed field (float_data, double_data, int64_data,
 * uint64_data or int32_data, by its data type dt) into d, each in dt's bytes, when
 * the field holds n of them.  The number it holds.
 */
static size_t
typedfields(const Onnx__TensorProto *t, enum dtype dt, uint64_t n,
    unsigned char *d)
{
	uint64_t es = dtype_bytes(dt, 1), nb = n * es;
	size_t nf;

	switch (t->data_type) {
	case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT:
		nf = t->n_float_data;
		if (nf == n && nb)
			memcpy(d, t->float_data, nb);
		break;
	case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE:
		nf = t->n_double_data;
		if (nf == n && nb)
			memcpy(d, t->double_data, nb);
		break;
	case ONNX__TENSOR_PROTO__DATA_TYPE__INT64:
		nf = t->n_int64_data;
		if (nf == n && nb)
			memcpy(d, t->int64_data, nb);
		break;
	case ONNX__TENSOR_PROTO__DATA_TYPE__UINT32:
	case ONNX__TENSOR_PROTO__DATA_TYPE__UINT64:
		nf = t->n_uint64_data;
		for (uint64_t i = 0; nf == n && i < n; i++) {
			uint64_t v = t->uint64_data[i];

			if (dt == DT_UINT32) {
				uint32_t u = (uint32_t)v;
				memcpy(d + 4 * i, &u, 4);
			} else {
				memcpy(d + 8 * i, &v, 8);
			}
		}
		break;
	default:	/* int32, int16, uint16, int8, uint8, bool, float16,
			 * bfloat16: int32_data */
		nf = t->n_int32_data;
		for (uint64_t i = 0; nf == n && i < n; i++) {
			int32_t v = t->int32_data[i];

			if (es == 4) {
				memcpy(d + 4 * i, &v, 4);
			} else if (es == 2) {
				uint16_t u = (uint16_t)v;
				memcpy(d + 2 * i, &u, 2);
			} else if (t->data_type ==
			    ONNX__TENSOR_PROTO__DATA_TYPE__BOOL) {
				d[i] = v != 0;
			} else {
				d[i] = (unsigned char)v;
			}
		}
		break;
	}
	return nf;
}

int
onnx_tensor(struct imp *m, const Onnx__TensorProto *t, const char *what,
    struct tdesc *desc, void **data)
{
	const char *tn;
	enum dtype dt = onnx_dtype(t->data_type, &tn);
	uint64_t n = 1, nb, es;
	size_t nfields;
	unsigned char *d;

	*data = NULL;
	if (dt == DT_NONE) {
		error("%s: %s [%s]: data type %s has no equivalent in "
		    "nnl's graph", m->path, what, refusal_code(REFUSE_TYPE), tn);
		return -1;
	}
	if (t->n_dims > 32) {
		error("%s: %s: rank %zu is over 32", m->path, what, t->n_dims);
		return -1;
	}
	for (size_t i = 0; i < t->n_dims; i++) {
		if (t->dims[i] < 0 || (t->dims[i] > 0 &&
		    n > (UINT64_C(1) << 40) / (uint64_t)t->dims[i])) {
			error("%s: %s: dimension %zu is %lld", m->path, what,
			    i, (long long)t->dims[i]);
			return -1;
		}
		n *= (uint64_t)t->dims[i];
	}
	es = dtype_bytes(dt, 1);
	nb = n * es;
	if (t->has_data_location && t->data_location ==
	    ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) {
		if (!(d = external(m, t, what, nb)))
			return -1;
		goto done;
	}
	/* the data's size against the dims, before allocating for them */
	if (t->has_raw_data && t->raw_data.len != nb) {
		error("%s: %s: raw_data holds %zu bytes, %s[%llu elements] "
		    "needs %llu", m->path, what, t->raw_data.len, tn,
		    (unsigned long long)n, (unsigned long long)nb);
		return -1;
	}
	nfields = fieldcount(t);
	if (!t->has_raw_data && nfields != n) {
		error("%s: %s: %zu values for %s[%llu elements]", m->path,
		    what, nfields, tn, (unsigned long long)n);
		return -1;
	}
	d = xcalloc(nb + 1, 1);
	if (t->has_raw_data) {
		if (nb)
			memcpy(d, t->raw_data.data, nb);
		goto done;
	}
	nfields = typedfields(t, dt, n, d);
	if (nfields != n) {
		error("%s: %s: %zu values for %s[%llu elements]", m->path,
		    what, nfields, tn, (unsigned long long)n);
		free(d);
		return -1;
	}
done:
	if (t->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__BOOL)
		for (uint64_t i = 0; i < n; i++)
			d[i] = d[i] != 0;
	desc->dt = dt;
	desc->rank = (int)t->n_dims;
	desc->dims = xcalloc(t->n_dims + 1, sizeof *desc->dims);
	for (size_t i = 0; i < t->n_dims; i++)
		desc->dims[i] = t->dims[i];
	*data = d;
	return 0;
}
