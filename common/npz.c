/*
 * npz: NumPy .npz archives, read through libzip: a zip file of .npy
 * members, stored (numpy.savez) or deflated (savez_compressed), with the
 * zip64 extra fields NumPy always writes.  A corrupt archive, a member
 * whose sizes or CRC do not hold, or a bad .npy inside is an error
 * naming the archive and the member.
 */
#include "npz.h"
#include "escape.h"

#include <stdlib.h>
#include <string.h>
#include <zip.h>

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

/* The member's bytes, read to the end so that libzip checks the CRC. */
static unsigned char *
readmember(zip_t *z, zip_uint64_t i, const zip_stat_t *st, const char *path,
    const char *name)
{
	zip_file_t *f = zip_fopen_index(z, i, 0);
	unsigned char *buf, extra;
	zip_int64_t r, more = 0;

	if (!f) {
		error("%s: %s: %s", path, escape_tty_name(name),
		    zip_error_code_zip(zip_get_error(z)) == ZIP_ER_NOPASSWD ?
		    "encrypted members are not supported" : zip_strerror(z));
		return NULL;
	}
	buf = xmalloc((size_t)st->size + 1);
	r = st->size ? zip_fread(f, buf, st->size) : 0;
	if (r == (zip_int64_t)st->size)
		more = zip_fread(f, &extra, 1);
	if (r != (zip_int64_t)st->size || more != 0) {
		error("%s: %s: %s", path, escape_tty_name(name),
		    r < 0 || more < 0 ?
		    zip_file_strerror(f) : more ? "longer than its size" :
		    "shorter than its size");
		zip_fclose(f);
		free(buf);
		return NULL;
	}
	zip_fclose(f);
	return buf;
}

int
npz_load(const char *path, struct npz_member **members, size_t *n)
{
	int zerr = 0;
	zip_t *z = zip_open(path, ZIP_RDONLY | ZIP_CHECKCONS, &zerr);
	zip_int64_t count;
	struct npz_member *m;
	size_t k = 0;

	*members = NULL;
	*n = 0;
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
	if ((count = zip_get_num_entries(z, 0)) < 0) {
		error("%s: %s", path, zip_strerror(z));
		zip_discard(z);
		return -1;
	}
	m = xcalloc((size_t)count + 1, sizeof *m);
	for (zip_uint64_t i = 0; i < (zip_uint64_t)count; i++) {
		zip_stat_t st;
		unsigned char *buf;
		const char *name = zip_get_name(z, i, 0), *why;
		size_t nl = name ? strlen(name) : 0;
		char err[512];

		if (!name || zip_stat_index(z, i, 0, &st) != 0) {
			error("%s: member %llu: %s", path,
			    (unsigned long long)i, zip_strerror(z));
			goto fail;
		}
		if (!endsnpy(name, nl) || nl == 4) {
			error("%s: %s: not an .npy member", path,
			    escape_tty_name(name));
			goto fail;
		}
		for (size_t j = 0; j < k; j++)
			if (strlen(m[j].name) == nl - 4 &&
			    !strncmp(m[j].name, name, nl - 4)) {
				error("%s: %s: appears twice", path,
				    escape_tty_name(name));
				goto fail;
			}
		if ((why = badsizes(&st)) != NULL) {
			error("%s: %s: %s", path, escape_tty_name(name), why);
			goto fail;
		}
		if (!(buf = readmember(z, i, &st, path, name)))
			goto fail;
		if (npy_parse(buf, (size_t)st.size, &m[k].arr, err,
		    sizeof err) != 0) {
			error("%s: %s: %s", path, escape_tty_name(name), err);
			free(buf);
			goto fail;
		}
		free(buf);
		m[k++].name = xstrndup(name, nl - 4);
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
