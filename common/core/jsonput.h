/*
 * jsonput: the canonical printer for any JSON value (numbers in
 * shortest round-trip form), appended to a buffer (jsonput.c).
 */
#ifndef NNL_JSONPUT_H
#define NNL_JSONPUT_H

#include <cjson/cJSON.h>

#include "buf.h"

void json_put_string(struct buf *b, const char *s);
void json_put_number(struct buf *b, double v);
void json_put_value(struct buf *b, const cJSON *v);	/* one line */

#endif
