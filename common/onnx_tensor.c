/*
 * onnx_tensor: ONNX shape, data movement and reduction operators as
 * WebNN operations; shape computations fold at import time.
 */
#include <stdlib.h>
#include <string.h>

#include "onnx_imp.h"
