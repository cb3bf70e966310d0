/* jsonerr: locate the first syntax error in JSON text. */
#ifndef NNL_JSONERR_H
#define NNL_JSONERR_H

#include <stddef.h>

/*
 * 0 if text is one valid JSON value (with white space around it);
 * otherwise -1 with *off the byte offset of the culprit and *msg what
 * was expected there (static storage, valid until the next call).
 */
int json_syntax_error(const char *text, size_t len, size_t *off,
    const char **msg);

#endif
