// Runs the sample model through the C API nnc generated, linked with
// cgo from build/libsample.a (see build.sh), and prints the class
// probabilities.
package main

/*
#cgo CFLAGS: -I${SRCDIR}/build
#cgo LDFLAGS: -L${SRCDIR}/build -lsample -lm
#include "sample.h"
*/
import "C"

import (
	"fmt"
	"os"
	"unsafe"
)

func main() {
	input := []float32{0.5, -1.0, 2.0, 0.25}
	if int(C.sample_input_size()) != len(input) {
		fmt.Fprintf(os.Stderr, "the model wants %d inputs\n", int(C.sample_input_size()))
		os.Exit(1)
	}
	output := make([]float32, int(C.sample_output_size()))
	if C.sample_infer(unsafe.Pointer(&input[0]), unsafe.Pointer(&output[0])) != 0 {
		fmt.Fprintln(os.Stderr, "sample_infer failed")
		os.Exit(1)
	}
	fmt.Print("output:")
	for _, v := range output {
		fmt.Printf(" %.6f", v)
	}
	fmt.Println()
}
