/*
 * npy: NumPy .npy images.  Reading accepts format versions 1.0, 2.0 and
 * 3.0 and parses the header dict ('descr', 'fortran_order', 'shape') as
 * the small, strict subset of Python literal syntax NumPy writes; any
 * other header, a type we do not carry, or data whose size does not
 * match the shape is refused with a reason, never a crash.  Fortran-order
 * arrays come back in C order.  Writing produces the bytes numpy.save
 * does: version 1.0 (2.0 once the header outgrows it), the header padded
 * with spaces so the data starts at a multiple of 64.
 */
#include "npy.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "infile.h"
#include "util.h"

enum {
	NPY_ALIGN = 64,		/* data offset alignment NumPy uses */
	NPY_GROWTH = 21,	/* NumPy leaves room for dimension 0 to grow */
	NPY_V1MAX = 65535	/* largest header of a version 1.0 file */
};

static int
fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

/* The header: a Python dict literal {'key': value, ...}. */
struct hdr {
	const char *p, *end;
	char *err;
	size_t errlen;
	int f64;	/* descr '<f8', read as float32 */
};

static int allow64, allowbool;

void
npy_allow_f64(int on)
{
	allow64 = on;
}

void
npy_allow_bool(int on)
{
	allowbool = on;
}

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

/* A whole Python word (True, False): not the prefix of a longer name. */
static int
word(struct hdr *h, const char *w)
{
	size_t n = strlen(w);

	skipws(h);
	if ((size_t)(h->end - h->p) < n || memcmp(h->p, w, n) != 0)
		return 0;
	if (h->p + n < h->end && (isalnum((unsigned char)h->p[n]) ||
	    h->p[n] == '_'))
		return 0;
	h->p += n;
	return 1;
}

/* 'text' or "text", printable ASCII without escapes: all NumPy writes. */
static int
pystr(struct hdr *h, const char *what, char *buf, size_t len)
{
	char q;
	size_t n = 0;

	skipws(h);
	if (h->p >= h->end || (*h->p != '\'' && *h->p != '"'))
		return fail(h->err, h->errlen, "header: expected a string "
		    "for %s", what);
	q = *h->p++;
	for (; h->p < h->end && *h->p != q; h->p++) {
		if (*h->p == '\\' || *h->p < 0x20 || *h->p > 0x7e)
			return fail(h->err, h->errlen, "header: unsupported "
			    "character in %s", what);
		if (n + 1 >= len)
			return fail(h->err, h->errlen, "header: %s too long",
			    what);
		buf[n++] = *h->p;
	}
	if (h->p >= h->end)
		return fail(h->err, h->errlen, "header: unterminated string");
	h->p++;
	buf[n] = '\0';
	return 0;
}

/* A non-negative Python int (Python 2's 'L' suffix allowed). */
static int
pyint(struct hdr *h, int64_t *v)
{
	const char *s;
	uint64_t x = 0;

	skipws(h);
	s = h->p;
	while (h->p < h->end && *h->p >= '0' && *h->p <= '9') {
		if (x > ((uint64_t)INT64_MAX - 9) / 10)
			return fail(h->err, h->errlen, "header: dimension "
			    "too large");
		x = x * 10 + (uint64_t)(*h->p++ - '0');
	}
	if (h->p == s)
		return fail(h->err, h->errlen, "header: 'shape' must be a "
		    "tuple of non-negative integers");
	if (*s == '0' && h->p - s > 1)
		return fail(h->err, h->errlen, "header: dimension with a "
		    "leading zero");
	if (h->p < h->end && *h->p == 'L')
		h->p++;
	*v = (int64_t)x;
	return 0;
}

/* (), (n,) or (n, m, ...) with an optional trailing comma. */
static int
pyshape(struct hdr *h, struct npy *a)
{
	if (!eat(h, '('))
		return fail(h->err, h->errlen, "header: 'shape' is not a "
		    "tuple");
	if (eat(h, ')'))
		return 0;
	for (;;) {
		if (a->rank == NPY_MAXDIM)
			return fail(h->err, h->errlen, "header: more than %d "
			    "dimensions", NPY_MAXDIM);
		if (pyint(h, &a->shape[a->rank++]) != 0)
			return -1;
		if (eat(h, ')')) {
			if (a->rank == 1)
				return fail(h->err, h->errlen, "header: "
				    "'shape' (n) is not a tuple; (n,) is");
			return 0;
		}
		if (!eat(h, ','))
			return fail(h->err, h->errlen, "header: expected ',' "
			    "or ')' in 'shape'");
		if (eat(h, ')'))
			return 0;
	}
}

static int
bigendian_host(void)
{
	const uint16_t one = 1;

	return *(const unsigned char *)&one == 0;
}

/* '<f4', '|u1' ... to a type; NumPy's other kinds get their own reason. */
static int
pydescr(struct hdr *h, enum dtype *dt)
{
	char d[32], order = '=';
	const char *base = d;

	skipws(h);
	if (h->p < h->end && *h->p == '[')
		return fail(h->err, h->errlen, "structured arrays are not "
		    "supported");
	if (pystr(h, "'descr'", d, sizeof d) != 0)
		return -1;
	if (strchr("<>|=", d[0]) && d[0]) {
		order = d[0];
		base = d + 1;
	}
	if (base[0] == 'O')
		return fail(h->err, h->errlen, "object arrays are not "
		    "supported");
	*dt = isalpha((unsigned char)base[0]) ? dtype_from_npy(base) :
	    DT_NONE;
	if (allow64 && !strcmp(base, "f8")) {
		*dt = DT_FLOAT32;	/* cast as it is read */
		h->f64 = 1;
	}
	if (*dt == DT_NONE && allowbool && !strcmp(base, "b1"))
		*dt = DT_UINT8;	/* NumPy's bool: one byte, 0 or 1 */
	if (*dt == DT_NONE)
		return fail(h->err, h->errlen, "unsupported dtype '%s' (nnl "
		    "reads float32, float16, float64, int8, uint8, int16, "
		    "uint16, int32, uint32, int64, uint64)", d);
	if ((h->f64 || dtype_bits(*dt) > 8) && (order == '>' ||
	    ((order == '=' || order == '|') && bigendian_host())))
		return fail(h->err, h->errlen, "big-endian data ('%s') is not "
		    "supported", d);
	return 0;
}

/* The dict: exactly the three keys, once each, then only padding. */
static int
pydict(struct hdr *h, struct npy *a, int *fortran)
{
	char key[32];
	int seen = 0, bit, rc;

	if (!eat(h, '{'))
		return fail(h->err, h->errlen, "header is not a dict");
	while (!eat(h, '}')) {
		if (pystr(h, "a key", key, sizeof key) != 0)
			return -1;
		if (!eat(h, ':'))
			return fail(h->err, h->errlen, "header: expected ':' "
			    "after '%s'", key);
		bit = !strcmp(key, "descr") ? 1 : !strcmp(key,
		    "fortran_order") ? 2 : !strcmp(key, "shape") ? 4 : 0;
		if (!bit)
			return fail(h->err, h->errlen, "header: unknown key "
			    "'%s'", key);
		if (seen & bit)
			return fail(h->err, h->errlen, "header: '%s' appears "
			    "twice", key);
		seen |= bit;
		if (bit == 1)
			rc = pydescr(h, &a->dt);
		else if (bit == 4)
			rc = pyshape(h, a);
		else if (word(h, "True"))
			rc = 0, *fortran = 1;
		else if (word(h, "False"))
			rc = 0, *fortran = 0;
		else
			rc = fail(h->err, h->errlen, "header: "
			    "'fortran_order' must be True or False");
		if (rc != 0)
			return -1;
		if (!eat(h, ',')) {
			if (!eat(h, '}'))
				return fail(h->err, h->errlen, "header: "
				    "expected ',' or '}' in the dict");
			break;
		}
	}
	skipws(h);
	if (h->p != h->end)
		return fail(h->err, h->errlen, "header: unexpected text "
		    "after the dict");
	if (seen != 7)
		return fail(h->err, h->errlen, "header lacks %s",
		    !(seen & 1) ? "'descr'" : !(seen & 2) ? "'fortran_order'" :
		    "'shape'");
	return 0;
}

/* "float32[2, 3]" into buf, for messages. */
static const char *
descstr(const struct npy *a, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "%s[", dtype_name(a->dt));

	for (int i = 0; i < a->rank && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%lld", i ? ", " :
		    "", (long long)a->shape[i]);
	if (n < len)
		snprintf(buf + n, len - n, "]");
	return buf;
}

/* Fortran order (first index fastest) to C order (last fastest). */
static void
fromfortran(unsigned char *dst, const unsigned char *src, const struct npy *a,
    size_t es, uint64_t numel)
{
	uint64_t stride[NPY_MAXDIM], idx[NPY_MAXDIM] = { 0 }, c = 0;

	stride[a->rank - 1] = 1;
	for (int d = a->rank - 2; d >= 0; d--)
		stride[d] = stride[d + 1] * (uint64_t)a->shape[d + 1];
	for (uint64_t i = 0; i < numel; i++) {
		memcpy(dst + c * es, src + i * es, es);
		for (int d = 0; d < a->rank; d++) {
			c += stride[d];
			if (++idx[d] < (uint64_t)a->shape[d])
				break;
			c -= stride[d] * (uint64_t)a->shape[d];
			idx[d] = 0;
		}
	}
}

/*
 * float64 values to float32 in place (each float's bytes lie below the
 * double's it comes from): rounded to the nearest (ties to even); one
 * beyond float32's range, from the midpoint of FLT_MAX and 2^128 up,
 * becomes an infinity of its sign (as IEEE 754 and Rust's "as f32"
 * round it, without C's undefined conversion), counted in ninf.
 */
static void
tofloat(struct npy *a, uint64_t numel)
{
	for (uint64_t i = 0; i < numel; i++) {
		double v;
		float f;

		memcpy(&v, a->data + i * sizeof v, sizeof v);
		if (isfinite(v) && fabs(v) >= 0x1.ffffffp127) {
			f = v < 0 ? -INFINITY : INFINITY;
			a->ninf++;
		} else {
			f = (float)v;
		}
		memcpy(a->data + i * sizeof f, &f, sizeof f);
	}
	a->nbytes = (size_t)numel * sizeof(float);
	a->from64 = 1;
}

/*
 * The image from src, in the order of its bytes: the preamble, the
 * header (its length checked against the real size first), then the
 * data, allocated only once the shape's byte count equals what the
 * source holds after the header.
 */
int
npy_read(struct npy_src *src, struct npy *out, char *err, size_t errlen)
{
	struct hdr h = { NULL, NULL, err, errlen, 0 };
	unsigned char pre[12], *hb = NULL, *raw = NULL;
	size_t hlen, off, n0;
	uint64_t numel = 1, nbytes, len = src->size, avail;
	int fortran = 0;
	char ds[768];

	memset(out, 0, sizeof *out);
	out->dt = DT_NONE;
	n0 = len < 8 ? (size_t)len : 8;
	if (src->read(src, pre, n0, err, errlen) != 0)
		goto bad;
	if (n0 < 6 || memcmp(pre, "\x93NUMPY", 6) != 0)
		return fail(err, errlen, "not an .npy file (bad magic)");
	if (len < 8)
		return fail(err, errlen, "truncated header");
	if (pre[6] < 1 || pre[6] > 3 || pre[7] != 0)
		return fail(err, errlen, "unsupported .npy format version "
		    "%d.%d", pre[6], pre[7]);
	off = pre[6] == 1 ? 10 : 12;
	if (len < off)
		return fail(err, errlen, "truncated header");
	if (src->read(src, pre + 8, off - 8, err, errlen) != 0)
		goto bad;
	hlen = pre[6] == 1 ? ((size_t)pre[8] | (size_t)pre[9] << 8) :
	    (size_t)le32(pre + 8);
	if (hlen > len - off)
		return fail(err, errlen, "truncated header (%zu bytes "
		    "announced, %llu present)", hlen,
		    (unsigned long long)(len - off));
	hb = xmalloc(hlen + 1);
	if (src->read(src, hb, hlen, err, errlen) != 0)
		goto bad;
	h.p = (const char *)hb;
	h.end = h.p + hlen;
	if (pydict(&h, out, &fortran) != 0)
		goto bad;
	for (int i = 0; i < out->rank; i++) {
		uint64_t d = (uint64_t)out->shape[i];

		if (d && numel > UINT64_MAX / 8 / d) {
			fail(err, errlen, "shape %s is too large",
			    descstr(out, ds, sizeof ds));
			goto bad;
		}
		numel *= d;
	}
	nbytes = h.f64 ? numel * 8 : dtype_bytes(out->dt, numel);
	avail = len - off - hlen;
	if (avail != nbytes || nbytes >= SIZE_MAX) {
		fail(err, errlen, avail < nbytes ? "truncated data: %s needs "
		    "%llu bytes, the file has %llu" : "%s needs %llu bytes, "
		    "the file has %llu (trailing bytes)", descstr(out, ds,
		    sizeof ds), (unsigned long long)nbytes,
		    (unsigned long long)avail);
		goto bad;
	}
	out->nbytes = (size_t)nbytes;
	out->data = xmalloc(out->nbytes + 1);
	if (fortran && out->rank > 1) {
		raw = xmalloc(out->nbytes + 1);
		if (src->read(src, raw, out->nbytes, err, errlen) != 0)
			goto bad;
		fromfortran(out->data, raw, out, h.f64 ? 8 :
		    (size_t)dtype_bits(out->dt) / 8, numel);
	} else if (src->read(src, out->data, out->nbytes, err, errlen) != 0) {
		goto bad;
	}
	if (h.f64)
		tofloat(out, numel);
	free(hb);
	free(raw);
	return 0;
bad:
	free(hb);
	free(raw);
	free(out->data);
	memset(out, 0, sizeof *out);
	out->dt = DT_NONE;
	return -1;
}

/* Sources: a buffer, a file descriptor. */
struct memsrc {
	struct npy_src s;
	const unsigned char *p;
};

static int
memread(struct npy_src *s, void *buf, size_t n, char *err, size_t errlen)
{
	struct memsrc *m = (struct memsrc *)s;

	(void)err;
	(void)errlen;
	if (n)
		memcpy(buf, m->p, n);
	m->p += n;
	return 0;
}

int
npy_parse(const unsigned char *buf, size_t len, struct npy *out, char *err,
    size_t errlen)
{
	struct memsrc m = { { memread, len }, buf };

	return npy_read(&m.s, out, err, errlen);
}

struct fdsrc {
	struct npy_src s;
	int fd;
	uint64_t off;
};

static int
fdread(struct npy_src *s, void *buf, size_t n, char *err, size_t errlen)
{
	struct fdsrc *f = (struct fdsrc *)s;
	const char *why;

	if (infile_pread(f->fd, buf, n, f->off, &why) != 0)
		return fail(err, errlen, "%s", why);
	f->off += n;
	return 0;
}

int
npy_load(const char *path, struct npy *out)
{
	struct fdsrc f = { { fdread, 0 }, -1, 0 };
	const char *why;
	char err[512];
	int rc;

	memset(out, 0, sizeof *out);
	if ((f.fd = infile_open(path, &f.s.size, &why)) < 0) {
		error("%s: %s", path, why);
		return -1;
	}
	rc = npy_read(&f.s, out, err, sizeof err);
	if (rc != 0)
		error("%s: %s", path, err);
	close(f.fd);
	return rc;
}

/*
 * NumPy's header dict, byte for byte: keys sorted, the shape as Python's
 * repr of a tuple, then spaces so the first dimension can grow in place.
 */
/* The descriptor dt is written with: bfloat16, which NumPy lacks, as its
 * bits ('<u2', as ONNX's NumPy helpers hold it). */
static const char *
descr(enum dtype dt)
{
	return dt == DT_BFLOAT16 ? "<u2" : dtype_npy(dt);
}

static char *
header_dict(enum dtype dt, int rank, const int64_t *shape, size_t *len)
{
	char *s = xasprintf("{'descr': '%s', 'fortran_order': False, "
	    "'shape': (", descr(dt)), *t;
	int grow = 0;

	for (int i = 0; i < rank; i++) {
		t = xasprintf("%s%lld%s", s, (long long)shape[i],
		    rank == 1 ? "," : i < rank - 1 ? ", " : "");
		free(s);
		s = t;
	}
	if (rank > 0)
		grow = NPY_GROWTH - snprintf(NULL, 0, "%lld",
		    (long long)shape[0]);
	t = xasprintf("%s), }%*s", s, grow > 0 ? grow : 0, "");
	free(s);
	*len = strlen(t);
	return t;
}

int
npy_write(FILE *fp, enum dtype dt, int rank, const int64_t *shape,
    const void *data, size_t nbytes)
{
	uint64_t numel = 1;
	size_t n, pre = 10, pad;
	unsigned char p[12];
	char *dict;
	int rc = 0;

	if (!descr(dt) || rank < 0) {
		errno = EINVAL;
		return -1;
	}
	for (int i = 0; i < rank; i++) {
		uint64_t d = (uint64_t)shape[i];

		if (shape[i] < 0 || (d && numel > UINT64_MAX / 8 / d)) {
			errno = EINVAL;
			return -1;
		}
		numel *= d;
	}
	if (dtype_bytes(dt, numel) != nbytes) {
		errno = EINVAL;
		return -1;
	}
	dict = header_dict(dt, rank, shape, &n);
	/* NumPy pads with 1 to 64 spaces, then '\n'; never with none. */
	pad = NPY_ALIGN - (pre + n + 1) % NPY_ALIGN;
	if (n + 1 + pad > NPY_V1MAX) {
		pre = 12;
		pad = NPY_ALIGN - (pre + n + 1) % NPY_ALIGN;
	}
	memcpy(p, "\x93NUMPY", 6);
	p[6] = pre == 10 ? 1 : 2;
	p[7] = 0;
	if (pre == 10) {
		p[8] = (unsigned char)((n + 1 + pad) & 0xff);
		p[9] = (unsigned char)((n + 1 + pad) >> 8);
	} else {
		put_le32(p + 8, (uint32_t)(n + 1 + pad));
	}
	if (fwrite(p, 1, pre, fp) != pre || fwrite(dict, 1, n, fp) != n ||
	    fprintf(fp, "%*s\n", (int)pad, "") < 0 ||
	    (nbytes && fwrite(data, 1, nbytes, fp) != nbytes))
		rc = -1;
	free(dict);
	return rc;
}

int
npy_save(const char *path, enum dtype dt, int rank, const int64_t *shape,
    const void *data, size_t nbytes)
{
	struct outfile o;

	if (!descr(dt)) {
		error("%s: %s has no .npy type (NumPy has no 4-bit integers)",
		    path, dtype_name(dt));
		return -1;
	}
	if (outfile_open(&o, path) != 0)
		return -1;
	if (npy_write(o.fp, dt, rank, shape, data, nbytes) != 0) {
		error("%s: %s", path, errno == EINVAL ? "byte count does not "
		    "match the shape" : strerror(errno));
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
