/*
 * footprint: the memory a compiled object needs on its target, read
 * from the ELF object's section headers (no target binutils needed),
 * and the size strings of a model's memory_limit ("128MB", "64 KB").
 */
#ifndef NNL_FOOTPRINT_H
#define NNL_FOOTPRINT_H

#include <stdint.h>

/*
 * The allocated sections of an object, in bytes: text (code), rodata
 * (read-only data: weights, kernel parameters), data (initialised
 * writable data: stored in flash, copied to RAM at reset) and bss
 * (zeroed writable data: the arena).  A microcontroller holds
 * text + rodata + data in flash and data + bss in RAM.
 */
struct footprint {
	uint64_t text, rodata, data, bss;
};

/* Read path's sections; 0, or -1 after an error naming the file. */
int footprint_read(const char *path, struct footprint *fp);

static inline uint64_t
footprint_flash(const struct footprint *fp)
{
	return fp->text + fp->rodata + fp->data;
}

static inline uint64_t
footprint_ram(const struct footprint *fp)
{
	return fp->data + fp->bss;
}

/* "128MB", "64 KB", "1GB", "4096": bytes, or -1 if not a size. */
int64_t footprint_parsesize(const char *s);

#endif
