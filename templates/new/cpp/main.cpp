// Runs the sample model through the C API nnc generated (build/sample.h)
// and prints the class probabilities.
#include <cstdio>
#include <vector>

#include "sample.h"	// declares sample_infer & co. inside extern "C"

int
main()
{
	const std::vector<float> input = { 0.5f, -1.0f, 2.0f, 0.25f };
	std::vector<float> output(static_cast<size_t>(sample_output_size()));

	if (static_cast<size_t>(sample_input_size()) != input.size()) {
		std::fprintf(stderr, "the model wants %d inputs\n",
		    sample_input_size());
		return 1;
	}
	if (sample_infer(input.data(), output.data()) != 0) {
		std::fprintf(stderr, "sample_infer failed\n");
		return 1;
	}
	std::printf("output:");
	for (float v : output)
		std::printf(" %.6f", static_cast<double>(v));
	std::printf("\n");
	return 0;
}
