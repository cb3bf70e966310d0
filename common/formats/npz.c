/*
 * npz: NumPy .npz archives, read through libzip: a zip file of .npy
 * members, stored (numpy.savez) or deflated (savez_compressed), with the
 * zip64 extra fields NumPy always writes.  A corrupt archive, a member
 * whose sizes or CRC do not hold, or a bad .npy inside is an error
 * naming the archive and the member.  Nothing is inflated before every
 * member's declared size has been checked, against its compressed size
 * and, all together, against a limit; no member inflates past its
 * declared size, and its .npy header must account for that size.
 */
#include "npz.h"
#include "escape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zip.h>

#include "infile.h"
#include "strtab.h"
#include "util.h"

/* Deflate expands at most about 1032:1; allow slack for tiny members. */
enum { DEFLATE_RATIO = 1032, DEFLATE_SLACK = 1024 };

static int
endsnpy(const char *s, size_t n)
{
	return n >= 4 && strcmp(s + n - 4, ".npy") == 0;
}

/* Sizes the central directory claims that cannot be true: refuse them
 * before allocating. */
static const char *
badsizes(const zip_stat_t *st)
{
	zip_uint64_t need = ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE |
	    ZIP_STAT_COMP_METHOD;

	if ((st->valid & need) != need)
		return "sizes unknown";
	if (st->comp_method != ZIP_CM_STORE &&
	    st->comp_method != ZIP_CM_DEFLATE)
		return "compression method not supported (NumPy stores or "
		    "deflates)";
	if (st->size >= SIZE_MAX / 2)
		return "member too large";
	if (st->comp_method == ZIP_CM_STORE && st->size != st->comp_size)
		return "stored member's sizes disagree";
	if (st->comp_method == ZIP_CM_DEFLATE &&
	    st->size / DEFLATE_RATIO > st->comp_size + DEFLATE_SLACK)
		return "size does not fit its compressed size";
	return NULL;
}

/* A member as an .npy source: exactly the bytes asked for, each read
 * bounded by the member's declared size. */
struct zipsrc {
	struct npy_src s;
	zip_file_t *f;
};

static int
zipread(struct npy_src *s, void *buf, size_t n, char *err, size_t errlen)
{
	struct zipsrc *z = (struct zipsrc *)s;
	zip_int64_t r = n ? zip_fread(z->f, buf, n) : 0;

	if (r != (zip_int64_t)n) {
		snprintf(err, errlen, "%s", r < 0 ? zip_file_strerror(z->f) :
		    "shorter than its size");
		return -1;
	}
	return 0;
}

/*
 * The member as an array: its .npy header read first and checked
 * against the member's size, then the data; then one more byte asked
 * for, so that libzip reaches the end and checks the CRC.
 */
static int
readmember(zip_t *z, zip_uint64_t i, const zip_stat_t *st, const char *path,
    const char *name, struct npy *a)
{
	struct zipsrc src = { { zipread, st->size }, zip_fopen_index(z, i,
	    0) };
	unsigned char extra;
	zip_int64_t more;
	char err[512];

	if (!src.f) {
		error("%s: %s: %s", path, escape_tty_name(name),
		    zip_error_code_zip(zip_get_error(z)) == ZIP_ER_NOPASSWD ?
		    "encrypted members are not supported" : zip_strerror(z));
		return -1;
	}
	if (npy_read(&src.s, a, err, sizeof err) != 0) {
		error("%s: %s: %s", path, escape_tty_name(name), err);
		zip_fclose(src.f);
		return -1;
	}
	if ((more = zip_fread(src.f, &extra, 1)) != 0) {
		error("%s: %s: %s", path, escape_tty_name(name),
		    more < 0 ? zip_file_strerror(src.f) :
		    "longer than its size");
		zip_fclose(src.f);
		npy_free(a);
		return -1;
	}
	zip_fclose(src.f);
	return 0;
}

/*
 * Every member's name and sizes, before anything is inflated: .npy
 * members only, each name once, sizes that can be true, and all of
 * them together at most max bytes.
 */
static int
checkmembers(zip_t *z, zip_uint64_t count, const char *path, uint64_t max)
{
	struct strtab seen = { 0 };
	uint64_t total = 0;
	int rc = -1;

	for (zip_uint64_t i = 0; i < count; i++) {
		zip_stat_t st;
		const char *name = zip_get_name(z, i, 0), *why;
		size_t nl = name ? strlen(name) : 0;

		if (!name || zip_stat_index(z, i, 0, &st) != 0) {
			error("%s: member %llu: %s", path,
			    (unsigned long long)i, zip_strerror(z));
			goto out;
		}
		if (!endsnpy(name, nl) || nl == 4) {
			error("%s: %s: not an .npy member", path,
			    escape_tty_name(name));
			goto out;
		}
		if (strtab_put(&seen, name, (void *)name)) {
			error("%s: %s: appears twice", path,
			    escape_tty_name(name));
			goto out;
		}
		if ((why = badsizes(&st)) != NULL) {
			error("%s: %s: %s", path, escape_tty_name(name), why);
			goto out;
		}
		if (st.size > max - total) {
			error("%s: %s: the members inflate to more than %llu "
			    "bytes, the limit", path, escape_tty_name(name),
			    (unsigned long long)max);
			goto out;
		}
		total += st.size;
	}
	rc = 0;
out:
	strtab_free(&seen);
	return rc;
}

int
npz_load(const char *path, struct npz_member **members, size_t *n)
{
	return npz_read(path, NPZ_MAXBYTES, members, n);
}

int
npz_read(const char *path, uint64_t max, struct npz_member **members,
    size_t *n)
{
	int zerr = 0, fd;
	zip_t *z;
	zip_int64_t count;
	struct npz_member *m;
	size_t k = 0;
	uint64_t size;
	const char *why;

	*members = NULL;
	*n = 0;
	if ((fd = infile_open(path, &size, &why)) < 0) {
		error("%s: %s", path, why);
		return -1;
	}
	/* libzip owns fd from here on, unless it fails */
	if (!(z = zip_fdopen(fd, ZIP_CHECKCONS, &zerr)))
		close(fd);
	if (!z) {
		zip_error_t ze;

		zip_error_init_with_code(&ze, zerr);
		error("%s: %s", path, zerr == ZIP_ER_NOZIP ? "not a zip "
		    "archive, or one cut short" : zerr == ZIP_ER_EXISTS ?
		    "two members have the same name" :
		    zip_error_strerror(&ze));
		zip_error_fini(&ze);
		return -1;
	}
	if ((count = zip_get_num_entries(z, 0)) < 0 ||
	    checkmembers(z, (zip_uint64_t)count, path, max) != 0) {
		if (count < 0)
			error("%s: %s", path, zip_strerror(z));
		zip_discard(z);
		return -1;
	}
	m = xcalloc((size_t)count + 1, sizeof *m);
	for (zip_uint64_t i = 0; i < (zip_uint64_t)count; i++) {
		zip_stat_t st;
		const char *name = zip_get_name(z, i, 0);

		if (!name || zip_stat_index(z, i, 0, &st) != 0) {
			error("%s: member %llu: %s", path,
			    (unsigned long long)i, zip_strerror(z));
			goto fail;
		}
		if (readmember(z, i, &st, path, name, &m[k].arr) != 0)
			goto fail;
		m[k++].name = xstrndup(name, strlen(name) - 4);
	}
	zip_discard(z);
	*members = m;
	*n = k;
	return 0;
fail:
	npz_free(m, k);
	zip_discard(z);
	return -1;
}

void
npz_free(struct npz_member *members, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(members[i].name);
		npy_free(&members[i].arr);
	}
	free(members);
}
