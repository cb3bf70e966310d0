/* test_dtype: the dtype table and the op table against hand-derived facts. */
#include "check.h"
#include "dtype.h"
#include "ops.h"

TEST(dtype_names_round_trip)
{
	for (int t = 0; t < DT_COUNT; t++) {
		CHECK(dtype_from_name(dtype_name(t)) == t);
		CHECK(dtype_from_short(dtype_short(t)) == t);
	}
	CHECK(dtype_from_name("complex64") == DT_NONE);
	CHECK(dtype_from_short("c64") == DT_NONE);
}

/* nnl's extended types follow WebNN's, which they are not */
TEST(extended_types_beyond_webnn)
{
	CHECK(dtype_from_name("float64") == DT_FLOAT64);
	CHECK(dtype_from_short("bf16") == DT_BFLOAT16);
	CHECK(dtype_bytes(DT_FLOAT64, 3) == 24);
	CHECK(dtype_bytes(DT_INT16, 3) == 6);
	CHECK(dtype_bytes(DT_UINT16, 1) == 2);
	CHECK(dtype_bytes(DT_BFLOAT16, 5) == 10);
	CHECK(dtype_isfloat(DT_BFLOAT16) && dtype_isfloat(DT_FLOAT64));
	CHECK(!dtype_issigned(DT_UINT16) && dtype_issigned(DT_INT16));
	CHECK(dtype_extended(DT_FLOAT64) && dtype_extended(DT_BFLOAT16) &&
	    dtype_extended(DT_INT16) && dtype_extended(DT_UINT16));
	CHECK(!dtype_extended(DT_FLOAT32) && !dtype_extended(DT_UINT4) &&
	    !dtype_extended(DT_UINT8));
}

TEST(dtype_sizes)
{
	CHECK(dtype_bytes(DT_FLOAT32, 10) == 40);
	CHECK(dtype_bytes(DT_FLOAT16, 3) == 6);
	CHECK(dtype_bytes(DT_INT64, 2) == 16);
	CHECK(dtype_bytes(DT_UINT8, 7) == 7);
	CHECK(dtype_bytes(DT_INT4, 5) == 3);	/* two per byte, rounded up */
	CHECK(dtype_bytes(DT_UINT4, 4) == 2);
}

TEST(dtype_npy_descriptors)
{
	CHECK(dtype_from_npy("<f4") == DT_FLOAT32);
	CHECK(dtype_from_npy("<f2") == DT_FLOAT16);
	CHECK(dtype_from_npy("|u1") == DT_UINT8);
	CHECK(dtype_from_npy("|i1") == DT_INT8);
	CHECK(dtype_from_npy("<i8") == DT_INT64);
	CHECK(dtype_from_npy(">f4") == DT_NONE);	/* big endian */
	CHECK(dtype_from_npy("<f8") == DT_FLOAT64);	/* nnl's, beyond WebNN */
	CHECK(dtype_from_npy("<i2") == DT_INT16);
	CHECK(dtype_from_npy("<u2") == DT_UINT16);	/* never bfloat16 */
	CHECK(dtype_from_npy("<c8") == DT_NONE);
	CHECK(dtype_from_npy("|b1") == DT_NONE);
}

TEST(op_table_has_the_95_builder_ops_then_nnls)
{
	CHECK(OP_WEBNN_COUNT == 95);
	CHECK((int)OP_COUNT > (int)OP_WEBNN_COUNT);	/* and nnl's ones */
	CHECK(!op_get(OP_CONV2D)->nnl && op_get(OP_WHERE)->nnl == 0);
	CHECK(op_lookup("bitShift") && op_lookup("bitShift")->nnl &&
	    (int)op_lookup("bitShift")->id >= OP_WEBNN_COUNT);
	CHECK(op_lookup("conv2d") && op_lookup("conv2d")->id == OP_CONV2D);
	CHECK(op_lookup("Conv2d") == NULL);
	CHECK(op_lookup("input") == NULL);	/* not an operation */
}

TEST(op_table_operands_and_options)
{
	const struct opdesc *d = op_lookup("conv2d");
	const struct argdesc *a;

	CHECK(d->nOperands == 2);
	CHECK_STR(d->operands[0], "input");
	CHECK_STR(d->operands[1], "filter");
	a = op_arg(d, "bias");
	CHECK(a && a->type == AT_OPERAND);
	a = op_arg(d, "strides");
	CHECK(a && a->type == AT_U32 && a->seq);
	a = op_arg(d, "filterLayout");
	CHECK(a && a->type == AT_ENUM);
	CHECK_STR(a->enumvals[0], "oihw");
	CHECK_STR(a->def, "oihw");
	CHECK(op_arg(d, "axis") == NULL);
	d = op_lookup("concat");
	CHECK(d->variadic);
	CHECK(d->nparams == 1);
	CHECK_STR(d->params[0].name, "axis");
	d = op_lookup("split");
	a = op_arg(d, "splits");
	CHECK(a && a->type == AT_U32 && !a->seq && a->hasalt && a->altseq);
	CHECK(d->nout == 0);
	d = op_lookup("lstm");
	CHECK(d->nOperands == 3 && d->nparams == 2);
	a = op_arg(d, "activations");
	CHECK(a && a->type == AT_ENUM && a->seq);
}

TEST(op_suggestions)
{
	CHECK_STR(op_suggest("matmull"), "matmul");
	CHECK_STR(op_suggest("Relu"), "relu");
	CHECK_STR(op_suggest("softmx"), "softmax");
	CHECK(op_suggest("frobnicatewidget") == NULL);
	CHECK(editdistance("kitten", "sitting") == 3);
}

int
main(void)
{
	RUN(dtype_names_round_trip);
	RUN(dtype_sizes);
	RUN(extended_types_beyond_webnn);
	RUN(dtype_npy_descriptors);
	RUN(op_table_has_the_95_builder_ops_then_nnls);
	RUN(op_table_operands_and_options);
	RUN(op_suggestions);
	return DONE();
}
