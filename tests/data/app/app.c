/*
 * app: a host program linking a compiled model (resnet_head), reading
 * raw float32 input on stdin and writing the output on stdout, through
 * both entry points: the static one and the reentrant one.
 */
#include <stdio.h>
#include <stdlib.h>

#include "resnet_head.h"

int
main(void)
{
	static float in[2048], out[1000], out2[1000];
	void *ws;
	const void *ins[1] = { in };
	void *outs[1] = { out2 };

	if (resnet_head_input_size() != 2048 ||
	    resnet_head_output_size() != 1000)
		return 3;
	if (fread(in, sizeof in, 1, stdin) != 1)
		return 4;
	if (resnet_head_infer(in, out) != 0)
		return 5;
	ws = aligned_alloc(64, (resnet_head_workspace_size() + 63) / 64 * 64);
	if (!ws || resnet_head_run(ws, ins, outs) != 0)
		return 6;
	for (int i = 0; i < 1000; i++)
		if (out[i] != out2[i])
			return 7;
	free(ws);
	fwrite(out, sizeof out, 1, stdout);
	return 0;
}
