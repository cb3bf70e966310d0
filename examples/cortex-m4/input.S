/* input: the model's input, raw little-endian bytes, linked into the
 * firmware's flash (INPUT_FILE names the file: see run.sh). */
	.section .rodata.nnl_input, "a"
	.balign 8
	.global nnl_input
	.global nnl_input_end
nnl_input:
	.incbin INPUT_FILE
nnl_input_end:
