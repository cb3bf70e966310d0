/*
 * onnx_nn: ONNX convolutions, pools, normalizations, matrix products
 * and recurrent operators as WebNN operations.
 */
#include <stdlib.h>
#include <string.h>

#include "onnx_imp.h"
