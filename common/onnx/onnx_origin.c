/*
 * onnx_origin: with nnl-onnx-import --origins, each WebNN node records
 * the ONNX node it comes from, "onnx": {"op", "node", "inputs",
 * "attrs"}, so that nnl-parse -t nnl can map the operations an ONNX
 * operator was decomposed into (LRN, LayerNormalization, a 1-D Conv or
 * MaxPool) back to one NNL layer.
 */
#include <stdlib.h>
#include <string.h>

#include "onnx_imp.h"

cJSON *
onnx_origin(struct imp *m)
{
	cJSON *o = cJSON_CreateObject(), *x = cJSON_CreateObject();
	cJSON *ins = cJSON_CreateArray(), *at = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "op", m->n->op_type);
	cJSON_AddStringToObject(o, "node", m->nname ? m->nname : "");
	for (size_t i = 0; i < m->n->n_input; i++) {
		const char *s = in(m, (int)i);

		cJSON_AddItemToArray(ins, s ? cJSON_CreateString(s) :
		    cJSON_CreateNull());
	}
	for (size_t i = 0; i < m->n->n_attribute; i++) {
		const Onnx__AttributeProto *a = m->n->attribute[i];
		cJSON *v = NULL;

		if (a->n_ints) {
			v = cJSON_CreateArray();
			for (size_t k = 0; k < a->n_ints; k++)
				cJSON_AddItemToArray(v, cJSON_CreateNumber(
				    (double)a->ints[k]));
		} else if (a->n_floats) {
			v = cJSON_CreateArray();
			for (size_t k = 0; k < a->n_floats; k++)
				cJSON_AddItemToArray(v, cJSON_CreateNumber(
				    (double)a->floats[k]));
		} else if (a->has_f) {
			v = cJSON_CreateNumber((double)a->f);
		} else if (a->has_i) {
			v = cJSON_CreateNumber((double)a->i);
		} else if (a->has_s) {
			char *s = xstrndup((const char *)a->s.data, a->s.len);

			v = cJSON_CreateString(s);
			free(s);
		}
		if (v && a->name)
			cJSON_AddItemToObject(at, a->name, v);
		else
			cJSON_Delete(v);
	}
	cJSON_AddItemToObject(o, "inputs", ins);
	cJSON_AddItemToObject(o, "attrs", at);
	cJSON_AddItemToObject(x, "onnx", o);
	return x;
}
