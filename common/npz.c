/*
 * npz: NumPy .npz archives, through libzip (stored and deflated
 * members, zip64 included, as numpy.savez and savez_compressed write).
 */
#include "npz.h"

#include <stdlib.h>
#include <string.h>
#include <zip.h>

#include "util.h"

enum { NPZ_MAXMEMBER = 1 << 30 };	/* bytes: refuse larger members */

int
npz_load(const char *path, struct npz_member **members, size_t *n)
{
	int zerr = 0;
	zip_t *z = zip_open(path, ZIP_RDONLY | ZIP_CHECKCONS, &zerr);
	zip_int64_t count;
	struct npz_member *m = NULL;
	size_t k = 0;

	*members = NULL;
	*n = 0;
	if (!z) {
		zip_error_t ze;

		zip_error_init_with_code(&ze, zerr);
		error("%s: %s", path, zip_error_strerror(&ze));
		zip_error_fini(&ze);
		return -1;
	}
	count = zip_get_num_entries(z, 0);
	m = xcalloc((size_t)count + 1, sizeof *m);
	for (zip_int64_t i = 0; i < count; i++) {
		zip_stat_t st;
		zip_file_t *f;
		unsigned char *buf;
		const char *name = zip_get_name(z, (zip_uint64_t)i, 0);
		size_t nl = name ? strlen(name) : 0;
		char err[256];

		if (!name || zip_stat_index(z, (zip_uint64_t)i, 0, &st) != 0) {
			error("%s: member %lld: %s", path, (long long)i,
			    zip_strerror(z));
			goto fail;
		}
		if (nl < 4 || strcmp(name + nl - 4, ".npy") != 0) {
			error("%s: %s: not an .npy member", path, name);
			goto fail;
		}
		if (!(st.valid & ZIP_STAT_SIZE) || st.size > NPZ_MAXMEMBER) {
			error("%s: %s: member too large", path, name);
			goto fail;
		}
		f = zip_fopen_index(z, (zip_uint64_t)i, 0);
		if (!f) {
			error("%s: %s: %s", path, name, zip_strerror(z));
			goto fail;
		}
		buf = xmalloc((size_t)st.size + 1);
		if (zip_fread(f, buf, st.size) != (zip_int64_t)st.size) {
			error("%s: %s: %s", path, name,
			    zip_file_strerror(f));
			zip_fclose(f);
			free(buf);
			goto fail;
		}
		zip_fclose(f);
		m[k].name = xstrndup(name, nl - 4);
		if (npy_parse(buf, (size_t)st.size, &m[k].arr, err,
		    sizeof err) != 0) {
			error("%s: %s: %s", path, name, err);
			free(m[k].name);
			free(buf);
			goto fail;
		}
		free(buf);
		k++;
	}
	zip_close(z);
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
