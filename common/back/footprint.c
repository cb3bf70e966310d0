/*
 * footprint: sums the sizes of an ELF object's allocated sections by
 * kind, for nnc's flash and RAM figures of a target build.  ELF32 and
 * ELF64, either byte order; a relocatable object or an executable.
 */
#define _DEFAULT_SOURCE
#include "footprint.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "infile.h"
#include "util.h"

enum {
	SHT_NOBITS = 8,
	SHF_WRITE = 1, SHF_ALLOC = 2, SHF_EXECINSTR = 4
};

/* An unsigned field of n bytes at p, in the file's byte order. */
static uint64_t
field(const unsigned char *p, int n, int big)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v |= (uint64_t)p[big ? n - 1 - i : i] << (8 * i);
	return v;
}

int
footprint_read(const char *path, struct footprint *fp)
{
	unsigned char eh[64], *sh = NULL;
	const char *why = "not an ELF object";
	uint64_t size, shoff, shentsize, shnum, need;
	int fd, w, big, rc = -1;

	memset(fp, 0, sizeof *fp);
	if ((fd = infile_open(path, &size, &why)) < 0)
		goto out;
	if (size < sizeof eh || infile_pread(fd, eh, sizeof eh, 0, &why) != 0)
		goto out;
	why = "not an ELF object";
	if (memcmp(eh, "\177ELF", 4) || (eh[4] != 1 && eh[4] != 2) ||
	    (eh[5] != 1 && eh[5] != 2))
		goto out;
	w = eh[4] == 2 ? 8 : 4;		/* ELFCLASS64: 8-byte offsets */
	big = eh[5] == 2;
	shoff = field(eh + (w == 8 ? 40 : 32), w, big);
	shentsize = field(eh + (w == 8 ? 58 : 46), 2, big);
	shnum = field(eh + (w == 8 ? 60 : 48), 2, big);
	need = shentsize * shnum;
	why = "section headers out of the file";
	if (shentsize < (w == 8 ? 64u : 40u) || shoff > size ||
	    need > size - shoff)
		goto out;
	sh = xmalloc(need ? need : 1);
	if (infile_pread(fd, sh, need, shoff, &why) != 0)
		goto out;
	for (uint64_t i = 0; i < shnum; i++) {
		const unsigned char *s = sh + i * shentsize;
		uint64_t type = field(s + 4, 4, big);
		uint64_t flags = field(s + 8, w, big);
		uint64_t sz = field(s + (w == 8 ? 32 : 20), w, big);

		if (!(flags & SHF_ALLOC))
			continue;
		if (flags & SHF_EXECINSTR)
			fp->text += sz;
		else if (!(flags & SHF_WRITE))
			fp->rodata += sz;
		else if (type == SHT_NOBITS)
			fp->bss += sz;
		else
			fp->data += sz;
	}
	rc = 0;
out:
	if (rc)
		error("%s: %s", path, why);
	if (fd >= 0)
		close(fd);
	free(sh);
	return rc;
}

int64_t
footprint_parsesize(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	int64_t mul = 1;

	if (end == s || !(v >= 0))
		return -1;
	while (isspace((unsigned char)*end))
		end++;
	if (!strcasecmp(end, "KB"))
		mul = 1024;
	else if (!strcasecmp(end, "MB"))
		mul = 1024 * 1024;
	else if (!strcasecmp(end, "GB"))
		mul = 1024LL * 1024 * 1024;
	else if (*end && strcasecmp(end, "B"))
		return -1;
	if (!(v * (double)mul < 9e18))	/* NaN too */
		return -1;
	return (int64_t)(v * (double)mul);
}
