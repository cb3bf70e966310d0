/*
 * semihost: ARM semihosting calls (bkpt 0xab), which QEMU answers on
 * the host with -semihosting-config enable=on,target=native: write a
 * string to the console, write a host file, exit with a status.
 */
#ifndef SEMIHOST_H
#define SEMIHOST_H

#include <stddef.h>

void semihost_puts(const char *s);
/* Write n bytes to the host file path (created or truncated); 0 or -1. */
int semihost_writefile(const char *path, const void *buf, size_t n);
__attribute__((noreturn)) void semihost_exit(int status);

#endif
