/*
 * npy: reads NumPy .npy images of versions 1.0, 2.0 and 3.0 (header
 * dict with 'descr', 'fortran_order' and 'shape'), strictly: anything
 * else, or data that does not match, is refused with a reason.  Writes
 * version 1.0 with the data 64-byte aligned, as NumPy does.
 */
#define _DEFAULT_SOURCE
#include "npy.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static int
fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* The header dict: a Python literal {'key': value, ...}. */
struct hdr {
	const char *p, *end;
};

static void
skipws(struct hdr *h)
{
	while (h->p < h->end && (*h->p == ' ' || *h->p == '\t' ||
	    *h->p == '\n' || *h->p == '\r'))
		h->p++;
}

static int
eat(struct hdr *h, char c)
{
	skipws(h);
	if (h->p < h->end && *h->p == c) {
		h->p++;
		return 1;
	}
	return 0;
}

/* A quoted string into buf. */
static int
pystr(struct hdr *h, char *buf, size_t len)
{
	char q;
	size_t n = 0;

	skipws(h);
	if (h->p >= h->end || (*h->p != '\'' && *h->p != '"'))
		return -1;
	q = *h->p++;
	while (h->p < h->end && *h->p != q) {
		if (*h->p == '\\' || n + 1 >= len)
			return -1;
		buf[n++] = *h->p++;
	}
	if (h->p >= h->end)
		return -1;
	h->p++;
	buf[n] = '\0';
	return 0;
}

int
npy_parse(const unsigned char *buf, size_t len, struct npy *out, char *err,
    size_t errlen)
{
	struct hdr h;
	size_t hlen, off;
	int major, have = 0, fortran = 0;
	char key[32], descr[32];
	uint64_t numel = 1, nbytes;

	memset(out, 0, sizeof *out);
	out->dt = DT_NONE;
	if (len < 10 || memcmp(buf, "\x93NUMPY", 6) != 0)
		return fail(err, errlen, "not an .npy file (bad magic)");
	major = buf[6];
	if (major == 1) {
		hlen = (size_t)buf[8] | (size_t)buf[9] << 8;
		off = 10;
	} else if (major == 2 || major == 3) {
		if (len < 12)
			return fail(err, errlen, "truncated header");
		hlen = le32(buf + 8);
		off = 12;
	} else {
		return fail(err, errlen, "unsupported .npy version %d.%d",
		    major, buf[7]);
	}
	if (hlen > len - off)
		return fail(err, errlen, "truncated header (%zu bytes "
		    "announced, %zu present)", hlen, len - off);
	h.p = (const char *)buf + off;
	h.end = h.p + hlen;
	if (!eat(&h, '{'))
		return fail(err, errlen, "header is not a dict");
	while (!eat(&h, '}')) {
		if (pystr(&h, key, sizeof key) != 0 || !eat(&h, ':'))
			return fail(err, errlen, "malformed header dict");
		if (!strcmp(key, "descr")) {
			if (pystr(&h, descr, sizeof descr) != 0)
				return fail(err, errlen, "'descr' is not a "
				    "simple type string (structured arrays "
				    "are not supported)");
			out->dt = dtype_from_npy(descr);
			if (out->dt == DT_NONE)
				return fail(err, errlen, "unsupported dtype "
				    "'%s'", descr);
			have |= 1;
		} else if (!strcmp(key, "fortran_order")) {
			skipws(&h);
			if ((size_t)(h.end - h.p) >= 4 &&
			    !memcmp(h.p, "True", 4)) {
				fortran = 1;
				h.p += 4;
			} else if ((size_t)(h.end - h.p) >= 5 &&
			    !memcmp(h.p, "False", 5)) {
				h.p += 5;
			} else {
				return fail(err, errlen, "bad fortran_order");
			}
			have |= 2;
		} else if (!strcmp(key, "shape")) {
			if (!eat(&h, '('))
				return fail(err, errlen, "shape is not a "
				    "tuple");
			while (!eat(&h, ')')) {
				uint64_t v = 0;
				int digits = 0;

				skipws(&h);
				while (h.p < h.end && isdigit((unsigned char)
				    *h.p)) {
					if (v > (UINT64_C(1) << 48))
						return fail(err, errlen,
						    "dimension too large");
					v = v * 10 + (uint64_t)(*h.p++ - '0');
					digits++;
				}
				if (h.p < h.end && *h.p == 'L')
					h.p++;
				if (!digits)
					return fail(err, errlen, "bad shape");
				if (out->rank >= NPY_MAXDIM)
					return fail(err, errlen, "rank above "
					    "%d", NPY_MAXDIM);
				out->shape[out->rank++] = (int64_t)v;
				if (v && numel > UINT64_MAX / v / 8)
					return fail(err, errlen, "shape too "
					    "large");
				numel *= v;
				if (!eat(&h, ',')) {
					if (!eat(&h, ')'))
						return fail(err, errlen,
						    "bad shape");
					break;
				}
			}
			have |= 4;
		} else {
			return fail(err, errlen, "unknown header key '%s'",
			    key);
		}
		if (!eat(&h, ',')) {
			if (!eat(&h, '}'))
				return fail(err, errlen, "malformed header "
				    "dict");
			break;
		}
	}
	if (have != 7)
		return fail(err, errlen, "header lacks %s", !(have & 1) ?
		    "'descr'" : !(have & 2) ? "'fortran_order'" : "'shape'");
	nbytes = dtype_bytes(out->dt, numel);
	off += hlen;
	if (len - off != nbytes)
		return fail(err, errlen, "%s%s data needs %llu bytes, the file "
		    "has %zu", len - off < nbytes ? "truncated: " : "",
		    dtype_name(out->dt), (unsigned long long)nbytes,
		    len - off);
	out->nbytes = (size_t)nbytes;
	out->data = xmalloc(out->nbytes + 1);
	if (!fortran || out->rank < 2) {
		memcpy(out->data, buf + off, out->nbytes);
	} else {
		/* Fortran order: the first index varies fastest. */
		size_t es = (size_t)dtype_bits(out->dt) / 8;
		int64_t idx[NPY_MAXDIM] = { 0 };

		for (uint64_t i = 0; i < numel; i++) {
			uint64_t c = 0, f = 0, cs = 1, fs = 1;

			for (int d = out->rank - 1; d >= 0; d--) {
				c += (uint64_t)idx[d] * cs;
				cs *= (uint64_t)out->shape[d];
			}
			for (int d = 0; d < out->rank; d++) {
				f += (uint64_t)idx[d] * fs;
				fs *= (uint64_t)out->shape[d];
			}
			memcpy(out->data + c * es, buf + off + f * es, es);
			for (int d = out->rank - 1; d >= 0; d--) {
				if (++idx[d] < out->shape[d])
					break;
				idx[d] = 0;
			}
		}
	}
	return 0;
}

int
npy_load(const char *path, struct npy *out)
{
	size_t len;
	char *buf = readfile(path, &len), err[256];
	int rc;

	memset(out, 0, sizeof *out);
	if (!buf) {
		error("%s: %s", path, strerror(errno));
		return -1;
	}
	rc = npy_parse((unsigned char *)buf, len, out, err, sizeof err);
	if (rc != 0)
		error("%s: %s", path, err);
	free(buf);
	return rc;
}

int
npy_write(FILE *fp, enum dtype dt, int rank, const int64_t *shape,
    const void *data, size_t nbytes)
{
	char dict[1024];
	int n = 0;
	size_t total, pad;
	unsigned char pre[12];
	int v2;

	if (!dtype_npy(dt)) {
		errno = EINVAL;
		return -1;
	}
	n += snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': "
	    "False, 'shape': (", dtype_npy(dt));
	for (int i = 0; i < rank && n < 900; i++)
		n += snprintf(dict + n, sizeof dict - (size_t)n, "%lld,%s",
		    (long long)shape[i], i < rank - 1 ? " " : "");
	if (rank > 1)
		n--;	/* NumPy writes (2, 3) but (4,) */
	n += snprintf(dict + n, sizeof dict - (size_t)n, "), }");
	v2 = 10 + n + 1 > 65535;
	total = (v2 ? 12 : 10) + (size_t)n + 1;
	pad = (64 - total % 64) % 64;
	memcpy(pre, "\x93NUMPY", 6);
	pre[6] = v2 ? 2 : 1;
	pre[7] = 0;
	if (v2)
		put_le32(pre + 8, (uint32_t)((size_t)n + pad + 1));
	else {
		pre[8] = (unsigned char)(((size_t)n + pad + 1) & 0xff);
		pre[9] = (unsigned char)(((size_t)n + pad + 1) >> 8);
	}
	if (fwrite(pre, 1, v2 ? 12 : 10, fp) != (v2 ? 12u : 10u) ||
	    fwrite(dict, 1, (size_t)n, fp) != (size_t)n)
		return -1;
	for (size_t i = 0; i < pad; i++)
		if (fputc(' ', fp) == EOF)
			return -1;
	if (fputc('\n', fp) == EOF)
		return -1;
	if (nbytes && fwrite(data, 1, nbytes, fp) != nbytes)
		return -1;
	return 0;
}

int
npy_save(const char *path, enum dtype dt, int rank, const int64_t *shape,
    const void *data, size_t nbytes)
{
	struct outfile o;

	if (!dtype_npy(dt)) {
		error("%s: %s data cannot be written as .npy", path,
		    dtype_name(dt));
		return -1;
	}
	if (outfile_open(&o, path) != 0)
		return -1;
	if (npy_write(o.fp, dt, rank, shape, data, nbytes) != 0) {
		error("%s: write error: %s", path, strerror(errno));
		outfile_abort(&o);
		return -1;
	}
	return outfile_commit(&o);
}

void
npy_free(struct npy *a)
{
	free(a->data);
	a->data = NULL;
	a->nbytes = 0;
}
